//! Everything the server draws at random: room codes, session tokens and
//! rematch seeds, from one ChaCha20 stream seeded from the OS at start-up
//! (so drawing never fails later, in the middle of a request).

use std::sync::Mutex;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Room code letters: no `0/O`, `1/I/L` look-alikes, easy to read aloud.
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// Room codes are this many characters.
pub const CODE_LEN: usize = 5;

pub struct Ids {
    /// A std mutex: held only to draw a few bytes, never across an await.
    rng: Mutex<ChaCha20Rng>,
}

impl Ids {
    /// Seeds the stream from the OS.
    pub fn from_os() -> anyhow::Result<Ids> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("no OS randomness: {e}"))?;
        Ok(Ids { rng: Mutex::new(ChaCha20Rng::from_seed(seed)) })
    }

    fn fill(&self, buf: &mut [u8]) {
        // A poisoned lock only means another thread panicked mid-draw; the
        // generator state is still a valid stream, so keep using it.
        let mut rng = self.rng.lock().unwrap_or_else(|p| p.into_inner());
        rng.fill_bytes(buf);
    }

    /// A fresh room code (uniqueness is the registry's job).
    pub fn room_code(&self) -> String {
        let mut code = String::with_capacity(CODE_LEN);
        let n = CODE_ALPHABET.len();
        // Rejection sampling keeps every letter equally likely.
        let limit = (256 / n * n) as u8;
        while code.len() < CODE_LEN {
            let mut b = [0u8; 8];
            self.fill(&mut b);
            for x in b {
                if x < limit && code.len() < CODE_LEN {
                    code.push(CODE_ALPHABET[x as usize % n] as char);
                }
            }
        }
        code
    }

    /// A 128-bit session token as 32 lowercase hex digits.
    pub fn token(&self) -> String {
        let mut b = [0u8; 16];
        self.fill(&mut b);
        hex::encode(b)
    }

    /// A room's invite key: 64 random bits as 16 hex digits.
    pub fn room_key(&self) -> String {
        let mut b = [0u8; 8];
        self.fill(&mut b);
        hex::encode(b)
    }

    /// A board seed for a rematch or a room made without one.
    pub fn seed(&self) -> u64 {
        let mut b = [0u8; 8];
        self.fill(&mut b);
        u64::from_le_bytes(b)
    }
}

/// Whether `token` has the shape [`Ids::token`] makes: 32 lowercase hex digits.
pub fn is_token_shaped(token: &str) -> bool {
    token.len() == 32 && token.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `code` could be a room code (cheap check before any lookup).
pub fn is_code_shaped(code: &str) -> bool {
    code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_one_shape() {
        let ids = Ids::from_os().unwrap();
        assert!(is_token_shaped(&ids.token()));
        assert!(!is_token_shaped("0123456789ABCDEF0123456789abcdef"));
        assert!(!is_token_shaped("0123456789abcdef"));
        assert!(!is_token_shaped("<script>alert(1)</script>0123456"));
    }

    #[test]
    fn codes_use_the_alphabet_and_differ() {
        let ids = Ids::from_os().unwrap();
        let a = ids.room_code();
        let b = ids.room_code();
        assert!(is_code_shaped(&a) && is_code_shaped(&b), "{a} {b}");
        assert_ne!(a, b);
        assert!(!is_code_shaped("K7M2O"), "O is a look-alike");
        assert!(!is_code_shaped("K7M2"));
    }

    #[test]
    fn tokens_are_128_bit_hex() {
        let ids = Ids::from_os().unwrap();
        let t = ids.token();
        assert_eq!(t.len(), 32);
        assert!(t.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(t, ids.token());
    }
}
