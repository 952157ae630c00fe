//! The random client of `gem5-configs/client`, run natively: this x86 host is
//! a TSO memory, so every history it records must be TSO, and some should
//! not be SC (store buffering).
//!
//! Needs a C compiler (`cc`, or `$CC`) and POSIX threads.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use memconform::history::History;
use memconform::models::Model;
use memconform_parsers::client::{looks_like_client, parse_client};

/// Threads per run (the host has 2 cores: more threads than cores is fine,
/// the client's barrier yields).
const THREADS: u32 = 4;
/// Operations per thread and round.
const OPS: u32 = 100;
/// Shared words: few, so that threads race on them.
const WORDS: u32 = 4;
/// Rounds (histories) per run. Runs are short, and many: whether the
/// client's threads really run at the same time is decided per run by the
/// host's scheduler (on a loaded machine, many runs have no parallel moment
/// at all), so many short runs find store buffering sooner than a few long
/// ones.
const ROUNDS: u32 = 100;
/// Runs (seeds 1, 2, ...) always made: 20 x 100 = 2000 histories.
const MIN_RUNS: u64 = 20;
/// More runs are made, while no SC violation showed, until this much time
/// has passed.
const BUDGET: Duration = Duration::from_secs(15);

/// Compiles `gem5-configs/client/client.c` for this host.
fn build_client() -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("gem5-configs/client/client.c");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("memconform-native-client");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = Command::new(&cc)
        .args(["-O2", "-pthread", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "this test compiles {} with the system C compiler `{cc}`, which cannot \
                 be run ({e}): install a C compiler (e.g. gcc) or set CC",
                src.display()
            )
        });
    assert!(
        status.success(),
        "`{cc}` failed to compile {}: {status}",
        src.display()
    );
    out
}

fn run_client(client: &Path, seed: u64) -> Vec<u8> {
    let args = [THREADS, OPS, WORDS]
        .map(|n| n.to_string())
        .into_iter()
        .chain([seed.to_string(), ROUNDS.to_string()]);
    let out = Command::new(client)
        .args(args)
        .output()
        .expect("the client runs");
    assert!(
        out.status.success(),
        "client {seed} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What checking one history found.
struct Verdicts {
    /// The TSO violation, explained, if any.
    tso: Option<String>,
    /// The SC violation, explained, if any.
    sc: Option<String>,
}

/// Parses one run's output and checks every history against TSO and SC.
fn check_run(seed: u64, out: &[u8]) -> Vec<Verdicts> {
    assert!(
        looks_like_client(out),
        "client {seed}: output not recognised"
    );
    let raws = parse_client(out).unwrap_or_else(|e| panic!("client {seed}: {e}"));
    assert_eq!(raws.len(), ROUNDS as usize, "client {seed}");
    raws.par_iter()
        .enumerate()
        .map(|(i, raw)| {
            let seed_meta = raw.meta.iter().find(|(k, _, _)| k == "seed");
            assert_eq!(
                seed_meta.map(|m| m.1.as_str()),
                Some(seed.to_string().as_str())
            );
            let h = History::from_raw(raw, i)
                .unwrap_or_else(|e| panic!("client {seed}, round {i}: invalid history: {e}"));
            let explain = |v: memconform::certificate::Violation| {
                format!("seed {seed} round {i}: {:?}\n{}", v.pattern, v.explain(&h))
            };
            Verdicts {
                tso: Model::Tso.check(&h).err().map(explain),
                sc: Model::Sc.check(&h).err().map(explain),
            }
        })
        .collect()
}

#[test]
fn native_histories_are_tso_and_some_are_not_sc() {
    let started = Instant::now();
    let client = build_client();
    let mut runs = 0u64;
    let mut histories = 0usize;
    let mut tso_failures = Vec::new();
    let mut sc_violations = Vec::new();
    let mut runs_with_sc = 0u64;
    let mut client_time = Duration::ZERO;
    while runs < MIN_RUNS || (sc_violations.is_empty() && started.elapsed() < BUDGET) {
        runs += 1;
        // one run at a time, checked after it ended: checking would compete
        // with the client's threads for the cores
        let t = Instant::now();
        let out = run_client(&client, runs);
        client_time += t.elapsed();
        let before = sc_violations.len();
        for v in check_run(runs, &out) {
            histories += 1;
            tso_failures.extend(v.tso);
            sc_violations.extend(v.sc);
        }
        runs_with_sc += u64::from(sc_violations.len() > before);
    }
    eprintln!(
        "native client: {histories} histories ({runs} runs x {ROUNDS} rounds, {THREADS} threads x \
         {OPS} ops on {WORDS} words), {} TSO-consistent, {} SC violations \
         (in {runs_with_sc} runs) [clients {:.2} s, total {:.2} s]",
        histories - tso_failures.len(),
        sc_violations.len(),
        client_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    if let Some(e) = sc_violations.first() {
        eprintln!("first SC violation, {e}");
    }
    assert!(
        tso_failures.is_empty(),
        "{} of {histories} native histories are not TSO; first: {}",
        tso_failures.len(),
        tso_failures[0]
    );
    assert!(
        !sc_violations.is_empty(),
        "no SC violation in {histories} native histories ({:.1} s): store buffering never \
         showed (is the machine so loaded that the client's threads never ran at the same time?)",
        started.elapsed().as_secs_f64()
    );
}
