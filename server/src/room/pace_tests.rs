//! The pace of a ranked daily run's moves: those faster than human input
//! are refused at no cost, practice and private rooms are not paced, and a
//! ranked run paced at the floor end to end is reported flagged
//! (`at_floor`) to the store; a run at human pace, or practice, is not.

use std::time::Duration;

use mazerace_protocol::messages::{Phase, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::state::Room;
use super::tests::{daily_race, fx, race, room, solution, solve, timings};

/// Plays the solution one move every `gap` from `t`, and answers the
/// ended run's `at_floor` as the room reported it.
fn play_every(mut r: Room, t: Instant, gap: Duration) -> Option<bool> {
    for (i, &a) in solution().iter().enumerate() {
        r.handle(t + gap * i as u32, Input::Act { id: 1, seq: i as u32, action: a, at: t });
    }
    assert_eq!(r.phase(), Phase::Results, "every move went through");
    fx(&mut r).into_iter().find_map(|e| match e {
        Effect::DailyEnded { outcome, .. } => Some(outcome.at_floor),
        _ => None,
    })
}

#[test]
fn a_ranked_run_at_the_floor_end_to_end_is_flagged_and_one_at_human_pace_is_not() {
    let floor = timings().ranked_pace.floor;
    let (r, t) = daily_race(true);
    assert_eq!(play_every(r, t, floor), Some(true), "one move a floor, start to finish");
    let (r, t) = daily_race(true);
    assert_eq!(play_every(r, t, floor * 2), Some(false), "twice the floor: a fast hand");
    let (r, t) = daily_race(false);
    assert_eq!(play_every(r, t, floor), Some(false), "practice is not paced, so never at its floor");
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
