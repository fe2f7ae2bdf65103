//! The servers under test, as child processes: the race server (`mazerace
//! serve`) with a fresh data directory, and this binary's own bare echo
//! server. Both print `... listening on http://HOST:PORT` as their first
//! stdout line; a child is stopped (SIGTERM, then SIGKILL) when dropped.
//!
//! Each child is started through this binary's hidden `exec-child`
//! subcommand ([`exec_child`]), which asks the kernel to kill it when the
//! benchmark dies and then becomes the server (same pid): the safe way to
//! set a parent-death signal, since `pre_exec` is `unsafe`.

use anyhow::{anyhow, bail, Context, Result};
use rustix::process::{getppid, kill_process, set_parent_process_death_signal, Pid, Signal};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a child may take to print its address (a profiler is slow to start).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a child may take to exit after SIGTERM before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// A running server child process.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    pub pid: u32,
    /// The temp directory holding the data dir and the stderr log; removed on drop.
    scratch: PathBuf,
    label: &'static str,
    stop_timeout: Duration,
}

/// How to start the race server.
#[derive(Clone, Debug)]
pub struct RaceServerSpec {
    pub bin: PathBuf,
    /// Extra arguments after `serve --bind ... --data-dir ...`.
    pub extra_args: Vec<String>,
    /// `RUST_LOG` for the child: logging every connection at info level
    /// would be part of what is measured.
    pub log: String,
    /// A command to run the server under (a profiler: `valgrind --tool=callgrind ...`).
    pub wrap: Vec<String>,
}

static SCRATCH_SEQ: AtomicU32 = AtomicU32::new(0);

pub fn scratch_dir(label: &str) -> Result<PathBuf> {
    let n = SCRATCH_SEQ.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mazerace-bench-{}-{label}-{n}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).ok();
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

impl Server {
    /// `mazerace serve --bind 127.0.0.1:0 --data-dir <fresh>`.
    pub fn start_race(spec: &RaceServerSpec) -> Result<Server> {
        Self::start_race_with(spec, "127.0.0.1:0", &[], &[])
    }

    /// A node of several (`--two-nodes`): `--node-id ID` on the PostgreSQL
    /// at `url` (passed in the environment, as docs/OPERATIONS.md says), believing
    /// the proxy on 127.0.0.1.
    pub fn start_node(spec: &RaceServerSpec, id: char, url: &str) -> Result<Server> {
        Self::start_node_at(spec, id, url, "127.0.0.1:0")
    }

    /// [`Server::start_node`] on `bind` (a node restarted where nginx
    /// expects it).
    pub fn start_node_at(spec: &RaceServerSpec, id: char, url: &str, bind: &str) -> Result<Server> {
        let id = id.to_string();
        let args = ["--node-id", id.as_str(), "--trusted-proxy", "127.0.0.1"];
        Self::start_race_with(spec, bind, &args, &[("MAZERACE_DATABASE_URL", url)])
    }

