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
use crate::daily::DailyDate;
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
        /// The name to show others; the server trims it and refuses an empty one,
        /// one over 24 characters or one with control characters (`bad_name`).
        name: String,
        /// A `welcome` token from an earlier connection, to resume that player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Make a room and join it as host. `daily: true` makes a room of one on
    /// today's daily board for `game`/`size` (then `seed` must be absent).
    /// `{"type":"create_room","game":"ghost","size":"small"}`
    CreateRoom {
        /// Which game the room plays.
        game: Game,
        /// The board's size; it must be one of `game`'s (else `bad_size`).
        size: Size,
        /// The board's seed; absent: the server draws one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<Seed>,
        /// How the room orders its finishers; absent: by time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rank_by: Option<RankBy>,
        /// Racers the room takes; absent: the server's `--max-players`. Clamped to
        /// 1..=64.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_players: Option<u32>,
        /// Today's daily board for `game`/`size` instead of a seeded one.
        #[serde(default, skip_serializing_if = "is_false")]
        daily: bool,
    },
    /// Join a room by its code; `spectate` watches without racing.
    /// `{"type":"join_room","code":"K7M2Q"}`
    JoinRoom {
        /// The room's code, as the host shares it.
        code: String,
        /// Watch the room instead of racing in it.
        #[serde(default, skip_serializing_if = "is_false")]
        spectate: bool,
        /// The room's `key`, from an invite link: a join with the right key
        /// is never held up by the failed-join limit (others' guessing).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// Leave the current room.
    LeaveRoom {},
    /// Mark yourself ready (or not) in the lobby; informational.
    Ready {
        /// Ready (true) or not.
        ready: bool,
    },
    /// Host only: start the countdown.
    Start {},
    /// One step. `seq` is the client's own counter, echoed in `move_result`.
    /// `{"type":"move","dir":"up","seq":1}`
    Move {
        /// Which way to step.
        dir: Dir,
        /// The client's counter, echoed in the answer.
        seq: u32,
    },
    /// Ghost only: end run one and start run two.
    Rewind {
        /// The client's counter, echoed in the answer.
        seq: u32,
    },
    /// Host only, after results: back to the lobby for another race, on a
    /// new board, or on the same one with `same_board` ("try this board
    /// again"; the only rematch a daily room has, and never ranked).
    /// `{"type":"rematch","same_board":true}`
    Rematch {
        /// Race the same board again instead of a new one.
        #[serde(default, skip_serializing_if = "is_false")]
        same_board: bool,
    },
    /// Change your name (validated like `hello`'s); not while racing.
    /// `{"type":"rename","name":"Bo"}`
    Rename {
        /// The new name.
        name: String,
    },
    /// End your own run now, not finished (instead of walking out the
    /// step budget). `{"type":"give_up"}`
    GiveUp {},
    /// Liveness check; answered with `pong`.
    Ping {},
    /// Ask for a daily board's table (today when `date` is absent).
    /// `{"type":"leaderboard","game":"maze","size":"easy"}`
    Leaderboard {
        /// The daily board's game.
        game: Game,
        /// The daily board's size.
        size: Size,
        /// The UTC day, `YYYY-MM-DD`; absent: today.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        date: Option<DailyDate>,
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
    pub fn decode(text: &str) -> Result<ClientMsg, DecodeError> {
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
            _ => serde_json::from_str(text).map_err(|e| DecodeError::of(text, &e)),
        }
    }
}

/// Why a frame is not a [`ClientMsg`], with the error code to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// `bad_seed` for a `create_room` whose seed is not a `u64` in
    /// decimal, `bad_date` for a `leaderboard` whose date is not a real
    /// `YYYY-MM-DD`, `bad_message` for anything else.
    pub code: ErrorCode,
    /// serde's account of what is wrong (it may quote the client's input).
    pub message: String,
}

