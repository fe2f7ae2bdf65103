//! A request that waits on the daily store does not hold up what the room
//! sends the player: one task reads and writes each socket, and it goes on
//! writing while a message of its player's is being answered.

use std::sync::Arc;

use mazerace_protocol::messages::Leaderboard;
use mazerace_server::{
    BoardQuery, DailyBoard, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart, HookFuture, Replay,
};
use mazerace_tests::serde_json::json;
use mazerace_tests::{dir_str, free_first_step, solution, start_race, test_config, Size, TestServer};
use tokio::sync::Notify;

/// A store whose leaderboard answers only once the test lets it.
#[derive(Default)]
struct StallingStore {
    release: Arc<Notify>,
}

impl DailyHook for StallingStore {
    fn today(&self, _: mazerace_tests::Game, _: Size) -> HookFuture<DailyBoard> {
        Box::pin(async { anyhow::bail!("not in this test") })
    }
    fn started(&self, _: DailyRun) -> HookFuture<DailyStart> {
        Box::pin(async { anyhow::bail!("not in this test") })
    }
    fn ended(&self, _: DailyRun, _: DailyOutcome) -> HookFuture<mazerace_protocol::messages::DailyResult> {
        Box::pin(async { anyhow::bail!("not in this test") })
    }
    fn leaderboard(&self, q: BoardQuery, _: Option<String>) -> HookFuture<Leaderboard> {
        // Held until the test releases it (`notify_one` keeps its permit if
        // it comes first).
        let release = Arc::clone(&self.release);
        Box::pin(async move {
            release.notified().await;
            Ok(Leaderboard {
                date: "2026-11-29".into(),
                game: q.game,
                size: q.size,
                entrants: 0,
                entries: Vec::new(),
                you: None,
            })
        })
    }
    fn schedule(&self) -> DailySchedule {
        DailySchedule { date: "2026-11-29".into(), next_in_ms: 1000 }
    }
    fn replay(&self, _: i64, _: Option<String>) -> HookFuture<Replay> {
        Box::pin(async { Ok(Replay::NotFound) })
    }
}

#[tokio::test]
async fn a_waiting_store_call_does_not_hold_up_the_players_frames() {
    let store = Arc::new(StallingStore::default());
    let srv = TestServer::with_daily(test_config(), store.clone()).await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (board, _) = solution(Size::Easy, 1);
    start_race(&mut ann, &mut [&mut bob], json!({"game": "maze", "size": "easy", "seed": "1"})).await;
    // Ann asks for a table the store will not answer yet ...
    ann.send(json!({"type": "leaderboard", "game": "maze", "size": "easy"})).await;
    // ... and Bob's move still reaches her.
    let step = dir_str(free_first_step(&board));
    assert_eq!(bob.mv(step, 1).await["ok"], true);
    ann.recv_type("progress").await;
    store.release.notify_one();
    assert_eq!(ann.recv_type("leaderboard").await["type"], "leaderboard");
    srv.stop().await;
}
