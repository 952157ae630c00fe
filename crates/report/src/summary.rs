//! Reading `check -f csv` results back, and `memconform summarize`: the
//! aggregate table (detection, gradual stages, time, coverage) grouped by
//! any columns.
//!
//! The reader looks columns up by header name, so it accepts CSVs with
//! extra or missing optional columns (older versions, hand-edited files,
//! other tools); only `model` and `verdict` are required. Every malformed
//! value is reported as `file:line: message`, the line being where the
//! record starts in the file.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

use memconform_core::check::Verdict;
use memconform_core::models::Model;

use crate::row::{column_accepts, column_kind, Row};

/// A bad input: the file, the line of the record (if any) and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvError {
    pub file: String,
    pub line: Option<u64>,
    pub message: String,
}

impl CsvError {
    pub fn new(file: &str, line: Option<u64>, message: impl Into<String>) -> Self {
        CsvError {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for CsvError {}

/// One row of a results CSV as read: the [`Row`] (its columns by name),
/// where it came from, and the extra columns asked for.
#[derive(Debug, Clone)]
pub struct Rec {
    /// Index of the CSV this row came from in [`Results::files`].
    pub source: usize,
    /// Line of the file where the record starts (1-based; the header is line 1).
    pub line: u64,
    pub row: Row<'static>,
    /// The values of the extra columns asked for when reading, in order.
    pub extra: Vec<String>,
}

impl std::ops::Deref for Rec {
    type Target = Row<'static>;
    fn deref(&self) -> &Row<'static> {
        &self.row
    }
}

impl Rec {
    pub fn is_violation(&self) -> bool {
        self.verdict == Verdict::Violation
    }

    pub fn is_unknown(&self) -> bool {
        self.verdict == Verdict::Unknown
    }

    /// `file#index`, as in the text report.
    pub fn location(&self) -> String {
        format!("{}#{}", self.file, self.index)
    }
}

/// The rows of one or more results CSVs.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// The CSVs read (`-` for standard input), as given.
    pub files: Vec<String>,
    /// Their header rows.
    pub headers: Vec<Vec<String>>,
    /// The extra columns read into [`Rec::extra`].
    pub extra: Vec<String>,
    pub rows: Vec<Rec>,
}

impl Results {
    /// Whether some file has this column.
    pub fn has_column(&self, column: &str) -> bool {
        self.headers.iter().any(|h| h.iter().any(|c| c == column))
    }

    /// The rows of one model, in input order.
    pub fn of_model(&self, model: Model) -> impl Iterator<Item = &Rec> + '_ {
        self.rows.iter().filter(move |r| r.model == model)
    }

    /// The models present, weakest first (the order of `check`).
    pub fn models(&self) -> Vec<Model> {
        let mut m: Vec<Model> = self.rows.iter().map(|r| r.model).collect();
        m.sort();
        m.dedup();
        m
    }
}

impl Results {
    /// Keeps each history × model once: a row that reached the table again
    /// — the same history (file, index, variant, seed and size) and model,
    /// from a merge given with its parts, one file under two names, or
    /// overlapping shards — is dropped (the first kept), and the note
    /// returned says how many and where the first was. An error when the
    /// two disagree on the verdict (runs of different options: merge them
    /// first, or read them apart).
    pub fn count_once(&mut self) -> Result<Option<String>, CsvError> {
        type Key = (String, usize, String, String, usize, usize, usize, Model);
        let key = |r: &Rec| -> Key {
            (
                r.file.to_string(),
                r.index,
                r.variant.to_string(),
                r.seed.to_string(),
                r.ops,
                r.threads,
                r.writes,
                r.model,
            )
        };
        let mut first: HashMap<Key, usize> = HashMap::with_capacity(self.rows.len());
        let mut keep = vec![true; self.rows.len()];
        let mut again: Option<(usize, usize)> = None;
        let mut n = 0usize;
        for (i, r) in self.rows.iter().enumerate() {
            match first.entry(key(r)) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(i);
                }
                std::collections::hash_map::Entry::Occupied(o) => {
                    let f = &self.rows[*o.get()];
                    if f.verdict != r.verdict {
                        return Err(CsvError::new(
                            &self.files[r.source],
                            Some(r.line),
                            format!(
                                "{} {} is {} here and {} at {}:{}: the same history checked                                  twice, with different results (memconform merge keeps the                                  last; or read them apart)",
                                r.location(),
                                r.model,
                                r.verdict.name(),
                                f.verdict.name(),
                                self.files[f.source],
                                f.line
                            ),
                        ));
                    }
                    keep[i] = false;
                    n += 1;
                    again.get_or_insert((*o.get(), i));
                }
            }
        }
        let Some((f, r)) = again else {
            return Ok(None);
        };
        let (f, r) = (&self.rows[f], &self.rows[r]);
        let note = format!(
            "{n} row{} read twice (the same history and model; e.g. {}:{} again at {}:{}: a merge              with its parts, a file under two names, overlapping shards?): each counted once",
            if n == 1 { "" } else { "s" },
            self.files[f.source],
            f.line,
            self.files[r.source],
            r.line
        );
        let mut k = keep.into_iter();
        self.rows.retain(|_| k.next().unwrap_or(true));
        Ok(Some(note))
    }
}

