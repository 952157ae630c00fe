//! `memconform mutate`: mutation campaigns over gem5 SLICC protocols.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::exit;
use memconform_mutate::{self as mutate, catalogue, listing, Mutant, Options};

#[derive(Args)]
pub struct MutateArgs {
    #[command(subcommand)]
    command: MutateCommand,
}

/// The `mutate` subcommands.
#[derive(Subcommand)]
enum MutateCommand {
    /// List a protocol's mutants: counts per operator and class, then each site.
    #[command(long_about = LIST_ABOUT, after_long_help = LIST_HELP)]
    List(ListArgs),
    /// Create a campaign: the mutants, their patches, your build and run commands, the seeds.
    #[command(after_long_help = CAMPAIGN_HELP)]
    Init(Box<super::campaign::InitArgs>),
    /// Add mutants to a campaign (its baseline and finished mutants kept).
    Add(super::campaign::AddArgs),
    /// Run a campaign (or resume it): the baseline, then each mutant not done.
    #[command(after_long_help = CAMPAIGN_HELP)]
    Run(super::campaign::RunArgs),
    /// A campaign's progress: mutants done, pending, by status; its Slurm jobs.
    Status(super::campaign::DirArgs),
    /// Write a campaign's reports: report.txt, kill-matrix.csv, histories.csv, ...
    Report(super::campaign::DirArgs),
    /// Run a campaign as a Slurm job array (one shard per task) and a merge job.
    #[command(after_long_help = CAMPAIGN_HELP)]
    Slurm(super::campaign::SlurmArgs),
}

const CAMPAIGN_HELP: &str = "\
A campaign directory holds campaign.toml (the settings), mutants.jsonl and patches/ID.diff (the \
mutants), base.patch (your uncommitted changes), append-only event logs events-K.jsonl, and \
runs/ID/ (each mutant's build log, the output of its killing seed, every run's history rows). \
Your gem5 tree is never written: slots are `git clone --shared` copies of it.

Per mutant: patch (refused if the file is not the one the mutant was made from), pre-check \
(optional), build, then the seeds until the first kill (--all-seeds: every seed); each run is \
checked by memconform on its real-time view and classified by the first matching outcome: \
violation:<model> (the weakest model violated), tester_check, protocol_panic (Invalid \
transition, a SLICC assert), deadlock, crash, timeout (reported apart), unknown, survived.

One process runs a shard at a time: `mutate run` locks lock-K in the campaign directory for \
shard K (and refuses while a run with another shard count holds any shard); a second run of it \
is refused with exit 7, naming the holder's pid and host. The lock ends with its process, \
however it ends (kill -9 included), so the next `mutate run` resumes with nothing to clear.

Exit status of `mutate run`: 0 the shard is done, 2 an error (the campaign, the baseline), 7 \
another process runs the shard, 130/143/129 stopped by Ctrl-C, SIGTERM or SIGHUP (128 + the \
signal) after the runs in flight: they are killed and run again on resume, the event log holds \
every finished step. `mutate report`: 0 every mutant done, 6 some pending or unknown.

Example:
  memconform mutate init camp --gem5-root $GEM5_ROOT --protocol MI_example \\
      --build 'scons build/NULL/gem5.opt -j2' --gem5 build/NULL/gem5.opt \\
      --seed-build-dir build/NULL --seeds 1,2,3 \\
      --run '{gem5} -d {outdir} --debug-flags=RubyTest --debug-file=trace.txt \\
        $MC/gem5-configs/seeded_random_test.py --gem5-root {gem5_root} \\
        --seed {seed} -n 4 --maxloads 2000'
  memconform mutate run camp -j 2        # Ctrl-C (or SIGTERM) stops; the same command resumes
  memconform mutate report camp
  memconform mutate add camp --only 106cededdabe   # more mutants later: the baseline is kept
  memconform mutate slurm camp --shards 16 --throttle 8 --time 8:00:00   # on a cluster";

const LIST_ABOUT: &str = "\
List the mutants of a gem5 Ruby protocol: single, line-preserving edits of its SLICC files (the \
.sm files its .slicc includes), each with a stable id (the first 12 hex digits of the SHA-256 \
of its descriptor `<file>::<site>::<op>`) and a unified diff against the gem5 root. Nothing is \
written: this reads the files and prints.";

const LIST_HELP: &str = "\
Operators (default class in brackets):
  TDA          [tier1]    delete one action from a transition
  TSW          [tier1]    swap two adjacent actions of a transition, only if their effects \
conflict (queues peeked or popped, ports enqueued, tbe/cache_entry fields, (de)allocations, \
memory requests, callbacks)
  TNS-stay     [tier1]    drop a transition's next state: the machine stays where it was
  TNS-sibling  [tier2]    change a next state to one the machine enters elsewhere on the same \
events
  ADS          [tier1]    delete one statement of an action at any depth, whole enqueue/peek/if \
