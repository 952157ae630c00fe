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

struct Search<'a, 'h> {
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
    limits: Limits,
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

impl Search<'_, '_> {
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
