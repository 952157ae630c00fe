//! The search's driver (docs/design/campaigns.md §11): runs the user's run
//! command over settings a [`Chooser`] picks, in batches, reads each run's
//! transition counters, and logs every run (`search.jsonl`, a line each,
//! synced) so that the same command resumes: the log is replayed through
//! the chooser, which must choose what it chose before.
//!
//! ```text
//! OUT/
//!   search.toml     the settings (knobs, run template, strategy, seeds, targets)
//!   search.jsonl    a line per run: seed, knobs, exit, seconds, transitions taken
//!   runs/r<N>/      each run's output directory ({outdir}) and run.log
//!   kept/r<N>/      each run kept small (`coverage --keep`: its transition
//!                   counters and config.ini, gzipped): `memconform coverage
//!                   OUT/kept/*` after runs/ is deleted
//!   stimuli.toml    the fewest runs that took every transition taken (see `cover`)
//!   curve.csv       run,seed,new,taken,targets_taken: coverage as the runs went
//! ```

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::{cover, knobs_text, Chooser, RunRecord, Setting, Space, Stimuli, Strategy, Taken};
use crate::campaign::{cut_torn_tail, run_command, whole_lines, write_atomic, Limit};
use crate::coverage;

/// A search's settings (`search.toml`): a resumed search must have the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The run command template (`sh -c`, in `cwd`): `{outdir}`, `{seed}`,
    /// `{run}` and a `{KNOB}` for each knob.
    pub run: String,
    /// Where the runs start (the directory the search was begun in).
    pub cwd: PathBuf,
    pub strategy: Strategy,
    /// The chooser's seed.
    pub rng_seed: u64,
    /// Run N's seed is `first_seed + N - 1`.
    pub first_seed: u64,
    /// Settings chosen before the results of any of them are learnt.
    pub batch: usize,
    /// Transition counters to reach (`Machine.State.Event`); the search
    /// ends once each is taken.
    #[serde(default)]
    pub targets: Vec<String>,
    /// Seconds a run may take with a CPU ([`crate::campaign::Limit::Machine`]).
    pub run_timeout_s: u64,
    pub space: Space,
}

/// How far to go and how.
pub struct Options<'a> {
    /// The runs the search makes in all (a resumed search counts its old ones).
    pub runs: usize,
    /// Runs at once (gem5 runs on one core).
    pub jobs: usize,
    /// Set by a signal: the runs in flight are killed and not logged.
    pub stop: &'a AtomicBool,
    pub progress: &'a (dyn Fn(&str) + Sync),
}

/// A search's end.
#[derive(Debug)]
pub struct Outcome {
    pub records: Vec<RunRecord>,
    /// Every transition taken.
    pub taken: BTreeSet<String>,
    /// Targets no run took.
    pub targets_left: Vec<String>,
    /// Stopped by a signal before its end.
    pub stopped: bool,
    /// The runs this invocation made (not replayed).
    pub ran: usize,
}

