//! Every WebSocket message, as JSON text frames that are objects with a
//! `"type"`. [`ClientMsg`] goes from a client to the server, [`ServerMsg`]
//! back. PROTOCOL.md shows each with an example; the tests assert those
//! examples byte for byte, so change both together.
//!
//! Conventions: positions are `[row, col]`; seeds are decimal strings;
//! optional fields are omitted rather than sent as `null`, except where a
//! `null` means something (`true_par` of an unsolvable vault).

use serde::{Deserialize, Serialize};

use crate::board::{PublicBoard, Seed};
use crate::grid::{Dir, Game, Pos, Size};
use crate::play::{Action, GameView, Reject};
use crate::race::Clock;

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

/// Client to server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// The first message on every connection. `token` (from an earlier
    /// `welcome`) resumes that player, within the resume window.
    /// `{"type":"hello","name":"Ann"}`
    Hello {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Make a room and join it as host. `daily: true` makes a room of one on
    /// today's daily board for `game`/`size` (then `seed` must be absent).
    /// `{"type":"create_room","game":"ghost","size":"small"}`
    CreateRoom {
        game: Game,
        size: Size,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<Seed>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rank_by: Option<RankBy>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_players: Option<u32>,
        #[serde(default, skip_serializing_if = "is_false")]
        daily: bool,
    },
    /// Join a room by its code; `spectate` watches without racing.
    /// `{"type":"join_room","code":"K7M2Q"}`
    JoinRoom {
        code: String,
        #[serde(default, skip_serializing_if = "is_false")]
        spectate: bool,
    },
    /// Leave the current room.
    LeaveRoom,
    /// Mark yourself ready (or not) in the lobby; informational.
    Ready { ready: bool },
    /// Host only: start the countdown.
    Start,
    /// One step. `seq` is the client's own counter, echoed in `move_result`.
    /// `{"type":"move","dir":"up","seq":1}`
    Move { dir: Dir, seq: u32 },
    /// Ghost only: end run one and start run two.
    Rewind { seq: u32 },
    /// Host only, after results: back to the lobby for another race, on a
    /// new board, or on the same one with `same_board` ("try this board
    /// again"; the only rematch a daily room has, and never ranked).
    /// `{"type":"rematch","same_board":true}`
    Rematch {
        #[serde(default, skip_serializing_if = "is_false")]
        same_board: bool,
    },
    /// Change your name (validated like `hello`'s); not while racing.
    /// `{"type":"rename","name":"Bo"}`
    Rename { name: String },
    /// End your own run now, not finished (instead of walking out the
    /// step budget). `{"type":"give_up"}`
    GiveUp,
    /// Liveness check; answered with `pong`.
    Ping,
    /// Ask for a daily board's table (today when `date` is absent).
    /// `{"type":"leaderboard","game":"maze","size":"easy"}`
    Leaderboard {
        game: Game,
        size: Size,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        date: Option<String>,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ClientMsg {
    /// Decode one text frame; the same answer as `serde_json::from_str`, faster
    /// for `move`. Moves are nearly every frame in a race, and serde decodes an
    /// internally tagged enum by first buffering the whole object into a
    /// generic tree, then matching the tag: about a fifth of the server's work
    /// per move. A plain struct of exactly `move`'s fields skips that; any
    /// other frame (or a move with an escape, a duplicate or an extra field)
    /// falls through to the full decoder, which gives the precise error.
    pub fn decode(text: &str) -> Result<ClientMsg, serde_json::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct MoveFrame<'a> {
            #[serde(rename = "type", borrow)]
            kind: &'a str,
            dir: Dir,
            seq: u32,
        }
        match serde_json::from_str::<MoveFrame<'_>>(text) {
            Ok(MoveFrame { kind: "move", dir, seq }) => Ok(ClientMsg::Move { dir, seq }),
            _ => serde_json::from_str(text),
        }
    }
}

/// Where a room is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Lobby,
    Countdown,
    Racing,
    Results,
}

/// A racer's standing in the current race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RacerStatus {
    Racing,
    Finished,
    OutOfSteps,
    /// Left the room, or stayed away past the resume window.
    Left,
    /// Still going when the race's time limit ran out.
    TimedOut,
    /// Ended their own run with `give_up`.
    GaveUp,
}

/// One member of a room, as listed in `room`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerInfo {
    pub id: PlayerId,
    pub name: String,
    pub ready: bool,
    pub spectator: bool,
    pub connected: bool,
}

/// The room's public state, sent whenever it changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomInfo {
    pub code: String,
    pub host: PlayerId,
    pub game: Game,
    pub size: Size,
    pub phase: Phase,
    pub rank_by: RankBy,
    pub max_players: u32,
    #[serde(default, skip_serializing_if = "is_false")]
    pub daily: bool,
    /// Daily rooms only: whether this attempt is the player's ranked one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranked: Option<bool>,
    /// Daily practice only: when the player's ranked try on this board
    /// started (RFC 3339, UTC), to say why this one is practice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranked_at: Option<String>,
    pub players: Vec<PlayerInfo>,
}

/// One racer's progress as others see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub id: PlayerId,
    pub pos: Pos,
    pub steps: u32,
    /// Ghost only: 1 or 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u8>,
    pub status: RacerStatus,
    /// Steps still between the racer and the goal by the shortest way
    /// ([`crate::Board::left_from`]), for progress bars.
    pub left: u32,
}

