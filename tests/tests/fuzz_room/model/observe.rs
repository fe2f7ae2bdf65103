//! Everything the server reports, checked against the model and the
//! rules: results, rooms, snapshots, progress and leaving.

use crate::*;

impl Fuzz {
    pub(crate) fn left(&mut self, who: usize) {
        let p = &mut self.players[who];
        if let Some(code) = p.room.take() {
            if let Some(r) = self.rooms.get_mut(&code) {
                r.members.retain(|(id, _)| *id != p.id);
            }
        }
    }

    /// A `move_result`/`rewind_result` against the rules.
    pub(crate) fn on_result(
        &mut self,
        who: usize,
        action: Action,
        ok: bool,
        reason: Option<mazerace_protocol::Reject>,
        view: &GameView,
    ) -> R<()> {
        let p = &mut self.players[who];
        let id = p.id;
        let info = p.view.clone().ok_or("a result without a room")?;
        ensure!(
            p.room.as_deref() == Some(info.code.as_str()),
            "a result from {} while in {:?}",
            info.code,
            p.room
        );
        let me = p.me(&info).ok_or("a result, not listed")?;
        ensure!(
            info.phase == Phase::Racing && !me.spectator,
            "a result for {id} as {me:?} in {:?}",
            info.phase
        );
        let race = p.race().ok_or("a result before race_start")?;
        let game = race.me.as_mut().ok_or("a result for someone not racing")?;
        let before = game.view();
        // The room answers `game_over` to anything once a racer's game has
        // ended (PROTOCOL.md), before the engine would name another reason.
        let expected = if game.status() == Status::Playing {
            game.apply(action)
        } else {
            Err(mazerace_protocol::Reject::GameOver)
        };
        let after = game.view();
        ensure!(
            ok == expected.is_ok() && reason == expected.err() && *view == after,
            "{action} from {before:?}: server ok={ok} {reason:?} {view:?}, rules {expected:?} {after:?}"
        );
        // And independently of the engine, on the wire board:
        race.geo.check_view(view)?;
        if !ok {
            ensure!(*view == before, "a refused {action} changed {before:?} into {view:?}");
            return Ok(());
        }
        match action {
            Action::Move(d) => {
                ensure!(view.steps == before.steps + 1, "a move counted {} -> {}", before.steps, view.steps);
                let to = race.geo.step(before.pos, d);
                ensure!(
                    to == Some(view.pos),
                    "{d:?} from {:?} went to {:?} (wire board: {to:?})",
                    before.pos,
                    view.pos
                );
                if Some(view.pos) == race.geo.gate {
                    ensure!(
                        super::geo::ghost_view(&before).is_some_and(|g| g.gate_open),
                        "walked through a shut gate"
                    );
                }
            }
            Action::Rewind => {
                race.rewinds += 1;
                ensure!(race.rewinds == 1, "rewind number {} succeeded", race.rewinds);
                let run = |v: &GameView| v.extra.as_ref().and_then(|e| e.run());
                ensure!(
                    run(&before) == Some(1) && run(view) == Some(2) && view.pos == race.geo.start,
                    "rewind {before:?} -> {view:?}"
                );
                ensure!(view.steps == before.steps, "a rewind cost steps");
            }
        }
        Ok(())
    }

    // ---- everything else the server says ----

