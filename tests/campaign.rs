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
use memconform::mutate::{coverage, Mutant};
use stand_in::{four_mutants, fresh, mutant, one_slot, run_all, settings, PROTOCOL_FILE};

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
        let setup = line.starts_with("baseline") || line.starts_with("slot ");
        if !setup && steps.fetch_add(1, Ordering::SeqCst) == 0 {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let o = RunOptions {
        slots: 1,
        cores: 1,
        shard: (0, 1),
        slot_dir: None,
        first: Vec::new(),
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

    // each build's time split by SCons's step lines as they came; the
    // phases add up to the build's wall time
    let p = s.build_phases[&mutants[0].id];
    let sum = p.scan_s + p.regenerate_s + p.compile_s + p.link_s;
    let wall = s.build_s[&mutants[0].id];
    assert!((sum - wall).abs() < 0.5, "{p:?} against {wall} s");
    assert!(p.scan_s >= 0.0 && p.regenerate_s >= 0.0 && p.compile_s >= 0.0 && p.link_s >= 0.0);
    let text = memconform::mutate::report::write_all(&s).unwrap();
    assert!(text.contains("mean build phases: SCons start-up"), "{text}");
    assert!(
        text.contains("killed 1, survived 1, timeout 1, unviable 1"),
        "{text}"
    );
    assert!(text.contains("gem5: tester_check"), "{text}");
    assert!(text.contains("memconform: cc"), "{text}");
    // the per-mutant table: MI-5's row (no catalogue tag here) says killed,
    // by cc, after one seed
    let row = text
        .lines()
        .find(|l| l.starts_with(&mutants[0].id))
        .unwrap_or_else(|| panic!("no row for {}: {text}", mutants[0].id));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[2..6], ["-", "killed", "violation:cc", "1"], "{row}");
    let matrix = std::fs::read_to_string(dir.join("kill-matrix.csv")).unwrap();
    // a header; MI-5 one seed, the survivor two, the unviable none (one
    // row), the timeout two (a timeout does not stop the seeds)
    assert_eq!(matrix.lines().count(), 1 + 1 + 2 + 1 + 2, "{matrix}");
    assert!(matrix.contains(&format!("{},{}", mutants[0].id, mutants[0].id)));
    // the kill matrix plots: MI-5 killed by gem5 (its tester) and
    // memconform, a survivor, a timeout; the unviable one left out
    use memconform::mutate::plot::{kill_by_operator, read_kill_matrix};
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

/// Survivors are classified by hand (`mutate classify`): the report counts
/// equivalent, gap and unclassified ones and scores without the equivalent
/// ones; only survivors are classified, by id, prefix or catalogue name;
/// a reason is one non-empty line; a malformed survivors.toml is an error
/// naming its line, and a class kept for a mutant that no longer survives
/// is shown, not counted, and can be taken back.
#[test]
fn survivors_are_classified_by_hand_and_the_report_counts_them() {
    let (base, root) = fresh("classify");
    let mutants = four_mutants(&root);
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), mutants.clone()).unwrap();
    run_all(&c);
    let (killed, survivor) = (&mutants[0].id, &mutants[1].id);
    let classify = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(["mutate", "classify"])
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let report = || {
        let c = Campaign::open(&dir).unwrap();
        memconform::mutate::report::write_all(&State::of(&c).unwrap())
    };
    // before: one survivor, not classified
    let text = report().unwrap();
    assert!(
        text.contains("survivors: 0 equivalent, 0 stimulus gap, 1 not classified (memconform mutate classify); score without the equivalent ones 0.50"),
        "{text}"
    );
    assert!(text.contains("      not classified"), "{text}");
    // only survivors; a reason is one non-empty line
    let (code, err) = classify(&[killed, "--equivalent", "x"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is killed, not a survivor"), "{err}");
    let (code, err) = classify(&[survivor, "--gap", " "]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the reason is empty"), "{err}");
    let (code, err) = classify(&["ab", "--gap", "x"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("4 digits or more"), "{err}");
    let (code, _) = classify(&[survivor]);
    assert_eq!(code, Some(2), "a class is required");
    assert!(!dir.join("survivors.toml").exists(), "nothing written");
    // by a prefix: equivalent, and the score leaves it out
    let (code, err) = classify(&[&survivor[..6], "--equivalent", "it edits a profiling call"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "{survivor}: equivalent: it edits a profiling call"
        )),
        "{err}"
    );
    let text = report().unwrap();
    assert!(
        text.contains("survivors: 1 equivalent, 0 stimulus gap, 0 not classified; score without the equivalent ones 1.00"),
        "{text}"
    );
    assert!(
        text.contains("      equivalent: it edits a profiling call"),
        "{text}"
    );
    // a gap instead, then taken back
    assert_eq!(classify(&[survivor, "--gap", "no round evicts"]).0, Some(0));
    assert!(report()
        .unwrap()
        .contains("0 equivalent, 1 stimulus gap, 0 not classified"));
    assert_eq!(classify(&[survivor, "--clear"]).0, Some(0));
    assert!(report()
        .unwrap()
        .contains("0 equivalent, 0 stimulus gap, 1 not classified"));
    // a class kept by hand for the killed mutant: shown, not counted
    std::fs::write(
        dir.join("survivors.toml"),
        format!("[{killed}]\nclass = \"equivalent\"\nreason = \"wrong\"\n"),
    )
    .unwrap();
    let text = report().unwrap();
    assert!(
        text.contains("0 equivalent, 0 stimulus gap, 1 not classified"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "no longer survivors (not counted): {killed} (killed)"
        )),
        "{text}"
    );
    // ... and taken back (a follow-up run killed a classified survivor);
    // a killed mutant with no class left is still refused
    assert!(text.contains("takes a class back"), "{text}");
    let (code, err) = classify(&[killed, "--clear"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!report().unwrap().contains("no longer survivors"));
    let (code, err) = classify(&[killed, "--clear"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is killed, not a survivor"), "{err}");
    // a malformed file is an error naming where
    std::fs::write(
        dir.join("survivors.toml"),
        format!("[{survivor}]\nclass = \"maybe\"\n"),
    )
    .unwrap();
    let e = report().unwrap_err().to_string();
    assert!(e.contains("survivors.toml") && e.contains("line 2"), "{e}");
    let _ = std::fs::remove_dir_all(&base);
}

/// A run of ARM O3 cores whose histories break ARMv8 (the bundled real
/// CHI run of gem5 #1242's shape) is killed as `violation:armv8` when the
/// campaign checks the default models: the promise's own check labels the
/// kill (ARMv8 is weaker than SC, which the same rounds violate), its
/// verdict is kept beside the asked ones, and the kill matrix has its
/// column.
#[test]
fn a_run_breaking_its_armv8_promise_is_killed_by_armv8() {
    use memconform::models::Model;
    let (base, _) = fresh("armv8-kill");
    // a clean exit of the bundled run `name`, judged on the default models
    let judge = |name: &str| {
        campaign::judge(
            &stand_in::repo().join("tests/data/gem5").join(name),
            Some(0),
            "",
            &Model::DEFAULT,
            1.0,
            "m",
            &base.join("rows.csv"),
        )
    };
    let r = judge("arm/chi-o3-sb-rel-acq-s1");
    assert_eq!(r.outcome, "violation:armv8", "{r:?}");
    assert_eq!(r.decided_by, "armv8");
    assert_eq!(r.pattern, "CyclicOb");
    assert_eq!(r.verdicts["armv8"], "violation");
    assert_eq!(r.verdicts["sc"], "violation");
    // TSO allows store buffering: kept out of a kill (the promise is what counts)
    assert_ne!(r.verdicts.get("tso").map(String::as_str), Some("violation"));
    // an x86 O3 run breaking TSO: labelled by the weakest violated model
    // TSO implies, as before (docs/findings/moesi-amd-base-corepair-tso)
    let r = judge("moesi_amd_base/se-o3-stock-n4-s1");
    assert_eq!(r.outcome, "violation:cc", "{r:?}");
    assert!(!r.verdicts.contains_key("armv8"));
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_patch_for_another_base_file_is_refused_as_unviable() {
    let (base, root) = fresh("campaign-base");
    let mut m = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    m.base_sha256 = memconform::mutate::sha256_hex(b"another file");
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), vec![m.clone()]).unwrap();
    assert_eq!(run_all(&c), 1);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&m.id], Status::Unviable);
    let _ = std::fs::remove_dir_all(&base);
}

/// A configuration mutant (docs/design/gem5.md §9) (a gem5 parameter, `--param`,
/// no patch, no build) is judged like a SLICC mutant, in the same reports:
/// the stand-in replays the MI-5 run for a parameter naming its bug, stops
/// before simulating for one naming no object (unviable, not a kill), and
/// runs clean otherwise; after a SLICC mutant the slot is rebuilt to the
/// base first.
#[test]
fn configuration_mutants_are_killed_survive_or_do_not_apply() {
    let (base, root) = fresh("campaign-config");
    let killed = Mutant::config("system.bug=True").unwrap();
    let survived = Mutant::config("system.cpu[:].harmless=1").unwrap();
    let unviable = Mutant::config("system.nosuch.x=1").unwrap();
    // a SLICC mutant that kills: whichever runs before a config mutant in
    // the slot, the config mutant must run on the base build
    let slicc = mutant(
        &root,
        "ADS",
        "    out_msg.DataBlk := in_msg.DataBlk;",
        "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
    );
    assert!(Mutant::config("no assignment").is_err());
    assert!(killed.is_config() && killed.op == "CFG" && killed.class == "config");
    assert_eq!(
        killed.id,
        Mutant::config(" system.bug=True ").unwrap().id,
        "ids are stable"
    );
    // a harmless config mutant that runs after the SLICC one (ids sort the
    // run order): it survives only if it runs the base's binary
    let after = (0..)
        .map(|k| Mutant::config(&format!("system.cpu[:].later{k}=1")).unwrap())
        .find(|m| m.id > slicc.id)
        .unwrap();
    let ms = vec![
        killed.clone(),
        survived.clone(),
        unviable.clone(),
        slicc.clone(),
        after.clone(),
    ];
    let c = Campaign::init(&base.join("campaign"), settings(&root), ms).unwrap();
    assert_eq!(run_all(&c), 5);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&after.id], Status::Survived, "the base's binary");
    // not rebuilt: the baseline's binary, kept by the campaign, was copied
    assert_eq!(s.build_s.get(&after.id), Some(&0.0));
    let kept = campaign::base_binary(&c);
    let kept = std::fs::read_to_string(&kept).unwrap();
    assert!(
        kept.contains("[ \"clean\" = hang ]"),
        "the base build: {kept}"
    );
    assert!(!s.build_s.contains_key(&survived.id) || s.build_s[&survived.id] == 0.0);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&killed.id], Status::Killed);
    assert_eq!(s.status[&survived.id], Status::Survived);
    assert_eq!(s.status[&unviable.id], Status::Unviable);
    assert_eq!(s.status[&slicc.id], Status::Killed);
    let text = memconform::mutate::report::write_all(&s).unwrap();
    assert!(text.contains("CFG"), "{text}");
    let matrix = std::fs::read_to_string(base.join("campaign/kill-matrix.csv")).unwrap();
    assert!(
        matrix.lines().any(|l| l.contains(&killed.id)
            && l.contains(",CFG,config,")
            && l.contains("violation:cc")),
        "{matrix}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// A slot's builds and runs (docs/design/campaigns.md §6) see it at the user's tree's
/// path (a private mount namespace), so gem5's embedded absolute paths
/// match the seeded build; where the machine allows no namespace, the
/// campaign says so and builds at the slot's own path. The user's tree is
/// never written either way.
#[test]
fn a_slot_builds_at_the_users_path_where_the_machine_allows() {
    let (base, root) = fresh("campaign-ns");
    let m = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    let c = Campaign::init(&base.join("campaign"), settings(&root), vec![m]).unwrap();
    let said = std::sync::Mutex::new(Vec::<String>::new());
    let stop = AtomicBool::new(false);
    let o = RunOptions {
        slots: 1,
        cores: 1,
        shard: (0, 1),
        slot_dir: None,
        first: Vec::new(),
        stop: &stop,
        progress: &|m| said.lock().unwrap().push(m.to_string()),
    };
    assert_eq!(campaign::run(&c, &o).unwrap(), 1);
    let said = said.into_inner().unwrap();
    let fallback = said
        .iter()
        .any(|m| m.contains("builds run at the slot's own path"));
    let slot = base.join("campaign/slots/0-0");
    let built_at = std::fs::read_to_string(slot.join("build/TOY/built-at")).unwrap();
    let want = if fallback {
        slot.canonicalize().unwrap()
    } else {
        root.canonicalize().unwrap()
    };
    assert_eq!(built_at.trim(), want.to_string_lossy(), "{said:?}");
    // the user's tree: no build, no marker, its file as it was
    assert!(!root.join("build").exists());
    assert!(!root.join(".git/memconform-slot").exists());
    if !fallback {
        eprintln!("the slot built at the user's path {}", want.display());
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// Placeholders reach the shell as one word each: a campaign path with a
/// space works, and a configuration mutant's parameters go where
/// `{params}` is (or at the end).
#[test]
fn placeholders_are_quoted_and_params_placed() {
    use std::path::Path;
    let cmd = campaign::fill(
        "{gem5} -d {outdir} se.py {params} --cmd=x",
        Path::new("/g 5/gem5.opt"),
        Path::new("/g 5"),
        Path::new("/c d/it's"),
        3,
        "abc",
        &["system.cpu[:].needsTSO=False".to_string()],
    );
    assert_eq!(
        cmd,
        "'/g 5/gem5.opt' -d '/c d/it'\\''s' se.py --param 'system.cpu[:].needsTSO=False' --cmd=x"
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s|' {}", cmd.replace("se.py", "")))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "/g 5/gem5.opt|-d|/c d/it's|--param|system.cpu[:].needsTSO=False|--cmd=x|"
    );
    let at_end = campaign::fill(
        "{gem5} run",
        Path::new("g"),
        Path::new("r"),
        Path::new("o"),
        1,
        "m",
        &["a=1".into()],
    );
    assert_eq!(at_end, "g run --param a=1");
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
    let text = memconform::mutate::report::write_all(&s).unwrap();
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

/// The stand-in tree's protocol made an invented one: MI_example.slicc
/// including `Toy-cov.sm` with text `sm`, committed.
fn toy_protocol(root: &std::path::Path, sm: &str) {
    let dir = root.join("src/mem/ruby/protocol");
    std::fs::write(
        dir.join("MI_example.slicc"),
        "protocol \"MI_example\";\ninclude \"Toy-cov.sm\";\n",
    )
    .unwrap();
    std::fs::write(dir.join("Toy-cov.sm"), sm).unwrap();
    stand_in::sh(
        root,
        "git add -A && git -c user.name=t -c user.email=t@t commit -qm protocol",
    );
}

/// A mutant whose every edited transition the configuration cannot take
/// (the reach analysis of each baseline seed) is no coverage with why, not
/// searched for and not built; the report lists it apart and scores the
/// other no-coverage mutants as survivors. The invented protocol's ZZ is a
/// state no transition enters and no code names; M.Poke is reachable and
/// merely not taken (the replayed MI_example run has no Poke).
#[test]
fn a_mutant_of_code_the_configuration_cannot_run_is_set_apart() {
    let (base, root) = fresh("campaign-cannot-take");
    toy_protocol(
        &root,
        "// invented for this test, not a gem5 file\n\
         machine(MachineType:L1Cache, \"stand-in cache\") {\n\
         state_declaration(State, desc=\"s\", default=\"L1Cache_State_I\") { I, desc=\"i\"; IS, desc=\"is\"; M, desc=\"m\"; ZZ, desc=\"z\"; }\n\
         enumeration(Event, desc=\"e\") { Load, desc=\"l\"; Store, desc=\"s\"; Fwd_GETX, desc=\"f\"; Data, desc=\"d\"; Poke, desc=\"p\"; }\n\
         transition(I, {Load, Store}, IS) { }\n\
         transition(IS, Data, M) { }\n\
         transition(M, {Load, Fwd_GETX, Poke}) { }\n\
         transition(ZZ, Load, I) { }\n\
         }\n",
    );
    let mut dead = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    dead.fires = Some(vec!["L1Cache.ZZ.Load".into()]);
    let mut idle = mutant(&root, "DAS", "    ++counter;", "    // [idle] ++counter;");
    idle.fires = Some(vec!["L1Cache.M.Poke".into()]);
    let c = Campaign::init(
        &base.join("campaign"),
        settings(&root),
        vec![dead.clone(), idle.clone()],
    )
    .unwrap();
    assert_eq!(run_all(&c), 2);
    let s = State::of(&c).unwrap();
    for (seed, r) in &s.baseline {
        let u = r.unreachable.as_ref().expect("analysed");
        assert_eq!(
            u.keys().collect::<Vec<_>>(),
            ["L1Cache.ZZ.Load"],
            "seed {seed}"
        );
    }
    assert_eq!(s.status[&dead.id], Status::NoCoverage);
    assert_eq!(s.status[&idle.id], Status::NoCoverage);
    let why = "L1Cache.ZZ.Load: L1Cache never enters ZZ: only unreachable transitions lead there";
    assert_eq!(
        s.notes.get(&dead.id).map(String::as_str),
        Some(format!("{}: {why}", campaign::CANNOT_TAKE).as_str())
    );
    assert_eq!(s.notes.get(&idle.id), None);
    // neither was built: no run directory
    assert!(!c.dir.join("runs").join(&dead.id).exists());
    let text = memconform::mutate::report::write_all(&s).unwrap();
    assert!(
        text.contains(
            "no coverage: 1 of 2 edit only transitions this configuration cannot take (listed \
             below with why); 0.00 counting the other no coverage as survived"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "\nunreachable in this configuration (1): mutants of code no run of this \
             configuration executes\n  {} ADS: {why}\n",
            dead.id
        )),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// Each baseline seed's coverage table is written beside its output, the
/// report has a coverage line per seed, and `mutant-coverage.csv` lists
/// each mutant's transitions with the seeds that took them. The stand-in
/// tree's protocol is an invented one (an L1Cache of 5 counted transitions
/// and 2 stalls); the replayed MI_example run took 4 of them.
#[test]
fn each_baseline_seed_records_its_coverage() {
    let (base, root) = fresh("campaign-baseline-coverage");
    toy_protocol(
        &root,
        "// invented for this test, not a gem5 file\n\
         machine(MachineType:L1Cache, \"stand-in cache\") {\n\
         state_declaration(State, desc=\"s\") { I, desc=\"i\"; IS, desc=\"is\"; M, desc=\"m\"; }\n\
         enumeration(Event, desc=\"e\") { Load, desc=\"l\"; Store, desc=\"s\"; Fwd_GETX, desc=\"f\"; Data, desc=\"d\"; }\n\
         transition(I, {Load, Store}, IS) { }\n\
         transition(IS, Data, M) { }\n\
         transition(M, {Load, Fwd_GETX}) { }\n\
         transition(IS, {Load, Store}) { z_stall; }\n\
         }\n",
    );
    let mut m = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    m.fires = Some(vec!["L1Cache.M.Load".into(), "Directory.M.PUTX".into()]);
    let c = Campaign::init(&base.join("campaign"), settings(&root), vec![m.clone()]).unwrap();
    assert_eq!(run_all(&c), 1);
    let s = State::of(&c).unwrap();
    // clean-n2-s1-rich took L1Cache I.Load, I.Store, IS.Data, M.Fwd_GETX (not
    // M.Load), and 7 Directory transitions the invented protocol lacks
    let want = vec![
        coverage::Summary {
            machine: "L1Cache".into(),
            taken: 4,
            declared: Some(5),
            reachable: Some(5),
        },
        coverage::Summary {
            machine: "Directory".into(),
            taken: 0,
            declared: Some(0),
            reachable: Some(0),
        },
    ];
    for (seed, r) in &s.baseline {
        assert_eq!(r.coverage.as_ref(), Some(&want), "seed {seed}");
        let out = c.dir.join("runs/baseline").join(format!("s{seed}"));
        let table = std::fs::read_to_string(out.join("coverage.txt")).unwrap();
        assert!(
            table.contains("not taken (1):\n  L1Cache.M.Load\n"),
            "{table}"
        );
        assert!(
            table.contains("note: Directory took 7 transitions its SLICC does not declare"),
            "{table}"
        );
        // the analysis ran on the invented protocol and found nothing its
        // runs contradict
        assert!(!table.contains("was taken by a run"), "{table}");
        let csv = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
        assert!(
            csv.contains("\nL1Cache,M,Load,0,true,false,true,\n"),
            "{csv}"
        );
        assert!(
            csv.contains("\nL1Cache,IS,Store,0,true,true,true,\n"),
            "{csv}"
        );
        assert!(
            csv.contains("\nDirectory,M,PUTX,464,false,false,,\n"),
            "{csv}"
        );
    }
    let text = memconform::mutate::report::write_all(&s).unwrap();
    for seed in [1, 2] {
        let line = format!(
            "coverage, seed {seed}: 4/5 reachable transitions (80%), 5 declared: L1Cache 4/5 \
             (80%), Directory 0/0\n"
        );
        assert!(text.contains(&line), "{line} not in\n{text}");
    }
    let listed = std::fs::read_to_string(c.dir.join("mutant-coverage.csv")).unwrap();
    assert_eq!(
        listed,
        format!(
            "mutant_id,op,class,transition,taken_by,taken\n\
             {id},ADS,tier1,L1Cache.M.Load,,no\n\
             {id},ADS,tier1,Directory.M.PUTX,1 2,yes\n",
            id = m.id
        )
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// A slot's first build has its own, longer limit (it may redo much); a
/// later build past the build limit makes its mutant `unknown` (a
/// time-out is not a verdict), not unviable, and the campaign goes on.
#[test]
fn a_first_build_has_its_own_limit_and_a_build_timeout_is_unknown() {
    let (base, root) = fresh("campaign-build-timeout");
    let hangs = mutant(&root, "ADS", "    slow;", "    // [mutant] slow;");
    let survives = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    let mut s = settings(&root);
    // the stand-in's first build takes 2 s: past 1 s, within the first limit
    s.build_timeout_s = 1;
    s.first_build_timeout_s = 30;
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, s.clone(), vec![hangs.clone(), survives.clone()]).unwrap();
    assert_eq!(run_all(&c), 2);
    let st = State::of(&c).unwrap();
    assert!(st.baseline.iter().all(|(_, r)| r.outcome == "survived"));
    assert_eq!(st.status[&hangs.id], Status::Unknown);
    assert_eq!(st.status[&survives.id], Status::Survived);
    let tail = c
        .events()
        .unwrap()
        .into_iter()
        .find_map(|e| match e {
            Event::Built {
                mutant, log_tail, ..
            } if mutant == hangs.id => Some(log_tail),
            _ => None,
        })
        .unwrap();
    assert_eq!(tail, "the build timed out after 1 s");

    // without the first build's own limit, the baseline cannot build, and
    // the campaign says so (no mutant judged)
    s.first_build_timeout_s = 1;
    let c = Campaign::init(&base.join("campaign-short"), s, vec![survives.clone()]).unwrap();
    let e = stand_in::try_run_all(&c).unwrap_err();
    assert!(
        e.0.contains("the baseline build timed out after 1 s"),
        "{}",
        e.0
    );
    assert!(State::of(&c).unwrap().status.is_empty());
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

/// The committed MI_example campaign (docs/campaign-mi-example: real gem5
/// v24.0.0.1 runs of 16 mutants): every kill-matrix row's outcome is the one
/// its evidence columns give (§7: a violation first, then how gem5 ended),
/// every mutant's status the one its rows give, and the paper plots draw it.
#[test]
fn the_committed_mi_example_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) = committed_campaign("docs/campaign-mi-example");
    assert!(tier1.len() >= 12, "{} Tier-1 mutants", tier1.len());
    for name in ["MI-3", "MI-5"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert!(memconform_only.is_empty(), "{memconform_only:?}");
}

/// The O3 campaign (docs/campaign-mesi-o3): the same rules, and its
/// memconform-only kills are the load-queue bugs its README names.
#[test]
fn the_committed_mesi_o3_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) = committed_campaign("docs/campaign-mesi-o3");
    assert!(tier1.len() >= 20, "{} Tier-1 mutants", tier1.len());
    for name in ["ME-4=ME-8", "ME-7", "CF-1", "CF-2"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    // ME-8, ME-7, CF-1, CF-2 and five more forward_eviction_to_cpu deletions
    assert_eq!(memconform_only.len(), 9, "{memconform_only:?}");
    for id in [
        "2c440e45b307",
        "0961131aa005",
        "c20b7188ac9f",
        "8ef9fb6fd865",
    ] {
        assert!(memconform_only.contains(id), "{id}: {memconform_only:?}");
    }
    let report = committed_report("docs/campaign-mesi-o3");
    assert!(report.contains("memconform only         9"), "{report}");
}

/// The directed-stimulus MESI_Two_Level campaign on x86 O3 cores
/// (docs/campaign-x86-mesi, issue 41): the same rules over 100 mutants run
/// on the stimuli that take their transitions; its memconform-only kills
/// are ME-7, CF-1, CF-2 and three Tier-1 edits; every survivor is
/// classified, and without the equivalent ones the score is 0.90.
#[test]
fn the_committed_x86_mesi_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) = committed_campaign("docs/campaign-x86-mesi");
    assert!(tier1.len() >= 80, "{} Tier-1 mutants", tier1.len());
    for name in [
        "ME-1",
        "ME-2",
        "ME-3",
        "ME-4=ME-8",
        "ME-5",
        "ME-6",
        "ME-7",
        "ME-9",
        "CF-1",
        "CF-2",
    ] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert_eq!(memconform_only.len(), 6, "{memconform_only:?}");
    for id in ["0961131aa005", "c20b7188ac9f", "8ef9fb6fd865"] {
        assert!(memconform_only.contains(id), "{id}: {memconform_only:?}");
    }
    let report = committed_report("docs/campaign-x86-mesi");
    assert!(report.contains("memconform only         6"), "{report}");
    assert!(
        report.contains("survivors: 8 equivalent, 7 stimulus gap, 0 not classified; score without the equivalent ones 0.90"),
        "{report}"
    );
    // each kill matrix row names the stimulus its seed ran
    let km =
        std::fs::read_to_string(stand_in::repo().join("docs/campaign-x86-mesi/kill-matrix.csv"))
            .unwrap();
    let mut r = csv::Reader::from_reader(km.as_bytes());
    let head = r.headers().unwrap().clone();
    let (seed, stim) = (
        head.iter().position(|h| h == "seed").unwrap(),
        head.iter().position(|h| h == "stimulus").unwrap(),
    );
    for row in r.records() {
        let row = row.unwrap();
        assert_eq!(row[seed].is_empty(), row[stim].is_empty(), "{row:?}");
    }
}

/// The directed-stimulus MOESI_hammer campaign on x86 O3 cores
/// (docs/campaign-x86-moesi-hammer, issue 41): the same rules over 105
/// mutants; its memconform-only kills are MH-2, MH-8, CF-1, CF-2 and six
/// Tier-1 edits (three of them by the `mp+sm` follow-ups); every survivor is
/// classified, and without the equivalent ones the score is 0.91.
#[test]
fn the_committed_x86_moesi_hammer_campaign_agrees_with_its_evidence() {
    let dir = "docs/campaign-x86-moesi-hammer";
    let (tier1, catalogue, memconform_only) = committed_campaign(dir);
    assert!(tier1.len() >= 80, "{} Tier-1 mutants", tier1.len());
    for name in [
        "MH-1", "MH-2", "MH-3", "MH-4", "MH-5", "MH-6", "MH-7", "MH-8", "CF-1", "CF-2",
    ] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert_eq!(memconform_only.len(), 10, "{memconform_only:?}");
    for id in [
        "fdd3420e9cb3", // MH-2, by its first follow-up run
        "106cededdabe", // MH-8
        "30bdeabd253e", // the mp+sm follow-ups
        "3a2eb606930c",
        "c713f5f83875",
    ] {
        assert!(memconform_only.contains(id), "{id}: {memconform_only:?}");
    }
    let report = committed_report(dir);
    assert!(report.contains("memconform only         10"), "{report}");
    assert!(
        report.contains("survivors: 9 equivalent, 5 stimulus gap, 0 not classified; score without the equivalent ones 0.91"),
        "{report}"
    );
    assert!(report.contains("killed 52, survived 14"), "{report}");
    assert_classified_are_the_survivors(dir, &report, &memconform_only, 14);
}

/// The directed-stimulus MOESI_AMD_Base campaign on x86 O3 cores
/// (docs/campaign-x86-moesi-amd-base, issue 41): the same rules over its
/// kill matrix; memconform alone killed three (CC violations: one on a
/// stimulus's seed, CF-2 and MA-6 by follow-up runs);
/// the classified survivors are survivors of the report, and the report's
/// counts are those its README states.
#[test]
fn the_committed_x86_moesi_amd_base_campaign_agrees_with_its_evidence() {
    let dir = "docs/campaign-x86-moesi-amd-base";
    let (tier1, catalogue, memconform_only) = committed_campaign(dir);
    assert!(tier1.len() >= 80, "{} Tier-1 mutants", tier1.len());
    for name in ["MA-4", "MA-5", "MA-6", "CF-1", "CF-2"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert_eq!(
        memconform_only.iter().collect::<Vec<_>>(),
        ["3bafbe619511", "86c7d7f4c702", "b182d4cdb7be"],
        "{memconform_only:?}"
    );
    let report = committed_report(dir);
    assert!(
        report.contains("88 mutants, 88 done, 0 pending"),
        "{report}"
    );
    assert!(
        report.contains(
            "killed 36, survived 21, timeout 1, unviable 0, unknown 0, no coverage 26, unreached 4"
        ),
        "{report}"
    );
    assert!(
        report.contains("survivors: 17 equivalent, 4 stimulus gap, 0 not classified; score without the equivalent ones 0.90"),
        "{report}"
    );
    assert!(report.contains("memconform only         3"), "{report}");
    assert_classified_are_the_survivors(dir, &report, &memconform_only, 21);
    let readme = std::fs::read_to_string(stand_in::repo().join(dir).join("README.md")).unwrap();
    for claim in [
        "36 killed, 21 survived",
        "17 equivalent",
        "4 stimulus gaps",
        "36 / 40 = 0.90",
    ] {
        assert!(readme.contains(claim), "README lacks `{claim}`");
    }
}

/// The MOESI_hammer O3 campaign (docs/campaign-moesi-hammer-o3): the same
/// rules; its memconform-only kills are MH-8, CF-1, CF-2 and five more
/// deletions of the eviction forward (one of them killed on its second
/// seed), every one breaking TSO by message passing.
#[test]
fn the_committed_moesi_hammer_o3_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) = committed_campaign("docs/campaign-moesi-hammer-o3");
    assert!(tier1.len() >= 12, "{} Tier-1 mutants", tier1.len());
    for name in ["MH-1", "MH-3", "MH-4", "MH-7", "MH-8", "CF-1", "CF-2"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert_eq!(memconform_only.len(), 8, "{memconform_only:?}");
    for id in [
        "106cededdabe", // MH-8
        "30bdeabd253e", // killed on seed 2
        "c20b7188ac9f",
        "8ef9fb6fd865",
    ] {
        assert!(memconform_only.contains(id), "{id}: {memconform_only:?}");
    }
    let report = committed_report("docs/campaign-moesi-hammer-o3");
    assert!(report.contains("memconform only         8"), "{report}");
    assert!(report.contains("baseline: 3 of 3 seeds clean and consistent"));
}

/// The MOESI_hammer Ruby-tester campaign (docs/campaign-moesi-hammer-tester,
/// flushes off): the same rules; the tester sees what breaks values or
/// liveness (MH-3..7) and none of the O3 campaign's memconform-only kills
/// (MH-8 survives here).
#[test]
fn the_committed_moesi_hammer_tester_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) =
        committed_campaign("docs/campaign-moesi-hammer-tester");
    assert!(tier1.len() >= 12, "{} Tier-1 mutants", tier1.len());
    for name in ["MH-5", "MH-6", "MH-8"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert!(memconform_only.is_empty(), "{memconform_only:?}");
    let report = committed_report("docs/campaign-moesi-hammer-tester");
    let row = |name: &str| catalogue_row(&report, name);
    assert!(row("MH-8").contains("survived"), "{}", row("MH-8"));
    assert!(row("MH-5").contains("violation:cc"), "{}", row("MH-5"));
    assert!(row("MH-6").contains("deadlock"), "{}", row("MH-6"));
}

/// The MOESI_AMD_Base Ruby-tester campaign (docs/campaign-moesi-amd-base-tester,
/// on v24.0.0.1 with gem5 PR #1117 reverted): the same rules; the tester
/// kills MA-3, MA-4 and MA-5 (values and transitions), MA-6 (an eviction
/// forward to an O3 core) survives, and nothing is memconform's alone.
#[test]
fn the_committed_moesi_amd_base_tester_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) =
        committed_campaign("docs/campaign-moesi-amd-base-tester");
    assert!(tier1.len() >= 12, "{} Tier-1 mutants", tier1.len());
    for name in ["MA-1", "MA-2", "MA-3", "MA-4", "MA-5", "MA-6"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert!(memconform_only.is_empty(), "{memconform_only:?}");
    let report = committed_report("docs/campaign-moesi-amd-base-tester");
    assert!(report.contains("baseline: 3 of 3 seeds clean and consistent"));
    let row = |name: &str| catalogue_row(&report, name);
    for (name, by) in [
        ("MA-3", "violation:cc"),
        ("MA-4", "protocol_panic"),
        ("MA-5", "violation:cc"),
        ("MA-6", "survived"),
        ("MA-1", "no_coverage"),
    ] {
        assert!(row(name).contains(by), "{}", row(name));
    }
}

/// The MOESI_AMD_Base O3 campaign (docs/campaign-moesi-amd-base-o3): the
/// same rules; its memconform-only kills are CF-1, CF-2 on the CorePair
/// and the eviction forward to core 1 emptied; CF-2 with another
/// protocol's controller path is unviable (gem5 stops before simulating).
#[test]
fn the_committed_moesi_amd_base_o3_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) = committed_campaign("docs/campaign-moesi-amd-base-o3");
    assert!(tier1.len() >= 12, "{} Tier-1 mutants", tier1.len());
    for name in ["MA-1", "MA-3", "MA-4", "MA-6", "CF-1", "CF-2"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert_eq!(memconform_only.len(), 3, "{memconform_only:?}");
    for id in ["c20b7188ac9f", "86c7d7f4c702", "18a2a4be384f"] {
        assert!(memconform_only.contains(id), "{id}: {memconform_only:?}");
    }
    let report = committed_report("docs/campaign-moesi-amd-base-o3");
    assert!(report.contains("memconform only         3"), "{report}");
    assert!(report.contains("baseline: 3 of 3 seeds clean and consistent"));
    let unviable = report
        .lines()
        .find(|l| l.starts_with("8ef9fb6fd865"))
        .unwrap();
    assert!(unviable.contains("unviable"), "{unviable}");
}

