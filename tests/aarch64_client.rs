//! The aarch64 build of the client (`gem5-configs/client`, `make aarch64`),
//! run on this host under qemu's user-mode emulator: every shape, with and
//! without barriers and exclusives, parses, its `@arm` instruction lines
//! say what the shape runs, and memconform checks every history (each model
//! gives a verdict). A run under qemu has real but host-dependent
//! interleavings (qemu translates ARM's accesses for an x86 host), so the
//! verdicts themselves are not compared with anything here: what an ARM
//! core allows is for gem5's ARM cores to show.
//!
//! The evidence that the client runs the instructions it claims: its
//! disassembly holds each of them (`objdump`), and the instructions each
//! history's `@arm` lines report are the ones the shape's threads are made
//! of (checked against a table written here from the shapes' definitions,
//! not from the parser's).
//!
//! Needs `aarch64-linux-gnu-gcc` (Debian's `gcc-aarch64-linux-gnu`) and
//! `qemu-aarch64-static` or `qemu-aarch64` (`qemu-user-static`); without
//! them every test says so on stderr and passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use memconform::check::{Options, Verdict};
use memconform::history::History;
use memconform::models::Model;
use memconform_parsers::client::{
    client_ops, looks_like_client, parse_client, ClientOpKind, FenceKind, Isa, Ordering,
};
use memconform_parsers::hist::{parse_hist, RawHistory};

/// Rounds per run.
const ROUNDS: u32 = 40;

/// The cross compiler.
const CC: &str = "aarch64-linux-gnu-gcc";

/// The first of `names` that runs (`--version`), if any.
fn first_tool(names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|n| {
            Command::new(n)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(|n| (*n).to_owned())
}

/// The client built for aarch64 and the emulator that runs it; `None`
/// (said on stderr) when either tool is missing.
fn tools() -> Option<&'static (PathBuf, String)> {
    static TOOLS: OnceLock<Option<(PathBuf, String)>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            let Some(cc) = first_tool(&[CC]) else {
                eprintln!("skipped: no {CC} (Debian: apt-get install gcc-aarch64-linux-gnu)");
                return None;
            };
            let Some(qemu) = first_tool(&["qemu-aarch64-static", "qemu-aarch64"]) else {
                eprintln!("skipped: no qemu-aarch64 (Debian: apt-get install qemu-user-static)");
                return None;
            };
            let src = common::root().join("gem5-configs/client/client.c");
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("memconform-client-aarch64");
            // the Makefile's `client-aarch64` command
            let status = Command::new(&cc)
                .args(["-O2", "-Wall", "-Wextra", "-Werror", "-march=armv8.3-a"])
                .args(["-static", "-pthread", "-o"])
                .arg(&out)
                .arg(&src)
                .status()
                .expect("the cross compiler runs");
            assert!(status.success(), "{cc} failed on {}", src.display());
            Some((out, qemu))
        })
        .as_ref()
}

/// Runs the aarch64 client under qemu with `args`; its stdout.
fn run(args: &[String]) -> Option<Vec<u8>> {
    let (client, qemu) = tools()?;
    let out = Command::new(qemu)
        .arg(client)
        .args(args)
        .output()
        .expect("qemu runs");
    assert!(
        out.status.success(),
        "client {args:?} under {qemu} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

fn v2_args(shape: &str, threads: u32, seed: u64, options: &[(&str, &str)]) -> Vec<String> {
    let mut args: Vec<String> = [
        ("--threads", threads.to_string()),
        ("--rounds", ROUNDS.to_string()),
        ("--seed", seed.to_string()),
        ("--shape", shape.to_owned()),
        ("--spin", "8".to_owned()),
    ]
    .into_iter()
    .flat_map(|(k, v)| [k.to_owned(), v])
    .collect();
    for (k, v) in options {
        args.extend([format!("--{k}"), (*v).to_owned()]);
    }
    args
}

fn meta<'a>(raw: &'a RawHistory, key: &str) -> Option<&'a str> {
    raw.meta
        .iter()
        .rev()
        .find(|(k, _, _)| k == key)
        .map(|m| m.1.as_str())
}

