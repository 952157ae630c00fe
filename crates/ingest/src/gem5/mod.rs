//! gem5 output directories (`m5out/`): finding runs, recognising the protocol
//! and tester, turning a Ruby random tester run into a history, and explaining
//! a violation in gem5's terms (ports, ticks, trace lines, protocol transitions).

pub mod client_run;
pub mod consistency;
mod explain;
pub mod tester;

pub use explain::explain;

use std::path::{Path, PathBuf};

use memconform_parsers::file::FileBytes;
use memconform_parsers::gem5::config::{self, Config, Protocol, Tester};
use memconform_parsers::gem5::rubytest::{parse_check_failure, CheckFailure};
use memconform_parsers::text::shown_path;

use crate::load::InputError;
use memconform_core::history::History;
use memconform_core::models::Model;

/// One gem5 run: a directory with `config.ini` or `config.json`.
#[derive(Debug, Clone)]
pub struct Run {
    pub dir: PathBuf,
    pub config: Config,
    pub protocol: Protocol,
    pub tester: Tester,
    /// The debug trace (`--debug-file`), plain or gzipped.
    pub trace: Option<PathBuf>,
    /// Why the run has no one trace (several that differ), if so: reading
    /// its trace is then an input error.
    pub trace_error: Option<String>,
    /// What the run's files besides the trace say of how it ended.
    pub status: consistency::Status,
    /// The cross-checks of those files (the trace's come when it is read).
    pub findings: consistency::Findings,
    /// `--seed N` of the command line in `simout.txt`, if any.
    pub seed: Option<u64>,
    /// The protocol variant (e.g. a mutant's id): `variant` in
    /// `memconform-run.json` (the wrapper's `--variant NAME`), if any.
    pub variant: Option<String>,
    /// The tester's failure panic, from `simerr.txt`/`simout.txt`.
    pub failure: Option<CheckFailure>,
    /// MemTest's failure panic: (tester, address, tick, returned, expected).
    pub memtest_failure: Option<(u32, u64, u64, u8, u8)>,
    /// Any other panic or fatal line.
    pub panic: Option<String>,
    /// From `stats.txt` (empty after a panic: gem5 writes it on a normal
    /// exit); `None` too when it is stale (statistics beside a panic).
    pub stats: Option<memconform_parsers::gem5::stats::Dump>,
    /// Whether `stats.txt` holds statistics that cannot be this run's.
    pub stats_stale: bool,
    /// The gem5 command line (`command line:` in `simout.txt`), if recorded.
    pub command_line: Option<String>,
    /// The simulated CPUs (an SE-mode run's cores; a tester run has none).
    pub cpus: Vec<config::Cpu>,
    /// What could not be read of the run's other files (a malformed
    /// `memconform-run.json`, a `--seed` that is no number, a `stats.txt`
    /// that does not parse), each `file:line:col: what` where it can be
    /// located: the run is still checked, without what they would have given.
    pub warnings: Vec<String>,
}

impl Run {
    /// The CPU model of every core (`X86O3CPU`), or `mixed`; `None`
    /// without CPUs.
    pub fn cpu_type(&self) -> Option<&str> {
        let first = self.cpus.first()?.model.as_str();
        Some(if self.cpus.iter().all(|c| c.model == first) {
            first
        } else {
            "mixed"
        })
    }

    /// The memory model the run's configuration promises its programs
    /// (see [`promised_model`]).
    pub fn promised_model(&self) -> Option<Model> {
        promised_model(&self.cpus)
    }

    /// The promise by name, `armv8` included (see [`promise`]).
    pub fn promise(&self) -> Option<&'static str> {
        promise(&self.cpus)
    }

    /// The ISA of every core (`X86`, `Arm`: the type of its `isa` child
    /// without `ISA`), or `mixed`; `None` when no core names one.
    pub fn isa(&self) -> Option<&str> {
        let first = self.cpus.first()?.isa.as_deref()?;
        Some(
            if self.cpus.iter().all(|c| c.isa.as_deref() == Some(first)) {
                first
            } else {
                "mixed"
            },
        )
    }
}