/// The CHI campaign on ARM O3 cores (docs/campaign-chi-o3): the same
/// rules; its memconform-only kills are CH-3, the `send_evictions` branch
/// of the same action and CF-2 on CHI's L1 data cache, each an exclusive
/// pair losing atomicity; every survivor is classified in survivors.toml.
#[test]
fn the_committed_chi_o3_campaign_agrees_with_its_evidence() {
    let (tier1, catalogue, memconform_only) = committed_campaign("docs/campaign-chi-o3");
    assert!(tier1.len() >= 36, "{} Tier-1 mutants", tier1.len());
    for name in ["CH-1", "CH-2", "CH-3", "CF-2"] {
        assert!(catalogue.contains(name), "{name} missing: {catalogue:?}");
    }
    assert_eq!(memconform_only.len(), 3, "{memconform_only:?}");
    for id in ["c481115f3728", "739a0e6f6bcc", "296044ead8b8"] {
        assert!(memconform_only.contains(id), "{id}: {memconform_only:?}");
    }
    let report = committed_report("docs/campaign-chi-o3");
    assert!(report.contains("memconform only         3"), "{report}");
    assert!(
        report.contains("survivors: 2 equivalent, 4 stimulus gap, 0 not classified"),
        "{report}"
    );
    assert!(report.contains("baseline: 3 of 3 seeds clean and consistent"));
    let row = |name: &str| catalogue_row(&report, name);
    assert!(row("CH-3").contains("killed"), "{}", row("CH-3"));
    // every survivor the report lists has a class
    let classes =
        std::fs::read_to_string(stand_in::repo().join("docs/campaign-chi-o3/survivors.toml"))
            .unwrap();
    let ids: Vec<&str> = classes
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.strip_suffix(']'))
        .collect();
    assert_eq!(ids.len(), 6, "{classes}");
    for id in ids {
        let line = report
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(id) || !l.contains(".sm:"))
            .nth(1)
            .unwrap_or_else(|| panic!("{id} is not a listed survivor"));
        assert!(
            line.trim_start().starts_with("equivalent: ")
                || line.trim_start().starts_with("stimulus gap: "),
            "{id}: {line}"
        );
    }
}