/// One line of the results table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// 1-based; absent for racers who did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    pub player_id: PlayerId,
    pub name: String,
    pub status: RacerStatus,
    pub steps: u32,
    /// From the race's start signal to the finish; absent if not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Rounded percent: `best / steps * 100` (`true_par` for Ghost,
    /// `shortest` for the maze); absent if not finished or unknowable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<u32>,
}

/// What the board's answer was, revealed with the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "lowercase")]
pub enum Reveal {
    Ghost {
        par: u32,
        /// `null` when the vault is a fallback nobody can solve.
        true_par: Option<u32>,
        solution: Vec<Action>,
    },
    Maze {
        shortest: u32,
        solution: Vec<Action>,
    },
}

/// The answer to a daily run, sent only after it is committed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DailyResult {
    pub date: String,
    pub game: Game,
    pub size: Size,
    /// False for practice (a later attempt the same day).
    pub ranked: bool,
    pub finished: bool,
    pub steps: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    pub entrants: u32,
    pub streak: u32,
    /// Spoiler-free text to share.
    pub share: String,
    /// The stored run, for the replay view (`GET /api/daily/runs/{id}`).
    pub run_id: i64,
}

/// One line of a daily leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    pub rank: u32,
    pub name: String,
    pub steps: u32,
    pub time_ms: u64,
    /// Id of the stored run, for the replay view.
    pub run_id: i64,
}

/// A daily board's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    pub date: String,
    pub game: Game,
    pub size: Size,
    pub entrants: u32,
    /// The top 100.
    pub entries: Vec<LeaderboardEntry>,
    /// The asking player's own line, when they have a ranked finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<LeaderboardEntry>,
}

/// Everything a resuming client needs to redraw the room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub room: RoomInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<PublicBoard>,
    /// Your own game, when you are racing or have raced this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<GameView>,
    /// Ghost: your run-one recording, so the ghost can be drawn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recording: Vec<Dir>,
    pub players: Vec<Progress>,
    /// Milliseconds on your race clock, when racing: since the start signal,
    /// or (`clock: first_move`) since your first accepted move, absent
    /// before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// The race's clock rule, once the race has started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
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
    BadName,
    /// The size does not belong to the game, or a daily room with a seed.
    BadSize,
    BadSeed,
    BadDate,
    NotInRoom,
    AlreadyInRoom,
    RoomNotFound,
    RoomFull,
    NotHost,
    /// A message that does not fit the room's phase (start while racing ...).
    WrongPhase,
    /// A move or rewind while not racing (or as a spectator).
    NotRacing,
    RateLimited,
    TooManyRooms,
    TooManyJoins,
    ServerFull,
    Internal,
}

impl ErrorCode {
    /// The code for a frame [`ClientMsg::decode`] refused: a seed that is not
    /// a `u64` in decimal is `bad_seed` (its message comes from
    /// [`Seed`]'s parser in this crate), anything else `bad_message`.
    pub fn for_decode_error(e: &serde_json::Error) -> ErrorCode {
        let text = e.to_string();
        if text.contains("a seed is") || text.contains("larger than 2^64") {
            ErrorCode::BadSeed
        } else {
            ErrorCode::BadMessage
        }
    }
}

/// Server to client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `hello`. Keep `token` to resume after a dropped connection.
    /// `name` is the name the server knows you by; `limits` are the ones a
    /// client should pace and validate with.
    Welcome {
        player_id: PlayerId,
        token: String,
        resumed: bool,
        name: String,
        limits: Limits,
    },
    /// Answer to `rename`: the name you now have.
    Renamed {
        name: String,
    },
    /// The room changed (members, ready flags, phase, host).
    Room(RoomInfo),
    /// Seconds left before the race starts: 3, 2, 1, each with the board,
    /// so that every racer studies it for the same time.
    Countdown {
        seconds: u32,
        board: PublicBoard,
    },
    /// The race begins now; the board has no answers in it. `clock` says
    /// where each racer's time starts (fixed for the whole race).
    RaceStart {
        board: PublicBoard,
        time_limit_ms: u64,
        clock: Clock,
    },
    /// The answer to one `move`: `ok`, the reason if not, and your state after it.
    MoveResult {
        seq: u32,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<Reject>,
        #[serde(flatten)]
        view: GameView,
    },
    /// The answer to one `rewind`.
    RewindResult {
        seq: u32,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<Reject>,
        #[serde(flatten)]
        view: GameView,
    },
    /// Coalesced: only racers whose progress changed since the last one.
    Progress {
        players: Vec<Progress>,
    },
    /// Someone reached the goal.
    Finished {
        player_id: PlayerId,
        steps: u32,
        time_ms: u64,
        rank: u32,
    },
    /// The race is over.
    Results {
        rankings: Vec<Ranking>,
        reveal: Reveal,
    },
    /// Sent after `welcome` on a resume, and to a spectator joining mid-race.
    Snapshot(Box<Snapshot>),
    /// A daily run was stored (sent after the commit).
    DailyResult(DailyResult),
    Leaderboard(Leaderboard),
    Error {
        code: ErrorCode,
        message: String,
    },
    Pong,
    /// The server is going down; the socket closes with 1001 next.
    ServerShutdown,
}
