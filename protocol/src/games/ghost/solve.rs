//! `true_par`: the fewest steps that win under the play rules, found by an
//! exact search, with one line that achieves it.
//!
//! Why this is exact: the ghost in run two walks the run-one recording, so a
//! whole game is run one (a walk `P`) then run two (a walk `Q`) with the
//! ghost at `P[min(t, |P|)]` after `t` run-two moves. Searching both walks
//! together, state `(ghost cell, player cell, recording ended?)`, each joint
//! move costs 1 for the player plus 1 if the ghost (still recording) also
//! steps; ending the recording costs nothing. The gate test reads the ghost's
//! cell before the joint move, as the engine does. A run-one recording obeys
//! run-one rules (the gate only from the plate, never onto the flag, which
//! would have won run one outright: that case is searched on its own). The
//! cheapest of "win in run one" and "win in run two" within the allowance is
//! `true_par`. At most 64 * 64 * 2 states on the largest vault.

use std::collections::VecDeque;

use super::cells::{Cells, Layout};
use crate::action::Action;
use crate::grid::{Dir, Pos};

/// One optimal winning line (run-one moves, `rewind`, run-two moves), or
/// `None` when nothing wins within `allowance` steps.
pub fn solve(layout: &Layout, allowance: u32) -> Option<Vec<Action>> {
    let run_one = win_in_run_one(layout).filter(|l| l.len() as u32 <= allowance);
    let run_two = win_in_run_two(layout, allowance);
    match (run_one, run_two) {
        (Some(a), Some((b, cost))) => Some(if a.len() as u32 <= cost { a } else { b }),
        (Some(a), None) => Some(a),
        (None, Some((b, _))) => Some(b),
        (None, None) => None,
    }
}

/// A move that is legal for a lone player in run one (or a ghost's recording).
fn run_one_step(layout: &Layout, from: Pos, dir: Dir) -> Option<Pos> {
    let q = layout.cells.neighbour(from, dir)?;
    (q != layout.gate || from == layout.plate).then_some(q)
}

/// Shortest walk to the flag with no rewind: through the gate only from the plate.
fn win_in_run_one(layout: &Layout) -> Option<Vec<Action>> {
    let n = layout.cells.n;
    let mut came_from: Vec<Option<(Pos, Dir)>> = vec![None; cells_len(&layout.cells)];
    let mut seen = vec![false; cells_len(&layout.cells)];
    let mut queue = VecDeque::from([layout.start]);
    seen[layout.start.index(n)] = true;
    while let Some(p) = queue.pop_front() {
        if p == layout.flag {
            let mut line = Vec::new();
            let mut at = p;
            while let Some((prev, d)) = came_from[at.index(n)] {
                line.push(Action::Move(d));
                at = prev;
            }
            line.reverse();
            return Some(line);
        }
        for dir in Dir::ALL {
            if let Some(q) = run_one_step(layout, p, dir) {
                if !seen[q.index(n)] {
                    seen[q.index(n)] = true;
                    came_from[q.index(n)] = Some((p, dir));
                    queue.push_back(q);
                }
            }
        }
    }
    None
}

fn cells_len(cells: &Cells) -> usize {
    cells.n as usize * cells.n as usize
}

/// How a search state was reached: the player's move and the ghost's (if it stepped).
#[derive(Clone, Copy)]
enum Edge {
    EndRecording,
    Joint { player: Dir, ghost: Option<Dir> },
}

/// Dijkstra over `(ghost, player, ended)` with a bucket per cost (costs are
/// small whole numbers, at most the allowance); returns the line and its cost.
fn win_in_run_two(layout: &Layout, allowance: u32) -> Option<(Vec<Action>, u32)> {
    let cells = &layout.cells;
    let len = cells_len(cells);
    let n = cells.n;
    let id =
        |ghost: Pos, player: Pos, ended: bool| (ghost.index(n) * len + player.index(n)) * 2 + ended as usize;
    let total = len * len * 2;
    let mut dist = vec![u32::MAX; total];
    let mut came_from: Vec<Option<(usize, Edge)>> = vec![None; total];
    let decode = |s: usize| {
        let ended = s % 2 == 1;
        let rest = s / 2;
        (Pos::from_index(rest / len, n), Pos::from_index(rest % len, n), ended)
    };
    let origin = id(layout.start, layout.start, false);
    dist[origin] = 0;
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); allowance as usize + 1];
    buckets[0].push(origin);
    let mut cost = 0u32;
    loop {
        let Some(s) = buckets.get_mut(cost as usize)?.pop() else {
            cost += 1;
            continue;
        };
        if cost > dist[s] {
            continue;
        }
        let (ghost, player, ended) = decode(s);
        if player == layout.flag {
            return Some((line_to(s, &came_from), cost));
        }
        let mut relax = |next: usize, c: u32, edge: Edge, buckets: &mut Vec<Vec<usize>>| {
            if c <= allowance && c < dist[next] {
                dist[next] = c;
                came_from[next] = Some((s, edge));
                buckets[c as usize].push(next);
            }
        };
        if !ended {
            relax(id(ghost, player, true), cost, Edge::EndRecording, &mut buckets);
        }
        let gate_open = player == layout.plate || ghost == layout.plate;
        for pd in Dir::ALL {
            let Some(p2) = cells.neighbour(player, pd) else { continue };
            if p2 == layout.gate && !gate_open {
                continue;
            }
            if ended {
                relax(id(ghost, p2, true), cost + 1, Edge::Joint { player: pd, ghost: None }, &mut buckets);
                continue;
            }
            for gd in Dir::ALL {
                let Some(g2) = run_one_step(layout, ghost, gd) else { continue };
                if g2 == layout.flag {
                    continue;
                }
                relax(id(g2, p2, false), cost + 2, Edge::Joint { player: pd, ghost: Some(gd) }, &mut buckets);
            }
        }
    }
}

/// Unwind the search: the ghost's steps are run one, the player's run two.
fn line_to(end: usize, came_from: &[Option<(usize, Edge)>]) -> Vec<Action> {
    let mut run_one = Vec::new();
    let mut run_two = Vec::new();
    let mut at = end;
    while let Some((prev, edge)) = came_from[at] {
        if let Edge::Joint { player, ghost } = edge {
            run_two.push(Action::Move(player));
            if let Some(g) = ghost {
                run_one.push(Action::Move(g));
            }
        }
        at = prev;
    }
    run_one.reverse();
    run_two.reverse();
    run_one.push(Action::Rewind);
    run_one.extend(run_two);
    run_one
}
