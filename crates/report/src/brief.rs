//! The brief report, `check`'s default: a line per run (or input file)
//! with what a gem5 user asks first — the model its configuration
//! promises, how many histories break it, how many only break a model it
//! does not promise (allowed), how many are undecided — then each
//! promise-breaking history's shrunk counterexample in a few lines, named
//! a, b, c, ... as the HTML pages and DOT files name them, with values as
//! the program wrote them, and the commands that look closer.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use memconform_core::check::promise::Status;
use memconform_core::check::shrink::{shrink_known, Shrunk, Target};
use memconform_core::check::{Options, Outcome, Verdict};
use memconform_core::history::{History, OpId, OpKind};
use memconform_ingest::Checked;

use crate::commands::{shell_word, shrink_command};
use crate::markup::letter;
use crate::shrunk::second_half;
use crate::{path_text, printable};

/// Where the models, patterns and edge names are explained.
pub const GLOSSARY: &str = "docs/glossary.md";

/// How many broken histories of one run the brief shows.
pub const SHOWN_PER_RUN: usize = 3;

/// One history's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// It breaks its promise (with no promise: violates an asked model).
    Broken,
    /// It keeps its promise and violates a model the promise allows.
    Allowed,
    /// Its promise (or, with none, an asked model) is undecided.
    Unknown,
    /// No asked model is violated.
    Fine,
}

impl Answer {
    /// The answer of a checked history.
    pub fn of(c: &Checked) -> Answer {
        if c.broken() {
            Answer::Broken
        } else if c.undecided() {
            Answer::Unknown
        } else if c.allowed() {
            Answer::Allowed
        } else {
            Answer::Fine
        }
    }
}

/// One history at a glance: what its run line counts.
#[derive(Debug, Clone)]
pub struct Glance {
    pub protocol: String,
    /// `2 x X86O3CPU`, `4 x RubyTester`, or empty.
    pub cpus: String,
    /// The promise's name, empty when none.
    pub promise: String,
    pub answer: Answer,
    pub seconds: f64,
    /// Its index, and for an undecided answer why.
    pub index: usize,
    pub reason: Option<String>,
}

impl Glance {
    /// `c` at a glance.
    pub fn of(c: &Checked) -> Glance {
        let h = &c.history;
        let text = crate::or_empty;
        let kind = match text(&c.run.cpu_type) {
            "" => text(&c.run.tester),
            t => t,
        };
        let cpus = match (text(&c.run.cpus), kind) {
            ("", "") => String::new(),
            ("", k) => k.to_string(),
            (n, "") => format!("{n} CPUs"),
            (n, k) => format!("{n} x {k}"),
        };
        let seconds = c
            .outcomes
            .iter()
            .chain(c.promise.iter().flat_map(|k| &k.extra))
            .map(|o| o.seconds)
            .sum();
        let answer = Answer::of(c);
        let reason = (answer == Answer::Unknown).then(|| {
            c.promise
                .iter()
                .find_map(|k| k.reason())
                .map(str::to_string)
                .or_else(|| {
                    c.promise
                        .iter()
                        .flat_map(|k| &k.extra)
                        .chain(&c.outcomes)
                        .find_map(|o| o.reason())
                        .map(|r| r.to_string())
                })
                .map_or_else(|| "undecided".to_string(), |r| printable(&r).into_owned())
        });
        Glance {
            index: h.index,
            reason,
            protocol: printable(text(&c.run.protocol)).into_owned(),
            cpus: printable(&cpus).into_owned(),
            promise: c
                .promise
                .as_ref()
                .map_or(String::new(), |k| k.promise.name()),
            answer,
            seconds,
        }
    }
}

/// One run's (or input file's) line and its counterexamples, gathered
/// history by history in input order.
#[derive(Debug, Clone)]
pub struct Tally {
    pub input: String,
    pub protocol: String,
    pub cpus: String,
    /// The promise, `mixed` when its histories differ.
    pub promise: String,
    pub histories: usize,
    pub broken: usize,
    pub allowed: usize,
    pub unknown: usize,
    pub seconds: f64,
    /// The counterexamples shown (at most [`SHOWN_PER_RUN`] different
    /// ones), each with the other histories whose counterexample is the
    /// same.
    pub shown: Vec<Example>,
    /// The commands that look closer at the first broken history.
    pub closer: Vec<String>,
    /// The first undecided history: its index and why.
    pub first_unknown: Option<(usize, String)>,
}

