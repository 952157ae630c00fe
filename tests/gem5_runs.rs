//! Real gem5 runs (traces/ and tests/data/gem5): every run ingests, one
//! operation per completed request (counted here independently of the
//! parsers), the protocol named; clean runs consistent, runs with an injected
//! bug violate (with the real-time order at least); a truncated .gz keeps its
//! prefix.

mod common;

use std::path::{Path, PathBuf};

use common::{check_every_model, meta, model_verdict};

use memconform::certificate::Violation;
use memconform::check::{check_gradual_with, Decision, Options, Outcome, Verdict};
use memconform::gem5::{ingest, open_run};
use memconform::models::Model;

/// Checks `models` on `h` without a time budget, so that no verdict is
/// `unknown` on a loaded machine (the clean runs take seconds each).
fn check(h: &memconform::history::History, models: &[Model]) -> Vec<Outcome> {
    let opts = Options {
        timeout: None,
        ..Options::default()
    };
    check_gradual_with(h, models, &opts)
}

/// The folders holding the MI_example runs: the two bundled in `traces/`
/// (beside the SE-mode client runs) and the rest in `tests/data/gem5/mi_example/`.
fn mi_example_dirs() -> [PathBuf; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("traces"), root.join("tests/data/gem5/mi_example")]
}

/// The folder of the MI_example run `name`.
fn mi_example(name: &str) -> PathBuf {
    let found: Vec<PathBuf> = mi_example_dirs()
        .iter()
        .map(|d| d.join(name))
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(found.len(), 1, "run {name}: {found:?}");
    found.into_iter().next().unwrap()
}

/// The folder of the MESI_Two_Level run `name`.
fn mesi_two_level(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gem5/mesi_two_level")
        .join(name)
}

fn moesi_hammer(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gem5/moesi_hammer")
        .join(name)
}

fn moesi_amd_base(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gem5/moesi_amd_base")
        .join(name)
}

fn text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        let _ = std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(bytes.as_slice()),
            &mut out,
        );
        String::from_utf8_lossy(&out).into_owned()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// (1-byte write completions, read bytes completed) counted with plain string matching.
fn completions(trace: &str, memtest: bool) -> (usize, usize) {
    let (mut w, mut r) = (0, 0);
    for l in trace.lines() {
        if memtest {
            if l.contains("Completing write at address") {
                w += 1;
            } else if l.contains("Completing read at address") {
                r += 1;
            }
        } else if let Some(i) = l.find("completed request for proc:") {
            let size: usize = l[i..]
                .split("size: ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            if size == 1 {
                w += 1;
            } else {
                r += size;
            }
        }
    }
    (w, r)
}

/// Ingests the run at `path` and checks it against the trace, counted with
/// plain string matching: one write per completed write request, one read
/// per completed byte, every check's 4-byte read after a write of each byte.
/// Returns the run and its per-port history, for a caller's own checks.
fn ingests_with_one_operation_per_completed_request(
    path: &Path,
    protocol: &str,
) -> (memconform::gem5::Run, memconform::history::History) {
    let run = open_run(path).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    assert_eq!(run.protocol.name(), protocol, "{}", path.display());
    let ing = ingest(&run, false).unwrap_or_else(|e| panic!("{e}"));
    // no damage in a real run but the cut of the one whose .gz gem5 left unfinished
    match &ing.damage {
        None => assert!(!name.ends_with("gztrunc"), "{name}"),
        Some(d) => assert!(d.cut && name.ends_with("gztrunc"), "{name}: {d}"),
    }
    let h = &ing.history;
    let memtest = name.starts_with("memtest");
    let (w, r) = completions(&text(run.trace.as_ref().unwrap()), memtest);
    assert!(w > 0, "{name}: no completed write in the trace");
    let writes = (0..h.n())
        .filter(|&o| h.is_write(o) && !h.is_init(o))
        .count();
    let reads = (0..h.n()).filter(|&o| h.is_read(o)).count();
    let failed_read_added = ing.notes.iter().any(|n| n.contains("added from the panic")) as usize;
    let failed_memtest_read = (memtest && run.memtest_failure.is_some()) as usize;
    assert_eq!(writes, w, "{name}: one write per completed write request");
    assert_eq!(
        reads,
        r + failed_read_added + failed_memtest_read,
        "{name}: one read per completed byte"
    );
    if !memtest {
        // every completed check: its 4-byte read, after a write of each of its bytes
        let mut groups: std::collections::BTreeMap<(u64, u64), Vec<u64>> = Default::default();
        for o in ing.origins.iter().filter(|o| !o.access.write) {
            groups
                .entry((o.access.issue_line, o.access.byte & !3))
                .or_default()
                .push(o.access.byte);
        }
        for ((issue, base), bytes) in &groups {
            if failed_read_added == 1 && bytes.len() == 1 {
                continue; // the failing read, from the panic message
            }
            assert_eq!(
                bytes.len(),
                4,
                "{name}: read of check 0x{base:x} at line {issue}"
            );
            for b in bytes {
                assert!(
                    ing.origins.iter().any(|w| w.access.write
                        && w.access.byte == *b
                        && w.access.complete_line < *issue),
                    "{name}: byte 0x{b:x} read at line {issue} before any write of its check"
                );
            }
        }
    }
    (run, ing.history)
}

