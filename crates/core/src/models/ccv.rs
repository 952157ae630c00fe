//! CCv, causal convergence: CC and no CyclicCF (causal-consistency-datalog Table 3).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::common::{acyclic, causal, cf};
use crate::relation::program::Lanes;

/// CCv: CC, and `cf ∪ co` acyclic, where `cf = co_WR ; wr⁻¹` relates a write
/// to the (distinct) write read by a read it causally precedes.
pub fn check(h: &History) -> Result<(), Violation> {
    cc::check(h)?;
    let wr = h.wr();
    let co = causal(h, &wr)?;
    let cf = cf(h, &co, |_, _| true);
    acyclic(
        Pattern::CyclicCF,
        &[(Rel::Po, h.po()), (Rel::Wr, &wr), (Rel::Cf, &cf)],
    )
}

/// CCv at scale: CC, then `co ∪ cf` acyclic with `cf` reduced to one edge
/// per read and sequence — from the last write there `co`-before the read
/// (earlier ones reach it along the sequence).
pub fn check_scaled(h: &History, lanes: &Lanes) -> Result<(), Violation> {
    let co = cc::check_scaled(h, lanes)?;
    let g = co.graph();
    let past = g.past().expect("acyclic: CC holds");
    let mut cf = Vec::new();
    for r in (0..h.n()).filter(|&r| h.is_read(r)) {
        let w1 = h.rf(r).expect("no thin air") as u32;
        let x = h.var(r).expect("reads have a variable") as u32;
        for &q in g.seqs_with_writes(x) {
            let last = past.last(r as u32, g.slot_of(q));
            if let Some(w) = last.and_then(|p| g.last_write_at(q, x, p)) {
                if w != w1 && !co.reaches(w, w1) {
                    cf.push((w, w1, Rel::Cf));
                }
            }
        }
    }
    let mut g = co.into_graph();
    g.add_edges(&cf);
    g.acyclic()
        .map_err(|c| Violation::from_edges(Pattern::CyclicCF, c))
}
