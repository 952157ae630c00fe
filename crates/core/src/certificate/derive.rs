//! The validator's own re-derivation of the derived relations a certificate
//! names (`cf`, `hb_o`, `pww`, `wpww`, `st`, a store order's forced pairs,
//! `rw[R]`), written straight from the papers' definitions with naive
//! fixpoints on bit rows. It shares no code with the engines: it reads the
//! [`History`] through its accessors only (no `models`, `relation`,
//! `scale`, `complete` or `check`).
//!
//! Two halves:
//! - *proof search* ([`justify`]): run the definition's fixpoint, recording
//!   for every derived pair the rule that first forced it and the operation
//!   it pivots on, in derivation order; then, for each derived edge of a
//!   violation's cycle, a [`Justification`]: the rule, its operations, and a
//!   premise path found among the edges derived *earlier* (well-founded),
//!   each derived premise justified in turn. An edge no rule forces gets
//!   none, and the certificate is rejected.
//! - *proof checking* ([`check`]): each justification's rule is re-applied
//!   to its premises on the history alone (kinds, variables, `wr`, `po`,
//!   the observer's causal past), each premise path is followed edge by
//!   edge, and each derived premise must itself have a valid justification
//!   of a smaller derivation number.
//!
//! Definitions (gradual-consistency-checking, causal-consistency-datalog,
//! wsc-saturation, consistency-framework-2k):
//! - `co = (po ∪ wr)⁺`; `rw[R] = wr⁻¹ ; R_WW`; `cf[R] = R_WR ; wr⁻¹` (distinct writes).
//! - CM: `hb_o` is the least transitive relation containing `co` on
//!   `CausalPast(o) ∪ {o}` with rule 2: `w hb_o r`, `w′ wr r`, `w ≠ w′`
//!   (same variable), `r po* o` ⇒ `w hb_o w′`.
//! - CCM: `hb = (⋃_o hb_o)⁺`, `pww = (hb_WW ∪ cf[hb])⁺`.
//! - wCCM: `hb^π_o` as `hb_o` on `co_π = (π ∪ wre)⁺` with rule 2 along `π`,
//!   for `π ∈ {ppo, po-loc}`; `whb = (hb^ppo ∪ hb^po-loc)⁺`;
//!   `wpww = (whb_WW ∪ cfe[hb^po-loc] ∪ cfe[hb^ppo])⁺`, `cfe[R] = R_WR ; wre⁻¹`.
//! - wSC: the least `st`, `hb` with `st = ((hb_WR ; wr⁻¹) ∪ hb_WW)⁺` and
//!   `hb = (po ∪ wr ∪ st ∪ rw[st])⁺`.
//! - SC/TSO/PSO: the store-order pairs every witness has: the wSC rules in
//!   each acyclicity graph `fixed ∪ ww ∪ rw[ww]` (SC: `po ∪ wr`; TSO/PSO:
//!   `po-loc ∪ wr` and `ppo ∪ wre` / `po-pso ∪ wre`), one `ww` shared, plus
//!   RMW atomicity and `@final` observations.

use std::collections::VecDeque;

use crate::history::fx::{FxMap, FxSet};

use serde::Serialize;

use super::witness::{self, StoreModel};
use super::{Pattern, Rel, Step, Violation};
use crate::history::{History, OpId, OpKind};

/// A square bit matrix over operations.
#[derive(Clone)]
pub(crate) struct Bits {
    n: usize,
    w: usize,
    bits: Vec<u64>,
}

impl Bits {
    pub(crate) fn new(n: usize) -> Bits {
        let w = n.div_ceil(64).max(1);
        Bits {
            n,
            w,
            bits: vec![0; n * w],
        }
    }
    #[inline]
    pub(crate) fn get(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.w + b / 64] >> (b % 64) & 1 == 1
    }
    #[inline]
    fn set(&mut self, a: usize, b: usize) {
        self.bits[a * self.w + b / 64] |= 1 << (b % 64);
    }
    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.w..(a + 1) * self.w]
    }
    pub(crate) fn ones(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        self.row(a).iter().enumerate().flat_map(|(i, &word)| {
            let mut x = word;
            std::iter::from_fn(move || {
                (x != 0).then(|| {
                    let b = i * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    b
                })
            })
        })
    }
    /// Sets the bits `lo..hi` of row `a`.
    fn set_range(&mut self, a: usize, lo: usize, hi: usize) {
        let row = &mut self.bits[a * self.w..(a + 1) * self.w];
        let mut b = lo;
        while b < hi {
            let (i, from) = (b / 64, b % 64);
            let to = (hi - i * 64).min(64);
            let ones = if to - from == 64 {
                u64::MAX
            } else {
                ((1u64 << (to - from)) - 1) << from
            };
            row[i] |= ones;
            b = i * 64 + to;
        }
    }
    /// Transitive closure in place (Warshall, a row at a time).
    fn close(&mut self) {
        let w = self.w;
        if w == 1 {
            // one word a row: the same, without the row copies
            for k in 0..self.n {
                let (rk, bit) = (self.bits[k], 1u64 << k);
                if rk == 0 {
                    continue;
                }
                for row in self.bits.iter_mut() {
                    if *row & bit != 0 {
                        *row |= rk;
                    }
                }
            }
            return;
        }
        let mut rk = vec![0u64; w];
        for k in 0..self.n {
            rk.copy_from_slice(self.row(k));
            if rk.iter().all(|&x| x == 0) {
                continue;
            }
            for i in 0..self.n {
                if self.get(i, k) {
                    for (d, s) in self.bits[i * w..(i + 1) * w].iter_mut().zip(&rk) {
                        *d |= s;
                    }
                }
            }
        }
    }
}

fn is_write(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Write
}
fn is_read(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Read
}
fn same_var(h: &History, a: OpId, b: OpId) -> bool {
    h.ops[a].var.is_some() && h.ops[a].var == h.ops[b].var
}
/// `wre`: `wr` between operations not related by `po`.
fn wre(h: &History, w: OpId, r: OpId) -> bool {
    h.rf(r) == Some(w) && !h.po_before(w, r) && !h.po_before(r, w)
}

/// A program order a model keeps: which (`a`, `b`) pairs it relaxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Pi {
    /// `po` itself
    Po,
    /// `po-loc = po ∩ loc`
    PoLoc,
    /// wCCM's `ppo = (po \ (W × R))⁺`
    PpoW,
    /// TSO's `ppo = (po \ (plain W × plain R))⁺`
    PpoTso,
    /// PSO's `po-pso`
    PoPso,
    /// RMO's `po-loc_llh = po-loc \ (R × R)`
    PoLocLlh,
    /// RMO's `po-rmo`: the pairs fences order
    PoRmo,
    /// ARMv8's `bob ∪ aob` (printed `bob` and `aob`)
    Ob,
}

impl Pi {
    /// How many there are (`Pi as usize` indexes an array of them).
    const COUNT: usize = 8;

    fn rel(self) -> Rel {
        match self {
            Pi::Po => Rel::Po,
            Pi::PoLoc => Rel::PoLoc,
            Pi::PpoW | Pi::PpoTso => Rel::Ppo,
            Pi::PoPso => Rel::PoPso,
            Pi::PoLocLlh => Rel::PoLoc,
            Pi::PoRmo => Rel::PoRmo,
            Pi::Ob => Rel::Bob,
        }
    }

    /// Whether the model drops the `po` pair `(a, b)` itself.
    fn relaxed(self, h: &History, a: OpId, b: OpId) -> bool {
        let plain_w = |o: OpId| is_write(h, o) && h.ops[o].rmw.is_none();
        let plain_r = |o: OpId| is_read(h, o) && h.ops[o].rmw.is_none();
        // a partial fence orders nothing these models relax (but PSO's
        // `W→W`, which PSO leaves to full fences): it is absent
        let partial = |o: OpId| h.ops[o].kind == OpKind::Fence && h.ops[o].ann.partial_fence();
        match self {
            Pi::PoLocLlh => return !witness::po_loc_llh(h, a, b),
            Pi::PoRmo => return !witness::rmo_po(h, a, b),
            Pi::Ob => return !(witness::armv8_bob(h, a, b) || witness::armv8_aob(h, a, b)),
            _ => {}
        }
        if !matches!(self, Pi::Po | Pi::PoLoc) && (partial(a) || partial(b)) {
            return true;
        }
        match self {
            Pi::Po => false,
            Pi::PoLoc => !same_var(h, a, b),
            Pi::PpoW => is_write(h, a) && is_read(h, b),
            Pi::PpoTso => plain_w(a) && plain_r(b),
            Pi::PoPso => {
                let store = is_write(h, b) || h.ops[b].rmw.is_some();
                plain_w(a) && (plain_r(b) || (store && h.ops[b].var != h.ops[a].var))
            }
            Pi::PoLocLlh | Pi::PoRmo | Pi::Ob => unreachable!("answered above"),
        }
    }

    /// The relation `(po \ relaxed)⁺` as a matrix: kept pairs, and pairs
    /// kept through one operation between them (one suffices for these
    /// models: from a write, the first operation that is not a relaxed
    /// write keeps everything after it; `po` and `po-loc` are transitive).
    /// A row is `a`'s `po` successors less the operations [`Pi::relaxed`]
    /// drops after `a`, taken as bit masks of kinds and variables.
    pub(crate) fn matrix(self, h: &History) -> Bits {
        let n = h.n();
        let mut kept = Bits::new(n);
        if matches!(self, Pi::PoLocLlh | Pi::PoRmo | Pi::Ob) {
            // pairwise, by the validator's definitions (small histories only)
            for a in 0..n {
                for b in (h.vars.len()..n).filter(|&b| h.po_before(a, b)) {
                    if !self.relaxed(h, a, b) {
                        kept.set(a, b);
                    }
                }
            }
            return kept;
        }
        let w = kept.w;
        // the masks this relation's rows drop (only those it needs)
        let mask = |needed: bool, f: &dyn Fn(OpId) -> bool| {
            let mut m = vec![0u64; if needed { w } else { 0 }];
            for o in (0..n).filter(|&o| needed && f(o)) {
                m[o / 64] |= 1 << (o % 64);
            }
            m
        };
        let pso = self == Pi::PoPso;
        let plain_r = mask(matches!(self, Pi::PpoTso | Pi::PoPso), &|o| {
            is_read(h, o) && h.ops[o].rmw.is_none()
        });
        let reads = mask(self == Pi::PpoW, &|o| is_read(h, o));
        let stores = mask(pso, &|o| is_write(h, o) || h.ops[o].rmw.is_some());
        // the operations of each variable (`None`'s last), for po-loc and PSO
        let by_var = matches!(self, Pi::PoLoc | Pi::PoPso);
        let slot = |o: OpId| h.ops[o].var.unwrap_or(h.vars.len());
        let mut of_var = vec![0u64; if by_var { (h.vars.len() + 1) * w } else { 0 }];
        if by_var {
            for o in 0..n {
                of_var[slot(o) * w + o / 64] |= 1 << (o % 64);
            }
        }
        for a in 0..n {
            // `po` relates an initial write to every thread operation,
            // else only later operations of one thread
            match h.ops[a].thread {
                None => kept.set_range(a, h.vars.len(), n),
                Some(t) if !h.threads[t].timed => kept.set_range(a, a + 1, h.threads[t].ops.end),
                Some(t) => {
                    for b in h.threads[t].ops.clone().filter(|&b| h.po_before(a, b)) {
                        kept.set(a, b);
                    }
                }
            }
            let plain_w = is_write(h, a) && h.ops[a].rmw.is_none();
            // `b` with `b.var == a.var`, and `same_var(a, b)` (a variable)
            let eq_var = |x: usize| of_var[slot(a) * w + x];
            let same_var = |x: usize| if h.ops[a].var.is_some() { eq_var(x) } else { 0 };
            for (x, word) in kept.bits[a * w..(a + 1) * w].iter_mut().enumerate() {
                *word &= match self {
                    Pi::Po => u64::MAX,
                    Pi::PoLoc => same_var(x),
                    Pi::PpoW if is_write(h, a) => !reads[x],
                    Pi::PpoTso if plain_w => !plain_r[x],
                    Pi::PoPso if plain_w => !(plain_r[x] | (stores[x] & !eq_var(x))),
                    _ => u64::MAX,
                };
            }
        }
        if matches!(self, Pi::Po | Pi::PoLoc) {
            return kept;
        }
        // no pair with a partial fence (see `relaxed`)
        for o in (0..n).filter(|&o| h.ops[o].kind == OpKind::Fence && h.ops[o].ann.partial_fence())
        {
            for a in 0..n {
                kept.bits[a * w + o / 64] &= !(1 << (o % 64));
            }
            kept.bits[o * w..(o + 1) * w].fill(0);
        }
        let mut m = kept.clone();
        let w = m.w;
        for a in 0..n {
            for c in kept.ones(a) {
                for (d, s) in m.bits[a * w..(a + 1) * w].iter_mut().zip(kept.row(c)) {
                    *d |= s;
                }
            }
        }
        m
    }
}

