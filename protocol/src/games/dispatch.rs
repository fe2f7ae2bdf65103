//! What the registry's types answer, by asking each game's folder through
//! the seam: a game's sizes and words, a size's game and side, and every
//! method of [`Board`], [`PublicBoard`], [`Answer`], [`Reveal`] and
//! [`PlayerGame`]. It names no game: the arms come from `with_rules!` and
//! `each_game!` in the registration ([`super`]), so a new game adds nothing
//! here.

use std::fmt;
use std::str::FromStr;

use super::seam::{Labels, Play, Rules};
use super::{Answer, Board, BoardError, Game, PlayerGame, PublicBoard, Reveal, Size, ViewExtra};
use crate::action::{Action, Reject, Status};
use crate::board::Seed;
use crate::grid::{Dir, Pos};

impl Game {
    /// The sizes this game is played at, smallest first.
    pub fn sizes(self) -> impl Iterator<Item = Size> {
        with_rules!(self, R => R::SIZES).iter().map(|&(size, _)| size)
    }

    /// How its results read.
    pub fn labels(self) -> &'static Labels {
        with_rules!(self, R => &R::LABELS)
    }

    /// Whether a racer's steps are budgeted ([`Rules::BUDGETED`]).
    pub fn budgeted(self) -> bool {
        with_rules!(self, R => R::BUDGETED)
    }

    /// The p99 CPU time its largest board must be built within ([`Rules::BUILD_GOAL`]).
    pub fn build_goal(self) -> std::time::Duration {
        with_rules!(self, R => R::BUILD_GOAL)
    }

    /// Its largest size.
    pub fn largest(self) -> Size {
        with_rules!(self, R => R::SIZES).last().map_or(Size::ALL[0], |&(size, _)| size)
    }

    /// The game after this one in [`Game::ALL`], wrapping around: what a
    /// match that alternates plays next.
    pub fn next(self) -> Game {
        let at = Game::ALL.iter().position(|g| *g == self).unwrap_or(0);
        Game::ALL[(at + 1) % Game::ALL.len()]
    }

    /// `mazerace gen --stats`' summary of this game's boards of `size` on
    /// `seeds`: the game's own figures ([`Rules::summary`]).
    pub fn summary(size: Size, seeds: std::ops::Range<u64>) -> Result<String, BoardError> {
        with_rules!(size.game(), R => {
            let boards = seeds.map(|s| R::build(size, s)).collect::<Result<Vec<R>, _>>()?;
            Ok(R::summary(&boards))
        })
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Game {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Game::ALL.into_iter().find(|g| g.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = Game::ALL.iter().map(|g| g.as_str()).collect();
            format!("unknown game {s:?} ({})", names.join(" or "))
        })
    }
}

impl Size {
    /// The board's name in a sentence: the game's title and the size,
    /// `Maze normal`.
    pub fn board_name(self) -> String {
        format!("{} {self}", self.game().labels().title)
    }

    /// The game whose folder lists this size, with the side it gives.
    fn spec(self) -> (Game, u8) {
        Game::ALL
            .into_iter()
            .find_map(|g| {
                with_rules!(g, R => R::SIZES).iter().find(|(s, _)| *s == self).map(|&(_, n)| (g, n))
            })
            // Every size is some game's: `every_size_belongs_to_one_game` holds it.
            .unwrap_or((Game::ALL[0], 0))
    }

    /// The game this size belongs to.
    pub fn game(self) -> Game {
        self.spec().0
    }

    /// Side length of the square board.
    pub fn n(self) -> u8 {
        self.spec().1
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Size::ALL.into_iter().find(|z| z.as_str() == s).ok_or_else(|| format!("unknown size {s:?}"))
    }
}

impl Board {
    /// Which game the board is for.
    pub fn game(&self) -> Game {
        each_game!(self, Board, b => game_of(&**b))
    }

    /// The board's size.
    pub fn size(&self) -> Size {
        each_game!(self, Board, b => Rules::size(&**b))
    }

