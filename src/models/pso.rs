//! PSO (consistency-framework-2k §4.2, SPARC PSO: a store buffer per thread and
//! variable): some store order `ww` makes `po-loc ∪ wr ∪ ww ∪ rw` and
//! `po-pso ∪ wre ∪ ww ∪ rw` acyclic, with RMW atomicity and `@final`.

use crate::certificate::{Pattern, Rel};
use crate::complete::Spec;
use crate::history::History;
use crate::models::tso::relax;
use crate::relation::BitMatrix;

/// PSO's two acyclicity graphs.
pub fn spec(h: &History) -> Spec {
    Spec::loc_mm(h, (Rel::PoPso, po_pso(h)), Pattern::CyclicPso)
}

/// `po-pso`: `po` without (plain write, plain read) and without (plain write,
/// write or RMW to another variable); an RMW drains only its own variable's
/// buffer; fences order everything (closure).
pub fn po_pso(h: &History) -> BitMatrix {
    relax(h, |a, b| {
        let plain_write = h.is_write(a) && h.ops[a].rmw.is_none();
        let plain_read = h.is_read(b) && h.ops[b].rmw.is_none();
        let other_store = (h.is_write(b) || h.ops[b].rmw.is_some()) && h.var(b) != h.var(a);
        plain_write && (plain_read || other_store)
    })
}