/// wCCM's `ppo` pair `(a, b)`: `(po \ (W × R))⁺`, pairwise (a fence between).
pub(crate) fn wccm_ppo(h: &History, a: OpId, b: OpId) -> bool {
    if !h.po_before(a, b) {
        return false;
    }
    if !Pi::PpoW.relaxed(h, a, b) {
        return true;
    }
    let Some(t) = h.ops[b].thread else {
        return false;
    };
    h.threads[t].ops.clone().any(|c| {
        h.po_before(a, c)
            && h.po_before(c, b)
            && !Pi::PpoW.relaxed(h, a, c)
            && !Pi::PpoW.relaxed(h, c, b)
    })
}

/// The rule that forces a derived edge (named after the papers' terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// `r -rw-> w2`: `w1 wr r`, `w1 co w2` (`rw[co]`, CC).
    RwCo,
    /// `w -cf-> w′`: `w co r`, `w′ wr r` (`cf[co]`, CCv).
    CfCo,
    /// `w -hb_o-> w′`: `w hb_o r`, `w′ wr r`, `r po* o` (CM's rule 2).
    HbRule2,
    /// rule 2 of `hb^ppo_o` (wCCM).
    HbPpoRule2,
    /// rule 2 of `hb^po-loc_o` (wCCM).
    HbPoLocRule2,
    /// `w -pww-> w′`: `w hb w′` (`hb_WW`, CCM).
    PwwHbWw,
    /// `w -pww-> w′`: `w hb r`, `w′ wr r` (`cf[hb]`, CCM).
    PwwCfHb,
    /// `r -rw-> w2`: `w1 wr r`, `w1 pww⁺ w2` (`rw[pww]`).
    RwPww,
    /// `w -wpww-> w′`: `w whb w′` (`whb_WW`, wCCM).
    WpwwWhbWw,
    /// `w -wpww-> w′`: `w hb^ppo r`, `w′ wre r` (`cfe[hb^ppo]`).
    WpwwCfePpo,
    /// `w -wpww-> w′`: `w hb^po-loc r`, `w′ wre r` (`cfe[hb^po-loc]`).
    WpwwCfePoLoc,
    /// `r -rw-> w2`: `w1 wr r`, `w1 wpww⁺ w2` (`rw[wpww]`).
    RwWpww,
    /// `w -st-> w′`: `w hb r`, `w′ wr r` (wSC's `hb_WR ; wr⁻¹`).
    StHbWr,
    /// `r -rw-> w2`: `w1 wr r`, `w1 hb w2` (wSC's `rw[st]`).
    RwSt,
    /// `w -ww-> w′`: `w hb_g r`, `w′ wr r` in acyclicity graph `g` (every witness).
    WwHbWr,
    /// `w -ww-> w′`: `w hb_g w′` in acyclicity graph `g`.
    WwHbWw,
    /// `u -ww-> b`: `a ww b`, `u` an RMW's write whose read reads `a` (atomicity).
    WwRmwAfter,
    /// `a -ww-> w0`: `a ww u`, `u` an RMW's write whose read reads `w0` (atomicity).
    WwRmwBefore,
    /// `w -ww-> l`: `@final` observes `l`'s value.
    WwFinal,
    /// `r -rw-> w2`: `w1 wr r`, `w1 ww w2` (`rw[ww]`).
    RwWw,
}

impl Rule {
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Rule::RwCo => "rw[co]",
            Rule::CfCo => "cf[co]",
            Rule::HbRule2 => "hb_o rule 2",
            Rule::HbPpoRule2 => "hb^ppo_o rule 2",
            Rule::HbPoLocRule2 => "hb^po-loc_o rule 2",
            Rule::PwwHbWw => "hb_WW",
            Rule::PwwCfHb => "cf[hb]",
            Rule::RwPww => "rw[pww]",
            Rule::WpwwWhbWw => "whb_WW",
            Rule::WpwwCfePpo => "cfe[hb^ppo]",
            Rule::WpwwCfePoLoc => "cfe[hb^po-loc]",
            Rule::RwWpww => "rw[wpww]",
            Rule::StHbWr => "hb_WR;wr⁻¹",
            Rule::RwSt => "rw[st]",
            Rule::WwHbWr => "hb_WR;wr⁻¹",
            Rule::WwHbWw => "hb_WW",
            Rule::WwRmwAfter => "rmw atomicity",
            Rule::WwRmwBefore => "rmw atomicity",
            Rule::WwFinal => "@final",
            Rule::RwWw => "rw[ww]",
        }
    }

    /// The label of the edges it derives.
    fn rel(self) -> Rel {
        match self {
            Rule::RwCo | Rule::RwPww | Rule::RwWpww | Rule::RwSt | Rule::RwWw => Rel::Rw,
            Rule::CfCo => Rel::Cf,
            Rule::HbRule2 | Rule::HbPpoRule2 | Rule::HbPoLocRule2 => Rel::HbO,
            Rule::PwwHbWw | Rule::PwwCfHb => Rel::Pww,
            Rule::WpwwWhbWw | Rule::WpwwCfePpo | Rule::WpwwCfePoLoc => Rel::Wpww,
            Rule::StHbWr | Rule::WwHbWr | Rule::WwHbWw => Rel::St,
            Rule::WwRmwAfter | Rule::WwRmwBefore => Rel::Rmw,
            Rule::WwFinal => Rel::Final,
        }
    }
}

/// Why a derived edge holds: the rule, the operations it names and the
/// premises it was applied to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Justification {
    pub from: OpId,
    pub rel: Rel,
    pub to: OpId,
    pub rule: Rule,
    /// Derivation order: every derived premise has a smaller number.
    pub seq: u32,
    /// The operation the rule pivots on: the read `r` (`cf`, rule 2, `st`,
    /// `ww` from `hb_WR`), the write `w1` the read of an `rw` edge reads
    /// from, the write `a` of an RMW rule, the RMW write `u` of the other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pivot: Option<OpId>,
    /// The observer `o` of a local happens-before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer: Option<OpId>,
    /// The acyclicity graph of a store-order rule (0: `po ∪ wr` or
    /// `po-loc ∪ wr`; 1: the model's preserved program order with `wre`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<usize>,
    /// The premise path (its edges in the rule's relation): from `from`
    /// to the pivot read, from `from` to `to`, or from the pivot write to `to`.
    pub path: Vec<Step>,
}

impl Justification {
    /// One line: `pww t0:W(x,1) → t1:W(x,2) by cf[hb] via t1:R(x,1)`.
    pub fn explain(&self, h: &History) -> String {
        let mut s = String::with_capacity(64);
        s.push_str(self.rel.name());
        s.push(' ');
        h.describe_into(&mut s, self.from);
        s.push_str(" → ");
        h.describe_into(&mut s, self.to);
        s.push_str(" by ");
        s.push_str(self.rule.name());
        if let Some(p) = self.pivot {
            s.push_str(" via ");
            h.describe_into(&mut s, p);
        }
        if let Some(o) = self.observer {
            s.push_str(" for observer ");
            h.describe_into(&mut s, o);
        }
        s
    }
}

/// Which definitions a pattern's cycle lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `co` and what is one step from it (CC, CCv)
    Co,
    Cm,
    Ccm,
    Wccm(Pi),
    Wsc,
    /// a store-order model and the acyclicity graph of the pattern
    Store(StoreModel, usize),
}

impl Family {
    /// The family of a cycle pattern; `store` tells TSO from PSO for the
    /// uniprocessor graph (PSO, the weaker, when not given: a PSO cycle
    /// there is one of TSO's too).
    pub(crate) fn of(p: Pattern, store: Option<StoreModel>) -> Option<Family> {
        Some(match p {
            Pattern::CyclicCO
            | Pattern::WriteCOInitRead
            | Pattern::WriteCORead
            | Pattern::CyclicCF => Family::Co,
            Pattern::CyclicHB | Pattern::WriteHBInitRead => Family::Cm,
            Pattern::CyclicPww => Family::Ccm,
            Pattern::CyclicWpwwPpo => Family::Wccm(Pi::PpoW),
            Pattern::CyclicWpwwPoLoc => Family::Wccm(Pi::PoLoc),
            Pattern::CyclicSt => Family::Wsc,
            Pattern::CyclicSc => Family::Store(StoreModel::Sc, 0),
            Pattern::CyclicUniproc => match store {
                Some(m @ (StoreModel::Tso | StoreModel::Rmo | StoreModel::Armv8)) => {
                    Family::Store(m, 0)
                }
                _ => Family::Store(StoreModel::Pso, 0),
            },
            Pattern::CyclicTso => Family::Store(StoreModel::Tso, 1),
            Pattern::CyclicPso => Family::Store(StoreModel::Pso, 1),
            Pattern::CyclicRmo => Family::Store(StoreModel::Rmo, 1),
            Pattern::CyclicOb => Family::Store(StoreModel::Armv8, 1),
            Pattern::ThinAirRead | Pattern::ThinAirFinal | Pattern::NoStoreOrder => return None,
        })
    }

    /// The base relations a cycle of the family may use, and whether `wr`
    /// is external only.
    pub(crate) fn base(self) -> (Pi, bool) {
        match self {
            Family::Co | Family::Cm | Family::Ccm | Family::Wsc => (Pi::Po, false),
            Family::Wccm(pi) => (pi, true),
            Family::Store(StoreModel::Sc, _) => (Pi::Po, false),
            Family::Store(StoreModel::Rmo, 0) => (Pi::PoLocLlh, false),
            Family::Store(_, 0) => (Pi::PoLoc, false),
            Family::Store(StoreModel::Rmo, _) => (Pi::PoRmo, true),
            Family::Store(StoreModel::Armv8, _) => (Pi::Ob, true),
            Family::Store(StoreModel::Tso, _) => (Pi::PpoTso, true),
            Family::Store(_, _) => (Pi::PoPso, true),
        }
    }

    /// The rules that may justify a cycle edge labelled `rel`.
    pub(crate) fn rules(self, rel: Rel) -> &'static [Rule] {
        match (self, rel) {
            (Family::Co, Rel::Rw) => &[Rule::RwCo],
            (Family::Co, Rel::Cf) => &[Rule::CfCo],
            (Family::Cm, Rel::HbO) => &[Rule::HbRule2],
            (Family::Ccm, Rel::Pww) => &[Rule::PwwHbWw, Rule::PwwCfHb],
            (Family::Ccm, Rel::Rw) => &[Rule::RwPww],
            (Family::Wccm(_), Rel::Wpww) => {
                &[Rule::WpwwWhbWw, Rule::WpwwCfePpo, Rule::WpwwCfePoLoc]
            }
            (Family::Wccm(_), Rel::Rw) => &[Rule::RwWpww],
            (Family::Wsc, Rel::St) => &[Rule::StHbWr],
            (Family::Wsc, Rel::Rw) => &[Rule::RwSt],
            (Family::Store(..), Rel::St | Rel::Rmw | Rel::Final) => &WW_RULES,
            (Family::Store(..), Rel::Rw) => &[Rule::RwWw],
            _ => &[],
        }
    }
}

