//! The `.hist` history format (see the crate README / docs/hist-format.md).
//!
//! ```text
//! # comment
//! @name sb
//! @expect sc=no tso=yes
//! @final x=2
//! t0: W(x,1) R(y,0) F U(z,0,5)
//! t1: W(y,1)@10-20 R(x,0)@25-30
//! ---
//! ```
//!
//! The input is read line by line (`\n` or `\r\n`); `#` starts a comment
//! anywhere on a line, and blanks (spaces, tabs, stray `\r`s) around a
//! line's content are ignored. Each line is one of: blank, `---` (ends a
//! history), `@key value` (metadata), or `name: op op ...` (a thread). Lines
//! are parsed with nom over `&str` slices of the input, so positions are
//! byte offsets into the line and nothing but the tokens' text is copied.

use std::fmt::Write as _;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while};
use nom::character::complete::{char, digit1, hex_digit1, satisfy, space0, space1};
use nom::combinator::{eof, map, opt, peek, recognize};
use nom::multi::separated_list1;
use nom::sequence::{pair, preceded, terminated, tuple};
use nom::{Err, IResult, Offset, Parser};

use crate::{ParseError, Pos};

/// What one operation token says, before any meaning is given to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawOpKind {
    /// `R(var,value)`
    Read { var: String, value: u64 },
    /// `W(var,value)`
    Write { var: String, value: u64 },
    /// `U(var,old,new)`: an atomic read-modify-write reading `old`, writing `new`.
    Rmw { var: String, old: u64, new: u64 },
    /// `F`: a full fence.
    Fence,
}

/// An operation's ARMv8 annotation: the suffix after its letter (`R.acq(x,1)`,
/// `F.ld`). Only these combinations parse: `R` takes `.acq` or `.acqpc`, `W`
/// takes `.rel`, `U` takes `.acq`, `.rel` or `.acqrel`, `F` takes `.ld` or
/// `.st`; anything else is an error at the suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Ann {
    /// no suffix: a plain access, or a full fence (DMB ISH)
    #[default]
    None,
    /// `.acq`: load-acquire (LDAR; on `U`, LDAXR … STXR)
    Acq,
    /// `.acqpc`: RCpc load-acquire (LDAPR)
    AcqPc,
    /// `.rel`: store-release (STLR; on `U`, LDXR … STLXR)
    Rel,
    /// `.acqrel`: on `U` only, LDAXR … STLXR (or LDADDAL and kin)
    AcqRel,
    /// `.ld`: `F.ld`, DMB ISHLD (orders earlier reads before later accesses)
    Ld,
    /// `.st`: `F.st`, DMB ISHST (orders earlier writes before later writes)
    St,
}

impl Ann {
    /// The suffix as written, with its dot (empty for [`Ann::None`]).
    pub fn suffix(self) -> &'static str {
        match self {
            Ann::None => "",
            Ann::Acq => ".acq",
            Ann::AcqPc => ".acqpc",
            Ann::Rel => ".rel",
            Ann::AcqRel => ".acqrel",
            Ann::Ld => ".ld",
            Ann::St => ".st",
        }
    }

    /// Whether an operation whose half reads is an acquire (`A`: LDAR, LDAXR).
    pub fn acquire(self) -> bool {
        matches!(self, Ann::Acq | Ann::AcqRel)
    }

    /// Whether an operation whose half writes is a release (`L`: STLR, STLXR).
    pub fn release(self) -> bool {
        matches!(self, Ann::Rel | Ann::AcqRel)
    }

    /// Whether a fence is partial (`F.ld`, `F.st`).
    pub fn partial_fence(self) -> bool {
        matches!(self, Ann::Ld | Ann::St)
    }
}

/// One operation token with its optional timing `@issue-complete`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOp {
    pub kind: RawOpKind,
    /// Its ARMv8 annotation (`.acq`, `.rel`, `.ld`, ...), [`Ann::None`] if none.
    pub ann: Ann,
    /// `(issue tick, completion tick)`
    pub ticks: Option<(u64, u64)>,
    /// Position of the token's first character.
    pub pos: Pos,
}

/// One thread line: `name: op op ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawThread {
    pub name: String,
    /// Position of the thread name.
    pub pos: Pos,
    pub ops: Vec<RawOp>,
}

/// One history: the lines between two `---` separators.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawHistory {
    /// `@name` value.
    pub name: Option<String>,
    /// `@expect` entries in order: (model, satisfied?, position of the entry).
    pub expect: Vec<(String, bool, Pos)>,
    /// `@final` entries in order: (variable, value, position of the entry).
    pub finals: Vec<(String, u64, Pos)>,
    /// Any other `@key value` line: (key, rest of line trimmed, position of `@`).
    pub meta: Vec<(String, String, Pos)>,
    pub threads: Vec<RawThread>,
    /// Position of the first line that belongs to this history.
    pub pos: Pos,
}

impl RawHistory {
    /// The history with every position zeroed, to compare histories from
    /// different sources.
    pub fn without_positions(&self) -> RawHistory {
        let h = self;
        let z = Pos::default();
        RawHistory {
            name: h.name.clone(),
            expect: h
                .expect
                .iter()
                .map(|(m, y, _)| (m.clone(), *y, z))
                .collect(),
            finals: h
                .finals
                .iter()
                .map(|(v, x, _)| (v.clone(), *x, z))
                .collect(),
            meta: h
                .meta
                .iter()
                .map(|(k, v, _)| (k.clone(), v.clone(), z))
                .collect(),
            threads: h
                .threads
                .iter()
                .map(|t| RawThread {
                    name: t.name.clone(),
                    pos: z,
                    ops: t
                        .ops
                        .iter()
                        .map(|o| RawOp {
                            pos: z,
                            ..o.clone()
                        })
                        .collect(),
                })
                .collect(),
            pos: z,
        }
    }
}

/// Parses a whole `.hist` file. Histories without any thread line (e.g. after a
/// trailing `---`) are dropped. Syntax errors, and directives that contradict
/// each other within a history (a second `@name`, `@expect` for one model or
/// `@final` for one variable, a second value of a key memconform reads, see
/// [`SINGLE_KEYS`]); meaning (values written twice, duplicate thread names,
/// ...) is checked by the `memconform` crate. [`HistReader`] gives the same
/// histories one at a time.
pub fn parse_hist(src: &[u8]) -> Result<Vec<RawHistory>, ParseError> {
    HistReader::new(src).collect()
}

/// Metadata keys that memconform reads (the report's columns, the client's
/// rounds, a shrunk file's origin): a history may give each once. Other
/// keys may repeat, and are kept in order.
pub const SINGLE_KEYS: [&str; 14] = [
    "protocol",
    "variant",
    "seed",
    "cpus",
    "tester",
    "cpu_type",
    "expected_model",
    "promise",
    "memory",
    "shrunk-from",
    "round",
    "place",
    "shape",
    "sharing",
];

/// The histories of a `.hist` input one at a time, as [`parse_hist`] gives
/// them (the same errors at the same positions; after an error, nothing
/// more): memory holds the line being read and the history being built, not
/// the input. Reads any [`BufRead`](std::io::BufRead): a byte slice, or a
/// file through a `BufReader`.
pub struct HistReader<R> {
    input: R,
    /// The line being read (without its `\n`).
    line: Vec<u8>,
    /// Lines read so far (the number of the line in `line`).
    line_no: usize,
    /// The history being built.
    cur: Option<Building>,
    /// The most bytes of text one history may hold.
    limit: u64,
    /// Set after an error or the end of the input.
    done: bool,
    /// Whether no line was read yet (a byte order mark may start it).
    first: bool,
}

/// A history being read, with what its directives said so far.
struct Building {
    hist: RawHistory,
    /// Bytes of its lines read so far.
    bytes: u64,
    /// `@final` variables: the index of their entry in `hist.finals`.
    finals: std::collections::HashMap<String, usize>,
}

impl<R: std::io::BufRead> HistReader<R> {
    /// The histories of `input`.
    pub fn new(input: R) -> HistReader<R> {
        HistReader {
            input,
            line: Vec::new(),
            line_no: 0,
            cur: None,
            limit: u64::MAX,
            done: false,
            first: true,
        }
    }

