//! A mutation campaign (docs/design/campaigns.md §6–§7): a directory holding the
//! settings (`campaign.toml`), the mutants (`mutants.jsonl`,
//! `patches/ID.diff`) and append-only event logs (`events-K.jsonl`, one per
//! shard). Every mutant is built and run with the user's own gem5 tree and
//! commands, in private copies ("slots": `git clone --shared` of the user's
//! tree, its uncommitted changes applied), never in the user's tree; each
//! run is checked by memconform on its real-time view and classified by the
//! first matching outcome. Resuming replays the logs: a mutant without its
//! `mutant_done` event starts again from its patch, nothing done is redone.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::sha256_hex;
use serde::{Deserialize, Serialize};

use super::{coverage, Mutant};
use memconform_core::check::{Options, Verdict};
use memconform_core::models::Model;

/// The settings of a campaign (`campaign.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The protocol mutated (e.g. `MI_example`).
    pub protocol: String,
    /// The user's gem5 tree (a git clone): read, never written.
    pub gem5_root: PathBuf,
    /// Its `HEAD` when the campaign began; slots check it out.
    pub base_commit: String,
    /// The user's build command, run by `sh -c` at a slot's root
    /// (e.g. `scons build/NULL/gem5.opt -j2`).
    pub build: String,
    /// The binary the build makes, relative to a slot's root.
    pub gem5: String,
    /// A command run by `sh -c` at a slot's root after a mutant's patch and
    /// before its build (`{gem5_root}`: the slot), e.g. gem5's own SLICC
    /// front end (`gem5-configs/slicc_check.py`); a failure makes the
    /// mutant unviable without a build.
    #[serde(default)]
    pub precheck: Option<String>,
    /// A build directory of the user's tree (relative) copied into each
    /// new slot so that its first build is incremental (e.g. `build/NULL`).
    #[serde(default)]
    pub seed_build_dir: Option<String>,
    /// The run command template, run by `sh -c` at a slot's root: `{gem5}`,
    /// `{gem5_root}` (the slot), `{outdir}`, `{seed}`, `{mutant}`.
    pub run: String,
    /// The seeds every mutant runs (until the first kill, unless `all_seeds`).
    pub seeds: Vec<u64>,
    /// Seconds a build may take.
    pub build_timeout_s: u64,
    /// Seconds a slot's first build may take: it redoes what the copied
    /// build directory cannot reuse (gem5 recompiles every file that embeds
    /// its absolute path: about 70 minutes on 2 cores).
    #[serde(default = "first_build_timeout")]
    pub first_build_timeout_s: u64,
    /// Seconds a run may take; by default max(60, 3 × the slowest baseline run).
    #[serde(default)]
    pub run_timeout_s: Option<u64>,
    /// The models memconform checks (names; default all).
    pub models: Vec<String>,
    /// Run every seed of a mutant (kill rates), not only up to the first kill.
    #[serde(default)]
    pub all_seeds: bool,
    /// Skip (as `no_coverage`) a mutant whose transitions no baseline seed
    /// took, read from the baseline's `stats.txt` (see [`super::coverage`]).
    #[serde(default = "yes")]
    pub coverage: bool,
    /// Check each mutant's run while gem5 writes it and stop gem5 at the
    /// first violation that counts (see `memconform watch`). Faster, but a
    /// stopped run does not show whether gem5's own checks would have
    /// caught the bug later: it is never counted as memconform-only.
    #[serde(default)]
    pub stop_at_violation: bool,
}

/// Six hours, the default limit of a slot's first build.
pub fn first_build_timeout() -> u64 {
    6 * 3600
}

/// `true`, as a serde default.
fn yes() -> bool {
    true
}

/// What ended a gem5 run, read from its exit status and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitKind {
    /// Exit 0 (the tester completed).
    Clean,
    /// The tester's own check failed (`Action/check failure`; MemTest's
    /// `read of … returns …, expected …`).
    TesterCheck,
    /// The protocol stopped itself: `Invalid transition`, a SLICC assert
    /// (`Runtime Error at X.sm:N`).
    ProtocolPanic,
    /// `Deadlock detected` (the tester) or `Possible Deadlock detected`.
    Deadlock,
    /// The run passed its time limit and was killed.
    Timeout,
    /// Any other non-zero exit or signal.
    Crash,
    /// memconform stopped the run at a violation it found while gem5 ran
    /// (`stop_at_violation`): how gem5 would have ended is not known.
    Stopped,
}

impl ExitKind {
    /// The CSV name.
    pub fn name(self) -> &'static str {
        match self {
            ExitKind::Clean => "clean",
            ExitKind::TesterCheck => "tester_check",
            ExitKind::ProtocolPanic => "protocol_panic",
            ExitKind::Deadlock => "deadlock",
            ExitKind::Timeout => "timeout",
            ExitKind::Crash => "crash",
            ExitKind::Stopped => "stopped",
        }
    }

    /// How a run ended, from its exit code (`None`: killed by a signal) and
    /// its output (docs/design/campaigns.md §7, the evidence column).
    pub fn classify(code: Option<i32>, output: &str) -> ExitKind {
        if output.contains(STOP_MARK) {
            ExitKind::Stopped
        } else if code == Some(124) || code == Some(137) && output.contains(TIMEOUT_MARK) {
            ExitKind::Timeout
        } else if output.contains("Action/check failure")
            || (output.contains("read of")
                && output.contains("returns")
                && output.contains("expected"))
        {
            ExitKind::TesterCheck
        } else if output.contains("Invalid transition") || output.contains("Runtime Error at") {
            ExitKind::ProtocolPanic
        } else if output.contains("Deadlock detected") {
            ExitKind::Deadlock
        } else if code == Some(0) {
            ExitKind::Clean
        } else {
            ExitKind::Crash
        }
    }
}

/// Written to a run's log by the runner when it kills the run.
const TIMEOUT_MARK: &str = "memconform: timed out";

/// Written to a run's log by the runner when it stops the run at a
/// violation (`stop_at_violation`).
const STOP_MARK: &str = "memconform: stopped at a violation";

/// Where a gem5 build's wall time went, by the first line of each kind of
/// step SCons prints (`[   SLICC]`, `[     CXX]`, `[    LINK]`), timed as
/// the lines came: SCons reading its scripts and scanning dependencies up
/// to its first step; regenerating (SLICC and the other generated files)
/// up to the first compile; compiling up to the link; linking to the end.
/// A phase with no line of its own takes no time (with `-j`, steps of two
/// phases can overlap: the first line of each decides).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildPhases {
    pub scan_s: f64,
    pub regenerate_s: f64,
    pub compile_s: f64,
    pub link_s: f64,
}

impl BuildPhases {
    /// The phases of a command that ran `total` seconds, from when (seconds
    /// after its start) its first step line, first compile line and first
    /// link line came; `None` when it printed no step line at all.
    pub fn of(
        total: f64,
        first_step: Option<f64>,
        compile: Option<f64>,
        link: Option<f64>,
    ) -> Option<BuildPhases> {
        let step = first_step?;
        let end = total.max(step);
        let link = link.unwrap_or(end).clamp(step, end);
        let compile = compile.unwrap_or(link).clamp(step, link);
        Some(BuildPhases {
            scan_s: step,
            regenerate_s: compile - step,
            compile_s: link - compile,
            link_s: end - link,
        })
    }
}

/// When a command's output showed SCons's first step, first compile and
/// first link (seconds after its start).
#[derive(Debug, Default, Clone, Copy)]
struct Marks {
    step: Option<f64>,
    compile: Option<f64>,
    link: Option<f64>,
}

impl Marks {
    /// Notes `line`, seen `at` seconds after the start.
    fn see(&mut self, line: &[u8], at: f64) {
        // SCons's step lines: ` [     CXX] a.cc -> .o`, tag right-aligned
        let Some(tag) = line
            .trim_ascii_start()
            .strip_prefix(b"[")
            .and_then(|l| l.iter().position(|&b| b == b']').map(|e| &l[..e]))
        else {
            return;
        };
        let tag = tag.trim_ascii();
        if tag.is_empty()
            || tag.len() > 12
            || !tag
                .iter()
                .all(|b| b.is_ascii_uppercase() || b" ".contains(b))
                && tag != b"SO Param"
        {
            return;
        }
        self.step.get_or_insert(at);
        match tag {
            b"CXX" | b"CC" | b"SHCXX" | b"SHCC" | b"AS" => {
                self.compile.get_or_insert(at);
            }
            b"LINK" | b"SHLINK" => {
                self.link.get_or_insert(at);
            }
            _ => {}
        }
    }
}

/// One event of a campaign's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A baseline seed: the unmutated protocol's run.
    Baseline { seed: u64, run: Run },
    /// A mutant's build (`ok` false: unviable).
    Built {
        mutant: String,
        ok: bool,
        wall_s: f64,
        /// the end of the build's output when it failed
        #[serde(default)]
        log_tail: String,
        /// where the build's time went, read off its output as it came
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phases: Option<BuildPhases>,
    },
    /// One seed of a mutant.
    Ran { mutant: String, seed: u64, run: Run },
    /// The mutant is finished: its status.
    MutantDone { mutant: String, status: Status },
    /// A `mutate run` of this shard began, with so many slots and cores
    /// (what [`Campaign::sessions`] measures its idle time against).
    Started { slots: usize, cores: usize },
}

/// One `mutate run` of a shard, from its log's times (each line carries
/// `at`, Unix seconds): how long it ran and what its slots did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    pub slots: usize,
    pub cores: usize,
    /// From its start to its last event.
    pub wall_s: f64,
    pub build_s: f64,
    pub run_s: f64,
    pub check_s: f64,
}

/// One shard's log: its events in order, each with its time (`at`, Unix
/// seconds; `None` in a log written before lines carried one).
type TimedLog = Vec<(Option<f64>, Event)>;