const WW_RULES: [Rule; 5] = [
    Rule::WwHbWr,
    Rule::WwHbWw,
    Rule::WwRmwAfter,
    Rule::WwRmwBefore,
    Rule::WwFinal,
];

/// The first derivation of a pair.
#[derive(Debug, Clone, Copy)]
struct Why {
    seq: u32,
    rule: Rule,
    pivot: Option<OpId>,
    observer: Option<OpId>,
    graph: Option<usize>,
    /// the closure its premise path lies in
    ctx: Option<usize>,
}

/// A relation kept transitively closed, generated by base relations
/// (restricted to `within`, when given) and inserted edges.
struct Closure {
    base: Vec<(Rel, usize)>, // a label and an index into `Deriver::mats`
    wr: Option<(Rel, bool)>, // `wr` (or `wre` when true), with its label
    within: Option<Vec<bool>>,
    reach: Bits,
    /// inserted edges: to, label, justification key, derivation number
    out: Vec<Vec<(OpId, Rel, Key, u32)>>,
}

/// A derived pair: its endpoints, its rule class, and (for a local
/// happens-before) the observer's context.
type Key = (OpId, OpId, Class);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    Rel(Rel),
    /// a rule-2 edge of `hb^π_o`
    HbO(Pi, OpId),
}

struct Deriver<'h> {
    h: &'h History,
    mats: Vec<Bits>,
    /// the index in `mats` of each [`Pi`]'s matrix, once built
    pis: [Option<usize>; Pi::COUNT],
    closures: Vec<Closure>,
    why: FxMap<Key, Why>,
    seq: u32,
    /// a row's copy, reused by [`Deriver::insert`]
    row: Vec<u64>,
}

impl<'h> Deriver<'h> {
    fn new(h: &'h History) -> Deriver<'h> {
        Deriver {
            h,
            mats: Vec::new(),
            pis: [None; Pi::COUNT],
            closures: Vec::new(),
            why: FxMap::default(),
            seq: 0,
            row: Vec::new(),
        }
    }

    fn pi(&mut self, pi: Pi) -> usize {
        if let Some(i) = self.pis[pi as usize] {
            return i;
        }
        self.mats.push(pi.matrix(self.h));
        self.pis[pi as usize] = Some(self.mats.len() - 1);
        self.mats.len() - 1
    }

    /// A new closure of `π ∪ wr` (or `wre`) restricted to `within`.
    fn closure(&mut self, pi: Pi, external: bool, within: Option<Vec<bool>>) -> usize {
        let h = self.h;
        let n = h.n();
        let m = self.pi(pi);
        let mut reach = Bits::new(n);
        let ok = |o: OpId| within.as_ref().is_none_or(|w| w[o]);
        for a in (0..n).filter(|&a| ok(a)) {
            for b in self.mats[m].ones(a) {
                if ok(b) {
                    reach.set(a, b);
                }
            }
            for &r in h.readers(a) {
                if ok(r) && (!external || wre(h, a, r)) {
                    reach.set(a, r);
                }
            }
        }
        reach.close();
        let wr_rel = if external { Rel::Wre } else { Rel::Wr };
        self.closures.push(Closure {
            base: vec![(pi.rel(), m)],
            wr: Some((wr_rel, external)),
            within,
            reach,
            out: vec![Vec::new(); n],
        });
        self.closures.len() - 1
    }

    /// An empty closure (its edges all inserted).
    fn empty(&mut self) -> usize {
        let n = self.h.n();
        self.closures.push(Closure {
            base: Vec::new(),
            wr: None,
            within: None,
            reach: Bits::new(n),
            out: vec![Vec::new(); n],
        });
        self.closures.len() - 1
    }

    /// Records the first derivation of `key`; its number.
    fn record(&mut self, key: Key, why: impl FnOnce(u32) -> Why) -> u32 {
        if let Some(w) = self.why.get(&key) {
            return w.seq;
        }
        self.seq += 1;
        let w = why(self.seq);
        self.why.insert(key, w);
        self.seq
    }

    /// Inserts `a -rel-> b` into closure `c`; `new` becomes the pairs it
    /// newly relates.
    fn insert(
        &mut self,
        c: usize,
        a: OpId,
        b: OpId,
        rel: Rel,
        key: Key,
        new: &mut Vec<(OpId, OpId)>,
    ) {
        new.clear();
        let seq = self.why.get(&key).map_or(0, |w| w.seq);
        let cl = &mut self.closures[c];
        cl.out[a].push((b, rel, key, seq));
        if cl.reach.get(a, b) {
            return;
        }
        let n = cl.reach.n;
        let target = &mut self.row;
        target.clear();
        target.extend_from_slice(cl.reach.row(b));
        target[b / 64] |= 1 << (b % 64);
        for x in 0..n {
            if x != a && !cl.reach.get(x, a) {
                continue;
            }
            let w = cl.reach.w;
            for (i, (d, &t)) in cl.reach.bits[x * w..(x + 1) * w]
                .iter_mut()
                .zip(target.iter())
                .enumerate()
            {
                let mut fresh = t & !*d;
                *d |= t;
                while fresh != 0 {
                    new.push((x, i * 64 + fresh.trailing_zeros() as usize));
                    fresh &= fresh - 1;
                }
            }
        }
    }

    /// `CausalPast_π(o) ∪ {o}` in closure `c` (closed, unrestricted).
    fn past(&self, c: usize, o: OpId) -> Vec<bool> {
        let r = &self.closures[c].reach;
        (0..self.h.n()).map(|a| a == o || r.get(a, o)).collect()
    }

    /// `hb^π_o`: `co_π` on `CausalPast(o) ∪ {o}`, closed under rule 2.
    fn local_hb(&mut self, pi: Pi, co: usize, o: OpId, rule: Rule) -> usize {
        let h = self.h;
        let within = self.past(co, o);
        let pm = self.pi(pi);
        let before_o: Vec<bool> = (0..h.n())
            .map(|r| r == o || self.mats[pm].get(r, o))
            .collect();
        // `co_π` on the causal past is closed already: a pair of it through
        // an operation outside the past would put that operation in it
        let c = self.restricted(co, within);
        let mut work: Vec<(OpId, OpId)> = Vec::new();
        let fire = |d: &mut Deriver, x: OpId, y: OpId, work: &mut Vec<(OpId, OpId)>| {
            if !is_write(h, x) || !is_read(h, y) || !before_o[y] || !same_var(h, x, y) {
                return;
            }
            match h.rf(y) {
                Some(w2) if w2 != x => {
                    let key = (x, w2, Class::HbO(pi, o));
                    if !d.why.contains_key(&key) {
                        d.record(key, |seq| Why {
                            seq,
                            rule,
                            pivot: Some(y),
                            observer: Some(o),
                            graph: None,
                            ctx: Some(c),
                        });
                        work.push((x, w2));
                    }
                }
                _ => {}
            }
        };
        // rule 2 on the pairs (write, read before o) of the closure
        for y in (0..h.n()).filter(|&y| before_o[y] && is_read(h, y)) {
            let Some(x) = h.ops[y].var else { continue };
            for &w in h.writes_of(x) {
                if self.closures[c].reach.get(w, y) {
                    fire(self, w, y, &mut work);
                }
            }
        }
        let mut new = Vec::new();
        while let Some((a, b)) = work.pop() {
            let key = (a, b, Class::HbO(pi, o));
            self.insert(c, a, b, Rel::HbO, key, &mut new);
            for &(x, y) in &new {
                fire(self, x, y, &mut work);
            }
        }
        // premise paths need only its edges, not its closure
        self.closures[c].reach = Bits::new(0);
        c
    }

    /// A copy of closure `co` (its base, closed) restricted to `within`.
    fn restricted(&mut self, co: usize, within: Vec<bool>) -> usize {
        let src = &self.closures[co];
        let mut reach = src.reach.clone();
        let w = reach.w;
        let mask: Vec<u64> = (0..w)
            .map(|i| {
                (0..64)
                    .filter(|&b| within.get(i * 64 + b).copied().unwrap_or(false))
                    .fold(0u64, |m, b| m | 1 << b)
            })
            .collect();
        for (x, &inside) in within.iter().enumerate() {
            let row = &mut reach.bits[x * w..(x + 1) * w];
            if inside {
                for (d, m) in row.iter_mut().zip(&mask) {
                    *d &= m;
                }
            } else {
                row.fill(0);
            }
        }
        let cl = Closure {
            base: src.base.clone(),
            wr: src.wr,
            within: Some(within),
            reach,
            out: vec![Vec::new(); self.h.n()],
        };
        self.closures.push(cl);
        self.closures.len() - 1
    }

    /// `hb^π = (⋃_o hb^π_o)⁺` over the observers given, as a closure of
    /// `π ∪ wr` (`co_π ⊆ hb^π`) with every rule-2 edge inserted.
    fn hb(
        &mut self,
        pi: Pi,
        external: bool,
        rule: Rule,
        observers: &[OpId],
    ) -> (usize, Vec<usize>) {
        let co = self.closure(pi, external, None);
        let locals: Vec<usize> = observers
            .iter()
            .map(|&o| self.local_hb(pi, co, o, rule))
            .collect();
        let hb = self.restricted(co, vec![true; self.h.n()]);
        self.closures[hb].within = None;
        self.add_rule2_edges(hb, pi, observers, &locals);
        (hb, locals)
    }

    fn add_rule2_edges(&mut self, hb: usize, pi: Pi, observers: &[OpId], locals: &[usize]) {
        let mut edges = Vec::new();
        for (&o, &c) in observers.iter().zip(locals) {
            for (a, out) in self.closures[c].out.iter().enumerate() {
                for &(b, rel, key, _) in out {
                    if rel == Rel::HbO && key.2 == Class::HbO(pi, o) {
                        edges.push((a, b, key));
                    }
                }
            }
        }
        let mut edges: Vec<(u32, OpId, OpId, Key)> = edges
            .into_iter()
            .map(|(a, b, key)| (self.why[&key].seq, a, b, key))
            .collect();
        edges.sort_unstable_by_key(|&(seq, a, b, _)| (seq, a, b));
        let mut new = Vec::new();
        for (_, a, b, key) in edges {
            self.insert(hb, a, b, Rel::HbO, key, &mut new);
        }
    }

    /// A premise path from `a` to `b` in closure `c`, over its base edges
    /// and its inserted edges derived before `before`.
    fn path(&self, c: usize, a: OpId, b: OpId, before: u32) -> Option<Vec<(Step, Key)>> {
        let h = self.h;
        let cl = &self.closures[c];
        let ok = |o: OpId| cl.within.as_ref().is_none_or(|w| w[o]);
        let steps = shortest_path(h.n(), a, b, |x, next| {
            for &(rel, m) in cl.base.iter().filter(|_| ok(x)) {
                next.extend(
                    self.mats[m]
                        .ones(x)
                        .filter(|&y| ok(y))
                        .map(|y| (y, (rel, None))),
                );
            }
            if let Some((rel, external)) = cl.wr.filter(|_| ok(x)) {
                for &r in h.readers(x) {
                    if ok(r) && (!external || wre(h, x, r)) {
                        next.push((r, (rel, None)));
                    }
                }
            }
            for &(y, rel, key, seq) in &cl.out[x] {
                if seq < before {
                    next.push((y, (rel, Some(key))));
                }
            }
        })?;
        Some(
            steps
                .into_iter()
                .map(|(x, y, (rel, key))| {
                    let step = Step {
                        from: x,
                        rel,
                        to: y,
                    };
                    (step, key.unwrap_or((x, y, Class::Rel(rel))))
                })
                .collect(),
        )
    }
}

/// A shortest path from `a` to `b` over the edges `succ` gives out of
/// each operation (breadth first, successors in the order given, the
/// first one found): its edges `(from, to, label)` in order.
fn shortest_path<E: Copy>(
    n: usize,
    a: OpId,
    b: OpId,
    mut succ: impl FnMut(OpId, &mut Vec<(OpId, E)>),
) -> Option<Vec<(OpId, OpId, E)>> {
    let mut prev: Vec<Option<(OpId, E)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::from([a]);
    seen[a] = true;
    let mut next = Vec::new();
    'bfs: while let Some(x) = queue.pop_front() {
        next.clear();
        succ(x, &mut next);
        for &(y, e) in &next {
            if seen[y] {
                continue;
            }
            seen[y] = true;
            prev[y] = Some((x, e));
            if y == b {
                break 'bfs;
            }
            queue.push_back(y);
        }
    }
    let mut out = Vec::new();
    let mut y = b;
    while y != a {
        let (x, e) = prev[y]?;
        out.push((x, y, e));
        y = x;
    }
    out.reverse();
    Some(out)
}

