//! The trace format of the axe consistency checker (CTSRD-CHERI/axe,
//! `doc/manual.tex`, "Trace format"):
//!
//! ```text
//! # comment
//! 0: M[1] := 1                # thread 0 stores 1 to location 1
//! 0: sync                     # a memory barrier
//! 0: M[0] == 0                # thread 0 loads 0 from location 0
//! 1: M[1] == 1  @ 100 : 110   # timestamps begin : end (either may be omitted)
//! 1: <M[0] == 0; M[0] := 1>   # atomic read-modify-write, also `{ ... }`
//! final M[1] == 2             # final value constraint
//! 2: v1 == 2                  # `vA` is `M[A]` (axe's own tests write it so)
//! check                       # ends a trace; a file may hold many
//! ```
//!
//! Every trace becomes one [`RawHistory`]: thread `N` becomes thread `tN`,
//! location `A` variable `mA` (hex `0x1f` gives `m0x1f`). As in axe's parser,
//! a location is also written `v` and decimal digits, nothing between: `v3`
//! is `M[3]`, variable `m3`. Timestamps are
//! checked to be numbers, counted in an `axe-timestamps` metadata entry and
//! otherwise dropped: under SC/TSO/PSO they never change program order.
//!
//! The input is read line by line (`\n` or `\r\n`) and every line is parsed
//! over its bytes, so positions are byte offsets into the line: the common
//! forms by hand, any other line (and every error) with nom. Unlike axe
//! itself, one operation must fit on one line. [`AxeTraces`] gives the
//! traces one at a time, [`check_axe`] checks a whole file without building.

use nom::bytes::complete::tag;
use nom::character::complete::{char, digit1, hex_digit1, space0};
use nom::combinator::{eof, opt};
use nom::sequence::preceded;
use nom::{Err, IResult, Offset, Parser};

use crate::fx::FxMap as HashMap;
use crate::hist::{RawHistory, RawOp, RawOpKind, RawThread};
use crate::{ParseError, Pos};

/// Whether `src` looks like an axe trace rather than a .hist file: its first
/// non-blank, non-comment line starts with a decimal thread id followed by
/// `:` and then `M[`, `v` and a digit, `sync`, `<` or `{`, or is `final`
/// then `M[` or `v` and a digit, or `check`.
pub fn looks_like_axe(src: &[u8]) -> bool {
    src.split(|&b| b == b'\n')
        .map(content)
        .find(|line| !line.is_empty())
        .is_some_and(axe_start)
}

/// Parses every trace of an axe file: one [`RawHistory`] per `check` line, in
/// order (an empty trace gives an empty history), plus a last trace not ended
/// by `check` if it has any line. Threads are ordered by first appearance;
/// a thread's position is that of its id on its first line. Syntax errors and
/// malformed RMWs only: meaning is checked by the `memconform` crate.
pub fn parse_axe(src: &[u8]) -> Result<Vec<RawHistory>, ParseError> {
    AxeTraces::new(src).collect()
}

/// The first error [`parse_axe`] would report for `src`, found without
/// building any history ([`axe_trace_starts`] also says where each trace starts).
pub fn check_axe(src: &[u8]) -> Result<(), ParseError> {
    let mut traces = AxeTraces::new(src);
    while traces.advance::<false>()? {}
    Ok(())
}

/// Where a trace of an axe file starts: the byte offset of the line after
/// the previous trace's `check` (or of the file's first line), and how many
/// lines come before it. [`AxeTraces::starting_at`] reads the trace from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceStart {
    pub offset: usize,
    pub lines: usize,
}

/// [`check_axe`], and where each trace [`parse_axe`] would give starts, in
/// order: the traces can then be read apart, on other threads.
pub fn axe_trace_starts(src: &[u8]) -> Result<Vec<TraceStart>, ParseError> {
    axe_trace_starts_between(
        src,
        TraceStart {
            offset: 0,
            lines: 0,
        },
        src.len(),
    )
}

/// The room one [`AxeTraces`] reads into, kept to read more traces.
#[derive(Default)]
pub struct AxeBuffers {
    trace: AxeTrace,
    threads: HashMap<u64, usize>,
    locations: Locations,
}

/// Where `src` may be cut into about `pieces` pieces of whole traces, so
/// that [`axe_trace_starts_between`] can check them apart: each cut is the
/// start of the line after a `check` line, found near `k/pieces` of the
/// bytes without parsing anything else (lines are independent: a trace
/// ends at its `check` line, whatever came before). Ascending, without `0`.
pub fn axe_cuts(src: &[u8], pieces: usize) -> Vec<TraceStart> {
    let mut cuts: Vec<TraceStart> = Vec::new();
    let (mut counted, mut lines) = (0, 0);
    for k in 1..pieces {
        let near = src.len() / pieces * k;
        let from = cuts.last().map_or(0, |c| c.offset).max(near);
        // from the first line starting at or after `from`
        let Some(nl) = src[from..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let mut at = from + nl + 1;
        let cut = loop {
            let Some(len) = src[at..].iter().position(|&b| b == b'\n') else {
                break None;
            };
            let line = &src[at..at + len];
            // as a line split off is read: a last `\r`, then its content
            if content(line.strip_suffix(b"\r").unwrap_or(line)) == b"check" {
                break Some(at + len + 1);
            }
            at += len + 1;
        };
        let Some(cut) = cut else { break };
        lines += src[counted..cut].iter().filter(|&&b| b == b'\n').count();
        counted = cut;
        cuts.push(TraceStart { offset: cut, lines });
    }
    cuts
}

/// [`axe_trace_starts`] of the traces from `from` (`0` or one of
/// [`axe_cuts`]) to `end` (the next cut, or the end of `src`): together, in
/// order, the pieces give the starts of the whole file or its first error.
pub fn axe_trace_starts_between(
    src: &[u8],
    from: TraceStart,
    end: usize,
) -> Result<Vec<TraceStart>, ParseError> {
    let piece = &src[..end];
    let mut traces = AxeTraces::starting_at(piece, from);
    let mut starts = Vec::new();
    loop {
        let start = TraceStart {
            offset: traces.rest.map_or(end, |rest| end - rest.len()),
            lines: traces.lines,
        };
        if !traces.advance::<false>()? {
            return Ok(starts);
        }
        starts.push(start);
    }
}

/// The traces of an axe file one at a time, as [`parse_axe`] gives them
/// (after an error, nothing more): memory holds one trace, not the file.
/// [`AxeTraces::next_trace`] gives each trace as read ([`AxeTrace`]), in
/// buffers reused from one trace to the next.
pub struct AxeTraces<'a> {
    /// The input after the lines read (`None` after the last line), and
    /// how many lines were read.
    rest: Option<&'a [u8]>,
    lines: usize,
    trace: AxeTrace,
    /// Thread id to index in `trace.threads`, past a few threads.
    threads: HashMap<u64, usize>,
    locations: Locations,
    /// Whether common lines are read where they start (off: every line is
    /// split off first, as tests compare).
    in_place: bool,
    /// Set after an error or the end of the input.
    done: bool,
}

