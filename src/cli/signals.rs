//! SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`, Slurm at a time limit or
//! `scancel`) and SIGHUP (a closed terminal): one thread receives them
//! (signal-hook), so that what a signal does is ordinary code.
//!
//! A command that can stop cleanly says how ([`cooperate`]: `check` ends
//! the histories in flight, `mutate run` the runs in flight) and then
//! exits with [`code`] of the signal once its output is committed. Any
//! other command, or a second signal, exits at once: the runs a campaign
//! started are killed and every temporary output file removed first (an
//! output is replaced whole or not at all). Either way the exit status is
//! 128 + the signal's number, as a shell reports a process the signal
//! ended: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. A signal that
//! was ignored when memconform started (`nohup`, a background job of a
//! non-interactive shell) stays ignored.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The first signal received (0: none yet).
static FIRST: AtomicI32 = AtomicI32::new(0);

/// What a first signal does in a command that stops cleanly.
type Stop = Box<dyn Fn(i32) + Send + Sync>;
static COOPERATE: OnceLock<Stop> = OnceLock::new();

/// Whether `sig` is ignored now (as inherited from the parent).
fn ignored(sig: i32) -> bool {
    use nix::libc;
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a query: no new action, `old` is a valid sigaction to fill
    let ok = unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) } == 0;
    ok && old.sa_sigaction == libc::SIG_IGN
}

/// Starts receiving the signals: until a command [`cooperate`]s, the first
/// one ends the process at once (see the module).
pub fn install() {
    let wanted: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|&s| !ignored(s))
        .collect();
    let Ok(mut signals) = signal_hook::iterator::Signals::new(&wanted) else {
        return; // the default actions stay
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if FIRST
                .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                if let Some(stop) = COOPERATE.get() {
                    stop(sig);
                    continue;
                }
            }
            exit_now(sig);
        }
    });
}

/// Makes the first signal call `stop` (on the signal thread) instead of
/// ending the process: the command stops by itself and exits with
/// [`code`]; a second signal still ends it at once.
pub fn cooperate(stop: impl Fn(i32) + Send + Sync + 'static) {
    let _ = COOPERATE.set(Box::new(stop));
}

/// The first signal received, if any.
pub fn received() -> Option<i32> {
    match FIRST.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The exit status after `sig`: 128 + its number.
pub fn code(sig: i32) -> i32 {
    128 + sig
}

/// How a message names `sig`.
pub fn name(sig: i32) -> &'static str {
    match sig {
        SIGINT => "Ctrl-C",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Ends the process after `sig` now: a campaign's runs killed, every
/// temporary output file removed.
fn exit_now(sig: i32) -> ! {
    memconform_mutate::campaign::kill_running();
    memconform_report::output::exit_removing_staged(code(sig))
}
