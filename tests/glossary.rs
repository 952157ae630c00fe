//! docs/glossary.md cannot go stale: its examples are the histories of
//! tests/data/histories/glossary.hist (whose `@expect` lines
//! tests/fixtures.rs checks), each certificate it quotes is what the model
//! checked alone prints for them (`@shows MODEL PATTERN`), and it has a
//! section for every model, bad pattern and edge name memconform prints.

use std::collections::BTreeSet;
use std::path::Path;

use memconform::certificate::{Pattern, Rel};
use memconform::history::History;
use memconform::ingest::load_file;
use memconform::models::Model;

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/glossary.md");
const EXAMPLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/histories/glossary.hist"
);

/// Every edge label a certificate can print (a new [`Rel`] fails to
/// compile here until it is listed, and then until the glossary has it).
fn every_rel() -> Vec<Rel> {
    let all = [
        Rel::Po,
        Rel::Wr,
        Rel::Rw,
        Rel::Cf,
        Rel::HbO,
        Rel::Pww,
        Rel::Wpww,
        Rel::St,
        Rel::Ppo,
        Rel::PoLoc,
        Rel::Wre,
        Rel::PoPso,
        Rel::Rmw,
        Rel::Final,
        Rel::PoRmo,
        Rel::Bob,
        Rel::Aob,
    ];
    for r in all {
        match r {
            Rel::Po
            | Rel::Wr
            | Rel::Rw
            | Rel::Cf
            | Rel::HbO
            | Rel::Pww
            | Rel::Wpww
            | Rel::St
            | Rel::Ppo
            | Rel::PoLoc
            | Rel::Wre
            | Rel::PoPso
            | Rel::Rmw
            | Rel::Final
            | Rel::PoRmo
            | Rel::Bob
            | Rel::Aob => {}
        }
    }
    all.to_vec()
}

/// A heading's anchor as GitHub makes it: lower case, punctuation other
/// than `-` and `_` dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the glossary's headings.
fn doc_anchors(doc: &str) -> BTreeSet<String> {
    doc.lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// A violation as the text output prints it, without input positions.
fn printed(h: &History, m: Model) -> (Pattern, Vec<Rel>, String) {
    let v = m
        .check(h)
        .expect_err("the example violates the model it shows");
    // input positions: `@line:col` right after an operation
    let explained = v.explain(h);
    let mut text = String::new();
    let mut rest = explained.as_str();
    while let Some(i) = rest.find('@') {
        text.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let pos = after
            .find(|c: char| !c.is_ascii_digit() && c != ':')
            .unwrap_or(after.len());
        if pos > 0 && after[..pos].contains(':') {
            rest = &after[pos..];
        } else {
            text.push('@');
            rest = after;
        }
    }
    text.push_str(rest);
    (v.pattern, v.cycle.iter().map(|s| s.rel).collect(), text)
}

/// The lines of each history block that the glossary shows: `@final` and
/// the threads.
fn shown_lines(text: &str) -> Vec<String> {
    text.split("\n---")
        .map(|block| {
            let lines: Vec<&str> = block
                .lines()
                .filter(|l| {
                    l.starts_with("@final") || (!l.starts_with(['@', '#']) && l.contains(':'))
                })
                .collect();
            lines.join("\n")
        })
        .filter(|b| !b.is_empty())
        .collect()
}

fn meta<'h>(h: &'h History, key: &str) -> impl Iterator<Item = &'h str> + 'h {
    let key = key.to_string();
    h.meta
        .iter()
        .filter(move |(k, _)| *k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn every_glossary_example_prints_what_the_glossary_says() {
    let doc = std::fs::read_to_string(DOC).unwrap();
    let anchors = doc_anchors(&doc);
    let histories = load_file(Path::new(EXAMPLES)).unwrap();
    let shown = shown_lines(&std::fs::read_to_string(EXAMPLES).unwrap());
    assert_eq!(shown.len(), histories.len());
    let mut failures = Vec::new();
    for (h, lines) in histories.iter().zip(&shown) {
        let name = h.name.clone().unwrap_or_default();
        if !doc.contains(&format!("```\n{lines}\n```")) {
            failures.push(format!("{name}: the glossary does not show\n{lines}"));
        }
        let mut patterns = BTreeSet::new();
        let mut rels = BTreeSet::new();
        for shows in meta(h, "shows") {
            let (m, p) = shows.split_once(' ').expect("@shows MODEL PATTERN");
            let model = Model::from_name(m).unwrap_or_else(|| panic!("{name}: model {m}"));
            let (pattern, cycle, text) = printed(h, model);
            if pattern.name() != p {
                failures.push(format!("{name}: {m} prints {}, not {p}", pattern.name()));
            }
            if !text.is_empty() && !doc.contains(&format!("`{text}`")) {
                failures.push(format!(
                    "{name}: the glossary does not quote {m}'s `{text}`"
                ));
            }
            patterns.insert(anchor(pattern.name()));
            rels.extend(cycle.iter().map(|r| anchor(r.name())));
        }
        for a in meta(h, "anchors").flat_map(str::split_whitespace) {
            if !anchors.contains(a) {
                failures.push(format!("{name}: no section #{a}"));
            }
            let is_pattern = Pattern::ALL.iter().any(|p| anchor(p.name()) == a);
            let is_rel = every_rel().iter().any(|r| anchor(r.name()) == a);
            if (is_pattern && !patterns.contains(a)) || (is_rel && !rels.contains(a)) {
                failures.push(format!("{name}: no @shows line illustrates #{a}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_glossary_has_an_illustrated_section_for_every_model_pattern_and_edge() {
    let doc = std::fs::read_to_string(DOC).unwrap();
    let anchors = doc_anchors(&doc);
    let histories = load_file(Path::new(EXAMPLES)).unwrap();
    let illustrated: BTreeSet<&str> = histories
        .iter()
        .flat_map(|h| meta(h, "anchors").flat_map(str::split_whitespace))
        .collect();
    let names = Model::EVERY
        .iter()
        .map(|m| m.name().to_string())
        .chain(Pattern::ALL.iter().map(|p| p.name().to_string()))
        .chain(every_rel().into_iter().map(|r| r.name().to_string()));
    let mut missing = Vec::new();
    for name in names {
        let a = anchor(&name);
        if !anchors.contains(&a) || !illustrated.contains(a.as_str()) {
            missing.push(format!("{name} (#{a})"));
        }
    }
    assert!(missing.is_empty(), "no illustrated section for {missing:?}");
}
