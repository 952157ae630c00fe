//! Plain timing harness (no statistics; for scaling tables and profilers).
//!
//! `cargo bench --bench harness` prints ms/history for every model on
//! SC-generated valid histories of 4–16 threads × 50 ops, and wSC at larger
//! sizes. `cargo bench --bench harness -- MODEL THREADS OPS REPS` times one
//! configuration in a loop (e.g. under `perf record`). `-- scale MODEL` prints
//! the growth curve of one model on TSO-generated histories up to 10⁶ operations;
//! `-- gradual` what the gradual chain costs valid histories against each
//! model alone; `-- batch COUNT THREADS OPS` a batch, with 1 and 2 workers;
//! `-- certify FILE MODELS REPS` what the validator's proof search and proof
//! checking cost the certificates of FILE's violations, per pattern.

use std::time::Instant;

/// The allocator the `memconform` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use memconform::check::{check_gradual_with, Options, Verdict};
use memconform::gen::{history, sc_history, Memory, Shape};
use memconform::models::Model;

fn time(model: Model, threads: usize, ops: usize, reps: usize) -> f64 {
    let shape = Shape {
        threads,
        ops_per_thread: ops,
        vars: 8,
        write_ratio: 0.5,
    };
    let hs: Vec<_> = (0..reps.clamp(1, 8) as u64)
        .map(|s| sc_history(shape, s))
        .collect();
    let defs = memconform::cat::Definitions::new();
    let never = memconform::budget::Cancel::NEVER;
    let t = Instant::now();
    for i in 0..reps {
        assert!(
            model
                .check_until(&hs[i % hs.len()], &defs, &never)
                .expect("never cancelled")
                .is_ok(),
            "SC-generated histories are consistent"
        );
    }
    t.elapsed().as_secs_f64() * 1e3 / reps as f64
}

