//! Which stored runs a player may see played: the one rule behind both the
//! replay view (`GET /api/daily/runs/{id}`) and racing a run as a rival
//! (`add_rival`). A run on a board whose day is on ([`secrecy::day_is_on`])
//! would spoil the board for everyone, so only the player who made it sees
//! it before the day is over; every other run is public.
//!
//! Also here: finding the run `add_rival` names ([`rival`]), with the one
//! exception the race needs: today's #1, after the asker's own ranked try.

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::ErrorCode;
use mazerace_protocol::Board;
use mazerace_store::{PlayerKey, RunState, Store, StoredRun};

use super::error::DailyError;
use super::seam::{Replay, RivalQuery, RivalRun};
use super::secrecy;

/// A stored run as a player may see it.
enum Visible {
    NotFound,
    /// Another player's run on a board whose day is not over.
    Hidden,
    /// The run, and whether its day is still on (then it is the asker's
    /// own, and its seed stays secret).
    Run(Box<StoredRun>, bool),
}

/// Run `run_id` as the player with `token` (if any) may see it on `today`.
async fn visible(
    store: &Store,
    today: DailyDate,
    run_id: i64,
    token: Option<&str>,
) -> Result<Visible, DailyError> {
    let Some(run) = store.run(run_id).await? else { return Ok(Visible::NotFound) };
    let day_on = secrecy::day_is_on(run.date, today);
    if day_on {
        let mine = match token {
            Some(t) => store.owns_run(run_id, PlayerKey::from_token(t)).await?,
            None => false,
        };
        if !mine {
            return Ok(Visible::Hidden);
        }
    }
    Ok(Visible::Run(Box::new(run), day_on))
}

/// The replay view's answer: the stored run as JSON with the public board
/// to replay it on. The player's own run on today's board comes without
/// the seed: it stays secret until the day is over, like the room's board.
/// A run is written once more after its start, when it ends (the store
/// refuses a second ending), so once its day is over and it is no longer
/// `playing` the answer is the same for everyone for good: `settled`.
pub(crate) async fn replay(
    store: &Store,
    today: DailyDate,
    run_id: i64,
    token: Option<&str>,
) -> Result<Replay, DailyError> {
    let (run, day_on) = match visible(store, today, run_id, token).await? {
        Visible::NotFound => return Ok(Replay::NotFound),
        Visible::Hidden => return Ok(Replay::Hidden),
        Visible::Run(run, day_on) => (run, day_on),
    };
    let settled = !day_on && run.state != RunState::Playing;
    let built = Board::build(run.size, run.seed.0).map_err(|e| DailyError::Internal(Box::new(e)))?;
    let board = if day_on { built.public_hidden() } else { built.public() };
    let json = |e: serde_json::Error| DailyError::Internal(Box::new(e));
    let mut out = serde_json::to_value(&run).map_err(json)?;
    if let Some(obj) = out.as_object_mut() {
        if day_on {
            obj.remove("seed");
        }
        obj.insert("board".into(), serde_json::to_value(board).map_err(json)?);
    }
    Ok(Replay::Run { body: out, settled })
}

fn denied(code: ErrorCode, message: &str) -> DailyError {
    DailyError::denied(code, message)
}

/// The finished run `query` names, if `token`'s player may race it.
pub(crate) async fn rival(
    store: &Store,
    today: DailyDate,
    query: RivalQuery,
    token: &str,
) -> Result<RivalRun, DailyError> {
    // The day's #1 is the one run of another player that may be raced on
    // today's board: once the asker's own ranked try on it is spent, it
    // spoils nothing (and the route is no secret: anyone can solve the
    // board), and it is what a finished daily is raced against.
    let (run_id, best_after_own_try) = match query {
        RivalQuery::Run(id) => (id, false),
        RivalQuery::Best { date, game, size } => {
            let table = store.leaderboard(date, game, size, None).await?;
            let Some(e) = table.entries.first() else {
                return Err(denied(ErrorCode::RivalNotFound, "nobody has finished this board yet"));
            };
            let you = PlayerKey::from_token(token);
            let tried = store.ranked_run(you, date, game, size).await?.is_some();
            (e.run_id, tried)
        }
        RivalQuery::Mine { date, game, size } => {
            let you = Some(PlayerKey::from_token(token));
            let table = store.leaderboard(date, game, size, you).await?;
            match table.you {
                Some(e) => (e.run_id, false),
                None => {
                    return Err(denied(
                        ErrorCode::RivalNotFound,
                        "you have no finished ranked run on this board",
                    ))
                }
            }
        }
    };
    let run = match visible(store, today, run_id, Some(token)).await? {
        Visible::NotFound => return Err(denied(ErrorCode::RivalNotFound, "no such run")),
        Visible::Hidden if best_after_own_try => match store.run(run_id).await? {
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
