//! `mutate run|status|report`: a campaign's command line (the logic is in
//! `mutate::campaign` and `report::mutation`).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use super::exit;
use memconform_mutate::campaign::{
    self, Campaign, LockError, RunOptions, ShardLock, State, Status,
};

#[derive(Args)]
pub(crate) struct RunArgs {
    /// The campaign directory (made by `mutate init`).
    pub dir: PathBuf,
    /// Cores to keep busy: a slot per core unless --slots says fewer; the
    /// baseline's seeds, and with --all-seeds a mutant's, run side by side on
    /// the cores no slot holds (gem5 runs on one core). A slot with a spare
    /// core builds the next mutant while the last one's seeds run there
    /// (from a copy of its binary).
    #[arg(short = 'j', long = "jobs", default_value_t = 1, value_parser = |s: &str| super::parse_count(s, 1, 256))]
    pub jobs: usize,
    /// Slots: private gem5 copies, each building and running one mutant at a
    /// time (each costs a copy of the tree and its build directory; default:
    /// one per core). Fewer slots than cores leave cores for seeds, and for
    /// building one mutant while the previous one runs (`-j 2 --slots 1`).
    #[arg(long, value_parser = |s: &str| super::parse_count(s, 1, 256))]
    pub slots: Option<usize>,
    /// Run only shard K of N (mutants by sorted id, every N-th from K):
    /// independent processes, e.g. a Slurm array, each with its own log.
    #[arg(long, value_parser = super::parse_shard, default_value = "0/1")]
    pub shard: (usize, usize),
    /// Where the slots live (default: DIR/slots); node-local scratch on a
    /// cluster.
    #[arg(long)]
    pub slot_dir: Option<PathBuf>,
    /// Run these mutants before the others, in this order: ids, unique
    /// prefixes of 4 digits or more, or catalogue names, comma-separated
    /// or the option given again (`--first MH-1,MH-2`). The rest follow by
    /// id; a mutant done already is not run again.
    #[arg(long, value_name = "MUTANT,...", value_delimiter = ',')]
    pub first: Vec<String>,
}

#[derive(Args)]
pub(crate) struct DirArgs {
    /// The campaign directory.
    pub dir: PathBuf,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("class").required(true).args(["equivalent", "gap", "clear"])))]
pub(crate) struct ClassifyArgs {
    /// The campaign directory.
    pub dir: PathBuf,
    /// The survivors: mutant ids, unique prefixes of them (4 digits or
    /// more), or catalogue names (`ME-8`).
    #[arg(required = true)]
    pub mutants: Vec<String>,
    /// No program tells these mutants from the protocol; REASON says why
    /// (e.g. "the action only profiles").
    #[arg(long, value_name = "REASON")]
    pub equivalent: Option<String>,
    /// A program could tell them, the campaign's runs did not; REASON says
    /// what they miss (e.g. "no run evicts from L2").
    #[arg(long, value_name = "REASON")]
    pub gap: Option<String>,
    /// Take their class back.
    #[arg(long)]
    pub clear: bool,
}

