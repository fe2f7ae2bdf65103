//! The lobby's room requests without sockets: making, joining and leaving
//! rooms, the room commands routed to the room (and refused out of one),
//! and the budgets that hold them back. The rooms are real actors on the
//! paused runtime; [`Player::settle`] waits for a room's answers.

use std::time::Duration;

use mazerace_protocol::messages::{ErrorCode, RoomRef, ServerMsg};
use mazerace_protocol::Reject;

use super::tests::{env, env_with, Player};
use crate::config::Config;

const CREATE: &str = r#"{"type":"create_room","game":"maze","size":"easy"}"#;

fn join(code: &str) -> String {
    format!(r#"{{"type":"join_room","code":"{code}"}}"#)
}

#[tokio::test(start_paused = true)]
async fn a_room_is_made_joined_by_its_code_and_left() {
    let env = env();
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(CREATE).await;
    let room = ann.room().expect("Ann is in the room she made");
    assert_eq!(env.room_count(), 1);
    let mut bob = Player::hello(&env, "Bob").await;
    // Codes are read as typed: lower case and spaces around are forgiven.
    bob.say(&join(&format!("  {} ", room.code.to_ascii_lowercase()))).await;
    assert_eq!(bob.room().map(|r| r.code), Some(room.code.clone()));
    let preview = room.preview().await.expect("open");
    assert_eq!((preview.host.as_str(), preview.players), ("Ann", vec!["Ann".to_string(), "Bob".into()]));
    bob.heard();
    bob.say(r#"{"type":"leave_room"}"#).await;
    assert!(bob.room().is_none());
    assert_eq!(room.preview().await.map(|p| p.players), Some(vec!["Ann".to_string()]));
    bob.say(r#"{"type":"leave_room"}"#).await;
    assert_eq!(bob.error(), (ErrorCode::NotInRoom, "you are not in a room".into()));
}

#[tokio::test(start_paused = true)]
async fn create_and_join_need_no_room_and_a_real_size() {
    let env = env();
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"create_room","game":"ghost","size":"easy"}"#).await;
    assert_eq!(ann.error(), (ErrorCode::BadSize, "easy is not a size of ghost".into()));
    assert_eq!(env.room_count(), 0);
    ann.say(CREATE).await;
    let code = ann.room().map(|r| r.code).unwrap();
    ann.heard();
    ann.say(CREATE).await;
    assert_eq!(ann.error(), (ErrorCode::AlreadyInRoom, "leave your room first".into()));
    ann.say(&join(&code)).await;
    assert_eq!(ann.error().0, ErrorCode::AlreadyInRoom);
    assert_eq!(env.room_count(), 1);
}

#[tokio::test(start_paused = true)]
async fn room_commands_out_of_a_room_or_out_of_the_race_are_refused() {
    let env = env();
    let mut ann = Player::hello(&env, "Ann").await;
    for cmd in [
        r#"{"type":"move","dir":"up","seq":1}"#,
        r#"{"type":"rewind","seq":2}"#,
        r#"{"type":"ready","ready":true}"#,
        r#"{"type":"start"}"#,
    ] {
        ann.say(cmd).await;
        assert_eq!(ann.error(), (ErrorCode::NotInRoom, "you are not in a room".into()), "{cmd}");
    }
    ann.say(CREATE).await;
    ann.settle().await;
    ann.heard();
    // In the room's lobby, a move reaches the room, which refuses it.
    ann.say(r#"{"type":"move","dir":"up","seq":1}"#).await;
    ann.settle().await;
    assert_eq!(ann.errors(), [ErrorCode::NotRacing]);
}

#[tokio::test(start_paused = true)]
async fn a_move_over_the_rate_in_a_race_is_answered_by_its_seq_and_anything_else_by_rate_limited() {
    let env =
        env_with(Config { msgs_burst: 4, msgs_per_sec: 1, flood_strikes: 5, ..Config::default() }, None);
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(CREATE).await;
    ann.say(r#"{"type":"start"}"#).await;
    // The countdown runs on the paused clock; the bucket fills meanwhile.
    tokio::time::sleep(Duration::from_secs(5)).await;
    ann.settle().await;
    assert!(ann.heard().iter().any(|m| matches!(m, ServerMsg::RaceStart { .. })), "racing");
    for seq in 1..=5 {
        ann.say(&format!(r#"{{"type":"move","dir":"right","seq":{seq}}}"#)).await;
    }
    ann.say(r#"{"type":"ping"}"#).await;
    ann.settle().await;
    let heard = ann.heard();
    let answered: Vec<(u32, Option<Reject>)> = heard
        .iter()
        .filter_map(|m| {
            if let ServerMsg::MoveResult { seq, reason, .. } = m {
                Some((*seq, *reason))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(answered.len(), 5, "every move is answered by its seq: {heard:?}");
    assert_eq!(answered[4], (5, Some(Reject::RateLimited)), "the fifth was over the burst");
    assert!(
        answered[..4].iter().all(|(_, r)| *r != Some(Reject::RateLimited)),
        "the engine judged the first four"
    );
    let error =
        ServerMsg::Error { code: ErrorCode::RateLimited, message: "too many messages: slow down".into() };
    // The lobby says that at once; the moves' answers are the room's, so
    // they may come after it.
    assert!(heard.contains(&error), "a ping over the rate is refused as a message: {heard:?}");
}

#[tokio::test(start_paused = true)]
async fn unknown_codes_cost_failed_joins_and_an_invite_key_still_gets_in() {
    let env = env_with(Config { join_attempts: 2, ..Config::default() }, None);
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(CREATE).await;
    let room = ann.room().unwrap();
    ann.settle().await;
    let key =
        ann.heard()
            .into_iter()
            .find_map(|m| if let ServerMsg::Room(info) = m { Some(info.key) } else { None });
    let key = key.expect("the host's `room` carries the invite key");
    let mut guesser = Player::hello(&env, "Eve").await;
    for guess in ["ZZZZZ", "0O1IL"] {
        guesser.say(&join(guess)).await;
        let (code, message) = guesser.error();
        assert_eq!((code, message), (ErrorCode::RoomNotFound, format!("no room with code {guess:?}")));
    }
    guesser.say(&join(&room.code)).await;
    assert_eq!(guesser.error().0, ErrorCode::TooManyJoins, "the right code too, once the budget is spent");
    let mut friend = Player::hello(&env, "Bob").await;
    friend.say(&format!(r#"{{"type":"join_room","code":"{}","key":"{key}"}}"#, room.code)).await;
    assert!(friend.room().is_some(), "an invite link is not held up by the guessers on its address");
    let mut wrong = Player::at(&env, [10, 0, 0, 9]);
    wrong.say(r#"{"type":"hello","name":"Mal"}"#).await;
    wrong.heard();
    wrong.say(&format!(r#"{{"type":"join_room","code":"{}","key":"0000000000000000"}}"#, room.code)).await;
    assert_eq!(wrong.error().0, ErrorCode::RoomNotFound, "a wrong key is a failed join");
}

#[tokio::test(start_paused = true)]
async fn rooms_made_from_one_connection_are_limited() {
    let env = env_with(Config { rooms_per_conn: 1, ..Config::default() }, None);
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(CREATE).await;
    ann.say(r#"{"type":"leave_room"}"#).await;
    ann.heard();
    ann.say(CREATE).await;
    let (code, message) = ann.error();
    assert_eq!(code, ErrorCode::TooManyRooms);
    assert_eq!(message, "too many rooms made from this connection; wait a little");
}

#[tokio::test(start_paused = true)]
async fn a_draining_node_makes_no_room() {
    let env = env();
    let mut ann = Player::hello(&env, "Ann").await;
    assert!(env.drain.begin());
    ann.say(CREATE).await;
    assert_eq!(ann.error().0, ErrorCode::Draining);
    assert_eq!(env.room_count(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_code_of_another_node_is_sent_there_and_counts_as_a_failed_join() {
    let env = env_with(Config { node_id: Some('B'), join_attempts: 2, ..Config::default() }, None);
    let mut ann = Player::hello(&env, "Ann").await;
    for _ in 0..2 {
        ann.say(&join("AK7M2")).await;
        let (code, message) = ann.error();
        assert_eq!(code, ErrorCode::WrongNode);
        assert_eq!(message, "room AK7M2 is on node A; connect with /ws?room=AK7M2");
    }
    ann.say(&join("BK7M2")).await;
    assert_eq!(ann.error().0, ErrorCode::TooManyJoins, "another node's codes are no free guesses");
}

#[tokio::test(start_paused = true)]
async fn a_daily_room_needs_the_daily_store() {
    let env = env();
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"create_room","game":"maze","size":"easy","daily":true}"#).await;
    assert_eq!(ann.error().0, ErrorCode::Internal);
    ann.say(r#"{"type":"leaderboard","game":"maze","size":"easy"}"#).await;
    assert_eq!(ann.error().0, ErrorCode::Internal);
    ann.say(r#"{"type":"my_leagues"}"#).await;
    assert_eq!(ann.error().0, ErrorCode::Internal);
}

#[tokio::test(start_paused = true)]
async fn a_join_to_a_moved_rooms_old_code_is_told_where_it_went_with_the_old_key_only() {
    let env = env_with(Config { join_attempts: 3, ..Config::default() }, None);
    let old = RoomRef { code: "K7M2Q".into(), key: "3f9a0c1d5e7b2a64".into() };
    let to = RoomRef { code: "P3XQ9".into(), key: "00112233aabbccdd".into() };
    env.moves.remember(&old, &to);
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"join_room","code":" k7m2q","key":"3f9a0c1d5e7b2a64"}"#).await;
    assert_eq!(ann.heard(), [ServerMsg::RoomMoved { code: to.code.clone(), key: to.key.clone() }]);
    assert!(ann.room().is_none(), "the player goes there themselves");
    ann.say(r#"{"type":"join_room","code":"K7M2Q","key":"0000000000000000"}"#).await;
    assert_eq!(ann.error().0, ErrorCode::RoomNotFound, "a wrong key learns nothing");
    ann.say(&join("K7M2Q")).await;
    assert_eq!(ann.error().0, ErrorCode::RoomNotFound, "nor does no key: the old code is a miss");
    ann.say(&join("K7M2Q")).await;
    assert_eq!(ann.error().0, ErrorCode::RoomNotFound);
    // Both misses and the wrong key were failed joins: the budget is spent.
    ann.say(&join("K7M2Q")).await;
    assert_eq!(ann.error().0, ErrorCode::TooManyJoins);
    // The old key still gets its answer: it proves the player was given the room.
    ann.say(r#"{"type":"join_room","code":"K7M2Q","key":"3f9a0c1d5e7b2a64"}"#).await;
    assert_eq!(ann.heard(), [ServerMsg::RoomMoved { code: to.code, key: to.key }]);
}

/// Issue 34's oracle: a node that adopted rooms from another node (B, with
/// A's old codes remembered) is asked A's codes without keys by a guesser.
/// Before, a miss was `wrong_node` for free and a hit `room_moved` with the
/// new room's key; now a hit answers as a miss does, and every guess is a
/// failed join, so the guesser is stopped at the budget.
#[tokio::test(start_paused = true)]
async fn a_guesser_on_a_node_that_adopted_moved_rooms_learns_nothing_and_is_stopped() {
    let env = env_with(Config { node_id: Some('B'), join_attempts: 5, ..Config::default() }, None);
    let moved = RoomRef { code: "AK7M2".into(), key: "3f9a0c1d5e7b2a64".into() };
    env.moves.remember(&moved, &RoomRef { code: "BP3XQ".into(), key: "00112233aabbccdd".into() });
    let mut eve = Player::hello(&env, "Eve").await;
    let mut answers = Vec::new();
    for guess in ["AAAAA", "AK7M2", "AZZZZ", "AK7M2", "AQQQQ", "AK7M2", "AK7M2"] {
        eve.say(&join(guess)).await;
        let heard = eve.heard();
        assert!(!heard.iter().any(|m| matches!(m, ServerMsg::RoomMoved { .. })), "{guess}: {heard:?}");
        answers.push(match heard.as_slice() {
            [ServerMsg::Error { code, .. }] => *code,
            other => panic!("{guess}: {other:?}"),
        });
    }
    use ErrorCode::{TooManyJoins, WrongNode};
    assert_eq!(answers, [WrongNode, WrongNode, WrongNode, WrongNode, WrongNode, TooManyJoins, TooManyJoins]);
}

/// Issue 34, item 6: being put in a lost room's replacement by
/// `create_room` with `replaces` is a join, and spends the address's join
/// budget as `join_room` does: before, 90 of 90 such joins went into one
/// room from one address, against 40 for `join_room`.
#[tokio::test(start_paused = true)]
async fn a_join_through_replaces_spends_the_room_join_budget() {
    const REPLACE: &str = r#"{"type":"create_room","game":"maze","size":"easy","max_players":64,"replaces":{"code":"BK7M2","key":"3f9a0c1d5e7b2a64"}}"#;
    const REFUSED: &str = r#"mazerace_budget_refusals_total{budget="room_joins"}"#;
    let env = env_with(Config { room_joins: 3, ..Config::default() }, None);
    let refused_before = crate::metrics::read(REFUSED);
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(REPLACE).await;
    let made = ann.room().expect("the first to ask makes the replacement").code;
    for i in 0..3 {
        let mut p = Player::hello(&env, &format!("P{i}")).await;
        p.say(REPLACE).await;
        assert_eq!(p.room().map(|r| r.code), Some(made.clone()), "join {i} of the budget");
    }
    let mut late = Player::hello(&env, "Late").await;
    late.say(REPLACE).await;
    assert!(late.room().is_none());
    let too_fast =
        (ErrorCode::JoinsTooFast, "you are joining rooms too fast; wait a few seconds".to_string());
    assert_eq!(late.error(), too_fast);
    let mut typed = Player::hello(&env, "Typed").await;
    typed.say(&join(&made)).await;
    assert_eq!(typed.error(), too_fast, "one budget for both ways in");
    assert_eq!(env.room_count(), 1, "no room of its own either");
    assert!(crate::metrics::read(REFUSED) - refused_before >= 2.0, "the operator sees both refusals");
    let mut away = Player::at(&env, [10, 0, 0, 2]);
    away.say(r#"{"type":"hello","name":"Away"}"#).await;
    away.say(REPLACE).await;
    assert_eq!(away.room().map(|r| r.code), Some(made.clone()), "another address is not held up");
    tokio::time::advance(Duration::from_secs(1)).await;
    late.say(REPLACE).await;
    assert_eq!(late.room().map(|r| r.code), Some(made), "one more a second");
}
