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
//! `obs` uses only the external parts of `co` and `fr`, yet given internal
//! visibility `ob` is acyclic exactly when the framework's graph with all of
//! them, `bob ∪ aob ∪ rfe ∪ ww ∪ rw`, is (docs/design/weak.md §3: an
//! internal `co` or `fr` edge composes with the edge before it on a cycle —
//! a fence, an acquire or `po; [L]` (with `po; [L]; coi`) orders that edge's
//! source before its target too, `rfe`, `coe`, `fre` compose into `coe`,
//! `fre`, and an RMW's `aob` is entered by one of those). So ARMv8 is two
//! acyclicity graphs over a store order, consistency-framework-2k's
//! `G_loc` (internal visibility) and `G_mm = (bob ∪ aob) ∪ rfe ∪ ww ∪ rw`,
//! decided like PSO by saturation and any completion engine; `po; [L]; coi`
//! is then the path `po; [L]` then `ww`. The brute force (tests/brute/weak.rs)
//! checks the cat file's `ob` as written, and the validator checks a
//! witness against it too.

use crate::cat::Definitions;
use crate::certificate::{Pattern, Rel};
use crate::history::{History, OpKind};
use crate::models::common;
use crate::models::{Graph, Spec};
use crate::relation::BitMatrix;

/// ARMv8's two acyclicity graphs: internal visibility, the framework's
/// uniprocessor graph `po-loc ∪ rf ∪ co ∪ fr` (aarch64.cat `internal`), and
/// `bob ∪ aob ∪ rfe ∪ co ∪ fr`, acyclic exactly when `ob` is (module doc).
pub fn spec(h: &History, _: &Definitions) -> Spec {
    let f = Fixed::of(h);
    Spec {
        graphs: vec![
            Graph {
                pattern: Pattern::CyclicUniproc,
                fixed: vec![(Rel::PoLoc, common::po_loc(h)), (Rel::Wr, h.wr())],
            },
            Graph {
                pattern: Pattern::CyclicOb,
                fixed: vec![(Rel::Bob, f.bob), (Rel::Aob, f.aob), (Rel::Wre, f.rfe)],
            },
        ],
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
