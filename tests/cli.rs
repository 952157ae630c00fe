//! The command line as a script sees it: output, located errors, exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn memconform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .output()
        .expect("runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_malformed_token_is_located_and_exits_2() {
    let p = temp_file("bad-token.hist", "# a comment\nt0: W(x,1) X(y,2)\n");
    let o = memconform(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let want = format!("{}:2:12:", p.display());
    assert!(
        stderr(&o).contains(&want),
        "wanted {want} in {}",
        stderr(&o)
    );
}

#[test]
fn a_value_written_twice_is_located_and_exits_2() {
    let p = temp_file("twice.hist", "t0: W(x,1)\nt1: R(x,1) W(x,1)\n");
    let o = memconform(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains(&format!("{}:2:12:", p.display())), "{e}");
    assert!(e.contains("first at 1:5"), "{e}");
}

#[test]
fn a_duplicate_thread_is_located() {
    let p = temp_file("dup.hist", "t0: W(x,1)\nt0: R(x,1)\n");
    let o = memconform(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(":2:1: thread `t0` appears twice"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn good_files_are_still_checked_next_to_a_bad_one() {
    let good = temp_file(
        "good.hist",
        "@name mp_ok\nt0: W(x,1) W(y,1)\nt1: R(y,1) R(x,1)\n",
    );
    let bad = temp_file("bad.hist", "t0: W(x,0)\n");
    let o = memconform(&[
        "check",
        "--format",
        "report",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("mp_ok"));
    assert!(stderr(&o).contains("write of 0"), "{}", stderr(&o));
}

#[test]
fn exit_codes_tell_consistent_from_violation() {
    let ok = temp_file("ok.hist", "t0: W(x,1) W(y,1)\nt1: R(y,1) R(x,1)\n");
    let sb = temp_file("sb.hist", "t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
    assert_eq!(
        memconform(&["check", ok.to_str().unwrap()]).status.code(),
        Some(0)
    );
    let o = memconform(&["check", sb.to_str().unwrap(), "--models", "wsc"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("violates wsc"), "{}", stdout(&o));
    // SB is CC, CCv, CM and wCCM.
    let o = memconform(&["check", sb.to_str().unwrap(), "-m", "cc,ccv,cm,wccm"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn an_unknown_model_is_a_usage_error() {
    let ok = temp_file("ok2.hist", "t0: W(x,1)\n");
    let o = memconform(&["check", ok.to_str().unwrap(), "--models", "sc2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown model `sc2`"), "{}", stderr(&o));
}

#[test]
fn csv_is_tidy_and_matches_the_library() {
    let fixtures = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/papers-and-litmus.hist"
    );
    let o = memconform(&["check", fixtures, "--format", "csv"]);
    // every violation is one its history's `@expect` foresees: allowed
    assert_eq!(o.status.code(), Some(0));
    let mut rdr = csv::Reader::from_reader(o.stdout.as_slice());
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "file",
        "index",
        "name",
        "model",
        "verdict",
        "time_ms",
        "coverage",
        "decided_by",
    ] {
        assert!(
            header.contains(&col.to_string()),
            "column {col} in {header:?}"
        );
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 36 * 9);
    let histories = memconform::ingest::load_file(std::path::Path::new(fixtures)).unwrap();
    for r in &rows {
        let h = &histories[r[col("index")].parse::<usize>().unwrap()];
        assert_eq!(&r[col("name")], h.name.as_deref().unwrap());
        let model = memconform::models::Model::from_name(&r[col("model")]).unwrap();
        let want = if model.check(h).is_ok() {
            "consistent"
        } else {
            "violation"
        };
        assert_eq!(&r[col("verdict")], want);
    }
}

#[test]
fn the_fixtures_meet_their_expectations() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let o = memconform(&["check", fixtures, "--expect", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 36 * 9);
}

#[test]
fn axe_traces_are_recognised_by_content() {
    let p = temp_file(
        "traces.axe",
        "# SB, then SB with syncs\n0: M[1] := 1\n0: M[0] == 0\n1: M[0] := 1\n1: M[1] == 0\ncheck\n\
         0: M[1] := 1\n0: sync\n0: M[0] == 0\n1: M[0] := 1\n1: sync\n1: M[1] == 0\ncheck\n",
    );
    let o = memconform(&["check", p.to_str().unwrap(), "-m", "sc,tso", "-f", "csv"]);
    let out = stdout(&o);
    let mut rdr = csv::Reader::from_reader(out.as_bytes());
    let col = rdr
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "verdict")
        .unwrap();
    let verdicts: Vec<String> = rdr.records().map(|r| r.unwrap()[col].to_string()).collect();
    // rows: (trace 0: sc, tso), (trace 1: sc, tso)
    assert_eq!(
        verdicts,
        ["violation", "consistent", "violation", "violation"],
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn sc_tso_pso_are_decided_with_a_validated_witness() {
    let fixtures = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/papers-and-litmus.hist"
    );
    for engine in ["enum", "sat", "dp", "interleave"] {
        let o = memconform(&[
            "check",
            fixtures,
            "-m",
            "sc,tso,pso",
            "--engine",
            engine,
            "--expect",
            "-f",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", stderr(&o));
        for line in stdout(&o).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["certified"], "yes", "{engine}: {line}");
        }
    }
}

/// `(model, verdict)` of every CSV row of `check PATH -m sc,tso,pso`, in order.
fn sc_tso_pso_verdicts(path: &std::path::Path) -> Vec<(String, String)> {
    let o = memconform(&[
        "check",
        path.to_str().unwrap(),
        "-m",
        "sc,tso,pso",
        "-f",
        "csv",
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let mut rdr = csv::Reader::from_reader(o.stdout.as_slice());
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            (r[col("model")].to_string(), r[col("verdict")].to_string())
        })
        .collect()
}

#[test]
fn gen_axe_traces_get_the_verdicts_of_the_hist_files() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-{}-gen-axe", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut all = Vec::new();
    for memory in ["sc", "tso", "pso"] {
        let gen = |format: &str, out: Option<&std::path::Path>| {
            let mut args = vec![
                "gen",
                "--memory",
                memory,
                "--threads",
                "3",
                "--ops",
                "6",
                "--vars",
                "2",
                "--count",
                "8",
                "--seed",
                "7",
                "--faults",
                "0.5",
                "--format",
                format,
            ];
            if let Some(out) = out {
                args.extend(["-o", out.to_str().unwrap()]);
            }
            let o = memconform(&args);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            o.stdout
        };
        let hist = dir.join(memory).join("hist");
        let axe = dir.join(memory).join("axe");
        gen("hist", Some(&hist));
        gen("axe", Some(&axe));
        let names = |d: &std::path::Path| {
            let mut v: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            names(&hist),
            (0..8).map(|i| format!("h{i}.hist")).collect::<Vec<_>>()
        );
        assert_eq!(
            names(&axe),
            (0..8).map(|i| format!("h{i}.axe")).collect::<Vec<_>>()
        );
        let first = std::fs::read_to_string(axe.join("h0.axe")).unwrap();
        assert!(
            first.starts_with(&format!("# gen-{memory}-7\n# memory {memory}\n# seed 7\n")),
            "{first}"
        );
        assert!(first.ends_with("\ncheck\n"), "{first}");
        let want = sc_tso_pso_verdicts(&hist);
        assert_eq!(want.len(), 8 * 3);
        assert_eq!(sc_tso_pso_verdicts(&axe), want, "{memory}");
        // To stdout: one trace after another, one history per `check`.
        let stream = dir.join(memory).join("all.axe");
        std::fs::write(&stream, gen("axe", None)).unwrap();
        assert_eq!(sc_tso_pso_verdicts(&stream), want, "{memory} (stdout)");
        all.extend(want);
    }
    for verdict in ["consistent", "violation"] {
        assert!(
            all.iter().any(|(_, v)| v == verdict),
            "no {verdict} in {all:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_invalid_history_among_valid_ones_is_located_and_the_rest_checked() {
    let p = temp_file(
        "some-bad.hist",
        "t0: W(x,1)\nt1: R(x,1)\n---\nt0: W(x,1)\nt1: R(x,1) W(x,1)\n---\nt0: W(x,2)\nt1: R(x,2)\n",
    );
    let o = memconform(&["check", "--models", "sc", "-f", "csv", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(&format!("{}:5:12:", p.display())), "{e}");
    // the two valid histories (indices 0 and 2) are still checked
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].contains(",0,") && rows[1].contains(",2,"), "{out}");
    assert!(rows.iter().all(|r| r.contains(",consistent,")), "{out}");
}

#[test]
fn nothing_checked_exits_5() {
    let empty = temp_file("empty.hist", "");
    let o = memconform(&["check", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing checked"), "{}", stderr(&o));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("trace.txt"), "not a history\n").unwrap();
    let o = memconform(&["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
}

#[test]
fn an_unknown_verdict_without_violations_exits_6() {
    let p = temp_file("mp.hist", "t0: W(x,1) W(y,1)\nt1: R(y,1) R(x,1)\n");
    // a memory budget of one byte: every model is `unknown` with its reason
    let o = memconform(&[
        "check",
        "--models",
        "sc",
        "--max-memory",
        "1",
        "-f",
        "csv",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(stdout(&o).contains(",unknown,"), "{}", stdout(&o));
    assert!(stderr(&o).contains("1 verdicts unknown"), "{}", stderr(&o));
    // a violation still decides the status
    let v = temp_file("sb.hist", "t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
    let o = memconform(&["check", "--models", "cc,sc", v.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn model_names_are_case_insensitive() {
    let p = temp_file("sb2.hist", "t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
    let o = memconform(&[
        "check",
        "--models",
        "SC,Tso",
        "-f",
        "csv",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(",sc,violation,"), "{out}");
    assert!(out.contains(",tso,consistent,"), "{out}");
}

#[test]
fn out_of_range_numbers_are_usage_errors_not_panics() {
    let p = temp_file("ok.hist", "t0: W(x,1)\nt1: R(x,1)\n");
    for flag in [
        ["--timeout", "1e30"],
        ["--timeout", "inf"],
        ["--timeout", "NaN"],
        ["--timeout=-1", ""],
        ["-j", "18446744073709551615"],
        ["-j", "0"],
    ] {
        let o = memconform(&["check", flag[0], flag[1], p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{flag:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("invalid value"),
            "{flag:?}: {}",
            stderr(&o)
        );
    }
    for flag in [
        ["--vars", "18446744073709551615"],
        ["--threads", "4294967296"],
        ["--threads", "0"],
        ["--faults", "5"],
        ["--write-ratio", "2"],
        ["--write-ratio", "NaN"],
    ] {
        let o = memconform(&["gen", flag[0], flag[1]]);
        assert_eq!(o.status.code(), Some(2), "{flag:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("invalid value"),
            "{flag:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn the_output_is_replaced_whole_and_never_over_an_input() {
    let p = temp_file("in.hist", "t0: W(x,1)\nt1: R(x,1)\n");
    let before = std::fs::read_to_string(&p).unwrap();
    // -o naming the input: refused, the input untouched
    let o = memconform(&["check", p.to_str().unwrap(), "-o", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("refusing"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), before);
    // old results survive a run whose every input fails
    let out = temp_file("results.csv", "old results\n");
    let bad = temp_file("bad.hist", "t0: X(x,1)\n");
    let o = memconform(&[
        "check",
        "-f",
        "csv",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old results\n");
    // a run that checks something replaces them whole, leaving no temporary file
    let o = memconform(&[
        "check",
        "-f",
        "csv",
        p.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("file,") && text.contains(",consistent,"),
        "{text}"
    );
    let dir = out.parent().unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_full_disk_on_standard_output_is_exit_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full here");
        return;
    };
    let p = temp_file("full.hist", "t0: W(x,1)\nt1: R(x,1)\n");
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "-f", "csv", p.to_str().unwrap()])
        .stdout(full)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write output"), "{}", stderr(&o));
}

#[test]
fn each_input_is_checked_once_and_symlink_loops_end() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-once-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let h = dir.join("sub/a.hist");
    std::fs::write(&h, "t0: W(x,1)\nt1: R(x,1)\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
    let (d, f) = (dir.to_str().unwrap(), h.to_str().unwrap());
    let o = memconform(&["check", "--models", "cc", "-f", "csv", f, d, f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "one header, one row: {out}");
}

/// A file name that is not UTF-8 keeps its bytes in the `file` column
/// (`\xNN`, docs/reference.md, *Batches and outputs*), so two such files
/// stay apart.
#[test]
fn file_names_that_are_not_utf8_are_written_without_loss() {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-bytes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in [&b"run-\xff.hist"[..], b"run-\xfe.hist"] {
        let p = dir.join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(p, "t0: W(x,1)\nt1: R(x,1)\n").unwrap();
    }
    let o = memconform(&[
        "check",
        "--models",
        "cc",
        "-f",
        "csv",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(r"run-\xfe.hist") && out.contains(r"run-\xff.hist"),
        "{out}"
    );
    assert!(!out.contains('\u{fffd}'), "{out}");
}

#[test]
fn history_names_cannot_inject_formulas_or_terminal_escapes() {
    let p = temp_file(
        "names.hist",
        "@name =HYPERLINK(\"http://x\")\nt0: W(x,1)\n---\n@name a\u{1b}[31mred\nt0: W(x,1)\n",
    );
    let o = memconform(&["check", "--models", "cc", "-f", "csv", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("'=HYPERLINK"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out}");
    let o = memconform(&["check", "--models", "cc", p.to_str().unwrap()]);
    assert!(!stdout(&o).contains('\u{1b}'), "{}", stdout(&o));
}

/// The axe example of docs/hist-format.md (*axe traces*) is read, and
/// its final value (never written) is a violation, not an input error.
#[test]
fn the_documented_axe_example_is_read_and_its_impossible_final_is_a_violation() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/hist-format.md"))
        .unwrap();
    let section = &doc[doc.find("## axe traces").expect("the axe section")..];
    let start = section.find("```\n").expect("a code block") + 4;
    let block = &section[start..start + section[start..].find("```").unwrap()];
    let p = temp_file("doc-example.axe", block);
    let o = memconform(&[
        "check",
        p.to_str().unwrap(),
        "--models",
        "sc,tso",
        "-f",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ThinAirFinal"), "{out}");
    // the same trace with a final value written is consistent
    let fixed = block.replace("final M[1] == 2", "final M[1] == 1");
    assert_ne!(fixed, block);
    let p = temp_file("doc-example-fixed.axe", &fixed);
    let o = memconform(&["check", p.to_str().unwrap(), "--models", "sc,tso"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// `check --shard K/N` (docs/reference.md, *Commands*) over N processes and `merge` give the
/// unsharded results, every row once (times aside); merging is idempotent.
#[test]
fn sharded_checks_merge_into_the_unsharded_results() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-shard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = |n: &str| dir.join(n).to_string_lossy().into_owned();
    // 10,000 histories in two files, and a gem5 run (one unit of two views)
    for (seed, name) in [("0", "a.hist"), ("5000", "b.hist")] {
        let o = memconform(&[
            "gen",
            "--threads",
            "2",
            "--ops",
            "4",
            "--count",
            "5000",
            "--seed",
            seed,
            "--memory",
            "tso",
            "-o",
            &d(name),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let run = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/bug-mi5-n4-s1-rich");
    let inputs = [d("a.hist"), d("b.hist"), run.to_string()];
    let check = |extra: &[&str], out: &str| {
        let mut args = vec![
            "check",
            "--models",
            "cc,tso",
            "--real-time",
            "-f",
            "csv",
            "-o",
            out,
        ];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(extra);
        let o = memconform(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    };
    check(&[], &d("all.csv"));
    let n = 4;
    let parts: Vec<String> = (0..n).map(|k| d(&format!("part-{k}.csv"))).collect();
    for (k, p) in parts.iter().enumerate() {
        check(&["--shard", &format!("{k}/{n}")], p);
    }
    let mut args = vec!["merge", "-o"];
    let merged = d("merged.csv");
    args.push(&merged);
    args.extend(parts.iter().map(String::as_str));
    let o = memconform(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // rows without their time column, sorted
    let rows = |p: &str| {
        let mut r = csv::Reader::from_path(p).unwrap();
        let t = r
            .headers()
            .unwrap()
            .iter()
            .position(|c| c == "time_ms")
            .unwrap();
        let mut v: Vec<Vec<String>> = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                rec.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != t)
                    .map(|(_, c)| c.to_string())
                    .collect()
            })
            .collect();
        v.sort();
        v
    };
    let all = rows(&d("all.csv"));
    assert_eq!(all.len(), (10_000 + 2) * 2, "every history × model once");
    assert_eq!(rows(&merged), all);
    // idempotent: a part again changes nothing
    let again = d("again.csv");
    let o = memconform(&["merge", "-o", &again, &merged, &parts[0]]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&again), all);
    // never over an input
    let o = memconform(&["merge", "-o", &parts[1], &parts[0], &parts[1]]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

// Outputs, broken pipes, signals, control characters (docs/reference.md,
// *Batches and outputs* and *Exit status*).

/// A fresh temporary directory for test `name`.
fn fresh_dir(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The `*.tmp` files in `dir`.
fn temporaries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Waits (at most a minute) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !done() {
        assert!(t.elapsed().as_secs() < 60, "waited a minute for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// 20,000 generated histories in a fresh directory.
fn many_histories(name: &str) -> PathBuf {
    let d = fresh_dir(name);
    let o = memconform(&["gen", "--count", "20000", "-o", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(temporaries(&d).is_empty());
    d
}

/// `check` over many histories into `-o results.csv`, sent `signals` (by
/// `kill`) once rows are being written: its output, and the directory of
/// results.csv (which held `old` before).
fn check_signalled(inputs: &std::path::Path, name: &str, signals: &[&str]) -> (Output, PathBuf) {
    let dir = fresh_dir(name);
    let out = dir.join("results.csv");
    std::fs::write(&out, "old\n").unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memconform"));
    cmd.arg("check")
        .arg(inputs)
        .args(["-f", "csv", "-j", "1", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // memconform keeps a signal it was started with ignored (nohup): when
    // the tests themselves run under nohup, give the child SIGHUP's and
    // SIGTERM's default, as a terminal's shell would
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls (sigaction) between fork and exec
    unsafe {
        cmd.pre_exec(|| {
            use nix::sys::signal::{signal, SigHandler, Signal};
            for sig in [Signal::SIGHUP, Signal::SIGTERM] {
                signal(sig, SigHandler::SigDfl).map_err(std::io::Error::from)?;
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    // rows are being written: the temporary file beside results.csv grows
    wait_until("rows in the temporary output", || {
        std::fs::read_dir(&dir).unwrap().flatten().any(|e| {
            e.file_name().to_string_lossy().ends_with(".memconform.tmp")
                && e.metadata().is_ok_and(|m| m.len() > 0)
        })
    });
    let pid = child.id().to_string();
    let script: Vec<String> = signals.iter().map(|s| format!("kill -{s} {pid}")).collect();
    let sent = Command::new("sh")
        .arg("-c")
        .arg(script.join("; "))
        .status()
        .unwrap();
    assert!(sent.success());
    (child.wait_with_output().unwrap(), dir)
}

/// The rows of a results CSV, each checked whole (every column there).
fn whole_rows(text: &str) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().expect("a header").clone();
    assert_eq!(header.get(0), Some("file"), "{text:.200}");
    r.records()
        .map(|rec| {
            let rec = rec.expect("every row whole");
            assert_eq!(rec.len(), header.len());
            rec
        })
        .collect()
}

/// SIGTERM (`timeout`, `kill`, Slurm) and SIGHUP end `check` as Ctrl-C
/// does: the histories in flight `unknown`, every row before them written
/// whole, -o committed, no temporary file left; exit 128 + the signal.
#[test]
fn sigterm_and_sighup_stop_check_cleanly_with_the_output_committed() {
    let inputs = many_histories("many-sig");
    for (sig, code, name) in [("TERM", 143, "SIGTERM"), ("HUP", 129, "SIGHUP")] {
        let (o, dir) = check_signalled(&inputs, &format!("sig{sig}"), &[sig]);
        assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("interrupted by {name}")),
            "{}",
            stderr(&o)
        );
        let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
        let rows = whole_rows(&text);
        // whole histories only (9 models each), and not all of them
        assert!(
            !rows.is_empty() && rows.len() < 20_000 * 9,
            "{} rows",
            rows.len()
        );
        assert_eq!(rows.len() % 9, 0, "whole histories only");
        // the interrupted ones say which signal
        let reason = text
            .lines()
            .next()
            .unwrap()
            .split(',')
            .position(|c| c == "reason")
            .unwrap();
        if let Some(r) = rows.iter().find(|r| r[reason].starts_with("interrupted")) {
            assert_eq!(
                &r[reason],
                format!("interrupted ({name}) before this model finished")
            );
        }
        assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&inputs);
}

/// A second signal ends at once: -o keeps its old results or is replaced
/// whole, and no temporary file stays.
#[test]
fn a_second_signal_ends_check_at_once_without_a_temporary_file() {
    let inputs = many_histories("many-twice");
    let (o, dir) = check_signalled(&inputs, "sig-twice", &["TERM", "HUP"]);
    assert!(
        matches!(o.status.code(), Some(129 | 143)),
        "{:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    if text != "old\n" {
        assert_eq!(whole_rows(&text).len() % 9, 0);
    }
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&inputs);
}

/// Standard output closed early (a pipe's reader gone, as `| head` does):
/// every subcommand ends with 141, as a process SIGPIPE ends, never 0 and
/// never a panic.
#[test]
fn a_closed_pipe_on_standard_output_is_exit_141_for_every_command() {
    let dir = fresh_dir("pipe");
    let hist = dir.join("h.hist");
    let o = memconform(&["gen", "--count", "3000", "--faults", "0.5"]);
    std::fs::write(&hist, &o.stdout).unwrap();
    let results = dir.join("r.csv");
    let o = memconform(&[
        "check",
        "-f",
        "csv",
        "--models",
        "cc,sc",
        hist.to_str().unwrap(),
        "-o",
        results.to_str().unwrap(),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    std::fs::copy(&results, dir.join("r2.csv")).unwrap();

    // `check ... | head -1`: the reader takes a line and goes
    let mut child = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "-f", "csv", "-j", "1"])
        .arg(&hist)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("file,"), "{line}");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));

    // every command, its standard output a pipe whose reader is gone
    let root = env!("CARGO_MANIFEST_DIR");
    let (h, r, r2) = (
        hist.to_str().unwrap(),
        results.to_str().unwrap(),
        dir.join("r2.csv"),
    );
    let litmus = format!("{root}/examples/papers-and-litmus.hist");
    let tiny = format!("{root}/tests/data/slicc/tiny");
    let commands: Vec<Vec<&str>> = vec![
        vec!["check", "-f", "csv", h],
        vec!["check", h],
        vec!["gen", "--count", "5"],
        vec!["summarize", r],
        vec!["compare", r, r2.to_str().unwrap()],
        vec!["merge", r],
        vec!["plot", r, "--kind", "detection"],
        vec!["shrink", &litmus, "--model", "sc"],
        vec!["mutate", "list", &tiny, "--protocol", "Tiny"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
            .args(&args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-o` of gen, shrink and plot (like check's and merge's) writes a new
/// file beside the old one and renames it over it: a hard link to the old
/// file keeps the old bytes (it was never written half), a symlink stays a
/// link to the file it names, a device is written through, and no
/// temporary file stays.
#[test]
fn every_output_file_is_replaced_whole_never_written_in_place() {
    let dir = fresh_dir("outputs");
    let root = env!("CARGO_MANIFEST_DIR");
    let litmus = format!("{root}/examples/papers-and-litmus.hist");
    let results = dir.join("r.csv");
    let o = memconform(&[
        "check",
        "-f",
        "csv",
        &litmus,
        "-o",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    let gen_dir = dir.join("gen");
    std::fs::create_dir_all(&gen_dir).unwrap();
    // (an output path, the command writing it)
    let cases: Vec<(PathBuf, Vec<String>)> = vec![
        (
            dir.join("fig.svg"),
            [
                "plot",
                results.to_str().unwrap(),
                "--kind",
                "detection",
                "-o",
            ]
            .map(String::from)
            .to_vec(),
        ),
        (
            dir.join("min.hist"),
            ["shrink", &litmus, "--model", "sc", "-o"]
                .map(String::from)
                .to_vec(),
        ),
        (
            gen_dir.join("h0.hist"),
            ["gen", "--count", "1", "-o", gen_dir.to_str().unwrap()]
                .map(String::from)
                .to_vec(),
        ),
    ];
    for (out, args) in cases {
        let mut args = args.clone();
        if args[0] != "gen" {
            args.push(out.to_str().unwrap().to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // in place of a file: the old bytes stay with their inode
        std::fs::write(&out, "old\n").unwrap();
        let link = dir.join("old-link");
        let _ = std::fs::remove_file(&link);
        std::fs::hard_link(&out, &link).unwrap();
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "old\n", "{args:?}");
        let new = std::fs::read_to_string(&out).unwrap();
        assert!(new.len() > 10 && new != "old\n", "{args:?}");
        // a symlink stays a link, the file it names replaced
        let target = dir.join("target");
        std::fs::write(&target, "old\n").unwrap();
        std::fs::remove_file(&out).unwrap();
        std::os::unix::fs::symlink(&target, &out).unwrap();
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(std::fs::symlink_metadata(&out)
            .unwrap()
            .file_type()
            .is_symlink());
        // (the same output again, but for a shrink's timing)
        let again = std::fs::read_to_string(&target).unwrap();
        assert_eq!(again.lines().next(), new.lines().next(), "{args:?}");
        assert_eq!(again.lines().count(), new.lines().count(), "{args:?}");
        std::fs::remove_file(&out).unwrap();
        for d in [&dir, &gen_dir] {
            assert!(temporaries(d).is_empty(), "{args:?}: {:?}", temporaries(d));
        }
    }
    // a device is written through, never replaced
    for args in [
        vec!["plot", results.to_str().unwrap(), "--kind", "detection"],
        vec!["shrink", &litmus, "--model", "sc"],
    ] {
        let mut args = args.clone();
        args.extend(["-o", "/dev/null"]);
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file named with a line break and a terminal escape cannot forge a
/// line or drive the terminal in the messages on standard error (as in the
/// text report): they show it as the report does (`�`).
#[test]
fn control_characters_in_input_paths_are_escaped_in_error_messages() {
    let dir = fresh_dir("ctl");
    let bad = dir.join("bad\u{1b}[31m\nforged.hist");
    std::fs::write(&bad, "t0: W(x,1) X\u{1b}[2J(y,2)\n").unwrap();
    let o = memconform(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(!e.contains('\u{1b}'), "{e:?}");
    assert!(e.contains("bad\u{fffd}[31m\u{fffd}forged.hist:1:"), "{e:?}");
    // one line per error: the break in the name forged none
    assert_eq!(
        e.lines().filter(|l| l.starts_with("error: ")).count(),
        e.lines().filter(|l| l.contains("forged")).count(),
        "{e:?}"
    );
    // and in the text report's notes and shrink's messages alike
    let good = dir.join("good\u{1b}[1m.hist");
    std::fs::write(&good, "t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n").unwrap();
    let o = memconform(&["shrink", good.to_str().unwrap(), "--model", "sc"]);
    assert!(!stderr(&o).contains('\u{1b}'), "{:?}", stderr(&o));
    let o = memconform(&["check", good.to_str().unwrap(), "--models", "sc"]);
    assert!(!stdout(&o).contains('\u{1b}'), "{:?}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// Names in `.hist` follow their documented meaning (docs/hist-format.md).

/// `0xA`, `0xa` and `0x0a` are one address: a thread that writes 1 to
/// `0xA` and reads 0 from `0x0a` violates every model (it was consistent,
/// two variables), and `@final 0x0A=1` observes the write of `0xa` (it was
/// a thin-air final, a violation).
#[test]
fn hex_spellings_are_one_address() {
    let p = temp_file("hex.hist", "t0: W(0xA,1) R(0x0a,0)\n");
    let o = memconform(&[
        "check",
        "--models",
        "cc,sc",
        "-f",
        "csv",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let p = temp_file(
        "hex-final.hist",
        "@final 0x0A=1\nt0: W(0xa,1)\nt1: R(0xA,1)\n",
    );
    let o = memconform(&["check", "--models", "cc,sc", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// Directives that contradict each other in one history are input errors
/// at the second, naming the first: `@expect` for one model (another
/// verdict or the same), `@final` for one variable, `@protocol` twice.
#[test]
fn conflicting_directives_are_located() {
    let cases = [
        (
            "expect-twice.hist",
            "@expect sc=yes\n@expect sc=no\nt0: W(x,1)\n",
            ":2:9: second `@expect` entry for `sc` in one history: sc=no here, sc=yes at 1:9",
        ),
        (
            "expect-same.hist",
            "@expect cc=yes sc=yes cc=yes\nt0: W(x,1)\n",
            ":1:23: second `@expect` entry for `cc` in one history: cc=yes here, cc=yes at 1:9 (the same verdict twice)",
        ),
        (
            "final-twice.hist",
            "@final x=1\nt0: W(x,1) W(x,2)\n@final 0x1=1 x=2\n",
            ":3:14: second `@final` entry for `x` in one history: 2 here, 1 at 1:8",
        ),
        (
            "protocol-twice.hist",
            "@protocol MI_example\n@protocol MESI_Two_Level\nt0: W(x,1)\n",
            ":2:1: second `@protocol` in one history: `MESI_Two_Level` here, `MI_example` at 1:1",
        ),
    ];
    for (name, text, want) in cases {
        let p = temp_file(name, text);
        let o = memconform(&["check", "--expect", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let want = format!("{}{want}", p.display());
        assert!(
            stderr(&o).contains(&want),
            "{name}: wanted {want} in {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty(), "{name}: nothing checked");
    }
}

/// A byte order mark at the start of a file is skipped (it was a syntax
/// error); a zero-width space in a name is named where it is (the error
/// showed the line with the character invisible in it).
#[test]
fn invisible_characters_are_skipped_or_named() {
    let p = temp_file(
        "bom.hist",
        "\u{FEFF}@name sb\nt0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n",
    );
    let o = memconform(&[
        "check",
        "--format",
        "report",
        "--models",
        "tso",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("sb"), "{}", stdout(&o));
    let p = temp_file("zwsp.hist", "t0: W(x,1)\nt\u{200B}0: R(x,1)\n");
    let o = memconform(&["check", "--format", "report", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let want = format!(
        "{}:2:2: invisible character U+200B ZERO WIDTH SPACE at 2:2 (in `t0:`): delete it",
        p.display()
    );
    assert!(
        stderr(&o).contains(&want),
        "wanted {want} in {}",
        stderr(&o)
    );
    // in a history's name, too (it was accepted: two names that look alike)
    let p = temp_file("zwsp-name.hist", "@name s\u{200B}b\nt0: W(x,1)\n");
    let o = memconform(&["check", "--format", "report", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(":1:8: invisible character U+200B ZERO WIDTH SPACE at 1:8 (in `sb`)"),
        "{}",
        stderr(&o)
    );
}

// ---------------------------------------------------------------------------
// Memory (docs/design/gradual.md §7, docs/reference.md, *How big*).

/// Under an address-space limit (`ulimit -v`), the default budget is a
/// quarter of it: a history whose structures need more gets `unknown`
/// with the reason. It was a quarter of the machine's memory, and the
/// process aborted on an allocation (`memory allocation of N bytes
/// failed`, SIGABRT).
#[cfg(unix)]
#[test]
fn an_address_space_limit_gives_unknown_not_an_abort() {
    // 1,024 threads of 60 operations: the sparse structures of every model
    // need more than 100 MB
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wide = dir.join("wide.hist");
    let o = memconform(&[
        "gen",
        "--threads",
        "1024",
        "--ops",
        "60",
        "--vars",
        "64",
        "--seed",
        "5",
    ]);
    assert!(o.status.success());
    std::fs::write(&wide, &o.stdout).unwrap();
    let script = format!(
        "ulimit -v 400000 && exec '{}' check -f csv --models cc,wccm,sc '{}'",
        env!("CARGO_BIN_EXE_memconform"),
        wide.display()
    );
    let o = Command::new("sh").arg("-c").arg(&script).output().unwrap();
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{out}");
    for row in rows {
        assert!(row.contains(",unknown,"), "{row}");
        // 409,600,000 bytes of address space: a budget of 102 MB
        assert!(
            row.contains("with the sparse engine, over the 102 MB memory limit (--max-memory)"),
            "{row}"
        );
    }
}

/// One `.hist` history whose text passes what the budget lets a history
/// hold is an input error where it passes (not an allocation that may
/// abort the batch); the histories of other files are still checked.
#[test]
fn a_history_too_large_to_read_is_located() {
    let mut text = String::from("t0: W(x,1)\n---\n@name big\nt0:");
    for k in 1..=160_000 {
        text.push_str(&format!(" W(x,{k})"));
    }
    text.push('\n');
    let big = temp_file("big.hist", &text);
    let small = temp_file("small.hist", "t0: W(x,1)\n");
    let o = memconform(&[
        "check",
        "--models",
        "cc",
        "--max-memory",
        "1M",
        big.to_str().unwrap(),
        small.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let want = format!(
        "{}:4:1: history too large: the history that starts at 3:1 holds more than 1048576 bytes of text",
        big.display()
    );
    assert!(
        stderr(&o).contains(&want),
        "wanted {want} in {}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("small.hist"), "{}", stdout(&o));
}

/// A gem5 trace with more operations than the budget lets a history hold
/// stops there: every verdict `unknown`, with the reason.
#[test]
fn a_gem5_trace_past_the_budget_is_unknown() {
    let run = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/clean-n8-s3-gz");
    let o = memconform(&[
        "check",
        "--models",
        "cc",
        "--max-memory",
        "1M",
        "-f",
        "csv",
        run.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(",unknown,")
            && stdout(&o).contains("the trace holds more than 2048 operations: its histories would pass the memory budget (--max-memory)"),
        "{}",
        stdout(&o)
    );
}

/// docs/reference.md, *How big*: 2,048 one-operation threads (writes and the reads of
/// them) beside a store-buffering pair are decided — SC violated, TSO
/// consistent — within a 10 MB budget, where the threads' lanes alone
/// would need more (every verdict was `unknown`).
#[test]
fn many_one_operation_threads_are_decided_within_a_small_budget() {
    let mut text = String::from("a: W(y,1) R(z,0)\nb: W(z,1) R(y,0)\n");
    for t in 0..1024u64 {
        text.push_str(&format!(
            "w{t}: W(x{},{})\nr{t}: R(x{},{})\n",
            t % 8,
            t + 1,
            t % 8,
            t + 1
        ));
    }
    let p = temp_file("one-op-threads.hist", &text);
    let o = memconform(&[
        "check",
        "--models",
        "sc,tso",
        "--max-memory",
        "10M",
        "-f",
        "csv",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(",sc,violation,"), "{out}");
    assert!(out.contains(",tso,consistent,"), "{out}");
    assert!(!out.contains(",unknown,"), "{out}");
}
