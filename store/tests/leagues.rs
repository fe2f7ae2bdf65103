//! Leagues on every backend (migration 4): create, join (idempotent),
//! the member and per-player limits, leave, and members' ranked runs only;
//! the per-address daily cap on making leagues (migration 6); the owner
//! removing a member.

mod common;

use common::day;
use mazerace_protocol::Size;
use mazerace_store::league::{member_tag, LeagueAnswer, LeagueRequest, MakerCap};
use mazerace_store::{NewRun, PlayerKey, Store};

fn key(n: u32) -> String {
    PlayerKey::from_token(&format!("friend-{n}")).as_str().to_owned()
}

async fn join(b: &Store, n: u32, code: &str, max_members: u32) -> LeagueAnswer {
    let req = LeagueRequest::Join {
        player: key(n),
        player_name: format!("F{n}"),
        code: code.into(),
        max_members,
        max_leagues: 2,
    };
    b.league(req).await.unwrap()
}

async fn create(b: &Store, n: u32, code: &str) -> LeagueAnswer {
    make(b, n, code, None).await
}

async fn make(b: &Store, n: u32, code: &str, cap: Option<MakerCap>) -> LeagueAnswer {
    let req = LeagueRequest::Create {
        player: key(n),
        player_name: format!("F{n}"),
        name: "<b>Club</b>".into(),
        code: code.into(),
        max_leagues: 2,
        cap,
    };
    b.league(req).await.unwrap()
}

both!(async fn only_the_longest_standing_member_removes_and_never_themself(db) {
    let b = db.store().await;
    create(&b, 1, "CCCC2222").await;
    join(&b, 2, "CCCC2222", 5).await;
    join(&b, 3, "CCCC2222", 5).await;
    let remove = |by: u32, whom: u32, code: &'static str| LeagueRequest::Remove {
        owner: key(by),
        code: code.into(),
        member: member_tag(code, &key(whom)),
    };
    assert_eq!(b.league(remove(2, 3, "CCCC2222")).await.unwrap(), LeagueAnswer::NotOwner, "a member is not the owner");
    assert_eq!(b.league(remove(1, 3, "ZZZZ2222")).await.unwrap(), LeagueAnswer::NotOwner, "no such league");
    assert_eq!(b.league(remove(1, 1, "CCCC2222")).await.unwrap(), LeagueAnswer::Removed(false), "not themself");
    assert_eq!(b.league(remove(1, 3, "CCCC2222")).await.unwrap(), LeagueAnswer::Removed(true));
    assert_eq!(b.league(remove(1, 3, "CCCC2222")).await.unwrap(), LeagueAnswer::Removed(false), "already gone");
    let members = b.league(LeagueRequest::Members { code: "CCCC2222".into() }).await.unwrap();
    let LeagueAnswer::Members(_, members) = members else { panic!("{members:?}") };
    assert_eq!(members.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["F1", "F2"]);
    // The maker leaves: the longest-standing member left owns the league
    // (an owner's answer: nobody by that tag, not `NotOwner`).
    b.league(LeagueRequest::Leave { player: key(1), code: "CCCC2222".into() }).await.unwrap();
    assert_eq!(b.league(remove(2, 1, "CCCC2222")).await.unwrap(), LeagueAnswer::Removed(false));
});

