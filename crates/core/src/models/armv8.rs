//! ARMv8 without dependencies (herd7's `aarch64.cat`, the ARMv8 ARM B2.3
//! model, with `dob` empty): other-multi-copy-atomic.
//!
//! ```text
//! acyclic po-loc | rf | fr | co                     (* internal *)
//! let obs = rfe | fre | coe
//! let aob = rmw | rmw; rfi
//! let bob = po; [dmb.full]; po | [L]; po; [A] | [R]; po; [dmb.ld]; po
//!         | [A | Q]; po | [W]; po; [dmb.st]; po; [W] | po; [L] | po; [L]; coi
//! acyclic (obs | aob | bob)                         (* external *)
//! empty rmw & (fre; coe)                            (* atomic *)
//! ```
//!
//! `dob` (address, data and control dependencies) needs edges a history
//! does not have; left empty, the model is **weaker than ARMv8**: every
//! violation it reports is a real ARMv8 violation, but a `consistent` can
//! hide a violation that only a dependency forbids (LB with data
//! dependencies, MP with an address dependency on the reader).
//!
//! `obs` uses only the external parts of `co` and `fr`, so the external
//! axiom is no acyclicity graph over a guessed store order in the sense of
//! consistency-framework-2k (its `G_mm` adds all of `ww` and `rw`). It is
//! checked as: saturate `G_loc` (internal visibility, RMW atomicity,
//! `@final`), then guess the remaining store-order pairs depth first, each
//! guess re-saturated, and prune as soon as `ob` over the pairs known so far
//! is cyclic (`ob` only grows with `co`). Worst case the number of store
//! orders `G_loc` leaves — up to `∏ₓ kₓ!` for `kₓ` writes of `x` — times an
//! `O(n²)` acyclicity test; there is no `2^k` dynamic programming here.
//! `po; [L]; coi` enters `ob` as `L -co-> w` for a release `L` and a later
//! write `w` of its thread: whatever reaches `L` in `ob` reaches `w` then
//! (by `po; [L]; coi`, or `coe`/`fre` composed with `coi`), so `ob`'s cycles
//! are the same.

use crate::certificate::{Pattern, Rel};
use crate::history::{History, OpId, OpKind};
use crate::models::common;
use crate::models::{Graph, Spec};
use crate::relation::{topological_order, BitMatrix};

/// The internal visibility requirement as the framework's uniprocessor
/// graph, `po-loc ∪ rf ∪ co ∪ fr` (aarch64.cat `internal`).
pub fn spec(h: &History) -> Spec {
    Spec {
        graphs: vec![Graph {
            pattern: Pattern::CyclicUniproc,
            fixed: vec![(Rel::PoLoc, common::po_loc(h)), (Rel::Wr, h.wr())],
        }],
    }
}

/// The parts of `ob` that need no store order: `bob`, `aob`, `rfe`.
pub struct Fixed {
    pub bob: BitMatrix,
    pub aob: BitMatrix,
    pub rfe: BitMatrix,
}

impl Fixed {
    /// `bob`, `aob` and `rfe` of `h`.
    pub fn of(h: &History) -> Fixed {
        let wr = h.wr();
        Fixed {
            bob: bob(h),
            aob: aob(h),
            rfe: common::wre(h, &wr),
        }
    }
}

/// `bob` (aarch64.cat, barrier-ordered-before, without `po; [L]; coi`): for
/// accesses `a po b` of one thread, a full fence between them; `[L]; po;
/// [A]`; `[R]; po; [dmb.ld]; po`; `[A | Q]; po`; `[W]; po; [dmb.st]; po;
/// [W]`; `po; [L]`.
pub fn bob(h: &History) -> BitMatrix {
    let mut out = common::fenced(h);
    for t in &h.threads {
        for a in t.ops.clone().filter(|&a| h.var(a).is_some()) {
            for b in t.ops.clone().filter(|&b| h.var(b).is_some()) {
                if !h.po_before(a, b) {
                    continue;
                }
                let acq_after_rel = h.is_release(a) && h.is_acquire(b);
                let after_acq = h.is_acquire(a) || h.is_acquire_pc(a);
                if acq_after_rel || after_acq || h.is_release(b) {
                    out.set(a, b);
                }
            }
        }
    }
    out
}

/// `aob = rmw | rmw; rfi` (aarch64.cat, atomic-ordered-before): an RMW's
/// read half before its write half, and before a read of its own thread
/// that reads that write.
pub fn aob(h: &History) -> BitMatrix {
    let mut out = BitMatrix::new(h.n());
    for r in 0..h.n() {
        if let (OpKind::Read, Some(w)) = (h.ops[r].kind, h.ops[r].rmw) {
            out.set(r, w);
            for &r2 in h.readers(w) {
                if h.thread_of(r2) == h.thread_of(w) {
                    out.set(r, r2);
                }
            }
        }
    }
    out
}

/// The store-order parts of `ob` for the pairs `ordered` knows: `coe` (and
/// `L -co-> w` within a thread, see the module doc) and `fre`.
fn store_parts(h: &History, ordered: impl Fn(OpId, OpId) -> bool) -> (BitMatrix, BitMatrix) {
    let mut co = BitMatrix::new(h.n());
    let mut fr = BitMatrix::new(h.n());
    for x in 0..h.vars.len() {
        let ws = h.writes_of(x);
        for &a in ws {
            for &b in ws {
                if a == b || !ordered(a, b) {
                    continue;
                }
                if h.thread_of(a) != h.thread_of(b) || h.is_release(a) {
                    co.set(a, b);
                }
                for &r in h.readers(a) {
                    if h.thread_of(r) != h.thread_of(b) {
                        fr.set(r, b);
                    }
                }
            }
        }
    }
    (co, fr)
}

/// `ob`'s relations, labelled, for the store-order pairs `ordered` knows.
pub fn ob_parts(
    h: &History,
    fixed: &Fixed,
    ordered: impl Fn(OpId, OpId) -> bool,
) -> [(Rel, BitMatrix); 5] {
    let (co, fr) = store_parts(h, ordered);
    [
        (Rel::Bob, fixed.bob.clone()),
        (Rel::Aob, fixed.aob.clone()),
        (Rel::Wre, fixed.rfe.clone()),
        (Rel::St, co),
        (Rel::Rw, fr),
    ]
}

/// Whether `ob` over the store-order pairs `ordered` knows is acyclic.
pub fn ob_acyclic(h: &History, fixed: &Fixed, ordered: impl Fn(OpId, OpId) -> bool) -> bool {
    let (co, fr) = store_parts(h, ordered);
    let mut all = fixed.bob.clone();
    all.union_with(&fixed.aob);
    all.union_with(&fixed.rfe);
    all.union_with(&co);
    all.union_with(&fr);
    topological_order(&all).is_ok()
}
