//! The keeper of a command's process group: `watch` and a campaign's runs
//! start their command through it, so that no process of the command
//! outlives the memconform that started it, whatever signals end them.
//!
//! The keeper is this binary run again (`/proc/self/exe __keep PID --
//! COMMAND...`) as the leader of a new process group; it starts COMMAND
//! in that group and waits for it. It is needed because a process killed
//! outright (SIGKILL, as `timeout -k` and Slurm send after SIGTERM) runs
//! no code, and a parent-death signal reaches only its direct child, not
//! what that child started (a shell's `gem5 &`): the keeper, a process of
//! the group that outlives its starter, does the stopping.
//!
//! - memconform ends (any way): the keeper's parent is gone (it looks every
//!   20 ms), so it stops the group: SIGTERM to each of its processes, then
//!   SIGKILL after 1 s to those left, and ends.
//! - COMMAND ends while processes it started still run in the group (a
//!   background job): the keeper stops them (SIGTERM, SIGKILL after 2 s)
//!   and says so on standard error, then ends as COMMAND ended (its exit
//!   code, or its signal), so its starter sees COMMAND's end.
//! - memconform stops the group (`killpg`): the keeper, which catches
//!   SIGTERM, SIGINT and SIGHUP, stays to stop what the signal left, as above.
//!
//! The keeper is a child subreaper: processes of COMMAND whose parent ends
//! become its children, so it reaps them and none is left a zombie.

use std::ffi::OsString;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

/// The hidden first argument that makes this binary a keeper.
pub const ARG: &str = "__keep";

/// The start of a command line that runs a command under a keeper whose
/// starter is this process: the program, then the arguments before the
/// command's own.
pub fn prefix() -> Vec<OsString> {
    vec![
        "/proc/self/exe".into(),
        ARG.into(),
        std::process::id().to_string().into(),
        "--".into(),
    ]
}

/// The processes of process group `group` (`pgrp` in `/proc/PID/stat`),
/// but `except` and zombies.
fn members(group: i32, except: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != except)
        .filter(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // after the command's name in parentheses: state ppid pgrp ...
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first() != Some(&"Z")
                && fields.get(2).and_then(|g| g.parse().ok()) == Some(group)
        })
        .collect()
}

/// Reaps every ended child; returns the wait status of `command` when it
/// is among them.
fn reap(command: Pid) -> Option<WaitStatus> {
    let mut found = None;
    loop {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) | Err(_) => return found,
            Ok(s) => {
                if s.pid() == Some(command) {
                    found = Some(s);
                }
            }
        }
    }
}

/// Stops the group's processes but the keeper: SIGTERM, then SIGKILL to
/// those left after `grace`; returns how many there were.
fn stop_group(me: i32, command: Pid, grace: Duration, ended: &mut Option<WaitStatus>) -> usize {
    let first = members(me, me);
    for &p in &first {
        let _ = kill(Pid::from_raw(p), Signal::SIGTERM);
    }
    let t = Instant::now();
    while t.elapsed() < grace && !members(me, me).is_empty() {
        if let Some(s) = reap(command) {
            ended.get_or_insert(s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // SIGKILL until none is left (a process may fork meanwhile)
    for _ in 0..100 {
        let left = members(me, me);
        if left.is_empty() {
            break;
        }
        for &p in &left {
            let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(10));
        if let Some(s) = reap(command) {
            ended.get_or_insert(s);
        }
    }
    if let Some(s) = reap(command) {
        ended.get_or_insert(s);
    }
    first.len()
}

/// Ends this process as `status` ended the command: its exit code, or its
/// signal (raised again with the default action).
fn end_as(status: Option<WaitStatus>) -> ! {
    match status {
        Some(WaitStatus::Exited(_, code)) => std::process::exit(code),
        Some(WaitStatus::Signaled(_, sig, _)) => {
            // SAFETY: restoring a signal's default action and raising it,
            // on the way out of a process that holds nothing to clean up
            unsafe {
                let _ = nix::sys::signal::signal(sig, nix::sys::signal::SigHandler::SigDfl);
            }
            let _ = nix::sys::signal::raise(sig);
            std::process::exit(128 + sig as i32)
        }
        _ => std::process::exit(125),
    }
}

/// Runs the keeper (`args`: what follows [`ARG`]: the starter's pid,
/// `--`, the command); never returns.
pub fn main(args: &[OsString]) -> ! {
    let starter: Option<i32> = args.first().and_then(|a| a.to_str()?.parse().ok());
    let command = args.get(2..).unwrap_or(&[]);
    let (Some(starter), Some(program)) = (starter, command.first()) else {
        eprintln!("memconform: {ARG} is memconform's own: {ARG} PID -- COMMAND...");
        std::process::exit(125);
    };
    let me = std::process::id() as i32;
    // a group of its own, when its starter did not make one
    let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
    let _ = nix::sys::prctl::set_child_subreaper(true);
    // caught (and so reset to the default in the command), not ignored
    let caught = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ] {
        let _ = signal_hook::flag::register(sig, caught.clone());
    }
    let child = match Command::new(program).args(&command[1..]).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "memconform: cannot run `{}`: {e}",
                program.to_string_lossy()
            );
            std::process::exit(127);
        }
    };
    let command_pid = Pid::from_raw(child.id() as i32);
    // the child is reaped here, by pid, not through `child`
    std::mem::forget(child);
    let mut ended: Option<WaitStatus> = None;
    loop {
        if let Some(s) = reap(command_pid) {
            ended = Some(s);
        }
        if nix::unistd::getppid().as_raw() != starter {
            // the starter is gone: nobody waits for this group any more
            stop_group(me, command_pid, Duration::from_secs(1), &mut ended);
            end_as(ended);
        }
        if ended.is_some() {
            let left = members(me, me);
            if !left.is_empty() {
                let shown: Vec<String> = left.iter().take(5).map(|p| p.to_string()).collect();
                eprintln!(
                    "memconform: the command ended and left {} process{} of its process group running (pid {}{}): stopped",
                    left.len(),
                    if left.len() == 1 { "" } else { "es" },
                    shown.join(", "),
                    if left.len() > 5 { ", ..." } else { "" }
                );
                stop_group(me, command_pid, Duration::from_secs(2), &mut ended);
            }
            end_as(ended);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
