//! The case: what the three players do (steps of ops), and the proptest
//! strategies that draw it. Their order and shapes are what the seeds in
//! `tests/proptest-regressions/fuzz_room.txt` replay: change them and the
//! kept cases mean something else.

use crate::*;

/// One thing a player does.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A well-formed message.
    Send(ClientMsg),
    /// Any text frame (garbage, half-broken JSON, or valid by chance).
    Text(String),
    Binary(Vec<u8>),
    /// A frame over the size limit (closes with 1009).
    Oversize {
        len: usize,
        binary: bool,
    },
    /// `join_room` with a code seen in this case (maybe of a room that ended).
    Join {
        slot: usize,
        spectate: bool,
        sloppy: bool,
    },
    /// Several actions without waiting for the answers.
    Burst {
        actions: Vec<Action>,
        seq: u32,
    },
    /// The rest of the way to the goal (the maze route, or the Ghost
    /// solution from a fresh start) as one burst.
    Solve,
    /// A WebSocket-level ping (answered by the library, not the app).
    WsPing(Vec<u8>),
    /// Drop the socket (with or without a close frame); the next op resumes.
    Drop {
        clean: bool,
    },
    /// Resume on a second connection while the first is still open.
    Takeover,
    /// A new identity on a new connection (the old session stays behind,
    /// disconnected), after some junk before `hello` and maybe a bad name.
    Fresh {
        junk: Option<String>,
        bad_name: Option<String>,
    },
}

#[derive(Clone, Debug)]
pub(crate) enum Step {
    One(usize, Op),
    /// Several players send at once, then each reads its answer.
    Together(Vec<(usize, Op)>),
}

#[derive(Clone, Debug)]
pub(crate) struct Case {
    pub(crate) size: Size,
    pub(crate) seed: u64,
    /// 0: `start` goes straight to the race; else a countdown that outlasts the case.
    pub(crate) countdown: u32,
    /// Whether the third player joins as a spectator.
    pub(crate) spectator: bool,
    pub(crate) names: [String; 3],
    pub(crate) steps: Vec<Step>,
}

pub(crate) fn dir() -> impl Strategy<Value = Dir> {
    prop::sample::select(Dir::ALL.to_vec())
}

pub(crate) fn action() -> impl Strategy<Value = Action> {
    prop_oneof![8 => dir().prop_map(Action::Move), 1 => Just(Action::Rewind)]
}

pub(crate) fn size() -> impl Strategy<Value = Size> {
    prop::sample::select(vec![Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard])
}

pub(crate) fn game() -> impl Strategy<Value = Game> {
    prop::sample::select(vec![Game::Ghost, Game::Maze])
}

/// Names: fine ones, hostile but valid ones, and invalid ones.
pub(crate) fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z ]{1,10}",
        2 => prop::sample::select(vec![
            "<img src=x onerror=1>".to_owned(),
            "&amp;<b>Bob</b>".to_owned(),
            "مرحبا Ann".to_owned(),
            "🙂🙃🙂🙃".to_owned(),
            "x".repeat(24),
            "é".repeat(24),
            "'; DROP TABLE runs; --".to_owned(),
        ]),
        1 => ".{0,30}",
        1 => prop::sample::select(vec![
            String::new(),
            "   ".to_owned(),
            "x".repeat(25),
            "a\u{202E}b".to_owned(),
            "a\u{2066}b".to_owned(),
            "nul\u{0}".to_owned(),
            "line\nbreak".to_owned(),
            "y".repeat(3000),
        ]),
    ]
}

/// Room codes as a client might type them, or not.
pub(crate) fn code_text() -> impl Strategy<Value = String> {
    prop_oneof!["[A-Z2-9]{5}", "[a-z0-9 ]{0,8}", ".{0,12}", Just("x".repeat(3000)), Just("0O1IL".to_owned()),]
}

/// A match's settings: any length it may have, any plan.
pub(crate) fn match_settings() -> impl Strategy<Value = MatchSettings> {
    (
        prop::sample::select(Rounds::ALL.to_vec()),
        prop::sample::select(vec![Plan::Same, Plan::Alternate, Plan::Harder]),
    )
        .prop_map(|(rounds, plan)| MatchSettings { rounds, plan })
}

