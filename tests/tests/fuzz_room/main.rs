//! Fuzzing a LIVE room (proptest, on stable): the real server in-process,
//! three players sending arbitrary message sequences in arbitrary
//! interleavings: moves, rewinds, bursts, the solver's line, start, ready,
//! rematch, leave and join (also of rooms that ended, and of made-up codes),
//! new rooms, hello again, garbage and half-broken JSON, binary frames,
//! frames over the limit, WebSocket pings, dropped connections, resumes,
//! takeovers and new identities.
//!
//! The test is a model of what each player may see. Invariants:
//! - no panic anywhere (a panic hook counts them), and the server shuts down
//!   cleanly at the end of every case;
//! - every message gets its answer (or a documented close: 1009 for a frame
//!   over the limit, 4003 for a takeover, 1001 at shutdown), and every
//!   server message decodes as a `ServerMsg`; no answer arrives unasked;
//! - no state the rules forbid in anything the server reports: a position in
//!   a wall or off the board, steps past the allowance, `won`/`finished` off
//!   the goal, a second successful rewind, a move through a wall or a shut
//!   gate (checked on the wire board, independently of the engine), and each
//!   racer's `move_result` equal to the rules engine replaying exactly the
//!   moves that player sent (so nothing is lost, doubled or reordered,
//!   across resumes too);
//! - every refusal is the right one (`not_racing` only when not racing,
//!   `not_host` only for a non-host, joins and room creation exactly as the
//!   limits say);
//! - the room stays answerable: afterwards a fresh connection gets `pong`,
//!   joins every room that still has members and hears `room`, rooms with
//!   no members are gone, and no session was lost or duplicated.
//!
//! Determinism: the server and the clients share one current-thread
//! runtime, so a room handles a command to completion before any client
//! reads its answer, and each step waits for its answers (bounded, on real
//! messages) before the next; a ping round trip drains a player's stream
//! before it acts. What the clock drives (coalesced `progress`, and in one
//! case in five a race time limit of under 300 ms) can arrive at any point;
//! the model accepts it wherever the protocol allows it, and never takes it
//! for an answer. Countdowns never end within a case (their step is an hour).
//!
//! Budget: 64 cases by default (a few seconds); more with
//! `PROPTEST_CASES=3000 cargo test --release -p mazerace-tests --test fuzz_room`
//! (`MAZERACE_FUZZ_STATS=1` prints running totals of cases, steps and
//! messages to stderr; add `-- --nocapture` to see them).
//! Failing cases are kept in `tests/proptest-regressions/fuzz_room.txt`
//! and replayed first on every run.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use mazerace_protocol::messages::{
    ClientMsg, ErrorCode, Phase, Progress, RacerStatus, RankBy, Reveal, RoomInfo, ServerMsg, Snapshot,
};
use mazerace_protocol::play::GameView;
use mazerace_protocol::{Action, Answer, Board, Dir, Game, PlayerGame, Pos, PublicBoard, Seed, Size, Status};
use mazerace_server::Config;
use mazerace_tests::{test_config, TestServer, RECV_TIMEOUT};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type R<T> = Result<T, String>;

macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(format!($($arg)*));
        }
    };
}

/// The server's limits that the model predicts.
const ROOMS_PER_CONN: u32 = 8;
const MAX_SPECTATORS: u32 = 32;
const MAX_MESSAGE: usize = 4096;

// ---------------------------------------------------------------- the case

/// One thing a player does.
#[derive(Clone, Debug)]
enum Op {
    /// A well-formed message.
    Send(ClientMsg),
    /// Any text frame (garbage, half-broken JSON, or valid by chance).
    Text(String),
    Binary(Vec<u8>),
    /// A frame over the size limit (closes with 1009).
    Oversize {
        len: usize,
        binary: bool,
    },
    /// `join_room` with a code seen in this case (maybe of a room that ended).
    Join {
        slot: usize,
        spectate: bool,
        sloppy: bool,
    },
    /// Several actions without waiting for the answers.
    Burst {
        actions: Vec<Action>,
        seq: u32,
    },
    /// The rest of the way to the goal (the maze route, or the Ghost
    /// solution from a fresh start) as one burst.
    Solve,
    /// A WebSocket-level ping (answered by the library, not the app).
    WsPing(Vec<u8>),
    /// Drop the socket (with or without a close frame); the next op resumes.
    Drop {
        clean: bool,
    },
    /// Resume on a second connection while the first is still open.
    Takeover,
    /// A new identity on a new connection (the old session stays behind,
    /// disconnected), after some junk before `hello` and maybe a bad name.
    Fresh {
        junk: Option<String>,
        bad_name: Option<String>,
    },
}

#[derive(Clone, Debug)]
enum Step {
    One(usize, Op),
    /// Several players send at once, then each reads its answer.
    Together(Vec<(usize, Op)>),
}

#[derive(Clone, Debug)]
struct Case {
    size: Size,
    seed: u64,
    /// 0: `start` goes straight to the race; else a countdown that outlasts the case.
    countdown: u32,
    /// Whether the third player joins as a spectator.
    spectator: bool,
    names: [String; 3],
    steps: Vec<Step>,
}

fn dir() -> impl Strategy<Value = Dir> {
    prop::sample::select(Dir::ALL.to_vec())
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![8 => dir().prop_map(Action::Move), 1 => Just(Action::Rewind)]
}

fn size() -> impl Strategy<Value = Size> {
    prop::sample::select(vec![Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard])
}

fn game() -> impl Strategy<Value = Game> {
    prop::sample::select(vec![Game::Ghost, Game::Maze])
}

/// Names: fine ones, hostile but valid ones, and invalid ones.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z ]{1,10}",
        2 => prop::sample::select(vec![
            "<img src=x onerror=1>".to_owned(),
            "&amp;<b>Bob</b>".to_owned(),
            "مرحبا Ann".to_owned(),
            "🙂🙃🙂🙃".to_owned(),
            "x".repeat(24),
            "é".repeat(24),
            "'; DROP TABLE runs; --".to_owned(),
        ]),
        1 => ".{0,30}",
        1 => prop::sample::select(vec![
            String::new(),
            "   ".to_owned(),
            "x".repeat(25),
            "a\u{202E}b".to_owned(),
            "a\u{2066}b".to_owned(),
            "nul\u{0}".to_owned(),
            "line\nbreak".to_owned(),
            "y".repeat(3000),
        ]),
    ]
}

/// Room codes as a client might type them, or not.
fn code_text() -> impl Strategy<Value = String> {
    prop_oneof!["[A-Z2-9]{5}", "[a-z0-9 ]{0,8}", ".{0,12}", Just("x".repeat(3000)), Just("0O1IL".to_owned()),]
}

fn client_msg() -> impl Strategy<Value = ClientMsg> {
    let create = (
        game(),
        size(),
        prop::option::weighted(0.3, any::<u64>().prop_map(Seed)),
        prop::option::of(prop::sample::select(vec![RankBy::Time, RankBy::Steps])),
        prop::option::weighted(0.3, prop_oneof![0u32..5, Just(u32::MAX)]),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(game, size, seed, rank_by, max_players, daily)| ClientMsg::CreateRoom {
            game,
            size,
            seed,
            rank_by,
            max_players,
            daily,
        });
    prop_oneof![
        12 => (dir(), any::<u32>()).prop_map(|(dir, seq)| ClientMsg::Move { dir, seq }),
        2 => any::<u32>().prop_map(|seq| ClientMsg::Rewind { seq }),
        3 => any::<bool>().prop_map(|ready| ClientMsg::Ready { ready }),
        4 => Just(ClientMsg::Start),
        3 => Just(ClientMsg::Rematch),
        3 => Just(ClientMsg::LeaveRoom),
        1 => Just(ClientMsg::Ping),
        1 => (name(), prop::option::of("[0-9a-f]{32}"))
            .prop_map(|(name, token)| ClientMsg::Hello { name, token }),
        2 => create,
        1 => (code_text(), any::<bool>()).prop_map(|(code, spectate)| ClientMsg::JoinRoom { code, spectate }),
        1 => (game(), size(), prop::option::of("[0-9-]{0,12}"))
            .prop_map(|(game, size, date)| ClientMsg::Leaderboard { game, size, date }),
    ]
}