both!(async fn leagues_are_made_joined_capped_and_left(db) {
    let b = db.store().await;
    let LeagueAnswer::League(l) = create(&b, 1, "AAAA2222").await else { panic!("made") };
    assert_eq!((l.name.as_str(), l.members), ("<b>Club</b>", 1), "markup is data");
    assert_eq!(create(&b, 2, "AAAA2222").await, LeagueAnswer::CodeTaken);
    assert!(matches!(join(&b, 2, "AAAA2222", 3).await, LeagueAnswer::League(l) if l.members == 2));
    assert!(matches!(join(&b, 2, "AAAA2222", 3).await, LeagueAnswer::League(l) if l.members == 2), "joining twice is one membership");
    assert!(matches!(join(&b, 3, "AAAA2222", 3).await, LeagueAnswer::League(l) if l.members == 3));
    assert_eq!(join(&b, 4, "AAAA2222", 3).await, LeagueAnswer::Full);
    assert_eq!(join(&b, 4, "ZZZZ9999", 3).await, LeagueAnswer::NotFound);
    // Two leagues per player here: a third is refused, on create and on join.
    assert!(matches!(create(&b, 1, "BBBB3333").await, LeagueAnswer::League(_)));
    assert_eq!(create(&b, 1, "CCCC4444").await, LeagueAnswer::TooMany);
    assert!(matches!(create(&b, 5, "CCCC4444").await, LeagueAnswer::League(_)));
    assert_eq!(join(&b, 1, "CCCC4444", 9).await, LeagueAnswer::TooMany);
    let LeagueAnswer::Leagues(mine) = b.league(LeagueRequest::Mine { player: key(1), name: None }).await.unwrap() else { panic!() };
    assert_eq!(mine.iter().map(|l| l.code.as_str()).collect::<Vec<_>>(), ["AAAA2222", "BBBB3333"]);
    // Listed under a new name (after a rename), the member is renamed in every league.
    let names = |code: &'static str| {
        let b = b.clone();
        async move {
            let LeagueAnswer::Members(_, m) = b.league(LeagueRequest::Members { code: code.into() }).await.unwrap() else { panic!() };
            let mut names = m.into_iter().map(|m| m.name).collect::<Vec<_>>();
            names.sort(); // members who joined in the same second come in either order
            names
        }
    };
    assert_eq!(names("BBBB3333").await, ["F1"]);
    b.league(LeagueRequest::Mine { player: key(1), name: Some("Annie".into()) }).await.unwrap();
    assert_eq!(names("BBBB3333").await, ["Annie"]);
    assert_eq!(names("AAAA2222").await, ["Annie", "F2", "F3"]);
    let leave = |n| b.league(LeagueRequest::Leave { player: key(n), code: "AAAA2222".into() });
    assert_eq!(leave(3).await.unwrap(), LeagueAnswer::Left(true));
    assert_eq!(leave(3).await.unwrap(), LeagueAnswer::Left(false));
    assert!(matches!(join(&b, 4, "AAAA2222", 3).await, LeagueAnswer::League(l) if l.members == 3), "a place came free");
});

both!(async fn a_league_sees_only_its_members_ranked_runs(db) {
    let b = db.store().await;
    create(&b, 1, "DDDD5555").await;
    join(&b, 2, "DDDD5555", 9).await;
    for (n, date) in [(1, "2026-12-01"), (2, "2026-12-01"), (1, "2026-12-01"), (3, "2026-12-01"), (2, "2026-11-01")] {
        let run = NewRun {
            player: PlayerKey::from_token(&format!("friend-{n}")),
            name: format!("F{n}"),
            date: day(date),
            game: Size::Easy.game(),
            size: Size::Easy,
            seed: 1,
        };
        b.begin_run(run).await.unwrap();
    }
    let req = LeagueRequest::Runs { code: "DDDD5555".into(), from: day("2026-11-25"), to: day("2026-12-01") };
    let LeagueAnswer::Runs(runs) = b.league(req).await.unwrap() else { panic!() };
    let who: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(who, ["F1", "F2"], "ranked runs only (not F1's practice), members only (not F3), in the window only");
    let LeagueAnswer::Members(l, members) = b.league(LeagueRequest::Members { code: "DDDD5555".into() }).await.unwrap() else {
        panic!()
    };
    assert_eq!((l.members, members.len()), (2, 2));
    // The view a league's tables are made from: members, runs and streaks at once.
    let view = b.league_view("DDDD5555".into(), day("2026-11-25"), day("2026-12-01")).await.unwrap().unwrap();
    assert_eq!((view.members.len(), view.runs.len()), (2, 2));
    assert!(view.streaks.iter().all(|(_, s)| *s == 1), "{:?}", view.streaks);
    assert!(b.league_view("ZZZZ9999".into(), day("2026-11-25"), day("2026-12-01")).await.unwrap().is_none());
});