impl<'a> AxeTraces<'a> {
    /// The traces of `src`.
    pub fn new(src: &'a [u8]) -> AxeTraces<'a> {
        AxeTraces {
            rest: Some(src),
            lines: 0,
            trace: AxeTrace::default(),
            threads: HashMap::default(),
            locations: Locations::default(),
            in_place: true,
            done: false,
        }
    }

    /// The traces of `src` from `start` on (one of [`axe_trace_starts`]),
    /// positions as in the whole file.
    pub fn starting_at(src: &'a [u8], start: TraceStart) -> AxeTraces<'a> {
        let mut traces = AxeTraces::new(src.get(start.offset..).unwrap_or_default());
        traces.lines = start.lines;
        traces
    }

    /// [`AxeTraces::starting_at`], reading into `buffers` (those of an
    /// earlier [`AxeTraces::into_buffers`]): reading many traces apart then
    /// allocates no more than reading them in turn.
    pub fn starting_at_with(
        src: &'a [u8],
        start: TraceStart,
        buffers: AxeBuffers,
    ) -> AxeTraces<'a> {
        let mut traces = AxeTraces::starting_at(src, start);
        (traces.trace, traces.threads, traces.locations) =
            (buffers.trace, buffers.threads, buffers.locations);
        traces
    }

    /// The buffers this reads into, for [`AxeTraces::starting_at_with`].
    pub fn into_buffers(self) -> AxeBuffers {
        AxeBuffers {
            trace: self.trace,
            threads: self.threads,
            locations: self.locations,
        }
    }

    /// The next trace as read, `None` after the last one or an error.
    pub fn next_trace(&mut self) -> Option<Result<&AxeTrace, ParseError>> {
        if self.done {
            return None;
        }
        match self.advance::<true>() {
            Ok(true) => Some(Ok(&self.trace)),
            Ok(false) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    /// Reads lines up to the end of the next trace into `self.trace`
    /// (without `BUILD`, checks them only): `Ok(false)` at the end of the
    /// input.
    fn advance<const BUILD: bool>(&mut self) -> Result<bool, ParseError> {
        let trace = &mut self.trace;
        trace.clear();
        self.threads.clear();
        self.locations.clear();
        // Whether locations are followed (a location written both in hex and
        // in decimal is an error). When only checking, not until a location
        // is written in hex (before, no two uses can disagree): then the
        // trace is read again from its start, following them.
        let mut follow = BUILD;
        let start = (self.rest, self.lines);
        macro_rules! located {
            ($access:expr, $at:expr) => {{
                let access = $access;
                if follow {
                    self.locations.check(access, $at)?
                } else if access.hex {
                    (self.rest, self.lines) = start;
                    follow = true;
                    trace.clear();
                    continue;
                } else {
                    AxeLoc {
                        addr: access.loc,
                        hex: false,
                    }
                }
            }};
        }
        while let Some(raw) = self.rest {
            self.lines += 1;
            let line_no = to_u32(self.lines);
            let at = |rest: &[u8]| Pos {
                line: line_no,
                col: to_u32(raw.offset(rest) + 1),
            };
            let quick = if self.in_place { quick_raw(raw) } else { None };
            let (parsed, text) = match quick {
                // the common lines, read where they start
                Some((parsed, rest)) => {
                    self.rest = rest;
                    let Some(parsed) = parsed else { continue };
                    (parsed, skip_space(raw))
                }
                // any other: split off, then parsed whole
                None => {
                    let mut lines = Lines(Some(raw));
                    let whole = lines.next().expect("a line");
                    self.rest = lines.0;
                    let whole = whole.strip_suffix(b"\r").unwrap_or(whole);
                    let text = content(whole);
                    if text.is_empty() {
                        continue;
                    }
                    let parsed = match quick_line(text) {
                        Some(parsed) => parsed,
                        None => {
                            line(text)
                                .map_err(|e| match e {
                                    Err::Error(e) | Err::Failure(e) => ParseError {
                                        pos: at(e.at),
                                        msg: e.msg.unwrap_or_else(|| "syntax error".to_owned()),
                                    },
                                    Err::Incomplete(_) => {
                                        unreachable!("complete parsers never ask for more input")
                                    }
                                })?
                                .1
                        }
                    };
                    (parsed, text)
                }
            };
            if !trace.started {
                trace.started = true;
                trace.pos = at(text);
            }
            match parsed {
                Line::Check => return Ok(true),
                Line::Final(access) => {
                    let loc = located!(&access, &at);
                    if BUILD {
                        trace.finals.push((loc, access.value, at(text)));
                    }
                }
                Line::Op {
                    tid,
                    tid_at,
                    op_at,
                    body,
                    stamps,
                } => {
                    let kind = match body {
                        Body::Sync => AxeOpKind::Fence,
                        Body::Access(a) => {
                            let loc = located!(&a, &at);
                            if a.store {
                                AxeOpKind::Write {
                                    loc,
                                    value: a.value,
                                }
                            } else {
                                AxeOpKind::Read {
                                    loc,
                                    value: a.value,
                                }
                            }
                        }
                        Body::Rmw(read, write) => {
                            // `rmw` checked that both parts name the same location.
                            let loc = located!(&read, &at);
                            AxeOpKind::Rmw {
                                loc,
                                old: read.value,
                                new: write.value,
                            }
                        }
                    };
                    if !BUILD {
                        continue;
                    }
                    if let Some((stamp_at, count)) = stamps {
                        trace.stamps += count;
                        trace.stamps_pos.get_or_insert(at(stamp_at));
                    }
                    // few threads: a linear scan; many: through the map
                    let found = if trace.used <= FEW_LOCATIONS {
                        trace.threads().iter().position(|t| t.tid == tid)
                    } else {
                        self.threads.get(&tid).copied()
                    };
                    let index = match found {
                        Some(i) => i,
                        None => {
                            let i = trace.new_thread(tid, at(tid_at));
                            if trace.used == FEW_LOCATIONS + 1 {
                                self.threads.extend(
                                    trace.threads().iter().enumerate().map(|(i, t)| (t.tid, i)),
                                );
                            } else if trace.used > FEW_LOCATIONS + 1 {
                                self.threads.insert(tid, i);
                            }
                            i
                        }
                    };
                    trace.threads[index].ops.push(AxeOp {
                        kind,
                        pos: at(op_at),
                    });
                }
            }
        }
        Ok(trace.started)
    }
}

/// The lines of the input split at `\n`, as `split` gives them (a last
/// empty one after a final `\n`).
struct Lines<'a>(Option<&'a [u8]>);

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    /// The next line, without its `\n`.
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.0?;
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                self.0 = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => self.0.take(),
        }
    }
}

impl Iterator for AxeTraces<'_> {
    type Item = Result<RawHistory, ParseError>;

    /// The next trace as a [`RawHistory`].
    fn next(&mut self) -> Option<Self::Item> {
        self.next_trace().map(|t| t.map(AxeTrace::to_raw))
    }
}

/// One axe trace as read: threads in order of first appearance, each with
/// its operations in order; locations as numbers ([`AxeTrace::to_raw`]
/// names them as the [`RawHistory`] of [`parse_axe`] does).
#[derive(Debug, Default, Clone)]
pub struct AxeTrace {
    /// Position of the trace's first line.
    pub pos: Pos,
    /// The threads; only the first `used` belong to the trace (the others
    /// keep their room for the next one).
    threads: Vec<AxeThread>,
    used: usize,
    /// `final` constraints: location, value, position of the line.
    pub finals: Vec<(AxeLoc, u64, Pos)>,
    /// Timestamps seen (each begin and end time counts one), and where the
    /// first `@` is.
    pub stamps: usize,
    pub stamps_pos: Option<Pos>,
    /// Whether the trace has a line.
    started: bool,
}

/// One thread of a trace: its id, where it first appears, its operations.
#[derive(Debug, Default, Clone)]
pub struct AxeThread {
    pub tid: u64,
    pub pos: Pos,
    pub ops: Vec<AxeOp>,
}

/// One operation and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxeOp {
    pub kind: AxeOpKind,
    pub pos: Pos,
}

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxeOpKind {
    Read {
        loc: AxeLoc,
        value: u64,
    },
    Write {
        loc: AxeLoc,
        value: u64,
    },
    /// `<M[a] == old; M[a] := new>`
    Rmw {
        loc: AxeLoc,
        old: u64,
        new: u64,
    },
    Fence,
}

/// A location: its address, and whether the trace writes it in hex (one
/// trace writes a location one way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AxeLoc {
    pub addr: u64,
    pub hex: bool,
}

impl AxeLoc {
    /// The variable name: `m31`, or `m0x1f` in hex.
    pub fn name(self) -> String {
        if self.hex {
            format!("m{}", shown_loc(true, self.addr))
        } else {
            named('m', self.addr)
        }
    }
}

impl AxeThread {
    /// The thread name: thread `N` is `tN`.
    pub fn name(&self) -> String {
        named('t', self.tid)
    }
}

/// `prefix` and `n` in decimal, e.g. `t12` (as `format!("{prefix}{n}")`).
fn named(prefix: char, n: u64) -> String {
    let mut buf = [0u8; 20];
    let digits = crate::decimal(n, &mut buf);
    let mut name = String::with_capacity(1 + digits.len());
    name.push(prefix);
    name.push_str(std::str::from_utf8(digits).expect("ASCII digits"));
    name
}

impl AxeOpKind {
    /// The location accessed (`None` for a fence).
    pub fn loc(self) -> Option<AxeLoc> {
        match self {
            AxeOpKind::Read { loc, .. }
            | AxeOpKind::Write { loc, .. }
            | AxeOpKind::Rmw { loc, .. } => Some(loc),
            AxeOpKind::Fence => None,
        }
    }
}

impl AxeTrace {
    /// The trace's threads, in order of first appearance.
    pub fn threads(&self) -> &[AxeThread] {
        &self.threads[..self.used]
    }

    /// The trace as the [`RawHistory`] of [`parse_axe`]: thread `N` is
    /// `tN`, location `A` variable `mA`, timestamps counted in an
    /// `axe-timestamps` entry.
    pub fn to_raw(&self) -> RawHistory {
        let raw_kind = |kind: AxeOpKind| match kind {
            AxeOpKind::Read { loc, value } => RawOpKind::Read {
                var: loc.name(),
                value,
            },
            AxeOpKind::Write { loc, value } => RawOpKind::Write {
                var: loc.name(),
                value,
            },
            AxeOpKind::Rmw { loc, old, new } => RawOpKind::Rmw {
                var: loc.name(),
                old,
                new,
            },
            AxeOpKind::Fence => RawOpKind::Fence,
        };
        RawHistory {
            finals: self
                .finals
                .iter()
                .map(|&(loc, value, pos)| (loc.name(), value, pos))
                .collect(),
            meta: self
                .stamps_pos
                .map(|pos| {
                    (
                        "axe-timestamps".to_owned(),
                        format!("{} ignored", self.stamps),
                        pos,
                    )
                })
                .into_iter()
                .collect(),
            threads: self
                .threads()
                .iter()
                .map(|t| RawThread {
                    name: t.name(),
                    pos: t.pos,
                    ops: t
                        .ops
                        .iter()
                        .map(|op| RawOp {
                            kind: raw_kind(op.kind),
                            ann: Default::default(),
                            ticks: None,
                            pos: op.pos,
                        })
                        .collect(),
                })
                .collect(),
            pos: self.pos,
            ..RawHistory::default()
        }
    }

    /// Empties the trace for the next one (its buffers keep their room).
    fn clear(&mut self) {
        for t in &mut self.threads[..self.used] {
            t.ops.clear();
        }
        self.used = 0;
        self.finals.clear();
        self.stamps = 0;
        self.stamps_pos = None;
        self.started = false;
        self.pos = Pos::default();
    }

    /// Adds thread `tid`, first seen at `pos`; returns its index.
    fn new_thread(&mut self, tid: u64, pos: Pos) -> usize {
        if self.used == self.threads.len() {
            self.threads.push(AxeThread::default());
        }
        let t = &mut self.threads[self.used];
        t.tid = tid;
        t.pos = pos;
        self.used += 1;
        self.used - 1
    }
}

/// How each location of a trace was first written: hex or decimal, `vN`
/// or not, where: in order of first use, looked up by a linear scan while
/// there are few, through a map beyond.
#[derive(Default)]
struct Locations {
    first: Vec<(u64, bool, bool, Pos)>,
    index: HashMap<u64, usize>,
}

/// Locations (or threads) a trace may have before they are indexed by a map.
const FEW_LOCATIONS: usize = 16;

impl Locations {
    /// Forgets every location (keeping the room).
    fn clear(&mut self) {
        self.first.clear();
        self.index.clear();
    }

