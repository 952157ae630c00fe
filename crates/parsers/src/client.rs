//! The output of memconform's SE-mode client (`gem5-configs/client`).
//!
//! The client prints its histories in the `.hist` format, framed by a header
//! and an end line so that they can be recognised by content and found in
//! any surrounding output (gem5's banner when the program's stdout is gem5's).
//! Version 1 (random rounds, the positional command line):
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
//! Version 2 (litmus shapes, the named options), one shape per round on the
//! variables `x` and `y`, with the round's shape, the threads that ran the
//! shape's threads P0, P1, ... (the others are idle: empty thread lines), the
//! sharing of x's and y's lines and the final values:
//!
//! ```text
//! # memconform-client v2 threads=3 rounds=1 seed=7 shape=mp place=random sharing=random fence=random rmw=random warm-up=on delay-chain=12 spin=32 ops=4 writes=50
//! @name client-s7-r0
//! @round 0
//! @shape MP
//! @place t2 t0
//! @sharing own-line
//! @final x=1 y=2
//! t0: R(x,0) F R(y,2) R(x,0)
//! t1:
//! t2: U(x,0,1) W(y,2)
//! # memconform-client end histories=1
//! ```
//!
//! A *block* runs from a header line (`# memconform-client v1` or `v2` and
//! `key=value` fields) to the next end line; its lines are parsed with
//! [`parse_hist`](crate::hist::parse_hist), so the whole block is also a valid `.hist` file. Lines
//! outside blocks are not the client's and are skipped; a file may hold
//! several blocks (several runs). Each block is checked against its header:
//! `rounds` histories (also the end line's `histories`), each with `@round`
//! equal to its index and threads `t0..t{threads-1}` in order; in v1, `ops`
//! operations per thread on variables `w0..w{words-1}`; in v2, the round's
//! `@shape`, `@place` and `@sharing` as the header allows, and every thread's
//! operations as its part of the shape, with the header's fence, RMW and
//! warm-up options (see [`SHAPES`]). A block with no end line is an error
//! (the client prints everything at once after its threads joined, so a
//! missing end means it crashed or the simulation stopped early).
//!
//! Every history gets the metadata `source=client`, then the header's fields
//! in order (`threads`, `ops`, `words`, `seed`, `rounds`, ...; in v2 without
//! the ones the history restates for itself, `shape`, `place` and `sharing`),
//! then `cpus` (= `threads`: one thread per simulated CPU), before its own
//! `@round` (and v2's `@shape`, ...) lines; so a header field must be one: a
//! `.hist` key, `=`, a value without `#` or control characters. Positions are
//! those of the whole input.

use std::ops::ControlFlow;

use crate::hist::{is_name, Ann, HistReader, RawHistory, RawOp, RawOpKind, RawThread};
use crate::{ParseError, Pos};

/// What every header line starts with (then `v<version>`).
const PREFIX: &str = "# memconform-client ";
/// The versions this parser reads.
const VERSIONS: [&str; 2] = ["v1", "v2"];
/// The end line, after [`PREFIX`].
const END: &str = "end";
/// Header fields every v1 block must have (all decimal numbers).
const REQUIRED_V1: [&str; 5] = ["threads", "ops", "words", "seed", "rounds"];
/// Header fields every v2 block must have.
const REQUIRED_V2: [&str; 13] = [
    "threads",
    "rounds",
    "seed",
    "shape",
    "place",
    "sharing",
    "fence",
    "rmw",
    "warm-up",
    "delay-chain",
    "spin",
    "ops",
    "writes",
];

/// The instruction set the client was built for: the header's `isa=`
/// (`aarch64`), none for the x86 client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    X86,
    Aarch64,
}

/// How an access is ordered beyond program order by its own instruction
/// (ARMv8's acquire and release; every x86 access is `Plain` here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// A plain load (LDR) or store (STR).
    Plain,
    /// A load-acquire, LDAR: RCsc, ordered after an earlier store-release.
    Acquire,
    /// An RCpc load-acquire, LDAPR: not ordered after an earlier STLR.
    AcquirePc,
    /// A store-release, STLR.
    Release,
}

/// A fence's kind: ARMv8's DMB ISH (full; x86's `mfence`), DMB ISHLD
/// (orders earlier loads before later loads and stores), DMB ISHST (orders
/// stores among themselves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceKind {
    Full,
    Ld,
    St,
}

/// One operation of a client thread as it ran, with what its instruction
/// says beyond `.hist`'s `R`, `W`, `U` and `F`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOp {
    pub kind: ClientOpKind,
    /// Position of its token on the thread line (a DMB ISHLD/ISHST, which
    /// has none, gets its `@arm` line's).
    pub pos: Pos,
}

/// What a [`ClientOp`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientOpKind {
    /// A load (`exclusive`: an LDXR whose STXR was not tried, a failed
    /// compare-and-swap; x86: a failed `lock cmpxchg`).
    Read {
        var: String,
        value: u64,
        order: Ordering,
        exclusive: bool,
    },
    Write {
        var: String,
        value: u64,
        order: Ordering,
    },
    /// An atomic read-modify-write: x86's locked instruction, ARM's
    /// LDXR/STXR pair whose STXR succeeded.
    Rmw {
        var: String,
        old: u64,
        new: u64,
    },
    Fence(FenceKind),
}

/// THE place where a client operation becomes an operation of the core's
/// history (a `.hist` operation with its ARMv8 annotation): LDAR is
/// `R.acq`, LDAPR `R.acqpc`, STLR `W.rel`, DMB ISH (and x86's `mfence`)
/// `F`, DMB ISHLD `F.ld`, DMB ISHST `F.st`; an LDXR/STXR pair that
/// succeeded is a plain `U` (neither half acquires nor releases). The older
/// models read the annotations as the `.hist` format says (plain accesses,
/// no partial fences).
pub fn hist_op(op: &ClientOp) -> Option<RawOp> {
    let kind = match &op.kind {
        ClientOpKind::Read { var, value, .. } => RawOpKind::Read {
            var: var.clone(),
            value: *value,
        },
        ClientOpKind::Write { var, value, .. } => RawOpKind::Write {
            var: var.clone(),
            value: *value,
        },
        ClientOpKind::Rmw { var, old, new } => RawOpKind::Rmw {
            var: var.clone(),
            old: *old,
            new: *new,
        },
        ClientOpKind::Fence(_) => RawOpKind::Fence,
    };
    let ann = match &op.kind {
        ClientOpKind::Read { order, .. } | ClientOpKind::Write { order, .. } => match order {
            Ordering::Plain => Ann::None,
            Ordering::Acquire => Ann::Acq,
            Ordering::AcquirePc => Ann::AcqPc,
            Ordering::Release => Ann::Rel,
        },
        ClientOpKind::Rmw { .. } | ClientOpKind::Fence(FenceKind::Full) => Ann::None,
        ClientOpKind::Fence(FenceKind::Ld) => Ann::Ld,
        ClientOpKind::Fence(FenceKind::St) => Ann::St,
    };
    Some(RawOp {
        kind,
        ann,
        ticks: None,
        pos: op.pos,
    })
}

/// One access of a shape's thread.
#[derive(Debug, Clone, Copy)]
pub struct Access {
    /// A write (else a read).
    pub write: bool,
    /// `x` or `y` (or `z`, a word on x's line: shape MP+SM).
    pub var: &'static str,
    /// The value written (writes).
    pub value: u64,
    /// Its acquire or release (aarch64 shapes).
    pub order: Ordering,
    /// An exclusive swap (a write that is an LDXR/STXR loop: `U`).
    pub exclusive: bool,
    /// The shape's barrier just before it, if any.
    pub fence: Option<FenceKind>,
}

/// One thread of a shape (P0, P1, ...).
#[derive(Debug, Clone, Copy)]
pub struct Role {
    /// The variable of the optional warm-up read before the accesses (the
    /// threads with a delayed load, and MP+SM's writer).
    pub warm: Option<&'static str>,
    pub accesses: &'static [Access],
}

/// A v2 shape: one round's program.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The header's `shape=` value.
    pub name: &'static str,
    /// The history's `@shape` value.
    pub tag: &'static str,
    /// Its threads; none for `random` (every thread runs random accesses).
    pub roles: &'static [Role],
    /// An aarch64 shape (only the aarch64 client runs it).
    pub arm: bool,
}

const fn w(var: &'static str, value: u64) -> Access {
    Access {
        write: true,
        var,
        value,
        order: Ordering::Plain,
        exclusive: false,
        fence: None,
    }
}

const fn r(var: &'static str) -> Access {
    Access {
        write: false,
        var,
        value: 0,
        order: Ordering::Plain,
        exclusive: false,
        fence: None,
    }
}

/// A store-release STLR.
const fn wrel(var: &'static str, value: u64) -> Access {
    Access {
        order: Ordering::Release,
        ..w(var, value)
    }
}

/// A load-acquire LDAR (`pc`: LDAPR).
const fn racq(var: &'static str, pc: bool) -> Access {
    Access {
        order: if pc {
            Ordering::AcquirePc
        } else {
            Ordering::Acquire
        },
        ..r(var)
    }
}

/// An exclusive swap (LDXR/STXR loop) writing `value`.
const fn xswap(var: &'static str, value: u64) -> Access {
    Access {
        exclusive: true,
        ..w(var, value)
    }
}

/// `a` after the shape's barrier `fence`.
const fn after(fence: FenceKind, a: Access) -> Access {
    Access {
        fence: Some(fence),
        ..a
    }
}

const fn role(warm: Option<&'static str>, accesses: &'static [Access]) -> Role {
    Role { warm, accesses }
}