/// The sessions of each log's timed events (see [`Campaign::sessions`]):
/// a `started` event opens one; events before any, or without a time,
/// belong to none.
fn sessions_of(logs: &[TimedLog]) -> Vec<Session> {
    let mut out = Vec::new();
    for log in logs {
        let mut cur: Option<(f64, Session)> = None;
        for (at, e) in log {
            let Some(at) = *at else { continue };
            if let Event::Started { slots, cores } = *e {
                out.extend(cur.take().map(|(_, s)| s));
                let s = Session {
                    slots,
                    cores,
                    ..Session::default()
                };
                cur = Some((at, s));
                continue;
            }
            let Some((start, s)) = cur.as_mut() else {
                continue;
            };
            s.wall_s = (at - *start).max(s.wall_s);
            match e {
                Event::Baseline { run, .. } | Event::Ran { run, .. } => {
                    s.run_s += run.run_s;
                    s.check_s += run.check_s;
                }
                Event::Built { wall_s, .. } => s.build_s += wall_s,
                Event::MutantDone { .. } | Event::Started { .. } => {}
            }
        }
        out.extend(cur.map(|(_, s)| s));
    }
    out
}

impl Session {
    /// Slot-seconds nothing was built, run or checked: `slots × wall`
    /// less the rest (0 when runs beside builds, with a spare core or
    /// `--all-seeds`, filled more than the slots).
    pub fn idle_s(&self) -> f64 {
        (self.slots as f64 * self.wall_s - self.build_s - self.run_s - self.check_s).max(0.0)
    }
}

/// One gem5 run and memconform's verdicts on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The first matching outcome (§7): `violation:<model>`, an exit kind
    /// other than clean, `unknown`, or `survived`.
    pub outcome: String,
    pub exit_kind: ExitKind,
    pub exit_code: Option<i32>,
    /// Seconds gem5 ran, and memconform checked.
    pub run_s: f64,
    pub check_s: f64,
    /// Per model: consistent, violation or unknown (empty when nothing
    /// could be checked: `check_error` says why).
    pub verdicts: BTreeMap<String, String>,
    /// The weakest model violated and its pattern, when one is.
    #[serde(default)]
    pub decided_by: String,
    #[serde(default)]
    pub pattern: String,
    #[serde(default)]
    pub check_error: String,
    /// A baseline run's transition counters that fired (`Machine.State.Event`),
    /// `None` when its `stats.txt` had none (or for a mutant's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fired: Option<Vec<String>>,
    /// A baseline run's transition coverage per controller type: taken of
    /// those the protocol declares (§4, coverage); `None` when its
    /// `stats.txt` had no counters (or for a mutant's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Vec<coverage::Summary>>,
}

impl Run {
    /// Whether the run kills the mutant (a timeout is reported apart).
    pub fn kills(&self) -> bool {
        !matches!(self.outcome.as_str(), "survived" | "unknown" | "timeout")
    }
}

/// A mutant's final status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Killed,
    Survived,
    Timeout,
    /// It did not build (or its patch did not apply).
    Unviable,
    /// No baseline seed took one of its transitions: it would run exactly
    /// as the baseline (not built, not run).
    NoCoverage,
    /// Some run's verdict stayed unknown and nothing killed it.
    Unknown,
}

impl Status {
    /// The CSV name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Killed => "killed",
            Status::Survived => "survived",
            Status::Timeout => "timeout",
            Status::Unviable => "unviable",
            Status::NoCoverage => "no_coverage",
            Status::Unknown => "unknown",
        }
    }
}

/// A campaign error: what and where, for the user.
#[derive(Debug)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err(what: impl Into<String>) -> Error {
    Error(what.into())
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    err(format!("{}: {e}", shown(path)))
}

/// `p` as messages show it (see `report::shown_path`).
fn shown(p: &Path) -> std::borrow::Cow<'_, str> {
    memconform_report::shown_path(p)
}

/// A campaign directory.
pub struct Campaign {
    pub dir: PathBuf,
    pub settings: Settings,
    pub mutants: Vec<Mutant>,
}

/// Runs `git` in `dir`; its standard output, or an error with its message.
fn git(dir: &Path, args: &[&str]) -> Result<String, Error> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot run git: {e}")))?;
    if !o.status.success() {
        return Err(err(format!(
            "git {} in {}: {}",
            args.join(" "),
            shown(dir),
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Writes `bytes` to `path` whole (a temporary file renamed over it).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    memconform_report::write_atomic(path, bytes).map_err(|e| io_err(path, e))
}

/// Writes mutant `m`'s patch (`patches/ID.diff`) into campaign `dir`.
fn write_patch(dir: &Path, m: &Mutant) -> Result<(), Error> {
    write_atomic(
        &dir.join("patches").join(format!("{}.diff", m.id)),
        m.patch.as_bytes(),
    )
}

/// Writes campaign `dir`'s `mutants.jsonl` whole: a line per mutant.
fn write_mutants(dir: &Path, mutants: &[Mutant]) -> Result<(), Error> {
    let mut lines = String::new();
    for m in mutants {
        lines.push_str(&serde_json::to_string(m).expect("a mutant serialises"));
        lines.push('\n');
    }
    write_atomic(&dir.join("mutants.jsonl"), lines.as_bytes())
}

/// The shard lock files (`lock-K`) in campaign `dir`, with their shards.
fn shard_locks(dir: &Path) -> Result<Vec<(usize, PathBuf)>, Error> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_err(dir, e))?.flatten() {
        let path = entry.path();
        let k = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("lock-"))
            .and_then(|k| k.parse::<usize>().ok());
        if let Some(k) = k {
            out.push((k, path));
        }
    }
    Ok(out)
}

impl Campaign {
    /// Creates a campaign in `dir` (new or empty): records the user's
    /// `HEAD` and uncommitted changes (`base.patch`), the settings and the
    /// mutants with their patches.
    pub fn init(
        dir: &Path,
        mut settings: Settings,
        mutants: Vec<Mutant>,
    ) -> Result<Campaign, Error> {
        if dir.exists()
            && fs::read_dir(dir)
                .map_err(|e| io_err(dir, e))?
                .next()
                .is_some()
        {
            return Err(err(format!(
                "{}: not empty; a campaign starts in a new directory (`mutate run` resumes one)",
                shown(dir)
            )));
        }
        if settings.seeds.is_empty() {
            return Err(err("no seeds: a campaign needs at least one"));
        }
        if let Some(s) = seed_twice(&settings.seeds) {
            return Err(err(format!(
                "seed {s} given twice: each seed runs once per mutant"
            )));
        }
        for m in &settings.models {
            Model::from_name(m).ok_or_else(|| err(format!("unknown model `{m}`")))?;
        }
        let root = &settings.gem5_root;
        settings.base_commit = git(root, &["rev-parse", "HEAD"])?.trim().to_string();
        let base_patch = git(root, &["diff", "HEAD", "--binary"])?;
        let mut seen = HashSet::new();
        for m in &mutants {
            if !seen.insert(&m.id) {
                return Err(err(format!("mutant id {} twice", m.id)));
            }
        }
        fs::create_dir_all(dir.join("patches")).map_err(|e| io_err(dir, e))?;
        write_atomic(&dir.join("base.patch"), base_patch.as_bytes())?;
        let toml = toml::to_string_pretty(&settings).map_err(|e| err(e.to_string()))?;
        write_atomic(&dir.join("campaign.toml"), toml.as_bytes())?;
        for m in &mutants {
            write_patch(dir, m)?;
        }
        write_mutants(dir, &mutants)?;
        Ok(Campaign {
            dir: dir.to_path_buf(),
            settings,
            mutants,
        })
    }

    /// Adds `mutants` to the campaign in `dir` (ids it has already are left
    /// out, but take a catalogue name they lack): their patches, then
    /// `mutants.jsonl` rewritten whole. Refused while a `mutate run` holds
    /// any shard (shards are a function of the sorted ids: a runner's share
    /// would shift under it). Returns the campaign and the ids added.
    pub fn add(dir: &Path, mutants: Vec<Mutant>) -> Result<(Campaign, Vec<String>), Error> {
        use std::fs::TryLockError;
        let mut c = Campaign::open(dir)?;
        // hold every shard's lock while the list changes
        let mut held = Vec::new();
        for (_, path) in shard_locks(dir)? {
            let f = File::open(&path).map_err(|e| io_err(&path, e))?;
            match f.try_lock() {
                Ok(()) => held.push(f),
                Err(TryLockError::WouldBlock) => {
                    return Err(err(format!(
                        "{} is being run by {} (its lock: {}): add mutants when it ends \
                         or after stopping it (the next `mutate run` resumes)",
                        shown(dir),
                        holder_of(&path),
                        shown(&path)
                    )))
                }
                Err(TryLockError::Error(e)) => return Err(io_err(&path, e)),
            }
        }
        let added = crate::merge(&mut c.mutants, mutants);
        for m in c.mutants.iter().filter(|m| added.contains(&m.id)) {
            write_patch(dir, m)?;
        }
        c.mutants.sort_by(|a, b| a.id.cmp(&b.id));
        write_mutants(dir, &c.mutants)?;
        drop(held);
        Ok((c, added))
    }

