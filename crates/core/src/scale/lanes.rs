//! Program-order graphs at scale: each thread's operations on *lanes* (the
//! interval order of a timed thread, coloured greedily in issue order, so
//! that a lane is a chain of `po`; an untimed thread is one lane), each lane
//! cut into sub-chains by a class (TSO: loads and stores), and a few cross
//! edges per operation — from the last operation of every other sub-chain of
//! its thread that precedes it in `po` and that the model keeps.

use crate::certificate::Rel;
use crate::history::{History, OpId, OpKind};
use crate::relation::chains::{Layout, NONE};

use super::ChainGraph;

/// The lanes of every thread.
pub struct Lanes {
    /// Per lane, its operations in `po` order.
    pub lanes: Vec<Vec<u32>>,
    /// Per thread, its lanes.
    pub of_thread: Vec<std::ops::Range<u32>>,
}

/// Bytes of one frontier entry over these lanes: 2 when every lane (so
/// every sequence cut from one) is shorter than `u16::MAX`, else 4 (see
/// [`crate::relation::chains::Frontier::new`]).
pub fn entry_bytes(lanes: &Lanes) -> u64 {
    if lanes.lanes.iter().all(|l| l.len() < usize::from(u16::MAX)) {
        2
    } else {
        4
    }
}

/// Greedy interval colouring of each thread in issue order: an operation
/// joins a lane whose last operation completed before its issue (the
/// latest such), else opens one; an RMW's write half follows its read half.
pub fn lanes(h: &History) -> Lanes {
    let mut lanes: Vec<Vec<u32>> = Vec::new();
    let mut of_thread = Vec::with_capacity(h.threads.len());
    for t in &h.threads {
        let first = lanes.len();
        let mut ops: Vec<OpId> = t.ops.clone().collect();
        if t.timed {
            ops.sort_by_key(|&o| (h.interval(o).0, o));
        }
        let mut lane_of_read: Vec<(OpId, usize)> = Vec::new();
        for o in ops {
            if let (OpKind::Write, Some(r)) = (h.ops[o].kind, h.ops[o].rmw) {
                if let Some(&(_, l)) = lane_of_read.iter().find(|&&(x, _)| x == r) {
                    lanes[l].push(o as u32);
                    lane_of_read.retain(|&(x, _)| x != r);
                    continue;
                }
            }
            let issue = h.interval(o).0;
            let best = (first..lanes.len())
                .filter(|&l| {
                    let last = *lanes[l].last().expect("lanes are not empty") as usize;
                    h.po_before(last, o)
                })
                .max_by_key(|&l| h.interval(*lanes[l].last().expect("not empty") as usize).1);
            let l = match best {
                Some(l) => l,
                None => {
                    lanes.push(Vec::new());
                    lanes.len() - 1
                }
            };
            debug_assert!(issue >= h.interval(o).0);
            lanes[l].push(o as u32);
            if h.ops[o].kind == OpKind::Read && h.ops[o].rmw.is_some() {
                lane_of_read.push((o, l));
            }
        }
        of_thread.push(first as u32..lanes.len() as u32);
    }
    Lanes { lanes, of_thread }
}

/// How a program-order graph is cut and which pairs it keeps.
pub struct Shape<'a> {
    /// The sub-chain of an operation within its lane (`None`: not a node of
    /// the graph's sequences, e.g. a fence in `po-loc`).
    pub class: &'a dyn Fn(OpId) -> Option<u32>,
    /// Number of classes.
    pub classes: u32,
    /// Per variable (`po-loc`): the class is the variable, and a node's
    /// slots are the lanes of its variable's sub-chains.
    pub per_var: bool,
    /// Whether the model keeps the `po` pair `(a, b)` itself. It must not
    /// depend on `a` within one sub-chain, nor on `b` beyond its kind,
    /// whether it is half of an RMW, and whether its variable is `a`'s (as
    /// for a relaxation of `common::relaxes`): it is asked once per
    /// sub-chain and such a signature of `b`.
    pub kept: &'a dyn Fn(OpId, OpId) -> bool,
    /// Whether `kept(init, b)` depends on which variable's initial write
    /// (PSO: a plain write keeps only its own variable's stores).
    pub init_var_matters: bool,
    /// The label of `po` edges.
    pub po_rel: Rel,
    /// `wr` edges: their label and which pairs (e.g. only external ones).
    pub wr_rel: Rel,
    pub wr_keep: &'a dyn Fn(OpId, OpId) -> bool,
}

