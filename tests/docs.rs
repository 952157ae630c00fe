//! The documents' commands run as written: every ```sh and ```console
//! block of README.md, docs/reference.md, gem5-configs/README.md and
//! traces/README.md is run with `memconform` first on PATH (the installed
//! one in `$MEMCONFORM_INSTALLED` where CI installed it, else the one
//! built with this test), in a
//! scratch directory of each document that sees the repository's
//! `traces/`, `tests/` and `scripts/` and holds a copy of its `examples/`,
//! `gem5-configs/` and `docs/` (what a command writes stays there). A ```console block's `$ ` lines are commands and the lines
//! under each are what it prints: each must appear, in order, in what it
//! prints now (spaces collapsed, times such as `12 ms` or `0.4 s` taken as
//! any time, `...` standing for any lines). A command's trailing
//! `# exit N` says its exit status; without it, any verdict status (0, 1, 6)
//! passes and an input error, an internal error or a crash fails.
//!
//! Commands that need gem5 (they name `$GEM5`, `GEM5_ROOT`, `gem5.opt`,
//! `scons`, or their block starts with `# needs gem5`) run only where
//! `GEM5_ROOT` is set, and only when the gem5 binaries they name exist
//! under it; the test says which it skipped and why. `cargo` commands are
//! the test's own (CI runs the README's set-up commands itself), and
//! ```text blocks (synopses, file contents) are not commands.
//!
//! Beside them: docs/reference.md's synopsis of `check` names every flag
//! that `memconform check --help` prints.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The documents whose commands are run.
const DOCUMENTS: [&str; 10] = [
    "README.md",
    "docs/reference.md",
    "gem5-configs/README.md",
    "traces/README.md",
    "docs/findings/README.md",
    "docs/findings/moesi-amd-base-corepair-tso/README.md",
    "docs/findings/moesi-amd-base-locked-rmw/README.md",
    "docs/findings/moesi-amd-base-pr1117/README.md",
    "docs/findings/moesi-amd-base-sf-l1i-repl/README.md",
    "docs/findings/gem5-1242/README.md",
];

/// What the scratch directory sees of the repository: the inputs, linked
/// (no command writes into them: an output over an input is refused)...
const SHARED: [&str; 3] = ["traces", "tests", "scripts"];
/// ... and what it copies (a command may write into these, e.g. a figure
/// into docs/, and the repository stays as it was).
const COPIED: [&str; 3] = ["examples", "gem5-configs", "docs"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One fenced block: its document, first line, kind and lines.
#[derive(Debug)]
struct Block {
    doc: String,
    line: usize,
    console: bool,
    lines: Vec<String>,
}

/// The ```sh and ```console blocks of `text`.
fn blocks(doc: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut cur: Option<Block> = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            match cur.take() {
                Some(b) => out.push(b),
                None => {
                    let info = info.trim();
                    if info == "sh" || info == "console" {
                        cur = Some(Block {
                            doc: doc.to_string(),
                            line: i + 1,
                            console: info == "console",
                            lines: Vec::new(),
                        });
                    } else {
                        // a block of another kind: skipped whole
                        cur = Some(Block {
                            doc: String::new(),
                            line: 0,
                            console: false,
                            lines: Vec::new(),
                        });
                    }
                }
            }
            continue;
        }
        if let Some(b) = &mut cur {
            // a list item's block is indented: the indentation is the list's
            b.lines.push(l.to_string());
        }
    }
    out.into_iter().filter(|b| !b.doc.is_empty()).collect()
}

/// Removes the indentation common to `lines`.
fn dedent(lines: &[String]) -> Vec<String> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").to_string())
        .collect()
}

/// Whether a command needs gem5.
fn needs_gem5(cmd: &str) -> bool {
    ["$GEM5", "GEM5_ROOT", "gem5.opt", "scons", "# needs gem5"]
        .iter()
        .any(|w| cmd.contains(w))
}

/// The gem5 binaries a command names (`$GEM5_ROOT/build/X/gem5.opt`).
fn gem5_binaries(cmd: &str) -> Vec<PathBuf> {
    let Ok(g) = std::env::var("GEM5_ROOT") else {
        return Vec::new();
    };
    // also inside a word: `GEM5=$GEM5_ROOT/build/X86/gem5.opt`
    cmd.split_whitespace()
        .filter_map(|w| w.split_once("$GEM5_ROOT/").map(|(_, rest)| rest))
        .filter(|w| w.ends_with("gem5.opt"))
        .map(|w| Path::new(&g).join(w))
        .collect()
}