/// `mutate classify`: records survivors as equivalent or a stimulus gap
/// (`survivors.toml`), which `mutate report` counts.
pub(crate) fn classify(args: &ClassifyArgs) -> i32 {
    use memconform_mutate::campaign::{Class, Classified};
    let what = match (&args.equivalent, &args.gap) {
        (Some(r), _) => Some(Classified {
            class: Class::Equivalent,
            reason: r.clone(),
        }),
        (None, Some(r)) => Some(Classified {
            class: Class::Gap,
            reason: r.clone(),
        }),
        (None, None) => None,
    };
    let done = Campaign::open(&args.dir).and_then(|c| {
        let s = State::of(&c)?;
        c.classify(&s, &args.mutants, what.clone())
    });
    match done {
        Ok(ids) => {
            let said = match &what {
                Some(k) => format!("{}: {}", k.class, k.reason),
                None => "not classified".to_string(),
            };
            for id in ids {
                say!("{id}: {said}");
            }
            say!(
                "written: {} (`mutate report` counts it)",
                memconform_report::shown_path(&args.dir.join(campaign::SURVIVORS))
            );
            exit::CONSISTENT
        }
        Err(e) => {
            say!("memconform mutate classify: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// `mutate run`: the baseline, then every mutant not yet done; a first
/// Ctrl-C, SIGTERM or SIGHUP stops after the runs in flight (resume with
/// the same command), exit 128 + the signal. A shard another process runs
/// is refused with exit 7, naming it.
pub(crate) fn run(args: &RunArgs) -> i32 {
    let c = match Campaign::open(&args.dir) {
        Ok(c) => c,
        Err(e) => {
            say!("memconform mutate run: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let lock = match ShardLock::take(&c, args.shard) {
        Ok(l) => l,
        Err(LockError::Busy(why)) => {
            say!("memconform mutate run: {why}");
            return exit::BUSY;
        }
        Err(LockError::Io(e)) => {
            say!("memconform mutate run: {e}");
            return exit::INPUT_ERROR;
        }
    };
    static STOP: AtomicBool = AtomicBool::new(false);
    super::signals::cooperate(|sig| {
        STOP.store(true, Ordering::SeqCst);
        say!(
            "memconform: {}: stopping after the runs in flight (a second signal quits now); `mutate run` resumes",
            super::signals::name(sig)
        );
    });
    let progress = |line: &str| say!("{line}");
    let slots = args.slots.unwrap_or(args.jobs);
    let o = RunOptions {
        slots,
        cores: args.jobs.max(slots),
        shard: args.shard,
        slot_dir: args.slot_dir.clone(),
        first: args.first.clone(),
        stop: &STOP,
        progress: &progress,
    };
    let ran = campaign::run_locked(&c, &o, &lock);
    let stopped = super::signals::received();
    match ran {
        Ok(n) => {
            say!("{n} mutants finished in this run");
            match stopped {
                Some(sig) => super::signals::code(sig),
                None => exit::CONSISTENT,
            }
        }
        Err(e) => {
            say!("memconform mutate run: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// How fast the campaign goes, and what is left at that pace: the wall time
/// of its `mutate run`s over the mutants done that were built (a mutant
/// ended without a build, `no_coverage` or `unreached`, takes no time), and
/// the pending ones as many of them built as of those done. `None` before
/// any was built or when none is pending.
fn pace(c: &Campaign, s: &State) -> Result<Option<String>, campaign::Error> {
    let pending = c.mutants.len() - s.status.len();
    let built: std::collections::BTreeSet<String> = c
        .events()?
        .into_iter()
        .filter_map(|e| match e {
            campaign::Event::Built { mutant, .. } => Some(mutant),
            _ => None,
        })
        .collect();
    let done_built = s.status.keys().filter(|m| built.contains(*m)).count();
    let wall: f64 = c.sessions()?.iter().map(|x| x.wall_s).sum();
    if done_built == 0 || pending == 0 || wall <= 0.0 {
        return Ok(None);
    }
    let per = wall / done_built as f64;
    let share = done_built as f64 / s.status.len() as f64;
    let left = pending as f64 * share * per;
    Ok(Some(format!(
        "pace: {} done in {} of `mutate run` ({} a mutant built and run, {done_built} of them); \
         about {} left for the {pending} pending",
        s.status.len(),
        duration(wall),
        duration(per),
        duration(left)
    )))
}

/// Seconds as a person reads them: `42 s`, `17 min`, `5 h 40 min`.
fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=5399 => format!("{} min", (s + 30) / 60),
        _ => {
            let m = (s + 30) / 60;
            format!("{} h {} min", m / 60, m % 60)
        }
    }
}

/// `mutate status`: mutants done, pending and by status.
pub(crate) fn status(args: &DirArgs) -> i32 {
    use std::fmt::Write as _;
    let state = Campaign::open(&args.dir).and_then(|c| {
        let s = State::of(&c)?;
        let mut counts = std::collections::BTreeMap::new();
        for st in s.status.values() {
            *counts.entry(st.name()).or_insert(0usize) += 1;
        }
        let done = s.status.len();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} mutants, {done} done, {} pending; baseline {} of {} seeds run",
            c.settings.protocol,
            c.mutants.len(),
            c.mutants.len() - done,
            s.baseline.len(),
            c.settings.seeds.len()
        );
        for (name, n) in counts {
            let _ = writeln!(out, "  {name:<10} {n}");
        }
        if let Some(line) = pace(&c, &s)? {
            let _ = writeln!(out, "{line}");
        }
        if let Some(edits) = c.base_edits()? {
            let _ = writeln!(out, "base edits ({}):", campaign::BASE_EDITS);
            for e in &edits.entries {
                let _ = writeln!(out, "  {e}");
            }
        }
        let jobs = memconform_mutate::slurm::submissions(&c);
        if let Some(last) = jobs.last() {
            let _ = writeln!(
                out,
                "slurm: {} submissions; the last: {} shards of {}, arrays {}, merge {}",
                jobs.len(),
                last.shards.len(),
                last.of,
                last.arrays.join(", "),
                last.merge
            );
            match memconform_mutate::slurm::task_states(&c) {
                Some(states) if states.is_empty() => {
                    let _ = writeln!(out, "  no task of it is queued or known to sacct");
                }
                Some(states) => {
                    for (task, state) in states {
                        let _ = writeln!(out, "  {task:<16} {state}");
                    }
                }
                None => {
                    let _ = writeln!(out, "  (no squeue or sacct here to ask)");
                }
            }
        }
        Ok(out)
    });
    match state {
        Ok(text) => print_out("mutate status", &text, exit::CONSISTENT),
        Err(e) => {
            say!("memconform mutate status: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// Writes `text` to standard output; `code` when it was written, else as
/// [`super::write_failed`] says (141 for a closed pipe).
fn print_out(command: &str, text: &str, code: i32) -> i32 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => code,
        Err(e) => super::write_failed(command, "the output", &e),
    }
}

/// `mutate report`: writes the reports into the campaign directory and
/// prints the text one. Exit 0 when every mutant is done, 6 while some are
/// pending.
pub(crate) fn report(args: &DirArgs) -> i32 {
    // the reports go beside what they are made from, never over it
    memconform_report::protect(&campaign_inputs(&args.dir));
    let done = Campaign::open(&args.dir).and_then(|c| {
        let s = State::of(&c)?;
        let text = memconform_mutate::report::write_all(&s)?;
        Ok((
            text,
            s.status.len() == c.mutants.len()
                && !s.status.values().any(|&st| st == Status::Unknown),
        ))
    });
    match done {
        Ok((text, true)) => print_out("mutate report", &text, exit::CONSISTENT),
        Ok((text, false)) => print_out("mutate report", &text, exit::UNKNOWN),
        Err(e) => {
            say!("memconform mutate report: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// What `mutate report` and `mutate slurm` read in campaign `dir`: its
/// settings, mutants, patches, event logs and runs (every file under
/// `runs/`), which their outputs must not touch.
fn campaign_inputs(dir: &std::path::Path) -> memconform_report::Inputs {
    let mut inputs = memconform_report::Inputs::new();
    for name in [
        "campaign.toml",
        "mutants.jsonl",
        "base.patch",
        campaign::BASE_EDITS,
        campaign::BASE_EDITS_PATCH,
        "patches",
        "runs",
    ] {
        inputs.add(&dir.join(name));
    }
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if n.starts_with("events-") && n.ends_with(".jsonl") {
                inputs.add(&e.path());
            }
        }
    }
    inputs
}

#[derive(Args)]
pub(crate) struct InitArgs {
    /// The campaign directory to create (new or empty).
    pub dir: PathBuf,
    /// Your gem5 tree (a git clone): read, never written; slots are
    /// shared clones of it with your uncommitted changes applied.
    #[arg(long, value_name = "DIR")]
    pub gem5_root: PathBuf,
    /// The protocol to mutate (its `.slicc` under src/mem/ruby/protocol).
    #[arg(long)]
    pub protocol: String,
    /// Your build command, run by `sh -c` at a slot's root, e.g.
    /// 'scons build/NULL/gem5.opt -j2'.
    #[arg(long, value_name = "COMMAND")]
    pub build: String,
    /// The binary your build makes, relative to the tree, e.g.
    /// build/NULL/gem5.opt (an .opt or .debug build: .fast has no traces).
    #[arg(long, value_name = "PATH")]
    pub gem5: String,
    /// Your run command, run by `sh -c` at a slot's root, with {gem5} (the
    /// slot's binary), {gem5_root} (the slot), {outdir}, {seed} and
    /// {mutant}; it must leave a gem5 output directory with a RubyTest
    /// trace in {outdir} (see gem5-configs/README.md).
    #[arg(long, value_name = "TEMPLATE")]
    pub run: String,
    /// The seeds each mutant runs, until the first kill (see --all-seeds).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    pub seeds: Vec<u64>,
    /// Run with stimuli (`memconform stimulus`'s stimuli.toml): the seeds are
    /// theirs, --run holds their knobs as {KNOB}, a mutant runs only the seeds
    /// whose baseline run took one of its transitions, and one no stimulus
    /// reaches is `unreached`, with the closest attempt.
    #[arg(long, value_name = "FILE", conflicts_with = "seeds")]
    pub stimuli: Option<PathBuf>,
    /// With --stimuli: before a mutant no stimulus reaches is `unreached`, search the
    /// stimuli's knobs with up to N clean runs (of the baseline's binary) for one that takes
    /// its transitions; a clean, consistent run that does runs the mutant.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "stimuli")]
    pub reach: usize,
    /// With --stimuli: a survivor whose transitions its runs took gets N more runs, each a
    /// stimulus that took them with the knob file's [follow-up] values set over it (values
    /// that leave a bug visible: no fences, no locked RMWs) and a seed of its own; the first
    /// that kills ends it (`mutate follow-up` sets this on a campaign begun without it).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "stimuli")]
    pub follow_up: usize,
    /// A build directory of your tree copied into each new slot (cp
    /// --reflink=auto), so that its builds are incremental, e.g. build/NULL.
    #[arg(long, value_name = "DIR")]
    pub seed_build_dir: Option<String>,
    /// A command run at a slot's root after the patch, before the build
    /// ({gem5_root}: the slot); a failure makes the mutant unviable, e.g.
    /// gem5's own SLICC: 'python3 gem5-configs/slicc_check.py --gem5-root
    /// {gem5_root} --protocol MI_example'.
    #[arg(long, value_name = "COMMAND")]
    pub precheck: Option<String>,
    /// Seconds a build may take.
    #[arg(long, default_value_t = 3600)]
    pub build_timeout: u64,
    /// Seconds a slot's first build may take: it redoes what the copied
    /// build directory cannot reuse (for gem5, every file that embeds its
    /// absolute path: about 70 minutes on 2 cores, once per slot).
    #[arg(long, default_value_t = memconform_mutate::campaign::first_build_timeout())]
    pub first_build_timeout: u64,
    /// Seconds a run may take with a CPU (default: max(60, 3 × the slowest baseline run)); time it waits for one on a loaded machine does not count.
    #[arg(long)]
    pub run_timeout: Option<u64>,
    /// The models each run is checked against.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "cc,ccv,cm,ccm,wccm,wsc,sc,tso,pso"
    )]
    pub models: Vec<String>,
    /// Run every seed of each mutant (kill rates), not only up to the first kill.
    #[arg(long)]
    pub all_seeds: bool,
    /// Build and run every mutant, even one whose transitions no baseline
    /// seed took (by default such a mutant is `no_coverage`: gem5 is
    /// deterministic, so it would run exactly as the baseline).
    #[arg(long)]
    pub no_coverage: bool,
    /// Check each mutant's run while gem5 writes it and stop gem5 at the
    /// first violation that counts (as `memconform watch` does; run the SE
    /// client with `--stream on`). Saves the rest of the simulation, but a
    /// stopped run (exit kind `stopped`) cannot show whether gem5's own
    /// checks would have caught the bug: it never counts as memconform-only.
    #[arg(long)]
    pub stop_at_violation: bool,
    /// Mutant classes (see `mutate list --help`).
    #[arg(long, value_delimiter = ',', default_value = "tier1")]
    pub classes: Vec<String>,
    /// Mutate DMA controllers too.
    #[arg(long)]
    pub dma: bool,
    /// Only the named catalogue mutants (MI-1.., ME-1..), ids as usual.
    #[arg(long, conflicts_with = "with_catalogue")]
    pub catalogue: bool,
    /// The catalogue mutants too, beside the selected ones (e.g. a Tier-1
    /// --sample plus MI-1..6); a generated mutant that is a catalogue bug
    /// carries its name either way.
    #[arg(long)]
    pub with_catalogue: bool,
    /// Every mutant tagged `needs:o3` too (edits of code guarded by
    /// send_evictions, which only an O3 CPU exercises), beside the selected
    /// ones: an O3 campaign's core, e.g. with a Tier-1 --sample.
    #[arg(long, conflicts_with = "catalogue")]
    pub with_o3: bool,
    /// Only these mutant ids (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub only: Vec<String>,
    /// A configuration mutant: gem5 run with `--param PATH=VALUE` (se.py's
    /// option; no patch, no rebuild), e.g. 'system.cpu[:].needsTSO=False'.
    /// Repeatable; added beside the selected SLICC mutants. The run
    /// template's `{params}` places the options (else they go at its end).
    #[arg(long = "param", value_name = "PATH=VALUE")]
    pub params: Vec<String>,
    /// A sample of N mutants, drawn by --sample-seed (the same N and seed
    /// draw the same mutants).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    #[arg(long, default_value_t = 0)]
    pub sample_seed: u64,
    /// With --sample: stratified by operator (one of each operator, the
    /// rest in proportion to how many each has), so a few large operators
    /// do not crowd out the others.
    #[arg(long, requires = "sample")]
    pub stratify: bool,
    /// A base-edit file (see `mutate apply-edits --help`): edits of the
    /// protocol's transitions applied to the campaign's base before its
    /// mutants are made and its baseline runs; kept in the campaign
    /// (base.edits) with the diff they make (base-edits.patch).
    #[arg(long, value_name = "FILE")]
    pub base_edits: Option<PathBuf>,
}

/// Names each catalogue bug of `named` where its edit is among `mutants`
/// (two names of one edit join: `ME-4=ME-8`); with `add`, a bug whose edit
/// is not among them is added, named.
fn name_catalogue(
    mutants: &mut Vec<memconform_mutate::Mutant>,
    named: Vec<(String, memconform_mutate::Mutant)>,
    add: bool,
) {
    for (name, mut m) in named {
        match mutants.iter_mut().find(|g| g.id == m.id) {
            Some(g) => g.tag_catalogue(&name),
            None if add => {
                m.tag_catalogue(&name);
                mutants.push(m);
            }
            None => {}
        }
    }
}

/// The configuration mutants of a campaign of `protocol` whose runs are
/// `run`: the catalogue's (named) when `catalogue` and the runs use se.py,
/// then one per `--param`.
fn config_mutants(
    protocol: &str,
    catalogue: bool,
    run: &str,
    params: &[String],
) -> Result<Vec<memconform_mutate::Mutant>, String> {
    let mut out = Vec::new();
    if catalogue && run.contains("se.py") {
        for (n, mut m) in memconform_mutate::catalogue::config_catalogue(protocol) {
            m.tag_catalogue(&n);
            out.push(m);
        }
    }
    for p in params {
        out.push(memconform_mutate::Mutant::config(p).map_err(|e| format!("--param: {e}"))?);
    }
    Ok(out)
}

/// `mutate init`: generates the mutants and writes the campaign.
pub(crate) fn init(args: &InitArgs) -> i32 {
    use memconform_mutate::base_edits;
    // the protocol as the campaign's base holds it: the base edits applied
    let edits = match args.base_edits.as_deref().map(base_edits::load).transpose() {
        Ok(e) => e,
        Err(e) => {
            say!("memconform mutate init: --base-edits: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let (protocol, applied) =
        match base_edits::load_protocol(&args.gem5_root, &args.protocol, edits.as_ref()) {
            Ok(loaded) => loaded,
            Err(e) => {
                say!("memconform mutate init: {e}");
                return exit::INPUT_ERROR;
            }
        };
    let mutants = if args.catalogue {
        memconform_mutate::catalogue::resolve(&protocol).map(|named| {
            let mut out = Vec::new();
            name_catalogue(&mut out, named, true);
            out
        })
    } else {
        let opts = memconform_mutate::Options {
            classes: args.classes.clone(),
            include_dma: args.dma,
        };
        memconform_mutate::ops::generate_from(&protocol, &opts)
    };
    let mut mutants = match mutants {
        Ok(m) => m,
        Err(e) => {
            say!("memconform mutate init: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let o3: Vec<memconform_mutate::Mutant> = if args.with_o3 {
        mutants
            .iter()
            .filter(|m| m.class.split('+').any(|tag| tag == "needs:o3"))
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    if !args.only.is_empty() {
        let unknown: Vec<&String> = args
            .only
            .iter()
            .filter(|id| !mutants.iter().any(|m| &m.id == *id))
            .collect();
        if !unknown.is_empty() {
            say!(
                "memconform mutate init: no mutant with id {}",
                unknown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return exit::INPUT_ERROR;
        }
        mutants.retain(|m| args.only.contains(&m.id));
    }
    if let Some(n) = args.sample {
        // by the hash of seed and id: the same sample every time
        mutants = if args.stratify {
            memconform_mutate::sample::stratified(mutants, n, args.sample_seed)
        } else {
            memconform_mutate::sample::plain(mutants, n, args.sample_seed)
        };
    }
    for m in o3 {
        if !mutants.iter().any(|g| g.id == m.id) {
            mutants.push(m);
        }
    }
    if !args.catalogue {
        // name the catalogue's bugs wherever they appear; a protocol without
        // a catalogue, or one that does not resolve, names none
        let named = memconform_mutate::catalogue::resolve(&protocol);
        let named = match named {
            Ok(named) => named,
            Err(e) if args.with_catalogue => {
                say!("memconform mutate init: --with-catalogue: {e}");
                return exit::INPUT_ERROR;
            }
            Err(_) => Vec::new(),
        };
        name_catalogue(&mut mutants, named, args.with_catalogue);
    }
    match config_mutants(
        &args.protocol,
        args.catalogue || args.with_catalogue,
        &args.run,
        &args.params,
    ) {
        Ok(config) => {
            memconform_mutate::merge(&mut mutants, config);
        }
        Err(e) => {
            say!("memconform mutate init: {e}");
            return exit::INPUT_ERROR;
        }
    }
    mutants.sort_by(|a, b| a.id.cmp(&b.id));
    let (seeds, stimuli, knobs) = match &args.stimuli {
        None => (args.seeds.clone(), Vec::new(), None),
        Some(f) => match read_stimuli(f, &args.run) {
            Ok(k) => (
                k.stimuli.iter().map(|k| k.seed).collect(),
                k.stimuli,
                Some(k.space),
            ),
            Err(e) => {
                say!("memconform mutate init: {e}");
                return exit::INPUT_ERROR;
            }
        },
    };
    let settings = campaign::Settings {
        protocol: args.protocol.clone(),
        gem5_root: args
            .gem5_root
            .canonicalize()
            .unwrap_or_else(|_| args.gem5_root.clone()),
        base_commit: String::new(),
        build: args.build.clone(),
        gem5: args.gem5.clone(),
        precheck: args.precheck.clone(),
        seed_build_dir: args.seed_build_dir.clone(),
        run: args.run.clone(),
        seeds,
        build_timeout_s: args.build_timeout,
        first_build_timeout_s: args.first_build_timeout,
        run_timeout_s: args.run_timeout,
        models: args.models.clone(),
        all_seeds: args.all_seeds,
        coverage: !args.no_coverage,
        stop_at_violation: args.stop_at_violation,
        stimuli,
        knobs,
        reach_runs: args.reach,
        follow_up_runs: args.follow_up,
    };
    let recorded = edits.as_ref().zip(applied.as_ref());
    match Campaign::init_with_edits(&args.dir, settings, mutants, recorded) {
        Ok(c) => {
            if let Some(applied) = &applied {
                for (entry, sites) in &applied.changes {
                    say!("base edit {entry} changed {} transitions", sites.len());
                }
            }
            let mut by_op = std::collections::BTreeMap::new();
            for m in &c.mutants {
                *by_op.entry(m.op.as_str()).or_insert(0usize) += 1;
            }
            say!(
                "campaign {}: {} mutants of {} ({}), base {}; next: memconform mutate run {}",
                super::shown(&args.dir),
                c.mutants.len(),
                args.protocol,
                by_op
                    .iter()
                    .map(|(op, n)| format!("{op} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                &c.settings.base_commit[..c.settings.base_commit.len().min(12)],
                super::shown(&args.dir)
            );
            if let Some(advice) = linker_advice(&c.settings.build, &search_path()) {
                say!("{advice}");
            }
            if let Some(advice) = strip_advice(&c.settings.build) {
                say!("{advice}");
            }
            exit::CONSISTENT
        }
        Err(e) => {
            say!("memconform mutate init: {e}");
            exit::INPUT_ERROR
        }
    }
}

#[derive(Args)]
pub(crate) struct SlurmArgs {
    /// The campaign directory (made by `mutate init`, on a file system the
    /// nodes share).
    pub dir: PathBuf,
    /// Array tasks: each runs one shard (mutants by sorted id, every N-th).
    #[arg(long, value_parser = |s: &str| super::parse_count(s, 1, 1_000_000))]
    pub shards: usize,
    /// At most M tasks at once (`--array=...%M`): spares the shared file
    /// system and your fair share.
    #[arg(long, value_name = "M")]
    pub throttle: Option<usize>,
    #[arg(long)]
    pub partition: Option<String>,
    /// A task's time limit, in Slurm's format (e.g. 8:00:00): a shard's
    /// mutants × (build + seeds × run).
    #[arg(long)]
    pub time: Option<String>,
    #[arg(long, default_value_t = 2)]
    pub cpus_per_task: usize,
    /// Submit only the shards with mutants not done (after failed or
    /// cancelled tasks); the same --shards as before.
    #[arg(long)]
    pub resume: bool,
    /// The cluster's MaxArraySize (default: from `scontrol show config`,
    /// else 1001).
    #[arg(long)]
    pub max_array_size: Option<usize>,
}

/// The cluster's MaxArraySize, from `scontrol show config`.
fn max_array_size() -> Option<usize> {
    let o = std::process::Command::new("scontrol")
        .args(["show", "config"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.trim_start().starts_with("MaxArraySize"))
        .and_then(|l| l.split('=').nth(1))
        .and_then(|v| v.trim().parse().ok())
}

/// `mutate slurm`: writes the scripts and submits the array and the merge job.
pub(crate) fn slurm(args: &SlurmArgs) -> i32 {
    // the scripts go beside the campaign, never over it
    memconform_report::protect(&campaign_inputs(&args.dir));
    let c = match Campaign::open(&args.dir) {
        Ok(c) => c,
        Err(e) => {
            say!("memconform mutate slurm: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let o = memconform_mutate::slurm::SlurmOptions {
        shards: args.shards,
        throttle: args.throttle,
        partition: args.partition.clone(),
        time: args.time.clone(),
        cpus_per_task: args.cpus_per_task,
        resume: args.resume,
        max_array_size: args.max_array_size.or_else(max_array_size).unwrap_or(1001),
        memconform: std::env::current_exe().unwrap_or_else(|_| "memconform".into()),
        sbatch: "sbatch".into(),
    };
    match memconform_mutate::slurm::submit(&c, &o) {
        Ok(s) => print_out(
            "mutate slurm",
            &format!(
                "submitted {} shards of {} as array job(s) {}; the reports: job {} (after them)\n",
                s.shards.len(),
                s.of,
                s.arrays.join(", "),
                s.merge
            ),
            exit::CONSISTENT,
        ),
        Err(e) => {
            say!("memconform mutate slurm: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// The directories of `PATH`.
fn search_path() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default()
}

/// A note for a SCons build command that links with the default linker
/// (GNU ld, the slowest): every mutant relinks the whole gem5 binary, and
/// gem5's SCons takes `--linker=mold|lld|gold`; names those installed in
/// `path` (docs/design/campaigns.md §6, "Builds", has the measurements: a
/// MESI_Two_Level mutant's rebuild 166 s with GNU ld, 49 s with mold).
fn linker_advice(build: &str, path: &[PathBuf]) -> Option<String> {
    if !build.contains("scons") || build.contains("--linker") || build.contains("--gold-linker") {
        return None;
    }
    let installed: Vec<&str> = [("mold", "ld.mold"), ("lld", "ld.lld"), ("gold", "ld.gold")]
        .into_iter()
        .filter(|(_, exe)| path.iter().any(|d| d.join(exe).is_file()))
        .map(|(name, _)| name)
        .collect();
    let mut note = String::from(
        "note: the build links with the default linker (GNU ld), and every mutant relinks \
         gem5 (a MESI_Two_Level mutant's rebuild: 166 s with GNU ld, 49 s with mold): \
         gem5's SCons takes --linker=mold, lld or gold",
    );
    match installed.first() {
        Some(fast) => note.push_str(&format!(
            " ({} installed here: add --linker={fast} to --build)",
            installed.join(", ")
        )),
        None => note.push_str(" (none installed here; Debian: apt install mold)"),
    }
    Some(note)
}

/// A note for a SCons build command that links gem5's debug information
/// into every mutant's binary: `LINKFLAGS_EXTRA=-Wl,--strip-debug` (an
/// environment variable gem5's SCons reads) leaves it out at the link, so
/// nothing recompiles (docs/design/campaigns.md §6, "Builds": a
/// MESI_Two_Level mutant's rebuild with mold 98 s with debug information,
/// 41 s without; the binary 832 MB and 44 MB).
fn strip_advice(build: &str) -> Option<String> {
    if !build.contains("scons")
        || build.contains("strip-debug")
        || build.contains("LINKFLAGS_EXTRA")
    {
        return None;
    }
    Some(
        "note: every mutant's link writes gem5's debug information (an 832 MB X86 gem5.opt): \
         start --build with LINKFLAGS_EXTRA=-Wl,--strip-debug (gem5's SCons reads it from the \
         environment; only the link changes, nothing recompiles) for a 44 MB binary and a \
         MESI_Two_Level mutant's rebuild of 41 s instead of 98 s (mold, same machine); traces, \
         panics and statistics are the same, only a debugger loses its symbols"
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::{duration, linker_advice, strip_advice};

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(duration(0.4), "0 s");
        assert_eq!(duration(119.0), "119 s");
        assert_eq!(duration(120.0), "2 min");
        assert_eq!(duration(5399.0), "90 min");
        assert_eq!(duration(5400.0), "1 h 30 min");
        assert_eq!(duration(19_680.0), "5 h 28 min");
        assert_eq!(duration(7_199.0), "2 h 0 min");
    }

    #[test]
    fn debug_information_in_the_link_is_noted() {
        let note = strip_advice("scons build/NULL/gem5.opt -j2 --linker=mold").unwrap();
        assert!(note.contains("LINKFLAGS_EXTRA=-Wl,--strip-debug"), "{note}");
        let stripped = "LINKFLAGS_EXTRA=-Wl,--strip-debug scons build/NULL/gem5.opt --linker=mold";
        assert!(strip_advice(stripped).is_none());
        assert!(strip_advice("make -C mybuild").is_none());
    }
    use std::path::PathBuf;

    #[test]
    fn the_default_linker_is_noted_with_what_is_installed() {
        let dir = std::env::temp_dir().join(format!("memconform-linker-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ld.gold"), "").unwrap();
        let path = [dir.clone()];
        let note = linker_advice("scons build/NULL/gem5.opt -j2", &path).unwrap();
        assert!(note.contains("add --linker=gold"), "{note}");
        let none: [PathBuf; 0] = [];
        let note = linker_advice("scons build/NULL/gem5.opt -j2", &none).unwrap();
        assert!(note.contains("none installed"), "{note}");
        assert!(linker_advice("scons build/NULL/gem5.opt --linker=mold", &path).is_none());
        assert!(linker_advice("make -C mybuild", &path).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[derive(Args)]
pub(crate) struct AddArgs {
    /// The campaign directory (made by `mutate init`).
    pub dir: PathBuf,
    /// The protocol's catalogue bugs (and, for se.py runs, the
    /// configuration catalogue), resolved against the campaign's gem5 root.
    #[arg(long)]
    pub catalogue: bool,
    /// These mutant ids, of any class (comma-separated; `mutate list
    /// --classes all` shows them).
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub only: Vec<String>,
    /// A configuration mutant, as `mutate init --param`. Repeatable.
    #[arg(long = "param", value_name = "PATH=VALUE")]
    pub params: Vec<String>,
}

#[derive(Args)]
pub(crate) struct RetryArgs {
    /// The campaign directory.
    pub dir: PathBuf,
    /// Mutants to run again: ids, unique prefixes of them (4 digits or
    /// more), or catalogue names (`ME-8`).
    pub mutants: Vec<String>,
    /// Every mutant of this status (killed, survived, timeout, unviable,
    /// no_coverage, unknown, unreached). Repeatable.
    #[arg(long, value_name = "STATUS", value_parser = parse_status)]
    pub status: Vec<Status>,
}

/// A mutant status by its report name.
fn parse_status(s: &str) -> Result<Status, String> {
    Status::from_name(s).ok_or_else(|| {
        format!(
            "`{s}` is no status: one of {}",
            Status::ALL.map(Status::name).join(", ")
        )
    })
}

/// `mutate retry`: sets mutants' ends aside, for the next `mutate run`.
pub(crate) fn retry(args: &RetryArgs) -> i32 {
    if args.mutants.is_empty() && args.status.is_empty() {
        say!("memconform mutate retry: nothing to retry: give mutant ids or --status STATUS");
        return exit::INPUT_ERROR;
    }
    match Campaign::retry(&args.dir, &args.mutants, &args.status) {
        Ok(again) if again.is_empty() => {
            say!("no mutant of the campaign has those statuses: nothing to retry");
            exit::CONSISTENT
        }
        Ok(again) => {
            for (id, was) in &again {
                say!("{id}: was {}; to build and run again", was.name());
            }
            say!(
                "{} mutant{} to run again: `memconform mutate run {}` runs {}",
                again.len(),
                if again.len() == 1 { "" } else { "s" },
                memconform_report::commands::shell_word(&args.dir.display().to_string()),
                if again.len() == 1 { "it" } else { "them" }
            );
            exit::CONSISTENT
        }
        Err(e) => {
            say!("memconform mutate retry: {e}");
            exit::INPUT_ERROR
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct FollowUpArgs {
    /// The campaign directory (made by `mutate init --stimuli`).
    pub dir: PathBuf,
    /// Follow-up runs per survivor (0: none).
    #[arg(long, value_name = "N")]
    pub runs: usize,
    /// A knob value the follow-up runs set over their stimulus (one of the knob's values).
    /// Repeatable; without it, the values the campaign has (the knob file's [follow-up]).
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
}

/// `mutate follow-up`: records the follow-up runs and values in
/// `campaign.toml`; the next `mutate run` runs them.
pub(crate) fn follow_up(args: &FollowUpArgs) -> i32 {
    let mut set = std::collections::BTreeMap::new();
    for kv in &args.set {
        let Some((k, v)) = kv.split_once('=') else {
            say!("memconform mutate follow-up: --set {kv}: expected KNOB=VALUE");
            return exit::INPUT_ERROR;
        };
        set.insert(k.trim().to_string(), v.trim().to_string());
    }
    match Campaign::set_follow_up(&args.dir, args.runs, &set) {
        Ok(c) => {
            let values = c
                .settings
                .knobs
                .as_ref()
                .map(|k| memconform_mutate::stimulus::knobs_text(&k.follow_up))
                .unwrap_or_default();
            say!(
                "campaign {}: {} follow-up runs per survivor{}; next: memconform mutate run {}",
                super::shown(&args.dir),
                args.runs,
                if values.is_empty() {
                    " (no knob values set over their stimuli)".to_string()
                } else {
                    format!(", with {values}")
                },
                super::shown(&args.dir)
            );
            exit::CONSISTENT
        }
        Err(e) => {
            say!("memconform mutate follow-up: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// `mutate add`: more mutants for an existing campaign, its baseline and
/// the mutants done kept.
pub(crate) fn add(args: &AddArgs) -> i32 {
    use memconform_mutate::{catalogue, Mutant};
    let fail = |e: &dyn std::fmt::Display| {
        say!("memconform mutate add: {e}");
        exit::INPUT_ERROR
    };
    if !args.catalogue && args.only.is_empty() && args.params.is_empty() {
        return fail(&"nothing to add: give --catalogue, --only IDS or --param PATH=VALUE");
    }
    let c = match Campaign::open(&args.dir) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let protocol = &c.settings.protocol;
    // the protocol as the campaign's slots hold it (its base edits applied)
    let p = match c.protocol() {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    // the catalogue, read once: what --catalogue adds, and the names of
    // the --only mutants that are catalogue bugs
    let named = if args.catalogue || !args.only.is_empty() {
        match catalogue::resolve(&p) {
            Ok(named) => named,
            Err(e) if args.catalogue => return fail(&e),
            Err(_) => Vec::new(),
        }
    } else {
        Vec::new()
    };
    let mut new: Vec<Mutant> = Vec::new();
    if !args.only.is_empty() {
        let opts = memconform_mutate::Options {
            classes: vec!["all".to_string()],
            include_dma: true,
        };
        let all = match memconform_mutate::ops::generate_from(&p, &opts) {
            Ok(all) => all,
            Err(e) => return fail(&e),
        };
        for id in &args.only {
            match all.iter().find(|m| &m.id == id) {
                Some(m) => new.push(m.clone()),
                None => return fail(&format!("no mutant of {protocol} with id {id}")),
            }
        }
    }
    name_catalogue(&mut new, named, args.catalogue);
    match config_mutants(protocol, args.catalogue, &c.settings.run, &args.params) {
        Ok(config) => new.extend(config),
        Err(e) => return fail(&e),
    }
    match Campaign::add(&args.dir, new) {
        Ok((c, added)) => {
            say!(
                "campaign {}: {} mutants added ({}), {} in all; next: memconform mutate run {}",
                super::shown(&args.dir),
                added.len(),
                if added.is_empty() {
                    "every one was there".to_string()
                } else {
                    added.join(", ")
                },
                c.mutants.len(),
                super::shown(&args.dir)
            );
            exit::CONSISTENT
        }
        Err(e) => fail(&e),
    }
}

/// The stimuli of `mutate init --stimuli FILE`, checked against the run
/// template: each knob's `{KNOB}` is in it.
fn read_stimuli(
    f: &std::path::Path,
    run: &str,
) -> Result<memconform_mutate::stimulus::Stimuli, String> {
    let text =
        std::fs::read_to_string(f).map_err(|e| format!("{}: cannot read: {e}", super::shown(f)))?;
    let k = memconform_mutate::stimulus::Stimuli::parse(&text, f)?;
    if let Some(knob) = k
        .space
        .knobs
        .iter()
        .find(|knob| !run.contains(&format!("{{{}}}", knob.name)))
    {
        return Err(format!(
            "--stimuli {}: the knob `{}` is not in --run (write {{{}}} where its value goes)",
            super::shown(f),
            knob.name,
            knob.name
        ));
    }
    Ok(k)
}
