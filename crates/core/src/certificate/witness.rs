//! A witness checked against a store-order model's axioms, on the history
//! alone: a total store order ([`store_order`]: the acyclicity graphs with
//! `ww` and `rw`, RMW atomicity, `@final`) or an SC interleaving
//! ([`interleaving`], run on a memory). Its own relations (edge lists, a
//! program order of O(n) edges) and its own acyclicity test (Kahn); the
//! pairwise forms of the weak ISAs' program orders ([`po_loc_llh`],
//! [`rmo_po`], [`armv8_bob`], [`armv8_aob`]) that [`super::derive`] shares.
//! It uses nothing else of the certificate module, so the validator, brute
//! force and the re-derivation all stand on it.

use crate::history::{History, OpId, OpKind};

/// The store-order models a witness can be checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreModel {
    Sc,
    Tso,
    Pso,
    /// RMO: `po-loc_llh` and `po-rmo` (the pairs fences order)
    Rmo,
    /// ARMv8 without `dob`: internal visibility and `ob` (aarch64.cat)
    Armv8,
}

/// A fence's kind as `.hist` writes it: `F` full (DMB ISH), `F.ld` (DMB
/// ISHLD: reads before everything), `F.st` (DMB ISHST: writes before writes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FenceKind {
    Full,
    Ld,
    St,
}

fn fence_kind(h: &History, f: OpId) -> Option<FenceKind> {
    use memconform_parsers::hist::Ann;
    (h.ops[f].kind == OpKind::Fence).then_some(match h.ops[f].ann {
        Ann::Ld => FenceKind::Ld,
        Ann::St => FenceKind::St,
        _ => FenceKind::Full,
    })
}

/// Whether a fence of `kind` orders the access `a` before the access `b`.
fn fence_orders(h: &History, kind: FenceKind, a: OpId, b: OpId) -> bool {
    match kind {
        FenceKind::Full => true,
        FenceKind::Ld => h.ops[a].kind == OpKind::Read,
        FenceKind::St => h.ops[a].kind == OpKind::Write && h.ops[b].kind == OpKind::Write,
    }
}

/// Whether `a` and `b` are accesses of one thread, `a po b`, with a fence
/// between them that orders them (`po; [F]; po` restricted by kind).
fn fenced(h: &History, a: OpId, b: OpId) -> bool {
    let (Some(t), Some(_), Some(_)) = (h.ops[a].thread, h.ops[a].var, h.ops[b].var) else {
        return false;
    };
    h.po_before(a, b)
        && h.threads[t].ops.clone().any(|f| {
            fence_kind(h, f)
                .is_some_and(|k| h.po_before(a, f) && h.po_before(f, b) && fence_orders(h, k, a, b))
        })
}

/// RMO's `po-rmo` pair (consistency-framework-2k §4.2 with `dp = ∅`): a fence orders it.
pub(crate) fn rmo_po(h: &History, a: OpId, b: OpId) -> bool {
    fenced(h, a, b)
}

/// RMO's `po-loc_llh` pair: `po-loc` but not read-read (load-load hazards).
pub(crate) fn po_loc_llh(h: &History, a: OpId, b: OpId) -> bool {
    let read = |o: OpId| h.ops[o].kind == OpKind::Read;
    h.po_before(a, b)
        && h.ops[a].var.is_some()
        && h.ops[a].var == h.ops[b].var
        && !(read(a) && read(b))
}

/// ARMv8's `bob` pair (aarch64.cat, without `po; [L]; coi`), for accesses
/// `a po b` of one thread: `po; [dmb.full]; po`, `[L]; po; [A]`, `[R]; po;
/// [dmb.ld]; po`, `[A | Q]; po`, `[W]; po; [dmb.st]; po; [W]`, `po; [L]`.
pub(crate) fn armv8_bob(h: &History, a: OpId, b: OpId) -> bool {
    use memconform_parsers::hist::Ann;
    let (oa, ob) = (&h.ops[a], &h.ops[b]);
    if oa.thread.is_none() || oa.var.is_none() || ob.var.is_none() || !h.po_before(a, b) {
        return false;
    }
    let acquire =
        |o: &crate::history::Op| o.kind == OpKind::Read && matches!(o.ann, Ann::Acq | Ann::AcqRel);
    let release =
        |o: &crate::history::Op| o.kind == OpKind::Write && matches!(o.ann, Ann::Rel | Ann::AcqRel);
    let acquire_pc = oa.kind == OpKind::Read && oa.ann == Ann::AcqPc;
    (release(oa) && acquire(ob)) || acquire(oa) || acquire_pc || release(ob) || fenced(h, a, b)
}

