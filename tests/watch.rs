//! `memconform watch`: a run checked while it is written, stopped at its
//! first violation. The "gem5" here is a shell command that writes a
//! bundled real run into the directory in steps and then would go on for
//! minutes: the watch must stop it (its record says so), not wait for it.

mod common;

use std::path::Path;
use std::process::Command;

use common::{root, temp_dir};

/// A command that writes the run `src` into `dir` as gem5 would (its
/// configuration first, then the trace, half of it, then all), then stays
/// `linger` seconds before it ends with status 0.
fn writer(src: &Path, dir: &Path, linger: u32) -> String {
    let (s, d) = (src.display(), dir.display());
    format!(
        "cp {s}/config.ini {d}/ && sleep 0.5 && \
         n=$(gzip -dc {s}/trace.txt.gz | wc -l) && \
         gzip -dc {s}/trace.txt.gz | head -n $((n / 2)) > {d}/trace.txt && sleep 1.5 && \
         gzip -dc {s}/trace.txt.gz > {d}/trace.txt.part && mv {d}/trace.txt.part {d}/trace.txt && \
         cp {s}/simout.txt {s}/simerr.txt {s}/stats.txt {d}/ && exec sleep {linger}"
    )
}

fn watch(dir: &Path, command: &str, extra: &[&str]) -> (i32, String, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .arg("watch")
        .args(extra)
        .arg(dir)
        .args(["--interval", "0.2", "--", "sh", "-c", command])
        .output()
        .expect("runs");
    let record = std::fs::read(dir.join("memconform-watch.json")).expect("a watch record");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        serde_json::from_slice(&record).expect("JSON"),
    )
}

