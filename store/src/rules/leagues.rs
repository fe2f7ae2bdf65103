//! Leagues and their members (issue 15), once for both databases, each
//! request in one write transaction. The limits hold across nodes: a join
//! locks the league's row (`{for_update}`) before counting its members, and
//! a create or join takes the dialect's lock on the player before counting
//! their leagues (SQLite's one writer needs neither).

use mazerace_protocol::daily::DailyDate;

use super::lock;
use super::runs::streak_in;
use crate::db::{params, Db, Sql, TxKind};
use crate::error::StoreError;
use crate::league::{member_tag, League, LeagueAnswer, LeagueRequest, LeagueView, Member, MemberRun};

/// Lock classes of [`lock`]: one league count at a time per player, and
/// one count of leagues made per address.
const PLAYER_LOCK: i64 = 16;
const MAKER_LOCK: i64 = 17;

static LEAGUE: Sql = Sql::new("SELECT id, code, name, owner FROM leagues WHERE code = $1");
static LEAGUE_LOCKED: Sql =
    Sql::new("SELECT id, code, name, owner FROM leagues WHERE code = $1 {for_update}");
static MEMBER_COUNT: Sql = Sql::new("SELECT COUNT(*) FROM league_members WHERE league = $1");
static PLAYER_LEAGUES: Sql = Sql::new("SELECT COUNT(*) FROM league_members WHERE player = $1");
static NEW_LEAGUE: Sql = Sql::new(
    "INSERT INTO leagues (code, name, address, made_on, owner) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (code) DO NOTHING RETURNING id",
);
static MADE_BY_ADDRESS: Sql = Sql::new("SELECT COUNT(*) FROM leagues WHERE address = $1 AND made_on = $2");
static NEW_MEMBER: Sql = Sql::new("INSERT INTO league_members (league, player, name) VALUES ($1, $2, $3)");
static IS_MEMBER: Sql =
    Sql::new("SELECT EXISTS (SELECT 1 FROM league_members WHERE league = $1 AND player = $2)");
static LEAVE: Sql = Sql::new(
    "DELETE FROM league_members WHERE player = $1 AND league = (SELECT id FROM leagues WHERE code = $2)",
);
static RENAME: Sql = Sql::new("UPDATE league_members SET name = $2 WHERE player = $1 AND name <> $2");
static MINE: Sql = Sql::new(
    "SELECT l.code, l.name, (SELECT COUNT(*) FROM league_members o WHERE o.league = l.id)
     FROM league_members m JOIN leagues l ON l.id = m.league
     WHERE m.player = $1 ORDER BY m.joined_at, l.id",
);
/// Longest-standing first: the first is the league's owner.
static MEMBERS: Sql =
    Sql::new("SELECT player, name FROM league_members WHERE league = $1 ORDER BY joined_at, player");
static REMOVE: Sql = Sql::new("DELETE FROM league_members WHERE league = $1 AND player = $2");
static NEW_CODE: Sql = Sql::new("UPDATE leagues SET code = $2 WHERE id = $1");
static MEMBER_RUNS: Sql = Sql::new(
    "SELECT r.player, m.name, r.date, r.game, r.size, r.state, r.steps, r.time_ms, r.id, r.at_floor
     FROM leagues l JOIN league_members m ON m.league = l.id
     JOIN runs r ON r.player = m.player AND {r_ranked} AND r.date BETWEEN $2 AND $3
     WHERE l.code = $1 ORDER BY r.id",
);

/// Every statement here, for the rendering test.
#[cfg(test)]
pub(crate) static STATEMENTS: &[&Sql] = &[
    &LEAGUE,
    &LEAGUE_LOCKED,
    &MEMBER_COUNT,
    &PLAYER_LEAGUES,
    &NEW_LEAGUE,
    &MADE_BY_ADDRESS,
    &NEW_MEMBER,
    &IS_MEMBER,
    &LEAVE,
    &RENAME,
    &MINE,
    &MEMBERS,
    &REMOVE,
    &NEW_CODE,
    &MEMBER_RUNS,
];

/// A league by code with its member count; its row locked to the commit
/// when `locked`.
async fn league_of(db: &mut dyn Db, code: &str, locked: bool) -> Result<Option<(i64, League)>, StoreError> {
    Ok(league_row(db, code, locked).await?.map(|(id, league, _)| (id, league)))
}

