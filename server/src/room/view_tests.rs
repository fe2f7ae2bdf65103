//! What racers are shown of each other: one colour per racer for the
//! room's life (issue 35), and the ghost `progress` carries in run two
//! (issue 37).

use mazerace_protocol::messages::PlayerId;
use mazerace_protocol::{Action, Board, Size};
use tokio::time::Instant;

use super::input::Input;
use super::state::Room;
use super::tests::{name, race, room};

/// Issue 35: colours differed per viewer (you were always blue), so "I'm
/// the orange one" failed. The room gives each racer one colour, in its one
/// `room` message every screen gets; a spectator has none; a place freed
/// by one who left is the next newcomer's, the others keep theirs.
#[test]
fn each_racer_has_one_colour_in_the_room_kept_while_they_stay() {
    let mut r = room(3);
    let colours = |r: &Room| -> Vec<(PlayerId, Option<u8>)> {
        r.room_info().players.iter().map(|p| (p.id, p.colour)).collect()
    };
    assert_eq!(colours(&r), [(1, Some(0)), (2, Some(1)), (3, Some(2))]);
    let t = Instant::now();
    r.handle(t, Input::Leave { id: 2, expired: false });
    r.check_join(4, true, 4).unwrap();
    r.handle(t, Input::Join { id: 4, name: name(4), token: "t4".into(), spectate: true, screen: false });
    r.check_join(5, false, 4).unwrap();
    r.handle(t, Input::Join { id: 5, name: name(5), token: "t5".into(), spectate: false, screen: false });
    assert_eq!(colours(&r), [(1, Some(0)), (3, Some(2)), (4, None), (5, Some(1))]);
    // A dropped connection keeps its colour.
    r.handle(t, Input::Disconnected { id: 3 });
    r.handle(t, Input::Connected { id: 3 });
    assert_eq!(colours(&r)[1], (3, Some(2)));
}
/// Issue 37: a screen draws each Ghost racer's ghost, so `progress` says
/// where it stands in run two (it replays the run one everyone watched).
#[test]
fn progress_carries_a_ghost_racers_ghost_in_run_two() {
    // A vault whose best line rewinds.
    let (b, line) = (1..200)
        .map(|seed| Board::build(Size::Small, seed).unwrap())
        .find_map(|b| {
            let line = b.answer().solution().to_vec();
            line.contains(&Action::Rewind).then_some((b, line))
        })
        .expect("a vault won by a rewind");
    let mut r = room(2);
    r.settings.board = b.clone();
    (r.settings.game, r.settings.size) = (b.game(), b.size());
    let t = race(&mut r, Instant::now());
    let me = |r: &Room| r.full_progress().into_iter().find(|p| p.id == 1).expect("racing");
    let rewind = line.iter().position(|a| *a == Action::Rewind).unwrap();
    for (seq, a) in line[..rewind].iter().enumerate() {
        r.handle(t, Input::Act { id: 1, seq: seq as u32, action: *a, at: t });
    }
    assert_eq!((me(&r).run, me(&r).ghost), (Some(1), None), "no ghost in run one");
    r.handle(t, Input::Act { id: 1, seq: rewind as u32, action: Action::Rewind, at: t });
    let p = me(&r);
    assert_eq!((p.run, p.ghost), (Some(2), Some(p.pos)), "run two: the ghost sets out with the racer");
    if let Some(a) = line.get(rewind + 1) {
        r.handle(t, Input::Act { id: 1, seq: rewind as u32 + 1, action: *a, at: t });
        assert!(me(&r).ghost.is_some(), "it walks on with them");
    }
}
