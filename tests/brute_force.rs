//! The fast models against independent brute-force transcriptions of their
//! definitions (tests/brute), on thousands of random small histories; and
//! the papers' hierarchy on the fast models themselves.

mod brute;
mod support;

use support::to_history;

use std::collections::BTreeSet;

use brute::BId;
use memconform::history::{History, OpId};
use memconform::models::{Model, StoreOrder};

fn op_id(h: &History, id: BId) -> OpId {
    match id {
        BId::Init(v) => h.vars.iter().position(|x| *x == format!("v{v}")).unwrap(),
        BId::Op(t, i) => h.threads[t].ops.start + i,
    }
}

fn pairs(h: &History, set: &BTreeSet<(BId, BId)>) -> BTreeSet<(OpId, OpId)> {
    set.iter()
        .map(|&(a, b)| (op_id(h, a), op_id(h, b)))
        .collect()
}

fn order(o: &StoreOrder) -> BTreeSet<(OpId, OpId)> {
    o.pairs().collect()
}

#[test]
fn every_model_agrees_with_brute_force_on_small_histories() {
    let mut counts = [0usize; 6];
    for seed in 0..4000u64 {
        let b = brute::random_history(seed, 8);
        let expected = brute::verdicts(&b);
        let h = to_history(&b);
        let want = [
            expected.cc,
            expected.ccv,
            expected.cm,
            expected.ccm,
            expected.wccm,
            expected.wsc,
        ];
        for (i, m) in Model::ALL.into_iter().enumerate() {
            let got = m.check(&h);
            assert_eq!(
                got.is_ok(),
                want[i],
                "seed {seed}: {m} on {:?}: {:?}",
                b.threads,
                got.as_ref().err()
            );
            counts[i] += got.is_ok() as usize;
            let brute_order = match m {
                Model::Ccm => expected.pww.as_ref(),
                Model::Wccm => expected.wpww.as_ref(),
                Model::Wsc => expected.st.as_ref(),
                _ => None,
            };
            if let (Ok(Some(o)), Some(bo)) = (&got, brute_order) {
                assert_eq!(
                    order(o),
                    pairs(&h, bo),
                    "seed {seed}: {m} store order on {:?}",
                    b.threads
                );
            }
        }
    }
    // The random histories exercise both verdicts of every model.
    for (i, m) in Model::ALL.into_iter().enumerate() {
        assert!(
            counts[i] > 200 && counts[i] < 3800,
            "{m}: {} consistent of 4000",
            counts[i]
        );
    }
}

#[test]
fn hierarchy_holds_on_random_histories() {
    for seed in 10_000..13_000u64 {
        let h = to_history(&brute::random_history(seed, 12));
        let r = |m: Model| m.check(&h);
        let (cc, ccv, cm, ccm, wccm, wsc) = (
            r(Model::Cc),
            r(Model::Ccv),
            r(Model::Cm),
            r(Model::Ccm),
            r(Model::Wccm),
            r(Model::Wsc),
        );
        if wsc.is_ok() {
            assert!(ccm.is_ok(), "seed {seed}: wSC ⇒ CCM");
        }
        if ccm.is_ok() {
            assert!(
                cc.is_ok() && ccv.is_ok() && cm.is_ok(),
                "seed {seed}: CCM ⇒ CC, CCv, CM"
            );
            assert!(wccm.is_ok(), "seed {seed}: CCM ⇒ wCCM");
        }
        if ccv.is_ok() || cm.is_ok() {
            assert!(cc.is_ok(), "seed {seed}: CCv, CM ⇒ CC");
        }
        if let (Ok(Some(pww)), Ok(Some(st))) = (&ccm, &wsc) {
            assert!(order(pww).is_subset(&order(st)), "seed {seed}: pww ⊆ st");
        }
        if let (Ok(Some(wpww)), Ok(Some(pww))) = (&wccm, &ccm) {
            assert!(
                order(wpww).is_subset(&order(pww)),
                "seed {seed}: wpww ⊆ pww"
            );
        }
    }
}

/// The greedy SC interleaving that wide histories try first, given no limit
/// on its returns to earlier choices, is a complete search: it finds a
/// witness exactly when brute force says SC, and every witness passes the
/// validator (store order and interleaving).
#[test]
fn the_greedy_sc_interleaving_agrees_with_brute_force() {
    use memconform::budget::Limits;
    use memconform::certificate::validate::{self, StoreModel};
    use memconform::complete::{interleave, Completion};
    let mut found = 0;
    for seed in 0..4000u64 {
        let b = brute::random_history(seed, 8);
        let want = brute::verdicts(&b).sc;
        let h = to_history(&b);
        let got = interleave::greedy(&h, Limits::NONE, u64::MAX);
        assert_eq!(got.is_some(), want, "seed {seed}: {:?}", b.threads);
        if let Some(Completion::Found {
            order,
            interleaving,
        }) = got
        {
            found += 1;
            validate::store_order(&h, StoreModel::Sc, &order)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            validate::interleaving(&h, &interleaving.expect("an interleaving"))
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
    // both verdicts are well represented
    assert!((400..3600).contains(&found), "{found} of 4000 SC");
}
