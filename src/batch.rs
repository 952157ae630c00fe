//! Many histories at once: finding inputs, and checking them in parallel
//! while streaming results in input order.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::check::shrink::{shrink_to, target_of, NotViolated, Shrunk, Target};
use crate::check::{check_gradual_with, Options, Outcome, Verdict};
use crate::gem5::tester::Origin;
use crate::history::{load_file, stream_file, History, InputError};
use crate::models::Model;

/// One checked history.
pub struct Checked {
    pub history: History,
    pub outcomes: Vec<Outcome>,
    /// Per outcome: its violation explained in the input's own terms (gem5
    /// ports, ticks, trace lines), where the input allows.
    pub explanations: Vec<Option<String>>,
    /// Notes on the input (a damaged trace, ambiguous reads, ...).
    pub notes: Vec<String>,
    /// Where the input is damaged (`file:line:col: what`), if it is.
    pub damage: Option<String>,
}

/// The inputs named by `paths`: files as given; gem5 output directories
/// (with `config.ini`/`config.json`) as runs; other directories searched
/// recursively for `*.hist`, `*.axe` and runs (sorted, so the order is stable).
/// Each input is taken once, by its canonical path (a path given twice, or
/// reached again through a symlink, adds nothing; a symlink loop ends).
pub fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<InputError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() && crate::gem5::is_run(p) => {
                if first_time(&mut seen, p) {
                    files.push(p.clone());
                }
            }
            Ok(m) if m.is_dir() => {
                if first_time(&mut seen, p) {
                    walk(p, &mut files, &mut errors, &mut seen);
                }
            }
            Ok(_) => {
                if first_time(&mut seen, p) {
                    files.push(p.clone());
                }
            }
            Err(e) => errors.push(InputError {
                file: p.clone(),
                pos: None,
                msg: format!("cannot read: {e}"),
            }),
        }
    }
    (files, errors)
}

/// Whether `p`'s canonical path is new (a path that cannot be resolved
/// counts as new: reading it reports the error).
fn first_time(seen: &mut std::collections::HashSet<PathBuf>, p: &Path) -> bool {
    std::fs::canonicalize(p).map_or(true, |c| seen.insert(c))
}

fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    errors: &mut Vec<InputError>,
    seen: &mut std::collections::HashSet<PathBuf>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(InputError {
                file: dir.to_path_buf(),
                pos: None,
                msg: format!("cannot list directory: {e}"),
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() && crate::gem5::is_run(&p) {
            if first_time(seen, &p) {
                files.push(p);
            }
        } else if p.is_dir() {
            if first_time(seen, &p) {
                walk(&p, files, errors, seen);
            }
        } else if p.extension().is_some_and(|e| e == "hist" || e == "axe") && first_time(seen, &p) {
            files.push(p);
        }
    }
}

/// What a batch delivers, in input order.
pub enum Item<'a> {
    /// A checked history of the input file or run directory.
    Checked(&'a Path, Box<Checked>),
    /// An input that could not be read.
    Error(InputError),
}

enum Job {
    History(Box<History>),
    Run,
}

fn check_history(history: History, models: &[Model], opts: &Options) -> Checked {
    let outcomes = check_gradual_with(&history, models, opts);
    let explanations = vec![None; outcomes.len()];
    Checked {
        history,
        outcomes,
        explanations,
        notes: Vec::new(),
        damage: None,
    }
}

