//! The engines against the definitions, on random small histories: the
//! dense polynomial models, the store-order models' graphs, the witness
//! checker of the validator, the completion engines, the validator's
//! program orders.

use super::sample::{self, Sample};
use super::*;
use crate::budget::Limits;
use crate::certificate::witness::{self, StoreModel};
use crate::complete::{self, Completion, Engine};
use crate::history::{History, OpId};
use crate::models::{Model, Store, StoreOrder};
use crate::relation::{topological_order, BitMatrix};

fn shape(seed: u64) -> Sample {
    Sample {
        threads: 3,
        ops: 6,
        vars: 3,
        annotations: true,
        timed: seed.is_multiple_of(3),
        finals: true,
        thin_air: true,
        stale: [0.05, 0.2, 1.0][(seed % 5 % 3) as usize],
    }
}

fn store_model(m: Model) -> StoreModel {
    match m.facts().store {
        Some(Store::Ww(sm)) => sm,
        _ => panic!("{m} has no store order to guess"),
    }
}

/// Up to `max` total store orders of `h` (per variable, initial write
/// first), in odometer order.
fn store_orders(h: &History, max: usize) -> Vec<Vec<Vec<OpId>>> {
    let nv = h.vars.len();
    let mut perms: Vec<Vec<OpId>> = (0..nv).map(|x| h.writes_of(x)[1..].to_vec()).collect();
    let mut out = Vec::new();
    'all: while out.len() < max {
        out.push(
            (0..nv)
                .map(|x| std::iter::once(x).chain(perms[x].iter().copied()).collect())
                .collect(),
        );
        for p in perms.iter_mut() {
            if super::eval::next_permutation(p) {
                continue 'all;
            }
        }
        break;
    }
    out
}

#[test]
fn every_definition_parses_and_fits_a_page() {
    let defs = Definitions::new();
    for m in Model::EVERY {
        let d = defs.get(m);
        let lines = defs::text(m.name()).expect("defined").lines().count();
        assert!(lines <= 40, "{m}: {lines} lines");
        assert_eq!(d.uses_ww(), Model::STORE.contains(&m), "{m}");
        assert!(d.axioms().contains(&Axiom::Pattern(Pattern::ThinAirRead)));
        // the `rw` the completion engines add to each graph is `wr^-1 ; ww`
        if d.uses_ww() {
            let rw = d.stmts.iter().find_map(|s| match s {
                Stmt::Let { name, body, .. } if name == "rw" => Some(body.clone()),
                _ => None,
            });
            let want = Expr::Seq(vec![
                Expr::Inv(Box::new(Expr::Base(BaseRel::Wr))),
                Expr::Base(BaseRel::Ww),
            ]);
            assert_eq!(rw, Some(Body::Rel(want)), "{m}");
        }
    }
    assert!(Definition::parse("cc").is_ok());
    let bad = |text: &str| {
        let mut p = Parser {
            stmts: Vec::new(),
            lets: Vec::new(),
            toks: lex(text).unwrap(),
            at: 0,
            param: None,
        };
        p.stmt()
    };
    assert!(bad("acyclic po | nope as CyclicCO").is_err());
    assert!(bad("acyclic po as NoSuchPattern").is_err());
    assert!(bad("empty [W & Nope] as final").is_err());
}

/// Precedence, loosest first: `|`, `\`, `&`, `;`, postfix.
#[test]
fn operators_bind_as_documented() {
    let mut p = Parser {
        stmts: Vec::new(),
        lets: Vec::new(),
        toks: lex("a | b \\ c & d ; e+").unwrap(),
        at: 0,
        param: None,
    };
    for n in ["a", "b", "c", "d", "e"] {
        p.lets.push(Declared {
            name: n.into(),
            set: false,
            param: false,
        });
    }
    let named = |n: &str| Box::new(Expr::Named(n.into(), false));
    assert_eq!(
        p.expr().unwrap(),
        Expr::Union(vec![
            *named("a"),
            Expr::Diff(
                named("b"),
                Box::new(Expr::Inter(
                    named("c"),
                    Box::new(Expr::Seq(vec![*named("d"), Expr::Plus(named("e"))]))
                ))
            )
        ])
    );
}

