//! CC at scale (causal-consistency-datalog Table 3): `co` as frontiers of
//! `po ∪ wr` on lanes (docs/design/scale.md §5).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::common::no_thin_air;

use super::lanes::Lanes;
use super::{sc, Frontier};

/// CC at scale: `co` as frontiers of `po ∪ wr` on lanes.
/// For a read `r1` of `w1` and each sequence, the last write `w2` of the
/// variable there with `w2 co r1` is the only candidate: an earlier one
/// `co`-after `w1` would put `w1 co w2` too. That write is found on the
/// past frontiers of `co` (the last position of each sequence before `r1`).
pub fn check(h: &History, lanes: &Lanes) -> Result<Frontier, Violation> {
    let co = co(h, lanes)?;
    let g = co.graph();
    let past = g.past().expect("acyclic: the frontiers were built");
    for r1 in (0..h.n()).filter(|&r| h.is_read(r)) {
        let w1 = h.rf(r1).expect("no thin air") as u32;
        let x = h.var(r1).expect("reads have a variable") as u32;
        for &q in g.seqs_with_writes(x) {
            let Some(w2) = past
                .last(r1 as u32, g.slot_of(q))
                .and_then(|p| g.last_write_at(q, x, p))
            else {
                continue;
            };
            if w2 != w1 && co.reaches(w1, w2) {
                let pattern = if h.is_init(w1 as usize) {
                    Pattern::WriteCOInitRead
                } else {
                    Pattern::WriteCORead
                };
                let cycle = co.cycle_through(r1 as u32, w2, Rel::Rw).expect("w2 co r1");
                let mut v = Violation::from_edges(pattern, cycle);
                v.ops.push((w1 as usize, "r1 reads from w1, and w1 co w2"));
                return Err(v);
            }
        }
    }
    Ok(co)
}

/// CC's `co = (po ∪ wr)⁺` as frontiers, without the checks of its reads:
/// for a caller that knows CC holds (a proof of a stronger model's
/// violation grown on it). `Err`: thin air, or `co` cyclic (CyclicCO).
pub fn co(h: &History, lanes: &Lanes) -> Result<Frontier, Violation> {
    no_thin_air(h)?;
    Frontier::new(sc::graph(h, lanes)).map_err(|c| Violation::from_edges(Pattern::CyclicCO, c))
}