impl DecodeError {
    /// The code is decided by running the frame's own `seed` (or `date`)
    /// through its parser, not by reading serde's English.
    fn of(text: &str, e: &serde_json::Error) -> DecodeError {
        let v: Option<serde_json::Value> = serde_json::from_str(text).ok();
        let field = |ty: &str, name: &str| {
            v.as_ref().filter(|v| v["type"] == ty).and_then(|v| v.get(name)?.as_str().map(str::to_owned))
        };
        let code = if field("create_room", "seed").is_some_and(|s| s.parse::<Seed>().is_err()) {
            ErrorCode::BadSeed
        } else if field("leaderboard", "date").is_some_and(|d| d.parse::<DailyDate>().is_err()) {
            ErrorCode::BadDate
        } else {
            ErrorCode::BadMessage
        };
        DecodeError { code, message: e.to_string() }
    }
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
    /// The race is over and its results are out; the host may call a rematch.
    Results,
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

/// One member of a room, as listed in `room`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerInfo {
    /// The member's player id.
    pub id: PlayerId,
    /// Their name.
    pub name: String,
    /// Whether they said they are ready (informational).
    pub ready: bool,
    /// Watching rather than racing: they asked to spectate, or joined while a
    /// race they are not in is on.
    pub spectator: bool,
    /// False while their connection is down and their session waits for a resume.
    pub connected: bool,
}

/// The room's public state, sent whenever it changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomInfo {
    /// The code others join with.
    pub code: String,
    /// The member who may start races and call rematches.
    pub host: PlayerId,
    /// The board's game.
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// Where the room is in its life.
    pub phase: Phase,
    /// How the room orders its finishers.
    pub rank_by: RankBy,
    /// Racers the room takes (spectators come on top).
    pub max_players: u32,
    /// A daily room: a room of one on today's daily board.
    #[serde(default, skip_serializing_if = "is_false")]
    pub daily: bool,
    /// Daily rooms only: whether this attempt is the player's ranked one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranked: Option<bool>,
    /// Daily practice only: when the player's ranked try on this board
    /// started (RFC 3339, UTC), to say why this one is practice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranked_at: Option<String>,
    /// The room's invite secret (16 hex digits) for links: `/r/CODE?k=KEY`.
    pub key: String,
    /// Every member, racers and spectators.
    pub players: Vec<PlayerInfo>,
}

/// One racer's progress as others see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Whose progress this is.
    pub id: PlayerId,
    /// Where they stand.
    pub pos: Pos,
    /// Steps (Ghost) or moves (maze) used so far.
    pub steps: u32,
    /// Ghost only: 1 or 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u8>,
    /// Their standing in the race.
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
    /// Whose line this is.
    pub player_id: PlayerId,
    /// Their name.
    pub name: String,
    /// How their race ended.
    pub status: RacerStatus,
    /// Steps (Ghost) or moves (maze) used.
    pub steps: u32,
    /// The race time in whole milliseconds, from the start signal (or, for
    /// a solo racer and a daily run, from their first accepted action) to
    /// the finish; absent if not finished. RULES.md, "Races".
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
    /// A vault's answer.
    Ghost {
        /// The builder's par, which set the allowance.
        par: u32,
        /// `null` when the vault is a fallback nobody can solve.
        true_par: Option<u32>,
        /// One line that wins in `true_par` steps (empty when none does).
        solution: Vec<Action>,
    },
    /// A maze's answer.
    Maze {
        /// The length of the shortest route.
        shortest: u32,
        /// One shortest route.
        solution: Vec<Action>,
    },
}

/// The answer to a daily run, sent only after it is committed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DailyResult {
    /// The daily board's UTC day, `YYYY-MM-DD`.
    pub date: String,
    /// The daily board's game.
    pub game: Game,
    /// The daily board's size.
    pub size: Size,
    /// False for practice (a later attempt the same day).
    pub ranked: bool,
    /// Whether the run reached the goal.
    pub finished: bool,
    /// Steps (Ghost) or moves (maze) used.
    pub steps: u32,
    /// From the first accepted action to the finish; absent if not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// The run's place on the day's table; absent for practice and for a run
    /// that did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Ranked runs started on this board so far, finished or not.
    pub entrants: u32,
    /// Consecutive UTC days, up to today, with a ranked run.
    pub streak: u32,
    /// Spoiler-free text to share.
    pub share: String,
    /// The stored run, for the replay view (`GET /api/daily/runs/{id}`).
    pub run_id: i64,
}

/// One line of a daily leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// 1-based; runs equal on steps and time share a rank.
    pub rank: u32,
    /// The player's name.
    pub name: String,
    /// Steps (Ghost) or moves (maze) used.
    pub steps: u32,
    /// From the first accepted action to the finish.
    pub time_ms: u64,
    /// Id of the stored run, for the replay view.
    pub run_id: i64,
}

