//! `deploy/mazerace@.service`, the systemd unit a node runs as: its stop
//! timeout covers the drain and the shutdown grace (systemd would SIGKILL a
//! drain it cut short), its open-file limit covers `--max-connections`, and
//! `systemd-analyze verify` finds nothing to say about it (unknown keys,
//! bad values and a missing binary are all reported there), with
//! `ExecStart` pointed at the binary just built; `systemd-analyze security`
//! rates its sandbox at most 2.0 ("OK"). Without systemd-analyze (./test.sh
//! installs Debian's `systemd` when missing) those two print "DID NOT RUN".

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use mazerace_server::Config;

fn unit() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/mazerace@.service");
    std::fs::read_to_string(path).expect("deploy/mazerace@.service")
}

/// The value of `key=` in the unit (its last setting, as systemd reads it).
fn setting(unit: &str, key: &str) -> String {
    let prefix = format!("{key}=");
    unit.lines().rev().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("no {key}=")).to_owned()
}

/// A systemd time span as the unit writes it: seconds, or `Ns` / `Nmin`.
fn span(v: &str) -> Duration {
    let (n, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
    let n: u64 = n.parse().unwrap_or_else(|_| panic!("{v:?} is not a span this test reads"));
    match unit {
        "" | "s" => Duration::from_secs(n),
        "min" => Duration::from_secs(n * 60),
        _ => panic!("{v:?}: unit {unit:?} not read here"),
    }
}

#[test]
fn the_unit_waits_for_the_drain_and_opens_enough_files() {
    let unit = unit();
    let d = Config::default();
    let stop = span(&setting(&unit, "TimeoutStopSec"));
    assert!(
        stop >= d.drain + d.shutdown_grace,
        "TimeoutStopSec={stop:?} is under --drain-secs {:?} + --shutdown-grace-secs {:?}",
        d.drain,
        d.shutdown_grace
    );
    assert_eq!(setting(&unit, "KillSignal"), "SIGTERM", "SIGTERM is what drains");
    let files: usize = setting(&unit, "LimitNOFILE").parse().expect("a number");
    assert!(files > d.max_connections + d.reserve_connections, "LimitNOFILE={files}");
    assert_eq!(setting(&unit, "Restart"), "on-failure");
    assert!(setting(&unit, "ExecStart").ends_with("mazerace serve"));
}

fn systemd_analyze() -> Option<&'static str> {
    let found =
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].into_iter().find(|p| Path::new(p).exists());
    if found.is_none() {
        mazerace_tests::cluster::not_run(
            "deploy.rs: DID NOT RUN: no systemd-analyze (./test.sh installs Debian's systemd)",
        );
    }
    found
}

/// The unit in a temp dir, as instance `A`, running the binary just built.
fn installed(dir: &Path) -> std::path::PathBuf {
    let bin = mazerace_tests::server_binary();
    let shipped = unit();
    let exec = format!("ExecStart={} serve", bin.display());
    let unit = shipped.replace("ExecStart=/usr/local/bin/mazerace serve", &exec);
    assert_ne!(unit, shipped, "the unit no longer starts /usr/local/bin/mazerace: update this test");
    let path = dir.join("mazerace@A.service");
    std::fs::write(&path, unit).expect("write the unit");
    path
}

#[test]
fn systemd_analyze_verify_finds_nothing_to_say() {
    let Some(tool) = systemd_analyze() else { return };
    let dir = tempfile::tempdir().unwrap();
    let unit = installed(dir.path());
    let out =
        Command::new(tool).args(["verify", "--man=no"]).arg(&unit).output().expect("run systemd-analyze");
    let said = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.trim().is_empty(),
        "systemd-analyze verify: {:?}\n{said}",
        out.status
    );

    // The check can fail: a key systemd does not know is reported.
    std::fs::write(
        &unit,
        std::fs::read_to_string(&unit).unwrap().replace("[Service]", "[Service]\nDrainSec=1"),
    )
    .unwrap();
    let out =
        Command::new(tool).args(["verify", "--man=no"]).arg(&unit).output().expect("run systemd-analyze");
    assert!(String::from_utf8_lossy(&out.stderr).contains("DrainSec"), "{out:?}");
}

#[test]
fn the_sandbox_rates_ok() {
    let Some(tool) = systemd_analyze() else { return };
    let dir = tempfile::tempdir().unwrap();
    let unit = installed(dir.path());
    // --threshold is the exposure times ten: 20 is 2.0, under systemd's "OK" bound.
    let out = Command::new(tool)
        .args(["security", "--offline=true", "--threshold=20", "--no-pager"])
        .arg(&unit)
        .output()
        .expect("run systemd-analyze");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exposure over 2.0:\n{}", report.lines().last().unwrap_or(""));
}
