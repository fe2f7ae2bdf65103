//! Issue 34: no message the room builds may be larger than a socket can
//! take. An honest match of 64 players and 10 rounds once sent a
//! `match_over` one frame over the write limit, and every member was
//! dropped (1006) at the end of round 10. This plays the largest room the
//! server allows, through the state machine, and measures every message
//! it sends (each serialised as the actor would) against
//! [`max_frame_bytes`]: 64 racers and 3 rivals, every name 24 characters of
//! 4 bytes each, the spectators' cap, a 10-round match on the hard maze in
//! which 63 of the 64 leave after every round for 63 newcomers who score (so
//! the table's players grow to 631), a tally past its cap, and the resumes
//! and mid-race snapshots that repeat it all.

use std::collections::BTreeMap;
use std::sync::Arc;

use mazerace_protocol::matches::{TallyLine, MAX_TABLE_LINES};
use mazerace_protocol::messages::{Phase, PlayerId, ServerMsg};
use mazerace_protocol::{Action, Board, Size};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::match_tests::{intermission, settings, S};
use super::rival_run::MAX_RIVALS;
use super::state::Room;
use super::tests::{fx, settings_on, timings};
use super::RoomSettings;
use crate::config::{max_frame_bytes, Config, MAX_PLAYERS_CAP, WRITE_BUFFER_MAX};
use crate::daily::RivalRun;
use crate::names::MAX_NAME_CHARS;
use crate::outbox::frame;

/// The widest name allowed: [`MAX_NAME_CHARS`] characters of 4 bytes
/// each, told apart by their last one.
fn widest_name(id: PlayerId) -> Arc<str> {
    let last = char::from_u32(0x1F600 + id % 64).unwrap_or('😀');
    let mut name: String = std::iter::repeat_n('𝕏', MAX_NAME_CHARS - 1).collect();
    name.push(last);
    assert_eq!(name.len(), 4 * MAX_NAME_CHARS);
    name.into()
}

/// The largest messages seen, by type, in bytes.
#[derive(Default)]
struct Sizes {
    largest: BTreeMap<String, usize>,
}

impl Sizes {
    fn see(&mut self, msg: &ServerMsg) {
        let f = frame(msg);
        let kind = serde_json::to_value(msg).ok().and_then(|v| v["type"].as_str().map(str::to_owned));
        let e = self.largest.entry(kind.unwrap_or_default()).or_default();
        *e = (*e).max(f.len());
    }

    fn take(&mut self, r: &mut Room) {
        for e in fx(r) {
            match e {
                Effect::To(_, m) | Effect::All(m) | Effect::AllBut(_, m) => self.see(&m),
                Effect::Progress { delta, .. } => self.see(&delta),
                _ => {}
            }
        }
        // What a member with an unsent `progress` gets instead of a delta.
        let full = r.full_progress();
        if !full.is_empty() {
            self.see(&ServerMsg::Progress { players: full });
        }
    }
}

fn solution(b: &Board) -> Vec<Action> {
    b.answer().solution().to_vec()
}

/// A rival: the board's best line, stored under the widest name.
fn rival(b: &Board, run_id: i64) -> RivalRun {
    let actions = solution(b);
    RivalRun {
        run_id,
        date: "2026-11-30".parse().unwrap(),
        game: b.game(),
        size: b.size(),
        seed: b.seed(),
        name: widest_name(run_id as PlayerId).to_string(),
        steps: actions.len() as u32,
        time_ms: 100 * (actions.len() as u64 - 1),
        times_ms: Some((0..actions.len() as u64).map(|i| i * 100).collect()),
        actions,
    }
}

fn join(r: &mut Room, at: Instant, id: PlayerId, spectate: bool) {
    let max_spectators = Config::default().max_spectators;
    r.check_join(id, spectate, max_spectators).expect("the room takes them");
    let input =
        Input::Join { id, name: widest_name(id), token: format!("t{id}").into(), spectate, screen: false };
    r.handle(at, input);
}

