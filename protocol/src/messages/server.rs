//! Server to client: every message the server sends, and the room, race
//! and results payloads they carry (the daily's are in `daily.rs`).

use serde::{Deserialize, Serialize};

use super::daily::{DailyResult, Leaderboard};
use super::{is_false, is_zero, ErrorCode, Limits, Phase, PlayerId, PracticeReason, RacerStatus, RankBy};
use crate::action::Reject;
use crate::daily::DailyDate;
use crate::games::{Game, Size};
use crate::games::{PublicBoard, Reveal};
use crate::grid::{Dir, Pos};
use crate::league::{League, LeagueBoard, LeagueStandings};
use crate::matches::{MatchOver, MatchRound, MatchSettings, MatchView, TallyLine};
use crate::play::GameView;
use crate::race::Clock;

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
    /// A racer's colour: an index into the clients' palette, the same on
    /// every screen, kept while they stay (the lowest no other racer of the
    /// room holds when they join). Absent for a spectator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<u8>,
    /// A rival: a stored run the server plays back, not a person
    /// (`add_rival`). It races and is ranked like anyone, never on a table.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rival: bool,
    /// A rival's stored run, when it came from the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<i64>,
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
    /// Daily practice only: why it is practice (`played`: the ranked try
    /// on this board is done; `address_cap`: the network address already
    /// has its cap of ranked runs on this board today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub practice: Option<PracticeReason>,
    /// The room's invite secret (16 hex digits) for links: `/r/CODE?k=KEY`.
    pub key: String,
    /// The members in join order, then the rivals. Every member who races
    /// (or would) is listed; of those who asked to watch, only the first
    /// few and the host, so that the message's size does not grow with
    /// the audience (`more_spectators` counts the rest).
    pub players: Vec<PlayerInfo>,
    /// Spectators in the room beyond those listed in `players` (absent: 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more_spectators: u32,
    /// Screens showing the room (TVs; never listed, never racing): phones
    /// stay quiet and leave the code and QR to them (absent: 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub screens: u32,
    /// A party room: made by a screen, hosted by the first player who
    /// joins it (absent: false). `host` is the screen's id while no player
    /// is in it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub party: bool,
    /// The room plays matches of this many rounds on these boards; absent:
    /// single races.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub format: Option<MatchSettings>,
    /// The match under way, or the one just over: its round, boards and table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standings: Option<Box<MatchView>>,
    /// Matches won in this room, per player, most first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tally: Vec<TallyLine>,
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
    /// Ghost, run two: where the racer's ghost stands (it replays their
    /// run one, which everyone watched), so a screen can draw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ghost: Option<Pos>,
    /// Their standing in the race.
    pub status: RacerStatus,
    /// Steps still between the racer and the goal by the shortest way
    /// ([`crate::Board::goal_distances`]), for progress bars.
    pub left: u32,
    /// Their name: in a `snapshot` only (a `progress` names nobody: the
    /// room lists who is in), so a member who resumes or joins mid-race
    /// can still name a racer who has left the room since the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
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
    /// A rival's line (a stored run played back; see [`PlayerInfo::rival`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub rival: bool,
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
        /// The board's answer; in a daily room while the board's day is on,
        /// without its `solution` (empty).
        reveal: Reveal,
        /// A daily room's board day while it is on: the solution is
        /// withheld until 00:00 UTC after it, for every player (a throwaway
        /// try would otherwise hand it to the next ranked one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hidden_until: Option<DailyDate>,
    },
    /// A match's intermission: the next round starts in `seconds` (sent
    /// each second), or is held by the host (`held`, no `seconds`).
    Intermission {
        /// The round that comes next.
        round: u32,
        /// Seconds until its countdown; absent while held.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seconds: Option<u32>,
        /// The host holds the intermission.
        #[serde(default, skip_serializing_if = "is_false")]
        held: bool,
    },
    /// A round of a match is scored (after its `results`): its board, its
    /// results and each player's points. Sent once per round as it ends, and
    /// again, round by round, to a member who resumes or joins mid-match,
    /// so the podium can show every round without one message holding them
    /// all.
    MatchRound(Box<MatchRound>),
    /// The match is over (after its last round's `results` and `match_round`).
    MatchOver(Box<MatchOver>),
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
    /// The answer to `create_league` and `join_league`.
    League(League),
    /// The answer to `leave_league`.
    LeagueLeft {
        /// The league left.
        code: String,
        /// Whether you were a member.
        left: bool,
    },
    /// The answer to `remove_member`.
    MemberRemoved {
        /// The league.
        code: String,
        /// The member asked for.
        member: String,
        /// False if they were not a member (already gone, or yourself).
        removed: bool,
    },
    /// The answer to `new_league_code`.
    LeagueCodeChanged {
        /// The code the league had.
        old_code: String,
        /// The league under its new code, with its new invite key.
        league: League,
    },
    /// The answer to `my_leagues`.
    Leagues {
        /// Your leagues, in the order you joined them, each with `today`.
        leagues: Vec<League>,
    },
    /// The answer to `league_board`.
    LeagueBoard(LeagueBoard),
    /// The answer to `league_standings`.
    LeagueStandings(LeagueStandings),
    /// The answer to `ping`.
    Pong,
    /// The server is going down; the socket closes with 1001 next.
    ServerShutdown,
    /// Your room now lives under another code (its node is restarting, and
    /// another node adopted it with its members, host, settings and match
    /// tally): reconnect naming the new code (`/ws?room=CODE`) and say
    /// `hello` with your token; you are seated there already. Also the
    /// answer to a join (or a resume) of the old code while the move is
    /// remembered.
    RoomMoved {
        /// The room's new code.
        code: String,
        /// Its new invite key.
        key: String,
    },
}
