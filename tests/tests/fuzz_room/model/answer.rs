//! What each message should get, and checking what it got: the expected
//! answers, join predictions, and every refusal held to the rules.

use crate::*;

impl Fuzz {
    // ---- acting ----

    /// What `m` from player `who` must be answered with.
    pub(crate) fn expect(&self, who: usize, m: &ClientMsg) -> Expect {
        let p = &self.players[who];
        match m {
            ClientMsg::Hello { .. } => Expect::Error(vec![ErrorCode::HelloFirst]),
            ClientMsg::Ping {} => Expect::Pong,
            ClientMsg::CreateRoom { game, size, seed, rank_by, max_players, daily, format, .. } => {
                Expect::Create {
                    game: *game,
                    size: *size,
                    seed: seed.is_some(),
                    daily: *daily,
                    rank_by: rank_by.unwrap_or_default(),
                    max_players: max_players
                        .unwrap_or(self.cfg.max_players)
                        .clamp(1, mazerace_server::MAX_PLAYERS_CAP),
                    format: *format,
                }
            }
            ClientMsg::JoinRoom { code, spectate, .. } => {
                let code = code.trim().to_ascii_uppercase();
                let outcome = self.predict_join(who, &code, *spectate);
                Expect::Join { code, spectate: *spectate, outcome }
            }
            ClientMsg::LeaveRoom {} if p.room.is_some() => Expect::Leave,
            ClientMsg::LeaveRoom {} => Expect::Error(vec![ErrorCode::NotInRoom]),
            ClientMsg::Ready { ready } => Expect::Ready(*ready),
            ClientMsg::Start {} => Expect::Start,
            ClientMsg::Move { dir, seq } => Expect::Act { action: Action::Move(*dir), seq: *seq },
            ClientMsg::Rewind { seq } => Expect::Act { action: Action::Rewind, seq: *seq },
            ClientMsg::Rematch { .. } => Expect::Rematch,
            // The fuzzed server has no daily store: leagues are not configured either.
            ClientMsg::Leaderboard { .. }
            | ClientMsg::CreateLeague { .. }
            | ClientMsg::JoinLeague { .. }
            | ClientMsg::LeaveLeague { .. }
            | ClientMsg::RemoveMember { .. }
            | ClientMsg::NewLeagueCode { .. }
            | ClientMsg::MyLeagues {}
            | ClientMsg::LeagueBoard { .. }
            | ClientMsg::LeagueStandings { .. } => Expect::Error(vec![ErrorCode::Internal]),
            // Without a store no rival is ever found (the strategies leave
            // out `pick: "last"`, the one kind the room keeps itself).
            ClientMsg::AddRival { run_id, pick } => {
                use ErrorCode::*;
                Expect::Error(match (run_id, pick) {
                    (Some(_), None) => vec![NotInRoom, NotHost, WrongPhase, Internal],
                    (None, Some(_)) => vec![NotInRoom, NotHost, WrongPhase, RivalRefused],
                    _ => vec![NotInRoom, NotHost, WrongPhase, BadMessage],
                })
            }
            ClientMsg::RemoveRival { .. } => {
                use ErrorCode::*;
                Expect::Error(vec![NotInRoom, NotHost, WrongPhase, RivalNotFound])
            }
            ClientMsg::SetMatch { format } => Expect::SetMatch(*format),
            ClientMsg::Hold {} => Expect::Hold,
            ClientMsg::NextRound {} => Expect::NextRound,
            ClientMsg::Rename { .. } | ClientMsg::GiveUp {} => {
                unreachable!("the strategies never send {m:?}")
            }
        }
    }

    /// After sending a message: the sentinel `ping` of a leave or a join,
    /// and a predicted join's effect on the model.
    pub(crate) async fn sent(&mut self, who: usize, e: &Expect) -> R<()> {
        match e {
            Expect::Leave => self.send_msg(who, &ClientMsg::Ping {}).await,
            Expect::Join { code, spectate, outcome } => {
                if outcome.is_ok() {
                    let p = &mut self.players[who];
                    p.room = Some(code.clone());
                    self.rooms
                        .get_mut(code)
                        .ok_or("joining a room the model lacks")?
                        .members
                        .push((p.id, *spectate));
                }
                self.send_msg(who, &ClientMsg::Ping {}).await
            }
            _ => Ok(()),
        }
    }

