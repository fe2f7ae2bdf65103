//! The seam where a game plugs in holds: no code outside a game's own
//! folders and the two registrations names a game, and ARCHITECTURE.md's
//! checklist "Adding a game" names at most 8 other files, each of which
//! exists. A game is known by its name in the registry (`Game::ALL`), so a
//! third game is checked the day it is registered.
//!
//! What counts as naming a game:
//! - in Rust code (not comments, not tests): an identifier or a string that
//!   contains a game's name in any case (`Ghost`, `"maze"`, `MazePlay`,
//!   `ghost::`), the word `mazerace` aside;
//! - in the web client's files: a game's name right after a quote, a slash
//!   or a dot (`'ghost'`, `/maze/`, `.ghost`), or a game's title as a word
//!   (`Maze Escape`); lowercase prose ("the same maze") is fine.

use std::path::{Path, PathBuf};

use mazerace_protocol::Game;

/// The checklist's limit on files outside the new game's own folders.
const CHECKLIST_MAX_FILES: usize = 8;

/// Lines outside the game folders allowed to name a game, each with why.
/// Every entry must still match exactly one line, so none outlives its cause.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "protocol/src/messages/server.rs",
        "pub ghost: Option<Pos>,",
        "the wire's `progress.ghost` (a game's second marker), frozen like the rest of the wire",
    ),
    ("server/src/room/race.rs", "ghost: self.game.companion(),", "fills the wire's `progress.ghost`"),
    (
        "store/src/sqlite/schema.rs",
        "CHECK (game IN ('ghost', 'maze'))",
        "migration 1 as shipped (a shipped migration is never edited); migration 9 drops the constraint",
    ),
    (
        "store/src/postgres/schema.rs",
        "CHECK (game IN ('ghost', 'maze'))",
        "migration 1 as shipped (a shipped migration is never edited); migration 9 drops the constraint",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn names() -> Vec<String> {
    Game::ALL.iter().map(|g| g.as_str().to_owned()).collect()
}

/// The games' titles (`Ghost`, `Maze`): a longer title on a screen
/// (`Maze Escape`) starts with one.
fn titles() -> Vec<&'static str> {
    Game::ALL.iter().map(|g| g.labels().title).collect()
}

/// Every file under `dir` (relative to the root) with one of `exts`.
fn files(dir: &str, exts: &[&str]) -> Vec<String> {
    fn walk(path: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut found = Vec::new();
    walk(&root().join(dir), &mut found);
    let mut out: Vec<String> = found
        .into_iter()
        .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)))
        .filter_map(|p| p.strip_prefix(root()).ok().map(|r| r.to_string_lossy().replace('\\', "/")))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no files under {dir}");
    out
}

/// Whether `path` is a game's own folder or a registration.
fn belongs_to_the_games(path: &str, registrations: &[&str], folders: &[&str]) -> bool {
    registrations.contains(&path)
        || names().iter().any(|name| folders.iter().any(|f| path.starts_with(&format!("{f}{name}/"))))
}

/// A Rust line's code: no comment lines, no trailing comment.
fn rust_code(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        return "";
    }
    line.split(" // ").next().unwrap_or(line)
}

/// The game a Rust line names, if any.
fn rust_names_a_game(code: &str) -> Option<String> {
    let names = names();
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(|token| token.to_lowercase().replace("mazerace", ""))
        .find_map(|token| names.iter().find(|n| token.contains(n.as_str())).cloned())
}

/// The game a client line names, if any.
fn client_names_a_game(line: &str) -> Option<String> {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let found = |needle: &str, before_ok: &dyn Fn(Option<char>) -> bool| {
        line.match_indices(needle).any(|(at, _)| {
            let before = line[..at].chars().next_back();
            let after = line[at + needle.len()..].chars().next();
            before_ok(before) && !word(after)
        })
    };
    let quoted = |c: Option<char>| matches!(c, Some('\'' | '"' | '`' | '/' | '.'));
    let names = names();
    names
        .iter()
        .find(|n| found(n, &quoted))
        .cloned()
        .or_else(|| titles().into_iter().find(|t| found(t, &|c| !word(c))).map(str::to_owned))
}

fn allowed(path: &str, line: &str, used: &mut [usize]) -> bool {
    match ALLOWED.iter().position(|(p, text, _)| *p == path && line.contains(text)) {
        Some(i) => {
            used[i] += 1;
            true
        }
        None => false,
    }
}