    /// Numbers the input's first line `first` (a piece of a larger file).
    pub fn first_line(mut self, first: u32) -> HistReader<R> {
        self.line_no = (first as usize).saturating_sub(1);
        self
    }

    /// Stops with an error at a history whose lines hold more than `bytes`
    /// bytes of text (a line longer than that is not read whole): the
    /// parsed history takes several times its text, so this bounds what one
    /// history can make the reader allocate.
    pub fn limit(mut self, bytes: u64) -> HistReader<R> {
        self.limit = bytes;
        self
    }

    /// Reads the next line into `self.line`; `false` at the end of the
    /// input. A line past the limit is an error.
    fn read_line(&mut self) -> Result<bool, ParseError> {
        self.line.clear();
        let held = self.cur.as_ref().map_or(0, |b| b.bytes);
        let mut any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(ParseError {
                        pos: Pos {
                            line: to_u32(self.line_no + 1),
                            col: to_u32(self.line.len() + 1),
                        },
                        msg: format!("cannot read: {e}"),
                    })
                }
            };
            if buf.is_empty() {
                if any {
                    self.line_no += 1;
                }
                return Ok(any);
            }
            any = true;
            let (piece, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(nl) => (&buf[..nl], true),
                None => (buf, false),
            };
            if held.saturating_add((self.line.len() + piece.len()) as u64) > self.limit {
                self.line_no += 1;
                return Err(self.too_large());
            }
            self.line.extend_from_slice(piece);
            let used = piece.len() + found as usize;
            self.input.consume(used);
            if found {
                self.line_no += 1;
                return Ok(true);
            }
        }
    }

    /// The error of a history past the limit, at the line being read.
    fn too_large(&self) -> ParseError {
        let start = self.cur.as_ref().map(|b| b.hist.pos);
        ParseError {
            pos: Pos {
                line: to_u32(self.line_no),
                col: 1,
            },
            msg: format!(
                "history too large: {} holds more than {} bytes of text, the most one \
                 history may hold within the memory budget (--max-memory)",
                match start {
                    Some(p) => format!("the history that starts at {p}"),
                    None => "this line".to_owned(),
                },
                self.limit
            ),
        }
    }

    /// Reads lines up to the end of the next history with a thread.
    fn advance(&mut self) -> Result<Option<RawHistory>, ParseError> {
        while self.read_line()? {
            let line_no = to_u32(self.line_no);
            let mut raw: &[u8] = &self.line;
            // a byte order mark at the start of the input is skipped
            // (columns count from after it)
            if std::mem::take(&mut self.first) {
                raw = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
            }
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let line = std::str::from_utf8(raw).map_err(|e| ParseError {
                pos: Pos {
                    line: line_no,
                    col: to_u32(e.valid_up_to() + 1),
                },
                msg: format!(
                    "invalid utf-8 (byte 0x{:02x}): .hist files must be utf-8 text",
                    raw[e.valid_up_to()]
                ),
            })?;
            let content = match line.find('#') {
                Some(hash) => &line[..hash],
                None => line,
            };
            // a stray `\r` is a blank too: kept at the end of a name or value,
            // `write_hist` would end that line in `\r\n`, read back without it
            let content = content.trim_matches([' ', '\t', '\r']);
            if content.is_empty() {
                continue;
            }
            let at = |rest: &str| Pos {
                line: line_no,
                col: to_u32(line.offset(rest) + 1),
            };
            // (an ASCII line, the usual one, holds none: one pass over its bytes)
            let invisible_at = match content.is_ascii() {
                true => None,
                false => content
                    .char_indices()
                    .find(|&(_, c)| invisible(c).is_some()),
            };
            if let Some((i, c)) = invisible_at {
                let p = at(&content[i..]);
                return Err(ParseError {
                    pos: p,
                    msg: format!(
                        "invisible character {} at {p} (in `{}`): delete it",
                        describe_char(c),
                        shorten(&visible_word(content, i))
                    ),
                });
            }
            if content == "---" {
                if let Some(done) = self.cur.take().filter(|b| !b.hist.threads.is_empty()) {
                    return Ok(Some(done.hist));
                }
                continue;
            }
            let bytes = self.line.len() as u64 + 1;
            let building = self.cur.get_or_insert_with(|| Building {
                hist: RawHistory {
                    pos: at(content),
                    ..RawHistory::default()
                },
                bytes: 0,
                finals: std::collections::HashMap::new(),
            });
            building.bytes += bytes;
            let result = if content.starts_with('@') {
                directive_line(content, building, &at)
            } else {
                thread_line(content, &mut building.hist, &at)
            };
            result.map_err(|e| match e {
                Err::Error(e) | Err::Failure(e) => ParseError {
                    pos: at(e.at),
                    msg: e.msg.unwrap_or_else(|| "syntax error".to_owned()),
                },
                Err::Incomplete(_) => unreachable!("complete parsers never ask for more input"),
            })?;
        }
        Ok(self
            .cur
            .take()
            .filter(|b| !b.hist.threads.is_empty())
            .map(|b| b.hist))
    }
}

impl<R: std::io::BufRead> Iterator for HistReader<R> {
    type Item = Result<RawHistory, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.advance() {
            Ok(Some(h)) => Some(Ok(h)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The name of an invisible character (a zero-width or format character,
/// a filler, a tag): text that shows nothing but makes two names differ.
fn invisible(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{00AD}' => "SOFT HYPHEN",
        '\u{034F}' => "COMBINING GRAPHEME JOINER",
        '\u{061C}' => "ARABIC LETTER MARK",
        '\u{115F}' => "HANGUL CHOSEONG FILLER",
        '\u{1160}' => "HANGUL JUNGSEONG FILLER",
        '\u{17B4}' => "KHMER VOWEL INHERENT AQ",
        '\u{17B5}' => "KHMER VOWEL INHERENT AA",
        '\u{180E}' => "MONGOLIAN VOWEL SEPARATOR",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2061}' => "FUNCTION APPLICATION",
        '\u{2062}' => "INVISIBLE TIMES",
        '\u{2063}' => "INVISIBLE SEPARATOR",
        '\u{2064}' => "INVISIBLE PLUS",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{206A}'..='\u{206F}' => "DEPRECATED FORMAT CHARACTER",
        '\u{3164}' => "HANGUL FILLER",
        '\u{FE00}'..='\u{FE0F}' => "VARIATION SELECTOR",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK)",
        '\u{FFA0}' => "HALFWIDTH HANGUL FILLER",
        '\u{FFF9}' => "INTERLINEAR ANNOTATION ANCHOR",
        '\u{FFFA}' => "INTERLINEAR ANNOTATION SEPARATOR",
        '\u{FFFB}' => "INTERLINEAR ANNOTATION TERMINATOR",
        '\u{1D173}'..='\u{1D17A}' => "MUSICAL SYMBOL FORMAT CHARACTER",
        '\u{E0001}' | '\u{E0020}'..='\u{E007F}' => "TAG CHARACTER",
        '\u{E0100}'..='\u{E01EF}' => "VARIATION SELECTOR",
        _ => return None,
    })
}

/// The name of a space that is not an ASCII blank.
fn unusual_space(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{00A0}' => "NO-BREAK SPACE",
        '\u{1680}' => "OGHAM SPACE MARK",
        '\u{2000}' => "EN QUAD",
        '\u{2001}' => "EM QUAD",
        '\u{2002}' => "EN SPACE",
        '\u{2003}' => "EM SPACE",
        '\u{2004}' => "THREE-PER-EM SPACE",
        '\u{2005}' => "FOUR-PER-EM SPACE",
        '\u{2006}' => "SIX-PER-EM SPACE",
        '\u{2007}' => "FIGURE SPACE",
        '\u{2008}' => "PUNCTUATION SPACE",
        '\u{2009}' => "THIN SPACE",
        '\u{200A}' => "HAIR SPACE",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{202F}' => "NARROW NO-BREAK SPACE",
        '\u{205F}' => "MEDIUM MATHEMATICAL SPACE",
        '\u{3000}' => "IDEOGRAPHIC SPACE",
        _ => return None,
    })
}

