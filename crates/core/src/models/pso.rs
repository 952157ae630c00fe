//! PSO (consistency-framework-2k §4.2, SPARC PSO: a store buffer per thread and
//! variable): some store order `ww` makes `po-loc ∪ wr ∪ ww ∪ rw` and
//! `po-pso ∪ wre ∪ ww ∪ rw` acyclic, with RMW atomicity and `@final`.

use crate::certificate::{Pattern, Rel};
use crate::history::History;
use crate::history::OpId;
use crate::models::tso::{loc_graph, plain_reads, relax};
use crate::models::Spec;
use crate::relation::chains::ChainGraph;
use crate::relation::program::{self, Lanes, Shape};
use crate::relation::BitMatrix;

/// PSO's two acyclicity graphs.
pub fn spec(h: &History) -> Spec {
    Spec::loc_mm(h, (Rel::PoPso, po_pso(h)), Pattern::CyclicPso)
}

/// `po-pso`: `po` without (plain write, plain read) and without (plain write,
/// write or RMW to another variable); an RMW drains only its own variable's
/// buffer; fences order everything (closure).
pub fn po_pso(h: &History) -> BitMatrix {
    let plain_reads = plain_reads(h);
    // writes and RMW halves
    let mut stores = vec![0u64; plain_reads.len()];
    for o in (0..h.n()).filter(|&o| h.is_write(o) || h.ops[o].rmw.is_some()) {
        stores[o / 64] |= 1 << (o % 64);
    }
    relax(h, |a, row| {
        if let (true, None, Some(x)) = (h.is_write(a), h.ops[a].rmw, h.var(a)) {
            let (reads, writes) = (h.reads_mask(x), h.writes_mask(x));
            for (i, d) in row.iter_mut().enumerate() {
                let other_stores = stores[i] & !(reads[i] | writes[i]);
                *d &= !(plain_reads[i] | other_stores);
            }
        }
    })
}

/// The `po` pairs PSO relaxes: (plain write, plain read) and (plain write,
/// write or RMW to another variable).
fn relaxed(h: &History, a: OpId, b: OpId) -> bool {
    let plain_write = h.is_write(a) && h.ops[a].rmw.is_none();
    let plain_read = h.is_read(b) && h.ops[b].rmw.is_none();
    let other_store = (h.is_write(b) || h.ops[b].rmw.is_some()) && h.var(b) != h.var(a);
    plain_write && (plain_read || other_store)
}

/// PSO's two graphs at scale: `G_loc`, and `po-pso ∪ wre` with each lane
/// cut into loads (everything but plain writes) and one store sub-chain per
/// variable. `4·n` bytes per lane and variable: for moderate sizes.
pub fn graphs(h: &History, lanes: &Lanes) -> Vec<(Pattern, ChainGraph)> {
    let class = |o: OpId| -> Option<u32> {
        let store = h.is_write(o) && h.ops[o].rmw.is_none();
        Some(if store {
            1 + h.var(o).expect("writes have a variable") as u32
        } else {
            0
        })
    };
    let mm = program::graph(
        h,
        lanes,
        &Shape {
            class: &class,
            classes: 1 + h.vars.len() as u32,
            per_var: false,
            kept: &|a, b| !relaxed(h, a, b),
            init_var_matters: true,
            po_rel: Rel::PoPso,
            wr_rel: Rel::Wre,
            wr_keep: &|w, r| !h.po_before(w, r) && !h.po_before(r, w),
        },
    );
    vec![
        (Pattern::CyclicUniproc, loc_graph(h, lanes)),
        (Pattern::CyclicPso, mm),
    ]
}

/// Bytes of PSO's own graphs at scale (frontiers of both).
pub fn sparse_bytes(h: &History, lanes: &Lanes) -> u64 {
    let l = lanes.lanes.len() as u64;
    let stored = (0..h.vars.len())
        .filter(|&x| h.writes_of(x).len() > 1)
        .count() as u64;
    h.n() as u64 * (4 * (l + l * (1 + stored)) + 64)
}
