//! Today's boards: the seed of every (game, size) for one UTC date, from the
//! salt, by [`mazerace_protocol::daily::daily_seed`] (RULES.md "Daily seed").

use mazerace_protocol::daily::{daily_seed, is_valid_date};
use mazerace_protocol::{Game, Size};

use crate::error::StoreError;

/// Every size of both games, Ghost first, smallest first.
pub const ALL_SIZES: [Size; 6] =
    [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard];

/// The daily seeds of one date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DailyBoards {
    pub date: String,
    seeds: [(Size, u64); 6],
}

impl DailyBoards {
    /// The boards of `date` (`YYYY-MM-DD`) under `salt`.
    pub fn new(salt: &[u8], date: &str) -> Result<DailyBoards, StoreError> {
        if !is_valid_date(date) {
            return Err(StoreError::Invalid(format!("{date:?} is not a YYYY-MM-DD date")));
        }
        let seeds = ALL_SIZES.map(|size| (size, daily_seed(salt, date, size.game(), size)));
        Ok(DailyBoards { date: date.to_owned(), seeds })
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
        let a = DailyBoards::new(b"salt", "2026-11-29").unwrap();
        let again = DailyBoards::new(b"salt", "2026-11-29").unwrap();
        let next = DailyBoards::new(b"salt", "2026-11-30").unwrap();
        assert_eq!(a, again);
        let seeds: Vec<u64> = a.iter().map(|(_, _, s)| s).collect();
        let mut unique = seeds.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 6, "one seed per (game, size)");
        for (game, size, seed) in a.iter() {
            assert_eq!(seed, daily_seed(b"salt", "2026-11-29", game, size));
            assert_ne!(Some(seed), next.seed(game, size), "{game} {size} repeats the next day");
        }
        assert_eq!(a.seed(Game::Maze, Size::Small), None);
        assert!(DailyBoards::new(b"salt", "2026-02-30").is_err());
    }

    /// Pinned once, and cross-checked against Python's hmac module:
    /// `python3 -c "import hmac,hashlib; print(int.from_bytes(hmac.new(b'salt',
    /// b'mazerace daily v1|2026-11-29|ghost|medium', hashlib.sha256).digest()[:8], 'big'))"`.
    /// (The second value was computed the same way, with a key of 32 zero bytes.)
    /// A change here means every stored daily board changed: never "fix" it.
    #[test]
    fn golden_seeds() {
        let a = DailyBoards::new(b"salt", "2026-11-29").unwrap();
        assert_eq!(a.seed(Game::Ghost, Size::Medium), Some(GOLDEN_GHOST_MEDIUM));
        let b = DailyBoards::new(&[0u8; 32], "2027-01-01").unwrap();
        assert_eq!(b.seed(Game::Maze, Size::Hard), Some(GOLDEN_MAZE_HARD));
    }

    const GOLDEN_GHOST_MEDIUM: u64 = 13_115_891_492_655_293_828;
    const GOLDEN_MAZE_HARD: u64 = 17_093_833_030_931_773_016;
}
