//! Two race-server nodes on one PostgreSQL behind a throwaway nginx running
//! the shipped `deploy/nginx.conf`, for the capacity scenario's `--two-nodes`
//! (issue 14): the same set-up as `tests/src/cluster.rs`, on loopback, free
//! ports and temp dirs only.
//!
//! - PostgreSQL: `--database-url` / `MAZERACE_BENCH_DATABASE_URL` when given
//!   (each run gets a schema of its own, dropped after), else a throwaway
//!   cluster made by `initdb` in a temp dir, as `./test.sh` makes one, with
//!   the server's default durability. As root it runs as the `postgres` user
//!   (PostgreSQL refuses root). A keeper shell holds a pipe from this process
//!   and stops the cluster and removes its directory when the pipe closes:
//!   on drop, and also when the benchmark is killed (Ctrl-C, `kill -9`).
//! - nginx: one process (no master and workers), the shipped site file with
//!   its two upstream ports and its listen line replaced; started through
//!   `exec-child` like every server here, so it dies with the benchmark.
//!
//! Nothing is installed here: what is missing is named with the package to
//! install (`./test.sh` installs both).

use anyhow::{anyhow, bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crate::procs::{scratch_dir, Server};

/// What to install when PostgreSQL or nginx is missing.
const INSTALL: &str = "install Debian's packages (apt-get install postgresql nginx; ./test.sh does it when \
     they are missing), or give --database-url for PostgreSQL";

/// A PostgreSQL to make schemas in: given by URL, or a throwaway cluster.
pub struct Postgres {
    pub admin: String,
    /// The throwaway cluster's keeper; `None` for a URL that was given.
    keeper: Option<(Child, ChildStdin)>,
}

impl Postgres {
    pub fn given_or_throwaway(url: Option<&str>) -> Result<Postgres> {
        if let Some(url) = url {
            return Ok(Postgres { admin: url.to_owned(), keeper: None });
        }
        let bin = pg_bin().ok_or_else(|| anyhow!("no PostgreSQL server (initdb) found: {INSTALL}"))?;
        let dir = scratch_dir("pg")?;
        // PostgreSQL does not run as root: then it runs as `postgres`.
        let root = rustix::process::geteuid().is_root();
        let run_as: Vec<String> = if root {
            if Command::new("id")
                .arg("postgres")
                .stdout(Stdio::null())
                .status()
                .map_or(true, |s| !s.success())
            {
                bail!("running as root and there is no `postgres` user to run PostgreSQL as: {INSTALL}");
            }
            std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o777))?;
            vec!["runuser".into(), "-u".into(), "postgres".into(), "--".into()]
        } else {
            Vec::new()
        };
        let data = dir.join("data");
        let d = dir.display();
        let sh = |cmd: String| -> Result<()> {
            let prefix = run_as.join(" ");
            let out = Command::new("sh").arg("-c").arg(format!("{prefix} {cmd}")).output()?;
            if !out.status.success() {
                bail!("{cmd}: {}", String::from_utf8_lossy(&out.stderr));
            }
            Ok(())
        };
        sh(format!(
            "{}/initdb -D {} -U postgres -A trust -E UTF8 --no-sync >/dev/null",
            bin.display(),
            data.display()
        ))?;
        let port = free_port()?;
        // Loopback only, its socket in its own dir; durability as shipped.
        sh(format!(
            "{}/pg_ctl -D {} -l {d}/log -w -t 60 -o '-c listen_addresses=127.0.0.1 -p {port} -k {d}' start >/dev/null",
            bin.display(),
            data.display()
        ))
        .with_context(|| std::fs::read_to_string(dir.join("log")).unwrap_or_default())?;
        // The keeper waits for its stdin to close (this process dropping it
        // or dying), then stops the cluster and removes its directory.
        // Killed, this process leaves its other scratch dirs: those go too.
        // It ignores Ctrl-C, which the terminal sends to the whole group.
        let others = std::env::temp_dir().join(format!("mazerace-bench-{}-", std::process::id()));
        let stop = format!(
            "trap '' INT TERM HUP; cat >/dev/null; {} {}/pg_ctl -D {} -m immediate stop >/dev/null 2>&1; \
             rm -rf {d} {}*",
            run_as.join(" "),
            bin.display(),
            data.display(),
            others.display()
        );
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(stop)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting the cluster's keeper")?;
        let pipe = child.stdin.take().ok_or_else(|| anyhow!("no keeper pipe"))?;
        Ok(Postgres {
            admin: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            keeper: Some((child, pipe)),
        })
    }

    /// A fresh schema; its URL selects it for every connection.
    pub fn schema(&self, tag: &str) -> Result<Schema> {
        let name = format!("bench_{tag}_{}", std::process::id());
        let sql = format!("DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}");
        off_runtime(&self.admin, &sql)?;
        let sep = if self.admin.contains('?') { '&' } else { '?' };
        let url = format!("{}{sep}options=-c%20search_path%3D{name}", self.admin);
        Ok(Schema { admin: self.admin.clone(), name, url })
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Some((mut child, pipe)) = self.keeper.take() {
            drop(pipe);
            let _ = child.wait();
        }
    }
}

