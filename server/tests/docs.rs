//! The user docs hold together: the README stays what a new user reads to
//! the end (at most 250 lines, the two commands, what to do when a phone
//! cannot reach the host, a link to every page in `docs/`), every relative
//! link in the README, `docs/` and the other top-level docs leads to a file
//! (and to a heading, where it names one), and the user docs (the README
//! and `docs/`) name features, not issue numbers. The
//! configuration tables are checked against the flags in `readme_config.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The README's limit: past it, the text belongs in `docs/`.
const README_MAX_LINES: usize = 250;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every page in `docs/`, each with its text.
fn user_docs() -> Vec<(PathBuf, String)> {
    let mut paths = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("a docs/ folder")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    assert!(!pages.is_empty(), "docs/ has no pages");
    paths.extend(pages);
    paths.into_iter().map(|p| (p.clone(), read(&p))).collect()
}

/// The user docs and the reference docs beside the README, whose links
/// point into each other.
fn linked_docs() -> Vec<(PathBuf, String)> {
    let mut docs = user_docs();
    for name in ["PROTOCOL.md", "SECURITY.md", "RULES.md"] {
        let path = root().join(name);
        docs.push((path.clone(), read(&path)));
    }
    docs
}

/// `text` with its fenced code blocks blanked out (their lines kept, so
/// line numbers stay right): a link or a heading in a code block is not one.
fn prose(text: &str) -> Vec<&str> {
    let mut in_code = false;
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                ""
            } else if in_code {
                ""
            } else {
                line
            }
        })
        .collect()
}

/// Every `[text](target)` link target on `line`.
fn link_targets(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped,
/// spaces turned to hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .into_iter()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|h| anchor(h.trim_start_matches('#')))
        .collect()
}

#[test]
fn the_readme_is_at_most_250_lines() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the detail to docs/ and link it"
    );
}

#[test]
fn the_readme_names_the_two_commands() {
    let readme = read(&root().join("README.md"));
    let section = readme.split("\n## The two commands\n").nth(1).expect("a section \"The two commands\"");
    let section = section.split("\n## ").next().unwrap_or(section);
    // `.ci/run` runs `./test.sh`: the README's test command is CI's.
    assert!(section.contains("cargo run --release"), "the run command");
    assert!(section.contains("./test.sh"), "the test command");
    let ci = read(&root().join(".ci/run"));
    assert!(ci.contains("./test.sh"), ".ci/run runs the README's test command");
}

#[test]
fn the_readme_says_what_to_do_when_a_phone_cannot_reach_the_host() {
    let readme = read(&root().join("README.md"));
    let section = readme.split("\n## Troubleshooting").nth(1).expect("a Troubleshooting section");
    let section = section.split("\n## ").next().unwrap_or(section).to_lowercase();
    for topic in ["same wi-fi", "guest", "isolat", "firewall", "7878"] {
        assert!(section.contains(topic), "the README's troubleshooting does not mention {topic:?}");
    }
}

#[test]
fn the_readme_links_every_page_in_docs() {
    let readme = read(&root().join("README.md"));
    for (path, _) in user_docs().into_iter().skip(1) {
        let name = path.file_name().and_then(|n| n.to_str()).expect("a page name");
        assert!(readme.contains(&format!("(docs/{name})")), "README.md does not link docs/{name}");
    }
}

#[test]
fn every_relative_link_in_the_docs_leads_somewhere() {
    let mut broken = Vec::new();
    for (path, text) in linked_docs() {
        let dir = path.parent().expect("a doc in a folder");
        for (n, line) in prose(&text).into_iter().enumerate() {
            for target in link_targets(line) {
                if target.starts_with("http://")
                    || target.starts_with("https://")
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                let (file, fragment) = match target.split_once('#') {
                    Some((file, fragment)) => (file, Some(fragment)),
                    None => (target, None),
                };
                let linked = if file.is_empty() { path.clone() } else { dir.join(file) };
                let at = format!("{}:{}: {target}", path.display(), n + 1);
                if !linked.exists() {
                    broken.push(format!("{at}: no such file"));
                    continue;
                }
                if let Some(fragment) = fragment {
                    if !anchors(&read(&linked)).contains(fragment) {
                        broken.push(format!("{at}: no such heading"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_user_docs_name_no_issue_numbers() {
    let mut found = Vec::new();
    for (path, text) in user_docs() {
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let mut rest = lower.as_str();
            while let Some(at) = rest.find("issue") {
                let after = rest[at + "issue".len()..].trim_start_matches(['s', ' ', '#']);
                if after.starts_with(|c: char| c.is_ascii_digit()) {
                    found.push(format!("{}:{}: {line}", path.display(), n + 1));
                    break;
                }
                rest = &rest[at + "issue".len()..];
            }
        }
    }
    assert!(found.is_empty(), "user docs name features, not issue numbers:\n{}", found.join("\n"));
}