impl Tally {
    /// An empty tally of `input`.
    pub fn new(input: &Path) -> Tally {
        Tally {
            input: printable(&path_text(input)).into_owned(),
            protocol: String::new(),
            cpus: String::new(),
            promise: String::new(),
            histories: 0,
            broken: 0,
            allowed: 0,
            unknown: 0,
            seconds: 0.0,
            shown: Vec::new(),
            closer: Vec::new(),
            first_unknown: None,
        }
    }

    /// Counts one history.
    pub fn add(&mut self, g: &Glance) {
        let same = |have: &mut String, new: &str, first: bool| {
            if first {
                *have = new.to_string();
            } else if have != new {
                *have = "mixed".into();
            }
        };
        let first = self.histories == 0;
        same(&mut self.protocol, &g.protocol, first);
        same(&mut self.cpus, &g.cpus, first);
        same(&mut self.promise, &g.promise, first);
        self.histories += 1;
        match g.answer {
            Answer::Broken => self.broken += 1,
            Answer::Allowed => self.allowed += 1,
            Answer::Unknown => {
                self.unknown += 1;
                if self.first_unknown.is_none() {
                    self.first_unknown = g.reason.clone().map(|r| (g.index, r));
                }
            }
            Answer::Fine => {}
        }
        self.seconds += g.seconds;
    }

    /// Whether another broken history's counterexample may be shown.
    pub fn wants_example(&self) -> bool {
        self.shown.len() < SHOWN_PER_RUN
    }

    /// Adds a counterexample: a new one, or another history's like one
    /// already shown.
    pub fn add_example(&mut self, e: Example, closer: Vec<String>) {
        if self.closer.is_empty() {
            self.closer = closer;
        }
        // (once the run shows all it will, later histories are only counted:
        // which ones reach here then depends on the workers' timing)
        if !self.wants_example() {
            return;
        }
        match self.shown.iter_mut().find(|s| s.body == e.body) {
            Some(same) => same.also.push(e.index),
            None => self.shown.push(e),
        }
    }

    /// The run's line, its counterexamples, and how to see the rest.
    pub fn write(&self, out: &mut String, widths: &Widths) {
        let dash = |s: &str| {
            if s.is_empty() {
                "-".to_string()
            } else {
                s.to_string()
            }
        };
        let promise = if self.promise.is_empty() {
            "none".to_string()
        } else {
            self.promise.clone()
        };
        let _ = writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {:>9}  {:>6}  {:>7}  {:>7}  {:>8}",
            self.input,
            dash(&self.protocol),
            dash(&self.cpus),
            promise,
            self.histories,
            self.broken,
            self.allowed,
            self.unknown,
            seconds(self.seconds),
            w0 = widths.input,
            w1 = widths.protocol,
            w2 = widths.cpus,
            w3 = widths.promise,
        );
        for e in &self.shown {
            out.push_str(&e.head);
            out.push_str(&e.body);
            if !e.also.is_empty() {
                let also: Vec<String> = e.also.iter().map(|i| format!("#{i}")).collect();
                let _ = writeln!(out, "      the same counterexample: {}", also.join(", "));
            }
        }
        let listed: usize = self.shown.iter().map(|e| 1 + e.also.len()).sum();
        let more = self.broken.saturating_sub(listed);
        if more > 0 {
            let _ = writeln!(
                out,
                "    ... and {more} more breaking histories: memconform check --format report {}",
                printable(&shell_word(&self.input))
            );
        }
        if let Some((i, why)) = &self.first_unknown {
            let others = match self.unknown {
                0 | 1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            let _ = writeln!(out, "    unknown #{i}{others}: {why}");
        }
        for c in &self.closer {
            let _ = writeln!(out, "    look closer: {c}");
        }
    }
}

/// A broken history's counterexample: its heading, its threads and cycle,
/// and the histories whose counterexample is the same.
#[derive(Debug, Clone)]
pub struct Example {
    pub index: usize,
    pub head: String,
    pub body: String,
    pub also: Vec<usize>,
}

