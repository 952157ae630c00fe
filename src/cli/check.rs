//! `memconform check`.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{exit, shown};
use crate::batch::{run_batch, Item};
use memconform_core::check::{Options, Verdict};
use memconform_core::complete::Engine;
use memconform_core::models::Model;
use memconform_ingest::{discover, Checked, Reading};
use memconform_report::html::HtmlReport;
use memconform_report::shrunk::{shrink_checked, shrink_outcomes};
use memconform_report::{brief, Inputs, Output};
use memconform_report::{contradicts_expectation, rows, write_csv, write_json, write_text};

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// A line per run: its promise, the histories that break it, allowed
    /// and unknown; then each breaking history's shrunk counterexample.
    Summary,
    /// Every model's verdict per history, with certificates (`text`: the
    /// same).
    #[value(alias = "text")]
    Report,
    /// One row per history × model (columns in docs/reference.md).
    Csv,
    /// JSON lines, one object per history × model (same fields as CSV).
    Json,
}

#[derive(Args)]
#[command(after_help = "\
Models, weakest first: cc, ccv, cm (causal consistency, bad patterns), ccm (convergent causal \
memory, implied by SC), wccm (weak CCM, implied by TSO), wsc (weak SC by saturation, implied by \
SC), and sc, tso, pso (a store order exists: saturation, then a completion engine). A stronger \
model is checked gradually: the weaker models it implies run first and the first violation \
decides (the `decided_by` column). Inputs are .hist files or axe traces (recognised by content).

