//! Golden boards: the exact board (as `mazerace gen` prints it) of a few
//! seeds per game and size. If this fails, a change altered generation:
//! every stored daily run and every shared seed would change with it. Never
//! re-pin these to make the test pass; find what changed the boards.

use mazerace_protocol::{Board, Size};

const SEEDS: [u64; 4] = [0, 1, 20261201, u64::MAX];
const SIZES: [Size; 6] = [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard];

fn lines() -> Vec<String> {
    SIZES
        .iter()
        .flat_map(|&size| SEEDS.iter().map(move |&seed| (size, seed)))
        .map(|(size, seed)| serde_json::to_string(&Board::build(size, seed).unwrap().gen_line()).unwrap())
        .collect()
}

/// Set `MAZERACE_WRITE_GOLDEN=1` only when deliberately adding seeds: the
/// test then writes the file instead of checking it.
#[test]
fn boards_are_pinned() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/boards.jsonl");
    let now = lines();
    if std::env::var_os("MAZERACE_WRITE_GOLDEN").is_some() {
        std::fs::write(path, now.join("\n") + "\n").unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap();
    let pinned: Vec<&str> = pinned.lines().collect();
    assert_eq!(pinned.len(), now.len());
    for (p, n) in pinned.iter().zip(&now) {
        assert_eq!(p, n);
    }
}
