//! Processes and timeouts (docs/design/campaigns.md §6, no process outlives
//! its command): commands run in their own process groups under a keeper,
//! their output logged, their limits kept, and the run template filled.

use super::*;

/// The process groups of the commands running now (builds, runs), so
/// that a process ending at once (a second Ctrl-C) kills them first.
pub(super) static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// A command's process group, listed in [`RUNNING`] while it runs (a
/// build, a run, `watch`'s command): [`kill_running`] kills it.
pub struct Running(i32);

impl Running {
    /// Lists `pgid` until the value is dropped.
    pub fn register(pgid: nix::unistd::Pid) -> Running {
        let raw = pgid.as_raw();
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(raw);
        Running(raw)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&g| g != self.0);
    }
}

/// Kills (SIGKILL) the process group of every build and run this process
/// has running: for a process about to end at once.
pub fn kill_running() {
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    for &g in running.iter() {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(g),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// The program and arguments that run a command under a keeper of its
/// process group (the binary's `guard`: the group is stopped when the
/// runner ends, however, and what the command leaves running in it when
/// it ends); unset (a library's use, the unit tests), a command runs
/// directly, with a parent-death signal.
pub(super) static KEEPER: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

/// Runs every later build and run under the keeper `prefix` starts (see
/// [`KEEPER`]).
pub fn keep_commands_with(prefix: Vec<std::ffi::OsString>) {
    let _ = KEEPER.set(prefix);
}

/// How a command ended.
pub(crate) struct Ended {
    /// Its exit code (`None`: a signal; 124 when killed by the runner).
    pub(crate) code: Option<i32>,
    pub(crate) secs: f64,
    /// Where a build's time went (see [`BuildPhases`]).
    pub(crate) phases: Option<BuildPhases>,
    /// Killed because the campaign was stopped (it will be redone).
    pub(crate) stopped: bool,
    /// Killed at its time limit.
    pub(crate) timed_out: bool,
}

/// A command's time limit, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Of wall time: a build, whose parallel jobs share the machine.
    Wall(u64),
    /// Of time the command had a CPU for: wall time less the longest time
    /// a process of its group waited for one (the kernel's
    /// `/proc/PID/schedstat`; for a run, gem5's wait), so that a loaded machine does not time out a
    /// gem5 run that would have ended in time alone (a run that hangs
    /// burns its CPU, or sleeps, and is timed out either way); wall time
    /// where the kernel does not say.
    Machine(u64),
}

impl Limit {
    fn secs(self) -> u64 {
        match self {
            Limit::Wall(s) | Limit::Machine(s) => s,
        }
    }
}

/// The seconds the process of group `pgid` that waited longest for a CPU
/// has waited (`/proc/PID/schedstat`'s second field, over the group's
/// processes now alive); `None` when the kernel does not say.
pub(crate) fn group_cpu_wait_s(pgid: i32) -> Option<f64> {
    let mut longest: Option<f64> = None;
    let group = pgid.to_string();
    for e in fs::read_dir("/proc").ok()?.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        // stat: `pid (comm) state ppid pgrp ...`; comm may hold anything
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        if after.split_whitespace().nth(2) != Some(group.as_str()) {
            continue;
        }
        let Ok(sched) = fs::read_to_string(format!("/proc/{pid}/schedstat")) else {
            continue;
        };
        let Some(wait_ns) = sched
            .split_whitespace()
            .nth(1)
            .and_then(|w| w.parse::<u64>().ok())
        else {
            continue;
        };
        let w = wait_ns as f64 / 1e9;
        longest = Some(longest.map_or(w, |l: f64| l.max(w)));
    }
    longest
}