/// `U+200B ZERO WIDTH SPACE`: a character's code point, and its name when
/// it is one a reader cannot see.
fn describe_char(c: char) -> String {
    match invisible(c).or_else(|| unusual_space(c)) {
        Some(name) => format!("U+{:04X} {name}", c as u32),
        None => format!("U+{:04X}", c as u32),
    }
}

/// The blank-separated word of `text` around byte `i`, without its
/// invisible characters (what a reader sees there).
fn visible_word(text: &str, i: usize) -> String {
    let start = text[..i].rfind([' ', '\t']).map_or(0, |s| s + 1);
    let end = text[i..].find([' ', '\t']).map_or(text.len(), |e| i + e);
    text[start..end]
        .chars()
        .filter(|&c| invisible(c).is_none())
        .collect()
}

/// A hex address in one spelling: `0x` and lowercase digits without
/// leading zeros (`0xA`, `0xa` and `0x0a` are `0xa`; `0x00` is `0x0`).
/// Any other variable is kept as written.
pub fn canonical_var(var: &str) -> std::borrow::Cow<'_, str> {
    let Some(digits) = var.strip_prefix("0x") else {
        return std::borrow::Cow::Borrowed(var);
    };
    let trimmed = digits.trim_start_matches('0');
    let canonical = !trimmed.is_empty()
        && trimmed.len() == digits.len()
        && !digits.bytes().any(|b| b.is_ascii_uppercase());
    if canonical {
        return std::borrow::Cow::Borrowed(var);
    }
    let mut out = String::with_capacity(2 + trimmed.len().max(1));
    out.push_str("0x");
    if trimmed.is_empty() {
        out.push('0');
    } else {
        out.extend(trimmed.chars().map(|c| c.to_ascii_lowercase()));
    }
    std::borrow::Cow::Owned(out)
}

/// Writes histories in the canonical `.hist` form; `parse_hist` of the result
/// gives back the same histories (positions aside).
pub fn write_hist(histories: &[RawHistory]) -> String {
    let mut out = String::new();
    for (i, h) in histories.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        write_history(&mut out, h).expect("writing to a String cannot fail");
    }
    out
}

/// Writes one history (without separator) in canonical form.
fn write_history(out: &mut String, h: &RawHistory) -> std::fmt::Result {
    if let Some(name) = &h.name {
        writeln!(out, "@name {name}")?;
    }
    if !h.expect.is_empty() {
        out.push_str("@expect");
        for (model, yes, _) in &h.expect {
            write!(out, " {model}={}", if *yes { "yes" } else { "no" })?;
        }
        out.push('\n');
    }
    if !h.finals.is_empty() {
        out.push_str("@final");
        for (var, val, _) in &h.finals {
            write!(out, " {var}={val}")?;
        }
        out.push('\n');
    }
    for (key, val, _) in &h.meta {
        if val.is_empty() {
            writeln!(out, "@{key}")?;
        } else {
            writeln!(out, "@{key} {val}")?;
        }
    }
    for t in &h.threads {
        write!(out, "{}:", t.name)?;
        for op in &t.ops {
            out.push(' ');
            write_op(out, op)?;
        }
        out.push('\n');
    }
    Ok(())
}

/// Writes one operation token, e.g. `U(x,1,2)@10-20`.
fn write_op(out: &mut String, op: &RawOp) -> std::fmt::Result {
    let a = op.ann.suffix();
    match &op.kind {
        RawOpKind::Read { var, value } => write!(out, "R{a}({var},{value})")?,
        RawOpKind::Write { var, value } => write!(out, "W{a}({var},{value})")?,
        RawOpKind::Rmw { var, old, new } => write!(out, "U{a}({var},{old},{new})")?,
        RawOpKind::Fence => write!(out, "F{a}")?,
    }
    if let Some((issue, complete)) = op.ticks {
        write!(out, "@{issue}-{complete}")?;
    }
    Ok(())
}

/// Saturating conversion of a line or column number.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------
// Line parsers. Every parser works on a slice of the current line; an error
// carries the slice where it happened (its column) and a message.

/// A parse error inside one line: where (`at`, a suffix of the line's text)
/// and what (`msg`, `None` for nom's own errors before they are explained).
#[derive(Debug)]
struct LineErr<'a> {
    at: &'a str,
    msg: Option<String>,
}

impl<'a> nom::error::ParseError<&'a str> for LineErr<'a> {
    fn from_error_kind(input: &'a str, _: nom::error::ErrorKind) -> Self {
        LineErr {
            at: input,
            msg: None,
        }
    }

    fn append(_: &'a str, _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a str, T, LineErr<'a>>;

/// An operation's optional `(issue, complete)` ticks.
type Ticks = Option<(u64, u64)>;

/// A fatal error at `at` with message `msg`.
fn fail<T>(at: &str, msg: String) -> Res<'_, T> {
    Err(Err::Failure(LineErr { at, msg: Some(msg) }))
}

/// Runs `parser`; if it fails without a message, fails fatally at the start of
/// its input with "expected {what}, found ...".
fn expect<'a, O, P>(what: &'static str, mut parser: P) -> impl FnMut(&'a str) -> Res<'a, O>
where
    P: Parser<&'a str, O, LineErr<'a>>,
{
    move |input: &'a str| match parser.parse(input) {
        Err(Err::Error(LineErr { msg: None, .. })) => {
            fail(input, format!("expected {what}, found {}", found(input)))
        }
        Err(Err::Error(e)) => Err(Err::Failure(e)),
        other => other,
    }
}

/// Describes what stands at `input` for an error message: the word there, or
/// its first character, or "end of line".
fn found(input: &str) -> String {
    if let Some(c) = input.chars().next().filter(|c| !c.is_ascii()) {
        return match invisible(c).or_else(|| unusual_space(c)) {
            Some(_) => describe_char(c),
            None => format!("`{c}` ({})", describe_char(c)),
        };
    }
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let word = match input.char_indices().find(|&(_, c)| !word_char(c)) {
        Some((0, c)) => &input[..c.len_utf8()],
        Some((end, _)) => &input[..end],
        None => input,
    };
    if word.is_empty() {
        "end of line".to_owned()
    } else if word.starts_with(char::is_whitespace) {
        "whitespace".to_owned()
    } else {
        format!("`{}`", shorten(word))
    }
}

/// Cuts `s` to at most 24 characters for an error message.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(24) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_owned(),
    }
}

/// Whitespace or the end of the line: what ends a token.
fn gap(input: &str) -> Res<'_, &str> {
    alt((eof, space1))(input)
}

/// An identifier `[A-Za-z_][A-Za-z0-9_]*` (variables, models).
fn ident(input: &str) -> Res<'_, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))(input)
}

/// A thread name or `@` key: `[A-Za-z_][A-Za-z0-9_.-]*`.
fn name(input: &str) -> Res<'_, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || "_.-".contains(c)),
    ))(input)
}

/// Whether `s` is a thread name or an `@` key (`[A-Za-z_][A-Za-z0-9_.-]*`).
pub(crate) fn is_name(s: &str) -> bool {
    matches!(name(s), Ok(("", _)))
}

/// A variable: a hex address `0x1f40` (see [`canonical_var`]) or an identifier.
fn var_text(input: &str) -> Res<'_, &str> {
    alt((recognize(pair(tag("0x"), hex_digit1)), ident))(input)
}

/// A variable as an operation's first argument.
fn var(input: &str) -> Res<'_, &str> {
    expect("a variable (identifier or 0x hex address)", var_text)(input)
}

/// Converts `digits` in `radix`; `text` (starting at the number) names it on overflow.
fn to_u64<'a>(text: &'a str, digits: &str, radix: u32, rest: &'a str) -> Res<'a, u64> {
    match u64::from_str_radix(digits, radix) {
        Ok(v) => Ok((rest, v)),
        Err(_) => fail(
            text,
            format!(
                "number `{}` does not fit in 64 bits",
                shorten(&text[..text.offset(rest)])
            ),
        ),
    }
}

/// A value: u64 decimal or `0x` hex.
fn number(input: &str) -> Res<'_, u64> {
    let (rest, (digits, radix)) = expect(
        "a value (decimal or 0x hex)",
        alt((
            map(
                preceded(tag("0x"), expect("hex digits after `0x`", hex_digit1)),
                |d| (d, 16),
            ),
            map(digit1, |d| (d, 10)),
        )),
    )(input)?;
    to_u64(input, digits, radix, rest)
}