/// The model a configuration promises, by name: `sc` for cores that
/// perform one blocking access at a time (`TimingSimpleCPU`,
/// `AtomicSimpleCPU`, of any ISA: `ArmTimingSimpleCPU` too), the ISA's
/// model for cores with a store buffer and out-of-order or pipelined loads:
/// `tso` for x86 (`X86O3CPU`, `X86MinorCPU`), `armv8` for ARM (`ArmO3CPU`,
/// `ArmMinorCPU`; a model memconform does not have, so the promise is
/// `unknown`: [`memconform_core::check::promise::UNAVAILABLE`]); none for
/// another ISA's pipelined cores, KVM, or cores of different models. An O3
/// core with `needsTSO=false` still promises x86's TSO: gem5 then does not
/// keep it (a configuration mutant). `ArmMinorCPU` promises no more than
/// ARMv8: its loads pass older stores waiting in its store buffer
/// (docs/design/gem5.md §12).
pub fn promise(cpus: &[config::Cpu]) -> Option<&'static str> {
    let first = cpus.first()?;
    if cpus.iter().any(|c| c.model != first.model) {
        return None;
    }
    let m = first.model.as_str();
    let pipelined = m.ends_with("O3CPU") || m.ends_with("MinorCPU");
    if m.ends_with("TimingSimpleCPU") || m.ends_with("AtomicSimpleCPU") {
        Some(Model::Sc.name())
    } else if pipelined && first.isa.as_deref() == Some("X86") {
        Some(Model::Tso.name())
    } else if pipelined && first.isa.as_deref() == Some("Arm") {
        Some("armv8")
    } else {
        None
    }
}

/// [`promise`] when it is a model memconform decides.
pub fn promised_model(cpus: &[config::Cpu]) -> Option<Model> {
    promise(cpus).and_then(Model::from_name)
}

/// A run's histories: the tester's history, with each operation's origin.
pub struct Ingested {
    pub history: History,
    pub origins: Vec<tester::Origin>,
    /// Notes on what the trace held (truncation, requests in flight, ambiguities).
    pub notes: Vec<String>,
    /// Where the trace is damaged: the history is then the prefix before
    /// the damage, and no verdict of it is a verdict of the run unless the
    /// damage is a cut and the verdict a violation (see `batch`).
    pub damage: Option<tester::Damage>,
    /// Whether the trace holds ProtocolTrace lines (the explanations list
    /// protocol transitions only then).
    pub protocol_trace: bool,
    /// Where the run's files disagree (see [`consistency`]): no verdict of
    /// the run stands, each is `unknown`.
    pub inconsistent: Vec<String>,
    /// Set when the trace passed the memory budget: why (every verdict
    /// `unknown`).
    pub over_budget: Option<String>,
}

/// The debug flags that give a tester trace everything memconform reads:
/// the tester's requests and checks, the protocol's transitions, the
/// sequencers' hits and misses.
pub const DEBUG_FLAGS: &str = "RubyTest,ProtocolTrace,RubySequencer";

/// Whether `dir` is a gem5 output directory.
pub fn is_run(dir: &Path) -> bool {
    dir.join("config.ini").is_file() || dir.join("config.json").is_file()
}

fn input_error(path: &Path, msg: String) -> InputError {
    InputError {
        file: path.to_path_buf(),
        pos: None,
        msg,
    }
}

