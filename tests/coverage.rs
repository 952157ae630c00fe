//! `memconform coverage`: the transitions gem5 runs took (their stats.txt
//! counters) against those a protocol's SLICC declares
//! (docs/design/campaigns.md §4), on the bundled real gem5 runs and on
//! Toyco, an invented protocol with hand-written runs
//! (tests/data/slicc/toyco, tests/data/coverage).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn memconform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-coverage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The table's row of `machine`, by the header's column names.
fn cols(text: &str, machine: &str) -> BTreeMap<String, String> {
    let head = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("machine"))
        .unwrap_or_else(|| panic!("no header in\n{text}"));
    let l = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(machine))
        .unwrap_or_else(|| panic!("no row {machine} in\n{text}"));
    head.split_whitespace()
        .map(String::from)
        .zip(l.split_whitespace().map(String::from))
        .collect()
}

/// The table's row of `machine`: (taken, declared, percent, stalls).
fn row(text: &str, machine: &str) -> (String, String, String, String) {
    let c = cols(text, machine);
    (
        c["taken"].clone(),
        c["declared"].clone(),
        c["percent"].clone(),
        c["stalls"].clone(),
    )
}

const TOYCO: &str = "tests/data/slicc/toyco";
const RUN_A: &str = "tests/data/coverage/toyco-a";
const RUN_B: &str = "tests/data/coverage/toyco-b";

