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

    #[test]
    fn other_panics_pass_through_within() {
        let r = std::panic::catch_unwind(|| within(None, || panic!("a bug")));
        assert!(r.is_err());
    }
}