fn read_text(path: &Path) -> Option<String> {
    let bytes = FileBytes::open(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads one configuration file of a run.
fn read_config(p: &Path, json: bool) -> Result<Config, InputError> {
    let bytes = FileBytes::open(p).map_err(|e| input_error(p, format!("cannot read: {e}")))?;
    let parsed = if json {
        config::parse_config_json(&bytes)
    } else {
        config::parse_config_ini(&bytes)
    };
    parsed.map_err(|e| InputError {
        file: p.to_path_buf(),
        pos: Some(e.pos),
        msg: e.msg,
    })
}

/// Reads a run's configuration, finds its trace, and reads what its other
/// files say (gem5's output, the exit status, statistics, the run record),
/// checked against each other ([`consistency`]). A `config.json` that
/// describes another system than `config.ini` is an input error.
pub fn open_run(dir: &Path) -> Result<Run, InputError> {
    let (ini, json) = (dir.join("config.ini"), dir.join("config.json"));
    let config = if ini.is_file() {
        let c = read_config(&ini, false)?;
        if json.is_file() {
            // the same system, or one of them is another run's
            let other = read_config(&json, true)?;
            if let Some(what) = consistency::compare_configs(&c, &other) {
                return Err(input_error(
                    dir,
                    format!("config.ini and config.json describe different systems ({what}): one of them is from another run"),
                ));
            }
        }
        c
    } else {
        read_config(&json, true)?
    };
    let protocol = config::protocol(&config);
    let tester = config::tester(&config);
    let cpus = config::cpus(&config);
    let outputs: Vec<(PathBuf, String)> = [dir.join("simerr.txt"), dir.join("simout.txt")]
        .into_iter()
        .filter_map(|p| read_text(&p).map(|t| (p, t)))
        .collect();
    let out = outputs
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let failure = parse_check_failure(&out);
    let memtest_failure = memconform_parsers::gem5::memtest::parse_memtest_panic(&out);
    let panic_at = outputs.iter().find_map(|(p, t)| {
        t.lines()
            .find(|l| l.contains("panic:") || l.contains("fatal:"))
            .map(|l| (l.trim().to_string(), p.clone()))
    });
    let panic = panic_at.as_ref().map(|(l, _)| l.clone());
    let mut warnings = Vec::new();
    let mut seed = None;
    let mut command_line = None;
    // simout.txt first: its command line is the run's
    for (p, text) in outputs.iter().rev() {
        let Some((n, l)) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.starts_with("command line:"))
        else {
            continue;
        };
        if p.file_name().is_some_and(|n| n == "simout.txt") {
            command_line = l
                .strip_prefix("command line:")
                .map(|l| l.trim().to_string());
        }
        if seed.is_none() {
            seed = seed_of(l, p, n + 1, &mut warnings);
        }
    }
    let (variant, record) = variant_of(&dir.join("memconform-run.json"), &mut warnings);
    // a bundled run may keep its statistics compressed
    let stats_path = Some(dir.join("stats.txt"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| dir.join("stats.txt.gz"));
    let last_dump = match FileBytes::open_gunzipped(&stats_path) {
        Ok(b) => match memconform_parsers::gem5::stats::parse_stats(&b) {
            Ok(dumps) => dumps.into_iter().last(),
            Err(e) => {
                warnings.push(format!(
                    "{}:{}: {}: the run's transition counts are left out",
                    shown_path(&stats_path),
                    e.pos,
                    e.msg
                ));
                None
            }
        },
        Err(_) => None,
    };
    let mut findings = consistency::Findings::default();
    let exit = match read_text(&dir.join("exit-status.txt")) {
        Some(t) => {
            let code = consistency::parse_exit_status(&t);
            if code.is_none() {
                findings.notes.push(format!(
                    "exit-status.txt: `{}` is not an exit status; ignored",
                    t.trim().chars().take(40).collect::<String>()
                ));
            }
            code
        }
        None => None,
    };
    let status = consistency::Status {
        exit,
        panic: panic_at,
        aborted_at: consistency::parse_aborted(&out),
        exiting: outputs.iter().find_map(|(p, t)| {
            consistency::parse_exiting(t).map(|(tick, why)| (tick, why, p.clone()))
        }),
        stats_dumped: last_dump.is_some(),
        final_tick: last_dump.as_ref().and_then(|d| {
            d.get("finalTick")
                .or_else(|| d.get("final_tick"))
                .filter(|t| t.is_finite() && *t >= 0.0)
                .map(|t| t as u64)
        }),
    };
    let (files, stats_stale) = consistency::check_files(
        &status,
        &tester,
        &protocol,
        command_line.as_deref(),
        seed,
        record.as_ref(),
    );
    findings.conflicts.extend(files.conflicts);
    findings.notes.extend(files.notes);
    let (trace, trace_error) = match consistency::pick_trace(&consistency::trace_candidates(dir)) {
        Ok((trace, note)) => {
            findings.notes.extend(note);
            (trace, None)
        }
        Err(why) => (None, Some(why)),
    };
    Ok(Run {
        dir: dir.to_path_buf(),
        config,
        protocol,
        tester,
        trace,
        trace_error,
        status,
        findings,
        seed,
        variant,
        failure,
        memtest_failure,
        panic,
        stats: last_dump.filter(|_| !stats_stale),
        stats_stale,
        command_line,
        cpus,
        warnings,
    })
}

/// The seed of a gem5 command line (`--seed N` or `--seed=N`, line `line`
/// of `path`); a value that is no whole number is a warning, not a seed.
fn seed_of(l: &str, path: &Path, line: usize, warnings: &mut Vec<String>) -> Option<u64> {
    let words: Vec<(usize, &str)> = l
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - l.as_ptr() as usize, w))
        .collect();
    let (col, value) = words.iter().enumerate().find_map(|(i, &(at, w))| {
        if w == "--seed" {
            Some(match words.get(i + 1) {
                Some(&(at, v)) => (at, Some(v)),
                None => (at, None),
            })
        } else {
            w.strip_prefix("--seed=")
                .map(|v| (at + "--seed=".len(), Some(v)))
        }
    })?;
    let at = format!("{}:{line}:{}", shown_path(path), col + 1);
    match value.map(|v| (v, v.parse::<u64>())) {
        Some((_, Ok(s))) => Some(s),
        Some((v, Err(_))) => {
            warnings.push(format!(
                "{at}: --seed `{v}` is not a whole number from 0 to 2^64-1: the run's seed is left empty"
            ));
            None
        }
        None => {
            warnings.push(format!(
                "{at}: --seed without a value: the run's seed is left empty"
            ));
            None
        }
    }
}

