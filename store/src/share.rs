//! The spoiler-free share text of a daily run, and the `daily_result`
//! message built from a stored run. Only the date, board, score, time and
//! rank: never the route, so sharing cannot spoil the board for others.

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::DailyResult;
use mazerace_protocol::Game;

use crate::record::FinishedRun;

/// `mazerace daily 2026-11-29 - Ghost medium - 16 steps (best possible 16) - 0:42 - #3 of 57`.
///
/// - The game's own words ([`Game::labels`]): a maze reads `123 moves
///   (shortest 98)`; `best` is the board's best score, left out when
///   unknown (a fallback vault).
/// - Not finished: `did not finish` in place of the score and time.
/// - The tail is `#rank of entrants` for a ranked finish, `N players` for a
///   ranked run that did not finish, and `practice` for a practice run.
pub fn share_text(run: &FinishedRun, best: Option<u32>) -> String {
    let labels = run.game.labels();
    let mut out = format!("mazerace daily {} - {} {}", run.date, labels.title, run.size);
    match (run.finished, run.time_ms) {
        (true, Some(time_ms)) => {
            out += &format!(" - {} {}", run.steps, labels.unit);
            if let Some(best) = best {
                out += &format!(" ({} {best})", labels.best);
            }
            out += &format!(" - {}", clock_time(time_ms));
        }
        _ => out += " - did not finish",
    }
    out += &match (run.ranked, run.rank) {
        (false, _) => " - practice".to_owned(),
        (true, Some(rank)) => format!(" - #{rank} of {}", run.entrants),
        (true, None) if run.entrants == 1 => " - 1 player".to_owned(),
        (true, None) => format!(" - {} players", run.entrants),
    };
    out
}

/// `m:ss` below an hour, `h:mm:ss` from one; whole seconds, rounded down.
pub fn clock_time(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// A league's share line: `mazerace daily #3 - Friday club - Maze easy - 2nd of 5`
/// (`did not finish` for a run without a finish).
pub fn league_share(
    date: DailyDate,
    league: &str,
    game: Game,
    size: mazerace_protocol::Size,
    rank: Option<u32>,
    entrants: u32,
) -> String {
    let game = game.labels().title;
    let place = match rank {
        Some(r) => format!("#{r} of {entrants}"),
        None => "did not finish".to_owned(),
    };
    format!("mazerace daily #{} - {league} - {game} {size} - {place}", date.puzzle_number())
}

impl FinishedRun {
    /// The `daily_result` message for this run; `best` as for [`share_text`].
    pub fn to_daily_result(&self, best: Option<u32>) -> DailyResult {
        DailyResult {
            date: self.date,
            game: self.game,
            size: self.size,
            ranked: self.ranked,
            finished: self.finished,
            steps: self.steps,
            time_ms: self.time_ms,
            rank: self.rank,
            entrants: self.entrants,
            streak: self.streak,
            share: share_text(self, best),
            run_id: self.run_id,
            puzzle: self.date.puzzle_number(),
            leagues: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mazerace_protocol::Size;

    fn run(game: Game, size: Size, finished: bool, ranked: bool) -> FinishedRun {
        FinishedRun {
            run_id: 7,
            date: "2026-11-29".parse().unwrap(),
            game,
            size,
            ranked,
            finished,
            steps: if game == Game::Ghost { 16 } else { 123 },
            time_ms: finished.then_some(42_999),
            rank: (finished && ranked).then_some(3),
            entrants: 57,
            streak: 4,
        }
    }

    #[test]
    fn ghost_finish() {
        let r = run(Game::Ghost, Size::Medium, true, true);
        assert_eq!(
            share_text(&r, Some(16)),
            "mazerace daily 2026-11-29 - Ghost medium - 16 steps (best possible 16) - 0:42 - #3 of 57"
        );
        // A fallback vault has no known best: the bracket is left out, not faked.
        assert_eq!(
            share_text(&r, None),
            "mazerace daily 2026-11-29 - Ghost medium - 16 steps - 0:42 - #3 of 57"
        );
    }

    #[test]
    fn maze_finish() {
        let mut r = run(Game::Maze, Size::Hard, true, true);
        r.time_ms = Some(3_723_000);
        assert_eq!(
            share_text(&r, Some(98)),
            "mazerace daily 2026-11-29 - Maze hard - 123 moves (shortest 98) - 1:02:03 - #3 of 57"
        );
    }

    #[test]
    fn not_finished_and_practice() {
        assert_eq!(
            share_text(&run(Game::Ghost, Size::Small, false, true), Some(14)),
            "mazerace daily 2026-11-29 - Ghost small - did not finish - 57 players"
        );
        let mut alone = run(Game::Maze, Size::Easy, false, true);
        alone.entrants = 1;
        assert_eq!(
            share_text(&alone, Some(20)),
            "mazerace daily 2026-11-29 - Maze easy - did not finish - 1 player"
        );
        assert_eq!(
            share_text(&run(Game::Maze, Size::Normal, true, false), Some(98)),
            "mazerace daily 2026-11-29 - Maze normal - 123 moves (shortest 98) - 0:42 - practice"
        );
        assert_eq!(
            share_text(&run(Game::Ghost, Size::Large, false, false), Some(20)),
            "mazerace daily 2026-11-29 - Ghost large - did not finish - practice"
        );
    }

    #[test]
    fn clock_times() {
        assert_eq!(clock_time(0), "0:00");
        assert_eq!(clock_time(59_999), "0:59");
        assert_eq!(clock_time(60_000), "1:00");
        assert_eq!(clock_time(3_599_999), "59:59");
        assert_eq!(clock_time(3_600_000), "1:00:00");
    }

    #[test]
    fn daily_result_carries_the_run() {
        let r = run(Game::Ghost, Size::Medium, true, true);
        let d = r.to_daily_result(Some(16));
        assert_eq!(
            (d.ranked, d.finished, d.steps, d.time_ms, d.rank),
            (true, true, 16, Some(42_999), Some(3))
        );
        assert_eq!((d.entrants, d.streak), (57, 4));
        assert_eq!(d.share, share_text(&r, Some(16)));
    }
}
