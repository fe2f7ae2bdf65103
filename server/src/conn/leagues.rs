//! The league messages on a connection (issue 15): each goes to the daily
//! hook; `create_league` and `join_league` are held to a small budget per
//! connection, and a join with an unknown code costs the address a failed
//! join, as a room code does, so codes cannot be guessed.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::messages::{ClientMsg, ErrorCode};
use tokio::time::timeout;

use super::Conn;
use crate::daily::{DailyError, LeagueAsker, LeagueOp, NOT_CONFIGURED};
use crate::sessions::Session;

/// How long a request waits for the daily store.
const STORE_WAIT: Duration = Duration::from_secs(5);

/// The league operation a message asks for (`None`: not a league message).
pub(super) fn op_of(msg: &ClientMsg) -> Option<LeagueOp> {
    Some(match msg.clone() {
        ClientMsg::CreateLeague { name } => LeagueOp::Create { name },
        ClientMsg::JoinLeague { code } => LeagueOp::Join { code },
        ClientMsg::LeaveLeague { code } => LeagueOp::Leave { code },
        ClientMsg::MyLeagues {} => LeagueOp::Mine,
        ClientMsg::LeagueBoard { code, game, size, date } => LeagueOp::Board { code, game, size, date },
        ClientMsg::LeagueStandings { code, days } => LeagueOp::Standings { code, days },
        _ => return None,
    })
}

impl Conn {
    pub(super) async fn league(&mut self, s: &Arc<Session>, op: LeagueOp) {
        let Some(hook) = self.env.daily.clone() else {
            return self.error(ErrorCode::Internal, NOT_CONFIGURED);
        };
        let joining = matches!(op, LeagueOp::Join { .. });
        if matches!(op, LeagueOp::Create { .. } | LeagueOp::Join { .. }) {
            if joining && !self.env.joins.allowed(self.ip) {
                return self.error(ErrorCode::TooManyJoins, "too many failed joins; wait a minute");
            }
            if !self.leagues.take() {
                return self
                    .error(ErrorCode::TooManyLeagues, "too many leagues made or joined; wait a little");
            }
        }
        let asker = LeagueAsker { token: s.token.to_string(), name: s.name().to_string(), address: self.ip };
        let answer =
            timeout(STORE_WAIT, hook.league(asker, op)).await.unwrap_or_else(|_| Err(DailyError::late()));
        match answer {
            Ok(msg) => self.send(&msg),
            Err(e) => {
                let (code, why) = e.socket("leagues");
                if joining && code == ErrorCode::LeagueNotFound {
                    self.env.joins.failed(self.ip);
                }
                self.error(code, why);
            }
        }
    }
}