    /// The location of `access` (`v31` is `M[31]`). A location written both
    /// in hex and in decimal in one trace would become two variables, so
    /// that is an error.
    #[inline]
    fn check(&mut self, access: &Access, at: &impl Fn(&[u8]) -> Pos) -> Result<AxeLoc, ParseError> {
        let (hex, value) = (access.hex, access.loc);
        let found = if self.first.len() <= FEW_LOCATIONS {
            self.first.iter().position(|e| e.0 == value)
        } else {
            self.index.get(&value).copied()
        };
        let i = match found {
            Some(i) => i,
            None => {
                self.first.push((value, hex, access.v, at(access.at)));
                let i = self.first.len() - 1;
                if self.first.len() == FEW_LOCATIONS + 1 {
                    self.index
                        .extend(self.first.iter().enumerate().map(|(i, e)| (e.0, i)));
                } else if self.first.len() > FEW_LOCATIONS + 1 {
                    self.index.insert(value, i);
                }
                i
            }
        };
        let (_, first_hex, first_v, first_pos) = self.first[i];
        if first_hex != hex {
            return Err(ParseError {
                pos: at(access.at),
                msg: format!(
                    "location {value} is written `{}` here but `{}` at {first_pos}: \
                     write each location the same way within a trace",
                    access.shown(),
                    shown_access(first_hex, first_v, value),
                ),
            });
        }
        Ok(AxeLoc { addr: value, hex })
    }
}

/// A location in canonical form: `31` or `0x1f`.
fn shown_loc(hex: bool, value: u64) -> String {
    if hex {
        format!("0x{value:x}")
    } else {
        value.to_string()
    }
}

/// Saturating conversion of a line or column number.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The meaningful part of a line: without `\r`, comment and surrounding
/// spaces or tabs; a sub-slice of `raw`.
fn content(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let raw = match raw.iter().position(|&b| b == b'#') {
        Some(hash) => &raw[..hash],
        None => raw,
    };
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = raw.iter().position(|b| !blank(b)).unwrap_or(raw.len());
    let end = raw.iter().rposition(|b| !blank(b)).map_or(start, |i| i + 1);
    &raw[start..end]
}

/// Whether a (non-empty) line starts like an axe line; see [`looks_like_axe`].
fn axe_start(line: &[u8]) -> bool {
    if line == b"check" {
        return true;
    }
    if let Some(rest) = line.strip_prefix(b"final") {
        return starts_location(skip_space(rest));
    }
    let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return false;
    }
    let Some(rest) = skip_space(&line[digits..]).strip_prefix(b":") else {
        return false;
    };
    let rest = skip_space(rest);
    starts_location(rest)
        || rest.starts_with(b"<")
        || rest.starts_with(b"{")
        || rest.strip_prefix(b"sync").is_some_and(at_boundary)
}

/// Whether `input` starts with a location: `M[` or `v` and a digit.
fn starts_location(input: &[u8]) -> bool {
    input.starts_with(b"M[") || v_digits(input).is_some()
}

/// The digits and rest after `v` when `input` starts with `v` and a digit.
fn v_digits(input: &[u8]) -> Option<&[u8]> {
    input
        .strip_prefix(b"v")
        .filter(|rest| rest.first().is_some_and(u8::is_ascii_digit))
}

/// `input` without leading spaces and tabs.
#[inline(always)]
fn skip_space(input: &[u8]) -> &[u8] {
    let n = input
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &input[n..]
}

/// Whether `input` does not continue a word: empty or not `[A-Za-z0-9_]`.
fn at_boundary(input: &[u8]) -> bool {
    input
        .first()
        .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
}

// ---------------------------------------------------------------------------
// Line parsers. Every parser works on a slice of the current line; an error
// carries the slice where it happened (its column) and a message.

/// A parse error inside one line: where (`at`, a suffix of the line) and what
/// (`msg`, `None` for nom's own errors before they are explained).
#[derive(Debug)]
struct LineErr<'a> {
    at: &'a [u8],
    msg: Option<String>,
}

impl<'a> nom::error::ParseError<&'a [u8]> for LineErr<'a> {
    fn from_error_kind(input: &'a [u8], _: nom::error::ErrorKind) -> Self {
        LineErr {
            at: input,
            msg: None,
        }
    }

    fn append(_: &'a [u8], _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a [u8], T, LineErr<'a>>;

/// One non-blank line.
enum Line<'a> {
    Check,
    /// `final M[a] == v` (or `final vA == v`)
    Final(Access<'a>),
    /// `tid: op [@ begin : end]`
    Op {
        tid: u64,
        /// The thread id.
        tid_at: &'a [u8],
        /// The operation's first character.
        op_at: &'a [u8],
        body: Body<'a>,
        /// The `@` and how many times follow it.
        stamps: Option<(&'a [u8], usize)>,
    },
}

/// What an operation line does.
enum Body<'a> {
    Sync,
    Access(Access<'a>),
    /// `<load; store>`
    Rmw(Access<'a>, Access<'a>),
}

/// `M[loc] := value` or `M[loc] == value` (or `vloc` for `M[loc]`).
struct Access<'a> {
    /// The `M[` or `v`.
    at: &'a [u8],
    loc: u64,
    /// Whether the location is written in hex.
    hex: bool,
    /// Whether the location is written `vloc` (always decimal).
    v: bool,
    /// `:=` rather than `==`.
    store: bool,
    /// The `:=` or `==`.
    op_at: &'a [u8],
    value: u64,
}

impl Access<'_> {
    /// `M[loc]` or `vloc` for messages.
    fn shown(&self) -> String {
        shown_access(self.hex, self.v, self.loc)
    }
}

/// A location as written, for messages: `M[31]`, `M[0x1f]` or `v31`.
fn shown_access(hex: bool, v: bool, loc: u64) -> String {
    if v {
        format!("v{loc}")
    } else {
        format!("M[{}]", shown_loc(hex, loc))
    }
}

/// A fatal error at `at` with message `msg`.
fn fail<T>(at: &[u8], msg: String) -> Res<'_, T> {
    Err(Err::Failure(LineErr { at, msg: Some(msg) }))
}

/// Runs `parser`; if it fails without a message, fails fatally at the start of
/// its input with "expected {what}, found ...".
fn expect<'a, O, P>(what: &'static str, mut parser: P) -> impl FnMut(&'a [u8]) -> Res<'a, O>
where
    P: Parser<&'a [u8], O, LineErr<'a>>,
{
    move |input: &'a [u8]| match parser.parse(input) {
        Err(Err::Error(LineErr { msg: None, .. })) => {
            fail(input, format!("expected {what}, found {}", found(input)))
        }
        Err(Err::Error(e)) => Err(Err::Failure(e)),
        other => other,
    }
}

/// Describes what stands at `input` for an error message: the word there, or
/// its first character, or "end of line".
fn found(input: &[u8]) -> String {
    let Some(&first) = input.first() else {
        return "end of line".to_owned();
    };
    if first == b' ' || first == b'\t' {
        return "whitespace".to_owned();
    }
    let word = input
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        .count();
    if word > 0 {
        return format!("`{}`", shorten(&String::from_utf8_lossy(&input[..word])));
    }
    let len = match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    match std::str::from_utf8(&input[..len.min(input.len())]) {
        Ok(c) => format!("`{c}`"),
        Err(_) => format!("byte 0x{first:02x}"),
    }
}

/// Cuts `s` to at most 24 characters for an error message.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(24) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_owned(),
    }
}

/// Converts ASCII `digits` in `radix`; `text` (starting at the number) names
/// it on overflow.
fn to_u64<'a>(text: &'a [u8], digits: &[u8], radix: u32, rest: &'a [u8]) -> Res<'a, u64> {
    let value = digits.iter().try_fold(0u64, |acc, &d| {
        let d = char::from(d).to_digit(radix)?;
        acc.checked_mul(u64::from(radix))?.checked_add(u64::from(d))
    });
    match value {
        Some(v) => Ok((rest, v)),
        None => fail(
            text,
            format!(
                "number `{}` does not fit in 64 bits",
                shorten(&String::from_utf8_lossy(&text[..text.offset(rest)]))
            ),
        ),
    }
}

/// A decimal number; a plain (recoverable) error if there is no digit.
fn digits(input: &[u8]) -> Res<'_, u64> {
    let (rest, digits) = digit1(input)?;
    to_u64(input, digits, 10, rest)
}

