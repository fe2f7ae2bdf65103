//! The room's state machine without sockets or tasks: commands in, effects
//! out, time as an argument.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::messages::{Phase, PlayerId, RacerStatus, RankBy, ServerMsg};
use mazerace_protocol::race::Clock;
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

fn name(id: PlayerId) -> Arc<str> {
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

#[test]
fn the_countdown_counts_3_2_1_a_second_apart_then_the_race_starts() {
    let mut r = room(2);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let e = fx(&mut r);
    let all = to_all(&e);
    assert_eq!(phase_of(all[0]), Some(Phase::Countdown));
    assert!(matches!(all[1], ServerMsg::Countdown { seconds: 3, .. }), "the board comes with the countdown");
    assert_eq!(r.next_wake(), Some(t0 + Duration::from_secs(1)));
    r.handle(t0 + Duration::from_secs(1), Input::Tick);
    assert!(matches!(to_all(&fx(&mut r))[..], [ServerMsg::Countdown { seconds: 2, .. }]));
    r.handle(t0 + Duration::from_millis(1500), Input::Tick);
    assert!(fx(&mut r).is_empty(), "nothing is due between two numbers");
    r.handle(t0 + Duration::from_secs(2), Input::Tick);
    r.handle(t0 + Duration::from_secs(3), Input::Tick);
    let e = fx(&mut r);
    let all = to_all(&e);
    assert!(matches!(all[0], ServerMsg::Countdown { seconds: 1, .. }));
    assert_eq!(phase_of(all[1]), Some(Phase::Racing));
    assert!(
        matches!(all[2], ServerMsg::RaceStart { clock: Clock::Start, .. }),
        "two racers share the start signal"
    );
}

#[test]
fn only_the_host_starts_and_only_from_the_lobby() {
    let mut r = room(2);
    r.handle(Instant::now(), Input::Start { id: 2 });
    assert!(matches!(&fx(&mut r)[..], [Effect::To(2, ServerMsg::Error { .. })]));
    assert_eq!(r.phase(), Phase::Lobby);
}

#[test]
fn finishers_are_ranked_in_finish_order_and_the_race_ends_with_the_last() {
    let mut r = room(2);
    let t = race(&mut r, Instant::now());
    solve(&mut r, 2, t + Duration::from_secs(10));
    let e = fx(&mut r);
    assert!(to_all(&e)
        .iter()
        .any(|m| matches!(m, ServerMsg::Finished { player_id: 2, rank: 1, time_ms: 10_000, .. })));
    assert_eq!(r.phase(), Phase::Racing, "one racer is still going");
    solve(&mut r, 1, t + Duration::from_secs(12));
    let e = fx(&mut r);
    let all = to_all(&e);
    assert!(all
        .iter()
        .any(|m| matches!(m, ServerMsg::Finished { player_id: 1, rank: 2, time_ms: 12_000, .. })));
    let Some(ServerMsg::Results { rankings, .. }) = all.last() else { panic!("results last: {all:?}") };
    let order: Vec<_> = rankings.iter().map(|x| (x.player_id, x.rank)).collect();
    assert_eq!(order, [(2, Some(1)), (1, Some(2))]);
    assert_eq!(r.phase(), Phase::Results);
}

#[test]
fn a_lone_racer_times_from_the_first_move_and_keeps_that_rule() {
    let mut r = room(1);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    for s in 1..=3 {
        r.handle(t0 + Duration::from_secs(s), Input::Tick);
    }
    let e = fx(&mut r);
    assert!(to_all(&e).iter().any(|m| matches!(m, ServerMsg::RaceStart { clock: Clock::FirstMove, .. })));
    let first = t0 + Duration::from_secs(20);
    let line = solution();
    r.handle(first, Input::Act { id: 1, seq: 0, action: line[0], at: first });
    for (i, &a) in line.iter().enumerate().skip(1) {
        r.handle(first + Duration::from_secs(5), Input::Act { id: 1, seq: i as u32, action: a, at: first });
    }
    let e = fx(&mut r);
    assert!(
        to_all(&e).iter().any(|m| matches!(m, ServerMsg::Finished { time_ms: 5_000, .. })),
        "studying is free"
    );
}

#[test]
fn the_time_limit_ends_the_race_with_everyone_still_going_timed_out() {
    let mut r = room(2);
    let t = race(&mut r, Instant::now());
    solve(&mut r, 1, t + Duration::from_secs(1));
    r.handle(t + Duration::from_secs(1), Input::Tick);
    fx(&mut r);
    let deadline = t + timings().race_time_limit;
    assert_eq!(r.next_wake(), Some(deadline));
    r.handle(deadline, Input::Tick);
    let e = fx(&mut r);
    let Some(ServerMsg::Results { rankings, .. }) = to_all(&e).last().copied() else { panic!() };
    assert_eq!(rankings[1].status, RacerStatus::TimedOut);
    assert_eq!(r.phase(), Phase::Results);
}

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
fn own_moves_only_are_not_echoed_to_the_mover() {
    let mut r = room(2);
    let t = race(&mut r, Instant::now());
    r.handle(t, Input::Act { id: 1, seq: 1, action: solution()[0], at: t });
    r.handle(t, Input::Tick);
    let e = fx(&mut r);
    assert!(matches!(&e[0], Effect::To(1, ServerMsg::MoveResult { ok: true, .. })));
    assert!(matches!(&e[1], Effect::Progress { skip: Some(1), .. }), "{e:?}");
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

#[test]
fn a_rematch_goes_back_to_the_lobby_on_a_new_or_the_same_board() {
    let mut r = room(1);
    let t = race(&mut r, Instant::now());
    solve(&mut r, 1, t);
    fx(&mut r);
    r.handle(t, Input::Rematch { id: 1, same_board: true, seed: 7, match_seed: 8 });
    assert_eq!(r.phase(), Phase::Lobby);
    let t = race(&mut r, t);
    r.handle(t, Input::Act { id: 1, seq: 1, action: solution()[0], at: t });
    assert!(
        matches!(&fx(&mut r)[0], Effect::To(1, ServerMsg::MoveResult { ok: true, .. })),
        "the same board"
    );
    r.handle(t, Input::GiveUp { id: 1 });
    fx(&mut r);
    assert_eq!(r.phase(), Phase::Results, "a lone racer giving up ends the race");
    r.handle(t, Input::Rematch { id: 1, same_board: false, seed: 7, match_seed: 8 });
    let t = race(&mut r, t);
    r.handle(t, Input::Start { id: 1 });
    let e = fx(&mut r);
    assert!(matches!(&e[..], [Effect::To(1, ServerMsg::Error { .. })]), "racing on the new board: {e:?}");
}

#[test]
fn everyone_ready_starts_the_countdown_without_the_host() {
    let mut r = room(2);
    let t0 = Instant::now();
    r.handle(t0, Input::Ready { id: 1, ready: true });
    assert_eq!(r.phase(), Phase::Lobby);
    r.handle(t0, Input::Ready { id: 2, ready: true });
    assert_eq!(r.phase(), Phase::Countdown);
}

#[test]
fn giving_up_ends_only_that_run_and_no_rename_while_racing() {
    let mut r = room(2);
    let t = race(&mut r, Instant::now());
    assert!(!r.may_rename(1));
    r.handle(t, Input::GiveUp { id: 1 });
    assert!(r.may_rename(1), "out of the race");
    r.handle(t, Input::Tick);
    let e = fx(&mut r);
    assert!(e.iter().any(|x| matches!(x,
        Effect::Progress { delta: ServerMsg::Progress { players }, skip: None }
            if players[0].status == RacerStatus::GaveUp)));
    r.handle(t, Input::GiveUp { id: 1 });
    assert!(matches!(&fx(&mut r)[..], [Effect::To(1, ServerMsg::Error { .. })]), "once");
    assert_eq!(r.phase(), Phase::Racing);
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

/// Each move's (seq, ok, reason) from the effects.
fn answers(e: &[Effect]) -> Vec<(u32, bool, Option<mazerace_protocol::Reject>)> {
    e.iter()
        .filter_map(|e| match e {
            Effect::To(1, ServerMsg::MoveResult { seq, ok, reason, .. }) => Some((*seq, *ok, *reason)),
            _ => None,
        })
        .collect()
}

#[test]
fn ranked_daily_moves_are_paced_to_human_input_and_a_refused_one_costs_nothing() {
    use mazerace_protocol::Reject::TooFast;
    let (mut r, t) = daily_race(true);
    let line = solution();
    // Five moves at one instant: the burst of three passes, the rest are too fast.
    for (seq, &a) in line.iter().take(5).enumerate() {
        r.handle(t, Input::Act { id: 1, seq: seq as u32, action: a, at: t });
    }
    let got = answers(&fx(&mut r));
    assert_eq!(
        got,
        vec![
            (0, true, None),
            (1, true, None),
            (2, true, None),
            (3, false, Some(TooFast)),
            (4, false, Some(TooFast))
        ]
    );
    // 24 ms later is still inside the floor; 25 ms later one more is let through.
    r.handle(t + Duration::from_millis(24), Input::Act { id: 1, seq: 5, action: line[3], at: t });
    r.handle(t + Duration::from_millis(25), Input::Act { id: 1, seq: 6, action: line[3], at: t });
    r.handle(t + Duration::from_millis(25), Input::Act { id: 1, seq: 7, action: line[4], at: t });
    let e = fx(&mut r);
    assert_eq!(answers(&e), vec![(5, false, Some(TooFast)), (6, true, None), (7, false, Some(TooFast))]);
    let steps = e.iter().find_map(|e| match e {
        Effect::To(1, ServerMsg::MoveResult { seq: 6, view, .. }) => Some(view.steps),
        _ => None,
    });
    assert_eq!(steps, Some(4), "refused moves used no step");
    // At the floor's pace the rest of the line goes through and finishes.
    let mut at = t + Duration::from_millis(25);
    for (i, &a) in line.iter().enumerate().skip(4) {
        at += Duration::from_millis(25);
        r.handle(at, Input::Act { id: 1, seq: 100 + i as u32, action: a, at });
    }
    assert!(answers(&fx(&mut r)).iter().all(|&(_, ok, _)| ok));
    assert_eq!(r.phase(), Phase::Results);
}

#[test]
fn practice_daily_moves_and_private_rooms_are_not_paced() {
    let (mut daily, t) = daily_race(false);
    solve(&mut daily, 1, t);
    assert!(answers(&fx(&mut daily)).iter().all(|&(_, ok, _)| ok), "practice keeps the message rate alone");
    assert_eq!(daily.phase(), Phase::Results);
    let mut private = room(1);
    let t = race(&mut private, Instant::now());
    solve(&mut private, 1, t);
    assert!(answers(&fx(&mut private)).iter().all(|&(_, ok, _)| ok));
    assert_eq!(private.phase(), Phase::Results);
}

/// Issue 35: colours differed per viewer (you were always blue), so "I'm
/// the orange one" failed. The room gives each racer one colour, in its one
/// `room` message every screen gets; a spectator has none; a place freed
/// by one who left is the next newcomer's, the others keep theirs.
#[test]
fn each_racer_has_one_colour_in_the_room_kept_while_they_stay() {
    let mut r = room(3);
    let colours = |r: &Room| -> Vec<(PlayerId, Option<u8>)> {
        r.room_info().players.iter().map(|p| (p.id, p.colour)).collect()
    };
    assert_eq!(colours(&r), [(1, Some(0)), (2, Some(1)), (3, Some(2))]);
    let t = Instant::now();
    r.handle(t, Input::Leave { id: 2, expired: false });
    r.check_join(4, true, 4).unwrap();
    r.handle(t, Input::Join { id: 4, name: name(4), token: "t4".into(), spectate: true, screen: false });
    r.check_join(5, false, 4).unwrap();
    r.handle(t, Input::Join { id: 5, name: name(5), token: "t5".into(), spectate: false, screen: false });
    assert_eq!(colours(&r), [(1, Some(0)), (3, Some(2)), (4, None), (5, Some(1))]);
    // A dropped connection keeps its colour.
    r.handle(t, Input::Disconnected { id: 3 });
    r.handle(t, Input::Connected { id: 3 });
    assert_eq!(colours(&r)[1], (3, Some(2)));
}

/// Issue 37: a screen draws each Ghost racer's ghost, so `progress` says
/// where it stands in run two (it replays the run one everyone watched).
#[test]
fn progress_carries_a_ghost_racers_ghost_in_run_two() {
    // A vault whose best line rewinds.
    let (b, line) = (1..200)
        .map(|seed| Board::build(Size::Small, seed).unwrap())
        .find_map(|b| {
            let line = b.answer().solution().to_vec();
            line.contains(&Action::Rewind).then_some((b, line))
        })
        .expect("a vault won by a rewind");
    let mut r = room(2);
    r.settings.board = b.clone();
    (r.settings.game, r.settings.size) = (b.game(), b.size());
    let t = race(&mut r, Instant::now());
    let me = |r: &Room| r.full_progress().into_iter().find(|p| p.id == 1).expect("racing");
    let rewind = line.iter().position(|a| *a == Action::Rewind).unwrap();
    for (seq, a) in line[..rewind].iter().enumerate() {
        r.handle(t, Input::Act { id: 1, seq: seq as u32, action: *a, at: t });
    }
    assert_eq!((me(&r).run, me(&r).ghost), (Some(1), None), "no ghost in run one");
    r.handle(t, Input::Act { id: 1, seq: rewind as u32, action: Action::Rewind, at: t });
    let p = me(&r);
    assert_eq!((p.run, p.ghost), (Some(2), Some(p.pos)), "run two: the ghost sets out with the racer");
    if let Some(a) = line.get(rewind + 1) {
        r.handle(t, Input::Act { id: 1, seq: rewind as u32 + 1, action: *a, at: t });
        assert!(me(&r).ghost.is_some(), "it walks on with them");
    }
}
