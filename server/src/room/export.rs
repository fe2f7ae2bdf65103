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
//! lobby, its results or a match's intermission moves, never a daily room
//! (a room of one whose attempt the store holds). A match moved between two
//! rounds lands in its lobby with its score: the host's Start (or everyone
//! ready) plays its next round (`lobby.rs`), so a deploy never costs a
//! match, and the intermission's countdown is not carried (its players were
//! just reconnected, and the host decides when they are all back).
//!
//! On the new node every member is a placeholder (disconnected) under a new
//! player id, until they claim it with their token (`lobby/moved.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use mazerace_protocol::matches::{Match, MatchSettings, TallyLine};
use mazerace_protocol::messages::{Phase, PlayerId, RankBy};
use mazerace_protocol::{Board, Game, Size};
use mazerace_store::PlayerKey;
use serde::{Deserialize, Serialize};

use tokio::sync::mpsc;

use super::colours::Colours;
use super::effects::Effects;
use super::progress::RoomUpdates;
use super::state::{Member, Room, Stage};
use super::{Directory, RoomEnv, RoomHandle, RoomSettings, Timings};
use crate::config::MAX_PLAYERS_CAP;

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
    /// A party room (made by a screen).
    #[serde(default)]
    pub party: bool,
}

/// A member as moved: who (their token's hash), and their old id, which
/// the match and tally name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedMember {
    pub key: String,
    pub id: PlayerId,
    pub name: String,
    pub spectate: bool,
    /// A screen showing the room, not a player.
    #[serde(default)]
    pub screen: bool,
}

/// A member of the adopted room: their new id, name, whether they watch,
/// and whether they are a screen.
pub struct Placeholder {
    pub id: PlayerId,
    pub name: Arc<str>,
    pub spectate: bool,
    pub screen: bool,
}

/// A seat of an adopted room to be claimed: by the token whose hash is
/// `key`, as player `id` named `name`.
pub struct Seat {
    pub key: String,
    pub id: PlayerId,
    pub name: Arc<str>,
}

impl RoomExport {
    /// The room this export describes, to start on the adopting node: new
    /// player ids from `new_id` (the members' first, then one for anyone
    /// else the match or tally names, a player who left, so none is another
    /// player's), the board built again, invite key `key`; and its seats.
    pub fn adoption(
        self,
        mut new_id: impl FnMut() -> PlayerId,
        key: Arc<str>,
    ) -> Result<(Adoption, Vec<Seat>), String> {
        let x = self;
        if x.host >= x.members.len() || x.size.game() != x.game || x.base.game() != x.game {
            return Err("an inconsistent export".into());
        }
        let board = Board::build(x.size, x.seed).map_err(|e| e.to_string())?;
        let mut ids: HashMap<PlayerId, PlayerId> = x.members.iter().map(|m| (m.id, new_id())).collect();
        let mut id_of = |old: PlayerId| *ids.entry(old).or_insert_with(&mut new_id);
        let mut last_match = x.last_match;
        if let Some(m) = last_match.as_mut() {
            m.map_ids(&mut id_of);
        }
        let mut tally = x.tally;
        tally.iter_mut().for_each(|t| t.player_id = id_of(t.player_id));
        let (mut members, mut seats) = (Vec::new(), Vec::new());
        for m in x.members {
            let name: Arc<str> = crate::names::validate(&m.name).unwrap_or_else(|_| "player".into()).into();
            let id = id_of(m.id);
            seats.push(Seat { key: m.key, id, name: Arc::clone(&name) });
            members.push(Placeholder { id, name, spectate: m.spectate || m.screen, screen: m.screen });
        }
        let host = members[x.host].id;
        let settings = RoomSettings {
            game: x.game,
            size: x.size,
            base: x.base,
            format: x.format,
            match_seed: x.match_seed,
            rank_by: x.rank_by,
            max_players: x.max_players.clamp(1, MAX_PLAYERS_CAP),
            board,
            daily: None,
            key,
            party: x.party,
        };
        Ok((Adoption { settings, members, host, last_match, tally }, seats))
    }
}

impl Room {
    /// The room as it would move, if it may now (see the module).
    pub fn export(&self) -> Option<RoomExport> {
        let movable = matches!(self.phase(), Phase::Lobby | Phase::Results | Phase::Intermission);
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
                    screen: m.screen,
                })
                .collect(),
            host,
            last_match: self.the_match.clone(),
            tally: self.tally.clone(),
            party: s.party,
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
                screen: p.screen,
                ready: false,
                connected: false,
            })
            .collect();
        let mut room = Room {
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
            colours: Colours::default(),
            screens_alone_until: None,
            fx: Effects::default(),
            updates: RoomUpdates::new(timings.room_window),
            load: 0,
            today: None,
        };
        // Colours again, in the order they joined: the first friends keep
        // the first colours.
        let racers: Vec<PlayerId> = room.members.iter().filter(|m| !m.spectate).map(|m| m.id).collect();
        for id in racers {
            room.give_colour(id);
        }
        room
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