    /// Opens the campaign in `dir`.
    pub fn open(dir: &Path) -> Result<Campaign, Error> {
        let path = dir.join("campaign.toml");
        let text = fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
        let settings: Settings =
            toml::from_str(&text).map_err(|e| err(format!("{}: {e}", shown(&path))))?;
        if let Some(s) = seed_twice(&settings.seeds) {
            return Err(err(format!(
                "{}: seed {s} twice in `seeds`: each seed runs once per mutant",
                shown(&path)
            )));
        }
        let path = dir.join("mutants.jsonl");
        let text = fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
        let mut mutants = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let mut m: Mutant = serde_json::from_str(line)
                .map_err(|e| err(format!("{}:{}: {e}", shown(&path), i + 1)))?;
            m.join_catalogue_names();
            mutants.push(m);
        }
        Ok(Campaign {
            dir: dir.to_path_buf(),
            settings,
            mutants,
        })
    }

    /// Every event of every shard's log, in file order per shard. A last
    /// line cut by a crash is left out (it was never acknowledged).
    pub fn events(&self) -> Result<Vec<Event>, Error> {
        Ok(self
            .timed_events()?
            .into_iter()
            .flatten()
            .map(|(_, e)| e)
            .collect())
    }

    /// Every `mutate run` of every shard whose log lines carry their times
    /// (a log written before they did has none), in log order.
    pub fn sessions(&self) -> Result<Vec<Session>, Error> {
        Ok(sessions_of(&self.timed_events()?))
    }

    /// Each shard's log (`events-K.jsonl`, by name): its events in file
    /// order, each with its time `at` (`None` in a log written before lines
    /// carried one). A last line cut by a crash is left out.
    fn timed_events(&self) -> Result<Vec<TimedLog>, Error> {
        /// The time of a log line, beside its event.
        #[derive(Deserialize)]
        struct At {
            at: Option<f64>,
        }
        let mut logs: Vec<PathBuf> = fs::read_dir(&self.dir)
            .map_err(|e| io_err(&self.dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("events-") && n.ends_with(".jsonl"))
            })
            .collect();
        logs.sort();
        let mut out = Vec::new();
        for log in logs {
            let bytes = fs::read(&log).map_err(|e| io_err(&log, e))?;
            let lines = whole_lines(&bytes);
            let n = lines.len();
            let mut events = Vec::with_capacity(n);
            for (i, line) in lines.into_iter().enumerate() {
                match serde_json::from_slice(line) {
                    Ok(e) => {
                        let at = serde_json::from_slice::<At>(line).ok().and_then(|a| a.at);
                        events.push((at, e));
                    }
                    // a crash mid-write that left a newline (a file system
                    // that grew the file before its bytes): not done
                    Err(_) if i + 1 == n => {}
                    Err(e) => return Err(err(format!("{}:{}: {e}", shown(&log), i + 1))),
                }
            }
            out.push(events);
        }
        Ok(out)
    }

    /// The mutants of shard `k` of `n`: a pure function of the sorted ids.
    pub fn shard(&self, k: usize, n: usize) -> Vec<&Mutant> {
        let mut ids: Vec<&Mutant> = self.mutants.iter().collect();
        ids.sort_by(|a, b| a.id.cmp(&b.id));
        ids.into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k)
            .map(|(_, m)| m)
            .collect()
    }
}

/// The advisory lock of one shard of a campaign: `lock-K` in the campaign
/// directory, locked (`flock`) by the `mutate run` of shard K for as long
/// as it runs, with its pid, host and shard written in it. A second runner
/// of the same shard is refused, naming the first; the kernel releases the
/// lock when its holder ends, however it ends (kill -9, a node's crash
/// where the file system's locks follow it), so a runner that died needs
/// no clearing up: the next one takes the lock and resumes from the log.
/// A runner with another shard count is refused too while any shard is
/// held (its shards would overlap theirs: the same mutants run twice).
pub struct ShardLock {
    /// Locked while this lives; unlocked when it is dropped or the
    /// process ends.
    _file: File,
    /// The shard held, `(k, n)`.
    pub shard: (usize, usize),
    /// The lock file.
    pub path: PathBuf,
}

/// Why [`ShardLock::take`] failed.
#[derive(Debug)]
pub enum LockError {
    /// Another process runs the shard, or a shard of another count: who.
    Busy(String),
    /// The lock file cannot be opened or written.
    Io(Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy(why) => f.write_str(why),
            LockError::Io(e) => e.fmt(f),
        }
    }
}

/// What a lock file says of its holder: `pid P on HOST, shard K/N`.
fn holder_of(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let text = text.trim();
    if text.is_empty() {
        "a process that has not written its pid yet".to_string()
    } else {
        memconform_report::printable(text).into_owned()
    }
}

/// The shard count in what a lock file says, if it says one.
fn shard_count_of(path: &Path) -> Option<usize> {
    let text = fs::read_to_string(path).ok()?;
    let (_, shard) = text.trim().rsplit_once("shard ")?;
    shard.split_once('/')?.1.parse().ok()
}

/// This machine's name, for the lock file (a campaign on a shared file
/// system is run from many nodes).
fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this host".to_string())
}

impl ShardLock {
    /// Locks shard `(k, n)` of `c` for this process, or says who holds it.
    pub fn take(c: &Campaign, (k, n): (usize, usize)) -> Result<ShardLock, LockError> {
        use std::fs::TryLockError;
        let io = |p: &Path, e: std::io::Error| LockError::Io(io_err(p, e));
        let path = c.dir.join(format!("lock-{k}"));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        // a few tries: another runner may be probing this lock (below) at
        // this very moment
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if tries < 4 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(format!(
                        "shard {k} of {} is being run by {} (its lock: {}); \
                         wait for it to end or stop it: the next `mutate run` resumes \
                         where it stopped (a run that died leaves nothing to clear)",
                        shown(&c.dir),
                        holder_of(&path),
                        shown(&path)
                    )));
                }
                Err(TryLockError::Error(e)) => return Err(io(&path, e)),
            }
        }
        file.set_len(0)
            .and_then(|()| {
                writeln!(
                    file,
                    "pid {} on {}, shard {k}/{n}",
                    std::process::id(),
                    host_name()
                )
            })
            .and_then(|()| file.sync_data())
            .map_err(|e| io(&path, e))?;
        // runners of another shard count: their shards overlap this one
        let others = shard_locks(&c.dir).map_err(LockError::Io)?;
        for (_, other) in others.into_iter().filter(|&(j, _)| j != k) {
            let Ok(f) = File::open(&other) else { continue };
            match f.try_lock_shared() {
                Ok(()) => {} // nobody runs it (unlocked as `f` closes)
                Err(TryLockError::WouldBlock) if shard_count_of(&other) == Some(n) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(format!(
                        "{} is being run with another shard count by {} (its lock: {}): \
                         shards of {n} would run some of its mutants again; wait for it \
                         to end or stop it, or run with its shard count",
                        shown(&c.dir),
                        holder_of(&other),
                        shown(&other)
                    )));
                }
                Err(TryLockError::Error(_)) => {}
            }
        }
        Ok(ShardLock {
            _file: file,
            shard: (k, n),
            path,
        })
    }
}

/// How `run` goes: slots, shard, progress.
pub struct RunOptions<'a> {
    /// Private gem5 copies, each building and running one mutant at a time.
    pub slots: usize,
    /// Cores the campaign may keep busy (`-j`, at least `slots`): each slot
    /// uses one; the baseline's seeds, and with `all_seeds` a mutant's,
    /// run side by side on the free ones.
    pub cores: usize,
    /// This process's shard `(k, n)`.
    pub shard: (usize, usize),
    /// Where slots live (default: `DIR/slots`).
    pub slot_dir: Option<PathBuf>,
    /// Set (e.g. by Ctrl-C) to stop after the steps in flight.
    pub stop: &'a AtomicBool,
    /// A line per finished step, for the user.
    pub progress: &'a (dyn Fn(&str) + Sync),
}

/// The whole lines of an event log (each ends with `\n`, which is left
/// out): the bytes after the last `\n` are an event a crash cut (its line
/// was never acknowledged), whatever they hold, and are not a line.
fn whole_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes[..whole]
        .split_inclusive(|&b| b == b'\n')
        .map(|l| &l[..l.len() - 1])
        .collect()
}

/// The append-only log of one shard: a line per event, synced.
struct Log {
    file: Mutex<File>,
}

impl Log {
    /// Opens the log for appending, first cut back to its last whole line:
    /// an event a crash tore (no `\n` at its end) is removed, never glued
    /// to the next one (see [`whole_lines`]). The shard's lock is held.
    fn open(path: &Path) -> Result<Log, Error> {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| io_err(path, e))?;
        cut_torn_tail(&file).map_err(|e| io_err(path, e))?;
        Ok(Log {
            file: Mutex::new(file),
        })
    }

    fn push(&self, e: &Event) -> Result<(), Error> {
        // each line carries its time, `at` (Unix seconds): see `sessions`
        let mut v = serde_json::to_value(e).expect("an event serialises");
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        if let Some(o) = v.as_object_mut() {
            o.insert(
                "at".into(),
                serde_json::json!((at * 1000.0).round() / 1000.0),
            );
        }
        let mut line = v.to_string();
        line.push('\n');
        let mut f = self.file.lock().expect("the log lock");
        f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| err(format!("cannot write the event log: {e}")))
    }
}

/// The first seed that `seeds` lists a second time.
fn seed_twice(seeds: &[u64]) -> Option<u64> {
    let mut seen = HashSet::new();
    seeds.iter().copied().find(|&s| !seen.insert(s))
}

/// A command's end as people read it: `exit 3`, or `ended by a signal`
/// (no exit status).
fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("exit {c}"),
        None => "ended by a signal".to_string(),
    }
}

/// Truncates `file` after its last `\n` (to nothing without one), synced:
/// what follows is a torn event.
fn cut_torn_tail(file: &File) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let mut f = file;
    // back from the end in blocks to the last newline
    let mut end = len;
    let mut buf = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            end = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    if end < len {
        file.set_len(end)?;
        file.sync_data()?;
    }
    Ok(())
}

/// A private copy of the user's gem5 tree.
struct Slot {
    root: PathBuf,
    /// Where the slot's builds and runs see it: at the user's tree's own
    /// path, in a private mount namespace of each command's own (gem5
    /// embeds absolute paths in its build: at the user's path a seeded
    /// build stays valid and the slot's first build is incremental), with
    /// the `unshare` options that made one here; `None`: at its own path.
    at_user_path: Option<(PathBuf, &'static str)>,
}

impl Slot {
    /// Clones the user's tree at the base commit (sharing its objects),
    /// applies its uncommitted changes and seeds the build directory; an
    /// existing slot is reset to that state.
    fn prepare(c: &Campaign, root: PathBuf, o: &RunOptions<'_>) -> Result<Slot, Error> {
        let s = &c.settings;
        let t0 = Instant::now();
        if !root.join(".git").exists() {
            (o.progress)(&format!(
                "slot {}: cloning {}{}",
                shown(&root),
                shown(&s.gem5_root),
                match &s.seed_build_dir {
                    Some(b) => format!(" and copying its {}", b),
                    None => String::new(),
                }
            ));
            if let Some(parent) = root.parent() {
                fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
            }
            let o = Command::new("git")
                .args(["clone", "--quiet", "--shared", "--no-checkout"])
                .arg(&s.gem5_root)
                .arg(&root)
                .output()
                .map_err(|e| err(format!("cannot run git: {e}")))?;
            if !o.status.success() {
                return Err(err(format!(
                    "cannot copy {} into {}: {}",
                    shown(&s.gem5_root),
                    shown(&root),
                    String::from_utf8_lossy(&o.stderr).trim()
                )));
            }
            if let Some(b) = &s.seed_build_dir {
                let from = s.gem5_root.join(b);
                if from.is_dir() {
                    let to = root.join(b);
                    fs::create_dir_all(to.parent().expect("a build dir has a parent"))
                        .map_err(|e| io_err(&to, e))?;
                    let ok = Command::new("cp")
                        .args(["-a", "--reflink=auto"])
                        .arg(&from)
                        .arg(&to)
                        .status()
                        .map_err(|e| err(format!("cannot run cp: {e}")))?
                        .success();
                    if !ok {
                        return Err(err(format!("cannot copy {}", shown(&from))));
                    }
                }
            }
        }
        let mut slot = Slot {
            root,
            at_user_path: None,
        };
        slot.reset(c)?;
        slot.at_user_path = match slot.probe_namespace(c) {
            Ok(found) => Some(found),
            Err(why) => {
                (o.progress)(&format!(
                    "slot {}: builds run at the slot's own path ({why}); gem5 embeds absolute \
                     paths, so its first build recompiles much (an hour on 2 cores)",
                    slot.root.display()
                ));
                None
            }
        };
        // once per slot (a marker, so that an interrupted preparation redoes it)
        let adopted = slot.root.join(".git/memconform-mtimes");
        if !adopted.exists() {
            adopt_mtimes(&slot.root, &s.gem5_root)?;
            fs::write(&adopted, b"").map_err(|e| io_err(&adopted, e))?;
            (o.progress)(&format!(
                "slot {}: ready in {:.0} s",
                shown(&slot.root),
                t0.elapsed().as_secs_f64()
            ));
        }
        Ok(slot)
    }

