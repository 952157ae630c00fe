//! Output: the tidy per history × model table (CSV, JSON lines) and the text
//! report with certificates; from the table, summaries, comparisons, merges
//! and figures; from a checked history, its HTML page, DOT certificates and
//! shrunk counterexamples. Everything here reads what ingestion and the
//! core handed over ([`memconform_ingest::Checked`]), never an input again.

pub mod brief;
pub mod commands;
pub mod compare;
pub mod dot;
pub mod html;
pub mod markup;
pub mod merge;
pub mod output;
pub mod plot;
pub mod row;
pub mod shrunk;
pub mod summary;
pub mod timeline;

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use memconform_core::check::Verdict;
use memconform_core::models::Model;
use memconform_ingest::Checked;

pub use output::{protect, refuse_input, write_atomic, Inputs, Output};
pub use row::{Row, COLUMNS};

pub use memconform_parsers::text::{path_text, printable, printable_lines, shown_path};

/// The rows of one checked history.
pub fn rows<'a>(file: &'a Path, c: &'a Checked) -> Vec<Row<'a>> {
    let h = &c.history;
    let file = path_text(file);
    let name = printable(h.name.as_deref().unwrap_or_default());
    let (run, text) = (&c.run, or_empty);
    let (protocol, variant, seed, cpus) = (
        text(&run.protocol),
        text(&run.variant),
        text(&run.seed),
        text(&run.cpus),
    );
    let (cpu_type, shape) = (text(&run.cpu_type), text(&run.shape));
    let expected_model = run.expected_model();
    let write_pairs = h.same_var_write_pairs();
    let writes = (0..h.n())
        .filter(|&w| h.is_write(w) && !h.is_init(w))
        .count();
    let promise = c
        .promise
        .as_ref()
        .map_or(Cow::Borrowed(""), |k| k.promise.name().into());
    c.outcomes
        .iter()
        .zip(&c.explanations)
        .enumerate()
        .map(|(i, (o, explanation))| {
            let order = o.store_order();
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
                cpu_type: cpu_type.into(),
                expected_model,
                shape: shape.into(),
                model: o.model,
                verdict: o.verdict(),
                decided_by: Some(o.decided_by),
                pattern: o.violation().map(|v| v.pattern),
                cycle_len: o.violation().map_or(0, |v| v.cycle.len()),
                certificate: o
                    .violation()
                    .map_or(Cow::Borrowed(""), |v| v.explain(h).into()),
                checked: o
                    .violation()
                    .and_then(|v| v.certified_by.as_ref().map(|how| (v, how)))
                    .map_or(Cow::Borrowed(""), |(v, how)| {
                        let mut s = how.clone();
                        let on_cycle = |j: &&memconform_core::certificate::Justification| {
                            v.cycle.iter().any(|s| (s.from, s.to) == (j.from, j.to))
                        };
                        for j in v.justifications.iter().filter(on_cycle).take(6) {
                            s.push_str("\n  ");
                            s.push_str(&j.explain(h));
                        }
                        s.into()
                    }),
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
                engine: o.engine,
                unordered_pairs: o.unordered_after_saturation,
                kernel_pairs: o.kernel.map(|k| k.pairs),
                kernel_coverage: o.kernel.map(|k| {
                    if k.pairs == 0 {
                        1.0
                    } else {
                        k.by_saturation as f64 / k.pairs as f64
                    }
                }),
                reason: o
                    .reason()
                    .map(|r| r.to_string())
                    .or_else(|| o.uncertified.clone())
                    .unwrap_or_default()
                    .into(),
                damage: c.damage.as_deref().unwrap_or_default().into(),
                certified: match (&o.invalid, o.verdict()) {
                    (Some(_), _) => Some(false),
                    (None, Verdict::Unknown) => None,
                    // a violation the validator could not decide
                    (None, _) if o.uncertified.is_some() => None,
                    (None, _) => Some(true),
                },
                expected: expectation(h, o.model),
                explanation: explanation.as_deref().unwrap_or_default().into(),
                promise: promise.clone(),
                breaks_promise: c.promise.as_ref().and_then(|_| c.breaks(i)),
            }
        })
        .collect()
}

