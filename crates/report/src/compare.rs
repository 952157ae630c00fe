//! `memconform compare`: two result sets side by side (typically two
//! protocol variants run on the same seeds), per model: detection rates,
//! the histories whose verdict flips, and the time ratio.
//!
//! Rows of A and B are matched by a key, always with the model:
//!
//! * `auto` (default), decided per row: `seed, cpus, index` when the row
//!   has a seed (gem5 runs and `gen` set it: two variants run on the same
//!   seeds then match, wherever their files are and whatever their names);
//!   else `name, index` when it has a name; else the base name of `file`
//!   and `index` (so `runs-a/h003.hist` matches `runs-b/h003.hist`).
//! * an explicit list of columns (`--key seed,cpus`), where `basename`
//!   stands for the base name of `file`.
//!
//! A key that occurs twice on one side is an error (the two lines are
//! named): matching would be ambiguous.

use std::collections::HashMap;
use std::io::{self, Write};

use super::summary::{
    csv_io, fmt_ms, fmt_num, median, sort_models, write_aligned, CsvError, Rec, Results,
};

/// How rows of the two sides are matched (the model is always part of the key).
#[derive(Debug, Clone, PartialEq)]
pub enum KeySpec {
    /// `seed, cpus, index` if the row has a seed, else `name, index` if it
    /// has a name, else `basename, index`.
    Auto,
    /// These columns (read as extra columns); `basename` is the base name of `file`.
    Columns(Vec<String>),
}

impl KeySpec {
    /// Parses `auto` or a comma-separated list of columns.
    pub fn parse(s: &str) -> Result<KeySpec, String> {
        if s.trim() == "auto" {
            return Ok(KeySpec::Auto);
        }
        let cols: Vec<String> = s
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty() && c != "model")
            .collect();
        if cols.is_empty() {
            return Err("the key needs at least one column besides model".to_string());
        }
        Ok(KeySpec::Columns(cols))
    }

    /// The columns to read as extra columns for this key.
    pub fn columns(&self) -> Vec<String> {
        match self {
            KeySpec::Auto => Vec::new(),
            KeySpec::Columns(c) => c.iter().filter(|c| *c != "basename").cloned().collect(),
        }
    }

    /// A description for reports.
    pub fn describe(&self) -> String {
        match self {
            KeySpec::Auto => {
                "auto (seed, cpus, index; or name, index; or basename, index) + model".to_string()
            }
            KeySpec::Columns(c) => format!("{} + model", c.join(", ")),
        }
    }

    fn key(&self, res: &Results, r: &Rec) -> String {
        let parts: Vec<String> = match self {
            KeySpec::Auto if !r.seed.is_empty() => {
                vec![
                    format!("seed={}", r.seed),
                    format!("cpus={}", r.cpus),
                    format!("index={}", r.index),
                ]
            }
            KeySpec::Auto if !r.name.is_empty() => {
                vec![format!("name={}", r.name), format!("index={}", r.index)]
            }
            KeySpec::Auto => vec![
                format!("basename={}", basename(&r.file)),
                format!("index={}", r.index),
            ],
            KeySpec::Columns(cols) => cols
                .iter()
                .map(|c| {
                    let v = if c == "basename" {
                        basename(&r.file).to_string()
                    } else {
                        let i = res
                            .extra
                            .iter()
                            .position(|e| e == c)
                            .unwrap_or_else(|| panic!("key column `{c}` was not read"));
                        r.extra[i].clone()
                    };
                    format!("{c}={v}")
                })
                .collect(),
        };
        format!("{} model={}", parts.join(" "), r.model.name())
    }
}

/// The last component of a path written with `/` or `\`.
fn basename(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

/// One side of a comparison: a label and its rows, in input order.
#[derive(Debug, Clone)]
pub struct Side<'a> {
    pub label: String,
    pub rows: Vec<&'a Rec>,
}

/// The two files of `compare A.csv B.csv`, read together (sources 0 and 1).
pub fn sides_by_file(res: &Results) -> (Side<'_>, Side<'_>) {
    let side = |s: usize| Side {
        label: res.files.get(s).cloned().unwrap_or_default(),
        rows: res.rows.iter().filter(|r| r.source == s).collect(),
    };
    (side(0), side(1))
}