/// Text frames: noise, and our own messages broken in the ways JSON breaks.
fn garbage() -> impl Strategy<Value = String> {
    let mutated = (client_msg(), 0usize..8, any::<prop::sample::Index>(), any::<char>()).prop_map(
        |(m, how, at, ch)| {
            let s = serde_json::to_string(&m).unwrap_or_default();
            let cut = |s: &str| {
                let i = at.index(s.len() + 1);
                (0..=i).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
            };
            match how {
                0 => s[..cut(&s)].to_owned(),
                1 => {
                    let i = cut(&s);
                    format!("{}{ch}{}", &s[..i], &s[i..])
                }
                2 => format!("{},\"extra\":{{}}}}", s.trim_end_matches('}')),
                3 => format!("[{s}]"),
                4 => s
                    .replace("\"seq\":", "\"seq\":-1,\"x\":")
                    .replace("\"ready\":", "\"ready\":\"yes\",\"y\":"),
                5 => s.replacen("\"type\":\"", "\"type\":\"X", 1),
                6 => format!(
                    "{{\"type\":\"move\",\"dir\":\"up\",\"seq\":{}{}}}",
                    "[".repeat(200),
                    "]".repeat(200)
                ),
                _ => s.replace("\"seq\":", "\"seq\":4294967296,\"z\":"),
            }
        },
    );
    prop_oneof![
        3 => mutated,
        1 => ".{0,64}",
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => prop::sample::select(vec![
            String::new(),
            "null".to_owned(),
            "{}".to_owned(),
            "{\"type\":null}".to_owned(),
            "{\"type\":\"move\",\"dir\":\"up\",\"seq\":1.5}".to_owned(),
            "{\"type\":\"create_room\",\"game\":\"maze\",\"size\":\"easy\",\"seed\":\"-1\"}".to_owned(),
            "{\"type\":\"create_room\",\"game\":\"maze\",\"size\":\"easy\",\"seed\":\"18446744073709551616\"}"
                .to_owned(),
            "{\"type\":\"hello\",\"name\":\"\\ud800\"}".to_owned(),
            "{\"type\":\"ping\",\"type\":\"ping\"}".to_owned(),
            format!("{{\"type\":\"join_room\",\"code\":\"{}\"}}", "Z".repeat(MAX_MESSAGE - 40)),
        ]),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        40 => client_msg().prop_map(Op::Send),
        6 => (prop::collection::vec(action(), 1..12), any::<u32>())
            .prop_map(|(actions, seq)| Op::Burst { actions, seq }),
        6 => Just(Op::Solve),
        5 => (any::<usize>(), prop::bool::weighted(0.2), any::<bool>())
            .prop_map(|(slot, spectate, sloppy)| Op::Join { slot, spectate, sloppy }),
        6 => garbage().prop_map(Op::Text),
        2 => prop::collection::vec(any::<u8>(), 0..100).prop_map(Op::Binary),
        1 => (MAX_MESSAGE + 1..MAX_MESSAGE * 2, any::<bool>())
            .prop_map(|(len, binary)| Op::Oversize { len, binary }),
        1 => prop::collection::vec(any::<u8>(), 0..16).prop_map(Op::WsPing),
        2 => any::<bool>().prop_map(|clean| Op::Drop { clean }),
        1 => Just(Op::Takeover),
        1 => (prop::option::of(garbage()), prop::option::weighted(0.3, name()))
            .prop_map(|(junk, bad_name)| Op::Fresh { junk, bad_name }),
    ]
}

/// What may go in a `Together` step: ops whose answers cannot be mistaken
/// for each other, and at most one that changes the room (`ready`/`start`).
fn quiet_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (dir(), any::<u32>()).prop_map(|(dir, seq)| Op::Send(ClientMsg::Move { dir, seq })),
        1 => any::<u32>().prop_map(|seq| Op::Send(ClientMsg::Rewind { seq })),
        2 => (prop::collection::vec(action(), 1..8), any::<u32>())
            .prop_map(|(actions, seq)| Op::Burst { actions, seq }),
        2 => Just(Op::Solve),
        1 => Just(Op::Send(ClientMsg::Ping)),
        1 => garbage().prop_map(Op::Text),
        1 => prop::collection::vec(any::<u8>(), 0..8).prop_map(Op::Binary),
        1 => name().prop_map(|name| Op::Send(ClientMsg::Hello { name, token: None })),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let together = (
        prop::collection::vec(prop::option::weighted(0.8, quiet_op()), 3),
        prop::option::of((
            0usize..3,
            prop_oneof![Just(ClientMsg::Start), any::<bool>().prop_map(|ready| ClientMsg::Ready { ready })],
        )),
    )
        .prop_map(|(quiet, loud)| {
            let mut ops: Vec<(usize, Op)> =
                quiet.into_iter().enumerate().filter_map(|(who, op)| op.map(|op| (who, op))).collect();
            if let Some((who, m)) = loud {
                ops.retain(|(w, _)| *w != who);
                ops.push((who, Op::Send(m)));
            }
            Step::Together(ops)
        });
    prop_oneof![9 => (0usize..3, op()).prop_map(|(who, op)| Step::One(who, op)), 2 => together]
}

fn case() -> impl Strategy<Value = Case> {
    (
        size(),
        0u64..2000,
        prop_oneof![3 => Just(0u32), 1 => Just(3u32)],
        prop::bool::weighted(0.25),
        ["[A-Za-z]{1,8}", "[A-Za-z]{1,8}|<b>x</b>|مرحبا", "[A-Za-z]{1,8}|🙂"],
        prop::collection::vec(step(), 1..40),
    )
        .prop_map(|(size, seed, countdown, spectator, names, steps)| Case {
            size,
            seed,
            countdown,
            spectator,
            names,
            steps,
        })
}

// ---------------------------------------------------------------- boards

/// The wire board, read independently of the rules engine.
struct Geo {
    game: Game,
    n: u8,
    walls: Vec<bool>,
    /// Maze passages per cell (bit 1 up, 2 right, 4 down, 8 left).
    open: Vec<u8>,
    start: Pos,
    goal: Pos,
    plate: Option<Pos>,
    gate: Option<Pos>,
    allowance: Option<u32>,
}

impl Geo {
    fn of(b: &PublicBoard) -> Geo {
        match b {
            PublicBoard::Ghost(v) => Geo {
                game: Game::Ghost,
                n: v.n,
                walls: v.cells.iter().flat_map(|r| r.bytes().map(|c| c == b'#')).collect(),
                open: Vec::new(),
                start: v.start,
                goal: v.flag,
                plate: Some(v.plate),
                gate: Some(v.gate),
                allowance: Some(v.allowance),
            },
            PublicBoard::Maze(m) => Geo {
                game: Game::Maze,
                n: m.n,
                walls: Vec::new(),
                open: m
                    .passages
                    .iter()
                    .flat_map(|r| r.chars().map(|c| c.to_digit(16).unwrap_or(0) as u8))
                    .collect(),
                start: m.start,
                goal: m.exit,
                plate: None,
                gate: None,
                allowance: None,
            },
        }
    }

    fn on_board(&self, p: Pos) -> bool {
        p.row < self.n && p.col < self.n && !self.walls.get(p.index(self.n)).copied().unwrap_or(false)
    }

    /// Where a legal step in `d` from `p` lands, by the wire board alone.
    fn step(&self, p: Pos, d: Dir) -> Option<Pos> {
        let q = p.step(d, self.n)?;
        match self.game {
            Game::Ghost => self.on_board(q).then_some(q),
            Game::Maze => {
                let bit = match d {
                    Dir::Up => 1,
                    Dir::Right => 2,
                    Dir::Down => 4,
                    Dir::Left => 8,
                };
                (self.open.get(p.index(self.n)).copied().unwrap_or(0) & bit != 0).then_some(q)
            }
        }
    }

    /// A player's state as the server reports it, against the rules.
    fn check_view(&self, v: &GameView) -> R<()> {
        ensure!(self.on_board(v.pos), "position {:?} is off the board or in a wall", v.pos);
        ensure!((v.status == Status::Won) == (v.pos == self.goal), "status {:?} at {:?}", v.status, v.pos);
        match (self.allowance, &v.ghost) {
            (Some(allowance), Some(g)) => {
                ensure!(v.steps <= allowance, "{} steps, allowance {allowance}", v.steps);
                ensure!(
                    g.steps_left == allowance - v.steps,
                    "steps_left {} at {} steps",
                    g.steps_left,
                    v.steps
                );
                ensure!(
                    (v.status == Status::OutOfSteps) == (v.steps == allowance && v.pos != self.goal),
                    "status {:?} at {} of {allowance} steps",
                    v.status,
                    v.steps
                );
                ensure!(g.run == 1 || g.run == 2, "run {}", g.run);
                ensure!(g.ghost.is_some() == (g.run == 2), "ghost {:?} in run {}", g.ghost, g.run);
                if let Some(gp) = g.ghost {
                    ensure!(self.on_board(gp), "the ghost is at {gp:?}, off the board or in a wall");
                }
                let open = Some(v.pos) == self.plate || g.ghost.is_some() && g.ghost == self.plate;
                ensure!(g.gate_open == open, "gate_open {} with the plate at {:?}", g.gate_open, self.plate);
            }
            (None, None) => ensure!(v.status != Status::OutOfSteps, "a maze has no allowance"),
            _ => return Err(format!("ghost fields {:?} on a {:?} board", v.ghost, self.game)),
        }
        Ok(())
    }

