//! Building and validating a [`History`] from a parsed `.hist` history.

use memconform_parsers::hist::{RawHistory, RawOp, RawOpKind, RawThread};
use memconform_parsers::Pos;

use super::fx::FxMap as HashMap;
use super::{History, Op, OpId, OpKind, Thread, VarId};
use crate::relation::{BitMatrix, BitSet};

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
        let mut thread_pos: HashMap<&str, Pos> = HashMap::default();
        for t in &raw.threads {
            if let Some(first) = thread_pos.insert(&t.name, t.pos) {
                return err(
                    t.pos,
                    format!("thread `{}` appears twice (first at {first})", t.name),
                );
            }
            for op in &t.ops {
                if let Some(v) = raw_var(&op.kind) {
                    if !var_ids.contains_key(v) {
                        var_ids.insert(v, vars.len());
                        vars.push(v.to_string());
                    }
                }
            }
        }
        let nv = vars.len();

        // Initial writes, then the threads' operations.
        let mut ops: Vec<Op> = (0..nv)
            .map(|v| Op {
                kind: OpKind::Write,
                thread: None,
                var: Some(v),
                value: 0,
                rmw: None,
                ticks: None,
                pos: raw.pos,
            })
            .collect();
        let mut threads = Vec::with_capacity(raw.threads.len());
        let mut written: HashMap<(VarId, u64), Pos> = HashMap::default();
        for (ti, t) in raw.threads.iter().enumerate() {
            let timed = thread_timing(t)?;
            let start = ops.len();
            for op in &t.ops {
                push_op(&mut ops, &mut written, &var_ids, ti, op)?;
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
            // a value never written is kept: the models report it
            // (ThinAirFinal), as they do a thin-air read
            finals.push((v, *value));
        }

        let n = ops.len();
        let mut rf = vec![None; n];
        let mut readers = vec![Vec::new(); n];
        let mut writes_of = vec![Vec::new(); nv];
        let mut writer: HashMap<(VarId, u64), OpId> = HashMap::default();
        for (o, op) in ops.iter().enumerate() {
            if op.kind == OpKind::Write {
                let v = op.var.expect("writes have a variable");
                writer.insert((v, op.value), o);
                writes_of[v].push(o);
            }
        }
        for (o, op) in ops.iter().enumerate() {
            if op.kind == OpKind::Read {
                let v = op.var.expect("reads have a variable");
                if let Some(&w) = writer.get(&(v, op.value)) {
                    rf[o] = Some(w);
                    readers[w].push(o);
                }
            }
        }

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

/// Appends the op(s) of one token, checking that its written value is new and non-zero.
fn push_op(
    ops: &mut Vec<Op>,
    written: &mut HashMap<(VarId, u64), Pos>,
    var_ids: &HashMap<&str, VarId>,
    thread: usize,
    raw: &RawOp,
) -> Result<(), HistoryError> {
    let mut write = |var: &str, value: u64| -> Result<VarId, HistoryError> {
        let v = var_ids[var];
        if value == 0 {
            return err(
                raw.pos,
                format!("write of 0 to `{var}`: 0 is the initial value, and a read of 0 must name the initial write"),
            );
        }
        if let Some(first) = written.insert((v, value), raw.pos) {
            return err(
                raw.pos,
                format!("value {value} is written to `{var}` twice (first at {first}); values must be unique per variable"),
            );
        }
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
/// per thread [`History::po_before`]) and the per-variable read/write masks.
pub(super) fn dense(h: &History) -> super::Dense {
    let n = h.n();
    let nv = h.vars.len();
    let mut po = BitMatrix::new(n);
    for init in 0..nv {
        for o in nv..n {
            po.set(init, o);
        }
    }
    for t in &h.threads {
        for a in t.ops.clone() {
            for b in t.ops.clone() {
                if h.po_before(a, b) {
                    po.set(a, b);
                }
            }
        }
    }
    let mut reads_mask = vec![BitSet::new(n); nv];
    let mut writes_mask = vec![BitSet::new(n); nv];
    for (o, op) in h.ops.iter().enumerate() {
        match (op.kind, op.var) {
            (OpKind::Read, Some(v)) => reads_mask[v].insert(o),
            (OpKind::Write, Some(v)) => writes_mask[v].insert(o),
            _ => {}
        }
    }
    super::Dense {
        reads_mask,
        writes_mask,
        po,
    }
}
