//! Real gem5 SE-mode runs of memconform's client (gem5 v24.0.0.1, x86:
//! MESI_Two_Level runs bundled in traces/, MOESI_hammer and MOESI_AMD_Base
//! runs in tests/data/gem5/): each run recognised by itself
//! (protocol, CPU type and count, the model its cores promise) and checked.
//! In-order blocking Timing cores give SC on every round; out-of-order O3
//! cores give TSO on every round, and some rounds break SC by store
//! buffering, which x86 allows: those violations do not count against the
//! run.

mod common;

use std::path::Path;

use common::{check_every_model, meta, model_verdict as verdict, root};
use memconform::check::Verdict;
use memconform::ingest::Checked;
use memconform::models::Model;

fn check(run: &str) -> Vec<Checked> {
    check_every_model(&root().join("traces").join(run))
}

#[test]
fn a_timing_run_is_recognised_and_every_round_is_sc() {
    let checked = check("se-timing-n2-s1");
    assert_eq!(checked.len(), 10, "10 rounds, a history each");
    for c in &checked {
        assert_eq!(meta(c, "protocol"), "MESI_Two_Level");
        assert_eq!(meta(c, "cpu_type"), "X86TimingSimpleCPU");
        assert_eq!(meta(c, "expected_model"), "sc");
        assert_eq!(c.history.threads.len(), 2);
        for o in &c.outcomes {
            assert_eq!(
                o.verdict(),
                Verdict::Consistent,
                "{:?}: {:?}",
                o.model,
                o.reason()
            );
        }
        assert!(c
            .notes
            .iter()
            .any(|n| n.contains("2 x X86TimingSimpleCPU, promises sc")));
    }
}

#[test]
fn an_o3_run_is_tso_and_its_store_buffering_does_not_count() {
    let checked = check("se-o3-n2-s1");
    assert_eq!(checked.len(), 10);
    let mut store_buffering = 0;
    for c in &checked {
        assert_eq!(meta(c, "cpu_type"), "X86O3CPU");
        assert_eq!(meta(c, "expected_model"), "tso");
        for m in [
            Model::Tso,
            Model::Pso,
            Model::Wccm,
            Model::Cc,
            Model::Ccv,
            Model::Cm,
        ] {
            assert_eq!(verdict(c, m), Verdict::Consistent, "{m:?}");
        }
        if verdict(c, Model::Sc) == Verdict::Violation {
            store_buffering += 1;
            // store buffering: allowed, the history keeps the promised TSO
            assert!(c.allowed() && !c.broken());
            let sc = c
                .outcomes
                .iter()
                .position(|o| o.model == Model::Sc)
                .unwrap();
            assert_eq!(c.breaks(sc), Some(false));
        }
    }
    // what the x86 store buffer does to a random round: this run has two
    assert_eq!(store_buffering, 2);
}

#[test]
fn the_bundled_runs_keep_their_statistics_gzipped_and_agree_with_them() {
    for run in ["se-timing-n2-s1", "se-o3-n2-s1"] {
        let dir = root().join("traces").join(run);
        assert!(dir.join("stats.txt.gz").is_file());
        let r = memconform::gem5::open_run(Path::new(&dir)).unwrap();
        assert!(r.status.stats_dumped, "{run}: stats.txt.gz read");
        assert!(
            r.findings.conflicts.is_empty(),
            "{run}: {:?}",
            r.findings.conflicts
        );
        assert!(r.warnings.is_empty(), "{run}: {:?}", r.warnings);
    }
}

/// gem5's O3 with `needsTSO=False` (a run-time configuration mutant: the
/// load/store queue no longer keeps x86's order; here stores leave the
/// store buffer out of order): random rounds on two words, each on its own
/// line. gem5 ends cleanly; only a memory-model check sees it: rounds that
/// violate TSO (its promised model) and keep PSO.
#[test]
fn an_o3_run_without_tso_ordering_violates_tso_and_gem5_ends_cleanly() {
    let run = root().join("traces/se-o3-notso-n2-s11");
    let r = memconform::gem5::open_run(&run).unwrap();
    assert_eq!(
        r.status.exit, None,
        "no exit-status file: gem5 ended by itself"
    );
    assert!(r.panic.is_none());
    assert!(r.cpus.iter().all(|c| c.needs_tso == Some(false)));
    let checked = check("se-o3-notso-n2-s11");
    assert_eq!(checked.len(), 300);
    let mut tso = 0;
    for c in &checked {
        assert_eq!(meta(c, "expected_model"), "tso");
        assert_eq!(verdict(c, Model::Pso), Verdict::Consistent);
        if verdict(c, Model::Tso) == Verdict::Violation {
            tso += 1;
            assert!(c.broken(), "TSO is what the run promises");
        }
    }
    assert!(checked[0]
        .notes
        .iter()
        .any(|n| n.contains("needsTSO=false on 2 of 2 cores")));
    assert!(tso > 0, "no round violates TSO");
}