#[test]
fn every_run_ingests_with_one_operation_per_completed_request() {
    let mut seen = Vec::new();
    for dir in mi_example_dirs() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            // tester runs (traces/ also holds SE-mode client runs: tests/se_runs.rs)
            let tester = memconform::gem5::is_run(&path)
                && memconform::gem5::open_run(&path)
                    .is_ok_and(|r| memconform::gem5::client_output(&r).is_none());
            if tester {
                ingests_with_one_operation_per_completed_request(&path, "MI_example");
                seen.push(path.file_name().unwrap().to_str().unwrap().to_string());
            }
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "bug-mi3-n4-s2-rich",
            "bug-mi5-n2-s3-gztrunc",
            "bug-mi5-n4-s1-rich",
            "clean-n2-s1-rich",
            "clean-n4-s2",
            "clean-n8-s3-gz",
            "memtest-n4",
        ]
    );
}

/// The model's verdict, gradual (where a stronger model's witness from the
/// ticks may decide it) and checked alone, which must agree.
fn verdict(path: &Path, real_time: bool, model: Model) -> Verdict {
    let run = open_run(path).unwrap();
    let ing = ingest(&run, real_time).unwrap();
    let gradual = check(&ing.history, &[model])[0].verdict();
    let alone = Options {
        timeout: None,
        gradual: false,
        ..Options::default()
    };
    let own = check_gradual_with(&ing.history, &[model], &alone)[0].verdict();
    assert_eq!(gradual, own, "{} rt={real_time} {model}", path.display());
    own
}

#[test]
fn clean_runs_are_consistent_and_buggy_runs_violate() {
    for clean in [
        "clean-n2-s1-rich",
        "clean-n4-s2",
        "clean-n8-s3-gz",
        "memtest-n4",
    ] {
        for rt in [false, true] {
            for m in [Model::Sc, Model::Tso, Model::Wsc, Model::Cm] {
                assert_eq!(
                    verdict(&mi_example(clean), rt, m),
                    Verdict::Consistent,
                    "{clean} rt={rt} {m}"
                );
            }
        }
    }
    for bug in [
        "bug-mi5-n4-s1-rich",
        "bug-mi3-n4-s2-rich",
        "bug-mi5-n2-s3-gztrunc",
    ] {
        assert_eq!(
            verdict(&mi_example(bug), true, Model::Sc),
            Verdict::Violation,
            "{bug} with --real-time"
        );
    }
    // MI-3 also violates SC with per-port program order alone
    assert_eq!(
        verdict(&mi_example("bug-mi3-n4-s2-rich"), false, Model::Sc),
        Verdict::Violation
    );
}