/// A committed campaign's `report.txt` (`dir` under the repository).
/// The mutant ids a committed campaign's survivors.toml classifies.
fn classified_survivors(dir: &str) -> Vec<String> {
    std::fs::read_to_string(stand_in::repo().join(dir).join("survivors.toml"))
        .unwrap()
        .lines()
        .filter_map(|l| Some(l.strip_prefix('[')?.strip_suffix(']')?.to_string()))
        .collect()
}

/// A committed campaign's classified survivors are the report's survivors,
/// no more: `n` of them, none of the mutants memconform alone killed, and
/// no class left over for a mutant that no longer survives.
fn assert_classified_are_the_survivors(
    dir: &str,
    report: &str,
    memconform_only: &std::collections::BTreeSet<String>,
    n: usize,
) {
    let classified = classified_survivors(dir);
    assert_eq!(classified.len(), n, "{classified:?}");
    for id in memconform_only {
        assert!(!classified.contains(id), "{id} killed but classified");
    }
    assert!(!report.contains("no longer survivors"), "{report}");
}

fn committed_report(dir: &str) -> String {
    std::fs::read_to_string(stand_in::repo().join(dir).join("report.txt")).unwrap()
}

/// The row of the catalogue mutant `name` in a campaign's report.
fn catalogue_row(report: &str, name: &str) -> String {
    report
        .lines()
        .find(|l| l.contains(&format!(" {name} ")))
        .unwrap_or_else(|| panic!("{name}: {report}"))
        .to_string()
}