/// A schema of one run, dropped with it.
pub struct Schema {
    admin: String,
    name: String,
    pub url: String,
}

impl Drop for Schema {
    fn drop(&mut self) {
        let _ = off_runtime(&self.admin, &format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
    }
}

/// SQL through the blocking client on a thread of its own: the client runs
/// its own runtime, which must not start inside the benchmark's.
fn off_runtime(url: &str, sql: &str) -> Result<()> {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    std::thread::spawn(move || -> Result<()> {
        postgres::Client::connect(&url, postgres::NoTls)?.batch_execute(&sql)?;
        Ok(())
    })
    .join()
    .map_err(|_| anyhow!("the SQL thread panicked"))?
}

fn pg_bin() -> Option<PathBuf> {
    let mut found = None;
    for e in std::fs::read_dir("/usr/lib/postgresql").ok()?.flatten() {
        let bin = e.path().join("bin");
        if bin.join("initdb").is_file() && bin.join("pg_ctl").is_file() {
            found = Some(bin); // the last (newest) wins, as in test.sh
        }
    }
    found
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The nginx binary, or what to install.
pub fn nginx_bin() -> Result<&'static str> {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .ok_or_else(|| anyhow!("nginx is not installed: {INSTALL}"))
}

/// A running throwaway nginx in front of two nodes.
pub struct Nginx {
    pub server: Server,
}

impl Nginx {
    /// nginx on a free loopback port, routing to `a` and `b` (node ids A
    /// and B) by the shipped site file; `max_files` sizes its connections.
    pub fn start(a: &Server, b: &Server, max_files: u64) -> Result<Nginx> {
        let bin = nginx_bin()?;
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/nginx.conf");
        let site =
            std::fs::read_to_string(&shipped).with_context(|| format!("reading {}", shipped.display()))?;
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port()?;
            let dir = scratch_dir("nginx")?;
            let mut conf = site.clone();
            for (from, to) in [
                ("127.0.0.1:7801", a.addr.to_string()),
                ("127.0.0.1:7802", b.addr.to_string()),
                ("listen 80;", format!("listen 127.0.0.1:{port} backlog=4096;")),
                ("listen [::]:80;", String::new()),
            ] {
                if !conf.contains(from) {
                    bail!("deploy/nginx.conf no longer has {from:?}: update bench/src/nodes.rs");
                }
                conf = conf.replace(from, &to);
            }
            let d = dir.display();
            std::fs::write(dir.join("site.conf"), conf)?;
            // Every player holds two descriptors here (its socket and the
            // node's); no access log (it would be part of what is measured).
            let user = if rustix::process::geteuid().is_root() { "user root;\n" } else { "" };
            let main = format!(
                "{user}master_process off;\nworker_rlimit_nofile {max_files};\n\
                 events {{ worker_connections {max_files}; }}\nhttp {{\naccess_log off;\n\
                 client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n\
                 fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n\
                 include {d}/site.conf;\n}}\n"
            );
            std::fs::write(dir.join("nginx.conf"), main)?;
            let mut cmd = Command::new(bin);
            cmd.arg("-p")
                .arg(&dir)
                .arg("-c")
                .arg(dir.join("nginx.conf"))
                .arg("-e")
                .arg(dir.join("error.log"));
            cmd.arg("-g").arg(format!("daemon off; pid {d}/nginx.pid;"));
            let mut server = Server::spawn_silent(cmd, dir.clone(), "nginx")?;
            let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse()?;
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && server.alive() {
                if std::net::TcpStream::connect(addr).is_ok() {
                    server.addr = addr;
                    return Ok(Nginx { server });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            last = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
        }
        bail!("nginx did not start on any of five ports: {last}")
    }
}

/// `GET /healthz` of a node: its `sessions` count (how the players spread).
pub fn sessions(addr: std::net::SocketAddr) -> Result<u64> {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    s.write_all(b"GET /healthz HTTP/1.0\r\nHost: bench\r\n\r\n")?;
    let mut body = String::new();
    s.read_to_string(&mut body)?;
    let json = body.split("\r\n\r\n").nth(1).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(json)?;
    v["sessions"].as_u64().ok_or_else(|| anyhow!("no sessions in /healthz: {json}"))
}