#[test]
fn a_violation_is_explained_with_ports_ticks_and_protocol_transitions() {
    let path = mi_example("bug-mi5-n4-s1-rich");
    let run = open_run(&path).unwrap();
    let ing = ingest(&run, true).unwrap();
    let out = check(&ing.history, &[Model::Cc]);
    let v = out[0].violation().expect("a violation");
    let origins = memconform::gem5::tester::provenance(&ing.origins, run.trace.clone());
    let text = memconform::gem5::explain(&run, &ing, &origins, v, 40);
    assert!(text.contains("port 1 read of byte 0x6e8 = 0"), "{text}");
    assert!(text.contains("Action/check failure on port 1"), "{text}");
    assert!(text.contains("ProtocolTrace of line 0x6c0"), "{text}");
    assert!(text.contains("Directory"), "{text}");
    // the excerpt's length is the caller's
    let listed = |t: &str| t.lines().filter(|l| l.contains(", line 0x")).count();
    let short = memconform::gem5::explain(&run, &ing, &origins, v, 3);
    assert!(short.contains(", the last 3:"), "{short}");
    assert!(listed(&short) < listed(&text), "{short}");
    assert!(!text.contains("no ProtocolTrace lines"), "{text}");
    let none = memconform::gem5::explain(&run, &ing, &origins, v, 0);
    assert!(!none.contains("ProtocolTrace"), "{none}");
    assert!(none.contains("port 1 read of byte 0x6e8 = 0"), "{none}");
    // and `check --transitions N` sets it
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "check",
            "--format",
            "report",
            "--models",
            "cc",
            "--real-time",
            "--transitions",
            "2",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(", the last 2:"), "{out}");
}

/// A run traced with RubyTest alone says which debug flags would list the
/// protocol's transitions in its explanations (docs/design/gem5.md §5).
#[test]
fn a_violation_without_protocol_trace_says_which_flags_add_it() {
    let path = mi_example("bug-mi5-n2-s3-gztrunc");
    let run = open_run(&path).unwrap();
    let ing = ingest(&run, true).unwrap();
    let out = check(&ing.history, &[Model::Cc]);
    let v = out[0].violation().expect("a violation");
    let origins = memconform::gem5::tester::provenance(&ing.origins, run.trace.clone());
    let text = memconform::gem5::explain(&run, &ing, &origins, v, 40);
    assert!(
        text.contains("no ProtocolTrace lines")
            && text.contains("--debug-flags=RubyTest,ProtocolTrace,RubySequencer"),
        "{text}"
    );
    assert!(!memconform::gem5::explain(&run, &ing, &origins, v, 0).contains("ProtocolTrace"));
}

#[test]
fn a_truncated_gz_trace_still_gives_the_history_prefix() {
    let src = mi_example("clean-n8-s3-gz");
    let full = ingest(&open_run(&src).unwrap(), false).unwrap();
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::copy(src.join("config.ini"), tmp.join("config.ini")).unwrap();
    let gz = std::fs::read(src.join("trace.txt.gz")).unwrap();
    for cut in [gz.len() / 3, gz.len() / 2, gz.len() - 100] {
        std::fs::write(tmp.join("trace.txt.gz"), &gz[..cut]).unwrap();
        let part = ingest(&open_run(&tmp).unwrap(), false).unwrap();
        assert!(
            part.notes.iter().any(|n| n.contains("damaged")),
            "{:?}",
            part.notes
        );
        assert!(
            part.damage.as_ref().is_some_and(|d| d.cut),
            "{:?}",
            part.damage
        );
        let (n, m) = (part.history.n_thread_ops(), full.history.n_thread_ops());
        assert!(n > 0 && n < m, "cut at {cut}: {n} of {m} operations");
        // a prefix: every operation kept is one of the full history's, at the same trace lines
        let key = |o: &memconform::gem5::tester::Origin| {
            (o.access.issue_line, o.access.complete_line, o.access.byte)
        };
        let all: std::collections::HashSet<_> = full.origins.iter().map(key).collect();
        let last = part
            .origins
            .iter()
            .map(|o| o.access.complete_line)
            .max()
            .unwrap();
        for o in &part.origins {
            assert!(
                all.contains(&key(o)),
                "cut at {cut}: an operation not in the full trace"
            );
        }
        let expected = full
            .origins
            .iter()
            .filter(|o| o.access.complete_line <= last)
            .count();
        assert!(
            part.origins.len() >= expected - 8,
            "cut at {cut}: {} of {expected} operations before line {last}",
            part.origins.len()
        );
        assert_eq!(
            check(&part.history, &[Model::Sc])[0].verdict(),
            Verdict::Consistent
        );
    }
}

