//! `mazerace-bench`: the load generator and benchmark for the race server.
//!
//! Simulated players speak the real protocol over real WebSockets from one
//! current-thread tokio runtime, play real boards (the solver's routes with
//! a share of invalid moves), and time every answer from the moment its
//! message was sent. Scenarios: board generation, a capacity sweep, idle
//! memory, fan-out against a bare echo server (the limit), full races end
//! to end, a churn soak, an audience of spectators watching one race, a
//! screen beside a spectator watching a race of 8, and the daily store
//! under one big board. Each
//! prints markdown tables and its goals as PASS/MISS; nothing is asserted
//! on timings.
//!
//! `mazerace-bench --quick` runs a small version of everything (a smoke
//! check); `mazerace-bench echo-server` is the echo server the benchmark
//! spawns for itself.

#![forbid(unsafe_code)]

mod echo;
mod load;
mod nodes;
mod procs;
mod report;
mod rooms;
mod route;
mod scenarios;
mod stats;
mod sys;
mod ws;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use report::Section;
use scenarios::Ctx;

const SCENARIOS: [&str; 10] =
    ["boards", "capacity", "idle", "fanout", "races", "churn", "spectators", "screen", "store", "moves"];

#[derive(Parser, Debug)]
#[command(name = "mazerace-bench", about = "Load generator and benchmark for the mazerace race server")]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// A small version of every scenario (well under a minute): a smoke check.
    #[arg(long)]
    quick: bool,
    /// The race server binary (default: target/release/mazerace, else target/debug/mazerace).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// An extra argument for `mazerace serve` (repeat for more); comes after the scenario's own flags.
    #[arg(long = "server-arg", allow_hyphen_values = true)]
    server_args: Vec<String>,
    /// Run the server under this command (repeat for each word), e.g. a profiler:
    /// `--server-wrap valgrind --server-wrap --tool=callgrind`.
    #[arg(long = "server-wrap", allow_hyphen_values = true)]
    server_wrap: Vec<String>,
    /// RUST_LOG for the server.
    #[arg(long, default_value = "warn")]
    server_log: String,
    /// Run only these scenarios (comma-separated): boards,capacity,idle,fanout,races,churn,spectators,screen,store,moves
    /// (`moves`, two nodes behind nginx on PostgreSQL, runs only when named here).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// The echo server's runtime for the ratios: current or multi (match the race server's).
    #[arg(long, default_value = "multi")]
    echo_runtime: String,
    /// Connections per 127.0.0.x source address (the ephemeral port range holds about 28,000).
    #[arg(long)]
    per_source: Option<usize>,
    /// Share of deliberately invalid moves.
    #[arg(long, default_value_t = 0.1)]
    invalid_share: f64,
    /// Capacity: players per room (comma-separated: one sweep per size).
    #[arg(long = "room-sizes", alias = "room-size", value_delimiter = ',', default_values_t = [2usize, 8])]
    room_sizes: Vec<usize>,
    /// Capacity: moves per second per player.
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// Capacity: the numbers of players to try (comma-separated), ascending.
    #[arg(long, value_delimiter = ',')]
    sweep: Vec<usize>,
    /// Warm-up before each measured window, seconds.
    #[arg(long)]
    warmup_secs: Option<f64>,
    /// Each measured window, seconds (default 10, 0.6 with --quick; the screen scenario's two
    /// windows a run: 5, 0.3 with --quick).
    #[arg(long)]
    measure_secs: Option<f64>,
    /// Screen: how many spectators (or screens) join its race of 8 in a run. A few lift a cost of a few
    /// pages above the noise; screens: at most the server's --max-screens (4).
    #[arg(long, default_value_t = 1)]
    screen_members: usize,
    /// Idle memory: players to connect (capped by the open-file limit).
    #[arg(long)]
    idle_players: Option<usize>,
    /// Fan-out: players per room size (rounded to a multiple of 32).
    #[arg(long)]
    fanout_players: Option<usize>,
    /// Fan-out: room sizes to saturate (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 2, 8, 32])]
    fanout_sizes: Vec<usize>,
    /// Fan-out: skip the echo server (the limit).
    #[arg(long)]
    no_echo: bool,
    /// Fan-out: moves in flight per player.
    #[arg(long, default_value_t = 4)]
    window: usize,
    /// Races: rooms racing at once.
    #[arg(long)]
    race_rooms: Option<usize>,
    /// Races: seconds per variant.
    #[arg(long)]
    race_secs: Option<u64>,
    /// Churn soak: room slots at once.
    #[arg(long)]
    churn_rooms: Option<usize>,
    /// Churn soak: seconds.
    #[arg(long)]
    churn_secs: Option<u64>,
    /// Board generation: boards per size.
    #[arg(long)]
    board_samples: Option<usize>,
    /// Store: ranked runs on the one big board.
    #[arg(long)]
    store_runs: Option<usize>,
    /// Store: also measure PostgreSQL at this URL (a schema is made and dropped in it); with
    /// --two-nodes, the nodes' database too (else a throwaway cluster). The report
    /// prints the command line: give a URL with a password through the environment instead.
    #[arg(long = "database-url", env = "MAZERACE_BENCH_DATABASE_URL", hide_env_values = true)]
    store_database_url: Option<String>,
    /// Capacity: also run each point on two nodes (ids A and B, one PostgreSQL) behind a throwaway
    /// nginx running deploy/nginx.conf, in a table beside one node's. PostgreSQL: --database-url
    /// when given, else a throwaway initdb cluster. Needs Debian's postgresql and nginx.
    #[arg(long)]
    two_nodes: bool,
    /// Store: callers finishing runs at once through one store, closed loop (each waits for its
    /// commit before the next); their finishes are committed together (group commit).
    #[arg(long, default_value_t = 4)]
    store_writers: usize,
    /// Store: the closed loop's finishes all on one step count (the board's best, a common score)
    /// instead of walking 400 of them: every finish counts on the same `board_steps` key.
    #[arg(long)]
    store_one_step: bool,
    /// Store: finishes a second offered to a node's own store, open loop, one run per rate (the
    /// goals: 2,000 at p99 < 20 ms, 3,000 with the queue not growing).
    #[arg(long = "store-rate", value_delimiter = ',', default_values_t = [2000.0, 3000.0])]
    store_rates: Vec<f64>,
    /// Also write the report (markdown) to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run the bare echo server (the benchmark starts it itself).
    #[command(hide = true)]
    EchoServer {
        #[arg(long, default_value = "127.0.0.1:0")]
        bind: SocketAddr,
        #[arg(long, default_value = "multi")]
        runtime: String,
    },
    /// Become `argv` with a parent-death signal set (how every child is started).
    #[command(hide = true)]
    ExecChild {
        /// The benchmark's pid: if it is already gone, stop instead.
        #[arg(long)]
        parent: u32,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<std::ffi::OsString>,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match &cli.cmd {
        Some(Cmd::EchoServer { bind, runtime }) => return echo::run(*bind, runtime),
        Some(Cmd::ExecChild { parent, argv }) => return procs::exec_child(*parent, argv),
        None => {}
    }
    for o in &cli.only {
        if !SCENARIOS.contains(&o.as_str()) {
            bail!("unknown scenario {o:?}; known: {}", SCENARIOS.join(","));
        }
    }
    if !(0.0..=0.9).contains(&cli.invalid_share) {
        bail!("--invalid-share must be between 0 and 0.9");
    }
    let files = sys::raise_file_limit(1 << 20);
    let ctx = ctx_from(&cli, files)?;
    let started = Instant::now();
    let mut out = String::new();
    out.push_str(&header(&cli, &ctx));
    print!("{out}");
    let mut sections = Vec::new();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let local = tokio::task::LocalSet::new();
    for name in SCENARIOS {
        let named = cli.only.iter().any(|o| o == name);
        if (!cli.only.is_empty() || name == "moves") && !named {
            continue;
        }
        eprintln!("[{:>5.1}s] running {name} ...", started.elapsed().as_secs_f64());
        let retries_before = ws::handshake_retries();
        let mut sec: Section = match name {
            "boards" => scenarios::boards::run(&ctx),
            "capacity" => interruptible(&rt, &local, scenarios::capacity_nodes::run_all(&ctx))?,
            "idle" => interruptible(&rt, &local, scenarios::idle::run(&ctx))?,
            "fanout" => interruptible(&rt, &local, scenarios::saturate::run(&ctx))?,
            "races" => interruptible(&rt, &local, scenarios::races::run(&ctx))?,
            "churn" => interruptible(&rt, &local, scenarios::churn::run(&ctx))?,
            "spectators" => interruptible(&rt, &local, scenarios::audience::run(&ctx))?,
            "screen" => interruptible(&rt, &local, scenarios::audience::screen::run(&ctx))?,
            "store" => scenarios::store::run(&ctx),
            "moves" => interruptible(&rt, &local, scenarios::moves::run(&ctx))?,
            _ => unreachable!("checked against SCENARIOS"),
        };
        let retries = ws::handshake_retries() - retries_before;
        if name != "boards" {
            sec.note(format!("Connections retried after a reset or refusal (up to 4 times each, from 50 ms doubling): {retries}"));
        }
        let text = sec.markdown();
        print!("{text}");
        std::io::stdout().flush()?;
        out.push_str(&text);
        sections.push(sec);
    }
    let summary = format!(
        "## Goals\n\n{}\nTotal time: {:.0} s.\n",
        report::goals_table(&sections).markdown(),
        started.elapsed().as_secs_f64()
    );
    print!("{summary}");
    out.push_str(&summary);
    if let Some(path) = &cli.out {
        std::fs::write(path, &out)?;
    }
    let failed: Vec<&str> = sections.iter().filter(|s| s.failed).map(|s| s.key.as_str()).collect();
    if !failed.is_empty() {
        bail!("scenarios that could not run in full: {}", failed.join(", "));
    }
    Ok(())
}

