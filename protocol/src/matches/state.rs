//! The match as one plain value ([`Match`]): its settings and seed, the
//! rounds played with their results and points, and the table's players.
//! The room keeps it and calls its few methods as the match goes on; being
//! plain data (serde), it can be carried elsewhere whole, and every number
//! the table shows is computed from it here, once.
//!
//! What goes on the wire is bounded whatever the match's length and however
//! many players come and go (a message must fit the socket's write limit):
//! each round's results go out once, as the round ends (`match_round`, at
//! most the room's racers), never all together; the table sent
//! ([`MatchView`], [`MatchOver`]) has at most [`MAX_TABLE_LINES`] lines.

use serde::{Deserialize, Serialize};

use super::score::{placings, rank_table, round_points, share_line, MatchLine, RoundScore};
use super::{MatchSettings, RoundBoard};
use crate::board::Seed;
use crate::games::Size;
use crate::messages::{PlayerId, RankBy, Ranking};
use crate::race::Entry;

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One round played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRound {
    /// 1-based.
    pub round: u32,
    /// Its board (what a replay of the round needs to build it again).
    #[serde(flatten)]
    pub board: RoundBoard,
    /// Its results, as `results` showed them (rivals included, marked).
    pub rankings: Vec<Ranking>,
    /// Each player's points (rivals do not score).
    pub scores: Vec<RoundScore>,
}

/// The most lines a table carries on the wire. The room's racers (at most
/// 64) always fit; past it the lines of players who left make way, the
/// lowest ranked first (their points still counted in every rank), and the
/// table says how many it leaves out. A match of 10 rounds whose players
/// race one round each and leave (puppets, each with a point) would
/// otherwise list 640.
pub const MAX_TABLE_LINES: usize = 64;

/// A player of the match table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchPlayer {
    /// Their player id.
    pub id: PlayerId,
    /// Their latest name.
    pub name: String,
    /// They left the room (and have raced a round: else they are dropped).
    #[serde(default, skip_serializing_if = "is_false")]
    pub left: bool,
}

/// A match under way or over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// Rounds and plan.
    pub settings: MatchSettings,
    /// The size the room was made for (the plan starts from it).
    pub base: Size,
    /// Round 1's seed: the room's board when the match began.
    pub first: Seed,
    /// The match's seed, for rounds 2 on ([`MatchSettings::board`]).
    pub seed: Seed,
    /// Rounds begun (a round begins with its countdown).
    pub begun: u32,
    /// Rounds played, in order.
    pub rounds: Vec<MatchRound>,
    /// The table's players, in the order they came.
    pub players: Vec<MatchPlayer>,
    /// It ended before its last round: nobody was left to race.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ended: bool,
}

/// The match as the room shows it (`room.standings`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchView {
    /// The round under way, or the last one played (0 before the first).
    pub round: u32,
    /// The boards of the rounds begun so far, round 1 first.
    pub boards: Vec<RoundBoard>,
    /// The match table, ranked: at most [`MAX_TABLE_LINES`].
    pub lines: Vec<MatchLine>,
    /// Lines left out of `lines` (players who left, ranked below them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more_lines: u32,
    /// The host is holding the intermission.
    #[serde(default, skip_serializing_if = "is_false")]
    pub held: bool,
    /// The match is over (its last round played, or nobody left to race).
    #[serde(default, skip_serializing_if = "is_false")]
    pub over: bool,
}

/// The end of a match: everything its podium and table need. Each round's
/// results went out as it ended (`match_round`), so they are not repeated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchOver {
    /// The match's seed (rounds 2 on), now that no round is left to study.
    pub seed: Seed,
    /// Rounds played (fewer than the match's when it ended early).
    pub played: u32,
    /// The final table, ranked (the podium is its ranks 1 to 3): at most
    /// [`MAX_TABLE_LINES`].
    pub lines: Vec<MatchLine>,
    /// Lines left out of `lines` (players who left, ranked below them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more_lines: u32,
    /// Who won the match (rank 1 with points; none if it ended early).
    pub winners: Vec<PlayerId>,
    /// Text to share.
    pub share: String,
}

