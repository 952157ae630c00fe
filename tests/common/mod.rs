//! Helpers the integration tests share: the repository, the binary, a
//! fresh temporary directory. (Each test file uses a part of them.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the memconform binary with `args`.
pub fn memconform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .output()
        .expect("runs")
}

/// A fresh, empty `memconform-<suite>-<pid>-<name>` under cargo's `target/tmp`
/// (`CARGO_TARGET_TMPDIR`): what a failed test leaves goes with `cargo clean`.
pub fn temp_dir(suite: &str, name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every model checked on the histories of the run or file at `dir` (no
/// time budget: a loaded machine gives no `unknown`).
pub fn check_every_model(dir: &Path) -> Vec<memconform::ingest::Checked> {
    let opts = memconform::check::Options {
        timeout: None,
        ..memconform::check::Options::default()
    };
    memconform::ingest::check_file(
        dir,
        &memconform::models::Model::EVERY,
        &opts,
        &memconform::ingest::Reading::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// A checked history's `key` note (`protocol`, `expected_model` ...), or "".
pub fn meta<'a>(c: &'a memconform::ingest::Checked, key: &str) -> &'a str {
    c.history
        .meta
        .iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

/// The verdict of model `m` on a checked history.
pub fn model_verdict(
    c: &memconform::ingest::Checked,
    m: memconform::models::Model,
) -> memconform::check::Verdict {
    c.outcomes.iter().find(|o| o.model == m).unwrap().verdict()
}

/// The Split protocol: a CHI-style machine written across files it
/// includes (tests/data/slicc/split, hand-written).
pub fn split_dir() -> PathBuf {
    root().join("tests/data/slicc/split")
}

/// Copies the Split protocol (its `cache/` directory too) into `dir`.
pub fn copy_split(dir: &Path) {
    for sub in ["", "cache"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(split_dir().join(sub)).unwrap() {
            let e = e.unwrap();
            if e.path().is_file() {
                std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
}

/// The 1-based line of Split's `file` holding `needle`.
pub fn split_line(file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(split_dir().join(file)).unwrap();
    1 + text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in {file}"))
}

/// A copy under `dest` of what gem5's SLICC front end reads of the tree
/// `gem5` (the protocols, SLICC, PLY, build_tools): a tree to edit and
/// check with gem5-configs/slicc_check.py without touching the user's.
pub fn slicc_tree(gem5: &Path, dest: &Path) -> PathBuf {
    let root = dest.join("g5");
    for d in [
        "src/mem/ruby/protocol",
        "src/mem/slicc",
        "ext/ply",
        "build_tools",
    ] {
        std::fs::create_dir_all(root.join(d).parent().unwrap()).unwrap();
        let ok = Command::new("cp")
            .arg("-r")
            .arg(gem5.join(d))
            .arg(root.join(d))
            .status()
            .unwrap()
            .success();
        assert!(ok, "cp {d}");
    }
    root
}

/// gem5-configs/slicc_check.py's exit status on `protocol` of tree `root`
/// (0 accepted, 1 rejected, 2 not found).
pub fn slicc_check(root: &Path, protocol: &str) -> Option<i32> {
    Command::new("python3")
        .arg(self::root().join("gem5-configs/slicc_check.py"))
        .args([
            "--gem5-root",
            &root.to_string_lossy(),
            "--protocol",
            protocol,
        ])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .code()
}
