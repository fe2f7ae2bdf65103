//! Every WebSocket message, as JSON text frames that are objects with a
//! `"type"`. [`ClientMsg`] goes from a client to the server, [`ServerMsg`]
//! back. PROTOCOL.md shows each with an example; the tests assert those
//! examples byte for byte, so change both together.
//!
//! Conventions: positions are `[row, col]`; seeds are decimal strings;
//! optional fields are omitted rather than sent as `null`, except where a
//! `null` means something (`true_par` of an unsolvable vault).
//!
//! - `client.rs`: [`ClientMsg`], and decoding a frame into one.
//! - `server.rs`: [`ServerMsg`] and what its messages carry.
//! - here: the small vocabulary both directions share.

mod client;
mod daily;
mod server;

pub use crate::games::Reveal;
pub use client::{ClientMsg, DecodeError, RoomRef};
pub use daily::{DailyResult, Leaderboard, LeaderboardEntry};
pub use server::*;

use serde::{Deserialize, Serialize};

/// A player's id, stable for the life of the server process.
pub type PlayerId = u32;

/// How a room orders its finishers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankBy {
    /// Finish time first (the default); equal times break by steps.
    #[default]
    Time,
    /// Steps first; equal steps break by time.
    Steps,
}

/// Where a room is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Gathering players; the host may start the countdown.
    Lobby,
    /// Counting down to the start signal.
    Countdown,
    /// The race is on.
    Racing,
    /// The race is over and its results are out; the host may call a rematch
    /// (in a match: the match is over).
    Results,
    /// A match between two rounds: the last round's results are out and the
    /// next round starts when the intermission has counted down (or the
    /// host starts it at once).
    Intermission,
}

/// A racer's standing in the current race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RacerStatus {
    /// Still playing.
    Racing,
    /// Reached the goal.
    Finished,
    /// Ghost: used the whole allowance without reaching the flag.
    OutOfSteps,
    /// Left the room, or stayed away past the resume window.
    Left,
    /// Still going when the race's time limit ran out.
    TimedOut,
    /// Ended their own run with `give_up`.
    GaveUp,
}

/// Which stored run `add_rival` races, when it names no `run_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RivalPick {
    /// The #1 of this daily board's table.
    Best,
    /// Your own ranked finish on this daily board (your line on its table).
    Mine,
    /// Your own finish in this room's last race (practice rooms too: it is
    /// kept in the room, not in the store).
    Last,
}

/// Why a daily attempt is practice ([`RoomInfo::practice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PracticeReason {
    /// The player's ranked try on this board is done.
    Played,
    /// The player's network address (IPv6: its /64) has its cap of ranked
    /// runs on this board today (`--ranked-per-address`).
    AddressCap,
}

/// The limits a client should respect, announced in `welcome`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Messages a second, sustained.
    pub msgs_per_sec: u32,
    /// Messages allowed at once above the sustained rate.
    pub msgs_burst: u32,
    /// A name's longest length, in Unicode scalar values after trimming.
    pub max_name_chars: u32,
    /// How long a dropped session waits for a resume.
    pub resume_window_ms: u64,
    /// A ranked daily run's fastest pace: milliseconds a move, sustained
    /// (faster moves are refused `too_fast`; the client paces under it).
    #[serde(default)]
    pub ranked_move_ms: u32,
    /// Moves a ranked daily run may make at once above that pace.
    #[serde(default)]
    pub ranked_move_burst: u32,
}

/// Why the server refused a message. Each comes with a human `message`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, or not an object with a known `type` and its fields.
    BadMessage,
    /// A binary frame; only text frames are spoken.
    BinaryFrame,
    /// Anything but `hello` before `hello`, or a second `hello`.
    HelloFirst,
    /// The `hello` name is empty, over 24 characters, or has control characters.
    BadName,
    /// The size does not belong to the game, or a daily room with a seed.
    BadSize,
    /// A seed that is not a `u64` in decimal.
    BadSeed,
    /// `create_room` with the seed of a daily board whose day is not over
    /// (today's or a coming day's, any game or size): it is revealed, and
    /// may be played in any room, from the next day.
    DailySeed,
    /// A leaderboard `date` that is not a real day written `YYYY-MM-DD`.
    BadDate,
    /// A room message while in no room.
    NotInRoom,
    /// `create_room` or `join_room` while already in a room.
    AlreadyInRoom,
    /// No room has that code (it never did, or it has closed).
    RoomNotFound,
    /// The code belongs to another node (several nodes behind a load
    /// balancer): its first character names the node; the message says which.
    WrongNode,
    /// The room has all the racers (or spectators) it takes.
    RoomFull,
    /// Only the host may do that (start, rematch).
    NotHost,
    /// A message that does not fit the room's phase (start while racing ...).
    WrongPhase,
    /// A move or rewind while not racing (or as a spectator).
    NotRacing,
    /// Over the message rate; this message was dropped.
    RateLimited,
    /// This connection made too many rooms in a short time.
    TooManyRooms,
    /// This address failed too many joins (unknown codes) in a short time.
    TooManyJoins,
    /// This address joined rooms too often in a short time (by code or by
    /// invite link): joining and leaving over and over would make every
    /// member of a room hear of each.
    JoinsTooFast,
    /// Too many live players (sessions) from one network address.
    TooManySessions,
    /// The daily challenge cannot be reached right now (the store is busy
    /// or away): nothing was lost, try again in a moment.
    DailyUnavailable,
    /// The server has all the connections it takes.
    ServerFull,
    /// No league has that code (a failed join, counted like a room code's).
    LeagueNotFound,
    /// The league has all the members it takes (50).
    LeagueFull,
    /// You are in as many leagues as a player may be (10), or made leagues
    /// or joined too fast from this connection.
    TooManyLeagues,
    /// `league_standings` with `days` other than 7 or 30.
    BadDays,
    /// `add_rival`: no such run, nobody has finished the board yet, or you
    /// have no finish to race.
    RivalNotFound,
    /// `add_rival`: a run on today's board by someone else; others' runs are
    /// raced (and replayed) from the next day, your own at once.
    RivalHidden,
    /// `add_rival`: the run was made on another board than the room's.
    RivalOtherBoard,
    /// `add_rival`: the stored run no longer replays to its stored result
    /// (the rules changed since), so it is not shown wrong.
    RivalChanged,
    /// A daily room plays single races only: `create_room` with `daily`
    /// and `match`, or `set_match` in a daily room.
    DailyMatch,
    /// `add_rival`: not now (the run did not finish, the room has all its
    /// rivals or already has that run, your ranked try on this daily board
    /// is still to come, or a `pick` that needs a daily room).
    RivalRefused,
    /// `create_room` on a node that is draining (restarting): it makes no
    /// new room. Reconnect (with no room in the URL) and ask again: the
    /// load balancer sends that connection to another node.
    Draining,
    /// A screen (a TV showing the room) asked to race or host: it shows
    /// the room and does nothing else; or a screen's join without the
    /// room's key, or into a daily room.
    Screen,
    /// The server could not do it (a board or the daily store failed, or the
    /// daily challenge is not configured).
    Internal,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
