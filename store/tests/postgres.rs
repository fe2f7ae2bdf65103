//! What only the PostgreSQL backend has: a connection that dies (a server
//! restart, a proxy timeout) is noticed and made again, and the failure in
//! between is a typed "try again", never a wrong answer. Runs when
//! `MAZERACE_TEST_DATABASE_URL` is set.

mod common;

use mazerace_store::{Backend, ErrorKind};

#[test]
fn a_killed_connection_is_noticed_and_made_again() {
    let Some(db) = common::TestDb::postgres() else {
        eprintln!("skipped: {} is not set", common::ENV);
        return;
    };
    let mut b = db.open_postgres();
    let salt = b.daily_salt().unwrap();
    for round in 0..3 {
        // The server ends this test's connections (its application name is the schema).
        let killed = db.strings(&format!(
            "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
             WHERE application_name = '{}' AND pid <> pg_backend_pid()",
            db.schema()
        ));
        assert_eq!(killed, ["true"], "round {round}: one connection to kill");
        // The next request either notices first and reconnects, or fails as
        // "unavailable" and drops the connection; the one after succeeds.
        match b.daily_salt() {
            Ok(again) => assert_eq!(again, salt),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Busy, "{e}");
                assert_eq!(b.daily_salt().unwrap(), salt);
            }
        }
        b.ping().unwrap();
    }
}
