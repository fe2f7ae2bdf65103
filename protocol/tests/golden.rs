//! Golden boards: the exact board (as `mazerace gen` prints it) of a few
//! seeds per game and size, pinned in each game's own folder
//! (`protocol/src/games/<game>/golden.jsonl`). If this fails, a change
//! altered generation: every stored daily run and every shared seed would
//! change with it. Never re-pin these to make the test pass; find what
//! changed the boards. A new game writes its own file once (see
//! ARCHITECTURE.md, "Adding a game").

use mazerace_protocol::{Board, Game};

const SEEDS: [u64; 4] = [0, 1, 20261201, u64::MAX];

fn lines(game: Game) -> Vec<String> {
    game.sizes()
        .flat_map(|size| SEEDS.iter().map(move |&seed| (size, seed)))
        .map(|(size, seed)| serde_json::to_string(&Board::build(size, seed).unwrap().gen_line()).unwrap())
        .collect()
}

/// `MAZERACE_WRITE_GOLDEN=1` pins a new game's boards: it writes the file of
/// a game that has none yet. A file that exists is always checked, never
/// written: a changed board is a bug, not a new pin.
#[test]
fn boards_are_pinned() {
    for game in Game::ALL {
        let path = format!("{}/src/games/{game}/golden.jsonl", env!("CARGO_MANIFEST_DIR"));
        let now = lines(game);
        if std::env::var_os("MAZERACE_WRITE_GOLDEN").is_some() && !std::path::Path::new(&path).exists() {
            std::fs::write(&path, now.join("\n") + "\n").unwrap();
        }
        let pinned = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let pinned: Vec<&str> = pinned.lines().collect();
        assert_eq!(pinned.len(), now.len(), "{path}");
        for (p, n) in pinned.iter().zip(&now) {
            assert_eq!(p, n, "{path}");
        }
    }
}
