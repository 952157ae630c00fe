//! A run directory whose files disagree is not one run: before any of them
//! is believed, what each says of the run is checked against the others —
//! the exit status a recording script wrote (`exit-status.txt`), gem5's
//! own output (`simout.txt`, `simerr.txt`: a panic, a normal exit, the
//! command line), `stats.txt`, `config.ini`/`config.json`, the run record
//! (`memconform-run.json`) and the debug trace (its ticks, machines,
//! objects and ports, how far the tester got, the failing read of a panic).
//! A stale or foreign file is never evidence:
//!
//! - files that cannot describe one simulation (several traces, a
//!   `config.json` of another system, a trace naming controllers or ports
//!   the configuration lacks) are an input error: memconform cannot tell
//!   what the run is, and checks nothing of it;
//! - files that disagree on how or when the run ended (an exit status, a
//!   panic, a normal exit, statistics, the trace's last tick, the command
//!   line) make every verdict of the run `unknown`, each disagreement named
//!   in the notes: one of the files is from another run (or the trace is
//!   cut where no damage shows), and memconform cannot tell which;
//! - `stats.txt` with statistics in a run that panicked (gem5 writes them
//!   only on a normal exit) is a file from an earlier run: ignored, with a
//!   note.
//!
//! Every check is cheap: the files besides the trace are small, and what
//! the trace says is gathered during its one read ([`tester::Extent`]).

use std::path::{Path, PathBuf};

use memconform_parsers::gem5::config::{self, Config, Tester};

use super::tester::Trace;

/// What the run's files besides the trace say of how the run ended and
/// how it was made (read by `open_run`).
#[derive(Debug, Clone, Default)]
pub struct Status {
    /// `exit-status.txt` (`0`, `exit=134`): the exit status a recording
    /// script wrote.
    pub exit: Option<i32>,
    /// The first `panic:` or `fatal:` line of `simerr.txt`/`simout.txt`,
    /// and the file.
    pub panic: Option<(String, PathBuf)>,
    /// `Program aborted at tick T` (gem5 after a panic).
    pub aborted_at: Option<u64>,
    /// gem5's normal exit: `Exiting @ tick T because REASON`, and the file.
    pub exiting: Option<(u64, String, PathBuf)>,
    /// Whether `stats.txt` holds statistics (gem5 writes them only on a
    /// normal exit), and the `finalTick` of its last dump.
    pub stats_dumped: bool,
    pub final_tick: Option<u64>,
}

/// What the run's files say, checked against each other: notes, and the
/// disagreements that make every verdict of the run `unknown`.
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// Disagreements between the run's files: each verdict is `unknown`.
    pub conflicts: Vec<String>,
    /// Facts a reader should know (a stale `stats.txt` ignored, a
    /// duplicate trace, an exit without a panic).
    pub notes: Vec<String>,
}

/// The name of a run's file, for messages.
fn name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The exit status in `exit-status.txt`: `134`, `exit=134`, `status 134`.
pub fn parse_exit_status(text: &str) -> Option<i32> {
    let t = text.trim();
    let t = ["exit=", "exit:", "exit ", "status=", "status:", "status "]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(t)
        .trim();
    t.parse().ok()
}

/// `Exiting @ tick T because REASON` in gem5's output.
pub fn parse_exiting(text: &str) -> Option<(u64, String)> {
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("Exiting @ tick ")?;
        let (tick, reason) = rest.split_once(" because ")?;
        Some((tick.trim().parse().ok()?, reason.trim().to_owned()))
    })
}

/// `Program aborted at tick T` in gem5's output.
pub fn parse_aborted(text: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("Program aborted at tick ")?
            .trim()
            .parse()
            .ok()
    })
}