both!(async fn an_address_makes_its_daily_cap_of_leagues_then_none_until_the_next_day(db) {
    let b = db.store().await;
    let cap = |address: &str, date: &str| Some(MakerCap { address: address.into(), day: day(date), limit: 3 });
    let codes = ["EEEE2222", "EEEE3333", "EEEE4444", "EEEE5555", "EEEE6666", "EEEE7777"];
    // Three makers (each under their own per-player cap) behind one address.
    for (i, code) in codes[..3].iter().enumerate() {
        let made = make(&b, 10 + i as u32, code, cap("addr-a", "2026-12-01")).await;
        assert!(matches!(made, LeagueAnswer::League(_)), "{i}: {made:?}");
    }
    assert_eq!(make(&b, 13, codes[3], cap("addr-a", "2026-12-01")).await, LeagueAnswer::AddressCap);
    // Another address, and the same one the next day, are not held.
    assert!(matches!(make(&b, 13, codes[3], cap("addr-b", "2026-12-01")).await, LeagueAnswer::League(_)));
    assert!(matches!(make(&b, 14, codes[4], cap("addr-a", "2026-12-02")).await, LeagueAnswer::League(_)));
    // A refused make left nothing behind: its code is free.
    assert!(matches!(join(&b, 15, codes[5], 9).await, LeagueAnswer::NotFound));
});

both!(async fn only_the_owner_gives_a_league_a_new_code_and_the_old_one_is_gone(db) {
    let b = db.store().await;
    create(&b, 1, "EEEE2222").await;
    join(&b, 2, "EEEE2222", 5).await;
    create(&b, 3, "FFFF3333").await;
    let new_code = |by: u32, code: &str, new_code: &str| LeagueRequest::NewCode {
        owner: key(by),
        code: code.into(),
        new_code: new_code.into(),
    };
    assert_eq!(b.league(new_code(2, "EEEE2222", "GGGG4444")).await.unwrap(), LeagueAnswer::NotOwner, "a member is not the owner");
    assert_eq!(b.league(new_code(1, "ZZZZ2222", "GGGG4444")).await.unwrap(), LeagueAnswer::NotOwner, "no such league");
    assert_eq!(b.league(new_code(1, "EEEE2222", "FFFF3333")).await.unwrap(), LeagueAnswer::CodeTaken, "another league's");
    let LeagueAnswer::League(l) = b.league(new_code(1, "EEEE2222", "GGGG4444")).await.unwrap() else { panic!("a new code") };
    assert_eq!((l.code.as_str(), l.name.as_str(), l.members), ("GGGG4444", "<b>Club</b>", 2));
    // The old code names nothing now: a join with it is a miss.
    assert_eq!(join(&b, 4, "EEEE2222", 5).await, LeagueAnswer::NotFound);
    assert!(matches!(join(&b, 4, "GGGG4444", 5).await, LeagueAnswer::League(l) if l.members == 3));
    // Members keep their league (and find its new code in theirs).
    let LeagueAnswer::Leagues(mine) = b.league(LeagueRequest::Mine { player: key(2), name: None }).await.unwrap() else { panic!() };
    assert_eq!(mine.iter().map(|l| l.code.as_str()).collect::<Vec<_>>(), ["GGGG4444"]);
    let LeagueAnswer::Members(_, members) = b.league(LeagueRequest::Members { code: "GGGG4444".into() }).await.unwrap() else { panic!() };
    assert_eq!(members.first().map(|m| m.player.clone()), Some(key(1)), "the owner is still the owner");
});
