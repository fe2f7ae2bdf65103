//! Matches (RULES.md, "Matches"): a series of 3, 5 or 10 rounds in one room
//! with a running score. This module owns the match's settings and which
//! board each round is raced on ([`MatchSettings::board`], a pure function
//! of the match's seed, so a match can be replayed and checked round by
//! round); `score.rs` owns the points of a round, the match table and the
//! share line; `state.rs` the match as one plain value ([`Match`]) that the
//! server's room keeps, serde can carry, and the web client's fixtures
//! (`client-web/test/fixtures/match.json`) are made from.

mod score;
mod state;

pub use score::{placings, rank_table, round_points, share_line, MatchLine, RoundScore};
pub use state::{
    count_wins, Match, MatchOver, MatchPlayer, MatchRound, MatchView, TallyLine, MAX_TABLE_LINES,
};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::board::Seed;
use crate::games::{Game, Size};

/// Rounds in a match: 3, 5 or 10 (a number on the wire; any other is a
/// decoding error, so a bad value never reaches a room).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct Rounds(u8);

impl Rounds {
    /// Every length a match may have.
    pub const ALL: [Rounds; 3] = [Rounds(3), Rounds(5), Rounds(10)];

    /// How many rounds.
    pub fn get(self) -> u32 {
        u32::from(self.0)
    }
}

impl TryFrom<u32> for Rounds {
    type Error = String;
    fn try_from(n: u32) -> Result<Self, String> {
        Rounds::ALL
            .into_iter()
            .find(|r| r.get() == n)
            .ok_or_else(|| format!("a match has 3, 5 or 10 rounds, not {n}"))
    }
}

impl From<Rounds> for u32 {
    fn from(r: Rounds) -> u32 {
        r.get()
    }
}

/// Which board each round is raced on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// The room's game and size every round (the default).
    #[default]
    Same,
    /// Odd rounds the room's game and size, even rounds the other game at
    /// the same tier (small with easy, medium with normal, large with hard).
    Alternate,
    /// The room's game, from its smallest size to its largest: the rounds
    /// split into three runs as even as the count allows, smallest first.
    Harder,
}

/// A match as the host sets it up: `{"rounds":5,"plan":"alternate"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSettings {
    /// 3, 5 or 10.
    pub rounds: Rounds,
    /// The boards; absent: `same`.
    #[serde(default)]
    pub plan: Plan,
}

/// One round's board: enough to build it again (`Board::build(size, seed)`)
/// and so to replay and check the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RoundBoard {
    /// The board's game (that of `size`).
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// The board's seed.
    pub seed: Seed,
}

/// Where a size stands in its game: 0 for the smallest.
fn tier(size: Size) -> usize {
    size.game().sizes().position(|s| s == size).unwrap_or(0)
}

/// The size at `tier` of `game`, or its largest where it has fewer.
fn at_tier(game: Game, tier: usize) -> Size {
    game.sizes().nth(tier).unwrap_or_else(|| game.largest())
}

/// The seed of round `round` (2 or later) of a match on `seed`: the first
/// 8 bytes, big-endian, of `SHA-256("mazerace match v1|{seed}|{round}")`,
/// the seed and the round in decimal. (Round 1 is raced on the room's own
/// board: see [`MatchSettings::board`].) The match's seed is secret until
/// the match is over, so a board on screen says nothing of the next ones;
/// revealed, it lets anyone check every round.
pub fn round_seed(seed: u64, round: u32) -> u64 {
    let digest = Sha256::digest(format!("mazerace match v1|{seed}|{round}").as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

impl MatchSettings {
    /// The game and size of round `round` (1-based) of a match whose room
    /// was made for `base`.
    pub fn size_of(&self, base: Size, round: u32) -> Size {
        let k = round.max(1);
        match self.plan {
            Plan::Same => base,
            // The next game in the registry's order: with two, the other one.
            Plan::Alternate if k.is_multiple_of(2) => at_tier(base.game().next(), tier(base)),
            Plan::Alternate => base,
            Plan::Harder => {
                let (n, tiers) = (self.rounds.get(), base.game().sizes().count() as u32);
                at_tier(base.game(), (tiers * (k.min(n) - 1) / n) as usize)
            }
        }
    }

    /// Round `round`'s board of a match on `seed` in a room made for
    /// `base`, whose first round is raced on the room's board's seed `first`.
    pub fn board(&self, base: Size, first: u64, seed: u64, round: u32) -> RoundBoard {
        let size = self.size_of(base, round);
        let seed = if round <= 1 { first } else { round_seed(seed, round) };
        RoundBoard { game: size.game(), size, seed: Seed(seed) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rounds: u32, plan: Plan) -> MatchSettings {
        MatchSettings { rounds: Rounds::try_from(rounds).unwrap(), plan }
    }

    #[test]
    fn only_3_5_and_10_rounds() {
        for n in [3, 5, 10] {
            assert_eq!(Rounds::try_from(n).unwrap().get(), n);
        }
        for n in [0, 1, 2, 4, 6, 9, 11, u32::MAX] {
            assert!(Rounds::try_from(n).is_err(), "{n}");
        }
        let bad = serde_json::from_str::<MatchSettings>(r#"{"rounds":4}"#).unwrap_err().to_string();
        assert!(bad.contains("a match has 3, 5 or 10 rounds, not 4"), "{bad}");
        let s: MatchSettings = serde_json::from_str(r#"{"rounds":5}"#).unwrap();
        assert_eq!(s, m(5, Plan::Same), "the plan defaults to the same board");
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"rounds":5,"plan":"same"}"#);
    }

    #[test]
    fn the_plans_sizes() {
        let sizes =
            |s: MatchSettings, base| (1..=s.rounds.get()).map(|k| s.size_of(base, k)).collect::<Vec<_>>();
        use Size::*;
        assert_eq!(sizes(m(3, Plan::Same), Normal), [Normal, Normal, Normal]);
        assert_eq!(sizes(m(5, Plan::Alternate), Medium), [Medium, Normal, Medium, Normal, Medium]);
        assert_eq!(sizes(m(3, Plan::Alternate), Hard), [Hard, Large, Hard]);
        assert_eq!(
            sizes(m(3, Plan::Harder), Large),
            [Small, Medium, Large],
            "harder ignores the room's size"
        );
        assert_eq!(sizes(m(5, Plan::Harder), Easy), [Easy, Easy, Normal, Normal, Hard]);
        assert_eq!(
            sizes(m(10, Plan::Harder), Normal),
            [Easy, Easy, Easy, Easy, Normal, Normal, Normal, Hard, Hard, Hard]
        );
    }

    #[test]
    fn round_seeds_are_golden() {
        // Never change these to make a test pass: they are the match's boards.
        let seeds: Vec<u64> = (2..=5).map(|k| round_seed(42, k)).collect();
        assert_eq!(seeds, GOLDEN_42);
        assert_ne!(round_seed(43, 2), round_seed(42, 2));
        let m = m(5, Plan::Same);
        assert_eq!(m.board(Size::Easy, 7, 42, 1).seed.0, 7, "round 1 is the room's board");
        assert_eq!(m.board(Size::Easy, 7, 42, 3).seed.0, GOLDEN_42[1]);
    }

    /// Rounds 2 to 5 of a match on seed 42 (checked against Python's hashlib).
    const GOLDEN_42: [u64; 4] =
        [12835274385142424236, 1060808696987463964, 12172650606856871749, 9564766754720824530];
}