/// ARMv8's `aob` pair (aarch64.cat `rmw | rmw; rfi`): an RMW's read half
/// before its write half, or before a read of its thread that reads it.
pub(crate) fn armv8_aob(h: &History, a: OpId, b: OpId) -> bool {
    match (h.ops[a].kind, h.ops[a].rmw) {
        (OpKind::Read, Some(w)) => {
            b == w || (h.rf(b) == Some(w) && h.ops[b].thread == h.ops[w].thread)
        }
        _ => false,
    }
}

/// Whether a store-order pair `a -co-> b` is an edge of ARMv8's `ob`:
/// `coe`, or `coi` from a release (`po; [L]; coi`, see models::armv8).
pub(crate) fn armv8_co_edge(h: &History, a: OpId, b: OpId) -> bool {
    use memconform_parsers::hist::Ann;
    let release = h.ops[a].kind == OpKind::Write && matches!(h.ops[a].ann, Ann::Rel | Ann::AcqRel);
    h.ops[a].thread != h.ops[b].thread || release
}

/// Whether `r -fr-> w` is an edge of ARMv8's `ob` (`fre`).
pub(crate) fn armv8_fr_edge(h: &History, r: OpId, w: OpId) -> bool {
    h.ops[r].thread != h.ops[w].thread
}

fn is_plain_write(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Write && h.ops[o].rmw.is_none()
}

fn is_plain_read(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Read && h.ops[o].rmw.is_none()
}

/// `F.ld` or `F.st`: absent for SC, TSO and PSO (it orders none of the
/// pairs they relax but PSO's `W→W`, which PSO leaves to full fences).
fn partial_fence(h: &History, o: OpId) -> bool {
    h.ops[o].kind == OpKind::Fence && h.ops[o].ann.partial_fence()
}

/// Whether the program-order pair `(a, b)` is kept by the model itself (not
/// through an intermediate operation).
pub(crate) fn kept(h: &History, model: StoreModel, a: OpId, b: OpId) -> bool {
    // a partial fence (`F.ld`, `F.st`) orders nothing SC, TSO or PSO see
    if partial_fence(h, a) || partial_fence(h, b) {
        return false;
    }
    match model {
        StoreModel::Sc => true,
        StoreModel::Tso => !(is_plain_write(h, a) && is_plain_read(h, b)),
        StoreModel::Pso => {
            let other_store = (h.ops[b].kind == OpKind::Write || h.ops[b].rmw.is_some())
                && h.ops[b].var != h.ops[a].var;
            !(is_plain_write(h, a) && (is_plain_read(h, b) || other_store))
        }
        StoreModel::Rmo => rmo_po(h, a, b),
        StoreModel::Armv8 => armv8_bob(h, a, b) || armv8_aob(h, a, b),
    }
}

/// Whether `(a, b)` is in the model's preserved program order: kept, or
/// kept through an intermediate operation of the thread. A plain write
/// reaches what it does not keep only through an operation that is neither
/// a plain write nor a plain read (a fence, an RMW half; under PSO an RMW of
/// the write's own variable or a fence), which keeps everything after it.
pub(crate) fn preserved(h: &History, model: StoreModel, a: OpId, b: OpId) -> bool {
    if !h.po_before(a, b) {
        return false;
    }
    if kept(h, model, a, b) {
        return true;
    }
    let t = h.ops[b].thread.expect("po never ends at an initial write");
    h.threads[t].ops.clone().any(|c| {
        let barrier = !is_plain_write(h, c) && !is_plain_read(h, c) && !partial_fence(h, c);
        barrier && kept(h, model, a, c) && h.po_before(a, c) && h.po_before(c, b)
    })
}

