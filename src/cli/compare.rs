//! `memconform compare`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit;
use memconform_report::compare::{
    compare, sides_by_file, sides_by_variant, write_csv, write_flips_csv, Comparison, KeySpec,
};
use memconform_report::summary::read_results;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Per model side by side, then the first flipped histories (--show).
    Table,
    /// The per-model comparison as CSV.
    Csv,
    /// Every flipped history × model as CSV.
    Flips,
}

#[derive(Args)]
#[command(after_help = "\
Compares B against A (two runs, typically two protocol variants on the same seeds), per model: \
violations in each (count and % of the matched rows), violations new in B and gone in B, verdict \
flips, median time_ms of each and the ratio B/A (over the matched rows). Then the histories whose \
verdict flips, as file#index (A's and B's when they differ).

With one CSV and --variant-column COL, the rows are split by the value of COL and each variant \
is compared against the first one in the file (or --baseline).

Rows are matched by a key, always with the model. --key auto (default) decides per row: seed, \
cpus, index when the row has a seed (gem5 runs and `gen` set it: variants run on the same seeds \
match wherever their files are); else name, index when it has a @name; else the file's base \
name and index (runs-a/h003.hist matches runs-b/h003.hist). --key COLS uses these columns \
(`basename` is the base name of `file`). A key occurring twice on one side is an error.

Exit status: 0 ok (flips are not an error), 2 bad input (reported as file:line: message) or an \
output that cannot be written, 141 standard output closed early (a broken pipe).

Examples:
  memconform compare mesi.csv mesi-bug.csv
  memconform compare all.csv --variant-column variant
  memconform compare all.csv --variant-column variant --baseline fixed --format flips > flips.csv
  memconform compare a.csv b.csv --key basename,index --show 50")]
pub struct CompareArgs {
    /// A.csv B.csv, or one CSV with --variant-column.
    #[arg(required = true, num_args = 1..=2, value_name = "CSV")]
    files: Vec<PathBuf>,

    /// Compare the variants of one CSV: the values of this column.
    #[arg(long, value_name = "COLUMN")]
    variant_column: Option<String>,

    /// With --variant-column: the variant the others are compared against
    /// (default: the first in the file).
    #[arg(long, value_name = "VALUE", requires = "variant_column")]
    baseline: Option<String>,

    /// How rows are matched: auto, or columns, comma-separated (the model is always part of it).
    #[arg(long, default_value = "auto", value_parser = KeySpec::parse, value_name = "auto|COLUMNS")]
    key: KeySpec,

    /// Flipped histories listed in the table.
    #[arg(long, default_value_t = 20, value_name = "N")]
    show: usize,

    /// Output format.
    #[arg(long, short, value_enum, default_value = "table")]
    format: Format,
}

/// Runs `compare`; returns the exit code.
pub fn run(args: CompareArgs) -> i32 {
    let fail = |msg: String| {
        say!("memconform compare: {msg}");
        exit::INPUT_ERROR
    };
    match (args.files.len(), &args.variant_column) {
        (2, Some(_)) => {
            return fail("--variant-column takes one CSV (got two)".to_string());
        }
        (1, None) => {
            return fail("give two CSVs (A B), or one with --variant-column COLUMN".to_string());
        }
        _ => {}
    }
    let mut extra = args.key.columns();
    if let Some(v) = &args.variant_column {
        extra.push(v.clone());
    }
    let res = match read_results(&args.files, &extra) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    let pairs = match &args.variant_column {
        Some(col) => match sides_by_variant(&res, col, args.baseline.as_deref()) {
            Ok(p) => p,
            Err(e) => return fail(e.to_string()),
        },
        None => vec![sides_by_file(&res)],
    };
    let mut comparisons: Vec<Comparison> = Vec::new();
    for (a, b) in &pairs {
        match compare(&res, a, b, &args.key) {
            Ok(c) => comparisons.push(c),
            Err(e) => return fail(e.to_string()),
        }
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let written = match args.format {
        Format::Table => comparisons.iter().enumerate().try_for_each(|(i, c)| {
            if i > 0 {
                writeln!(out)?;
            }
            c.write_table(&mut out, args.show)
        }),
        Format::Csv => write_csv(&mut out, &comparisons),
        Format::Flips => write_flips_csv(&mut out, &comparisons),
    }
    .and_then(|()| out.flush());
    super::summarize::finish_write(written, "compare")
}
