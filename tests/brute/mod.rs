//! Brute-force test oracle for memory-model verdicts.
//!
//! An independent, deliberately naive transcription of the definitions in
//! `tests/data/histories/NOTES.md` ("The definitions, literally"). Relations are
//! boolean adjacency matrices over all operations *including* one explicit init
//! write per used variable; transitive closures are Floyd–Warshall; fixpoints loop
//! until nothing changes; SC/TSO/PSO enumerate every store order (permutations of
//! each variable's non-init writes, init first). Clarity over speed: meant for
//! histories of about ten operations.
//!
//! Shares nothing with the crate under test; only `std` is used.

#![allow(dead_code, clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};

// Extended format (fences, RMWs, finals): SC/TSO/PSO by operational machines and by
// store-order enumeration; see ops.rs.
mod ops;
#[allow(unused_imports)]
pub use ops::*;

// Annotated histories (acquire, release, fence kinds): RMO and ARMv8 by
// store-order enumeration; see weak.rs.
mod weak;
#[allow(unused_imports)]
pub use weak::*;

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    R,
    W,
}

/// threads[t] = ops in program order: (kind, var index, value). Values: 0 = initial value.
#[derive(Clone, Debug)]
pub struct BHistory {
    pub threads: Vec<Vec<(Kind, usize, u64)>>,
}

/// Operation identity: Init(var) or Op(thread, index in thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BId {
    Init(usize),
    Op(usize, usize),
}

#[derive(Clone, Debug, Default)]
pub struct BVerdicts {
    pub cc: bool,
    pub ccv: bool,
    pub cm: bool,
    pub ccm: bool,
    pub wccm: bool,
    pub wsc: bool,
    pub sc: bool,
    pub tso: bool,
    pub pso: bool,
    /// the partial store orders as sets of pairs of DISTINCT same-variable writes, both non-init
    /// (init pairs left out); Some only where the model holds (None otherwise)
    pub pww: Option<BTreeSet<(BId, BId)>>,
    pub wpww: Option<BTreeSet<(BId, BId)>>,
    pub st: Option<BTreeSet<(BId, BId)>>,
}

/// All verdicts of `h`, by brute force.
///
/// Panics on inputs the format rejects (an explicit write of 0, a value written
/// twice to one variable): the oracle has no defined answer for them.
pub fn verdicts(h: &BHistory) -> BVerdicts {
    let g = match Graph::new(h) {
        Some(g) => g,
        // Thin-air read: every model false, no partial store orders.
        None => return BVerdicts::default(),
    };

    let cc = g.cc();
    let ccv = cc && g.ccv_extra();
    let cm = cc && g.cm_extra();

    let (ccm, pww) = g.ccm();
    let (wccm, wpww) = g.wccm();
    let (wsc, st) = g.wsc();

    let sc = g.exists_store_order(&[g.union(&g.po, &g.wr)]);
    let tso = g.exists_store_order(&[g.union(&g.po_loc, &g.wr), g.union(&g.ppo, &g.wre)]);
    let pso = g.exists_store_order(&[g.union(&g.po_loc, &g.wr), g.union(&g.po_pso, &g.wre)]);

    BVerdicts {
        cc,
        ccv,
        cm,
        ccm,
        wccm,
        wsc,
        sc,
        tso,
        pso,
        pww: if ccm {
            Some(g.export_pairs(&pww))
        } else {
            None
        },
        wpww: if wccm {
            Some(g.export_pairs(&wpww))
        } else {
            None
        },
        st: if wsc { Some(g.export_pairs(&st)) } else { None },
    }
}

/// Deterministic random small history: up to `max_ops` ops over 1..=4 threads, 1..=3 vars,
/// unique non-zero written values per var, reads returning 0 or some written value of that
/// var (rarely, ~2%, a never-written value), seeded by `seed`.
pub fn random_history(seed: u64, max_ops: usize) -> BHistory {
    let mut rng = SplitMix64::new(seed);
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

    // Skeleton: (thread, kind, var); write values assigned per var as 1, 2, 3, ...
    let mut threads: Vec<Vec<(Kind, usize, u64)>> = vec![Vec::new(); n_threads];
    let mut writes_per_var: Vec<u64> = vec![0; n_vars];
    for _ in 0..n_ops {
        let t = rng.below(n_threads as u64) as usize;
        let var = rng.below(n_vars as u64) as usize;
        if rng.below(2) == 0 {
            writes_per_var[var] += 1;
            threads[t].push((Kind::W, var, writes_per_var[var]));
        } else {
            threads[t].push((Kind::R, var, u64::MAX)); // value filled in below
        }
    }
    // Reads: 0 or any value written to the var (anywhere in the history); ~2% thin air.
    for th in threads.iter_mut() {
        for op in th.iter_mut() {
            if op.0 == Kind::R {
                let k = writes_per_var[op.1];
                op.2 = if rng.below(50) == 0 {
                    k + 1 + rng.below(3) // never written: written values are 1..=k
                } else {
                    rng.below(k + 1) // 0 ..= k
                };
            }
        }
    }
    threads.retain(|t| !t.is_empty());
    BHistory { threads }
}

