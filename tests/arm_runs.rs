//! gem5 SE runs on ARM cores recognised: the cores' ISA (an `isa` child of
//! type `ArmISA`), their model (`BaseO3CPU` with an `ArmISA` is
//! `ArmO3CPU`), the protocol (CHI, `build_opts/ARM`'s), and the promise:
//! SC for in-order blocking cores (`ArmTimingSimpleCPU`,
//! `ArmAtomicSimpleCPU`), ARMv8 for out-of-order and pipelined ones
//! (`ArmO3CPU`, `ArmMinorCPU`), decided by the ARMv8 model (without
//! dependencies: its violations are real ones) on the client's annotated
//! operations (LDAR `R.acq`, STLR `W.rel`, DMB kinds `F`, `F.ld`, `F.st`).
//!
//! `tests/data/gem5/arm/synthetic-*` are synthetic: a minimal hand-made
//! `config.ini` (the sections memconform reads, as gem5 v24 names them)
//! beside the output of the aarch64 client run under qemu (see
//! tests/data/README.md). `chi-o3-sb-rel-acq-s1` is a real gem5 v24.0.0.1
//! ARM run (CHI, two ArmO3CPUs): gem5 issue #1242's shape, two rounds of
//! which break ARMv8 (docs/findings/gem5-1242).

mod common;

use common::{check_every_model, memconform, meta, root};
use memconform::check::promise::Status;
use memconform::check::Verdict;
use memconform::models::Model;
use memconform_parsers::gem5::config::{cpus, parse_config_ini};

fn arm_run(name: &str) -> std::path::PathBuf {
    root().join("tests/data/gem5/arm").join(name)
}

/// An ARM O3 run promises ARMv8: each history's promise is decided by
/// ARMv8's own verdict on it (checked here apart from the promise), and
/// the client's acquires, releases and barrier kinds reach the history.
#[test]
fn an_arm_o3_run_promises_armv8_and_armv8_decides() {
    let checked = check_every_model(&arm_run("synthetic-o3-n2"));
    assert_eq!(checked.len(), 8);
    let mut annotated = 0;
    for c in &checked {
        assert_eq!(meta(c, "protocol"), "CHI");
        assert_eq!(meta(c, "cpu_type"), "ArmO3CPU");
        assert_eq!(meta(c, "cpu_isa"), "Arm");
        assert_eq!(meta(c, "isa"), "aarch64", "the client's own header");
        assert_eq!(meta(c, "expected_model"), "armv8");
        let k = c.promise.as_ref().expect("a promise");
        assert_eq!(k.promise.name(), "armv8");
        let own = memconform::check::check_gradual(&c.history, &[Model::Armv8])
            .pop()
            .unwrap();
        let expected = match own.verdict() {
            Verdict::Consistent => Status::Kept,
            Verdict::Violation => Status::Broken,
            Verdict::Unknown => Status::Unknown,
        };
        assert_eq!(k.status, expected, "{:?}", k.reason());
        assert_eq!(c.broken(), expected == Status::Broken);
        annotated += c
            .history
            .ops
            .iter()
            .filter(|o| o.ann != Default::default())
            .count();
        assert!(c
            .notes
            .iter()
            .any(|n| n.contains("2 x ArmO3CPU, promises armv8")));
    }
    assert!(
        annotated > 0,
        "no acquire, release or barrier kind reached the histories"
    );
}

/// An ARM Timing run promises SC, and its promise is decided by SC's
/// verdict on each history.
#[test]
fn an_arm_timing_run_promises_sc() {
    let checked = check_every_model(&arm_run("synthetic-timing-n2"));
    assert_eq!(checked.len(), 8);
    for c in &checked {
        assert_eq!(meta(c, "cpu_type"), "ArmTimingSimpleCPU");
        assert_eq!(meta(c, "cpu_isa"), "Arm");
        assert_eq!(meta(c, "expected_model"), "sc");
        let k = c.promise.as_ref().expect("a promise");
        let sc = c.outcomes.iter().find(|o| o.model == Model::Sc).unwrap();
        let expected = match sc.verdict() {
            Verdict::Consistent => Status::Kept,
            Verdict::Violation => Status::Broken,
            Verdict::Unknown => Status::Unknown,
        };
        assert_eq!(k.status, expected);
        assert_eq!(k.reason(), None);
    }
}

/// The command line holds the run to ARMv8: its exit status is 1 exactly
/// when some history breaks it (else 0), and the run's line names the
/// promise.
#[test]
fn check_holds_an_arm_o3_run_to_armv8() {
    let dir = arm_run("synthetic-o3-n2");
    let broken = check_every_model(&dir).iter().any(|c| c.broken());
    let out = memconform(&["check", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(i32::from(broken)), "{text}");
    assert!(text.contains("armv8"), "{text}");
    assert!(text.contains("2 x ArmO3CPU"), "{text}");
}

/// A config.ini of two CPUs of C++ type `ty`, each with an `isa` child of
/// type `isa` (none when empty).
fn two_cpus(ty: &str, isa: &str) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..2 {
        s.push_str(&format!("[system.cpu{i}]\ntype={ty}\n\n"));
        if !isa.is_empty() {
            s.push_str(&format!("[system.cpu{i}.isa]\ntype={isa}\n\n"));
        }
    }
    s.into_bytes()
}

