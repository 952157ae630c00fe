//! Building and validating a [`History`] from a parsed `.hist` history.

use memconform_parsers::hist::{RawHistory, RawOp, RawOpKind, RawThread};
use memconform_parsers::Pos;

use super::fx::FxMap as HashMap;
use super::{History, Op, OpId, OpKind, Thread, VarId};
use crate::relation::BitMatrix;

/// Model names `@expect` may use.
pub const KNOWN_MODELS: &[&str] = &["cc", "ccv", "cm", "ccm", "wccm", "wsc", "sc", "tso", "pso"];

/// An input that is well formed but not a valid history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryError {
    pub pos: Pos,
    pub msg: String,
}

impl std::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pos, self.msg)
    }
}

fn err<T>(pos: Pos, msg: String) -> Result<T, HistoryError> {
    Err(HistoryError { pos, msg })
}

impl History {
    /// Validates a parsed history: unique thread names, no value written twice
    /// to a variable, no write of the initial value 0, timing on all or none
    /// of a thread's operations, known `@expect` models, `@final` variables used.
    pub fn from_raw(raw: &RawHistory, index: usize) -> Result<History, HistoryError> {
        let mut vars: Vec<String> = Vec::new();
        let mut var_ids: HashMap<&str, VarId> = HashMap::default();
        let mut thread_pos: HashMap<&str, Pos> =
            HashMap::with_capacity_and_hasher(raw.threads.len(), Default::default());
        let mut halves = 0;
        for t in &raw.threads {
            if let Some(first) = thread_pos.insert(&t.name, t.pos) {
                return err(
                    t.pos,
                    format!("thread `{}` appears twice (first at {first})", t.name),
                );
            }
            halves += t.ops.len();
            for op in &t.ops {
                if let Some(v) = raw_var(&op.kind) {
                    if !var_ids.contains_key(v) {
                        var_ids.insert(v, vars.len());
                        vars.push(v.to_string());
                    }
                }
                halves += usize::from(matches!(op.kind, RawOpKind::Rmw { .. }));
            }
        }
        let nv = vars.len();

        // Initial writes, then the threads' operations; `writer` maps each
        // (variable, value) written to its write, initial writes included.
        let mut ops: Vec<Op> = Vec::with_capacity(nv + halves);
        ops.extend((0..nv).map(|v| Op {
            kind: OpKind::Write,
            thread: None,
            var: Some(v),
            value: 0,
            rmw: None,
            ticks: None,
            pos: raw.pos,
        }));
        let mut writer: HashMap<(VarId, u64), OpId> =
            HashMap::with_capacity_and_hasher(nv + halves, Default::default());
        writer.extend((0..nv).map(|v| ((v, 0), v)));
        let mut threads = Vec::with_capacity(raw.threads.len());
        for (ti, t) in raw.threads.iter().enumerate() {
            let timed = thread_timing(t)?;
            let start = ops.len();
            for op in &t.ops {
                push_op(&mut ops, &mut writer, &var_ids, ti, op)?;
            }
            threads.push(Thread {
                name: t.name.clone(),
                pos: t.pos,
                ops: start..ops.len(),
                timed,
            });
        }

        let mut expect = Vec::new();
        for (model, yes, pos) in &raw.expect {
            if !KNOWN_MODELS.contains(&model.as_str()) {
                return err(
                    *pos,
                    format!(
                        "unknown model `{model}` in @expect (known: {})",
                        KNOWN_MODELS.join(", ")
                    ),
                );
            }
            expect.push((model.clone(), *yes));
        }
        let mut finals = Vec::new();
        for (var, value, pos) in &raw.finals {
            let Some(&v) = var_ids.get(var.as_str()) else {
                return err(
                    *pos,
                    format!("@final names `{var}`, which no operation accesses"),
                );
            };
            if *value != 0 && !writer.contains_key(&(v, *value)) {
                return err(
                    *pos,
                    format!("@final {var}={value}: no write of {value} to `{var}`"),
                );
            }
            finals.push((v, *value));
        }

        let n = ops.len();
        let rf: Vec<Option<OpId>> = ops
            .iter()
            .map(|op| match (op.kind, op.var) {
                (OpKind::Read, Some(v)) => writer.get(&(v, op.value)).copied(),
                _ => None,
            })
            .collect();
        let readers = Lists::new(
            n,
            rf.iter().enumerate().filter_map(|(r, w)| w.map(|w| (w, r))),
        );
        let writes_of = Lists::new(
            nv,
            ops.iter()
                .enumerate()
                .filter(|(_, op)| op.kind == OpKind::Write)
                .map(|(o, op)| (op.var.expect("writes have a variable"), o)),
        );

        Ok(History {
            name: raw.name.clone(),
            index,
            pos: raw.pos,
            vars,
            ops,
            threads,
            expect,
            finals,
            meta: raw
                .meta
                .iter()
                .map(|(k, v, _)| (k.clone(), v.clone()))
                .collect(),
            rf,
            readers,
            writes_of,
            dense: std::sync::OnceLock::new(),
        })
    }

