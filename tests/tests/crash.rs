//! Crash safety with the real binary: 30 players play today's daily boards
//! against `target/debug/mazerace serve`; once some results are acknowledged
//! (a `daily_result` received, which the server sends only after the commit)
//! and other runs are still in flight, the server is killed with SIGKILL.
//! Restarted on the same data directory, it must have every acknowledged
//! result with the same steps (over HTTP, by name and by the player's
//! token), count the runs that were in flight as entrants that did not
//! finish, pass `mazerace verify`, and its database `PRAGMA integrity_check`.
//!
//! The binary is not built by this crate: `cargo build -p mazerace-server`
//! (./test.sh and `cargo test --workspace` build it before any test runs).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use futures_util::{SinkExt, StreamExt};
use mazerace_protocol::daily::daily_seed;
use mazerace_store::PlayerKey;
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{http_get, solution, Action, Client, Game, Size};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

const SALT: &str = "x";
const FINISHERS: usize = 20;
const STRAGGLERS: usize = 10;
/// Acknowledged results before the kill.
const ACKS_BEFORE_KILL: usize = 30;
const BOARDS: [(Game, Size); 6] = [
    (Game::Ghost, Size::Small),
    (Game::Ghost, Size::Medium),
    (Game::Ghost, Size::Large),
    (Game::Maze, Size::Easy),
    (Game::Maze, Size::Normal),
    (Game::Maze, Size::Hard),
];

/// A running `mazerace serve` and the address from its first stdout line.
struct Served {
    child: Child,
    addr: String,
}

async fn serve(bin: &Path, data: &Path) -> Served {
    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--bind", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .args(["--daily-salt", SALT, "--countdown-secs", "1"])
        // Solvers play at machine speed, every player from 127.0.0.1.
        .args(["--ranked-move-floor-ms", "0", "--ranked-per-address", "100000"])
        // A solver plays a hundred moves in a few milliseconds.
        .args(["--msgs-per-sec", "10000", "--msgs-burst", "10000"])
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null());
    let (child, addr) = mazerace_tests::start_serve(cmd).await;
    Served { child, addr }
}

/// What the players report to the test.
enum Event {
    /// `start` sent: the server may begin a ranked run from here on.
    StartSent { game: Game, size: Size },
    /// `race_start` received, with the board's seed.
    Started { game: Game, size: Size, seed: u64 },
    /// A `daily_result`: the result is committed.
    Acked(Ack),
    /// A straggler is mid-run and will not move again.
    Holding { name: String, token: String, game: Game, size: Size },
    /// Something went wrong while the server was still up.
    Failed(String),
}

#[derive(Clone, Debug)]
struct Ack {
    name: String,
    token: String,
    game: Game,
    size: Size,
    result: Value,
}

/// Solver lines by board, shared by the players (boards are built once).
type Lines = Arc<Mutex<HashMap<(Size, u64), Vec<Action>>>>;

fn line_for(lines: &Lines, size: Size, seed: u64) -> Vec<Action> {
    if let Some(l) = lines.lock().unwrap().get(&(size, seed)) {
        return l.clone();
    }
    let (_, l) = solution(size, seed);
    lines.lock().unwrap().insert((size, seed), l.clone());
    l
}

/// The end of one player's session: the server went away (expected once
/// killed), or something else went wrong.
enum End {
    Gone,
    Bad(String),
}

struct Player {
    client: Client,
    name: String,
    tx: mpsc::UnboundedSender<Event>,
}

impl Player {
    async fn send(&mut self, v: Value) -> Result<(), End> {
        self.client.ws.send(Message::text(v.to_string())).await.map_err(|_| End::Gone)
    }