    fn check_progress(&self, p: &Progress) -> R<()> {
        ensure!(self.on_board(p.pos), "progress of {} at {:?}: off the board or in a wall", p.id, p.pos);
        ensure!(p.run.is_some() == (self.game == Game::Ghost), "run {:?} on a {:?} board", p.run, self.game);
        if let Some(a) = self.allowance {
            ensure!(p.steps <= a, "progress of {}: {} steps past the allowance {a}", p.id, p.steps);
            if p.status == RacerStatus::OutOfSteps {
                ensure!(p.steps == a, "out of steps at {} of {a}", p.steps);
            }
        } else {
            ensure!(p.status != RacerStatus::OutOfSteps, "out of steps in a maze");
        }
        if p.status == RacerStatus::Finished || p.status == RacerStatus::Racing {
            let finished = p.status == RacerStatus::Finished;
            ensure!(finished == (p.pos == self.goal), "{} is {:?} at {:?}", p.id, p.status, p.pos);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the model

/// One race as one player saw it.
struct Race {
    board: Board,
    geo: Geo,
    /// This player's game, replayed by the rules engine, if they race.
    me: Option<PlayerGame>,
    /// Successful rewinds the server reported to this player.
    rewinds: u32,
    /// The last progress seen per racer.
    seen: HashMap<u32, Progress>,
}

struct Player {
    name: String,
    id: u32,
    token: String,
    ws: Option<Ws>,
    /// The session's room, as the model knows it.
    room: Option<String>,
    /// The last `room` this connection heard (the context of race messages).
    view: Option<RoomInfo>,
    /// By room code: the latest race this player saw there.
    races: HashMap<String, Race>,
    /// `create_room` allowance used on this connection.
    rooms_made: u32,
}

impl Player {
    fn me<'a>(&self, info: &'a RoomInfo) -> Option<&'a mazerace_protocol::messages::PlayerInfo> {
        info.players.iter().find(|p| p.id == self.id)
    }

    fn race(&mut self) -> Option<&mut Race> {
        let code = self.view.as_ref()?.code.clone();
        self.races.get_mut(&code)
    }
}

/// A room as the model knows it: who is in it (also disconnected members).
struct RoomModel {
    max_players: u32,
    members: Vec<(u32, bool)>,
}

/// What the answer to one message may be.
#[derive(Clone, Debug)]
enum Expect {
    Pong,
    /// Exactly one error, with one of these codes.
    Error(Vec<ErrorCode>),
    Act {
        action: Action,
        seq: u32,
    },
    Ready(bool),
    Start,
    Rematch,
    /// `join_room`, whose outcome the model predicts; a `ping` follows, and
    /// the connection task answers it only after the room has answered the
    /// join (errors, `room`, `snapshot` all come before the `pong`).
    Join {
        code: String,
        spectate: bool,
        outcome: Result<(), ErrorCode>,
    },
    Create {
        game: Game,
        size: Size,
        seed: bool,
        daily: bool,
        rank_by: RankBy,
        max_players: u32,
    },
    /// `leave_room` has no answer: a `ping` follows and this waits for `pong`.
    Leave,
}

impl Expect {
    fn errors(&self) -> &[ErrorCode] {
        use ErrorCode::*;
        match self {
            Expect::Pong | Expect::Leave => &[],
            Expect::Error(codes) => codes,
            Expect::Act { .. } => &[NotRacing, NotInRoom],
            Expect::Ready(_) => &[NotInRoom, WrongPhase],
            Expect::Start | Expect::Rematch => &[NotInRoom, NotHost, WrongPhase],
            Expect::Join { outcome: Err(code), .. } => std::slice::from_ref(code),
            Expect::Join { outcome: Ok(()), .. } => &[],
            Expect::Create { .. } => &[AlreadyInRoom, BadSize, Internal, TooManyRooms],
        }
    }
}

enum Incoming {
    Msg(ServerMsg),
    Closed(u16, String),
    Eof,
}

async fn next_incoming(ws: &mut Ws) -> R<Incoming> {
    RECEIVED.fetch_add(1, Ordering::Relaxed);
    loop {
        let next = tokio::time::timeout(RECV_TIMEOUT, ws.next())
            .await
            .map_err(|_| "no message within 5 s (a missing answer)".to_owned())?;
        return Ok(match next {
            Some(Ok(Message::Text(t))) => Incoming::Msg(
                serde_json::from_str::<ServerMsg>(t.as_str())
                    .map_err(|e| format!("the server sent {t} which is no ServerMsg: {e}"))?,
            ),
            Some(Ok(Message::Close(Some(cf)))) => Incoming::Closed(u16::from(cf.code), cf.reason.to_string()),
            Some(Ok(Message::Close(None))) => Incoming::Closed(1005, String::new()),
            Some(Ok(Message::Binary(_))) => return Err("the server sent a binary frame".into()),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => Incoming::Eof,
        });
    }
}

/// Reads to the end of a closed socket (so the close handshake completes).
async fn finish_close(ws: &mut Ws) {
    let _ = tokio::time::timeout(RECV_TIMEOUT, async { while ws.next().await.is_some() {} }).await;
}

struct Fuzz {
    srv: TestServer,
    cfg: Config,
    players: Vec<Player>,
    rooms: HashMap<String, RoomModel>,
    /// Every code seen in this case, in order (ended rooms too).
    codes: Vec<String>,
    boards: HashMap<(Size, u64), Board>,
    /// Sessions made (`welcome` with `resumed: false`).
    identities: usize,
    shutting_down: bool,
}

/// The race time limit: one case in five has a short one, so that races also
/// end on the clock in the middle of a case (`timed_out`, `results` nobody's
/// step caused). It is drawn from the seed, not a strategy of its own, so
/// the cases kept in the regressions file replay unchanged.
fn time_limit(seed: u64) -> Duration {
    if seed % 5 == 4 {
        Duration::from_millis(20 + seed % 280)
    } else {
        Duration::from_secs(600)
    }
}

fn fuzz_config(countdown: u32, seed: u64) -> Config {
    Config {
        countdown_secs: countdown,
        race_time_limit: time_limit(seed),
        // A countdown that never ends within a case: a timer that fired
        // between steps would put messages in flight that no step caused.
        countdown_step: Duration::from_secs(3600),
        progress_interval: Duration::from_millis(5),
        // The per-address join limit has its own test (abuse.rs); here it
        // would only make the final join check depend on the guessing.
        join_attempts: 1_000_000,
        rooms_per_conn: ROOMS_PER_CONN,
        max_spectators: MAX_SPECTATORS,
        max_message_bytes: MAX_MESSAGE,
        ..test_config()
    }
}

impl Fuzz {
    fn board(&mut self, size: Size, seed: u64) -> R<Board> {
        if let Some(b) = self.boards.get(&(size, seed)) {
            return Ok(b.clone());
        }
        let b = Board::build(size, seed).map_err(|e| format!("board {size} {seed}: {e}"))?;
        self.boards.insert((size, seed), b.clone());
        Ok(b)
    }

    fn live(&self, code: &str) -> bool {
        self.rooms.get(code).is_some_and(|r| !r.members.is_empty())
    }

    async fn send(&mut self, who: usize, m: Message) -> R<()> {
        let ws = self.players[who].ws.as_mut().ok_or("not connected")?;
        SENT.fetch_add(1, Ordering::Relaxed);
        ws.send(m).await.map_err(|e| format!("player {who}: send failed: {e}"))
    }

    async fn send_msg(&mut self, who: usize, m: &ClientMsg) -> R<()> {
        let text = serde_json::to_string(m).map_err(|e| e.to_string())?;
        self.send(who, Message::text(text)).await
    }

    async fn incoming(&mut self, who: usize) -> R<Incoming> {
        let ws = self.players[who].ws.as_mut().ok_or("not connected")?;
        next_incoming(ws).await
    }

    // ---- connecting ----

    /// A new player (or a new identity for player `who`).
    async fn fresh(&mut self, who: usize, junk: Option<String>, bad_name: Option<String>) -> R<()> {
        let mut ws = self.srv.connect().await.ws;
        if let Some(j) = junk {
            // Before hello: a ping is answered, anything else is refused.
            let want = match serde_json::from_str::<ClientMsg>(&j) {
                Ok(ClientMsg::Ping) => None,
                Ok(ClientMsg::Hello { .. }) => Some(vec![ErrorCode::BadName, ErrorCode::HelloFirst]),
                Ok(_) => Some(vec![ErrorCode::HelloFirst]),
                Err(e) => Some(vec![ErrorCode::for_decode_error(&e)]),
            };
            let is_hello = matches!(serde_json::from_str::<ClientMsg>(&j), Ok(ClientMsg::Hello { .. }));
            ws.send(Message::text(j.clone())).await.map_err(|e| e.to_string())?;
            match (next_incoming(&mut ws).await?, want) {
                (Incoming::Msg(ServerMsg::Pong), None) => {}
                (Incoming::Msg(ServerMsg::Error { code, .. }), Some(codes)) if codes.contains(&code) => {}
                // A hello that happened to be valid: this is the identity now.
                (Incoming::Msg(ServerMsg::Welcome { player_id, token, resumed }), _) if is_hello => {
                    ensure!(!resumed, "junk hello {j:?} resumed a session");
                    return self.adopt(who, ws, player_id, token, "junk".into());
                }
                (Incoming::Msg(m), want) => {
                    return Err(format!("before hello, {j:?} got {m:?} (want {want:?})"))
                }
                (Incoming::Closed(c, r), _) => return Err(format!("before hello, {j:?} closed {c} {r}")),
                (Incoming::Eof, _) => return Err(format!("before hello, {j:?} ended the stream")),
            }
        }
        let mut name = self.players[who].name.clone();
        if let Some(bad) = bad_name {
            name = bad;
        }
        loop {
            // An unknown token of the wrong shape: never resumed, never kept
            // (a well-formed one would be kept as this player's identity).
            let m = ClientMsg::Hello { name: name.clone(), token: Some("z".repeat(32)) };
            ws.send(Message::text(serde_json::to_string(&m).map_err(|e| e.to_string())?))
                .await
                .map_err(|e| e.to_string())?;
            match next_incoming(&mut ws).await? {
                Incoming::Msg(ServerMsg::Welcome { player_id, token, resumed }) => {
                    ensure!(!resumed, "an unknown token resumed a session");
                    return self.adopt(who, ws, player_id, token, name);
                }
                Incoming::Msg(ServerMsg::Error { code: ErrorCode::BadName, .. }) => {
                    ensure!(name != self.players[who].name, "a valid name was refused: {name:?}");
                    name = self.players[who].name.clone();
                }
                Incoming::Msg(m) => return Err(format!("hello {name:?} got {m:?}")),
                Incoming::Closed(c, r) => return Err(format!("hello {name:?} closed {c} {r}")),
                Incoming::Eof => return Err(format!("hello {name:?} ended the stream")),
            }
        }
    }

