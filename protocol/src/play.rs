//! What `move_result`/`rewind_result` report of a racer's game, and the
//! efficiency figure. The rules themselves live in each game's folder
//! under [`crate::games`]; [`PlayerGame`] is the registry's enum over them.

use serde::{Deserialize, Serialize};

pub use crate::action::{Action, Reject, Status};
pub use crate::games::PlayerGame;
use crate::games::ViewExtra;
use crate::grid::Pos;

/// A player's own state after an action, as `move_result` carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameView {
    /// Where the player stands.
    pub pos: Pos,
    /// Steps (Ghost, both runs) or moves (maze) used.
    pub steps: u32,
    /// Playing, won or out of steps.
    pub status: Status,
    /// The game's own part, where it has one (Ghost: the runs, the
    /// allowance, the ghost and the gate).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<ViewExtra>,
}

/// RULES.md: `best / steps * 100`, shown rounded (`shortest` for the maze,
/// `true_par` for Ghost), with two guards so the figure never lies: it is
/// at most 100, and only a run of exactly `best` steps shows 100 (rounding
/// alone would show 100 for 199 steps against a best of 198).
pub fn efficiency(best: u32, steps: u32) -> u32 {
    if steps == 0 {
        return 0;
    }
    let rounded = (f64::from(best) * 100.0 / f64::from(steps)).round() as u32;
    if steps > best {
        rounded.min(99)
    } else {
        rounded.min(100)
    }
}

impl PlayerGame {
    /// The player's own state, as `move_result` reports it.
    pub fn view(&self) -> GameView {
        GameView { pos: self.pos(), steps: self.steps(), status: self.status(), extra: self.view_extra() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Dir;

    #[test]
    fn efficiency_rounds_like_the_seed() {
        assert_eq!(efficiency(112, 140), 80);
        assert_eq!(efficiency(32, 46), 70);
        assert_eq!(efficiency(16, 16), 100);
        assert_eq!(efficiency(5, 0), 0);
    }

    #[test]
    fn efficiency_is_100_only_for_a_best_run() {
        assert_eq!(efficiency(198, 199), 99, "99.5% is not a perfect run");
        assert_eq!(efficiency(16, 15), 100, "never above 100");
    }

    #[test]
    fn actions_are_plain_words_on_the_wire() {
        let line = vec![Action::Move(Dir::Up), Action::Rewind, Action::Move(Dir::Left)];
        let json = serde_json::to_string(&line).unwrap();
        assert_eq!(json, r#"["up","rewind","left"]"#);
        let back: Vec<Action> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, line);
        assert!(serde_json::from_str::<Action>(r#""jump""#).is_err());
    }
}
