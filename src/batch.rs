//! Many inputs at once: their histories checked in parallel, results
//! streamed in input order, sharded across processes.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use memconform_core::check::Options;
use memconform_core::history::History;
use memconform_core::models::Model;
use memconform_ingest::checked::check_run;
use memconform_ingest::{check_history, stream_file, Checked, InputError, Reading};

/// About the bytes a history waiting to be checked holds per operation
/// (its operations, threads and relations as built): histories wait in
/// chunks, and a chunk ends early when they hold more than the memory
/// budget of one check.
const HELD_PER_OP: u64 = 128;

/// What a batch delivers, in input order.
pub enum Item<'a> {
    /// A checked history of the input file or run directory.
    Checked(&'a Path, Box<Checked>),
    /// An input that could not be read.
    Error(InputError),
}

enum Job {
    History(Box<History>),
    Run,
}

/// Checks every history of `files` and hands each result to `sink` in input
/// order, as soon as its chunk is done: histories are checked `chunk` at a
/// time in parallel, so memory is bounded by the histories in flight, not the
/// batch. `stop` (e.g. set by Ctrl-C) ends the batch after the current chunk;
/// everything delivered before is complete. `shard = (k, n)`: only every
/// n-th unit from the k-th is checked — a unit is a history of a file or a
/// gem5 run, counted in input order across all files — so n processes
/// with the same inputs check each unit once (`check --shard`).
#[allow(clippy::too_many_arguments)]
pub fn run_batch<'a>(
    files: &'a [PathBuf],
    models: &[Model],
    opts: &Options,
    reading: &Reading,
    chunk: usize,
    shard: (usize, usize),
    stop: &AtomicBool,
    mut sink: impl FnMut(Item<'a>),
) {
    let chunk = chunk.max(1);
    let mut unit = 0usize;
    let mut mine = || {
        let m = unit % shard.1.max(1) == shard.0;
        unit += 1;
        m
    };
    let flush = |pending: &mut Vec<(&'a Path, Job)>, sink: &mut dyn FnMut(Item<'a>)| {
        let check = |(file, job): (&'a Path, Job)| match job {
            Job::History(h) => (file, Ok(vec![check_history(*h, models, opts)])),
            Job::Run => (file, check_run(file, models, opts, reading)),
        };
        // one worker: checked here, without handing the histories to it
        let done: Vec<(&'a Path, Result<Vec<Checked>, InputError>)> =
            if rayon::current_num_threads() == 1 {
                pending.drain(..).map(check).collect()
            } else {
                pending.par_drain(..).map(check).collect()
            };
        for (file, result) in done {
            match result {
                Ok(cs) => cs
                    .into_iter()
                    .for_each(|c| sink(Item::Checked(file, Box::new(c)))),
                Err(e) => sink(Item::Error(e)),
            }
        }
    };
    let mut pending: Vec<(&'a Path, Job)> = Vec::new();
    // about the bytes the histories in `pending` hold
    let mut held = 0u64;
    for file in files {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if file.is_dir() {
            if mine() {
                pending.push((file, Job::Run));
            }
        } else {
            // checked whole, then parsed and validated a history at a time:
            // only the histories in flight are held (an invalid one is
            // reported and skipped)
            let mut stopped = false;
            let streamed = stream_file(file, opts.max_memory, |h| {
                if !mine() {
                    return ControlFlow::Continue(());
                }
                match h {
                    Ok(h) => {
                        held = held.saturating_add(h.n() as u64 * HELD_PER_OP);
                        pending.push((file.as_path(), Job::History(Box::new(h))));
                    }
                    Err(e) => {
                        flush(&mut pending, &mut sink);
                        held = 0;
                        sink(Item::Error(e));
                    }
                }
                // a chunk, or fewer large histories: what waits is bounded
                // by the memory budget too
                if pending.len() >= chunk || held > opts.max_memory {
                    held = 0;
                    if stop.load(Ordering::Relaxed) {
                        stopped = true;
                        return ControlFlow::Break(());
                    }
                    flush(&mut pending, &mut sink);
                }
                ControlFlow::Continue(())
            });
            if stopped {
                return;
            }
            if let Err(e) = streamed {
                if mine() {
                    flush(&mut pending, &mut sink);
                    sink(Item::Error(e));
                }
                continue;
            }
        }
        while pending.len() >= chunk {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let rest = pending.split_off(chunk);
            flush(&mut pending, &mut sink);
            held = 0;
            pending = rest;
        }
    }
    if !stop.load(Ordering::Relaxed) {
        flush(&mut pending, &mut sink);
    }
}
