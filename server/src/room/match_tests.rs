//! The room's match phase without sockets or tasks, time as an argument:
//! rounds, the intermission, hold and go, ties, a match of 10 rounds, the
//! settings and the secret match seed; the helpers the member tests
//! (`match_member_tests.rs`: joins, leaves, drops, the host, rivals) share.

use std::time::Duration;

use mazerace_protocol::matches::{MatchSettings, MatchView, Plan, Rounds};
use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, RoomInfo, ServerMsg};
use mazerace_protocol::{Action, Size};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::matches::MAX_HOLD;
use super::state::Room;
use super::tests::{fx, room, settled};

pub(super) const S: Duration = Duration::from_secs(1);

pub(super) fn settings(rounds: u32, plan: Plan) -> MatchSettings {
    MatchSettings { rounds: Rounds::try_from(rounds).unwrap(), plan }
}

/// A room of `n` set to play a match of `rounds` on `plan`.
pub(super) fn match_room(n: PlayerId, rounds: u32, plan: Plan) -> Room {
    let mut r = room(n);
    r.handle(Instant::now(), Input::SetMatch { id: 1, format: Some(settings(rounds, plan)), seed: 42 });
    fx(&mut r);
    r
}

/// What member `id` is sent, in order.
pub(super) fn to(e: &[Effect], id: PlayerId) -> Vec<&ServerMsg> {
    e.iter()
        .filter_map(|x| match x {
            Effect::To(p, m) if *p == id => Some(m),
            Effect::All(m) => Some(m),
            Effect::AllBut(p, m) if *p != id => Some(m),
            _ => None,
        })
        .collect()
}

pub(super) fn refusal(e: &[Effect], id: PlayerId) -> Option<ErrorCode> {
    to(e, id).iter().find_map(|m| if let ServerMsg::Error { code, .. } = m { Some(*code) } else { None })
}

pub(super) fn last_room(e: &[Effect]) -> RoomInfo {
    to(e, 0)
        .iter()
        .rev()
        .find_map(|m| if let ServerMsg::Room(i) = m { Some(i.clone()) } else { None })
        .unwrap()
}

pub(super) fn standings(r: &Room) -> MatchView {
    *r.room_info().standings.expect("a match is on")
}

/// A table line as (player, points, points per round, left).
pub(super) type Line = (PlayerId, u32, Vec<Option<u32>>, bool);

/// The match table, in its order.
pub(super) fn table(r: &Room) -> Vec<Line> {
    standings(r).lines.into_iter().map(|l| (l.player_id, l.points, l.rounds, l.left)).collect()
}

pub(super) fn line(r: &Room) -> Vec<Action> {
    r.settings.board.answer().solution().to_vec()
}

/// Member `id` plays the room's board's solution at `at`.
pub(super) fn solve(r: &mut Room, id: PlayerId, at: Instant) {
    for (seq, a) in line(r).into_iter().enumerate() {
        r.handle(at, Input::Act { id, seq: seq as u32, action: a, at });
    }
}

/// The countdown from `from` (its 3 steps), its effects dropped: returns
/// the start signal.
pub(super) fn count_down(r: &mut Room, from: Instant) -> Instant {
    for s in 1..=3 {
        r.handle(from + s * S, Input::Tick);
    }
    assert_eq!(r.phase(), Phase::Racing);
    fx(r);
    from + 3 * S
}

/// A whole round from its start signal: `finish` in that order, a second
/// apart, and the others give up. Returns the time of the results.
pub(super) fn round(r: &mut Room, start: Instant, finish: &[PlayerId], quit: &[PlayerId]) -> Instant {
    let mut t = start;
    for &id in finish {
        t += S;
        solve(r, id, t);
    }
    for &id in quit {
        r.handle(t, Input::GiveUp { id });
    }
    t
}

