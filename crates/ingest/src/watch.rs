//! Watching a gem5 run while gem5 writes it: the run is checked again each
//! time its files grow, with [`Reading::in_progress`], until a violation
//! that counts (see [`counts`]) is found — then the simulation can stop.
//!
//! Why it is sound to stop there: what an in-progress check reports as a
//! violation is one of the whole run. The SE client's output is read up to
//! its last whole round and each round is its own history; a tester trace
//! is read as a trace cut where it ends, whose prefix keeps only operations
//! the whole run has with the same reads-from (see `check_damaged`).
//!
//! The cost is bounded: a check starts only when the run's files have grown
//! since the last one, and no sooner than twice the last check's time after
//! it, so checking takes at most about a third of the machine while gem5
//! runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memconform_core::check::Options;
use memconform_core::models::Model;

use crate::checked::{check_run, Checked, Reading};

/// The files under a run directory that are memconform's, not gem5's: their
/// growth does not call for a new check.
pub const OWN_FILES: &[&str] = &["memconform-watch.json"];

/// How often a watched run is looked at, in seconds (`memconform watch`'s
/// default, and a campaign's `--stop-at-violation`): a stop comes within
/// about this much of the violating round's line (measured on gem5 runs:
/// 0.23–0.24 s at 0.2 s, 1.03–1.04 s at 1 s).
pub const INTERVAL_S: f64 = 0.25;

/// A gem5 run directory being watched.
pub struct Watch {
    dir: PathBuf,
    models: Vec<Model>,
    opts: Options,
    reading: Reading,
    /// The run's bytes at the last check (`None`: not checked yet).
    seen: Option<u64>,
    /// When the last check ended, and what it cost.
    last: Option<(Instant, Duration)>,
    /// Checks made so far.
    pub checks: usize,
    /// When the last check that found nothing that counts began (its
    /// reading of the run: what was written later, it did not see).
    pub clean_since: Option<Instant>,
}

/// What one look at the run found.
pub enum Look {
    /// The run's files have not grown since the last check, or the last
    /// check is too recent (see [`Watch::look`]).
    Unchanged,
    /// The run cannot be read yet (gem5 has not written its configuration,
    /// or the client's first header): why.
    NotYet(String),
    /// Checked; nothing that counts is violated so far.
    Checked {
        /// Histories checked, and those with a violation that does not
        /// count (a model stronger than the one the run promises).
        histories: usize,
    },
    /// A violation that counts: every history checked, and the first
    /// violating one's index in it, with the outcome's.
    Violation {
        checked: Vec<Checked>,
        history: usize,
        outcome: usize,
    },
}

impl Watch {
    /// Watches the gem5 run in `dir`, checked against `models` with `opts`
    /// and `reading` (whose `in_progress` is set while gem5 runs).
    pub fn new(dir: &Path, models: &[Model], opts: Options, reading: Reading) -> Watch {
        Watch {
            dir: dir.to_path_buf(),
            models: models.to_vec(),
            opts,
            reading,
            seen: None,
            last: None,
            checks: 0,
            clean_since: None,
        }
    }

    /// Checks the run if it has grown since the last check and the last
    /// check ended at least twice its own time ago; the run is still being
    /// written.
    pub fn look(&mut self) -> Look {
        if let Some((ended, cost)) = self.last {
            if ended.elapsed() < cost * 2 {
                return Look::Unchanged;
            }
        }
        let size = run_bytes(&self.dir);
        if self.seen == Some(size) {
            return Look::Unchanged;
        }
        let reading = Reading {
            in_progress: true,
            ..self.reading
        };
        let look = self.check(&reading);
        if !matches!(look, Look::NotYet(_)) {
            self.seen = Some(size);
        }
        look
    }

    /// Checks the run once more as a whole: gem5 has ended. Input errors
    /// are errors now, not "not yet"; [`first_violation`] finds what counts.
    pub fn last_look(&mut self) -> Result<Vec<Checked>, crate::load::InputError> {
        let reading = Reading {
            in_progress: false,
            ..self.reading
        };
        let checked = check_run(&self.dir, &self.models, &self.opts, &reading)?;
        self.checks += 1;
        Ok(checked)
    }

    fn check(&mut self, reading: &Reading) -> Look {
        let t = Instant::now();
        let checked = check_run(&self.dir, &self.models, &self.opts, reading);
        self.last = Some((Instant::now(), t.elapsed()));
        match checked {
            Ok(checked) => {
                self.checks += 1;
                let look = judged(checked);
                if matches!(look, Look::Checked { .. }) {
                    self.clean_since = Some(t);
                }
                look
            }
            Err(e) => Look::NotYet(e.to_string()),
        }
    }
}

/// The first violation in `checked` that counts (it breaks the history's
/// promise, see [`Checked::breaks`]): the
/// history's position and the outcome's.
pub fn first_violation(checked: &[Checked]) -> Option<(usize, usize)> {
    checked.iter().enumerate().find_map(|(i, c)| {
        (0..c.outcomes.len())
            .find(|&j| c.breaks(j) == Some(true))
            .map(|j| (i, j))
    })
}

fn judged(checked: Vec<Checked>) -> Look {
    match first_violation(&checked) {
        Some((history, outcome)) => Look::Violation {
            checked,
            history,
            outcome,
        },
        None => Look::Checked {
            histories: checked.len(),
        },
    }
}

/// The bytes of the files directly in `dir` (gem5 writes its trace, the
/// client's output, simout and simerr there), memconform's own left out.
pub fn run_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            !OWN_FILES
                .iter()
                .any(|own| e.file_name().to_string_lossy() == *own)
        })
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}