#[test]
fn a_violation_stops_the_run_that_would_go_on() {
    let dir = temp_dir("watch", "bug");
    let src = root().join("traces/bug-mi5-n4-s1-rich");
    let (code, stdout, record) = watch(&dir, &writer(&src, &dir, 600), &["--real-time"]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(record["stopped"], true, "{record}");
    assert_eq!(record["why"], "violation", "{record}");
    assert!(!record["model"].as_str().unwrap().is_empty(), "{record}");
    // how soon after the violating line: within the whole watch
    let within = record["stop_within_s"].as_f64().unwrap();
    assert!(
        within > 0.0 && within <= record["seconds"].as_f64().unwrap(),
        "{record}"
    );
    // the report is check's: the history, its violation and certificate
    assert!(stdout.contains("violation"), "{stdout}");
    // and the same violation as `check` finds in the finished run
    let check = common::memconform(&["check", "--real-time", src.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_run_is_watched_to_its_end_and_checked_whole() {
    let dir = temp_dir("watch", "clean");
    let src = root().join("tests/data/gem5/mi_example/clean-n2-s1-rich");
    let (code, stdout, record) = watch(&dir, &writer(&src, &dir, 0), &["--real-time"]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(record["stopped"], false, "{record}");
    assert_eq!(record["why"], "ended", "{record}");
    assert_eq!(record["exit_code"], 0, "{record}");
    assert!(record["stop_within_s"].is_null(), "{record}");
    assert!(record["checks"].as_u64().unwrap() >= 1, "{record}");
    assert!(stdout.contains("no violation that counts"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_command_that_cannot_start_is_an_input_error() {
    let dir = temp_dir("watch", "nostart");
    let out = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["watch"])
        .arg(&dir)
        .args(["--", "/nonexistent/gem5.opt"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a look at a run still being written may say: a violation of what
/// was read stands, `consistent` is not decided (the rest may change it).
#[test]
fn a_run_in_progress_keeps_its_violations_and_decides_no_consistency() {
    use memconform::check::{Options, Verdict};
    use memconform::ingest::{check_file, Reading};
    use memconform::models::Model;
    let reading = Reading {
        real_time: true,
        in_progress: true,
        ..Reading::default()
    };
    let models = [Model::Cc, Model::Sc];
    let clean = root().join("tests/data/gem5/mi_example/clean-n2-s1-rich");
    for c in check_file(&clean, &models, &Options::default(), &reading).unwrap() {
        for o in &c.outcomes {
            assert_eq!(o.verdict(), Verdict::Unknown, "{:?}", o.model);
            assert!(o
                .reason()
                .unwrap()
                .to_string()
                .contains("still being written"));
        }
    }
    let bug = root().join("traces/bug-mi5-n4-s1-rich");
    let done = check_file(&bug, &models, &Options::default(), &Reading::default()).unwrap();
    let going = check_file(&bug, &models, &Options::default(), &reading).unwrap();
    for (d, g) in done.iter().zip(&going) {
        for (a, b) in d.outcomes.iter().zip(&g.outcomes) {
            if a.verdict() == Verdict::Violation {
                assert_eq!(b.verdict(), Verdict::Violation, "{:?}", a.model);
            }
        }
    }
    assert!(going
        .iter()
        .any(|c| c.outcomes.iter().any(|o| o.verdict() == Verdict::Violation)));
}

#[test]
fn a_directory_holding_an_earlier_run_is_refused() {
    let dir = temp_dir("watch", "earlier");
    std::fs::write(dir.join("config.ini"), "[root]\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .arg("watch")
        .arg(&dir)
        .args(["--", "true"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already holds files (config.ini)"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The command `watch` runs (gem5) keeps the transparent-huge-page setting
/// it would have had: the checking commands turn huge pages off for
/// themselves, and a child would inherit that.
#[test]
fn the_watched_command_keeps_its_huge_pages() {
    let own = |status: &str| {
        status
            .lines()
            .find(|l| l.starts_with("THP_enabled:"))
            .map(str::to_string)
    };
    let Some(ours) = own(&std::fs::read_to_string("/proc/self/status").unwrap_or_default()) else {
        eprintln!("skipped: no THP_enabled in /proc/self/status on this system");
        return;
    };
    let dir = temp_dir("watch", "thp");
    let src = root().join("tests/data/gem5/mi_example/clean-n2-s1-rich");
    let command = format!(
        "grep THP_enabled /proc/self/status > {}/thp && {}",
        dir.display(),
        writer(&src, &dir, 0)
    );
    let (code, stdout, _) = watch(&dir, &command, &[]);
    assert_eq!(code, 0, "{stdout}");
    let child = std::fs::read_to_string(dir.join("thp")).expect("the command wrote it");
    assert_eq!(own(&child), Some(ours));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------
// No process outlives its command ("Trust, round 3", class 6). The
// "gem5" here starts two background children, one of which ignores
// SIGTERM (only SIGKILL ends it), and writes its pid to a file outside
// DIR; the test sends the signal sequences `timeout` and Slurm send, and
// then looks in /proc for any process left in the command's group.

use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

/// The process group of `pid`, and whether it is a zombie, from /proc.
fn stat(pid: i32) -> Option<(i32, bool)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
    Some((f.get(2)?.parse().ok()?, f.first() == Some(&"Z")))
}

/// The live processes of process group `group`.
fn alive_in(group: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&p| stat(p).is_some_and(|(g, zombie)| g == group && !zombie))
        .collect()
}

/// Waits up to `secs` for `group` to hold no live process; what is left.
fn left_after(group: i32, secs: u64) -> Vec<i32> {
    let t = Instant::now();
    loop {
        let left = alive_in(group);
        if left.is_empty() || t.elapsed() > Duration::from_secs(secs) {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The stand-in gem5: its pid and process group to `pidfile`, two children in the background
/// (`sleep`, and a `sleep` that ignores SIGTERM), then `tail` (`exec sleep
/// 1000`, or `exit 0`: the command ends and leaves them).
fn stand_in(pidfile: &Path, tail: &str) -> String {
    let f = pidfile.display();
    format!(
        "read -r _ _ _ _ pg _ < /proc/$$/stat; echo $$ $pg > {f}.tmp; sleep 1000 & (trap '' TERM; exec sleep 1000) & mv {f}.tmp {f}; {tail}"
    )
}

/// Starts `memconform watch DIR -- sh -c COMMAND` in its own process group
/// (as `timeout` runs its command); returns it and the command's group,
/// once the command has started its children.
fn start_watch(dir: &Path, command: &str, pidfile: &Path) -> (std::process::Child, i32) {
    let child = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .arg("watch")
        .arg(dir)
        .args(["--interval", "0.1", "--", "sh", "-c", command])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("runs");
    let t = Instant::now();
    // the command's pid and group, as it wrote them (it may have ended
    // already: `exit 0`)
    let (_pid, group): (i32, i32) = loop {
        let read = std::fs::read_to_string(pidfile).ok();
        let ids = read.as_deref().and_then(|s| {
            let mut w = s.split_whitespace().map(|x| x.parse().ok());
            Some((w.next()??, w.next()??))
        });
        if let Some(ids) = ids {
            break ids;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the command did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_ne!(
        group,
        child.id() as i32,
        "the command has a group of its own"
    );
    // both children started
    let t = Instant::now();
    while alive_in(group).len() < 3 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, group)
}

fn cleanup(group: i32) {
    let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
}

#[test]
fn sigterm_twice_leaves_no_process_of_the_command() {
    let base = temp_dir("watch", "term2");
    let (dir, pidfile) = (base.join("run"), base.join("pid"));
    let (mut w, group) = start_watch(&dir, &stand_in(&pidfile, "exec sleep 1000"), &pidfile);
    let me = Pid::from_raw(w.id() as i32);
    kill(me, Signal::SIGTERM).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let _ = kill(me, Signal::SIGTERM);
    let status = w.wait().unwrap();
    let left = left_after(group, 5);
    cleanup(group);
    assert!(
        left.is_empty(),
        "left running: {left:?} (watch: {status:?})"
    );
    assert_eq!(status.code(), Some(143), "128 + SIGTERM");
}

#[test]
fn sigterm_then_sigkill_to_the_group_leaves_no_process_of_the_command() {
    let base = temp_dir("watch", "termkill");
    let (dir, pidfile) = (base.join("run"), base.join("pid"));
    let (mut w, group) = start_watch(&dir, &stand_in(&pidfile, "exec sleep 1000"), &pidfile);
    // as `timeout -k 0.3` does to its group
    let own = Pid::from_raw(w.id() as i32);
    killpg(own, Signal::SIGTERM).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let _ = killpg(own, Signal::SIGKILL);
    let _ = w.wait();
    let left = left_after(group, 5);
    cleanup(group);
    assert!(left.is_empty(), "left running: {left:?}");
    // SIGKILL alone, to memconform only
    let base = temp_dir("watch", "kill");
    let (dir, pidfile) = (base.join("run"), base.join("pid"));
    let (mut w, group) = start_watch(&dir, &stand_in(&pidfile, "exec sleep 1000"), &pidfile);
    w.kill().unwrap();
    let _ = w.wait();
    let left = left_after(group, 5);
    cleanup(group);
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn a_command_that_ends_leaving_children_has_them_stopped_and_said() {
    let base = temp_dir("watch", "leaves");
    let (dir, pidfile) = (base.join("run"), base.join("pid"));
    let (w, group) = start_watch(&dir, &stand_in(&pidfile, "exit 0"), &pidfile);
    let out = w.wait_with_output().unwrap();
    // stopped before the watch ended
    let left = left_after(group, 1);
    cleanup(group);
    assert!(left.is_empty(), "left running: {left:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the command ended and left 2 processes of its process group running"),
        "{stderr}"
    );
    // it wrote no run: an input error once it ended
    assert_eq!(out.status.code(), Some(2), "{stderr}");
}

#[test]
fn a_dir_that_is_a_file_is_refused() {
    let base = temp_dir("watch", "file");
    let file = base.join("run");
    std::fs::write(&file, "not a directory").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .arg("watch")
        .arg(&file)
        .args(["--", "sh", "-c", "exit 0"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a directory"));
    assert!(!base.join("run").is_dir());
}
