//! The daily store under one big board (issues 14 and 26): a board holding
//! `store_runs` ranked finished runs (1,000,000 in a full run), on SQLite
//! and, with `--database-url`, on PostgreSQL (in a schema of its own,
//! dropped afterwards). Everything is measured through a node's own
//! [`Store`] (its queue, its connections, its group commit), on a runtime of
//! two workers as the server runs:
//! - the leaderboard as served (top 100, entrants and `you`), p50/p99;
//! - "my rank" (`rank_of` of a run somewhere on the board), p50/p99;
//! - ranked finishes, closed loop: `writers` callers at once, each waiting
//!   for its commit (`store_finish`);
//! - ranked finishes, open loop, at each `--store-rate`: committed a second,
//!   the commit p50/p99, finishes per commit, and whether the queue grew.
//!
//! The board is filled by one SQL statement per table, then `ANALYZE`
//! (PostgreSQL: `VACUUM ANALYZE`, and `ANALYZE runs` after each batch of
//! begun runs is put in): the fill is set-up, not what is measured, and
//! autovacuum would otherwise start on the fresh rows mid-measurement.

use std::time::{Duration, Instant};

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::Size;
use mazerace_store::{Database, NewRun, NodeOptions, Outcome, PlayerKey, Store};

use super::{store_finish, Ctx};
use crate::report::{fmt_count, Goal, Section, Table};
use crate::stats::{fmt_dur, Lat};

const DATE: &str = "2000-01-01";
const SIZE: Size = Size::Hard;

/// Runs raw set-up SQL against a target (blocking: see [`exec`]).
type Exec = Box<dyn Fn(&str) -> anyhow::Result<()> + Send + Sync>;

/// Runs `sql` on `target` on a thread of its own: the blocking clients must
/// not run on the runtime's threads (the sync PostgreSQL client starts a
/// runtime of its own).
fn exec(target: &Target, sql: &str) -> anyhow::Result<()> {
    let run = &target.exec;
    std::thread::scope(|s| s.spawn(|| run(sql)).join())
        .unwrap_or_else(|_| anyhow::bail!("set-up SQL panicked"))
}

/// One backend to measure.
struct Target {
    name: &'static str,
    db: Database,
    /// Run raw set-up SQL (the fill) against the target.
    exec: Exec,
    cleanup: Box<dyn FnOnce()>,
}

pub fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("store", "Daily store: one board of many ranked runs");
    let mut reads = Table::new(&[
        "backend",
        "ranked runs on the board",
        "fill",
        "leaderboard p50",
        "leaderboard p99",
        "my rank p50",
        "my rank p99",
        "closed loop: callers",
        "finishes/s",
        "commit p50",
        "commit p99",
        "finishes a commit",
    ]);
    let mut open = Table::new(&[
        "backend",
        "offered/s",
        "committed/s",
        "commit p50",
        "commit p99",
        "finishes a commit",
        "queue (2nd quarter)",
        "queue (last quarter)",
        "p99 by quarter",
    ]);
    let mut targets = Vec::new();
    match sqlite_target() {
        Ok(target) => targets.push(target),
        Err(e) => sec.fail(format!("SQLite could not be set up: {e:#}")),
    }
    match &ctx.store_database_url {
        Some(url) => match postgres_target(url) {
            Ok((target, settings)) => {
                sec.note(format!("PostgreSQL settings: {settings}."));
                targets.push(target);
            }
            Err(e) => sec.fail(format!("PostgreSQL could not be set up: {e:#}")),
        },
        None => sec.note("PostgreSQL not measured: give --database-url (or MAZERACE_BENCH_DATABASE_URL)."),
    }
    match store_finish::disk_flushes_per_sec(&std::env::temp_dir(), if ctx.quick { 0.2 } else { 2.0 }) {
        Ok(rate) => sec.note(format!(
            "This disk's durable writes just before (8 KiB overwritten and fdatasync'ed in a loop in {}): \
             {} a second. Every durable commit waits for one; on a shared machine this moves a lot.",
            std::env::temp_dir().display(),
            fmt_count(rate)
        )),
        Err(e) => sec.note(format!("The disk's flush rate could not be probed: {e}")),
    }
    for target in targets {
        let name = target.name;
        match measure(ctx, &target) {
            Ok(m) => {
                reads.row(vec![
                    name.into(),
                    fmt_count(m.runs as f64),
                    format!("{:.1} s", m.fill.as_secs_f64()),
                    fmt_dur(m.board.quantile(0.5)),
                    fmt_dur(m.board.quantile(0.99)),
                    fmt_dur(m.rank.quantile(0.5)),
                    fmt_dur(m.rank.quantile(0.99)),
                    ctx.store_writers.to_string(),
                    fmt_count(m.closed.per_sec),
                    fmt_dur(m.closed.lat.quantile(0.5)),
                    fmt_dur(m.closed.lat.quantile(0.99)),
                    format!("{:.1}", m.closed.per_commit),
                ]);
                for o in &m.open {
                    open.row(vec![
                        name.into(),
                        fmt_count(o.offered_per_sec),
                        fmt_count(o.done_per_sec),
                        fmt_dur(o.lat.quantile(0.5)),
                        fmt_dur(o.lat.quantile(0.99)),
                        format!("{:.1}", o.per_commit),
                        format!("{:.1}", o.queue_early),
                        format!("{:.1}", o.queue_late),
                        o.p99_by_quarter.map(fmt_dur).join(", "),
                    ]);
                }
                goals(&mut sec, name, &m);
            }
            Err(e) => sec.fail(format!("{name}: {e:#}")),
        }
        (target.cleanup)();
    }
    sec.tables.push(reads);
    sec.tables.push(open);
    sec.note(format!(
        "One board ({DATE} {} {SIZE}); moves 100..500 and times at random. All through a node's own \
         `Store` (its queue, its connections, its group commit) on a runtime of two workers. Leaderboard: \
         top 100 with entrants and the caller's own line. My rank: `rank_of` of runs spread over the \
         board. Closed loop: begun ranked runs on the board finished by that many callers at once, each \
         waiting for its commit before the next. Open loop: begun ranked runs offered at --store-rate a \
         second whatever the answers do, each timed from its scheduled moment to its acknowledged commit; \
         the queue is the store's depth sampled every 20 ms while offering (a queue that grows shows as \
         a last quarter far above the second).",
        SIZE.game()
    ));
    sec
}

