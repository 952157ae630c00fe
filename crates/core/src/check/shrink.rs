//! Shrinking a violation to a 1-minimal counterexample (docs/reference.md,
//! "Minimal counterexamples"; docs/design/gradual.md §2 and §8): delta
//! debugging (ddmin, Zeller & Hildebrandt, "Simplifying and Isolating
//! Failure-Inducing Input", TSE 2002) over a history's threads, then its
//! operations, keeping *the same violation*: the model still violated, and
//! the same weakest violated model (`decided_by` of the gradual check).
//!
//! Every candidate is a well-formed sub-history: an operation is kept or
//! removed whole (an RMW `U` is one operation), a read whose write is
//! removed is removed too (its value would otherwise be read from thin
//! air), and a `@final` observation goes with the write it observes (or
//! with the last operation on its variable). Program order is restricted,
//! never rebuilt: kept operations keep their ticks (a timed thread's
//! interval order on a subset is the subset's order) and their input
//! positions, so a certificate of the shrunk history still points into the
//! input. A last pass removes each remaining operation alone: when none
//! can go, the result is *1-minimal* (removing any one operation, with the
//! reads of its write, loses the violation).
//!
//! Shrinking re-checks the model many times; a time budget bounds the
//! whole search, and when it runs out the smallest history found so far is
//! returned, marked as possibly not 1-minimal.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use memconform_parsers::hist::{RawHistory, RawOp, RawThread};

use crate::certificate::{Rel, Violation};
use crate::check::{check_gradual_with, Decision, Options, Verdict};
use crate::history::fx::FxMap;
use crate::history::{History, OpId, OpKind};
use crate::models::Model;

/// The violation a shrink keeps: `model` violated, with `weakest` the
/// weakest violated model of its gradual chain (`decided_by`; `model`
/// itself when none of the weaker ones is violated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub model: Model,
    pub weakest: Model,
}

impl Target {
    /// The models whose check must hold for the gradual check of `model`
    /// to be decided by `weakest` (the chain before it, or the whole chain
    /// when `model` decides; none without the gradual pipeline): two
    /// targets with the same key and weakest model keep the same histories.
    pub fn key(&self, gradual: bool) -> (&'static [Model], Model) {
        if !gradual {
            return (&[], self.weakest);
        }
        let chain = self.model.gradual_chain();
        let upto = chain
            .iter()
            .position(|&m| m == self.weakest)
            .unwrap_or(chain.len());
        (&chain[..upto], self.weakest)
    }
}

/// Why a history cannot be shrunk for a model: it does not violate it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotViolated {
    pub model: Model,
    pub verdict: Verdict,
    /// Why the verdict is unknown, or the internal error of the check.
    pub reason: Option<String>,
    /// Whether the check failed internally (a certificate the validator
    /// rejected, a panic): a bug of memconform's, not the history's.
    pub internal: bool,
}

impl std::fmt::Display for NotViolated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.model, self.verdict.name())?;
        if let Some(r) = &self.reason {
            write!(f, " ({r})")?;
        }
        Ok(())
    }
}

/// A shrunk counterexample: a sub-history of the original with the same
/// violation.
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// The sub-history (no `@expect`: the original's no longer apply).
    pub history: History,
    /// For each operation of `history`, the original operation it is (an
    /// initial write: the original's initial write of its variable).
    pub origin: Vec<OpId>,
    pub target: Target,
    /// The certificate of `history` (operation ids of `history`).
    pub violation: Violation,
    /// Whether the last pass removed each remaining operation alone and
    /// every such removal lost the violation (no check unknown, time left).
    pub one_minimal: bool,
    /// Why the result may not be 1-minimal (the time budget ran out, some
    /// check's verdict was unknown).
    pub note: Option<String>,
    /// Checks run (the first, of the whole history, included).
    pub checks: usize,
    pub seconds: f64,
}

/// The weakest violated model of `model` on `h` with `opts`: its gradual
/// check's `decided_by`, or why it is not a violation.
pub fn target_of(h: &History, model: Model, opts: &Options) -> Result<Target, NotViolated> {
    let o = check_gradual_with(h, &[model], opts)
        .pop()
        .expect("one outcome per model");
    if o.verdict() == Verdict::Violation && o.invalid.is_none() {
        Ok(Target {
            model,
            weakest: o.decided_by,
        })
    } else {
        Err(NotViolated {
            model,
            verdict: o.verdict(),
            internal: o.invalid.is_some(),
            reason: o.invalid.clone().or(o.reason().map(|r| r.to_string())),
        })
    }
}

/// Shrinks `h`'s violation of `model` (whatever its weakest violated
/// model is) within `budget` (the whole search; `None`: unbounded):
/// [`target_of`], then [`shrink_to`].
pub fn shrink(
    h: &History,
    model: Model,
    opts: &Options,
    budget: Option<Duration>,
) -> Result<Shrunk, NotViolated> {
    let target = target_of(h, model, opts)?;
    shrink_to(h, target, opts, budget)
}

/// Delta debugging of `h` to a sub-history that keeps `target` (checked
/// with `opts`, each check also bounded by what is left of `budget`):
/// first the certificate's operations alone (with the writes they read
/// from), then ddmin over threads, then over operations, then each
/// `@final` observation alone, then single removals to a fixpoint
/// (1-minimality). Once what is kept is under a quarter of a large `h`,
/// the passes go on in that sub-history alone. Fails only when `h` itself
/// does not keep `target`.
pub fn shrink_to(
    h: &History,
    target: Target,
    opts: &Options,
    budget: Option<Duration>,
) -> Result<Shrunk, NotViolated> {
    shrink_with(h, target, opts, budget, None, PARALLEL_ABOVE)
}