pub(crate) fn client_msg() -> impl Strategy<Value = ClientMsg> {
    let create = (
        game(),
        size(),
        prop::option::weighted(0.3, any::<u64>().prop_map(Seed)),
        prop::option::of(prop::sample::select(vec![RankBy::Time, RankBy::Steps])),
        prop::option::weighted(0.3, prop_oneof![0u32..5, Just(u32::MAX)]),
        prop::bool::weighted(0.1),
        prop::option::weighted(0.2, match_settings()),
    )
        .prop_map(|(game, size, seed, rank_by, max_players, daily, format)| ClientMsg::CreateRoom {
            game,
            size,
            seed,
            rank_by,
            max_players,
            daily,
            format,
            replaces: None,
            party: false,
        });
    prop_oneof![
        12 => (dir(), any::<u32>()).prop_map(|(dir, seq)| ClientMsg::Move { dir, seq }),
        2 => any::<u32>().prop_map(|seq| ClientMsg::Rewind { seq }),
        3 => any::<bool>().prop_map(|ready| ClientMsg::Ready { ready }),
        4 => Just(ClientMsg::Start {}),
        3 => Just(ClientMsg::Rematch { same_board: false }),
        3 => Just(ClientMsg::LeaveRoom {}),
        1 => Just(ClientMsg::Ping {}),
        1 => (prop::option::of(any::<i64>()), prop::option::of(prop::sample::select(vec![RivalPick::Best, RivalPick::Mine])))
            .prop_map(|(run_id, pick)| ClientMsg::AddRival { run_id, pick }),
        1 => any::<u32>().prop_map(|id| ClientMsg::RemoveRival { id }),
        1 => (name(), prop::option::of("[0-9a-f]{32}"))
            .prop_map(|(name, token)| ClientMsg::Hello { name, token }),
        2 => create,
        1 => (code_text(), any::<bool>()).prop_map(|(code, spectate)| ClientMsg::JoinRoom { code, spectate, key: None, screen: false }),
        // Matches: the host's choice in the lobby, and the intermission's hold and go.
        2 => prop::option::weighted(0.8, match_settings()).prop_map(|format| ClientMsg::SetMatch { format }),
        1 => Just(ClientMsg::Hold {}),
        3 => Just(ClientMsg::NextRound {}),
        // Any real date (a bad one cannot be a `ClientMsg`: text frames send those).
        1 => (game(), size(), prop::option::of(0i64..40_000))
            .prop_map(|(game, size, day)| ClientMsg::Leaderboard {
                game,
                size,
                date: day.and_then(mazerace_protocol::daily::DailyDate::from_day_number),
            }),
    ]
}