Exit status: 0 every verdict consistent, 1 some violation, 2 bad input or output (an input \
reported as file:line:col, the other files still checked; a gem5 run whose files cannot be \
one simulation; a bad flag; an output that cannot \
be written, -o then left as it was), 3 internal error (a certificate failed independent \
validation), 4 with --expect when a verdict differs from @expect (with --expect, a violation \
that @expect foresees does not count for status 1), 5 nothing checked (no history in the \
inputs), 6 no violation but some verdict unknown (time or memory budget, a damaged gem5 trace, or a \
gem5 run whose files disagree; the reason is in the output). The first that applies, in the order 3, 2, 4, 1, 6, 5, \
0. Before all of them: 141 when the reader of standard output closed it early (a broken \
pipe, e.g. `| head`: the output is cut), and 128 + the signal when Ctrl-C (130), SIGHUP \
(129) or SIGTERM (143, as `timeout` and Slurm send) stopped the run: the histories in \
flight end `unknown` (\"interrupted\"), every row before them is written whole and -o is \
committed (left as it was when nothing was checked); no temporary file stays. A second \
signal ends at once (-o then left as it was).

Damaged gem5 traces (a tester line that does not parse or holds values out of range, ticks \
out of log order, requests and completions that do not pair up, corrupt gzip data, a cut): \
every verdict `unknown`, with the place in the `damage` column; a trace only cut at the end \
(gem5 killed, a gzip stream cut short) keeps the violations of its prefix, which are \
violations of the whole run. --allow-damage reports the prefix's verdicts as they are.

Examples:
  memconform check examples/papers-and-litmus.hist
  memconform check --real-time traces/ --models sc --shrink shrunk/
  memconform check --real-time traces/ --html report/ --dot dots/
  memconform check runs/ --models wsc --format csv > results.csv")]
pub struct CheckArgs {
    /// .hist or axe files, gem5 output directories (with config.ini), or
    /// directories searched recursively for those.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Models to check, comma-separated (cc, ccv, cm, ccm, wccm, wsc, sc, tso, pso, rmo,
    /// armv8; all: the first nine; weak: rmo and armv8).
    #[arg(long, short, value_delimiter = ',', default_value = "all", value_parser = parse_model)]
    models: Vec<Vec<Model>>,

    /// Output format.
    #[arg(long, short, value_enum, default_value = "summary")]
    format: Format,

    /// Hold every history to this model (sc, tso, pso, ...) instead of the
    /// one its run's configuration promises (in-order blocking cores and
    /// Ruby's testers: sc; x86 O3 and Minor cores: tso) or its file's
    /// `@promise`/`@expect` lines.
    #[arg(long, value_name = "MODEL", value_parser = parse_one_model)]
    promise: Option<Model>,

    /// The `variant` column of every row whose history names none (a gem5
    /// run's comes from `variant` in its memconform-run.json, a .hist's from
    /// `@variant`): e.g. the mutant these runs come from.
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,

    /// Write the results to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Worker threads (default: one per core; 1 to 1024).
    #[arg(long, short, value_parser = |s: &str| super::parse_count(s, 1, 1024))]
    jobs: Option<usize>,

    /// Compare verdicts with each history's @expect line; exit 4 if any differs.
    #[arg(long)]
    expect: bool,

    /// Completion engine for sc, tso, pso once saturation has run.
    #[arg(long, default_value = "auto", value_parser = super::engine_parser())]
    engine: Engine,

    /// Time budget per history in seconds (0: none); past it the verdict is `unknown`.
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = parse_seconds)]
    timeout: f64,

    /// For gem5 runs: also check the history in real-time order across all
    /// ports (a before b iff a completed before b was issued: linearizability
    /// of the bytes, SC decided per byte in O(n log n)), as index 1 next to
    /// the per-port history (index 0).
    #[arg(long)]
    real_time: bool,

    /// For damaged gem5 traces: check the prefix before the damage and report
    /// its verdicts (the `damage` column and a note still say so), instead of
    /// `unknown`.
    #[arg(long)]
    allow_damage: bool,

    /// For gem5 violations traced with ProtocolTrace: how many protocol
    /// transitions of the cache lines involved the explanation lists (the
    /// last ones before the certificate's last operation; 0 lists none).
    #[arg(long, default_value_t = 40, value_name = "N",
          value_parser = |s: &str| super::parse_count(s, 0, 1_000_000))]
    transitions: usize,

    /// Check only shard K of N (from 0): every N-th unit (a history of a
    /// file, or a gem5 run) from the K-th, in input order. N processes with
    /// the same inputs and K = 0..N-1 check each unit once; `memconform
    /// merge` joins their CSVs.
    #[arg(long, value_name = "K/N", value_parser = super::parse_shard, default_value = "0/1")]
    shard: (usize, usize),

    /// Shrink every violation to a 1-minimal counterexample and write each
    /// into this directory as a .hist (named after the history, its index
    /// and the model; see `memconform shrink --help`); the text report
    /// notes each file.
    #[arg(long, value_name = "DIR")]
    shrink: Option<PathBuf>,

    /// Write a self-contained HTML page per violating history into this
    /// directory (timelines per port or thread around the certificate's
    /// cycle, the shrunk counterexample, the gem5 explanation, the commands
    /// that reproduce it; no script, no network) and an index.html.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,

    /// Write each violation's certificate into this directory as Graphviz
    /// DOT (`NAME-INDEX-MODEL.dot`, herd7-style: events by thread, edges
    /// labelled po/wr/rw/..., the cycle bold red), and its shrunk
    /// counterexample's relations (`NAME-INDEX-MODEL.shrunk.dot`).
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,

    /// Time budget of each violation's shrink, in seconds (0: none; default
    /// 60 with --shrink, --html or --dot, 10 for the counterexamples of the
    /// summary); past it the smallest history found is shown, marked as
    /// possibly not 1-minimal.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    shrink_timeout: Option<f64>,

    /// Skip the independent re-check of every certificate.
    #[arg(long)]
    no_validate: bool,

    /// Decide each model directly, without first running the weaker models it
    /// implies (faster on valid histories; violations then name the model's
    /// own cycle instead of the weakest bad pattern).
    #[arg(long)]
    no_gradual: bool,

    /// For consistent sc/tso/pso histories, also compute the kernel (write
    /// pairs ordered alike in every witness) and how much of it saturation found.
    #[arg(long)]
    kernel: bool,

    /// Memory budget per history and model (e.g. 2G, 500M; default: a quarter
    /// of the memory the process may use: the smallest of the machine's
    /// memory, `ulimit -v`/`-d` and its cgroup's limit). A history whose
    /// structures are estimated larger gets `unknown` with the reason instead
    /// of risking the batch.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    max_memory: Option<u64>,

    /// Representation: dense bit matrices, sparse frontiers, or auto (dense
    /// below 64 operations, or up to 4,096 with more than one lane per 16
    /// operations; SC on a real-time view by per-variable zones); for
    /// benchmarks and cross-checks.
    #[arg(long, value_enum, default_value = "auto", hide_short_help = true)]
    representation: Representation,
}

/// `--representation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Representation {
    Auto,
    Dense,
    Sparse,
}

/// `2G`, `500M`, `64k` or plain bytes.
fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_lowercase() {
                'k' => 1 << 10,
                'm' => 1 << 20,
                'g' => 1 << 30,
                't' => 1 << 40,
                _ => return Err(format!("`{s}`: unit must be k, M, G or T")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size like 2G, 500M or 1048576"))?;
    if !n.is_finite() || n <= 0.0 || n * mult as f64 > u64::MAX as f64 / 2.0 {
        return Err(format!("`{s}` is not a positive size"));
    }
    Ok((n * mult as f64) as u64)
}

/// One model by name (`--promise`).
pub(crate) fn parse_one_model(s: &str) -> Result<Model, String> {
    Model::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Model::EVERY.iter().map(|m| m.name()).collect();
        format!("unknown model `{s}` (known: {})", names.join(", "))
    })
}

