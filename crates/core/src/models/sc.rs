//! SC, sequential consistency: some store order `ww` makes
//! `po ∪ wr ∪ ww ∪ rw` acyclic (gradual-consistency-checking §2), with RMW
//! atomicity and `@final` observations.

use crate::certificate::{Pattern, Rel};
use crate::history::History;
use crate::models::{Graph, Spec};

/// SC's one acyclicity graph (gradual-consistency-checking §2; consistency-framework-2k
/// §4.2: `po-sc = po`, `rf-sc = rf`, so `G_loc` is implied).
pub fn spec(h: &History) -> Spec {
    Spec {
        graphs: vec![Graph {
            pattern: Pattern::CyclicSc,
            fixed: vec![(Rel::Po, h.po().clone()), (Rel::Wr, h.wr())],
        }],
    }
}
