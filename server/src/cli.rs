//! The `mazerace` command line: `serve` (the default), `gen` and `verify`.
//! `main.rs` only calls [`main`].

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{Config, LogFormat, ServeArgs};
use crate::server::Server;

#[derive(Parser, Debug)]
#[command(name = "mazerace", version, about = "Race friends through Ghost vaults and mazes on your LAN.")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand, `mazerace` serves with these flags.
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the race server (the default).
    Serve(ServeArgs),
    /// Print boards as JSON lines.
    Gen(crate::gen::GenArgs),
    /// Re-play stored daily runs and report any whose score does not match.
    Verify {
        #[arg(long, env = "MAZERACE_DATA_DIR", default_value = "data")]
        data_dir: PathBuf,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => serve(cli.serve.into_config()),
        Some(Command::Serve(args)) => serve(args.into_config()),
        Some(Command::Gen(args)) => crate::gen::run(args),
        Some(Command::Verify { data_dir: _ }) => {
            println!("verify: not built yet");
            return ExitCode::from(2);
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

fn init_logs(format: LogFormat) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// `mazerace serve`: bind, print the URLs, serve until SIGINT/SIGTERM.
pub fn serve(config: Config) -> anyhow::Result<()> {
    init_logs(config.log_format);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.bind))?;
        let bound = listener.local_addr()?;
        // The daily store plugs in here (see crate::daily).
        let server = Server::new(config, None)?;
        {
            let mut out = std::io::stdout().lock();
            out.write_all(crate::net::banner(bound).as_bytes())?;
            out.flush()?;
        }
        let stopper = server.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("signal received: shutting down");
            stopper.shutdown();
        });
        server.run(listener).await
    })
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