/// [`shrink_to`] from `h`'s violation `known` of `target.model`, already
/// found by the engines: the whole history is not checked again (at 10⁶
/// operations that check is most of a shrink's time). The certificate is
/// still the engines': the caller validates what the shrink returns.
pub fn shrink_known(
    h: &History,
    target: Target,
    opts: &Options,
    budget: Option<Duration>,
    known: &Violation,
) -> Result<Shrunk, NotViolated> {
    shrink_with(h, target, opts, budget, Some(known), PARALLEL_ABOVE)
}

/// [`shrink_to`] from a known violation if any, checking candidates of at
/// least `parallel_above` operations two at a time.
fn shrink_with(
    h: &History,
    target: Target,
    opts: &Options,
    budget: Option<Duration>,
    known: Option<&Violation>,
    parallel_above: usize,
) -> Result<Shrunk, NotViolated> {
    let start = Instant::now();
    let mut s = Shrinker::new(h, target, opts, budget.map(|b| start + b));
    s.parallel_above = parallel_above;
    let mut cur = s.whole();
    // the whole history as a sub-history: the known violation's operation
    // ids hold in it when the projection renumbers nothing
    let known = known.and_then(|v| {
        let (sub, origin) = restrict(h, &cur.ops, &cur.finals);
        let same = sub.n() == h.n() && origin.iter().enumerate().all(|(i, &o)| i == o);
        same.then(|| (sub, origin, v.clone()))
    });
    let first = match known {
        Some(found) => found,
        None => {
            // the whole history is checked whatever the budget: it is the
            // answer when nothing smaller is found in time
            let deadline = s.deadline.take();
            let first = s.test(&cur);
            s.deadline = deadline;
            match first {
                Test::Keeps(found) => *found,
                Test::Loses(verdict, reason) => {
                    return Err(NotViolated {
                        model: target.model,
                        verdict,
                        internal: s.internal,
                        reason,
                    })
                }
            }
        }
    };
    let mut best = first;
    // the certificate's operations alone: most violations are a short cycle
    let seed = s.certificate_seed(&cur, &best);
    if let Some(seed) = seed.filter(|c| c.ops != cur.ops) {
        if let Test::Keeps(found) = s.test(&seed) {
            cur = seed;
            best = *found;
        }
    }
    // a kept sub-history much smaller than `h`: shrink it alone (each step
    // of the passes below scans every operation of the history it runs on),
    // from its known violation
    let small = |best: &Found| best.0.n() * 4 < h.n() && h.n() > RESTRICT_ABOVE;
    let alone = |best: &Found, checks: usize| {
        let left = budget.map(|b| b.saturating_sub(start.elapsed()));
        shrink_with(&best.0, target, opts, left, Some(&best.2), parallel_above).map(|mut inner| {
            inner.origin = inner.origin.iter().map(|&o| best.1[o]).collect();
            inner.checks += checks;
            inner.seconds = start.elapsed().as_secs_f64();
            inner
        })
    };
    if small(&best) {
        if let Ok(inner) = alone(&best, s.checks) {
            return Ok(inner);
        }
    }
    // ddmin over threads, then operations, each until the rest is small
    let stop = if h.n() > RESTRICT_ABOVE { h.n() / 4 } else { 0 };
    s.ddmin(&mut cur, &mut best, Shrinker::thread_units, stop);
    if small(&best) {
        if let Ok(inner) = alone(&best, s.checks) {
            return Ok(inner);
        }
    }
    s.ddmin(&mut cur, &mut best, Shrinker::op_units, stop);
    if small(&best) {
        if let Ok(inner) = alone(&best, s.checks) {
            return Ok(inner);
        }
        // the smaller history lost it (a check ran out of time): go on here
        s.ddmin(&mut cur, &mut best, Shrinker::op_units, 0);
    }
    // observations of the final memory that the violation does not need
    for i in 0..cur.finals.len() {
        if s.timed_out {
            break;
        }
        if cur.finals[i] {
            let mut c = cur.clone();
            c.finals[i] = false;
            if let Test::Keeps(found) = s.test(&c) {
                cur = c;
                best = *found;
            }
        }
    }
    // 1-minimality: every remaining operation removed alone
    let one_minimal = loop {
        let mut removed = false;
        let mut sure = true;
        for unit in s.op_units(&cur) {
            if s.timed_out {
                // (each removal scans the history: out of time, stop at once)
                break;
            }
            if !cur.ops[unit[0]] {
                continue; // gone with an earlier removal
            }
            let c = s.without(&cur, &unit);
            match s.test(&c) {
                Test::Keeps(found) => {
                    cur = c;
                    best = *found;
                    removed = true;
                }
                Test::Loses(Verdict::Unknown, _) => sure = false,
                Test::Loses(..) => {}
            }
        }
        if !removed || s.timed_out {
            break !removed && sure && !s.timed_out;
        }
    };
    let note = if s.timed_out {
        Some(format!(
            "the time budget ran out after {} checks: the history may not be 1-minimal",
            s.checks
        ))
    } else if !one_minimal {
        Some(
            "some check's verdict was unknown (the per-check time or memory budget): the history may not be 1-minimal"
                .to_string(),
        )
    } else {
        None
    };
    let (history, origin, violation) = best;
    Ok(Shrunk {
        history,
        origin,
        target,
        violation,
        one_minimal,
        note,
        checks: s.checks,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Above this many operations, once the certificate's operations alone keep
/// the violation, shrinking goes on in that sub-history instead of `h`.
const RESTRICT_ABOVE: usize = 1000;

/// A sub-history of `h` by what it keeps: `ops[o]` per operation
/// (initial writes always kept), `finals[i]` per `@final` observation.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    ops: Vec<bool>,
    finals: Vec<bool>,
}

/// A kept sub-history, its origin map and its certificate.
type Found = (History, Vec<OpId>, Violation);

/// The answer of one check of a candidate.
enum Test {
    /// The candidate keeps the target.
    Keeps(Box<Found>),
    /// It does not: its verdict for the model (`Violation` with another
    /// weakest model, `Consistent`, or `Unknown`) and why.
    Loses(Verdict, Option<String>),
}

/// The state of one shrink.
struct Shrinker<'a> {
    h: &'a History,
    target: Target,
    opts: Options,
    deadline: Option<Instant>,
    /// Per `@final`: the write of its value (`None`: thin air).
    final_writer: Vec<Option<OpId>>,
    /// Candidates already found to lose the target (definitive verdicts only).
    lost: HashSet<Vec<u64>>,
    checks: usize,
    timed_out: bool,
    /// Whether some check failed internally (see [`NotViolated::internal`]).
    internal: bool,
    /// Candidates of at least this many operations are checked two at a time.
    parallel_above: usize,
}

impl<'a> Shrinker<'a> {
    /// A shrinker of `h` for `target`, its checks ending by `deadline`.
    fn new(h: &'a History, target: Target, opts: &Options, deadline: Option<Instant>) -> Self {
        let final_writer = final_writers(h);
        Shrinker {
            h,
            target,
            opts: Options {
                kernel: false,
                ..opts.clone()
            },
            deadline,
            final_writer,
            lost: HashSet::new(),
            checks: 0,
            timed_out: false,
            internal: false,
            parallel_above: PARALLEL_ABOVE,
        }
    }

    /// The whole history as a configuration.
    fn whole(&self) -> Config {
        Config {
            ops: vec![true; self.h.n()],
            finals: vec![true; self.h.finals.len()],
        }
    }

    /// Closes a configuration under well-formedness: an RMW's halves go
    /// together, a read goes with the write it reads from (transitively),
    /// an observation with its write or its variable's last operation.
    fn close(&self, c: &mut Config) {
        let h = self.h;
        let kept: Vec<OpId> = (h.vars.len()..h.n()).filter(|&o| c.ops[o]).collect();
        if kept.len() * 4 < h.n() {
            // few kept (a chunk alone): to a fixpoint over them, drop what
            // lost its RMW partner or the write it reads
            loop {
                let mut changed = false;
                for &o in &kept {
                    let lost = h.ops[o].rmw.is_some_and(|p| !c.ops[p])
                        || h.rf(o).is_some_and(|w| !c.ops[w]);
                    if c.ops[o] && lost {
                        c.ops[o] = false;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            self.close_finals(c, kept.into_iter());
            return;
        }
        let mut gone: Vec<OpId> = Vec::new();
        for o in h.vars.len()..h.n() {
            if !c.ops[o] {
                if let Some(p) = h.ops[o].rmw.filter(|&p| c.ops[p]) {
                    c.ops[p] = false;
                    gone.push(p);
                }
                gone.push(o);
            }
        }
        while let Some(w) = gone.pop() {
            if !h.is_write(w) {
                continue;
            }
            for &r in h.readers(w) {
                if c.ops[r] {
                    c.ops[r] = false;
                    if let Some(p) = h.ops[r].rmw.filter(|&p| c.ops[p]) {
                        c.ops[p] = false;
                        gone.push(p);
                    }
                }
            }
        }
        self.close_finals(c, kept.into_iter());
    }

    /// An observation of the final memory stays only with some kept
    /// operation of its variable and its writer kept (`candidates`: the
    /// operations that may still be kept).
    fn close_finals(&self, c: &mut Config, candidates: impl Iterator<Item = OpId>) {
        close_finals(
            self.h,
            &self.final_writer,
            &c.ops,
            candidates,
            &mut c.finals,
        );
    }

    /// The configuration without `unit`'s operations, closed.
    fn without(&self, c: &Config, unit: &[OpId]) -> Config {
        let mut d = c.clone();
        for &o in unit {
            d.ops[o] = false;
        }
        self.close(&mut d);
        d
    }

    /// The configuration keeping, of its thread operations, only those of
    /// `units`, closed.
    fn only(&self, c: &Config, units: &[Vec<OpId>]) -> Config {
        let mut d = c.clone();
        d.ops[self.h.vars.len()..].fill(false);
        for &o in units.iter().flatten() {
            d.ops[o] = c.ops[o];
        }
        self.close(&mut d);
        d
    }

    /// ddmin's units of the thread pass: each thread's kept operations.
    fn thread_units(&self, c: &Config) -> Vec<Vec<OpId>> {
        self.h
            .threads
            .iter()
            .map(|t| t.ops.clone().filter(|&o| c.ops[o]).collect::<Vec<_>>())
            .filter(|u| !u.is_empty())
            .collect()
    }

    /// ddmin's units of the operation pass: each kept operation (an RMW's
    /// two halves together), in op id order.
    fn op_units(&self, c: &Config) -> Vec<Vec<OpId>> {
        (self.h.vars.len()..self.h.n())
            .filter(|&o| c.ops[o])
            .filter_map(|o| match self.h.ops[o].rmw {
                Some(p) if p < o => None,
                Some(p) => Some(vec![o, p]),
                None => Some(vec![o]),
            })
            .collect()
    }

    /// The operations of `found`'s certificate and the writes they read
    /// from (transitively, RMWs whole): the candidate most violations
    /// shrink to at once. `None` when the certificate names no operation
    /// (a store order that no completion found).
    fn certificate_seed(&self, c: &Config, found: &Found) -> Option<Config> {
        let (_, origin, v) = found;
        let named: Vec<OpId> = named_ops(v).into_iter().map(|o| origin[o]).collect();
        if named.is_empty() {
            return None;
        }
        let mut d = Config {
            ops: vec![false; self.h.n()],
            finals: c.finals.clone(),
        };
        close_named(self.h, named, |o| c.ops[o], &mut d.ops);
        self.close(&mut d);
        Some(d)
    }

    /// ddmin (Zeller & Hildebrandt's `ddmin`, with complements) over the
    /// units `units` gives of the current configuration: keep a chunk
    /// alone, else remove a chunk, else split finer; stops when no chunk of
    /// single units can go (or the budget is spent).
    fn ddmin(
        &mut self,
        cur: &mut Config,
        best: &mut Found,
        units: fn(&Self, &Config) -> Vec<Vec<OpId>>,
        stop_below: usize,
    ) {
        let mut n = 2;
        loop {
            if best.0.n() < stop_below {
                return;
            }
            let us = units(self, cur);
            if us.len() < 2 || self.timed_out {
                return;
            }
            n = n.min(us.len());
            let chunks: Vec<&[Vec<OpId>]> = (0..n)
                .map(|i| &us[i * us.len() / n..(i + 1) * us.len() / n])
                .collect();
            let mut reduced = None;
            let only: Vec<Config> = chunks.iter().map(|chunk| self.only(cur, chunk)).collect();
            if let Some((i, found)) = self.first_keeping(&only) {
                reduced = Some((only[i].clone(), found, 2));
            }
            if reduced.is_none() && n > 2 {
                let without: Vec<Config> = chunks
                    .iter()
                    .map(|chunk| self.without(cur, &chunk.concat()))
                    .collect();
                if let Some((i, found)) = self.first_keeping(&without) {
                    reduced = Some((without[i].clone(), found, (n - 1).max(2)));
                }
            }
            match reduced {
                Some((c, found, next)) => {
                    *cur = c;
                    *best = *found;
                    n = next;
                }
                None if n >= us.len() => return,
                None => n = (2 * n).min(us.len()),
            }
        }
    }

    /// Checks a candidate for the target, within the budget.
    fn test(&mut self, c: &Config) -> Test {
        match self.prepare(c) {
            Err(t) => t,
            Ok((key, opts)) => {
                let o = evaluate(self.h, self.target, &opts, c);
                self.settle(key, o)
            }
        }
    }

    /// The first of `cands` (in order) that keeps the target, with its
    /// index: what testing them one by one finds. Large candidates are
    /// checked two at a time when a second core is free (`test` of both,
    /// the later one's answer dropped when the earlier keeps): each check
    /// of a large sub-history is a whole check at scale.
    fn first_keeping(&mut self, cands: &[Config]) -> Option<(usize, Box<Found>)> {
        let parallel = std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
        let above = self.parallel_above;
        let large = |c: &Config| c.ops.iter().filter(|&&k| k).count() >= above;
        let mut i = 0;
        while i < cands.len() && !self.timed_out {
            if parallel && i + 1 < cands.len() && large(&cands[i]) && large(&cands[i + 1]) {
                let (a, b) = (self.prepare(&cands[i]), self.prepare(&cands[i + 1]));
                let (h, target) = (self.h, self.target);
                let run = |p: &Result<(Vec<u64>, Options), Test>, c: &Config| {
                    p.as_ref()
                        .ok()
                        .map(|(_, opts)| evaluate(h, target, opts, c))
                };
                let (ra, rb) = std::thread::scope(|scope| {
                    let second = scope.spawn(|| run(&b, &cands[i + 1]));
                    let first = run(&a, &cands[i]);
                    (first, second.join().expect("a check does not panic"))
                });
                for (j, (p, r)) in [(a, ra), (b, rb)].into_iter().enumerate() {
                    let t = match (p, r) {
                        (Ok((key, _)), Some(o)) => self.settle(key, o),
                        (Err(t), _) => t,
                        (Ok(_), None) => unreachable!("prepared candidates are evaluated"),
                    };
                    if let Test::Keeps(found) = t {
                        return Some((i + j, found));
                    }
                }
                i += 2;
            } else {
                if let Test::Keeps(found) = self.test(&cands[i]) {
                    return Some((i, found));
                }
                i += 1;
            }
        }
        None
    }

    /// A candidate's key and the options of its check, or the answer
    /// without one (known to lose, empty, out of time).
    fn prepare(&mut self, c: &Config) -> Result<(Vec<u64>, Options), Test> {
        let key = bits(c);
        if self.lost.contains(&key) {
            return Err(Test::Loses(Verdict::Consistent, None));
        }
        if !c.ops[self.h.vars.len()..].iter().any(|&k| k) {
            return Err(Test::Loses(
                Verdict::Consistent,
                Some("no operation".into()),
            ));
        }
        let mut opts = self.opts.clone();
        if let Some(d) = self.deadline {
            let left = d.saturating_duration_since(Instant::now());
            if left.is_zero() || opts.cancel.cancelled() {
                self.timed_out = true;
                return Err(Test::Loses(
                    Verdict::Unknown,
                    Some("time budget spent".into()),
                ));
            }
            opts.timeout = Some(opts.timeout.map_or(left, |t| t.min(left)));
        }
        self.checks += 1;
        Ok((key, opts))
    }

    /// The answer of a candidate's check, remembered.
    fn settle(&mut self, key: Vec<u64>, (sub, origin, o): Evaluated) -> Test {
        let verdict = o.verdict();
        match (o.decision, o.invalid) {
            (Decision::Violation(v), None) if o.decided_by == self.target.weakest => {
                Test::Keeps(Box::new((sub, origin, v)))
            }
            (Decision::Unknown(reason), invalid) => {
                self.internal |= invalid.is_some();
                if self.deadline.is_some_and(|d| Instant::now() >= d) {
                    self.timed_out = true;
                }
                Test::Loses(Verdict::Unknown, invalid.or(Some(reason.to_string())))
            }
            (_, invalid) => {
                if invalid.is_none() {
                    self.lost.insert(key);
                } else {
                    self.internal = true;
                }
                Test::Loses(verdict, invalid)
            }
        }
    }
}

/// Candidates of at least this many operations (initial writes included)
/// are checked two at a time: below it a check costs less than a thread.
const PARALLEL_ABOVE: usize = 20_000;

/// A candidate's sub-history, its origin map and the check's outcome.
type Evaluated = (History, Vec<OpId>, crate::check::Outcome);

/// Checks the sub-history `c` keeps for `target` (no state: safe on
/// another thread): its weakest model violated and, with the gradual
/// pipeline, every model of the chain before it holding ([`Target::key`]),
/// each decided directly; the outcome is `target.model`'s, decided by the
/// model whose check decided.
fn evaluate(h: &History, target: Target, opts: &Options, c: &Config) -> Evaluated {
    let (sub, origin) = restrict(h, &c.ops, &c.finals);
    let direct = Options {
        gradual: false,
        ..opts.clone()
    };
    let check = |m: Model| {
        check_gradual_with(&sub, &[m], &direct)
            .pop()
            .expect("one outcome per model")
    };
    let (before, weakest) = target.key(opts.gradual);
    let mut o = check(weakest);
    if o.verdict() == Verdict::Violation && o.invalid.is_none() {
        for &w in before {
            let p = check(w);
            if p.verdict() != Verdict::Consistent {
                o = p;
                break;
            }
        }
    }
    o.model = target.model;
    (sub, origin, o)
}

/// A configuration's kept operations and observations as bits (its key).
fn bits(c: &Config) -> Vec<u64> {
    let mut out = vec![0u64; (c.ops.len() + c.finals.len()).div_ceil(64)];
    for (i, &k) in c.ops.iter().chain(&c.finals).enumerate() {
        if k {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    out
}

/// The certificate's own sub-history of `h`: the operations `v` names (its
/// cycle's and roles'), with what well-formedness needs (an RMW's other
/// half, the write each kept read reads from, transitively), and the
/// `@final` observations of the variables they access whose observed
/// write is kept. Returns it with, per operation of it, the operation of
/// `h` it is; `None` when `v` names no operation.
pub fn certificate_core(h: &History, v: &Violation) -> Option<(History, Vec<OpId>)> {
    let mut todo = named_ops(v);
    if todo.is_empty() {
        return None;
    }
    // an `rw` edge `r -rw-> w2` pivots on `w1 co w2` for the write `w1`
    // that `r` reads: the shortest path of po and wr from `w1` to `w2` in
    // `h` keeps that premise (the causal models' `rw[co]`; more operations
    // never hurt the other models' edges, a sub-history being monotone)
    for s in v.cycle.iter().filter(|s| s.rel == Rel::Rw).take(CO_PATHS) {
        if let Some(w1) = h.rf(s.from).filter(|&w| !h.is_init(w)) {
            todo.extend(co_path(h, w1, s.to));
        }
    }
    // a derived store-order edge `w1 -st-> w2` (or `pww`, `wpww`) fires on
    // a read: of `w2` after `w1` (`w1 ⇝ r`, `r` reads `w2`), or of `w1`
    // before `w2` (`r` reads `w1`, `r ⇝ w2`); keep the nearest such read
    // with its path (a stale read of a thread's own write: the read itself)
    let mut paths = CO_PATHS;
    for s in v.cycle.iter().filter(|s| s.rel.is_store_order()) {
        todo.extend(st_premise(h, s.from, s.to, &mut paths));
    }
    Some(closed_sub(h, todo))
}

/// The sub-history of the operations `todo` with what well-formedness needs
/// ([`close_named`]) and the `@final` observations it keeps
/// ([`close_finals`]), with its origin.
fn closed_sub(h: &History, todo: Vec<OpId>) -> (History, Vec<OpId>) {
    let mut keep = vec![false; h.n()];
    let kept = close_named(h, todo, |_| true, &mut keep);
    let mut finals = vec![true; h.finals.len()];
    close_finals(h, &final_writers(h), &keep, kept.into_iter(), &mut finals);
    restrict(h, &keep, &finals)
}

/// The sub-history of `h` around `v`'s cycle: in each thread the cycle
/// visits, its operations from `w` before the first it names to `w` after
/// the last; in each other thread, `w` either side of the same span of
/// its progress (its operations' share of its length); with what
/// well-formedness needs (as [`certificate_core`]);
/// with its origin. `None` when `v` has no cycle. A violation found only
/// through derived edges whose premises lie near the cycle in program
/// order (a store buffer's reordering, a stale read) is one of this
/// window; the caller checks that it is.
pub fn window_core(h: &History, v: &Violation, w: usize) -> Option<(History, Vec<OpId>)> {
    let named = named_ops(v);
    if named.is_empty() {
        return None;
    }
    let mut span: FxMap<usize, (OpId, OpId)> = FxMap::default();
    for &o in &named {
        if let Some(t) = h.ops[o].thread {
            let e = span.entry(t).or_insert((o, o));
            *e = (e.0.min(o), e.1.max(o));
        }
    }
    // the span as fractions of each thread's length: the other threads'
    // operations at the same progress (a history with no clock: progress is
    // the best guess of "at the same time")
    let frac = |t: usize, o: OpId| {
        let ops = &h.threads[t].ops;
        (o - ops.start) as f64 / ops.len().max(1) as f64
    };
    let (f_lo, f_hi) = span
        .iter()
        .fold((1.0f64, 0.0f64), |(a, b), (&t, &(lo, hi))| {
            (a.min(frac(t, lo)), b.max(frac(t, hi)))
        });
    let mut todo = named;
    for (t, th) in h.threads.iter().enumerate() {
        let ops = &th.ops;
        if ops.is_empty() {
            continue;
        }
        let (lo, hi) = span.get(&t).copied().unwrap_or_else(|| {
            let at = |f: f64| (ops.start + (f * ops.len() as f64) as usize).min(ops.end - 1);
            (at(f_lo), at(f_hi))
        });
        todo.extend(lo.saturating_sub(w).max(ops.start)..(hi + w + 1).min(ops.end));
    }
    Some(closed_sub(h, todo))
}

/// The operations one premise search of [`st_premise`] visits at most
/// (a store-order edge's premise is near its writes, or it is a chain of
/// derived edges no `po`/`wr` path shows).
const ST_PATH_VISITS: usize = 1 << 14;

/// The operations that keep a premise of `w1 st w2` (the store-order rules
/// of gradual-consistency-checking §4 and consistency-framework-2k §4.2: a
/// write before a read of a later write, a read of a write before a later
/// write) in a sub-history: a reader of `w2` `po`-after `w1` in `w1`'s
/// thread, or a reader of `w1` `po`-before `w2` in `w2`'s thread, the
/// nearest; else a `po`/`wr` path from `w1` to `w2`, or to (from) the
/// first reader that has one, spending at most `paths` searches. Empty
/// when none is found.
fn st_premise(h: &History, w1: OpId, w2: OpId, paths: &mut usize) -> Vec<OpId> {
    let same = |a: OpId, b: OpId| h.ops[a].thread.is_some() && h.ops[a].thread == h.ops[b].thread;
    let after = h
        .readers(w2)
        .iter()
        .copied()
        .filter(|&r| same(r, w1) && w1 < r)
        .min();
    let before = h
        .readers(w1)
        .iter()
        .copied()
        .filter(|&r| same(r, w2) && r < w2)
        .max();
    if let Some(r) = after.or(before) {
        return vec![r];
    }
    // a path from `w1` to `w2` itself (a write before a later write), else
    // to (from) a reader; each search spent whether or not it finds one
    let mut search = |a: OpId, b: OpId| {
        if *paths == 0 {
            return None;
        }
        *paths -= 1;
        Some(co_path_within(h, a, b, ST_PATH_VISITS)).filter(|p| !p.is_empty())
    };
    let to_readers = h.readers(w2).iter().take(2).map(|&r| (w1, r));
    let from_readers = h.readers(w1).iter().take(2).map(|&r| (r, w2));
    std::iter::once((w1, w2))
        .chain(to_readers)
        .chain(from_readers)
        .find_map(|(a, b)| search(a, b))
        .unwrap_or_default()
}

/// The operations a certificate names: its cycle's, then its roles'.
fn named_ops(v: &Violation) -> Vec<OpId> {
    v.cycle
        .iter()
        .flat_map(|s| [s.from, s.to])
        .chain(v.ops.iter().map(|&(o, _)| o))
        .collect()
}

/// Keeps in `keep` the operations `named` and what well-formedness needs
/// of them (an RMW's other half, the write each kept read reads from,
/// transitively), among those `allowed`, with the initial writes; returns
/// the thread operations it kept.
fn close_named(
    h: &History,
    mut named: Vec<OpId>,
    allowed: impl Fn(OpId) -> bool,
    keep: &mut [bool],
) -> Vec<OpId> {
    keep[..h.vars.len()].fill(true);
    let mut kept = Vec::new();
    while let Some(o) = named.pop() {
        if keep[o] || !allowed(o) {
            continue;
        }
        keep[o] = true;
        kept.push(o);
        named.extend(h.ops[o].rmw);
        named.extend(h.rf(o));
    }
    kept
}

/// Per `@final` of `h`: the write of its value (`None`: thin air).
fn final_writers(h: &History) -> Vec<Option<OpId>> {
    h.finals
        .iter()
        .map(|&(x, v)| {
            h.writes_of(x)
                .iter()
                .copied()
                .find(|&w| !h.is_init(w) && h.ops[w].value == v)
        })
        .collect()
}

/// An observation of the final memory stays only with some kept operation
/// of its variable (among `candidates`) and its writer (`writers`) kept.
fn close_finals(
    h: &History,
    writers: &[Option<OpId>],
    ops: &[bool],
    candidates: impl Iterator<Item = OpId>,
    finals: &mut [bool],
) {
    if h.finals.is_empty() {
        return;
    }
    let mut accessed = vec![false; h.vars.len()];
    for o in candidates {
        if let (true, Some(x)) = (ops[o], h.ops[o].var) {
            accessed[x] = true;
        }
    }
    for (i, &(x, _)) in h.finals.iter().enumerate() {
        finals[i] &= accessed[x] && writers[i].is_none_or(|w| ops[w]);
    }
}

/// At most this many `rw` edges of a certificate get their `co` premise's
/// path ([`co_path`]: each a search of the history).
const CO_PATHS: usize = 16;

/// The operations that keep `a co b` (`co = (po ∪ wr)⁺`) in a sub-history
/// of `h`: on a path of `po` (a thread's next operation) and `wr` from `a`
/// to `b` with the fewest `wr` hops, both ends and each `wr` edge's write
/// and read (`po` between kept operations of a thread is kept by
/// restriction). None when there is no path or a thread on the way is
/// timed (its `po` is not its sequence).
fn co_path(h: &History, a: OpId, b: OpId) -> Vec<OpId> {
    co_path_within(h, a, b, usize::MAX)
}

/// [`co_path`], giving up (empty) after visiting `limit` operations.
fn co_path_within(h: &History, a: OpId, b: OpId, limit: usize) -> Vec<OpId> {
    // 0-1 breadth-first search: a po step costs nothing, a wr hop one
    let mut from: FxMap<OpId, (OpId, bool)> = FxMap::default();
    let mut queue = std::collections::VecDeque::from([a]);
    from.insert(a, (a, false));
    while let Some(o) = queue.pop_front() {
        if from.len() > limit {
            return Vec::new();
        }
        if o == b {
            let mut path = vec![b, a];
            let mut at = b;
            while at != a {
                let (p, wr) = from[&at];
                if wr {
                    path.extend([p, at]);
                }
                at = p;
            }
            return path;
        }
        let Some(t) = h.ops[o].thread else { continue };
        if h.threads[t].timed {
            return Vec::new();
        }
        if o + 1 < h.threads[t].ops.end {
            if let std::collections::hash_map::Entry::Vacant(e) = from.entry(o + 1) {
                e.insert((o, false));
                queue.push_front(o + 1);
            }
        }
        if h.is_write(o) {
            for &r in h.readers(o) {
                if let std::collections::hash_map::Entry::Vacant(e) = from.entry(r) {
                    e.insert((o, true));
                    queue.push_back(r);
                }
            }
        }
    }
    Vec::new()
}

/// The sub-history of `h` that keeps the operations `ops[o]` (an RMW's
/// halves both or neither, every kept read's write kept) and the `@final`
/// observations `finals[i]` (of variables some kept operation accesses):
/// threads restricted (emptied ones dropped), ticks and input positions
/// kept, no `@expect`. Returns it with, per operation of it, the original
/// operation it is.
pub fn restrict(h: &History, ops: &[bool], finals: &[bool]) -> (History, Vec<OpId>) {
    let mut threads = Vec::new();
    let mut thread_ops: Vec<OpId> = Vec::new();
    for t in &h.threads {
        let mut raw_ops = Vec::new();
        for o in t.ops.clone().filter(|&o| ops[o]) {
            let op = &h.ops[o];
            thread_ops.push(o);
            if op.kind == OpKind::Write && op.rmw.is_some() {
                continue; // written with its read half
            }
            let kind = h.raw_kind(o);
            raw_ops.push(RawOp {
                kind,
                ann: op.ann,
                ticks: op.ticks,
                pos: op.pos,
            });
        }
        if !raw_ops.is_empty() {
            threads.push(RawThread {
                name: t.name.clone(),
                pos: t.pos,
                ops: raw_ops,
            });
        }
    }
    let raw = RawHistory {
        name: h.name.clone(),
        expect: Vec::new(),
        finals: h
            .finals
            .iter()
            .zip(finals)
            .filter(|(_, &k)| k)
            .map(|(&(x, v), _)| (h.vars[x].clone(), v, h.pos))
            .collect(),
        meta: h
            .meta
            .iter()
            .map(|(k, v)| (k.clone(), v.clone(), h.pos))
            .collect(),
        threads,
        pos: h.pos,
    };
    let sub = History::from_raw(&raw, h.index)
        .unwrap_or_else(|e| panic!("a closed sub-history of a valid history is valid: {e}"));
    let var_of: FxMap<&str, OpId> = h
        .vars
        .iter()
        .enumerate()
        .map(|(i, v)| (v.as_str(), i))
        .collect();
    let mut origin: Vec<OpId> = sub.vars.iter().map(|v| var_of[v.as_str()]).collect();
    origin.extend(thread_ops);
    debug_assert_eq!(origin.len(), sub.n());
    (sub, origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checking candidates two at a time finds what checking them one by
    /// one finds: the same counterexample, operation for operation, on
    /// generated histories with stale reads (every candidate in parallel
    /// here, whatever its size).
    #[test]
    fn two_at_a_time_shrinks_to_the_same_counterexample() {
        use crate::gen::{inject_stale_read, threads, Memory, Rng, Shape};
        let mut compared = 0;
        for seed in 0..40u64 {
            let shape = Shape {
                threads: 3 + seed as usize % 3,
                ops_per_thread: 12,
                vars: 3,
                write_ratio: 0.5,
            };
            // several stale reads: several counterexamples, so which
            // candidate is taken first decides which one is found
            let mut program = threads(Memory::Tso, shape, seed);
            let mut rng = Rng::new(seed);
            for _ in 0..3 {
                inject_stale_read(&mut program, &mut rng);
            }
            let Ok(h) = History::from_threads(&program) else {
                continue;
            };
            let opts = Options::default();
            let Ok(target) = target_of(&h, Model::Sc, &opts) else {
                continue;
            };
            let one = shrink_with(&h, target, &opts, None, None, usize::MAX).unwrap();
            let two = shrink_with(&h, target, &opts, None, None, 0).unwrap();
            assert_eq!(one.origin, two.origin, "seed {seed}");
            assert_eq!(one.one_minimal, two.one_minimal, "seed {seed}");
            compared += 1;
        }
        assert!(compared > 20, "{compared} histories compared");
    }

    /// Two at a time, the earlier of two keeping candidates wins, and a
    /// losing earlier one gives way to the later.
    #[test]
    fn two_at_a_time_takes_the_first_that_keeps() {
        let h = hist(SB_IN_NOISE);
        let opts = Options::default();
        let target = target_of(&h, Model::Sc, &opts).unwrap();
        let mut s = Shrinker::new(&h, target, &opts, None);
        s.parallel_above = 0;
        let whole = s.whole();
        let mut lose = whole.clone();
        for &o in s.thread_units(&whole)[0]
            .iter()
            .chain(&s.thread_units(&whole)[1])
        {
            lose.ops[o] = false;
        }
        s.close(&mut lose);
        let mut fewer = whole.clone();
        fewer.ops[h.threads[2].ops.start] = false; // t2's first read
        s.close(&mut fewer);
        assert_eq!(
            s.first_keeping(&[whole.clone(), fewer.clone()])
                .map(|f| f.0),
            Some(0)
        );
        assert_eq!(
            s.first_keeping(&[fewer, whole.clone()]).map(|f| f.0),
            Some(0)
        );
        assert_eq!(
            s.first_keeping(&[lose.clone(), whole]).map(|f| f.0),
            Some(1)
        );
        assert_eq!(s.first_keeping(&[lose.clone(), lose]).map(|f| f.0), None);
    }

    /// Store buffering (`x`, `y`) among unrelated operations on `z` and `w`.
    const SB_IN_NOISE: &str = "t0: W(z,1) W(x,1) R(z,1) R(y,0) W(z,2)\n\
                               t1: R(z,1) W(y,1) W(w,5) R(x,0)\n\
                               t2: R(w,5) R(z,2) W(w,6)\n";

    fn hist(src: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(src.as_bytes()).unwrap();
        History::from_raw(&raw[0], 0).unwrap()
    }

    /// The store-buffering litmus test inside noise shrinks to its four
    /// operations, for SC (weakest: ccm) and keeps their positions.
    #[test]
    fn store_buffering_in_noise_shrinks_to_its_four_operations() {
        let h = hist(SB_IN_NOISE);
        let s = shrink(&h, Model::Sc, &Options::default(), None).unwrap();
        assert!(s.one_minimal, "{:?}", s.note);
        assert_eq!(s.history.n_thread_ops(), 4);
        let text: Vec<String> = (s.history.vars.len()..s.history.n())
            .map(|o| s.history.describe(o))
            .collect();
        assert_eq!(text, ["t0:W(x,1)", "t0:R(y,0)", "t1:W(y,1)", "t1:R(x,0)"]);
        for o in 0..s.history.n() {
            assert_eq!(s.history.ops[o].pos, h.ops[s.origin[o]].pos);
        }
        assert_eq!(
            s.target.weakest,
            target_of(&s.history, Model::Sc, &Options::default())
                .unwrap()
                .weakest
        );
    }

    /// Removing a write removes the reads of it, and an RMW goes whole.
    #[test]
    fn closure_removes_readers_and_whole_rmws() {
        let h = hist("t0: W(x,1) U(y,0,1)\nt1: R(x,1) U(x,1,2) R(y,1) R(x,2)\n@final x=2\n");
        let s = Shrinker::new(
            &h,
            Target {
                model: Model::Sc,
                weakest: Model::Sc,
            },
            &Options::default(),
            None,
        );
        let whole = s.whole();
        // W(x,1) is op 2 (x, y initial writes are 0, 1)
        let c = s.without(&whole, &[2]);
        let (sub, origin) = restrict(&h, &c.ops, &c.finals);
        let text: Vec<String> = (sub.vars.len()..sub.n()).map(|o| sub.describe(o)).collect();
        assert_eq!(text, ["t0:U(y,0,1).r", "t0:U(y,0,1).w", "t1:R(y,1)"]);
        assert!(sub.finals.is_empty(), "the final of x=2 went with U(x,1,2)");
        assert_eq!(origin.len(), sub.n());
    }

    /// Targets share shrinks exactly when their gradual checks ask the
    /// same: the models before the weakest hold, the weakest is violated.
    #[test]
    fn targets_with_the_same_chain_prefix_share_a_key() {
        let t = |model, weakest| Target { model, weakest };
        let key = |model, weakest| t(model, weakest).key(true);
        assert_eq!(key(Model::Sc, Model::Cc), key(Model::Cc, Model::Cc));
        assert_eq!(key(Model::Sc, Model::Ccm), key(Model::Ccm, Model::Ccm));
        assert_eq!(key(Model::Sc, Model::Wsc), key(Model::Wsc, Model::Wsc));
        assert_ne!(key(Model::Ccm, Model::Cm), key(Model::Cm, Model::Cm));
        assert_ne!(key(Model::Sc, Model::Sc), key(Model::Wsc, Model::Wsc));
        assert_eq!(key(Model::Tso, Model::Cc), key(Model::Cc, Model::Cc));
        assert_ne!(key(Model::Tso, Model::Wccm), key(Model::Wccm, Model::Wccm));
        assert_ne!(key(Model::Tso, Model::Tso), key(Model::Pso, Model::Pso));
        assert_eq!(
            t(Model::Sc, Model::Sc).key(false),
            t(Model::Sc, Model::Sc).key(false)
        );
    }

    #[test]
    fn a_consistent_history_is_not_shrunk() {
        let h = hist("t0: W(x,1)\nt1: R(x,1)\n");
        let e = shrink(&h, Model::Sc, &Options::default(), None).unwrap_err();
        assert_eq!(e.verdict, Verdict::Consistent);
    }
}
