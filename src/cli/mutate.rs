//! `memconform mutate`: mutation campaigns over gem5 SLICC protocols.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use super::exit;
use memconform_mutate::single::{self, ApplyError, Query, Reverted, RECORD};
use memconform_mutate::{self as mutate, catalogue, listing, slicc, Mutant, Options};
use memconform_report::commands::shell_word;

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
    /// Print one mutant's patch: a short header, then its unified diff.
    #[command(long_about = SHOW_ABOUT, after_long_help = SHOW_HELP)]
    Show(ShowArgs),
    /// Apply one mutant to your gem5 tree, in place (or revert it: --revert).
    #[command(long_about = APPLY_ABOUT, after_long_help = APPLY_HELP)]
    Apply(ApplyArgs),
    /// Apply a base-edit file to your gem5 tree, in place (or take it back: --revert).
    #[command(name = "apply-edits", long_about = EDITS_ABOUT, after_long_help = EDITS_HELP)]
    ApplyEdits(ApplyEditsArgs),
    /// Create a campaign: the mutants, their patches, your build and run commands, the seeds.
    #[command(after_long_help = CAMPAIGN_HELP)]
    Init(Box<super::campaign::InitArgs>),
    /// Add mutants to a campaign (its baseline and finished mutants kept).
    Add(super::campaign::AddArgs),
    /// Give a campaign's survivors follow-up runs: their stimuli with knob values set over them.
    #[command(name = "follow-up", after_long_help = FOLLOW_UP_HELP)]
    FollowUp(super::campaign::FollowUpArgs),
    /// Build and run mutants again (by id, or every one of a status): the next `mutate run` does.
    #[command(after_long_help = RETRY_HELP)]
    Retry(super::campaign::RetryArgs),
    /// Run a campaign (or resume it): the baseline, then each mutant not done.
    #[command(after_long_help = CAMPAIGN_HELP)]
    Run(super::campaign::RunArgs),
    /// A campaign's progress: mutants done, pending, by status; its Slurm jobs.
    Status(super::campaign::DirArgs),
    /// Write a campaign's reports: report.txt, kill-matrix.csv, histories.csv, ...
    Report(super::campaign::DirArgs),
    /// Classify survivors by hand: equivalent (with the reason) or a stimulus gap.
    #[command(after_long_help = CLASSIFY_HELP)]
    Classify(super::campaign::ClassifyArgs),
    /// Run a campaign as a Slurm job array (one shard per task) and a merge job.
    #[command(after_long_help = CAMPAIGN_HELP)]
    Slurm(super::campaign::SlurmArgs),
}

const FOLLOW_UP_HELP: &str = "\
A survivor's runs took its transitions and saw nothing. The stimuli that took them were chosen \
for coverage: fences, locked RMWs, four cores and evictions that reach the protocol's corners \
also hide the reorderings a deleted forward_eviction_to_cpu lets through. Follow-up runs give \
each survivor N more runs: the stimuli whose baseline runs took its transitions most often, \
in turn, with the --set values over their knobs and seeds of their own (above every stimulus's \
and search's). The first run that kills ends it; the kill matrix names the run \
`k3+follow-up: knob=value ...` (k3: the stimulus it follows). This command records N and the \
values in campaign.toml (each value one of its knob's: the knob file's [follow-up] table, or \
--set here); the next `mutate run` gives every survivor with fewer follow-up runs than N the \
missing ones (built again, its stimuli's seeds not run again), and new mutants get them as they \
survive. With N = 0 no follow-up runs. Refused while a `mutate run` holds the campaign.

Example:
  memconform mutate follow-up camp --runs 4 --set fence=none --set rmw=none
  memconform mutate run camp -j 2";

const RETRY_HELP: &str = "\
A mutant's end is final: `mutate run` resumes only what is not done. When a run was judged \
by a memconform that knew less (a run's output it could not read, an outcome it had no name \
for) or a machine failed it (a timeout under load, a full disk), retry sets the mutant's \
build, runs, follow-up runs and end aside (a `retry` line in the event log; nothing is \
deleted) and the next `mutate run` builds and runs it again, every seed. Its search for a \
stimulus, made on the clean protocol, is kept. Give mutants (ids, unique prefixes of 4 digits \
or more, catalogue names) or --status (repeatable: killed, survived, timeout, unviable, \
no_coverage, unknown, unreached), or both. A mutant not done is refused (the next run runs it \
anyway), and so is the whole command while a `mutate run` holds the campaign.

