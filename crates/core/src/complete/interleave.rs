//! `interleave`: a search over interleavings of the threads (the DBCOP-style
//! bounded-thread algorithm), for SC: the state is the frontier of per-thread
//! positions, memoised; an operation may run only after all its predecessors
//! in the saturated order, a read only while its write is the variable's
//! latest, a write only once every read of the latest write has run.

use std::collections::HashSet;

use super::{Completion, Limits, Saturation, Spec};
use crate::history::{History, OpId, OpKind};
use crate::relation::BitSet;

/// Applies to SC (one graph) over untimed threads.
pub fn applies(h: &History, spec: &Spec) -> bool {
    spec.graphs.len() == 1 && h.threads.iter().all(|t| !t.timed)
}

struct Search<'a, 'h, 'c> {
    sat: &'a Saturation<'h>,
    h: &'h History,
    /// predecessors in the saturated order
    pred: crate::relation::BitMatrix,
    done: BitSet,
    pos: Vec<usize>,
    latest: Vec<OpId>,
    pending_reads: Vec<usize>,
    seen: HashSet<Vec<usize>>,
    trace: Vec<OpId>,
    limits: Limits<'c>,
    timed_out: bool,
    /// the memory limit stopped the search
    over_memory: bool,
    steps: usize,
}

/// Searches for an SC interleaving that respects the saturated order; the
/// visited states are bounded by `limits.memory`.
pub fn complete(sat: &Saturation, limits: Limits) -> Completion {
    let h = sat.history();
    let hb = sat.graphs().next().expect("one graph");
    let mut done = BitSet::new(h.n());
    for x in 0..h.vars.len() {
        done.insert(x); // initial writes
    }
    let mut s = Search {
        sat,
        h,
        pred: hb.transpose(),
        done,
        pos: vec![0; h.threads.len()],
        latest: (0..h.vars.len()).collect(),
        pending_reads: (0..h.n()).map(|w| h.readers(w).len()).collect(),
        seen: HashSet::new(),
        trace: Vec::new(),
        limits,
        timed_out: false,
        over_memory: false,
        steps: 0,
    };
    if s.dfs() {
        let mut order: Vec<Vec<OpId>> = (0..h.vars.len()).map(|x| vec![x]).collect();
        for &o in &s.trace {
            if h.is_write(o) {
                order[h.var(o).expect("a variable")].push(o);
            }
        }
        Completion::Found {
            order,
            interleaving: Some(s.trace),
        }
    } else if s.over_memory {
        Completion::OverMemory(format!(
            "the interleave search visited {} states of {} threads",
            s.seen.len(),
            h.threads.len()
        ))
    } else if s.timed_out {
        Completion::TimedOut
    } else {
        Completion::Exhausted
    }
}

impl Search<'_, '_, '_> {
    /// Whether every predecessor of `o` in the saturated order has run.
    fn ready(&self, o: OpId) -> bool {
        self.pred
            .row(o)
            .iter()
            .zip(self.done.words())
            .all(|(p, d)| p & !d == 0)
    }

    /// The operations thread `t` runs next as one step (an RMW's two halves).
    fn next_step(&self, t: usize) -> Option<(OpId, OpId)> {
        let range = &self.h.threads[t].ops;
        let o = range.start + self.pos[t];
        if o >= range.end {
            return None;
        }
        match self.h.ops[o].rmw {
            Some(w) if w > o => Some((o, w)),
            _ => Some((o, o)),
        }
    }

    fn can_run(&self, o: OpId) -> bool {
        let h = self.h;
        if !self.ready(o) {
            return false;
        }
        match h.ops[o].kind {
            OpKind::Read => {
                let x = h.var(o).expect("a variable");
                h.rf(o) == Some(self.latest[x])
            }
            OpKind::Write => {
                let x = h.var(o).expect("a variable");
                // (an RMW's own read has run already)
                self.pending_reads[self.latest[x]] == 0
            }
            OpKind::Fence => true,
        }
    }

    fn apply(&mut self, o: OpId) {
        let h = self.h;
        self.done.insert(o);
        self.trace.push(o);
        match h.ops[o].kind {
            OpKind::Read => {
                let w = h.rf(o).expect("not thin-air");
                self.pending_reads[w] -= 1;
            }
            OpKind::Write => self.latest[h.var(o).expect("a variable")] = o,
            OpKind::Fence => {}
        }
    }

    fn dfs(&mut self) -> bool {
        if self
            .pos
            .iter()
            .zip(&self.h.threads)
            .all(|(&p, t)| p == t.ops.len())
        {
            return true;
        }
        if !self.seen.insert(self.pos.clone()) {
            return false;
        }
        self.steps += 1;
        if self.steps.is_multiple_of(256) && self.limits.spent() {
            self.timed_out = true;
        }
        // a visited state: its positions, the set's own share
        let state = 8 * self.pos.len() as u64 + 64;
        if self.limits.over(self.seen.len() as u64 * state) {
            self.over_memory = true;
        }
        if self.timed_out || self.over_memory {
            return false;
        }
        for t in 0..self.h.threads.len() {
            let Some((a, b)) = self.next_step(t) else {
                continue;
            };
            if !self.can_run(a) {
                continue;
            }
            let saved = (self.latest.clone(), self.trace.len());
            self.apply(a);
            if b != a {
                if !self.can_run(b) {
                    self.undo(a, &saved);
                    continue;
                }
                self.apply(b);
            }
            let len = if b != a { 2 } else { 1 };
            self.pos[t] += len;
            if self.dfs() {
                return true;
            }
            self.pos[t] -= len;
            if b != a {
                self.undo(b, &saved);
            }
            self.undo(a, &saved);
        }
        let _ = self.sat;
        false
    }

    fn undo(&mut self, o: OpId, saved: &(Vec<OpId>, usize)) {
        let h = self.h;
        self.done.words_mut()[o / 64] &= !(1 << (o % 64));
        if h.ops[o].kind == OpKind::Read {
            self.pending_reads[h.rf(o).expect("not thin-air")] += 1;
        }
        self.latest.clone_from(&saved.0);
        self.trace.truncate(saved.1);
    }
}

