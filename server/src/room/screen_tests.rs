//! Screens and party rooms in the state machine, time as an argument: a
//! party room held by its screen, its first player the host (the VIP) and
//! the hand-over among players, what a screen is refused, the room's life
//! with only screens in it, and a screen showing an ordinary room.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::match_tests::{refusal, S};
use super::state::Room;
use super::tests::{board, fx, room, settings_on, solution, timings};
use super::RoomSettings;

const TV: PlayerId = 100;

fn party_room() -> Room {
    let settings = RoomSettings { party: true, ..settings_on(board()) };
    let mut r = Room::new("PARTY".into(), settings, timings(), (TV, "Screen".into(), "tv".into()));
    fx(&mut r);
    r
}

fn join(r: &mut Room, at: Instant, id: PlayerId, screen: bool) {
    let name: Arc<str> = format!("p{id}").into();
    match screen {
        true => r.check_screen(id, 4).expect("a place for the screen"),
        false => r.check_join(id, false, 4).expect("a place for the player"),
    }
    r.handle(at, Input::Join { id, name, token: format!("t{id}").into(), spectate: false, screen });
}

#[test]
fn a_party_room_is_held_by_its_screen_and_its_first_player_hosts() {
    let mut r = party_room();
    let info = r.room_info();
    assert!(info.party && info.players.is_empty() && info.screens == 1, "{info:?}");
    assert_eq!(info.host, TV, "nobody else yet");
    let t = Instant::now();
    join(&mut r, t, 1, false);
    join(&mut r, t, 2, false);
    let info = r.room_info();
    assert_eq!(info.host, 1, "the first player in is the VIP");
    assert_eq!(info.players.iter().map(|p| p.id).collect::<Vec<_>>(), [1, 2], "the screen is never listed");
    assert_eq!((info.screens, info.more_spectators), (1, 0), "a screen is no spectator");
    assert_eq!(info.players[0].colour, Some(0), "the first player gets the first colour");
    // The VIP leaves: the next player hosts, never the screen.
    r.handle(t, Input::Leave { id: 1, expired: false });
    assert_eq!(r.room_info().host, 2);
    // The players race; the screen is sent the race as a spectator is.
    r.handle(t, Input::Start { id: 2 });
    for s in 1..=3 {
        r.handle(t + s * S, Input::Tick);
    }
    assert_eq!(r.phase(), Phase::Racing);
    let e = fx(&mut r);
    let to_tv = |e: &[Effect]| e.iter().any(|x| matches!(x, Effect::All(ServerMsg::RaceStart { .. })));
    assert!(to_tv(&e), "race_start goes to everyone, the screen too");
    assert!(!r.round_racers().iter().any(|x| x.id == TV), "the screen never races");
}

#[test]
fn a_screen_may_not_race_or_host_and_is_told_why() {
    let mut r = party_room();
    let t = Instant::now();
    join(&mut r, t, 1, false);
    fx(&mut r);
    for input in [
        Input::Start { id: TV },
        Input::Ready { id: TV, ready: true },
        Input::SetMatch { id: TV, format: None, seed: 3 },
        Input::Rematch { id: TV, same_board: false, seed: 1, match_seed: 2 },
        Input::GiveUp { id: TV },
        Input::Hold { id: TV },
        Input::NextRound { id: TV },
    ] {
        let what = format!("{input:?}");
        r.handle(t, input);
        assert_eq!(refusal(&fx(&mut r), TV), Some(ErrorCode::Screen), "{what}");
    }
    assert_eq!(r.phase(), Phase::Lobby, "nothing a screen said changed the room");
    // Mid-race, a screen's move is refused too; the racer's race goes on.
    r.handle(t, Input::Start { id: 1 });
    for s in 1..=3 {
        r.handle(t + s * S, Input::Tick);
    }
    fx(&mut r);
    let a = solution()[0];
    r.handle(t + 4 * S, Input::Act { id: TV, seq: 1, action: a, at: t + 4 * S });
    assert_eq!(refusal(&fx(&mut r), TV), Some(ErrorCode::Screen));
    assert_eq!(r.phase(), Phase::Racing);
}

#[test]
fn a_room_with_only_screens_closes_after_its_bound_and_a_player_keeps_it_open() {
    let bound = timings().screens_alone;
    let mut r = party_room();
    let t0 = Instant::now();
    r.handle(t0, Input::Tick);
    assert_eq!(r.next_wake(), Some(t0 + bound), "the clock runs while only the screen is in");
    // A player comes before it runs out: the clock stops.
    join(&mut r, t0 + bound / 2, 1, false);
    assert_eq!(r.next_wake(), None);
    // The player goes: the clock starts again from then.
    let gone = t0 + bound - S;
    r.handle(gone, Input::Leave { id: 1, expired: false });
    assert_eq!(r.next_wake(), Some(gone + bound));
    fx(&mut r);
    r.handle(gone + bound - Duration::from_millis(1), Input::Tick);
    assert!(!r.is_empty(), "not before its time");
    r.handle(gone + bound, Input::Tick);
    let e = fx(&mut r);
    assert_eq!(refusal(&e, TV), Some(ErrorCode::Screen), "the screen is told the room closed");
    assert!(r.is_empty(), "the room is empty: its actor ends it");
}

#[test]
fn a_screen_shows_an_ordinary_room_outside_its_caps_and_never_hosts_it() {
    let mut r = room(2);
    let t = Instant::now();
    r.check_join(3, false, 4).unwrap();
    join(&mut r, t, TV, true);
    let info = r.room_info();
    assert_eq!((info.screens, info.players.len(), info.party), (1, 2, false));
    assert_eq!(r.check_screen(TV, 4), Err(super::JoinError::Full), "in already");
    for id in 101..104 {
        join(&mut r, t, id, true);
    }
    assert_eq!(r.check_screen(200, 4), Err(super::JoinError::Full), "at most --max-screens");
    // The players leave: the host is never handed to a screen while a player is in.
    r.handle(t, Input::Leave { id: 1, expired: false });
    assert_eq!(r.room_info().host, 2);
    r.handle(t, Input::Leave { id: 2, expired: false });
    assert!(r.next_wake().is_some(), "only screens left: the room's clock runs");
}

#[test]
fn a_screen_joining_mid_race_gets_the_snapshot_a_spectator_gets() {
    let mut r = room(2);
    let t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    for s in 1..=3 {
        r.handle(t + s * S, Input::Tick);
    }
    fx(&mut r);
    join(&mut r, t + 4 * S, TV, true);
    let e = fx(&mut r);
    let snap = e.iter().find_map(|x| match x {
        Effect::To(id, ServerMsg::Snapshot(s)) if *id == TV => Some(s),
        _ => None,
    });
    let snap = snap.expect("a snapshot for the screen");
    assert!(snap.you.is_none() && snap.board.is_some() && snap.players.len() == 2, "{snap:?}");
}
