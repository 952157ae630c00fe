//! The History type: operations, threads, program order `po` and the
//! write-read relation `wr`, with the implicit initial writes made explicit.
//!
//! Op ids: the initial write of variable `v` is op `v` (ops `0..vars.len()`),
//! then each thread's operations follow contiguously. An RMW `U(x,a,b)` is two
//! ops, its read then its write (flagged [`Op::rmw`]); a fence `F` is one op
//! that reads and writes nothing.

mod build;

pub use build::HistoryError;
pub(crate) use memconform_parsers::fx;
pub use memconform_parsers::hist::Ann;

use crate::relation::BitMatrix;
use memconform_parsers::Pos;

/// Index of an operation in [`History::ops`].
pub type OpId = usize;
/// Index of a variable in [`History::vars`].
pub type VarId = usize;

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Fence,
}

/// One operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    pub kind: OpKind,
    /// The thread, or `None` for an initial write.
    pub thread: Option<usize>,
    /// The variable (`None` for a fence).
    pub var: Option<VarId>,
    /// The value read or written (0 for a fence).
    pub value: u64,
    /// For the two halves of an RMW `U(x,old,new)`: the other half.
    pub rmw: Option<OpId>,
    /// The ARMv8 annotation of its token (both halves of an RMW carry it):
    /// acquire, RCpc acquire, release, or a partial fence's kind.
    pub ann: Ann,
    /// `(issue, completion)` ticks, when the input gave them.
    pub ticks: Option<(u64, u64)>,
    /// Where the operation's token starts in the input.
    pub pos: Pos,
}

/// One thread: a name and its operations (in input order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    pub name: String,
    pub pos: Pos,
    pub ops: std::ops::Range<OpId>,
    /// Whether program order is the real-time interval order of the ticks.
    pub timed: bool,
}

/// A validated history `⟨O, po, wr⟩` (gradual-consistency-checking Def. 1, with
/// the initial writes explicit).
#[derive(Debug, Clone)]
pub struct History {
    /// `@name`, if any.
    pub name: Option<String>,
    /// Position of the history in its file (0-based).
    pub index: usize,
    /// Where the history starts in its file.
    pub pos: Pos,
    pub vars: Vec<String>,
    pub ops: Vec<Op>,
    pub threads: Vec<Thread>,
    /// `@expect` verdicts: (model name, satisfied).
    pub expect: Vec<(String, bool)>,
    /// `@final` observations: (variable, value of the last write in store order).
    pub finals: Vec<(VarId, u64)>,
    /// Other `@key value` lines.
    pub meta: Vec<(String, String)>,
    rf: Vec<Option<OpId>>,
    readers: build::Lists,
    writes_of: build::Lists,
    /// Dense views, built on first use (small histories only: n² bits).
    dense: std::sync::OnceLock<Dense>,
}

/// The dense views of a history: `po` as a matrix and per-variable masks.
#[derive(Debug, Clone)]
struct Dense {
    /// Per variable, a row of `stride` words: its reads, its writes, both.
    reads_mask: Vec<u64>,
    writes_mask: Vec<u64>,
    loc_mask: Vec<u64>,
    /// All reads, all writes (one row each).
    reads: Vec<u64>,
    writes: Vec<u64>,
    po: BitMatrix,
}

impl History {
    /// Operation `o` as an input token (an RMW's read half: the whole `U`).
    pub fn raw_kind(&self, o: OpId) -> memconform_parsers::hist::RawOpKind {
        use memconform_parsers::hist::RawOpKind;
        let op = &self.ops[o];
        let var = || self.vars[op.var.expect("reads and writes have a variable")].clone();
        match (op.kind, op.rmw) {
            (OpKind::Read, Some(w)) => RawOpKind::Rmw {
                var: var(),
                old: op.value,
                new: self.ops[w].value,
            },
            (OpKind::Read, None) => RawOpKind::Read {
                var: var(),
                value: op.value,
            },
            (OpKind::Write, _) => RawOpKind::Write {
                var: var(),
                value: op.value,
            },
            (OpKind::Fence, _) => RawOpKind::Fence,
        }
    }

    /// Whether `o` is an acquire read `A` (LDAR; an RMW's read half with
    /// `.acq` or `.acqrel`).
    #[inline]
    pub fn is_acquire(&self, o: OpId) -> bool {
        self.is_read(o) && self.ops[o].ann.acquire()
    }

