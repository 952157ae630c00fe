//! What a check may spend, as its caller gives it: a [`Cancel`] token (the
//! caller's cancellation and the time budget's deadline) and bytes of
//! working memory ([`Limits`]). Nothing here is measured or global: the
//! binary measures the machine's memory and turns signals into
//! [`Cancel::cancel`] (docs/design/layers.md, "What crosses each boundary").
//! Every engine loop asks [`Cancel::spent`] and returns when it is.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A cancellation token with an optional deadline: spent once its holder
/// cancels it (from any thread) or the deadline passes. Clones share the
/// cancellation; [`Cancel::until`] gives one with another deadline.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    /// `None`: nobody can cancel this token (only its deadline ends it).
    flag: Option<Arc<Flag>>,
    deadline: Option<Instant>,
    /// A deadline counted in polls ([`Cancel::after_polls`]): the polls
    /// left before it passes, shared by clones.
    polls: Option<Arc<AtomicU64>>,
}

/// The shared part of a [`Cancel`]: whether it was cancelled, and by whom.
#[derive(Debug, Default)]
struct Flag {
    set: AtomicBool,
    by: Mutex<Option<String>>,
}

/// Why a [`Cancel`] is spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// Its holder cancelled it; `by` is the name it gave (e.g. `Ctrl-C`).
    Cancelled { by: String },
    /// Its deadline passed.
    Deadline,
}

/// A check stopped because its [`Cancel`] was spent ([`Cancel::stop`]
/// says why): the error of the loops that ask the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spent;

impl Cancel {
    /// A token nobody cancels, without a deadline (tests, the oracle).
    pub const NEVER: Cancel = Cancel {
        flag: None,
        deadline: None,
        polls: None,
    };

    /// A token its holder can cancel, without a deadline.
    pub fn new() -> Cancel {
        Cancel {
            flag: Some(Arc::default()),
            deadline: None,
            polls: None,
        }
    }

    /// A token its holder can cancel whose deadline is its `n`-th poll
    /// ([`Cancel::spent`]) instead of a time: spent from that poll on, as
    /// a passed deadline ([`Stop::Deadline`]). Where a check stops is then
    /// the same on every run (tests of where the engines ask the token).
    pub fn after_polls(n: u64) -> Cancel {
        Cancel {
            polls: Some(Arc::new(AtomicU64::new(n))),
            ..Cancel::new()
        }
    }

    /// Cancels this token and every clone of it; `by` names who (the first
    /// name given is kept). A token made by [`Cancel::NEVER`] ignores it.
    pub fn cancel(&self, by: &str) {
        if let Some(f) = &self.flag {
            let mut who = f.by.lock().unwrap_or_else(|e| e.into_inner());
            who.get_or_insert_with(|| by.to_string());
            f.set.store(true, Ordering::SeqCst);
        }
    }

    /// This token's cancellation with `deadline` (the earlier one, if it
    /// has a deadline already).
    pub fn until(&self, deadline: Option<Instant>) -> Cancel {
        let deadline = match (self.deadline, deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Cancel {
            flag: self.flag.clone(),
            deadline,
            polls: self.polls.clone(),
        }
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the holder cancelled the token.
    #[inline]
    pub fn cancelled(&self) -> bool {
        self.flag
            .as_ref()
            .is_some_and(|f| f.set.load(Ordering::Relaxed))
    }

    /// Whether the token is spent: cancelled, or past its deadline. Costs
    /// a clock read when there is a deadline: ask it per row or per
    /// operation, not in inner loops.
    #[inline]
    pub fn spent(&self) -> bool {
        self.cancelled()
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.polls.as_ref().is_some_and(|p| poll(p))
    }

    /// `Err(Spent)` when the token is spent ([`Cancel::spent`]): a loop
    /// that stops with it asks `cancel.ask()?`.
    #[inline]
    pub fn ask(&self) -> Result<(), Spent> {
        match self.spent() {
            true => Err(Spent),
            false => Ok(()),
        }
    }

    /// Why the token is spent, `None` while it is not; a cancellation
    /// counts before the deadline.
    pub fn stop(&self) -> Option<Stop> {
        if let Some(f) = self.flag.as_ref().filter(|f| f.set.load(Ordering::SeqCst)) {
            let by = f.by.lock().unwrap_or_else(|e| e.into_inner()).clone();
            return Some(Stop::Cancelled {
                by: by.unwrap_or_default(),
            });
        }
        let polled_out = self
            .polls
            .as_ref()
            .is_some_and(|p| p.load(Ordering::SeqCst) == 0);
        (polled_out || self.deadline.is_some_and(|d| Instant::now() >= d)).then_some(Stop::Deadline)
    }
}

/// One poll of a deadline counted in polls: whether this poll is at or
/// past it (the count stays at 0 from then on).
fn poll(left: &AtomicU64) -> bool {
    let before = left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    matches!(before, Ok(1) | Err(_))
}

/// What one model's check may spend: its token (the time budget and the
/// caller's cancellation) and bytes of working memory (`--timeout`,
/// `--max-memory`). Search engines whose memory grows with the search
/// (forks, memo tables, visited states) stop at `memory` and answer
/// `unknown`, never abort.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'c> {
    pub cancel: &'c Cancel,
    pub memory: u64,
}

impl Limits<'static> {
    /// Neither time nor memory bounded, never cancelled (tests, the oracle).
    pub const NONE: Limits<'static> = Limits {
        cancel: &Cancel::NEVER,
        memory: u64::MAX,
    };
}

impl Limits<'_> {
    /// Whether the time is spent or the check cancelled.
    #[inline]
    pub fn spent(&self) -> bool {
        self.cancel.spent()
    }

    /// Whether `bytes` more of working memory pass the limit.
    #[inline]
    pub fn over(&self, bytes: u64) -> bool {
        bytes > self.memory
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
    fn a_token_is_spent_once_cancelled_or_past_its_deadline() {
        let c = Cancel::new();
        assert!(!c.spent() && c.stop().is_none());
        let later = c.until(Some(Instant::now() + Duration::from_secs(3600)));
        let passed = c.until(Some(Instant::now()));
        assert!(!later.spent());
        assert_eq!(passed.stop(), Some(Stop::Deadline));
        // the earlier deadline stays
        assert_eq!(passed.until(later.deadline()).deadline(), passed.deadline());
        // a cancellation reaches every clone, with the first name given
        later.cancel("SIGTERM");
        c.cancel("Ctrl-C");
        for t in [&c, &later, &passed] {
            assert!(t.spent());
            assert_eq!(
                t.stop(),
                Some(Stop::Cancelled {
                    by: "SIGTERM".into()
                })
            );
        }
        // tokens apart from it, and NEVER, are not
        assert!(!Cancel::new().spent());
        Cancel::NEVER.cancel("Ctrl-C");
        assert!(!Cancel::NEVER.spent() && !Limits::NONE.spent());
    }

    #[test]
    fn a_deadline_in_polls_passes_at_its_nth_poll_for_every_clone() {
        let c = Cancel::after_polls(3);
        let later = c.until(Some(Instant::now() + Duration::from_secs(3600)));
        assert!(!c.spent() && c.stop().is_none());
        assert_eq!(later.ask(), Ok(()));
        assert_eq!(c.stop(), None, "asking why polls nothing");
        assert!(later.spent());
        for t in [&c, &later] {
            assert!(t.spent());
            assert_eq!(t.stop(), Some(Stop::Deadline));
            assert_eq!(t.ask(), Err(Spent));
        }
        assert!(Cancel::after_polls(0).spent() && Cancel::after_polls(1).spent());
    }
}
