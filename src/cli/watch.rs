//! `memconform watch`: check a gem5 run while gem5 writes it, and stop the
//! simulation at the first violation.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use super::check::{parse_model, parse_one_model, parse_seconds};
use super::{exit, shown};
use memconform_core::check::{Options, Verdict};
use memconform_core::models::Model;
use memconform_ingest::checked::Checked;
use memconform_ingest::watch::{first_violation, Look, Watch};
use memconform_ingest::Reading;
use memconform_report::{rows, write_text};

#[derive(Args)]
#[command(after_help = "\
Runs COMMAND (gem5, writing its output into a new or empty DIR) and checks DIR each time its files grow: \
the SE client's output up to its last whole round (run the client with `--stream on` so \
that it prints each round as it ends), a tester's debug trace as if cut where it ends now. \
Such a violation is one of the whole run, so at the first violation that counts the \
command's process group is stopped (SIGTERM, then SIGKILL after 2 s) and the violation is \
reported as `check` reports it. A violation counts when the history breaks the model its run \
promises (or --promise names; any violation when none is promised): an x86 O3 run promises \
TSO, so its SC violations that keep TSO are store buffering and do not stop it, while any \
violation on a history that breaks TSO does, whichever model was asked. When the command ends by itself, the whole run is \
checked once more. A check starts only after DIR grew, and no sooner than twice the last \
check's time after it: checking takes at most about a third of the machine.

The command runs in its own process group under a keeper that stops the whole group \
when the watch ends, however it ends (a second signal, SIGKILL), and stops what the command \
leaves running in it when it ends, saying so.

DIR/memconform-watch.json records what happened: whether the command was stopped and why, \
the model and history of the violation, the checks made, the seconds, and `stop_within_s`: \
at most how long after the violating round's line reached DIR the command was stopped (from \
the start of the last check that did not see it).

Exit status as `check`: 0 every verdict of the whole run consistent, 1 a violation (the \
command stopped or ended), 2 bad input (the run unreadable once the command ended) or a \
command that cannot start, 3 internal error, 6 no violation but some verdict unknown; \
128 + the signal when Ctrl-C or SIGTERM stopped the watch (the command is stopped too).

Examples:
  memconform watch m5out -- build/X86/gem5.opt -d m5out configs/deprecated/example/se.py \\
      --ruby -n 2 --cpu-type=X86O3CPU --cmd=client --output=client.out \\
      --options='--threads 2 --rounds 1000 --shape mp --stream on'
  memconform watch --real-time --models sc runs/s7 -- gem5.opt -d runs/s7 \\
      --debug-flags=RubyTest --debug-file=trace.txt seeded_random_test.py --seed 7")]
pub struct WatchArgs {
    /// The gem5 output directory the command writes (`-d` of gem5).
    #[arg(value_name = "DIR")]
    dir: PathBuf,

    /// The command that runs gem5, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,

    /// Models to check, comma-separated (cc, ccv, cm, ccm, wccm, wsc, sc, tso, pso, rmo,
    /// armv8; all: the first nine; weak: rmo and armv8).
    #[arg(long, short, value_delimiter = ',', default_value = "all", value_parser = parse_model)]
    models: Vec<Vec<Model>>,

    /// For gem5 tester runs: also check the real-time view (as `check --real-time`).
    #[arg(long)]
    real_time: bool,

    /// Hold every history to this model instead of the one the run's
    /// configuration promises (as `check --promise`).
    #[arg(long, value_name = "MODEL", value_parser = parse_one_model)]
    promise: Option<Model>,

    /// Seconds between looks at DIR (a look that finds it grown checks it,
    /// no sooner than twice the last check's time after it). The stop comes
    /// within about this much after the violating round's line: measured
    /// on gem5 runs, 0.23–0.24 s at 0.2, 1.03–1.04 s at 1.
    #[arg(long, default_value_t = memconform_ingest::watch::INTERVAL_S, value_name = "SECS", value_parser = parse_seconds)]
    interval: f64,

    /// Time budget per history and check, in seconds (0: none).
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = parse_seconds)]
    timeout: f64,

    /// Do not stop the command at a violation: report it, let gem5 finish,
    /// then check the whole run.
    #[arg(long)]
    no_stop: bool,
}

/// What `DIR/memconform-watch.json` records.
#[derive(Serialize)]
struct Record {
    command: String,
    /// The command was stopped by memconform.
    stopped: bool,
    /// `violation`, `ended` (the command ended by itself) or the signal
    /// that stopped the watch.
    why: String,
    /// The violation's model, history index and pattern (or empty).
    model: String,
    history: Option<usize>,
    pattern: String,
    /// The SE client's round of the violating history, and when it ended
    /// (`@time_ns`: simulated nanoseconds in gem5's SE mode, with `--stream on`).
    round: Option<u64>,
    time_ns: Option<u64>,
    /// The command's exit code when it ended by itself.
    exit_code: Option<i32>,
    checks: usize,
    seconds: f64,
    /// When stopped at a violation: at most this many seconds passed from
    /// the violating round's line reaching the run's files to the command's
    /// end (from the start of the last check that did not see it, or of the
    /// watch, to the stop's end).
    stop_within_s: Option<f64>,
}