/// A daily board's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The board's UTC day, `YYYY-MM-DD`.
    pub date: String,
    /// The board's game.
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// Ranked runs started on this board, finished or not.
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
    /// The room, as `room` shows it.
    pub room: RoomInfo,
    /// The public board, once a race has started on it (racing or results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<PublicBoard>,
    /// Your own game, when you are racing or have raced this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<GameView>,
    /// Ghost: your run-one recording, so the ghost can be drawn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recording: Vec<Dir>,
    /// The racers' latest progress.
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
    /// The `hello` name is empty, over 24 characters, or has control characters.
    BadName,
    /// The size does not belong to the game, or a daily room with a seed.
    BadSize,
    /// A seed that is not a `u64` in decimal.
    BadSeed,
    /// A leaderboard `date` that is not a real day written `YYYY-MM-DD`.
    BadDate,
    /// A room message while in no room.
    NotInRoom,
    /// `create_room` or `join_room` while already in a room.
    AlreadyInRoom,
    /// No room has that code (it never did, or it has closed).
    RoomNotFound,
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
    /// Too many live players (sessions) from one network address.
    TooManySessions,
    /// The daily challenge cannot be reached right now (the store is busy
    /// or away): nothing was lost, try again in a moment.
    DailyUnavailable,
    /// The server has all the connections it takes.
    ServerFull,
    /// The server could not do it (a board or the daily store failed, or the
    /// daily challenge is not configured).
    Internal,
}

/// Server to client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `hello`. Keep `token` to resume after a dropped connection.
    /// `name` is the name the server knows you by; `limits` are the ones a
    /// client should pace and validate with.
    Welcome {
        /// Your player id.
        player_id: PlayerId,
        /// Your session token: send it in `hello` to resume after a drop.
        token: String,
        /// Whether this resumed an earlier session.
        resumed: bool,
        /// The name the server knows you by (a resume may have renamed you).
        name: String,
        /// What to pace and validate with.
        limits: Limits,
    },
    /// Answer to `rename`: the name you now have.
    Renamed {
        /// Your name now.
        name: String,
    },
    /// The room changed (members, ready flags, phase, host).
    Room(RoomInfo),
    /// Seconds left before the race starts: 3, 2, 1, each with the board,
    /// so that every racer studies it for the same time.
    Countdown {
        /// Seconds until the start signal.
        seconds: u32,
        /// The board, without its answer.
        board: PublicBoard,
    },
    /// The race begins now; the board has no answers in it. `clock` says
    /// where each racer's time starts (fixed for the whole race).
    RaceStart {
        /// The board, without its answer.
        board: PublicBoard,
        /// The race's time limit, from now.
        time_limit_ms: u64,
        /// Where each racer's time starts.
        clock: Clock,
    },
    /// The answer to one `move`: `ok`, the reason if not, and your state after it.
    MoveResult {
        /// The `seq` of the `move` this answers.
        seq: u32,
        /// Whether the move was applied.
        ok: bool,
        /// Why not, when it was refused.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<Reject>,
        /// Your game after it (its fields sit in the message itself).
        #[serde(flatten)]
        view: GameView,
    },
    /// The answer to one `rewind`.
    RewindResult {
        /// The `seq` of the `rewind` this answers.
        seq: u32,
        /// Whether the rewind was applied.
        ok: bool,
        /// Why not, when it was refused.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<Reject>,
        /// Your game after it (its fields sit in the message itself).
        #[serde(flatten)]
        view: GameView,
    },
    /// Coalesced: only racers whose progress changed since the last one.
    Progress {
        /// The racers whose progress changed.
        players: Vec<Progress>,
    },
    /// Someone reached the goal.
    Finished {
        /// Who finished.
        player_id: PlayerId,
        /// Steps (Ghost) or moves (maze) they used.
        steps: u32,
        /// Their time (see [`Ranking::time_ms`]).
        time_ms: u64,
        /// Their rank among those finished so far: final under `rank_by: time`;
        /// under `steps` a later finisher with fewer steps can still pass them.
        rank: u32,
    },
    /// The race is over.
    Results {
        /// Every racer: finishers in rank order, then those who did not finish.
        rankings: Vec<Ranking>,
        /// The board's answer.
        reveal: Reveal,
    },
    /// Sent after `welcome` on a resume, and to a spectator joining mid-race.
    Snapshot(Box<Snapshot>),
    /// A daily run was stored (sent after the commit).
    DailyResult(DailyResult),
    /// The answer to `leaderboard`.
    Leaderboard(Leaderboard),
    /// A refusal of the message just received.
    Error {
        /// Which refusal.
        code: ErrorCode,
        /// A sentence for a person.
        message: String,
    },
    /// The answer to `ping`.
    Pong,
    /// The server is going down; the socket closes with 1001 next.
    ServerShutdown,
}
