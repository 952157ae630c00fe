//! TSO (consistency-framework-2k §4.2, the SPARC/x86 store-buffer model): some
//! store order `ww` makes `po-loc ∪ wr ∪ ww ∪ rw` (uniprocessor) and
//! `ppo ∪ wre ∪ ww ∪ rw` acyclic, with RMW atomicity and `@final`.

use crate::certificate::{Pattern, Rel};
use crate::complete::Spec;
use crate::history::{History, OpId};
use crate::relation::chains::ChainGraph;
use crate::relation::program::{self, Lanes, Shape};
use crate::relation::{transitive_closure, BitMatrix};

/// TSO's two acyclicity graphs.
pub fn spec(h: &History) -> Spec {
    Spec::loc_mm(h, (Rel::Ppo, ppo(h)), Pattern::CyclicTso)
}

/// `ppo`: `po` without the pairs (plain write, plain read) a store buffer
/// reorders; an RMW is a load and a store (it drains the buffer), and the
/// closure orders a write before a read through a fence.
pub fn ppo(h: &History) -> BitMatrix {
    relax(h, |a, b| plain(h, a, b))
}

/// `true` for (plain write, plain read).
fn plain(h: &History, a: OpId, b: OpId) -> bool {
    h.is_write(a) && h.ops[a].rmw.is_none() && h.is_read(b) && h.ops[b].rmw.is_none()
}

/// `(po \ {(a, b) | relaxed(a, b)})⁺`.
pub(crate) fn relax(h: &History, relaxed: impl Fn(OpId, OpId) -> bool) -> BitMatrix {
    let mut kept = h.po().clone();
    for a in 0..h.n() {
        for b in h.po().succ(a) {
            if relaxed(a, b) {
                kept.unset(a, b);
            }
        }
    }
    transitive_closure(&kept).expect("po is acyclic")
}

/// The framework's `G_loc = po-loc ∪ wr` at scale: one family of sequences
/// per variable (TSO and PSO alike).
pub fn loc_graph(h: &History, lanes: &Lanes) -> ChainGraph {
    program::per_var_graph(
        h,
        lanes,
        &|o| h.var(o).map(|v| v as u32),
        Rel::PoLoc,
        Rel::Wr,
        &|_, _| true,
    )
}

/// TSO's two graphs at scale: `G_loc`, and `ppo ∪ wre` with each lane cut
/// into loads (everything but plain writes) and plain stores.
pub fn graphs(h: &History, lanes: &Lanes) -> Vec<(Pattern, ChainGraph)> {
    let store = |o: OpId| h.is_write(o) && h.ops[o].rmw.is_none();
    let mm = program::graph(
        h,
        lanes,
        &Shape {
            class: &|o| Some(u32::from(store(o))),
            classes: 2,
            per_var: false,
            kept: &|a, b| !plain(h, a, b),
            init_var_matters: false,
            po_rel: Rel::Ppo,
            wr_rel: Rel::Wre,
            wr_keep: &|w, r| !h.po_before(w, r) && !h.po_before(r, w),
        },
    );
    vec![
        (Pattern::CyclicUniproc, loc_graph(h, lanes)),
        (Pattern::CyclicTso, mm),
    ]
}