    /// Whether `o` is an RCpc acquire read `Q` (LDAPR).
    #[inline]
    pub fn is_acquire_pc(&self, o: OpId) -> bool {
        self.is_read(o) && self.ops[o].ann == Ann::AcqPc
    }

    /// Whether `o` is a release write `L` (STLR; an RMW's write half with
    /// `.rel` or `.acqrel`).
    #[inline]
    pub fn is_release(&self, o: OpId) -> bool {
        self.is_write(o) && self.ops[o].ann.release()
    }

    /// Whether `o` is a partial fence (`F.ld`, `F.st`).
    #[inline]
    pub fn is_partial_fence(&self, o: OpId) -> bool {
        self.ops[o].kind == OpKind::Fence && self.ops[o].ann.partial_fence()
    }

    /// Whether any operation carries an annotation or is a partial fence.
    pub fn annotated(&self) -> bool {
        self.ops.iter().any(|op| op.ann != Ann::None)
    }

    /// Number of operations, initial writes included.
    #[inline]
    pub fn n(&self) -> usize {
        self.ops.len()
    }

    /// Number of operations the input gave (initial writes excluded; an RMW counts twice).
    pub fn n_thread_ops(&self) -> usize {
        self.ops.len() - self.vars.len()
    }

    /// Whether `o` is the initial write of its variable.
    #[inline]
    pub fn is_init(&self, o: OpId) -> bool {
        o < self.vars.len()
    }

    /// Whether `o` reads.
    #[inline]
    pub fn is_read(&self, o: OpId) -> bool {
        self.ops[o].kind == OpKind::Read
    }

    /// Whether `o` writes (initial writes included).
    #[inline]
    pub fn is_write(&self, o: OpId) -> bool {
        self.ops[o].kind == OpKind::Write
    }

    /// The variable `o` accesses (`None` for a fence).
    #[inline]
    pub fn var(&self, o: OpId) -> Option<VarId> {
        self.ops[o].var
    }

    /// `wr⁻¹(r)`: the write read by `r`; `None` for a thin-air read or a non-read.
    #[inline]
    pub fn rf(&self, r: OpId) -> Option<OpId> {
        self.rf[r]
    }

    /// `wr(w)`: the reads that read from `w`.
    #[inline]
    pub fn readers(&self, w: OpId) -> &[OpId] {
        self.readers.get(w)
    }

