//! The runner (docs/design/campaigns.md §6): the baseline, then each
//! mutant of a shard on the slots and cores given, every step logged.

use super::*;

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
    /// Mutants to run before the others, in this order (ids, unique
    /// prefixes of 4 digits or more, or catalogue names); each must be a
    /// mutant of this shard.
    pub first: Vec<String>,
    /// Set (e.g. by Ctrl-C) to stop after the steps in flight.
    pub stop: &'a AtomicBool,
    /// A line per finished step, for the user.
    pub progress: &'a (dyn Fn(&str) + Sync),
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
    // --first, resolved before anything is logged or run
    let shard = c.shard(k, n);
    let mut first: Vec<String> = Vec::new();
    for q in &o.first {
        let id = c.resolve(q)?;
        if !shard.iter().any(|m| m.id == id) {
            return Err(err(format!(
                "`{q}` ({id}) is not a mutant of shard {k}/{n}"
            )));
        }
        if !first.contains(&id) {
            first.push(id);
        }
    }
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
    // survivors owed follow-up runs (§11b): done, but run again for those
    let reopen = owed_follow_ups(c, &events)?;
    let mut todo: Vec<&Mutant> = shard
        .into_iter()
        .filter(|m| !done.contains(m.id.as_str()) || reopen.contains_key(m.id.as_str()))
        .collect();
    // --first: those, in the order given, then the rest by id (stable)
    todo.sort_by_key(|m| first.iter().position(|f| *f == m.id).unwrap_or(first.len()));
    let slot_dir = o.slot_dir.clone().unwrap_or_else(|| c.dir.join("slots"));
    // the baseline: the first slot, unmutated (shards running at once may
    // each run it: the last run of a seed counts)
    let mut logged = baseline_of(&events);
    // a baseline stopped part way runs its missing seeds (not the logged
    // ones again): a mutant is judged against every seed's baseline run
    let missing: Vec<u64> = c
        .settings
        .seeds
        .iter()
        .copied()
        .filter(|seed| !logged.contains_key(seed))
        .collect();
    if !missing.is_empty() {
        if !logged.is_empty() {
            (o.progress)(&format!(
                "baseline: {} of {} seeds logged; running the rest ({})",
                logged.len(),
                c.settings.seeds.len(),
                missing
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let slot = Slot::prepare(c, slot_dir.join(format!("{k}-0")), o)?;
        let b = run_baseline(c, &slot, &models, &log, o, (k, n), &missing)?;
        if o.stop.load(Ordering::Relaxed) {
            return Ok(0);
        }
        logged.extend(b);
    }
    let baseline: Vec<(u64, Run)> = logged.into_iter().collect();
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
        baseline_coverage(&baseline).map(|taken| Covered {
            taken,
            cannot_take: baseline_cannot_take(&baseline),
        })
    } else {
        None
    };
    if let Some(cov) = &covered {
        (o.progress)(&format!(
            "baseline coverage: {} transitions taken; {} the configuration cannot take",
            cov.taken.len(),
            cov.cannot_take.len()
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
            let (queue, finished, failure, log, models, clean, covered, cores, reopen) = (
                &queue, &finished, &failure, &log, &models, &clean, &covered, &cores, &reopen,
            );
            let baseline = baseline.as_slice();
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
                        let prepared = prepare_mutant(
                            c,
                            &here,
                            m,
                            covered.as_ref(),
                            baseline,
                            (models, limit),
                            log,
                            o,
                        );
                        if !join(running.take()) {
                            return;
                        }
                        let (built, reached) = match prepared {
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
                            Ok(Prepared::Built(reached)) => (m, reached),
                        };
                        // with stimuli, the seeds whose baseline reached it
                        // (or the one a search found)
                        // (a survivor owed follow-up runs: those alone)
                        let owed = reopen.get(built.id.as_str()).copied();
                        let plan = Plan {
                            m: built,
                            seeds: match (&reached, owed) {
                                (_, Some(_)) => Vec::new(),
                                (Some(k), None) => vec![k.seed],
                                (None, None) => mutant_seeds(c, built, clean, baseline),
                            },
                            baseline,
                            followed: owed.unwrap_or(0),
                            reached,
                        };
                        if cores.try_take(1) == 0 {
                            // no spare core: the runs here, then the next build
                            if !report(run_built(c, &here, None, &plan, models, limit, log, o)) {
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
                            let r = run_built(c, &here, Some(&bin), &plan, models, limit, log, o);
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

/// How a no-coverage mutant's note starts when the configuration cannot
/// take any transition it edits ([`Covered::cannot_take`]).
pub const CANNOT_TAKE: &str = "unreachable in this configuration";

/// Transitions with why each cannot be taken, each reason once after the
/// transitions it holds for, in first-seen order: `A, B: why; C: other`.
pub fn by_reason(pairs: &[(&str, &str)]) -> String {
    reason_groups(pairs)
        .iter()
        .map(|(why, ts)| format!("{}: {why}", ts.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The reasons of `pairs` (transition, why), each with its transitions, in
/// first-seen order.
pub fn reason_groups<'a>(pairs: &[(&'a str, &'a str)]) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for &(t, why) in pairs {
        match groups.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ts)) => ts.push(t),
            None => groups.push((why, vec![t])),
        }
    }
    groups
}

/// A no-coverage note written before [`by_reason`] (`A: why; B: why; ...`,
/// one reason a transition, in `fires`' order) as its (transition, reason)
/// pairs; `None` when `why` is not of that form.
pub fn cannot_take_pairs<'a>(why: &'a str, fires: &'a [String]) -> Option<Vec<(&'a str, &'a str)>> {
    let mut pairs = Vec::new();
    let mut rest = why;
    for (i, t) in fires.iter().enumerate() {
        rest = rest.strip_prefix(t.as_str())?.strip_prefix(": ")?;
        let end = match fires.get(i + 1) {
            Some(next) => rest.find(&format!("; {next}: "))?,
            None => rest.len(),
        };
        pairs.push((t.as_str(), &rest[..end]));
        rest = rest[end..].strip_prefix("; ").unwrap_or("");
    }
    (rest.is_empty() && !pairs.is_empty()).then_some(pairs)
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

/// What the clean baseline seeds took, and what their configuration cannot
/// take.
pub struct Covered {
    /// The transitions (`Machine.State.Event`) some clean seed took.
    pub taken: BTreeSet<String>,
    /// The transitions no clean seed's configuration can take, with why
    /// ([`crate::reach`]): a mutant there is code no stimulus runs.
    pub cannot_take: BTreeMap<String, String>,
}

/// The transitions every clean baseline seed's configuration cannot take
/// (the reach analysis each seed's coverage table made), with the first
/// seed's reason; empty when a seed has no analysis.
pub fn baseline_cannot_take(baseline: &[(u64, Run)]) -> BTreeMap<String, String> {
    let mut out: Option<BTreeMap<String, String>> = None;
    for (_, r) in baseline.iter().filter(|(_, r)| r.outcome == "survived") {
        let Some(u) = &r.unreachable else {
            return BTreeMap::new();
        };
        out = Some(match out {
            None => u.clone(),
            Some(o) => o.into_iter().filter(|(k, _)| u.contains_key(k)).collect(),
        });
    }
    out.unwrap_or_default()
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

/// Builds the unmutated slot and runs `seeds` (the campaign's, less those
/// a stopped baseline logged); each seed's run is logged.
pub(super) fn run_baseline(
    c: &Campaign,
    slot: &Slot,
    models: &[Model],
    log: &Log,
    o: &RunOptions<'_>,
    (k, n): (usize, usize),
    seeds: &[u64],
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
        Limit::Wall(limit),
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
    let protocol = crate::slicc::load_protocol(&slot.root, &s.protocol);
    let declared = match &protocol {
        Ok(p) => Some(coverage::declared(p)),
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
    for group in seeds.chunks(o.cores.max(o.slots).max(1)) {
        let runs = run_seeds(
            c,
            slot,
            None,
            "baseline",
            &[],
            group,
            dir,
            models,
            limit,
            o,
            None,
        );
        for (&seed, run) in group.iter().zip(runs) {
            let Some(mut run) = run? else {
                return Ok(out);
            };
            let outdir = dir.join(format!("s{seed}"));
            if let Ok(counts) = coverage::read_counts(&outdir.join("stats.txt")) {
                run.fired = Some(counts.fired().into_iter().collect());
                // the seed's coverage table, beside its output
                let mut table =
                    coverage::Table::new(&counts, declared.as_ref(), 1, Some(s.protocol.clone()));
                // and what this seed's configuration cannot take (reach.rs)
                if let Ok(p) = &protocol {
                    let config = coverage::run_config(&outdir).ok().flatten();
                    let r = crate::reach::analyse_builtin(p, &[config], &counts.fired());
                    run.unreachable = Some(
                        r.unreachable
                            .iter()
                            .map(|((m, st, e), why)| (format!("{m}.{st}.{e}"), why.words(m, st, e)))
                            .collect(),
                    );
                    table = table.with_reach(r);
                }
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

/// One seed of `mutant` (or the baseline) in `slot`: run, check, classify.
/// `None` when stopped.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_seed(
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
    knobs: Option<&BTreeMap<String, String>>,
) -> Result<Option<Run>, Error> {
    let outdir = dir.join(format!("s{seed}"));
    if outdir.exists() {
        fs::remove_dir_all(&outdir).map_err(|e| io_err(&outdir, e))?;
    }
    fs::create_dir_all(&outdir).map_err(|e| io_err(&outdir, e))?;
    let outdir = outdir.canonicalize().map_err(|e| io_err(&outdir, e))?;
    let root = slot.seen_root()?;
    let command = fill(
        &c.settings.run_template(seed, knobs),
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
            Options {
                max_memory: memconform_ingest::limits::default_max_memory(),
                ..Options::default()
            },
            memconform_ingest::Reading {
                real_time: true,
                ..Default::default()
            },
        )
    });
    // what starts: the binary's digest, beside the run's outcome
    let started = file_sha256(&slot.root.join(bin.unwrap_or(Path::new(&c.settings.gem5))));
    let Ended {
        code,
        secs,
        stopped,
        ..
    } = run_command(
        &slot.command(&command),
        &slot.root,
        &log,
        Limit::Machine(limit),
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
    let mut run = judge(&outdir, code, &text, models, secs, mutant, &rows);
    run.binary_sha256 = started;
    Ok(Some(run))
}

/// The SHA-256 of a file (a gem5 binary: tens of MB, a tenth of a second),
/// `None` when it cannot be read.
pub(super) fn file_sha256(path: &Path) -> Option<String> {
    fs::read(path).ok().map(|b| sha256_hex(&b))
}

/// [`run_seed`] for each seed of `group`, side by side (a thread each),
/// results in `group`'s order.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_seeds(
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
    knobs: Option<&BTreeMap<String, String>>,
) -> Vec<Result<Option<Run>, Error>> {
    if let [seed] = group {
        return vec![run_seed(
            c, slot, bin, mutant, params, *seed, dir, models, limit, o, knobs,
        )];
    }
    std::thread::scope(|scope| {
        let running: Vec<_> = group
            .iter()
            .map(|&seed| {
                scope.spawn(move || {
                    run_seed(
                        c, slot, bin, mutant, params, seed, dir, models, limit, o, knobs,
                    )
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
pub(super) struct Taken<'a>(&'a Cores, usize);

impl<'a> Taken<'a> {
    pub(super) fn one(cores: &'a Cores) -> Taken<'a> {
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
pub(super) struct Here<'a> {
    pub(super) slot: &'a Slot,
    pub(super) cores: &'a Cores,
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
pub(super) fn simulated(outdir: &Path) -> bool {
    const STARTED: &[u8] = b"Starting simulation";
    ["run.log", "simout.txt", "simerr.txt"].iter().any(|f| {
        fs::read(outdir.join(f)).is_ok_and(|b| b.windows(STARTED.len()).any(|w| w == STARTED))
    })
}

/// The seeds a built mutant runs: every clean seed, or with stimuli (and
/// coverage on) those whose baseline run took one of its transitions (or
/// has no counters): gem5 is deterministic, so a seed that never reaches
/// the edit runs exactly as its baseline did.
pub(super) fn mutant_seeds(
    c: &Campaign,
    m: &Mutant,
    clean: &[u64],
    baseline: &[(u64, Run)],
) -> Vec<u64> {
    let (false, true, Some(fires)) = (
        c.settings.stimuli.is_empty(),
        c.settings.coverage,
        m.fires.as_ref(),
    ) else {
        return clean.to_vec();
    };
    let reaches = |seed: u64| {
        baseline
            .iter()
            .find(|(s, _)| *s == seed)
            .and_then(|(_, r)| r.fired.as_ref())
            .is_none_or(|f| fires.iter().any(|t| f.contains(t)))
    };
    let seeds: Vec<u64> = clean.iter().copied().filter(|&s| reaches(s)).collect();
    if seeds.is_empty() {
        clean.to_vec()
    } else {
        seeds
    }
}

/// Why a mutant no stimulus reaches is `unreached`: its transitions, and the
/// stimulus whose baseline run came closest — the most transitions taken of
/// the same machine from one of the mutant's states or on one of its events.
pub(super) fn unreached_note(
    c: &Campaign,
    m: &Mutant,
    baseline: &[(u64, Run)],
    searched: usize,
) -> String {
    let fires = m.fires.clone().unwrap_or_default();
    let parts: Vec<(&str, &str, &str)> = fires
        .iter()
        .filter_map(|t| {
            let mut p = t.splitn(3, '.');
            Some((p.next()?, p.next()?, p.next()?))
        })
        .collect();
    let near = |t: &str| {
        let mut p = t.splitn(3, '.');
        let (Some(mc), Some(st), Some(ev)) = (p.next(), p.next(), p.next()) else {
            return false;
        };
        parts
            .iter()
            .any(|&(m2, s2, e2)| mc == m2 && (st == s2 || ev == e2))
    };
    let mut best: Option<(usize, u64)> = None;
    for (seed, r) in baseline.iter().filter(|(_, r)| r.outcome == "survived") {
        let n = r.fired.iter().flatten().filter(|t| near(t)).count();
        if best.is_none_or(|(b, _)| n > b) {
            best = Some((n, *seed));
        }
    }
    let wanted = if fires.is_empty() {
        "its transitions".to_string()
    } else {
        fires.join(", ")
    };
    let closest = match best {
        Some((n, seed)) if n > 0 => {
            let name = c.settings.stimulus_of(seed).map_or_else(
                || format!("seed {seed}"),
                |k| {
                    format!(
                        "{} (seed {seed}; {})",
                        k.name,
                        crate::stimulus::knobs_text(&k.knobs)
                    )
                },
            );
            format!(
                "closest: {name}, which took {n} transitions of the same machine from its states \
                 or on its events"
            )
        }
        _ => "no stimulus took a transition of the same machine from its states or on its events"
            .to_string(),
    };
    let search = if searched > 0 {
        format!(", nor did a search of {searched} clean runs over the stimuli's knobs")
    } else {
        String::new()
    };
    format!("unreached: no stimulus's baseline run takes {wanted}{search}; {closest}")
}

/// What [`reach`] found.
pub(super) enum Reach {
    Stopped,
    /// A clean, consistent run that takes one of the mutant's transitions.
    Found(crate::stimulus::Stimulus),
    /// None in so many runs.
    NotFound(usize),
}

/// Searches the stimuli's knobs (`reach_runs` clean runs of the baseline's
/// binary, the bandit of `stimulus`, the mutant's transitions its targets)
/// for a run that takes one of a mutant's transitions no stimulus took
/// (docs/design/campaigns.md §11). A run that does and ends clean and
/// consistent is the mutant's stimulus: its knobs and seed run the mutant.
/// Run N's seed is above every stimulus's, one block of seeds per mutant.
#[allow(clippy::too_many_arguments)]
pub(super) fn reach(
    c: &Campaign,
    slot: &Slot,
    m: &Mutant,
    baseline: &[(u64, Run)],
    models: &[Model],
    limit: u64,
    log: &Log,
    o: &RunOptions<'_>,
) -> Result<Reach, Error> {
    use crate::stimulus::{Chooser, Stimulus, Strategy, Taken as Seen};
    let s = &c.settings;
    let bin = base_binary(c);
    let (Some(space), Some(fires), true) = (s.knobs.as_ref(), m.fires.as_ref(), bin.is_file())
    else {
        return Ok(Reach::NotFound(0));
    };
    if s.reach_runs == 0 || fires.is_empty() {
        return Ok(Reach::NotFound(0));
    }
    let targets: BTreeSet<String> = fires.iter().cloned().collect();
    // the mutant's transitions a run took
    let took_of = |fired: &BTreeSet<String>| -> Vec<String> {
        fires
            .iter()
            .filter(|t| fired.contains(*t))
            .cloned()
            .collect()
    };
    let index = c.mutants.iter().position(|x| x.id == m.id).unwrap_or(0) as u64;
    let first = s.seeds.iter().max().copied().unwrap_or(0) + 1 + index * s.reach_runs as u64;
    let mut chooser = Chooser::new(space, Strategy::Bandit, first);
    let mut seen = Seen::default();
    // what the stimuli's baseline runs took is known: learnt first
    for (seed, r) in baseline.iter().filter(|(_, r)| r.outcome == "survived") {
        let fired: BTreeSet<String> = r.fired.iter().flatten().cloned().collect();
        let gain = seen.add(&fired, &targets);
        if let Some(setting) = s.stimulus_of(*seed).and_then(|k| space.setting(&k.knobs)) {
            chooser.learn(&setting, &gain);
        }
    }
    // so are the earlier searches' runs (any slot's, any shard's): a clean,
    // consistent one that took this mutant's transitions is its stimulus
    // with no run of its own (gem5 is deterministic: its seed and knobs
    // take them again)
    for e in c.events()? {
        let Event::ReachRun {
            seed,
            knobs,
            outcome,
            fired,
            ..
        } = e
        else {
            continue;
        };
        let Some(setting) = space.setting(&knobs) else {
            continue;
        };
        let fired: BTreeSet<String> = fired.into_iter().collect();
        chooser.learn(&setting, &seen.add(&fired, &targets));
        let took = took_of(&fired);
        if took.is_empty() || outcome != "survived" {
            continue;
        }
        let k = Stimulus {
            name: format!("reach-s{seed}"),
            seed,
            knobs,
            adds: took,
        };
        (o.progress)(&format!(
            "{} {}: an earlier search's run (seed {seed}; {}) takes {}",
            m.id,
            m.op,
            crate::stimulus::knobs_text(&k.knobs),
            k.adds.join(", ")
        ));
        log.push(&Event::Reached {
            mutant: m.id.clone(),
            runs: 0,
            run_s: 0.0,
            check_s: 0.0,
            stimulus: Some(k.clone()),
        })?;
        return Ok(Reach::Found(k));
    }
    let dir = c.dir.join("runs").join(&m.id).join("reach");
    fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
    let (mut run_s, mut check_s) = (0.0, 0.0);
    for n in 0..s.reach_runs {
        let setting = chooser.choose();
        let knobs = space.values(&setting);
        let seed = first + n as u64;
        let Some(run) = run_seed(
            c,
            slot,
            Some(&bin),
            "baseline",
            &[],
            seed,
            &dir,
            models,
            limit,
            o,
            Some(&knobs),
        )?
        else {
            return Ok(Reach::Stopped);
        };
        run_s += run.run_s;
        check_s += run.check_s;
        let outdir = dir.join(format!("s{seed}"));
        let fired = coverage::fired(&outdir.join("stats.txt")).unwrap_or_default();
        log.push(&Event::ReachRun {
            mutant: m.id.clone(),
            seed,
            knobs: knobs.clone(),
            outcome: run.outcome.clone(),
            fired: fired.iter().cloned().collect(),
        })?;
        let gain = seen.add(&fired, &targets);
        chooser.learn(&setting, &gain);
        let took = took_of(&fired);
        (o.progress)(&format!(
            "{} {}: reach run {}/{} (seed {seed}; {}): {}{}",
            m.id,
            m.op,
            n + 1,
            s.reach_runs,
            crate::stimulus::knobs_text(&knobs),
            run.outcome,
            if took.is_empty() {
                String::new()
            } else {
                format!(", takes {}", took.join(", "))
            }
        ));
        if !took.is_empty() && run.outcome == "survived" {
            let k = Stimulus {
                name: format!("reach-s{seed}"),
                seed,
                knobs,
                adds: took,
            };
            log.push(&Event::Reached {
                mutant: m.id.clone(),
                runs: n + 1,
                run_s,
                check_s,
                stimulus: Some(k.clone()),
            })?;
            return Ok(Reach::Found(k));
        }
        let _ = fs::remove_dir_all(&outdir);
        let _ = fs::remove_file(dir.join(format!("s{seed}.csv")));
    }
    log.push(&Event::Reached {
        mutant: m.id.clone(),
        runs: s.reach_runs,
        run_s,
        check_s,
        stimulus: None,
    })?;
    Ok(Reach::NotFound(s.reach_runs))
}

/// Ends a mutant before its runs (no coverage, unviable): logged as done,
/// with the reason on the progress line.
pub(super) fn finish_early(
    log: &Log,
    o: &RunOptions<'_>,
    m: &Mutant,
    status: Status,
    why: &str,
) -> Result<bool, Error> {
    log.push(&Event::MutantDone {
        mutant: m.id.clone(),
        status,
        note: (status == Status::Unreached || why.starts_with(CANNOT_TAKE))
            .then(|| why.to_string()),
    })?;
    (o.progress)(&format!("{} {}: {why}", m.id, m.op));
    Ok(true)
}

/// What [`prepare_mutant`] left: a mutant done (no coverage, unviable:
/// `Ok(true)`; stopped: `Ok(false)`), or one built in the slot, its runs to
/// come.
pub(super) enum Prepared {
    Finished(bool),
    /// Built; with the stimulus a search found for it (`reach_runs`).
    Built(Option<crate::stimulus::Stimulus>),
}

/// Patches and builds one mutant (none of it when the baseline never
/// reaches its edit: `no_coverage`); logs each step.
#[allow(clippy::too_many_arguments)]
pub(super) fn prepare_mutant(
    c: &Campaign,
    here: &Here<'_>,
    m: &Mutant,
    covered: Option<&Covered>,
    baseline: &[(u64, Run)],
    (models, limit): (&[Model], u64),
    log: &Log,
    o: &RunOptions<'_>,
) -> Result<Prepared, Error> {
    let finish_early = |log: &Log, o: &RunOptions<'_>, m: &Mutant, st: Status, why: &str| {
        finish_early(log, o, m, st, why).map(Prepared::Finished)
    };
    // a mutant no baseline seed reaches: with stimuli, searched for (or
    // unreached), else no coverage
    let mut reached = None;
    if let Some(cov) = covered.filter(|cov| !coverage::covered(m.fires.as_deref(), &cov.taken)) {
        // every transition it edits is one the configuration cannot take:
        // no stimulus runs it, none is searched for
        if let Some(fires) = m.fires.as_deref().filter(|f| !f.is_empty()) {
            if fires.iter().all(|t| cov.cannot_take.contains_key(t)) {
                let pairs: Vec<(&str, &str)> = fires
                    .iter()
                    .map(|t| (t.as_str(), cov.cannot_take[t].as_str()))
                    .collect();
                let why = format!("{CANNOT_TAKE}: {}", by_reason(&pairs));
                return finish_early(log, o, m, Status::NoCoverage, &why);
            }
        }
        if c.settings.stimuli.is_empty() {
            return finish_early(
                log,
                o,
                m,
                Status::NoCoverage,
                "no coverage (no baseline seed takes its transitions)",
            );
        }
        match reach(c, here.slot, m, baseline, models, limit, log, o)? {
            Reach::Stopped => return Ok(Prepared::Finished(false)),
            Reach::Found(k) => reached = Some(k),
            Reach::NotFound(runs) => {
                let why = unreached_note(c, m, baseline, runs);
                return finish_early(log, o, m, Status::Unreached, &why);
            }
        }
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
            binary_sha256: None,
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
            Limit::Wall(s.build_timeout_s),
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
                binary_sha256: None,
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
            Limit::Wall(build_limit),
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
            binary_sha256: None,
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
        binary_sha256: ok.then(|| file_sha256(&slot.root.join(&s.gem5))).flatten(),
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
    Ok(Prepared::Built(reached))
}

/// A built mutant's runs: the seeds, and the stimulus a search found for
/// it (its knobs then fill the run template).
pub(super) struct Plan<'a> {
    pub(super) m: &'a Mutant,
    pub(super) seeds: Vec<u64>,
    pub(super) reached: Option<crate::stimulus::Stimulus>,
    /// The baseline's runs: which stimuli its follow-up runs follow, if
    /// it survives (§11b).
    pub(super) baseline: &'a [(u64, Run)],
    /// Its follow-up runs logged before (a survivor reopened for them).
    pub(super) followed: usize,
}

/// The baseline's runs logged, by seed (a seed run again: its last run).
fn baseline_of(events: &[Event]) -> BTreeMap<u64, Run> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Baseline { seed, run } => Some((*seed, run.clone())),
            _ => None,
        })
        .collect()
}

/// Survivors owed follow-up runs (§11b): done as `survived` with fewer
/// follow-up runs logged than the campaign asks for, and not classified
/// equivalent (`survivors.toml`: no program tells them apart); each with
/// the number logged. A kill by a follow-up run with no clean run of its
/// knobs and seed logged (`clean`) is not evidence: that mutant is owed
/// the run again (the same seed: the same run), then the clean one.
pub(super) fn owed_follow_ups(
    c: &Campaign,
    events: &[Event],
) -> Result<HashMap<String, usize>, Error> {
    let s = &c.settings;
    if s.follow_up_runs == 0 || s.knobs.is_none() {
        return Ok(HashMap::new());
    }
    let classified = c.survivors()?;
    let equivalent = |m: &str| {
        classified
            .get(m)
            .is_some_and(|k| k.class == Class::Equivalent)
    };
    let mut last: HashMap<&str, Status> = HashMap::new();
    // each mutant's follow-up seeds (a run made again is one run)
    let mut logged: HashMap<&str, HashSet<u64>> = HashMap::new();
    // follow-up seeds with no clean run logged, and the kills of each kind
    let mut unchecked: HashSet<(&str, u64)> = HashSet::new();
    let mut kills: HashMap<&str, (bool, bool)> = HashMap::new();
    for e in events {
        match e {
            Event::MutantDone { mutant, status, .. } => {
                last.insert(mutant, *status);
            }
            Event::FollowUp {
                mutant,
                seed,
                clean,
                ..
            } => {
                logged.entry(mutant).or_default().insert(*seed);
                if clean.is_none() {
                    unchecked.insert((mutant, *seed));
                } else {
                    unchecked.remove(&(mutant.as_str(), *seed));
                }
            }
            Event::Ran { mutant, seed, run } if run.kills() => {
                let k = kills.entry(mutant).or_default();
                if unchecked.contains(&(mutant.as_str(), *seed)) {
                    k.1 = true;
                } else {
                    k.0 = true;
                }
            }
            _ => {}
        }
    }
    // a survivor whose every stimulus is one whose follow-up runs time out
    // (follow_up::slow_stimuli) is owed none: they would be left out again
    let slow = follow_up::slow_stimuli(events);
    let baseline: Vec<(u64, Run)> = baseline_of(events).into_iter().collect();
    let only_slow = |id: &str| {
        !slow.is_empty()
            && c.mutants.iter().find(|m| m.id == id).is_some_and(|m| {
                let took = follow_up::stimuli_that_took(c, m, &baseline);
                !took.is_empty() && took.iter().all(|(k, _)| slow.contains_key(&k.name))
            })
    };
    Ok(last
        .into_iter()
        .filter(|(m, _)| !equivalent(m))
        .filter_map(|(m, st)| {
            let n = logged.get(m).map_or(0, HashSet::len);
            match (st, kills.get(m).copied().unwrap_or_default()) {
                (Status::Survived, _) if n < s.follow_up_runs && !only_slow(m) => {
                    Some((m.to_string(), n))
                }
                // killed by an unchecked follow-up run alone (its last)
                (Status::Killed, (false, true)) => Some((m.to_string(), n.saturating_sub(1))),
                _ => None,
            }
        })
        .collect())
}

/// Runs a built mutant's seeds (until the first kill; every seed with
/// `all_seeds`) and logs each run and the mutant's end. `bin`: a copy of
/// the mutant's binary in the slot the runs use while the slot builds the
/// next mutant (else the slot's own build). `Ok(false)` when stopped before
/// its end (it will start again on resume).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_built(
    c: &Campaign,
    here: &Here<'_>,
    bin: Option<&Path>,
    plan: &Plan<'_>,
    models: &[Model],
    limit: u64,
    log: &Log,
    o: &RunOptions<'_>,
) -> Result<bool, Error> {
    let (m, seeds, reached) = (plan.m, &plan.seeds, plan.reached.as_ref());
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
            c,
            slot,
            bin,
            &m.id,
            &m.params,
            group,
            &dir,
            models,
            limit,
            o,
            reached.map(|k| &k.knobs),
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
    // a survivor its runs reached: its follow-up runs (§11b), the stimuli
    // that took its transitions read only now
    let follow_ups = if status == Status::Survived && plan.followed < s.follow_up_runs {
        let mut all = follow_up::candidates(c, m, plan.baseline, reached);
        // not the settings whose follow-up runs (any mutant's) time out
        let slow = follow_up::slow_stimuli(&c.events()?);
        all.retain(|(k, _)| match slow.get(&k.name) {
            Some((t, n)) => {
                (o.progress)(&format!(
                    "{} {}: no follow-up run on {}: its follow-up setting timed out in {t} of {n} runs",
                    m.id, m.op, k.name
                ));
                false
            }
            None => true,
        });
        all
    } else {
        Vec::new()
    };
    if !follow_ups.is_empty() {
        match follow_up::follow_up(
            c,
            slot,
            bin,
            m,
            &follow_ups,
            plan.followed,
            models,
            limit,
            log,
            o,
        )? {
            Some(after) => status = after,
            None => return Ok(false),
        }
    }
    log.push(&Event::MutantDone {
        mutant: m.id.clone(),
        status,
        note: None,
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each reason once, after the transitions it holds for, in first-seen
    /// order; an old note (one reason a transition, reasons with `; ` in
    /// them) regroups to the same text, and text of another form is left
    /// to its writer.
    #[test]
    fn reasons_are_written_once() {
        let dead = "dead code: no probe without data (dir.sm 944-947; icd_ set true)";
        let pairs = [
            ("C.Ms.PrbInv", dead),
            ("L3.E.RdBlk", "no L3Cache"),
            ("C.M0.PrbInv", dead),
        ];
        let grouped = by_reason(&pairs);
        assert_eq!(
            grouped,
            format!("C.Ms.PrbInv, C.M0.PrbInv: {dead}; L3.E.RdBlk: no L3Cache")
        );
        let fires: Vec<String> = pairs.iter().map(|(t, _)| t.to_string()).collect();
        let old = pairs
            .iter()
            .map(|(t, w)| format!("{t}: {w}"))
            .collect::<Vec<_>>()
            .join("; ");
        let regroup =
            |why: &str, fires: &[String]| cannot_take_pairs(why, fires).map(|p| by_reason(&p));
        assert_eq!(regroup(&old, &fires).as_deref(), Some(&*grouped));
        assert_eq!(regroup(&grouped, &fires), None);
        let other: Vec<String> = ["C.Ms.PrbInv", "L3.E.RdBlkS", "C.M0.PrbInv"]
            .map(String::from)
            .to_vec();
        assert_eq!(regroup(&old, &other), None);
        assert_eq!(regroup("", &[]), None);
    }
}