    fn start_race_with(
        spec: &RaceServerSpec,
        bind: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Result<Server> {
        let scratch = scratch_dir("race")?;
        let data = scratch.join("data");
        std::fs::create_dir_all(&data)?;
        let mut cmd = match spec.wrap.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(&spec.bin);
                c
            }
            None => Command::new(&spec.bin),
        };
        cmd.arg("serve").arg("--bind").arg(bind).arg("--data-dir").arg(&data);
        // Thousands of simulated players share a few 127.0.0.x addresses;
        // no /metrics listener (two servers at once would want one port);
        // no reserve: at the open-file limit it would hold 64 players'
        // places back for HTTP, and the figures measure players.
        cmd.args(["--max-conns-per-addr", "0", "--metrics-bind", "", "--reserve-connections", "0"]);
        // Nor per-address room, session and join caps (64, 256 and 40 in a
        // burst by default): thousands of players share each source address
        // here. (A scenario that measures a cap passes its own, later.)
        cmd.args(["--max-rooms-per-address", "1000000", "--max-sessions-per-address", "1000000"]);
        // Probes for a node's return (`moves`) are joins of unused codes:
        // failed joins, from the one address every simulated player shares.
        cmd.args(["--room-joins", "1000000", "--join-attempts", "1000000"]);
        cmd.args(args);
        cmd.args(&spec.extra_args);
        cmd.env("RUST_LOG", &spec.log);
        cmd.envs(env.iter().copied());
        let mut server = Self::spawn(cmd, scratch, "race server")?;
        if !spec.wrap.is_empty() {
            // A profiler needs time to write its output on exit.
            server.stop_timeout = Duration::from_secs(120);
        }
        Ok(server)
    }

    /// This binary's `echo-server` subcommand.
    pub fn start_echo(runtime: &str) -> Result<Server> {
        let scratch = scratch_dir("echo")?;
        let exe = std::env::current_exe().context("locating the benchmark binary")?;
        let mut cmd = Command::new(exe);
        cmd.arg("echo-server").arg("--bind").arg("127.0.0.1:0").arg("--runtime").arg(runtime);
        Self::spawn(cmd, scratch, "echo server")
    }

    /// A child that prints no address (nginx): started as every child is,
    /// its stderr in `scratch`; the caller fills in `addr`.
    pub fn spawn_silent(cmd: Command, scratch: PathBuf, label: &'static str) -> Result<Server> {
        let log = std::fs::File::create(scratch.join("stderr.log"))?;
        let mut cmd = through_exec_child(&cmd)?;
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::from(log));
        let child = cmd.spawn().with_context(|| format!("starting {label}: {cmd:?}"))?;
        let pid = child.id();
        Ok(Server { child, addr: "127.0.0.1:1".parse()?, pid, scratch, label, stop_timeout: STOP_TIMEOUT })
    }

    fn spawn(cmd: Command, scratch: PathBuf, label: &'static str) -> Result<Server> {
        let log = std::fs::File::create(scratch.join("stderr.log"))?;
        // If the benchmark dies (killed, panics past Drop), its servers go with it.
        let mut cmd = through_exec_child(&cmd)?;
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::from(log));
        let mut child = cmd.spawn().with_context(|| format!("starting the {label}: {cmd:?}"))?;
        let pid = child.id();
        let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout from the {label}"))?;
        // Read the first line on a thread so a silent child cannot hang us; the
        // same thread then drains stdout so the child never blocks on a full pipe.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut first = String::new();
            let read = reader.read_line(&mut first).map(|_| first);
            let _ = tx.send(read);
            let mut sink = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                // Keep only a bounded tail: nothing reads it, it only must not block.
                sink.extend_from_slice(&buf[..n]);
                if sink.len() > 1 << 20 {
                    sink.clear();
                }
            }
        });
        let mut server =
            Server { child, addr: "127.0.0.1:1".parse()?, pid, scratch, label, stop_timeout: STOP_TIMEOUT };
        let first = match rx.recv_timeout(START_TIMEOUT) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => bail!("reading the {label}'s first line: {e}{}", server.stderr_tail()),
            Err(_) => {
                bail!("the {label} printed no address within {START_TIMEOUT:?}{}", server.stderr_tail())
            }
        };
        server.addr = parse_listening(&first).ok_or_else(|| {
            anyhow!("unexpected first line from the {label}: {first:?}{}", server.stderr_tail())
        })?;
        Ok(server)
    }

    /// The end of the child's stderr, for error messages.
    pub fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(self.scratch.join("stderr.log")).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        if tail.is_empty() {
            String::new()
        } else {
            let lines: Vec<&str> = tail.into_iter().rev().collect();
            format!("\n--- {} stderr (tail) ---\n{}", self.label, lines.join("\n"))
        }
    }

    /// Whether the child is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits up to `limit` for the child to exit by itself (polled: a
    /// child's exit has no async notice here); its exit status.
    pub async fn exited_within(&mut self, limit: Duration) -> Result<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if Instant::now() >= deadline {
                bail!("the {} is still running {limit:?} later{}", self.label, self.stderr_tail());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// `kill -SIGNAL` (`TERM`: a drain, as systemd's stop sends it).
    pub fn signal(&self, signal: Signal) -> Result<()> {
        let pid = i32::try_from(self.pid).ok().and_then(Pid::from_raw).ok_or_else(|| anyhow!("pid"))?;
        kill_process(pid, signal).with_context(|| format!("signalling the {}", self.label))
    }

    fn stop(&mut self) {
        if !self.alive() {
            return;
        }
        // Our own child's pid, not reaped yet (alive() just said so).
        if let Some(pid) = i32::try_from(self.pid).ok().and_then(Pid::from_raw) {
            let _ = kill_process(pid, Signal::TERM);
        }
        let deadline = Instant::now() + self.stop_timeout;
        while Instant::now() < deadline {
            if !self.alive() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
        remove_scratch(&self.scratch);
    }
}

fn remove_scratch(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}

/// `cmd` run as `<this binary> exec-child --parent <our pid> -- <program> <args>`,
/// with the same environment.
fn through_exec_child(cmd: &Command) -> Result<Command> {
    let exe = std::env::current_exe().context("locating the benchmark binary")?;
    let mut outer = Command::new(exe);
    outer.arg("exec-child").arg("--parent").arg(std::process::id().to_string()).arg("--");
    outer.arg(cmd.get_program()).args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => outer.env(key, value),
            None => outer.env_remove(key),
        };
    }
    Ok(outer)
}

