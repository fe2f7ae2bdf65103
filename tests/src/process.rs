//! The real `mazerace` binary as a process, for the tests that need one
//! (crash safety, signals, log volume, several nodes).

/// `target/debug/mazerace`, the real binary, for the tests that run it as
/// a process (crash safety, signals, log volume). It must exist and be newer
/// than every source file it is built from: `./test.sh` builds it, and a
/// stale one would test yesterday's server.
pub fn server_binary() -> std::path::PathBuf {
    use std::path::{Path, PathBuf};
    use std::time::SystemTime;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = root.join("target/debug/mazerace");
    let built = std::fs::metadata(&bin).and_then(|m| m.modified()).unwrap_or_else(|_| {
        panic!("{} is missing: run `cargo build -p mazerace-server` first (./test.sh does)", bin.display())
    });
    let mut dirs: Vec<PathBuf> =
        ["server/src", "store/src", "protocol/src"].iter().map(|d| root.join(d)).collect();
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let changed = std::fs::metadata(&p).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
            assert!(
                changed <= built,
                "{} is older than {}: run `cargo build -p mazerace-server` first",
                bin.display(),
                p.display()
            );
        }
    }
    bin
}

/// Starts `cmd` (a `mazerace serve` built by the caller: flags, environment,
/// stderr) with stdout piped, and waits, 20 s at most, for its first line,
/// the "listening on" banner. Returns the child and its "127.0.0.1:PORT".
pub async fn start_serve(mut cmd: std::process::Command) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().expect("spawn mazerace");
    let out = child.stdout.take().expect("stdout");
    let first = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(out).read_line(&mut line).map(|_| line)
    });
    let first = tokio::time::timeout(std::time::Duration::from_secs(20), first)
        .await
        .expect("no start-up line in 20 s")
        .expect("reader")
        .expect("read stdout");
    let addr = first
        .trim_end()
        .strip_prefix("mazerace listening on http://")
        .unwrap_or_else(|| panic!("first line was {first:?}"))
        .to_owned();
    (child, addr)
}