/// Runs `watch`; returns the exit code.
pub fn run(args: WatchArgs) -> i32 {
    let mut models: Vec<Model> = args.models.into_iter().flatten().collect();
    models.sort();
    models.dedup();
    let opts = Options {
        timeout: (args.timeout > 0.0).then(|| Duration::from_secs_f64(args.timeout)),
        max_memory: memconform_ingest::limits::default_max_memory(),
        ..Options::default()
    };
    let reading = Reading {
        real_time: args.real_time,
        promise: args.promise,
        ..Reading::default()
    };
    if args.dir.exists() && !args.dir.is_dir() {
        say!(
            "memconform watch: {} is not a directory: give the directory gem5 writes its output into (-d), new or empty",
            shown(&args.dir)
        );
        return exit::INPUT_ERROR;
    }
    // what DIR holds now would be read as this run's: an earlier run's
    // files there could give its violation to this one
    let earlier: Vec<String> = std::fs::read_dir(&args.dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !memconform_ingest::watch::OWN_FILES.contains(&n.as_str()))
        .collect();
    if !earlier.is_empty() {
        say!(
            "memconform watch: {} already holds files ({}{}): an earlier run's would be read as this one's; give an empty or new directory",
            shown(&args.dir),
            earlier.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
            if earlier.len() > 3 { ", ..." } else { "" }
        );
        return exit::INPUT_ERROR;
    }
    let command_line = args.command.join(" ");
    let t = Instant::now();
    let mut child = match spawn(&args.command) {
        Ok(c) => c,
        Err(e) => {
            say!("memconform watch: cannot run `{command_line}`: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    // a second signal kills it at once (signals::exit_now)
    let _running = memconform_mutate::campaign::Running::register(group);
    let stop_signal = Arc::new(AtomicBool::new(false));
    {
        let stop_signal = stop_signal.clone();
        super::signals::cooperate(move |_| stop_signal.store(true, Ordering::SeqCst));
    }
    let mut watch = Watch::new(&args.dir, &models, opts, reading);
    let tty = io::stderr().is_terminal();
    let interval = Duration::from_secs_f64(args.interval.max(0.01));
    let mut record = Record {
        command: command_line,
        stopped: false,
        why: String::new(),
        model: String::new(),
        history: None,
        pattern: String::new(),
        round: None,
        time_ns: None,
        exit_code: None,
        checks: 0,
        seconds: 0.0,
        stop_within_s: None,
    };
    let mut reported = false;
    let mut status_line = String::new();
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(e) => {
                say!("memconform watch: cannot wait for the command: {e}");
                break None;
            }
        }
        if stop_signal.load(Ordering::SeqCst) {
            stop(&mut child, group);
            let sig = super::signals::received().unwrap_or(nix::libc::SIGTERM);
            record.stopped = true;
            record.why = super::signals::name(sig).into();
            finish(&args.dir, &mut record, &watch, t, tty, &status_line);
            return super::signals::code(sig);
        }
        match watch.look() {
            Look::Unchanged => {}
            Look::NotYet(why) => status_line = format!("waiting: {why}"),
            Look::Checked { histories } => {
                status_line = format!(
                    "check {}: {histories} histories, no violation that counts so far",
                    watch.checks
                )
            }
            Look::Violation {
                checked,
                history,
                outcome,
            } if !reported => {
                if tty {
                    say!("\r\x1b[K");
                }
                reported = true;
                describe(&mut record, &checked[history], outcome);
                if !args.no_stop {
                    stop(&mut child, group);
                    record.stop_within_s =
                        Some(watch.clean_since.unwrap_or(t).elapsed().as_secs_f64());
                    record.stopped = true;
                    record.why = "violation".into();
                    say!(
                        "memconform watch: {} violated after {:.1} s: the command is stopped",
                        record.model,
                        t.elapsed().as_secs_f64()
                    );
                } else {
                    say!(
                        "memconform watch: {} violated after {:.1} s (--no-stop: the command goes on)",
                        record.model,
                        t.elapsed().as_secs_f64()
                    );
                }
                if let Err(e) = report(&args.dir, &checked[history]) {
                    return super::write_failed("watch", "the report", &e);
                }
                if !args.no_stop {
                    finish(&args.dir, &mut record, &watch, t, tty, &status_line);
                    return exit::VIOLATION;
                }
            }
            Look::Violation { .. } => {}
        }
        if tty && !status_line.is_empty() {
            say_inline(&format!(
                "[{:>6.1} s] {}",
                t.elapsed().as_secs_f64(),
                status_line
            ));
        }
        std::thread::sleep(interval);
    };
    if tty {
        say_inline("");
    }
    record.exit_code = ended.and_then(|s| s.code());
    record.why = "ended".into();
    // the command ended: the whole run, once more
    let code = match watch.last_look() {
        Err(e) => {
            say!("memconform watch: {e}");
            // a violation seen while it ran stands (it is one of the run)
            if reported {
                exit::VIOLATION
            } else {
                exit::INPUT_ERROR
            }
        }
        Ok(checked) => match first_violation(&checked) {
            Some((history, outcome)) => {
                if !reported {
                    describe(&mut record, &checked[history], outcome);
                    if let Err(e) = report(&args.dir, &checked[history]) {
                        return super::write_failed("watch", "the report", &e);
                    }
                }
                exit::VIOLATION
            }
            None if reported => exit::VIOLATION,
            None => summary(&checked),
        },
    };
    if let Some(c) = record.exit_code.filter(|&c| c != 0) {
        say!("memconform watch: the command exited with status {c}");
    } else if record.exit_code.is_none() {
        say!("memconform watch: the command was ended by a signal");
    }
    finish(&args.dir, &mut record, &watch, t, false, "");
    code
}

/// Starts `command` in its own process group (so that stopping it stops
/// gem5 and whatever it started), its standard output on our standard
/// error: standard output is the report's.
///
/// The command runs under a keeper ([`super::guard`]), the leader of its
/// group: however the watch ends (SIGKILL included), the keeper stops the
/// group, and when the command ends leaving processes in it, the keeper
/// stops them and says so.
fn spawn(command: &[String]) -> io::Result<Child> {
    use std::os::unix::process::CommandExt;
    if !runnable(&command[0]) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "no such program (as a path, or on PATH)",
        ));
    }
    let prefix = super::guard::prefix();
    let mut cmd = Command::new(&prefix[0]);
    cmd.args(&prefix[1..])
        .args(command)
        .stdin(Stdio::null())
        .stdout(io::stderr())
        .process_group(0);
    cmd.spawn()
}