/// The exit status a command's `# exit N` comment says, if any.
fn said_exit(cmd: &str) -> Option<i32> {
    let (_, c) = cmd.rsplit_once("# exit ")?;
    c.split_whitespace().next()?.parse().ok()
}

/// A line as compared: spaces collapsed, times as `TIME`.
fn normal(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied().unwrap_or("");
        // a number, perhaps in brackets: `12`, `0.4`, `[0.005`
        let open = if w.starts_with(['[', '(']) {
            &w[..1]
        } else {
            ""
        };
        let digits = &w[open.len()..];
        let number = digits.chars().all(|c| c.is_ascii_digit() || c == '.') && !digits.is_empty();
        // `ms` or `s`, perhaps with punctuation after it: `0.4 s;`, `[3 ms]`
        let unit = ["ms", "s"].contains(&next.trim_end_matches([']', ',', ')', ';']));
        if number && unit {
            out.push(format!("{open}TIME{}", next.trim_start_matches(['m', 's'])));
            i += 2;
            continue;
        }
        out.push(w.to_string());
        i += 1;
    }
    out.join(" ")
}

/// A scratch directory seeing the shared parts of the repository.
fn scratch(name: &str) -> PathBuf {
    let dir = root()
        .join("target")
        .join("tmp")
        .join(format!("memconform-docs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for s in SHARED {
        std::os::unix::fs::symlink(root().join(s), dir.join(s)).unwrap();
    }
    for c in COPIED {
        let ok = Command::new("cp")
            .arg("-R")
            .arg(root().join(c))
            .arg(dir.join(c))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cannot copy {c} into {}", dir.display());
    }
    dir
}

/// Runs `script` with bash in `dir`: status and what it printed.
fn run(dir: &Path, script: &str) -> (Option<i32>, String) {
    // the installed binary where CI installed it (the README's set-up
    // command), else the one this test was built with
    let bin_dir = match std::env::var_os("MEMCONFORM_INSTALLED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_BIN_EXE_memconform"))
            .parent()
            .expect("a directory")
            .to_path_buf(),
    };
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("MC", root())
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.code(), text)
}

/// A console block's commands with what each prints.
fn console_commands(lines: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for l in lines {
        if let Some(cmd) = l.strip_prefix("$ ") {
            out.push((cmd.to_string(), Vec::new()));
            continued = cmd.ends_with('\\');
        } else if continued {
            let last = out.last_mut().expect("a command continues");
            last.0.push('\n');
            last.0.push_str(l);
            continued = l.ends_with('\\');
        } else if let Some(last) = out.last_mut() {
            last.1.push(l.clone());
        }
    }
    out
}

/// What failed, one line each.
type Failures = Vec<String>;

/// Checks that `expected` appears in order in `actual` (`...` any lines).
fn shows(expected: &[String], actual: &str) -> Result<(), String> {
    let actual: Vec<String> = actual.lines().map(normal).collect();
    let mut at = 0;
    for e in expected.iter().map(|e| normal(e)) {
        if e.is_empty() || e == "..." {
            continue;
        }
        match actual[at..].iter().position(|a| *a == e) {
            Some(k) => at += k + 1,
            None => return Err(e),
        }
    }
    Ok(())
}

/// The verdict statuses: consistent, violation, unknown.
fn verdict_status(code: Option<i32>) -> bool {
    matches!(code, Some(0 | 1 | 6))
}

fn check_block(b: &Block, dir: &Path, failures: &mut Failures, skipped: &mut Vec<String>) {
    let lines = dedent(&b.lines);
    let whole = lines.join("\n");
    let place = format!("{}:{}", b.doc, b.line);
    let gem5 = needs_gem5(&whole);
    if gem5 {
        if std::env::var_os("GEM5_ROOT").is_none() {
            skipped.push(format!("{place}: needs gem5 (GEM5_ROOT is not set)"));
            return;
        }
        if let Some(missing) = gem5_binaries(&whole).into_iter().find(|p| !p.exists()) {
            skipped.push(format!(
                "{place}: needs gem5's {} (not built)",
                missing.display()
            ));
            return;
        }
    }
    if b.console {
        for (cmd, expected) in console_commands(&lines) {
            if cmd.trim_start().starts_with("cargo ") {
                continue;
            }
            let (code, text) = run(dir, &cmd);
            let ok = match said_exit(&cmd) {
                Some(n) => code == Some(n),
                None => verdict_status(code),
            };
            if !ok {
                failures.push(format!("{place}: `{cmd}` exited {code:?}:\n{text}"));
                continue;
            }
            if let Err(line) = shows(&expected, &text) {
                failures.push(format!(
                    "{place}: `{cmd}` no longer prints `{line}`; it prints:\n{text}"
                ));
            }
        }
    } else {
        let script: Vec<&str> = lines
            .iter()
            .map(|l| l.as_str())
            .filter(|l| !l.trim_start().starts_with("cargo "))
            .collect();
        let script = script.join("\n");
        if script.trim().is_empty() {
            return;
        }
        let last = script
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .unwrap_or("");
        let (code, text) = run(dir, &format!("set -o pipefail\n{script}"));
        let ok = match said_exit(last) {
            Some(n) => code == Some(n),
            None => verdict_status(code),
        };
        if !ok || text.contains("panicked") {
            failures.push(format!("{place}: the block exited {code:?}:\n{text}"));
        }
    }
}

