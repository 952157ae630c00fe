//! Many inputs at once: their histories checked in parallel, results
//! streamed in input order, sharded across processes.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use memconform_core::check::Options;
use memconform_core::models::Model;
use memconform_ingest::checked::check_history_promised;
use memconform_ingest::checked::check_run;
use memconform_ingest::{stream_unbuilt, Checked, InputError, Reading, Unbuilt};

/// About the bytes a history holds per operation while it waits in a
/// chunk and then is checked (read, then built by its worker, with its
/// threads and relations): histories wait in chunks, and a chunk ends early
/// when they would hold more than the memory budget of one check.
const HELD_PER_OP: u64 = 128;

/// Told when a worker starts and ends checking a history (for progress on
/// long work): its file, its index there and its operations.
pub trait Watcher: Sync {
    fn started(&self, _file: &Path, _index: usize, _ops: usize) {}
    fn ended(&self, _file: &Path, _index: usize, _ops: usize) {}
}

/// What a batch delivers, in input order.
pub enum Item<'a> {
    /// A checked history of the input file or run directory.
    Checked(&'a Path, Box<Checked>),
    /// An input that could not be read.
    Error(InputError),
}

enum Job {
    /// A history of a file, built by the worker that checks it.
    History(Unbuilt),
    Run,
}

/// One unit of a chunk, in input order: something to check, or an input
/// that could not be read; or where a file checked whole while its
/// histories are read starts (`Hold`) and ends (`Release`: whether it
/// passed, else its error if this shard reports it).
enum Unit<'a> {
    Check(&'a Path, Job),
    Error(InputError),
    Hold,
    Release(Result<(), Option<InputError>>),
}

/// A unit's results: items made ready by `prepare`, or a `Hold` or
/// `Release` passed on (the error of a released file made ready too).
enum Out<P> {
    Ready(P),
    Hold,
    Release(Result<(), Option<P>>),
}

/// Hands items to the sink in order, holding those of a file between its
/// `Hold` and `Release`: released, they go on; a file that failed gives
/// only its error.
struct Holding<P> {
    held: Option<Vec<P>>,
}

impl<P> Holding<P> {
    fn take(&mut self, out: Out<P>, sink: &mut impl FnMut(P)) {
        match out {
            Out::Ready(p) => match &mut self.held {
                Some(held) => held.push(p),
                None => sink(p),
            },
            Out::Hold => self.held = Some(Vec::new()),
            Out::Release(Ok(())) => self.held.take().into_iter().flatten().for_each(sink),
            Out::Release(Err(error)) => {
                self.held = None;
                error.into_iter().for_each(sink);
            }
        }
    }
}

