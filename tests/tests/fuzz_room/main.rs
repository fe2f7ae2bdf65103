//! Fuzzing a LIVE room (proptest, on stable): the real server in-process,
//! three players sending arbitrary message sequences in arbitrary
//! interleavings: moves, rewinds, bursts, the solver's line, start, ready,
//! rematch, matches (`set_match`, `create_room`'s `match`, `hold`,
//! `next_round`), leave and join (also of rooms that ended, and of made-up codes),
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
//! for an answer. Countdowns and a match's intermissions never end within a
//! case (their step is an hour): a match goes on by the host's `next_round`.
//!
//! Budget: 64 cases by default (a few seconds); more with
//! `PROPTEST_CASES=3000 cargo test --release -p mazerace-tests --test fuzz_room`
//! (`MAZERACE_FUZZ_STATS=1` prints running totals of cases, steps and
//! messages to stderr; add `-- --nocapture` to see them).
//! Failing cases are kept in `tests/proptest-regressions/fuzz_room.txt`
//! and replayed first on every run (the path is given to proptest outright,
//! so it does not depend on where this file lives).
//!
//! Layout: `strategies` draws a case; `model` knows what each player may
//! see (`geo`: the wire board, read on its own); `driver` plays a case end
//! to end; `regressions` pins each finding as a plain test; this file holds
//! the shared imports, counters and the proptest entry point.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use mazerace_protocol::matches::{Match, MatchSettings, Plan, Rounds};
use mazerace_protocol::messages::{
    ClientMsg, ErrorCode, Phase, Progress, RacerStatus, RankBy, Reveal, RivalPick, RoomInfo, ServerMsg,
    Snapshot,
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

mod driver;
mod model;
mod regressions;
mod strategies;

use driver::*;

/// The code the server answers a frame it cannot decode with (the protocol
/// crate's classifier, the one the server uses).
fn decode_error_code(text: &str) -> ErrorCode {
    ClientMsg::decode(text).err().map_or(ErrorCode::BadMessage, |e| e.code)
}
use model::geo::*;
use model::*;
use strategies::*;

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
/// Intermissions seen (a match between two rounds) and matches seen over.
static INTERMISSIONS: AtomicUsize = AtomicUsize::new(0);
static MATCHES_OVER: AtomicUsize = AtomicUsize::new(0);
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
        let (between, over) = (INTERMISSIONS.load(Ordering::Relaxed), MATCHES_OVER.load(Ordering::Relaxed));
        eprintln!(
            "fuzz_room: {cases} cases, {steps} steps, {sent} frames sent, {got} messages read, \
             {results} results ({timed_out} on the clock), {between} intermissions, {over} matches over"
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
