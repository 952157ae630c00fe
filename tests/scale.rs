//! The sparse engines (frontiers on lanes, for histories past the dense
//! size) against the dense ones and the brute-force oracles, on random small
//! histories forced onto the sparse path: untimed and timed (interval-order
//! threads, so lanes and cross edges), with fences, RMWs and finals. Every
//! certificate is re-checked by the validator.

mod brute;
mod support;

use memconform::check::scale::Scale;
use memconform::check::{check_gradual_with, Options, Verdict};
use memconform::complete::Engine;
use memconform::history::History;
use memconform::ingest::load_bytes;
use memconform::models::Model;

/// `enum`, not `auto`: on timed histories `auto` first tries the ticks'
/// store order, which would bypass the engines compared here.
fn opts(scale: Scale) -> Options {
    Options {
        gradual: false,
        timeout: None,
        scale,
        engine: Engine::Enum,
        ..Options::default()
    }
}

const MODELS: [Model; 9] = [
    Model::Cc,
    Model::Ccv,
    Model::Cm,
    Model::Ccm,
    Model::Wsc,
    Model::Sc,
    Model::Tso,
    Model::Pso,
    Model::Wccm,
];

/// Sparse and dense agree on every model; both certificates validate.
/// Returns the sparse verdicts.
fn agree(h: &History, what: &dyn Fn() -> String) -> Vec<Verdict> {
    let dense = check_gradual_with(h, &MODELS, &opts(Scale::Dense));
    let sparse = check_gradual_with(h, &MODELS, &opts(Scale::Sparse));
    for (d, s) in dense.iter().zip(&sparse) {
        assert!(
            d.invalid.is_none(),
            "dense {}: {:?}\n{}",
            d.model,
            d.invalid,
            what()
        );
        assert!(
            s.invalid.is_none(),
            "sparse {}: {:?} ({:?})\n{}",
            s.model,
            s.invalid,
            s.violation().map(|v| v.explain(h)),
            what()
        );
        assert_eq!(
            d.verdict(),
            s.verdict(),
            "{}: dense {:?} / sparse {:?} ({:?} / {:?})\n{}",
            d.model,
            d.verdict(),
            s.verdict(),
            d.violation().map(|v| v.explain(h)),
            s.violation().map(|v| v.explain(h)),
            what()
        );
        if matches!(d.model, Model::Wsc | Model::Ccm | Model::Wccm)
            && d.verdict() == Verdict::Consistent
        {
            // the same partial store order, counted
            let (a, b) = (d.store_order(), s.store_order());
            assert_eq!(
                a.map(|o| o.ordered_pairs()),
                b.map(|o| o.ordered_pairs()),
                "{} store order\n{}",
                d.model,
                what()
            );
        }
        if matches!(d.model, Model::Sc | Model::Tso) && d.verdict() == Verdict::Consistent {
            assert_eq!(
                d.unordered_after_saturation,
                s.unordered_after_saturation,
                "{}: pairs left by saturation\n{}",
                d.model,
                what()
            );
        }
    }
    sparse.iter().map(|o| o.verdict()).collect()
}

fn parse(text: &str) -> History {
    load_bytes(text.as_bytes(), std::path::Path::new("x.hist"))
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .remove(0)
}