/// The variants of one CSV (values of the extra column `column`), each
/// paired with the baseline: `baseline` if given, else the variant of the
/// first row.
pub fn sides_by_variant<'a>(
    res: &'a Results,
    column: &str,
    baseline: Option<&str>,
) -> Result<Vec<(Side<'a>, Side<'a>)>, CsvError> {
    let file = res.files.first().cloned().unwrap_or_default();
    let i = res
        .extra
        .iter()
        .position(|e| e == column)
        .unwrap_or_else(|| panic!("variant column `{column}` was not read"));
    let mut order: Vec<&str> = Vec::new();
    for r in &res.rows {
        if !order.contains(&r.extra[i].as_str()) {
            order.push(&r.extra[i]);
        }
    }
    let base = match baseline {
        Some(b) if order.contains(&b) => b,
        Some(b) => {
            return Err(CsvError::new(
                &file,
                None,
                format!(
                    "no row has {column} = `{b}` (values: {})",
                    order
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
        None => match order.first() {
            Some(b) => b,
            None => return Err(CsvError::new(&file, None, "no rows")),
        },
    };
    if order.len() < 2 {
        return Err(CsvError::new(
            &file,
            None,
            format!("every row has {column} = `{base}`: nothing to compare"),
        ));
    }
    let side = |v: &str| Side {
        label: format!("{column}={}", if v.is_empty() { "(empty)" } else { v }),
        rows: res.rows.iter().filter(|r| r.extra[i] == v).collect(),
    };
    Ok(order
        .iter()
        .filter(|v| **v != base)
        .map(|v| (side(base), side(v)))
        .collect())
}

/// One model of a comparison. Rates and times are over matched rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelComparison {
    pub model: String,
    /// Rows present on both sides.
    pub matched: usize,
    pub violations_a: usize,
    pub violations_b: usize,
    pub unknown_a: usize,
    pub unknown_b: usize,
    /// Matched rows that are violations in B but not in A, and the reverse.
    pub new_violations: usize,
    pub lost_violations: usize,
    /// Matched rows whose verdicts differ (unknown included).
    pub flips: usize,
    pub time_median_a_ms: Option<f64>,
    pub time_median_b_ms: Option<f64>,
    /// Rows with no partner on the other side.
    pub only_a: usize,
    pub only_b: usize,
}

impl ModelComparison {
    /// Violations as a percentage of the matched rows, in A and in B.
    pub fn violations_pct_a(&self) -> Option<f64> {
        (self.matched > 0).then(|| 100.0 * self.violations_a as f64 / self.matched as f64)
    }

    pub fn violations_pct_b(&self) -> Option<f64> {
        (self.matched > 0).then(|| 100.0 * self.violations_b as f64 / self.matched as f64)
    }

    /// Median time of B over median time of A.
    pub fn time_ratio(&self) -> Option<f64> {
        match (self.time_median_a_ms, self.time_median_b_ms) {
            (Some(a), Some(b)) if a > 0.0 => Some(b / a),
            _ => None,
        }
    }
}

/// A matched history × model whose verdict differs between A and B.
#[derive(Debug, Clone)]
pub struct Flip {
    pub key: String,
    pub a: Rec,
    pub b: Rec,
}

/// B against A.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub a_label: String,
    pub b_label: String,
    pub key: String,
    pub models: Vec<ModelComparison>,
    /// Every flip, in B's input order.
    pub flips: Vec<Flip>,
}

/// Compares side B against side A.
pub fn compare(
    res: &Results,
    a: &Side<'_>,
    b: &Side<'_>,
    key: &KeySpec,
) -> Result<Comparison, CsvError> {
    let index = |side: &Side<'_>| -> Result<HashMap<String, usize>, CsvError> {
        let mut m: HashMap<String, usize> = HashMap::new();
        for (i, r) in side.rows.iter().enumerate() {
            let k = key.key(res, r);
            if let Some(&j) = m.get(&k) {
                return Err(CsvError::new(
                    &res.files[r.source],
                    Some(r.line),
                    format!(
                        "{} has the key ({k}) of line {} too: rows cannot be matched; \
                         choose the key with --key (e.g. --key file,index)",
                        side.label, side.rows[j].line
                    ),
                ));
            }
            m.insert(k, i);
        }
        Ok(m)
    };
    let ia = index(a)?;
    let ib = index(b)?;
    // times are compared only where every file has them
    let timed = res.headers.iter().all(|h| h.iter().any(|c| c == "time_ms"));

    let mut names: Vec<String> = a
        .rows
        .iter()
        .chain(&b.rows)
        .map(|r| r.model.name().to_string())
        .collect();
    sort_models(&mut names);
    let mut models: Vec<ModelComparison> = names
        .iter()
        .map(|m| ModelComparison {
            model: m.clone(),
            matched: 0,
            violations_a: 0,
            violations_b: 0,
            unknown_a: 0,
            unknown_b: 0,
            new_violations: 0,
            lost_violations: 0,
            flips: 0,
            time_median_a_ms: None,
            time_median_b_ms: None,
            only_a: 0,
            only_b: 0,
        })
        .collect();
    let slot = |m: &str| names.iter().position(|n| n == m).expect("model listed");
    let mut times: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); names.len()];
    let mut flips = Vec::new();

    for rb in &b.rows {
        let k = key.key(res, rb);
        let s = slot(rb.model.name());
        let Some(&ja) = ia.get(&k) else {
            models[s].only_b += 1;
            continue;
        };
        let ra = a.rows[ja];
        let mc = &mut models[s];
        mc.matched += 1;
        mc.violations_a += usize::from(ra.is_violation());
        mc.violations_b += usize::from(rb.is_violation());
        mc.unknown_a += usize::from(ra.is_unknown());
        mc.unknown_b += usize::from(rb.is_unknown());
        mc.new_violations += usize::from(!ra.is_violation() && rb.is_violation());
        mc.lost_violations += usize::from(ra.is_violation() && !rb.is_violation());
        if ra.verdict != rb.verdict {
            mc.flips += 1;
            flips.push(Flip {
                key: k,
                a: ra.clone(),
                b: (*rb).clone(),
            });
        }
        if timed {
            times[s].0.push(ra.time_ms);
            times[s].1.push(rb.time_ms);
        }
    }
    for ra in &a.rows {
        if !ib.contains_key(&key.key(res, ra)) {
            models[slot(ra.model.name())].only_a += 1;
        }
    }
    for (mc, (ta, tb)) in models.iter_mut().zip(&times) {
        mc.time_median_a_ms = median(ta);
        mc.time_median_b_ms = median(tb);
    }
    Ok(Comparison {
        a_label: a.label.clone(),
        b_label: b.label.clone(),
        key: key.describe(),
        models,
        flips,
    })
}

