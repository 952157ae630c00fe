//! Output: the tidy per history × model table (CSV, JSON lines) and the text
//! report with certificates.

pub mod compare;
pub mod plot;
pub mod summary;

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::batch::Checked;
use crate::models::Verdict;

/// One row of the tidy table: one history × one model. Its text borrows
/// from the checked history where it can (no allocation per row but the
/// certificate's).
#[derive(Debug, Clone, Serialize)]
pub struct Row<'a> {
    /// The input file.
    pub file: Cow<'a, str>,
    /// 0-based position of the history in its file.
    pub index: usize,
    /// Its `@name` (empty if none).
    pub name: Cow<'a, str>,
    /// From the history's metadata (`@protocol`, `@variant`, `@seed`,
    /// `@cpus`; set by gem5 ingestion and `gen`), empty if absent.
    pub protocol: Cow<'a, str>,
    pub variant: Cow<'a, str>,
    pub seed: Cow<'a, str>,
    pub cpus: Cow<'a, str>,
    pub model: &'static str,
    /// consistent, violation or unknown.
    pub verdict: &'static str,
    /// The model whose check decided (itself, or a weaker one of its gradual chain).
    pub decided_by: &'static str,
    /// The bad pattern of a violation.
    pub pattern: &'static str,
    /// Number of edges of the violation's cycle (0 if none).
    pub cycle_len: usize,
    /// The certificate, as text.
    pub certificate: Cow<'a, str>,
    /// Operations in the input (an RMW counts twice), threads, writes.
    pub ops: usize,
    pub threads: usize,
    pub writes: usize,
    /// Milliseconds spent deciding this model (its gradual chain included).
    pub time_ms: f64,
    /// Same-variable write pairs, and how many the model's partial store
    /// order orders (empty when it has none; for sc/tso/pso: how many
    /// saturation ordered before completion).
    pub write_pairs: usize,
    pub ordered_pairs: Option<usize>,
    pub coverage: Option<f64>,
    /// SC/TSO/PSO: the completion engine that decided (empty when
    /// saturation decided), and the write pairs saturation left unordered.
    pub engine: &'static str,
    pub unordered_pairs: Option<usize>,
    /// With `--kernel`, for consistent SC/TSO/PSO: the kernel's size (write
    /// pairs every witness orders alike) and the fraction saturation found.
    pub kernel_pairs: Option<usize>,
    pub kernel_coverage: Option<f64>,
    /// Why the verdict is unknown (e.g. the timeout), empty otherwise.
    pub reason: Cow<'a, str>,
    /// Whether the independent validator accepted the certificate
    /// (`no` is an internal error, reported with exit status 3).
    pub certified: &'static str,
    /// The `@expect` verdict for this model (yes/no), empty if none.
    pub expected: &'static str,
    /// A violation explained in the input's terms (gem5: ports, ticks,
    /// trace lines, protocol transitions), empty otherwise.
    pub explanation: Cow<'a, str>,
}

/// The rows of one checked history.
pub fn rows<'a>(file: &'a Path, c: &'a Checked) -> Vec<Row<'a>> {
    let h = &c.history;
    let file = file.to_string_lossy();
    let name = printable(h.name.as_deref().unwrap_or_default());
    let (protocol, variant, seed, cpus) = (
        meta(h, "protocol"),
        meta(h, "variant"),
        meta(h, "seed"),
        meta(h, "cpus"),
    );
    let write_pairs = h.same_var_write_pairs();
    let writes = (0..h.n())
        .filter(|&w| h.is_write(w) && !h.is_init(w))
        .count();
    c.outcomes
        .iter()
        .zip(&c.explanations)
        .map(|(o, explanation)| {
            let order = o.store_order.as_ref();
            // sc/tso/pso: coverage is what saturation ordered before completion
            let saturated = o
                .unordered_after_saturation
                .map(|u| write_pairs - u.min(write_pairs));
            Row {
                file: file.clone(),
                index: h.index,
                name: name.clone(),
                protocol: protocol.into(),
                variant: variant.into(),
                seed: seed.into(),
                cpus: cpus.into(),
                model: o.model.name(),
                verdict: o.verdict.name(),
                decided_by: o.decided_by.name(),
                pattern: o.violation.as_ref().map_or("", |v| v.pattern.name()),
                cycle_len: o.violation.as_ref().map_or(0, |v| v.cycle.len()),
                certificate: o
                    .violation
                    .as_ref()
                    .map_or(Cow::Borrowed(""), |v| v.explain(h).into()),
                ops: h.n_thread_ops(),
                threads: h.threads.len(),
                writes,
                time_ms: o.seconds * 1e3,
                write_pairs,
                ordered_pairs: saturated.or(order.map(|s| s.ordered_pairs())),
                coverage: match (saturated, write_pairs) {
                    (Some(_), 0) => Some(1.0),
                    (Some(k), p) => Some(k as f64 / p as f64),
                    (None, _) => order.map(|s| s.coverage()),
                },
                engine: o.engine.map_or("", |e| e.name()),
                unordered_pairs: o.unordered_after_saturation,
                kernel_pairs: o.kernel.map(|k| k.pairs),
                kernel_coverage: o.kernel.map(|k| {
                    if k.pairs == 0 {
                        1.0
                    } else {
                        k.by_saturation as f64 / k.pairs as f64
                    }
                }),
                reason: o.reason.as_deref().unwrap_or_default().into(),
                certified: match (&o.invalid, o.verdict) {
                    (Some(_), _) => "no",
                    (None, Verdict::Unknown) => "",
                    (None, _) => "yes",
                },
                expected: h
                    .expect
                    .iter()
                    .find(|(m, _)| m == o.model.name())
                    .map_or("", |(_, y)| if *y { "yes" } else { "no" }),
                explanation: explanation.as_deref().unwrap_or_default().into(),
            }
        })
        .collect()
}

