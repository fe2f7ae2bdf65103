//! How results are printed: each scenario gives a [`Section`] of markdown
//! tables and notes, and goals as PASS/MISS lines. Nothing here asserts a
//! timing: a missed goal is reported, not failed.

use std::fmt::Write as _;

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| {} |", self.headers.join(" | "));
        let _ = writeln!(s, "|{}|", self.headers.iter().map(|_| " --- ").collect::<Vec<_>>().join("|"));
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        s
    }
}

/// One goal's verdict.
#[derive(Clone, Debug)]
pub struct Goal {
    pub name: String,
    pub target: String,
    pub measured: String,
    pub verdict: Verdict,
}

/// How a goal came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Miss,
    /// The target itself cannot be set up on this machine (a limit outside
    /// the program, e.g. the open-file limit), and the goal held at the
    /// largest size that can.
    Capped,
}

impl Goal {
    pub fn new(name: &str, target: &str, measured: String, pass: bool) -> Goal {
        Goal::judged(name, target, measured, if pass { Verdict::Pass } else { Verdict::Miss })
    }

    pub fn judged(name: &str, target: &str, measured: String, verdict: Verdict) -> Goal {
        Goal { name: name.into(), target: target.into(), measured, verdict }
    }

    pub fn verdict(&self) -> &'static str {
        match self.verdict {
            Verdict::Pass => "PASS",
            Verdict::Miss => "MISS",
            Verdict::Capped => "CAPPED",
        }
    }
}

/// One scenario's output.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// The scenario's key (`capacity`, `idle`, ...): the smoke test looks for it.
    pub key: String,
    pub title: String,
    pub tables: Vec<Table>,
    pub notes: Vec<String>,
    pub goals: Vec<Goal>,
    /// Part of the scenario could not run (as opposed to a goal missed).
    pub failed: bool,
}

impl Section {
    pub fn new(key: &str, title: &str) -> Section {
        Section { key: key.into(), title: title.into(), ..Section::default() }
    }

    pub fn note(&mut self, s: impl Into<String>) {
        self.notes.push(s.into());
    }

    /// Note that part of the scenario could not run.
    pub fn fail(&mut self, s: impl Into<String>) {
        self.failed = true;
        self.notes.push(format!("FAILED: {}", s.into()));
    }

    pub fn markdown(&self) -> String {
        let mut s = format!("## {} (`{}`)\n\n", self.title, self.key);
        for t in &self.tables {
            s.push_str(&t.markdown());
            s.push('\n');
        }
        for n in &self.notes {
            let _ = writeln!(s, "- {n}");
        }
        if !self.notes.is_empty() {
            s.push('\n');
        }
        for g in &self.goals {
            let _ = writeln!(
                s,
                "GOAL {}: {} [target {}; measured {}]",
                g.verdict(),
                g.name,
                g.target,
                g.measured
            );
        }
        if !self.goals.is_empty() {
            s.push('\n');
        }
        s
    }
}

/// The closing summary of every goal.
pub fn goals_table(sections: &[Section]) -> Table {
    let mut t = Table::new(&["goal", "target", "measured", "verdict"]);
    for g in sections.iter().flat_map(|s| &s.goals) {
        t.row(vec![g.name.clone(), g.target.clone(), g.measured.clone(), g.verdict().into()]);
    }
    t
}

/// Bytes as KiB or MiB.
pub fn fmt_bytes(b: f64) -> String {
    if b.abs() >= 10.0 * 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / 1024.0 / 1024.0)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

/// A count with thousands separators.
pub fn fmt_count(n: f64) -> String {
    let v = n.round() as i64;
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_count(1234567.4), "1,234,567");
        assert_eq!(fmt_count(999.0), "999");
        assert_eq!(fmt_bytes(8192.0), "8.0 KiB");
        let mut t = Table::new(&["a", "b"]);
        t.row(vec!["1".into(), "2".into()]);
        assert_eq!(t.markdown(), "| a | b |\n| --- | --- |\n| 1 | 2 |\n");
        let mut s = Section::new("x", "X");
        s.goals.push(Goal::new("g", "< 1", "2".into(), false));
        assert!(s.markdown().contains("GOAL MISS: g"));
    }
}