    pub(crate) fn observe(&mut self, who: usize, m: &ServerMsg) -> R<()> {
        let countdown = self.cfg.countdown_secs;
        let limit = self.cfg.race_time_limit.as_millis() as u64;
        match m {
            ServerMsg::Room(info) => self.on_room(who, info),
            ServerMsg::Countdown { seconds, .. } => {
                let phase = self.players[who].view.as_ref().map(|v| v.phase);
                ensure!(*seconds >= 1 && *seconds <= countdown, "countdown {seconds} of {countdown}");
                ensure!(phase == Some(Phase::Countdown), "countdown in {phase:?}");
                Ok(())
            }
            ServerMsg::RaceStart { board, time_limit_ms, .. } => {
                ensure!(*time_limit_ms == limit, "time limit {time_limit_ms}");
                let (size, seed) = match board {
                    PublicBoard::Ghost(v) => (v.size, v.seed.map_or(0, |s| s.0)),
                    PublicBoard::Maze(m) => (m.size, m.seed.map_or(0, |s| s.0)),
                };
                let built = self.board(size, seed)?;
                ensure!(built.public() == *board, "race_start's board is not the one its seed builds");
                let p = &mut self.players[who];
                let info = p.view.clone().ok_or("race_start outside a room")?;
                ensure!(info.phase == Phase::Racing && info.size == size, "race_start in {info:?}");
                let racing = p.me(&info).is_some_and(|me| !me.spectator);
                let game = racing.then(|| PlayerGame::new(&built));
                let geo = Geo::of(board);
                p.races.insert(
                    info.code,
                    Race { board: built, geo, me: game, rewinds: 0, seen: HashMap::new() },
                );
                Ok(())
            }
            ServerMsg::Progress { players } => {
                let p = &mut self.players[who];
                let phase = p.view.as_ref().map(|v| v.phase);
                let n = p.view.as_ref().map_or(0, |v| v.size.n());
                if phase == Some(Phase::Countdown) {
                    // A racer who left before the start: no board yet.
                    for r in players {
                        ensure!(
                            r.status == RacerStatus::Left && r.steps == 0,
                            "progress in the countdown: {r:?}"
                        );
                        ensure!(r.pos.row < n && r.pos.col < n, "progress off the board: {r:?}");
                    }
                    return Ok(());
                }
                ensure!(
                    matches!(phase, Some(Phase::Racing | Phase::Results | Phase::Intermission)),
                    "progress in {phase:?}"
                );
                let race = p.race().ok_or("progress before race_start")?;
                for r in players {
                    race.geo.check_progress(r)?;
                    if let Some(last) = race.seen.get(&r.id) {
                        ensure!(
                            r.steps >= last.steps
                                && r.run >= last.run
                                && (last.status == RacerStatus::Racing || r.status == last.status),
                            "progress went back: {last:?} then {r:?}"
                        );
                    }
                    race.seen.insert(r.id, r.clone());
                }
                Ok(())
            }
            ServerMsg::Finished { player_id, steps, rank, .. } => {
                let p = &mut self.players[who];
                let id = p.id;
                let race = p.race().ok_or("finished before race_start")?;
                ensure!(*rank >= 1, "rank {rank}");
                if let Some(a) = race.geo.allowance {
                    ensure!(*steps <= a, "finished in {steps} steps, allowance {a}");
                }
                if *player_id == id {
                    let g = race.me.as_ref().ok_or("my finish, but I was not racing")?;
                    ensure!(
                        g.status() == Status::Won && g.steps() == *steps,
                        "my finish: {m:?}, rules {:?}",
                        g.view()
                    );
                }
                Ok(())
            }
            ServerMsg::Results { rankings, reveal, hidden_until } => {
                if hidden_until.is_some() {
                    return Err("a private room's results withhold the solution".into());
                }
                let p = &mut self.players[who];
                let id = p.id;
                let race = p.race().ok_or("results before race_start")?;
                RESULTS.fetch_add(1, Ordering::Relaxed);
                if rankings.iter().any(|r| r.status == RacerStatus::TimedOut) {
                    TIMED_OUT.fetch_add(1, Ordering::Relaxed);
                }
                let mut last_rank = 0;
                for (i, r) in rankings.iter().enumerate() {
                    let fin = r.status == RacerStatus::Finished;
                    ensure!(
                        fin == r.rank.is_some()
                            && fin == r.time_ms.is_some()
                            && (fin || r.efficiency.is_none()),
                        "ranking {r:?}"
                    );
                    ensure!(r.status != RacerStatus::Racing, "still racing in the results: {r:?}");
                    if let Some(a) = race.geo.allowance {
                        ensure!(r.steps <= a, "{r:?} past the allowance {a}");
                    }
                    if let Some(rank) = r.rank {
                        ensure!(rank >= 1 && rank <= i as u32 + 1 && rank >= last_rank, "rank {rank} at {i}");
                        last_rank = rank;
                    } else {
                        last_rank = u32::MAX;
                    }
                    if r.player_id == id {
                        let g = race.me.as_ref().ok_or("ranked, but I was not racing")?;
                        let status_ok = match g.status() {
                            Status::Won => r.status == RacerStatus::Finished,
                            Status::OutOfSteps => r.status == RacerStatus::OutOfSteps,
                            Status::Playing => matches!(r.status, RacerStatus::Left | RacerStatus::TimedOut),
                        };
                        ensure!(status_ok && r.steps == g.steps(), "my ranking {r:?}, rules {:?}", g.view());
                    }
                }
                let ok = match (reveal, race.board.answer()) {
                    (Reveal::Ghost(r), Answer::Ghost(a)) => {
                        r.true_par == a.true_par && r.solution == a.solution
                    }
                    (Reveal::Maze(r), Answer::Maze(a)) => *r == a,
                    _ => false,
                };
                ensure!(ok, "the reveal does not match the board");
                Ok(())
            }
            ServerMsg::Snapshot(s) => {
                // Only to someone who just joined a room that is past its lobby.
                let p = &self.players[who];
                ensure!(
                    p.room.as_deref() == Some(s.room.code.as_str()),
                    "an unasked snapshot of {}",
                    s.room.code
                );
                self.on_snapshot(who, s)
            }
            ServerMsg::Intermission { round, seconds, held } => {
                INTERMISSIONS.fetch_add(1, Ordering::Relaxed);
                let v = self.players[who].view.as_ref().ok_or("an intermission outside a room")?;
                let s = v.standings.as_ref().ok_or("an intermission without a match")?;
                let most = self.cfg.intermission_secs;
                ensure!(
                    v.phase == Phase::Intermission
                        && *round == s.round + 1
                        && *held == s.held
                        && seconds.is_some() != *held
                        && seconds.is_none_or(|n| (1..=most).contains(&n)),
                    "intermission {round} {seconds:?} {held} in {v:?}"
                );
                Ok(())
            }
            ServerMsg::MatchRound(r) => self.on_match_round(who, r),
            ServerMsg::MatchOver(over) => self.on_match_over(who, over),
            ServerMsg::ServerShutdown if self.shutting_down => Ok(()),
            other => Err(format!("player {who}: unasked {other:?}")),
        }
    }

