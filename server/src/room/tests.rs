//! The helpers the room's unit tests share (no tests of its own): a room
//! of `n` players or a daily room of one, the race run up to its start, a
//! solve, and the effects read back. The state machine is tested without
//! sockets or tasks: commands in, effects out, time as an argument. The
//! tests are by topic in the sibling `*_tests.rs` files (`mod.rs` lists
//! them).

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::messages::{Phase, PlayerId, RankBy, ServerMsg};
use mazerace_protocol::{Action, Board, Size};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::state::Room;
use super::{RoomSettings, Timings};

const SEED: u64 = 42;

pub(super) fn timings() -> Timings {
    Timings {
        countdown_secs: 3,
        countdown_step: Duration::from_secs(1),
        intermission_secs: 10,
        race_time_limit: Duration::from_secs(600),
        progress: super::progress::Window {
            floor: Duration::from_millis(50),
            ceil: Duration::from_millis(50),
        },
        room_window: Duration::from_millis(250),
        ranked_pace: super::race::Pace { floor: Duration::from_millis(25), burst: 3 },
        screens_alone: Duration::from_secs(3600),
    }
}

pub(super) fn board() -> Board {
    Board::build(Size::Easy, SEED).unwrap()
}

pub(super) fn solution() -> Vec<Action> {
    board().answer().solution().to_vec()
}

pub(super) fn name(id: PlayerId) -> Arc<str> {
    format!("p{id}").into()
}

/// The settings of a room of single races on `b` for 8, ranked by time.
pub(super) fn settings_on(b: Board) -> RoomSettings {
    RoomSettings {
        game: b.game(),
        size: b.size(),
        base: b.size(),
        format: None,
        match_seed: SEED,
        rank_by: RankBy::Time,
        max_players: 8,
        board: b,
        daily: None,
        key: "00112233aabbccdd".into(),
        party: false,
    }
}

/// A maze room with players `1..=n` (1 hosts), effects so far dropped.
pub(super) fn room(n: PlayerId) -> Room {
    let settings = settings_on(board());
    let mut room = Room::new("ABCDE".into(), settings, timings(), (1, name(1), "t1".into()));
    for id in 2..=n {
        room.check_join(id, false, 4).unwrap();
        room.handle(
            Instant::now(),
            Input::Join {
                id,
                name: name(id),
                token: format!("t{id}").into(),
                spectate: false,
                screen: false,
            },
        );
    }
    room.effects().take();
    room
}

pub(super) fn fx(room: &mut Room) -> Vec<Effect> {
    room.effects().take()
}

/// The effects so far, and those of the room's timer a `room` window after
/// `at`: by then a coalesced `room` has gone out.
pub(super) fn settled(room: &mut Room, at: Instant) -> Vec<Effect> {
    room.handle(at + timings().room_window, Input::Tick);
    fx(room)
}

/// The messages to everyone, in order.
pub(super) fn to_all(effects: &[Effect]) -> Vec<&ServerMsg> {
    effects.iter().filter_map(|e| if let Effect::All(m) = e { Some(m) } else { None }).collect()
}

pub(super) fn phase_of(m: &ServerMsg) -> Option<Phase> {
    if let ServerMsg::Room(info) = m {
        Some(info.phase)
    } else {
        None
    }
}

/// Starts the race at `t0` and runs the countdown: returns the start instant.
pub(super) fn race(room: &mut Room, t0: Instant) -> Instant {
    room.handle(t0, Input::Start { id: 1 });
    let t = t0 + Duration::from_secs(3);
    for s in 1..=3 {
        room.handle(t0 + Duration::from_secs(s), Input::Tick);
    }
    fx(room);
    assert_eq!(room.phase(), Phase::Racing);
    t
}

pub(super) fn solve(room: &mut Room, id: PlayerId, at: Instant) {
    for (seq, a) in solution().into_iter().enumerate() {
        room.handle(at, Input::Act { id, seq: seq as u32, action: a, at });
    }
}

/// A daily room of one, in its lobby.
pub(super) fn daily_room() -> Room {
    let b = board();
    let daily = crate::daily::DailyBoard {
        date: "2026-12-01".parse().unwrap(),
        seed: SEED,
        ranked: true,
        ranked_at: None,
        capped: false,
        address: "a".into(),
    };
    let settings =
        RoomSettings { rank_by: RankBy::Steps, max_players: 1, daily: Some(daily), ..settings_on(b) };
    Room::new("DAILY".into(), settings, timings(), (1, name(1), "t1".into()))
}

/// A daily room of one whose attempt the store saved as `ranked`, raced
/// from the returned instant.
pub(super) fn daily_race(ranked: bool) -> (Room, Instant) {
    let mut r = daily_room();
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    r.handle(
        t0,
        Input::DailySaved { id: 1, ranked: Some(crate::daily::DailyStart { ranked, capped: false }) },
    );
    for s in 1..=3 {
        r.handle(t0 + Duration::from_secs(s), Input::Tick);
    }
    fx(&mut r);
    assert_eq!(r.phase(), Phase::Racing);
    (r, t0 + Duration::from_secs(3))
}