#[test]
fn mesi_two_level_runs_ingest_and_me7_violates_with_real_time() {
    for (name, ops) in [("clean-n4-s2-rich", 2819), ("bug-me7-n4-s1-rich", 396)] {
        let path = mesi_two_level(name);
        // one history per port, and one of all ports in real-time order
        let (run, per_port) =
            ingests_with_one_operation_per_completed_request(&path, "MESI_Two_Level");
        let names: Vec<&str> = per_port.threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["port0", "port1", "port2", "port3"], "{name}");
        assert_eq!(per_port.n_thread_ops(), ops, "{name}");
        let real_time = ingest(&run, true).unwrap().history;
        assert_eq!(real_time.threads.len(), 1, "{name}");
        assert_eq!(real_time.n_thread_ops(), ops, "{name}");
    }
    let clean = mesi_two_level("clean-n4-s2-rich");
    for rt in [false, true] {
        for m in [Model::Sc, Model::Tso, Model::Wsc] {
            assert_eq!(
                verdict(&clean, rt, m),
                Verdict::Consistent,
                "clean-n4-s2-rich rt={rt} {m}"
            );
        }
    }
    // ME-7's stale read violates every model under the real-time order
    let bug = mesi_two_level("bug-me7-n4-s1-rich");
    for m in [Model::Cc, Model::Sc] {
        assert_eq!(
            verdict(&bug, true, m),
            Verdict::Violation,
            "bug-me7-n4-s1-rich with --real-time, {m}"
        );
    }
}

#[test]
fn a_violation_decided_by_a_weaker_model_is_explained_under_the_asked_one() {
    let path = mi_example("bug-mi5-n4-s1-rich");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "check",
            "--format",
            "report",
            "--models",
            "sc",
            "--real-time",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("sc    violation  caught by cc"), "{text}");
    // the cycle and the gem5 explanation, once
    assert_eq!(text.matches("-rw->").count(), 1, "{text}");
    assert_eq!(
        text.matches("Action/check failure on port 1").count(),
        1,
        "{text}"
    );
    // no host pointers from gem5's panic text
    assert!(!text.contains("data: 0x"), "{text}");
}

#[test]
fn a_runs_variant_comes_from_its_run_record_or_the_command_line() {
    let src = mesi_two_level("bug-me7-n4-s1-rich");
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-variant-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(e.path(), tmp.join(e.file_name())).unwrap();
    }
    let record = std::fs::read_to_string(tmp.join("memconform-run.json")).unwrap();
    let with = record.replacen('{', "{\n  \"variant\": \"ME-7\",", 1);
    std::fs::write(tmp.join("memconform-run.json"), with).unwrap();
    let csv = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "--models",
            "cc",
            "-f",
            "csv",
            tmp.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(&args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = csv(&[]);
    let header: Vec<&str> = out.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "variant").unwrap();
    let row: Vec<&str> = out.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[col], "ME-7", "{out}");
    // the run's own record wins over --variant, which fills only empty ones
    let out = csv(&["--variant", "other"]);
    assert!(out.contains(",ME-7,") && !out.contains(",other,"), "{out}");
    std::fs::write(tmp.join("memconform-run.json"), record).unwrap();
    let out = csv(&["--variant", "other"]);
    assert!(out.contains(",other,"), "{out}");
}

