//! TSO's acyclicity graphs at scale (consistency-framework-2k §4.2): `G_loc`
//! and `ppo ∪ wre` on lanes cut into loads and plain stores.

use crate::certificate::{Pattern, Rel};
use crate::history::{History, OpId};
use crate::models::tso;

use super::lanes::{self, Lanes, Shape};
use super::ChainGraph;

/// The framework's `G_loc = po-loc ∪ wr` at scale: one family of sequences
/// per variable (TSO and PSO alike).
pub fn loc_graph(h: &History, lanes: &Lanes) -> ChainGraph {
    lanes::per_var_graph(
        h,
        lanes,
        &|o| h.var(o).map(|v| v as u32),
        Rel::PoLoc,
        Rel::Wr,
        &|_, _| true,
    )
}

/// TSO's two graphs at scale: `G_loc` (unless `loc` is false: see
/// [`lanes::loc_seeds`]), and `ppo ∪ wre` with each lane cut into loads
/// (everything but plain writes) and plain stores.
pub fn graphs(h: &History, lanes: &Lanes, loc: bool) -> Vec<(Pattern, ChainGraph)> {
    let store = |o: OpId| h.is_write(o) && h.ops[o].rmw.is_none();
    let mm = lanes::graph(
        h,
        lanes,
        &Shape {
            // a partial fence is no node: it orders nothing TSO relaxes
            class: &|o| (!h.is_partial_fence(o)).then(|| u32::from(store(o))),
            classes: 2,
            per_var: false,
            kept: &|a, b| !tso::relaxed(h, a, b),
            init_var_matters: false,
            po_rel: Rel::Ppo,
            wr_rel: Rel::Wre,
            wr_keep: &|w, r| !h.po_before(w, r) && !h.po_before(r, w),
        },
    );
    if !loc {
        return vec![(Pattern::CyclicTso, mm)];
    }
    vec![
        (Pattern::CyclicUniproc, loc_graph(h, lanes)),
        (Pattern::CyclicTso, mm),
    ]
}
