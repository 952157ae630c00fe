//! A mutation campaign (docs/design/campaigns.md §6–§7): a directory holding the
//! settings (`campaign.toml`), the mutants (`mutants.jsonl`,
//! `patches/ID.diff`) and append-only event logs (`events-K.jsonl`, one per
//! shard). Every mutant is built and run with the user's own gem5 tree and
//! commands, in private copies ("slots": `git clone --shared` of the user's
//! tree, its uncommitted changes applied), never in the user's tree; each
//! run is checked by memconform on its real-time view and classified by the
//! first matching outcome. Resuming replays the logs: a mutant without its
//! `mutant_done` event starts again from its patch, nothing done is redone.

mod follow_up;
mod log;
mod outcome;
mod phases;
mod process;
mod runner;
mod shard;
mod slot;
mod state;
mod survivors;

pub use follow_up::{candidates as follow_up_candidates, follow_up_seed};
pub use log::*;
pub use outcome::*;
pub use phases::*;
pub use process::*;
pub use runner::*;
pub use shard::*;
pub use slot::*;
pub use state::*;
pub use survivors::*;

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
    /// Seconds a run may take with a CPU (see [`Limit::Machine`]); by default max(60, 3 × the slowest baseline run).
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
    /// With `mutate init --stimuli`: the stimuli, each a knob setting and
    /// the seed it runs with (docs/design/campaigns.md §11). `seeds` are
    /// theirs, the run template holds their knobs as `{KNOB}`, and a mutant
    /// runs only the seeds whose baseline run took one of its transitions;
    /// one that no stimulus reaches is `unreached`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stimuli: Vec<crate::stimulus::Stimulus>,
    /// The knob space the stimuli are settings of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knobs: Option<crate::stimulus::Space>,
    /// With stimuli: before a mutant no stimulus reaches is `unreached`,
    /// this many clean runs search the knobs for one that takes its
    /// transitions (0: none); a run that does becomes the mutant's stimulus.
    #[serde(default)]
    pub reach_runs: usize,
    /// With stimuli: a survivor (every run of it clean and consistent,
    /// its transitions taken) gets this many more runs, each a stimulus
    /// that took its transitions with the knob space's `follow_up` values
    /// set over it and a seed of its own (0: none; docs/design/campaigns.md
    /// §11b); the first that kills ends it.
    #[serde(default)]
    pub follow_up_runs: usize,
}

impl Settings {
    /// The stimulus that runs `seed`, if the campaign has stimuli.
    pub fn stimulus_of(&self, seed: u64) -> Option<&crate::stimulus::Stimulus> {
        self.stimuli.iter().find(|k| k.seed == seed)
    }

    /// The run template of `seed`: the knob values given, else its
    /// stimulus's, in place of their `{KNOB}`s (values hold no shell
    /// specials: see `stimulus`).
    pub fn run_template(&self, seed: u64, knobs: Option<&BTreeMap<String, String>>) -> String {
        let mut t = self.run.clone();
        if let Some(knobs) = knobs.or(self.stimulus_of(seed).map(|k| &k.knobs)) {
            for (name, value) in knobs {
                t = t.replace(&format!("{{{name}}}"), value);
            }
        }
        t
    }
}

/// Six hours, the default limit of a slot's first build.
pub fn first_build_timeout() -> u64 {
    6 * 3600
}