/// What cannot be read of a run's other files (docs/reference.md, *gem5
/// runs*) is a warning, located, never silence: a `memconform-run.json` that is not
/// JSON or whose `variant` is not a string, a `--seed` that is no number.
/// The run is still checked (without that column), the warning is a note
/// of the text report and a line on stderr whatever the format.
#[test]
fn a_bad_run_record_or_seed_is_a_located_warning_not_silence() {
    let src = mesi_two_level("bug-me7-n4-s1-rich");
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-warnings-{}", std::process::id()));
    let record = tmp.join("memconform-run.json");
    let simout = tmp.join("simout.txt");
    let fresh = || {
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        for e in std::fs::read_dir(&src).unwrap().flatten() {
            std::fs::copy(e.path(), tmp.join(e.file_name())).unwrap();
        }
    };
    let check = |format: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(["check", "--models", "cc", "-f", format])
            .arg(&tmp)
            .output()
            .unwrap()
    };
    let simout_text = std::fs::read_to_string(src.join("simout.txt")).unwrap();
    let seed_line = simout_text
        .lines()
        .position(|l| l.starts_with("command line:"))
        .unwrap()
        + 1;
    let seed_col = simout_text
        .lines()
        .nth(seed_line - 1)
        .unwrap()
        .find("--seed 1")
        .unwrap()
        + 1
        + 7;
    // (what, how the copy is damaged, the warning)
    type Case<'a> = (&'a str, Box<dyn Fn() + 'a>, String);
    let cases: Vec<Case> = vec![
        (
            "malformed JSON",
            Box::new(|| std::fs::write(&record, "{\n  \"variant\": \"ME-7\",\n").unwrap()),
            format!(
                "warning: {}:3:1: not JSON (EOF while parsing a value): the run's variant is left empty",
                record.display()
            ),
        ),
        (
            "a variant that is not a string",
            Box::new(|| std::fs::write(&record, "{\n  \"seed\": 1,\n  \"variant\": 7\n}\n").unwrap()),
            format!(
                "warning: {}:3:3: `variant` is a number, not a string: the run's variant is left empty",
                record.display()
            ),
        ),
        (
            "a seed that is no number",
            Box::new(|| {
                std::fs::write(&simout, simout_text.replacen("--seed 1", "--seed x1", 1)).unwrap()
            }),
            format!(
                "warning: {}:{seed_line}:{seed_col}: --seed `x1` is not a whole number from 0 to 2^64-1: the run's seed is left empty",
                simout.display()
            ),
        ),
    ];
    for (what, damage, warning) in cases {
        fresh();
        damage();
        let run = open_run(&tmp).unwrap();
        assert_eq!(run.warnings.len(), 1, "{what}: {:?}", run.warnings);
        assert_eq!(format!("warning: {}", run.warnings[0]), warning, "{what}");
        let o = check("csv");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.lines().any(|l| l == warning), "{what}: {err}");
        // still checked (this run violates cc: exit 1, not an input error),
        // with that column empty
        assert_eq!(o.status.code(), Some(1), "{what}: {err}");
        let out = String::from_utf8_lossy(&o.stdout);
        let header: Vec<&str> = out.lines().next().unwrap().split(',').collect();
        let row: Vec<&str> = out.lines().nth(1).unwrap().split(',').collect();
        let col = |c: &str| row[header.iter().position(|h| *h == c).unwrap()];
        assert_eq!(col("variant"), "", "{what}");
        if what.contains("seed") {
            assert_eq!(col("seed"), "", "{what}");
        }
        let o = check("text");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(&format!("note: {warning}")), "{what}: {text}");
    }
    // a run without a record, with its seed: no warning
    fresh();
    std::fs::remove_file(&record).unwrap();
    assert!(open_run(&tmp).unwrap().warnings.is_empty());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Stock MOESI_hammer (x86 build, v24.0.0.1) under the Ruby random tester,
