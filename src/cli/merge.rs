//! `memconform merge`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::exit;
use memconform_report::merge::merge;
use memconform_report::write_atomic;

#[derive(Args)]
#[command(after_help = "\
Joins the results CSVs of `memconform check -f csv --shard K/N` (one per shard, or several runs \
of the same inputs) into one: every part must have the same columns; one row per (file, index, \
model), the last read winning, at the place its key first appeared. Merging is idempotent: a part \
given twice, or a merged file merged again, adds nothing.

Exit status: 0 ok, 2 bad input (reported as file:line: message) or an unwritable output (an \
existing output is then left as it was), 141 standard output closed early (a broken pipe).

Example (a Slurm array of 8 tasks, then the merge):
  sbatch --array=0-7 --wrap 'memconform check runs/ -f csv --shard $SLURM_ARRAY_TASK_ID/8 -o part-$SLURM_ARRAY_TASK_ID.csv'
  memconform merge part-*.csv -o all.csv")]
pub struct MergeArgs {
    /// Results CSVs of `memconform check -f csv`.
    #[arg(required = true, value_name = "CSV")]
    files: Vec<PathBuf>,

    /// The merged CSV (default: standard output); never one of the inputs.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Runs `merge`; returns the exit code.
pub fn run(args: MergeArgs) -> i32 {
    // -o never over one of the parts
    memconform_report::protect(&memconform_report::Inputs::new().with(&args.files));
    if let Some(out) = &args.out {
        if let Err(e) = memconform_report::refuse_input(out) {
            return super::write_failed("merge", &super::shown(out), &e);
        }
    }
    let bytes = match merge(&args.files) {
        Ok(b) => b,
        Err(e) => {
            say!("memconform merge: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let written = match &args.out {
        Some(p) => write_atomic(p, &bytes),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes).and_then(|()| out.flush())
        }
    };
    match written {
        Ok(()) => exit::CONSISTENT,
        Err(e) => super::write_failed("merge", "the output", &e),
    }
}
