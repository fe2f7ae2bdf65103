//! Commit-reveal of the daily seeds (issue 15): what `GET
//! /api/daily/commitments` publishes before a day (a SHA-256 commitment per
//! board), what `GET /api/daily/{date}/reveal` shows once the day is over
//! (the seed and the nonce), and the check `mazerace verify-daily` runs.
//! The hash input is [`super::commitment`]'s, as PROTOCOL.md documents it;
//! the salt is never part of anything published.

use serde::{Deserialize, Serialize};

use super::{commit_nonce, commitment, daily_seed, DailyDate};
use crate::board::Seed;
use crate::games::Board;
use crate::games::{Game, Size};

/// One board's published commitment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitment {
    /// The board's day.
    pub date: DailyDate,
    /// The board's game.
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// 64 hex digits.
    pub commitment: String,
}

/// What `GET /api/daily/commitments` answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitments {
    /// Today, UTC.
    pub today: DailyDate,
    /// Today's boards and those of the next days, date by date in
    /// [`Size::ALL`] order.
    pub boards: Vec<Commitment>,
}

/// One board of a past day, revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revealed {
    /// The board's game.
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// The board's seed.
    pub seed: Seed,
    /// 32 hex digits: the commitment's blinding.
    pub nonce: String,
    /// The commitment the seed and nonce hash to (64 hex digits).
    pub commitment: String,
}

/// What `GET /api/daily/{date}/reveal` answers for a past day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reveal {
    /// The revealed day.
    pub date: DailyDate,
    /// Its boards, in [`Size::ALL`] order.
    pub boards: Vec<Revealed>,
}

/// The commitments of `today` and the `ahead` days after it.
pub fn commitments(salt: &[u8], today: DailyDate, ahead: i64) -> Commitments {
    let boards = (0..=ahead)
        .filter_map(|d| today.add_days(d))
        .flat_map(|date| {
            Size::ALL.map(|size| {
                let game = size.game();
                let seed = daily_seed(salt, date, game, size);
                let nonce = commit_nonce(salt, date, game, size);
                Commitment { date, game, size, commitment: commitment(date, game, size, seed, &nonce) }
            })
        })
        .collect();
    Commitments { today, boards }
}

/// Every board of `date` with its seed and nonce (the caller checks that
/// the day is over).
pub fn reveal(salt: &[u8], date: DailyDate) -> Reveal {
    let boards = Size::ALL
        .map(|size| {
            let game = size.game();
            let seed = daily_seed(salt, date, game, size);
            let nonce = commit_nonce(salt, date, game, size);
            let commitment = commitment(date, game, size, seed, &nonce);
            Revealed { game, size, seed: Seed(seed), nonce, commitment }
        })
        .to_vec();
    Reveal { date, boards }
}

/// What [`check`] found wrong with one revealed board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The seed and nonce do not hash to the revealed commitment.
    #[error("{game} {size}: the seed and nonce do not hash to the revealed commitment")]
    Mismatch {
        /// The board's game.
        game: Game,
        /// The board's size.
        size: Size,
    },
    /// The revealed commitment is not among those published before the day.
    #[error("{game} {size}: the revealed commitment is not the one published before the day")]
    NotPublished {
        /// The board's game.
        game: Game,
        /// The board's size.
        size: Size,
    },
    /// The revealed seed does not build a board.
    #[error("{game} {size}: the board does not build: {why}")]
    Board {
        /// The board's game.
        game: Game,
        /// The board's size.
        size: Size,
        /// The builder's error.
        why: String,
    },
}

/// Checks a revealed day: each seed and nonce hash to the commitment, which
/// (when `published` is given, saved before the day) is the one published
/// then; each board is rebuilt. Returns the rebuilt boards.
pub fn check(reveal: &Reveal, published: Option<&Commitments>) -> Result<Vec<Board>, CheckError> {
    let mut boards = Vec::with_capacity(reveal.boards.len());
    for b in &reveal.boards {
        let (game, size) = (b.game, b.size);
        if commitment(reveal.date, game, size, b.seed.0, &b.nonce) != b.commitment {
            return Err(CheckError::Mismatch { game, size });
        }
        if let Some(p) = published {
            let found = p.boards.iter().any(|c| {
                c.date == reveal.date && c.game == game && c.size == size && c.commitment == b.commitment
            });
            if !found {
                return Err(CheckError::NotPublished { game, size });
            }
        }
        let board =
            Board::build(size, b.seed.0).map_err(|e| CheckError::Board { game, size, why: e.to_string() })?;
        boards.push(board);
    }
    Ok(boards)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_commitment_matches_the_revealed_seed_and_a_changed_one_does_not() {
        let day = |s: &str| s.parse::<DailyDate>().unwrap();
        let published = commitments(b"salt", day("2026-12-01"), 7);
        assert_eq!(published.boards.len(), 8 * 6);
        assert!(!serde_json::to_string(&published).unwrap().contains("seed"));
        let revealed = reveal(b"salt", day("2026-12-05"));
        assert_eq!(check(&revealed, Some(&published)).unwrap().len(), 6);
        let other = reveal(b"another salt", day("2026-12-05"));
        assert!(matches!(check(&other, Some(&published)), Err(CheckError::NotPublished { .. })));
        let mut forged = revealed.clone();
        forged.boards[0].seed = Seed(forged.boards[0].seed.0 ^ 1);
        assert!(matches!(check(&forged, None), Err(CheckError::Mismatch { .. })));
    }
}