/// which turns on cache flushes for this protocol only: a run that
/// completes is consistent under every view; a run the tester stops with
/// `Action/check failure` (no mutation: a store lost around a flush; with
/// flushes off, 8 of 8 runs complete) is a stale read memconform reports
/// as `WriteCOInitRead`, per port and in real time; the same seed with
/// `seeded_random_test.py --no-flush` completes, consistent.
#[test]
fn moesi_hammer_runs_ingest_and_a_flush_race_violates_cc() {
    for (name, ops) in [
        ("clean-n4-s1-rich", 1969),
        ("flush-n4-s6-rich", 594),
        ("noflush-n4-s6-rich", 2056),
    ] {
        let path = moesi_hammer(name);
        let (_, per_port) = ingests_with_one_operation_per_completed_request(&path, "MOESI_hammer");
        let names: Vec<&str> = per_port.threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["port0", "port1", "port2", "port3"], "{name}");
        assert_eq!(per_port.n_thread_ops(), ops, "{name}");
    }
    // seed 1 completes with flushes; seed 6, which fails with them, with the
    // wrapper's --no-flush: the tester completes, the history is consistent
    for (name, flushes) in [("clean-n4-s1-rich", true), ("noflush-n4-s6-rich", false)] {
        let clean = moesi_hammer(name);
        let config = std::fs::read_to_string(clean.join("config.ini")).unwrap();
        assert!(config.contains(&format!("check_flush={flushes}")), "{name}");
        assert!(open_run(&clean).unwrap().failure.is_none(), "{name}");
        for rt in [false, true] {
            for m in [Model::Cc, Model::Sc, Model::Tso] {
                assert_eq!(
                    verdict(&clean, rt, m),
                    Verdict::Consistent,
                    "{name} rt={rt} {m}"
                );
            }
        }
    }
    let config = std::fs::read_to_string(moesi_hammer("flush-n4-s6-rich").join("config.ini"));
    assert!(config.unwrap().contains("check_flush=true"));
    // the lost store's path (docs/design/gem5.md §7): issued with a flush of
    // its line in one tick, completed on the flush's writeback ack, which
    // the directory took as a clean writeback
    let trace = text(&moesi_hammer("flush-n4-s6-rich").join("trace.txt.gz"));
    let at = |tick: &str, what: &[&str]| {
        trace
            .lines()
            .any(|l| l.trim_start().starts_with(tick) && what.iter().all(|w| l.contains(w)))
    };
    assert!(at("841:", &["initiating Flush"]));
    assert!(at("841:", &["Seq write: index 1 data 0xf4"]));
    assert!(at("5141 ", &["MI_F>I", "Writeback_Ack", "line 0x30c0"]));
    assert!(at(
        "5142:",
        &["completed request for proc: 1 addr: 0x30e8", "data: 244"]
    ));
    assert!(at(
        "5310 ",
        &["Writeback_Exclusive_Clean", "WB>E", "line 0x30c0"]
    ));
    let flush = moesi_hammer("flush-n4-s6-rich");
    let run = open_run(&flush).unwrap();
    assert!(run.failure.is_some(), "the tester's own check failed too");
    for rt in [false, true] {
        let h = ingest(&run, rt).unwrap().history;
        let o = &check(&h, &[Model::Cc])[0];
        assert_eq!(o.verdict(), Verdict::Violation, "flush rt={rt}");
        let Decision::Violation(v) = &o.decision else {
            unreachable!()
        };
        assert_eq!(v.pattern.name(), "WriteCOInitRead", "rt={rt}");
        assert!(o.invalid.is_none(), "{:?}", o.invalid);
    }
}

/// MOESI_AMD_Base (x86 build, stock protocol files, the wrapper's
/// adaptations of the stock config): the protocol is recognised from the
/// real config.ini and each run ingests with one operation per completed
/// request. Every tester run tried fails gem5's own checks: one with
/// `Action/check failure` (a store lost: memconform reports the same read
/// as `WriteCOInitRead`, per port and in real time), one with an `Invalid
/// transition` at the directory, whose completed prefix is consistent.
#[test]
fn moesi_amd_base_runs_ingest_and_the_tester_fails_on_the_stock_protocol() {
    for (name, ports) in [("stale-n2-s2-rich", 2), ("invalid-n4-s1-rich", 4)] {
        let path = moesi_amd_base(name);
        let (_, h) = ingests_with_one_operation_per_completed_request(&path, "MOESI_AMD_Base");
        assert_eq!(h.threads.len(), ports, "{name}");
        let adapted = std::fs::read_to_string(path.join("memconform-run.json")).unwrap();
        assert!(adapted.contains("L2isWB=False"), "{adapted}");
    }
    // gem5's tester: port 0 expected 37 at 0x51e8 and read 0; memconform
    // names that read
    let stale = open_run(&moesi_amd_base("stale-n2-s2-rich")).unwrap();
    let f = stale.failure.expect("the tester's check failed");
    assert_eq!((f.proc_, f.address, f.expected, f.got), (0, 0x51e8, 37, 0));
    for rt in [false, true] {
        let h = ingest(&stale, rt).unwrap().history;
        let o = &check(&h, &[Model::Cc])[0];
        let Decision::Violation(v) = &o.decision else {
            panic!("rt={rt}: {:?}", o.verdict())
        };
        assert_eq!(v.pattern.name(), "WriteCOInitRead", "rt={rt}");
        assert!(o.invalid.is_none(), "{:?}", o.invalid);
        let text = v.explain(&h);
        assert!(text.contains(":R(0x51e8,0)"), "{text}");
    }
    let path = moesi_amd_base("invalid-n4-s1-rich");
    let simout = std::fs::read_to_string(path.join("simout.txt")).unwrap();
    assert!(simout.contains("panic: Invalid transition"), "{simout}");
    assert!(open_run(&path).unwrap().failure.is_none());
    for rt in [false, true] {
        assert_eq!(
            verdict(&moesi_amd_base("invalid-n4-s1-rich"), rt, Model::Sc),
            Verdict::Consistent,
            "rt={rt}"
        );
    }
}

