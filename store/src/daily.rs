//! Today's boards: the seed of every (game, size) for one UTC date, from the
//! salt, by [`mazerace_protocol::daily::daily_seed`] (RULES.md "Daily seed").

use mazerace_protocol::daily::{daily_seed, DailyDate};
use mazerace_protocol::{Game, Size};

/// The daily seeds of one date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DailyBoards {
    pub date: DailyDate,
    seeds: [(Size, u64); Size::ALL.len()],
}

impl DailyBoards {
    /// The boards of `date` under `salt`.
    pub fn new(salt: &[u8], date: DailyDate) -> DailyBoards {
        let seeds = Size::ALL.map(|size| (size, daily_seed(salt, date, size.game(), size)));
        DailyBoards { date, seeds }
    }

    /// The seed of one board; `None` when `size` is not a size of `game`.
    pub fn seed(&self, game: Game, size: Size) -> Option<u64> {
        self.seeds.iter().find(|(s, _)| *s == size && s.game() == game).map(|&(_, seed)| seed)
    }

    /// `(game, size, seed)` for every board of the day.
    pub fn iter(&self) -> impl Iterator<Item = (Game, Size, u64)> + '_ {
        self.seeds.iter().map(|&(size, seed)| (size.game(), size, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_has_its_own_stable_seed() {
        let day = |s: &str| s.parse::<DailyDate>().unwrap();
        let a = DailyBoards::new(b"salt", day("2026-11-29"));
        let again = DailyBoards::new(b"salt", day("2026-11-29"));
        let next = DailyBoards::new(b"salt", day("2026-11-30"));
        assert_eq!(a, again);
        let seeds: Vec<u64> = a.iter().map(|(_, _, s)| s).collect();
        let mut unique = seeds.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 6, "one seed per (game, size)");
        for (game, size, seed) in a.iter() {
            assert_eq!(seed, daily_seed(b"salt", day("2026-11-29"), game, size));
            assert_ne!(Some(seed), next.seed(game, size), "{game} {size} repeats the next day");
        }
        assert_eq!(a.seed(Game::Maze, Size::Small), None);
    }

    /// Pinned once, and cross-checked against Python's hmac module:
    /// `python3 -c "import hmac,hashlib; print(int.from_bytes(hmac.new(b'salt',
    /// b'mazerace daily v1|2026-11-29|ghost|medium', hashlib.sha256).digest()[:8], 'big'))"`.
    /// (The second value was computed the same way, with a key of 32 zero bytes.)
    /// A change here means every stored daily board changed: never "fix" it.
    #[test]
    fn golden_seeds() {
        let day = |s: &str| s.parse::<DailyDate>().unwrap();
        let a = DailyBoards::new(b"salt", day("2026-11-29"));
        assert_eq!(a.seed(Game::Ghost, Size::Medium), Some(GOLDEN_GHOST_MEDIUM));
        let b = DailyBoards::new(&[0u8; 32], day("2027-01-01"));
        assert_eq!(b.seed(Game::Maze, Size::Hard), Some(GOLDEN_MAZE_HARD));
    }

    const GOLDEN_GHOST_MEDIUM: u64 = 13_115_891_492_655_293_828;
    const GOLDEN_MAZE_HARD: u64 = 17_093_833_030_931_773_016;
}
