//! What the benchmark reads from and asks of the operating system: a
//! process's CPU time (in clock ticks, and per thread to the nanosecond
//! where the kernel keeps it) and resident memory from `/proc`, this
//! thread's CPU time, and the open-file limit (raised with the server crate's own call).
//! Linux only, like the figures it feeds; the system calls go through
//! `rustix`, so no `unsafe` here.

use std::collections::BTreeMap;
use std::fs;
use std::time::Duration;

pub use mazerace_server::fdlimit::{raise_file_limit, FileLimit};

/// A process's CPU time so far, all threads together, in user space and
/// in the kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuSplit {
    pub user: Duration,
    /// System time: the process's system calls (a loopback send carries the
    /// receiving side's TCP work with it) and the faults it took.
    pub kernel: Duration,
}

impl CpuSplit {
    pub fn total(self) -> Duration {
        self.user + self.kernel
    }
}

pub fn cpu_split(pid: u32) -> Option<CpuSplit> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat, clock_ticks_per_second())
}

/// utime and stime of a `/proc/<pid>/stat` line.
fn parse_stat(stat: &str, ticks_per_sec: u64) -> Option<CpuSplit> {
    // The command name (field 2) is in parentheses and may hold spaces: the
    // fields we want are counted from the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ')' come state (field 3) ...; utime is field 14, stime field 15.
    let utime: u64 = fields.get(14 - 3)?.parse().ok()?;
    let stime: u64 = fields.get(15 - 3)?.parse().ok()?;
    let ticks = |t: u64| Duration::from_secs_f64(t as f64 / ticks_per_sec as f64);
    Some(CpuSplit { user: ticks(utime), kernel: ticks(stime) })
}

/// Resident set size in bytes (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The machine's CPU so far, every core, from the first line of `/proc/stat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MachineCpu {
    /// Time not idle (idle and I/O wait excluded): every process, the
    /// kernel's interrupt work, and what the hypervisor stole.
    pub busy: Duration,
    /// Stolen: time a virtual CPU wanted to run and the host ran another
    /// guest. A part of `busy` that no process of this machine used.
    pub stolen: Duration,
}

pub fn machine_cpu() -> Option<MachineCpu> {
    let stat = fs::read_to_string("/proc/stat").ok()?;
    parse_cpu_line(stat.lines().next()?, clock_ticks_per_second())
}

/// `cpu  user nice system idle iowait irq softirq steal guest guest_nice`,
/// in clock ticks (guest time is already in user).
fn parse_cpu_line(line: &str, ticks_per_sec: u64) -> Option<MachineCpu> {
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3)? + v.get(4).copied().unwrap_or(0);
    let ticks = |t: u64| Duration::from_secs_f64(t as f64 / ticks_per_sec as f64);
    Some(MachineCpu { busy: ticks(total - idle), stolen: ticks(v.get(7).copied().unwrap_or(0)) })
}

/// This thread's CPU time so far (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_time() -> Duration {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(u64::try_from(ts.tv_sec).unwrap_or(0), u32::try_from(ts.tv_nsec).unwrap_or(0))
}

/// The unit of `/proc`'s CPU times (`sysconf(_SC_CLK_TCK)`, from the auxiliary vector).
fn clock_ticks_per_second() -> u64 {
    match rustix::param::clock_ticks_per_second() {
        0 => 100,
        t => t,
    }
}

/// One line about the machine, for the report.
pub fn machine_summary() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let mem_gib = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map(|kib| kib / 1024.0 / 1024.0)
        .unwrap_or(0.0);
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{cpu}, {cores} cores, {mem_gib:.0} GiB RAM, Linux {}", kernel.trim())
}

/// A CPU and memory reading of one process at one moment.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// User and system time together.
    pub cpu: Duration,
    /// The system time in `cpu`.
    pub kernel: Duration,
    pub rss: u64,
}

pub fn sample(pid: u32) -> Sample {
    let c = cpu_split(pid).unwrap_or_default();
    Sample { cpu: c.total(), kernel: c.kernel, rss: rss_bytes(pid).unwrap_or(0) }
}

/// Each live thread of `pid` and its time on a CPU so far, to the
/// nanosecond: `se.sum_exec_runtime` of `/proc/<pid>/task/<tid>/sched`,
/// which kernels built with `CONFIG_SCHED_DEBUG` keep. `/proc/<pid>/stat`
/// counts in clock ticks (10 ms): a server at 0.4% of a core gets two of
/// them in a 5 s window, too coarse to weigh one more watcher. `None` when
/// the kernel keeps no such file. A thread takes its time with it when it
/// ends: compare two readings with [`run_time_between`].
pub fn thread_run_times(pid: u32) -> Option<BTreeMap<u32, Duration>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else { continue };
        // A thread that ended between the listing and the read is left
        // out, as it would be a moment later.
        let Ok(text) = fs::read_to_string(entry.path().join("sched")) else { continue };
        out.insert(tid, parse_sum_exec_runtime(&text)?);
    }
    (!out.is_empty()).then_some(out)
}