#[test]
fn the_largest_rooms_largest_message_fits_the_socket() {
    let limit = max_frame_bytes(WRITE_BUFFER_MAX);
    let b = Board::build(Size::Hard, 42).unwrap();
    let room_settings = RoomSettings { max_players: MAX_PLAYERS_CAP, ..settings_on(b.clone()) };
    let host = (1, widest_name(1), "t1".into());
    let mut r = Room::new("ABCDE".into(), room_settings, timings(), host);
    let mut sizes = Sizes::default();
    let t0 = Instant::now();
    r.handle(t0, Input::SetMatch { id: 1, format: Some(settings(10, Default::default())), seed: 42 });
    let racers = MAX_PLAYERS_CAP;
    for id in 2..=racers {
        join(&mut r, t0, id, false);
    }
    let spectators = Config::default().max_spectators;
    for id in 1000..1000 + spectators {
        join(&mut r, t0, id, true);
    }
    for k in 0..MAX_RIVALS as i64 {
        r.handle(t0, Input::RivalLoaded { id: 1, run: Ok(Box::new(rival(&b, 7 + k))) });
    }
    // Matches won before, by players long gone and by everyone here.
    r.tally = (1..=racers)
        .chain(1000..1000 + spectators)
        .chain(5000..5064)
        .map(|id| TallyLine { player_id: id, name: widest_name(id).to_string(), wins: 1 + id % 7 })
        .collect();
    sizes.take(&mut r);

    let mut in_room: Vec<PlayerId> = (1..=racers).collect();
    let mut next_id = 2000;
    let mut t = t0 + S;
    r.handle(t, Input::Start { id: 1 });
    for round in 1..=10u32 {
        // The countdown, then everyone solves the board, a moment apart.
        for s in 1..=3 {
            r.handle(t + s * S, Input::Tick);
            sizes.take(&mut r);
        }
        assert_eq!(r.phase(), Phase::Racing, "round {round}");
        let start = t + 3 * S;
        let line = solution(&r.settings.board);
        for (i, &id) in in_room.iter().enumerate() {
            let at = start + S * (i as u32 + 1);
            for (seq, a) in line.iter().enumerate() {
                r.handle(at, Input::Act { id, seq: seq as u32, action: *a, at });
            }
            sizes.take(&mut r);
            if i == in_room.len() / 2 {
                // A member who resumes mid-race: the snapshot with every racer named.
                r.handle(at, Input::Disconnected { id: 1000 });
                r.handle(at, Input::Connected { id: 1000 });
                sizes.take(&mut r);
            }
        }
        let mut end = start + S * (in_room.len() as u32 + 1);
        // The rivals (round 1) play out their runs on the room's timer.
        while r.phase() == Phase::Racing {
            end = r.next_wake().expect("the race is timed");
            r.handle(end, Input::Tick);
            sizes.take(&mut r);
        }
        if round == 10 {
            break;
        }
        // Everyone but the host leaves, scored; as many newcomers take
        // their places, so the table grows by 63 scoring players a round.
        for id in in_room.drain(1..) {
            r.handle(end, Input::Leave { id, expired: false });
        }
        for _ in 1..racers {
            join(&mut r, end, next_id, false);
            in_room.push(next_id);
            next_id += 1;
        }
        // A spectator who resumes mid-intermission.
        r.handle(end + S, Input::Disconnected { id: 1001 });
        r.handle(end + S, Input::Connected { id: 1001 });
        sizes.take(&mut r);
        let (_, next) = intermission(&mut r, end);
        sizes.take(&mut r);
        t = next;
    }
    assert_eq!(r.phase(), Phase::Results);
    // One who resumes at the podium gets every round again, each on its own.
    r.handle(t + 3600 * S, Input::Disconnected { id: 1002 });
    r.handle(t + 3600 * S, Input::Connected { id: 1002 });
    sizes.take(&mut r);

    // The room really was the largest: 10 rounds, the table over its cap,
    // the first round's results with every racer and rival.
    let m = r.the_match.as_ref().expect("the match");
    assert_eq!(m.rounds.len(), 10);
    assert_eq!(m.rounds[0].rankings.len(), racers as usize + MAX_RIVALS);
    assert!(m.lines().len() > 600, "{} players in the table", m.lines().len());
    let over = m.over();
    assert_eq!(over.lines.len(), MAX_TABLE_LINES);
    assert!(over.lines.iter().any(|l| l.player_id == 1), "the host, still in the room, is in it");
    for kind in ["room", "results", "match_round", "match_over", "snapshot", "progress"] {
        assert!(sizes.largest.contains_key(kind), "no {kind} seen: {:?}", sizes.largest);
    }
    eprintln!("largest message of each type, bytes (limit {limit}): {:?}", sizes.largest);
    for (kind, bytes) in &sizes.largest {
        assert!(*bytes <= limit, "{kind}: {bytes} bytes, over the socket's {limit}");
    }
}
