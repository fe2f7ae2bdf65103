//! The rules of a race, as pure functions (RULES.md, "Races"): when each
//! racer's clock starts ([`Clock`]), how finishers are ranked ([`rank`],
//! [`rank_among`]) and the answer shown afterwards ([`reveal`]). The server
//! applies them; the web client is tested against fixtures made from them
//! (`client-web/test/fixtures/race.json`).
//!
//! Ranking: finishers ordered by time then steps (`rank_by: time`) or by
//! steps then time (`rank_by: steps`); racers who did not finish are listed
//! after them, unranked. Two finishers equal on both keys share a rank
//! (1, 1, 3).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::games::{Board, Reveal};
use crate::messages::{PlayerId, RacerStatus, RankBy, Ranking};
use crate::play::efficiency;

/// Where a racer's clock starts. Fixed when the race starts and never
/// changed by what happens in it (an opponent leaving does not turn a race
/// into a solo run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// At the race's start signal: racers against each other share it.
    Start,
    /// At each racer's own first accepted move: studying the board is free
    /// when nobody races you (solo practice) and in the daily challenge.
    FirstMove,
}

impl Clock {
    /// The rule for a race with `racers` racers, `daily` or not.
    pub fn for_race(daily: bool, racers: usize) -> Clock {
        if daily || racers == 1 {
            Clock::FirstMove
        } else {
            Clock::Start
        }
    }

    /// The instant a racer's time counts from: the start signal, or their
    /// first accepted move (the start signal if they made none).
    pub fn origin<T: Copy>(self, start: T, first_move: Option<T>) -> T {
        match self {
            Clock::Start => start,
            Clock::FirstMove => first_move.unwrap_or(start),
        }
    }
}

/// One racer's line before ranking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The racer.
    pub id: PlayerId,
    /// Their name, as the results show it.
    pub name: String,
    /// How their race went.
    pub status: RacerStatus,
    /// Steps used (both runs, for Ghost).
    pub steps: u32,
    /// Set exactly when `status` is `Finished`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

fn key(e: &Entry, by: RankBy) -> (u64, u64) {
    let (steps, time) = (u64::from(e.steps), e.time_ms.unwrap_or(u64::MAX));
    match by {
        RankBy::Time => (time, steps),
        RankBy::Steps => (steps, time),
    }
}

fn finished(e: &Entry) -> bool {
    e.status == RacerStatus::Finished && e.time_ms.is_some()
}

/// Where a finisher stands among `finishers` (which includes it): 1 + the
/// number strictly ahead. With `rank_by: steps` a later finisher with fewer
/// steps can still pass it, so `finished` carries this provisional rank.
pub fn rank_among(me: &Entry, finishers: &[Entry], by: RankBy) -> u32 {
    let k = key(me, by);
    1 + finishers.iter().filter(|e| finished(e) && key(e, by) < k).count() as u32
}

fn status_order(s: RacerStatus) -> u8 {
    match s {
        RacerStatus::Finished => 0,
        RacerStatus::Racing => 1,
        RacerStatus::TimedOut => 2,
        RacerStatus::OutOfSteps => 3,
        RacerStatus::GaveUp => 4,
        RacerStatus::Left => 5,
    }
}

/// The results table. `best` is the board's best possible score
/// (`true_par` or `shortest`), `None` when unknowable.
pub fn rank(entries: &[Entry], by: RankBy, best: Option<u32>) -> Vec<Ranking> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| match (finished(a), finished(b)) {
        (true, true) => key(a, by).cmp(&key(b, by)).then(a.id.cmp(&b.id)),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => status_order(a.status)
            .cmp(&status_order(b.status))
            .then(b.steps.cmp(&a.steps))
            .then(a.id.cmp(&b.id)),
    });
    let mut out: Vec<Ranking> = Vec::with_capacity(sorted.len());
    let mut prev: Option<((u64, u64), u32)> = None;
    for (i, e) in sorted.iter().enumerate() {
        let rank = finished(e).then(|| {
            let k = key(e, by);
            let r = match prev {
                Some((pk, pr)) if pk == k => pr,
                _ => i as u32 + 1,
            };
            prev = Some((k, r));
            r
        });
        out.push(Ranking {
            rank,
            player_id: e.id,
            name: e.name.clone(),
            status: e.status,
            steps: e.steps,
            time_ms: if finished(e) { e.time_ms } else { None },
            efficiency: if finished(e) { best.map(|b| efficiency(b, e.steps)) } else { None },
            rival: false,
        });
    }
    out
}

/// The answer revealed with the results.
pub fn reveal(board: &Board) -> Reveal {
    board.reveal()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: u32, status: RacerStatus, steps: u32, time_ms: Option<u64>) -> Entry {
        Entry { id, name: format!("p{id}"), status, steps, time_ms }
    }

    #[test]
    fn by_time_then_steps() {
        let es = [
            e(1, RacerStatus::Finished, 20, Some(9000)),
            e(2, RacerStatus::Finished, 30, Some(5000)),
            e(3, RacerStatus::OutOfSteps, 20, None),
            e(4, RacerStatus::Finished, 18, Some(9000)),
        ];
        let r = rank(&es, RankBy::Time, Some(18));
        let order: Vec<_> = r.iter().map(|x| (x.player_id, x.rank, x.efficiency)).collect();
        assert_eq!(
            order,
            vec![(2, Some(1), Some(60)), (4, Some(2), Some(100)), (1, Some(3), Some(90)), (3, None, None)]
        );
    }

    #[test]
    fn by_steps_ties_broken_by_time() {
        let es = [
            e(1, RacerStatus::Finished, 20, Some(9000)),
            e(2, RacerStatus::Finished, 30, Some(5000)),
            e(3, RacerStatus::Left, 3, None),
            e(4, RacerStatus::Finished, 20, Some(7000)),
        ];
        let r = rank(&es, RankBy::Steps, None);
        let order: Vec<_> = r.iter().map(|x| (x.player_id, x.rank)).collect();
        assert_eq!(order, vec![(4, Some(1)), (1, Some(2)), (2, Some(3)), (3, None)]);
        assert!(r.iter().all(|x| x.efficiency.is_none()), "no best, no efficiency");
        assert_eq!(rank_among(&es[0], &es, RankBy::Steps), 2);
        assert_eq!(rank_among(&es[1], &es, RankBy::Time), 1);
    }

    #[test]
    fn the_clock_rule_is_fixed_by_the_race() {
        assert_eq!(Clock::for_race(false, 1), Clock::FirstMove, "solo");
        assert_eq!(Clock::for_race(true, 1), Clock::FirstMove, "daily");
        assert_eq!(Clock::for_race(false, 2), Clock::Start, "racing others");
        assert_eq!(Clock::Start.origin(10, Some(15)), 10);
        assert_eq!(Clock::FirstMove.origin(10, Some(15)), 15);
        assert_eq!(Clock::FirstMove.origin(10, None), 10);
    }

    #[test]
    fn equal_keys_share_a_rank() {
        let es = [
            e(1, RacerStatus::Finished, 20, Some(9000)),
            e(2, RacerStatus::Finished, 20, Some(9000)),
            e(3, RacerStatus::Finished, 21, Some(9000)),
        ];
        let ranks: Vec<_> = rank(&es, RankBy::Steps, None).iter().map(|x| x.rank).collect();
        assert_eq!(ranks, vec![Some(1), Some(1), Some(3)]);
    }
}
