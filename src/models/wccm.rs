//! wCCM, weak convergent causal memory (gradual-consistency-checking §4.1).

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::common::{
    acyclic_explained, cf, cycle_in, no_thin_air, po_loc, rw, union, wre, ww,
};
use crate::models::hbo::{local_hb, Causality};
use crate::models::StoreOrder;
use crate::relation::{closure_any, transitive_closure, BitMatrix};

/// wCCM: `ppo ∪ wre ∪ wpww ∪ rw[wpww]` and `po-loc ∪ wre ∪ wpww ∪ rw[wpww]`
/// acyclic, where `wpww = (whb_WW ∪ cfe[hb^po-loc] ∪ cfe[hb^ppo])⁺`,
/// `whb = (hb^ppo ∪ hb^po-loc)⁺`, `cfe[R] = R_WR ; wre⁻¹`.
pub fn check(h: &History) -> Result<StoreOrder, Violation> {
    no_thin_air(h)?;
    let wr = h.wr();
    let (ppo, po_loc, wre) = (ppo(h), po_loc(h), wre(h, &wr));
    let hb_ppo = hb_pi(h, &ppo, Rel::Ppo, &wre, Pattern::CyclicWpwwPpo)?;
    let hb_po_loc = hb_pi(h, &po_loc, Rel::PoLoc, &wre, Pattern::CyclicWpwwPoLoc)?;
    let whb = closure_any(&union(&[&hb_ppo, &hb_po_loc]));
    let in_wre = |w, r| wre.get(w, r);
    let wpww_gen = union(&[
        &ww(h, &whb),
        &cf(h, &hb_po_loc, in_wre),
        &cf(h, &hb_ppo, in_wre),
    ]);
    let wpww = closure_any(&wpww_gen);
    let rw = rw(h, &wpww);
    for (pi, label, pattern) in [
        (&ppo, Rel::Ppo, Pattern::CyclicWpwwPpo),
        (&po_loc, Rel::PoLoc, Pattern::CyclicWpwwPoLoc),
    ] {
        let (pi, wre, rw) = ((label, pi), (Rel::Wre, &wre), (Rel::Rw, &rw));
        acyclic_explained(
            pattern,
            &[pi, wre, (Rel::Wpww, &wpww), rw],
            &[pi, wre, (Rel::Wpww, &wpww_gen), rw],
        )?;
    }
    Ok(StoreOrder::project(h, &wpww))
}

/// `hb^π = (⋃_o hb^π_o)⁺`, built on `co_π = (π ∪ wre)⁺`; `hb^π_o` only grows
/// along `π`, so the π-maximal `o` suffice.
fn hb_pi(
    h: &History,
    pi: &BitMatrix,
    label: Rel,
    wre: &BitMatrix,
    pattern: Pattern,
) -> Result<BitMatrix, Violation> {
    let gens = [(label, pi), (Rel::Wre, wre)];
    let co_pi = transitive_closure(&union(&[pi, wre])).map_err(|_| cycle_in(pattern, &gens))?;
    let causality = Causality {
        co: &co_pi,
        co_inv: &co_pi.transpose(),
        pi_inv: &pi.transpose(),
        gens,
        rule2: Rel::Wpww,
        cyclic: pattern,
        init_read: pattern,
    };
    let mut hb = BitMatrix::new(h.n());
    for t in &h.threads {
        for o in t.ops.clone() {
            let maximal = pi.row(o).iter().all(|&w| w == 0);
            if maximal && h.var(o).is_some() {
                hb.union_with(&local_hb(h, &causality, o)?);
            }
        }
    }
    Ok(closure_any(&hb))
}

/// `ppo = po \ (W×R)`, closed (a fence between a write and a read orders them).
fn ppo(h: &History) -> BitMatrix {
    let mut ppo = h.po().clone();
    for w in (0..h.n()).filter(|&w| h.is_write(w)) {
        for r in h.po().succ(w).filter(|&r| h.is_read(r)) {
            ppo.unset(w, r);
        }
    }
    transitive_closure(&ppo).expect("po is acyclic")
}
