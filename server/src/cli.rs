//! The `mazerace` command line: `serve` (the default), `gen`, `verify` and `verify-daily`.
//! `main.rs` only calls [`main`].

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::sync::Arc;

use crate::config::Config;
use crate::server::Server;
use crate::StoreHook;

#[derive(Parser, Debug)]
#[command(name = "mazerace", version, about = "Race friends through the same puzzle board on your LAN.")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand, `mazerace` serves with these flags.
    #[command(flatten)]
    serve: Config,
}

#[derive(Subcommand, Debug)]
// Parsed once at start: the size of `serve`'s flags costs nothing.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Run the race server (the default).
    Serve(Config),
    /// Print boards as JSON lines.
    Gen(crate::gen::GenArgs),
    /// Re-play stored daily runs and report any whose score does not match.
    Verify {
        #[arg(long, env = "MAZERACE_DATA_DIR", default_value = crate::config::DATA_DIR)]
        data_dir: PathBuf,
        /// The salt the server runs with, if configured (else the stored one).
        #[arg(long, env = "MAZERACE_DAILY_SALT", hide_env_values = true)]
        daily_salt: Option<String>,
        /// The PostgreSQL URL the server runs with, if any (else SQLite in --data-dir).
        #[arg(long, env = "MAZERACE_DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
    },
    /// Check a past day's revealed daily seeds against their commitments.
    VerifyDaily(crate::daily::verify::VerifyDailyArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => serve(cli.serve.clamped()),
        Some(Command::Serve(args)) => serve(args.clamped()),
        Some(Command::Gen(args)) => crate::gen::run(args),
        Some(Command::VerifyDaily(args)) => match crate::daily::verify::run(args) {
            Ok(true) => return ExitCode::SUCCESS,
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Some(Command::Verify { data_dir, daily_salt, database_url }) => {
            match crate::daily::verify::stored_runs(&data_dir, database_url.as_deref(), daily_salt) {
                Ok(true) => return ExitCode::SUCCESS,
                Ok(false) => return ExitCode::from(1),
                Err(e) => Err(e),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mazerace: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `mazerace serve`: bind, print the URLs, serve until SIGINT, or SIGTERM and its drain.
pub fn serve(config: Config) -> anyhow::Result<()> {
    crate::logs::init(config.log_format);
    crate::edge::fdlimit::prepare(config.max_connections);
    let rt = match config.worker_threads {
        Some(0) => tokio::runtime::Builder::new_current_thread().enable_all().build()?,
        Some(n) => tokio::runtime::Builder::new_multi_thread().worker_threads(n).enable_all().build()?,
        None => tokio::runtime::Builder::new_multi_thread().enable_all().build()?,
    };
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.bind))?;
        let bound = listener.local_addr()?;
        let db = mazerace_store::Database::from_flags(config.database_url.as_deref(), &config.data_dir)
            .context("--database-url (MAZERACE_DATABASE_URL)")?;
        // Runs record the node id; at start a node closes only its own
        // node id's runs left open (issue 14). No id: the one anonymous node.
        let node = mazerace_store::NodeOptions {
            node_id: config.node_id,
            lease: config.node_lease,
            ..Default::default()
        };
        let store = mazerace_store::Store::connect(db.clone(), node)
            .await
            .with_context(|| format!("opening the daily store ({})", db.describe()))?;
        // PostgreSQL: the mailbox rooms move through while a node drains.
        let mailbox = store.room_moves();
        let salt = config.daily_salt.clone().map(String::into_bytes);
        let hook = StoreHook::new(store, salt, Arc::new(mazerace_store::SystemClock))
            .await
            .context("starting the daily challenge")?
            .with_ranked_per_address(config.ranked_per_address);
        let server = Server::with_moves(config, Some(Arc::new(hook)), mailbox)?;
        {
            let mut out = std::io::stdout().lock();
            out.write_all(crate::edge::net::banner(bound).as_bytes())?;
            out.flush()?;
        }
        tokio::spawn(on_signals(server.clone()));
        server.run(listener).await
    })
}

/// The signals' meaning: SIGINT (Ctrl-C) shuts down at once (with the
/// grace); SIGTERM (what `systemctl stop` and a rolling restart send)
/// drains first (`--drain-secs`), and a second SIGTERM during the drain
/// shuts down at once.
async fn on_signals(server: Server) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => loop {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {
                        tracing::info!("SIGINT: shutting down");
                        return server.shutdown();
                    }
                    _ = term.recv() => {
                        if server.is_draining() {
                            tracing::info!("second SIGTERM: ending the drain, shutting down");
                            return server.shutdown();
                        }
                        tracing::info!("SIGTERM: draining");
                        server.drain();
                    }
                }
            },
            Err(e) => tracing::warn!(error = %e, "cannot listen for SIGTERM: only Ctrl-C stops the server"),
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("interrupted: shutting down");
    server.shutdown();
}
