//! The README's configuration table against the `serve` flags themselves
//! (the clap definition that `mazerace serve --help` prints): every flag is
//! in the table with its environment variable and its default, and the
//! table names no flag that does not exist.

use std::collections::BTreeMap;

use clap::CommandFactory;
use mazerace_server::cli::Cli;

/// One flag as `--help` shows it.
#[derive(Debug, PartialEq, Eq)]
struct Flag {
    env: Option<String>,
    /// `None` where the flag has no default (the README then says in words
    /// what happens without it).
    default: Option<String>,
}

fn help_flags() -> BTreeMap<String, Flag> {
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("a serve subcommand");
    serve
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| {
            let long = a.get_long()?;
            if long == "help" || long == "version" {
                return None;
            }
            let default = match a.get_default_values() {
                // No default, or an empty one (an empty list): nothing.
                [] => None,
                [v] if v.is_empty() => None,
                values => Some(values.iter().map(|v| v.to_string_lossy()).collect::<Vec<_>>().join(",")),
            };
            let env = a.get_env().map(|e| e.to_string_lossy().into_owned());
            Some((format!("--{long}"), Flag { env, default }))
        })
        .collect()
}

/// The rows of the table under `## Configuration`: flag -> (env, default
/// cell). A row may name several flags (`--a`, `--b` | `A`, `B` | `1, 2`).
fn readme_rows() -> BTreeMap<String, (String, String)> {
    let readme = include_str!("../../README.md");
    let section = readme.split("\n## Configuration\n").nth(1).expect("a Configuration section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `--")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert!(cells.len() >= 3, "a short row: {line}");
        let split = |cell: &str| -> Vec<String> {
            cell.split(", ").map(|c| c.trim().trim_matches('`').to_owned()).collect()
        };
        let (flags, envs) = (split(cells[0]), split(cells[1]));
        let defaults = if flags.len() > 1 { split(cells[2]) } else { vec![cells[2].to_owned()] };
        assert!(flags.len() == envs.len() && flags.len() == defaults.len(), "a row out of step: {line}");
        for ((flag, env), default) in flags.into_iter().zip(envs).zip(defaults) {
            assert!(rows.insert(flag.clone(), (env, default)).is_none(), "{flag} twice in the README");
        }
    }
    rows
}

/// `16 (cap 64)` -> `16`; `` `text` `` -> `text`.
fn cell_value(cell: &str) -> &str {
    cell.split(" (").next().unwrap_or(cell).trim().trim_matches('`')
}

#[test]
fn the_readme_table_matches_the_serve_flags() {
    let help = help_flags();
    let readme = readme_rows();
    assert!(help.len() > 10, "found too few flags: {help:?}");
    for (flag, want) in &help {
        let Some((env, cell)) = readme.get(flag) else {
            panic!("{flag} is missing from the README's configuration table");
        };
        assert_eq!(Some(env), want.env.as_ref(), "{flag}: the README's env column");
        match &want.default {
            Some(default) => assert_eq!(cell_value(cell), default, "{flag}: the README's default"),
            // No default: the README says in words what happens instead.
            None => assert!(cell.contains(' '), "{flag} has no default, but the README says {cell:?}"),
        }
    }
    for flag in readme.keys() {
        assert!(help.contains_key(flag), "the README lists {flag}, which `serve --help` does not have");
    }
}