/// The graph `π ∪ wr` of a history for the program order `π` that `shape`
/// describes.
pub fn graph(h: &History, lanes: &Lanes, shape: &Shape) -> ChainGraph {
    let n = h.n();
    let nl = lanes.lanes.len() as u32;
    let nv = h.vars.len() as u32;
    // sequences: (lane, class)
    let mut seq_id: Vec<u32> = Vec::new(); // lane * classes + class -> seq (Mode A)
    let mut seqs: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut base = vec![NONE; n];
    if shape.per_var {
        seqs = (0..nv * nl).map(|q| (q % nl, Vec::new())).collect();
        for (l, ops) in lanes.lanes.iter().enumerate() {
            for &o in ops {
                if let Some(c) = (shape.class)(o as usize) {
                    seqs[(c * nl) as usize + l].1.push(o);
                }
            }
        }
        for (o, b) in base.iter_mut().enumerate() {
            if let Some(v) = h.ops[o].var {
                *b = v as u32 * nl;
            }
        }
    } else {
        seq_id = vec![NONE; (nl * shape.classes) as usize];
        for (l, ops) in lanes.lanes.iter().enumerate() {
            for &o in ops {
                if let Some(c) = (shape.class)(o as usize) {
                    let k = l * shape.classes as usize + c as usize;
                    if seq_id[k] == NONE {
                        seq_id[k] = seqs.len() as u32;
                        seqs.push((seqs.len() as u32, Vec::new()));
                    }
                    seqs[seq_id[k] as usize].1.push(o);
                }
            }
        }
        base.iter_mut().for_each(|b| *b = 0);
    }
    let slots = if shape.per_var {
        nl as usize
    } else {
        seqs.len()
    };
    let mut where_: Vec<(u32, u32)> = vec![(NONE, NONE); n];
    for (q, (_, nodes)) in seqs.iter().enumerate() {
        for (p, &o) in nodes.iter().enumerate() {
            where_[o as usize] = (q as u32, p as u32);
        }
    }
    // per thread, its sequences (Mode A); Mode B takes lane l of var c as c·L + l
    let thread_seqs: Vec<Vec<u32>> = lanes
        .of_thread
        .iter()
        .map(|r| {
            if shape.per_var {
                return Vec::new();
            }
            r.clone()
                .flat_map(|l| (0..shape.classes).map(move |k| l * shape.classes + k))
                .map(|k| seq_id[k as usize])
                .filter(|&q| q != NONE)
                .collect()
        })
        .collect();
    let mut edges: Vec<(u32, u32, Rel)> = Vec::new();
    // `kept` is asked once per (sub-chain, signature of b): see `Shape::kept`;
    // a signature is one of 6 kinds (read, write, fence; RMW half or not)
    // and whether b's variable is the sub-chain's
    const KINDS: usize = 6;
    const SIGNATURES: usize = 2 * KINDS;
    let kind = |b: u32| -> usize {
        let op = &h.ops[b as usize];
        let kind = match op.kind {
            OpKind::Read => 0,
            OpKind::Write => 1,
            OpKind::Fence => 2,
        };
        kind * 2 + usize::from(op.rmw.is_some())
    };
    // per sequence, the one variable its accesses share (NONE: none or several)
    let seq_var: Vec<u32> = seqs
        .iter()
        .map(|(_, nodes)| {
            let mut vars = nodes.iter().filter_map(|&o| h.ops[o as usize].var);
            match vars.next() {
                Some(v) if vars.all(|w| w == v) => v as u32,
                _ => NONE,
            }
        })
        .collect();
    // Walking each sequence in order, an edge from the last op of another
    // sequence q before b is needed only if no earlier op of b's sequence
    // already has one from that op or a later one of q (then it reaches b).
    let mut last: Vec<usize> = Vec::new();
    let mut reached: Vec<usize> = Vec::new();
    // per thread, `kept` of each (sub-chain, signature): 0 unknown, 1 no, 2 yes
    let mut memo: Vec<u8> = Vec::new();
    let mut memo_of = None;
    for (s, (_, nodes)) in seqs.iter().enumerate() {
        let Some(&first) = nodes.first() else {
            continue;
        };
        let t = h.thread_of(first as usize).expect("thread operations");
        let qs: Vec<u32> = if shape.per_var {
            let c = s as u32 / nl;
            lanes.of_thread[t].clone().map(|l| c * nl + l).collect()
        } else {
            thread_seqs[t].clone()
        };
        // (per variable, the sub-chains of one thread differ by class)
        let key = (t, if shape.per_var { s as u32 / nl } else { 0 });
        if memo_of != Some(key) {
            memo.clear();
            memo.resize(qs.len() * SIGNATURES, 0);
            memo_of = Some(key);
        }
        last.clear();
        last.resize(qs.len(), 0);
        reached.clear();
        reached.resize(qs.len(), 0);
        for &b in nodes {
            let (kind, var) = (kind(b), h.ops[b as usize].var.map(|v| v as u32));
            for (k, &q) in qs.iter().enumerate() {
                if q as usize == s {
                    continue;
                }
                let from = &seqs[q as usize].1;
                if from.is_empty() {
                    continue;
                }
                let same = var.is_some_and(|v| v == seq_var[q as usize]);
                let kept = &mut memo[k * SIGNATURES + kind * 2 + usize::from(same)];
                if *kept == 0 {
                    *kept = 1 + u8::from((shape.kept)(from[0] as usize, b as usize));
                }
                debug_assert_eq!(
                    *kept == 2,
                    (shape.kept)(from[from.len() - 1] as usize, b as usize),
                    "`kept` depends on more than a sub-chain and a signature"
                );
                if *kept == 1 {
                    continue;
                }
                // b's sequence is in issue order: the ops of q before b only grow
                let mut i = reached[k];
                while i < from.len() && h.po_before(from[i] as usize, b as usize) {
                    i += 1;
                }
                reached[k] = i;
                if i > last[k] {
                    edges.push((from[i - 1], b, shape.po_rel));
                    last[k] = i;
                }
            }
        }
    }
    // initial writes: to the first operation of each sequence they keep
    // (`kept` does not depend on which initial write unless
    // `init_var_matters`: init 0 stands for all); `kept` is asked at the
    // first operation of each (kind, variable) of a sequence only
    if nv > 0 {
        let inits: Vec<u32> = if shape.init_var_matters {
            (0..nv).collect()
        } else {
            vec![0]
        };
        // per (kind, variable), the last sequence that tried it (plus one)
        let mut tried = vec![0u32; KINDS * (nv as usize + 1)];
        let mut done = vec![false; inits.len()];
        for (q, (_, nodes)) in seqs.iter().enumerate() {
            let own = [q as u32 / nl];
            let inits: &[u32] = if shape.per_var { &own } else { &inits };
            done[..inits.len()].iter_mut().for_each(|d| *d = false);
            let mut left = inits.len();
            for &b in nodes {
                if left == 0 {
                    break;
                }
                let var = h.ops[b as usize].var.map_or(nv as usize, |v| v);
                let sig = kind(b) * (nv as usize + 1) + var;
                if std::mem::replace(&mut tried[sig], q as u32 + 1) == q as u32 + 1 {
                    continue;
                }
                for (i, &v) in inits.iter().enumerate() {
                    if !done[i] && (shape.kept)(v as usize, b as usize) {
                        done[i] = true;
                        left -= 1;
                        if shape.init_var_matters || shape.per_var {
                            edges.push((v, b, shape.po_rel));
                        } else {
                            edges.extend((0..nv).map(|v| (v, b, shape.po_rel)));
                        }
                    }
                }
            }
        }
    }
    for r in 0..n {
        if let (OpKind::Read, Some(w), Some(_)) = (h.ops[r].kind, h.rf(r), (shape.class)(r)) {
            if (shape.wr_keep)(w, r) {
                edges.push((w as u32, r as u32, shape.wr_rel));
            }
        }
    }
    let access = (0..n)
        .map(|o| match (h.ops[o].kind, h.ops[o].var) {
            (OpKind::Read, Some(v)) => Some((v as u32, true)),
            (OpKind::Write, Some(v)) => Some((v as u32, false)),
            _ => None,
        })
        .collect();
    ChainGraph::new(Layout {
        n,
        slots,
        seqs,
        base,
        chain_rel: shape.po_rel,
        edges,
        access,
    })
}