/// The v2 shapes, as the client runs them (`gem5-configs/client/client.c`).
pub const SHAPES: [Shape; 16] = [
    Shape {
        name: "random",
        tag: "RANDOM",
        roles: &[],
        arm: false,
    },
    Shape {
        name: "mp",
        tag: "MP",
        roles: &[
            role(None, &[w("x", 1), w("y", 2)]),
            role(Some("x"), &[r("y"), r("x")]),
        ],
        arm: false,
    },
    Shape {
        name: "sb",
        tag: "SB",
        roles: &[
            role(None, &[w("x", 1), r("y")]),
            role(None, &[w("y", 2), r("x")]),
        ],
        arm: false,
    },
    Shape {
        name: "lb",
        tag: "LB",
        roles: &[
            role(None, &[r("x"), w("y", 1)]),
            role(None, &[r("y"), w("x", 2)]),
        ],
        arm: false,
    },
    Shape {
        name: "iriw",
        tag: "IRIW",
        roles: &[
            role(None, &[w("x", 1)]),
            role(None, &[w("y", 2)]),
            role(Some("y"), &[r("x"), r("y")]),
            role(Some("x"), &[r("y"), r("x")]),
        ],
        arm: false,
    },
    Shape {
        name: "wrc",
        tag: "WRC",
        roles: &[
            role(None, &[w("x", 1)]),
            role(None, &[r("x"), w("y", 2)]),
            role(Some("x"), &[r("y"), r("x")]),
        ],
        arm: false,
    },
    Shape {
        name: "2+2w",
        tag: "2+2W",
        roles: &[
            role(None, &[w("x", 1), w("y", 2)]),
            role(None, &[w("y", 3), w("x", 4)]),
        ],
        arm: false,
    },
    // MP whose reader upgrades x's line (its store to z, a word on x's line)
    // as the writer's store to x invalidates it; both warm-up reads share
    // the line (MESI_Two_Level's SM state; catalogue ME-8).
    Shape {
        name: "mp+sm",
        tag: "MP+SM",
        roles: &[
            role(Some("x"), &[w("x", 1), w("y", 2)]),
            role(Some("x"), &[w("z", 3), r("y"), r("x")]),
        ],
        arm: false,
    },
    // MP whose reader holds x's line shared when the writer's store
    // invalidates it: both read x first, the writer before the reader with
    // `--warm-order first` (MOESI_hammer's S, catalogue MH-2). `mix` does
    // not draw it.
    Shape {
        name: "mp+s",
        tag: "MP+S",
        roles: &[
            role(Some("x"), &[w("x", 1), w("y", 2)]),
            role(Some("x"), &[r("y"), r("x")]),
        ],
        arm: false,
    },
    // aarch64 shapes. SB whose stores are STLR and loads LDAR: RCsc, so both
    // reading 0 is forbidden (gem5 issue #1242); with LDAPR (RCpc) allowed.
    Shape {
        name: "sb-rel-acq",
        tag: "SB+REL+ACQ",
        roles: &[
            role(None, &[wrel("x", 1), racq("y", false)]),
            role(None, &[wrel("y", 2), racq("x", false)]),
        ],
        arm: true,
    },
    Shape {
        name: "sb-rel-acqpc",
        tag: "SB+REL+ACQPC",
        roles: &[
            role(None, &[wrel("x", 1), racq("y", true)]),
            role(None, &[wrel("y", 2), racq("x", true)]),
        ],
        arm: true,
    },
    Shape {
        name: "mp-dmb",
        tag: "MP+DMBS",
        roles: &[
            role(None, &[w("x", 1), after(FenceKind::Full, w("y", 2))]),
            role(Some("x"), &[r("y"), after(FenceKind::Full, r("x"))]),
        ],
        arm: true,
    },
    Shape {
        name: "mp-dmb-stld",
        tag: "MP+DMB.ST+DMB.LD",
        roles: &[
            role(None, &[w("x", 1), after(FenceKind::St, w("y", 2))]),
            role(Some("x"), &[r("y"), after(FenceKind::Ld, r("x"))]),
        ],
        arm: true,
    },
    Shape {
        name: "mp-rel-acq",
        tag: "MP+REL+ACQ",
        roles: &[
            role(None, &[w("x", 1), wrel("y", 2)]),
            role(Some("x"), &[racq("y", false), r("x")]),
        ],
        arm: true,
    },
    Shape {
        name: "iriw-acq",
        tag: "IRIW+ACQS",
        roles: &[
            role(None, &[w("x", 1)]),
            role(None, &[w("y", 2)]),
            role(Some("y"), &[racq("x", false), racq("y", false)]),
            role(Some("x"), &[racq("y", false), racq("x", false)]),
        ],
        arm: true,
    },
    // 2+2W with exclusive swaps: their reads show each swap's atomicity
    Shape {
        name: "excl",
        tag: "2+2W+EXCL",
        roles: &[
            role(None, &[xswap("x", 1), xswap("y", 2)]),
            role(None, &[xswap("y", 3), xswap("x", 4)]),
        ],
        arm: true,
    },
];

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
    parse_blocks(src, false).map(|(h, _)| h)
}

/// Where client output still being written stops: its last block has no
/// end line yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// The open block's header.
    pub header: Pos,
    /// Its whole histories so far, and the rounds its header announces.
    pub rounds_seen: u64,
    pub rounds: u64,
}

/// [`parse_client`] on output a running client is still writing (the
/// client's `--stream on` prints each round as it ends): the last block may
/// lack its end line; its whole histories are returned (a history is whole
/// when every one of its threads' lines ends with a newline), and
/// [`Unfinished`] says where it stops. Everything else is checked as in
/// [`parse_client`].
pub fn parse_client_prefix(
    src: &[u8],
) -> Result<(Vec<RawHistory>, Option<Unfinished>), ParseError> {
    parse_blocks(src, true)
}

/// Every block of `src`; with `partial`, the last one may be unfinished.
fn parse_blocks(
    src: &[u8],
    partial: bool,
) -> Result<(Vec<RawHistory>, Option<Unfinished>), ParseError> {
    let mut histories = Vec::new();
    let unfinished = blocks(src, partial, &mut |h| {
        histories.push(h);
        ControlFlow::Continue(())
    })?;
    Ok((histories, unfinished))
}

/// The first error [`parse_client`] would report for `src`, if any.
pub fn check_client(src: &[u8]) -> Result<(), ParseError> {
    blocks(src, false, &mut |_| ControlFlow::Continue(())).map(|_| ())
}

/// [`parse_client`] a history at a time: hands each of `src`'s histories,
/// checked and with its header's metadata, to `each` in order until `each`
/// breaks. Memory holds one history, not the file's. `src` is not checked
/// whole first: the histories before an error are handed out too (the error
/// is the result), so whoever reports them first runs [`check_client`], or
/// waits for it or for this to end.
pub fn stream_client_unchecked(
    src: &[u8],
    mut each: impl FnMut(RawHistory) -> ControlFlow<()>,
) -> Result<(), ParseError> {
    blocks(src, false, &mut each).map(|_| ())
}

/// Walks the blocks of `src`, handing each history to `each` (until it
/// breaks); with `partial`, the last block may be unfinished.
fn blocks(
    src: &[u8],
    partial: bool,
    each: &mut dyn FnMut(RawHistory) -> ControlFlow<()>,
) -> Result<Option<Unfinished>, ParseError> {
    // a line still being written is not read
    let src = match (partial, src.iter().rposition(|&b| b == b'\n')) {
        (false, _) => src,
        (true, Some(i)) => &src[..=i],
        (true, None) => &[],
    };
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
                    "client end line without a `# memconform-client v1|v2` header before it",
                ));
            };
            let end_at = Pos { line: line_no, col };
            let stated = end_fields(fields, line_no, PREFIX.len() + END.len())?;
            blocks += 1;
            let body = &src[header.body..span.start];
            if closed_block(body, &header, end_at, stated, each)?.is_break() {
                return Ok(None);
            }
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
        if !partial {
            return Err(ParseError {
                pos: h.pos,
                msg: "client output cut short: no `# memconform-client end` line after this \
                      header (did the client crash or the simulation stop early?)"
                    .to_owned(),
            });
        }
        let body = &src[h.body.min(src.len())..];
        let whole = unfinished_block(body, &h)?;
        let unfinished = Unfinished {
            header: h.pos,
            rounds_seen: whole.len() as u64,
            rounds: h.rounds,
        };
        for history in whole {
            if each(history).is_break() {
                break;
            }
        }
        return Ok(Some(unfinished));
    }
    if blocks == 0 {
        return Err(error(
            1,
            1,
            "no `# memconform-client v1|v2` header line: not client output",
        ));
    }
    Ok(None)
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
    rounds: u64,
    format: Format,
    /// `isa=aarch64`, or the x86 client (no `isa=`).
    isa: Isa,
}

/// What a version's header says beyond threads and rounds.
enum Format {
    V1 { ops: u64, words: u64 },
    V2(V2),
}

/// A v2 header's options.
struct V2 {
    /// `None`: `mix`.
    shape: Option<&'static Shape>,
    /// `place=first`: P0, P1, ... run on t0, t1, ...
    place_first: bool,
    /// `None`: `random`.
    sharing: Option<&'static str>,
    fence: Fence,
    rmw: Rmw,
    warm_up: WarmUp,
    ops: u64,
    isa: Isa,
}

