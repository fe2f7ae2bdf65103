//! The lobby's unit tests without sockets: a [`Lobby`] on a real
//! [`LobbyEnv`] (registry, sessions, budgets; the daily store in
//! `store_tests.rs` is a real in-memory SQLite one) is handed text frames
//! as a client sends them, and what the player hears is read back from its
//! outbox. Time is tokio's paused clock. This file: the fixture, `hello`,
//! resuming, renaming, bad and out-of-order messages, the flood gate.

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::close;
use mazerace_protocol::messages::{ErrorCode, ServerMsg};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{Flow, Lobby, LobbyEnv, LobbyParts};
use crate::config::Config;
use crate::daily::DailyHook;
use crate::drain::Drain;
use crate::edge::limits::JoinLimiter;
use crate::edge::penalty::{Penalties, Turn};
use crate::outbox::Outbox;
use crate::room::RoomHandle;

pub(super) const HOME: [u8; 4] = [10, 0, 0, 1];

/// A lobby env as the server builds it, on `cfg` and maybe a daily hook.
pub(super) fn env_with(cfg: Config, daily: Option<Arc<dyn DailyHook>>) -> Arc<LobbyEnv> {
    let parts = LobbyParts {
        daily,
        joins: Arc::new(JoinLimiter::new(cfg.join_attempts, cfg.join_refill)),
        league_joins: Arc::new(JoinLimiter::new(cfg.league_joins, cfg.league_join_refill)),
        penalties: Arc::new(Penalties::new(cfg.violation_penalty)),
        shutdown: CancellationToken::new(),
        tracker: TaskTracker::new(),
        drain: Arc::new(Drain::default()),
        // Rooms never move here (no mailbox): `tests/tests/moves.rs` moves them.
        moves: Arc::new(crate::moves::Moves::new(None, cfg.move_memory, crate::moves::ADOPTION_WAIT)),
    };
    Arc::new(LobbyEnv::new(&cfg, parts).unwrap())
}

pub(super) fn env() -> Arc<LobbyEnv> {
    env_with(Config::default(), None)
}

/// One connection's lobby and what its player hears.
pub(super) struct Player {
    pub lobby: Lobby,
}

impl Player {
    pub fn at(env: &Arc<LobbyEnv>, ip: impl Into<IpAddr>) -> Player {
        static CONN: AtomicU64 = AtomicU64::new(1);
        let outbox = Outbox::new(256, usize::MAX, CONN.fetch_add(1, Ordering::Relaxed), None);
        Player { lobby: Lobby::new(Arc::clone(env), ip.into(), outbox) }
    }

    pub fn new(env: &Arc<LobbyEnv>) -> Player {
        Player::at(env, HOME)
    }

