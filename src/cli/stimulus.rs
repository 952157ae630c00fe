//! `memconform stimulus`: a search over a run command's knobs for the
//! settings that take the most protocol transitions, or given ones
//! (docs/design/campaigns.md §11).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, ValueEnum};

use super::exit;
use memconform_mutate::coverage;
use memconform_mutate::stimulus::search::{self, Settings};
use memconform_mutate::stimulus::{Space, Strategy};

#[derive(Clone, Copy, ValueEnum)]
enum StrategyArg {
    Bandit,
    Random,
}

#[derive(Args)]
#[command(after_help = "\
Random rounds reach some protocol transitions over and over and others never: a replacement \
needs a footprint larger than the cache, an invalidation from the L2 needs the L2 to evict, a \
race needs two cores on one line at once. The knobs of a run (the client's shape, footprint, \
sharing, fences; gem5's CPU count and cache sizes) decide which. This command searches them: \
each run is a setting (a value per knob) and a seed, run with --run, and scored by the \
transitions gem5 counted in its stats.txt.

The knobs are a TOML file: a [knobs] table, each knob a list of values, written into --run \
where {KNOB} stands, as they are (so they hold none of the shell's special characters):

  [knobs]
  shape = [\"mix\", \"mp\", \"sb\", \"iriw\", \"mp+sm\"]
  evict = [0, 256, 1024, 4096]
  sharing = [\"same-line\", \"own-line\"]
  cpus = [2, 4]

--run also gets {outdir} (required: gem5's -d, where stats.txt is read), {seed} (run N's seed is \
--first-seed + N - 1) and {run}. Runs start in the current directory.

Strategies: random draws each knob's value uniformly; bandit (the default) treats each knob as a \
multi-armed bandit over its values (discounted UCB1) rewarded by how rare the run's transitions \
were (each scores 1 / (1 + the runs that took it before)), so that values reaching the \
protocol's less-visited corners are drawn again. With --target, a run that takes a target not \
yet taken scores 1, and the search ends once every target is taken: the way to reach a \
mutant's transition in the clean build before its mutant runs.

OUT holds: search.toml (the settings), search.jsonl (a line per run: seed, knobs, exit, \
seconds, the transitions it took), runs/rN/ (each run's output), kept/rN/ (each run kept small: \
its counters and config.ini, which `memconform coverage OUT/kept/*` reads after runs/ is deleted), \
curve.csv \
(run,seed,new,taken,targets_taken: coverage as the runs went, for a plot against another \
strategy) and stimuli.toml: the fewest runs (greedily) that took every transition taken, each a \
setting and its seed. gem5 is deterministic, so each stimulus takes its transitions again: a \
campaign whose --run holds a stimulus's values and whose --seeds is its seed runs every mutant \
through exactly those transitions. With --protocol-dir, \
coverage.txt and coverage.csv set what was taken against what the protocol declares.

The same command resumes a search stopped by Ctrl-C or SIGTERM (the runs in flight are killed \
and run again); a larger --runs goes on. Other settings need a new OUT.

Exit status: 0 done; 1 targets given and some not taken; 2 bad input (the knob file as \
file:line:col, a template without {outdir} or with an unknown {NAME}, OUT holding another \
search); 130/143/129 stopped by Ctrl-C, SIGTERM or SIGHUP.

Examples:
  memconform stimulus search-o3 --knobs knobs.toml --runs 40 -j 2 \\
    --run '$GEM5 -d {outdir} $GEM5_ROOT/configs/deprecated/example/se.py --ruby -n {cpus} \\
      --cpu-type=X86O3CPU --cmd=client --options=\"--threads {cpus} --rounds 100 --seed {seed} \\
      --shape {shape} --sharing {sharing} --evict {evict}\"' \\
    --protocol-dir $GEM5_ROOT/src/mem/ruby/protocol
  memconform stimulus reach-me8 --knobs knobs.toml --run '...' --target L1Cache.SM.Inv --runs 30")]
pub struct StimulusArgs {
    /// The search's directory (made if missing; the same command resumes it).
    #[arg(value_name = "OUT")]
    out: PathBuf,

    /// The knobs: a TOML file with a [knobs] table of `name = [values]`.
    #[arg(long, value_name = "FILE")]
    knobs: PathBuf,

    /// The run command (sh -c): {outdir}, {seed}, {run} and a {KNOB} for each knob.
    #[arg(long, value_name = "TEMPLATE")]
    run: String,

    /// Runs in all (a resumed search counts those it made before).
    #[arg(long, default_value_t = 40, value_name = "N")]
    runs: usize,

    /// Runs at once (gem5 simulates on one core).
    #[arg(short = 'j', long, default_value_t = 1, value_name = "N")]
    jobs: usize,

    /// How settings are chosen.
    #[arg(long, value_enum, default_value = "bandit")]
    strategy: StrategyArg,

    /// Settings chosen before any of their results is learnt (with -j N, N or more keeps the
    /// cores busy; part of the search's settings).
    #[arg(long, default_value_t = 2, value_name = "N")]
    batch: usize,

    /// The chooser's seed.
    #[arg(long, default_value_t = 1, value_name = "S")]
    rng_seed: u64,

    /// Run N's seed ({seed}) is S + N - 1.
    #[arg(long, default_value_t = 1, value_name = "S")]
    first_seed: u64,

    /// A transition to reach, Machine.State.Event (stats.txt's
    /// system.ruby.L1Cache_Controller.SM.Inv is L1Cache.SM.Inv).
    #[arg(long, value_name = "M.S.E")]
    target: Vec<String>,

    /// Transitions to reach, one Machine.State.Event a line (`#` comments), e.g. the lines
    /// `memconform coverage --list` lists as not taken.
    #[arg(long, value_name = "FILE")]
    targets: Option<PathBuf>,

    /// Seconds a run may take with a CPU (then it is killed: a run without counters); time it waits for one on a loaded machine does not count.
    #[arg(long, default_value_t = 3600, value_name = "SECS")]
    run_timeout: u64,

    /// The protocol's SLICC files (gem5's src/mem/ruby/protocol or a gem5 root), for the
    /// coverage of what was taken against what is declared.
    #[arg(long, value_name = "DIR")]
    protocol_dir: Option<PathBuf>,

    /// The protocol (NAME of NAME.slicc), when config.ini does not say it.
    #[arg(long, value_name = "NAME")]
    protocol: Option<String>,
}

/// Runs `stimulus`; returns the exit code.
pub fn run(args: StimulusArgs) -> i32 {
    let fail = |msg: String| {
        say!("memconform stimulus: {msg}");
        exit::INPUT_ERROR
    };
    let text = match std::fs::read_to_string(&args.knobs) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: cannot read: {e}", super::shown(&args.knobs))),
    };
    let space = match Space::parse(&text, &args.knobs) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut targets = args.target.clone();
    if let Some(f) = &args.targets {
        match std::fs::read_to_string(f) {
            Ok(t) => targets.extend(
                t.lines()
                    .map(|l| l.split('#').next().unwrap_or("").trim())
                    .filter(|l| !l.is_empty())
                    .map(str::to_string),
            ),
            Err(e) => return fail(format!("{}: cannot read: {e}", super::shown(f))),
        }
    }
    for t in &targets {
        let parts: Vec<&str> = t.split('.').collect();
        if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
            return fail(format!(
                "target {t:?}: a transition is Machine.State.Event (L1Cache.SM.Inv)"
            ));
        }
    }
    targets.sort();
    targets.dedup();
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot tell the current directory: {e}")),
    };
    let settings = Settings {
        run: args.run.clone(),
        cwd,
        strategy: match args.strategy {
            StrategyArg::Bandit => Strategy::Bandit,
            StrategyArg::Random => Strategy::Random,
        },
        rng_seed: args.rng_seed,
        first_seed: args.first_seed,
        batch: args.batch,
        targets: targets.clone(),
        run_timeout_s: args.run_timeout,
        space,
    };
    static STOP: AtomicBool = AtomicBool::new(false);
    super::signals::cooperate(|sig| {
        STOP.store(true, Ordering::SeqCst);
        say!(
            "memconform: {}: stopping (the runs in flight are killed; a second signal quits now); \
             the same command resumes",
            super::signals::name(sig)
        );
    });
    let progress = |line: &str| say!("{line}");
    let o = search::Options {
        runs: args.runs,
        jobs: args.jobs,
        stop: &STOP,
        progress: &progress,
    };
    let out = match search::search(&args.out, &settings, &o) {
        Ok(out) => out,
        Err(e) => return fail(e),
    };
    let counted = search::counted_runs(&args.out, &out.records);
    let stimuli = args.out.join("stimuli.toml");
    say!(
        "memconform stimulus: {} runs ({}; {} now), {} transitions taken{}",
        out.records.len(),
        settings.strategy.name(),
        out.ran,
        out.taken.len(),
        if stimuli.exists() {
            format!(
                "; the stimuli that take them all: {}",
                super::shown(&stimuli)
            )
        } else {
            String::new()
        }
    );
    if !counted.is_empty() {
        match coverage::of_runs(
            &counted,
            args.protocol_dir.as_deref(),
            args.protocol.as_deref(),
        ) {
            Ok(table) => {
                let text = table.text(args.protocol_dir.is_some());
                for (name, bytes) in [
                    ("coverage.txt", text.as_bytes().to_vec()),
                    ("coverage.csv", table.csv().into_bytes()),
                ] {
                    let p = args.out.join(name);
                    if let Err(e) = memconform_report::write_atomic(&p, &bytes) {
                        return fail(format!("cannot write {}: {e}", super::shown(&p)));
                    }
                }
                print!("{}", coverage::summary_line(&table.summary()));
                println!();
            }
            Err(e) => say!("memconform stimulus: no coverage table: {e}"),
        }
    }
    if !out.targets_left.is_empty() {
        say!(
            "memconform stimulus: {} of {} targets not taken in {} runs: {}",
            out.targets_left.len(),
            targets.len(),
            out.records.len(),
            out.targets_left.join(", ")
        );
    }
    if let Some(sig) = super::signals::received() {
        return super::signals::code(sig);
    }
    if out.targets_left.is_empty() {
        exit::CONSISTENT
    } else {
        exit::VIOLATION
    }
}
