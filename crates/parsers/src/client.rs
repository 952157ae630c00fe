//! The output of memconform's SE-mode random client (`gem5-configs/client`).
//!
//! The client prints its histories in the `.hist` format, framed by a header
//! and an end line so that they can be recognised by content and found in
//! any surrounding output (gem5's banner when the program's stdout is gem5's):
//!
//! ```text
//! # memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=2 stride=1 writes=50
//! @name client-s1-r0
//! @round 0
//! t0: W(w1,0x1000000000001) R(w0,0) R(w1,0x1000000000001)
//! t1: W(w0,0x2000000000001) R(w1,0) W(w0,0x2000000000002)
//! ---
//! @name client-s1-r1
//! @round 1
//! t0: R(w1,0) W(w0,0x1000000000002) W(w0,0x1000000000003)
//! t1: R(w0,0) W(w0,0x2000000000004) R(w0,0x2000000000004)
//! # memconform-client end histories=2
//! ```
//!
//! A *block* runs from a header line (`# memconform-client v1` and
//! `key=value` fields) to the next end line; its lines are parsed with
//! [`parse_hist`], so the whole block is also a valid `.hist` file. Lines
//! outside blocks are not the client's and are skipped; a file may hold
//! several blocks (several runs). Each block is checked against its header:
//! `rounds` histories (also the end line's `histories`), each with `@round`
//! equal to its index, threads `t0..t{threads-1}` in order with `ops`
//! operations each, variables `w0..w{words-1}`. A block with no end line is
//! an error (the client prints everything at once after its threads joined,
//! so a missing end means it crashed or the simulation stopped early).
//!
//! Every history gets the metadata `source=client`, then the header's fields
//! in order (`threads`, `ops`, `words`, `seed`, `rounds`, ...), then
//! `cpus` (= `threads`: one thread per simulated CPU), before its own
//! `@round` line; so a header field must be one: a `.hist` key, `=`, a value
//! without `#` or control characters. Positions are those of the whole input.

use crate::hist::{is_name, parse_hist, RawHistory, RawOpKind};
use crate::{ParseError, Pos};

/// What every header line starts with (then `v<version>`).
const PREFIX: &str = "# memconform-client ";
/// The version this parser reads.
const VERSION: &str = "v1";
/// The end line, after [`PREFIX`].
const END: &str = "end";
/// Header fields every v1 block must have (all decimal numbers).
const REQUIRED: [&str; 5] = ["threads", "ops", "words", "seed", "rounds"];

/// Whether `src` holds client output: some line starts with
/// `# memconform-client v` followed by a digit (any version; [`parse_client`]
/// then rejects versions it does not read).
pub fn looks_like_client(src: &[u8]) -> bool {
    lines(src).any(|(_, _, line)| {
        line.strip_prefix(PREFIX.as_bytes())
            .and_then(|rest| rest.strip_prefix(b"v"))
            .is_some_and(|rest| rest.first().is_some_and(u8::is_ascii_digit))
    })
}

/// Parses every block of client output in `src`, in order: one
/// [`RawHistory`] per round. Syntax errors, blocks cut short and histories
/// that do not match their header are errors at their position.
pub fn parse_client(src: &[u8]) -> Result<Vec<RawHistory>, ParseError> {
    let mut histories = Vec::new();
    let mut open: Option<Header> = None;
    let mut blocks = 0usize;
    for (index, span, line) in lines(src) {
        let line_no = to_u32(index + 1);
        let Some(rest) = line.strip_prefix(PREFIX.as_bytes()) else {
            continue;
        };
        let rest = text(rest, line_no, PREFIX.len())?;
        let col = to_u32(PREFIX.len() + 1);
        if let Some(fields) = rest.strip_prefix(END) {
            let Some(header) = open.take() else {
                return Err(error(
                    line_no,
                    1,
                    "client end line without a `# memconform-client v1` header before it",
                ));
            };
            let end_at = Pos { line: line_no, col };
            let stated = end_fields(fields, line_no, PREFIX.len() + END.len())?;
            blocks += 1;
            histories.extend(block(
                &src[header.body..span.start],
                &header,
                end_at,
                stated,
            )?);
        } else {
            if let Some(h) = &open {
                return Err(error(
                    line_no,
                    1,
                    &format!(
                        "client header before the end of the block started at {}: \
                         that run's output is cut short",
                        h.pos
                    ),
                ));
            }
            open = Some(header(rest, line_no, span.next)?);
        }
    }
    if let Some(h) = open {
        return Err(ParseError {
            pos: h.pos,
            msg: "client output cut short: no `# memconform-client end` line after this \
                  header (did the client crash or the simulation stop early?)"
                .to_owned(),
        });
    }
    if blocks == 0 {
        return Err(error(
            1,
            1,
            "no `# memconform-client v1` header line: not client output",
        ));
    }
    Ok(histories)
}

