//! Saturation of a partial store order for the models with a store order
//! (SC, TSO, PSO): the wSC rules of wsc-saturation §3 generalised to several
//! acyclicity graphs sharing one store order, plus RMW atomicity and `@final`.

use crate::budget::Cancel;
use crate::certificate::{Rel, Violation};
use crate::history::{History, OpId};
use crate::models::Spec;
use crate::relation::{cycle_through, plus_of, BitMatrix, Reach};

/// A store-order pair is to be added (`rel` says why: st, rmw, final, a guess),
/// or a read-write pair (`Rel::Rw`).
type Work = (OpId, OpId, Rel);

/// The graphs `hb_i = (fixed_i ∪ ww ∪ rw[ww])⁺`, kept closed, for the store
/// order `ww` derived so far. Every derived pair holds in every witness.
#[derive(Clone)]
pub struct Saturation<'h> {
    h: &'h History,
    hb: Vec<Reach>,
    /// for an RMW's write half: the write its read half reads from
    rmw_source: Vec<Option<OpId>>,
    /// for a write: the RMW write halves whose read reads from it
    rmw_by_source: Vec<Vec<OpId>>,
    work: Vec<Work>,
    /// Inserted derived edges by label (those of [`LOGGED`], each matrix
    /// made at its label's first edge), for certificates; `None` in search
    /// copies.
    log: Option<[Option<BitMatrix>; LOGGED.len()]>,
    /// Asked every 1024 worklist steps: once spent, saturation stops.
    cancel: Cancel,
}

/// A conflict: adding `a -rel-> b` to graph `graph` closes a cycle.
#[derive(Debug, Clone, Copy)]
pub struct Conflict {
    pub graph: usize,
    pub a: OpId,
    pub b: OpId,
    pub rel: Rel,
}

/// Why a pair could not be added: a conflict, or the saturation's token
/// was spent first (the saturation is then of no further use).
#[derive(Debug, Clone, Copy)]
pub enum Blocked {
    Conflict(Conflict),
    Stopped,
}

const LOGGED: [Rel; 4] = [Rel::St, Rel::Rmw, Rel::Final, Rel::Rw];

impl<'h> Saturation<'h> {
    /// Closes each graph's fixed relations and saturates; a cycle is a
    /// violation with its certificate.
    pub fn new(h: &'h History, spec: &Spec) -> Result<Saturation<'h>, Violation> {
        Ok(Saturation::until(h, spec, &Cancel::NEVER)?.expect("never cancelled"))
    }

    /// [`Saturation::new`] under `cancel`, which it and its forks ask as
    /// they saturate: `Ok(None)` when it is spent first.
    pub fn until(
        h: &'h History,
        spec: &Spec,
        cancel: &Cancel,
    ) -> Result<Option<Saturation<'h>>, Violation> {
        crate::models::common::no_thin_air(h)?;
        let n = h.n();
        let mut hb = Vec::with_capacity(spec.graphs.len());
        for g in &spec.graphs {
            let rels: Vec<(Rel, &BitMatrix)> = g.fixed.iter().map(|(r, m)| (*r, m)).collect();
            match plus_of(&rels) {
                Ok(c) => hb.push(Reach::from_closed(c)),
                Err(cycle) => return Err(Violation::from_cycle(g.pattern, cycle)),
            }
        }
        let mut rmw_source = vec![None; n];
        let mut rmw_by_source = vec![Vec::new(); n];
        for (o, source) in rmw_source.iter_mut().enumerate() {
            if let (true, Some(r)) = (h.is_write(o), h.ops[o].rmw) {
                if let Some(w0) = h.rf(r) {
                    *source = Some(w0);
                    rmw_by_source[w0].push(o);
                }
            }
        }
        let mut s = Saturation {
            h,
            hb,
            rmw_source,
            rmw_by_source,
            work: Vec::new(),
            log: Some([None, None, None, None]),
            cancel: cancel.clone(),
        };
        for hb in &s.hb {
            for w in (0..n).filter(|&w| h.is_write(w)) {
                rules(h, hb.succ(), w, hb.succ().row(w), &mut s.work);
            }
        }
        s.work
            .extend(super::final_pairs(h).map(|(w, last)| (w, last, Rel::Final)));
        match s.run() {
            Ok(()) => Ok(Some(s)),
            Err(Blocked::Stopped) => Ok(None),
            Err(Blocked::Conflict(c)) => Err(s.explain(spec, c)),
        }
    }