    /// Reads of a value no write wrote (ThinAirRead).
    pub fn thin_air_reads(&self) -> impl Iterator<Item = OpId> + '_ {
        (0..self.n()).filter(|&o| self.is_read(o) && self.rf[o].is_none())
    }

    /// `@final` observations of a value no write of the variable wrote
    /// (ThinAirFinal).
    pub fn thin_air_finals(&self) -> impl Iterator<Item = (VarId, u64)> + '_ {
        self.finals
            .iter()
            .copied()
            .filter(|&(x, v)| !self.writes_of(x).iter().any(|&w| self.ops[w].value == v))
    }

    /// The writes of `x`, its initial write first.
    #[inline]
    pub fn writes_of(&self, x: VarId) -> &[OpId] {
        self.writes_of.get(x)
    }

    /// The writes of `x` as a bit row over op ids (dense view: n bits).
    #[inline]
    pub fn writes_mask(&self, x: VarId) -> &[u64] {
        let d = self.dense();
        let s = d.po.stride();
        &d.writes_mask[x * s..(x + 1) * s]
    }

    /// The reads of `x` as a bit row over op ids (dense view: n bits).
    #[inline]
    pub fn reads_mask(&self, x: VarId) -> &[u64] {
        let d = self.dense();
        let s = d.po.stride();
        &d.reads_mask[x * s..(x + 1) * s]
    }

    /// All reads as a bit row over op ids (dense view: n bits).
    #[inline]
    pub fn reads_set(&self) -> &[u64] {
        &self.dense().reads
    }

    /// All writes, initial writes included, as a bit row over op ids (dense
    /// view: n bits).
    #[inline]
    pub fn writes_set(&self) -> &[u64] {
        &self.dense().writes
    }

    /// The reads and writes of `x` as a bit row over op ids (dense view:
    /// n bits): `x`'s class of `loc`.
    #[inline]
    pub fn loc_mask(&self, x: VarId) -> &[u64] {
        let d = self.dense();
        let s = d.po.stride();
        &d.loc_mask[x * s..(x + 1) * s]
    }

    /// Program order `po`, transitive, as a matrix: initial writes before
    /// every thread operation, then each thread's order (a chain, or the
    /// interval order of its ticks). Built on first use, `n²/8` bytes: for
    /// small histories; at scale use [`History::po_before`].
    #[inline]
    pub fn po(&self) -> &BitMatrix {
        &self.dense().po
    }

    fn dense(&self) -> &Dense {
        self.dense.get_or_init(|| build::dense(self))
    }

    /// The thread of `o` (`None` for an initial write).
    #[inline]
    pub fn thread_of(&self, o: OpId) -> Option<usize> {
        self.ops[o].thread
    }

    /// `o`'s interval `(issue, completion)` in its thread's order: its ticks
    /// for a timed thread, `(o, o)` for an untimed one (a chain is the
    /// interval order of points).
    #[inline]
    pub fn interval(&self, o: OpId) -> (u64, u64) {
        match self.ops[o].ticks {
            Some(t) if self.ops[o].thread.is_some_and(|t| self.threads[t].timed) => t,
            _ => (o as u64, o as u64),
        }
    }

    /// `a po b` in O(1), without the matrix: initial writes precede every
    /// thread operation; within a thread, `a` completes before `b` is issued
    /// (for an untimed thread, `a` comes first), and an RMW's read half
    /// precedes its write half.
    #[inline]
    pub fn po_before(&self, a: OpId, b: OpId) -> bool {
        if self.is_init(b) || a == b {
            return false;
        }
        if self.is_init(a) {
            return true;
        }
        if self.ops[a].thread != self.ops[b].thread {
            return false;
        }
        if self.ops[a].rmw == Some(b) {
            return a < b;
        }
        self.interval(a).1 < self.interval(b).0
    }

    /// The write-read relation `wr` as a matrix.
    pub fn wr(&self) -> BitMatrix {
        let mut m = BitMatrix::new(self.n());
        for r in 0..self.n() {
            if let Some(w) = self.rf[r] {
                m.set(w, r);
            }
        }
        m
    }

    /// The po-maximal operations of each thread (one per thread unless its
    /// order is an interval order), skipping empty threads.
    pub fn po_maximal(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        for t in &self.threads {
            // the ops completing after the last issue of the thread
            let last_issue = t.ops.clone().map(|o| self.interval(o).0).max();
            for o in t.ops.clone() {
                let read_half = self.ops[o].rmw.is_some_and(|w| o < w);
                let maximal = !read_half && last_issue.is_some_and(|i| self.interval(o).1 >= i);
                if maximal {
                    out.push(o);
                }
            }
        }
        out
    }

    /// Number of unordered pairs of distinct non-initial writes to the same variable.
    pub fn same_var_write_pairs(&self) -> usize {
        self.writes_of
            .iter()
            .map(|w| {
                let k = w.len().saturating_sub(1);
                k * k.saturating_sub(1) / 2
            })
            .sum()
    }

    /// The operation as text, e.g. `t1:W(x,2)`, `t0:R.acq(y,1)` or `init:W(x,0)`.
    pub fn describe(&self, o: OpId) -> String {
        let mut s = String::new();
        self.describe_into(&mut s, o);
        s
    }

    /// Appends [`History::describe`]'s text of `o` to `out`.
    pub fn describe_into(&self, out: &mut String, o: OpId) {
        let op = &self.ops[o];
        let thread = match op.thread {
            Some(t) => self.threads[t].name.as_str(),
            None => "init",
        };
        let var = op.var.map(|v| self.vars[v].as_str()).unwrap_or("");
        out.push_str(thread);
        out.push(':');
        let (tok, values, half) = match (op.kind, op.rmw) {
            (OpKind::Fence, _) => {
                out.push('F');
                out.push_str(op.ann.suffix());
                return;
            }
            (OpKind::Read, Some(w)) => ("U", [Some(op.value), Some(self.ops[w].value)], ".r"),
            (OpKind::Write, Some(r)) => ("U", [Some(self.ops[r].value), Some(op.value)], ".w"),
            (OpKind::Read, None) => ("R", [Some(op.value), None], ""),
            (OpKind::Write, None) => ("W", [Some(op.value), None], ""),
        };
        out.push_str(tok);
        out.push_str(op.ann.suffix());
        out.push('(');
        out.push_str(var);
        for v in values.into_iter().flatten() {
            out.push(',');
            push_decimal(out, v);
        }
        out.push(')');
        out.push_str(half);
    }
}

/// Appends `n` in decimal.
pub(crate) fn push_decimal(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    out.push_str(
        std::str::from_utf8(memconform_parsers::decimal(n, &mut buf)).expect("ASCII digits"),
    );
}
