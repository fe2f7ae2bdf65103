//! The league messages on a connection (issue 15): each goes to the daily
//! hook through [`guard::league`] (an unknown code, on any league message,
//! costs the address a failed join, as a room code does, so codes cannot be
//! guessed); `create_league` and `join_league` are also held to a small
//! budget per connection.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::messages::{ClientMsg, ErrorCode};
use tokio::time::timeout;

use super::Conn;
use crate::daily::{guard, DailyError, LeagueAsker, LeagueOp, NOT_CONFIGURED};
use crate::sessions::Session;

/// How long a request waits for the daily store.
const STORE_WAIT: Duration = Duration::from_secs(5);

/// The league operation a message asks for (`None`: not a league message).
pub(super) fn op_of(msg: &ClientMsg) -> Option<LeagueOp> {
    Some(match msg.clone() {
        ClientMsg::CreateLeague { name } => LeagueOp::Create { name },
        ClientMsg::JoinLeague { code, key } => LeagueOp::Join { code, key },
        ClientMsg::LeaveLeague { code } => LeagueOp::Leave { code },
        ClientMsg::RemoveMember { code, member } => LeagueOp::Remove { code, member },
        ClientMsg::MyLeagues {} => LeagueOp::Mine,
        ClientMsg::LeagueBoard { code, game, size, date, key } => {
            LeagueOp::Board { code, game, size, date, key }
        }
        ClientMsg::LeagueStandings { code, days, key } => LeagueOp::Standings { code, days, key },
        _ => return None,
    })
}

impl Conn {
    pub(super) async fn league(&mut self, s: &Arc<Session>, op: LeagueOp) {
        let Some(hook) = self.env.daily.clone() else {
            return self.error(ErrorCode::Internal, NOT_CONFIGURED);
        };
        if matches!(op, LeagueOp::Create { .. } | LeagueOp::Join { .. }) && !self.leagues.take() {
            return self.error(ErrorCode::TooManyLeagues, "too many leagues made or joined; wait a little");
        }
        let asker = LeagueAsker { token: s.token.to_string(), name: s.name().to_string(), address: self.ip };
        let asked = guard::league(hook.as_ref(), &self.env.joins, asker, op);
        match timeout(STORE_WAIT, asked).await.unwrap_or_else(|_| Err(DailyError::late())) {
            Ok(msg) => self.send(&msg),
            Err(e) => {
                let (code, why) = e.socket("leagues");
                self.error(code, why);
            }
        }
    }
}
