//! CM, causal memory (causal-consistency-datalog §3.2 Def. 4, §4).

use crate::budget::Cancel;
use crate::certificate::Pattern::{CyclicHB, WriteHBInitRead};
use crate::certificate::{Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::hbo::{local_hb, Causality};
use crate::models::{answer, Halt};

/// CM (causal-consistency-datalog Lemma 3), [`decide`]d; `None` when
/// `cancel` is spent first.
pub fn check(h: &History, cancel: &Cancel) -> Option<Result<(), Violation>> {
    answer(decide(h, cancel))
}

/// CM (causal-consistency-datalog Lemma 3): CC, and no CyclicHB (some `hb_o` cyclic) or
/// WriteHBInitRead (a write `hb_o`-before a read `r po* o` of the initial value); `hb_o`
/// only grows along `po` (Lemma 4, Thm 2), so the po-maximal `o` suffice.
fn decide(h: &History, cancel: &Cancel) -> Result<(), Halt> {
    let (wr, co) = cc::co(h, cancel)?;
    let gens = [(Rel::Po, h.po()), (Rel::Wr, &wr)];
    let causality = Causality::new(&co, gens, Rel::HbO, CyclicHB, WriteHBInitRead);
    for o in h.po_maximal() {
        local_hb(h, &causality, o, cancel)?;
    }
    Ok(())
}
