//! The store hook's own tests: the typed queries through the hook, an
//! attempt's ordering, and the heartbeat's end with the hook.
use std::sync::Arc;

use mazerace_protocol::{Game, Size};
use mazerace_store::{FixedClock, PlayerKey, Store};

use super::seam::{BoardQuery, DailyHook, DailyOutcome, DailyRun, Replay};
use super::StoreHook;

fn run(attempt: u64, token: &str, size: Size) -> DailyRun {
    DailyRun {
        attempt,
        date: "2026-12-01".parse().unwrap(),
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

fn finished(steps: u32) -> DailyOutcome {
    DailyOutcome {
        finished: true,
        steps,
        time_ms: Some(900),
        at_floor: false,
        moves: vec![],
        move_times_ms: Some(vec![]),
    }
}

#[tokio::test]
async fn the_players_queries_go_through_the_hook_and_dropping_it_stops_the_heartbeat() {
    let store = Store::open_in_memory().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook = StoreHook::new(store.clone(), Some(b"salt".to_vec()), clock).await.unwrap();
    let token = "tok".to_string();
    let board = hook.today(Game::Ghost, Size::Small, token.clone(), String::new()).await.unwrap();
    assert_eq!((board.date.to_string(), board.ranked, board.ranked_at), ("2026-12-01".into(), true, None));
    hook.started(run(1, &token, Size::Small)).await.unwrap();
    let result = hook.ended(run(1, &token, Size::Small), finished(3)).await.unwrap();
    let again = hook.today(Game::Ghost, Size::Small, token.clone(), String::new()).await.unwrap();
    assert!(
        !again.ranked && again.ranked_at.is_some(),
        "the next try is practice, and says when the ranked one was"
    );
    let day = hook.player_day(token).await.unwrap().unwrap();
    assert_eq!((day.streak, day.boards.iter().filter(|b| b.played).count()), (1, 1));
    assert_eq!(day.boards[0].result.as_ref().map(|r| r.run_id), Some(result.run_id));
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

#[tokio::test]
async fn an_end_reported_before_its_start_still_begins_the_run_once() {
    let store = Store::open_in_memory().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook = StoreHook::new(store.clone(), Some(b"salt".to_vec()), clock).await.unwrap();
    // The room reports both; the end's task happens to run first.
    let started = hook.started(run(7, "t", Size::Easy));
    let ended = hook.ended(run(7, "t", Size::Easy), finished(40));
    let result = ended.await.unwrap();
    let start = started.await.unwrap();
    assert!(result.ranked && start.ranked, "one run, begun once: the ranked one");
    let board = store.leaderboard("2026-12-01".parse().unwrap(), Game::Maze, Size::Easy, None).await.unwrap();
    assert_eq!((board.entrants, board.entries.len()), (1, 1));
}

#[tokio::test]
async fn the_lobby_says_practice_up_front_once_the_address_has_its_ranked_runs() {
    let store = Store::open_in_memory().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook = StoreHook::new(store, Some(b"salt".to_vec()), clock).await.unwrap().with_ranked_per_address(1);
    let here = "127.0.0.1".to_string();
    let first = hook.today(Game::Ghost, Size::Small, "a".into(), here.clone()).await.unwrap();
    assert!(first.ranked && !first.capped, "the address's first player plays ranked");
    hook.started(run(1, "a", Size::Small)).await.unwrap();
    let second = hook.today(Game::Ghost, Size::Small, "b".into(), here.clone()).await.unwrap();
    assert!(!second.ranked && second.capped, "another token from that address is told before its start");
    let own = hook.today(Game::Ghost, Size::Small, "a".into(), here).await.unwrap();
    assert!(
        !own.ranked && !own.capped && own.ranked_at.is_some(),
        "the first player's next try is their practice"
    );
    let elsewhere = hook.today(Game::Ghost, Size::Small, "c".into(), "10.0.0.1".into()).await.unwrap();
    assert!(elsewhere.ranked && !elsewhere.capped, "another address is not capped");
    let other_board = hook.today(Game::Maze, Size::Easy, "b".into(), "127.0.0.1".into()).await.unwrap();
    assert!(other_board.ranked, "the cap is per board");
}

/// Issue 34, item 4: a replay may be cached (an ETag) only when it can no
/// longer change: its day is over and the run has ended. A run still
/// `playing` past midnight is written once more when it ends; today's own
/// run is its player's alone.
#[tokio::test]
async fn a_replay_is_settled_once_its_day_is_over_and_the_run_has_ended() {
    let store = Store::open_in_memory().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook = StoreHook::new(store.clone(), Some(b"salt".to_vec()), clock.clone()).await.unwrap();
    hook.started(run(1, "ann", Size::Easy)).await.unwrap();
    let ended = hook.ended(run(1, "ann", Size::Easy), finished(40)).await.unwrap();
    hook.started(run(2, "bob", Size::Easy)).await.unwrap();
    let date = "2026-12-01".parse().unwrap();
    let playing = store.ranked_run(PlayerKey::from_token("bob"), date, Game::Maze, Size::Easy).await.unwrap();
    let playing = playing.expect("bob's run is stored as started").run_id;
    let settled = |r: Replay| match r {
        Replay::Run { settled, .. } => settled,
        _ => panic!("not shown"),
    };
    assert!(!settled(hook.replay(ended.run_id, Some("ann".into())).await.unwrap()), "today's, its player's");
    clock.advance(std::time::Duration::from_millis(86_400_000));
    assert!(settled(hook.replay(ended.run_id, None).await.unwrap()), "a past day's ended run");
    assert!(!settled(hook.replay(playing, None).await.unwrap()), "still playing: it will change");
}
