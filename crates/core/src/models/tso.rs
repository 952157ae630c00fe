//! TSO (consistency-framework-2k §4.2, the SPARC/x86 store-buffer model): some
//! store order `ww` makes `po-loc ∪ wr ∪ ww ∪ rw` (uniprocessor) and
//! `ppo ∪ wre ∪ ww ∪ rw` acyclic, with RMW atomicity and `@final`.

use crate::cat::Definitions;
use crate::history::{History, OpId};
use crate::models::common::{preserved, relaxes, Kind, Relaxed};
use crate::models::{Model, Spec};
use crate::relation::BitMatrix;

/// The program-order pairs a store buffer reorders: (plain write, plain
/// read); an RMW is a load and a store, it drains the buffer.
pub const RELAXED: [Relaxed; 1] = [Relaxed {
    from: Kind::PlainW,
    to: Kind::PlainR,
    across: false,
}];

/// TSO's two acyclicity graphs as its definition states them
/// (crate::cat::defs; consistency-framework-2k §4.2, `po-tso = ppo`, `rf-tso = wre`).
pub fn spec(h: &History, defs: &Definitions) -> Spec {
    Spec::of_definition(h, defs.get(Model::Tso))
}

/// `ppo = (po \ RELAXED)⁺` (by hand, tested equal to the definition's) (consistency-framework-2k §4.2 `po-tso`; a fence or RMW between
/// a write and a read orders them).
pub fn ppo(h: &History) -> BitMatrix {
    preserved(h, &RELAXED)
}

/// Whether TSO relaxes the `po` pair `(a, b)` (consistency-framework-2k §4.2, pairwise).
pub fn relaxed(h: &History, a: OpId, b: OpId) -> bool {
    relaxes(h, &RELAXED, a, b)
}
