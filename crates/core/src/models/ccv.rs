//! CCv, causal convergence (causal-consistency-datalog §3.2, Tables 2–3).

use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::common::cf;
use crate::models::{answer, Halt};
use crate::relation::acyclic;

/// CCv (causal-consistency-datalog Lemma 2), [`decide`]d; `None` when
/// `cancel` is spent first.
pub fn check(h: &History, cancel: &Cancel) -> Option<Result<(), Violation>> {
    answer(decide(h, cancel))
}

/// CCv (causal-consistency-datalog Lemma 2): CC, and no CyclicCF: `cf ∪ co` acyclic, where
/// `cf = cf[co] = co_WR ; wr⁻¹` relates a write to the (distinct) write read by a read it
/// causally precedes.
fn decide(h: &History, cancel: &Cancel) -> Result<(), Halt> {
    let (wr, co) = cc::co(h, cancel)?;
    let cf = cf(h, &co, |r| h.rf(r));
    cancel.ask()?;
    acyclic(&[(Rel::Po, h.po()), (Rel::Wr, &wr), (Rel::Cf, &cf)])
        .map_err(|c| Violation::from_cycle(Pattern::CyclicCF, c))?;
    Ok(())
}
