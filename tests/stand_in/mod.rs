//! A STAND-IN for gem5 for the campaign tests (no gem5 here): a git tree
//! with one protocol file, a "build" script that records which mutation
//! the file carries, and a "gem5.opt" script that replays a bundled real
//! gem5 run for it (the clean MI_example run, or the MI-5 run), with that
//! run's own output and exit status.

use std::path::{Path, PathBuf};
use std::process::Command;

use memconform::mutate::campaign::{self, Campaign, RunOptions, Settings};
use memconform::mutate::Mutant;

pub const PROTOCOL_FILE: &str = "src/mem/ruby/protocol/Toy-dir.sm";

/// The stand-in protocol file: what the mutants edit (not SLICC that
/// anything compiles; the build script only looks for its lines).
const TOY: &str = "machine(MachineType:Directory, \"toy\") {\n  action(l_queueMemoryWBRequest, \"lq\") {\n    out_msg.DataBlk := in_msg.DataBlk;\n  }\n  action(p_profile, \"p\") {\n    ++counter;\n  }\n  action(b_build, \"b\") {\n    ok;\n  }\n  action(h_hang, \"h\") {\n    go;\n  }\n  action(s_slow, \"s\") {\n    slow;\n  }\n}\n";

/// The stand-in build: `gem5.opt` replays the MI-5 run when the write-back
/// data copy is gone, hangs when `go;` is gone; the build fails when `ok;`
/// is gone and hangs when `slow;` is; a slot's first build takes 2 s.
/// Otherwise it replays the clean run (or, with `--replay DIR`, the clean
/// run in DIR). At run time, `--param` values
/// holding `bug` replay the MI-5 run, holding `onedit` replay it in a build
/// whose `++counter;` is edited (a bug a knob value shows) or beside one
/// holding `cfghide` (a configuration mutant's bug a knob value shows), holding
/// `nosuch` stop before any simulation (exit 1), as gem5 does with a
/// parameter of no object.
const BUILD: &str = r#"#!/bin/sh
set -e
f=src/mem/ruby/protocol/Toy-dir.sm
grep -q '^    ok;' $f || { echo "error: Toy-dir.sm: ok missing" >&2; exit 1; }
# SCons's step lines, as gem5's build prints them
echo " [   SLICC] src/mem/ruby/protocol/Toy.slicc -> TOY/mem/ruby/protocol"
echo " [     CXX] TOY/mem/ruby/protocol/Toy_Controller.cc -> .o"
[ -x build/TOY/gem5.opt ] || sleep 2
echo " [    LINK]  -> TOY/gem5.opt"
grep -q '^    slow;' $f || sleep 60
mkdir -p build/TOY
pwd > build/TOY/built-at
run=clean; src="$BUNDLE_clean"
grep -q '^    out_msg.DataBlk := in_msg.DataBlk;' $f || { run=bug; src="$BUNDLE_bug"; }
grep -q '^    go;' $f || run=hang
# the profiling counter edited: `--param onedit` shows it (tests/stimulus.rs)
edited=""; grep -q '^    ++counter;' $f || edited=counter
cat > build/TOY/gem5.opt <<EOF
#!/bin/sh
# stand-in for gem5: replays a bundled real run
out=""; param=""
replay=""
while [ \$# -gt 0 ]; do case "\$1" in -d) out="\$2"; shift;; --param) param="\$param \$2"; shift;; --replay) replay="\$2"; shift;; esac; shift; done
[ "$run" = hang ] && exec sleep 60
src="$src"
# a stimulus (tests/stimulus.rs): --replay DIR replays that clean run instead
[ -n "\$replay" ] && [ "$run" = clean ] && src="\$replay"
# a configuration mutant: --param naming no object stops before simulating;
# one naming the stand-in's bug replays the bug run
case "\$param" in
  *nosuch*) echo "AttributeError: object has no attribute 'nosuch'" >&2; exit 1;;
  *bug*) src="$BUNDLE_bug";;
  *cfghide*onedit*|*onedit*cfghide*) src="$BUNDLE_bug";;
  *onedit*) [ "$edited" = counter ] && src="$BUNDLE_bug";;
esac
cp "\$src"/config.ini "\$src"/trace.txt.gz "\$src"/stats.txt "\$out"/
cat "\$src"/simout.txt; cat "\$src"/simerr.txt >&2
exit \$(cat "\$src"/exit-status.txt | tr -dc 0-9)
EOF
chmod +x build/TOY/gem5.opt
"#;

pub fn sh(dir: &Path, cmd: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "{cmd}");
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// A fresh stand-in gem5 tree (a git repository) under `base`.
pub fn tree(base: &Path) -> PathBuf {
    let root = base.join("gem5");
    std::fs::create_dir_all(root.join("src/mem/ruby/protocol")).unwrap();
    std::fs::write(root.join(PROTOCOL_FILE), TOY).unwrap();
    let build = BUILD
        .replace(
            "$BUNDLE_clean",
            &repo()
                .join("tests/data/gem5/mi_example/clean-n2-s1-rich")
                .to_string_lossy(),
        )
        .replace(
            "$BUNDLE_bug",
            &repo().join("traces/bug-mi5-n4-s1-rich").to_string_lossy(),
        );
    std::fs::write(root.join("build.sh"), build).unwrap();
    sh(
        &root,
        "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base",
    );
    root
}

