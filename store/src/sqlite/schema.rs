//! The SQLite schema: numbered migrations, the version kept in
//! `PRAGMA user_version` (SQLite's own transactional version slot, already
//! used by databases in the field, so no second source of truth), applied in
//! one immediate transaction at open.
//!
//! Adding a table (issues 15, 16): append one migration here and the same
//! version to [`crate::postgres::schema`]; a test keeps the two version
//! numbers equal.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::StoreError;

/// The schema version this build writes: the number of migrations.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only:
/// never edit one that has shipped.
pub const MIGRATIONS: &[&str] = &[
    // 1: salt, players, runs.
    r#"
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value BLOB NOT NULL
    ) STRICT;

    -- A player is the SHA-256 (hex) of their reconnect token; never the token.
    CREATE TABLE players (
        key        TEXT PRIMARY KEY CHECK (length(key) = 64),
        name       TEXT NOT NULL,
        first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT;

    -- One row per daily attempt, ranked or practice. AUTOINCREMENT so a run
    -- id (the replay link) is never reused.
    CREATE TABLE runs (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        player     TEXT NOT NULL REFERENCES players (key),
        name       TEXT NOT NULL,
        date       TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
        game       TEXT NOT NULL CHECK (game IN ('ghost', 'maze')),
        size       TEXT NOT NULL,
        seed       TEXT NOT NULL,
        ranked     INTEGER NOT NULL CHECK (ranked IN (0, 1)),
        state      TEXT NOT NULL DEFAULT 'playing'
                   CHECK (state IN ('playing', 'finished', 'not_finished')),
        steps      INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
        time_ms    INTEGER CHECK (time_ms >= 0),
        actions    TEXT NOT NULL DEFAULT '[]',
        started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        ended_at   TEXT,
        CHECK ((state = 'finished') = (time_ms IS NOT NULL))
    ) STRICT;

    -- The rule: one ranked run per player per board.
    CREATE UNIQUE INDEX runs_one_ranked ON runs (player, date, game, size) WHERE ranked = 1;
    -- Leaderboards and ranks.
    CREATE INDEX runs_board ON runs (date, game, size, ranked, state, steps, time_ms);
    -- Streaks.
    CREATE INDEX runs_player_days ON runs (player, date) WHERE ranked = 1;
    "#,
    // 2 (issue 14): who serves a run, node leases, and per-action times.
    r#"
    -- Runs from before this version were served by the one anonymous node.
    ALTER TABLE runs ADD COLUMN node TEXT NOT NULL DEFAULT '-';
    ALTER TABLE runs ADD COLUMN boot TEXT NOT NULL DEFAULT '';
    -- JSON array: each action's ms since the run's first move (NULL: not kept).
    ALTER TABLE runs ADD COLUMN times TEXT;
    CREATE INDEX runs_open ON runs (node, boot) WHERE state = 'playing';

    -- One row per live process (boot), its lease in Unix ms.
    CREATE TABLE nodes (
        boot           TEXT PRIMARY KEY,
        node           TEXT NOT NULL,
        lease_until_ms INTEGER NOT NULL
    ) STRICT;

    -- Per-board counters, kept in the same transaction as the run they
    -- count, so a board of a million runs answers entrants and ranks from a
    -- few rows: ranked starts (in shards, for PostgreSQL's concurrent
    -- writers; SQLite uses shard 0) and ranked finishes per step count.
    CREATE TABLE board_entrants (
        date  TEXT NOT NULL,
        game  TEXT NOT NULL,
        size  TEXT NOT NULL,
        shard INTEGER NOT NULL,
        n     INTEGER NOT NULL,
        PRIMARY KEY (date, game, size, shard)
    ) STRICT;
    CREATE TABLE board_steps (
        date  TEXT NOT NULL,
        game  TEXT NOT NULL,
        size  TEXT NOT NULL,
        steps INTEGER NOT NULL,
        n     INTEGER NOT NULL,
        PRIMARY KEY (date, game, size, steps)
    ) STRICT;
    INSERT INTO board_entrants (date, game, size, shard, n)
        SELECT date, game, size, 0, COUNT(*) FROM runs WHERE ranked = 1 GROUP BY date, game, size;
    INSERT INTO board_steps (date, game, size, steps, n)
        SELECT date, game, size, steps, COUNT(*) FROM runs WHERE ranked = 1 AND state = 'finished'
        GROUP BY date, game, size, steps;
    "#,
    // 3 (issue 15): the per-address cap on ranked runs.
    r#"
    -- The keyed hash of the network address a run started from (NULL: not kept).
    ALTER TABLE runs ADD COLUMN address TEXT;
    CREATE INDEX runs_address ON runs (date, game, size, address) WHERE ranked = 1 AND address IS NOT NULL;
    "#,
    // 4 (issue 15): leagues, the daily among friends.
    r#"
    CREATE TABLE leagues (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        code       TEXT NOT NULL UNIQUE,
        name       TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT;
    -- A member is a player key (the hash of their token), as in runs.
    CREATE TABLE league_members (
        league    INTEGER NOT NULL REFERENCES leagues (id),
        player    TEXT NOT NULL CHECK (length(player) = 64),
        name      TEXT NOT NULL,
        joined_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (league, player)
    ) STRICT;
    CREATE INDEX league_members_player ON league_members (player);
    "#,
    // 5: PostgreSQL shards `board_steps` (its version 5). Here one writer
    // commits at a time, so a counter row is never waited on: nothing to do,
    // and the version numbers stay equal.
    "",
    // 6 (issue 24): who made a league (the keyed hash of the address, as
    // runs.address) and on which daily day, for the per-address daily cap.
    r#"
    ALTER TABLE leagues ADD COLUMN address TEXT;
    ALTER TABLE leagues ADD COLUMN made_on TEXT;
    CREATE INDEX leagues_made_by ON leagues (address, made_on) WHERE address IS NOT NULL;
    "#,
    // 7 (issue 24): a ranked finish paced at the ranked floor end to end
    // (a likely script): shown or hidden by a table, tied on time in ranks;
    // and a league's owner.
    r#"
    ALTER TABLE runs ADD COLUMN at_floor INTEGER NOT NULL DEFAULT 0 CHECK (at_floor IN (0, 1));
    -- And who made a league (their player key): its owner, who may remove
    -- members while they are in it (NULL for older leagues: the
    -- longest-standing member owns those).
    ALTER TABLE leagues ADD COLUMN owner TEXT;
    "#,
    // 8: PostgreSQL's room-move mailbox (its version 8). A single SQLite
    // node has no other node to move a room to: nothing to do, and the
    // version numbers stay equal.
    "",
    // 9 (issue 36): a game is a value the rules layer checks against the
    // registry in protocol/ (`Row::game`, on every read of a row), not a
    // list in the schema: adding a game is an entry there, not a
    // migration. SQLite cannot drop a CHECK, so `runs` is made again by
    // SQLite's documented 12-step way, in this migration's transaction: the
    // same columns in the same order with every other constraint, every
    // row copied with its id, the AUTOINCREMENT sequence carried over (it
    // may be past the highest id left: an id is never handed out twice),
    // and every index on runs (migrations 1 to 3) made again as it was.
    // No table references runs, so foreign keys stay on: dropping runs
    // deletes nothing elsewhere, and the copy checks each row's player.
    r#"
    CREATE TABLE runs_new (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        player     TEXT NOT NULL REFERENCES players (key),
        name       TEXT NOT NULL,
        date       TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
        game       TEXT NOT NULL,
        size       TEXT NOT NULL,
        seed       TEXT NOT NULL,
        ranked     INTEGER NOT NULL CHECK (ranked IN (0, 1)),
        state      TEXT NOT NULL DEFAULT 'playing'
                   CHECK (state IN ('playing', 'finished', 'not_finished')),
        steps      INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
        time_ms    INTEGER CHECK (time_ms >= 0),
        actions    TEXT NOT NULL DEFAULT '[]',
        started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        ended_at   TEXT,
        node       TEXT NOT NULL DEFAULT '-',
        boot       TEXT NOT NULL DEFAULT '',
        times      TEXT,
        address    TEXT,
        at_floor   INTEGER NOT NULL DEFAULT 0 CHECK (at_floor IN (0, 1)),
        CHECK ((state = 'finished') = (time_ms IS NOT NULL))
    ) STRICT;
    INSERT INTO runs_new (id, player, name, date, game, size, seed, ranked, state, steps, time_ms,
                          actions, started_at, ended_at, node, boot, times, address, at_floor)
        SELECT id, player, name, date, game, size, seed, ranked, state, steps, time_ms,
               actions, started_at, ended_at, node, boot, times, address, at_floor
        FROM runs ORDER BY id;
    -- The copy set runs_new's sequence to the highest id copied; runs'
    -- own may be higher (its last runs deleted), and goes with runs' drop.
    DELETE FROM sqlite_sequence WHERE name = 'runs_new';
    INSERT INTO sqlite_sequence (name, seq) SELECT 'runs_new', seq FROM sqlite_sequence WHERE name = 'runs';
    DROP TABLE runs;
    -- The rename carries the sequence's row along.
    ALTER TABLE runs_new RENAME TO runs;
    CREATE UNIQUE INDEX runs_one_ranked ON runs (player, date, game, size) WHERE ranked = 1;
    CREATE INDEX runs_board ON runs (date, game, size, ranked, state, steps, time_ms);
    CREATE INDEX runs_player_days ON runs (player, date) WHERE ranked = 1;
    CREATE INDEX runs_open ON runs (node, boot) WHERE state = 'playing';
    CREATE INDEX runs_address ON runs (date, game, size, address) WHERE ranked = 1 AND address IS NOT NULL;
    "#,
];

/// Bring the schema up to [`SCHEMA_VERSION`]; refuse a newer one.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current: u32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, known: SCHEMA_VERSION });
    }
    for sql in &MIGRATIONS[current as usize..] {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(())
}