/// A decimal number (thread id, time).
fn decimal<'a>(what: &'static str) -> impl FnMut(&'a [u8]) -> Res<'a, u64> {
    expect(what, digits)
}

/// A location or value: decimal or `0x` hex; also says whether it is hex.
fn number(what: &'static str) -> impl FnMut(&[u8]) -> Res<'_, (u64, bool)> {
    move |input| {
        if let Some(hex) = input.strip_prefix(b"0x") {
            let (rest, digits) = expect("hex digits after `0x`", hex_digit1)(hex)?;
            let (rest, v) = to_u64(input, digits, 16, rest)?;
            return Ok((rest, (v, true)));
        }
        let (rest, v) = decimal(what)(input)?;
        Ok((rest, (v, false)))
    }
}

/// `keyword` as a whole word.
fn keyword(word: &'static str) -> impl FnMut(&[u8]) -> Option<&[u8]> {
    move |input| {
        input
            .strip_prefix(word.as_bytes())
            .filter(|rest| at_boundary(rest))
    }
}

/// The common lines without nom: `check`, and `tid: sync` or `tid: loc op
/// value` with `loc` `vA` or `M[A]`, decimal numbers of at most 19 digits,
/// optionally timestamps `@ begin : end`. `None` for any other line, which
/// [`line`] then parses (whenever this one gives a line, [`line`] gives the
/// same).
fn quick_line(input: &[u8]) -> Option<Line<'_>> {
    quick_prefix(input)
        .filter(|(_, rest)| rest.is_empty())
        .map(|(line, _)| line)
}

/// A line of [`quick_line`]'s forms at the start of `input`, and the rest
/// after its last token (the line is the whole input only if the rest is
/// empty).
#[inline(always)]
fn quick_prefix(input: &[u8]) -> Option<(Line<'_>, &[u8])> {
    if let Some(rest) = input.strip_prefix(b"check") {
        return at_boundary(rest).then_some((Line::Check, rest));
    }
    let (tid, rest) = quick_decimal(input)?;
    let op_at = skip_space(skip_space(rest).strip_prefix(b":")?);
    let (body, rest) = if let Some(rest) = op_at.strip_prefix(b"sync") {
        (Body::Sync, rest)
    } else if let Some(rmw) = quick_rmw(op_at) {
        rmw
    } else {
        let (access, rest) = quick_access(op_at)?;
        (Body::Access(access), rest)
    };
    let after = skip_space(rest);
    let (stamps, rest) = match after.first() {
        Some(b'@') => {
            let (count, rest) = quick_stamps(&after[1..])?;
            (Some((after, count)), rest)
        }
        _ => (None, rest),
    };
    let line = Line::Op {
        tid,
        tid_at: input,
        op_at,
        body,
        stamps,
    };
    Some((line, rest))
}

/// A whole line read from its start, without splitting it off first: a
/// line of [`quick_line`]'s forms (`Some`) or a blank or comment line
/// (`None`), with blanks, a comment and `\r` before its `\n` or the end of
/// the input; and the input after its `\n` (`None` at the end of the
/// input). `None` for any other line, which is then split off and parsed
/// as a whole.
#[inline(always)]
fn quick_raw(src: &[u8]) -> Option<(Option<Line<'_>>, Option<&[u8]>)> {
    let start = skip_space(src);
    let (line, rest) = match start.first() {
        None | Some(b'\n' | b'\r' | b'#') => (None, start),
        Some(_) => {
            let (line, rest) = quick_prefix(start)?;
            (Some(line), skip_space(rest))
        }
    };
    let end = match rest.first() {
        None => return Some((line, None)),
        Some(b'\n') => 0,
        Some(b'\r') if rest.get(1) == Some(&b'\n') => 1,
        Some(b'#') => match rest.iter().position(|&b| b == b'\n') {
            Some(end) => end,
            None => return Some((line, None)),
        },
        Some(_) => return None,
    };
    Some((line, Some(&rest[end + 1..])))
}

/// `<load; store>` or `{load; store}` of one location as [`rmw`] reads it,
/// and the rest; `None` for anything else.
#[inline(always)]
fn quick_rmw(input: &[u8]) -> Option<(Body<'_>, &[u8])> {
    let close = match input.first()? {
        b'<' => b">",
        b'{' => b"}",
        _ => return None,
    };
    let (read, rest) = quick_access(skip_space(&input[1..]))?;
    let (write, rest) = quick_access(skip_space(skip_space(rest).strip_prefix(b";")?))?;
    if read.store || !write.store || read.loc != write.loc {
        return None;
    }
    let rest = skip_space(rest).strip_prefix(close)?;
    Some((Body::Rmw(read, write), rest))
}

/// What follows the `@` of timestamps, ` begin : end` with either time
/// omitted, as [`stamps`] reads it: how many times there are, and the rest;
/// `None` for anything else.
#[inline(always)]
fn quick_stamps(input: &[u8]) -> Option<(usize, &[u8])> {
    let (begin, rest) = quick_time(input)?;
    let (end, rest) = quick_time(skip_space(rest).strip_prefix(b":")?)?;
    Some((usize::from(begin) + usize::from(end), rest))
}

/// An optional time after spaces: whether there is one, and the rest.
#[inline(always)]
fn quick_time(input: &[u8]) -> Option<(bool, &[u8])> {
    let input = skip_space(input);
    if input.first().is_some_and(u8::is_ascii_digit) {
        quick_decimal(input).map(|(_, rest)| (true, rest))
    } else {
        Some((false, input))
    }
}

/// `vA op V` or `M[A] op V` with decimal numbers, as [`access`] reads it;
/// `None` for anything else.
#[inline(always)]
fn quick_access(input: &[u8]) -> Option<(Access<'_>, &[u8])> {
    let (loc, v, rest) = match v_digits(input) {
        Some(after_v) => {
            let (loc, rest) = quick_decimal(after_v)?;
            (loc, true, rest)
        }
        None => {
            let rest = skip_space(input.strip_prefix(b"M[")?);
            let (loc, rest) = quick_decimal(rest)?;
            (loc, false, skip_space(rest).strip_prefix(b"]")?)
        }
    };
    let op_at = skip_space(rest);
    let (store, rest) = match op_at.get(..2)? {
        b":=" => (true, &op_at[2..]),
        b"==" => (false, &op_at[2..]),
        _ => return None,
    };
    let (value, rest) = quick_decimal(skip_space(rest))?;
    let access = Access {
        at: input,
        loc,
        hex: false,
        v,
        store,
        op_at,
        value,
    };
    Some((access, rest))
}

/// A decimal number of 1 to 19 digits (it fits in 64 bits) not followed by
/// `x` (then it is hex: `0x`), and the rest.
#[inline(always)]
fn quick_decimal(input: &[u8]) -> Option<(u64, &[u8])> {
    let len = input.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 || len > 19 || input.get(len) == Some(&b'x') {
        return None;
    }
    let value = input[..len]
        .iter()
        .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
    Some((value, &input[len..]))
}

/// One non-blank line without comment or surrounding spaces.
fn line(input: &[u8]) -> Res<'_, Line<'_>> {
    if let Some(rest) = keyword("check")(input) {
        let (rest, _) = preceded(space0, expect("end of line after `check`", eof))(rest)?;
        return Ok((rest, Line::Check));
    }
    if let Some(rest) = input
        .strip_prefix(b"final")
        .filter(|rest| at_boundary(rest) || starts_location(rest))
    {
        let (rest, access) = preceded(space0, access)(rest)?;
        if access.store {
            return fail(
                access.op_at,
                format!(
                    "expected `==` after `{}` in a `final` constraint, found `:=`",
                    access.shown()
                ),
            );
        }
        let (rest, _) = preceded(
            space0,
            expect("end of line after the `final` constraint", eof),
        )(rest)?;
        return Ok((rest, Line::Final(access)));
    }
    if !input.first().is_some_and(u8::is_ascii_digit) {
        return fail(
            input,
            format!(
                "expected a thread id, `final` or `check`, found {}",
                found(input)
            ),
        );
    }
    let (rest, tid) = decimal("a thread id")(input)?;
    let (op_at, _) = preceded(
        space0,
        expect("`:` after the thread id", char(':')).and(space0),
    )(rest)?;
    let (rest, body) = body(op_at)?;
    let (rest, _) = space0(rest)?;
    let (rest, stamps) = stamps(rest)?;
    let (rest, _) = preceded(
        space0,
        expect(
            if stamps.is_some() {
                "end of line after the timestamps"
            } else {
                "timestamps `@ begin : end` or end of line after the operation"
            },
            eof,
        ),
    )(rest)?;
    Ok((
        rest,
        Line::Op {
            tid,
            tid_at: input,
            op_at,
            body,
            stamps,
        },
    ))
}

/// The operation of a thread line.
fn body(input: &[u8]) -> Res<'_, Body<'_>> {
    match input.first() {
        Some(b'<') => rmw(input, ">", "`>` to close `<`"),
        Some(b'{') => rmw(input, "}", "`}` to close `{`"),
        _ if starts_location(input) => {
            let (rest, a) = access(input)?;
            Ok((rest, Body::Access(a)))
        }
        _ => match keyword("sync")(input) {
            Some(rest) => Ok((rest, Body::Sync)),
            None => fail(
                input,
                format!(
                    "expected an operation `M[addr] := value`, `M[addr] == value`, `sync` \
                     or `<M[addr] == old; M[addr] := new>` after the thread id, found {}",
                    found(input)
                ),
            ),
        },
    }
}

/// `<M[a] == old; M[a] := new>` (or with braces) from its opening bracket.
fn rmw<'a>(input: &'a [u8], close: &'static str, close_what: &'static str) -> Res<'a, Body<'a>> {
    let (rest, read) = preceded(space0, access)(&input[1..])?;
    if read.store {
        return fail(
            read.op_at,
            format!(
                "the first part of an RMW must be a load `{} == value`, found `:=`",
                read.shown()
            ),
        );
    }
    let (rest, _) = preceded(
        space0,
        expect("`;` between the load and the store of an RMW", char(';')),
    )(rest)?;
    let (rest, write) = preceded(space0, access)(rest)?;
    if !write.store {
        return fail(
            write.op_at,
            format!(
                "the second part of an RMW must be a store `{} := value`, found `==`",
                write.shown()
            ),
        );
    }
    if (read.loc, read.hex) != (write.loc, write.hex) {
        return fail(
            write.at,
            format!(
                "RMW must read and write the same location: {} and {}",
                read.shown(),
                write.shown()
            ),
        );
    }
    let (rest, _) = preceded(space0, expect(close_what, tag(close)))(rest)?;
    Ok((rest, Body::Rmw(read, write)))
}

/// `M[loc] := value` or `M[loc] == value`; `vloc` (decimal) may stand for
/// `M[loc]`.
fn access(input: &[u8]) -> Res<'_, Access<'_>> {
    let (rest, (loc, hex, v)) = match v_digits(input) {
        Some(after_v) => {
            let (rest, loc) = digits(after_v)?;
            (rest, (loc, false, true))
        }
        None => {
            let (rest, _) = expect("`M[addr]`", tag("M["))(input)?;
            let (rest, (loc, hex)) =
                preceded(space0, number("an address (decimal or 0x hex)"))(rest)?;
            let (rest, _) = preceded(space0, expect("`]` after the address", char(']')))(rest)?;
            (rest, (loc, hex, false))
        }
    };
    let (op_at, _) = space0(rest)?;
    let (rest, store) = if let Some(rest) = op_at.strip_prefix(b":=") {
        (rest, true)
    } else if let Some(rest) = op_at.strip_prefix(b"==") {
        (rest, false)
    } else {
        return fail(
            op_at,
            format!(
                "expected `:=` or `==` after `{}`, found {}",
                shown_access(hex, v, loc),
                found(op_at)
            ),
        );
    };
    let (rest, (value, _)) = preceded(space0, number("a value (decimal or 0x hex)"))(rest)?;
    Ok((
        rest,
        Access {
            at: input,
            loc,
            hex,
            v,
            store,
            op_at,
            value,
        },
    ))
}

