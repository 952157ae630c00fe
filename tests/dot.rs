//! `check --dot DIR` (docs/reference.md, *Seeing a violation*): every file Graphviz's `dot` parses
//! (skipped, saying so, where `dot` is absent), herd7-style (events by
//! thread, labelled edges, the cycle bold red), with names that try to
//! break out of their quotes.

mod common;

use common::root;
use std::path::{Path, PathBuf};
use std::process::Command;

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("dot", name)
}

/// Whether Graphviz's `dot` runs here (else says the test is skipped).
fn have_dot() -> bool {
    let ok = Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: no Graphviz `dot` on this machine (apt-get install graphviz)");
    }
    ok
}

/// `check --dot` on `inputs`: the .dot files written.
fn dots(name: &str, inputs: &[&str], extra: &[&str]) -> Vec<PathBuf> {
    let out = temp_dir(name);
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .arg("check")
        .args(inputs)
        .args(extra)
        .arg("--dot")
        .arg(&out)
        .output()
        .unwrap();
    // 1: a violation that counts; 0: only violations the histories'
    // promises allow (`@expect` foresees them)
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{:?} {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files
            .iter()
            .all(|f| f.extension().is_some_and(|e| e == "dot")),
        "{files:?}"
    );
    files
}

/// `dot -Tsvg` of `file`: its SVG, or the parse error.
fn svg(file: &Path) -> String {
    let o = Command::new("dot").arg("-Tsvg").arg(file).output().unwrap();
    assert!(
        o.status.success(),
        "dot rejects {}: {}\n{}",
        file.display(),
        String::from_utf8_lossy(&o.stderr),
        std::fs::read_to_string(file).unwrap()
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_papers_certificates_parse_with_dot() {
    let files = dots(
        "papers",
        &[root()
            .join("examples/papers-and-litmus.hist")
            .to_str()
            .unwrap()],
        &[],
    );
    assert!(files.len() > 20, "{} files", files.len());
    assert!(files
        .iter()
        .any(|f| f.to_string_lossy().ends_with(".shrunk.dot")));
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.starts_with("digraph certificate {"), "{text}");
        assert!(
            text.contains("subgraph cluster_"),
            "threads as clusters: {text}"
        );
        // a cycle in red, unless the violation has none (no single cycle,
        // a value read from thin air)
        assert!(
            text.contains("class=\"cycle\"")
                || text.contains("NoStoreOrder")
                || text.contains("ThinAir"),
            "{text}"
        );
    }
    if !have_dot() {
        return;
    }
    for f in &files {
        let s = svg(f);
        assert!(s.contains("<svg"));
    }
}

#[test]
fn the_mi5_certificate_is_a_two_event_cycle() {
    let files = dots(
        "mi5",
        &[root().join("traces/bug-mi5-n4-s1-rich").to_str().unwrap()],
        &["--real-time", "--models", "sc"],
    );
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "bug-mi5-n4-s1-rich-real-time-1-sc.dot",
            "bug-mi5-n4-s1-rich-real-time-1-sc.shrunk.dot"
        ]
    );
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("a [label=\"a: R(0x6e8,0)\""), "{text}");
    assert!(text.contains("b [label=\"b: W(0x6e8,1)\""), "{text}");
    assert!(
        text.contains("a -> b [label=\"rw\", color=\"#dc2626\""),
        "{text}"
    );
    assert!(
        text.contains("b -> a [label=\"po\", color=\"#dc2626\""),
        "{text}"
    );
    if have_dot() {
        let s = svg(&files[0]);
        // the two cycle edges drawn red, their labels as text
        assert!(s.matches("stroke=\"#dc2626\"").count() >= 2, "{s}");
        assert!(s.contains(">rw</text>") && s.contains(">po</text>"));
    }
}

#[test]
fn quotes_and_braces_in_names_stay_in_their_strings() {
    let dir = temp_dir("evil-input");
    let input = dir.join("a\"b} {c\\.hist");
    std::fs::write(
        &input,
        "@name x\" ]; evil -> graph; \"{\\\nt0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n",
    )
    .unwrap();
    let files = dots("evil", &[input.to_str().unwrap()], &["--models", "sc"]);
    assert_eq!(files.len(), 2);
    if have_dot() {
        for f in &files {
            let s = svg(f);
            assert!(!s.contains(">evil<"), "a node from the name: {s}");
        }
    }
}