/// Program order restricted to the pairs a model keeps, as a graph with the
/// same reachability in O(n) edges: per thread and *source class*, a
/// timeline of the classes' completion ticks; an operation feeds its class's
/// timeline at its completion, and the timeline feeds each operation `b`
/// that the class keeps from its latest tick before `b`'s issue. `class(a)`
/// must determine `keep(a, ·)`; `sources(b)` lists the classes `b` may be
/// kept from. Initial writes feed no timeline: in every graph
/// [`store_order`] checks, nothing leads into an initial write (it starts
/// its variable's order, no operation is `po`-before it, and `rw` leads to
/// the write after a read's source), so it lies on no cycle and its
/// program-order edges cannot close one (4×50 histories over 64 variables:
/// the feeds of the initial writes were more than those of the operations).
struct Program {
    /// Nodes `0..n` are operations; timeline nodes follow, up to `nodes`.
    nodes: usize,
    edges: Vec<(usize, usize)>,
}

impl Program {
    fn new(
        h: &History,
        class: impl Fn(OpId) -> Option<usize>,
        keep: impl Fn(usize, OpId) -> bool,
        sources: impl Fn(OpId) -> Option<[usize; 2]>,
    ) -> Program {
        let mut nodes = h.n();
        let mut edges: Vec<(usize, usize)> = Vec::new();
        let tick = |o: OpId| -> (i128, i128) {
            let (i, c) = h.interval(o);
            (i as i128, c as i128)
        };
        let mut feeds: Vec<(usize, usize, i128)> = Vec::new(); // (op, class, tick)
                                                               // the thread's timelines: (class, tick) ascending, entry `i` is node
                                                               // `first + i`; a class's timeline is a run of entries
        let mut lines: Vec<(usize, i128)> = Vec::new();
        for t in &h.threads {
            feeds.clear();
            for a in t.ops.clone() {
                if let Some(k) = class(a) {
                    feeds.push((a, k, tick(a).1));
                }
            }
            lines.clear();
            lines.extend(feeds.iter().map(|&(_, k, c)| (k, c)));
            lines.sort_unstable();
            lines.dedup();
            let first = nodes;
            nodes += lines.len();
            for i in 1..lines.len() {
                if lines[i].0 == lines[i - 1].0 {
                    edges.push((first + i - 1, first + i));
                }
            }
            // the entries of class k's timeline (classes are at most the
            // variables and one more), found once per class
            let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
            for (i, &(k, _)) in lines.iter().enumerate() {
                if runs.len() <= k {
                    runs.resize(k + 1, 0..0);
                }
                if runs[k].is_empty() {
                    runs[k] = i..i;
                }
                runs[k].end = i + 1;
            }
            let line = |k: usize| runs.get(k).cloned().unwrap_or(0..0);
            for &(a, k, c) in &feeds {
                let run = line(k);
                let i = run.start + lines[run].partition_point(|e| e.1 < c);
                edges.push((a, first + i));
            }
            for b in t.ops.clone() {
                let issue = tick(b).0;
                let mut from = |k: usize| {
                    let run = line(k);
                    if !run.is_empty() && keep(k, b) {
                        let i = lines[run.clone()].partition_point(|e| e.1 < issue);
                        if i > 0 {
                            edges.push((first + run.start + i - 1, b));
                        }
                    }
                };
                match sources(b) {
                    Some([k0, k1]) => {
                        from(k0);
                        if k1 != k0 {
                            from(k1);
                        }
                    }
                    None => {
                        for i in 0..lines.len() {
                            if i == 0 || lines[i].0 != lines[i - 1].0 {
                                from(lines[i].0);
                            }
                        }
                    }
                }
                // an RMW's halves stay ordered
                if let Some(w) = h.ops[b].rmw.filter(|&w| b < w) {
                    if class(b).is_some() && class(w).is_some() {
                        edges.push((b, w));
                    }
                }
            }
        }
        Program { nodes, edges }
    }
}

/// Kahn's algorithm on the union of edge lists over `0..nodes`: whether
/// the graph is acyclic. (Counts and adjacency in 32 bits: half the memory
/// to touch at 10⁶ operations.)
fn acyclic(nodes: usize, parts: &[&[(usize, usize)]]) -> bool {
    let edges = || parts.iter().flat_map(|p| p.iter());
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if nodes >= u32::MAX as usize || total >= u32::MAX as usize {
        return acyclic_wide(nodes, parts);
    }
    // adjacency by source, counted then filled
    let mut start = vec![0u32; nodes + 1];
    let mut indeg = vec![0u32; nodes];
    for &(a, b) in edges() {
        start[a + 1] += 1;
        indeg[b] += 1;
    }
    for i in 0..nodes {
        start[i + 1] += start[i];
    }
    let mut next = vec![0u32; start[nodes] as usize];
    let mut fill = start.clone();
    for &(a, b) in edges() {
        next[fill[a] as usize] = b as u32;
        fill[a] += 1;
    }
    drop(fill);
    let mut queue: Vec<u32> = (0..nodes as u32)
        .filter(|&a| indeg[a as usize] == 0)
        .collect();
    let mut seen = 0;
    while let Some(a) = queue.pop() {
        seen += 1;
        let a = a as usize;
        for &b in &next[start[a] as usize..start[a + 1] as usize] {
            indeg[b as usize] -= 1;
            if indeg[b as usize] == 0 {
                queue.push(b);
            }
        }
    }
    seen == nodes
}