/// A graph of one family of sequences per variable (`po-loc`-like): the
/// operations `class` puts on their variable's sequences, every `po` pair
/// among them kept (labelled `po_rel`), and the `wr` pairs `wr_keep` accepts.
pub fn per_var_graph(
    h: &History,
    lanes: &Lanes,
    class: &dyn Fn(OpId) -> Option<u32>,
    po_rel: Rel,
    wr_rel: Rel,
    wr_keep: &dyn Fn(OpId, OpId) -> bool,
) -> ChainGraph {
    graph(
        h,
        lanes,
        &Shape {
            class,
            classes: h.vars.len() as u32,
            per_var: true,
            kept: &|_, _| true,
            init_var_matters: false,
            po_rel,
            wr_rel,
            wr_keep,
        },
    )
}

/// `(w, rf(r))` for each read `r` of a lane whose last earlier write of
/// its variable in the lane is `w ≠ rf(r)` (CoWR: `w po-loc r` puts every
/// store order's `w` before `rf(r)`).
pub fn po_loc_sources(h: &History, lane: &[u32], mut pair: impl FnMut(OpId, OpId)) {
    let mut last: std::collections::HashMap<usize, OpId> = Default::default();
    for &o in lane {
        let o = o as usize;
        let Some(x) = h.var(o) else { continue };
        if h.is_read(o) {
            if let (Some(&w), Some(w0)) = (last.get(&x), h.rf(o)) {
                if w != w0 {
                    pair(w, w0);
                }
            }
        }
        if h.is_write(o) {
            last.insert(x, o);
        }
    }
}