/// [`league_of`] with the maker's key as stored (`None` for leagues made
/// before schema version 7).
async fn league_row(
    db: &mut dyn Db,
    code: &str,
    locked: bool,
) -> Result<Option<(i64, League, Option<String>)>, StoreError> {
    let sql = if locked { &LEAGUE_LOCKED } else { &LEAGUE };
    let Some(row) = db.opt(sql, &params![code]).await? else { return Ok(None) };
    let id = row.int(0)?;
    let members = db.one(&MEMBER_COUNT, &params![id]).await?.u32(0, "members")?;
    let league = League { code: row.string(1)?, name: row.string(2)?, members, today: None, key: None };
    Ok(Some((id, league, row.opt_text(3)?.map(str::to_owned))))
}

/// A league's members, its owner first: the maker while they are a
/// member, else the longest-standing member.
async fn members_of(db: &mut dyn Db, id: i64, maker: Option<&str>) -> Result<Vec<Member>, StoreError> {
    let rows = db.query(&MEMBERS, &params![id]).await?;
    let mut members = rows
        .iter()
        .map(|r| Ok(Member { player: r.string(0)?, name: r.string(1)? }))
        .collect::<Result<Vec<_>, StoreError>>()?;
    if let Some(at) = members.iter().position(|m| Some(m.player.as_str()) == maker) {
        let owner = members.remove(at);
        members.insert(0, owner);
    }
    Ok(members)
}

/// The player's league count, under the player's lock until the commit.
async fn leagues_of(db: &mut dyn Db, player: &str) -> Result<u32, StoreError> {
    lock(db, player, PLAYER_LOCK).await?;
    db.one(&PLAYER_LEAGUES, &params![player]).await?.u32(0, "leagues")
}

/// Answers one league request, in one transaction.
pub(crate) async fn league(db: &mut dyn Db, req: LeagueRequest) -> Result<LeagueAnswer, StoreError> {
    db.begin(TxKind::Write).await?;
    let answer = match req {
        LeagueRequest::Create { player, player_name, name, code, max_leagues, cap } => {
            if leagues_of(db, &player).await? >= max_leagues {
                return Ok(LeagueAnswer::TooMany);
            }
            if let Some(cap) = &cap {
                // Counted under the address's lock, so makers racing from one
                // address on several nodes cannot pass the cap.
                lock(db, &cap.address, MAKER_LOCK).await?;
                let made = db.one(&MADE_BY_ADDRESS, &params![&cap.address, cap.day]).await?.u32(0, "made")?;
                if made >= cap.limit {
                    return Ok(LeagueAnswer::AddressCap);
                }
            }
            let (address, day) = (cap.as_ref().map(|c| c.address.as_str()), cap.as_ref().map(|c| c.day));
            let Some(row) = db.opt(&NEW_LEAGUE, &params![&code, &name, address, day, &player]).await? else {
                return Ok(LeagueAnswer::CodeTaken);
            };
            db.execute(&NEW_MEMBER, &params![row.int(0)?, &player, &player_name]).await?;
            LeagueAnswer::League(League { code, name, members: 1, today: None, key: None })
        }
        LeagueRequest::Join { player, player_name, code, max_members, max_leagues } => {
            let Some((id, league)) = league_of(db, &code, true).await? else {
                return Ok(LeagueAnswer::NotFound);
            };
            if db.one(&IS_MEMBER, &params![id, &player]).await?.bool(0)? {
                return Ok(LeagueAnswer::League(league));
            }
            if league.members >= max_members {
                return Ok(LeagueAnswer::Full);
            }
            if leagues_of(db, &player).await? >= max_leagues {
                return Ok(LeagueAnswer::TooMany);
            }
            db.execute(&NEW_MEMBER, &params![id, &player, &player_name]).await?;
            LeagueAnswer::League(League { members: league.members + 1, ..league })
        }
        LeagueRequest::Leave { player, code } => {
            LeagueAnswer::Left(db.execute(&LEAVE, &params![&player, &code]).await? > 0)
        }
        LeagueRequest::Remove { owner, code, member } => {
            // The league's row locked: a join or another removal waits, so
            // the owner read here is the owner at the commit.
            let Some((id, _, maker)) = league_row(db, &code, true).await? else {
                return Ok(LeagueAnswer::NotOwner);
            };
            let members = members_of(db, id, maker.as_deref()).await?;
            if members.first().map(|m| &m.player) != Some(&owner) {
                return Ok(LeagueAnswer::NotOwner);
            }
            let target = members.iter().find(|m| m.player != owner && member_tag(&code, &m.player) == member);
            match target {
                Some(m) => LeagueAnswer::Removed(db.execute(&REMOVE, &params![id, &m.player]).await? > 0),
                None => LeagueAnswer::Removed(false),
            }
        }
        LeagueRequest::NewCode { owner, code, new_code } => {
            // The league's row locked, as for `Remove`: the owner read here
            // is the owner at the commit, and a join waits for the new code.
            let Some((id, league, maker)) = league_row(db, &code, true).await? else {
                return Ok(LeagueAnswer::NotOwner);
            };
            let members = members_of(db, id, maker.as_deref()).await?;
            if members.first().map(|m| &m.player) != Some(&owner) {
                return Ok(LeagueAnswer::NotOwner);
            }
            if db.opt(&LEAGUE, &params![&new_code]).await?.is_some() {
                return Ok(LeagueAnswer::CodeTaken);
            }
            db.execute(&NEW_CODE, &params![id, &new_code]).await?;
            LeagueAnswer::League(League { code: new_code, ..league })
        }
        LeagueRequest::Mine { player, name } => {
            if let Some(name) = name {
                db.execute(&RENAME, &params![&player, &name]).await?;
            }
            let rows = db.query(&MINE, &params![&player]).await?;
            let mut out = Vec::with_capacity(rows.len());
            for r in &rows {
                out.push(League {
                    code: r.string(0)?,
                    name: r.string(1)?,
                    members: r.u32(2, "members")?,
                    today: None,
                    key: None,
                });
            }
            LeagueAnswer::Leagues(out)
        }
        LeagueRequest::Members { code } => match members(db, &code).await? {
            Some((league, members)) => LeagueAnswer::Members(league, members),
            None => LeagueAnswer::NotFound,
        },
        LeagueRequest::Runs { code, from, to } => LeagueAnswer::Runs(member_runs(db, &code, from, to).await?),
    };
    db.commit().await?;
    Ok(answer)
}