/// Catalogue bug ME-8 (gem5 6599dd87c8 undone: MESI_Two_Level's L1
/// `transition(SM, Inv, IM)` without `forward_eviction_to_cpu`), rebuilt,
/// on 2 O3 cores with the client's `mp+sm` shape: message passing whose
/// reader upgrades x's line when the writer's store invalidates it. gem5
/// ends cleanly with its configuration as clean as can be (`needsTSO` on);
/// only a memory-model check sees the rounds whose reader read y's new
/// value and then x's old one: TSO broken, and every one of them is MP+SM.
#[test]
fn an_o3_run_of_me8_violates_tso_in_mp_sm_rounds_and_gem5_ends_cleanly() {
    let run = root().join("traces/se-o3-me8-n2-s1");
    let r = memconform::gem5::open_run(&run).unwrap();
    assert!(r.panic.is_none());
    assert!(r.cpus.iter().all(|c| c.needs_tso == Some(true)));
    let checked = check("se-o3-me8-n2-s1");
    assert_eq!(checked.len(), 100);
    let mut tso = 0;
    for c in &checked {
        assert_eq!(meta(c, "expected_model"), "tso");
        assert_eq!(meta(c, "shape"), "MP+SM");
        // message passing is PSO-legal: only TSO (and SC) can break
        assert_eq!(verdict(c, Model::Pso), Verdict::Consistent);
        if verdict(c, Model::Tso) == Verdict::Violation {
            tso += 1;
            assert!(c.broken());
            // the reader: warm-up R(x,0), its store to z, R(y,2), R(x,0)
            let reader = c
                .history
                .threads
                .iter()
                .find(|t| t.ops.len() == 4)
                .expect("a reader of 4 operations");
            let ops: Vec<String> = reader
                .ops
                .clone()
                .map(|o| c.history.describe(o))
                .map(|d| d.split_once(':').unwrap().1.to_string())
                .collect();
            assert_eq!(ops[2..], ["R(y,2)", "R(x,0)"], "{ops:?}");
        }
    }
    assert_eq!(tso, 7, "this run's rounds that break TSO");
}

/// Catalogue bugs MH-2 and MH-1 (MOESI_hammer's L1 without
/// `forward_eviction_to_cpu` in `transition(S, {Other_GETX, Invalidate},
/// I)` and in `transition(SM, {Other_GETX, Invalidate}, IM)`), each
/// rebuilt from stock gem5, on 2 O3 cores with the client's `mp+s` and
/// `mp+sm` shapes and `--warm-order first` (the writer reads x first, so
/// the reader's copy is a sharer's: `S`, and `SM` once its store to z
/// upgrades it). gem5 ends cleanly; only a memory-model check sees the
/// rounds whose reader read y's new value and then x's old one, every one
/// in the shape that puts the reader's copy in the mutated state, and the
/// run's own counters show that state meeting the writer's GETX.
#[test]
fn o3_runs_of_mh2_and_mh1_violate_tso_by_message_passing_and_gem5_ends_cleanly() {
    // (run, its shape, the mutated transition, rounds that break TSO)
    for (run, shape, transition, broken) in [
        ("se-o3-mh2-n2-s1", "MP+S", "S.Other_GETX", 146),
        ("se-o3-mh1-n2-s6", "MP+SM", "SM.Other_GETX", 1),
    ] {
        let dir = root().join("tests/data/gem5/moesi_hammer").join(run);
        let r = memconform::gem5::open_run(&dir).unwrap();
        assert!(r.panic.is_none(), "{run}");
        assert!(r.cpus.iter().all(|c| c.needs_tso == Some(true)), "{run}");
        let counts = memconform::mutate::coverage::read_counts(&dir.join("stats.txt.gz")).unwrap();
        let (state, event) = transition.split_once('.').unwrap();
        let taken = counts.count[&("L1Cache".into(), state.into(), event.into())];
        assert!(taken > 0, "{run}: L1Cache.{transition} never taken");
        let checked = check_every_model(&dir);
        assert_eq!(checked.len(), 300, "{run}");
        let mut tso = 0;
        for c in &checked {
            assert_eq!(meta(c, "protocol"), "MOESI_hammer");
            assert_eq!(meta(c, "expected_model"), "tso");
            assert_eq!(meta(c, "shape"), shape);
            // message passing is PSO-legal: only TSO (and SC) can break
            assert_eq!(verdict(c, Model::Pso), Verdict::Consistent, "{run}");
            if verdict(c, Model::Tso) == Verdict::Violation {
                tso += 1;
                assert!(c.broken());
                // the reader's last two loads: y new, then x old
                let ends: Vec<Vec<String>> = c
                    .history
                    .threads
                    .iter()
                    .map(|t| {
                        t.ops
                            .clone()
                            .map(|o| c.history.describe(o))
                            .map(|d| d.split_once(':').unwrap().1.to_string())
                            .collect()
                    })
                    .collect();
                assert!(
                    ends.iter()
                        .any(|ops| ops.ends_with(&["R(y,2)".to_string(), "R(x,0)".to_string()])),
                    "{run}: {ends:?}"
                );
            }
        }
        assert_eq!(tso, broken, "{run}: the rounds that break TSO");
    }
}