/// Column widths of the run lines.
#[derive(Debug, Clone, Copy)]
pub struct Widths {
    pub input: usize,
    pub protocol: usize,
    pub cpus: usize,
    pub promise: usize,
}

impl Widths {
    /// Widths for runs named as `inputs` are.
    pub fn for_inputs<'a>(inputs: impl IntoIterator<Item = &'a Path>) -> Widths {
        let input = inputs
            .into_iter()
            .map(|p| printable(&path_text(p)).chars().count())
            .max()
            .unwrap_or(0)
            .clamp(3, 48);
        Widths {
            input,
            protocol: 14,
            cpus: 20,
            promise: 7,
        }
    }
}

/// The header over the run lines.
pub fn header(w: &Widths) -> String {
    format!(
        "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {:>9}  {:>6}  {:>7}  {:>7}  {:>8}\n",
        "RUN",
        "PROTOCOL",
        "CPUS",
        "PROMISE",
        "HISTORIES",
        "BROKEN",
        "ALLOWED",
        "UNKNOWN",
        "TIME",
        w0 = w.input,
        w1 = w.protocol,
        w2 = w.cpus,
        w3 = w.promise,
    )
}

/// `s` seconds as a short time.
fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1e3)
    } else {
        format!("{s:.1} s")
    }
}

/// The violation that shows a broken history breaks its promise (with no
/// promise: the asked model's with the shortest cycle), from its outcomes
/// or its promise's extra checks.
fn evidence(c: &Checked) -> Option<&Outcome> {
    match &c.promise {
        Some(k) if k.status == Status::Broken => k.evidence(&c.outcomes),
        Some(_) => None,
        None => c
            .outcomes
            .iter()
            .filter(|o| o.verdict() == Verdict::Violation)
            .min_by_key(|o| o.violation().map_or(usize::MAX, |v| v.cycle.len())),
    }
    .filter(|o| o.invalid.is_none())
}

/// A broken history's counterexample in a few lines: what it breaks and
/// how (the violated model the promise implies and its pattern), its
/// shrink within `budget` (each operation named, with the value the
/// program wrote), the cycle; and the commands that look closer.
pub fn example(
    file: &Path,
    c: &Checked,
    opts: &Options,
    budget: Option<Duration>,
) -> Option<(Example, Vec<String>)> {
    let o = evidence(c)?;
    let v = o.violation()?;
    let h = &c.history;
    let target = Target {
        model: o.model,
        weakest: o.decided_by,
    };
    let name = h
        .name
        .as_deref()
        .map(|n| format!(" {}", printable(n)))
        .unwrap_or_default();
    let shape = c
        .run
        .shape
        .as_ref()
        .map(|s| format!(" ({})", printable(s)))
        .unwrap_or_default();
    let promised = c.promise.as_ref().filter(|k| k.promise.models.len() == 1);
    let what = match &c.promise {
        Some(k) => format!("breaks {}", k.promise.name()),
        None => format!("violates {}", o.model),
    };
    let how = match promised {
        Some(k) if k.promise.models[0] == o.decided_by => v.pattern.name().to_string(),
        None if c.promise.is_none() && o.model == o.decided_by => v.pattern.name().to_string(),
        _ => format!("{}, a {} violation", v.pattern.name(), o.decided_by),
    };
    let shrunk = shrink_small_first(h, target, opts, budget, v);
    let (sh, cycle_of): (&History, &memconform_core::certificate::Violation) = match &shrunk {
        Some(s) => (&s.history, &s.violation),
        None => (h, v),
    };
    let size = match &shrunk {
        Some(s) => format!(
            "{} of its {} operations{}",
            s.history.n_thread_ops(),
            h.n_thread_ops(),
            if s.one_minimal {
                ""
            } else {
                ", maybe not minimal"
            }
        ),
        None => format!(
            "not shrunk here, its certificate's operations of {}",
            h.n_thread_ops()
        ),
    };
    let head = format!("  #{}{name}{shape}: {what}: {how}; {size}:\n", h.index);
    let value = |o: OpId| shown_value(c, shrunk.as_ref(), o);
    let names = names(sh, cycle_of);
    let mut body = String::new();
    write_threads(&mut body, sh, &names, &value);
    let _ = writeln!(body, "      {}", cycle_text(sh, cycle_of, &names));
    let model = promised.map_or(o.model, |k| k.promise.models[0]);
    // (commands as text a terminal shows safely: a control character in a
    // file's name is no escape)
    let closer = vec![
        printable(&shrink_command(file, h.index, model)).into_owned(),
        printable(&format!(
            "memconform check {}{} --html report/   (then open report/index.html)",
            shell_word(&path_text(file)),
            if file.is_dir() && h.index == 1 {
                " --real-time"
            } else {
                ""
            }
        ))
        .into_owned(),
    ];
    let e = Example {
        index: h.index,
        head,
        body,
        also: Vec::new(),
    };
    Some((e, closer))
}

