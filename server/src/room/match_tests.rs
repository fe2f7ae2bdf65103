//! The room's match phase without sockets or tasks, time as an argument:
//! rounds, the intermission, hold and go, joins and leaves mid-round, ties,
//! a host hand-over, a resume mid-intermission, a match of 10 rounds.

use std::time::Duration;

use mazerace_protocol::matches::{MatchSettings, MatchView, Plan, Rounds};
use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, RacerStatus, RivalPick, RoomInfo, ServerMsg};
use mazerace_protocol::{Action, Answer, Size};
use tokio::time::Instant;

use super::effects::Effect;
use super::matches::MAX_HOLD;
use super::state::{Input, Room};
use super::tests::{fx, room};

const S: Duration = Duration::from_secs(1);

fn settings(rounds: u32, plan: Plan) -> MatchSettings {
    MatchSettings { rounds: Rounds::try_from(rounds).unwrap(), plan }
}

/// A room of `n` set to play a match of `rounds` on `plan`.
fn match_room(n: PlayerId, rounds: u32, plan: Plan) -> Room {
    let mut r = room(n);
    r.handle(Instant::now(), Input::SetMatch { id: 1, format: Some(settings(rounds, plan)), seed: 42 });
    fx(&mut r);
    r
}

/// What member `id` is sent, in order.
fn to(e: &[Effect], id: PlayerId) -> Vec<&ServerMsg> {
    e.iter()
        .filter_map(|x| match x {
            Effect::To(p, m) if *p == id => Some(m),
            Effect::All(m) => Some(m),
            Effect::AllBut(p, m) if *p != id => Some(m),
            _ => None,
        })
        .collect()
}

fn refusal(e: &[Effect], id: PlayerId) -> Option<ErrorCode> {
    to(e, id).iter().find_map(|m| if let ServerMsg::Error { code, .. } = m { Some(*code) } else { None })
}

fn last_room(e: &[Effect]) -> RoomInfo {
    to(e, 0)
        .iter()
        .rev()
        .find_map(|m| if let ServerMsg::Room(i) = m { Some(i.clone()) } else { None })
        .unwrap()
}

fn standings(r: &Room) -> MatchView {
    *r.room_info().standings.expect("a match is on")
}

/// A table line as (player, points, points per round, left).
type Line = (PlayerId, u32, Vec<Option<u32>>, bool);

/// The match table, in its order.
fn table(r: &Room) -> Vec<Line> {
    standings(r).lines.into_iter().map(|l| (l.player_id, l.points, l.rounds, l.left)).collect()
}

fn line(r: &Room) -> Vec<Action> {
    match r.settings.board.answer() {
        Answer::Maze { solution, .. } | Answer::Ghost { solution, .. } => solution,
    }
}

/// Member `id` plays the room's board's solution at `at`.
fn solve(r: &mut Room, id: PlayerId, at: Instant) {
    for (seq, a) in line(r).into_iter().enumerate() {
        r.handle(at, Input::Act { id, seq: seq as u32, action: a });
    }
}

/// The countdown from `from` (its 3 steps), its effects dropped: returns
/// the start signal.
fn count_down(r: &mut Room, from: Instant) -> Instant {
    for s in 1..=3 {
        r.handle(from + s * S, Input::Tick);
    }
    assert_eq!(r.phase(), Phase::Racing);
    fx(r);
    from + 3 * S
}

