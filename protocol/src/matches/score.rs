//! A match's score (RULES.md, "Matches"): the points of one round
//! ([`round_points`]), the match table's order ([`rank_table`]) and the
//! match's share line ([`share_line`]).
//!
//! Points: among the round's players (rivals race but are left out before
//! scoring), a finisher scores 1 + the players strictly behind them (every
//! player who did not finish, and every finisher ranked below); a player who
//! did not finish scores 0. Finishers who share a rank (equal on both race
//! keys) are behind nobody of each other, so they score the same.
//!
//! The table orders by points, then by countback, as motorsport breaks a
//! tie: more rounds won, then more second places, then more thirds, and so
//! on (so also more rounds finished); equal on all of it, a shared rank,
//! the lower player id listed first. Time never breaks a tie: a sum of
//! finish times grows with every round raced, so it rewarded playing fewer
//! (RULES.md, "Matches").

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::MatchSettings;
use crate::messages::{PlayerId, RankBy};
use crate::race::{self, Entry};

fn is_false(b: &bool) -> bool {
    !*b
}

/// One player's result in one round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundScore {
    /// Whose result.
    pub player_id: PlayerId,
    /// Their rank among the round's players; absent if they did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
    /// 1 + the players strictly behind them; 0 without a finish.
    pub points: u32,
    /// Their race time; absent if they did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

impl RoundScore {
    /// Whether this is a round won (rank 1, shared on a tie).
    pub fn won(&self) -> bool {
        self.place == Some(1)
    }
}

/// The points of one round. `players` are the round's racers who are
/// players (no rivals), each with how their race went; `by` is the room's
/// ranking. In the order of `players`.
pub fn round_points(players: &[Entry], by: RankBy) -> Vec<RoundScore> {
    let ranked = race::rank(players, by, None);
    let behind = |place: u32| ranked.iter().filter(|l| l.rank.is_none_or(|r| r > place)).count() as u32;
    players
        .iter()
        .map(|e| {
            let place = ranked.iter().find(|l| l.player_id == e.id).and_then(|l| l.rank);
            RoundScore {
                player_id: e.id,
                place,
                points: place.map_or(0, |p| 1 + behind(p)),
                time_ms: place.and(e.time_ms),
            }
        })
        .collect()
}

/// One line of the match table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchLine {
    /// 1-based; equal points and countback (`placings`) share a rank.
    pub rank: u32,
    /// Whose line.
    pub player_id: PlayerId,
    /// Their name (the latest).
    pub name: String,
    /// Points over every round so far.
    pub points: u32,
    /// Rounds won (rank 1 of a round, shared on a tie): `placings[0]`.
    pub wins: u32,
    /// The rounds they finished at each place: `placings[0]` rounds won,
    /// `placings[1]` second places, and so on (no trailing zeros; empty:
    /// no round finished). The table's tie-break, compared place by place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placings: Vec<u32>,
    /// The sum of their finish times, in whole milliseconds (shown, never
    /// a tie-break).
    pub time_ms: u64,
    /// Their points in each round so far, `null` for a round they did not
    /// race (they had not joined yet, or were away or watching).
    pub rounds: Vec<Option<u32>>,
    /// They left the room; their points stay in the table.
    #[serde(default, skip_serializing_if = "is_false")]
    pub left: bool,
}

/// Countback: the first place where one has finished more rounds than the
/// other decides (a missing count is 0).
fn countback(a: &[u32], b: &[u32]) -> Ordering {
    let at = |p: &[u32], i: usize| p.get(i).copied().unwrap_or(0);
    (0..a.len().max(b.len())).map(|i| at(b, i).cmp(&at(a, i))).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
}

fn order(a: &MatchLine, b: &MatchLine) -> Ordering {
    b.points.cmp(&a.points).then_with(|| countback(&a.placings, &b.placings))
}

/// The placings of a player's rounds from the places they finished at
/// (see [`MatchLine::placings`]).
pub fn placings(places: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for p in places.into_iter().filter(|p| *p >= 1) {
        let i = p as usize - 1;
        if out.len() <= i {
            out.resize(i + 1, 0);
        }
        out[i] += 1;
    }
    out
}

/// Sorts the table and sets each line's rank: by points, then countback;
/// equal on both share a rank (1, 1, 3), the lower player id first.
pub fn rank_table(lines: &mut [MatchLine]) {
    lines.sort_by(|a, b| order(a, b).then(a.player_id.cmp(&b.player_id)));
    for i in 0..lines.len() {
        lines[i].rank = match i {
            0 => 1,
            _ if order(&lines[i - 1], &lines[i]) == Ordering::Equal => lines[i - 1].rank,
            _ => i as u32 + 1,
        };
    }
}

