//! Matches on the real server: a match of 3 rounds from the first countdown
//! to the podium with no message from anyone between rounds; a player who
//! drops mid-match, misses a round and comes back with their points; a
//! player who joins mid-match, watches, and races from the next round on 0.
//! The table the server sends is checked against the protocol crate's own
//! scoring of the `results` each client saw, as exact JSON.

use mazerace_protocol::matches::{Match, MatchSettings, Plan, Rounds};
use mazerace_protocol::messages::{RankBy, Ranking};
use mazerace_protocol::{Board, Size};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{solution, Client, TestServer};

/// A room seed whose first board of `plan` from `base` can be won (the
/// later ones are the server's secret until the end: the test checks them
/// as they come).
fn winnable(settings: MatchSettings, base: Size) -> u64 {
    (1..500)
        .find(|&seed| {
            let b = settings.board(base, seed, 0, 1);
            Board::build(b.size, b.seed.0).ok().and_then(|b| b.best()).is_some()
        })
        .expect("a winnable first round")
}

fn settings(rounds: u32, plan: Plan) -> MatchSettings {
    MatchSettings { rounds: Rounds::try_from(rounds).unwrap(), plan }
}

/// The next `race_start`, and every message but `progress` before it.
async fn until_race_start(c: &mut Client) -> (Value, Vec<Value>) {
    let mut seen = Vec::new();
    loop {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("race_start") => return (v, seen),
            Some("progress") => {}
            _ => seen.push(v),
        }
    }
}

/// Plays the board of `race_start` to its goal; returns its `finished`.
async fn win(c: &mut Client, race_start: &Value) -> Value {
    let size: Size = serde_json::from_value(race_start["board"]["size"].clone()).unwrap();
    let seed: u64 = race_start["board"]["seed"].as_str().unwrap().parse().unwrap();
    let (_, line) = solution(size, seed);
    let played = c.play(&line, 1).await;
    assert_eq!(played.last().unwrap()["status"], "won");
    c.recv_type("finished").await
}

/// The `rankings` of the next `results`, as the protocol's type.
async fn results(c: &mut Client) -> Vec<Ranking> {
    serde_json::from_value(c.recv_type("results").await["rankings"].clone()).unwrap()
}

