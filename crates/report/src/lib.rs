//! Output: the tidy per history × model table (CSV, JSON lines) and the text
//! report with certificates; from the table, summaries, comparisons, merges
//! and figures; from a checked history, its HTML page, DOT certificates and
//! shrunk counterexamples. Everything here reads what ingestion and the
//! core handed over ([`memconform_ingest::Checked`]), never an input again.

pub mod commands;
pub mod compare;
pub mod dot;
pub mod html;
pub mod merge;
pub mod plot;
pub mod shrunk;
pub mod summary;
pub mod timeline;

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use memconform_core::check::Verdict;
use memconform_ingest::Checked;

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
    /// Where the input is damaged (`file:line:col: what`), empty when it is
    /// whole: the history is then the prefix before the damage.
    pub damage: Cow<'a, str>,
    /// Whether the independent validator accepted the certificate
    /// (`no` is an internal error, reported with exit status 3).
    pub certified: &'static str,
    /// The `@expect` verdict for this model (yes/no), empty if none.
    pub expected: &'static str,
    /// A violation explained in the input's terms (gem5: ports, ticks,
    /// trace lines, protocol transitions), empty otherwise.
    pub explanation: Cow<'a, str>,
}

/// A path as text without loss: UTF-8 as it is, each byte that is not
/// UTF-8 as `\xNN`, and a backslash as `\\` (so the two cannot meet).
pub fn path_text(p: &Path) -> Cow<'_, str> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = p.as_os_str().as_bytes();
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.contains('\\') {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    Cow::Owned(out)
}

/// The rows of one checked history.
pub fn rows<'a>(file: &'a Path, c: &'a Checked) -> Vec<Row<'a>> {
    let h = &c.history;
    let file = path_text(file);
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
                damage: c.damage.as_deref().unwrap_or_default().into(),
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
fn meta<'a>(h: &'a memconform_core::history::History, key: &str) -> &'a str {
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

/// Writes `bytes` to `path` whole: into a temporary file beside it, renamed
/// over it (a reader never sees a half-written file; a failure leaves the
/// old one).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.memconform-{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
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