/// A parsed header line.
struct Header {
    /// Position of the `#`.
    pos: Pos,
    /// Byte offset of the line after the header.
    body: usize,
    /// `key=value` fields in order, with the position of the key.
    fields: Vec<(String, String, Pos)>,
    threads: u64,
    ops: u64,
    words: u64,
    rounds: u64,
}

impl Header {
    fn field(&self, key: &str) -> Option<&(String, String, Pos)> {
        self.fields.iter().find(|(k, _, _)| k == key)
    }
}

/// Parses `v1 key=value ...` (after the prefix) on line `line_no`; the block's
/// body starts at byte `body` of the input.
fn header(rest: &str, line_no: u32, body: usize) -> Result<Header, ParseError> {
    let base = PREFIX.len();
    let mut tokens = tokens(rest);
    let version = tokens.next().map_or("", |(_, t)| t);
    if version != VERSION {
        return Err(error(
            line_no,
            to_u32(base + 1),
            &format!("unsupported client format `{version}` (this memconform reads {VERSION})"),
        ));
    }
    let pos = Pos {
        line: line_no,
        col: 1,
    };
    let mut fields: Vec<(String, String, Pos)> = Vec::new();
    for (off, token) in tokens {
        let at = Pos {
            line: line_no,
            col: to_u32(base + off + 1),
        };
        let Some((key, value)) = token.split_once('=') else {
            return Err(ParseError {
                pos: at,
                msg: format!("expected `key=value` in the client header, found `{token}`"),
            });
        };
        if key.is_empty() || value.is_empty() {
            return Err(ParseError {
                pos: at,
                msg: format!("empty key or value in client header field `{token}`"),
            });
        }
        // the field becomes the `.hist` metadata line `@key value`
        if !is_name(key) || value.contains(|c: char| c == '#' || c.is_control()) {
            return Err(ParseError {
                pos: at,
                msg: format!(
                    "client header field `{token}` is not `key=value` with a `.hist` key \
                     ([A-Za-z_][A-Za-z0-9_.-]*) and a value without `#` or control characters"
                ),
            });
        }
        if let Some((_, _, first)) = fields.iter().find(|(k, _, _)| k == key) {
            return Err(ParseError {
                pos: at,
                msg: format!("client header field `{key}` given twice (first at {first})"),
            });
        }
        fields.push((key.to_owned(), value.to_owned(), at));
    }
    let mut numbers = [0u64; REQUIRED.len()];
    for (n, key) in numbers.iter_mut().zip(REQUIRED) {
        let Some((_, value, at)) = fields.iter().find(|(k, _, _)| k == key) else {
            return Err(ParseError {
                pos,
                msg: format!("client header has no `{key}=` field"),
            });
        };
        *n = decimal(value).ok_or_else(|| ParseError {
            pos: *at,
            msg: format!("client header field `{key}` must be a decimal number, found `{value}`"),
        })?;
    }
    let [threads, ops, words, _seed, rounds] = numbers;
    for (key, n) in [("threads", threads), ("ops", ops), ("words", words)] {
        if n == 0 {
            let at = fields
                .iter()
                .find(|(k, _, _)| k == key)
                .map_or(pos, |f| f.2);
            return Err(ParseError {
                pos: at,
                msg: format!("client header field `{key}` must be at least 1"),
            });
        }
    }
    Ok(Header {
        pos,
        body,
        fields,
        threads,
        ops,
        words,
        rounds,
    })
}