/// A thread's next step in [`greedy`]: one operation, or an RMW's read and
/// write together.
#[derive(Clone, Copy)]
enum Step {
    /// A read or a fence: changes no memory, so running it as soon as it
    /// can run loses no witness.
    Free(OpId),
    /// A write, or an RMW (read, write): a choice.
    Store(OpId, OpId),
}

/// SC by a greedy interleaving over program order and reads-from alone (no
/// saturation), for wide histories of untimed threads: reads and fences run
/// as soon as they can (a read whose write is its variable's latest: moving
/// it earlier in any witness keeps the witness), and a write of `x` only
/// once every read of `x`'s latest write has run (values are unique: it
/// would never come back). The writes that can run are tried those that
/// keep their variable locked least first (see `Greedy::stores`), with at
/// most `backtracks` returns to an earlier choice. Only a
/// witness is an answer (`Found`, checked by the validator like any
/// other); `None` says nothing about the history.
pub fn greedy(h: &History, limits: Limits, backtracks: u64) -> Option<Completion> {
    if !h.threads.iter().all(|t| !t.timed) {
        return None;
    }
    let nvars = h.vars.len();
    let mut g = Greedy {
        h,
        pos: vec![0; h.threads.len()],
        latest: (0..nvars).collect(),
        pending: (0..h.n()).map(|w| h.readers(w).len() as u32).collect(),
        trail: Vec::with_capacity(h.n()),
        demand: vec![0; h.n()],
    };
    // choice points: where the trail stood, the alternative being tried
    let mut choices: Vec<(usize, usize)> = Vec::new();
    let mut returned = 0u64;
    let mut candidates: Vec<(u32, u32, usize)> = Vec::new();
    let mut steps = 0u64;
    g.run_free();
    loop {
        steps += 1;
        if steps.is_multiple_of(64) && limits.spent() {
            return None;
        }
        if g.finished() {
            if g.finals_hold() {
                break;
            }
        } else {
            g.stores(&mut candidates);
            if let Some(&(_, _, t)) = candidates.first() {
                choices.push((g.trail.len(), 0));
                g.store(t);
                g.run_free();
                continue;
            }
        }
        // a dead end: back to the last choice with an alternative left
        loop {
            let (mark, tried) = choices.pop()?;
            returned += 1;
            if returned > backtracks {
                return None;
            }
            g.undo_to(mark);
            g.stores(&mut candidates);
            if let Some(&(_, _, t)) = candidates.get(tried + 1) {
                choices.push((mark, tried + 1));
                g.store(t);
                g.run_free();
                break;
            }
        }
    }
    let mut order: Vec<Vec<OpId>> = (0..nvars).map(|x| vec![x]).collect();
    let interleaving: Vec<OpId> = g.trail.iter().map(|e| e.op).collect();
    for &o in &interleaving {
        if h.is_write(o) {
            order[h.var(o).expect("a variable")].push(o);
        }
    }
    Some(Completion::Found {
        order,
        interleaving: Some(interleaving),
    })
}

/// One operation run by [`greedy`], with what undoing it restores.
struct Done {
    op: OpId,
    thread: usize,
    /// a write: its variable's latest write before it
    was_latest: OpId,
}