/// Text frames: noise, and our own messages broken in the ways JSON breaks.
pub(crate) fn garbage() -> impl Strategy<Value = String> {
    let mutated = (client_msg(), 0usize..8, any::<prop::sample::Index>(), any::<char>()).prop_map(
        |(m, how, at, ch)| {
            let s = serde_json::to_string(&m).unwrap_or_default();
            let cut = |s: &str| {
                let i = at.index(s.len() + 1);
                (0..=i).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
            };
            match how {
                0 => s[..cut(&s)].to_owned(),
                1 => {
                    let i = cut(&s);
                    format!("{}{ch}{}", &s[..i], &s[i..])
                }
                2 => format!("{},\"extra\":{{}}}}", s.trim_end_matches('}')),
                3 => format!("[{s}]"),
                4 => s
                    .replace("\"seq\":", "\"seq\":-1,\"x\":")
                    .replace("\"ready\":", "\"ready\":\"yes\",\"y\":"),
                5 => s.replacen("\"type\":\"", "\"type\":\"X", 1),
                6 => format!(
                    "{{\"type\":\"move\",\"dir\":\"up\",\"seq\":{}{}}}",
                    "[".repeat(200),
                    "]".repeat(200)
                ),
                _ => s.replace("\"seq\":", "\"seq\":4294967296,\"z\":"),
            }
        },
    );
    prop_oneof![
        3 => mutated,
        1 => ".{0,64}",
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => prop::sample::select(vec![
            String::new(),
            "null".to_owned(),
            "{}".to_owned(),
            "{\"type\":null}".to_owned(),
            "{\"type\":\"move\",\"dir\":\"up\",\"seq\":1.5}".to_owned(),
            "{\"type\":\"create_room\",\"game\":\"maze\",\"size\":\"easy\",\"seed\":\"-1\"}".to_owned(),
            "{\"type\":\"create_room\",\"game\":\"maze\",\"size\":\"easy\",\"seed\":\"18446744073709551616\"}"
                .to_owned(),
            "{\"type\":\"hello\",\"name\":\"\\ud800\"}".to_owned(),
            "{\"type\":\"ping\",\"type\":\"ping\"}".to_owned(),
            format!("{{\"type\":\"join_room\",\"code\":\"{}\"}}", "Z".repeat(MAX_MESSAGE - 40)),
        ]),
    ]
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        40 => client_msg().prop_map(Op::Send),
        6 => (prop::collection::vec(action(), 1..12), any::<u32>())
            .prop_map(|(actions, seq)| Op::Burst { actions, seq }),
        6 => Just(Op::Solve),
        5 => (any::<usize>(), prop::bool::weighted(0.2), any::<bool>())
            .prop_map(|(slot, spectate, sloppy)| Op::Join { slot, spectate, sloppy }),
        6 => garbage().prop_map(Op::Text),
        2 => prop::collection::vec(any::<u8>(), 0..100).prop_map(Op::Binary),
        1 => (MAX_MESSAGE + 1..MAX_MESSAGE * 2, any::<bool>())
            .prop_map(|(len, binary)| Op::Oversize { len, binary }),
        1 => prop::collection::vec(any::<u8>(), 0..16).prop_map(Op::WsPing),
        2 => any::<bool>().prop_map(|clean| Op::Drop { clean }),
        1 => Just(Op::Takeover),
        1 => (prop::option::of(garbage()), prop::option::weighted(0.3, name()))
            .prop_map(|(junk, bad_name)| Op::Fresh { junk, bad_name }),
    ]
}

/// What may go in a `Together` step: ops whose answers cannot be mistaken
/// for each other, and at most one that changes the room (`ready`/`start`).
pub(crate) fn quiet_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (dir(), any::<u32>()).prop_map(|(dir, seq)| Op::Send(ClientMsg::Move { dir, seq })),
        1 => any::<u32>().prop_map(|seq| Op::Send(ClientMsg::Rewind { seq })),
        2 => (prop::collection::vec(action(), 1..8), any::<u32>())
            .prop_map(|(actions, seq)| Op::Burst { actions, seq }),
        2 => Just(Op::Solve),
        1 => Just(Op::Send(ClientMsg::Ping {})),
        1 => garbage().prop_map(Op::Text),
        1 => prop::collection::vec(any::<u8>(), 0..8).prop_map(Op::Binary),
        1 => name().prop_map(|name| Op::Send(ClientMsg::Hello { name, token: None })),
    ]
}

pub(crate) fn step() -> impl Strategy<Value = Step> {
    let together = (
        prop::collection::vec(prop::option::weighted(0.8, quiet_op()), 3),
        prop::option::of((
            0usize..3,
            prop_oneof![
                Just(ClientMsg::Start {}),
                any::<bool>().prop_map(|ready| ClientMsg::Ready { ready })
            ],
        )),
    )
        .prop_map(|(quiet, loud)| {
            let mut ops: Vec<(usize, Op)> =
                quiet.into_iter().enumerate().filter_map(|(who, op)| op.map(|op| (who, op))).collect();
            if let Some((who, m)) = loud {
                ops.retain(|(w, _)| *w != who);
                ops.push((who, Op::Send(m)));
            }
            Step::Together(ops)
        });
    prop_oneof![9 => (0usize..3, op()).prop_map(|(who, op)| Step::One(who, op)), 2 => together]
}

pub(crate) fn case() -> impl Strategy<Value = Case> {
    (
        size(),
        0u64..2000,
        prop_oneof![3 => Just(0u32), 1 => Just(3u32)],
        prop::bool::weighted(0.25),
        ["[A-Za-z]{1,8}", "[A-Za-z]{1,8}|<b>x</b>|مرحبا", "[A-Za-z]{1,8}|🙂"],
        prop::collection::vec(step(), 1..40),
    )
        .prop_map(|(size, seed, countdown, spectator, names, steps)| Case {
            size,
            seed,
            countdown,
            spectator,
            names,
            steps,
        })
}
