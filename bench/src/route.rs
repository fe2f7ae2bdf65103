//! What a simulated player does next on a real board: the solver's route,
//! with a share of deliberately invalid moves (into a wall or the board's
//! edge), checked against a local mirror of the player's game so every
//! server answer can be predicted and verified.
//!
//! Two ways to walk: [`Mode::Finish`] plays the solution once to the goal;
//! [`Mode::PingPong`] (maze only) walks the route forward to one step short
//! of the exit and back again, forever, so an open-loop load can run for any
//! length of time on one race without anyone finishing.

use mazerace_protocol::play::GameView;
use mazerace_protocol::{Action, Board, Dir, PlayerGame, Status};

/// A tiny deterministic generator (xorshift64*): enough for choosing
/// invalid moves and jitter, and no dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi]`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Finish,
    PingPong,
}

/// One planned action and what the server must answer.
#[derive(Clone, Copy, Debug)]
pub struct Planned {
    pub action: Action,
    pub ok: bool,
    /// Steps after the action (unchanged when refused).
    pub steps: u32,
}

/// A player's walk over one board.
#[derive(Clone, Debug)]
pub struct Walker {
    route: Vec<Action>,
    /// Next index into `route` (ping-pong: the player stands after `route[..idx]`).
    idx: usize,
    forward: bool,
    mode: Mode,
    mirror: PlayerGame,
    invalid_share: f64,
    rng: Rng,
}

impl Walker {
    pub fn new(board: &Board, mode: Mode, invalid_share: f64, seed: u64) -> Walker {
        let route = board.answer().solution().to_vec();
        // Ping-pong needs reversible moves: a board whose steps are budgeted
        // (Ghost's allowance, and its one-way rewind) is always walked to the finish.
        let mode = if board.game().budgeted() { Mode::Finish } else { mode };
        Walker {
            route,
            idx: 0,
            forward: true,
            mode,
            mirror: PlayerGame::new(board),
            invalid_share,
            rng: Rng::new(seed),
        }
    }

    /// The route's length in actions.
    pub fn route_len(&self) -> usize {
        self.route.len()
    }

    /// Finish mode: the route is done (won, or out of steps).
    pub fn done(&self) -> bool {
        self.mode == Mode::Finish && (self.idx >= self.route.len() || self.mirror.status() != Status::Playing)
    }

    pub fn status(&self) -> Status {
        self.mirror.status()
    }

    /// The next action, applied to the mirror; `None` when a finish walk is done.
    pub fn next(&mut self) -> Option<Planned> {
        if self.done() {
            return None;
        }
        if self.invalid_share > 0.0 && self.rng.chance(self.invalid_share) {
            if let Some(dir) = self.blocked_dir() {
                return Some(self.apply(Action::Move(dir)));
            }
        }
        let action = match self.mode {
            Mode::Finish => {
                let a = self.route[self.idx];
                self.idx += 1;
                a
            }
            Mode::PingPong => self.ping_pong_step(),
        };
        Some(self.apply(action))
    }

    fn ping_pong_step(&mut self) -> Action {
        let last = self.route.len().saturating_sub(1);
        if self.forward && self.idx >= last {
            self.forward = false;
        } else if !self.forward && self.idx == 0 {
            self.forward = true;
        }
        if self.forward {
            let a = self.route[self.idx];
            self.idx += 1;
            a
        } else {
            self.idx -= 1;
            match self.route[self.idx] {
                Action::Move(d) => Action::Move(d.opposite()),
                Action::Rewind => Action::Rewind,
            }
        }
    }

    fn apply(&mut self, action: Action) -> Planned {
        let ok = self.mirror.apply(action).is_ok();
        Planned { action, ok, steps: self.mirror.steps() }
    }

    /// A direction the rules refuse from here, if any (a maze cell can be open on all sides).
    fn blocked_dir(&mut self) -> Option<Dir> {
        let start = self.rng.range(0, 3) as usize;
        (0..4).map(|k| Dir::ALL[(start + k) % 4]).find(|&d| {
            let mut probe = self.mirror.clone();
            probe.apply(Action::Move(d)).is_err()
        })
    }

    /// After a resume: rebuild the mirror to the server's view of the
    /// player, which is some prefix of the route (refused moves change
    /// nothing). Returns false when no prefix matches.
    pub fn resync(&mut self, board: &Board, view: &GameView) -> bool {
        for k in 0..=self.route.len() {
            let mut g = PlayerGame::new(board);
            let mut fine = true;
            for &a in &self.route[..k] {
                fine &= g.apply(a).is_ok();
            }
            if !fine {
                continue;
            }
            let v = g.view();
            if v.pos == view.pos
                && v.steps == view.steps
                && v.status == view.status
                && g.run() == view_run(view)
            {
                self.mirror = g;
                self.idx = k;
                self.forward = true;
                return true;
            }
        }
        false
    }
}

fn view_run(view: &GameView) -> Option<u8> {
    view.extra.as_ref().and_then(|e| e.run())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mazerace_protocol::Size;

    #[test]
    fn finish_walks_win_with_invalid_moves_mixed_in() {
        let mut refused = 0;
        for (size, seed) in [(Size::Hard, 3), (Size::Easy, 9), (Size::Small, 5), (Size::Large, 11)] {
            let board = Board::build(size, seed).unwrap();
            let mut w = Walker::new(&board, Mode::Finish, 0.2, 1);
            let mut n = 0;
            while let Some(p) = w.next() {
                refused += usize::from(!p.ok);
                n += 1;
                assert!(n < 10_000);
            }
            assert_eq!(w.status(), Status::Won, "{size:?} {seed}");
            assert_eq!(Some(w.mirror.steps()), board.best(), "refused moves cost nothing");
        }
        assert!(refused > 10, "some moves were invalid: {refused}");
    }

    #[test]
    fn ping_pong_never_finishes_and_every_route_move_is_valid() {
        let board = Board::build(Size::Easy, 4).unwrap();
        let mut w = Walker::new(&board, Mode::PingPong, 0.0, 2);
        for _ in 0..(w.route_len() * 5) {
            let p = w.next().unwrap();
            assert!(p.ok);
            assert_eq!(w.status(), Status::Playing);
        }
    }

    #[test]
    fn resync_finds_the_servers_prefix() {
        let board = Board::build(Size::Medium, 21).unwrap();
        let mut a = Walker::new(&board, Mode::Finish, 0.0, 3);
        for _ in 0..(a.route_len() * 2 / 3) {
            a.next();
        }
        let view = a.mirror.view();
        let mut b = Walker::new(&board, Mode::Finish, 0.0, 3);
        assert!(b.resync(&board, &view));
        assert_eq!(b.mirror.view(), view);
        while b.next().is_some() {}
        assert_eq!(b.status(), Status::Won);
    }
}
