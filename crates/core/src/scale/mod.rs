//! The polynomial models and the store-order models' graphs for large
//! histories, beside their definitions in [`crate::models`]: the same
//! relations on a sparse representation (docs/design/scale.md §4–5) — each thread's
//! operations on *lanes* ([`lanes`]), a few generating edges per operation,
//! and `succ` frontiers ([`crate::relation::chains`]) for reachability.
//! [`crate::check::scale`] chooses between these and the dense definitions
//! by the history's size; `tests/scale.rs` keeps them equal (verdicts,
//! certificates, counted store orders).

pub mod cc;
pub mod ccm;
pub mod ccv;
pub mod cm;
pub(crate) mod hbo;
pub mod lanes;
pub mod pso;
pub mod sc;
pub mod store_order;
pub mod tso;
pub mod wccm;

use crate::certificate::Rel;
use crate::history::History;

/// A graph of sequences whose edges carry certificate labels.
pub type ChainGraph = crate::relation::chains::ChainGraph<Rel>;

/// A [`ChainGraph`]'s reachability as frontiers.
pub type Frontier = crate::relation::chains::Frontier<Rel>;

/// For each write `w` and each sequence `q` of `f`'s graph that holds
/// `w`'s variable `v`, the first position `p` of `q` that `w` reaches:
/// `each(w, v, q, p)`.
pub(crate) fn write_frontiers(h: &History, f: &Frontier, mut each: impl FnMut(u32, u32, u32, u32)) {
    let g = f.graph();
    for w in (0..h.n()).filter(|&w| h.is_write(w)) {
        let v = h.var(w).expect("writes have a variable") as u32;
        for q in g.seqs_with(v) {
            let p = f.frontier(w as u32, g.slot_of(q));
            if p != crate::relation::chains::NONE {
                each(w as u32, v, q, p);
            }
        }
    }
}

/// The first write of `v` at or after position `p` of sequence `q`, other
/// than `w` itself: `(w, y) ∈ R_WW` for the `R` whose frontier `p` is.
pub(crate) fn first_other_write(g: &ChainGraph, w: u32, v: u32, q: u32, p: u32) -> Option<u32> {
    match g.first_write(q, v, p) {
        Some(y) if y == w => g.first_write(q, v, p + 1),
        y => y,
    }
}
