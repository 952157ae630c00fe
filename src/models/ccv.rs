//! CCv, causal convergence: CC and no CyclicCF (causal-consistency-datalog Table 3).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::cc;
use crate::models::common::{acyclic, causal, cf};

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
