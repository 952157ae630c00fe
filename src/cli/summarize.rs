//! `memconform summarize`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit;
use memconform_report::summary::{read_results, summarize};

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// An aligned table for people.
    Table,
    /// CSV for scripts (percentages 0-100, times in ms, empty cells for no value).
    Csv,
}

#[derive(Args)]
#[command(after_help = "\
Reads the CSV written by `memconform check -f csv` (columns looked up by name; extra or missing \
optional columns are fine) and prints one line per group: rows (histories, when grouped by model), \
violations (count and % of rows), unknown verdicts, for each gradual stage the % of the violations \
it caught first (caught_<stage>, from decided_by: e.g. with --models sc, how many violations cc, \
ccv, ... already caught), median and p95 (nearest rank) of time_ms, mean coverage of the non-empty \
cells and, when present, mean kernel_coverage. Groups are sorted numerically where values are \
numbers, models weakest first.

A history × model read twice (the same file, index, variant, seed and size: a merge given with \
its parts, overlapping shards) counts once, with a note; twice with different verdicts is an \
error. One file given twice is refused.

Exit status: 0 ok, 2 bad input (reported as file:line: message) or an output that cannot be \
written, 141 standard output closed early (a broken pipe, e.g. `| head`).

Examples:
  memconform check runs/ -f csv --models cc,ccv,cm,ccm,wsc,sc,tso > results.csv
  memconform summarize results.csv
  memconform summarize results.csv --by protocol,variant,model
  memconform summarize results.csv --by threads,model --format csv > by-threads.csv
  memconform check runs/ -f csv | memconform summarize -")]
pub struct SummarizeArgs {
    /// Results CSVs from `memconform check -f csv` (`-`: standard input); several are read as one.
    #[arg(required = true, value_name = "CSV")]
    files: Vec<PathBuf>,

    /// Group by these columns, comma-separated (any column of the CSV, e.g.
    /// protocol, variant, model, threads, ops, cpus).
    #[arg(
        long,
        short,
        value_delimiter = ',',
        default_value = "model",
        value_name = "COLUMNS"
    )]
    by: Vec<String>,

    /// Output format.
    #[arg(long, short, value_enum, default_value = "table")]
    format: Format,
}

/// Runs `summarize`; returns the exit code.
pub fn run(args: SummarizeArgs) -> i32 {
    let by: Vec<String> = args
        .by
        .iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    if by.is_empty() {
        say!("memconform summarize: --by needs at least one column");
        return exit::INPUT_ERROR;
    }
    // one file given twice would count its rows twice
    let mut seen = std::collections::HashMap::new();
    for f in args.files.iter().filter(|f| f.as_os_str() != "-") {
        let key = std::fs::canonicalize(f).unwrap_or_else(|_| f.clone());
        if let Some(first) = seen.insert(key, f) {
            say!(
                "memconform summarize: {} and {} are the same file: its rows would count twice",
                super::shown(first),
                super::shown(f)
            );
            return exit::INPUT_ERROR;
        }
    }
    let mut res = match read_results(&args.files, &by) {
        Ok(r) => r,
        Err(e) => {
            say!("memconform summarize: {e}");
            return exit::INPUT_ERROR;
        }
    };
    // rows that arrive twice (a merge and its parts) count once
    match res.count_once() {
        Ok(None) => {}
        Ok(Some(note)) => say!("memconform summarize: note: {note}"),
        Err(e) => {
            say!("memconform summarize: {e}");
            return exit::INPUT_ERROR;
        }
    }
    let summary = summarize(&res, &by);
    let mut out = BufWriter::new(io::stdout().lock());
    let written = match args.format {
        Format::Table => summary.write_table(&mut out),
        Format::Csv => summary.write_csv(&mut out),
    }
    .and_then(|()| out.flush());
    finish_write(written, "summarize")
}

/// The exit code after writing a report to standard output (see
/// [`super::write_failed`]: 141 for a closed pipe, 2 for another error).
pub(super) fn finish_write(written: io::Result<()>, command: &str) -> i32 {
    match written {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed(command, "the output", &e),
    }
}