fn goals(sec: &mut Section, name: &str, m: &Measured) {
    let ms10 = Duration::from_millis(10);
    let full = m.runs >= 1_000_000;
    let at =
        if full { String::new() } else { format!(" (at {} runs, not 1,000,000)", fmt_count(m.runs as f64)) };
    for (what, lat) in [("leaderboard top 100", &m.board), ("my rank", &m.rank)] {
        let p99 = lat.quantile(0.99);
        sec.goals.push(Goal::new(
            &format!("{name}: {what} p99 with 1,000,000 ranked runs"),
            "< 10 ms",
            format!("{}{at}", fmt_dur(p99)),
            full && p99 < ms10,
        ));
    }
    if name != "PostgreSQL" {
        return;
    }
    for o in &m.open {
        let figures = format!(
            "{}/s offered, {}/s committed at p99 {}, queue {:.1} -> {:.1}",
            fmt_count(o.offered_per_sec),
            fmt_count(o.done_per_sec),
            fmt_dur(o.lat.quantile(0.99)),
            o.queue_early,
            o.queue_late
        );
        let kept_up = o.done_per_sec >= 0.95 * o.offered_per_sec;
        if (1_999.0..2_500.0).contains(&o.offered_per_sec) {
            sec.goals.push(Goal::new(
                "PostgreSQL: ranked finishes committed (a node's store, open loop, durable)",
                "2,000/s at p99 < 20 ms",
                figures,
                kept_up && o.lat.quantile(0.99) < Duration::from_millis(20),
            ));
        } else if o.offered_per_sec >= 2_999.0 {
            sec.goals.push(Goal::new(
                "PostgreSQL: 3,000 finishes a second offered (a node's store, open loop, durable)",
                "the queue does not grow",
                figures,
                kept_up && o.queue_steady(),
            ));
        }
    }
}

struct Measured {
    runs: u64,
    fill: Duration,
    board: Lat,
    rank: Lat,
    closed: store_finish::Closed,
    /// One per offered rate.
    open: Vec<store_finish::Open>,
}

