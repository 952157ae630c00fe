//! Every `@expect` verdict of the paper and litmus fixtures is reproduced,
//! by each model alone and through the gradual pipeline.

use std::path::{Path, PathBuf};

use memconform::check::{check_gradual, Verdict};
use memconform::ingest::load_file;
use memconform::models::Model;

/// The paper and litmus fixtures (the team's reference file, bundled as the
/// README's example; tests/data/histories/NOTES.md explains the verdicts),
/// the counterexamples to the implications the facts table leaves out
/// (tests/implications.rs) and the glossary's examples (tests/glossary.rs).
fn fixture_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![
        root.join("examples/papers-and-litmus.hist"),
        root.join("tests/data/histories/implications.hist"),
        root.join("tests/data/histories/glossary.hist"),
    ]
}

#[test]
fn every_expected_verdict_is_reproduced() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in fixture_files() {
        let histories = load_file(&file).unwrap_or_else(|e| panic!("{e}"));
        assert!(!histories.is_empty(), "{} has histories", file.display());
        for h in &histories {
            let name = h.name.clone().unwrap_or_default();
            let gradual = check_gradual(h, &Model::EVERY);
            for (model, expected) in &h.expect {
                let Some(m) = Model::from_name(model) else {
                    continue;
                };
                let alone = m.check(h).is_ok();
                let grad =
                    gradual.iter().find(|o| o.model == m).unwrap().verdict() == Verdict::Consistent;
                if alone != *expected || grad != *expected {
                    failures.push(format!(
                        "{}#{name}: {model} expected {expected}, alone {alone}, gradual {grad}",
                        file.display()
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 36 * 9, "checked {checked} expectations");
}
