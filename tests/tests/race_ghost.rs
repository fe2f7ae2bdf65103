//! A two-player Ghost race to a ranked result: one racer plays the solver's
//! optimal line (run one, rewind, run two), the other wanders until out of
//! steps. Progress, `finished`, `results` and the reveal are checked.

use mazerace_protocol::games::ghost::{VaultAnswer, VaultReveal};
use mazerace_protocol::messages::ServerMsg;
use mazerace_protocol::Answer;
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{dir_str, free_first_step, solution, solvable_ghost_seed, start_race, Size, TestServer};

#[tokio::test]
async fn ghost_race_solver_line_wins_and_wanderer_runs_out() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let seed = solvable_ghost_seed(Size::Small, 1);
    let (board, line) = solution(Size::Small, seed);
    let Answer::Ghost(VaultAnswer { true_par: Some(true_par), .. }) = board.answer() else {
        panic!("solvable")
    };
    assert_eq!(line.len() as u32, true_par + 1, "the line holds one rewind");

    let spec = json!({"game": "ghost", "size": "small", "seed": seed.to_string()});
    let (_code, wire_board) = start_race(&mut ann, &mut [&mut bob], spec).await;
    // race_start carries the public board, exactly, and no answers.
    assert_eq!(wire_board, serde_json::to_value(board.public()).unwrap());
    for hidden in ["true_par", "l", "solution", "shortest"] {
        assert!(wire_board.get(hidden).is_none(), "{hidden} leaked");
    }

    // Ann plays the optimal line; every action is accepted.
    let results = ann.play(&line, 1).await;
    assert!(results.iter().all(|r| r["ok"] == true), "{results:?}");
    let rewind = results.iter().find(|r| r["type"] == "rewind_result").expect("a rewind");
    assert_eq!(rewind["run"], 2);
    let last = results.last().unwrap();
    assert_eq!(last["status"], "won");
    assert_eq!(last["steps"], true_par);

    let fin = ann.recv_type("finished").await;
    assert_eq!(fin["player_id"], ann.id);
    assert_eq!(fin["steps"], true_par);
    assert_eq!(fin["rank"], 1);
    let time_ms = fin["time_ms"].as_u64().unwrap();

    // Bob sees Ann finish, and her progress on the way.
    let seen = bob.recv_type("finished").await;
    assert_eq!(seen, fin);

    // A move after finishing is answered, refused, and changes nothing.
    let after = ann.mv("up", 999).await;
    assert_eq!(after["ok"], false);
    assert_eq!(after["reason"], "game_over");
    assert_eq!(after["steps"], true_par);

    // Bob walks back and forth until the allowance is spent.
    let d = free_first_step(&board);
    let back = mazerace_tests::Dir::ALL.into_iter().find(|x| x.opposite() == d).unwrap();
    let allowance = wire_board["allowance"].as_u64().unwrap() as u32;
    let mut last = Value::Null;
    for i in 0..allowance {
        let dir = if i % 2 == 0 { d } else { back };
        last = bob.mv(dir_str(dir), 100 + i).await;
        assert_eq!(last["ok"], true, "{last}");
    }
    assert_eq!(last["status"], "out_of_steps");
    assert_eq!(last["steps_left"], 0);

    // Nobody is racing: results for both, with the reveal.
    let res = bob.recv_type("results").await;
    // The race is over: a move now is not a move in a race.
    bob.send(json!({"type": "move", "dir": dir_str(d), "seq": 1000})).await;
    assert_eq!(bob.recv_type("error").await["code"], "not_racing");
    assert_eq!(ann.recv_type("results").await, res);
    let rankings = res["rankings"].as_array().unwrap();
    assert_eq!(
        rankings[0],
        json!({"rank": 1, "player_id": ann.id, "name": "Ann", "status": "finished",
               "steps": true_par, "time_ms": time_ms, "efficiency": 100})
    );
    assert_eq!(
        rankings[1],
        json!({"player_id": bob.id, "name": "Bob", "status": "out_of_steps", "steps": allowance})
    );
    let reveal: ServerMsg = serde_json::from_value(res.clone()).unwrap();
    let ServerMsg::Results { reveal, .. } = reveal else { panic!() };
    let expect = mazerace_protocol::messages::Reveal::Ghost(VaultReveal {
        par: wire_board["par"].as_u64().unwrap() as u32,
        true_par: Some(true_par),
        solution: line.clone(),
    });
    assert_eq!(reveal, expect);
    srv.stop().await;
}

#[tokio::test]
async fn progress_is_coalesced_carries_only_movers_and_skips_the_mover() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (board, line) = solution(Size::Easy, 42);
    let spec = json!({"game": "maze", "size": "easy", "seed": "42"});
    start_race(&mut ann, &mut [&mut bob], spec).await;
    // Ann fires her first ten moves without waiting for answers.
    let burst = &line[..10];
    for (i, a) in burst.iter().enumerate() {
        ann.send(json!({"type": "move", "dir": a.as_str(), "seq": i + 1})).await;
    }
    let mut g = mazerace_protocol::PlayerGame::new(&board);
    for a in burst {
        g.apply(*a).unwrap();
    }
    let target = serde_json::to_value(g.pos()).unwrap();
    let mut count = 0;
    loop {
        let p = bob.recv_type("progress").await;
        count += 1;
        let players = p["players"].as_array().unwrap();
        assert!(players.iter().all(|x| x["id"] == ann.id), "only Ann moved: {p}");
        assert!(players[0].get("run").is_none(), "maze progress has no run");
        if players[0]["pos"] == target {
            assert_eq!(players[0]["steps"], 10);
            assert_eq!(players[0]["status"], "racing");
            break;
        }
    }
    assert!(count <= 4, "ten quick moves came as {count} progress messages");
    // Ann is not sent her own moves back: her move_results said it all.
    // Every progress Bob has seen was queued to Ann too before Bob got it,
    // so it would arrive ahead of the pong to a ping sent now.
    ann.send(json!({"type": "ping"})).await;
    loop {
        let v = ann.recv().await;
        assert_ne!(v["type"], "progress", "Ann's own moves came back to her: {v}");
        if v["type"] == "pong" {
            break;
        }
    }
    srv.stop().await;
}
