//! SC's graph at scale (gradual-consistency-checking §2): `po ∪ wr` on
//! lanes, also the graph of wSC, CC and CCv.

use crate::certificate::Rel;
use crate::history::History;

use super::lanes::{self, Lanes, Shape};
use super::ChainGraph;

/// SC's graph at scale, `po ∪ wr` on lanes (also wSC's, CC's and CCv's).
pub fn graph(h: &History, lanes: &Lanes) -> ChainGraph {
    lanes::graph(
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
