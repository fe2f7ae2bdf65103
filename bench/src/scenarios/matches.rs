//! The races scenario's matches (issue 25): the host sets the room to play
//! matches, and each `match_over` is checked.

use anyhow::{anyhow, bail, Result};
use mazerace_protocol::matches::{MatchSettings, Plan, Rounds};
use mazerace_protocol::messages::{ClientMsg, ServerMsg};
use std::time::Duration;

use crate::rooms::Player;

/// Host, in the lobby: matches of `rounds` rounds, alternating the games.
pub(super) async fn set_match(host: &mut Player, rounds: u32) -> Result<()> {
    let rounds = Rounds::try_from(rounds).map_err(|e| anyhow!(e))?;
    let format = Some(MatchSettings { rounds, plan: Plan::Alternate });
    host.conn.send_msg(&ClientMsg::SetMatch { format }).await?;
    host.conn
        .wait_for(Duration::from_secs(10), |m| match m {
            ServerMsg::Room(r) if r.format == format => Some(Ok(())),
            ServerMsg::Error { code, message } => Some(Err(anyhow!("{code:?}: {message}"))),
            _ => None,
        })
        .await?
}

/// The end of a match: `rounds` rounds, each raced by all of `ids`, and
/// every line's points the sum of its rounds'.
pub(super) async fn match_over(host: &mut Player, rounds: u32, ids: &[u32]) -> Result<()> {
    let over = host
        .conn
        .wait_for(Duration::from_secs(30), |m| match m {
            ServerMsg::MatchOver(o) => Some(o.clone()),
            _ => None,
        })
        .await?;
    if over.played != rounds || over.lines.len() != ids.len() {
        bail!("{} rounds and {} lines, expected {rounds} and {}", over.played, over.lines.len(), ids.len());
    }
    for l in &over.lines {
        let points: Option<u32> = l.rounds.iter().copied().sum();
        if !ids.contains(&l.player_id) || points != Some(l.points) {
            bail!("line {l:?}: not everyone's rounds adding up");
        }
    }
    Ok(())
}