/// Position of a model name in memconform's order (cc, ccv, …, pso); other
/// names after, in alphabetical order.
pub fn model_rank(name: &str) -> usize {
    Model::EVERY
        .iter()
        .position(|m| m.name() == name)
        .unwrap_or(Model::EVERY.len())
}

/// Sorts and deduplicates model names in memconform's order.
pub fn sort_models(names: &mut Vec<String>) {
    names.sort_by(|a, b| model_rank(a).cmp(&model_rank(b)).then_with(|| a.cmp(b)));
    names.dedup();
}

/// Reads results CSVs (`-` is standard input) into one table. `extra`
/// names further columns to keep in [`Rec::extra`]; each must exist in
/// every file. Repeated header lines (CSVs joined with `cat`) are skipped.
pub fn read_results(paths: &[impl AsRef<Path>], extra: &[String]) -> Result<Results, CsvError> {
    let mut res = Results {
        extra: extra.to_vec(),
        ..Results::default()
    };
    for p in paths {
        let (name, reader) = open_input(p.as_ref())?;
        read_one(&mut res, &name, reader)?;
    }
    Ok(res)
}

/// Reads results from a string (tests, and callers that hold the CSV).
pub fn read_results_str(name: &str, text: &str, extra: &[String]) -> Result<Results, CsvError> {
    let mut res = Results {
        extra: extra.to_vec(),
        ..Results::default()
    };
    read_one(&mut res, name, text.as_bytes())?;
    Ok(res)
}

/// An input CSV by its name, `-` being standard input.
pub fn open_input(p: &Path) -> Result<(String, Box<dyn Read>), CsvError> {
    // as messages show it (control characters made harmless)
    let name = crate::shown_path(p).into_owned();
    let reader: Box<dyn Read> = if name == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(
            std::fs::File::open(p)
                .map_err(|e| CsvError::new(&name, None, format!("cannot read: {e}")))?,
        )
    };
    Ok((name, reader))
}

/// The columns of a mutation campaign's `kill-matrix.csv`
/// ([`super::mutation::write_kill_matrix`]) that a results CSV lacks.
pub const KILL_MATRIX_COLUMNS: [&str; 3] = ["mutant_id", "outcome", "exit_kind"];

/// The header of a CSV being read: its columns by name.
pub struct Table<'n> {
    pub name: &'n str,
    pub header: Vec<String>,
    col: HashMap<String, usize>,
}

impl Table<'_> {
    pub fn has(&self, column: &str) -> bool {
        self.col.contains_key(column)
    }

    /// Whether this is a campaign's kill matrix (by its header).
    pub fn is_kill_matrix(&self) -> bool {
        KILL_MATRIX_COLUMNS.iter().all(|c| self.has(c))
    }

    /// Whether this is the output of `memconform check -f csv`.
    pub fn is_results(&self) -> bool {
        self.has("model") && self.has("verdict")
    }

    /// An error about the header (line 1).
    pub fn error(&self, message: impl Into<String>) -> CsvError {
        CsvError::new(self.name, Some(1), message)
    }
}