/// Adds `@issue-complete` ticks to every operation of an x_to_hist text:
/// random overlapping intervals, so threads are interval orders.
fn timed(text: &str, seed: u64) -> String {
    let mut rng = memconform::gen::Rng::new(seed);
    text.lines()
        .map(|line| {
            if line.starts_with('@') {
                return line.to_string();
            }
            let (head, ops) = line.split_once(':').expect("thread line");
            let mut t = 0u64;
            let ops: Vec<String> = ops
                .split_whitespace()
                .map(|tok| {
                    t += rng.below(3) as u64;
                    let done = t + rng.below(4) as u64;
                    format!("{tok}@{t}-{done}")
                })
                .collect();
            format!("{head}: {}", ops.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn run(seeds: std::ops::Range<u64>) {
    let mut held = [0usize; 9];
    let mut n = 0;
    let mut ticks = 0;
    let mut implied = 0;
    for seed in seeds {
        // causal fixtures' generator (plain reads and writes) against brute force
        let b = brute::random_history(seed, 8);
        let h = support::to_history(&b);
        let want = brute::verdicts(&b);
        let got = agree(&h, &|| format!("seed {seed}: {:?}", b.threads));
        assert_eq!(got[0] == Verdict::Consistent, want.cc, "seed {seed} cc");
        assert_eq!(got[2] == Verdict::Consistent, want.cm, "seed {seed} cm");
        assert_eq!(got[3] == Verdict::Consistent, want.ccm, "seed {seed} ccm");
        assert_eq!(got[4] == Verdict::Consistent, want.wsc, "seed {seed} wsc");
        // fences, RMWs, finals against axe's machines
        let x = brute::x_random_history(seed, 10);
        let text = brute::x_to_hist(&x);
        let h = parse(&text);
        let want = brute::x_operational(&x);
        let got = agree(&h, &|| format!("seed {seed}\n{text}"));
        for (i, w) in [(5, want.sc), (6, want.tso), (7, want.pso)] {
            assert_eq!(
                got[i] == Verdict::Consistent,
                w,
                "seed {seed} model {i}\n{text}"
            );
        }
        // timed threads: interval orders on lanes
        let text = timed(&text, seed);
        let h = parse(&text);
        let got = agree(&h, &|| format!("seed {seed}\n{text}"));
        for (k, v) in got.iter().enumerate() {
            held[k] += (*v == Verdict::Consistent) as usize;
        }
        // `auto` (the ticks' order when the validator takes it) agrees
        let auto = check_gradual_with(
            &h,
            &MODELS[5..8],
            &Options {
                engine: Engine::Auto,
                ..opts(Scale::Auto)
            },
        );
        for (o, want) in auto.iter().zip(&got[5..]) {
            assert!(o.invalid.is_none(), "{}: {:?}", o.model, o.invalid);
            assert_eq!(
                o.verdict(),
                *want,
                "{} auto vs enum, seed {seed}\n{text}",
                o.model
            );
            ticks += (o.engine == Some(Engine::Ticks)) as usize;
        }
        // gradual `auto`: a stronger model's validated ticks witness decides
        // the models it implies; every verdict is still each model's own
        let gradual = check_gradual_with(
            &h,
            &MODELS,
            &Options {
                engine: Engine::Auto,
                gradual: true,
                ..opts(Scale::Auto)
            },
        );
        for (o, want) in gradual.iter().zip(&got) {
            assert!(o.invalid.is_none(), "{}: {:?}", o.model, o.invalid);
            assert_eq!(
                o.verdict(),
                *want,
                "{} gradual auto, seed {seed}\n{text}",
                o.model
            );
            if o.verdict() == Verdict::Consistent && o.decided_by != o.model {
                assert!(o.decided_by.implies(o.model), "{o:?}");
                implied += 1;
            }
        }
        n += 1;
    }
    assert!(ticks > n / 10, "the ticks' order decided {ticks} times");
    assert!(
        implied > n / 10,
        "implied by a stronger model {implied} times"
    );
    // both verdicts occur for every model
    for (m, k) in MODELS.iter().zip(held) {
        assert!(
            k > n / 20 && k < n - n / 20,
            "{m}: {k} of {n} timed histories hold"
        );
    }
}

#[test]
fn sparse_engines_agree_with_dense_and_brute_force() {
    run(0..1500);
}

/// The long run for the evidence: `cargo test --release --test scale -- --ignored`.
#[test]
#[ignore]
fn sparse_engines_agree_on_100k_random_histories() {
    run(0..100_000);
}

/// Larger generated histories (SC, TSO and PSO memories, with a stale read
/// injected into every other one): sparse and dense agree on every model.
#[test]
fn sparse_engines_agree_on_generated_histories() {
    use memconform::gen::{inject_stale_read, threads, Memory, Rng, Shape};
    let mut violations = 0;
    for memory in [Memory::Sc, Memory::Tso, Memory::Pso] {
        for seed in 0..8u64 {
            let shape = Shape {
                threads: 3 + seed as usize % 4,
                ops_per_thread: 40,
                vars: 4 + seed as usize % 5,
                write_ratio: 0.5,
            };
            let mut program = threads(memory, shape, seed);
            if seed % 2 == 1 {
                inject_stale_read(&mut program, &mut Rng::new(seed));
            }
            let h = History::from_threads(&program).unwrap();
            let got = agree(&h, &|| format!("{memory:?} seed {seed}"));
            violations += got.iter().filter(|v| **v == Verdict::Violation).count();
        }
    }
    assert!(violations > 10, "{violations} violations");
}

/// The papers' figures and the litmus tests, on the sparse engines: every
/// `@expect` verdict reproduced.
#[test]
fn sparse_engines_reproduce_the_fixtures() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/papers-and-litmus.hist");
    let hs = memconform::ingest::load_file(&path).unwrap();
    let mut checked = 0;
    for h in &hs {
        let out = check_gradual_with(h, &MODELS, &opts(Scale::Sparse));
        for o in out {
            assert!(
                o.invalid.is_none(),
                "{:?} {}: {:?}",
                h.name,
                o.model,
                o.invalid
            );
            if let Some((_, want)) = h.expect.iter().find(|(m, _)| m == o.model.name()) {
                assert_eq!(
                    o.verdict() == Verdict::Consistent,
                    *want,
                    "{:?}: {} {:?}",
                    h.name,
                    o.model,
                    o.violation().map(|v| v.explain(h))
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "{checked} expectations");
}

/// A thread that ends with a fence still observes: `hb^ppo` holds
/// `t0:W(v0,1) → t3:W(v0,2)` (through `W(v1,3) wre U.r ppo W(v0,2)`), whose
/// only π-maximal operation after it is t3's fence. Dense and sparse wCCM
/// both order that pair (found by the 10⁵-history run: the dense engine used
/// to skip fence observers and ordered 3 pairs, the sparse one 4).
#[test]
fn a_fence_ended_thread_observes_in_wccm() {
    let h = parse(
        "@final v1=3\nt0: W(v0,1) U(v1,2,2) W(v1,3)\nt1: R(v0,1)\nt2: W(v0,3) R(v1,1)\nt3: U(v1,3,1) W(v0,2) F\n",
    );
    let w01 = (0..h.n()).find(|&o| h.describe(o) == "t0:W(v0,1)").unwrap();
    let w02 = (0..h.n()).find(|&o| h.describe(o) == "t3:W(v0,2)").unwrap();
    for scale in [Scale::Dense, Scale::Sparse] {
        let o = &check_gradual_with(&h, &[Model::Wccm], &opts(scale))[0];
        assert_eq!(o.verdict(), Verdict::Consistent, "{scale:?}");
        let order = o.store_order().expect("a partial store order");
        assert_eq!(order.ordered_pairs(), 4, "{scale:?}");
        if scale == Scale::Dense {
            assert!(order.contains(w01, w02), "{:?}", order);
        }
    }
}

/// The program-order graphs at scale (`lanes::graph`: sequences, the cross
/// edges between a thread's sub-chains, the initial writes' edges, `wr`)
/// reach exactly the pairs of the dense `(π ∪ wr)⁺` — SC's `po ∪ wr`,
/// TSO's `ppo ∪ wre`, PSO's `po-pso ∪ wre` — and are cyclic exactly when
/// it is, on random histories with fences and RMWs, untimed and timed
/// (several lanes a thread).
#[test]
fn lane_graphs_reach_exactly_the_dense_closure() {
    use memconform::models;
    use memconform::relation::transitive_closure;
    use memconform::scale::{lanes, pso, sc, tso, Frontier};
    let mut compared = 0usize;
    for seed in 0..1500u64 {
        let text = brute::x_to_hist(&brute::x_random_history(seed, 10 + seed as usize % 20));
        for h in [parse(&text), parse(&timed(&text, seed))] {
            let lanes = lanes::lanes(&h);
            let external = |w: usize, r: usize| !h.po_before(w, r) && !h.po_before(r, w);
            let cases = [
                ("sc", sc::graph(&h, &lanes), h.po().clone(), false),
                (
                    "tso",
                    tso::graphs(&h, &lanes, false).remove(0).1,
                    models::tso::ppo(&h),
                    true,
                ),
                (
                    "pso",
                    pso::graphs(&h, &lanes, false).remove(0).1,
                    models::pso::po_pso(&h),
                    true,
                ),
            ];
            for (model, g, mut dense, wre) in cases {
                for r in 0..h.n() {
                    if let (true, Some(w)) = (h.is_read(r), h.rf(r)) {
                        if !wre || external(w, r) {
                            dense.set(w, r);
                        }
                    }
                }
                let closure = transitive_closure(&dense);
                let on: Vec<bool> = (0..h.n()).map(|x| g.on_sequence(x as u32)).collect();
                match (Frontier::new(g), closure) {
                    (Ok(f), Ok(closure)) => {
                        for a in 0..h.n() {
                            for b in (0..h.n()).filter(|&b| b != a && on[b]) {
                                assert_eq!(
                                    f.reaches(a as u32, b as u32),
                                    closure.get(a, b),
                                    "{model}: {} to {}\n{}",
                                    h.describe(a),
                                    h.describe(b),
                                    text
                                );
                                compared += 1;
                            }
                        }
                    }
                    (Err(_), Err(_)) => {}
                    (f, c) => panic!(
                        "{model}: sparse cyclic {}, dense cyclic {}\n{text}",
                        f.is_err(),
                        c.is_err()
                    ),
                }
            }
        }
    }
    assert!(compared > 1_000_000, "{compared} pairs");
}

/// TSO and PSO saturate without `G_loc` when its consequences are seeded
/// (`lanes::loc_seeds`): on random histories with fences, RMWs and finals,
/// and on generated ones with stale reads, the saturated store order and
/// the verdict are those of the two-graph saturation, pair for pair.
#[test]
fn seeded_saturation_without_g_loc_equals_with_it() {
    use memconform::complete::Scaled;
    use memconform::scale::{lanes, pso, tso};
    let mut histories = Vec::new();
    for seed in 0..3000u64 {
        histories.push(parse(&brute::x_to_hist(&brute::x_random_history(seed, 10))));
        let shape = (
            2 + seed as usize % 3,
            3 + seed as usize % 6,
            1 + seed as usize % 3,
        );
        histories.extend(generated(seed, shape, seed % 3 == 0));
    }
    let (mut seeded, mut held, mut pairs) = (0, 0, 0);
    for h in &histories {
        let l = lanes::lanes(h);
        let Some(seeds) = lanes::loc_seeds(h, &l) else {
            continue;
        };
        seeded += 1;
        for model in ["tso", "pso"] {
            let graphs = |loc| match model {
                "tso" => tso::graphs(h, &l, loc),
                _ => pso::graphs(h, &l, loc),
            };
            let with = Scaled::new(h, &l, graphs(true), true, &[]);
            let without = Scaled::new(h, &l, graphs(false), true, &seeds);
            let text = format!("{model}\n{h:?}");
            assert_eq!(with.is_ok(), without.is_ok(), "verdicts differ: {text}");
            let (Ok(with), Ok(without)) = (with, without) else {
                continue;
            };
            held += 1;
            for a in (0..h.n()).filter(|&a| h.is_write(a)) {
                for b in (0..h.n()).filter(|&b| b != a && h.is_write(b) && h.var(a) == h.var(b)) {
                    assert_eq!(
                        with.ordered(a, b),
                        without.ordered(a, b),
                        "{a} ww {b}: {text}"
                    );
                    pairs += with.ordered(a, b) as usize;
                }
            }
        }
    }
    assert!(seeded > 4000, "{seeded} histories seeded");
    assert!(
        held > 2000 && pairs > 10_000,
        "{held} saturated, {pairs} pairs"
    );
}

/// The completion's first pass without its undo trail
/// (`Scaled::complete_untrailed`) answers exactly as the trailed search
/// where it answers (the same store order, or the same verdict), and gives
/// up at the first choice to take back: on random histories with fences,
/// RMWs and finals and generated ones with stale reads, under SC, TSO and
/// PSO.
#[test]
fn the_completion_without_its_trail_answers_as_with_it() {
    use memconform::budget::Cancel;
    use memconform::certificate::Pattern;
    use memconform::complete::Scaled;
    use memconform::scale::{lanes, pso, sc, tso};
    let (mut answered, mut given_up) = (0, 0);
    // the papers' histories, among them wSC-consistent ones that are not
    // SC: saturation leaves their completion a choice to take back
    let examples =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/papers-and-litmus.hist");
    let papers = memconform::ingest::load_file(&examples).unwrap();
    for seed in 0..2000u64 {
        let mut histories: Vec<History> = [10, 24]
            .iter()
            .flat_map(|&n| {
                let text = brute::x_to_hist(&brute::x_random_history(seed, n));
                [parse(&text), parse(&timed(&text, seed))]
            })
            .collect();
        let shape = (
            2 + seed as usize % 3,
            3 + seed as usize % 6,
            1 + seed as usize % 3,
        );
        histories.extend(generated(seed, shape, seed % 3 == 0));
        if seed == 0 {
            histories.extend(papers.iter().cloned());
        }
        for h in &histories {
            let l = lanes::lanes(h);
            for model in ["sc", "tso", "pso"] {
                let graphs = || match model {
                    "sc" => vec![(Pattern::CyclicSc, sc::graph(h, &l))],
                    "tso" => tso::graphs(h, &l, true),
                    _ => pso::graphs(h, &l, true),
                };
                let Ok(mut trailed) = Scaled::new(h, &l, graphs(), true, &[]) else {
                    continue;
                };
                let with = format!("{:?}", trailed.complete_within(&Cancel::NEVER, u64::MAX));
                let mut untrailed = Scaled::new(h, &l, graphs(), true, &[]).unwrap();
                match untrailed.complete_untrailed(&Cancel::NEVER) {
                    Some(without) => {
                        assert_eq!(format!("{without:?}"), with, "{model}\n{h:?}");
                        answered += 1;
                    }
                    None => given_up += 1,
                }
            }
        }
    }
    assert!(
        answered > 1000 && given_up > 0,
        "{answered} answered, {given_up} given up"
    );
}

/// wCCM at scale computes `hb^ppo` and `hb^po-loc` on two threads for
/// large histories: on random and generated histories (stale reads,
/// fences, RMWs), both ways give the same answer, violation for violation
/// (pattern and cycle) and count for count.
#[test]
fn wccm_on_two_threads_answers_as_on_one() {
    use memconform::scale::{lanes, wccm};
    let (mut violations, mut consistent) = (0, 0);
    for seed in 0..1500u64 {
        let mut hs = vec![parse(&brute::x_to_hist(&brute::x_random_history(seed, 10)))];
        let shape = (
            2 + seed as usize % 4,
            4 + seed as usize % 30,
            1 + seed as usize % 4,
        );
        hs.extend(generated(seed, shape, seed % 2 == 0));
        for h in &hs {
            let l = lanes::lanes(h);
            let one = wccm::check_on(h, &l, &memconform::budget::Cancel::NEVER, false);
            let two = wccm::check_on(h, &l, &memconform::budget::Cancel::NEVER, true);
            assert_eq!(one, two, "{h:?}");
            match one {
                Ok(_) => consistent += 1,
                Err(_) => violations += 1,
            }
        }
    }
    assert!(
        violations > 300 && consistent > 300,
        "{violations} / {consistent}"
    );
}

/// A history generated by `seed`'s memory (SC, TSO, PSO in turn) with
/// `(threads, ops per thread, variables)`, a stale read injected when
/// `stale`; `None` when the program makes no valid history.
fn generated(
    seed: u64,
    (threads, ops, vars): (usize, usize, usize),
    stale: bool,
) -> Option<History> {
    use memconform::gen::{inject_stale_read, threads as program, Memory, Rng, Shape};
    let memory = [Memory::Sc, Memory::Tso, Memory::Pso][seed as usize % 3];
    let shape = Shape {
        threads,
        ops_per_thread: ops,
        vars,
        write_ratio: 0.5,
    };
    let mut p = program(memory, shape, seed);
    if stale {
        inject_stale_read(&mut p, &mut Rng::new(seed));
    }
    History::from_threads(&p).ok()
}

/// A TSO and a PSO store order of a history large enough for the witness
/// validator to check its two graphs on two threads
/// (`parallel::TWO_CORES_MIN_OPS`): the engine's order passes, and the same
/// order with one variable's writes after the initial one reversed is
/// refused, as one thread or two would answer.
#[test]
fn large_witnesses_are_checked_whole() {
    use memconform::budget::Cancel;
    use memconform::certificate::validate::StoreModel;
    use memconform::certificate::witness;
    use memconform::complete::Completion;
    use memconform::gen::{threads, Memory, Shape};
    use memconform::parallel::TWO_CORES_MIN_OPS;
    use memconform::scale::lanes::lanes;
    let shape = Shape {
        threads: 4,
        ops_per_thread: 6_000,
        vars: 16,
        write_ratio: 0.5,
    };
    let h = History::from_threads(&threads(Memory::Tso, shape, 3)).unwrap();
    assert!(h.n() >= TWO_CORES_MIN_OPS);
    for (m, sm) in [(Model::Tso, StoreModel::Tso), (Model::Pso, StoreModel::Pso)] {
        let none = |_: &memconform::certificate::Violation| None;
        let d =
            memconform::check::scale::decide(&h, &lanes(&h), m, &Cancel::NEVER, u64::MAX, &none);
        let Ok(Completion::Found { order, .. }) = d.result else {
            panic!("{m}: a TSO-generated history has a witness");
        };
        witness::store_order(&h, sm, &order).unwrap();
        let mut broken = order.clone();
        let x = (0..broken.len()).max_by_key(|&x| broken[x].len()).unwrap();
        broken[x][1..].reverse();
        let e = witness::store_order(&h, sm, &broken).unwrap_err();
        assert!(
            e.contains("cyclic under the witness store order"),
            "{m}: {e}"
        );
    }
}

/// PSO at scale answers from TSO's violation where it can, without its own
/// frontier table: on the violation's own sub-history (`pso_on_core`,
/// certified there) or through a pair known up front that PSO's static
/// graph contradicts (`pso_upfront`). On generated histories with a stale
/// read, both happen, and each verdict is the dense one; each up-front
/// cycle (TSO's attempt with the sub-history route off) validates on the
/// history.
#[test]
fn pso_answers_from_tso_violations_as_the_dense_check() {
    use memconform::budget::Cancel;
    use memconform::certificate::validate::{violation_in, StoreModel};
    use memconform::certificate::{Rel, Violation};
    use memconform::complete::Completion;
    use memconform::gen::{inject_stale_read, threads, Memory, Rng, Shape};
    use memconform::scale::lanes::lanes;
    let (mut lifted, mut upfront, mut own) = (0, 0, 0);
    for seed in 0..60u64 {
        let shape = Shape {
            threads: 2 + seed as usize % 5,
            ops_per_thread: 60 + 20 * (seed as usize % 4),
            vars: 2 + seed as usize % 6,
            write_ratio: 0.5,
        };
        let mut program = threads(Memory::Tso, shape, seed);
        inject_stale_read(&mut program, &mut Rng::new(seed));
        let h = History::from_threads(&program).unwrap();
        let what = || format!("seed {seed}");
        let dense = check_gradual_with(&h, &[Model::Pso], &opts(Scale::Dense));
        let sparse = check_gradual_with(&h, &[Model::Pso], &opts(Scale::Sparse));
        let (d, s) = (&dense[0], &sparse[0]);
        assert_eq!(d.verdict(), s.verdict(), "{}", what());
        assert!(s.invalid.is_none(), "{:?} {}", s.invalid, what());
        if let Some(v) = s.violation() {
            assert!(v.certified_by.is_some(), "{}", what());
            lifted += usize::from(
                v.certified_by
                    .as_deref()
                    .unwrap()
                    .contains("TSO's certificate"),
            );
        }
        // TSO's attempt, then the up-front pairs alone: no sub-history, and
        // no memory for PSO's own graphs
        let none = |_: &Violation| None;
        let l = lanes(&h);
        let dec = memconform::check::scale::decide(&h, &l, Model::Pso, &Cancel::NEVER, 0, &none);
        match &dec.result {
            Ok(Completion::Found { .. }) => {
                assert_eq!(d.verdict(), Verdict::Consistent, "{}", what())
            }
            Err(v) if !memconform::check::scale::pso_undecided(&dec) => {
                assert_eq!(d.verdict(), Verdict::Violation, "{}", what());
                upfront += 1;
                assert_eq!(v.cycle[0].rel, Rel::St, "{}", what());
                violation_in(&h, v, Some(StoreModel::Pso))
                    .unwrap_or_else(|e| panic!("{e}: {}", what()));
            }
            _ => own += 1,
        }
    }
    assert!(
        lifted > 0 && upfront > 0 && own > 0,
        "lifted {lifted}, up front {upfront}, left to PSO's own graphs {own}"
    );
}
