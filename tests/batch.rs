//! A batch of ≥ 1,000 generated histories through the CLI: the CSV has one
//! row per history × model with the documented columns, and every verdict
//! equals the single-history library path.

use std::process::Command;

#[test]
fn a_thousand_histories_through_the_csv() {
    let bin = env!("CARGO_BIN_EXE_memconform");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-sigint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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
