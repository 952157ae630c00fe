//! Shards (docs/design/campaigns.md §6 and §9): the mutants of shard k of
//! N, and the lock that lets one runner hold a shard.

use super::*;

/// The shard lock files (`lock-K`) in campaign `dir`, with their shards.
pub(super) fn shard_locks(dir: &Path) -> Result<Vec<(usize, PathBuf)>, Error> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_err(dir, e))?.flatten() {
        let path = entry.path();
        let k = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("lock-"))
            .and_then(|k| k.parse::<usize>().ok());
        if let Some(k) = k {
            out.push((k, path));
        }
    }
    Ok(out)
}

impl Campaign {
    /// The mutants of shard `k` of `n`: a pure function of the sorted ids.
    pub fn shard(&self, k: usize, n: usize) -> Vec<&Mutant> {
        let mut ids: Vec<&Mutant> = self.mutants.iter().collect();
        ids.sort_by(|a, b| a.id.cmp(&b.id));
        ids.into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k)
            .map(|(_, m)| m)
            .collect()
    }
}

/// The advisory lock of one shard of a campaign: `lock-K` in the campaign
/// directory, locked (`flock`) by the `mutate run` of shard K for as long
/// as it runs, with its pid, host and shard written in it. A second runner
/// of the same shard is refused, naming the first; the kernel releases the
/// lock when its holder ends, however it ends (kill -9, a node's crash
/// where the file system's locks follow it), so a runner that died needs
/// no clearing up: the next one takes the lock and resumes from the log.
/// A runner with another shard count is refused too while any shard is
/// held (its shards would overlap theirs: the same mutants run twice).
pub struct ShardLock {
    /// Locked while this lives; unlocked when it is dropped or the
    /// process ends.
    _file: File,
    /// The shard held, `(k, n)`.
    pub shard: (usize, usize),
    /// The lock file.
    pub path: PathBuf,
}

/// Why [`ShardLock::take`] failed.
#[derive(Debug)]
pub enum LockError {
    /// Another process runs the shard, or a shard of another count: who.
    Busy(String),
    /// The lock file cannot be opened or written.
    Io(Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy(why) => f.write_str(why),
            LockError::Io(e) => e.fmt(f),
        }
    }
}

/// What a lock file says of its holder: `pid P on HOST, shard K/N`.
pub(super) fn holder_of(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let text = text.trim();
    if text.is_empty() {
        "a process that has not written its pid yet".to_string()
    } else {
        memconform_report::printable(text).into_owned()
    }
}

/// The shard count in what a lock file says, if it says one.
pub(super) fn shard_count_of(path: &Path) -> Option<usize> {
    let text = fs::read_to_string(path).ok()?;
    let (_, shard) = text.trim().rsplit_once("shard ")?;
    shard.split_once('/')?.1.parse().ok()
}

/// This machine's name, for the lock file (a campaign on a shared file
/// system is run from many nodes).
pub(super) fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this host".to_string())
}

impl ShardLock {
    /// Locks shard `(k, n)` of `c` for this process, or says who holds it.
    pub fn take(c: &Campaign, (k, n): (usize, usize)) -> Result<ShardLock, LockError> {
        use std::fs::TryLockError;
        let io = |p: &Path, e: std::io::Error| LockError::Io(io_err(p, e));
        let path = c.dir.join(format!("lock-{k}"));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        // a few tries: another runner may be probing this lock (below) at
        // this very moment
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if tries < 4 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(format!(
                        "shard {k} of {} is being run by {} (its lock: {}); \
                         wait for it to end or stop it: the next `mutate run` resumes \
                         where it stopped (a run that died leaves nothing to clear)",
                        shown(&c.dir),
                        holder_of(&path),
                        shown(&path)
                    )));
                }
                Err(TryLockError::Error(e)) => return Err(io(&path, e)),
            }
        }
        file.set_len(0)
            .and_then(|()| {
                writeln!(
                    file,
                    "pid {} on {}, shard {k}/{n}",
                    std::process::id(),
                    host_name()
                )
            })
            .and_then(|()| file.sync_data())
            .map_err(|e| io(&path, e))?;
        // runners of another shard count: their shards overlap this one
        let others = shard_locks(&c.dir).map_err(LockError::Io)?;
        for (_, other) in others.into_iter().filter(|&(j, _)| j != k) {
            let Ok(f) = File::open(&other) else { continue };
            match f.try_lock_shared() {
                Ok(()) => {} // nobody runs it (unlocked as `f` closes)
                Err(TryLockError::WouldBlock) if shard_count_of(&other) == Some(n) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(format!(
                        "{} is being run with another shard count by {} (its lock: {}): \
                         shards of {n} would run some of its mutants again; wait for it \
                         to end or stop it, or run with its shard count",
                        shown(&c.dir),
                        holder_of(&other),
                        shown(&other)
                    )));
                }
                Err(TryLockError::Error(_)) => {}
            }
        }
        Ok(ShardLock {
            _file: file,
            shard: (k, n),
            path,
        })
    }
}