/// What a family derived, for the edges of one cycle.
struct Derived<'h> {
    d: Deriver<'h>,
    family: Family,
    /// the closures the final rules look in
    co: Option<usize>,
    hb: Option<usize>,
    hb_pi: Vec<(Pi, usize)>,
    store: Option<usize>, // pww, wpww (closures of their generators) or ww
    graphs: Vec<usize>,
    /// CM's observers
    observers: Vec<OpId>,
}

fn derive(h: &History, family: Family, observer: Option<OpId>) -> Derived<'_> {
    let mut d = Deriver::new(h);
    let mut out = Derived {
        d: Deriver::new(h),
        family,
        co: None,
        hb: None,
        hb_pi: Vec::new(),
        store: None,
        graphs: Vec::new(),
        observers: Vec::new(),
    };
    match family {
        Family::Co => out.co = Some(d.closure(Pi::Po, false, None)),
        Family::Cm => {
            let observers = match observer {
                Some(o) => vec![o],
                None => h.po_maximal(),
            };
            let (hb, _) = d.hb(Pi::Po, false, Rule::HbRule2, &observers);
            out.hb = Some(hb);
            out.observers = observers;
        }
        Family::Ccm => {
            let (hb, _) = d.hb(Pi::Po, false, Rule::HbRule2, &h.po_maximal());
            out.hb = Some(hb);
            let pww = d.empty();
            generators(
                &mut d,
                pww,
                &[
                    (hb, GenRule::Ww(Rule::PwwHbWw)),
                    (hb, GenRule::Cf(Rule::PwwCfHb, false)),
                ],
                Rel::Pww,
            );
            out.store = Some(pww);
        }
        Family::Wccm(_) => {
            let mut hbs = Vec::new();
            let mut all_locals = Vec::new();
            for (pi, rule) in [
                (Pi::PpoW, Rule::HbPpoRule2),
                (Pi::PoLoc, Rule::HbPoLocRule2),
            ] {
                let pm = d.pi(pi);
                // the π-maximal thread operations
                let observers: Vec<OpId> = (h.vars.len()..h.n())
                    .filter(|&o| d.mats[pm].row(o).iter().all(|&w| w == 0))
                    .collect();
                let (hb, locals) = d.hb(pi, true, rule, &observers);
                hbs.push((pi, hb));
                all_locals.push((pi, observers, locals));
            }
            // whb: ppo ∪ po-loc ∪ wre with every rule-2 edge
            let whb = d.closure(Pi::PpoW, true, None);
            let pl = d.pi(Pi::PoLoc);
            d.closures[whb].base.push((Rel::PoLoc, pl));
            {
                let n = h.n();
                let extra = d.mats[pl].clone();
                let cl = &mut d.closures[whb];
                for a in 0..n {
                    for b in extra.ones(a) {
                        cl.reach.set(a, b);
                    }
                }
                cl.reach.close();
            }
            for (pi, observers, locals) in &all_locals {
                d.add_rule2_edges(whb, *pi, observers, locals);
            }
            let wpww = d.empty();
            let (hb_ppo, hb_pl) = (hbs[0].1, hbs[1].1);
            generators(
                &mut d,
                wpww,
                &[
                    (whb, GenRule::Ww(Rule::WpwwWhbWw)),
                    (hb_pl, GenRule::Cf(Rule::WpwwCfePoLoc, true)),
                    (hb_ppo, GenRule::Cf(Rule::WpwwCfePpo, true)),
                ],
                Rel::Wpww,
            );
            out.hb = Some(whb);
            out.hb_pi = hbs;
            out.store = Some(wpww);
        }
        Family::Wsc => out.hb = Some(wsc(&mut d)),
        Family::Store(model, _) => {
            out.graphs = store(&mut d, model);
            out.store = out.graphs.first().copied();
        }
    }
    out.d = d;
    out
}

#[derive(Clone, Copy)]
enum GenRule {
    /// `R_WW`, distinct writes of a variable
    Ww(Rule),
    /// `R_WR ; wr⁻¹` (`wre⁻¹` when true)
    Cf(Rule, bool),
}

/// Every generator pair of `pww` / `wpww`, inserted into `into` in a fixed
/// order (after all of `hb`'s derivations).
fn generators(d: &mut Deriver, into: usize, gens: &[(usize, GenRule)], rel: Rel) {
    let h = d.h;
    let mut pairs = Vec::new();
    for &(c, g) in gens {
        for x in (0..h.n()).filter(|&x| is_write(h, x)) {
            for y in d.closures[c].reach.ones(x) {
                if !same_var(h, x, y) {
                    continue;
                }
                match g {
                    GenRule::Ww(rule) if is_write(h, y) && x != y => {
                        pairs.push((x, y, rule, None, c));
                    }
                    GenRule::Cf(rule, external) if is_read(h, y) => match h.rf(y) {
                        Some(w2) if w2 != x && (!external || wre(h, w2, y)) => {
                            pairs.push((x, w2, rule, Some(y), c));
                        }
                        _ => {}
                    },
                    _ => {}
                }
            }
        }
    }
    // nothing fires on what they relate: record and add them all, then
    // close once (the same edges and closure as inserting them one by one)
    for (a, b, rule, pivot, c) in pairs {
        let key = (a, b, Class::Rel(rel));
        if d.why.contains_key(&key) {
            continue;
        }
        let seq = d.record(key, |seq| Why {
            seq,
            rule,
            pivot,
            observer: None,
            graph: None,
            ctx: Some(c),
        });
        let cl = &mut d.closures[into];
        cl.out[a].push((b, rel, key, seq));
        cl.reach.set(a, b);
    }
    d.closures[into].reach.close();
}

/// wSC's `hb` with its `st` and `rw[st]` edges inserted.
fn wsc(d: &mut Deriver) -> usize {
    let h = d.h;
    let c = d.closure(Pi::Po, false, None);
    let mut work: Vec<Key> = Vec::new();
    let fire = |d: &mut Deriver, x: OpId, y: OpId, work: &mut Vec<Key>| {
        if !is_write(h, x) || !same_var(h, x, y) {
            return;
        }
        if is_read(h, y) {
            if let Some(w2) = h.rf(y).filter(|&w2| w2 != x) {
                let key = (x, w2, Class::Rel(Rel::St));
                if !d.why.contains_key(&key) {
                    d.record(key, |seq| Why {
                        seq,
                        rule: Rule::StHbWr,
                        pivot: Some(y),
                        observer: None,
                        graph: None,
                        ctx: Some(c),
                    });
                    work.push(key);
                }
            }
        } else if is_write(h, y) && y != x {
            for &r in h.readers(x) {
                let key = (r, y, Class::Rel(Rel::Rw));
                if !d.why.contains_key(&key) {
                    d.record(key, |seq| Why {
                        seq,
                        rule: Rule::RwSt,
                        pivot: Some(x),
                        observer: None,
                        graph: None,
                        ctx: Some(c),
                    });
                    work.push(key);
                }
            }
        }
    };
    let mut ys = Vec::new();
    for x in 0..h.n() {
        ys.clear();
        ys.extend(d.closures[c].reach.ones(x));
        for &y in &ys {
            fire(d, x, y, &mut work);
        }
    }
    // oldest first: a premise is inserted before what it justifies
    let mut i = 0;
    let mut new = Vec::new();
    while i < work.len() {
        let key = work[i];
        i += 1;
        let Class::Rel(rel) = key.2 else { continue };
        d.insert(c, key.0, key.1, rel, key, &mut new);
        for &(x, y) in &new {
            fire(d, x, y, &mut work);
        }
    }
    c
}

/// The store-order pairs every witness of `model` has; the closures of its
/// acyclicity graphs (graph 0 first), with `ww` (as `st`, `rmw`, `final`)
/// and `rw[ww]` inserted into each.
fn store(d: &mut Deriver, model: StoreModel) -> Vec<usize> {
    let h = d.h;
    let graphs = match model {
        StoreModel::Sc => vec![d.closure(Pi::Po, false, None)],
        StoreModel::Tso => vec![
            d.closure(Pi::PoLoc, false, None),
            d.closure(Pi::PpoTso, true, None),
        ],
        StoreModel::Pso => vec![
            d.closure(Pi::PoLoc, false, None),
            d.closure(Pi::PoPso, true, None),
        ],
        StoreModel::Rmo => vec![
            d.closure(Pi::PoLocLlh, false, None),
            d.closure(Pi::PoRmo, true, None),
        ],
        StoreModel::Armv8 => vec![
            d.closure(Pi::PoLoc, false, None),
            d.closure(Pi::Ob, true, None),
        ],
    };
    let ww = |a, b| (a, b, Class::Rel(Rel::St));
    let mut work: Vec<Key> = Vec::new();
    let fire = |d: &mut Deriver, g: usize, x: OpId, y: OpId, work: &mut Vec<Key>| {
        if !is_write(h, x) || !same_var(h, x, y) {
            return;
        }
        let (b, rule, pivot) = if is_read(h, y) {
            match h.rf(y) {
                Some(w2) if w2 != x => (w2, Rule::WwHbWr, Some(y)),
                _ => return,
            }
        } else if is_write(h, y) && y != x {
            (y, Rule::WwHbWw, None)
        } else {
            return;
        };
        let key = ww(x, b);
        if !d.why.contains_key(&key) {
            let ctx = graphs[g];
            d.record(key, |seq| Why {
                seq,
                rule,
                pivot,
                observer: None,
                graph: Some(g),
                ctx: Some(ctx),
            });
            work.push(key);
        }
    };
    let mut ys = Vec::new();
    for (g, &c) in graphs.iter().enumerate() {
        for x in 0..h.n() {
            ys.clear();
            ys.extend(d.closures[c].reach.ones(x));
            for &y in &ys {
                fire(d, g, x, y, &mut work);
            }
        }
    }
    for &(x, v) in &h.finals {
        let observed: Vec<OpId> = h
            .writes_of(x)
            .iter()
            .copied()
            .filter(|&w| h.ops[w].value == v)
            .collect();
        let [last] = observed[..] else { continue };
        for &w in h.writes_of(x).iter().filter(|&&w| w != last) {
            let key = ww(w, last);
            if !d.why.contains_key(&key) {
                d.record(key, |seq| Why {
                    seq,
                    rule: Rule::WwFinal,
                    pivot: None,
                    observer: None,
                    graph: None,
                    ctx: None,
                });
                work.push(key);
            }
        }
    }
    // the RMW write halves by the write their read reads from
    let mut rmw_by_source: FxMap<OpId, Vec<OpId>> = FxMap::default();
    for u in (0..h.n()).filter(|&u| is_write(h, u)) {
        if let Some(w0) = h.ops[u].rmw.and_then(|r| h.rf(r)) {
            rmw_by_source.entry(w0).or_default().push(u);
        }
    }
    let mut i = 0;
    let mut new = Vec::new();
    while i < work.len() {
        let key = work[i];
        i += 1;
        let (a, b, Class::Rel(rel)) = key else {
            continue;
        };
        if rel == Rel::St {
            // a store-order pair: atomicity, then rw
            let mut more: Vec<(Key, Rule, OpId)> = Vec::new();
            for &u in rmw_by_source.get(&a).into_iter().flatten() {
                if u != b {
                    more.push((ww(u, b), Rule::WwRmwAfter, a));
                }
            }
            if let Some(w0) = h.ops[b]
                .rmw
                .and_then(|r| h.rf(r))
                .filter(|_| is_write(h, b))
            {
                if w0 != a {
                    more.push((ww(a, w0), Rule::WwRmwBefore, b));
                }
            }
            for &r in h.readers(a) {
                more.push(((r, b, Class::Rel(Rel::Rw)), Rule::RwWw, a));
            }
            for (k, rule, pivot) in more {
                if !d.why.contains_key(&k) {
                    d.record(k, |seq| Why {
                        seq,
                        rule,
                        pivot: Some(pivot),
                        observer: None,
                        graph: None,
                        ctx: None,
                    });
                    work.push(k);
                }
            }
        }
        let label = d.why[&key].rule.rel();
        for (g, &c) in graphs.iter().enumerate() {
            d.insert(c, a, b, label, key, &mut new);
            for &(x, y) in &new {
                fire(d, g, x, y, &mut work);
            }
        }
    }
    graphs
}