Examples:
  memconform mutate retry camp --status unknown
  memconform mutate retry camp c267fa202627 ME-8
  memconform mutate run camp -j 2";

const CLASSIFY_HELP: &str = "\
A survivor is a mutant no seed killed. Either no program can tell it from the protocol \
(--equivalent: an edit of code that only profiles, a swap of independent actions, a state \
whose entry is freed anyway) or the campaign's runs miss what would (--gap: no run evicts \
from the L2, no core upgrades a shared line, ...). The classes go into the campaign's \
survivors.toml (a table per mutant id: class and reason; edit it by hand if you like), and \
`mutate report` counts them: survivors equivalent, gap, not classified, and the score \
without the equivalent ones, killed / (killed + survived - equivalent). Only survivors are \
classified; a class kept for a mutant a later seed killed is shown, not counted, and --clear \
takes it back.

Examples:
  memconform mutate classify camp 3189e6d36de2 --equivalent 'the swapped actions touch different fields'
  memconform mutate classify camp ME-9 4c16 --gap 'no round evicts a line it wrote'
  memconform mutate classify camp 4c16 --clear";

const CAMPAIGN_HELP: &str = "\
A campaign directory holds campaign.toml (the settings), mutants.jsonl and patches/ID.diff (the \
mutants), base.patch (your uncommitted changes), with --base-edits base.edits and \
base-edits.patch (the base edits and their diff, applied after base.patch), append-only event \
logs events-K.jsonl, and \
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
.sm files its .slicc includes, and the files their machines include, as CHI's cache includes its \
actions and transitions), each with a stable id (the first 12 hex digits of the SHA-256 \
of its descriptor `<file>::<site>::<op>`), its operator, class, file:line and descriptor. Nothing \
is written: this reads the files and prints. `mutate show ID` prints a mutant's patch (a unified \
diff against the gem5 root), `mutate apply ID` applies it to the tree.";

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
  memconform mutate list my-protocol-dir --protocol Tiny --classes all --dma
  memconform mutate show 2c440e45b307 --gem5-root ~/gem5 --protocol MESI_Two_Level   # its patch";

const SHOW_ABOUT: &str = "\
Print one mutant of a gem5 Ruby protocol: a few `#` lines (its id, catalogue name and symptom, \
operator, class, file:line and site, descriptor), then its patch: the preamble \
(`memconform-mutant: ID`, `site:`, `base-sha256:`) and a unified diff against the gem5 root, \
which `git apply` and `patch -p1` take at the root (the `#` lines and the preamble are \
commentary to them). The mutant is generated from the files as they are now: nothing is \
written.

ID is what `mutate list` prints: a 12-hex-digit id, or a unique prefix of 4 digits or more, of a \
mutant of any class (DMA controllers included); or a catalogue name (ME-8, MI-5, MH-1, MA-3; \
CF-1 and CF-2, the configuration bugs, have no patch: their gem5 option is printed instead).";

const SHOW_HELP: &str = "\
Exit codes: 0 printed; 2 bad input (no such mutant, a prefix that several ids start with (they \
are listed), a protocol that cannot be read or parsed) or an output that cannot be written; 141 \
standard output closed early.

Examples:
  memconform mutate list ~/gem5 --protocol MI_example                 # the ids
  memconform mutate show 94781a835949 --gem5-root ~/gem5 --protocol MI_example
  memconform mutate show 9478 --gem5-root ~/gem5 --protocol MI_example   # a unique prefix
  memconform mutate show ME-8 --gem5-root ~/gem5 --protocol MESI_Two_Level > /tmp/me8.diff
  cd ~/gem5 && git apply --check /tmp/me8.diff    # or: patch -p1 --dry-run < /tmp/me8.diff";