/// The `variant` of a run's record (`memconform-run.json`, written by the
/// wrapper's `--variant NAME`); a record that is not there gives none
/// silently, one that is there but unreadable, not JSON, or whose
/// `variant` is not a string gives a warning. The record itself goes on to
/// the cross-checks of [`consistency::check_files`].
fn variant_of(
    path: &Path,
    warnings: &mut Vec<String>,
) -> (Option<String>, Option<serde_json::Value>) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (None, None),
        Err(e) => {
            warnings.push(format!(
                "{}: cannot read: {e}: the run's variant is left empty",
                shown_path(path)
            ));
            return (None, None);
        }
    };
    let v: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            let what = e.to_string();
            let what = what.split(" at line ").next().unwrap_or(&what);
            warnings.push(format!(
                "{}:{}:{}: not JSON ({what}): the run's variant is left empty",
                shown_path(path),
                e.line(),
                // serde_json counts a line's columns from 1, its start as 0
                e.column().max(1)
            ));
            return (None, None);
        }
    };
    let kind = |v: &serde_json::Value| match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    };
    let Some(obj) = v.as_object() else {
        warnings.push(format!(
            "{}:1:1: {} where the run's record is an object: the run's variant is left empty",
            shown_path(path),
            kind(&v)
        ));
        return (None, Some(v));
    };
    let variant = match obj.get("variant") {
        None => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()).filter(|s| !s.is_empty()),
        Some(other) => {
            // where the key is, for the message
            let text = String::from_utf8_lossy(&bytes);
            let at = text.find("\"variant\"").map_or(String::new(), |i| {
                let before = &text[..i];
                let line = before.matches('\n').count() + 1;
                let col = before.rfind('\n').map_or(i, |n| i - n - 1) + 1;
                format!(":{line}:{col}")
            });
            warnings.push(format!(
                "{}{at}: `variant` is {}, not a string: the run's variant is left empty",
                shown_path(path),
                kind(other)
            ));
            None
        }
    };
    (variant, Some(v))
}

/// For a run without a tester (an SE-mode run): the file holding the
/// random client's output (`simout.txt`, or the program's `--output` file).
pub fn client_output(run: &Run) -> Option<PathBuf> {
    if !matches!(run.tester, Tester::Other { .. }) {
        return None;
    }
    client_run::candidates(&run.dir)
        .into_iter()
        .next()
        .map(|(p, _)| p)
}

/// For a run without a tester (an SE-mode run): its client output, the
/// one file holding it ([`client_run::pick_output`]), checked against the
/// run's other files ([`client_run::check_client_against_run`]); `None`
/// when no file holds client output. Files that cannot be one simulation
/// are an input error.
pub fn client_run(run: &Run) -> Result<Option<client_run::ClientRun>, InputError> {
    if !matches!(run.tester, Tester::Other { .. }) {
        return Ok(None);
    }
    let candidates = client_run::candidates(&run.dir);
    if candidates.is_empty() {
        return Ok(None);
    }
    let (i, note) =
        client_run::pick_output(&candidates).map_err(|why| input_error(&run.dir, why))?;
    let (output, bytes) = &candidates[i];
    let mut findings = client_run::check_client_against_run(run, output, bytes)?;
    findings.notes.extend(note);
    Ok(Some(client_run::ClientRun {
        output: output.clone(),
        findings,
    }))
}

