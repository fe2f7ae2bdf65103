//! The two queries the web client needs (PROTOCOL-NEXT items 8 and 9): a
//! player's ranked try on a board, and their day across every board with
//! their streak. Both backends.

mod common;

use common::day;
use mazerace_protocol::{Game, Size};
use mazerace_store::{NewRun, Outcome, PlayerKey, Store};

const DAY: &str = "2026-11-29";

async fn start(b: &Store, player: &str, date: &str, size: Size) -> mazerace_store::BeginRun {
    let run = NewRun {
        player: PlayerKey::from_token(player),
        name: player.into(),
        date: day(date),
        game: size.game(),
        size,
        seed: 5,
    };
    b.begin_run(run).await.unwrap()
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
fn is_rfc3339_seconds(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 20
        && s[..10].parse::<mazerace_protocol::daily::DailyDate>().is_ok()
        && b[10] == b'T'
        && b[19] == b'Z'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && [11, 12, 14, 15, 17, 18].iter().all(|&i| b[i].is_ascii_digit())
}

both!(async fn the_ranked_run_is_found_and_practice_is_not_it(db) {
    let b = db.store().await;
    let me = || PlayerKey::from_token("me");
    assert_eq!(b.ranked_run(me(), day(DAY), Game::Ghost, Size::Small).await.unwrap(), None);
    let ranked = start(&b, "me", DAY, Size::Small).await;
    let practice = start(&b, "me", DAY, Size::Small).await;
    assert!(ranked.ranked && !practice.ranked);
    let found = b.ranked_run(me(), day(DAY), Game::Ghost, Size::Small).await.unwrap().unwrap();
    assert_eq!(found.run_id, ranked.run_id);
    assert!(is_rfc3339_seconds(&found.started_at), "{}", found.started_at);
    // Other boards and days are apart; a size of the other game is refused.
    assert_eq!(b.ranked_run(me(), day(DAY), Game::Ghost, Size::Medium).await.unwrap(), None);
    assert_eq!(b.ranked_run(me(), day("2026-11-30"), Game::Ghost, Size::Small).await.unwrap(), None);
    assert!(b.ranked_run(me(), day(DAY), Game::Maze, Size::Small).await.is_err());
});

both!(async fn the_players_day_has_every_board_and_the_streak(db) {
    let b = db.store().await;
    let me = || PlayerKey::from_token("me");
    start(&b, "me", "2026-11-28", Size::Easy).await; // yesterday: the streak
    // Today: a finish ranked second of two, a run still playing, a did-not-finish.
    let rival = start(&b, "rival", DAY, Size::Small).await;
    b.finish_run(rival.run_id, Outcome::Finished { steps: 14, time_ms: 9_000, at_floor: false }, vec![], None).await.unwrap();
    let small = start(&b, "me", DAY, Size::Small).await;
    b.finish_run(small.run_id, Outcome::Finished { steps: 16, time_ms: 42_000, at_floor: false }, vec![], None).await.unwrap();
    let practice = start(&b, "me", DAY, Size::Small).await;
    b.finish_run(practice.run_id, Outcome::Finished { steps: 1, time_ms: 1, at_floor: false }, vec![], None).await.unwrap();
    let playing = start(&b, "me", DAY, Size::Easy).await;
    let gave_up = start(&b, "me", DAY, Size::Hard).await;
    b.finish_run(gave_up.run_id, Outcome::NotFinished { steps: 7 }, vec![], None).await.unwrap();

    let player_day = b.player_day(me(), day(DAY)).await.unwrap();
    assert_eq!(player_day.streak, 2);
    let sizes: Vec<Size> = player_day.boards.iter().map(|d| d.size).collect();
    assert_eq!(sizes, Size::ALL);
    let played: Vec<bool> = player_day.boards.iter().map(|d| d.played).collect();
    assert_eq!(played, [true, false, false, true, false, true]);

    let json = serde_json::to_value(&player_day).unwrap();
    let small_json = &json["boards"][0];
    let at = small_json["at"].as_str().unwrap().to_owned();
    assert!(is_rfc3339_seconds(&at), "{at}");
    assert_eq!(
        small_json,
        &serde_json::json!({"game": "ghost", "size": "small", "played": true, "finished": true,
            "steps": 16, "time_ms": 42000, "rank": 2, "entrants": 2, "run_id": small.run_id, "at": at})
    );
    assert_eq!(json["boards"][1], serde_json::json!({"game": "ghost", "size": "medium", "played": false}));
    assert_eq!(json["streak"], 2);
    let easy = player_day.boards[3].result.as_ref().unwrap();
    assert_eq!((easy.run_id, easy.finished, easy.steps, easy.rank), (playing.run_id, false, 0, None));
    let hard = player_day.boards[5].result.as_ref().unwrap();
    assert_eq!((hard.finished, hard.steps, hard.time_ms, hard.entrants), (false, 7, None, 1));
    // Someone who never played has six unplayed boards and no streak.
    let nobody = b.player_day(PlayerKey::from_token("nobody"), day(DAY)).await.unwrap();
    assert!(nobody.boards.iter().all(|d| !d.played) && nobody.streak == 0);
});
