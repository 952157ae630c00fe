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

/// The table's row of `machine`: (taken, declared, percent, stalls).
fn row(text: &str, machine: &str) -> (String, String, String, String) {
    let l = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(machine))
        .unwrap_or_else(|| panic!("no row {machine} in\n{text}"));
    let w: Vec<String> = l.split_whitespace().map(String::from).collect();
    (w[1].clone(), w[2].clone(), w[3].clone(), w[4].clone())
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
        Some("machine,state,event,count,declared,stall")
    );
    let rows: Vec<&str> = lines.collect();
    // 13 + 6 stalls of the cache, 3 of the directory
    assert_eq!(rows.len(), 22, "{csv}");
    for r in [
        "L1Cache,I,Load,9,true,false", // 5 + 4 (::total lines)
        "L1Cache,S,Load,4,true,false", // 0 + 4 of two caches
        "L1Cache,M,Inv,1,true,false",  // run b only
        "L1Cache,M,Evict,0,true,false",
        "L1Cache,IM,Store,0,true,true",  // a z_stall wildcard pair
        "Directory,I,Get,12,true,false", // scalar lines, 7 + 5
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
