//! Damaged gem5 input never gets a verdict it may not have (issue 9,
//! defects 4–6): each bundled run is copied, damaged the way real runs get
//! damaged (a cut, an out-of-range value, a negative tick, a lost line,
//! reordered lines, a bad gzip), and checked through the command line; the
//! undamaged copy still gets its verdict.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A copy of a bundled run in a scratch directory (removed on drop), with
/// its trace decompressed to `trace.txt` when `plain`.
struct Run {
    dir: PathBuf,
}

impl Run {
    /// Copies the run `src` (relative to the repository) as `name`.
    fn copy(src: &str, name: &str, plain: bool) -> Run {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
        let dir = std::env::temp_dir()
            .join(format!("memconform-damage-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(&from).unwrap().flatten() {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        let run = Run { dir };
        if plain && run.dir.join("trace.txt.gz").exists() {
            let text = run.gz_text();
            std::fs::remove_file(run.dir.join("trace.txt.gz")).unwrap();
            std::fs::write(run.dir.join("trace.txt"), text).unwrap();
        }
        run
    }

    /// The decompressed trace of a run whose trace is gzipped.
    fn gz_text(&self) -> String {
        let gz = std::fs::read(self.dir.join("trace.txt.gz")).unwrap();
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(gz.as_slice())
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    /// The plain trace's lines (each without its newline).
    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("trace.txt"))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Writes the plain trace: `lines`, each with its newline.
    fn write_lines(&self, lines: &[String]) {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(self.dir.join("trace.txt"), text).unwrap();
    }

    /// Edits line `n` (1-based) of the plain trace.
    fn edit_line(&self, n: usize, edit: impl FnOnce(&str) -> String) {
        let mut lines = self.lines();
        lines[n - 1] = edit(&lines[n - 1]);
        self.write_lines(&lines);
    }

    /// The number (1-based) of the `k`-th line (0-based) containing `needle`.
    fn find(&self, needle: &str, k: usize) -> usize {
        self.lines()
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .nth(k)
            .unwrap_or_else(|| panic!("no {k}-th `{needle}`"))
            .0
            + 1
    }

    /// The path of the trace file.
    fn trace(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What `memconform check` said: exit code, CSV rows (column -> value), stderr.
struct Checked {
    code: i32,
    rows: Vec<std::collections::HashMap<String, String>>,
    stderr: String,
}

impl Checked {
    /// The distinct values of a column.
    fn column(&self, name: &str) -> Vec<String> {
        let mut v: Vec<String> = self.rows.iter().map(|r| r[name].clone()).collect();
        v.sort();
        v.dedup();
        v
    }
}

/// `memconform check --timeout 0 -f csv ARGS DIR` (no time budget: a loaded
/// machine gives no `unknown` of its own).
fn check(dir: &Path, args: &[&str]) -> Checked {
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "--timeout", "0", "-f", "csv"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap();
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let header = r.headers().unwrap().clone();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    Checked {
        code: o.status.code().unwrap(),
        rows,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Asserts the rule for damage that is not a cut: every row `unknown`,
/// its reason and `damage` column naming the place, exit 6.
fn assert_unknown_with_damage(c: &Checked, place: &str, what: &str) {
    assert_eq!(c.code, 6, "{}", c.stderr);
    assert!(!c.rows.is_empty());
    assert_eq!(c.column("verdict"), ["unknown"], "{}", c.stderr);
    for r in &c.rows {
        assert!(r["damage"].contains(place), "{} lacks {place}", r["damage"]);
        assert!(r["damage"].contains(what), "{} lacks {what}", r["damage"]);
        assert!(
            r["reason"].starts_with("damaged input: "),
            "{}",
            r["reason"]
        );
    }
    assert!(c.stderr.contains("from damaged input"), "{}", c.stderr);
}

const CLEAN: &str = "traces/clean-n8-s3-gz";
const BUG: &str = "traces/bug-mi5-n4-s1-rich";
const MODELS: &[&str] = &["--models", "cc,sc"];

#[test]
fn undamaged_copies_keep_their_verdicts() {
    for plain in [false, true] {
        let clean = Run::copy(CLEAN, &format!("whole-clean-{plain}"), plain);
        let c = check(&clean.dir, MODELS);
        assert_eq!(c.code, 0, "{}", c.stderr);
        assert_eq!(c.column("verdict"), ["consistent"]);
        assert_eq!(c.column("damage"), [""]);
        let bug = Run::copy(BUG, &format!("whole-bug-{plain}"), plain);
        let c = check(&bug.dir, &["--models", "cc,sc", "--real-time"]);
        assert_eq!(c.code, 1, "{}", c.stderr);
        assert_eq!(c.column("damage"), [""]);
    }
}

/// Defect 4: a plain trace cut inside `…size: 4, data: 204 205 206 20` was a
/// read of 20, a thin-air read under every model (exit 1). The cut line is
/// dropped; the prefix is consistent, which is not a verdict of the run:
/// `unknown`, exit 6, the cut in the damage column. --allow-damage reports
/// the prefix's verdict.
#[test]
fn defect4_a_plain_trace_cut_mid_line_is_unknown_not_a_thin_air_read() {
    let run = Run::copy(CLEAN, "cut-mid-line", true);
    let n = run.find("size: 4, data: ", 150);
    let mut lines = run.lines();
    lines.truncate(n);
    let last = lines.pop().unwrap();
    let cut = last.trim_end().rsplit_once(' ').unwrap().0.to_string() + " 2";
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(&cut);
    std::fs::write(run.trace("trace.txt"), text).unwrap();
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 6, "{}", c.stderr);
    assert_eq!(c.column("verdict"), ["unknown"]);
    assert_eq!(c.column("pattern"), [""], "no ThinAirRead");
    for r in &c.rows {
        assert!(
            r["damage"].contains(&format!("trace.txt:{n}: the file ends inside line {n}")),
            "{}",
            r["damage"]
        );
        assert!(
            r["reason"].starts_with("consistent up to the cut"),
            "{}",
            r["reason"]
        );
    }
    let c = check(&run.dir, &["--models", "cc,sc", "--allow-damage"]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert_eq!(c.column("verdict"), ["consistent"]);
    assert!(c.rows.iter().all(|r| !r["damage"].is_empty()));
}

/// Defect 4, the other way: a cut trace keeps the violations of its prefix
/// (they are violations of the whole run). The MI-5 run cut inside the
/// failing read's completion still violates with --real-time (its read comes
/// from gem5's panic, issued before the cut).
#[test]
fn defect4_a_cut_trace_keeps_the_violations_of_its_prefix() {
    let run = Run::copy(BUG, "cut-bug", true);
    let n = run.find("size: 4, data: 0 0 0 0", 0);
    let mut lines = run.lines();
    lines.truncate(n);
    let last = lines.pop().unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(&last[..last.len() - 4]);
    std::fs::write(run.trace("trace.txt"), text).unwrap();
    let c = check(&run.dir, &["--models", "cc,sc", "--real-time"]);
    assert_eq!(c.code, 1, "{}", c.stderr);
    let real_time: Vec<_> = c.rows.iter().filter(|r| r["index"] == "1").collect();
    assert!(real_time.iter().all(|r| r["verdict"] == "violation"));
    assert!(c
        .rows
        .iter()
        .all(|r| r["damage"].contains("ends inside line")));
    // the per-port history has no violation: consistent up to the cut, unknown
    assert!(c
        .rows
        .iter()
        .filter(|r| r["index"] == "0")
        .all(|r| r["verdict"] == "unknown"));
}

/// A run whose `.gz` gem5 left unfinished when it panicked (a cut): the
/// stale read (issued after the cut, from the panic; its check was Ready at
/// the cut) still violates with --real-time; per port, `unknown`.
#[test]
fn a_run_cut_by_its_own_panic_still_violates() {
    let run = Run::copy(
        "tests/data/gem5/mi_example/bug-mi5-n2-s3-gztrunc",
        "gztrunc",
        false,
    );
    let c = check(&run.dir, &["--models", "cc,sc", "--real-time"]);
    assert_eq!(c.code, 1, "{}", c.stderr);
    for r in &c.rows {
        let want = if r["index"] == "1" {
            "violation"
        } else {
            "unknown"
        };
        assert_eq!(r["verdict"], want, "{r:?}");
        assert!(
            r["damage"].contains("trace.txt.gz:23451: gzip stream cut short"),
            "{r:?}"
        );
    }
}

/// Defect 4: `size` is checked against the data bytes.
#[test]
fn defect4_size_other_than_the_data_bytes_is_damage() {
    let run = Run::copy(CLEAN, "size", true);
    let n = run.find("size: 4, data: ", 100);
    run.edit_line(n, |l| {
        let (head, _) = l.trim_end().rsplit_once(' ').unwrap();
        format!("{head} ")
    });
    let c = check(&run.dir, MODELS);
    let col = run.lines()[n - 1].find("4, data").unwrap() + 1;
    assert_unknown_with_damage(
        &c,
        &format!("trace.txt:{n}:{col}:"),
        "size: 4 but 3 data bytes",
    );
}

/// Defect 5: a write of a value past a byte (`data 0x1c3`) is damage at its
/// column, not a write of 0xc3.
#[test]
fn defect5_a_value_past_a_byte_is_damage() {
    let run = Run::copy(CLEAN, "value", true);
    let n = run.find("Seq write: index", 40);
    run.edit_line(n, |l| {
        let (head, _) = l.split_once(" data 0x").unwrap();
        format!("{head} data 0x1c3 check 0x1c3")
    });
    let col = run.lines()[n - 1].find("1c3").unwrap() + 1;
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, &format!("trace.txt:{n}:{col}:"), "1c3 is out of range");
}

/// Defect 5: a completion with a data byte of 256.
#[test]
fn defect5_a_data_byte_of_256_is_damage() {
    let run = Run::copy(CLEAN, "byte", true);
    let n = run.find("size: 1, data: ", 30);
    run.edit_line(n, |l| {
        let (head, _) = l.split_once("data: ").unwrap();
        format!("{head}data: 256 ")
    });
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(
        &c,
        &format!("trace.txt:{n}:"),
        "data byte 256 is out of range",
    );
}

/// Defect 5: a negative tick on a tester line (which used to drop the line,
/// and with it a write).
#[test]
fn defect5_a_negative_tick_is_damage() {
    let run = Run::copy(CLEAN, "tick", true);
    let n = run.find("Seq write: index", 60);
    run.edit_line(n, |l| {
        let digits = l.trim_start().split(':').next().unwrap().to_string();
        l.replacen(&digits, &format!("-{digits}"), 1)
    });
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, &format!("trace.txt:{n}:"), "negative tick");
}

/// Defect 5: a 20-digit address.
#[test]
fn defect5_an_address_past_64_bits_is_damage() {
    let run = Run::copy(CLEAN, "address", true);
    let n = run.find("size: 1, data: ", 50);
    run.edit_line(n, |l| {
        let (head, tail) = l.split_once(" addr: 0x").unwrap();
        let (_, rest) = tail.split_once(',').unwrap();
        format!("{head} addr: 0x12345678901234567890,{rest}")
    });
    let col = run.lines()[n - 1].find("12345678901234567890").unwrap() + 1;
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(
        &c,
        &format!("trace.txt:{n}:{col}:"),
        "does not fit in 64 bits",
    );
}

/// Defect 5: a lost request line (a line that no longer looks like the
/// tester's) leaves a completion with no request: damage, not a dropped write.
#[test]
fn defect5_a_lost_request_line_is_damage() {
    let run = Run::copy(CLEAN, "lost", true);
    let n = run.find("Seq write: index", 80);
    run.edit_line(n, |l| l.replace("Seq write", "Seq wr!te"));
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, "trace.txt:", "with no request pending");
}

/// Defect 5, MemTest: a value past a byte and a cut hex value.
#[test]
fn defect5_memtest_lines_out_of_range_are_damage() {
    let src = "tests/data/gem5/mi_example/memtest-n4";
    let whole = Run::copy(src, "memtest-whole", true);
    let c = check(&whole.dir, MODELS);
    assert_eq!(
        (c.code, c.column("verdict")),
        (0, vec!["consistent".to_string()])
    );
    let run = Run::copy(src, "memtest-value", true);
    let n = run.find("Initiating write at addr", 400);
    run.edit_line(n, |l| {
        let (head, _) = l.rsplit_once(" value ").unwrap();
        format!("{head} value 1c3")
    });
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, &format!("trace.txt:{n}:"), "value 1c3 is out of range");
}

/// Defect 6: a bad checksum, garbage after the stream, corrupt bytes in the
/// middle, a stream cut short: never `consistent` on the part that was read,
/// and the CSV and JSON say where.
#[test]
fn defect6_damaged_gzip_is_unknown_with_its_damage_in_csv_and_json() {
    let run = Run::copy(CLEAN, "gzip", false);
    let gz = std::fs::read(run.trace("trace.txt.gz")).unwrap();
    let write = |bytes: &[u8]| std::fs::write(run.trace("trace.txt.gz"), bytes).unwrap();
    // a bad checksum: every line read, then the damage
    let mut bad = gz.clone();
    let crc = bad.len() - 8;
    bad[crc] ^= 0x01;
    write(&bad);
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, "trace.txt.gz:64034:", "checksum");
    // JSON carries the same field
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "--timeout", "0", "-f", "json", "--models", "cc"])
        .arg(&run.dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(6));
    let row: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(row["verdict"], "unknown");
    assert!(
        row["damage"]
            .as_str()
            .unwrap()
            .contains("gzip stream corrupt"),
        "{row}"
    );
    // the text report says it
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "--timeout", "0", "--models", "cc"])
        .arg(&run.dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("note: damaged: "), "{text}");
    assert!(text.contains("cc    unknown    damaged input"), "{text}");
    // garbage after the stream
    let mut bad = gz.clone();
    bad.extend_from_slice(b"\x00\x00 garbage after the stream");
    write(&bad);
    assert_unknown_with_damage(
        &check(&run.dir, MODELS),
        "trace.txt.gz:",
        "gzip stream corrupt",
    );
    // corrupt bytes in the middle
    let mut bad = gz.clone();
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 32] {
        *b ^= 0x5a;
    }
    write(&bad);
    assert_unknown_with_damage(&check(&run.dir, MODELS), "trace.txt.gz:", "");
    // cut short: a prefix, consistent so far, not a verdict
    write(&gz[..gz.len() * 2 / 3]);
    let c = check(&run.dir, MODELS);
    assert_eq!(
        (c.code, c.column("verdict")),
        (6, vec!["unknown".to_string()])
    );
    assert!(c
        .rows
        .iter()
        .all(|r| r["damage"].contains("gzip stream cut short")));
    // and whole again
    write(&gz);
    let c = check(&run.dir, MODELS);
    assert_eq!((c.code, c.column("damage")), (0, vec![String::new()]));
}

