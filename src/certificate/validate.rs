//! An independent validator of certificates. It shares nothing with the
//! engines but the History type: its own relations (adjacency lists), its own
//! acyclicity test (Kahn), its own memory simulation.

use std::collections::VecDeque;

use super::{Pattern, Rel, Violation};
use crate::history::{History, OpId, OpKind};

/// The store-order models a witness can be checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreModel {
    Sc,
    Tso,
    Pso,
}

fn is_plain_write(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Write && h.ops[o].rmw.is_none()
}

fn is_plain_read(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Read && h.ops[o].rmw.is_none()
}

/// Whether the program-order pair `(a, b)` is kept by the model itself (not
/// through an intermediate operation).
fn kept(h: &History, model: StoreModel, a: OpId, b: OpId) -> bool {
    match model {
        StoreModel::Sc => true,
        StoreModel::Tso => !(is_plain_write(h, a) && is_plain_read(h, b)),
        StoreModel::Pso => {
            let other_store = (h.ops[b].kind == OpKind::Write || h.ops[b].rmw.is_some())
                && h.ops[b].var != h.ops[a].var;
            !(is_plain_write(h, a) && (is_plain_read(h, b) || other_store))
        }
    }
}

/// Whether `(a, b)` is in the model's preserved program order: kept, or
/// kept through intermediate operations of the thread (a fence, an RMW, ...).
fn preserved(h: &History, model: StoreModel, a: OpId, b: OpId) -> bool {
    if !h.po().get(a, b) {
        return false;
    }
    let kept = |a: OpId, b: OpId| kept(h, model, a, b);
    if kept(a, b) {
        return true;
    }
    // through an intermediate operation of the thread (a fence, an RMW, ...)
    let t = h.ops[b].thread.expect("po never ends at an initial write");
    let mut seen = vec![false; h.n()];
    let mut queue = VecDeque::from([a]);
    while let Some(x) = queue.pop_front() {
        for c in h.threads[t].ops.clone() {
            if !seen[c] && h.po().get(x, c) && kept(x, c) {
                if c == b {
                    return true;
                }
                seen[c] = true;
                queue.push_back(c);
            }
        }
    }
    false
}

/// The pairs `(a, b)` of program order that `keep` accepts, as adjacency
/// lists; only pairs within a thread, or from an initial write, are tried.
fn program_edges(h: &History, keep: impl Fn(OpId, OpId) -> bool) -> Vec<Vec<OpId>> {
    let n = h.n();
    let mut adj = vec![Vec::new(); n];
    for t in &h.threads {
        for a in t.ops.clone() {
            adj[a].extend(t.ops.clone().filter(|&b| h.po().get(a, b) && keep(a, b)));
        }
        for (x, outs) in adj.iter_mut().enumerate().take(h.vars.len()) {
            outs.extend(t.ops.clone().filter(|&b| h.po().get(x, b) && keep(x, b)));
        }
    }
    adj
}

/// Kahn's algorithm on adjacency lists: whether the graph is acyclic.
fn acyclic(adj: &[Vec<OpId>]) -> bool {
    let mut indeg = vec![0usize; adj.len()];
    for outs in adj {
        for &b in outs {
            indeg[b] += 1;
        }
    }
    let mut queue: Vec<OpId> = (0..adj.len()).filter(|&a| indeg[a] == 0).collect();
    let mut seen = 0;
    while let Some(a) = queue.pop() {
        seen += 1;
        for &b in &adj[a] {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                queue.push(b);
            }
        }
    }
    seen == adj.len()
}

