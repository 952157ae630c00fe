//! SC on one timed thread (gem5's `--real-time` view) by per-variable zones
//! (`complete::linearize`) against the saturation engines (dense and sparse)
//! and a brute-force linearizability search, on random small histories with
//! RMWs, fences, initial-value reads, repeated reads and `@final`s; every
//! certificate re-checked by the validator. Also the gem5 runs' real-time
//! views.

mod brute;

use std::collections::HashSet;
use std::path::Path;

use memconform::certificate::validate::{self, StoreModel};
use memconform::certificate::Rel;
use memconform::check::scale::Scale;
use memconform::check::{check_gradual_with, Options, Verdict};
use memconform::complete::{linearize, Engine};
use memconform::gen::Rng;
use memconform::history::History;
use memconform::ingest::load_bytes;
use memconform::models::Model;

use brute::XOp;

/// One timed operation: what it does and its `(issue, completion)` ticks.
type TimedOp = (XOp, (u64, u64));

/// A one-thread timed history: its operations (in input order) and finals.
struct Timed {
    ops: Vec<TimedOp>,
    finals: Vec<(usize, u64)>,
}

impl Timed {
    /// As `.hist` text: one thread `rt`, variables `v0, v1, ...`.
    fn text(&self) -> String {
        let mut out = String::new();
        if !self.finals.is_empty() {
            out.push_str("@final");
            for &(x, v) in &self.finals {
                out.push_str(&format!(" v{x}={v}"));
            }
            out.push('\n');
        }
        out.push_str("rt:");
        for &(op, (i, c)) in &self.ops {
            let tok = match op {
                XOp::R(x, v) => format!("R(v{x},{v})"),
                XOp::W(x, v) => format!("W(v{x},{v})"),
                XOp::U(x, a, b) => format!("U(v{x},{a},{b})"),
                XOp::F => "F".to_string(),
            };
            out.push_str(&format!(" {tok}@{i}-{c}"));
        }
        out.push('\n');
        out
    }
}

/// A random history run by an atomic memory at linearization points 0, 3,
/// 6, ..., each operation's interval around its point (so neighbours
/// overlap), then in most histories one fault: a read or RMW returning
/// another value (written, initial, rarely never written), or an interval
/// moved. `@final`s (true or not) in some. Listed in a shuffled order.
fn linearizable_ish(seed: u64, max_ops: usize) -> Timed {
    let mut rng = Rng::new(seed ^ 0x11AE_A712_AB1E);
    let vars = 1 + rng.below(3);
    let n = 1 + rng.below(max_ops);
    let mut mem = vec![0u64; vars];
    let mut written = vec![0u64; vars];
    let mut ops: Vec<TimedOp> = Vec::with_capacity(n);
    for k in 0..n {
        let p = 3 * k as u64 + 4;
        let span = (p - rng.below(5) as u64, p + rng.below(5) as u64);
        let x = rng.below(vars);
        let roll = rng.below(100);
        let op = if roll < 8 {
            XOp::F
        } else if roll < 25 {
            written[x] += 1;
            let old = mem[x];
            mem[x] = written[x];
            XOp::U(x, old, written[x])
        } else if roll < 55 {
            written[x] += 1;
            mem[x] = written[x];
            XOp::W(x, written[x])
        } else {
            XOp::R(x, mem[x])
        };
        ops.push((op, span));
    }
    if rng.below(10) < 7 {
        let k = rng.below(n);
        match ops[k].0 {
            XOp::R(x, _) | XOp::U(x, _, _) => {
                let v = if rng.below(30) == 0 {
                    written[x] + 1 // thin air
                } else {
                    rng.below(written[x] as usize + 1) as u64
                };
                ops[k].0 = match ops[k].0 {
                    XOp::R(..) => XOp::R(x, v),
                    XOp::U(_, _, b) => XOp::U(x, v, b),
                    o => o,
                };
            }
            _ => {
                let p = rng.below(3 * n + 8) as u64;
                ops[k].1 = (p, p + rng.below(6) as u64);
            }
        }
    }
    let mut finals = Vec::new();
    if rng.below(10) < 3 {
        for _ in 0..1 + rng.below(2) {
            let x = rng.below(vars);
            let v = if rng.below(10) < 7 {
                mem[x]
            } else {
                rng.below(written[x] as usize + 1) as u64
            };
            // one `@final` entry per variable (a second is an input error)
            if finals.iter().all(|&(y, _)| y != x) {
                finals.push((x, v));
            }
        }
    }
    // only variables some operation uses may be observed
    finals.retain(|&(x, _)| ops.iter().any(|(o, _)| o_var(*o) == Some(x)));
    for i in (1..ops.len()).rev() {
        ops.swap(i, rng.below(i + 1));
    }
    Timed { ops, finals }
}