/// Why an SE-mode run (CPUs, no tester) gave no client output: what the
/// client or gem5 said last, read from the run's files.
fn se_without_output(run: &Run) -> String {
    let mut said: Option<String> = None;
    if let Ok(entries) = std::fs::read_dir(&run.dir) {
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for p in files.iter().filter(|p| p.is_file()) {
            let Some(text) = read_text(p) else { continue };
            if let Some(l) = text.lines().find(|l| l.contains("memconform client:")) {
                said = Some(format!(
                    "{}: {}",
                    memconform_parsers::text::shown_path(p),
                    l.trim()
                ));
                break;
            }
        }
    }
    let cpus = run.cpus.len();
    match (said, &run.panic) {
        (Some(l), _) if l.contains("cannot create thread") => format!(
            "gem5 SE run without client histories: the client could not start its threads \
             ({l}); gem5 gives a thread only to a free CPU, so run se.py with -n equal to the \
             client's THREADS (this run has {cpus} CPUs)"
        ),
        (Some(l), _) => format!("gem5 SE run without client histories: the client failed ({l})"),
        (None, Some(p)) => format!(
            "gem5 SE run without client histories: gem5 stopped before the client printed them ({p})"
        ),
        (None, None) => format!(
            "gem5 SE run ({cpus} CPUs, no tester) without client output: no file of the run holds \
             `# memconform-client` histories (run the client with se.py --output=client.out)"
        ),
    }
}

/// Turns a Ruby random tester run into a history (ports as threads, or with
/// `real_time` one thread in real-time order).
pub fn ingest(run: &Run, real_time: bool) -> Result<Ingested, InputError> {
    let trace = read(run)?;
    view(run, &trace, real_time)
}

/// A run's debug trace, read once for every view of it.
pub struct RunTrace {
    trace: tester::Trace,
    kind: &'static str,
    path: PathBuf,
    /// The run's cross-checks, the trace's included.
    findings: consistency::Findings,
}

impl RunTrace {
    /// What the trace held.
    pub fn trace(&self) -> &tester::Trace {
        &self.trace
    }

    /// The run's cross-checks, the trace's included.
    pub fn findings(&self) -> &consistency::Findings {
        &self.findings
    }
}

/// Reads a run's debug trace (Ruby random tester or MemTest), without a
/// memory budget (see [`read_within`]).
pub fn read(run: &Run) -> Result<RunTrace, InputError> {
    read_within(run, u64::MAX)
}

