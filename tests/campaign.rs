//! The campaign runner on a STAND-IN for gem5 (no gem5 here): a git tree
//! with one protocol file, a "build" script that records which mutation
//! the file carries, and a "gem5.opt" script that replays a bundled real
//! gem5 run for it (the clean MI_example run, or the MI-5 run), with that
//! run's own output and exit status. What is tested is the runner: slots,
//! patches, baseline, outcomes, resume, reports — not gem5.

mod stand_in;

use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use memconform::mutate::campaign::{self, Campaign, Event, RunOptions, State, Status};
use stand_in::{four_mutants, fresh, mutant, run_all, settings, PROTOCOL_FILE};

#[test]
fn a_stand_in_campaign_classifies_resumes_and_reports() {
    let (base, root) = fresh("campaign");
    let mutants = four_mutants(&root);
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
    // the build-breaking mutant was stopped by the pre-check, not built
    assert!(events.iter().any(|e| matches!(e,
        Event::Built { mutant, ok: false, log_tail, .. }
            if *mutant == mutants[2].id && log_tail.contains("pre-check"))));
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
    let (base, root) = fresh("campaign-base");
    let mut m = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    m.base_sha256 = campaign::sha256_hex(b"another file");
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), vec![m.clone()]).unwrap();
    assert_eq!(run_all(&c), 1);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&m.id], Status::Unviable);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_mutant_no_baseline_seed_reaches_is_no_coverage_and_not_built() {
    let (base, root) = fresh("campaign-coverage");
    // the bundled clean MI_example run the stand-in replays took Directory
    // M/PUTX (its real stats.txt counts 464) but never L1Cache IM/Fwd_GETX
    let mut reached = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    reached.fires = Some(vec![
        "L1Cache.IM.Fwd_GETX".into(),
        "Directory.M.PUTX".into(),
    ]);
    let mut unreached = mutant(&root, "ADS", "    go;", "    // [mutant] go;");
    unreached.fires = Some(vec!["L1Cache.IM.Fwd_GETX".into()]);
    let mut unknown = mutant(&root, "ADS", "    ok;", "    // [mutant] ok;");
    unknown.fires = None;
    let ms = vec![reached.clone(), unreached.clone(), unknown.clone()];
    let c = Campaign::init(&base.join("campaign"), settings(&root), ms.clone()).unwrap();
    assert_eq!(run_all(&c), 3);
    let s = State::of(&c).unwrap();
    let fired = s.baseline[0]
        .1
        .fired
        .as_ref()
        .expect("the baseline's counters");
    assert!(fired.contains(&"Directory.M.PUTX".to_string()), "{fired:?}");
    assert!(!fired.contains(&"L1Cache.IM.Fwd_GETX".to_string()));
    assert_eq!(s.status[&reached.id], Status::Survived);
    assert_eq!(s.status[&unreached.id], Status::NoCoverage);
    // a mutant nothing tells about runs (this one does not build)
    assert_eq!(s.status[&unknown.id], Status::Unviable);
    // not built, not run: no event but its end
    assert!(!s.build_s.contains_key(&unreached.id));
    assert!(!s.runs.contains_key(&unreached.id));
    let text = memconform::report::mutation::write_all(&s).unwrap();
    assert!(text.contains("no coverage 1;"), "{text}");
    assert!(
        text.contains("score 0.00 (killed / (killed + survived)), 0.00 counting"),
        "{text}"
    );
    let listed = std::fs::read_to_string(base.join("campaign/no-coverage.txt")).unwrap();
    assert_eq!(listed.trim(), unreached.id);

    // with coverage off, the same mutant is built and run (and hangs)
    let mut off = settings(&root);
    off.coverage = false;
    let c = Campaign::init(&base.join("campaign-off"), off, vec![unreached.clone()]).unwrap();
    assert_eq!(run_all(&c), 1);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&unreached.id], Status::Timeout);
    let _ = std::fs::remove_dir_all(&base);
}

/// A slot's seeded build is as up to date as the user's: a timestamp build
/// (make here; gem5's SCons `MD5-timestamp` decider alike) finds nothing to
/// do for the baseline, and rebuilds for a mutant that edits its source.
#[test]
fn a_seeded_slot_build_is_up_to_date_for_a_timestamp_build() {
    let (base, root) = fresh("campaign-mtimes");
    std::fs::write(
        root.join("Makefile"),
        format!(
            "build/TOY/stamp: {PROTOCOL_FILE}\n\tmkdir -p build/TOY && echo built >> build/TOY/builds && touch build/TOY/stamp\n"
        ),
    )
    .unwrap();
    // (making the mutant rewrites the source: before the user's build)
    let survivor = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    stand_in::sh(
        &root,
        "git add Makefile && git -c user.name=t -c user.email=t@t commit -qm make \
         && touch -d 2001-01-01 src/mem/ruby/protocol/Toy-dir.sm Makefile && make -s",
    );
    let mut s = settings(&root);
    s.build = "make -s && sh build.sh".into();
    s.seed_build_dir = Some("build/TOY".into());
    let c = Campaign::init(&base.join("campaign"), s, vec![survivor]).unwrap();
    run_all(&c);
    let slot = std::fs::read_dir(c.dir.join("slots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let source = |dir: &std::path::Path| {
        std::fs::metadata(dir.join("Makefile"))
            .unwrap()
            .modified()
            .unwrap()
    };
    assert_eq!(source(&slot), source(&root), "the user's modification time");
    // the user's build, then the mutant's; the baseline's found it up to date
    let builds = std::fs::read_to_string(slot.join("build/TOY/builds")).unwrap();
    assert_eq!(builds.lines().count(), 2, "{builds}");
    let _ = std::fs::remove_dir_all(&base);
}
