//! One race in a room of single races, without sockets or tasks: the
//! countdown and who may start it (the host, or everyone ready), finishing
//! and ranking, a lone racer's clock, the time limit, giving up, the
//! echo of one's own moves, and the rematch back to the lobby.

use std::time::Duration;

use mazerace_protocol::messages::{Phase, RacerStatus, ServerMsg};
use mazerace_protocol::race::Clock;
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::tests::{fx, phase_of, race, room, solution, solve, timings, to_all};

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
