//! wSC, weak sequential consistency (wsc-saturation §3).

use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::{History, OpId};
use crate::models::common::{causal, no_thin_air};
use crate::models::{answer, Halt, StoreOrder};
use crate::relation::{word_ones, BitMatrix, Derived, Fixpoint, Reach};

/// wSC (wsc-saturation §3), [`decide`]d; `None` when `cancel` is spent first.
pub fn check(h: &History, cancel: &Cancel) -> Option<Result<StoreOrder, Violation>> {
    answer(decide(h, cancel))
}

/// wSC (wsc-saturation §3): `hb` acyclic for the least `st` and `hb` with
/// `st = ((hb_WR ; wr⁻¹) ∪ hb_WW)⁺` and `hb = (po ∪ wr ∪ st ∪ rw[st])⁺`, from
/// `hb₀ = (po ∪ wr)⁺`; its store order is `hb_WW`.
fn decide(h: &History, cancel: &Cancel) -> Result<StoreOrder, Halt> {
    no_thin_air(h)?;
    let wr = h.wr();
    let hb0 = Reach::from_closed(causal(h, &wr, cancel)?);
    cancel.ask()?;
    let mut hb = Fixpoint::new(hb0, &[Rel::St, Rel::Rw], false);
    hb.apply(|hb, x, fresh, out| rules(h, hb, x, fresh, out));
    hb.run(cancel, |hb, x, fresh, out| rules(h, hb, x, fresh, out))?
        .map_err(|(a, b, rel)| {
            let gens = [(Rel::Po, h.po()), (Rel::Wr, &wr)];
            Violation::from_cycle(Pattern::CyclicSt, hb.cycle_through(&gens, a, b, rel))
        })?;
    Ok(StoreOrder::project(h, hb.relation()))
}

/// wSC's two rules on the new pairs `(x, y)` of `hb`, `x` a write of `v` (wsc-saturation §3):
/// `y` a read of `v` gives `(x, wr⁻¹(y)) ∈ st` (`hb_WR ; wr⁻¹`, distinct writes); `y` a write
/// of `v` (`x st y`, from `hb_WW`) gives `(r, y) ∈ rw[st]` for each `r` reading from `x`.
fn rules(h: &History, hb: &BitMatrix, x: OpId, fresh: &[u64], out: &mut Derived<Rel>) {
    let Some(v) = h.var(x).filter(|_| h.is_write(x)) else {
        return;
    };
    for (i, ((&f, &r), &w)) in fresh
        .iter()
        .zip(h.reads_mask(v))
        .zip(h.writes_mask(v))
        .enumerate()
    {
        for y in word_ones(i, f & (r | w)) {
            if h.is_read(y) {
                match h.rf(y) {
                    Some(w2) if w2 != x && !hb.get(x, w2) => out.push((x, w2, Rel::St)),
                    _ => {}
                }
            } else {
                let readers = h.readers(x).iter().filter(|&&r| !hb.get(r, y));
                out.extend(readers.map(|&r| (r, y, Rel::Rw)));
            }
        }
    }
}
