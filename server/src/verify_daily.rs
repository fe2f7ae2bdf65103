//! `mazerace verify-daily DATE`: checks that a past day's boards were fixed
//! before the day. With `--reveal FILE` (the saved answer of `GET
//! /api/daily/DATE/reveal`) anyone can run it without the server's
//! database; with `--commitments FILE` (the answer of `GET
//! /api/daily/commitments` saved before the day) it also checks that the
//! revealed commitments are the ones published then. Without `--reveal` it
//! reveals the day from the local database's salt (an operator's check).
//! Every board is rebuilt from its seed.

use std::path::{Path, PathBuf};

use anyhow::Context;

use mazerace_protocol::daily::is_valid_date;
use mazerace_store::commit::{check, reveal, Commitments, Reveal};

use crate::config::Config;

#[derive(clap::Args, Debug)]
pub struct VerifyDailyArgs {
    /// The UTC day, `YYYY-MM-DD` (a day that is over).
    date: String,
    /// A saved `GET /api/daily/DATE/reveal` answer (else: the local database's salt).
    #[arg(long)]
    reveal: Option<PathBuf>,
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

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not the expected JSON", path.display()))
}

/// Runs the check; `Ok(true)` when every board matches.
pub fn run(args: VerifyDailyArgs) -> anyhow::Result<bool> {
    anyhow::ensure!(is_valid_date(&args.date), "{:?} is not a YYYY-MM-DD date", args.date);
    let day: Reveal = match &args.reveal {
        Some(path) => read_json(path)?,
        None => {
            let today = mazerace_store::utc_date(std::time::SystemTime::now());
            anyhow::ensure!(args.date < today, "{} is not over yet: its seeds are secret", args.date);
            let salt = match args.daily_salt {
                Some(s) => s.into_bytes(),
                None => {
                    let db =
                        mazerace_store::Database::from_flags(args.database_url.as_deref(), &args.data_dir)?;
                    let mut backend = db.open_backend(Default::default())?;
                    backend.daily_salt()?
                }
            };
            reveal(&salt, &args.date)
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
