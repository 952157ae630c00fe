//! The time budget of a check and the user's interrupt: every engine and
//! model loop asks [`spent`], so a first Ctrl-C ends the histories in flight
//! (their verdicts `unknown`, "interrupted") instead of waiting for them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Records the user's interrupt (Ctrl-C): from now on every budget is spent.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether the user interrupted the run.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Whether the budget ending at `deadline` is spent, or the run interrupted.
#[inline]
pub fn spent(deadline: Option<Instant>) -> bool {
    interrupted() || deadline.is_some_and(|d| Instant::now() >= d)
}

/// Why a model was not run or not finished: the user's interrupt or the
/// time budget (`what` says which part of the budget).
pub fn reason(what: &str) -> String {
    if interrupted() {
        "interrupted (Ctrl-C) before this model finished".to_string()
    } else {
        what.to_string()
    }
}

/// What one model's check may spend: a time budget and bytes of working
/// memory (`--timeout`, `--max-memory`). Search engines whose memory grows
/// with the search (forks, memo tables, visited states) stop at `memory`
/// and answer `unknown`, never abort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub deadline: Option<Instant>,
    pub memory: u64,
}

impl Limits {
    /// Neither time nor memory bounded (tests, the oracle).
    pub const NONE: Limits = Limits {
        deadline: None,
        memory: u64::MAX,
    };

    /// Only a deadline.
    pub fn time(deadline: Option<Instant>) -> Limits {
        Limits {
            deadline,
            memory: u64::MAX,
        }
    }

    /// Whether the time is spent or the run interrupted.
    #[inline]
    pub fn spent(&self) -> bool {
        spent(self.deadline)
    }

    /// Whether `bytes` more of working memory pass the limit.
    #[inline]
    pub fn over(&self, bytes: u64) -> bool {
        bytes > self.memory
    }
}

thread_local! {
    /// The deadline of the [`within`] running on this thread (`Some(None)`:
    /// none, only an interrupt ends it), for [`checkpoint`].
    static DEADLINE: std::cell::Cell<Option<Option<Instant>>> = const { std::cell::Cell::new(None) };
}

/// The unwinding payload of a spent budget (never a panic message).
struct Expired;

