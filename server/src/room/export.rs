//! A room as it moves to another node (issue 27): [`RoomExport`] is the
//! plain value a draining node posts to the mailbox (`crate::moves`), and
//! [`Room::adopted`] makes the room again from it on the adopting node.
//!
//! What moves: the settings (game, sizes, match format and seed, ranking,
//! player limit, the board's seed), the members in join order by the hash
//! of their resume token (never the token: the database holds no secret a
//! reader could resume with) with their names, who hosts, the last match
//! and the tally of matches won. What does not: rivals (stored runs the
//! host adds again), ready flags, the last race's results screen (a room in
//! its results lands in its lobby, on the same board). Only a room in its
//! lobby or results moves, never a daily room (a room of one whose attempt
//! the store holds); a match between two rounds is playing, and moves from
//! its results once its last round is over.
//!
//! On the new node every member is a placeholder (disconnected) under a new
//! player id, until they claim it with their token (`conn/moved.rs`).

use std::sync::Arc;

use mazerace_protocol::matches::{Match, MatchSettings, TallyLine};
use mazerace_protocol::messages::{Phase, PlayerId, RankBy};
use mazerace_protocol::{Game, Size};
use mazerace_store::PlayerKey;
use serde::{Deserialize, Serialize};

use tokio::sync::mpsc;

use super::effects::Effects;
use super::progress::RoomUpdates;
use super::state::{Member, Room, Stage};
use super::{Directory, RoomEnv, RoomHandle, RoomSettings, Timings};

/// A room's state as posted by the node it leaves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomExport {
    pub game: Game,
    pub size: Size,
    pub base: Size,
    #[serde(default)]
    pub format: Option<MatchSettings>,
    pub match_seed: u64,
    pub rank_by: RankBy,
    pub max_players: u32,
    /// The current board's seed (built again at `size`).
    pub seed: u64,
    /// In join order.
    pub members: Vec<MovedMember>,
    /// The host's index in `members`.
    pub host: usize,
    #[serde(default)]
    pub last_match: Option<Match>,
    #[serde(default)]
    pub tally: Vec<TallyLine>,
}

/// A member as moved: who (their token's hash), and their old id, which
/// the match and tally name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedMember {
    pub key: String,
    pub id: PlayerId,
    pub name: String,
    pub spectate: bool,
}

/// A member of the adopted room: their new id, name and whether they watch.
pub struct Placeholder {
    pub id: PlayerId,
    pub name: Arc<str>,
    pub spectate: bool,
}

impl Room {
    /// The room as it would move, if it may now (see the module).
    pub fn export(&self) -> Option<RoomExport> {
        let movable = matches!(self.phase(), Phase::Lobby | Phase::Results);
        if !movable
            || self.settings.daily.is_some()
            || !matches!(self.stage, Stage::Lobby | Stage::Results { .. })
        {
            return None;
        }
        let s = &self.settings;
        let host = self.members.iter().position(|m| m.id == self.host)?;
        Some(RoomExport {
            game: s.game,
            size: s.size,
            base: s.base,
            format: s.format,
            match_seed: s.match_seed,
            rank_by: s.rank_by,
            max_players: s.max_players,
            seed: s.board.seed(),
            members: self
                .members
                .iter()
                .map(|m| MovedMember {
                    key: PlayerKey::from_token(&m.token).as_str().to_owned(),
                    id: m.id,
                    name: m.name.to_string(),
                    spectate: m.spectate,
                })
                .collect(),
            host,
            last_match: self.the_match.clone(),
            tally: self.tally.clone(),
        })
    }

    /// A moved room in its lobby: `members` (in the old order, the host at
    /// `host`) all away until they claim their seats; the match and tally
    /// already carry the new ids.
    pub fn adopted(
        code: Arc<str>,
        settings: RoomSettings,
        timings: Timings,
        members: Vec<Placeholder>,
        host: PlayerId,
        last_match: Option<Match>,
        tally: Vec<TallyLine>,
    ) -> Room {
        let members = members
            .into_iter()
            .map(|p| Member {
                id: p.id,
                name: p.name,
                // Set when they claim the seat (`Room::claimed`).
                token: "".into(),
                spectate: p.spectate,
                ready: false,
                connected: false,
            })
            .collect();
        Room {
            code,
            settings,
            timings,
            host,
            members,
            stage: Stage::Lobby,
            rivals: Vec::new(),
            last: Vec::new(),
            the_match: last_match,
            tally,
            fx: Effects::default(),
            updates: RoomUpdates::new(timings.room_window),
            load: 0,
            today: None,
        }
    }

    /// Member `id` claimed their seat with `token` (before their reattach).
    pub fn claimed(&mut self, id: PlayerId, token: Arc<str>) {
        if let Some(m) = self.members.iter_mut().find(|m| m.id == id) {
            m.token = token;
        }
    }
}

/// What a moved room is made with on the node adopting it.
pub struct Adoption {
    pub settings: RoomSettings,
    pub members: Vec<Placeholder>,
    pub host: PlayerId,
    pub last_match: Option<Match>,
    pub tally: Vec<TallyLine>,
}

/// Starts a room moved here from a draining node (see `export.rs`): its
/// members are placeholders until they claim them. No address holds it.
pub fn spawn_adopted(
    env: &Arc<RoomEnv>,
    directory: Arc<dyn Directory>,
    code: &str,
    id: u64,
    adoption: Adoption,
) -> RoomHandle {
    let (tx, rx) = mpsc::channel(super::INBOX);
    let code: Arc<str> = code.into();
    let Adoption { settings, members, host, last_match, tally } = adoption;
    let key = Arc::clone(&settings.key);
    let origin = super::actor::Origin { env: Arc::clone(env), directory, slot: None };
    let room = Room::adopted(Arc::clone(&code), settings, env.timings, members, host, last_match, tally);
    super::actor::start(origin, Arc::clone(&code), id, room, Vec::new(), tx.downgrade(), rx);
    RoomHandle { code, id, key, tx }
}
