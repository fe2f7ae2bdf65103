//! The configuration tables against the `serve` flags themselves (the clap
//! definition that `mazerace serve --help` prints): docs/CONFIGURATION.md's
//! full table has every flag with its environment variable and its default
//! and names no flag that does not exist; the README's short table of the
//! common flags names only real flags, each with its real variable and
//! default, and points to the full table.

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

/// The rows of the flag table in `doc`'s section headed `heading`: flag ->
/// (env, default cell). A row may name several flags (`--a`, `--b` | `A`,
/// `B` | `1, 2`).
fn table_rows(name: &str, doc: &str, heading: &str) -> BTreeMap<String, (String, String)> {
    let section = doc
        .split(&format!("\n{heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("{name} has no section {heading:?}"));
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `--")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert!(cells.len() >= 3, "a short row in {name}: {line}");
        let split = |cell: &str| -> Vec<String> {
            cell.split(", ").map(|c| c.trim().trim_matches('`').to_owned()).collect()
        };
        let (flags, envs) = (split(cells[0]), split(cells[1]));
        let defaults = if flags.len() > 1 { split(cells[2]) } else { vec![cells[2].to_owned()] };
        assert!(
            flags.len() == envs.len() && flags.len() == defaults.len(),
            "a row out of step in {name}: {line}"
        );
        for ((flag, env), default) in flags.into_iter().zip(envs).zip(defaults) {
            assert!(rows.insert(flag.clone(), (env, default)).is_none(), "{flag} twice in {name}");
        }
    }
    rows
}

/// The full table: every flag of `mazerace serve`.
fn full_rows() -> BTreeMap<String, (String, String)> {
    let doc = include_str!("../../docs/CONFIGURATION.md");
    table_rows("docs/CONFIGURATION.md", doc, "## Flags of `mazerace serve`")
}

const README: &str = include_str!("../../README.md");

/// The README's short table of the flags a host most often sets.
fn readme_rows() -> BTreeMap<String, (String, String)> {
    table_rows("README.md", README, "## Configuration")
}

/// `flag`'s row in `doc` says what `serve --help` says: its variable, and
/// its default (or, for a flag with none, words saying what happens).
fn check_row(doc: &str, flag: &str, (env, cell): &(String, String), want: &Flag) {
    assert_eq!(Some(env), want.env.as_ref(), "{flag}: the env column of {doc}");
    match &want.default {
        Some(default) => assert_eq!(cell_value(cell), default, "{flag}: the default in {doc}"),
        // No default: the doc says in words what happens instead.
        None => assert!(cell.contains(' '), "{flag} has no default, but {doc} says {cell:?}"),
    }
}

/// `16 (cap 64)` -> `16`; `` `text` `` -> `text`.
fn cell_value(cell: &str) -> &str {
    cell.split(" (").next().unwrap_or(cell).trim().trim_matches('`')
}

#[test]
fn the_full_table_matches_the_serve_flags() {
    let help = help_flags();
    let full = full_rows();
    assert!(help.len() > 10, "found too few flags: {help:?}");
    for (flag, want) in &help {
        let Some(row) = full.get(flag) else {
            panic!("{flag} is missing from the table in docs/CONFIGURATION.md");
        };
        check_row("docs/CONFIGURATION.md", flag, row, want);
    }
    for flag in full.keys() {
        assert!(
            help.contains_key(flag),
            "docs/CONFIGURATION.md lists {flag}, which `serve --help` does not have"
        );
    }
}

#[test]
fn the_readme_names_common_flags_as_they_are_and_points_to_the_rest() {
    let help = help_flags();
    let readme = readme_rows();
    assert!(readme.len() >= 5, "the README's configuration table has too few flags: {readme:?}");
    assert!(
        readme.len() < help.len(),
        "the README lists every flag: the full table belongs in docs/CONFIGURATION.md"
    );
    for (flag, row) in &readme {
        let Some(want) = help.get(flag) else {
            panic!("the README lists {flag}, which `serve --help` does not have");
        };
        check_row("README.md", flag, row, want);
    }
    let section = README.split("\n## Configuration\n").nth(1).unwrap_or_default();
    let section = section.split("\n## ").next().unwrap_or(section);
    assert!(
        section.contains("`mazerace serve --help`"),
        "the README's configuration points to `mazerace serve --help`"
    );
    assert!(section.contains("(docs/CONFIGURATION.md)"), "the README's configuration links the full table");
}
