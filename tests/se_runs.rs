//! Real gem5 SE-mode runs of memconform's client (gem5 v24.0.0.1,
//! X86_MESI_Two_Level, bundled in traces/): each run recognised by itself
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
