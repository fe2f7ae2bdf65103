//! Actions the connection's flood gate dropped (issue 24): each is answered
//! by its `seq`, refused as `rate_limited`, and changes nothing.

use std::time::Duration;

use mazerace_protocol::messages::{ErrorCode, ServerMsg};
use mazerace_protocol::{Action, Reject};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::tests::{fx, race, room, solution};

#[test]
fn a_dropped_move_is_answered_by_its_seq_and_changes_nothing() {
    let mut r = room(2);
    let t = race(&mut r, Instant::now());
    let first = solution()[0];
    r.handle(t, Input::Act { id: 1, seq: 1, action: first, at: t });
    let e = fx(&mut r);
    let Some(Effect::To(1, ServerMsg::MoveResult { view, .. })) = e.first() else { panic!("{e:?}") };
    let before = view.clone();

    r.handle(t, Input::Dropped { id: 1, seq: 2, action: solution()[1] });
    r.handle(t, Input::Dropped { id: 1, seq: 3, action: Action::Rewind });
    let e = fx(&mut r);
    let [Effect::To(1, ServerMsg::MoveResult { seq: 2, ok: false, reason, view }), Effect::To(1, ServerMsg::RewindResult { seq: 3, ok: false, reason: rewind_reason, .. })] =
        &e[..]
    else {
        panic!("one answer each, to the sender only: {e:?}")
    };
    assert_eq!((*reason, *rewind_reason), (Some(Reject::RateLimited), Some(Reject::RateLimited)));
    assert_eq!(*view, before, "not applied: no step used");

    // The same move sent again within the rate is applied from where the
    // player stood, and nobody else heard of the dropped ones.
    r.handle(t + Duration::from_millis(100), Input::Act { id: 1, seq: 4, action: solution()[1], at: t });
    r.handle(t + Duration::from_millis(100), Input::Tick);
    let e = fx(&mut r);
    let Some(Effect::To(1, ServerMsg::MoveResult { seq: 4, ok: true, view, .. })) = e.first() else {
        panic!("{e:?}")
    };
    assert_eq!(view.steps, before.steps + 1);
}

#[test]
fn a_dropped_move_outside_a_race_gets_the_refusal_any_move_would() {
    let mut r = room(2);
    let t = Instant::now();
    r.handle(t, Input::Dropped { id: 2, seq: 9, action: solution()[0] });
    let e = fx(&mut r);
    assert!(
        matches!(&e[..], [Effect::To(2, ServerMsg::Error { code: ErrorCode::NotRacing, .. })]),
        "as a `move` in the lobby: {e:?}"
    );
}
