//! Mutation tests of the `.hist` parser and of the client output parser
//! (whose blocks are `.hist` text): real files (the repository's `.hist`
//! histories, the format's examples, the client's documented output),
//! damaged whole (lines dropped, repeated, swapped or moved; bytes changed),
//! never panic, and whatever they accept keeps what the parsers promise:
//! every position points at its token in the input, names and variables
//! follow the grammar, ticks are ordered, `write_hist` reads back the same,
//! an error lies in the file (for `.hist`: on the first bad line), a client
//! history matches its header. A short run in every `cargo test`; the
//! `#[ignore]`d one runs 10^5 mutated files per parser:
//! `cargo test -p memconform-parsers --release hist_fuzz -- --ignored --nocapture`.

use crate::client::{looks_like_client, parse_client};
use crate::fuzz::{mutate_file, run, Lines, Parsed, Rng, Tally};
use crate::hist::tests::{assert_round_trip, RICH};
use crate::hist::{canonical_var, parse_hist, RawHistory, RawOpKind};
use crate::Pos;

/// Bytes of the `.hist` syntax a damaged file may gain.
const SYNTAX: &[u8] = b"()@,-=#:\n\r \tx0F9WRU_\xff\xc3";

/// The repository's `.hist` file.
fn litmus() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/papers-and-litmus.hist"
    );
    std::fs::read_to_string(path).unwrap()
}

/// `text` with ticks `@i-j` after every operation (the repository's file
/// has none).
fn with_ticks(text: &str) -> String {
    let mut out = String::new();
    let mut tick = 10;
    for (i, piece) in text.split(')').enumerate() {
        if i > 0 {
            out.push(')');
            if !piece.starts_with([' ', '\n']) {
                out.push_str(piece);
                continue;
            }
            out.push_str(&format!("@{tick}-{}", tick + 5));
            tick += 7;
        }
        out.push_str(piece);
    }
    out
}

/// The first code block of a Markdown file that contains `needle`.
fn code_block(markdown: &str, needle: &str) -> String {
    markdown
        .split("```")
        .skip(1)
        .step_by(2)
        .find(|b| b.contains(needle))
        .map(|b| {
            b.trim_start_matches(|c: char| c != '\n')
                .trim_start_matches('\n')
        })
        .unwrap()
        .to_owned()
}

/// Seeds: runs of one to three histories of the repository's file (some
/// with `\r\n` line ends), single ones with ticks, the whole file, the
/// format's examples.
fn hist_seeds() -> Vec<Vec<u8>> {
    let litmus = litmus();
    let chunks: Vec<&str> = litmus.split_inclusive("---\n").collect();
    assert!(chunks.len() > 30, "{}", chunks.len());
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for i in 0..chunks.len() {
        let run = chunks[i..(i + 1 + i % 3).min(chunks.len())].concat();
        seeds.push(with_ticks(chunks[i]).into_bytes());
        if i % 4 == 0 {
            seeds.push(run.replace('\n', "\r\n").into_bytes());
        }
        seeds.push(run.into_bytes());
    }
    seeds.push(litmus.clone().into_bytes());
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/hist-format.md");
    let docs = std::fs::read_to_string(docs).unwrap();
    seeds.push(code_block(&docs, "@expect").into_bytes());
    seeds.push(RICH.as_bytes().to_vec());
    seeds
}

