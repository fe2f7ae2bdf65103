//! The seed's worked example (RULES.md requires it as a test): a 6x6 vault,
//! column 4 walled except row 3 (1-based), start (1,1), flag (1,6), plate (6,1).
//! `L = 5`, `par = 14`, `allowance = 20`, true best 16.

use std::sync::Arc;

use mazerace_protocol::games::ghost::play::GhostPlay;
use mazerace_protocol::games::ghost::vault::{Layout, Vault};
use mazerace_protocol::{Dir, Pos, Reject, Size, Status};

use Dir::{Down as D, Left as L, Right as R, Up as U};

fn worked_example() -> Vault {
    let layout = Layout::worked_example();
    assert_eq!(layout.cells.rows(), ["...#..", "...#..", "......", "...#..", "...#..", "...#.."]);
    assert_eq!((layout.start, layout.flag, layout.plate), (Pos::new(0, 0), Pos::new(0, 5), Pos::new(5, 0)));
    assert_eq!(layout.gate, Pos::new(2, 3));
    Vault::from_layout(Size::Small, layout).expect("the worked example is a valid vault")
}

fn play(vault: &Arc<Vault>, run_one: &[Dir], run_two: &[Dir]) -> (GhostPlay, Vec<Result<(), Reject>>) {
    let mut game = GhostPlay::new(Arc::clone(vault));
    let mut results = Vec::new();
    for &d in run_one {
        results.push(game.step(d));
    }
    game.rewind().expect("rewind in run one");
    for &d in run_two {
        results.push(game.step(d));
    }
    (game, results)
}

const TO_PLATE: [Dir; 5] = [D, D, D, D, D];

#[test]
fn builder_numbers_match_the_seed() {
    let v = worked_example();
    assert_eq!(v.l, Some(5));
    assert_eq!(v.par, 14);
    assert_eq!(v.allowance, 20);
    assert_eq!(v.true_par, Some(16));
    assert!(!v.fallback);
}

#[test]
fn the_fourteen_step_line_is_refused_at_the_gate_on_move_five() {
    let v = Arc::new(worked_example());
    // Run two: right, right, down, down reaches (2,2) on move 4; the gate on move 5 is shut.
    let (game, results) = play(&v, &TO_PLATE, &[R, R, D, D, R]);
    assert_eq!(&results[..9], &[Ok(()); 9]);
    assert_eq!(results[9], Err(Reject::GateClosed));
    assert_eq!(game.steps(), 9);
    assert_eq!(game.pos(), Pos::new(2, 2));
    assert_eq!(game.ghost(), Some(Pos::new(4, 0)));
}

#[test]
fn the_sixteen_step_line_wins_in_exactly_sixteen() {
    let v = Arc::new(worked_example());
    // Four moves to (2,2), off and back to burn two, the gate on move 7, four to the flag.
    let (game, results) = play(&v, &TO_PLATE, &[R, R, D, D, L, R, R, R, U, U, R]);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(game.status(), Status::Won);
    assert_eq!(game.steps(), 16);
}

#[test]
fn step_twenty_on_the_flag_wins() {
    let v = Arc::new(worked_example());
    // Burn four more steps in run two (two off-and-backs) before the gate: 5 + 15 = 20.
    let (game, results) = play(&v, &TO_PLATE, &[R, R, D, D, L, R, L, R, L, R, R, R, U, U, R]);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(game.steps(), 20);
    assert_eq!(game.status(), Status::Won);
}

#[test]
fn step_twenty_elsewhere_is_out_of_steps() {
    let v = Arc::new(worked_example());
    let (mut game, results) = play(&v, &TO_PLATE, &[R, R, D, D, L, R, L, R, L, R, R, R, U, U, D]);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(game.steps(), 20);
    assert_eq!(game.status(), Status::OutOfSteps);
    assert_eq!(game.step(R), Err(Reject::GameOver));
    assert_eq!(game.steps(), 20);
}

#[test]
fn the_solver_line_replays_to_a_win_in_true_par() {
    let v = Arc::new(worked_example());
    let mut game = mazerace_protocol::PlayerGame::new(&mazerace_protocol::Board::Ghost(Arc::clone(&v)));
    for &a in &v.solution {
        game.apply(a).expect("the solver's line is legal");
    }
    assert_eq!(game.status(), Status::Won);
    assert_eq!(Some(game.steps()), v.true_par);
}