/// A tick: u64 decimal.
fn tick(what: &'static str) -> impl FnMut(&str) -> Res<'_, u64> {
    move |input| {
        let (rest, digits) = expect(what, digit1)(input)?;
        to_u64(input, digits, 10, rest)
    }
}

/// An optional timing suffix `@ISSUE-COMPLETE`, with ISSUE <= COMPLETE.
fn timing(input: &str) -> Res<'_, Ticks> {
    let (rest, ticks) = opt(preceded(
        char('@'),
        pair(
            tick("an issue tick (decimal) after `@`"),
            preceded(
                expect("`-` between issue and completion ticks", char('-')),
                tick("a completion tick (decimal) after `-`"),
            ),
        ),
    ))(input)?;
    match ticks {
        Some((issue, complete)) if issue > complete => fail(
            input,
            format!(
                "operation completes before it is issued: @{issue}-{complete} \
                 (expected issue tick <= completion tick)"
            ),
        ),
        _ => Ok((rest, ticks)),
    }
}

/// `,` between arguments, with optional spaces before the next one.
fn comma<'a>(what: &'static str) -> impl FnMut(&'a str) -> Res<'a, ()> {
    map(pair(expect(what, char(',')), space0), |_| ())
}

/// `)` closing an operation's arguments.
fn close<'a>(what: &'static str) -> impl FnMut(&'a str) -> Res<'a, char> {
    expect(what, char(')'))
}

/// The arguments of `W(`/`R(` after the `(`: `var,value)`.
fn var_value<'a>(close_what: &'static str) -> impl FnMut(&'a str) -> Res<'a, (String, u64)> {
    map(
        tuple((
            preceded(space0, var),
            preceded(space0, comma("`,` after the variable")),
            terminated(number, space0),
            close(close_what),
        )),
        |(v, _, n, _)| (canonical_var(v).into_owned(), n),
    )
}

/// The annotation after an operation's letter (`.acq`, `.rel`, `.ld`, ...),
/// checked against what that letter takes: a misplaced one (a release on a
/// read, `.ld` on a write) is an error at its dot.
fn annotation(letter: char) -> impl FnMut(&str) -> Res<'_, Ann> {
    move |input: &str| {
        let Some(after) = input.strip_prefix('.') else {
            return Ok((input, Ann::None));
        };
        let takes = match letter {
            'R' => "`.acq` (LDAR) or `.acqpc` (LDAPR)",
            'W' => "`.rel` (STLR)",
            'U' => "`.acq`, `.rel` or `.acqrel`",
            _ => "`.ld` (DMB ISHLD) or `.st` (DMB ISHST)",
        };
        let Ok((rest, word)) = ident(after) else {
            return fail(
                after,
                format!("expected an annotation after `{letter}.`: {letter} takes {takes}"),
            );
        };
        let ann = match word {
            "acq" => Ann::Acq,
            "acqpc" => Ann::AcqPc,
            "rel" => Ann::Rel,
            "acqrel" => Ann::AcqRel,
            "ld" => Ann::Ld,
            "st" => Ann::St,
            _ => {
                return fail(
                    input,
                    format!(
                        "unknown annotation `.{}`: {letter} takes {takes}",
                        shorten(word)
                    ),
                )
            }
        };
        let fits = match letter {
            'R' => matches!(ann, Ann::Acq | Ann::AcqPc),
            'W' => ann == Ann::Rel,
            'U' => matches!(ann, Ann::Acq | Ann::Rel | Ann::AcqRel),
            _ => ann.partial_fence(),
        };
        if !fits {
            let what = match ann {
                Ann::Acq | Ann::AcqPc => "an acquire annotates a read",
                Ann::Rel => "a release annotates a write",
                Ann::AcqRel => "`.acqrel` annotates a read-modify-write `U`",
                _ => "a fence kind annotates a fence `F`",
            };
            return fail(
                input,
                format!("`{letter}{}`: {what}; {letter} takes {takes}", ann.suffix()),
            );
        }
        Ok((rest, ann))
    }
}

/// One operation token with its annotation and timing; returns its start
/// (for the position).
fn op(input: &str) -> Res<'_, (&str, RawOpKind, Ann, Ticks)> {
    let kind = alt((
        map(
            tuple((
                char('W'),
                annotation('W'),
                char('('),
                var_value("`)` to close `W(var,value`"),
            )),
            |(_, ann, _, (var, value))| (RawOpKind::Write { var, value }, ann),
        ),
        map(
            tuple((
                char('R'),
                annotation('R'),
                char('('),
                var_value("`)` to close `R(var,value`"),
            )),
            |(_, ann, _, (var, value))| (RawOpKind::Read { var, value }, ann),
        ),
        map(
            tuple((
                char('U'),
                annotation('U'),
                char('('),
                tuple((
                    preceded(space0, var),
                    preceded(space0, comma("`,` after the variable")),
                    terminated(number, space0),
                    comma("`,` and the new value of `U(var,old,new)`"),
                    terminated(number, space0),
                    close("`)` to close `U(var,old,new`"),
                )),
            )),
            |(_, ann, _, (v, _, old, _, new, _))| {
                (
                    RawOpKind::Rmw {
                        var: canonical_var(v).into_owned(),
                        old,
                        new,
                    },
                    ann,
                )
            },
        ),
        map(
            terminated(pair(char('F'), annotation('F')), peek(alt((gap, tag("@"))))),
            |(_, ann)| (RawOpKind::Fence, ann),
        ),
    ));
    let (rest, ((kind, ann), ticks)) = match pair(kind, timing)(input) {
        Err(Err::Error(LineErr { msg: None, .. }))
            if !input.starts_with(|c: char| c.is_ascii()) =>
        {
            return fail(
                input,
                format!("expected an operation, found {}", found(input)),
            );
        }
        Err(Err::Error(LineErr { msg: None, .. })) => {
            let token = input
                .find(char::is_whitespace)
                .map_or(input, |end| &input[..end]);
            let token = token.find('(').map_or(token, |i| &token[..=i]);
            return fail(
                input,
                format!(
                    "unknown operation `{}`: expected W(var,value), R(var,value), \
                     U(var,old,new) or F (with an annotation: R.acq(var,value), F.ld, ...)",
                    shorten(token)
                ),
            );
        }
        other => other?,
    };
    Ok((rest, (input, kind, ann, ticks)))
}

/// Parses a thread line `name: op op ...` into `hist`.
fn thread_line<'a>(line: &'a str, hist: &mut RawHistory, at: &impl Fn(&str) -> Pos) -> Res<'a, ()> {
    let Ok((rest, name)) = terminated(name, pair(space0, char(':')))(line) else {
        return fail(
            line,
            format!(
                "expected a thread line `name: op op ...`, an `@key value` line \
                 or `---`, found `{}`",
                shorten(line)
            ),
        );
    };
    let (rest, ops) = terminated(
        preceded(
            space0,
            alt((map(eof, |_| Vec::new()), separated_list1(space1, op))),
        ),
        expect("whitespace or end of line after an operation", eof),
    )(rest)?;
    hist.threads.push(RawThread {
        name: name.to_owned(),
        pos: at(name),
        ops: ops
            .into_iter()
            .map(|(start, kind, ann, ticks)| RawOp {
                kind,
                ann,
                ticks,
                pos: at(start),
            })
            .collect(),
    });
    Ok((rest, ()))
}

/// Why two directives of one history cannot both hold; the usual cause.
const ONE_HISTORY: &str = "(a `---` missing between two histories?)";