/// Checks a total store order (per variable, its writes, initial write first)
/// against SC, TSO or PSO: both acyclicity graphs, RMW atomicity, `@final`.
pub fn store_order(h: &History, model: StoreModel, order: &[Vec<OpId>]) -> Result<(), String> {
    let n = h.n();
    if order.len() != h.vars.len() {
        return Err(format!(
            "store order has {} variables, history {}",
            order.len(),
            h.vars.len()
        ));
    }
    let mut pos = vec![usize::MAX; n];
    for (x, ws) in order.iter().enumerate() {
        let mut expected: Vec<OpId> = h.writes_of(x).to_vec();
        let mut got = ws.clone();
        expected.sort_unstable();
        got.sort_unstable();
        if expected != got {
            return Err(format!(
                "store order of `{}` is not a permutation of its writes",
                h.vars[x]
            ));
        }
        if ws.first() != Some(&x) {
            return Err(format!(
                "store order of `{}` does not start with its initial write",
                h.vars[x]
            ));
        }
        for (i, &w) in ws.iter().enumerate() {
            pos[w] = i;
        }
    }
    for r in (0..n).filter(|&r| h.ops[r].kind == OpKind::Read) {
        let Some(w0) = h.rf(r) else {
            return Err(format!("{} reads a value never written", h.describe(r)));
        };
        if let Some(w) = h.ops[r].rmw {
            if pos[w] != pos[w0] + 1 {
                return Err(format!(
                    "atomicity: {} does not immediately follow {}",
                    h.describe(w),
                    h.describe(w0)
                ));
            }
        }
    }
    for &(x, v) in &h.finals {
        let last = *order[x].last().expect("at least the initial write");
        if h.ops[last].value != v {
            return Err(format!(
                "@final {}={v}: the last write is {}",
                h.vars[x],
                h.describe(last)
            ));
        }
    }
    // ww as consecutive pairs; rw from each read to the write after its source
    let mut common: Vec<Vec<OpId>> = vec![Vec::new(); n];
    for ws in order {
        for pair in ws.windows(2) {
            common[pair[0]].push(pair[1]);
        }
    }
    for r in (0..n).filter(|&r| h.ops[r].kind == OpKind::Read) {
        let w = h.rf(r).expect("checked above");
        let x = h.ops[r].var.expect("reads have a variable");
        if let Some(&next) = order[x].get(pos[w] + 1) {
            common[r].push(next);
        }
    }
    let same_var = |a: OpId, b: OpId| h.ops[a].var.is_some() && h.ops[a].var == h.ops[b].var;
    let graphs: Vec<(&str, Vec<Vec<OpId>>, bool)> = match model {
        StoreModel::Sc => vec![("po ∪ wr ∪ ww ∪ rw", program_edges(h, |_, _| true), false)],
        StoreModel::Tso | StoreModel::Pso => vec![
            ("po-loc ∪ wr ∪ ww ∪ rw", program_edges(h, same_var), false),
            (
                if model == StoreModel::Tso {
                    "ppo ∪ wre ∪ ww ∪ rw"
                } else {
                    "po-pso ∪ wre ∪ ww ∪ rw"
                },
                // kept pairs alone: their paths are the preserved order
                program_edges(h, |a, b| kept(h, model, a, b)),
                true,
            ),
        ],
    };
    for (name, program, external_only) in graphs {
        let mut adj = common.clone();
        for (outs, more) in adj.iter_mut().zip(program) {
            outs.extend(more);
        }
        for r in (0..n).filter(|&r| h.ops[r].kind == OpKind::Read) {
            let w = h.rf(r).expect("checked above");
            if !external_only || !(h.po().get(w, r) || h.po().get(r, w)) {
                adj[w].push(r);
            }
        }
        if !acyclic(&adj) {
            return Err(format!("{name} is cyclic under the witness store order"));
        }
    }
    Ok(())
}

