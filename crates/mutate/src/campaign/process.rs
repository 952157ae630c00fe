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

/// Runs `command` by `sh -c` in `dir` with output to `log`, killed (its
/// whole process group) after `limit_s` seconds or when `stop` is set; with
/// `watch`, looked at every second and killed at a violation that counts.
pub(crate) fn run_command(
    command: &str,
    dir: &Path,
    log: &Path,
    limit_s: u64,
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
        let over = t.elapsed().as_secs() >= limit_s;
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
                let _ = writeln!(f, "\n{TIMEOUT_MARK} after {limit_s} s (the limit)");
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
