//! Match fixtures for the web client (`client-web/test/fixtures/match.json`):
//! every round's board for each plan, the points of a round, and whole
//! matches (rounds with rivals, joins and leaves) with their final table,
//! winners and share line, all made by `mazerace_protocol::matches`, so the
//! client's screens are tested against the server's own numbers.
//! This test fails when the file is stale; to refresh it deliberately:
//! `MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test match_fixtures`.

use mazerace_protocol::matches::{round_points, Match, MatchSettings, Plan, Rounds};
use mazerace_protocol::messages::{RacerStatus, RankBy, Ranking};
use mazerace_protocol::race::{self, Entry};
use mazerace_protocol::rng::BoardRng;
use mazerace_protocol::Size;
use serde_json::{json, Value};

/// Every size of every game, in the registry's order.
const SIZES: [Size; 6] = Size::ALL;
const PLANS: [Plan; 3] = [Plan::Same, Plan::Alternate, Plan::Harder];
const NOT_FINISHED: [RacerStatus; 4] =
    [RacerStatus::TimedOut, RacerStatus::OutOfSteps, RacerStatus::GaveUp, RacerStatus::Left];

/// Racers `ids` with deliberate ties on steps and times.
fn entries(rng: &mut BoardRng, ids: &[u32]) -> Vec<Entry> {
    ids.iter()
        .map(|&id| {
            let status =
                if rng.below(4) == 0 { NOT_FINISHED[rng.below(4) as usize] } else { RacerStatus::Finished };
            let finished = status == RacerStatus::Finished;
            Entry {
                id,
                name: format!("p{id}"),
                status,
                steps: 10 + rng.below(4) as u32,
                time_ms: finished.then(|| 1000 * (1 + rng.below(3))),
            }
        })
        .collect()
}

fn boards() -> Vec<Value> {
    let mut out = Vec::new();
    for rounds in Rounds::ALL {
        for plan in PLANS {
            for base in SIZES {
                for seed in [1u64, 42] {
                    let s = MatchSettings { rounds, plan };
                    let bs: Vec<_> = (1..=rounds.get()).map(|k| s.board(base, 7, seed, k)).collect();
                    out.push(json!({"match": s, "base": base, "first": "7", "seed": seed.to_string(), "boards": bs}));
                }
            }
        }
    }
    out
}

fn rounds(rng: &mut BoardRng) -> Vec<Value> {
    (0..60u32)
        .map(|i| {
            let n = 1 + rng.below(6) as u32;
            let es = entries(rng, &(1..=n).collect::<Vec<_>>());
            let by = if i.is_multiple_of(2) { RankBy::Time } else { RankBy::Steps };
            json!({"rank_by": by, "entries": es, "scores": round_points(&es, by)})
        })
        .collect()
}

/// A whole match: players 1..=4 start; player 5 joins after round 1, one
/// player may leave after round 2; a rival
/// (id 4294967295) races round 1.
fn a_match(rng: &mut BoardRng, i: usize) -> Value {
    let rounds = Rounds::ALL[i % 3];
    let settings = MatchSettings { rounds, plan: PLANS[i % 3] };
    let by = if i.is_multiple_of(2) { RankBy::Time } else { RankBy::Steps };
    let mut m = Match::new(settings, SIZES[i % 6], rng.next_u64(), rng.next_u64());
    let mut members: Vec<u32> = (1..=4).collect();
    let mut played = Vec::new();
    for id in &members {
        m.join(*id, &format!("p{id}"));
    }
    for k in 1..=rounds.get() {
        m.begin();
        let racing: Vec<u32> = members.iter().copied().filter(|_| rng.below(6) != 0).collect();
        let mut es = entries(rng, &racing);
        if k == 1 {
            es.extend(entries(rng, &[u32::MAX]));
        }
        let mut rankings: Vec<Ranking> = race::rank(&es, by, Some(10));
        rankings.iter_mut().for_each(|l| l.rival = l.player_id == u32::MAX);
        played.push(json!({"round": k, "rankings": rankings}));
        m.record(rankings, by);
        if k == 1 {
            members.push(5);
            m.join(5, "p5");
        }
        if k == 2 && rng.below(2) == 0 {
            let gone = members.remove(rng.below(members.len() as u64) as usize);
            m.leave(gone);
        }
    }
    let over = m.over();
    json!({
        "match": settings,
        "rank_by": by,
        "rounds": played,
        "played": over.played,
        "lines": over.lines,
        "winners": over.winners,
        "share": over.share,
    })
}