fn o_var(o: XOp) -> Option<usize> {
    match o {
        XOp::R(x, _) | XOp::W(x, _) | XOp::U(x, _, _) => Some(x),
        XOp::F => None,
    }
}

/// The extended random histories of the brute-force oracle (values read at
/// random), all threads in one, with random overlapping intervals.
fn random_values(seed: u64, max_ops: usize) -> Timed {
    let x = brute::x_random_history(seed, max_ops);
    let mut rng = Rng::new(seed ^ 0x0007_133D);
    let mut t = 0u64;
    let ops = x
        .threads
        .iter()
        .flatten()
        .map(|&op| {
            t += rng.below(3) as u64;
            (op, (t, t + rng.below(5) as u64))
        })
        .collect();
    Timed {
        ops,
        finals: x.finals,
    }
}

/// Brute force: some order of the operations respects real time (`a` before
/// `b` whenever `a` completes before `b` is issued), runs each on an atomic
/// memory (reads and RMWs return the current value) and ends with the
/// `@final` values. Memoised depth-first search over (done set, memory).
fn linearizable(t: &Timed) -> bool {
    let n = t.ops.len();
    assert!(n <= 64);
    let vars = t
        .ops
        .iter()
        .filter_map(|(o, _)| o_var(*o))
        .chain(t.finals.iter().map(|f| f.0))
        .max()
        .map_or(0, |x| x + 1);
    let before: Vec<u64> = (0..n)
        .map(|b| {
            (0..n)
                .filter(|&a| t.ops[a].1 .1 < t.ops[b].1 .0)
                .fold(0u64, |m, a| m | 1 << a)
        })
        .collect();
    fn dfs(
        t: &Timed,
        before: &[u64],
        done: u64,
        mem: &mut Vec<u64>,
        seen: &mut HashSet<(u64, Vec<u64>)>,
    ) -> bool {
        let n = t.ops.len();
        if done.count_ones() as usize == n {
            return t.finals.iter().all(|&(x, v)| mem[x] == v);
        }
        if !seen.insert((done, mem.clone())) {
            return false;
        }
        for o in 0..n {
            if done & 1 << o != 0 || before[o] & !done != 0 {
                continue;
            }
            let saved = mem.clone();
            let ok = match t.ops[o].0 {
                XOp::R(x, v) => mem[x] == v,
                XOp::W(x, v) => {
                    mem[x] = v;
                    true
                }
                XOp::U(x, a, b) => {
                    let ok = mem[x] == a;
                    mem[x] = b;
                    ok
                }
                XOp::F => true,
            };
            if ok && dfs(t, before, done | 1 << o, mem, seen) {
                return true;
            }
            *mem = saved;
        }
        false
    }
    dfs(t, &before, 0, &mut vec![0; vars], &mut HashSet::new())
}

fn parse(text: &str) -> History {
    load_bytes(text.as_bytes(), Path::new("x.hist"))
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .remove(0)
}

/// The edge kinds of the zones' certificates, counted.
const RELS: [Rel; 6] = [Rel::Po, Rel::Wr, Rel::Rw, Rel::Rmw, Rel::Final, Rel::St];

/// The saturation engines, with a forced representation.
fn engine(scale: Scale) -> Options {
    Options {
        gradual: false,
        timeout: None,
        scale,
        engine: Engine::Enum,
        ..Options::default()
    }
}