// ---------------------------------------------------------------------
// A client run's files agree, or are not believed ("Trust, round 3").

/// A copy of a bundled SE run in a fresh directory, to be edited.
fn copy_run(run: &str, name: &str) -> std::path::PathBuf {
    let dir = common::temp_dir("se-trust", name);
    let src = root().join("traces").join(run);
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

/// `memconform check DIR -m tso,sc`: exit code, stdout, stderr.
fn check_cli(dir: &Path) -> (i32, String, String) {
    let out = common::memconform(&[
        "check",
        "-m",
        "tso,sc",
        "--timeout",
        "0",
        dir.to_str().unwrap(),
    ]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The bundled runs' own files agree: every header is the one its
/// workload's arguments print (real gem5 output: config.ini's `cmd`, the
/// client's header), and the command lines agree with the configuration.
#[test]
fn every_bundled_client_run_agrees_with_itself() {
    let mut runs: Vec<std::path::PathBuf> = [
        "se-timing-n2-s1",
        "se-o3-n2-s1",
        "se-o3-notso-n2-s11",
        "se-o3-me8-n2-s1",
    ]
    .iter()
    .map(|r| root().join("traces").join(r))
    .collect();
    for protocol in ["moesi_amd_base", "moesi_hammer"] {
        for e in std::fs::read_dir(root().join("tests/data/gem5").join(protocol)).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().unwrap().to_string_lossy().starts_with("se-") {
                runs.push(p);
            }
        }
    }
    assert!(runs.len() >= 10, "{runs:?}");
    for dir in &runs {
        let run = memconform::gem5::open_run(dir).unwrap();
        let client = memconform::gem5::client_run(&run)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .expect("client output");
        assert!(
            client.findings.conflicts.is_empty(),
            "{}: {:?}",
            dir.display(),
            client.findings.conflicts
        );
        // independently: the header's fields are the workload's arguments
        let text = std::fs::read_to_string(&client.output).unwrap();
        let header = memconform_parsers::client::header_lines(text.as_bytes()).remove(0);
        let cmd = run.cpus[0].workload.clone().unwrap();
        let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        let (version, fields) = memconform_parsers::client::expected_header(&args).unwrap();
        assert_eq!(header.version, version);
        for (k, v) in fields {
            assert_eq!(
                header.get(k).map(str::to_owned),
                v,
                "{}: {k}",
                dir.display()
            );
        }
        assert_eq!(
            header.get("threads").unwrap().parse::<usize>().unwrap(),
            run.cpus.len()
        );
    }
}

/// The case: the needsTSO=False run's client output beside the
/// clean O3 run's configuration. Before, 13 of its 300 rounds "broke the
/// promised tso" of a clean configuration; now the run is an input error
/// that says which fields differ.
#[test]
fn a_foreign_client_output_is_an_input_error_not_a_verdict() {
    let dir = copy_run("se-o3-n2-s1", "foreign");
    std::fs::copy(
        root().join("traces/se-o3-notso-n2-s11/client.out"),
        dir.join("client.out"),
    )
    .unwrap();
    let (code, stdout, stderr) = check_cli(&dir);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(!stdout.contains("break"), "{stdout}");
    assert!(
        stderr.contains("client.out:1:1: the client header says seed=11 (the workload's: 1), rounds=300 (the workload's: 10), stride=8 (the workload's: 1), but config.ini's workload is `client 2 50 2 1 10`"),
        "{stderr}"
    );
    // a header of more threads than CPUs, whatever the workload says
    let dir = common::temp_dir("se-trust", "threads");
    std::fs::write(
        dir.join("config.ini"),
        "[system.cpu]\ntype=BaseTimingSimpleCPU\nworkload=system.cpu.workload\n\n[system.cpu.isa]\ntype=X86ISA\n\n[system.cpu.workload]\ntype=Process\ncmd=client 2 1 1 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("client.out"),
        "# memconform-client v1 threads=2 ops=1 words=1 seed=1 rounds=1 stride=1 writes=50\n@name c\n@round 0\nt0: W(w0,0x1)\nt1: R(w0,0x1)\n# memconform-client end histories=1\n",
    )
    .unwrap();
    let (code, _, stderr) = check_cli(&dir);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("the client header says threads=2, but config.ini has 1 CPUs"),
        "{stderr}"
    );
    // a workload the client would refuse printed no header
    let ini = std::fs::read_to_string(dir.join("config.ini")).unwrap();
    std::fs::write(
        dir.join("config.ini"),
        ini.replace("cmd=client 2 1 1 1", "cmd=client --rounds 1"),
    )
    .unwrap();
    let (code, _, stderr) = check_cli(&dir);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is no command line memconform's client runs (--threads is required)"),
        "{stderr}"
    );
}