/// The value of option `long` (`--maxloads 5`, `--maxloads=5`) or `short`
/// (`-n 4`) on a command line.
fn option(words: &[&str], long: &str, short: Option<&str>) -> Option<u64> {
    words.iter().enumerate().find_map(|(i, w)| {
        let next = || words.get(i + 1).and_then(|v| v.parse().ok());
        if *w == long || short == Some(*w) {
            next()
        } else {
            w.strip_prefix(long)?.strip_prefix('=')?.parse().ok()
        }
    })
}

/// The tester's CPUs (ports) and its run length (checks, loads per tester).
fn tester_size(tester: &Tester) -> Option<(u32, u64)> {
    match *tester {
        Tester::RubyRandom { cpus, checks, .. } => Some((cpus, checks)),
        Tester::MemTest {
            cpus, max_loads, ..
        } => Some((cpus, max_loads)),
        Tester::Other { .. } => None,
    }
}

/// What `-n` and `--maxloads` on a command line (or in the run record's
/// arguments) say against the configuration, in `what`'s words.
fn arguments(words: &[&str], tester: &Tester, what: &str, out: &mut Vec<String>) {
    let Some((cpus, loads)) = tester_size(tester) else {
        return;
    };
    if let Some(n) = option(words, "--num-cpus", Some("-n")) {
        if n != u64::from(cpus) {
            out.push(format!(
                "{what} says -n {n}, config.ini has {cpus} tester ports: {what} is from another run"
            ));
        }
    }
    if let Some(m) = option(words, "--maxloads", None) {
        if m != loads {
            let key = match tester {
                Tester::MemTest { .. } => "max_loads",
                _ => "checks_to_complete",
            };
            out.push(format!(
                "{what} says --maxloads {m}, config.ini has {key}={loads}: {what} is from another run"
            ));
        }
    }
}

/// The checks of the run's files besides the trace (`open_run`): the
/// exit status against a panic and a normal exit, statistics against a
/// panic, the command line and the run record against the configuration.
/// Returns the findings and whether `stats.txt` is stale (to be ignored).
pub fn check_files(
    status: &Status,
    tester: &Tester,
    protocol: &config::Protocol,
    command_line: Option<&str>,
    seed: Option<u64>,
    record: Option<&serde_json::Value>,
) -> (Findings, bool) {
    let mut f = Findings::default();
    let panic = status
        .panic
        .as_ref()
        .map(|(l, p)| format!("{} holds `{}`", name(p), short(l)));
    match (status.exit, &panic) {
        (Some(0), Some(p)) => f.conflicts.push(format!(
            "exit-status.txt says gem5 exited with 0, but {p} (gem5 ends a panic with SIGABRT, a fatal error with 1): one of them is from another run"
        )),
        (Some(code), None) if code != 0 => {
            let normal = status
                .exiting
                .as_ref()
                .map(|(t, r, p)| format!("{} says it exited normally at tick {t} ({r})", name(p)))
                .or_else(|| {
                    status
                        .stats_dumped
                        .then(|| "stats.txt holds statistics, written only on a normal exit".to_owned())
                });
            match normal {
                Some(n) => f.conflicts.push(format!(
                    "exit-status.txt says gem5 exited with {code}, but {n}: one of them is from another run"
                )),
                None => f.notes.push(format!(
                    "gem5 exited with {code} and recorded no panic (killed, or out of memory?): the trace holds the run up to there"
                )),
            }
        }
        _ => {}
    }
    if let (Some(p), Some((tick, reason, file))) = (&panic, &status.exiting) {
        f.conflicts.push(format!(
            "{p}, but {} says gem5 exited normally at tick {tick} ({reason}): one of them is from another run",
            name(file)
        ));
    }
    // gem5 writes statistics only on a normal exit
    let stale = status.stats_dumped && panic.is_some();
    if let (true, Some(p)) = (stale, &panic) {
        f.notes.push(format!(
            "stats.txt holds statistics, but {p}: gem5 writes statistics only on a normal exit, so they are from an earlier run; ignored"
        ));
    }
    if let (false, Some(end), Some((tick, _, file))) = (stale, status.final_tick, &status.exiting) {
        if end != *tick {
            f.conflicts.push(format!(
                "stats.txt ends at tick {end} (finalTick), {} at tick {tick}: one of them is from another run",
                name(file)
            ));
        }
    }
    if let Some(cl) = command_line {
        let words: Vec<&str> = cl.split_whitespace().collect();
        arguments(
            &words,
            tester,
            "simout.txt's command line",
            &mut f.conflicts,
        );
    }
    if let Some(record) = record {
        let args: Vec<&str> = record
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| a.iter().filter_map(|w| w.as_str()).collect())
            .unwrap_or_default();
        arguments(&args, tester, "memconform-run.json", &mut f.conflicts);
        let recorded = record.get("protocol").and_then(|p| p.as_str());
        if let Some(r) = recorded.filter(|r| {
            *protocol != config::Protocol::Unknown && !r.is_empty() && *r != protocol.name()
        }) {
            f.conflicts.push(format!(
                "memconform-run.json says protocol {r}, config.ini is {}: memconform-run.json is from another run",
                protocol.name()
            ));
        }
        let record_seed = record.get("seed").and_then(|s| s.as_u64());
        if let (Some(a), Some(b)) = (record_seed, seed) {
            if a != b {
                f.conflicts.push(format!(
                    "memconform-run.json says seed {a}, simout.txt's command line --seed {b}: one of them is from another run"
                ));
            }
        }
    }
    (f, stale)
}