pub(crate) fn parse_model(s: &str) -> Result<Vec<Model>, String> {
    match s {
        // the nine of the gradual papers and PSO; the weak ISAs' when named
        "all" => return Ok(Model::DEFAULT.to_vec()),
        "weak" => return Ok(Model::WEAK.to_vec()),
        _ => {}
    }
    Model::from_name(s).map(|m| vec![m]).ok_or_else(|| {
        let names: Vec<&str> = Model::EVERY.iter().map(|m| m.name()).collect();
        format!(
            "unknown model `{s}` (known: {}, all, weak)",
            names.join(", ")
        )
    })
}

/// Seconds of a time budget: from 0 (none) to 10⁷ (four months).
pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (0.0..=1e7).contains(&t) => Ok(t),
        _ => Err(format!(
            "`{s}` is not a number of seconds from 0 (no budget) to 10000000"
        )),
    }
}

/// Where the results go: `-o FILE` (written whole, see [`Output`]) or
/// standard output.
enum Sink {
    File(Output),
    Stdout(io::StdoutLock<'static>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(o) => o.write(buf),
            Sink::Stdout(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(o) => o.flush(),
            Sink::Stdout(s) => s.flush(),
        }
    }
}

/// Runs `check`; returns the exit code: the inputs found, the outputs
/// opened, the batch checked and written history by history, the output
/// put in place, the closing lines.
pub fn run(args: CheckArgs) -> i32 {
    if let Some(j) = args.jobs {
        // Only fails if a pool exists already, which is then used as is.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    let mut models: Vec<Model> = args.models.iter().flatten().copied().collect();
    models.sort();
    models.dedup();
    // cancelled by the first signal (below): the histories in flight end
    // `unknown`, "interrupted" by its name
    let cancel = memconform_core::budget::Cancel::new();
    let opts = options(&args, &cancel);
    let reading = Reading {
        real_time: args.real_time,
        allow_damage: args.allow_damage,
        transitions: args.transitions,
        in_progress: false,
        promise: args.promise,
    };
    let found = discover(&args.paths);
    let (files, errors) = (found.inputs, found.errors);
    // no output over an input: -o, and every file --shrink, --html and
    // --dot write (a gem5 run directory is an input as a whole; a
    // directory only searched is not, the files found in it are)
    memconform_report::protect(&Inputs::new().with(&files));
    let Some(in_turn) = InTurn::create(&args) else {
        return exit::INPUT_ERROR;
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        // Ctrl-C, SIGTERM, SIGHUP: the histories in flight end `unknown`
        // ("interrupted") and the batch stops with every row written; a
        // second signal ends at once (see `signals`)
        let stop = stop.clone();
        super::signals::cooperate(move |sig| {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            cancel.cancel(super::signals::name(sig));
        });
    }
    let progress = super::progress::Progress::new(&files);

    // -o: written to a temporary file beside it and renamed over it only
    // when every write succeeded, so old results survive a failed run;
    // never over one of the inputs (refused by `Output::create`)
    let sink_out = match &args.out {
        Some(path) => match Output::create(path) {
            Ok(o) => Sink::File(o),
            Err(e) => {
                say!("memconform: cannot create {}: {e}", shown(path));
                return exit::INPUT_ERROR;
            }
        },
        None => Sink::Stdout(io::stdout().lock()),
    };
    // what the walk passed over (a symlink loop), said once
    let notes = found.notes.into_iter().map(|n| format!("note: {n}"));
    let mut batch = Batch {
        out: BufWriter::new(sink_out),
        write_failed: None,
        header: true,
        totals: Totals::default(),
        errors,
        warnings: notes.collect(),
        last_file: None,
        summary: matches!(args.format, Format::Summary),
        widths: brief::Widths::for_inputs(files.iter().map(|f| f.as_path())),
        tally: None,
        tallies: Vec::new(),
        in_turn,
    };
    check_batch(
        &args, &files, &models, &opts, &reading, &stop, &progress, &mut batch,
    );
    progress.finish();
    let Batch {
        out,
        write_failed,
        totals,
        errors,
        warnings,
        in_turn,
        ..
    } = batch;
    if let Err(code) = finish_output(out, write_failed, totals.histories, args.out.as_deref()) {
        return code;
    }
    closing(&args, models.len(), &totals, &errors, &warnings, in_turn)
}

/// The checking options `args` ask for.
fn options(args: &CheckArgs, cancel: &memconform_core::budget::Cancel) -> Options {
    Options {
        engine: args.engine,
        timeout: (args.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(args.timeout)),
        validate: !args.no_validate,
        kernel: args.kernel,
        gradual: !args.no_gradual,
        max_memory: args
            .max_memory
            .unwrap_or_else(memconform_ingest::limits::default_max_memory),
        cancel: cancel.clone(),
        chain_order: Default::default(),
        scale: match args.representation {
            Representation::Auto => memconform_core::check::scale::Scale::Auto,
            Representation::Dense => memconform_core::check::scale::Scale::Dense,
            Representation::Sparse => memconform_core::check::scale::Scale::Sparse,
        },
        definitions: Default::default(),
    }
}

/// A duration of `secs` seconds (none for 0: no limit).
fn budget(secs: f64) -> Option<std::time::Duration> {
    (secs > 0.0).then(|| std::time::Duration::from_secs_f64(secs))
}

/// The files written in turn, history by history, here (not on the
/// workers): `--shrink`, `--html` and `--dot`.
struct InTurn {
    shrink: Option<PathBuf>,
    html: Option<HtmlReport>,
    dot: Option<PathBuf>,
    dot_names: std::collections::HashSet<String>,
    shrunk_names: std::collections::HashSet<String>,
    /// Violations shrunk into `shrink`.
    shrunk: usize,
    shrink_budget: Option<std::time::Duration>,
    /// The `--shrink`, `--html` and `--dot` files that could not be written.
    unwritten: Vec<String>,
}

impl InTurn {
    /// The directories of `--shrink` and `--dot` created and the HTML
    /// report begun; None (said) when one cannot be.
    fn create(args: &CheckArgs) -> Option<InTurn> {
        for dir in [&args.shrink, &args.dot].into_iter().flatten() {
            if let Err(e) =
                memconform_report::refuse_input(dir).and_then(|()| std::fs::create_dir_all(dir))
            {
                say!("memconform: cannot create {}: {e}", shown(dir));
                return None;
            }
        }
        let html = match args.html.as_deref().map(HtmlReport::create).transpose() {
            Ok(r) => r,
            Err(e) => {
                say!(
                    "memconform: cannot create {}: {e}",
                    args.html.as_deref().map_or("".into(), shown)
                );
                return None;
            }
        };
        Some(InTurn {
            shrink: args.shrink.clone(),
            html,
            dot: args.dot.clone(),
            dot_names: Default::default(),
            shrunk_names: Default::default(),
            shrunk: 0,
            shrink_budget: budget(args.shrink_timeout.unwrap_or(60.0)),
            unwritten: Vec::new(),
        })
    }

    /// Whether any file is written in turn.
    fn any(&self) -> bool {
        self.shrink.is_some() || self.html.is_some() || self.dot.is_some()
    }

    /// `c`'s shrunk counterexamples, HTML pages and DOT files written; the
    /// notes they leave for its report.
    fn write(&mut self, file: &std::path::Path, c: &Checked, opts: &Options) -> Vec<String> {
        let mut notes = Vec::new();
        let shrinks = shrink_outcomes(c, opts, self.shrink_budget);
        if let Some(r) = &mut self.html {
            notes.extend(r.add(file, c, &shrinks));
        }
        if let Some(dir) = &self.dot {
            notes.extend(memconform_report::dot::write_dots(
                file,
                c,
                &shrinks,
                dir,
                &mut self.dot_names,
            ));
        }
        if let Some(dir) = &self.shrink {
            let written = shrink_checked(file, c, &shrinks, dir, &mut self.shrunk_names);
            self.shrunk += written.iter().filter(|n| n.starts_with("shrunk")).count();
            notes.extend(written);
        }
        // a report file not written (refused over an input, a full disk):
        // an output error, not only a note
        self.unwritten.extend(
            notes
                .iter()
                .filter(|n| n.starts_with("cannot write"))
                .cloned(),
        );
        notes
    }
}

/// What the batch adds up, history by history, for the closing lines and
/// the exit code.
#[derive(Default)]
struct Totals {
    histories: usize,
    violations: usize,
    unknown: usize,
    /// Histories whose promise is broken (with none: a model violated).
    broken: usize,
    /// Histories whose answer is undecided.
    undecided: usize,
    damaged: usize,
    internal: Vec<String>,
    unforeseen: usize,
    unexpected: usize,
}

impl Totals {
    /// One history's report counted.
    fn add(&mut self, r: &mut Rendered) {
        self.histories += 1;
        self.violations += r.violations;
        self.unknown += r.unknown;
        self.broken += r.broken as usize;
        self.undecided += r.undecided as usize;
        self.damaged += r.damaged as usize;
        self.internal.append(&mut r.internal);
        self.unforeseen += r.unforeseen;
        self.unexpected += r.unexpected;
    }
}

/// The sink's side of a batch: the output, what was counted, the summary's
/// runs, the files written in turn.
struct Batch {
    out: BufWriter<Sink>,
    /// The first failed write: nothing more is written after it.
    write_failed: Option<io::Error>,
    /// The CSV header is still to be written (every history's report
    /// starts with one: the first one's is kept).
    header: bool,
    totals: Totals,
    errors: Vec<memconform_ingest::InputError>,
    /// Said on stderr at the end, once each.
    warnings: Vec<String>,
    /// The input of the last history written.
    last_file: Option<PathBuf>,
    /// `--format summary`: a line per run, written when its last history is in.
    summary: bool,
    widths: brief::Widths,
    /// The summary's run being counted, and those written.
    tally: Option<brief::Tally>,
    tallies: Vec<brief::Tally>,
    in_turn: InTurn,
}

impl Batch {
    /// Writes `bytes` unless a write failed before; a failure stops the batch.
    fn write(&mut self, bytes: &[u8], stop: &std::sync::atomic::AtomicBool) {
        if self.write_failed.is_some() {
            return;
        }
        if let Err(e) = self.out.write_all(bytes) {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            self.write_failed = Some(e);
        }
    }

    /// The summary's line of run `t` written (after the header, for the
    /// first run) and kept for the totals.
    fn close_run(&mut self, t: brief::Tally, stop: &std::sync::atomic::AtomicBool) {
        let mut text = String::new();
        if self.tallies.is_empty() {
            text.push_str(&brief::header(&self.widths));
        }
        t.write(&mut text, &self.widths);
        self.write(text.as_bytes(), stop);
        self.tallies.push(t);
    }

    /// A history of a new input: the last input's progress done, this one's
    /// warnings kept, the summary's run line of the last input written.
    fn next_file(
        &mut self,
        r: &mut Rendered,
        progress: &super::progress::Progress,
        stop: &std::sync::atomic::AtomicBool,
    ) {
        if let Some(done) = &self.last_file {
            progress.input_done(done);
        }
        self.last_file = Some(r.file.to_path_buf());
        // what could not be read of a gem5 run's other files: in the
        // notes, and once per input on stderr (any format)
        self.warnings.append(&mut r.warnings);
        if self.summary {
            if let Some(t) = self.tally.replace(brief::Tally::new(r.file)) {
                self.close_run(t, stop);
            }
        }
    }
}

/// Checks the batch, each history's report written to `batch` in input
/// order as it comes.
#[allow(clippy::too_many_arguments)]
fn check_batch(
    args: &CheckArgs,
    files: &[PathBuf],
    models: &[Model],
    opts: &Options,
    reading: &Reading,
    stop: &std::sync::atomic::AtomicBool,
    progress: &super::progress::Progress,
    batch: &mut Batch,
) {
    let example_budget = budget(args.shrink_timeout.unwrap_or(10.0));
    let summary = batch.summary;
    // the runs whose summary shows all the counterexamples it will: their
    // broken histories need not reach the sink whole
    let shown_enough: std::sync::Mutex<std::collections::HashSet<PathBuf>> = Default::default();
    // per input, the smallest indices of its broken histories seen so far
    // (at most EXAMPLE_CANDIDATES): a broken history is kept whole for the
    // sink only while it can be among its input's first EXAMPLE_CANDIDATES,
    // so a large file of broken histories held until it passed holds their
    // reports, not the histories
    let first_broken: std::sync::Mutex<std::collections::HashMap<PathBuf, Vec<usize>>> =
        Default::default();
    // enough histories per parallel step that small ones do not pay a
    // hand-off each (results still stream: a step is a few ms of work)
    let chunk = 64 * rayon::current_num_threads();
    // shrinking, HTML and DOT write files in turn, here; without them each
    // history's report is written where it was checked, in parallel
    let in_turn = batch.in_turn.any();
    let how = Rendering {
        format: args.format,
        variant: args.variant.as_deref(),
    };
    // a large file checked whole beside the reading of its histories, its
    // reports held until it passed (not when whole histories wait in turn)
    let ahead = !in_turn && rayon::current_num_threads() > 1;
    run_batch(
        files,
        models,
        opts,
        reading,
        chunk,
        args.shard,
        stop,
        ahead,
        progress,
        |item| match item {
            // the summary shrinks a broken history's violation here, in turn
            Item::Checked(file, c) if !in_turn && summary && c.broken() => {
                let r = how.render(file, &c, Vec::new());
                // (dropped here, on the worker, once its run shows enough
                // or when it comes too late in its input to be shown)
                if shown_enough.lock().expect("not poisoned").contains(file)
                    || !among_first(&first_broken, file, c.history.index)
                {
                    Ready::Rendered(r)
                } else {
                    Ready::Broken(r, c)
                }
            }
            Item::Checked(file, c) if !in_turn => Ready::Rendered(how.render(file, &c, Vec::new())),
            item => Ready::Item(item),
        },
        |ready| {
            let mut example = None;
            let mut r = match ready {
                Ready::Rendered(r) => r,
                Ready::Broken(r, c) => {
                    if wants_example(&batch.tally, batch.last_file.as_deref(), r.file)
                        && batch.write_failed.is_none()
                    {
                        example = brief::example(r.file, &c, opts, example_budget);
                    }
                    r
                }
                Ready::Item(Item::Error(e)) => {
                    progress.input_done(&e.file);
                    batch.errors.push(e);
                    return;
                }
                // (after a failed write: only its file's progress and warnings)
                Ready::Item(Item::Checked(file, c)) if batch.write_failed.is_some() => {
                    how.render(file, &c, Vec::new())
                }
                Ready::Item(Item::Checked(file, c)) => {
                    // (in turn: for shrinking, HTML or DOT)
                    let notes = if in_turn {
                        batch.in_turn.write(file, &c, opts)
                    } else {
                        Vec::new()
                    };
                    if summary
                        && c.broken()
                        && wants_example(&batch.tally, batch.last_file.as_deref(), file)
                    {
                        example = brief::example(file, &c, opts, example_budget);
                    }
                    how.render(file, &c, notes)
                }
            };
            if batch.last_file.as_deref() != Some(r.file) {
                batch.next_file(&mut r, progress, stop);
            }
            if batch.write_failed.is_some() {
                return;
            }
            batch.totals.add(&mut r);
            if let Some(t) = &mut batch.tally {
                t.add(&r.glance);
                if let Some((e, closer)) = example {
                    t.add_example(e, closer);
                    if !t.wants_example() {
                        shown_enough
                            .lock()
                            .expect("not poisoned")
                            .insert(r.file.to_path_buf());
                    }
                }
            }
            progress.history(r.broken);
            // every history's CSV starts with the header: the first one's is kept
            let text = match args.format {
                Format::Csv if !r.text.is_empty() && !std::mem::take(&mut batch.header) => r
                    .text
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(&r.text[..], |end| &r.text[end + 1..]),
                _ => &r.text[..],
            };
            batch.write(text, stop);
        },
    );
    if let Some(t) = batch.tally.take().filter(|t| t.histories > 0) {
        batch.close_run(t, stop);
    }
    if summary && batch.totals.histories > 0 {
        let totals = brief::totals(&batch.tallies);
        batch.write(totals.as_bytes(), stop);
    }
}

/// The output flushed and put in place (`-o`: over the old file; left as
/// it was when nothing was checked); on a failure, the exit code.
fn finish_output(
    out: BufWriter<Sink>,
    write_failed: Option<io::Error>,
    histories: usize,
    path: Option<&std::path::Path>,
) -> Result<(), i32> {
    let flushed = match write_failed {
        Some(e) => Err(e),
        None => out
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|mut w| w.flush().map(|()| w)),
    };
    let finished = flushed.and_then(|w| match w {
        // nothing checked: the old file (if any) stays as it was
        Sink::File(o) if histories == 0 => {
            o.discard();
            Ok(())
        }
        Sink::File(o) => o.commit(),
        Sink::Stdout(_) => Ok(()),
    });
    let Err(e) = finished else {
        return Ok(());
    };
    // a closed pipe: exit 141 quietly, as a process SIGPIPE ends
    if e.kind() == io::ErrorKind::BrokenPipe && path.is_none() {
        return Err(exit::BROKEN_PIPE);
    }
    say!(
        "memconform: cannot write output{}: {e}",
        path.map_or(String::new(), |d| format!(" {} (left as it was)", shown(d)))
    );
    Err(exit::INPUT_ERROR)
}

