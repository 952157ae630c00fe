//! SC, sequential consistency: some store order `ww` makes
//! `po ∪ wr ∪ ww ∪ rw` acyclic (gradual-consistency-checking §2), with RMW
//! atomicity and `@final` observations.

use crate::certificate::{Pattern, Rel};
use crate::history::History;
use crate::models::{Graph, Spec};
use crate::relation::chains::ChainGraph;
use crate::relation::program::{self, Lanes, Shape};

/// SC's single acyclicity graph.
pub fn spec(h: &History) -> Spec {
    Spec {
        graphs: vec![Graph {
            pattern: Pattern::CyclicSc,
            fixed: vec![(Rel::Po, h.po().clone()), (Rel::Wr, h.wr())],
        }],
    }
}

/// SC's graph at scale, `po ∪ wr` on lanes (also wSC's, CC's and CCv's).
pub fn graph(h: &History, lanes: &Lanes) -> ChainGraph {
    program::graph(
        h,
        lanes,
        &Shape {
            class: &|_| Some(0),
            classes: 1,
            per_var: false,
            kept: &|_, _| true,
            init_var_matters: false,
            po_rel: Rel::Po,
            wr_rel: Rel::Wr,
            wr_keep: &|_, _| true,
        },
    )
}
