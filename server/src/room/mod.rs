//! A room: friends racing on one board. The room is an actor (Alice Ryhl,
//! "Actors with Tokio"): one task owns its whole state, fed by a bounded
//! inbox; [`RoomHandle`] is the cloneable way in. Nothing else touches a
//! room's state, so there are no locks here.
//!
//! - `state.rs` + `play.rs`: the pure state machine (lobby, countdown,
//!   racing, results as one enum), with time as an argument; `state.rs`
//!   holds the room's data and dispatches each input to its handler.
//! - `input.rs`: [`Input`], everything the state machine takes.
//! - `joins.rs`: who the room lets in (the checks before a join).
//! - `race.rs`: one race, its racers and the race clock.
//! - `progress.rs`: `progress` coalescing.
//! - `updates.rs`: `room` coalescing (and the messages that follow a `room`).
//! - `view.rs`: what members see: `room` (its size bounded whatever the
//!   audience), `snapshot`.
//! - `rival.rs`: stored runs raced as rivals (`add_rival`).
//! - `colours.rs`: each racer's colour, the same on every screen.
//! - `screens.rs`: screens (a TV showing the room) and party rooms.
//! - `matches.rs`: a match of several rounds: its settings, the
//!   intermission between rounds, the table and the tally.
//! - `effects.rs`: what the state machine asks for.
//! - `export.rs`: a room as it moves to another node while this one
//!   drains, and made again there (issue 27).
//! - `actor.rs`: the task: inbox, one timer, shutdown, carrying out effects,
//!   the daily store's calls.
//! - `tests.rs`: the helpers of the state machine's unit tests (no sockets
//!   or tasks); the tests are by topic in the `*_tests.rs` files beside it
//!   (`race_tests.rs`, `member_tests.rs`, `pace_tests.rs`, `view_tests.rs`,
//!   `match_tests.rs`...).
//!
//! Membership has one owner, the room: a session only keeps the handle of
//! the room that accepted it (a join, or a reattach the room confirmed).
//!
//! Adding a room command: the variant and its handler. Most commands are
//! an [`Input`] (`input.rs`), handled by its arm in `Room::apply`
//! (`state.rs`), and sent
//! as one (`Input::X { .. }.into()`; the lobby's `forward` takes an
//! `Input`): the actor passes every `Input` through as it is, so nothing
//! maps one to another on the way. Only a command that answers on a reply
//! channel or needs what the actor alone holds (the members' outboxes, the
//! room's move) is a [`RoomCmd`] variant, with its arm in the actor's
//! `command`. A host command that would change what a moving room's
//! export holds is also named in `actor/moving.rs`'s refusal.

mod actor;
mod colours;
#[cfg(test)]
mod dropped_tests;
mod effects;
mod export;
#[cfg(test)]
mod export_tests;
mod input;
mod intermission;
mod joins;
mod lobby;
#[cfg(test)]
mod match_member_tests;
#[cfg(test)]
mod match_tests;
mod matches;
#[cfg(test)]
mod member_tests;
#[cfg(test)]
mod pace_tests;
mod play;
mod progress;
pub mod race;
#[cfg(test)]
mod race_tests;
mod rival;
mod rival_run;
#[cfg(test)]
mod rival_tests;
#[cfg(test)]
mod screen_tests;
mod screens;
#[cfg(test)]
mod secret_tests;
#[cfg(test)]
mod size_tests;
mod state;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod update_tests;
mod updates;
mod view;
#[cfg(test)]
mod view_tests;

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::matches::MatchSettings;
use mazerace_protocol::messages::{DailyResult, Phase, PlayerId, RankBy};
use mazerace_protocol::Board;
use mazerace_protocol::{Game, Size};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::daily::{DailyBoard, DailyHook};
use crate::drain::Drain;
use crate::edge::address::Slot;
use crate::load::Load;
use crate::moves::Moves;
use crate::outbox::Outbox;

