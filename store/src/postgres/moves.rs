//! The room-move mailbox (issue 27), PostgreSQL only: the database every
//! node shares is where a draining node leaves each of its rooms for
//! another node to adopt. A single SQLite node has nowhere to move a room
//! to, so [`crate::Store::room_moves`] is `None` there.
//!
//! A move's life, one `room_moves` row (schema version 8):
//! 1. the draining boot [`RoomMoves::post`]s the room's exported state
//!    (opaque JSON text: the server owns its shape);
//! 2. a living boot [`RoomMoves::claim`]s waiting rows (`FOR UPDATE SKIP
//!    LOCKED`: two adopters never take the same room), makes the room,
//!    and [`RoomMoves::answer`]s with its new code and key;
//! 3. the draining boot reads the [`RoomMoves::answer_of`] its row and
//!    tells the members; if nobody adopted it in time it
//!    [`RoomMoves::withdraw`]s it (only while unclaimed);
//! 4. the row stays as the memory of the move ([`RoomMoves::lookup`]: old
//!    code to new) until [`RoomMoves::forget`] removes it.
//!
//! Polled, not LISTEN/NOTIFY: the pool's connections are shared and
//! recycled, a listening connection would be one more to keep alive and to
//! reconnect after a database restart (missing the notices sent
//! meanwhile), and one indexed query a few times a second per node costs
//! nothing next to the moves it finds.

use std::sync::Arc;

use super::PoolGuard;
use crate::error::StoreError;

/// A posted room that a boot has claimed: the row and what was posted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedMove {
    pub id: i64,
    pub old_code: String,
    pub old_key: String,
    pub payload: String,
}

/// A remembered move: the old room's key, and the new room's code and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovedRoom {
    pub old_key: String,
    pub code: String,
    pub key: String,
}

/// The mailbox, on the store's pool, as this boot.
#[derive(Clone)]
pub struct RoomMoves {
    pool: Arc<PoolGuard>,
    boot: String,
}

impl RoomMoves {
    pub(crate) fn new(pool: Arc<PoolGuard>, boot: String) -> RoomMoves {
        RoomMoves { pool, boot }
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        Ok(self.pool.pool.get().await?)
    }

    /// Leaves room `old_code` (its state in `payload`) for another boot;
    /// the row's id.
    pub async fn post(&self, old_code: &str, old_key: &str, payload: &str) -> Result<i64, StoreError> {
        let c = self.client().await?;
        let row = c
            .query_one(
                "INSERT INTO room_moves (from_boot, old_code, old_key, payload)
                 VALUES ($1, $2, $3, $4) RETURNING id",
                &[&self.boot, &old_code, &old_key, &payload],
            )
            .await?;
        Ok(row.try_get(0)?)
    }

    /// Takes up to `limit` rooms other boots posted and nobody claimed.
    pub async fn claim(&self, limit: i64) -> Result<Vec<ClaimedMove>, StoreError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "UPDATE room_moves SET adopted_by = $1 WHERE id IN (
                     SELECT id FROM room_moves
                     WHERE adopted_by IS NULL AND from_boot <> $1
                     ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
                 RETURNING id, old_code, old_key, payload",
                &[&self.boot, &limit],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok::<_, StoreError>(ClaimedMove {
                    id: r.try_get(0)?,
                    old_code: r.try_get(1)?,
                    old_key: r.try_get(2)?,
                    payload: r.try_get(3)?,
                })
            })
            .collect()
    }

    /// The claimed move `id` is now room `code` with `key` here.
    pub async fn answer(&self, id: i64, code: &str, key: &str) -> Result<(), StoreError> {
        let c = self.client().await?;
        c.execute(
            "UPDATE room_moves SET new_code = $2, new_key = $3 WHERE id = $1 AND adopted_by = $4",
            &[&id, &code, &key, &self.boot],
        )
        .await?;
        Ok(())
    }

    /// Move `id`'s new code and key, once its adopter answered.
    pub async fn answer_of(&self, id: i64) -> Result<Option<(String, String)>, StoreError> {
        let c = self.client().await?;
        let row = c.query_opt("SELECT new_code, new_key FROM room_moves WHERE id = $1", &[&id]).await?;
        let Some(row) = row else { return Ok(None) };
        let (code, key): (Option<String>, Option<String>) = (row.try_get(0)?, row.try_get(1)?);
        Ok(code.zip(key))
    }

    /// Takes move `id` back unless a boot claimed it already (`false` then).
    pub async fn withdraw(&self, id: i64) -> Result<bool, StoreError> {
        let c = self.client().await?;
        let n = c.execute("DELETE FROM room_moves WHERE id = $1 AND adopted_by IS NULL", &[&id]).await?;
        Ok(n == 1)
    }

    /// Where room `old_code` went, its latest answered move.
    pub async fn lookup(&self, old_code: &str) -> Result<Option<MovedRoom>, StoreError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT old_key, new_code, new_key FROM room_moves
                 WHERE old_code = $1 AND new_code IS NOT NULL ORDER BY id DESC LIMIT 1",
                &[&old_code],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(MovedRoom { old_key: row.try_get(0)?, code: row.try_get(1)?, key: row.try_get(2)? }))
    }

    /// Forgets the moves posted more than `secs` seconds ago; how many.
    pub async fn forget(&self, secs: f64) -> Result<u64, StoreError> {
        let c = self.client().await?;
        Ok(c.execute("DELETE FROM room_moves WHERE posted_at < now() - make_interval(secs => $1)", &[&secs])
            .await?)
    }
}
