//! The party screen over the real protocol: a TV makes a party room and is
//! never a racer; phones join through its link, the first is the host and
//! races; the screen is sent the race as a spectator is and refused when it
//! tries to race or host; "show on a big screen" joins an ordinary room as
//! a screen with its key only, never a daily room.

use mazerace_tests::serde_json::{json, Value};
use mazerace_tests::{solution, Size, TestServer};

#[tokio::test]
async fn a_party_room_is_hosted_from_a_phone_and_shown_on_its_screen() {
    let srv = TestServer::start().await;
    let mut tv = srv.player("Screen").await;
    let (_, line) = solution(Size::Easy, 3);
    let room = tv.create(json!({"game": "maze", "size": "easy", "seed": "3", "party": true})).await;
    assert_eq!((&room["party"], &room["screens"], &room["players"]), (&json!(true), &json!(1), &json!([])));
    let (code, key) = (room["code"].as_str().unwrap().to_owned(), room["key"].as_str().unwrap().to_owned());

    // Phones join through the screen's link: the first is the host.
    let mut ann = srv.player("Ann").await;
    ann.send(json!({"type": "join_room", "code": code, "key": key})).await;
    let r = ann.recv_room_with(ann.id).await;
    assert_eq!(r["host"], ann.id, "the first phone in is the VIP");
    let mut bob = srv.player("Bob").await;
    bob.send(json!({"type": "join_room", "code": code, "key": key})).await;
    let r = bob.recv_room_with(bob.id).await;
    let ids: Vec<&Value> = r["players"].as_array().unwrap().iter().map(|p| &p["id"]).collect();
    assert_eq!(ids, [&json!(ann.id), &json!(bob.id)], "the screen is never listed");
    assert_eq!((&r["screens"], &r["host"]), (&json!(1), &json!(ann.id)));

    // The screen cannot join its own room (or another) as a racer.
    tv.send(json!({"type": "join_room", "code": code, "key": key})).await;
    assert_eq!(tv.recv_type("error").await["code"], "already_in_room");
    // The screen may not start, ready or move.
    for m in [json!({"type": "start"}), json!({"type": "ready", "ready": true})] {
        tv.send(m.clone()).await;
        let e = tv.recv_type("error").await;
        assert_eq!(e["code"], "screen", "{m}: {e}");
        assert_eq!(e["message"], "a screen shows the room: it does not race or host");
    }
    ann.send(json!({"type": "start"})).await;
    tv.recv_type("race_start").await;
    tv.send(json!({"type": "move", "dir": "down", "seq": 1})).await;
    assert_eq!(tv.recv_type("error").await["code"], "screen");
    // It sees the race as everyone does.
    ann.recv_type("race_start").await;
    ann.play(&line, 1).await;
    assert_eq!(tv.recv_type("finished").await["player_id"], ann.id);
    bob.recv_type("race_start").await;
    bob.send(json!({"type": "give_up"})).await;
    let res = tv.recv_type("results").await;
    let ranked: Vec<&Value> = res["rankings"].as_array().unwrap().iter().map(|l| &l["player_id"]).collect();
    assert_eq!(ranked, [&json!(ann.id), &json!(bob.id)], "the screen is never ranked");
    srv.stop().await;
}

#[tokio::test]
async fn a_screen_shows_an_ordinary_room_with_its_key_and_never_a_daily_room() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "maze", "size": "easy"})).await;
    let (code, key) = (room["code"].as_str().unwrap().to_owned(), room["key"].as_str().unwrap().to_owned());
    let mut tv = srv.player("Screen").await;
    // Without the key: refused, as the link is what a screen is given.
    tv.send(json!({"type": "join_room", "code": code, "screen": true})).await;
    let e = tv.recv_type("error").await;
    assert_eq!(
        (&e["code"], &e["message"]),
        (&json!("screen"), &json!("a screen joins with the room's link (its key)"))
    );
    // A wrong key is a failed join like any other.
    tv.send(json!({"type": "join_room", "code": code, "key": "0000000000000000", "screen": true})).await;
    assert_eq!(tv.recv_type("error").await["code"], "room_not_found");
    tv.send(json!({"type": "join_room", "code": code, "key": key, "screen": true})).await;
    let r = ann.recv_room_until(|r| r["screens"] == 1).await;
    assert_eq!(r["players"].as_array().unwrap().len(), 1, "not listed, not a spectator");
    assert!(r.get("more_spectators").is_none());
    assert_eq!(r["host"], ann.id);
    // A party room is never a daily room.
    let mut dee = srv.player("Dee").await;
    dee.send(json!({"type": "create_room", "game": "maze", "size": "easy", "daily": true, "party": true}))
        .await;
    let e = dee.recv_type("error").await;
    assert_eq!(e["code"], "screen", "{e}");
    srv.stop().await;
}

/// After a restart its rooms are gone: the TV and the phones each ask for
/// the lost room again (`replaces`, its code and key). Whoever asks first
/// makes it; the TV is put in as its screen, the phones as players, so the
/// evening goes on in one room.
#[tokio::test]
async fn after_a_restart_the_screen_and_the_phones_meet_in_the_lost_rooms_replacement() {
    let srv = TestServer::start().await;
    let lost = json!({"code": "K7M2Q", "key": "3f9a0c1d5e7b2a64"});
    // A phone asks first: it makes the room and hosts it.
    let mut ann = srv.player("Ann").await;
    let made = ann.create(json!({"game": "maze", "size": "easy", "replaces": lost})).await;
    assert_eq!(made["host"], ann.id);
    // The TV asks with the same lost room: it is put in as the screen.
    let mut tv = srv.player("Screen").await;
    tv.send(json!({"type": "create_room", "game": "maze", "size": "easy", "party": true, "replaces": lost}))
        .await;
    let r = tv.recv_type("room").await;
    assert_eq!((&r["code"], &r["screens"], &r["host"]), (&made["code"], &json!(1), &json!(ann.id)));
    assert_eq!(r["players"].as_array().unwrap().len(), 1, "the screen is not a player");
    // The other way round: the TV first makes a party room, a phone joins it.
    let lost = json!({"code": "P3XQ9", "key": "00112233aabbccdd"});
    let mut tv2 = srv.player("Screen").await;
    let party = tv2.create(json!({"game": "maze", "size": "easy", "party": true, "replaces": lost})).await;
    assert_eq!((&party["party"], &party["screens"]), (&json!(true), &json!(1)));
    let mut bob = srv.player("Bob").await;
    bob.send(json!({"type": "create_room", "game": "maze", "size": "easy", "replaces": lost})).await;
    let r = bob.recv_room_with(bob.id).await;
    assert_eq!((&r["code"], &r["host"]), (&party["code"], &json!(bob.id)), "the first phone in hosts");
    srv.stop().await;
}