/// Defect 6: a reversed trace is not a gem5 log (exit 2, no history: its
/// first tester lines already break the order, a completion before its
/// request), and two tester lines' ticks swapped make the run unknown.
#[test]
fn defect6_ticks_out_of_log_order_are_damage() {
    let run = Run::copy(CLEAN, "reversed", true);
    let mut lines = run.lines();
    lines.reverse();
    run.write_lines(&lines);
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(c.rows.is_empty());
    assert!(
        c.stderr
            .contains("trace.txt: line 11: a completion on check 0x24ec with no request pending"),
        "{}",
        c.stderr
    );
    assert!(
        c.stderr.contains("no operation before the damage"),
        "{}",
        c.stderr
    );

    let run = Run::copy(CLEAN, "swapped", true);
    let tick = |l: &str| l.trim_start().split(':').next().unwrap().to_string();
    let a = run.find("Seq read: index", 20);
    let lines = run.lines();
    let b = (a + 1..lines.len())
        .find(|&i| lines[i].contains("completed request") && tick(&lines[i]) != tick(&lines[a - 1]))
        .unwrap()
        + 1;
    let (ta, tb) = (tick(&lines[a - 1]), tick(&lines[b - 1]));
    run.edit_line(a, |l| l.replacen(&ta, &tb, 1));
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, "trace.txt:", "not in log order");
    let after = format!("after tick {tb} at line {a} (lines reordered, or not a gem5 debug log)");
    assert!(
        c.rows[0]["damage"].contains(&after),
        "{}",
        c.rows[0]["damage"]
    );
}