/// A metadata value of the history, or empty.
fn meta<'a>(h: &'a crate::history::History, key: &str) -> &'a str {
    h.meta
        .iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

/// Whether a row's verdict contradicts its `@expect`.
pub fn contradicts_expectation(r: &Row<'_>) -> bool {
    match r.expected {
        "yes" => r.verdict != Verdict::Consistent.name(),
        "no" => r.verdict != Verdict::Violation.name(),
        _ => false,
    }
}

/// Writes rows as CSV (with a header when `header`).
pub fn write_csv(out: impl Write, rows: &[Row<'_>], header: bool) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(out);
    for r in rows {
        if starts_like_formula(&r.name) {
            // a spreadsheet would run `=HYPERLINK(…)`: the cell is text
            let r = Row {
                name: format!("'{}", r.name).into(),
                ..r.clone()
            };
            w.serialize(&r).map_err(io::Error::other)?;
        } else {
            w.serialize(r).map_err(io::Error::other)?;
        }
    }
    w.flush()
}

/// Whether a spreadsheet would read the cell as a formula.
fn starts_like_formula(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// A history name from the input, printable: control characters (terminal
/// escapes among them) become `�`.
fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Writes rows as JSON lines.
pub fn write_json(mut out: impl Write, rows: &[Row<'_>]) -> io::Result<()> {
    for r in rows {
        serde_json::to_writer(&mut out, r).map_err(io::Error::other)?;
        writeln!(out)?;
    }
    Ok(())
}

/// Writes the human-readable report of one history, with notes on its input.
pub fn write_text(mut out: impl Write, rows: &[Row<'_>], notes: &[String]) -> io::Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let name = if first.name.is_empty() {
        String::new()
    } else {
        format!(" {}", first.name)
    };
    writeln!(
        out,
        "{}#{}{}  ({} ops, {} threads)",
        first.file, first.index, name, first.ops, first.threads
    )?;
    for n in notes {
        writeln!(out, "  note: {n}")?;
    }
    // each deciding model's certificate once: under its own row, or under
    // the first row it decided when it was not asked for itself
    let mut explained: Vec<&str> = Vec::new();
    for r in rows {
        let mut line = format!("  {:<5} {:<10}", r.model, r.verdict);
        if r.decided_by != r.model && r.verdict == "consistent" {
            line.push_str(&format!(" implied by {}", r.decided_by));
        } else if r.decided_by != r.model {
            line.push_str(&format!(" caught by {}: {}", r.decided_by, r.pattern));
        } else if !r.pattern.is_empty() {
            line.push_str(&format!(" {}", r.pattern));
        } else if !r.reason.is_empty() {
            line.push_str(&format!(" {}", r.reason));
        } else if let (Some(k), true) = (r.ordered_pairs, r.write_pairs > 0) {
            line.push_str(&format!(" orders {k}/{} write pairs", r.write_pairs));
        }
        if let (Some(u), false) = (
            r.unordered_pairs,
            r.engine.is_empty() && r.verdict == "violation",
        ) {
            let by = if r.engine.is_empty() {
                "saturation".to_string()
            } else {
                format!("engine {}", r.engine)
            };
            line.push_str(&format!(" ({u} pairs left by saturation; decided by {by})"));
        }
        line.push_str(&format!("  [{:.3} ms]", r.time_ms));
        if r.certified == "no" {
            line.push_str("  !! certificate rejected by the validator");
        }
        if contradicts_expectation(r) {
            line.push_str(&format!("  !! @expect {}={}", r.model, r.expected));
        }
        writeln!(out, "{line}")?;
        let first = !explained.contains(&r.decided_by)
            && (r.decided_by == r.model || !rows.iter().any(|o| o.model == r.decided_by));
        if !r.certificate.is_empty() && first {
            explained.push(r.decided_by);
            writeln!(out, "        {}", r.certificate)?;
            if !r.explanation.is_empty() {
                write!(out, "{}", r.explanation)?;
            }
        }
    }
    Ok(())
}
