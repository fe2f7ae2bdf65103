//! Churn soak: for a set time, rooms form out of fresh connections, race,
//! rematch or break up, while players drop mid-race (the TCP connection
//! simply goes away) and come back with `hello {name, token}`, drop again
//! after finishing, or leave for good. Counts connections, races, resumes
//! that worked, samples the server's RSS over time, and checks that no
//! finish the server acknowledged (a `move_result` with status `won`) is
//! ever contradicted later by `results` or a resume snapshot.
//!
//! The host never drops (so `start`/`rematch` stay with the room task);
//! every other player may. The server runs with a 10 s resume window so
//! abandoned sessions expire within the soak.
//!
//! Here: the soak (slots, RSS samples, the report and its goals); one room
//! slot's life from the players' side is in `room.rs`.

mod room;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::Ctx;
use crate::procs::Server;
use crate::report::{fmt_bytes, fmt_count, Goal, Section, Table};
use crate::rooms::{Boards, Target};
use crate::sys;
use room::{room_task, P_DROP, P_DROP_FINISHED, P_LEAVE, P_REMATCH};

const RESUME_SECS: &str = "10";

#[derive(Default)]
struct Counts {
    connections: u64,
    rooms: u64,
    races: u64,
    drops: u64,
    resumes_tried: u64,
    resumes_ok: u64,
    leaves: u64,
    finishes_acked: u64,
    finishes_confirmed: u64,
    finishes_unconfirmed: u64,
    finishes_lost: u64,
    failures: u64,
    first_failure: Option<String>,
    first_lost: Option<String>,
    live: i64,
    peak_live: i64,
}

impl Counts {
    fn fail(&mut self, e: String) {
        self.failures += 1;
        self.first_failure.get_or_insert(e);
    }
    fn connected(&mut self) {
        self.connections += 1;
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
    }
    fn disconnected(&mut self) {
        self.live -= 1;
    }
}