/// Runs (or resumes) the search in `dir`.
pub fn search(dir: &Path, s: &Settings, o: &Options<'_>) -> Result<Outcome, String> {
    s.space.check_template(&s.run)?;
    if s.batch == 0 {
        return Err("the batch is at least one run".into());
    }
    fs::create_dir_all(dir.join("runs")).map_err(|e| io(dir, e))?;
    let settings_path = dir.join("search.toml");
    if settings_path.exists() {
        let text = fs::read_to_string(&settings_path).map_err(|e| io(&settings_path, e))?;
        let old: Settings = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", shown(&settings_path), e.message()))?;
        if old != *s {
            return Err(format!(
                "{} holds a search with other settings ({}): the same command resumes it; a new \
                 search needs a new directory",
                shown(dir),
                differences(&old, s)
            ));
        }
    } else {
        let text = toml::to_string(s).map_err(|e| e.to_string())?;
        write_atomic(&settings_path, text.as_bytes()).map_err(|e| e.0)?;
    }
    let log_path = dir.join("search.jsonl");
    let mut records = read_log(&log_path)?;
    let replayed = records.len();
    let targets: BTreeSet<String> = s.targets.iter().cloned().collect();
    let mut chooser = Chooser::new(&s.space, s.strategy, s.rng_seed);
    let mut taken = Taken::default();
    let log = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| io(&log_path, e))?;
    cut_torn_tail(&log).map_err(|e| io(&log_path, e))?;
    let log = std::sync::Mutex::new(log);
    let mut ran = 0;
    let mut stopped = false;
    let mut done = 0; // records learnt
    loop {
        let targets_left = targets.iter().any(|t| !taken.runs_taking.contains_key(t));
        if done >= o.runs.max(records.len()) || (!targets.is_empty() && !targets_left) {
            break;
        }
        // a batch: chosen whole, then its logged runs matched, the rest run
        let batch: Vec<Setting> = (0..s.batch).map(|_| chooser.choose()).collect();
        let want = s.batch.min(o.runs.max(records.len()) - done);
        for (i, setting) in batch.iter().enumerate().take(want) {
            if let Some(r) = records.get(done + i) {
                if s.space.setting(&r.knobs).as_ref() != Some(setting) {
                    return Err(format!(
                        "{}: run {} has {}, not the {} the search chooses now: the log is not \
                         this search's (or its chooser changed); begin a new search",
                        shown(&log_path),
                        r.run,
                        knobs_text(&r.knobs),
                        knobs_text(&s.space.values(setting))
                    ));
                }
            }
        }
        let missing: Vec<usize> = (done..done + want)
            .filter(|&i| i >= records.len())
            .collect();
        for group in missing.chunks(o.jobs.max(1)) {
            if o.stop.load(std::sync::atomic::Ordering::SeqCst) {
                stopped = true;
                break;
            }
            let results: Vec<Result<Option<RunRecord>, String>> = std::thread::scope(|scope| {
                let handles: Vec<_> = group
                    .iter()
                    .map(|&i| {
                        let setting = &batch[i - done];
                        scope.spawn(move || run_one(dir, s, setting, i + 1, o))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err("a run's thread panicked".into()))
                    })
                    .collect()
            });
            for r in results {
                match r? {
                    Some(rec) => {
                        append(&log, &log_path, &rec)?;
                        records.push(rec);
                        ran += 1;
                    }
                    None => stopped = true,
                }
            }
            if stopped {
                break;
            }
        }
        if stopped {
            break;
        }
        // learnt in run order once the batch is whole
        for (i, rec) in records.iter().enumerate().skip(done).take(want) {
            let fired: BTreeSet<String> = rec.fired.iter().flatten().cloned().collect();
            let gain = taken.add(&fired, &targets);
            let setting = s.space.setting(&rec.knobs).expect("matched above");
            chooser.learn(&setting, &gain);
            if i >= replayed {
                (o.progress)(&progress_line(rec, &gain, &taken, &targets, o.runs));
            }
        }
        done += want;
    }
    write_results(dir, s, &records, &targets)?;
    let taken_all = taken.all();
    Ok(Outcome {
        targets_left: targets
            .iter()
            .filter(|t| !taken_all.contains(*t))
            .cloned()
            .collect(),
        taken: taken_all,
        records,
        stopped,
        ran,
    })
}

/// One run: its output directory made anew, the command run, its counters
/// read. `None` when stopped (its directory removed: it runs again).
fn run_one(
    dir: &Path,
    s: &Settings,
    setting: &[usize],
    run: usize,
    o: &Options<'_>,
) -> Result<Option<RunRecord>, String> {
    let outdir = dir.join("runs").join(format!("r{run}"));
    if outdir.exists() {
        fs::remove_dir_all(&outdir).map_err(|e| io(&outdir, e))?;
    }
    fs::create_dir_all(&outdir).map_err(|e| io(&outdir, e))?;
    let outdir = outdir.canonicalize().map_err(|e| io(&outdir, e))?;
    let seed = s.first_seed + run as u64 - 1;
    let command = s.space.fill(&s.run, setting, seed, run, &outdir);
    let ended = run_command(
        &command,
        &s.cwd,
        &outdir.join("run.log"),
        Limit::Machine(s.run_timeout_s),
        o.stop,
        None,
    )
    .map_err(|e| e.0)?;
    if ended.stopped {
        let _ = fs::remove_dir_all(&outdir);
        return Ok(None);
    }
    let counts = coverage::read_counts(&outdir.join("stats.txt")).ok();
    if counts.is_some() {
        // a run without counters has nothing to keep
        coverage::keep_run(&outdir, &dir.join("kept"))?;
    }
    let fired = counts.map(|c| c.fired().into_iter().collect());
    Ok(Some(RunRecord {
        run,
        seed,
        knobs: s.space.values(setting),
        exit: ended.code,
        timed_out: ended.timed_out,
        secs: (ended.secs * 1000.0).round() / 1000.0,
        fired,
    }))
}