/// Checks a committed campaign's kill matrix against itself: each run's
/// outcome against its verdicts and exit, each mutant's status against its
/// runs, memconform-only exactly where gem5 ended cleanly and a model was
/// violated; its plots draw. Returns its Tier-1 mutants, catalogue names and
/// memconform-only mutants.
fn committed_campaign(
    dir: &str,
) -> (
    std::collections::BTreeSet<String>,
    std::collections::BTreeSet<String>,
    std::collections::BTreeSet<String>,
) {
    use std::collections::{BTreeMap, BTreeSet};
    let path = stand_in::repo().join(dir).join("kill-matrix.csv");
    let mut r = csv::Reader::from_path(&path).unwrap();
    let head = r.headers().unwrap().clone();
    let col = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let models: Vec<String> = head.iter().collect::<Vec<_>>()
        [col("check_s") + 1..col("decided_by")]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(models.contains(&"sc".to_string()), "{models:?}");
    let mut outcomes: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let mut catalogue = BTreeSet::new();
    let mut tier1 = BTreeSet::new();
    let mut memconform_only = BTreeSet::new();
    for row in r.records() {
        let row = row.unwrap();
        let get = |n: &str| row[col(n)].to_string();
        let id = get("mutant_id");
        assert_eq!(get("variant"), id);
        if let Some((_, name)) = get("class").split_once("+catalogue:") {
            // (a campaign made before two names of one edit were joined by `=`)
            catalogue.insert(name.replace("+catalogue:", "="));
        }
        if get("class").starts_with("tier1") {
            tier1.insert(id.clone());
        }
        let entry = outcomes
            .entry(id.clone())
            .or_insert_with(|| (get("status"), Vec::new()));
        assert_eq!(entry.0, get("status"), "{id}: one status per mutant");
        if get("seed").is_empty() {
            continue; // unviable or not covered: no run
        }
        let (outcome, exit) = (get("outcome"), get("exit_kind"));
        // a follow-up run (§11b) that did not kill leaves a survivor one,
        // whatever it ended in: its clean protocol's run ended so too
        let follow_up = head
            .iter()
            .position(|h| h == "stimulus")
            .is_some_and(|k| row[k].contains("+follow-up:"));
        let violated: Vec<&String> = models.iter().filter(|m| get(m) == "violation").collect();
        match outcome.strip_prefix("violation:") {
            Some(m) => {
                assert!(
                    violated.iter().any(|v| *v == m),
                    "{id}: {outcome} {violated:?}"
                );
                assert_eq!(get("decided_by"), m, "{id}");
            }
            None => {
                assert!(violated.is_empty(), "{id}: {outcome} but {violated:?}");
                let expect = if exit == "clean" {
                    "survived"
                } else {
                    exit.as_str()
                };
                // a clean run memconform could not decide is `unknown`
                assert!(
                    outcome == expect || outcome == "unknown",
                    "{id}: {outcome} / {exit}"
                );
            }
        }
        assert_eq!(
            get("memconform_only") == "true",
            exit == "clean" && outcome.starts_with("violation:"),
            "{id}"
        );
        if get("memconform_only") == "true" {
            memconform_only.insert(id.clone());
        }
        if follow_up && matches!(outcome.as_str(), "unknown" | "timeout") {
            entry.1.push("survived".to_string());
        } else {
            entry.1.push(outcome);
        }
    }
    for (id, (status, runs)) in &outcomes {
        let kills = runs
            .iter()
            .filter(|o| !matches!(o.as_str(), "survived" | "unknown" | "timeout"))
            .count();
        let derived = if runs.is_empty() {
            status.as_str() // unviable, no_coverage: no run to say otherwise
        } else if status == "unviable" && runs.len() == 1 && runs[0] == "crash" {
            // a configuration mutant whose one run stopped before simulating
            // (the parameter names no object of this system): no kill
            "unviable"
        } else if kills > 0 {
            // the seeds stop at the first kill
            assert_eq!(kills, 1, "{id}: {runs:?}");
            assert!(!runs.last().unwrap().starts_with("surv"), "{id}: {runs:?}");
            "killed"
        } else if runs.iter().any(|o| o == "timeout") {
            "timeout"
        } else if runs.iter().any(|o| o == "unknown") {
            "unknown"
        } else {
            "survived"
        };
        assert_eq!(status, derived, "{id}: {runs:?}");
    }
    for kind in ["kill-by-operator", "seeds-to-kill"] {
        let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(["plot", "--kind", kind])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("<svg"),
            "{kind}"
        );
    }
    (tier1, catalogue, memconform_only)
}