blocks included (never a local declaration used later)
  MTR          [tier1]    out_msg.Type := E:V -> another value of E this machine sends
  BFL          [tier1]    flip a boolean assignment (tbe.Dirty := true -> false)
  ERT          [tier1]    retarget an enqueue to another out_port with the same message type
  CNG          [tier2]    negate the condition of an if in an action
  STD          [liveness] drop a stall action (z_stall, stall_and_wait, recycle)

Classes (--classes, comma-separated; default tier1):
  tier1        the default set
  tier2        TNS-sibling and CNG: many more mutants
  liveness     kill by deadlock: deleted pops, wakeups or stalls
  crash        kill by an assert: a pop before a peek, a use before an allocation or after a \
deallocation, a deleted check_allocate
  equivalent   likely equivalent, normally skipped: edits in z_stall transitions (SLICC returns \
before any action), observer-only code (profile*, setMRU, DPRINTF, APPEND_TRANSITION_COMMENT, \
assert), timing-only fields (MessageSize, *Time), unused actions, swaps without a conflict
  all          every class
A `+needs:o3` tag marks edits of code guarded by send_evictions, which only an O3 CPU exercises.
DMA controllers are skipped unless --dma (the random tester never drives them).

Deleted lines become `// [mutant] ...` comments and partial-line edits happen in place, so \
SLICC's line numbers (and panics citing them) stay those of the original file.

--catalogue lists the hand-picked bugs instead (MI-1..6 for MI_example, ME-1..9 for \
MESI_Two_Level, MH-1..8 for MOESI_hammer, MA-1..6 for MOESI_AMD_Base), resolved against the \
files: an entry that names no site is an error.

Exit codes: 0 listed; 2 bad input (a missing file, a syntax error reported as file:line:col, a \
catalogue entry that does not resolve) or an output that cannot be written; 141 standard \
output closed early (a broken pipe, e.g. `| head`).

Examples:
  memconform mutate list ~/gem5 --protocol MI_example
  memconform mutate list ~/gem5 --protocol MESI_Two_Level --classes tier1,tier2 --format csv
  memconform mutate list ~/gem5 --protocol MESI_Two_Level --catalogue
  memconform mutate list my-protocol-dir --protocol Tiny --classes all --dma";

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Counts per operator and class, then one line per mutant.
    Text,
    /// One row per mutant: id, operator, class, file, line, site, descriptor.
    Csv,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClassArg {
    Tier1,
    Tier2,
    Liveness,
    Crash,
    Equivalent,
    All,
}

#[derive(Args)]
struct ListArgs {
    /// A gem5 root (files under src/mem/ruby/protocol) or a directory holding the
    /// protocol's .slicc and .sm files.
    path: PathBuf,
    /// The protocol: the name of its .slicc file (MI_example, MESI_Two_Level, ...).
    #[arg(long)]
    protocol: String,
    /// Output format.
    #[arg(long, short, value_enum, default_value = "text")]
    format: Format,
    /// Classes to list, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "tier1")]
    classes: Vec<ClassArg>,
    /// List the catalogue of hand-picked bugs for this protocol instead.
    #[arg(long)]
    catalogue: bool,
    /// Mutate DMA controllers too.
    #[arg(long)]
    dma: bool,
}

/// Runs `mutate`; returns the exit code.
pub fn run(args: MutateArgs) -> i32 {
    match args.command {
        MutateCommand::List(a) => list(a),
        MutateCommand::Init(a) => super::campaign::init(&a),
        MutateCommand::Add(a) => super::campaign::add(&a),
        MutateCommand::Run(a) => super::campaign::run(&a),
        MutateCommand::Status(a) => super::campaign::status(&a),
        MutateCommand::Report(a) => super::campaign::report(&a),
        MutateCommand::Slurm(a) => super::campaign::slurm(&a),
    }
}

/// Runs `mutate list`.
fn list(args: ListArgs) -> i32 {
    let classes: Vec<String> = args
        .classes
        .iter()
        .filter_map(|c| c.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    let opts = Options {
        classes: classes.clone(),
        include_dma: args.dma,
    };
    let listed: Result<Vec<(Option<String>, Mutant)>, mutate::Error> = if args.catalogue {
        catalogue::catalogue(&args.path, &args.protocol)
            .map(|v| v.into_iter().map(|(n, m)| (Some(n), m)).collect())
    } else {
        mutate::generate(&args.path, &args.protocol, &opts)
            .map(|v| v.into_iter().map(|m| (None, m)).collect())
    };
    let mutants = match listed {
        Ok(m) => m,
        Err(e) => {
            say!("memconform mutate list: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let shown = if args.catalogue {
        vec!["catalogue".to_string()]
    } else {
        classes
    };
    let out = match args.format {
        Format::Text => listing::text(&args.protocol, &shown, &mutants),
        Format::Csv => listing::csv(&mutants),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed("mutate list", "the list", &e),
    }
}