/// `true`, as a serde default.
fn yes() -> bool {
    true
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

/// The campaign's base edits as their file was written (docs/design/campaigns.md
/// §5, base edits): applied to every slot after `base.patch`.
pub const BASE_EDITS: &str = "base.edits";
/// The unified diff the base edits made of the user's files (for readers;
/// slots apply it after `base.patch`).
pub const BASE_EDITS_PATCH: &str = "base-edits.patch";

impl Campaign {
    /// Creates a campaign in `dir` (new or empty): records the user's
    /// `HEAD` and uncommitted changes (`base.patch`), the settings and the
    /// mutants with their patches.
    pub fn init(dir: &Path, settings: Settings, mutants: Vec<Mutant>) -> Result<Campaign, Error> {
        Campaign::init_with_edits(dir, settings, mutants, None)
    }

    /// [`Campaign::init`] with base edits: their file (`base.edits`) and
    /// the diff they made (`base-edits.patch`, which every slot applies
    /// after `base.patch`). The mutants must have been made from the
    /// edited files (see [`crate::base_edits::load_protocol`]).
    pub fn init_with_edits(
        dir: &Path,
        mut settings: Settings,
        mutants: Vec<Mutant>,
        edits: Option<(&crate::base_edits::Edits, &crate::base_edits::Applied)>,
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
        if let Some((edits, applied)) = edits {
            write_atomic(&dir.join(BASE_EDITS), edits.text.as_bytes())?;
            write_atomic(&dir.join(BASE_EDITS_PATCH), applied.diff.as_bytes())?;
        }
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
        let mut c = Campaign::open(dir)?;
        // hold every shard's lock while the list changes
        let held = hold_every_shard(dir, "add mutants")?;
        let added = crate::merge(&mut c.mutants, mutants);
        for m in c.mutants.iter().filter(|m| added.contains(&m.id)) {
            write_patch(dir, m)?;
        }
        c.mutants.sort_by(|a, b| a.id.cmp(&b.id));
        write_mutants(dir, &c.mutants)?;
        drop(held);
        Ok((c, added))
    }

    /// `mutate retry`: the mutants `ids` names, and every mutant whose
    /// status is one of `statuses`, are to be built and run again (a run
    /// judged before memconform knew better, a timeout or crash of a
    /// loaded machine): an [`Event::Retry`] each, in the log holding its
    /// end, sets its build, runs, follow-up runs and end aside. Refused
    /// while a `mutate run` holds any shard, and for a mutant not done.
    /// Returns the mutants, with the status each had.
    pub fn retry(
        dir: &Path,
        ids: &[String],
        statuses: &[Status],
    ) -> Result<Vec<(String, Status)>, Error> {
        let c = Campaign::open(dir)?;
        let held = hold_every_shard(dir, "retry mutants")?;
        let paths = c.log_paths()?;
        // per mutant its end: the log it is in and its status
        let mut end: BTreeMap<String, (usize, Status)> = BTreeMap::new();
        for (k, log) in log::without_retried(c.timed_events()?).iter().enumerate() {
            for (_, e) in log {
                if let Event::MutantDone { mutant, status, .. } = e {
                    end.insert(mutant.clone(), (k, *status));
                }
            }
        }
        let mut chosen: BTreeMap<String, (usize, Status)> = end
            .iter()
            .filter(|(_, (_, s))| statuses.contains(s))
            .map(|(m, e)| (m.clone(), *e))
            .collect();
        for q in ids {
            let id = c.resolve(q)?;
            let Some(e) = end.get(&id) else {
                return Err(err(format!(
                    "mutant {id} is not done: the next `mutate run` runs it anyway"
                )));
            };
            chosen.insert(id, *e);
        }
        for (m, (k, _)) in &chosen {
            let log = Log::open(&paths[*k])?;
            log.push(&Event::Retry { mutant: m.clone() })?;
        }
        drop(held);
        Ok(chosen.into_iter().map(|(m, (_, s))| (m, s)).collect())
    }

    /// Sets the campaign's follow-up (§11b): `runs` more runs per survivor,
    /// with `set` (knob = value, each one of the knob's values) over their
    /// stimulus; `set` empty keeps the knob values it has. `campaign.toml`
    /// is rewritten whole; refused while a `mutate run` holds any shard.
    /// The next `mutate run` gives each survivor its follow-up runs.
    pub fn set_follow_up(
        dir: &Path,
        runs: usize,
        set: &BTreeMap<String, String>,
    ) -> Result<Campaign, Error> {
        let mut c = Campaign::open(dir)?;
        let Some(space) = c.settings.knobs.as_mut() else {
            return Err(err(format!(
                "{}: no stimuli: follow-up runs are stimuli with knob values set over them \
                 (`mutate init --stimuli`)",
                shown(dir)
            )));
        };
        for (name, value) in set {
            space
                .check_follow_up(name, value)
                .map_err(|e| err(format!("--set {name}={value}: {e}")))?;
        }
        if !set.is_empty() {
            space.follow_up = set.clone();
        }
        c.settings.follow_up_runs = runs;
        let held = hold_every_shard(dir, "set the follow-up")?;
        let toml = toml::to_string_pretty(&c.settings).map_err(|e| err(e.to_string()))?;
        write_atomic(&dir.join("campaign.toml"), toml.as_bytes())?;
        drop(held);
        Ok(c)
    }

    /// The campaign's base edits (`base.edits`), if it has any.
    pub fn base_edits(&self) -> Result<Option<crate::base_edits::Edits>, Error> {
        let path = self.dir.join(BASE_EDITS);
        if !path.exists() {
            return Ok(None);
        }
        crate::base_edits::load(&path)
            .map(Some)
            .map_err(|e| err(e.to_string()))
    }

    /// The campaign's protocol as its slots hold it: read from the user's
    /// tree, the base edits applied (in memory). New mutants are made from
    /// it.
    pub fn protocol(&self) -> Result<crate::slicc::Protocol, Error> {
        let edits = self.base_edits()?;
        crate::base_edits::load_protocol(
            &self.settings.gem5_root,
            &self.settings.protocol,
            edits.as_ref(),
        )
        .map(|(p, _)| p)
        .map_err(|e| err(format!("{e} (the campaign's base edits, {BASE_EDITS})")))
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
}

/// Every shard's lock of the campaign in `dir`, held (the files open)
/// while the caller changes what runners read; refused, saying to
/// `to_do` later, while a `mutate run` holds one.
fn hold_every_shard(dir: &Path, to_do: &str) -> Result<Vec<File>, Error> {
    use std::fs::TryLockError;
    let mut held = Vec::new();
    for (_, path) in shard_locks(dir)? {
        let f = File::open(&path).map_err(|e| io_err(&path, e))?;
        match f.try_lock() {
            Ok(()) => held.push(f),
            Err(TryLockError::WouldBlock) => {
                return Err(err(format!(
                    "{} is being run by {} (its lock: {}): {to_do} when it ends or after \
                     stopping it (the next `mutate run` resumes)",
                    shown(dir),
                    holder_of(&path),
                    shown(&path)
                )))
            }
            Err(TryLockError::Error(e)) => return Err(io_err(&path, e)),
        }
    }
    Ok(held)
}

/// The first seed that `seeds` lists a second time.
fn seed_twice(seeds: &[u64]) -> Option<u64> {
    let mut seen = HashSet::new();
    seeds.iter().copied().find(|&s| !seen.insert(s))
}
