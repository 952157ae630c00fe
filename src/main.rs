//! The `memconform` command: the command line ([`cli`]) and the batch
//! driver ([`batch`]) over the workspace's crates.

/// mimalloc: many small histories allocate and free many small vectors;
/// it halves the allocator's share of a 10,000-history batch (see README,
/// Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod batch;
mod cli;

/// `mi_option_purge_delay` in the `mimalloc.h` (v3) that `libmimalloc-sys`
/// 0.1.49 builds: milliseconds before freed memory goes back to the system.
/// The crate declares `mi_option_set` but names no constant for this option.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Turns transparent huge pages off for this process, unless
/// `MIMALLOC_ALLOW_THP` is set: a fault on one zeroes 2 MB, and where
/// memory is fragmented the kernel first compacts it. PSO's frontier table
/// at 2·10⁵ operations (208 MB) took 0.07–0.59 s to fill with them and
/// 0.13 s without; TSO at 10⁶ operations is 4% faster, axe's suite as fast
/// at half the peak memory. Children inherit the setting: the commands
/// that run gem5 (`watch`, `mutate`'s campaigns) leave it alone.
pub(crate) fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // `PR_SET_THP_DISABLE`; a failure (an old kernel) only leaves huge pages on
        let _ = nix::sys::prctl::set_thp_disable(true);
    }
}

fn main() {
    // Keep freed memory: by default mimalloc returns it after a delay (1 s
    // in the v3 built here, its `options.c`), and the kernel zeroes every
    // page again when it is reused — a fifth of TSO's time at 10⁶
    // operations (6.1 → 4.9 s, `benches/how-big.sh`). The peak is
    // unchanged; `MIMALLOC_PURGE_DELAY` still wins when set.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets an integer option of the linked allocator; it takes
        // effect for later frees and needs no other state.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
    std::process::exit(cli::run());
}

#[cfg(test)]
mod tests {
    /// [`super::MI_OPTION_PURGE_DELAY`] is the purge delay of the mimalloc
    /// linked: the option has that delay's default, 1,000 ms (`options.c`
    /// of v3), unless `MIMALLOC_PURGE_DELAY` sets it.
    #[test]
    fn the_purge_delay_option_is_mimallocs() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads an integer option of the linked allocator.
        let delay = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000);
    }
}
