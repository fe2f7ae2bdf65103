//! Which stored runs a player may see played: the one rule behind both the
//! replay view (`GET /api/daily/runs/{id}`) and racing a run as a rival
//! (`add_rival`). A run on today's board (or a later one) would spoil the
//! board for everyone, so only the player who made it sees it before the
//! day is over; every other run is public.
//!
//! Also here: finding the run `add_rival` names ([`rival`]), with the one
//! exception the race needs: today's #1, after the asker's own ranked try.

use mazerace_protocol::messages::ErrorCode;
use mazerace_store::{PlayerKey, RunState, Store, StoredRun};

use super::typed;
use crate::daily::{DailyError, RivalQuery, RivalRun};

/// A stored run as a player may see it.
pub(crate) enum Visible {
    NotFound,
    /// Another player's run on a board whose day is not over.
    Hidden,
    /// The run, and whether its day is still on (then it is the asker's
    /// own, and its seed stays secret).
    Run(Box<StoredRun>, bool),
}

/// Run `run_id` as the player with `token` (if any) may see it on `today`.
pub(crate) async fn visible(
    store: &Store,
    today: &str,
    run_id: i64,
    token: Option<&str>,
) -> anyhow::Result<Visible> {
    let Some(run) = store.run(run_id).await.map_err(typed)? else { return Ok(Visible::NotFound) };
    // Dates compare as strings: YYYY-MM-DD sorts by time.
    let day_on = *run.date >= *today;
    if day_on {
        let mine = match token {
            Some(t) => store.owns_run(run_id, PlayerKey::from_token(t)).await.map_err(typed)?,
            None => false,
        };
        if !mine {
            return Ok(Visible::Hidden);
        }
    }
    Ok(Visible::Run(Box::new(run), day_on))
}

fn denied(code: ErrorCode, message: &str) -> anyhow::Error {
    DailyError::Denied(code, message.into()).into()
}

/// The finished run `query` names, if `token`'s player may race it.
pub(crate) async fn rival(
    store: &Store,
    today: &str,
    query: RivalQuery,
    token: &str,
) -> anyhow::Result<RivalRun> {
    // The day's #1 is the one run of another player that may be raced on
    // today's board: once the asker's own ranked try on it is spent, it
    // spoils nothing (and the route is no secret: anyone can solve the
    // board), and it is what a finished daily is raced against.
    let (run_id, best_after_own_try) = match query {
        RivalQuery::Run(id) => (id, false),
        RivalQuery::Best { date, game, size } => {
            let table = store.leaderboard(date.clone(), game, size, None).await.map_err(typed)?;
            let Some(e) = table.entries.first() else {
                return Err(denied(ErrorCode::RivalNotFound, "nobody has finished this board yet"));
            };
            let you = PlayerKey::from_token(token);
            let tried = store.ranked_start(you, date, game, size).await.map_err(typed)?.is_some();
            (e.run_id, tried)
        }
        RivalQuery::Mine { date, game, size } => {
            let you = Some(PlayerKey::from_token(token));
            let table = store.leaderboard(date, game, size, you).await.map_err(typed)?;
            match table.you {
                Some(e) => (e.run_id, false),
                None => {
                    let why = "you have no finished ranked run on this board";
                    return Err(denied(ErrorCode::RivalNotFound, why));
                }
            }
        }
    };
    let run = match visible(store, today, run_id, Some(token)).await? {
        Visible::NotFound => return Err(denied(ErrorCode::RivalNotFound, "no such run")),
        Visible::Hidden if best_after_own_try => match store.run(run_id).await.map_err(typed)? {
            Some(run) => Box::new(run),
            None => return Err(denied(ErrorCode::RivalNotFound, "no such run")),
        },
        Visible::Hidden => {
            let why = "others' runs on today's boards can be raced from tomorrow (no spoilers), \
                       except the day's #1 once your own ranked try on the board is over";
            return Err(denied(ErrorCode::RivalHidden, why));
        }
        Visible::Run(run, _) => run,
    };
    let (RunState::Finished, Some(time_ms)) = (run.state, run.time_ms) else {
        return Err(denied(ErrorCode::RivalRefused, "that run did not finish, so it cannot be raced"));
    };
    let run = *run;
    Ok(RivalRun {
        run_id: run.id,
        date: run.date,
        game: run.game,
        size: run.size,
        seed: run.seed.0,
        name: run.name,
        steps: run.steps,
        time_ms,
        actions: run.actions,
        times_ms: run.times_ms,
    })
}