/// The `exec-child` subcommand: arrange SIGKILL for when the parent (the
/// benchmark's spawning thread) ends, then replace this process with
/// `argv`. The signal survives `exec`; the check against `parent` closes the
/// race where the benchmark died before the signal was set.
pub fn exec_child(parent: u32, argv: &[OsString]) -> Result<()> {
    let (program, args) = argv.split_first().ok_or_else(|| anyhow!("exec-child: no program"))?;
    set_parent_process_death_signal(Some(Signal::KILL)).context("setting the parent-death signal")?;
    if getppid().map(|p| p.as_raw_nonzero().get()) != i32::try_from(parent).ok() {
        bail!("exec-child: the benchmark (pid {parent}) is gone");
    }
    let err = Command::new(program).args(args).exec();
    Err(anyhow!("exec-child: running {program:?}: {err}"))
}

/// `"mazerace listening on http://127.0.0.1:PORT"` -> the address.
pub fn parse_listening(line: &str) -> Option<SocketAddr> {
    let at = line.find("listening on http://")? + "listening on http://".len();
    let rest = line[at..].trim();
    let host_port = rest.split(['/', ' ']).next()?;
    host_port.parse().ok()
}

/// The race server binary: `--server-bin`, else target/release/mazerace next
/// to this binary's target dir, else target/debug/mazerace.
pub fn locate_server_bin(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(p.to_path_buf());
        }
        bail!("--server-bin {} does not exist", p.display());
    }
    let mut candidates = Vec::new();
    // This binary lives in target/<profile>/; its grandparent is the target dir.
    if let Ok(exe) = std::env::current_exe() {
        if let Some(target) = exe.parent().and_then(Path::parent) {
            candidates.push(target.join("release/mazerace"));
            candidates.push(target.join("debug/mazerace"));
        }
    }
    candidates.push(PathBuf::from("target/release/mazerace"));
    candidates.push(PathBuf::from("target/debug/mazerace"));
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        anyhow!(
            "no race server binary: build it (cargo build --release -p mazerace-server) or pass --server-bin"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_first_line() {
        assert_eq!(
            parse_listening("mazerace listening on http://127.0.0.1:40123\n"),
            Some("127.0.0.1:40123".parse().unwrap())
        );
        assert_eq!(
            parse_listening("echo listening on http://127.0.0.1:9/ws"),
            Some("127.0.0.1:9".parse().unwrap())
        );
        assert_eq!(parse_listening("starting up"), None);
    }
}