    /// Whether this machine lets the slot's commands see it at the user's
    /// tree's path (a private mount namespace with the slot bound there:
    /// root's `unshare -m`, else a user namespace's `unshare -Urm`); the
    /// user's tree is hidden from those commands only, never written.
    /// Not when the campaign lives inside the user's tree (the binding
    /// would hide it).
    fn probe_namespace(&self, c: &Campaign) -> Result<(PathBuf, &'static str), String> {
        let user = c
            .settings
            .gem5_root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", c.settings.gem5_root.display()))?;
        let slot = self.root.canonicalize().map_err(|e| e.to_string())?;
        let camp = c.dir.canonicalize().map_err(|e| e.to_string())?;
        if camp.starts_with(&user) || slot.starts_with(&user) {
            return Err("the campaign is inside the gem5 tree".into());
        }
        let marker = self.root.join(".git/memconform-slot");
        fs::write(&marker, slot.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        let check = format!(
            "mount --bind {} {} && cmp -s {} {}",
            shell_word(&slot.to_string_lossy()),
            shell_word(&user.to_string_lossy()),
            shell_word(&marker.to_string_lossy()),
            shell_word(&user.join(".git/memconform-slot").to_string_lossy()),
        );
        let mut tried = Vec::new();
        for opts in ["-m", "-Urm"] {
            let ok = Command::new("unshare")
                .args([opts, "--propagation", "private", "--", "sh", "-c", &check])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            match ok {
                Ok(st) if st.success() => return Ok((user, opts)),
                Ok(st) => tried.push(format!("unshare {opts}: {st}")),
                Err(e) => tried.push(format!("unshare {opts}: {e}")),
            }
        }
        Err(format!("no private mount namespace: {}", tried.join("; ")))
    }

    /// The path the slot's commands see it at.
    fn seen_root(&self) -> Result<PathBuf, Error> {
        match &self.at_user_path {
            Some((user, _)) => Ok(user.clone()),
            None => self.root.canonicalize().map_err(|e| io_err(&self.root, e)),
        }
    }

    /// `command` as the slot runs it: in its mount namespace, from the
    /// user's path, when it has one.
    fn command(&self, command: &str) -> String {
        let Some((user, opts)) = &self.at_user_path else {
            return command.to_string();
        };
        let slot = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone());
        let user = shell_word(&user.to_string_lossy());
        let inner = format!(
            "mount --bind {} {user} && cd {user} && exec sh -c {}",
            shell_word(&slot.to_string_lossy()),
            shell_word(command)
        );
        format!(
            "exec unshare {opts} --propagation private -- sh -c {}",
            shell_word(&inner)
        )
    }

    /// Whether a build has succeeded in this slot (its next builds are
    /// incremental).
    fn built(&self) -> bool {
        self.root.join(".git/memconform-built").exists()
    }

    /// Records a successful build of `what` (`base`, or a mutant's id).
    fn mark_built(&self, what: &str) -> Result<(), Error> {
        let m = self.root.join(".git/memconform-built");
        fs::write(&m, what.as_bytes()).map_err(|e| io_err(&m, e))
    }

    /// A copy of the slot's binary for mutant `id`'s runs while the slot
    /// builds on (inside the slot, so a command run at the user's path sees
    /// it too): its path relative to the slot.
    fn keep_binary(&self, c: &Campaign, id: &str) -> Result<PathBuf, Error> {
        let from = self.root.join(&c.settings.gem5);
        let rel = PathBuf::from(format!(".git/memconform-run-{id}.gem5"));
        let to = self.root.join(&rel);
        fs::copy(&from, &to).map_err(|e| io_err(&to, e))?;
        Ok(rel)
    }

    /// Whether the slot's last successful build was of the base itself
    /// (what a configuration mutant runs).
    fn built_base(&self) -> bool {
        fs::read(self.root.join(".git/memconform-built")).is_ok_and(|b| b == b"base")
    }

    /// The time limit of the slot's next build: the first one may redo much.
    fn build_limit(&self, s: &Settings) -> u64 {
        if self.built() {
            s.build_timeout_s
        } else {
            s.build_timeout_s.max(s.first_build_timeout_s)
        }
    }

    /// Back to the base: the commit, the user's changes, no mutant.
    fn reset(&self, c: &Campaign) -> Result<(), Error> {
        git(
            &self.root,
            &["checkout", "--quiet", "--force", &c.settings.base_commit],
        )?;
        let base = c.dir.join("base.patch");
        if fs::metadata(&base).map(|m| m.len() > 0).unwrap_or(false) {
            let base = base.canonicalize().map_err(|e| io_err(&base, e))?;
            git(
                &self.root,
                &["apply", "--whitespace=nowarn", &base.to_string_lossy()],
            )?;
        }
        Ok(())
    }

    /// Applies a mutant's patch after checking its base file.
    fn apply(&self, c: &Campaign, m: &Mutant) -> Result<(), String> {
        let file = self.root.join(&m.file);
        let bytes = fs::read(&file).map_err(|e| format!("{}: {e}", shown(&file)))?;
        let sha = sha256_hex(&bytes);
        if sha != m.base_sha256 {
            return Err(format!(
                "{}: the base file differs from the one the mutant was made from (sha256 {sha}, mutant's {})",
                m.file, m.base_sha256
            ));
        }
        let patch = c.dir.join("patches").join(format!("{}.diff", m.id));
        let patch = patch
            .canonicalize()
            .map_err(|e| format!("{}: {e}", shown(&patch)))?;
        git(
            &self.root,
            &["apply", "--whitespace=nowarn", &patch.to_string_lossy()],
        )
        .map(|_| ())
        .map_err(|e| e.0)
    }
}

/// Gives each tracked file of a new slot the modification time of the same
/// file in the user's tree when their bytes are equal. A fresh checkout
/// stamps every file "now", which makes timestamp-based builds redo
/// everything in the seeded build directory: make compares times, and
/// SCons's `MD5-timestamp` decider (gem5's) hashes a source only when its
/// time changed, against a stored hash it never computed for a source whose
/// time never changed, so every object was out of date. With the user's
/// times, the seeded build is exactly as up to date as the user's own.
fn adopt_mtimes(slot: &Path, user: &Path) -> Result<(), Error> {
    let listed = git(slot, &["ls-files", "-z"])?;
    for rel in listed.split('\0').filter(|p| !p.is_empty()) {
        let (ours, theirs) = (slot.join(rel), user.join(rel));
        let (Ok(a), Ok(b)) = (fs::symlink_metadata(&ours), fs::symlink_metadata(&theirs)) else {
            continue;
        };
        if !a.is_file() || !b.is_file() || a.len() != b.len() {
            continue;
        }
        let Ok(when) = b.modified() else { continue };
        if fs::read(&ours).ok() != fs::read(&theirs).ok() {
            continue;
        }
        // best effort: a time not set costs a longer first build, not a result
        let _ = File::options()
            .write(true)
            .open(&ours)
            .and_then(|f| f.set_modified(when));
    }
    // the index learns the new times, or the next `git checkout --force`
    // would rewrite every file whose times it no longer knows
    git(slot, &["update-index", "-q", "--refresh"]).map(|_| ())
}

/// The process groups of the commands running now (builds, runs), so
/// that a process ending at once (a second Ctrl-C) kills them first.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// A command's process group, listed in [`RUNNING`] while it runs (a
/// build, a run, `watch`'s command): [`kill_running`] kills it.
pub struct Running(i32);

impl Running {
    /// Lists `pgid` until the value is dropped.
    pub fn register(pgid: nix::unistd::Pid) -> Running {
        let raw = pgid.as_raw();
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(raw);
        Running(raw)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&g| g != self.0);
    }
}

