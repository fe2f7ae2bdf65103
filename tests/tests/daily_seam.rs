//! The daily-challenge seam, driven by a fake hook: a daily room gets
//! today's seed from the hook, is a room of one ranked by steps, reports the
//! start and the end of the attempt (finish or abandonment) with the
//! server's figures and move list, and relays the committed result.

use std::sync::{Arc, Mutex};

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::{DailyResult, Leaderboard, LeaderboardEntry};
use mazerace_server::{
    BoardQuery, DailyBoard, DailyError, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart,
    HookFuture, Replay,
};
use mazerace_tests::serde_json::{self, json};
use mazerace_tests::{solution, test_config, Game, Size, TestServer};

fn day(s: &str) -> DailyDate {
    s.parse().unwrap()
}

#[derive(Default)]
struct FakeStore {
    calls: Mutex<Vec<String>>,
    ended: Mutex<Vec<(DailyRun, DailyOutcome)>>,
    /// `started` fails, as a store with a full disk would.
    cannot_save: bool,
}

impl DailyHook for FakeStore {
    fn today(&self, game: Game, size: Size, _token: String, _address: String) -> HookFuture<DailyBoard> {
        self.calls.lock().unwrap().push(format!("today {game} {size}"));
        Box::pin(async {
            Ok(DailyBoard {
                date: day("2026-11-29"),
                seed: 42,
                ranked: true,
                ranked_at: None,
                capped: false,
                address: String::new(),
            })
        })
    }
    fn started(&self, run: DailyRun) -> HookFuture<DailyStart> {
        self.calls.lock().unwrap().push(format!("started {} {} {}", run.name, run.seed, run.token.len()));
        let fail = self.cannot_save;
        Box::pin(async move {
            if fail {
                return Err(DailyError::Unavailable("disk full".into()));
            }
            Ok(DailyStart { ranked: true, capped: false })
        })
    }
    fn ended(&self, run: DailyRun, outcome: DailyOutcome) -> HookFuture<DailyResult> {
        self.calls.lock().unwrap().push(format!("ended {} {}", run.name, outcome.finished));
        let result = DailyResult {
            date: run.date,
            game: run.game,
            size: run.size,
            ranked: true,
            finished: outcome.finished,
            steps: outcome.steps,
            time_ms: outcome.time_ms,
            rank: outcome.finished.then_some(1),
            entrants: 1,
            streak: 1,
            share: "shared".into(),
            run_id: 7,
            puzzle: 1,
            leagues: Vec::new(),
        };
        self.ended.lock().unwrap().push((run, outcome));
        Box::pin(async move { Ok(result) })
    }
    fn leaderboard(&self, q: BoardQuery, _token: Option<String>) -> HookFuture<Leaderboard> {
        Box::pin(async move {
            Ok(Leaderboard {
                date: q.date.unwrap_or(day("2026-11-29")),
                game: q.game,
                size: q.size,
                entrants: 1,
                entries: vec![LeaderboardEntry {
                    rank: 1,
                    name: "Ann".into(),
                    steps: 36,
                    time_ms: 100,
                    run_id: 1,
                    at_floor: false,
                }],
                you: None,
            })
        })
    }
    fn schedule(&self) -> DailySchedule {
        DailySchedule { date: day("2026-11-29"), next_in_ms: 1000 }
    }
    fn replay(&self, _run_id: i64, _token: Option<String>) -> HookFuture<Replay> {
        Box::pin(async { Ok(Replay::NotFound) })
    }
}

#[tokio::test]
async fn a_daily_room_runs_through_the_hook() {
    let store = Arc::new(FakeStore::default());
    let srv = TestServer::with_daily(test_config(), store.clone()).await;
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    assert_eq!(room["daily"], true);
    assert_eq!(room["max_players"], 1);
    assert_eq!(room["rank_by"], "steps");

    let mut bob = srv.player("Bob").await;
    bob.send(json!({"type": "join_room", "code": room["code"]})).await;
    assert_eq!(bob.recv().await["code"], "room_full", "a daily room is a room of one");

    ann.send(json!({"type": "start"})).await;
    let rs = ann.recv_type("race_start").await;
    let hidden = mazerace_tests::Board::build(Size::Easy, 42).unwrap().public_hidden();
    assert_eq!(
        rs["board"],
        serde_json::to_value(hidden).unwrap(),
        "today's board from the hook, seed hidden"
    );
    let (_, line) = solution(Size::Easy, 42);
    ann.play(&line, 1).await;
    let fin = ann.recv_type("finished").await;
    let dr = ann.recv_type("daily_result").await;
    assert_eq!(dr["finished"], true);
    assert_eq!(dr["steps"], 36);
    assert_eq!(dr["time_ms"], fin["time_ms"]);
    assert_eq!(dr["share"], "shared");

    {
        let ended = store.ended.lock().unwrap();
        let (run, outcome) = &ended[0];
        assert_eq!((run.date, run.seed, run.name.as_str()), (day("2026-11-29"), 42, "Ann"));
        assert_eq!(run.token, ann.token);
        assert_eq!(outcome.moves, line, "the full move list, as the server applied it");
        assert_eq!(outcome.steps, 36);
    }
    ann.send(json!({"type": "rematch"})).await;
    assert_eq!(ann.recv_type("error").await["code"], "wrong_phase", "only a same-board rematch");

    ann.send(json!({"type": "leaderboard", "game": "maze", "size": "easy", "date": "2026-11-28"})).await;
    let lb = ann.recv_type("leaderboard").await;
    assert_eq!(lb["date"], "2026-11-28");
    ann.send(json!({"type": "leaderboard", "game": "maze", "size": "easy", "date": "2026-02-30"})).await;
    assert_eq!(ann.recv_type("error").await["code"], "bad_date");

    let calls = store.calls.lock().unwrap().clone();
    assert_eq!(calls, vec!["today maze easy", "started Ann 42 32", "ended Ann true"]);
    srv.stop().await;
}

#[tokio::test]
async fn leaving_a_daily_attempt_is_recorded_as_not_finished() {
    let store = Arc::new(FakeStore::default());
    let srv = TestServer::with_daily(test_config(), store.clone()).await;
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "ghost", "size": "small", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.send(json!({"type": "leave_room"})).await;
    mazerace_tests::wait_until("the abandonment is reported", || !store.ended.lock().unwrap().is_empty())
        .await;
    let outcome = store.ended.lock().unwrap()[0].1.clone();
    assert!(!outcome.finished);
    assert_eq!(outcome.time_ms, None);
    srv.stop().await;
}

/// Issue 13, item 11: an attempt whose start cannot be saved is refused at
/// the start, with a clear error, and no race begins (it is not found out at
/// the finish).
#[tokio::test]
async fn a_daily_start_that_cannot_be_saved_is_refused_at_once() {
    let store = Arc::new(FakeStore { cannot_save: true, ..FakeStore::default() });
    let srv = TestServer::with_daily(test_config(), store.clone()).await;
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    let e = ann.recv().await;
    assert_eq!(e["code"], "daily_unavailable", "{e}");
    assert!(e["message"].as_str().unwrap().contains("could not be saved"), "{e}");
    // Still in the lobby: a start is tried again, and no end was reported.
    ann.send(json!({"type": "ping"})).await;
    assert_eq!(ann.recv().await["type"], "pong", "no countdown, no race_start");
    ann.send(json!({"type": "start"})).await;
    assert_eq!(ann.recv().await["code"], "daily_unavailable");
    assert!(store.ended.lock().unwrap().is_empty());
    srv.stop().await;
}