    /// What a join must get: the room's limits as the model knows them.
    pub(crate) fn predict_join(&self, who: usize, code: &str, spectate: bool) -> Result<(), ErrorCode> {
        if self.players[who].room.is_some() {
            return Err(ErrorCode::AlreadyInRoom);
        }
        let Some(r) =
            self.rooms.get(code).filter(|r| mazerace_server::is_code_shaped(code) && !r.members.is_empty())
        else {
            return Err(ErrorCode::RoomNotFound);
        };
        let players = r.members.iter().filter(|(_, s)| !s).count() as u32;
        let watchers = r.members.len() as u32 - players;
        let full = if spectate { watchers >= MAX_SPECTATORS } else { players >= r.max_players };
        if full {
            Err(ErrorCode::RoomFull)
        } else {
            Ok(())
        }
    }

    // ---- answers ----

    /// Reads until the answer `e`, observing everything before it.
    pub(crate) async fn answer(&mut self, who: usize, e: &Expect) -> R<()> {
        if let Expect::Join { code, spectate, outcome } = e {
            return self.join_answer(who, code, *spectate, *outcome).await;
        }
        loop {
            let m = match self.incoming(who).await? {
                Incoming::Msg(m) => m,
                Incoming::Closed(c, r) => {
                    return Err(format!("player {who} waiting for {e:?}: closed {c} {r}"))
                }
                Incoming::Eof => return Err(format!("player {who} waiting for {e:?}: the stream ended")),
            };
            if self.take_answer(who, e, &m)? {
                return Ok(());
            }
        }
    }

    /// Everything up to the sentinel `pong`: exactly the predicted error, or
    /// none and this player listed in the room (and a snapshot if a race is on).
    pub(crate) async fn join_answer(
        &mut self,
        who: usize,
        code: &str,
        spectate: bool,
        outcome: Result<(), ErrorCode>,
    ) -> R<()> {
        let mut refused = None;
        loop {
            let m = match self.incoming(who).await? {
                Incoming::Msg(m) => m,
                Incoming::Closed(c, r) => return Err(format!("player {who} joining {code}: closed {c} {r}")),
                Incoming::Eof => return Err(format!("player {who} joining {code}: the stream ended")),
            };
            match m {
                ServerMsg::Error { code: got, message } => {
                    ensure!(
                        refused.is_none() && outcome == Err(got),
                        "join {code:?} (spectate {spectate}): {got:?} ({message}), the model says {outcome:?}"
                    );
                    refused = Some(got);
                }
                ServerMsg::Pong => break,
                m => self.observe(who, &m)?,
            }
        }
        ensure!(
            refused.is_some() == outcome.is_err(),
            "join {code:?}: no answer, the model says {outcome:?}"
        );
        if outcome.is_err() {
            return Ok(());
        }
        let p = &self.players[who];
        let info =
            p.view.as_ref().filter(|v| v.code == code).ok_or(format!("joined {code}, no `room` came"))?;
        let me = p.me(info).ok_or("joined, not listed")?;
        // Back in a race you already finished (or ran out of steps in) you
        // keep your place in it; otherwise a race on makes you a watcher.
        let done =
            p.races.get(code).and_then(|r| r.me.as_ref()).is_some_and(|g| g.status() != Status::Playing);
        // Between two rounds of a match everyone not watching races the next.
        let between = matches!(info.phase, Phase::Lobby | Phase::Intermission);
        let watching = spectate || !between && !done;
        ensure!(
            me.spectator == watching && me.connected && !me.ready,
            "joined as {me:?} in {:?} (spectate {spectate})",
            info.phase
        );
        Ok(())
    }

