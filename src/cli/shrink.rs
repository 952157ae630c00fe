//! `memconform shrink`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{exit, shown};
use memconform_core::check::shrink::shrink_to;
use memconform_core::check::Options;
use memconform_core::complete::Engine;
use memconform_core::models::Model;
use memconform_ingest::{pick_violation, Pick, Reading};
use memconform_report::commands::shrink_command;
use memconform_report::shrunk::{shrunk_hist, Provenance};

#[derive(Args)]
#[command(after_help = "\
How: the history is checked for MODEL as `check` does (gradually), which gives its violation and \
the weakest violated model W (the `decided_by` column). The shrink keeps exactly that: every \
candidate sub-history must still violate MODEL with W as its weakest violated model. It tries the \
certificate's operations alone first (with the writes they read from), then delta debugging \
(ddmin): over threads, then over operations, keeping a chunk alone or removing one, in finer \
chunks until single operations; then it removes each remaining operation alone until none can \
go. The result is 1-minimal: removing any one of its operations loses the violation.

What a sub-history keeps: operations whole (an RMW U is one operation), their program order \
(a timed thread's ticks, so a gem5 history keeps its interval order), their input positions (the \
certificate still points into the input); a read goes with the write it reads from (its value \
would come from thin air), a @final observation with the write it observes. @expect lines are \
replaced by `@expect MODEL=no W=no`, so `memconform check OUT --models MODEL --expect` is a regression test (exit 0 while the violation is found).

The output names its origin in `#` comments: the input and history, the violation and its \
certificate, the command that reproduces it, and for each kept operation the original thread and \
position, the input line (for gem5: port, value, ticks and the trace lines of its request and \
completion).

Budget: --timeout bounds the whole shrink (each check also stops at --check-timeout); when it \
runs out the smallest history found so far is written, with a note that it may not be 1-minimal.

Exit status: 0 written, 2 bad input or flag (or the output cannot be written), 3 internal error \
(a certificate rejected by the validator), 5 nothing to shrink (no history violates MODEL, or the \
one asked for does not).

Examples:
  memconform shrink traces/bug-mi5-n4-s1-rich --model sc --real-time -o mi5.hist
  memconform shrink examples/papers-and-litmus.hist --model sc --index 16
  memconform check runs/ --models sc --shrink shrunk/     # one shrunk .hist per violation")]
pub struct ShrinkArgs {
    /// A .hist or axe file, or a gem5 output directory (with config.ini).
    #[arg(value_name = "INPUT")]
    input: PathBuf,

    /// The violated model to keep (cc, ccv, cm, ccm, wccm, wsc, sc, tso, pso, rmo, armv8).
    #[arg(long, short, value_parser = parse_model)]
    model: Model,

    /// For gem5 runs: also consider the real-time view (index 1: all
    /// ports in real-time order), where the tester's stale reads show.
    #[arg(long)]
    real_time: bool,

    /// The history to shrink, by its index in the input (as `check` numbers
    /// them: from 0; a gem5 run's real-time view is 1). Default: the first
    /// that violates the model.
    #[arg(long, value_name = "I")]
    index: Option<usize>,

    /// Write the shrunk .hist here (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Time budget of the whole shrink, in seconds (0: none).
    #[arg(long, default_value_t = 60.0, value_name = "SECS", value_parser = parse_seconds)]
    timeout: f64,

    /// Time budget of each check, in seconds (0: none); a check past it
    /// counts as losing the violation.
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = parse_seconds)]
    check_timeout: f64,

    /// Completion engine for sc, tso, pso (as `check --engine`).
    #[arg(long, default_value = "auto", value_parser = super::engine_parser())]
    engine: Engine,

    /// Keep the model's own violation, not the weakest model's: check the
    /// model directly, without its gradual chain (as `check --no-gradual`).
    #[arg(long)]
    no_gradual: bool,

    /// For damaged gem5 traces: shrink a violation of the prefix before the
    /// damage (as `check --allow-damage`).
    #[arg(long)]
    allow_damage: bool,
}