/// Waits (at most two minutes) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !done() {
        assert!(t.elapsed().as_secs() < 120, "waited two minutes for {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The files under `dir` (recursively) whose names end in `.tmp`.
fn temporaries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                // the slots are gem5 trees: not the campaign's outputs
                if p.file_name().is_some_and(|n| n != "slots") {
                    todo.push(p);
                }
            } else if p.to_string_lossy().ends_with(".tmp") {
                out.push(p);
            }
        }
    }
    out
}

/// One runner per shard (docs/design/campaigns.md §6, item 7). A second `mutate run` of the
/// same campaign is refused (exit 7, naming the first's pid) while the
/// first runs, and so is one with another shard count; SIGTERM stops the
/// first after its runs in flight (exit 143) with a whole event log and no
/// temporary file; a runner killed outright (SIGKILL) holds nothing: the
/// next one takes the shard and finishes, each mutant done once.
#[test]
fn one_runner_per_shard_refused_while_held_and_resumed_after_a_kill() {
    let (base, root) = fresh("campaign-lock");
    let mutants = four_mutants(&root);
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), mutants.clone()).unwrap();
    let bin = env!("CARGO_BIN_EXE_memconform");
    let spawn = || {
        Command::new(bin)
            .args(["mutate", "run"])
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let lock = dir.join("lock-0");
    let holds = |pid: u32| {
        std::fs::read_to_string(&lock).is_ok_and(|t| t.starts_with(&format!("pid {pid} on ")))
    };
    let log_lines = || {
        std::fs::read_to_string(dir.join("events-0.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();

    let first = spawn();
    wait_until("the first runner's lock", || holds(first.id()));
    let second = Command::new(bin)
        .args(["mutate", "run"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(7), "{}", stderr(&second));
    assert!(
        stderr(&second).contains(&format!("shard 0 of {}", dir.display()))
            && stderr(&second).contains(&format!("pid {}", first.id())),
        "{}",
        stderr(&second)
    );
    // shards of another count would run some of the same mutants
    let other = Command::new(bin)
        .args(["mutate", "run", "--shard", "1/2"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(7), "{}", stderr(&other));
    assert!(
        stderr(&other).contains("another shard count")
            && stderr(&other).contains(&format!("pid {}", first.id())),
        "{}",
        stderr(&other)
    );

    // SIGTERM (Slurm at a time limit, `timeout`): stops after the runs in
    // flight, every event whole, no temporary file
    wait_until("the baseline's events", || log_lines() >= 1);
    let sent = Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(stderr(&o).contains("SIGTERM: stopping"), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.join("events-0.jsonl")).unwrap();
    for line in text.lines() {
        serde_json::from_str::<Event>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));

    // a runner killed outright, mid-run
    let before = log_lines();
    let mut third = spawn();
    wait_until("the third runner's lock", || holds(third.id()));
    wait_until("a step of the third runner", || log_lines() > before);
    third.kill().unwrap(); // SIGKILL
    third.wait().unwrap();

    // nothing to clear: the next runner takes the shard and finishes
    let last = Command::new(bin)
        .args(["mutate", "run"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(last.status.code(), Some(0), "{}", stderr(&last));
    let events = c.events().unwrap();
    for m in &mutants {
        let done = events
            .iter()
            .filter(|e| matches!(e, Event::MutantDone { mutant, .. } if *mutant == m.id))
            .count();
        assert_eq!(done, 1, "{}", m.site);
    }
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&mutants[0].id], Status::Killed);
    assert_eq!(s.status[&mutants[1].id], Status::Survived);
    let _ = std::fs::remove_dir_all(&base);
}

/// The library's runner takes the same lock: a second run of a held shard
/// in this process is an error naming the holder, and the lock ends with
/// its holder.
#[test]
fn a_held_shard_lock_refuses_a_second_taker_until_dropped() {
    use memconform::mutate::campaign::{LockError, ShardLock};
    let (base, root) = fresh("campaign-lock-lib");
    let c = Campaign::init(&base.join("c"), settings(&root), four_mutants(&root)).unwrap();
    let held = ShardLock::take(&c, (0, 2)).unwrap();
    match ShardLock::take(&c, (0, 2)) {
        Err(LockError::Busy(why)) => {
            assert!(
                why.contains(&format!("pid {}", std::process::id())),
                "{why}"
            )
        }
        other => panic!("{:?}", other.map(|l| l.path)),
    }
    // another shard of the same count runs beside it; another count not
    let beside = ShardLock::take(&c, (1, 2)).unwrap();
    match ShardLock::take(&c, (2, 3)) {
        Err(LockError::Busy(why)) => assert!(why.contains("another shard count"), "{why}"),
        other => panic!("{:?}", other.map(|l| l.path)),
    }
    assert!(stand_in::try_run_all(&c)
        .unwrap_err()
        .0
        .contains("being run by"));
    drop((held, beside));
    assert!(ShardLock::take(&c, (0, 1)).is_ok());
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_run_watched_is_stopped_at_its_violation_and_not_counted_memconform_only() {
    let (base, root) = fresh("campaign-stop");
    // MI-5 replays its real run; then this "gem5" would go on for minutes
    let mi5 = mutant(
        &root,
        "ADS",
        "    out_msg.DataBlk := in_msg.DataBlk;",
        "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
    );
    let mut s = settings(&root);
    s.stop_at_violation = true;
    s.seeds = vec![1];
    s.run_timeout_s = Some(600);
    s.run = "{gem5} -d {outdir} --seed {seed}; [ {mutant} = baseline ] || exec sleep 600".into();
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, s, vec![mi5.clone()]).unwrap();
    run_all(&c);
    let state = State::of(&c).unwrap();
    assert_eq!(state.status[&mi5.id], Status::Killed);
    let run = &state.runs[&mi5.id][&1];
    assert_eq!(run.exit_kind, campaign::ExitKind::Stopped, "{run:?}");
    assert!(run.outcome.starts_with("violation:"), "{run:?}");
    assert!(!memconform::mutate::report::memconform_only(run));
    let log = std::fs::read_to_string(dir.join("runs").join(&mi5.id).join("s1/run.log"))
        .unwrap_or_default();
    assert!(log.contains("memconform: stopped at a violation"), "{log}");
    // the baseline ran to its end, unwatched
    let baseline = c
        .events()
        .unwrap()
        .into_iter()
        .find_map(|e| match e {
            Event::Baseline { run, .. } => Some(run),
            _ => None,
        })
        .unwrap();
    assert_eq!(baseline.exit_kind, campaign::ExitKind::Clean);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn baseline_seeds_run_side_by_side_and_are_logged_in_seed_order() {
    let (base, root) = fresh("campaign-baseline-j");
    let mut s = settings(&root);
    s.seeds = vec![3, 1, 2];
    let dir = base.join("campaign");
    let survivor = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    let c = Campaign::init(&dir, s, vec![survivor.clone()]).unwrap();
    stand_in::run_on(&c, 2, 2);
    let seeds: Vec<u64> = c
        .events()
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            Event::Baseline { seed, run } => {
                assert_eq!(run.outcome, "survived", "seed {seed}: {run:?}");
                Some(seed)
            }
            _ => None,
        })
        .collect();
    assert_eq!(seeds, vec![3, 1, 2]);
    let state = State::of(&c).unwrap();
    assert_eq!(state.status[&survivor.id], Status::Survived);
    assert_eq!(state.runs[&survivor.id].len(), 3);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn with_all_seeds_a_mutants_seeds_run_on_the_cores_no_slot_holds() {
    let (base, root) = fresh("campaign-cores");
    let mut s = settings(&root);
    s.seeds = vec![1, 2, 3];
    s.all_seeds = true;
    let mi5 = mutant(
        &root,
        "ADS",
        "    out_msg.DataBlk := in_msg.DataBlk;",
        "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
    );
    let survivor = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, s, vec![mi5.clone(), survivor.clone()]).unwrap();
    // one slot, three cores: each mutant's three seeds side by side
    stand_in::run_on(&c, 1, 3);
    let state = State::of(&c).unwrap();
    assert_eq!(state.status[&mi5.id], Status::Killed);
    assert_eq!(state.status[&survivor.id], Status::Survived);
    for (m, outcome) in [(&mi5, "tester_check"), (&survivor, "survived")] {
        let runs = &state.runs[&m.id];
        assert_eq!(runs.keys().copied().collect::<Vec<_>>(), vec![1, 2, 3]);
        for r in runs.values() {
            assert!(
                r.outcome == outcome || r.outcome.starts_with("violation:"),
                "{}: {r:?}",
                m.site
            );
        }
    }
    // each mutant's runs are logged in seed order
    let seeds_of = |id: &str| -> Vec<u64> {
        c.events()
            .unwrap()
            .into_iter()
            .filter_map(|e| match e {
                Event::Ran { mutant, seed, .. } if mutant == id => Some(seed),
                _ => None,
            })
            .collect()
    };
    assert_eq!(seeds_of(&mi5.id), vec![1, 2, 3]);
    assert_eq!(seeds_of(&survivor.id), vec![1, 2, 3]);
    let _ = std::fs::remove_dir_all(&base);
}

/// With a spare core (`-j 2 --slots 1`), a slot builds the next mutant
/// while the last one's seeds run, from a copy of its binary: the next
/// mutant is built before the last one is done, every outcome is what one
/// mutant at a time gives, and the copies are gone afterwards. Without a
/// spare core, one mutant at a time.
#[test]
fn a_slot_with_a_spare_core_builds_the_next_mutant_while_the_last_one_runs() {
    let outcomes = |cores: usize, name: &str| {
        let (base, root) = fresh(name);
        let s = settings(&root);
        // the hanging mutant runs to its time limit (5 s a seed), the
        // others take a second or so
        let mutants = vec![
            mutant(&root, "ADS", "    go;", "    // [mutant] go;"),
            mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;"),
            mutant(
                &root,
                "ADS",
                "    out_msg.DataBlk := in_msg.DataBlk;",
                "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
            ),
        ];
        let dir = base.join("campaign");
        let c = Campaign::init(&dir, s, mutants).unwrap();
        assert_eq!(stand_in::run_on(&c, 1, cores), 3);
        let state = State::of(&c).unwrap();
        let status: Vec<(String, Status)> = c
            .mutants
            .iter()
            .map(|m| (m.site.clone(), state.status[&m.id]))
            .collect();
        // where each mutant's build and end fall in the log
        let events = c.events().unwrap();
        let at = |f: &dyn Fn(&Event) -> bool| events.iter().position(f).unwrap();
        let mut order: Vec<(usize, usize)> = c
            .mutants
            .iter()
            .map(|m| {
                (
                    at(&|e| matches!(e, Event::Built { mutant, .. } if *mutant == m.id)),
                    at(&|e| matches!(e, Event::MutantDone { mutant, .. } if *mutant == m.id)),
                )
            })
            .collect();
        // in the order the slot built them
        order.sort_unstable();
        let left: Vec<_> = std::fs::read_dir(dir.join("slots").join("0-0").join(".git"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("memconform-run-")
            })
            .collect();
        assert!(left.is_empty(), "binary copies left: {left:?}");
        let _ = std::fs::remove_dir_all(&base);
        (status, order)
    };
    let (one, serial) = outcomes(1, "campaign-overlap-1");
    let (two, overlapped) = outcomes(2, "campaign-overlap-2");
    assert_eq!(one, two, "the same outcomes either way");
    // one core: each mutant done before the next one is built
    for w in serial.windows(2) {
        assert!(w[0].1 < w[1].0, "{serial:?}");
    }
    // a spare core: some mutant built before the one before it was done
    assert!(
        overlapped.windows(2).any(|w| w[1].0 < w[0].1),
        "{overlapped:?}"
    );
}

/// Each `mutate run` is a session of the log (its lines carry their
/// times): its wall time, and what its slots spent building, running and
/// checking; the report prints them with the idle slot time.
#[test]
fn the_log_times_each_run_and_the_report_says_how_idle_the_slots_were() {
    let (base, root) = fresh("campaign-sessions");
    let s = settings(&root);
    let survivor = mutant(&root, "ADS", "    ++counter;", "    // [mutant] ++counter;");
    let mi5 = mutant(
        &root,
        "ADS",
        "    out_msg.DataBlk := in_msg.DataBlk;",
        "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
    );
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, s, vec![survivor, mi5]).unwrap();
    assert_eq!(stand_in::run_on(&c, 1, 1), 2);
    // a second run finds nothing left to do: a session of its own
    assert_eq!(stand_in::run_on(&c, 2, 2), 0);
    let sessions = c.sessions().unwrap();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let first = &sessions[0];
    assert_eq!((first.slots, first.cores), (1, 1));
    assert!(first.build_s > 0.0 && first.run_s > 0.0, "{first:?}");
    let busy = first.build_s + first.run_s + first.check_s;
    assert!(
        first.wall_s + 0.01 >= busy,
        "one slot: busy within the wall time {first:?}"
    );
    assert!((first.idle_s() - (first.wall_s - busy).max(0.0)).abs() < 1e-9);
    assert_eq!((sessions[1].slots, sessions[1].cores), (2, 2));
    let report = memconform::mutate::report::text(&State::of(&c).unwrap(), &c.survivors().unwrap());
    assert!(report.contains("time: 2 runs of `mutate run`"), "{report}");
    let _ = std::fs::remove_dir_all(&base);
}

/// Mutants added to a campaign that ran: only they run next, the baseline
/// and the finished mutants kept; an id it has is not added twice; adding
/// is refused while a runner holds a shard.
#[test]
fn mutants_added_later_run_alone_and_the_baseline_is_kept() {
    use memconform::mutate::campaign::ShardLock;
    let (base, root) = fresh("campaign-add");
    let all = four_mutants(&root);
    let dir = base.join("c");
    let c = Campaign::init(&dir, settings(&root), all[..2].to_vec()).unwrap();
    assert_eq!(run_all(&c), 2);
    let baseline = |c: &Campaign| {
        c.events()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, Event::Baseline { .. }))
            .count()
    };
    assert_eq!(baseline(&c), 2);

    // refused while a runner holds a shard, and nothing written
    let held = ShardLock::take(&c, (0, 1)).unwrap();
    let Err(err) = Campaign::add(&dir, all[2..].to_vec()) else {
        panic!("added while a runner holds the shard");
    };
    let err = err.to_string();
    assert!(err.contains("is being run by"), "{err}");
    assert_eq!(Campaign::open(&dir).unwrap().mutants.len(), 2);
    drop(held);

    // mutant 1 is there already: only 2 and 3 are added
    let (c, added) = Campaign::add(&dir, all[1..].to_vec()).unwrap();
    let mut want = vec![all[2].id.clone(), all[3].id.clone()];
    want.sort();
    let mut got = added.clone();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(c.mutants.len(), 4);
    for id in &added {
        assert!(dir.join("patches").join(format!("{id}.diff")).is_file());
    }
    let c = Campaign::open(&dir).unwrap();
    assert_eq!(run_all(&c), 2, "only the added mutants run");
    assert_eq!(baseline(&c), 2, "the baseline is not run again");
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&all[0].id], Status::Killed);
    assert_eq!(s.status[&all[2].id], Status::Unviable);
    assert_eq!(s.status[&all[3].id], Status::Timeout);
    let _ = std::fs::remove_dir_all(&base);
}

