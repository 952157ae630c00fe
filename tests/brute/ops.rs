//! Extended histories: full fences `F`, atomic read-modify-writes `U(x,old,new)` and
//! final-value observations `@final x=v`, decided for SC, TSO and PSO by two
//! independent methods that the tests require to agree:
//!
//! * [`x_operational`]: the abstract machines of the axe manual (CTSRD-CHERI/axe,
//!   doc/manual.tex, "SPARC models"), explored exhaustively with memoisation.
//!   This is the ground truth.
//! * [`x_axiomatic`]: enumeration of store orders (per variable a total order on
//!   its writes, init first) against acyclicity conditions, atomicity of RMWs and
//!   the finals.
//!
//! Both are std-only and share nothing with the crate under test (nor with each
//! other, beyond the history types and the RNG).

use std::collections::HashSet;

use super::SplitMix64;

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/// One operation of the extended format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XOp {
    /// R(var, value)
    R(usize, u64),
    /// W(var, value)
    W(usize, u64),
    /// U(var, old, new): atomically reads `old` and writes `new`.
    U(usize, u64, u64),
    /// Full fence.
    F,
}

impl XOp {
    fn var(self) -> Option<usize> {
        match self {
            XOp::R(x, _) | XOp::W(x, _) | XOp::U(x, _, _) => Some(x),
            XOp::F => None,
        }
    }
}

