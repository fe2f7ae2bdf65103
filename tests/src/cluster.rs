//! Several real nodes on one PostgreSQL behind the shipped nginx config
//! (issue 14), for `tests/tests/nodes.rs` and `tests/tests/pg_outage.rs`:
//! a fresh schema per test, `target/debug/mazerace serve` processes with a
//! node id, and a throwaway nginx on a free loopback port with its own temp
//! dir. Every process is killed when its value is dropped, also when a test
//! fails.
//!
//! PostgreSQL comes from `MAZERACE_TEST_DATABASE_URL` (./test.sh starts a
//! throwaway server and sets it, with `MAZERACE_REQUIRE_PG=1`). Unset: the
//! tests print that they did not run and pass, unless `MAZERACE_REQUIRE_PG=1`,
//! when they fail saying why. nginx must be installed (./test.sh installs
//! Debian's when missing); a missing nginx fails the test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::{Client, RECV_TIMEOUT};

/// The daily salt every node of a test runs with.
pub const SALT: &str = "nodes";

/// The admin URL of the test PostgreSQL, or `None` when this test must not run.
pub fn postgres_or_skip(test: &str) -> Option<String> {
    match std::env::var("MAZERACE_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty()) {
        Some(url) => Some(url),
        None if std::env::var("MAZERACE_REQUIRE_PG").as_deref() == Ok("1") => {
            panic!(
                "{test}: MAZERACE_REQUIRE_PG=1 but MAZERACE_TEST_DATABASE_URL is unset (./test.sh sets both)"
            )
        }
        None => {
            not_run(&format!(
                "{test}: DID NOT RUN: no PostgreSQL (set MAZERACE_TEST_DATABASE_URL, as ./test.sh does)"
            ));
            None
        }
    }
}

/// Says a test did not run, past the test harness's output capture (which
/// would hide it on a pass).
pub fn not_run(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{what}");
}

/// A schema of this test's own; the URL selects it for every connection.
pub struct Schema {
    pub admin: String,
    pub name: String,
    pub url: String,
}

impl Schema {
    pub async fn fresh(admin: &str) -> Schema {
        let mut id = [0u8; 6];
        getrandom::fill(&mut id).expect("entropy");
        let name = format!("nodes_{}", hex::encode(id));
        let sep = if admin.contains('?') { '&' } else { '?' };
        let url = format!("{admin}{sep}options=-c%20search_path%3D{name}");
        let schema = Schema { admin: admin.to_owned(), name, url };
        schema.exec(&format!("CREATE SCHEMA {}", schema.name)).await;
        schema
    }

    /// One SQL statement on this schema (blocking client, off the runtime).
    pub async fn exec(&self, sql: &str) {
        let (url, sql) = (self.url.clone(), sql.to_owned());
        tokio::task::spawn_blocking(move || {
            let mut c =
                postgres::Client::connect(&url, postgres::NoTls).expect("connect to the test PostgreSQL");
            c.batch_execute(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        })
        .await
        .expect("sql task");
    }

    /// The rows of a query, every column read as text (cast in the SQL).
    pub async fn rows(&self, sql: &str) -> Vec<Vec<String>> {
        let (url, sql) = (self.url.clone(), sql.to_owned());
        tokio::task::spawn_blocking(move || {
            let mut c =
                postgres::Client::connect(&url, postgres::NoTls).expect("connect to the test PostgreSQL");
            let rows = c.query(sql.as_str(), &[]).unwrap_or_else(|e| panic!("{sql}: {e}"));
            rows.iter().map(|r| (0..r.len()).map(|i| r.get::<_, String>(i)).collect()).collect()
        })
        .await
        .expect("sql task")
    }
}

/// `target/debug/mazerace`, which must exist and be newer than its sources.
pub fn binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = root.join("target/debug/mazerace");
    let built = std::fs::metadata(&bin).and_then(|m| m.modified()).unwrap_or_else(|_| {
        panic!("{} is missing: run `cargo build -p mazerace-server` first (./test.sh does)", bin.display())
    });
    for dir in ["server/src", "store/src", "protocol/src"] {
        for entry in walk(&root.join(dir)) {
            let changed =
                std::fs::metadata(&entry).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
            assert!(changed <= built, "{} is older than {}: rebuild it", bin.display(), entry.display());
        }
    }
    bin
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A running `mazerace serve --node-id ID`, killed when dropped.
pub struct Node {
    pub id: char,
    pub addr: String,
    child: Child,
}

impl Node {
    /// Starts node `id` on `url` on a free loopback port (or `port`, to
    /// restart a node where it was), trusting nginx on 127.0.0.1.
    pub async fn start(id: char, url: &str, port: Option<u16>, logs: &Path) -> Node {
        Self::start_with(id, url, port, logs, &[]).await
    }