/// Run a scenario; on Ctrl-C (SIGINT) drop it instead, which stops its
/// servers, nginx and PostgreSQL (their guards' `Drop`), and fail.
fn interruptible(
    rt: &tokio::runtime::Runtime,
    local: &tokio::task::LocalSet,
    scenario: impl std::future::Future<Output = Section>,
) -> Result<Section> {
    let done = local.block_on(rt, async {
        tokio::select! {
            sec = scenario => Some(sec),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    done.ok_or_else(|| anyhow::anyhow!("interrupted (Ctrl-C): its servers were stopped"))
}

fn ctx_from(cli: &Cli, files: sys::FileLimit) -> Result<Ctx> {
    let bin = procs::locate_server_bin(cli.server_bin.as_deref())?;
    let q = cli.quick;
    let pick = |quick: f64, full: f64, given: Option<f64>| given.unwrap_or(if q { quick } else { full });
    let sweep = if !cli.sweep.is_empty() {
        cli.sweep.clone()
    } else if q {
        vec![64]
    } else {
        vec![2_000, 5_000, 10_000, 15_000, 20_000]
    };
    Ok(Ctx {
        quick: q,
        server: procs::RaceServerSpec {
            bin,
            extra_args: cli.server_args.clone(),
            log: cli.server_log.clone(),
            wrap: cli.server_wrap.clone(),
        },
        echo_runtime: cli.echo_runtime.clone(),
        // Quick runs spread over several source addresses on purpose, to exercise it.
        per_source: cli.per_source.unwrap_or(if q { 100 } else { 25_000 }),
        files,
        invalid_share: cli.invalid_share,
        room_sizes: cli.room_sizes.iter().map(|&s| s.max(1)).collect(),
        rate: cli.rate,
        sweep,
        warmup: Duration::from_secs_f64(pick(0.2, 3.0, cli.warmup_secs)),
        measure: Duration::from_secs_f64(pick(0.6, 10.0, cli.measure_secs)),
        screen_measure: Duration::from_secs_f64(pick(0.3, 5.0, cli.measure_secs)),
        screen_members: cli.screen_members.max(1),
        idle_players: cli.idle_players.unwrap_or(if q { 400 } else { 50_000 }),
        fanout_players: cli.fanout_players.unwrap_or(if q { 32 } else { 256 }),
        fanout_sizes: cli.fanout_sizes.iter().map(|&s| s.max(1)).collect(),
        echo: !cli.no_echo,
        window: cli.window.max(1),
        race_rooms: cli.race_rooms.unwrap_or(if q { 4 } else { 100 }),
        race_secs: cli.race_secs.unwrap_or(if q { 2 } else { 30 }),
        churn_rooms: cli.churn_rooms.unwrap_or(if q { 6 } else { 400 }),
        churn_secs: cli.churn_secs.unwrap_or(if q { 4 } else { 90 }),
        board_samples: cli.board_samples.unwrap_or(if q { 100 } else { 2_000 }),
        store_runs: cli.store_runs.unwrap_or(if q { 5_000 } else { 1_000_000 }),
        store_database_url: cli.store_database_url.clone(),
        store_writers: cli.store_writers,
        store_one_step: cli.store_one_step,
        store_rates: cli.store_rates.clone(),
        two_nodes: cli.two_nodes,
    })
}

fn header(cli: &Cli, ctx: &Ctx) -> String {
    let args: Vec<String> = std::env::args().collect();
    format!(
        "# mazerace benchmark\n\n- Date: {}\n- Machine: {}\n- Command: `{}`\n- Race server: `{}`{}\n- Load generator: \
         one current-thread tokio runtime; open-file limit {} (hard {})\n- Build: {}\n\n",
        utc_now(),
        sys::machine_summary(),
        args.join(" "),
        ctx.server.bin.display(),
        if cli.server_args.is_empty() { String::new() } else { format!(" {}", cli.server_args.join(" ")) },
        ctx.files.soft,
        ctx.files.hard,
        if cfg!(debug_assertions) { "debug (figures are not representative)" } else { "release" },
    )
}

/// `YYYY-MM-DD HH:MM UTC`, from the system clock.
fn utc_now() -> String {
    let now = std::time::SystemTime::now();
    let secs = now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    format!("{} {h:02}:{m:02} UTC", mazerace_protocol::daily::DailyDate::of(now))
}