/// Two players equal in every round: a shared match win.
fn a_tie() -> Value {
    let settings = MatchSettings { rounds: Rounds::ALL[0], plan: Plan::Same };
    let mut m = Match::new(settings, Size::Easy, 5, 6);
    let mut played = Vec::new();
    for k in 1..=3 {
        m.begin();
        let es: Vec<Entry> = (1..=2)
            .map(|id| Entry {
                id,
                name: format!("p{id}"),
                status: RacerStatus::Finished,
                steps: 30,
                time_ms: Some(9000),
            })
            .collect();
        let rankings = race::rank(&es, RankBy::Time, Some(30));
        played.push(json!({"round": k, "rankings": rankings}));
        m.record(rankings, RankBy::Time);
    }
    let over = m.over();
    json!({"match": settings, "rank_by": RankBy::Time, "rounds": played, "played": over.played, "lines": over.lines, "winners": over.winners, "share": over.share})
}

/// Issue 35's evening: Ann and Bea race all three rounds, Cal joins for the
/// last and wins it; Bea and Cal end on 3 points each, Bea far slower in
/// total. Countback decides (Cal's round won), never the total time.
fn a_late_joiner() -> Value {
    let settings = MatchSettings { rounds: Rounds::ALL[0], plan: Plan::Same };
    let mut m = Match::new(settings, Size::Easy, 5, 6);
    let fin = |id: u32, time_ms: u64| Entry {
        id,
        name: ["", "Ann", "Bea", "Cal"][id as usize].to_owned(),
        status: RacerStatus::Finished,
        steps: 30,
        time_ms: Some(time_ms),
    };
    m.join(1, "Ann");
    m.join(2, "Bea");
    let mut played = Vec::new();
    for (k, round) in
        [vec![fin(1, 30_000), fin(2, 45_600)], vec![fin(1, 31_000), fin(2, 45_600)]].into_iter().enumerate()
    {
        m.begin();
        let rankings = race::rank(&round, RankBy::Time, Some(30));
        played.push(json!({"round": k + 1, "rankings": rankings}));
        m.record(rankings, RankBy::Time);
        if k == 1 {
            m.join(3, "Cal");
        }
    }
    m.begin();
    let last = [fin(3, 44_800), fin(1, 50_000), fin(2, 60_000)];
    let rankings = race::rank(&last, RankBy::Time, Some(30));
    played.push(json!({"round": 3, "rankings": rankings}));
    m.record(rankings, RankBy::Time);
    let over = m.over();
    json!({"match": settings, "rank_by": RankBy::Time, "rounds": played, "played": over.played, "lines": over.lines, "winners": over.winners, "share": over.share})
}

fn fixtures() -> Value {
    let mut rng = BoardRng::new(2027);
    let rounds = rounds(&mut rng);
    let mut matches: Vec<Value> = (0..24).map(|i| a_match(&mut rng, i)).collect();
    matches.push(a_tie());
    matches.push(a_late_joiner());
    json!({ "boards": boards(), "rounds": rounds, "matches": matches })
}

#[test]
fn client_match_fixtures_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../client-web/test/fixtures/match.json");
    let now = serde_json::to_string(&fixtures()).unwrap() + "\n";
    if std::env::var_os("MAZERACE_WRITE_FIXTURES").is_some() {
        std::fs::write(path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        pinned == now,
        "client-web/test/fixtures/match.json is stale or missing: run \
         MAZERACE_WRITE_FIXTURES=1 cargo test -p mazerace-protocol --test match_fixtures"
    );
}
