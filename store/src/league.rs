//! Leagues (issue 15): the daily among friends. A league is a name, a code
//! (its link is `/l/CODE`) and its members; its tables are the daily's own
//! ranked runs restricted to members. The backends keep leagues and members
//! ([`LeagueRequest`]); the tables are computed here, the same on both.
//!
//! Standings over a window of days: on every board of every day, a member
//! with a ranked run scores 1 + the members they beat there (a finish beats
//! every member with a worse finish and every member who did not finish);
//! a win is first place on a board (shared on a tie). Standings order by
//! points, then wins, then name.

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Game, Size};

pub use mazerace_protocol::league::{League, LeagueEntry, Standing};

use crate::record::RunState;
use crate::rules::convert::{competition_ranks, rank_time};

/// Members a league takes (`league_full` past it).
pub const MAX_MEMBERS: u32 = 50;
/// Leagues one player may be in (`too_many_leagues` past it).
pub const MAX_LEAGUES_PER_PLAYER: u32 = 10;
/// Characters of a league code: no 0/O, 1/I/L (read aloud, typed from a phone).
const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
pub const CODE_LEN: usize = 8;

/// One member: their key (never sent) and the name they joined with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub player: String,
    pub name: String,
}

/// A member as `remove_member` names them ([`Standing::member`]): 12 hex
/// digits of a hash of the league's code and the player's key, so the wire
/// never carries the key and one player's tags differ from league to
/// league (their leagues cannot be linked by it).
pub fn member_tag(code: &str, player: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut tag = hex::encode(Sha256::digest(format!("mazerace member v1|{code}|{player}").as_bytes()));
    tag.truncate(12);
    tag
}

/// One ranked run of a member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberRun {
    pub player: String,
    pub name: String,
    pub date: DailyDate,
    pub game: Game,
    pub size: Size,
    pub state: RunState,
    pub steps: u32,
    pub time_ms: Option<u64>,
    pub run_id: i64,
    /// Paced at the ranked floor end to end: tied on time, as on the daily table.
    pub at_floor: bool,
}

/// The cap on leagues one network address makes a day: `address` is the
/// keyed hash the per-address rules store (never the address), `day` the
/// daily day the league is made on.
#[derive(Clone, Debug)]
pub struct MakerCap {
    pub address: String,
    pub day: DailyDate,
    pub limit: u32,
}

/// What a backend is asked about leagues.
#[derive(Clone, Debug)]
pub enum LeagueRequest {
    /// Make a league with `player` as its first member.
    Create {
        player: String,
        player_name: String,
        name: String,
        code: String,
        max_leagues: u32,
        /// The maker's address and the day's cap on leagues made from it
        /// (`None`: not counted).
        cap: Option<MakerCap>,
    },
    Join {
        player: String,
        player_name: String,
        code: String,
        max_members: u32,
        max_leagues: u32,
    },
    Leave {
        player: String,
        code: String,
    },
    /// `owner` removes the member tagged `member` ([`member_tag`]) if
    /// `owner` is the league's longest-standing member.
    Remove {
        owner: String,
        code: String,
        member: String,
    },
    /// `owner` gives the league `code` the code `new_code` if `owner` is its
    /// owner (as for `Remove`): the old code, its link and its invite key
    /// stop working, and only members (by `Mine`) and whoever the owner
    /// sends the new link learn the new one.
    NewCode {
        owner: String,
        code: String,
        new_code: String,
    },
    /// The player's leagues; with `name`, the player's member name in
    /// each becomes it first (a renamed player's tables follow the rename).
    Mine {
        player: String,
        name: Option<String>,
    },
    /// A league and its members.
    Members {
        code: String,
    },
    /// The ranked runs of a league's members from `from` to `to` (dates, inclusive).
    Runs {
        code: String,
        from: DailyDate,
        to: DailyDate,
    },
}