    fn adopt(&mut self, who: usize, ws: Ws, id: u32, token: String, name: String) -> R<()> {
        ensure!(
            self.players.iter().all(|p| p.id != id) && token.len() == 32,
            "a new session reused an id or has an odd token: {id} {token}"
        );
        self.identities += 1;
        let p = &mut self.players[who];
        // The old identity (if any) stays in its room, disconnected.
        p.id = id;
        p.token = token;
        p.name = name.trim().to_owned();
        p.ws = Some(ws);
        p.room = None;
        p.view = None;
        p.races.clear();
        p.rooms_made = 0;
        Ok(())
    }

    /// Player `who` says hello with its token on a new connection; the
    /// answer is read by [`Fuzz::finish_resume`].
    async fn open_resume(&mut self, who: usize) -> R<Ws> {
        let p = &self.players[who];
        // The name in a resuming hello is ignored, but must still be valid.
        let m = ClientMsg::Hello { name: p.name.clone(), token: Some(p.token.clone()) };
        let mut ws = self.srv.connect().await.ws;
        ws.send(Message::text(serde_json::to_string(&m).map_err(|e| e.to_string())?))
            .await
            .map_err(|e| e.to_string())?;
        Ok(ws)
    }

    /// `welcome {resumed: true}`, then (in a room) the snapshot, straight after.
    async fn finish_resume(&mut self, who: usize, mut ws: Ws) -> R<()> {
        let (id, token) = (self.players[who].id, self.players[who].token.clone());
        let welcome = match next_incoming(&mut ws).await? {
            Incoming::Msg(m) => m,
            Incoming::Closed(c, r) => return Err(format!("resume answered by a close {c} {r}")),
            Incoming::Eof => return Err("resume answered by the end of the stream".into()),
        };
        ensure!(
            welcome == ServerMsg::Welcome { player_id: id, token, resumed: true },
            "resume of player {id} got {welcome:?}"
        );
        self.players[who].ws = Some(ws);
        self.players[who].rooms_made = 0;
        if let Some(code) = self.players[who].room.clone() {
            match self.incoming(who).await? {
                Incoming::Msg(ServerMsg::Snapshot(s)) => {
                    ensure!(s.room.code == code, "resumed into {} instead of {code}", s.room.code);
                    self.on_snapshot(who, &s)?;
                }
                Incoming::Msg(m) => return Err(format!("resume: {m:?} instead of the snapshot")),
                Incoming::Closed(c, r) => return Err(format!("resume: closed {c} {r}")),
                Incoming::Eof => return Err("resume: the stream ended".into()),
            }
        }
        Ok(())
    }

    async fn resume(&mut self, who: usize) -> R<()> {
        let ws = self.open_resume(who).await?;
        self.finish_resume(who, ws).await
    }

    async fn ensure_connected(&mut self, who: usize) -> R<()> {
        if self.players[who].ws.is_none() {
            self.resume(who).await?;
        }
        Ok(())
    }

    /// Drains what the server already sent this player: a ping round trip.
    async fn barrier(&mut self, who: usize) -> R<()> {
        self.ensure_connected(who).await?;
        self.send_msg(who, &ClientMsg::Ping).await?;
        self.answer(who, &Expect::Pong).await
    }

    /// Reads until the server's close; everything before it is observed.
    /// Returns the close and whether `server_shutdown` came first.
    async fn until_close(&mut self, who: usize, ws: &mut Ws) -> R<(u16, String, bool)> {
        let mut told = false;
        loop {
            match next_incoming(ws).await? {
                Incoming::Msg(ServerMsg::ServerShutdown) if self.shutting_down => told = true,
                Incoming::Msg(m) => self.observe(who, &m)?,
                Incoming::Closed(c, r) => {
                    finish_close(ws).await;
                    return Ok((c, r, told));
                }
                Incoming::Eof => return Err(format!("player {who}: the stream ended without a close frame")),
            }
        }
    }

    // ---- acting ----

    /// What `m` from player `who` must be answered with.
    fn expect(&self, who: usize, m: &ClientMsg) -> Expect {
        let p = &self.players[who];
        match m {
            ClientMsg::Hello { .. } => Expect::Error(vec![ErrorCode::HelloFirst]),
            ClientMsg::Ping => Expect::Pong,
            ClientMsg::CreateRoom { game, size, seed, rank_by, max_players, daily } => Expect::Create {
                game: *game,
                size: *size,
                seed: seed.is_some(),
                daily: *daily,
                rank_by: rank_by.unwrap_or_default(),
                max_players: max_players
                    .unwrap_or(self.cfg.max_players)
                    .clamp(1, mazerace_server::MAX_PLAYERS_CAP),
            },
            ClientMsg::JoinRoom { code, spectate } => {
                let code = code.trim().to_ascii_uppercase();
                let outcome = self.predict_join(who, &code, *spectate);
                Expect::Join { code, spectate: *spectate, outcome }
            }
            ClientMsg::LeaveRoom if p.room.is_some() => Expect::Leave,
            ClientMsg::LeaveRoom => Expect::Error(vec![ErrorCode::NotInRoom]),
            ClientMsg::Ready { ready } => Expect::Ready(*ready),
            ClientMsg::Start => Expect::Start,
            ClientMsg::Move { dir, seq } => Expect::Act { action: Action::Move(*dir), seq: *seq },
            ClientMsg::Rewind { seq } => Expect::Act { action: Action::Rewind, seq: *seq },
            ClientMsg::Rematch => Expect::Rematch,
            ClientMsg::Leaderboard { .. } => Expect::Error(vec![ErrorCode::Internal]),
        }
    }

    /// After sending a message: the sentinel `ping` of a leave or a join,
    /// and a predicted join's effect on the model.
    async fn sent(&mut self, who: usize, e: &Expect) -> R<()> {
        match e {
            Expect::Leave => self.send_msg(who, &ClientMsg::Ping).await,
            Expect::Join { code, spectate, outcome } => {
                if outcome.is_ok() {
                    let p = &mut self.players[who];
                    p.room = Some(code.clone());
                    self.rooms
                        .get_mut(code)
                        .ok_or("joining a room the model lacks")?
                        .members
                        .push((p.id, *spectate));
                }
                self.send_msg(who, &ClientMsg::Ping).await
            }
            _ => Ok(()),
        }
    }

    /// What a join must get: the room's limits as the model knows them.
    fn predict_join(&self, who: usize, code: &str, spectate: bool) -> Result<(), ErrorCode> {
        if self.players[who].room.is_some() {
            return Err(ErrorCode::AlreadyInRoom);
        }
        let Some(r) =
            self.rooms.get(code).filter(|r| mazerace_server::is_code_shaped(code) && !r.members.is_empty())
        else {
            return Err(ErrorCode::RoomNotFound);
        };
        let players = r.members.iter().filter(|(_, s)| !s).count() as u32;
        let watchers = r.members.len() as u32 - players;
        let full = if spectate { watchers >= MAX_SPECTATORS } else { players >= r.max_players };
        if full {
            Err(ErrorCode::RoomFull)
        } else {
            Ok(())
        }
    }

