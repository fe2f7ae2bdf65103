//! The match as a value (`mazerace_protocol::matches::Match`): rounds
//! begun and recorded, the table through joins, leaves and returns,
//! rivals who race but never score, winners and the room's tally.

use mazerace_protocol::matches::{
    count_wins, Match, MatchSettings, Plan, Rounds, TallyLine, MAX_TABLE_LINES,
};
use mazerace_protocol::messages::{RacerStatus, RankBy, Ranking};
use mazerace_protocol::race::{self, Entry};
use mazerace_protocol::Size;

fn settings(rounds: u32) -> MatchSettings {
    MatchSettings { rounds: Rounds::try_from(rounds).unwrap(), plan: Plan::Alternate }
}

fn fin(id: u32, time_ms: u64) -> Entry {
    Entry { id, name: format!("p{id}"), status: RacerStatus::Finished, steps: 20, time_ms: Some(time_ms) }
}

fn dnf(id: u32, status: RacerStatus) -> Entry {
    Entry { id, name: format!("p{id}"), status, steps: 3, time_ms: None }
}

/// The `results` table of a round, with `rival` ids marked.
fn results(es: &[Entry], rivals: &[u32]) -> Vec<Ranking> {
    let mut r = race::rank(es, RankBy::Time, None);
    r.iter_mut().for_each(|l| l.rival = rivals.contains(&l.player_id));
    r
}

/// A table line as (player, rank, points, points per round, left).
type Line = (u32, u32, u32, Vec<Option<u32>>, bool);

fn table(m: &Match) -> Vec<Line> {
    m.lines().into_iter().map(|l| (l.player_id, l.rank, l.points, l.rounds, l.left)).collect()
}

#[test]
fn a_match_of_ten_rounds_begins_and_records_each_in_turn() {
    let mut m = Match::new(settings(10), Size::Easy, 7, 42);
    m.join(1, "p1");
    m.join(2, "p2");
    for k in 1..=10 {
        assert_eq!(m.next_round(), Some(k));
        let b = m.begin().unwrap();
        assert_eq!(b, settings(10).board(Size::Easy, 7, 42, k));
        assert_eq!(b.seed.0 == 7, k == 1, "round 1 on the room's board");
        assert_eq!(b.size, if k % 2 == 0 { Size::Small } else { Size::Easy }, "alternating");
        assert_eq!(m.next_round(), None, "not while a round is under way");
        assert!(m.begin().is_none());
        m.record(results(&[fin(1, 1000), fin(2, 2000)], &[]), RankBy::Time);
    }
    assert!(m.is_over() && m.next_round().is_none());
    assert_eq!(table(&m)[0], (1, 1, 20, vec![Some(2); 10], false), "1 for finishing, 1 for beating p2");
    assert_eq!(table(&m)[1], (2, 2, 10, vec![Some(1); 10], false));
    assert_eq!(m.winners(), [1]);
    let over = m.over();
    assert_eq!(over.played, 10);
    assert_eq!(over.share, "mazerace match - 10 rounds, alternate - #1 p1 20 pts - #2 p2 10 pts");
    assert_eq!(m.view(false).boards.len(), 10);
}

#[test]
fn joins_race_from_the_next_round_on_zero_and_scored_leavers_stay_marked() {
    let mut m = Match::new(settings(3), Size::Small, 7, 7);
    for id in [1, 2, 3] {
        m.join(id, &format!("p{id}"));
    }
    m.begin();
    m.join(4, "p4"); // joins mid-round: watches it
    m.record(results(&[fin(1, 900), fin(2, 1000), dnf(3, RacerStatus::OutOfSteps)], &[]), RankBy::Time);
    m.leave(3); // raced round 1 but scored nothing: dropped, nothing lost
    m.join(5, "p5");
    m.leave(5); // never raced: dropped
    m.join(6, "p6");
    m.begin();
    m.record(
        results(&[fin(4, 800), dnf(1, RacerStatus::GaveUp), fin(2, 1200), fin(6, 1300)], &[]),
        RankBy::Time,
    );
    m.leave(6); // scored a point: stays, marked left
    assert_eq!(
        table(&m),
        [
            (2, 1, 5, vec![Some(2), Some(3)], false),
            (4, 2, 4, vec![None, Some(4)], false),
            (1, 3, 3, vec![Some(3), Some(0)], false),
            (6, 4, 2, vec![None, Some(2)], true),
        ],
        "p4 and p1 a round won each, p4 with more points"
    );
    m.join(6, "Cy"); // back in the room: unmarked, renamed
    let back = m.lines().into_iter().find(|l| l.player_id == 6).unwrap();
    assert!(!back.left && back.name == "Cy");
    m.join(3, "p3"); // back after being dropped: a line again, their round kept
    let back = m.lines().into_iter().find(|l| l.player_id == 3).unwrap();
    assert_eq!((back.points, back.rounds, back.left), (0, vec![Some(0), None], false));
}