/// CC … wSC: the dense model holds exactly when its definition does; a
/// violation names an axiom the definition finds broken; CCM's, wCCM's and
/// wSC's partial store orders are the definitions' `pww`, `wpww`, `hb_WW`.
/// The definitions take every event as an observer `o`, the models only
/// the po-maximal ones (causal-consistency-datalog Thm 2).
#[test]
fn the_polynomial_models_are_their_definitions() {
    let defs = Definitions::new();
    let mut violated = [0usize; 6];
    for seed in 0..3000u64 {
        let (h, text) = sample::history(shape(seed), seed);
        for (i, m) in Model::ALL.into_iter().enumerate() {
            let got = m.check(&h);
            let mut interp = Interp::new(&h, defs.get(m), None);
            let fails = interp.failures();
            assert_eq!(
                got.is_ok(),
                fails.is_empty(),
                "{m} seed {seed}: {got:?} / {fails:?}\n{text}"
            );
            match &got {
                Err(v) => {
                    violated[i] += 1;
                    assert!(
                        fails.iter().any(|f| f.axiom == Axiom::Pattern(v.pattern)),
                        "{m} seed {seed}: {:?} not in {fails:?}\n{text}",
                        v.pattern
                    );
                }
                Ok(Some(order)) => {
                    let name = match m {
                        Model::Ccm => "pww",
                        Model::Wccm => "wpww",
                        _ => "hb",
                    };
                    assert_eq!(
                        *order,
                        StoreOrder::project(&h, &interp.rel(name)),
                        "{m} seed {seed}\n{text}"
                    );
                }
                Ok(None) => {}
            }
        }
    }
    // each model is violated on some of them, and holds on others
    for (i, v) in violated.iter().enumerate() {
        assert!(*v > 30 && *v < 2970, "{}: {v} violations", Model::ALL[i]);
    }
}

/// `acyclic(fixed ∪ ww ∪ rw)` for one graph of a model's [`crate::models::Spec`].
fn graph_acyclic(
    h: &History,
    fixed: &[(crate::certificate::Rel, BitMatrix)],
    ww: &BitMatrix,
) -> bool {
    let mut m = ww.clone();
    m.union_with(&BitMatrix::fn_seq(|r| h.rf(r), ww.clone()));
    for (_, f) in fixed {
        m.union_with(f);
    }
    topological_order(&m).is_ok()
}

/// SC, TSO, PSO, RMO, ARMv8 given a store order: the validator's witness
/// check accepts exactly the orders the definition does; each acyclicity
/// graph the completion engines search over is acyclic exactly when the
/// definition's check of its pattern holds (ARMv8: its two graphs, the
/// framework's, together exactly when `internal` and `external` hold,
/// docs/design/weak.md §3); the relations kept by hand are the
/// definitions' `let`s of their names.
#[test]
fn the_store_models_given_a_store_order_are_their_definitions() {
    let defs = Definitions::new();
    let mut outcomes = [[0usize; 2]; 5];
    for seed in 0..1500u64 {
        let (h, text) = sample::history(shape(seed), seed);
        for (i, m) in Model::STORE.into_iter().enumerate() {
            let def = defs.get(m);
            let spec = m.spec(&h, &defs).expect("a store-order model");
            for order in store_orders(&h, 24) {
                let ww = ww_of_order(&h, &order);
                let mut interp = Interp::new(&h, def, Some(ww.clone()));
                let fails = interp.failures();
                let valid = witness::store_order(&h, store_model(m), &order);
                outcomes[i][valid.is_ok() as usize] += 1;
                assert_eq!(
                    valid.is_ok(),
                    fails.is_empty(),
                    "{m} seed {seed} order {order:?}: {valid:?} / {fails:?}\n{text}"
                );
                if h.thin_air_reads().next().is_some() {
                    continue;
                }
                let broken = |p: Pattern| fails.iter().any(|f| f.axiom == Axiom::Pattern(p));
                if m == Model::Armv8 {
                    let graphs = spec.graphs.iter().all(|g| graph_acyclic(&h, &g.fixed, &ww));
                    let cat = !broken(Pattern::CyclicUniproc) && !broken(Pattern::CyclicOb);
                    assert_eq!(graphs, cat, "{m} seed {seed} order {order:?}\n{text}");
                } else {
                    for g in &spec.graphs {
                        assert_eq!(
                            graph_acyclic(&h, &g.fixed, &ww),
                            !broken(g.pattern),
                            "{m} {} seed {seed} order {order:?}\n{text}",
                            g.pattern.name()
                        );
                    }
                }
                // the forms by hand (the specs' and the pairwise ones at scale)
                use crate::models::{armv8, spec};
                let mut by_hand: Vec<(&str, BitMatrix)> = spec::BY_HAND
                    .iter()
                    .filter(|(of, _, _)| *of == m.name())
                    .map(|&(_, name, form)| (name, form(&h)))
                    .collect();
                if m == Model::Armv8 {
                    by_hand.push(("aob", armv8::aob(&h)));
                }
                for (name, theirs) in by_hand {
                    assert_eq!(theirs, interp.rel(name), "{m} {name} seed {seed}\n{text}");
                }
            }
        }
    }
    for (i, [bad, good]) in outcomes.iter().enumerate() {
        assert!(
            *bad > 100 && *good > 100,
            "{}: {bad} / {good}",
            Model::STORE[i]
        );
    }
}

