//! Race-rule fixtures for the web client (`client-web/test/fixtures/race.json`):
//! the clock rule, efficiency and the ranking of a race, made by
//! `mazerace_protocol::race`, so a JavaScript copy (the offline stand-in
//! server ranks solo races the same way) cannot drift from the server's.
//! This test fails when the file is stale; to refresh it deliberately:
//! `MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test race_fixtures`.

use mazerace_protocol::messages::{RacerStatus, RankBy};
use mazerace_protocol::play::efficiency;
use mazerace_protocol::race::{self, Clock, Entry};
use mazerace_protocol::rng::BoardRng;
use serde_json::{json, Value};

const STATUSES: [RacerStatus; 6] = [
    RacerStatus::Finished,
    RacerStatus::Racing,
    RacerStatus::TimedOut,
    RacerStatus::OutOfSteps,
    RacerStatus::GaveUp,
    RacerStatus::Left,
];

/// A race of 1 to 8 racers with deliberate ties on steps and times.
fn entries(rng: &mut BoardRng) -> Vec<Entry> {
    let n = 1 + rng.below(8) as u32;
    (1..=n)
        .map(|id| {
            let status =
                if rng.below(3) == 0 { STATUSES[rng.below(6) as usize] } else { RacerStatus::Finished };
            let finished = status == RacerStatus::Finished;
            Entry {
                id,
                name: format!("p{id}"),
                status,
                steps: 10 + rng.below(6) as u32,
                time_ms: finished.then(|| 1000 * (1 + rng.below(4))),
            }
        })
        .collect()
}

fn fixtures() -> Value {
    let mut rng = BoardRng::new(2026);
    let rankings: Vec<Value> = (0..120)
        .map(|i| {
            let es = entries(&mut rng);
            let by = if i % 2 == 0 { RankBy::Time } else { RankBy::Steps };
            let best = (i % 3 != 0).then_some(10);
            let among: Vec<Value> = es
                .iter()
                .filter(|e| e.status == RacerStatus::Finished)
                .map(|e| json!({"id": e.id, "rank": race::rank_among(e, &es, by)}))
                .collect();
            json!({
                "rank_by": by,
                "best": best,
                "entries": es,
                "rankings": race::rank(&es, by, best),
                "rank_among": among,
            })
        })
        .collect();
    let efficiencies: Vec<Value> = [
        (112, 140),
        (32, 46),
        (16, 16),
        (198, 199),
        (16, 15),
        (5, 0),
        (36, 37),
        (1, 3),
        (16, 23),
        (16, 17),
        (9, 10),
    ]
    .into_iter()
    .map(|(best, steps)| json!({"best": best, "steps": steps, "efficiency": efficiency(best, steps)}))
    .collect();
    let clocks: Vec<Value> = [(false, 1), (false, 2), (false, 8), (true, 1)]
        .into_iter()
        .map(|(daily, racers)| json!({"daily": daily, "racers": racers, "clock": Clock::for_race(daily, racers)}))
        .collect();
    json!({ "rankings": rankings, "efficiency": efficiencies, "clock": clocks })
}

#[test]
fn client_race_fixtures_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../client-web/test/fixtures/race.json");
    let now = serde_json::to_string(&fixtures()).unwrap() + "\n";
    if std::env::var_os("MAZERACE_WRITE_FIXTURES").is_some() {
        std::fs::write(path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        pinned == now,
        "client-web/test/fixtures/race.json is stale or missing: run \
         MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test race_fixtures"
    );
}
