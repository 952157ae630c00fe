//! `merge`: the CSVs of `check --shard K/N` (or of repeated runs) joined
//! into one: the same header in every part, one row per key (file, index,
//! model) — the last one read wins, at the place its key first appeared —
//! so merging again, or merging a part twice, changes nothing.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::summary::read_results;
use crate::{write_csv, Row};

/// A merge error, located (`file:line: what`).
#[derive(Debug)]
pub struct MergeError(pub String);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Merges `parts` into CSV bytes (header first): each part is read as
/// results ([`Row`]s, strictly), and one row is kept per key
/// (file, index, model).
pub fn merge(parts: &[PathBuf]) -> Result<Vec<u8>, MergeError> {
    let mut rows: Vec<Row<'static>> = Vec::new();
    let mut at: HashMap<(String, usize, &'static str), usize> = HashMap::new();
    let mut first: Option<(Vec<String>, &PathBuf)> = None;
    for part in parts {
        let res = read_results(std::slice::from_ref(part), &[]).map_err(|e| {
            MergeError(
                if e.message.starts_with("no `model` column")
                    || e.message.starts_with("no `verdict` column")
                {
                    format!("{e}: not a results CSV of `memconform check -f csv`")
                } else {
                    e.to_string()
                },
            )
        })?;
        let header = res.headers.into_iter().next().unwrap_or_default();
        match &first {
            None => first = Some((header, part)),
            Some((h, from)) if *h != header => {
                return Err(MergeError(format!(
                    "{}:1: its columns differ from those of {} (results of different memconform versions or options?)",
                    crate::shown_path(part),
                    crate::shown_path(from)
                )));
            }
            Some(_) => {}
        }
        for r in res.rows {
            let key = (r.file.to_string(), r.index, r.model.name());
            match at.get(&key) {
                Some(&j) => rows[j] = r.row,
                None => {
                    at.insert(key, rows.len());
                    rows.push(r.row);
                }
            }
        }
    }
    let mut out = Vec::new();
    if rows.is_empty() {
        // header-only parts (shards given no input): a header-only merge,
        // as `check -f csv` writes for no history, so the merge stays a
        // results CSV that merges, summarizes and plots again
        out.extend_from_slice(crate::COLUMNS.join(",").as_bytes());
        out.push(b'\n');
        return Ok(out);
    }
    write_csv(&mut out, &rows, true).map_err(|e| MergeError(e.to_string()))?;
    Ok(out)
}