/// `mutate retry`: a mutant's end set aside is built and run again by the
/// next run, every seed, and no other mutant is; refused while a runner
/// holds a shard and for a mutant not done.
#[test]
fn a_retried_mutant_is_built_and_run_again_and_no_other() {
    use memconform::mutate::campaign::ShardLock;
    let (base, root) = fresh("campaign-retry");
    let all = four_mutants(&root);
    let dir = base.join("c");
    let c = Campaign::init(&dir, settings(&root), all.clone()).unwrap();
    assert_eq!(run_all(&c), 4);
    let before = State::of(&c).unwrap();
    assert_eq!(before.status[&all[0].id], Status::Killed);
    assert_eq!(before.status[&all[3].id], Status::Timeout);
    let built = |c: &Campaign, id: &str| {
        c.events()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, Event::Built { mutant, .. } if mutant == id))
            .count()
    };
    assert_eq!(built(&c, &all[0].id), 1);

    let held = ShardLock::take(&c, (0, 1)).unwrap();
    let Err(e) = Campaign::retry(&dir, &[], &[Status::Timeout]) else {
        panic!("retried while a runner holds the shard");
    };
    assert!(e.to_string().contains("is being run by"), "{e}");
    drop(held);

    // by status (the timeout) and by a prefix (the killed one)
    let again = Campaign::retry(&dir, &[all[0].id[..6].to_string()], &[Status::Timeout]).unwrap();
    let mut want = vec![
        (all[0].id.clone(), Status::Killed),
        (all[3].id.clone(), Status::Timeout),
    ];
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(again, want);
    let s = State::of(&c).unwrap();
    for m in [&all[0], &all[3]] {
        assert!(!s.status.contains_key(&m.id), "{} still done", m.id);
        assert!(!s.runs.contains_key(&m.id), "{} still has runs", m.id);
    }
    assert_eq!(s.status[&all[1].id], before.status[&all[1].id]);
    assert_eq!(s.runs[&all[1].id], before.runs[&all[1].id]);
    assert_eq!(built(&c, &all[0].id), 0, "its build is set aside");

    assert_eq!(run_all(&c), 2, "only the retried mutants run");
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&all[0].id], Status::Killed);
    assert_eq!(s.status[&all[3].id], Status::Timeout);
    let seeds = |s: &State, id: &str| s.runs[id].keys().copied().collect::<Vec<u64>>();
    assert_eq!(
        seeds(&s, &all[0].id),
        seeds(&before, &all[0].id),
        "the same seeds run again"
    );
    assert_eq!(built(&c, &all[0].id), 1);
    assert!(s.binary_checked > 0 && s.foreign_binary.is_empty());
    // the raw log keeps every line: two builds, a retry between
    let log = std::fs::read_to_string(dir.join("events-0.jsonl")).unwrap();
    let id0 = format!("\"mutant\":\"{}\"", all[0].id);
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(&id0)).collect();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("\"event\":\"built\""))
            .count(),
        2
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("\"event\":\"retry\""))
            .count(),
        1
    );

    // a mutant not done, and a name of none, are refused
    let Err(e) = Campaign::retry(&dir, &["zzzz".to_string()], &[]) else {
        panic!("retried a mutant the campaign has not");
    };
    assert!(e.to_string().contains("no mutant of this campaign"), "{e}");
    let out = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["mutate", "retry"])
        .arg(&dir)
        .args(["--status", "lost"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`lost` is no status"), "{err}");
    let _ = std::fs::remove_dir_all(&base);
}

/// A mutant's run stopped part way starts again from its patch: the new
/// build's runs supersede the stopped attempt's (a seed that survived then
/// is not shown beside the kill of its run again), while a survivor built
/// again for its follow-up runs keeps its seeds' runs. A run that started
/// another binary than its mutant's build is named.
#[test]
fn a_stopped_attempts_runs_are_superseded_by_the_next_build() {
    let (base, root) = fresh("campaign-attempts");
    let all = four_mutants(&root);
    let dir = base.join("c");
    let c = Campaign::init(&dir, settings(&root), all.clone()).unwrap();
    let (a, b) = (&all[0].id, &all[1].id);
    let built = |m: &str| format!(r#"{{"event":"built","mutant":"{m}","ok":true,"wall_s":1.0}}"#);
    let ran = |m: &str, seed: u64, outcome: &str, exit: &str| {
        format!(
            r#"{{"event":"ran","mutant":"{m}","run":{{"check_error":"","check_s":0.0,"decided_by":"","exit_code":0,"exit_kind":"{exit}","outcome":"{outcome}","pattern":"","run_s":1.0,"verdicts":{{}}}},"seed":{seed}}}"#
        )
    };
    let done =
        |m: &str, st: &str| format!(r#"{{"event":"mutant_done","mutant":"{m}","status":"{st}"}}"#);
    let lines = [
        // a: seeds 1 and 2 survive, the run stops; built again, seed 1 kills
        built(a),
        ran(a, 1, "survived", "clean"),
        ran(a, 2, "survived", "clean"),
        built(a),
        ran(a, 1, "deadlock", "deadlock"),
        done(a, "killed"),
        // b: survives seed 1, built again for a follow-up run
        built(b),
        ran(b, 1, "survived", "clean"),
        done(b, "survived"),
        built(b),
        ran(b, 1_099_511_627_776, "survived", "clean"),
        done(b, "survived"),
    ];
    // c: built with one binary, its run started another
    let d = &all[2].id;
    let mut lines = lines.to_vec();
    lines.push(format!(
        r#"{{"event":"built","mutant":"{d}","ok":true,"wall_s":1.0,"binary_sha256":"aa"}}"#
    ));
    lines.push(ran(d, 1, "survived", "clean").replace(
        r#""verdicts":{}}"#,
        r#""verdicts":{},"binary_sha256":"bb"}"#,
    ));
    lines.push(ran(d, 2, "survived", "clean").replace(
        r#""verdicts":{}}"#,
        r#""verdicts":{},"binary_sha256":"aa"}"#,
    ));
    lines.push(done(d, "survived"));
    std::fs::write(dir.join("events-0.jsonl"), lines.join("\n") + "\n").unwrap();
    let s = State::of(&c).unwrap();
    assert_eq!(s.binary_checked, 2);
    assert_eq!(s.foreign_binary, vec![(d.clone(), 1)]);
    assert_eq!(s.runs[a].keys().copied().collect::<Vec<_>>(), vec![1]);
    assert_eq!(s.runs[a][&1].outcome, "deadlock");
    assert_eq!(
        s.runs[b].keys().copied().collect::<Vec<_>>(),
        vec![1, 1_099_511_627_776]
    );
    let _ = std::fs::remove_dir_all(&base);
}

// ---------------------------------------------------------------------
// No process outlives its command ("Trust, round 3", class 6).

/// The process group of `pid` and whether it is a zombie (/proc).
fn proc_stat(pid: i32) -> Option<(i32, bool)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
    Some((f.get(2)?.parse().ok()?, f.first() == Some(&"Z")))
}

/// The live processes of group `group`, after waiting up to 5 s for none.
fn group_left(group: i32) -> Vec<i32> {
    let t = std::time::Instant::now();
    loop {
        let left: Vec<i32> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|&p| proc_stat(p).is_some_and(|(g, z)| g == group && !z))
            .collect();
        if left.is_empty() || t.elapsed().as_secs() >= 5 {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A campaign's run that starts children in the background (one ignoring
/// SIGTERM) and goes on: SIGTERM then SIGKILL to the runner's group (as
/// `timeout -k` sends) leaves no process of the run's group. A run that
/// ends leaving a child has it stopped, and its log says so.
#[test]
fn a_runs_process_group_goes_with_its_runner_and_its_run() {
    use std::os::unix::process::CommandExt;
    let (base, root) = fresh("campaign-groups");
    let pidfile = base.join("pid");
    let mut s = settings(&root);
    s.seeds = vec![1];
    s.run = format!(
        "echo $$ > {p}.tmp; sleep 1000 & (trap '' TERM; exec sleep 1000) & mv {p}.tmp {p}; exec sleep 1000",
        p = pidfile.display()
    );
    let dir = base.join("campaign");
    Campaign::init(&dir, s, Vec::new()).unwrap();
    let runner = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["mutate", "run"])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut runner = runner;
    wait_until("the run's start", || pidfile.is_file());
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let (group, _) = proc_stat(pid).unwrap();
    wait_until("the run's children", || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|&p| proc_stat(p).is_some_and(|(g, _)| g == group))
            .count()
            >= 3
    });
    let own = nix::unistd::Pid::from_raw(runner.id() as i32);
    nix::sys::signal::killpg(own, nix::sys::signal::Signal::SIGTERM).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = nix::sys::signal::killpg(own, nix::sys::signal::Signal::SIGKILL);
    let _ = runner.wait();
    let left = group_left(group);
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(group),
        nix::sys::signal::Signal::SIGKILL,
    );
    assert!(left.is_empty(), "left running: {left:?}");

    // a run that ends and leaves a child behind
    let (base, root) = fresh("campaign-leaves");
    let bg = base.join("bg");
    let mut s = settings(&root);
    s.seeds = vec![1];
    s.run = format!("sleep 1000 & echo $! > {}; {}", bg.display(), s.run);
    let dir = base.join("campaign");
    Campaign::init(&dir, s, Vec::new()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["mutate", "run"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let child: i32 = std::fs::read_to_string(&bg)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        proc_stat(child).is_none_or(|(_, zombie)| zombie),
        "the run's background child {child} still runs"
    );
    let mut said = false;
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read(&p).is_ok_and(|b| {
                String::from_utf8_lossy(&b)
                    .contains("the command ended and left 1 process of its process group running")
            }) {
                said = true;
            }
        }
    }
    assert!(said, "no log says the child was stopped");
    let _ = std::fs::remove_dir_all(&base);
}

