//! Mutation tests of the results CSV reader (`summarize`, `compare`): CSVs
//! written by `check -f csv` (the library's writer on the repository's
//! `.hist` file), damaged whole (lines dropped, repeated, swapped or moved;
//! bytes changed), never panic; an error names its line in the input (the
//! reader reports `file:line`), and whatever is accepted is summarized and
//! compared without panic. A short run in every `cargo test`; the
//! `#[ignore]`d one runs 10^5 mutated CSVs:
//! `cargo test --release --lib csv_fuzz -- --ignored --nocapture`.

use std::path::Path;

use memconform_parsers::fuzz::{mutate_file, run, Lines, Parsed, Rng, Tally};

use super::{read_one, summarize, Results};
use crate::compare::{compare, sides_by_file, KeySpec};
use crate::{rows, write_csv};
use memconform_core::check::Options;
use memconform_core::models::Model;
use memconform_ingest::check_file;

/// Bytes of CSV syntax (and of its numbers) a damaged file may gain.
const SYNTAX: &[u8] = b"\",\n\r .eE+-9\tinfa";

/// The results of `check -f csv --kernel` for every model on the
/// repository's `.hist` file; times made up, so that the seeds are fixed.
fn results_csv() -> Vec<Vec<u8>> {
    let file = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/papers-and-litmus.hist"
    ));
    let opts = Options {
        kernel: true,
        ..Options::default()
    };
    let checked = check_file(file, &Model::EVERY, &opts, &Default::default()).unwrap();
    let mut all = Vec::new();
    for c in &checked {
        for mut r in rows(Path::new("examples/papers-and-litmus.hist"), c) {
            r.time_ms = all.len() as f64 * 0.25;
            all.push(r);
        }
    }
    assert!(all.len() > 300, "{}", all.len());
    // header and one to eight rows, from each row on
    let mut seeds = Vec::new();
    for i in 0..all.len() {
        let mut csv = Vec::new();
        write_csv(&mut csv, &all[i..(i + 1 + i % 8).min(all.len())], true).unwrap();
        seeds.push(csv);
    }
    // two joined with `cat`, and the whole table
    for i in (0..all.len() - 20).step_by(20) {
        seeds.push([seeds[i].clone(), seeds[i + 13].clone()].concat());
    }
    let mut whole = Vec::new();
    write_csv(&mut whole, &all, true).unwrap();
    seeds.push(whole);
    seeds
}

/// Reads a results CSV; an error must name a line of the input, and
/// accepted results must summarize and compare.
fn read_csv(src: &[u8]) -> Parsed {
    let mut res = Results {
        extra: vec!["model".to_string()],
        ..Results::default()
    };
    let lines = Lines::new(src);
    if let Err(e) = read_one(&mut res, "r.csv", src) {
        let line = e.line.unwrap_or_else(|| panic!("no line in `{e}`"));
        assert!(lines.contains(line, 1), "`{e}`: not a line of the input");
        assert!(e.to_string().starts_with(&format!("r.csv:{line}: ")), "{e}");
        return Parsed::Rejected;
    }
    // lines count `\n`s: records ended by a lone `\r` share a line
    let mut last = 1;
    for r in &res.rows {
        assert!(
            r.line >= last && lines.contains(r.line, 1),
            "row at line {}",
            r.line
        );
        last = r.line;
    }
    for by in [&[][..], &["model".to_string()][..]] {
        let s = summarize(&res, by);
        s.write_table(Vec::new()).unwrap();
        s.write_csv(Vec::new()).unwrap();
    }
    let (a, b) = sides_by_file(&res);
    let _ = compare(&res, &a, &b, &KeySpec::Auto);
    let _ = compare(&res, &a, &a, &KeySpec::Auto).map(|c| c.write_table(Vec::new(), 5));
    Parsed::Accepted
}

/// `n` mutated CSVs: 0 panics, every error located.
fn fuzz(n: usize) -> Tally {
    let t = run(
        "csv_fuzz results CSV",
        &results_csv(),
        n,
        0x9e37_79b9_7f4a_7c15,
        |rng: &mut Rng, input: &[u8]| mutate_file(rng, input, SYNTAX),
        read_csv,
    );
    eprintln!("csv_fuzz results CSV: {t}");
    assert_eq!(t.panics, 0);
    t
}

#[test]
fn mutated_results_csvs_never_panic() {
    let t = fuzz(3000);
    // the mutations reach both outcomes
    assert!(t.accepted > 300 && t.rejected > 300, "{t}");
}

#[test]
#[ignore = "10^5 mutated CSVs: run with --ignored (in release: seconds)"]
fn a_hundred_thousand_mutated_results_csvs_never_panic() {
    fuzz(100_000);
}