const APPLY_ABOUT: &str = "\
Apply one mutant to your gem5 tree, in place, to reproduce a bug without a campaign: the file is \
rewritten whole (a temporary file renamed over it, its permissions kept). Refused when the \
tree already carries a mutant (one at a time) or the file is not the one the mutant was made \
from. The applied mutant is recorded at the root in .memconform-mutant.diff (what `mutate show` \
prints, and the mutated file's SHA-256): `--revert` reads it, and it is a patch `git apply -R` \
takes too. memconform does not build: rebuild gem5 yourself (the next steps are printed).

--revert restores the original text exactly (its SHA-256 is checked) and removes the record; it \
is refused when the file is not the mutated text (edited since). ID is optional with --revert; \
given, it must name the applied mutant.

ID is what `mutate list` prints: a 12-hex-digit id or a unique prefix of 4 digits or more, or a \
catalogue name (ME-8, MI-5); see `mutate show --help`.";

const APPLY_HELP: &str = "\
Exit codes: 0 applied or reverted; 2 refused (a mutant already applied, a file edited since, \
no applied mutant to revert), no such mutant, or a file that cannot be read or written.

Examples:
  memconform mutate apply ME-8 --gem5-root ~/gem5 --protocol MESI_Two_Level
  cd ~/gem5 && scons build/X86_MESI_Two_Level/gem5.opt -j$(nproc)   # you rebuild
  ... run the test that should catch it ...
  memconform mutate apply --revert --gem5-root ~/gem5 --protocol MESI_Two_Level
  memconform mutate apply 9478 --gem5-root ~/gem5 --protocol MI_example   # a unique id prefix";

const EDITS_ABOUT: &str = "\
Apply a base-edit file to your gem5 tree, in place: edits of a protocol's transitions (an action \
added after or before another, or removed; a state added to a header) and function bodies that a \
campaign's base or a fix needs, the same file `mutate init --base-edits` takes. Each entry ends \
with `;` (`//` comments, as in SLICC):

  in MACHINE, transition(STATES, EVENTS): add ACTION after ACTION;
  in MACHINE, transition(STATES, EVENTS): add ACTION before ACTION;
  in MACHINE, transition(STATES, EVENTS): remove ACTION;
  in MACHINE, transition(STATES, EVENTS): add state STATE;
  in MACHINE, with ACTION [without ACTION]: add ACTION after ACTION;
  in MACHINE, function NAME: body { ... };

MACHINE is X of `machine(MachineType:X, ...)`. transition(STATES, EVENTS) names one transition \
header by its states and events (a list `{A, B}` where the header has one); `with A without B` \
names every transition of the machine whose actions include A and lack B. `add state S` gives S \
the header's events, actions and next state (S stays S where the header names none): a \
transition the protocol forgot to declare. `function NAME` replaces the body of the machine's one \
definition of NAME. An added action joins its neighbour's line, so SLICC's line numbers do not \
move. An entry whose machine, state, event, action or transition the protocol lacks, that \
matches nothing, that would add an action a transition runs already, or a pair another header \
declares, is an error at its file:line:col: nothing is skipped.

The diff made is recorded at the root in .memconform-base-edits.diff; --revert takes it back \
(refused when a file was edited since) and removes the record.";

const EDITS_HELP: &str = "\
Exit codes: 0 applied or reverted; 2 a bad entry (file:line:col), an entry the protocol does \
not have, edits applied already (or none to revert), or a file that cannot be read or written.