/// One record of a [`Table`], with the line where it starts.
pub struct Record<'a> {
    table: &'a Table<'a>,
    pub line: u64,
    pub fields: &'a csv::StringRecord,
}

impl Record<'_> {
    /// A column's value, trimmed (empty when the column is absent).
    pub fn get(&self, column: &str) -> &str {
        self.table
            .col
            .get(column)
            .and_then(|&i| self.fields.get(i))
            .unwrap_or("")
            .trim()
    }

    /// Whether the file has this column.
    pub fn has(&self, column: &str) -> bool {
        self.table.has(column)
    }

    /// The header, as a record (for deserializing a record by column names).
    pub fn header(&self) -> csv::StringRecord {
        self.table.header.iter().collect()
    }

    /// An error at this record's line.
    pub fn error(&self, message: impl Into<String>) -> CsvError {
        CsvError::new(self.table.name, Some(self.line), message)
    }

    /// `column`: `value` is not `what`.
    pub fn bad(&self, column: &str, what: &str) -> CsvError {
        self.error(format!(
            "column `{column}`: `{}` is not {what}",
            self.get(column)
        ))
    }
}

/// Reads one CSV strictly: a header of distinct names (checked by
/// `header`, which returns what `row` needs of it), then every record as
/// long as the header (`row` checks and keeps it); a repeated header line
/// (CSVs joined with `cat`) is skipped. Every error names the file and
/// the line.
pub fn read_table<'n, H>(
    name: &'n str,
    reader: impl Read,
    header: impl FnOnce(&Table) -> Result<H, CsvError>,
    mut row: impl FnMut(&H, &Record) -> Result<(), CsvError>,
) -> Result<Table<'n>, CsvError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        // text cells keep their blanks (an explanation is indented)
        .trim(csv::Trim::Headers)
        .from_reader(reader);
    let csv_err = |e: csv::Error| {
        let line = e.position().map(|p| p.line());
        let msg = match e.kind() {
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => format!("{len} fields where the header has {expected_len}"),
            csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
            _ => e.to_string(),
        };
        CsvError::new(name, line, msg)
    };
    let columns: Vec<String> = rdr
        .headers()
        .map_err(csv_err)?
        .iter()
        .map(|s| s.trim().to_string())
        .collect();
    let mut table = Table {
        name,
        header: Vec::new(),
        col: HashMap::new(),
    };
    if columns.iter().all(|h| h.is_empty()) {
        return Err(table.error("empty file: no header row"));
    }
    for (i, h) in columns.iter().enumerate() {
        if let Some(j) = table.col.insert(h.clone(), i) {
            return Err(table.error(format!(
                "column `{h}` appears twice (columns {} and {})",
                j + 1,
                i + 1
            )));
        }
    }
    table.header = columns;
    let h = header(&table)?;
    let mut fields = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut fields) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_err(e)),
        }
        // a header repeated by `cat a.csv b.csv`
        if fields.iter().zip(&table.header).all(|(v, h)| v.trim() == h) {
            continue;
        }
        row(
            &h,
            &Record {
                table: &table,
                line: fields.position().map_or(0, |p| p.line()),
                fields: &fields,
            },
        )?;
    }
    Ok(table)
}