impl Derived<'_> {
    /// The derivation of a cycle edge `a -rel-> b`, if the definitions force it.
    fn find(&mut self, a: OpId, rel: Rel, b: OpId, observer: Option<OpId>) -> Option<Key> {
        let h = self.d.h;
        let key = |r: Rel| (a, b, Class::Rel(r));
        match (self.family, rel) {
            (Family::Co, Rel::Rw) => {
                let co = self.co?;
                let w1 = h.rf(a)?;
                let ok = is_write(h, b) && same_var(h, a, b) && w1 != b;
                (ok && self.d.closures[co].reach.get(w1, b)).then(|| {
                    self.d.record(key(Rel::Rw), |seq| Why {
                        seq,
                        rule: Rule::RwCo,
                        pivot: Some(w1),
                        observer: None,
                        graph: None,
                        ctx: Some(co),
                    });
                    key(Rel::Rw)
                })
            }
            (Family::Co, Rel::Cf) => {
                let co = self.co?;
                if !is_write(h, a) || a == b {
                    return None;
                }
                let r = h
                    .readers(b)
                    .iter()
                    .copied()
                    .find(|&r| same_var(h, a, r) && self.d.closures[co].reach.get(a, r))?;
                self.d.record(key(Rel::Cf), |seq| Why {
                    seq,
                    rule: Rule::CfCo,
                    pivot: Some(r),
                    observer: None,
                    graph: None,
                    ctx: Some(co),
                });
                Some(key(Rel::Cf))
            }
            (Family::Cm, Rel::HbO) => {
                let observers = observer.map_or(self.observers.clone(), |o| vec![o]);
                observers
                    .into_iter()
                    .map(|o| (a, b, Class::HbO(Pi::Po, o)))
                    .find(|k| self.d.why.contains_key(k))
            }
            (Family::Ccm, Rel::Pww) | (Family::Wccm(_), Rel::Wpww) => {
                self.d.why.contains_key(&key(rel)).then(|| key(rel))
            }
            (Family::Ccm | Family::Wccm(_), Rel::Rw) => {
                let s = self.store?;
                let w1 = h.rf(a)?;
                let ok = is_write(h, b) && same_var(h, a, b) && w1 != b;
                let rule = if self.family == Family::Ccm {
                    Rule::RwPww
                } else {
                    Rule::RwWpww
                };
                (ok && self.d.closures[s].reach.get(w1, b)).then(|| {
                    self.d.record(key(Rel::Rw), |seq| Why {
                        seq,
                        rule,
                        pivot: Some(w1),
                        observer: None,
                        graph: None,
                        ctx: Some(s),
                    });
                    key(Rel::Rw)
                })
            }
            (Family::Wsc, Rel::St | Rel::Rw) => {
                self.d.why.contains_key(&key(rel)).then(|| key(rel))
            }
            (Family::Store(..), Rel::St | Rel::Rmw | Rel::Final) => {
                self.d.why.contains_key(&key(Rel::St)).then(|| key(Rel::St))
            }
            (Family::Store(..), Rel::Rw) => {
                self.d.why.contains_key(&key(Rel::Rw)).then(|| key(Rel::Rw))
            }
            _ => None,
        }
    }

    /// The justification of a recorded derivation, and the derived premises it names.
    fn justification(&self, key: Key) -> Result<(Justification, Vec<Key>), String> {
        let h = self.d.h;
        let why = self.d.why[&key];
        let (a, b, _) = key;
        let mut premises = Vec::new();
        let path = match (why.rule, why.ctx) {
            (Rule::WwRmwAfter, _) | (Rule::RwWw, _) => {
                let src = why.pivot.expect("a pivot");
                let k = (src, b, Class::Rel(Rel::St));
                premises.push(k);
                vec![Step {
                    from: src,
                    rel: self.d.why[&k].rule.rel(),
                    to: b,
                }]
            }
            (Rule::WwRmwBefore, _) => {
                let u = why.pivot.expect("a pivot");
                let k = (a, u, Class::Rel(Rel::St));
                premises.push(k);
                vec![Step {
                    from: a,
                    rel: self.d.why[&k].rule.rel(),
                    to: u,
                }]
            }
            (Rule::WwFinal, _) => Vec::new(),
            (rule, Some(c)) => {
                let (start, end) = match rule {
                    Rule::RwCo | Rule::RwPww | Rule::RwWpww | Rule::RwSt => {
                        (why.pivot.expect("w1"), b)
                    }
                    Rule::PwwHbWw | Rule::WpwwWhbWw | Rule::WwHbWw => (a, b),
                    _ => (a, why.pivot.expect("the read")),
                };
                let steps = self.d.path(c, start, end, why.seq).ok_or_else(|| {
                    format!(
                        "no premise path {} to {} for {} -{}-> {}",
                        h.describe(start),
                        h.describe(end),
                        h.describe(a),
                        why.rule.rel().name(),
                        h.describe(b)
                    )
                })?;
                let mut out = Vec::new();
                for (s, k) in steps {
                    if self.d.why.contains_key(&k) {
                        premises.push(k);
                    }
                    out.push(s);
                }
                out
            }
            (_, None) => Vec::new(),
        };
        Ok((
            Justification {
                from: a,
                rel: why.rule.rel(),
                to: b,
                rule: why.rule,
                seq: why.seq,
                pivot: why.pivot,
                observer: why.observer,
                graph: why.graph,
                path,
            },
            premises,
        ))
    }
}

/// The observer a violation names (CM's `hb_o`).
fn observer_of(v: &Violation) -> Option<OpId> {
    v.ops
        .iter()
        .find(|(_, role)| role.contains("observer"))
        .map(|&(o, _)| o)
}

/// Proof search: the justifications of every derived edge of `v`'s cycle
/// (and, recursively, of their derived premises), premises first; an error
/// names an edge no rule of the pattern's definition forces. `store` tells
/// TSO from PSO for the uniprocessor graph.
pub fn justify(
    h: &History,
    v: &Violation,
    store: Option<StoreModel>,
) -> Result<Vec<Justification>, String> {
    let Some(family) = Family::of(v.pattern, store) else {
        return Ok(Vec::new());
    };
    let derived_edges: Vec<&Step> = v
        .cycle
        .iter()
        .filter(|s| !family.rules(s.rel).is_empty())
        .collect();
    if derived_edges.is_empty() {
        return Ok(Vec::new());
    }
    if let Family::Store(model, _) = family {
        if let Some(js) = store_direct(h, v, model) {
            return Ok(js);
        }
    }
    if family == Family::Co {
        if let Some(js) = co_direct(h, v) {
            return Ok(js);
        }
    }
    justify_by_fixpoint(h, v, family)
}

/// [`justify`] by the family's whole fixpoint.
fn justify_by_fixpoint(
    h: &History,
    v: &Violation,
    family: Family,
) -> Result<Vec<Justification>, String> {
    let derived_edges: Vec<&Step> = v
        .cycle
        .iter()
        .filter(|s| !family.rules(s.rel).is_empty())
        .collect();
    let observer = observer_of(v);
    let mut d = derive(h, family, observer);
    let mut todo: Vec<Key> = Vec::new();
    for s in derived_edges {
        let k = d.find(s.from, s.rel, s.to, observer).ok_or_else(|| {
            format!(
                "{} -{}-> {} is not derived by any rule of {}",
                h.describe(s.from),
                s.rel.name(),
                h.describe(s.to),
                v.pattern.name()
            )
        })?;
        todo.push(k);
    }
    let mut done: FxSet<Key> = FxSet::default();
    let mut out = Vec::new();
    while let Some(k) = todo.pop() {
        if !done.insert(k) {
            continue;
        }
        let (j, premises) = d.justification(k)?;
        out.push(j);
        todo.extend(premises.into_iter().filter(|p| !done.contains(p)));
    }
    out.sort_by_key(|j| j.seq);
    Ok(out)
}

/// Proof search for a `co` cycle (CC's and CCv's patterns) without the
/// closure of `po ∪ wr`: every derived edge rests on base edges alone
/// (`rw[co]`: `w1 wr r`, `w1 co w2`; `cf[co]`: `w co r`, `w′ wr r`), so
/// each gets the premise path the fixpoint gives it (the same breadth-
/// first search over `po ∪ wr`, successors in the same order), the same
/// pivot, and the same number (the cycle's derived edges in order). `None`
/// when an edge has no such premise: the fixpoint then says why.
fn co_direct(h: &History, v: &Violation) -> Option<Vec<Justification>> {
    let n = h.n();
    let po = Pi::Po.matrix(h);
    let succ = |x: OpId, out: &mut Vec<(OpId, Rel)>| {
        out.extend(po.ones(x).map(|y| (y, Rel::Po)));
        out.extend(h.readers(x).iter().map(|&r| (r, Rel::Wr)));
    };
    let mut out: Vec<Justification> = Vec::new();
    for s in &v.cycle {
        let (a, b) = (s.from, s.to);
        if a >= n || b >= n {
            return None;
        }
        let (rule, pivot, start, end) = match s.rel {
            Rel::Rw => {
                let w1 = h.rf(a)?;
                if !is_write(h, b) || !same_var(h, a, b) || w1 == b {
                    return None;
                }
                (Rule::RwCo, w1, w1, b)
            }
            Rel::Cf => {
                if !is_write(h, a) || a == b {
                    return None;
                }
                // the first reader of `b` that `a` reaches, as the fixpoint picks it
                let mut reach = vec![false; n];
                let (mut stack, mut next) = (vec![a], Vec::new());
                while let Some(x) = stack.pop() {
                    next.clear();
                    succ(x, &mut next);
                    for &(y, _) in &next {
                        if !std::mem::replace(&mut reach[y], true) {
                            stack.push(y);
                        }
                    }
                }
                let r = h
                    .readers(b)
                    .iter()
                    .copied()
                    .find(|&r| same_var(h, a, r) && reach[r])?;
                (Rule::CfCo, r, a, r)
            }
            _ => continue,
        };
        if out.iter().any(|j| (j.from, j.rel, j.to) == (a, s.rel, b)) {
            continue;
        }
        let path = shortest_path(n, start, end, succ)?
            .into_iter()
            .map(|(from, to, rel)| Step { from, rel, to })
            .collect();
        out.push(Justification {
            from: a,
            rel: s.rel,
            to: b,
            rule,
            seq: out.len() as u32 + 1,
            pivot: Some(pivot),
            observer: None,
            graph: None,
            path,
        });
    }
    Some(out)
}

