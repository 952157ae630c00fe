//! The facts table's implications (crates/core/src/models/facts.rs, proofs
//! in docs/design/implications.md), complete both ways: for every ordered
//! pair of models (P, M) with `P.implies(M)`, no random or small enumerated
//! history (with RMWs, fences and `@final`) is P-consistent and M-violating,
//! by the crate's checks and by the brute-force oracle (tests/brute); for
//! every other pair, a history of tests/data/histories/implications.hist is
//! P-consistent and M-violating, by both.

mod brute;

use std::path::Path;

use brute::{BHistory, Kind, WAnn, WFence, WHistory, WOp, XHistory, XOp};
use memconform::history::History;
use memconform::ingest::load_bytes;
use memconform::models::Model;

/// How many models there are.
const N: usize = Model::EVERY.len();

/// Verdicts in [`Model::EVERY`] order.
type Verdicts = [bool; N];

fn parse(text: &str) -> History {
    load_bytes(text.as_bytes(), Path::new("x.hist"))
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .remove(0)
}

/// The crate's verdict of each model, each checked alone.
fn crate_verdicts(h: &History) -> Verdicts {
    Model::EVERY.map(|m| m.check(h).is_ok())
}

/// An extended history as an annotated one (no annotation, full fences).
fn annotated(x: &XHistory) -> WHistory {
    WHistory {
        threads: x
            .threads
            .iter()
            .map(|t| {
                t.iter()
                    .map(|&o| match o {
                        XOp::R(y, v) => WOp::R(y, v, WAnn::Plain),
                        XOp::W(y, v) => WOp::W(y, v, WAnn::Plain),
                        XOp::U(y, a, b) => WOp::U(y, a, b, WAnn::Plain),
                        XOp::F => WOp::F(WFence::Full),
                    })
                    .collect()
            })
            .collect(),
        finals: x.finals.clone(),
    }
}

/// The oracle's verdicts: SC, TSO and PSO by the axe store-buffer machines
/// (tests/brute/ops.rs); the polynomial models by tests/brute on the history
/// as they see it (docs/hist-format.md): `U(x,a,b)` as `R(x,a) W(x,b)`, a
/// fence dropped, `@final` ignored unless it observes a value never written
/// (then every model is violated). wCCM's `ppo` is closed through fences,
/// which the plain oracle cannot express: `None` for wCCM on a history with
/// a fence. RMO and ARMv8 by tests/brute/weak.rs on `w`, the history with
/// its annotations and fence kinds (`x` is it as the older models see it:
/// annotations ignored, partial fences left out).
fn oracle_verdicts(x: &XHistory, w: &WHistory) -> [Option<bool>; N] {
    let ops = x.threads.iter().flatten();
    let written = |var: usize, v: u64| {
        v == 0
            || ops.clone().any(|&o| match o {
                XOp::W(y, w) | XOp::U(y, _, w) => y == var && w == v,
                _ => false,
            })
    };
    let thin_final = x.finals.iter().any(|&(var, v)| !written(var, v));
    let plain = BHistory {
        threads: x
            .threads
            .iter()
            .map(|t| {
                t.iter()
                    .flat_map(|&o| match o {
                        XOp::R(y, v) => vec![(Kind::R, y, v)],
                        XOp::W(y, v) => vec![(Kind::W, y, v)],
                        XOp::U(y, a, b) => vec![(Kind::R, y, a), (Kind::W, y, b)],
                        XOp::F => vec![],
                    })
                    .collect()
            })
            .collect(),
    };
    let p = brute::verdicts(&plain);
    let s = brute::x_operational(x);
    let fence = ops.clone().any(|&o| o == XOp::F);
    let poly = |b: bool| Some(b && !thin_final);
    let weak = brute::w_verdicts(w);
    [
        poly(p.cc),
        poly(p.ccv),
        poly(p.cm),
        poly(p.ccm),
        if fence { None } else { poly(p.wccm) },
        poly(p.wsc),
        Some(s.sc),
        Some(s.tso),
        Some(s.pso),
        Some(weak.rmo),
        Some(weak.armv8),
    ]
}