/// Optional timestamps `@ begin : end`, either time omitted; returns the `@`
/// and how many times there are.
fn stamps(input: &[u8]) -> Res<'_, Option<(&[u8], usize)>> {
    let Some(rest) = input.strip_prefix(b"@") else {
        return Ok((input, None));
    };
    let (rest, begin) = preceded(space0, opt(digits))(rest)?;
    let (rest, _) = preceded(
        space0,
        expect(
            if begin.is_some() {
                "`:` after the begin time"
            } else {
                "a begin time (decimal) or `:` after `@`"
            },
            char(':'),
        ),
    )(rest)?;
    let (rest, end) = preceded(space0, opt(digits))(rest)?;
    let count = usize::from(begin.is_some()) + usize::from(end.is_some());
    Ok((rest, Some((input, count))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::mutate_each_byte;
    use crate::hist::{parse_hist, write_hist};
    use crate::rng::Rng;

    /// The example of the format summary, every line kind with comments.
    const SUMMARY: &str = "# comment lines start with #\n\
        0: M[1] := 1              # thread 0 stores 1 to location 1\n\
        0: sync                   # thread 0 memory barrier\n\
        0: M[0] == 0              # thread 0 loads 0 from location 0\n\
        1: M[1] == 1    @ 100 : 110   # optional timestamps\n\
        0: <M[0] == 0; M[0] := 1>     # atomic read-modify-write\n\
        1: { M[0] == 0; M[0] := 2 }\n\
        final M[1] == 2           # final value constraint\n\
        check                     # terminates a trace\n";

    /// The four examples of the manual's "Trace format" section, one trace each.
    const MANUAL: &str = "0: M[1] := 1\n0: sync\n0: M[0] == 0\n1: M[0] := 1\n1: M[1] == 0\ncheck\n\
        0: M[0] := 1\n0: sync\n0: M[1] := 1\n1: M[1] == 1    @ 100 : 110\n1: M[0] == 0    @ 115 :\ncheck\n\
        0: <M[0] == 0; M[0] := 1>\n1: M[0] := 2\n1: M[0] == 1\ncheck\n\
        0: M[0] := 1\n0: M[1] := 1\n1: M[1] := 2\n1: M[0] == 0\nfinal M[1] == 2\ncheck\n";

    fn p(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    fn parse(src: &str) -> Vec<RawHistory> {
        parse_axe(src.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{src}"))
    }

    /// Parses `src`, which must fail; returns `(line, col, message)`.
    fn err_bytes(src: &[u8]) -> (u32, u32, String) {
        match parse_axe(src) {
            Ok(h) => panic!("expected an error, parsed {h:?}"),
            Err(e) => (e.pos.line, e.pos.col, e.msg),
        }
    }

    /// Asserts that `src` fails at `line:col` with a message containing `msg`.
    #[track_caller]
    fn assert_err(src: &str, line: u32, col: u32, msg: &str) {
        let (l, c, m) = err_bytes(src.as_bytes());
        assert_eq!((l, c), (line, col), "position for {src:?} (message: {m})");
        assert!(m.contains(msg), "message for {src:?}: {m:?} lacks {msg:?}");
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

    fn u(var: &str, old: u64, new: u64) -> RawOpKind {
        RawOpKind::Rmw {
            var: var.into(),
            old,
            new,
        }
    }

    const F: RawOpKind = RawOpKind::Fence;

    fn kinds(t: &RawThread) -> Vec<RawOpKind> {
        t.ops.iter().map(|o| o.kind.clone()).collect()
    }

    /// Thread names and their operations.
    fn shape(h: &RawHistory) -> Vec<(String, Vec<RawOpKind>)> {
        h.threads
            .iter()
            .map(|t| (t.name.clone(), kinds(t)))
            .collect()
    }

    fn s(name: &str, ops: Vec<RawOpKind>) -> (String, Vec<RawOpKind>) {
        (name.to_owned(), ops)
    }

    /// Asserts that `src` goes through the .hist writer and parser unchanged.
    #[track_caller]
    fn assert_hist_round_trip(src: &str) {
        let hs = parse(src);
        let text = write_hist(&hs);
        let back = parse_hist(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let strip = |v: &[RawHistory]| {
            v.iter()
                .map(RawHistory::without_positions)
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&back), strip(&hs), "{text}");
    }

    #[test]
    fn summary_example() {
        let hs = parse(SUMMARY);
        assert_eq!(hs.len(), 1);
        let h = &hs[0];
        assert_eq!(h.pos, p(2, 1));
        assert_eq!(h.name, None);
        assert!(h.expect.is_empty());
        assert_eq!(
            shape(h),
            vec![
                s("t0", vec![w("m1", 1), F, r("m0", 0), u("m0", 0, 1)]),
                s("t1", vec![r("m1", 1), u("m0", 0, 2)]),
            ]
        );
        assert_eq!(h.finals, vec![("m1".into(), 2, p(8, 1))]);
        assert_eq!(
            h.meta,
            vec![("axe-timestamps".into(), "2 ignored".into(), p(5, 17))]
        );
        let t0 = &h.threads[0];
        assert_eq!(t0.pos, p(2, 1));
        let cols: Vec<_> = t0.ops.iter().map(|o| o.pos).collect();
        assert_eq!(cols, vec![p(2, 4), p(3, 4), p(4, 4), p(6, 4)]);
        assert_eq!(h.threads[1].pos, p(5, 1));
        assert!(h
            .threads
            .iter()
            .flat_map(|t| &t.ops)
            .all(|o| o.ticks.is_none()));
    }

    #[test]
    fn manual_examples() {
        let hs = parse(MANUAL);
        assert_eq!(hs.len(), 4);
        assert_eq!(
            shape(&hs[0]),
            vec![
                s("t0", vec![w("m1", 1), F, r("m0", 0)]),
                s("t1", vec![w("m0", 1), r("m1", 0)]),
            ]
        );
        assert!(hs[0].meta.is_empty() && hs[0].finals.is_empty());
        assert_eq!(hs[1].pos, p(7, 1));
        assert_eq!(
            shape(&hs[1]),
            vec![
                s("t0", vec![w("m0", 1), F, w("m1", 1)]),
                s("t1", vec![r("m1", 1), r("m0", 0)]),
            ]
        );
        assert_eq!(
            hs[1].meta,
            vec![("axe-timestamps".into(), "3 ignored".into(), p(10, 17))]
        );
        assert_eq!(
            shape(&hs[2]),
            vec![
                s("t0", vec![u("m0", 0, 1)]),
                s("t1", vec![w("m0", 2), r("m0", 1)]),
            ]
        );
        assert_eq!(hs[3].finals, vec![("m1".into(), 2, p(21, 1))]);
        assert_eq!(hs[3].threads[1].ops[1].kind, r("m0", 0));
        // The command-line section's trace: no `check`, indented.
        let hs = parse("  0: M[1] := 1\n  0: M[0] == 0\n  1: M[0] := 1\n  1: M[1] == 0\n");
        assert_eq!(hs.len(), 1);
        assert_eq!(hs[0].pos, p(1, 3));
        assert_eq!(hs[0].threads[1].pos, p(3, 3));
        assert_eq!(hs[0].threads[1].ops[0].pos, p(3, 6));
        // The shrinker's output, timestamps without spaces.
        let hs = parse("0: M[2] := 46 @ 497:\n1: M[2] == 46 @ 280:513\n1: M[2] := 61 @ 729:\n");
        assert_eq!(hs[0].meta[0].1, "4 ignored");
    }

    #[test]
    fn multiple_traces_in_order() {
        let src = "# Trace 1\n0: M[1] := 1\ncheck\n\n# Trace 2\n0: M[2] := 1\n1: M[2] == 1\n  check  # done\n\
                   # Trace 3\n5: M[3] := 7\ncheck\n# trailing comment\n\n";
        let hs = parse(src);
        assert_eq!(hs.len(), 3);
        assert_eq!(shape(&hs[0]), vec![s("t0", vec![w("m1", 1)])]);
        assert_eq!(
            shape(&hs[1]),
            vec![s("t0", vec![w("m2", 1)]), s("t1", vec![r("m2", 1)])]
        );
        assert_eq!(shape(&hs[2]), vec![s("t5", vec![w("m3", 7)])]);
        let starts: Vec<_> = hs.iter().map(|h| h.pos).collect();
        assert_eq!(starts, vec![p(2, 1), p(6, 1), p(10, 1)]);
        // A last trace without `check` counts; thread ids restart per trace.
        let hs = parse("1: sync\ncheck\n2: sync\n");
        assert_eq!(hs.len(), 2);
        assert_eq!(shape(&hs[1]), vec![s("t2", vec![F])]);
        // One history per `check`, even for an empty trace.
        let hs = parse("check\n# c\ncheck\nfinal M[0] == 0\n");
        assert_eq!(hs.len(), 3);
        assert_eq!(
            hs[0],
            RawHistory {
                pos: p(1, 1),
                ..RawHistory::default()
            }
        );
        assert_eq!(hs[1].pos, p(3, 1));
        assert_eq!(hs[2].finals, vec![("m0".into(), 0, p(4, 1))]);
        assert!(hs[2].threads.is_empty());
        assert_eq!(parse(""), vec![]);
        assert_eq!(parse("# nothing\n\n \t \n"), vec![]);
    }

    #[test]
    fn threads_locations_and_values() {
        let src =
            "3: M[0x1F] := 0x10\n\t1 :M[007]==18446744073709551615\n03: M[ 0x001f ] == 16 \r\n\
                   1:M[7]:=1\n0: M[0x0] := 1\n";
        let hs = parse(src);
        let h = &hs[0];
        assert_eq!(
            shape(h),
            vec![
                s("t3", vec![w("m0x1f", 16), r("m0x1f", 16)]),
                s("t1", vec![r("m7", u64::MAX), w("m7", 1)]),
                s("t0", vec![w("m0x0", 1)]),
            ]
        );
        assert_eq!(h.threads[1].pos, p(2, 2));
        assert_eq!(h.threads[1].ops[0].pos, p(2, 5));
        assert_eq!(h.threads[1].ops[1].pos, p(4, 3));
    }

    #[test]
    fn rmw_forms() {
        let src = "0: <M[0] == 0; M[0] := 1>\n\
                   0:{M[0]==1;M[0]:=2}\n\
                   1: <  M[0x2]  ==  0 ;  M[0x2]  :=  5  >  @ 1 : 2\n\
                   1: { M[3] == 0 ; M[3] := 4 } @:\n";
        let hs = parse(src);
        assert_eq!(
            shape(&hs[0]),
            vec![
                s("t0", vec![u("m0", 0, 1), u("m0", 1, 2)]),
                s("t1", vec![u("m0x2", 0, 5), u("m3", 0, 4)]),
            ]
        );
        assert_eq!(hs[0].threads[1].ops[0].pos, p(3, 4));
        assert_eq!(hs[0].threads[0].ops[1].pos, p(2, 3));
        assert_eq!(hs[0].meta[0].1, "2 ignored");
    }

    #[test]
    fn finals() {
        let hs =
            parse("0: M[1] := 2\nfinal M[1] == 2\n  final   M[ 0x3 ]==0x4  # c\nfinalM[5]==0\n");
        assert_eq!(
            hs[0].finals,
            vec![
                ("m1".into(), 2, p(2, 1)),
                ("m0x3".into(), 4, p(3, 3)),
                ("m5".into(), 0, p(4, 1)),
            ]
        );
    }

    #[test]
    fn timestamp_variants() {
        let count = |src: &str| -> Option<(String, Pos)> {
            let hs = parse(src);
            hs[0]
                .meta
                .iter()
                .find(|m| m.0 == "axe-timestamps")
                .map(|m| (m.1.clone(), m.2))
        };
        assert_eq!(count("0: M[1] := 1\n"), None);
        assert_eq!(
            count("0: M[1] == 0 @ 100 : 110\n"),
            Some(("2 ignored".into(), p(1, 14)))
        );
        assert_eq!(count("0: M[1] := 1 @ 115 :\n").unwrap().0, "1 ignored");
        assert_eq!(count("0: M[1] == 0 @ : 20\n").unwrap().0, "1 ignored");
        assert_eq!(count("0: M[1] == 0@100:110\n").unwrap().0, "2 ignored");
        assert_eq!(
            count("0: M[1] == 0 @\t:\t\n").unwrap(),
            ("0 ignored".into(), p(1, 14))
        );
        assert_eq!(count("0: sync @ 3 : 4 # c\n").unwrap().0, "2 ignored");
        assert_eq!(count("0: sync@3:\n").unwrap().0, "1 ignored");
        let both = "0: M[1] := 1\n0: M[1] == 1 @ 5 : 6\n1: sync @ : 7\ncheck\n0: sync @ 1 :\n";
        let hs = parse(both);
        assert_eq!(
            hs[0].meta,
            vec![("axe-timestamps".into(), "3 ignored".into(), p(2, 14))]
        );
        assert_eq!(
            hs[1].meta,
            vec![("axe-timestamps".into(), "1 ignored".into(), p(5, 9))]
        );
        // Timestamps never reorder or annotate operations.
        let hs = parse("0: M[1] == 0 @ 9 : 10\n0: M[2] == 0 @ 1 : 2\n");
        assert_eq!(kinds(&hs[0].threads[0]), vec![r("m1", 0), r("m2", 0)]);
        assert!(hs[0].threads[0].ops.iter().all(|o| o.ticks.is_none()));
    }

    #[test]
    fn line_errors() {
        assert_err(
            "0: M[1] := 1\nfoo\n",
            2,
            1,
            "expected a thread id, `final` or `check`, found `foo`",
        );
        assert_err(
            "t0: W(x,1)",
            1,
            1,
            "expected a thread id, `final` or `check`, found `t0`",
        );
        assert_err("-1: sync", 1, 1, "found `-`");
        assert_err(
            "checks",
            1,
            1,
            "expected a thread id, `final` or `check`, found `checks`",
        );
        assert_err("finally", 1, 1, "found `finally`");
        assert_err(
            "check now",
            1,
            7,
            "expected end of line after `check`, found `now`",
        );
        assert_err(
            "0 M[1] := 1",
            1,
            3,
            "expected `:` after the thread id, found `M`",
        );
        assert_err(
            "0x1: sync",
            1,
            2,
            "expected `:` after the thread id, found `x1`",
        );
        assert_err(
            "99999999999999999999: sync",
            1,
            1,
            "number `99999999999999999999` does not fit in 64 bits",
        );
        assert_err(
            "0: W(x,1)",
            1,
            4,
            "expected an operation `M[addr] := value`, `M[addr] == value`, `sync` or \
             `<M[addr] == old; M[addr] := new>` after the thread id, found `W`",
        );
        assert_err("0:", 1, 3, "after the thread id, found end of line");
        assert_err("0: syncx", 1, 4, "found `syncx`");
        assert_err("0: M [1] := 1", 1, 4, "found `M`");
        assert_err(
            "0: sync 1",
            1,
            9,
            "expected timestamps `@ begin : end` or end of line after the operation, found `1`",
        );
        assert_err(
            "0: M[1] := 1 2",
            1,
            14,
            "expected timestamps `@ begin : end` or end of line",
        );
        // Errors are reported in the trace where they are, after valid traces.
        assert_err(
            "0: sync\ncheck\n\r\n1: M[1] = 1\r\n",
            4,
            9,
            "expected `:=` or `==` after `M[1]`, found `=`",
        );
        let (l, c, m) = err_bytes(b"0: sync\n0: M[\xff] := 1\n");
        assert_eq!((l, c), (2, 6));
        assert!(m.contains("found byte 0xff"), "{m}");
        // Comments may hold anything.
        assert_eq!(
            parse_axe(b"# caf\xe9 \xff\n0: sync # \xc3\xa9\n")
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn access_errors() {
        assert_err(
            "0: M[1] 1",
            1,
            9,
            "expected `:=` or `==` after `M[1]`, found `1`",
        );
        assert_err(
            "0: M[0x1F] =: 1",
            1,
            12,
            "expected `:=` or `==` after `M[0x1f]`, found `=`",
        );
        assert_err(
            "0: M[1]",
            1,
            8,
            "expected `:=` or `==` after `M[1]`, found end of line",
        );
        assert_err(
            "0: M[] := 1",
            1,
            6,
            "expected an address (decimal or 0x hex), found `]`",
        );
        assert_err(
            "0: M[x] := 1",
            1,
            6,
            "expected an address (decimal or 0x hex), found `x`",
        );
        assert_err(
            "0: M[1 := 1",
            1,
            8,
            "expected `]` after the address, found `:`",
        );
        assert_err(
            "0: M[1x] := 1",
            1,
            7,
            "expected `]` after the address, found `x`",
        );
        assert_err(
            "0: M[0x] := 1",
            1,
            8,
            "expected hex digits after `0x`, found `]`",
        );
        assert_err(
            "0: M[1] := ",
            1,
            11,
            "expected a value (decimal or 0x hex), found end of line",
        );
        assert_err(
            "0: M[1] := -1",
            1,
            12,
            "expected a value (decimal or 0x hex), found `-`",
        );
        assert_err(
            "0: M[1] == 18446744073709551616",
            1,
            12,
            "number `18446744073709551616` does not fit in 64 bits",
        );
        assert_err(
            "0: M[0x10000000000000000] := 1",
            1,
            6,
            "does not fit in 64 bits",
        );
        assert_err(
            "0: M[1] := 1.5",
            1,
            13,
            "expected timestamps `@ begin : end` or end of line after the operation, found `.5`",
        );
        assert_err(
            "final M[1] := 2",
            1,
            12,
            "expected `==` after `M[1]` in a `final` constraint, found `:=`",
        );
        assert_err("final", 1, 6, "expected `M[addr]`, found end of line");
        assert_err("final x", 1, 7, "expected `M[addr]`, found `x`");
        assert_err(
            "final M[1] == 2 3",
            1,
            17,
            "expected end of line after the `final` constraint, found `3`",
        );
        assert_err(
            "final M[1] == 2 @ 1 :",
            1,
            17,
            "expected end of line after the `final` constraint, found `@`",
        );
    }

    #[test]
    fn rmw_errors() {
        assert_err(
            "0: <M[0] == 0; M[1] := 1>",
            1,
            16,
            "RMW must read and write the same location: M[0] and M[1]",
        );
        assert_err(
            "0: {M[1] == 0; M[0x1] := 1}",
            1,
            16,
            "same location: M[1] and M[0x1]",
        );
        assert_err(
            "0: <M[0] := 1; M[0] == 0>",
            1,
            10,
            "the first part of an RMW must be a load `M[0] == value`, found `:=`",
        );
        assert_err(
            "0: <M[0] == 0; M[0] == 1>",
            1,
            21,
            "the second part of an RMW must be a store `M[0] := value`, found `==`",
        );
        assert_err(
            "0: <M[0] == 0 M[0] := 1>",
            1,
            15,
            "expected `;` between the load and the store of an RMW, found `M`",
        );
        assert_err(
            "0: <M[0] == 0; M[0] := 1",
            1,
            25,
            "expected `>` to close `<`, found end of line",
        );
        assert_err(
            "0: <M[0] == 0; M[0] := 1}",
            1,
            25,
            "expected `>` to close `<`, found `}`",
        );
        assert_err(
            "0: {M[0] == 0; M[0] := 1>",
            1,
            25,
            "expected `}` to close `{`, found `>`",
        );
        assert_err("0: <sync>", 1, 5, "expected `M[addr]`, found `sync`");
        assert_err("0: <>", 1, 5, "expected `M[addr]`, found `>`");
    }

    #[test]
    fn timestamp_errors() {
        assert_err(
            "0: sync @",
            1,
            10,
            "expected a begin time (decimal) or `:` after `@`, found end of line",
        );
        assert_err(
            "0: sync @ 5",
            1,
            12,
            "expected `:` after the begin time, found end of line",
        );
        assert_err(
            "0: sync @ 5 6",
            1,
            13,
            "expected `:` after the begin time, found `6`",
        );
        assert_err(
            "0: sync @ x : 1",
            1,
            11,
            "expected a begin time (decimal) or `:` after `@`, found `x`",
        );
        assert_err(
            "0: sync @ 0x5 : 1",
            1,
            12,
            "expected `:` after the begin time, found `x5`",
        );
        assert_err(
            "0: sync @ 1 : 2 : 3",
            1,
            17,
            "expected end of line after the timestamps, found `:`",
        );
        assert_err(
            "0: sync @ 1 : 2x",
            1,
            16,
            "expected end of line after the timestamps, found `x`",
        );
        assert_err(
            "0: sync @ 1 : -2",
            1,
            15,
            "expected end of line after the timestamps, found `-`",
        );
        assert_err(
            "0: sync @ 1 @ 2",
            1,
            13,
            "expected `:` after the begin time, found `@`",
        );
        assert_err(
            "0: sync @ 99999999999999999999 :",
            1,
            11,
            "does not fit in 64 bits",
        );
        assert_err(
            "0: sync @ : 99999999999999999999",
            1,
            13,
            "does not fit in 64 bits",
        );
    }

    #[test]
    fn location_notation_must_be_consistent() {
        assert_err(
            "0: M[31] := 1\n1: M[0x1f] == 1\n",
            2,
            4,
            "location 31 is written `M[0x1f]` here but `M[31]` at 1:4",
        );
        assert_err(
            "final M[0x1] == 0\n0: <M[1] == 0; M[1] := 2>\n",
            2,
            5,
            "written `M[1]` here but `M[0x1]` at 1:7",
        );
        // Many locations (past the linear scan), early and late ones.
        let many: String = (0..40).map(|a| format!("0: v{a} == 0\n")).collect();
        for (late, line, first) in [(3, 41, 4), (20, 41, 21), (39, 41, 40)] {
            assert_err(
                &format!("{many}1: M[0x{late:x}] == 0\n"),
                line,
                4,
                &format!(
                    "location {late} is written `M[0x{late:x}]` here but `v{late}` at {first}:4"
                ),
            );
        }
        assert_eq!(
            parse(&format!("{many}check\n{many}"))[1].threads[0]
                .ops
                .len(),
            40
        );
        // Different traces may differ; leading zeros do not matter.
        let hs = parse(
            "0: M[31] := 1\ncheck\n0: M[0x1f] := 1\n0: M[0x01F] == 1\n0: M[032] == 0\ncheck\n",
        );
        assert_eq!(kinds(&hs[0].threads[0]), vec![w("m31", 1)]);
        assert_eq!(
            kinds(&hs[1].threads[0]),
            vec![w("m0x1f", 1), r("m0x1f", 1), r("m32", 0)]
        );
    }

    /// axe's parser also takes `v` and decimal digits for a location, and
    /// its own test suites (`tests/random`, `tests/more-random`) are written
    /// so: `vN` is `M[N]`.
    #[test]
    fn v_locations() {
        // The first trace of axe's tests/more-random, abridged, with its forms.
        let src = "# 0\n0: v1 == 0\n0: v0 := 1 @ 3:\n0: sync @ 4:\n\
                   1: { v0 == 1; v0 := 2} @ :9\n1: v2 == 0 @ 5:8\ncheck\n\
                   # 1\n0:v12:=3\nfinalv12==3\n";
        let hs = parse(src);
        assert_eq!(hs.len(), 2);
        assert_eq!(
            shape(&hs[0]),
            vec![
                s("t0", vec![r("m1", 0), w("m0", 1), F]),
                s("t1", vec![u("m0", 1, 2), r("m2", 0)]),
            ]
        );
        assert_eq!(hs[0].threads[1].ops[0].pos, p(5, 4));
        assert_eq!(hs[0].meta[0].1, "5 ignored");
        assert_eq!(shape(&hs[1]), vec![s("t0", vec![w("m12", 3)])]);
        assert_eq!(hs[1].finals, vec![("m12".into(), 3, p(10, 1))]);
        assert_eq!(
            parse("final v12 == 0\n")[0].finals,
            vec![("m12".into(), 0, p(1, 1))]
        );
        // `vN` and `M[N]` (also with leading zeros) are one location.
        let hs = parse("0: v3 := 1\n1: M[3] == 1\n1: {v03 == 1; M[ 3 ] := 2}\n");
        assert_eq!(
            shape(&hs[0]),
            vec![
                s("t0", vec![w("m3", 1)]),
                s("t1", vec![r("m3", 1), u("m3", 1, 2)]),
            ]
        );
        assert_hist_round_trip(src);
        // Errors name the location as written.
        assert_err(
            "0: v31 := 1\n1: M[0x1f] == 1\n",
            2,
            4,
            "location 31 is written `M[0x1f]` here but `v31` at 1:4",
        );
        assert_err(
            "0: M[0x1f] := 1\n1: v31 == 1\n",
            2,
            4,
            "location 31 is written `v31` here but `M[0x1f]` at 1:4",
        );
        assert_err(
            "0: { v0 == 0; v1 := 1 }",
            1,
            15,
            "RMW must read and write the same location: v0 and v1",
        );
        assert_err(
            "0: v1 = 1",
            1,
            7,
            "expected `:=` or `==` after `v1`, found `=`",
        );
        // Hex is `M[0x..]` only, as in axe: `v0x1` is `v0` then `x1`.
        assert_err(
            "0: v0x1 := 1",
            1,
            6,
            "expected `:=` or `==` after `v0`, found `x1`",
        );
        assert_err(
            "0: v99999999999999999999 == 0",
            1,
            5,
            "number `99999999999999999999` does not fit in 64 bits",
        );
        // `v` must be followed by a digit at once; otherwise the old messages.
        for bad in ["0: v := 1", "0: v 1 := 1", "0: vx := 1"] {
            assert_err(bad, 1, 4, "expected an operation `M[addr] := value`");
        }
        assert_err("final v", 1, 7, "expected `M[addr]`, found `v`");
        assert_err("0: <v>", 1, 5, "expected `M[addr]`, found `v`");
        // Recognised by content.
        for src in ["0: v1 == 0\n", "  3 :v0:=1", "final v2 == 0", "finalv2==0"] {
            assert!(looks_like_axe(src.as_bytes()), "{src:?}");
        }
        for src in ["0: v == 0\n", "0: vx := 1\n", "final v\n", "finalv\n"] {
            assert!(!looks_like_axe(src.as_bytes()), "{src:?}");
        }
    }

    #[test]
    fn detection() {
        for src in [
            SUMMARY,
            MANUAL,
            "\n# c\n  12 :sync\n",
            "0:<M[0]==0;M[0]:=1>",
            "0: {",
            "check\n",
            "final M[1] == 2",
            "finalM[1]==2",
            "  0 : M[1] := 1 # x\r\n",
            "0: sync@1:",
        ] {
            assert!(looks_like_axe(src.as_bytes()), "{src:?}");
        }
        for src in [
            "",
            "# only a comment\n\n",
            "t0: W(x,1)\n",
            "@name a\nt0: R(x,0)\n",
            "---\n0: M[1] := 1\n",
            "0: W(x,1)\n",
            "0: syncx\n",
            "0 M[1] := 1\n",
            ": M[1] := 1\n",
            "checked\n",
            "final x=1\n",
            "sync\n",
        ] {
            assert!(!looks_like_axe(src.as_bytes()), "{src:?}");
        }
        // Only the first meaningful line decides.
        assert!(looks_like_axe(b"# c\n0: sync\nt0: W(x,1)\n"));
        assert!(!looks_like_axe(b"t0: W(x,1)\n0: sync\n"));
        // Every .hist-looking sample the hist tests use is not axe.
        assert!(!looks_like_axe(
            b"# leading comment\n\n  @name sb # c\nt0: W(x,1)\n"
        ));
    }

    #[test]
    fn round_trip_through_hist() {
        assert_hist_round_trip(SUMMARY);
        assert_hist_round_trip(MANUAL);
        assert_hist_round_trip("3: M[0x1F] := 0x10\n1: <M[7] == 0; M[7] := 18446744073709551615> @ 1 : 2\nfinal M[7] == 0\n");
        // Exact .hist text, too.
        let hs = parse("0: M[1] := 1 @ 5 :\n1: M[1] == 1\n1: sync\nfinal M[1] == 1\ncheck\n2: {M[0x2]==0;M[0x2]:=1}\n");
        assert_eq!(
            write_hist(&hs),
            "@final m1=1\n@axe-timestamps 1 ignored\nt0: W(m1,1)\nt1: R(m1,1) F\n---\nt2: U(m0x2,0,1)\n"
        );
    }

    #[test]
    fn corrupted_bytes_never_panic() {
        let inputs = [SUMMARY.as_bytes(), MANUAL.as_bytes()];
        let replacements = b"<>{}[];:=@#\n\r \tM0x9fsync_\xff\xc3-";
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        let mut outcomes = [0usize; 2];
        for input in inputs {
            for i in 0..input.len() {
                for _ in 0..4 {
                    let b = replacements[rng.below(replacements.len())];
                    let mut bad = input.to_vec();
                    bad[i] = b;
                    outcomes[usize::from(parse_axe(&bad).is_ok())] += 1;
                    let _ = looks_like_axe(&bad);
                }
                let mut bad = input.to_vec();
                bad.remove(i);
                match parse_axe(&bad) {
                    Err(e) => assert!(e.pos.line >= 1 && e.pos.col >= 1),
                    Ok(hs) => assert!(!hs.is_empty()),
                }
                let _ = looks_like_axe(&bad);
            }
        }
        assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
    }

    /// A parsed line with its slices as offsets into the line, to compare.
    fn projected(input: &[u8], l: &Line) -> String {
        let at = |s: &[u8]| input.offset(s);
        let acc = |a: &Access| {
            format!(
                "{}:{}:{}:{}:{}:{}:{}",
                at(a.at),
                a.loc,
                a.hex,
                a.v,
                a.store,
                at(a.op_at),
                a.value
            )
        };
        match l {
            Line::Check => "check".into(),
            Line::Final(a) => format!("final {}", acc(a)),
            Line::Op {
                tid,
                tid_at,
                op_at,
                body,
                stamps,
            } => {
                let body = match body {
                    Body::Sync => "sync".to_owned(),
                    Body::Access(a) => acc(a),
                    Body::Rmw(r, w) => format!("{} ; {}", acc(r), acc(w)),
                };
                let stamps = stamps.map(|(s, n)| (at(s), n));
                format!("{tid} {} {} {body} {stamps:?}", at(tid_at), at(op_at))
            }
        }
    }

    #[test]
    fn quick_lines_are_read_as_nom_reads_them() {
        let samples: &[&[u8]] = &[
            b"0: v1 == 0",
            b"12 :\tv3:=7 @ 2:3",
            b"1: M[ 4 ] == 18 @ :6",
            b"1: M[4]==18@5:",
            b"0: sync",
            b"3: sync @ 1 : 2",
            b"0: { v2 == 0; v2 := 1} @ 3:5",
            b"1: <M[7] == 0 ; v7 := 2>",
            b"check",
            b"0: v18446744073709551615 == 9999999999999999999",
            b"0: M[0x1f] := 0x10",
            b"final M[1] == 2",
        ];
        let replacements = b"<>{}[];:=@#\r \tMvx90_sync\xff-";
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut quick = 0;
        let mut check = |line_text: &[u8]| {
            let Some(q) = quick_line(line_text) else {
                return;
            };
            quick += 1;
            match line(line_text) {
                Ok((_, l)) => assert_eq!(
                    projected(line_text, &q),
                    projected(line_text, &l),
                    "{}",
                    String::from_utf8_lossy(line_text)
                ),
                Err(_) => panic!(
                    "quick took a line nom rejects: {}",
                    String::from_utf8_lossy(line_text)
                ),
            }
        };
        for &sample in samples {
            check(sample);
            mutate_each_byte(sample, 16, replacements, &mut rng, |bad| {
                check(content(bad))
            });
        }
        assert!(quick > 100, "{quick}");
    }

    /// Every trace of `src` (or the error), with lines read in place and
    /// with every line split off first.
    fn both_ways(src: &[u8]) -> [Result<Vec<RawHistory>, ParseError>; 2] {
        [true, false].map(|in_place| {
            let mut traces = AxeTraces::new(src);
            traces.in_place = in_place;
            traces.collect()
        })
    }

    #[test]
    fn lines_read_in_place_are_read_as_split_lines() {
        let inputs: [&[u8]; 4] = [
            SUMMARY.as_bytes(),
            MANUAL.as_bytes(),
            b"  0: v1 == 0 @ 2:3 # c\r\n\t1:v0:=1\r\n# 0\n\ncheck \n 1: { v2 == 0; v2 := 1} @ :4\r\n0: sync@1:\n",
            b"0: M[0x1f] := 0x10\ncheck\ncheck# c\n\r\n0: v3 == 12345678901234567890\n",
        ];
        let replacements = b"<>{}[];:=@#\n\r \tMvx90_sync\xff-";
        let mut rng = Rng::new(0x5851_f42d_4c95_7f2d);
        for input in inputs {
            let [a, b] = both_ways(input);
            assert_eq!(a, b, "{}", String::from_utf8_lossy(input));
            mutate_each_byte(input, 6, replacements, &mut rng, |bad| {
                let [x, y] = both_ways(bad);
                assert_eq!(x, y, "{}", String::from_utf8_lossy(bad));
            });
        }
    }

    #[test]
    fn checking_finds_the_first_error_of_parsing() {
        let agree = |src: &[u8]| {
            assert_eq!(
                check_axe(src),
                parse_axe(src).map(|_| ()),
                "{}",
                String::from_utf8_lossy(src)
            );
        };
        let inputs: [&[u8]; 6] = [
            SUMMARY.as_bytes(),
            MANUAL.as_bytes(),
            b"0: v1 := 1\n1: v2 == 0\n0: M[0x1] == 1\ncheck\n0: M[0x2] := 1\n",
            b"0: M[0x1] := 1\n1: v2 == 0\n0: v1 == 1\n0: v2 := 1 @ 1:\ncheck\n",
            b"0: v1 := 1\n0: bad\n0: M[0x1] == 1\ncheck\n",
            b"0: v3 := 1\ncheck\nfinal M[0x3] == 0\n1: v3 == 0\n0: v4 == 0\ncheck\n0: <M[0x4] == 0; M[0x4] := 1>\n1: M[4] == 0\n",
        ];
        each_and_its_mutants(
            &inputs,
            b"<>{}[];:=@#\n\r \tMvx90_sync\xff-",
            0x9e37_79b9_7f4a_7c15,
            agree,
        );
    }

    /// `agree` on each input, then on each of its one-byte mutants (6 a
    /// byte, from `replacements`, drawn from `seed`).
    fn each_and_its_mutants(
        inputs: &[&[u8]],
        replacements: &[u8],
        seed: u64,
        agree: impl Fn(&[u8]),
    ) {
        let mut rng = Rng::new(seed);
        for input in inputs {
            agree(input);
            mutate_each_byte(input, 6, replacements, &mut rng, &agree);
        }
    }

    #[test]
    fn traces_read_from_their_starts_are_the_parsed_traces() {
        let agree = |src: &[u8]| {
            let starts = axe_trace_starts(src);
            assert_eq!(
                starts.clone().map(|_| ()),
                check_axe(src),
                "{}",
                String::from_utf8_lossy(src)
            );
            let Ok(starts) = starts else { return };
            // each trace read alone from its start, positions and all
            let apart: Vec<RawHistory> = starts
                .iter()
                .map(|&start| {
                    let mut traces = AxeTraces::starting_at(src, start);
                    traces
                        .next_trace()
                        .expect("a trace")
                        .expect("checked")
                        .to_raw()
                })
                .collect();
            assert_eq!(
                Ok(apart),
                parse_axe(src),
                "{}",
                String::from_utf8_lossy(src)
            );
        };
        let inputs: [&[u8]; 5] = [
            SUMMARY.as_bytes(),
            MANUAL.as_bytes(),
            b"\n# c\n0: v1 := 1\n1: v2 == 0\ncheck\n\n\ncheck\n0: M[0x2] := 1\n",
            b"0: M[0x1] := 1\r\n1: v2 == 0\ncheck\n0: v1 == 1 @ 1:\ncheck\n1: v3 == 0",
            b"0: v3 := 1\ncheck\nfinal M[0x3] == 0\n1: v3 == 0\n0: v4 == 0\ncheck\n0: <M[0x4] == 0; M[0x4] := 1>\n",
        ];
        each_and_its_mutants(
            &inputs,
            b"<>{}[];:=@#\n\r \tMvx90_sync\xff-",
            0x2545_f491_4f6c_dd1d,
            agree,
        );
    }

    #[test]
    fn pieces_cut_at_check_lines_give_the_whole_files_starts() {
        let agree = |src: &[u8]| {
            let whole = axe_trace_starts(src);
            for pieces in 1..=7 {
                let cuts = axe_cuts(src, pieces);
                let froms: Vec<TraceStart> = std::iter::once(TraceStart {
                    offset: 0,
                    lines: 0,
                })
                .chain(cuts.iter().copied())
                .collect();
                // each cut is where the whole file's reading starts a trace
                for c in &cuts {
                    let lines = src[..c.offset].iter().filter(|&&b| b == b'\n').count();
                    assert_eq!(c.lines, lines);
                    // (or only blank lines follow it)
                    let at_start = |w: &Vec<TraceStart>| {
                        w.contains(c) || w.last().is_none_or(|l| l.offset < c.offset)
                    };
                    assert!(whole.as_ref().map_or(true, at_start));
                }
                let mut apart = Vec::new();
                let mut first_error = None;
                for (i, &from) in froms.iter().enumerate() {
                    let end = froms.get(i + 1).map_or(src.len(), |c| c.offset);
                    match axe_trace_starts_between(src, from, end) {
                        Ok(s) => apart.extend(s),
                        Err(e) => {
                            first_error = Some(e);
                            break;
                        }
                    }
                }
                let apart = first_error.map_or(Ok(apart), Err);
                assert_eq!(
                    apart,
                    whole,
                    "{pieces} pieces of {}",
                    String::from_utf8_lossy(src)
                );
            }
        };
        let inputs: [&[u8]; 5] = [
            SUMMARY.as_bytes(),
            MANUAL.as_bytes(),
            b"\n# c\n0: v1 := 1\n check # c\r\n\n\ncheck\n0: M[0x2] := 1\ncheck\r\r\n1: v2 == 0\n",
            b"0: M[0x1] := 1\r\n1: v2 == 0\ncheck\n0: v1 == 1 @ 1:\ncheck\n1: v3 == 0",
            b"0: v3 := 1\ncheck\nfinal M[0x3] == 0\n1: v3 == 0\ncheck x\n0: v4 == 0\ncheck\n0: <M[0x4] == 0; M[0x4] := 1>\ncheck\n",
        ];
        each_and_its_mutants(
            &inputs,
            b"<>{}[];:=@#\n\r \tMvx90_sync\xff-ck",
            0x6a09_e667_f3bc_c909,
            agree,
        );
    }

    #[test]
    fn names_are_formatted_numbers() {
        for n in [0, 1, 9, 10, 255, 1 << 23, u64::MAX] {
            assert_eq!(named('t', n), format!("t{n}"));
            assert_eq!(
                AxeLoc {
                    addr: n,
                    hex: false
                }
                .name(),
                format!("m{n}")
            );
            assert_eq!(AxeLoc { addr: n, hex: true }.name(), format!("m0x{n:x}"));
        }
    }

    #[test]
    fn many_threads_keep_their_order() {
        // 40 threads (past the linear scan), in a shuffled first appearance
        let order: Vec<u64> = (0..40).map(|i| (i * 17) % 40).collect();
        let mut src = String::new();
        for round in 1..=2 {
            for &t in &order {
                src.push_str(&format!("{t}: v{t} := {round}\n"));
            }
        }
        let hs = parse(&src);
        let names: Vec<String> = hs[0].threads.iter().map(|t| t.name.clone()).collect();
        let want: Vec<String> = order.iter().map(|t| format!("t{t}")).collect();
        assert_eq!(names, want);
        assert!(hs[0].threads.iter().all(|t| t.ops.len() == 2));
        assert_eq!(hs[0].threads[39].pos, p(40, 1));
    }

    #[test]
    fn large_input() {
        let mut src = String::new();
        for trace in 0..200 {
            for k in 1..=250u64 {
                let t = k % 4;
                src.push_str(&format!(
                    "{t}: M[{t}] := {k} @ {k} :\n{t}: M[{}] == 0\n",
                    t + 4
                ));
            }
            src.push_str(&format!("final M[{}] == 250\ncheck\n", trace % 4));
        }
        let hs = parse(&src);
        assert_eq!(hs.len(), 200);
        assert_eq!(hs[199].threads.len(), 4);
        assert_eq!(hs[199].threads[0].name, "t1");
        assert_eq!(hs[199].threads[0].ops.len(), 126);
        assert_eq!(hs[199].meta[0].1, "250 ignored");
        assert_eq!(hs[199].pos.line, 199 * 502 + 1);
    }
}
