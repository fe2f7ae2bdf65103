//! The model of what each player may see: per player, per room and per
//! race, what the answer to each message may be ([`Expect`]), and the
//! server under test with its settings ([`Fuzz`]). Its methods are split
//! by concern: connecting and resuming, answers and refusals, and
//! observing what the server reports.

mod answer;
mod connect;
pub(crate) mod geo;
mod observe;

use crate::*;

/// One race as one player saw it.
pub(crate) struct Race {
    pub(crate) board: Board,
    pub(crate) geo: Geo,
    /// This player's game, replayed by the rules engine, if they race.
    pub(crate) me: Option<PlayerGame>,
    /// Successful rewinds the server reported to this player.
    pub(crate) rewinds: u32,
    /// The last progress seen per racer.
    pub(crate) seen: HashMap<u32, Progress>,
}

pub(crate) struct Player {
    pub(crate) name: String,
    pub(crate) id: u32,
    pub(crate) token: String,
    pub(crate) ws: Option<Ws>,
    /// The session's room, as the model knows it.
    pub(crate) room: Option<String>,
    /// The last `room` this connection heard (the context of race messages).
    pub(crate) view: Option<RoomInfo>,
    /// By room code: the latest race this player saw there.
    pub(crate) races: HashMap<String, Race>,
    /// `create_room` allowance used on this connection.
    pub(crate) rooms_made: u32,
    /// Intermissions (room, round) this player saw held: held once each.
    pub(crate) held: Vec<(String, u32)>,
    /// The rounds of the match this connection heard (`match_round`), in order.
    pub(crate) rounds: Vec<mazerace_protocol::matches::MatchRound>,
}

impl Player {
    pub(crate) fn me<'a>(&self, info: &'a RoomInfo) -> Option<&'a mazerace_protocol::messages::PlayerInfo> {
        info.players.iter().find(|p| p.id == self.id)
    }

    pub(crate) fn race(&mut self) -> Option<&mut Race> {
        let code = self.view.as_ref()?.code.clone();
        self.races.get_mut(&code)
    }
}

/// A room as the model knows it: who is in it (also disconnected members).
pub(crate) struct RoomModel {
    pub(crate) max_players: u32,
    pub(crate) members: Vec<(u32, bool)>,
    /// The size it was made for (a match's plan starts from it).
    pub(crate) base: Size,
}

/// What the answer to one message may be.
#[derive(Clone, Debug)]
pub(crate) enum Expect {
    Pong,
    /// Exactly one error, with one of these codes.
    Error(Vec<ErrorCode>),
    Act {
        action: Action,
        seq: u32,
    },
    Ready(bool),
    Start,
    Rematch,
    /// `set_match`: answered with a `room` in the lobby showing it.
    SetMatch(Option<MatchSettings>),
    /// `hold`: answered with a `room` showing the intermission held.
    Hold,
    /// `next_round`: answered with the `room` that leaves the intermission.
    NextRound,
    /// `join_room`, whose outcome the model predicts; a `ping` follows, and
    /// the connection task answers it only after the room has answered the
    /// join (errors, `room`, `snapshot` all come before the `pong`).
    Join {
        code: String,
        spectate: bool,
        outcome: Result<(), ErrorCode>,
    },
    Create {
        game: Game,
        size: Size,
        seed: bool,
        daily: bool,
        rank_by: RankBy,
        max_players: u32,
        format: Option<MatchSettings>,
    },
    /// `leave_room` has no answer: a `ping` follows and this waits for `pong`.
    Leave,
}

