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

/// One unit of a chunk, in input order: something to check, or an input
/// that could not be read.
enum Unit<'a> {
    Check(&'a Path, Job),
    Error(InputError),
}

/// Checks every history of `files` and hands each result to `sink` in input
/// order, as soon as its chunk is done: histories are checked `chunk` at a
/// time in parallel, so memory is bounded by the histories in flight, not the
/// batch. With more than one worker, a thread of its own reads and builds
/// the next chunk while the workers check two at once, the older delivered
/// as soon as it is done (at most four chunks are held: two being checked,
/// one ready, one being read). `stop` (e.g. set by Ctrl-C) ends the batch
/// after the chunks being checked; everything delivered is complete.
/// `shard = (k, n)`: only every n-th unit from the k-th is checked — a
/// unit is a history of a file or a gem5 run, counted in input order
/// across all files — so n processes with the same inputs check each unit
/// once (`check --shard`).
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
    let check = |unit: Unit<'a>| -> Vec<Item<'a>> {
        match unit {
            Unit::Check(file, Job::History(h)) => vec![Item::Checked(
                file,
                Box::new(check_history(*h, models, opts)),
            )],
            Unit::Check(file, Job::Run) => match check_run(file, models, opts, reading) {
                Ok(cs) => cs
                    .into_iter()
                    .map(|c| Item::Checked(file, Box::new(c)))
                    .collect(),
                Err(e) => vec![Item::Error(e)],
            },
            Unit::Error(e) => vec![Item::Error(e)],
        }
    };
    if rayon::current_num_threads() == 1 {
        // one worker: read, check and deliver in turn, on this thread
        produce(files, opts, chunk, shard, stop, |units| {
            for unit in units {
                check(unit).into_iter().for_each(&mut sink);
            }
            true
        });
        return;
    }
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Unit<'a>>>(1);
        scope.spawn(move || {
            produce(files, opts, chunk, shard, stop, |units| {
                tx.send(units).is_ok()
            })
        });
        // two chunks are checked at once, each by a thread of its own that
        // hands it to the workers (chunks alternate between them), so
        // workers done with the older go on with the newer and the older is
        // delivered meanwhile: no worker waits for the slowest history of a
        // chunk or for the output. (The two threads live as long as the
        // batch: with a thread started per chunk, the kernel zeroing the
        // allocator's fresh pages took 30-40% of the CPU time of axe's
        // suite, 10,000 traces of about 15 operations, at `-j 2`.)
        let check = &check;
        let mut to = Vec::new();
        let mut from = Vec::new();
        let mut handles = Vec::new();
        for _ in 0..2 {
            let (tx_units, rx_units) = std::sync::mpsc::channel::<Vec<Unit<'a>>>();
            let (tx_done, rx_done) = std::sync::mpsc::channel::<Vec<Vec<Item<'a>>>>();
            handles.push(scope.spawn(move || {
                for units in rx_units {
                    let done = units.into_par_iter().map(check).collect();
                    if tx_done.send(done).is_err() {
                        return;
                    }
                }
            }));
            to.push(tx_units);
            from.push(rx_done);
        }
        let (mut sent, mut delivered) = (0usize, 0usize);
        let mut deliver = |delivered: &mut usize, sink: &mut dyn FnMut(Item<'a>)| {
            let i = *delivered % 2;
            match from[i].recv() {
                Ok(done) => done.into_iter().flatten().for_each(sink),
                // its thread panicked: the panic goes on here
                Err(_) => match handles.remove(i).join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("a checking thread ends when its chunks do"),
                },
            }
            *delivered += 1;
        };
        for units in rx {
            if to[sent % 2].send(units).is_err() {
                // its thread panicked: delivering up to it says so
                while delivered < sent + 1 {
                    deliver(&mut delivered, &mut sink);
                }
            }
            sent += 1;
            if sent - delivered == 2 {
                deliver(&mut delivered, &mut sink);
            }
            if stop.load(Ordering::Relaxed) {
                // the reader sees `stop` too; what it sent after is dropped
                break;
            }
        }
        // what is being checked is complete when it ends: delivered too
        while delivered < sent {
            deliver(&mut delivered, &mut sink);
        }
        drop(to);
    });
}

/// Reads `files` in order into chunks of units (this shard's histories and
/// runs, and the inputs that could not be read, in place) and hands each
/// to `send` until it returns false or `stop` is set.
fn produce<'a>(
    files: &'a [PathBuf],
    opts: &Options,
    chunk: usize,
    shard: (usize, usize),
    stop: &AtomicBool,
    mut send: impl FnMut(Vec<Unit<'a>>) -> bool,
) {
    let chunk = chunk.max(1);
    let mut unit = 0usize;
    let mut mine = || {
        let m = unit % shard.1.max(1) == shard.0;
        unit += 1;
        m
    };
    let mut pending: Vec<Unit<'a>> = Vec::new();
    // about the bytes the histories in `pending` hold
    let mut held = 0u64;
    let mut gone = false;
    let mut flush = |pending: &mut Vec<Unit<'a>>, gone: &mut bool| {
        if !pending.is_empty() && !*gone {
            *gone = !send(std::mem::take(pending));
        }
        pending.clear();
    };
    for file in files {
        if stop.load(Ordering::Relaxed) || gone {
            return;
        }
        if file.is_dir() {
            if mine() {
                pending.push(Unit::Check(file, Job::Run));
            }
        } else {
            // checked whole, then parsed and validated a history at a time:
            // only the histories in flight are held (an invalid one is
            // reported in its place)
            let streamed = stream_file(file, opts.max_memory, |h| {
                if !mine() {
                    return ControlFlow::Continue(());
                }
                match h {
                    Ok(h) => {
                        held = held.saturating_add(h.n() as u64 * HELD_PER_OP);
                        pending.push(Unit::Check(file.as_path(), Job::History(Box::new(h))));
                    }
                    Err(e) => pending.push(Unit::Error(e)),
                }
                // a chunk, or fewer large histories: what waits is bounded
                // by the memory budget too
                if pending.len() >= chunk || held > opts.max_memory {
                    held = 0;
                    flush(&mut pending, &mut gone);
                    if gone || stop.load(Ordering::Relaxed) {
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            });
            if let Err(e) = streamed {
                if mine() {
                    pending.push(Unit::Error(e));
                }
            }
        }
        if pending.len() >= chunk {
            held = 0;
            flush(&mut pending, &mut gone);
        }
    }
    if !stop.load(Ordering::Relaxed) {
        flush(&mut pending, &mut gone);
    }
}