/// Parses the R/W subset of the `.hist` format (no timing, no RMW/fence) into
/// (name, expect map, history). Var names are mapped to indices in order of
/// appearance within each history. Panics on anything it does not understand.
pub fn parse_fixtures(text: &str) -> Vec<(String, BTreeMap<String, bool>, BHistory)> {
    let mut out = Vec::new();
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for raw in text.lines() {
        let line = match raw.find('#') {
            Some(i) => &raw[..i],
            None => raw,
        }
        .trim();
        if line.is_empty() {
            continue;
        }
        if line == "---" {
            blocks.push(Vec::new());
        } else {
            blocks.last_mut().unwrap().push(line);
        }
    }
    for (bi, block) in blocks.iter().enumerate() {
        if block.is_empty() {
            continue;
        }
        let mut name = format!("history{}", bi);
        let mut expect = BTreeMap::new();
        let mut vars: Vec<String> = Vec::new();
        let mut threads = Vec::new();
        for line in block {
            if let Some(rest) = line.strip_prefix('@') {
                let mut parts = rest.splitn(2, char::is_whitespace);
                let key = parts.next().unwrap_or("");
                let val = parts.next().unwrap_or("").trim();
                match key {
                    "name" => name = val.to_string(),
                    "expect" => {
                        for kv in val.split_whitespace() {
                            let (k, v) = kv.split_once('=').expect("expect entry without '='");
                            let b = match v {
                                "yes" => true,
                                "no" => false,
                                _ => panic!("bad @expect value {:?}", kv),
                            };
                            expect.insert(k.to_lowercase(), b);
                        }
                    }
                    _ => {} // other metadata ignored
                }
                continue;
            }
            let (_tname, ops) = line.split_once(':').expect("thread line without ':'");
            let mut thread = Vec::new();
            for tok in ops.split_whitespace() {
                thread.push(parse_op(tok, &mut vars));
            }
            threads.push(thread);
        }
        out.push((name, expect, BHistory { threads }));
    }
    out
}