/// At most this many operations of a counterexample are shown; past it
/// (a shrink that ran out of time) only those its certificate names.
const SHOWN_OPS: usize = 24;

/// The names of the shown thread operations of `h`, a, b, c, ... in
/// thread order: every one when `h` is small, else those `v` names.
fn names(h: &History, v: &memconform_core::certificate::Violation) -> Vec<Option<String>> {
    let all = h.n_thread_ops() <= SHOWN_OPS;
    let mut shown = vec![all; h.n()];
    for (o, _) in v.events() {
        shown[o] = true;
        if let Some(p) = h.ops[o].rmw {
            shown[p] = true;
        }
    }
    let mut name = vec![None; h.n()];
    let mut k = 0;
    for t in &h.threads {
        for o in t.ops.clone().filter(|&o| shown[o]) {
            if second_half(h, o) {
                name[o] = h.ops[o].rmw.and_then(|r| name[r].clone());
            } else {
                name[o] = Some(letter(k));
                k += 1;
            }
        }
    }
    name
}

/// The shrink of `h`'s violation `v` of `target`: from the certificate's
/// own sub-history when that keeps the violation (a few operations,
/// whatever `h`'s size), else from `h` within `budget`; its origins are
/// `h`'s operations either way.
fn shrink_small_first(
    h: &History,
    target: Target,
    opts: &Options,
    budget: Option<Duration>,
    v: &memconform_core::certificate::Violation,
) -> Option<Shrunk> {
    use memconform_core::check::shrink::{certificate_core, shrink_to};
    if let Some((core, origin)) = certificate_core(h, v).filter(|(c, _)| c.n() < h.n()) {
        if let Ok(mut s) = shrink_to(&core, target, opts, budget) {
            s.origin = s.origin.iter().map(|&o| origin[o]).collect();
            return Some(s);
        }
    }
    // (a large history whose certificate's own operations do not keep the
    // violation: its shrink is `memconform shrink`'s work, not the
    // summary's; the certificate's operations are shown instead)
    if h.n() > WHOLE_SHRINK_MAX {
        return None;
    }
    shrink_known(h, target, opts, budget, v).ok()
}

/// Above this many operations the summary shrinks a counterexample only
/// from its certificate's own sub-history.
const WHOLE_SHRINK_MAX: usize = 20_000;

/// Each thread on a line: `t0  a: W(x,1)  b: R(y,0)`.
fn write_threads(
    out: &mut String,
    h: &History,
    names: &[Option<String>],
    value: &dyn Fn(OpId) -> String,
) {
    for t in &h.threads {
        if !t.ops.clone().any(|o| names[o].is_some()) {
            continue;
        }
        let _ = write!(out, "      {:<3}", printable(&t.name));
        let mut skipped = false;
        for o in t.ops.clone() {
            if second_half(h, o) {
                continue;
            }
            let Some(n) = names[o].as_deref() else {
                skipped = true;
                continue;
            };
            if std::mem::take(&mut skipped) {
                out.push_str(" ...");
            }
            let _ = write!(out, " {n}: {}", token(h, o, value));
        }
        if skipped {
            out.push_str(" ...");
        }
        out.push('\n');
    }
}