    /// The next message of type `ty` (others skipped); `error` ends the run.
    async fn until(&mut self, ty: &str) -> Result<Value, End> {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), self.client.ws.next())
                .await
                .map_err(|_| End::Bad(format!("{}: no {ty} within 10 s", self.name)))?;
            let text = match next {
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Err(End::Gone),
                Some(Ok(_)) => continue,
            };
            let v: Value = serde_json::from_str(&text).map_err(|e| End::Bad(format!("{text}: {e}")))?;
            if v["type"] == "error" {
                return Err(End::Bad(format!("{}: {v}", self.name)));
            }
            if v["type"] == ty {
                return Ok(v);
            }
        }
    }

    /// Creates today's room for a board and starts it; returns the line.
    async fn begin(&mut self, game: Game, size: Size, lines: &Lines) -> Result<Vec<Action>, End> {
        self.send(json!({"type": "create_room", "game": game, "size": size, "daily": true})).await?;
        self.until("room").await?;
        self.send(json!({"type": "start"})).await?;
        let _ = self.tx.send(Event::StartSent { game, size });
        let rs = self.until("race_start").await?;
        // A daily board comes without its seed: find the daily seed (today's,
        // or yesterday's just after midnight) whose board this is; 0 if none.
        let now = SystemTime::now();
        let seed = [now, now - Duration::from_secs(120)]
            .iter()
            .map(|t| daily_seed(SALT.as_bytes(), mazerace_tests::DailyDate::of(*t), game, size))
            .find(|&s| {
                let board = mazerace_tests::Board::build(size, s).ok();
                board.and_then(|b| serde_json::to_value(b.public_hidden()).ok()).as_ref()
                    == Some(&rs["board"])
            })
            .unwrap_or_default();
        let _ = self.tx.send(Event::Started { game, size, seed });
        Ok(line_for(lines, size, seed))
    }

    /// Sends `line` and waits for every answer.
    async fn play(&mut self, line: &[Action]) -> Result<(), End> {
        for (i, a) in line.iter().enumerate() {
            let msg = match a {
                Action::Rewind => json!({"type": "rewind", "seq": i}),
                Action::Move(d) => json!({"type": "move", "dir": d, "seq": i}),
            };
            self.send(msg).await?;
        }
        for a in line {
            let ty = if *a == Action::Rewind { "rewind_result" } else { "move_result" };
            let r = self.until(ty).await?;
            if r["ok"] != true {
                return Err(End::Bad(format!("{}: the solver's line was refused: {r}", self.name)));
            }
        }
        Ok(())
    }

    async fn finisher(&mut self, boards: Vec<(Game, Size)>, lines: Lines) -> Result<(), End> {
        for (game, size) in boards {
            let line = self.begin(game, size, &lines).await?;
            self.play(&line).await?;
            let result = self.until("daily_result").await?;
            let ack = Ack { name: self.name.clone(), token: self.client.token.clone(), game, size, result };
            let _ = self.tx.send(Event::Acked(ack));
            self.send(json!({"type": "leave_room"})).await?;
        }
        Ok(())
    }

    async fn straggler(&mut self, game: Game, size: Size, lines: Lines) -> Result<(), End> {
        let line = self.begin(game, size, &lines).await?;
        self.play(&line[..line.len() / 2]).await?;
        let (name, token) = (self.name.clone(), self.client.token.clone());
        let _ = self.tx.send(Event::Holding { name, token, game, size });
        // Never moves again; reads (answering pings) until the server is gone.
        while let Some(Ok(m)) = self.client.ws.next().await {
            if m.is_close() {
                break;
            }
        }
        Err(End::Gone)
    }
}

/// Runs one player; reports a failure unless the server was killed.
async fn player(
    addr: String,
    name: String,
    role: Result<Vec<(Game, Size)>, (Game, Size)>,
    lines: Lines,
    tx: mpsc::UnboundedSender<Event>,
    killed: Arc<AtomicBool>,
) {
    let mut client = Client::connect_addr(&addr).await;
    client.hello(&name).await;
    let mut p = Player { client, name: name.clone(), tx: tx.clone() };
    let end = match role {
        Ok(boards) => p.finisher(boards, lines).await,
        Err((game, size)) => p.straggler(game, size, lines).await,
    };
    let why = match end {
        Ok(()) => return,
        Err(End::Gone) if killed.load(Ordering::SeqCst) => return,
        Err(End::Gone) => format!("{name}: the server closed the connection before the kill"),
        Err(End::Bad(why)) if killed.load(Ordering::SeqCst) => {
            // A timeout or a cut-off message after the kill is expected.
            let _ = why;
            return;
        }
        Err(End::Bad(why)) => why,
    };
    let _ = tx.send(Event::Failed(why));
}

