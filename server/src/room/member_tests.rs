//! Members coming and going around a race: a racer who leaves mid-race,
//! the host's hand-over, and a resume's snapshot.

use std::time::Duration;

use mazerace_protocol::messages::{Phase, RacerStatus, ServerMsg};
use mazerace_protocol::race::Clock;
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::tests::{fx, phase_of, race, room, settled, to_all};

#[test]
fn a_racer_who_leaves_is_listed_as_left_and_the_others_hear_it_in_progress() {
    let mut r = room(3);
    let t = race(&mut r, Instant::now());
    r.handle(t + Duration::from_secs(1), Input::Leave { id: 3, expired: false });
    let e = fx(&mut r);
    assert!(to_all(&e).iter().any(|m| phase_of(m) == Some(Phase::Racing)), "the others get the room");
    r.handle(t + Duration::from_secs(1), Input::Tick);
    let e = fx(&mut r);
    let Some(Effect::Progress { delta: ServerMsg::Progress { players }, skip: None }) = e.first() else {
        panic!("a progress to all: {e:?}")
    };
    assert_eq!((players[0].id, players[0].status), (3, RacerStatus::Left));
}
#[test]
fn the_host_hands_over_to_the_next_connected_racer() {
    let mut r = room(3);
    let t = Instant::now();
    r.handle(t, Input::Disconnected { id: 2 });
    r.handle(t, Input::Leave { id: 1, expired: false });
    let e = settled(&mut r, t);
    let Some(ServerMsg::Room(info)) = to_all(&e).last().copied() else { panic!() };
    assert_eq!(info.host, 3, "2 is away, so 3 hosts");
}
#[test]
fn a_resume_gets_a_snapshot_and_the_others_see_them_connected() {
    let mut r = room(3);
    let t = race(&mut r, Instant::now());
    r.handle(t, Input::Disconnected { id: 2 });
    r.handle(t, Input::Leave { id: 3, expired: false });
    fx(&mut r);
    r.handle(t + Duration::from_secs(4), Input::Connected { id: 2 });
    let e = fx(&mut r);
    let Effect::To(2, ServerMsg::Snapshot(snap)) = &e[0] else { panic!("{e:?}") };
    assert!(snap.board.is_some() && snap.you.is_some());
    assert_eq!((snap.elapsed_ms, snap.clock), (Some(4_000), Some(Clock::Start)));
    // 3 left the room (no `room` lists them) but not the race: named here.
    let gone = snap.players.iter().find(|p| p.id == 3).map(|p| (p.status, p.name.as_deref()));
    assert_eq!(gone, Some((RacerStatus::Left, Some("p3"))));
    assert!(snap.players.iter().all(|p| p.name.as_deref() == Some(&*format!("p{}", p.id))));
    // Their snapshot had the room: the others' `room` skips them.
    assert!(matches!(&e[1], Effect::AllBut(2, ServerMsg::Room(info)) if info.players[1].connected));
}