fn measure(ctx: &Ctx, target: &Target) -> anyhow::Result<Measured> {
    let runs = ctx.store_runs.max(1) as u64;
    let (probes, finishes) = if ctx.quick { (50, 200) } else { (500, 4_000) };
    // Five seconds' worth at each offered rate (a tenth of a second quick).
    let offers: Vec<(f64, usize)> = ctx
        .store_rates
        .iter()
        .map(|&rate| (rate, (rate * if ctx.quick { 0.1 } else { 5.0 }).max(10.0) as usize))
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async {
        let store = Store::connect(target.db.clone(), NodeOptions::default()).await?;
        let t0 = Instant::now();
        exec(target, &fill_sql(target.name == "PostgreSQL", runs))?;
        if target.name == "PostgreSQL" {
            // Set-up too: the million fresh rows vacuumed now, as autovacuum
            // keeps a board that grew over a day, rather than by autovacuum
            // itself in the middle of the measurement (its insert threshold).
            exec(target, "VACUUM ANALYZE")?;
        }
        let fill = t0.elapsed();
        // Real players (keys from tokens) spread over the board, to ask "my rank".
        let mut mine = Vec::new();
        for i in 0..probes {
            let begun = store.begin_run(new_run(&format!("probe-{i}"))).await?;
            let steps = 100 + (i as u32 * 397) % 400;
            let outcome = Outcome::Finished { steps, time_ms: 1_000 + i as u64, at_floor: false };
            store.finish_run(begun.run_id, outcome, Vec::new(), None).await?;
            mine.push((PlayerKey::from_token(&format!("probe-{i}")), begun.run_id));
        }
        let mut board = Lat::new();
        let mut rank = Lat::new();
        for _ in 0..3 {
            for (player, run_id) in &mine {
                let t = Instant::now();
                let table = store.leaderboard(date(), SIZE.game(), SIZE, Some(player.clone())).await?;
                board.record(t.elapsed());
                anyhow::ensure!(table.entries.len() == 100 && table.you.is_some(), "a short table");
                let t = Instant::now();
                anyhow::ensure!(store.rank_of(*run_id).await?.is_some(), "a ranked finish without a rank");
                rank.record(t.elapsed());
            }
        }
        // Begun ranked runs to finish (players and `playing` runs put in by
        // SQL, as the fill: set-up, not what is measured).
        let mut after = mine.last().map_or(0, |m| m.1);
        let mut next_player = runs + 1;
        let begun = playing_runs(target, &store, after, next_player, finishes).await?;
        (after, next_player) = (begun.last().copied().unwrap_or(after), next_player + finishes as u64);
        let closed = store_finish::closed_loop(&store, &begun, ctx.store_writers, ctx.store_one_step).await?;
        let mut open = Vec::new();
        for &(rate, n) in &offers {
            let offered = playing_runs(target, &store, after, next_player, n).await?;
            (after, next_player) = (offered.last().copied().unwrap_or(after), next_player + n as u64);
            open.push(store_finish::open_loop(&store, &offered, rate).await?);
        }
        store.close().await;
        Ok(Measured { runs: runs + probes as u64, fill, board, rank, closed, open })
    })
}

/// The board's day.
fn date() -> DailyDate {
    DATE.parse().unwrap_or(mazerace_protocol::daily::FIRST_DAILY)
}

/// `n` players numbered from `first`, each with a begun ranked run on the
/// board (one SQL statement each, counters kept); returns the runs' ids,
/// which come after `after`.
async fn playing_runs(
    target: &Target,
    store: &Store,
    after: i64,
    first: u64,
    n: usize,
) -> anyhow::Result<Vec<i64>> {
    let (g, s) = (SIZE.game().as_str(), SIZE.as_str());
    let last = first + n as u64 - 1;
    let bump = format!(
        "UPDATE board_entrants SET n = n + {n} WHERE date = '{DATE}' AND game = '{g}' AND size = '{s}' AND shard = 0;"
    );
    let sql = if target.name == "PostgreSQL" {
        format!(
            "INSERT INTO players (key, name) SELECT lpad(to_hex(i), 64, '0'), 'F' || i FROM generate_series({first}, {last}) i;
             INSERT INTO runs (player, name, date, game, size, seed, ranked)
             SELECT lpad(to_hex(i), 64, '0'), 'F' || i, '{DATE}', '{g}', '{s}', '1', TRUE
             FROM generate_series({first}, {last}) i ORDER BY i;
             {bump}
             ANALYZE runs;"
        )
    } else {
        let series =
            format!("WITH RECURSIVE n(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM n WHERE i < {last})");
        format!(
            "BEGIN;
             {series} INSERT INTO players (key, name) SELECT printf('%064x', i), 'F' || i FROM n;
             {series} INSERT INTO runs (player, name, date, game, size, seed, ranked)
             SELECT printf('%064x', i), 'F' || i, '{DATE}', '{g}', '{s}', '1', 1 FROM n;
             {bump}
             COMMIT;"
        )
    };
    exec(target, &sql)?;
    let mut ids = Vec::with_capacity(n);
    let mut from = after;
    while ids.len() < n {
        let page = store.runs_after(from, 1_000).await?;
        let Some(last) = page.last() else { break };
        from = last.id;
        ids.extend(page.iter().filter(|r| r.state == mazerace_store::RunState::Playing).map(|r| r.id));
    }
    anyhow::ensure!(ids.len() == n, "{} begun runs found, {n} put in", ids.len());
    Ok(ids)
}

