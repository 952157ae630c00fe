//! RMO and ARMv8 (without dependencies): the models against an independent
//! brute force (tests/brute/weak.rs: every store order, the axioms checked
//! directly) on thousands of random annotated histories, every engine for
//! RMO, every witness and certificate through the validator; the litmus
//! fixtures' known verdicts (tests/data/histories/weak-litmus.hist) by the
//! models and by the brute force; the older models on partial fences; the
//! annotations' syntax errors.

mod brute;

use std::path::Path;

use brute::{w_parse, w_random_history, w_random_run, w_to_hist, w_verdicts};
use memconform::cat::Definitions;
use memconform::certificate::validate::{self, StoreModel};
use memconform::check::{check_gradual_with, Decision, Options, Verdict};
use memconform::complete::{decide, Completion, Engine, Limits};
use memconform::history::History;
use memconform::models::Model;
use memconform_parsers::hist::parse_hist;

fn hist(text: &str) -> History {
    let raw = parse_hist(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    History::from_raw(&raw[0], 0).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The outcome of `m` through the pipeline: its verdict, with its witness
/// or certificate accepted by the validator (else a panic naming why).
fn pipeline(h: &History, m: Model, text: &str) -> bool {
    pipeline_pattern(h, m, text).0
}

/// [`pipeline`], with the pattern of a violation.
fn pipeline_pattern(h: &History, m: Model, text: &str) -> (bool, Option<&'static str>) {
    let o = check_gradual_with(h, &[m], &Options::default())
        .pop()
        .expect("one outcome");
    assert!(o.invalid.is_none(), "{m}: {:?}\n{text}", o.invalid);
    match &o.decision {
        Decision::Consistent { store_order, .. } => {
            assert!(store_order.is_some(), "{m}: a witness\n{text}");
            (true, None)
        }
        Decision::Violation(v) => {
            assert!(
                v.certified_by.is_some(),
                "{m}: certified ({:?})\n{text}",
                o.uncertified
            );
            (false, Some(v.pattern.name()))
        }
        Decision::Unknown(why) => panic!("{m}: unknown: {why}\n{text}"),
    }
}

/// RMO or ARMv8 by one completion engine, its witness or certificate validated.
fn by_engine(h: &History, m: Model, e: Engine, text: &str) -> bool {
    let sm = if m == Model::Rmo {
        StoreModel::Rmo
    } else {
        StoreModel::Armv8
    };
    let spec = m.spec(h, &Definitions::new()).expect("a store-order model");
    match decide(h, &spec, e, Limits::NONE).result {
        Ok(Completion::Found { order, .. }) => {
            validate::store_order(h, sm, &order)
                .unwrap_or_else(|err| panic!("{m}/{e:?}: witness: {err}\n{text}"));
            true
        }
        Ok(Completion::Exhausted) => false,
        Ok(other) => panic!("{m}/{e:?}: {other:?}"),
        Err(v) => {
            validate::violation_in(h, &v, Some(sm))
                .unwrap_or_else(|err| panic!("{m}/{e:?}: certificate: {err}\n{text}"));
            false
        }
    }
}

#[test]
fn rmo_and_armv8_agree_with_brute_force_on_random_annotated_histories() {
    // [rmo yes, rmo no, armv8 yes, armv8 no]
    let mut counts = [0usize; 4];
    let mut patterns: std::collections::BTreeMap<(Model, &str), usize> = Default::default();
    let mut disagreements = Vec::new();
    for seed in 0..6000u64 {
        // half of them run on a memory (mostly coherent), half at random
        let b = match seed % 2 {
            0 => w_random_run(seed, 9),
            _ => w_random_history(seed, 8),
        };
        let text = w_to_hist(&b, true);
        let h = hist(&text);
        let want = w_verdicts(&b);
        // the table's implications on annotated histories (implications §10)
        assert!(!want.armv8 || want.rmo, "ARMv8 ⇒ RMO refuted by\n{text}");
        if Model::Sc.check(&h).is_ok() {
            assert!(want.armv8, "SC ⇒ ARMv8 refuted by\n{text}");
        }
        if Model::Tso.check(&h).is_ok() {
            assert!(want.rmo, "TSO ⇒ RMO refuted by\n{text}");
        }
        for (m, want) in [(Model::Rmo, want.rmo), (Model::Armv8, want.armv8)] {
            let (got, pattern) = pipeline_pattern(&h, m, &text);
            if let Some(p) = pattern {
                *patterns.entry((m, p)).or_default() += 1;
            }
            let alone = m.check(&h).is_ok();
            if got != want || alone != want {
                disagreements.push(format!(
                    "seed {seed} {m}: brute {want}, pipeline {got}, alone {alone}\n{text}"
                ));
            }
            let i = if m == Model::Rmo { 0 } else { 2 } + usize::from(!want);
            counts[i] += 1;
        }
        for e in [Engine::Enum, Engine::Sat, Engine::Dp, Engine::Auto] {
            for (m, want) in [(Model::Rmo, want.rmo), (Model::Armv8, want.armv8)] {
                if by_engine(&h, m, e, &text) != want {
                    disagreements.push(format!("seed {seed} {m}/{e:?}: brute {want}\n{text}"));
                }
            }
        }
    }
    println!(
        "rmo yes/no {}/{}, armv8 yes/no {}/{}; violations by pattern: {patterns:?}",
        counts[0], counts[1], counts[2], counts[3]
    );
    // ob's cycles and RMO's own graph are exercised
    assert!(patterns
        .get(&(Model::Armv8, "CyclicOb"))
        .is_some_and(|&k| k >= 30));
    assert!(patterns
        .get(&(Model::Rmo, "CyclicRmo"))
        .is_some_and(|&k| k >= 5));
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // both verdicts of both models are exercised
    assert!(counts.iter().all(|&c| c >= 300), "{counts:?}");
}

#[test]
fn armv8_is_weaker_than_tso_and_rmo_than_pso_on_histories_without_annotations() {
    // Without annotations and with full fences only, a TSO (PSO) witness
    // makes ob (RMO's graphs) acyclic: brute force says so, and so do the models.
    let mut n = 0;
    for seed in 0..600u64 {
        let b = w_random_history(seed, 7);
        let plain = brute::WHistory {
            threads: b
                .threads
                .iter()
                .map(|t| {
                    t.iter()
                        .filter_map(|op| match *op {
                            brute::WOp::R(x, v, _) => Some(brute::WOp::R(x, v, brute::WAnn::Plain)),
                            brute::WOp::W(x, v, _) => Some(brute::WOp::W(x, v, brute::WAnn::Plain)),
                            brute::WOp::U(x, a, v, _) => {
                                Some(brute::WOp::U(x, a, v, brute::WAnn::Plain))
                            }
                            brute::WOp::F(brute::WFence::Full) => Some(*op),
                            brute::WOp::F(_) => None,
                        })
                        .collect()
                })
                .collect(),
            finals: b.finals.clone(),
        };
        let text = w_to_hist(&plain, true);
        let h = hist(&text);
        let tso = Model::Tso.check(&h).is_ok();
        let pso = Model::Pso.check(&h).is_ok();
        let want = w_verdicts(&plain);
        if tso {
            assert!(want.armv8 && Model::Armv8.check(&h).is_ok(), "{text}");
            n += 1;
        }
        if pso {
            assert!(want.rmo && Model::Rmo.check(&h).is_ok(), "{text}");
        }
    }
    assert!(n > 100, "{n} TSO-consistent histories");
}

#[test]
fn the_litmus_fixtures_have_their_known_verdicts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/histories/weak-litmus.hist");
    let text = std::fs::read_to_string(&path).expect("the fixtures");
    let raws = parse_hist(text.as_bytes()).expect("parses");
    let briefs = w_parse(&text);
    assert_eq!(raws.len(), briefs.len());
    let mut checked = 0;
    for (i, (raw, (name, expect, b))) in raws.iter().zip(&briefs).enumerate() {
        let h = History::from_raw(raw, i).expect("valid");
        assert_eq!(h.name.as_deref(), Some(name.as_str()));
        let brute = w_verdicts(b);
        for (model, want) in expect {
            let m = Model::from_name(model).expect("a model");
            let got = pipeline(&h, m, name);
            assert_eq!(got, *want, "{name}: {model} by the model");
            match m {
                Model::Rmo => assert_eq!(brute.rmo, *want, "{name}: rmo by brute force"),
                Model::Armv8 => assert_eq!(brute.armv8, *want, "{name}: armv8 by brute force"),
                _ => {}
            }
            checked += 1;
        }
    }
    assert!(checked >= 75, "{checked} verdicts");
    // the fixture where each store order of x closes another ob cycle:
    // saturation orders x both ways (one cycle of derived pairs)
    let raw = raws
        .iter()
        .find(|r| r.name.as_deref() == Some("2xMP+dmbs"))
        .expect("the fixture");
    let h = History::from_raw(raw, 0).expect("valid");
    let o = check_gradual_with(&h, &[Model::Armv8], &Options::default())
        .pop()
        .expect("one outcome");
    let Decision::Violation(v) = &o.decision else {
        panic!("a violation")
    };
    assert_eq!(v.pattern.name(), "CyclicOb", "{v:?}");
    assert!(v.certified_by.is_some(), "{v:?}");
}

#[test]
fn the_older_models_see_no_partial_fence() {
    // F.ld and F.st order nothing SC, TSO and wCCM relax (W→R), and PSO
    // leaves them out (weaker, so its violations stay real): each model's
    // verdict with them is its verdict without them.
    let models = Model::DEFAULT;
    let mut partial = 0;
    for seed in 0..800u64 {
        let b = w_random_history(seed, 8);
        let (with, without) = (w_to_hist(&b, true), w_to_hist(&b, false));
        if with == without {
            continue;
        }
        partial += 1;
        let (h, g) = (hist(&with), hist(&without));
        let opts = Options::default();
        let a = check_gradual_with(&h, &models, &opts);
        let c = check_gradual_with(&g, &models, &opts);
        for (x, y) in a.iter().zip(&c) {
            assert_eq!(x.verdict(), y.verdict(), "{}:\n{with}", x.model);
            assert!(x.invalid.is_none(), "{}: {:?}\n{with}", x.model, x.invalid);
            assert_ne!(x.verdict(), Verdict::Unknown);
        }
    }
    assert!(partial > 200, "{partial} histories with partial fences");
    // the classic case: SB with DMB ISHLD or ISHST is TSO-consistent, with a full fence not
    let sb = |f: &str| hist(&format!("t0: W(x,1) {f} R(y,0)\nt1: W(y,1) {f} R(x,0)\n"));
    assert!(Model::Tso.check(&sb("F.ld")).is_ok());
    assert!(Model::Tso.check(&sb("F.st")).is_ok());
    assert!(Model::Tso.check(&sb("F")).is_err());
}

#[test]
fn misplaced_annotations_are_errors_at_their_position() {
    let cases = [
        // at the annotation's dot
        ("t0: W.acq(x,1)\n", 1, 6, "an acquire annotates a read"),
        (
            "t0: R(x,0) R.rel(x,0)\n",
            1,
            13,
            "a release annotates a write",
        ),
        ("t0: F.acq\n", 1, 6, "F takes `.ld`"),
        ("t0: W(x,1) F.sy\n", 1, 13, "unknown annotation `.sy`"),
        (
            "t0: R.acqrel(x,0)\n",
            1,
            6,
            "`.acqrel` annotates a read-modify-write",
        ),
        ("t0: U.acqpc(x,0,1)\n", 1, 6, "an acquire annotates a read"),
        ("t0: W.(x,1)\n", 1, 7, "expected an annotation after `W.`"),
        ("t0: F.ld.st\n", 1, 5, "unknown operation"),
    ];
    for (text, line, col, msg) in cases {
        let e = parse_hist(text.as_bytes()).expect_err(text);
        let shown = e.to_string();
        assert!(
            shown.contains(&format!("{line}:{col}")) && shown.contains(msg),
            "{text:?}: {shown}"
        );
    }
    // and each accepted one reads back as written
    let text = "t0: R.acq(x,0) R.acqpc(y,0) W.rel(x,1) U.acq(z,0,1) U.rel(z,1,2) U.acqrel(z,2,3) F F.ld F.st\n";
    let raw = parse_hist(text.as_bytes()).expect("parses");
    let out = memconform_parsers::hist::write_hist(&raw);
    assert!(out.ends_with(text), "{out}");
}

#[test]
fn the_dp_engine_keeps_rmw_atomicity() {
    // found by the random RMO histories above: dp placed W(v0,5) between
    // the U and the write it reads, for every store-order model
    let h = hist("t0: W(v0,3) W(v0,5)\nt1: W(v0,1) W(v0,4) R(v0,6)\nt2: U(v0,3,2) W(v0,6)\n");
    for (m, sm) in [
        (Model::Sc, StoreModel::Sc),
        (Model::Tso, StoreModel::Tso),
        (Model::Pso, StoreModel::Pso),
        (Model::Rmo, StoreModel::Rmo),
    ] {
        match decide(
            &h,
            &m.spec(&h, &Definitions::new()).unwrap(),
            Engine::Dp,
            Limits::NONE,
        )
        .result
        {
            Ok(Completion::Found { order, .. }) => {
                validate::store_order(&h, sm, &order).unwrap_or_else(|e| panic!("{m}: {e}"))
            }
            other => panic!("{m}: {other:?}"),
        }
    }
}

/// A read of an initial value that a model's own graph orders before a
/// write of that variable is shown as a cycle of that graph (`x hb r` with
/// `r` reading the initial `x`: `r rw x`), not as a write ordered before
/// the initial write through the uniprocessor graph: store buffering with
/// release/acquire (gem5 #1242's shape) is `CyclicOb` for ARMv8, with full
/// fences `CyclicRmo` and `CyclicPso`, each the four-edge cycle, started at
/// the first operation, and certified.
#[test]
fn store_buffering_is_a_cycle_of_the_models_own_graph() {
    for (text, m, pattern, cycle) in [
        (
            "t0: W.rel(x,1) R.acq(y,0)\nt1: W.rel(y,2) R.acq(x,0)\n",
            Model::Armv8,
            "CyclicOb",
            "t0:W.rel(x,1)@1:5 -bob-> t0:R.acq(y,0)@1:16 -rw-> t1:W.rel(y,2)@2:5 -bob-> t1:R.acq(x,0)@2:16 -rw-> t0:W.rel(x,1)@1:5",
        ),
        (
            "t0: W(x,1) F R(y,0)\nt1: W(y,2) F R(x,0)\n",
            Model::Rmo,
            "CyclicRmo",
            "t0:W(x,1)@1:5 -po-rmo-> t0:R(y,0)@1:14 -rw-> t1:W(y,2)@2:5 -po-rmo-> t1:R(x,0)@2:14 -rw-> t0:W(x,1)@1:5",
        ),
        (
            "t0: W(x,1) F R(y,0)\nt1: W(y,2) F R(x,0)\n",
            Model::Pso,
            "CyclicPso",
            "t0:W(x,1)@1:5 -po-pso-> t0:R(y,0)@1:14 -rw-> t1:W(y,2)@2:5 -po-pso-> t1:R(x,0)@2:14 -rw-> t0:W(x,1)@1:5",
        ),
    ] {
        let h = hist(text);
        assert_eq!(pipeline_pattern(&h, m, text), (false, Some(pattern)), "{m}\n{text}");
        let spec = m.spec(&h, &Definitions::new()).expect("a store-order model");
        match decide(&h, &spec, Engine::Enum, Limits::NONE).result {
            Err(v) => assert_eq!(v.explain(&h), cycle, "{m}\n{text}"),
            other => panic!("{m}: {other:?}\n{text}"),
        }
    }
}