    /// Whether `m` answers `e` (checking it if so); else observes it.
    pub(crate) fn take_answer(&mut self, who: usize, e: &Expect, m: &ServerMsg) -> R<bool> {
        match (e, m) {
            (_, ServerMsg::Error { code, message }) => {
                ensure!(
                    e.errors().contains(code),
                    "player {who}: error {code:?} ({message}) answering {e:?}"
                );
                self.check_refusal(who, e, *code, message)?;
                Ok(true)
            }
            (Expect::Pong | Expect::Leave, ServerMsg::Pong) => {
                if let Expect::Leave = e {
                    self.left(who);
                }
                Ok(true)
            }
            (
                Expect::Act { action: Action::Move(_), seq },
                ServerMsg::MoveResult { seq: s, ok, reason, view },
            )
            | (
                Expect::Act { action: Action::Rewind, seq },
                ServerMsg::RewindResult { seq: s, ok, reason, view },
            ) => {
                ensure!(s == seq, "answer to seq {seq} carries seq {s}");
                let Expect::Act { action, .. } = e else { unreachable!() };
                self.on_result(who, *action, *ok, *reason, view)?;
                Ok(true)
            }
            // A start shows as the room leaving the lobby with this player as host.
            (Expect::Start, ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let was_lobby =
                    p.view.as_ref().is_some_and(|v| v.code == info.code && v.phase == Phase::Lobby);
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && was_lobby
                    && matches!(info.phase, Phase::Countdown | Phase::Racing)
                    && info.host == p.id;
                self.observe(who, m)?;
                Ok(mine)
            }
            (Expect::Ready(v), ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && info.phase == Phase::Lobby
                    && p.me(info).is_some_and(|me| me.ready == *v);
                self.observe(who, m)?;
                Ok(mine)
            }
            // A rematch shows as the room going from results back to the
            // lobby; in a room of matches, into the next match's first
            // intermission (a new table, no round begun).
            (Expect::Rematch, ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let was_results =
                    p.view.as_ref().is_some_and(|v| v.code == info.code && v.phase == Phase::Results);
                let next = match info.format {
                    None => info.phase == Phase::Lobby,
                    Some(_) => {
                        info.phase == Phase::Intermission
                            && info.standings.as_ref().is_some_and(|s| s.round == 0 && !s.over)
                    }
                };
                let mine =
                    p.room.as_deref() == Some(info.code.as_str()) && was_results && next && info.host == p.id;
                if mine {
                    ensure!(
                        info.players.iter().all(|p| !p.ready),
                        "ready flags survived the rematch: {info:?}"
                    );
                }
                self.observe(who, m)?;
                Ok(mine)
            }
            (Expect::SetMatch(format), ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && info.phase == Phase::Lobby
                    && info.host == p.id
                    && info.format == *format;
                if mine {
                    ensure!(info.standings.is_none(), "set_match {format:?} kept a table: {info:?}");
                }
                self.observe(who, m)?;
                Ok(mine)
            }
            (Expect::Hold | Expect::NextRound, ServerMsg::Room(info)) => {
                let p = &self.players[who];
                let was_between =
                    p.view.as_ref().is_some_and(|v| v.code == info.code && v.phase == Phase::Intermission);
                let held = info.standings.as_ref().is_some_and(|s| s.held);
                let mine = p.room.as_deref() == Some(info.code.as_str())
                    && was_between
                    && info.host == p.id
                    && match e {
                        Expect::Hold => held && info.phase == Phase::Intermission,
                        _ => info.phase != Phase::Intermission || !held,
                    };
                self.observe(who, m)?;
                Ok(mine)
            }
            (
                Expect::Create { game, size, seed, daily, rank_by, max_players, format },
                ServerMsg::Room(info),
            ) if self.players[who].me(info).is_some()
                && info.phase == Phase::Lobby
                && !self.codes.contains(&info.code) =>
            {
                let p = &self.players[who];
                ensure!(p.room.is_none(), "made a room while in {:?}", p.room);
                ensure!(size.game() == *game && !*daily, "made a room for {game:?}/{size:?} daily {daily}");
                ensure!(p.rooms_made < ROOMS_PER_CONN, "made room {} on one connection", p.rooms_made + 1);
                // A match's first round may be smaller than the room (`harder`).
                let first = format.map_or(*size, |f| f.size_of(*size, 1));
                ensure!(
                    info.host == p.id
                        && info.phase == Phase::Lobby
                        && info.players.len() == 1
                        && info.game == first.game()
                        && info.size == first
                        && info.rank_by == *rank_by
                        && info.max_players == *max_players
                        && info.format == *format
                        && info.standings.is_none(),
                    "a new room looks like {info:?} (seed {seed})"
                );
                let code = info.code.clone();
                let p = &mut self.players[who];
                p.rooms_made += 1;
                p.room = Some(code.clone());
                self.rooms.insert(
                    code.clone(),
                    RoomModel { max_players: *max_players, members: vec![(p.id, false)], base: *size },
                );
                self.codes.push(code);
                self.observe(who, m)?;
                Ok(true)
            }
            _ => {
                self.observe(who, m)?;
                Ok(false)
            }
        }
    }