/// The whole intermission from `from`, tick by tick: the seconds it sent
/// and when the next round's countdown began.
pub(super) fn intermission(r: &mut Room, from: Instant) -> (Vec<u32>, Instant) {
    let mut seconds = Vec::new();
    let mut t = from;
    while r.phase() == Phase::Intermission {
        t = r.next_wake().expect("the intermission is timed");
        assert!(t - from <= 10 * S, "at most the intermission");
        r.handle(t, Input::Tick);
        for m in to(&fx(r), 0) {
            if let ServerMsg::Intermission { seconds: Some(s), .. } = m {
                seconds.push(*s);
            }
        }
    }
    (seconds, t)
}

#[test]
fn a_match_of_three_rounds_goes_from_countdown_to_podium_with_no_click_between_rounds() {
    let mut r = match_room(3, 3, Plan::Alternate);
    assert_eq!(r.room_info().format, Some(settings(3, Plan::Alternate)));
    assert!(r.room_info().standings.is_none(), "no match before the start");
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    assert_eq!(standings(&r).round, 1);
    let mut start = count_down(&mut r, t0);
    let mut seeds = Vec::new();
    for k in 1..=3u32 {
        seeds.push((r.settings.size, r.settings.board.seed()));
        let end = round(&mut r, start, &[2, 1], &[3]);
        let e = fx(&mut r);
        let msgs = to(&e, 3);
        let results = msgs.iter().position(|m| matches!(m, ServerMsg::Results { .. })).expect("results");
        // The round's points follow its results, once.
        let ServerMsg::MatchRound(scored) = msgs[results + 1] else { panic!("{:?}", &msgs[results..]) };
        assert_eq!((scored.round, scored.rankings.len(), scored.scores.len()), (k, 3, 3));
        assert_eq!(msgs.iter().filter(|m| matches!(m, ServerMsg::MatchRound(_))).count(), 1);
        if k < 3 {
            assert_eq!(r.phase(), Phase::Intermission);
            assert!(
                matches!(msgs[results + 2], ServerMsg::Intermission { round, seconds: Some(10), held: false } if *round == k + 1),
                "the intermission follows the results: {:?}",
                &msgs[results..]
            );
            let (secs, next) = intermission(&mut r, end);
            assert_eq!(secs, (1..=9).rev().collect::<Vec<u32>>(), "one a second on the server's clock");
            assert_eq!(next, end + 10 * S);
            assert_eq!(r.phase(), Phase::Countdown, "the next round starts by itself");
            start = count_down(&mut r, next);
        } else {
            assert_eq!(r.phase(), Phase::Results, "over after the last round");
            let Some(ServerMsg::MatchOver(over)) = msgs.last() else { panic!("match_over last: {msgs:?}") };
            assert_eq!(over.winners, [2]);
            assert_eq!(over.played, 3);
            assert_eq!(over.lines[0].player_id, 2);
            assert_eq!(
                over.share,
                "mazerace match - 3 rounds, alternate - #1 p2 9 pts - #2 p1 6 pts - #3 p3 0 pts"
            );
        }
    }
    assert_eq!(
        seeds.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        [Size::Easy, Size::Small, Size::Easy],
        "alternating games, one tier"
    );
    let m = settings(3, Plan::Alternate);
    for (k, (size, seed)) in seeds.into_iter().enumerate() {
        assert_eq!(
            m.board(Size::Easy, 42, 42, k as u32 + 1).seed.0,
            seed,
            "round {} from the match's seed",
            k + 1
        );
        assert_eq!(m.board(Size::Easy, 42, 42, k as u32 + 1).size, size);
    }
    assert_eq!(table(&r)[0], (2, 9, vec![Some(3); 3], false));
    let info = r.room_info();
    assert_eq!((info.tally.len(), info.tally[0].player_id, info.tally[0].wins), (1, 2, 1));
    assert!(standings(&r).over);
}