/// One line of a room's tally of matches won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TallyLine {
    /// Whose wins.
    pub player_id: PlayerId,
    /// Their name when they last won.
    pub name: String,
    /// Matches won in this room.
    pub wins: u32,
}

impl Match {
    /// A match about to begin, its first round on seed `first` (the room's
    /// board), the others on boards of `seed`.
    pub fn new(settings: MatchSettings, base: Size, first: u64, seed: u64) -> Match {
        Match {
            settings,
            base,
            first: Seed(first),
            seed: Seed(seed),
            begun: 0,
            rounds: Vec::new(),
            players: Vec::new(),
            ended: false,
        }
    }

    /// Round `round`'s board.
    pub fn board(&self, round: u32) -> RoundBoard {
        self.settings.board(self.base, self.first.0, self.seed.0, round)
    }

    /// Whether the last round is played, or the match ended early.
    pub fn is_over(&self) -> bool {
        self.ended || self.rounds.len() as u32 >= self.settings.rounds.get()
    }

    /// The next round's number, when one is due (not over, none under way).
    pub fn next_round(&self) -> Option<u32> {
        (!self.is_over() && self.begun as usize == self.rounds.len()).then_some(self.begun + 1)
    }

    /// Begins the next round; its board.
    pub fn begin(&mut self) -> Option<RoundBoard> {
        let k = self.next_round()?;
        self.begun = k;
        Some(self.board(k))
    }

    /// A round that had begun did not start after all (every racer left
    /// during its countdown): it is due again.
    pub fn unbegin(&mut self) {
        self.begun = self.rounds.len() as u32;
    }

    /// Ends the match before its last round.
    pub fn end_early(&mut self) {
        self.ended = true;
    }

    /// A player is in the table from now on (a racer at the start, one who
    /// joins later on 0 points, or one who comes back).
    pub fn join(&mut self, id: PlayerId, name: &str) {
        match self.players.iter_mut().find(|p| p.id == id) {
            Some(p) => {
                p.left = false;
                p.name = name.to_owned();
            }
            None => self.players.push(MatchPlayer { id, name: name.to_owned(), left: false }),
        }
    }

    /// A player left the room: marked left if they scored a point, else
    /// dropped (their points can change no more, and a line of noughts and
    /// `null`s says nothing: a finish is a point, so no win or time is lost).
    pub fn leave(&mut self, id: PlayerId) {
        let scored = self.rounds.iter().any(|r| r.scores.iter().any(|s| s.player_id == id && s.points > 0));
        if scored {
            self.players.iter_mut().filter(|p| p.id == id).for_each(|p| p.left = true);
        } else {
            self.players.retain(|p| p.id != id);
        }
    }

    /// Every player id in the match passed through `f`: a room moved to
    /// another node gets new ids there (`f` must be one to one).
    pub fn map_ids(&mut self, mut f: impl FnMut(PlayerId) -> PlayerId) {
        for p in &mut self.players {
            p.id = f(p.id);
        }
        for r in &mut self.rounds {
            r.rankings.iter_mut().for_each(|l| l.player_id = f(l.player_id));
            r.scores.iter_mut().for_each(|s| s.player_id = f(s.player_id));
        }
    }

    /// A player's new name.
    pub fn rename(&mut self, id: PlayerId, name: &str) {
        self.players.iter_mut().filter(|p| p.id == id).for_each(|p| p.name = name.to_owned());
    }

    /// The round under way is over with these `rankings` (the `results`
    /// table, rivals marked): its players are scored (rivals left out).
    pub fn record(&mut self, rankings: Vec<Ranking>, by: RankBy) {
        let players: Vec<Entry> = rankings
            .iter()
            .filter(|l| !l.rival)
            .map(|l| Entry {
                id: l.player_id,
                name: l.name.clone(),
                status: l.status,
                steps: l.steps,
                time_ms: l.time_ms,
            })
            .collect();
        for e in &players {
            if !self.players.iter().any(|p| p.id == e.id) {
                self.players.push(MatchPlayer { id: e.id, name: e.name.clone(), left: false });
            }
        }
        let scores = round_points(&players, by);
        let round = self.begun.max(self.rounds.len() as u32 + 1);
        self.begun = round;
        self.rounds.push(MatchRound { round, board: self.board(round), rankings, scores });
    }

