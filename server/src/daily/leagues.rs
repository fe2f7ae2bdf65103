//! Leagues on the store (issue 15), for [`super::StoreHook`]: create, join
//! and leave with their limits, the owner removing a member or giving the
//! league a new code, a player's leagues with today's standing,
//! a league's table per board and its standings (7 or 30 days), and where
//! a ranked daily result placed in each of the player's leagues.
//!
//! Every league request, from the socket or HTTP, comes through [`handle`]
//! with its [`LeagueAsker`] (token, name, address), after
//! [`super::guard::league`] held it to the address's failed-join budget.

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::league::{LeagueBoard, LeaguePlace, LeagueStandings, LeagueToday};
use mazerace_protocol::messages::{ErrorCode, ServerMsg};
use mazerace_protocol::{Game, Size};
use mazerace_store::league::{
    board_table, is_code, new_code, standings, League, LeagueAnswer, LeagueRequest, LeagueView, MakerCap,
    MAX_LEAGUES_PER_PLAYER, MAX_MEMBERS,
};
use mazerace_store::share::league_share;
use mazerace_store::{PlayerKey, Store};

use super::error::DailyError;
use super::seam::{LeagueAsker, LeagueOp};
use crate::edge::address::AddressKey;
use crate::edge::limits::JoinLimiter;
use crate::metrics;

/// Leagues one network address (IPv4, or an IPv6 /64) may make: a burst of
/// 5, one more every 2 minutes (held in memory, per node), and at most 20 a
/// daily day (counted in the store, so across nodes and restarts). Before:
/// 5 a minute per connection, and one address made 1,235 in 15.4 s over 487
/// connections.
pub const MAKES_PER_ADDRESS: u32 = 5;
pub const MAKE_REFILL: std::time::Duration = std::time::Duration::from_secs(120);
pub const MAKES_PER_ADDRESS_DAY: u32 = 20;

/// What a league request needs beyond the store: the per-address budget on
/// making leagues (a new code for a league spends from it too: it draws a
/// code as making one does) and the salt that keys the stored address hash.
pub(crate) struct Makers {
    pub budget: JoinLimiter,
    pub salt: Vec<u8>,
}

impl Makers {
    pub fn new(salt: Vec<u8>) -> Makers {
        Makers { budget: JoinLimiter::new(MAKES_PER_ADDRESS, MAKE_REFILL), salt }
    }

    /// League `code`'s invite key: 16 hex digits of an HMAC under the daily
    /// salt, so no one but the server makes one, every node makes the same
    /// one, and nothing more is stored (64 bits: not guessed as a code is).
    pub fn key(&self, code: &str) -> String {
        let mut key =
            mazerace_protocol::daily::keyed_hex(&self.salt, &format!("mazerace league key v1|{code}"));
        key.truncate(16);
        key
    }

    /// Whether `key` (as a link carries it) is the invite key of `code` (as typed).
    pub fn key_opens(&self, code: &str, key: &str) -> bool {
        code_of(code).is_ok_and(|code| self.key(&code) == key.trim().to_ascii_lowercase())
    }

    /// `league` as its members are told it: with its invite key.
    fn keyed(&self, league: League) -> League {
        League { key: Some(self.key(&league.code)), ..league }
    }

    /// The store's daily cap for a league made from `address` on `today`:
    /// only a keyed hash of the address is stored, as for ranked runs.
    fn cap(&self, address: std::net::IpAddr, today: DailyDate) -> MakerCap {
        let label = AddressKey::of(address).label();
        let address =
            mazerace_protocol::daily::keyed_hex(&self.salt, &format!("mazerace league maker v1|{label}"));
        MakerCap { address, day: today, limit: MAKES_PER_ADDRESS_DAY }
    }
}

fn not_found() -> DailyError {
    DailyError::denied(ErrorCode::LeagueNotFound, "no league with that code")
}

/// `remove_member` or `new_league_code` from anyone but the owner, or for
/// a code with no league: the same answer, so it tells a guesser nothing.
fn not_owner(what: &str) -> DailyError {
    DailyError::denied(
        ErrorCode::NotHost,
        format!("only the league's owner (its longest-standing member) may {what}"),
    )
}

fn too_many() -> DailyError {
    DailyError::denied(
        ErrorCode::TooManyLeagues,
        format!("a player can be in {MAX_LEAGUES_PER_PLAYER} leagues at most"),
    )
}