/// The instructions of each thread of each aarch64 shape, as the client's
/// shape table defines them (the `--fence none --rmw none` run, warm-up
/// reads off): P0's, P1's, ...
const SHAPE_INSTRUCTIONS: [(&str, &str, &[&str]); 7] = [
    ("sb-rel-acq", "SB+REL+ACQ", &["STLR LDAR", "STLR LDAR"]),
    (
        "sb-rel-acqpc",
        "SB+REL+ACQPC",
        &["STLR LDAPR", "STLR LDAPR"],
    ),
    ("mp-dmb", "MP+DMBS", &["STR DMB.ISH STR", "LDR DMB.ISH LDR"]),
    (
        "mp-dmb-stld",
        "MP+DMB.ST+DMB.LD",
        &["STR DMB.ISHST STR", "LDR DMB.ISHLD LDR"],
    ),
    ("mp-rel-acq", "MP+REL+ACQ", &["STR STLR", "LDAR LDR"]),
    (
        "iriw-acq",
        "IRIW+ACQS",
        &["STR", "STR", "LDAR LDAR", "LDAR LDAR"],
    ),
    (
        "excl",
        "2+2W+EXCL",
        &["LDXR.STXR LDXR.STXR", "LDXR.STXR LDXR.STXR"],
    ),
];

/// Parses one run's output and checks every history against SC, TSO and
/// CC (each must give a verdict); the histories.
fn parse_and_check(what: &str, out: &[u8], rounds: usize) -> Vec<RawHistory> {
    assert!(looks_like_client(out), "{what}: not recognised");
    let raws = parse_client(out).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(raws.len(), rounds, "{what}");
    let opts = Options {
        timeout: None,
        ..Options::default()
    };
    for (i, raw) in raws.iter().enumerate() {
        assert_eq!(meta(raw, "isa"), Some("aarch64"), "{what}");
        let h = History::from_raw(raw, i)
            .unwrap_or_else(|e| panic!("{what}, round {i}: invalid history: {e}"));
        let checked =
            memconform::ingest::check_history(h, &[Model::Cc, Model::Tso, Model::Sc], &opts);
        for o in &checked.outcomes {
            assert_ne!(
                o.verdict(),
                Verdict::Unknown,
                "{what}, round {i}, {:?}: {:?}",
                o.model,
                o.reason()
            );
        }
    }
    raws
}

/// Every aarch64 shape, barrier-free: the `@arm` lines of each round name
/// exactly the shape's instructions, on the threads `@place` names.
#[test]
fn aarch64_shapes_run_their_instructions() {
    for (k, (shape, tag, roles)) in SHAPE_INSTRUCTIONS.iter().enumerate() {
        let threads = roles.len() as u32;
        let args = v2_args(
            shape,
            threads,
            k as u64 + 1,
            &[("fence", "none"), ("rmw", "none"), ("warm-up", "off")],
        );
        let Some(out) = run(&args) else { return };
        let raws = parse_and_check(shape, &out, ROUNDS as usize);
        // the same text read as a plain `.hist`: its `@arm` lines as they are
        let plain = parse_hist(&out).expect("client output is a .hist file");
        for (raw, p) in raws.iter().zip(&plain) {
            assert_eq!(meta(raw, "shape"), Some(*tag));
            let place: Vec<usize> = meta(raw, "place")
                .unwrap()
                .split_whitespace()
                .map(|t| t[1..].parse().unwrap())
                .collect();
            let arm: Vec<&str> = p
                .meta
                .iter()
                .filter(|(k, _, _)| k == "arm")
                .map(|(_, v, _)| v.as_str())
                .collect();
            for (role, &t) in place.iter().enumerate() {
                assert_eq!(arm[t], format!("t{t} {}", roles[role]), "{shape}");
            }
        }
    }
}

