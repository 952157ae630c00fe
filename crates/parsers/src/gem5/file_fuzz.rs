//! Mutation tests of the gem5 file parsers (`config.ini`, `config.json`,
//! `stats.txt`): pieces of the bundled runs' files (runs of sections,
//! SimObject subtrees, runs of statistics within their dump markers, a few
//! whole files), damaged whole (lines dropped, repeated, swapped or moved;
//! bytes changed), never panic, and whatever they accept keeps what the
//! parsers promise: every line read is a section, a key, a marker or a
//! statistic; names are trimmed tokens; an error lies in the file; the
//! protocol, tester and ports of any accepted configuration are found. A
//! short run in every `cargo test`; the `#[ignore]`d one runs 10^5 mutated
//! files per parser:
//! `cargo test -p memconform-parsers --release file_fuzz -- --ignored --nocapture`.

use std::path::PathBuf;

use super::config::{parse_config_ini, parse_config_json, ports, protocol, tester, Config, Tester};
use super::stats::parse_stats;
use crate::fuzz::{mutate_file, run, Lines, Parsed, Rng, Tally};
use crate::ParseError;

/// Every bundled run's copy of `file`, each content once.
fn bundled(file: &str) -> Vec<Vec<u8>> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut dirs = Vec::new();
    for set in [
        "traces",
        "tests/data/gem5/mi_example",
        "tests/data/gem5/mesi_two_level",
    ] {
        for entry in std::fs::read_dir(root.join(set)).unwrap() {
            dirs.push(entry.unwrap().path());
        }
    }
    dirs.sort();
    let mut files: Vec<Vec<u8>> = Vec::new();
    for dir in dirs {
        if let Ok(bytes) = std::fs::read(dir.join(file)) {
            if !files.contains(&bytes) {
                files.push(bytes);
            }
        }
    }
    assert!(files.len() >= 3, "{file}: {}", files.len());
    files
}

/// `text` cut before each line that `starts` selects (the first piece
/// holds what comes before the first such line).
fn pieces(text: &[u8], starts: impl Fn(&[u8]) -> bool) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut begin = 0;
    let mut at = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        if starts(line) && at > begin {
            out.push(&text[begin..at]);
            begin = at;
        }
        at += line.len();
    }
    out.push(&text[begin..]);
    out
}

/// Seeds of `config.ini`: runs of one to four sections of every bundled
/// file, and the smallest file whole.
fn ini_seeds() -> Vec<Vec<u8>> {
    let files = bundled("config.ini");
    let mut seeds = Vec::new();
    for file in &files {
        let sections = pieces(file, |l| l.starts_with(b"["));
        assert!(sections.len() > 50, "{}", sections.len());
        for i in 0..sections.len() {
            seeds.push(sections[i..(i + 1 + i % 4).min(sections.len())].concat());
        }
    }
    seeds.push(files.iter().min_by_key(|f| f.len()).unwrap().clone());
    seeds
}

/// The byte ranges of the JSON objects in `text` (strings skipped).
fn objects(text: &[u8]) -> Vec<(usize, usize)> {
    let (mut open, mut found) = (Vec::new(), Vec::new());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in text.iter().enumerate() {
        match (in_string, b) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'{') => open.push(i),
            (false, b'}') => found.push((open.pop().unwrap(), i + 1)),
            _ => {}
        }
    }
    found
}

/// Seeds of `config.json`: the SimObject subtrees of every bundled file of
/// up to 8 KiB (each a config.json of its own), and the smallest file whole.
fn json_seeds() -> Vec<Vec<u8>> {
    let files = bundled("config.json");
    let mut seeds = Vec::new();
    for file in &files {
        for (start, end) in objects(file) {
            let object = &file[start..end];
            if end - start <= 8192 && parse_config_json(object).is_ok() {
                seeds.push(object.to_vec());
            }
        }
    }
    assert!(seeds.len() > 100, "{}", seeds.len());
    seeds.push(files.iter().min_by_key(|f| f.len()).unwrap().clone());
    seeds
}

/// Seeds of `stats.txt`: runs of 1 to 40 statistics of every bundled dump
/// between its own Begin and End lines, two such dumps, a panicked run's
/// empty file, and the smallest dump whole.
fn stats_seeds() -> Vec<Vec<u8>> {
    let files = bundled("stats.txt");
    let mut seeds = vec![Vec::new()];
    let mut rng = Rng::new(0x5851_f42d_4c95_7f2d);
    for file in files.iter().filter(|f| !f.is_empty()) {
        let lines: Vec<&[u8]> = file.split_inclusive(|&b| b == b'\n').collect();
        let begin = lines
            .iter()
            .position(|l| l.windows(5).any(|w| w == b"Begin"))
            .unwrap();
        let end = lines.iter().rposition(|l| l.starts_with(b"-----")).unwrap();
        let stats = &lines[begin + 1..end];
        let mut dump = || {
            let from = rng.below(stats.len());
            let to = (from + 1 + rng.below(40)).min(stats.len());
            [&[lines[begin]], &stats[from..to], &[lines[end]]]
                .concat()
                .concat()
        };
        for _ in 0..200 {
            seeds.push(dump());
        }
        for _ in 0..20 {
            seeds.push([dump(), b"\n".to_vec(), dump()].concat());
        }
    }
    let whole = files
        .iter()
        .filter(|f| !f.is_empty())
        .min_by_key(|f| f.len());
    seeds.push(whole.unwrap().clone());
    seeds
}

