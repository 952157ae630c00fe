//! Progress on long work, on standard error when it is a terminal (never
//! in a pipe or a file): the input bytes done with their rate and ETA,
//! the histories checked and broken, and what is being checked now — a
//! large history shows how long it has been checked and, from the batch's
//! rate so far, about how long it has left — so that one big input is not
//! minutes of silence.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::batch::Watcher;

/// What the progress line says, updated by the workers and the sink.
#[derive(Default)]
struct State {
    /// Histories (gem5 runs) being checked: file, index, operations, since.
    in_flight: Vec<(PathBuf, usize, usize, Instant)>,
    /// Operations checked and the worker seconds they took (the rate).
    ops_done: u64,
    secs_done: f64,
    histories: usize,
    broken: usize,
}

/// The progress line of `check`.
pub struct Progress {
    bar: indicatif::ProgressBar,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// A progress line over `files` (their bytes), shown only when standard
    /// error is a terminal.
    pub fn new(files: &[PathBuf]) -> Progress {
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Progress {
                bar: indicatif::ProgressBar::hidden(),
                state,
                stop,
                ticker: None,
            };
        }
        let total: u64 = files.iter().map(|f| input_bytes(f)).sum();
        let bar = indicatif::ProgressBar::new(total.max(1));
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:25} {bytes}/{total_bytes}  {msg}",
            )
            .expect("a valid template"),
        );
        let ticker = {
            let (bar, state, stop) = (bar.clone(), state.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let mut m = message(&state.lock().expect("not poisoned"));
                    // the inputs' ETA, from the bytes done so far
                    let (done, total) = (bar.position(), bar.length().unwrap_or(0));
                    if done > 0 && total > done {
                        let t = bar.elapsed().as_secs_f64();
                        let eta = t * (total - done) as f64 / done as f64;
                        m = format!("ETA {eta:.0} s · {m}");
                    }
                    bar.set_message(m);
                    bar.tick();
                    std::thread::sleep(Duration::from_millis(250));
                }
            })
        };
        Progress {
            bar,
            state,
            stop,
            ticker: Some(ticker),
        }
    }

    /// Whether nothing is shown.
    pub fn is_hidden(&self) -> bool {
        self.bar.is_hidden()
    }

    /// An input is done (checked, or unreadable).
    pub fn input_done(&self, file: &Path) {
        self.bar.inc(input_bytes(file));
    }

    /// A history is delivered.
    pub fn history(&self, broken: bool) {
        let mut s = self.state.lock().expect("not poisoned");
        s.histories += 1;
        s.broken += broken as usize;
    }

    /// Clears the line.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Watcher for Progress {
    fn started(&self, file: &Path, index: usize, ops: usize) {
        if self.is_hidden() {
            return;
        }
        let mut s = self.state.lock().expect("not poisoned");
        s.in_flight
            .push((file.to_path_buf(), index, ops, Instant::now()));
    }

    fn ended(&self, file: &Path, index: usize, ops: usize) {
        if self.is_hidden() {
            return;
        }
        let mut s = self.state.lock().expect("not poisoned");
        if let Some(k) = s
            .in_flight
            .iter()
            .position(|(f, i, _, _)| f == file && *i == index)
        {
            let (_, _, _, since) = s.in_flight.swap_remove(k);
            s.ops_done += ops as u64;
            s.secs_done += since.elapsed().as_secs_f64();
        }
    }
}

/// The line's message: histories so far, and the longest-running check.
fn message(s: &State) -> String {
    let mut m = format!("{} histories, {} broken", s.histories, s.broken);
    let longest = s.in_flight.iter().min_by_key(|(_, _, _, since)| *since);
    if let Some((file, index, ops, since)) = longest {
        let t = since.elapsed().as_secs_f64();
        if t >= 1.0 {
            let name = memconform_report::shown_path(file);
            if *ops > 0 {
                m.push_str(&format!(
                    " · checking {name}#{index} ({ops} ops) for {t:.0} s"
                ));
                // (a worker's rate so far: operations per second of checking)
                if s.secs_done > 0.5 && s.ops_done > 0 {
                    let rate = s.ops_done as f64 / s.secs_done;
                    let left = (*ops as f64 / rate - t).max(0.0);
                    m.push_str(&format!(", about {left:.0} s left"));
                }
            } else {
                m.push_str(&format!(" · checking {name} for {t:.0} s"));
            }
        }
    }
    m
}

/// The bytes of an input: a file's size, a gem5 run directory's files'.
fn input_bytes(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => m.len(),
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum(),
        _ => 0,
    }
}
