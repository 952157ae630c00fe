//! CCM, convergent causal memory (gradual-consistency-checking §3.2).

use crate::budget::Cancel;
use crate::certificate::{Pattern::CyclicPww, Rel, Violation};
use crate::history::History;
use crate::models::common::{causal, cf, no_thin_air, rw, ww};
use crate::models::hbo::{hb, Causality};
use crate::models::{answer, Halt, StoreOrder};
use crate::relation::acyclic_explained;

/// CCM (gradual-consistency-checking §3.2), [`decide`]d; `None` when
/// `cancel` is spent first.
pub fn check(h: &History, cancel: &Cancel) -> Option<Result<StoreOrder, Violation>> {
    answer(decide(h, cancel))
}

/// CCM (gradual-consistency-checking §3.2): `po ∪ wr ∪ pww ∪ rw[pww]` acyclic, where
/// `pww = (hb_WW ∪ cf[hb])⁺` and `hb = (⋃_o hb_o)⁺`; its store order is `pww`.
fn decide(h: &History, cancel: &Cancel) -> Result<StoreOrder, Halt> {
    no_thin_air(h)?;
    let wr = h.wr();
    let co = causal(h, &wr, cancel)?;
    let (po, wr) = ((Rel::Po, h.po()), (Rel::Wr, &wr));
    let causality = Causality::new(&co, [po, wr], Rel::Pww, CyclicPww, CyclicPww);
    // hb_o only grows along po (causal-consistency-datalog Thm 2): the po-maximal o suffice
    let hb = hb(h, &causality, h.po_maximal(), cancel)?;
    let pww_gen = ww(h, &hb).union(&cf(h, &hb, |r| h.rf(r)));
    let pww = pww_gen.plus_any_until(cancel)?;
    let rw = rw(h, &pww);
    cancel.ask()?;
    acyclic_explained(
        &[po, wr, (Rel::Pww, &pww), (Rel::Rw, &rw)],
        &[po, wr, (Rel::Pww, &pww_gen), (Rel::Rw, &rw)],
    )
    .map_err(|c| Violation::from_cycle(CyclicPww, c))?;
    Ok(StoreOrder::project(h, &pww))
}