/// The library's view: `ingest` gives the prefix and the damage.
#[test]
fn ingest_reports_the_damage_with_the_prefix() {
    let run = Run::copy(BUG, "ingest", true);
    let n = run.find("Seq write: index", 10);
    run.edit_line(n, |l| l.replace(" data 0x", " data 0x1"));
    let ing =
        memconform::gem5::ingest(&memconform::gem5::open_run(&run.dir).unwrap(), false).unwrap();
    let d = ing.damage.expect("damage");
    assert_eq!((d.line, d.cut), (n as u64, false));
    assert!(ing.history.n_thread_ops() > 0);
    assert!(ing
        .origins
        .iter()
        .all(|o| o.access.complete_line < n as u64));
}

/// Runs `memconform check ARGS` and fails the test, rather than hanging it,
/// if it takes longer than a minute.
#[cfg(unix)]
fn check_within_a_minute(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "--timeout", "0", "-f", "csv"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("check hung on {args:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Issue 9, defect 7: a FIFO among the inputs, or as a run's `stats.txt` or
/// trace, is refused without being opened (opening one blocks), and the
/// other inputs are checked.
#[cfg(unix)]
#[test]
fn defect7_fifos_are_refused_not_waited_for() {
    let run = Run::copy(CLEAN, "fifo-stats", false);
    let mkfifo = |p: &Path| {
        let _ = std::fs::remove_file(p);
        Command::new("mkfifo")
            .arg(p)
            .status()
            .is_ok_and(|s| s.success())
    };
    let inputs = run.dir.parent().unwrap().join("fifo-inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::write(inputs.join("a.hist"), "t0: W(x,1)\nt1: R(x,1)\n").unwrap();
    if !mkfifo(&inputs.join("b.hist")) || !mkfifo(&run.dir.join("stats.txt")) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    // a FIFO named on the command line and one found in a directory
    let fifo = inputs.join("b.hist");
    let o = check_within_a_minute(&[inputs.as_os_str(), fifo.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a regular file but a FIFO"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("a.hist"), "the good file is checked: {out}");
    // a run whose stats.txt is a FIFO is still checked (stats are optional)
    let o = check_within_a_minute(&[run.dir.as_os_str()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // a run whose trace is a FIFO is an input error, not a hang
    let trace = run.dir.join("trace.txt.gz");
    std::fs::remove_file(&trace).unwrap();
    assert!(mkfifo(&trace));
    let o = check_within_a_minute(&[run.dir.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&inputs);
}

/// Issue 9, defect 9: a trace without newlines (a gzip bomb's output) is
/// damage once a line passes 1 MiB, not an unbounded line buffer.
#[test]
fn defect9_a_line_without_end_is_damage_not_unbounded_memory() {
    let run = Run::copy(CLEAN, "no-newline", true);
    let mut text = std::fs::read(run.trace("trace.txt")).unwrap();
    text.extend(std::iter::repeat_n(b'7', 3 << 20));
    text.push(b'\n');
    std::fs::write(run.trace("trace.txt"), text).unwrap();
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, "trace.txt", "longer than 1 MiB");
}