type Tally = Rc<RefCell<Counts>>;

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("churn", "Churn soak");
    // Quick runs shorten the countdown so a few races fit in seconds.
    let countdown = if ctx.quick { "1" } else { "3" };
    let server = match Server::start_race(&ctx.server_with(&[
        "--resume-secs",
        RESUME_SECS,
        "--countdown-secs",
        countdown,
    ])) {
        Ok(s) => s,
        Err(e) => {
            sec.fail(format!("the server did not start: {e:#}"));
            sec.goals.push(Goal::new(
                "acknowledged finishes lost in the churn soak",
                "0",
                "not measured".into(),
                false,
            ));
            return sec;
        }
    };
    let target = Target { addr: server.addr, per_source: ctx.per_source, room_in_url: false };
    let counts: Tally = Rc::new(RefCell::new(Counts::default()));
    let boards = Boards::default();
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(ctx.churn_secs);
    let next_index = Rc::new(RefCell::new(0usize));
    let handles: Vec<_> = (0..ctx.churn_rooms)
        .map(|r| {
            let c = Rc::clone(&counts);
            let b = boards.clone();
            let ni = Rc::clone(&next_index);
            let share = ctx.invalid_share;
            let think = if ctx.quick { (5, 15) } else { (20, 80) };
            tokio::task::spawn_local(room_task(target, r as u64, deadline, c, b, ni, share, think))
        })
        .collect();
    // RSS over time, sampled while the rooms run.
    let every = Duration::from_millis(if ctx.quick { 500 } else { 1000 });
    let mut samples: Vec<(f64, u64, i64)> = Vec::new();
    while Instant::now() < deadline {
        tokio::time::sleep(every).await;
        samples.push((
            t0.elapsed().as_secs_f64(),
            sys::rss_bytes(server.pid).unwrap_or(0),
            counts.borrow().live,
        ));
    }
    for h in handles {
        let _ = h.await;
    }
    let after = sys::rss_bytes(server.pid).unwrap_or(0);
    let elapsed = t0.elapsed().as_secs_f64();
    let c = counts.borrow();
    let mut t = Table::new(&[
        "seconds",
        "connections",
        "peak live",
        "rooms",
        "races finished",
        "drops",
        "resumes ok / tried",
        "leaves",
        "finishes acked",
        "confirmed",
        "unconfirmed",
        "lost",
        "failures",
    ]);
    t.row(vec![
        format!("{elapsed:.0}"),
        fmt_count(c.connections as f64),
        fmt_count(c.peak_live as f64),
        fmt_count(c.rooms as f64),
        fmt_count(c.races as f64),
        fmt_count(c.drops as f64),
        format!("{} / {}", fmt_count(c.resumes_ok as f64), fmt_count(c.resumes_tried as f64)),
        fmt_count(c.leaves as f64),
        fmt_count(c.finishes_acked as f64),
        fmt_count(c.finishes_confirmed as f64),
        fmt_count(c.finishes_unconfirmed as f64),
        fmt_count(c.finishes_lost as f64),
        fmt_count(c.failures as f64),
    ]);
    sec.tables.push(t);
    let mut series = Table::new(&["t (s)", "server RSS", "live connections"]);
    let step = (samples.len() / 10).max(1);
    for (i, (s, rss, live)) in samples.iter().enumerate() {
        if i % step == 0 || i + 1 == samples.len() {
            series.row(vec![format!("{s:.1}"), fmt_bytes(*rss as f64), fmt_count(*live as f64)]);
        }
    }
    series.row(vec!["after".into(), fmt_bytes(after as f64), "0".into()]);
    sec.tables.push(series);
    if let Some(e) = &c.first_failure {
        sec.note(format!("first failure: {e}"));
    }
    if let Some(e) = &c.first_lost {
        sec.note(format!("first lost finish: {e}"));
    }
    sec.note(format!(
        "{} room tasks; rooms of 2 to 6 on {}; players pause {}-{} ms between moves; \
         non-hosts drop mid-race with p={P_DROP} (resume after 0.1-1.5 s), leave with p={P_LEAVE}, drop after \
         finishing with p={P_DROP_FINISHED}; rematch with p={P_REMATCH}; server resume window {RESUME_SECS} s. \
         'Unconfirmed' finishes are ones whose player came back after the room had moved on (no results line or \
         snapshot of that race left to check): not contradicted, not confirmed. Countdown {countdown} s.",
        ctx.churn_rooms,
        super::races::board_names(&room::churn_sizes()),
        if ctx.quick { 5 } else { 20 },
        if ctx.quick { 15 } else { 80 },
    ));
    let growth = rss_growth(&samples);
    sec.goals.push(Goal::new(
        "acknowledged finishes lost in the churn soak",
        "0",
        format!("{} of {}", c.finishes_lost, c.finishes_acked),
        c.finishes_lost == 0 && c.finishes_acked > 0,
    ));
    let resume_ok = c.resumes_tried > 0 && c.resumes_ok == c.resumes_tried;
    sec.goals.push(Goal::new(
        "resumes that worked in the churn soak",
        "all",
        format!("{} / {}", c.resumes_ok, c.resumes_tried),
        resume_ok,
    ));
    match growth {
        Some((warm, end, pct)) => sec.goals.push(Goal::new(
            "server RSS growth once warm (churn soak, second half vs first half peak)",
            "<= 10%",
            format!("{} -> {} ({pct:+.1}%)", fmt_bytes(warm as f64), fmt_bytes(end as f64)),
            pct <= 10.0,
        )),
        None => sec.goals.push(Goal::new(
            "server RSS growth once warm (churn soak)",
            "<= 10%",
            "too few samples".into(),
            false,
        )),
    }
    sec
}

/// Peak RSS over the second quarter (warm) against peak over the last quarter.
fn rss_growth(samples: &[(f64, u64, i64)]) -> Option<(u64, u64, f64)> {
    if samples.len() < 4 {
        return None;
    }
    let q = samples.len() / 4;
    let warm = samples[q..2 * q].iter().map(|s| s.1).max()?;
    let end = samples[3 * q..].iter().map(|s| s.1).max()?;
    Some((warm, end, (end as f64 - warm as f64) * 100.0 / warm.max(1) as f64))
}
