//! One input checked: each history with its outcomes and what ingestion knew
//! of it (its run's metadata, its operations' origins, the damage of its
//! trace, notes, the gem5 run's command line), so that a report never reads
//! the input again.

use std::path::Path;

use std::ops::ControlFlow;

use rayon::prelude::*;

use memconform_core::check::promise::{self, Kept, Promise, Status};
use memconform_core::check::shrink::{target_of, NotViolated, Target};
use memconform_core::check::{check_gradual_with, Options, Outcome, UnknownReason, Verdict};
use memconform_core::history::History;
use memconform_core::models::Model;

use crate::load::{load_file, stream_file, InputError};
pub use crate::provenance::Origins;
use crate::provenance::RunMeta;

/// How inputs are read, beside how they are checked: the views of a gem5
/// run, what a damaged trace may say, how long explanations get.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    /// gem5 tester runs: add the history in real-time order across ports
    /// (index 1) to the per-port one (index 0).
    pub real_time: bool,
    /// Check the prefix of a damaged gem5 trace and report its verdicts as
    /// they are (the `damage` column still says so), instead of `unknown`.
    pub allow_damage: bool,
    /// The most ProtocolTrace transitions a gem5 violation's explanation
    /// lists (0: none).
    pub transitions: usize,
    /// The run is still being written (`memconform watch`): the SE client's
    /// output is read up to its last whole round, a tester trace as if cut
    /// where it ends; what was read keeps its violations, and `consistent`
    /// becomes `unknown` where the rest of the run could still change it.
    pub in_progress: bool,
    /// `--promise`: the model every history is held to, whatever its run
    /// or file promises.
    pub promise: Option<Model>,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            real_time: false,
            allow_damage: false,
            transitions: 40,
            in_progress: false,
            promise: None,
        }
    }
}

/// One checked history.
pub struct Checked {
    pub history: History,
    /// What the history says of its run (protocol, seed, CPUs, the
    /// promised model, ...), read once from its metadata.
    pub run: RunMeta,
    pub outcomes: Vec<Outcome>,
    /// Per outcome: its violation explained in the input's own terms (gem5
    /// ports, ticks, trace lines), where the input allows.
    pub explanations: Vec<Option<String>>,
    /// Notes on the input (a damaged trace, ambiguous reads, ...).
    pub notes: Vec<String>,
    /// Where the input is damaged (`file:line:col: what`), if it is.
    pub damage: Option<String>,
    /// Where each operation comes from (a gem5 tester run's history: its
    /// port, ticks and trace lines).
    pub origins: Option<Origins>,
    /// A gem5 run: the command line that made it (`simout.txt`).
    pub command: Option<String>,
    /// The promise the history is held to, and whether it keeps it (none
    /// when neither its run, its file nor `--promise` names one).
    pub promise: Option<Kept>,
}

impl Checked {
    /// Whether the history breaks its promise (a bug of the run); with no
    /// promise, whether any asked model is violated.
    pub fn broken(&self) -> bool {
        match &self.promise {
            Some(k) => k.status == Status::Broken,
            None => self
                .outcomes
                .iter()
                .any(|o| o.verdict() == Verdict::Violation),
        }
    }

    /// Whether outcome `i` breaks the promise (`None`: not known; with no
    /// promise, every violation does).
    pub fn breaks(&self, i: usize) -> Option<bool> {
        let o = &self.outcomes[i];
        match &self.promise {
            Some(k) => k.breaks(o),
            None => match o.verdict() {
                Verdict::Violation => Some(true),
                Verdict::Consistent => Some(false),
                Verdict::Unknown => None,
            },
        }
    }

    /// Whether the history's answer is undecided: its promise's verdict
    /// (or, with none, an asked model's) is unknown and nothing is broken.
    pub fn undecided(&self) -> bool {
        match &self.promise {
            Some(k) => match k.status {
                Status::Unknown => true,
                Status::Unneeded => self
                    .outcomes
                    .iter()
                    .any(|o| o.verdict() == Verdict::Unknown),
                _ => false,
            },
            None => {
                !self.broken()
                    && self
                        .outcomes
                        .iter()
                        .any(|o| o.verdict() == Verdict::Unknown)
            }
        }
    }

