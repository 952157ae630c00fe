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