struct Greedy<'h> {
    h: &'h History,
    pos: Vec<usize>,
    latest: Vec<OpId>,
    /// per write: its reads not run yet
    pending: Vec<u32>,
    trail: Vec<Done>,
    /// scratch: per write, the thread heads that read it
    demand: Vec<u32>,
}

impl Greedy<'_> {
    fn head(&self, t: usize) -> Option<Step> {
        let range = &self.h.threads[t].ops;
        let o = range.start + self.pos[t];
        if o >= range.end {
            return None;
        }
        let op = &self.h.ops[o];
        Some(match (op.kind, op.rmw) {
            (OpKind::Read, Some(w)) if w > o => Step::Store(o, w),
            (OpKind::Write, _) => Step::Store(o, o),
            _ => Step::Free(o),
        })
    }

    fn can_free(&self, o: OpId) -> bool {
        match (self.h.ops[o].kind, self.h.rf(o)) {
            (OpKind::Read, Some(w)) => self.latest[self.h.var(o).expect("a variable")] == w,
            // a read of a value no write wrote never runs
            (OpKind::Read, None) => false,
            _ => true, // a fence
        }
    }

    /// Whether the store step (`r`, `w`) can run: an RMW's read its
    /// variable's latest and that write's only pending read; a write once
    /// the latest write has no pending read.
    fn can_store(&self, r: OpId, w: OpId) -> bool {
        let x = self.h.var(w).expect("a variable");
        let latest = self.latest[x];
        if r == w {
            self.pending[latest] == 0
        } else if self.h.rf(r).is_none() {
            false
        } else {
            self.h.rf(r) == Some(latest) && self.pending[latest] == 1
        }
    }

    fn apply(&mut self, o: OpId, t: usize) {
        let h = self.h;
        let mut was_latest = o;
        if let Some(w) = h.rf(o) {
            self.pending[w] -= 1;
        }
        if h.is_write(o) {
            let x = h.var(o).expect("a variable");
            was_latest = self.latest[x];
            self.latest[x] = o;
        }
        self.pos[t] += 1;
        self.trail.push(Done {
            op: o,
            thread: t,
            was_latest,
        });
    }

    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let d = self.trail.pop().expect("above the mark");
            if let Some(w) = self.h.rf(d.op) {
                self.pending[w] += 1;
            }
            if self.h.is_write(d.op) {
                self.latest[self.h.var(d.op).expect("a variable")] = d.was_latest;
            }
            self.pos[d.thread] -= 1;
        }
    }

    /// Runs every read and fence that can run, until none can.
    fn run_free(&mut self) {
        let mut again = true;
        while again {
            again = false;
            for t in 0..self.h.threads.len() {
                while let Some(Step::Free(o)) = self.head(t) {
                    if !self.can_free(o) {
                        break;
                    }
                    self.apply(o, t);
                    again = true;
                }
            }
        }
    }

    /// The threads whose store step can run: first the writes whose reads
    /// are all at thread heads (they run at once and free the variable
    /// again), then fewest reads elsewhere, then most reads at heads.
    fn stores(&mut self, out: &mut Vec<(u32, u32, usize)>) {
        out.clear();
        let threads = self.h.threads.len();
        for t in 0..threads {
            if let Some(Step::Free(o)) = self.head(t) {
                if let Some(w) = self.h.rf(o) {
                    self.demand[w] += 1;
                }
            }
        }
        for t in 0..threads {
            if let Some(Step::Store(r, w)) = self.head(t) {
                if self.can_store(r, w) {
                    // readers of `w` that are not at a thread's head keep
                    // `x` locked (no other write) until they run
                    let blocked = self.pending[w] - self.demand[w].min(self.pending[w]);
                    out.push((blocked, self.demand[w], t));
                }
            }
        }
        for t in 0..threads {
            if let Some(Step::Free(o)) = self.head(t) {
                if let Some(w) = self.h.rf(o) {
                    self.demand[w] = 0;
                }
            }
        }
        out.sort_by_key(|&(blocked, d, t)| (blocked, std::cmp::Reverse(d), t));
    }

    fn store(&mut self, t: usize) {
        if let Some(Step::Store(r, w)) = self.head(t) {
            self.apply(r, t);
            if w != r {
                self.apply(w, t);
            }
        }
    }

    fn finished(&self) -> bool {
        self.pos
            .iter()
            .zip(&self.h.threads)
            .all(|(&p, t)| p == t.ops.len())
    }

    fn finals_hold(&self) -> bool {
        self.h
            .finals
            .iter()
            .all(|&(x, v)| self.h.ops[self.latest[x]].value == v)
    }
}