fn parse_model(s: &str) -> Result<Model, String> {
    Model::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Model::EVERY.iter().map(|m| m.name()).collect();
        format!("unknown model `{s}` (known: {})", names.join(", "))
    })
}

/// Seconds of a time budget: from 0 (none) to 10⁷.
fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (0.0..=1e7).contains(&t) => Ok(t),
        _ => Err(format!(
            "`{s}` is not a number of seconds from 0 (no budget) to 10000000"
        )),
    }
}

/// `secs` as a budget (0: none).
fn budget(secs: f64) -> Option<Duration> {
    (secs > 0.0).then(|| Duration::from_secs_f64(secs))
}

/// Runs `shrink`; returns the exit code.
pub fn run(args: ShrinkArgs) -> i32 {
    let opts = Options {
        engine: args.engine,
        timeout: budget(args.check_timeout),
        gradual: !args.no_gradual,
        max_memory: memconform_ingest::limits::default_max_memory(),
        ..Options::default()
    };
    let reading = Reading {
        real_time: args.real_time,
        allow_damage: args.allow_damage,
        ..Reading::default()
    };
    // -o never over the input (a gem5 run directory: nor into it)
    memconform_report::protect(&memconform_report::Inputs::new().with([&args.input]));
    if let Some(out) = &args.out {
        if let Err(e) = memconform_report::refuse_input(out) {
            return super::write_failed("shrink", &shown(out), &e);
        }
    }
    let picked = match pick_violation(&args.input, args.model, &opts, &reading, args.index) {
        Ok(Pick::Violating(p)) => p,
        Ok(Pick::NoViolation(not)) => {
            say!(
                "memconform shrink: nothing to shrink: no history of {} violates {}",
                shown(&args.input),
                args.model
            );
            let mut internal = false;
            for (i, e) in &not {
                say!("  #{i}: {e}");
                internal |= e.internal;
            }
            if args.input.is_dir() && !args.real_time && args.index.is_none() {
                say!("  (gem5 runs: --real-time adds the real-time view, where stale reads between ports show)");
            }
            return if internal {
                exit::INTERNAL
            } else {
                exit::NOTHING_CHECKED
            };
        }
        Err(e) => {
            say!("error: {e}");
            return exit::INPUT_ERROR;
        }
    };
    let h = &picked.history;
    let shrunk = match shrink_to(h, picked.target, &opts, budget(args.timeout)) {
        Ok(s) => s,
        Err(e) => {
            say!("memconform shrink: the violation did not recur: {e}");
            return exit::INTERNAL;
        }
    };
    let text = shrunk_hist(
        h,
        &shrunk,
        &Provenance {
            input: &args.input,
            command: Some(shrink_command(&args.input, h.index, args.model)),
            origins: picked.origins.as_ref(),
        },
    );
    // -o: written whole (a temporary file renamed over it), or through a
    // device or FIFO; never half a file
    let written = match &args.out {
        Some(path) => memconform_report::write_atomic(path, text.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
    };
    if let Err(e) = written {
        return super::write_failed("shrink", "the shrunk history", &e);
    }
    let t = shrunk.target;
    say!(
        "shrunk {}#{} ({} violation{}): {} -> {} operations, {} -> {} threads, {} checks, {:.2} s; {}{}",
        shown(&args.input),
        h.index,
        t.model,
        if t.weakest == t.model {
            String::new()
        } else {
            format!(", caught by {}", t.weakest)
        },
        h.n_thread_ops(),
        shrunk.history.n_thread_ops(),
        h.threads.len(),
        shrunk.history.threads.len(),
        shrunk.checks,
        shrunk.seconds,
        if shrunk.one_minimal {
            "1-minimal".to_string()
        } else {
            shrunk.note.clone().unwrap_or_default()
        },
        args.out
            .as_ref()
            .map_or(String::new(), |p| format!(" -> {}", shown(p)))
    );
    exit::CONSISTENT
}
