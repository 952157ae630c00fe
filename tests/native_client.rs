//! The client of `gem5-configs/client`, run natively: this x86 host is a TSO
//! memory, so every history it records must be TSO, and some should not be
//! SC (store buffering); a fence or a locked RMW in both threads of the
//! store-buffering shape makes it SC.
//!
//! Needs a C compiler (`cc`, or `$CC`) and POSIX threads (but
//! `bundled_v2_output_is_tso`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use memconform::history::History;
use memconform::models::Model;
use memconform_parsers::client::{expected_header, header_lines, looks_like_client, parse_client};
use memconform_parsers::hist::RawHistory;

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
/// Rounds per v2 run.
const V2_ROUNDS: u32 = 200;

/// Held while a test runs clients: the tests of this file run in parallel,
/// and a client's threads should have the cores to themselves.
static CORES: Mutex<()> = Mutex::new(());

fn cores() -> std::sync::MutexGuard<'static, ()> {
    CORES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Compiles `gem5-configs/client/client.c` for this host (once).
fn build_client() -> PathBuf {
    static CLIENT: OnceLock<PathBuf> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("gem5-configs/client/client.c");
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("memconform-native-client");
            let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
            let status = Command::new(&cc)
                .args(["-O2", "-Wall", "-Wextra", "-pthread", "-o"])
                .arg(&out)
                .arg(&src)
                .status()
                .unwrap_or_else(|e| {
                    panic!(
                        "this test compiles {} with the system C compiler `{cc}`, which \
                         cannot be run ({e}): install a C compiler (e.g. gcc) or set CC",
                        src.display()
                    )
                });
            assert!(
                status.success(),
                "`{cc}` failed to compile {}: {status}",
                src.display()
            );
            out
        })
        .clone()
}

/// Runs the client with `args`; its stdout.
fn run(client: &Path, args: &[String]) -> Vec<u8> {
    let out = Command::new(client)
        .args(args)
        .output()
        .expect("the client runs");
    assert!(
        out.status.success(),
        "client {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn run_client(client: &Path, seed: u64) -> Vec<u8> {
    let args: Vec<String> = [THREADS, OPS, WORDS]
        .map(|n| n.to_string())
        .into_iter()
        .chain([seed.to_string(), ROUNDS.to_string()])
        .collect();
    run(client, &args)
}

/// What checking one history found.
struct Verdicts {
    /// The history's `@shape` (v2).
    shape: Option<String>,
    /// The TSO violation, explained, if any.
    tso: Option<String>,
    /// The SC violation, explained, if any.
    sc: Option<String>,
}

fn meta<'a>(raw: &'a RawHistory, key: &str) -> Option<&'a str> {
    raw.meta
        .iter()
        .rev()
        .find(|(k, _, _)| k == key)
        .map(|m| m.1.as_str())
}

/// Parses one run's output (`rounds` histories, from `seed`) and checks
/// every history against TSO and SC; `what` names the run in messages.
fn check_output(what: &str, seed: u64, rounds: u32, out: &[u8]) -> Vec<Verdicts> {
    assert!(looks_like_client(out), "{what}: output not recognised");
    let raws = parse_client(out).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(raws.len(), rounds as usize, "{what}");
    raws.par_iter()
        .enumerate()
        .map(|(i, raw)| {
            assert_eq!(meta(raw, "seed"), Some(seed.to_string().as_str()));
            let h = History::from_raw(raw, i)
                .unwrap_or_else(|e| panic!("{what}, round {i}: invalid history: {e}"));
            let explain = |v: memconform::certificate::Violation| {
                format!("{what} round {i}: {:?}\n{}", v.pattern, v.explain(&h))
            };
            Verdicts {
                shape: meta(raw, "shape").map(str::to_owned),
                tso: Model::Tso.check(&h).err().map(explain),
                sc: Model::Sc.check(&h).err().map(explain),
            }
        })
        .collect()
}