/// The closing lines on stderr (warnings, errors, the counts, where the
/// files went) and the exit code (docs/reference.md, *Exit status*).
fn closing(
    args: &CheckArgs,
    models: usize,
    t: &Totals,
    errors: &[memconform_ingest::InputError],
    warnings: &[String],
    in_turn: InTurn,
) -> i32 {
    let interrupted = super::signals::received();
    let summary = matches!(args.format, Format::Summary);
    for w in warnings {
        say!("{w}");
    }
    for e in errors {
        say!("error: {e}");
    }
    for e in &t.internal {
        say!("internal error: {e}");
    }
    if t.damaged > 0 {
        say!(
            "memconform: {} histories from damaged input{} (see the damage column)",
            t.damaged,
            if args.allow_damage {
                ": the verdicts are their prefixes'"
            } else {
                ""
            }
        );
    }
    if matches!(args.format, Format::Report) || (!summary && io::stderr().is_terminal()) {
        say!(
            "checked {} histories × {models} models: {} violations, {} unknown{}{}",
            t.histories,
            t.violations,
            t.unknown,
            if errors.is_empty() {
                String::new()
            } else {
                format!(", {} input errors", errors.len())
            },
            if args.expect {
                format!(", {} verdicts differ from @expect", t.unexpected)
            } else {
                String::new()
            }
        );
    }
    if let Some(dir) = &args.shrink {
        say!("shrunk {} violations into {}", in_turn.shrunk, shown(dir));
    }
    if let Some(r) = &in_turn.html {
        match r.finish() {
            Ok(index) => say!("HTML report: {}", shown(&index)),
            Err(e) => {
                say!("memconform: cannot write the HTML index: {e}");
                return exit::INPUT_ERROR;
            }
        }
    }
    if let Some(sig) = interrupted {
        say!(
            "interrupted by {}: the output holds every history checked before it",
            super::signals::name(sig)
        );
        return super::signals::code(sig);
    }
    for u in &in_turn.unwritten {
        say!("error: {u}");
    }
    if !t.internal.is_empty() {
        exit::INTERNAL
    } else if !errors.is_empty() || !in_turn.unwritten.is_empty() {
        exit::INPUT_ERROR
    } else if args.expect && t.unexpected > 0 {
        exit::UNEXPECTED
    } else if (args.expect && t.unforeseen > 0) || (!args.expect && t.broken > 0) {
        exit::VIOLATION
    } else if t.undecided > 0 {
        if matches!(args.format, Format::Csv | Format::Json) && !io::stderr().is_terminal() {
            say!(
                "memconform: {} verdicts unknown (see the reason column)",
                t.unknown
            );
        }
        exit::UNKNOWN
    } else if t.histories == 0 {
        say!("memconform: nothing checked: no history in the inputs");
        exit::NOTHING_CHECKED
    } else {
        exit::CONSISTENT
    }
}

