//! Board fixtures for the web client's offline builder
//! (`client-web/public/js/offline/`, checked by
//! `client-web/test/unit/boards.test.mjs`): the RNG's golden vectors and the
//! exact board and answer of hundreds of seeds per size, made by this crate.
//! The JS must reproduce every field, so a board built in the browser equals
//! the server's for the same seed. This test fails when the file is stale.
//! To refresh it deliberately:
//! `MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test board_fixtures`.
//!
//! Encoding (kept compact, about 1 MB): u64 values are decimal strings (JSON
//! numbers lose precision above 2^53 in browsers); each board is its
//! `mazerace gen` line with `solution` packed as one letter per action
//! (`u`, `d`, `l`, `r`, and `x` for rewind).

use mazerace_protocol::games::ghost::vault::{build_with_limit, VaultError};
use mazerace_protocol::games::ghost::Vault;
use mazerace_protocol::rng::BoardRng;
use mazerace_protocol::{Action, Board, Dir, Size};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::{json, Value};
use std::sync::Arc;

/// Every size of every game, in the registry's order.
const SIZES: [Size; 6] = Size::ALL;
/// Seeds 0.. per size, then as many random full-width seeds, then u64::MAX.
const LOW_SEEDS: u64 = 200;
const WIDE_SEEDS: usize = 100;

fn pack(line: &[Action]) -> String {
    line.iter()
        .map(|a| match a {
            Action::Move(Dir::Up) => 'u',
            Action::Move(Dir::Down) => 'd',
            Action::Move(Dir::Left) => 'l',
            Action::Move(Dir::Right) => 'r',
            Action::Rewind => 'x',
        })
        .collect()
}

/// A board's gen line, in the wire's field order (the JS output must match
/// it byte for byte), with the solution packed and `extra` fields appended.
/// Built as text: `serde_json::Value` would sort the keys.
fn line(board: &Board, extra: &str) -> String {
    let text = serde_json::to_string(&board.gen_line()).unwrap();
    // `solution` is the last field of both games' answers.
    let at = text.rfind(",\"solution\":[").unwrap();
    format!("{},\"solution\":\"{}\"{extra}}}", &text[..at], pack(board.answer().solution()))
}

fn array(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

fn rng_vectors() -> Value {
    let seeds = [0u64, 1, 7, 42, 20261201, u64::MAX];
    // 200 words cross three of rand_chacha's 64-word refills.
    let u32s: Vec<Value> = seeds
        .iter()
        .map(|&s| {
            let mut r = ChaCha8Rng::seed_from_u64(s);
            json!({ "seed": s.to_string(), "words": (0..200).map(|_| r.next_u32()).collect::<Vec<_>>() })
        })
        .collect();
    let u64s: Vec<Value> = seeds
        .iter()
        .map(|&s| {
            let mut r = BoardRng::new(s);
            let values: Vec<String> = (0..100).map(|_| r.next_u64().to_string()).collect();
            json!({ "seed": s.to_string(), "values": values })
        })
        .collect();
    // A u32 read at an odd position, then u64s straddling a refill (BlockRng::next_u64).
    let mixed = {
        let mut r = ChaCha8Rng::seed_from_u64(5);
        let first = r.next_u32();
        let values: Vec<String> = (0..40).map(|_| r.next_u64().to_string()).collect();
        json!({ "seed": "5", "first_u32": first, "u64s": values })
    };
    let bounds: [u64; 9] = [1, 2, 3, 4, 10, 53, 64, 1 << 33 | 5, u64::MAX];
    let below: Vec<Value> = bounds
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let mut r = BoardRng::new(i as u64 + 100);
            let values: Vec<String> = (0..50).map(|_| r.below(n).to_string()).collect();
            json!({ "seed": (i + 100).to_string(), "n": n.to_string(), "values": values })
        })
        .collect();
    let unit: Vec<Value> = seeds
        .iter()
        .map(|&s| {
            let mut r = BoardRng::new(s);
            json!({ "seed": s.to_string(), "values": (0..50).map(|_| r.unit()).collect::<Vec<f64>>() })
        })
        .collect();
    let shuffle: Vec<Value> = [(1u64, 10usize), (2, 1), (3, 2), (4, 64), (5, 529)]
        .iter()
        .map(|&(s, len)| {
            let mut r = BoardRng::new(s);
            let mut v: Vec<u32> = (0..len as u32).collect();
            r.shuffle(&mut v);
            json!({ "seed": s.to_string(), "len": len, "out": v })
        })
        .collect();
    json!({ "u32": u32s, "u64": u64s, "mixed": mixed, "below": below, "unit": unit, "shuffle": shuffle })
}