fn parse_op(tok: &str, vars: &mut Vec<String>) -> (Kind, usize, u64) {
    assert!(
        !tok.contains('@'),
        "timing not supported by the oracle parser: {tok}"
    );
    let kind = match tok.chars().next() {
        Some('W') => Kind::W,
        Some('R') => Kind::R,
        _ => panic!("unsupported op token {tok:?}"),
    };
    let inner = tok[1..]
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or_else(|| panic!("bad op token {tok:?}"));
    let (var, val) = inner
        .split_once(',')
        .unwrap_or_else(|| panic!("bad op token {tok:?}"));
    let (var, val) = (var.trim(), val.trim());
    let value = if let Some(hex) = val.strip_prefix("0x").or_else(|| val.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else {
        val.parse::<u64>()
    }
    .unwrap_or_else(|_| panic!("bad value in {tok:?}"));
    let idx = match vars.iter().position(|v| v == var) {
        Some(i) => i,
        None => {
            vars.push(var.to_string());
            vars.len() - 1
        }
    };
    (kind, idx, value)
}

// ---------------------------------------------------------------------------
// RNG (the project's SplitMix64, seeded apart from the checker's tests)
// ---------------------------------------------------------------------------

struct SplitMix64(memconform::gen::Rng);

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        SplitMix64(memconform::gen::Rng::new(seed ^ 0x5DEE_CE66_D1CE_4E5B))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---------------------------------------------------------------------------
// Naive relations
// ---------------------------------------------------------------------------

type Rel = Vec<Vec<bool>>;

/// The history as nodes 0..n: first one init write per used variable, then the
/// thread operations. All base relations precomputed as matrices.
struct Graph {
    n: usize,
    ids: Vec<BId>,
    is_write: Vec<bool>,
    is_init: Vec<bool>,
    var: Vec<usize>,
    /// rf[r] = the write r reads from (reads only).
    rf: Vec<Option<usize>>,
    po: Rel,
    wr: Rel,
    po_loc: Rel,
    ppo: Rel,
    po_pso: Rel,
    wre: Rel,
    po_star: Rel,
    ppo_star: Rel,
    po_loc_star: Rel,
}

impl Graph {
    /// None if the history has a thin-air read.
    fn new(h: &BHistory) -> Option<Graph> {
        let mut used_vars: BTreeSet<usize> = BTreeSet::new();
        for th in &h.threads {
            for &(_, v, _) in th {
                used_vars.insert(v);
            }
        }
        let mut ids = Vec::new();
        let mut is_write = Vec::new();
        let mut var = Vec::new();
        let mut value = Vec::new();
        for &v in &used_vars {
            ids.push(BId::Init(v));
            is_write.push(true);
            var.push(v);
            value.push(0u64);
        }
        for (t, th) in h.threads.iter().enumerate() {
            for (i, &(k, v, val)) in th.iter().enumerate() {
                ids.push(BId::Op(t, i));
                is_write.push(k == Kind::W);
                var.push(v);
                value.push(val);
            }
        }
        let n = ids.len();
        let is_init: Vec<bool> = ids.iter().map(|id| matches!(id, BId::Init(_))).collect();

        // Input validation (the format rejects these).
        for a in 0..n {
            if is_write[a] && !is_init[a] {
                assert!(value[a] != 0, "explicit write of 0 at {:?}", ids[a]);
                for b in 0..a {
                    if is_write[b] && !is_init[b] && var[a] == var[b] && value[a] == value[b] {
                        panic!("value {} written twice to var {}", value[a], var[a]);
                    }
                }
            }
        }

        // wr from values: the unique write of (var, value); value 0 = init(var).
        let mut rf = vec![None; n];
        for r in 0..n {
            if is_write[r] {
                continue;
            }
            let src = (0..n).find(|&w| is_write[w] && var[w] == var[r] && value[w] == value[r]);
            match src {
                Some(w) => rf[r] = Some(w),
                None => return None, // thin-air read
            }
        }

        let mut po = empty(n);
        for a in 0..n {
            for b in 0..n {
                let pair = match (ids[a], ids[b]) {
                    (BId::Init(_), BId::Op(..)) => true,
                    (BId::Op(t1, i1), BId::Op(t2, i2)) => t1 == t2 && i1 < i2,
                    _ => false,
                };
                po[a][b] = pair;
            }
        }
        let mut wr = empty(n);
        for r in 0..n {
            if let Some(w) = rf[r] {
                wr[w][r] = true;
            }
        }
        let mut po_loc = empty(n);
        let mut ppo = empty(n);
        let mut po_pso = empty(n);
        let mut wre = empty(n);
        for a in 0..n {
            for b in 0..n {
                if po[a][b] {
                    po_loc[a][b] = var[a] == var[b];
                    let w_r = is_write[a] && !is_write[b];
                    let w_w = is_write[a] && is_write[b];
                    ppo[a][b] = !w_r;
                    po_pso[a][b] = !w_r && !w_w;
                }
                wre[a][b] = wr[a][b] && !po[a][b] && !po[b][a];
            }
        }
        let po_star = refl(&closure(&po));
        let ppo_star = refl(&closure(&ppo));
        let po_loc_star = refl(&closure(&po_loc));
        Some(Graph {
            n,
            ids,
            is_write,
            is_init,
            var,
            rf,
            po,
            wr,
            po_loc,
            ppo,
            po_pso,
            wre,
            po_star,
            ppo_star,
            po_loc_star,
        })
    }

    fn is_read(&self, a: usize) -> bool {
        !self.is_write[a]
    }

    fn union(&self, a: &Rel, b: &Rel) -> Rel {
        union(a, b)
    }

    /// R_WW: pairs of distinct writes on the same variable in R.
    fn ww_part(&self, r: &Rel) -> Rel {
        let mut out = empty(self.n);
        for a in 0..self.n {
            for b in 0..self.n {
                out[a][b] = r[a][b]
                    && a != b
                    && self.is_write[a]
                    && self.is_write[b]
                    && self.var[a] == self.var[b];
            }
        }
        out
    }

    /// cf[R] = R_WR ; wr⁻¹ = {(w, w') : (w, r) ∈ R, w write, r read, same var, wr(w', r), w ≠ w'}.
    fn cf(&self, r: &Rel) -> Rel {
        self.cf_via(r, &self.wr)
    }

    /// cfe[R] = R_WR ; wre⁻¹.
    fn cfe(&self, r: &Rel) -> Rel {
        self.cf_via(r, &self.wre)
    }

    fn cf_via(&self, rel: &Rel, wrel: &Rel) -> Rel {
        let mut out = empty(self.n);
        for w in 0..self.n {
            if !self.is_write[w] {
                continue;
            }
            for r in 0..self.n {
                if !(rel[w][r] && self.is_read(r) && self.var[w] == self.var[r]) {
                    continue;
                }
                for w2 in 0..self.n {
                    if wrel[w2][r] && w2 != w {
                        out[w][w2] = true;
                    }
                }
            }
        }
        out
    }

    /// rw[R] = wr⁻¹ ; R_WW = {(r, w') : wr(w, r), (w, w') ∈ R_WW}.
    fn rw(&self, r: &Rel) -> Rel {
        let rww = self.ww_part(r);
        let mut out = empty(self.n);
        for rd in 0..self.n {
            if let Some(w) = self.rf[rd] {
                for w2 in 0..self.n {
                    if rww[w][w2] {
                        out[rd][w2] = true;
                    }
                }
            }
        }
        out
    }

    fn co(&self) -> Rel {
        closure(&union(&self.po, &self.wr))
    }

    // ----------------------------------------------------------------- CC

    fn cc(&self) -> bool {
        let co = self.co();
        let n = self.n;
        // CyclicCO
        if (0..n).any(|a| co[a][a]) {
            return false;
        }
        // WriteCOInitRead: (w, r) ∈ co, r reads init(x), w a non-init write of x.
        for r in 0..n {
            if let Some(src) = self.rf[r] {
                if self.is_init[src] {
                    for w in 0..n {
                        if self.is_write[w]
                            && !self.is_init[w]
                            && self.var[w] == self.var[r]
                            && co[w][r]
                        {
                            return false;
                        }
                    }
                }
            }
        }
        // ThinAirRead: excluded in Graph::new.
        // WriteCORead: w1 wr r1, w2 ≠ w1 same var, (w1, w2) ∈ co, (w2, r1) ∈ co.
        for r1 in 0..n {
            if let Some(w1) = self.rf[r1] {
                for w2 in 0..n {
                    if w2 != w1
                        && self.is_write[w2]
                        && self.var[w2] == self.var[r1]
                        && co[w1][w2]
                        && co[w2][r1]
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// CCv beyond CC: cf[co] ∪ co acyclic.
    fn ccv_extra(&self) -> bool {
        let co = self.co();
        acyclic(&union(&self.cf(&co), &co))
    }

    // ----------------------------------------------------------------- hb_o

    /// The smallest transitive relation containing
    /// {(o1,o2) ∈ c | (o1,o) ∈ c, (o2,o) ∈ c*} and closed under
    /// (w,r) ∈ hb, wr(w',r), w' ≠ w, w a write of var(r), (r,o) ∈ pi_star ⇒ (w,w') ∈ hb.
    /// (Rule 2 always uses the full wr.)
    fn hb_o(&self, c: &Rel, pi_star: &Rel, o: usize) -> Rel {
        let n = self.n;
        let c_star = refl(c);
        let mut h = empty(n);
        for o1 in 0..n {
            for o2 in 0..n {
                h[o1][o2] = c[o1][o2] && c[o1][o] && c_star[o2][o];
            }
        }
        loop {
            let mut next = closure(&h);
            for w in 0..n {
                if !self.is_write[w] {
                    continue;
                }
                for r in 0..n {
                    if !(self.is_read(r)
                        && next[w][r]
                        && self.var[w] == self.var[r]
                        && pi_star[r][o])
                    {
                        continue;
                    }
                    let w2 = self.rf[r].unwrap();
                    if w2 != w {
                        next[w][w2] = true;
                    }
                }
            }
            let next = closure(&next);
            if next == h {
                return h;
            }
            h = next;
        }
    }

    /// CM beyond CC: for every o, hb_o acyclic and no WriteHBInitRead.
    fn cm_extra(&self) -> bool {
        let co = self.co();
        for o in 0..self.n {
            let h = self.hb_o(&co, &self.po_star, o);
            if !acyclic(&h) {
                return false;
            }
            for r in 0..self.n {
                let reads_init = matches!(self.rf[r], Some(s) if self.is_init[s]);
                if !(reads_init && self.po_star[r][o]) {
                    continue;
                }
                for w in 0..self.n {
                    if self.is_write[w] && !self.is_init[w] && self.var[w] == self.var[r] && h[w][r]
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// (⋃_o hb_o)⁺ for causality `c` and program-order part `pi_star`.
    fn hb_union(&self, c: &Rel, pi_star: &Rel) -> Rel {
        let mut u = empty(self.n);
        for o in 0..self.n {
            u = union(&u, &self.hb_o(c, pi_star, o));
        }
        closure(&u)
    }

    // ----------------------------------------------------------------- CCM

    /// (CCM verdict, pww) with pww = (hb_WW ∪ cf[hb])⁺, hb = (⋃_o hb_o)⁺.
    fn ccm(&self) -> (bool, Rel) {
        let hb = self.hb_union(&self.co(), &self.po_star);
        let pww = closure(&union(&self.ww_part(&hb), &self.cf(&hb)));
        let g = union(&union(&self.po, &self.wr), &union(&pww, &self.rw(&pww)));
        (acyclic(&g), pww)
    }

    // ----------------------------------------------------------------- wCCM

    fn wccm(&self) -> (bool, Rel) {
        let co_ppo = closure(&union(&self.ppo, &self.wre));
        let co_loc = closure(&union(&self.po_loc, &self.wre));
        let hb_ppo = self.hb_union(&co_ppo, &self.ppo_star);
        let hb_loc = self.hb_union(&co_loc, &self.po_loc_star);
        let whb = closure(&union(&hb_ppo, &hb_loc));
        let wpww = closure(&union(
            &self.ww_part(&whb),
            &union(&self.cfe(&hb_loc), &self.cfe(&hb_ppo)),
        ));
        let extra = union(&union(&self.wre, &wpww), &self.rw(&wpww));
        let ok = acyclic(&union(&self.ppo, &extra)) && acyclic(&union(&self.po_loc, &extra));
        (ok, wpww)
    }

    // ----------------------------------------------------------------- wSC

    /// Least fixpoint from st = ∅: hb = (po ∪ wr ∪ st ∪ rw[st])⁺,
    /// st = ((hb_WR ; wr⁻¹) ∪ hb_WW)⁺ (distinct writes). wSC iff hb acyclic.
    fn wsc(&self) -> (bool, Rel) {
        let mut st = empty(self.n);
        loop {
            let hb = closure(&union(
                &union(&self.po, &self.wr),
                &union(&st, &self.rw(&st)),
            ));
            let next = closure(&union(&self.cf(&hb), &self.ww_part(&hb)));
            if next == st {
                return (acyclic(&hb), st);
            }
            st = next;
        }
    }

    // ----------------------------------------------------------------- SC / TSO / PSO

    /// ∃ store order ww (per variable a strict total order on its writes, init first)
    /// such that every `bases[i] ∪ ww ∪ rw` is acyclic, rw = wr⁻¹ ; ww.
    ///
    /// Enumerates the permutations of each variable's non-init writes, one
    /// variable after another; a partial choice whose edges (a subset of the
    /// final edges of every completion) already close a cycle is abandoned.
    fn exists_store_order(&self, bases: &[Rel]) -> bool {
        if !bases.iter().all(acyclic) {
            return false;
        }
        let vars: BTreeSet<usize> = (0..self.n).map(|a| self.var[a]).collect();
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new(); // (init node, non-init writes)
        for v in vars {
            let init = (0..self.n)
                .find(|&a| self.is_init[a] && self.var[a] == v)
                .unwrap();
            let ws: Vec<usize> = (0..self.n)
                .filter(|&a| self.is_write[a] && !self.is_init[a] && self.var[a] == v)
                .collect();
            groups.push((init, ws));
        }
        let mut graphs: Vec<Rel> = bases.to_vec();
        self.search(&groups, 0, &mut vec![], &mut graphs)
    }

    fn search(
        &self,
        groups: &[(usize, Vec<usize>)],
        gi: usize,
        placed: &mut Vec<usize>, // non-init writes of groups[gi] placed so far, in order
        graphs: &mut Vec<Rel>,
    ) -> bool {
        if gi == groups.len() {
            return true;
        }
        let (init, ws) = &groups[gi];
        if placed.len() == ws.len() {
            return self.search(groups, gi + 1, &mut vec![], graphs);
        }
        for &w in ws {
            if placed.contains(&w) {
                continue;
            }
            // w goes after init and after every write already placed.
            let mut before = vec![*init];
            before.extend(placed.iter().copied());
            let mut next = graphs.clone();
            for g in next.iter_mut() {
                for &p in &before {
                    g[p][w] = true; // ww
                    for r in 0..self.n {
                        if self.rf[r] == Some(p) {
                            g[r][w] = true; // rw = wr⁻¹ ; ww
                        }
                    }
                }
            }
            if !next.iter().all(acyclic) {
                continue;
            }
            placed.push(w);
            if self.search(groups, gi, placed, &mut next) {
                return true;
            }
            placed.pop();
        }
        false
    }

    // ----------------------------------------------------------------- export

    fn export_pairs(&self, r: &Rel) -> BTreeSet<(BId, BId)> {
        let mut out = BTreeSet::new();
        for a in 0..self.n {
            for b in 0..self.n {
                if r[a][b]
                    && a != b
                    && !self.is_init[a]
                    && !self.is_init[b]
                    && self.is_write[a]
                    && self.is_write[b]
                    && self.var[a] == self.var[b]
                {
                    out.insert((self.ids[a], self.ids[b]));
                }
            }
        }
        out
    }
}

fn empty(n: usize) -> Rel {
    vec![vec![false; n]; n]
}

fn union(a: &Rel, b: &Rel) -> Rel {
    a.iter()
        .zip(b)
        .map(|(ra, rb)| ra.iter().zip(rb).map(|(x, y)| *x || *y).collect())
        .collect()
}

/// Transitive closure (Floyd–Warshall).
fn closure(r: &Rel) -> Rel {
    let n = r.len();
    let mut c = r.clone();
    for k in 0..n {
        for i in 0..n {
            if c[i][k] {
                for j in 0..n {
                    if c[k][j] {
                        c[i][j] = true;
                    }
                }
            }
        }
    }
    c
}

/// Reflexive closure.
fn refl(r: &Rel) -> Rel {
    let mut c = r.clone();
    for (i, row) in c.iter_mut().enumerate() {
        row[i] = true;
    }
    c
}

/// Acyclic iff a depth-first search never meets a node that is still on its stack.
/// (Equivalent to: the transitive closure has an empty diagonal; the unit tests check both.)
fn acyclic(r: &Rel) -> bool {
    // 0 = unvisited, 1 = on the DFS stack, 2 = finished
    fn visit(r: &Rel, a: usize, state: &mut Vec<u8>) -> bool {
        state[a] = 1;
        for b in 0..r.len() {
            if r[a][b] {
                if state[b] == 1 {
                    return false;
                }
                if state[b] == 0 && !visit(r, b, state) {
                    return false;
                }
            }
        }
        state[a] = 2;
        true
    }
    let mut state = vec![0u8; r.len()];
    (0..r.len()).all(|a| state[a] != 0 || visit(r, a, &mut state))
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const FIXTURES: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/papers-and-litmus.hist"
    );

    fn get(v: &BVerdicts, key: &str) -> Option<bool> {
        Some(match key {
            "cc" => v.cc,
            "ccv" => v.ccv,
            "cm" => v.cm,
            "ccm" => v.ccm,
            "wccm" => v.wccm,
            "wsc" => v.wsc,
            "sc" => v.sc,
            "tso" => v.tso,
            "pso" => v.pso,
            _ => return None,
        })
    }

    fn h(threads: Vec<Vec<(Kind, usize, u64)>>) -> BHistory {
        BHistory { threads }
    }

    #[test]
    fn brute_fixtures_reproduced() {
        let text = std::fs::read_to_string(FIXTURES).expect("fixture file");
        let fixtures = parse_fixtures(&text);
        assert_eq!(fixtures.len(), 36, "fixture count");
        let mut failures = Vec::new();
        let mut checked = 0;
        for (name, expect, hist) in &fixtures {
            let v = verdicts(hist);
            for (key, want) in expect {
                if let Some(got) = get(&v, key) {
                    checked += 1;
                    if got != *want {
                        failures.push(format!("{name}: {key} expected {want}, got {got}"));
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} mismatches:\n{}",
            failures.len(),
            failures.join("\n")
        );
        assert_eq!(checked, 36 * 9);
    }

    #[test]
    fn brute_acyclic_matches_closure_diagonal() {
        let mut rng = SplitMix64::new(42);
        for _ in 0..2000 {
            let n = 1 + rng.below(7) as usize;
            let density = 1 + rng.below(4);
            let mut r = empty(n);
            for a in 0..n {
                for b in 0..n {
                    r[a][b] = rng.below(10) < density;
                }
            }
            let c = closure(&r);
            assert_eq!(acyclic(&r), (0..n).all(|i| !c[i][i]), "{r:?}");
        }
    }

    #[test]
    fn brute_parse_basics() {
        let f = parse_fixtures(
            "# c\n@name a\n@expect sc=no TSO=yes\nt0: W(x,1) R(y,0x0)\nt1: W(y,0x1) R(x,0)\n---\n\n---\n@name b\ncpu: R(z,2)\n",
        );
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].0, "a");
        assert_eq!(f[0].1.get("sc"), Some(&false));
        assert_eq!(f[0].1.get("tso"), Some(&true));
        assert_eq!(
            f[0].2.threads,
            vec![
                vec![(Kind::W, 0, 1), (Kind::R, 1, 0)],
                vec![(Kind::W, 1, 1), (Kind::R, 0, 0)]
            ]
        );
        assert_eq!(f[1].0, "b");
        assert_eq!(f[1].2.threads, vec![vec![(Kind::R, 0, 2)]]);
    }

    #[test]
    fn brute_empty_and_thin_air() {
        let v = verdicts(&h(vec![]));
        assert!(v.cc && v.ccv && v.cm && v.ccm && v.wccm && v.wsc && v.sc && v.tso && v.pso);
        assert_eq!(v.pww, Some(BTreeSet::new()));
        let v = verdicts(&h(vec![vec![(Kind::W, 0, 1)], vec![(Kind::R, 0, 7)]]));
        assert!(!(v.cc || v.ccv || v.cm || v.ccm || v.wccm || v.wsc || v.sc || v.tso || v.pso));
        assert!(v.pww.is_none() && v.wpww.is_none() && v.st.is_none());
    }

    #[test]
    fn brute_store_orders_of_mp_ok() {
        // t0: W(x,1) W(x,2) | t1: R(x,2): po orders the writes; every store order contains it.
        let v = verdicts(&h(vec![
            vec![(Kind::W, 0, 1), (Kind::W, 0, 2)],
            vec![(Kind::R, 0, 2)],
        ]));
        assert!(v.sc);
        let pair: BTreeSet<_> = [(BId::Op(0, 0), BId::Op(0, 1))].into_iter().collect();
        assert_eq!(v.pww.as_ref(), Some(&pair));
        assert_eq!(v.wpww.as_ref(), Some(&pair));
        assert_eq!(v.st.as_ref(), Some(&pair));
        // Concurrent writes, one read of each in another thread order: W(x,1) before W(x,2).
        let v = verdicts(&h(vec![
            vec![(Kind::W, 0, 1)],
            vec![(Kind::W, 0, 2)],
            vec![(Kind::R, 0, 1), (Kind::R, 0, 2)],
        ]));
        assert!(v.sc);
        let pair: BTreeSet<_> = [(BId::Op(0, 0), BId::Op(1, 0))].into_iter().collect();
        assert_eq!(v.pww.as_ref(), Some(&pair));
        assert_eq!(v.st.as_ref(), Some(&pair));
    }

    #[test]
    fn brute_random_is_deterministic_and_well_formed() {
        let mut thin = 0;
        let mut reads = 0;
        for seed in 0..2000u64 {
            let a = random_history(seed, 10);
            let b = random_history(seed, 10);
            assert_eq!(a.threads, b.threads);
            let total: usize = a.threads.iter().map(|t| t.len()).sum();
            assert!((1..=10).contains(&total));
            assert!(a.threads.len() <= 4 && a.threads.iter().all(|t| !t.is_empty()));
            let mut written: BTreeSet<(usize, u64)> = BTreeSet::new();
            for t in &a.threads {
                for &(k, v, val) in t {
                    assert!(v < 3);
                    if k == Kind::W {
                        assert!(val != 0 && written.insert((v, val)));
                    }
                }
            }
            for t in &a.threads {
                for &(k, v, val) in t {
                    if k == Kind::R {
                        reads += 1;
                        if val != 0 && !written.contains(&(v, val)) {
                            thin += 1;
                        }
                    }
                }
            }
        }
        assert!(
            thin > 0 && thin * 100 < reads * 5,
            "thin-air {thin} of {reads} reads"
        );
        assert_eq!(random_history(1, 0).threads.len(), 0);
    }

    // ---- independent operational cross-checks of SC / TSO / PSO (interleavings, store buffers)

    /// Operational machine: Sc = interleavings over a single memory; Tso = one FIFO
    /// store buffer per thread; Pso = one FIFO per (thread, variable). A read takes the
    /// newest own buffered write to its variable, else memory.
    #[derive(Clone, Copy, PartialEq)]
    enum Machine {
        Sc,
        Tso,
        Pso,
    }

    fn operational(hist: &BHistory, m: Machine) -> bool {
        let nvars = hist
            .threads
            .iter()
            .flatten()
            .map(|o| o.1 + 1)
            .max()
            .unwrap_or(0);
        // state: pcs, memory, buffers (per thread a list of (var, value), FIFO order)
        type State = (Vec<usize>, Vec<u64>, Vec<Vec<(usize, u64)>>);
        let start: State = (
            vec![0; hist.threads.len()],
            vec![0; nvars],
            vec![vec![]; hist.threads.len()],
        );
        let mut seen: HashSet<State> = HashSet::new();
        let mut stack = vec![start];
        while let Some(s) = stack.pop() {
            if !seen.insert(s.clone()) {
                continue;
            }
            let (pcs, mem, bufs) = &s;
            if pcs
                .iter()
                .enumerate()
                .all(|(t, &pc)| pc == hist.threads[t].len())
            {
                return true;
            }
            for t in 0..hist.threads.len() {
                // execute next op of t
                if pcs[t] < hist.threads[t].len() {
                    let (k, v, val) = hist.threads[t][pcs[t]];
                    let mut ns = s.clone();
                    ns.0[t] += 1;
                    match k {
                        Kind::W => {
                            if m == Machine::Sc {
                                ns.1[v] = val;
                            } else {
                                ns.2[t].push((v, val));
                            }
                            stack.push(ns);
                        }
                        Kind::R => {
                            let seen_val = bufs[t]
                                .iter()
                                .rev()
                                .find(|e| e.0 == v)
                                .map(|e| e.1)
                                .unwrap_or(mem[v]);
                            if seen_val == val {
                                stack.push(ns);
                            }
                        }
                    }
                }
                // flush a buffered write of t
                for i in 0..bufs[t].len() {
                    let oldest_of_var = bufs[t][..i].iter().all(|e| e.0 != bufs[t][i].0);
                    let allowed = match m {
                        Machine::Sc => false,
                        Machine::Tso => i == 0,
                        Machine::Pso => oldest_of_var,
                    };
                    if allowed {
                        let mut ns = s.clone();
                        let (v, val) = ns.2[t].remove(i);
                        ns.1[v] = val;
                        stack.push(ns);
                    }
                }
            }
        }
        false
    }

    fn check_hierarchy(hist: &BHistory, v: &BVerdicts) {
        let ctx = || format!("{:?}\n{:?}", hist.threads, v);
        let imp = |a: bool, b: bool, what: &str| assert!(!a || b, "{what} violated on {}", ctx());
        imp(v.wsc, v.ccm, "wsc => ccm");
        imp(v.ccm, v.cc, "ccm => cc");
        imp(v.ccm, v.ccv, "ccm => ccv");
        imp(v.ccm, v.cm, "ccm => cm");
        imp(v.ccm, v.wccm, "ccm => wccm");
        imp(v.sc, v.wsc, "sc => wsc");
        imp(v.sc, v.tso, "sc => tso");
        imp(v.tso, v.pso, "tso => pso");
        imp(v.tso, v.wccm, "tso => wccm");
        imp(v.cc, true, "");
        imp(v.ccv || v.cm, v.cc, "ccv/cm => cc");
        assert_eq!(v.pww.is_some(), v.ccm);
        assert_eq!(v.wpww.is_some(), v.wccm);
        assert_eq!(v.st.is_some(), v.wsc);
        if let (Some(p), Some(s)) = (&v.pww, &v.st) {
            assert!(p.is_subset(s), "pww ⊆ st violated on {}", ctx());
        }
        if let (Some(wp), Some(p)) = (&v.wpww, &v.pww) {
            assert!(wp.is_subset(p), "wpww ⊆ pww violated on {}", ctx());
        }
        for set in [&v.pww, &v.wpww, &v.st].into_iter().flatten() {
            for &(a, b) in set {
                assert!(a != b && matches!(a, BId::Op(..)) && matches!(b, BId::Op(..)));
                assert!(
                    !set.contains(&(b, a)),
                    "partial store order not antisymmetric: {}",
                    ctx()
                );
            }
        }
    }

    #[test]
    fn brute_random_hierarchy_and_operational() {
        let t0 = std::time::Instant::now();
        let mut counts = [0usize; 9];
        let n = 3000u64;
        for seed in 0..n {
            let hist = random_history(seed, 10);
            let v = verdicts(&hist);
            check_hierarchy(&hist, &v);
            assert_eq!(
                v.sc,
                operational(&hist, Machine::Sc),
                "SC vs interleavings on {:?}",
                hist.threads
            );
            assert_eq!(
                v.tso,
                operational(&hist, Machine::Tso),
                "TSO vs store buffers on {:?}",
                hist.threads
            );
            assert_eq!(
                v.pso,
                operational(&hist, Machine::Pso),
                "PSO vs store buffers on {:?}",
                hist.threads
            );
            for (i, b) in [v.cc, v.ccv, v.cm, v.ccm, v.wccm, v.wsc, v.sc, v.tso, v.pso]
                .iter()
                .enumerate()
            {
                counts[i] += *b as usize;
            }
        }
        eprintln!(
            "brute: {n} random histories in {:?}; true counts cc ccv cm ccm wccm wsc sc tso pso = {:?}",
            t0.elapsed(),
            counts
        );
        // Sanity: the generator produces both outcomes for every model.
        for c in counts {
            assert!(c > 0 && (c as u64) < n);
        }
    }
}