    pub(crate) fn on_room(&mut self, who: usize, info: &RoomInfo) -> R<()> {
        let p = &mut self.players[who];
        let mut ids: Vec<u32> = info.players.iter().map(|m| m.id).collect();
        ids.sort_unstable();
        ids.dedup();
        ensure!(ids.len() == info.players.len(), "a player listed twice: {info:?}");
        ensure!(ids.contains(&info.host), "the host {} is not in the room: {info:?}", info.host);
        ensure!(info.size.game() == info.game && !info.daily, "room {info:?}");
        if info.phase == Phase::Lobby {
            let racers = info.players.iter().filter(|m| !m.spectator).count() as u32;
            ensure!(racers <= info.max_players, "{racers} racers, max {}: {info:?}", info.max_players);
        }
        if p.room.as_deref() == Some(info.code.as_str()) {
            let me = p.me(info).ok_or(format!("player {} missing from its room: {info:?}", p.id))?;
            ensure!(me.connected, "listed as disconnected on a live connection: {info:?}");
        }
        if let Some(s) = &info.standings {
            let f = info.format.ok_or(format!("a match table in a room of single races: {info:?}"))?;
            ensure!(
                s.round <= f.rounds.get() && s.boards.len() == s.round as usize,
                "standings {s:?} of {f:?}"
            );
            let mut ranked = s.lines.clone();
            mazerace_protocol::matches::rank_table(&mut ranked);
            ensure!(ranked == s.lines, "the table is not in its order: {s:?}");
            if s.held {
                p.held.push((info.code.clone(), s.round));
            }
        }
        p.view = Some(info.clone());
        Ok(())
    }

    /// `match_round`: a match's rounds come in order, one each, from round 1
    /// (again from 1 on a resume, and for the next match).
    pub(crate) fn on_match_round(&mut self, who: usize, r: &mazerace_protocol::matches::MatchRound) -> R<()> {
        let p = &mut self.players[who];
        let v = p.view.as_ref().ok_or("match_round outside a room")?;
        ensure!(v.standings.is_some() && v.format.is_some(), "match_round with no match: {v:?}");
        if r.round == 1 {
            p.rounds.clear();
        }
        ensure!(r.round as usize == p.rounds.len() + 1, "match_round {} after {}", r.round, p.rounds.len());
        p.rounds.push(r.clone());
        Ok(())
    }

