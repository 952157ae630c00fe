//! `memconform gen`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use memconform_parsers::hist::{write_hist, RawHistory, RawOp, RawThread};
use memconform_parsers::Pos;

use super::exit;
use memconform_core::gen::{axe_trace, inject_stale_read, threads, Memory, Rng, Shape};
use memconform_report::write_atomic;

#[derive(Clone, Copy, ValueEnum)]
enum MemoryArg {
    Sc,
    Tso,
    Pso,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// .hist histories (`@name`, `@memory`, `@seed` metadata).
    Hist,
    /// axe traces: thread `t` is axe thread `t`, variable `xN` is `M[N]`, the
    /// name and metadata are `#` comments, each trace ends with `check`.
    Axe,
}

#[derive(Args)]
#[command(after_help = "\
Each history is a random program (each operation a read or a write of a random variable) run on \
the chosen memory: SC interleaves atomic operations; TSO adds a FIFO store buffer per thread; \
PSO one per thread and variable. Values written are unique per variable. With --faults, each \
history has that probability of one read returning a stale value (another value written to its \
variable, or 0), which usually breaks SC.

With --format axe the same histories are written as axe traces (CTSRD-CHERI/axe), one `.axe` \
file per history with -o, else one trace after another, each ended by `check`; `memconform \
check` reads both forms with the same verdicts. axe itself takes at most 256 threads and 256 \
locations and values below 2^23.

Examples:
  memconform gen --threads 8 --ops 50 --count 1000 -o runs/
  memconform gen --memory tso --threads 4 --ops 20 --count 3 > three.hist
  memconform gen --memory pso --threads 8 --vars 64 --ops 100 --format axe -o axe-runs/")]
pub struct GenArgs {
    /// The simulated memory.
    #[arg(long, value_enum, default_value = "sc")]
    memory: MemoryArg,
    /// Threads per history (1 to 65536).
    #[arg(long, default_value_t = 4, value_parser = |s: &str| super::parse_count(s, 1, 65_536))]
    threads: usize,
    /// Operations per thread (0 to 10⁸).
    #[arg(long, default_value_t = 50, value_parser = |s: &str| super::parse_count(s, 0, 100_000_000))]
    ops: usize,
    /// Variables (1 to 10⁶).
    #[arg(long, default_value_t = 8, value_parser = |s: &str| super::parse_count(s, 1, 1_000_000))]
    vars: usize,
    /// Probability that an operation writes (0 to 1).
    #[arg(long, default_value_t = 0.5, value_parser = super::parse_probability)]
    write_ratio: f64,
    /// Number of histories.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Seed of the first history (history i uses seed + i).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Probability that a history gets one stale read (0 to 1).
    #[arg(long, default_value_t = 0.0, value_parser = super::parse_probability)]
    faults: f64,
    /// Write one file per history into this directory (default: all to
    /// stdout); each file is written whole (a temporary file renamed into
    /// place).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Output format: .hist, or axe traces (`.axe` files).
    #[arg(long, short, value_enum, default_value = "hist")]
    format: Format,
}

/// Runs `gen`; returns the exit code.
pub fn run(args: GenArgs) -> i32 {
    if args.threads == 0 || args.vars == 0 {
        say!("memconform gen: --threads and --vars must be at least 1");
        return exit::INPUT_ERROR;
    }
    let memory = match args.memory {
        MemoryArg::Sc => Memory::Sc,
        MemoryArg::Tso => Memory::Tso,
        MemoryArg::Pso => Memory::Pso,
    };
    let shape = Shape {
        threads: args.threads,
        ops_per_thread: args.ops,
        vars: args.vars,
        write_ratio: args.write_ratio,
    };
    if args.format == Format::Axe
        && (args.threads > 256
            || args.vars > 256
            || (args.threads as u128) * (args.ops as u128) >= 1 << 23)
    {
        say!(
            "memconform gen: warning: axe itself takes at most 256 threads, 256 locations and \
             values below 2^23"
        );
    }
    if let Some(dir) = &args.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            say!("memconform gen: cannot create {}: {e}", super::shown(dir));
            return exit::INPUT_ERROR;
        }
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let width = args.count.saturating_sub(1).to_string().len();
    for i in 0..args.count {
        let seed = args.seed + i as u64;
        let mut program = threads(memory, shape, seed);
        let mut rng = Rng::new(seed ^ 0x5eed);
        let faulty = rng.chance(args.faults) && inject_stale_read(&mut program, &mut rng);
        let mut meta = vec![
            (
                "memory".to_string(),
                memory_name(memory).to_string(),
                Pos::default(),
            ),
            ("seed".to_string(), seed.to_string(), Pos::default()),
        ];
        if faulty {
            meta.push((
                "fault".to_string(),
                "stale-read".to_string(),
                Pos::default(),
            ));
        }
        let name = format!("gen-{}-{seed}", memory_name(memory));
        if args.format == Format::Axe {
            let mut comments = vec![name];
            comments.extend(meta.iter().map(|(k, v, _)| format!("{k} {v}")));
            let text = axe_trace(&comments, &program);
            let written = match &args.out {
                Some(dir) => write_atomic(&dir.join(format!("h{i:0width$}.axe")), text.as_bytes()),
                None => out.write_all(text.as_bytes()),
            };
            if let Err(code) = written_or_exit(written) {
                return code;
            }
            continue;
        }
        let raw = RawHistory {
            name: Some(name),
            meta,
            threads: program
                .into_iter()
                .enumerate()
                .map(|(t, ops)| RawThread {
                    name: format!("t{t}"),
                    pos: Pos::default(),
                    ops: ops
                        .into_iter()
                        .map(|kind| RawOp {
                            kind,
                            ann: Default::default(),
                            ticks: None,
                            pos: Pos::default(),
                        })
                        .collect(),
                })
                .collect(),
            ..RawHistory::default()
        };
        let text = write_hist(&[raw]);
        let written = match &args.out {
            Some(dir) => write_atomic(&dir.join(format!("h{i:0width$}.hist")), text.as_bytes()),
            None => {
                let sep = if i > 0 { "---\n" } else { "" };
                out.write_all(sep.as_bytes())
                    .and_then(|()| out.write_all(text.as_bytes()))
            }
        };
        if let Err(code) = written_or_exit(written) {
            return code;
        }
    }
    match written_or_exit(out.flush()) {
        Ok(()) => exit::CONSISTENT,
        Err(code) => code,
    }
}

/// `Err(exit code)` if a write failed (see [`super::write_failed`]: 141
/// for a closed pipe, else 2 with the error).
fn written_or_exit(written: io::Result<()>) -> Result<(), i32> {
    written.map_err(|e| super::write_failed("gen", "the histories", &e))
}

/// The memory's name in `@memory` and history names (`sc`, `tso`, `pso`).
fn memory_name(m: Memory) -> &'static str {
    match m {
        Memory::Sc => "sc",
        Memory::Tso => "tso",
        Memory::Pso => "pso",
    }
}
