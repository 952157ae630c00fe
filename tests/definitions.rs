//! Every engine against the models' definitions (memconform::cat): the
//! pipeline on the dense and on the sparse representation (scale/: lanes
//! and frontiers, the sparse store-order search) decides each model as its
//! definition does, on random machine-run histories with RMWs, fences,
//! annotations, timed threads and `@final`. The polynomial models are held
//! to their definition as it stands; the store-order models to "some total
//! store order satisfies it", every order tried. The definitions are
//! interpreted on dense matrices, independently of every engine.

use memconform::cat::{self, sample, Interp, Sample};
use memconform::check::scale::Scale;
use memconform::check::{check_gradual_with, Options, Verdict};
use memconform::complete::Engine;
use memconform::models::Model;

fn opts(scale: Scale) -> Options {
    Options {
        gradual: false,
        timeout: None,
        scale,
        engine: Engine::Enum,
        ..Options::default()
    }
}

fn shape(seed: u64) -> Sample {
    Sample {
        threads: 3,
        ops: 4,
        vars: 2,
        annotations: true,
        timed: seed.is_multiple_of(3),
        finals: true,
        thin_air: false,
        stale: [0.05, 0.3, 1.0][(seed % 3) as usize],
    }
}

/// The definition's verdict: `None` when there are too many store orders to try.
fn defined(h: &memconform::history::History, defs: &cat::Definitions, m: Model) -> Option<bool> {
    let def = defs.get(m);
    match def.uses_ww() {
        true => cat::holds_for_some_store_order(h, def, 3000).map(|o| o.is_some()),
        false => Some(Interp::new(h, def, None).first_failure().is_none()),
    }
}

#[test]
fn dense_and_sparse_engines_decide_as_the_definitions() {
    let mut decided = 0;
    let mut violated = [0usize; 11];
    let defs = cat::Definitions::new();
    let by_scale = [Scale::Dense, Scale::Sparse].map(|scale| (scale, opts(scale)));
    for seed in 0..400u64 {
        let (h, text) = sample::history(shape(seed), seed);
        for (scale, opts) in &by_scale {
            let outcomes = check_gradual_with(&h, &Model::EVERY, opts);
            for (i, (m, o)) in Model::EVERY.into_iter().zip(&outcomes).enumerate() {
                assert_eq!(o.model, m);
                assert!(
                    o.invalid.is_none(),
                    "{m} {scale:?} seed {seed}: {:?}",
                    o.invalid
                );
                let Some(want) = defined(&h, &defs, m) else {
                    continue;
                };
                decided += 1;
                let got = match o.verdict() {
                    Verdict::Consistent => true,
                    Verdict::Violation => false,
                    v => panic!("{m} {scale:?} seed {seed}: {v:?}\n{text}"),
                };
                violated[i] += !got as usize;
                assert_eq!(
                    got,
                    want,
                    "{m} {scale:?} seed {seed}: {:?}\n{text}",
                    o.violation().map(|v| v.explain(&h))
                );
            }
        }
    }
    assert!(decided > 7000, "{decided} decided");
    for (i, v) in violated.iter().enumerate() {
        assert!(*v > 20 && *v < 780, "{}: {v} violations", Model::EVERY[i]);
    }
}