/// The client's histories of an SE run in tests/data/gem5/moesi_amd_base,
/// every model checked, of a run gem5 ended cleanly (no panic, no failed
/// check), which has `rounds` histories.
fn amd_clean_client_run(name: &str, rounds: usize) -> Vec<memconform::ingest::Checked> {
    let r = open_run(&moesi_amd_base(name)).unwrap();
    assert!(r.panic.is_none() && r.failure.is_none(), "{name}");
    let run = check_every_model(&moesi_amd_base(name));
    assert_eq!(run.len(), rounds, "{name}");
    run
}

/// Model `m`'s outcome on a checked history, which must be a violation,
/// the violation, and its explanation.
fn violation_of(c: &memconform::ingest::Checked, m: Model) -> (&Outcome, &Violation, String) {
    let o = c.outcomes.iter().find(|o| o.model == m).unwrap();
    let Decision::Violation(v) = &o.decision else {
        panic!("{m:?}: {:?}", o.verdict())
    };
    (o, v, v.explain(&c.history))
}

/// The histories of `run` that violate `m`.
fn violating(run: &[memconform::ingest::Checked], m: Model) -> Vec<&memconform::ingest::Checked> {
    run.iter()
        .filter(|c| model_verdict(c, m) == Verdict::Violation)
        .collect()
}

/// The threads named in the witness of `m`'s violation (`t2:W(x,1)` ...).
fn witness_threads(c: &memconform::ingest::Checked, m: Model) -> Vec<u32> {
    let (_, _, text) = violation_of(c, m);
    let cycle = text.lines().next().unwrap_or("");
    let mut threads: Vec<u32> = cycle
        .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != ':')
        .filter_map(|w| w.strip_prefix('t')?.split(':').next()?.parse().ok())
        .collect();
    threads.sort_unstable();
    threads.dedup();
    threads
}

/// MOESI_AMD_Base with gem5 PR #1117 ("Reduce handshaking between CorePair
/// and dir") reverted, everything else stock: the Ruby random tester run
/// that fails stock (`-n 4`, seed 1: `StaleWB` in a blocked directory
/// state) completes, and its history is consistent (docs/design/gem5.md §7).
#[test]
fn moesi_amd_base_with_the_handshake_change_reverted_passes_the_tester() {
    let path = moesi_amd_base("reverted-n4-s1");
    let (run, _) = ingests_with_one_operation_per_completed_request(&path, "MOESI_AMD_Base");
    let simout = std::fs::read_to_string(path.join("simout.txt")).unwrap();
    assert!(simout.contains("because Ruby Tester completed"), "{simout}");
    assert!(run.failure.is_none());
    for rt in [false, true] {
        assert_eq!(
            verdict(&path, rt, Model::Sc),
            Verdict::Consistent,
            "rt={rt}"
        );
    }
}

