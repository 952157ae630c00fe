//! `memconform plot`.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit;
use memconform_mutate::plot::{self as plot_mutation, read_kill_matrix};
use memconform_report::plot::{render_svg, By, Kind, PlotOptions, XAxis};
use memconform_report::summary::read_results;

#[derive(Clone, Copy, ValueEnum)]
enum KindArg {
    /// Median time_ms per model against the history's operations (log y).
    TimeVsOps,
    /// Median time_ms per model against threads (log y).
    TimeVsThreads,
    /// Mean store-order coverage per model against threads or operations (--x).
    Coverage,
    /// % of histories violating, per model, split by the gradual stage that caught them.
    Detection,
    /// A campaign's kill matrix: per operator, mutants by what killed them
    /// (memconform only, gem5 and memconform, gem5 only, survived, timeout;
    /// unviable left out).
    KillByOperator,
    /// A campaign's kill matrix: % of killed mutants killed within their first k
    /// seeds (ascending seed value), a line per protocol (--by op: per operator).
    SeedsToKill,
}

#[derive(Clone, Copy, ValueEnum)]
enum ByArg {
    Protocol,
    Op,
}

#[derive(Clone, Copy, ValueEnum)]
enum XArg {
    Threads,
    Ops,
}

#[derive(Args)]
#[command(after_help = "\
Draws a figure of the papers as SVG from the CSV of `memconform check -f csv`: checking time \
against size (wsc-saturation §6: one line per model, median over the histories of each size, log \
scale), the coverage of the saturated store order, and the violations each model finds with the \
gradual stage that caught them (gradual-consistency-checking §5). One colour per model, the same \
in every figure. Text is left to the SVG viewer (no fonts needed).

From a mutation campaign's kill-matrix.csv (recognised by its mutant_id, outcome and exit_kind \
columns; the other kinds refuse it, and these refuse check results): kill-by-operator counts \
mutants, not runs: memconform only (a violation, and gem5 ended cleanly), gem5 and memconform, \
gem5 only (tester check, protocol panic, deadlock or crash, no violation), survived, timeout, \
unknown; unviable mutants are not drawn (the legend counts them). seeds-to-kill takes each \
mutant's seeds in ascending seed value; k runs to the most seeds any mutant ran.

A history × model read twice (a merge given with its parts, overlapping shards) is drawn once, \
with a note; twice with different verdicts is an error. -o never names an input.

Exit status: 0 ok, 2 bad input (reported as file:line: message) or an unwritable output (-o \
is then left as it was), 141 standard output closed early (a broken pipe).

Examples:
  for t in 4 8 12 16; do memconform gen --threads $t --ops 50 --count 40 --seed ${t}000 -o runs/t$t; done
  memconform check runs/ -f csv --models wsc,sc > results.csv
  memconform plot results.csv --kind time-vs-threads -o fig-time-vs-threads.svg
  memconform plot results.csv --kind coverage --x ops -o fig-coverage.svg
  memconform plot results.csv --kind detection --models cc,ccv,cm,ccm,wsc,sc -o fig-detection.svg
  memconform plot campaign/kill-matrix.csv --kind kill-by-operator -o fig-kills.svg
  memconform plot mi/kill-matrix.csv mesi/kill-matrix.csv --kind kill-by-operator --by protocol
  memconform plot mi/kill-matrix.csv mesi/kill-matrix.csv --kind seeds-to-kill -o fig-seeds.svg")]
pub struct PlotArgs {
    /// Results CSVs from `memconform check -f csv`, or a campaign's kill-matrix.csv files for
    /// kill-by-operator and seeds-to-kill (`-`: standard input); several are read as one.
    #[arg(required = true, value_name = "CSV")]
    files: Vec<PathBuf>,

    /// The figure.
    #[arg(long, short, value_enum)]
    kind: KindArg,

    /// The SVG file to write (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,

    /// x axis of --kind coverage.
    #[arg(long, value_enum)]
    x: Option<XArg>,