/// The header's `fence=`: none, the ISA's full fence at every fence
/// position (`mfence`; aarch64: `dmb`, DMB ISH), or at some.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fence {
    None,
    Full,
    Random,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rmw {
    None,
    Xchg,
    Cmpxchg,
    Random,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WarmUp {
    On,
    Off,
    Random,
}

impl Header {
    fn field(&self, key: &str) -> Option<&(String, String, Pos)> {
        self.fields.iter().find(|(k, _, _)| k == key)
    }
}

/// Parses `v1 key=value ...` or `v2 ...` (after the prefix) on line
/// `line_no`; the block's body starts at byte `body` of the input.
fn header(rest: &str, line_no: u32, body: usize) -> Result<Header, ParseError> {
    let base = PREFIX.len();
    let mut tokens = tokens(rest);
    let version = tokens.next().map_or("", |(_, t)| t);
    if !VERSIONS.contains(&version) {
        return Err(error(
            line_no,
            to_u32(base + 1),
            &format!(
                "unsupported client format `{version}` (this memconform reads {})",
                VERSIONS.join(" and ")
            ),
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
    let required: &[&str] = if version == "v1" {
        &REQUIRED_V1
    } else {
        &REQUIRED_V2
    };
    for key in required {
        if !fields.iter().any(|(k, _, _)| k == key) {
            return Err(ParseError {
                pos,
                msg: format!("client header has no `{key}=` field"),
            });
        }
    }
    let f = Fields(&fields);
    let isa = match fields.iter().find(|(k, _, _)| k == "isa") {
        None => Isa::X86,
        Some(_) => f.one_of("isa", &[("aarch64", Isa::Aarch64)])?,
    };
    let (threads, rounds, format) = if version == "v1" {
        let [threads, ops, words, _seed, rounds] = REQUIRED_V1.map(|key| f.number(key));
        let (threads, ops, words) = (f.positive("threads", threads?)?, ops?, words?);
        let (ops, words) = (f.positive("ops", ops)?, f.positive("words", words)?);
        (threads, rounds?, Format::V1 { ops, words })
    } else {
        for key in ["seed", "delay-chain", "spin"] {
            f.number(key)?;
        }
        let threads = f.positive("threads", f.number("threads")?)?;
        let ops = f.positive("ops", f.number("ops")?)?;
        let writes = f.number("writes")?;
        if writes > 100 {
            return Err(f.bad("writes", "a percentage, at most 100"));
        }
        let shape = f.one_of(
            "shape",
            &SHAPES
                .iter()
                .map(|s| (s.name, Some(s)))
                .chain([("mix", None)])
                .collect::<Vec<_>>(),
        )?;
        if let Some(s) = shape {
            if s.arm && isa != Isa::Aarch64 {
                return Err(f.bad("shape", "a shape of the x86 client (no isa=aarch64)"));
            }
            if s.roles.len() as u64 > threads {
                return Err(f.bad(
                    "shape",
                    &format!("a shape of at most threads={threads} threads"),
                ));
            }
        }
        let v2 = V2 {
            shape,
            place_first: f.one_of("place", &[("first", true), ("random", false)])?,
            sharing: f.one_of(
                "sharing",
                &[
                    ("same-line", Some("same-line")),
                    ("own-line", Some("own-line")),
                    ("random", None),
                ],
            )?,
            fence: f.one_of(
                "fence",
                &[
                    ("none", Fence::None),
                    (fence_name(Fence::Full, isa), Fence::Full),
                    ("random", Fence::Random),
                ],
            )?,
            rmw: f.one_of(
                "rmw",
                &[
                    ("none", Rmw::None),
                    ("xchg", Rmw::Xchg),
                    ("cmpxchg", Rmw::Cmpxchg),
                    ("random", Rmw::Random),
                ],
            )?,
            warm_up: f.one_of(
                "warm-up",
                &[
                    ("on", WarmUp::On),
                    ("off", WarmUp::Off),
                    ("random", WarmUp::Random),
                ],
            )?,
            ops,
            isa,
        };
        (threads, f.number("rounds")?, Format::V2(v2))
    };
    Ok(Header {
        pos,
        body,
        fields,
        threads,
        rounds,
        format,
        isa,
    })
}

/// A header's fields, every required one present.
struct Fields<'a>(&'a [(String, String, Pos)]);

impl Fields<'_> {
    fn get(&self, key: &str) -> &(String, String, Pos) {
        self.0
            .iter()
            .find(|(k, _, _)| k == key)
            .expect("a required field")
    }

    fn bad(&self, key: &str, what: &str) -> ParseError {
        let (_, value, at) = self.get(key);
        ParseError {
            pos: *at,
            msg: format!("client header field `{key}` must be {what}, found `{value}`"),
        }
    }

    fn number(&self, key: &str) -> Result<u64, ParseError> {
        decimal(&self.get(key).1).ok_or_else(|| self.bad(key, "a decimal number"))
    }

    fn positive(&self, key: &str, n: u64) -> Result<u64, ParseError> {
        if n == 0 {
            return Err(ParseError {
                pos: self.get(key).2,
                msg: format!("client header field `{key}` must be at least 1"),
            });
        }
        Ok(n)
    }

    fn one_of<T: Copy>(&self, key: &str, choices: &[(&str, T)]) -> Result<T, ParseError> {
        let value = &self.get(key).1;
        choices
            .iter()
            .find(|(name, _)| name == value)
            .map(|&(_, t)| t)
            .ok_or_else(|| {
                let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                self.bad(key, &format!("one of {}", names.join(", ")))
            })
    }
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

/// Parses and checks the histories of a closed block, a history at a time:
/// `body` holds its lines between the header and the end line, `end` is the
/// position of `end` on the end line and `stated` its `histories` count.
/// Each history goes to `each` once checked (so an error may come after
/// some were handed out: [`check_client`] finds it without handing out).
fn closed_block(
    body: &[u8],
    header: &Header,
    end: Pos,
    stated: Option<u64>,
    each: &mut dyn FnMut(RawHistory) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, ParseError> {
    let meta = header_meta(header);
    // numbered as lines of the whole input (errors name earlier lines too)
    let mut count = 0u64;
    for h in HistReader::new(body).first_line(header.pos.line + 1) {
        let h = h?;
        if count == header.rounds {
            return Err(more_rounds(&h, header));
        }
        let h = checked(h, count as usize, header, &meta)?;
        count += 1;
        if each(h).is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    if let Some(n) = stated {
        if n != count {
            return Err(ParseError {
                pos: Pos {
                    line: end.line,
                    col: end.col + to_u32(END.len() + 1),
                },
                msg: format!("the client end line says {n} histories, the block holds {count}"),
            });
        }
    }
    if count != header.rounds {
        return Err(ParseError {
            pos: Pos {
                line: end.line,
                col: 1,
            },
            msg: format!(
                "the client header at {} announces rounds={}, the block holds {count} histories",
                header.pos, header.rounds
            ),
        });
    }
    Ok(ControlFlow::Continue(()))
}

/// The whole, checked histories of a block still being written (cut at a
/// line's end, no end line): the last history is left out unless it has
/// all its threads, and fewer histories than the header's rounds are no
/// error.
fn unfinished_block(body: &[u8], header: &Header) -> Result<Vec<RawHistory>, ParseError> {
    let mut histories = HistReader::new(body)
        .first_line(header.pos.line + 1)
        .collect::<Result<Vec<_>, _>>()?;
    if histories
        .last()
        .is_some_and(|h| (h.threads.len() as u64) < header.threads)
    {
        histories.pop();
    }
    if histories.len() as u64 > header.rounds {
        return Err(more_rounds(&histories[header.rounds as usize], header));
    }
    let meta = header_meta(header);
    histories
        .into_iter()
        .enumerate()
        .map(|(round, h)| checked(h, round, header, &meta))
        .collect()
}

/// The error for a history past the header's `rounds`.
fn more_rounds(h: &RawHistory, header: &Header) -> ParseError {
    ParseError {
        pos: h.pos,
        msg: format!(
            "the client header at {} announces rounds={}, the block holds more histories",
            header.pos, header.rounds
        ),
    }
}

/// The metadata every history of a block gets: `source=client`, the
/// header's fields, `cpus`.
fn header_meta(header: &Header) -> Vec<(String, String, Pos)> {
    let mut meta = vec![("source".to_owned(), "client".to_owned(), header.pos)];
    meta.extend(header.fields.iter().cloned());
    if header.field("cpus").is_none() {
        let (_, threads, at) = header.field("threads").expect("required field");
        meta.push(("cpus".to_owned(), threads.clone(), *at));
    }
    meta
}

/// The metadata key of the aarch64 client's instruction lines.
const ARM_KEY: &str = "arm";

/// The operations of each thread of client history `h` as they ran. For
/// the aarch64 client (`isa`), its `@arm` lines, one per thread in order
/// (`@arm t0 STLR DMB.ISH LDAR`), name every instruction; each but DMB
/// ISHLD/ISHST is one operation of the thread line, which gives its
/// values: LDR, LDAR, LDAPR and LDXR (a failed exclusive compare-and-swap)
/// are `R`, STR and STLR `W`, LDXR.STXR (an exclusive pair whose store
/// succeeded) `U`, DMB.ISH `F`. For the x86 client, the thread lines as
/// they are (plain accesses, `mfence` as a full fence).
pub fn client_ops(h: &RawHistory, isa: Isa) -> Result<Vec<Vec<ClientOp>>, ParseError> {
    let arm: Vec<&(String, String, Pos)> = h.meta.iter().filter(|(k, _, _)| k == ARM_KEY).collect();
    if isa == Isa::X86 {
        if let Some((_, _, at)) = arm.first() {
            return Err(ParseError {
                pos: *at,
                msg: "an `@arm` line in a history of the x86 client (its header has no \
                      isa=aarch64)"
                    .to_owned(),
            });
        }
        return Ok(h
            .threads
            .iter()
            .map(|t| t.ops.iter().map(x86_op).collect())
            .collect());
    }
    if arm.len() != h.threads.len() {
        return Err(ParseError {
            pos: arm.get(h.threads.len()).map_or(h.pos, |(_, _, at)| *at),
            msg: format!(
                "an aarch64 client history has {} `@arm` lines, one per thread expected ({})",
                arm.len(),
                h.threads.len()
            ),
        });
    }
    h.threads
        .iter()
        .zip(arm)
        .map(|(t, (_, line, at))| arm_thread_ops(t, line, *at))
        .collect()
}

/// An x86 client operation: the `.hist` operation itself.
fn x86_op(op: &RawOp) -> ClientOp {
    let kind = match &op.kind {
        RawOpKind::Read { var, value } => ClientOpKind::Read {
            var: var.clone(),
            value: *value,
            order: Ordering::Plain,
            exclusive: false,
        },
        RawOpKind::Write { var, value } => ClientOpKind::Write {
            var: var.clone(),
            value: *value,
            order: Ordering::Plain,
        },
        RawOpKind::Rmw { var, old, new } => ClientOpKind::Rmw {
            var: var.clone(),
            old: *old,
            new: *new,
        },
        RawOpKind::Fence => ClientOpKind::Fence(FenceKind::Full),
    };
    ClientOp { kind, pos: op.pos }
}

/// Thread `t`'s operations from its `@arm` line `line` (at `at`):
/// `tN` then one instruction per operation.
fn arm_thread_ops(t: &RawThread, line: &str, at: Pos) -> Result<Vec<ClientOp>, ParseError> {
    let bad = |msg: String| ParseError { pos: at, msg };
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or("");
    if name != t.name {
        return Err(bad(format!(
            "`@arm {}`: expected the line of thread `{}` here (one per thread, in order)",
            shorten_text(line),
            t.name
        )));
    }
    let mut raw = t.ops.iter();
    let mut out = Vec::with_capacity(t.ops.len());
    for (i, word) in words.enumerate() {
        let fence = match word {
            "DMB.ISHLD" => Some(FenceKind::Ld),
            "DMB.ISHST" => Some(FenceKind::St),
            _ => None,
        };
        if let Some(f) = fence {
            out.push(ClientOp {
                kind: ClientOpKind::Fence(f),
                pos: at,
            });
            continue;
        }
        let Some(op) = raw.next() else {
            return Err(bad(format!(
                "`@arm {}`: its instruction {} ({word}) has no operation on the line of `{}`",
                t.name,
                i + 1,
                t.name
            )));
        };
        let kind = match (word, &op.kind) {
            ("LDR" | "LDAR" | "LDAPR" | "LDXR", RawOpKind::Read { var, value }) => {
                ClientOpKind::Read {
                    var: var.clone(),
                    value: *value,
                    order: match word {
                        "LDAR" => Ordering::Acquire,
                        "LDAPR" => Ordering::AcquirePc,
                        _ => Ordering::Plain,
                    },
                    exclusive: word == "LDXR",
                }
            }
            ("STR" | "STLR", RawOpKind::Write { var, value }) => ClientOpKind::Write {
                var: var.clone(),
                value: *value,
                order: if word == "STLR" {
                    Ordering::Release
                } else {
                    Ordering::Plain
                },
            },
            ("LDXR.STXR", RawOpKind::Rmw { var, old, new }) => ClientOpKind::Rmw {
                var: var.clone(),
                old: *old,
                new: *new,
            },
            ("DMB.ISH", RawOpKind::Fence) => ClientOpKind::Fence(FenceKind::Full),
            ("LDR" | "LDAR" | "LDAPR" | "LDXR" | "STR" | "STLR" | "LDXR.STXR" | "DMB.ISH", _) => {
                return Err(ParseError {
                    pos: op.pos,
                    msg: format!(
                        "`@arm {}` says {word} here (its instruction {}), which is not \
                         this operation (LDR, LDAR, LDAPR, LDXR: R; STR, STLR: W; \
                         LDXR.STXR: U; DMB.ISH: F)",
                        t.name,
                        i + 1
                    ),
                })
            }
            _ => {
                return Err(bad(format!(
                    "`@arm {}`: unknown instruction `{}` (LDR, LDAR, LDAPR, LDXR, STR, \
                     STLR, LDXR.STXR, DMB.ISH, DMB.ISHLD, DMB.ISHST)",
                    t.name,
                    shorten_text(word)
                )))
            }
        };
        out.push(ClientOp { kind, pos: op.pos });
    }
    if let Some(op) = raw.next() {
        return Err(ParseError {
            pos: op.pos,
            msg: format!(
                "this operation of `{}` has no instruction on its `@arm` line",
                t.name
            ),
        });
    }
    Ok(out)
}

/// `s`, cut to 40 characters for a message.
fn shorten_text(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_owned(),
    }
}

/// Checks history `round` of a block against its header and gives it the
/// header's metadata (`meta`, see [`header_meta`]).
fn checked(
    mut h: RawHistory,
    round: usize,
    header: &Header,
    meta: &[(String, String, Pos)],
) -> Result<RawHistory, ParseError> {
    check_round(&h, round)?;
    check_threads(&h, header.threads)?;
    match &header.format {
        Format::V1 { ops, words } => {
            if let Some((_, _, at)) = h.meta.iter().find(|(k, _, _)| k == ARM_KEY) {
                return Err(ParseError {
                    pos: *at,
                    msg: "an `@arm` line in a v1 client history (v1 runs plain loads and \
                          stores only)"
                        .to_owned(),
                });
            }
            check_v1(&h, *ops, *words)?
        }
        Format::V2(v2) => {
            let ops = client_ops(&h, header.isa)?;
            check_v2(&h, header.threads, v2, &ops)?;
            if header.isa == Isa::Aarch64 {
                for (t, ops) in h.threads.iter_mut().zip(&ops) {
                    t.ops = ops.iter().filter_map(hist_op).collect();
                }
            }
        }
    }
    let own = std::mem::take(&mut h.meta);
    // a v2 history restates `shape`, `place` and `sharing` for itself
    let mut merged: Vec<_> = meta
        .iter()
        .filter(|(k, _, _)| !own.iter().any(|(o, _, _)| o == k))
        .cloned()
        .collect();
    merged.extend(own);
    h.meta = merged;
    Ok(h)
}

/// Checks a history's `@round` line: its index in the block.
fn check_round(h: &RawHistory, round: usize) -> Result<(), ParseError> {
    match own_meta(h, "round") {
        None => Err(ParseError {
            pos: h.pos,
            msg: format!("client history {round} of its block has no `@round` line"),
        }),
        Some((v, at)) if decimal(v) != Some(round as u64) => Err(ParseError {
            pos: at,
            msg: format!("`@round {v}` on the client history at index {round} of its block"),
        }),
        Some(_) => Ok(()),
    }
}

/// Checks a history's threads: `t0..t{threads-1}`, in order.
fn check_threads(h: &RawHistory, threads: u64) -> Result<(), ParseError> {
    if h.threads.len() as u64 != threads {
        return Err(ParseError {
            pos: h.pos,
            msg: format!(
                "client history has {} threads, its header says threads={threads}",
                h.threads.len(),
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
    }
    Ok(())
}

/// Checks one v1 history's operations against the header.
fn check_v1(h: &RawHistory, ops: u64, words: u64) -> Result<(), ParseError> {
    for t in &h.threads {
        if t.ops.len() as u64 != ops {
            return Err(ParseError {
                pos: t.pos,
                msg: format!(
                    "client thread `{}` has {} operations, its header says ops={ops}",
                    t.name,
                    t.ops.len(),
                ),
            });
        }
        for op in &t.ops {
            let Some(var) = var_of(op) else { continue };
            let in_range = var
                .strip_prefix('w')
                .filter(|d| !d.starts_with('0') || *d == "0")
                .and_then(decimal)
                .is_some_and(|w| w < words);
            if !in_range {
                return Err(ParseError {
                    pos: op.pos,
                    msg: format!(
                        "client variable `{var}` is not one of w0..w{} (header words={words})",
                        words - 1,
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Checks one v2 history (its round and thread names checked) against the
/// header: `@shape`, `@place`, `@sharing`, `@final`, and every thread's
/// operations.
fn check_v2(
    h: &RawHistory,
    threads: u64,
    v2: &V2,
    ops: &[Vec<ClientOp>],
) -> Result<(), ParseError> {
    let shape = round_shape(h, threads, v2)?;
    let place = round_place(h, shape, v2)?;
    let Some((sharing, at)) = own_meta(h, "sharing") else {
        return Err(missing(h, "@sharing"));
    };
    if !["same-line", "own-line"].contains(&sharing) || v2.sharing.is_some_and(|s| s != sharing) {
        return Err(ParseError {
            pos: at,
            msg: format!(
                "`@sharing {sharing}`: expected {} (the header's sharing=)",
                v2.sharing.unwrap_or("same-line or own-line")
            ),
        });
    }
    for (var, _, at) in &h.finals {
        if var != "x" && var != "y" {
            return Err(ParseError {
                pos: *at,
                msg: format!("client `@final` names `{var}`, not x or y"),
            });
        }
    }
    if shape.tag.starts_with("2+2W") && h.finals.len() != 2 {
        return Err(ParseError {
            pos: h.pos,
            msg: format!(
                "a client {} history needs the final values, `@final x=.. y=..`",
                shape.tag
            ),
        });
    }
    if shape.roles.is_empty() {
        for (t, ops) in h.threads.iter().zip(ops) {
            check_random_thread(t, ops, threads, v2)?;
        }
        return Ok(());
    }
    for (i, (t, ops)) in h.threads.iter().zip(ops).enumerate() {
        match place.iter().position(|&p| p == i) {
            Some(role) => check_role(t, ops, shape, role, v2)?,
            None => {
                if let Some(op) = ops.first() {
                    return Err(ParseError {
                        pos: op.pos,
                        msg: format!(
                            "client thread `{}` is not in `@place`, so idle in this {} \
                             round, but has operations",
                            t.name, shape.tag
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The history's `@shape`, one the header allows.
fn round_shape(h: &RawHistory, threads: u64, v2: &V2) -> Result<&'static Shape, ParseError> {
    let Some((tag, at)) = own_meta(h, "shape") else {
        return Err(missing(h, "@shape"));
    };
    let Some(shape) = SHAPES.iter().find(|s| s.tag == tag) else {
        let tags: Vec<&str> = SHAPES.iter().map(|s| s.tag).collect();
        return Err(ParseError {
            pos: at,
            msg: format!("unknown client shape `{tag}` (one of {})", tags.join(", ")),
        });
    };
    if shape.arm && v2.isa != Isa::Aarch64 {
        return Err(ParseError {
            pos: at,
            msg: format!("`@shape {tag}` is an aarch64 shape, in a block of the x86 client"),
        });
    }
    if let Some(s) = v2.shape.filter(|s| s.tag != tag) {
        return Err(ParseError {
            pos: at,
            msg: format!("`@shape {tag}` in a block of shape={}", s.name),
        });
    }
    if shape.roles.len() as u64 > threads {
        return Err(ParseError {
            pos: at,
            msg: format!(
                "`@shape {tag}` needs {} threads, the header says threads={threads}",
                shape.roles.len()
            ),
        });
    }
    Ok(shape)
}

/// The history's `@place`: the thread of each of the shape's threads (every
/// thread in order, for a random round).
fn round_place(h: &RawHistory, shape: &Shape, v2: &V2) -> Result<Vec<usize>, ParseError> {
    let Some((value, at)) = own_meta(h, "place") else {
        return Err(missing(h, "@place"));
    };
    let bad = |msg: String| ParseError { pos: at, msg };
    let roles = if shape.roles.is_empty() {
        h.threads.len()
    } else {
        shape.roles.len()
    };
    let mut place = Vec::with_capacity(roles);
    for name in value.split_whitespace() {
        let t = h
            .threads
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| {
                bad(format!(
                    "`@place`: `{name}` is not a thread of this history"
                ))
            })?;
        if place.contains(&t) {
            return Err(bad(format!("`@place` names `{name}` twice")));
        }
        place.push(t);
    }
    if place.len() != roles {
        return Err(bad(format!(
            "`@place` names {} threads, a {} round has {roles}",
            place.len(),
            shape.tag
        )));
    }
    let in_order = place.iter().enumerate().all(|(i, &t)| i == t);
    if !in_order && (v2.place_first || shape.roles.is_empty()) {
        return Err(bad(format!(
            "`@place {value}`: expected t0 t1 ... ({})",
            if shape.roles.is_empty() {
                "a random round runs on every thread"
            } else {
                "the header's place=first"
            }
        )));
    }
    Ok(place)
}

/// A thread's accesses (its operations but the fences), each with the
/// fences just before it; every fence must lie between two accesses.
fn accesses<'a>(
    t: &RawThread,
    ops: &'a [ClientOp],
) -> Result<Vec<(&'a ClientOp, Vec<&'a ClientOp>)>, ParseError> {
    let mut out = Vec::with_capacity(ops.len());
    let mut fences = Vec::new();
    for op in ops {
        if !matches!(op.kind, ClientOpKind::Fence(_)) {
            out.push((op, std::mem::take(&mut fences)));
            continue;
        }
        if out.is_empty() || !fences.is_empty() {
            return Err(ParseError {
                pos: op.pos,
                msg: format!(
                    "client thread `{}`: a fence must lie between two accesses",
                    t.name
                ),
            });
        }
        fences.push(op);
    }
    if let Some(last) = fences.last() {
        return Err(ParseError {
            pos: last.pos,
            msg: format!(
                "client thread `{}`: a fence must lie between two accesses",
                t.name
            ),
        });
    }
    Ok(out)
}

/// Checks the fences before access `k` of a thread: the shape's barrier
/// `shape_fence` if it has one, else none before the first access and, before
/// the others, what the header's `fence=` puts there (its full fence, none,
/// or either).
fn check_fences(
    t: &RawThread,
    access: &ClientOp,
    fences: &[&ClientOp],
    k: usize,
    shape_fence: Option<FenceKind>,
    v2: &V2,
) -> Result<(), ParseError> {
    let kinds: Vec<FenceKind> = fences
        .iter()
        .map(|f| match f.kind {
            ClientOpKind::Fence(kind) => kind,
            _ => unreachable!("accesses() gives fences only"),
        })
        .collect();
    let ok = match (shape_fence, v2.fence) {
        (Some(f), _) => kinds == [f],
        (None, _) if k == 0 => kinds.is_empty(),
        (None, Fence::None) => kinds.is_empty(),
        (None, Fence::Full) => kinds == [FenceKind::Full],
        (None, Fence::Random) => kinds.is_empty() || kinds == [FenceKind::Full],
    };
    if ok {
        return Ok(());
    }
    let at = fences.first().map_or(access.pos, |f| f.pos);
    if shape_fence.is_none() && v2.fence == Fence::None {
        return Err(ParseError {
            pos: at,
            msg: format!(
                "client thread `{}` has a fence, its header says fence=none",
                t.name
            ),
        });
    }
    let expected = match (shape_fence, v2.fence) {
        (Some(f), _) => fence_text(f, v2.isa).to_owned(),
        (None, _) if k == 0 => "no fence".to_owned(),
        (None, Fence::Full) => fence_text(FenceKind::Full, v2.isa).to_owned(),
        _ => format!("no fence or {}", fence_text(FenceKind::Full, v2.isa)),
    };
    Err(ParseError {
        pos: at,
        msg: format!(
            "client thread `{}`: expected {expected} before this access (the shape and the \
             header's fence={})",
            t.name,
            fence_name(v2.fence, v2.isa)
        ),
    })
}

/// Whether `op` is read access `acc` (of a role; `acc.write` false) under
/// the header: its variable, its acquire, and an exclusive load only where
/// `rmw=` puts one (the x86 client's locked read prints as a plain one).
fn read_fits(acc: &Access, var: &str, order: Ordering, exclusive: bool, v2: &V2) -> bool {
    let may_lock = acc.order == Ordering::Plain && matches!(v2.rmw, Rmw::Cmpxchg | Rmw::Random);
    let may_plain = acc.order != Ordering::Plain || !matches!(v2.rmw, Rmw::Cmpxchg);
    var == acc.var
        && order == acc.order
        && match (v2.isa, exclusive) {
            (Isa::X86, _) => true,
            (Isa::Aarch64, true) => may_lock,
            (Isa::Aarch64, false) => may_plain,
        }
}

/// Whether `op` runs access `acc` of a role under the header's `rmw=`.
fn access_fits(op: &ClientOp, acc: &Access, v2: &V2) -> bool {
    let plain = acc.order == Ordering::Plain && !acc.exclusive;
    match &op.kind {
        ClientOpKind::Read {
            var,
            value,
            order,
            exclusive,
        } => {
            if !acc.write {
                return read_fits(acc, var, *order, *exclusive, v2);
            }
            // a failed compare-and-swap of a write: it found a non-zero value
            plain
                && var == acc.var
                && *order == Ordering::Plain
                && matches!(v2.rmw, Rmw::Cmpxchg | Rmw::Random)
                && *value != 0
                && (v2.isa == Isa::X86 || *exclusive)
        }
        ClientOpKind::Write { var, value, order } => {
            acc.write
                && !acc.exclusive
                && var == acc.var
                && *value == acc.value
                && *order == acc.order
                && (acc.order != Ordering::Plain || matches!(v2.rmw, Rmw::None | Rmw::Random))
        }
        ClientOpKind::Rmw { var, old, new } => {
            acc.write
                && var == acc.var
                && *new == acc.value
                && (acc.exclusive
                    || plain
                        && match v2.rmw {
                            Rmw::None => false,
                            Rmw::Cmpxchg => *old == 0,
                            Rmw::Xchg | Rmw::Random => true,
                        })
        }
        ClientOpKind::Fence(_) => false,
    }
}

/// Checks a thread that ran thread `role` of `shape`.
fn check_role(
    t: &RawThread,
    ops: &[ClientOp],
    shape: &Shape,
    role: usize,
    v2: &V2,
) -> Result<(), ParseError> {
    let ro = &shape.roles[role];
    let what = || format!("P{role} of {}: {}", shape.tag, role_text(ro, v2.isa));
    let accs = accesses(t, ops)?;
    let n = ro.accesses.len();
    let warm = match (ro.warm, v2.warm_up, accs.len()) {
        (Some(var), WarmUp::On | WarmUp::Random, m) if m == n + 1 => Some((var, accs[0].0)),
        (Some(_), WarmUp::Off | WarmUp::Random, m) | (None, _, m) if m == n => None,
        (_, _, m) => {
            let expected = match (ro.warm, v2.warm_up) {
                (Some(_), WarmUp::On) => format!("{}, with the warm-up read", n + 1),
                (Some(_), WarmUp::Random) => format!("{n} or {}", n + 1),
                _ => n.to_string(),
            };
            return Err(ParseError {
                pos: t.pos,
                msg: format!(
                    "client thread `{}` ({}) has {m} accesses, expected {expected}",
                    t.name,
                    what()
                ),
            });
        }
    };
    if let Some((var, op)) = warm {
        let plain_read = matches!(&op.kind, ClientOpKind::Read { var: v, order: Ordering::Plain, exclusive: false, .. } if v == var);
        if !plain_read {
            return Err(ParseError {
                pos: op.pos,
                msg: format!(
                    "client thread `{}` ({}): expected the warm-up read R({var},_)",
                    t.name,
                    what()
                ),
            });
        }
    }
    let skip = usize::from(warm.is_some());
    for (k, (op, fences)) in accs.iter().enumerate() {
        let acc = k.checked_sub(skip).map(|j| &ro.accesses[j]);
        check_fences(t, op, fences, k, acc.and_then(|a| a.fence), v2)?;
        let Some(acc) = acc else { continue };
        if !access_fits(op, acc, v2) {
            return Err(ParseError {
                pos: op.pos,
                msg: format!(
                    "client thread `{}` ({}): expected {} here (header rmw={})",
                    t.name,
                    what(),
                    access_text(acc, v2),
                    rmw_name(v2.rmw)
                ),
            });
        }
    }
    Ok(())
}

/// Checks a thread of a random round: `ops` accesses to x and y, written
/// values 1..=threads*ops.
fn check_random_thread(
    t: &RawThread,
    ops: &[ClientOp],
    threads: u64,
    v2: &V2,
) -> Result<(), ParseError> {
    let accs = accesses(t, ops)?;
    if accs.len() as u64 != v2.ops {
        return Err(ParseError {
            pos: t.pos,
            msg: format!(
                "client thread `{}` has {} accesses, its header says ops={}",
                t.name,
                accs.len(),
                v2.ops
            ),
        });
    }
    let max = threads.saturating_mul(v2.ops);
    for (k, (op, fences)) in accs.into_iter().enumerate() {
        check_fences(t, op, &fences, k, None, v2)?;
        let (var, value) = match &op.kind {
            ClientOpKind::Read {
                var,
                order: Ordering::Plain,
                exclusive,
                ..
            } if !*exclusive || matches!(v2.rmw, Rmw::Cmpxchg | Rmw::Random) => (var, None),
            ClientOpKind::Write {
                var,
                value,
                order: Ordering::Plain,
            } if matches!(v2.rmw, Rmw::None | Rmw::Random) => (var, Some(*value)),
            ClientOpKind::Rmw { var, old, new } if v2.rmw != Rmw::None => {
                if v2.rmw == Rmw::Cmpxchg && *old != 0 {
                    return Err(ParseError {
                        pos: op.pos,
                        msg: "a successful client cmpxchg reads 0 (header rmw=cmpxchg)".to_owned(),
                    });
                }
                (var, Some(*new))
            }
            _ => {
                return Err(ParseError {
                    pos: op.pos,
                    msg: format!(
                        "client thread `{}`: {} access under header rmw={}",
                        t.name,
                        match &op.kind {
                            ClientOpKind::Rmw { .. } => "a locked",
                            ClientOpKind::Read {
                                exclusive: true, ..
                            } => "an exclusive",
                            ClientOpKind::Read { .. } => "an acquire",
                            ClientOpKind::Write {
                                order: Ordering::Plain,
                                ..
                            } => "a plain write",
                            _ => "a release",
                        },
                        rmw_name(v2.rmw)
                    ),
                })
            }
        };
        if var != "x" && var != "y" {
            return Err(ParseError {
                pos: op.pos,
                msg: format!("client variable `{var}` is not x or y"),
            });
        }
        if value.is_some_and(|v| v == 0 || v > max) {
            return Err(ParseError {
                pos: op.pos,
                msg: format!(
                    "a client random round writes values 1..={max} (threads x ops), \
                     found {}",
                    value.unwrap_or(0)
                ),
            });
        }
    }
    Ok(())
}

/// A fence as the client's ISA names it in messages.
fn fence_text(f: FenceKind, isa: Isa) -> &'static str {
    match (f, isa) {
        (FenceKind::Full, Isa::X86) => "F",
        (FenceKind::Full, Isa::Aarch64) => "DMB.ISH (F)",
        (FenceKind::Ld, _) => "DMB.ISHLD",
        (FenceKind::St, _) => "DMB.ISHST",
    }
}

/// The header's `fence=` value.
fn fence_name(f: Fence, isa: Isa) -> &'static str {
    match (f, isa) {
        (Fence::None, _) => "none",
        (Fence::Full, Isa::X86) => "mfence",
        (Fence::Full, Isa::Aarch64) => "dmb",
        (Fence::Random, _) => "random",
    }
}

/// An access of a shape without its values: `W(x,1)`, `R(y)`, `STLR(x,1)`,
/// `LDAR(y)`, `LDAPR(y)`, `X(x,1)` (an exclusive swap), after its barrier.
fn shape_access_text(a: &Access, isa: Isa) -> String {
    let fence = a
        .fence
        .map(|f| format!("{} ", fence_text(f, isa)))
        .unwrap_or_default();
    let op = match (a.write, a.exclusive, a.order) {
        (true, true, _) => format!("X({},{})", a.var, a.value),
        (true, _, Ordering::Release) => format!("STLR({},{})", a.var, a.value),
        (true, _, _) => format!("W({},{})", a.var, a.value),
        (false, _, Ordering::Acquire) => format!("LDAR({})", a.var),
        (false, _, Ordering::AcquirePc) => format!("LDAPR({})", a.var),
        (false, _, _) => format!("R({})", a.var),
    };
    format!("{fence}{op}")
}

/// A role's program, e.g. `[R(x)] R(y) R(x)` (the warm-up read in brackets).
fn role_text(ro: &Role, isa: Isa) -> String {
    let warm = ro.warm.map(|v| format!("[R({v})] "));
    let accs: Vec<String> = ro
        .accesses
        .iter()
        .map(|a| shape_access_text(a, isa))
        .collect();
    format!("{}{}", warm.unwrap_or_default(), accs.join(" "))
}

/// What an access of a shape may look like in the history under `rmw`.
fn access_text(a: &Access, v2: &V2) -> String {
    let (x, v) = (a.var, a.value);
    let ordered = match a.order {
        Ordering::Plain => "",
        Ordering::Acquire => " (an LDAR)",
        Ordering::AcquirePc => " (an LDAPR)",
        Ordering::Release => " (an STLR)",
    };
    if !a.write {
        return format!("R({x},_){ordered}");
    }
    if a.exclusive {
        return format!("U({x},_,{v}) (an exclusive swap)");
    }
    if a.order != Ordering::Plain {
        return format!("W({x},{v}){ordered}");
    }
    match v2.rmw {
        Rmw::None => format!("W({x},{v})"),
        Rmw::Xchg => format!("U({x},_,{v})"),
        Rmw::Cmpxchg => format!("U({x},0,{v}) or a failed cmpxchg R({x},_) (not 0)"),
        Rmw::Random => format!("W({x},{v}), U({x},_,{v}) or a failed cmpxchg R({x},_)"),
    }
}

fn rmw_name(rmw: Rmw) -> &'static str {
    match rmw {
        Rmw::None => "none",
        Rmw::Xchg => "xchg",
        Rmw::Cmpxchg => "cmpxchg",
        Rmw::Random => "random",
    }
}

/// The variable an operation accesses (none for a fence).
fn var_of(op: &RawOp) -> Option<&str> {
    match &op.kind {
        RawOpKind::Read { var, .. } | RawOpKind::Write { var, .. } | RawOpKind::Rmw { var, .. } => {
            Some(var)
        }
        RawOpKind::Fence => None,
    }
}

/// A history's own `@key value` line (before the header's are added).
fn own_meta<'a>(h: &'a RawHistory, key: &str) -> Option<(&'a str, Pos)> {
    h.meta
        .iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, at)| (v.as_str(), *at))
}

fn missing(h: &RawHistory, line: &str) -> ParseError {
    ParseError {
        pos: h.pos,
        msg: format!("client history has no `{line}` line (its header is v2)"),
    }
}

/// A client header line as written, for cross-checks against the run that
/// printed it: where it is, its version (`v1`, `v2`), its `key=value`
/// fields in order (malformed tokens left out: [`parse_client`] reports
/// them), and whether an end line closes its block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderLine {
    pub pos: Pos,
    pub version: String,
    pub fields: Vec<(String, String)>,
    pub ended: bool,
}

impl HeaderLine {
    /// The value of field `key`, if the header has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The client header lines of `src`, in order (see [`HeaderLine`]): a
/// scan of its lines, no history parsed.
pub fn header_lines(src: &[u8]) -> Vec<HeaderLine> {
    let mut out: Vec<HeaderLine> = Vec::new();
    for (index, _, line) in lines(src) {
        let Some(rest) = line.strip_prefix(PREFIX.as_bytes()) else {
            continue;
        };
        let rest = String::from_utf8_lossy(rest);
        if rest.starts_with(END) {
            if let Some(h) = out.last_mut() {
                h.ended = true;
            }
            continue;
        }
        let mut words = tokens(&rest);
        let version = words.next().map_or("", |(_, t)| t).to_owned();
        if !version.starts_with('v') {
            continue;
        }
        let fields = words
            .filter_map(|(_, t)| t.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        out.push(HeaderLine {
            pos: Pos {
                line: to_u32(index + 1),
                col: 1,
            },
            version,
            fields,
            ended: false,
        });
    }
    out
}

/// A header's fields as a command line decides them: each key with the
/// value it must have, or `None` when it must be absent.
pub type ExpectedFields = Vec<(&'static str, Option<String>)>;

/// What the client prints in its header when run with `args` (its command
/// line after the program's name), by `gem5-configs/client/client.c`'s own
/// rules: the version, and each field the arguments decide — `Some(value)`
/// it must have, `None` it must not have (a v2 option at its default that
/// the header leaves out: `--stream off`, `--delay-misses 0`, `--evict 0`,
/// `--evict-at spread`, `--code-line off`, `--barrier atomic`). A v1
/// command line decides every field (its defaults are positional); a v2
/// one only the options it names. An error when the
/// client would refuse the arguments (it then prints its usage and no
/// header).
pub fn expected_header(args: &[&str]) -> Result<(&'static str, ExpectedFields), String> {
    let number = |what: &str, v: &str, min: u64, max: u64| match decimal(v) {
        Some(n) if (min..=max).contains(&n) => Ok(n.to_string()),
        _ => Err(format!(
            "{what} must be a number from {min} to {max}, found `{v}`"
        )),
    };
    if !args.first().is_some_and(|a| a.starts_with('-')) {
        // v1: THREADS OPS WORDS SEED [ROUNDS [STRIDE [WRITE_PERCENT]]]
        if !(4..=7).contains(&args.len()) {
            return Err(format!(
                "a v1 command line has 4 to 7 numbers (THREADS OPS WORDS SEED [ROUNDS [STRIDE [WRITE_PERCENT]]]), found {}",
                args.len()
            ));
        }
        let at = |i: usize, default: &'static str| args.get(i).copied().unwrap_or(default);
        let u32max = u64::from(u32::MAX);
        let fields = vec![
            ("threads", number("THREADS", args[0], 1, 4096)?),
            ("ops", number("OPS", args[1], 1, u32max)?),
            ("words", number("WORDS", args[2], 1, u32max)?),
            ("seed", number("SEED", args[3], 0, u64::MAX)?),
            ("rounds", number("ROUNDS", at(4, "1"), 1, u32max)?),
            ("stride", number("STRIDE", at(5, "1"), 1, u32max)?),
            ("writes", number("WRITE_PERCENT", at(6, "50"), 0, 100)?),
        ];
        return Ok((
            "v1",
            fields.into_iter().map(|(k, v)| (k, Some(v))).collect(),
        ));
    }
    let mut fields: ExpectedFields = Vec::new();
    let mut set = |key: &'static str, value: Option<String>| {
        fields.retain(|(k, _)| *k != key);
        fields.push((key, value));
    };
    let mut words = args.iter();
    let mut threads = false;
    while let Some(&word) = words.next() {
        let (name, value) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, v),
            _ if word.starts_with("--") => match words.next() {
                Some(v) => (word, *v),
                None => return Err(format!("the option {word} without its value")),
            },
            _ => {
                return Err(format!(
                    "`{word}` where the client expects an option --NAME VALUE"
                ))
            }
        };
        let one_of = |names: &[&str]| {
            if names.contains(&value) {
                Ok(value.to_owned())
            } else {
                Err(format!(
                    "{name} must be one of {}, found `{value}`",
                    names.join(", ")
                ))
            }
        };
        match name {
            "--threads" => {
                threads = true;
                set("threads", Some(number(name, value, 1, 4096)?));
            }
            "--rounds" => set("rounds", Some(number(name, value, 1, u64::from(u32::MAX))?)),
            "--seed" => set("seed", Some(number(name, value, 0, u64::MAX)?)),
            "--shape" => {
                let mut names: Vec<&str> = SHAPES.iter().map(|s| s.name).collect();
                names.push("mix");
                set("shape", Some(one_of(&names)?));
            }
            "--place" => set("place", Some(one_of(&["first", "random"])?)),
            "--sharing" => set(
                "sharing",
                Some(one_of(&["same-line", "own-line", "random"])?),
            ),
            // `mfence` is the x86 client's full fence, `dmb` (DMB ISH) the
            // aarch64 one's: each client refuses the other's
            "--fence" => set("fence", Some(one_of(&["none", "mfence", "dmb", "random"])?)),
            "--rmw" => set("rmw", Some(one_of(&["none", "xchg", "cmpxchg", "random"])?)),
            "--warm-up" => set("warm-up", Some(one_of(&["on", "off", "random"])?)),
            "--warm-order" => {
                let o = one_of(&["any", "first"])?;
                set("warm-order", (o == "first").then_some(o));
            }
            "--delay-misses" => {
                let n = number(name, value, 0, 4)?;
                set("delay-misses", (n != "0").then_some(n));
            }
            "--evict" => {
                let n = number(name, value, 0, 65_536)?;
                set("evict", (n != "0").then_some(n));
            }
            "--code-line" => {
                let o = one_of(&["off", "on"])?;
                set("code-line", (o == "on").then_some(o));
            }
            "--evict-at" => {
                let a = one_of(&["spread", "conflict", "inside", "refill"])?;
                set("evict-at", (a != "spread").then_some(a));
            }
            "--delay-chain" => set("delay-chain", Some(number(name, value, 0, 100_000)?)),
            "--spin" => set("spin", Some(number(name, value, 0, 1_000_000_000)?)),
            "--ops" => set("ops", Some(number(name, value, 1, 100_000)?)),
            "--writes" => set("writes", Some(number(name, value, 0, 100)?)),
            "--barrier" => {
                let b = one_of(&["atomic", "plain"])?;
                set("barrier", (b == "plain").then_some(b));
            }
            "--stream" => {
                let s = one_of(&["off", "on"])?;
                set("stream", (s == "on").then_some(s));
            }
            _ => return Err(format!("unknown option {name}")),
        }
    }
    if !threads {
        return Err("--threads is required".into());
    }
    Ok(("v2", fields))
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
    use crate::hist::parse_hist;

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
        let e = err("# memconform-client v3 threads=1\n");
        assert_eq!(e.pos, Pos { line: 1, col: 21 });
        assert!(e.msg.contains("`v3`") && e.msg.contains("v1 and v2"), "{e}");
        let e = err("# memconform-client v2 threads=1\n");
        assert_eq!(e.pos, Pos { line: 1, col: 1 });
        assert!(e.msg.contains("no `rounds=`"), "{e}");
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
    fn reads_the_whole_rounds_of_output_still_being_written() {
        // every cut of the output: the rounds whose thread lines all ended
        let end = TWO_ROUNDS.find("# memconform-client end").unwrap();
        let r1 = TWO_ROUNDS.find("---").unwrap();
        let whole0 = TWO_ROUNDS[..r1].rfind('\n').unwrap() + 1;
        for cut in TWO_ROUNDS.find('\n').unwrap() + 1..TWO_ROUNDS.len() {
            let src = &TWO_ROUNDS[..cut];
            let (hs, unfinished) = parse_client_prefix(src.as_bytes()).unwrap();
            let expect = if cut >= end {
                2
            } else if cut >= whole0 {
                1
            } else {
                0
            };
            assert_eq!(hs.len(), expect, "cut at {cut}: {src:?}");
            let finished = cut >= TWO_ROUNDS.len() - 1 || src.ends_with("histories=2\n");
            if !finished {
                let u = unfinished.unwrap_or_else(|| panic!("cut at {cut}"));
                assert_eq!((u.rounds_seen, u.rounds), (expect as u64, 2));
                assert_eq!(u.header, Pos { line: 1, col: 1 });
            }
            for (i, h) in hs.iter().enumerate() {
                assert_eq!(h.threads.len(), 2);
                assert!(meta(h).contains(&("round", &*i.to_string())), "{cut}");
            }
        }
        // a finished block reads as parse_client does
        let (hs, unfinished) = parse_client_prefix(TWO_ROUNDS.as_bytes()).unwrap();
        assert_eq!((hs.len(), unfinished), (2, None));
        // what is there is still checked: a wrong round number is an error
        let bad = &TWO_ROUNDS.replace("@round 0", "@round 5")[..end];
        assert!(parse_client_prefix(bad.as_bytes()).is_err());
        // and parse_client still refuses it
        assert!(err(&TWO_ROUNDS[..end]).msg.contains("cut short"));
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

    /// v2: a round of each kind (MP with its warm-up read and a fence,
    /// RANDOM, 2+2W with a failed cmpxchg, WRC without warm-up), idle threads.
    const MIX: &str = "\
# memconform-client v2 threads=4 rounds=4 seed=3 shape=mix place=random sharing=random fence=random rmw=random warm-up=random delay-chain=12 spin=32 ops=2 writes=50
@name client-s3-r0
@round 0
@shape MP
@place t2 t0
@sharing same-line
@final x=1 y=2
t0: R(x,0) F R(y,2) R(x,0)
t1:
t2: U(x,0,1) W(y,2)
t3:
---
@name client-s3-r1
@round 1
@shape RANDOM
@place t0 t1 t2 t3
@sharing own-line
@final x=5 y=2
t0: W(x,1) F R(y,0)
t1: U(y,0,2) R(x,1)
t2: R(x,1) R(x,1)
t3: R(y,2) W(x,5)
---
@name client-s3-r2
@round 2
@shape 2+2W
@place t3 t1
@sharing own-line
@final x=1 y=3
t0:
t1: W(y,3) F R(x,1)
t2:
t3: W(x,1) W(y,2)
---
@name client-s3-r3
@round 3
@shape WRC
@place t1 t2 t0
@sharing same-line
@final x=1 y=2
t0: R(y,2) R(x,1)
t1: W(x,1)
t2: R(x,1) F U(y,0,2)
t3:
# memconform-client end histories=4
";

    /// The bundled output of a native v2 run (4 threads, every shape).
    const BUNDLED: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/client/v2-mix-n4-s3.out"
    ));

    /// Client output of the aarch64 client (hand-made, in its format): SB
    /// with release/acquire, MP with DMB ISHST/ISHLD and an exclusive swap,
    /// a random round with a failed exclusive compare-and-swap.
    const ARM: &str = "\
# memconform-client v2 threads=2 rounds=3 seed=9 shape=mix place=first sharing=random fence=random rmw=random warm-up=on delay-chain=12 spin=32 ops=2 writes=50 isa=aarch64
@name client-s9-r0
@round 0
@shape SB+REL+ACQ
@place t0 t1
@sharing own-line
@final x=1 y=2
@arm t0 STLR LDAR
@arm t1 STLR DMB.ISH LDAR
t0: W(x,1) R(y,0)
t1: W(y,2) F R(x,1)
---
@name client-s9-r1
@round 1
@shape MP+DMB.ST+DMB.LD
@place t0 t1
@sharing same-line
@final x=1 y=2
@arm t0 LDXR.STXR DMB.ISHST STR
@arm t1 LDR LDR DMB.ISHLD LDR
t0: U(x,0,1) W(y,2)
t1: R(x,0) R(y,2) R(x,1)
---
@name client-s9-r2
@round 2
@shape RANDOM
@place t0 t1
@sharing own-line
@final x=2 y=1
@arm t0 LDXR DMB.ISH STR
@arm t1 LDXR.STXR LDR
t0: R(x,2) F W(y,1)
t1: U(x,0,2) R(y,1)
# memconform-client end histories=3
";

    /// The bundled output of the aarch64 client under qemu (4 threads,
    /// every shape, aarch64 ones included).
    const BUNDLED_ARM: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/client/v2-aarch64-mix-n4-s1.out"
    ));

    #[test]
    fn reads_aarch64_rounds_with_their_instructions() {
        let hs = parse_client(ARM.as_bytes()).unwrap();
        assert_eq!(hs.len(), 3);
        assert!(hs[0]
            .meta
            .iter()
            .any(|(k, v, _)| k == "isa" && v == "aarch64"));
        // the instructions reach the checked history as annotations: STLR
        // `W.rel`, LDAR `R.acq`, DMB ISHST `F.st`, DMB ISHLD `F.ld`
        let anns = |h: &RawHistory, t: usize| -> Vec<(RawOpKind, Ann)> {
            h.threads[t]
                .ops
                .iter()
                .map(|o| (o.kind.clone(), o.ann))
                .collect()
        };
        let sb = anns(&hs[0], 0);
        assert_eq!((sb[0].1, sb[1].1), (Ann::Rel, Ann::Acq));
        assert_eq!(anns(&hs[0], 1)[1], (RawOpKind::Fence, Ann::None));
        assert_eq!(anns(&hs[1], 0).len(), 3);
        assert_eq!(anns(&hs[1], 0)[1], (RawOpKind::Fence, Ann::St));
        assert_eq!(anns(&hs[1], 1).len(), 4);
        assert_eq!(anns(&hs[1], 1)[2], (RawOpKind::Fence, Ann::Ld));
        // the raw text (a plain `.hist`, no `@arm` lines read) has the same
        // accesses, without their annotations and partial fences
        let plain = parse_hist(ARM.as_bytes()).unwrap();
        for (p, c) in plain.iter().zip(&hs) {
            for (pt, ct) in p.threads.iter().zip(&c.threads) {
                let full: Vec<&RawOpKind> = ct
                    .ops
                    .iter()
                    .filter(|o| !matches!(o.ann, Ann::Ld | Ann::St))
                    .map(|o| &o.kind)
                    .collect();
                let text: Vec<&RawOpKind> = pt.ops.iter().map(|o| &o.kind).collect();
                assert_eq!(text, full);
            }
        }
        // the instructions, from the `@arm` lines
        let ops = client_ops(&plain[0], Isa::Aarch64).unwrap();
        let orders: Vec<Ordering> = ops[1]
            .iter()
            .filter_map(|o| match &o.kind {
                ClientOpKind::Read { order, .. } | ClientOpKind::Write { order, .. } => {
                    Some(*order)
                }
                _ => None,
            })
            .collect();
        assert_eq!(orders, [Ordering::Release, Ordering::Acquire]);
        let ops = client_ops(&plain[1], Isa::Aarch64).unwrap();
        assert_eq!(ops[0][1].kind, ClientOpKind::Fence(FenceKind::St));
        assert_eq!(ops[1][2].kind, ClientOpKind::Fence(FenceKind::Ld));
        assert!(matches!(
            ops[0][0].kind,
            ClientOpKind::Rmw { old: 0, new: 1, .. }
        ));
        let ops = client_ops(&plain[2], Isa::Aarch64).unwrap();
        assert!(matches!(
            ops[0][0].kind,
            ClientOpKind::Read {
                exclusive: true,
                value: 2,
                ..
            }
        ));
        // the mapping into the history: acquire/release plain, weak DMBs out
        assert_eq!(
            ops[0].iter().filter_map(hist_op).count(),
            ops[0].len(),
            "DMB.ISH maps to F"
        );
    }

    #[test]
    fn reads_the_bundled_aarch64_run() {
        let hs = parse_client(BUNDLED_ARM.as_bytes()).unwrap();
        assert_eq!(hs.len(), 64);
        // a `mix` run: every shape but MP+S, which mix does not draw
        for s in SHAPES.iter().filter(|s| s.name != "mp+s") {
            assert!(
                hs.iter()
                    .any(|h| h.meta.iter().any(|(k, v, _)| k == "shape" && v == s.tag)),
                "no {} round",
                s.tag
            );
        }
        crate::hist::tests::assert_round_trip(&hs);
    }

    #[test]
    fn rejects_aarch64_rounds_whose_instructions_do_not_fit() {
        let e = |from: &str, to: &str| {
            assert!(ARM.contains(from), "{from}");
            ARM.replacen(from, to, 1)
        };
        // the shape's STLR run as a plain STR
        err_at(
            &e("@arm t0 STLR LDAR", "@arm t0 STR LDAR"),
            10,
            5,
            "(an STLR)",
        );
        // LDAPR where the shape has LDAR
        err_at(
            &e("@arm t0 STLR LDAR", "@arm t0 STLR LDAPR"),
            10,
            12,
            "(an LDAR)",
        );
        // the shape's DMB ISHLD as ISHST
        err_at(
            &e("LDR DMB.ISHLD LDR", "LDR DMB.ISHST LDR"),
            20,
            1,
            "expected DMB.ISHLD before this access",
        );
        // an instruction that is not its operation
        err_at(
            &e("LDR DMB.ISHLD LDR", "LDR DMB.ISH LDR"),
            22,
            19,
            "says DMB.ISH here",
        );
        err_at(
            &e("@arm t0 STLR LDAR", "@arm t0 STLR LDADD"),
            8,
            1,
            "unknown instruction `LDADD`",
        );
        err_at(
            &e("@arm t0 STLR LDAR", "@arm t0 STLR"),
            10,
            12,
            "no instruction",
        );
        err_at(
            &e("@arm t0 STLR LDAR", "@arm t0 STLR LDAR LDR"),
            8,
            1,
            "has no operation",
        );
        err_at(&e("@arm t0 STLR LDAR\n", ""), 2, 1, "one per thread");
        err_at(
            &e("@arm t0 STLR", "@arm t1 STLR"),
            8,
            1,
            "expected the line of thread `t0`",
        );
        // an exclusive swap where the header allows none
        err_at(
            &e("rmw=random", "rmw=none"),
            21,
            5,
            "expected W(x,1) here (header rmw=none)",
        );
        // a random round's accesses are plain (or exclusive, as rmw= says)
        err_at(
            &e("@arm t0 LDXR DMB", "@arm t0 LDAR DMB"),
            32,
            5,
            "an acquire access",
        );
        // the header: ISA and fence names
        err_at(&e(" isa=aarch64", ""), 8, 1, "x86 client");
        err_at(
            &e("fence=random", "fence=mfence"),
            1,
            87,
            "one of none, dmb, random",
        );
        let e3 = err(&e("isa=aarch64", "isa=riscv"));
        assert!(e3.msg.contains("aarch64"), "{e3}");
        let e4 = err(&MIX.replacen("shape=mix", "shape=sb-rel-acq", 1));
        assert!(e4.msg.contains("x86 client"), "{e4}");
    }

    /// `MIX` with the header field `from` replaced by `to`.
    fn mix_with(from: &str, to: &str) -> String {
        let header = MIX.lines().next().unwrap();
        assert!(header.contains(from), "{from}");
        MIX.replacen(header, &header.replacen(from, to, 1), 1)
    }

    fn err_at(src: &str, line: u32, col: u32, msg: &str) {
        let e = err(src);
        assert_eq!(e.pos, Pos { line, col }, "{e}");
        assert!(e.msg.contains(msg), "`{msg}` not in: {e}");
    }

    #[test]
    fn parses_v2_rounds_with_header_metadata() {
        assert!(looks_like_client(MIX.as_bytes()));
        let hs = parse_client(MIX.as_bytes()).unwrap();
        assert_eq!(hs.len(), 4);
        assert_eq!(hs[3].name.as_deref(), Some("client-s3-r3"));
        // the header's shape, place and sharing give way to the round's own
        assert_eq!(
            meta(&hs[0]),
            [
                ("source", "client"),
                ("threads", "4"),
                ("rounds", "4"),
                ("seed", "3"),
                ("fence", "random"),
                ("rmw", "random"),
                ("warm-up", "random"),
                ("delay-chain", "12"),
                ("spin", "32"),
                ("ops", "2"),
                ("writes", "50"),
                ("cpus", "4"),
                ("round", "0"),
                ("shape", "MP"),
                ("place", "t2 t0"),
                ("sharing", "same-line"),
            ]
        );
        assert_eq!(hs[0].meta[13].2, Pos { line: 4, col: 1 });
        assert_eq!(
            hs[2].finals,
            [
                ("x".to_owned(), 1, Pos { line: 29, col: 8 }),
                ("y".to_owned(), 3, Pos { line: 29, col: 12 })
            ]
        );
        assert!(hs[0].threads[1].ops.is_empty() && hs[0].threads[3].ops.is_empty());
        assert_eq!(hs[0].threads[0].ops.len(), 4);
        assert_eq!(hs[3].threads[2].ops[2].pos, Pos { line: 43, col: 14 });
        assert_eq!(
            hs[3].threads[2].ops[2].kind,
            RawOpKind::Rmw {
                var: "y".into(),
                old: 0,
                new: 2
            }
        );
        assert_eq!(hs[2].threads[1].ops[1].kind, RawOpKind::Fence);
        // a v1 block and a v2 block in one file
        let both = format!("{TWO_ROUNDS}{MIX}");
        let hs = parse_client(both.as_bytes()).unwrap();
        assert_eq!(hs.len(), 6);
        assert_eq!(hs[2].pos.line, 11 + 2);
    }

    #[test]
    fn a_v2_block_is_a_hist_file() {
        let plain = parse_hist(MIX.as_bytes()).unwrap();
        let client = parse_client(MIX.as_bytes()).unwrap();
        for (p, c) in plain.iter().zip(&client) {
            assert_eq!((&p.threads, &p.finals), (&c.threads, &c.finals));
        }
        crate::hist::tests::assert_round_trip(&client);
        crate::hist::tests::assert_round_trip(&parse_client(BUNDLED.as_bytes()).unwrap());
    }

    #[test]
    fn reads_the_bundled_native_run() {
        let hs = parse_client(BUNDLED.as_bytes()).unwrap();
        assert_eq!(hs.len(), 48);
        // a `mix` run: every x86 shape but MP+S, which mix does not draw
        for s in SHAPES.iter().filter(|s| !s.arm && s.name != "mp+s") {
            assert!(
                hs.iter()
                    .any(|h| h.meta.iter().any(|(k, v, _)| k == "shape" && v == s.tag)),
                "no {} round",
                s.tag
            );
        }
    }

    /// The README's examples are client output.
    #[test]
    fn the_readme_examples_parse() {
        let readme = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../gem5-configs/README.md"
        ));
        for needle in [
            "# memconform-client v1 threads=2",
            "# memconform-client v2 threads=3",
        ] {
            let block = readme
                .split("```")
                .skip(1)
                .step_by(2)
                .find(|b| b.contains(needle))
                .unwrap_or_else(|| panic!("no README example `{needle}`"));
            let hs = parse_client(block.as_bytes()).unwrap_or_else(|e| panic!("{needle}: {e}"));
            assert_eq!(hs.len(), 2, "{needle}");
        }
    }

    #[test]
    fn rejects_bad_v2_header_fields() {
        let e = err(&mix_with(" shape=mix", ""));
        assert_eq!(e.pos, Pos { line: 1, col: 1 });
        assert!(e.msg.contains("no `shape=`"), "{e}");
        err_at(
            &mix_with("shape=mix", "shape=mpp"),
            1,
            50,
            "one of random, mp,",
        );
        err_at(&mix_with("shape=mix", "shape=MP"), 1, 50, "found `MP`");
        err_at(
            &mix_with("threads=4", "threads=2").replace("shape=mix", "shape=iriw"),
            1,
            50,
            "at most threads=2",
        );
        err_at(&mix_with("threads=4", "threads=0"), 1, 24, "at least 1");
        err_at(&mix_with("ops=2", "ops=0"), 1, 150, "at least 1");
        err_at(&mix_with("writes=50", "writes=101"), 1, 156, "at most 100");
        err_at(&mix_with("spin=32", "spin=-1"), 1, 142, "decimal");
        for (field, bad) in [
            ("place=random", "place=last"),
            ("sharing=random", "sharing=both"),
            ("fence=random", "fence=sfence"),
            ("rmw=random", "rmw=xadd"),
            ("warm-up=random", "warm-up=yes"),
        ] {
            let e = err(&mix_with(field, bad));
            let key = field.split('=').next().unwrap();
            assert!(e.msg.contains(&format!("`{key}` must be one of")), "{e}");
            assert_eq!(e.pos.line, 1);
        }
    }

    #[test]
    fn rejects_v2_rounds_that_do_not_match_the_header() {
        // @shape
        err_at(
            &MIX.replace("@shape MP", "@shape XX"),
            4,
            1,
            "unknown client shape `XX`",
        );
        err_at(&MIX.replace("@shape MP\n", ""), 2, 1, "no `@shape` line");
        err_at(
            &mix_with("shape=mix", "shape=mp"),
            15,
            1,
            "`@shape RANDOM` in a block of shape=mp",
        );
        err_at(
            &mix_with("threads=4", "threads=3")
                .replace("t3:\n", "")
                .replace("@place t0 t1 t2 t3", "@place t0 t1 t2")
                .replace("\nt3: R(y,2) W(x,5)", "")
                .replacen("@shape MP", "@shape IRIW", 1),
            4,
            1,
            "`@shape IRIW` needs 4 threads",
        );
        // @place
        err_at(
            &MIX.replace("@place t2 t0", "@place t2 t2"),
            5,
            1,
            "`t2` twice",
        );
        err_at(
            &MIX.replace("@place t2 t0", "@place t2"),
            5,
            1,
            "names 1 threads, a MP round has 2",
        );
        err_at(
            &MIX.replace("@place t2 t0", "@place t2 t9"),
            5,
            1,
            "`t9` is not a thread",
        );
        err_at(&MIX.replace("@place t2 t0\n", ""), 2, 1, "no `@place` line");
        err_at(
            &mix_with("place=random", "place=first"),
            5,
            1,
            "place=first",
        );
        err_at(
            &MIX.replace("@place t0 t1 t2 t3", "@place t1 t0 t2 t3"),
            16,
            1,
            "a random round runs on every thread",
        );
        // @sharing
        err_at(
            &MIX.replacen("@sharing same-line", "@sharing both", 1),
            6,
            1,
            "`@sharing both`",
        );
        err_at(
            &mix_with("sharing=random", "sharing=own-line"),
            6,
            1,
            "expected own-line",
        );
        err_at(
            &MIX.replacen("@sharing same-line\n", "", 1),
            2,
            1,
            "no `@sharing` line",
        );
        // @final
        err_at(
            &MIX.replacen("@final x=1 y=2", "@final x=1 z=2", 1),
            7,
            12,
            "`z`, not x or y",
        );
        err_at(
            &MIX.replace("@final x=1 y=3\n", ""),
            24,
            1,
            "2+2W history needs the final values",
        );
        // threads: the idle ones too
        err_at(
            &MIX.replacen("t3:\n", "", 1),
            2,
            1,
            "3 threads, its header says threads=4",
        );
        err_at(
            &MIX.replacen("t1:\n", "t1: R(x,0)\n", 1),
            9,
            5,
            "`t1` is not in `@place`",
        );
    }

    /// MP+SM (the reader's store to z, a word of x's line; both threads'
    /// warm-up reads) as a gem5 run of ME-8 printed it: parses, with
    /// `delay-misses` as metadata; a reader without its store is an error.
    #[test]
    fn parses_mp_sm_rounds() {
        const MPSM: &str = "\
# memconform-client v2 threads=2 rounds=1 seed=1 shape=mp+sm place=random sharing=own-line fence=none rmw=none warm-up=on delay-chain=0 spin=32 ops=4 writes=50 delay-misses=2
@name client-s1-r0
@round 0
@shape MP+SM
@place t1 t0
@sharing own-line
@final x=1 y=2
t0: R(x,0) W(z,3) R(y,2) R(x,0)
t1: R(x,0) W(x,1) W(y,2)
# memconform-client end histories=1
";
        let hs = parse_client(MPSM.as_bytes()).unwrap();
        assert_eq!(hs.len(), 1);
        assert!(hs[0]
            .meta
            .iter()
            .any(|(k, v, _)| k == "delay-misses" && v == "2"));
        assert_eq!(hs[0].threads[0].ops.len(), 4);
        err_at(
            &MPSM.replace("t0: R(x,0) W(z,3) R(y,2)", "t0: R(x,0) R(y,2)"),
            8,
            1,
            "has 3 accesses, expected 4",
        );
        err_at(
            &MPSM.replace("t0: R(x,0) W(z,3)", "t0: R(x,0) W(x,3)"),
            8,
            12,
            "expected W(z,3)",
        );
    }

    #[test]
    fn rejects_v2_threads_that_do_not_run_their_shape() {
        // fences: allowed by the header, between two accesses
        err_at(&mix_with("fence=random", "fence=none"), 8, 12, "fence=none");
        err_at(
            &MIX.replace("t2: U(x,0,1) W(y,2)", "t2: U(x,0,1) W(y,2) F"),
            10,
            21,
            "between two",
        );
        err_at(
            &MIX.replace("t2: U(x,0,1) W(y,2)", "t2: F U(x,0,1) W(y,2)"),
            10,
            5,
            "between two",
        );
        err_at(
            &MIX.replace("t2: U(x,0,1) W(y,2)", "t2: U(x,0,1) F F W(y,2)"),
            10,
            16,
            "between two",
        );
        // RMWs as the header says
        err_at(
            &mix_with("rmw=random", "rmw=none"),
            10,
            5,
            "expected W(x,1) here (header rmw=none)",
        );
        let xchg = mix_with("rmw=random", "rmw=xchg");
        err_at(&xchg, 10, 14, "expected U(y,_,2) here (header rmw=xchg)");
        let cmpxchg = mix_with("rmw=random", "rmw=cmpxchg");
        err_at(&cmpxchg, 10, 14, "expected U(y,0,2) or a failed cmpxchg");
        err_at(
            &cmpxchg.replace("U(x,0,1) W(y,2)", "U(x,0,1) U(y,1,2)"),
            10,
            14,
            "header rmw=cmpxchg",
        );
        // a failed cmpxchg found a non-zero value
        err_at(
            &MIX.replace("W(y,3) F R(x,1)", "W(y,3) F R(x,0)"),
            31,
            14,
            "failed cmpxchg",
        );
        // values and variables of the shape
        err_at(
            &MIX.replace("U(x,0,1) W(y,2)", "U(x,0,1) W(y,3)"),
            10,
            14,
            "expected W(y,2), U(y,_,2)",
        );
        err_at(
            &MIX.replace("R(x,0) F R(y,2) R(x,0)", "R(x,0) F R(x,2) R(x,0)"),
            8,
            14,
            "expected R(y,_)",
        );
        err_at(
            &MIX.replace("t1: W(x,1)\n", "t1: R(x,0)\n"),
            42,
            5,
            "P0 of WRC: W(x,1)",
        );
        // the warm-up read
        err_at(
            &mix_with("warm-up=random", "warm-up=on"),
            41,
            1,
            "has 2 accesses, expected 3, with the warm-up read",
        );
        err_at(
            &mix_with("warm-up=random", "warm-up=off"),
            8,
            1,
            "(P1 of MP: [R(x)] R(y) R(x)) has 3 accesses, expected 2",
        );
        err_at(
            &MIX.replace("t0: R(x,0) F", "t0: R(y,0) F"),
            8,
            5,
            "the warm-up read R(x,_)",
        );
        err_at(
            &MIX.replace("t0: R(y,2) R(x,1)", "t0: R(x,1)"),
            41,
            1,
            "has 1 accesses, expected 2 or 3",
        );
        // random rounds: `ops` accesses to x and y, values 1..=threads*ops
        err_at(
            &MIX.replace("t2: R(x,1) R(x,1)", "t2: R(x,1)"),
            21,
            1,
            "1 accesses, its header says ops=2",
        );
        err_at(&MIX.replace("W(x,5)", "W(x,9)"), 22, 12, "values 1..=8");
        err_at(
            &MIX.replace("t3: R(y,2)", "t3: R(z,2)"),
            22,
            5,
            "`z` is not x or y",
        );
        err_at(
            &mix_with("rmw=random", "rmw=xchg")
                .replace("t2: U(x,0,1) W(y,2)", "t2: U(x,0,1) U(y,0,2)"),
            19,
            5,
            "a plain write access under header rmw=xchg",
        );
    }

    #[test]
    fn syntax_errors_point_into_the_whole_input() {
        let e = err(&TWO_ROUNDS.replace("R(w1,0) W(w0,0x1000000000002)", "R(w1,0) W(w0,)"));
        assert_eq!(e.pos.line, 9);
        assert_eq!(e.pos.col, 18);
    }
}

#[cfg(test)]
mod header_tests {
    use super::*;

    /// Every option the client's own source parses (`strcmp(name, "--…")`
    /// in `main_v2`) is one `expected_header` knows; a v1 command line's
    /// defaults are the client's.
    #[test]
    fn the_client_s_command_lines_print_these_headers() {
        let src = include_str!("../../../gem5-configs/client/client.c");
        let options: Vec<&str> = src
            .split("strcmp(name, \"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .filter(|o| o.starts_with("--") && *o != "--help")
            .collect();
        assert!(options.len() >= 15, "{options:?}");
        let value = |o: &str| match o {
            "--shape" => "mp",
            "--place" => "first",
            "--sharing" => "own-line",
            "--fence" => "mfence",
            "--rmw" => "xchg",
            "--warm-up" => "off",
            "--warm-order" => "first",
            "--barrier" => "plain",
            "--stream" => "on",
            "--code-line" => "on",
            "--evict-at" => "conflict",
            _ => "2",
        };
        for o in &options {
            let args = ["--threads", "2", o, value(o)];
            let (v, fields) = expected_header(&args).unwrap_or_else(|e| panic!("{o}: {e}"));
            assert_eq!(v, "v2");
            assert!(fields.iter().any(|(_, v)| v.is_some()), "{o}");
        }
        assert!(expected_header(&["--threads", "2", "--nosuch", "1"]).is_err());
        // the aarch64 client's full fence
        let (_, fields) = expected_header(&["--threads", "2", "--fence", "dmb"]).unwrap();
        assert!(fields.contains(&("fence", Some("dmb".into()))));
        assert!(expected_header(&["--threads", "2", "--fence", "dsb"]).is_err());
        // the footprint: a field only when not 0
        let (_, fields) = expected_header(&["--threads", "2", "--evict", "1024"]).unwrap();
        assert!(fields.contains(&("evict", Some("1024".into()))));
        let (_, fields) = expected_header(&["--threads", "2", "--evict", "0"]).unwrap();
        assert!(fields.contains(&("evict", None)));
        assert!(expected_header(&["--threads", "2", "--evict", "65537"]).is_err());
        // instruction fetches of a written line: a field only when on
        let (_, fields) = expected_header(&["--threads", "2", "--code-line", "on"]).unwrap();
        assert!(fields.contains(&("code-line", Some("on".into()))));
        let (_, fields) = expected_header(&["--threads", "2", "--code-line", "off"]).unwrap();
        assert!(fields.contains(&("code-line", None)));
        assert!(expected_header(&["--threads", "2", "--code-line", "2"]).is_err());
        // the footprint's placement: a field only when not spread
        let (_, fields) = expected_header(&["--threads", "2", "--evict-at", "conflict"]).unwrap();
        assert!(fields.contains(&("evict-at", Some("conflict".into()))));
        let (_, fields) = expected_header(&["--threads", "2", "--evict-at", "spread"]).unwrap();
        assert!(fields.contains(&("evict-at", None)));
        let (_, fields) = expected_header(&["--threads", "2", "--evict-at", "inside"]).unwrap();
        assert!(fields.contains(&("evict-at", Some("inside".into()))));
        let (_, fields) = expected_header(&["--threads", "2", "--evict-at", "refill"]).unwrap();
        assert!(fields.contains(&("evict-at", Some("refill".into()))));
        assert!(expected_header(&["--threads", "2", "--evict-at", "same"]).is_err());
        assert!(expected_header(&["--rounds", "2"]).is_err());
        let (v, fields) = expected_header(&["2", "50", "2", "1"]).unwrap();
        assert_eq!(v, "v1");
        let got: Vec<(&str, String)> = fields.into_iter().map(|(k, v)| (k, v.unwrap())).collect();
        let want = [
            ("threads", "2"),
            ("ops", "50"),
            ("words", "2"),
            ("seed", "1"),
            ("rounds", "1"),
            ("stride", "1"),
            ("writes", "50"),
        ];
        assert_eq!(got, want.map(|(k, v)| (k, v.to_string())));
        assert!(expected_header(&["2", "50", "2"]).is_err());
        assert!(expected_header(&["2", "50", "2", "1", "1", "1", "101"]).is_err());
        // the headers of the client's own example, read back
        let h = header_lines(b"gem5\n# memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=2 stride=1 writes=50\nx\n# memconform-client end histories=2\n");
        assert_eq!(h.len(), 1);
        assert_eq!(
            (h[0].pos.line, h[0].ended, h[0].get("ops")),
            (2, true, Some("3"))
        );
    }
}