    /// [`Node::start`] with more `serve` flags.
    pub async fn start_with(id: char, url: &str, port: Option<u16>, logs: &Path, extra: &[&str]) -> Node {
        let bind = format!("127.0.0.1:{}", port.unwrap_or(0));
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(logs.join(format!("node-{id}.log")))
            .expect("node log");
        let mut child = Command::new(binary())
            .args(["serve", "--bind", &bind, "--node-id", &id.to_string(), "--trusted-proxy", "127.0.0.1"])
            .args(["--daily-salt", SALT, "--countdown-secs", "1"])
            .args(["--msgs-per-sec", "10000", "--msgs-burst", "10000"])
            // A solver plays faster than any hand: no ranked pacing, no per-address cap.
            .args(["--ranked-move-floor-ms", "0", "--ranked-per-address", "0", "--metrics-bind", ""])
            .args(extra)
            .env("MAZERACE_DATABASE_URL", url)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("spawn mazerace");
        let out = child.stdout.take().expect("stdout");
        let first = tokio::time::timeout(
            Duration::from_secs(30),
            tokio::task::spawn_blocking(move || {
                let mut line = String::new();
                BufReader::new(out).read_line(&mut line).map(|_| line)
            }),
        )
        .await
        .expect("no start-up line in 30 s")
        .expect("reader")
        .expect("read stdout");
        let addr = first
            .trim_end()
            .strip_prefix("mazerace listening on http://")
            .unwrap_or_else(|| panic!("node {id}: first line was {first:?} (see {})", logs.display()))
            .to_owned();
        Node { id, addr, child }
    }

    pub fn port(&self) -> u16 {
        self.addr.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port")
    }

    /// `kill -9`: no shutdown, no goodbye.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends `signal` ("TERM", "INT") to the node, as systemd or Ctrl-C would.
    pub fn signal(&self, signal: &str) {
        send_signal(self.child.id(), signal);
    }

    /// Waits up to `limit` for the node to exit; `None` if it is still running.
    pub async fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        exited_within(&mut self.child, limit).await
    }
}

/// `kill -SIGNAL pid`.
pub fn send_signal(pid: u32, signal: &str) {
    let sent = Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -{signal} {pid}");
}