    /// Only these models, comma-separated (default: all in the CSV).
    #[arg(long, short, value_delimiter = ',', value_name = "LIST")]
    models: Option<Vec<String>>,

    /// Kill-matrix kinds: kill-by-operator a row of bars per protocol (default: every protocol
    /// together); seeds-to-kill a line per protocol (the default) or per operator.
    #[arg(long, value_enum)]
    by: Option<ByArg>,

    /// The title (default: names the figure and the number of histories).
    #[arg(long)]
    title: Option<String>,

    /// Width x height in pixels.
    #[arg(long, default_value = "800x500", value_parser = parse_size, value_name = "WxH")]
    size: (u32, u32),
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{s}` is not WIDTHxHEIGHT (e.g. 800x500)");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(200..=10_000).contains(&w) || !(150..=10_000).contains(&h) {
        return Err(format!("`{s}`: from 200x150 to 10000x10000"));
    }
    Ok((w, h))
}

/// Runs `plot`; returns the exit code.
pub fn run(args: PlotArgs) -> i32 {
    let fail = |msg: String| {
        say!("memconform plot: {msg}");
        exit::INPUT_ERROR
    };
    let kind = match args.kind {
        KindArg::TimeVsOps => Kind::TimeVsOps,
        KindArg::TimeVsThreads => Kind::TimeVsThreads,
        KindArg::Coverage => Kind::Coverage,
        KindArg::Detection => Kind::Detection,
        KindArg::KillByOperator => Kind::KillByOperator,
        KindArg::SeedsToKill => Kind::SeedsToKill,
    };
    if args.x.is_some() && kind != Kind::Coverage {
        return fail(format!(
            "--x applies to --kind coverage (--kind {} fixes its x axis)",
            kind.name()
        ));
    }
    let mut opts = PlotOptions::new(kind);
    opts.x = match args.x {
        Some(XArg::Ops) => XAxis::Ops,
        _ => XAxis::Threads,
    };
    opts.title = args.title;
    opts.models = args.models.map(|m| {
        m.into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    });
    opts.size = args.size;
    opts.by = args.by.map(|b| match b {
        ByArg::Protocol => By::Protocol,
        ByArg::Op => By::Op,
    });
    if kind.of_kill_matrix() && opts.models.is_some() {
        return fail(format!(
            "--models applies to check results (--kind {} draws a kill matrix)",
            kind.name()
        ));
    }
    if !kind.of_kill_matrix() && opts.by.is_some() {
        return fail(format!(
            "--by applies to kill-by-operator and seeds-to-kill (--kind {} draws check results)",
            kind.name()
        ));
    }
    // -o never over one of the CSVs
    memconform_report::protect(&memconform_report::Inputs::new().with(&args.files));
    if let Some(out) = &args.out {
        if let Err(e) = memconform_report::refuse_input(out) {
            return fail(format!("cannot write {}: {e}", super::shown(out)));
        }
    }
    let svg = if kind.of_kill_matrix() {
        read_kill_matrix(&args.files).and_then(|km| plot_mutation::render_svg(&km, &opts))
    } else {
        read_results(&args.files, &[]).and_then(|mut res| {
            // rows that arrive twice (a merge and its parts) count once
            if let Some(note) = res.count_once()? {
                say!("memconform plot: note: {note}");
            }
            render_svg(&res, &opts)
        })
    };
    let svg = match svg {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    match &args.out {
        // written whole (a temporary file renamed over it), or through a
        // device or FIFO
        Some(p) => match memconform_report::write_atomic(p, svg.as_bytes()) {
            Ok(()) => exit::CONSISTENT,
            Err(e) => fail(format!("cannot write {}: {e}", super::shown(p))),
        },
        None => {
            let mut out = io::stdout().lock();
            super::summarize::finish_write(
                out.write_all(svg.as_bytes()).and_then(|()| out.flush()),
                "plot",
            )
        }
    }
}