    /// Sends op `op` for `who`; returns the answers to wait for, in order.
    async fn send_op(&mut self, who: usize, op: &Op) -> R<Vec<Expect>> {
        Ok(match op {
            Op::Send(m) => {
                let e = self.expect(who, m);
                self.send_msg(who, m).await?;
                self.sent(who, &e).await?;
                vec![e]
            }
            Op::Text(t) => {
                let e = match serde_json::from_str::<ClientMsg>(t) {
                    Ok(m) => self.expect(who, &m),
                    Err(err) => Expect::Error(vec![ErrorCode::for_decode_error(&err)]),
                };
                self.send(who, Message::text(t.clone())).await?;
                self.sent(who, &e).await?;
                vec![e]
            }
            Op::Binary(b) => {
                self.send(who, Message::binary(b.clone())).await?;
                vec![Expect::Error(vec![ErrorCode::BinaryFrame])]
            }
            Op::Join { slot, spectate, sloppy } => {
                let code = self.codes[slot % self.codes.len()].clone();
                let sent = if *sloppy { format!("  {}\t", code.to_ascii_lowercase()) } else { code.clone() };
                let m = ClientMsg::JoinRoom { code: sent, spectate: *spectate };
                let e = self.expect(who, &m);
                self.send_msg(who, &m).await?;
                self.sent(who, &e).await?;
                vec![e]
            }
            Op::Burst { actions, seq } => {
                let mut out = Vec::new();
                for (i, a) in actions.iter().enumerate() {
                    let seq = seq.wrapping_add(i as u32);
                    let m = match a {
                        Action::Move(dir) => ClientMsg::Move { dir: *dir, seq },
                        Action::Rewind => ClientMsg::Rewind { seq },
                    };
                    self.send_msg(who, &m).await?;
                    out.push(Expect::Act { action: *a, seq });
                }
                out
            }
            Op::Solve => {
                let line = self.solve_line(who);
                Box::pin(self.send_op(who, &Op::Burst { actions: line, seq: 1 })).await?
            }
            Op::WsPing(payload) => {
                self.send(who, Message::Ping(payload.clone().into())).await?;
                self.send_msg(who, &ClientMsg::Ping).await?;
                vec![Expect::Pong]
            }
            Op::Oversize { .. } | Op::Drop { .. } | Op::Takeover | Op::Fresh { .. } => {
                return Err(format!("{op:?} is not a plain send"));
            }
        })
    }

    /// The way to the goal from where the player's game stands, if known.
    fn solve_line(&mut self, who: usize) -> Vec<Action> {
        let Some(race) = self.players[who].race() else { return vec![Action::Move(Dir::Down)] };
        let Some(game) = &race.me else { return vec![Action::Move(Dir::Down)] };
        match (&race.board, game) {
            (Board::Maze(m), g) => m.route(g.pos(), m.exit).into_iter().map(Action::Move).collect(),
            (b @ Board::Ghost(_), g) if g.steps() == 0 && g.run() == Some(1) => match b.answer() {
                Answer::Ghost { solution, .. } if !solution.is_empty() => solution,
                _ => vec![Action::Rewind],
            },
            _ => vec![Action::Move(Dir::Up), Action::Rewind, Action::Move(Dir::Right)],
        }
    }

    async fn run_step(&mut self, step: &Step) -> R<()> {
        match step {
            Step::One(who, op) => self.run_one(*who, op).await,
            Step::Together(ops) => {
                for (who, _) in ops {
                    self.barrier(*who).await?;
                }
                let mut waits = Vec::new();
                for (who, op) in ops {
                    waits.push((*who, self.send_op(*who, op).await?));
                }
                for (who, expects) in waits {
                    for e in expects {
                        self.answer(who, &e).await?;
                    }
                }
                Ok(())
            }
        }
    }

    async fn run_one(&mut self, who: usize, op: &Op) -> R<()> {
        match op {
            Op::Oversize { len, binary } => {
                self.barrier(who).await?;
                let m = if *binary {
                    Message::binary(vec![b'x'; *len])
                } else {
                    Message::text(format!("{{\"type\":\"hello\",\"name\":\"{}\"}}", "x".repeat(*len)))
                };
                self.send(who, m).await?;
                let mut ws = self.players[who].ws.take().ok_or("not connected")?;
                let (code, reason, _) = self.until_close(who, &mut ws).await?;
                ensure!(code == 1009 && reason.contains("4096"), "oversize frame: close {code} {reason:?}");
                Ok(())
            }
            Op::Drop { clean } => {
                self.barrier(who).await?;
                let mut ws = self.players[who].ws.take().ok_or("not connected")?;
                if *clean {
                    ws.close(None).await.map_err(|e| format!("close: {e}"))?;
                    let (code, _, _) = self.until_close(who, &mut ws).await?;
                    ensure!(code == 1000 || code == 1005, "our close was answered with {code}");
                }
                Ok(())
            }
            Op::Takeover => {
                self.barrier(who).await?;
                let mut old = self.players[who].ws.take().ok_or("takeover without a connection")?;
                let new = self.open_resume(who).await?;
                // Everything the old connection got precedes its close, and
                // the close precedes the new connection's welcome.
                let (code, reason, _) = self.until_close(who, &mut old).await?;
                ensure!(code == 4003, "the taken-over connection closed with {code} {reason:?}");
                self.finish_resume(who, new).await
            }
            Op::Fresh { junk, bad_name } => {
                if let Some(mut ws) = self.players[who].ws.take() {
                    let _ = ws.close(None).await;
                    finish_close(&mut ws).await;
                }
                self.fresh(who, junk.clone(), bad_name.clone()).await
            }
            op => {
                self.barrier(who).await?;
                for e in self.send_op(who, op).await? {
                    self.answer(who, &e).await?;
                }
                Ok(())
            }
        }
    }

    // ---- answers ----

    /// Reads until the answer `e`, observing everything before it.
    async fn answer(&mut self, who: usize, e: &Expect) -> R<()> {
        if let Expect::Join { code, spectate, outcome } = e {
            return self.join_answer(who, code, *spectate, *outcome).await;
        }
        loop {
            let m = match self.incoming(who).await? {
                Incoming::Msg(m) => m,
                Incoming::Closed(c, r) => {
                    return Err(format!("player {who} waiting for {e:?}: closed {c} {r}"))
                }
                Incoming::Eof => return Err(format!("player {who} waiting for {e:?}: the stream ended")),
            };
            if self.take_answer(who, e, &m)? {
                return Ok(());
            }
        }
    }

    /// Everything up to the sentinel `pong`: exactly the predicted error, or
    /// none and this player listed in the room (and a snapshot if a race is on).
    async fn join_answer(
        &mut self,
        who: usize,
        code: &str,
        spectate: bool,
        outcome: Result<(), ErrorCode>,
    ) -> R<()> {
        let mut refused = None;
        loop {
            let m = match self.incoming(who).await? {
                Incoming::Msg(m) => m,
                Incoming::Closed(c, r) => return Err(format!("player {who} joining {code}: closed {c} {r}")),
                Incoming::Eof => return Err(format!("player {who} joining {code}: the stream ended")),
            };
            match m {
                ServerMsg::Error { code: got, message } => {
                    ensure!(
                        refused.is_none() && outcome == Err(got),
                        "join {code:?} (spectate {spectate}): {got:?} ({message}), the model says {outcome:?}"
                    );
                    refused = Some(got);
                }
                ServerMsg::Pong => break,
                m => self.observe(who, &m)?,
            }
        }
        ensure!(
            refused.is_some() == outcome.is_err(),
            "join {code:?}: no answer, the model says {outcome:?}"
        );
        if outcome.is_err() {
            return Ok(());
        }
        let p = &self.players[who];
        let info =
            p.view.as_ref().filter(|v| v.code == code).ok_or(format!("joined {code}, no `room` came"))?;
        let me = p.me(info).ok_or("joined, not listed")?;
        // Back in a race you already finished (or ran out of steps in) you
        // keep your place in it; otherwise a race on makes you a watcher.
        let done =
            p.races.get(code).and_then(|r| r.me.as_ref()).is_some_and(|g| g.status() != Status::Playing);
        let watching = spectate || info.phase != Phase::Lobby && !done;
        ensure!(
            me.spectator == watching && me.connected && !me.ready,
            "joined as {me:?} in {:?} (spectate {spectate})",
            info.phase
        );
        Ok(())
    }

    /// Whether `m` answers `e` (checking it if so); else observes it.
    fn take_answer(&mut self, who: usize, e: &Expect, m: &ServerMsg) -> R<bool> {
        match (e, m) {
            (_, ServerMsg::Error { code, message }) => {
                ensure!(
                    e.errors().contains(code),
                    "player {who}: error {code:?} ({message}) answering {e:?}"
                );
                self.check_refusal(who, e, *code, message)?;
                Ok(true)
            }
            (Expect::Pong | Expect::Leave, ServerMsg::Pong) => {
                if let Expect::Leave = e {
                    self.left(who);
                }
                Ok(true)
            }
            (
                Expect::Act { action: Action::Move(_), seq },
                ServerMsg::MoveResult { seq: s, ok, reason, view },
            )
            | (
                Expect::Act { action: Action::Rewind, seq },
                ServerMsg::RewindResult { seq: s, ok, reason, view },
            ) => {
                ensure!(s == seq, "answer to seq {seq} carries seq {s}");
                let Expect::Act { action, .. } = e else { unreachable!() };
                self.on_result(who, *action, *ok, *reason, view)?;
                Ok(true)
            }
            // A start shows as the room leaving the lobby with this player as host.
            (Expect::Start, ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let was_lobby =
                    p.view.as_ref().is_some_and(|v| v.code == info.code && v.phase == Phase::Lobby);
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && was_lobby
                    && matches!(info.phase, Phase::Countdown | Phase::Racing)
                    && info.host == p.id;
                self.observe(who, m)?;
                Ok(mine)
            }
            (Expect::Ready(v), ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && info.phase == Phase::Lobby
                    && p.me(info).is_some_and(|me| me.ready == *v);
                self.observe(who, m)?;
                Ok(mine)
            }
            // A rematch shows as the room going from results back to the lobby.
            (Expect::Rematch, ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let was_results =
                    p.view.as_ref().is_some_and(|v| v.code == info.code && v.phase == Phase::Results);
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && was_results
                    && info.phase == Phase::Lobby
                    && info.host == p.id;
                if mine {
                    ensure!(
                        info.players.iter().all(|p| !p.ready),
                        "ready flags survived the rematch: {info:?}"
                    );
                }
                self.observe(who, m)?;
                Ok(mine)
            }
            (Expect::Create { game, size, seed, daily, rank_by, max_players }, ServerMsg::Room(info))
                if self.players[who].me(info).is_some()
                    && info.phase == Phase::Lobby
                    && !self.codes.contains(&info.code) =>
            {
                let p = &self.players[who];
                ensure!(p.room.is_none(), "made a room while in {:?}", p.room);
                ensure!(size.game() == *game && !*daily, "made a room for {game:?}/{size:?} daily {daily}");
                ensure!(p.rooms_made < ROOMS_PER_CONN, "made room {} on one connection", p.rooms_made + 1);
                ensure!(
                    info.host == p.id
                        && info.phase == Phase::Lobby
                        && info.players.len() == 1
                        && info.game == *game
                        && info.size == *size
                        && info.rank_by == *rank_by
                        && info.max_players == *max_players,
                    "a new room looks like {info:?} (seed {seed})"
                );
                let code = info.code.clone();
                let p = &mut self.players[who];
                p.rooms_made += 1;
                p.room = Some(code.clone());
                self.rooms.insert(
                    code.clone(),
                    RoomModel { max_players: *max_players, members: vec![(p.id, false)] },
                );
                self.codes.push(code);
                self.observe(who, m)?;
                Ok(true)
            }
            _ => {
                self.observe(who, m)?;
                Ok(false)
            }
        }
    }