/// Both verdict vectors of the history `text` (annotated as `w`, as the
/// older models see it `x`), checked to agree where the oracle answers.
fn verdicts_of(x: &XHistory, w: &WHistory, text: &str) -> (Verdicts, [Option<bool>; N]) {
    let got = crate_verdicts(&parse(text));
    let want = oracle_verdicts(x, w);
    for (i, m) in Model::EVERY.into_iter().enumerate() {
        if let Some(w) = want[i] {
            assert_eq!(got[i], w, "{m}: crate {} oracle {w} on\n{text}", got[i]);
        }
    }
    (got, want)
}

/// The pairs `(P, M)` of one verdict vector that refute `P ⇒ M`.
fn refuted(v: &[Option<bool>; N]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..N).flat_map(move |p| {
        (0..N).filter_map(move |m| (v[p] == Some(true) && v[m] == Some(false)).then_some((p, m)))
    })
}

/// Panics if `x` refutes an implication of the table, by either verdicts;
/// the crate's verdicts.
fn check_implications(x: &XHistory) -> Verdicts {
    check_implications_of(x, &annotated(x), &brute::x_to_hist(x))
}

/// [`check_implications`] of the history `text` (see [`verdicts_of`]).
fn check_implications_of(x: &XHistory, w: &WHistory, text: &str) -> Verdicts {
    let (got, want) = verdicts_of(x, w, text);
    for v in [got.map(Some), want] {
        for (p, m) in refuted(&v) {
            let (p, m) = (Model::EVERY[p], Model::EVERY[m]);
            assert!(
                !p.implies(m),
                "{p} ⇒ {m} is in the table, refuted by\n{text}"
            );
        }
    }
    got
}

/// Counts, per model, the histories it holds on.
#[derive(Default)]
struct Held([usize; N]);

impl Held {
    fn add(&mut self, v: Verdicts) {
        for (n, b) in self.0.iter_mut().zip(v) {
            *n += b as usize;
        }
    }

    /// Every model's premise was exercised at least `min` times.
    fn at_least(&self, min: usize) {
        for (m, n) in Model::EVERY.iter().zip(self.0) {
            assert!(n >= min, "{m} held on {n} histories only");
        }
    }
}

// ---------------------------------------------------------------------------
// Every small history, up to renaming of threads, variables and values
// ---------------------------------------------------------------------------

/// An operation before its values are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Skel {
    R(usize),
    W(usize),
    U(usize),
    F,
}

impl Skel {
    fn var(self) -> Option<usize> {
        match self {
            Skel::R(x) | Skel::W(x) | Skel::U(x) => Some(x),
            Skel::F => None,
        }
    }

    fn renamed(self, perm: &[usize]) -> Skel {
        match self {
            Skel::R(x) => Skel::R(perm[x]),
            Skel::W(x) => Skel::W(perm[x]),
            Skel::U(x) => Skel::U(perm[x]),
            Skel::F => Skel::F,
        }
    }
}

/// What [`every_history`] enumerates.
#[derive(Clone, Copy)]
struct Bounds {
    /// operations (an RMW counts as one)
    ops: usize,
    threads: usize,
    vars: usize,
    rmws: bool,
    fences: bool,
    /// whether each variable may carry an `@final` observation
    finals: bool,
}

