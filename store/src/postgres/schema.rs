//! The PostgreSQL schema: the same numbered versions as SQLite's
//! ([`crate::sqlite::schema`]), tracked in a `schema_migrations` table (one
//! row per applied version), applied in one transaction at connect under an
//! advisory lock, so nodes starting together migrate once, in turn.
//!
//! Adding a table (issues 15, 16): append one migration here and the same
//! version to the SQLite list; a test keeps the two version numbers equal.

use crate::error::StoreError;

/// The schema version this build writes: the number of migrations.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Any fixed number: the advisory lock every node takes to migrate.
const MIGRATION_LOCK: i64 = 0x6d61_7a65_7261_6365; // "mazerace"

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only:
/// never edit one that has shipped.
pub const MIGRATIONS: &[&str] = &[
    // 1: salt, players, runs (as SQLite's version 1).
    r#"
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value BYTEA NOT NULL
    );

    -- A player is the SHA-256 (hex) of their reconnect token; never the token.
    CREATE TABLE players (
        key        TEXT PRIMARY KEY CHECK (length(key) = 64),
        name       TEXT NOT NULL,
        first_seen TIMESTAMPTZ NOT NULL DEFAULT now()
    );

    -- One row per daily attempt, ranked or practice. An identity column
    -- never hands out an id twice, so a replay link is never reused.
    CREATE TABLE runs (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        player     TEXT NOT NULL REFERENCES players (key),
        name       TEXT NOT NULL,
        date       TEXT NOT NULL CHECK (date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
        game       TEXT NOT NULL CHECK (game IN ('ghost', 'maze')),
        size       TEXT NOT NULL,
        -- u64 does not fit BIGINT: kept as decimal text, as in SQLite.
        seed       TEXT NOT NULL,
        ranked     BOOLEAN NOT NULL,
        state      TEXT NOT NULL DEFAULT 'playing'
                   CHECK (state IN ('playing', 'finished', 'not_finished')),
        steps      BIGINT NOT NULL DEFAULT 0 CHECK (steps >= 0),
        time_ms    BIGINT CHECK (time_ms >= 0),
        actions    TEXT NOT NULL DEFAULT '[]',
        started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        ended_at   TIMESTAMPTZ,
        CHECK ((state = 'finished') = (time_ms IS NOT NULL))
    );

    -- The rule: one ranked run per player per board, across every node.
    CREATE UNIQUE INDEX runs_one_ranked ON runs (player, date, game, size) WHERE ranked;
    -- Leaderboards, ranks and entrants.
    CREATE INDEX runs_board ON runs (date, game, size, ranked, state, steps, time_ms);
    -- Streaks.
    CREATE INDEX runs_player_days ON runs (player, date) WHERE ranked;
    "#,
    // 2 (issue 14): who serves a run, node leases, and per-action times.
    r#"
    ALTER TABLE runs ADD COLUMN node TEXT NOT NULL DEFAULT '-';
    ALTER TABLE runs ADD COLUMN boot TEXT NOT NULL DEFAULT '';
    -- JSON array: each action's ms since the run's first move (NULL: not kept).
    ALTER TABLE runs ADD COLUMN times TEXT;
    CREATE INDEX runs_open ON runs (node, boot) WHERE state = 'playing';

    -- One row per live process (boot), its lease in Unix ms.
    CREATE TABLE nodes (
        boot           TEXT PRIMARY KEY,
        node           TEXT NOT NULL,
        lease_until_ms BIGINT NOT NULL
    );

    -- Per-board counters, kept in the same transaction as the run they
    -- count, so a board of a million runs answers entrants and ranks from a
    -- few rows: ranked starts, in 16 shards so concurrent starts on one
    -- board rarely wait on one row lock, and ranked finishes per step count.
    CREATE TABLE board_entrants (
        date  TEXT NOT NULL,
        game  TEXT NOT NULL,
        size  TEXT NOT NULL,
        shard INTEGER NOT NULL,
        n     INTEGER NOT NULL,
        PRIMARY KEY (date, game, size, shard)
    );
    CREATE TABLE board_steps (
        date  TEXT NOT NULL,
        game  TEXT NOT NULL,
        size  TEXT NOT NULL,
        steps BIGINT NOT NULL,
        n     INTEGER NOT NULL,
        PRIMARY KEY (date, game, size, steps)
    );
    INSERT INTO board_entrants (date, game, size, shard, n)
        SELECT date, game, size, 0, COUNT(*) FROM runs WHERE ranked GROUP BY date, game, size;
    INSERT INTO board_steps (date, game, size, steps, n)
        SELECT date, game, size, steps, COUNT(*) FROM runs WHERE ranked AND state = 'finished'
        GROUP BY date, game, size, steps;
    "#,
    // 3 (issue 15): the per-address cap on ranked runs.
    r#"
    -- The keyed hash of the network address a run started from (NULL: not kept).
    ALTER TABLE runs ADD COLUMN address TEXT;
    CREATE INDEX runs_address ON runs (date, game, size, address) WHERE ranked AND address IS NOT NULL;
    "#,
    // 4 (issue 15): leagues, the daily among friends.
    r#"
    CREATE TABLE leagues (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        code       TEXT NOT NULL UNIQUE,
        name       TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    -- A member is a player key (the hash of their token), as in runs.
    CREATE TABLE league_members (
        league    BIGINT NOT NULL REFERENCES leagues (id),
        player    TEXT NOT NULL CHECK (length(player) = 64),
        name      TEXT NOT NULL,
        joined_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (league, player)
    );
    CREATE INDEX league_members_player ON league_members (player);
    "#,
    // 5: ranked finishes per step count in 16 shards, as board_entrants. A
    // finish holds its counter row's lock until its commit has flushed, so
    // players finishing with the same steps at once (the board's best is a
    // common score) took turns, one flush each (bench/RESULTS.md,
    // "board_steps in 16 shards"). A run counts in shard `id % 16`. A new
    // table, not a new key on board_steps: nodes of the previous build still
    // running during an upgrade keep counting there with the key their
    // statements name, and ranks sum both tables.
    r#"
    CREATE TABLE board_step_shards (
        date  TEXT NOT NULL,
        game  TEXT NOT NULL,
        size  TEXT NOT NULL,
        steps BIGINT NOT NULL,
        shard INTEGER NOT NULL,
        n     INTEGER NOT NULL,
        PRIMARY KEY (date, game, size, steps, shard)
    );
    "#,
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
    // A constant default: no table rewrite (PostgreSQL 11+).
    r#"
    ALTER TABLE runs ADD COLUMN at_floor BOOLEAN NOT NULL DEFAULT false;
    -- And who made a league (their player key): its owner, who may remove
    -- members while they are in it (NULL for older leagues: the
    -- longest-standing member owns those).
    ALTER TABLE leagues ADD COLUMN owner TEXT;
    "#,
    // 8 (issue 27): the mailbox of rooms moving off a draining node (`moves.rs`).
    // A row is posted by the draining boot, claimed by another boot
    // (`adopted_by`), answered with the room's new code and key, and kept
    // as the memory of the move (old code to new) until it is forgotten.
    r#"
    CREATE TABLE room_moves (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        from_boot  TEXT NOT NULL,
        old_code   TEXT NOT NULL,
        old_key    TEXT NOT NULL,
        payload    TEXT NOT NULL,
        posted_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        adopted_by TEXT,
        new_code   TEXT,
        new_key    TEXT
    );
    CREATE INDEX room_moves_waiting ON room_moves (id) WHERE adopted_by IS NULL;
    CREATE INDEX room_moves_old_code ON room_moves (old_code);
    "#,
    // 9 (issue 36): a game is a value the rules layer checks against the
    // registry in protocol/ (`Row::game`, on every read of a row), not a
    // list in the schema: adding a game is an entry there, not a
    // migration. Version 1's column check on `runs.game`, by the name
    // PostgreSQL gave it (`<table>_<column>_check`); dropping a check
    // rewrites nothing, and nodes of the previous build still running
    // write only the games it allowed.
    r#"
    ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_game_check;
    "#,
];

/// Bring the schema up to [`SCHEMA_VERSION`]; refuse a newer one.
pub(crate) async fn migrate(client: &mut deadpool_postgres::Object) -> Result<(), StoreError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )
    .await?;
    let current: i32 = tx
        .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[])
        .await?
        .try_get(0)
        .map_err(|e| StoreError::Corrupt(format!("schema version: {e}")))?;
    let current =
        u32::try_from(current).map_err(|_| StoreError::Corrupt(format!("schema version {current}")))?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew { found: current, known: SCHEMA_VERSION });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.batch_execute(sql).await?;
        let version = i32::try_from(i + 1).map_err(|_| StoreError::Corrupt("too many migrations".into()))?;
        tx.execute("INSERT INTO schema_migrations (version) VALUES ($1)", &[&version]).await?;
    }
    tx.commit().await?;
    Ok(())
}