/// Checks every history of `files` and hands each result to `sink` in input
/// order, as soon as its chunk is done: histories are checked `chunk` at a
/// time in parallel, so memory is bounded by the histories in flight, not the
/// batch. With more than one worker, a thread of its own reads the next
/// chunk while the workers check two at once, each built by the worker that
/// checks it, and each delivered in turn as soon as it is done (at most five
/// chunks are held: two being checked, two checked and waiting, one being
/// read). `stop` (e.g. set by Ctrl-C) ends the batch after the chunks being
/// checked; everything delivered is complete.
/// Each item goes through `prepare` on the worker that checked it (e.g.
/// its report written to bytes, so that this thread only copies them out),
/// then to `sink` here. With `ahead`, a large `.hist` file or the client's
/// output is checked whole beside the reading of its histories
/// ([`stream_unbuilt`]), not before: the workers start at once, and the
/// file's items wait here, prepared (their reports: small), until the
/// check passed — a file with an error gives only the error.
/// `watcher` hears each history (each gem5 run) start and end.
/// `shard = (k, n)`: only every n-th unit from the k-th is checked — a
/// unit is a history of a file or a gem5 run, counted in input order
/// across all files (a file with an error is one unit, however far it was
/// read) — so n processes with the same inputs check each unit once
/// (`check --shard`), whatever their `ahead`.
#[allow(clippy::too_many_arguments)]
pub fn run_batch<'a, P: Send>(
    files: &'a [PathBuf],
    models: &[Model],
    opts: &Options,
    reading: &Reading,
    chunk: usize,
    shard: (usize, usize),
    stop: &AtomicBool,
    ahead: bool,
    watcher: &dyn Watcher,
    prepare: impl Fn(Item<'a>) -> P + Sync,
    mut sink: impl FnMut(P),
) {
    let check = |unit: Unit<'a>| -> Vec<Out<P>> {
        let items = match unit {
            Unit::Check(file, Job::History(h)) => vec![match h.build(file) {
                Ok(h) => {
                    let (index, ops) = (h.index, h.n_thread_ops());
                    watcher.started(file, index, ops);
                    let c = check_history_promised(h, models, opts, reading.promise);
                    watcher.ended(file, index, ops);
                    Item::Checked(file, Box::new(c))
                }
                Err(e) => Item::Error(e),
            }],
            Unit::Check(file, Job::Run) => {
                watcher.started(file, 0, 0);
                let checked = check_run(file, models, opts, reading);
                watcher.ended(file, 0, 0);
                match checked {
                    Ok(cs) => cs
                        .into_iter()
                        .map(|c| Item::Checked(file, Box::new(c)))
                        .collect(),
                    Err(e) => vec![Item::Error(e)],
                }
            }
            Unit::Error(e) => vec![Item::Error(e)],
            Unit::Hold => return vec![Out::Hold],
            Unit::Release(r) => {
                return vec![Out::Release(
                    r.map_err(|e| e.map(|e| prepare(Item::Error(e)))),
                )]
            }
        };
        items
            .into_iter()
            .map(|item| Out::Ready(prepare(item)))
            .collect()
    };
    let mut holding = Holding { held: None };
    if rayon::current_num_threads() == 1 {
        // one worker: read, check and deliver in turn, on this thread
        produce(files, opts, chunk, shard, stop, ahead, |units| {
            for unit in units {
                for out in check(unit) {
                    holding.take(out, &mut sink);
                }
            }
            true
        });
        return;
    }
    std::thread::scope(|scope| {
        // The reader deals the chunks in turn to two checking threads, each
        // handing its chunk to the workers, so two chunks are checked at
        // once and workers done with one go on with the other; this thread
        // only takes the results in input order. A chunk passes from the
        // reader to a checking thread, and its results from there to this
        // thread, hand to hand: a checking thread takes its next chunk as
        // soon as it hands over its results, while they are delivered, so
        // no worker waits for the output or for the slowest history of a
        // chunk. (At most five chunks are held: two being checked, two
        // checked and waiting to be delivered, one being read. The threads
        // live as long as the batch: with a thread started per chunk, the
        // kernel zeroing the allocator's fresh pages took 30-40% of the CPU
        // time of axe's suite, 10,000 traces of about 15 operations, at
        // `-j 2`.)
        const CHECKING: usize = 2;
        let check = &check;
        let mut to = Vec::new();
        let mut from = Vec::new();
        let mut handles = Vec::new();
        for _ in 0..CHECKING {
            let (tx_units, rx_units) = std::sync::mpsc::sync_channel::<Vec<Unit<'a>>>(0);
            let (tx_done, rx_done) = std::sync::mpsc::sync_channel::<Vec<Vec<Out<P>>>>(0);
            handles.push(Some(scope.spawn(move || {
                for units in rx_units {
                    let done = units.into_par_iter().map(check).collect();
                    if tx_done.send(done).is_err() {
                        return;
                    }
                }
            })));
            to.push(tx_units);
            from.push(rx_done);
        }
        scope.spawn(move || {
            let mut sent = 0usize;
            produce(files, opts, chunk, shard, stop, ahead, |units| {
                // (false: that checking thread panicked; the panic is
                // delivered in its place)
                let ok = to[sent % CHECKING].send(units).is_ok();
                sent += 1;
                ok
            })
        });
        for i in (0..CHECKING).cycle() {
            match from[i].recv() {
                Ok(done) => {
                    for out in done.into_iter().flatten() {
                        holding.take(out, &mut sink);
                    }
                }
                // that thread ended: the reader is done (it had no more
                // chunk for it), or it panicked and the panic goes on here
                Err(_) => {
                    let handle = handles[i].take().expect("joined once");
                    if let Err(panic) = handle.join() {
                        std::panic::resume_unwind(panic);
                    }
                    break;
                }
            }
        }
        // (ended as the first did: with no chunk left, or after a panic)
        for handle in handles.into_iter().flatten() {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
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
    ahead: bool,
    mut send: impl FnMut(Vec<Unit<'a>>) -> bool,
) {
    let chunk = chunk.max(1);
    // units counted across files, this shard's every n-th
    let mut unit = 0usize;
    let mine = |unit: &mut usize| {
        let m = *unit % shard.1.max(1) == shard.0;
        *unit += 1;
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
            if mine(&mut unit) {
                pending.push(Unit::Check(file, Job::Run));
            }
        } else {
            // checked whole, then read a history at a time, each validated
            // (an axe trace parsed too) by the worker that checks it: only
            // the histories in flight are held (an invalid one is reported
            // in its place); with `ahead`, checked whole beside
            let first = unit;
            if ahead {
                pending.push(Unit::Hold);
            }
            let streamed = stream_unbuilt(file, opts.max_memory, ahead, |h| {
                if !mine(&mut unit) {
                    return ControlFlow::Continue(());
                }
                held = held.saturating_add(h.ops() as u64 * HELD_PER_OP);
                pending.push(Unit::Check(file.as_path(), Job::History(h)));
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
            let streamed = streamed.map_err(|e| {
                // a file with an error is one unit, however far it was read
                unit = first;
                mine(&mut unit).then_some(e)
            });
            match streamed {
                Ok(()) if ahead => pending.push(Unit::Release(Ok(()))),
                Ok(()) => {}
                Err(e) if ahead => pending.push(Unit::Release(Err(e))),
                Err(e) => pending.extend(e.map(Unit::Error)),
            }
            if ahead && stop.load(Ordering::Relaxed) {
                // what this file's held items wait for goes on, without the
                // histories not yet checked
                pending.retain(|u| matches!(u, Unit::Hold | Unit::Release(_)));
                flush(&mut pending, &mut gone);
                return;
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
