//! A ranked daily run paced at the floor end to end is reported flagged
//! (`at_floor`) to the store; a run at human pace, or practice, is not.

use std::time::Duration;

use mazerace_protocol::messages::Phase;
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::state::Room;
use super::tests::{daily_race, fx, solution, timings};

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