    /// A refusal must be the right one, judged on what this player has seen.
    fn check_refusal(&self, who: usize, e: &Expect, code: ErrorCode, message: &str) -> R<()> {
        let p = &self.players[who];
        let view = p.view.as_ref().filter(|v| p.room.as_deref() == Some(v.code.as_str()));
        let why = format!("player {who} ({}) got {code:?} ({message}) for {e:?} in {view:?}", p.id);
        match code {
            ErrorCode::NotInRoom => ensure!(p.room.is_none(), "{why}"),
            ErrorCode::AlreadyInRoom => ensure!(p.room.is_some(), "{why}"),
            ErrorCode::NotRacing => {
                let v = view.ok_or(format!("{why}: no view of the room"))?;
                let me = p.me(v).ok_or(format!("{why}: not listed"))?;
                ensure!(v.phase != Phase::Racing || me.spectator, "{why}");
            }
            ErrorCode::NotHost => ensure!(view.is_some_and(|v| v.host != p.id), "{why}"),
            ErrorCode::WrongPhase => {
                let v = view.ok_or(format!("{why}: no view of the room"))?;
                // `start` and `rematch` check the host first.
                let ok = match e {
                    Expect::Ready(_) => v.phase != Phase::Lobby,
                    Expect::Start => {
                        v.host == p.id && (v.phase != Phase::Lobby || v.players.iter().all(|p| p.spectator))
                    }
                    Expect::Rematch => v.host == p.id && v.phase != Phase::Results,
                    _ => false,
                };
                ensure!(ok, "{why}");
            }
            ErrorCode::BadSize => {
                let Expect::Create { game, size, seed, daily, .. } = e else { return Err(why) };
                ensure!(p.room.is_none() && (size.game() != *game || *daily && *seed), "{why}");
            }
            ErrorCode::Internal => {
                if let Expect::Create { game, size, seed, daily, .. } = e {
                    ensure!(p.room.is_none() && size.game() == *game && *daily && !*seed, "{why}");
                    ensure!(message == "daily challenge is not configured", "{why}");
                }
            }
            ErrorCode::TooManyRooms => {
                let Expect::Create { game, size, daily, .. } = e else { return Err(why) };
                ensure!(
                    p.room.is_none() && size.game() == *game && !daily && p.rooms_made >= ROOMS_PER_CONN,
                    "{why}"
                );
            }
            _ => {}
        }
        Ok(())
    }

    fn left(&mut self, who: usize) {
        let p = &mut self.players[who];
        if let Some(code) = p.room.take() {
            if let Some(r) = self.rooms.get_mut(&code) {
                r.members.retain(|(id, _)| *id != p.id);
            }
        }
    }

    /// A `move_result`/`rewind_result` against the rules.
    fn on_result(
        &mut self,
        who: usize,
        action: Action,
        ok: bool,
        reason: Option<mazerace_protocol::Reject>,
        view: &GameView,
    ) -> R<()> {
        let p = &mut self.players[who];
        let id = p.id;
        let info = p.view.clone().ok_or("a result without a room")?;
        ensure!(
            p.room.as_deref() == Some(info.code.as_str()),
            "a result from {} while in {:?}",
            info.code,
            p.room
        );
        let me = p.me(&info).ok_or("a result, not listed")?;
        ensure!(
            info.phase == Phase::Racing && !me.spectator,
            "a result for {id} as {me:?} in {:?}",
            info.phase
        );
        let race = p.race().ok_or("a result before race_start")?;
        let game = race.me.as_mut().ok_or("a result for someone not racing")?;
        let before = game.view();
        // The room answers `game_over` to anything once a racer's game has
        // ended (PROTOCOL.md), before the engine would name another reason.
        let expected = if game.status() == Status::Playing {
            game.apply(action)
        } else {
            Err(mazerace_protocol::Reject::GameOver)
        };
        let after = game.view();
        ensure!(
            ok == expected.is_ok() && reason == expected.err() && *view == after,
            "{action} from {before:?}: server ok={ok} {reason:?} {view:?}, rules {expected:?} {after:?}"
        );
        // And independently of the engine, on the wire board:
        race.geo.check_view(view)?;
        if !ok {
            ensure!(*view == before, "a refused {action} changed {before:?} into {view:?}");
            return Ok(());
        }
        match action {
            Action::Move(d) => {
                ensure!(view.steps == before.steps + 1, "a move counted {} -> {}", before.steps, view.steps);
                let to = race.geo.step(before.pos, d);
                ensure!(
                    to == Some(view.pos),
                    "{d:?} from {:?} went to {:?} (wire board: {to:?})",
                    before.pos,
                    view.pos
                );
                if Some(view.pos) == race.geo.gate {
                    ensure!(before.ghost.as_ref().is_some_and(|g| g.gate_open), "walked through a shut gate");
                }
            }
            Action::Rewind => {
                race.rewinds += 1;
                ensure!(race.rewinds == 1, "rewind number {} succeeded", race.rewinds);
                let run = |v: &GameView| v.ghost.as_ref().map(|g| g.run);
                ensure!(
                    run(&before) == Some(1) && run(view) == Some(2) && view.pos == race.geo.start,
                    "rewind {before:?} -> {view:?}"
                );
                ensure!(view.steps == before.steps, "a rewind cost steps");
            }
        }
        Ok(())
    }

    // ---- everything else the server says ----