pub use export::{spawn_adopted, Adoption, RoomExport};
pub use input::Input;

/// Where rooms are found by code (the registry): told when a room ends, so
/// that its code no longer leads to it. The room knows the registry only
/// through this.
pub trait Directory: Send + Sync {
    /// Room `id` under `code` has ended.
    fn remove(&self, code: &str, id: u64);
}

/// Commands waiting for a room beyond this make their senders wait.
const INBOX: usize = 256;

/// The way into a room.
#[derive(Clone)]
pub struct RoomHandle {
    pub code: Arc<str>,
    /// Tells this room from a later one that reuses its code.
    pub id: u64,
    /// The invite key its links carry.
    key: Arc<str>,
    tx: mpsc::Sender<RoomCmd>,
}

/// What became of a command handed to a room without waiting.
pub enum Handed {
    Done,
    /// The inbox is full: the command back, to wait with.
    Full(RoomCmd),
    /// The room has closed.
    Closed,
}

/// Why a join failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinError {
    Full,
    /// The room ended in the meantime.
    Gone,
}

impl RoomHandle {
    /// The invite key its links carry.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether `key` is this room's invite key.
    pub fn key_is(&self, key: &str) -> bool {
        *self.key == *key
    }

    /// Sends `cmd`; `false` if the room has closed. Waits only while the
    /// inbox is full (see [`RoomHandle::wait_send`]).
    pub async fn send(&self, cmd: RoomCmd) -> bool {
        match self.hand(cmd) {
            Handed::Done => true,
            Handed::Full(cmd) => self.wait_send(cmd).await,
            Handed::Closed => false,
        }
    }

    /// Hands `cmd` to the room's inbox without waiting: a player's move
    /// takes this path and awaits nothing, so no send future sits in the
    /// connection's task (its size is memory per idle player).
    pub fn hand(&self, cmd: RoomCmd) -> Handed {
        match self.tx.try_send(cmd) {
            Ok(()) => Handed::Done,
            Err(TrySendError::Full(cmd)) => Handed::Full(cmd),
            Err(TrySendError::Closed(_)) => Handed::Closed,
        }
    }

    /// Waits for room in the inbox and sends `cmd`; `false` if the room has
    /// closed. Boxed: rare, and inline it would add its size to every
    /// future that may wait on a room.
    pub async fn wait_send(&self, cmd: RoomCmd) -> bool {
        Box::pin(self.tx.send(cmd)).await.is_ok()
    }

    /// Sends a command that answers, and waits for the answer (`None`: the
    /// room closed).
    async fn ask<T>(&self, cmd: impl FnOnce(oneshot::Sender<T>) -> RoomCmd) -> Option<T> {
        let (reply, rx) = oneshot::channel();
        if !self.send(cmd(reply)).await {
            return None;
        }
        rx.await.ok()
    }

    pub async fn join(&self, member: NewMember, spectate: bool) -> Result<(), JoinError> {
        self.ask(|reply| RoomCmd::Join { member, spectate, reply }).await.unwrap_or(Err(JoinError::Gone))
    }

    /// Puts player `id` back on a new connection; `false` if they are no
    /// longer a member (or the room is gone).
    pub async fn reattach(&self, id: PlayerId, outbox: Outbox) -> bool {
        self.ask(|reply| RoomCmd::Reattach { id, outbox, reply }).await.unwrap_or(false)
    }

    /// What an invite card shows of the room (`None`: the room is gone).
    pub async fn preview(&self) -> Option<RoomPreview> {
        self.ask(|reply| RoomCmd::Preview { reply }).await
    }

    /// The node is draining: the room moves now if it may (its answer
    /// comes once a move has begun, so the drain counts it).
    pub async fn drain(&self) {
        self.ask(|reply| RoomCmd::Drain { reply }).await;
    }