/// An error lies in the file.
fn located(src: &[u8], e: &ParseError) -> Parsed {
    let in_file = Lines::new(src).contains(e.pos.line.into(), e.pos.col.into());
    assert!(in_file, "{e} lies outside the input");
    Parsed::Rejected
}

/// What an accepted configuration gives the checker: never a panic, and
/// a MemTest run counts its testers.
fn config_invariants(c: &Config) {
    let _ = protocol(c);
    let _ = ports(c);
    if let Tester::MemTest { cpus, .. } = tester(c) {
        assert_eq!(cpus as usize, c.sections_of_type("MemTest").len());
    }
}

/// Parses a config.ini and checks what the parser promises.
fn ini_file(src: &[u8]) -> Parsed {
    let c = match parse_config_ini(src) {
        Ok(c) => c,
        Err(e) => return located(src, &e),
    };
    // every line but blanks and comments is a section or a key
    let content = src
        .split(|&b| b == b'\n')
        .map(|l| String::from_utf8_lossy(l).trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with([';', '#']))
        .count();
    let keys: usize = c.sections.iter().map(|(_, kv)| kv.len()).sum();
    assert_eq!(content, c.sections.len() + keys, "lines lost or made up");
    for (name, kv) in &c.sections {
        assert!(name.trim() == name && !name.contains('\n'), "[{name:?}]");
        for (k, v) in kv {
            assert!(k.trim() == k && !k.contains(['=', '\n']), "key {k:?}");
            assert!(!v.contains('\n'), "value {v:?}");
        }
    }
    config_invariants(&c);
    Parsed::Accepted
}

/// Parses a config.json and checks what the parser promises.
fn json_file(src: &[u8]) -> Parsed {
    let c = match parse_config_json(src) {
        Ok(c) => c,
        Err(e) => return located(src, &e),
    };
    assert!(!c.sections.is_empty(), "a SimObject without its section");
    for (_, kv) in &c.sections {
        let dropped = kv
            .iter()
            .find(|(k, _)| matches!(k.as_str(), "path" | "name" | "cxx_class"));
        assert!(dropped.is_none(), "{dropped:?} kept");
        assert!(kv.iter().filter(|(k, _)| k == "children").count() <= 1);
    }
    config_invariants(&c);
    Parsed::Accepted
}

/// Parses a stats.txt and checks what the parser promises.
fn stats_file(src: &[u8]) -> Parsed {
    let dumps = match parse_stats(src) {
        Ok(d) => d,
        Err(e) => return located(src, &e),
    };
    // every line but blanks is a marker or a statistic
    let content = src
        .split(|&b| b == b'\n')
        .filter(|l| !String::from_utf8_lossy(l).trim().is_empty())
        .count();
    let entries: usize = dumps.iter().map(|d| d.entries.len()).sum();
    assert_eq!(content, 2 * dumps.len() + entries, "lines lost or made up");
    for (name, _) in dumps.iter().flat_map(|d| &d.entries) {
        assert!(
            !name.is_empty() && !name.contains([' ', '\t', '#']),
            "{name:?}"
        );
    }
    Parsed::Accepted
}

/// `n` mutated files per parser: 0 panics, invariants kept.
fn fuzz(n: usize) -> [Tally; 3] {
    let ini = run(
        "file_fuzz config.ini",
        &ini_seeds(),
        n,
        0x9e37_79b9_7f4a_7c15,
        |rng: &mut Rng, input: &[u8]| mutate_file(rng, input, b"[]=;#\n\r \t."),
        ini_file,
    );
    let json = run(
        "file_fuzz config.json",
        &json_seeds(),
        n,
        0x2545_f491_4f6c_dd1d,
        |rng: &mut Rng, input: &[u8]| mutate_file(rng, input, b"{}[]\",:\\/u0eE+-.\n tfn"),
        json_file,
    );
    let stats = run(
        "file_fuzz stats.txt",
        &stats_seeds(),
        n,
        0x5851_f42d_4c95_7f2d,
        |rng: &mut Rng, input: &[u8]| mutate_file(rng, input, b"#|%()-+.\n\t naif"),
        stats_file,
    );
    eprintln!(
        "file_fuzz config.ini: {ini}\nfile_fuzz config.json: {json}\nfile_fuzz stats.txt: {stats}"
    );
    assert_eq!((ini.panics, json.panics, stats.panics), (0, 0, 0));
    [ini, json, stats]
}

#[test]
fn mutated_gem5_files_never_panic() {
    for t in fuzz(3000) {
        // the mutations reach both outcomes
        assert!(t.accepted > 300 && t.rejected > 300, "{t}");
    }
}

#[test]
#[ignore = "10^5 mutated files per parser: run with --ignored (in release: seconds)"]
fn a_hundred_thousand_mutated_gem5_files_never_panic() {
    fuzz(100_000);
}