/// Checks every history of `files` and hands each result to `sink` in input
/// order, as soon as its chunk is done: histories are checked `chunk` at a
/// time in parallel, so memory is bounded by the histories in flight, not the
/// batch. `stop` (e.g. set by Ctrl-C) ends the batch after the current chunk;
/// everything delivered before is complete. `shard = (k, n)`: only every
/// n-th unit from the k-th is checked — a unit is a history of a file or a
/// gem5 run, counted in input order across all files — so n processes
/// with the same inputs check each unit once (`check --shard`).
#[allow(clippy::too_many_arguments)]
pub fn run_batch<'a>(
    files: &'a [PathBuf],
    models: &[Model],
    opts: &Options,
    real_time: bool,
    chunk: usize,
    shard: (usize, usize),
    stop: &AtomicBool,
    mut sink: impl FnMut(Item<'a>),
) {
    let chunk = chunk.max(1);
    let mut unit = 0usize;
    let mut mine = || {
        let m = unit % shard.1.max(1) == shard.0;
        unit += 1;
        m
    };
    let flush = |pending: &mut Vec<(&'a Path, Job)>, sink: &mut dyn FnMut(Item<'a>)| {
        let check = |(file, job): (&'a Path, Job)| match job {
            Job::History(h) => (file, Ok(vec![check_history(*h, models, opts)])),
            Job::Run => (file, check_run(file, models, opts, real_time)),
        };
        // one worker: checked here, without handing the histories to it
        let done: Vec<(&'a Path, Result<Vec<Checked>, InputError>)> =
            if rayon::current_num_threads() == 1 {
                pending.drain(..).map(check).collect()
            } else {
                pending.par_drain(..).map(check).collect()
            };
        for (file, result) in done {
            match result {
                Ok(cs) => cs
                    .into_iter()
                    .for_each(|c| sink(Item::Checked(file, Box::new(c)))),
                Err(e) => sink(Item::Error(e)),
            }
        }
    };
    let mut pending: Vec<(&'a Path, Job)> = Vec::new();
    for file in files {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if file.is_dir() {
            if mine() {
                pending.push((file, Job::Run));
            }
        } else {
            // checked whole, then parsed and validated a history at a time:
            // only the histories in flight are held (an invalid one is
            // reported and skipped)
            let mut stopped = false;
            let streamed = stream_file(file, |h| {
                if !mine() {
                    return ControlFlow::Continue(());
                }
                match h {
                    Ok(h) => pending.push((file.as_path(), Job::History(Box::new(h)))),
                    Err(e) => {
                        flush(&mut pending, &mut sink);
                        sink(Item::Error(e));
                    }
                }
                if pending.len() >= chunk {
                    if stop.load(Ordering::Relaxed) {
                        stopped = true;
                        return ControlFlow::Break(());
                    }
                    flush(&mut pending, &mut sink);
                }
                ControlFlow::Continue(())
            });
            if stopped {
                return;
            }
            if let Err(e) = streamed {
                if mine() {
                    flush(&mut pending, &mut sink);
                    sink(Item::Error(e));
                }
                continue;
            }
        }
        while pending.len() >= chunk {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let rest = pending.split_off(chunk);
            flush(&mut pending, &mut sink);
            pending = rest;
        }
    }
    if !stop.load(Ordering::Relaxed) {
        flush(&mut pending, &mut sink);
    }
}

/// Loads one input (a history file, or a gem5 run directory) and checks
/// every history in it against `models` (gradually), histories in parallel;
/// results in input order. For a gem5 run, `real_time` adds the history in
/// real-time order across ports (index 1) to the per-port one (index 0).
pub fn check_file(
    path: &Path,
    models: &[Model],
    opts: &Options,
    real_time: bool,
) -> Result<Vec<Checked>, InputError> {
    if path.is_dir() {
        return check_run(path, models, opts, real_time);
    }
    Ok(load_file(path)?
        .into_par_iter()
        .map(|h| check_history(h, models, opts))
        .collect())
}

/// A gem5 run: its tester history (and the real-time one), explained.
fn check_run(
    dir: &Path,
    models: &[Model],
    opts: &Options,
    real_time: bool,
) -> Result<Vec<Checked>, InputError> {
    let run = crate::gem5::open_run(dir)?;
    if let Some(output) = crate::gem5::client_output(&run) {
        // an SE-mode run of the random client: its own histories
        return Ok(load_file(&output)?
            .into_par_iter()
            .map(|mut h| {
                h.meta.push(("protocol".into(), run.protocol.name().into()));
                let mut c = check_history(h, models, opts);
                c.notes.push(format!(
                    "gem5 SE run: protocol {}, client output in {}",
                    run.protocol.name(),
                    output.display()
                ));
                c
            })
            .collect());
    }
    let modes: &[bool] = if real_time { &[false, true] } else { &[false] };
    // the trace is read once for both views
    let trace = crate::gem5::read(&run)?;
    modes
        .par_iter()
        .map(|&rt| {
            let mut ing = crate::gem5::view(&run, &trace, rt)?;
            ing.history.index = rt as usize;
            let outcomes = match &ing.damage {
                Some(d) => check_damaged(&ing.history, d, models, opts, &mut ing.notes),
                None => check_gradual_with(&ing.history, models, opts),
            };
            let explanations = outcomes
                .iter()
                .map(|o| {
                    o.violation
                        .as_ref()
                        .map(|v| crate::gem5::explain(&run, &ing, v, opts.transitions))
                })
                .collect();
            let mut notes = std::mem::take(&mut ing.notes);
            notes.insert(
                0,
                format!(
                    "gem5 run: protocol {}, {:?}",
                    run.protocol.name(),
                    run.tester
                ),
            );
            if let Some(p) = &run.panic {
                notes.push(format!("gem5 stopped: {}", without_pointers(p)));
            }
            Ok(Checked {
                history: ing.history,
                outcomes,
                explanations,
                notes,
                damage: ing.damage.as_ref().map(|d| d.to_string()),
            })
        })
        .collect()
}

/// A history picked from one input to be shrunk, with its violation and
/// what names its operations' origins.
pub struct Picked {
    pub history: History,
    pub target: Target,
    /// For a gem5 run: each operation's origin in the trace (by op id,
    /// after the initial writes), and the trace.
    pub gem5: Option<(Vec<Origin>, Option<PathBuf>)>,
}

/// What [`pick_violation`] found.
pub enum Pick {
    /// The history to shrink.
    Violating(Box<Picked>),
    /// No history examined violates the model: each one's index and verdict.
    NoViolation(Vec<(usize, NotViolated)>),
}

/// The first history of `path` (a `.hist` or axe file, or a gem5 run: the
/// per-port view as index 0 and with `real_time` the real-time view as
/// index 1) that violates `model` with `opts`, or the one at `index`. A
/// damaged gem5 trace follows `check`'s rule: only the violations of a
/// prefix cut at the end stand (any prefix's with `opts.allow_damage`).
pub fn pick_violation(
    path: &Path,
    model: Model,
    opts: &Options,
    real_time: bool,
    index: Option<usize>,
) -> Result<Pick, InputError> {
    let error = |msg: String| InputError {
        file: path.to_path_buf(),
        pos: None,
        msg,
    };
    let mut not = Vec::new();
    // the history's pick, or its verdict recorded in `not`
    let examine = |not: &mut Vec<(usize, NotViolated)>,
                   h: History,
                   gem5: Option<(Vec<Origin>, Option<PathBuf>)>| {
        let i = h.index;
        match target_of(&h, model, opts) {
            Ok(target) => Some(Pick::Violating(Box::new(Picked {
                history: h,
                target,
                gem5,
            }))),
            Err(e) => {
                not.push((i, e));
                None
            }
        }
    };
    if path.is_dir() {
        let run = crate::gem5::open_run(path)?;
        if let Some(output) = crate::gem5::client_output(&run) {
            let hs = load_file(&output)?;
            let n = hs.len();
            for mut h in hs
                .into_iter()
                .filter(|h| index.is_none_or(|i| i == h.index))
            {
                h.meta.push(("protocol".into(), run.protocol.name().into()));
                if let Some(p) = examine(&mut not, h, None) {
                    return Ok(p);
                }
            }
            return match index {
                Some(i) if i >= n => Err(error(format!(
                    "no history #{i}: the client output {} holds {n}",
                    output.display()
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
        let trace = crate::gem5::read(&run)?;
        for rt in [false, true] {
            if (rt && !real_time) || index.is_some_and(|i| i != rt as usize) {
                continue;
            }
            let mut ing = crate::gem5::view(&run, &trace, rt)?;
            ing.history.index = rt as usize;
            if let Some(d) = ing.damage.as_ref().filter(|d| !d.cut && !opts.allow_damage) {
                not.push((
                    rt as usize,
                    NotViolated {
                        model,
                        verdict: Verdict::Unknown,
                        internal: false,
                        reason: Some(format!(
                            "damaged input: {d} (--allow-damage checks the prefix before it)"
                        )),
                    },
                ));
                continue;
            }
            if let Some(p) = examine(
                &mut not,
                ing.history,
                Some((ing.origins, run.trace.clone())),
            ) {
                return Ok(p);
            }
        }
        return Ok(Pick::NoViolation(not));
    }
    let mut found = None;
    let mut failed = None;
    let mut seen = 0;
    stream_file(path, |h| {
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

/// A gem5 run's operation origins for its history at `index` (0 per
/// port, 1 real time) and its trace, read again from the run; `None` for
/// an SE-mode run's client histories or a run that cannot be read.
pub fn gem5_origins(dir: &Path, index: usize) -> Option<(Vec<Origin>, Option<PathBuf>)> {
    let run = crate::gem5::open_run(dir).ok()?;
    if crate::gem5::client_output(&run).is_some() {
        return None;
    }
    let trace = crate::gem5::read(&run).ok()?;
    let ing = crate::gem5::view(&run, &trace, index == 1).ok()?;
    Some((ing.origins, run.trace.clone()))
}

/// The command that picks and shrinks the same violation: `memconform
/// shrink INPUT --model M` (with `--real-time` for a run's real-time view,
/// `--index I` for a history past the first).
pub fn shrink_command(input: &Path, index: usize, model: Model) -> String {
    let mut cmd = format!(
        "memconform shrink {} --model {model}",
        shell_word(&crate::report::path_text(input))
    );
    if input.is_dir() && index == 1 {
        cmd.push_str(" --real-time --index 1");
    } else if index > 0 {
        cmd.push_str(&format!(" --index {index}"));
    }
    cmd
}

/// `s` as one shell word: as it is when it is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The command that checks the same history again: `memconform check
/// INPUT --models M,...` (with `--real-time` for a run's real-time view).
pub fn check_command(input: &Path, index: usize, models: &[Model]) -> String {
    let names: Vec<&str> = models.iter().map(|m| m.name()).collect();
    let mut cmd = format!(
        "memconform check {} --models {}",
        shell_word(&crate::report::path_text(input)),
        names.join(",")
    );
    if input.is_dir() && index == 1 {
        cmd.push_str(" --real-time");
    }
    cmd
}

/// Per outcome of `c`: its violation shrunk within `budget`, or why it
/// could not be (`None` for an outcome that is no valid violation); models
/// whose violations keep the same histories ([`Target::key`]) share one
/// shrink.
pub fn shrink_outcomes(
    c: &Checked,
    opts: &Options,
    budget: Option<std::time::Duration>,
) -> Vec<Option<Result<Shrunk, String>>> {
    type Key = (&'static [Model], Model);
    let mut done: Vec<(Key, Result<Shrunk, String>)> = Vec::new();
    c.outcomes
        .iter()
        .map(|o| {
            if o.verdict != Verdict::Violation || o.invalid.is_some() {
                return None;
            }
            let target = Target {
                model: o.model,
                weakest: o.decided_by,
            };
            let key = target.key(opts.gradual);
            let shared = match done.iter().find(|(k, _)| *k == key) {
                Some((_, r)) => r.clone(),
                None => {
                    let r = shrink_to(&c.history, target, opts, budget).map_err(|e| e.to_string());
                    done.push((key, r.clone()));
                    r
                }
            };
            Some(shared.map(|s| Shrunk { target, ..s }))
        })
        .collect()
}

/// `check --shrink DIR`: writes each violation of a checked history
/// (`file`'s), shrunk by [`shrink_outcomes`] into `shrinks`, into `dir` as
/// a `.hist` (named by [`crate::report::shrunk::file_name`], made unique
/// among `used`). Returns a note per violation: the file written and its
/// size, or why not.
pub fn shrink_checked(
    file: &Path,
    c: &Checked,
    shrinks: &[Option<Result<Shrunk, String>>],
    dir: &Path,
    used: &mut std::collections::HashSet<String>,
) -> Vec<String> {
    let h = &c.history;
    let mut notes = Vec::new();
    let mut origins: Option<Option<(Vec<Origin>, Option<PathBuf>)>> = None;
    for (o, shrunk) in c.outcomes.iter().zip(shrinks) {
        let shrunk = match shrunk {
            None => continue,
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                notes.push(format!(
                    "not shrunk: the {} violation did not recur ({e})",
                    o.model
                ));
                continue;
            }
        };
        let origins = origins
            .get_or_insert_with(|| file.is_dir().then(|| gem5_origins(file, h.index)).flatten());
        let text = crate::report::shrunk::shrunk_hist(
            h,
            shrunk,
            &crate::report::shrunk::Provenance {
                input: file,
                command: Some(shrink_command(file, h.index, o.model)),
                gem5: origins.as_ref().map(|(o, t)| (o.as_slice(), t.as_deref())),
            },
        );
        let name = crate::report::shrunk::file_name(file, h, o.model);
        let mut unique = name.clone();
        let mut k = 1;
        while !used.insert(unique.clone()) {
            k += 1;
            unique = format!("{}-{k}.hist", name.trim_end_matches(".hist"));
        }
        let path = dir.join(&unique);
        match crate::report::write_atomic(&path, text.as_bytes()) {
            Ok(()) => notes.push(format!(
                "shrunk {} violation: {} of {} operations{} -> {}",
                o.model,
                shrunk.history.n_thread_ops(),
                h.n_thread_ops(),
                match (&shrunk.note, shrunk.one_minimal) {
                    (_, true) => ", 1-minimal".to_string(),
                    (Some(n), false) => format!(" ({n})"),
                    (None, false) => " (not shown 1-minimal)".to_string(),
                },
                path.display()
            )),
            Err(e) => notes.push(format!("cannot write {}: {e}", path.display())),
        }
    }
    notes
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
    notes: &mut Vec<String>,
) -> Vec<Outcome> {
    if opts.allow_damage {
        notes.push(
            "--allow-damage: the verdicts are those of the prefix before the damage, not of the whole run"
                .into(),
        );
        return check_gradual_with(history, models, opts);
    }
    if !damage.cut {
        return models
            .iter()
            .map(|&m| Outcome::unknown(m, format!("damaged input: {damage}")))
            .collect();
    }
    notes.push(
        "the trace is cut: a violation of its prefix is one of the whole run; `consistent` is not decided (--allow-damage reports the prefix's verdicts)"
            .into(),
    );
    check_gradual_with(history, models, opts)
        .into_iter()
        .map(|o| match o.verdict {
            Verdict::Consistent => Outcome {
                seconds: o.seconds,
                ..Outcome::unknown(
                    o.model,
                    format!("consistent up to the cut, the rest of the run is missing: {damage}"),
                )
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
