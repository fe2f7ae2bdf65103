//! Leagues on SQLite ([`crate::league`]): each request in one immediate
//! transaction, so the member and league limits are counted and kept
//! together (SQLite has one writer at a time).

use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};

use super::SqliteBackend;
use crate::error::StoreError;
use crate::league::{League, LeagueAnswer, LeagueRequest, Member, MemberRun};
use crate::sql::{parse, parse_state, to_u32, to_u64};

fn league_of(tx: &Transaction<'_>, code: &str) -> Result<Option<(i64, League)>, StoreError> {
    let row = tx
        .query_row(
            "SELECT id, code, name, (SELECT COUNT(*) FROM league_members m WHERE m.league = l.id)
             FROM leagues l WHERE code = ?1",
            [code],
            |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?))
            },
        )
        .optional()?;
    row.map(|(id, code, name, n)| {
        Ok((id, League { code, name, members: to_u32(n, "members")?, today: None }))
    })
    .transpose()
}

fn leagues_of(tx: &Transaction<'_>, player: &str) -> Result<u32, StoreError> {
    let n: i64 =
        tx.query_row("SELECT COUNT(*) FROM league_members WHERE player = ?1", [player], |r| r.get(0))?;
    to_u32(n, "leagues")
}

pub(super) fn handle(b: &mut SqliteBackend, req: LeagueRequest) -> Result<LeagueAnswer, StoreError> {
    let tx = b.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let answer = match req {
        LeagueRequest::Create { player, player_name, name, code, max_leagues } => {
            if leagues_of(&tx, &player)? >= max_leagues {
                return Ok(LeagueAnswer::TooMany);
            }
            if league_of(&tx, &code)?.is_some() {
                return Ok(LeagueAnswer::CodeTaken);
            }
            tx.execute("INSERT INTO leagues (code, name) VALUES (?1, ?2)", params![code, name])?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO league_members (league, player, name) VALUES (?1, ?2, ?3)",
                params![id, player, player_name],
            )?;
            LeagueAnswer::League(League { code, name, members: 1, today: None })
        }
        LeagueRequest::Join { player, player_name, code, max_members, max_leagues } => {
            let Some((id, league)) = league_of(&tx, &code)? else { return Ok(LeagueAnswer::NotFound) };
            let member: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM league_members WHERE league = ?1 AND player = ?2)",
                params![id, player],
                |r| r.get(0),
            )?;
            if member {
                return Ok(LeagueAnswer::League(league));
            }
            if league.members >= max_members {
                return Ok(LeagueAnswer::Full);
            }
            if leagues_of(&tx, &player)? >= max_leagues {
                return Ok(LeagueAnswer::TooMany);
            }
            tx.execute(
                "INSERT INTO league_members (league, player, name) VALUES (?1, ?2, ?3)",
                params![id, player, player_name],
            )?;
            LeagueAnswer::League(League { members: league.members + 1, ..league })
        }
        LeagueRequest::Leave { player, code } => {
            let n = tx.execute(
                "DELETE FROM league_members WHERE player = ?1 AND league = (SELECT id FROM leagues WHERE code = ?2)",
                params![player, code],
            )?;
            LeagueAnswer::Left(n > 0)
        }
        LeagueRequest::Mine { player, name } => {
            if let Some(name) = name {
                tx.execute(
                    "UPDATE league_members SET name = ?2 WHERE player = ?1 AND name <> ?2",
                    params![player, name],
                )?;
            }
            let mut stmt = tx.prepare_cached(
                "SELECT l.code, l.name, (SELECT COUNT(*) FROM league_members o WHERE o.league = l.id)
                 FROM league_members m JOIN leagues l ON l.id = m.league
                 WHERE m.player = ?1 ORDER BY m.joined_at, l.id",
            )?;
            let rows = stmt.query_map([player], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?)))?;
            let mut out = Vec::new();
            for row in rows {
                let (code, name, n) = row?;
                out.push(League { code, name, members: to_u32(n, "members")?, today: None });
            }
            drop(stmt);
            LeagueAnswer::Leagues(out)
        }
        LeagueRequest::Members { code } => {
            let Some((id, league)) = league_of(&tx, &code)? else { return Ok(LeagueAnswer::NotFound) };
            let mut stmt = tx.prepare_cached(
                "SELECT player, name FROM league_members WHERE league = ?1 ORDER BY joined_at",
            )?;
            let members = stmt
                .query_map([id], |r| Ok(Member { player: r.get(0)?, name: r.get(1)? }))?
                .collect::<Result<Vec<_>, _>>()?;
            drop(stmt);
            LeagueAnswer::Members(league, members)
        }
        LeagueRequest::Runs { code, from, to } => {
            let mut stmt = tx.prepare_cached(
                "SELECT r.player, m.name, r.date, r.game, r.size, r.state, r.steps, r.time_ms, r.id
                 FROM leagues l JOIN league_members m ON m.league = l.id
                 JOIN runs r ON r.player = m.player AND r.ranked = 1 AND r.date BETWEEN ?2 AND ?3
                 WHERE l.code = ?1 ORDER BY r.id",
            )?;
            let rows = stmt.query_map(params![code, from, to], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, Option<i64>>(7)?,
                    r.get::<_, i64>(8)?,
                ))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (player, name, date, game, size, state, steps, time_ms, run_id) = row?;
                out.push(MemberRun {
                    player,
                    name,
                    date,
                    game: parse(&game, "game")?,
                    size: parse(&size, "size")?,
                    state: parse_state(&state)?,
                    steps: to_u32(steps, "steps")?,
                    time_ms: time_ms.map(|t| to_u64(t, "time")).transpose()?,
                    run_id,
                });
            }
            drop(stmt);
            LeagueAnswer::Runs(out)
        }
    };
    tx.commit()?;
    Ok(answer)
}