#[tokio::test]
async fn a_match_of_three_rounds_plays_from_countdown_to_podium_with_no_message_between_rounds() {
    let srv = TestServer::start().await;
    let mut p = [srv.player("Ann").await, srv.player("Bob").await, srv.player("Cat").await];
    let m = settings(3, Plan::Alternate);
    let seed = winnable(m, Size::Easy);
    let spec = json!({"game": "maze", "size": "easy", "seed": seed.to_string(), "match": m});
    let room = p[0].create(spec).await;
    assert_eq!(room["match"], json!({"rounds": 3, "plan": "alternate"}));
    let code = room["code"].as_str().unwrap().to_owned();
    p[1].join(&code).await;
    p[2].join(&code).await;

    p[0].send(json!({"type": "start"})).await;
    // The protocol's own scoring of the results as they come (the match's
    // seed is the server's secret until the end: the table does not need it).
    let mut local = Match::new(m, Size::Easy, seed, 0);
    local.begin();
    let (mut boards, mut played) = (Vec::new(), Vec::new());
    // Cat's race_start of the round (she reads between the rounds).
    let mut cats = until_race_start(&mut p[2]).await.0;
    // Round winners: Ann, Bob, Ann; the others give up.
    for (k, winner) in [0usize, 1, 0].into_iter().enumerate() {
        let round = k as u32 + 1;
        // Everyone races the round: the same board, no click asked of them.
        let (rs, _) = until_race_start(&mut p[0]).await;
        assert_eq!(until_race_start(&mut p[1]).await.0, rs, "round {round}");
        assert_eq!(cats, rs, "round {round}");
        boards.push(rs["board"].clone());
        win(&mut p[winner], &rs).await;
        for (_, c) in p.iter_mut().enumerate().filter(|(i, _)| *i != winner) {
            c.send(json!({"type": "give_up"})).await;
        }
        if round == 3 {
            played.push(results(&mut p[2]).await);
            break;
        }
        // Results, then the intermission counted down on the server's
        // clock, and nobody sends a thing until the next race_start.
        let (next, between) = until_race_start(&mut p[2]).await;
        cats = next;
        let done = between.iter().position(|v| v["type"] == "results").expect("results");
        played.push(serde_json::from_value(between[done]["rankings"].clone()).unwrap());
        local.record(played[k].clone(), RankBy::Time);
        let ticks: Vec<&Value> = between.iter().filter(|v| v["type"] == "intermission").collect();
        let want: Vec<Value> = (1..=10)
            .rev()
            .map(|s| json!({"type": "intermission", "round": round + 1, "seconds": s}))
            .collect();
        assert_eq!(ticks, want.iter().collect::<Vec<_>>(), "10, 9, ... 1 between round {round} and the next");
        // The round's points follow its results, then the intermission.
        // (Its board follows from the match's seed, checked at the end.)
        let scored = &between[done + 1];
        let mine = serde_json::to_value(local.rounds.last().unwrap()).unwrap();
        assert_eq!(scored["type"], "match_round");
        for field in ["round", "rankings", "scores"] {
            assert_eq!(scored[field], mine[field], "match_round's {field}: the protocol's scoring");
        }
        assert_eq!(scored["seed"], boards[k]["seed"], "the round's own board");
        assert_eq!(between[done + 2], want[0], "the intermission follows the round's points");
        let shown = between[..done].iter().rev().find(|v| v["type"] == "room").unwrap();
        assert_eq!(shown["phase"], "intermission");
        let lines = serde_json::to_value(local.lines()).unwrap();
        assert_eq!(shown["standings"]["lines"], lines, "the table, exactly");
        assert_eq!(shown["standings"]["round"], round);
        local.begin();
    }
    // The podium: match_over is exactly the protocol's scoring of the
    // results, and every round's board follows from the seed it reveals.
    let over = p[2].recv_type("match_over").await;
    let secret: u64 = over["seed"].as_str().unwrap().parse().unwrap();
    let mut whole = Match::new(m, Size::Easy, seed, secret);
    for (k, rankings) in played.into_iter().enumerate() {
        whole.begin();
        let b = whole.board(k as u32 + 1);
        let built = Board::build(b.size, b.seed.0).unwrap();
        assert_eq!(boards[k], serde_json::to_value(built.public()).unwrap(), "round {}'s board", k + 1);
        whole.record(rankings, RankBy::Time);
    }
    let mut want = serde_json::to_value(whole.over()).unwrap();
    want["type"] = json!("match_over");
    assert_eq!(over, want);
    assert_eq!(boards[0]["seed"], seed.to_string(), "round 1 is the room's seed");
    assert_eq!(over["winners"], json!([p[0].id]));
    let points: Vec<&Value> = over["lines"].as_array().unwrap().iter().map(|l| &l["points"]).collect();
    assert_eq!(points, [&json!(6), &json!(3), &json!(0)], "a round won among three is 3 points");
    let sizes: Vec<&Value> = boards.iter().map(|b| &b["size"]).collect();
    assert_eq!(sizes, [&json!("easy"), &json!("small"), &json!("easy")], "maze, ghost, maze");
    let room = p[0].recv_room_until(|r| r["phase"] == "results").await;
    assert_eq!(room["tally"], json!([{"player_id": p[0].id, "name": "Ann", "wins": 1}]));
    assert_eq!(room["standings"]["over"], true);

    // Play another match: everyone stays, the settings too, the tally lives
    // on; its first round is counted down from the podium, like the rounds
    // between, and starts with no click.
    p[0].send(json!({"type": "rematch"})).await;
    let next = p[1].recv_room_until(|r| r["phase"] == "intermission").await;
    assert_eq!((next["players"].as_array().unwrap().len(), &next["match"]), (3, &room["match"]));
    assert_eq!((&next["standings"]["round"], &next["standings"]["over"]), (&json!(0), &Value::Null));
    assert_eq!(next["tally"], room["tally"]);
    let tick = p[1].recv_type("intermission").await;
    assert_eq!(tick, json!({"type": "intermission", "round": 1, "seconds": 10}));
    let (rs, between) = until_race_start(&mut p[1]).await;
    assert!(between.iter().all(|m| m["type"] != "error"), "{between:?}");
    assert_eq!(rs["type"], "race_start", "the next match's round 1, with no Start");
    srv.stop().await;
}

