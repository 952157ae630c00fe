//! CC, weak causal consistency (causal-consistency-datalog §3.2, Tables 2–3).

use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::common::{causal, no_thin_air, rw};
use crate::models::{answer, Halt};
use crate::relation::{irreflexive_seq, BitMatrix};

/// CC (causal-consistency-datalog Lemma 1, Table 3): none of the bad patterns below;
/// `None` when `cancel` is spent first.
pub fn check(h: &History, cancel: &Cancel) -> Option<Result<(), Violation>> {
    answer(co(h, cancel).map(drop))
}

/// CC's bad patterns (causal-consistency-datalog Table 3), then its `(wr, co)`: ThinAirRead;
/// CyclicCO, `co = (po ∪ wr)⁺` cyclic; WriteCORead, `w1 wr r1`, `w1 co w2 co r1`, that is
/// `rw[co] ; co` reflexive (WriteCOInitRead when `w1` is the initial write).
pub fn co(h: &History, cancel: &Cancel) -> Result<(BitMatrix, BitMatrix), Halt> {
    no_thin_air(h)?;
    let wr = h.wr();
    let co = causal(h, &wr, cancel)?;
    cancel.ask()?;
    let gens = [(Rel::Po, h.po()), (Rel::Wr, &wr)];
    irreflexive_seq((Rel::Rw, &rw(h, &co)), &co, &gens).map_err(|cycle| {
        let w1 = h.rf(cycle[0].from).expect("r1 reads");
        let pattern = match h.is_init(w1) {
            true => Pattern::WriteCOInitRead,
            false => Pattern::WriteCORead,
        };
        let mut v = Violation::from_cycle(pattern, cycle);
        v.ops.push((w1, "r1 reads from w1, and w1 co w2"));
        v
    })?;
    Ok((wr, co))
}
