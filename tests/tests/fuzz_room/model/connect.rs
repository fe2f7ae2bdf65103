//! Connections: fresh sessions, resumes, takeovers, barriers (a ping
//! round trip) and reading to a close.

use crate::*;

impl Fuzz {
    pub(crate) fn board(&mut self, size: Size, seed: u64) -> R<Board> {
        if let Some(b) = self.boards.get(&(size, seed)) {
            return Ok(b.clone());
        }
        let b = Board::build(size, seed).map_err(|e| format!("board {size} {seed}: {e}"))?;
        self.boards.insert((size, seed), b.clone());
        Ok(b)
    }

    pub(crate) fn live(&self, code: &str) -> bool {
        self.rooms.get(code).is_some_and(|r| !r.members.is_empty())
    }

    pub(crate) async fn send(&mut self, who: usize, m: Message) -> R<()> {
        let ws = self.players[who].ws.as_mut().ok_or("not connected")?;
        SENT.fetch_add(1, Ordering::Relaxed);
        ws.send(m).await.map_err(|e| format!("player {who}: send failed: {e}"))
    }

    pub(crate) async fn send_msg(&mut self, who: usize, m: &ClientMsg) -> R<()> {
        let text = serde_json::to_string(m).map_err(|e| e.to_string())?;
        self.send(who, Message::text(text)).await
    }

    pub(crate) async fn incoming(&mut self, who: usize) -> R<Incoming> {
        let ws = self.players[who].ws.as_mut().ok_or("not connected")?;
        next_incoming(ws).await
    }

    // ---- connecting ----

    /// A new player (or a new identity for player `who`).
    pub(crate) async fn fresh(
        &mut self,
        who: usize,
        junk: Option<String>,
        bad_name: Option<String>,
    ) -> R<()> {
        let mut ws = self.srv.connect().await.ws;
        if let Some(j) = junk {
            // Before hello: a ping is answered, anything else is refused.
            let want = match serde_json::from_str::<ClientMsg>(&j) {
                Ok(ClientMsg::Ping {}) => None,
                Ok(ClientMsg::Hello { .. }) => Some(vec![ErrorCode::BadName, ErrorCode::HelloFirst]),
                Ok(_) => Some(vec![ErrorCode::HelloFirst]),
                Err(_) => Some(vec![decode_error_code(&j)]),
            };
            let is_hello = matches!(serde_json::from_str::<ClientMsg>(&j), Ok(ClientMsg::Hello { .. }));
            ws.send(Message::text(j.clone())).await.map_err(|e| e.to_string())?;
            match (next_incoming(&mut ws).await?, want) {
                (Incoming::Msg(ServerMsg::Pong), None) => {}
                (Incoming::Msg(ServerMsg::Error { code, .. }), Some(codes)) if codes.contains(&code) => {}
                // A hello that happened to be valid: this is the identity now.
                (Incoming::Msg(ServerMsg::Welcome { player_id, token, resumed, .. }), _) if is_hello => {
                    ensure!(!resumed, "junk hello {j:?} resumed a session");
                    return self.adopt(who, ws, player_id, token, "junk".into());
                }
                (Incoming::Msg(m), want) => {
                    return Err(format!("before hello, {j:?} got {m:?} (want {want:?})"))
                }
                (Incoming::Closed(c, r), _) => return Err(format!("before hello, {j:?} closed {c} {r}")),
                (Incoming::Eof, _) => return Err(format!("before hello, {j:?} ended the stream")),
            }
        }
        let mut name = self.players[who].name.clone();
        if let Some(bad) = bad_name {
            name = bad;
        }
        loop {
            // An unknown token of the wrong shape: never resumed, never kept
            // (a well-formed one would be kept as this player's identity).
            let m = ClientMsg::Hello { name: name.clone(), token: Some("z".repeat(32)) };
            ws.send(Message::text(serde_json::to_string(&m).map_err(|e| e.to_string())?))
                .await
                .map_err(|e| e.to_string())?;
            match next_incoming(&mut ws).await? {
                Incoming::Msg(ServerMsg::Welcome { player_id, token, resumed, .. }) => {
                    ensure!(!resumed, "an unknown token resumed a session");
                    return self.adopt(who, ws, player_id, token, name);
                }
                Incoming::Msg(ServerMsg::Error { code: ErrorCode::BadName, .. }) => {
                    ensure!(name != self.players[who].name, "a valid name was refused: {name:?}");
                    name = self.players[who].name.clone();
                }
                Incoming::Msg(m) => return Err(format!("hello {name:?} got {m:?}")),
                Incoming::Closed(c, r) => return Err(format!("hello {name:?} closed {c} {r}")),
                Incoming::Eof => return Err(format!("hello {name:?} ended the stream")),
            }
        }
    }

