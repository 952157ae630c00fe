//! A shrunk counterexample ([`memconform_core::check::shrink`]) as a `.hist`
//! file: `#` comments naming where it came from (the input, the history,
//! the violation, each kept operation's original thread, position, input
//! line and, for gem5 runs, port, ticks and trace lines), then the history
//! itself with `@expect` lines that make it a regression test.

use std::fmt::Write as _;
use std::path::Path;

use memconform_parsers::hist::{write_hist, RawHistory, RawOp, RawThread};
use memconform_parsers::Pos;

use memconform_core::check::shrink::{shrink_to, Shrunk, Target};
use memconform_core::check::{Options, Verdict};
use memconform_core::history::{History, OpId};
use memconform_core::models::Model;
use memconform_ingest::{Checked, Origins};

use crate::commands::shrink_command;
use crate::{path_text, printable};

/// Where a shrunk history came from, for its header.
pub struct Provenance<'a> {
    /// The input file or gem5 run directory.
    pub input: &'a Path,
    /// The command that reproduces the shrink, if known.
    pub command: Option<String>,
    /// The original history's operations' origins (a gem5 run's ports,
    /// ticks and the debug trace's lines), if known.
    pub origins: Option<&'a Origins>,
}

/// The `.hist` text of `s`, a shrink of `original`: a header of comments
/// naming its origin, then the history (`@expect model=no weakest=no`,
/// `@shrunk-from`, the original's metadata; kept operations with their
/// ticks).
pub fn shrunk_hist(original: &History, s: &Shrunk, p: &Provenance<'_>) -> String {
    let h = &s.history;
    let input = printable(&path_text(p.input)).into_owned();
    let mut out = String::new();
    let w = &mut out;
    let name = original
        .name
        .as_deref()
        .map(|n| format!(" ({})", printable(n)))
        .unwrap_or_default();
    let _ = writeln!(
        w,
        "# memconform shrink: a {}counterexample cut from {input}#{}{name}",
        if s.one_minimal { "1-minimal " } else { "" },
        original.index
    );
    let (m, weakest) = (s.target.model, s.target.weakest);
    let caught = if weakest == m {
        String::new()
    } else {
        format!(", caught by {weakest} (the weakest violated model of its gradual chain)")
    };
    let _ = writeln!(
        w,
        "# violation: {m}{caught}, {}, as in the original",
        s.violation.pattern.name()
    );
    let _ = writeln!(
        w,
        "# size: {} of the original's {} operations, {} of its {} threads ({} checks, {:.2} s)",
        h.n_thread_ops(),
        original.n_thread_ops(),
        h.threads.len(),
        original.threads.len(),
        s.checks,
        s.seconds
    );
    if s.one_minimal {
        let _ = writeln!(
            w,
            "# 1-minimal: removing any one operation (with the reads of its write) loses this violation"
        );
    } else if let Some(note) = &s.note {
        let _ = writeln!(w, "# NOT shown 1-minimal: {note}");
    }
    let _ = writeln!(
        w,
        "# certificate (positions are the original input's): {}",
        printable(&s.violation.explain(h))
    );
    if let Some(cmd) = &p.command {
        let _ = writeln!(w, "# reproduce: {}", printable(cmd));
    }
    let _ = writeln!(
        w,
        "# where each operation comes from (thread[k]: its k-th operation, from 0; @line:col in the original input{}):",
        p.origins.map_or(String::new(), |g| format!(
            ", the issuing {} line for {}",
            g.terms.file, g.terms.input
        ))
    );
    let source = p
        .origins
        .and_then(|g| g.source.as_deref())
        .map(|t| printable(&path_text(t)).into_owned());
    let position = positions(original);
    let nv = h.vars.len();
    for o in nv..h.n() {
        if second_half(h, o) {
            continue; // an RMW's write half: named with its read half
        }
        let t = h.ops[o].thread.expect("a thread operation");
        let k = (h.threads[t].ops.start..o)
            .filter(|&q| !second_half(h, q))
            .count();
        let orig = s.origin[o];
        let ot = original.ops[orig]
            .thread
            .expect("thread operations come from thread operations");
        let pos = original.ops[orig].pos;
        let _ = write!(
            w,
            "#   {}[{k}] {} = {}[{}] @{}:{}",
            printable(&h.threads[t].name),
            printable(&token(h, o)),
            printable(&original.threads[ot].name),
            position[orig],
            pos.line,
            pos.col
        );
        if let Some(g) = p.origins {
            let i = orig - original.vars.len();
            if i < g.ops.len() {
                let _ = write!(w, ": {}", g.text(i, source.as_deref()));
            }
        }
        w.push('\n');
    }
    if let Some(g) = p.origins.filter(|_| h.threads.iter().any(|t| t.timed)) {
        let _ = writeln!(
            w,
            "# @issue-complete of a {} operation are the {} lines of its request and completion: program order is their interval order",
            g.terms.input, g.terms.file
        );
    }
    out.push_str(&write_hist(&[raw(original, s, &input)]));
    out
}