/// threads[t] = ops in program order; finals = (var, value) observations of the
/// memory after everything completed.
#[derive(Clone, Debug)]
pub struct XHistory {
    pub threads: Vec<Vec<XOp>>,
    pub finals: Vec<(usize, u64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XVerdicts {
    pub sc: bool,
    pub tso: bool,
    pub pso: bool,
}

/// Operational machine (axe semantics).
pub fn x_operational(h: &XHistory) -> XVerdicts {
    XVerdicts {
        sc: machine(h, XModel::Sc),
        tso: machine(h, XModel::Tso),
        pso: machine(h, XModel::Pso),
    }
}

/// Axiomatic, by enumerating store orders.
pub fn x_axiomatic(h: &XHistory) -> XVerdicts {
    let g = match XGraph::new(h) {
        Some(g) => g,
        None => {
            return XVerdicts {
                sc: false,
                tso: false,
                pso: false,
            }
        }
    };
    let sc = g.exists_store_order(&[or(&g.po, &g.wr)]);
    let uniproc = or(&g.po_loc, &g.wr);
    // (No shortcut through the hierarchy: each model is decided on its own.)
    let tso = g.exists_store_order(&[uniproc.clone(), or(&g.ppo_tso, &g.wre)]);
    let pso = g.exists_store_order(&[uniproc, or(&g.ppo_pso, &g.wre)]);
    XVerdicts { sc, tso, pso }
}

/// Deterministic random history: up to `max_ops` ops (an RMW counts as one), 1..=4 threads,
/// 1..=3 vars, unique non-zero written values per var (U's `new` counts as a written value),
/// U's `old` and reads return 0 or any value written to that var (rarely, ~2%, an unwritten
/// value), ~10% fences, ~15% RMWs, and with probability ~0.3 one or two finals (var = a var
/// used, value = 0 or a value written to it). Empty threads are dropped.
pub fn x_random_history(seed: u64, max_ops: usize) -> XHistory {
    let mut rng = SplitMix64::new(seed ^ 0x0F0E_57ED_0A7A_0001);
    let n_threads = 1 + rng.below(4) as usize;
    let n_vars = 1 + rng.below(3) as usize;
    // Number of ops in 1..=max_ops, skewed towards larger histories (max of two draws).
    let n_ops = if max_ops == 0 {
        0
    } else {
        let a = 1 + rng.below(max_ops as u64) as usize;
        let b = 1 + rng.below(max_ops as u64) as usize;
        a.max(b)
    };
    const TBD: u64 = u64::MAX; // value filled in once all writes are known
    let mut threads: Vec<Vec<XOp>> = vec![Vec::new(); n_threads];
    let mut written: Vec<u64> = vec![0; n_vars]; // var's written values are 1..=written[var]
    for _ in 0..n_ops {
        let t = rng.below(n_threads as u64) as usize;
        let x = rng.below(n_vars as u64) as usize;
        let roll = rng.below(100);
        let op = if roll < 10 {
            XOp::F
        } else if roll < 25 {
            written[x] += 1;
            XOp::U(x, TBD, written[x])
        } else if roll < 25 + 38 {
            written[x] += 1;
            XOp::W(x, written[x])
        } else {
            XOp::R(x, TBD)
        };
        threads[t].push(op);
    }
    let pick = |rng: &mut SplitMix64, x: usize| -> u64 {
        let k = written[x];
        if rng.below(50) == 0 {
            k + 1 + rng.below(3) // never written
        } else {
            rng.below(k + 1) // 0 ..= k
        }
    };
    for th in threads.iter_mut() {
        for op in th.iter_mut() {
            match op {
                XOp::R(x, v) | XOp::U(x, v, _) => *v = pick(&mut rng, *x),
                _ => {}
            }
        }
    }
    threads.retain(|t| !t.is_empty());
    let mut used: Vec<usize> = threads.iter().flatten().filter_map(|o| o.var()).collect();
    used.sort_unstable();
    used.dedup();
    let mut finals = Vec::new();
    if !used.is_empty() && rng.below(10) < 3 {
        for _ in 0..1 + rng.below(2) {
            let x = used[rng.below(used.len() as u64) as usize];
            let v = rng.below(written[x] + 1);
            // one `@final` entry per variable (a second is an input error)
            if finals.iter().all(|&(y, _)| y != x) {
                finals.push((x, v));
            }
        }
    }
    XHistory { threads, finals }
}

/// Renders as .hist text (vars named v0, v1..., threads t0, t1...), e.g.
/// "@final v0=2\nt0: W(v0,1) F U(v1,0,3)\n". Empty threads are left out.
pub fn x_to_hist(h: &XHistory) -> String {
    let mut out = String::new();
    if !h.finals.is_empty() {
        out.push_str("@final");
        for &(x, v) in &h.finals {
            out.push_str(&format!(" v{x}={v}"));
        }
        out.push('\n');
    }
    for (t, th) in h.threads.iter().enumerate() {
        if th.is_empty() {
            continue;
        }
        out.push_str(&format!("t{t}:"));
        for op in th {
            out.push(' ');
            out.push_str(&match *op {
                XOp::R(x, v) => format!("R(v{x},{v})"),
                XOp::W(x, v) => format!("W(v{x},{v})"),
                XOp::U(x, a, b) => format!("U(v{x},{a},{b})"),
                XOp::F => "F".to_string(),
            });
        }
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------
// Operational machines (axe manual, SPARC models)
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum XModel {
    Sc,
    Tso,
    Pso,
}

/// State: next op index per thread, memory M, store buffer B(t) per thread as a
/// sequence of pending (var, value) writes, oldest first.
type MState = (Vec<usize>, Vec<u64>, Vec<Vec<(usize, u64)>>);

fn machine(h: &XHistory, m: XModel) -> bool {
    let nvars = h
        .threads
        .iter()
        .flatten()
        .filter_map(|o| o.var())
        .chain(h.finals.iter().map(|f| f.0))
        .map(|x| x + 1)
        .max()
        .unwrap_or(0);
    let nt = h.threads.len();
    let start: MState = (vec![0; nt], vec![0; nvars], vec![Vec::new(); nt]);
    let mut seen: HashSet<MState> = HashSet::new();
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let (pcs, mem, bufs) = &s;
        let done = (0..nt).all(|t| pcs[t] == h.threads[t].len() && bufs[t].is_empty());
        if done && h.finals.iter().all(|&(x, v)| mem[x] == v) {
            return true;
        }
        for t in 0..nt {
            // Rule 1: the next operation of thread t.
            if pcs[t] < h.threads[t].len() {
                let buf = &bufs[t];
                let mut ns = s.clone();
                ns.0[t] += 1;
                let ok = match h.threads[t][pcs[t]] {
                    XOp::W(x, v) => {
                        if m == XModel::Sc {
                            ns.1[x] = v;
                        } else {
                            ns.2[t].push((x, v));
                        }
                        true
                    }
                    XOp::R(x, v) => {
                        // the latest buffered own write to x, else memory
                        let seen_v = buf.iter().rev().find(|e| e.0 == x).map_or(mem[x], |e| e.1);
                        seen_v == v
                    }
                    XOp::U(x, old, new) => {
                        let blocked = match m {
                            XModel::Sc => false,
                            XModel::Tso => !buf.is_empty(),
                            XModel::Pso => buf.iter().any(|e| e.0 == x),
                        };
                        if !blocked && mem[x] == old {
                            ns.1[x] = new;
                            true
                        } else {
                            false
                        }
                    }
                    XOp::F => buf.is_empty(),
                };
                if ok {
                    stack.push(ns);
                }
            }
            // Rule 2: drain one buffered write of thread t into memory.
            for i in 0..bufs[t].len() {
                let allowed = match m {
                    XModel::Sc => false, // SC never buffers
                    XModel::Tso => i == 0,
                    XModel::Pso => bufs[t][..i].iter().all(|e| e.0 != bufs[t][i].0),
                };
                if allowed {
                    let mut ns = s.clone();
                    let (x, v) = ns.2[t].remove(i);
                    ns.1[x] = v;
                    stack.push(ns);
                }
            }
        }
    }
    false
}

// ---------------------------------------------------------------------------
// Axiomatic: store-order enumeration over bitset relations
// ---------------------------------------------------------------------------

/// Relation over ≤ 64 nodes: row a = bitset of b with (a, b).
type Bits = Vec<u64>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NKind {
    Init,
    W,
    R,
    /// read half of an RMW
    Ur,
    /// write half of an RMW
    Uw,
    F,
}

struct XGraph {
    n: usize,
    kind: Vec<NKind>,
    var: Vec<Option<usize>>,
    value: Vec<u64>,
    /// rf[r] = the write node a read (R or Ur) reads from.
    rf: Vec<Option<usize>>,
    /// For an Ur node: its Uw node (the next node).
    partner: Vec<Option<usize>>,
    /// (init node, non-init write nodes, required final values) per variable with ops.
    groups: Vec<(usize, Vec<usize>, Vec<u64>)>,
    po: Bits,
    po_loc: Bits,
    wr: Bits,
    wre: Bits,
    ppo_tso: Bits,
    ppo_pso: Bits,
}

fn or(a: &Bits, b: &Bits) -> Bits {
    a.iter().zip(b).map(|(x, y)| x | y).collect()
}

fn has(r: &Bits, a: usize, b: usize) -> bool {
    r[a] >> b & 1 == 1
}

fn tclose(r: &Bits) -> Bits {
    let mut c = r.clone();
    for k in 0..c.len() {
        for i in 0..c.len() {
            if has(&c, i, k) {
                c[i] |= c[k];
            }
        }
    }
    c
}

/// Acyclic iff repeatedly removing the nodes without incoming edges empties the graph.
fn bits_acyclic(r: &Bits) -> bool {
    let n = r.len();
    let mut remaining: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    while remaining != 0 {
        let mut incoming = 0u64;
        for a in 0..n {
            if remaining >> a & 1 == 1 {
                incoming |= r[a];
            }
        }
        let sources = remaining & !incoming;
        if sources == 0 {
            return false;
        }
        remaining &= !sources;
    }
    true
}

impl XGraph {
    /// None if a read (plain or RMW) returns a value nobody writes, or a final cannot hold
    /// whatever the store order (every model false).
    fn new(h: &XHistory) -> Option<XGraph> {
        let mut vars: Vec<usize> = h.threads.iter().flatten().filter_map(|o| o.var()).collect();
        vars.sort_unstable();
        vars.dedup();
        let mut kind = Vec::new();
        let mut var = Vec::new();
        let mut value = Vec::new();
        let mut thread: Vec<Option<usize>> = Vec::new(); // None = init
        for &x in &vars {
            kind.push(NKind::Init);
            var.push(Some(x));
            value.push(0);
            thread.push(None);
        }
        for (t, th) in h.threads.iter().enumerate() {
            for &op in th {
                let mut node = |k: NKind, x: Option<usize>, v: u64| {
                    kind.push(k);
                    var.push(x);
                    value.push(v);
                    thread.push(Some(t));
                };
                match op {
                    XOp::R(x, v) => node(NKind::R, Some(x), v),
                    XOp::W(x, v) => node(NKind::W, Some(x), v),
                    XOp::U(x, a, b) => {
                        node(NKind::Ur, Some(x), a);
                        node(NKind::Uw, Some(x), b);
                    }
                    XOp::F => node(NKind::F, None, 0),
                }
            }
        }
        let n = kind.len();
        assert!(n <= 64, "history too large for the brute-force oracle");
        let is_write = |a: usize| matches!(kind[a], NKind::Init | NKind::W | NKind::Uw);
        let is_read = |a: usize| matches!(kind[a], NKind::R | NKind::Ur);
        for a in 0..n {
            if matches!(kind[a], NKind::W | NKind::Uw) {
                assert!(value[a] != 0, "explicit write of 0");
                for b in 0..a {
                    if matches!(kind[b], NKind::W | NKind::Uw) && var[a] == var[b] {
                        assert!(value[a] != value[b], "value written twice to one var");
                    }
                }
            }
        }
        let find_write =
            |x: usize, v: u64| (0..n).find(|&w| is_write(w) && var[w] == Some(x) && value[w] == v);
        let mut rf = vec![None; n];
        for r in 0..n {
            if is_read(r) {
                rf[r] = Some(find_write(var[r].unwrap(), value[r])?);
            }
        }
        let mut partner = vec![None; n];
        for a in 0..n {
            if kind[a] == NKind::Ur {
                partner[a] = Some(a + 1);
            }
        }
        // Finals: a final on a variable without ops needs value 0; on one with ops a write of
        // that value (init for 0) must exist.
        let mut groups = Vec::new();
        for &(x, v) in &h.finals {
            if !vars.contains(&x) && v != 0 {
                return None;
            }
            if vars.contains(&x) && find_write(x, v).is_none() {
                return None;
            }
        }
        for &x in &vars {
            let init = (0..n)
                .find(|&a| kind[a] == NKind::Init && var[a] == Some(x))
                .unwrap();
            let ws = (0..n)
                .filter(|&a| matches!(kind[a], NKind::W | NKind::Uw) && var[a] == Some(x))
                .collect();
            let fin = h.finals.iter().filter(|f| f.0 == x).map(|f| f.1).collect();
            groups.push((init, ws, fin));
        }

        let mut po = vec![0u64; n];
        let mut po_loc = vec![0u64; n];
        let mut wr = vec![0u64; n];
        for a in 0..n {
            for b in 0..n {
                let p = match (thread[a], thread[b]) {
                    (None, Some(_)) => true,
                    (Some(t1), Some(t2)) => t1 == t2 && a < b,
                    _ => false,
                };
                if p {
                    po[a] |= 1 << b;
                    if var[a].is_some() && var[a] == var[b] {
                        po_loc[a] |= 1 << b;
                    }
                }
            }
            if let Some(w) = rf[a] {
                wr[w] |= 1 << a;
            }
        }
        let mut wre = wr.clone();
        let mut ppo_tso = vec![0u64; n];
        let mut ppo_pso = vec![0u64; n];
        for a in 0..n {
            wre[a] &= !po[a];
            for b in 0..n {
                if has(&po, b, a) {
                    wre[a] &= !(1 << b);
                }
                if !has(&po, a, b) {
                    continue;
                }
                let plain_w = matches!(kind[a], NKind::W | NKind::Init);
                let w_r = plain_w && kind[b] == NKind::R;
                let w_w_other = plain_w
                    && matches!(kind[b], NKind::W | NKind::Ur | NKind::Uw)
                    && var[b] != var[a];
                if !w_r {
                    ppo_tso[a] |= 1 << b;
                }
                if !w_r && !w_w_other {
                    ppo_pso[a] |= 1 << b;
                }
            }
        }
        let ppo_tso = tclose(&ppo_tso);
        let ppo_pso = tclose(&ppo_pso);
        Some(XGraph {
            n,
            kind,
            var,
            value,
            rf,
            partner,
            groups,
            po,
            po_loc,
            wr,
            wre,
            ppo_tso,
            ppo_pso,
        })
    }

    /// ∃ ww such that atomicity and finals hold and every `bases[i] ∪ ww ∪ rw` is acyclic.
    fn exists_store_order(&self, bases: &[Bits]) -> bool {
        if !bases.iter().all(bits_acyclic) {
            return false;
        }
        let mut graphs = bases.to_vec();
        self.search(0, &mut Vec::new(), &mut graphs)
    }

    fn search(&self, gi: usize, placed: &mut Vec<usize>, graphs: &mut Vec<Bits>) -> bool {
        if gi == self.groups.len() {
            return true;
        }
        let (init, ws, fin) = &self.groups[gi];
        let prev = *placed.last().unwrap_or(init);
        if placed.len() == ws.len() {
            // Finals: the ww-last write of the variable carries every final value.
            if fin.iter().any(|&v| self.value[prev] != v) {
                return false;
            }
            return self.search(gi + 1, &mut Vec::new(), graphs);
        }
        // An RMW reading from `prev` must write immediately after it.
        let forced: Vec<usize> = (0..self.n)
            .filter(|&r| self.kind[r] == NKind::Ur && self.rf[r] == Some(prev))
            .map(|r| self.partner[r].unwrap())
            .collect();
        if forced.len() > 1 {
            return false;
        }
        for &w in ws {
            if placed.contains(&w) {
                continue;
            }
            if forced.first().is_some_and(|&f| f != w) {
                continue;
            }
            // Atomicity: an RMW's write half immediately follows the write its read half reads.
            if self.kind[w] == NKind::Uw && self.rf[w - 1] != Some(prev) {
                continue;
            }
            // A write of a final value must be last.
            if fin.contains(&self.value[w]) && placed.len() + 1 != ws.len() {
                continue;
            }
            let mut next = graphs.clone();
            for g in next.iter_mut() {
                for &p in std::iter::once(init).chain(placed.iter()) {
                    g[p] |= 1 << w; // ww
                    for r in 0..self.n {
                        if self.rf[r] == Some(p) {
                            g[r] |= 1 << w; // rw = wr⁻¹ ; ww
                        }
                    }
                }
            }
            if !next.iter().all(bits_acyclic) {
                continue;
            }
            placed.push(w);
            if self.search(gi, placed, &mut next) {
                return true;
            }
            placed.pop();
        }
        false
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::super::{random_history, verdicts, Kind};
    use super::*;
    use std::collections::BTreeSet;

    const X: usize = 0;
    const Y: usize = 1;

    fn xh(threads: Vec<Vec<XOp>>, finals: Vec<(usize, u64)>) -> XHistory {
        XHistory { threads, finals }
    }

    fn both(h: &XHistory) -> XVerdicts {
        let o = x_operational(h);
        let a = x_axiomatic(h);
        assert_eq!(o, a, "operational vs axiomatic on\n{}", x_to_hist(h));
        o
    }

    fn expect(name: &str, h: XHistory, sc: bool, tso: bool, pso: bool) {
        let v = both(&h);
        assert_eq!(v, XVerdicts { sc, tso, pso }, "{name}:\n{}", x_to_hist(&h));
    }

    #[test]
    fn brute_x_litmus() {
        use XOp::*;
        // SB
        expect(
            "SB",
            xh(vec![vec![W(X, 1), R(Y, 0)], vec![W(Y, 1), R(X, 0)]], vec![]),
            false,
            true,
            true,
        );
        // SB+syncs
        expect(
            "SB+syncs",
            xh(
                vec![vec![W(X, 1), F, R(Y, 0)], vec![W(Y, 1), F, R(X, 0)]],
                vec![],
            ),
            false,
            false,
            false,
        );
        // SB+RMWs
        expect(
            "SB+RMWs",
            xh(
                vec![vec![U(Y, 0, 1), R(X, 0)], vec![U(X, 0, 1), R(Y, 0)]],
                vec![],
            ),
            false,
            false,
            false,
        );
        // SB with a fence on one side only: still TSO.
        expect(
            "SB+sync+po",
            xh(
                vec![vec![W(X, 1), F, R(Y, 0)], vec![W(Y, 1), R(X, 0)]],
                vec![],
            ),
            false,
            true,
            true,
        );
        // SB where a write precedes an RMW to another var: the RMW flushes in TSO, not PSO;
        // but the RMW itself is not relaxed w.r.t. the later read, and W→R is relaxed anyway.
        expect(
            "SB+W-RMW",
            xh(
                vec![
                    vec![W(X, 1), U(Y, 0, 1), R(Y, 2)],
                    vec![U(Y, 1, 2), R(X, 0)],
                ],
                vec![],
            ),
            false,
            false,
            true,
        );
        // MP
        expect(
            "MP",
            xh(vec![vec![W(X, 1), W(Y, 1)], vec![R(Y, 1), R(X, 0)]], vec![]),
            false,
            false,
            true,
        );
        // MP+sync
        expect(
            "MP+sync",
            xh(
                vec![vec![W(X, 1), F, W(Y, 1)], vec![R(Y, 1), R(X, 0)]],
                vec![],
            ),
            false,
            false,
            false,
        );
        // MP+RMW
        expect(
            "MP+RMW",
            xh(
                vec![vec![W(X, 1), U(Y, 0, 1)], vec![R(Y, 1), R(X, 0)]],
                vec![],
            ),
            false,
            false,
            true,
        );
        // MP with the first write an RMW: RMW → W stays ordered everywhere.
        expect(
            "MP+RMW-first",
            xh(
                vec![vec![U(X, 0, 1), W(Y, 1)], vec![R(Y, 1), R(X, 0)]],
                vec![],
            ),
            false,
            false,
            false,
        );
        // Lost update.
        expect(
            "lost update",
            xh(vec![vec![U(X, 0, 1)], vec![U(X, 0, 2)]], vec![]),
            false,
            false,
            false,
        );
        // Two RMWs chained: fine.
        expect(
            "RMW chain",
            xh(vec![vec![U(X, 0, 1)], vec![U(X, 1, 2)]], vec![(X, 2)]),
            true,
            true,
            true,
        );
        // An RMW reading its own write: impossible.
        expect(
            "RMW self",
            xh(vec![vec![U(X, 1, 1)]], vec![]),
            false,
            false,
            false,
        );
        // Finals.
        expect(
            "final x=1",
            xh(vec![vec![W(X, 1), W(X, 2)]], vec![(X, 1)]),
            false,
            false,
            false,
        );
        expect(
            "final x=2",
            xh(vec![vec![W(X, 1), W(X, 2)]], vec![(X, 2)]),
            true,
            true,
            true,
        );
        expect(
            "final x=0 with a write",
            xh(vec![vec![W(X, 1)]], vec![(X, 0)]),
            false,
            false,
            false,
        );
        expect(
            "final on an untouched var",
            xh(vec![vec![W(X, 1)]], vec![(Y, 0)]),
            true,
            true,
            true,
        );
        expect(
            "final unwritten",
            xh(vec![vec![W(X, 1)]], vec![(Y, 3)]),
            false,
            false,
            false,
        );
        // axe manual, Example 4: 0: x:=1 y:=1 | 1: y:=2 x==0 | final y == 2.
        expect(
            "axe example 4",
            xh(
                vec![vec![W(X, 1), W(Y, 1)], vec![W(Y, 2), R(X, 0)]],
                vec![(Y, 2)],
            ),
            false,
            true,
            true,
        );
        // 2+2W-like via finals: t0 x:=1 y:=2, t1 y:=1 x:=2, finals x=1 y=1: needs W→W reorder.
        expect(
            "2+2W",
            xh(
                vec![vec![W(X, 1), W(Y, 2)], vec![W(Y, 1), W(X, 2)]],
                vec![(X, 1), (Y, 1)],
            ),
            false,
            false,
            true,
        );
        // Two conflicting finals on one var.
        expect(
            "conflicting finals",
            xh(vec![vec![W(X, 1)], vec![W(X, 2)]], vec![(X, 1), (X, 2)]),
            false,
            false,
            false,
        );
        // Store forwarding (n6-like): TSO yes, SC no.
        expect(
            "forwarding",
            xh(
                vec![
                    vec![W(X, 1), R(X, 1), R(Y, 0)],
                    vec![W(Y, 1), R(Y, 1), R(X, 0)],
                ],
                vec![],
            ),
            false,
            true,
            true,
        );
        // IRIW: multi-copy atomic, forbidden in all three.
        expect(
            "IRIW",
            xh(
                vec![
                    vec![W(X, 1)],
                    vec![W(Y, 1)],
                    vec![R(X, 1), R(Y, 0)],
                    vec![R(Y, 1), R(X, 0)],
                ],
                vec![],
            ),
            false,
            false,
            false,
        );
        // Empty history.
        expect("empty", xh(vec![], vec![]), true, true, true);
    }

    #[test]
    fn brute_x_operational_matches_axiomatic() {
        let t0 = std::time::Instant::now();
        let n = 3000u64;
        let (mut sc, mut tso, mut pso) = (0, 0, 0);
        let (mut with_f, mut with_u, mut with_final) = (0, 0, 0);
        for seed in 0..n {
            let h = x_random_history(seed, 10);
            let v = both(&h);
            assert!(!v.sc || v.tso, "sc => tso on\n{}", x_to_hist(&h));
            assert!(!v.tso || v.pso, "tso => pso on\n{}", x_to_hist(&h));
            sc += v.sc as usize;
            tso += v.tso as usize;
            pso += v.pso as usize;
            let ops = || h.threads.iter().flatten();
            with_f += ops().any(|o| *o == XOp::F) as usize;
            with_u += ops().any(|o| matches!(o, XOp::U(..))) as usize;
            with_final += !h.finals.is_empty() as usize;
        }
        eprintln!(
            "brute: {n} random extended histories in {:?}: consistent sc {sc}, tso {tso}, pso {pso}; \
             with F {with_f}, with U {with_u}, with finals {with_final}",
            t0.elapsed()
        );
        assert!(0 < sc && sc < tso && tso < pso && pso < n as usize);
    }

    /// Machines that generate histories: the three models, and `Weak`, PSO without fences
    /// and with RMWs as a plain read followed by a plain (buffered) write, whose outcomes
    /// beyond PSO's are histories that only the fences or the RMWs make inconsistent.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum GenM {
        Sc,
        Tso,
        Pso,
        Weak,
    }

    /// Every distinct outcome of the skeleton `h` (values of reads / RMW olds ignored) on the
    /// machine `m`, as (value seen by each op, indexed by global op number, 0 for ops that
    /// read nothing; final memory). Exhaustive, memoised; a state is packed into a u128 (4
    /// bits per pc, memory cell and value seen; one bit per op "buffered", a buffer being the
    /// thread's buffered writes in program order): ≤ 3 threads, ≤ 3 vars, ≤ 10 ops.
    fn outcomes(h: &XHistory, m: GenM, nvars: usize) -> BTreeSet<(Vec<u64>, Vec<u64>)> {
        let nt = h.threads.len();
        let ops: Vec<(usize, XOp)> = h
            .threads
            .iter()
            .enumerate()
            .flat_map(|(t, th)| th.iter().map(move |&o| (t, o)))
            .collect();
        let n = ops.len();
        assert!(nt <= 3 && nvars <= 3 && n <= 10);
        let mut offs = vec![0; nt + 1];
        for t in 0..nt {
            offs[t + 1] = offs[t] + h.threads[t].len();
        }
        const PC: usize = 0;
        const MEM: usize = 12;
        const REC: usize = 24;
        const BUF: usize = 64;
        let get = |s: u128, at: usize| ((s >> at) & 15) as u64;
        let set = |s: u128, at: usize, v: u64| {
            assert!(v < 16);
            (s & !(15u128 << at)) | ((v as u128) << at)
        };
        let buffered = |s: u128, i: usize| (s >> (BUF + i)) & 1 == 1;
        // (var, value) of the buffer entry made by op i
        let entry = |i: usize| match ops[i].1 {
            XOp::W(x, v) | XOp::U(x, _, v) => (x, v),
            _ => unreachable!(),
        };
        let mut seen: HashSet<u128> = HashSet::new();
        let mut outs = BTreeSet::new();
        let mut stack = vec![0u128];
        while let Some(s) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            let pc = |t: usize| get(s, PC + 4 * t) as usize;
            let buf = |t: usize| (offs[t]..offs[t + 1]).filter(move |&i| buffered(s, i));
            if (0..nt).all(|t| pc(t) == h.threads[t].len()) && s >> BUF == 0 {
                let seen_v = (0..n).map(|i| get(s, REC + 4 * i)).collect();
                let mem = (0..nvars).map(|x| get(s, MEM + 4 * x)).collect();
                outs.insert((seen_v, mem));
                continue;
            }
            for t in 0..nt {
                if pc(t) < h.threads[t].len() {
                    let i = offs[t] + pc(t);
                    let ns = set(s, PC + 4 * t, pc(t) as u64 + 1);
                    let visible = |x: usize| {
                        buf(t)
                            .rev()
                            .find(|&j| entry(j).0 == x)
                            .map_or(get(s, MEM + 4 * x), |j| entry(j).1)
                    };
                    let next = match ops[i].1 {
                        XOp::W(x, v) if m == GenM::Sc => Some(set(ns, MEM + 4 * x, v)),
                        XOp::W(..) => Some(ns | 1 << (BUF + i)),
                        XOp::R(x, _) => Some(set(ns, REC + 4 * i, visible(x))),
                        XOp::U(x, _, _) if m == GenM::Weak => {
                            Some(set(ns, REC + 4 * i, visible(x)) | 1 << (BUF + i))
                        }
                        XOp::U(x, _, new) => {
                            let ok = match m {
                                GenM::Tso => buf(t).next().is_none(),
                                GenM::Pso => buf(t).all(|j| entry(j).0 != x),
                                _ => true,
                            };
                            let ns = set(ns, REC + 4 * i, get(s, MEM + 4 * x));
                            ok.then(|| set(ns, MEM + 4 * x, new))
                        }
                        XOp::F => (m == GenM::Weak || buf(t).next().is_none()).then_some(ns),
                    };
                    stack.extend(next);
                }
                for (k, j) in buf(t).enumerate() {
                    let ok = match m {
                        GenM::Sc => false,
                        GenM::Tso => k == 0,
                        GenM::Pso | GenM::Weak => buf(t)
                            .take_while(|&e| e < j)
                            .all(|e| entry(e).0 != entry(j).0),
                    };
                    if ok {
                        let (x, v) = entry(j);
                        stack.push(set(s & !(1 << (BUF + j)), MEM + 4 * x, v));
                    }
                }
            }
        }
        outs
    }

    /// Whether some thread has a plain W followed by an op that `m` lets overtake it: a read
    /// (TSO, PSO) or a write / RMW to another var (PSO), with no F (and, for TSO, no U) between.
    /// (Always true for `Weak`.)
    fn has_relaxable_pair(h: &XHistory, m: GenM) -> bool {
        m == GenM::Weak
            || h.threads.iter().any(|th| {
                (0..th.len()).any(|i| {
                    let XOp::W(x, _) = th[i] else { return false };
                    for &op in &th[i + 1..] {
                        match (m, op) {
                            (GenM::Sc, _) | (_, XOp::F) | (GenM::Tso, XOp::U(..)) => return false,
                            (_, XOp::R(..)) => return true,
                            (GenM::Pso, XOp::W(y, _) | XOp::U(y, _, _)) if y != x => return true,
                            _ => {}
                        }
                    }
                    false
                })
            })
    }

    /// A history near the model boundaries: a random skeleton with more conflicts than
    /// `x_random_history`'s (2..=3 threads, 2..=3 vars, max_ops/2..=max_ops ops, values to be
    /// filled in), and vars to observe by finals (~40%); filled in with one outcome of the
    /// machine `hi` — with probability 3/4 one that the stronger machine `lo` cannot produce
    /// (skeletons are redrawn, up to 6 times, until there is one); then, with probability
    /// ~0.3, one read / RMW old / final replaced by another value of its var (0 or written).
    fn boundary_history(seed: u64, max_ops: usize, hi: GenM, lo: GenM) -> XHistory {
        let mut rng = SplitMix64::new(seed ^ 0x00C0_FFEE);
        let want_diff = rng.below(4) < 3;
        for attempt in 1.. {
            let nt = 2 + rng.below(2) as usize;
            let nvars = 2 + rng.below(2) as usize;
            let mut threads = vec![Vec::new(); nt];
            let mut count = vec![0u64; nvars];
            for _ in 0..max_ops / 2 + rng.below(max_ops as u64 / 2 + 1) as usize {
                let x = rng.below(nvars as u64) as usize;
                let roll = rng.below(100);
                let op = if roll < 10 {
                    XOp::F
                } else if roll < 25 {
                    count[x] += 1;
                    XOp::U(x, 0, count[x])
                } else if roll < 60 {
                    count[x] += 1;
                    XOp::W(x, count[x])
                } else {
                    XOp::R(x, 0)
                };
                threads[rng.below(nt as u64) as usize].push(op);
            }
            let mut h = XHistory {
                threads,
                finals: Vec::new(),
            };
            let mut fin_vars = Vec::new();
            if rng.below(10) < 4 {
                for _ in 0..1 + rng.below(2) {
                    fin_vars.push(rng.below(nvars as u64) as usize);
                }
            }
            // (Cheap filter: without a write that `hi` may delay past a later op, `hi` and `lo`
            // have the same outcomes; redraw without enumerating them.)
            if want_diff && attempt < 6 && !has_relaxable_pair(&h, hi) {
                continue;
            }
            // Outcomes as the history shows them: values seen, final memory of fin_vars.
            let project = |outs: BTreeSet<(Vec<u64>, Vec<u64>)>| -> BTreeSet<(Vec<u64>, Vec<u64>)> {
                outs.into_iter()
                    .map(|(seen, mem)| (seen, fin_vars.iter().map(|&x| mem[x]).collect()))
                    .collect()
            };
            let outs_hi = project(outcomes(&h, hi, nvars));
            let outs_lo = project(outcomes(&h, lo, nvars));
            let diff: Vec<_> = outs_hi.difference(&outs_lo).collect();
            if want_diff && diff.is_empty() && attempt < 6 {
                continue;
            }
            let all: Vec<_> = outs_hi.iter().collect();
            let pool = if want_diff && !diff.is_empty() {
                &diff
            } else {
                &all
            };
            let (seen, fin) = pool[rng.below(pool.len() as u64) as usize];
            let mut k = 0;
            for th in h.threads.iter_mut() {
                for op in th.iter_mut() {
                    if let XOp::R(_, v) | XOp::U(_, v, _) = op {
                        *v = seen[k];
                    }
                    k += 1;
                }
            }
            h.finals = fin_vars.iter().copied().zip(fin.iter().copied()).collect();
            if rng.below(10) < 3 {
                let mut slots: Vec<(usize, &mut u64)> = Vec::new();
                for op in h.threads.iter_mut().flatten() {
                    if let XOp::R(x, v) | XOp::U(x, v, _) = op {
                        slots.push((*x, v));
                    }
                }
                slots.extend(h.finals.iter_mut().map(|f| (f.0, &mut f.1)));
                if !slots.is_empty() {
                    let k = rng.below(slots.len() as u64) as usize;
                    let x = slots[k].0;
                    *slots[k].1 = rng.below(count[x] + 1); // 0 or a value written to x
                }
            }
            return h;
        }
        unreachable!()
    }

    #[test]
    fn brute_x_operational_matches_axiomatic_near_boundaries() {
        let t0 = std::time::Instant::now();
        let n = 2000u64;
        let (mut sc, mut tso, mut pso) = (0, 0, 0);
        for seed in 0..n {
            let (hi, lo) = [
                (GenM::Tso, GenM::Sc),
                (GenM::Pso, GenM::Tso),
                (GenM::Pso, GenM::Sc),
                (GenM::Weak, GenM::Pso),
                (GenM::Weak, GenM::Tso),
            ][seed as usize % 5];
            let h = boundary_history(seed, 10, hi, lo);
            let v = both(&h);
            assert!(!v.sc || v.tso, "sc => tso on\n{}", x_to_hist(&h));
            assert!(!v.tso || v.pso, "tso => pso on\n{}", x_to_hist(&h));
            sc += v.sc as usize;
            tso += v.tso as usize;
            pso += v.pso as usize;
        }
        eprintln!(
            "brute: {n} histories near the model boundaries in {:?}: consistent sc {sc}, tso {tso}, pso {pso}",
            t0.elapsed()
        );
        assert!(0 < sc && sc < tso && tso < pso && pso < n as usize);
    }

    #[test]
    fn brute_x_agrees_with_plain_verdicts() {
        for seed in 0..1500u64 {
            let b = random_history(seed, 10);
            let h = XHistory {
                threads: b
                    .threads
                    .iter()
                    .map(|t| {
                        t.iter()
                            .map(|&(k, x, v)| match k {
                                Kind::R => XOp::R(x, v),
                                Kind::W => XOp::W(x, v),
                            })
                            .collect()
                    })
                    .collect(),
                finals: vec![],
            };
            let v = verdicts(&b);
            let want = XVerdicts {
                sc: v.sc,
                tso: v.tso,
                pso: v.pso,
            };
            assert_eq!(x_operational(&h), want, "operational on {:?}", b.threads);
            assert_eq!(x_axiomatic(&h), want, "axiomatic on {:?}", b.threads);
        }
    }

    #[test]
    fn brute_x_random_is_deterministic_and_well_formed() {
        let (mut ops, mut fences, mut rmws, mut thin, mut reads, mut fin) = (0, 0, 0, 0, 0, 0);
        for seed in 0..2000u64 {
            let a = x_random_history(seed, 10);
            let b = x_random_history(seed, 10);
            assert_eq!(a.threads, b.threads);
            assert_eq!(a.finals, b.finals);
            let total: usize = a.threads.iter().map(|t| t.len()).sum();
            assert!((1..=10).contains(&total));
            assert!(a.threads.len() <= 4 && a.threads.iter().all(|t| !t.is_empty()));
            let mut written = std::collections::BTreeSet::new();
            for op in a.threads.iter().flatten() {
                ops += 1;
                match *op {
                    XOp::W(x, v) | XOp::U(x, _, v) => {
                        assert!(x < 3 && v != 0 && written.insert((x, v)));
                    }
                    XOp::R(x, _) => assert!(x < 3),
                    XOp::F => fences += 1,
                }
                rmws += matches!(op, XOp::U(..)) as usize;
            }
            let used = |x: usize| a.threads.iter().flatten().any(|o| o.var() == Some(x));
            for op in a.threads.iter().flatten() {
                if let XOp::R(x, v) | XOp::U(x, v, _) = *op {
                    reads += 1;
                    thin += (v != 0 && !written.contains(&(x, v))) as usize;
                }
            }
            assert!(a.finals.len() <= 2);
            fin += !a.finals.is_empty() as usize;
            for &(x, v) in &a.finals {
                assert!(used(x) && (v == 0 || written.contains(&(x, v))));
            }
        }
        let pct = |k: usize, of: usize| k * 100 / of;
        assert!(
            (7..=13).contains(&pct(fences, ops)),
            "fences {fences}/{ops}"
        );
        assert!((12..=18).contains(&pct(rmws, ops)), "rmws {rmws}/{ops}");
        assert!(thin > 0 && thin * 100 < reads * 5, "thin {thin}/{reads}");
        assert!((25..=35).contains(&pct(fin, 2000)), "finals {fin}/2000");
        assert!(x_random_history(1, 0).threads.is_empty());
    }

    #[test]
    fn brute_x_to_hist() {
        use XOp::*;
        let h = xh(vec![vec![W(0, 1), F, U(1, 0, 3)]], vec![(0, 2)]);
        assert_eq!(x_to_hist(&h), "@final v0=2\nt0: W(v0,1) F U(v1,0,3)\n");
        let h = xh(
            vec![vec![R(2, 0)], vec![], vec![W(2, 5)]],
            vec![(2, 5), (0, 0)],
        );
        assert_eq!(
            x_to_hist(&h),
            "@final v2=5 v0=0\nt0: R(v2,0)\nt2: W(v2,5)\n"
        );
    }
}
