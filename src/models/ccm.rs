//! CCM, convergent causal memory (gradual-consistency-checking §3.2).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::common::{acyclic_explained, causal, cf, no_thin_air, rw, union, ww};
use crate::models::hbo::{local_hb, Causality};
use crate::models::StoreOrder;
use crate::relation::{closure_any, BitMatrix};

/// CCM: `po ∪ wr ∪ pww ∪ rw[pww]` acyclic, where
/// `pww = (hb_WW ∪ cf[hb])⁺` and `hb = (⋃_o hb_o)⁺`.
pub fn check(h: &History) -> Result<StoreOrder, Violation> {
    no_thin_air(h)?;
    let wr = h.wr();
    let co = causal(h, &wr)?;
    let causality = Causality {
        co: &co,
        co_inv: &co.transpose(),
        pi_inv: &h.po().transpose(),
        gens: [(Rel::Po, h.po()), (Rel::Wr, &wr)],
        rule2: Rel::Pww,
        cyclic: Pattern::CyclicPww,
        init_read: Pattern::CyclicPww,
    };
    let mut hb = BitMatrix::new(h.n());
    for o in h.po_maximal() {
        hb.union_with(&local_hb(h, &causality, o)?);
    }
    let hb = closure_any(&hb);
    let pww_gen = union(&[&ww(h, &hb), &cf(h, &hb, |_, _| true)]);
    let pww = closure_any(&pww_gen);
    let rw = rw(h, &pww);
    let (po, wr) = ((Rel::Po, h.po()), (Rel::Wr, &wr));
    acyclic_explained(
        Pattern::CyclicPww,
        &[po, wr, (Rel::Pww, &pww), (Rel::Rw, &rw)],
        &[po, wr, (Rel::Pww, &pww_gen), (Rel::Rw, &rw)],
    )?;
    Ok(StoreOrder::project(h, &pww))
}