/// Waits up to `limit` for `child` to exit (polled: a child's exit has no
/// async notice here); `None` if it is still running.
pub async fn exited_within(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits up to 10 s until `addr`'s `/healthz` answers `status`.
pub async fn healthz_becomes(addr: &str, status: u16) -> crate::HttpResponse {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = crate::http_get(addr, "/healthz", "").await;
        if r.status == status {
            return r;
        }
        assert!(Instant::now() < deadline, "{addr}/healthz is still {} ({})", r.status, r.text());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A throwaway nginx running `deploy/nginx.conf` for nodes A and B.
pub struct Nginx {
    pub addr: String,
    pub dir: tempfile::TempDir,
    child: Child,
}

impl Nginx {
    pub async fn start(a: &Node, b: &Node) -> Nginx {
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("nginx is not installed (./test.sh installs Debian's nginx)");
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/nginx.conf");
        let site = std::fs::read_to_string(&shipped).expect("deploy/nginx.conf");
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a port")
                .port();
            let dir = tempfile::tempdir().expect("temp dir");
            let mut conf = site.clone();
            for (from, to) in [
                ("127.0.0.1:7801", a.addr.clone()),
                ("127.0.0.1:7802", b.addr.clone()),
                ("listen 80;", format!("listen 127.0.0.1:{port};")),
                ("listen [::]:80;", String::new()),
            ] {
                assert!(conf.contains(from), "deploy/nginx.conf no longer has {from:?}: update the test");
                conf = conf.replace(from, &to);
            }
            let d = dir.path().display();
            std::fs::write(dir.path().join("site.conf"), conf).expect("write site");
            // One process (no master and workers): a test that fails and
            // kills it leaves no orphaned worker behind. The shipped site
            // file is the same as in production; only this wrapper differs.
            let main = format!(
                "user root;\nmaster_process off;\nevents {{ worker_connections 1024; }}\nhttp {{\n\
                 log_format up '$request_uri $upstream_addr $status';\n\
                 access_log {d}/access.log up;\n\
                 client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n\
                 fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n\
                 include {d}/site.conf;\n}}\n"
            );
            std::fs::write(dir.path().join("nginx.conf"), main).expect("write conf");
            let mut child = Command::new(nginx)
                .arg("-p")
                .arg(dir.path())
                .arg("-c")
                .arg(dir.path().join("nginx.conf"))
                .arg("-e")
                .arg(dir.path().join("error.log"))
                .arg("-g")
                .arg(format!("daemon off; pid {d}/nginx.pid;"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn nginx");
            let addr = format!("127.0.0.1:{port}");
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if let Ok(Some(_)) = child.try_wait() {
                    break; // exited: most likely the port was taken meanwhile
                }
                if tokio::net::TcpStream::connect(&addr).await.is_ok() {
                    return Nginx { addr, dir, child };
                }
                assert!(Instant::now() < deadline, "nginx did not listen in 10 s: {}", log(dir.path()));
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            eprintln!("nginx exited at start, trying another port: {}", log(dir.path()));
        }
        panic!("nginx did not start on any of five ports");
    }

    /// The access log: one `URI UPSTREAM STATUS` line per finished request.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client of `addr` at `path` (`/ws` or `/ws?room=CODE`).
pub async fn connect(addr: &str, path: &str) -> Client {
    let url = format!("ws://{addr}{path}");
    let (ws, _) = tokio::time::timeout(RECV_TIMEOUT, tokio_tungstenite::connect_async(url))
        .await
        .expect("connect timed out")
        .expect("connect");
    Client { ws, id: 0, token: String::new() }
}

/// Waits for `c`'s `room_moved` (its node is draining) and follows it as
/// the web client does: a new connection through `lb` naming the new code,
/// `hello` with the same token, into the seat that waited for it. Nothing
/// before the move may be an error or a shutdown (no player sees one).
/// Returns the new connection and its snapshot's room.
pub async fn follow(c: &mut Client, lb: &str, name: &str) -> (Client, Value) {
    follow_within(c, lb, name, RECV_TIMEOUT).await
}

/// [`follow`], the move coming within `limit` (a room offered a second
/// time comes after its first offer's wait).
pub async fn follow_within(c: &mut Client, lb: &str, name: &str, limit: Duration) -> (Client, Value) {
    let waiting = async {
        loop {
            let t = match c.next_text_untimed().await {
                Ok(t) => t,
                Err(closed) => panic!("{name}'s connection ended before their room moved: {closed:?}"),
            };
            let m: Value = serde_json::from_str(&t).expect("JSON");
            match m["type"].as_str() {
                Some("room_moved") => break m,
                Some("error" | "server_shutdown") => panic!("{name} saw {m} before their room moved"),
                _ => {}
            }
        }
    };
    let moved = tokio::time::timeout(limit, waiting).await.expect("no room_moved in time");
    let code = moved["code"].as_str().expect("a new code").to_owned();
    let mut n = connect(lb, &format!("/ws?room={code}")).await;
    n.send(json!({"type": "hello", "name": name, "token": c.token})).await;
    let w = n.recv_type("welcome").await;
    assert_eq!(w["resumed"], true, "{name}'s seat waited for their token: {w}");
    n.id = w["player_id"].as_u64().expect("player_id") as u32;
    n.token = w["token"].as_str().expect("token").to_owned();
    assert_eq!(n.token, c.token, "the same player");
    let snap = n.recv_type("snapshot").await;
    assert_eq!(snap["room"]["code"], code.as_str(), "{snap}");
    assert_eq!(snap["room"]["key"], moved["key"]);
    (n, snap["room"].clone())
}
