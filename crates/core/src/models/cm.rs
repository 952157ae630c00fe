//! CM, causal memory (causal-consistency-datalog §3.2 Def. 4, §4).

use crate::certificate::Pattern::{CyclicHB, WriteHBInitRead};
use crate::certificate::{Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::hbo::{local_hb, Causality};

/// CM (causal-consistency-datalog Lemma 3): CC, and no CyclicHB (some `hb_o` cyclic) or
/// WriteHBInitRead (a write `hb_o`-before a read `r po* o` of the initial value); `hb_o`
/// only grows along `po` (Lemma 4, Thm 2), so the po-maximal `o` suffice.
pub fn check(h: &History) -> Result<(), Violation> {
    let (wr, co) = cc::co(h)?;
    let gens = [(Rel::Po, h.po()), (Rel::Wr, &wr)];
    let causality = Causality::new(&co, gens, Rel::HbO, CyclicHB, WriteHBInitRead);
    for o in h.po_maximal() {
        local_hb(h, &causality, o)?;
    }
    Ok(())
}