/// The history's `@expect` verdict for `model` (`true`: it holds), if any.
pub fn expectation(h: &memconform_core::history::History, model: Model) -> Option<bool> {
    h.expect
        .iter()
        .find(|(m, _)| m == model.name())
        .map(|&(_, y)| y)
}

/// Whether `verdict` contradicts the expectation `expected`.
pub fn contradicts(verdict: Verdict, expected: Option<bool>) -> bool {
    match expected {
        Some(true) => verdict != Verdict::Consistent,
        Some(false) => verdict != Verdict::Violation,
        None => false,
    }
}

/// A metadata value of the run, or empty.
pub(crate) fn or_empty(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or_default()
}

/// Whether a row's verdict contradicts its `@expect`.
pub fn contradicts_expectation(r: &Row<'_>) -> bool {
    r.contradicts_expectation()
}

/// Writes rows as CSV (with a header when `header`).
pub fn write_csv(out: impl Write, rows: &[Row<'_>], header: bool) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(out);
    for r in rows {
        if [
            &r.file,
            &r.name,
            &r.protocol,
            &r.variant,
            &r.seed,
            &r.cpus,
            &r.cpu_type,
        ]
        .into_iter()
        .any(|c| starts_like_formula(c))
        {
            // a spreadsheet would run `=HYPERLINK(…)`: each such cell is text
            let text = |c: &Cow<'_, str>| -> Cow<'static, str> {
                if starts_like_formula(c) {
                    format!("'{c}").into()
                } else {
                    c.to_string().into()
                }
            };
            let r = Row {
                file: text(&r.file),
                name: text(&r.name),
                protocol: text(&r.protocol),
                variant: text(&r.variant),
                seed: text(&r.seed),
                cpus: text(&r.cpus),
                cpu_type: text(&r.cpu_type),
                shape: text(&r.shape),
                ..r.clone().into_owned()
            };
            w.serialize(&r).map_err(summary::csv_io)?;
        } else {
            w.serialize(r).map_err(summary::csv_io)?;
        }
    }
    w.flush()
}

/// Whether a spreadsheet would read the cell as a formula.
fn starts_like_formula(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// Writes rows as JSON lines, one object per row (the CSV's columns as
/// fields), one write per row.
pub fn write_json(mut out: impl Write, rows: &[Row<'_>]) -> io::Result<()> {
    /// A row with, for a certified violation, how the validator checked it
    /// and its justifications (the text report's `checked:` lines).
    #[derive(serde::Serialize)]
    struct JsonRow<'r, 'a> {
        #[serde(flatten)]
        row: &'r Row<'a>,
        #[serde(skip_serializing_if = "str::is_empty")]
        checked: &'r str,
    }
    let mut line = Vec::with_capacity(1024);
    for r in rows {
        line.clear();
        let r = JsonRow {
            row: r,
            checked: &r.checked,
        };
        serde_json::to_writer(&mut line, &r).map_err(io::Error::other)?;
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

/// Writes the human-readable report of one history, with notes on its input.
pub fn write_text(mut out: impl Write, rows: &[Row<'_>], notes: &[String]) -> io::Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let space = if first.name.is_empty() { "" } else { " " };
    writeln!(
        out,
        "{}#{}{space}{}  ({} ops, {} threads)",
        printable(&first.file),
        first.index,
        first.name,
        first.ops,
        first.threads
    )?;
    for n in notes {
        writeln!(out, "  note: {}", printable_lines(n))?;
    }
    let pattern = |r: &Row<'_>| r.pattern.map_or("", |p| p.name());
    // each deciding model's certificate once: under its own row, or under
    // the first row it decided when it was not asked for itself
    let mut explained: Vec<Option<memconform_core::models::Model>> = Vec::new();
    // each row's line is written in pieces into one buffer (`write!` into a
    // `String` cannot fail)
    use std::fmt::Write as _;
    let mut line = String::with_capacity(128);
    for r in rows {
        let decided_by = r.decided_by.map_or("", |m| m.name());
        let by_other = r.decided_by.is_some_and(|m| m != r.model);
        line.clear();
        let _ = write!(line, "  {:<5} {:<10}", r.model.name(), r.verdict.name());
        if by_other && r.verdict == Verdict::Consistent {
            let _ = write!(line, " implied by {decided_by}");
        } else if by_other {
            let _ = write!(line, " caught by {decided_by}: {}", pattern(r));
        } else if let Some(p) = r.pattern {
            let _ = write!(line, " {}", p.name());
        } else if !r.reason.is_empty() {
            // the damage itself is in the notes above
            let reason = match r.reason.strip_suffix(&*r.damage) {
                Some(short) if !r.damage.is_empty() => short.trim_end_matches(": "),
                _ => &r.reason,
            };
            let _ = write!(line, " {}", printable_lines(reason));
        } else if let (Some(k), true) = (r.ordered_pairs, r.write_pairs > 0) {
            let _ = write!(line, " orders {k}/{} write pairs", r.write_pairs);
        }
        if let (Some(u), false) = (
            r.unordered_pairs,
            r.engine.is_none() && r.verdict == Verdict::Violation,
        ) {
            let by = match r.engine {
                None => "saturation".to_string(),
                Some(e) => format!("engine {}", e.name()),
            };
            let _ = write!(line, " ({u} pairs left by saturation; decided by {by})");
        }
        match (r.verdict, r.breaks_promise) {
            _ if r.promise.is_empty() => {}
            (Verdict::Violation, Some(true)) => {
                let _ = write!(line, " [breaks the promised {}]", r.promise);
            }
            (Verdict::Violation, Some(false)) => {
                let _ = write!(
                    line,
                    " [allowed: the history keeps the promised {}]",
                    r.promise
                );
            }
            (Verdict::Violation, None) => {
                let _ = write!(line, " [the promised {} is undecided]", r.promise);
            }
            _ => {}
        }
        let _ = write!(line, "  [{:.3} ms]", r.time_ms);
        if r.certified == Some(false) && r.verdict == Verdict::Unknown {
            line.push_str("  !! internal error (see standard error)");
        } else if r.certified == Some(false) {
            line.push_str("  !! certificate rejected by the validator");
        }
        if let (true, Some(y)) = (r.contradicts_expectation(), r.expected) {
            let y = if y { "yes" } else { "no" };
            let _ = write!(line, "  !! @expect {}={y}", r.model.name());
        }
        writeln!(out, "{line}")?;
        let first = !explained.contains(&r.decided_by)
            && (!by_other || !rows.iter().any(|o| Some(o.model) == r.decided_by));
        if !r.certificate.is_empty() && first {
            explained.push(r.decided_by);
            writeln!(out, "        {}", r.certificate)?;
            if !r.checked.is_empty() {
                write_checked(&mut out, &r.checked)?;
            }
            if !r.explanation.is_empty() {
                write!(out, "{}", printable_lines(&r.explanation))?;
            }
        } else if !r.checked.is_empty() && first {
            // a violation with no cycle: how it was confirmed
            explained.push(r.decided_by);
            write_checked(&mut out, &r.checked)?;
        }
    }
    Ok(())
}

/// How the validator checked a certificate, then its justifications, one a line.
fn write_checked(mut out: impl Write, checked: &str) -> io::Result<()> {
    out.write_all(b"        checked: ")?;
    // each justification's line (after "\n  ") indented under "checked:"
    for (i, part) in printable_lines(checked).split("\n  ").enumerate() {
        if i > 0 {
            out.write_all(b"\n          ")?;
        }
        out.write_all(part.as_bytes())?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_without_loss() {
        use std::os::unix::ffi::OsStrExt;
        let text = |b: &[u8]| path_text(Path::new(std::ffi::OsStr::from_bytes(b))).into_owned();
        assert_eq!(text(b"runs/mi-s7/trace.txt"), "runs/mi-s7/trace.txt");
        assert_eq!(text("d/é.hist".as_bytes()), "d/é.hist");
        assert_eq!(text(b"d/\xff.hist"), r"d/\xff.hist");
        assert_eq!(text(br"d/\xff.hist"), r"d/\\xff.hist");
        assert_eq!(text(b"d/\xff\x80.hist"), r"d/\xff\x80.hist");
        assert_eq!(text(b"a\\b"), r"a\\b");
    }

    /// Rows of every shape: each column empty and set, text with quotes,
    /// separators, line breaks and non-ASCII.
    fn sample_rows() -> Vec<Row<'static>> {
        use memconform_core::certificate::Pattern;
        use memconform_core::complete::Engine;
        use memconform_core::models::Model;
        let texts = [
            "",
            "plain",
            "quote \" backslash \\ comma , tab \t nl \n cr \r",
            "ünïcödé ✓ 🦀",
            "t0:W(m0,1)@3:5 -po-> t1:R(m0,0)@4:5",
        ];
        let floats = [0.0, 1.0, 0.5, 1e-7, 123456.789, 0.294763];
        let mut out = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            for (j, &x) in floats.iter().enumerate() {
                let some = (i + j) % 2 == 0;
                out.push(Row {
                    file: text.to_string().into(),
                    index: i * 1000 + j,
                    name: texts[(i + 1) % texts.len()].to_string().into(),
                    protocol: text.to_string().into(),
                    variant: "".into(),
                    seed: "42".into(),
                    cpus: text.to_string().into(),
                    cpu_type: ["", "X86O3CPU"][i % 2].into(),
                    shape: ["MP", ""][j % 2].into(),
                    expected_model: [None, Some(Model::Sc), Some(Model::Tso)][j % 3],
                    model: Model::EVERY[(i + j) % 9],
                    verdict: [Verdict::Consistent, Verdict::Violation, Verdict::Unknown][j % 3],
                    decided_by: Some(Model::EVERY[j % 9]),
                    pattern: some.then_some(Pattern::ALL[(i * 7 + j) % Pattern::ALL.len()]),
                    cycle_len: j,
                    certificate: text.to_string().into(),
                    checked: "".into(),
                    ops: usize::MAX,
                    threads: 0,
                    writes: 7,
                    time_ms: x,
                    write_pairs: 10,
                    ordered_pairs: some.then_some(3),
                    coverage: some.then_some(x.min(1.0)),
                    engine: some.then_some(Engine::CHOOSABLE[j % 5]),
                    unordered_pairs: (!some).then_some(0),
                    kernel_pairs: some.then_some(u64::MAX as usize),
                    kernel_coverage: (!some).then_some(x.min(1.0) / 4.0),
                    reason: text.to_string().into(),
                    damage: texts[(i + 2) % texts.len()].to_string().into(),
                    certified: [Some(true), Some(false), None][i % 3],
                    expected: [None, Some(true), Some(false)][j % 3],
                    explanation: text.to_string().into(),
                    promise: ["", "tso", "@expect"][j % 3].into(),
                    breaks_promise: [None, Some(true), Some(false)][i % 3],
                });
            }
        }
        out
    }

    #[test]
    fn rows_written_as_json_read_back_equal() {
        for row in sample_rows() {
            let mut line = Vec::new();
            write_json(&mut line, std::slice::from_ref(&row)).unwrap();
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            let back: Row<'static> = serde_json::from_slice(&line).unwrap();
            assert_eq!(back, row);
        }
    }

    #[test]
    fn rows_written_as_csv_read_back_equal() {
        let rows = sample_rows();
        let mut csv = Vec::new();
        write_csv(&mut csv, &rows, true).unwrap();
        let text = String::from_utf8(csv).unwrap();
        assert!(text.starts_with(&COLUMNS.join(",")));
        let back = summary::read_results_str("t.csv", &text, &[]).unwrap();
        assert_eq!(back.rows.len(), rows.len());
        for (b, r) in back.rows.iter().zip(&rows) {
            assert_eq!(&b.row, r);
        }
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_would_run_are_text() {
        let mut row = sample_rows().remove(0);
        row.file = "=HYPERLINK(\"x\")".into();
        row.protocol = "+1".into();
        row.variant = "-2".into();
        row.name = "@SUM(A1)".into();
        let mut csv = Vec::new();
        write_csv(&mut csv, &[row], false).unwrap();
        let text = String::from_utf8(csv).unwrap();
        for cell in ["'=HYPERLINK", "'+1", "'-2", "'@SUM(A1)"] {
            assert!(text.contains(cell), "{cell} in {text}");
        }
    }
}
