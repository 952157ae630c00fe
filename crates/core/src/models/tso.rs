//! TSO (consistency-framework-2k §4.2, the SPARC/x86 store-buffer model): some
//! store order `ww` makes `po-loc ∪ wr ∪ ww ∪ rw` (uniprocessor) and
//! `ppo ∪ wre ∪ ww ∪ rw` acyclic, with RMW atomicity and `@final`.

use crate::certificate::{Pattern, Rel};
use crate::history::{History, OpId};
use crate::models::Spec;
use crate::relation::chains::ChainGraph;
use crate::relation::program::{self, Lanes, Shape};
use crate::relation::{into_transitive_closure, BitMatrix};

/// TSO's two acyclicity graphs.
pub fn spec(h: &History) -> Spec {
    Spec::loc_mm(h, (Rel::Ppo, ppo(h)), Pattern::CyclicTso)
}

/// `ppo`: `po` without the pairs (plain write, plain read) a store buffer
/// reorders; an RMW is a load and a store (it drains the buffer), and the
/// closure orders a write before a read through a fence.
pub fn ppo(h: &History) -> BitMatrix {
    let plain_reads = plain_reads(h);
    relax(h, |a, row| {
        if h.is_write(a) && h.ops[a].rmw.is_none() {
            for (d, &r) in row.iter_mut().zip(&plain_reads) {
                *d &= !r;
            }
        }
    })
}

/// The reads that are not an RMW's, as a bit row over op ids.
pub(crate) fn plain_reads(h: &History) -> Vec<u64> {
    let mut out = vec![0u64; h.n().div_ceil(64)];
    for o in (0..h.n()).filter(|&o| h.is_read(o) && h.ops[o].rmw.is_none()) {
        out[o / 64] |= 1 << (o % 64);
    }
    out
}

/// `true` for (plain write, plain read).
fn plain(h: &History, a: OpId, b: OpId) -> bool {
    h.is_write(a) && h.ops[a].rmw.is_none() && h.is_read(b) && h.ops[b].rmw.is_none()
}

/// `(po \ {(a, b) | b relaxed from a})⁺`, where `relax_row(a, row)` clears
/// from `a`'s `po` row the operations it relaxes.
pub(crate) fn relax(h: &History, relax_row: impl Fn(OpId, &mut [u64])) -> BitMatrix {
    let mut kept = h.po().clone();
    for a in 0..h.n() {
        relax_row(a, kept.row_mut(a));
    }
    into_transitive_closure(kept).expect("po is acyclic")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::transitive_closure;
    use memconform_parsers::hist::RawOpKind;

    /// `(po \ {(a, b) | relaxed(a, b)})⁺` pair by pair.
    fn relax_pairwise(h: &History, relaxed: impl Fn(OpId, OpId) -> bool) -> BitMatrix {
        let mut kept = h.po().clone();
        for (a, b) in h.po().pairs() {
            if relaxed(a, b) {
                kept.unset(a, b);
            }
        }
        transitive_closure(&kept).expect("po is acyclic")
    }

    #[test]
    fn ppo_and_po_pso_by_rows_are_the_pairwise_relaxations() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..60 {
            let threads = 1 + round % 4;
            let ops = 2 + round % 30;
            let mut next = 1u64;
            let program: Vec<Vec<RawOpKind>> = (0..threads)
                .map(|_| {
                    (0..ops)
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            let var = format!("x{}", seed % 3);
                            next += 1;
                            match (seed >> 8) % 5 {
                                0 | 1 => RawOpKind::Write { var, value: next },
                                2 => RawOpKind::Read { var, value: 0 },
                                3 => RawOpKind::Rmw {
                                    var,
                                    old: 0,
                                    new: next,
                                },
                                _ => RawOpKind::Fence,
                            }
                        })
                        .collect()
                })
                .collect();
            let h = History::from_threads(&program).unwrap();
            assert_eq!(ppo(&h), relax_pairwise(&h, |a, b| plain(&h, a, b)));
            assert_eq!(
                crate::models::pso::po_pso(&h),
                relax_pairwise(&h, |a, b| {
                    let plain_write = h.is_write(a) && h.ops[a].rmw.is_none();
                    let plain_read = h.is_read(b) && h.ops[b].rmw.is_none();
                    let other_store =
                        (h.is_write(b) || h.ops[b].rmw.is_some()) && h.var(b) != h.var(a);
                    plain_write && (plain_read || other_store)
                })
            );
        }
    }
}
