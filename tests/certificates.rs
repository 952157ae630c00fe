//! Certificates a second program re-checks (docs/design/gradual.md §8): every
//! derived edge of a cycle is re-derived from the history alone, rule by
//! rule, by the validator's own definitions ([`derive`]); a violation with
//! no cycle (`NoStoreOrder`) is decided by brute force. A wrong edge, a
//! forged justification and a wrong `NoStoreOrder` are rejected; every
//! certificate the engines produce is accepted; the re-derived relations
//! are the models' own.

use std::path::Path;
use std::process::Command;

use memconform::budget::Cancel;
use memconform::cat::Definitions;
use memconform::certificate::derive::{self, Order, Rule};
use memconform::certificate::validate::{self, StoreModel};
use memconform::certificate::{Pattern, Rel, Step, Violation};
use memconform::check::{check_gradual_with, Options, Verdict};
use memconform::complete::Saturation;
use memconform::gen::Rng;
use memconform::history::{History, OpId};
use memconform::ingest::load_bytes;
use memconform::models::{ccm, wccm, wsc, Model, StoreOrder};

fn one(text: &str) -> History {
    let mut hs =
        load_bytes(text.as_bytes(), Path::new("test.hist")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hs.len(), 1);
    hs.remove(0)
}

/// The operation described as `text` (`t0:W(x,1)`).
fn op(h: &History, text: &str) -> OpId {
    (0..h.n())
        .find(|&o| h.describe(o) == text)
        .unwrap_or_else(|| panic!("no {text}"))
}

fn cycle(h: &History, pattern: Pattern, edges: &[(&str, Rel, &str)]) -> Violation {
    let steps = edges
        .iter()
        .map(|&(a, rel, b)| Step {
            from: op(h, a),
            rel,
            to: op(h, b),
        })
        .collect();
    Violation::cycle(pattern, steps)
}

/// A wrong `pww` edge is rejected by name; a real CCM violation is
/// accepted, its `pww` edges justified by `hb_WW` or `cf[hb]`.
#[test]
fn a_wrong_pww_edge_is_rejected() {
    let h = one("t0: W(x,1) W(x,2)\nt1: R(x,2) R(y,0)\nt2: W(y,1) W(x,3)\n");
    // W(x,1) po W(x,2): pww; the way back is not
    let wrong = cycle(
        &h,
        Pattern::CyclicPww,
        &[
            ("t0:W(x,1)", Rel::Pww, "t0:W(x,2)"),
            ("t0:W(x,2)", Rel::Pww, "t0:W(x,1)"),
        ],
    );
    let e = validate::violation(&h, &wrong).unwrap_err();
    assert!(e.contains("t0:W(x,2) -pww-> t0:W(x,1)"), "{e}");
    // two writes of different threads that nothing orders
    let unordered = cycle(
        &h,
        Pattern::CyclicPww,
        &[
            ("t0:W(x,1)", Rel::Pww, "t2:W(x,3)"),
            ("t2:W(x,3)", Rel::Pww, "t0:W(x,1)"),
        ],
    );
    assert!(validate::violation(&h, &unordered).is_err());

    // gradual-consistency-checking Fig. 1b: CCv but not CCM
    let fig = one("t0: W(z,1) W(x,1) W(y,1)\nt1: W(x,2) R(z,0) R(y,1) R(x,2)\n");
    let v = ccm::check(&fig, &Cancel::NEVER).unwrap().unwrap_err();
    assert_eq!(v.pattern, Pattern::CyclicPww);
    validate::violation(&fig, &v).unwrap();
    let js = derive::justify(&fig, &v, None).unwrap();
    assert!(!js.is_empty());
    assert!(js.iter().all(|j| matches!(
        j.rule,
        Rule::PwwHbWw | Rule::PwwCfHb | Rule::RwPww | Rule::HbRule2
    )));
    // each cycle edge of a derived relation has its justification
    for s in v
        .cycle
        .iter()
        .filter(|s| matches!(s.rel, Rel::Pww | Rel::Rw))
    {
        assert!(js.iter().any(|j| (j.from, j.to) == (s.from, s.to)), "{s:?}");
    }
}