    /// The seed it was built from.
    pub fn seed(&self) -> u64 {
        each_game!(self, Board, b => Rules::seed(&**b))
    }

    /// The best possible score (`None` when nothing wins).
    pub fn best(&self) -> Option<u32> {
        each_game!(self, Board, b => Rules::best(&**b))
    }

    /// What every racer may see before and during the race.
    pub fn public(&self) -> PublicBoard {
        each_game!(self, Board => PublicBoard, b => Rules::public(&**b))
    }

    /// What is revealed only after the race.
    pub fn answer(&self) -> Answer {
        each_game!(self, Board => Answer, b => Rules::answer(&**b))
    }

    /// The answer the results reveal.
    pub fn reveal(&self) -> Reveal {
        each_game!(self, Board => Reveal, b => Rules::reveal(&**b))
    }

    /// Cells per side, the goal and the step with every door open: what
    /// [`Board::goal_distances`] walks.
    pub(crate) fn walk(&self) -> (u8, Pos, impl Fn(Pos, Dir) -> Option<Pos> + '_) {
        let (n, goal) = each_game!(self, Board, b => (Rules::n(&**b), Rules::goal(&**b)));
        (n, goal, move |p, d| each_game!(self, Board, b => Rules::open_step(&**b, p, d)))
    }

    /// A new game on this board, at its start.
    pub fn play(&self) -> PlayerGame {
        each_game!(self, Board => PlayerGame, b => Rules::play(b))
    }
}

impl PublicBoard {
    /// The board's size.
    pub fn size(&self) -> Size {
        each_game!(self, PublicBoard, b => b.size)
    }

    /// Its seed, where it is shown.
    pub fn seed(&self) -> Option<Seed> {
        each_game!(self, PublicBoard, b => b.seed)
    }

    /// Withhold the seed.
    pub fn hide_seed(&mut self) {
        each_game!(self, PublicBoard, b => b.seed = None)
    }
}

impl Answer {
    /// One line that wins (empty when none does).
    pub fn solution(&self) -> &[Action] {
        each_game!(self, Answer, a => &a.solution)
    }
}

impl Reveal {
    /// One line that wins (empty when none does).
    pub fn solution(&self) -> &[Action] {
        each_game!(self, Reveal, r => &r.solution)
    }

    /// The line, to withhold it.
    pub fn solution_mut(&mut self) -> &mut Vec<Action> {
        each_game!(self, Reveal, r => &mut r.solution)
    }
}

impl PlayerGame {
    /// A new game on `board`, at its start.
    pub fn new(board: &Board) -> Self {
        board.play()
    }

    /// Apply one action by the rules; a refusal changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), Reject> {
        each_game!(self, PlayerGame, g => Play::apply(g, action))
    }

    /// Playing, won or out of steps.
    pub fn status(&self) -> Status {
        each_game!(self, PlayerGame, g => Play::status(g))
    }

    /// Where the player stands.
    pub fn pos(&self) -> Pos {
        each_game!(self, PlayerGame, g => Play::pos(g))
    }

    /// The count the score is made of.
    pub fn steps(&self) -> u32 {
        each_game!(self, PlayerGame, g => Play::steps(g))
    }

    /// Which run the player is on, for games that have runs.
    pub fn run(&self) -> Option<u8> {
        each_game!(self, PlayerGame, g => Play::run(g))
    }

    /// A second marker of the player's that others see (`progress.ghost`).
    pub fn companion(&self) -> Option<Pos> {
        each_game!(self, PlayerGame, g => Play::companion(g))
    }

    /// Moves the game keeps for the companion to replay.
    pub fn recording(&self) -> &[Dir] {
        each_game!(self, PlayerGame, g => Play::recording(g))
    }

    /// The game's own part of `move_result`.
    pub fn view_extra(&self) -> Option<ViewExtra> {
        each_game!(self, PlayerGame, g => Play::view_extra(g))
    }
}

/// The game a board of type `R` is for.
fn game_of<R: Rules>(_: &R) -> Game {
    R::GAME
}