/// Toyco's cache declares 13 counted transitions and 6 stalls through
/// wildcard headers; run a takes 6 of them, its directory 2 of 3.
#[test]
fn declared_against_taken_with_wildcards_expanded() {
    let o = memconform(&["coverage", RUN_A, "--protocol-dir", TOYCO, "--list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("protocol Toyco"), "{t}");
    assert_eq!(
        row(&t, "L1Cache"),
        ("6".into(), "13".into(), "46.2%".into(), "6".into())
    );
    assert_eq!(
        row(&t, "Directory"),
        ("2".into(), "3".into(), "66.7%".into(), "0".into())
    );
    assert_eq!(
        row(&t, "all"),
        ("8".into(), "16".into(), "50.0%".into(), "6".into())
    );
    // the declared transitions not taken, wildcard pairs among them
    // (`transition({S, M}, {Evict, Inv}, I)` declares M.Evict and S.Inv)
    let listed: Vec<&str> = t
        .lines()
        .skip_while(|l| !l.starts_with("not taken"))
        .skip(1)
        .map(str::trim)
        .collect();
    assert_eq!(
        listed,
        [
            "L1Cache.I.Inv",
            "L1Cache.S.Store",
            "L1Cache.S.Inv",
            "L1Cache.M.Load",
            "L1Cache.M.Store",
            "L1Cache.M.Evict",
            "L1Cache.M.Inv",
            "Directory.M.Get",
        ]
    );
    // stalls are never listed as untaken: gem5 does not count them
    assert!(!t.contains("IS.Load"), "{t}");
}

/// Two runs sum their counts; the CSV has every declared or taken pair,
/// the heat map a cell for each.
#[test]
fn runs_sum_and_the_csv_and_svg_say_so() {
    let dir = scratch("sum");
    let (csv, svg) = (dir.join("c.csv"), dir.join("c.svg"));
    let o = memconform(&[
        "coverage",
        RUN_A,
        RUN_B,
        "--protocol-dir",
        TOYCO,
        "--csv",
        csv.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("transition coverage of 2 runs"), "{t}");
    assert_eq!(row(&t, "L1Cache").0, "7");
    assert_eq!(
        row(&t, "Directory"),
        ("3".into(), "3".into(), "100.0%".into(), "0".into())
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("machine,state,event,count,declared,stall,reachable,reason")
    );
    let rows: Vec<&str> = lines.collect();
    // 13 + 6 stalls of the cache, 3 of the directory
    assert_eq!(rows.len(), 22, "{csv}");
    for r in [
        "L1Cache,I,Load,9,true,false,true,", // 5 + 4 (::total lines)
        "L1Cache,S,Load,4,true,false,true,", // 0 + 4 of two caches
        "L1Cache,M,Inv,1,true,false,true,",  // run b only
        "L1Cache,M,Evict,0,true,false,true,",
        "L1Cache,IM,Store,0,true,true,true,", // a z_stall wildcard pair
        "Directory,I,Get,12,true,false,true,", // scalar lines, 7 + 5
    ] {
        assert!(rows.contains(&r), "{r} not in\n{csv}");
    }
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // a cell (with its tooltip) per row of the CSV, crosses for the 6 not taken
    assert_eq!(svg.matches("<title>").count(), 22, "{svg}");
    assert_eq!(svg.matches("declared, not taken</title>").count(), 6);
    assert!(svg.contains("<title>L1Cache.I.Load: taken 9 times</title>"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The transition counters of a real stats.txt, read independently: the
/// distinct `<Machine>_Controller.<State>.<Event>` names per machine.
fn counters_per_machine(stats: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(stats).unwrap();
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|n| n.trim_end_matches("::total").to_string())
        .filter(|n| {
            n.split('.')
                .rev()
                .nth(2)
                .is_some_and(|c| c.ends_with("_Controller"))
        })
        .collect();
    names.sort();
    names.dedup();
    let mut out = BTreeMap::new();
    for n in names {
        let c = n.split('.').rev().nth(2).unwrap();
        *out.entry(c.trim_end_matches("_Controller").to_string())
            .or_insert(0) += 1;
    }
    out
}

/// The bundled real runs of three protocols: without --protocol-dir the
/// taken transitions only (as many as the file has counters), the
/// protocol named from config.ini, the total unknown.
#[test]
fn real_gem5_runs_without_the_protocol_files() {
    for run in [
        "tests/data/gem5/mi_example/clean-n4-s2",
        "tests/data/gem5/mesi_two_level/clean-n4-s2-rich",
        "tests/data/gem5/moesi_hammer/clean-n4-s1-rich",
    ] {
        let o = memconform(&["coverage", run, "--list"]);
        assert_eq!(o.status.code(), Some(0), "{run}: {}", stderr(&o));
        let t = stdout(&o);
        assert!(t.contains("declared transitions unknown"), "{t}");
        let want = counters_per_machine(&repo().join(run).join("stats.txt"));
        assert!(want.len() >= 2, "{run}: {want:?}");
        for (m, n) in &want {
            assert_eq!(row(&t, m).0, n.to_string(), "{run} {m}:\n{t}");
            assert_eq!(row(&t, m).1, "?");
        }
        assert!(t.contains("the transitions not taken need the declared ones"));
        assert!(stderr(&o).contains("give --protocol-dir"), "{}", stderr(&o));
    }
    let o = memconform(&["coverage", "tests/data/gem5/moesi_hammer/clean-n4-s1-rich"]);
    assert!(
        stdout(&o).contains("protocol MOESI_hammer"),
        "{}",
        stdout(&o)
    );
}

/// Where gem5's own protocol files are (GEM5_ROOT), every transition the
/// bundled runs took is one their SLICC declares.
#[test]
fn real_gem5_runs_against_gem5s_own_slicc() {
    let Some(root) = std::env::var_os("GEM5_ROOT") else {
        eprintln!("skipped: GEM5_ROOT is not set");
        return;
    };
    for run in [
        "tests/data/gem5/mi_example/clean-n4-s2",
        "tests/data/gem5/mesi_two_level/clean-n4-s2-rich",
        "tests/data/gem5/moesi_hammer/clean-n4-s1-rich",
    ] {
        let o = memconform(&["coverage", run, "--protocol-dir", root.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{run}: {}", stderr(&o));
        let t = stdout(&o);
        assert!(!t.contains("does not declare"), "{run}:\n{t}");
        let want = counters_per_machine(&repo().join(run).join("stats.txt"));
        for (m, n) in &want {
            assert_eq!(row(&t, m).0, n.to_string(), "{run} {m}:\n{t}");
        }
    }
}

/// A bad stats.txt line is an input error at file:line:col; a run gem5
/// wrote no counters for, or no stats.txt, is one that says so.
#[test]
fn bad_or_missing_counters_are_input_errors() {
    let dir = scratch("bad");
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("stats.txt"),
        "---------- Begin Simulation Statistics ----------\n\
         system.ruby.L1Cache_Controller.I.Load 3 (Unspecified)\n\
         system.ruby.L1Cache_Controller.S.Load  x7 (Unspecified)\n\
         ---------- End Simulation Statistics   ----------\n",
    )
    .unwrap();
    let o = memconform(&["coverage", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let want = format!("{}:3:40:", bad.join("stats.txt").display());
    assert!(
        stderr(&o).contains(&want),
        "wanted {want} in {}",
        stderr(&o)
    );

    // the MI-5 run panicked: gem5 wrote an empty stats.txt
    let o = memconform(&[
        "coverage",
        "tests/data/gem5/mi_example/bug-mi5-n2-s3-gztrunc",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("gem5 did not write"), "{}", stderr(&o));
    // statistics, but no transition counter
    let none = dir.join("none");
    std::fs::create_dir_all(&none).unwrap();
    std::fs::write(
        none.join("stats.txt"),
        "---------- Begin Simulation Statistics ----------\nsimTicks 5 (Tick)\n\
         ---------- End Simulation Statistics   ----------\n",
    )
    .unwrap();
    let o = memconform(&["coverage", none.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no transition counters"),
        "{}",
        stderr(&o)
    );
    // no stats.txt at all
    let o = memconform(&["coverage", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no stats.txt"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs of two protocols do not add up; --protocol must agree with
/// config.ini; a protocol directory of several .slicc needs --protocol;
/// a transition the SLICC does not declare is pointed out.
#[test]
fn protocols_are_named_and_checked() {
    let o = memconform(&[
        "coverage",
        "tests/data/gem5/mi_example/clean-n4-s2",
        "tests/data/gem5/moesi_hammer/clean-n4-s1-rich",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("different protocols"), "{}", stderr(&o));
    let o = memconform(&[
        "coverage",
        "tests/data/gem5/mi_example/clean-n4-s2",
        "--protocol",
        "Toyco",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("describes a MI_example system, not --protocol Toyco"),
        "{}",
        stderr(&o)
    );
    // two .slicc files: which one is not guessed
    let dir = scratch("protocols");
    let two = dir.join("two");
    std::fs::create_dir_all(&two).unwrap();
    for f in ["Toyco.slicc", "Toyco-cache.sm", "Toyco-dir.sm"] {
        std::fs::copy(repo().join(TOYCO).join(f), two.join(f)).unwrap();
    }
    std::fs::write(two.join("Other.slicc"), "protocol \"Other\";\n").unwrap();
    let o = memconform(&["coverage", RUN_A, "--protocol-dir", two.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("give --protocol NAME"),
        "{}",
        stderr(&o)
    );
    let o = memconform(&[
        "coverage",
        RUN_A,
        "--protocol-dir",
        two.to_str().unwrap(),
        "--protocol",
        "Toyco",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(row(&stdout(&o), "L1Cache").0, "6");
    // a counter Toyco does not declare (I.Evict)
    let odd = dir.join("odd");
    std::fs::create_dir_all(&odd).unwrap();
    let stats = std::fs::read_to_string(repo().join(RUN_A).join("stats.txt")).unwrap();
    std::fs::write(
        odd.join("stats.txt"),
        stats.replace("L1Cache_Controller.S.Evict", "L1Cache_Controller.I.Evict"),
    )
    .unwrap();
    let o = memconform(&["coverage", odd.to_str().unwrap(), "--protocol-dir", TOYCO]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("note: L1Cache took 1 transition its SLICC does not declare (I.Evict)"),
        "{t}"
    );
    // taken of the declared ones: S.Evict is gone, I.Evict does not count
    assert_eq!(row(&t, "L1Cache").0, "5");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An output over an input is refused, and the input stays as it was.
#[test]
fn outputs_never_overwrite_inputs() {
    let stats = repo().join(RUN_A).join("stats.txt");
    let before = std::fs::read(&stats).unwrap();
    let o = memconform(&["coverage", RUN_A, "--csv", stats.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&stats).unwrap(), before);
}

const TOYREACH: &str = "tests/data/slicc/toyreach";
const REACH_RUN: &str = "tests/data/coverage/toyreach-a";
const REACH_FILE: &str = "tests/data/reach/toyreach.toml";

/// The listing's groups after `unreachable in this configuration`: each
/// reason's line (without its count) with its transitions.
fn unreachable_groups(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for l in text
        .lines()
        .skip_while(|l| !l.starts_with("unreachable in this configuration"))
        .skip(1)
    {
        if let Some(t) = l.strip_prefix("    ") {
            out.last_mut().unwrap().1.push(t.to_string());
        } else if let Some(g) = l.strip_prefix("  ") {
            let g = g.rsplit_once(" (").map_or(g, |(g, _)| g);
            out.push((g.to_string(), Vec::new()));
        }
    }
    out
}

/// Toyreach's run (enable_pf false, no DMA controller): the 14 declared
/// transitions its configuration cannot take, each with the reason worked
/// out by hand in the .sm files' comments: a rule of the reach file (with
/// its line), an event no code triggers, an event whose message only an
/// unreachable transition of another machine sends, a state only those
/// lead to, a machine the configuration lacks. IS is compared with, never
/// entered by code: it is reachable only because I.Load leads there.
#[test]
fn reach_marks_what_the_configuration_cannot_take_with_each_reason() {
    let dir = scratch("reach");
    let csv = dir.join("r.csv");
    let o = memconform(&[
        "coverage",
        REACH_RUN,
        "--protocol-dir",
        TOYREACH,
        "--reach",
        REACH_FILE,
        "--list",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = stdout(&o);
    let c = cols(&t, "L1Cache");
    assert_eq!(
        (&c["taken"][..], &c["reachable"][..], &c["declared"][..]),
        ("7", "13", "23"),
        "{t}"
    );
    assert_eq!(c["percent"], "53.8%");
    let c = cols(&t, "Directory");
    assert_eq!((&c["reachable"][..], &c["declared"][..]), ("3", "6"));
    let c = cols(&t, "DMA");
    assert_eq!((&c["reachable"][..], &c["percent"][..]), ("0", "-"));
    assert_eq!(cols(&t, "all")["reachable"], "16");
    let rule = |line: usize, words: &str| format!("{words} ({REACH_FILE}:{line})");
    let groups = unreachable_groups(&t);
    let want: Vec<(String, Vec<&str>)> = vec![
        (
            format!(
                "L1Cache: {}",
                rule(
                    3,
                    "no prefetch: only the prefetcher fills prefetchQueue, and it runs only when \
                     enable_pf is true"
                )
            ),
            vec!["L1Cache.I.PF_Load"],
        ),
        (
            "L1Cache: events no code triggers".into(),
            vec!["L1Cache.S.Ghost", "L1Cache.M.Ghost"],
        ),
        (
            "L1Cache: events triggered only by messages no reachable transition sends".into(),
            vec!["L1Cache.S.Recall", "L1Cache.M.Recall"],
        ),
        (
            "L1Cache: states only unreachable transitions lead to".into(),
            vec![
                "L1Cache.PF_IS.Load",
                "L1Cache.PF_IS.Store",
                "L1Cache.PF_IS.Data",
                "L1Cache.ZZ.Load",
                "L1Cache.ZZ.Store",
            ],
        ),
        (
            format!(
                "Directory: {}",
                rule(10, "no DMA controller: only a DMA controller sends DMA_GET")
            ),
            vec!["Directory.I.DMA_Get"],
        ),
        (
            "Directory: states only unreachable transitions lead to".into(),
            vec!["Directory.ID.Get", "Directory.ID.Put"],
        ),
        (
            "DMA: the configuration has no DMA_Controller".into(),
            vec!["DMA.READY.ReadRequest"],
        ),
    ];
    let want: Vec<(String, Vec<String>)> = want
        .into_iter()
        .map(|(g, ts)| (g, ts.into_iter().map(String::from).collect()))
        .collect();
    assert_eq!(groups, want, "{t}");
    // not taken: the reachable ones only
    let listed: Vec<&str> = t
        .lines()
        .skip_while(|l| !l.starts_with("not taken"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    assert_eq!(
        listed,
        [
            "L1Cache.S.Store",
            "L1Cache.M.Load",
            "L1Cache.M.Inv",
            "L1Cache.IS.Load",
            "L1Cache.IS.Inv",
            "L1Cache.IM.Inv",
            "Directory.M.Get",
        ]
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.contains("L1Cache,IS,Load,0,true,false,true,\n"),
        "{csv}"
    );
    assert!(
        csv.contains(&format!(
            "L1Cache,I,PF_Load,0,true,false,false,\"no prefetch: only the prefetcher fills \
             prefetchQueue, and it runs only when enable_pf is true ({REACH_FILE}:3)\"\n"
        )),
        "{csv}"
    );
    assert!(csv.contains(
        "L1Cache,ZZ,Load,0,true,false,false,\"L1Cache never enters ZZ: only unreachable \
         transitions lead there\"\n"
    ));
    assert!(csv.contains(
        "L1Cache,M,Recall,0,true,false,false,\"L1Cache gets Recall only on \
         ToyreachType:RECALL, which only unreachable transitions send\"\n"
    ));
    // --no-reach: every declared transition counts
    let o = memconform(&[
        "coverage",
        REACH_RUN,
        "--protocol-dir",
        TOYREACH,
        "--no-reach",
    ]);
    let t = stdout(&o);
    assert!(!cols(&t, "L1Cache").contains_key("reachable"), "{t}");
    assert_eq!(row(&t, "L1Cache").2, "30.4%"); // 7 of 23
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of Toyreach's run with `edit` applied to its config.ini and
/// `extra` counters added to its stats.txt.
fn toyreach_variant(dir: &Path, name: &str, edit: (&str, &str), extra: &str) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let ini = std::fs::read_to_string(repo().join(REACH_RUN).join("config.ini")).unwrap();
    std::fs::write(d.join("config.ini"), ini.replace(edit.0, edit.1)).unwrap();
    let stats = std::fs::read_to_string(repo().join(REACH_RUN).join("stats.txt")).unwrap();
    let end = "---------- End Simulation Statistics";
    std::fs::write(
        d.join("stats.txt"),
        stats.replace(end, &format!("{extra}{end}")),
    )
    .unwrap();
    d
}

/// Evidence beats every argument: a run that took I.PF_Load though its
/// configuration meets the rule makes it reachable (and PF_IS with it), and
/// says so; a configuration that does not meet a rule's condition, or
/// cannot tell, leaves the rule out.
#[test]
fn a_run_that_took_a_transition_makes_it_reachable_and_a_rule_needs_its_condition() {
    let dir = scratch("evidence");
    let pf = "system.ruby.L1Cache_Controller.I.PF_Load 2 (Unspecified)\n";
    let took = toyreach_variant(&dir, "took", ("", ""), pf);
    let args = |run: &Path| -> Vec<String> {
        [
            "coverage",
            run.to_str().unwrap(),
            "--protocol-dir",
            TOYREACH,
            "--reach",
            REACH_FILE,
            "--list",
        ]
        .map(String::from)
        .to_vec()
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        memconform(&a)
    };
    // the table of a variant of Toyreach's run
    let table_of = |name: &str, edit: (&str, &str), extra: &str| {
        stdout(&run(args(&toyreach_variant(&dir, name, edit, extra))))
    };
    let o = run(args(&took));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains(&format!(
            "note: L1Cache.I.PF_Load was taken by a run, though no prefetch: only the prefetcher \
             fills prefetchQueue, and it runs only when enable_pf is true ({REACH_FILE}:3): \
             counted reachable"
        )),
        "{t}"
    );
    // I.PF_Load and PF_IS's three transitions join the 13
    let c = cols(&t, "L1Cache");
    assert_eq!((&c["taken"][..], &c["reachable"][..]), ("8", "17"), "{t}");
    assert!(t.contains("  L1Cache.PF_IS.Data\n"), "{t}");

    // the prefetcher on in one controller: the rule does not hold
    let t = table_of(
        "on",
        ("enable_pf=false\nversion=1", "enable_pf=true\nversion=1"),
        "",
    );
    assert_eq!(cols(&t, "L1Cache")["reachable"], "17", "{t}");
    assert!(!t.contains("no prefetch"), "{t}");
    // a DMA controller: the directory's DMA transitions are reachable
    let t = table_of(
        "dma",
        (
            "[system.ruby.dir_cntrl0]",
            "[system.ruby.dma_cntrl0]\ntype=DMA_Controller\nversion=0\n\n[system.ruby.dir_cntrl0]",
        ),
        "",
    );
    assert_eq!(cols(&t, "Directory")["reachable"], "6", "{t}");
    assert_eq!(cols(&t, "DMA")["reachable"], "1", "{t}");
    // and with ID entered, r_recall runs: the cache's Recall is reachable
    assert_eq!(cols(&t, "L1Cache")["reachable"], "15", "{t}");
    // a run that took S.Recall, which the code alone does not reach: said,
    // and counted reachable (M.Recall stays unreachable: RECALL is unsent)
    let t = table_of(
        "recall",
        ("", ""),
        "system.ruby.L1Cache_Controller.S.Recall 1 (Unspecified)\n",
    );
    assert!(
        t.contains(
            "note: L1Cache.S.Recall was taken by a run, though the code alone does not reach \
             it (its state or the messages of its event): counted reachable"
        ),
        "{t}"
    );
    assert_eq!(cols(&t, "L1Cache")["reachable"], "14", "{t}");
    assert!(t.contains("    L1Cache.M.Recall\n"), "{t}");
    // a controller config.ini does not list, yet counted: said, reachable
    let t = table_of(
        "ghost",
        ("", ""),
        "system.ruby.DMA_Controller.READY.ReadRequest 1 (Unspecified)\n",
    );
    assert!(
        t.contains(
            "note: DMA.READY.ReadRequest was taken by a run, though the configuration has no \
             DMA_Controller: counted reachable"
        ),
        "{t}"
    );
    assert_eq!(cols(&t, "DMA")["reachable"], "1", "{t}");
    // a config.ini without the parameter cannot tell: the rule is left out
    let blind = toyreach_variant(&dir, "blind", ("enable_pf=false\n", ""), "");
    let t = stdout(&run(args(&blind)));
    assert!(
        t.contains(&format!(
            "note: {REACH_FILE}:3: not applied: [system.ruby.l1_cntrl0] has no parameter \
             `enable_pf` in a run's config.ini"
        )),
        "{t}"
    );
    assert_eq!(cols(&t, "L1Cache")["reachable"], "17", "{t}");
    // runs summed: a rule applies only where every run meets it
    let mut a = args(&dir.join("on")); // the variant made above
    a.insert(2, REACH_RUN.to_string());
    let t = stdout(&run(a));
    assert_eq!(cols(&t, "L1Cache")["reachable"], "17", "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reach file that does not parse, or names what the protocol does not
/// declare, is an input error at its file:line[:col]; so is a rule without a
/// reason or a condition.
#[test]
fn a_reach_file_that_does_not_fit_the_protocol_is_an_input_error() {
    let dir = scratch("badreach");
    let good = std::fs::read_to_string(repo().join(REACH_FILE)).unwrap();
    // `coverage RUN` of Toyreach with reach file `reach`
    let cover = |run: &str, reach: &Path, more: &[&str]| {
        let mut args = vec![
            "coverage",
            run,
            "--protocol-dir",
            TOYREACH,
            "--reach",
            reach.to_str().unwrap(),
        ];
        args.extend_from_slice(more);
        memconform(&args)
    };
    for (name, text, want) in [
        (
            "event",
            good.replace("[\"PF_Load\"]", "[\"PF_Lod\"]"),
            ":3: L1Cache declares no event PF_Lod".to_string(),
        ),
        (
            "machine",
            good.replace("\"Directory\"", "\"Dir\""),
            ":10: protocol Toyreach has no machine Dir".into(),
        ),
        (
            "reason",
            good.replace(
                "reason = \"no DMA controller: only a DMA controller sends DMA_GET\"",
                "reason = \" \"",
            ),
            ":10:1: a rule needs a reason in words".into(),
        ),
        (
            "condition",
            good.replace("absent = [\"DMA\"]\n", ""),
            ":10:1: a rule needs a condition".into(),
        ),
        (
            "dead with a condition",
            good.replace("absent = [\"DMA\"]\n", "absent = [\"DMA\"]\ndead = true\n"),
            ":10:1: a `dead` rule has no condition".into(),
        ),
        (
            "key",
            good.replace("absent = [", "absnet = ["),
            ":13:1: unknown field `absnet`".into(),
        ),
        (
            "when_of without when",
            good.replace(
                "absent = [\"DMA\"]\n",
                "absent = [\"DMA\"]\nwhen_of = \"L1Cache\"\n",
            ),
            ":10:1: `when_of` names the machine whose parameters `when` asks".into(),
        ),
        (
            "when_of machine",
            good.replace(
                "absent = [\"DMA\"]\n",
                "when = { enable_pf = \"false\" }\nwhen_of = \"L2\"\n",
            ),
            ":10: protocol Toyreach has no machine L2 (when_of)".into(),
        ),
    ] {
        let f = dir.join(format!("{name}.toml"));
        std::fs::write(&f, text).unwrap();
        let o = cover(REACH_RUN, &f, &[]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stdout(&o));
        let want = format!("{}{want}", f.display());
        assert!(
            stderr(&o).contains(&want),
            "{name}: wanted {want} in {}",
            stderr(&o)
        );
    }
    // `without`: the rule holds where no SimObject of the type is
    let f = dir.join("without.toml");
    std::fs::write(
        &f,
        good.replace(
            "when = { enable_pf = \"false\" }\n",
            "without = [\"RubyTester\"]\n",
        ),
    )
    .unwrap();
    let reachable = |run: &str| {
        let o = cover(run, &f, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        cols(&stdout(&o), "L1Cache")["reachable"].clone()
    };
    assert_eq!(reachable(REACH_RUN), "13");
    let tester = toyreach_variant(
        &dir,
        "tester",
        (
            "[system.ruby]\n",
            "[system.tester]\ntype=RubyTester\n\n[system.ruby]\n",
        ),
        "",
    );
    assert_eq!(reachable(tester.to_str().unwrap()), "17");
    // `when_of`: the directory's M.Get by the L1s' parameter (invented:
    // only the test's reach file says so). Where the L1s have it, the rule
    // holds; where they differ, it does not; asked of the directory, which
    // has no such parameter, it cannot tell and is left out
    let rule = |when_of: &str| {
        good.replace(
            "events = [\"DMA_Get\"]\nabsent = [\"DMA\"]\n",
            &format!("states = [\"M\"]\nevents = [\"Get\"]\nwhen = {{ enable_pf = \"false\" }}\n{when_of}"),
        )
    };
    let f = dir.join("when_of.toml");
    let directory = |run: &str| {
        let o = cover(run, &f, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        cols(&stdout(&o), "Directory")["reachable"].clone()
    };
    std::fs::write(&f, rule("when_of = \"L1Cache\"\n")).unwrap();
    assert_eq!(directory(REACH_RUN), "2");
    let pf_on = toyreach_variant(&dir, "pf-on", ("enable_pf=false", "enable_pf=true"), "");
    assert_eq!(directory(pf_on.to_str().unwrap()), "3");
    std::fs::write(&f, rule("")).unwrap();
    assert_eq!(directory(REACH_RUN), "3");
    // dead code needs no condition, and says so
    let f = dir.join("dead.toml");
    std::fs::write(&f, good.replace("absent = [\"DMA\"]\n", "dead = true\n")).unwrap();
    let o = cover(REACH_RUN, &f, &["--list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = stdout(&o);
    assert_eq!(cols(&t, "Directory")["reachable"], "3", "{t}");
    assert!(
        t.contains("Directory: dead code: no DMA controller: only a DMA controller sends DMA_GET"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where gem5's own protocol files are (GEM5_ROOT): on every bundled real
/// run of stock gem5, no transition the reach analysis calls unreachable
/// was taken (independent evidence: gem5's own counters), and the built-in
/// reach files apply (each protocol's reachable total below its declared).
#[test]
fn no_real_run_takes_a_transition_the_reach_analysis_calls_unreachable() {
    let Some(root) = std::env::var_os("GEM5_ROOT") else {
        eprintln!("skipped: GEM5_ROOT is not set");
        return;
    };
    // MOESI_AMD_Base's directory declares other transitions once PR #1117
    // is reverted (the tree its campaigns build): seven more reachable
    let reverted = amd_base_is_reverted(Path::new(&root));
    let amd = if reverted { 662 } else { 655 };
    let mut amd_se = String::new();
    for (run, reachable) in [
        ("tests/data/gem5/mi_example/clean-n4-s2", 27),
        ("tests/data/gem5/mi_example/memtest-n4", 27),
        ("traces/clean-n8-s3-gz", 27),
        ("tests/data/gem5/mesi_two_level/clean-n4-s2-rich", 186),
        ("traces/se-o3-n2-s1", 186),
        ("traces/se-timing-n2-s1", 186),
        ("tests/data/gem5/moesi_hammer/clean-n4-s1-rich", 319),
        ("tests/data/gem5/moesi_hammer/noflush-n4-s6-rich", 319),
        ("tests/data/gem5/moesi_amd_base/se-o3-stock-n4-s1", amd),
        ("tests/data/gem5/moesi_amd_base/se-o3-rmw-stock-n4-s1", amd),
        ("tests/data/gem5/arm/chi-o3-sb-rel-acq-s1", 1139),
    ] {
        let o = memconform(&["coverage", run, "--protocol-dir", root.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{run}: {}", stderr(&o));
        let t = stdout(&o);
        assert!(!t.contains("was taken by a run, though"), "{run}:\n{t}");
        assert!(!t.contains("not applied"), "{run}:\n{t}");
        assert_eq!(
            cols(&t, "all")["reachable"],
            reachable.to_string(),
            "{run}:\n{t}"
        );
        if run == "tests/data/gem5/moesi_amd_base/se-o3-stock-n4-s1" {
            amd_se = t;
        }
    }
    // MOESI_AMD_Base's one-request-a-line-a-core rules hold in SE runs
    // (a context id's parity is its core): the SE runs above lose 188
    // CorePair pairs to them; the Ruby tester's run (the reverted tree's)
    // keeps them
    if reverted {
        let run = "tests/data/gem5/moesi_amd_base/reverted-n4-s1";
        let o = memconform(&["coverage", run, "--protocol-dir", root.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{run}: {}", stderr(&o));
        let t = stdout(&o);
        assert!(!t.contains("was taken by a run, though"), "{run}:\n{t}");
        assert_eq!(cols(&t, "CorePair")["reachable"], "777", "{run}:\n{t}");
        assert_eq!(cols(&amd_se, "CorePair")["reachable"], "563");
    }
}

/// Whether `root`'s MOESI_AMD_Base is v24.0.0.1 with gem5 PR #1117
/// reverted (`git revert efbfdeabd7`: the CorePair's `wb_data` action is
/// back), as docs/campaign-moesi-amd-base-o3 builds it.
fn amd_base_is_reverted(root: &Path) -> bool {
    let sm = root.join("src/mem/ruby/protocol/MOESI_AMD_Base-CorePair.sm");
    std::fs::read_to_string(&sm)
        .unwrap_or_else(|e| panic!("{}: {e}", sm.display()))
        .contains("action(wb_data,")
}

/// `--keep`: a kept run (its counters and configuration, gzipped) gives the
/// table, the listing with its reasons and the CSV the run gives; on the
/// bundled real MI_example run (8 controllers, `::total` lines, the
/// protocol found from config.ini) the kept files are a small share of the
/// run's, and a run kept again is kept the same.
#[test]
fn a_kept_run_gives_the_table_the_run_gives() {
    let dir = scratch("keep");
    let kept = dir.join("kept");
    let k = kept.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&[RUN_A, RUN_B], "--protocol-dir"),
        (&[REACH_RUN], "--reach"),
        (&["traces/clean-n8-s3-gz"], ""),
    ];
    for (i, (runs, how)) in cases.into_iter().enumerate() {
        let mut extra: Vec<&str> = match how {
            "--protocol-dir" => vec!["--protocol-dir", TOYCO],
            "--reach" => vec!["--protocol-dir", TOYREACH, "--reach", REACH_FILE],
            _ => vec![],
        };
        extra.push("--list");
        let csv = dir.join(format!("run-{i}.csv"));
        let mut args = vec!["coverage"];
        args.extend(runs);
        args.extend(&extra);
        args.extend(["--csv", csv.to_str().unwrap(), "--keep", k]);
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let names: Vec<PathBuf> = runs
            .iter()
            .map(|r| kept.join(Path::new(r).file_name().unwrap()))
            .collect();
        let kept_csv = dir.join(format!("kept-{i}.csv"));
        let mut again = vec!["coverage".to_string()];
        again.extend(names.iter().map(|p| p.to_str().unwrap().to_string()));
        again.extend(extra.iter().map(|s| s.to_string()));
        again.extend(["--csv".into(), kept_csv.to_str().unwrap().into()]);
        let again: Vec<&str> = again.iter().map(String::as_str).collect();
        let ok = memconform(&again);
        assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
        assert_eq!(stdout(&ok), stdout(&o), "{runs:?}");
        assert_eq!(
            std::fs::read_to_string(&kept_csv).unwrap(),
            std::fs::read_to_string(&csv).unwrap()
        );
        if how == "--reach" {
            // the rules were read off the kept config.ini.gz
            assert!(stdout(&ok).contains("toyreach.toml:"), "{}", stdout(&ok));
        }
    }
    let size = |d: &Path| -> u64 {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
    };
    let real = repo().join("traces/clean-n8-s3-gz");
    let small = kept.join("clean-n8-s3-gz");
    let before: Vec<_> = ["stats.txt.gz", "config.ini.gz"]
        .iter()
        .map(|f| std::fs::read(small.join(f)).unwrap())
        .collect();
    assert!(
        size(&small) * 8 < size(&real),
        "kept {} of {} bytes",
        size(&small),
        size(&real)
    );
    // kept again, from the kept run: the same bytes
    let o = memconform(&[
        "coverage",
        small.to_str().unwrap(),
        "--keep",
        dir.join("twice").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for (f, b) in ["stats.txt.gz", "config.ini.gz"].iter().zip(&before) {
        assert_eq!(
            &std::fs::read(dir.join("twice/clean-n8-s3-gz").join(f)).unwrap(),
            b
        );
    }
    // a run is never kept over itself
    let o = memconform(&["coverage", small.to_str().unwrap(), "--keep", k]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the run itself"), "{}", stderr(&o));
}

/// The `not taken (N):` list of a committed coverage table.
fn not_taken(text: &str) -> std::collections::BTreeSet<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("not taken ("))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

/// docs/coverage/: each protocol's kept runs (kept/SLUG/*, as `coverage
/// --keep` keeps them) give the committed table SLUG-kept.txt: its taken
/// column here, the whole text where gem5's SLICC is (GEM5_ROOT). The
/// union with the earlier runs of SLUG.txt (lost, their table kept) is
/// what docs/coverage/README.md says: the reachable transitions neither
/// table lists as not taken.
#[test]
fn committed_coverage_tables_are_their_kept_runs_tables() {
    let docs = repo().join("docs/coverage");
    let mut slugs: Vec<String> = std::fs::read_dir(docs.join("kept"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    slugs.sort();
    assert!(!slugs.is_empty());
    let readme = std::fs::read_to_string(docs.join("README.md")).unwrap();
    for slug in &slugs {
        let mut runs: Vec<String> = std::fs::read_dir(docs.join("kept").join(slug))
            .unwrap()
            .map(|e| {
                format!(
                    "docs/coverage/kept/{slug}/{}",
                    e.unwrap().file_name().to_string_lossy()
                )
            })
            .collect();
        runs.sort();
        let table = std::fs::read_to_string(docs.join(format!("{slug}-kept.txt"))).unwrap();
        let mut args: Vec<&str> = vec!["coverage"];
        args.extend(runs.iter().map(String::as_str));
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{slug}: {}", stderr(&o));
        let taken_only = stdout(&o);
        for m in ["L1Cache", "L2Cache", "CorePair", "Directory", "all"] {
            if table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(m))
            {
                assert_eq!(
                    cols(&taken_only, m)["taken"],
                    cols(&table, m)["taken"],
                    "{slug} {m}:\n{taken_only}"
                );
            }
        }
        let root = std::env::var_os("GEM5_ROOT");
        if slug == "moesi-amd-base"
            && root
                .as_ref()
                .is_some_and(|r| !amd_base_is_reverted(Path::new(r)))
        {
            eprintln!(
                "{slug}: the reachable transitions not checked: GEM5_ROOT's MOESI_AMD_Base \
                 is stock v24.0.0.1, the table is of the tree with PR #1117 reverted"
            );
        } else if let Some(root) = root {
            let root = root.to_string_lossy().into_owned();
            let mut full = args.clone();
            full.extend(["--protocol-dir", &root, "--list"]);
            let o = memconform(&full);
            assert_eq!(o.status.code(), Some(0), "{slug}: {}", stderr(&o));
            let root = root.trim_end_matches('/');
            assert_eq!(stdout(&o).replace(root, "$GEM5_ROOT"), table, "{slug}");
        } else {
            eprintln!("{slug}: the reachable transitions not checked: GEM5_ROOT is not set");
        }
        // the union with the lost runs' table, where there were lost runs;
        // else the kept runs' own count
        let reachable = cols(&table, "all")["reachable"].clone();
        let Ok(before) = std::fs::read_to_string(docs.join(format!("{slug}.txt"))) else {
            let claim = format!("{} of {reachable}", cols(&table, "all")["taken"]);
            assert!(
                readme
                    .lines()
                    .any(|l| l.contains(slug.as_str()) && l.contains("kept") && l.contains(&claim)),
                "{slug}: docs/coverage/README.md has no line with `{slug}`, `kept` and `{claim}`"
            );
            continue;
        };
        assert_eq!(cols(&before, "all")["reachable"], reachable, "{slug}");
        let left = not_taken(&before).intersection(&not_taken(&table)).count();
        let n: usize = reachable.parse().unwrap();
        let claim = format!("{} of {n}", n - left);
        assert!(
            readme
                .lines()
                .any(|l| l.contains(slug.as_str()) && l.contains("union") && l.contains(&claim)),
            "{slug}: docs/coverage/README.md has no line with `{slug}`, `union` and `{claim}`"
        );
    }
}

/// docs/findings/moesi-amd-base-sf-l1i-repl: the bundled run (8 O3 cores,
/// the client's refill footprint on the code line) ended in gem5's
/// `Invalid transition` for a CorePair's `L1I_Repl` in `S_F`; with
/// GEM5_ROOT, the protocol's own SLICC says why: `S_F` declares both cores'
/// instruction-fetch hits (the L1I may hold the line there) and no
/// `L1I_Repl`, which `S_F0` and `S_F1`, the states either side of it,
/// declare; so on stock v24.0.0.1 as on the tree with PR #1117 reverted.
/// The fix (the finding's fix.edits, memconform's `add state`) adds that
/// one pair with `S_F0`'s actions, and the bundled run of the same command
/// on the fixed build ends cleanly after taking it once.
#[test]
fn the_s_f_instruction_cache_replacement_finding_agrees_with_the_slicc() {
    use std::io::Read;
    let run = repo().join("tests/data/findings/panic-sf-l1i-repl-n8-s49");
    let simout = std::fs::read_to_string(run.join("simout.txt")).unwrap();
    assert!(simout.contains("panic: Invalid transition"), "{simout}");
    assert!(
        simout
            .contains("system.cp_cntrl1 time: 872813 addr: 0x16c000 event: L1I_Repl state: S_F\n"),
        "{simout}"
    );
    let mut ini = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(run.join("config.ini.gz")).unwrap())
        .read_to_string(&mut ini)
        .unwrap();
    assert_eq!(ini.matches("type=CorePair_Controller").count(), 4);
    assert_eq!(ini.matches("type=BaseO3CPU\n").count(), 8);
    let cmd = ini.lines().find(|l| l.starts_with("cmd=")).unwrap();
    for knob in [
        "--evict-at refill",
        "--code-line on",
        "--threads 8",
        "--seed 49",
    ] {
        assert!(cmd.contains(knob), "{cmd}");
    }
    // the same command on the protocol with fix.edits built in (kept
    // small: its counters and configuration) ran to its end, past the
    // panic's tick, and took the transition the fix declares, once
    let fixed = repo().join("tests/data/findings/sf-l1i-repl-fixed-n8-s49");
    let fixed_out = std::fs::read_to_string(fixed.join("simout.txt")).unwrap();
    assert!(!fixed_out.contains("panic"), "{fixed_out}");
    let end = fixed_out
        .lines()
        .find_map(|l| {
            l.strip_prefix("Exiting @ tick ")?
                .strip_suffix(" because exiting with last active thread context")
        })
        .unwrap_or_else(|| panic!("the fixed run did not end cleanly:\n{fixed_out}"));
    assert!(end.parse::<u64>().unwrap() > 872_813_000, "{end}");
    let options = |out: &str| {
        let l = out
            .lines()
            .find(|l| l.starts_with("command line:"))
            .unwrap();
        l[l.find("--seed").unwrap()..].to_string()
    };
    assert_eq!(options(&fixed_out), options(&simout));
    let csv = scratch("sf-fixed").join("cov.csv");
    let o = memconform(&[
        "coverage",
        fixed.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = std::fs::read_to_string(&csv).unwrap();
    let count = |state: &str, event: &str| -> u64 {
        rows.lines()
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|c| c[0] == "CorePair" && c[1] == state && c[2] == event)
            .map_or(0, |c| c[3].parse().unwrap())
    };
    assert_eq!(count("S_F", "L1I_Repl"), 1, "{rows}");
    assert!(count("S_F0", "L1I_Repl") > 0 && count("S_F1", "L1I_Repl") > 0);
    let Some(root) = std::env::var_os("GEM5_ROOT") else {
        eprintln!("the SLICC side not checked: GEM5_ROOT is not set");
        return;
    };
    let p = memconform::mutate::slicc::load_protocol(
        &Path::new(&root).join("src/mem/ruby/protocol"),
        "MOESI_AMD_Base",
    )
    .unwrap();
    let d = memconform::mutate::coverage::declared(&p);
    let cp = d.machines.iter().find(|m| m.machine == "CorePair").unwrap();
    let has = |s: &str, e: &str| cp.transitions.contains_key(&(s.to_string(), e.to_string()));
    assert!(has("S_F", "Ifetch0_L1hit") && has("S_F", "Ifetch1_L1hit"));
    assert!(
        !has("S_F", "L1I_Repl"),
        "the finding is fixed in GEM5_ROOT's tree"
    );
    for s in ["S", "S_F0", "S_F1"] {
        assert!(has(s, "L1I_Repl"), "{s}");
    }
    // the fix (fix.edits): S_F takes L1I_Repl with S_F0's actions, and
    // nothing else changes
    let edits = memconform::mutate::base_edits::load(
        &repo().join("docs/findings/moesi-amd-base-sf-l1i-repl/fix.edits"),
    )
    .unwrap();
    let (fixed, applied) = memconform::mutate::base_edits::load_protocol(
        &Path::new(&root).join("src/mem/ruby/protocol"),
        "MOESI_AMD_Base",
        Some(&edits),
    )
    .unwrap();
    assert_eq!(applied.unwrap().diff.matches("\n+ ").count(), 1);
    let f = memconform::mutate::coverage::declared(&fixed);
    let fcp = f.machines.iter().find(|m| m.machine == "CorePair").unwrap();
    let pair = |s: &str| ("S_F".to_string(), s.to_string());
    assert!(fcp.transitions.contains_key(&pair("L1I_Repl")));
    assert_eq!(fcp.transitions.len(), cp.transitions.len() + 1);
    let rows = |p: &memconform::mutate::slicc::Protocol| {
        p.files
            .iter()
            .flat_map(|f| f.machines.iter())
            .find(|m| m.ident == "CorePair")
            .unwrap()
            .expanded()
    };
    let fixed_rows = rows(&fixed);
    let of = |s: &str| {
        fixed_rows
            .iter()
            .find(|(st, e, _, _)| st == s && e == "L1I_Repl")
            .map(|(_, _, next, a)| (next.clone(), a.clone()))
            .unwrap()
    };
    assert_eq!(of("S_F").0, "S_F");
    assert_eq!(of("S_F").1, of("S_F0").1);
    assert_eq!(of("S_F").1, ["ii_invIcache"]);
}
