//! Our own frozen sampling on top of `ChaCha8Rng`.
//!
//! RULES.md: a board is a pure function of `(game, size, seed)`, and how
//! integers, floats and shuffles are drawn from the ChaCha8 stream is written
//! here, not borrowed from `rand`'s distributions, so a dependency upgrade can
//! never change a board. The only things taken from the dependency are the
//! ChaCha8 block function and `seed_from_u64`'s key expansion, both fixed by
//! their own specifications; the golden vectors below pin all three methods.
//!
//! - [`BoardRng::next_u64`]: the next 64 bits of the stream.
//! - [`BoardRng::below`]: an unbiased integer in `0..n` by Lemire's
//!   multiply-and-reject method on `next_u64`.
//! - [`BoardRng::unit`]: a float in `[0, 1)` from the top 53 bits of `next_u64`.
//! - [`BoardRng::shuffle`]: Fisher-Yates from the back, `j = below(i + 1)`.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// The only source of randomness a board is built from.
pub struct BoardRng(ChaCha8Rng);

impl BoardRng {
    /// The stream for `seed`: `ChaCha8Rng::seed_from_u64(seed)`.
    pub fn new(seed: u64) -> Self {
        BoardRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// The next 64 bits of the stream.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n`; `n` must be at least 1.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        // Lemire: take the high word of x * n; reject the few low words that
        // would make some results one draw more likely than others.
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fisher-Yates, walking from the last element down.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden vectors: if any of these change, every board changes. Never
    /// update them to make a test pass; find what changed the stream instead.
    #[test]
    fn golden_stream() {
        let mut r = BoardRng::new(42);
        let raw: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(raw, GOLDEN_RAW_42);
        let mut r = BoardRng::new(7);
        let below: Vec<u64> = (0..8).map(|_| r.below(10)).collect();
        assert_eq!(below, GOLDEN_BELOW_7);
        let mut r = BoardRng::new(7);
        let units: Vec<f64> = (0..2).map(|_| r.unit()).collect();
        assert_eq!(units, GOLDEN_UNIT_7);
        let mut r = BoardRng::new(1);
        let mut v: Vec<u8> = (0..10).collect();
        r.shuffle(&mut v);
        assert_eq!(v, GOLDEN_SHUFFLE_1);
    }

    const GOLDEN_RAW_42: [u64; 3] = [12578764544318200737, 17529487244874322312, 7886285670807131020];
    const GOLDEN_BELOW_7: [u64; 8] = [1, 1, 7, 7, 6, 3, 0, 8];
    const GOLDEN_UNIT_7: [f64; 2] = [0.15779609702061936, 0.1679893627721013];
    const GOLDEN_SHUFFLE_1: [u8; 10] = [2, 7, 8, 5, 3, 6, 1, 9, 0, 4];

    #[test]
    fn below_covers_the_range_evenly() {
        let mut r = BoardRng::new(3);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn unit_is_in_range() {
        let mut r = BoardRng::new(9);
        for _ in 0..10_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