/// Whether the summary shows `file`'s next broken history's
/// counterexample: a new run's first, or its run shows fewer than it will.
/// How many of an input's broken histories, the first in input order, the
/// summary may shrink for its counterexamples (until it shows
/// `SHOWN_PER_RUN` different ones): the others are only counted.
const EXAMPLE_CANDIDATES: usize = 64;

/// Whether the broken history `index` of `file` is, of those seen so far,
/// among the input's first [`EXAMPLE_CANDIDATES`] (each broken history of
/// the first ones is, whatever order the workers see them in).
fn among_first(
    first: &std::sync::Mutex<std::collections::HashMap<PathBuf, Vec<usize>>>,
    file: &std::path::Path,
    index: usize,
) -> bool {
    let mut first = first.lock().expect("not poisoned");
    let seen = match first.get_mut(file) {
        Some(seen) => seen,
        None => first.entry(file.to_path_buf()).or_default(),
    };
    let at = seen.partition_point(|&i| i < index);
    if at >= EXAMPLE_CANDIDATES {
        return false;
    }
    seen.insert(at, index);
    seen.truncate(EXAMPLE_CANDIDATES);
    true
}

/// Whether the broken history the sink takes next (in input order) may be
/// shrunk for its run's counterexamples: its run shows more, and it is one
/// of its input's first [`EXAMPLE_CANDIDATES`] broken histories (only
/// those, whichever the workers kept whole).
fn wants_example(
    tally: &Option<brief::Tally>,
    last: Option<&std::path::Path>,
    file: &std::path::Path,
) -> bool {
    tally
        .as_ref()
        .is_none_or(|t| last != Some(file) || (t.wants_example() && t.broken < EXAMPLE_CANDIDATES))
}