/// The cycle with the names of its operations: `a -po-> b -rw-> c`.
fn cycle_text(
    h: &History,
    v: &memconform_core::certificate::Violation,
    names: &[Option<String>],
) -> String {
    let name = |o: OpId| -> String {
        if h.is_init(o) {
            let var = h.ops[o].var.map_or("", |x| h.vars[x].as_str());
            format!("init {}", printable(var))
        } else {
            names[o].clone().unwrap_or_else(|| "?".into())
        }
    };
    let mut s = String::new();
    if let Some(first) = v.cycle.first() {
        s.push_str("cycle: ");
        s.push_str(&name(first.from));
        for step in &v.cycle {
            let _ = write!(s, " -{}-> {}", step.rel.name(), name(step.to));
        }
    } else {
        s.push_str("no single cycle: every store order fails");
    }
    // (the observer of a local happens-before; the other roles the
    // glossary's pattern names)
    for &(o, role) in v.ops.iter().filter(|(_, r)| r.contains("hb_o")) {
        let _ = write!(s, " (hb_o as {} sees it)", name(o));
        let _ = role;
    }
    let _ = write!(s, "   [{}#{}]", GLOSSARY, anchor(v.pattern.name()));
    s
}

/// The glossary's anchor for a name (`CyclicWpww(po-loc)` ->
/// `cyclicwpwwpo-loc`), as GitHub makes anchors of headings.
pub fn anchor(name: &str) -> String {
    name.chars()
        .filter_map(|c| match c {
            c if c.is_ascii_alphanumeric() => Some(c.to_ascii_lowercase()),
            '-' | '_' => Some(c),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}

/// Operation `o`'s token with its values as the program wrote them.
fn token(h: &History, o: OpId, value: &dyn Fn(OpId) -> String) -> String {
    let op = &h.ops[o];
    let var = op
        .var
        .map_or(String::new(), |x| printable(&h.vars[x]).into_owned());
    // ARMv8's annotation as `.hist` writes it (`W.rel`, `R.acq`, `F.ld`)
    let a = op.ann.suffix();
    match (op.kind, op.rmw) {
        (OpKind::Fence, _) => format!("F{a}"),
        (OpKind::Read, Some(w)) => format!("U{a}({var},{},{})", value(o), value(w)),
        (OpKind::Read, None) => format!("R{a}({var},{})", value(o)),
        (OpKind::Write, _) => format!("W{a}({var},{})", value(o)),
    }
}

/// The value operation `o` (of the shrunk history, if any) read or wrote,
/// as the program wrote it: a gem5 tester's byte (its ports write 8-bit
/// values that repeat; the history's own values are write ordinals), the
/// client's values in hex, a file's as they are.
fn shown_value(c: &Checked, shrunk: Option<&Shrunk>, o: OpId) -> String {
    let original = match shrunk {
        Some(s) => s.origin[o],
        None => o,
    };
    let h = &c.history;
    let v = h.ops[original].value;
    if let Some(g) = &c.origins {
        if v == 0 {
            return "0".into();
        }
        return match original
            .checked_sub(h.vars.len())
            .and_then(|i| g.ops.get(i))
        {
            Some(origin) => origin.value.to_string(),
            None => v.to_string(),
        };
    }
    if c.run.client && v != 0 {
        format!("{v:#x}")
    } else {
        v.to_string()
    }
}

/// The closing lines: the totals, what the exit status says, where the
/// words are explained.
pub fn totals(runs: &[Tally]) -> String {
    let sum = |f: fn(&Tally) -> usize| runs.iter().map(f).sum::<usize>();
    let (histories, broken, allowed, unknown) = (
        sum(|t| t.histories),
        sum(|t| t.broken),
        sum(|t| t.allowed),
        sum(|t| t.unknown),
    );
    // the fourth answer: no model checked is violated or undecided
    let consistent = histories - broken - allowed - unknown;
    let breaking_runs = runs.iter().filter(|t| t.broken > 0).count();
    let mut out = String::new();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let _ = writeln!(
        out,
        "{}, {}: {broken} {} promise (in {}), {allowed} allowed, {unknown} unknown, {consistent} consistent",
        plural(runs.len(), "run", "runs"),
        plural(histories, "history", "histories"),
        if broken == 1 {
            "breaks its"
        } else {
            "break their"
        },
        plural(breaking_runs, "run", "runs"),
    );
    if allowed > 0 {
        let _ = writeln!(
            out,
            "allowed: a history that keeps its promise but violates a model it does not promise (an O3 core's store buffering breaks SC, not TSO); --format report lists every model's verdict"
        );
    }
    let _ = writeln!(
        out,
        "models, patterns and edges (po, rw, ppo, ...) are explained in {GLOSSARY}"
    );
    out
}