/// Parses an `@key value` line into the history being read. A directive
/// that contradicts an earlier one of the same history is an error at the
/// later one, naming the first: a second `@name`, a second `@expect` entry
/// for one model or `@final` entry for one variable (with the same value or
/// another), a second `@KEY` for a key of [`SINGLE_KEYS`].
fn directive_line<'a>(
    line: &'a str,
    building: &mut Building,
    at: &impl Fn(&str) -> Pos,
) -> Res<'a, ()> {
    let hist = &mut building.hist;
    let (rest, key) = preceded(char('@'), expect("a key after `@`", name))(line)?;
    let Ok((rest, _)) = gap(rest) else {
        return fail(
            rest,
            format!("expected whitespace after `@{key}`, found {}", found(rest)),
        );
    };
    match key {
        "name" => {
            if rest.is_empty() {
                return fail(rest, "expected a history name after `@name`".to_owned());
            }
            if let Some(first) = &hist.name {
                return fail(
                    line,
                    format!(
                        "second `@name` in one history: `{}` here, `{}` before {ONE_HISTORY}",
                        shorten(rest),
                        shorten(first)
                    ),
                );
            }
            hist.name = Some(rest.to_owned());
        }
        "expect" => {
            let entry = pair(
                expect("an entry `model=yes|no`", ident),
                preceded(
                    expect("`=` after the model", char('=')),
                    take_till(char::is_whitespace),
                ),
            );
            let (_, entries) = terminated(separated_list1(space1, entry), eof)(rest)?;
            for (model, verdict) in entries {
                let yes = match verdict {
                    "yes" => true,
                    "no" => false,
                    _ => {
                        return fail(
                            verdict,
                            format!(
                                "expected `yes` or `no` after `{model}=`, found {}",
                                if verdict.is_empty() {
                                    "end of entry".to_owned()
                                } else {
                                    format!("`{}`", shorten(verdict))
                                }
                            ),
                        )
                    }
                };
                let word = |y: bool| if y { "yes" } else { "no" };
                if let Some((_, first, p)) = hist.expect.iter().find(|(m, _, _)| m == model) {
                    return fail(
                        model,
                        format!(
                            "second `@expect` entry for `{model}` in one history: {model}={} here, \
                             {model}={} at {p}{} {ONE_HISTORY}",
                            word(yes),
                            word(*first),
                            if *first == yes { " (the same verdict twice)" } else { "" }
                        ),
                    );
                }
                hist.expect.push((model.to_owned(), yes, at(model)));
            }
        }
        "final" => {
            let entry = pair(
                expect("an entry `var=value`", var_text),
                preceded(expect("`=` after the variable", char('=')), number),
            );
            let (_, entries) = terminated(
                separated_list1(space1, entry),
                expect("whitespace or end of line after a value", eof),
            )(rest)?;
            for (var, val) in entries {
                let canonical = canonical_var(var);
                if let Some(&i) = building.finals.get(canonical.as_ref()) {
                    let (_, first, p) = &hist.finals[i];
                    return fail(
                        var,
                        format!(
                            "second `@final` entry for `{canonical}` in one history: {val} here, \
                             {first} at {p}{} {ONE_HISTORY}",
                            if *first == val {
                                " (the same value twice)"
                            } else {
                                ""
                            }
                        ),
                    );
                }
                building
                    .finals
                    .insert(canonical.clone().into_owned(), hist.finals.len());
                hist.finals.push((canonical.into_owned(), val, at(var)));
            }
        }
        _ => {
            if SINGLE_KEYS.contains(&key) {
                if let Some((_, first, p)) = hist.meta.iter().find(|(k, _, _)| k == key) {
                    return fail(
                        line,
                        format!(
                            "second `@{key}` in one history: `{}` here, `{}` at {p} {ONE_HISTORY}",
                            shorten(rest),
                            shorten(first)
                        ),
                    );
                }
            }
            hist.meta.push((key.to_owned(), rest.to_owned(), at(line)))
        }
    }
    Ok(("", ()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const LITMUS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/papers-and-litmus.hist"
    );

    /// A file using every feature of the format.
    pub(crate) const RICH: &str = "# leading comment\n\
        \n\
        \x20 @name sb   # c\n\
        @expect sc=no  tso=yes\n\
        @final x=2 0x10=0x20\n\
        @source paper fig. 1   # trailing\n\
        t0: W(x,1) R(y,0)\n\
        \x20 cpu3 : F@1-2   U( 0x1f , 1 , 0x2 )\n\
        t2:\n\
        ---  # separator\n\
        \n\
        port_1.a-b: W(0xAbC,18446744073709551615)@0-0 R(_v9,0xffffffffffffffff)\n\
        ---\n";

    fn p(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    /// Parses `src`, which must fail; returns `(line, col, message)`.
    fn err(src: &str) -> (u32, u32, String) {
        err_bytes(src.as_bytes())
    }

    fn err_bytes(src: &[u8]) -> (u32, u32, String) {
        match parse_hist(src) {
            Ok(h) => panic!("expected an error, parsed {h:?}"),
            Err(e) => (e.pos.line, e.pos.col, e.msg),
        }
    }

    /// Asserts that `src` fails at `line:col` with a message containing `msg`.
    #[track_caller]
    fn assert_err(src: &str, line: u32, col: u32, msg: &str) {
        let (l, c, m) = err(src);
        assert_eq!((l, c), (line, col), "position for {src:?} (message: {m})");
        assert!(m.contains(msg), "message for {src:?}: {m:?} lacks {msg:?}");
    }

    /// Asserts `parse_hist(write_hist(hs)) == hs`, positions aside.
    #[track_caller]
    pub(crate) fn assert_round_trip(hs: &[RawHistory]) {
        let text = write_hist(hs);
        let back = parse_hist(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let strip = |v: &[RawHistory]| {
            v.iter()
                .map(RawHistory::without_positions)
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&back), strip(hs), "{text}");
    }

    fn w(var: &str, value: u64) -> RawOpKind {
        RawOpKind::Write {
            var: var.into(),
            value,
        }
    }

    fn r(var: &str, value: u64) -> RawOpKind {
        RawOpKind::Read {
            var: var.into(),
            value,
        }
    }

    fn kinds(t: &RawThread) -> Vec<RawOpKind> {
        t.ops.iter().map(|o| o.kind.clone()).collect()
    }

    #[test]
    fn format_md_example() {
        let src = "# comment to end of line\n\
            @name  sb                       # optional metadata: @key value\n\
            @expect sc=no tso=yes cc=yes    # expected verdicts, model=yes|no\n\
            t0: W(x,1) R(y,0)\n\
            t1: W(y,1) R(x,0)\n\
            ---                             # separates histories in one file\n\
            @name  mp\n\
            t0: W(x,1) W(y,1)\n\
            t1: R(y,1) R(x,0)\n";
        let hs = parse_hist(src.as_bytes()).unwrap();
        assert_eq!(hs.len(), 2);
        let sb = &hs[0];
        assert_eq!(sb.name.as_deref(), Some("sb"));
        assert_eq!(sb.pos, p(2, 1));
        assert_eq!(
            sb.expect,
            vec![
                ("sc".into(), false, p(3, 9)),
                ("tso".into(), true, p(3, 15)),
                ("cc".into(), true, p(3, 23)),
            ]
        );
        assert_eq!(sb.threads.len(), 2);
        assert_eq!(sb.threads[0].name, "t0");
        assert_eq!(kinds(&sb.threads[0]), vec![w("x", 1), r("y", 0)]);
        assert_eq!(kinds(&sb.threads[1]), vec![w("y", 1), r("x", 0)]);
        assert!(sb.finals.is_empty() && sb.meta.is_empty());
        let mp = &hs[1];
        assert_eq!(mp.name.as_deref(), Some("mp"));
        assert_eq!(mp.pos, p(7, 1));
        assert!(mp.expect.is_empty());
        assert_eq!(kinds(&mp.threads[0]), vec![w("x", 1), w("y", 1)]);
        assert_eq!(kinds(&mp.threads[1]), vec![r("y", 1), r("x", 0)]);
        assert_eq!(mp.threads[1].pos, p(9, 1));
        assert_eq!(mp.threads[1].ops[1].pos, p(9, 12));
    }

    #[test]
    fn every_feature_with_positions() {
        let hs = parse_hist(RICH.as_bytes()).unwrap();
        assert_eq!(hs.len(), 2);
        let h = &hs[0];
        assert_eq!(h.pos, p(3, 3));
        assert_eq!(h.name.as_deref(), Some("sb"));
        assert_eq!(
            h.expect,
            vec![
                ("sc".into(), false, p(4, 9)),
                ("tso".into(), true, p(4, 16))
            ]
        );
        assert_eq!(
            h.finals,
            vec![("x".into(), 2, p(5, 8)), ("0x10".into(), 0x20, p(5, 12))]
        );
        assert_eq!(
            h.meta,
            vec![("source".into(), "paper fig. 1".into(), p(6, 1))]
        );
        assert_eq!(h.threads.len(), 3);
        let t0 = &h.threads[0];
        assert_eq!((t0.name.as_str(), t0.pos), ("t0", p(7, 1)));
        assert_eq!(t0.ops[0].pos, p(7, 5));
        assert_eq!(t0.ops[1].pos, p(7, 12));
        assert_eq!(t0.ops[0].ticks, None);
        let cpu3 = &h.threads[1];
        assert_eq!((cpu3.name.as_str(), cpu3.pos), ("cpu3", p(8, 3)));
        assert_eq!(
            cpu3.ops,
            vec![
                RawOp {
                    ann: Ann::None,
                    kind: RawOpKind::Fence,
                    ticks: Some((1, 2)),
                    pos: p(8, 10)
                },
                RawOp {
                    ann: Ann::None,
                    kind: RawOpKind::Rmw {
                        var: "0x1f".into(),
                        old: 1,
                        new: 2
                    },
                    ticks: None,
                    pos: p(8, 18)
                },
            ]
        );
        assert_eq!(h.threads[2].name, "t2");
        assert!(h.threads[2].ops.is_empty());

        let h = &hs[1];
        assert_eq!(h.pos, p(12, 1));
        assert_eq!(h.name, None);
        let t = &h.threads[0];
        assert_eq!(t.name, "port_1.a-b");
        // a hex address in one spelling
        assert_eq!(kinds(t), vec![w("0xabc", u64::MAX), r("_v9", u64::MAX)]);
        assert_eq!(t.ops[0].ticks, Some((0, 0)));
        assert_eq!(t.ops[1].pos, p(12, 47));
    }

    #[test]
    fn blank_comments_separators_and_crlf() {
        assert_eq!(parse_hist(b"").unwrap(), vec![]);
        assert_eq!(parse_hist(b"# only\n\n  \t\n---\n---\n").unwrap(), vec![]);
        // A history without threads is dropped, even with metadata.
        let hs = parse_hist(b"@name a\n---\n@name b\nt0:\n---\n").unwrap();
        assert_eq!(hs.len(), 1);
        assert_eq!(hs[0].name.as_deref(), Some("b"));
        assert_eq!(hs[0].pos, p(3, 1));
        // No final newline, CRLF, tabs.
        let hs = parse_hist(b"t0:\tW(x,1)\r\n\t---\t\r\nt1: R(x,1)@5-5").unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[0].threads[0].ops[0].pos, p(1, 5));
        assert_eq!(hs[1].threads[0].ops[0].ticks, Some((5, 5)));
        // Several @expect / @final lines accumulate; other keys go to meta.
        let hs = parse_hist(
            b"@expect sc=yes\n@expect tso=no\n@final x=1\n@final y=0\n@note\n@k a  b\nt: F\n",
        )
        .unwrap();
        let h = &hs[0];
        assert_eq!(h.expect.len(), 2);
        assert_eq!(h.expect[1], ("tso".into(), false, p(2, 9)));
        assert_eq!(h.finals.len(), 2);
        assert_eq!(
            h.meta,
            vec![
                ("note".into(), String::new(), p(5, 1)),
                ("k".into(), "a  b".into(), p(6, 1))
            ]
        );
        // Duplicate thread names are not a syntax error.
        let hs = parse_hist(b"t0: W(x,1)\nt0: W(x,2)\n").unwrap();
        assert_eq!(hs[0].threads.len(), 2);
    }

    #[test]
    fn operations_and_spacing() {
        let hs = parse_hist(b"t: W( x , 1 ) R(x ,0x1) U(  y,0,  7 )@3-4 F F@1-9\n").unwrap();
        let t = &hs[0].threads[0];
        assert_eq!(
            kinds(t),
            vec![
                w("x", 1),
                r("x", 1),
                RawOpKind::Rmw {
                    var: "y".into(),
                    old: 0,
                    new: 7
                },
                RawOpKind::Fence,
                RawOpKind::Fence,
            ]
        );
        let ticks: Vec<_> = t.ops.iter().map(|o| o.ticks).collect();
        assert_eq!(ticks, vec![None, None, Some((3, 4)), None, Some((1, 9))]);
        let cols: Vec<_> = t.ops.iter().map(|o| o.pos.col).collect();
        assert_eq!(cols, vec![4, 15, 25, 43, 45]);
    }

    #[test]
    fn operation_errors() {
        let pre = "@name a\n";
        let e = |s: &str| format!("{pre}{s}");
        assert_err(
            &e("t0: W(x,1"),
            2,
            10,
            "expected `)` to close `W(var,value`, found end of line",
        );
        assert_err(&e("t0: W(x,1 # c"), 2, 10, "expected `)`");
        assert_err(
            &e("t0: W(x,1,2)"),
            2,
            10,
            "expected `)` to close `W(var,value`, found `,`",
        );
        assert_err(&e("t0: R(x,1"), 2, 10, "`)` to close `R(var,value`");
        assert_err(
            &e("t0: W(x,1) X(x,1)"),
            2,
            12,
            "unknown operation `X(`: expected W(var,value), R(var,value), U(var,old,new) or F",
        );
        assert_err(&e("t0: w(x,1)"), 2, 5, "unknown operation `w(`");
        assert_err(&e("t0: F(x)"), 2, 5, "unknown operation `F(`");
        assert_err(&e("t0: Fx"), 2, 5, "unknown operation `Fx`");
        assert_err(&e("t0: W"), 2, 5, "unknown operation `W`");
        assert_err(
            &e("t0: W(1x,1)"),
            2,
            7,
            "expected a variable (identifier or 0x hex address), found `1x`",
        );
        assert_err(&e("t0: W(,1)"), 2, 7, "expected a variable");
        assert_err(
            &e("t0: W(x 1)"),
            2,
            9,
            "expected `,` after the variable, found `1`",
        );
        assert_err(
            &e("t0: W(x,)"),
            2,
            9,
            "expected a value (decimal or 0x hex), found `)`",
        );
        assert_err(&e("t0: W(x,-1)"), 2, 9, "expected a value");
        assert_err(&e("t0: W(x,0x)"), 2, 11, "expected hex digits after `0x`");
        assert_err(&e("t0: W(x,1a)"), 2, 10, "expected `)`");
        assert_err(
            &e("t0: W(x,18446744073709551616)"),
            2,
            9,
            "number `18446744073709551616` does not fit in 64 bits",
        );
        assert_err(
            &e("t0: W(x,0x10000000000000000)"),
            2,
            9,
            "does not fit in 64 bits",
        );
        assert_err(
            &e("t0: U(x,1)"),
            2,
            10,
            "expected `,` and the new value of `U(var,old,new)`, found `)`",
        );
        assert_err(&e("t0: U(x,1,2"), 2, 12, "`)` to close `U(var,old,new`");
        assert_err(
            &e("t0: W(x,1)R(y,0)"),
            2,
            11,
            "expected whitespace or end of line after an operation, found `R`",
        );
        assert_err(&e("t0: F,"), 2, 5, "unknown operation `F,`");
    }

    #[test]
    fn timing_errors() {
        assert_err(
            "t0: W(x,1)@20-10",
            1,
            11,
            "operation completes before it is issued: @20-10",
        );
        assert_err("t0: F@2-1", 1, 6, "completes before it is issued");
        assert_err(
            "t0: W(x,1)@",
            1,
            12,
            "expected an issue tick (decimal) after `@`, found end of line",
        );
        assert_err(
            "t0: W(x,1)@5",
            1,
            13,
            "expected `-` between issue and completion ticks",
        );
        assert_err(
            "t0: W(x,1)@5-",
            1,
            14,
            "expected a completion tick (decimal) after `-`",
        );
        assert_err("t0: W(x,1)@0x5-6", 1, 13, "expected `-`");
        assert_err(
            "t0: W(x,1)@99999999999999999999-1",
            1,
            12,
            "does not fit in 64 bits",
        );
        assert_err(
            "t0: W(x,1)@1-99999999999999999999",
            1,
            14,
            "does not fit in 64 bits",
        );
        assert_err(
            "t0: W(x,1)@1-2x",
            1,
            15,
            "expected whitespace or end of line after an operation",
        );
    }

    #[test]
    fn line_errors() {
        assert_err("t0: W(x,1)\n  foo bar\n", 2, 3, "expected a thread line `name: op op ...`, an `@key value` line or `---`, found `foo bar`");
        assert_err("t0 W(x,1)", 1, 1, "expected a thread line");
        assert_err("---x", 1, 1, "found `---x`");
        assert_err("- --", 1, 1, "expected a thread line");
        assert_err("0t: W(x,1)", 1, 1, "expected a thread line");
        assert_err("t0: W(x,1)\r\nt1: W(x,1\r\n", 2, 10, "expected `)`");
        let (l, c, m) = err_bytes(b"t0: W(x,1)\nt1: W(\xff,1)\n");
        assert_eq!((l, c), (2, 7));
        assert!(m.contains("invalid utf-8"), "{m}");
        // Not UTF-8 even inside a comment is an error of that line.
        let (l, c, _) = err_bytes(b"\n\n# caf\xe9\n");
        assert_eq!((l, c), (3, 6));
    }

    #[test]
    fn directive_errors() {
        assert_err(
            "@expect sc=maybe",
            1,
            12,
            "expected `yes` or `no` after `sc=`, found `maybe`",
        );
        assert_err(
            "@expect sc=yes tso=",
            1,
            20,
            "expected `yes` or `no` after `tso=`, found end of entry",
        );
        assert_err("@expect sc=Yes", 1, 12, "found `Yes`");
        assert_err(
            "@expect sc",
            1,
            11,
            "expected `=` after the model, found end of line",
        );
        assert_err(
            "@expect 1=yes",
            1,
            9,
            "expected an entry `model=yes|no`, found `1`",
        );
        assert_err(
            "@expect",
            1,
            8,
            "expected an entry `model=yes|no`, found end of line",
        );
        assert_err(
            "@final x=",
            1,
            10,
            "expected a value (decimal or 0x hex), found end of line",
        );
        assert_err(
            "@final x 2",
            1,
            9,
            "expected `=` after the variable, found whitespace",
        );
        assert_err(
            "@final x=2y",
            1,
            11,
            "expected whitespace or end of line after a value, found `y`",
        );
        assert_err("@final =2", 1, 8, "expected an entry `var=value`");
        assert_err(
            "@final x=99999999999999999999",
            1,
            10,
            "does not fit in 64 bits",
        );
        assert_err("@name", 1, 6, "expected a history name after `@name`");
        assert_err("@name a\n@name b\n", 2, 1, "second `@name` in one history");
        assert_err("@ x", 1, 2, "expected a key after `@`, found whitespace");
        assert_err("@1", 1, 2, "expected a key after `@`, found `1`");
        assert_err(
            "@name=foo",
            1,
            6,
            "expected whitespace after `@name`, found `=`",
        );
        // A second @name in the next history is fine.
        assert_eq!(
            parse_hist(b"@name a\nt:\n---\n@name b\nt:\n")
                .unwrap()
                .len(),
            2
        );
    }

    /// Hex addresses are numbers (docs/hist-format.md, *Operations*), so
    /// `0xA`, `0xa` and `0x0a` are one variable, spelt `0xa`; each operation
    /// keeps its own position.
    #[test]
    fn hex_addresses_in_one_spelling() {
        let hs =
            parse_hist(b"t0: W(0xA,1) R(0x0a,1) U(0x000A,1,2)\nt1: R(0xa,2) W(0x00,3) W(x0A,1)\n")
                .unwrap();
        let t0 = &hs[0].threads[0];
        assert_eq!(
            kinds(t0),
            vec![
                w("0xa", 1),
                r("0xa", 1),
                RawOpKind::Rmw {
                    var: "0xa".into(),
                    old: 1,
                    new: 2
                }
            ]
        );
        let cols: Vec<_> = t0.ops.iter().map(|o| o.pos).collect();
        assert_eq!(cols, vec![p(1, 5), p(1, 14), p(1, 24)]);
        // zero is `0x0`; an identifier is kept as written
        assert_eq!(
            kinds(&hs[0].threads[1]),
            vec![r("0xa", 2), w("0x0", 3), w("x0A", 1)]
        );
        let hs = parse_hist(b"@final 0x0A=2 0X1=1\nt0: W(0xa,2)\n");
        assert!(hs.is_err(), "`0X1` is no variable");
        let hs = parse_hist(b"@final 0x0A=2 0xFF=1\nt0: W(0xa,2)\n").unwrap();
        assert_eq!(
            hs[0].finals,
            vec![("0xa".into(), 2, p(1, 8)), ("0xff".into(), 1, p(1, 15))]
        );
        assert_eq!(canonical_var("0x1f40"), "0x1f40");
        assert_eq!(canonical_var("0x00001F40"), "0x1f40");
        assert_eq!(canonical_var("x"), "x");
        assert_round_trip(&hs);
    }

    /// Directives that contradict each other in one history are errors
    /// (docs/hist-format.md, *Errors*) at the second, naming the first — also when they repeat the
    /// same verdict or value (two histories run together read the same).
    #[test]
    fn conflicting_directives() {
        assert_err(
            "@expect sc=no\n@expect sc=yes\nt0: F\n",
            2,
            9,
            "second `@expect` entry for `sc` in one history: sc=yes here, sc=no at 1:9",
        );
        assert_err(
            "@expect sc=no tso=yes sc=no\nt0: F\n",
            1,
            23,
            "sc=no here, sc=no at 1:9 (the same verdict twice) (a `---` missing",
        );
        assert_err(
            "@final x=1\nt0: W(x,1) W(x,2)\n@final x=2\n",
            3,
            8,
            "second `@final` entry for `x` in one history: 2 here, 1 at 1:8",
        );
        assert_err(
            "@final 0xA=1 0x0a=1\nt0: W(0xa,1)\n",
            1,
            14,
            "second `@final` entry for `0xa` in one history: 1 here, 1 at 1:8 (the same value twice)",
        );
        assert_err(
            "@name a\n@name b\n",
            2,
            1,
            "second `@name` in one history: `b` here, `a` before",
        );
        assert_err(
            "@protocol MI_example\nt0: F\n@protocol MESI_Two_Level\n",
            3,
            1,
            "second `@protocol` in one history: `MESI_Two_Level` here, `MI_example` at 1:1",
        );
        assert_err("@seed 1\n@seed 1\nt0: F\n", 2, 1, "second `@seed`");
        // other keys may repeat; the same model or variable in the next
        // history is fine
        let hs = parse_hist(
            b"@note a\n@note b\n@expect sc=no\n@final x=1\nt0: W(x,1)\n---\n@expect sc=yes\n@final x=2\nt0: W(x,2)\n",
        )
        .unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[0].meta.len(), 2);
        assert_eq!(hs[1].expect, vec![("sc".into(), true, p(7, 9))]);
    }

    /// A byte order mark at the start is skipped (docs/hist-format.md,
    /// *Errors*); an invisible
    /// character anywhere else outside a comment is named where it is.
    #[test]
    fn invisible_characters() {
        let hs = parse_hist("\u{FEFF}@name sb\nt0: W(x,1)\n".as_bytes()).unwrap();
        assert_eq!(hs[0].name.as_deref(), Some("sb"));
        assert_eq!(hs[0].pos, p(1, 1));
        let (l, c, m) = err("\u{FEFF}t0: W(x,1)\nt\u{200B}1: W(y,1)\n");
        assert_eq!((l, c), (2, 2));
        assert_eq!(
            m,
            "invisible character U+200B ZERO WIDTH SPACE at 2:2 (in `t1:`): delete it"
        );
        assert_err(
            "t0: W(x\u{200D},1)\n",
            1,
            8,
            "invisible character U+200D ZERO WIDTH JOINER at 1:8 (in `W(x,1)`)",
        );
        assert_err(
            "@name s\u{202E}b\nt0: F\n",
            1,
            8,
            "U+202E RIGHT-TO-LEFT OVERRIDE at 1:8",
        );
        // a mark that is not at the start of the input (files run together)
        assert_err(
            "t0: F\n---\n\u{FEFF}t1: F\n",
            3,
            1,
            "U+FEFF ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK) at 3:1",
        );
        // inside a comment, anything goes
        assert_eq!(
            parse_hist("t0: F # \u{200B}\n".as_bytes()).unwrap().len(),
            1
        );
        // a space that is not ASCII is named where a blank is expected
        assert_err(
            "t0: W(x,1)\u{00A0}R(x,1)\n",
            1,
            11,
            "expected whitespace or end of line after an operation, found U+00A0 NO-BREAK SPACE",
        );
        assert_err(
            "t0:\u{2003}W(x,1)\n",
            1,
            4,
            "expected an operation, found U+2003 EM SPACE",
        );
        assert_err("t0: W(é,1)\n", 1, 7, "found `é` (U+00E9)");
    }

    /// The streaming reader gives what `parse_hist` gives, through any
    /// buffer size (lines split across reads), and numbers lines from
    /// where it is told.
    #[test]
    fn the_reader_streams_what_parse_hist_parses() {
        let litmus = std::fs::read(LITMUS).unwrap();
        for src in [RICH.as_bytes(), &litmus[..], b"t0: F", b"", b"---\n\n"] {
            let whole = parse_hist(src).unwrap();
            for cap in [1, 3, 64, 1 << 16] {
                let read: Vec<RawHistory> =
                    HistReader::new(std::io::BufReader::with_capacity(cap, src))
                        .collect::<Result<_, _>>()
                        .unwrap();
                assert_eq!(read, whole, "buffer of {cap}");
            }
        }
        // the same error, and nothing after it
        let src = b"t0: F\n---\nt0: W(x,1\n---\nt0: F\n";
        let mut r = HistReader::new(std::io::BufReader::with_capacity(2, &src[..]));
        assert!(r.next().unwrap().is_ok());
        assert_eq!(r.next().unwrap().unwrap_err(), parse_hist(src).unwrap_err());
        assert!(r.next().is_none());
        // numbered as lines of a larger file
        let hs: Vec<_> = HistReader::new(&b"\nt0: W(x,1)\n"[..])
            .first_line(10)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(hs[0].threads[0].ops[0].pos, p(11, 5));
    }

    /// A history larger than the reader's limit is an error where it
    /// passes the limit, before the rest of it is read (a line longer than
    /// the limit is never held whole).
    #[test]
    fn a_history_past_the_limit_is_an_error() {
        let small = "t0: W(x,1)\n---\n";
        let big = format!("@name big\nt0:{}\n", " W(x,1)".repeat(1000));
        let src = format!("{small}{big}---\n{small}");
        let mut r = HistReader::new(src.as_bytes()).limit(200);
        assert!(r.next().unwrap().is_ok());
        let e = r.next().unwrap().unwrap_err();
        assert_eq!(e.pos, p(4, 1));
        assert!(
            e.msg.starts_with(
                "history too large: the history that starts at 3:1 holds more than 200 bytes of text"
            ),
            "{}",
            e.msg
        );
        assert!(r.next().is_none());
        // within the limit: all three
        assert_eq!(HistReader::new(src.as_bytes()).limit(10_000).count(), 3);
    }

    /// Found by `hist_fuzz`: a `\r` before the line's end (`@name sb \r`,
    /// `\r\r\n`) stayed in the name, which `write_hist` wrote as `sb\r\n`
    /// and read back as `sb`.
    #[test]
    fn a_stray_cr_is_a_blank() {
        let src = b"@name sb   \r   # c\r\n@k v\r\r\n\rt0: W(x,1)\r \r\n---\r\r\n";
        let hs = parse_hist(src).unwrap();
        assert_eq!(hs.len(), 1);
        assert_eq!(hs[0].name.as_deref(), Some("sb"));
        assert_eq!(hs[0].meta, [("k".into(), "v".into(), p(2, 1))]);
        assert_eq!(hs[0].threads[0].pos, p(3, 2));
        assert_round_trip(&hs);
        // inside a line, `\r` is no blank
        assert_err("t0: W(x,1)\rR(x,1)\n", 1, 11, "whitespace or end of line");
    }

    #[test]
    fn round_trips() {
        let mut hs = parse_hist(RICH.as_bytes()).unwrap();
        assert_round_trip(&hs);
        let hand = RawHistory {
            name: Some("hand made".into()),
            expect: vec![("wccm".into(), true, Pos::default())],
            finals: vec![("0x1f40".into(), u64::MAX, Pos::default())],
            meta: vec![
                ("empty".into(), String::new(), Pos::default()),
                ("source".into(), "x=1 y".into(), Pos::default()),
            ],
            threads: vec![
                RawThread {
                    name: "cpu0".into(),
                    pos: Pos::default(),
                    ops: vec![
                        RawOp {
                            ann: Ann::None,
                            kind: RawOpKind::Rmw {
                                var: "0x1f40".into(),
                                old: 0,
                                new: 0xdead_beef,
                            },
                            ticks: Some((u64::MAX, u64::MAX)),
                            pos: Pos::default(),
                        },
                        RawOp {
                            ann: Ann::None,
                            kind: RawOpKind::Fence,
                            ticks: None,
                            pos: Pos::default(),
                        },
                    ],
                },
                RawThread {
                    name: "empty".into(),
                    pos: Pos::default(),
                    ops: vec![],
                },
            ],
            pos: Pos::default(),
        };
        hs.push(hand.clone());
        assert_round_trip(&hs);
        assert_round_trip(&[hand]);
        assert_round_trip(&parse_hist(std::fs::read(LITMUS).unwrap().as_slice()).unwrap());
        assert_eq!(write_hist(&[]), "");
    }

    #[test]
    fn canonical_form() {
        let src = "t1: F  U( a ,1, 0x2 )@1-2  # c\n@k  v  \n@final y=0x10\n@expect sc=no\n@name n\n---\nt: W(x,1)\n";
        let text = write_hist(&parse_hist(src.as_bytes()).unwrap());
        assert_eq!(
            text,
            "@name n\n@expect sc=no\n@final y=16\n@k v\nt1: F U(a,1,2)@1-2\n---\nt: W(x,1)\n"
        );
    }

    #[test]
    fn papers_and_litmus_file() {
        let src = std::fs::read(LITMUS).unwrap();
        let hs = parse_hist(&src).unwrap();
        assert_eq!(hs.len(), 36);
        assert_eq!(hs[0].name.as_deref(), Some("gcc_fig1a"));
        assert_eq!(hs[0].threads.len(), 2);
        assert_eq!(hs[0].expect.len(), 9);
        assert!(hs.iter().all(|h| h.name.is_some() && !h.expect.is_empty()));
    }

    #[test]
    fn corrupted_bytes_never_panic() {
        let mut inputs = vec![RICH.as_bytes().to_vec()];
        inputs.push(std::fs::read(LITMUS).unwrap()[..4000].to_vec());
        let replacements = b"()@,-=#:\n\r \tx0F9WRU_\xff\xc3";
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut outcomes = [0usize; 2];
        for input in &inputs {
            for i in 0..input.len() {
                // Every position with a few replacement bytes drawn at random.
                for _ in 0..4 {
                    let b = replacements[rng.below(replacements.len())];
                    let mut bad = input.clone();
                    bad[i] = b;
                    outcomes[parse_hist(&bad).is_ok() as usize] += 1;
                }
                // Deletion of the byte.
                let mut bad = input.clone();
                bad.remove(i);
                if let Err(e) = parse_hist(&bad) {
                    assert!(e.pos.line >= 1 && e.pos.col >= 1);
                }
            }
        }
        assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
    }

    #[test]
    fn large_input() {
        let mut src = String::new();
        for i in 0..2000 {
            src.push_str(&format!("@name h{i}\n"));
            for t in 0..4 {
                src.push_str(&format!("t{t}:"));
                for k in 1..=50 {
                    src.push_str(&format!(" W(x{t},{k})@{k}-{}", k + 1));
                }
                src.push('\n');
            }
            src.push_str("---\n");
        }
        let hs = parse_hist(src.as_bytes()).unwrap();
        assert_eq!(hs.len(), 2000);
        assert_eq!(hs[1999].threads[3].ops.len(), 50);
        assert_eq!(hs[1999].pos.line, 1999 * 6 + 1);
    }
}
