//! The open-file limit. Every connected player is one open file, and the
//! usual default soft limit (1,024) would turn players away long before
//! `--max-connections`. At start the server raises the soft limit as far as
//! the hard limit allows and warns when that is still short. The benchmark
//! uses the same call for its own process.

/// The open-file limit after [`raise_file_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileLimit {
    /// The soft limit: what the process may open now.
    pub soft: u64,
    /// The hard limit: how far an unprivileged process may raise the soft one.
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
    use rlimit::Resource;
    let Ok((mut soft, mut hard)) = Resource::NOFILE.get() else {
        return FileLimit { soft: 0, hard: 0 };
    };
    // Without privilege this fails, which is fine: the hard limit stays.
    if hard < want && Resource::NOFILE.set(want, want).is_ok() {
        (soft, hard) = (want, want);
    }
    // The hard limit itself first; where that is refused (an unlimited hard
    // limit above the kernel's own cap, as on macOS), `want` if it is lower.
    for raised in [hard, want.min(hard)] {
        if raised <= soft {
            continue;
        }
        if Resource::NOFILE.set(raised, hard).is_ok() {
            soft = raised;
            break;
        }
    }
    FileLimit { soft, hard }
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

/// The soft open-file limit now, if the platform tells.
pub fn file_limit() -> Option<u64> {
    match rlimit::getrlimit(rlimit::Resource::NOFILE) {
        Ok((soft, _)) if soft != rlimit::INFINITY => Some(soft),
        _ => None,
    }
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