/// Every shape (the x86 ones too, and mix) with barriers, exclusives and
/// delays: every history parses and is checked; the instructions the
/// parser reads agree with the options (a DMB ISH only with `--fence`,
/// exclusives only with `--rmw`, acquire and release only in the shapes
/// that have them).
#[test]
fn aarch64_every_shape_parses_under_every_option() {
    let shapes = [
        ("random", 3),
        ("mp", 2),
        ("sb", 2),
        ("lb", 2),
        ("iriw", 4),
        ("wrc", 3),
        ("2+2w", 2),
        ("mp+sm", 2),
        ("mp+s", 2),
        ("sb-rel-acq", 2),
        ("sb-rel-acqpc", 2),
        ("mp-dmb", 2),
        ("mp-dmb-stld", 2),
        ("mp-rel-acq", 2),
        ("iriw-acq", 4),
        ("excl", 2),
        ("mix", 4),
    ];
    let options: [&[(&str, &str)]; 4] = [
        &[("fence", "none"), ("rmw", "none")],
        &[("fence", "dmb"), ("rmw", "xchg")],
        &[
            ("fence", "random"),
            ("rmw", "random"),
            ("warm-up", "random"),
            ("warm-order", "first"),
        ],
        &[
            ("rmw", "cmpxchg"),
            ("delay-chain", "0"),
            ("delay-misses", "2"),
            ("barrier", "plain"),
        ],
    ];
    let mut histories = 0;
    let (mut acquires, mut releases, mut exclusives, mut dmbs) = (0, 0, 0, 0);
    for (i, (shape, threads)) in shapes.iter().enumerate() {
        for (j, opts) in options.iter().enumerate() {
            let seed = (i * options.len() + j) as u64 + 1;
            let what = format!("{shape} {opts:?}");
            let Some(out) = run(&v2_args(shape, *threads, seed, opts)) else {
                return;
            };
            let raws = parse_and_check(&what, &out, ROUNDS as usize);
            let plain = parse_hist(&out).unwrap();
            for p in &plain {
                for op in client_ops(p, Isa::Aarch64).unwrap().iter().flatten() {
                    match &op.kind {
                        ClientOpKind::Read {
                            order: Ordering::Acquire | Ordering::AcquirePc,
                            ..
                        } => acquires += 1,
                        ClientOpKind::Write {
                            order: Ordering::Release,
                            ..
                        } => releases += 1,
                        ClientOpKind::Rmw { .. }
                        | ClientOpKind::Read {
                            exclusive: true, ..
                        } => {
                            let rmw = opts.iter().find(|o| o.0 == "rmw").map(|o| o.1);
                            assert!(
                                rmw != Some("none") || ["excl", "mix"].contains(shape),
                                "{what}: an exclusive"
                            );
                            exclusives += 1
                        }
                        ClientOpKind::Fence(FenceKind::Full) => {
                            let fence = opts.iter().find(|o| o.0 == "fence").map(|o| o.1);
                            assert!(
                                fence != Some("none") || shape.contains("dmb") || *shape == "mix",
                                "{what}: a DMB ISH"
                            );
                            dmbs += 1
                        }
                        _ => {}
                    }
                }
            }
            histories += raws.len();
        }
    }
    eprintln!(
        "aarch64 client under qemu: {histories} histories, {acquires} acquires, {releases} \
         releases, {exclusives} exclusives, {dmbs} DMB ISH"
    );
    assert!(acquires > 0 && releases > 0 && exclusives > 0 && dmbs > 0);
}

/// v1 (random rounds) on aarch64: plain loads and stores, no `@arm` lines.
#[test]
fn aarch64_v1_rounds_parse() {
    let args: Vec<String> = ["3", "20", "2", "5", "20"].map(String::from).to_vec();
    let Some(out) = run(&args) else { return };
    let raws = parse_and_check("v1", &out, 20);
    assert!(raws.iter().all(|r| meta(r, "arm").is_none()));
}