/// A league code as typed or linked: trimmed, upper case, of the right shape.
fn code_of(raw: &str) -> Result<String, DailyError> {
    let code = raw.trim().to_ascii_uppercase();
    if is_code(&code) {
        Ok(code)
    } else {
        Err(not_found())
    }
}

async fn view(store: &Store, code: String, from: DailyDate, to: DailyDate) -> Result<LeagueView, DailyError> {
    store.league_view(code, from, to).await?.ok_or_else(not_found)
}

/// A store answer that does not fit the request: a fault, not the player's.
fn unexpected(op: &str) -> DailyError {
    DailyError::internal(format!("the store answered {op} with something else"))
}

/// The player `me`'s leagues (with `name`, their member name in each
/// becomes it first).
async fn my_leagues(store: &Store, me: String, name: Option<String>) -> Result<Vec<League>, DailyError> {
    match store.league(LeagueRequest::Mine { player: me, name }).await? {
        LeagueAnswer::Leagues(leagues) => Ok(leagues),
        LeagueAnswer::League(_)
        | LeagueAnswer::NotFound
        | LeagueAnswer::Full
        | LeagueAnswer::TooMany
        | LeagueAnswer::AddressCap
        | LeagueAnswer::CodeTaken
        | LeagueAnswer::Left(_)
        | LeagueAnswer::Removed(_)
        | LeagueAnswer::NotOwner
        | LeagueAnswer::Members(..)
        | LeagueAnswer::Runs(_) => Err(unexpected("my_leagues")),
    }
}

/// Answers one league request: one function per request, each with one arm
/// per store answer, so an answer the store learns to give is decided on
/// everywhere (an answer that does not fit its request is [`unexpected`]).
pub(crate) async fn handle(
    store: Store,
    today: DailyDate,
    makers: std::sync::Arc<Makers>,
    asker: LeagueAsker,
    op: LeagueOp,
) -> Result<ServerMsg, DailyError> {
    let LeagueAsker { token, name, address } = asker;
    let me = PlayerKey::from_token(&token).as_str().to_owned();
    let asking = Asking { store, today, makers, me, name, address };
    match op {
        LeagueOp::Create { name } => asking.create(name).await,
        LeagueOp::Join { code, .. } => asking.join(&code).await,
        LeagueOp::Leave { code } => asking.leave(&code).await,
        LeagueOp::Remove { code, member } => asking.remove(&code, member).await,
        LeagueOp::NewCode { code } => asking.new_code(&code).await,
        LeagueOp::Mine => asking.mine().await,
        LeagueOp::Board { code, game, size, date, .. } => asking.board(&code, game, size, date).await,
        LeagueOp::Standings { code, days, .. } => asking.standings(&code, days).await,
    }
}

/// One league request being answered: who asks, and what answering reaches.
struct Asking {
    store: Store,
    today: DailyDate,
    makers: std::sync::Arc<Makers>,
    /// The asker's player key.
    me: String,
    /// The asker's name (empty when not needed).
    name: String,
    address: std::net::IpAddr,
}

impl Asking {
    async fn create(self, name: String) -> Result<ServerMsg, DailyError> {
        let Asking { store, today, makers, me, name: player_name, address } = self;
        let name =
            crate::names::validate(&name).map_err(|why| DailyError::denied(ErrorCode::BadName, why))?;
        if !makers.budget.take(address) {
            let why = "too many leagues made from your network address; wait a few minutes";
            return Err(DailyError::denied(ErrorCode::TooManyLeagues, why));
        }
        let cap = makers.cap(address, today);
        // A fresh code a few times over: 31^8 codes, so a clash is rare.
        for _ in 0..4 {
            let req = LeagueRequest::Create {
                player: me.clone(),
                player_name: player_name.clone(),
                name: name.clone(),
                code: new_code()?,
                max_leagues: MAX_LEAGUES_PER_PLAYER,
                cap: Some(cap.clone()),
            };
            match store.league(req).await? {
                LeagueAnswer::League(l) => return Ok(ServerMsg::League(makers.keyed(l))),
                LeagueAnswer::TooMany => return Err(too_many()),
                LeagueAnswer::AddressCap => {
                    let why = format!(
                        "your network address made its {MAKES_PER_ADDRESS_DAY} leagues today; more from 00:00 UTC"
                    );
                    return Err(DailyError::denied(ErrorCode::TooManyLeagues, why));
                }
                LeagueAnswer::CodeTaken => continue,
                LeagueAnswer::NotFound
                | LeagueAnswer::Full
                | LeagueAnswer::Left(_)
                | LeagueAnswer::Removed(_)
                | LeagueAnswer::NotOwner
                | LeagueAnswer::Leagues(_)
                | LeagueAnswer::Members(..)
                | LeagueAnswer::Runs(_) => return Err(unexpected("create_league")),
            }
        }
        Err(DailyError::internal("no free league code after four tries"))
    }