/// A checked history, ready for the sink: its report written, or as it was
/// checked when shrinking, HTML or DOT must see it first (in turn).
enum Ready<'a> {
    Rendered(Rendered<'a>),
    Item(Item<'a>),
    /// A broken history for the summary: rendered where it was checked,
    /// kept in case its run shows its counterexample.
    Broken(Rendered<'a>, Box<Checked>),
}

/// How each history's report is written.
struct Rendering<'v> {
    format: Format,
    /// `--variant`: for the rows whose history names none.
    variant: Option<&'v str>,
}

/// One history's report as written, and what the summary counts of it.
struct Rendered<'a> {
    file: &'a std::path::Path,
    /// Its input's warnings (notes starting with [`WARNING`]).
    ///
    /// [`WARNING`]: memconform_ingest::checked::WARNING
    warnings: Vec<String>,
    /// Its rows in the output format (CSV: after a header line).
    text: Vec<u8>,
    violations: usize,
    unknown: usize,
    /// The history breaks its promise (with none: violates a model).
    broken: bool,
    /// Its answer is undecided.
    undecided: bool,
    /// What the summary's run line counts of it.
    glance: brief::Glance,
    damaged: bool,
    /// The outcomes the validator found invalid: `file#index model: why`.
    internal: Vec<String>,
    /// Violations no `@expect` foresaw.
    unforeseen: usize,
    /// Verdicts that contradict the history's `@expect`.
    unexpected: usize,
}