/// The runs logged so far (a torn last line is no run).
fn read_log(path: &Path) -> Result<Vec<RunRecord>, String> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(path, e)),
    };
    let mut out = Vec::new();
    for (i, line) in whole_lines(&bytes).into_iter().enumerate() {
        let r: RunRecord = serde_json::from_slice(line)
            .map_err(|e| format!("{}:{}:{}: {e}", shown(path), i + 1, e.column()))?;
        if r.run != out.len() + 1 {
            return Err(format!(
                "{}:{}: run {} where run {} was due",
                shown(path),
                i + 1,
                r.run,
                out.len() + 1
            ));
        }
        out.push(r);
    }
    Ok(out)
}

fn append(log: &std::sync::Mutex<fs::File>, path: &Path, r: &RunRecord) -> Result<(), String> {
    let mut line = serde_json::to_string(r).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut f = log.lock().expect("the log lock");
    f.write_all(line.as_bytes())
        .and_then(|()| f.sync_data())
        .map_err(|e| io(path, e))
}

/// `stimuli.toml` and `curve.csv` of the runs learnt.
fn write_results(
    dir: &Path,
    s: &Settings,
    records: &[RunRecord],
    targets: &BTreeSet<String>,
) -> Result<(), String> {
    let stimuli = Stimuli::of_cover(&s.space, &cover(records));
    if !stimuli.stimuli.is_empty() {
        write_atomic(&dir.join("stimuli.toml"), stimuli.to_toml().as_bytes()).map_err(|e| e.0)?;
    }
    let mut curve = String::from("run,seed,new,taken,targets_taken\n");
    let mut taken = BTreeSet::new();
    for r in records {
        let fired = r.fired.iter().flatten();
        let new = fired.filter(|t| taken.insert((*t).clone())).count();
        let hit = targets.iter().filter(|t| taken.contains(*t)).count();
        curve.push_str(&format!(
            "{},{},{new},{},{hit}\n",
            r.run,
            r.seed,
            taken.len()
        ));
    }
    write_atomic(&dir.join("curve.csv"), curve.as_bytes()).map_err(|e| e.0)
}

/// The runs with counters, as output directories (for the coverage table).
pub fn counted_runs(dir: &Path, records: &[RunRecord]) -> Vec<PathBuf> {
    records
        .iter()
        .filter(|r| r.fired.is_some())
        .map(|r| dir.join("runs").join(format!("r{}", r.run)))
        .collect()
}

fn progress_line(
    r: &RunRecord,
    gain: &super::Gain,
    taken: &Taken,
    targets: &BTreeSet<String>,
    runs: usize,
) -> String {
    let how = match (&r.fired, r.timed_out) {
        (_, true) => format!("timed out after {:.0} s, ", r.secs),
        (None, _) => format!(
            "no transition counters (exit {}), ",
            r.exit.map_or("by a signal".into(), |c| c.to_string())
        ),
        (Some(f), _) => format!("{} transitions, ", f.len()),
    };
    let hit = if targets.is_empty() {
        String::new()
    } else {
        let n = targets
            .iter()
            .filter(|t| taken.runs_taking.contains_key(*t))
            .count();
        format!(
            "; targets {n}/{}{}",
            targets.len(),
            if gain.new_targets.is_empty() {
                String::new()
            } else {
                format!(" (reached {})", gain.new_targets.join(", "))
            }
        )
    };
    format!(
        "run {}/{runs} (seed {}; {}): {how}{} new, {} taken so far{hit} ({:.1} s)",
        r.run,
        r.seed,
        knobs_text(&r.knobs),
        gain.new.len(),
        taken.runs_taking.len(),
        r.secs
    )
}

/// Which settings differ, by name.
fn differences(old: &Settings, new: &Settings) -> String {
    [
        (old.run != new.run, "the run template"),
        (old.cwd != new.cwd, "the directory runs start in"),
        (old.strategy != new.strategy, "the strategy"),
        (old.rng_seed != new.rng_seed, "the chooser's seed"),
        (old.first_seed != new.first_seed, "the first seed"),
        (old.batch != new.batch, "the batch"),
        (old.targets != new.targets, "the targets"),
        (old.run_timeout_s != new.run_timeout_s, "the run time limit"),
        (old.space != new.space, "the knobs"),
    ]
    .iter()
    .filter(|(differs, _)| *differs)
    .map(|(_, what)| *what)
    .collect::<Vec<_>>()
    .join(", ")
}

fn io(p: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", shown(p))
}

fn shown(p: &Path) -> std::borrow::Cow<'_, str> {
    memconform_report::shown_path(p)
}