    /// Whether the history keeps its promise but violates an asked model
    /// the promise does not imply (store buffering on an O3 run).
    pub fn allowed(&self) -> bool {
        self.promise
            .as_ref()
            .is_some_and(|k| k.status == Status::Kept)
            && self
                .outcomes
                .iter()
                .any(|o| o.verdict() == Verdict::Violation)
    }
}

/// Checks one history of a history file (no origins beyond its positions),
/// held to the promise its file makes.
pub fn check_history(history: History, models: &[Model], opts: &Options) -> Checked {
    check_history_promised(history, models, opts, None)
}

/// [`check_history`], held to `flag` (`--promise`) when set.
pub fn check_history_promised(
    history: History,
    models: &[Model],
    opts: &Options,
    flag: Option<Model>,
) -> Checked {
    let outcomes = check_gradual_with(&history, models, opts);
    let explanations = vec![None; outcomes.len()];
    let mut c = Checked {
        run: RunMeta::of(&history),
        history,
        outcomes,
        explanations,
        notes: Vec::new(),
        damage: None,
        origins: None,
        command: None,
        promise: None,
    };
    settle_promise(&mut c, flag, opts, None);
    c
}

/// Decides whether `c` keeps its promise ([`promise::decide`]); `prefix`:
/// the history is a prefix of the run (a cut trace, a run still being
/// written), so a promised model checked on its own that holds is only
/// `unknown`, for that reason.
fn settle_promise(c: &mut Checked, flag: Option<Model>, opts: &Options, prefix: Option<&str>) {
    let Some(p) = Promise::of(&c.history, c.run.promise, flag) else {
        return;
    };
    let h = &c.history;
    c.promise = Some(promise::decide_with(p, &c.outcomes, |m| {
        let o = check_gradual_with(h, &[m], opts);
        match prefix {
            Some(why) => undecided(o, why),
            None => o,
        }
        .pop()
        .expect("one outcome per model asked")
    }));
}

/// Loads one input (a history file, or a gem5 run directory) and checks
/// every history in it against `models` (gradually), histories in parallel;
/// results in input order. For a gem5 run, `reading.real_time` adds the
/// history in real-time order across ports (index 1) to the per-port one
/// (index 0).
pub fn check_file(
    path: &Path,
    models: &[Model],
    opts: &Options,
    reading: &Reading,
) -> Result<Vec<Checked>, InputError> {
    if path.is_dir() {
        return check_run(path, models, opts, reading);
    }
    Ok(load_file(path)?
        .into_par_iter()
        .map(|h| check_history_promised(h, models, opts, reading.promise))
        .collect())
}

