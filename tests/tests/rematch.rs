//! Rematch: host only, after results, a new random board, back to the lobby
//! with ready flags cleared.

use mazerace_tests::serde_json::json;
use mazerace_tests::{solution, start_race, Size, TestServer};

#[tokio::test]
async fn rematch_gives_a_new_board_in_the_same_room() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (_, line) = solution(Size::Easy, 21);
    let spec = json!({"game": "maze", "size": "easy", "seed": "21"});
    let (code, board) = start_race(&mut ann, &mut [&mut bob], spec).await;

    ann.send(json!({"type": "rematch"})).await;
    assert_eq!(ann.recv_type("error").await["code"], "wrong_phase", "no rematch mid-race");

    bob.send(json!({"type": "ready", "ready": true})).await;
    assert_eq!(bob.recv_type("error").await["code"], "wrong_phase", "ready is for the lobby");

    ann.play(&line, 1).await;
    bob.play(&line, 1).await;
    bob.recv_type("results").await;

    bob.send(json!({"type": "rematch"})).await;
    assert_eq!(bob.recv_type("error").await["code"], "not_host");

    ann.send(json!({"type": "rematch"})).await;
    let lobby = bob.recv_room_until(|r| r["phase"] == "lobby").await;
    assert_eq!(lobby["code"], code);
    assert!(lobby["players"].as_array().unwrap().iter().all(|p| p["ready"] == false));

    ann.send(json!({"type": "start"})).await;
    let rs = bob.recv_type("race_start").await;
    assert_eq!(rs["board"]["size"], "easy");
    assert_ne!(rs["board"]["seed"], board["seed"], "a new random seed");
    assert_ne!(rs["board"]["passages"], board["passages"]);
    srv.stop().await;
}