/// A backend's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeagueAnswer {
    /// Made, joined (or already a member), or the league asked for.
    League(League),
    /// No league has that code.
    NotFound,
    /// The league has [`MAX_MEMBERS`].
    Full,
    /// The player is in [`MAX_LEAGUES_PER_PLAYER`] leagues.
    TooMany,
    /// The maker's address made its [`MakerCap::limit`] leagues today.
    AddressCap,
    /// A new league's code (or a league's new code) is taken: try another.
    CodeTaken,
    /// `Leave`: whether the player was a member.
    Left(bool),
    /// `Remove`: whether that member was removed (not: no such member, or the owner themself).
    Removed(bool),
    /// `Remove` or `NewCode` by someone who is not the league's owner (or of no league).
    NotOwner,
    Leagues(Vec<League>),
    Members(League, Vec<Member>),
    Runs(Vec<MemberRun>),
}

/// Everything a league's tables are computed from ([`crate::Store::league_view`]).
#[derive(Clone, Debug)]
pub struct LeagueView {
    pub league: League,
    pub members: Vec<Member>,
    pub runs: Vec<MemberRun>,
    /// Each member's streak, by key.
    pub streaks: Vec<(String, u32)>,
}

/// A fresh league code (OS entropy).
pub fn new_code() -> Result<String, crate::StoreError> {
    let mut bytes = [0u8; CODE_LEN];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(bytes.iter().map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char).collect())
}

/// Whether `code` has a league code's shape (checked before any query).
pub fn is_code(code: &str) -> bool {
    code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b))
}

/// The lines of one board (finishers by steps then time, runs at the floor
/// tied on time as on the daily table, then the rest); `runs` may hold
/// other boards' runs, which are skipped.
pub fn board_table(
    runs: &[MemberRun],
    date: DailyDate,
    game: Game,
    size: Size,
    you: Option<&str>,
) -> Vec<LeagueEntry> {
    let mut mine: Vec<&MemberRun> =
        runs.iter().filter(|r| r.date == date && r.game == game && r.size == size).collect();
    let time = |r: &MemberRun| {
        r.time_ms.map_or(i64::MAX, |t| rank_time(i64::try_from(t).unwrap_or(i64::MAX), r.at_floor))
    };
    mine.sort_by_key(|r| (r.state != RunState::Finished, r.steps, time(r), r.run_id));
    let finished: Vec<(i64, i64)> = mine
        .iter()
        .filter(|r| r.state == RunState::Finished)
        .map(|r| (i64::from(r.steps), time(r)))
        .collect();
    let ranks = competition_ranks(&finished);
    mine.iter()
        .enumerate()
        .map(|(i, r)| LeagueEntry {
            rank: ranks.get(i).copied(),
            name: r.name.clone(),
            finished: r.state == RunState::Finished,
            steps: r.steps,
            time_ms: r.time_ms,
            run_id: r.run_id,
            you: you == Some(r.player.as_str()),
        })
        .collect()
}