/// The non-increasing thread lengths summing to `n`, at most `k` threads.
fn shapes(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn go(left: usize, max: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if left == 0 {
            out.push(cur.clone());
            return;
        }
        if cur.len() == k {
            return;
        }
        for len in (1..=left.min(max)).rev() {
            cur.push(len);
            go(left - len, len, k, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(n, n, k, &mut Vec::new(), &mut out);
    out
}

/// The permutations of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..n {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// Calls `f` on every history of exactly `b.ops` operations within the
/// bounds, without a thin-air read, up to renaming: one skeleton (kinds and
/// variables per thread) per class of skeletons equal up to permuting
/// threads of one length and renaming variables, each with every choice of
/// read values (0 or a value written to the variable) and, with
/// `b.finals`, every choice of one or no `@final` per variable. Written
/// values are numbered per variable in thread order, so each value is
/// written once.
fn every_history(b: Bounds, f: &mut impl FnMut(&XHistory)) {
    let mut alphabet = Vec::new();
    for x in 0..b.vars {
        alphabet.extend([Skel::R(x), Skel::W(x)]);
        if b.rmws {
            alphabet.push(Skel::U(x));
        }
    }
    if b.fences {
        alphabet.push(Skel::F);
    }
    let var_perms = permutations(b.vars);
    for shape in shapes(b.ops, b.threads) {
        // thread permutations that keep the shape (equal lengths only)
        let thread_perms: Vec<Vec<usize>> = permutations(shape.len())
            .into_iter()
            .filter(|p| p.iter().enumerate().all(|(i, &j)| shape[i] == shape[j]))
            .collect();
        let mut digits = vec![0usize; b.ops];
        loop {
            let mut it = digits.iter().map(|&d| alphabet[d]);
            let skel: Vec<Vec<Skel>> = shape
                .iter()
                .map(|&len| it.by_ref().take(len).collect())
                .collect();
            let canonical = thread_perms.iter().all(|tp| {
                var_perms.iter().all(|vp| {
                    let other: Vec<Vec<Skel>> = tp
                        .iter()
                        .map(|&t| skel[t].iter().map(|s| s.renamed(vp)).collect())
                        .collect();
                    skel <= other
                })
            });
            if canonical {
                with_values(&skel, b, f);
            }
            // next digits
            let mut i = 0;
            while i < b.ops && digits[i] + 1 == alphabet.len() {
                digits[i] = 0;
                i += 1;
            }
            if i == b.ops {
                break;
            }
            digits[i] += 1;
        }
    }
}

/// Every choice of read values (and finals) for one skeleton.
fn with_values(skel: &[Vec<Skel>], b: Bounds, f: &mut impl FnMut(&XHistory)) {
    let mut written = vec![0u64; b.vars];
    let mut threads: Vec<Vec<XOp>> = Vec::new();
    for t in skel {
        let mut ops = Vec::new();
        for &s in t {
            ops.push(match s {
                Skel::R(x) => XOp::R(x, 0),
                Skel::W(x) => {
                    written[x] += 1;
                    XOp::W(x, written[x])
                }
                Skel::U(x) => {
                    written[x] += 1;
                    XOp::U(x, 0, written[x])
                }
                Skel::F => XOp::F,
            });
        }
        threads.push(ops);
    }
    // the slots: (thread, index, how many values) per read, then per final
    let mut slots: Vec<(usize, usize, u64)> = Vec::new();
    for (t, ops) in threads.iter().enumerate() {
        for (i, op) in ops.iter().enumerate() {
            if let XOp::R(x, _) | XOp::U(x, _, _) = *op {
                slots.push((t, i, written[x] + 1));
            }
        }
    }
    let reads = slots.len();
    let mut used: Vec<usize> = skel.iter().flatten().filter_map(|s| s.var()).collect();
    used.sort_unstable();
    used.dedup();
    if b.finals {
        // none, or one of the values 0..=written
        slots.extend(used.iter().map(|&x| (usize::MAX, x, written[x] + 2)));
    }
    let mut choice = vec![0u64; slots.len()];
    loop {
        let mut h = XHistory {
            threads: threads.clone(),
            finals: Vec::new(),
        };
        for (k, &(t, i, _)) in slots.iter().enumerate() {
            if k < reads {
                match &mut h.threads[t][i] {
                    XOp::R(_, v) | XOp::U(_, v, _) => *v = choice[k],
                    _ => unreachable!(),
                }
            } else if choice[k] > 0 {
                h.finals.push((i, choice[k] - 1));
            }
        }
        f(&h);
        let mut k = 0;
        while k < slots.len() && choice[k] + 1 == slots[k].2 {
            choice[k] = 0;
            k += 1;
        }
        if k == slots.len() {
            break;
        }
        choice[k] += 1;
    }
}

// ---------------------------------------------------------------------------
// The bundled counterexamples
// ---------------------------------------------------------------------------

const COUNTEREXAMPLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/histories/implications.hist"
);

/// One history of the fixture file: its name, `@expect` verdicts (in
/// [`Model::EVERY`] order) and operations.
struct Fixture {
    name: String,
    expect: [Option<bool>; N],
    /// as the older models see it: annotations ignored, `F.ld`, `F.st` left out
    history: XHistory,
    /// with its annotations and fence kinds
    weak: WHistory,
    text: String,
}

/// Parses the `.hist` subset the fixtures use (`R`, `W`, `U`, `F`,
/// `@name`, `@expect`, `@final`; other `@` lines ignored); variables are
/// numbered in order of appearance.
fn parse_fixtures(text: &str) -> Vec<Fixture> {
    let mut out = Vec::new();
    let mut weak = brute::w_parse(text).into_iter();
    for block in text.split("\n---") {
        let mut vars: Vec<String> = Vec::new();
        let mut var = |name: &str| match vars.iter().position(|v| v == name) {
            Some(i) => i,
            None => {
                vars.push(name.to_string());
                vars.len() - 1
            }
        };
        let mut f = Fixture {
            name: String::new(),
            expect: [None; N],
            history: XHistory {
                threads: Vec::new(),
                finals: Vec::new(),
            },
            weak: WHistory {
                threads: Vec::new(),
                finals: Vec::new(),
            },
            text: block.to_string(),
        };
        for line in block.lines() {
            let line = line.split('#').next().unwrap().trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('@') {
                let (key, val) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                for kv in val.split_whitespace() {
                    match key {
                        "expect" => {
                            let (m, v) = kv.split_once('=').unwrap();
                            let m = Model::from_name(m).unwrap_or_else(|| panic!("{m}"));
                            f.expect[m as usize] = Some(v == "yes");
                        }
                        "final" => {
                            let (x, v) = kv.split_once('=').unwrap();
                            f.history.finals.push((var(x), v.parse().unwrap()));
                        }
                        "name" => f.name = kv.to_string(),
                        _ => {}
                    }
                }
                continue;
            }
            let (_, ops) = line.split_once(':').expect("a thread line");
            let thread = ops
                .split_whitespace()
                .filter(|tok| !matches!(*tok, "F.ld" | "F.st"))
                .map(|tok| {
                    if tok == "F" {
                        return XOp::F;
                    }
                    // an annotation (`R.acq(`) means nothing to the older models
                    let open = tok.find('(').expect("an access");
                    let args: Vec<&str> = tok[open + 1..tok.len() - 1].split(',').collect();
                    let x = var(args[0]);
                    let n = |i: usize| args[i].parse::<u64>().unwrap();
                    match &tok[..1] {
                        "R" => XOp::R(x, n(1)),
                        "W" => XOp::W(x, n(1)),
                        "U" => XOp::U(x, n(1), n(2)),
                        _ => panic!("{tok}"),
                    }
                })
                .collect();
            f.history.threads.push(thread);
        }
        if !f.history.threads.is_empty() {
            let (name, _, w) = weak.next().expect("the same histories");
            assert_eq!(name, f.name);
            f.weak = w;
            out.push(f);
        }
    }
    out
}

/// For every pair (P, M) the table does not imply, a bundled history is
/// P-consistent and M-violating, by the crate's checks and by the oracle
/// (each history states all nine verdicts, and both reproduce them).
#[test]
fn every_non_implication_has_a_bundled_counterexample() {
    let text = std::fs::read_to_string(COUNTEREXAMPLES).unwrap();
    let fixtures = parse_fixtures(&text);
    let crate_histories = memconform::ingest::load_file(Path::new(COUNTEREXAMPLES)).unwrap();
    assert_eq!(fixtures.len(), crate_histories.len());
    let mut witness: Vec<Vec<Option<String>>> = vec![vec![None; N]; N];
    for (f, h) in fixtures.iter().zip(&crate_histories) {
        assert_eq!(h.name.as_deref(), Some(f.name.as_str()));
        let expect = f
            .expect
            .map(|e| e.unwrap_or_else(|| panic!("{}: all {N} verdicts", f.name)));
        assert_eq!(crate_verdicts(h), expect, "{}: crate", f.name);
        let (got, want) = verdicts_of(&f.history, &f.weak, &f.text);
        assert_eq!(got, expect, "{}: crate (as generated)", f.name);
        for (i, w) in want.iter().enumerate() {
            assert!(
                w.is_none_or(|w| w == expect[i]),
                "{}: oracle on {}",
                f.name,
                Model::EVERY[i]
            );
        }
        check_implications_of(&f.history, &f.weak, &f.text);
        for (p, m) in refuted(&expect.map(Some)) {
            witness[p][m].get_or_insert_with(|| f.name.clone());
        }
    }
    let mut missing = Vec::new();
    for p in Model::EVERY {
        for m in Model::EVERY {
            if !p.implies(m) && witness[p as usize][m as usize].is_none() {
                missing.push(format!("{p} ⇏ {m}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "no bundled counterexample for {missing:?}"
    );
}

/// No random history, plain (tests/brute's generator) or with RMWs, fences
/// and finals (tests/brute/ops.rs's), refutes an implication of the table.
#[test]
fn implications_hold_on_random_histories() {
    let mut held = Held::default();
    for seed in 0..RANDOM {
        let b = brute::random_history(seed, 9);
        let threads = b.threads.iter().map(|t| {
            t.iter()
                .map(|&(k, x, v)| match k {
                    Kind::R => XOp::R(x, v),
                    Kind::W => XOp::W(x, v),
                })
                .collect()
        });
        held.add(check_implications(&XHistory {
            threads: threads.collect(),
            finals: Vec::new(),
        }));
        held.add(check_implications(&brute::x_random_history(seed, 9)));
    }
    held.at_least(400);
}

/// Random histories of each kind.
const RANDOM: u64 = 2000;

/// A random run of the x86-TSO machine (a FIFO store buffer per thread; an
/// RMW or a fence waits for its thread's buffer to drain): at most `max_ops`
/// operations (RMWs, fences, reads and writes) on 2 or 3 threads and 2
/// variables, and with probability 1/2 the final value of one or two
/// variables. TSO-consistent by construction, and often not SC: the
/// premise of TSO's implications where they are not inherited from SC.
fn tso_run(seed: u64, max_ops: usize) -> XHistory {
    let mut rng = memconform::gen::Rng::new(seed);
    let (nt, nv) = (2 + rng.below(2), 2);
    let mut left: Vec<usize> = vec![0; nt];
    for _ in 0..max_ops {
        left[rng.below(nt)] += 1;
    }
    let (mut mem, mut next) = (vec![0u64; nv], vec![1u64; nv]);
    let mut buffers: Vec<Vec<(usize, u64)>> = vec![Vec::new(); nt];
    let mut threads: Vec<Vec<XOp>> = vec![Vec::new(); nt];
    loop {
        let live: Vec<usize> = (0..nt).filter(|&t| left[t] > 0).collect();
        let buffered: Vec<usize> = (0..nt).filter(|&t| !buffers[t].is_empty()).collect();
        if live.is_empty() && buffered.is_empty() {
            break;
        }
        let mut drain = |t: usize, buffers: &mut Vec<Vec<(usize, u64)>>| {
            let (x, v) = buffers[t].remove(0);
            mem[x] = v;
        };
        if !buffered.is_empty() && (live.is_empty() || rng.chance(0.1)) {
            drain(buffered[rng.below(buffered.len())], &mut buffers);
            continue;
        }
        let t = live[rng.below(live.len())];
        let x = rng.below(nv);
        let roll = rng.below(100);
        if roll < 20 && !buffers[t].is_empty() {
            drain(t, &mut buffers); // the RMW or fence waits
            continue;
        }
        let fresh = |next: &mut Vec<u64>| {
            next[x] += 1;
            next[x] - 1
        };
        let op = match roll {
            0..=6 => XOp::F,
            7..=19 => {
                let new = fresh(&mut next);
                let old = std::mem::replace(&mut mem[x], new);
                XOp::U(x, old, new)
            }
            20..=54 => {
                let v = fresh(&mut next);
                buffers[t].push((x, v));
                XOp::W(x, v)
            }
            _ => {
                let own = buffers[t].iter().rev().find(|e| e.0 == x);
                XOp::R(x, own.map_or(mem[x], |e| e.1))
            }
        };
        threads[t].push(op);
        left[t] -= 1;
    }
    threads.retain(|t| !t.is_empty());
    let mut finals: Vec<(usize, u64)> = Vec::new();
    if rng.chance(0.5) {
        for _ in 0..1 + rng.below(2) {
            let x = rng.below(nv);
            let used = threads.iter().flatten().any(|&o| match o {
                XOp::R(y, _) | XOp::W(y, _) | XOp::U(y, _, _) => y == x,
                XOp::F => false,
            });
            if used && finals.iter().all(|f| f.0 != x) {
                finals.push((x, mem[x]));
            }
        }
    }
    XHistory { threads, finals }
}

/// No run of the TSO machine refutes an implication of the table (TSO ⇒
/// CC, CCv, wCCM, PSO on histories that are TSO but not SC).
#[test]
fn implications_hold_on_tso_runs() {
    let mut not_sc = 0;
    for seed in 0..RANDOM {
        let v = check_implications(&tso_run(seed, 12));
        assert!(v[Model::Tso as usize], "seed {seed}: a TSO run");
        not_sc += !v[Model::Sc as usize] as usize;
    }
    assert!(not_sc > 50, "{not_sc} runs are not SC");
}

/// No history within [`SMALL`] refutes an implication of the table.
#[test]
fn implications_hold_on_every_small_history() {
    let (mut n, mut held) = (0, Held::default());
    for b in SMALL {
        for ops in 1..=b.ops {
            every_history(Bounds { ops, ..b }, &mut |x| {
                n += 1;
                held.add(check_implications(x));
            });
        }
    }
    assert!(n > 20_000, "{n} histories");
    held.at_least(2000);
}

/// The exhaustive sets: plain histories of up to 5 operations, and up to 3
/// with RMWs, fences and finals, on 3 threads and 2 variables.
const SMALL: [Bounds; 2] = [
    Bounds {
        ops: 5,
        threads: 3,
        vars: 2,
        rmws: false,
        fences: false,
        finals: false,
    },
    Bounds {
        ops: 3,
        threads: 3,
        vars: 2,
        rmws: true,
        fences: true,
        finals: true,
    },
];

// ---------------------------------------------------------------------------
// Exploration (not run by default)
// ---------------------------------------------------------------------------

/// Searches every history up to the bounds of `IMPLICATIONS_OPS` (default
/// 5) operations, 3 threads and 2 variables, plain and with RMWs, fences
/// and finals, and prints, for every pair (P, M), the smallest history
/// (fewest operations, first found) that is P-consistent and M-violating
/// by the crate's checks: the table's non-implications and their smallest
/// witnesses. `cargo test --test implications -- --ignored --nocapture`.
#[test]
#[ignore]
fn explore_smallest_counterexamples() {
    let bound = |var: &str, default: usize| -> usize {
        std::env::var(var)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let max = [bound("IMPLICATIONS_OPS", 6), bound("IMPLICATIONS_XOPS", 4)];
    // per kind (plain, extended) and pair (P, M): (size, text) of the smallest
    type Best = Vec<Vec<Option<(usize, String)>>>;
    let mut best: Vec<Best> = vec![vec![vec![None; N]; N]; 2];
    let mut count = 0usize;
    for extended in [false, true] {
        let best = &mut best[extended as usize];
        for ops in 1..=max[extended as usize] {
            let b = Bounds {
                ops,
                threads: 3,
                vars: 2,
                rmws: extended,
                fences: extended,
                finals: extended,
            };
            every_history(b, &mut |x| {
                count += 1;
                let text = brute::x_to_hist(x);
                let v = crate_verdicts(&parse(&text));
                for (p, m) in refuted(&v.map(Some)) {
                    let size = ops * 10 + x.threads.len() + 100 * x.finals.len();
                    if best[p][m].as_ref().is_none_or(|(s, _)| size < *s) {
                        best[p][m] = Some((size, text.clone()));
                    }
                }
            });
            eprintln!("extended {extended} ops {ops}: {count} histories");
        }
    }
    for p in 0..N {
        for m in 0..N {
            let (pm, mm) = (Model::EVERY[p], Model::EVERY[m]);
            for (kind, best) in ["plain", "extended"].iter().zip(&best) {
                match &best[p][m] {
                    Some((_, text)) => eprintln!("{pm} ⇏ {mm} ({kind}):\n{text}"),
                    None if p != m => eprintln!("{pm} ⇒ {mm}: no {kind} counterexample"),
                    None => {}
                }
            }
        }
    }
}