    /// The match table, ranked.
    pub fn lines(&self) -> Vec<MatchLine> {
        let mut lines: Vec<MatchLine> = self
            .players
            .iter()
            .map(|p| {
                let mine: Vec<Option<&RoundScore>> =
                    self.rounds.iter().map(|r| r.scores.iter().find(|s| s.player_id == p.id)).collect();
                MatchLine {
                    rank: 0,
                    player_id: p.id,
                    name: p.name.clone(),
                    points: mine.iter().flatten().map(|s| s.points).sum(),
                    wins: mine.iter().flatten().filter(|s| s.won()).count() as u32,
                    placings: placings(mine.iter().flatten().filter_map(|s| s.place)),
                    time_ms: mine.iter().flatten().filter_map(|s| s.time_ms).sum(),
                    rounds: mine.iter().map(|s| s.map(|s| s.points)).collect(),
                    left: p.left,
                }
            })
            .collect();
        rank_table(&mut lines);
        lines
    }

    /// The table as sent: [`Match::lines`] cut to [`MAX_TABLE_LINES`], the
    /// lines of players who left going first, lowest ranked first; how many
    /// were left out.
    pub fn shown_lines(&self) -> (Vec<MatchLine>, u32) {
        let mut lines = self.lines();
        let mut more = 0;
        while lines.len() > MAX_TABLE_LINES {
            let at = lines.iter().rposition(|l| l.left).unwrap_or(lines.len() - 1);
            lines.remove(at);
            more += 1;
        }
        (lines, more)
    }

    /// The room's view of it; `held`: the host holds the intermission.
    pub fn view(&self, held: bool) -> MatchView {
        let (lines, more_lines) = self.shown_lines();
        MatchView {
            round: self.begun,
            boards: (1..=self.begun).map(|k| self.board(k)).collect(),
            lines,
            more_lines,
            held,
            over: self.is_over(),
        }
    }

    /// Who won: rank 1 of the final table with at least a point, none when
    /// the match ended early or is not over.
    pub fn winners(&self) -> Vec<PlayerId> {
        if self.ended || !self.is_over() {
            return Vec::new();
        }
        self.lines().iter().filter(|l| l.rank == 1 && l.points > 0).map(|l| l.player_id).collect()
    }

    /// The end of the match, for `match_over`.
    pub fn over(&self) -> MatchOver {
        let (lines, more_lines) = self.shown_lines();
        let played = self.rounds.len() as u32;
        MatchOver {
            seed: self.seed,
            played,
            share: share_line(&self.settings, played, &lines),
            winners: self.winners(),
            lines,
            more_lines,
        }
    }
}

/// Counts a match won for each of `winners` (named by `name_of`) in a
/// room's `tally`, most wins first (then the lower player id). Lines of
/// players no longer in the room (`in_room` false) are dropped, fewest
/// wins first, while the tally has more than `cap` lines: the room's
/// members' lines are always kept.
pub fn count_wins(
    tally: &mut Vec<TallyLine>,
    winners: &[(PlayerId, String)],
    in_room: impl Fn(PlayerId) -> bool,
    cap: usize,
) {
    for (id, name) in winners {
        match tally.iter_mut().find(|t| t.player_id == *id) {
            Some(t) => {
                t.wins += 1;
                t.name.clone_from(name);
            }
            None => tally.push(TallyLine { player_id: *id, name: name.clone(), wins: 1 }),
        }
    }
    tally.sort_by(|a, b| b.wins.cmp(&a.wins).then(a.player_id.cmp(&b.player_id)));
    while tally.len() > cap {
        let Some(i) = tally.iter().rposition(|t| !in_room(t.player_id)) else { break };
        tally.remove(i);
    }
}