/// Zones decide SC on `h`: directly and through `check` (auto, alone),
/// certificates validated; the result agrees with the dense and the sparse
/// saturation engines. Returns the verdict.
fn zones_agree(h: &History, rels: &mut [usize; 6], what: &dyn Fn() -> String) -> Verdict {
    assert!(linearize::applies(h), "{}", what());
    let zones = match linearize::decide(h) {
        Ok(order) => {
            if let Err(e) = validate::store_order(h, StoreModel::Sc, &order) {
                panic!("zones' store order rejected: {e}\n{}", what());
            }
            Verdict::Consistent
        }
        Err(v) => {
            if let Err(e) = validate::violation(h, &v) {
                panic!(
                    "zones' certificate rejected: {e}: {}\n{}",
                    v.explain(h),
                    what()
                );
            }
            assert!(
                v.pattern == memconform::certificate::Pattern::ThinAirRead || !v.cycle.is_empty(),
                "{}",
                what()
            );
            for (k, rel) in RELS.iter().enumerate() {
                rels[k] += v.cycle.iter().any(|s| s.rel == *rel) as usize;
            }
            Verdict::Violation
        }
    };
    let alone = Options {
        gradual: false,
        timeout: None,
        ..Options::default()
    };
    let o = &check_gradual_with(h, &[Model::Sc], &alone)[0];
    assert!(o.invalid.is_none(), "{:?}\n{}", o.invalid, what());
    assert_eq!(o.verdict(), zones, "{}", what());
    assert_eq!(o.engine, Some(Engine::Zones), "{}", what());
    for scale in [Scale::Dense, Scale::Sparse] {
        let o = &check_gradual_with(h, &[Model::Sc], &engine(scale))[0];
        assert!(
            o.invalid.is_none(),
            "{scale:?}: {:?}\n{}",
            o.invalid,
            what()
        );
        assert_eq!(
            o.verdict(),
            zones,
            "zones vs {scale:?} ({:?})\n{}",
            o.violation().map(|v| v.explain(h)),
            what()
        );
    }
    zones
}

/// Every model, gradually (auto): SC's verdict is the zones', every
/// certificate validates.
fn gradual_agrees(h: &History, sc: Verdict, what: &dyn Fn() -> String) {
    let opts = Options {
        timeout: None,
        ..Options::default()
    };
    for o in check_gradual_with(h, &Model::EVERY, &opts) {
        assert!(
            o.invalid.is_none(),
            "{}: {:?}\n{}",
            o.model,
            o.invalid,
            what()
        );
        if o.model == Model::Sc {
            assert_eq!(o.verdict(), sc, "gradual sc\n{}", what());
        }
    }
}

fn run(seeds: std::ops::Range<u64>) {
    let (mut held, mut n) = (0usize, 0usize);
    let (mut rmw, mut finals, mut init_reads) = (0usize, 0usize, 0usize);
    let mut rels = [0usize; 6];
    for seed in seeds {
        for (k, t) in [linearizable_ish(seed, 10), random_values(seed, 10)]
            .into_iter()
            .enumerate()
        {
            let text = t.text();
            let h = parse(&text);
            let what = || format!("seed {seed} generator {k}\n{text}");
            let got = zones_agree(&h, &mut rels, &what);
            assert_eq!(
                got == Verdict::Consistent,
                linearizable(&t),
                "zones vs brute force\n{}",
                what()
            );
            if seed % 8 == 0 {
                gradual_agrees(&h, got, &what);
            }
            held += (got == Verdict::Consistent) as usize;
            rmw += t.ops.iter().any(|o| matches!(o.0, XOp::U(..))) as usize;
            finals += !t.finals.is_empty() as usize;
            init_reads += t
                .ops
                .iter()
                .any(|o| matches!(o.0, XOp::R(_, 0) | XOp::U(_, 0, _)))
                as usize;
            n += 1;
        }
    }
    assert!(
        held > n / 5 && held < n - n / 5,
        "{held} of {n} histories linearizable"
    );
    assert!(rmw > n / 4 && finals > n / 10 && init_reads > n / 4);
    eprintln!("{n} histories, {held} linearizable; certificates with {RELS:?}: {rels:?}");
}

#[test]
fn zones_agree_with_the_engines_and_brute_force() {
    // 2 × 1,100 histories
    run(0..1100);
}

/// The long run: `cargo test --release --test linearize -- --ignored`.
#[test]
#[ignore]
fn zones_agree_on_100k_random_histories() {
    run(0..50_000);
}