/// Parses the end line's fields (` histories=N`, optional); `base` is the
/// byte column before `fields`.
fn end_fields(fields: &str, line_no: u32, base: usize) -> Result<Option<u64>, ParseError> {
    let mut stated = None;
    for (off, token) in tokens(fields) {
        let at = Pos {
            line: line_no,
            col: to_u32(base + off + 1),
        };
        match token.split_once('=') {
            Some(("histories", v)) => {
                stated = Some(decimal(v).ok_or_else(|| ParseError {
                    pos: at,
                    msg: format!("`histories` must be a decimal number, found `{v}`"),
                })?);
            }
            _ => {
                return Err(ParseError {
                    pos: at,
                    msg: format!("unexpected `{token}` on the client end line"),
                })
            }
        }
    }
    Ok(stated)
}

/// Parses and checks the histories of one block: `body` holds its lines
/// between the header and the end line; `end` is the position of `end` on the
/// end line and `stated` its `histories` count.
fn block(
    body: &[u8],
    header: &Header,
    end: Pos,
    stated: Option<u64>,
) -> Result<Vec<RawHistory>, ParseError> {
    let offset = header.pos.line;
    let mut histories = parse_hist(body).map_err(|e| ParseError {
        pos: shift(e.pos, offset),
        msg: e.msg,
    })?;
    for h in &mut histories {
        shift_history(h, offset);
    }
    let end_pos = Pos {
        line: end.line,
        col: 1,
    };
    if let Some(n) = stated {
        if n != histories.len() as u64 {
            return Err(ParseError {
                pos: Pos {
                    line: end.line,
                    col: end.col + to_u32(END.len() + 1),
                },
                msg: format!(
                    "the client end line says {n} histories, the block holds {}",
                    histories.len()
                ),
            });
        }
    }
    if histories.len() as u64 != header.rounds {
        return Err(ParseError {
            pos: end_pos,
            msg: format!(
                "the client header at {} announces rounds={}, the block holds {} histories",
                header.pos,
                header.rounds,
                histories.len()
            ),
        });
    }
    let mut meta = vec![("source".to_owned(), "client".to_owned(), header.pos)];
    meta.extend(header.fields.iter().cloned());
    if header.field("cpus").is_none() {
        let (_, threads, at) = header.field("threads").expect("required field");
        meta.push(("cpus".to_owned(), threads.clone(), *at));
    }
    for (round, h) in histories.iter_mut().enumerate() {
        check_history(h, header, round)?;
        let own = std::mem::take(&mut h.meta);
        h.meta = meta.iter().cloned().chain(own).collect();
    }
    Ok(histories)
}