/// A thread name or `@` key: `[A-Za-z_][A-Za-z0-9_.-]*`.
fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// An identifier `[A-Za-z_][A-Za-z0-9_]*`.
fn is_ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A variable: an identifier or `0x` and hex digits.
fn is_var(s: &str) -> bool {
    is_ident(s)
        || s.strip_prefix("0x")
            .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether the input at `p` starts with `token` (then, when `ends` is not
/// empty, one of its bytes or the end of the line).
fn points_at(lines: &Lines, p: Pos, token: &str, ends: &[u8]) -> bool {
    let text = lines.at(p.line, p.col);
    text.starts_with(token.as_bytes())
        && (ends.is_empty() || text.get(token.len()).is_none_or(|b| ends.contains(b)))
}

/// A metadata value as the parser keeps it: the rest of a line without
/// comment, trimmed (no `\r` at its end: `write_hist` would lose it).
fn is_meta_value(v: &str) -> bool {
    !v.contains(['#', '\n']) && !v.starts_with([' ', '\t']) && !v.ends_with([' ', '\t', '\r'])
}

/// Asserts what `parse_hist` promises of the histories `hs` it read from
/// `src` (`client`: the client's, whose header metadata sits on its header
/// line).
fn hist_invariants(src: &[u8], hs: &[RawHistory], client: bool) {
    let lines = Lines::new(src);
    let mut last = Pos::default();
    for h in hs {
        assert!(!h.threads.is_empty(), "a history without threads");
        assert!(
            h.pos > last,
            "histories out of order: {} after {last}",
            h.pos
        );
        last = h.pos;
        let first = lines.at(h.pos.line, h.pos.col);
        assert!(
            first.first().is_some_and(|b| !b" \t#".contains(b)),
            "history at {} starts at {:?}",
            h.pos,
            String::from_utf8_lossy(first)
        );
        if let Some(name) = &h.name {
            assert!(!name.is_empty() && is_meta_value(name), "name {name:?}");
        }
        for (model, _, p) in &h.expect {
            assert!(is_ident(model) && *p > h.pos, "expect {model} at {p}");
            assert!(points_at(&lines, *p, &format!("{model}="), b""), "{p}");
        }
        for (var, _, p) in &h.finals {
            assert!(is_var(var) && *p > h.pos, "final {var} at {p}");
            // a hex address is kept in one spelling (`0x0A` is `0xa`)
            let text = lines.at(p.line, p.col);
            let token = &text[..text
                .iter()
                .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                .unwrap_or(text.len())];
            let token = std::str::from_utf8(token).unwrap();
            assert_eq!(canonical_var(token), var.as_str(), "final at {p}");
            assert_eq!(text.get(token.len()), Some(&b'='), "final at {p}");
        }
        for (key, value, p) in &h.meta {
            assert!(is_meta_value(value), "@{key} {value:?}");
            let at_sign = format!("@{key}");
            let header = client
                && (points_at(&lines, *p, "# memconform-client v1", b" \t") && key == "source"
                    || points_at(&lines, *p, &format!("{key}="), b"")
                    || key == "cpus" && points_at(&lines, *p, "threads=", b""));
            assert!(
                header || is_name(key) && points_at(&lines, *p, &at_sign, b" \t\r#"),
                "@{key} at {p}"
            );
        }
        for (i, t) in h.threads.iter().enumerate() {
            assert!(is_name(&t.name), "thread {:?}", t.name);
            // the first thread line may be the history's first line
            let after = t.pos > last || i == 0 && t.pos == h.pos;
            assert!(after, "thread {} at {} after {last}", t.name, t.pos);
            last = t.pos;
            assert!(points_at(&lines, t.pos, &t.name, b" \t:"), "{}", t.pos);
            for op in &t.ops {
                assert!(
                    op.pos > last && op.pos.line == t.pos.line,
                    "op at {}",
                    op.pos
                );
                last = op.pos;
                let (head, var) = match &op.kind {
                    RawOpKind::Read { var, .. } => ("R(", Some(var)),
                    RawOpKind::Write { var, .. } => ("W(", Some(var)),
                    RawOpKind::Rmw { var, .. } => ("U(", Some(var)),
                    RawOpKind::Fence => ("F", None),
                };
                assert!(points_at(&lines, op.pos, head, b""), "{head} at {}", op.pos);
                assert!(var.is_none_or(|v| is_var(v)), "variable {var:?}");
                if let Some((issue, complete)) = op.ticks {
                    assert!(issue <= complete, "@{issue}-{complete} at {}", op.pos);
                }
            }
        }
    }
    // the canonical form reads back the same
    assert_round_trip(hs);
}

/// Parses a `.hist` file and checks what the parser promises.
fn hist_file(src: &[u8]) -> Parsed {
    match parse_hist(src) {
        Ok(hs) => {
            hist_invariants(src, &hs, false);
            Parsed::Accepted
        }
        Err(e) => {
            let lines = Lines::new(src);
            assert!(lines.contains(e.pos.line.into(), e.pos.col.into()), "{e}");
            // errors are found line by line: the lines before are fine
            let before = lines.0[..e.pos.line as usize - 1].join(&b'\n');
            assert!(parse_hist(&before).is_ok(), "{e}: the lines before fail");
            Parsed::Rejected
        }
    }
}

/// Seeds: the client's documented output, inside other output, twice.
fn client_seeds() -> Vec<Vec<u8>> {
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/../../gem5-configs/README.md");
    let block = code_block(
        &std::fs::read_to_string(readme).unwrap(),
        "memconform-client v1",
    );
    assert!(parse_client(block.as_bytes()).unwrap().len() == 2);
    let inside = format!("gem5 Simulator System.\ncommand line: ...\n{block}Exiting @ tick 5\n");
    let twice = format!("{block}\r\n{}", block.replace('\n', "\r\n"));
    [block, inside, twice].map(String::into_bytes).to_vec()
}

/// Parses client output and checks what the parser promises: `.hist`
/// histories, and each as its header says.
fn client_file(src: &[u8]) -> Parsed {
    let _ = looks_like_client(src);
    match parse_client(src) {
        Ok(hs) => {
            hist_invariants(src, &hs, true);
            for h in &hs {
                // a header field (first), the history's own `@round` (last)
                let number =
                    |m: Option<&(String, String, Pos)>| m.unwrap().1.parse::<u64>().unwrap();
                let meta = |key: &str| number(h.meta.iter().find(|m| m.0 == key));
                let round = number(h.meta.iter().rev().find(|m| m.0 == "round"));
                assert_eq!(
                    (h.meta[0].0.as_str(), h.meta[0].1.as_str()),
                    ("source", "client")
                );
                assert!(round < meta("rounds"));
                assert_eq!(h.threads.len() as u64, meta("threads"));
                for (i, t) in h.threads.iter().enumerate() {
                    assert_eq!(t.name, format!("t{i}"));
                    assert_eq!(t.ops.len() as u64, meta("ops"));
                }
            }
            Parsed::Accepted
        }
        Err(e) => {
            let lines = Lines::new(src);
            assert!(lines.contains(e.pos.line.into(), e.pos.col.into()), "{e}");
            Parsed::Rejected
        }
    }
}

/// `n` mutated files per parser: 0 panics, invariants kept.
fn fuzz(n: usize) -> [Tally; 2] {
    let mutate = |rng: &mut Rng, input: &[u8]| mutate_file(rng, input, SYNTAX);
    let hist = run(
        "hist_fuzz .hist",
        &hist_seeds(),
        n,
        0x9e37_79b9_7f4a_7c15,
        mutate,
        hist_file,
    );
    let client = run(
        "hist_fuzz client",
        &client_seeds(),
        n,
        0x2545_f491_4f6c_dd1d,
        mutate,
        client_file,
    );
    eprintln!("hist_fuzz .hist: {hist}\nhist_fuzz client: {client}");
    assert_eq!((hist.panics, client.panics), (0, 0));
    [hist, client]
}

#[test]
fn mutated_hist_files_never_panic() {
    let [hist, client] = fuzz(4000);
    // the mutations reach both outcomes
    assert!(hist.accepted > 400 && hist.rejected > 400, "{hist}");
    assert!(client.accepted > 100 && client.rejected > 400, "{client}");
}

#[test]
#[ignore = "10^5 mutated files per parser: run with --ignored (in release: seconds)"]
fn a_hundred_thousand_mutated_hist_files_never_panic() {
    fuzz(100_000);
}