    /// A history from threads of operations given in code (tests,
    /// generators): threads are named `t0`, `t1`, ...
    pub fn from_threads(threads: &[Vec<RawOpKind>]) -> Result<History, HistoryError> {
        let raw = RawHistory {
            threads: threads
                .iter()
                .enumerate()
                .map(|(i, ops)| RawThread {
                    name: format!("t{i}"),
                    pos: Pos::default(),
                    ops: ops
                        .iter()
                        .map(|k| RawOp {
                            kind: k.clone(),
                            ticks: None,
                            pos: Pos::default(),
                        })
                        .collect(),
                })
                .collect(),
            ..RawHistory::default()
        };
        History::from_raw(&raw, 0)
    }
}

/// Lists of operations per index (per write: its readers; per variable:
/// its writes), stored flat: list `i` is `items[start[i]..start[i + 1]]`.
#[derive(Debug, Clone)]
pub(super) struct Lists {
    start: Vec<usize>,
    items: Vec<OpId>,
}

impl Lists {
    /// `len` lists from `(index, item)` pairs, each list in the pairs' order.
    fn new(len: usize, pairs: impl DoubleEndedIterator<Item = (usize, OpId)> + Clone) -> Lists {
        // counts, then the end of each list; items are placed from the back
        let mut start = vec![0usize; len + 1];
        for (i, _) in pairs.clone() {
            start[i] += 1;
        }
        for i in 1..=len {
            start[i] += start[i - 1];
        }
        let mut items = vec![0; start[len]];
        for (i, o) in pairs.rev() {
            start[i] -= 1;
            items[start[i]] = o;
        }
        Lists { start, items }
    }

    /// List `i`.
    #[inline]
    pub(super) fn get(&self, i: usize) -> &[OpId] {
        &self.items[self.start[i]..self.start[i + 1]]
    }

    /// Every list, in index order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &[OpId]> + '_ {
        self.start.windows(2).map(|w| &self.items[w[0]..w[1]])
    }
}

fn raw_var(kind: &RawOpKind) -> Option<&str> {
    match kind {
        RawOpKind::Read { var, .. } | RawOpKind::Write { var, .. } | RawOpKind::Rmw { var, .. } => {
            Some(var)
        }
        RawOpKind::Fence => None,
    }
}

/// Whether the thread is timed: all of its operations carry ticks, or none.
fn thread_timing(t: &RawThread) -> Result<bool, HistoryError> {
    let timed = t.ops.iter().filter(|o| o.ticks.is_some()).count();
    if timed == 0 || timed == t.ops.len() {
        return Ok(timed > 0 && timed == t.ops.len());
    }
    let bare = t
        .ops
        .iter()
        .find(|o| o.ticks.is_none())
        .expect("some untimed op");
    err(
        bare.pos,
        format!(
            "thread `{}` gives @issue-complete ticks on {timed} of its {} operations; give them on all or none",
            t.name,
            t.ops.len()
        ),
    )
}

