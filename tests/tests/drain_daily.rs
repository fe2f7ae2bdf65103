//! The drain's end and a daily result (issue 27): a ranked daily race that
//! ends while its node drains is the last thing the node waits for, and its
//! `daily_result` (sent only once the finish has committed) reaches the
//! player before `server_shutdown`, however slow the commit. Before, the
//! node shut down as soon as the race left its playing count, and a
//! committed result could go untold.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::daily_seed;
use mazerace_protocol::messages::{DailyResult, Leaderboard};
use mazerace_server::{
    BoardQuery, DailyBoard, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart, HookFuture, Replay,
    StoreHook,
};
use mazerace_store::{FixedClock, Store};
use mazerace_tests::serde_json::json;
use mazerace_tests::{solution, test_config, Game, Size, TestServer};

const SALT: &[u8] = b"test salt";
/// 2026-12-01T12:00:00Z.
const NOON: u64 = 1_796_126_400_000;

/// The real store, its finishes committed only after a pause.
struct SlowFinish(StoreHook);

impl DailyHook for SlowFinish {
    fn today(&self, game: Game, size: Size, token: String, address: String) -> HookFuture<DailyBoard> {
        self.0.today(game, size, token, address)
    }
    fn started(&self, run: DailyRun) -> HookFuture<DailyStart> {
        self.0.started(run)
    }
    fn ended(&self, run: DailyRun, outcome: DailyOutcome) -> HookFuture<DailyResult> {
        let commit = self.0.ended(run, outcome);
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            commit.await
        })
    }
    fn leaderboard(&self, query: BoardQuery, token: Option<String>) -> HookFuture<Leaderboard> {
        self.0.leaderboard(query, token)
    }
    fn schedule(&self) -> DailySchedule {
        self.0.schedule()
    }
    fn replay(&self, run_id: i64, token: Option<String>) -> HookFuture<Replay> {
        self.0.replay(run_id, token)
    }
}

#[tokio::test]
async fn a_daily_result_committed_at_the_drains_end_is_told_before_the_exit() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.expect("store");
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook = StoreHook::new(store, Some(SALT.to_vec()), clock).await.expect("hook");
    let config = mazerace_server::Config { drain: Duration::from_secs(60), ..test_config() };
    let srv = TestServer::with_daily(config, Arc::new(SlowFinish(hook))).await;
    let seed = daily_seed(SALT, mazerace_tests::day("2026-12-01"), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.play(&line[..2], 1).await;

    srv.server.drain();
    ann.play(&line[2..], 3).await;
    // The race is over before the commit: the node waits for the result.
    let mut seen = Vec::new();
    loop {
        let m = ann.recv().await;
        let ty = m["type"].as_str().unwrap_or_default().to_owned();
        seen.push(ty.clone());
        if ty == "daily_result" {
            assert_eq!(m["finished"], true, "{m}");
        }
        if ty == "server_shutdown" {
            break;
        }
    }
    let told = seen.iter().position(|t| t == "daily_result");
    assert!(told.is_some(), "the committed result was told before the shutdown: {seen:?}");
    srv.join().await.expect("the node ends by itself after the drain");
}