/// A gem5 run: its tester history (and the real-time one), explained; or an
/// SE-mode run's client histories.
pub fn check_run(
    dir: &Path,
    models: &[Model],
    opts: &Options,
    reading: &Reading,
) -> Result<Vec<Checked>, InputError> {
    let run = crate::gem5::open_run(dir)?;
    if let Some(client) = crate::gem5::client_run(&run)? {
        // an SE-mode run of the random client: its own histories, believed
        // only when the run's files agree on the program gem5 ran
        let conflicts = client.conflicts(&run);
        let output = client.output;
        let conflicts = &conflicts;
        let (histories, unfinished) = if reading.in_progress {
            crate::load::load_client_prefix(&output)?
        } else {
            (load_file(&output)?, None)
        };
        let unfinished = unfinished.map(|u| {
            format!(
                "the client output is still being written: {} of the {} rounds of the block at {}:{} are whole; each round is its own history, so their verdicts stand",
                u.rounds_seen,
                u.rounds,
                memconform_parsers::text::shown_path(&output),
                u.header
            )
        });
        return Ok(histories
            .into_par_iter()
            .map(|mut h| {
                se_meta(&run, &mut h);
                let mut c = if conflicts.is_empty() {
                    check_history_promised(h, models, opts, reading.promise)
                } else {
                    let outcomes = inconsistent(conflicts, models);
                    let mut c = Checked {
                        run: RunMeta::of(&h),
                        explanations: vec![None; outcomes.len()],
                        outcomes,
                        history: h,
                        notes: Vec::new(),
                        damage: None,
                        origins: None,
                        command: None,
                        promise: None,
                    };
                    settle_promise(&mut c, reading.promise, opts, None);
                    c
                };
                c.notes.push(se_note(&run, &output));
                c.notes.extend(unfinished.clone());
                c.notes.extend(warning_notes(&run));
                c.notes.extend(run.findings.notes.iter().cloned());
                c.notes.extend(client.findings.notes.iter().cloned());
                c.notes
                    .extend(conflicts.iter().map(|w| format!("inconsistent run: {w}")));
                c.command.clone_from(&run.command_line);
                c
            })
            .collect());
    }
    let modes: &[bool] = if reading.real_time {
        &[false, true]
    } else {
        &[false]
    };
    // the trace is read once for both views
    let trace = crate::gem5::read_within(&run, opts.max_memory)?;
    modes
        .par_iter()
        .map(|&rt| {
            let mut ing = crate::gem5::view(&run, &trace, rt)?;
            ing.history.index = rt as usize;
            tester_meta(&run.tester, &mut ing.history);
            let outcomes = if !ing.inconsistent.is_empty() {
                inconsistent(&ing.inconsistent, models)
            } else if let Some(why) = &ing.over_budget {
                models
                    .iter()
                    .map(|&m| Outcome::unknown(m, UnknownReason::Input(why.clone())))
                    .collect()
            } else {
                match &ing.damage {
                    Some(d) => {
                        check_damaged(&ing.history, d, models, opts, reading, &mut ing.notes)
                    }
                    None if reading.in_progress => {
                        ing.notes.push(IN_PROGRESS_NOTE.into());
                        undecided(
                            check_gradual_with(&ing.history, models, opts),
                            IN_PROGRESS_REASON,
                        )
                    }
                    None => check_gradual_with(&ing.history, models, opts),
                }
            };
            let origins = crate::gem5::tester::provenance(&ing.origins, run.trace.clone());
            let explanations = outcomes
                .iter()
                .map(|o| {
                    o.violation()
                        .map(|v| crate::gem5::explain(&run, &ing, &origins, v, reading.transitions))
                })
                .collect();
            let mut notes = std::mem::take(&mut ing.notes);
            notes.insert(
                0,
                format!("gem5 run: protocol {}, {}", run.protocol.name(), run.tester),
            );
            if let Some(p) = &run.panic {
                notes.push(format!("gem5 stopped: {}", without_pointers(p)));
            }
            notes.extend(warning_notes(&run));
            // a prefix of the run (cut, or still being written): a promised
            // model checked on its own that holds is not decided
            let prefix = match &ing.damage {
                Some(d) if d.cut && !reading.allow_damage => Some(cut_reason(d)),
                None if reading.in_progress => Some(IN_PROGRESS_REASON.to_string()),
                _ => None,
            };
            let mut c = Checked {
                run: RunMeta::of(&ing.history),
                history: ing.history,
                outcomes,
                explanations,
                notes,
                damage: ing.damage.as_ref().map(|d| d.to_string()),
                origins: Some(origins),
                command: run.command_line.clone(),
                promise: None,
            };
            settle_promise(&mut c, reading.promise, opts, prefix.as_deref());
            Ok(c)
        })
        .collect()
}

/// The notes saying what could not be read of a run's other files (see
/// [`crate::gem5::Run::warnings`]), each starting with [`WARNING`].
fn warning_notes(run: &crate::gem5::Run) -> impl Iterator<Item = String> + '_ {
    run.warnings.iter().map(|w| format!("{WARNING}{w}"))
}

/// How a note that warns starts: `check` also says these on standard error,
/// so that they show with any output format.
pub const WARNING: &str = "warning: ";