/// Stock MOESI_AMD_Base (v24.0.0.1) under memconform's client on 4 O3
/// cores (two CorePairs; `--access-backing-store`, as gem5's own APU
/// script sets, and `--barrier plain`): gem5 ends cleanly, and message
/// passing breaks TSO in some rounds, always between the two cores of one
/// CorePair (threads 0 and 1, or 2 and 3): one core's store invalidates
/// its pair-mate's L1 copy without the eviction reaching the pair-mate's
/// load queue. memconform alone sees it. With the eviction forwarded (a
/// local fix, run `se-o3-fixed-n4-s1`), the same client and seed give no
/// violation of TSO in 100 rounds.
#[test]
fn moesi_amd_base_breaks_tso_inside_a_corepair_and_gem5_ends_cleanly() {
    let stock = amd_clean_client_run("se-o3-stock-n4-s1", 100);
    let mut broken = 0;
    for c in &stock {
        assert_eq!(meta(c, "protocol"), "MOESI_AMD_Base");
        assert_eq!(meta(c, "expected_model"), "tso");
        if model_verdict(c, Model::Tso) == Verdict::Violation {
            broken += 1;
            // TSO's chain starts with cc, whose certificate of it can span
            // both pairs; wCCM's (TSO's other chain model) is the pair's own
            let threads = witness_threads(c, Model::Wccm);
            assert_eq!(threads.len(), 2, "{threads:?}");
            assert_eq!(threads[0] / 2, threads[1] / 2, "one CorePair: {threads:?}");
        }
    }
    assert_eq!(broken, 5, "5 of 100 rounds break TSO");
    let fixed = amd_clean_client_run("se-o3-fixed-n4-s1", 100);
    for c in &fixed {
        assert_eq!(model_verdict(c, Model::Tso), Verdict::Consistent);
    }
}

/// Stock MOESI_AMD_Base with locked RMWs in the client's rounds (`--rmw
/// random`): the two cores of a CorePair share one mandatory queue, so the
/// line a locked read blocks does not stop its pair-mate's locked read,
/// and RMWs lose their atomicity: two RMWs read the same write, or a
/// locked store is lost from the final state. gem5 ends cleanly; its
/// testers issue no locked RMWs.
#[test]
fn moesi_amd_base_loses_locked_rmw_atomicity_and_gem5_ends_cleanly() {
    let run = amd_clean_client_run("se-o3-rmw-stock-n4-s1", 100);
    let broken = violating(&run, Model::Pso);
    assert!(!broken.is_empty());
    for c in &broken {
        let (o, v, text) = violation_of(c, Model::Pso);
        assert_eq!(v.pattern.name(), "CyclicUniproc");
        assert!(o.invalid.is_none(), "{:?}", o.invalid);
        assert!(text.contains(":U("), "an RMW in the cycle: {text}");
    }
}

/// Catalogue bug MA-6 (`transition({Ms, M0, M1, O}, PrbInvData, I)` without
/// `forward_eviction_to_cpu1`), built on the O3 campaign's base, with the
/// client's `mp+sm` shape (the reader's pair holds x's line modified)
/// on 4 O3 cores, 300 rounds, seed 2: gem5 ends cleanly, and one round
/// breaks TSO, its stale read by core 1 of one pair (thread 1 or 3) after
/// a write from the other pair, the eviction core 1 was never told of.
/// The base, same seed and options, gives none (docs/design/gem5.md §9).
#[test]
fn ma6_breaks_tso_through_core_1_and_gem5_ends_cleanly() {
    let run = amd_clean_client_run("se-o3-ma6-mpsm-n4-s2", 300);
    let broken = violating(&run, Model::Tso);
    assert_eq!(broken.len(), 1);
    let c = broken[0];
    assert_eq!(meta(c, "expected_model"), "tso");
    // (wCCM's certificate: TSO's own chain starts with cc, whose cycle
    // names no observer)
    let (_, _, text) = violation_of(c, Model::Wccm);
    // the observer, a stale read of x, is core 1 of its pair
    let observer = text
        .split("observer o of hb_o: t")
        .nth(1)
        .and_then(|t| t.split(':').next())
        .and_then(|t| t.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(observer % 2, 1, "core 1 of a pair: {text}");
    let threads = witness_threads(c, Model::Wccm);
    assert!(
        threads.iter().any(|t| t / 2 != observer / 2),
        "a writer in the other pair: {threads:?} {text}"
    );
}