/// Trust, round 3, class 5: a campaign whose last event a crash tore, at
/// any byte, is still read (`status`, `report`: the torn event's mutant
/// pending) and resumed (the mutant run again, done once; the log whole).
#[test]
fn a_crash_at_any_byte_of_the_last_event_leaves_the_campaign_resumable_and_reportable() {
    let (base, root) = fresh("torn-log");
    // one survivor: a quick campaign whose last event is its MutantDone
    let m = four_mutants(&root).swap_remove(1);
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), vec![m.clone()]).unwrap();
    assert_eq!(run_all(&c), 1);
    let log = dir.join("events-0.jsonl");
    let whole = std::fs::read(&log).unwrap();
    let last = whole[..whole.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    assert!(String::from_utf8_lossy(&whole[last..]).contains("mutant_done"));
    let bin = env!("CARGO_BIN_EXE_memconform");
    // every cut inside the last event (not the whole file: that is done)
    for cut in last..whole.len() {
        std::fs::write(&log, &whole[..cut]).unwrap();
        let c = Campaign::open(&dir).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let s = State::of(&c).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(!s.status.contains_key(&m.id), "cut at {cut}: still done");
        let text = memconform::mutate::report::write_all(&s)
            .unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(
            text.contains("1 mutants, 0 done, 1 pending"),
            "cut at {cut}: {text}"
        );
        // the commands, at a few cuts (a process each)
        if cut == last || cut + 1 == whole.len() || cut == (last + whole.len()) / 2 {
            for command in ["status", "report"] {
                let o = Command::new(bin)
                    .args(["mutate", command, dir.to_str().unwrap()])
                    .output()
                    .unwrap();
                // 6: a mutant still pending, not an error
                assert_eq!(
                    o.status.code(),
                    Some(if command == "report" { 6 } else { 0 }),
                    "cut at {cut}: mutate {command}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
    // resumed from three cuts: the torn event's mutant runs again, once
    for cut in [last + 1, (last + whole.len()) / 2, whole.len() - 1] {
        std::fs::write(&log, &whole[..cut]).unwrap();
        let c = Campaign::open(&dir).unwrap();
        assert_eq!(run_all(&c), 1, "cut at {cut}");
        let bytes = std::fs::read(&log).unwrap();
        assert!(bytes.ends_with(b"\n"));
        let events = c.events().unwrap();
        let done = events
            .iter()
            .filter(|e| matches!(e, Event::MutantDone { mutant, .. } if *mutant == m.id))
            .count();
        assert_eq!(done, 1, "cut at {cut}");
        // every line of the log parses: nothing was glued to the torn bytes
        for (i, l) in bytes.split(|&b| b == b'\n').enumerate() {
            if !l.is_empty() {
                assert!(
                    serde_json::from_slice::<serde_json::Value>(l).is_ok(),
                    "cut at {cut}: line {} does not parse",
                    i + 1
                );
            }
        }
        assert_eq!(State::of(&c).unwrap().status[&m.id], Status::Survived);
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// A `mutate run` stopped between two baseline seeds: the next one runs
/// the seeds the baseline lacks, and only those, before any mutant (it
/// used to take the seeds logged as the whole baseline, so a mutant ran
/// only the stimuli whose baseline runs had happened to finish).
#[test]
fn a_baseline_stopped_part_way_runs_its_missing_seeds_on_resume() {
    let (base, root) = fresh("baseline-resume");
    let m = four_mutants(&root).swap_remove(1);
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), vec![m.clone()]).unwrap();
    assert_eq!(c.settings.seeds, [1, 2]);
    let stop = AtomicBool::new(false);
    let lines = std::sync::Mutex::new(Vec::new());
    let progress = |line: &str| {
        if line.starts_with("baseline seed 1:") {
            stop.store(true, Ordering::SeqCst);
        }
        lines.lock().unwrap().push(line.to_string());
    };
    let o = one_slot(&stop, &progress);
    assert_eq!(campaign::run(&c, &o).unwrap(), 0, "stopped in the baseline");
    let seeds = |c: &Campaign| -> Vec<u64> {
        c.events()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                Event::Baseline { seed, .. } => Some(*seed),
                _ => None,
            })
            .collect()
    };
    assert_eq!(seeds(&c), [1], "one seed logged when stopped");
    stop.store(false, Ordering::SeqCst);
    let progress = |line: &str| lines.lock().unwrap().push(line.to_string());
    let o = one_slot(&stop, &progress);
    let c = Campaign::open(&dir).unwrap();
    assert_eq!(campaign::run(&c, &o).unwrap(), 1);
    assert_eq!(seeds(&c), [1, 2], "seed 2 run on resume, seed 1 not again");
    let said = lines.lock().unwrap().join("\n");
    assert!(
        said.contains("baseline: 1 of 2 seeds logged; running the rest (2)"),
        "{said}"
    );
    // the survivor ran both seeds against a whole baseline
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&m.id], Status::Survived);
    assert_eq!(
        s.runs[&m.id].keys().copied().collect::<Vec<_>>(),
        [1, 2],
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// A campaign outlives its machine by its event log alone: stopped after
/// one mutant, its directory is lost but for `events-0.jsonl` (kept in the
/// repository, say); `mutate init` with the same settings and mutants and
/// that log copied in, the next `mutate run` finishes the rest, runs no
/// finished mutant and no baseline seed again, and reports what one
/// uninterrupted run would.
#[test]
fn a_campaign_moved_by_its_event_log_resumes_where_it_stopped() {
    let (base, root) = fresh("moved");
    let mutants = four_mutants(&root);
    let first = base.join("first");
    let c = Campaign::init(&first, settings(&root), mutants.clone()).unwrap();
    // stopped when a second mutant begins: one slot, so the first is done
    let stop = AtomicBool::new(false);
    let seen = std::sync::Mutex::new(Vec::<String>::new());
    let progress = |line: &str| {
        let id = line.split(' ').next().unwrap_or("");
        if id.len() == 12 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut seen = seen.lock().unwrap();
            if !seen.iter().any(|s| s == id) {
                seen.push(id.to_string());
            }
            if seen.len() == 2 {
                stop.store(true, Ordering::SeqCst);
            }
        }
    };
    let o = one_slot(&stop, &progress);
    let done = campaign::run(&c, &o).unwrap();
    assert!(0 < done && done < mutants.len(), "stopped part way: {done}");
    // `mutate status` says the pace, and what is left at it
    let status = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["mutate", "status", first.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&status.stdout);
    let pending = mutants.len() - done;
    assert!(
        said.contains(&format!("pace: {done} done in "))
            && said.contains(&format!("left for the {pending} pending")),
        "{said}"
    );
    let log = std::fs::read(first.join("events-0.jsonl")).unwrap();
    std::fs::remove_dir_all(&first).unwrap();

    let moved = base.join("moved");
    let c = Campaign::init(&moved, settings(&root), mutants.clone()).unwrap();
    std::fs::write(moved.join("events-0.jsonl"), &log).unwrap();
    let c2 = Campaign::open(&moved).unwrap();
    assert_eq!(State::of(&c2).unwrap().status.len(), done);
    assert_eq!(run_all(&c), mutants.len() - done);
    let events = c.events().unwrap();
    for m in &mutants {
        let n = events
            .iter()
            .filter(|e| matches!(e, Event::MutantDone { mutant, .. } if *mutant == m.id))
            .count();
        assert_eq!(n, 1, "{}", m.site);
    }
    let baseline = events
        .iter()
        .filter(|e| matches!(e, Event::Baseline { .. }))
        .count();
    assert_eq!(baseline, 2, "the baseline's seeds are not run again");
    let s = State::of(&c).unwrap();
    assert_eq!(
        mutants.iter().map(|m| s.status[&m.id]).collect::<Vec<_>>(),
        [
            Status::Killed,
            Status::Survived,
            Status::Unviable,
            Status::Timeout
        ]
    );
    let text = memconform::mutate::report::write_all(&s).unwrap();
    assert!(text.contains("4 mutants, 4 done"), "{text}");
    let _ = std::fs::remove_dir_all(&base);
}

/// Trust, round 3, classes 2 and 8: `mutate report` never writes over
/// what it reads (a report file made a symlink to the mutants), and a seed
/// listed twice is refused, at init and in a hand-edited campaign.toml.
#[test]
fn the_report_never_overwrites_the_campaign_and_a_seed_twice_is_refused() {
    let (base, root) = fresh("report-guard");
    let mut twice = settings(&root);
    twice.seeds = vec![1, 2, 1];
    let e = Campaign::init(&base.join("twice"), twice, four_mutants(&root))
        .err()
        .expect("refused");
    assert!(e.to_string().contains("seed 1 given twice"), "{e}");
    let dir = base.join("campaign");
    Campaign::init(&dir, settings(&root), four_mutants(&root)).unwrap();
    let mutants = std::fs::read(dir.join("mutants.jsonl")).unwrap();
    std::os::unix::fs::symlink(dir.join("mutants.jsonl"), dir.join("report.txt")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["mutate", "report", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("one of the inputs"), "{e}");
    assert_eq!(std::fs::read(dir.join("mutants.jsonl")).unwrap(), mutants);
    // campaign.toml edited by hand: a seed twice
    let toml = dir.join("campaign.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let edited = text.replace(
        "seeds = [\n    1,\n    2,\n]",
        "seeds = [\n    1,\n    2,\n    2,\n]",
    );
    assert_ne!(edited, text, "{text}");
    std::fs::write(&toml, edited).unwrap();
    let e = Campaign::open(&dir).err().expect("refused");
    assert!(e.to_string().contains("seed 2 twice"), "{e}");
    let _ = std::fs::remove_dir_all(&base);
}

/// `mutate run --first`: the mutants named run before the others, in the
/// order given (by id, prefix); a name that is no mutant of the shard is
/// an error before anything runs.
#[test]
fn first_runs_the_mutants_named_before_the_others() {
    let (base, root) = fresh("campaign-first");
    let mutants = four_mutants(&root);
    let dir = base.join("campaign");
    let c = Campaign::init(&dir, settings(&root), mutants.clone()).unwrap();
    let mut by_id: Vec<&str> = mutants.iter().map(|m| m.id.as_str()).collect();
    by_id.sort();
    // the last two by id, last first (one by a 6-digit prefix)
    let wanted = [by_id[3].to_string(), by_id[2][..6].to_string()];
    let stop = AtomicBool::new(false);
    let progress = |line: &str| eprintln!("{line}");
    let o = |first: Vec<String>, shard: (usize, usize)| RunOptions {
        slots: 1,
        cores: 1,
        shard,
        slot_dir: None,
        first,
        stop: &stop,
        progress: &progress,
    };
    let e = campaign::run(&c, &o(vec!["ffffffff".into()], (0, 1))).unwrap_err();
    assert!(e.to_string().contains("no mutant of this campaign"), "{e}");
    let other = c.shard(1, 2)[0].id.clone();
    let e = campaign::run(&c, &o(vec![other.clone()], (0, 2))).unwrap_err();
    assert!(e.to_string().contains("not a mutant of shard 0/2"), "{e}");
    // refused before anything is logged or run
    assert!(c
        .events()
        .unwrap()
        .iter()
        .all(|e| !matches!(e, Event::MutantDone { .. } | Event::Started { .. })));

    assert_eq!(campaign::run(&c, &o(wanted.to_vec(), (0, 1))).unwrap(), 4);
    let order: Vec<String> = c
        .events()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            Event::MutantDone { mutant, .. } => Some(mutant.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(order, [by_id[3], by_id[2], by_id[0], by_id[1]]);
}
