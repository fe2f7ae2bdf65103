//! Leagues on every backend (migration 4): create, join (idempotent),
//! the member and per-player limits, leave, and members' ranked runs only.

mod common;

use mazerace_protocol::Size;
use mazerace_store::league::{LeagueAnswer, LeagueRequest};
use mazerace_store::{Backend, NewRun, PlayerKey};

fn key(n: u32) -> String {
    PlayerKey::from_token(&format!("friend-{n}")).as_str().to_owned()
}

fn join(b: &mut dyn Backend, n: u32, code: &str, max_members: u32) -> LeagueAnswer {
    let req = LeagueRequest::Join {
        player: key(n),
        player_name: format!("F{n}"),
        code: code.into(),
        max_members,
        max_leagues: 2,
    };
    b.league(req).unwrap()
}

fn create(b: &mut dyn Backend, n: u32, code: &str) -> LeagueAnswer {
    let req = LeagueRequest::Create {
        player: key(n),
        player_name: format!("F{n}"),
        name: "<b>Club</b>".into(),
        code: code.into(),
        max_leagues: 2,
    };
    b.league(req).unwrap()
}

both!(fn leagues_are_made_joined_capped_and_left(db) {
    let mut b = db.open();
    let LeagueAnswer::League(l) = create(&mut *b, 1, "AAAA2222") else { panic!("made") };
    assert_eq!((l.name.as_str(), l.members), ("<b>Club</b>", 1), "markup is data");
    assert_eq!(create(&mut *b, 2, "AAAA2222"), LeagueAnswer::CodeTaken);
    assert!(matches!(join(&mut *b, 2, "AAAA2222", 3), LeagueAnswer::League(l) if l.members == 2));
    assert!(matches!(join(&mut *b, 2, "AAAA2222", 3), LeagueAnswer::League(l) if l.members == 2), "joining twice is one membership");
    assert!(matches!(join(&mut *b, 3, "AAAA2222", 3), LeagueAnswer::League(l) if l.members == 3));
    assert_eq!(join(&mut *b, 4, "AAAA2222", 3), LeagueAnswer::Full);
    assert_eq!(join(&mut *b, 4, "ZZZZ9999", 3), LeagueAnswer::NotFound);
    // Two leagues per player here: a third is refused, on create and on join.
    assert!(matches!(create(&mut *b, 1, "BBBB3333"), LeagueAnswer::League(_)));
    assert_eq!(create(&mut *b, 1, "CCCC4444"), LeagueAnswer::TooMany);
    assert!(matches!(create(&mut *b, 5, "CCCC4444"), LeagueAnswer::League(_)));
    assert_eq!(join(&mut *b, 1, "CCCC4444", 9), LeagueAnswer::TooMany);
    let LeagueAnswer::Leagues(mine) = b.league(LeagueRequest::Mine { player: key(1), name: None }).unwrap() else { panic!() };
    assert_eq!(mine.iter().map(|l| l.code.as_str()).collect::<Vec<_>>(), ["AAAA2222", "BBBB3333"]);
    // Listed under a new name (after a rename), the member is renamed in every league.
    let names = |b: &mut dyn Backend, code: &str| {
        let LeagueAnswer::Members(_, m) = b.league(LeagueRequest::Members { code: code.into() }).unwrap() else { panic!() };
        let mut names = m.into_iter().map(|m| m.name).collect::<Vec<_>>();
        names.sort(); // members who joined in the same second come in either order
        names
    };
    assert_eq!(names(&mut *b, "BBBB3333"), ["F1"]);
    b.league(LeagueRequest::Mine { player: key(1), name: Some("Annie".into()) }).unwrap();
    assert_eq!(names(&mut *b, "BBBB3333"), ["Annie"]);
    assert_eq!(names(&mut *b, "AAAA2222"), ["Annie", "F2", "F3"]);
    let leave = |b: &mut dyn Backend, n| b.league(LeagueRequest::Leave { player: key(n), code: "AAAA2222".into() }).unwrap();
    assert_eq!(leave(&mut *b, 3), LeagueAnswer::Left(true));
    assert_eq!(leave(&mut *b, 3), LeagueAnswer::Left(false));
    assert!(matches!(join(&mut *b, 4, "AAAA2222", 3), LeagueAnswer::League(l) if l.members == 3), "a place came free");
});

both!(fn a_league_sees_only_its_members_ranked_runs(db) {
    let mut b = db.open();
    create(&mut *b, 1, "DDDD5555");
    join(&mut *b, 2, "DDDD5555", 9);
    for (n, date) in [(1, "2026-12-01"), (2, "2026-12-01"), (1, "2026-12-01"), (3, "2026-12-01"), (2, "2026-11-01")] {
        let run = NewRun {
            player: PlayerKey::from_token(&format!("friend-{n}")),
            name: format!("F{n}"),
            date: date.into(),
            game: Size::Easy.game(),
            size: Size::Easy,
            seed: 1,
        };
        b.begin_run(&run).unwrap();
    }
    let req = LeagueRequest::Runs { code: "DDDD5555".into(), from: "2026-11-25".into(), to: "2026-12-01".into() };
    let LeagueAnswer::Runs(runs) = b.league(req).unwrap() else { panic!() };
    let who: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(who, ["F1", "F2"], "ranked runs only (not F1's practice), members only (not F3), in the window only");
    let LeagueAnswer::Members(l, members) = b.league(LeagueRequest::Members { code: "DDDD5555".into() }).unwrap() else {
        panic!()
    };
    assert_eq!((l.members, members.len()), (2, 2));
});