#[test]
fn no_code_outside_the_game_folders_and_the_registrations_names_a_game() {
    let mut found = Vec::new();
    let mut used = vec![0; ALLOWED.len()];
    for dir in ["protocol/src", "server/src", "store/src", "bench/src"] {
        for path in files(dir, &["rs"]) {
            let test_file =
                path.ends_with("_tests.rs") || path.ends_with("/tests.rs") || path.contains("/tests/");
            if test_file
                || belongs_to_the_games(&path, &["protocol/src/games/mod.rs"], &["protocol/src/games/"])
            {
                continue;
            }
            let text = std::fs::read_to_string(root().join(&path)).expect("readable");
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                // An inline test module closes the file's production code.
                let next = lines.get(i + 1).map_or("", |l| l.trim());
                if line.trim() == "#[cfg(test)]" && next.starts_with("mod ") && next.ends_with('{') {
                    break;
                }
                if let Some(game) = rust_names_a_game(rust_code(line)) {
                    if !allowed(&path, line, &mut used) {
                        found.push(format!("{path}:{}: names {game}: {}", i + 1, line.trim()));
                    }
                }
            }
        }
    }
    let client_registration = "client-web/public/js/games/index.js";
    for path in files("client-web/public", &["js", "html", "css", "webmanifest"]) {
        if belongs_to_the_games(&path, &[client_registration], &["client-web/public/js/games/"]) {
            continue;
        }
        let text = std::fs::read_to_string(root().join(&path)).expect("readable");
        for (i, line) in text.lines().enumerate() {
            if let Some(game) = client_names_a_game(line) {
                found.push(format!("{path}:{}: names {game}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a game is named outside its folders and the registrations (ARCHITECTURE.md, \"Games\"):\n{}",
        found.join("\n")
    );
    for ((path, text, why), n) in ALLOWED.iter().zip(&used) {
        assert_eq!(*n, 1, "{path}: the allowed line {text:?} ({why}) matched {n} lines, not one");
    }
}

#[test]
fn the_check_sees_a_game_named_in_code_and_in_the_client() {
    // The check itself, on lines it must catch and lines it must let be.
    for caught in ["let g = Game::Maze;", "PlayerGame::Ghost(g) => g.run(),", r#"match s { "maze" => 1 }"#] {
        assert!(rust_names_a_game(rust_code(caught)).is_some(), "{caught}");
    }
    for fine in ["use mazerace_protocol::Size;", "/// a Ghost vault", "let x = 1; // the maze"] {
        assert!(rust_names_a_game(rust_code(fine)).is_none(), "{fine}");
    }
    for caught in
        ["if (game === 'ghost')", "import x from './maze/draw.js';", "p.ghost", "<span>Maze Escape</span>"]
    {
        assert!(client_names_a_game(caught).is_some(), "{caught}");
    }
    for fine in ["Race your friends through the same maze.", "maze<b>race</b>", "mazerace"] {
        assert!(client_names_a_game(fine).is_none(), "{fine}");
    }
}

#[test]
fn adding_a_game_names_at_most_8_files_besides_its_folders_and_each_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = text.find("### Adding a game").expect("a section \"Adding a game\" in ARCHITECTURE.md");
    let section = &text[start..];
    let section = &section[..section[3..].find("\n#").map_or(section.len(), |end| end + 3)];
    let is_file = |span: &str| {
        !span.contains(char::is_whitespace)
            && [".rs", ".js", ".md", ".json", ".jsonl", ".html", ".css"].iter().any(|x| span.ends_with(x))
    };
    // Code spans are the odd pieces between backticks.
    let spans: Vec<&str> = section.split('`').skip(1).step_by(2).filter(|s| is_file(s)).collect();
    let (own, others): (Vec<&str>, Vec<&str>) = spans.iter().partition(|s| s.contains("/games/ice/"));
    assert!(!own.is_empty(), "the checklist names the example game's own folders (`.../games/ice/...`)");
    let mut others: Vec<&str> = others;
    others.sort();
    others.dedup();
    assert!(
        others.len() <= CHECKLIST_MAX_FILES,
        "\"Adding a game\" names {} files besides the game's folders: {others:?}",
        others.len()
    );
    for path in &others {
        assert!(root().join(path).is_file(), "\"Adding a game\" names {path}, which does not exist");
    }
    for registration in ["protocol/src/games/mod.rs", "client-web/public/js/games/index.js"] {
        assert!(others.contains(&registration), "the checklist names the registration {registration}");
    }
}
