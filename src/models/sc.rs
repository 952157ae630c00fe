//! SC, sequential consistency: some store order `ww` makes
//! `po ∪ wr ∪ ww ∪ rw` acyclic (gradual-consistency-checking §2), with RMW
//! atomicity and `@final` observations.

use crate::certificate::{Pattern, Rel};
use crate::complete::{Graph, Spec};
use crate::history::History;

/// SC's single acyclicity graph.
pub fn spec(h: &History) -> Spec {
    Spec {
        graphs: vec![Graph {
            pattern: Pattern::CyclicSc,
            fixed: vec![(Rel::Po, h.po().clone()), (Rel::Wr, h.wr())],
        }],
    }
}
