//! A daily room's results keep the board's solution secret while its day
//! is on (practice or ranked), and give it once the day is over.

use mazerace_protocol::messages::{Reveal, ServerMsg};

use super::input::Input;
use super::tests::{daily_race, fx, to_all};

fn results_of(ranked: bool, today: Option<&str>) -> (Reveal, Option<String>) {
    let (mut r, t) = daily_race(ranked);
    if let Some(d) = today {
        r.set_today(d.parse().unwrap());
    }
    r.handle(t, Input::GiveUp { id: 1 });
    let e = fx(&mut r);
    let Some(ServerMsg::Results { reveal, hidden_until, .. }) = to_all(&e).last().copied() else {
        panic!("results last")
    };
    (reveal.clone(), hidden_until.map(|d| d.to_string()))
}

fn solution(r: &Reveal) -> &[mazerace_protocol::Action] {
    r.solution()
}

#[test]
fn a_daily_room_withholds_the_solution_while_its_day_is_on() {
    for ranked in [true, false] {
        for today in [Some("2026-12-01"), None] {
            let (reveal, until) = results_of(ranked, today);
            assert!(solution(&reveal).is_empty(), "ranked {ranked}, today {today:?}: {reveal:?}");
            assert_eq!(until.as_deref(), Some("2026-12-01"));
        }
    }
    // The count stays: "best possible" is no route.
    assert!(matches!(results_of(true, None).0, Reveal::Maze(m) if m.shortest > 0));
}

#[test]
fn once_the_day_is_over_the_results_reveal_the_solution() {
    let (reveal, until) = results_of(true, Some("2026-12-02"));
    assert!(!solution(&reveal).is_empty(), "{reveal:?}");
    assert_eq!(until, None);
}
