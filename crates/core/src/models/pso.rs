//! PSO (consistency-framework-2k §4.2, SPARC PSO: a store buffer per thread and
//! variable): some store order `ww` makes `po-loc ∪ wr ∪ ww ∪ rw` and
//! `po-pso ∪ wre ∪ ww ∪ rw` acyclic, with RMW atomicity and `@final`.

use crate::cat::Definitions;
use crate::history::{History, OpId};
use crate::models::common::{preserved, relaxes, Kind, Relaxed};
use crate::models::{Model, Spec};
use crate::relation::BitMatrix;

/// The program-order pairs per-variable store buffers reorder: (plain write,
/// plain read), and (plain write, store to another variable) — an RMW drains
/// only its own variable's buffer.
pub const RELAXED: [Relaxed; 2] = [
    Relaxed {
        from: Kind::PlainW,
        to: Kind::PlainR,
        across: false,
    },
    Relaxed {
        from: Kind::PlainW,
        to: Kind::Store,
        across: true,
    },
];

/// PSO's two acyclicity graphs as its definition states them
/// (crate::cat::defs; consistency-framework-2k §4.2, `rf-pso = wre`).
pub fn spec(h: &History, defs: &Definitions) -> Spec {
    Spec::of_definition(h, defs.get(Model::Pso))
}

/// `po-pso = (po \ RELAXED)⁺` (by hand, tested equal to the definition's) (consistency-framework-2k §4.2; fences order everything).
pub fn po_pso(h: &History) -> BitMatrix {
    preserved(h, &RELAXED)
}

/// Whether PSO relaxes the `po` pair `(a, b)` (consistency-framework-2k §4.2, pairwise).
pub fn relaxed(h: &History, a: OpId, b: OpId) -> bool {
    relaxes(h, &RELAXED, a, b)
}
