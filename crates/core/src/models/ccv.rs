//! CCv, causal convergence (causal-consistency-datalog §3.2, Tables 2–3).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::common::cf;
use crate::relation::acyclic;

/// CCv (causal-consistency-datalog Lemma 2): CC, and no CyclicCF: `cf ∪ co` acyclic, where
/// `cf = cf[co] = co_WR ; wr⁻¹` relates a write to the (distinct) write read by a read it
/// causally precedes.
pub fn check(h: &History) -> Result<(), Violation> {
    let (wr, co) = cc::co(h)?;
    let cf = cf(h, &co, |r| h.rf(r));
    acyclic(&[(Rel::Po, h.po()), (Rel::Wr, &wr), (Rel::Cf, &cf)])
        .map_err(|c| Violation::from_cycle(Pattern::CyclicCF, c))
}