    fn observe(&mut self, who: usize, m: &ServerMsg) -> R<()> {
        let countdown = self.cfg.countdown_secs;
        let limit = self.cfg.race_time_limit.as_millis() as u64;
        match m {
            ServerMsg::Room(info) => self.on_room(who, info),
            ServerMsg::Countdown { seconds } => {
                let phase = self.players[who].view.as_ref().map(|v| v.phase);
                ensure!(*seconds >= 1 && *seconds <= countdown, "countdown {seconds} of {countdown}");
                ensure!(phase == Some(Phase::Countdown), "countdown in {phase:?}");
                Ok(())
            }
            ServerMsg::RaceStart { board, time_limit_ms } => {
                ensure!(*time_limit_ms == limit, "time limit {time_limit_ms}");
                let (size, seed) = match board {
                    PublicBoard::Ghost(v) => (v.size, v.seed.0),
                    PublicBoard::Maze(m) => (m.size, m.seed.0),
                };
                let built = self.board(size, seed)?;
                ensure!(built.public() == *board, "race_start's board is not the one its seed builds");
                let p = &mut self.players[who];
                let info = p.view.clone().ok_or("race_start outside a room")?;
                ensure!(info.phase == Phase::Racing && info.size == size, "race_start in {info:?}");
                let racing = p.me(&info).is_some_and(|me| !me.spectator);
                let game = racing.then(|| PlayerGame::new(&built));
                let geo = Geo::of(board);
                p.races.insert(
                    info.code,
                    Race { board: built, geo, me: game, rewinds: 0, seen: HashMap::new() },
                );
                Ok(())
            }
            ServerMsg::Progress { players } => {
                let p = &mut self.players[who];
                let phase = p.view.as_ref().map(|v| v.phase);
                let n = p.view.as_ref().map_or(0, |v| v.size.n());
                if phase == Some(Phase::Countdown) {
                    // A racer who left before the start: no board yet.
                    for r in players {
                        ensure!(
                            r.status == RacerStatus::Left && r.steps == 0,
                            "progress in the countdown: {r:?}"
                        );
                        ensure!(r.pos.row < n && r.pos.col < n, "progress off the board: {r:?}");
                    }
                    return Ok(());
                }
                ensure!(matches!(phase, Some(Phase::Racing | Phase::Results)), "progress in {phase:?}");
                let race = p.race().ok_or("progress before race_start")?;
                for r in players {
                    race.geo.check_progress(r)?;
                    if let Some(last) = race.seen.get(&r.id) {
                        ensure!(
                            r.steps >= last.steps
                                && r.run >= last.run
                                && (last.status == RacerStatus::Racing || r.status == last.status),
                            "progress went back: {last:?} then {r:?}"
                        );
                    }
                    race.seen.insert(r.id, r.clone());
                }
                Ok(())
            }
            ServerMsg::Finished { player_id, steps, rank, .. } => {
                let p = &mut self.players[who];
                let id = p.id;
                let race = p.race().ok_or("finished before race_start")?;
                ensure!(*rank >= 1, "rank {rank}");
                if let Some(a) = race.geo.allowance {
                    ensure!(*steps <= a, "finished in {steps} steps, allowance {a}");
                }
                if *player_id == id {
                    let g = race.me.as_ref().ok_or("my finish, but I was not racing")?;
                    ensure!(
                        g.status() == Status::Won && g.steps() == *steps,
                        "my finish: {m:?}, rules {:?}",
                        g.view()
                    );
                }
                Ok(())
            }
            ServerMsg::Results { rankings, reveal } => {
                let p = &mut self.players[who];
                let id = p.id;
                let race = p.race().ok_or("results before race_start")?;
                RESULTS.fetch_add(1, Ordering::Relaxed);
                if rankings.iter().any(|r| r.status == RacerStatus::TimedOut) {
                    TIMED_OUT.fetch_add(1, Ordering::Relaxed);
                }
                let mut last_rank = 0;
                for (i, r) in rankings.iter().enumerate() {
                    let fin = r.status == RacerStatus::Finished;
                    ensure!(
                        fin == r.rank.is_some()
                            && fin == r.time_ms.is_some()
                            && (fin || r.efficiency.is_none()),
                        "ranking {r:?}"
                    );
                    ensure!(r.status != RacerStatus::Racing, "still racing in the results: {r:?}");
                    if let Some(a) = race.geo.allowance {
                        ensure!(r.steps <= a, "{r:?} past the allowance {a}");
                    }
                    if let Some(rank) = r.rank {
                        ensure!(rank >= 1 && rank <= i as u32 + 1 && rank >= last_rank, "rank {rank} at {i}");
                        last_rank = rank;
                    } else {
                        last_rank = u32::MAX;
                    }
                    if r.player_id == id {
                        let g = race.me.as_ref().ok_or("ranked, but I was not racing")?;
                        let status_ok = match g.status() {
                            Status::Won => r.status == RacerStatus::Finished,
                            Status::OutOfSteps => r.status == RacerStatus::OutOfSteps,
                            Status::Playing => matches!(r.status, RacerStatus::Left | RacerStatus::TimedOut),
                        };
                        ensure!(status_ok && r.steps == g.steps(), "my ranking {r:?}, rules {:?}", g.view());
                    }
                }
                let ok = match (reveal, race.board.answer()) {
                    (
                        Reveal::Ghost { true_par, solution, .. },
                        Answer::Ghost { true_par: t, solution: s, .. },
                    ) => *true_par == t && *solution == s,
                    (Reveal::Maze { shortest, solution }, Answer::Maze { shortest: t, solution: s }) => {
                        *shortest == t && *solution == s
                    }
                    _ => false,
                };
                ensure!(ok, "the reveal does not match the board");
                Ok(())
            }
            ServerMsg::Snapshot(s) => {
                // Only to someone who just joined a room that is past its lobby.
                let p = &self.players[who];
                ensure!(
                    p.room.as_deref() == Some(s.room.code.as_str()),
                    "an unasked snapshot of {}",
                    s.room.code
                );
                self.on_snapshot(who, s)
            }
            ServerMsg::ServerShutdown if self.shutting_down => Ok(()),
            other => Err(format!("player {who}: unasked {other:?}")),
        }
    }

    fn on_room(&mut self, who: usize, info: &RoomInfo) -> R<()> {
        let p = &mut self.players[who];
        let mut ids: Vec<u32> = info.players.iter().map(|m| m.id).collect();
        ids.sort_unstable();
        ids.dedup();
        ensure!(ids.len() == info.players.len(), "a player listed twice: {info:?}");
        ensure!(ids.contains(&info.host), "the host {} is not in the room: {info:?}", info.host);
        ensure!(info.size.game() == info.game && !info.daily, "room {info:?}");
        if info.phase == Phase::Lobby {
            let racers = info.players.iter().filter(|m| !m.spectator).count() as u32;
            ensure!(racers <= info.max_players, "{racers} racers, max {}: {info:?}", info.max_players);
        }
        if p.room.as_deref() == Some(info.code.as_str()) {
            let me = p.me(info).ok_or(format!("player {} missing from its room: {info:?}", p.id))?;
            ensure!(me.connected, "listed as disconnected on a live connection: {info:?}");
        }
        p.view = Some(info.clone());
        Ok(())
    }

    fn on_snapshot(&mut self, who: usize, s: &Snapshot) -> R<()> {
        self.on_room(who, &s.room)?;
        let raced = matches!(s.room.phase, Phase::Racing | Phase::Results);
        ensure!(s.board.is_some() == raced, "snapshot board in {:?}", s.room.phase);
        ensure!(s.elapsed_ms.is_some() == (s.room.phase == Phase::Racing), "elapsed in {:?}", s.room.phase);
        let Some(board) = &s.board else {
            ensure!(s.you.is_none() && s.players.is_empty() && s.recording.is_empty(), "snapshot {s:?}");
            return Ok(());
        };
        let (size, seed) = match board {
            PublicBoard::Ghost(v) => (v.size, v.seed.0),
            PublicBoard::Maze(m) => (m.size, m.seed.0),
        };
        let built = self.board(size, seed)?;
        ensure!(built.public() == *board, "snapshot board is not the one its seed builds");
        let p = &mut self.players[who];
        let code = s.room.code.clone();
        let same = p.races.get(&code).is_some_and(|r| r.board.seed() == seed && r.board.size() == size);
        if !same {
            // A race this player never heard start: they race in it if they
            // were a (maybe disconnected) member then, and have sent nothing.
            let racing = p.me(&s.room).is_some_and(|me| !me.spectator);
            let me = racing.then(|| PlayerGame::new(&built));
            let geo = Geo::of(board);
            p.races.insert(code.clone(), Race { board: built, geo, me, rewinds: 0, seen: HashMap::new() });
        }
        let race = p.races.get_mut(&code).ok_or("no race")?;
        match (&s.you, &race.me) {
            (None, None) => {}
            (Some(you), Some(g)) => {
                ensure!(*you == g.view(), "snapshot says {you:?}, the moves sent make {:?}", g.view());
                ensure!(s.recording == g.recording(), "snapshot recording {:?}", s.recording);
                race.geo.check_view(you)?;
            }
            (you, g) => {
                return Err(format!(
                    "snapshot `you` {you:?}, but this player's game is {:?}",
                    g.as_ref().map(|g| g.view())
                ))
            }
        }
        for r in &s.players {
            race.geo.check_progress(r)?;
            race.seen.insert(r.id, r.clone());
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- a case

static PANICS: AtomicUsize = AtomicUsize::new(0);
/// Figures for a long run (printed with `MAZERACE_FUZZ_STATS=1`): frames
/// the players sent through the step driver and messages they read.
static CASES: AtomicUsize = AtomicUsize::new(0);
static STEPS: AtomicUsize = AtomicUsize::new(0);
static SENT: AtomicUsize = AtomicUsize::new(0);
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
/// `results` messages read, and those where the clock ended the race.
static RESULTS: AtomicUsize = AtomicUsize::new(0);
static TIMED_OUT: AtomicUsize = AtomicUsize::new(0);
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Counts every panic in the process (server tasks included: a panicking
/// task would otherwise only show as a dropped connection).
fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            if let Ok(mut last) = LAST_PANIC.lock() {
                *last = info.to_string();
            }
            previous(info);
        }));
    });
}

async fn run_case(case: &Case) -> R<()> {
    let cfg = fuzz_config(case.countdown, case.seed);
    let srv = TestServer::with_config(cfg.clone()).await;
    let mut f = Fuzz {
        srv,
        cfg,
        players: case
            .names
            .iter()
            .map(|n| Player {
                name: n.clone(),
                id: 0,
                token: String::new(),
                ws: None,
                room: None,
                view: None,
                races: HashMap::new(),
                rooms_made: 0,
            })
            .collect(),
        rooms: HashMap::new(),
        codes: Vec::new(),
        boards: HashMap::new(),
        identities: 0,
        shutting_down: false,
    };
    let result = drive(&mut f, case).await;
    // Whatever happened, the server must still stop cleanly.
    f.shutting_down = true;
    f.srv.server.shutdown();
    let mut closes = Ok(());
    for who in 0..f.players.len() {
        if let Some(mut ws) = f.players[who].ws.take() {
            match f.until_close(who, &mut ws).await {
                Ok((1001, _, true)) => {}
                Ok((code, reason, _)) => {
                    closes = closes.and(Err(format!("shutdown closed {who} with {code} {reason}")))
                }
                Err(e) => closes = closes.and(Err(format!("shutdown, player {who}: {e}"))),
            }
        }
    }
    tokio::time::timeout(Duration::from_secs(10), f.srv.stop())
        .await
        .map_err(|_| "the server did not stop".to_owned())?;
    result.and(closes)
}

