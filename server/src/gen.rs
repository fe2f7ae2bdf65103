//! `mazerace gen`: print boards as JSON lines (the same shape the wire uses,
//! plus the answer), or with `--stats` a summary per size to compare with
//! the seeds' own figures.

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context};
use mazerace_protocol::{Board, Game, Size};

/// `mazerace gen` flags.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// ghost or maze.
    #[arg(long)]
    pub game: Game,
    /// small/medium/large (ghost) or easy/normal/hard (maze); with --stats,
    /// every size of the game when absent.
    #[arg(long)]
    pub size: Option<Size>,
    /// The first seed; boards are made for seed, seed+1, ...
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// How many boards (default 1, or with --stats the game's own sample per
    /// size: 2,000 vaults, 3,000 mazes).
    #[arg(long)]
    pub count: Option<u64>,
    /// Print a summary per size instead of the boards.
    #[arg(long)]
    pub stats: bool,
}

/// `mazerace gen`: to stdout.
pub fn run(args: GenArgs) -> anyhow::Result<()> {
    write(&args, &mut std::io::stdout().lock())
}

/// What `run` prints, to any writer.
pub fn write(args: &GenArgs, out: &mut impl Write) -> anyhow::Result<()> {
    if let Some(size) = args.size {
        if size.game() != args.game {
            let sizes: Vec<_> = args.game.sizes().map(|s| s.as_str()).collect();
            bail!("{size} is not a {} size (use one of {})", args.game, sizes.join(", "));
        }
    }
    if args.stats {
        let count = args.count.unwrap_or(args.game.labels().stats_sample);
        // A summary of no boards has no median to print.
        if count == 0 {
            bail!("--stats needs --count of at least 1");
        }
        let sizes = args.size.map_or_else(|| args.game.sizes().collect(), |s| vec![s]);
        for size in sizes {
            writeln!(out, "{}", stats(size, args.seed, count)?)?;
        }
        return Ok(());
    }
    let size = args.size.context("--size is required without --stats")?;
    for i in 0..args.count.unwrap_or(1) {
        let seed = args.seed.wrapping_add(i);
        let board = Board::build(size, seed).with_context(|| format!("seed {seed}"))?;
        serde_json::to_writer(&mut *out, &board.gen_line())?;
        writeln!(out)?;
    }
    Ok(())
}

/// One summary line: the game's own figures (par and `true_par - par` for
/// a vault, the shortest route for a maze: [`Game::summary`]) and boards
/// built per second.
fn stats(size: Size, first: u64, count: u64) -> anyhow::Result<String> {
    let began = Instant::now();
    let summary = Game::summary(size, first..first.saturating_add(count))?;
    let per_second = count as f64 / began.elapsed().as_secs_f64();
    let (game, boards) = (size.game(), size.game().labels().boards);
    Ok(format!("{game:<5} {size:<6} {count} {boards:<7} {summary}  {per_second:.0} boards/s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(game: Game, size: Option<Size>, seed: u64, count: u64, stats: bool) -> anyhow::Result<String> {
        let mut out = Vec::new();
        write(&GenArgs { game, size, seed, count: Some(count), stats }, &mut out)?;
        Ok(String::from_utf8(out)?)
    }

    #[test]
    fn prints_one_board_per_seed_in_the_wire_shape() {
        let text = gen(Game::Ghost, Some(Size::Medium), 41, 3, false).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line["seed"], (41 + i).to_string());
            assert_eq!(line["game"], "ghost");
            assert_eq!(line["n"], 7);
            for key in [
                "cells",
                "start",
                "flag",
                "plate",
                "gate",
                "l",
                "par",
                "allowance",
                "fallback",
                "attempts",
                "true_par",
                "solution",
            ] {
                assert!(line.get(key).is_some(), "missing {key}");
            }
        }
        let maze = gen(Game::Maze, Some(Size::Easy), 7, 1, false).unwrap();
        let maze: serde_json::Value = serde_json::from_str(maze.trim()).unwrap();
        assert_eq!(maze["passages"].as_array().unwrap().len(), 11);
        assert_eq!(maze["shortest"].as_u64().unwrap() as usize, maze["solution"].as_array().unwrap().len());
    }

    #[test]
    fn stats_cover_every_size_of_the_game() {
        let text = gen(Game::Maze, None, 0, 50, true).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.contains("normal") && text.contains("median"));
    }

    #[test]
    fn stats_of_no_boards_are_refused_instead_of_panicking() {
        for size in [None, Some(Size::Small)] {
            let err = gen(Game::Ghost, size, 0, 0, true).unwrap_err();
            assert!(err.to_string().contains("--count of at least 1"), "{err}");
        }
        assert_eq!(
            gen(Game::Ghost, Some(Size::Small), 0, 0, false).unwrap(),
            "",
            "no boards asked, none printed"
        );
    }

    #[test]
    fn a_size_of_the_other_game_is_refused() {
        let err = gen(Game::Maze, Some(Size::Small), 0, 1, false).unwrap_err();
        assert!(err.to_string().contains("not a maze size"), "{err}");
    }
}