/// A justification is checked, not trusted: a forged one (a rule that
/// does not apply, a premise path that is not one) is rejected.
#[test]
fn a_forged_justification_is_rejected() {
    let fig = one("t0: W(z,1) W(x,1) W(y,1)\nt1: W(x,2) R(z,0) R(y,1) R(x,2)\n");
    let mut v = ccm::check(&fig, &Cancel::NEVER).unwrap().unwrap_err();
    v.justifications = derive::justify(&fig, &v, None).unwrap();
    validate::violation(&fig, &v).unwrap();
    // every justification's premise path broken in turn
    for i in 0..v.justifications.len() {
        let mut forged = v.clone();
        let j = &mut forged.justifications[i];
        if j.path.is_empty() {
            continue;
        }
        j.path.clear();
        assert!(validate::violation(&fig, &forged).is_err(), "{i}");
    }
    // the pivot read replaced by another read
    let mut forged = v.clone();
    let reads: Vec<OpId> = (0..fig.n()).filter(|&o| fig.is_read(o)).collect();
    for j in &mut forged.justifications {
        if let Some(p) = j.pivot.filter(|&p| fig.is_read(p)) {
            j.pivot = reads.iter().copied().find(|&r| r != p);
        }
    }
    if forged != v {
        assert!(validate::violation(&fig, &forged).is_err());
    }
    // a wrong edge with a made-up justification
    let h = one("t0: W(x,1) W(x,2)\n");
    let (w1, w2) = (op(&h, "t0:W(x,1)"), op(&h, "t0:W(x,2)"));
    let mut wrong = cycle(
        &h,
        Pattern::CyclicPww,
        &[
            ("t0:W(x,1)", Rel::Pww, "t0:W(x,2)"),
            ("t0:W(x,2)", Rel::Pww, "t0:W(x,1)"),
        ],
    );
    wrong.justifications = vec![
        derive::Justification {
            from: w1,
            rel: Rel::Pww,
            to: w2,
            rule: Rule::PwwHbWw,
            seq: 1,
            pivot: None,
            observer: None,
            graph: None,
            path: vec![Step {
                from: w1,
                rel: Rel::Po,
                to: w2,
            }],
        },
        derive::Justification {
            from: w2,
            rel: Rel::Pww,
            to: w1,
            rule: Rule::PwwHbWw,
            seq: 2,
            pivot: None,
            observer: None,
            graph: None,
            path: vec![Step {
                from: w2,
                rel: Rel::Po,
                to: w1,
            }],
        },
    ];
    let e = validate::violation(&h, &wrong).unwrap_err();
    assert!(e.contains("t0:W(x,2) -pww-> t0:W(x,1)"), "{e}");
}

/// A wrong `st` edge (wSC) is rejected; a real wSC violation is accepted.
#[test]
fn a_wrong_st_edge_is_rejected() {
    let h = one("t0: W(x,1) W(x,2)\nt1: R(x,1)\n");
    let wrong = cycle(
        &h,
        Pattern::CyclicSt,
        &[
            ("t0:W(x,2)", Rel::St, "t0:W(x,1)"),
            ("t0:W(x,1)", Rel::Po, "t0:W(x,2)"),
        ],
    );
    let e = validate::violation(&h, &wrong).unwrap_err();
    assert!(e.contains("-st->"), "{e}");
    // store buffering with a third thread's reads: wSC's st closes a cycle
    let mut found = 0;
    let mut rng = Rng::new(11);
    for _ in 0..2000 {
        let h = one(&random_text(&mut rng, false));
        if let Err(v) = wsc::check(&h, &Cancel::NEVER).unwrap() {
            if v.pattern == Pattern::CyclicSt {
                validate::violation(&h, &v).unwrap_or_else(|e| panic!("{e}"));
                found += 1;
                // each st edge turned around is no longer derived
                for (i, s) in v.cycle.iter().enumerate() {
                    if s.rel != Rel::St {
                        continue;
                    }
                    let mut w = v.clone();
                    w.cycle = vec![
                        Step {
                            from: s.to,
                            rel: Rel::St,
                            to: s.from,
                        },
                        Step {
                            from: s.from,
                            rel: Rel::St,
                            to: s.to,
                        },
                    ];
                    let back = derive::justify(&h, &w, None);
                    if back.is_ok() {
                        continue; // both ways derived: a cycle of st itself
                    }
                    assert!(validate::violation(&h, &w).is_err(), "{i}");
                }
            }
        }
    }
    assert!(found > 5, "{found}");
}

