//! Client to server: every message a client may send, and the decoder the
//! server reads frames with (a fast path for `move`).

use serde::{Deserialize, Serialize};

use super::{is_false, ErrorCode, PlayerId, RankBy, RivalPick};
use crate::board::Seed;
use crate::daily::DailyDate;
use crate::games::{Game, Size};
use crate::grid::Dir;
use crate::matches::MatchSettings;

/// A room by its code and invite key (`create_room`'s `replaces`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomRef {
    /// The room's code.
    pub code: String,
    /// The room's invite key (the `key` of its `room` messages).
    pub key: String,
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
        /// A match of several rounds instead of a single race (never with `daily`).
        #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
        format: Option<MatchSettings>,
        /// The room this one replaces, on a node that is gone: the first of
        /// its players to ask makes the new room, and the others who ask
        /// with the same code and key are put in it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replaces: Option<RoomRef>,
        /// A party room, held by the screen that makes it (a TV or a
        /// projector): the sender joins it as its screen, never a racer; the
        /// first player who joins from a phone is its host.
        #[serde(default, skip_serializing_if = "is_false")]
        party: bool,
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
        /// Join as a screen (a TV showing the room: never a racer, outside
        /// `max_players` and the spectators); needs the room's `key`.
        #[serde(default, skip_serializing_if = "is_false")]
        screen: bool,
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
    /// Host only, in the lobby: play a match of several rounds, or (without
    /// `match`) single races. `{"type":"set_match","match":{"rounds":5,"plan":"alternate"}}`
    SetMatch {
        /// The match; absent: single races.
        #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
        format: Option<MatchSettings>,
    },
    /// Host only, in a match's intermission: stop its countdown (once per
    /// intermission, for at most five minutes). `{"type":"hold"}`
    Hold {},
    /// Host only, in a match's intermission: start the next round now (also
    /// ends a hold). `{"type":"next_round"}`
    NextRound {},
    /// Host only, in the lobby: race a stored run as a rival, by its
    /// `run_id` or by `pick` (exactly one of the two). Answered with a
    /// `room` that lists it, or an error (`rival_*`).
    /// `{"type":"add_rival","pick":"best"}`
    AddRival {
        /// A stored daily run's id (`run_id` of `daily_result` or a table line).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run_id: Option<i64>,
        /// Which run, by what it is to you.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pick: Option<RivalPick>,
    },
    /// Host only, in the lobby: take a rival out again (its `id` in `room`).
    /// `{"type":"remove_rival","id":4294967295}`
    RemoveRival {
        /// The rival's id.
        id: PlayerId,
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
    /// Make a league (you are its first member); answered with `league`.
    /// `{"type":"create_league","name":"Friday club"}`
    CreateLeague {
        /// Validated like a player name (`bad_name`); markup is data.
        name: String,
    },
    /// Join a league by its code (from its link `/l/CODE?k=KEY`); answered with `league`.
    JoinLeague {
        /// The league's code.
        code: String,
        /// The league's invite key (its link's `?k=`): with it the lookup
        /// spends none of your address's failed-join budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// Leave a league; answered with `league_left`.
    LeaveLeague {
        /// The league's code.
        code: String,
    },
    /// The league's owner (its longest-standing member) removes a member;
    /// answered with `member_removed`, or `not_host` for anyone else.
    RemoveMember {
        /// The league's code.
        code: String,
        /// The member's `member` in `league_standings`.
        member: String,
    },
    /// The league's owner gives it a new code (and so a new link and invite
    /// key); the old ones stop working. Answered with `league_code_changed`,
    /// or `not_host` for anyone else.
    NewLeagueCode {
        /// The league's code (now).
        code: String,
    },
    /// Your leagues with today's standing in each; answered with `leagues`.
    MyLeagues {},
    /// A league's table for one daily board (today when `date` is absent).
    LeagueBoard {
        /// The league's code.
        code: String,
        /// The daily board's game.
        game: Game,
        /// The daily board's size.
        size: Size,
        /// The UTC day, `YYYY-MM-DD`; absent: today.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        date: Option<DailyDate>,
        /// The league's invite key (its link's `?k=`): with it the lookup
        /// spends none of your address's failed-join budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// A league's standings over the last 7 or 30 days.
    LeagueStandings {
        /// The league's code.
        code: String,
        /// 7 or 30 (else `bad_message`-like `bad_days`).
        days: u32,
        /// The league's invite key (its link's `?k=`): with it the lookup
        /// spends none of your address's failed-join budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
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
    /// decimal, `bad_date` for a `leaderboard` or `league_board` whose date
    /// is not a real `YYYY-MM-DD`, `bad_message` for anything else.
    pub code: ErrorCode,
    /// What is wrong, as a sentence for a person ([`DecodeError::of`]; it may quote
    /// the client's input).
    pub message: String,
}

impl DecodeError {
    /// serde's error `e` on frame `text`, as answered. The code is decided
    /// by running the frame's own `seed` (or `date`) through its parser,
    /// not by reading serde's English.
    pub fn of(text: &str, e: &serde_json::Error) -> DecodeError {
        let v: Option<serde_json::Value> = serde_json::from_str(text).ok();
        let field = |ty: &str, name: &str| {
            v.as_ref().filter(|v| v["type"] == ty).and_then(|v| v.get(name)?.as_str().map(str::to_owned))
        };
        let code = if field("create_room", "seed").is_some_and(|s| s.parse::<Seed>().is_err()) {
            ErrorCode::BadSeed
        } else if ["leaderboard", "league_board"]
            .iter()
            .any(|ty| field(ty, "date").is_some_and(|d| d.parse::<DailyDate>().is_err()))
        {
            ErrorCode::BadDate
        } else {
            ErrorCode::BadMessage
        };
        let message = match &v {
            Some(v) if !v.is_object() => NOT_A_MESSAGE.to_owned(),
            v => plain(e, v.as_ref().and_then(|v| v["type"].as_str())),
        };
        DecodeError { code, message }
    }
}

/// The answer to a frame that is not one JSON object.
const NOT_A_MESSAGE: &str = r#"that is not a message: send one JSON object, like {"type":"ping"}"#;

/// serde's account of a bad frame (`unknown variant `sideways`, expected
/// one of `up`, ... at line 1 column 30`), said as a sentence a player can
/// read: no library wording, no positions. `kind` is the frame's `type`,
/// when it has one (to tell an unknown message from an unknown value).
/// Our own refusals (a match of 4 rounds, a bad seed) are already
/// sentences and pass through.
fn plain(e: &serde_json::Error, kind: Option<&str>) -> String {
    use serde_json::error::Category;
    if matches!(e.classify(), Category::Syntax | Category::Eof | Category::Io) {
        return NOT_A_MESSAGE.into();
    }
    let full = e.to_string();
    // serde_json appends where it stopped reading: nothing for a person.
    let said = full.rsplit_once(" at line ").map_or(full.as_str(), |(s, _)| s);
    // The words between the first pair of backticks, and the rest listed so.
    let quoted = |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    if let Some(rest) = said.strip_prefix("unknown variant ") {
        let words = quoted(rest);
        let got = words.first().cloned().unwrap_or_default();
        if kind == Some(got.as_str()) {
            return format!("{got:?} is not a message this server knows");
        }
        return match words.get(1..).filter(|w| !w.is_empty()) {
            Some(allowed) => format!("{got:?} is not allowed here: one of {}", allowed.join(", ")),
            None => format!("{got:?} is not allowed here"),
        };
    }
    if let Some(rest) = said.strip_prefix("missing field ") {
        let field = quoted(rest).into_iter().next().unwrap_or_default();
        return match field.as_str() {
            "type" => r#"a message needs a "type", like {"type":"ping"}"#.into(),
            _ => format!("this message needs its {field:?}"),
        };
    }
    if let Some(rest) = said.strip_prefix("unknown field ") {
        let field = quoted(rest).into_iter().next().unwrap_or_default();
        return format!("{field:?} is not part of this message");
    }
    if let Some(rest) = said.strip_prefix("invalid type: ") {
        let wanted = rest.rsplit_once("expected ").map_or("", |(_, w)| w);
        return format!("a value is of the wrong kind: expected {}", kind_of(wanted));
    }
    if said.starts_with("invalid value: ") || said.starts_with("invalid length ") {
        return "a value is out of range for this message".into();
    }
    said.to_owned()
}

/// serde's name for what it expected, as a person would say it.
fn kind_of(expected: &str) -> &str {
    match expected {
        e if e.starts_with('u') || e.starts_with('i') => "a whole number",
        "a string" | "a borrowed string" | "variant identifier" | "string or map" => "text",
        "a boolean" => "true or false",
        e if e.contains("sequence") => "a list",
        e if e.starts_with("struct") || e.starts_with("internally tagged") || e.contains("map") => {
            "an object"
        }
        e => e,
    }
}
