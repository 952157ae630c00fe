//! PSO's acyclicity graphs at scale (consistency-framework-2k §4.2): `G_loc`
//! and `po-pso ∪ wre` on lanes cut into loads and a store sub-chain per
//! variable.

use crate::certificate::{Pattern, Rel};
use crate::history::{History, OpId};
use crate::models::pso;

use super::lanes::{self, Lanes, Shape};
use super::{tso, ChainGraph};

/// PSO's two graphs at scale: `G_loc` (unless `loc` is false: see
/// [`lanes::loc_seeds`]), and `po-pso ∪ wre` with each lane
/// cut into loads (everything but plain writes) and one store sub-chain per
/// variable. 2 or 4 bytes ([`lanes::entry_bytes`]) per operation, lane and
/// variable: for moderate sizes.
pub fn graphs(h: &History, lanes: &Lanes, loc: bool) -> Vec<(Pattern, ChainGraph)> {
    let class = |o: OpId| -> Option<u32> {
        if h.is_partial_fence(o) {
            return None; // no node: orders nothing PSO sees
        }
        let store = h.is_write(o) && h.ops[o].rmw.is_none();
        Some(if store {
            1 + h.var(o).expect("writes have a variable") as u32
        } else {
            0
        })
    };
    let mm = lanes::graph(
        h,
        lanes,
        &Shape {
            class: &class,
            classes: 1 + h.vars.len() as u32,
            per_var: false,
            kept: &|a, b| !pso::relaxed(h, a, b),
            init_var_matters: true,
            po_rel: Rel::PoPso,
            wr_rel: Rel::Wre,
            wr_keep: &|w, r| !h.po_before(w, r) && !h.po_before(r, w),
        },
    );
    if !loc {
        return vec![(Pattern::CyclicPso, mm)];
    }
    vec![
        (Pattern::CyclicUniproc, tso::loc_graph(h, lanes)),
        (Pattern::CyclicPso, mm),
    ]
}

/// Bytes of PSO's own graphs at scale (frontiers of both).
pub fn sparse_bytes(h: &History, lanes: &Lanes) -> u64 {
    let l = lanes.lanes.len() as u64;
    let stored = (0..h.vars.len())
        .filter(|&x| h.writes_of(x).len() > 1)
        .count() as u64;
    let entry = lanes::entry_bytes(lanes);
    h.n() as u64 * (entry * (l + l * (1 + stored)) + 64)
}