/// A whole round from its start signal: `finish` in that order, a second
/// apart, and the others give up. Returns the time of the results.
fn round(r: &mut Room, start: Instant, finish: &[PlayerId], quit: &[PlayerId]) -> Instant {
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
fn intermission(r: &mut Room, from: Instant) -> (Vec<u32>, Instant) {
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
        if k < 3 {
            assert_eq!(r.phase(), Phase::Intermission);
            assert!(
                matches!(msgs[results + 1], ServerMsg::Intermission { round, seconds: Some(10), held: false } if *round == k + 1),
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
            assert_eq!(over.rounds.len(), 3);
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
fn a_join_mid_round_watches_it_and_races_the_next_on_zero_points() {
    let mut r = match_room(2, 3, Plan::Same);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    r.handle(start, Input::Join { id: 3, name: "p3".into(), token: "t3".into(), spectate: false });
    let e = fx(&mut r);
    assert!(matches!(to(&e, 3)[..], [ServerMsg::Room(_), ServerMsg::Snapshot(_)]), "a snapshot of the round");
    r.handle(start, Input::Act { id: 3, seq: 0, action: line(&r)[0] });
    assert_eq!(refusal(&fx(&mut r), 3), Some(ErrorCode::NotRacing), "watching this round");
    assert_eq!(table(&r)[2], (3, 0, vec![], false), "in the table at once, on 0 points");
    let end = round(&mut r, start, &[1, 2], &[]);
    assert_eq!(table(&r)[2], (3, 0, vec![None], false), "did not race round 1");
    r.handle(end, Input::NextRound { id: 1 });
    let start = count_down(&mut r, end);
    let end = round(&mut r, start, &[3, 1, 2], &[]);
    assert_eq!(table(&r)[0], (1, 4, vec![Some(2), Some(2)], false));
    assert_eq!(table(&r)[1], (3, 3, vec![None, Some(3)], false), "raced round 2 and won it");
    // A spectator is never in the table.
    r.handle(end, Input::Join { id: 4, name: "p4".into(), token: "t4".into(), spectate: true });
    assert!(table(&r).iter().all(|l| l.0 != 4));
}

#[test]
fn a_leave_mid_round_is_left_in_the_results_and_stays_in_the_table_marked_left() {
    let mut r = match_room(3, 3, Plan::Same);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    let end = round(&mut r, start, &[3, 2, 1], &[]);
    r.handle(end, Input::NextRound { id: 1 });
    let start = count_down(&mut r, end);
    r.handle(start + S, Input::Leave { id: 3, expired: false });
    let end = round(&mut r, start + S, &[1, 2], &[]);
    let e = fx(&mut r);
    let results = to(&e, 1).into_iter().find_map(|m| {
        if let ServerMsg::Results { rankings, .. } = m {
            Some(rankings.clone())
        } else {
            None
        }
    });
    assert_eq!(results.unwrap()[2].status, RacerStatus::Left);
    assert_eq!(table(&r)[2], (3, 3, vec![Some(3), Some(0)], true), "keeps their points, marked left");
    r.handle(end, Input::NextRound { id: 1 });
    assert!(r.round_racers().iter().all(|x| x.id != 3), "gone from the next round");
}

#[test]
fn a_dropped_player_keeps_their_points_misses_rounds_away_and_resumes_mid_intermission() {
    let mut r = match_room(3, 5, Plan::Same);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    let end = round(&mut r, start, &[2, 1, 3], &[]);
    r.handle(end, Input::Disconnected { id: 2 });
    let (_, next) = intermission(&mut r, end);
    assert!(r.round_racers().iter().all(|x| x.id != 2), "away: not in round 2");
    let start = count_down(&mut r, next);
    r.handle(start + S, Input::Connected { id: 2 });
    let e = fx(&mut r);
    let Effect::To(2, ServerMsg::Snapshot(snap)) = &e[0] else { panic!("{e:?}") };
    assert!(snap.you.is_none() && snap.room.standings.is_some(), "watching round 2, with the table");
    let end = round(&mut r, start, &[1, 3], &[]);
    fx(&mut r);
    assert_eq!(table(&r).iter().find(|l| l.0 == 2).unwrap().2, vec![Some(3), None], "points kept");
    // Drop and resume within the intermission: where it stands, to the second.
    r.handle(end + S, Input::Tick);
    r.handle(end + 2 * S, Input::Tick);
    r.handle(end + 2 * S, Input::Disconnected { id: 3 });
    r.handle(end + 2 * S + S / 2, Input::Connected { id: 3 });
    let e = fx(&mut r);
    let got = to(&e, 3);
    let ServerMsg::Snapshot(snap) = got[got.len() - 3] else { panic!("{got:?}") };
    assert_eq!(snap.room.phase, Phase::Intermission);
    assert_eq!(snap.room.standings.as_ref().unwrap().round, 2);
    assert!(matches!(got[got.len() - 2], ServerMsg::Results { .. }), "the last round's results");
    assert!(matches!(got[got.len() - 1], ServerMsg::Intermission { round: 3, seconds: Some(8), .. }));
    let (_, next) = intermission(&mut r, end + 2 * S);
    assert_eq!(next, end + 10 * S, "the resume did not move the clock");
    assert!(r.round_racers().iter().any(|x| x.id == 3), "back: races round 3");
}

#[test]
fn the_host_leaving_hands_over_ends_their_hold_and_the_match_goes_on() {
    let mut r = match_room(3, 3, Plan::Same);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    let end = round(&mut r, start, &[1, 2, 3], &[]);
    r.handle(end, Input::Hold { id: 1 });
    fx(&mut r);
    r.handle(end + 5 * S, Input::Leave { id: 1, expired: false });
    let e = fx(&mut r);
    let info = last_room(&e);
    assert_eq!(info.host, 2);
    assert!(!info.standings.as_ref().unwrap().held, "the hold went with its host");
    assert!(to(&e, 2).iter().any(|m| matches!(m, ServerMsg::Intermission { seconds: Some(10), .. })));
    r.handle(end + 5 * S, Input::NextRound { id: 2 });
    let start = count_down(&mut r, end + 5 * S);
    let end = round(&mut r, start, &[3, 2], &[]);
    r.handle(end, Input::NextRound { id: 2 });
    let start = count_down(&mut r, end);
    round(&mut r, start, &[3, 2], &[]);
    let e = fx(&mut r);
    let Some(ServerMsg::MatchOver(over)) = to(&e, 2).last().copied() else { panic!() };
    assert_eq!(over.winners, [3], "the match went on to its end");
    assert!(table(&r).iter().find(|l| l.0 == 1).unwrap().3, "the old host is in the table, left");
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
fn play_another_match_keeps_everyone_and_the_settings_and_the_tally() {
    let mut r = match_room(2, 3, Plan::Same);
    let mut t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    for _ in 0..3 {
        let start = count_down(&mut r, t);
        t = round(&mut r, start, &[1, 2], &[]);
        r.handle(t, Input::NextRound { id: 1 });
    }
    let over_seed = standings(&r).boards[0].seed.0;
    r.handle(t, Input::Rematch { id: 1, same_board: false, seed: 77, match_seed: 78 });
    let e = fx(&mut r);
    let info = last_room(&e);
    assert_eq!(
        (info.phase, info.format, info.players.len()),
        (Phase::Lobby, Some(settings(3, Plan::Same)), 2)
    );
    assert!(info.standings.is_none(), "a new table with the next match");
    assert_eq!(info.tally[0].wins, 1, "the tally lives as long as the room");
    assert_eq!(r.settings.board.seed(), 77, "a new match's first board");
    r.handle(t, Input::Start { id: 1 });
    assert_eq!(standings(&r).round, 1);
    assert_ne!(over_seed, 77);
}

#[test]
fn set_match_is_for_the_host_in_the_lobby_and_never_for_a_daily_room() {
    let mut r = room(2);
    let m = Some(settings(5, Plan::Harder));
    r.handle(Instant::now(), Input::SetMatch { id: 2, format: m, seed: 42 });
    assert_eq!(refusal(&fx(&mut r), 2), Some(ErrorCode::NotHost));
    r.handle(Instant::now(), Input::SetMatch { id: 1, format: m, seed: 42 });
    let e = fx(&mut r);
    assert_eq!(last_room(&e).format, m);
    assert_eq!(last_room(&e).size, Size::Easy);
    r.handle(Instant::now(), Input::SetMatch { id: 1, format: None, seed: 42 });
    assert_eq!(last_room(&fx(&mut r)).format, None, "back to single races");
    let t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    r.handle(t, Input::SetMatch { id: 1, format: m, seed: 42 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase));
    assert!(r.room_info().standings.is_none(), "a single race has no table");

    let mut daily = super::tests::daily_room();
    daily.handle(t, Input::SetMatch { id: 1, format: m, seed: 42 });
    assert_eq!(refusal(&fx(&mut daily), 1), Some(ErrorCode::DailyMatch));
}

#[test]
fn a_rival_races_the_first_round_but_never_scores() {
    let mut r = room(2);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    round(&mut r, start, &[1, 2], &[]);
    r.handle(start, Input::Rematch { id: 1, same_board: true, seed: 0, match_seed: 1 });
    r.handle(start, Input::AddRival { id: 1, run_id: None, pick: Some(RivalPick::Last) });
    r.handle(start, Input::SetMatch { id: 1, format: Some(settings(3, Plan::Same)), seed: 42 });
    fx(&mut r);
    assert_eq!(r.rivals.len(), 1, "round 1 is the room's board: the rival stays");
    let t1 = start + 60 * S;
    r.handle(t1, Input::Start { id: 1 });
    let start = count_down(&mut r, t1);
    // The players dawdle: the rival (1's run, 1 s after the signal) wins.
    round(&mut r, start + 5 * S, &[2, 1], &[]);
    let e = fx(&mut r);
    let results = to(&e, 1)
        .into_iter()
        .find_map(|m| if let ServerMsg::Results { rankings, .. } = m { Some(rankings.clone()) } else { None })
        .unwrap();
    assert!(results[0].rival, "the rival is first in the round");
    assert_eq!(
        table(&r),
        [(2, 2, vec![Some(2)], false), (1, 1, vec![Some(1)], false)],
        "scored among the players"
    );
    r.handle(start + 10 * S, Input::NextRound { id: 1 });
    assert!(r.rivals.is_empty(), "a new board: the rival stays behind");
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