/// The standings of league `code`'s `members` (longest-standing first: the
/// first is the owner) over `runs` (already cut to the window); `streaks`
/// holds each member's streak, by key.
pub fn standings(
    code: &str,
    members: &[Member],
    runs: &[MemberRun],
    streaks: &[(String, u32)],
    you: Option<&str>,
) -> Vec<Standing> {
    let mut boards: Vec<(DailyDate, Game, Size)> = Vec::new();
    for r in runs {
        let b = (r.date, r.game, r.size);
        if !boards.contains(&b) {
            boards.push(b);
        }
    }
    let mut points = vec![(0u32, 0u32); members.len()];
    for (date, game, size) in boards {
        let table = board_table(runs, date, game, size, None);
        for (i, e) in table.iter().enumerate() {
            let run = runs.iter().find(|r| r.run_id == e.run_id);
            let Some(m) = run.and_then(|r| members.iter().position(|m| m.player == r.player)) else {
                continue;
            };
            // Beaten: every line below this one with a worse rank (or unfinished).
            let beaten = match e.rank {
                Some(rank) => {
                    table[i + 1..].iter().filter(|o| o.rank.is_none_or(|r| r > rank)).count() as u32
                }
                None => 0,
            };
            points[m].0 += 1 + beaten;
            points[m].1 += u32::from(e.rank == Some(1));
        }
    }
    let mut lines: Vec<Standing> = members
        .iter()
        .zip(points)
        .map(|(m, (points, wins))| {
            let mut days: Vec<DailyDate> =
                runs.iter().filter(|r| r.player == m.player).map(|r| r.date).collect();
            days.sort_unstable();
            days.dedup();
            Standing {
                rank: 0,
                name: m.name.clone(),
                points,
                wins,
                days: days.len() as u32,
                streak: streaks.iter().find(|(p, _)| *p == m.player).map_or(0, |&(_, s)| s),
                you: you == Some(m.player.as_str()),
                member: member_tag(code, &m.player),
                owner: members.first().is_some_and(|first| first.player == m.player),
            }
        })
        .collect();
    lines.sort_by(|a, b| b.points.cmp(&a.points).then(b.wins.cmp(&a.wins)).then(a.name.cmp(&b.name)));
    for i in 0..lines.len() {
        let tied = i > 0 && (lines[i - 1].points, lines[i - 1].wins) == (lines[i].points, lines[i].wins);
        lines[i].rank = if tied { lines[i - 1].rank } else { i as u32 + 1 };
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(player: &str, date: &str, steps: Option<u32>, id: i64) -> MemberRun {
        MemberRun {
            player: player.into(),
            name: player.to_uppercase(),
            date: date.parse().unwrap(),
            game: Game::Maze,
            size: Size::Easy,
            state: if steps.is_some() { RunState::Finished } else { RunState::NotFinished },
            steps: steps.unwrap_or(0),
            time_ms: steps.map(|_| 1000),
            run_id: id,
            at_floor: false,
        }
    }

    #[test]
    fn runs_at_the_floor_tie_on_time_in_a_league_table_too() {
        let day = "2026-12-01";
        let floor = |player, time_ms, id| MemberRun {
            time_ms: Some(time_ms),
            at_floor: true,
            ..run(player, day, Some(36), id)
        };
        let runs = vec![run("a", day, Some(36), 1), floor("b", 3_000, 2), floor("c", 2_900, 3)];
        let t = board_table(&runs, day.parse().unwrap(), Game::Maze, Size::Easy, None);
        let got: Vec<(&str, Option<u32>)> = t.iter().map(|e| (e.name.as_str(), e.rank)).collect();
        assert_eq!(got, [("B", Some(1)), ("C", Some(1)), ("A", Some(3))]);
    }

    #[test]
    fn points_are_members_beaten_plus_one_and_wins_are_first_places() {
        let members: Vec<Member> = ["a", "b", "c"]
            .iter()
            .map(|p| Member { player: p.to_string(), name: p.to_uppercase() })
            .collect();
        let runs = vec![
            run("a", "2026-12-01", Some(36), 1),
            run("b", "2026-12-01", Some(40), 2),
            run("c", "2026-12-01", None, 3),
            run("b", "2026-12-02", Some(30), 4),
            run("a", "2026-12-02", Some(30), 5),
        ];
        let t = board_table(&runs, "2026-12-01".parse().unwrap(), Game::Maze, Size::Easy, Some("b"));
        assert_eq!(t.iter().map(|e| e.rank).collect::<Vec<_>>(), [Some(1), Some(2), None]);
        assert!(t[1].you && !t[0].you);
        let s = standings("K7M2QX9P", &members, &runs, &[("a".into(), 2)], None);
        // Day 1: a beats b and c (3), b beats c (2), c 1. Day 2: a tie, neither beats the other (1 each, both win).
        let got: Vec<(&str, u32, u32, u32, u32)> =
            s.iter().map(|l| (l.name.as_str(), l.rank, l.points, l.wins, l.days)).collect();
        assert_eq!(got, [("A", 1, 4, 2, 2), ("B", 2, 3, 1, 2), ("C", 3, 1, 0, 1)]);
        assert_eq!(s[0].streak, 2);
    }

    #[test]
    fn codes_have_the_documented_shape() {
        let c = new_code().unwrap();
        assert!(is_code(&c), "{c}");
        assert!(!is_code("ABCDEFG0") && !is_code("abcdefgh") && !is_code("ABC"));
    }
}
