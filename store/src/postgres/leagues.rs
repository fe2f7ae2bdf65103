//! Leagues on PostgreSQL ([`crate::league`]), each request in one
//! transaction. Limits hold across nodes: a join locks the league's row
//! (`FOR UPDATE`) before counting its members, and a create or join takes
//! an advisory lock on the player before counting their leagues.

use postgres::Transaction;

use super::{col, PostgresBackend};
use crate::error::StoreError;
use crate::league::{League, LeagueAnswer, LeagueRequest, Member, MemberRun};
use crate::sql::{parse, parse_state, to_u32, to_u64};

fn league_of(tx: &mut Transaction<'_>, code: &str, lock: bool) -> Result<Option<(i64, League)>, StoreError> {
    let sql = if lock {
        "SELECT id, code, name FROM leagues WHERE code = $1 FOR UPDATE"
    } else {
        "SELECT id, code, name FROM leagues WHERE code = $1"
    };
    let Some(row) = tx.query_opt(sql, &[&code])? else { return Ok(None) };
    let id: i64 = col(&row, 0)?;
    let n: i64 = col(&tx.query_one("SELECT COUNT(*) FROM league_members WHERE league = $1", &[&id])?, 0)?;
    Ok(Some((
        id,
        League { code: col(&row, 1)?, name: col(&row, 2)?, members: to_u32(n, "members")?, today: None },
    )))
}

/// The player's league count, under a lock on the player until the commit.
fn leagues_of(tx: &mut Transaction<'_>, player: &str) -> Result<u32, StoreError> {
    tx.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 16))", &[&player])?;
    let n: i64 = col(&tx.query_one("SELECT COUNT(*) FROM league_members WHERE player = $1", &[&player])?, 0)?;
    to_u32(n, "leagues")
}

pub(super) fn handle(b: &mut PostgresBackend, req: LeagueRequest) -> Result<LeagueAnswer, StoreError> {
    b.with(|c, _| {
        let mut tx = c.transaction()?;
        let answer = match req.clone() {
            LeagueRequest::Create { player, player_name, name, code, max_leagues } => {
                if leagues_of(&mut tx, &player)? >= max_leagues {
                    return Ok(LeagueAnswer::TooMany);
                }
                let row = tx.query_opt(
                    "INSERT INTO leagues (code, name) VALUES ($1, $2) ON CONFLICT (code) DO NOTHING RETURNING id",
                    &[&code, &name],
                )?;
                let Some(row) = row else { return Ok(LeagueAnswer::CodeTaken) };
                let id: i64 = col(&row, 0)?;
                tx.execute(
                    "INSERT INTO league_members (league, player, name) VALUES ($1, $2, $3)",
                    &[&id, &player, &player_name],
                )?;
                LeagueAnswer::League(League { code, name, members: 1, today: None })
            }
            LeagueRequest::Join { player, player_name, code, max_members, max_leagues } => {
                let Some((id, league)) = league_of(&mut tx, &code, true)? else {
                    return Ok(LeagueAnswer::NotFound);
                };
                let member = tx.query_opt(
                    "SELECT 1 FROM league_members WHERE league = $1 AND player = $2",
                    &[&id, &player],
                )?;
                if member.is_some() {
                    return Ok(LeagueAnswer::League(league));
                }
                if league.members >= max_members {
                    return Ok(LeagueAnswer::Full);
                }
                if leagues_of(&mut tx, &player)? >= max_leagues {
                    return Ok(LeagueAnswer::TooMany);
                }
                tx.execute(
                    "INSERT INTO league_members (league, player, name) VALUES ($1, $2, $3)",
                    &[&id, &player, &player_name],
                )?;
                LeagueAnswer::League(League { members: league.members + 1, ..league })
            }
            LeagueRequest::Leave { player, code } => {
                let n = tx.execute(
                    "DELETE FROM league_members WHERE player = $1
                     AND league = (SELECT id FROM leagues WHERE code = $2)",
                    &[&player, &code],
                )?;
                LeagueAnswer::Left(n > 0)
            }
            LeagueRequest::Mine { player, name } => {
                if let Some(name) = name {
                    tx.execute(
                        "UPDATE league_members SET name = $2 WHERE player = $1 AND name <> $2",
                        &[&player, &name],
                    )?;
                }
                let rows = tx.query(
                    "SELECT l.code, l.name, (SELECT COUNT(*) FROM league_members o WHERE o.league = l.id)
                     FROM league_members m JOIN leagues l ON l.id = m.league
                     WHERE m.player = $1 ORDER BY m.joined_at, l.id",
                    &[&player],
                )?;
                let mut out = Vec::with_capacity(rows.len());
                for r in &rows {
                    out.push(League { code: col(r, 0)?, name: col(r, 1)?, members: to_u32(col(r, 2)?, "members")?, today: None });
                }
                LeagueAnswer::Leagues(out)
            }
            LeagueRequest::Members { code } => {
                let Some((id, league)) = league_of(&mut tx, &code, false)? else {
                    return Ok(LeagueAnswer::NotFound);
                };
                let rows =
                    tx.query("SELECT player, name FROM league_members WHERE league = $1 ORDER BY joined_at", &[&id])?;
                let members = rows
                    .iter()
                    .map(|r| Ok(Member { player: col(r, 0)?, name: col(r, 1)? }))
                    .collect::<Result<Vec<_>, StoreError>>()?;
                LeagueAnswer::Members(league, members)
            }
            LeagueRequest::Runs { code, from, to } => {
                let rows = tx.query(
                    "SELECT r.player, m.name, r.date, r.game, r.size, r.state, r.steps, r.time_ms, r.id
                     FROM leagues l JOIN league_members m ON m.league = l.id
                     JOIN runs r ON r.player = m.player AND r.ranked AND r.date BETWEEN $2 AND $3
                     WHERE l.code = $1 ORDER BY r.id",
                    &[&code, &from, &to],
                )?;
                let mut out = Vec::with_capacity(rows.len());
                for r in &rows {
                    out.push(MemberRun {
                        player: col(r, 0)?,
                        name: col(r, 1)?,
                        date: col(r, 2)?,
                        game: parse(&col::<String>(r, 3)?, "game")?,
                        size: parse(&col::<String>(r, 4)?, "size")?,
                        state: parse_state(&col::<String>(r, 5)?)?,
                        steps: to_u32(col(r, 6)?, "steps")?,
                        time_ms: col::<Option<i64>>(r, 7)?.map(|t| to_u64(t, "time")).transpose()?,
                        run_id: col(r, 8)?,
                    });
                }
                LeagueAnswer::Runs(out)
            }
        };
        tx.commit()?;
        Ok(answer)
    })
}
