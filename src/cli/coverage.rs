//! `memconform coverage`: which protocol transitions gem5 runs took, against
//! those the protocol's SLICC declares (docs/design/campaigns.md §4).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::exit;
use memconform_mutate::coverage;

#[derive(Args)]
#[command(after_help = "\
gem5 counts every transition a Ruby controller takes, in stats.txt, as \
<prefix>.<Machine>_Controller.<State>.<Event> (with a ::total line when there are several \
controllers of the type; counters that stayed 0 are left out). This command adds them up per \
controller type and, with --protocol-dir, sets them against the (state, event) pairs the \
protocol's SLICC declares: a header over {S,I} and {Load,Store} declares four. A transition \
never taken is code no run executed: a mutant there cannot be killed by these runs (a campaign \
calls it no_coverage), and a bug there cannot be found by them.

The protocol is --protocol's (an error when a run's config.ini describes another), else the \
one config.ini describes (MI_example, MESI_Two_Level, MOESI_hammer, MOESI_AMD_Base, CHI, by \
their controllers), else the one .slicc of --protocol-dir. Stalls (headers with z_stall) return before gem5 counts them: they are \
listed apart and left out of `declared`. Several runs sum their counts (of one protocol); of \
several dumps in one stats.txt each counter keeps its largest count.

Reachable: a share of every declared transition is no target: a system without a DMA \
controller never runs the directory's DMA transitions. With --protocol-dir the table sets the \
transitions taken against those the runs' configuration can take (`reachable`); a declared one \
is unreachable only with a reason, listed by --list: the configuration has no controller of the \
type (config.ini); no code of the machine names `Event:E`; a rule of the protocol's reach file \
whose condition every run's config.ini meets (built in for MI_example, MESI_Two_Level, \
MOESI_hammer and MOESI_AMD_Base: gem5-configs/reach/; --reach FILE gives another); or the state \
is entered only by transitions unreachable for those reasons. A transition a run took is \
reachable whatever a rule says (the rule is named in a note). --no-reach counts every declared \
transition.

Outputs: the table on standard output (per controller type: taken, reachable, declared, \
percent of reachable, stalls; --list adds the reachable transitions no run took and the \
unreachable ones by reason); --csv FILE, a row per (machine, state, event) declared or taken: \
machine,state,event,count,declared,stall,reachable,reason (declared empty when unknown; \
reachable empty without a reach analysis); --keep DIR, each run's counters and configuration, \
gzipped, in DIR/NAME (a directory coverage reads as the run: the union of many runs can be \
recomputed from them after the runs are deleted); --svg FILE, a heat map per controller type, states down and events across: taken \
shaded by count, declared but untaken crossed in red, stalls grey, undeclared blank.

Exit status: 0 ok; 2 bad input (a run without stats.txt or without transition counters, a \
stats.txt line that does not parse, as file:line:col, a protocol that cannot be read, a reach \
file that does not parse or names what the protocol does not declare) or an \
output that cannot be written; 141 standard output closed early (a broken pipe).

Examples:
  memconform coverage tests/data/gem5/mi_example/clean-n4-s2
  memconform coverage run1 run2 run3 --protocol-dir $GEM5/src/mem/ruby/protocol --list
  memconform coverage m5out --protocol-dir $GEM5 --csv cov.csv --svg cov.svg
  memconform coverage m5out --protocol-dir $GEM5 --reach my-system.toml --list
  memconform coverage runs/* --keep kept/ && memconform coverage kept/* --protocol-dir $GEM5
  memconform coverage tests/data/coverage/toyco-a --protocol-dir tests/data/slicc/toyco --list")]
pub struct CoverageArgs {
    /// gem5 output directories (`-d`, m5out; or their stats.txt files): their counts are summed.
    #[arg(required = true, value_name = "RUN")]
    runs: Vec<PathBuf>,

    /// The protocol's SLICC files: gem5's src/mem/ruby/protocol, a gem5 root, or a directory
    /// holding the protocol's .slicc and .sm files (a campaign's gem5 tree). Without it, only
    /// the transitions taken are known.
    #[arg(long, value_name = "DIR")]
    protocol_dir: Option<PathBuf>,

    /// The protocol (NAME of NAME.slicc), when config.ini does not say it.
    #[arg(long, value_name = "NAME")]
    protocol: Option<String>,

    /// After the table, list every reachable transition no run took (Machine.State.Event), then
    /// the unreachable ones by reason.
    #[arg(long)]
    list: bool,

    /// Write the table as CSV: machine,state,event,count,declared,stall,reachable,reason.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// The reach file whose rules mark transitions the configuration cannot take (instead of
    /// memconform's own for the protocol; format: gem5-configs/reach/*.toml).
    #[arg(long, value_name = "FILE", conflicts_with = "no_reach")]
    reach: Option<PathBuf>,

    /// Count every declared transition: no reach analysis.
    #[arg(long)]
    no_reach: bool,

    /// Write a heat map as SVG (states x events per controller type).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,

    /// Also keep each run small under DIR/NAME (NAME the run's directory name): its transition
    /// counters and its config.ini, gzipped (kilobytes, not the run's megabytes), which
    /// `coverage` reads as it reads the run: commit them, and the table can be made again
    /// without gem5.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

/// Runs `coverage`; returns the exit code.
pub fn run(args: CoverageArgs) -> i32 {
    let fail = |msg: String| {
        say!("memconform coverage: {msg}");
        exit::INPUT_ERROR
    };
    // outputs never over what is read
    let mut read = Vec::new();
    for r in &args.runs {
        let (stats, dir) = coverage::run_files(r);
        read.extend([stats, dir.join("config.ini"), dir.join("config.json")]);
    }
    read.extend(args.protocol_dir.iter().cloned());
    read.extend(args.reach.iter().cloned());
    memconform_report::protect(&memconform_report::Inputs::new().with(&read));
    for out in args.csv.iter().chain(&args.svg) {
        if let Err(e) = memconform_report::refuse_input(out) {
            return fail(format!("cannot write {}: {e}", super::shown(out)));
        }
    }
    if let Some(into) = &args.keep {
        for r in &args.runs {
            if let Err(e) = coverage::keep_run(r, into) {
                return fail(e);
            }
        }
    }
    let rules = match (&args.reach, args.no_reach) {
        (_, true) => coverage::ReachRules::Off,
        (Some(f), false) => coverage::ReachRules::File(f),
        (None, false) => coverage::ReachRules::Builtin,
    };
    let table = match coverage::of_runs_reach(
        &args.runs,
        args.protocol_dir.as_deref(),
        args.protocol.as_deref(),
        rules,
    ) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let outputs = [
        (
            &args.csv,
            coverage::Table::csv as fn(&coverage::Table) -> String,
        ),
        (&args.svg, coverage::Table::svg),
    ];
    for (path, render) in outputs {
        if let Some(p) = path {
            if let Err(e) = memconform_report::write_atomic(p, render(&table).as_bytes()) {
                return fail(format!("cannot write {}: {e}", super::shown(p)));
            }
        }
    }
    if args.protocol_dir.is_none() {
        say!(
            "memconform coverage: note: the transitions taken only; give --protocol-dir (gem5's \
             src/mem/ruby/protocol) for those declared"
        );
    }
    let mut out = std::io::stdout().lock();
    match out
        .write_all(table.text(args.list).as_bytes())
        .and_then(|()| out.flush())
    {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed("coverage", "the table", &e),
    }
}
