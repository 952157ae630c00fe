//! Trust, round 3: the layer around the verdict engine as a hostile user
//! meets it, through the built binary. Outputs never destroy inputs (class
//! 2), no input is skipped silently (3), no row counts twice (4), walks are
//! linear and report symlink loops once (7), messages are for people (8).
//! (Class 5, campaign logs torn by a crash, is in tests/campaign.rs.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn memconform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh temporary directory for test `name`.
fn fresh_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-trust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of the bundled run `from` (a gem5 output directory) at `to`.
fn copy_run(from: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(from);
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Every file under `dir` with its bytes, sorted: what an output must not
/// change.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                todo.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const SB: &str = "@name sb\nt0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n";

// Class 2: outputs never destroy inputs.

#[test]
fn no_output_of_check_lands_on_an_input_or_inside_an_input_run() {
    let d = fresh_dir("check-outputs");
    let run = d.join("run");
    copy_run("traces/se-o3-me8-n2-s1", &run);
    let before = snapshot(&run);
    // -o over a file of the run (existing or new), --shrink, --html, --dot
    // inside it: each refused, exit 2, the run as it was
    for flags in [
        vec!["-f", "csv", "-o", "run/config.ini"],
        vec!["-f", "csv", "-o", "run/results.csv"],
        vec!["--models", "tso", "--shrink", "run/shrunk"],
        vec!["--models", "tso", "--html", "run/report"],
        vec!["--models", "tso", "--dot", "run"],
    ] {
        let mut args = vec!["check", "run"];
        args.extend(&flags);
        let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(&args)
            .current_dir(&d)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("lies in the input directory"),
            "{flags:?}: {}",
            stderr(&o)
        );
        assert_eq!(snapshot(&run), before, "{flags:?} changed the run");
    }
    // a shrunk counterexample whose name is an input's, in the searched
    // directory: that input is kept, the others written
    let hists = d.join("hists");
    std::fs::create_dir_all(&hists).unwrap();
    std::fs::write(hists.join("sb.hist"), SB).unwrap();
    let victim = "t0: W(x,1)\n";
    std::fs::write(hists.join("sb-0-sc.hist"), victim).unwrap();
    let o = memconform(&["check", s(&hists), "--models", "sc", "--shrink", s(&hists)]);
    assert_eq!(
        std::fs::read_to_string(hists.join("sb-0-sc.hist")).unwrap(),
        victim,
        "{}",
        stderr(&o)
    );
    // said on stderr, and exit 2: an output that could not be written
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("it is one of the inputs"),
        "{}",
        stderr(&o)
    );
    // a file given as input, through a symlink
    let link = d.join("link.hist");
    std::os::unix::fs::symlink(hists.join("sb.hist"), &link).unwrap();
    let o = memconform(&["check", s(&hists.join("sb.hist")), "-o", s(&link)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(hists.join("sb.hist")).unwrap(), SB);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn shrink_plot_and_merge_refuse_an_output_over_an_input() {
    let d = fresh_dir("other-outputs");
    let run = d.join("run");
    copy_run("traces/se-o3-me8-n2-s1", &run);
    let before = snapshot(&run);
    let o = memconform(&[
        "shrink",
        s(&run),
        "--model",
        "tso",
        "-o",
        s(&run.join("shrunk.hist")),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(snapshot(&run), before);
    // results to plot and merge
    let sb = d.join("sb.hist");
    std::fs::write(&sb, SB).unwrap();
    let csv = d.join("r.csv");
    let o = memconform(&["check", s(&sb), "-f", "csv", "-o", s(&csv)]);
    assert!(o.status.code() == Some(1), "{}", stderr(&o));
    let rows = std::fs::read(&csv).unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink(&csv, &link).unwrap();
    for args in [
        vec!["plot", s(&csv), "--kind", "detection", "-o", s(&csv)],
        vec!["plot", s(&csv), "--kind", "detection", "-o", s(&link)],
        vec!["merge", s(&csv), "-o", s(&link)],
    ] {
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("one of the inputs"), "{}", stderr(&o));
        assert_eq!(std::fs::read(&csv).unwrap(), rows, "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_merge_of_header_only_parts_writes_the_header() {
    let d = fresh_dir("merge-header");
    let sb = d.join("sb.hist");
    std::fs::write(&sb, SB).unwrap();
    let full = d.join("full.csv");
    let o = memconform(&["check", s(&sb), "-f", "csv", "-o", s(&full)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(&full).unwrap();
    let header = text.lines().next().unwrap();
    let (a, b) = (d.join("a.csv"), d.join("b.csv"));
    std::fs::write(&a, format!("{header}\n")).unwrap();
    std::fs::write(&b, format!("{header}\n")).unwrap();
    let out = d.join("merged.csv");
    std::fs::write(&out, "old results\n").unwrap();
    let o = memconform(&["merge", s(&a), s(&b), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("{header}\n")
    );
    // and it merges again, with the full results
    let again = d.join("again.csv");
    let o = memconform(&["merge", s(&out), s(&full), "-o", s(&again)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
    let _ = std::fs::remove_dir_all(&d);
}

// Class 3: no input skipped silently.

#[test]
fn a_hist_inside_a_gem5_run_is_checked() {
    let d = fresh_dir("hist-in-run");
    let run = d.join("run");
    copy_run("traces/se-o3-n2-s1", &run);
    std::fs::write(run.join("sb.hist"), SB).unwrap();
    let o = memconform(&["check", s(&run), "--models", "sc", "-f", "csv"]);
    let out = stdout(&o);
    let of_sb: Vec<&str> = out.lines().filter(|l| l.contains("sb.hist")).collect();
    assert_eq!(of_sb.len(), 1, "{out}\n{}", stderr(&o));
    assert!(of_sb[0].contains(",violation,"), "{}", of_sb[0]);
    let _ = std::fs::remove_dir_all(&d);
}

// Class 4: never a silent double count.

#[test]
fn a_merge_with_its_parts_counts_once_in_summarize_and_plot() {
    let d = fresh_dir("double-count");
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/papers-and-litmus.hist");
    let part = |k: usize| d.join(format!("part-{k}.csv"));
    for k in 0..2 {
        let shard = format!("{k}/2");
        let o = memconform(&[
            "check",
            s(&ex),
            "-f",
            "csv",
            "--shard",
            &shard,
            "-o",
            s(&part(k)),
        ]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    }
    let merged = d.join("merged.csv");
    let o = memconform(&["merge", s(&part(0)), s(&part(1)), "-o", s(&merged)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let alone = memconform(&["summarize", s(&merged)]);
    assert_eq!(alone.status.code(), Some(0), "{}", stderr(&alone));
    let both = memconform(&["summarize", s(&merged), s(&part(0)), s(&part(1))]);
    assert_eq!(both.status.code(), Some(0), "{}", stderr(&both));
    assert_eq!(stdout(&both), stdout(&alone));
    assert!(stderr(&both).contains("read twice"), "{}", stderr(&both));
    // the same for a figure
    let svg = |files: &[&Path]| {
        let mut args = vec!["plot", "--kind", "detection"];
        args.extend(files.iter().map(|p| s(p)));
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    let (one, quiet) = svg(&[&merged]);
    let (three, noted) = svg(&[&merged, &part(0), &part(1)]);
    assert_eq!(three, one);
    assert!(quiet.is_empty() && noted.contains("read twice"), "{noted}");
    // compare: one file holding a merge and a part (concatenated) is refused
    // at the repeated row (B against itself stays a sanity check)
    let cat = d.join("cat.csv");
    let mut text = std::fs::read_to_string(&merged).unwrap();
    text.push_str(&std::fs::read_to_string(part(0)).unwrap());
    std::fs::write(&cat, text).unwrap();
    let o = memconform(&["compare", s(&cat), "--variant-column", "variant"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cat.csv:"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}

// Class 7: linear walks.

#[test]
fn a_two_thousand_deep_chain_is_walked_at_once_and_a_loop_reported_once() {
    // one-letter names under a short prefix: the deepest path stays under
    // PATH_MAX (4096)
    let d = tempfile_dir();
    let mut deepest = d.clone();
    for _ in 0..2000 {
        deepest.push("d");
    }
    std::fs::create_dir_all(&deepest).unwrap();
    std::fs::write(deepest.join("sb.hist"), SB).unwrap();
    // a loop back to the top, halfway down
    let mut half = d.clone();
    for _ in 0..1000 {
        half.push("d");
    }
    std::os::unix::fs::symlink(&d, half.join("up")).unwrap();
    let t = std::time::Instant::now();
    let o = memconform(&["check", s(&d), "--models", "sc", "-f", "csv"]);
    let secs = t.elapsed().as_secs_f64();
    // the old walk (a canonical path per directory) took 170 s here
    assert!(secs < 20.0, "{secs:.1} s");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().filter(|l| l.contains("sb.hist")).count(),
        1
    );
    assert_eq!(
        stderr(&o).matches("symlink loop").count(),
        1,
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A new directory with a short path (`/tmp/mc-…`).
fn tempfile_dir() -> PathBuf {
    let d = PathBuf::from(format!("/tmp/mc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// Class 8: messages for people.

#[test]
fn messages_name_the_tester_and_configurations_in_words() {
    let o = memconform(&[
        "check",
        "traces/bug-mi5-n4-s1-rich",
        "--models",
        "cc",
        "--format",
        "report",
    ]);
    let out = stdout(&o);
    assert!(
        out.contains("gem5 run: protocol MI_example, Ruby random tester, 4 CPUs"),
        "{out}"
    );
    // a configuration of another system beside config.ini
    let d = fresh_dir("two-configs");
    let run = d.join("run");
    copy_run("traces/clean-n8-s3-gz", &run);
    std::fs::copy(
        "tests/data/gem5/mi_example/clean-n4-s2/config.json",
        run.join("config.json"),
    )
    .unwrap();
    let o = memconform(&["check", s(&run), "--models", "cc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("config.ini describes MI_example, Ruby random tester, 8 CPUs"),
        "{e}"
    );
    for debug in ["RubyRandom", "{ cpus", "Some(", "[(\""] {
        assert!(
            !out.contains(debug) && !e.contains(debug),
            "`{debug}`: {out}{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