/// Whether `program` names a file that can be run: a path (with a `/`)
/// to one, or a name found on `PATH`.
fn runnable(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let exec = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return exec(Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| exec(&d.join(program))))
}

/// Stops the command's process group: SIGTERM, then SIGKILL after 2 s.
fn stop(child: &mut Child, group: nix::unistd::Pid) {
    use nix::sys::signal::{killpg, Signal};
    let _ = killpg(group, Signal::SIGTERM);
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(2) {
        if matches!(child.try_wait(), Ok(Some(_))) {
            // the group's other processes, if any, go too
            let _ = killpg(group, Signal::SIGKILL);
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.wait();
}

/// Fills the record's violation from outcome `outcome` of `c`.
fn describe(record: &mut Record, c: &Checked, outcome: usize) {
    let o = &c.outcomes[outcome];
    record.model = o.model.name().into();
    record.history = Some(c.history.index);
    record.pattern = o
        .violation()
        .map(|v| v.pattern.name().to_string())
        .unwrap_or_default();
    record.round = c.run.round;
    record.time_ns = c.run.time_ns;
}

/// The violating history's report on standard output, as `check` writes it.
fn report(dir: &Path, c: &Checked) -> io::Result<()> {
    let mut out = io::stdout().lock();
    write_text(&mut out, &rows(dir, c), &c.notes)?;
    out.flush()
}

/// The whole run's verdicts in one line per model, and `check`'s exit code
/// for them (no violation that counts was found).
fn summary(checked: &[Checked]) -> i32 {
    let mut unknown = 0usize;
    let mut not_counted = 0usize;
    for c in checked {
        for (i, o) in c.outcomes.iter().enumerate() {
            match o.verdict() {
                Verdict::Unknown => unknown += 1,
                Verdict::Violation if c.breaks(i) != Some(true) => not_counted += 1,
                _ => {}
            }
        }
    }
    let mut out = io::stdout().lock();
    let _ = writeln!(
        out,
        "{} histories: no violation that counts; {unknown} verdicts unknown, {not_counted} violations allowed by the run's promise",
        checked.len()
    );
    if checked.is_empty() {
        exit::NOTHING_CHECKED
    } else if unknown > 0 {
        exit::UNKNOWN
    } else {
        exit::CONSISTENT
    }
}

/// Writes `DIR/memconform-watch.json` (whole or not at all).
fn finish(dir: &Path, record: &mut Record, watch: &Watch, t: Instant, tty: bool, line: &str) {
    if tty && !line.is_empty() {
        say_inline("");
    }
    record.checks = watch.checks;
    record.seconds = t.elapsed().as_secs_f64();
    let path = dir.join("memconform-watch.json");
    let mut json = serde_json::to_vec_pretty(record).expect("a record serialises");
    json.push(b'\n');
    if let Err(e) = memconform_report::write_atomic(&path, &json) {
        say!("memconform watch: cannot write {}: {e}", shown(&path));
    }
}

/// One status line on a terminal's standard error, written over the last.
fn say_inline(s: &str) {
    let mut e = io::stderr().lock();
    let _ = write!(e, "\r\x1b[K{s}");
    let _ = e.flush();
}