impl Rendering<'_> {
    /// The summary's view of `c`: what its run line counts, no rows.
    fn glance<'a>(
        &self,
        file: &'a std::path::Path,
        c: &Checked,
        warnings: Vec<String>,
    ) -> Rendered<'a> {
        let h = &c.history;
        let count = |v: Verdict| c.outcomes.iter().filter(|o| o.verdict() == v).count();
        let expected =
            |o: &memconform_core::check::Outcome| memconform_report::expectation(h, o.model);
        let internal = c
            .outcomes
            .iter()
            .filter_map(|o| {
                let why = o.invalid.as_ref()?;
                Some(format!(
                    "{}#{} {}: {why}",
                    memconform_report::shown_path(file),
                    h.index,
                    o.model
                ))
            })
            .collect();
        Rendered {
            file,
            warnings,
            violations: count(Verdict::Violation),
            unknown: count(Verdict::Unknown),
            broken: c.broken(),
            undecided: c.undecided(),
            glance: brief::Glance::of(c),
            damaged: c.damage.is_some(),
            internal,
            unforeseen: c
                .outcomes
                .iter()
                .filter(|o| o.verdict() == Verdict::Violation && expected(o).is_none())
                .count(),
            unexpected: c
                .outcomes
                .iter()
                .filter(|o| memconform_report::contradicts(o.verdict(), expected(o)))
                .count(),
            text: Vec::new(),
        }
    }

    /// The report of `c` (with `notes` added to its own) and its counts.
    fn render<'a>(
        &self,
        file: &'a std::path::Path,
        c: &Checked,
        notes: Vec<String>,
    ) -> Rendered<'a> {
        let warnings = c
            .notes
            .iter()
            .filter(|n| n.starts_with(memconform_ingest::checked::WARNING))
            .cloned()
            .collect();
        if matches!(self.format, Format::Summary) {
            return self.glance(file, c, warnings);
        }
        let mut all_notes;
        let notes = if notes.is_empty() {
            &c.notes
        } else {
            all_notes = c.notes.clone();
            all_notes.extend(notes);
            &all_notes
        };
        let mut rows = rows(file, c);
        if let Some(v) = self.variant {
            rows.iter_mut()
                .filter(|r| r.variant.is_empty())
                .for_each(|r| r.variant = v.into());
        }
        let internal = rows
            .iter()
            .zip(&c.outcomes)
            .filter_map(|(r, o)| {
                let why = o.invalid.as_ref()?;
                Some(format!(
                    "{}#{} {}: {why}",
                    memconform_report::printable(&r.file),
                    r.index,
                    r.model
                ))
            })
            .collect();
        let mut text = Vec::with_capacity(512);
        // (writing to memory cannot fail)
        let _ = match self.format {
            Format::Summary => Ok(()),
            Format::Report => write_text(&mut text, &rows, notes),
            Format::Csv => write_csv(&mut text, &rows, true),
            Format::Json => write_json(&mut text, &rows),
        };
        let count =
            |p: &dyn Fn(&memconform_report::Row<'_>) -> bool| rows.iter().filter(|r| p(r)).count();
        Rendered {
            file,
            warnings,
            violations: count(&|r| r.verdict == Verdict::Violation),
            unknown: count(&|r| r.verdict == Verdict::Unknown),
            broken: c.broken(),
            undecided: c.undecided(),
            glance: brief::Glance::of(c),
            damaged: c.damage.is_some(),
            internal,
            unforeseen: count(&|r| r.verdict == Verdict::Violation && r.expected.is_none()),
            unexpected: count(&|r| contradicts_expectation(r)),
            text,
        }
    }
}