/// Runs `command` by `sh -c` in `dir` with output to `log`, killed (its
/// whole process group) at its `limit` or when `stop` is set; with
/// `watch`, looked at every second and killed at a violation that counts.
pub(crate) fn run_command(
    command: &str,
    dir: &Path,
    log: &Path,
    limit: Limit,
    stop: &AtomicBool,
    mut watch: Option<&mut memconform_ingest::watch::Watch>,
) -> Result<Ended, Error> {
    use std::os::unix::process::CommandExt;
    let mut out = File::create(log).map_err(|e| io_err(log, e))?;
    let t = Instant::now();
    // the output through a pipe, copied to the log line by line and timed
    // (see `Marks`)
    let (reader, writer) = std::io::pipe().map_err(|e| err(format!("cannot make a pipe: {e}")))?;
    let marks = std::sync::Arc::new(Mutex::new(Marks::default()));
    let copier = {
        let marks = marks.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let _ = out.write_all(&line);
                marks
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .see(&line, t.elapsed().as_secs_f64());
                line.clear();
            }
            let _ = out.flush();
        })
    };
    let mut cmd = match KEEPER.get() {
        // the keeper stops the group when the runner ends, however, and
        // what the command leaves running when it ends
        Some(prefix) => {
            let mut c = Command::new(&prefix[0]);
            c.args(&prefix[1..]).arg("sh");
            c
        }
        None => Command::new("sh"),
    };
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().map_err(|e| io_err(log, e))?)
        .stderr(writer)
        .process_group(0);
    if KEEPER.get().is_none() {
        // SAFETY: prctl is async-signal-safe; nothing else runs between
        // fork and exec. A runner killed outright (SIGKILL) takes its
        // command with it (the shell, or what it execs; what the shell
        // started may stay: the keeper is there for that)
        unsafe {
            cmd.pre_exec(|| {
                let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
                Ok(())
            });
        }
    }
    let spawned = cmd.spawn();
    // our ends of the pipe's writing side go: the copier ends with the command
    drop(cmd);
    let mut child = spawned.map_err(|e| err(format!("cannot run `{command}`: {e}")))?;
    // the copier's last lines in the log, and the marks, before anything
    // else is appended (a process the command left behind may hold the
    // pipe open: then its copier is left to finish alone)
    let finish_copy = move || -> Option<BuildPhases> {
        let t_end = t.elapsed().as_secs_f64();
        let until = Instant::now() + std::time::Duration::from_secs(2);
        while !copier.is_finished() && Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        if copier.is_finished() {
            let _ = copier.join();
        }
        let m = *marks.lock().unwrap_or_else(|e| e.into_inner());
        BuildPhases::of(t_end, m.step, m.compile, m.link)
    };
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _running = Running::register(pgid);
    let kill = |sig| {
        // the group may be gone already: nothing to signal then
        let _ = nix::sys::signal::killpg(pgid, sig);
    };
    let watch_interval = std::time::Duration::from_secs_f64(memconform_ingest::watch::INTERVAL_S);
    let mut next_look = Instant::now() + watch_interval;
    // the longest wait for a CPU seen so far (a process that ends takes
    // its count with it: the largest seen stands), looked up every second
    let mut waited = 0.0f64;
    let mut next_wait = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| err(e.to_string()))? {
            let secs = t.elapsed().as_secs_f64();
            return Ok(Ended {
                code: status.code(),
                secs,
                phases: finish_copy(),
                stopped: false,
                timed_out: false,
            });
        }
        if let Some(w) = watch.as_deref_mut().filter(|_| Instant::now() >= next_look) {
            next_look = Instant::now() + watch_interval;
            if let memconform_ingest::watch::Look::Violation { .. } = w.look() {
                let secs = t.elapsed().as_secs_f64();
                kill(nix::sys::signal::Signal::SIGTERM);
                std::thread::sleep(std::time::Duration::from_millis(500));
                kill(nix::sys::signal::Signal::SIGKILL);
                let _ = child.wait();
                let phases = finish_copy();
                let mut f = OpenOptions::new()
                    .append(true)
                    .open(log)
                    .map_err(|e| io_err(log, e))?;
                let _ = writeln!(f, "\n{STOP_MARK} after {secs:.1} s ({} checks)", w.checks);
                return Ok(Ended {
                    code: None,
                    secs,
                    phases,
                    stopped: false,
                    timed_out: false,
                });
            }
        }
        let wall = t.elapsed().as_secs_f64();
        if let Limit::Machine(_) = limit {
            if Instant::now() >= next_wait {
                next_wait = Instant::now() + std::time::Duration::from_secs(1);
                if let Some(w) = group_cpu_wait_s(pgid.as_raw()) {
                    waited = waited.max(w);
                }
            }
        }
        let over = wall - waited >= limit.secs() as f64;
        if over || stop.load(Ordering::Relaxed) {
            kill(nix::sys::signal::Signal::SIGTERM);
            std::thread::sleep(std::time::Duration::from_millis(500));
            kill(nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            let phases = finish_copy();
            if over {
                let mut f = OpenOptions::new()
                    .append(true)
                    .open(log)
                    .map_err(|e| io_err(log, e))?;
                match limit {
                    Limit::Wall(l) => {
                        let _ = writeln!(f, "\n{TIMEOUT_MARK} after {l} s (the limit)");
                    }
                    Limit::Machine(l) => {
                        let _ = writeln!(
                            f,
                            "\n{TIMEOUT_MARK} after {l} s (the limit) with a CPU: {wall:.0} s of wall time, \
                             {waited:.0} s of them waiting for one"
                        );
                    }
                }
            }
            return Ok(Ended {
                code: Some(124),
                secs: t.elapsed().as_secs_f64(),
                phases,
                stopped: !over,
                timed_out: over,
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The run command with its placeholders filled, each value one shell
/// word (quoted where it must be: a campaign path with a space works).
/// `{params}` becomes a configuration mutant's `--param` options; a
/// template without it gets them at its end (the config script's options).
pub fn fill(
    template: &str,
    gem5: &Path,
    root: &Path,
    outdir: &Path,
    seed: u64,
    mutant: &str,
    params: &[String],
) -> String {
    let params = params
        .iter()
        .map(|p| format!("--param {}", shell_word(p)))
        .collect::<Vec<_>>()
        .join(" ");
    let mut command = template
        .replace("{gem5}", &shell_word(&gem5.to_string_lossy()))
        .replace("{gem5_root}", &shell_word(&root.to_string_lossy()))
        .replace("{outdir}", &shell_word(&outdir.to_string_lossy()))
        .replace("{seed}", &seed.to_string())
        .replace("{mutant}", &shell_word(mutant));
    if template.contains("{params}") {
        command = command.replace("{params}", &params);
    } else if !params.is_empty() {
        command.push(' ');
        command.push_str(&params);
    }
    command
}

/// The one shell quoting of every command memconform writes.
pub use memconform_report::commands::shell_word;

#[cfg(test)]
mod tests {
    use super::*;

    /// Two endless busy loops on one CPU, each limited to 1 s of machine
    /// time: each has the CPU half the time, so each is timed out after
    /// about 2 s of wall time, not 1 (a wall-clock limit would cut a run
    /// of a loaded machine short); a limit of wall time cuts at 1 s. (Each
    /// `secs` also holds the half second between SIGTERM and SIGKILL.)
    #[test]
    fn a_run_waiting_for_a_cpu_is_not_timed_out_by_the_wait() {
        let on_cpu0 = Command::new("taskset")
            .args(["-c", "0", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !on_cpu0 || group_cpu_wait_s(nix::unistd::getpgrp().as_raw()).is_none() {
            eprintln!("skipped: no taskset, or the kernel gives no /proc/PID/schedstat");
            return;
        }
        let dir = std::env::temp_dir().join(format!("memconform-limit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let busy = "exec taskset -c 0 sh -c 'while :; do :; done'";
        let stop = AtomicBool::new(false);
        let ended: Vec<Ended> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..2)
                .map(|i| {
                    let (dir, stop) = (&dir, &stop);
                    s.spawn(move || {
                        let log = dir.join(format!("busy{i}.log"));
                        run_command(busy, dir, &log, Limit::Machine(1), stop, None).unwrap()
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        for e in &ended {
            assert!(e.timed_out && e.code == Some(124));
            assert!(
                e.secs >= 2.0,
                "timed out after {:.2} s of wall time",
                e.secs
            );
        }
        let log = fs::read_to_string(dir.join("busy0.log")).unwrap();
        assert!(log.contains("waiting for one"), "{log}");
        let wall = run_command(
            busy,
            &dir,
            &dir.join("wall.log"),
            Limit::Wall(1),
            &stop,
            None,
        )
        .unwrap();
        assert!(wall.timed_out && wall.secs < 2.0, "{:.2} s", wall.secs);
        let _ = fs::remove_dir_all(&dir);
    }
}