    pub(crate) fn adopt(&mut self, who: usize, ws: Ws, id: u32, token: String, name: String) -> R<()> {
        ensure!(
            self.players.iter().all(|p| p.id != id) && token.len() == 32,
            "a new session reused an id or has an odd token: {id} {token}"
        );
        self.identities += 1;
        let p = &mut self.players[who];
        // The old identity (if any) stays in its room, disconnected.
        p.id = id;
        p.token = token;
        p.name = name.trim().to_owned();
        p.ws = Some(ws);
        p.room = None;
        p.view = None;
        p.races.clear();
        p.rooms_made = 0;
        Ok(())
    }

    /// Player `who` says hello with its token on a new connection; the
    /// answer is read by [`Fuzz::finish_resume`].
    pub(crate) async fn open_resume(&mut self, who: usize) -> R<Ws> {
        let p = &self.players[who];
        // The name in a resuming hello is ignored, but must still be valid.
        let m = ClientMsg::Hello { name: p.name.clone(), token: Some(p.token.clone()) };
        let mut ws = self.srv.connect().await.ws;
        ws.send(Message::text(serde_json::to_string(&m).map_err(|e| e.to_string())?))
            .await
            .map_err(|e| e.to_string())?;
        Ok(ws)
    }

    /// `welcome {resumed: true}`, then (in a room) the snapshot, straight after.
    pub(crate) async fn finish_resume(&mut self, who: usize, mut ws: Ws) -> R<()> {
        let (id, token) = (self.players[who].id, self.players[who].token.clone());
        let welcome = match next_incoming(&mut ws).await? {
            Incoming::Msg(m) => m,
            Incoming::Closed(c, r) => return Err(format!("resume answered by a close {c} {r}")),
            Incoming::Eof => return Err("resume answered by the end of the stream".into()),
        };
        ensure!(
            matches!(&welcome, ServerMsg::Welcome { player_id, token: t, resumed: true, .. }
                if *player_id == id && *t == token),
            "resume of player {id} got {welcome:?}"
        );
        self.players[who].ws = Some(ws);
        self.players[who].rooms_made = 0;
        if let Some(code) = self.players[who].room.clone() {
            match self.incoming(who).await? {
                Incoming::Msg(ServerMsg::Snapshot(s)) => {
                    ensure!(s.room.code == code, "resumed into {} instead of {code}", s.room.code);
                    self.on_snapshot(who, &s)?;
                }
                Incoming::Msg(m) => return Err(format!("resume: {m:?} instead of the snapshot")),
                Incoming::Closed(c, r) => return Err(format!("resume: closed {c} {r}")),
                Incoming::Eof => return Err("resume: the stream ended".into()),
            }
        }
        Ok(())
    }

    pub(crate) async fn resume(&mut self, who: usize) -> R<()> {
        let ws = self.open_resume(who).await?;
        self.finish_resume(who, ws).await
    }

    pub(crate) async fn ensure_connected(&mut self, who: usize) -> R<()> {
        if self.players[who].ws.is_none() {
            self.resume(who).await?;
        }
        Ok(())
    }

    /// Drains what the server already sent this player: a ping round trip.
    pub(crate) async fn barrier(&mut self, who: usize) -> R<()> {
        self.ensure_connected(who).await?;
        self.send_msg(who, &ClientMsg::Ping {}).await?;
        self.answer(who, &Expect::Pong).await
    }

    /// Reads until the server's close; everything before it is observed.
    /// Returns the close and whether `server_shutdown` came first.
    pub(crate) async fn until_close(&mut self, who: usize, ws: &mut Ws) -> R<(u16, String, bool)> {
        let mut told = false;
        loop {
            match next_incoming(ws).await? {
                Incoming::Msg(ServerMsg::ServerShutdown) if self.shutting_down => told = true,
                Incoming::Msg(m) => self.observe(who, &m)?,
                Incoming::Closed(c, r) => {
                    finish_close(ws).await;
                    return Ok((c, r, told));
                }
                Incoming::Eof => return Err(format!("player {who}: the stream ended without a close frame")),
            }
        }
    }
}
