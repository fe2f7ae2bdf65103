//! Each finding of this fuzzer, pinned as a plain test (the failing cases
//! themselves are kept in `tests/proptest-regressions/fuzz_room.txt`).

use crate::*;

/// Finding 1: a close from the client was never answered. tungstenite
/// queues the echo of the peer's close frame but refuses the server's own
/// close after it, so the socket was dropped with the echo unsent and the
/// client saw a reset (`ResetWithoutClosingHandshake`; a browser, 1006 and
/// `wasClean: false`) instead of the closing handshake.
#[tokio::test]
async fn a_close_from_the_client_is_answered_with_its_echo() {
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    let srv = TestServer::start().await;
    for code in [None, Some(1000u16), Some(4321)] {
        let mut c = srv.player("Ann").await;
        let frame = code.map(|c| CloseFrame { code: c.into(), reason: "bye".into() });
        c.ws.send(Message::Close(frame)).await.expect("send close");
        let echo = tokio::time::timeout(RECV_TIMEOUT, c.ws.next()).await.expect("an answer in time");
        match echo {
            Some(Ok(Message::Close(got))) => {
                assert_eq!(got.map(|f| u16::from(f.code)), code, "the echo carries the client's code");
            }
            other => panic!("close {code:?} answered with {other:?}, not a close frame"),
        }
    }
    srv.stop().await;
}

/// Finding 3: a racer who finished, left and came back as a spectator was
/// still answered as a racer (`move_result` with `game_over`); spectators
/// get `not_racing`, as for everyone watching.
#[tokio::test]
async fn a_finisher_back_as_a_spectator_is_not_racing() {
    use mazerace_tests::{solution, start_race};
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (_, line) = solution(Size::Easy, 5);
    let spec = mazerace_tests::serde_json::json!({"game": "maze", "size": "easy", "seed": "5"});
    let (code, _) = start_race(&mut ann, &mut [&mut bob], spec).await;
    bob.play(&line, 1).await;
    bob.recv_type("finished").await;
    bob.send_text(r#"{"type":"leave_room"}"#).await;
    bob.send_text(&format!(r#"{{"type":"join_room","code":"{code}","spectate":true}}"#)).await;
    let room = bob.recv_room_with(bob.id).await;
    let me = room["players"].as_array().unwrap().iter().find(|p| p["id"] == bob.id).unwrap().clone();
    assert_eq!(me["spectator"], true, "{room}");
    bob.recv_type("snapshot").await;
    bob.send_text(r#"{"type":"move","dir":"up","seq":99}"#).await;
    let answer = bob.recv_direct().await;
    assert_eq!(answer["type"], "error", "a spectator's move: {answer}");
    assert_eq!(answer["code"], "not_racing");
    // The finish still stands in the results.
    ann.send_text(r#"{"type":"leave_room"}"#).await;
    let results = bob.recv_type("results").await;
    assert_eq!(results["rankings"][0]["player_id"], bob.id);
    assert_eq!(results["rankings"][0]["status"], "finished");
    srv.stop().await;
}