#[test]
fn the_host_holds_an_intermission_once_for_at_most_five_minutes_and_can_start_the_round_at_once() {
    let mut r = match_room(2, 3, Plan::Same);
    let t0 = Instant::now();
    r.handle(t0, Input::Hold { id: 1 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase), "no hold in the lobby");
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    let end = round(&mut r, start, &[1, 2], &[]);
    fx(&mut r);
    r.handle(end, Input::Hold { id: 2 });
    assert_eq!(refusal(&fx(&mut r), 2), Some(ErrorCode::NotHost));
    r.handle(end, Input::Rematch { id: 1, same_board: false, seed: 5, match_seed: 6 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase), "no rematch during a match");
    r.handle(end + S / 2, Input::Hold { id: 1 });
    let e = fx(&mut r);
    assert!(to(&e, 2)
        .iter()
        .any(|m| matches!(m, ServerMsg::Intermission { round: 2, seconds: None, held: true })));
    assert!(last_room(&e).standings.unwrap().held, "the room says it is held");
    assert_eq!(r.next_wake(), Some(end + S / 2 + MAX_HOLD), "nothing is due until the bound");
    r.handle(end + 60 * S, Input::Tick);
    assert!(fx(&mut r).is_empty() && r.phase() == Phase::Intermission);
    r.handle(end + 60 * S, Input::Hold { id: 1 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase), "once per intermission");
    // The bound: the countdown starts over, and it cannot be held again.
    let out = end + S / 2 + MAX_HOLD;
    r.handle(out, Input::Tick);
    let e = fx(&mut r);
    assert!(to(&e, 2)
        .iter()
        .any(|m| matches!(m, ServerMsg::Intermission { seconds: Some(10), held: false, .. })));
    assert!(!last_room(&e).standings.unwrap().held);
    let (_, next) = intermission(&mut r, out);
    assert_eq!(next, out + 10 * S);
    let start = count_down(&mut r, next);
    // Round 2's intermission: the host starts round 3 at once.
    let end = round(&mut r, start, &[2, 1], &[]);
    fx(&mut r);
    r.handle(end, Input::NextRound { id: 2 });
    assert_eq!(refusal(&fx(&mut r), 2), Some(ErrorCode::NotHost));
    r.handle(end + S, Input::NextRound { id: 1 });
    assert_eq!(r.phase(), Phase::Countdown);
    assert_eq!(standings(&r).round, 3);
    r.handle(end + S, Input::NextRound { id: 1 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase), "only in an intermission");
}

#[test]
fn equal_finishes_share_points_and_the_match_win() {
    let mut r = match_room(2, 3, Plan::Same);
    let mut t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    for _ in 0..3 {
        let start = count_down(&mut r, t);
        t = start + 5 * S;
        solve(&mut r, 1, t);
        solve(&mut r, 2, t);
        r.handle(t, Input::NextRound { id: 1 });
    }
    assert_eq!(table(&r), [(1, 3, vec![Some(1); 3], false), (2, 3, vec![Some(1); 3], false)]);
    let ranks: Vec<u32> = standings(&r).lines.iter().map(|l| l.rank).collect();
    assert_eq!(ranks, [1, 1]);
    let tally: Vec<_> = r.room_info().tally.iter().map(|l| (l.player_id, l.wins)).collect();
    assert_eq!(tally, [(1, 1), (2, 1)], "a shared win counts for both");
}

#[test]
fn a_match_of_ten_rounds_gets_harder_and_every_round_is_its_seeds() {
    let mut r = match_room(2, 10, Plan::Harder);
    assert_eq!(r.settings.size, Size::Easy, "the lobby shows round 1's board");
    let mut t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    let mut sizes = Vec::new();
    for _ in 0..10 {
        let start = count_down(&mut r, t);
        sizes.push(r.settings.size);
        t = round(&mut r, start, &[2, 1], &[]);
        if r.phase() == Phase::Intermission {
            t = intermission(&mut r, t).1;
        }
    }
    use Size::*;
    assert_eq!(sizes, [Easy, Easy, Easy, Easy, Normal, Normal, Normal, Hard, Hard, Hard]);
    assert_eq!(r.phase(), Phase::Results);
    let view = standings(&r);
    assert!(view.over && view.round == 10 && view.boards.len() == 10);
    assert_eq!(table(&r)[0], (2, 20, vec![Some(2); 10], false));
    assert_eq!(view.boards[9], settings(10, Plan::Harder).board(Size::Easy, 42, 42, 10));
}