#[test]
fn native_histories_are_tso_and_some_are_not_sc() {
    let _cores = cores();
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
        for v in check_output(&format!("client {runs}"), runs, ROUNDS, &out) {
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

/// The v2 command line: `threads` threads, `V2_ROUNDS` rounds of `shape`.
fn v2_args(shape: &str, threads: u32, seed: u64, options: &[(&str, &str)]) -> Vec<String> {
    let mut args: Vec<String> = [
        ("--threads", threads.to_string()),
        ("--rounds", V2_ROUNDS.to_string()),
        ("--seed", seed.to_string()),
        ("--shape", shape.to_owned()),
    ]
    .into_iter()
    .flat_map(|(k, v)| [k.to_owned(), v])
    .collect();
    for (k, v) in options {
        args.extend([format!("--{k}"), (*v).to_owned()]);
    }
    args
}

/// Every shape (2 to 4 threads, some idle), without and with fences and
/// locked RMWs, with the plain (lock-free) barrier and with the writer's
/// warm-up read first (`--warm-order first`): every history
/// parses and is TSO; the store-buffering shape
/// with a fence or a locked store in both threads is SC.
#[test]
fn native_v2_shapes_are_tso_and_fenced_sb_is_sc() {
    let _cores = cores();
    let started = Instant::now();
    let client = build_client();
    let shapes = [
        ("random", "RANDOM", 3),
        ("mp", "MP", 3),
        ("sb", "SB", 2),
        ("lb", "LB", 2),
        ("iriw", "IRIW", 4),
        ("wrc", "WRC", 3),
        ("2+2w", "2+2W", 2),
        ("mp+sm", "MP+SM", 2),
        ("mp+s", "MP+S", 2),
        ("mix", "", 4),
    ];
    let options: [&[(&str, &str)]; 8] = [
        &[("fence", "none"), ("rmw", "none")],
        &[("fence", "mfence"), ("rmw", "none")],
        &[("fence", "none"), ("rmw", "xchg")],
        &[
            ("fence", "none"),
            ("rmw", "cmpxchg"),
            ("sharing", "same-line"),
        ],
        &[
            ("fence", "random"),
            ("rmw", "random"),
            ("warm-up", "random"),
            ("place", "first"),
        ],
        &[
            ("fence", "random"),
            ("delay-chain", "0"),
            ("delay-misses", "2"),
            ("evict", "256"),
        ],
        &[("barrier", "plain"), ("rmw", "random")],
        // the writer's warm-up read first, a handshake the history leaves out
        &[
            ("warm-order", "first"),
            ("fence", "random"),
            ("rmw", "random"),
        ],
    ];
    let mut histories = 0usize;
    let mut tso_failures = Vec::new();
    let mut sc_count = 0usize;
    let mut mix_shapes = std::collections::BTreeSet::new();
    for (seed, (shape, tag, threads)) in (1u64..).zip(shapes) {
        for opts in options {
            let args = v2_args(shape, threads, seed, opts);
            let what = format!("client {}", args.join(" "));
            let out = run(&client, &args);
            // the header is the one memconform expects of this command line
            // (what ties a gem5 run's client.out to config.ini's workload)
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let (version, fields) =
                expected_header(&argv).unwrap_or_else(|e| panic!("{what}: {e}"));
            let header = header_lines(&out).into_iter().next().expect("a header");
            assert_eq!(header.version, version, "{what}");
            for (key, want) in fields {
                assert_eq!(
                    header.get(key),
                    want.as_deref(),
                    "{what}: header field {key}"
                );
            }
            // SB with a fence, or a locked store, in both threads
            let locked_sb = shape == "sb"
                && matches!(
                    (opts[0].1, opts[1].1),
                    ("mfence", _) | (_, "xchg" | "cmpxchg")
                );
            for v in check_output(&what, seed, V2_ROUNDS, &out) {
                histories += 1;
                let round_shape = v.shape.expect("v2 histories have a @shape");
                if tag.is_empty() {
                    mix_shapes.insert(round_shape);
                } else {
                    assert_eq!(round_shape, tag, "{what}");
                }
                sc_count += usize::from(v.sc.is_none());
                tso_failures.extend(v.tso);
                if locked_sb {
                    if let Some(e) = v.sc {
                        panic!("a fence or locked store in both threads of SB, yet not SC: {e}");
                    }
                }
            }
        }
    }
    eprintln!(
        "native client v2: {histories} histories ({} shapes x {} option sets x {V2_ROUNDS} \
         rounds), {} TSO-consistent, {sc_count} SC; mix ran {mix_shapes:?} [{:.2} s]",
        shapes.len(),
        options.len(),
        histories - tso_failures.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        tso_failures.is_empty(),
        "{} of {histories} native v2 histories are not TSO; first: {}",
        tso_failures.len(),
        tso_failures[0]
    );
    // every x86 shape but MP+S, which mix leaves out
    assert_eq!(mix_shapes.len(), 8, "mix ran {mix_shapes:?}");
    assert!(!mix_shapes.contains("MP+S"), "mix ran {mix_shapes:?}");
}

/// Store buffering without fences or RMWs shows a non-SC outcome when the
/// host runs the two threads at the same time (runs are made until one
/// does, or the time budget is spent).
#[test]
fn native_v2_unfenced_sb_is_not_always_sc() {
    let _cores = cores();
    let started = Instant::now();
    let client = build_client();
    let mut runs = 0u64;
    let mut histories = 0usize;
    let mut sc_violations = Vec::new();
    while runs < 1 || (sc_violations.is_empty() && started.elapsed() < BUDGET) {
        runs += 1;
        let opts = [("fence", "none"), ("rmw", "none"), ("spin", "4")];
        let args = v2_args("sb", 2, runs, &opts);
        let out = run(&client, &args);
        for v in check_output(&format!("client {}", args.join(" ")), runs, V2_ROUNDS, &out) {
            histories += 1;
            assert!(v.tso.is_none(), "{}", v.tso.unwrap());
            sc_violations.extend(v.sc);
        }
    }
    eprintln!(
        "native client v2, unfenced SB: {} SC violations in {histories} histories \
         ({runs} runs) [{:.2} s]",
        sc_violations.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(e) = sc_violations.first() {
        eprintln!("first SC violation, {e}");
    }
    assert!(
        !sc_violations.is_empty(),
        "no SC violation in {histories} unfenced SB rounds ({:.1} s): store buffering never \
         showed (is the machine so loaded that the client's threads never ran at the same time?)",
        started.elapsed().as_secs_f64()
    );
}

/// The bundled output of a native v2 run (4 threads, every shape, random
/// fences, RMWs and warm-up reads) parses, and every history is TSO.
#[test]
fn bundled_v2_output_is_tso() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/client/v2-mix-n4-s3.out");
    let out = std::fs::read(&path).unwrap();
    let verdicts = check_output("v2-mix-n4-s3.out", 3, 48, &out);
    let shapes: std::collections::BTreeSet<_> =
        verdicts.iter().filter_map(|v| v.shape.as_deref()).collect();
    assert_eq!(shapes.len(), 8, "{shapes:?}");
    for v in &verdicts {
        assert!(v.tso.is_none(), "{}", v.tso.as_deref().unwrap());
    }
}

/// Every setting of the client's knobs in gem5-configs/knobs-se-o3.toml
/// (cpus, shape, sharing, evict, evict_at, rmw, fence, warm_order,
/// code_line: 9,072 of its 72,576 settings) and knobs-se-o3-races.toml
/// (with ops: 96 of 192) and knobs-se-o3-refill.toml (with spin and the
/// refill footprint: 4,608 of 18,432; l1d_size, l2_size and l2_assoc are
/// gem5's) is a
/// command line the client accepts: a search over either file wastes no
/// run on a client that refuses its options.
#[test]
fn every_client_setting_of_the_o3_knob_files_runs() {
    use memconform::mutate::stimulus::Space;
    let client = build_client();
    let _cores = cores();
    for (file, want) in [
        ("knobs-se-o3.toml", 9072),
        ("knobs-se-o3-races.toml", 96),
        ("knobs-se-o3-refill.toml", 4608),
    ] {
        let f = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("gem5-configs")
            .join(file);
        let space = Space::parse(&std::fs::read_to_string(&f).unwrap(), &f).unwrap();
        // the client's knobs, every combination odometer style
        let (names, lists): (Vec<&str>, Vec<Vec<String>>) = space
            .knobs
            .iter()
            .filter(|k| !["l1d_size", "l2_size", "l2_assoc"].contains(&k.name.as_str()))
            .map(|k| (k.name.as_str(), k.values.clone()))
            .unzip();
        let mut at = vec![0usize; names.len()];
        let mut runs = 0;
        'all: loop {
            let mut args: Vec<String> = ["--rounds", "1", "--seed", "1"].map(String::from).to_vec();
            for (k, name) in names.iter().enumerate() {
                let flag = match *name {
                    "cpus" => "--threads".to_string(),
                    n => format!("--{}", n.replace('_', "-")),
                };
                args.extend([flag, lists[k][at[k]].clone()]);
            }
            run(&client, &args);
            runs += 1;
            for k in 0..names.len() {
                at[k] += 1;
                if at[k] < lists[k].len() {
                    continue 'all;
                }
                at[k] = 0;
            }
            break;
        }
        assert_eq!(runs, want, "{file}");
    }
}
