//! Ghost: the vault puzzle. [`vault`] builds a vault from a seed (RULES.md
//! "building a vault"), [`play`] is the play engine ("playing"), [`solve`]
//! finds `true_par` and one optimal line, [`cells`] holds the wall grid and
//! the flood fills they share, and [`rules`] puts the game behind the seam.

pub mod cells;
pub mod play;
pub mod rules;
pub mod solve;
pub mod vault;

pub use play::GhostPlay;
pub use rules::{GhostView, PublicVault, VaultAnswer, VaultReveal};
pub use vault::{build, build_with_limit, Vault, VaultError};
