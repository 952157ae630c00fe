//! CM, causal memory: CC and no WriteHBInitRead or CyclicHB
//! (causal-consistency-datalog Table 3, Def. 4).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::common::causal;
use crate::models::hbo::{local_hb, Causality};

/// CM: CC, and every `hb_o` acyclic with no write `hb_o`-before a read of
/// the initial value `r po* o`. `hb_o` only grows along `po`
/// (causal-consistency-datalog Thm 2), so the po-maximal `o` suffice.
pub fn check(h: &History) -> Result<(), Violation> {
    cc::check(h)?;
    let wr = h.wr();
    let co = causal(h, &wr)?;
    let causality = Causality {
        co: &co,
        co_inv: &co.transpose(),
        pi_inv: &h.po().transpose(),
        gens: [(Rel::Po, h.po()), (Rel::Wr, &wr)],
        rule2: Rel::HbO,
        cyclic: Pattern::CyclicHB,
        init_read: Pattern::WriteHBInitRead,
    };
    for o in h.po_maximal() {
        local_hb(h, &causality, o)?;
    }
    Ok(())
}