fn read_one(res: &mut Results, name: &str, reader: impl Read) -> Result<(), CsvError> {
    let source = res.files.len();
    let check_header = |t: &Table| {
        if t.is_kill_matrix() && !t.is_results() {
            return Err(t.error(format!(
                "a mutation campaign's kill matrix (columns {}), not results of `memconform \
                 check -f csv` (columns model, verdict): plot it with `memconform plot --kind \
                 kill-by-operator` or `--kind seeds-to-kill`",
                KILL_MATRIX_COLUMNS.join(", ")
            )));
        }
        for required in ["model", "verdict"] {
            if !t.has(required) {
                return Err(t.error(format!(
                    "no `{required}` column (is this the output of `memconform check -f csv`?)"
                )));
            }
        }
        res.extra
            .iter()
            .map(|c| {
                t.col.get(c.as_str()).copied().ok_or_else(|| {
                    t.error(format!(
                        "no column `{c}` (columns: {})",
                        t.header.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<usize>, CsvError>>()
    };
    // each row's fields, with its line: a row read twice is an error, never
    // counted twice
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut rows = Vec::new();
    let mut header: Option<csv::StringRecord> = None;
    let table = read_table(name, reader, check_header, |extra_idx, r| {
        let line = r.line;
        let header = header.get_or_insert_with(|| r.header());
        let row: Row<'static> = match r.fields.deserialize(Some(header)) {
            Ok(row) => row,
            Err(e) => {
                let column = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => err
                        .field()
                        .and_then(|i| header.get(i as usize))
                        .map(str::to_string)
                        // serde's own errors (an unknown name) carry no field
                        .or_else(|| {
                            header
                                .iter()
                                .zip(r.fields)
                                .find(|(c, v)| !column_accepts(c, v))
                                .map(|(c, _)| c.to_string())
                        }),
                    _ => None,
                };
                return Err(match column {
                    Some(c) => r.bad(&c, column_kind(&c)),
                    None => r.error(e.to_string()),
                });
            }
        };
        // numbers within their ranges
        let in_range = |c: &str, v: Option<f64>, range: std::ops::RangeInclusive<f64>| match v {
            Some(v) if !(v.is_finite() && range.contains(&v)) => Err(r.bad(c, column_kind(c))),
            _ => Ok(()),
        };
        in_range("time_ms", Some(row.time_ms), 0.0..=f64::MAX)?;
        in_range("coverage", row.coverage, 0.0..=1.0)?;
        in_range("kernel_coverage", row.kernel_coverage, 0.0..=1.0)?;
        // the same row twice in one input: results concatenated twice
        let fields = r.fields.iter().collect::<Vec<_>>().join("\u{1f}");
        if let Some(at) = seen.insert(fields, line) {
            return Err(r.error(format!(
                "the same row as line {at} (the same results concatenated twice?)"
            )));
        }
        rows.push(Rec {
            source,
            line,
            row,
            extra: extra_idx
                .iter()
                .map(|&i| r.fields.get(i).unwrap_or("").trim().to_string())
                .collect(),
        });
        Ok(())
    })?;
    res.rows.extend(rows);
    res.files.push(name.to_string());
    res.headers.push(table.header);
    Ok(())
}

/// A CSV writer's error as an I/O error, keeping the kind of an I/O
/// failure (a closed pipe stays `BrokenPipe`).
pub fn csv_io(e: csv::Error) -> io::Error {
    if !e.is_io_error() {
        return io::Error::other(e);
    }
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        // `is_io_error` said it is one
        _ => io::Error::other("a CSV write failed"),
    }
}

/// The median (mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The `p`-th percentile by the nearest-rank method: the smallest value
/// with at least `p`% of the values at or below it.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    Some(v[rank.clamp(1, v.len()) - 1])
}

/// The arithmetic mean.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Orders two values of a column: numerically when both are numbers, in
/// memconform's model order for model columns, else as text.
pub fn compare_values(column: &str, a: &str, b: &str) -> std::cmp::Ordering {
    if let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) {
        return x.total_cmp(&y);
    }
    if column == "model" || column == "decided_by" {
        return model_rank(a).cmp(&model_rank(b)).then_with(|| a.cmp(b));
    }
    a.cmp(b)
}

/// One line of the summary: one group.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// The values of the `--by` columns.
    pub group: Vec<String>,
    /// Rows of the group (histories × models; histories when grouped by model).
    pub histories: usize,
    pub violations: usize,
    pub unknown: usize,
    /// Violations on histories that break their promise (a bug of the
    /// run), and violations the promise allows (see [`Row::breaks_promise`]).
    pub breaking: usize,
    pub allowed: usize,
    /// Per stage of [`Summary::stages`]: the percentage of the group's
    /// violations whose `decided_by` is that stage (`None` without violations).
    pub caught: Vec<Option<f64>>,
    pub time_median_ms: Option<f64>,
    pub time_p95_ms: Option<f64>,
    /// Mean of the non-empty `coverage` cells.
    pub coverage_mean: Option<f64>,
    /// Mean of the non-empty `kernel_coverage` cells.
    pub kernel_coverage_mean: Option<f64>,
}

