//! The driver: one case end to end. It starts the server, plays each
//! step (sending ops, waiting for their answers), then checks that the
//! room is still answerable and that the server stops cleanly.

use crate::*;

impl Fuzz {
    /// Sends op `op` for `who`; returns the answers to wait for, in order.
    pub(crate) async fn send_op(&mut self, who: usize, op: &Op) -> R<Vec<Expect>> {
        Ok(match op {
            Op::Send(m) => {
                let e = self.expect(who, m);
                self.send_msg(who, m).await?;
                self.sent(who, &e).await?;
                vec![e]
            }
            Op::Text(t) => {
                let e = match serde_json::from_str::<ClientMsg>(t) {
                    Ok(m) => self.expect(who, &m),
                    Err(_) => Expect::Error(vec![decode_error_code(t)]),
                };
                self.send(who, Message::text(t.clone())).await?;
                self.sent(who, &e).await?;
                vec![e]
            }
            Op::Binary(b) => {
                self.send(who, Message::binary(b.clone())).await?;
                vec![Expect::Error(vec![ErrorCode::BinaryFrame])]
            }
            Op::Join { slot, spectate, sloppy } => {
                let code = self.codes[slot % self.codes.len()].clone();
                let sent = if *sloppy { format!("  {}\t", code.to_ascii_lowercase()) } else { code.clone() };
                let m = ClientMsg::JoinRoom { code: sent, spectate: *spectate, key: None, screen: false };
                let e = self.expect(who, &m);
                self.send_msg(who, &m).await?;
                self.sent(who, &e).await?;
                vec![e]
            }
            Op::Burst { actions, seq } => {
                let mut out = Vec::new();
                for (i, a) in actions.iter().enumerate() {
                    let seq = seq.wrapping_add(i as u32);
                    let m = match a {
                        Action::Move(dir) => ClientMsg::Move { dir: *dir, seq },
                        Action::Rewind => ClientMsg::Rewind { seq },
                    };
                    self.send_msg(who, &m).await?;
                    out.push(Expect::Act { action: *a, seq });
                }
                out
            }
            Op::Solve => {
                let line = self.solve_line(who);
                Box::pin(self.send_op(who, &Op::Burst { actions: line, seq: 1 })).await?
            }
            Op::WsPing(payload) => {
                self.send(who, Message::Ping(payload.clone().into())).await?;
                self.send_msg(who, &ClientMsg::Ping {}).await?;
                vec![Expect::Pong]
            }
            Op::Oversize { .. } | Op::Drop { .. } | Op::Takeover | Op::Fresh { .. } => {
                return Err(format!("{op:?} is not a plain send"));
            }
        })
    }

    /// The way to the goal from where the player's game stands, if known.
    pub(crate) fn solve_line(&mut self, who: usize) -> Vec<Action> {
        let Some(race) = self.players[who].race() else { return vec![Action::Move(Dir::Down)] };
        let Some(game) = &race.me else { return vec![Action::Move(Dir::Down)] };
        match (&race.board, game) {
            (Board::Maze(m), g) => m.route(g.pos(), m.exit).into_iter().map(Action::Move).collect(),
            (b @ Board::Ghost(_), g) if g.steps() == 0 && g.run() == Some(1) => match b.answer().solution() {
                [] => vec![Action::Rewind],
                line => line.to_vec(),
            },
            _ => vec![Action::Move(Dir::Up), Action::Rewind, Action::Move(Dir::Right)],
        }
    }

    pub(crate) async fn run_step(&mut self, step: &Step) -> R<()> {
        match step {
            Step::One(who, op) => self.run_one(*who, op).await,
            Step::Together(ops) => {
                for (who, _) in ops {
                    self.barrier(*who).await?;
                }
                let mut waits = Vec::new();
                for (who, op) in ops {
                    waits.push((*who, self.send_op(*who, op).await?));
                }
                for (who, expects) in waits {
                    for e in expects {
                        self.answer(who, &e).await?;
                    }
                }
                Ok(())
            }
        }
    }