fn new_run(token: &str) -> NewRun {
    NewRun {
        player: PlayerKey::from_token(token),
        name: token.into(),
        date: date(),
        game: SIZE.game(),
        size: SIZE,
        seed: 1,
    }
}

/// Players and their ranked finished runs on the board, `n` of each.
fn fill_sql(postgres: bool, n: u64) -> String {
    let (g, s) = (SIZE.game().as_str(), SIZE.as_str());
    // The store keeps per-board counters beside the runs; the fill sets them.
    let counters = format!(
        "INSERT INTO board_entrants (date, game, size, shard, n)
             SELECT date, game, size, 0, COUNT(*) FROM runs WHERE date = '{DATE}' GROUP BY date, game, size;
         INSERT INTO board_steps (date, game, size, steps, n)
             SELECT date, game, size, steps, COUNT(*) FROM runs WHERE date = '{DATE}'
             GROUP BY date, game, size, steps;"
    );
    if postgres {
        format!(
            "INSERT INTO players (key, name) SELECT lpad(to_hex(i), 64, '0'), 'P' || i FROM generate_series(1, {n}) i;
             INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms)
             SELECT lpad(to_hex(i), 64, '0'), 'P' || i, '{DATE}', '{g}', '{s}', '1', TRUE, 'finished',
                    100 + floor(random() * 400)::bigint, floor(random() * 600000)::bigint
             FROM generate_series(1, {n}) i;
             {counters}
             ANALYZE;"
        )
    } else {
        let series = format!("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})");
        format!(
            "BEGIN;
             {series} INSERT INTO players (key, name) SELECT printf('%064x', i), 'P' || i FROM n;
             {series} INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms)
             SELECT printf('%064x', i), 'P' || i, '{DATE}', '{g}', '{s}', '1', 1, 'finished',
                    100 + abs(random()) % 400, abs(random()) % 600000 FROM n;
             {counters}
             COMMIT;
             ANALYZE;"
        )
    }
}

fn sqlite_target() -> anyhow::Result<Target> {
    let dir = tempfile_dir()?;
    let path = mazerace_store::sqlite::db_path(&dir);
    let exec_path = path.clone();
    let cleanup_dir = dir.clone();
    Ok(Target {
        name: "SQLite",
        db: Database::SqliteDir(dir),
        exec: Box::new(move |sql| Ok(rusqlite::Connection::open(&exec_path)?.execute_batch(sql)?)),
        cleanup: Box::new(move || {
            let _ = std::fs::remove_dir_all(cleanup_dir);
        }),
    })
}

/// A fresh directory for the SQLite file under the system temp dir.
fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("mazerace-bench-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A schema of its own on the given server; returns the target and the
/// server's durability settings (the figures depend on them).
fn postgres_target(admin: &str) -> anyhow::Result<(Target, String)> {
    let schema = format!("bench_{}", std::process::id());
    let mut c = postgres::Client::connect(admin, postgres::NoTls)?;
    c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"))?;
    let mut settings = Vec::new();
    for name in ["fsync", "synchronous_commit", "shared_buffers"] {
        let v: String = c.query_one(&format!("SHOW {name}"), &[])?.try_get(0)?;
        settings.push(format!("{name}={v}"));
    }
    let sep = if admin.contains('?') { '&' } else { '?' };
    let url = format!("{admin}{sep}options=-c%20search_path%3D{schema}");
    let exec_url = url.clone();
    let admin = admin.to_owned();
    let target = Target {
        name: "PostgreSQL",
        db: Database::Postgres(url),
        exec: Box::new(move |sql| {
            Ok(postgres::Client::connect(&exec_url, postgres::NoTls)?.batch_execute(sql)?)
        }),
        cleanup: Box::new(move || {
            if let Ok(mut c) = postgres::Client::connect(&admin, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"));
            }
        }),
    };
    Ok((target, settings.join(", ")))
}