    /// `match_over`: the rounds heard (`match_round`) are their boards (from
    /// its seeds) and the protocol's scoring of their results, its table
    /// adds them up in its order, its winners and share line follow.
    pub(crate) fn on_match_over(
        &mut self,
        who: usize,
        over: &mazerace_protocol::matches::MatchOver,
    ) -> R<()> {
        MATCHES_OVER.fetch_add(1, Ordering::Relaxed);
        let p = &self.players[who];
        let v = p.view.as_ref().ok_or("match_over outside a room")?;
        let (format, rank_by) = (v.format.ok_or("match_over with no match")?, v.rank_by);
        ensure!(
            v.standings.as_ref().is_some_and(|s| s.over) && matches!(v.phase, Phase::Results | Phase::Lobby),
            "match_over in {v:?}"
        );
        let base = self.rooms.get(&v.code).ok_or("match_over of a room the model lacks")?.base;
        // The first `played` heard: a match that ended before its first
        // round heard none of its own (those heard were an earlier match's).
        let rounds = p.rounds.get(..over.played as usize).ok_or(format!(
            "played {}, {} rounds heard",
            over.played,
            p.rounds.len()
        ))?;
        let first = rounds.first().map_or(0, |r| r.board.seed.0);
        let mut m = Match::new(format, base, first, over.seed.0);
        for r in rounds {
            m.begin();
            m.record(r.rankings.clone(), rank_by);
        }
        ensure!(m.rounds == rounds, "the rounds are not their boards and points: {rounds:?}");
        let mut ranked = over.lines.clone();
        mazerace_protocol::matches::rank_table(&mut ranked);
        ensure!(ranked == over.lines, "the final table is not in its order");
        for l in &over.lines {
            let mine: Vec<Option<u32>> = rounds
                .iter()
                .map(|r| r.scores.iter().find(|s| s.player_id == l.player_id).map(|s| s.points))
                .collect();
            ensure!(l.rounds == mine && l.points == mine.iter().flatten().sum::<u32>(), "line {l:?}");
        }
        let complete = over.played == format.rounds.get();
        let winners: Vec<u32> = over
            .lines
            .iter()
            .filter(|l| complete && l.rank == 1 && l.points > 0)
            .map(|l| l.player_id)
            .collect();
        ensure!(over.winners == winners, "winners {:?}, the table says {winners:?}", over.winners);
        let share = mazerace_protocol::matches::share_line(&format, over.played, &over.lines);
        ensure!(over.share == share, "share {:?}", over.share);
        Ok(())
    }

    pub(crate) fn on_snapshot(&mut self, who: usize, s: &Snapshot) -> R<()> {
        self.on_room(who, &s.room)?;
        let raced = matches!(s.room.phase, Phase::Racing | Phase::Results | Phase::Intermission);
        // The board is shown from the countdown on, so all study it as long.
        let shown = raced || s.room.phase == Phase::Countdown;
        ensure!(s.board.is_some() == shown, "snapshot board in {:?}", s.room.phase);
        let racing = s.room.phase == Phase::Racing;
        ensure!(s.elapsed_ms.is_none() || racing, "elapsed in {:?}", s.room.phase);
        ensure!(
            s.elapsed_ms.is_some() || !racing || s.clock == Some(mazerace_protocol::race::Clock::FirstMove),
            "no elapsed while racing on the start signal's clock"
        );
        let Some(board) = s.board.as_ref().filter(|_| raced) else {
            ensure!(s.you.is_none() && s.players.is_empty() && s.recording.is_empty(), "snapshot {s:?}");
            return Ok(());
        };
        let (size, seed) = match board {
            PublicBoard::Ghost(v) => (v.size, v.seed.map_or(0, |s| s.0)),
            PublicBoard::Maze(m) => (m.size, m.seed.map_or(0, |s| s.0)),
        };
        let built = self.board(size, seed)?;
        ensure!(built.public() == *board, "snapshot board is not the one its seed builds");
        let p = &mut self.players[who];
        let code = s.room.code.clone();
        let same = p.races.get(&code).is_some_and(|r| r.board.seed() == seed && r.board.size() == size);
        if !same {
            // A race this player never heard start: they race in it if they
            // were a (maybe disconnected) member then, and have sent nothing.
            // Between two rounds of a match nobody is listed as watching the
            // last one, so there its `you` says whether they were in it.
            let racing = match s.room.phase {
                Phase::Intermission => s.you.is_some(),
                _ => p.me(&s.room).is_some_and(|me| !me.spectator),
            };
            let me = racing.then(|| PlayerGame::new(&built));
            let geo = Geo::of(board);
            p.races.insert(code.clone(), Race { board: built, geo, me, rewinds: 0, seen: HashMap::new() });
        }
        let race = p.races.get_mut(&code).ok_or("no race")?;
        match (&s.you, &race.me) {
            (None, None) => {}
            (Some(you), Some(g)) => {
                ensure!(*you == g.view(), "snapshot says {you:?}, the moves sent make {:?}", g.view());
                ensure!(s.recording == g.recording(), "snapshot recording {:?}", s.recording);
                race.geo.check_view(you)?;
            }
            (you, g) => {
                return Err(format!(
                    "snapshot `you` {you:?}, but this player's game is {:?}",
                    g.as_ref().map(|g| g.view())
                ))
            }
        }
        for r in &s.players {
            race.geo.check_progress(r)?;
            race.seen.insert(r.id, r.clone());
        }
        Ok(())
    }
}
