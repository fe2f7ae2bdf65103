//! A room's move to another node as the state machine sees it: what a room
//! exports (and when it may not), and the room made again from it, with
//! new ids everywhere the old ones were (members, host, match, tally).

use mazerace_protocol::matches::{Plan, TallyLine};
use mazerace_protocol::messages::{Phase, PlayerId};
use mazerace_store::PlayerKey;
use tokio::time::Instant;

use super::export::{RoomExport, Seat};
use super::input::Input;
use super::match_tests::{count_down, intermission, match_room, round};
use super::state::Room;
use super::tests::{fx, room, timings};

/// The room `x` describes, adopted as room BCDEF with player ids from
/// `first` on, and its seats.
fn adopt(x: RoomExport, first: PlayerId) -> (Room, Vec<Seat>) {
    let mut next = first;
    let (a, seats) = x
        .adoption(
            || {
                next += 1;
                next - 1
            },
            "ffeeddccbbaa9988".into(),
        )
        .expect("a consistent export");
    let room = Room::adopted("BCDEF".into(), a.settings, timings(), a.members, a.host, a.last_match, a.tally);
    (room, seats)
}

#[test]
fn a_lobby_exports_its_members_by_token_hash_and_a_race_does_not_move() {
    let mut r = room(3);
    let x = r.export().expect("a lobby moves");
    let keys: Vec<&str> = x.members.iter().map(|m| m.key.as_str()).collect();
    let want: Vec<String> =
        ["t1", "t2", "t3"].iter().map(|t| PlayerKey::from_token(t).as_str().to_owned()).collect();
    assert_eq!(keys, want, "the token's hash, never the token");
    assert!(!serde_json::to_string(&x).unwrap().contains("\"t1\""), "no token in the payload");
    assert_eq!((x.host, x.members[1].name.as_str(), x.max_players), (0, "p2", 8));
    r.handle(Instant::now(), Input::Start { id: 1 });
    assert_eq!(r.phase(), Phase::Countdown);
    assert!(r.export().is_none(), "a race under way stays until it is over");
}

#[test]
fn an_adopted_room_has_the_same_members_host_and_match_under_new_ids() {
    // A match of 3 over: player 1 won every round (2 raced too).
    let mut r = match_room(2, 3, Plan::Same);
    let mut at = Instant::now();
    r.handle(at, Input::Start { id: 1 });
    for _ in 0..3 {
        let start = count_down(&mut r, at);
        at = round(&mut r, start, &[1], &[2]);
        if r.phase() == Phase::Intermission {
            at = intermission(&mut r, at).1;
        }
    }
    fx(&mut r);
    assert_eq!(r.phase(), Phase::Results, "the match is over");
    let x = r.export().expect("a room in its results moves");
    assert_eq!(x.tally, vec![TallyLine { player_id: 1, name: "p1".into(), wins: 1 }]);
    assert_eq!(x.seed, r.settings.board.seed(), "the same board");
    let (mut moved, seats) = adopt(x, 101);
    let claims: Vec<(PlayerId, &str)> = seats.iter().map(|s| (s.id, s.key.as_str())).collect();
    assert_eq!(
        claims,
        [(101, PlayerKey::from_token("t1").as_str()), (102, PlayerKey::from_token("t2").as_str())]
    );
    assert_eq!(moved.settings.board.seed(), r.settings.board.seed());
    let info = moved.room_info();
    assert_eq!((info.host, info.phase), (101, Phase::Lobby));
    let seated: Vec<(u32, &str, bool)> =
        info.players.iter().map(|p| (p.id, p.name.as_str(), p.connected)).collect();
    assert_eq!(seated, [(101, "p1", false), (102, "p2", false)], "seats wait for their players");
    assert_eq!(info.tally[0].player_id, 101);
    let lines = info.standings.expect("the last match").lines;
    assert_eq!(
        lines.iter().map(|l| l.player_id).collect::<Vec<_>>(),
        [101, 102],
        "the table under the new ids"
    );
    // A claimed seat gets its token (what a daily or a rival needs), then connects.
    moved.claimed(102, "t2".into());
    moved.handle(at, Input::Connected { id: 102 });
    assert!(moved.room_info().players.iter().any(|p| p.id == 102 && p.connected));
    assert_eq!(moved.export().unwrap().members[1].key, PlayerKey::from_token("t2").as_str());
}

#[test]
fn a_match_between_two_rounds_moves_with_its_score_and_plays_on_from_the_host_s_start() {
    // Round 1 of 3 over, player 1 first: the intermission is on.
    let mut r = match_room(2, 3, Plan::Same);
    let at = Instant::now();
    r.handle(at, Input::Start { id: 1 });
    let start = count_down(&mut r, at);
    let at = round(&mut r, start, &[1, 2], &[]);
    fx(&mut r);
    assert_eq!(r.phase(), Phase::Intermission);
    let before = r.room_info().standings.expect("a match under way");
    let x = r.export().expect("a match between two rounds moves");
    let (mut moved, _) = adopt(x, 201);
    let kept = moved.room_info().standings.expect("the match moved with the room");
    assert_eq!((kept.round, kept.over), (1, false));
    let points =
        |v: &mazerace_protocol::matches::MatchView| v.lines.iter().map(|l| l.points).collect::<Vec<_>>();
    assert_eq!(points(&kept), points(&before), "the score as it stood");
    for (id, token) in [(201, "t1"), (202, "t2")] {
        moved.claimed(id, token.into());
        moved.handle(at, Input::Connected { id });
    }
    // The host's Start plays round 2 of the same match, not a new match.
    moved.handle(at, Input::Start { id: 201 });
    assert_eq!(moved.phase(), Phase::Countdown);
    let on = moved.room_info().standings.expect("still the match");
    assert_eq!(on.round, 2, "round 2 under way");
    assert_eq!(points(&on), points(&before), "nothing scored again or lost");
}