/// The binary holds every instruction the client says it runs.
#[test]
fn the_aarch64_binary_holds_the_instructions() {
    let Some((client, _)) = tools() else { return };
    let Some(objdump) = first_tool(&["aarch64-linux-gnu-objdump"]) else {
        eprintln!("skipped: no aarch64-linux-gnu-objdump");
        return;
    };
    let out = Command::new(objdump)
        .arg("-d")
        .arg(client)
        .output()
        .expect("objdump runs");
    let text = String::from_utf8_lossy(&out.stdout);
    for insn in [
        "\tldar\t",
        "\tldapr\t",
        "\tstlr\t",
        "\tldxr\t",
        "\tstxr\t",
        "\tclrex",
        "\tdmb\tish\n",
        "\tdmb\tishld",
        "\tdmb\tishst",
    ] {
        assert!(
            text.contains(insn),
            "no `{}` in the client's code",
            insn.trim()
        );
    }
}

/// The bundled qemu run (`tests/data/client/v2-aarch64-mix-n4-s1.out`,
/// every shape) is checked without the tools.
#[test]
fn bundled_aarch64_output_is_checked() {
    let path = common::root().join("tests/data/client/v2-aarch64-mix-n4-s1.out");
    let out = std::fs::read(&path).unwrap();
    parse_and_check("v2-aarch64-mix-n4-s1.out", &out, 64);
}

/// Every setting of gem5-configs/knobs-se-arm.toml's client knobs (cpus,
/// shape, sharing, evict, rmw, fence; l1d_size and l2_size are gem5's) is
/// a command line the aarch64 client accepts: a search over the file
/// wastes no gem5 run on a client that refuses its options.
#[test]
fn every_client_setting_of_the_arm_knob_file_runs() {
    use memconform::mutate::stimulus::Space;
    let f = common::root().join("gem5-configs/knobs-se-arm.toml");
    let space = Space::parse(&std::fs::read_to_string(&f).unwrap(), &f).unwrap();
    let values = |name: &str| {
        space
            .knobs
            .iter()
            .find(|k| k.name == name)
            .unwrap_or_else(|| panic!("no knob {name}"))
            .values
            .clone()
    };
    let gem5s: Vec<&str> = vec!["l1d_size", "l2_size"];
    for k in &space.knobs {
        let client = ["cpus", "shape", "sharing", "evict", "rmw", "fence"];
        assert!(
            client.contains(&k.name.as_str()) || gem5s.contains(&k.name.as_str()),
            "a knob this test does not know: {}",
            k.name
        );
    }
    let mut runs = 0;
    for cpus in values("cpus") {
        for shape in values("shape") {
            for sharing in values("sharing") {
                for rmw in values("rmw") {
                    for fence in values("fence") {
                        // evict only adds reads after the program: its
                        // largest value stands for all
                        let evict = values("evict").last().unwrap().clone();
                        let args: Vec<String> = [
                            "--threads",
                            &cpus,
                            "--rounds",
                            "1",
                            "--seed",
                            "1",
                            "--shape",
                            &shape,
                            "--sharing",
                            &sharing,
                            "--evict",
                            &evict,
                            "--rmw",
                            &rmw,
                            "--fence",
                            &fence,
                            "--spin",
                            "0",
                        ]
                        .map(String::from)
                        .to_vec();
                        let Some(out) = run(&args) else { return };
                        let text = String::from_utf8(out).unwrap();
                        assert!(
                            text.contains("# memconform-client end"),
                            "{args:?}: no end line"
                        );
                        runs += 1;
                    }
                }
            }
        }
    }
    assert_eq!(runs, 2 * 10 * 3 * 2 * 2);
}
