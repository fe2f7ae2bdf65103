//! Ranking a race (RULES.md, "Races"), as pure functions: finishers ordered
//! by time then steps (`rank_by: time`) or by steps then time (`rank_by:
//! steps`); racers who did not finish listed after them, unranked.
//! Two finishers equal on both keys share a rank (1, 1, 3).

use std::cmp::Ordering;

use mazerace_protocol::board::Board;
use mazerace_protocol::messages::{PlayerId, RacerStatus, RankBy, Ranking, Reveal};
use mazerace_protocol::play::efficiency;
use mazerace_protocol::Answer;

/// One racer's line before ranking.
#[derive(Clone, Debug)]
pub struct Entry {
    pub id: PlayerId,
    pub name: String,
    pub status: RacerStatus,
    pub steps: u32,
    /// Set exactly when `status` is `Finished`.
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
        RacerStatus::Left => 4,
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
        });
    }
    out
}

/// The answer revealed with the results.
pub fn reveal(board: &Board) -> Reveal {
    match (board, board.answer()) {
        (Board::Ghost(v), Answer::Ghost { true_par, solution, .. }) => {
            Reveal::Ghost { par: v.par, true_par, solution }
        }
        (_, Answer::Maze { shortest, solution }) => Reveal::Maze { shortest, solution },
        // A ghost board always answers with a ghost answer; keep the match total.
        (_, Answer::Ghost { true_par, solution, .. }) => {
            Reveal::Ghost { par: true_par.unwrap_or(0), true_par, solution }
        }
    }
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