/// `mazerace match - 3 rounds, alternate - #1 Ann 5 pts - #2 Bob 3 pts - #3 Cy 1 pt - #4 Dan 0 pts`:
/// the number of rounds played (`3 of 5 rounds` for a match that ended
/// early), the plan, and every line of `table` (ranked), so nobody who
/// played is left out of it.
pub fn share_line(settings: &MatchSettings, played: u32, table: &[MatchLine]) -> String {
    let plan = match settings.plan {
        super::Plan::Same => "same board",
        super::Plan::Alternate => "alternate",
        super::Plan::Harder => "harder",
    };
    let rounds = settings.rounds.get();
    let mut out = match played {
        p if p == rounds => format!("mazerace match - {rounds} rounds, {plan}"),
        p => format!("mazerace match - {p} of {rounds} rounds, {plan}"),
    };
    for l in table {
        let unit = if l.points == 1 { "pt" } else { "pts" };
        out += &format!(" - #{} {} {} {unit}", l.rank, l.name, l.points);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::RacerStatus::{self, *};

    fn e(id: u32, status: RacerStatus, steps: u32, time_ms: Option<u64>) -> Entry {
        Entry { id, name: format!("p{id}"), status, steps, time_ms }
    }

    fn points(es: &[Entry], by: RankBy) -> Vec<(u32, Option<u32>, u32)> {
        round_points(es, by).iter().map(|s| (s.player_id, s.place, s.points)).collect()
    }

    #[test]
    fn a_point_per_player_beaten_and_one_for_finishing() {
        let es = [
            e(1, Finished, 20, Some(9000)),
            e(2, Finished, 30, Some(5000)),
            e(3, OutOfSteps, 20, None),
            e(4, Left, 3, None),
        ];
        assert_eq!(points(&es, RankBy::Time), [(1, Some(2), 3), (2, Some(1), 4), (3, None, 0), (4, None, 0)]);
        assert_eq!(
            points(&es, RankBy::Steps),
            [(1, Some(1), 4), (2, Some(2), 3), (3, None, 0), (4, None, 0)]
        );
    }

    #[test]
    fn a_shared_place_scores_alike_and_beats_nobody_it_shares_with() {
        let es =
            [e(1, Finished, 20, Some(9000)), e(2, Finished, 20, Some(9000)), e(3, Finished, 21, Some(9000))];
        assert_eq!(points(&es, RankBy::Steps), [(1, Some(1), 2), (2, Some(1), 2), (3, Some(3), 1)]);
        let alone = [e(7, Finished, 5, Some(100))];
        assert_eq!(points(&alone, RankBy::Time), [(7, Some(1), 1)], "a lone finisher scores 1");
        let none = [e(1, TimedOut, 5, None), e(2, GaveUp, 9, None)];
        assert_eq!(points(&none, RankBy::Time), [(1, None, 0), (2, None, 0)]);
    }

    fn line(id: u32, points: u32, placings: &[u32], time_ms: u64) -> MatchLine {
        MatchLine {
            rank: 0,
            player_id: id,
            name: format!("p{id}"),
            points,
            wins: placings.first().copied().unwrap_or(0),
            placings: placings.to_vec(),
            time_ms,
            rounds: vec![],
            left: false,
        }
    }

    fn ranked(mut t: Vec<MatchLine>) -> Vec<(u32, u32)> {
        rank_table(&mut t);
        t.iter().map(|l| (l.player_id, l.rank)).collect()
    }

    #[test]
    fn the_table_ranks_by_points_then_countback() {
        let t = vec![
            line(1, 5, &[0, 1], 100),
            line(2, 5, &[1], 900),
            line(3, 7, &[], 0),
            line(4, 5, &[1, 0, 1], 800),
            line(5, 5, &[1, 0, 1], 99_999),
            line(6, 5, &[0, 1, 1], 1),
        ];
        assert_eq!(
            ranked(t),
            [(3, 1), (4, 2), (5, 2), (2, 4), (6, 5), (1, 6)],
            "more wins, then more seconds, then thirds; time never counts"
        );
    }

    /// Issue 35: a friend who joined for the last round only (3 points,
    /// 0:44.8) took the podium over one who played all three (3 points,
    /// 2:16.8): equal points were broken by total time, which grows with
    /// every round raced. Countback looks at places only.
    #[test]
    fn a_tie_never_favours_fewer_rounds() {
        // Bea: 2nd, 2nd, 3rd of three (1 + 1 + ... ) against Cal: one 2nd.
        let bea = line(1, 3, &[0, 1, 1], 136_800);
        let cal = line(2, 3, &[0, 1], 44_800);
        assert_eq!(ranked(vec![bea.clone(), cal.clone()]), [(1, 1), (2, 2)], "a third place more");
        // Equal places: a shared rank, whatever the times.
        let dan = line(3, 3, &[0, 1, 1], 1);
        assert_eq!(ranked(vec![bea, dan]), [(1, 1), (3, 1)]);
        // A round finished counts: the same places and one more finish ahead.
        let eve = line(4, 4, &[1, 0, 0, 1], 90_000);
        let fay = line(5, 4, &[1], 10_000);
        assert_eq!(ranked(vec![fay, eve]), [(4, 1), (5, 2)]);
    }

    #[test]
    fn placings_count_each_place() {
        assert_eq!(placings([1, 3, 1, 2]), [2, 1, 1]);
        assert_eq!(placings([4]), [0, 0, 0, 1]);
        assert!(placings([]).is_empty());
    }

    #[test]
    fn the_share_line_names_the_podium() {
        let mut t = vec![line(1, 5, &[2], 0), line(2, 3, &[1], 0), line(3, 1, &[], 0), line(4, 0, &[], 0)];
        rank_table(&mut t);
        let s = MatchSettings {
            rounds: super::super::Rounds::try_from(3).unwrap(),
            plan: super::super::Plan::Alternate,
        };
        assert_eq!(
            share_line(&s, 3, &t),
            "mazerace match - 3 rounds, alternate - #1 p1 5 pts - #2 p2 3 pts - #3 p3 1 pt - #4 p4 0 pts",
            "every place, not only the podium"
        );
        assert_eq!(share_line(&s, 2, &t[..1]), "mazerace match - 2 of 3 rounds, alternate - #1 p1 5 pts");
    }
}