/// [`acyclic`] for graphs past 32-bit counts.
fn acyclic_wide(nodes: usize, parts: &[&[(usize, usize)]]) -> bool {
    let edges = || parts.iter().flat_map(|p| p.iter());
    let mut start = vec![0usize; nodes + 1];
    let mut indeg = vec![0usize; nodes];
    for &(a, b) in edges() {
        start[a + 1] += 1;
        indeg[b] += 1;
    }
    for i in 0..nodes {
        start[i + 1] += start[i];
    }
    let mut next = vec![0usize; start[nodes]];
    let mut fill = start.clone();
    for &(a, b) in edges() {
        next[fill[a]] = b;
        fill[a] += 1;
    }
    drop(fill);
    let mut queue: Vec<usize> = (0..nodes).filter(|&a| indeg[a] == 0).collect();
    let mut seen = 0;
    while let Some(a) = queue.pop() {
        seen += 1;
        for &b in &next[start[a]..start[a + 1]] {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                queue.push(b);
            }
        }
    }
    seen == nodes
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
        // as many as its writes, each a write of x, none twice
        let permutation = ws.len() == h.writes_of(x).len()
            && ws.iter().all(|&w| {
                let fresh = w < n
                    && h.ops[w].kind == OpKind::Write
                    && h.ops[w].var == Some(x)
                    && pos[w] == usize::MAX;
                if fresh {
                    pos[w] = 0;
                }
                fresh
            });
        if !permutation {
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
    let mut common: Vec<(usize, usize)> = Vec::new();
    for ws in order {
        common.extend(ws.windows(2).map(|pair| (pair[0], pair[1])));
    }
    for r in (0..n).filter(|&r| h.ops[r].kind == OpKind::Read) {
        let w = h.rf(r).expect("checked above");
        let x = h.ops[r].var.expect("reads have a variable");
        if let Some(&next) = order[x].get(pos[w] + 1) {
            common.push((r, next));
        }
    }
    // each graph with its wr (or wre) and the common edges, one at a time
    let acyclic_with = |name: &str, mut program: Program, external_only: bool| {
        for r in (0..n).filter(|&r| h.ops[r].kind == OpKind::Read) {
            let w = h.rf(r).expect("checked above");
            if !external_only || !(h.po_before(w, r) || h.po_before(r, w)) {
                program.edges.push((w, r));
            }
        }
        if acyclic(program.nodes, &[&program.edges, &common]) {
            Ok(())
        } else {
            Err(format!("{name} is cyclic under the witness store order"))
        }
    };
    let plain_w = |o: OpId| is_plain_write(h, o);
    // the pairs of one thread (and from initial writes) a relation keeps
    let pairs = |keep: &dyn Fn(OpId, OpId) -> bool| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for a in 0..n {
            for b in h.vars.len()..n {
                if (h.is_init(a) || h.ops[a].thread == h.ops[b].thread) && keep(a, b) {
                    out.push((a, b));
                }
            }
        }
        out
    };
    let graph = |name: &str, parts: &[&[(usize, usize)]]| {
        if acyclic(n, parts) {
            Ok(())
        } else {
            Err(format!("{name} is cyclic under the witness store order"))
        }
    };
    let wr: Vec<(usize, usize)> = (0..n)
        .filter(|&r| h.ops[r].kind == OpKind::Read)
        .map(|r| (h.rf(r).expect("checked above"), r))
        .collect();
    let external = |&(w, r): &(usize, usize)| !(h.po_before(w, r) || h.po_before(r, w));
    let wre: Vec<(usize, usize)> = wr.iter().copied().filter(external).collect();
    match model {
        StoreModel::Rmo => {
            let llh = pairs(&|a, b| po_loc_llh(h, a, b));
            graph("po-loc_llh ∪ wr ∪ ww ∪ rw", &[&llh, &wr, &common])?;
            let mm = pairs(&|a, b| rmo_po(h, a, b));
            graph("po-rmo ∪ wre ∪ ww ∪ rw", &[&mm, &wre, &common])
        }
        StoreModel::Armv8 => {
            let loc = pairs(&|a, b| {
                h.po_before(a, b) && h.ops[a].var.is_some() && h.ops[a].var == h.ops[b].var
            });
            graph("internal: po-loc ∪ rf ∪ co ∪ fr", &[&loc, &wr, &common])?;
            let mut ob = pairs(&|a, b| armv8_bob(h, a, b) || armv8_aob(h, a, b));
            ob.extend(wre.iter().copied());
            // co and fr whole (not by consecutive pairs: only their
            // external parts are in ob)
            for ws in order {
                for (i, &a) in ws.iter().enumerate() {
                    for &b in &ws[i + 1..] {
                        if armv8_co_edge(h, a, b) {
                            ob.push((a, b));
                        }
                        for &r in h.readers(a) {
                            if armv8_fr_edge(h, r, b) {
                                ob.push((r, b));
                            }
                        }
                    }
                }
            }
            graph("external: ob = bob ∪ aob ∪ rfe ∪ coe ∪ fre", &[&ob])
        }
        StoreModel::Sc => acyclic_with(
            "po ∪ wr ∪ ww ∪ rw",
            Program::new(h, |_| Some(0), |_, _| true, |_| Some([0, 0])),
            false,
        ),
        StoreModel::Tso | StoreModel::Pso => {
            // classes: 0 = not a plain write; plain writes: 1 (TSO), 1 + x (PSO)
            let pso = model == StoreModel::Pso;
            let class = move |o: OpId| -> Option<usize> {
                if partial_fence(h, o) {
                    return None; // feeds no timeline: orders nothing
                }
                Some(match (plain_w(o), pso) {
                    (false, _) => 0,
                    (true, false) => 1,
                    (true, true) => 1 + h.ops[o].var.expect("writes have a variable"),
                })
            };
            let sources = move |b: OpId| -> Option<[usize; 2]> {
                match (pso, h.ops[b].var) {
                    (false, _) => Some([0, 1]),
                    (true, Some(x)) => Some([0, 1 + x]),
                    (true, None) => None, // a fence: every class
                }
            };
            let witness = move |k: usize| -> Option<OpId> {
                // a plain write of class k, to ask `kept`: an initial write
                (k > 0).then(|| if pso { k - 1 } else { 0 })
            };
            let mm = move |k: usize, b: OpId| match witness(k) {
                None => true,
                Some(w) => kept(h, model, w, b),
            };
            let loc = || {
                acyclic_with(
                    "po-loc ∪ wr ∪ ww ∪ rw",
                    Program::new(
                        h,
                        |o| h.ops[o].var,
                        |k, b| h.ops[b].var == Some(k),
                        |b| h.ops[b].var.map(|x| [x, x]),
                    ),
                    false,
                )
            };
            let own = || {
                acyclic_with(
                    if model == StoreModel::Tso {
                        "ppo ∪ wre ∪ ww ∪ rw"
                    } else {
                        "po-pso ∪ wre ∪ ww ∪ rw"
                    },
                    Program::new(h, class, mm, sources),
                    true,
                )
            };
            // the two graphs are independent: on two cores for a large
            // history (TSO at 10⁶ operations: 0.55 s of checking), with
            // the answer of one after the other
            if !crate::parallel::two_cores(n) {
                return loc().and_then(|()| own());
            }
            let (loc, own) = crate::parallel::join(loc, own);
            loc.and(own)
        }
    }
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
    // po: in each thread, no operation may run after one it precedes
    for t in &h.threads {
        let mut ops: Vec<OpId> = t.ops.clone().collect();
        ops.sort_by_key(|&o| at[o]);
        // the earliest-completing operation run later than each position
        let mut later: Option<OpId> = None;
        for &b in ops.iter().rev() {
            if let Some(a) = later {
                if h.po_before(a, b) {
                    return Err(format!(
                        "{} runs before {} against po",
                        h.describe(b),
                        h.describe(a)
                    ));
                }
            }
            if later.is_none_or(|a| h.interval(b).1 < h.interval(a).1) {
                later = Some(b);
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
