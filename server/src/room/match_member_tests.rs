//! The room's match phase with members coming and going, time as an
//! argument: joins and leaves mid-round, a drop and a resume mid-round and
//! mid-intermission, a host hand-over, a rival in round 1, and "play
//! another match".

use mazerace_protocol::matches::Plan;
use mazerace_protocol::messages::{ErrorCode, Phase, RacerStatus, RivalPick, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::input::Input;
use super::match_tests::*;
use super::tests::{fx, room, settled};

#[test]
fn a_join_mid_round_watches_it_and_races_the_next_on_zero_points() {
    let mut r = match_room(2, 3, Plan::Same);
    let t0 = Instant::now();
    r.handle(t0, Input::Start { id: 1 });
    let start = count_down(&mut r, t0);
    r.handle(
        start,
        Input::Join { id: 3, name: "p3".into(), token: "t3".into(), spectate: false, screen: false },
    );
    let e = fx(&mut r);
    assert!(matches!(to(&e, 3)[..], [ServerMsg::Room(_), ServerMsg::Snapshot(_)]), "a snapshot of the round");
    r.handle(start, Input::Act { id: 3, seq: 0, action: line(&r)[0], at: start });
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
    r.handle(
        end,
        Input::Join { id: 4, name: "p4".into(), token: "t4".into(), spectate: true, screen: false },
    );
    assert!(table(&r).iter().all(|l| l.0 != 4));
    let e = fx(&mut r);
    let Some(ServerMsg::Snapshot(snap)) = to(&e, 4).into_iter().find(|m| matches!(m, ServerMsg::Snapshot(_)))
    else {
        panic!("{e:?}")
    };
    assert_eq!(snap.room.standings.as_ref().unwrap().lines.len(), 3, "but a spectator sees the table");
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
    let i = got.iter().position(|m| matches!(m, ServerMsg::Snapshot(_))).expect("a snapshot");
    let ServerMsg::Snapshot(snap) = got[i] else { unreachable!() };
    assert_eq!(snap.room.phase, Phase::Intermission);
    assert_eq!(snap.room.standings.as_ref().unwrap().round, 2);
    assert!(matches!(got[i + 1], ServerMsg::Results { .. }), "the last round's results");
    // Every round so far, one message each, then where the intermission stands.
    let rounds: Vec<u32> = got[i + 2..i + 4]
        .iter()
        .map(|m| if let ServerMsg::MatchRound(r) = m { r.round } else { panic!("{m:?}") })
        .collect();
    assert_eq!(rounds, [1, 2]);
    assert!(matches!(got[i + 4], ServerMsg::Intermission { round: 3, seconds: Some(8), .. }));
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

/// Issue 35: "Play another match" sent everyone back to the lobby, where
/// the host had to press Start again. Another match flows like the rounds:
/// its first round is counted down from the podium and starts by itself.
#[test]
fn play_another_match_counts_its_first_round_down_and_keeps_everyone_the_settings_and_the_tally() {
    let mut r = match_room(2, 3, Plan::Same);
    let mut t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    for _ in 0..3 {
        let start = count_down(&mut r, t);
        t = round(&mut r, start, &[1, 2], &[]);
        r.handle(t, Input::NextRound { id: 1 });
    }
    let over_seed = standings(&r).boards[0].seed.0;
    r.handle(t, Input::Rematch { id: 2, same_board: false, seed: 77, match_seed: 78 });
    assert_eq!(refusal(&fx(&mut r), 2), Some(ErrorCode::NotHost), "the host's call");
    r.handle(t, Input::Rematch { id: 1, same_board: false, seed: 77, match_seed: 78 });
    let e = settled(&mut r, t);
    let info = last_room(&e);
    assert_eq!(
        (info.phase, info.format, info.players.len()),
        (Phase::Intermission, Some(settings(3, Plan::Same)), 2)
    );
    let st = info.standings.as_ref().expect("the next match's table");
    assert_eq!((st.round, st.over), (0, false), "a new table, no round begun");
    assert!(st.lines.iter().all(|l| l.points == 0 && l.rounds.is_empty()), "{st:?}");
    assert!(
        to(&e, 2).iter().any(|m| matches!(m, ServerMsg::Intermission { round: 1, seconds: Some(10), .. })),
        "round 1 is counted down like the rounds between"
    );
    assert_eq!(info.tally[0].wins, 1, "the tally lives as long as the room");
    assert_eq!(r.settings.board.seed(), 77, "a new match's first board");
    // A rematch now is no rematch: the match is on.
    r.handle(t, Input::Rematch { id: 1, same_board: false, seed: 79, match_seed: 80 });
    assert_eq!(refusal(&fx(&mut r), 1), Some(ErrorCode::WrongPhase));
    // Nobody clicks: the intermission runs out and round 1 counts down.
    let (_, next) = intermission(&mut r, t);
    assert_eq!(next, t + 10 * S);
    assert_eq!(r.phase(), Phase::Countdown);
    assert_eq!(standings(&r).round, 1);
    assert_eq!(r.settings.board.seed(), 77);
    assert_ne!(over_seed, 77);
}

/// The host may start another match's first round at once, as between rounds.
#[test]
fn another_matchs_first_round_starts_at_once_on_the_hosts_word() {
    let mut r = match_room(2, 3, Plan::Same);
    let mut t = Instant::now();
    r.handle(t, Input::Start { id: 1 });
    for _ in 0..3 {
        let start = count_down(&mut r, t);
        t = round(&mut r, start, &[2, 1], &[]);
        r.handle(t, Input::NextRound { id: 1 });
    }
    r.handle(t, Input::Rematch { id: 1, same_board: true, seed: 0, match_seed: 0 });
    r.handle(t, Input::Hold { id: 1 });
    assert_eq!(r.phase(), Phase::Intermission);
    r.handle(t + S, Input::NextRound { id: 1 });
    assert_eq!(r.phase(), Phase::Countdown, "held, then started at once");
    let start = count_down(&mut r, t + S);
    round(&mut r, start, &[1, 2], &[]);
    fx(&mut r);
    assert_eq!(table(&r)[0].1, 2, "the new match's round 1 scored: {:?}", table(&r));
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
