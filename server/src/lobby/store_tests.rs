//! The lobby's questions to the daily store without sockets, on a real
//! store hook over an in-memory SQLite store at a fixed day: daily rooms
//! and the secrecy of today's seeds, leaderboards, leagues and their
//! budgets. Real time (the store answers from its own thread, which a
//! paused clock would not wait for), and no budget here refills within a
//! test.

use std::sync::Arc;

use mazerace_protocol::messages::{ErrorCode, ServerMsg};
use mazerace_protocol::{Game, Size};
use mazerace_store::{FixedClock, Store};

use super::tests::{env_with, Player};
use super::LobbyEnv;
use crate::config::Config;
use crate::daily::{DailyHook, StoreHook};

/// 2026-12-01T12:00:00Z.
const NOON: u64 = 1_796_126_400_000;

async fn daily_env(cfg: Config) -> (Arc<LobbyEnv>, Arc<dyn DailyHook>) {
    let store = Store::open_in_memory().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook: Arc<dyn DailyHook> =
        Arc::new(StoreHook::new(store, Some(b"salt".to_vec()), clock).await.unwrap());
    (env_with(cfg, Some(Arc::clone(&hook))), hook)
}

#[tokio::test]
async fn a_daily_room_is_a_room_of_one_on_todays_seed_which_no_private_room_may_use() {
    let (env, hook) = daily_env(Config::default()).await;
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"create_room","game":"maze","size":"easy","daily":true,"seed":"7"}"#).await;
    assert_eq!(ann.error(), (ErrorCode::BadSize, "a daily room takes no seed".into()));
    ann.say(r#"{"type":"create_room","game":"maze","size":"easy","daily":true,"match":{"rounds":3}}"#).await;
    assert_eq!(ann.error().0, ErrorCode::DailyMatch);
    ann.say(r#"{"type":"create_room","game":"maze","size":"easy","daily":true}"#).await;
    let room = ann.room().expect("a daily room");
    assert_eq!(room.preview().await.map(|p| p.max_players), Some(1));
    let today = hook.today(Game::Maze, Size::Easy, "someone".into(), String::new()).await.unwrap();
    let mut bob = Player::hello(&env, "Bob").await;
    bob.say(&format!(r#"{{"type":"create_room","game":"maze","size":"easy","seed":"{}"}}"#, today.seed))
        .await;
    assert_eq!(bob.error().0, ErrorCode::DailySeed, "a practice run before the ranked one");
    assert!(bob.room().is_none());
}

#[tokio::test]
async fn a_leaderboard_is_answered_from_the_store() {
    let (env, _hook) = daily_env(Config::default()).await;
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"leaderboard","game":"maze","size":"easy","date":"2026-11-30"}"#).await;
    let heard = ann.heard();
    let [ServerMsg::Leaderboard(board)] = &heard[..] else { panic!("a leaderboard: {heard:?}") };
    assert_eq!((board.date.to_string(), board.entrants), ("2026-11-30".to_string(), 0));
    ann.say(r#"{"type":"leaderboard","game":"ghost","size":"easy"}"#).await;
    assert_eq!(ann.error().0, ErrorCode::BadSize, "a size of the other game");
}

#[tokio::test]
async fn leagues_are_made_and_joined_within_the_connections_budget() {
    let (env, _hook) = daily_env(Config::default()).await;
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"create_league","name":"Friday club"}"#).await;
    let heard = ann.heard();
    let [ServerMsg::League(league)] = &heard[..] else { panic!("a league: {heard:?}") };
    let code = league.code.clone();
    assert_eq!((league.name.as_str(), league.members), ("Friday club", 1));
    let mut bob = Player::hello(&env, "Bob").await;
    let join = format!(r#"{{"type":"join_league","code":"{code}"}}"#);
    let leave = format!(r#"{{"type":"leave_league","code":"{code}"}}"#);
    bob.say(&join).await;
    assert!(matches!(&bob.heard()[..], [ServerMsg::League(l)] if l.members == 2));
    bob.say(r#"{"type":"my_leagues"}"#).await;
    assert!(matches!(&bob.heard()[..], [ServerMsg::Leagues { leagues }] if leagues.len() == 1));
    // Five creations or joins a connection, then one more a minute: a
    // join/leave loop is held back too (leaving costs nothing).
    for i in 2..=5 {
        bob.say(&leave).await;
        assert!(matches!(bob.heard()[..], [ServerMsg::LeagueLeft { left: true, .. }]));
        bob.say(&join).await;
        assert!(matches!(bob.heard()[..], [ServerMsg::League(_)]), "join {i}");
    }
    bob.say(&leave).await;
    bob.heard();
    bob.say(&join).await;
    assert_eq!(bob.error().0, ErrorCode::TooManyLeagues);
    bob.say(r#"{"type":"my_leagues"}"#).await;
    assert!(
        matches!(&bob.heard()[..], [ServerMsg::Leagues { leagues }] if leagues.is_empty()),
        "reads are free"
    );
}

#[tokio::test]
async fn an_unknown_league_code_costs_a_failed_join_as_a_room_code_does() {
    let (env, _hook) = daily_env(Config { join_attempts: 1, ..Config::default() }).await;
    let mut eve = Player::hello(&env, "Eve").await;
    eve.say(r#"{"type":"league_standings","code":"ZZZZZZZZ","days":7}"#).await;
    assert_eq!(eve.error().0, ErrorCode::LeagueNotFound);
    eve.say(r#"{"type":"join_room","code":"ZZZZZ"}"#).await;
    assert_eq!(eve.error().0, ErrorCode::TooManyJoins, "one budget for room and league codes");
}

/// Issue 34, item 3: league joins are budgeted per address, not per
/// connection: puppets on connections of their own from one address get
/// `joins_too_fast` past `--league-joins`, counted for the operator; a
/// player at another address is not held up.
#[tokio::test]
async fn league_joins_are_budgeted_per_address_across_connections() {
    const REFUSED: &str = r#"mazerace_budget_refusals_total{budget="league_joins"}"#;
    let (env, _hook) = daily_env(Config { league_joins: 2, ..Config::default() }).await;
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"create_league","name":"Club"}"#).await;
    let heard = ann.heard();
    let [ServerMsg::League(league)] = &heard[..] else { panic!("a league: {heard:?}") };
    let join = format!(r#"{{"type":"join_league","code":"{}"}}"#, league.code);
    let before = crate::metrics::read(REFUSED);
    for i in 0..2 {
        let mut p = Player::hello(&env, &format!("Puppet{i}")).await;
        p.say(&join).await;
        assert!(matches!(&p.heard()[..], [ServerMsg::League(_)]), "puppet {i}");
    }
    let mut third = Player::hello(&env, "Puppet2").await;
    third.say(&join).await;
    assert_eq!(
        third.error(),
        (ErrorCode::JoinsTooFast, "too many league joins from your network address; wait a minute".into())
    );
    assert!(crate::metrics::read(REFUSED) - before >= 1.0, "counted");
    let mut friend = Player::at(&env, [10, 0, 0, 2]);
    friend.say(r#"{"type":"hello","name":"Friend"}"#).await;
    friend.heard();
    friend.say(&join).await;
    assert!(matches!(&friend.heard()[..], [ServerMsg::League(l)] if l.members == 4));
}