    pub(crate) async fn run_one(&mut self, who: usize, op: &Op) -> R<()> {
        match op {
            Op::Oversize { len, binary } => {
                self.barrier(who).await?;
                let m = if *binary {
                    Message::binary(vec![b'x'; *len])
                } else {
                    Message::text(format!("{{\"type\":\"hello\",\"name\":\"{}\"}}", "x".repeat(*len)))
                };
                self.send(who, m).await?;
                let mut ws = self.players[who].ws.take().ok_or("not connected")?;
                let (code, reason, _) = self.until_close(who, &mut ws).await?;
                ensure!(code == 1009 && reason.contains("4096"), "oversize frame: close {code} {reason:?}");
                Ok(())
            }
            Op::Drop { clean } => {
                self.barrier(who).await?;
                let mut ws = self.players[who].ws.take().ok_or("not connected")?;
                if *clean {
                    ws.close(None).await.map_err(|e| format!("close: {e}"))?;
                    let (code, _, _) = self.until_close(who, &mut ws).await?;
                    ensure!(code == 1000 || code == 1005, "our close was answered with {code}");
                }
                Ok(())
            }
            Op::Takeover => {
                self.barrier(who).await?;
                let mut old = self.players[who].ws.take().ok_or("takeover without a connection")?;
                let new = self.open_resume(who).await?;
                // Everything the old connection got precedes its close, and
                // the close precedes the new connection's welcome.
                let (code, reason, _) = self.until_close(who, &mut old).await?;
                ensure!(code == 4003, "the taken-over connection closed with {code} {reason:?}");
                self.finish_resume(who, new).await
            }
            Op::Fresh { junk, bad_name } => {
                if let Some(mut ws) = self.players[who].ws.take() {
                    let _ = ws.close(None).await;
                    finish_close(&mut ws).await;
                }
                self.fresh(who, junk.clone(), bad_name.clone()).await
            }
            op => {
                self.barrier(who).await?;
                for e in self.send_op(who, op).await? {
                    self.answer(who, &e).await?;
                }
                Ok(())
            }
        }
    }
}

pub(crate) async fn run_case(case: &Case) -> R<()> {
    let cfg = fuzz_config(case.countdown, case.seed);
    let srv = TestServer::with_config(cfg.clone()).await;
    let mut f = Fuzz {
        srv,
        cfg,
        players: case
            .names
            .iter()
            .map(|n| Player {
                name: n.clone(),
                id: 0,
                token: String::new(),
                ws: None,
                room: None,
                view: None,
                races: HashMap::new(),
                rooms_made: 0,
                held: Vec::new(),
                rounds: Vec::new(),
            })
            .collect(),
        rooms: HashMap::new(),
        codes: Vec::new(),
        boards: HashMap::new(),
        identities: 0,
        shutting_down: false,
    };
    let result = drive(&mut f, case).await;
    // Whatever happened, the server must still stop cleanly.
    f.shutting_down = true;
    f.srv.server.shutdown();
    let mut closes = Ok(());
    for who in 0..f.players.len() {
        if let Some(mut ws) = f.players[who].ws.take() {
            match f.until_close(who, &mut ws).await {
                Ok((1001, _, true)) => {}
                Ok((code, reason, _)) => {
                    closes = closes.and(Err(format!("shutdown closed {who} with {code} {reason}")))
                }
                Err(e) => closes = closes.and(Err(format!("shutdown, player {who}: {e}"))),
            }
        }
    }
    tokio::time::timeout(Duration::from_secs(10), f.srv.stop())
        .await
        .map_err(|_| "the server did not stop".to_owned())?;
    result.and(closes)
}

/// One case in three plays a match of 3 rounds from the start (its rounds
/// go on by the host's `next_round`; `set_match` draws the other lengths).
/// Drawn from the seed, like the time limit, so the kept cases replay
/// unchanged.
pub(crate) fn match_of(seed: u64) -> Option<MatchSettings> {
    let plans = [Plan::Same, Plan::Alternate, Plan::Harder];
    (seed % 3 == 1).then(|| MatchSettings { rounds: Rounds::ALL[0], plan: plans[(seed / 3 % 3) as usize] })
}