/// A line cut for a message.
fn short(line: &str) -> String {
    match line.char_indices().nth(100) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The controller types of a configuration with their counts
/// (`L1Cache` → 4 for four `type=L1Cache_Controller` sections).
fn controllers(config: &Config) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (_, kv) in &config.sections {
        let Some((_, ty)) = kv.iter().find(|(k, _)| k == "type") else {
            continue;
        };
        let Some(machine) = ty.strip_suffix("_Controller") else {
            continue;
        };
        match out.iter_mut().find(|(m, _)| m == machine) {
            Some((_, n)) => *n += 1,
            None => out.push((machine.to_owned(), 1)),
        }
    }
    out
}

/// Whether two configurations describe the same system, as memconform
/// reads them: the protocol, the tester and its size, the CPUs, the
/// controllers. `None` when they do, else what differs.
pub fn compare_configs(ini: &Config, json: &Config) -> Option<String> {
    let describe = |c: &Config| {
        format!(
            "{}, {}, {} CPUs, controllers {}",
            config::protocol(c).name(),
            config::tester(c),
            config::cpus(c).len(),
            {
                let mut v = controllers(c);
                v.sort();
                if v.is_empty() {
                    "none".to_string()
                } else {
                    // `L1Cache × 4, Directory × 1`
                    v.iter()
                        .map(|(m, n)| format!("{m} × {n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            }
        )
    };
    let (a, b) = (describe(ini), describe(json));
    (a != b).then(|| format!("config.ini describes {a}; config.json {b}"))
}

/// The cross-checks of a trace against the run's configuration: machines,
/// controllers and ports that a trace of this configuration cannot name.
/// An error (the trace is from another run) or `None`.
pub fn check_trace_against_config(
    trace: &Trace,
    config: &Config,
    tester: &Tester,
) -> Option<String> {
    let e = &trace.extent;
    let have = controllers(config);
    for (machine, version) in &e.machines {
        match have.iter().find(|(m, _)| m == machine) {
            None => {
                let names: Vec<&str> = have.iter().map(|(m, _)| m.as_str()).collect();
                return Some(format!(
                    "ProtocolTrace lines name {machine} controllers, which this run's configuration ({}: {}) does not have: the trace is from another run",
                    config::protocol(config).name(),
                    names.join(", ")
                ));
            }
            Some((_, n)) if *version as usize >= *n => {
                return Some(format!(
                    "ProtocolTrace lines name {machine} {version}, but this run's configuration has {n} {machine} controllers: the trace is from another run"
                ));
            }
            _ => {}
        }
    }
    for (object, line) in &e.objects {
        if !config.sections.iter().any(|(s, _)| s == object) {
            return Some(format!(
                "line {line} names {object}, which this run's configuration does not have: the trace is from another run"
            ));
        }
    }
    if let (Some((cpus, _)), Some((port, line))) = (tester_size(tester), e.max_port) {
        if port >= cpus {
            return Some(format!(
                "line {line} uses tester port {port}, but this run's configuration has {cpus} ports: the trace is from another run"
            ));
        }
    }
    None
}

/// The slack between the trace's last tick and the end of the run that
/// still counts as the end: 1% of the run, at least 1,000 ticks (the last
/// traced event of a run that completed lies a few ticks before its exit).
pub fn end_slack(end: u64) -> u64 {
    (end / 100).max(1_000)
}

/// The cross-checks of a trace against how the run ended: the panic's
/// tick, port and failing read; the exit tick and the statistics' final
/// tick; the tester's progress against a normal exit or a failure.
/// Disagreements go to `f.conflicts`.
#[allow(clippy::too_many_arguments)]
pub fn check_trace_against_end(
    trace: &Trace,
    run_status: &Status,
    stats_stale: bool,
    tester: &Tester,
    failure_tick: Option<(u64, u32, u64, &'static str)>,
    trace_name: &str,
    f: &mut Findings,
) {
    let e = &trace.extent;
    // read to its end, undamaged: what it lacks, the run lacked
    let whole = trace.damage.is_none() && trace.over_budget.is_none();
    let last = e.last_tick;
    let panic = run_status.panic.as_ref().map(|(_, p)| name(p));
    // the tester's panic: tick T, port, check address
    if let (Some((tick, port, address, which)), Some(from)) = (failure_tick, &panic) {
        if let Some((cpus, _)) = tester_size(tester) {
            if port >= cpus {
                f.conflicts.push(format!(
                    "the {which} panic in {from} names port {port}, but this run has {cpus} tester ports: the panic is from another run"
                ));
            }
        }
        match last {
            Some((l, line)) if l > tick => f.conflicts.push(format!(
                "the {which} panic in {from} is at tick {tick}, but {trace_name} goes on to tick {l} (line {line}): gem5 stops at a panic, so one of them is from another run"
            )),
            Some((l, line)) if whole && l < tick && which == "tester's" => f.conflicts.push(format!(
                "the {which} panic in {from} is at tick {tick}, but {trace_name} ends at tick {l} (line {line}) without the failing read, though nothing shows it cut: the trace is cut at a line's end, or from another run"
            )),
            _ => {}
        }
        if let Some(seen) = e.failure.filter(|_| whole) {
            if !(seen.issued && seen.completed) {
                f.conflicts.push(format!(
                    "the {which} panic in {from} names a failing read of 0x{address:x} on port {port} at tick {tick} that {trace_name} {}: the trace is from another run, or cut at a line's end",
                    if seen.issued {
                        "does not complete there"
                    } else {
                        "never issued"
                    }
                ));
            }
        }
    } else if let (Some(at), Some(from), Some((l, line))) = (run_status.aborted_at, &panic, last) {
        if l > at {
            f.conflicts.push(format!(
                "gem5 aborted at tick {at} ({from}), but {trace_name} goes on to tick {l} (line {line}): one of them is from another run"
            ));
        }
    }
    // the end of a run that exited normally
    let ends = [
        run_status
            .exiting
            .as_ref()
            .map(|(t, _, p)| (*t, format!("{} (exit at tick {t})", name(p)))),
        run_status
            .final_tick
            .filter(|_| !stats_stale)
            .map(|t| (t, format!("stats.txt (finalTick {t})"))),
    ];
    if let Some((end, what)) = ends.into_iter().flatten().next() {
        match last {
            Some((l, line)) if l > end => f.conflicts.push(format!(
                "{trace_name} goes on to tick {l} (line {line}), past the end of the run in {what}: the trace is from another run"
            )),
            Some((l, line)) if whole && l.saturating_add(end_slack(end)) < end => {
                f.conflicts.push(format!(
                    "{trace_name} ends at tick {l} (line {line}), far before the end of the run in {what}: the trace holds a part of the run (cut at a line's end, --debug-end, or from another run)"
                ))
            }
            None if whole => f.conflicts.push(format!(
                "{trace_name} holds no tick, but the run ran to tick {end} ({what})"
            )),
            _ => {}
        }
    }
    // how far the tester got
    let Some((_, target)) = tester_size(tester) else {
        return;
    };
    let unit = match tester {
        Tester::MemTest { .. } => "loads of one tester",
        _ => "checks",
    };
    let completed = target > 0 && e.completed >= target;
    if completed {
        let failed = panic
            .as_ref()
            .map(|p| format!("{p} holds a panic"))
            .or_else(|| {
                run_status
                    .exit
                    .filter(|&c| c != 0)
                    .map(|c| format!("exit-status.txt says gem5 exited with {c}"))
            });
        if let Some(failed) = failed {
            f.conflicts.push(format!(
                "{trace_name} shows the tester done ({} {unit} of {target}), but {failed}: one of them is from another run",
                e.completed
            ));
        }
    }
    let tester_done = run_status.exiting.as_ref().filter(|(_, reason, _)| {
        reason.contains("Ruby Tester completed") || reason.contains("maximum number of loads")
    });
    if let (Some((tick, reason, file)), true, false) = (tester_done, whole, completed) {
        if target > 0 {
            f.conflicts.push(format!(
                "{} says gem5 exited at tick {tick} because {reason}, but {trace_name} holds {} {unit} of {target}: the trace holds a part of the run (cut at a line's end, --debug-end, or from another run)",
                name(file),
                e.completed
            ));
        }
    }
}

/// The trace files of a run directory: the usual names (`trace.txt`,
/// `trace.txt.gz`, `trace.out`, `trace.out.gz`) and any other file whose
/// first lines are gem5 debug lines (`trace.txt.1`, a trace on stdout).
pub fn trace_candidates(dir: &Path) -> Vec<PathBuf> {
    const NAMES: [&str; 4] = ["trace.txt", "trace.txt.gz", "trace.out", "trace.out.gz"];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            p.is_file()
                && !name.starts_with("config")
                && !name.starts_with("stats")
                && !matches!(
                    name,
                    "citations.bib" | "exit-status.txt" | "memconform-run.json"
                )
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            NAMES.contains(&name) || looks_like_trace(p)
        })
        .collect()
}

/// Whether the first 50 lines of `p` hold 5 gem5 debug lines.
pub fn looks_like_trace(p: &Path) -> bool {
    let mut hits = 0;
    let _ = memconform_parsers::gem5::input::for_each_line(p, |n, line| {
        let t = String::from_utf8_lossy(line);
        let t = t.trim_start();
        if let Some((tick, rest)) = t.split_once(": ") {
            if tick.chars().all(|c| c.is_ascii_digit()) && !tick.is_empty() && rest.contains(": ") {
                hits += 1;
            }
        }
        if n >= 50 || hits >= 5 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    hits >= 5
}

/// A digest of a trace's lines (plain or gzipped alike) and how it ended.
fn digest(p: &Path) -> Option<(u64, u64, bool)> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut lines = 0u64;
    let ending = memconform_parsers::gem5::input::for_each_line(p, |_, line| {
        line.hash(&mut h);
        lines += 1;
        std::ops::ControlFlow::Continue(())
    })
    .ok()?;
    Some((h.finish(), lines, ending.is_complete()))
}

/// The one trace of a run among its candidates: the only one, or the
/// first of identical copies (`trace.txt` and `trace.txt.gz` holding the
/// same lines, whole); else an error naming them. Also a note on copies.
pub fn pick_trace(candidates: &[PathBuf]) -> Result<(Option<PathBuf>, Option<String>), String> {
    match candidates {
        [] => return Ok((None, None)),
        [one] => return Ok((Some(one.clone()), None)),
        _ => {}
    }
    let digests: Vec<Option<(u64, u64, bool)>> = candidates.iter().map(|p| digest(p)).collect();
    let names: Vec<String> = candidates.iter().map(|p| name(p)).collect();
    if digests[0].is_some_and(|d| d.2) && digests.iter().all(|d| *d == digests[0]) {
        return Ok((
            Some(candidates[0].clone()),
            Some(format!(
                "{} hold the same trace; {} is read",
                names.join(" and "),
                names[0]
            )),
        ));
    }
    let described: Vec<String> = candidates
        .iter()
        .zip(&digests)
        .map(|(p, d)| match d {
            Some((_, lines, true)) => format!("{} ({lines} lines)", name(p)),
            Some((_, lines, false)) => format!("{} ({lines} lines, cut or damaged)", name(p)),
            None => format!("{} (unreadable)", name(p)),
        })
        .collect();
    let split = names.iter().any(|n| {
        n.rsplit('.')
            .next()
            .is_some_and(|e| e.chars().all(|c| c.is_ascii_digit()))
    });
    Err(format!(
        "several debug traces that differ: {}; memconform reads one trace per run and cannot tell which is this run's{}",
        described.join(", "),
        if split {
            " (a trace split in parts? join them into one trace.txt)"
        } else {
            " (move the others out of the directory)"
        }
    ))
}

/// The failing read a tester's panic names: its tick, port, address and
/// whose panic it is.
pub fn failure_of(
    failure: Option<&memconform_parsers::gem5::rubytest::CheckFailure>,
    memtest: Option<(u32, u64, u64, u8, u8)>,
) -> Option<(u64, u32, u64, &'static str)> {
    failure
        .map(|f| (f.tick, f.proc_, f.address, "tester's"))
        .or_else(|| memtest.map(|(t, addr, tick, _, _)| (tick, t, addr, "MemTest")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_gem5_and_the_recording_script_wrote() {
        assert_eq!(parse_exit_status("exit=134\n"), Some(134));
        assert_eq!(parse_exit_status(" 0 "), Some(0));
        assert_eq!(parse_exit_status("status: 1"), Some(1));
        assert_eq!(parse_exit_status("done"), None);
        let simout =
            "command line: gem5.opt x.py\nExiting @ tick 86551 because Ruby Tester completed\n";
        assert_eq!(
            parse_exiting(simout),
            Some((86551, "Ruby Tester completed".to_owned()))
        );
        assert_eq!(parse_exiting("Exiting @ tick x because y"), None);
        assert_eq!(
            parse_aborted("Memory Usage: 1 KBytes\nProgram aborted at tick 24974\n"),
            Some(24974)
        );
        fn w(s: &str) -> Vec<&str> {
            s.split_whitespace().collect()
        }
        assert_eq!(
            option(&w("a.py -n 4 --maxloads 5"), "--num-cpus", Some("-n")),
            Some(4)
        );
        assert_eq!(
            option(&w("a.py --num-cpus=8"), "--num-cpus", Some("-n")),
            Some(8)
        );
        assert_eq!(option(&w("a.py --maxloads=9"), "--maxloads", None), Some(9));
        assert_eq!(option(&w("a.py -n"), "--num-cpus", Some("-n")), None);
        assert_eq!(end_slack(86551), 1_000);
        assert_eq!(end_slack(10_000_000), 100_000);
    }

    /// The status files against each other, without a trace.
    #[test]
    fn status_files_that_disagree() {
        let tester = Tester::RubyRandom {
            cpus: 4,
            checks: 200,
            wakeup_frequency: 10,
            check_flush: false,
        };
        let mi = config::Protocol::MiExample;
        let panic = Some((
            "x.cc:1: panic: boom".to_owned(),
            PathBuf::from("simerr.txt"),
        ));
        let check = |s: &Status| check_files(s, &tester, &mi, None, None, None);
        // a panic and exit 0
        let (f, stale) = check(&Status {
            exit: Some(0),
            panic: panic.clone(),
            ..Status::default()
        });
        assert!(!stale);
        assert_eq!(f.conflicts.len(), 1, "{f:?}");
        assert!(f.conflicts[0].starts_with(
            "exit-status.txt says gem5 exited with 0, but simerr.txt holds `x.cc:1: panic: boom`"
        ));
        // a panic and statistics: stale statistics, a note
        let (f, stale) = check(&Status {
            exit: Some(134),
            panic: panic.clone(),
            stats_dumped: true,
            final_tick: Some(5),
            ..Status::default()
        });
        assert!(stale && f.conflicts.is_empty(), "{f:?}");
        assert!(f.notes[0].contains("from an earlier run; ignored"));
        // a failed exit beside a normal one
        let (f, _) = check(&Status {
            exit: Some(1),
            stats_dumped: true,
            ..Status::default()
        });
        assert!(
            f.conflicts[0].contains("stats.txt holds statistics, written only on a normal exit")
        );
        // killed: a note only
        let (f, _) = check(&Status {
            exit: Some(137),
            ..Status::default()
        });
        assert!(f.conflicts.is_empty() && f.notes[0].contains("exited with 137"));
        // a command line and a run record of other runs
        let record = serde_json::json!({"seed": 3, "args": ["-n", "4", "--maxloads", "300"], "protocol": "MESI_Two_Level"});
        let (f, _) = check_files(
            &Status::default(),
            &tester,
            &mi,
            Some("gem5.opt x.py -n 2 --maxloads 200 --seed 1"),
            Some(1),
            Some(&record),
        );
        assert_eq!(f.conflicts.len(), 4, "{f:?}");
        assert!(f.conflicts[0].contains("says -n 2, config.ini has 4 tester ports"));
        assert!(
            f.conflicts[1].contains("says --maxloads 300, config.ini has checks_to_complete=200")
        );
        assert!(f.conflicts[2].contains("protocol MESI_Two_Level, config.ini is MI_example"));
        assert!(f.conflicts[3].contains("seed 3, simout.txt's command line --seed 1"));
    }

    /// Copies with the same lines are one trace; traces that differ are
    /// named with their lines.
    #[test]
    fn one_trace_per_run() {
        let dir = std::env::temp_dir().join(format!("memconform-traces-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let lines: String = (0..8)
            .map(|t| format!("   {t}: global: line {t}\n"))
            .collect();
        std::fs::write(dir.join("trace.out"), &lines).unwrap();
        std::fs::write(dir.join("simout.txt"), "gem5 Simulator System\n").unwrap();
        std::fs::write(dir.join("config.ini"), &lines).unwrap();
        assert_eq!(trace_candidates(&dir), [dir.join("trace.out")]);
        assert_eq!(
            pick_trace(&trace_candidates(&dir)).unwrap(),
            (Some(dir.join("trace.out")), None)
        );
        // a copy with the same lines (no final newline is a cut: not the same)
        std::fs::write(dir.join("debug.log"), &lines).unwrap();
        let (one, note) = pick_trace(&trace_candidates(&dir)).unwrap();
        assert_eq!(one, Some(dir.join("debug.log")));
        assert_eq!(
            note.unwrap(),
            "debug.log and trace.out hold the same trace; debug.log is read"
        );
        std::fs::write(dir.join("debug.log"), lines.trim_end()).unwrap();
        let e = pick_trace(&trace_candidates(&dir)).unwrap_err();
        assert!(e.starts_with("several debug traces that differ: debug.log (7 lines, cut or damaged), trace.out (8 lines)"), "{e}");
        assert!(e.ends_with("(move the others out of the directory)"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
