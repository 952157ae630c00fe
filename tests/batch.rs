//! A batch of ≥ 1,000 generated histories through the CLI: the CSV has one
//! row per history × model with the documented columns, and every verdict
//! equals the single-history library path.

use std::process::Command;

/// An empty temporary directory for one test: `memconform-NAME-PID`, what an
/// earlier run left there removed.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_thousand_histories_through_the_csv() {
    let bin = env!("CARGO_BIN_EXE_memconform");
    let dir = fresh_dir("batch");
    let gen = Command::new(bin)
        .args([
            "gen",
            "--threads",
            "3",
            "--ops",
            "6",
            "--vars",
            "3",
            "--count",
            "1000",
            "--faults",
            "0.4",
            "-o",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(gen.success());
    let models = ["cc", "ccv", "cm", "wsc", "sc", "tso", "pso"];
    let out = Command::new(bin)
        .arg("check")
        .arg(&dir)
        .args(["-f", "csv", "-j", "2", "-m", &models.join(",")])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rdr = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "file",
        "index",
        "name",
        "protocol",
        "variant",
        "seed",
        "cpus",
        "model",
        "verdict",
        "decided_by",
        "pattern",
        "cycle_len",
        "ops",
        "threads",
        "writes",
        "time_ms",
        "write_pairs",
        "ordered_pairs",
        "coverage",
        "engine",
        "unordered_pairs",
        "reason",
        "certified",
    ] {
        assert!(
            header.iter().any(|h| h == col),
            "column {col} in {header:?}"
        );
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 1000 * models.len());
    let (mut violations, mut consistent) = (0, 0);
    for r in &rows {
        let path = std::path::Path::new(&r[col("file")]);
        let hs = memconform::ingest::load_file(path).unwrap();
        let h = &hs[r[col("index")].parse::<usize>().unwrap()];
        let m = memconform::models::Model::from_name(&r[col("model")]).unwrap();
        let want = if m.check(h).is_ok() {
            "consistent"
        } else {
            "violation"
        };
        assert_eq!(
            &r[col("verdict")],
            want,
            "{} {}",
            path.display(),
            &r[col("model")]
        );
        assert_eq!(&r[col("certified")], "yes");
        assert_eq!(
            &r[col("seed")],
            h.meta.iter().find(|(k, _)| k == "seed").unwrap().1.as_str()
        );
        violations += (want == "violation") as usize;
        consistent += (want == "consistent") as usize;
    }
    assert!(
        violations > 500 && consistent > 500,
        "{violations} violations, {consistent} consistent"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_every_finished_row() {
    let bin = env!("CARGO_BIN_EXE_memconform");
    let dir = fresh_dir("sigint");
    let gen = Command::new(bin)
        .args([
            "gen",
            "--threads",
            "8",
            "--ops",
            "60",
            "--count",
            "3000",
            "-o",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(gen.success());
    let child = Command::new(bin)
        .arg("check")
        .arg(&dir)
        .args(["-f", "csv", "-j", "1", "-m", "cc,ccv,cm,ccm,wsc,sc"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    let mut rdr = csv::Reader::from_reader(out.stdout.as_slice());
    let rows: Vec<csv::StringRecord> = rdr
        .records()
        .map(|r| r.expect("every row is whole"))
        .collect();
    assert!(
        !rows.is_empty() && rows.len() < 3000 * 6,
        "{} rows",
        rows.len()
    );
    assert_eq!(rows.len() % 6, 0, "whole histories only");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A large `.hist` file and the client's output are checked whole beside
/// the reading of their histories at `-j 2` (their reports held until the
/// check passed): a file with a syntax error near its end still gives only
/// its error, the files around it all their rows, as at `-j 1`.
#[test]
fn a_file_read_while_it_is_checked_whole_gives_only_its_error() {
    let bin = env!("CARGO_BIN_EXE_memconform");
    let dir = fresh_dir("ahead");
    std::fs::create_dir_all(&dir).unwrap();
    // the client's output: 40 runs of 10 rounds each, one after the other
    let run = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/se-o3-n2-s1/client.out"),
    )
    .unwrap();
    let client = run.repeat(40);
    // its last run's last operation line cut short
    let last_t1 = client.rfind("\nt1: ").unwrap() + 1;
    let client_bad = format!(
        "{}t1: W(w0,0x2\n# memconform-client end histories=10\n",
        &client[..last_t1]
    );
    let bad_client_line = client[..last_t1].matches('\n').count() + 1;
    // a .hist file past a sixteenth of a 1 MiB budget: read a history at a time
    let hist: String = (0..3000)
        .map(|i| {
            format!(
                "@name h{i}\nt0: W(x,1) R(x,{})\nt1: R(x,1) W(x,2)\n---\n",
                i % 3
            )
        })
        .collect();
    let hist_bad = format!("{hist}t0: W(x,1\n");
    let bad_hist_line = hist.matches('\n').count() + 1;
    let files = [
        ("a.out", client.as_str()),
        ("b.out", client_bad.as_str()),
        ("c.hist", hist.as_str()),
        ("d.hist", hist_bad.as_str()),
        ("e.out", client.as_str()),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let run = |jobs: &str, shard: &str| {
        Command::new(bin)
            .arg("check")
            .args(files.iter().map(|(name, _)| dir.join(name)))
            .args(["-f", "csv", "-m", "cc,sc", "--max-memory", "1M", "-j", jobs])
            .args(["--shard", shard])
            .output()
            .unwrap()
    };
    let rows_of = |out: &std::process::Output| -> (Vec<Vec<String>>, usize) {
        let mut rdr = csv::Reader::from_reader(out.stdout.as_slice());
        let header = rdr.headers().unwrap().clone();
        let time = header.iter().position(|h| h == "time_ms").unwrap();
        let rows = rdr
            .records()
            .map(|r| {
                let r = r.unwrap();
                (0..r.len())
                    .filter(|&i| i != time)
                    .map(|i| r[i].to_string())
                    .collect()
            })
            .collect();
        (rows, header.iter().position(|h| h == "file").unwrap())
    };
    let check = |jobs: &str| {
        let out = run(jobs, "0/1");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (rows, file) = rows_of(&out);
        let per_file = |name: &str| rows.iter().filter(|r| r[file].ends_with(name)).count();
        let counts: Vec<usize> = files.iter().map(|(name, _)| per_file(name)).collect();
        assert_eq!(counts, [800, 0, 6000, 0, 800]);
        (rows, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (rows2, err2) = check("2");
    let (rows1, err1) = check("1");
    assert_eq!(rows1, rows2);
    for err in [&err1, &err2] {
        for (name, line) in [("b.out", bad_client_line), ("d.hist", bad_hist_line)] {
            let at = format!("{}:{line}:", dir.join(name).display());
            assert!(err.contains(&at), "{at} in {err}");
        }
    }
    // two shards, one reading ahead (`-j 2`), one not: every row once,
    // each file's error once
    let (mut union, mut errors) = (Vec::new(), String::new());
    for (jobs, shard) in [("1", "0/2"), ("2", "1/2")] {
        let out = run(jobs, shard);
        union.extend(rows_of(&out).0);
        errors.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    let key = |r: &Vec<String>| (r[0].clone(), r[1].parse::<usize>().unwrap(), r[10].clone());
    union.sort_by_key(key);
    let mut all = rows1.clone();
    all.sort_by_key(key);
    assert!(
        union == all,
        "{} rows from the shards, {} from one process",
        union.len(),
        all.len()
    );
    for name in ["b.out", "d.hist"] {
        let at = format!("{}:", dir.join(name).display());
        assert_eq!(errors.matches(&at).count(), 1, "{name} in {errors}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summary shrinks counterexamples only from a file's first 64 broken
/// histories (in input order), so a large file of broken histories holds
/// their reports, not the histories, while it is checked whole: a different
/// counterexample after 70 like ones is counted, not shown, and the output
/// is the same with one worker and with two.
#[test]
fn the_summary_shows_counterexamples_of_the_first_broken_histories_only() {
    let bin = env!("CARGO_BIN_EXE_memconform");
    let dir = fresh_dir("first-broken");
    std::fs::create_dir_all(&dir).unwrap();
    // store buffering (SC forbids both reads of 0), 70 times; then a stale
    // read after the thread's own write, a different counterexample
    let mut text = String::new();
    for i in 0..70 {
        text += &format!("@name sb{i}\nt0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n---\n");
    }
    text += "@name stale\nt0: W(x,1) R(x,0)\n---\n";
    let file = dir.join("many.hist");
    std::fs::write(&file, text).unwrap();
    let run = |jobs: &str| {
        let out = Command::new(bin)
            .args(["check", "--models", "sc", "-j", jobs])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        // (without the run's line: its time)
        text.lines()
            .filter(|l| !l.ends_with(" ms") && !l.ends_with(" s"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let one = run("1");
    assert!(one.contains("71 break their promise"), "{one}");
    assert!(one.contains("#0 sb0"), "{one}");
    assert!(one.contains("#63\n"), "{one}");
    assert!(one.contains("and 7 more breaking histories"), "{one}");
    assert!(!one.contains("stale"), "{one}");
    assert_eq!(one, run("2"));
}