/// Proof search for a store-order cycle without the fixpoint, when every
/// `ww` pair its derived edges need (`ww` itself, or `w1 ww w2` under
/// `r -rw-> w2`) is forced in the fixpoint's first round: by a path of one
/// acyclicity graph's base relations (`π ∪ wr`, or `wre`) from `w1` to
/// `w2` (`hb_WW`) or to a read of `w2` (`hb_WR;wr⁻¹`). Each pair gets the
/// derivation that round records first (graphs in order, then the earlier
/// operation reached from `w1`: the same rule, pivot and graph as
/// [`store`]'s), a premise path of base edges, and derivation numbers in
/// the fixpoint's order (those pairs, then the `rw` edges by their
/// pairs'). `None` when a pair needs more (inserted edges, RMW
/// atomicity, `@final`): the fixpoint decides.
fn store_direct(h: &History, v: &Violation, model: StoreModel) -> Option<Vec<Justification>> {
    let graphs: &[(Pi, bool)] = match model {
        StoreModel::Sc => &[(Pi::Po, false)],
        StoreModel::Tso => &[(Pi::PoLoc, false), (Pi::PpoTso, true)],
        StoreModel::Pso => &[(Pi::PoLoc, false), (Pi::PoPso, true)],
        StoreModel::Rmo => &[(Pi::PoLocLlh, false), (Pi::PoRmo, true)],
        StoreModel::Armv8 => &[(Pi::PoLoc, false), (Pi::Ob, true)],
    };
    // the ww pairs, and the rw edges (r, w2, w1) over them
    let n = h.n();
    let mut pairs: Vec<(OpId, OpId)> = Vec::new();
    let mut rws: Vec<(OpId, OpId, OpId)> = Vec::new();
    for s in &v.cycle {
        if s.from >= n || s.to >= n {
            return None;
        }
        match s.rel {
            Rel::St | Rel::Rmw | Rel::Final => pairs.push((s.from, s.to)),
            Rel::Rw => {
                let w1 = h.rf(s.from)?;
                pairs.push((w1, s.to));
                rws.push((s.from, s.to, w1));
            }
            _ => {}
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    // each graph's π, built when a pair is looked for in it
    let mats: Vec<std::cell::OnceCell<Bits>> = vec![std::cell::OnceCell::new(); graphs.len()];
    // the base edges out of `x` in graph `g`, in the fixpoint's order
    let succ = |g: usize, x: OpId, out: &mut Vec<(OpId, Rel)>| {
        let (pi, external) = graphs[g];
        out.clear();
        let m = mats[g].get_or_init(|| pi.matrix(h));
        out.extend(m.ones(x).map(|y| (y, pi.rel())));
        let wr = if external { Rel::Wre } else { Rel::Wr };
        for &r in h.readers(x) {
            if !external || wre(h, x, r) {
                out.push((r, wr));
            }
        }
    };
    // (graph, a, the operation reached, rule, pivot) of each pair: the
    // premise path goes from `a` to the operation reached
    let mut found = Vec::with_capacity(pairs.len());
    let mut next = Vec::new();
    for &(a, b) in &pairs {
        if !is_write(h, a) || !same_var(h, a, b) {
            return None;
        }
        let mut first = None;
        'graphs: for g in 0..graphs.len() {
            // what the base relations reach from `a` (the closure's row)
            let mut reach = vec![0u64; n.div_ceil(64).max(1)];
            let mut stack = vec![a];
            while let Some(x) = stack.pop() {
                succ(g, x, &mut next);
                for &(y, _) in &next {
                    if reach[y / 64] >> (y % 64) & 1 == 0 {
                        reach[y / 64] |= 1 << (y % 64);
                        stack.push(y);
                    }
                }
            }
            for (i, &word) in reach.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let y = i * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if !same_var(h, a, y) {
                        continue;
                    }
                    let fired = if is_read(h, y) {
                        h.rf(y)
                            .filter(|&w2| w2 != a)
                            .map(|w2| (w2, Rule::WwHbWr, Some(y)))
                    } else if is_write(h, y) && y != a {
                        Some((y, Rule::WwHbWw, None))
                    } else {
                        None
                    };
                    if let Some((_, rule, pivot)) = fired.filter(|f| f.0 == b) {
                        first = Some((g, a, y, rule, pivot));
                        break 'graphs;
                    }
                }
            }
        }
        found.push(first?);
    }
    // the fixpoint's first round records by graph, then `a`, then pivot
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_unstable_by_key(|&i| (found[i].0, found[i].1, found[i].2));
    let mut out = Vec::with_capacity(pairs.len() + rws.len());
    let mut seq_of = FxMap::default();
    for (k, &i) in order.iter().enumerate() {
        let (g, a, end, rule, pivot) = found[i];
        let b = pairs[i].1;
        let seq = k as u32 + 1;
        seq_of.insert((a, b), seq);
        // a premise path of base edges, found as [`Deriver::path`] finds one
        let path = shortest_path(n, a, end, |x, next| succ(g, x, next))?
            .into_iter()
            .map(|(from, to, rel)| Step { from, rel, to })
            .collect();
        out.push(Justification {
            from: a,
            rel: rule.rel(),
            to: b,
            rule,
            seq,
            pivot,
            observer: None,
            graph: Some(g),
            path,
        });
    }
    // rw edges: recorded when their pair is processed, readers in order
    let mut rw_order: Vec<(u32, usize, OpId, OpId, OpId)> = rws
        .iter()
        .map(|&(r, w2, w1)| {
            let at = h
                .readers(w1)
                .iter()
                .position(|&x| x == r)
                .expect("r reads w1");
            (seq_of[&(w1, w2)], at, r, w2, w1)
        })
        .collect();
    rw_order.sort_unstable();
    rw_order.dedup();
    let base = out.len() as u32;
    for (k, &(_, _, r, w2, w1)) in rw_order.iter().enumerate() {
        out.push(Justification {
            from: r,
            rel: Rel::Rw,
            to: w2,
            rule: Rule::RwWw,
            seq: base + k as u32 + 1,
            pivot: Some(w1),
            observer: None,
            graph: None,
            path: vec![Step {
                from: w1,
                rel: Rel::St,
                to: w2,
            }],
        });
    }
    Some(out)
}