/// A mutant made the way `mutate` makes them: one edit, as a git diff.
pub fn mutant(root: &Path, op: &str, from: &str, to: &str) -> Mutant {
    let path = root.join(PROTOCOL_FILE);
    let base = std::fs::read_to_string(&path).unwrap();
    assert!(base.contains(from));
    std::fs::write(&path, base.replacen(from, to, 1)).unwrap();
    let diff = Command::new("git")
        .args(["diff", "--no-color"])
        .current_dir(root)
        .output()
        .unwrap()
        .stdout;
    std::fs::write(&path, &base).unwrap();
    let descriptor = format!("Toy-dir.sm::{from}::{op}");
    Mutant {
        id: memconform::mutate::sha256_hex(descriptor.as_bytes())[..12].to_string(),
        descriptor,
        op: op.into(),
        class: "tier1".into(),
        file: PROTOCOL_FILE.into(),
        line: base.lines().position(|l| l.contains(from)).unwrap() + 1,
        site: from.trim().into(),
        base_sha256: memconform::mutate::sha256_hex(base.as_bytes()),
        patch: String::from_utf8(diff).unwrap(),
        fires: None,
        params: Vec::new(),
    }
}

pub fn settings(root: &Path) -> Settings {
    Settings {
        protocol: "MI_example".into(),
        gem5_root: root.to_path_buf(),
        base_commit: String::new(),
        build: "sh build.sh".into(),
        gem5: "build/TOY/gem5.opt".into(),
        // a stand-in pre-check: rejects what the stand-in build would
        precheck: Some("grep -q '^    ok;' src/mem/ruby/protocol/Toy-dir.sm".into()),
        seed_build_dir: None,
        run: "{gem5} -d {outdir} --seed {seed}".into(),
        seeds: vec![1, 2],
        build_timeout_s: 60,
        first_build_timeout_s: 60,
        // short, for the hanging mutant; not so short that a loaded machine
        // times out a baseline replay (then a seed is not clean, and the
        // mutants run one seed fewer)
        run_timeout_s: Some(5),
        models: vec!["cc".into(), "sc".into()],
        all_seeds: false,
        coverage: true,
        stop_at_violation: false,
        stimuli: Vec::new(),
        knobs: None,
        reach_runs: 0,
        follow_up_runs: 0,
    }
}

/// A fresh directory for test `name` with a stand-in tree in it: (the
/// directory, the tree).
pub fn fresh(name: &str) -> (PathBuf, PathBuf) {
    let base = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let root = tree(&base);
    (base, root)
}

/// One mutant of each outcome: killed (MI-5), survived, unviable, timeout.
#[allow(dead_code)] // not every test crate that includes this module uses it
pub fn four_mutants(root: &Path) -> Vec<Mutant> {
    vec![
        // MI-5: the write-back's data copy deleted (replays the real MI-5 run)
        mutant(
            root,
            "ADS",
            "    out_msg.DataBlk := in_msg.DataBlk;",
            "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
        ),
        // observer-only: survives
        mutant(root, "ADS", "    ++counter;", "    // [mutant] ++counter;"),
        // does not build
        mutant(root, "ADS", "    ok;", "    // [mutant] ok;"),
        // hangs past the run limit
        mutant(root, "ADS", "    go;", "    // [mutant] go;"),
    ]
}

/// Runs the whole campaign here: one slot, no interruption; the mutants
/// this call finished.
pub fn run_all(c: &Campaign) -> usize {
    try_run_all(c).unwrap()
}

/// Runs the whole campaign here with `slots` slots on `cores` cores, no
/// interruption; the mutants this call finished.
#[allow(dead_code)] // not every test crate that includes this module uses it
pub fn run_on(c: &Campaign, slots: usize, cores: usize) -> usize {
    let stop = std::sync::atomic::AtomicBool::new(false);
    let o = RunOptions {
        slots,
        cores,
        shard: (0, 1),
        slot_dir: None,
        first: Vec::new(),
        stop: &stop,
        progress: &|_| {},
    };
    campaign::run(c, &o).unwrap()
}

/// [`run_all`], its error kept.
pub fn try_run_all(c: &Campaign) -> Result<usize, campaign::Error> {
    let stop = std::sync::atomic::AtomicBool::new(false);
    campaign::run(c, &one_slot(&stop, &|_| {}))
}

/// Run options of one slot on one core, the only shard, no mutant first:
/// stopped by `stop`, each step told to `progress`.
pub fn one_slot<'a>(
    stop: &'a std::sync::atomic::AtomicBool,
    progress: &'a (dyn Fn(&str) + Sync),
) -> RunOptions<'a> {
    RunOptions {
        slots: 1,
        cores: 1,
        shard: (0, 1),
        slot_dir: None,
        first: Vec::new(),
        stop,
        progress,
    }
}
