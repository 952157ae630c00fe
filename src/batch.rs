//! Many histories at once: finding input files and checking them in parallel.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::history::{load_file, History, InputError};
use crate::models::{check_gradual_with, Model, Options, Outcome};

/// One checked history.
pub struct Checked {
    pub history: History,
    pub outcomes: Vec<Outcome>,
}

/// The input files named by `paths`: files as given, directories searched
/// recursively for `*.hist` and `*.axe` (sorted, so output order is stable).
pub fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<InputError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, &mut files, &mut errors),
            Ok(_) => files.push(p.clone()),
            Err(e) => errors.push(InputError {
                file: p.clone(),
                pos: None,
                msg: format!("cannot read: {e}"),
            }),
        }
    }
    (files, errors)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<InputError>) {
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
            walk(&p, files, errors);
        } else if p.extension().is_some_and(|e| e == "hist" || e == "axe") {
            files.push(p);
        }
    }
}

/// Loads one file and checks every history in it against `models`
/// (gradually), histories in parallel; results in file order.
pub fn check_file(
    path: &Path,
    models: &[Model],
    opts: &Options,
) -> Result<Vec<Checked>, InputError> {
    let histories = load_file(path)?;
    Ok(histories
        .into_par_iter()
        .map(|history| {
            let outcomes = check_gradual_with(&history, models, opts);
            Checked { history, outcomes }
        })
        .collect())
}
