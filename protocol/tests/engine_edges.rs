//! Engine edge cases RULES.md spells out, on a hand-made vault where the
//! plate sits beside the gate so every case is a few moves long.

use std::sync::Arc;

use mazerace_protocol::games::ghost::cells::Cells;
use mazerace_protocol::games::ghost::play::GhostPlay;
use mazerace_protocol::games::ghost::vault::{Layout, Vault};
use mazerace_protocol::games::ghost::{build_with_limit, VaultError};
use mazerace_protocol::{Dir, Pos, Reject, Size, Status};

use Dir::{Down as D, Left as L, Right as R, Up as U};

/// Row 2 is walled except the gate at (2,2); the plate (1,2) is right above it.
/// Start (0,0), flag (4,2).
fn plate_by_the_gate() -> Arc<Vault> {
    let cells = Cells::parse(&["......", "......", "##.###", "......", "......", "......"]);
    let layout = Layout {
        cells,
        start: Pos::new(0, 0),
        flag: Pos::new(4, 2),
        plate: Pos::new(1, 2),
        gate: Pos::new(2, 2),
    };
    Arc::new(Vault::from_layout(Size::Small, layout).unwrap())
}

fn walk(game: &mut GhostPlay, dirs: &[Dir]) {
    for &d in dirs {
        game.step(d).unwrap_or_else(|e| panic!("{d:?} refused: {e}"));
    }
}

#[test]
fn holding_the_plate_opens_the_gate_in_run_one() {
    let v = plate_by_the_gate();
    let mut g = GhostPlay::new(Arc::clone(&v));
    walk(&mut g, &[R, R, D]);
    assert!(g.gate_open());
    walk(&mut g, &[D, D, D]);
    assert_eq!(g.status(), Status::Won);
    assert_eq!(g.steps(), 6);
    assert_eq!(v.true_par, Some(6), "self-hold beats any ghost plan here");
}

#[test]
fn maze_walls_cost_nothing_and_the_exit_finishes() {
    let m = Arc::new(mazerace_protocol::games::maze::build(Size::Easy, 5).unwrap());
    let mut g = mazerace_protocol::games::maze::MazePlay::new(Arc::clone(&m));
    // Off the board from the top-left corner: refused, not counted.
    assert_eq!(g.step(U), Err(Reject::Wall));
    assert_eq!(g.step(L), Err(Reject::Wall));
    assert_eq!(g.moves(), 0);
    // A closed side of the start cell, if any, is refused too.
    if let Some(&closed) = [R, D].iter().find(|&&d| !m.is_open(m.start, d)) {
        assert_eq!(g.step(closed), Err(Reject::Wall));
    }
    for &d in &m.solution {
        g.step(d).unwrap();
    }
    assert_eq!(g.status(), Status::Won);
    assert_eq!(g.moves(), m.shortest);
    assert_eq!(g.step(U), Err(Reject::GameOver));
    assert_eq!(g.moves(), m.shortest);
    let mut p = mazerace_protocol::PlayerGame::new(&mazerace_protocol::Board::Maze(Arc::clone(&m)));
    assert_eq!(p.apply(mazerace_protocol::Action::Rewind), Err(Reject::NoRewind));
    for &d in &m.solution {
        p.apply(mazerace_protocol::Action::Move(d)).unwrap();
    }
    // Found by the long fuzz run: after the end, a rewind is refused like
    // any other action (game over), not as "no rewind in this game".
    assert_eq!(p.apply(mazerace_protocol::Action::Rewind), Err(Reject::GameOver));
}

#[test]
fn one_rewind_only_and_only_in_run_one() {
    let mut g = GhostPlay::new(plate_by_the_gate());
    walk(&mut g, &[R]);
    assert_eq!(g.rewind(), Ok(()));
    assert_eq!(g.run(), 2);
    assert_eq!(g.pos(), Pos::new(0, 0));
    assert_eq!(g.steps(), 1, "a rewind costs no step");
    assert_eq!(g.rewind(), Err(Reject::RewindUsed));
    assert_eq!(g.run(), 2);
}

