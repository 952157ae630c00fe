//! The reporting commands (`summarize`, `compare`, `plot`) on results that
//! the real binary produced from generated histories: numbers are checked
//! against counts taken directly from the CSV.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MODELS: &str = "cc,ccv,cm,ccm,wsc,sc,tso";

fn memconform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test, removed when the test passes.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn temp_dir(test: &str) -> TempDir {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-report-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Generates histories into `dir/name` and checks them; returns the CSV's path.
fn results(dir: &Path, name: &str, threads: usize, count: usize, seed: u64) -> PathBuf {
    let runs = dir.join(name);
    let o = memconform(&[
        "gen",
        "--threads",
        &threads.to_string(),
        "--ops",
        "20",
        "--count",
        &count.to_string(),
        "--seed",
        &seed.to_string(),
        "--faults",
        "0.5",
        "-o",
        s(&runs),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = memconform(&["check", s(&runs), "-f", "csv", "--models", MODELS]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let csv = dir.join(format!("{name}.csv"));
    std::fs::write(&csv, &o.stdout).unwrap();
    csv
}

/// A CSV as header + maps from column to value.
fn read(text: &str) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn num(v: &str) -> f64 {
    v.parse()
        .unwrap_or_else(|_| panic!("`{v}` is not a number"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-3 * (1.0 + b.abs())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn summarize_counts_match_the_csv() {
    let dir = temp_dir("summarize");
    let csv = results(&dir, "runs", 4, 60, 100);
    let rows = read(&std::fs::read_to_string(&csv).unwrap());
    let o = memconform(&["summarize", s(&csv), "--format", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let summary = read(&stdout(&o));

    let models: Vec<&str> = MODELS.split(',').collect();
    assert_eq!(
        summary
            .iter()
            .map(|r| r["model"].as_str())
            .collect::<Vec<_>>(),
        models,
        "one line per model, weakest first"
    );
    let total_violations = rows.iter().filter(|r| r["verdict"] == "violation").count();
    assert!(
        total_violations > 0,
        "the faults should break some histories"
    );
    for line in &summary {
        let m = &line["model"];
        let mine: Vec<_> = rows.iter().filter(|r| &r["model"] == m).collect();
        let viol: Vec<_> = mine
            .iter()
            .filter(|r| r["verdict"] == "violation")
            .collect();
        assert_eq!(num(&line["histories"]) as usize, mine.len(), "{m}");
        assert_eq!(num(&line["violations"]) as usize, viol.len(), "{m}");
        let unknown = mine.iter().filter(|r| r["verdict"] == "unknown").count();
        assert_eq!(num(&line["unknown"]) as usize, unknown, "{m}");
        // the caught_<stage> columns: share of the violations decided by each stage
        let mut by_stage: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &viol {
            *by_stage.entry(r["decided_by"].as_str()).or_default() += 1;
        }
        for (stage, k) in &by_stage {
            let col = format!("caught_{stage}");
            let want = 100.0 * *k as f64 / viol.len() as f64;
            assert!(
                close(num(&line[&col]), want),
                "{m} {col}: {} vs {want}",
                line[&col]
            );
        }
        let caught_sum: f64 = line
            .iter()
            .filter(|(k, v)| k.starts_with("caught_") && !v.is_empty())
            .map(|(_, v)| num(v))
            .sum();
        if !viol.is_empty() {
            assert!(close(caught_sum, 100.0), "{m}: stages sum to {caught_sum}");
        }
        let times: Vec<f64> = mine.iter().map(|r| num(&r["time_ms"])).collect();
        assert!(close(num(&line["time_median_ms"]), median(times)), "{m}");
        let cov: Vec<f64> = mine
            .iter()
            .filter(|r| !r["coverage"].is_empty())
            .map(|r| num(&r["coverage"]))
            .collect();
        if cov.is_empty() {
            assert_eq!(line["coverage_mean"], "", "{m}");
        } else {
            let mean = cov.iter().sum::<f64>() / cov.len() as f64;
            assert!(close(num(&line["coverage_mean"]), mean), "{m}");
        }
    }
    // gradual chains: cc catches part of sc's violations
    let sc = summary.iter().find(|r| r["model"] == "sc").unwrap();
    assert!(!sc["caught_cc"].is_empty());

    // the table shows the same groups
    let o = memconform(&["summarize", s(&csv)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.starts_with("model"), "{table}");
    for m in &models {
        assert!(table.lines().any(|l| l.starts_with(m)), "{m} in {table}");
    }
    assert!(table.contains("median ms"), "{table}");
}

#[test]
fn summarize_groups_by_several_columns_over_several_files() {
    let dir = temp_dir("summarize-by");
    let a = results(&dir, "t2", 2, 12, 0);
    let b = results(&dir, "t3", 3, 12, 500);
    let o = memconform(&[
        "summarize",
        s(&a),
        s(&b),
        "--by",
        "threads,model",
        "-f",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let summary = read(&stdout(&o));
    assert_eq!(summary.len(), 2 * MODELS.split(',').count());
    assert_eq!(summary[0]["threads"], "2");
    assert_eq!(summary[0]["model"], "cc");
    assert_eq!(summary.last().unwrap()["threads"], "3");
    assert!(summary.iter().all(|r| r["histories"] == "12"));
    // grouped by verdict, read from standard input
    let text = std::fs::read(&a).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["summarize", "-", "--by", "verdict", "-f", "csv"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let by_verdict = read(&stdout(&o));
    let total: usize = by_verdict
        .iter()
        .map(|r| num(&r["histories"]) as usize)
        .sum();
    assert_eq!(total, 12 * MODELS.split(',').count());
}

#[test]
fn bad_csv_is_reported_with_file_and_line() {
    let dir = temp_dir("bad");
    let bad_number = dir.join("bad-number.csv");
    std::fs::write(
        &bad_number,
        "file,index,model,verdict,time_ms\na.hist,0,cc,consistent,0.5\na.hist,0,sc,violation,slow\n",
    )
    .unwrap();
    let o = memconform(&["summarize", s(&bad_number)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}:3: column `time_ms`", bad_number.display())),
        "{}",
        stderr(&o)
    );

    let bad_verdict = dir.join("bad-verdict.csv");
    std::fs::write(&bad_verdict, "model,verdict\ncc,consistent\ncc,maybe\n").unwrap();
    for cmd in ["summarize", "plot"] {
        let mut args = vec![cmd, s(&bad_verdict)];
        if cmd == "plot" {
            args.extend(["--kind", "detection"]);
        }
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&o).contains(&format!("{}:3: column `verdict`", bad_verdict.display())),
            "{}",
            stderr(&o)
        );
    }

    let ragged = dir.join("ragged.csv");
    std::fs::write(
        &ragged,
        "model,verdict\ncc,consistent\ncc,consistent,extra\n",
    )
    .unwrap();
    let o = memconform(&["summarize", s(&ragged)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}:3:", ragged.display())),
        "{}",
        stderr(&o)
    );

    let no_model = dir.join("no-model.csv");
    std::fs::write(&no_model, "file,verdict\na.hist,consistent\n").unwrap();
    let o = memconform(&["summarize", s(&no_model)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("{}:1: no `model` column", no_model.display())));

    let o = memconform(&["summarize", s(&dir.join("missing.csv"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("missing.csv: cannot read"),
        "{}",
        stderr(&o)
    );

    let good = dir.join("good.csv");
    std::fs::write(&good, "model,verdict\ncc,consistent\n").unwrap();
    let o = memconform(&["summarize", s(&good), "--by", "protocol"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no column `protocol`"),
        "{}",
        stderr(&o)
    );
}

/// What a results CSV cannot hold is an error with its line
/// (docs/reference.md, *Reports and figures*), never a silent last-wins, a double count or an impossible value.
#[test]
fn impossible_results_are_errors_with_their_line() {
    let dir = temp_dir("impossible");
    let cases: [(&str, &str, &str); 6] = [
        (
            "twice.csv",
            "model,verdict,model\ncc,consistent,sc\n",
            ":1: column `model` appears twice (columns 1 and 3)",
        ),
        (
            "coverage.csv",
            "model,verdict,coverage\ncc,consistent,0.5\nwsc,consistent,2.5\n",
            ":3: column `coverage`: `2.5` is not a coverage from 0 to 1",
        ),
        (
            "time.csv",
            "model,verdict,time_ms\ncc,consistent,-1\n",
            ":2: column `time_ms`: `-1` is not a time in ms",
        ),
        (
            "model.csv",
            "model,verdict\ncc,consistent\nzz,consistent\n",
            ":3: column `model`: `zz` is not a model",
        ),
        (
            "concatenated.csv",
            "file,index,model,verdict\na.hist,0,cc,consistent\nfile,index,model,verdict\na.hist,0,cc,consistent\n",
            ":4: the same row as line 2",
        ),
        (
            "kernel.csv",
            "model,verdict,kernel_coverage\nsc,consistent,-0.1\n",
            ":2: column `kernel_coverage`",
        ),
    ];
    for (file, text, expected) in cases {
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        for cmd in ["summarize", "plot"] {
            let mut args = vec![cmd, s(&path)];
            if cmd == "plot" {
                args.extend(["--kind", "detection"]);
            }
            let o = memconform(&args);
            assert_eq!(o.status.code(), Some(2), "{cmd} {file}: {}", stderr(&o));
            assert!(
                stderr(&o).contains(&format!("{}{expected}", path.display())),
                "{cmd} {file}: {}",
                stderr(&o)
            );
        }
    }
    // two variants in one file (a header between them) are fine
    let two = dir.join("two.csv");
    std::fs::write(
        &two,
        "model,verdict,variant\ncc,consistent,a\nmodel,verdict,variant\ncc,consistent,b\n",
    )
    .unwrap();
    let o = memconform(&["summarize", s(&two), "--by", "variant,model"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // one file given twice would count twice
    let o = memconform(&["summarize", s(&two), s(&two)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("are the same file"), "{}", stderr(&o));
}

/// Copies a results CSV, moving its files to another directory, setting
/// the `variant` column and flipping the verdicts of `flip` (row numbers).
fn rewrite(src: &Path, dst: &Path, variant: &str, flip: &[usize]) -> Vec<(String, String)> {
    let mut r = csv::Reader::from_path(src).unwrap();
    let header = r.headers().unwrap().clone();
    let col = |c: &str| header.iter().position(|h| h == c).unwrap();
    let (file, index, model, verdict, decided_by, var) = (
        col("file"),
        col("index"),
        col("model"),
        col("verdict"),
        col("decided_by"),
        col("variant"),
    );
    let mut w = csv::Writer::from_path(dst).unwrap();
    w.write_record(&header).unwrap();
    let mut flipped = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let mut v: Vec<String> = rec.unwrap().iter().map(String::from).collect();
        v[file] = v[file].replace("/runs/", &format!("/runs-{variant}/"));
        v[var] = variant.to_string();
        if flip.contains(&i) {
            v[verdict] = if v[verdict] == "violation" {
                "consistent".to_string()
            } else {
                v[decided_by] = v[model].clone();
                "violation".to_string()
            };
            flipped.push((format!("{}#{}", v[file], v[index]), v[model].clone()));
        }
        w.write_record(&v).unwrap();
    }
    w.flush().unwrap();
    flipped
}

#[test]
fn compare_reports_the_flips_made_on_purpose() {
    let dir = temp_dir("compare");
    let a = results(&dir, "runs", 3, 30, 7);
    let rows = read(&std::fs::read_to_string(&a).unwrap());
    // three consistent sc rows become violations, one violation becomes consistent
    let consistent_sc: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i]["model"] == "sc" && rows[i]["verdict"] == "consistent")
        .take(3)
        .collect();
    let violation_cc = (0..rows.len())
        .find(|&i| rows[i]["model"] == "cc" && rows[i]["verdict"] == "violation")
        .expect("a cc violation");
    assert_eq!(consistent_sc.len(), 3);
    let mut flip = consistent_sc.clone();
    flip.push(violation_cc);
    let b = dir.join("b.csv");
    let flipped = rewrite(&a, &b, "bug", &flip);
    assert_eq!(flipped.len(), 4);

    let o = memconform(&["compare", s(&a), s(&b), "-f", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp = read(&stdout(&o));
    for line in &cmp {
        let m = line["model"].as_str();
        assert_eq!(
            line["matched"], "30",
            "{m}: matched by seed across directories"
        );
        assert_eq!(line["only_a"], "0");
        let (new, lost) = match m {
            "sc" => (3, 0),
            "cc" => (0, 1),
            _ => (0, 0),
        };
        assert_eq!(num(&line["new_violations"]) as usize, new, "{m}");
        assert_eq!(num(&line["lost_violations"]) as usize, lost, "{m}");
        assert_eq!(num(&line["flips"]) as usize, new + lost, "{m}");
        let va = rows
            .iter()
            .filter(|r| r["model"] == m && r["verdict"] == "violation")
            .count();
        assert_eq!(num(&line["violations_a"]) as usize, va, "{m}");
        assert_eq!(num(&line["violations_b"]) as usize, va + new - lost, "{m}");
        let ratio = num(&line["time_ratio"]);
        assert!(close(ratio, 1.0), "{m}: same times, ratio {ratio}");
    }

    // the table lists every flip as file#index
    let o = memconform(&["compare", s(&a), s(&b), "--show", "10"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.contains("verdict flips (4)"), "{table}");
    for (loc, model) in &flipped {
        assert!(
            table
                .lines()
                .any(|l| l.contains(loc.as_str()) && l.trim_start().starts_with(model.as_str())),
            "{model} {loc} in {table}"
        );
    }
    // --show limits the list
    let o = memconform(&["compare", s(&a), s(&b), "--show", "1"]);
    assert!(stdout(&o).contains("and 3 more"), "{}", stdout(&o));

    // --format flips: one CSV row per flip
    let o = memconform(&["compare", s(&a), s(&b), "-f", "flips"]);
    let flips = read(&stdout(&o));
    assert_eq!(flips.len(), 4);
    for (loc, model) in &flipped {
        assert!(flips
            .iter()
            .any(|f| &format!("{}#{}", f["file_b"], f["index_b"]) == loc && &f["model"] == model));
    }

    // B against itself: nothing flips
    let o = memconform(&["compare", s(&b), s(&b)]);
    assert!(stdout(&o).contains("no verdict flips"), "{}", stdout(&o));
}

#[test]
fn compare_variants_of_one_csv() {
    let dir = temp_dir("compare-variants");
    let a = results(&dir, "runs", 3, 20, 40);
    let rows = read(&std::fs::read_to_string(&a).unwrap());
    let flip: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i]["model"] == "wsc" && rows[i]["verdict"] == "consistent")
        .take(2)
        .collect();
    assert_eq!(flip.len(), 2);
    let base = dir.join("base.csv");
    let bug = dir.join("bug.csv");
    rewrite(&a, &base, "base", &[]);
    rewrite(&a, &bug, "bug", &flip);
    // one CSV with both variants (the second header line is skipped)
    let mut all = std::fs::read_to_string(&base).unwrap();
    all.push_str(&std::fs::read_to_string(&bug).unwrap());
    let all_csv = dir.join("all.csv");
    std::fs::write(&all_csv, all).unwrap();

    let o = memconform(&[
        "compare",
        s(&all_csv),
        "--variant-column",
        "variant",
        "-f",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp = read(&stdout(&o));
    let wsc = cmp.iter().find(|r| r["model"] == "wsc").unwrap();
    assert_eq!(
        (wsc["a"].as_str(), wsc["b"].as_str()),
        ("variant=base", "variant=bug")
    );
    assert_eq!(wsc["new_violations"], "2");
    assert!(cmp
        .iter()
        .filter(|r| r["model"] != "wsc")
        .all(|r| r["flips"] == "0"));

    // the other way round
    let o = memconform(&[
        "compare",
        s(&all_csv),
        "--variant-column",
        "variant",
        "--baseline",
        "bug",
        "-f",
        "csv",
    ]);
    let cmp = read(&stdout(&o));
    let wsc = cmp.iter().find(|r| r["model"] == "wsc").unwrap();
    assert_eq!(
        (
            wsc["new_violations"].as_str(),
            wsc["lost_violations"].as_str()
        ),
        ("0", "2")
    );

    // an explicit key
    let o = memconform(&[
        "compare",
        s(&all_csv),
        "--variant-column",
        "variant",
        "--key",
        "basename,index",
        "-f",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp = read(&stdout(&o));
    assert!(cmp.iter().all(|r| r["matched"] == "20"));
}

#[test]
fn compare_rejects_ambiguous_input() {
    let dir = temp_dir("compare-bad");
    let a = results(&dir, "runs", 2, 5, 0);
    let o = memconform(&["compare", s(&a)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--variant-column"), "{}", stderr(&o));
    // every row the same variant: nothing to compare
    let o = memconform(&["compare", s(&a), "--variant-column", "variant"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to compare"), "{}", stderr(&o));
    // a key that does not tell rows apart: both lines named
    let o = memconform(&["compare", s(&a), s(&a), "--key", "threads"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("{}:", a.display())) && e.contains("of line 2"),
        "{e}"
    );
}

/// The text of every `<text>` element of an SVG.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            body.trim().to_string()
        })
        .collect()
}

/// Tags are balanced (a minimal well-formedness check: every opened
/// element is closed, in order, and the document is one `<svg>` element).
fn assert_well_formed(svg: &str) {
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..j];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "closing {name}");
        } else if !tag.ends_with('/') && !tag.starts_with('?') && !tag.starts_with('!') {
            let name = tag.split_whitespace().next().unwrap().to_string();
            stack.push(name);
        }
        rest = &rest[j + 1..];
        if stack.is_empty() {
            assert!(rest.trim().is_empty(), "content after </svg>");
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

#[test]
fn plot_each_kind_as_well_formed_svg() {
    let dir = temp_dir("plot");
    let a = results(&dir, "t2", 2, 15, 0);
    let b = results(&dir, "t4", 4, 15, 300);
    let cases: [(&str, &[&str], &[&str]); 5] = [
        (
            "time-vs-ops",
            &[],
            &["operations per history", "median time_ms (log scale)"],
        ),
        (
            "time-vs-threads",
            &[],
            &["threads", "median time_ms (log scale)"],
        ),
        (
            "coverage",
            &[],
            &[
                "threads",
                "mean coverage (ordered / same-variable write pairs)",
            ],
        ),
        (
            "coverage",
            &["--x", "ops"],
            &[
                "operations per history",
                "mean coverage (ordered / same-variable write pairs)",
            ],
        ),
        (
            "detection",
            &[],
            &["model", "violations (% of histories)", "caught by"],
        ),
    ];
    for (i, (kind, extra, labels)) in cases.iter().enumerate() {
        let out = dir.join(format!("fig-{i}.svg"));
        let mut args = vec!["plot", s(&a), s(&b), "--kind", kind, "-o", s(&out)];
        args.extend(extra.iter());
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
        let svg = std::fs::read_to_string(&out).unwrap();
        assert_well_formed(&svg);
        let texts = svg_texts(&svg);
        for l in labels.iter() {
            assert!(
                texts.iter().any(|t| t == l),
                "{kind}: label {l} in {texts:?}"
            );
        }
        // series names: every model in the legend (coverage: those with a store order)
        let series: &[&str] = match *kind {
            "coverage" => &["ccm", "wsc", "sc", "tso"],
            _ => &["cc", "ccv", "cm", "ccm", "wsc", "sc", "tso"],
        };
        for m in series {
            // detection's legend names stages (decided_by); every model is a bar label
            assert!(
                texts.iter().any(|t| t == m),
                "{kind}: series {m} in {texts:?}"
            );
        }
        assert!(
            texts.iter().any(|t| t.contains("30 histories")),
            "{kind}: title {texts:?}"
        );
    }

    // to standard output, with a title, some models only
    let o = memconform(&[
        "plot",
        s(&a),
        "--kind",
        "time-vs-ops",
        "--models",
        "wsc,sc",
        "--title",
        "wSC against SC",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let svg = stdout(&o);
    assert_well_formed(&svg);
    let texts = svg_texts(&svg);
    assert!(texts.iter().any(|t| t == "wSC against SC"));
    assert!(!texts.iter().any(|t| t == "cc"), "{texts:?}");
}

#[test]
fn plot_rejects_what_it_cannot_draw() {
    let dir = temp_dir("plot-bad");
    let only_cc = dir.join("cc.csv");
    std::fs::write(
        &only_cc,
        "file,index,model,verdict,threads,ops,time_ms,coverage\na.hist,0,cc,consistent,2,4,0.1,\n",
    )
    .unwrap();
    let o = memconform(&[
        "plot",
        s(&only_cc),
        "--kind",
        "coverage",
        "-o",
        s(&dir.join("x.svg")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no row has both a coverage"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("x.svg").exists());

    let o = memconform(&["plot", s(&only_cc), "--kind", "detection", "--models", "sc"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no rows of model `sc`"),
        "{}",
        stderr(&o)
    );

    let no_ops = dir.join("no-ops.csv");
    std::fs::write(&no_ops, "model,verdict,time_ms\ncc,consistent,0.1\n").unwrap();
    let o = memconform(&["plot", s(&no_ops), "--kind", "time-vs-ops"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no `ops` column"), "{}", stderr(&o));

    let o = memconform(&["plot", s(&only_cc), "--kind", "time-vs-ops", "--x", "ops"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_teaches_with_examples() {
    for cmd in ["summarize", "compare", "plot"] {
        let o = memconform(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(0));
        let h = stdout(&o);
        assert!(h.contains("Examples:"), "{cmd}: {h}");
        assert!(h.contains(&format!("memconform {cmd} ")), "{cmd}: {h}");
    }
}

/// A kill matrix with the columns `memconform campaign` writes: two
/// protocols, three operators, every outcome, an unviable mutant.
fn kill_matrix(dir: &Path) -> PathBuf {
    let models = "cc,ccv,cm,ccm,wccm,wsc,sc,tso,pso";
    let v = |verdict: &str| [verdict; 9].join(",");
    let row = |p: &str, id: &str, op: &str, status: &str, seed: &str, outcome: &str, exit: &str| {
        let violation = outcome.starts_with("violation:");
        let (verdicts, only) = match seed {
            "" => ([""; 9].join(","), ""),
            _ if violation => (
                v("violation"),
                if exit == "clean" { "true" } else { "false" },
            ),
            _ => (v("consistent"), "false"),
        };
        format!(
            "{p},{id},{id},{op},tier1,src/mem/ruby/protocol/{p}-cache.sm,10,\"action(a, b)\",\
             {status},{seed},{outcome},{exit},,20.0,1.50,0.20,{verdicts},,,{only}\n"
        )
    };
    let mut text = format!(
        "protocol,variant,mutant_id,op,class,file,line,site,status,seed,outcome,exit_kind,\
         exit_code,build_s,run_s,check_s,{models},decided_by,pattern,memconform_only\n"
    );
    for r in [
        (
            "MI_example",
            "a1",
            "TDA",
            "killed",
            "1",
            "violation:cc",
            "clean",
        ),
        (
            "MI_example",
            "a2",
            "TDA",
            "killed",
            "1",
            "survived",
            "clean",
        ),
        (
            "MI_example",
            "a2",
            "TDA",
            "killed",
            "2",
            "violation:sc",
            "tester_check",
        ),
        (
            "MI_example",
            "a3",
            "TSW",
            "killed",
            "1",
            "deadlock",
            "deadlock",
        ),
        (
            "MI_example",
            "a4",
            "TSW",
            "survived",
            "1",
            "survived",
            "clean",
        ),
        (
            "MI_example",
            "a4",
            "TSW",
            "survived",
            "2",
            "survived",
            "clean",
        ),
        ("MI_example", "a5", "ADS", "unviable", "", "unviable", ""),
        (
            "MESI_Two_Level",
            "b1",
            "TDA",
            "timeout",
            "1",
            "timeout",
            "timeout",
        ),
        (
            "MESI_Two_Level",
            "b2",
            "ADS",
            "killed",
            "3",
            "protocol_panic",
            "protocol_panic",
        ),
    ] {
        text.push_str(&row(r.0, r.1, r.2, r.3, r.4, r.5, r.6));
    }
    let path = dir.join("kill-matrix.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn plot_draws_a_campaigns_kill_matrix() {
    let dir = temp_dir("plot-kills");
    let matrix = kill_matrix(&dir);
    for (kind, extra, labels) in [
        (
            "kill-by-operator",
            &[][..],
            &[
                "ADS",
                "TDA",
                "TSW",
                "operator",
                "mutants",
                "memconform only",
                "gem5 only",
                "unviable: 1 (not drawn)",
            ][..],
        ),
        (
            "kill-by-operator",
            &["--by", "protocol"],
            &["MI_example", "MESI_Two_Level", "TDA"],
        ),
        (
            "seeds-to-kill",
            &[],
            &["MI_example", "MESI_Two_Level", "protocol"],
        ),
        ("seeds-to-kill", &["--by", "op"], &["ADS", "TDA", "TSW"]),
    ] {
        let out = dir.join(format!("{kind}.svg"));
        let mut args = vec!["plot", s(&matrix), "--kind", kind, "-o", s(&out)];
        args.extend(extra);
        let o = memconform(&args);
        assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
        let svg = std::fs::read_to_string(&out).unwrap();
        assert_well_formed(&svg);
        let texts = svg_texts(&svg);
        for l in labels {
            assert!(
                texts.iter().any(|t| t == l),
                "{kind} {extra:?}: {l} in {texts:?}"
            );
        }
    }

    // a kill-matrix kind refuses check results, and the check kinds a kill matrix
    let check = dir.join("results.csv");
    std::fs::write(&check, "file,index,model,verdict\na.hist,0,cc,consistent\n").unwrap();
    for kind in ["kill-by-operator", "seeds-to-kill"] {
        let out = dir.join("refused.svg");
        let o = memconform(&["plot", s(&check), "--kind", kind, "-o", s(&out)]);
        assert_eq!(o.status.code(), Some(2), "{kind}");
        assert!(
            stderr(&o).contains(&format!(
                "{}:1: results of `memconform check -f csv` (columns model, verdict), not a \
                 mutation campaign's kill matrix",
                check.display()
            )),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists());
    }
    for kind in ["detection", "time-vs-ops"] {
        let o = memconform(&["plot", s(&matrix), "--kind", kind]);
        assert_eq!(o.status.code(), Some(2), "{kind}");
        assert!(
            stderr(&o).contains(&format!(
                "{}:1: a mutation campaign's kill matrix",
                matrix.display()
            )),
            "{}",
            stderr(&o)
        );
    }
    let o = memconform(&["summarize", s(&matrix)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("kill matrix"), "{}", stderr(&o));

    // flags of the other family
    let o = memconform(&[
        "plot",
        s(&matrix),
        "--kind",
        "seeds-to-kill",
        "--models",
        "sc",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = memconform(&["plot", s(&check), "--kind", "detection", "--by", "protocol"]);
    assert_eq!(o.status.code(), Some(2));
    let o = memconform(&[
        "plot",
        s(&matrix),
        "--kind",
        "kill-by-operator",
        "--by",
        "op",
    ]);
    assert_eq!(o.status.code(), Some(2));

    // a malformed row: file and line
    let text = std::fs::read_to_string(&matrix).unwrap();
    let bad = dir.join("bad-matrix.csv");
    std::fs::write(
        &bad,
        text.replacen(",deadlock,deadlock,", ",deadlock,clean,", 1),
    )
    .unwrap();
    let o = memconform(&["plot", s(&bad), "--kind", "kill-by-operator"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}:5: column `outcome`", bad.display())),
        "{}",
        stderr(&o)
    );
}