/// Two client runs in one output, and two files of client output that
/// differ: input errors that name them. A copy of the same output is one.
#[test]
fn several_client_outputs_are_refused_by_name() {
    let dir = copy_run("se-o3-n2-s1", "two-blocks");
    let out = std::fs::read_to_string(dir.join("client.out")).unwrap();
    std::fs::write(dir.join("client.out"), format!("{out}{out}")).unwrap();
    let (code, _, stderr) = check_cli(&dir);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "client.out:52:1: a second client run in one gem5 run (2 headers, at lines 1, 52)"
        ),
        "{stderr}"
    );

    let dir = copy_run("se-o3-n2-s1", "two-files");
    let simout = std::fs::read_to_string(dir.join("simout.txt")).unwrap();
    // the same client lines in simout.txt: one output, with a note
    std::fs::write(dir.join("simout.txt"), format!("{simout}{out}")).unwrap();
    let (code, stdout, stderr) = check_cli(&dir);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = common::memconform(&[
        "check",
        "-m",
        "tso",
        "--format",
        "report",
        dir.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&report.stdout)
        .contains("client.out and simout.txt hold the same client output; client.out is read"));
    // another run's in simout.txt
    let other =
        std::fs::read_to_string(root().join("traces/se-o3-notso-n2-s11/client.out")).unwrap();
    std::fs::write(dir.join("simout.txt"), format!("{simout}{other}")).unwrap();
    let (code, stdout, stderr) = check_cli(&dir);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(!stdout.contains("break"), "{stdout}");
    assert!(stderr.contains("several client outputs that differ: client.out (51 client lines, rounds=10), simout.txt (1501 client lines, rounds=300)"), "{stderr}");
}

/// A command line of another run, or an end other than the program's:
/// every verdict `unknown` (exit 6), the disagreement as the reason.
#[test]
fn a_command_line_or_an_end_that_disagrees_makes_every_verdict_unknown() {
    let edits: [(&str, &str, &str, &str); 4] = [
        ("simout.txt", "-n 2 ", "-n 4 ", "simout.txt's command line says -n 4, config.ini has 2 CPUs"),
        ("simout.txt", "--cpu-type=X86O3CPU", "--cpu-type=X86TimingSimpleCPU", "simout.txt's command line says --cpu-type=X86TimingSimpleCPU, config.ini's CPUs are X86O3CPU"),
        ("simout.txt", "'--options=2 50 2 1 10'", "'--options=2 50 2 11 300 8'", "simout.txt's command line runs `client 2 50 2 11 300 8`, config.ini's workload is `client 2 50 2 1 10`"),
        ("simout.txt", "Exiting @ tick 418801500 because exiting with last active thread context", "Exiting @ tick 418801500 because simulate() limit reached", "client.out holds the client's end line (the program finished), but simout.txt says gem5 stopped it at tick 418801500 because simulate() limit reached"),
    ];
    for (i, (file, from, to, why)) in edits.iter().enumerate() {
        let dir = copy_run("se-o3-n2-s1", &format!("end-{i}"));
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains(from), "{file}: {from}");
        std::fs::write(dir.join(file), text.replace(from, to)).unwrap();
        let (code, stdout, stderr) = check_cli(&dir);
        assert_eq!(code, 6, "{why}: {stdout}{stderr}");
        let report = common::memconform(&[
            "check",
            "-m",
            "tso",
            "--format",
            "report",
            dir.to_str().unwrap(),
        ]);
        let report = String::from_utf8_lossy(&report.stdout);
        assert!(
            report.contains(&format!("inconsistent run: {why}")),
            "{why}: {report}"
        );
    }
    // a panic beside a finished client
    let dir = copy_run("se-o3-n2-s1", "panic");
    std::fs::write(
        dir.join("simerr.txt"),
        "src/mem/ruby/x.cc:1: panic: Invalid transition\n",
    )
    .unwrap();
    let (code, stdout, stderr) = check_cli(&dir);
    assert_eq!(code, 6, "{stdout}{stderr}");
    // and the same run unedited: its verdicts
    let (code, stdout, stderr) = check_cli(&copy_run("se-o3-n2-s1", "unedited"));
    assert_eq!(code, 0, "{stdout}{stderr}");
}
