//! Rivals in the room's state machine (issue 16): a stored run played back
//! by the room's one timer to exactly its stored steps and time, ranked with
//! the players, and the runs refused before a race.

use std::time::Duration;

use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, RacerStatus, RivalPick, ServerMsg};
use mazerace_protocol::Action;
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::state::Room;
use super::tests::{board, fx, race, room, solution, solve, to_all};
use crate::daily::{RivalQuery, RivalRun};

const RIVAL: PlayerId = PlayerId::MAX;

/// The board's solution as a stored run: one action every `gap` ms from
/// its first move, with or without the times stored.
fn stored(gap: u64, with_times: bool) -> RivalRun {
    let actions = solution();
    let times: Vec<u64> = (0..actions.len() as u64).map(|i| i * gap).collect();
    let b = board();
    RivalRun {
        run_id: 7,
        date: "2026-11-30".parse().unwrap(),
        game: b.game(),
        size: b.size(),
        seed: b.seed(),
        name: "Zed".into(),
        steps: actions.len() as u32,
        time_ms: *times.last().unwrap(),
        actions,
        times_ms: with_times.then_some(times),
    }
}

fn load(r: &mut Room, run: RivalRun) {
    r.handle(Instant::now(), Input::RivalLoaded { id: 1, run: Ok(Box::new(run)) });
}

/// The error code `id` was sent, if any.
fn refused(e: &[Effect], id: PlayerId) -> Option<ErrorCode> {
    e.iter().find_map(|e| match e {
        Effect::To(to, ServerMsg::Error { code, .. }) if *to == id => Some(*code),
        _ => None,
    })
}

/// Ticks at every wake-up the room asks for, each `late` after it is due
/// (a slow timer), until `until`; returns everything sent to all
/// (`progress` included).
fn run_until(r: &mut Room, until: Instant, late: Duration) -> Vec<ServerMsg> {
    let mut out = Vec::new();
    while let Some(t) = r.next_wake().filter(|&t| t <= until) {
        r.handle(t + late, Input::Tick);
        for e in fx(r) {
            match e {
                Effect::All(m) | Effect::Progress { delta: m, .. } => out.push(m),
                _ => {}
            }
        }
    }
    out
}

#[test]
fn a_rival_replays_its_stored_run_to_exactly_its_steps_and_time_on_a_late_timer() {
    let mut r = room(1);
    let run = stored(120, true);
    let (steps, time_ms) = (run.steps, run.time_ms);
    load(&mut r, run);
    let e = fx(&mut r);
    let Some(ServerMsg::Room(info)) = to_all(&e).first().copied() else { panic!("a room: {e:?}") };
    let line = info.players.iter().find(|p| p.id == RIVAL).expect("the rival is listed");
    assert!(line.rival && line.ready && !line.spectator && line.run_id == Some(7), "{line:?}");
    assert_eq!(line.name, "Zed");

    let t = race(&mut r, Instant::now());
    assert_eq!(r.next_wake(), Some(t), "the rival's first move is due at the start signal");
    let sent = run_until(&mut r, t + Duration::from_millis(time_ms), Duration::from_millis(7));
    let finished = sent.iter().find_map(|m| match m {
        ServerMsg::Finished { player_id: RIVAL, steps, time_ms, rank } => Some((*steps, *time_ms, *rank)),
        _ => None,
    });
    assert_eq!(finished, Some((steps, time_ms, 1)), "its stored steps and time, not the timer's");
    let moved = sent.iter().any(|m| match m {
        ServerMsg::Progress { players } => players.iter().any(|p| p.id == RIVAL && p.steps > 0),
        _ => false,
    });
    assert!(moved, "its moves go out in progress like anyone's");
    assert_eq!(r.phase(), Phase::Racing, "a rival alone does not end the race");

    solve(&mut r, 1, t + Duration::from_millis(time_ms + 500));
    let e = fx(&mut r);
    let Some(ServerMsg::Results { rankings, .. }) = to_all(&e).last().copied() else { panic!("results") };
    let lines: Vec<_> = rankings.iter().map(|x| (x.player_id, x.rank, x.time_ms, x.rival)).collect();
    assert_eq!(lines, [(RIVAL, Some(1), Some(time_ms), true), (1, Some(2), Some(time_ms + 500), false)]);
}

