//! What the lobby asks of the daily store: a daily board's leaderboard, and
//! the league messages (issue 15). Each league message goes to the hook
//! through [`guard::league`] (an unknown code, on any league message, costs
//! the address a failed join, as a room code does, so codes cannot be
//! guessed), and a `join_league` spends one of the address's league joins;
//! `create_league` and `join_league` are also held to a small budget per
//! connection. A store that does not answer within
//! [`STORE_WAIT`] counts as unavailable.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::{ClientMsg, ErrorCode, ServerMsg};
use mazerace_protocol::{Game, Size};
use tokio::time::timeout;

use super::Lobby;
use crate::daily::{guard, BoardQuery, DailyError, LeagueAsker, LeagueOp, NOT_CONFIGURED};
use crate::sessions::Session;

/// How long a request waits for the daily store.
pub(super) const STORE_WAIT: Duration = Duration::from_secs(5);

/// The league operation a message asks for (`None`: not a league message).
pub(super) fn op_of(msg: ClientMsg) -> Option<LeagueOp> {
    Some(match msg {
        ClientMsg::CreateLeague { name } => LeagueOp::Create { name },
        ClientMsg::JoinLeague { code, key } => LeagueOp::Join { code, key },
        ClientMsg::LeaveLeague { code } => LeagueOp::Leave { code },
        ClientMsg::RemoveMember { code, member } => LeagueOp::Remove { code, member },
        ClientMsg::NewLeagueCode { code } => LeagueOp::NewCode { code },
        ClientMsg::MyLeagues {} => LeagueOp::Mine,
        ClientMsg::LeagueBoard { code, game, size, date, key } => {
            LeagueOp::Board { code, game, size, date, key }
        }
        ClientMsg::LeagueStandings { code, days, key } => LeagueOp::Standings { code, days, key },
        _ => return None,
    })
}

impl Lobby {
    pub(super) async fn leaderboard(
        &mut self,
        s: &Arc<Session>,
        game: Game,
        size: Size,
        date: Option<DailyDate>,
    ) {
        let Some(hook) = self.env.daily.clone() else {
            return self.error(ErrorCode::Internal, NOT_CONFIGURED);
        };
        let query = match BoardQuery::new(game, size, date) {
            Ok(q) => q,
            Err(e) => return self.error(ErrorCode::BadSize, e.to_string()),
        };
        let fut = hook.leaderboard(query, Some(s.token.to_string()));
        match timeout(STORE_WAIT, fut).await.unwrap_or_else(|_| Err(DailyError::late())) {
            Ok(board) => self.send(&ServerMsg::Leaderboard(board)),
            Err(e) => self.daily_failed(&e, "the leaderboard"),
        }
    }

    pub(super) async fn league(&mut self, s: &Arc<Session>, op: LeagueOp) {
        let Some(hook) = self.env.daily.clone() else {
            return self.error(ErrorCode::Internal, NOT_CONFIGURED);
        };
        if matches!(op, LeagueOp::Create { .. } | LeagueOp::Join { .. }) && !self.leagues.take() {
            return self.error(ErrorCode::TooManyLeagues, "too many leagues made or joined; wait a little");
        }
        let asker = LeagueAsker { token: s.token.to_string(), name: s.name().to_string(), address: self.ip };
        let asked = guard::league(hook.as_ref(), &self.env.joins, &self.env.league_joins, asker, op);
        match timeout(STORE_WAIT, asked).await.unwrap_or_else(|_| Err(DailyError::late())) {
            Ok(msg) => self.send(&msg),
            Err(e) => self.daily_failed(&e, "leagues"),
        }
    }

    /// A daily error as its one socket answer ([`DailyError::socket`]): a
    /// refusal keeps its own code.
    pub(super) fn daily_failed(&self, e: &DailyError, what: &str) {
        let (code, message) = e.socket(what);
        self.error(code, message);
    }
}
