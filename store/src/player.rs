//! Who a player is to the store: the SHA-256 of their reconnect token, so the
//! database never holds a token that could be used to resume as someone else.

use sha2::{Digest, Sha256};
use std::fmt;

/// A player's identity in storage: lowercase hex SHA-256 of their reconnect token.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayerKey(String);

impl PlayerKey {
    /// The key for a reconnect token. Only this hash is ever stored.
    pub fn from_token(token: &str) -> PlayerKey {
        PlayerKey(hex::encode(Sha256::digest(token.as_bytes())))
    }

    /// The 64 hex digits, as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Shortened, so logs never carry a whole key.
impl fmt::Debug for PlayerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerKey({}..)", &self.0[..8])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_the_sha256_of_the_token() {
        // echo -n abc | sha256sum
        let k = PlayerKey::from_token("abc");
        assert_eq!(k.as_str(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_ne!(k, PlayerKey::from_token("abd"));
        assert_eq!(format!("{k:?}"), "PlayerKey(ba7816bf..)");
    }
}