/// The shrunk history as a parsed history, ready to be written: named
/// after the original, `@expect` the violation, `@shrunk-from` the input.
fn raw(original: &History, s: &Shrunk, input: &str) -> RawHistory {
    let h = &s.history;
    let clean = |t: &str| -> String {
        printable(t)
            .chars()
            .map(|c| if c == '#' { '_' } else { c })
            .collect()
    };
    let z = Pos::default();
    let name = match &original.name {
        Some(n) => clean(n),
        None => format!("{} index {}", clean(input), original.index),
    };
    let (m, weakest) = (s.target.model, s.target.weakest);
    let mut expect = vec![(m.name().to_string(), false, z)];
    if weakest != m {
        expect.push((weakest.name().to_string(), false, z));
    }
    let mut meta = vec![(
        "shrunk-from".to_string(),
        format!("{} index {}", clean(input), original.index),
        z,
    )];
    meta.extend(
        h.meta
            .iter()
            .filter(|(k, _)| k != "shrunk-from")
            .map(|(k, v)| (k.clone(), clean(v), z)),
    );
    let threads = h
        .threads
        .iter()
        .map(|t| RawThread {
            name: t.name.clone(),
            pos: z,
            ops: t
                .ops
                .clone()
                .filter(|&o| !second_half(h, o))
                .map(|o| RawOp {
                    kind: h.raw_kind(o),
                    ann: h.ops[o].ann,
                    ticks: if t.timed { h.ops[o].ticks } else { None },
                    pos: z,
                })
                .collect(),
        })
        .collect();
    RawHistory {
        name: Some(format!("{name}, shrunk for {m}")),
        expect,
        finals: h
            .finals
            .iter()
            .map(|&(x, v)| (h.vars[x].clone(), v, z))
            .collect(),
        meta,
        threads,
        pos: z,
    }
}

/// The text of operation `o`'s token, e.g. `W(x,1)` or `U(y,0,1)`.
fn token(h: &History, o: OpId) -> String {
    let d = h.describe(o);
    let d = d.strip_suffix(".r").unwrap_or(&d);
    d.split_once(':').map_or(d, |(_, t)| t).to_string()
}

/// Per operation of `h`, its position among its thread's tokens (an RMW's
/// halves share one).
fn positions(h: &History) -> Vec<usize> {
    let mut pos = vec![0; h.n()];
    for t in &h.threads {
        let mut k = 0;
        for o in t.ops.clone() {
            if second_half(h, o) {
                pos[o] = k - 1;
                continue;
            }
            pos[o] = k;
            k += 1;
        }
    }
    pos
}

/// A file name for the shrunk history of `h`'s violation of `model`: its
/// name (else the input's file name), index and model, in
/// `[A-Za-z0-9._-]`.
pub fn file_name(input: &Path, h: &History, model: memconform_core::models::Model) -> String {
    format!("{}-{}-{model}.hist", stem(input, h), h.index)
}

/// A file-name stem for `h`: its name (else the input's file name) in
/// `[A-Za-z0-9._-]`, at most 80 characters.
pub fn stem(input: &Path, h: &History) -> String {
    let base = h.name.clone().unwrap_or_else(|| {
        input
            .file_stem()
            .map_or("history".into(), |s| s.to_string_lossy().into_owned())
    });
    let mut stem = String::new();
    for c in base.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            stem.push(c);
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
    }
    let stem: String = stem.trim_matches(['-', '.']).chars().take(80).collect();
    if stem.is_empty() {
        "history".into()
    } else {
        stem
    }
}

/// Whether `o` is an RMW's write half (written with its read half).
pub(crate) fn second_half(h: &History, o: OpId) -> bool {
    h.ops[o].rmw.is_some_and(|r| r < o)
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
            if o.verdict() != Verdict::Violation || o.invalid.is_some() {
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
/// a `.hist` (named by [`file_name`], made unique
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
        let text = shrunk_hist(
            h,
            shrunk,
            &Provenance {
                input: file,
                command: Some(shrink_command(file, h.index, o.model)),
                origins: c.origins.as_ref(),
            },
        );
        let name = file_name(file, h, o.model);
        let mut unique = name.clone();
        let mut k = 1;
        while !used.insert(unique.clone()) {
            k += 1;
            unique = format!("{}-{k}.hist", name.trim_end_matches(".hist"));
        }
        let path = dir.join(&unique);
        match crate::write_atomic(&path, text.as_bytes()) {
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