fn verdict_detail(r: &Rec) -> String {
    match (r.is_violation(), r.decided_by, r.pattern) {
        (true, Some(by), None) => format!("{} (by {})", r.verdict.name(), by.name()),
        (true, Some(by), Some(p)) => {
            format!("{} (by {}: {})", r.verdict.name(), by.name(), p.name())
        }
        _ => r.verdict.name().to_string(),
    }
}

impl Comparison {
    /// Writes the comparison for people: the per-model table, then the
    /// first `show` flips.
    pub fn write_table(&self, mut out: impl Write, show: usize) -> io::Result<()> {
        writeln!(out, "A = {}", self.a_label)?;
        writeln!(out, "B = {}", self.b_label)?;
        writeln!(out, "rows matched by {}", self.key)?;
        writeln!(out)?;
        let pct = |n: usize, p: Option<f64>| match p {
            Some(p) => format!("{n} ({p:.1}%)"),
            None => "-".to_string(),
        };
        let mut lines = vec![[
            "model",
            "matched",
            "violations A",
            "violations B",
            "new in B",
            "gone in B",
            "flips",
            "median ms A",
            "median ms B",
            "time B/A",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
        for m in &self.models {
            lines.push(vec![
                m.model.clone(),
                m.matched.to_string(),
                pct(m.violations_a, m.violations_pct_a()),
                pct(m.violations_b, m.violations_pct_b()),
                m.new_violations.to_string(),
                m.lost_violations.to_string(),
                m.flips.to_string(),
                fmt_ms(m.time_median_a_ms),
                fmt_ms(m.time_median_b_ms),
                m.time_ratio()
                    .map_or("-".to_string(), |r| format!("{r:.2}x")),
            ]);
        }
        write_aligned(&mut out, &lines, 1)?;
        let only_a: usize = self.models.iter().map(|m| m.only_a).sum();
        let only_b: usize = self.models.iter().map(|m| m.only_b).sum();
        if only_a + only_b > 0 {
            writeln!(
                out,
                "unmatched rows: {only_a} only in A, {only_b} only in B (not counted above)"
            )?;
        }
        if self.models.iter().all(|m| m.matched == 0) {
            writeln!(
                out,
                "no row matched: choose the key with --key (e.g. --key basename,index)"
            )?;
        }
        writeln!(out)?;
        if self.flips.is_empty() {
            writeln!(out, "no verdict flips")?;
            return Ok(());
        }
        let n = self.flips.len();
        if n > show {
            writeln!(out, "verdict flips ({n}; the first {show}):")?;
        } else {
            writeln!(out, "verdict flips ({n}):")?;
        }
        for f in self.flips.iter().take(show) {
            let place = if f.a.location() == f.b.location() {
                f.b.location()
            } else {
                format!("{} / {}", f.a.location(), f.b.location())
            };
            let name = if f.b.name.is_empty() {
                String::new()
            } else {
                format!(" {}", f.b.name)
            };
            writeln!(
                out,
                "  {:<5} {place}{name}: {} -> {}",
                f.b.model,
                verdict_detail(&f.a),
                verdict_detail(&f.b)
            )?;
        }
        if n > show {
            writeln!(
                out,
                "  ... and {} more (--show N, or --format flips)",
                n - show
            )?;
        }
        Ok(())
    }
}

/// Writes the per-model rows of comparisons as CSV: `a`, `b`, `model`,
/// `matched`, `violations_a`, `violations_b`, `violations_pct_a`,
/// `violations_pct_b`, `unknown_a`, `unknown_b`, `new_violations`,
/// `lost_violations`, `flips`, `time_median_a_ms`, `time_median_b_ms`,
/// `time_ratio`, `only_a`, `only_b`.
pub fn write_csv(out: impl Write, comparisons: &[Comparison]) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "a",
        "b",
        "model",
        "matched",
        "violations_a",
        "violations_b",
        "violations_pct_a",
        "violations_pct_b",
        "unknown_a",
        "unknown_b",
        "new_violations",
        "lost_violations",
        "flips",
        "time_median_a_ms",
        "time_median_b_ms",
        "time_ratio",
        "only_a",
        "only_b",
    ])
    .map_err(csv_io)?;
    for c in comparisons {
        for m in &c.models {
            w.write_record([
                c.a_label.clone(),
                c.b_label.clone(),
                m.model.clone(),
                m.matched.to_string(),
                m.violations_a.to_string(),
                m.violations_b.to_string(),
                fmt_num(m.violations_pct_a(), 4),
                fmt_num(m.violations_pct_b(), 4),
                m.unknown_a.to_string(),
                m.unknown_b.to_string(),
                m.new_violations.to_string(),
                m.lost_violations.to_string(),
                m.flips.to_string(),
                fmt_num(m.time_median_a_ms, 6),
                fmt_num(m.time_median_b_ms, 6),
                fmt_num(m.time_ratio(), 4),
                m.only_a.to_string(),
                m.only_b.to_string(),
            ])
            .map_err(csv_io)?;
        }
    }
    w.flush()
}

