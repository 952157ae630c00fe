//! Damaged gem5 input never gets a verdict it may not have
//! (docs/reference.md, *Damaged input*; docs/design/gem5.md §1): each bundled run is copied, damaged the way real runs get
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
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
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

/// A plain trace cut inside `…size: 4, data: 204 205 206 20` was a
/// read of 20, a thin-air read under every model (exit 1). The cut line is
/// dropped; the prefix is consistent, which is not a verdict of the run:
/// `unknown`, exit 6, the cut in the damage column. --allow-damage reports
/// the prefix's verdict.
#[test]
fn a_plain_trace_cut_mid_line_is_unknown_not_a_thin_air_read() {
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

/// The other way: a cut trace keeps the violations of its prefix
/// (they are violations of the whole run). The MI-5 run cut inside the
/// failing read's completion still violates with --real-time (its read comes
/// from gem5's panic, issued before the cut).
#[test]
fn a_cut_trace_keeps_the_violations_of_its_prefix() {
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

/// `size` is checked against the data bytes.
#[test]
fn size_other_than_the_data_bytes_is_damage() {
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

/// A write of a value past a byte (`data 0x1c3`) is damage at its
/// column, not a write of 0xc3.
#[test]
fn a_value_past_a_byte_is_damage() {
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

/// A completion with a data byte of 256.
#[test]
fn a_data_byte_of_256_is_damage() {
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

/// A negative tick on a tester line (which used to drop the line,
/// and with it a write).
#[test]
fn a_negative_tick_is_damage() {
    let run = Run::copy(CLEAN, "tick", true);
    let n = run.find("Seq write: index", 60);
    run.edit_line(n, |l| {
        let digits = l.trim_start().split(':').next().unwrap().to_string();
        l.replacen(&digits, &format!("-{digits}"), 1)
    });
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, &format!("trace.txt:{n}:"), "negative tick");
}

/// A 20-digit address.
#[test]
fn an_address_past_64_bits_is_damage() {
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

/// A lost request line (a line that no longer looks like the
/// tester's) leaves a completion with no request: damage, not a dropped write.
#[test]
fn a_lost_request_line_is_damage() {
    let run = Run::copy(CLEAN, "lost", true);
    let n = run.find("Seq write: index", 80);
    run.edit_line(n, |l| l.replace("Seq write", "Seq wr!te"));
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, "trace.txt:", "with no request pending");
}

/// MemTest: a value past a byte and a cut hex value.
#[test]
fn memtest_lines_out_of_range_are_damage() {
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

/// A bad checksum, garbage after the stream, corrupt bytes in the
/// middle, a stream cut short: never `consistent` on the part that was read,
/// and the CSV and JSON say where.
#[test]
fn damaged_gzip_is_unknown_with_its_damage_in_csv_and_json() {
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
        .args([
            "check",
            "--format",
            "report",
            "--timeout",
            "0",
            "--models",
            "cc",
        ])
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

/// A reversed trace is not a gem5 log (exit 2, no history: its
/// first tester lines already break the order, a completion before its
/// request), and two tester lines' ticks swapped make the run unknown.
#[test]
fn ticks_out_of_log_order_are_damage() {
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

/// A FIFO among the inputs (docs/reference.md, *Batches and outputs*), or as a run's `stats.txt` or
/// trace, is refused without being opened (opening one blocks), and the
/// other inputs are checked.
#[cfg(unix)]
#[test]
fn fifos_are_refused_not_waited_for() {
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

/// A trace without newlines (a gzip bomb's output) is damage once a line
/// passes 1 MiB (docs/design/gem5.md §1), not an unbounded line buffer.
#[test]
fn a_line_without_end_is_damage_not_unbounded_memory() {
    let run = Run::copy(CLEAN, "no-newline", true);
    let mut text = std::fs::read(run.trace("trace.txt")).unwrap();
    text.extend(std::iter::repeat_n(b'7', 3 << 20));
    text.push(b'\n');
    std::fs::write(run.trace("trace.txt"), text).unwrap();
    let c = check(&run.dir, MODELS);
    assert_unknown_with_damage(&c, "trace.txt", "longer than 1 MiB");
}

// ---------------------------------------------------------------------------
// A run directory whose parts disagree is not one run (docs/reference.md,
// *A run whose files disagree*).
// Each test copies a bundled run and edits one of its files the way a stale
// or foreign file gets there; no verdict may be built on it.

/// `memconform check --timeout 0 ARGS DIR` as text: (exit code, stdout, stderr).
fn check_text(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "--format", "report", "--timeout", "0"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Checks `dir` with `args` and asserts every row `unknown` with an
/// `inconsistent run:` reason, exit 6, and `what` among the disagreements
/// the text report lists.
#[track_caller]
fn assert_inconsistent(dir: &Path, args: &[&str], what: &str) {
    let c = check(dir, args);
    assert_eq!(c.code, 6, "{}", c.stderr);
    assert!(!c.rows.is_empty());
    assert_eq!(c.column("verdict"), ["unknown"], "{:?}", c.column("reason"));
    for r in &c.rows {
        assert!(
            r["reason"].starts_with("inconsistent run: "),
            "{}",
            r["reason"]
        );
    }
    let (code, out, _) = check_text(dir, args);
    assert_eq!(code, 6);
    assert!(
        out.lines()
            .any(|l| l.contains("inconsistent run: ") && l.contains(what)),
        "no disagreement `{what}` in\n{out}"
    );
}

/// Copies `file` of the bundled run `src` into `run`.
fn take_file(run: &Run, src: &str, file: &str) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(src).join(file);
    std::fs::copy(from, run.dir.join(file)).unwrap();
}

/// gem5 writes statistics only on a normal exit: `stats.txt` with
/// statistics beside a panic is an earlier run's. It was believed (its
/// simTicks in the notes); now it is named stale and ignored, and the
/// panicked run keeps its verdicts.
#[test]
fn statistics_beside_a_panic_are_stale() {
    let run = Run::copy(BUG, "stale-stats", false);
    take_file(&run, CLEAN, "stats.txt");
    let (code, out, err) = check_text(&run.dir, &["--models", "cc", "--real-time"]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.contains("stats.txt: simTicks"), "{out}");
    assert!(
        out.contains("stats.txt holds statistics, but simerr.txt holds `src/cpu/testers/rubytest/Check.cc:321: panic: Action/check failure")
            && out.contains("so they are from an earlier run; ignored"),
        "{out}"
    );
}

/// A panic beside an exit status of 0, or beside gem5's normal exit: one
/// of the files is another run's, so no verdict (it was a violation).
#[test]
fn a_panic_beside_a_normal_exit_is_inconsistent() {
    let run = Run::copy(BUG, "panic-exit0", false);
    std::fs::write(run.dir.join("exit-status.txt"), "exit=0\n").unwrap();
    assert_inconsistent(&run.dir, &["--models", "cc", "--real-time"], "exit-status.txt says gem5 exited with 0, but simerr.txt holds `src/cpu/testers/rubytest/Check.cc:321: panic:");
    let run = Run::copy(BUG, "panic-exiting", false);
    let mut simout = std::fs::read_to_string(run.dir.join("simout.txt")).unwrap();
    simout.push_str("Exiting @ tick 24974 because Ruby Tester completed\n");
    std::fs::write(run.dir.join("simout.txt"), simout).unwrap();
    assert_inconsistent(
        &run.dir,
        &["--models", "cc", "--real-time"],
        "but simout.txt says gem5 exited normally at tick 24974 (Ruby Tester completed)",
    );
}

/// A non-zero exit status beside a run that completed (the tester's 300
/// checks, statistics, `Exiting @ tick`): no verdict (it was consistent).
/// Without any sign of a normal end, a non-zero exit is a note only.
#[test]
fn a_failed_exit_beside_a_completed_run_is_inconsistent() {
    let run = Run::copy(CLEAN, "exit134", false);
    std::fs::write(run.dir.join("exit-status.txt"), "134\n").unwrap();
    assert_inconsistent(&run.dir, MODELS, "exit-status.txt says gem5 exited with 134, but simout.txt says it exited normally at tick 86551");
    let (_, out, _) = check_text(&run.dir, MODELS);
    assert!(
        out.contains("shows the tester done (300 checks of 300), but exit-status.txt says gem5 exited with 134"),
        "{out}"
    );
    // the MI-5 run killed before its end, nothing recorded but the status
    let run = Run::copy(BUG, "exit137", false);
    std::fs::write(run.dir.join("exit-status.txt"), "exit=137\n").unwrap();
    std::fs::write(run.dir.join("simerr.txt"), "").unwrap();
    let (code, out, err) = check_text(&run.dir, &["--models", "cc", "--real-time"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("gem5 exited with 137 and recorded no panic (killed, or out of memory?)"),
        "{out}"
    );
}

/// The tester's panic from another run beside a clean run's trace: its
/// failing read used to be added to the clean history (every model
/// violated); now the panic past the trace's end, or naming a read the
/// trace never issued, makes the run inconsistent.
#[test]
fn a_panic_the_trace_does_not_hold_is_inconsistent() {
    // the MI-5 run's panic (tick 24974) beside the clean run's trace
    let run = Run::copy(CLEAN, "foreign-panic", false);
    take_file(&run, BUG, "simerr.txt");
    assert_inconsistent(
        &run.dir,
        &["--models", "cc,sc", "--real-time"],
        "the tester's panic in simerr.txt is at tick 24974, but trace.txt.gz goes on to tick 86549",
    );
    // a panic after the trace's last tick (the trace cut at a line's end)
    let run = Run::copy(BUG, "late-panic", false);
    let simerr = std::fs::read_to_string(run.dir.join("simerr.txt")).unwrap();
    std::fs::write(
        run.dir.join("simerr.txt"),
        simerr.replace("Time: 24974", "Time: 30000"),
    )
    .unwrap();
    assert_inconsistent(
        &run.dir,
        &["--models", "cc", "--real-time"],
        "the tester's panic in simerr.txt is at tick 30000, but trace.txt.gz ends at tick 24974",
    );
    // a port the run does not have, an address the trace never read
    let run = Run::copy(BUG, "panic-port", false);
    std::fs::write(
        run.dir.join("simerr.txt"),
        simerr.replace("proc: 1 address: 0x6e8", "proc: 9 address: 0x7fe8"),
    )
    .unwrap();
    assert_inconsistent(
        &run.dir,
        &["--models", "cc", "--real-time"],
        "names port 9, but this run has 4 tester ports",
    );
    let (_, out, _) = check_text(&run.dir, &["--models", "cc"]);
    assert!(
        out.contains(
            "names a failing read of 0x7fe8 on port 9 at tick 24974 that trace.txt.gz never issued"
        ),
        "{out}"
    );
}

/// A trace that ends far before the run's end (cut at a line's end: no
/// damage shows) was judged as the run (consistent); one that goes on
/// past the run's end is another run's.
#[test]
fn a_trace_that_is_a_part_of_the_run_is_inconsistent() {
    let run = Run::copy(CLEAN, "half-trace", true);
    let mut lines = run.lines();
    lines.truncate(lines.len() / 2);
    run.write_lines(&lines);
    assert_inconsistent(
        &run.dir,
        MODELS,
        "far before the end of the run in simout.txt (exit at tick 86551)",
    );
    let (_, out, _) = check_text(&run.dir, MODELS);
    assert!(
        out.contains(
            "says gem5 exited at tick 86551 because Ruby Tester completed, but trace.txt holds"
        ),
        "{out}"
    );
    // another run's statistics (and exit): the trace goes past their end
    let run = Run::copy(CLEAN, "short-stats", false);
    let small = "tests/data/gem5/mi_example/clean-n2-s1-rich";
    take_file(&run, small, "stats.txt");
    assert_inconsistent(
        &run.dir,
        MODELS,
        "stats.txt ends at tick 56711 (finalTick), simout.txt at tick 86551",
    );
    std::fs::write(
        run.dir.join("simout.txt"),
        std::fs::read_to_string(run.dir.join("simout.txt"))
            .unwrap()
            .replace("Exiting @ tick 86551", "Exiting @ tick 56711"),
    )
    .unwrap();
    assert_inconsistent(&run.dir, MODELS, "trace.txt.gz goes on to tick 86549 (line");
}

/// A trace of another protocol (MESI_Two_Level's L2Cache lines beside an
/// MI_example configuration), or of more CPUs, is not this run's: an input
/// error (it was checked as the run, consistent).
#[test]
fn a_trace_of_another_configuration_is_an_input_error() {
    let run = Run::copy(
        "tests/data/gem5/mesi_two_level/clean-n4-s2-rich",
        "mesi-trace-mi-config",
        false,
    );
    let mi = "tests/data/gem5/mi_example/clean-n4-s2";
    take_file(&run, mi, "config.ini");
    take_file(&run, mi, "config.json");
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(c.rows.is_empty());
    assert!(
        c.stderr.contains("trace.txt.gz: ProtocolTrace lines name L2Cache controllers, which this run's configuration (MI_example: ")
            && c.stderr.contains("does not have: the trace is from another run"),
        "{}",
        c.stderr
    );
    // the 8-CPU run's trace beside a 4-CPU configuration
    let run = Run::copy(mi, "n8-trace-n4-config", false);
    std::fs::remove_file(run.dir.join("trace.txt.gz")).unwrap();
    take_file(&run, CLEAN, "trace.txt.gz");
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(
        c.stderr.contains("trace.txt.gz: line ")
            && c.stderr
                .contains(" uses tester port 7, but this run's configuration has 4 ports"),
        "{}",
        c.stderr
    );
    // config.json of another system beside config.ini
    let run = Run::copy(CLEAN, "two-configs", false);
    take_file(&run, mi, "config.json");
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(
        c.stderr
            .contains("config.ini and config.json describe different systems"),
        "{}",
        c.stderr
    );
}

/// Several traces in one run: identical copies are one; a whole trace and
/// a part of it, or a trace split in two, are refused with the files named
/// (`find_trace` took `trace.txt` silently).
#[test]
fn several_traces_in_a_run_are_one_when_equal_else_refused() {
    // trace.txt beside trace.txt.gz, the same lines: one trace
    let run = Run::copy(CLEAN, "same-twice", false);
    std::fs::write(run.trace("trace.txt"), run.gz_text()).unwrap();
    let (code, out, err) = check_text(&run.dir, MODELS);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("trace.txt and trace.txt.gz hold the same trace; trace.txt is read"),
        "{out}"
    );
    // a part beside the whole
    let text = run.gz_text();
    let lines: Vec<&str> = text.lines().collect();
    let half = lines.len() / 2;
    std::fs::write(run.trace("trace.txt"), lines[..half].join("\n") + "\n").unwrap();
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(c.rows.is_empty());
    assert!(
        c.stderr.contains(&format!(
            "several debug traces that differ: trace.txt ({half} lines), trace.txt.gz ({} lines); memconform reads one trace per run",
            lines.len()
        )),
        "{}",
        c.stderr
    );
    // a trace split in two
    std::fs::remove_file(run.trace("trace.txt.gz")).unwrap();
    std::fs::write(run.trace("trace.txt.1"), lines[half..].join("\n") + "\n").unwrap();
    let c = check(&run.dir, MODELS);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(
        c.stderr.contains("trace.txt.1 (")
            && c.stderr
                .contains("a trace split in parts? join them into one trace.txt"),
        "{}",
        c.stderr
    );
}

/// A run inside a run (an output directory made inside another) is checked
/// too: it was skipped without a word.
#[test]
fn a_run_inside_a_run_is_checked() {
    let outer = Run::copy(CLEAN, "nest/outer", false);
    let inner = outer.dir.join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    let bug = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUG);
    for e in std::fs::read_dir(&bug).unwrap().flatten() {
        std::fs::copy(e.path(), inner.join(e.file_name())).unwrap();
    }
    // the run itself, and a directory holding it
    for parent in [outer.dir.clone(), outer.dir.parent().unwrap().to_path_buf()] {
        let c = check(&parent, &["--models", "cc", "--real-time"]);
        assert_eq!(c.code, 1, "{}", c.stderr);
        let files = c.column("file");
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files.iter().any(|f| f.ends_with("inner")), "{files:?}");
        assert!(c
            .rows
            .iter()
            .any(|r| r["file"].ends_with("inner") && r["verdict"] == "violation"));
    }
}

/// The command line in `simout.txt` and the run record
/// (`memconform-run.json`) against the configuration and each other.
#[test]
fn a_command_line_of_another_run_is_inconsistent() {
    let src = "tests/data/gem5/mesi_two_level/clean-n4-s2-rich";
    let run = Run::copy(src, "record-seed", false);
    let record = std::fs::read_to_string(run.dir.join("memconform-run.json")).unwrap();
    std::fs::write(
        run.dir.join("memconform-run.json"),
        record.replace("\"seed\": 2", "\"seed\": 5"),
    )
    .unwrap();
    assert_inconsistent(
        &run.dir,
        MODELS,
        "memconform-run.json says seed 5, simout.txt's command line --seed 2",
    );
    let run = Run::copy(CLEAN, "simout-n", false);
    take_file(&run, "tests/data/gem5/mi_example/clean-n4-s2", "simout.txt");
    assert_inconsistent(
        &run.dir,
        MODELS,
        "simout.txt's command line says -n 4, config.ini has 8 tester ports",
    );
}
