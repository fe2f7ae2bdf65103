//! A room's updates against an audience, on the real server: a join/leave
//! loop from one address (issue 24, item 5: 30 spectator connections did
//! 5,670 cycles in 10 s and each racer got 11,340 `room` messages) and a
//! room of hundreds of spectators (item 6: every `room` carried every
//! member, so its broadcasts grew with the square of the room and the
//! racers were closed as too slow).

use std::time::Instant;

use futures_util::future::join_all;
use mazerace_server::Config;
use mazerace_tests::serde_json::{json, Value};
use mazerace_tests::{test_config, Client, TestServer};
use tokio::sync::oneshot;

/// The room a client is shown, and how many `room` messages (and bytes)
/// it read, until `stop` fires.
async fn count_rooms(mut c: Client, stop: oneshot::Receiver<()>) -> (Client, usize, usize) {
    let (mut rooms, mut bytes) = (0, 0);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return (c, rooms, bytes),
            t = c.next_text_untimed() => {
                let t = t.expect("a racer is never closed because of spectators");
                if t.starts_with(r#"{"type":"room""#) {
                    rooms += 1;
                    bytes += t.len();
                }
            }
        }
    }
}

/// Joins `code` (with the invite `key` when given) and leaves again, over
/// and over, until the server refuses (or 300 times); returns how many
/// joins got in and the refusal (`null`: none came).
async fn join_leave_loop(mut c: Client, code: String, key: Option<String>) -> (usize, Value) {
    let mut joins = 0;
    while joins < 300 {
        let mut m = json!({"type": "join_room", "code": code, "spectate": true});
        if let Some(k) = &key {
            m["key"] = json!(k);
        }
        c.send(m).await;
        // The connection answers the `ping` once the join is done: an
        // error before the `pong` is the join's.
        c.send(json!({"type": "ping"})).await;
        let mut refused = None;
        loop {
            let v = c.recv().await;
            match v["type"].as_str() {
                Some("error") => refused = Some(v),
                Some("pong") => break,
                _ => {}
            }
        }
        if let Some(e) = refused {
            return (joins, e);
        }
        joins += 1;
        c.send(json!({"type": "leave_room"})).await;
    }
    (joins, Value::Null)
}

#[tokio::test]
async fn a_join_leave_loop_from_one_address_is_refused_and_costs_the_members_a_few_rooms_a_second() {
    let srv = TestServer::start().await;
    let cfg = Config::default();
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "maze", "size": "easy"})).await;
    let (code, key) = (room["code"].as_str().unwrap().to_owned(), room["key"].as_str().unwrap().to_owned());
    let mut bob = srv.player("Bob").await;
    bob.join(&code).await;
    ann.recv_room_until(|r| r["players"].as_array().unwrap().len() == 2).await;
    let mut loopers = Vec::new();
    for i in 0..30 {
        loopers.push(srv.player(&format!("spec{i}")).await);
    }

    let (stop, stopped) = oneshot::channel();
    let counting = tokio::spawn(count_rooms(ann, stopped));
    let t0 = Instant::now();
    // Half of them with the invite link's key: a link is no way around it.
    let outcomes = join_all(
        loopers
            .into_iter()
            .enumerate()
            .map(|(i, c)| join_leave_loop(c, code.clone(), (i % 2 == 0).then(|| key.clone()))),
    )
    .await;
    let took = t0.elapsed();
    // Every looper's last leave reached the room before its refused join
    // was answered, so a change Bob makes now comes after them all.
    bob.send(json!({"type": "ready", "ready": true})).await;
    let bob_id = bob.id;
    let last = bob
        .recv_room_until(|r| {
            r["players"].as_array().unwrap().iter().any(|p| p["id"] == bob_id && p["ready"] == true)
        })
        .await;
    let settled = t0.elapsed();
    stop.send(()).unwrap();
    let (ann, rooms, bytes) = counting.await.unwrap();

    // Bob's join came out of the same address's budget.
    let joins: usize = 1 + outcomes.iter().map(|(n, _)| n).sum::<usize>();
    for (_, refusal) in &outcomes {
        assert_eq!(refusal["code"], "joins_too_fast", "{refusal}");
        assert_eq!(refusal["message"], "you are joining rooms too fast; wait a few seconds");
    }
    // The budget: a burst of 40, one more a second.
    let budget = cfg.room_joins as usize + took.as_secs() as usize + 1;
    assert!(joins <= budget, "{joins} joins in {took:?} from one address (budget {budget})");
    assert!(joins >= cfg.room_joins as usize, "the burst is let in: {joins}");
    // Each join and each leave was a `room` to Ann before (2 x joins); now
    // at most one a window (250 ms), and the first at once.
    let most = (settled.as_millis() / 250) as usize + 2;
    assert!(rooms <= most, "Ann read {rooms} rooms ({bytes} bytes) in {settled:?}; at most {most}");
    assert!(rooms < 2 * joins, "coalesced: {rooms} rooms for {joins} joins and as many leaves");
    assert_eq!(last["players"].as_array().unwrap().len(), 2, "{last}");
    drop(ann);
    srv.stop().await;
}

#[tokio::test]
async fn hundreds_of_spectators_never_reset_the_racers_and_each_room_stays_small() {
    const SPECTATORS: usize = 600;
    let cfg = Config {
        max_spectators: SPECTATORS as u32,
        // Each racer may fall this far behind before being closed (4002):
        // before, the racers got one `room` per join, each listing everyone.
        outbox_capacity: 128,
        max_sessions_per_address: 10_000,
        max_conns_per_addr: 0,
        // The join budget has its own test (above).
        room_joins: 100_000,
        ..test_config()
    };
    let srv = TestServer::with_config(cfg).await;
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "maze", "size": "easy", "seed": "3"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    let mut bob = srv.player("Bob").await;
    bob.join(&code).await;
    ann.recv_room_until(|r| r["players"].as_array().unwrap().len() == 2).await;

    // Ann and Bob read nothing from here on until the audience is in; each
    // spectator reads only its own join's answer.
    let mut audience = Vec::with_capacity(SPECTATORS);
    for i in 0..SPECTATORS {
        let mut s = srv.player(&format!("watcher{i}")).await;
        s.send(json!({"type": "join_room", "code": code, "spectate": true})).await;
        let mine = s.recv_type("room").await;
        assert!(mine["players"].as_array().unwrap().len() <= 2 + 8, "{mine}");
        audience.push(s);
    }

    // The racers were not dropped: they read on, to the room with everyone.
    let full = SPECTATORS as u64 - 8;
    let (mut rooms, mut largest) = (0, 0);
    loop {
        let t = ann.recv_text().await;
        if !t.starts_with(r#"{"type":"room""#) {
            continue;
        }
        rooms += 1;
        largest = largest.max(t.len());
        let r: Value = mazerace_tests::serde_json::from_str(&t).unwrap();
        if r["more_spectators"] == full {
            let listed = r["players"].as_array().unwrap();
            assert_eq!(listed.len(), 2 + 8, "the racers and eight spectators by name");
            assert_eq!(listed.iter().filter(|p| p["spectator"] == true).count(), 8);
            break;
        }
    }
    assert!(largest < 2048, "a room of {largest} bytes with {SPECTATORS} spectators");
    assert!(rooms < SPECTATORS / 4, "{rooms} rooms to Ann while {SPECTATORS} joined: coalesced");

    // And everyone, racers and audience, sees the race start.
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    bob.recv_type("race_start").await;
    for s in &mut audience {
        s.recv_type("race_start").await;
    }
    srv.stop().await;
}
