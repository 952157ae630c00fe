//! SC/TSO/PSO: every completion engine against brute force (store-order
//! enumeration and operational machines in tests/brute) on thousands of
//! random small histories; every witness re-checked by the validator.

mod brute;

use brute::{BHistory, Kind};
use memconform::certificate::validate::{self, StoreModel};
use memconform::complete::{decide, Completion, Engine};
use memconform::history::History;
use memconform::models::Model;
use memconform_parsers::hist::RawOpKind;

const ENGINES: [Engine; 5] = [
    Engine::Enum,
    Engine::Sat,
    Engine::Dp,
    Engine::Interleave,
    Engine::Auto,
];

fn to_history(b: &BHistory) -> History {
    let threads: Vec<Vec<RawOpKind>> = b
        .threads
        .iter()
        .map(|t| {
            t.iter()
                .map(|&(k, v, value)| {
                    let var = format!("v{v}");
                    match k {
                        Kind::R => RawOpKind::Read { var, value },
                        Kind::W => RawOpKind::Write { var, value },
                    }
                })
                .collect()
        })
        .collect();
    History::from_threads(&threads).expect("valid")
}

fn store_model(m: Model) -> StoreModel {
    match m {
        Model::Sc => StoreModel::Sc,
        Model::Tso => StoreModel::Tso,
        _ => StoreModel::Pso,
    }
}

/// The verdict of one engine, with its witness validated.
fn verdict(h: &History, m: Model, e: Engine) -> bool {
    let d = decide(h, &m.spec(h).unwrap(), e, None);
    match d.result {
        Ok(Completion::Found {
            order,
            interleaving,
        }) => {
            validate::store_order(h, store_model(m), &order)
                .unwrap_or_else(|err| panic!("{m}/{e:?}: invalid witness: {err}"));
            if let Some(run) = interleaving {
                validate::interleaving(h, &run).unwrap_or_else(|err| panic!("{m}/{e:?}: {err}"));
            }
            true
        }
        Ok(Completion::Exhausted) => false,
        Ok(Completion::TimedOut) => panic!("no deadline was set"),
        Err(v) => {
            validate::violation(h, &v)
                .unwrap_or_else(|err| panic!("{m}/{e:?}: invalid certificate: {err}"));
            false
        }
    }
}

#[test]
fn engines_agree_with_brute_force_on_small_histories() {
    let mut yes = [0usize; 3];
    let n = 3000;
    for seed in 0..n {
        let b = brute::random_history(seed, 10);
        let want = brute::verdicts(&b);
        let h = to_history(&b);
        for (i, (m, expected)) in [
            (Model::Sc, want.sc),
            (Model::Tso, want.tso),
            (Model::Pso, want.pso),
        ]
        .into_iter()
        .enumerate()
        {
            yes[i] += expected as usize;
            for e in ENGINES {
                assert_eq!(
                    verdict(&h, m, e),
                    expected,
                    "seed {seed}: {m} by {e:?} on {:?}",
                    b.threads
                );
            }
        }
    }
    for (i, m) in ["sc", "tso", "pso"].iter().enumerate() {
        assert!(
            yes[i] > 300 && yes[i] < n as usize - 300,
            "{m}: {} of {n} consistent",
            yes[i]
        );
    }
}

#[test]
fn the_validator_rejects_broken_witnesses() {
    // Message passing made SC: the only store orders are fixed by the reads.
    let h = to_history(&BHistory {
        threads: vec![
            vec![(Kind::W, 0, 1), (Kind::W, 0, 2), (Kind::W, 1, 1)],
            vec![(Kind::R, 1, 1), (Kind::R, 0, 2)],
        ],
    });
    let Ok(Completion::Found { order, .. }) =
        decide(&h, &Model::Sc.spec(&h).unwrap(), Engine::Enum, None).result
    else {
        panic!("SC")
    };
    assert!(validate::store_order(&h, StoreModel::Sc, &order).is_ok());
    let mut swapped = order.clone();
    swapped[0].swap(1, 2);
    assert!(validate::store_order(&h, StoreModel::Sc, &swapped).is_err());
    let mut missing = order.clone();
    missing[0].pop();
    assert!(validate::store_order(&h, StoreModel::Sc, &missing).is_err());
    let mut init_late = order;
    init_late[1].swap(0, 1);
    assert!(validate::store_order(&h, StoreModel::Sc, &init_late).is_err());
}