    async fn join(self, code: &str) -> Result<ServerMsg, DailyError> {
        let req = LeagueRequest::Join {
            player: self.me,
            player_name: self.name,
            code: code_of(code)?,
            max_members: MAX_MEMBERS,
            max_leagues: MAX_LEAGUES_PER_PLAYER,
        };
        match self.store.league(req).await? {
            LeagueAnswer::League(l) => Ok(ServerMsg::League(self.makers.keyed(l))),
            LeagueAnswer::NotFound => Err(not_found()),
            LeagueAnswer::Full => Err(DailyError::denied(
                ErrorCode::LeagueFull,
                format!("that league has its {MAX_MEMBERS} members"),
            )),
            LeagueAnswer::TooMany => Err(too_many()),
            LeagueAnswer::AddressCap
            | LeagueAnswer::CodeTaken
            | LeagueAnswer::Left(_)
            | LeagueAnswer::Removed(_)
            | LeagueAnswer::NotOwner
            | LeagueAnswer::Leagues(_)
            | LeagueAnswer::Members(..)
            | LeagueAnswer::Runs(_) => Err(unexpected("join_league")),
        }
    }

    async fn leave(self, code: &str) -> Result<ServerMsg, DailyError> {
        let code = code_of(code)?;
        match self.store.league(LeagueRequest::Leave { player: self.me, code: code.clone() }).await? {
            LeagueAnswer::Left(left) => Ok(ServerMsg::LeagueLeft { code, left }),
            LeagueAnswer::League(_)
            | LeagueAnswer::NotFound
            | LeagueAnswer::Full
            | LeagueAnswer::TooMany
            | LeagueAnswer::AddressCap
            | LeagueAnswer::CodeTaken
            | LeagueAnswer::Removed(_)
            | LeagueAnswer::NotOwner
            | LeagueAnswer::Leagues(_)
            | LeagueAnswer::Members(..)
            | LeagueAnswer::Runs(_) => Err(unexpected("leave_league")),
        }
    }

    async fn remove(self, code: &str, member: String) -> Result<ServerMsg, DailyError> {
        let code = code_of(code)?;
        let req = LeagueRequest::Remove { owner: self.me, code: code.clone(), member: member.clone() };
        match self.store.league(req).await? {
            LeagueAnswer::Removed(removed) => Ok(ServerMsg::MemberRemoved { code, member, removed }),
            LeagueAnswer::NotOwner => Err(not_owner("remove a member")),
            LeagueAnswer::League(_)
            | LeagueAnswer::NotFound
            | LeagueAnswer::Full
            | LeagueAnswer::TooMany
            | LeagueAnswer::AddressCap
            | LeagueAnswer::CodeTaken
            | LeagueAnswer::Left(_)
            | LeagueAnswer::Leagues(_)
            | LeagueAnswer::Members(..)
            | LeagueAnswer::Runs(_) => Err(unexpected("remove_member")),
        }
    }

    async fn new_code(self, code: &str) -> Result<ServerMsg, DailyError> {
        // Issue 34: removing a puppet did not keep it out, since a fresh
        // token joins again with the code it knows. A new code does:
        // the old code, link and key name nothing from now on, and the
        // new ones reach only the members (in `leagues`) and whoever
        // the owner sends the link. Remove first, then change the code.
        let code = code_of(code)?;
        if !self.makers.budget.take(self.address) {
            let why =
                "too many leagues made or given new codes from your network address; wait a few minutes";
            return Err(DailyError::denied(ErrorCode::TooManyLeagues, why));
        }
        for _ in 0..4 {
            let req =
                LeagueRequest::NewCode { owner: self.me.clone(), code: code.clone(), new_code: new_code()? };
            match self.store.league(req).await? {
                LeagueAnswer::League(l) => {
                    metrics::league_code_changed();
                    let league = self.makers.keyed(l);
                    return Ok(ServerMsg::LeagueCodeChanged { old_code: code, league });
                }
                LeagueAnswer::NotOwner => return Err(not_owner("give it a new code")),
                LeagueAnswer::CodeTaken => continue,
                LeagueAnswer::NotFound
                | LeagueAnswer::Full
                | LeagueAnswer::TooMany
                | LeagueAnswer::AddressCap
                | LeagueAnswer::Left(_)
                | LeagueAnswer::Removed(_)
                | LeagueAnswer::Leagues(_)
                | LeagueAnswer::Members(..)
                | LeagueAnswer::Runs(_) => return Err(unexpected("new_league_code")),
            }
        }
        Err(DailyError::internal("no free league code after four tries"))
    }