fn pipeline(memory: Memory, model: Model, threads: usize, gradual: bool) -> f64 {
    let shape = Shape {
        threads,
        ops_per_thread: 50,
        vars: 8,
        write_ratio: 0.5,
    };
    let opts = Options {
        gradual,
        ..Options::default()
    };
    let mut times: Vec<f64> = (0..21)
        .map(|s| {
            let h = history(memory, shape, s);
            let t = Instant::now();
            let out = check_gradual_with(&h, &[model], &opts);
            assert_eq!(
                out[0].verdict(),
                Verdict::Consistent,
                "{memory:?}-generated is {model}"
            );
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// `cargo bench --bench harness -- parse TRACE`: the RubyTest reader's
/// throughput on a gem5 debug trace (plain or gzip), best of 5.
fn parse(path: &std::path::Path) {
    let bytes = std::fs::metadata(path).expect("a trace").len() as f64;
    let mut best = f64::MAX;
    let mut ops = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let trace = memconform::gem5::tester::read_trace(path, None, usize::MAX).expect("readable");
        best = best.min(t.elapsed().as_secs_f64());
        ops = trace.accesses.len();
    }
    println!(
        "parse {}: {:.1} MB in {:.3} s = {:.0} MB/s ({ops} accesses)",
        path.display(),
        bytes / 1e6,
        best,
        bytes / 1e6 / best
    );
}

/// `certify FILE MODELS REPS`: the certificates of FILE's violations (each
/// history checked gradually against MODELS, comma-separated, as `check`
/// does, without validation), then the validator's proof search
/// (`derive::justify`) and proof checking (`validate::violation_in`) of
/// each, REPS times: milliseconds per pattern. MODELS after `direct:` are
/// checked each alone (`--no-gradual`).
fn certify(path: &std::path::Path, models: &str, reps: usize) {
    use memconform::certificate::{derive, validate};
    use memconform::check::Decision;
    use std::collections::BTreeMap;
    let (gradual, models) = match models.strip_prefix("direct:") {
        Some(m) => (false, m),
        None => (true, models),
    };
    let models: Vec<Model> = models
        .split(',')
        .map(|m| Model::from_name(m).expect("a model name"))
        .collect();
    let histories = memconform::ingest::load::load_file(path).expect("a history file");
    let opts = Options {
        validate: false,
        timeout: None,
        gradual,
        ..Options::default()
    };
    let mut found = Vec::new();
    for h in &histories {
        let mut seen = Vec::new();
        for out in check_gradual_with(h, &models, &opts) {
            if let Decision::Violation(v) = &out.decision {
                let store = memconform::check::gradual::store_model(out.decided_by);
                let key = (out.decided_by, v.pattern);
                if !seen.contains(&key) {
                    seen.push(key);
                    let mut v = v.clone();
                    v.justifications.clear();
                    found.push((h, v, store));
                }
            }
        }
    }
    // pattern -> (count, ops, proof search s, proof checking s)
    let mut by: BTreeMap<&str, (usize, usize, f64, f64)> = BTreeMap::new();
    for (h, v, store) in &found {
        let e = by.entry(v.pattern.name()).or_default();
        e.0 += 1;
        e.1 += h.n();
        let t = Instant::now();
        let mut js = Vec::new();
        for _ in 0..reps {
            js = derive::justify(h, v, *store).expect("the validator derives the cycle");
        }
        e.2 += t.elapsed().as_secs_f64() / reps as f64;
        let mut justified = v.clone();
        justified.justifications = js;
        let t = Instant::now();
        for _ in 0..reps {
            validate::violation_in(h, &justified, *store).expect("a valid certificate");
        }
        e.3 += t.elapsed().as_secs_f64() / reps as f64;
    }
    println!(
        "{} histories, {} certificates; ms in all (ms per certificate)",
        histories.len(),
        found.len()
    );
    println!(
        "{:<22} {:>6} {:>8} {:>18} {:>18}",
        "pattern", "count", "ops", "proof search", "proof checking"
    );
    for (p, (c, ops, s, k)) in by {
        println!(
            "{p:<22} {c:>6} {:>8} {:>10.1} ({:>5.3}) {:>10.1} ({:>5.3})",
            ops / c,
            s * 1e3,
            s * 1e3 / c as f64,
            k * 1e3,
            k * 1e3 / c as f64
        );
    }
}

/// `cargo bench --bench harness -- batch 10000 8 62`: COUNT histories of
/// THREADS × OPS (half valid SC-generated, half with a stale read), all
/// polynomial models + SC + TSO, with 1 and 2 worker threads.
fn batch(count: usize, threads: usize, ops: usize) {
    use memconform::gen::{inject_stale_read, threads as program, Rng};
    use memconform::history::History;
    use rayon::prelude::*;
    let shape = Shape {
        threads,
        ops_per_thread: ops,
        vars: 8,
        write_ratio: 0.5,
    };
    let hs: Vec<History> = (0..count as u64)
        .map(|s| {
            let mut p = program(Memory::Sc, shape, s);
            if s % 2 == 1 {
                inject_stale_read(&mut p, &mut Rng::new(s));
            }
            History::from_threads(&p).expect("valid")
        })
        .collect();
    let models = [
        Model::Cc,
        Model::Ccv,
        Model::Cm,
        Model::Ccm,
        Model::Wccm,
        Model::Wsc,
        Model::Sc,
        Model::Tso,
    ];
    let mut base = 0.0;
    for j in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(j)
            .build()
            .unwrap();
        let t = Instant::now();
        let violations: usize = pool.install(|| {
            hs.par_iter()
                .map(|h| {
                    check_gradual_with(h, &models, &Options::default())
                        .iter()
                        .filter(|o| o.verdict() == Verdict::Violation)
                        .count()
                })
                .sum()
        });
        let secs = t.elapsed().as_secs_f64();
        if j == 1 {
            base = secs;
        }
        println!(
            "batch {count} histories x {} ops, {} models, -j{j}: {secs:.1} s ({:.2} ms/history, {violations} violations, speed-up {:.2})",
            threads * ops,
            models.len(),
            secs * 1e3 / count as f64,
            base / secs
        );
    }
}

fn coverage(model: Model, threads: usize, ops: usize) -> f64 {
    let shape = Shape {
        threads,
        ops_per_thread: ops,
        vars: 8,
        write_ratio: 0.5,
    };
    let total: f64 = (0..20)
        .map(|s| {
            let order = model.check(&sc_history(shape, s)).expect("consistent");
            order.expect("has a store order").coverage()
        })
        .sum();
    total / 20.0
}

/// `scale MODEL`: one TSO-generated history per size (8 threads, 64
/// variables) from 2·10⁴ to 10⁶ operations, decided by MODEL alone; prints
/// seconds, the verdict and the growth per doubling (docs/design/scale.md §7).
fn scale(model: Model) {
    let opts = Options {
        gradual: false,
        timeout: Some(std::time::Duration::from_secs(120)),
        ..Options::default()
    };
    println!(
        "{:>9} {:>9} {:>11} {:>9}",
        "ops", "seconds", "verdict", "×/doubling"
    );
    let mut last: Option<(f64, f64)> = None;
    for ops in [20_000usize, 50_000, 100_000, 200_000, 500_000, 1_000_000] {
        let shape = Shape {
            threads: 8,
            ops_per_thread: ops / 8,
            vars: 64,
            write_ratio: 0.5,
        };
        let h = history(Memory::Tso, shape, 1);
        let t = Instant::now();
        let out = check_gradual_with(&h, &[model], &opts);
        let secs = t.elapsed().as_secs_f64();
        let per = last.map_or(String::new(), |(o, s)| {
            format!("{:.2}", (secs / s).powf(1.0 / (ops as f64 / o).log2()))
        });
        println!(
            "{ops:>9} {secs:>9.3} {:>11} {per:>9}",
            out[0].verdict().name()
        );
        last = Some((ops as f64, secs));
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if let [mode, model] = args.as_slice() {
        if mode == "scale" {
            scale(Model::from_name(model).expect("a model name"));
            return;
        }
    }
    if let [mode] = args.as_slice() {
        if mode == "gradual" {
            gradual_cost();
            return;
        }
    }
    if let [mode, path] = args.as_slice() {
        if mode == "parse" {
            parse(std::path::Path::new(path));
            return;
        }
    }
    if let [mode, path, models, reps] = args.as_slice() {
        if mode == "certify" {
            certify(std::path::Path::new(path), models, reps.parse().unwrap());
            return;
        }
    }
    if let [mode, count, threads, ops] = args.as_slice() {
        if mode == "batch" {
            batch(
                count.parse().unwrap(),
                threads.parse().unwrap(),
                ops.parse().unwrap(),
            );
            return;
        }
    }
    if let [model, threads, ops, reps] = args.as_slice() {
        let model = Model::from_name(model).expect("a model name");
        let (t, o, r) = (
            threads.parse().unwrap(),
            ops.parse().unwrap(),
            reps.parse().unwrap(),
        );
        println!("{model} {t}x{o}: {:.3} ms/history", time(model, t, o, r));
        return;
    }
    println!("ms/history, SC-generated valid histories, 8 variables, half writes");
    println!(
        "{:<8} {:>8} {:>8} {:>8} {:>8}",
        "model", "4x50", "8x50", "12x50", "16x50"
    );
    for model in Model::ALL {
        let row: Vec<String> = [4, 8, 12, 16]
            .iter()
            .map(|&t| format!("{:>8.3}", time(model, t, 50, 40)))
            .collect();
        println!("{:<8} {}", model.name(), row.join(" "));
    }
    println!("store-order coverage (ordered / same-variable write pairs), mean of 20 histories:");
    for t in [4, 8, 16] {
        let cov: Vec<String> = [Model::Ccm, Model::Wccm, Model::Wsc]
            .iter()
            .map(|&m| format!("{m} {:.4}", coverage(m, t, 50)))
            .collect();
        println!("  {t}x50: {}", cov.join(", "));
    }
    gradual_cost();
    for (t, o) in [(16, 125), (16, 250), (16, 625)] {
        println!(
            "wsc {t}x{o} ({} ops): {:.1} ms/history",
            t * o,
            time(Model::Wsc, t, o, 2)
        );
    }
}

/// `gradual`: what the gradual chain costs a valid history, against each
/// model alone (the bound: 1.3×).
fn gradual_cost() {
    println!(
        "sc/tso/pso through `check` (ms/history, median of 21; valid SC-/TSO-generated histories):"
    );
    for (memory, model) in [
        (Memory::Sc, Model::Sc),
        (Memory::Tso, Model::Tso),
        (Memory::Pso, Model::Pso),
    ] {
        for t in [4, 8, 16] {
            let g = pipeline(memory, model, t, true);
            let d = pipeline(memory, model, t, false);
            println!(
                "  {model} {t}x50 ({memory:?}-generated): gradual {g:.3}, --no-gradual {d:.3} ({:.2}x)",
                g / d
            );
        }
    }
}