/// The outcomes of a run whose files disagree (see
/// [`crate::gem5::consistency`]): `unknown` for every model, the first
/// disagreement as the reason (the notes list them all).
fn inconsistent(conflicts: &[String], models: &[Model]) -> Vec<Outcome> {
    let reason = match conflicts {
        [one] => format!("inconsistent run: {one}"),
        [first, rest @ ..] => format!(
            "inconsistent run: {first} (and {} more disagreements, in the notes)",
            rest.len()
        ),
        [] => String::new(),
    };
    models
        .iter()
        .map(|&m| Outcome::unknown(m, UnknownReason::Input(reason.clone())))
        .collect()
}

/// A tester run's promise on its histories: SC. Ruby's random tester and
/// MemTest drive the memory system directly, one access at a time per
/// port slot; a coherent memory performs each access atomically between its
/// issue and its completion, so each variable's history is linearizable and
/// so, linearizability being local, is the whole history: SC in real-time
/// (and so in per-port interval) order.
fn tester_meta(tester: &memconform_parsers::gem5::config::Tester, h: &mut History) {
    use memconform_parsers::gem5::config::Tester;
    if matches!(tester, Tester::Other { .. }) {
        return;
    }
    if !h.meta.iter().any(|(k, _)| k == "expected_model") {
        h.meta
            .push(("expected_model".into(), Model::Sc.name().into()));
    }
}

/// An SE-mode run's facts on each client history: the protocol, the CPU
/// model, the cores' ISA and the memory model the configuration promises
/// (by name: `armv8` is a promise memconform cannot decide, so `unknown`).
fn se_meta(run: &crate::gem5::Run, h: &mut History) {
    h.meta.push(("protocol".into(), run.protocol.name().into()));
    if let Some(t) = run.cpu_type() {
        h.meta.push(("cpu_type".into(), t.into()));
    }
    if let Some(isa) = run.isa() {
        h.meta.push(("cpu_isa".into(), isa.into()));
    }
    if let Some(m) = run.promise() {
        h.meta.push(("expected_model".into(), m.into()));
    }
}

/// The note on an SE-mode run: protocol, cores, the promised model, and
/// cores whose configuration breaks that promise.
fn se_note(run: &crate::gem5::Run, output: &Path) -> String {
    let mut note = format!(
        "gem5 SE run: protocol {}, {} x {}, promises {}, client output in {}",
        run.protocol.name(),
        run.cpus.len(),
        run.cpu_type().unwrap_or("no CPU"),
        run.promise().map_or("no model it can be held to", |m| m),
        memconform_parsers::text::shown_path(output)
    );
    let off = run
        .cpus
        .iter()
        .filter(|c| c.needs_tso == Some(false))
        .count();
    if let Some(why) = run
        .promise()
        .and_then(|p| promise::UNAVAILABLE.iter().find(|(n, _)| *n == p))
        .map(|(_, why)| why)
    {
        note.push_str(&format!("; {why}: every answer on this run is unknown"));
    }
    if off > 0 && run.promised_model() == Some(Model::Tso) {
        note.push_str(&format!(
            "; needsTSO=false on {off} of {} cores: gem5 does not keep x86's TSO there (a configuration mutant)",
            run.cpus.len()
        ));
    }
    note
}

/// A history picked from one input to be shrunk, with its violation and
/// what names its operations' origins.
pub struct Picked {
    pub history: History,
    pub target: Target,
    /// For a gem5 tester run: each operation's origin in the trace.
    pub origins: Option<Origins>,
}

/// What [`pick_violation`] found.
pub enum Pick {
    /// The history to shrink.
    Violating(Box<Picked>),
    /// No history examined violates the model: each one's index and verdict.
    NoViolation(Vec<(usize, NotViolated)>),
}

