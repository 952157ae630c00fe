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