pub(crate) async fn drive(f: &mut Fuzz, case: &Case) -> R<()> {
    for who in 0..3 {
        f.fresh(who, None, None).await?;
    }
    let create = ClientMsg::CreateRoom {
        game: case.size.game(),
        size: case.size,
        seed: Some(Seed(case.seed)),
        rank_by: None,
        max_players: None,
        daily: false,
        format: match_of(case.seed),
        replaces: None,
        party: false,
    };
    f.run_one(0, &Op::Send(create)).await?;
    f.run_one(1, &Op::Join { slot: 0, spectate: false, sloppy: false }).await?;
    f.run_one(2, &Op::Join { slot: 0, spectate: case.spectator, sloppy: true }).await?;

    for (i, step) in case.steps.iter().enumerate() {
        f.run_step(step).await.map_err(|e| format!("step {i} {step:?}: {e}"))?;
    }

    // Still answerable: every player, and a newcomer in every live room.
    for who in 0..3 {
        f.barrier(who).await.map_err(|e| format!("afterwards, player {who}: {e}"))?;
    }
    let mut checker = f.srv.connect().await.ws;
    checker.send(Message::text(r#"{"type":"ping"}"#)).await.map_err(|e| e.to_string())?;
    match next_incoming(&mut checker).await? {
        Incoming::Msg(ServerMsg::Pong) => {}
        _ => return Err("a fresh connection got no pong".into()),
    }
    checker.send(Message::text(r#"{"type":"hello","name":"Checker"}"#)).await.map_err(|e| e.to_string())?;
    let Incoming::Msg(ServerMsg::Welcome { resumed: false, player_id, .. }) =
        next_incoming(&mut checker).await?
    else {
        return Err("the checker got no welcome".into());
    };
    f.identities += 1;
    for code in f.codes.clone() {
        let m = format!(r#"{{"type":"join_room","code":"{code}","spectate":true}}"#);
        checker.send(Message::text(m)).await.map_err(|e| e.to_string())?;
        loop {
            match next_incoming(&mut checker).await? {
                // The previous room's snapshot and traffic until the leave.
                Incoming::Msg(ServerMsg::Room(info)) if info.code != code => {}
                Incoming::Msg(
                    ServerMsg::Snapshot(_)
                    | ServerMsg::Progress { .. }
                    | ServerMsg::Finished { .. }
                    | ServerMsg::Results { .. }
                    | ServerMsg::Intermission { .. }
                    | ServerMsg::MatchRound(_)
                    | ServerMsg::MatchOver(_)
                    | ServerMsg::Countdown { .. }
                    | ServerMsg::RaceStart { .. },
                ) => {}
                Incoming::Msg(ServerMsg::Room(info)) if f.live(&code) => {
                    let mut got: Vec<u32> = info.players.iter().map(|p| p.id).collect();
                    let mut want: Vec<u32> = f.rooms[&code].members.iter().map(|(id, _)| *id).collect();
                    want.push(player_id);
                    got.sort_unstable();
                    want.sort_unstable();
                    ensure!(got == want, "room {code} has members {got:?}, the model says {want:?}");
                    break;
                }
                Incoming::Msg(ServerMsg::Error { code: ErrorCode::RoomNotFound, .. }) if !f.live(&code) => {
                    break
                }
                other => {
                    let what = match other {
                        Incoming::Msg(m) => format!("{m:?}"),
                        Incoming::Closed(c, r) => format!("close {c} {r}"),
                        Incoming::Eof => "the end".into(),
                    };
                    return Err(format!("the checker joining {code} (live: {}): {what}", f.live(&code)));
                }
            }
        }
        if f.live(&code) {
            checker.send(Message::text(r#"{"type":"leave_room"}"#)).await.map_err(|e| e.to_string())?;
        }
    }
    // Rooms without members are gone; no session was lost or doubled.
    let live = f.rooms.values().filter(|r| !r.members.is_empty()).count();
    let server = f.srv.server.clone();
    let rooms_ok = tokio::time::timeout(RECV_TIMEOUT, async {
        while server.room_count() != live {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    ensure!(rooms_ok.is_ok(), "{} rooms open, the model says {live}", server.room_count());
    ensure!(
        server.session_count() == f.identities,
        "{} sessions, {} identities",
        server.session_count(),
        f.identities
    );
    let _ = checker.close(None).await;
    finish_close(&mut checker).await;
    Ok(())
}