/// The first history of `path` (a `.hist` or axe file, or a gem5 run: the
/// per-port view as index 0 and with `reading.real_time` the real-time view
/// as index 1) that violates `model` with `opts`, or the one at `index`. A
/// damaged gem5 trace follows `check`'s rule: only the violations of a
/// prefix cut at the end stand (any prefix's with `reading.allow_damage`).
pub fn pick_violation(
    path: &Path,
    model: Model,
    opts: &Options,
    reading: &Reading,
    index: Option<usize>,
) -> Result<Pick, InputError> {
    let real_time = reading.real_time;
    let error = |msg: String| InputError {
        file: path.to_path_buf(),
        pos: None,
        msg,
    };
    let mut not = Vec::new();
    // the history's pick, or its verdict recorded in `not`
    let examine = |not: &mut Vec<(usize, NotViolated)>, h: History, origins: Option<Origins>| {
        let i = h.index;
        match target_of(&h, model, opts) {
            Ok(target) => Some(Pick::Violating(Box::new(Picked {
                history: h,
                target,
                origins,
            }))),
            Err(e) => {
                not.push((i, e));
                None
            }
        }
    };
    if path.is_dir() {
        let run = crate::gem5::open_run(path)?;
        if let Some(client) = crate::gem5::client_run(&run)? {
            let conflicts = client.conflicts(&run);
            let output = client.output;
            let hs = load_file(&output)?;
            let n = hs.len();
            // files that disagree: nothing to shrink, each history `unknown`
            let distrusted = inconsistent(&conflicts, &[model])
                .pop()
                .and_then(|o| o.reason().map(|r| r.to_string()))
                .filter(|_| !conflicts.is_empty());
            for mut h in hs
                .into_iter()
                .filter(|h| index.is_none_or(|i| i == h.index))
            {
                if let Some(reason) = &distrusted {
                    let unknown = NotViolated {
                        model,
                        verdict: Verdict::Unknown,
                        internal: false,
                        reason: Some(reason.clone()),
                    };
                    not.push((h.index, unknown));
                    continue;
                }
                se_meta(&run, &mut h);
                if let Some(p) = examine(&mut not, h, None) {
                    return Ok(p);
                }
            }
            return match index {
                Some(i) if i >= n => Err(error(format!(
                    "no history #{i}: the client output {} holds {n}",
                    memconform_parsers::text::shown_path(&output)
                ))),
                _ => Ok(Pick::NoViolation(not)),
            };
        }
        match index {
            Some(1) if !real_time => {
                return Err(error(
                    "index 1 of a gem5 run is its real-time view: add --real-time".into(),
                ))
            }
            Some(i) if i > 1 => {
                return Err(error(format!(
                    "no history #{i}: a gem5 run has its per-port history (#0) and, with --real-time, its real-time one (#1)"
                )))
            }
            _ => {}
        }
        let trace = crate::gem5::read_within(&run, opts.max_memory)?;
        for rt in [false, true] {
            if (rt && !real_time) || index.is_some_and(|i| i != rt as usize) {
                continue;
            }
            let mut ing = crate::gem5::view(&run, &trace, rt)?;
            ing.history.index = rt as usize;
            // files that disagree, a trace over the budget, a damaged trace:
            // nothing to shrink, the history is `unknown` with the reason
            let distrusted = if ing.inconsistent.is_empty() {
                ing.over_budget.clone()
            } else {
                inconsistent(&ing.inconsistent, &[model])
                    .pop()
                    .and_then(|o| o.reason().map(|r| r.to_string()))
            };
            let damaged = || {
                ing.damage
                    .as_ref()
                    .filter(|d| !d.cut && !reading.allow_damage)
                    .map(|d| {
                        format!("damaged input: {d} (--allow-damage checks the prefix before it)")
                    })
            };
            if let Some(reason) = distrusted.or_else(damaged) {
                let unknown = NotViolated {
                    model,
                    verdict: Verdict::Unknown,
                    internal: false,
                    reason: Some(reason),
                };
                not.push((rt as usize, unknown));
                continue;
            }
            let origins = crate::gem5::tester::provenance(&ing.origins, run.trace.clone());
            if let Some(p) = examine(&mut not, ing.history, Some(origins)) {
                return Ok(p);
            }
        }
        return Ok(Pick::NoViolation(not));
    }
    let mut found = None;
    let mut failed = None;
    let mut seen = 0;
    stream_file(path, opts.max_memory, |h| {
        seen += 1;
        if index.is_some_and(|i| i != seen - 1) {
            return ControlFlow::Continue(());
        }
        match h {
            Ok(h) => found = examine(&mut not, h, None),
            Err(e) => failed = Some(e),
        }
        if found.is_some() || failed.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    match (found, index) {
        (Some(p), _) => Ok(p),
        (None, Some(i)) if i >= seen => Err(error(format!(
            "no history #{i}: the file holds {seen} (numbered from 0)"
        ))),
        (None, _) => Ok(Pick::NoViolation(not)),
    }
}

/// The outcomes of a run whose trace is damaged (its history is the prefix
/// before the damage), by the rule of damaged input: never a verdict the
/// whole run may not have.
///
/// - Corrupt (a line that does not parse, ticks out of order, requests and
///   completions that do not pair up, bad compressed data): `unknown` for
///   every model, nothing checked.
/// - Cut at the end (a last line without its newline, a gzip stream cut
///   short): the prefix is checked, and a violation stands; `consistent`
///   becomes `unknown` (the rest of the run is missing). A violation of the
///   prefix is one of the whole run: the prefix keeps the operations whose
///   issue and completion lines were read whole, each read resolved to the
///   same write as in the whole trace (a read's candidates are the writes
///   completed before it was issued, all in the prefix), and every model
///   here is kept by removing operations no kept read reads from (their bad
///   patterns only need edges the whole run also has; a witness order of
///   the whole restricts to the prefix). The failing read of a panic is kept
///   only when its candidates are in the prefix too (`tester::read_trace`).
/// - With `allow_damage` the prefix's verdicts are reported as they are.
fn check_damaged(
    history: &History,
    damage: &crate::gem5::tester::Damage,
    models: &[Model],
    opts: &Options,
    reading: &Reading,
    notes: &mut Vec<String>,
) -> Vec<Outcome> {
    if reading.allow_damage {
        notes.push(
            "--allow-damage: the verdicts are those of the prefix before the damage, not of the whole run"
                .into(),
        );
        return check_gradual_with(history, models, opts);
    }
    if !damage.cut {
        return models
            .iter()
            .map(|&m| Outcome::unknown(m, UnknownReason::Damaged(damage.to_string())))
            .collect();
    }
    notes.push(
        "the trace is cut: a violation of its prefix is one of the whole run; `consistent` is not decided (--allow-damage reports the prefix's verdicts)"
            .into(),
    );
    undecided(
        check_gradual_with(history, models, opts),
        &cut_reason(damage),
    )
}

/// Why `consistent` is `unknown` on a trace cut at `damage`.
fn cut_reason(damage: &crate::gem5::tester::Damage) -> String {
    format!("consistent up to the cut, the rest of the run is missing: {damage}")
}

/// Why `consistent` is `unknown` on a run still being written.
const IN_PROGRESS_REASON: &str = "consistent so far, the run is still being written";

/// The note on a tester trace checked while gem5 still writes it.
const IN_PROGRESS_NOTE: &str = "the run is still being written: its trace is checked as if cut where it ends now, so a violation stands and `consistent` is not decided";

/// `outcomes` of a prefix of a run: a violation stands (it is one of the
/// whole run, see [`check_damaged`]), `consistent` becomes `unknown` for `why`.
fn undecided(outcomes: Vec<Outcome>, why: &str) -> Vec<Outcome> {
    outcomes
        .into_iter()
        .map(|o| match o.verdict() {
            Verdict::Consistent => Outcome {
                seconds: o.seconds,
                ..Outcome::unknown(o.model, UnknownReason::Input(why.to_string()))
            },
            _ => o,
        })
        .collect()
}

/// gem5's panic text without the host pointers it prints (`data: 0x55f8…`),
/// which say nothing about the run and differ between identical runs.
fn without_pointers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("data: 0x") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "data: 0x".len()..];
        let hex = after.len()
            - after
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .len();
        rest = after[hex..].trim_start();
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_pointers_are_dropped_from_gem5_panics() {
        assert_eq!(
            super::without_pointers("proc: 1 address: 0x6e8 data: 0x55f8c8cff4b0 byte_number: 0"),
            "proc: 1 address: 0x6e8 byte_number: 0"
        );
        assert_eq!(super::without_pointers("no pointer"), "no pointer");
    }
}