#[test]
fn set_match_is_for_the_host_in_the_lobby_and_never_for_a_daily_room() {
    let mut r = room(2);
    let m = Some(settings(5, Plan::Harder));
    r.handle(Instant::now(), Input::SetMatch { id: 2, format: m, seed: 42 });
    assert_eq!(refusal(&fx(&mut r), 2), Some(ErrorCode::NotHost));
    let t = Instant::now();
    r.handle(t, Input::SetMatch { id: 1, format: m, seed: 42 });
    let e = settled(&mut r, t);
    assert_eq!(last_room(&e).format, m);
    assert_eq!(last_room(&e).size, Size::Easy);
    let t = t + S;
    r.handle(t, Input::SetMatch { id: 1, format: None, seed: 42 });
    assert_eq!(last_room(&settled(&mut r, t)).format, None, "back to single races");
    let t = t + S;
    r.handle(t, Input::Start { id: 1 });
    r.handle(t, Input::SetMatch { id: 1, format: m, seed: 42 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase));
    assert!(r.room_info().standings.is_none(), "a single race has no table");

    let mut daily = super::tests::daily_room();
    daily.handle(t, Input::SetMatch { id: 1, format: m, seed: 42 });
    assert_eq!(refusal(&fx(&mut daily), 1), Some(ErrorCode::DailyMatch));
}

#[test]
fn the_match_seed_reaches_nobody_before_the_match_is_over() {
    const SECRET: u64 = 987_654_321_987_654_321;
    let mut r = room(2);
    let mut told: Vec<ServerMsg> = Vec::new();
    let mut keep = |r: &mut Room| {
        let e = fx(r);
        told.extend(to(&e, 2).into_iter().cloned());
    };
    let mut t = Instant::now();
    r.handle(t, Input::SetMatch { id: 1, format: Some(settings(3, Plan::Same)), seed: SECRET });
    r.handle(t, Input::Start { id: 1 });
    for _ in 0..3 {
        while r.phase() != Phase::Racing {
            t = r.next_wake().unwrap();
            r.handle(t, Input::Tick);
            keep(&mut r);
        }
        t = round(&mut r, t, &[1, 2], &[]);
        r.handle(t, Input::Disconnected { id: 2 });
        r.handle(t, Input::Connected { id: 2 }); // a snapshot too
        keep(&mut r);
    }
    let over = told.iter().position(|m| matches!(m, ServerMsg::MatchOver(_))).expect("match_over");
    let secret = SECRET.to_string();
    assert!(told.iter().filter(|m| matches!(m, ServerMsg::RaceStart { .. })).count() == 3);
    for m in &told[..over] {
        assert!(!serde_json::to_string(m).unwrap().contains(&secret), "the match seed leaked in {m:?}");
    }
    assert!(serde_json::to_string(&told[over]).unwrap().contains(&format!("\"seed\":\"{secret}\"")));
}

#[test]
fn an_intermission_of_zero_goes_straight_to_the_next_round() {
    let mut r = match_room(2, 3, Plan::Same);
    r.timings.intermission_secs = 0;
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    let end = round(&mut r, start, &[1, 2], &[]);
    let e = fx(&mut r);
    assert!(!to(&e, 1).iter().any(|m| matches!(m, ServerMsg::Intermission { .. })), "nothing to count down");
    assert_eq!(r.next_wake(), Some(end), "due at once");
    r.handle(end, Input::Tick);
    assert_eq!(r.phase(), Phase::Countdown);
    assert_eq!(standings(&r).round, 2);
}
