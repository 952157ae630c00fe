//! RMO (consistency-framework-2k §4.2, SPARC RMO): some store order `ww`
//! makes `po-loc_llh ∪ wr ∪ ww ∪ rw` (the uniprocessor graph without
//! read-read pairs: RMO allows load-load hazards) and `po-rmo ∪ wre ∪ ww ∪ rw`
//! acyclic, with RMW atomicity and `@final`.
//!
//! The paper's `po-rmo` is its dependency relation `dp`; a history has no
//! dependencies, so here `po-rmo` is what fences order: RMO relaxes every
//! program-order pair (W→R, W→W, R→R, R→W, on any variables — the
//! [`Relaxed`] table of TSO and PSO with all four rows), and a fence puts
//! back the pairs its kind orders (`F` all, `F.ld` a read before anything,
//! `F.st` a write before a write). With `dp = ∅` the paper's out-of-thin-air
//! test `acyclic(dp ∪ rf)` holds on every history. An RMW is ordered with
//! nothing of another variable; acquire and release annotations are ARMv8's
//! and mean nothing to RMO.

use crate::cat::Definitions;
use crate::history::History;
use crate::models::common::{self, Kind, Relaxed};
use crate::models::Spec;
use crate::relation::BitMatrix;

/// Every program-order pair of accesses (consistency-framework-2k §4.2:
/// `po-rmo = dp`, here empty): only fences order.
pub const RELAXED: [Relaxed; 4] = [
    Relaxed {
        from: Kind::W,
        to: Kind::R,
        across: false,
    },
    Relaxed {
        from: Kind::W,
        to: Kind::W,
        across: false,
    },
    Relaxed {
        from: Kind::R,
        to: Kind::R,
        across: false,
    },
    Relaxed {
        from: Kind::R,
        to: Kind::W,
        across: false,
    },
];

/// RMO's two acyclicity graphs as its definition states them
/// (crate::cat::defs; consistency-framework-2k §4.2: `G_loc-llh` and `G_mm`
/// with `po-rmo`, `rf-rmo = wre`).
pub fn spec(h: &History, defs: &Definitions) -> Spec {
    Spec::of_definition(h, defs.get(crate::models::Model::Rmo))
}

/// `po-loc_llh = po-loc \ (R × R)` (consistency-framework-2k §4.2, load-load
/// hazards; by hand, tested equal to the definition's).
pub fn po_loc_llh(h: &History) -> BitMatrix {
    let r = Kind::R.set(h);
    common::po_loc(h).minus_product(&r, &r)
}

/// `po-rmo`: the pairs a fence orders, `a po f po b` with `f` ordering
/// `a`'s kind before `b`'s (consistency-framework-2k §4.2 `po-rmo = dp`
/// with `dp = ∅`, plus fences; [`RELAXED`] drops every other pair).
pub fn po_rmo(h: &History) -> BitMatrix {
    common::fenced(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::common::preserved;

    /// With full fences only, `po-rmo` is the `Relaxed` table with all four
    /// rows: `(po \ RELAXED)⁺` between accesses of a thread (the table
    /// alone cannot say what a partial fence orders).
    #[test]
    fn with_full_fences_po_rmo_is_the_relaxed_table() {
        let mut rng = crate::gen::Rng::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..60 {
            let (threads, ops) = (1 + round % 3, 2 + round % 12);
            let program = crate::models::common::random_program(&mut rng, threads, ops, 0);
            let h = History::from_threads(&program).unwrap();
            let table = preserved(&h, &RELAXED);
            let fenced = po_rmo(&h);
            for a in (0..h.n()).filter(|&a| h.thread_of(a).is_some() && h.var(a).is_some()) {
                for b in (0..h.n()).filter(|&b| h.var(b).is_some()) {
                    assert_eq!(table.get(a, b), fenced.get(a, b), "{a} {b}");
                }
            }
        }
    }
}
