//! The campaign runner on a STAND-IN for gem5 (no gem5 here): a git tree
//! with one protocol file, a "build" script that records which mutation
//! the file carries, and a "gem5.opt" script that replays a bundled real
//! gem5 run for it (the clean MI_example run, or the MI-5 run), with that
//! run's own output and exit status. What is tested is the runner: slots,
//! patches, baseline, outcomes, resume, reports — not gem5.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use memconform::mutate::campaign::{self, Campaign, Event, RunOptions, Settings, State, Status};
use memconform::mutate::Mutant;

const PROTOCOL_FILE: &str = "src/mem/ruby/protocol/Toy-dir.sm";

/// The stand-in protocol file: what the mutants edit (not SLICC that
/// anything compiles; the build script only looks for its lines).
const TOY: &str = "machine(MachineType:Directory, \"toy\") {\n  action(l_queueMemoryWBRequest, \"lq\") {\n    out_msg.DataBlk := in_msg.DataBlk;\n  }\n  action(p_profile, \"p\") {\n    ++counter;\n  }\n  action(b_build, \"b\") {\n    ok;\n  }\n  action(h_hang, \"h\") {\n    go;\n  }\n}\n";

/// The stand-in build: `gem5.opt` replays the MI-5 run when the write-back
/// data copy is gone, hangs when `go;` is gone; the build fails when `ok;`
/// is gone. Otherwise it replays the clean run.
const BUILD: &str = r#"#!/bin/sh
set -e
f=src/mem/ruby/protocol/Toy-dir.sm
grep -q '^    ok;' $f || { echo "error: Toy-dir.sm: ok missing" >&2; exit 1; }
mkdir -p build/TOY
run=clean; src="$BUNDLE_clean"
grep -q '^    out_msg.DataBlk := in_msg.DataBlk;' $f || { run=bug; src="$BUNDLE_bug"; }
grep -q '^    go;' $f || run=hang
cat > build/TOY/gem5.opt <<EOF
#!/bin/sh
# stand-in for gem5: replays a bundled real run
out=""; while [ \$# -gt 0 ]; do case "\$1" in -d) out="\$2"; shift;; esac; shift; done
[ "$run" = hang ] && exec sleep 60
src="$src"
cp "\$src"/config.ini "\$src"/trace.txt.gz "\$src"/stats.txt "\$out"/
cat "\$src"/simout.txt; cat "\$src"/simerr.txt >&2
exit \$(cat "\$src"/exit-status.txt | tr -dc 0-9)
EOF
chmod +x build/TOY/gem5.opt
"#;

fn sh(dir: &Path, cmd: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "{cmd}");
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// A fresh stand-in gem5 tree (a git repository) under `base`.
fn tree(base: &Path) -> PathBuf {
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
fn mutant(root: &Path, op: &str, from: &str, to: &str) -> Mutant {
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
        id: campaign::sha256_hex(descriptor.as_bytes())[..12].to_string(),
        descriptor,
        op: op.into(),
        class: "tier1".into(),
        file: PROTOCOL_FILE.into(),
        line: base.lines().position(|l| l.contains(from)).unwrap() + 1,
        site: from.trim().into(),
        base_sha256: campaign::sha256_hex(base.as_bytes()),
        patch: String::from_utf8(diff).unwrap(),
    }
}

fn settings(root: &Path) -> Settings {
    Settings {
        protocol: "MI_example".into(),
        gem5_root: root.to_path_buf(),
        base_commit: String::new(),
        build: "sh build.sh".into(),
        gem5: "build/TOY/gem5.opt".into(),
        seed_build_dir: None,
        run: "{gem5} -d {outdir} --seed {seed}".into(),
        seeds: vec![1, 2],
        build_timeout_s: 60,
        run_timeout_s: Some(2),
        models: vec!["cc".into(), "sc".into()],
        all_seeds: false,
    }
}

#[test]
fn a_stand_in_campaign_classifies_resumes_and_reports() {
    let base = std::env::temp_dir().join(format!("memconform-campaign-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let root = tree(&base);
    let mutants = vec![
        // MI-5: the write-back's data copy deleted (replays the real MI-5 run)
        mutant(
            &root,
            "ADS",
            "    out_msg.DataBlk := in_msg.DataBlk;",
            "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
        ),
        // observer-only: survives
        mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;"),
        // does not build
        mutant(&root, "ADS", "    ok;", "    // [mutant] ok;"),
        // hangs past the run limit
        mutant(&root, "ADS", "    go;", "    // [mutant] go;"),
    ];
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), mutants.clone()).unwrap();
    // the user's tree is never written
    let before = std::fs::read(root.join(PROTOCOL_FILE)).unwrap();

    // interrupted after the first mutant's first step...
    let stop = AtomicBool::new(false);
    let steps = AtomicUsize::new(0);
    let progress = |line: &str| {
        eprintln!("{line}");
        if !line.starts_with("baseline") && steps.fetch_add(1, Ordering::SeqCst) == 0 {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let o = RunOptions {
        slots: 1,
        shard: (0, 1),
        slot_dir: None,
        stop: &stop,
        progress: &progress,
    };
    let first = campaign::run(&c, &o).unwrap();
    assert!(first < mutants.len(), "stopped early: {first}");
    // ... and resumed: every mutant done once, none redone
    stop.store(false, Ordering::SeqCst);
    steps.store(usize::MAX / 2, Ordering::SeqCst);
    let c = Campaign::open(&dir).unwrap();
    let second = campaign::run(&c, &o).unwrap();
    assert_eq!(first + second, mutants.len());
    let events = c.events().unwrap();
    for m in &mutants {
        let done = events
            .iter()
            .filter(|e| matches!(e, Event::MutantDone { mutant, .. } if *mutant == m.id))
            .count();
        assert_eq!(done, 1, "{}", m.site);
    }
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Baseline { .. }))
            .count(),
        2,
        "the baseline runs once per seed"
    );
    assert_eq!(std::fs::read(root.join(PROTOCOL_FILE)).unwrap(), before);

    let s = State::of(&c).unwrap();
    let status = |i: usize| s.status[&mutants[i].id];
    assert_eq!(
        [status(0), status(1), status(2), status(3)],
        [
            Status::Killed,
            Status::Survived,
            Status::Unviable,
            Status::Timeout
        ]
    );
    // MI-5: a stale read (a violation of cc on the real-time view) and
    // gem5's own tester check; the first seed kills, the second is not run
    let runs = &s.runs[&mutants[0].id];
    assert_eq!(runs.len(), 1);
    let r = &runs[&1];
    assert_eq!(r.outcome, "violation:cc");
    assert_eq!(r.exit_kind, campaign::ExitKind::TesterCheck);
    assert_eq!(r.verdicts["cc"], "violation");
    // the survivor ran both seeds, clean and consistent
    assert!(s.runs[&mutants[1].id]
        .values()
        .all(|r| r.outcome == "survived"));

    let text = memconform::report::mutation::write_all(&s).unwrap();
    assert!(
        text.contains("killed 1, survived 1, timeout 1, unviable 1"),
        "{text}"
    );
    assert!(text.contains("gem5: tester_check"), "{text}");
    assert!(text.contains("memconform: cc"), "{text}");
    let matrix = std::fs::read_to_string(dir.join("kill-matrix.csv")).unwrap();
    // a header; MI-5 one seed, the survivor two, the unviable none (one
    // row), the timeout two (a timeout does not stop the seeds)
    assert_eq!(matrix.lines().count(), 1 + 1 + 2 + 1 + 2, "{matrix}");
    assert!(matrix.contains(&format!("{},{}", mutants[0].id, mutants[0].id)));
    // the kill matrix plots: MI-5 killed by gem5 (its tester) and
    // memconform, a survivor, a timeout; the unviable one left out
    use memconform::report::plot_mutation::{kill_by_operator, read_kill_matrix};
    let km = read_kill_matrix(&[dir.join("kill-matrix.csv")]).unwrap();
    let d = kill_by_operator(&km, false);
    assert_eq!((d.drawn, d.unviable), (3, 1));
    let mut fates = [0; 6];
    for (_, c) in &d.rows[0].ops {
        fates.iter_mut().zip(c).for_each(|(f, c)| *f += c);
    }
    assert_eq!(fates, [0, 1, 0, 1, 1, 0]);
    let svg = dir.join("kills.svg");
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["plot", "--kind", "kill-by-operator", "-o"])
        .arg(&svg)
        .arg(dir.join("kill-matrix.csv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains(&mutants[0].op));
    // the history rows work with summarize, by variant
    let histories = dir.join("histories.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["summarize", "--by", "variant,model"])
        .arg(&histories)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(&mutants[0].id), "{out}");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_patch_for_another_base_file_is_refused_as_unviable() {
    let base =
        std::env::temp_dir().join(format!("memconform-campaign-base-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let root = tree(&base);
    let mut m = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    m.base_sha256 = campaign::sha256_hex(b"another file");
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), vec![m.clone()]).unwrap();
    let stop = AtomicBool::new(false);
    let o = RunOptions {
        slots: 1,
        shard: (0, 1),
        slot_dir: None,
        stop: &stop,
        progress: &|_| {},
    };
    assert_eq!(campaign::run(&c, &o).unwrap(), 1);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&m.id], Status::Unviable);
    let _ = std::fs::remove_dir_all(&base);
}
