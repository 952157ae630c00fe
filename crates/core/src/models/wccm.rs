//! wCCM, weak convergent causal memory (gradual-consistency-checking §4.1).

use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::common::{cf, no_thin_air, po_loc, preserved, rw, wre, ww, Kind, Relaxed};
use crate::models::hbo::hb_pi;
use crate::models::{answer, Halt, StoreOrder};
use crate::relation::{acyclic_explained, BitMatrix};

/// wCCM (gradual-consistency-checking §4.1), [`decide`]d; `None` when
/// `cancel` is spent first.
pub fn check(h: &History, cancel: &Cancel) -> Option<Result<StoreOrder, Violation>> {
    answer(decide(h, cancel))
}

/// wCCM (gradual-consistency-checking §4.1): `ppo ∪ wre ∪ wpww ∪ rw[wpww]` and
/// `po-loc ∪ wre ∪ wpww ∪ rw[wpww]` acyclic, where `wpww = (whb_WW ∪ cfe[hb^po-loc] ∪
/// cfe[hb^ppo])⁺`, `whb = (hb^ppo ∪ hb^po-loc)⁺`, `cfe[R] = R_WR ; wre⁻¹`.
fn decide(h: &History, cancel: &Cancel) -> Result<StoreOrder, Halt> {
    no_thin_air(h)?;
    let wr = h.wr();
    let (ppo, po_loc, wre) = (ppo(h), po_loc(h), wre(h, &wr));
    cancel.ask()?;
    let hb_ppo = hb_pi(h, (Rel::Ppo, &ppo), &wre, Pattern::CyclicWpwwPpo, cancel)?;
    let hb_po_loc = hb_pi(
        h,
        (Rel::PoLoc, &po_loc),
        &wre,
        Pattern::CyclicWpwwPoLoc,
        cancel,
    )?;
    let whb = hb_ppo.clone().union(&hb_po_loc).plus_any_until(cancel)?;
    let wre_inv = |r| h.rf(r).filter(|&w| wre.get(w, r));
    let wpww_gen = ww(h, &whb)
        .union(&cf(h, &hb_po_loc, wre_inv))
        .union(&cf(h, &hb_ppo, wre_inv));
    let wpww = wpww_gen.plus_any_until(cancel)?;
    let rw = rw(h, &wpww);
    for (pi, pattern) in [
        ((Rel::Ppo, &ppo), Pattern::CyclicWpwwPpo),
        ((Rel::PoLoc, &po_loc), Pattern::CyclicWpwwPoLoc),
    ] {
        let (wre, rw) = ((Rel::Wre, &wre), (Rel::Rw, &rw));
        cancel.ask()?;
        acyclic_explained(
            &[pi, wre, (Rel::Wpww, &wpww), rw],
            &[pi, wre, (Rel::Wpww, &wpww_gen), rw],
        )
        .map_err(|c| Violation::from_cycle(pattern, c))?;
    }
    Ok(StoreOrder::project(h, &wpww))
}

/// wCCM's `ppo = (po \ (W × R))⁺` (gradual-consistency-checking §2; a fence orders them).
pub fn ppo(h: &History) -> BitMatrix {
    preserved(h, &RELAXED)
}

/// The program-order pairs wCCM's `ppo` drops: every (write, read).
pub const RELAXED: [Relaxed; 1] = [Relaxed {
    from: Kind::W,
    to: Kind::R,
    across: false,
}];