/// A wrong `cf` (CCv) and a wrong `hb_o` (CM) edge are rejected.
#[test]
fn a_wrong_cf_or_hb_o_edge_is_rejected() {
    let h = one("t0: W(x,1)\nt1: R(x,1) W(x,2)\n");
    // W(x,2) is not causally before R(x,1): no cf[co] edge W(x,2) → W(x,1)
    let wrong_cf = cycle(
        &h,
        Pattern::CyclicCF,
        &[
            ("t1:W(x,2)", Rel::Cf, "t0:W(x,1)"),
            ("t0:W(x,1)", Rel::Wr, "t1:R(x,1)"),
            ("t1:R(x,1)", Rel::Po, "t1:W(x,2)"),
        ],
    );
    let e = validate::violation(&h, &wrong_cf).unwrap_err();
    assert!(e.contains("t1:W(x,2) -cf-> t0:W(x,1)"), "{e}");
    let mut wrong_hb = wrong_cf.clone();
    wrong_hb.pattern = Pattern::CyclicHB;
    wrong_hb.cycle[0].rel = Rel::HbO;
    wrong_hb
        .ops
        .push((op(&h, "t1:W(x,2)"), "observer o of hb_o"));
    let e = validate::violation(&h, &wrong_hb).unwrap_err();
    assert!(e.contains("-hb_o->"), "{e}");
    // real ones are accepted
    let cm = one("t0: W(x,1) W(y,1)\nt1: W(x,2) W(z,1)\nt2: R(y,1) R(z,1) R(x,1)\n");
    for m in [Model::Ccv, Model::Cm] {
        if let Err(v) = m.check(&cm) {
            validate::violation(&cm, &v).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
    }
}

/// `NoStoreOrder` is decided by brute force: claimed for a history SC
/// accepts it is rejected, claimed for store buffering under SC accepted
/// (and under TSO, which allows it, rejected).
#[test]
fn no_store_order_is_decided_by_brute_force() {
    let no_order = Violation::cycle(Pattern::NoStoreOrder, Vec::new());
    let mp = one("t0: W(x,1) W(y,1)\nt1: R(y,1) R(x,1)\n");
    let e = validate::violation_in(&mp, &no_order, Some(StoreModel::Sc)).unwrap_err();
    assert!(e.contains("a store order satisfies the model"), "{e}");
    let sb = one("t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
    validate::violation_in(&sb, &no_order, Some(StoreModel::Sc)).unwrap();
    assert!(validate::violation_in(&sb, &no_order, Some(StoreModel::Tso)).is_err());
    assert!(validate::violation_in(&sb, &no_order, Some(StoreModel::Pso)).is_err());
    // without a model there is nothing to decide
    assert!(validate::violation(&sb, &no_order).is_err());
}

/// The pipeline's `NoStoreOrder` (an exhausted completion search, no
/// cycle) is certified by brute force and says so.
#[test]
fn an_exhausted_search_is_certified_by_brute_force() {
    let h = one(NO_STORE_ORDER);
    let opts = Options {
        gradual: false,
        ..Options::default()
    };
    let o = check_gradual_with(&h, &[Model::Sc], &opts).pop().unwrap();
    assert_eq!(o.verdict(), Verdict::Violation);
    let v = o.violation().unwrap();
    assert_eq!(v.pattern, Pattern::NoStoreOrder, "{}", v.explain(&h));
    assert!(o.invalid.is_none(), "{:?}", o.invalid);
    assert!(o.uncertified.is_none(), "{:?}", o.uncertified);
    let how = v.certified_by.clone().unwrap();
    assert!(how.contains("brute force"), "{how}");
}

/// A history SC's saturation leaves undecided and its completion search
/// exhausts: wsc-saturation Fig. 1c (wSC but not SC; examples/papers-and-litmus.hist).
const NO_STORE_ORDER: &str = "t0: W(z,1) W(f,1) R(g,1) R(x,1)
t1: W(z,2) W(g,1) R(f,1) R(x,2)
t2: W(x,1) W(h,1) R(k,1) R(z,1)
t3: W(x,2) W(k,1) R(h,1) R(z,2)
";

/// Random small histories: stale reads, RMWs, fences, `@final`.
fn random_text(rng: &mut Rng, extras: bool) -> String {
    let threads = 1 + rng.below(4);
    let mut text = String::new();
    let mut next = [1u64; 3];
    for t in 0..threads {
        text.push_str(&format!("t{t}:"));
        for _ in 0..1 + rng.below(4) {
            let x = rng.below(3);
            let roll = rng.below(10);
            if extras && roll == 0 {
                text.push_str(" F");
            } else if extras && roll == 1 {
                let old = rng.below(next[x] as usize) as u64;
                text.push_str(&format!(" U(v{x},{old},{})", next[x] + 100));
                next[x] += 1;
            } else if roll < 6 {
                text.push_str(&format!(" W(v{x},{})", next[x]));
                next[x] += 1;
            } else {
                let v = rng.below(next[x] as usize) as u64;
                text.push_str(&format!(" R(v{x},{v})"));
            }
        }
        text.push('\n');
    }
    if extras && rng.chance(0.2) {
        let x = rng.below(3);
        text.push_str(&format!("@final v{x}={}\n", rng.below(next[x] as usize)));
    }
    text
}

/// Every certificate the pipeline produces on a few thousand random small
/// histories (with RMWs, fences and `@final`) is accepted by the
/// validator and says how: re-derived, or confirmed by brute force; with
/// the gradual chain, also each model's violation that a weaker model
/// decided.
#[test]
fn every_engine_certificate_is_accepted() {
    let mut rng = Rng::new(23);
    let mut certified = [0usize; 2];
    for gradual in [true, false] {
        for _ in 0..1500 {
            let text = random_text(&mut rng, true);
            let Ok(mut hs) = load_bytes(text.as_bytes(), Path::new("r.hist")) else {
                continue; // an RMW that reads a value never written, a bad @final
            };
            let h = hs.remove(0);
            let opts = Options {
                gradual,
                ..Options::default()
            };
            for o in check_gradual_with(&h, &Model::EVERY, &opts) {
                assert!(o.invalid.is_none(), "{}: {:?}\n{text}", o.model, o.invalid);
                assert!(
                    o.uncertified.is_none(),
                    "{}: {:?}\n{text}",
                    o.model,
                    o.uncertified
                );
                // every violation reported is certified, also one a weaker
                // model of the chain decided (certified when reported)
                if let (Verdict::Violation, Some(v)) = (o.verdict(), o.violation()) {
                    let how = v.certified_by.as_deref();
                    assert!(
                        how.is_some(),
                        "{} by {}: uncertified\n{text}",
                        o.model,
                        o.decided_by
                    );
                    certified[gradual as usize] += 1;
                }
            }
        }
    }
    assert!(certified.iter().all(|&c| c > 500), "{certified:?}");
}

fn pairs(order: &StoreOrder) -> Vec<(OpId, OpId)> {
    let mut p: Vec<(OpId, OpId)> = order.pairs().collect();
    p.sort_unstable();
    p
}

/// The validator's own fixpoints give the models' relations: CCM's `pww`,
/// wCCM's `wpww`, wSC's store order, and the store-order pairs SC, TSO and
/// PSO force (saturation), on random small histories.
#[test]
fn re_derived_relations_are_the_models_own() {
    let mut rng = Rng::new(5);
    let mut compared = 0;
    for _ in 0..1500 {
        let text = random_text(&mut rng, true);
        let Ok(mut hs) = load_bytes(text.as_bytes(), Path::new("r.hist")) else {
            continue;
        };
        let h = hs.remove(0);
        let non_init = |ps: Vec<(OpId, OpId)>| -> Vec<(OpId, OpId)> {
            let mut ps: Vec<_> = ps
                .into_iter()
                .filter(|&(a, b)| !h.is_init(a) && !h.is_init(b))
                .collect();
            ps.sort_unstable();
            ps
        };
        if let Ok(order) = ccm::check(&h, &Cancel::NEVER).unwrap() {
            assert_eq!(
                pairs(&order),
                non_init(derive::order(&h, Order::Pww)),
                "pww\n{text}"
            );
            compared += 1;
        }
        if let Ok(order) = wccm::check(&h, &Cancel::NEVER).unwrap() {
            assert_eq!(
                pairs(&order),
                non_init(derive::order(&h, Order::Wpww)),
                "wpww\n{text}"
            );
            compared += 1;
        }
        if let Ok(order) = wsc::check(&h, &Cancel::NEVER).unwrap() {
            assert_eq!(
                pairs(&order),
                non_init(derive::order(&h, Order::St)),
                "st\n{text}"
            );
            compared += 1;
        }
        for (m, sm) in [
            (Model::Sc, StoreModel::Sc),
            (Model::Tso, StoreModel::Tso),
            (Model::Pso, StoreModel::Pso),
        ] {
            if let Ok(sat) = Saturation::new(&h, &m.spec(&h, &Definitions::new()).unwrap()) {
                let mut want = Vec::new();
                for x in 0..h.vars.len() {
                    for &a in h.writes_of(x) {
                        for &b in h.writes_of(x) {
                            if a != b && sat.ordered(a, b) {
                                want.push((a, b));
                            }
                        }
                    }
                }
                want.sort_unstable();
                let mut got = derive::order(&h, Order::Forced(sm));
                got.sort_unstable();
                assert_eq!(want, got, "{m}\n{text}");
                compared += 1;
            }
        }
    }
    assert!(compared > 3000, "{compared}");
}

/// The command line: a `NoStoreOrder` row is certified (`yes`) by brute
/// force, and the text report says so; a cycle's derived edges are shown
/// with their justifications.
#[test]
fn the_command_line_reports_how_a_certificate_was_checked() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-certificates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("no-store-order.hist");
    std::fs::write(&p, NO_STORE_ORDER).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "check",
            p.to_str().unwrap(),
            "-m",
            "sc",
            "--no-gradual",
            "-f",
            "csv",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let header: Vec<&str> = out.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = out.lines().nth(1).unwrap().split(',').collect();
    let col = |name: &str| row[header.iter().position(|&c| c == name).unwrap()];
    assert_eq!(col("verdict"), "violation");
    assert_eq!(col("certified"), "yes");
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "check",
            "--format",
            "report",
            p.to_str().unwrap(),
            "-m",
            "sc",
            "--no-gradual",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "checked: confirmed by brute force (4 store orders, none valid) on the history"
        ),
        "{out}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "check",
            p.to_str().unwrap(),
            "-m",
            "sc",
            "--no-gradual",
            "-f",
            "json",
        ])
        .output()
        .unwrap();
    let row: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap();
    assert_eq!(row["certified"], "yes");
    let checked = row["checked"].as_str().unwrap();
    assert!(checked.starts_with("confirmed by brute force"), "{checked}");
    // CCM on gradual-consistency-checking Fig. 1b: pww edges, justified
    let q = dir.join("fig1b.hist");
    std::fs::write(
        &q,
        "t0: W(z,1) W(x,1) W(y,1)\nt1: W(x,2) R(z,0) R(y,1) R(x,2)\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "check",
            "--format",
            "report",
            q.to_str().unwrap(),
            "-m",
            "ccm",
            "--no-gradual",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("CyclicPww"), "{out}");
    assert!(out.contains("checked: re-derived on the history"), "{out}");
    assert!(
        out.contains("-pww->") && out.contains("pww t0:W(z,1) → "),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The sparse wCCM engine can report a cycle of `whb` (with a `po-loc`
/// write-read edge in a `ppo` cycle), which is not a cycle of either of
/// wCCM's acyclicity graphs: the validator rejects it, and the pipeline
/// replaces it by the certificate of a shrunk sub-history, re-derived there
/// and re-checked on the whole history, saying so (`memconform gen
/// --threads 2 --ops 20 --vars 2 --seed 1085 --faults 1`).
#[test]
fn a_rejected_engine_certificate_is_replaced_by_a_checked_one() {
    let h = one("t0: R(x1,0) W(x0,1) R(x1,0) R(x0,2) R(x0,3) R(x1,0) W(x0,4) R(x0,4) W(x1,2) R(x0,8) W(x0,9) W(x0,10) W(x1,4) W(x0,11) R(x0,11) W(x1,5) W(x1,6) W(x1,7) R(x0,11) R(x1,1)
t1: R(x1,0) R(x1,0) W(x0,2) R(x0,2) W(x0,3) R(x1,0) R(x0,3) R(x0,3) R(x0,3) R(x0,4) W(x1,1) R(x1,1) W(x0,5) W(x0,6) W(x0,7) R(x0,7) W(x0,8) W(x1,3) R(x0,8) R(x1,3)
");
    let sparse = Options {
        gradual: false,
        scale: memconform::check::scale::Scale::Sparse,
        ..Options::default()
    };
    let o = check_gradual_with(&h, &[Model::Wccm], &sparse)
        .pop()
        .unwrap();
    assert_eq!(o.verdict(), Verdict::Violation);
    assert!(o.invalid.is_none(), "{:?}", o.invalid);
    let v = o.violation().unwrap();
    let how = v.certified_by.as_deref().unwrap();
    assert!(how.contains("replaces the engine's certificate"), "{how}");
    assert!(
        how.contains("is not a po-loc edge of CyclicWpww(ppo)"),
        "{how}"
    );
    // the replacement is a certificate of the whole history
    assert!(v.cycle.iter().all(|s| s.rel != Rel::PoLoc));
    validate::violation(&h, v).unwrap();
}

/// How `m`'s violation of `h` was certified (`None` when `m` holds);
/// fails when the validator rejected it or could not certify it.
fn certified_how(h: &History, m: Model, seed: u64) -> Option<String> {
    let o = check_gradual_with(h, &[m], &Options::default())
        .pop()
        .unwrap();
    if o.verdict() != Verdict::Violation {
        return None;
    }
    assert!(o.invalid.is_none(), "seed {seed}: {:?}", o.invalid);
    let how = o.violation().unwrap().certified_by.clone();
    Some(how.unwrap_or_else(|| panic!("seed {seed}: not certified: {:?}", o.uncertified)))
}

/// At scale (over the validator's 2,000 operations), a PSO violation from
/// one stale read is certified on the sub-history of the operations its
/// certificate names, the reads that fire its store-order edges included
/// (`shrink::certificate_core`), or of those TSO's certificate names when
/// PSO's violation was found there, not by shrinking the whole history; the
/// stale read is what generation injected, so each history is violated.
#[test]
fn a_stale_read_at_scale_is_certified_on_its_certificates_operations() {
    use memconform::gen::{inject_stale_read, threads, Memory, Shape};
    let mut on_core = 0;
    let mut seen = 0;
    for seed in 11..17u64 {
        let shape = Shape {
            threads: 4,
            ops_per_thread: 800,
            vars: 8,
            write_ratio: 0.5,
        };
        let mut program = threads(Memory::Tso, shape, seed);
        let mut rng = Rng::new(seed);
        if !inject_stale_read(&mut program, &mut rng) {
            continue;
        }
        let Ok(h) = History::from_threads(&program) else {
            continue;
        };
        let Some(how) = certified_how(&h, Model::Pso, seed) else {
            continue;
        };
        seen += 1;
        // a cycle of base edges alone is checked on the history itself; a
        // violation TSO's attempt found, on that certificate's operations
        let core = how.contains("on the sub-history of the operations it names")
            || how.contains("on the sub-history of TSO's certificate");
        assert!(
            how.ends_with("on the history") || core,
            "seed {seed}: {how}"
        );
        on_core += usize::from(core);
    }
    assert!(seen >= 4, "only {seen} violated histories");
    assert!(on_core >= 3, "certified on the core: {on_core} of {seen}");
}

/// At scale, an SC violation of a TSO-generated history (store buffering:
/// its store-order edges derived from chains of other derived edges, not
/// from one read) is certified: on a window of program order around the
/// engines' cycle, whose own certificate the validator re-derives there,
/// when the cycle's own operations do not keep it (before: a shrink of the
/// whole history, past the validator's limit at 10⁶ operations).
#[test]
fn an_sc_violation_at_scale_is_certified_on_a_window_of_it() {
    use memconform::gen::{threads, Memory, Shape};
    let mut windows = 0;
    let mut seen = 0;
    for seed in 1..9u64 {
        let shape = Shape {
            threads: 4,
            ops_per_thread: 1000,
            vars: 16,
            write_ratio: 0.5,
        };
        let Ok(h) = History::from_threads(&threads(Memory::Tso, shape, seed)) else {
            continue;
        };
        let Some(how) = certified_how(&h, Model::Sc, seed) else {
            continue;
        };
        seen += 1;
        assert!(!how.contains("shrunk"), "seed {seed}: {how}");
        windows += usize::from(how.contains("a window of"));
    }
    assert!(seen >= 4, "only {seen} violated histories");
    assert!(windows >= 1, "none certified on a window ({seen} violated)");
}

/// gradual-consistency-checking Fig. 1b (CM and CCM violated, CC not)
/// beside a thread of 2,100 operations of its own variable: over the
/// validator's 2,000 operations, CM's `hb_o` cycle and CCM's `pww` cycle
/// are certified on the history itself by the engine's proof (each derived
/// edge justified by rule 2, premises recursively), which the validator
/// checks edge by edge; a proof without its premise paths, or with another
/// observer, is rejected (docs/design/gradual.md §8).
#[test]
fn cm_and_ccm_at_scale_are_certified_by_the_engines_proof() {
    let mut text = String::from("t0: W(z,1) W(x,1) W(y,1)\nt1: W(x,2) R(z,0) R(y,1) R(x,2)\nt2:");
    for i in 1..=1050 {
        text.push_str(&format!(" W(p,{i}) R(p,{i})"));
    }
    text.push('\n');
    let h = one(&text);
    assert!(h.n() > 2000);
    for m in [Model::Cm, Model::Ccm] {
        let o = check_gradual_with(&h, &[m], &Options::default())
            .pop()
            .unwrap();
        assert_eq!(o.verdict(), Verdict::Violation, "{m}");
        assert!(o.invalid.is_none(), "{m}: {:?}", o.invalid);
        let v = o.violation().unwrap();
        let how = v.certified_by.as_deref().unwrap_or_else(|| {
            panic!("{m}: not certified: {:?}", o.uncertified);
        });
        assert!(how.starts_with("proof-checked"), "{m}: {how}");
        assert!(
            v.justifications.iter().any(|j| j.rule == Rule::HbRule2),
            "{m}: {v:?}"
        );
        validate::violation(&h, v).unwrap();
        // rule 2 without its premise paths justifies nothing
        let mut bare = v.clone();
        for j in &mut bare.justifications {
            if j.rule == Rule::HbRule2 {
                j.path.clear();
            }
        }
        assert!(validate::violation(&h, &bare).is_err(), "{m}");
        // rule 2 for an observer that has no such read before it
        let mut other = v.clone();
        let t2 = op(&h, "t2:W(p,1)");
        for j in &mut other.justifications {
            if j.observer.is_some() {
                j.observer = Some(t2);
            }
        }
        assert!(validate::violation(&h, &other).is_err(), "{m}");
    }
}
