//! The server's logs: the subscriber `mazerace serve` installs, and the log
//! budget that bounds what one client can make it write. Every line written
//! inside a connection's span (`conn`) or a room's span (`room`) spends from
//! that span's budget: a burst of [`BURST`] lines, then one more every
//! [`REFILL`]. Past it, lines from that connection or room are dropped and
//! counted (`mazerace_log_lines_dropped_total` on `/metrics`), so a client
//! repeating the same mistake, or joining and leaving all day, costs a
//! bounded number of lines while everyone else's are still written.
//! Lines outside such spans (start-up, shutdown) are never budgeted.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::LogFormat;

/// Lines a connection or room may write at once ...
pub const BURST: u32 = 40;
/// ... and the time to earn one more.
pub const REFILL: Duration = Duration::from_secs(3);

/// Installs the stderr logger (`RUST_LOG`, `info` by default) with the
/// per-client budget.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let fmt = match format {
        LogFormat::Text => fmt.boxed(),
        LogFormat::Json => fmt.json().boxed(),
    };
    let _ = tracing_subscriber::registry().with(filter).with(Budgets).with(fmt).try_init();
}

/// One span's allowance, kept in its extensions.
struct Budget(Mutex<Allowance>);

struct Allowance {
    tokens: f64,
    at: Instant,
}

impl Allowance {
    fn spend(&mut self, now: Instant) -> bool {
        let earned = now.saturating_duration_since(self.at).as_secs_f64() / REFILL.as_secs_f64();
        self.tokens = (self.tokens + earned).min(f64::from(BURST));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The layer that keeps the budgets and drops what is over them.
pub struct Budgets;

fn budgeted(name: &str) -> bool {
    matches!(name, "conn" | "room")
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Budgets {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if budgeted(attrs.metadata().name()) {
            if let Some(span) = ctx.span(id) {
                let fresh = Allowance { tokens: f64::from(BURST), at: Instant::now() };
                span.extensions_mut().insert(Budget(Mutex::new(fresh)));
            }
        }
    }

    fn event_enabled(&self, event: &Event<'_>, ctx: Context<'_, S>) -> bool {
        let Some(scope) = ctx.event_scope(event) else { return true };
        for span in scope {
            if !budgeted(span.name()) {
                continue;
            }
            let ext = span.extensions();
            let Some(Budget(allowance)) = ext.get::<Budget>() else { return true };
            let ok = allowance.lock().unwrap_or_else(|p| p.into_inner()).spend(Instant::now());
            if !ok {
                crate::metrics::log_dropped();
            }
            return ok;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_line_per_refill() {
        let t0 = Instant::now();
        let mut a = Allowance { tokens: f64::from(BURST), at: t0 };
        assert_eq!((0..BURST + 10).filter(|_| a.spend(t0)).count(), BURST as usize);
        assert!(!a.spend(t0 + REFILL / 2));
        assert!(a.spend(t0 + REFILL), "one more after a refill");
        assert!(!a.spend(t0 + REFILL));
    }
}
