//! [`DailyError`]: what a daily request can fail with, typed across the
//! seam, and the one place each failure is turned into what a player sees:
//! its socket code ([`DailyError::socket`]) and its HTTP status
//! ([`DailyError::http`]). Callers match on variants; nobody reads an
//! error's text to decide.

use axum::http::StatusCode;

use mazerace_protocol::messages::ErrorCode;
use mazerace_store::{ErrorKind, StoreError};

/// A boxed source error.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The message when no daily store is configured.
pub const NOT_CONFIGURED: &str = "daily challenge is not configured";

/// Why a daily request failed.
#[derive(Debug, thiserror::Error)]
pub enum DailyError {
    /// The server runs without a daily store.
    #[error("{NOT_CONFIGURED}")]
    NotConfigured,
    /// Storage is busy, unreachable or too slow: nothing was lost, try
    /// again shortly (`daily_unavailable`, 503).
    #[error("the daily challenge is unavailable right now: {0}")]
    Unavailable(#[source] BoxError),
    /// Refused with this protocol code (a league that is full, a run that
    /// may not be raced yet ...); the text is safe to show the player.
    #[error("{1}")]
    Denied(ErrorCode, String),
    /// A fault: logged, and `internal` to the player with no detail (a
    /// store error, a stored board that no longer builds ...).
    #[error("daily challenge failed: {0}")]
    Internal(#[source] BoxError),
}

impl DailyError {
    /// A refusal with its code.
    pub fn denied(code: ErrorCode, why: impl Into<String>) -> DailyError {
        DailyError::Denied(code, why.into())
    }

    /// A fault described in words (no source error to carry).
    pub fn internal(why: impl Into<String>) -> DailyError {
        DailyError::Internal(why.into().into())
    }

    /// The store did not answer within the caller's wait.
    pub fn late() -> DailyError {
        DailyError::Unavailable("no answer in time".into())
    }

    /// Logged once, here: a fault as an error, an outage as a warning.
    fn log(&self, what: &str) {
        match self {
            DailyError::Unavailable(_) => tracing::warn!(error = %self, "{what} unavailable"),
            DailyError::Internal(_) => tracing::error!(error = %self, "{what} failed"),
            DailyError::NotConfigured | DailyError::Denied(..) => {}
        }
    }

    /// What the player is told, for a request about `what` ("the leaderboard").
    fn message(&self, what: &str) -> String {
        match self {
            DailyError::NotConfigured => NOT_CONFIGURED.to_owned(),
            DailyError::Unavailable(_) => format!("{what} is unavailable right now; try again shortly"),
            DailyError::Denied(_, why) => why.clone(),
            DailyError::Internal(_) => format!("{what} failed"),
        }
    }

    /// The socket's answer: its `error` code and message (logged here).
    pub fn socket(&self, what: &str) -> (ErrorCode, String) {
        self.log(what);
        let code = match self {
            DailyError::NotConfigured | DailyError::Internal(_) => ErrorCode::Internal,
            DailyError::Unavailable(_) => ErrorCode::DailyUnavailable,
            DailyError::Denied(code, _) => *code,
        };
        (code, self.message(what))
    }

    /// The HTTP answer: its status and message (logged here).
    pub fn http(&self, what: &str) -> (StatusCode, String) {
        self.log(what);
        let status = match self {
            DailyError::NotConfigured | DailyError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            DailyError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            DailyError::Denied(code, _) => match code {
                ErrorCode::LeagueNotFound | ErrorCode::RivalNotFound => StatusCode::NOT_FOUND,
                ErrorCode::RivalHidden | ErrorCode::NotHost => StatusCode::FORBIDDEN,
                ErrorCode::LeagueFull | ErrorCode::TooManyLeagues => StatusCode::CONFLICT,
                ErrorCode::TooManyJoins | ErrorCode::JoinsTooFast | ErrorCode::RateLimited => {
                    StatusCode::TOO_MANY_REQUESTS
                }
                _ => StatusCode::BAD_REQUEST,
            },
        };
        (status, self.message(what))
    }
}

/// A store error by its kind: busy or unreachable is "try again"; anything
/// else is a fault here, because every request is checked before it reaches
/// the store (a refusal from it means this server asked wrongly).
impl From<StoreError> for DailyError {
    fn from(e: StoreError) -> Self {
        match e.kind() {
            ErrorKind::Busy => DailyError::Unavailable(Box::new(e)),
            ErrorKind::Refused | ErrorKind::Internal => DailyError::Internal(Box::new(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_are_typed_by_kind_not_text() {
        let socket = |e: StoreError| DailyError::from(e).socket("x").0;
        assert_eq!(socket(StoreError::Busy), ErrorCode::DailyUnavailable);
        let gone = StoreError::Unavailable(Box::new(std::io::Error::other("connection refused")));
        assert_eq!(socket(gone), ErrorCode::DailyUnavailable);
        assert_eq!(socket(StoreError::RunOver(3)), ErrorCode::Internal);
        assert_eq!(socket(StoreError::Corrupt("x".into())), ErrorCode::Internal);
        assert_eq!(socket(StoreError::Closed), ErrorCode::Internal);
    }

    #[test]
    fn each_error_has_one_socket_code_and_one_status() {
        let full = DailyError::denied(ErrorCode::LeagueFull, "that league has its 50 members");
        assert_eq!(full.socket("leagues"), (ErrorCode::LeagueFull, "that league has its 50 members".into()));
        assert_eq!(full.http("leagues").0, StatusCode::CONFLICT);
        let hidden = DailyError::denied(ErrorCode::RivalHidden, "tomorrow");
        assert_eq!(
            (hidden.socket("the run").0, hidden.http("the run").0),
            (ErrorCode::RivalHidden, StatusCode::FORBIDDEN)
        );
        assert_eq!(DailyError::denied(ErrorCode::BadDate, "no").http("x").0, StatusCode::BAD_REQUEST);
        let late = DailyError::late();
        assert_eq!(
            late.socket("the leaderboard"),
            (
                ErrorCode::DailyUnavailable,
                "the leaderboard is unavailable right now; try again shortly".into()
            )
        );
        assert_eq!(late.http("the leaderboard").0, StatusCode::SERVICE_UNAVAILABLE);
        let fault = DailyError::internal("a board that does not build");
        assert_eq!(
            fault.socket("the run"),
            (ErrorCode::Internal, "the run failed".into()),
            "no detail to the player"
        );
        assert_eq!(fault.http("the run").0, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(DailyError::NotConfigured.socket("x"), (ErrorCode::Internal, NOT_CONFIGURED.into()));
        assert_eq!(DailyError::NotConfigured.http("x").0, StatusCode::SERVICE_UNAVAILABLE);
    }
}