/// Every command of the documents runs as shown.
#[test]
fn the_documents_commands_run_as_shown() {
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for (k, doc) in DOCUMENTS.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(root().join(doc)) else {
            failures.push(format!("{doc}: missing"));
            continue;
        };
        let dir = scratch(&k.to_string());
        for b in blocks(doc, &text) {
            check_block(&b, &dir, &mut failures, &mut skipped);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The long flags of `memconform check --help`, from its option lines
/// (`  -m, --models <MODELS>`, `      --real-time`).
fn check_flags() -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["check", "--help"])
        .output()
        .expect("memconform runs");
    assert!(o.status.success(), "check --help failed");
    let help = String::from_utf8_lossy(&o.stdout);
    let mut flags: Vec<String> = help
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            // an option line starts with its flags: `-m, --models` or `--real-time`
            let t = match t.strip_prefix('-') {
                Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                    rest.split_once(", ")?.1
                }
                _ => t,
            };
            let flag = t.strip_prefix("--")?;
            let name: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            // (a description's lines are indented further)
            let indent = l.len() - l.trim_start().len();
            (!name.is_empty() && (2..=6).contains(&indent)).then(|| format!("--{name}"))
        })
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

/// docs/reference.md's synopsis of `check` (the ```text block's lines from
/// `memconform check` to the next `memconform` command) names every flag
/// that `check --help` prints.
#[test]
fn the_reference_synopsis_of_check_names_every_flag() {
    let text = std::fs::read_to_string(root().join("docs/reference.md")).unwrap();
    let mut synopsis = String::new();
    let (mut in_text, mut in_check) = (false, false);
    for l in text.lines() {
        if l.trim_start().starts_with("```") {
            if in_text && in_check {
                break;
            }
            in_text = l.trim() == "```text";
            continue;
        }
        if !in_text {
            continue;
        }
        if l.starts_with("memconform ") {
            if in_check {
                break;
            }
            in_check = l.starts_with("memconform check ");
        }
        if in_check {
            synopsis.push_str(l);
            synopsis.push('\n');
        }
    }
    assert!(
        !synopsis.is_empty(),
        "docs/reference.md has no ```text synopsis starting `memconform check`"
    );
    let flags = check_flags();
    assert!(
        flags.len() > 15,
        "too few flags read from check --help: {flags:?}"
    );
    let named = |f: &str| {
        synopsis.match_indices(f).any(|(i, _)| {
            let after = synopsis[i + f.len()..].chars().next();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    let missing: Vec<&String> = flags.iter().filter(|f| !named(f)).collect();
    assert!(
        missing.is_empty(),
        "docs/reference.md's check synopsis lacks {missing:?}:\n{synopsis}"
    );
}

#[test]
fn lines_compare_with_times_and_spaces_left_out() {
    assert_eq!(
        normal("traces/a   MI  2  0  12 ms"),
        normal("traces/a MI 2 0 3.5 s")
    );
    assert!(shows(
        &["a".into(), "...".into(), "c 1 ms".into()],
        "a\nb\nc 9 ms\n"
    )
    .is_ok());
    assert!(shows(&["c".into(), "a".into()], "a\nc\n").is_err());
    assert_eq!(
        normal("4 checks, 0.01 s; 1-minimal"),
        normal("4 checks, 2 s; 1-minimal")
    );
    assert_eq!(
        normal("cc consistent  [0.005 ms]"),
        normal("cc consistent [12 ms]")
    );
    assert_ne!(
        normal("cc consistent [0.005 ms]"),
        normal("cc consistent 0.005 ms")
    );
    assert_eq!(said_exit("memconform check traces/   # exit 1"), Some(1));
    assert_eq!(said_exit("memconform check traces/"), None);
}
