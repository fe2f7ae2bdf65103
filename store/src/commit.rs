//! Commit-reveal of the daily seeds (issue 15): what `GET
//! /api/daily/commitments` publishes before a day (a SHA-256 commitment per
//! board), what `GET /api/daily/{date}/reveal` shows once the day is over
//! (the seed and the nonce), and the check `mazerace verify-daily` runs.
//! The hash input is [`mazerace_protocol::daily::commitment`]'s, as
//! PROTOCOL.md documents it; the salt is never part of anything published.

use serde::{Deserialize, Serialize};

use mazerace_protocol::daily::{commit_nonce, commitment, daily_seed};
use mazerace_protocol::{Board, Game, Seed, Size};

use crate::clock::add_days;
use crate::daily::ALL_SIZES;

/// One board's published commitment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitment {
    pub date: String,
    pub game: Game,
    pub size: Size,
    /// 64 hex digits.
    pub commitment: String,
}

/// What `GET /api/daily/commitments` answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitments {
    /// Today, UTC.
    pub today: String,
    /// Today's boards and those of the next days, date by date in
    /// [`ALL_SIZES`] order.
    pub boards: Vec<Commitment>,
}

/// One board of a past day, revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revealed {
    pub game: Game,
    pub size: Size,
    pub seed: Seed,
    /// 32 hex digits: the commitment's blinding.
    pub nonce: String,
    pub commitment: String,
}

/// What `GET /api/daily/{date}/reveal` answers for a past day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reveal {
    pub date: String,
    pub boards: Vec<Revealed>,
}

/// The commitments of `today` and the `ahead` days after it.
pub fn commitments(salt: &[u8], today: &str, ahead: i64) -> Commitments {
    let boards = (0..=ahead)
        .filter_map(|d| add_days(today, d))
        .flat_map(|date| {
            ALL_SIZES.map(|size| {
                let game = size.game();
                let seed = daily_seed(salt, &date, game, size);
                let nonce = commit_nonce(salt, &date, game, size);
                Commitment {
                    date: date.clone(),
                    game,
                    size,
                    commitment: commitment(&date, game, size, seed, &nonce),
                }
            })
        })
        .collect();
    Commitments { today: today.to_owned(), boards }
}

/// Every board of `date` with its seed and nonce (the caller checks that
/// the day is over).
pub fn reveal(salt: &[u8], date: &str) -> Reveal {
    let boards = ALL_SIZES
        .map(|size| {
            let game = size.game();
            let seed = daily_seed(salt, date, game, size);
            let nonce = commit_nonce(salt, date, game, size);
            let commitment = commitment(date, game, size, seed, &nonce);
            Revealed { game, size, seed: Seed(seed), nonce, commitment }
        })
        .to_vec();
    Reveal { date: date.to_owned(), boards }
}

/// What [`check`] found wrong with one revealed board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("{game} {size}: the seed and nonce do not hash to the revealed commitment")]
    Mismatch { game: Game, size: Size },
    #[error("{game} {size}: the revealed commitment is not the one published before the day")]
    NotPublished { game: Game, size: Size },
    #[error("{game} {size}: the board does not build: {why}")]
    Board { game: Game, size: Size, why: String },
}

/// Checks a revealed day: each seed and nonce hash to the commitment, which
/// (when `published` is given, saved before the day) is the one published
/// then; each board is rebuilt. Returns the rebuilt boards.
pub fn check(reveal: &Reveal, published: Option<&Commitments>) -> Result<Vec<Board>, CheckError> {
    let mut boards = Vec::with_capacity(reveal.boards.len());
    for b in &reveal.boards {
        let (game, size) = (b.game, b.size);
        if commitment(&reveal.date, game, size, b.seed.0, &b.nonce) != b.commitment {
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
        let published = commitments(b"salt", "2026-12-01", 7);
        assert_eq!(published.boards.len(), 8 * 6);
        assert!(!serde_json::to_string(&published).unwrap().contains("seed"));
        let day = reveal(b"salt", "2026-12-05");
        assert_eq!(check(&day, Some(&published)).unwrap().len(), 6);
        let other = reveal(b"another salt", "2026-12-05");
        assert!(matches!(check(&other, Some(&published)), Err(CheckError::NotPublished { .. })));
        let mut forged = day.clone();
        forged.boards[0].seed = Seed(forged.boards[0].seed.0 ^ 1);
        assert!(matches!(check(&forged, None), Err(CheckError::Mismatch { .. })));
    }
}
