//! The command line: clap definitions and the glue that runs them.

/// Like `eprintln!`, but a standard error that cannot be written (a closed
/// terminal after SIGHUP, a closed pipe) is no panic: the exit status still
/// says how the command ended.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod campaign;
mod check;
mod compare;
mod coverage;
mod gen;
pub(crate) mod guard;
mod merge;
mod mutate;
mod plot;
mod progress;
mod shrink;
mod signals;
mod stimulus;
mod summarize;
mod watch;

use clap::{Parser, Subcommand};
use memconform_core::complete::Engine;

/// `--engine`: the choosable completion engines, each with its help line.
pub(crate) fn engine_parser() -> impl clap::builder::TypedValueParser<Value = Engine> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let about = |e: Engine| match e {
        Engine::Auto => "choose by the shape left after saturation",
        Engine::Enum => "backtracking over unordered write pairs, re-saturating after each choice",
        Engine::Sat => "SAT (rustsat + BatSat), acyclicity enforced lazily by cycle clauses",
        Engine::Dp => "dynamic programming over store-order ideals (consistency-framework-2k)",
        Engine::Interleave => "memoised search over thread interleavings (SC, untimed threads)",
        Engine::Ticks | Engine::Zones => "chosen by auto",
    };
    PossibleValuesParser::new(
        Engine::CHOOSABLE.map(|e| PossibleValue::new(e.name()).help(about(e))),
    )
    .map(|s| Engine::from_name(&s).expect("one of the possible values"))
}

/// A probability: a number from 0 to 1.
pub(crate) fn parse_probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("`{s}` is not a probability (a number from 0 to 1)")),
    }
}

/// A whole number from `lo` to `hi`.
pub(crate) fn parse_count(s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("`{s}` is not a whole number from {lo} to {hi}")),
    }
}

/// `k/N`: shard k (from 0) of N.
pub(crate) fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard K/N (0 ≤ K < N, e.g. 0/4)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Exit codes scripts can rely on.
pub mod exit {
    /// Every checked history satisfies every requested model.
    pub const CONSISTENT: i32 = 0;
    /// Some history violates some requested model.
    pub const VIOLATION: i32 = 1;
    /// Bad input or output (a file that cannot be read or parsed, a bad
    /// flag, an output that cannot be written).
    pub const INPUT_ERROR: i32 = 2;
    /// Internal error: a certificate failed independent validation.
    pub const INTERNAL: i32 = 3;
    /// With `--expect`: some verdict differs from the file's `@expect`.
    pub const UNEXPECTED: i32 = 4;
    /// Nothing was checked: no history among the inputs (and no input error).
    pub const NOTHING_CHECKED: i32 = 5;
    /// No violation, but some verdict is `unknown` (time or memory budget).
    pub const UNKNOWN: i32 = 6;
    /// `mutate run`: another process holds the campaign's shard (its lock).
    pub const BUSY: i32 = 7;
    /// The reader of standard output closed it early (a broken pipe, as
    /// `| head` does): 128 + SIGPIPE, as a shell reports a process SIGPIPE
    /// ended. What was written before is whole, but the output is cut.
    pub const BROKEN_PIPE: i32 = 141;
}

/// The exit code after a failed write of `what`: [`exit::BROKEN_PIPE`]
/// quietly for a closed pipe (the reader went away, as `| head` does),
/// else the error on stderr and [`exit::INPUT_ERROR`] ("bad input or
/// output").
pub(crate) fn write_failed(command: &str, what: &str, e: &std::io::Error) -> i32 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return exit::BROKEN_PIPE;
    }
    say!("memconform {command}: cannot write {what}: {e}");
    exit::INPUT_ERROR
}

/// `p` as messages show it (control characters made harmless, bytes that
/// are not UTF-8 as `\xNN`; see `report::shown_path`).
pub(crate) fn shown(p: &std::path::Path) -> std::borrow::Cow<'_, str> {
    memconform_report::shown_path(p)
}

#[derive(Parser)]
#[command(
    name = "memconform",
    version,
    about = "Check that memory histories conform to memory models.",
    long_about = "Check that histories of shared-memory runs (reads and writes per thread, \
each value written once) conform to memory models: the causal models CC, CCv, CM; the \
saturation models CCM, wCCM and wSC that approximate SC and TSO in polynomial time; SC, \
TSO and PSO, decided by saturation and a completion engine; and, when named, the weak ISAs' \
RMO and ARMv8 (without dependencies: weaker than ARMv8, so its violations are real). Inputs: gem5 output directories \
(Ruby random tester, MemTest, the SE-mode client), .hist files, axe traces. Every violation \
comes with a certificate: a short cycle of labelled edges (po, wr, rw, cf, pww, st, ...) over \
the operations, with their positions in the input (for gem5: ports, ticks, trace lines and \
protocol transitions), re-checked by an independent validator."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check gem5 runs, .hist or axe files (or directories of them) against models.
    Check(check::CheckArgs),
    /// Generate histories from a simulated SC, TSO or PSO memory.
    Gen(gen::GenArgs),
    /// Aggregate a results CSV: detection, gradual stages, time, coverage per group.
    Summarize(summarize::SummarizeArgs),
    /// Compare two results CSVs (or the variants of one) per model: rates, flips, time.
    Compare(compare::CompareArgs),
    /// Draw a figure as SVG from a results CSV (time, coverage, detection) or a kill matrix.
    Plot(plot::PlotArgs),
    /// Cut a violating history down to a 1-minimal counterexample (.hist, with its origin).
    Shrink(shrink::ShrinkArgs),
    /// Join the results CSVs of `check --shard K/N` into one (one row per file, index, model).
    Merge(merge::MergeArgs),
    /// Mutation campaigns over gem5 SLICC protocols: list, show, apply, init, run, status, report, slurm.
    Mutate(mutate::MutateArgs),
    /// Run gem5 and check its output directory as gem5 writes it; stop it at the first violation.
    Watch(watch::WatchArgs),
    /// Protocol transitions gem5 runs took (stats.txt) against those the protocol's SLICC declares.
    Coverage(coverage::CoverageArgs),
    /// Search a run command's knobs for settings that take the most protocol transitions (or given ones).
    Stimulus(stimulus::StimulusArgs),
}

/// Runs the command line; returns the process exit code.
pub fn run() -> i32 {
    let mut argv = std::env::args_os().skip(1);
    if argv.next().is_some_and(|a| a == guard::ARG) {
        guard::main(&argv.collect::<Vec<_>>());
    }
    let cli = Cli::parse();
    signals::install();
    // a campaign's runs go under a keeper too (see `guard`)
    memconform_mutate::campaign::keep_commands_with(guard::prefix());
    // not where a child (gem5) would inherit it
    if !matches!(
        cli.command,
        Command::Watch(_) | Command::Mutate(_) | Command::Stimulus(_)
    ) {
        crate::no_huge_pages();
    }
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Summarize(args) => summarize::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Plot(args) => plot::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Mutate(args) => mutate::run(args),
        Command::Shrink(args) => shrink::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Coverage(args) => coverage::run(args),
        Command::Stimulus(args) => stimulus::run(args),
    }
}