/// Kills (SIGKILL) the process group of every build and run this process
/// has running: for a process about to end at once.
pub fn kill_running() {
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    for &g in running.iter() {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(g),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// The program and arguments that run a command under a keeper of its
/// process group (the binary's `guard`: the group is stopped when the
/// runner ends, however, and what the command leaves running in it when
/// it ends); unset (a library's use, the unit tests), a command runs
/// directly, with a parent-death signal.
static KEEPER: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

/// Runs every later build and run under the keeper `prefix` starts (see
/// [`KEEPER`]).
pub fn keep_commands_with(prefix: Vec<std::ffi::OsString>) {
    let _ = KEEPER.set(prefix);
}

/// How a command ended.
struct Ended {
    /// Its exit code (`None`: a signal; 124 when killed by the runner).
    code: Option<i32>,
    secs: f64,
    /// Where a build's time went (see [`BuildPhases`]).
    phases: Option<BuildPhases>,
    /// Killed because the campaign was stopped (it will be redone).
    stopped: bool,
    /// Killed at its time limit.
    timed_out: bool,
}

/// Runs `command` by `sh -c` in `dir` with output to `log`, killed (its
/// whole process group) after `limit_s` seconds or when `stop` is set; with
/// `watch`, looked at every second and killed at a violation that counts.
fn run_command(
    command: &str,
    dir: &Path,
    log: &Path,
    limit_s: u64,
    stop: &AtomicBool,
    mut watch: Option<&mut memconform_ingest::watch::Watch>,
) -> Result<Ended, Error> {
    use std::os::unix::process::CommandExt;
    let mut out = File::create(log).map_err(|e| io_err(log, e))?;
    let t = Instant::now();
    // the output through a pipe, copied to the log line by line and timed
    // (see `Marks`)
    let (reader, writer) = std::io::pipe().map_err(|e| err(format!("cannot make a pipe: {e}")))?;
    let marks = std::sync::Arc::new(Mutex::new(Marks::default()));
    let copier = {
        let marks = marks.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let _ = out.write_all(&line);
                marks
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .see(&line, t.elapsed().as_secs_f64());
                line.clear();
            }
            let _ = out.flush();
        })
    };
    let mut cmd = match KEEPER.get() {
        // the keeper stops the group when the runner ends, however, and
        // what the command leaves running when it ends
        Some(prefix) => {
            let mut c = Command::new(&prefix[0]);
            c.args(&prefix[1..]).arg("sh");
            c
        }
        None => Command::new("sh"),
    };
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().map_err(|e| io_err(log, e))?)
        .stderr(writer)
        .process_group(0);
    if KEEPER.get().is_none() {
        // SAFETY: prctl is async-signal-safe; nothing else runs between
        // fork and exec. A runner killed outright (SIGKILL) takes its
        // command with it (the shell, or what it execs; what the shell
        // started may stay: the keeper is there for that)
        unsafe {
            cmd.pre_exec(|| {
                let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
                Ok(())
            });
        }
    }
    let spawned = cmd.spawn();
    // our ends of the pipe's writing side go: the copier ends with the command
    drop(cmd);
    let mut child = spawned.map_err(|e| err(format!("cannot run `{command}`: {e}")))?;
    // the copier's last lines in the log, and the marks, before anything
    // else is appended (a process the command left behind may hold the
    // pipe open: then its copier is left to finish alone)
    let finish_copy = move || -> Option<BuildPhases> {
        let t_end = t.elapsed().as_secs_f64();
        let until = Instant::now() + std::time::Duration::from_secs(2);
        while !copier.is_finished() && Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        if copier.is_finished() {
            let _ = copier.join();
        }
        let m = *marks.lock().unwrap_or_else(|e| e.into_inner());
        BuildPhases::of(t_end, m.step, m.compile, m.link)
    };
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _running = Running::register(pgid);
    let kill = |sig| {
        // the group may be gone already: nothing to signal then
        let _ = nix::sys::signal::killpg(pgid, sig);
    };
    let watch_interval = std::time::Duration::from_secs_f64(memconform_ingest::watch::INTERVAL_S);
    let mut next_look = Instant::now() + watch_interval;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| err(e.to_string()))? {
            let secs = t.elapsed().as_secs_f64();
            return Ok(Ended {
                code: status.code(),
                secs,
                phases: finish_copy(),
                stopped: false,
                timed_out: false,
            });
        }
        if let Some(w) = watch.as_deref_mut().filter(|_| Instant::now() >= next_look) {
            next_look = Instant::now() + watch_interval;
            if let memconform_ingest::watch::Look::Violation { .. } = w.look() {
                let secs = t.elapsed().as_secs_f64();
                kill(nix::sys::signal::Signal::SIGTERM);
                std::thread::sleep(std::time::Duration::from_millis(500));
                kill(nix::sys::signal::Signal::SIGKILL);
                let _ = child.wait();
                let phases = finish_copy();
                let mut f = OpenOptions::new()
                    .append(true)
                    .open(log)
                    .map_err(|e| io_err(log, e))?;
                let _ = writeln!(f, "\n{STOP_MARK} after {secs:.1} s ({} checks)", w.checks);
                return Ok(Ended {
                    code: None,
                    secs,
                    phases,
                    stopped: false,
                    timed_out: false,
                });
            }
        }
        let over = t.elapsed().as_secs() >= limit_s;
        if over || stop.load(Ordering::Relaxed) {
            kill(nix::sys::signal::Signal::SIGTERM);
            std::thread::sleep(std::time::Duration::from_millis(500));
            kill(nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            let phases = finish_copy();
            if over {
                let mut f = OpenOptions::new()
                    .append(true)
                    .open(log)
                    .map_err(|e| io_err(log, e))?;
                let _ = writeln!(f, "\n{TIMEOUT_MARK} after {limit_s} s (the limit)");
            }
            return Ok(Ended {
                code: Some(124),
                secs: t.elapsed().as_secs_f64(),
                phases,
                stopped: !over,
                timed_out: over,
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The run command with its placeholders filled, each value one shell
/// word (quoted where it must be: a campaign path with a space works).
/// `{params}` becomes a configuration mutant's `--param` options; a
/// template without it gets them at its end (the config script's options).
pub fn fill(
    template: &str,
    gem5: &Path,
    root: &Path,
    outdir: &Path,
    seed: u64,
    mutant: &str,
    params: &[String],
) -> String {
    let params = params
        .iter()
        .map(|p| format!("--param {}", shell_word(p)))
        .collect::<Vec<_>>()
        .join(" ");
    let mut command = template
        .replace("{gem5}", &shell_word(&gem5.to_string_lossy()))
        .replace("{gem5_root}", &shell_word(&root.to_string_lossy()))
        .replace("{outdir}", &shell_word(&outdir.to_string_lossy()))
        .replace("{seed}", &seed.to_string())
        .replace("{mutant}", &shell_word(mutant));
    if template.contains("{params}") {
        command = command.replace("{params}", &params);
    } else if !params.is_empty() {
        command.push(' ');
        command.push_str(&params);
    }
    command
}

/// `s` as one shell word: as it is when plain, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Checks a run's output directory with memconform (real-time view as
/// well) and classifies the run (§7: a violation first, then how gem5
/// ended, then unknown, else survived). Where the run's configuration
/// promises a model (an SE run: SC for blocking in-order cores, TSO for
/// x86 O3), only violations of it and of the models it implies count. The history rows (`check`'s CSV,
/// `variant` = the mutant) go to `rows_csv`, for `summarize`, `compare`
/// and `plot`.
pub fn judge(
    outdir: &Path,
    code: Option<i32>,
    output: &str,
    models: &[Model],
    run_s: f64,
    variant: &str,
    rows_csv: &Path,
) -> Run {
    let exit_kind = ExitKind::classify(code, output);
    let t = Instant::now();
    let opts = Options::default();
    let mut verdicts: BTreeMap<String, String> = BTreeMap::new();
    let (mut decided_by, mut pattern, mut check_error) =
        (String::new(), String::new(), String::new());
    let mut violated: Option<Model> = None;
    match memconform_ingest::check_file(
        outdir,
        models,
        &opts,
        &memconform_ingest::Reading {
            real_time: true,
            // a run stopped at a violation is read as what it is: cut
            in_progress: exit_kind == ExitKind::Stopped,
            ..Default::default()
        },
    ) {
        Ok(checked) => {
            let mut csv = Vec::new();
            for c in &checked {
                let mut rows = memconform_report::rows(outdir, c);
                rows.iter_mut().for_each(|r| r.variant = variant.into());
                let header = csv.is_empty();
                let _ = memconform_report::write_csv(&mut csv, &rows, header);
            }
            if let Err(e) = write_atomic(rows_csv, &csv) {
                check_error = e.0;
            }
            for c in &checked {
                // a run's configuration promises a model: violating a
                // model on a history that keeps the promise is what its
                // cores may do (store buffering), not a kill
                for (_, o) in c.outcomes.iter().enumerate().filter(|&(i, _)| {
                    c.breaks(i) != Some(false) || c.outcomes[i].verdict() == Verdict::Consistent
                }) {
                    let name = o.model.name().to_string();
                    let v = o.verdict().name();
                    // per model, a violation in either view beats the rest
                    let e = verdicts.entry(name).or_insert_with(|| v.to_string());
                    if v == "violation" || (v == "unknown" && e == "consistent") {
                        *e = v.to_string();
                    }
                    if o.verdict() == Verdict::Violation {
                        let weakest = o.decided_by;
                        if violated.is_none_or(|w| {
                            Model::EVERY.iter().position(|&m| m == weakest)
                                < Model::EVERY.iter().position(|&m| m == w)
                        }) {
                            violated = Some(weakest);
                            pattern = o
                                .violation()
                                .map_or(String::new(), |v| v.pattern.name().to_string());
                        }
                    }
                }
            }
        }
        Err(e) => check_error = e.to_string(),
    }
    if let Some(w) = violated {
        decided_by = w.name().to_string();
    }
    let outcome = if let Some(w) = violated {
        format!("violation:{}", w.name())
    } else if exit_kind != ExitKind::Clean {
        exit_kind.name().to_string()
    } else if !check_error.is_empty() || verdicts.values().any(|v| v == "unknown") {
        "unknown".to_string()
    } else {
        "survived".to_string()
    };
    Run {
        outcome,
        exit_kind,
        exit_code: code,
        run_s,
        check_s: t.elapsed().as_secs_f64(),
        verdicts,
        decided_by,
        pattern,
        check_error,
        fired: None,
        coverage: None,
    }
}

/// The text of a run's log and gem5's own output files in `outdir`.
fn run_output(log: &Path, outdir: &Path) -> String {
    let mut text = fs::read_to_string(log).unwrap_or_default();
    for f in ["simout.txt", "simerr.txt", "simout", "simerr"] {
        if let Ok(t) = fs::read_to_string(outdir.join(f)) {
            text.push_str(&t);
        }
    }
    text
}

/// The last `n` lines of a file.
fn tail(path: &Path, n: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Runs the campaign's shard: the baseline first (once per campaign), then
/// every mutant without a `mutant_done` event. Returns how many mutants
/// this call finished. The shard's lock is taken first (see [`ShardLock`]):
/// a shard another process runs is an error naming it.
pub fn run(c: &Campaign, o: &RunOptions<'_>) -> Result<usize, Error> {
    let lock = ShardLock::take(c, o.shard).map_err(|e| match e {
        LockError::Busy(why) => err(why),
        LockError::Io(e) => e,
    })?;
    run_locked(c, o, &lock)
}

/// [`run`] with the shard's lock already held (`mutate run` takes it
/// first, to tell a busy shard from other errors).
pub fn run_locked(c: &Campaign, o: &RunOptions<'_>, lock: &ShardLock) -> Result<usize, Error> {
    if lock.shard.0 != o.shard.0 {
        return Err(err(format!(
            "the lock held is shard {}'s, not shard {}'s",
            lock.shard.0, o.shard.0
        )));
    }
    let (k, n) = o.shard;
    let models: Vec<Model> = c
        .settings
        .models
        .iter()
        .map(|m| Model::from_name(m).ok_or_else(|| err(format!("unknown model `{m}`"))))
        .collect::<Result<_, _>>()?;
    let log = Log::open(&c.dir.join(format!("events-{k}.jsonl")))?;
    log.push(&Event::Started {
        slots: o.slots.max(1),
        cores: o.cores.max(o.slots).max(1),
    })?;
    let events = c.events()?;
    let done: HashSet<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::MutantDone { mutant, .. } => Some(mutant.as_str()),
            _ => None,
        })
        .collect();
    let todo: Vec<&Mutant> = c
        .shard(k, n)
        .into_iter()
        .filter(|m| !done.contains(m.id.as_str()))
        .collect();
    let slot_dir = o.slot_dir.clone().unwrap_or_else(|| c.dir.join("slots"));
    // the baseline: the first slot, unmutated (shards running at once may
    // each run it: the last run of a seed counts)
    let baseline: Vec<(u64, Run)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Baseline { seed, run } => Some((*seed, run.clone())),
            _ => None,
        })
        .collect::<BTreeMap<u64, Run>>()
        .into_iter()
        .collect();
    let baseline = if baseline.is_empty() {
        let slot = Slot::prepare(c, slot_dir.join(format!("{k}-0")), o)?;
        let b = run_baseline(c, &slot, &models, &log, o, (k, n))?;
        if o.stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        b
    } else {
        baseline
    };
    let clean: Vec<u64> = baseline
        .iter()
        .filter(|(_, r)| r.outcome == "survived")
        .map(|(s, _)| *s)
        .collect();
    if clean.is_empty() {
        return Err(err(format!(
            "no baseline seed ended clean and consistent ({}): fix the build or run command first",
            baseline
                .iter()
                .map(|(s, r)| format!("seed {s}: {}", r.outcome))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let covered = if c.settings.coverage {
        baseline_coverage(&baseline)
    } else {
        None
    };
    if let Some(cov) = &covered {
        (o.progress)(&format!(
            "baseline coverage: {} transitions taken",
            cov.len()
        ));
    }
    write_atomic(
        &c.dir.join(MUTANT_COVERAGE),
        mutant_coverage_csv(c, &baseline).as_bytes(),
    )?;
    let slowest = baseline.iter().map(|(_, r)| r.run_s).fold(0.0, f64::max);
    let limit = c
        .settings
        .run_timeout_s
        .unwrap_or_else(|| 60u64.max((3.0 * slowest).ceil() as u64));
    let queue = Mutex::new(todo.into_iter());
    let cores = Cores::new(o.cores.max(o.slots).max(1));
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for s in 0..o.slots.max(1) {
            let (queue, finished, failure, log, models, clean, covered, cores) = (
                &queue, &finished, &failure, &log, &models, &clean, &covered, &cores,
            );
            let slot_root = slot_dir.join(format!("{k}-{s}"));
            scope.spawn(move || {
                // this slot's core, given back when it has no mutant left
                let _core = Taken::one(cores);
                let slot = match Slot::prepare(c, slot_root, o) {
                    Ok(s) => s,
                    Err(e) => {
                        *failure.lock().expect("lock") = Some(e);
                        return;
                    }
                };
                let here = Here { slot: &slot, cores };
                // a mutant's end: counted; false ends the slot (stopped, failed)
                let report = |r: Result<bool, Error>| match r {
                    Ok(true) => {
                        finished.fetch_add(1, Ordering::Relaxed);
                        true
                    }
                    Ok(false) => false,
                    Err(e) => {
                        *failure.lock().expect("lock") = Some(e);
                        o.stop.store(true, Ordering::Relaxed);
                        false
                    }
                };
                std::thread::scope(|behind| {
                    // the previous mutant's runs, going on (on a core of
                    // their own, from a copy of its binary) while this slot
                    // builds the next mutant
                    let mut running: Option<
                        std::thread::ScopedJoinHandle<'_, Result<bool, Error>>,
                    > = None;
                    let join =
                        |h: Option<std::thread::ScopedJoinHandle<'_, Result<bool, Error>>>| {
                            h.is_none_or(|h| {
                                report(h.join().unwrap_or_else(|_| Err(err("a run panicked"))))
                            })
                        };
                    loop {
                        if o.stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let Some(m) = queue.lock().expect("lock").next() else {
                            break;
                        };
                        let prepared = prepare_mutant(c, &here, m, covered.as_ref(), log, o);
                        if !join(running.take()) {
                            return;
                        }
                        let built = match prepared {
                            Err(e) => {
                                report(Err(e));
                                break;
                            }
                            Ok(Prepared::Finished(done)) => {
                                if report(Ok(done)) {
                                    continue;
                                }
                                break;
                            }
                            Ok(Prepared::Built) => m,
                        };
                        if cores.try_take(1) == 0 {
                            // no spare core: the runs here, then the next build
                            if !report(run_built(
                                c, &here, None, built, models, clean, limit, log, o,
                            )) {
                                break;
                            }
                            continue;
                        }
                        let bin = match slot.keep_binary(c, &built.id) {
                            Ok(bin) => bin,
                            Err(e) => {
                                cores.give(1);
                                report(Err(e));
                                break;
                            }
                        };
                        running = Some(behind.spawn(move || {
                            let r = run_built(
                                c,
                                &here,
                                Some(&bin),
                                built,
                                models,
                                clean,
                                limit,
                                log,
                                o,
                            );
                            let _ = fs::remove_file(here.slot.root.join(&bin));
                            cores.give(1);
                            r
                        }));
                    }
                    join(running.take());
                });
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("lock") {
        return Err(e);
    }
    Ok(finished.into_inner())
}

/// The file listing each mutant's transitions and the baseline seeds that
/// took them ([`mutant_coverage_csv`]).
pub const MUTANT_COVERAGE: &str = "mutant-coverage.csv";

/// Per mutant, each transition its edit needs and the clean baseline seeds
/// that took it (§4, coverage; see [`coverage::mutants_csv`]).
pub fn mutant_coverage_csv(c: &Campaign, baseline: &[(u64, Run)]) -> String {
    let fired: Vec<(u64, Option<BTreeSet<String>>)> = baseline
        .iter()
        .filter(|(_, r)| r.outcome == "survived")
        .map(|(s, r)| (*s, r.fired.as_ref().map(|f| f.iter().cloned().collect())))
        .collect();
    let seeds: Vec<(u64, Option<&BTreeSet<String>>)> =
        fired.iter().map(|(s, f)| (*s, f.as_ref())).collect();
    coverage::mutants_csv(&c.mutants, &seeds)
}

/// The transitions the clean baseline seeds took, all together; `None` when
/// one of them has no counters to tell (then every mutant runs).
pub fn baseline_coverage(baseline: &[(u64, Run)]) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for (_, r) in baseline.iter().filter(|(_, r)| r.outcome == "survived") {
        out.extend(r.fired.as_ref()?.iter().cloned());
    }
    Some(out)
}

/// Builds the unmutated slot and runs every seed; each seed's run is logged.
fn run_baseline(
    c: &Campaign,
    slot: &Slot,
    models: &[Model],
    log: &Log,
    o: &RunOptions<'_>,
    (k, n): (usize, usize),
) -> Result<Vec<(u64, Run)>, Error> {
    let s = &c.settings;
    // shards that run at once each run the baseline: each in its own
    // directory, or one would remove a run another is writing
    let dir = match n {
        1 => c.dir.join("runs").join("baseline"),
        _ => c
            .dir
            .join("runs")
            .join("baseline")
            .join(format!("shard-{k}")),
    };
    fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
    let build_log = dir.join("build.log");
    (o.progress)(&format!(
        "baseline: building (the first build of a slot may recompile files that embed their path; log: {})",
        shown(&build_log)
    ));
    let limit = slot.build_limit(s);
    let Ended {
        code,
        secs,
        stopped,
        timed_out,
        ..
    } = run_command(
        &slot.command(&s.build),
        &slot.root,
        &build_log,
        limit,
        o.stop,
        None,
    )?;
    if stopped {
        return Ok(Vec::new());
    }
    if timed_out {
        return Err(err(format!(
            "the baseline build timed out after {limit} s ({}); raise --build-timeout \
             (and --first-build-timeout for a slot's first build) in campaign.toml \
             (build_timeout_s, first_build_timeout_s) and run again: the build resumes",
            shown(&build_log)
        )));
    }
    if code != Some(0) {
        return Err(err(format!(
            "the baseline does not build ({} after {secs:.0} s; {}):\n{}",
            exit_text(code),
            shown(&build_log),
            tail(&build_log, 20)
        )));
    }
    slot.mark_built("base")?;
    // kept for configuration mutants in slots that build no base
    let from = slot.root.join(&s.gem5);
    let kept = base_binary(c);
    let bytes = fs::read(&from).map_err(|e| io_err(&from, e))?;
    write_atomic(&kept, &bytes)?;
    set_executable(&kept)?;
    (o.progress)(&format!("baseline built in {secs:.0} s"));
    let mut out = Vec::new();
    let limit = s.run_timeout_s.unwrap_or(3600);
    // the transitions the protocol declares, from the tree the baseline built
    let declared = match crate::slicc::load_protocol(&slot.root, &s.protocol) {
        Ok(p) => Some(coverage::declared(&p)),
        Err(e) => {
            (o.progress)(&format!(
                "baseline coverage: the transitions {} declares are unknown ({e})",
                s.protocol
            ));
            None
        }
    };
    // the seeds `-j` at a time (gem5 runs on one core; no mutant is being
    // built yet), logged in seed order
    let dir = &dir;
    for group in s.seeds.chunks(o.cores.max(o.slots).max(1)) {
        let runs = run_seeds(c, slot, None, "baseline", &[], group, dir, models, limit, o);
        for (&seed, run) in group.iter().zip(runs) {
            let Some(mut run) = run? else {
                return Ok(out);
            };
            let outdir = dir.join(format!("s{seed}"));
            if let Ok(counts) = coverage::read_counts(&outdir.join("stats.txt")) {
                run.fired = Some(counts.fired().into_iter().collect());
                // the seed's coverage table, beside its output
                let table =
                    coverage::Table::new(&counts, declared.as_ref(), 1, Some(s.protocol.clone()));
                write_atomic(
                    &outdir.join("coverage.txt"),
                    table.text(declared.is_some()).as_bytes(),
                )?;
                write_atomic(&outdir.join("coverage.csv"), table.csv().as_bytes())?;
                run.coverage = Some(table.summary());
            }
            (o.progress)(&format!(
                "baseline seed {seed}: {} ({:.1} s)",
                run.outcome, run.run_s
            ));
            log.push(&Event::Baseline {
                seed,
                run: run.clone(),
            })?;
            out.push((seed, run));
        }
    }
    Ok(out)
}

/// Where the baseline's binary is kept: a configuration mutant runs it in
/// a slot whose last build was a SLICC mutant, instead of rebuilding the
/// base there (a slot's first build may recompile for an hour).
pub fn base_binary(c: &Campaign) -> PathBuf {
    c.dir.join("runs").join("baseline").join("gem5.base")
}

/// Makes `path` executable by its owner, group and others.
fn set_executable(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(|e| io_err(path, e))
}

/// One seed of `mutant` (or the baseline) in `slot`: run, check, classify.
/// `None` when stopped.
#[allow(clippy::too_many_arguments)]
fn run_seed(
    c: &Campaign,
    slot: &Slot,
    bin: Option<&Path>,
    mutant: &str,
    params: &[String],
    seed: u64,
    dir: &Path,
    models: &[Model],
    limit: u64,
    o: &RunOptions<'_>,
) -> Result<Option<Run>, Error> {
    let outdir = dir.join(format!("s{seed}"));
    if outdir.exists() {
        fs::remove_dir_all(&outdir).map_err(|e| io_err(&outdir, e))?;
    }
    fs::create_dir_all(&outdir).map_err(|e| io_err(&outdir, e))?;
    let outdir = outdir.canonicalize().map_err(|e| io_err(&outdir, e))?;
    let root = slot.seen_root()?;
    let command = fill(
        &c.settings.run,
        &bin.map_or_else(|| root.join(&c.settings.gem5), |b| root.join(b)),
        &root,
        &outdir,
        seed,
        mutant,
        params,
    );
    let log = outdir.join("run.log");
    // a mutant's run, with stop_at_violation: watched while gem5 writes it
    let mut watch = (c.settings.stop_at_violation && mutant != "baseline").then(|| {
        memconform_ingest::watch::Watch::new(
            &outdir,
            models,
            Options::default(),
            memconform_ingest::Reading {
                real_time: true,
                ..Default::default()
            },
        )
    });
    let Ended {
        code,
        secs,
        stopped,
        ..
    } = run_command(
        &slot.command(&command),
        &slot.root,
        &log,
        limit,
        o.stop,
        watch.as_mut(),
    )?;
    if stopped {
        // a run cut short: nothing of it counts, and it runs again on resume
        let _ = fs::remove_dir_all(&outdir);
        return Ok(None);
    }
    let text = run_output(&log, &outdir);
    let rows = dir.join(format!("s{seed}.csv"));
    Ok(Some(judge(
        &outdir, code, &text, models, secs, mutant, &rows,
    )))
}

/// [`run_seed`] for each seed of `group`, side by side (a thread each),
/// results in `group`'s order.
#[allow(clippy::too_many_arguments)]
fn run_seeds(
    c: &Campaign,
    slot: &Slot,
    bin: Option<&Path>,
    mutant: &str,
    params: &[String],
    group: &[u64],
    dir: &Path,
    models: &[Model],
    limit: u64,
    o: &RunOptions<'_>,
) -> Vec<Result<Option<Run>, Error>> {
    if let [seed] = group {
        return vec![run_seed(
            c, slot, bin, mutant, params, *seed, dir, models, limit, o,
        )];
    }
    std::thread::scope(|scope| {
        let running: Vec<_> = group
            .iter()
            .map(|&seed| {
                scope.spawn(move || {
                    run_seed(c, slot, bin, mutant, params, seed, dir, models, limit, o)
                })
            })
            .collect();
        running
            .into_iter()
            .map(|r| r.join().unwrap_or_else(|_| Err(err("a run panicked"))))
            .collect()
    })
}

/// A core taken from [`Cores`], given back when dropped.
struct Taken<'a>(&'a Cores, usize);

impl<'a> Taken<'a> {
    fn one(cores: &'a Cores) -> Taken<'a> {
        Taken(cores, cores.try_take(1))
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        self.0.give(self.1);
    }
}

/// Where a mutant runs: its slot, and the campaign's cores.
#[derive(Clone, Copy)]
struct Here<'a> {
    slot: &'a Slot,
    cores: &'a Cores,
}

/// The cores a campaign keeps busy (`RunOptions::cores`): taken and given
/// back by slots and by seeds run side by side.
pub struct Cores {
    free: Mutex<usize>,
}

impl Cores {
    pub fn new(n: usize) -> Cores {
        Cores {
            free: Mutex::new(n),
        }
    }

    /// Takes up to `n` free cores; how many it took.
    pub fn try_take(&self, n: usize) -> usize {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let k = n.min(*free);
        *free -= k;
        k
    }

    /// Gives `n` cores back.
    pub fn give(&self, n: usize) {
        *self.free.lock().unwrap_or_else(|e| e.into_inner()) += n;
    }
}

/// Whether gem5 started simulating in a run (`Starting simulation...`,
/// gem5's message as its event queue starts): a configuration it could
/// not build (a `--param` naming no object) stops before.
fn simulated(outdir: &Path) -> bool {
    const STARTED: &[u8] = b"Starting simulation";
    ["run.log", "simout.txt", "simerr.txt"].iter().any(|f| {
        fs::read(outdir.join(f)).is_ok_and(|b| b.windows(STARTED.len()).any(|w| w == STARTED))
    })
}

/// Ends a mutant before its runs (no coverage, unviable): logged as done,
/// with the reason on the progress line.
fn finish_early(
    log: &Log,
    o: &RunOptions<'_>,
    m: &Mutant,
    status: Status,
    why: &str,
) -> Result<bool, Error> {
    log.push(&Event::MutantDone {
        mutant: m.id.clone(),
        status,
    })?;
    (o.progress)(&format!("{} {}: {why}", m.id, m.op));
    Ok(true)
}

/// What [`prepare_mutant`] left: a mutant done (no coverage, unviable:
/// `Ok(true)`; stopped: `Ok(false)`), or one built in the slot, its runs to
/// come.
enum Prepared {
    Finished(bool),
    Built,
}

/// Patches and builds one mutant (none of it when the baseline never
/// reaches its edit: `no_coverage`); logs each step.
#[allow(clippy::too_many_arguments)]
fn prepare_mutant(
    c: &Campaign,
    here: &Here<'_>,
    m: &Mutant,
    covered: Option<&BTreeSet<String>>,
    log: &Log,
    o: &RunOptions<'_>,
) -> Result<Prepared, Error> {
    let finish_early = |log: &Log, o: &RunOptions<'_>, m: &Mutant, st: Status, why: &str| {
        finish_early(log, o, m, st, why).map(Prepared::Finished)
    };
    if covered.is_some_and(|cov| !coverage::covered(m.fires.as_deref(), cov)) {
        return finish_early(
            log,
            o,
            m,
            Status::NoCoverage,
            "no coverage (no baseline seed takes its transitions)",
        );
    }
    let s = &c.settings;
    let slot = here.slot;
    slot.reset(c)?;
    let dir = c.dir.join("runs").join(&m.id);
    fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
    if m.is_config() {
        // no patch: the slot's base build, else the baseline's binary, else
        // the base rebuilt (a SLICC mutant was the slot's last build)
        let kept = base_binary(c);
        if !slot.built_base() {
            if kept.is_file() {
                let to = slot.root.join(&s.gem5);
                if let Some(parent) = to.parent() {
                    fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
                }
                fs::copy(&kept, &to).map_err(|e| io_err(&to, e))?;
                slot.mark_built("base")?;
                (o.progress)(&format!("{} {}: the baseline's binary", m.id, m.op));
            } else {
                (o.progress)(&format!("{} {}: rebuilding the base", m.id, m.op));
            }
        }
    } else if let Err(why) = slot.apply(c, m) {
        log.push(&Event::Built {
            mutant: m.id.clone(),
            ok: false,
            wall_s: 0.0,
            log_tail: format!("the patch does not apply: {why}"),
            phases: None,
        })?;
        return finish_early(log, o, m, Status::Unviable, "unviable (patch)");
    }
    if let Some(pre) = s.precheck.as_ref().filter(|_| !m.is_config()) {
        let root = slot.seen_root()?;
        let pre = fill(pre, &root.join(&s.gem5), &root, &dir, 0, &m.id, &[]);
        let pre_log = dir.join("precheck.log");
        let Ended {
            code,
            secs,
            stopped,
            ..
        } = run_command(
            &slot.command(&pre),
            &slot.root,
            &pre_log,
            s.build_timeout_s,
            o.stop,
            None,
        )?;
        if stopped {
            return Ok(Prepared::Finished(false));
        }
        if code != Some(0) {
            log.push(&Event::Built {
                mutant: m.id.clone(),
                ok: false,
                wall_s: secs,
                log_tail: format!("the pre-check rejects it: {}", tail(&pre_log, 5)),
                phases: None,
            })?;
            return finish_early(log, o, m, Status::Unviable, "unviable (pre-check)");
        }
    }
    let build_log = dir.join("build.log");
    let build_limit = slot.build_limit(s);
    let Ended {
        code,
        secs,
        stopped,
        timed_out,
        phases,
    } = if m.is_config() && slot.built_base() {
        Ended {
            code: Some(0),
            secs: 0.0,
            phases: None,
            stopped: false,
            timed_out: false,
        }
    } else {
        run_command(
            &slot.command(&s.build),
            &slot.root,
            &build_log,
            build_limit,
            o.stop,
            None,
        )?
    };
    if stopped {
        return Ok(Prepared::Finished(false));
    }
    if timed_out {
        // not a verdict on the mutant: it is `unknown`, with the reason
        log.push(&Event::Built {
            mutant: m.id.clone(),
            ok: false,
            wall_s: secs,
            log_tail: format!("the build timed out after {build_limit} s"),
            phases,
        })?;
        return finish_early(
            log,
            o,
            m,
            Status::Unknown,
            &format!(
                "unknown (the build timed out after {build_limit} s; see {})",
                shown(&build_log)
            ),
        );
    }
    let ok = code == Some(0);
    if ok {
        slot.mark_built(if m.is_config() { "base" } else { &m.id })?;
    }
    log.push(&Event::Built {
        mutant: m.id.clone(),
        ok,
        wall_s: secs,
        log_tail: if ok {
            String::new()
        } else {
            tail(&build_log, 20)
        },
        phases,
    })?;
    if !ok {
        return finish_early(
            log,
            o,
            m,
            Status::Unviable,
            &format!("unviable (build {})", exit_text(code)),
        );
    }
    Ok(Prepared::Built)
}

/// Runs a built mutant's seeds (until the first kill; every seed with
/// `all_seeds`) and logs each run and the mutant's end. `bin`: a copy of
/// the mutant's binary in the slot the runs use while the slot builds the
/// next mutant (else the slot's own build). `Ok(false)` when stopped before
/// its end (it will start again on resume).
#[allow(clippy::too_many_arguments)]
fn run_built(
    c: &Campaign,
    here: &Here<'_>,
    bin: Option<&Path>,
    m: &Mutant,
    models: &[Model],
    seeds: &[u64],
    limit: u64,
    log: &Log,
    o: &RunOptions<'_>,
) -> Result<bool, Error> {
    let s = &c.settings;
    let slot = here.slot;
    let dir = c.dir.join("runs").join(&m.id);
    let mut status = Status::Survived;
    let mut next = 0;
    let mut done = false;
    while next < seeds.len() && !done {
        // with all_seeds every seed runs: those the free cores allow side by side
        let extra = if s.all_seeds {
            here.cores.try_take(seeds.len() - next - 1)
        } else {
            0
        };
        let group = &seeds[next..next + 1 + extra];
        next += group.len();
        let runs = run_seeds(
            c, slot, bin, &m.id, &m.params, group, &dir, models, limit, o,
        );
        here.cores.give(extra);
        for (&seed, run) in group.iter().zip(runs) {
            let Some(run) = run? else {
                return Ok(false);
            };
            if m.is_config()
                && run.exit_kind != ExitKind::Clean
                && !simulated(&dir.join(format!("s{seed}")))
            {
                // gem5 stopped before simulating: the parameter does not apply
                // to this configuration (no such object), which is no kill
                log.push(&Event::Ran {
                    mutant: m.id.clone(),
                    seed,
                    run,
                })?;
                return finish_early(
                    log,
                    o,
                    m,
                    Status::Unviable,
                    &format!(
                        "unviable (gem5 did not start simulating with --param {}; see {})",
                        m.params.join(" --param "),
                        shown(&dir.join(format!("s{seed}")).join("run.log"))
                    ),
                );
            }
            let kills = run.kills();
            if kills {
                status = Status::Killed;
            } else if run.outcome == "timeout" && status != Status::Killed {
                status = Status::Timeout;
            } else if run.outcome == "unknown" && status == Status::Survived {
                status = Status::Unknown;
            }
            (o.progress)(&format!("{} {} seed {seed}: {}", m.id, m.op, run.outcome));
            let survived = run.outcome == "survived";
            log.push(&Event::Ran {
                mutant: m.id.clone(),
                seed,
                run,
            })?;
            // only a killing seed's output is worth keeping
            if survived {
                let _ = fs::remove_dir_all(dir.join(format!("s{seed}")));
            }
            if kills && !s.all_seeds {
                done = true;
                break;
            }
        }
    }
    log.push(&Event::MutantDone {
        mutant: m.id.clone(),
        status,
    })?;
    Ok(true)
}

/// The campaign's state from its logs: per mutant, its status (if done)
/// and its runs (the last per seed).
pub struct State<'c> {
    pub campaign: &'c Campaign,
    pub baseline: Vec<(u64, Run)>,
    pub status: HashMap<String, Status>,
    pub runs: HashMap<String, BTreeMap<u64, Run>>,
    pub build_s: HashMap<String, f64>,
    /// Where each build's time went, where its output said.
    pub build_phases: HashMap<String, BuildPhases>,
    /// Each `mutate run` whose log lines carry their times.
    pub sessions: Vec<Session>,
}

impl<'c> State<'c> {
    /// Replays the logs.
    pub fn of(c: &'c Campaign) -> Result<State<'c>, Error> {
        let mut s = State {
            campaign: c,
            baseline: Vec::new(),
            status: HashMap::new(),
            runs: HashMap::new(),
            build_s: HashMap::new(),
            build_phases: HashMap::new(),
            sessions: Vec::new(),
        };
        // the logs, read once: the events replayed, the sessions timed
        let logs = c.timed_events()?;
        s.sessions = sessions_of(&logs);
        for e in logs.into_iter().flatten().map(|(_, e)| e) {
            match e {
                Event::Baseline { seed, run } => {
                    // shards running at once may each run it: the last counts
                    s.baseline.retain(|(b, _)| *b != seed);
                    s.baseline.push((seed, run));
                }
                Event::Built {
                    mutant,
                    wall_s,
                    phases,
                    ..
                } => {
                    if let Some(p) = phases {
                        s.build_phases.insert(mutant.clone(), p);
                    }
                    s.build_s.insert(mutant, wall_s);
                }
                Event::Ran { mutant, seed, run } => {
                    s.runs.entry(mutant).or_default().insert(seed, run);
                }
                Event::MutantDone { mutant, status } => {
                    s.status.insert(mutant, status);
                }
                Event::Started { .. } => {}
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod phase_tests {
    use super::{BuildPhases, Marks};

    #[test]
    fn scons_step_lines_mark_the_phases_of_a_build() {
        let mut m = Marks::default();
        m.see(b"scons: Reading SConscript files ...\n", 0.5);
        m.see(b"Checking for C header file Python.h... yes\n", 1.0);
        assert!(m.step.is_none());
        m.see(
            b" [   SLICC] src/mem/ruby/protocol/MI_example.slicc -> NULL/mem\n",
            20.0,
        );
        m.see(
            b" [SO Param] m5.objects.Foo, Foo -> NULL/params/Foo.hh\n",
            21.0,
        );
        m.see(
            b" [     CXX] NULL/mem/ruby/protocol/L1Cache_Controller.cc -> .o\n",
            30.0,
        );
        m.see(b" [     CXX] NULL/base/x.cc -> .o\n", 40.0);
        m.see(b" [    LINK]  -> NULL/gem5.opt\n", 100.0);
        m.see(b"[link done] not a step\n", 110.0);
        let p = BuildPhases::of(160.0, m.step, m.compile, m.link).unwrap();
        assert_eq!(
            p,
            BuildPhases {
                scan_s: 20.0,
                regenerate_s: 10.0,
                compile_s: 70.0,
                link_s: 60.0
            }
        );
        // a build with nothing to compile: regenerate, then link
        let p = BuildPhases::of(50.0, Some(10.0), None, Some(30.0)).unwrap();
        assert_eq!((p.regenerate_s, p.compile_s, p.link_s), (20.0, 0.0, 20.0));
        // no step line at all (not SCons): no phases
        assert!(BuildPhases::of(5.0, None, None, None).is_none());
    }
}

#[cfg(test)]
mod log_tests {
    use super::{whole_lines, Event, Log, Status};

    fn parsed(bytes: &[u8]) -> Vec<Event> {
        whole_lines(bytes)
            .into_iter()
            .map(|l| serde_json::from_slice(l).expect("a whole line parses"))
            .collect()
    }

    /// A log cut at every byte of its last event is opened, cut back to its
    /// whole lines, appended to, and read: the torn event is gone, the
    /// earlier ones and the new one are there, every line parses.
    #[test]
    fn a_crash_at_any_byte_of_the_last_event_leaves_a_log_that_appends_and_reads() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("events-0.jsonl");
        let log = Log::open(&path).unwrap();
        log.push(&Event::Started { slots: 1, cores: 2 }).unwrap();
        log.push(&Event::MutantDone {
            mutant: "ADS-0001-é".into(),
            status: Status::Survived,
        })
        .unwrap();
        drop(log);
        let whole = std::fs::read(&path).unwrap();
        let last = whole[..whole.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        for cut in last..=whole.len() {
            std::fs::write(&path, &whole[..cut]).unwrap();
            // read as it lies: the torn event is not there
            let before = parsed(&std::fs::read(&path).unwrap());
            assert_eq!(before.len(), if cut == whole.len() { 2 } else { 1 });
            let log = Log::open(&path).unwrap();
            log.push(&Event::Started { slots: 3, cores: 3 }).unwrap();
            drop(log);
            let bytes = std::fs::read(&path).unwrap();
            assert!(bytes.ends_with(b"\n"), "cut at {cut}");
            let after = parsed(&bytes);
            assert_eq!(after.len(), before.len() + 1, "cut at {cut}");
            assert!(
                matches!(after.last(), Some(Event::Started { slots: 3, .. })),
                "cut at {cut}"
            );
            // every line whole: nothing glued to the torn bytes
            assert_eq!(
                whole_lines(&bytes).len(),
                bytes.iter().filter(|&&b| b == b'\n').count()
            );
        }
    }

    #[test]
    fn the_bytes_after_the_last_newline_are_no_line() {
        assert!(whole_lines(b"").is_empty());
        assert!(whole_lines(b"{\"a\"").is_empty());
        assert_eq!(whole_lines(b"x\ny"), [b"x"]);
        assert_eq!(whole_lines(b"x\ny\n"), [&b"x"[..], b"y"]);
        assert_eq!(whole_lines(b"\n\xc3"), [b""]);
    }
}
