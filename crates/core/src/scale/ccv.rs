//! CCv at scale (causal-consistency-datalog Table 3): CC's frontiers, then
//! `co ∪ cf` acyclic on a sparse graph.

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;

use super::cc;
use super::lanes::Lanes;

/// CCv at scale: CC, then `co ∪ cf` acyclic with `cf` reduced to one edge
/// per read and sequence — from the last write there `co`-before the read
/// (earlier ones reach it along the sequence).
pub fn check(h: &History, lanes: &Lanes) -> Result<(), Violation> {
    let co = cc::check(h, lanes)?;
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
