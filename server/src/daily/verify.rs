//! The daily's two checks on the command line (`anyhow` at this edge):
//! `mazerace verify` re-plays every stored run ([`stored_runs`]), and
//! `mazerace verify-daily DATE` checks that a past day's boards were fixed
//! before the day. With `--server http://HOST:PORT` it fetches the day's
//! reveal; with `--reveal FILE` (the saved answer of `GET
//! /api/daily/DATE/reveal`) anyone can run it without the server's
//! database; with `--commitments FILE` (the answer of `GET
//! /api/daily/commitments` saved before the day) it also checks that the
//! revealed commitments are the ones published then. Without `--reveal` it
//! reveals the day from the local database's salt (an operator's check).
//! Every board is rebuilt from its seed.

use std::path::{Path, PathBuf};

use anyhow::Context;

use mazerace_protocol::daily::reveal::{check, reveal, Commitments, Reveal};
use mazerace_protocol::daily::DailyDate;

use crate::config::Config;

#[derive(clap::Args, Debug)]
pub struct VerifyDailyArgs {
    /// The UTC day, `YYYY-MM-DD` (a day that is over).
    date: DailyDate,
    /// A saved `GET /api/daily/DATE/reveal` answer (else: `--server`, else
    /// the local database's salt).
    #[arg(long, conflicts_with = "server")]
    reveal: Option<PathBuf>,
    /// Fetch the reveal from this server (`http://host:port`; for https,
    /// save it with curl and pass `--reveal`).
    #[arg(long)]
    server: Option<String>,
    /// A saved `GET /api/daily/commitments` answer from before the day.
    #[arg(long)]
    commitments: Option<PathBuf>,
    #[arg(long, env = "MAZERACE_DATA_DIR", default_value_os_t = Config::default().data_dir)]
    data_dir: PathBuf,
    /// The salt the server runs with, if configured (else the stored one).
    #[arg(long, env = "MAZERACE_DAILY_SALT", hide_env_values = true)]
    daily_salt: Option<String>,
    /// The PostgreSQL URL the server runs with, if any (else SQLite in --data-dir).
    #[arg(long, env = "MAZERACE_DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
}

/// A plain HTTP/1.0 GET of `path` on `base` (`http://host:port`): the body
/// of a 200 answer. HTTP/1.0 so the server closes after one whole body.
fn http_get(base: &str, path: &str) -> anyhow::Result<String> {
    use std::io::{Read, Write};
    let host = base
        .strip_prefix("http://")
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--server takes http://host:port (save an https answer with curl and pass --reveal)"
            )
        })?
        .trim_end_matches('/');
    let mut tcp = std::net::TcpStream::connect(host).with_context(|| format!("connecting to {host}"))?;
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(20)))?;
    write!(tcp, "GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: application/json\r\n\r\n")?;
    let mut raw = Vec::new();
    tcp.take(1 << 20).read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) =
        text.split_once("\r\n\r\n").ok_or_else(|| anyhow::anyhow!("{host}: not an HTTP answer"))?;
    let status = head.split_whitespace().nth(1).unwrap_or("");
    anyhow::ensure!(status == "200", "{host}{path}: HTTP {status}: {body}");
    Ok(body.to_owned())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not the expected JSON", path.display()))
}

/// The store as the CLI opens it (a runtime of its own): SQLite in
/// `data_dir` (which must exist) or PostgreSQL at `database_url`.
fn open_store(
    rt: &tokio::runtime::Runtime,
    data_dir: &Path,
    database_url: Option<&str>,
) -> anyhow::Result<mazerace_store::Store> {
    let db = mazerace_store::Database::from_flags(database_url, data_dir)?;
    if let mazerace_store::Database::SqliteDir(_) = db {
        let path = mazerace_store::sqlite::db_path(data_dir);
        anyhow::ensure!(path.exists(), "no daily database at {}", path.display());
    }
    let store = rt.block_on(mazerace_store::Store::connect(db.clone(), Default::default()));
    store.with_context(|| format!("opening {}", db.describe()))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

/// `mazerace verify`: re-play every stored daily run; `Ok(true)` when all match.
pub fn stored_runs(
    data_dir: &Path,
    database_url: Option<&str>,
    salt: Option<String>,
) -> anyhow::Result<bool> {
    let rt = runtime()?;
    let store = open_store(&rt, data_dir, database_url)?;
    let report = rt.block_on(async {
        let salt = match salt {
            Some(s) => s.into_bytes(),
            None => store.daily_salt().await?,
        };
        let report = mazerace_store::verify(&store, Some(&salt)).await;
        store.close().await;
        report
    })?;
    println!("{report}");
    Ok(report.ok())
}

/// Runs the check; `Ok(true)` when every board matches.
pub fn run(args: VerifyDailyArgs) -> anyhow::Result<bool> {
    let day: Reveal = match &args.reveal {
        Some(path) => read_json(path)?,
        None if args.server.is_some() => {
            let base = args.server.as_deref().unwrap_or_default();
            let body = http_get(base, &format!("/api/daily/{}/reveal", args.date))?;
            serde_json::from_str(&body).with_context(|| format!("{base}: not a reveal: {body}"))?
        }
        None => {
            let today = DailyDate::of(std::time::SystemTime::now());
            anyhow::ensure!(
                !super::secrecy::day_is_on(args.date, today),
                "{} is not over yet: its seeds are secret",
                args.date
            );
            let salt = match args.daily_salt {
                Some(s) => s.into_bytes(),
                None => {
                    let rt = runtime()?;
                    let store = open_store(&rt, &args.data_dir, args.database_url.as_deref())?;
                    let salt = rt.block_on(store.daily_salt())?;
                    rt.block_on(store.close());
                    salt
                }
            };
            reveal(&salt, args.date)
        }
    };
    anyhow::ensure!(day.date == args.date, "the reveal is of {}, not {}", day.date, args.date);
    let published: Option<Commitments> = args.commitments.as_deref().map(read_json).transpose()?;
    match check(&day, published.as_ref()) {
        Ok(boards) => {
            for (b, board) in day.boards.iter().zip(&boards) {
                let best = board.best().map_or_else(|| "none".to_owned(), |b| b.to_string());
                println!(
                    "{} {} {}: seed {} matches {} (best {best})",
                    day.date, b.game, b.size, b.seed, b.commitment
                );
            }
            let against =
                if published.is_some() { "the published commitments" } else { "their own commitments" };
            println!("{}: {} boards verified against {against}", day.date, boards.len());
            Ok(true)
        }
        Err(e) => {
            println!("{}: FAILED: {e}", day.date);
            Ok(false)
        }
    }
}