/// A history generated at scale, checked by zones only (the engines'
/// n² would not do): linearizable as run, a violation once a read is made
/// stale, both certificates validated.
#[test]
fn zones_decide_a_long_history() {
    let t = linearizable_ish_long(20_000, 7);
    let h = parse(&t.text());
    assert!(linearize::applies(&h));
    let Ok(order) = linearize::decide(&h) else {
        panic!("linearizable as run");
    };
    validate::store_order(&h, StoreModel::Sc, &order).unwrap();
    // the last read returns the initial value, long overwritten
    let mut stale = t;
    let k = stale
        .ops
        .iter()
        .rposition(|o| matches!(o.0, XOp::R(..)))
        .unwrap();
    if let XOp::R(x, _) = stale.ops[k].0 {
        stale.ops[k].0 = XOp::R(x, 0);
    }
    let h = parse(&stale.text());
    let Err(v) = linearize::decide(&h) else {
        panic!("a stale read is not linearizable");
    };
    validate::violation(&h, &v).unwrap();
    assert!(v.cycle.len() <= 4, "{}", v.explain(&h));
}

/// `n` operations on `vars` variables, run atomically at points 0, 2, 4,
/// ... with intervals up to 40 ticks wide (about 20 in flight).
fn linearizable_ish_long(n: usize, vars: usize) -> Timed {
    let mut rng = Rng::new(n as u64);
    let mut mem = vec![0u64; vars];
    let mut written = vec![0u64; vars];
    let mut ops = Vec::with_capacity(n);
    for k in 0..n {
        let p = 2 * k as u64 + 40;
        let span = (p - rng.below(20) as u64, p + rng.below(20) as u64);
        let x = rng.below(vars);
        let op = if rng.chance(0.4) {
            written[x] += 1;
            mem[x] = written[x];
            XOp::W(x, written[x])
        } else {
            XOp::R(x, mem[x])
        };
        ops.push((op, span));
    }
    Timed {
        ops,
        finals: Vec::new(),
    }
}

/// The gem5 runs' real-time views: zones agree with the saturation engine
/// (sparse, and dense on the small runs), certificates validated.
#[test]
fn zones_agree_on_the_gem5_runs_real_time_views() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<std::path::PathBuf> = Vec::new();
    for d in [
        "traces",
        "tests/data/gem5/mi_example",
        "tests/data/gem5/mesi_two_level",
    ] {
        for e in std::fs::read_dir(root.join(d)).unwrap().flatten() {
            // tester runs only (an SE-mode client run has no real-time view)
            let tester = e.path().join("config.ini").is_file()
                && memconform::gem5::open_run(&e.path())
                    .is_ok_and(|r| memconform::gem5::client_output(&r).is_none());
            if tester {
                dirs.push(e.path());
            }
        }
    }
    dirs.sort();
    let mut violations = 0;
    for dir in &dirs {
        let run = memconform::gem5::open_run(dir).unwrap();
        let h = memconform::gem5::ingest(&run, true).unwrap().history;
        let what = || dir.display().to_string();
        assert!(linearize::applies(&h), "{}", what());
        let scales: &[Scale] = if h.n() <= 700 {
            &[Scale::Dense, Scale::Sparse]
        } else {
            &[Scale::Sparse]
        };
        let alone = Options {
            gradual: false,
            timeout: None,
            ..Options::default()
        };
        let zones = &check_gradual_with(&h, &[Model::Sc], &alone)[0];
        assert_eq!(zones.engine, Some(Engine::Zones), "{}", what());
        assert!(zones.invalid.is_none(), "{:?} {}", zones.invalid, what());
        for &scale in scales {
            let o = &check_gradual_with(&h, &[Model::Sc], &engine(scale))[0];
            assert!(o.invalid.is_none(), "{scale:?} {}", what());
            assert_eq!(o.verdict(), zones.verdict(), "{scale:?} {}", what());
        }
        violations += (zones.verdict() == Verdict::Violation) as usize;
    }
    assert!(
        dirs.len() >= 9 && violations == 4,
        "{} runs, {violations}",
        dirs.len()
    );
}
