//! `room` coalescing and the `room` message's size, in the room's state
//! machine with time as an argument: a join/leave loop, the window, the
//! messages a pending `room` goes out before, the lobby's joiner, and a
//! room of 2000 spectators.

use std::time::Duration;

use mazerace_protocol::messages::{Phase, PlayerId, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::state::Room;
use super::tests::{fx, race, room, solve, timings, to_all};
use super::view::LISTED_SPECTATORS;

const MS: Duration = Duration::from_millis(1);

fn window() -> Duration {
    timings().room_window
}

fn join(r: &mut Room, at: Instant, id: PlayerId, spectate: bool) {
    r.check_join(id, spectate, 5000).expect("room for them");
    r.handle(
        at,
        Input::Join {
            id,
            name: format!("s{id}").into(),
            token: format!("t{id}").into(),
            spectate,
            screen: false,
        },
    );
}

/// Ticks whatever the room's timer has due by `now` (as the actor does).
fn tick_due(r: &mut Room, now: Instant) {
    while let Some(t) = r.next_wake().filter(|&t| t <= now) {
        r.handle(t, Input::Tick);
    }
}

/// The `room` messages to everyone among `e`.
fn rooms(e: &[Effect]) -> Vec<&mazerace_protocol::messages::RoomInfo> {
    to_all(e).into_iter().filter_map(|m| if let ServerMsg::Room(i) = m { Some(i) } else { None }).collect()
}

#[test]
fn a_join_leave_loop_tells_the_members_at_most_once_a_window() {
    // The attack measured: 5,670 join/leave cycles in 10 s, each one a
    // `room` to every member twice over (11,340 to each racer).
    let mut r = room(2);
    let t0 = Instant::now() + Duration::from_secs(1);
    let cycles = 5_670u32;
    let gap = Duration::from_secs(10) / cycles;
    let mut sent = 0;
    let mut joiners_told = 0;
    for i in 0..cycles {
        let at = t0 + gap * i;
        tick_due(&mut r, at);
        let id = 100 + i;
        join(&mut r, at, id, true);
        r.handle(at, Input::Leave { id, expired: false });
        let e = fx(&mut r);
        sent += rooms(&e).len();
        joiners_told +=
            e.iter().filter(|e| matches!(e, Effect::To(to, ServerMsg::Room(_)) if *to == id)).count();
    }
    let end = t0 + Duration::from_secs(10);
    tick_due(&mut r, end + window());
    let e = fx(&mut r);
    sent += rooms(&e).len();
    let most = (Duration::from_secs(10).as_millis() / window().as_millis()) as usize + 2;
    assert!(sent <= most, "{sent} rooms to each member in 10 s (at most {most})");
    assert!(sent >= most - 4, "the changes still show, once a window: {sent}");
    assert!(joiners_told > 0, "a joiner inside the window is told at once");
    let last = r.room_info();
    assert_eq!((last.players.len(), last.more_spectators), (2, 0), "the loop left nobody behind");
}

#[test]
fn a_change_after_a_quiet_spell_goes_at_once_and_the_next_at_the_windows_end() {
    let mut r = room(2);
    let t = Instant::now() + Duration::from_secs(1);
    r.handle(t, Input::Ready { id: 2, ready: true });
    let e = fx(&mut r);
    assert_eq!(rooms(&e).len(), 1, "at once: {e:?}");
    assert!(rooms(&e)[0].players[1].ready);
    r.handle(t + 10 * MS, Input::Ready { id: 2, ready: false });
    r.handle(t + 20 * MS, Input::Rename { id: 2, name: "Bo".into() });
    assert!(rooms(&fx(&mut r)).is_empty(), "inside the window: held");
    assert_eq!(r.next_wake(), Some(t + window()), "due at the window's end, on the room's timer");
    r.handle(t + window() - MS, Input::Tick);
    assert!(fx(&mut r).is_empty(), "not before");
    r.handle(t + window(), Input::Tick);
    let e = fx(&mut r);
    let got = rooms(&e);
    assert_eq!(got.len(), 1, "one room for both changes");
    assert!(!got[0].players[1].ready && got[0].players[1].name == "Bo", "the latest state");
    assert_eq!(r.next_wake(), None, "nothing pending, nothing to wake for");
}

#[test]
fn a_pending_room_goes_out_before_the_phase_messages_it_belongs_to() {
    let mut r = room(2);
    let t0 = Instant::now() + Duration::from_secs(1);
    r.handle(t0, Input::Ready { id: 2, ready: true });
    r.handle(t0 + MS, Input::Rename { id: 2, name: "Bo".into() });
    r.handle(t0 + 2 * MS, Input::Start { id: 1 });
    let e = fx(&mut r);
    let all = to_all(&e);
    let countdown = all.iter().position(|m| matches!(m, ServerMsg::Countdown { .. })).expect("a countdown");
    let ServerMsg::Room(before) = all[countdown - 1] else { panic!("a room first: {all:?}") };
    assert_eq!((before.phase, before.players[1].name.as_str()), (Phase::Countdown, "Bo"));
    assert_eq!(rooms(&e).len(), 2, "the quiet spell's and the countdown's (the rename's went with it)");
    // The start signal, then the results, each after their room.
    let mut stream = Vec::new();
    for s in 1..=3 {
        r.handle(t0 + 2 * MS + Duration::from_secs(s), Input::Tick);
        stream.extend(fx(&mut r));
    }
    let start = t0 + 2 * MS + Duration::from_secs(3);
    r.handle(start + 10 * MS, Input::Disconnected { id: 2 });
    solve(&mut r, 1, start + 20 * MS);
    r.handle(start + 30 * MS, Input::Leave { id: 2, expired: false });
    stream.extend(fx(&mut r));
    let all = to_all(&stream);
    for (i, m) in all.iter().enumerate() {
        let want = match m {
            ServerMsg::RaceStart { .. } => Phase::Racing,
            ServerMsg::Results { .. } => Phase::Results,
            _ => continue,
        };
        let last_room =
            all[..i].iter().rev().find_map(|m| if let ServerMsg::Room(i) = m { Some(i) } else { None });
        assert_eq!(last_room.map(|r| r.phase), Some(want), "{m:?} after {last_room:?}");
    }
    assert!(all.iter().any(|m| matches!(m, ServerMsg::Results { .. })));
}

#[test]
fn a_lobby_joiner_is_told_at_once_and_a_late_one_gets_the_latest_room_in_its_snapshot() {
    let mut r = room(2);
    let t = Instant::now() + Duration::from_secs(1);
    r.handle(t, Input::Ready { id: 1, ready: true });
    fx(&mut r);
    join(&mut r, t + MS, 3, false);
    let e = fx(&mut r);
    assert!(rooms(&e).is_empty(), "the others wait for the window");
    let [Effect::To(3, ServerMsg::Room(info))] = &e[..] else { panic!("the joiner's room: {e:?}") };
    assert!(info.players.iter().any(|p| p.id == 3));
    r.handle(t + window(), Input::Tick);
    assert_eq!(rooms(&fx(&mut r)).len(), 1, "then everyone");
    // After a quiet spell a join goes to everyone at once, the joiner once.
    join(&mut r, t + 2 * window(), 5, true);
    let e = fx(&mut r);
    assert!(
        matches!(&e[..], [Effect::To(5, ServerMsg::Room(_)), Effect::AllBut(5, ServerMsg::Room(_))]),
        "{e:?}"
    );
    r.handle(t + 2 * window(), Input::Leave { id: 5, expired: false });
    fx(&mut r);

    let start = race(&mut r, t + Duration::from_secs(1));
    r.handle(start + MS, Input::Disconnected { id: 2 });
    join(&mut r, start + 2 * MS, 4, true);
    let e = fx(&mut r);
    let [Effect::To(4, ServerMsg::Room(room)), Effect::To(4, ServerMsg::Snapshot(snap))] = &e[..] else {
        panic!("their room, then their snapshot, and nothing to the others yet: {e:?}")
    };
    assert_eq!(*room, snap.room);
    let two = snap.room.players.iter().find(|p| p.id == 2).unwrap();
    assert!(!two.connected && snap.room.players.iter().any(|p| p.id == 4), "the latest state, unsent yet");
    r.handle(start + window(), Input::Tick);
    let e = fx(&mut r);
    assert!(matches!(&e[..], [Effect::All(ServerMsg::Room(_))]), "then everyone, the joiner too: {e:?}");
}

#[test]
fn a_room_of_2000_spectators_names_eight_and_counts_the_rest() {
    let mut r = room(2);
    let t = Instant::now();
    let frame_len = |r: &Room| serde_json::to_string(&ServerMsg::Room(r.room_info())).unwrap().len();
    for id in 100..132 {
        join(&mut r, t, id, true);
    }
    let at_32 = frame_len(&r);
    for id in 132..2100 {
        join(&mut r, t, id, true);
    }
    fx(&mut r);
    let info = r.room_info();
    assert_eq!(info.players.len(), 2 + LISTED_SPECTATORS, "the racers and eight spectators");
    let watching: Vec<PlayerId> = info.players.iter().filter(|p| p.spectator).map(|p| p.id).collect();
    assert_eq!(watching, (100..100 + LISTED_SPECTATORS as PlayerId).collect::<Vec<_>>(), "the first eight");
    assert_eq!(info.more_spectators, 2000 - LISTED_SPECTATORS as u32);
    // Every `room` (and every snapshot's) is the same size at 2000 as at 32:
    // the count has more digits, nothing else grows.
    let at_2000 = frame_len(&r);
    assert!(at_2000 <= at_32 + 4, "{at_2000} bytes at 2000 spectators, {at_32} at 32");
    assert!(at_2000 < 2048, "{at_2000} bytes");

    // The host left and only spectators are left: the host is named.
    r.handle(t, Input::Leave { id: 1, expired: false });
    r.handle(t, Input::Leave { id: 2, expired: false });
    let info = r.room_info();
    assert!(info.players.iter().any(|p| p.id == info.host), "the host is always listed");
    assert_eq!(info.players.len() as u32 + info.more_spectators, 2000);
}