/// Proof checking of `v`'s cycle edges that are derived: each has a
/// justification among `v.justifications` whose rule applies to its
/// premises on `h`, recursively (premises derived earlier).
pub fn check(h: &History, v: &Violation, store: Option<StoreModel>) -> Result<(), String> {
    let Some(family) = Family::of(v.pattern, store) else {
        return Ok(());
    };
    let mut c = Checker {
        h,
        js: &v.justifications,
        by_pair: FxMap::default(),
        valid: FxMap::default(),
        pis: FxMap::default(),
        pasts: FxMap::default(),
        model: match family {
            Family::Store(m, _) => Some(m),
            _ => None,
        },
    };
    for (i, j) in v.justifications.iter().enumerate() {
        c.by_pair.entry((j.from, j.to)).or_default().push(i);
    }
    let mut observer = None;
    for s in &v.cycle {
        let rules = family.rules(s.rel);
        if rules.is_empty() {
            continue;
        }
        let i = c.find(s.from, s.to, rules, u32::MAX, None).ok_or_else(|| {
            format!(
                "{} -{}-> {} has no valid justification (rules: {})",
                h.describe(s.from),
                s.rel.name(),
                h.describe(s.to),
                rules
                    .iter()
                    .map(|r| r.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        // a cycle of one hb_o: one observer
        if family == Family::Cm {
            let o = v.justifications[i].observer;
            if observer.is_some_and(|p| Some(p) != o) {
                return Err("the hb_o edges of the cycle have different observers".into());
            }
            observer = o;
        }
    }
    Ok(())
}

struct Checker<'a> {
    h: &'a History,
    js: &'a [Justification],
    by_pair: FxMap<(OpId, OpId), Vec<usize>>,
    valid: FxMap<usize, bool>,
    pis: FxMap<Pi, Bits>,
    pasts: FxMap<(Pi, OpId), Vec<bool>>,
    /// the store model of a store-order certificate
    model: Option<StoreModel>,
}

impl Checker<'_> {
    /// A valid justification of `a -> b` by one of `rules`, derived before
    /// `before`, for observer `observer` when given.
    fn find(
        &mut self,
        a: OpId,
        b: OpId,
        rules: &[Rule],
        before: u32,
        observer: Option<OpId>,
    ) -> Option<usize> {
        let cands = self.by_pair.get(&(a, b))?.clone();
        cands.into_iter().find(|&i| {
            let j = &self.js[i];
            rules.contains(&j.rule)
                && j.seq < before
                && (observer.is_none() || j.observer == observer)
                && self.valid(i)
        })
    }

    fn pi(&mut self, pi: Pi, a: OpId, b: OpId) -> bool {
        let h = self.h;
        if pi == Pi::Po {
            // the matrix of `po` is `po_before`'s pairs: asked pairwise, a
            // proof checks in time proportional to it at any size
            return h.po_before(a, b);
        }
        self.pis.entry(pi).or_insert_with(|| pi.matrix(h)).get(a, b)
    }

    /// `CausalPast_π(o) ∪ {o}` over `π ∪ wr` (`wre` when external).
    fn in_past(&mut self, pi: Pi, external: bool, o: OpId, a: OpId) -> bool {
        if pi == Pi::Po && !external {
            if !self.pasts.contains_key(&(pi, o)) {
                self.pasts.insert((pi, o), po_wr_past(self.h, o));
            }
            return self.pasts[&(pi, o)][a];
        }
        if !self.pasts.contains_key(&(pi, o)) {
            let h = self.h;
            let m = self.pis.entry(pi).or_insert_with(|| pi.matrix(h)).clone();
            let n = h.n();
            let mut seen = vec![false; n];
            seen[o] = true;
            let mut stack = vec![o];
            while let Some(b) = stack.pop() {
                let mut preds: Vec<OpId> = (0..n).filter(|&x| m.get(x, b)).collect();
                if let Some(w) = h.rf(b) {
                    if !external || wre(h, w, b) {
                        preds.push(w);
                    }
                }
                for x in preds {
                    if !seen[x] {
                        seen[x] = true;
                        stack.push(x);
                    }
                }
            }
            self.pasts.insert((pi, o), seen);
        }
        self.pasts[&(pi, o)][a]
    }

    /// Whether justification `i` holds (memoized; a justification being
    /// checked counts as invalid, which cuts cycles of premises).
    fn valid(&mut self, i: usize) -> bool {
        if let Some(&v) = self.valid.get(&i) {
            return v;
        }
        self.valid.insert(i, false);
        let ok = self.check(i);
        self.valid.insert(i, ok);
        ok
    }

    fn check(&mut self, i: usize) -> bool {
        let h = self.h;
        let j = self.js[i].clone();
        let (a, b) = (j.from, j.to);
        let n = h.n();
        if a >= n || b >= n || j.pivot.is_some_and(|p| p >= n) || j.observer.is_some_and(|o| o >= n)
        {
            return false;
        }
        if j.rel != j.rule.rel() {
            return false;
        }
        let writes_ab = is_write(h, a) && is_write(h, b) && same_var(h, a, b) && a != b;
        // `a -> w′` by `a R r`, `w′ wr r` (`wre` when external)
        let cf_like = |r: Option<OpId>, external: bool| -> Option<OpId> {
            let r = r?;
            let ok = is_read(h, r)
                && h.rf(r) == Some(b)
                && writes_ab
                && same_var(h, a, r)
                && (!external || wre(h, b, r));
            ok.then_some(r)
        };
        // `r -rw-> w2` by `w1 wr r`, `w1 R w2`
        let rw_like = |w1: Option<OpId>| -> Option<OpId> {
            let w1 = w1?;
            let ok = is_read(h, a)
                && h.rf(a) == Some(w1)
                && is_write(h, b)
                && same_var(h, a, b)
                && w1 != b;
            ok.then_some(w1)
        };
        // the path's start and end, and what its edges may be
        let (start, end, steps): (OpId, OpId, Steps) = match j.rule {
            Rule::RwCo => match rw_like(j.pivot) {
                Some(w1) => (w1, b, Steps::Base(Pi::Po, false)),
                None => return false,
            },
            Rule::CfCo => match cf_like(j.pivot, false) {
                Some(r) => (a, r, Steps::Base(Pi::Po, false)),
                None => return false,
            },
            Rule::HbRule2 | Rule::HbPpoRule2 | Rule::HbPoLocRule2 => {
                let (pi, external) = match j.rule {
                    Rule::HbRule2 => (Pi::Po, false),
                    Rule::HbPpoRule2 => (Pi::PpoW, true),
                    _ => (Pi::PoLoc, true),
                };
                let (Some(o), Some(r)) = (j.observer, j.pivot) else {
                    return false;
                };
                // rule 2 reads `wr` itself, not `wre`
                if cf_like(Some(r), false).is_none() || !(r == o || self.pi(pi, r, o)) {
                    return false;
                }
                (a, r, Steps::Local(pi, external, o, j.rule))
            }
            Rule::PwwHbWw => {
                if !writes_ab {
                    return false;
                }
                (a, b, Steps::Hb(&[Rule::HbRule2]))
            }
            Rule::PwwCfHb => match cf_like(j.pivot, false) {
                Some(r) => (a, r, Steps::Hb(&[Rule::HbRule2])),
                None => return false,
            },
            Rule::RwPww => match rw_like(j.pivot) {
                Some(w1) => (w1, b, Steps::Derived(&[Rule::PwwHbWw, Rule::PwwCfHb])),
                None => return false,
            },
            Rule::WpwwWhbWw => {
                if !writes_ab {
                    return false;
                }
                (a, b, Steps::Whb)
            }
            Rule::WpwwCfePpo | Rule::WpwwCfePoLoc => {
                let (pi, rule2) = match j.rule {
                    Rule::WpwwCfePpo => (Pi::PpoW, Rule::HbPpoRule2),
                    _ => (Pi::PoLoc, Rule::HbPoLocRule2),
                };
                match cf_like(j.pivot, true) {
                    Some(r) => (a, r, Steps::HbPi(pi, rule2)),
                    None => return false,
                }
            }
            Rule::RwWpww => match rw_like(j.pivot) {
                Some(w1) => (
                    w1,
                    b,
                    Steps::Derived(&[Rule::WpwwWhbWw, Rule::WpwwCfePpo, Rule::WpwwCfePoLoc]),
                ),
                None => return false,
            },
            Rule::StHbWr => match cf_like(j.pivot, false) {
                Some(r) => (a, r, Steps::Wsc),
                None => return false,
            },
            Rule::RwSt => match rw_like(j.pivot) {
                Some(w1) => (w1, b, Steps::Wsc),
                None => return false,
            },
            Rule::WwHbWr | Rule::WwHbWw => {
                let Some(g) = j.graph.filter(|&g| g < 2) else {
                    return false;
                };
                let end = if j.rule == Rule::WwHbWr {
                    match cf_like(j.pivot, false) {
                        Some(r) => r,
                        None => return false,
                    }
                } else if writes_ab {
                    b
                } else {
                    return false;
                };
                (a, end, Steps::Graph(g))
            }
            Rule::WwRmwAfter => {
                // u = a is an RMW write whose read reads the pivot w; w ww b
                let Some(w) = j.pivot else { return false };
                let reads_w = h.ops[a]
                    .rmw
                    .is_some_and(|r| is_read(h, r) && h.rf(r) == Some(w));
                if !(writes_ab && is_write(h, a) && reads_w) {
                    return false;
                }
                (w, b, Steps::OneWw)
            }
            Rule::WwRmwBefore => {
                // the pivot u is an RMW write whose read reads b; a ww u
                let Some(u) = j.pivot else { return false };
                let reads_b = is_write(h, u)
                    && h.ops[u]
                        .rmw
                        .is_some_and(|r| is_read(h, r) && h.rf(r) == Some(b));
                if !(writes_ab && reads_b) {
                    return false;
                }
                (a, u, Steps::OneWw)
            }
            Rule::WwFinal => {
                let Some(x) = h.ops[b].var else { return false };
                let observed = h.finals.iter().any(|&(y, v)| {
                    y == x
                        && h.writes_of(x)
                            .iter()
                            .filter(|&&w| h.ops[w].value == v)
                            .eq([&b])
                });
                return writes_ab && observed && j.path.is_empty();
            }
            Rule::RwWw => match rw_like(j.pivot) {
                Some(w1) => (w1, b, Steps::OneWw),
                None => return false,
            },
        };
        self.path(&j, start, end, steps)
    }

    /// Whether `j.path` leads from `start` to `end` by edges `steps` allows.
    fn path(&mut self, j: &Justification, start: OpId, end: OpId, steps: Steps) -> bool {
        let h = self.h;
        if matches!(steps, Steps::OneWw) && j.path.len() != 1 {
            return false;
        }
        if j.path.is_empty() {
            return false;
        }
        let mut at = start;
        for s in &j.path {
            if s.from != at || s.to >= h.n() {
                return false;
            }
            at = s.to;
            let (x, y) = (s.from, s.to);
            let base = |c: &mut Checker, pi: Pi, external: bool| -> bool {
                if s.rel == pi.rel() || (pi == Pi::Ob && s.rel == Rel::Aob) {
                    c.pi(pi, x, y)
                } else if s.rel == if external { Rel::Wre } else { Rel::Wr } {
                    h.rf(y) == Some(x) && (!external || wre(h, x, y))
                } else {
                    false
                }
            };
            let ok = match steps {
                Steps::Base(pi, external) => base(self, pi, external),
                Steps::Local(pi, external, o, rule) => {
                    if s.rel == Rel::HbO {
                        self.find(x, y, &[rule], j.seq, Some(o)).is_some()
                    } else {
                        base(self, pi, external)
                            && self.in_past(pi, external, o, x)
                            && self.in_past(pi, external, o, y)
                    }
                }
                Steps::Hb(rules) => {
                    s.rel == Rel::HbO && self.find(x, y, rules, j.seq, None).is_some()
                        || base(self, Pi::Po, false)
                }
                Steps::HbPi(pi, rule) => {
                    s.rel == Rel::HbO && self.find(x, y, &[rule], j.seq, None).is_some()
                        || base(self, pi, true)
                }
                Steps::Whb => {
                    s.rel == Rel::HbO
                        && self
                            .find(x, y, &[Rule::HbPpoRule2, Rule::HbPoLocRule2], j.seq, None)
                            .is_some()
                        || base(self, Pi::PpoW, true)
                        || base(self, Pi::PoLoc, true)
                }
                Steps::Derived(rules) => self.find(x, y, rules, j.seq, None).is_some(),
                Steps::Wsc => match s.rel {
                    Rel::St => self.find(x, y, &[Rule::StHbWr], j.seq, None).is_some(),
                    Rel::Rw => self.find(x, y, &[Rule::RwSt], j.seq, None).is_some(),
                    _ => base(self, Pi::Po, false),
                },
                Steps::Graph(g) => match s.rel {
                    Rel::St | Rel::Rmw | Rel::Final => {
                        self.find(x, y, &WW_RULES, j.seq, None).is_some()
                    }
                    Rel::Rw => self.find(x, y, &[Rule::RwWw], j.seq, None).is_some(),
                    _ => match self.model {
                        Some(StoreModel::Sc) if g > 0 => false,
                        Some(m) => {
                            let (pi, external) = Family::Store(m, g).base();
                            base(self, pi, external)
                        }
                        None => false,
                    },
                },
                Steps::OneWw => self.find(x, y, &WW_RULES, j.seq, None).is_some(),
            };
            if !ok {
                return false;
            }
        }
        at == end
    }
}

/// `CausalPast(o) ∪ {o}` over `po ∪ wr`, in time linear in the history:
/// searched back from `o`, each thread's `po`-predecessors of the operations
/// reached are those completed before the latest issue reached in it
/// (`po` within a thread is an interval order, or the thread's order when
/// it is untimed), each taken once in order of completion; an RMW's read
/// half precedes its write half; initial writes precede every thread
/// operation.
fn po_wr_past(h: &History, o: OpId) -> Vec<bool> {
    let n = h.n();
    // per thread, its operations by completion
    let by_end: Vec<Vec<OpId>> = h
        .threads
        .iter()
        .map(|t| {
            let mut ops: Vec<OpId> = t.ops.clone().collect();
            ops.sort_by_key(|&a| h.interval(a).1);
            ops
        })
        .collect();
    let mut taken = vec![0usize; h.threads.len()];
    let mut seen = vec![false; n];
    let mut inits = false;
    seen[o] = true;
    let mut stack = vec![o];
    while let Some(b) = stack.pop() {
        let mut reach = |x: OpId, stack: &mut Vec<OpId>| {
            if !seen[x] {
                seen[x] = true;
                stack.push(x);
            }
        };
        if let Some(w) = h.rf(b) {
            reach(w, &mut stack);
        }
        let Some(t) = h.ops[b].thread else {
            continue; // an initial write: nothing before it
        };
        if !inits {
            inits = true;
            for x in (0..n).filter(|&x| h.is_init(x)) {
                reach(x, &mut stack);
            }
        }
        if let Some(r) = h.ops[b].rmw.filter(|&r| r < b) {
            reach(r, &mut stack);
        }
        let issue = h.interval(b).0;
        let ops = &by_end[t];
        while taken[t] < ops.len() && h.interval(ops[taken[t]]).1 < issue {
            reach(ops[taken[t]], &mut stack);
            taken[t] += 1;
        }
    }
    seen
}

/// What the edges of a premise path may be.
#[derive(Clone, Copy)]
enum Steps {
    /// `π ∪ wr` (`wre` when external)
    Base(Pi, bool),
    /// `hb^π_o`: `π ∪ wr` inside `CausalPast(o) ∪ {o}`, and rule-2 edges of `o`
    Local(Pi, bool, OpId, Rule),
    /// CCM's `hb`: `po ∪ wr` and rule-2 edges of any observer
    Hb(&'static [Rule]),
    /// `hb^π`: `π ∪ wre` and its rule-2 edges
    HbPi(Pi, Rule),
    /// `whb`: `ppo ∪ po-loc ∪ wre` and both rule-2 kinds
    Whb,
    /// derived edges only
    Derived(&'static [Rule]),
    /// wSC's `hb`: `po ∪ wr ∪ st ∪ rw[st]`
    Wsc,
    /// a store-order model's acyclicity graph `g`
    Graph(usize),
    /// one store-order edge
    OneWw,
}

/// A partial store order the definitions force, for cross-checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// CCM's `pww⁺`
    Pww,
    /// wCCM's `wpww⁺`
    Wpww,
    /// wSC's store order `hb_WW`
    St,
    /// the pairs every witness of SC, TSO or PSO has
    Forced(StoreModel),
}

/// The pairs of distinct writes of one variable `order` relates
/// (initial writes included), by the validator's own fixpoints.
pub fn order(h: &History, order: Order) -> Vec<(OpId, OpId)> {
    let family = match order {
        Order::Pww => Family::Ccm,
        Order::Wpww => Family::Wccm(Pi::PpoW),
        Order::St => Family::Wsc,
        Order::Forced(m) => Family::Store(m, 0),
    };
    let d = derive(h, family, None);
    let rel = match order {
        Order::Pww | Order::Wpww => d.store,
        Order::St => d.hb,
        Order::Forced(_) => None,
    };
    let mut out = Vec::new();
    for x in 0..h.vars.len() {
        for &a in h.writes_of(x) {
            for &b in h.writes_of(x) {
                let related = match rel {
                    Some(c) => d.d.closures[c].reach.get(a, b),
                    None => d.d.why.contains_key(&(a, b, Class::Rel(Rel::St))),
                };
                if a != b && related {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::validate;

    fn hist(text: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).expect("parses");
        History::from_raw(&raw[0], 0).expect("valid")
    }

    fn op(h: &History, text: &str) -> OpId {
        (0..h.n()).find(|&o| h.describe(o) == text).expect(text)
    }

    fn step(h: &History, a: &str, rel: Rel, b: &str) -> Step {
        Step {
            from: op(h, a),
            rel,
            to: op(h, b),
        }
    }

    /// `CausalPast(o) ∪ {o}` over `po ∪ wr` searched in linear time (each
    /// thread's predecessors by completion) is the search over `po`'s matrix
    /// it replaces, for every observer, on random histories with RMWs,
    /// fences, reads of other threads' writes and timed threads.
    #[test]
    fn the_linear_causal_past_is_the_matrix_search() {
        let mut rng = crate::gen::Rng::new(11);
        let mut tested = 0;
        for _ in 0..300 {
            let mut text = String::new();
            let mut value = 0;
            let mut written: Vec<(usize, u64)> = Vec::new();
            for t in 0..1 + rng.below(4) {
                let timed = rng.chance(0.5);
                text.push_str(&format!("t{t}:"));
                let mut tick = 0;
                for _ in 0..rng.below(10) {
                    let x = rng.below(3);
                    let name = ["x", "y", "z"][x];
                    value += 1;
                    let seen: Vec<u64> = written.iter().filter(|w| w.0 == x).map(|w| w.1).collect();
                    let old = if seen.is_empty() || rng.chance(0.3) {
                        0
                    } else {
                        seen[rng.below(seen.len())]
                    };
                    let op = match rng.below(7) {
                        0 | 1 => format!("W({name},{value})"),
                        2..=4 => format!("R({name},{old})"),
                        5 => format!("U({name},{old},{value})"),
                        _ => "F".to_string(),
                    };
                    if !op.starts_with('R') && op != "F" {
                        written.push((x, value));
                    }
                    text.push(' ');
                    text.push_str(&op);
                    if timed {
                        let start = tick + rng.below(3) as u64;
                        let end = start + rng.below(6) as u64;
                        tick = start + 1;
                        text.push_str(&format!("@{start}-{end}"));
                    }
                }
                text.push('\n');
            }
            let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).expect("parses");
            let Ok(h) = History::from_raw(&raw[0], 0) else {
                continue; // an RMW whose read is not its write's source
            };
            let n = h.n();
            let m = Pi::Po.matrix(&h);
            for o in 0..n {
                let mut seen = vec![false; n];
                seen[o] = true;
                let mut stack = vec![o];
                while let Some(b) = stack.pop() {
                    let mut preds: Vec<OpId> = (0..n).filter(|&x| m.get(x, b)).collect();
                    preds.extend(h.rf(b));
                    for x in preds {
                        if !seen[x] {
                            seen[x] = true;
                            stack.push(x);
                        }
                    }
                }
                assert_eq!(po_wr_past(&h, o), seen, "observer {o} in\n{text}");
            }
            tested += 1;
        }
        assert!(tested > 200, "only {tested} histories");
    }

    /// `(po \ relaxed)⁺` from kind and variable masks equals the pairwise
    /// definition (kept pairs, then pairs kept through one operation) on
    /// random histories with RMWs, fences and timed threads.
    #[test]
    fn pi_matrices_from_masks_equal_the_pairwise_definition() {
        let mut rng = crate::gen::Rng::new(7);
        for _ in 0..300 {
            let mut text = String::new();
            let mut value = 0;
            for t in 0..1 + rng.below(3) {
                let timed = rng.chance(0.4);
                text.push_str(&format!("t{t}:"));
                let mut tick = 0;
                for _ in 0..rng.below(9) {
                    let x = ["x", "y", "z"][rng.below(3)];
                    value += 1;
                    let op = match rng.below(6) {
                        0 | 1 => format!("W({x},{value})"),
                        2 | 3 => format!("R({x},0)"),
                        4 => format!("U({x},0,{value})"),
                        _ => "F".to_string(),
                    };
                    text.push(' ');
                    text.push_str(&op);
                    if timed {
                        let start = tick + rng.below(3) as u64;
                        let end = start + rng.below(6) as u64;
                        tick = start + 1;
                        text.push_str(&format!("@{start}-{end}"));
                    }
                }
                text.push('\n');
            }
            let h = hist(&text);
            for pi in [Pi::Po, Pi::PoLoc, Pi::PpoW, Pi::PpoTso, Pi::PoPso] {
                let n = h.n();
                let kept = |a: OpId, b: OpId| h.po_before(a, b) && !pi.relaxed(&h, a, b);
                let m = pi.matrix(&h);
                for a in 0..n {
                    for b in 0..n {
                        let want = kept(a, b)
                            || (!matches!(pi, Pi::Po | Pi::PoLoc)
                                && (0..n).any(|c| kept(a, c) && kept(c, b)));
                        assert_eq!(m.get(a, b), want, "{pi:?} {a} {b} in\n{text}");
                    }
                }
            }
        }
    }

    /// A small generated history for `seed` (SC-, TSO- and PSO-generated in
    /// turn, a stale read injected into every other one), with its program.
    fn small_generated(seed: u64) -> (Vec<Vec<memconform_parsers::hist::RawOpKind>>, History) {
        use crate::gen::{inject_stale_read, threads, Memory, Rng, Shape};
        let memory = [Memory::Sc, Memory::Tso, Memory::Pso][seed as usize % 3];
        let shape = Shape {
            threads: 2 + seed as usize % 3,
            ops_per_thread: 3 + seed as usize % 6,
            vars: 1 + seed as usize % 3,
            write_ratio: 0.5,
        };
        let mut program = threads(memory, shape, seed);
        if seed.is_multiple_of(2) {
            inject_stale_read(&mut program, &mut Rng::new(seed));
        }
        let h = History::from_threads(&program).expect("unique values");
        (program, h)
    }

    /// The direct proof search of store-order cycles ([`store_direct`])
    /// gives the cycle's edges the justifications the fixpoint gives them
    /// (rule, pivot, graph, in the same order), and the proof checker
    /// takes them; on random SC-, TSO- and PSO-generated histories with a
    /// stale read injected, under SC, TSO and PSO.
    #[test]
    fn direct_store_justifications_are_the_fixpoints() {
        use crate::models::Model;
        let (mut direct, mut fallback) = (0, 0);
        for seed in 0..600u64 {
            let (program, h) = small_generated(seed);
            for (model, sm) in [
                (Model::Sc, StoreModel::Sc),
                (Model::Tso, StoreModel::Tso),
                (Model::Pso, StoreModel::Pso),
            ] {
                let Err(v) = model.check(&h) else { continue };
                let Some(family @ Family::Store(..)) = Family::of(v.pattern, Some(sm)) else {
                    continue;
                };
                let Some(js) = store_direct(&h, &v, sm) else {
                    fallback += 1;
                    continue;
                };
                direct += 1;
                let full = justify_by_fixpoint(&h, &v, family).expect("derived");
                let on_cycle = |js: &[Justification]| {
                    js.iter()
                        .filter(|j| v.cycle.iter().any(|s| (s.from, s.to) == (j.from, j.to)))
                        .map(|j| (j.from, j.rel, j.to, j.rule, j.pivot, j.graph))
                        .collect::<Vec<_>>()
                };
                assert_eq!(on_cycle(&js), on_cycle(&full), "{model} on {program:?}");
                let mut checked = v.clone();
                checked.justifications = js;
                validate::violation_in(&h, &checked, Some(sm))
                    .unwrap_or_else(|e| panic!("{model}: {e} on {program:?}"));
            }
        }
        assert!(
            direct > 200 && fallback > 0,
            "{direct} direct, {fallback} by the fixpoint"
        );
    }

    /// The direct proof search of `co` cycles ([`co_direct`]) gives the
    /// justifications the fixpoint gives (every field: rule, pivot, path,
    /// number), and the proof checker takes them; on random histories
    /// with a stale read injected, under CC and CCv.
    #[test]
    fn direct_co_justifications_are_the_fixpoints() {
        use crate::models::Model;
        let mut direct = [0usize; 2];
        for seed in 0..600u64 {
            let (program, h) = small_generated(seed);
            for (i, model) in [Model::Cc, Model::Ccv].into_iter().enumerate() {
                let Err(v) = model.check(&h) else { continue };
                if Family::of(v.pattern, None) != Some(Family::Co) {
                    continue;
                }
                let full = justify_by_fixpoint(&h, &v, Family::Co).expect("derived");
                let js = co_direct(&h, &v).expect("base premises only");
                assert_eq!(js, full, "{model} on {program:?}");
                direct[i] += usize::from(!js.is_empty());
                let mut checked = v.clone();
                checked.justifications = js;
                validate::violation_in(&h, &checked, None)
                    .unwrap_or_else(|e| panic!("{model}: {e} on {program:?}"));
            }
        }
        assert!(direct[0] > 50 && direct[1] > 0, "direct: {direct:?}");
    }

    /// Message passing whose flag reader writes `x` again: CCM orders
    /// `W(x,1)` before `W(x,2)` (`hb_WW`); the way back only when a read
    /// of `x` after one of `W(x,2)` returns `1`.
    #[test]
    fn pww_is_derived_by_its_rules_only() {
        let text = "t0: W(x,1) W(y,1)\nt1: R(y,1) W(x,2)\nt2: R(x,2) R(x,1)\n";
        let h = hist(text);
        let v = Violation::cycle(
            Pattern::CyclicPww,
            vec![
                step(&h, "t0:W(x,1)", Rel::Pww, "t1:W(x,2)"),
                step(&h, "t1:W(x,2)", Rel::Pww, "t0:W(x,1)"),
            ],
        );
        let js = justify(&h, &v, None).expect("derived");
        let rule = |a: &str, b: &str| {
            let (a, b) = (op(&h, a), op(&h, b));
            js.iter()
                .find(|j| (j.from, j.to, j.rel) == (a, b, Rel::Pww))
                .map(|j| j.rule)
        };
        assert_eq!(rule("t0:W(x,1)", "t1:W(x,2)"), Some(Rule::PwwHbWw));
        // back by CM's rule 2 for the observer R(x,1): `W(x,2) hb W(x,1)`
        assert_eq!(rule("t1:W(x,2)", "t0:W(x,1)"), Some(Rule::PwwHbWw));
        assert!(js.iter().any(|j| j.rule == Rule::HbRule2));
        validate::violation(&h, &v).expect("a CCM violation");
        // without the late read of `x`, the way back is not derived
        let h = hist("t0: W(x,1) W(y,1)\nt1: R(y,1) W(x,2)\nt2: R(x,2)\n");
        let v = Violation::cycle(
            Pattern::CyclicPww,
            vec![
                step(&h, "t0:W(x,1)", Rel::Pww, "t1:W(x,2)"),
                step(&h, "t1:W(x,2)", Rel::Pww, "t0:W(x,1)"),
            ],
        );
        let e = validate::violation(&h, &v).unwrap_err();
        assert!(e.contains("t1:W(x,2) -pww-> t0:W(x,1)"), "{e}");
    }

    /// The forced store order of SC on message passing with a stale read:
    /// `W(x,1)` before `W(x,2)` by `hb_WW`, and the stale read's `rw`.
    #[test]
    fn store_order_pairs_are_justified_with_their_graph() {
        let h = hist("t0: W(x,1) W(x,2)\nt1: R(x,2) R(x,1)\n");
        let forced = order(&h, Order::Forced(StoreModel::Sc));
        let (w1, w2) = (op(&h, "t0:W(x,1)"), op(&h, "t0:W(x,2)"));
        assert!(forced.contains(&(w1, w2)));
        assert!(forced.contains(&(w2, w1)), "R(x,2) po R(x,1) forces it too");
        let v = Violation::cycle(
            Pattern::CyclicSc,
            vec![
                step(&h, "t0:W(x,1)", Rel::St, "t0:W(x,2)"),
                step(&h, "t0:W(x,2)", Rel::St, "t0:W(x,1)"),
            ],
        );
        let js = justify(&h, &v, Some(StoreModel::Sc)).expect("derived");
        assert!(js.iter().all(|j| j.graph == Some(0) || j.graph.is_none()));
        let mut checked = v.clone();
        checked.justifications = js;
        check(&h, &checked, Some(StoreModel::Sc)).expect("valid");
        // PSO's uniprocessor graph keeps `po-loc`: the same pair
        let pso = order(&h, Order::Forced(StoreModel::Pso));
        assert!(pso.contains(&(w1, w2)));
    }

    /// A projection keeps operations, program order and reads-from; a
    /// sub-history that moved a read to another writer is not one.
    #[test]
    fn a_projection_is_checked() {
        let h = hist("t0: W(x,1) W(x,2)\nt1: R(x,2) R(x,1)\n");
        let identity: Vec<OpId> = (0..h.n()).collect();
        validate::projection(&h, &h, &identity).expect("the whole history");
        let other = hist("t0: W(x,1) W(x,2)\nt1: R(x,1) R(x,2)\n");
        let identity: Vec<OpId> = (0..other.n()).collect();
        assert!(validate::projection(&h, &other, &identity).is_err());
    }
}
