//! The flood gate of one connection: a token per frame the client sends
//! (text, binary, ping or pong); past the bucket a message is refused
//! (`rate_limited`) and costs a strike; once the strikes are spent the
//! connection is closed with 1008. Time is tokio's, so paused-time tests
//! drive it.

use std::borrow::Cow;

use mazerace_protocol::close;

use super::LobbyLimits;
use crate::edge::limits::TokenBucket;

/// What the flood gate says about one incoming frame.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Gate {
    Pass,
    /// Dropped unread, to be refused with `rate_limited`; the connection
    /// goes on.
    Refuse,
    /// Sustained abuse: the connection is to be closed (1008).
    Stop,
}

/// What the transport does once a frame is handled.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next frame.
    Go,
    /// The client broke the rules: close with `code` and `reason`, and read
    /// nothing more (the transport's violation close).
    Violation { code: u16, reason: Cow<'static, str> },
}

impl Flow {
    fn flood() -> Flow {
        Flow::Violation { code: close::POLICY, reason: Cow::Borrowed("too many messages") }
    }
}

pub(super) struct Flood {
    msgs: TokenBucket,
    strikes: TokenBucket,
}

impl Flood {
    pub(super) fn new(cfg: &LobbyLimits) -> Flood {
        Flood {
            msgs: TokenBucket::per_second(cfg.msgs_burst, cfg.msgs_per_sec),
            strikes: TokenBucket::per_second(cfg.flood_strikes, 1),
        }
    }

    /// A token for this frame, else a strike, else the close.
    pub(super) fn admit(&mut self) -> Gate {
        if self.msgs.take() {
            return Gate::Pass;
        }
        if self.strikes.take() {
            return Gate::Refuse;
        }
        tracing::warn!("flooding: closing with 1008");
        Gate::Stop
    }

    /// [`Flood::admit`] for a frame that needs no answer when refused (a
    /// ping or a pong: tungstenite answers pings itself).
    pub(super) fn count(&mut self) -> Flow {
        match self.admit() {
            Gate::Stop => Flow::flood(),
            Gate::Pass | Gate::Refuse => Flow::Go,
        }
    }

    /// The close for [`Gate::Stop`].
    pub(super) fn stop() -> Flow {
        Flow::flood()
    }
}
