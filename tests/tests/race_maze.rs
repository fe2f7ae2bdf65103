//! A Maze race played with the solver's move list, to ranked results, and
//! the two ranking rules: by time (default) and by steps, ties on steps
//! broken by time. Who finishes first is controlled by waiting for their
//! `finished` before the other starts moving.

use mazerace_tests::serde_json::json;
use mazerace_tests::{free_first_step, solution, start_race, Action, Client, Size, TestServer};

/// The solver's line with a detour at the start: one step out and back.
fn detour_line(board: &mazerace_tests::Board, line: &[Action]) -> Vec<Action> {
    let d = free_first_step(board);
    let mut out = vec![Action::Move(d), Action::Move(d.opposite())];
    out.extend_from_slice(line);
    out
}

async fn finish(c: &mut Client, line: &[Action]) -> u64 {
    let rs = c.play(line, 1).await;
    assert!(rs.iter().all(|r| r["ok"] == true));
    assert_eq!(rs.last().unwrap()["status"], "won");
    let f = c.recv_type("finished").await;
    assert_eq!(f["player_id"], c.id);
    f["time_ms"].as_u64().unwrap()
}

#[tokio::test]
async fn maze_race_with_the_solver_line_is_ranked() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (board, line) = solution(Size::Normal, 2024);
    let shortest = board.best().unwrap();
    assert_eq!(line.len() as u32, shortest);
    let spec = json!({"game": "maze", "size": "normal", "seed": "2024"});
    let (_, wire) = start_race(&mut ann, &mut [&mut bob], spec).await;
    assert_eq!(wire["game"], "maze");
    assert_eq!(wire["seed"], "2024", "seeds travel as decimal strings");
    assert!(wire.get("shortest").is_none() && wire.get("solution").is_none());

    // A blocked move is refused and not counted.
    let blocked = ["up", "left"]; // off the board from [0,0]
    for (i, d) in blocked.iter().enumerate() {
        let r = ann.mv(d, 1000 + i as u32).await;
        assert_eq!(
            r,
            json!({"type": "move_result", "seq": 1000 + i, "ok": false, "reason": "wall",
                             "pos": [0, 0], "steps": 0, "status": "playing"})
        );
    }
    let t_ann = finish(&mut ann, &line).await;
    let t_bob = finish(&mut bob, &line).await;
    assert!(t_ann <= t_bob);

    let res = ann.recv_type("results").await;
    let r = res["rankings"].as_array().unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!((r[0]["player_id"].as_u64(), r[0]["rank"].as_u64()), (Some(ann.id as u64), Some(1)));
    assert_eq!(r[0]["efficiency"], 100);
    assert_eq!(r[1]["player_id"], bob.id);
    assert_eq!(r[1]["steps"], shortest);
    assert_eq!(res["reveal"]["game"], "maze");
    assert_eq!(res["reveal"]["shortest"], shortest);
    assert_eq!(res["reveal"]["solution"].as_array().unwrap().len() as u32, shortest);
    srv.stop().await;
}

/// Bob finishes first with two extra steps; Ann later with the shortest
/// route. Returns (results, ann, bob).
async fn detour_race(rank_by: &str) -> (mazerace_tests::serde_json::Value, u32, u32, Vec<u64>) {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (board, line) = solution(Size::Easy, 77);
    let spec = json!({"game": "maze", "size": "easy", "seed": "77", "rank_by": rank_by});
    start_race(&mut ann, &mut [&mut bob], spec).await;
    let fb = {
        let rs = bob.play(&detour_line(&board, &line), 1).await;
        assert_eq!(rs.last().unwrap()["status"], "won");
        bob.recv_type("finished").await
    };
    // Ann has seen Bob finish before she moves at all.
    assert_eq!(ann.recv_type("finished").await, fb);
    ann.play(&line, 1).await;
    let fa = ann.recv_type("finished").await;
    let res = ann.recv_type("results").await;
    let ranks = vec![fb["rank"].as_u64().unwrap(), fa["rank"].as_u64().unwrap()];
    let ids = (ann.id, bob.id);
    srv.stop().await;
    (res, ids.0, ids.1, ranks)
}

#[tokio::test]
async fn rank_by_time_puts_the_first_finisher_first() {
    let (res, ann, bob, finished_ranks) = detour_race("time").await;
    let r = res["rankings"].as_array().unwrap();
    assert_eq!(r[0]["player_id"], bob);
    assert_eq!(r[0]["rank"], 1);
    assert_eq!(r[1]["player_id"], ann);
    assert_eq!(r[1]["rank"], 2);
    assert_eq!(finished_ranks, vec![1, 2]);
    assert!(r[0]["time_ms"].as_u64() <= r[1]["time_ms"].as_u64());
    assert!(r[0]["steps"].as_u64() > r[1]["steps"].as_u64());
    assert!(r[0]["efficiency"].as_u64() < Some(100));
}

#[tokio::test]
async fn rank_by_steps_puts_the_shortest_route_first() {
    let (res, ann, bob, finished_ranks) = detour_race("steps").await;
    let r = res["rankings"].as_array().unwrap();
    assert_eq!(r[0]["player_id"], ann);
    assert_eq!(r[0]["rank"], 1);
    assert_eq!(r[0]["efficiency"], 100);
    assert_eq!(r[1]["player_id"], bob);
    assert_eq!(r[1]["rank"], 2);
    // `finished` ranks are provisional under steps: Bob led until Ann came in.
    assert_eq!(finished_ranks, vec![1, 1]);
}

#[tokio::test]
async fn equal_steps_are_broken_by_time() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (_, line) = solution(Size::Easy, 5);
    let spec = json!({"game": "maze", "size": "easy", "seed": "5", "rank_by": "steps"});
    start_race(&mut ann, &mut [&mut bob], spec).await;
    let t_bob = finish(&mut bob, &line).await;
    ann.recv_type("finished").await;
    let t_ann = finish(&mut ann, &line).await;
    assert!(t_bob <= t_ann);
    let res = bob.recv_type("results").await;
    let r = res["rankings"].as_array().unwrap();
    assert_eq!(r[0]["player_id"], bob.id);
    assert_eq!(r[1]["player_id"], ann.id);
    assert_eq!(r[0]["steps"], r[1]["steps"]);
    // Equal steps, and Bob was earlier (or they tie exactly and share).
    if t_bob < t_ann {
        assert_eq!((r[0]["rank"].as_u64(), r[1]["rank"].as_u64()), (Some(1), Some(2)));
    } else {
        assert_eq!((r[0]["rank"].as_u64(), r[1]["rank"].as_u64()), (Some(1), Some(1)));
    }
    srv.stop().await;
}

#[tokio::test]
async fn solo_practice_is_a_room_of_one() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let (_, line) = solution(Size::Easy, 9);
    start_race(&mut ann, &mut [], json!({"game": "maze", "size": "easy", "seed": "9"})).await;
    finish(&mut ann, &line).await;
    let res = ann.recv_type("results").await;
    assert_eq!(res["rankings"][0]["rank"], 1);
    srv.stop().await;
}