/// Writes rows as JSON lines: each as serde_json writes a [`Row`] (its
/// fields in order, the same escapes and numbers), one write per row.
pub fn write_json(mut out: impl Write, rows: &[Row<'_>]) -> io::Result<()> {
    let mut line = Vec::with_capacity(1024);
    for r in rows {
        line.clear();
        json_row(&mut line, r);
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

/// One row as a JSON object.
fn json_row(o: &mut Vec<u8>, r: &Row<'_>) {
    let str_field = |o: &mut Vec<u8>, key: &[u8], value: &str| {
        o.extend_from_slice(key);
        json_str(o, value);
    };
    let int_field = |o: &mut Vec<u8>, key: &[u8], value: Option<usize>| {
        o.extend_from_slice(key);
        match value {
            Some(n) => json_uint(o, n as u64),
            None => o.extend_from_slice(b"null"),
        }
    };
    let float_field = |o: &mut Vec<u8>, key: &[u8], value: Option<f64>| {
        o.extend_from_slice(key);
        match value {
            Some(x) => serde_json::to_writer(&mut *o, &x).expect("a Vec takes every write"),
            None => o.extend_from_slice(b"null"),
        }
    };
    str_field(o, b"{\"file\":", &r.file);
    int_field(o, b",\"index\":", Some(r.index));
    str_field(o, b",\"name\":", &r.name);
    str_field(o, b",\"protocol\":", &r.protocol);
    str_field(o, b",\"variant\":", &r.variant);
    str_field(o, b",\"seed\":", &r.seed);
    str_field(o, b",\"cpus\":", &r.cpus);
    str_field(o, b",\"model\":", r.model);
    str_field(o, b",\"verdict\":", r.verdict);
    str_field(o, b",\"decided_by\":", r.decided_by);
    str_field(o, b",\"pattern\":", r.pattern);
    int_field(o, b",\"cycle_len\":", Some(r.cycle_len));
    str_field(o, b",\"certificate\":", &r.certificate);
    int_field(o, b",\"ops\":", Some(r.ops));
    int_field(o, b",\"threads\":", Some(r.threads));
    int_field(o, b",\"writes\":", Some(r.writes));
    float_field(o, b",\"time_ms\":", Some(r.time_ms));
    int_field(o, b",\"write_pairs\":", Some(r.write_pairs));
    int_field(o, b",\"ordered_pairs\":", r.ordered_pairs);
    float_field(o, b",\"coverage\":", r.coverage);
    str_field(o, b",\"engine\":", r.engine);
    int_field(o, b",\"unordered_pairs\":", r.unordered_pairs);
    int_field(o, b",\"kernel_pairs\":", r.kernel_pairs);
    float_field(o, b",\"kernel_coverage\":", r.kernel_coverage);
    str_field(o, b",\"reason\":", &r.reason);
    str_field(o, b",\"damage\":", &r.damage);
    str_field(o, b",\"certified\":", r.certified);
    str_field(o, b",\"expected\":", r.expected);
    str_field(o, b",\"explanation\":", &r.explanation);
    o.push(b'}');
}

/// A JSON string with serde_json's escapes: `\"`, `\\`, `\b`, `\t`, `\n`,
/// `\f`, `\r`, `\u00xx` for the other control characters; the rest as is.
fn json_str(o: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    o.push(b'"');
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            b'\t' => b't',
            b'\n' => b'n',
            0x0c => b'f',
            b'\r' => b'r',
            0x00..=0x1f => b'u',
            _ => continue,
        };
        o.extend_from_slice(&bytes[run..i]);
        o.push(b'\\');
        o.push(escape);
        if escape == b'u' {
            o.extend_from_slice(&[
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
        }
        run = i + 1;
    }
    o.extend_from_slice(&bytes[run..]);
    o.push(b'"');
}

/// A number in decimal.
fn json_uint(o: &mut Vec<u8>, n: u64) {
    let mut buf = [0u8; 20];
    o.extend_from_slice(memconform_parsers::decimal(n, &mut buf));
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
            // the damage itself is in the notes above
            let reason = match r.reason.strip_suffix(&*r.damage) {
                Some(short) if !r.damage.is_empty() => short.trim_end_matches(": "),
                _ => &r.reason,
            };
            line.push_str(&format!(" {reason}"));
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
        if r.certified == "no" && r.verdict == "unknown" {
            line.push_str("  !! internal error (see standard error)");
        } else if r.certified == "no" {
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

    #[test]
    fn json_rows_are_serde_json_rows() {
        let texts = [
            "",
            "plain",
            "quote \" backslash \\ slash / tab \t nl \n cr \r",
            "\u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f} ünïcödé ✓ 🦀",
            "t0:W(m0,1)@3:5 -po-> t1:R(m0,0)@4:5",
        ];
        let floats = [
            0.0,
            1.0,
            0.5,
            1e-7,
            123456.789,
            0.294763,
            f64::NAN,
            f64::INFINITY,
            1e21,
        ];
        for (i, text) in texts.iter().enumerate() {
            for (j, &x) in floats.iter().enumerate() {
                let some = (i + j) % 2 == 0;
                let row = Row {
                    file: (*text).into(),
                    index: i * 1000 + j,
                    name: texts[(i + 1) % texts.len()].into(),
                    protocol: (*text).into(),
                    variant: "".into(),
                    seed: "42".into(),
                    cpus: (*text).into(),
                    model: "tso",
                    verdict: "violation",
                    decided_by: "wccm",
                    pattern: "CyclicWpww(ppo)",
                    cycle_len: j,
                    certificate: (*text).into(),
                    ops: usize::MAX,
                    threads: 0,
                    writes: 7,
                    time_ms: x,
                    write_pairs: 10,
                    ordered_pairs: some.then_some(3),
                    coverage: some.then_some(x),
                    engine: if some { "enum" } else { "" },
                    unordered_pairs: (!some).then_some(0),
                    kernel_pairs: some.then_some(u64::MAX as usize),
                    kernel_coverage: (!some).then_some(x / 3.0),
                    reason: (*text).into(),
                    damage: texts[(i + 2) % texts.len()].into(),
                    certified: "yes",
                    expected: "no",
                    explanation: (*text).into(),
                };
                let mut ours = Vec::new();
                write_json(&mut ours, std::slice::from_ref(&row)).unwrap();
                let theirs = serde_json::to_string(&row).unwrap() + "\n";
                assert_eq!(String::from_utf8(ours).unwrap(), theirs);
            }
        }
    }
}
