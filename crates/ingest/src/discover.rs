//! Finding the inputs under the paths a user gives: files as given, gem5
//! output directories as runs, other directories searched for history files
//! and runs.

use std::path::{Path, PathBuf};

use crate::load::InputError;

/// The inputs named by `paths`: files as given; gem5 output directories
/// (with `config.ini`/`config.json`) as runs; other directories searched
/// recursively for `*.hist`, `*.axe` and runs (sorted, so the order is stable).
/// The subdirectories of a run are searched too: a run nested inside
/// another (an output directory made inside one) is a run of its own, after
/// its parent; the files of a run itself are its own, not inputs.
/// Each input is taken once, by its canonical path (a path given twice, or
/// reached again through a symlink, adds nothing; a symlink loop ends).
pub fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<InputError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                if first_time(&mut seen, p) {
                    let run = crate::gem5::is_run(p);
                    if run {
                        files.push(p.clone());
                    }
                    walk(p, !run, &mut files, &mut errors, &mut seen);
                }
            }
            Ok(_) => {
                if first_time(&mut seen, p) {
                    files.push(p.clone());
                }
            }
            Err(e) => errors.push(InputError {
                file: p.clone(),
                pos: None,
                msg: format!("cannot read: {e}"),
            }),
        }
    }
    (files, errors)
}

/// Whether `p`'s canonical path is new (a path that cannot be resolved
/// counts as new: reading it reports the error).
fn first_time(seen: &mut std::collections::HashSet<PathBuf>, p: &Path) -> bool {
    std::fs::canonicalize(p).map_or(true, |c| seen.insert(c))
}

/// Searches `dir` for runs and (with `files_too`: not inside a run) history
/// files, recursively.
fn walk(
    dir: &Path,
    files_too: bool,
    files: &mut Vec<PathBuf>,
    errors: &mut Vec<InputError>,
    seen: &mut std::collections::HashSet<PathBuf>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(InputError {
                file: dir.to_path_buf(),
                pos: None,
                msg: format!("cannot list directory: {e}"),
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            if first_time(seen, &p) {
                let run = crate::gem5::is_run(&p);
                if run {
                    files.push(p.clone());
                }
                walk(&p, !run, files, errors, seen);
            }
        } else if files_too
            && p.extension().is_some_and(|e| e == "hist" || e == "axe")
            && first_time(seen, &p)
        {
            files.push(p);
        }
    }
}