/// The `po-loc` consequences that let TSO and PSO drop `G_loc` during
/// saturation: `(w, rf(r))` from [`po_loc_sources`] on every lane. `None`
/// (keep `G_loc`) unless every thread is one untimed lane and no read
/// reads a write of its own thread that is not `po`-before it.
///
/// Why this suffices (checked against `G_loc` by `tests/scale.rs`): the
/// model graph holds every `po-loc` pair but (write, read), and a path of
/// `G_loc` through such a pair `w po-loc r` goes on either along `po`
/// (kept from `w` to any later write) or by `r rw w′`, where
/// `rf(r) ww w′`; the seed `w″ ww rf(r)` for `r`'s last earlier write
/// `w″` (`w po w″`, or `w″ = w`) gives `w ⇝ rf(r) ⇝ w′` in the model
/// graph. So at each fixpoint the model graph reaches every same-variable
/// pair from a write that `G_loc` does, fires the same rules, and a
/// cycle of `G_loc` is one of the model graph.
pub fn loc_seeds(h: &History, lanes: &Lanes) -> Option<Vec<(u32, u32)>> {
    let one_lane = lanes.of_thread.iter().all(|r| r.len() == 1);
    if !one_lane || h.threads.iter().any(|t| t.timed) {
        return None;
    }
    let future = (0..h.n()).any(|r| {
        h.is_read(r)
            && h.rf(r).is_some_and(|w| {
                h.thread_of(w).is_some() && h.thread_of(w) == h.thread_of(r) && w >= r
            })
    });
    if future {
        return None;
    }
    let mut seeds = Vec::new();
    for lane in &lanes.lanes {
        po_loc_sources(h, lane, |a, b| seeds.push((a as u32, b as u32)));
    }
    Some(seeds)
}

/// `(rf(r), rf(r′))` for consecutive reads `r`, `r′` of one variable in a
/// lane (writes between them aside) with different sources, while `upto`
/// accepts the lane's operations: `rf(r)` precedes `rf(r′)` in every store
/// order and `hb` that contains `rf(r) → r` and the lane's order.
pub fn consecutive_sources(
    h: &History,
    lane: &[u32],
    upto: impl Fn(OpId) -> bool,
    mut pair: impl FnMut(OpId, OpId),
) {
    let mut last: std::collections::HashMap<usize, OpId> = Default::default();
    for &r in lane {
        let r = r as usize;
        if !upto(r) {
            break;
        }
        if let (true, Some(w)) = (h.is_read(r), h.rf(r)) {
            let x = h.var(r).expect("reads have a variable");
            if let Some(prev) = last.insert(x, w) {
                if prev != w {
                    pair(prev, w);
                }
            }
        }
    }
}