#[test]
fn nothing_moves_after_the_end() {
    let mut g = GhostPlay::new(plate_by_the_gate());
    walk(&mut g, &[R, R, D, D, D, D]);
    assert_eq!(g.status(), Status::Won);
    assert_eq!(g.step(U), Err(Reject::GameOver));
    assert_eq!(g.rewind(), Err(Reject::GameOver));
    assert_eq!(g.steps(), 6);
}

/// The seed's wall line (column 3 walled but for the gate at (2,3)), with the
/// plate at (4,0) so that ghost and gate timings can meet.
fn gate_in_a_wall_line() -> Arc<Vault> {
    let layout = Layout { plate: Pos::new(4, 0), ..Layout::worked_example() };
    Arc::new(Vault::from_layout(Size::Small, layout).unwrap())
}

#[test]
fn a_ghost_passing_over_the_plate_opens_the_gate_for_that_move_only() {
    let v = gate_in_a_wall_line();
    // Run one: onto the plate after 4 steps, then off it on step 5.
    let run_one = [D, D, D, D, R];
    let mut on_time = GhostPlay::new(Arc::clone(&v));
    walk(&mut on_time, &run_one);
    on_time.rewind().unwrap();
    walk(&mut on_time, &[R, R, D, D]);
    assert_eq!(on_time.ghost(), Some(v.plate));
    assert!(on_time.gate_open());
    walk(&mut on_time, &[R]);
    assert_eq!(on_time.pos(), v.gate, "move 5 enters: the ghost held the plate after move 4");
    assert_eq!(on_time.ghost(), Some(Pos::new(4, 1)));

    let mut late = GhostPlay::new(Arc::clone(&v));
    walk(&mut late, &run_one);
    late.rewind().unwrap();
    walk(&mut late, &[R, R, D, D, L, R]);
    assert!(!late.gate_open(), "the ghost has walked off the plate");
    assert_eq!(late.step(R), Err(Reject::GateClosed));
    assert_eq!(late.steps(), 11);
}

#[test]
fn the_ghost_stands_still_when_its_recording_ends() {
    let mut g = GhostPlay::new(plate_by_the_gate());
    walk(&mut g, &[R, R, D]);
    g.rewind().unwrap();
    walk(&mut g, &[D, U, D, U, D]);
    assert_eq!(g.ghost(), Some(Pos::new(1, 2)), "stays on the plate after 3 replayed steps");
    assert!(g.gate_open());
}

#[test]
fn out_of_steps_ends_the_game() {
    let v = plate_by_the_gate();
    let mut g = GhostPlay::new(Arc::clone(&v));
    for i in 0..v.allowance {
        g.step(if i % 2 == 0 { R } else { L }).unwrap();
    }
    assert_eq!(g.status(), Status::OutOfSteps);
    assert_eq!(g.steps_left(), 0);
    assert_eq!(g.step(R), Err(Reject::GameOver));
}

#[test]
fn the_fallback_and_the_no_gate_error_through_the_attempt_seam() {
    // One attempt: find seeds whose first attempt reaches a gate but is
    // dropped after it (fallback), and one whose first attempt has no gate.
    let mut fallback = None;
    let mut no_gate = None;
    for seed in 0..2_000 {
        match build_with_limit(Size::Large, seed, 1) {
            Ok(v) if v.fallback && fallback.is_none() => fallback = Some(v),
            Err(VaultError::NoGate(1)) if no_gate.is_none() => no_gate = Some(seed),
            _ => {}
        }
        if fallback.is_some() && no_gate.is_some() {
            break;
        }
    }
    let v = fallback.expect("some first attempt is dropped after its gate");
    assert_eq!(v.par, 12);
    assert_eq!(v.allowance, 12 + 5);
    assert_eq!(v.attempts, 1);
    if v.true_par.is_none() {
        assert!(v.solution.is_empty());
    }
    assert!(no_gate.is_some(), "some first attempt never gets a gate");
}