/// Every completion engine finds a store order exactly when one satisfies
/// the definition (every order tried).
#[test]
fn the_completion_engines_decide_the_store_definitions() {
    let defs = Definitions::new();
    let mut consistent = [0usize; 5];
    for seed in 0..400u64 {
        let s = Sample {
            thin_air: false,
            ..shape(seed)
        };
        let (h, text) = sample::history(s, seed);
        for (i, m) in Model::STORE.into_iter().enumerate() {
            let Some(want) = holds_for_some_store_order(&h, defs.get(m), 2000) else {
                continue;
            };
            consistent[i] += want.is_some() as usize;
            let spec = m.spec(&h, &defs).expect("a store-order model");
            for e in [Engine::Enum, Engine::Sat, Engine::Dp, Engine::Interleave] {
                let got = complete::decide(&h, &spec, e, Limits::NONE);
                let found = match got.result {
                    Ok(Completion::Found { order, .. }) => {
                        let ww = ww_of_order(&h, &order);
                        let fails = Interp::new(&h, defs.get(m), Some(ww)).failures();
                        assert_eq!(fails, vec![], "{m} {e:?} seed {seed}\n{text}");
                        true
                    }
                    Ok(Completion::Exhausted) | Err(_) => false,
                    Ok(other) => panic!("{m} {e:?} seed {seed}: {other:?}"),
                };
                assert_eq!(found, want.is_some(), "{m} {e:?} seed {seed}\n{text}");
            }
        }
    }
    for (i, c) in consistent.iter().enumerate() {
        assert!(*c > 40 && *c < 390, "{}: {c} consistent", Model::STORE[i]);
    }
}

/// The validator's re-derivation keeps its own program orders
/// (certificate::derive); they are the definitions' `ppo`, `po-pso`,
/// `po-loc` and RMO's, pair by pair.
#[test]
fn the_validators_program_orders_are_the_definitions() {
    let defs = Definitions::new();
    use crate::certificate::derive::Pi;
    for seed in 0..300u64 {
        let (h, text) = sample::history(shape(seed), seed);
        let ww = ww_of_order(&h, &store_orders(&h, 1)[0]);
        let cases = [
            (Pi::PpoTso, Model::Tso, "ppo"),
            (Pi::PoPso, Model::Pso, "po-pso"),
            (Pi::PoLoc, Model::Tso, "po-loc"),
            (Pi::PpoW, Model::Wccm, "ppo"),
            (Pi::PoLocLlh, Model::Rmo, "po-loc"),
            (Pi::PoRmo, Model::Rmo, "po-rmo"),
        ];
        for (pi, m, name) in cases {
            let ours = Interp::new(&h, defs.get(m), Some(ww.clone())).rel(name);
            let bits = pi.matrix(&h);
            let mut theirs = BitMatrix::new(h.n());
            for a in 0..h.n() {
                for b in bits.ones(a) {
                    theirs.set(a, b);
                }
            }
            assert_eq!(theirs, ours, "{pi:?} seed {seed}\n{text}");
        }
    }
}

fn hist(text: &str) -> History {
    let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).expect("parses");
    History::from_raw(&raw[0], 0).expect("valid")
}