/// Reads a run's debug trace (Ruby random tester or MemTest) and checks it
/// against the run's other files: a trace that names controllers, objects
/// or ports the configuration lacks is an input error; disagreements on how
/// and when the run ended are findings (every verdict `unknown`). Reading
/// stops past the accesses `max_memory` allows for a history
/// ([`tester::max_accesses`]): the trace is then over the budget.
pub fn read_within(run: &Run, max_memory: u64) -> Result<RunTrace, InputError> {
    if matches!(run.tester, Tester::Other { .. }) && !run.cpus.is_empty() {
        return Err(input_error(&run.dir, se_without_output(run)));
    }
    if let Some(why) = &run.trace_error {
        return Err(input_error(&run.dir, why.clone()));
    }
    let Some(trace_path) = &run.trace else {
        return Err(input_error(
            &run.dir,
            format!("no debug trace found: run gem5 with --debug-flags={DEBUG_FLAGS} --debug-file=trace.txt"),
        ));
    };
    let limit = tester::max_accesses(max_memory);
    let (trace, kind) =
        match run.tester {
            Tester::RubyRandom { .. } => (
                tester::read_trace(trace_path, run.failure.as_ref(), limit),
                "ruby-random",
            ),
            Tester::MemTest { .. } => (
                tester::read_memtest_trace(trace_path, run.memtest_failure, limit),
                "memtest",
            ),
            Tester::Other { .. } => return Err(input_error(
                &run.dir,
                "no Ruby random tester or MemTest in config.ini: nothing to turn into a history"
                    .into(),
            )),
        };
    let trace = trace.map_err(|e| input_error(trace_path, format!("cannot read: {e}")))?;
    if let Some(why) = consistency::check_trace_against_config(&trace, &run.config, &run.tester) {
        return Err(input_error(trace_path, why));
    }
    let mut findings = run.findings.clone();
    let trace_name = trace_path.file_name().map_or_else(
        || "the trace".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    consistency::check_trace_against_end(
        &trace,
        &run.status,
        run.stats_stale,
        &run.tester,
        consistency::failure_of(run.failure.as_ref(), run.memtest_failure),
        &trace_name,
        &mut findings,
    );
    Ok(RunTrace {
        trace,
        kind,
        path: trace_path.clone(),
        findings,
    })
}

/// One view of a read trace as a history: ports as threads, or with
/// `real_time` one thread in real-time order.
pub fn view(run: &Run, t: &RunTrace, real_time: bool) -> Result<Ingested, InputError> {
    let (trace, kind, trace_path) = (&t.trace, t.kind, &t.path);
    let mut notes = t.findings.notes.clone();
    notes.extend(
        t.findings
            .conflicts
            .iter()
            .map(|c| format!("inconsistent run: {c}")),
    );
    if let Some(why) = &trace.over_budget {
        notes.push(why.clone());
    }
    if let Some(d) = &trace.damage {
        notes.push(format!(
            "damaged: {d}; the history is the prefix before the damage (lines 1 to {})",
            d.line - 1
        ));
        if trace.accesses.is_empty() {
            return Err(InputError {
                file: d.path.clone(),
                pos: d.col.map(|col| memconform_parsers::Pos {
                    line: d.line.min(u32::MAX as u64) as u32,
                    col: col.min(u32::MAX as usize) as u32,
                }),
                msg: format!(
                    "{}{}; no operation before the damage",
                    if d.col.is_none() {
                        format!("line {}: ", d.line)
                    } else {
                        String::new()
                    },
                    d.what
                ),
            });
        }
    }
    if trace.accesses.is_empty() {
        return Err(input_error(
            trace_path,
            format!(
                "no {kind} operations in the trace: was gem5 run with --debug-flags={}?",
                if kind == "memtest" {
                    "MemTest"
                } else {
                    "RubyTest"
                }
            ),
        ));
    }
    if let Some(st) = &run.stats {
        let hits = st.sum_matching(|n| n.ends_with(".m_demand_hits"));
        let misses = st.sum_matching(|n| n.ends_with(".m_demand_misses"));
        notes.push(format!(
            "stats.txt: simTicks {}, hostSeconds {}, L1 demand hits {hits}, misses {misses}",
            st.get("simTicks").map_or("?".into(), |v| v.to_string()),
            st.get("hostSeconds").map_or("?".into(), |v| v.to_string()),
        ));
    }
    if trace.failed_read_added {
        notes.push("the failing read's completion is not in the trace; it was added from the panic message".into());
    }
    if trace.failed_read_left_out {
        notes.push("the failing read (gem5's panic) was issued after the damage: left out".into());
    }
    if trace.in_flight > 0 {
        notes.push(format!(
            "{} requests in flight at the end (no completion; left out)",
            trace.in_flight
        ));
    }
    if trace.port_mismatches > 0 {
        notes.push(format!(
            "{} completions on another port than issued",
            trace.port_mismatches
        ));
    }
    let (mut raw, origins) = tester::to_history(&trace.accesses, real_time);
    let ambiguous = origins
        .iter()
        .filter(|o| o.resolution == Some(tester::Resolution::Ambiguous))
        .count();
    if ambiguous > 0 {
        notes.push(format!(
            "{ambiguous} reads match several earlier writes of their value (the latest is taken)"
        ));
    }
    let name = run
        .dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("run")
        .to_string();
    raw.name = Some(if real_time {
        format!("{name} (real time)")
    } else {
        name
    });
    let cpus = match run.tester {
        Tester::RubyRandom { cpus, .. } | Tester::MemTest { cpus, .. } | Tester::Other { cpus } => {
            cpus
        }
    };
    raw.meta = vec![
        (
            "protocol".into(),
            run.protocol.name().into(),
            Default::default(),
        ),
        ("cpus".into(), cpus.to_string(), Default::default()),
        ("tester".into(), kind.into(), Default::default()),
    ];
    if let Some(s) = run.seed {
        raw.meta
            .push(("seed".into(), s.to_string(), Default::default()));
    }
    if let Some(v) = &run.variant {
        raw.meta
            .push(("variant".into(), v.clone(), Default::default()));
    }
    let history = History::from_raw(&raw, 0)
        .map_err(|e| input_error(trace_path, format!("internal: {}", e.msg)))?;
    Ok(Ingested {
        history,
        origins,
        notes,
        damage: trace.damage.clone(),
        protocol_trace: trace.has_protocol_trace,
        inconsistent: t.findings.conflicts.clone(),
        over_budget: trace.over_budget.clone(),
    })
}
