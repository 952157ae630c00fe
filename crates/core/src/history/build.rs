//! Building and validating a [`History`] from a parsed `.hist` history.

use memconform_parsers::axe::{AxeOpKind, AxeTrace};
use memconform_parsers::hist::{Ann, RawHistory, RawOp, RawOpKind, RawThread};
use memconform_parsers::Pos;

use super::fx::FxMap as HashMap;
use super::{History, Op, OpId, OpKind, Thread, VarId};
use crate::relation::BitMatrix;

/// Model names `@expect` may use.
pub const KNOWN_MODELS: &[&str] = &[
    "cc", "ccv", "cm", "ccm", "wccm", "wsc", "sc", "tso", "pso", "rmo", "armv8",
];

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
        let mut ops = initial_writes(vars.len(), halves, raw.pos);
        let mut writer = writers(vars.len(), halves);
        let mut threads = Vec::with_capacity(raw.threads.len());
        for (ti, t) in raw.threads.iter().enumerate() {
            let timed = thread_timing(t)?;
            let start = ops.len();
            for op in &t.ops {
                let token = match &op.kind {
                    RawOpKind::Read { var, value } => Token::Read(var_ids[var.as_str()], *value),
                    RawOpKind::Write { var, value } => Token::Write(var_ids[var.as_str()], *value),
                    RawOpKind::Rmw { var, old, new } => {
                        Token::Rmw(var_ids[var.as_str()], *old, *new)
                    }
                    RawOpKind::Fence => Token::Fence,
                };
                push_op(
                    &mut ops,
                    &mut writer,
                    &vars,
                    ti,
                    (token, op.ann),
                    op.ticks,
                    op.pos,
                )?;
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
        // the promise: `@promise M` (or `@expected_model M`, as gem5
        // ingestion writes it) names a model; both name the same one
        let mut meta: Vec<(String, String)> = Vec::with_capacity(raw.meta.len());
        let mut promised: Option<(&str, &str, Pos)> = None;
        for (k, v, pos) in &raw.meta {
            if k == "promise" || k == "expected_model" {
                let m = v.trim();
                if !KNOWN_MODELS.contains(&m) {
                    return err(
                        *pos,
                        format!(
                            "unknown model `{m}` in @{k} (known: {})",
                            KNOWN_MODELS.join(", ")
                        ),
                    );
                }
                if let Some((k0, m0, p0)) = promised {
                    if m0 != m {
                        return err(
                            *pos,
                            format!("@{k} {m} here, but @{k0} {m0} at {p0}: a history promises one model"),
                        );
                    }
                    continue;
                }
                promised = Some((k, m, *pos));
                meta.push(("expected_model".into(), m.to_string()));
                continue;
            }
            meta.push((k.clone(), v.clone()));
        }
        let mut finals = Vec::new();
        for (var, value, pos) in &raw.finals {
            let Some(&v) = var_ids.get(var.as_str()) else {
                return err(
                    *pos,
                    format!("@final names `{var}`, which no operation accesses"),
                );
            };
            // a value never written is kept: the models report it
            // (ThinAirFinal), as they do a thin-air read
            finals.push((v, *value));
        }

        Ok(History {
            name: raw.name.clone(),
            index,
            pos: raw.pos,
            expect,
            finals,
            meta,
            ..relations(vars, ops, threads, &writer)
        })
    }

    /// Validates an axe trace as [`History::from_raw`] validates its
    /// [`AxeTrace::to_raw`] (the same history, or the same error), without
    /// naming every operation's variable: thread `N` is `tN`, location `A`
    /// variable `mA`.
    pub fn from_axe(trace: &AxeTrace, index: usize) -> Result<History, HistoryError> {
        // variables in order of first access, thread by thread (thread ids,
        // hence names, are distinct; operations carry no ticks)
        let mut vars: Vec<String> = Vec::new();
        let mut var_ids: HashMap<u64, VarId> = HashMap::default();
        let mut halves = 0;
        for t in trace.threads() {
            halves += t.ops.len();
            for op in &t.ops {
                if let Some(loc) = op.kind.loc() {
                    var_ids.entry(loc.addr).or_insert_with(|| {
                        vars.push(loc.name());
                        vars.len() - 1
                    });
                }
                halves += usize::from(matches!(op.kind, AxeOpKind::Rmw { .. }));
            }
        }
        let mut ops = initial_writes(vars.len(), halves, trace.pos);
        let mut writer = writers(vars.len(), halves);
        let mut threads = Vec::with_capacity(trace.threads().len());
        for (ti, t) in trace.threads().iter().enumerate() {
            let start = ops.len();
            for op in &t.ops {
                let token = match op.kind {
                    AxeOpKind::Read { loc, value } => Token::Read(var_ids[&loc.addr], value),
                    AxeOpKind::Write { loc, value } => Token::Write(var_ids[&loc.addr], value),
                    AxeOpKind::Rmw { loc, old, new } => Token::Rmw(var_ids[&loc.addr], old, new),
                    AxeOpKind::Fence => Token::Fence,
                };
                push_op(
                    &mut ops,
                    &mut writer,
                    &vars,
                    ti,
                    (token, Ann::None),
                    None,
                    op.pos,
                )?;
            }
            threads.push(Thread {
                name: t.name(),
                pos: t.pos,
                ops: start..ops.len(),
                timed: false,
            });
        }
        let mut finals = Vec::new();
        for &(loc, value, pos) in &trace.finals {
            let Some(&v) = var_ids.get(&loc.addr) else {
                return err(
                    pos,
                    format!("@final names `{}`, which no operation accesses", loc.name()),
                );
            };
            // a value never written is kept (ThinAirFinal)
            finals.push((v, value));
        }
        Ok(History {
            name: None,
            index,
            pos: trace.pos,
            expect: Vec::new(),
            finals,
            meta: trace
                .stamps_pos
                .map(|_| {
                    (
                        "axe-timestamps".to_owned(),
                        format!("{} ignored", trace.stamps),
                    )
                })
                .into_iter()
                .collect(),
            ..relations(vars, ops, threads, &writer)
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
                            ann: Default::default(),
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

/// One token's operation, its variable resolved.
enum Token {
    Read(VarId, u64),
    Write(VarId, u64),
    /// `U(x, old, new)`
    Rmw(VarId, u64, u64),
    Fence,
}

/// The initial writes, first of the operations (`more` to come).
fn initial_writes(nv: usize, more: usize, pos: Pos) -> Vec<Op> {
    let mut ops = Vec::with_capacity(nv + more);
    ops.extend((0..nv).map(|v| Op {
        kind: OpKind::Write,
        thread: None,
        var: Some(v),
        value: 0,
        rmw: None,
        ann: Ann::None,
        ticks: None,
        pos,
    }));
    ops
}

/// The map of each (variable, value) written to its write, with the
/// initial writes (`more` writes to come).
fn writers(nv: usize, more: usize) -> HashMap<(VarId, u64), OpId> {
    let mut writer = HashMap::with_capacity_and_hasher(nv + more, Default::default());
    writer.extend((0..nv).map(|v| ((v, 0), v)));
    writer
}

/// Appends the op(s) of one token at `pos`, checking that its written value
/// is new and non-zero; `writer` gains its write. `vars` names variables.
fn push_op(
    ops: &mut Vec<Op>,
    writer: &mut HashMap<(VarId, u64), OpId>,
    vars: &[String],
    thread: usize,
    (token, ann): (Token, Ann),
    ticks: Option<(u64, u64)>,
    pos: Pos,
) -> Result<(), HistoryError> {
    // the write is the next op but one for an RMW (its read half first)
    let at = ops.len() + usize::from(matches!(token, Token::Rmw(..)));
    let mut write = |v: VarId, value: u64| -> Result<(), HistoryError> {
        let var = &vars[v];
        if value == 0 {
            return err(
                pos,
                format!("write of 0 to `{var}`: 0 is the initial value, and a read of 0 must name the initial write"),
            );
        }
        if let Some(&first) = writer.get(&(v, value)) {
            let first = ops[first].pos;
            return err(
                pos,
                format!("value {value} is written to `{var}` twice (first at {first}); values must be unique per variable"),
            );
        }
        writer.insert((v, value), at);
        Ok(())
    };
    let base = Op {
        kind: OpKind::Fence,
        thread: Some(thread),
        var: None,
        value: 0,
        rmw: None,
        ann,
        ticks,
        pos,
    };
    match token {
        Token::Read(v, value) => ops.push(Op {
            kind: OpKind::Read,
            var: Some(v),
            value,
            ..base
        }),
        Token::Write(v, value) => {
            write(v, value)?;
            ops.push(Op {
                kind: OpKind::Write,
                var: Some(v),
                value,
                ..base
            })
        }
        Token::Rmw(v, old, new) => {
            write(v, new)?;
            let r = ops.len();
            ops.push(Op {
                kind: OpKind::Read,
                var: Some(v),
                value: old,
                rmw: Some(r + 1),
                ..base.clone()
            });
            ops.push(Op {
                kind: OpKind::Write,
                var: Some(v),
                value: new,
                rmw: Some(r),
                ..base
            });
        }
        Token::Fence => ops.push(base),
    }
    Ok(())
}

/// A history of validated variables, operations and threads: `wr` from
/// `writer`, the readers of each write and the writes of each variable;
/// no name, `@expect`, `@final` or metadata.
fn relations(
    vars: Vec<String>,
    ops: Vec<Op>,
    threads: Vec<Thread>,
    writer: &HashMap<(VarId, u64), OpId>,
) -> History {
    let rf: Vec<Option<OpId>> = ops
        .iter()
        .map(|op| match (op.kind, op.var) {
            (OpKind::Read, Some(v)) => writer.get(&(v, op.value)).copied(),
            _ => None,
        })
        .collect();
    let readers = Lists::new(
        ops.len(),
        rf.iter().enumerate().filter_map(|(r, w)| w.map(|w| (w, r))),
    );
    let writes_of = Lists::new(
        vars.len(),
        ops.iter()
            .enumerate()
            .filter(|(_, op)| op.kind == OpKind::Write)
            .map(|(o, op)| (op.var.expect("writes have a variable"), o)),
    );
    History {
        name: None,
        index: 0,
        pos: Pos::default(),
        vars,
        ops,
        threads,
        expect: Vec::new(),
        finals: Vec::new(),
        meta: Vec::new(),
        rf,
        readers,
        writes_of,
        dense: std::sync::OnceLock::new(),
    }
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
    let loc_mask = reads_mask
        .iter()
        .zip(&writes_mask)
        .map(|(r, w)| r | w)
        .collect();
    let union = |masks: &[u64]| {
        let mut all = vec![0u64; stride];
        for x in masks.chunks(stride.max(1)) {
            all.iter_mut().zip(x).for_each(|(a, m)| *a |= m);
        }
        all
    };
    super::Dense {
        reads: union(&reads_mask),
        writes: union(&writes_mask),
        reads_mask,
        writes_mask,
        loc_mask,
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
    use memconform_parsers::axe::AxeTraces;

    /// Every trace of `src` validated by `from_axe` and by `from_raw` of its
    /// `to_raw`: the same history, or the same error.
    fn axe_builds_agree(src: &str) -> usize {
        let mut traces = AxeTraces::new(src.as_bytes());
        let mut i = 0;
        while let Some(trace) = traces.next_trace() {
            let trace = trace.unwrap_or_else(|e| panic!("{e}\n{src}"));
            let direct = History::from_axe(trace, i).map(|h| format!("{h:?}"));
            let raw = History::from_raw(&trace.to_raw(), i).map(|h| format!("{h:?}"));
            assert_eq!(direct, raw, "trace {i} of\n{src}");
            i += 1;
        }
        i
    }

    #[test]
    fn axe_traces_validate_as_their_raw_histories() {
        let cases = [
            "0: M[1] := 1\n0: sync\n0: M[0] == 0\n1: M[0] := 1\n1: M[1] == 0\ncheck\n",
            "1: v2 == 0 @ 3:4\n0: <v2 == 0; v2 := 5>\n1: {M[7] == 0; M[7] := 1} @ :9\n\
             0: v7 == 1\nfinal v2 == 5\nfinal M[7] == 0\ncheck\n",
            "2: M[0x1f] := 0x10\n0: M[0x1f] == 16\n1: M[3] == 0\nfinal M[0x1f] == 16\n",
            "check\ncheck\n\n# only a comment\n0: sync\n",
            // errors: a write of 0, a value written twice (also by an RMW),
            // a final of a location no operation accesses or of no write
            "0: v1 := 2\n1: v1 := 0\ncheck\n",
            "0: v1 := 2\n1: v0 == 0\n1: v1 := 2\ncheck\n",
            "0: v1 := 2\n1: <v1 == 2; v1 := 2>\ncheck\n",
            "0: v1 := 2\nfinal v3 == 0\ncheck\n",
            "0: v1 := 2\nfinal v1 == 3\ncheck\n",
            "0: v1 := 2\nfinal v1 == 0\ncheck\n",
        ];
        for case in cases {
            assert!(axe_builds_agree(case) > 0);
        }
        let mut text = String::new();
        for seed in 0..40 {
            let memory = [
                crate::gen::Memory::Sc,
                crate::gen::Memory::Tso,
                crate::gen::Memory::Pso,
            ][seed % 3];
            let shape = crate::gen::Shape {
                threads: 1 + seed % 5,
                ops_per_thread: seed % 9,
                vars: 1 + seed % 4,
                write_ratio: 0.5,
            };
            let mut program = crate::gen::threads(memory, shape, seed as u64);
            let mut rng = crate::gen::Rng::new(seed as u64);
            crate::gen::inject_stale_read(&mut program, &mut rng);
            text.push_str(&crate::gen::axe_trace(&[], &program));
        }
        assert_eq!(axe_builds_agree(&text), 40);
    }

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
                    let loc = h.loc_mask(x)[a / 64] >> (a % 64) & 1 == 1;
                    assert_eq!(loc, h.var(a) == Some(x));
                }
                let reads = h.reads_set()[a / 64] >> (a % 64) & 1 == 1;
                let writes = h.writes_set()[a / 64] >> (a % 64) & 1 == 1;
                assert_eq!((reads, writes), (h.is_read(a), h.is_write(a)));
            }
        }
    }
}