    /// A copy for search: no certificate log.
    pub fn fork(&self) -> Saturation<'h> {
        Saturation {
            h: self.h,
            hb: self.hb.clone(),
            rmw_source: self.rmw_source.clone(),
            rmw_by_source: self.rmw_by_source.clone(),
            work: Vec::new(),
            log: None,
            cancel: self.cancel.clone(),
        }
    }

    /// Bytes one [`fork`](Self::fork) holds: two `n×n` bit matrices per graph.
    pub fn fork_bytes(&self) -> u64 {
        let n = self.h.n() as u64;
        self.hb.len() as u64 * 2 * n * n.div_ceil(64) * 8 + 48 * n
    }

    /// The history.
    pub fn history(&self) -> &'h History {
        self.h
    }

    /// The closed graphs.
    pub fn graphs(&self) -> impl Iterator<Item = &BitMatrix> {
        self.hb.iter().map(|r| r.succ())
    }

    /// Whether `a` is known to precede `b` in the store order.
    #[inline]
    pub fn ordered(&self, a: OpId, b: OpId) -> bool {
        self.hb[0].reaches(a, b)
    }

    /// Same-variable write pairs `(a, b)`, `a < b`, that no witness is known
    /// to order yet.
    pub fn unordered_pairs(&self) -> Vec<(OpId, OpId)> {
        let h = self.h;
        let mut out = Vec::new();
        for x in 0..h.vars.len() {
            let ws = h.writes_of(x);
            for (i, &a) in ws.iter().enumerate() {
                for &b in &ws[i + 1..] {
                    if !self.ordered(a, b) && !self.ordered(b, a) {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    /// Adds the store-order pair `a ww b` (and its consequences) and saturates.
    pub fn decide(&mut self, a: OpId, b: OpId) -> Result<(), Blocked> {
        self.work.push((a, b, Rel::St));
        self.run()
    }

    /// Runs the worklist to the fixpoint.
    fn run(&mut self) -> Result<(), Blocked> {
        let h = self.h;
        let mut steps = 0u32;
        while let Some((a, b, rel)) = self.work.pop() {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(1024) && self.cancel.spent() {
                self.work.clear();
                return Err(Blocked::Stopped);
            }
            if rel != Rel::Rw {
                // a store-order pair: RMW atomicity, then rw edges, then the graphs
                for &w in &self.rmw_by_source[a] {
                    if w != b && !self.hb[0].reaches(w, b) {
                        self.work.push((w, b, Rel::Rmw));
                    }
                }
                if let Some(w0) = self.rmw_source[b] {
                    if a != w0 && !self.hb[0].reaches(a, w0) {
                        self.work.push((a, w0, Rel::Rmw));
                    }
                }
                for &r in h.readers(a) {
                    if self.hb.iter().any(|g| !g.reaches(r, b)) {
                        self.work.push((r, b, Rel::Rw));
                    }
                }
            }
            for i in 0..self.hb.len() {
                if self.hb[i].reaches(a, b) {
                    continue;
                }
                if let Some(log) = &mut self.log {
                    if let Some(i) = LOGGED.iter().position(|&r| r == rel) {
                        log[i]
                            .get_or_insert_with(|| BitMatrix::new(h.n()))
                            .set(a, b);
                    }
                }
                let work = &mut self.work;
                if self.hb[i]
                    .insert(a, b, |g, x, fresh| rules(h, g, x, fresh, work))
                    .is_err()
                {
                    self.work.clear();
                    return Err(Blocked::Conflict(Conflict {
                        graph: i,
                        a,
                        b,
                        rel,
                    }));
                }
            }
        }
        Ok(())
    }

    /// The certificate of a conflict found during the initial saturation.
    fn explain(&self, spec: &Spec, c: Conflict) -> Violation {
        let g = &spec.graphs[c.graph];
        let mut rels: Vec<(Rel, &BitMatrix)> = g.fixed.iter().map(|(r, m)| (*r, m)).collect();
        if let Some(log) = &self.log {
            // a label without edges adds nothing to the search
            rels.extend(
                LOGGED
                    .iter()
                    .zip(log)
                    .filter_map(|(&r, m)| m.as_ref().map(|m| (r, m))),
            );
        }
        Violation::from_cycle(g.pattern, cycle_through(&rels, c.a, c.b, c.rel))
            .starting_at_first_op(self.h)
    }

    /// The total store order of a fully ordered saturation: per variable,
    /// its writes in order (initial write first).
    pub fn store_order(&self) -> Vec<Vec<OpId>> {
        let h = self.h;
        (0..h.vars.len())
            .map(|x| {
                let mut ws = h.writes_of(x).to_vec();
                ws.sort_by_key(|&w| {
                    h.writes_of(x)
                        .iter()
                        .filter(|&&v| self.ordered(v, w))
                        .count()
                });
                ws
            })
            .collect()
    }
}

/// The saturation rules on the new pairs `(x, y)`, `y ∈ fresh`, of one graph:
/// `x hb y` with `y` a read of `x`'s variable reading from `w′ ≠ x` ⇒ `x ww w′`
/// (`y rw x` when `w′` is the initial write, which is first);
/// `x hb y` with `y` another write of `x`'s variable ⇒ `x ww y`.
fn rules(h: &History, hb: &BitMatrix, x: OpId, fresh: &[u64], work: &mut Vec<Work>) {
    if !h.is_write(x) {
        return;
    }
    let v = h.var(x).expect("writes have a variable");
    for (i, ((&f, &r), &w)) in fresh
        .iter()
        .zip(h.reads_mask(v))
        .zip(h.writes_mask(v))
        .enumerate()
    {
        let mut bits = f & (r | w);
        while bits != 0 {
            let y = i * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if h.is_read(y) {
                match h.rf(y) {
                    // `x ww init` is the contradiction `y rw x` (the initial
                    // write is first): a cycle of this graph, `x hb y rw x`
                    Some(w2) if w2 != x && h.is_init(w2) => work.push((y, x, Rel::Rw)),
                    Some(w2) if w2 != x && !hb.get(x, w2) => work.push((x, w2, Rel::St)),
                    _ => {}
                }
            } else {
                work.push((x, y, Rel::St));
            }
        }
    }
}