#[test]
fn a_run_stored_without_times_goes_at_a_steady_pace_to_its_time() {
    let mut r = room(1);
    let mut run = stored(100, false);
    run.time_ms = 3_000;
    let n = run.actions.len() as u64;
    load(&mut r, run);
    fx(&mut r);
    let t = race(&mut r, Instant::now());
    r.handle(t, Input::Tick);
    fx(&mut r);
    // The second action is due one even step after the first.
    assert_eq!(r.next_wake(), Some(t + Duration::from_millis(3_000 / (n - 1))));
    let sent = run_until(&mut r, t + Duration::from_secs(4), Duration::ZERO);
    assert!(sent.iter().any(|m| matches!(m, ServerMsg::Finished { player_id: RIVAL, time_ms: 3_000, .. })));
}

#[test]
fn when_the_players_are_done_the_rival_is_played_out_at_its_own_times() {
    let mut r = room(2);
    load(&mut r, stored(1_000, true));
    fx(&mut r);
    let t = race(&mut r, Instant::now());
    let rival_time = 1_000 * (solution().len() as u64 - 1);
    solve(&mut r, 1, t + Duration::from_millis(900));
    r.handle(t + Duration::from_secs(1), Input::GiveUp { id: 2 });
    let e = fx(&mut r);
    let Some(ServerMsg::Results { rankings, .. }) = to_all(&e).last().copied() else { panic!("results") };
    let lines: Vec<_> = rankings.iter().map(|x| (x.player_id, x.status, x.time_ms)).collect();
    assert_eq!(
        lines,
        [
            (1, RacerStatus::Finished, Some(900)),
            (RIVAL, RacerStatus::Finished, Some(rival_time)),
            (2, RacerStatus::GaveUp, None)
        ]
    );
    assert_eq!(r.phase(), Phase::Results);
}

#[test]
fn a_run_of_another_board_or_that_no_longer_replays_is_refused() {
    let mut r = room(1);
    let mut other = stored(100, true);
    other.seed += 1;
    load(&mut r, other);
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalOtherBoard));

    let mut changed = stored(100, true);
    changed.steps += 1;
    load(&mut r, changed);
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalChanged), "stored steps it does not make");

    let mut late = stored(100, true);
    late.time_ms += 1;
    load(&mut r, late);
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalChanged), "a time its moves do not make");

    let mut cut = stored(100, true);
    cut.actions.pop();
    cut.times_ms.as_mut().unwrap().pop();
    load(&mut r, cut);
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalChanged), "no longer reaches the goal");

    // The first move of the solution from the start corner is down or
    // right; its opposite leaves the board.
    let mut wall = stored(100, true);
    wall.actions[0] = wall.actions[0].opposite();
    load(&mut r, wall);
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalChanged), "a move the rules refuse");
    assert!(!r.room_has_rivals());
}

#[test]
fn only_the_host_adds_a_rival_in_the_lobby_and_a_stored_run_is_asked_of_the_store() {
    let mut r = room(2);
    r.handle(Instant::now(), Input::AddRival { id: 2, run_id: Some(7), pick: None });
    assert_eq!(refused(&fx(&mut r), 2), Some(ErrorCode::NotHost));
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Best) });
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalRefused), "best is a daily board's");
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: Some(7), pick: Some(RivalPick::Best) });
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::BadMessage));
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: Some(7), pick: None });
    let e = fx(&mut r);
    assert!(
        matches!(&e[..], [Effect::LoadRival { player: 1, query: RivalQuery::Run(7), token }] if token == "t1"),
        "{e:?}"
    );
    // The answer comes after the race started: too late.
    race(&mut r, Instant::now());
    load(&mut r, stored(100, true));
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::WrongPhase));
}