async fn members(db: &mut dyn Db, code: &str) -> Result<Option<(League, Vec<Member>)>, StoreError> {
    let Some((id, league, maker)) = league_row(db, code, false).await? else { return Ok(None) };
    let members = members_of(db, id, maker.as_deref()).await?;
    Ok(Some((league, members)))
}

/// The members' ranked runs from `from` to `to`, on the boards of the
/// games this build knows. A run of a game it does not know (added by a
/// newer build sharing the database) is left out rather than failing the
/// list: its board is not one this build shows, the league's other boards
/// are whole without it, and failing would blank the whole league's tables
/// for as long as the two builds share the database. (That day still
/// counts in the member's streak, as it does for the newer build.)
async fn member_runs(
    db: &mut dyn Db,
    code: &str,
    from: DailyDate,
    to: DailyDate,
) -> Result<Vec<MemberRun>, StoreError> {
    let rows = db.query(&MEMBER_RUNS, &params![code, from, to]).await?;
    let mut runs = Vec::with_capacity(rows.len());
    for r in &rows {
        let Some(game) = r.known_game(3)? else { continue };
        runs.push(MemberRun {
            player: r.string(0)?,
            name: r.string(1)?,
            date: r.date(2)?,
            game,
            size: r.size(4)?,
            state: r.state(5)?,
            steps: r.u32(6, "steps")?,
            time_ms: r.opt_u64(7, "time")?,
            run_id: r.int(8)?,
            at_floor: r.bool(9)?,
        });
    }
    Ok(runs)
}

/// A league's members, their ranked runs from `from` to `to` and each
/// member's streak as of `to`, from one snapshot: `None` for an unknown code.
pub(crate) async fn league_view(
    db: &mut dyn Db,
    code: &str,
    from: DailyDate,
    to: DailyDate,
) -> Result<Option<LeagueView>, StoreError> {
    db.begin(TxKind::Snapshot).await?;
    let Some((league, members)) = members(db, code).await? else { return Ok(None) };
    let runs = member_runs(db, code, from, to).await?;
    let mut streaks = Vec::with_capacity(members.len());
    for m in &members {
        streaks.push((m.player.clone(), streak_in(db, &m.player, to).await?));
    }
    db.commit().await?;
    Ok(Some(LeagueView { league, members, runs, streaks }))
}