/// Appends the op(s) of one token, checking that its written value is new
/// and non-zero; `writer` gains its write.
fn push_op(
    ops: &mut Vec<Op>,
    writer: &mut HashMap<(VarId, u64), OpId>,
    var_ids: &HashMap<&str, VarId>,
    thread: usize,
    raw: &RawOp,
) -> Result<(), HistoryError> {
    // the write is the next op but one for an RMW (its read half first)
    let at = ops.len() + usize::from(matches!(raw.kind, RawOpKind::Rmw { .. }));
    let mut write = |var: &str, value: u64| -> Result<VarId, HistoryError> {
        let v = var_ids[var];
        if value == 0 {
            return err(
                raw.pos,
                format!("write of 0 to `{var}`: 0 is the initial value, and a read of 0 must name the initial write"),
            );
        }
        if let Some(&first) = writer.get(&(v, value)) {
            let first = ops[first].pos;
            return err(
                raw.pos,
                format!("value {value} is written to `{var}` twice (first at {first}); values must be unique per variable"),
            );
        }
        writer.insert((v, value), at);
        Ok(v)
    };
    let base = Op {
        kind: OpKind::Fence,
        thread: Some(thread),
        var: None,
        value: 0,
        rmw: None,
        ticks: raw.ticks,
        pos: raw.pos,
    };
    match &raw.kind {
        RawOpKind::Read { var, value } => ops.push(Op {
            kind: OpKind::Read,
            var: Some(var_ids[var.as_str()]),
            value: *value,
            ..base
        }),
        RawOpKind::Write { var, value } => {
            let v = write(var, *value)?;
            ops.push(Op {
                kind: OpKind::Write,
                var: Some(v),
                value: *value,
                ..base
            })
        }
        RawOpKind::Rmw { var, old, new } => {
            let v = write(var, *new)?;
            let r = ops.len();
            ops.push(Op {
                kind: OpKind::Read,
                var: Some(v),
                value: *old,
                rmw: Some(r + 1),
                ..base.clone()
            });
            ops.push(Op {
                kind: OpKind::Write,
                var: Some(v),
                value: *new,
                rmw: Some(r),
                ..base
            });
        }
        RawOpKind::Fence => ops.push(base),
    }
    Ok(())
}

/// The dense views: `po` as a matrix (initial writes before all thread ops;
/// per thread [`History::po_before`]: for an untimed thread, every later
/// operation) and the per-variable read/write masks.
pub(super) fn dense(h: &History) -> super::Dense {
    let n = h.n();
    let nv = h.vars.len();
    let mut po = BitMatrix::new(n);
    for init in 0..nv {
        set_range(po.row_mut(init), nv, n);
    }
    for t in &h.threads {
        if t.timed {
            for a in t.ops.clone() {
                for b in t.ops.clone() {
                    if h.po_before(a, b) {
                        po.set(a, b);
                    }
                }
            }
        } else {
            for a in t.ops.clone() {
                set_range(po.row_mut(a), a + 1, t.ops.end);
            }
        }
    }
    let stride = po.stride();
    let mut reads_mask = vec![0u64; nv * stride];
    let mut writes_mask = vec![0u64; nv * stride];
    for (o, op) in h.ops.iter().enumerate() {
        let bit = 1u64 << (o % 64);
        match (op.kind, op.var) {
            (OpKind::Read, Some(v)) => reads_mask[v * stride + o / 64] |= bit,
            (OpKind::Write, Some(v)) => writes_mask[v * stride + o / 64] |= bit,
            _ => {}
        }
    }
    super::Dense {
        reads_mask,
        writes_mask,
        po,
    }
}

/// Sets bits `lo..hi` of a bit row.
fn set_range(row: &mut [u64], lo: usize, hi: usize) {
    if lo >= hi {
        return;
    }
    let (first, last) = (lo / 64, (hi - 1) / 64);
    for (i, w) in row.iter_mut().enumerate().take(last + 1).skip(first) {
        let from = if i == first { lo % 64 } else { 0 };
        let to = if i == last { (hi - 1) % 64 + 1 } else { 64 };
        *w |= (u64::MAX >> (64 - (to - from))) << from;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_po_is_po_before_across_word_boundaries() {
        for (threads, ops) in [(1, 3), (2, 40), (3, 70), (5, 30)] {
            let raw: Vec<Vec<RawOpKind>> = (0..threads)
                .map(|t| {
                    (0..ops)
                        .map(|i| match i % 4 {
                            0 => RawOpKind::Write {
                                var: format!("x{}", i % 3),
                                value: (t * 1000 + i + 1) as u64,
                            },
                            1 => RawOpKind::Fence,
                            2 => RawOpKind::Rmw {
                                var: "y".into(),
                                old: 0,
                                new: (t * 1000 + i + 1) as u64,
                            },
                            _ => RawOpKind::Read {
                                var: format!("x{}", i % 3),
                                value: 0,
                            },
                        })
                        .collect()
                })
                .collect();
            let h = History::from_threads(&raw).unwrap();
            for a in 0..h.n() {
                for b in 0..h.n() {
                    assert_eq!(h.po().get(a, b), h.po_before(a, b), "{a} {b}");
                }
                for x in 0..h.vars.len() {
                    let reads = h.reads_mask(x)[a / 64] >> (a % 64) & 1 == 1;
                    let writes = h.writes_mask(x)[a / 64] >> (a % 64) & 1 == 1;
                    assert_eq!(reads, h.is_read(a) && h.var(a) == Some(x));
                    assert_eq!(writes, h.is_write(a) && h.var(a) == Some(x));
                }
            }
        }
    }
}