    /// A refusal must be the right one, judged on what this player has seen.
    pub(crate) fn check_refusal(&self, who: usize, e: &Expect, code: ErrorCode, message: &str) -> R<()> {
        let p = &self.players[who];
        let view = p.view.as_ref().filter(|v| p.room.as_deref() == Some(v.code.as_str()));
        let why = format!("player {who} ({}) got {code:?} ({message}) for {e:?} in {view:?}", p.id);
        match code {
            ErrorCode::NotInRoom => ensure!(p.room.is_none(), "{why}"),
            ErrorCode::AlreadyInRoom => ensure!(p.room.is_some(), "{why}"),
            ErrorCode::NotRacing => {
                let v = view.ok_or(format!("{why}: no view of the room"))?;
                let me = p.me(v).ok_or(format!("{why}: not listed"))?;
                ensure!(v.phase != Phase::Racing || me.spectator, "{why}");
            }
            ErrorCode::NotHost => ensure!(view.is_some_and(|v| v.host != p.id), "{why}"),
            ErrorCode::WrongPhase => {
                let v = view.ok_or(format!("{why}: no view of the room"))?;
                // `start` and `rematch` check the host first.
                let ok = match e {
                    Expect::Ready(_) => v.phase != Phase::Lobby,
                    // Nobody to race: every player watches, or (a room of
                    // matches, whose rounds are raced by who is here) is away.
                    Expect::Start => {
                        let away =
                            |m: &&mazerace_protocol::messages::PlayerInfo| v.format.is_some() && !m.connected;
                        let nobody = v.players.iter().filter(|m| !m.rival).all(|m| m.spectator || away(&m));
                        v.host == p.id && (v.phase != Phase::Lobby || nobody)
                    }
                    Expect::Rematch => v.host == p.id && v.phase != Phase::Results,
                    Expect::SetMatch(_) => v.host == p.id && v.phase != Phase::Lobby,
                    Expect::NextRound => v.host == p.id && v.phase != Phase::Intermission,
                    // Held once each: the player saw this intermission held.
                    Expect::Hold => {
                        let round = v.standings.as_ref().map_or(0, |s| s.round);
                        v.host == p.id
                            && (v.phase != Phase::Intermission || p.held.contains(&(v.code.clone(), round)))
                    }
                    // `add_rival` / `remove_rival`: the host outside the lobby.
                    Expect::Error(c) if c.contains(&ErrorCode::WrongPhase) => {
                        v.host == p.id && v.phase != Phase::Lobby
                    }
                    _ => false,
                };
                ensure!(ok, "{why}");
            }
            ErrorCode::BadSize => {
                let Expect::Create { game, size, seed, daily, format, .. } = e else { return Err(why) };
                let daily_seed = *daily && *seed && format.is_none();
                ensure!(p.room.is_none() && (size.game() != *game || daily_seed), "{why}");
            }
            // The rival messages get past the host and the phase first.
            ErrorCode::RivalRefused | ErrorCode::RivalNotFound => {
                ensure!(view.is_some_and(|v| v.host == p.id && v.phase == Phase::Lobby), "{why}")
            }
            ErrorCode::DailyMatch => {
                let Expect::Create { game, size, daily, format, .. } = e else { return Err(why) };
                ensure!(p.room.is_none() && size.game() == *game && *daily && format.is_some(), "{why}");
            }
            ErrorCode::Internal => {
                if matches!(e, Expect::Error(c) if c.contains(&ErrorCode::WrongPhase)) {
                    ensure!(view.is_some_and(|v| v.host == p.id && v.phase == Phase::Lobby), "{why}");
                }
                if let Expect::Create { game, size, seed, daily, format, .. } = e {
                    ensure!(
                        p.room.is_none() && size.game() == *game && *daily && !*seed && format.is_none(),
                        "{why}"
                    );
                    ensure!(message == "daily challenge is not configured", "{why}");
                }
            }
            ErrorCode::TooManyRooms => {
                let Expect::Create { game, size, daily, .. } = e else { return Err(why) };
                ensure!(
                    p.room.is_none() && size.game() == *game && !daily && p.rooms_made >= ROOMS_PER_CONN,
                    "{why}"
                );
            }
            _ => {}
        }
        Ok(())
    }
}
