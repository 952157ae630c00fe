//! `memconform stimulus`: the search over a run command's knobs
//! (docs/design/campaigns.md §11), over a stand-in for gem5 on the Toyco
//! protocol (tests/data/stimulus/toyco-gem5.sh: which transitions a run
//! takes is a fixed function of its knobs and seed, written as gem5 writes
//! stats.txt), with Toyco's SLICC files (tests/data/slicc/toyco).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memconform_mutate::stimulus::{Space, Stimuli};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const RUN: &str = "sh tests/data/stimulus/toyco-gem5.sh -d {outdir} --shape {shape} \
                   --evict {evict} --cpus {cpus} --sharing {sharing} --seed {seed}";
const KNOBS: &str = "tests/data/stimulus/knobs.toml";

fn search(out: &Path, extra: &[&str]) -> Output {
    let out = out.to_string_lossy();
    let mut args = vec!["stimulus", &out, "--knobs", KNOBS, "--run", RUN];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(&args)
        .current_dir(repo())
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    common::temp_dir("stimulus", name)
}

/// The log's runs: (seed, knobs, transitions taken), times left out.
fn runs(dir: &Path) -> Vec<(u64, String, Vec<String>)> {
    std::fs::read_to_string(dir.join("search.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let fired = v["fired"]
                .as_array()
                .map(|a| a.iter().map(|t| t.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            (v["seed"].as_u64().unwrap(), v["knobs"].to_string(), fired)
        })
        .collect()
}

/// The transitions the stand-in takes when run by hand (not through the
/// search) with `knobs` and `seed`.
fn rerun(
    knobs: &std::collections::BTreeMap<String, String>,
    seed: u64,
    out: &Path,
) -> BTreeSet<String> {
    let mut c = Command::new("sh");
    c.arg(repo().join("tests/data/stimulus/toyco-gem5.sh"))
        .args(["-d", &out.to_string_lossy()]);
    for (k, v) in knobs {
        c.args([format!("--{k}"), v.clone()]);
    }
    let o = c.args(["--seed", &seed.to_string()]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    memconform_mutate::coverage::fired(&out.join("stats.txt")).unwrap()
}

/// The search takes every transition the stand-in can take (Toyco's 16
/// counted ones) within its runs, says so against the SLICC files, and its
/// stimuli, each run again by hand with its knobs and seed, take together
/// every transition the search's runs took.
#[test]
fn the_stimuli_take_again_every_transition_the_search_took() {
    let d = scratch("cover");
    let out = d.join("s");
    let o = search(
        &out,
        &[
            "--runs",
            "24",
            "-j",
            "2",
            "--protocol-dir",
            "tests/data/slicc/toyco",
            "--protocol",
            "Toyco",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("16/16 reachable transitions (100%), 16 declared"),
        "{stdout}"
    );
    let cov = std::fs::read_to_string(out.join("coverage.txt")).unwrap();
    assert!(cov.contains("not taken (0)"), "{cov}");
    let all: BTreeSet<String> = runs(&out).into_iter().flat_map(|r| r.2).collect();
    assert_eq!(all.len(), 16);
    let text = std::fs::read_to_string(out.join("stimuli.toml")).unwrap();
    let stimuli = Stimuli::parse(&text, Path::new("stimuli.toml")).unwrap();
    assert!(stimuli.stimuli.len() < 24);
    let mut again = BTreeSet::new();
    for (i, k) in stimuli.stimuli.iter().enumerate() {
        let took = rerun(&k.knobs, k.seed, &d.join(format!("again{i}")));
        assert!(
            k.adds.iter().all(|t| took.contains(t)),
            "{}: {:?}",
            k.name,
            k.adds
        );
        again.extend(took);
    }
    assert_eq!(again, all);
    // each run kept small: the kept runs' table is the runs' table
    let kept = |dir: &str| -> Vec<String> {
        let mut v: Vec<String> = (1..=24)
            .map(|r| out.join(dir).join(format!("r{r}")).display().to_string())
            .collect();
        v.extend(["--protocol-dir".into(), "tests/data/slicc/toyco".into()]);
        v
    };
    let table = |args: Vec<String>| {
        let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
            .arg("coverage")
            .args(&args)
            .current_dir(repo())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let from_kept = table(kept("kept"));
    assert_eq!(from_kept, table(kept("runs")));
    assert!(from_kept.contains("all "), "{from_kept}");
    // the curve ends where the runs do
    let curve = std::fs::read_to_string(out.join("curve.csv")).unwrap();
    assert_eq!(curve.lines().count(), 25);
    assert!(curve.lines().last().unwrap().ends_with(",16,0"), "{curve}");
}

/// A search stopped after 5 runs (an odd count: its last batch of 2 is cut)
/// with a torn line at the end of its log, then taken on to 12, made the
/// runs one search of 12 makes: the log replays through the chooser.
#[test]
fn a_resumed_search_is_the_search_never_stopped() {
    let d = scratch("resume");
    let (a, b) = (d.join("a"), d.join("b"));
    assert!(search(&a, &["--runs", "5"]).status.success());
    assert_eq!(runs(&a).len(), 5);
    use std::io::Write;
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(a.join("search.jsonl"))
        .unwrap();
    log.write_all(b"{\"run\":6,\"se").unwrap();
    let o = search(&a, &["--runs", "12"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(search(&b, &["--runs", "12"]).status.success());
    assert_eq!(runs(&a), runs(&b));
    assert_eq!(runs(&a).len(), 12);
    // the random strategy too, and another chooser seed gives other settings
    let (c, e) = (d.join("c"), d.join("e"));
    assert!(search(&c, &["--runs", "6", "--strategy", "random"])
        .status
        .success());
    assert!(search(&e, &["--runs", "6", "--rng-seed", "2"])
        .status
        .success());
    assert_ne!(runs(&c), runs(&a)[..6]);
    assert_ne!(runs(&e), runs(&a)[..6]);
    // other settings on the same directory: refused, named
    let o = search(&a, &["--runs", "12", "--strategy", "random"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("other settings (the strategy)"),
        "{}",
        stderr(&o)
    );
}

/// With a target the search ends once a run takes it; a target no run can
/// take (a stall, which gem5 never counts) leaves the search at its budget
/// with exit status 1, naming it.
#[test]
fn a_target_ends_the_search_or_is_reported_untaken() {
    let d = scratch("target");
    let o = search(
        &d.join("t"),
        &["--runs", "60", "--target", "L1Cache.M.Evict"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = runs(&d.join("t"));
    assert!(r.len() < 60, "{} runs", r.len());
    let first = r
        .iter()
        .position(|x| x.2.iter().any(|t| t == "L1Cache.M.Evict"));
    // the batch that took it is the last (its partner may run after it)
    assert!(
        first.is_some_and(|i| i + 2 >= r.len()),
        "{first:?} of {}",
        r.len()
    );
    let o = search(
        &d.join("u"),
        &["--runs", "6", "--target", "L1Cache.IS.Load"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 1 targets not taken in 6 runs: L1Cache.IS.Load"));
    let o = search(&d.join("v"), &["--target", "L1Cache.IS"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Machine.State.Event"));
}

/// Bad input is an error with its place, and nothing runs.
#[test]
fn bad_knobs_and_templates_are_errors_with_their_place() {
    let d = scratch("bad");
    let knobs = d.join("k.toml");
    std::fs::write(&knobs, "[knobs]\nshape = [\"mix\", \"sb;rm\"]\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["stimulus", &d.join("s").to_string_lossy(), "--knobs"])
        .arg(&knobs)
        .args(["--run", "gem5 -d {outdir} --shape {shape}"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("k.toml:2:17: knob `shape`"),
        "{}",
        stderr(&o)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["stimulus", &d.join("s").to_string_lossy(), "--knobs", KNOBS])
        .args(["--run", "sh x.sh -d {outdir} --shape {shape}"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("knob `cpus` is not in the run template"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("s").join("runs").exists());
    let space = Space::parse(
        &std::fs::read_to_string(repo().join(KNOBS)).unwrap(),
        Path::new(KNOBS),
    );
    assert_eq!(space.unwrap().size(), 48);
    // the x86 O3 knobs gem5-configs/README.md starts a search with
    let f = "gem5-configs/knobs-se-o3.toml";
    let space = Space::parse(
        &std::fs::read_to_string(repo().join(f)).unwrap(),
        Path::new(f),
    );
    assert_eq!(space.unwrap().size(), 72_576);
}

mod common;
mod stand_in;

/// The two bundled clean MI_example runs the stand-in replays for
/// `--replay`: (2 CPUs, 4 CPUs). Only the first takes `L1Cache.M.Store`,
/// only the second `Directory.IM.GETX`.
fn clean_runs() -> (String, String) {
    let run = |name: &str| {
        repo()
            .join("tests/data/gem5/mi_example")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    (run("clean-n2-s1-rich"), run("clean-n4-s2"))
}

/// The knob space of the campaign tests: which clean run to replay.
fn replay_space(n2: &str, n4: &str) -> Space {
    Space {
        knobs: vec![memconform_mutate::stimulus::Knob {
            name: "replay".into(),
            values: vec![n2.to_string(), n4.to_string()],
        }],
        follow_up: Default::default(),
    }
}

/// A stimulus replaying `replay` with `seed`.
fn replaying(name: &str, seed: u64, replay: &str) -> memconform_mutate::stimulus::Stimulus {
    memconform_mutate::stimulus::Stimulus {
        name: name.into(),
        seed,
        knobs: [("replay".to_string(), replay.to_string())].into(),
        adds: Vec::new(),
    }
}

/// The run command of the follow-up tests: the clean run to replay and
/// the `fence` knob, given to the stand-in as a `--param`.
const FENCE_RUN: &str = "{gem5} -d {outdir} --seed {seed} --replay {replay} --param {fence}";

/// [`replay_space`] with a `fence` knob of `values` (the stand-in reads
/// `onedit` and `bugfence` as bugs a knob value shows).
fn fence_space(n2: &str, n4: &str, values: &[&str]) -> Space {
    let mut space = replay_space(n2, n4);
    space.knobs.push(memconform_mutate::stimulus::Knob {
        name: "fence".into(),
        values: values.iter().map(|v| v.to_string()).collect(),
    });
    space
}

/// A stimulus replaying `replay` with `seed` and `fence = none`.
fn with_fence(name: &str, seed: u64, replay: &str) -> memconform_mutate::stimulus::Stimulus {
    let mut k = replaying(name, seed, replay);
    k.knobs.insert("fence".into(), "none".into());
    k
}

/// An observer-only mutant (it survives) named `op`, reached by `fires`.
fn observer(root: &Path, op: &str, fires: &str) -> memconform::mutate::Mutant {
    let mut m = stand_in::mutant(root, op, "    ++counter;", "    // [mutant] ++counter;");
    m.fires = Some(vec![fires.to_string()]);
    m
}

/// MI-5 (the write-back's data copy deleted: the stand-in replays the real
/// MI-5 run), reached by `Directory.IM.GETX`.
fn mi5(root: &Path) -> memconform::mutate::Mutant {
    let mut m = stand_in::mutant(
        root,
        "ADS",
        "    out_msg.DataBlk := in_msg.DataBlk;",
        "    // [mutant] out_msg.DataBlk := in_msg.DataBlk;",
    );
    m.fires = Some(vec!["Directory.IM.GETX".into()]);
    m
}

/// A campaign with two stimuli (the stand-in gem5 replaying two real clean
/// MI_example runs that take different transitions): each mutant runs only
/// the seed whose baseline run took one of its transitions; a mutant whose
/// transitions neither took is `unreached`, with the closest attempt, in
/// the report and in unreached.txt. Without stimuli the same mutant is
/// `no_coverage`.
#[test]
fn a_campaign_runs_each_mutant_on_the_stimuli_that_reach_it() {
    use memconform::mutate::campaign::{Campaign, State, Status};
    let (base, root) = stand_in::fresh("stimuli-campaign");
    let (n2, n4) = clean_runs();
    let stimuli = Stimuli {
        space: replay_space(&n2, &n4),
        stimuli: vec![replaying("k1", 5, &n2), replaying("k2", 8, &n4)],
    };
    // through the file, as `mutate init --stimuli` reads it
    let text = stimuli.to_toml();
    let read = Stimuli::parse(&text, Path::new("stimuli.toml")).unwrap();
    let mut s = stand_in::settings(&root);
    s.run = "{gem5} -d {outdir} --seed {seed} --replay {replay}".into();
    s.seeds = vec![5, 8];
    s.stimuli = read.stimuli;
    // observer-only edits (they survive) that only k1's run reaches, only
    // k2's, or neither; MI-5 reached by k2 only
    let only_k1 = observer(&root, "ADS", "L1Cache.M.Store");
    let only_k2 = observer(&root, "ADS2", "Directory.IM.GETX");
    let neither = observer(&root, "ADS3", "L1Cache.M.Nope");
    let mi5 = mi5(&root);
    let mutants = vec![
        only_k1.clone(),
        only_k2.clone(),
        neither.clone(),
        mi5.clone(),
    ];
    let c = Campaign::init(&base.join("camp"), s.clone(), mutants.clone()).unwrap();
    let c = Campaign::open(&c.dir).unwrap();
    assert_eq!(c.settings.stimuli.len(), 2);
    stand_in::run_all(&c);
    let st = State::of(&c).unwrap();
    let seeds = |m: &memconform::mutate::Mutant| {
        st.runs
            .get(&m.id)
            .map(|r| r.keys().copied().collect::<Vec<_>>())
    };
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    assert_eq!(seeds(&only_k1), Some(vec![5]));
    assert_eq!(st.status[&only_k2.id], Status::Survived);
    assert_eq!(seeds(&only_k2), Some(vec![8]));
    assert_eq!(st.status[&mi5.id], Status::Killed);
    assert_eq!(seeds(&mi5), Some(vec![8]));
    assert_eq!(st.status[&neither.id], Status::Unreached);
    assert_eq!(seeds(&neither), None);
    let note = &st.notes[&neither.id];
    assert!(
        note.starts_with("unreached: no stimulus's baseline run takes L1Cache.M.Nope; closest: k"),
        "{note}"
    );
    let report = memconform::mutate::report::write_all(&st).unwrap();
    assert!(report.contains("unreached 1;"), "{report}");
    assert!(report.contains("coverage, seed 8 (k2: replay="), "{report}");
    assert!(
        report.contains(&format!("  {} ADS3: unreached", neither.id)),
        "{report}"
    );
    let listed = std::fs::read_to_string(c.dir.join("unreached.txt")).unwrap();
    assert!(
        listed.starts_with(&format!("{}\tunreached: ", neither.id)),
        "{listed}"
    );
    // the kill matrix names the stimulus of each run: MI-5 killed by k2
    let km = kill_matrix_rows(&c.dir.join("kill-matrix.csv"));
    let mi5_row = km.iter().find(|r| r["mutant_id"] == mi5.id).unwrap();
    assert_eq!(mi5_row["seed"], "8");
    assert_eq!(mi5_row["stimulus"], format!("k2: replay={n4}"));
    assert_eq!(mi5_row["status"], "killed");

    // the same campaign without stimuli: every clean seed runs, and the
    // mutant no seed reaches is no_coverage
    let mut plain = s;
    plain.stimuli.clear();
    plain.run = format!("{{gem5}} -d {{outdir}} --seed {{seed}} --replay {n2}");
    let c = Campaign::init(
        &base.join("plain"),
        plain,
        vec![neither.clone(), only_k1.clone()],
    )
    .unwrap();
    stand_in::run_all(&c);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&neither.id], Status::NoCoverage);
    assert_eq!(
        st.runs[&only_k1.id].keys().copied().collect::<Vec<_>>(),
        vec![5, 8]
    );
}

/// The rows of a kill matrix, by column name.
fn kill_matrix_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            head.iter()
                .cloned()
                .zip(rec.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

/// With `reach_runs`, a mutant no stimulus reaches is searched for: clean
/// runs of the baseline's binary over the stimuli's knobs until one takes
/// its transitions. Here the one stimulus replays the 2-CPU run; MI-5's
/// counter (`Directory.IM.GETX`) is taken only by the 4-CPU run, which the
/// search finds, and MI-5 is then run (and killed) with that setting and
/// seed alone. A transition no setting takes stays `unreached`, its note
/// saying the search failed too. A later mutant of the same transition
/// needs no search of its own: the earlier search's run is its stimulus.
#[test]
fn a_search_reaches_a_mutant_no_stimulus_reaches_and_runs_it_there() {
    use memconform::mutate::campaign::{Campaign, State, Status};
    let (base, root) = stand_in::fresh("stimuli-reach");
    let (n2, n4) = clean_runs();
    let mut s = stand_in::settings(&root);
    s.run = "{gem5} -d {outdir} --seed {seed} --replay {replay}".into();
    s.seeds = vec![5];
    s.stimuli = vec![replaying("k1", 5, &n2)];
    s.knobs = Some(replay_space(&n2, &n4));
    s.reach_runs = 4;
    let mi5 = mi5(&root);
    let neither = observer(&root, "ADS3", "L1Cache.M.Nope");
    let only_k1 = observer(&root, "ADS", "L1Cache.M.Store");
    let also = observer(&root, "ADS2", "Directory.IM.GETX");
    let mutants = vec![mi5.clone(), neither.clone(), only_k1.clone(), also.clone()];
    let c = Campaign::init(&base.join("camp"), s, mutants).unwrap();
    let c = Campaign::open(&c.dir).unwrap();
    assert_eq!(c.settings.reach_runs, 4);
    stand_in::run_all(&c);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&mi5.id], Status::Killed);
    let (runs, found) = &st.reached[&mi5.id];
    let k = found.as_ref().expect("the search found the 4-CPU run");
    assert!(*runs <= 4 && k.seed > 5, "{runs} runs, seed {}", k.seed);
    assert_eq!(k.knobs["replay"], n4);
    assert_eq!(k.adds, ["Directory.IM.GETX"]);
    assert_eq!(
        st.runs[&mi5.id].keys().copied().collect::<Vec<_>>(),
        vec![k.seed]
    );
    assert_eq!(st.status[&neither.id], Status::Unreached);
    assert_eq!(st.reached[&neither.id], (4, None));
    let note = &st.notes[&neither.id];
    assert!(note.contains("nor did a search of 4 clean runs"), "{note}");
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    assert!(!st.reached.contains_key(&only_k1.id));
    // of MI-5 and `also` (one transition), the first searched found the
    // run the second needs: no run of its own (their order is their ids')
    let (also_runs, shared) = &st.reached[&also.id];
    let shared = shared.as_ref().expect("a search run");
    assert_eq!((shared.seed, &shared.knobs), (k.seed, &k.knobs));
    assert_eq!(runs.min(also_runs), &0, "{runs} and {also_runs} runs");
    assert!(runs.max(also_runs) > &0, "{runs} and {also_runs} runs");
    assert_eq!(st.status[&also.id], Status::Survived);
    assert_eq!(
        st.runs[&also.id].keys().copied().collect::<Vec<_>>(),
        vec![k.seed]
    );
    let report = memconform::mutate::report::write_all(&st).unwrap();
    assert!(
        report.contains("reached by a search (2 of 3 searched)"),
        "{report}"
    );
    // the kill matrix names the stimulus the search found for MI-5
    let km = kill_matrix_rows(&c.dir.join("kill-matrix.csv"));
    let row = km.iter().find(|r| r["mutant_id"] == mi5.id).unwrap();
    assert_eq!(row["seed"], k.seed.to_string());
    assert_eq!(
        row["stimulus"],
        format!("{}: replay={n4}", k.name),
        "{row:?}"
    );
    assert!(
        report.contains(&format!("  {} ADS: run {runs}, seed {}", mi5.id, k.seed)),
        "{report}"
    );
}

/// Follow-up runs (docs/design/campaigns.md §11b): a survivor of its
/// stimuli runs them again with the knob space's follow-up values set over
/// them. The stand-in gem5 replays the MI-5 run for `--param onedit` in a
/// build whose counter line is edited (the observers), so the knob value
/// `fence = onedit` stands for one that shows a bug its stimulus
/// (`fence = none`) hid; `--param bugfence` replays it in every build, the
/// clean one too (a setting gem5 itself fails). A campaign begun without
/// follow-up runs leaves two observers surviving; `set_follow_up` owes them
/// runs, and the next run gives them those alone (their stimulus's seed is
/// not run again): killed by the first, once the clean protocol ran the
/// same knobs and seed clean, and named in the kill matrix. A run the
/// clean protocol fails too is no kill (`unknown`): the survivor gets every
/// run and stays a survivor; asking for more runs later adds only the
/// missing ones.
#[test]
fn follow_up_runs_kill_what_a_stimulus_hid_and_only_survivors_get_them() {
    use memconform::mutate::campaign::{follow_up_seed, Campaign, Event, State, Status};
    let (base, root) = stand_in::fresh("stimuli-follow-up");
    let (n2, n4) = clean_runs();
    let space = fence_space(&n2, &n4, &["none", "onedit", "bugfence"]);
    let mut s = stand_in::settings(&root);
    s.run = FENCE_RUN.into();
    s.seeds = vec![5, 8];
    s.stimuli = vec![with_fence("k1", 5, &n2), with_fence("k2", 8, &n4)];
    s.knobs = Some(space);
    let only_k1 = observer(&root, "ADS", "L1Cache.M.Store");
    let only_k2 = observer(&root, "ADS2", "Directory.IM.GETX");
    let neither = observer(&root, "ADS3", "L1Cache.M.Nope");
    let same = observer(&root, "ADS4", "L1Cache.M.Store");
    let mi5 = mi5(&root);
    let mutants = vec![
        only_k1.clone(),
        only_k2.clone(),
        neither.clone(),
        same.clone(),
        mi5.clone(),
    ];
    let c = Campaign::init(&base.join("camp"), s.clone(), mutants.clone()).unwrap();
    stand_in::run_all(&c);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    assert_eq!(st.status[&only_k2.id], Status::Survived);
    assert!(st.follow_ups.is_empty());
    // a survivor classified equivalent is owed nothing
    c.classify(
        &st,
        std::slice::from_ref(&same.id),
        Some(memconform::mutate::campaign::Classified {
            class: memconform::mutate::campaign::Class::Equivalent,
            reason: "the stand-in's counter is never read".into(),
        }),
    )
    .unwrap();

    // owed: 2 runs with fence=onedit; the next run kills both survivors
    // on their first follow-up run, from the stimulus that reached them
    let onedit = [("fence".to_string(), "onedit".to_string())].into();
    let e = Campaign::set_follow_up(&c.dir, 2, &[("fence".into(), "x".into())].into())
        .err()
        .unwrap();
    assert!(e
        .to_string()
        .contains("not one of the knob's values (none, onedit, bugfence)"));
    let c = Campaign::set_follow_up(&c.dir, 2, &onedit).unwrap();
    assert_eq!(c.settings.follow_up_runs, 2);
    let finished = stand_in::run_all(&c);
    assert_eq!(finished, 2, "the two survivors alone");
    let st = State::of(&c).unwrap();
    for (m, seed, from, replay) in [(&only_k1, 5, "k1", &n2), (&only_k2, 8, "k2", &n4)] {
        assert_eq!(st.status[&m.id], Status::Killed, "{}", m.op);
        let f0 = follow_up_seed(&m.id, 0);
        assert_eq!(
            st.runs[&m.id].keys().copied().collect::<Vec<_>>(),
            vec![seed, f0],
            "{}: the stimulus's seed once, then one follow-up run",
            m.op
        );
        let f = &st.follow_ups[&m.id][&f0];
        assert_eq!(f.from, from);
        assert_eq!(f.knobs["fence"], "onedit");
        assert_eq!(&f.knobs["replay"], replay);
        assert_eq!(f.clean.as_deref(), Some("survived"), "{}", m.op);
    }
    assert_eq!(st.status[&neither.id], Status::Unreached);
    assert!(!st.follow_ups.contains_key(&mi5.id));
    assert_eq!(st.status[&same.id], Status::Survived);
    assert!(!st.follow_ups.contains_key(&same.id));
    let report = memconform::mutate::report::write_all(&st).unwrap();
    assert!(
        report.contains("follow-up runs (2 survivors of their stimuli, 2 then killed)"),
        "{report}"
    );
    let km = kill_matrix_rows(&c.dir.join("kill-matrix.csv"));
    let f0 = follow_up_seed(&only_k1.id, 0).to_string();
    let row = km
        .iter()
        .find(|r| r["mutant_id"] == only_k1.id && r["seed"] == f0)
        .unwrap();
    assert_eq!(
        row["stimulus"],
        format!("k1+follow-up: fence=onedit replay={n2}")
    );
    assert_eq!(row["status"], "killed");

    // a value the clean protocol fails too: no kill, every run, still a
    // survivor; three runs asked for later add the third alone
    let mut quiet = s;
    quiet.follow_up_runs = 2;
    quiet.knobs.as_mut().unwrap().follow_up =
        [("fence".to_string(), "bugfence".to_string())].into();
    let c = Campaign::init(&base.join("quiet"), quiet, vec![only_k1.clone()]).unwrap();
    stand_in::run_all(&c);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    assert_eq!(st.follow_ups[&only_k1.id].len(), 2);
    for (seed, f) in &st.follow_ups[&only_k1.id] {
        let clean = f.clean.as_deref().unwrap_or("");
        assert!(clean.starts_with("violation:"), "{clean}");
        let run = &st.runs[&only_k1.id][seed];
        assert_eq!(run.outcome, "unknown");
        assert!(
            run.check_error
                .contains("the clean protocol's run of the same knobs and seed"),
            "{}",
            run.check_error
        );
    }
    let c = Campaign::set_follow_up(&c.dir, 3, &Default::default()).unwrap();
    assert_eq!(
        c.settings.knobs.as_ref().unwrap().follow_up["fence"],
        "bugfence"
    );
    assert_eq!(stand_in::run_all(&c), 1);
    let st = State::of(&c).unwrap();
    assert_eq!(
        st.follow_ups[&only_k1.id]
            .keys()
            .copied()
            .collect::<Vec<_>>(),
        (0..3)
            .map(|i| follow_up_seed(&only_k1.id, i))
            .collect::<Vec<_>>()
    );
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    // nothing owed now: a further run finishes nothing
    assert_eq!(stand_in::run_all(&c), 0);

    // a kill by a follow-up run with no clean run logged (a log of a
    // runner without the check) is no evidence: the run is made again,
    // then the clean one, which fails too: a survivor
    let killing = c_killed_run(&base.join("camp"), &only_k1.id);
    let mut plain = stand_in::settings(&root);
    plain.run = FENCE_RUN.into();
    plain.seeds = vec![5];
    plain.stimuli = vec![with_fence("k1", 5, &n2)];
    plain.knobs = Some(fence_space(&n2, &n4, &["none", "onedit", "bugfence"]));
    let c = Campaign::init(&base.join("unchecked"), plain, vec![only_k1.clone()]).unwrap();
    stand_in::run_all(&c);
    let f0 = follow_up_seed(&only_k1.id, 0);
    let mut lines = String::new();
    for e in [
        Event::FollowUp {
            mutant: only_k1.id.clone(),
            seed: f0,
            from: "k1".into(),
            knobs: [("fence".to_string(), "bugfence".to_string())].into(),
            clean: None,
        },
        Event::Ran {
            mutant: only_k1.id.clone(),
            seed: f0,
            run: killing,
        },
        Event::MutantDone {
            mutant: only_k1.id.clone(),
            status: Status::Killed,
            note: None,
        },
    ] {
        lines.push_str(&serde_json::to_string(&e).unwrap());
        lines.push('\n');
    }
    let log = c.dir.join("events-0.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(&lines);
    std::fs::write(&log, text).unwrap();
    assert_eq!(State::of(&c).unwrap().status[&only_k1.id], Status::Killed);
    let bugfence = [("fence".to_string(), "bugfence".to_string())].into();
    let c = Campaign::set_follow_up(&c.dir, 2, &bugfence).unwrap();
    assert_eq!(stand_in::run_all(&c), 1);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    let runs = &st.follow_ups[&only_k1.id];
    assert_eq!(runs.len(), 2);
    assert!(runs.values().all(|f| f.clean.is_some()), "{runs:?}");
    assert_eq!(st.runs[&only_k1.id][&f0].outcome, "unknown");
    // a run made again counts once: three asked for add the third
    let c = Campaign::set_follow_up(&c.dir, 3, &Default::default()).unwrap();
    assert_eq!(stand_in::run_all(&c), 1);
    let st = State::of(&c).unwrap();
    assert_eq!(st.follow_ups[&only_k1.id].len(), 3);
}

/// A configuration mutant sets its parameter in every run, so every
/// stimulus takes it: a survivor of them gets follow-up runs like any
/// survivor, from the stimuli in seed order (before, with no transition of
/// its own, it got none, and `mutate run` opened it again each time for
/// nothing). The stand-in shows `cfghide`'s bug only beside the knob value
/// `fence = onedit`, which no stimulus has and the follow-up runs set.
#[test]
fn a_configuration_survivor_gets_follow_up_runs_from_every_stimulus() {
    use memconform::mutate::campaign::{follow_up_seed, Campaign, State, Status};
    let (base, root) = stand_in::fresh("stimuli-follow-up-cfg");
    let (n2, n4) = clean_runs();
    let mut space = fence_space(&n2, &n4, &["none", "onedit"]);
    space.follow_up = [("fence".to_string(), "onedit".to_string())].into();
    let mut s = stand_in::settings(&root);
    s.run = FENCE_RUN.into();
    s.seeds = vec![8, 5];
    s.stimuli = vec![with_fence("k2", 8, &n4), with_fence("k1", 5, &n2)];
    s.knobs = Some(space);
    s.follow_up_runs = 2;
    let cfg = memconform::mutate::Mutant::config("system.hidden=cfghide").unwrap();
    let c = Campaign::init(&base.join("camp"), s, vec![cfg.clone()]).unwrap();
    assert_eq!(stand_in::run_all(&c), 1);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&cfg.id], Status::Killed, "{:?}", st.runs[&cfg.id]);
    let f0 = follow_up_seed(&cfg.id, 0);
    assert_eq!(
        st.follow_ups[&cfg.id].keys().copied().collect::<Vec<_>>(),
        vec![f0],
        "the first follow-up run kills"
    );
    let f = &st.follow_ups[&cfg.id][&f0];
    assert_eq!(f.from, "k1", "the stimuli in seed order");
    assert_eq!(f.knobs["fence"], "onedit");
    assert_eq!(f.clean.as_deref(), Some("survived"));
    assert!(st.runs[&cfg.id][&f0].kills());
    // nothing owed now: a further run finishes nothing
    assert_eq!(stand_in::run_all(&c), 0);
}

/// The killing run of `mutant` in the campaign at `dir`.
fn c_killed_run(dir: &Path, mutant: &str) -> memconform::mutate::campaign::Run {
    use memconform::mutate::campaign::{Campaign, Event};
    let c = Campaign::open(dir).unwrap();
    c.events()
        .unwrap()
        .into_iter()
        .find_map(|e| match e {
            Event::Ran { mutant: m, run, .. } if m == mutant && run.kills() => Some(run),
            _ => None,
        })
        .expect("a killing run")
}

/// Ctrl-C stops a search: the run in flight is killed (its process group)
/// and not logged, the exit status is 130, and the same command resumes to
/// the runs one uninterrupted search makes.
#[test]
fn an_interrupted_search_resumes() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let d = scratch("signal");
    let (a, b) = (d.join("a"), d.join("b"));
    // runs after the third sleep long enough to be interrupted
    let slow = "sh tests/data/stimulus/toyco-gem5.sh -d {outdir} --shape {shape} --evict {evict} \
                --cpus {cpus} --sharing {sharing} --seed {seed} && if [ {run} -gt 3 ]; then \
                sleep 30; fi";
    let child = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args([
            "stimulus",
            &a.to_string_lossy(),
            "--knobs",
            KNOBS,
            "--run",
            slow,
        ])
        .args(["--runs", "8", "--run-timeout", "60"])
        .current_dir(repo())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // wait for run 4 to start
    let t = std::time::Instant::now();
    while !a.join("runs/r4/run.log").exists() {
        assert!(t.elapsed().as_secs() < 30, "run 4 never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        t.elapsed().as_secs() < 20,
        "the sleeping run was not killed"
    );
    assert_eq!(runs(&a).len(), 3);
    assert!(!a.join("runs/r4").exists());
    // resumed with the fast template's equal: the runs' settings and seeds
    // are the search's, whatever the template runs
    std::fs::remove_file(a.join("search.toml")).unwrap();
    assert!(search(&a, &["--runs", "8"]).status.success());
    assert!(search(&b, &["--runs", "8"]).status.success());
    assert_eq!(runs(&a), runs(&b));
}

/// `mutate init --stimuli FILE [--reach N]`: the campaign's seeds are the
/// stimuli's, their knobs and the search's size are kept; a knob the run
/// template lacks, `--seeds` beside `--stimuli`, or `--reach` without it
/// are errors, and no campaign is made.
#[test]
fn mutate_init_takes_the_stimuli_and_checks_their_knobs() {
    use memconform::mutate::campaign::Campaign;
    let (base, root) = stand_in::fresh("stimuli-init");
    let data = repo().join("tests/data/slicc/toyco");
    for f in ["Toyco.slicc", "Toyco-cache.sm", "Toyco-dir.sm"] {
        std::fs::copy(data.join(f), root.join("src/mem/ruby/protocol").join(f)).unwrap();
    }
    stand_in::sh(
        &root,
        "git add -A && git -c user.name=t -c user.email=t@t commit -qm toyco",
    );
    let (n2, n4) = clean_runs();
    let file = base.join("stimuli.toml");
    let stimuli = Stimuli {
        space: replay_space(&n2, &n4),
        stimuli: vec![replaying("k1", 5, &n2), replaying("k2", 8, &n4)],
    };
    std::fs::write(&file, stimuli.to_toml()).unwrap();
    let root_s = root.to_string_lossy().into_owned();
    let file_s = file.to_string_lossy().into_owned();
    let init = |dir: &str, run: &str, extra: &[&str]| {
        let camp = base.join(dir).to_string_lossy().into_owned();
        let mut args = vec![
            "mutate",
            "init",
            &camp,
            "--gem5-root",
            &root_s,
            "--protocol",
            "Toyco",
            "--build",
            "sh build.sh",
            "--gem5",
            "build/TOY/gem5.opt",
            "--run",
            run,
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(&args)
            .output()
            .unwrap()
    };
    let plain = "{gem5} -d {outdir} --seed {seed}";
    let o = init("a", plain, &["--stimuli", &file_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the knob `replay` is not in --run"),
        "{}",
        stderr(&o)
    );
    assert!(!base.join("a").exists());
    let run = "{gem5} -d {outdir} --seed {seed} --replay {replay}";
    let o = init("b", run, &["--stimuli", &file_s, "--seeds", "1,2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = init("c", run, &["--reach", "3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = init("d", run, &["--stimuli", &file_s, "--reach", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c = Campaign::open(&base.join("d")).unwrap();
    assert_eq!(c.settings.seeds, [5, 8]);
    assert_eq!(c.settings.stimuli, stimuli.stimuli);
    assert_eq!(c.settings.knobs.as_ref(), Some(&stimuli.space));
    assert_eq!(c.settings.reach_runs, 3);
    assert_eq!(
        c.settings.run_template(8, None),
        run.replace("{replay}", &n4)
    );
}

/// A stimulus whose follow-up runs (any mutant's) timed out, 3 or more and
/// three quarters of them, gets no more (docs/design/campaigns.md §11b): a
/// survivor only it reached runs no follow-up run, and a later `mutate
/// run` does not open it again for the runs it is owed.
#[test]
fn a_stimulus_whose_follow_up_runs_time_out_gets_no_more() {
    use memconform::mutate::campaign::{Campaign, Event, State, Status};
    let (base, root) = stand_in::fresh("stimuli-slow");
    let (n2, n4) = clean_runs();
    let mut space = fence_space(&n2, &n4, &["none", "onedit"]);
    space.follow_up = [("fence".to_string(), "onedit".to_string())].into();
    let mut s = stand_in::settings(&root);
    s.run = FENCE_RUN.into();
    s.seeds = vec![5];
    s.stimuli = vec![with_fence("k1", 5, &n2)];
    s.knobs = Some(space);
    s.follow_up_runs = 2;
    let only_k1 = observer(&root, "ADS", "L1Cache.M.Store");
    let other = observer(&root, "ADS4", "L1Cache.M.Store");
    let c = Campaign::init(&base.join("camp"), s, vec![only_k1.clone(), other.clone()]).unwrap();
    // the log already holds three follow-up runs of k1, the other mutant's,
    // that timed out
    let timeout: memconform::mutate::campaign::Run = serde_json::from_str(
        r#"{"outcome":"timeout","exit_kind":"timeout","exit_code":124,"run_s":600.0,"check_s":0.0,"verdicts":{}}"#,
    )
    .unwrap();
    let mut lines = String::new();
    for seed in [2_000_000_001u64, 2_000_000_002, 2_000_000_003] {
        for e in [
            Event::FollowUp {
                mutant: other.id.clone(),
                seed,
                from: "k1".into(),
                knobs: [("fence".to_string(), "onedit".to_string())].into(),
                clean: None,
            },
            Event::Ran {
                mutant: other.id.clone(),
                seed,
                run: timeout.clone(),
            },
        ] {
            lines.push_str(&serde_json::to_string(&e).unwrap());
            lines.push('\n');
        }
    }
    let log = c.dir.join("events-0.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap_or_default();
    text.push_str(&lines);
    std::fs::write(&log, text).unwrap();
    stand_in::run_all(&c);
    let st = State::of(&c).unwrap();
    assert_eq!(st.status[&only_k1.id], Status::Survived);
    assert!(
        !st.follow_ups.contains_key(&only_k1.id),
        "{:?}",
        st.follow_ups
    );
    // owed two runs, but its one stimulus is left out: not opened again
    assert_eq!(stand_in::run_all(&c), 0);
}
