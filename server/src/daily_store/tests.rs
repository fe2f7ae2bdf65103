//! The store hook's own tests: error kinds, the typed queries, the heartbeat.
use super::*;
use crate::daily::{daily_error_kind, BoardQuery, DailyErrorKind};

#[test]
fn store_errors_are_typed_by_kind_not_text() {
    let kind = |e: StoreError| daily_error_kind(&typed(e));
    assert_eq!(kind(StoreError::Busy), DailyErrorKind::Unavailable);
    let gone = StoreError::Unavailable(Box::new(std::io::Error::other("connection refused")));
    assert_eq!(kind(gone), DailyErrorKind::Unavailable);
    assert_eq!(kind(StoreError::RunOver(3)), DailyErrorKind::Refused);
    assert_eq!(kind(StoreError::Invalid("bad date".into())), DailyErrorKind::Refused);
    assert_eq!(kind(StoreError::Corrupt("x".into())), DailyErrorKind::Internal);
    assert_eq!(kind(StoreError::Closed), DailyErrorKind::Internal);
    assert_eq!(daily_error_kind(&anyhow::anyhow!("busy")), DailyErrorKind::Internal, "text is not read");
    // A refusal's text is the store's, safe to show.
    assert_eq!(typed(StoreError::RunOver(3)).to_string(), "run 3 is already over");
}

fn run(attempt: u64, token: &str, size: Size) -> DailyRun {
    DailyRun {
        attempt,
        date: "2026-12-01".into(),
        game: size.game(),
        size,
        seed: 9,
        token: token.into(),
        name: "Ann".into(),
        address: "127.0.0.1".into(),
    }
}

/// 2026-12-01T12:00:00Z.
const NOON: u64 = 1_796_126_400_000;

#[tokio::test]
async fn the_players_queries_go_through_the_hook_and_dropping_it_stops_the_heartbeat() {
    let store = Store::open_in_memory().unwrap();
    let clock = Arc::new(mazerace_store::FixedClock::at_unix_ms(NOON));
    let hook = StoreHook::new(store.clone(), Some(b"salt".to_vec()), clock).await.unwrap();
    let (token, date) = ("tok".to_string(), "2026-12-01".to_string());
    assert_eq!(hook.ranked_start(token.clone(), date.clone(), Game::Ghost, Size::Small).await.unwrap(), None);
    hook.started(run(1, &token, Size::Small)).await.unwrap();
    let outcome = DailyOutcome {
        finished: true,
        steps: 3,
        time_ms: Some(900),
        moves: vec![],
        move_times_ms: Some(vec![]),
    };
    let result = hook.ended(run(1, &token, Size::Small), outcome).await.unwrap();
    let start = hook.ranked_start(token.clone(), date, Game::Ghost, Size::Small).await.unwrap();
    assert_eq!(start.map(|s| s.run_id), Some(result.run_id));
    let day = hook.player_day(token).await.unwrap().unwrap();
    assert_eq!((day.streak, day.boards.iter().filter(|b| b.played).count()), (1, 1));
    hook.ping().await.unwrap();
    assert!(
        BoardQuery::new(Game::Ghost, Size::Easy, None).is_err(),
        "a size of the other game cannot even be asked for"
    );
    // The heartbeat task holds a store handle: the hook's drop must end it,
    // or closing the store would wait for ever.
    drop(hook);
    let closed = tokio::time::timeout(std::time::Duration::from_secs(10), store.close()).await;
    assert!(closed.is_ok(), "the store closed once the hook was gone");
}