    /// Renames member `id`; `false` while they race (or the room is gone).
    pub async fn rename(&self, id: PlayerId, name: Arc<str>) -> Option<bool> {
        self.ask(|reply| RoomCmd::Rename { id, name, reply }).await
    }
}

/// `GET /api/rooms/{code}?k=KEY`: what someone holding the invite link
/// sees before joining (PROTOCOL.md, "HTTP on the same port").
#[derive(Clone, Debug, serde::Serialize, PartialEq, Eq)]
pub struct RoomPreview {
    pub code: String,
    pub game: Game,
    pub size: Size,
    pub phase: mazerace_protocol::messages::Phase,
    /// The host's name.
    pub host: String,
    /// The racers' names (rivals included), in the room's order.
    pub players: Vec<String>,
    pub spectators: u32,
    pub max_players: u32,
}

/// A player entering a room.
pub struct NewMember {
    pub id: PlayerId,
    pub name: Arc<str>,
    pub token: Arc<str>,
    pub outbox: Outbox,
    /// A screen (a TV showing the room), not a player.
    pub screen: bool,
}

/// What a room is sent. Most commands are an [`Input`] for the state
/// machine, passed through as they are; the rest are the actor's own: they
/// answer on a reply channel, or need what only the actor holds (the
/// members' outboxes, the room's move off a draining node), and those that
/// change the room feed the state machine an [`Input`] of their own.
pub enum RoomCmd {
    /// For the state machine (`state.rs`'s `Room::apply`), unchanged.
    Input(Input),
    /// A player joins: answered `Err` if the room will not have them
    /// (`Room::check_join`), and let in only if the `Ok` reaches them.
    Join { member: NewMember, spectate: bool, reply: oneshot::Sender<Result<(), JoinError>> },
    /// The player resumed on a new connection.
    Reattach { id: PlayerId, outbox: Outbox, reply: oneshot::Sender<bool> },
    /// The player's connection `conn` dropped; they may resume.
    Detach { id: PlayerId, conn: u64 },
    /// The player left (or `expired`: stayed away past the resume window):
    /// their outbox hears nothing more.
    Leave { id: PlayerId, expired: bool },
    /// Answered `false` while the player races.
    Rename { id: PlayerId, name: Arc<str>, reply: oneshot::Sender<bool> },
    /// The daily store committed a result for `id` (or failed to).
    DailyDone {
        id: PlayerId,
        result: Option<Box<DailyResult>>,
        /// A draining node exits only once the player is told.
        hold: crate::drain::Hold,
    },
    /// An invite card's question (see [`RoomPreview`]).
    Preview { reply: oneshot::Sender<RoomPreview> },
    /// The node began draining (see [`RoomHandle::drain`]).
    Drain { reply: oneshot::Sender<()> },
    /// The room's move is settled: its new place, or `None` (it stays).
    Moved {
        to: Option<mazerace_protocol::messages::RoomRef>,
        /// A draining node exits only once the members are told.
        hold: crate::drain::Hold,
    },
}

impl From<Input> for RoomCmd {
    fn from(input: Input) -> Self {
        RoomCmd::Input(input)
    }
}

/// What a room is made with.
pub struct RoomSettings {
    /// The current board's game and size (in a match, the round's).
    pub game: Game,
    pub size: Size,
    /// The size the room was made for: single races are raced at it, and a
    /// match's plan starts from it.
    pub base: Size,
    /// The room plays matches of several rounds (`None`: single races).
    pub format: Option<MatchSettings>,
    /// The next match's seed: its rounds after the first are raced on
    /// boards of it (`MatchSettings::board`). Drawn by the server, and
    /// nobody learns it before the match is over.
    pub match_seed: u64,
    pub rank_by: RankBy,
    pub max_players: u32,
    pub board: Board,
    /// A daily room's date and seed (a room of one).
    pub daily: Option<DailyBoard>,
    /// The invite secret links carry (`/r/CODE?k=KEY`).
    pub key: Arc<str>,
    /// A party room: made by a screen (its first member), hosted by the
    /// first player who joins.
    pub party: bool,
}