impl SummaryRow {
    /// Violations as a percentage of the rows (`None` for an empty group).
    pub fn violations_pct(&self) -> Option<f64> {
        (self.histories > 0).then(|| 100.0 * self.violations as f64 / self.histories as f64)
    }
}

/// The aggregate table of `memconform summarize`.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The grouping columns.
    pub by: Vec<String>,
    /// The gradual stages that caught some violation (values of `decided_by`),
    /// weakest first: the `caught_<stage>` columns.
    pub stages: Vec<String>,
    /// Whether some row has a kernel coverage (the column is shown then).
    pub kernel: bool,
    pub rows: Vec<SummaryRow>,
}

/// Groups the rows by the columns `by` (which must have been read as
/// extra columns, in this order) and aggregates each group.
pub fn summarize(res: &Results, by: &[String]) -> Summary {
    let key_idx: Vec<usize> = by
        .iter()
        .map(|c| {
            res.extra
                .iter()
                .position(|e| e == c)
                .unwrap_or_else(|| panic!("column `{c}` was not read"))
        })
        .collect();
    let mut stages: Vec<String> = res
        .rows
        .iter()
        .filter(|r| r.is_violation())
        .filter_map(|r| r.decided_by.map(|m| m.name().to_string()))
        .collect();
    sort_models(&mut stages);

    let mut groups: Vec<(Vec<String>, Vec<&Rec>)> = Vec::new();
    let mut pos: HashMap<Vec<String>, usize> = HashMap::new();
    for r in &res.rows {
        let key: Vec<String> = key_idx.iter().map(|&i| r.extra[i].clone()).collect();
        let g = *pos.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(r);
    }
    groups.sort_by(|(a, _), (b, _)| {
        by.iter()
            .zip(a.iter().zip(b))
            .map(|(c, (x, y))| compare_values(c, x, y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });

    let rows = groups
        .into_iter()
        .map(|(group, rs)| {
            let violations: Vec<&&Rec> = rs.iter().filter(|r| r.is_violation()).collect();
            let caught = stages
                .iter()
                .map(|s| {
                    (!violations.is_empty()).then(|| {
                        let k = violations
                            .iter()
                            .filter(|r| r.decided_by.is_some_and(|m| m.name() == s))
                            .count();
                        100.0 * k as f64 / violations.len() as f64
                    })
                })
                .collect();
            let times: Vec<f64> = if res.has_column("time_ms") {
                rs.iter().map(|r| r.time_ms).collect()
            } else {
                Vec::new()
            };
            let cov: Vec<f64> = rs.iter().filter_map(|r| r.coverage).collect();
            let kcov: Vec<f64> = rs.iter().filter_map(|r| r.kernel_coverage).collect();
            SummaryRow {
                group,
                histories: rs.len(),
                violations: violations.len(),
                unknown: rs.iter().filter(|r| r.is_unknown()).count(),
                breaking: violations.iter().filter(|r| r.breaks_promise()).count(),
                allowed: violations.iter().filter(|r| r.allowed()).count(),
                caught,
                time_median_ms: median(&times),
                time_p95_ms: percentile(&times, 95.0),
                coverage_mean: mean(&cov),
                kernel_coverage_mean: mean(&kcov),
            }
        })
        .collect();
    Summary {
        by: by.to_vec(),
        kernel: res.rows.iter().any(|r| r.kernel_coverage.is_some()),
        stages,
        rows,
    }
}

/// A number with at most `decimals` decimals, trailing zeros dropped;
/// empty for `None`.
pub fn fmt_num(v: Option<f64>, decimals: usize) -> String {
    let Some(v) = v else {
        return String::new();
    };
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// A time in milliseconds with 3 significant digits (at least 3 decimals
/// under 1 ms), for tables.
pub fn fmt_ms(v: Option<f64>) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) if v >= 1.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.3}"),
    }
}