/// Checks one history of a block against the header.
fn check_history(h: &RawHistory, header: &Header, round: usize) -> Result<(), ParseError> {
    match h.meta.iter().find(|(k, _, _)| k == "round") {
        None => {
            return Err(ParseError {
                pos: h.pos,
                msg: format!("client history {round} of its block has no `@round` line"),
            })
        }
        Some((_, v, at)) if decimal(v) != Some(round as u64) => {
            return Err(ParseError {
                pos: *at,
                msg: format!("`@round {v}` on the client history at index {round} of its block"),
            })
        }
        Some(_) => {}
    }
    if h.threads.len() as u64 != header.threads {
        return Err(ParseError {
            pos: h.pos,
            msg: format!(
                "client history has {} threads, its header says threads={}",
                h.threads.len(),
                header.threads
            ),
        });
    }
    for (i, t) in h.threads.iter().enumerate() {
        if t.name != format!("t{i}") {
            return Err(ParseError {
                pos: t.pos,
                msg: format!("client thread {i} is named `{}`, expected `t{i}`", t.name),
            });
        }
        if t.ops.len() as u64 != header.ops {
            return Err(ParseError {
                pos: t.pos,
                msg: format!(
                    "client thread `{}` has {} operations, its header says ops={}",
                    t.name,
                    t.ops.len(),
                    header.ops
                ),
            });
        }
        for op in &t.ops {
            let var = match &op.kind {
                RawOpKind::Read { var, .. }
                | RawOpKind::Write { var, .. }
                | RawOpKind::Rmw { var, .. } => var,
                RawOpKind::Fence => continue,
            };
            let in_range = var
                .strip_prefix('w')
                .filter(|d| !d.starts_with('0') || *d == "0")
                .and_then(decimal)
                .is_some_and(|w| w < header.words);
            if !in_range {
                return Err(ParseError {
                    pos: op.pos,
                    msg: format!(
                        "client variable `{var}` is not one of w0..w{} (header words={})",
                        header.words - 1,
                        header.words
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Moves a position of a block's body (line 1 = the line after the header
/// on line `offset`) to the whole input.
fn shift(p: Pos, offset: u32) -> Pos {
    Pos {
        line: p.line + offset,
        col: p.col,
    }
}

fn shift_history(h: &mut RawHistory, offset: u32) {
    h.pos = shift(h.pos, offset);
    for (_, _, p) in h.expect.iter_mut() {
        *p = shift(*p, offset);
    }
    for (_, _, p) in h.finals.iter_mut() {
        *p = shift(*p, offset);
    }
    for (_, _, p) in h.meta.iter_mut() {
        *p = shift(*p, offset);
    }
    for t in &mut h.threads {
        t.pos = shift(t.pos, offset);
        for op in &mut t.ops {
            op.pos = shift(op.pos, offset);
        }
    }
}

/// The lines of `src` (split at `\n`, a trailing `\r` removed): 0-based
/// index, byte offset of the line's start and of the next line's start.
fn lines(src: &[u8]) -> impl Iterator<Item = (usize, Span, &[u8])> {
    src.split(|&b| b == b'\n')
        .scan(0usize, move |start, l| {
            let span = Span {
                start: *start,
                next: (*start + l.len() + 1).min(src.len()),
            };
            *start = span.next;
            Some((span, l.strip_suffix(b"\r").unwrap_or(l)))
        })
        .enumerate()
        .map(|(i, (span, l))| (i, span, l))
}

/// Where a line starts, and where the next one starts.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    next: usize,
}

/// Whitespace-separated tokens with their byte offset in `s`.
fn tokens(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split([' ', '\t'])
        .scan(0usize, |off, t| {
            let at = *off;
            *off += t.len() + 1;
            Some((at, t))
        })
        .filter(|(_, t)| !t.is_empty())
}

/// A plain decimal number (no sign, no spaces).
fn decimal(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The bytes of a header or end line as utf-8.
fn text(rest: &[u8], line_no: u32, base: usize) -> Result<&str, ParseError> {
    std::str::from_utf8(rest).map_err(|e| {
        error(
            line_no,
            to_u32(base + e.valid_up_to() + 1),
            "invalid utf-8 on a client header or end line",
        )
    })
}

fn error(line: u32, col: u32, msg: &str) -> ParseError {
    ParseError {
        pos: Pos { line, col },
        msg: msg.to_owned(),
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_ROUNDS: &str = "\
# memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=2 stride=1 writes=50
@name client-s1-r0
@round 0
t0: W(w1,0x1000000000001) R(w0,0) R(w1,0x1000000000001)
t1: W(w0,0x2000000000001) R(w1,0) W(w0,0x2000000000002)
---
@name client-s1-r1
@round 1
t0: R(w1,0) W(w0,0x1000000000002) W(w0,0x1000000000003)
t1: R(w0,0) W(w0,0x2000000000004) R(w0,0x2000000000004)
# memconform-client end histories=2
";

    fn err(src: &str) -> ParseError {
        parse_client(src.as_bytes()).expect_err("should fail")
    }

    fn meta(h: &RawHistory) -> Vec<(&str, &str)> {
        h.meta
            .iter()
            .map(|(k, v, _)| (k.as_str(), v.as_str()))
            .collect()
    }

    #[test]
    fn sniffs_the_header_anywhere() {
        assert!(looks_like_client(TWO_ROUNDS.as_bytes()));
        let embedded =
            format!("gem5 Simulator System.\ncommand line: ...\n{TWO_ROUNDS}Exiting @ tick 5\n");
        assert!(looks_like_client(embedded.as_bytes()));
        assert!(looks_like_client(b"# memconform-client v2 x=1\n"));
        assert!(looks_like_client(b"x\r\n# memconform-client v1\r\n"));
        assert!(!looks_like_client(b"t0: W(x,1)\n# memconform-client\n"));
        assert!(!looks_like_client(b"# memconform-client end histories=1\n"));
        assert!(!looks_like_client(b"  # memconform-client v1\n"));
        assert!(!looks_like_client(b"0: M[1] := 1\ncheck\n"));
        assert!(!looks_like_client(b""));
    }

    #[test]
    fn parses_rounds_with_header_metadata() {
        let hs = parse_client(TWO_ROUNDS.as_bytes()).unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[0].name.as_deref(), Some("client-s1-r0"));
        assert_eq!(
            meta(&hs[1]),
            [
                ("source", "client"),
                ("threads", "2"),
                ("ops", "3"),
                ("words", "2"),
                ("seed", "1"),
                ("rounds", "2"),
                ("stride", "1"),
                ("writes", "50"),
                ("cpus", "2"),
                ("round", "1"),
            ]
        );
        // positions are those of the whole input
        assert_eq!(hs[0].pos, Pos { line: 2, col: 1 });
        assert_eq!(hs[1].threads[1].pos, Pos { line: 10, col: 1 });
        assert_eq!(hs[1].threads[1].ops[2].pos, Pos { line: 10, col: 35 });
        assert_eq!(hs[0].meta[2].2, Pos { line: 1, col: 34 }); // `ops=`
        assert_eq!(
            hs[1].threads[1].ops[2].kind,
            RawOpKind::Read {
                var: "w0".into(),
                value: 0x2000000000004
            }
        );
        assert_eq!(hs[0].threads[0].ops.len(), 3);
    }

    #[test]
    fn a_block_is_a_hist_file() {
        let body: String = TWO_ROUNDS
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        let plain = parse_hist(TWO_ROUNDS.as_bytes()).unwrap();
        let client = parse_client(TWO_ROUNDS.as_bytes()).unwrap();
        assert_eq!(plain.len(), 2);
        assert_eq!(plain[1].threads, client[1].threads);
        assert_eq!(parse_hist(body.as_bytes()).unwrap()[0].threads.len(), 2);
    }

    #[test]
    fn skips_surrounding_output_and_reads_several_blocks() {
        let src = format!(
            "gem5 Simulator System.  https://www.gem5.org\n\r\n{TWO_ROUNDS}\
             Exiting @ tick 123 because exiting with last active thread context\n{}",
            TWO_ROUNDS.replace("seed=1", "seed=9")
        );
        let hs = parse_client(src.as_bytes()).unwrap();
        assert_eq!(hs.len(), 4);
        assert_eq!(hs[0].pos.line, 4);
        assert_eq!(hs[2].pos.line, 4 + 12);
        assert_eq!(meta(&hs[3])[4], ("seed", "9"));
        assert_eq!(meta(&hs[3]).last(), Some(&("round", "1")));
    }

    #[test]
    fn crlf_line_ends() {
        let hs = parse_client(TWO_ROUNDS.replace('\n', "\r\n").as_bytes()).unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[1].threads[1].ops[2].pos, Pos { line: 10, col: 35 });
    }

    #[test]
    fn rejects_missing_or_foreign_headers() {
        let e = err("t0: W(x,1)\n");
        assert_eq!(
            (e.pos, e.msg.contains("not client output")),
            (Pos { line: 1, col: 1 }, true)
        );
        let e = err("");
        assert!(e.msg.contains("not client output"), "{e}");
        let e = err("# memconform-client v2 threads=1\n");
        assert_eq!(e.pos, Pos { line: 1, col: 21 });
        assert!(e.msg.contains("`v2`"), "{e}");
        let e = err("x\n# memconform-client end histories=0\n");
        assert_eq!(e.pos, Pos { line: 2, col: 1 });
        assert!(e.msg.contains("without"), "{e}");
    }

    #[test]
    fn rejects_bad_header_fields() {
        let e = err("# memconform-client v1 threads=2 ops=3 words=2 rounds=1\n");
        assert!(e.msg.contains("no `seed=`"), "{e}");
        let e = err("# memconform-client v1 threads=x ops=3 words=2 seed=1 rounds=1\n");
        assert_eq!(e.pos, Pos { line: 1, col: 24 });
        let e = err("# memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=1 ops=4\n");
        assert_eq!(e.pos, Pos { line: 1, col: 64 });
        assert!(e.msg.contains("twice (first at 1:34)"), "{e}");
        let e = err("# memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=1 junk\n");
        assert!(e.msg.contains("key=value"), "{e}");
        let e = err("# memconform-client v1 threads=0 ops=3 words=2 seed=1 rounds=1\n");
        assert!(e.msg.contains("at least 1"), "{e}");
    }

    /// Found by `hist_fuzz`: header fields become `.hist` metadata, which
    /// `write_hist` wrote as lines that read back otherwise (or not at all).
    #[test]
    fn rejects_header_fields_that_are_not_hist_metadata() {
        for (field, bad, col) in [
            ("writes=50", ",0x1000000000001writes=50", 73),
            ("writes=50", "w@ites=50", 73),
            ("stride=1", "stride:=1", 64),
            ("writes=50", "writes=50#x", 73),
            // a header line ending in `\r\r\n`
            ("writes=50\n", "writes=50\r\r\n", 73),
        ] {
            let e = err(&TWO_ROUNDS.replacen(field, bad, 1));
            assert_eq!(e.pos, Pos { line: 1, col }, "{bad:?}: {e}");
            assert!(e.msg.contains("`.hist` key"), "{e}");
        }
        crate::hist::tests::assert_round_trip(&parse_client(TWO_ROUNDS.as_bytes()).unwrap());
    }

    #[test]
    fn rejects_cut_short_output() {
        let cut = TWO_ROUNDS.replace("# memconform-client end histories=2\n", "");
        let e = err(&cut);
        assert_eq!(e.pos, Pos { line: 1, col: 1 });
        assert!(e.msg.contains("cut short"), "{e}");
        let twice = format!("{cut}{TWO_ROUNDS}");
        let e = err(&twice);
        assert_eq!(e.pos, Pos { line: 11, col: 1 });
        assert!(e.msg.contains("started at 1:1"), "{e}");
    }

    #[test]
    fn rejects_histories_that_do_not_match_the_header() {
        let e = err(&TWO_ROUNDS.replace("histories=2", "histories=3"));
        assert_eq!(e.pos, Pos { line: 11, col: 25 });
        let e = err(&TWO_ROUNDS.replace("rounds=2", "rounds=3"));
        assert_eq!(e.pos, Pos { line: 11, col: 1 });
        assert!(e.msg.contains("rounds=3"), "{e}");
        let e = err(&TWO_ROUNDS.replace("@round 1", "@round 0"));
        assert_eq!(e.pos, Pos { line: 8, col: 1 });
        let e = err(&TWO_ROUNDS.replace("@round 1\n", ""));
        assert!(e.msg.contains("no `@round`"), "{e}");
        let e = err(&TWO_ROUNDS.replace("t1: R(w0,0) W", "t2: R(w0,0) W"));
        assert_eq!(e.pos, Pos { line: 10, col: 1 });
        let e = err(&TWO_ROUNDS.replace(" R(w0,0x2000000000004)", ""));
        assert!(e.msg.contains("2 operations, its header says ops=3"), "{e}");
        let e = err(&TWO_ROUNDS.replace("R(w0,0x2000000000004)", "R(w2,0)"));
        assert_eq!(e.pos, Pos { line: 10, col: 35 });
        assert!(e.msg.contains("w0..w1"), "{e}");
        let e = err(&TWO_ROUNDS.replace("R(w0,0x2000000000004)", "R(w01,0)"));
        assert!(e.msg.contains("`w01`"), "{e}");
        let e = err(&TWO_ROUNDS.replace(
            "t1: W(w0,0x2000000000001) R(w1,0) W(w0,0x2000000000002)\n",
            "",
        ));
        assert!(e.msg.contains("1 threads"), "{e}");
    }

    #[test]
    fn syntax_errors_point_into_the_whole_input() {
        let e = err(&TWO_ROUNDS.replace("R(w1,0) W(w0,0x1000000000002)", "R(w1,0) W(w0,)"));
        assert_eq!(e.pos.line, 9);
        assert_eq!(e.pos.col, 18);
    }
}
