//! The daily challenge, all of it: today's boards and their secrets, the
//! runs in the store, leaderboards, leagues, replays and rivals, the
//! commit-reveal of the seeds, and the commands that verify them. The
//! socket (`conn/`), the HTTP routes (`http/`) and the rooms only call in:
//! through [`DailyHook`], with typed [`DailyError`]s that turn into a socket
//! code or an HTTP status in one place each ([`DailyError::socket`],
//! [`DailyError::http`]).
//!
//! - [`seam`]: the [`DailyHook`] trait the race server calls, and its types;
//! - [`error`]: [`DailyError`] and its one mapping to what a player sees;
//! - [`store_hook`]: [`StoreHook`], the hook on `mazerace-store`;
//! - `attempts`: one attempt's run begun once and finished once;
//! - `visible`: which runs may be replayed or raced (no spoilers);
//! - [`pace`]: the ranked floor, and runs paced at it end to end;
//! - [`secrecy`]: what stays secret while a day is on;
//! - `leagues`: leagues on the store, with their limits;
//! - [`verify`]: `mazerace verify` and `mazerace verify-daily`.

mod attempts;
pub mod error;
pub mod guard;
mod leagues;
pub mod pace;
pub mod seam;
pub mod secrecy;
pub mod store_hook;
pub mod verify;
mod visible;

#[cfg(test)]
mod tests;

pub use error::{DailyError, NOT_CONFIGURED};
pub use seam::{
    next_attempt, BoardQuery, DailyBoard, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart,
    HookFuture, LeagueAsker, LeagueOp, QueryError, Replay, RevealAnswer, RivalQuery, RivalRun, COMMIT_DAYS,
};
pub use store_hook::StoreHook;
