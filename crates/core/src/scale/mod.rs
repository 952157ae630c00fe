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
use crate::relation::chains::{Cursors, NONE};

/// A graph of sequences whose edges carry certificate labels.
pub type ChainGraph = crate::relation::chains::ChainGraph<Rel>;

/// A [`ChainGraph`]'s reachability as frontiers.
pub type Frontier = crate::relation::chains::Frontier<Rel>;

/// Per operation, the variable of a write, else [`NONE`]: the rules fire
/// at writes, and this small array answers for a frontier entry without
/// reading the operation itself.
pub(crate) fn write_vars(h: &History) -> Vec<u32> {
    (0..h.n())
        .map(|o| match (h.is_write(o), h.var(o)) {
            (true, Some(v)) => v as u32,
            _ => NONE,
        })
        .collect()
}

/// For each write `w` and each sequence `q` of `f`'s graph that holds
/// `w`'s variable `v`, the first position `p` of `q` that `w` reaches:
/// `each(w, v, q, p, cursors)`, with index cursors for the look-ups at `p`
/// (writes come in thread order, so each sequence's are stepped forward).
pub(crate) fn write_frontiers(
    h: &History,
    f: &Frontier,
    mut each: impl FnMut(u32, u32, u32, u32, &mut Cursors),
) {
    let g = f.graph();
    // per variable, its sequences and their slots, found once
    let seqs: Vec<Vec<(u32, usize)>> = (0..h.vars.len() as u32)
        .map(|v| {
            g.seqs_with(v)
                .into_iter()
                .map(|q| (q, g.slot_of(q)))
                .collect()
        })
        .collect();
    let mut cursors = g.cursors();
    for w in (0..h.n()).filter(|&w| h.is_write(w)) {
        let v = h.var(w).expect("writes have a variable") as u32;
        for &(q, slot) in &seqs[v as usize] {
            let p = f.frontier(w as u32, slot);
            if p != crate::relation::chains::NONE {
                each(w as u32, v, q, p, &mut cursors);
            }
        }
    }
}

/// The first write of `v` at or after position `p` of sequence `q`, other
/// than `w` itself: `(w, y) ∈ R_WW` for the `R` whose frontier `p` is.
pub(crate) fn first_other_write(
    g: &ChainGraph,
    w: u32,
    v: u32,
    q: u32,
    p: u32,
    c: &mut Cursors,
) -> Option<u32> {
    match g.first_write_near(q, v, p, c) {
        Some(y) if y == w => g.first_write_near(q, v, p + 1, c),
        y => y,
    }
}