    async fn mine(self) -> Result<ServerMsg, DailyError> {
        let Asking { store, today, makers, me, name, .. } = self;
        // Listed after every welcome and rename: the member name follows.
        let name = (!name.is_empty()).then_some(name);
        let mut leagues = my_leagues(&store, me.clone(), name).await?;
        for l in &mut leagues {
            l.key = Some(makers.key(&l.code));
            let v = view(&store, l.code.clone(), today, today).await?;
            let lines = standings(&l.code, &v.members, &v.runs, &v.streaks, Some(&me));
            let played = v.members.iter().filter(|m| v.runs.iter().any(|r| r.player == m.player)).count();
            l.today = lines.iter().find(|s| s.you).map(|s| LeagueToday {
                rank: s.rank,
                points: s.points,
                played: played as u32,
            });
        }
        Ok(ServerMsg::Leagues { leagues })
    }

    async fn board(
        self,
        code: &str,
        game: Game,
        size: Size,
        date: Option<DailyDate>,
    ) -> Result<ServerMsg, DailyError> {
        let date = date.unwrap_or(self.today);
        if size.game() != game {
            return Err(DailyError::denied(ErrorCode::BadSize, format!("{size} is not a size of {game}")));
        }
        let v = view(&self.store, code_of(code)?, date, date).await?;
        let entries = board_table(&v.runs, date, game, size, Some(&self.me));
        Ok(ServerMsg::LeagueBoard(LeagueBoard {
            code: v.league.code,
            name: v.league.name,
            date,
            game,
            size,
            entries,
        }))
    }

    async fn standings(self, code: &str, days: u32) -> Result<ServerMsg, DailyError> {
        if days != 7 && days != 30 {
            return Err(DailyError::denied(ErrorCode::BadDays, "standings are over 7 or 30 days"));
        }
        let today = self.today;
        let from = today.add_days(1 - i64::from(days)).unwrap_or(today);
        let v = view(&self.store, code_of(code)?, from, today).await?;
        let lines = standings(&v.league.code, &v.members, &v.runs, &v.streaks, Some(&self.me));
        Ok(ServerMsg::LeagueStandings(LeagueStandings {
            code: v.league.code,
            name: v.league.name,
            days,
            from,
            to: today,
            lines,
        }))
    }
}

/// Where a ranked run on (date, game, size) placed in each of the player's
/// leagues (the run is committed by now). Bounded: 10 leagues of 50. Best
/// effort: a league that cannot be read now is left out of the result.
pub(crate) async fn places(
    store: &Store,
    player: &PlayerKey,
    date: DailyDate,
    game: Game,
    size: Size,
) -> Vec<LeaguePlace> {
    let me = player.as_str().to_owned();
    let Ok(leagues) = my_leagues(store, me.clone(), None).await else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(leagues.len());
    for l in leagues {
        let Ok(Some(v)) = store.league_view(l.code.clone(), date, date).await else {
            continue;
        };
        let table = board_table(&v.runs, date, game, size, Some(&me));
        let rank = table.iter().find(|e| e.you).and_then(|e| e.rank);
        let entrants = table.len() as u32;
        let share = league_share(date, &l.name, game, size, rank, entrants);
        out.push(LeaguePlace { code: l.code, name: l.name, rank, entrants, share });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Makers;

    #[test]
    fn a_league_key_opens_its_own_league_only_whatever_the_case() {
        let makers = Makers::new(b"salt".to_vec());
        let key = makers.key("K7M2QX9P");
        assert_eq!(key.len(), 16);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
        assert!(makers.key_opens(" k7m2qx9p", &key.to_ascii_uppercase()), "a code as typed, a key as linked");
        assert!(!makers.key_opens("K7M2QX9Q", &key), "another league");
        assert!(!makers.key_opens("K7M2QX9P", "0000000000000000"));
        assert!(!makers.key_opens("K7M2QX9P", ""));
        assert_ne!(Makers::new(b"other".to_vec()).key("K7M2QX9P"), key, "keyed by the salt");
    }
}
