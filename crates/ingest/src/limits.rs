//! The limits of the machine a check runs on, measured (the core is given
//! them, it measures nothing: docs/design/layers.md): the memory this
//! process may use, read from `/proc` and the cgroup files, and the default
//! memory budget per history derived from it.

/// The default memory limit per history (`--max-memory`): a quarter of the
/// memory this process may use — the smallest of the machine's memory, its
/// address-space and data limits (`ulimit -v`, `ulimit -d`) and its
/// cgroup's limit ([`memory_ceiling`]) — or
/// [`memconform_core::check::DEFAULT_MAX_MEMORY`] when none can be read.
///
/// A quarter, not all: the budget is one model's check of one history,
/// against an estimate of its main structures, while the process also
/// holds the histories waiting in the batch and their parsed forms, the
/// allocator's slack and, under an address-space limit, every thread's
/// stack and malloc arena (reserved, not used); the checks of several
/// histories run at once (`-j`). A quarter leaves that room on a machine
/// of a few cores; `--max-memory` sets the budget exactly.
pub fn default_max_memory() -> u64 {
    memory_ceiling().map_or(memconform_core::check::DEFAULT_MAX_MEMORY, |bytes| {
        bytes / 4
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A made-up `/proc` and `/sys/fs/cgroup`: the smallest limit wins.
    #[test]
    fn the_memory_ceiling_is_the_smallest_limit() {
        let dir = std::env::temp_dir().join(format!("memconform-limits-{}", std::process::id()));
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
}