/// The CPU time the threads used from reading `a` to reading `b`, or
/// `None` when a thread of `a` is gone from `b` (its time went with it).
/// A thread new in `b` used all of its time in between.
pub fn run_time_between(a: &BTreeMap<u32, Duration>, b: &BTreeMap<u32, Duration>) -> Option<Duration> {
    if a.keys().any(|tid| !b.contains_key(tid)) {
        return None;
    }
    Some(b.iter().map(|(tid, t)| t.saturating_sub(a.get(tid).copied().unwrap_or_default())).sum())
}

/// `se.sum_exec_runtime : 3882609.415598`, in milliseconds with six
/// decimals: read as integers, so no nanosecond is lost to a float.
fn parse_sum_exec_runtime(sched: &str) -> Option<Duration> {
    let line = sched.lines().find(|l| l.starts_with("se.sum_exec_runtime"))?;
    let value = line.split(':').nth(1)?.trim();
    let (ms, frac) = value.split_once('.').unwrap_or((value, ""));
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ns_frac: u64 = format!("{frac:0<6}").parse().ok()?;
    Some(Duration::from_millis(ms.parse().ok()?) + Duration::from_nanos(ns_frac))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_process() {
        let pid = std::process::id();
        assert!(rss_bytes(pid).unwrap() > 0);
        // Spin until the kernel has counted a tick of CPU for us: a fixed
        // wall-clock spin can get no CPU at all on a loaded machine.
        let spin = std::time::Instant::now();
        let mut x = 0u64;
        let cpu = || cpu_split(pid).unwrap().total();
        while cpu() == Duration::ZERO && spin.elapsed() < Duration::from_secs(20) {
            for _ in 0..100_000 {
                x = x.wrapping_add(std::hint::black_box(1));
            }
        }
        // The process may have had CPU counted before the loop (other tests
        // run beside this one): then it never spins, which is fine.
        std::hint::black_box(x);
        assert!(cpu() > Duration::ZERO);
        assert!(thread_cpu_time() > Duration::ZERO);
        assert!(machine_cpu().unwrap().busy > Duration::ZERO);
    }

    #[test]
    fn reads_each_threads_run_time_to_the_nanosecond() {
        let sched = "x (1, #threads: 1)\n---\nse.exec_start   :   3882609.415598\n\
                     se.sum_exec_runtime                          :             12.076755\n";
        assert_eq!(parse_sum_exec_runtime(sched), Some(Duration::from_nanos(12_076_755)));
        assert_eq!(
            parse_sum_exec_runtime("se.sum_exec_runtime : 7.5"),
            Some(Duration::from_nanos(7_500_000))
        );
        assert_eq!(parse_sum_exec_runtime("se.sum_exec_runtime : 7"), Some(Duration::from_millis(7)));
        assert_eq!(parse_sum_exec_runtime("se.sum_exec_runtime : 7.1234567"), None);
        assert_eq!(parse_sum_exec_runtime("se.vruntime : 7.0"), None);
        // This kernel may keep no such file; when it does, our own threads are in it.
        if let Some(mine) = thread_run_times(std::process::id()) {
            assert!(mine.values().any(|t| *t > Duration::ZERO), "{mine:?}");
        }
    }

    #[test]
    fn run_time_counts_new_threads_and_refuses_ended_ones() {
        let ms = Duration::from_millis;
        let a = BTreeMap::from([(1, ms(10)), (2, ms(20))]);
        let b = BTreeMap::from([(1, ms(15)), (2, ms(21)), (3, ms(4))]);
        assert_eq!(run_time_between(&a, &b), Some(ms(10)));
        let ended = BTreeMap::from([(1, ms(15))]);
        assert_eq!(run_time_between(&a, &ended), None);
    }

    #[test]
    fn reads_busy_and_stolen_time_from_the_cpu_line() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        let line = "cpu  6000 100 3000 80000 500 0 900 250 0 0";
        let m = parse_cpu_line(line, 100).unwrap();
        assert_eq!(m.busy, Duration::from_millis((6000 + 100 + 3000 + 900 + 250) * 10));
        assert_eq!(m.stolen, Duration::from_millis(2500));
        // A kernel too old to have the steal column: nothing stolen.
        let old = parse_cpu_line("cpu  10 0 10 100 0 0 0", 100).unwrap();
        assert_eq!((old.busy, old.stolen), (Duration::from_millis(200), Duration::ZERO));
    }

    #[test]
    fn splits_user_and_system_time_past_a_name_with_spaces() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        let stat = "4242 (mazerace (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 1250 375 0 0 20 0 3 0";
        let c = parse_stat(stat, 100).unwrap();
        assert_eq!(c.user, Duration::from_millis(12_500));
        assert_eq!(c.kernel, Duration::from_millis(3_750));
        assert_eq!(c.total(), Duration::from_millis(16_250));
        assert!(parse_stat("4242 (cut short) S 1", 100).is_none());
    }
}