/// The room's clock settings (from [`Config`]).
#[derive(Clone, Copy, Debug)]
pub struct Timings {
    /// Countdown numbers before the start signal (3: "3, 2, 1").
    pub countdown_secs: u32,
    pub countdown_step: Duration,
    /// Countdown steps between two rounds of a match.
    pub intermission_secs: u32,
    pub race_time_limit: Duration,
    /// The progress window's floor and ceiling.
    pub progress: progress::Window,
    /// At most one `room` per room per this (`updates.rs`).
    pub room_window: Duration,
    /// Ranked daily runs: the pace of accepted moves (see [`race::Pace`]).
    pub ranked_pace: race::Pace,
    /// The longest a room holds only screens (a party room nobody joined,
    /// or whose players all left): then it closes.
    pub screens_alone: Duration,
}

/// What every room needs from the server, shared by all rooms.
pub struct RoomEnv {
    pub timings: Timings,
    pub max_spectators: u32,
    /// Screens per room (TVs showing it), outside the racers and spectators.
    pub max_screens: u32,
    pub daily: Option<Arc<dyn DailyHook>>,
    pub tracker: TaskTracker,
    pub shutdown: CancellationToken,
    /// How busy the runtime is (the progress window widens with it).
    pub load: Load,
    /// Counts the rooms playing, for the drain to wait on.
    pub drain: Arc<Drain>,
    /// Where a room goes while the node drains.
    pub moves: Arc<Moves>,
}

impl RoomEnv {
    pub fn new(
        cfg: &Config,
        daily: Option<Arc<dyn DailyHook>>,
        tracker: TaskTracker,
        shutdown: CancellationToken,
        drain: Arc<Drain>,
        moves: Arc<Moves>,
    ) -> Self {
        RoomEnv {
            timings: Timings {
                countdown_secs: cfg.countdown_secs,
                countdown_step: cfg.countdown_step,
                intermission_secs: cfg.intermission_secs,
                race_time_limit: cfg.race_time_limit,
                progress: progress::Window { floor: cfg.progress_interval, ceil: cfg.progress_max },
                room_window: cfg.room_interval,
                ranked_pace: race::Pace { floor: cfg.ranked_move_floor, burst: cfg.ranked_move_burst },
                screens_alone: cfg.screens_alone,
            },
            max_spectators: cfg.max_spectators,
            max_screens: cfg.max_screens,
            daily,
            tracker,
            shutdown,
            load: Load::default(),
            drain,
            moves,
        }
    }

    /// A room went from phase `from` to `to` (`None`: made, or ended): the
    /// metric and the drain's count.
    pub(crate) fn phase_moved(&self, from: Option<Phase>, to: Option<Phase>) {
        crate::metrics::room_phase(from, to);
        self.drain.room_phase(from, to);
    }
}

/// Starts room `id` under `code` with `host` in it and returns its handle;
/// the room removes itself from `directory` when it ends. `slot` is the
/// room's place among its creator's address's, held until the room ends.
pub fn spawn(
    env: &Arc<RoomEnv>,
    directory: Arc<dyn Directory>,
    code: &str,
    id: u64,
    settings: RoomSettings,
    host: NewMember,
    slot: Slot,
) -> RoomHandle {
    let (tx, rx) = mpsc::channel(INBOX);
    let code: Arc<str> = code.into();
    let key = Arc::clone(&settings.key);
    let origin = actor::Origin { env: Arc::clone(env), directory, slot: Some(slot) };
    let room = state::Room::new(Arc::clone(&code), settings, env.timings, (host.id, host.name, host.token));
    actor::start(origin, Arc::clone(&code), id, room, vec![(host.id, host.outbox)], tx.downgrade(), rx);
    RoomHandle { code, id, key, tx }
}