/// Everyone but `winner` gives up: the round is over.
async fn others_give_up(p: &mut [Client], winner: usize) {
    for (_, c) in p.iter_mut().enumerate().filter(|(i, _)| *i != winner) {
        c.send(json!({"type": "give_up"})).await;
    }
}

/// A room of `p` playing a match of 3 rounds on easy mazes, started.
async fn a_match_of_three(p: &mut [Client]) -> String {
    let m = settings(3, Plan::Same);
    let seed = winnable(m, Size::Easy);
    let room =
        p[0].create(json!({"game": "maze", "size": "easy", "seed": seed.to_string(), "match": m})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    for c in &mut p[1..] {
        c.join(&code).await;
    }
    p[0].send(json!({"type": "start"})).await;
    code
}

#[tokio::test]
async fn a_player_who_drops_misses_rounds_away_and_resumes_into_the_match_with_their_points() {
    let srv = TestServer::start().await;
    let mut p = vec![srv.player("Ann").await, srv.player("Bob").await, srv.player("Cat").await];
    a_match_of_three(&mut p).await;
    let mut rs = until_race_start(&mut p[1]).await.0;
    for i in [0, 2] {
        assert_eq!(until_race_start(&mut p[i]).await.0, rs);
    }
    win(&mut p[1], &rs).await;
    others_give_up(&mut p, 1).await;
    // Ann holds the intermission, so the drop is seen before round 2.
    p[0].recv_type("intermission").await;
    p[0].send(json!({"type": "hold"})).await;
    p[0].recv_room_until(|r| r["standings"]["held"] == true).await;
    let (bob_id, token) = (p[1].id, p[1].token.clone());
    drop(p.remove(1));
    p[0].recv_room_until(|r| r["players"][1]["connected"] == false).await;
    p[0].send(json!({"type": "next_round"})).await;
    rs = until_race_start(&mut p[0]).await.0;
    assert_eq!(until_race_start(&mut p[1]).await.0, rs);

    // Bob comes back mid-round 2: he watches it, his points kept.
    let mut bob = srv.connect().await;
    bob.send(json!({"type": "hello", "name": "Bob", "token": token})).await;
    assert_eq!(bob.recv().await["resumed"], true);
    bob.id = bob_id;
    let snap = bob.recv().await;
    assert_eq!((&snap["type"], &snap["room"]["phase"]), (&json!("snapshot"), &json!("racing")));
    assert!(snap.get("you").is_none(), "not racing this round");
    let line =
        snap["room"]["standings"]["lines"].as_array().unwrap().iter().find(|l| l["player_id"] == bob_id);
    assert_eq!(line.unwrap()["points"], 3, "his round-1 win");
    bob.send(json!({"type": "move", "dir": "right", "seq": 1})).await;
    assert_eq!(bob.recv_type("error").await["code"], "not_racing");
    win(&mut p[0], &rs).await;
    p[1].send(json!({"type": "give_up"})).await;
    let round2 = results(&mut bob).await;
    assert!(round2.iter().all(|l| l.player_id != bob_id), "he missed round 2");

    // Round 3 he races again, with no click.
    p.insert(1, bob);
    rs = until_race_start(&mut p[1]).await.0;
    win(&mut p[1], &rs).await;
    others_give_up(&mut p, 1).await;
    let over = p[1].recv_type("match_over").await;
    let bob_line = over["lines"].as_array().unwrap().iter().find(|l| l["player_id"] == bob_id).unwrap();
    assert_eq!(bob_line["rounds"], json!([3, null, 3]));
    assert_eq!((&over["lines"][0]["player_id"], &over["winners"]), (&json!(bob_id), &json!([bob_id])));
    srv.stop().await;
}

#[tokio::test]
async fn a_player_who_joins_mid_match_watches_the_round_and_races_from_the_next_on_zero() {
    let srv = TestServer::start().await;
    let mut p = vec![srv.player("Ann").await, srv.player("Bob").await];
    let code = a_match_of_three(&mut p).await;
    let rs = until_race_start(&mut p[0]).await.0;
    assert_eq!(until_race_start(&mut p[1]).await.0, rs);
    let mut dan = srv.player("Dan").await;
    let joined = dan.join(&code).await;
    let me = joined["players"].as_array().unwrap().iter().find(|m| m["id"] == dan.id).unwrap().clone();
    assert_eq!(me["spectator"], true, "watching round 1");
    let snap = dan.recv_type("snapshot").await;
    assert_eq!(snap["board"], rs["board"]);
    let line =
        snap["room"]["standings"]["lines"].as_array().unwrap().iter().find(|l| l["player_id"] == dan.id);
    assert_eq!(line.unwrap()["points"], 0, "in the table on 0 points");
    dan.send(json!({"type": "move", "dir": "right", "seq": 1})).await;
    assert_eq!(dan.recv_type("error").await["code"], "not_racing");
    win(&mut p[0], &rs).await;
    p[1].send(json!({"type": "give_up"})).await;

    let between = dan.recv_room_until(|r| r["phase"] == "intermission").await;
    let me = between["players"].as_array().unwrap().iter().find(|m| m["id"] == dan.id).unwrap().clone();
    assert_eq!(me["spectator"], false, "racing the next round");
    p.push(dan);
    let rs = until_race_start(&mut p[2]).await.0;
    win(&mut p[2], &rs).await;
    others_give_up(&mut p, 2).await;
    let room = p[2].recv_room_until(|r| r["phase"] == "intermission").await;
    let lines = room["standings"]["lines"].as_array().unwrap();
    let dan_line = lines.iter().find(|l| l["player_id"] == p[2].id).unwrap();
    assert_eq!((&dan_line["points"], &dan_line["rounds"]), (&json!(3), &json!([null, 3])));
    srv.stop().await;
}

#[tokio::test]
async fn match_settings_are_the_hosts_in_the_lobby_and_daily_rooms_play_none() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    ann.send(
        json!({"type": "create_room", "game": "maze", "size": "easy", "daily": true, "match": {"rounds": 3}}),
    )
    .await;
    let e = ann.recv_type("error").await;
    assert_eq!(
        e,
        json!({"type": "error", "code": "daily_match", "message": "a daily room plays single races, not matches"})
    );
    ann.send(json!({"type": "create_room", "game": "maze", "size": "easy", "match": {"rounds": 4}})).await;
    let e = ann.recv_type("error").await;
    assert_eq!(e["code"], "bad_message");
    assert!(e["message"].as_str().unwrap().contains("a match has 3, 5 or 10 rounds, not 4"), "{e}");

    let room = ann.create(json!({"game": "ghost", "size": "large"})).await;
    assert!(room.get("match").is_none(), "single races by default");
    bob.join(room["code"].as_str().unwrap()).await;
    bob.send(json!({"type": "set_match", "match": {"rounds": 5, "plan": "harder"}})).await;
    assert_eq!(bob.recv_type("error").await["code"], "not_host");
    ann.send(json!({"type": "set_match", "match": {"rounds": 5, "plan": "harder"}})).await;
    let set = bob.recv_room_until(|r| r.get("match").is_some()).await;
    assert_eq!((&set["match"], &set["size"]), (&json!({"rounds": 5, "plan": "harder"}), &json!("small")));
    ann.send(json!({"type": "hold"})).await;
    assert_eq!(ann.recv_type("error").await["code"], "wrong_phase");
    ann.send(json!({"type": "set_match"})).await;
    let single = bob.recv_room_until(|r| r.get("match").is_none()).await;
    assert_eq!(single["size"], "large", "back to the room's own size");
    srv.stop().await;
}