/// Each CPU model's promise (gem5 v24's `ArmCPU.py`, `X86CPU.py` names):
/// a core that performs one blocking access at a time promises SC on any
/// ISA; a pipelined or out-of-order one its ISA's model.
#[test]
fn each_cpu_model_promises_its_model() {
    let cases = [
        (
            "BaseTimingSimpleCPU",
            "ArmISA",
            "ArmTimingSimpleCPU",
            Some("sc"),
        ),
        (
            "BaseAtomicSimpleCPU",
            "ArmISA",
            "ArmAtomicSimpleCPU",
            Some("sc"),
        ),
        ("BaseO3CPU", "ArmISA", "ArmO3CPU", Some("armv8")),
        // Minor: a load passes older stores in its store buffer
        // (docs/design/gem5.md §12): no more than ARMv8
        ("BaseMinorCPU", "ArmISA", "ArmMinorCPU", Some("armv8")),
        (
            "BaseNonCachingSimpleCPU",
            "ArmISA",
            "ArmNonCachingSimpleCPU",
            None,
        ),
        ("BaseO3CPU", "X86ISA", "X86O3CPU", Some("tso")),
        ("BaseMinorCPU", "X86ISA", "X86MinorCPU", Some("tso")),
        ("BaseO3CPU", "RiscvISA", "RiscvO3CPU", None),
        ("BaseO3CPU", "", "O3CPU", None),
    ];
    for (ty, isa, model, promise) in cases {
        let c = parse_config_ini(&two_cpus(ty, isa)).unwrap();
        let cs = cpus(&c);
        assert_eq!(cs[0].model, model);
        assert_eq!(memconform::gem5::promise(&cs), promise, "{model}");
        assert_eq!(
            memconform::gem5::promised_model(&cs).map(|m| m.name()),
            promise,
            "{model}"
        );
    }
    // cores of two models promise nothing
    let mut mixed = two_cpus("BaseO3CPU", "ArmISA");
    mixed.extend(b"[system.cpu2]\ntype=BaseTimingSimpleCPU\n[system.cpu2.isa]\ntype=ArmISA\n");
    let c = parse_config_ini(&mixed).unwrap();
    assert_eq!(memconform::gem5::promise(&cpus(&c)), None);
}

/// The real ArmO3CPU run on CHI (gem5 #1242's shape, `sb-rel-acq`, 500
/// rounds, seed 1): recognised (CHI, ArmO3CPU, promise ARMv8), and the
/// rounds that break ARMv8 are exactly those whose two acquire loads both
/// read 0, the outcome herd7's ARMv8 model forbids for SB+rel+acq (STLR;
/// LDAR is ordered, RCsc) and allows otherwise: read off the values, not
/// from a model. Each broken round's certificate is the model's own cycle
/// (CyclicOb) and validates.
#[test]
fn a_real_arm_o3_run_on_chi_breaks_armv8_exactly_where_both_acquires_read_0() {
    use memconform::history::OpKind;
    let checked = check_every_model(&arm_run("chi-o3-sb-rel-acq-s1"));
    assert_eq!(checked.len(), 500);
    let mut broken = Vec::new();
    let mut forbidden = Vec::new();
    for (i, c) in checked.iter().enumerate() {
        assert_eq!(meta(c, "protocol"), "CHI");
        assert_eq!(meta(c, "cpu_type"), "ArmO3CPU");
        assert_eq!(meta(c, "expected_model"), "armv8");
        assert_eq!(meta(c, "shape"), "SB+REL+ACQ");
        let h = &c.history;
        // t0: W.rel(a) R.acq(b) || t1: W.rel(b) R.acq(a)
        let reads: Vec<u64> = h
            .ops
            .iter()
            .filter(|o| o.thread.is_some() && o.kind == OpKind::Read)
            .map(|o| o.value)
            .collect();
        assert_eq!(reads.len(), 2, "round {i}");
        assert!(h
            .ops
            .iter()
            .filter(|o| o.thread.is_some())
            .all(|o| o.ann != Default::default()));
        if reads == [0, 0] {
            forbidden.push(i);
        }
        if c.broken() {
            broken.push(i);
            let a = c.outcomes.iter().find(|o| o.model == Model::Armv8).unwrap();
            let v = a.violation().expect("ARMv8 violated");
            assert_eq!(v.pattern.name(), "CyclicOb");
            assert!(v.certified_by.is_some(), "round {i}: certified");
        }
    }
    assert_eq!(broken, forbidden);
    assert_eq!(broken, [152, 235]);
    // the command line: exit 1, the run's line, both rounds
    let dir = arm_run("chi-o3-sb-rel-acq-s1");
    let out = memconform(&["check", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("#152 client-s1-r152 (SB+REL+ACQ): breaks armv8: CyclicOb"),
        "{text}"
    );
    assert!(
        text.contains("500 histories: 2 break their promise"),
        "{text}"
    );
}
