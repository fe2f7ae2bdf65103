//! The daily seed (RULES.md "Daily seed"): a stable, documented hash of the
//! UTC date, the game, the size and a secret salt, so every server with the
//! same salt agrees and nobody without it can compute tomorrow's board.
//!
//! `seed = first 8 bytes, big-endian, of HMAC-SHA-256(key = salt,
//! message = "mazerace daily v1|YYYY-MM-DD|game|size")`.
//!
//! Commit-reveal (PROTOCOL.md "Daily commitments"): before a day, the server
//! publishes for each board the commitment, hex SHA-256 of
//! `mazerace-daily-commit:{date}:{game}:{size}:{seed}:{nonce}`, with `seed`
//! in decimal and `nonce` the 32 hex digits of the first 16 bytes of
//! `HMAC-SHA-256(salt, "mazerace daily nonce v1|date|game|size")`; after the
//! day it reveals `seed` and `nonce`. The nonce keeps the 64-bit seed from
//! being found by hashing every candidate; the salt is never revealed.
//!
//! - [`date`]: [`DailyDate`], the day (parsed once at the edge);
//! - [`reveal`]: what is published before a day and revealed after it, and
//!   the check anyone can run (`mazerace verify-daily`);
//! - [`day`]: a player's day across the day's boards (`GET /api/daily`'s `you`).

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::games::{Game, Size};

pub mod date;
pub mod day;
pub mod reveal;

pub use date::{ms_until_next_utc_day, BadDate, DailyDate, FIRST_DAILY};

/// The daily seed for one board.
pub fn daily_seed(salt: &[u8], date: DailyDate, game: Game, size: Size) -> u64 {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(salt).unwrap_or_else(|_| unreachable!());
    mac.update(format!("mazerace daily v1|{date}|{game}|{size}").as_bytes());
    let digest = mac.finalize().into_bytes();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// `HMAC-SHA-256(salt, message)` in hex: a keyed hash for values that
/// must not be readable back from storage (an address).
pub fn keyed_hex(salt: &[u8], message: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(salt).unwrap_or_else(|_| unreachable!());
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The nonce that blinds one board's commitment (32 hex digits).
pub fn commit_nonce(salt: &[u8], date: DailyDate, game: Game, size: Size) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(salt).unwrap_or_else(|_| unreachable!());
    mac.update(format!("mazerace daily nonce v1|{date}|{game}|{size}").as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

/// The published commitment to one board's seed (64 hex digits).
pub fn commitment(date: DailyDate, game: Game, size: Size, seed: u64, nonce: &str) -> String {
    let input = format!("mazerace-daily-commit:{date}:{game}:{size}:{seed}:{nonce}");
    hex::encode(Sha256::digest(input.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> DailyDate {
        s.parse().unwrap()
    }

    /// Pinned, and cross-checked with Python: `python3 -c "import hashlib;
    /// print(hashlib.sha256(b'mazerace-daily-commit:2026-12-01:maze:easy:42:00ff').hexdigest())"`.
    #[test]
    fn the_commitment_is_the_documented_hash() {
        assert_eq!(commitment(date("2026-12-01"), Game::Maze, Size::Easy, 42, "00ff"), GOLDEN_COMMITMENT);
        let nonce = commit_nonce(b"salt", date("2026-12-01"), Game::Maze, Size::Easy);
        assert_eq!(nonce.len(), 32);
        assert_ne!(nonce, commit_nonce(b"salt", date("2026-12-02"), Game::Maze, Size::Easy));
    }

    const GOLDEN_COMMITMENT: &str = "8013d5ccc7a7456bfe4b7384a1ac239894c925e98c495173f84687a331b83aeb";

    #[test]
    fn seeds_differ_by_every_input() {
        let (d1, d2) = (date("2026-12-01"), date("2026-12-02"));
        let a = daily_seed(b"salt", d1, Game::Ghost, Size::Small);
        assert_ne!(a, daily_seed(b"salt", d2, Game::Ghost, Size::Small));
        assert_ne!(a, daily_seed(b"salt", d1, Game::Ghost, Size::Medium));
        assert_ne!(a, daily_seed(b"pepper", d1, Game::Ghost, Size::Small));
        assert_eq!(a, daily_seed(b"salt", d1, Game::Ghost, Size::Small));
    }
}