#[test]
fn race_my_last_run_races_a_practice_run_again_in_its_own_time() {
    let mut r = room(1);
    let t = race(&mut r, Instant::now());
    // A lone racer's clock starts at their first move.
    let line = solution();
    r.handle(t + Duration::from_secs(2), Input::Act { id: 1, seq: 0, action: line[0], at: t });
    for (i, &a) in line.iter().enumerate().skip(1) {
        r.handle(
            t + Duration::from_secs(2) + Duration::from_millis(40 * i as u64),
            Input::Act { id: 1, seq: i as u32, action: a, at: t },
        );
    }
    let mine = 40 * (line.len() as u64 - 1);
    assert_eq!(r.phase(), Phase::Results);
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) });
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::WrongPhase), "after the rematch, in the lobby");
    r.handle(Instant::now(), Input::Rematch { id: 1, same_board: true, seed: 0, match_seed: 1 });
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) });
    let e = fx(&mut r);
    assert!(refused(&e, 1).is_none(), "{e:?}");
    let t = race(&mut r, Instant::now());
    let sent = run_until(&mut r, t + Duration::from_secs(5), Duration::from_millis(3));
    assert!(
        sent.iter()
            .any(|m| matches!(m, ServerMsg::Finished { player_id: RIVAL, time_ms, .. } if *time_ms == mine)),
        "{sent:?}"
    );
    // A new board has no rivals of the old one.
    r.handle(t + Duration::from_secs(6), Input::GiveUp { id: 1 });
    r.handle(
        t + Duration::from_secs(6),
        Input::Rematch { id: 1, same_board: false, seed: 9, match_seed: 10 },
    );
    assert!(!r.room_has_rivals());
}

impl Room {
    fn room_has_rivals(&self) -> bool {
        !self.rivals.is_empty()
    }
}

trait Opposite {
    fn opposite(self) -> Action;
}

impl Opposite for Action {
    fn opposite(self) -> Action {
        use mazerace_protocol::Dir;
        match self {
            Action::Move(Dir::Up) => Action::Move(Dir::Down),
            Action::Move(Dir::Down) => Action::Move(Dir::Up),
            Action::Move(Dir::Left) => Action::Move(Dir::Right),
            Action::Move(Dir::Right) => Action::Move(Dir::Left),
            Action::Rewind => Action::Rewind,
        }
    }
}

#[test]
fn a_last_run_on_the_start_signals_clock_races_again_to_its_very_ms() {
    // Sub-millisecond instants: the finish time and the move times round
    // separately, and the rival must still end on the time given.
    let mut r = room(2);
    let t = race(&mut r, Instant::now());
    let line = solution();
    for (i, &a) in line.iter().enumerate() {
        let at = t + Duration::from_micros(1_600 + 40_700 * i as u64);
        r.handle(at, Input::Act { id: 1, seq: i as u32, action: a, at });
    }
    let e = fx(&mut r);
    let mine = to_all(&e).iter().find_map(|m| match m {
        ServerMsg::Finished { player_id: 1, time_ms, .. } => Some(*time_ms),
        _ => None,
    });
    let mine = mine.expect("player 1 finished");
    r.handle(t + Duration::from_secs(9), Input::GiveUp { id: 2 });
    r.handle(t + Duration::from_secs(9), Input::Rematch { id: 1, same_board: true, seed: 0, match_seed: 1 });
    r.handle(
        t + Duration::from_secs(9),
        Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) },
    );
    let e = fx(&mut r);
    assert!(refused(&e, 1).is_none(), "{e:?}");
    let t = race(&mut r, t + Duration::from_secs(10));
    let sent = run_until(&mut r, t + Duration::from_secs(20), Duration::from_micros(300));
    let rival = sent.iter().find_map(|m| match m {
        ServerMsg::Finished { player_id: RIVAL, time_ms, .. } => Some(*time_ms),
        _ => None,
    });
    assert_eq!(rival, Some(mine));
}

#[test]
fn a_room_takes_at_most_three_rivals() {
    let mut r = room(1);
    let run = |k| RivalRun { run_id: 7 + k, ..stored(100, true) };
    for k in 0..super::rival_run::MAX_RIVALS as i64 {
        load(&mut r, run(k));
        assert_eq!(refused(&fx(&mut r), 1), None);
    }
    // Asked of the store or answered by it, the fourth is refused.
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: Some(20), pick: None });
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalRefused));
    load(&mut r, run(20));
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalRefused));
    assert_eq!(r.rivals.len(), super::rival_run::MAX_RIVALS);
}

/// The error message `id` was sent, if any.
fn refusal_text(e: &[Effect], id: PlayerId) -> Option<&str> {
    e.iter().find_map(|e| match e {
        Effect::To(to, ServerMsg::Error { message, .. }) if *to == id => Some(message.as_str()),
        _ => None,
    })
}

