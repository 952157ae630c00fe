//! wSC, weak sequential consistency (wsc-saturation §3).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::{History, OpId};
use crate::models::common::{causal, cycle_through, no_thin_air};
use crate::models::StoreOrder;
use crate::relation::{BitMatrix, Reach};

/// wSC: `hb` acyclic, where `st` and `hb` are the least relations with
/// `st = ((hb_WR ; wr⁻¹) ∪ hb_WW)⁺` and `hb = (po ∪ wr ∪ st ∪ rw[st])⁺`.
/// Computed as a worklist fixpoint over `hb` kept transitively closed:
/// every new pair of `hb` is fed to the two rules below.
pub fn check(h: &History) -> Result<StoreOrder, Violation> {
    no_thin_air(h)?;
    let wr = h.wr();
    let mut hb = Reach::from_closed(causal(h, &wr)?); // hb_0 = (po ∪ wr)⁺
    let mut work = Vec::new();
    for w in (0..h.n()).filter(|&w| h.is_write(w)) {
        rules(h, hb.succ(), w, hb.succ().row(w), &mut work);
    }
    let mut st = BitMatrix::new(h.n());
    let mut rw = BitMatrix::new(h.n());
    while let Some((a, b, rel)) = work.pop() {
        if hb.reaches(a, b) {
            continue;
        }
        match rel {
            Rel::St => st.set(a, b),
            _ => rw.set(a, b),
        };
        if hb
            .insert(a, b, |hb, x, fresh| rules(h, hb, x, fresh, &mut work))
            .is_err()
        {
            let rels = [
                (Rel::Po, h.po()),
                (Rel::Wr, &wr),
                (Rel::St, &st),
                (Rel::Rw, &rw),
            ];
            return Err(cycle_through(Pattern::CyclicSt, &rels, a, b, rel));
        }
    }
    Ok(StoreOrder::project(h, hb.succ()))
}

/// The two rules, applied to the new pairs `(x, y)`, `y ∈ fresh`, of `hb`:
/// - st: `x hb y`, `y` a read of `x`'s variable reading from `w′ ≠ x` ⇒ `x st w′`;
/// - rw: `x hb y`, `y` another write of `x`'s variable (so `x st y`), `wr(x, r)` ⇒ `r rw y`.
///
/// Consequences already in `hb` are not queued.
fn rules(h: &History, hb: &BitMatrix, x: OpId, fresh: &[u64], work: &mut Vec<(OpId, OpId, Rel)>) {
    if !h.is_write(x) {
        return;
    }
    let v = h.var(x).expect("writes have a variable");
    for (i, ((&f, &r), &w)) in fresh
        .iter()
        .zip(h.reads_mask(v))
        .zip(h.writes_mask(v))
        .enumerate()
    {
        let mut bits = f & (r | w);
        while bits != 0 {
            let y = i * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if h.is_read(y) {
                match h.rf(y) {
                    Some(w2) if w2 != x && !hb.get(x, w2) => work.push((x, w2, Rel::St)),
                    _ => {}
                }
            } else {
                work.extend(
                    h.readers(x)
                        .iter()
                        .filter(|&&r| !hb.get(r, y))
                        .map(|&r| (r, y, Rel::Rw)),
                );
            }
        }
    }
}