/// Writes every flip as CSV: `a`, `b`, `model`, `key`, `file_a`, `index_a`,
/// `file_b`, `index_b`, `name`, `verdict_a`, `verdict_b`, `decided_by_a`,
/// `decided_by_b`, `pattern_a`, `pattern_b`.
pub fn write_flips_csv(out: impl Write, comparisons: &[Comparison]) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "a",
        "b",
        "model",
        "key",
        "file_a",
        "index_a",
        "file_b",
        "index_b",
        "name",
        "verdict_a",
        "verdict_b",
        "decided_by_a",
        "decided_by_b",
        "pattern_a",
        "pattern_b",
    ])
    .map_err(csv_io)?;
    for c in comparisons {
        for f in &c.flips {
            let named = |m: Option<&'static str>| m.unwrap_or("");
            w.write_record([
                c.a_label.as_str(),
                &c.b_label,
                f.b.model.name(),
                &f.key,
                &f.a.file,
                &f.a.index.to_string(),
                &f.b.file,
                &f.b.index.to_string(),
                &f.b.name,
                f.a.verdict.name(),
                f.b.verdict.name(),
                named(f.a.decided_by.map(|m| m.name())),
                named(f.b.decided_by.map(|m| m.name())),
                named(f.a.pattern.map(|p| p.name())),
                named(f.b.pattern.map(|p| p.name())),
            ])
            .map_err(csv_io)?;
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::super::summary::read_results_str;
    use super::*;

    #[test]
    fn auto_key_matches_across_directories() {
        let csv = "file,index,seed,model,verdict,variant,time_ms\n\
                   a/h0.hist,0,7,cc,consistent,base,1\n\
                   a/h1.hist,0,8,cc,violation,base,2\n\
                   b/h0.hist,0,7,cc,violation,bug,2\n\
                   b/h1.hist,0,8,cc,violation,bug,6\n";
        let res = read_results_str("r.csv", csv, &["variant".to_string()]).unwrap();
        let pairs = sides_by_variant(&res, "variant", None).unwrap();
        assert_eq!(pairs.len(), 1);
        let c = compare(&res, &pairs[0].0, &pairs[0].1, &KeySpec::Auto).unwrap();
        let m = &c.models[0];
        assert_eq!((m.matched, m.violations_a, m.violations_b), (2, 1, 2));
        assert_eq!((m.new_violations, m.lost_violations, m.flips), (1, 0, 1));
        assert_eq!(m.time_ratio(), Some(4.0 / 1.5));
        assert_eq!(c.flips[0].b.file, "b/h0.hist");
    }

    #[test]
    fn duplicate_keys_name_both_lines() {
        let csv = "file,index,model,verdict,variant\n\
                   x.hist,0,cc,consistent,a\n\
                   x.hist,0,cc,violation,a\n\
                   x.hist,0,cc,consistent,b\n";
        let res = read_results_str("r.csv", csv, &["variant".to_string()]).unwrap();
        let pairs = sides_by_variant(&res, "variant", None).unwrap();
        let e = compare(&res, &pairs[0].0, &pairs[0].1, &KeySpec::Auto).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("line 2"), "{e}");
    }
}