impl Expect {
    pub(crate) fn errors(&self) -> &[ErrorCode] {
        use ErrorCode::*;
        match self {
            Expect::Pong | Expect::Leave => &[],
            Expect::Error(codes) => codes,
            Expect::Act { .. } => &[NotRacing, NotInRoom],
            Expect::Ready(_) => &[NotInRoom, WrongPhase],
            Expect::Start | Expect::Rematch | Expect::Hold | Expect::NextRound => {
                &[NotInRoom, NotHost, WrongPhase]
            }
            // No daily room is ever made here, so never `daily_match`.
            Expect::SetMatch(_) => &[NotInRoom, NotHost, WrongPhase],
            Expect::Join { outcome: Err(code), .. } => std::slice::from_ref(code),
            Expect::Join { outcome: Ok(()), .. } => &[],
            Expect::Create { .. } => &[AlreadyInRoom, BadSize, DailyMatch, Internal, TooManyRooms],
        }
    }
}

pub(crate) enum Incoming {
    Msg(ServerMsg),
    Closed(u16, String),
    Eof,
}

pub(crate) async fn next_incoming(ws: &mut Ws) -> R<Incoming> {
    RECEIVED.fetch_add(1, Ordering::Relaxed);
    loop {
        let next = tokio::time::timeout(RECV_TIMEOUT, ws.next())
            .await
            .map_err(|_| "no message within 5 s (a missing answer)".to_owned())?;
        return Ok(match next {
            Some(Ok(Message::Text(t))) => Incoming::Msg(
                serde_json::from_str::<ServerMsg>(t.as_str())
                    .map_err(|e| format!("the server sent {t} which is no ServerMsg: {e}"))?,
            ),
            Some(Ok(Message::Close(Some(cf)))) => Incoming::Closed(u16::from(cf.code), cf.reason.to_string()),
            Some(Ok(Message::Close(None))) => Incoming::Closed(1005, String::new()),
            Some(Ok(Message::Binary(_))) => return Err("the server sent a binary frame".into()),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => Incoming::Eof,
        });
    }
}

/// Reads to the end of a closed socket (so the close handshake completes).
pub(crate) async fn finish_close(ws: &mut Ws) {
    let _ = tokio::time::timeout(RECV_TIMEOUT, async { while ws.next().await.is_some() {} }).await;
}

pub(crate) struct Fuzz {
    pub(crate) srv: TestServer,
    pub(crate) cfg: Config,
    pub(crate) players: Vec<Player>,
    pub(crate) rooms: HashMap<String, RoomModel>,
    /// Every code seen in this case, in order (ended rooms too).
    pub(crate) codes: Vec<String>,
    pub(crate) boards: HashMap<(Size, u64), Board>,
    /// Sessions made (`welcome` with `resumed: false`).
    pub(crate) identities: usize,
    pub(crate) shutting_down: bool,
}

/// The race time limit: one case in five has a short one, so that races also
/// end on the clock in the middle of a case (`timed_out`, `results` nobody's
/// step caused). It is drawn from the seed, not a strategy of its own, so
/// the cases kept in the regressions file replay unchanged.
pub(crate) fn time_limit(seed: u64) -> Duration {
    if seed % 5 == 4 {
        Duration::from_millis(20 + seed % 280)
    } else {
        Duration::from_secs(600)
    }
}

pub(crate) fn fuzz_config(countdown: u32, seed: u64) -> Config {
    Config {
        countdown_secs: countdown,
        race_time_limit: time_limit(seed),
        // A countdown that never ends within a case: a timer that fired
        // between steps would put messages in flight that no step caused.
        countdown_step: Duration::from_secs(3600),
        progress_interval: Duration::from_millis(5),
        // The per-address join limit has its own test (abuse.rs); here it
        // would only make the final join check depend on the guessing.
        join_attempts: 1_000_000,
        // The join budget too (abuse.rs and room_updates.rs test it): a
        // case's joins then depend on the model alone.
        room_joins: 1_000_000,
        // Every `room` at the end of the input that changed it, not
        // coalesced: the model judges each answer by the room it was last
        // shown, and a `room` held for a window would leave it judging by
        // an older one. (Coalescing has its own tests: the room's unit
        // tests and room_updates.rs.)
        room_interval: Duration::ZERO,
        rooms_per_conn: ROOMS_PER_CONN,
        max_spectators: MAX_SPECTATORS,
        max_message_bytes: MAX_MESSAGE,
        ..test_config()
    }
}
