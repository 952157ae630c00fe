//! `mutate run|status|report`: a campaign's command line (the logic is in
//! `mutate::campaign` and `report::mutation`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use super::exit;
use crate::mutate::campaign::{self, Campaign, RunOptions, State, Status};

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

#[derive(Args)]
pub(crate) struct RunArgs {
    /// The campaign directory (made by `mutate init`).
    pub dir: PathBuf,
    /// Slots: private gem5 copies, each building and running one mutant at a
    /// time (each costs a copy of the tree and its build directory).
    #[arg(short = 'j', long = "slots", default_value_t = 1, value_parser = |s: &str| super::parse_count(s, 1, 256))]
    pub slots: usize,
    /// Run only shard K of N (mutants by sorted id, every N-th from K):
    /// independent processes, e.g. a Slurm array, each with its own log.
    #[arg(long, value_parser = parse_shard, default_value = "0/1")]
    pub shard: (usize, usize),
    /// Where the slots live (default: DIR/slots); node-local scratch on a
    /// cluster.
    #[arg(long)]
    pub slot_dir: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct DirArgs {
    /// The campaign directory.
    pub dir: PathBuf,
}

/// `mutate run`: the baseline, then every mutant not yet done; a first
/// Ctrl-C stops after the runs in flight (resume with the same command).
pub(crate) fn run(args: &RunArgs) -> i32 {
    let c = match Campaign::open(&args.dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("memconform mutate run: {e}");
            return exit::INPUT_ERROR;
        }
    };
    static STOP: AtomicBool = AtomicBool::new(false);
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("memconform: stopping after the runs in flight (Ctrl-C again to quit now); `mutate run` resumes");
    });
    let progress = |line: &str| eprintln!("{line}");
    let o = RunOptions {
        slots: args.slots,
        shard: args.shard,
        slot_dir: args.slot_dir.clone(),
        stop: &STOP,
        progress: &progress,
    };
    match campaign::run(&c, &o) {
        Ok(n) => {
            eprintln!("{n} mutants finished in this run");
            if STOP.load(Ordering::SeqCst) {
                130
            } else {
                exit::CONSISTENT
            }
        }
        Err(e) => {
            eprintln!("memconform mutate run: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// `mutate status`: mutants done, pending and by status.
pub(crate) fn status(args: &DirArgs) -> i32 {
    let state = Campaign::open(&args.dir).and_then(|c| {
        let s = State::of(&c)?;
        let mut counts = std::collections::BTreeMap::new();
        for st in s.status.values() {
            *counts.entry(st.name()).or_insert(0usize) += 1;
        }
        let done = s.status.len();
        println!(
            "{}: {} mutants, {done} done, {} pending; baseline {} seeds run",
            c.settings.protocol,
            c.mutants.len(),
            c.mutants.len() - done,
            s.baseline.len()
        );
        for (name, n) in counts {
            println!("  {name:<10} {n}");
        }
        Ok(())
    });
    match state {
        Ok(()) => exit::CONSISTENT,
        Err(e) => {
            eprintln!("memconform mutate status: {e}");
            exit::INPUT_ERROR
        }
    }
}

/// `mutate report`: writes the reports into the campaign directory and
/// prints the text one. Exit 0 when every mutant is done, 6 while some are
/// pending.
pub(crate) fn report(args: &DirArgs) -> i32 {
    let done =
        Campaign::open(&args.dir).and_then(|c| {
            let s = State::of(&c)?;
            let text = crate::report::mutation::write_all(&s)?;
            print!("{text}");
            Ok(s.status.len() == c.mutants.len()
                && !s.status.values().any(|&st| st == Status::Unknown))
        });
    match done {
        Ok(true) => exit::CONSISTENT,
        Ok(false) => exit::UNKNOWN,
        Err(e) => {
            eprintln!("memconform mutate report: {e}");
            exit::INPUT_ERROR
        }
    }
}