/// Runs `f` (a model's check on one thread) under `deadline`: a
/// [`checkpoint`] inside it that finds the budget spent ends it, and the
/// answer is `None`. Deep loops ask `checkpoint` instead of threading a
/// deadline through every function.
pub fn within<T>(deadline: Option<Instant>, f: impl FnOnce() -> T) -> Option<T> {
    let outer = DEADLINE.replace(Some(deadline));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    DEADLINE.set(outer);
    match result {
        Ok(t) => Some(t),
        Err(payload) if payload.is::<Expired>() => None,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// Ends the enclosing [`within`] when its budget is spent (or the user
/// interrupted); outside one it does nothing. Costs a clock read: call it
/// per row or per operation, not in inner loops.
#[inline]
pub fn checkpoint() {
    if DEADLINE.get().is_some_and(spent) {
        // not a panic: no message, no hook, caught by `within`
        std::panic::resume_unwind(Box::new(Expired));
    }
}

/// The most memory this process may use, in bytes: the smallest of the
/// machine's memory (`MemTotal` of `/proc/meminfo`), the process's
/// address-space and data limits (`RLIMIT_AS`, `RLIMIT_DATA`, as
/// `/proc/self/limits` gives them: `ulimit -v`, `ulimit -d`, `prlimit`) and
/// its cgroup's memory limit (cgroup v2 `memory.max`, v1
/// `memory.limit_in_bytes`, of the cgroup `/proc/self/cgroup` names and
/// every cgroup above it); `None` when none can be read.
pub fn memory_ceiling() -> Option<u64> {
    memory_ceiling_in(
        std::path::Path::new("/proc"),
        std::path::Path::new("/sys/fs/cgroup"),
    )
}

/// [`memory_ceiling`] with `proc` for `/proc` and `cgroups` for
/// `/sys/fs/cgroup` (tests give a made-up tree).
pub fn memory_ceiling_in(proc: &std::path::Path, cgroups: &std::path::Path) -> Option<u64> {
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
    let total = read(proc.join("meminfo")).and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    let limits = read(proc.join("self/limits")).unwrap_or_default();
    // `Max address space   unlimited   unlimited   bytes`: the soft limit
    let rlimit = |name: &str| {
        limits
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|soft| soft.parse::<u64>().ok())
    };
    let cgroup = read(proc.join("self/cgroup"))
        .and_then(|s| cgroup_limit(&s, cgroups, &|p| read(p.to_path_buf())));
    [
        total,
        rlimit("Max address space"),
        rlimit("Max data size"),
        cgroup,
    ]
    .into_iter()
    .flatten()
    .min()
}

/// The smallest memory limit of the cgroups in `self_cgroup` (the text of
/// `/proc/self/cgroup`) and their ancestors, under `root`: v2 (`0::/path`,
/// `memory.max`; `max` is none) or v1 (`N:...memory...:/path`, the
/// `memory` hierarchy's `memory.limit_in_bytes`; a value past 2^60 is
/// none). `read` reads a file.
fn cgroup_limit(
    self_cgroup: &str,
    root: &std::path::Path,
    read: &dyn Fn(&std::path::Path) -> Option<String>,
) -> Option<u64> {
    let mut limits = Vec::new();
    for line in self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (base, file) = if id == "0" && controllers.is_empty() {
            (root.to_path_buf(), "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        // the cgroup and each one above it, up to the hierarchy's root
        let mut dir = base.join(path.trim_start_matches('/'));
        loop {
            if let Some(v) = read(&dir.join(file)) {
                let v = v.trim();
                if let Ok(n) = v.parse::<u64>() {
                    if n < 1 << 60 {
                        limits.push(n);
                    }
                }
            }
            if dir == base || !dir.pop() || !dir.starts_with(&base) {
                break;
            }
        }
    }
    limits.into_iter().min()
}

/// Bytes for people: `1.5 GB`.
pub fn human(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_checkpoint_ends_its_within_once_the_deadline_passes() {
        let passed = Some(Instant::now());
        let mut reached = 0;
        let r = within(passed, || {
            reached += 1;
            checkpoint();
            reached += 1;
        });
        assert_eq!((r, reached), (None, 1));
        let later = Some(Instant::now() + Duration::from_secs(3600));
        assert_eq!(
            within(later, || {
                checkpoint();
                7
            }),
            Some(7)
        );
        // outside a `within`, and after one, nothing ends
        checkpoint();
        assert_eq!(within(None, || within(passed, checkpoint)), Some(None));
        checkpoint();
    }

    /// A made-up `/proc` and `/sys/fs/cgroup`: the smallest limit wins.
    #[test]
    fn the_memory_ceiling_is_the_smallest_limit() {
        let dir = std::env::temp_dir().join(format!("memconform-budget-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (proc, cg) = (dir.join("proc"), dir.join("cgroup"));
        let write = |p: std::path::PathBuf, text: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            proc.join("meminfo"),
            "MemTotal:       16000000 kB\nMemFree: 1 kB\n",
        );
        let limits =
            "Limit                     Soft Limit           Hard Limit           Units     \n\
            Max data size             unlimited            unlimited            bytes     \n\
            Max address space         unlimited            unlimited            bytes     \n";
        write(proc.join("self/limits"), limits);
        write(proc.join("self/cgroup"), "0::/\n");
        // the machine's memory alone (the root's memory.max is absent)
        assert_eq!(memory_ceiling_in(&proc, &cg), Some(16_000_000 * 1024));
        // an address-space limit (`ulimit -v 400000`)
        write(
            proc.join("self/limits"),
            &limits.replace(
                "Max address space         unlimited",
                "Max address space         409600000",
            ),
        );
        assert_eq!(memory_ceiling_in(&proc, &cg), Some(409_600_000));
        write(proc.join("self/limits"), limits);
        // cgroup v2: the cgroup's own limit and its parent's, the smaller
        write(proc.join("self/cgroup"), "0::/user.slice/job\n");
        write(cg.join("user.slice/job/memory.max"), "max\n");
        write(cg.join("user.slice/memory.max"), "2000000000\n");
        assert_eq!(memory_ceiling_in(&proc, &cg), Some(2_000_000_000));
        write(cg.join("user.slice/job/memory.max"), "1000000000\n");
        assert_eq!(memory_ceiling_in(&proc, &cg), Some(1_000_000_000));
        // cgroup v1: the memory hierarchy; "unlimited" is a huge number
        write(
            proc.join("self/cgroup"),
            "5:cpu,cpuacct:/a\n4:memory:/docker/abc\n1:name=systemd:/\n",
        );
        write(
            cg.join("memory/docker/abc/memory.limit_in_bytes"),
            "9223372036854771712\n",
        );
        assert_eq!(memory_ceiling_in(&proc, &cg), Some(16_000_000 * 1024));
        write(
            cg.join("memory/docker/memory.limit_in_bytes"),
            "3000000000\n",
        );
        assert_eq!(memory_ceiling_in(&proc, &cg), Some(3_000_000_000));
        // nothing readable
        assert_eq!(memory_ceiling_in(&dir.join("none"), &cg), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn other_panics_pass_through_within() {
        let r = std::panic::catch_unwind(|| within(None, || panic!("a bug")));
        assert!(r.is_err());
    }
}