#[test]
fn rivals_race_but_never_score_nor_cost_anyone_a_point() {
    let mut with = Match::new(settings(3), Size::Easy, 1, 1);
    let mut without = Match::new(settings(3), Size::Easy, 1, 1);
    with.begin();
    without.begin();
    let rival = u32::MAX;
    with.record(results(&[fin(rival, 100), fin(1, 900), fin(2, 1000)], &[rival]), RankBy::Time);
    without.record(results(&[fin(1, 900), fin(2, 1000)], &[]), RankBy::Time);
    assert_eq!(table(&with), table(&without));
    assert!(with.players.iter().all(|p| p.id != rival), "a rival is never in the table");
    assert_eq!(with.rounds[0].rankings[0].player_id, rival, "but it is in the round's results");
    assert_eq!(with.lines()[0].wins, 1, "p1 won the round among the players");
}

#[test]
fn winners_share_a_tie_and_a_match_ended_early_has_none() {
    let mut m = Match::new(settings(3), Size::Easy, 1, 1);
    for _ in 0..3 {
        m.begin();
        m.record(results(&[fin(1, 1000), fin(2, 1000)], &[]), RankBy::Time);
    }
    assert_eq!(m.winners(), [1, 2], "equal on everything: both win");

    let mut nobody = Match::new(settings(3), Size::Easy, 1, 1);
    for _ in 0..3 {
        nobody.begin();
        nobody.record(results(&[dnf(1, RacerStatus::TimedOut)], &[]), RankBy::Time);
    }
    assert!(nobody.winners().is_empty(), "no points, no winner");

    let mut early = Match::new(settings(5), Size::Easy, 1, 1);
    early.begin();
    early.record(results(&[fin(1, 1000)], &[]), RankBy::Time);
    assert!(!early.is_over());
    early.end_early();
    assert!(early.is_over() && early.winners().is_empty() && early.next_round().is_none());
    assert_eq!(early.over().share, "mazerace match - 1 of 5 rounds, alternate - #1 p1 1 pt");
}

#[test]
fn a_round_whose_countdown_emptied_is_due_again() {
    let mut m = Match::new(settings(3), Size::Easy, 1, 1);
    m.begin();
    m.unbegin();
    assert_eq!(m.next_round(), Some(1));
}

#[test]
fn the_tally_keeps_members_and_drops_departed_fewest_wins_first() {
    let mut t: Vec<TallyLine> = Vec::new();
    let name = |id: u32| (id, format!("p{id}"));
    count_wins(&mut t, &[name(1)], |_| true, 3);
    count_wins(&mut t, &[name(1), name(2)], |_| true, 3);
    count_wins(&mut t, &[name(3)], |_| true, 3);
    let wins: Vec<_> = t.iter().map(|l| (l.player_id, l.wins)).collect();
    assert_eq!(wins, [(1, 2), (2, 1), (3, 1)]);
    // 2 and 3 have left; a fourth winner pushes the tally over its cap.
    count_wins(&mut t, &[name(4)], |id| id == 1 || id == 4, 3);
    let wins: Vec<_> = t.iter().map(|l| (l.player_id, l.wins)).collect();
    assert_eq!(wins, [(1, 2), (2, 1), (4, 1)], "the departed with the fewest wins (last listed) goes");
    count_wins(&mut t, &[name(5), name(6)], |id| id != 2, 3);
    assert_eq!(t.len(), 4, "members' lines are kept over the cap");
}

/// Issue 34: a match whose players race a round each and leave (puppets,
/// each scoring) grew its table, and with it every `room` and `match_over`,
/// until no socket could take them. The table sent is cut to its cap, the
/// lines of players who left going first, lowest first; every rank is
/// still counted over everyone.
#[test]
fn the_table_sent_has_at_most_its_cap_and_the_players_here_stay_in_it() {
    let mut m = Match::new(settings(10), Size::Easy, 7, 42);
    let mut next = 100;
    for round in 0..10u32 {
        m.begin();
        // Player 1 stays all match and finishes last; 64 newcomers a round
        // finish ahead of them and leave.
        let mut es: Vec<Entry> = (next..next + 64).map(|id| fin(id, 1000 + u64::from(id))).collect();
        es.push(fin(1, 900_000));
        m.record(results(&es, &[]), RankBy::Time);
        for id in next..next + 64 {
            m.leave(id);
        }
        next += 64;
        assert_eq!(m.lines().len(), 1 + 64 * (round as usize + 1));
    }
    let (shown, more) = m.shown_lines();
    assert_eq!((shown.len(), more as usize), (MAX_TABLE_LINES, 641 - MAX_TABLE_LINES));
    let one = shown.iter().find(|l| l.player_id == 1).expect("the player here stays listed");
    // 10 points: behind the 56 a round who scored 10 or more (65 down to
    // 10, the one on 10 in far less time), the departed included.
    assert_eq!(one.rank, 561, "ranked over everyone");
    let ranks: Vec<u32> = shown.iter().map(|l| l.rank).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "in the table's order: {ranks:?}");
    assert_eq!(shown[0].rank, 1, "the top of the table is kept");
    let over = m.over();
    assert_eq!((over.lines, over.more_lines), (shown.clone(), more));
    assert_eq!(m.view(false).lines, shown);
}

#[test]
fn the_match_is_a_plain_value() {
    let mut m = Match::new(settings(5), Size::Hard, 99, 99);
    m.join(1, "<b>Ann</b>");
    m.begin();
    m.record(results(&[fin(1, 1000), fin(u32::MAX, 50)], &[u32::MAX]), RankBy::Steps);
    m.leave(1);
    let text = serde_json::to_string(&m).unwrap();
    let back: Match = serde_json::from_str(&text).unwrap();
    assert_eq!(back, m);
}
