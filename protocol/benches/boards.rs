//! Board generation and the true-par search, per size, and decoding the
//! hottest frame (`move`): `cargo bench -p mazerace-protocol --bench boards`.

use divan::{black_box, Bencher};
use mazerace_protocol::games::{ghost, maze};
use mazerace_protocol::Size;

fn main() {
    divan::main();
}

/// Building a vault includes its exact `true_par` search, as the server does.
#[divan::bench(args = [Size::Small, Size::Medium, Size::Large])]
fn vault(bencher: Bencher, size: Size) {
    let mut seed = 0u64;
    bencher.bench_local(|| {
        seed += 1;
        black_box(ghost::build(size, seed).unwrap())
    });
}

#[divan::bench(args = [Size::Easy, Size::Normal, Size::Hard])]
fn maze(bencher: Bencher, size: Size) {
    let mut seed = 0u64;
    bencher.bench_local(|| {
        seed += 1;
        black_box(maze::build(size, seed).unwrap())
    });
}

/// The true-par search alone, on a fixed set of built vaults.
#[divan::bench(args = [Size::Small, Size::Medium, Size::Large])]
fn true_par(bencher: Bencher, size: Size) {
    let vaults: Vec<_> = (0..64).map(|s| ghost::build(size, s).unwrap()).collect();
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) % vaults.len();
        black_box(ghost::vault::solve_vault(&vaults[i]))
    });
}

const MOVE: &str = r#"{"type":"move","dir":"left","seq":1234}"#;

/// A `move` frame through the plain serde decoder for the tagged enum.
#[divan::bench]
fn decode_move_serde() -> mazerace_protocol::messages::ClientMsg {
    serde_json::from_str(black_box(MOVE)).unwrap()
}

/// The same frame through `ClientMsg::decode`, as the server reads it.
#[divan::bench]
fn decode_move_fast() -> mazerace_protocol::messages::ClientMsg {
    mazerace_protocol::messages::ClientMsg::decode(black_box(MOVE)).unwrap()
}