/// Litmus tests each definition line must decide as its paper does, for
/// every store order (the store models) or once (the others): `(text,
/// model, the axioms broken, or none)`.
#[test]
fn litmus_tests_break_the_axioms_the_papers_name() {
    use Pattern::*;
    let cases: [(&str, Model, &[Axiom]); 14] = [
        // message passing, release then acquire (or RCpc acquire): ARMv8
        // forbids it; LB is allowed without dependencies
        (
            "t0: W(x,1) W.rel(y,1)\nt1: R.acq(y,1) R(x,0)\n",
            Model::Armv8,
            &[Axiom::Pattern(CyclicOb)],
        ),
        (
            "t0: W(x,1) W.rel(y,1)\nt1: R.acqpc(y,1) R(x,0)\n",
            Model::Armv8,
            &[Axiom::Pattern(CyclicOb)],
        ),
        ("t0: W(x,1) W(y,1)\nt1: R(y,1) R(x,0)\n", Model::Armv8, &[]),
        ("t0: R(x,1) W(y,1)\nt1: R(y,1) W(x,1)\n", Model::Armv8, &[]),
        // 2+2W with F.st in both threads: RMO forbids it
        (
            "t0: W(x,1) F.st W(y,2)\nt1: W(y,1) F.st W(x,2)\n@final x=1 y=1\n",
            Model::Rmo,
            &[
                Axiom::Pattern(CyclicRmo),
                Axiom::Final,
                Axiom::Pattern(CyclicUniproc),
            ],
        ),
        // store buffering: TSO allows it, SC does not
        (
            "t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n",
            Model::Sc,
            &[Axiom::Pattern(CyclicSc)],
        ),
        ("t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n", Model::Tso, &[]),
        // a full fence restores it under TSO
        (
            "t0: W(x,1) F R(y,0)\nt1: W(y,1) F R(x,0)\n",
            Model::Tso,
            &[Axiom::Pattern(CyclicTso)],
        ),
        // two RMWs reading the same write
        (
            "t0: U(x,0,1)\nt1: U(x,0,2)\n",
            Model::Tso,
            &[Axiom::Atomicity],
        ),
        // @final of a po-overwritten value: the order with x=1 last breaks
        // the uniprocessor graph, the other @final
        (
            "t0: W(x,1) W(x,2)\n@final x=1\n",
            Model::Pso,
            &[Axiom::Final, Axiom::Pattern(CyclicUniproc)],
        ),
        // ARMv8: message passing with a release then an own later write
        // read by a fenced reader (`po; [L]; coi`)
        (
            "t0: R(x,1) W.rel(y,1) W(y,2)\nt1: R(y,2) F W(x,1)\n",
            Model::Armv8,
            &[Axiom::Pattern(CyclicOb), Axiom::Pattern(CyclicUniproc)],
        ),
        // RMO allows CoRR (load-load hazard)
        ("t0: W(x,1)\nt1: R(x,1) R(x,0)\n", Model::Rmo, &[]),
        // CC: WriteCOInitRead
        (
            "t0: W(x,1) W(y,1)\nt1: R(y,1) R(x,0)\n",
            Model::Cc,
            &[Axiom::Pattern(WriteCOInitRead)],
        ),
        // CM: a read of the initial value before a causally later read
        (
            "t0: W(x,1) W(y,1)\nt1: W(y,2) R(x,0) R(y,1)\n",
            Model::Cm,
            &[],
        ),
    ];
    let defs = Definitions::new();
    for (text, m, want) in cases {
        let h = hist(text);
        let def = defs.get(m);
        // the validator's witness check and the engines agree
        let orders = store_orders(&h, 1000);
        if def.uses_ww() {
            for o in &orders {
                let mut i = Interp::new(&h, def, Some(ww_of_order(&h, o)));
                let valid = witness::store_order(&h, store_model(m), o).is_ok();
                assert_eq!(valid, i.first_failure().is_none(), "{m}: {text} {o:?}");
            }
        }
        assert_eq!(m.check(&h).is_ok(), want.is_empty(), "{m}: {text}");
        let broken: Vec<Vec<Axiom>> = match def.uses_ww() {
            true => orders
                .iter()
                .map(|o| {
                    let mut i = Interp::new(&h, def, Some(ww_of_order(&h, o)));
                    i.failures().into_iter().map(|f| f.axiom).collect()
                })
                .collect(),
            false => vec![Interp::new(&h, def, None)
                .failures()
                .into_iter()
                .map(|f| f.axiom)
                .collect()],
        };
        match want.is_empty() {
            // some store order (or the one check) breaks nothing
            true => assert!(
                broken.iter().any(|b| b.is_empty()),
                "{m}: {text}: {broken:?}"
            ),
            // every order breaks one of `want`
            false => assert!(
                broken.iter().all(|b| b.iter().any(|a| want.contains(a))),
                "{m}: {text}: {broken:?}"
            ),
        }
    }
}