    /// A player who said hello as `name` (their `welcome` read).
    pub async fn hello(env: &Arc<LobbyEnv>, name: &str) -> Player {
        let mut p = Player::new(env);
        p.say(&format!(r#"{{"type":"hello","name":"{name}"}}"#)).await;
        assert!(matches!(p.heard()[..], [ServerMsg::Welcome { resumed: false, .. }]));
        p
    }

    /// Hands the lobby one text frame.
    pub async fn say(&mut self, text: &str) -> Flow {
        self.lobby.on_text(text).await
    }

    /// Everything queued for the player since the last look, in order.
    pub fn heard(&self) -> Vec<ServerMsg> {
        let mut frames = Vec::new();
        self.lobby.outbox().take_batch(&mut frames, std::task::Waker::noop());
        frames.iter().map(|f| serde_json::from_str(f.as_str()).unwrap()).collect()
    }

    /// The error codes heard since the last look.
    pub fn errors(&self) -> Vec<ErrorCode> {
        self.heard()
            .into_iter()
            .filter_map(|m| if let ServerMsg::Error { code, .. } = m { Some(code) } else { None })
            .collect()
    }

    /// The one message heard, which must be an error: its code and text.
    pub fn error(&self) -> (ErrorCode, String) {
        match &self.heard()[..] {
            [ServerMsg::Error { code, message }] => (*code, message.clone()),
            other => panic!("one error expected, heard {other:?}"),
        }
    }

    /// The room the player's session is in.
    pub fn room(&self) -> Option<RoomHandle> {
        self.lobby.session().and_then(|s| s.room())
    }

    /// The player's token, once they said hello.
    pub fn token(&self) -> String {
        self.lobby.session().map(|s| s.token.to_string()).unwrap()
    }

    /// Waits until the player's room has handled every command sent to it
    /// so far (a round trip through its inbox), so that its answers are in
    /// the outbox.
    pub async fn settle(&self) {
        if let Some(room) = self.room() {
            room.preview().await;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn only_hello_and_ping_are_spoken_before_hello_and_hello_only_once() {
    let env = env();
    let mut p = Player::new(&env);
    assert_eq!(p.say(r#"{"type":"ping"}"#).await, Flow::Go);
    assert_eq!(p.heard(), [ServerMsg::Pong]);
    for early in
        [r#"{"type":"create_room","game":"maze","size":"easy"}"#, r#"{"type":"move","dir":"up","seq":1}"#]
    {
        p.say(early).await;
        let (code, message) = p.error();
        assert_eq!(code, ErrorCode::HelloFirst);
        assert_eq!(message, r#"say hello first: {"type":"hello","name":"..."}"#);
    }
    assert!(!p.lobby.said_hello());
    p.say(r#"{"type":"hello","name":" Ann "}"#).await;
    let heard = p.heard();
    let [ServerMsg::Welcome { player_id, resumed: false, name, limits, .. }] = &heard[..] else {
        panic!("a welcome: {heard:?}")
    };
    assert_eq!((name.as_str(), limits.msgs_per_sec, limits.resume_window_ms), ("Ann", 40, 60_000));
    assert!(p.lobby.said_hello(), "the hello deadline stops counting");
    p.say(r#"{"type":"hello","name":"Bob"}"#).await;
    assert_eq!(p.error(), (ErrorCode::HelloFirst, "you already said hello".into()));
    assert_eq!(p.lobby.session().map(|s| (s.id, s.name())), Some((*player_id, "Ann".into())));
    assert_eq!(env.session_count(), 1);
}

#[tokio::test(start_paused = true)]
async fn bad_json_and_unknown_messages_are_bad_message_and_the_lobby_goes_on() {
    let env = env();
    let mut p = Player::hello(&env, "Ann").await;
    for bad in
        ["not json", "[1,2]", r#"{"type":"teleport"}"#, r#"{"type":"ping","x":1}"#, r#"{"type":"move"}"#]
    {
        assert_eq!(p.say(bad).await, Flow::Go, "{bad}");
        assert_eq!(p.error().0, ErrorCode::BadMessage, "{bad}");
    }
    // The decoder quotes what it was given: its message is cut at 200 bytes
    // (on a character boundary).
    let long = format!(r#"{{"type":"{}"}}"#, "é".repeat(400));
    p.say(&long).await;
    let (code, message) = p.error();
    assert_eq!(code, ErrorCode::BadMessage);
    assert!(message.len() <= 200 && message.len() > 100, "{} bytes", message.len());
    p.say(r#"{"type":"ping"}"#).await;
    assert_eq!(p.heard(), [ServerMsg::Pong], "still answering");
}

#[tokio::test(start_paused = true)]
async fn a_bad_name_is_refused_and_the_player_stays_unknown() {
    let env = env();
    let mut p = Player::new(&env);
    p.say(r#"{"type":"hello","name":"  "}"#).await;
    assert_eq!(p.error(), (ErrorCode::BadName, "a name cannot be empty".into()));
    assert!(!p.lobby.said_hello());
    assert_eq!(env.session_count(), 0, "nothing was made for it");
}

#[tokio::test(start_paused = true)]
async fn a_resume_takes_the_session_over_and_closes_the_old_connection_with_4003() {
    let env = env();
    let ann = Player::hello(&env, "Ann").await;
    let id = ann.lobby.session().map(|s| s.id);
    let mut again = Player::new(&env);
    again.say(&format!(r#"{{"type":"hello","name":"Ann","token":"{}"}}"#, ann.token())).await;
    let heard = again.heard();
    let [ServerMsg::Welcome { player_id, resumed: true, .. }] = &heard[..] else {
        panic!("resumed: {heard:?}")
    };
    assert_eq!(Some(*player_id), id, "the same player");
    assert_eq!(ann.lobby.outbox().close_code(), Some(close::TAKEN_OVER));
    assert_eq!(env.session_count(), 1);
}

/// Issue 34, item 5: two tabs fighting over one token took the session
/// over from each other 1,300 times a second. Past the address's budget
/// each takeover is a violation of the address, so its next upgrades wait
/// (and, with enough, are refused at accept); a resume of a detached
/// session is no takeover, and other addresses are not touched.
#[tokio::test(start_paused = true)]
async fn takeovers_past_the_address_budget_count_as_violations() {
    let env = env_with(Config { session_takeovers: 3, ..Config::default() }, None);
    let mut ann = Player::hello(&env, "Ann").await;
    let hello = format!(r#"{{"type":"hello","name":"Ann","token":"{}"}}"#, ann.token());
    // Resumes after a drop close nobody: no takeovers, however many.
    for _ in 0..5 {
        ann.lobby.detach().await;
        ann = Player::new(&env);
        ann.say(&hello).await;
        assert!(matches!(ann.heard()[..], [ServerMsg::Welcome { resumed: true, .. }]));
    }
    let mut tabs = vec![ann];
    for _ in 0..3 {
        let mut tab = Player::new(&env);
        tab.say(&hello).await;
        assert!(matches!(tab.heard()[..], [ServerMsg::Welcome { resumed: true, .. }]));
        tabs.push(tab);
    }
    assert_eq!(env.penalties.turn(HOME.into()), Turn::Now, "three takeovers are within the budget");
    let mut fourth = Player::new(&env);
    fourth.say(&hello).await;
    assert!(matches!(fourth.heard()[..], [ServerMsg::Welcome { resumed: true, .. }]), "still taken over");
    assert_eq!(tabs[3].lobby.outbox().close_code(), Some(close::TAKEN_OVER));
    assert_eq!(env.penalties.turn(HOME.into()), Turn::Wait(Duration::from_secs(1)), "the fourth is a strike");
    assert_eq!(env.penalties.turn([10, 0, 0, 2].into()), Turn::Now, "another address");
}

#[tokio::test(start_paused = true)]
async fn a_dropped_session_resumes_within_its_window_and_is_a_new_player_after_it() {
    let env = env();
    let window = env.limits.resume_window;
    let mut ann = Player::hello(&env, "Ann").await;
    let (token, id) = (ann.token(), ann.lobby.session().map(|s| s.id));
    ann.lobby.detach().await;
    assert!(!ann.lobby.said_hello(), "the lobby is back to awaiting hello");
    tokio::time::sleep(window - Duration::from_millis(1)).await;
    let mut back = Player::new(&env);
    back.say(&format!(r#"{{"type":"hello","name":"Ann","token":"{token}"}}"#)).await;
    assert!(matches!(back.heard()[..], [ServerMsg::Welcome { resumed: true, .. }]), "within the window");
    back.lobby.detach().await;
    tokio::time::sleep(window + Duration::from_millis(1)).await;
    assert_eq!(env.session_count(), 0, "the window ran out");
    let mut late = Player::new(&env);
    late.say(&format!(r#"{{"type":"hello","name":"Ann","token":"{token}"}}"#)).await;
    let heard = late.heard();
    let [ServerMsg::Welcome { resumed: false, player_id, token: kept, .. }] = &heard[..] else {
        panic!("a new player: {heard:?}")
    };
    assert_ne!(Some(*player_id), id);
    assert_eq!(*kept, token, "a token of the server's shape stays the player's daily identity");
}

#[tokio::test(start_paused = true)]
async fn rename_answers_renamed_and_a_resume_under_another_name_renames() {
    let env = env();
    let mut ann = Player::hello(&env, "Ann").await;
    ann.say(r#"{"type":"rename","name":"Bo"}"#).await;
    assert_eq!(ann.heard(), [ServerMsg::Renamed { name: "Bo".into() }]);
    ann.say(&format!(r#"{{"type":"rename","name":"{}"}}"#, "x".repeat(25))).await;
    assert_eq!(ann.error(), (ErrorCode::BadName, "a name is at most 24 characters".into()));
    let mut again = Player::new(&env);
    again.say(&format!(r#"{{"type":"hello","name":"Cy","token":"{}"}}"#, ann.token())).await;
    let heard = again.heard();
    let [ServerMsg::Welcome { resumed: true, name, .. }] = &heard[..] else { panic!("resumed: {heard:?}") };
    assert_eq!(name, "Cy");
}

#[tokio::test(start_paused = true)]
async fn too_many_sessions_from_one_address_and_others_are_not_held_up() {
    let env = env_with(Config { max_sessions_per_address: 1, ..Config::default() }, None);
    let _ann = Player::hello(&env, "Ann").await;
    let mut bob = Player::new(&env);
    bob.say(r#"{"type":"hello","name":"Bob"}"#).await;
    assert_eq!(bob.error().0, ErrorCode::TooManySessions);
    let mut cy = Player::at(&env, [10, 0, 0, 2]);
    cy.say(r#"{"type":"hello","name":"Cy"}"#).await;
    assert!(matches!(cy.heard()[..], [ServerMsg::Welcome { .. }]), "another address");
}

#[tokio::test(start_paused = true)]
async fn a_flood_is_refused_then_closed_with_1008_and_every_frame_counts() {
    let cfg = Config { msgs_burst: 3, msgs_per_sec: 1, flood_strikes: 2, ..Config::default() };
    let env = env_with(cfg, None);
    let mut p = Player::new(&env);
    assert_eq!(p.lobby.on_control(), Flow::Go, "a ping frame takes a token");
    assert_eq!(p.lobby.on_binary(), Flow::Go);
    assert_eq!(p.error().0, ErrorCode::BinaryFrame);
    p.say(r#"{"type":"ping"}"#).await;
    assert_eq!(p.heard(), [ServerMsg::Pong], "the burst's last token");
    for _ in 0..2 {
        assert_eq!(p.say(r#"{"type":"ping"}"#).await, Flow::Go);
        assert_eq!(p.error(), (ErrorCode::RateLimited, "too many messages: slow down".into()));
    }
    let Flow::Violation { code, reason } = p.say(r#"{"type":"ping"}"#).await else { panic!("closed") };
    assert_eq!((code, &*reason), (close::POLICY, "too many messages"));
    assert!(p.heard().is_empty(), "the close is the transport's to send");
    // The budget refills with time: a second later one message is let through.
    tokio::time::sleep(Duration::from_secs(1)).await;
    p.say(r#"{"type":"ping"}"#).await;
    assert_eq!(p.heard(), [ServerMsg::Pong]);
}
