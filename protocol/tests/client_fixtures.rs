//! Rule fixtures for the web client's own copy of the rules
//! (`client-web/test/fixtures/rules.json`): boards, action lines and the
//! exact state after each action, made by this crate's engines. The client's
//! unit tests replay them, so the two rule books cannot drift apart; this
//! test fails when the file is stale. To refresh it deliberately:
//! `MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test client_fixtures`.

use std::sync::Arc;

use mazerace_protocol::games::ghost::vault::{Layout, Vault};
use mazerace_protocol::rng::BoardRng;
use mazerace_protocol::{Action, Board, Dir, PlayerGame, Size};
use serde_json::{json, Value};

fn case(board: &Board, actions: &[Action]) -> Value {
    let mut game = PlayerGame::new(board);
    let expect: Vec<Value> = actions
        .iter()
        .map(|&a| {
            let result = game.apply(a);
            let mut v = serde_json::to_value(game.view()).unwrap();
            let obj = v.as_object_mut().unwrap();
            obj.insert("ok".into(), json!(result.is_ok()));
            if let Err(reason) = result {
                obj.insert("reason".into(), serde_json::to_value(reason).unwrap());
            }
            v
        })
        .collect();
    json!({ "board": board.public(), "actions": actions, "expect": expect })
}

/// The solver's line with wrong turns mixed in: a deterministic sprinkle of
/// random directions (walls, closed gates, detours) and a second rewind.
fn noisy(line: &[Action], seed: u64) -> Vec<Action> {
    let mut rng = BoardRng::new(seed);
    let mut out = Vec::new();
    for &a in line {
        if rng.below(4) == 0 {
            out.push(Action::Move(Dir::ALL[rng.below(4) as usize]));
        }
        out.push(a);
        if a == Action::Rewind {
            out.push(Action::Rewind);
        }
    }
    out.push(Action::Move(Dir::Up));
    out
}

fn worked_example() -> Board {
    Board::Ghost(Arc::new(Vault::from_layout(Size::Small, Layout::worked_example()).unwrap()))
}

fn parse(line: &str) -> Vec<Action> {
    line.split_whitespace().map(|w| Action::try_from(w.to_string()).unwrap()).collect()
}

fn fixtures() -> Value {
    let mut cases = Vec::new();
    let example = worked_example();
    let run_one = "down down down down down rewind";
    for run_two in [
        "right right down down right",
        "right right down down left right right right up up right",
        "right right down down left right left right left right right right up up right",
        "right right down down left right left right left right right right up up down",
    ] {
        cases.push(case(&example, &parse(&format!("{run_one} {run_two} up"))));
    }
    for size in [Size::Small, Size::Medium, Size::Large] {
        for seed in 0..4 {
            let board = Board::build(size, seed).unwrap();
            let Board::Ghost(v) = &board else { unreachable!() };
            cases.push(case(&board, &v.solution));
            cases.push(case(&board, &noisy(&v.solution, seed)));
        }
    }
    for (size, seeds) in [(Size::Easy, 3), (Size::Normal, 1)] {
        for seed in 0..seeds {
            let board = Board::build(size, seed).unwrap();
            let Board::Maze(m) = &board else { unreachable!() };
            let line: Vec<Action> = m.solution.iter().map(|&d| Action::Move(d)).collect();
            let mut with_rewind = noisy(&line, seed);
            with_rewind.insert(1, Action::Rewind);
            cases.push(case(&board, &with_rewind));
        }
    }
    Value::Array(cases)
}

#[test]
fn client_rule_fixtures_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../client-web/test/fixtures/rules.json");
    let now = serde_json::to_string(&fixtures()).unwrap() + "\n";
    if std::env::var_os("MAZERACE_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
        std::fs::write(path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        pinned == now,
        "client-web/test/fixtures/rules.json is stale or missing: run \
         MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test client_fixtures"
    );
}