#[test]
fn the_same_run_is_a_rival_once_however_it_is_asked_for() {
    let mut r = room(1);
    load(&mut r, stored(100, true));
    assert_eq!(refused(&fx(&mut r), 1), None);
    // `best` (or `mine`) answered by the store with the run already in:
    // before, the same run raced three times.
    for _ in 0..2 {
        load(&mut r, stored(100, true));
        let e = fx(&mut r);
        assert_eq!(refused(&e, 1), Some(ErrorCode::RivalRefused));
        assert_eq!(refusal_text(&e, 1), Some("that run is already a rival in this room"));
    }
    // By its id: refused before the store is asked.
    r.handle(Instant::now(), Input::AddRival { id: 1, run_id: Some(7), pick: None });
    let e = fx(&mut r);
    assert_eq!(refused(&e, 1), Some(ErrorCode::RivalRefused));
    assert!(!e.iter().any(|e| matches!(e, Effect::LoadRival { .. })), "{e:?}");
    assert_eq!(r.rivals.len(), 1);
    // Another run still comes in.
    load(&mut r, RivalRun { run_id: 8, ..stored(100, true) });
    assert_eq!(refused(&fx(&mut r), 1), None);
    assert_eq!(r.rivals.len(), 2);
}

#[test]
fn my_last_run_is_a_rival_once() {
    let mut r = room(1);
    let t = race(&mut r, Instant::now());
    solve(&mut r, 1, t);
    r.handle(t, Input::Rematch { id: 1, same_board: true, seed: 0, match_seed: 1 });
    r.handle(t, Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) });
    assert_eq!(refused(&fx(&mut r), 1), None);
    r.handle(t, Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) });
    assert_eq!(refused(&fx(&mut r), 1), Some(ErrorCode::RivalRefused));
    assert_eq!(r.rivals.len(), 1);
}

/// Issue 34, item 7: the run of the room's last race and that run as the
/// store keeps it (every attempt in a daily room is stored, with a
/// `run_id`) are one run, asked for either way round: before, `run_id`
/// then `pick: "last"` raced it twice. With one racer the clock starts at
/// the first move; with two, at the start signal, and the last run's
/// script is shifted by the wait before the first move: the same run.
#[test]
fn a_stored_run_and_the_same_run_as_the_last_are_one_rival() {
    for (players, by_id_first) in [(1, true), (1, false), (2, true), (2, false)] {
        let mut r = room(players);
        let t = race(&mut r, Instant::now());
        let line = solution();
        for (i, &a) in line.iter().enumerate() {
            let at = t + Duration::from_secs(2) + Duration::from_millis(40 * i as u64);
            r.handle(at, Input::Act { id: 1, seq: i as u32, action: a, at });
        }
        if players == 2 {
            r.handle(t + Duration::from_secs(9), Input::GiveUp { id: 2 });
        }
        assert_eq!(r.phase(), Phase::Results);
        r.handle(
            t + Duration::from_secs(9),
            Input::Rematch { id: 1, same_board: true, seed: 0, match_seed: 1 },
        );
        fx(&mut r);
        // The same moves at the same times from the first move, as stored.
        let as_stored = stored(40, true);
        let last = Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) };
        let second = if by_id_first {
            load(&mut r, as_stored);
            assert_eq!(refused(&fx(&mut r), 1), None, "{players} players: by its id");
            r.handle(t + Duration::from_secs(9), last);
            fx(&mut r)
        } else {
            r.handle(t + Duration::from_secs(9), last);
            assert_eq!(refused(&fx(&mut r), 1), None, "{players} players: as the last");
            load(&mut r, as_stored);
            fx(&mut r)
        };
        assert_eq!(refused(&second, 1), Some(ErrorCode::RivalRefused), "{players} players, {by_id_first}");
        assert_eq!(refusal_text(&second, 1), Some("that run is already a rival in this room"));
        assert_eq!(r.rivals.len(), 1);
        // Another run of the same board still comes in.
        load(&mut r, RivalRun { run_id: 8, ..stored(100, true) });
        assert_eq!(refused(&fx(&mut r), 1), None);
    }
}
