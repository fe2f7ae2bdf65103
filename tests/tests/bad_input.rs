//! Every kind of bad input gets a clear `error` (or a close with a code and
//! a reason) and disturbs nobody else.

use mazerace_tests::serde_json::json;
use mazerace_tests::{Client, TestServer};
use tokio_tungstenite::tungstenite::Message;

async fn error_of(c: &mut Client, text: &str) -> mazerace_tests::serde_json::Value {
    c.send_text(text).await;
    let e = c.recv().await;
    assert_eq!(e["type"], "error", "{text} -> {e}");
    e
}

#[tokio::test]
async fn malformed_unknown_and_incomplete_messages() {
    let srv = TestServer::start().await;
    let mut c = srv.player("Ann").await;
    let not_json = r#"that is not a message: send one JSON object, like {"type":"ping"}"#;
    for (text, said) in [
        ("not json", not_json),
        ("{\"type\":\"move\",\"dir\":\"up\"", not_json),
        ("[1,2,3]", not_json),
        ("{\"type\":\"move\",\"dir\":5,\"seq\":1}", "a value is of the wrong kind: expected text"),
        ("{\"no_type\":1}", r#"a message needs a "type", like {"type":"ping"}"#),
        ("{\"type\":\"teleport\",\"to\":[5,5]}", r#""teleport" is not a message this server knows"#),
        ("{\"type\":\"move\",\"dir\":\"up\"}", r#"this message needs its "seq""#),
        (
            "{\"type\":\"move\",\"dir\":\"sideways\",\"seq\":1}",
            r#""sideways" is not allowed here: one of up, down, left, right"#,
        ),
        (
            "{\"type\":\"move\",\"dir\":\"up\",\"seq\":\"one\"}",
            "a value is of the wrong kind: expected a whole number",
        ),
        ("{\"type\":\"hello\"}", r#"this message needs its "name""#),
        ("{\"type\":\"ready\",\"ready\":true,\"extra\":1}", r#""extra" is not part of this message"#),
        // Messages without fields refuse extra ones too (they were let through).
        ("{\"type\":\"ping\",\"x\":1}", r#""x" is not part of this message"#),
        ("{\"type\":\"start\",\"x\":1}", r#""x" is not part of this message"#),
        ("{\"type\":\"leave_room\",\"x\":1}", r#""x" is not part of this message"#),
        ("{\"type\":\"give_up\",\"x\":1}", r#""x" is not part of this message"#),
        // Our own refusals are sentences already.
        ("{\"type\":\"set_match\",\"match\":{\"rounds\":4}}", "a match has 3, 5 or 10 rounds, not 4"),
    ] {
        let e = error_of(&mut c, text).await;
        assert_eq!(e["code"], "bad_message", "{text}");
        assert_eq!(e["message"], said, "{text}: a sentence for a person, no library wording");
    }
    let e = error_of(&mut c, r#"{"type":"create_room","game":"maze","size":"easy","seed":"12ab"}"#).await;
    assert_eq!(e["code"], "bad_seed");
    let e = error_of(
        &mut c,
        r#"{"type":"create_room","game":"maze","size":"easy","seed":"99999999999999999999"}"#,
    )
    .await;
    assert_eq!(e["code"], "bad_seed");
    // A date that is no day is refused where it comes in, on both messages that take one.
    for text in [
        r#"{"type":"leaderboard","game":"maze","size":"easy","date":"2026-02-30"}"#,
        r#"{"type":"league_board","code":"K7M2QX9P","game":"maze","size":"easy","date":"2026-02-30"}"#,
    ] {
        let e = error_of(&mut c, text).await;
        assert_eq!(e["code"], "bad_date", "{text}: {e}");
    }
    // Still alive and well.
    c.send(json!({"type": "ping"})).await;
    assert_eq!(c.recv().await, json!({"type": "pong"}));
    srv.stop().await;
}

#[tokio::test]
async fn binary_frames_are_refused() {
    let srv = TestServer::start().await;
    let mut c = srv.player("Ann").await;
    c.send_msg(Message::binary(vec![1u8, 2, 3])).await;
    let e = c.recv().await;
    assert_eq!(e["code"], "binary_frame");
    c.send(json!({"type": "ping"})).await;
    assert_eq!(c.recv().await["type"], "pong");
    srv.stop().await;
}

#[tokio::test]
async fn a_frame_over_the_limit_closes_with_1009() {
    let srv = TestServer::start().await;
    let mut c = srv.player("Ann").await;
    let mut other = srv.player("Bob").await;
    let big = format!(r#"{{"type":"hello","name":"{}"}}"#, "x".repeat(5000));
    c.send_text(&big).await;
    let (code, reason) = c.expect_close().await;
    assert_eq!(code, 1009);
    assert!(reason.contains("4096"), "{reason}");
    // Exactly at the limit is fine.
    let pad = 4096 - r#"{"type":"hello","name":""}"#.len();
    let edge = format!(r#"{{"type":"hello","name":"{}"}}"#, "y".repeat(pad));
    assert_eq!(edge.len(), 4096);
    let mut edgy = srv.connect().await;
    edgy.send_text(&edge).await;
    assert_eq!(edgy.recv().await["code"], "bad_name", "read and answered, not closed");
    // Nobody else noticed.
    other.send(json!({"type": "ping"})).await;
    assert_eq!(other.recv().await["type"], "pong");
    srv.stop().await;
}

#[tokio::test]
async fn everything_but_hello_before_hello() {
    let srv = TestServer::start().await;
    let mut c = srv.connect().await;
    for m in [
        json!({"type": "create_room", "game": "maze", "size": "easy"}),
        json!({"type": "join_room", "code": "ABCDE"}),
        json!({"type": "move", "dir": "up", "seq": 1}),
        json!({"type": "start"}),
    ] {
        c.send(m.clone()).await;
        let e = c.recv().await;
        assert_eq!(e["code"], "hello_first", "{m}");
    }
    // ping is fine before hello.
    c.send(json!({"type": "ping"})).await;
    assert_eq!(c.recv().await["type"], "pong");
    c.hello("Ann").await;
    c.send(json!({"type": "hello", "name": "Ann"})).await;
    let e = c.recv().await;
    assert_eq!(e, json!({"type": "error", "code": "hello_first", "message": "you already said hello"}));
    srv.stop().await;
}

#[tokio::test]
async fn bad_names_are_refused_and_markup_is_data() {
    let srv = TestServer::start().await;
    let mut c = srv.connect().await;
    for name in [
        "".to_owned(),
        "   ".to_owned(),
        "x".repeat(25),
        "tab\there".to_owned(),
        "bell\u{7}".to_owned(),
        "new\nline".to_owned(),
        "evil\u{202E}txt.exe".to_owned(),
        "iso\u{2067}late".to_owned(),
    ] {
        c.send(json!({"type": "hello", "name": name})).await;
        let e = c.recv().await;
        assert_eq!(e["code"], "bad_name", "{name:?}: {e}");
    }
    // 24 characters of anything printable is fine; markup is just text.
    let name = "<img src=x onerror=1>&amp";
    let name = &name[..24];
    let w = c.hello(name).await;
    assert_eq!(w["type"], "welcome");
    let room = c.create(json!({"game": "maze", "size": "easy"})).await;
    assert_eq!(room["players"][0]["name"], name, "sent back verbatim, never escaped or stripped");
    srv.stop().await;
}

#[tokio::test]
async fn moves_out_of_place() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    // Not in a room at all.
    ann.send(json!({"type": "move", "dir": "up", "seq": 1})).await;
    assert_eq!(ann.recv().await["code"], "not_in_room");
    ann.send(json!({"type": "rewind", "seq": 2})).await;
    assert_eq!(ann.recv().await["code"], "not_in_room");
    // In the lobby.
    ann.create(json!({"game": "ghost", "size": "small"})).await;
    ann.send(json!({"type": "move", "dir": "up", "seq": 3})).await;
    let e = ann.recv().await;
    assert_eq!(e, json!({"type": "error", "code": "not_racing", "message": "no race is on"}));
    // A rewind in a maze is refused by the rules.
    ann.send(json!({"type": "leave_room"})).await;
    ann.create(json!({"game": "maze", "size": "easy"})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.send(json!({"type": "rewind", "seq": 4})).await;
    let r = ann.recv_type("rewind_result").await;
    assert_eq!(r["ok"], false);
    assert_eq!(r["reason"], "no_rewind");
    ann.send(json!({"type": "start"})).await;
    assert_eq!(ann.recv_type("error").await["code"], "wrong_phase");
    srv.stop().await;
}

#[tokio::test]
async fn unknown_rooms() {
    let srv = TestServer::start().await;
    let mut c = srv.player("Ann").await;
    for code in ["ZZZZZ", "0O1IL", "toolongcode", ""] {
        c.send(json!({"type": "join_room", "code": code})).await;
        let e = c.recv().await;
        assert_eq!(e["code"], "room_not_found", "{code}");
    }
    srv.stop().await;
}

#[tokio::test]
async fn daily_without_a_store_is_not_configured() {
    let srv = TestServer::start().await;
    let mut c = srv.player("Ann").await;
    c.send(json!({"type": "create_room", "game": "ghost", "size": "small", "daily": true})).await;
    assert_eq!(
        c.recv().await,
        json!({"type": "error", "code": "internal", "message": "daily challenge is not configured"})
    );
    c.send(json!({"type": "leaderboard", "game": "maze", "size": "easy"})).await;
    assert_eq!(c.recv().await["message"], "daily challenge is not configured");
    c.send(json!({"type": "create_room", "game": "ghost", "size": "small", "daily": true, "seed": "4"}))
        .await;
    assert_eq!(c.recv().await["code"], "bad_size");
    srv.stop().await;
}