Example (MOESI_AMD_Base: a cluster invalidation tells core 1's load queue too):
  in CorePair, with i1_invCluster without forward_eviction_to_cpu1:
      add forward_eviction_to_cpu1 after i1_invCluster;

  memconform mutate apply-edits base.edits --gem5-root ~/gem5 --protocol MOESI_AMD_Base
  memconform mutate apply-edits --revert --gem5-root ~/gem5 --protocol MOESI_AMD_Base";

#[derive(Args)]
struct ApplyEditsArgs {
    /// The base-edit file; optional with --revert.
    #[arg(required_unless_present = "revert")]
    file: Option<PathBuf>,
    /// The gem5 root to write (or a directory holding the protocol's .slicc
    /// and .sm files).
    #[arg(long, value_name = "DIR")]
    gem5_root: PathBuf,
    /// The protocol: the name of its .slicc file (MOESI_AMD_Base, ...).
    #[arg(long)]
    protocol: String,
    /// Take back the edits applied here: the files' texts before them.
    #[arg(long, conflicts_with = "file")]
    revert: bool,
}

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

#[derive(Args)]
struct ShowArgs {
    /// The mutant: its id as `mutate list` prints it (or a unique prefix of 4
    /// hex digits or more), or a catalogue name (ME-8).
    id: String,
    /// A gem5 root (files under src/mem/ruby/protocol) or a directory holding
    /// the protocol's .slicc and .sm files, as `mutate list` takes.
    #[arg(long, value_name = "DIR")]
    gem5_root: PathBuf,
    /// The protocol: the name of its .slicc file (MI_example, MESI_Two_Level, ...).
    #[arg(long)]
    protocol: String,
}

#[derive(Args)]
struct ApplyArgs {
    /// The mutant: its id as `mutate list` prints it (or a unique prefix of 4
    /// hex digits or more), or a catalogue name (ME-8); optional with --revert.
    #[arg(required_unless_present = "revert")]
    id: Option<String>,
    /// The gem5 root to write (or a directory holding the protocol's .slicc
    /// and .sm files).
    #[arg(long, value_name = "DIR")]
    gem5_root: PathBuf,
    /// The protocol: the name of its .slicc file (MI_example, MESI_Two_Level, ...).
    #[arg(long)]
    protocol: String,
    /// Revert the applied mutant: the file's original text back, exactly.
    #[arg(long)]
    revert: bool,
}

/// Runs `mutate`; returns the exit code.
pub fn run(args: MutateArgs) -> i32 {
    match args.command {
        MutateCommand::List(a) => list(a),
        MutateCommand::Show(a) => show(&a),
        MutateCommand::Apply(a) => apply(&a),
        MutateCommand::ApplyEdits(a) => apply_edits(&a),
        MutateCommand::Init(a) => super::campaign::init(&a),
        MutateCommand::Add(a) => super::campaign::add(&a),
        MutateCommand::FollowUp(a) => super::campaign::follow_up(&a),
        MutateCommand::Retry(a) => super::campaign::retry(&a),
        MutateCommand::Run(a) => super::campaign::run(&a),
        MutateCommand::Status(a) => super::campaign::status(&a),
        MutateCommand::Report(a) => super::campaign::report(&a),
        MutateCommand::Classify(a) => super::campaign::classify(&a),
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

/// The command that reverts mutant `id` in the tree `dir` of `protocol`.
fn revert_command(id: &str, dir: &Path, protocol: &str) -> String {
    format!(
        "memconform mutate apply {id} --revert --gem5-root {} --protocol {}",
        shell_word(&super::shown(dir)),
        shell_word(protocol)
    )
}

/// A note for a lookup that failed in a tree that carries a mutant applied
/// by `mutate apply`: ids come from the files as they are.
fn carried_note(root: &Path, dir: &Path, protocol: &str) -> Option<String> {
    let a = single::read_record(root).ok()??;
    (single::file_state(root, &a) == single::FileState::Mutated).then(|| {
        format!(
            "; the tree carries mutant {} in {} (ids come from the files as they are; revert \
             it first: {})",
            a.named(),
            a.file,
            revert_command(&a.id, dir, protocol)
        )
    })
}

/// Loads the protocol and finds the mutant `id` names; the error message
/// on failure, prefixed `memconform mutate CMD:`.
fn find_mutant(
    cmd: &str,
    id: &str,
    dir: &Path,
    protocol: &str,
) -> Result<(slicc::Protocol, single::Found), String> {
    let query = Query::parse(id).map_err(|e| format!("memconform mutate {cmd}: {e}"))?;
    let p =
        slicc::load_protocol(dir, protocol).map_err(|e| format!("memconform mutate {cmd}: {e}"))?;
    match single::lookup(&p, &query) {
        Ok(found) => Ok((p, found)),
        Err(e) => {
            let note = carried_note(&p.root, dir, protocol).unwrap_or_default();
            Err(format!("memconform mutate {cmd}: {e}{note}"))
        }
    }
}

/// Runs `mutate show`: the mutant's header and patch on standard output.
fn show(args: &ShowArgs) -> i32 {
    let (p, found) = match find_mutant("show", &args.id, &args.gem5_root, &args.protocol) {
        Ok(f) => f,
        Err(e) => {
            say!("{e}");
            return exit::INPUT_ERROR;
        }
    };
    if let Ok(Some(a)) = single::read_record(&p.root) {
        if a.file == found.mutant.file
            && single::file_state(&p.root, &a) == single::FileState::Mutated
        {
            say!(
                "memconform mutate show: note: {} carries mutant {} (applied by `mutate \
                 apply`): this patch is against the mutated file; for one against the original, \
                 revert first: {}",
                a.file,
                a.named(),
                revert_command(&a.id, &args.gem5_root, &args.protocol)
            );
        }
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(single::show(&found).as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed("mutate show", "the patch", &e),
    }
}

/// The message of an apply error, with the commands that clear the way.
fn apply_message(e: &ApplyError, query: Option<&Query>, dir: &Path, protocol: &str) -> String {
    match e {
        ApplyError::Carries(a) if query.is_some_and(|q| q.matches(&a.id, &a.names)) => format!(
            "mutant {} is already applied in {} (recorded in {RECORD}); to revert it: {}",
            a.named(),
            a.file,
            revert_command(&a.id, dir, protocol)
        ),
        ApplyError::Carries(a) | ApplyError::Other { applied: a, .. } => format!(
            "{e}; revert it first: {}",
            revert_command(&a.id, dir, protocol)
        ),
        ApplyError::Edited { applied: a, .. } => format!(
            "{e}. Restore {} (`git checkout -- {}`, or `git apply -R {RECORD}` at the root if \
             the edits are elsewhere in the file), then delete {RECORD}",
            a.file, a.file
        ),
        _ => e.to_string(),
    }
}

/// The lines telling how to rebuild gem5 at `root` with `protocol`: the
/// build directories configured for it, else the build_opts that select it.
fn rebuild_hint(root: &Path, protocol: &str) -> String {
    let cd = format!("cd {} && ", shell_word(&super::shown(root)));
    let (built, mut opts) = single::build_dirs(root, protocol);
    if let Some(first) = built.first() {
        let mut out = format!("  {cd}scons build/{first}/gem5.opt -j$(nproc)\n");
        if built.len() > 1 {
            out.push_str(&format!(
                "  (build directories configured for {protocol}: {})\n",
                built.join(", ")
            ));
        }
        return out;
    }
    // the build_opts named after the protocol first, then the NULL ISA's
    opts.sort_by_key(|o| (!o.contains(protocol), !o.starts_with("NULL"), o.clone()));
    match opts.first() {
        Some(first) => {
            let mut out = format!("  {cd}scons build/{first}/gem5.opt -j$(nproc)\n");
            if opts.len() > 1 {
                out.push_str(&format!(
                    "  (build_opts that select {protocol}: {})\n",
                    opts.join(", ")
                ));
            }
            out
        }
        None => format!(
            "  {cd}scons build/<ISA>/gem5.opt -j$(nproc)   # a build configured for {protocol}\n"
        ),
    }
}

/// Runs `mutate apply`: the mutant written into the tree (or reverted with
/// `--revert`), then the next steps.
fn apply(args: &ApplyArgs) -> i32 {
    const CMD: &str = "memconform mutate apply";
    let dir = &args.gem5_root;
    let protocol = &args.protocol;
    let query = match args.id.as_deref().map(Query::parse).transpose() {
        Ok(q) => q,
        Err(e) => {
            say!("{CMD}: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let (root, manifest) = match slicc::protocol_root(dir, protocol) {
        Ok(r) => r,
        Err(e) => {
            say!("{CMD}: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let shown_root = super::shown(&root).into_owned();
    let rebuild = rebuild_hint(&root, protocol);
    let mut out = String::new();
    if args.revert {
        let proto_dir = manifest.parent().unwrap_or(Path::new("")).to_path_buf();
        let marked = || single::marked_lines_in(&root, &proto_dir);
        match single::revert_in_place(&root, query.as_ref(), marked) {
            Ok(Reverted::Restored(a)) => {
                out.push_str(&format!(
                    "reverted mutant {}: {} is its original text again (sha256 {}); removed \
                     {shown_root}/{RECORD}\n\nNext: rebuild gem5 (memconform does not build), \
                     e.g.\n{rebuild}",
                    a.named(),
                    a.file,
                    a.base_sha256
                ));
            }
            Ok(Reverted::AlreadyOriginal(a)) => {
                out.push_str(&format!(
                    "{} was already the original text (reverted by hand?): mutant {} is not \
                     applied; removed the stale {shown_root}/{RECORD}\n",
                    a.file,
                    a.named()
                ));
            }
            Err(e) => {
                say!(
                    "{CMD}: {}",
                    apply_message(&e, query.as_ref(), dir, protocol)
                );
                return exit::INPUT_ERROR;
            }
        }
    } else {
        // the tree first: a mutated tree no longer has the mutant's site
        match single::check_clear(&root) {
            Ok(None) => {}
            Ok(Some(a)) => say!(
                "{CMD}: note: removed {RECORD}, a stale record of mutant {}: {} is its \
                 original text again",
                a.named(),
                a.file
            ),
            Err(e) => {
                say!(
                    "{CMD}: {}",
                    apply_message(&e, query.as_ref(), dir, protocol)
                );
                return exit::INPUT_ERROR;
            }
        }
        let id = args.id.as_deref().unwrap_or_default();
        let (p, found) = match find_mutant("apply", id, dir, protocol) {
            Ok(f) => f,
            Err(e) => {
                say!("{e}");
                return exit::INPUT_ERROR;
            }
        };
        if let Some(at) = single::marked_lines(&p).first() {
            say!(
                "{CMD}: note: {at} has a `// [mutant]` line: the tree may carry another \
                 mutant, applied by hand (`git diff` shows it)"
            );
        }
        let a = match single::apply_in_place(&root, &found) {
            Ok(a) => a,
            Err(e) => {
                say!(
                    "{CMD}: {}",
                    apply_message(&e, query.as_ref(), dir, protocol)
                );
                return exit::INPUT_ERROR;
            }
        };
        let m = &found.mutant;
        out.push_str(&format!(
            "applied mutant {}: {} at {}:{}  {}\nrecorded in {shown_root}/{RECORD} (its \
             patch; `--revert` reads it)\n\nNext: rebuild gem5 with the mutant (memconform \
             does not build), e.g.\n{rebuild}then run what should catch the bug. To revert \
             (and rebuild again):\n  {}\n",
            a.named(),
            m.op,
            m.file,
            m.line,
            m.site,
            revert_command(&a.id, dir, protocol)
        ));
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed("mutate apply", "the next steps", &e),
    }
}

/// Runs `mutate apply-edits`: a base-edit file written into the tree (or
/// taken back with `--revert`).
fn apply_edits(args: &ApplyEditsArgs) -> i32 {
    use memconform_mutate::base_edits;
    const CMD: &str = "memconform mutate apply-edits";
    let dir = &args.gem5_root;
    let protocol = &args.protocol;
    let rebuild = match slicc::protocol_root(dir, protocol) {
        Ok((root, _)) => rebuild_hint(&root, protocol),
        Err(e) => {
            say!("{CMD}: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let out = match &args.file {
        None => match base_edits::revert_in_tree(dir, protocol) {
            Ok(files) => format!(
                "reverted the base edits: {} as before them\n\nNext: rebuild gem5, e.g.\n{rebuild}",
                files.join(", ")
            ),
            Err(e) => {
                say!("{CMD}: {e}");
                return exit::INPUT_ERROR;
            }
        },
        Some(file) => {
            let applied = base_edits::load(file)
                .and_then(|edits| base_edits::apply_in_tree(dir, protocol, &edits));
            match applied {
                Ok(a) => {
                    let mut out = String::new();
                    for (entry, sites) in &a.changes {
                        out.push_str(&format!("{entry}\n"));
                        for site in sites {
                            out.push_str(&format!("  {site}\n"));
                        }
                    }
                    out.push_str(&format!(
                        "recorded in {} (`--revert` takes it back)\n\nNext: rebuild gem5 \
                         (memconform does not build), e.g.\n{rebuild}",
                        base_edits::TREE_RECORD
                    ));
                    out
                }
                Err(e) => {
                    say!("{CMD}: {e}");
                    return exit::INPUT_ERROR;
                }
            }
        }
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed("mutate apply-edits", "the report", &e),
    }
}
