//! Every registered game keeps the seam's promises, through the same paths
//! a room uses (`Board`, `PlayerGame`, the wire shapes). It names no game:
//! a game added to the registry is checked here the day it is registered.

use mazerace_protocol::play::efficiency;
use mazerace_protocol::race::reveal;
use mazerace_protocol::{Action, Board, Game, PlayerGame, PublicBoard, Reveal, Size, Status};

const SEEDS: std::ops::Range<u64> = 0..12;

fn boards() -> impl Iterator<Item = Board> {
    Size::ALL.into_iter().flat_map(|size| SEEDS.map(move |seed| Board::build(size, seed).expect("a board")))
}

#[test]
fn every_game_has_sizes_labels_and_a_name_that_round_trips() {
    for game in Game::ALL {
        assert!(game.sizes().count() > 0, "{game} has no sizes");
        assert_eq!(game.sizes().last(), Some(game.largest()));
        let labels = game.labels();
        assert!(!labels.title.is_empty() && !labels.unit.is_empty() && !labels.best.is_empty(), "{game}");
        assert!(labels.stats_sample > 0 && !game.build_goal().is_zero(), "{game}");
        assert_eq!(game.as_str().parse::<Game>(), Ok(game));
    }
    // Alternating goes through every game and comes back.
    let mut seen = vec![Game::ALL[0]];
    while seen.len() <= Game::ALL.len() {
        seen.push(seen[seen.len() - 1].next());
    }
    assert_eq!(seen.first(), seen.last());
    assert_eq!(seen[..Game::ALL.len()], Game::ALL);
}

#[test]
fn a_board_is_its_seed_and_size_and_shows_them_where_it_should() {
    for board in boards() {
        let again = Board::build(board.size(), board.seed()).unwrap();
        assert_eq!(board.public(), again.public(), "the same seed, the same board");
        assert_eq!(board.game(), board.size().game());
        let public = board.public();
        assert_eq!(public.size(), board.size());
        assert_eq!(public.seed().map(|s| s.0), Some(board.seed()));
        assert_eq!(board.public_hidden().seed(), None, "a daily board hides its seed");
        // The wire shape reads back as itself, tagged with its game.
        let json = serde_json::to_value(&public).unwrap();
        assert_eq!(json["game"], board.game().as_str());
        assert_eq!(serde_json::from_value::<PublicBoard>(json).unwrap(), public);
        let revealed = reveal(&board);
        let json = serde_json::to_value(&revealed).unwrap();
        assert_eq!(json["game"], board.game().as_str());
        assert_eq!(serde_json::from_value::<Reveal>(json).unwrap(), revealed);
        assert_eq!(revealed.solution(), board.answer().solution());
    }
}

#[test]
fn the_answer_wins_with_the_best_score_through_the_play_path() {
    for board in boards() {
        let line = board.answer().solution().to_vec();
        let Some(best) = board.best() else {
            assert!(line.is_empty(), "no best, no winning line");
            continue;
        };
        let distances = board.goal_distances();
        let mut game = PlayerGame::new(&board);
        assert_eq!(game.status(), Status::Playing);
        assert!(distances.at(game.pos()) > 0, "the start is not the goal");
        for &action in &line {
            game.apply(action)
                .unwrap_or_else(|e| panic!("{:?} seed {}: {action:?}: {e}", board.size(), board.seed()));
        }
        assert_eq!(game.status(), Status::Won, "{:?} seed {}", board.size(), board.seed());
        assert_eq!(game.steps(), best);
        assert_eq!(distances.at(game.pos()), 0, "the winner stands on the goal");
        assert_eq!(efficiency(best, game.steps()), 100);
        // A won game refuses what comes next, and changes nothing.
        let view = game.view();
        for next in [Action::Rewind, line[0]] {
            assert!(game.apply(next).is_err());
        }
        assert_eq!(game.view(), view);
        // The view reads back as itself.
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(serde_json::from_value::<mazerace_protocol::play::GameView>(json).unwrap(), view);
    }
}
