//! `merge`: the CSVs of `check --shard K/N` (or of repeated runs) joined
//! into one: the same header in every part, one row per key (file, index,
//! model) — the last one read wins, at the place its key first appeared —
//! so merging again, or merging a part twice, changes nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The key columns of a results row.
const KEY: [&str; 3] = ["file", "index", "model"];

/// A merge error, located (`file:line: what`).
#[derive(Debug)]
pub struct MergeError(pub String);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Merges `parts` into CSV bytes (header first).
pub fn merge(parts: &[PathBuf]) -> Result<Vec<u8>, MergeError> {
    let mut header: Option<(csv::StringRecord, PathBuf)> = None;
    let mut rows: Vec<csv::StringRecord> = Vec::new();
    let mut at: HashMap<Vec<String>, usize> = HashMap::new();
    let mut key_cols: Vec<usize> = Vec::new();
    for part in parts {
        let mut r = csv::ReaderBuilder::new()
            .flexible(false)
            .from_path(part)
            .map_err(|e| MergeError(format!("{}: {e}", part.display())))?;
        let h = r
            .headers()
            .map_err(|e| MergeError(format!("{}:1: {e}", part.display())))?
            .clone();
        match &header {
            None => {
                key_cols = KEY
                    .iter()
                    .map(|k| {
                        h.iter().position(|c| c == *k).ok_or_else(|| {
                            MergeError(format!(
                                "{}:1: no `{k}` column: not a results CSV of `memconform check -f csv`",
                                part.display()
                            ))
                        })
                    })
                    .collect::<Result<_, _>>()?;
                header = Some((h, part.clone()));
            }
            Some((first, from)) if *first != h => {
                return Err(MergeError(format!(
                    "{}:1: its columns differ from those of {} (results of different memconform versions or options?)",
                    part.display(),
                    from.display()
                )));
            }
            Some(_) => {}
        }
        for (i, rec) in r.records().enumerate() {
            let line = i + 2;
            let rec = rec.map_err(|e| MergeError(format!("{}:{line}: {e}", part.display())))?;
            if rec == *header.as_ref().map(|(h, _)| h).expect("a header") {
                continue; // a second header of concatenated results
            }
            let key: Vec<String> = key_cols.iter().map(|&c| rec[c].to_string()).collect();
            match at.get(&key) {
                Some(&j) => rows[j] = rec,
                None => {
                    at.insert(key, rows.len());
                    rows.push(rec);
                }
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    if let Some((h, _)) = &header {
        w.write_record(h).map_err(|e| MergeError(e.to_string()))?;
    }
    for r in &rows {
        w.write_record(r).map_err(|e| MergeError(e.to_string()))?;
    }
    w.into_inner().map_err(|e| MergeError(e.to_string()))
}

/// Writes `bytes` to `path` whole: a temporary file beside it, renamed
/// over it (an old file survives a failed write).
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.memconform-{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}