impl Summary {
    fn header(&self) -> Vec<String> {
        let mut h = self.by.clone();
        h.extend(
            [
                "histories",
                "violations",
                "violations_pct",
                "unknown",
                "breaks_promise",
                "allowed",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        h.extend(self.stages.iter().map(|s| format!("caught_{s}")));
        h.extend(
            ["time_median_ms", "time_p95_ms", "coverage_mean"]
                .iter()
                .map(|s| s.to_string()),
        );
        if self.kernel {
            h.push("kernel_coverage_mean".to_string());
        }
        h
    }

    /// Writes the summary as CSV: the `--by` columns, `histories`,
    /// `violations`, `violations_pct`, `unknown`, `breaks_promise` and
    /// `allowed` (violations that break the run's promise, that it
    /// allows), `caught_<stage>` (percent of
    /// the violations), `time_median_ms`, `time_p95_ms`, `coverage_mean`
    /// and, with kernels, `kernel_coverage_mean`. Empty cells: no value.
    pub fn write_csv(&self, out: impl Write) -> io::Result<()> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(self.header()).map_err(csv_io)?;
        for r in &self.rows {
            let mut rec = r.group.clone();
            rec.push(r.histories.to_string());
            rec.push(r.violations.to_string());
            rec.push(fmt_num(r.violations_pct(), 4));
            rec.push(r.unknown.to_string());
            rec.push(r.breaking.to_string());
            rec.push(r.allowed.to_string());
            rec.extend(r.caught.iter().map(|c| fmt_num(*c, 4)));
            rec.push(fmt_num(r.time_median_ms, 6));
            rec.push(fmt_num(r.time_p95_ms, 6));
            rec.push(fmt_num(r.coverage_mean, 6));
            if self.kernel {
                rec.push(fmt_num(r.kernel_coverage_mean, 6));
            }
            w.write_record(rec).map_err(csv_io)?;
        }
        w.flush()
    }

    /// Writes the summary as an aligned table for people (`-`: no value).
    pub fn write_table(&self, mut out: impl Write) -> io::Result<()> {
        let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}%"));
        let frac = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        let mut header: Vec<String> = self.by.clone();
        header.extend(
            [
                "histories",
                "violations",
                "unknown",
                "breaks promise",
                "allowed",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        header.extend(self.stages.iter().map(|s| format!("caught {s}")));
        header.extend(
            ["median ms", "p95 ms", "coverage"]
                .iter()
                .map(|s| s.to_string()),
        );
        if self.kernel {
            header.push("kernel cov.".to_string());
        }
        let mut lines = vec![header];
        for r in &self.rows {
            let mut l: Vec<String> = r
                .group
                .iter()
                .map(|g| {
                    if g.is_empty() {
                        "(none)".to_string()
                    } else {
                        g.clone()
                    }
                })
                .collect();
            l.push(r.histories.to_string());
            l.push(format!("{} ({})", r.violations, pct(r.violations_pct())));
            l.push(r.unknown.to_string());
            l.push(r.breaking.to_string());
            l.push(r.allowed.to_string());
            l.extend(r.caught.iter().map(|c| pct(*c)));
            l.push(fmt_ms(r.time_median_ms));
            l.push(fmt_ms(r.time_p95_ms));
            l.push(frac(r.coverage_mean));
            if self.kernel {
                l.push(frac(r.kernel_coverage_mean));
            }
            lines.push(l);
        }
        write_aligned(&mut out, &lines, self.by.len())?;
        if !self.stages.is_empty() {
            writeln!(
                out,
                "(caught STAGE: share of the violations caught first by that gradual stage, from decided_by)"
            )?;
        }
        Ok(())
    }
}

/// Writes rows of cells as columns separated by two spaces: the first
/// `left` columns left-aligned, the others right-aligned.
pub fn write_aligned(out: &mut impl Write, lines: &[Vec<String>], left: usize) -> io::Result<()> {
    let n = lines.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..n)
        .map(|i| {
            lines
                .iter()
                .filter_map(|l| l.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for l in lines {
        let cells: Vec<String> = l
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i < left {
                    format!("{c:<w$}", w = width[i])
                } else {
                    format!("{c:>w$}", w = width[i])
                }
            })
            .collect();
        writeln!(out, "{}", cells.join("  ").trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod csv_fuzz;

#[cfg(test)]
mod tests {
    use super::*;

    /// The table `summarize` prints for `files` (name, text) read as one,
    /// rows read twice counted once.
    fn table(files: &[(&str, &str)]) -> Result<(String, Option<String>), CsvError> {
        let mut res = Results {
            extra: vec!["model".to_string()],
            ..Results::default()
        };
        for (name, text) in files {
            read_one(&mut res, name, text.as_bytes())?;
        }
        let note = res.count_once()?;
        let mut out = Vec::new();
        summarize(&res, &["model".to_string()])
            .write_table(&mut out)
            .unwrap();
        Ok((String::from_utf8(out).unwrap(), note))
    }

    #[test]
    fn a_merge_with_its_parts_counts_each_row_once() {
        let head = "file,index,variant,model,verdict\n";
        let p0 = format!("{head}a.hist,0,,sc,violation\na.hist,1,,sc,consistent\n");
        let p1 = format!("{head}b.hist,0,,sc,consistent\n");
        let merged = format!(
            "{head}a.hist,0,,sc,violation\na.hist,1,,sc,consistent\nb.hist,0,,sc,consistent\n"
        );
        // the merge alone is the evidence
        let (alone, none) = table(&[("merged.csv", &merged)]).unwrap();
        assert_eq!(none, None);
        let (both, note) = table(&[
            ("part-0.csv", &p0),
            ("part-1.csv", &p1),
            ("merged.csv", &merged),
        ])
        .unwrap();
        assert_eq!(both, alone);
        let note = note.expect("a note");
        assert!(note.starts_with("3 rows read twice"), "{note}");
        assert!(
            note.contains("part-0.csv:2 again at merged.csv:2"),
            "{note}"
        );
        // overlapping shards: the overlap once
        let (overlap, note) =
            table(&[("p0.csv", &p0), ("p0-again.csv", &p0), ("p1.csv", &p1)]).unwrap();
        assert_eq!(overlap, alone);
        assert!(note.unwrap().starts_with("2 rows read twice"));
        // another variant of the same file is another run: both count
        let other = format!("{head}a.hist,0,fixed,sc,consistent\n");
        let (_, note) = table(&[("p0.csv", &p0), ("other.csv", &other)]).unwrap();
        assert_eq!(note, None);
    }

    #[test]
    fn the_same_history_with_another_verdict_is_an_error_at_its_line() {
        let head = "file,index,model,verdict\n";
        let a = format!("{head}a.hist,0,sc,violation\n");
        let b = format!("{head}x.hist,3,sc,consistent\na.hist,0,sc,unknown\n");
        let e = table(&[("a.csv", &a), ("b.csv", &b)]).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("b.csv", Some(3)), "{e}");
        assert!(
            e.message.contains("unknown here and violation at a.csv:2"),
            "{e}"
        );
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(median(&v), Some(10.5));
        assert_eq!(percentile(&v, 95.0), Some(19.0));
        assert_eq!(percentile(&[3.0], 95.0), Some(3.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn bad_numbers_are_located() {
        let csv = "model,verdict,time_ms\ncc,consistent,1.5\ncc,violation,fast\n";
        let e = read_results_str("r.csv", csv, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.csv:3: column `time_ms`: `fast` is not a time in ms (0 or more)"
        );
    }

    #[test]
    fn stages_and_groups() {
        let csv = "model,verdict,decided_by,time_ms,coverage\n\
                   sc,violation,cc,1,\n\
                   sc,violation,sc,3,\n\
                   sc,consistent,sc,2,0.5\n\
                   cc,consistent,cc,1,\n";
        let res = read_results_str("r.csv", csv, &["model".to_string()]).unwrap();
        let s = summarize(&res, &["model".to_string()]);
        assert_eq!(s.stages, ["cc", "sc"]);
        assert_eq!(s.rows[0].group, ["cc"]);
        assert_eq!(s.rows[1].violations, 2);
        assert_eq!(s.rows[1].caught, [Some(50.0), Some(50.0)]);
        assert_eq!(s.rows[1].time_median_ms, Some(2.0));
        assert_eq!(s.rows[1].coverage_mean, Some(0.5));
        assert_eq!(s.rows[0].caught, [None, None]);
    }
}
