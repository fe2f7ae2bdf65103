//! The two queries the web client needs (PROTOCOL-NEXT items 8 and 9): a
//! player's ranked try on a board, and their day across every board with
//! their streak. Both backends.

mod common;

use mazerace_protocol::{Game, Size};
use mazerace_store::{Backend, NewRun, Outcome, PlayerKey};

const DAY: &str = "2026-11-29";

fn start(b: &mut dyn Backend, player: &str, date: &str, size: Size) -> mazerace_store::BeginRun {
    let run = NewRun {
        player: PlayerKey::from_token(player),
        name: player.into(),
        date: date.into(),
        game: size.game(),
        size,
        seed: 5,
    };
    b.begin_run(&run).unwrap()
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
fn is_rfc3339_seconds(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 20
        && mazerace_protocol::daily::is_valid_date(&s[..10])
        && b[10] == b'T'
        && b[19] == b'Z'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && [11, 12, 14, 15, 17, 18].iter().all(|&i| b[i].is_ascii_digit())
}

both!(fn the_ranked_start_is_found_and_practice_is_not_it(db) {
    let mut b = db.open();
    let me = PlayerKey::from_token("me");
    assert_eq!(b.ranked_start(&me, DAY, Game::Ghost, Size::Small).unwrap(), None);
    let ranked = start(&mut *b, "me", DAY, Size::Small);
    let practice = start(&mut *b, "me", DAY, Size::Small);
    assert!(ranked.ranked && !practice.ranked);
    let found = b.ranked_start(&me, DAY, Game::Ghost, Size::Small).unwrap().unwrap();
    assert_eq!(found.run_id, ranked.run_id);
    assert!(is_rfc3339_seconds(&found.started_at), "{}", found.started_at);
    // Other boards and days are apart; a size of the other game is refused.
    assert_eq!(b.ranked_start(&me, DAY, Game::Ghost, Size::Medium).unwrap(), None);
    assert_eq!(b.ranked_start(&me, "2026-11-30", Game::Ghost, Size::Small).unwrap(), None);
    assert!(b.ranked_start(&me, DAY, Game::Maze, Size::Small).is_err());
});

both!(fn the_players_day_has_every_board_and_the_streak(db) {
    let mut b = db.open();
    let me = PlayerKey::from_token("me");
    start(&mut *b, "me", "2026-11-28", Size::Easy); // yesterday: the streak
    // Today: a finish ranked second of two, a run still playing, a did-not-finish.
    let rival = start(&mut *b, "rival", DAY, Size::Small);
    b.finish_run(rival.run_id, Outcome::Finished { steps: 14, time_ms: 9_000 }, &[], None).unwrap();
    let small = start(&mut *b, "me", DAY, Size::Small);
    b.finish_run(small.run_id, Outcome::Finished { steps: 16, time_ms: 42_000 }, &[], None).unwrap();
    let practice = start(&mut *b, "me", DAY, Size::Small);
    b.finish_run(practice.run_id, Outcome::Finished { steps: 1, time_ms: 1 }, &[], None).unwrap();
    let playing = start(&mut *b, "me", DAY, Size::Easy);
    let gave_up = start(&mut *b, "me", DAY, Size::Hard);
    b.finish_run(gave_up.run_id, Outcome::NotFinished { steps: 7 }, &[], None).unwrap();

    let day = b.player_day(&me, DAY).unwrap();
    assert_eq!(day.streak, 2);
    let sizes: Vec<Size> = day.boards.iter().map(|d| d.size).collect();
    assert_eq!(sizes, mazerace_store::daily::ALL_SIZES);
    let played: Vec<bool> = day.boards.iter().map(|d| d.played).collect();
    assert_eq!(played, [true, false, false, true, false, true]);

    let json = serde_json::to_value(&day).unwrap();
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
    let easy = day.boards[3].result.as_ref().unwrap();
    assert_eq!((easy.run_id, easy.finished, easy.steps, easy.rank), (playing.run_id, false, 0, None));
    let hard = day.boards[5].result.as_ref().unwrap();
    assert_eq!((hard.finished, hard.steps, hard.time_ms, hard.entrants), (false, 7, None, 1));
    // Someone who never played has six unplayed boards and no streak.
    let nobody = b.player_day(&PlayerKey::from_token("nobody"), DAY).unwrap();
    assert!(nobody.boards.iter().all(|d| !d.played) && nobody.streak == 0);
});
