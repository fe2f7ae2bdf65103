//! The wire board read independently of the rules engine: walls, gates and
//! goals, to check every position and move the server reports.

use crate::*;
use mazerace_protocol::games::ghost::GhostView;
use mazerace_protocol::games::ViewExtra;

/// The wire board, read independently of the rules engine.
pub(crate) struct Geo {
    pub(crate) game: Game,
    pub(crate) n: u8,
    pub(crate) walls: Vec<bool>,
    /// Maze passages per cell (bit 1 up, 2 right, 4 down, 8 left).
    pub(crate) open: Vec<u8>,
    pub(crate) start: Pos,
    pub(crate) goal: Pos,
    pub(crate) plate: Option<Pos>,
    pub(crate) gate: Option<Pos>,
    pub(crate) allowance: Option<u32>,
}

impl Geo {
    pub(crate) fn of(b: &PublicBoard) -> Geo {
        match b {
            PublicBoard::Ghost(v) => Geo {
                game: Game::Ghost,
                n: v.n,
                walls: v.cells.iter().flat_map(|r| r.bytes().map(|c| c == b'#')).collect(),
                open: Vec::new(),
                start: v.start,
                goal: v.flag,
                plate: Some(v.plate),
                gate: Some(v.gate),
                allowance: Some(v.allowance),
            },
            PublicBoard::Maze(m) => Geo {
                game: Game::Maze,
                n: m.n,
                walls: Vec::new(),
                open: m
                    .passages
                    .iter()
                    .flat_map(|r| r.chars().map(|c| c.to_digit(16).unwrap_or(0) as u8))
                    .collect(),
                start: m.start,
                goal: m.exit,
                plate: None,
                gate: None,
                allowance: None,
            },
        }
    }

    pub(crate) fn on_board(&self, p: Pos) -> bool {
        p.row < self.n && p.col < self.n && !self.walls.get(p.index(self.n)).copied().unwrap_or(false)
    }

    /// Where a legal step in `d` from `p` lands, by the wire board alone.
    pub(crate) fn step(&self, p: Pos, d: Dir) -> Option<Pos> {
        let q = p.step(d, self.n)?;
        match self.game {
            Game::Ghost => self.on_board(q).then_some(q),
            Game::Maze => {
                let bit = match d {
                    Dir::Up => 1,
                    Dir::Right => 2,
                    Dir::Down => 4,
                    Dir::Left => 8,
                };
                (self.open.get(p.index(self.n)).copied().unwrap_or(0) & bit != 0).then_some(q)
            }
        }
    }

    /// A player's state as the server reports it, against the rules.
    pub(crate) fn check_view(&self, v: &GameView) -> R<()> {
        ensure!(self.on_board(v.pos), "position {:?} is off the board or in a wall", v.pos);
        ensure!((v.status == Status::Won) == (v.pos == self.goal), "status {:?} at {:?}", v.status, v.pos);
        match (self.allowance, ghost_view(v)) {
            (Some(allowance), Some(g)) => {
                ensure!(v.steps <= allowance, "{} steps, allowance {allowance}", v.steps);
                ensure!(
                    g.steps_left == allowance - v.steps,
                    "steps_left {} at {} steps",
                    g.steps_left,
                    v.steps
                );
                ensure!(
                    (v.status == Status::OutOfSteps) == (v.steps == allowance && v.pos != self.goal),
                    "status {:?} at {} of {allowance} steps",
                    v.status,
                    v.steps
                );
                ensure!(g.run == 1 || g.run == 2, "run {}", g.run);
                ensure!(g.ghost.is_some() == (g.run == 2), "ghost {:?} in run {}", g.ghost, g.run);
                if let Some(gp) = g.ghost {
                    ensure!(self.on_board(gp), "the ghost is at {gp:?}, off the board or in a wall");
                }
                let open = Some(v.pos) == self.plate || g.ghost.is_some() && g.ghost == self.plate;
                ensure!(g.gate_open == open, "gate_open {} with the plate at {:?}", g.gate_open, self.plate);
            }
            (None, None) => ensure!(v.status != Status::OutOfSteps, "a maze has no allowance"),
            _ => return Err(format!("ghost fields {:?} on a {:?} board", v.extra, self.game)),
        }
        Ok(())
    }

    pub(crate) fn check_progress(&self, p: &Progress) -> R<()> {
        ensure!(self.on_board(p.pos), "progress of {} at {:?}: off the board or in a wall", p.id, p.pos);
        ensure!(p.run.is_some() == (self.game == Game::Ghost), "run {:?} on a {:?} board", p.run, self.game);
        if let Some(a) = self.allowance {
            ensure!(p.steps <= a, "progress of {}: {} steps past the allowance {a}", p.id, p.steps);
            if p.status == RacerStatus::OutOfSteps {
                ensure!(p.steps == a, "out of steps at {} of {a}", p.steps);
            }
        } else {
            ensure!(p.status != RacerStatus::OutOfSteps, "out of steps in a maze");
        }
        if p.status == RacerStatus::Finished || p.status == RacerStatus::Racing {
            let finished = p.status == RacerStatus::Finished;
            ensure!(finished == (p.pos == self.goal), "{} is {:?} at {:?}", p.id, p.status, p.pos);
        }
        Ok(())
    }
}

/// Ghost's part of a `move_result`, when it has one.
pub(crate) fn ghost_view(v: &GameView) -> Option<&GhostView> {
    match &v.extra {
        Some(ViewExtra::Ghost(g)) => Some(g),
        None => None,
    }
}
