//! The open-file limit. Every connected player is one open file, and the
//! usual default soft limit (1,024) would turn players away long before
//! `--max-connections`. At start the server raises the soft limit as far as
//! the hard limit allows and warns when that is still short. The benchmark
//! uses the same call for its own process.

/// The open-file limit after [`raise_file_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileLimit {
    pub soft: u64,
    pub hard: u64,
}

/// Open files the server uses besides its players (listener, runtime,
/// database, standard streams), with room to spare.
pub const RESERVED_FILES: u64 = 64;

/// Raise `RLIMIT_NOFILE`'s soft limit as far as the hard limit allows (at
/// least to `want` where the hard limit permits), first trying to lift the
/// hard limit to `want` (which only works with CAP_SYS_RESOURCE). Child
/// processes inherit the result.
#[cfg(unix)]
pub fn raise_file_limit(want: u64) -> FileLimit {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return FileLimit { soft: 0, hard: 0 };
    }
    if lim.rlim_max < want {
        let bigger = libc::rlimit { rlim_cur: want, rlim_max: want };
        // SAFETY: setrlimit only reads the struct. Without privilege it fails, which is fine.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &bigger) } == 0 {
            lim = bigger;
        }
    }
    // The hard limit itself first; where that is refused (an unlimited hard
    // limit above the kernel's own cap, as on macOS), `want` if it is lower.
    for soft in [lim.rlim_max, want.min(lim.rlim_max)] {
        if soft <= lim.rlim_cur {
            continue;
        }
        let raised = libc::rlimit { rlim_cur: soft, rlim_max: lim.rlim_max };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            lim = raised;
            break;
        }
    }
    FileLimit { soft: lim.rlim_cur, hard: lim.rlim_max }
}

/// Elsewhere the limit is the platform's business.
#[cfg(not(unix))]
pub fn raise_file_limit(_want: u64) -> FileLimit {
    FileLimit { soft: u64::MAX, hard: u64::MAX }
}

/// Raises the limit for `max_connections` players, logs it, and warns when
/// fewer can connect.
pub fn prepare(max_connections: usize) -> FileLimit {
    let want = max_connections as u64 + RESERVED_FILES;
    let lim = raise_file_limit(want);
    if lim.soft < want {
        tracing::warn!(
            soft = lim.soft,
            hard = lim.hard,
            max_connections,
            "the open-file limit allows only about {} players; raise it (ulimit -n, or LimitNOFILE= \
             in a systemd unit) to reach --max-connections",
            lim.soft.saturating_sub(RESERVED_FILES)
        );
    } else {
        tracing::info!(soft = lim.soft, hard = lim.hard, "open-file limit");
    }
    lim
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_reaches_what_is_wanted_within_the_hard_one() {
        let want = 4096;
        let lim = raise_file_limit(want);
        assert!(lim.soft >= want.min(lim.hard), "{lim:?}");
        assert!(lim.soft <= lim.hard, "{lim:?}");
    }
}