fn seeds_for(size_index: usize) -> Vec<u64> {
    let mut wide = BoardRng::new(1000 + size_index as u64);
    (0..LOW_SEEDS).chain((0..WIDE_SEEDS).map(|_| wide.next_u64())).chain([u64::MAX]).collect()
}

/// Fallback vaults reached through the attempt-limit seam, and seeds for
/// which no attempt within the limit chose a gate.
fn seams() -> (Vec<String>, Vec<Value>) {
    let mut fallbacks = Vec::new();
    let mut no_gate = Vec::new();
    for size in [Size::Small, Size::Medium, Size::Large] {
        for limit in [1u32, 2, 5] {
            let (mut found, mut unsolvable, mut errors) = (0, false, 0);
            for seed in 0..2000u64 {
                match build_with_limit(size, seed, limit) {
                    // Keep the first few, and the first one nobody can solve.
                    Ok(v) if v.fallback && (found < 3 || (!unsolvable && v.true_par.is_none())) => {
                        unsolvable |= v.true_par.is_none();
                        found += 1;
                        let extra = format!(",\"max_attempts\":{limit}");
                        fallbacks.push(line(&Board::Ghost(Arc::new(v)), &extra));
                    }
                    Err(VaultError::NoGate(_)) if errors < 2 => {
                        errors += 1;
                        no_gate
                            .push(json!({ "size": size, "seed": seed.to_string(), "max_attempts": limit }));
                    }
                    _ => {}
                }
                if found >= 3 && unsolvable && errors >= 2 {
                    break;
                }
            }
        }
    }
    (fallbacks, no_gate)
}

/// The whole file: `{"rng", "boards", "fallbacks", "no_gate", "worked_example"}`.
fn fixtures() -> String {
    let mut boards = Vec::new();
    for (i, &size) in SIZES.iter().enumerate() {
        for seed in seeds_for(i) {
            boards.push(line(&Board::build(size, seed).unwrap(), ""));
        }
    }
    let (fallbacks, no_gate) = seams();
    let example =
        Vault::from_layout(Size::Small, mazerace_protocol::games::ghost::vault::Layout::worked_example());
    format!(
        "{{\"rng\":{},\n\"boards\":{},\n\"fallbacks\":{},\n\"no_gate\":{},\n\"worked_example\":{}}}\n",
        rng_vectors(),
        array(&boards),
        array(&fallbacks),
        Value::Array(no_gate),
        line(&Board::Ghost(Arc::new(example.unwrap())), ""),
    )
}

#[test]
fn fixtures_hold_what_the_client_tests_need() {
    let f: Value = serde_json::from_str(&fixtures()).unwrap();
    let fallbacks = f["fallbacks"].as_array().unwrap();
    assert!(fallbacks.iter().any(|v| v["fallback"] == json!(true)), "a fallback vault");
    assert!(fallbacks.iter().any(|v| v["true_par"].is_null()), "an unsolvable fallback");
    assert!(!f["no_gate"].as_array().unwrap().is_empty(), "a seed with no gate within the limit");
    for size in SIZES {
        let n = f["boards"].as_array().unwrap().iter().filter(|b| b["size"] == json!(size)).count();
        assert!(n >= 100, "{size}: {n} boards");
    }
}

#[test]
fn client_board_fixtures_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../client-web/test/fixtures/boards.json");
    let now = fixtures();
    if std::env::var_os("MAZERACE_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
        std::fs::write(path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        pinned == now,
        "client-web/test/fixtures/boards.json is stale or missing: run \
         MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test board_fixtures"
    );
}