/// Checks an SC interleaving by running it on a memory: every operation once,
/// program order respected, each read returning the latest write, RMW halves adjacent.
pub fn interleaving(h: &History, run: &[OpId]) -> Result<(), String> {
    let n = h.n();
    let nv = h.vars.len();
    if run.len() != n - nv {
        return Err(format!(
            "interleaving has {} operations, history {}",
            run.len(),
            n - nv
        ));
    }
    let mut at = vec![usize::MAX; n];
    for (i, &o) in run.iter().enumerate() {
        if o < nv || o >= n || at[o] != usize::MAX {
            return Err(format!("interleaving repeats or invents operation {o}"));
        }
        at[o] = i;
    }
    for a in nv..n {
        for b in h.po().succ(a) {
            if at[a] > at[b] {
                return Err(format!(
                    "{} runs before {} against po",
                    h.describe(b),
                    h.describe(a)
                ));
            }
        }
    }
    let mut memory: Vec<OpId> = (0..nv).collect();
    for (i, &o) in run.iter().enumerate() {
        let op = &h.ops[o];
        if let (OpKind::Read, Some(w)) = (op.kind, op.rmw) {
            if run.get(i + 1) != Some(&w) {
                return Err(format!("{} is split", h.describe(o)));
            }
        }
        match op.kind {
            OpKind::Read => {
                let x = op.var.expect("a variable");
                if h.rf(o) != Some(memory[x]) {
                    return Err(format!(
                        "{} reads, but memory holds {}",
                        h.describe(o),
                        h.describe(memory[x])
                    ));
                }
            }
            OpKind::Write => memory[op.var.expect("a variable")] = o,
            OpKind::Fence => {}
        }
    }
    for &(x, v) in &h.finals {
        if h.ops[memory[x]].value != v {
            return Err(format!(
                "@final {}={v} but memory ends with {}",
                h.vars[x],
                h.describe(memory[x])
            ));
        }
    }
    Ok(())
}

/// Checks a violation's cycle: it closes, and each edge is of its relation's
/// kind (base relations exactly; store-order edges by their endpoints).
pub fn violation(h: &History, v: &Violation) -> Result<(), String> {
    match v.pattern {
        Pattern::ThinAirRead => {
            let Some(&(r, _)) = v.ops.first() else {
                return Err("thin-air certificate names no read".into());
            };
            return if h.ops[r].kind == OpKind::Read && h.rf(r).is_none() {
                Ok(())
            } else {
                Err(format!("{} is not a thin-air read", h.describe(r)))
            };
        }
        Pattern::NoStoreOrder => return Ok(()),
        _ => {}
    }
    let c = &v.cycle;
    if c.is_empty() {
        return Err("empty cycle".into());
    }
    for (i, s) in c.iter().enumerate() {
        let next = &c[(i + 1) % c.len()];
        if s.to != next.from {
            return Err(format!(
                "edge {i} ends at {} but edge {} starts at {}",
                s.to,
                i + 1,
                next.from
            ));
        }
        let (a, b) = (s.from, s.to);
        let same_var = h.ops[a].var.is_some() && h.ops[a].var == h.ops[b].var;
        let writes = h.ops[a].kind == OpKind::Write && h.ops[b].kind == OpKind::Write;
        let ok = match s.rel {
            Rel::Po => h.po().get(a, b),
            Rel::PoLoc => h.po().get(a, b) && same_var,
            Rel::Ppo => preserved(h, StoreModel::Tso, a, b),
            Rel::PoPso => preserved(h, StoreModel::Pso, a, b),
            Rel::Wr => h.rf(b) == Some(a),
            Rel::Wre => h.rf(b) == Some(a) && !h.po().get(a, b) && !h.po().get(b, a),
            Rel::Rw => {
                h.ops[a].kind == OpKind::Read
                    && h.ops[b].kind == OpKind::Write
                    && same_var
                    && h.rf(a) != Some(b)
            }
            Rel::St | Rel::Pww | Rel::Wpww | Rel::Cf | Rel::HbO | Rel::Rmw | Rel::Final => {
                writes && same_var && a != b
            }
        };
        if !ok {
            return Err(format!(
                "{} -{}-> {} is not a {} edge",
                h.describe(a),
                s.rel.name(),
                h.describe(b),
                s.rel.name()
            ));
        }
    }
    Ok(())
}
