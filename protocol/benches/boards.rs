//! Board generation and the true-par search, per size:
//! `cargo bench -p mazerace-protocol --bench boards`.

use divan::{black_box, Bencher};
use mazerace_protocol::{ghost, maze, Size};

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
        black_box(ghost::solve::solve_vault(&vaults[i]))
    });
}