fn db(data: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(mazerace_store::sqlite::db_path(data)).expect("open the database")
}

async fn get_json(addr: &str, path: &str, headers: &str) -> Value {
    let r = http_get(addr, path, headers).await;
    assert_eq!(r.status, 200, "GET {path}: {}", r.text());
    serde_json::from_str(&r.text()).unwrap_or_else(|e| panic!("GET {path}: {e}: {}", r.text()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_daily_results_survive_sigkill() {
    let bin = mazerace_tests::server_binary();
    let data = tempfile::tempdir().unwrap();
    let first_day = mazerace_tests::DailyDate::of(SystemTime::now());
    let t0 = Instant::now();
    let mut server = serve(&bin, data.path()).await;

    // Today's lines, built before the clock starts running on anyone.
    let lines: Lines = Arc::default();
    for (game, size) in BOARDS {
        line_for(&lines, size, daily_seed(SALT.as_bytes(), first_day, game, size));
    }

    let (tx, mut rx) = mpsc::unbounded_channel();
    let killed = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for i in 0..FINISHERS + STRAGGLERS {
        let role = if i < FINISHERS {
            Ok((0..BOARDS.len()).map(|k| BOARDS[(i + k) % BOARDS.len()]).collect())
        } else {
            Err(BOARDS[i % BOARDS.len()])
        };
        let args = (server.addr.clone(), format!("P{i:02}"), role, lines.clone(), tx.clone(), killed.clone());
        tasks.push(tokio::spawn(player(args.0, args.1, args.2, args.3, args.4, args.5)));
    }
    drop(tx);

    let mut acks: Vec<Ack> = Vec::new();
    let mut holding = Vec::new();
    let mut start_sent: HashMap<(Game, Size), usize> = HashMap::new();
    let mut started: Vec<(Game, Size, u64)> = Vec::new();
    let mut on_event =
        |e: Event, acks: &mut Vec<Ack>, holding: &mut Vec<(String, String, Game, Size)>| match e {
            Event::StartSent { game, size } => *start_sent.entry((game, size)).or_default() += 1,
            Event::Started { game, size, seed } => started.push((game, size, seed)),
            Event::Acked(a) => acks.push(a),
            Event::Holding { name, token, game, size } => holding.push((name, token, game, size)),
            Event::Failed(why) => panic!("before the kill: {why}"),
        };

    // Load until enough results are acknowledged and every straggler is
    // mid-run (bounded: each event is a real message from the server).
    while acks.len() < ACKS_BEFORE_KILL || holding.len() < STRAGGLERS {
        let e = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("no progress in 30 s")
            .expect("every player ended before the kill");
        on_event(e, &mut acks, &mut holding);
    }
    // The stragglers' ranked runs are in the database as `playing` (the
    // start is stored a moment after `race_start`): wait for that to see it.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let conn = db(data.path());
        let open = holding
            .iter()
            .filter(|(_, token, ..)| {
                let key = PlayerKey::from_token(token);
                conn.query_row(
                    "SELECT COUNT(*) FROM runs WHERE player = ?1 AND state = 'playing' AND ranked = 1",
                    [key.as_str()],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap_or(0)
                    == 1
            })
            .count();
        if open == STRAGGLERS {
            break;
        }
        assert!(Instant::now() < deadline, "only {open} of {STRAGGLERS} straggler runs stored");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    killed.store(true, Ordering::SeqCst);
    server.child.kill().expect("SIGKILL"); // std's kill is SIGKILL on Unix
    let status = server.child.wait().expect("wait");
    assert!(!status.success(), "killed, not exited: {status}");
    let acked_at_kill = acks.len();
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(30), t)
            .await
            .expect("a player hung after the kill")
            .unwrap();
    }
    // Results read from socket buffers after the kill were committed too.
    while let Some(e) = rx.recv().await {
        on_event(e, &mut acks, &mut holding);
    }
    let in_flight = started.len() - acks.len();
    let last_day = mazerace_tests::DailyDate::of(SystemTime::now());
    let days: HashSet<mazerace_tests::DailyDate> = [first_day, last_day].into();
    for (game, size, seed) in &started {
        assert!(
            days.iter().any(|&d| daily_seed(SALT.as_bytes(), d, *game, *size) == *seed),
            "{game} {size}: seed {seed} is not the daily seed"
        );
    }

    // Restart on the same data directory.
    let mut server = serve(&bin, data.path()).await;
    let mut checked = 0;
    for a in &acks {
        let r = &a.result;
        assert_eq!((r["ranked"].as_bool(), r["finished"].as_bool()), (Some(true), Some(true)), "{r}");
        let path = format!("/api/daily/{}/{}/{}", r["date"].as_str().unwrap(), a.game, a.size);
        let auth = format!("Authorization: Bearer {}\r\n", a.token);
        let table = get_json(&server.addr, &path, &auth).await;
        assert_eq!(table["you"]["steps"], r["steps"], "{}: acknowledged {r}, stored {table}", a.name);
        assert_eq!(table["you"]["name"], a.name.as_str());
        let listed = table["entries"].as_array().unwrap().iter().any(|e| e["name"] == a.name.as_str());
        assert!(listed, "{} is missing from {path}", a.name);
        checked += 1;
    }
    // Entrants: at least everyone acknowledged or stuck mid-run on a board,
    // at most everyone who asked for a start on it.
    let mut total_entrants = 0;
    for (game, size) in BOARDS {
        for day in &days {
            let table = get_json(&server.addr, &format!("/api/daily/{day}/{game}/{size}"), "").await;
            let entrants = table["entrants"].as_u64().unwrap() as usize;
            total_entrants += entrants;
            if days.len() > 1 {
                // The UTC day turned during the test: runs are split over two
                // days, and the bounds below are per day.
                continue;
            }
            let acked = acks.iter().filter(|a| (a.game, a.size) == (game, size)).count();
            let stuck = holding.iter().filter(|h| (h.2, h.3) == (game, size)).count();
            let asked = start_sent.get(&(game, size)).copied().unwrap_or(0);
            assert!(
                acked + stuck <= entrants && entrants <= asked,
                "{game} {size}: {entrants} entrants, {acked} acknowledged + {stuck} stuck, {asked} starts"
            );
        }
    }
    let term = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    assert!(term.success());
    assert!(server.child.wait().unwrap().success(), "the restarted server did not stop cleanly");

    // The runs that were in flight are recorded as not finished; none is left open.
    let conn = db(data.path());
    for (name, token, ..) in &holding {
        let state: String = conn
            .query_row(
                "SELECT state FROM runs WHERE player = ?1 AND ranked = 1",
                [PlayerKey::from_token(token).as_str()],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(state, "not_finished", "{name}'s interrupted run");
    }
    let open: i64 =
        conn.query_row("SELECT COUNT(*) FROM runs WHERE state = 'playing'", [], |r| r.get(0)).unwrap();
    assert_eq!(open, 0, "runs left open after the restart");
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    drop(conn);

    let verify = Command::new(&bin)
        .args(["verify", "--data-dir"])
        .arg(data.path())
        .args(["--daily-salt", SALT])
        .output()
        .expect("run mazerace verify");
    assert!(
        verify.status.success(),
        "mazerace verify: {}\n{}",
        String::from_utf8_lossy(&verify.stdout),
        String::from_utf8_lossy(&verify.stderr)
    );
    eprintln!(
        "crash: {} players; SIGKILL after {acked_at_kill} acknowledged results with {} runs in flight \
         ({STRAGGLERS} held mid-run); {checked} acknowledged results found after the restart; \
         {total_entrants} entrants; verify: {}; {:.1?} in all",
        FINISHERS + STRAGGLERS,
        in_flight,
        String::from_utf8_lossy(&verify.stdout).trim(),
        t0.elapsed()
    );
}