async fn drive(f: &mut Fuzz, case: &Case) -> R<()> {
    for who in 0..3 {
        f.fresh(who, None, None).await?;
    }
    let create = ClientMsg::CreateRoom {
        game: case.size.game(),
        size: case.size,
        seed: Some(Seed(case.seed)),
        rank_by: None,
        max_players: None,
        daily: false,
    };
    f.run_one(0, &Op::Send(create)).await?;
    f.run_one(1, &Op::Join { slot: 0, spectate: false, sloppy: false }).await?;
    f.run_one(2, &Op::Join { slot: 0, spectate: case.spectator, sloppy: true }).await?;

    for (i, step) in case.steps.iter().enumerate() {
        f.run_step(step).await.map_err(|e| format!("step {i} {step:?}: {e}"))?;
    }

    // Still answerable: every player, and a newcomer in every live room.
    for who in 0..3 {
        f.barrier(who).await.map_err(|e| format!("afterwards, player {who}: {e}"))?;
    }
    let mut checker = f.srv.connect().await.ws;
    checker.send(Message::text(r#"{"type":"ping"}"#)).await.map_err(|e| e.to_string())?;
    match next_incoming(&mut checker).await? {
        Incoming::Msg(ServerMsg::Pong) => {}
        _ => return Err("a fresh connection got no pong".into()),
    }
    checker.send(Message::text(r#"{"type":"hello","name":"Checker"}"#)).await.map_err(|e| e.to_string())?;
    let Incoming::Msg(ServerMsg::Welcome { resumed: false, player_id, .. }) =
        next_incoming(&mut checker).await?
    else {
        return Err("the checker got no welcome".into());
    };
    f.identities += 1;
    for code in f.codes.clone() {
        let m = format!(r#"{{"type":"join_room","code":"{code}","spectate":true}}"#);
        checker.send(Message::text(m)).await.map_err(|e| e.to_string())?;
        loop {
            match next_incoming(&mut checker).await? {
                // The previous room's snapshot and traffic until the leave.
                Incoming::Msg(ServerMsg::Room(info)) if info.code != code => {}
                Incoming::Msg(
                    ServerMsg::Snapshot(_)
                    | ServerMsg::Progress { .. }
                    | ServerMsg::Finished { .. }
                    | ServerMsg::Results { .. }
                    | ServerMsg::RaceStart { .. },
                ) => {}
                Incoming::Msg(ServerMsg::Room(info)) if f.live(&code) => {
                    let mut got: Vec<u32> = info.players.iter().map(|p| p.id).collect();
                    let mut want: Vec<u32> = f.rooms[&code].members.iter().map(|(id, _)| *id).collect();
                    want.push(player_id);
                    got.sort_unstable();
                    want.sort_unstable();
                    ensure!(got == want, "room {code} has members {got:?}, the model says {want:?}");
                    break;
                }
                Incoming::Msg(ServerMsg::Error { code: ErrorCode::RoomNotFound, .. }) if !f.live(&code) => {
                    break
                }
                other => {
                    let what = match other {
                        Incoming::Msg(m) => format!("{m:?}"),
                        Incoming::Closed(c, r) => format!("close {c} {r}"),
                        Incoming::Eof => "the end".into(),
                    };
                    return Err(format!("the checker joining {code} (live: {}): {what}", f.live(&code)));
                }
            }
        }
        if f.live(&code) {
            checker.send(Message::text(r#"{"type":"leave_room"}"#)).await.map_err(|e| e.to_string())?;
        }
    }
    // Rooms without members are gone; no session was lost or doubled.
    let live = f.rooms.values().filter(|r| !r.members.is_empty()).count();
    let server = f.srv.server.clone();
    let rooms_ok = tokio::time::timeout(RECV_TIMEOUT, async {
        while server.room_count() != live {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    ensure!(rooms_ok.is_ok(), "{} rooms open, the model says {live}", server.room_count());
    ensure!(
        server.session_count() == f.identities,
        "{} sessions, {} identities",
        server.session_count(),
        f.identities
    );
    let _ = checker.close(None).await;
    finish_close(&mut checker).await;
    Ok(())
}

fn proptest_config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64);
    ProptestConfig {
        cases,
        max_shrink_iters: 512,
        max_shrink_time: 120_000,
        // Relative to the tests crate, where `cargo test` runs it.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/fuzz_room.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn run(case: &Case) -> R<()> {
    count_panics();
    let before = PANICS.load(Ordering::SeqCst);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let result = rt.block_on(async { tokio::time::timeout(Duration::from_secs(120), run_case(case)).await });
    drop(rt);
    let panics = PANICS.load(Ordering::SeqCst) - before;
    let cases = CASES.fetch_add(1, Ordering::Relaxed) + 1;
    let steps = STEPS.fetch_add(case.steps.len(), Ordering::Relaxed) + case.steps.len();
    if std::env::var_os("MAZERACE_FUZZ_STATS").is_some() {
        let (sent, got) = (SENT.load(Ordering::Relaxed), RECEIVED.load(Ordering::Relaxed));
        let (results, timed_out) = (RESULTS.load(Ordering::Relaxed), TIMED_OUT.load(Ordering::Relaxed));
        eprintln!(
            "fuzz_room: {cases} cases, {steps} steps, {sent} frames sent, {got} messages read, \
             {results} results ({timed_out} on the clock)"
        );
    }
    ensure!(
        panics == 0,
        "{panics} panic(s), the last: {}",
        LAST_PANIC.lock().map(|s| s.clone()).unwrap_or_default()
    );
    result.map_err(|_| "the case did not finish in 120 s".to_owned())?
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn a_live_room_survives_any_message_sequence(case in case()) {
        if let Err(e) = run(&case) {
            prop_assert!(false, "{}", e);
        }
    }
}

// ---------------------------------------------------------------- regressions
//
// Each finding of this fuzzer, pinned as a plain test (the failing cases
// themselves are kept in tests/proptest-regressions/fuzz_room.txt).

/// Finding 1: a close from the client was never answered. tungstenite
/// queues the echo of the peer's close frame but refuses the server's own
/// close after it, so the socket was dropped with the echo unsent and the
/// client saw a reset (`ResetWithoutClosingHandshake`; a browser, 1006 and
/// `wasClean: false`) instead of the closing handshake.
#[tokio::test]
async fn a_close_from_the_client_is_answered_with_its_echo() {
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    let srv = TestServer::start().await;
    for code in [None, Some(1000u16), Some(4321)] {
        let mut c = srv.player("Ann").await;
        let frame = code.map(|c| CloseFrame { code: c.into(), reason: "bye".into() });
        c.ws.send(Message::Close(frame)).await.expect("send close");
        let echo = tokio::time::timeout(RECV_TIMEOUT, c.ws.next()).await.expect("an answer in time");
        match echo {
            Some(Ok(Message::Close(got))) => {
                assert_eq!(got.map(|f| u16::from(f.code)), code, "the echo carries the client's code");
            }
            other => panic!("close {code:?} answered with {other:?}, not a close frame"),
        }
    }
    srv.stop().await;
}

/// Finding 3: a racer who finished, left and came back as a spectator was
/// still answered as a racer (`move_result` with `game_over`); spectators
/// get `not_racing`, as for everyone watching.
#[tokio::test]
async fn a_finisher_back_as_a_spectator_is_not_racing() {
    use mazerace_tests::{solution, start_race};
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (_, line) = solution(Size::Easy, 5);
    let spec = mazerace_tests::serde_json::json!({"game": "maze", "size": "easy", "seed": "5"});
    let (code, _) = start_race(&mut ann, &mut [&mut bob], spec).await;
    bob.play(&line, 1).await;
    bob.recv_type("finished").await;
    bob.send_text(r#"{"type":"leave_room"}"#).await;
    bob.send_text(&format!(r#"{{"type":"join_room","code":"{code}","spectate":true}}"#)).await;
    let room = bob.recv_room_with(bob.id).await;
    let me = room["players"].as_array().unwrap().iter().find(|p| p["id"] == bob.id).unwrap().clone();
    assert_eq!(me["spectator"], true, "{room}");
    bob.recv_type("snapshot").await;
    bob.send_text(r#"{"type":"move","dir":"up","seq":99}"#).await;
    let answer = bob.recv_direct().await;
    assert_eq!(answer["type"], "error", "a spectator's move: {answer}");
    assert_eq!(answer["code"], "not_racing");
    // The finish still stands in the results.
    ann.send_text(r#"{"type":"leave_room"}"#).await;
    let results = bob.recv_type("results").await;
    assert_eq!(results["rankings"][0]["player_id"], bob.id);
    assert_eq!(results["rankings"][0]["status"], "finished");
    srv.stop().await;
}
