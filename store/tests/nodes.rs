//! Several nodes on one database: a starting node closes only its own open
//! runs; a node that died has its open runs closed once its lease runs out
//! (an injected clock moves time); live nodes keep theirs. Both backends.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::day;
use mazerace_protocol::Size;
use mazerace_store::{FixedClock, NewRun, NodeOptions, Outcome, PlayerKey, RunState, Store};

const DAY: &str = "2026-11-29";
/// 2026-11-29T12:00Z.
const NOON: u64 = 1_795_910_400_000 + 12 * 3_600_000;
const LEASE: Duration = Duration::from_secs(60);

fn new_run(player: u32) -> NewRun {
    NewRun {
        player: PlayerKey::from_token(&format!("token-{player}")),
        name: format!("P{player}"),
        date: day(DAY),
        game: Size::Small.game(),
        size: Size::Small,
        seed: 42,
    }
}

fn node(id: Option<char>, clock: &Arc<FixedClock>) -> NodeOptions {
    NodeOptions { node_id: id, lease: LEASE, clock: Arc::clone(clock) as _ }
}

async fn state(s: &Store, run_id: i64) -> RunState {
    s.run(run_id).await.unwrap().unwrap().state
}

both!(async fn runs_record_their_node_and_boot(db) {
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let anon = db.store_as(node(None, &clock)).await;
    let a = db.store_as(node(Some('a'), &clock)).await;
    let a_again = db.store_as(node(Some('a'), &clock)).await;
    for (s, p) in [(&anon, 1), (&a, 2), (&a_again, 3)] {
        s.begin_run(new_run(p)).await.unwrap();
    }
    let rows = db.strings("SELECT node || ' ' || boot FROM runs ORDER BY id");
    let (nodes, boots): (Vec<&str>, Vec<&str>) = rows.iter().filter_map(|r| r.split_once(' ')).unzip();
    assert_eq!(nodes, ["-", "a", "a"], "no node id is the one anonymous node");
    assert!(boots.iter().all(|b| b.len() == 16), "{boots:?}");
    assert_ne!(boots[1], boots[2], "each process start has its own boot id");
    // Every open store holds a lease.
    assert_eq!(db.strings("SELECT boot FROM nodes").len(), 3);
});

both!(async fn a_starting_node_closes_only_its_own_open_runs(db) {
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let a = db.store_as(node(Some('a'), &clock)).await;
    let b = db.store_as(node(Some('b'), &clock)).await;
    let on_a = a.begin_run(new_run(1)).await.unwrap().run_id;
    let on_b = b.begin_run(new_run(2)).await.unwrap().run_id;
    let anon = db.store().await.begin_run(new_run(3)).await.unwrap().run_id;
    // Node a stops and starts again, while b goes on racing.
    a.close().await;
    let a = db.store_as(node(Some('a'), &clock)).await;
    assert_eq!(a.abandon_open_runs().await.unwrap(), 1);
    assert_eq!(a.abandon_open_runs().await.unwrap(), 0);
    assert_eq!(state(&a, on_a).await, RunState::NotFinished);
    assert_eq!(state(&a, on_b).await, RunState::Playing, "another node's live run is untouched");
    assert_eq!(state(&a, anon).await, RunState::Playing);
    let done = b.finish_run(on_b, Outcome::Finished { steps: 9, time_ms: 900, at_floor: false }, vec![], None).await.unwrap();
    assert_eq!(done.rank, Some(1));
    // The anonymous node restarting closes its own only.
    assert_eq!(db.store().await.abandon_open_runs().await.unwrap(), 1);
    assert_eq!(state(&a, anon).await, RunState::NotFinished);
    let closed = a.run(on_a).await.unwrap().unwrap();
    assert_eq!((closed.steps, closed.actions.len(), closed.times_ms), (0, 0, None));
});

both!(async fn a_dead_node_is_closed_after_its_lease_and_live_ones_are_not(db) {
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let watcher = db.store_as(node(Some('w'), &clock)).await;
    let live = db.store_as(node(Some('l'), &clock)).await;
    let dead_run = {
        let dead = db.store_as(node(Some('d'), &clock)).await;
        dead.begin_run(new_run(1)).await.unwrap().run_id
        // dropped here: it never heartbeats again (kill -9)
    };
    let live_run = live.begin_run(new_run(2)).await.unwrap().run_id;
    let own_run = watcher.begin_run(new_run(3)).await.unwrap().run_id;

    // Within the lease nothing is closed, however often anyone looks.
    for _ in 0..4 {
        clock.advance(Duration::from_secs(15));
        assert_eq!(live.heartbeat().await.unwrap(), 0);
        assert_eq!(watcher.heartbeat().await.unwrap(), 0);
    }
    assert_eq!(state(&watcher, dead_run).await, RunState::Playing);
    // Past the lease, whoever notices first closes the dead node's runs, once.
    clock.advance(Duration::from_millis(1));
    assert_eq!(live.heartbeat().await.unwrap(), 1);
    assert_eq!(watcher.heartbeat().await.unwrap(), 0);
    assert_eq!(state(&watcher, dead_run).await, RunState::NotFinished);
    // The live nodes kept their leases by heartbeating: their runs stay open
    // long after, and can still be finished.
    for _ in 0..10 {
        clock.advance(Duration::from_secs(20));
        assert_eq!(live.heartbeat().await.unwrap(), 0);
        assert_eq!(watcher.heartbeat().await.unwrap(), 0);
    }
    assert_eq!(state(&watcher, live_run).await, RunState::Playing);
    assert!(live.finish_run(live_run, Outcome::NotFinished { steps: 3 }, vec![], None).await.is_ok());
    assert_eq!(state(&live, own_run).await, RunState::Playing);
    // The dead boot is forgotten; the two live ones remain.
    let mut boots = db.strings("SELECT node FROM nodes ORDER BY node");
    boots.dedup();
    assert_eq!(boots, ["l", "w"]);
});

both!(async fn open_runs_are_closed_at_startup_and_paging_sees_everything(db) {
    let s = db.store().await;
    let open = s.begin_run(new_run(1)).await.unwrap();
    for p in 2..=6 {
        let run = s.begin_run(new_run(p)).await.unwrap();
        s.finish_run(run.run_id, Outcome::Finished { steps: 10 + p, time_ms: 100, at_floor: false }, vec![], None).await.unwrap();
    }
    assert_eq!(state(&s, open.run_id).await, RunState::Playing);
    assert_eq!(s.abandon_open_runs().await.unwrap(), 1);
    assert_eq!(s.abandon_open_runs().await.unwrap(), 0);
    assert_eq!(state(&s, open.run_id).await, RunState::NotFinished);
    let again = s.finish_run(open.run_id, Outcome::Finished { steps: 1, time_ms: 1, at_floor: false }, vec![], None).await;
    assert!(matches!(again, Err(mazerace_store::StoreError::RunOver(_))));

    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = s.runs_after(after, 2).await.unwrap();
        assert!(page.len() <= 2);
        let Some(last) = page.last() else { break };
        after = last.id;
        seen.extend(page.iter().map(|r| r.id));
    }
    assert_eq!(seen.len(), 6);
    assert!(seen.windows(2).all(|w| w[0] < w[1]));
});
