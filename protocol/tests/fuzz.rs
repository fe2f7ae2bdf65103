//! Property-based fuzzing (proptest, on stable) of what a client controls:
//! any text frame, and any action line on any board. The invariants: no
//! panic, and no state the rules forbid: a position in a wall or off the
//! board, steps past the allowance, a win off the goal, a second rewind, a
//! refused action that changed anything.
//!
//! The default budget is small so the suite stays quick; for a long run:
//! `PROPTEST_CASES=20000 cargo test --release -p mazerace-protocol --test fuzz`.

use std::sync::Arc;

use mazerace_protocol::messages::{ClientMsg, DecodeError};
use mazerace_protocol::{Action, Board, Dir, PlayerGame, Reject, Size, Status};
use proptest::prelude::*;

const SIZES: [Size; 6] = [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard];

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => prop::sample::select(Dir::ALL.to_vec()).prop_map(Action::Move),
        1 => Just(Action::Rewind),
    ]
}

/// Frames that look like ours, half-broken, plus raw noise.
fn frame() -> impl Strategy<Value = String> {
    let types = prop::sample::select(vec![
        "move",
        "move",
        "mo\\u0076e",
        "hello",
        "create_room",
        "join_room",
        "leave_room",
        "ready",
        "start",
        "move",
        "rewind",
        "rematch",
        "ping",
        "leaderboard",
        "nope",
        "",
    ]);
    let value = prop_oneof![
        Just("null".to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        "[a-z0-9<>\"\\\\\u{202e} ]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just("[1,2]".to_string()),
        Just("{}".to_string()),
    ];
    let keys = prop::sample::select(vec![
        "name",
        "token",
        "game",
        "size",
        "seed",
        "rank_by",
        "max_players",
        "daily",
        "code",
        "spectate",
        "ready",
        "dir",
        "seq",
        "date",
        "type",
    ]);
    prop_oneof![
        (types, prop::collection::vec((keys, value), 0..5)).prop_map(|(t, fields)| {
            let mut s = format!("{{\"type\":\"{t}\"");
            for (k, v) in fields {
                s += &format!(",\"{k}\":{v}");
            }
            s + "}"
        }),
        ".{0,64}",
        prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

proptest! {
    #[test]
    fn the_fast_decoder_agrees_with_serde(text in frame()) {
        let fast = ClientMsg::decode(&text).map_err(|e| e.message);
        let slow = serde_json::from_str::<ClientMsg>(&text).map_err(|e| DecodeError::of(&text, &e).message);
        prop_assert_eq!(fast, slow);
    }

    #[test]
    fn any_frame_decodes_or_errors_and_round_trips(text in frame()) {
        if let Ok(msg) = serde_json::from_str::<ClientMsg>(&text) {
            let again = serde_json::to_string(&msg).unwrap();
            prop_assert_eq!(serde_json::from_str::<ClientMsg>(&again).unwrap(), msg);
        }
    }

    #[test]
    fn any_action_line_keeps_the_rules(size_i in 0..6usize, seed in any::<u64>(), line in prop::collection::vec(action(), 0..120)) {
        let board = Board::build(SIZES[size_i], seed).unwrap();
        let mut game = PlayerGame::new(&board);
        let mut rewinds = 0;
        for a in line {
            let before = (game.pos(), game.steps(), game.status(), game.run());
            match game.apply(a) {
                Ok(()) => {
                    if a == Action::Rewind {
                        rewinds += 1;
                        prop_assert_eq!(game.steps(), before.1);
                    } else {
                        prop_assert_eq!(game.steps(), before.1 + 1);
                    }
                }
                Err(reason) => {
                    prop_assert_eq!((game.pos(), game.steps(), game.status(), game.run()), before);
                    if before.2 != Status::Playing {
                        prop_assert_eq!(reason, Reject::GameOver);
                    }
                }
            }
            prop_assert!(rewinds <= 1);
            check_state(&board, &game)?;
        }
    }
}

fn check_state(board: &Board, game: &PlayerGame) -> Result<(), TestCaseError> {
    let p = game.pos();
    match board {
        Board::Ghost(v) => {
            let v: &Arc<_> = v;
            prop_assert!(p.row < v.cells.n && p.col < v.cells.n);
            prop_assert!(!v.cells.is_wall(p));
            prop_assert!(game.steps() <= v.allowance);
            match game.status() {
                Status::Won => prop_assert_eq!(p, v.flag),
                Status::OutOfSteps => prop_assert_eq!(game.steps(), v.allowance),
                Status::Playing => prop_assert!(game.steps() < v.allowance && p != v.flag),
            }
        }
        Board::Maze(m) => {
            prop_assert!(p.row < m.n && p.col < m.n);
            prop_assert_eq!(game.status() == Status::Won, p == m.exit);
            prop_assert!(game.status() != Status::OutOfSteps);
        }
    }
    Ok(())
}
