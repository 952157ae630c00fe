//! One answer per run: the model a run's configuration promises decides
//! `check`'s and `watch`'s answer, whatever models are asked. A violation
//! counts when its history breaks the promise; a history that keeps the
//! promise and violates a model it does not promise (an O3 core's store
//! buffering breaks SC, not TSO) is allowed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{memconform, root, temp_dir};

/// A copy of the clean O3 run whose thread 0 reads 0 right after its own
/// write of 0x1000000000001 in round 0: forbidden by every model.
fn stale_own_read(dir: &Path) -> PathBuf {
    let src = root().join("traces/se-o3-n2-s1");
    let run = dir.join("stale-own-read");
    std::fs::create_dir_all(&run).unwrap();
    for f in ["config.ini", "simout.txt", "stats.txt.gz"] {
        std::fs::copy(src.join(f), run.join(f)).unwrap();
    }
    let out = std::fs::read_to_string(src.join("client.out")).unwrap();
    let own = "W(w1,0x1000000000001) R(w1,0x1000000000001)";
    assert!(out.contains(own), "round 0 reads its own write");
    let out = out.replacen(own, "W(w1,0x1000000000001) R(w1,0)", 1);
    std::fs::write(run.join("client.out"), out).unwrap();
    run
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The bundled runs: the summary names the three runs that break their
/// promise and their histories, in at most 60 lines, and exits 1.
#[test]
fn the_bundled_runs_answer_in_one_line_each() {
    let traces = root().join("traces");
    let o = memconform(&["check", "--real-time", traces.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.lines().count() <= 60, "{out}");
    let line = |run: &str| {
        let start = format!("{} ", traces.join(run.trim()).display());
        out.lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no line for {run} in\n{out}"))
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    // RUN PROTOCOL CPUS(3 words) PROMISE HISTORIES BROKEN ALLOWED UNKNOWN TIME
    let counts = |run: &str| {
        let l = line(run);
        let n = l.len();
        (
            l[n - 7].clone(),
            l[n - 6].parse::<usize>().unwrap(),
            l[n - 5].parse::<usize>().unwrap(),
            l[n - 4].parse::<usize>().unwrap(),
            l[n - 3].parse::<usize>().unwrap(),
        )
    };
    assert_eq!(counts("bug-mi5-n4-s1-rich"), ("sc".into(), 2, 1, 0, 0));
    assert_eq!(counts("clean-n8-s3-gz"), ("sc".into(), 2, 0, 0, 0));
    assert_eq!(counts("se-o3-me8-n2-s1"), ("tso".into(), 100, 7, 0, 0));
    assert_eq!(counts("se-o3-n2-s1 "), ("tso".into(), 10, 0, 2, 0));
    assert_eq!(counts("se-o3-notso-n2-s11"), ("tso".into(), 300, 13, 57, 0));
    assert_eq!(counts("se-timing-n2-s1"), ("sc".into(), 10, 0, 0, 0));
    // the breaking histories, each with its counterexample's cycle
    assert!(
        out.contains("#1 bug-mi5-n4-s1-rich (real time): breaks sc"),
        "{out}"
    );
    assert!(
        out.contains("#12 client-s1-r12 (MP+SM): breaks tso"),
        "{out}"
    );
    assert!(out.contains("#3 client-s11-r3: breaks tso"), "{out}");
    assert!(out.contains("cycle: "), "{out}");
    // values as the program wrote them: the tester's byte, the client's hex
    assert!(out.contains("W(0x6e8,195)"), "{out}");
    assert!(out.contains("W(x,0x1)"), "{out}");
    assert!(out.contains("21 break their promise (in 3 runs)"), "{out}");
}

/// A clean O3 run whose SC violations are store buffering: exit 0.
#[test]
fn a_clean_o3_run_exits_0() {
    let run = root().join("traces/se-o3-n2-s1");
    let o = memconform(&["check", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // held to SC instead, its store buffering breaks the promise
    let o = memconform(&["check", "--promise", "sc", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}

/// A thread that reads 0 right after its own write breaks every model:
/// asked for CC alone, `check` and `watch` exit 1 and the CC row breaks the
/// promised TSO.
#[test]
fn a_stale_own_read_on_o3_breaks_tso_asked_for_cc_alone() {
    let dir = temp_dir("promise", "stale");
    let run = stale_own_read(&dir);
    let o = memconform(&["check", "-m", "cc", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("#0 client-s1-r0: breaks tso"),
        "{}",
        stdout(&o)
    );
    let o = memconform(&["check", "-m", "cc", "-f", "csv", run.to_str().unwrap()]);
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let h = r.headers().unwrap().clone();
    let col = |rec: &csv::StringRecord, name: &str| {
        rec[h.iter().position(|c| c == name).unwrap()].to_string()
    };
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(col(&rows[0], "verdict"), "violation");
    assert_eq!(col(&rows[0], "promise"), "tso");
    assert_eq!(col(&rows[0], "breaks_promise"), "yes");
    assert!(rows[1..].iter().all(|r| col(r, "breaks_promise") == "no"));

    // watch: the same run as gem5 would write it, stopped at the violation
    let watched = dir.join("watched");
    std::fs::create_dir_all(&watched).unwrap();
    let (s, d) = (run.display(), watched.display());
    let command = format!(
        "cp {s}/config.ini {s}/simout.txt {s}/stats.txt.gz {d}/ && cp {s}/client.out {d}/ && exec sleep 600"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["watch", "-m", "cc"])
        .arg(&watched)
        .args(["--interval", "0.2", "--", "sh", "-c", &command])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(watched.join("memconform-watch.json")).unwrap())
            .unwrap();
    assert_eq!(record["stopped"], true, "{record}");
    assert_eq!(record["model"], "cc", "{record}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Store buffering on an O3 run, asked for SC alone: allowed (the promised
/// TSO decided on its own), exit 0; the row says it does not break the
/// promise.
#[test]
fn store_buffering_asked_for_sc_alone_is_allowed_on_o3() {
    let run = root().join("traces/se-o3-n2-s1");
    let o = memconform(&["check", "-m", "sc", "-f", "csv", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let h = r.headers().unwrap().clone();
    let (v, b) = (
        h.iter().position(|c| c == "verdict").unwrap(),
        h.iter().position(|c| c == "breaks_promise").unwrap(),
    );
    let violations: Vec<csv::StringRecord> = r
        .records()
        .map(Result::unwrap)
        .filter(|r| &r[v] == "violation")
        .collect();
    assert_eq!(violations.len(), 2);
    assert!(violations.iter().all(|r| &r[b] == "no"));
}
