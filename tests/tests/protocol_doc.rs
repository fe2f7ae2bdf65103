//! PROTOCOL.md's examples are the exact wire form: each ```json block under
//! "Client to server" decodes as a `ClientMsg`, each under "Server to
//! client" as a `ServerMsg`, and re-encoding gives back the block byte for
//! byte. Every message type appears at least once.

use std::collections::BTreeSet;

use mazerace_protocol::messages::{ClientMsg, ServerMsg};
use mazerace_tests::serde_json::{self, Value};

fn blocks() -> (Vec<String>, Vec<String>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../PROTOCOL.md");
    let doc = std::fs::read_to_string(path).expect("PROTOCOL.md at the repo root");
    let (mut client, mut server) = (Vec::new(), Vec::new());
    let mut section = "";
    let mut in_block: Option<String> = None;
    for line in doc.lines() {
        if let Some(block) = in_block.as_mut() {
            if line.trim_start().starts_with("```") {
                let b = in_block.take().unwrap();
                match section {
                    "client" => client.push(b),
                    "server" => server.push(b),
                    _ => panic!("a json block outside the message sections: {b}"),
                }
            } else {
                block.push_str(line);
            }
            continue;
        }
        if line.starts_with("## ") {
            section = match line {
                "## Client to server" => "client",
                "## Server to client" => "server",
                _ => "",
            };
        } else if line.trim() == "```json" {
            in_block = Some(String::new());
        }
    }
    assert!(in_block.is_none(), "an unclosed block");
    (client, server)
}

fn type_of(b: &str) -> String {
    let v: Value = serde_json::from_str(b).unwrap_or_else(|e| panic!("not JSON: {b}: {e}"));
    v["type"].as_str().expect("a type").to_owned()
}

#[test]
fn client_examples_are_exact() {
    let (client, _) = blocks();
    let mut seen = BTreeSet::new();
    for b in &client {
        let msg: ClientMsg = serde_json::from_str(b).unwrap_or_else(|e| panic!("{b}: {e}"));
        assert_eq!(&serde_json::to_string(&msg).unwrap(), b);
        seen.insert(type_of(b));
    }
    let all = [
        "hello",
        "create_room",
        "join_room",
        "leave_room",
        "ready",
        "start",
        "move",
        "rewind",
        "give_up",
        "rematch",
        "rename",
        "add_rival",
        "remove_rival",
        "set_match",
        "hold",
        "next_round",
        "ping",
        "leaderboard",
        "create_league",
        "join_league",
        "leave_league",
        "remove_member",
        "new_league_code",
        "my_leagues",
        "league_board",
        "league_standings",
    ];
    assert_eq!(seen, all.iter().map(|s| s.to_string()).collect());
}

#[test]
fn server_examples_are_exact() {
    let (_, server) = blocks();
    let mut seen = BTreeSet::new();
    for b in &server {
        let msg: ServerMsg = serde_json::from_str(b).unwrap_or_else(|e| panic!("{b}: {e}"));
        assert_eq!(&serde_json::to_string(&msg).unwrap(), b);
        seen.insert(type_of(b));
    }
    let all = [
        "welcome",
        "renamed",
        "room",
        "countdown",
        "race_start",
        "move_result",
        "rewind_result",
        "progress",
        "finished",
        "results",
        "intermission",
        "match_round",
        "match_over",
        "snapshot",
        "daily_result",
        "leaderboard",
        "league",
        "league_left",
        "member_removed",
        "league_code_changed",
        "leagues",
        "league_board",
        "league_standings",
        "error",
        "pong",
        "server_shutdown",
        "room_moved",
    ];
    assert_eq!(seen, all.iter().map(|s| s.to_string()).collect());
}

#[test]
fn board_examples_are_the_real_boards() {
    // The race_start examples are real boards: seed 1 small vault, seed 42 easy maze.
    let (_, server) = blocks();
    for (size, seed) in [(mazerace_protocol::Size::Small, 1), (mazerace_protocol::Size::Easy, 42)] {
        let b = mazerace_protocol::Board::build(size, seed).unwrap();
        let want = serde_json::to_value(b.public()).unwrap();
        assert!(
            server
                .iter()
                .any(|x| type_of(x) == "race_start"
                    && serde_json::from_str::<Value>(x).unwrap()["board"] == want),
            "{size} {seed}"
        );
    }
}

#[test]
fn the_match_examples_are_the_protocols_own_scoring() {
    // The `match_round` examples are a match's rounds, and its boards,
    // points, table, winners and share line in `match_over` are what
    // `mazerace_protocol::matches` makes of their results.
    use mazerace_protocol::matches::{Match, MatchSettings, Plan, Rounds};
    let (_, server) = blocks();
    let doc = server.iter().find(|b| type_of(b) == "match_over").expect("a match_over example");
    let doc: Value = serde_json::from_str(doc).unwrap();
    let rounds: Vec<Value> = (server.iter().filter(|b| type_of(b) == "match_round"))
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    assert_eq!(rounds.len(), 3, "the match's three rounds");
    let settings = MatchSettings { rounds: Rounds::try_from(3).unwrap(), plan: Plan::Same };
    let seed = |v: &Value| v.as_str().unwrap().parse::<u64>().unwrap();
    let (first, secret) = (seed(&rounds[0]["seed"]), seed(&doc["seed"]));
    let mut m = Match::new(settings, mazerace_protocol::Size::Easy, first, secret);
    for round in &rounds {
        m.begin();
        m.record(
            serde_json::from_value(round["rankings"].clone()).unwrap(),
            mazerace_protocol::messages::RankBy::Time,
        );
        let mut want = serde_json::to_value(m.rounds.last().unwrap()).unwrap();
        want["type"] = Value::from("match_round");
        assert_eq!(*round, want);
    }
    let mut want = serde_json::to_value(m.over()).unwrap();
    want["type"] = Value::from("match_over");
    assert_eq!(doc, want);
    for round in m.rounds {
        let b = mazerace_protocol::Board::build(round.board.size, round.board.seed.0).unwrap();
        let best = b.best().unwrap();
        for l in round.rankings.iter().filter(|l| l.rank.is_some()) {
            assert_eq!(l.efficiency, Some(mazerace_protocol::play::efficiency(best, l.steps)), "{l:?}");
        }
    }
}
