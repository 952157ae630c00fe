//! Saturation and completion at scale, on sparse graphs with `succ`
//! frontiers ([`crate::relation::chains`]): the rules of [`super::Saturation`]
//! fired at frontiers only, a hint pass that orients every write pair left
//! by a linear extension of the saturated order, and a depth-first search
//! undone from a trail when the hint fails.
//!
//! Why firing at frontiers suffices: a write `x` reaches, on each sequence,
//! an up-set; the first read `y₁` of `var(x)` there gives `x ww rf(y₁)`, and
//! each later read `y` of the sequence is reached from `y₁` through
//! consecutive same-variable reads `r, r′` of a lane, for which
//! `rf(r) ww rf(r′)` holds in every witness (wsc-saturation's first rule on
//! `po-loc`); those pairs are added up front. Likewise the first write `y₁`
//! gives `x ww y₁` and later writes follow `y₁` along the sequence, whose own
//! rules ordered them. RMW atomicity and `@final` compose with `ww` and fire on
//! the derived pairs.

use std::collections::HashMap;

use super::{final_pairs, Completion};
use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::{History, OpId};
use crate::relation::chains::{Cursors, Mark, NONE};
use crate::scale::lanes::{consecutive_sources, Lanes};
use crate::scale::{ChainGraph, Frontier};

type Work = (u32, u32, Rel);

/// A lowered frontier entry: `(node, slot, new, old)`.
type Lowered = (u32, usize, u32, u32);

/// Slots from which a frontier is wide (see `Scaled::breadth_first`).
const WIDE: usize = 64;

/// A conflict: adding `a -rel-> b` to graph `graph` closes a cycle.
#[derive(Debug, Clone, Copy)]
pub struct Conflict {
    pub graph: usize,
    pub a: u32,
    pub b: u32,
    pub rel: Rel,
}

/// The saturated graphs of a store-order model at scale.
pub struct Scaled<'h> {
    h: &'h History,
    graphs: Vec<(Pattern, Frontier)>,
    /// RMW atomicity and `@final` (SC/TSO/PSO; not wSC).
    atomic: bool,
    rmw_source: HashMap<u32, u32>,
    rmw_by_source: HashMap<u32, Vec<u32>>,
    work: Vec<Work>,
    drops: Vec<Lowered>,
    /// Pairs fired by the rules, before they are filtered.
    fired: Vec<(u32, u32)>,
    /// Per graph, its rule sites looked up so far.
    sites: Vec<Sites>,
    /// Per operation, the variable of a write, else [`NONE`]: the rules
    /// fire at writes, and this small array answers for every lowered
    /// entry without reading the operation itself.
    write_var: Vec<u32>,
    /// Per graph, a bit per (variable, slot): whether a write of the
    /// variable has rule sites in that slot (its sequence holds the
    /// variable; [`rule_slots`]). Most lowered entries are in other slots
    /// (PSO: 16 of 520 are a write's), and are dropped before the rules
    /// see them.
    fires_at: Vec<Vec<u64>>,
    /// The worklist's order: breadth first (oldest pair first) on wide
    /// frontiers, where a frontier lowered step by step costs most (PSO's
    /// slot per lane and variable: 1.5× faster at 2·10⁴ operations); else
    /// depth first (newest first), which meets a cycle sooner (wSC and SC
    /// violations 1.5–2× sooner).
    breadth_first: bool,
}

impl<'h> Scaled<'h> {
    /// Builds each graph's frontiers and saturates from `seeds` (store-order
    /// pairs known up front) and the rules; a cycle is a violation with its
    /// certificate.
    pub fn new(
        h: &'h History,
        lanes: &Lanes,
        graphs: Vec<(Pattern, ChainGraph)>,
        atomic: bool,
        seeds: &[(u32, u32)],
    ) -> Result<Scaled<'h>, Violation> {
        Scaled::noting(h, lanes, graphs, atomic, seeds, None)
    }

    /// [`Scaled::new`]; when a pair known up front (`seeds`, consecutive
    /// sources) contradicts a graph before any insertion, every pair that
    /// contradicts the last (the model's own) goes into `contradicted`
    /// (PSO looks for its own cycle among TSO's:
    /// `crate::check::scale::decide`).
    pub fn noting(
        h: &'h History,
        lanes: &Lanes,
        graphs: Vec<(Pattern, ChainGraph)>,
        atomic: bool,
        seeds: &[(u32, u32)],
        mut contradicted: Option<&mut Vec<(u32, u32)>>,
    ) -> Result<Scaled<'h>, Violation> {
        crate::models::common::no_thin_air(h)?;
        let mut fronts = Vec::with_capacity(graphs.len());
        for (pattern, g) in graphs {
            match Frontier::new(g) {
                Ok(f) => fronts.push((pattern, f)),
                Err(cycle) => return Err(Violation::from_edges(pattern, cycle)),
            }
        }
        let mut s = Scaled {
            h,
            graphs: fronts,
            atomic,
            rmw_source: HashMap::new(),
            rmw_by_source: HashMap::new(),
            work: Vec::new(),
            drops: Vec::new(),
            fired: Vec::new(),
            sites: Vec::new(),
            write_var: crate::scale::write_vars(h),
            fires_at: Vec::new(),
            breadth_first: false,
        };
        s.breadth_first = s.graphs.iter().any(|(_, f)| f.graph().slots() >= WIDE);
        s.sites = s
            .graphs
            .iter()
            .map(|(_, f)| Sites::new(f.graph()))
            .collect();
        // per graph and variable, the slots where its writes' rules fire
        let sites: Vec<Vec<Vec<usize>>> = s
            .graphs
            .iter()
            .map(|(_, f)| rule_slots(f.graph(), h.vars.len()))
            .collect();
        s.fires_at = s
            .graphs
            .iter()
            .zip(&sites)
            .map(|((_, f), sites)| {
                let d = f.graph().slots();
                let mut bits = vec![0u64; (h.vars.len() * d).div_ceil(64)];
                for (v, slots) in sites.iter().enumerate() {
                    for &slot in slots {
                        let i = v * d + slot;
                        bits[i / 64] |= 1 << (i % 64);
                    }
                }
                bits
            })
            .collect();
        if atomic {
            for o in 0..h.n() {
                if let (true, Some(r)) = (h.is_write(o), h.ops[o].rmw) {
                    if let Some(w0) = h.rf(r) {
                        s.rmw_source.insert(o as u32, w0 as u32);
                        s.rmw_by_source.entry(w0 as u32).or_default().push(o as u32);
                    }
                }
            }
        }
        s.work.extend(seeds.iter().map(|&(a, b)| (a, b, Rel::St)));
        // rf(r) ww rf(r′) for consecutive reads r, r′ of a variable in a lane
        for lane in &lanes.lanes {
            consecutive_sources(
                h,
                lane,
                |_| true,
                |a, b| s.work.push((a as u32, b as u32, Rel::St)),
            );
        }
        // a pair known up front that a graph already contradicts (a read of
        // a value its own thread overwrote, CoWR; two reads of a variable
        // seeing its writes backwards, CoRR) is a cycle at once, of that
        // pair and a path of the graph's own edges: found before any
        // insertion and before every write's rules fire
        let mut first = None;
        for &(a, b, rel) in &s.work {
            if let Some(graph) = s.graphs.iter().position(|(_, f)| f.reaches(b, a)) {
                first.get_or_insert(Conflict { graph, a, b, rel });
                let Some(noted) = contradicted.as_deref_mut() else {
                    break;
                };
                if s.graphs.last().is_some_and(|(_, f)| f.reaches(b, a)) {
                    noted.push((a, b));
                }
            }
        }
        if let Some(c) = first {
            return Err(s.explain(c));
        }
        for (i, sites) in sites.iter().enumerate() {
            let mut lowered: Vec<Lowered> = Vec::new();
            for x in (0..h.n()).filter(|&x| h.is_write(x)) {
                let slots = &sites[h.var(x).expect("writes have a variable")];
                // every frontier of `x`, as if lowered from nothing
                lowered.clear();
                lowered.extend(slots.iter().filter_map(|&slot| {
                    let f = s.graphs[i].1.frontier(x as u32, slot);
                    (f != NONE).then_some((x as u32, slot, f, NONE))
                }));
                s.fire_all(i, &lowered);
            }
        }
        if atomic {
            let finals = final_pairs(h).map(|(w, last)| (w as u32, last as u32, Rel::Final));
            s.work.extend(finals);
        }
        if let Err(c) = s.run() {
            return Err(s.explain(c));
        }
        Ok(s)
    }

    /// Whether `a` is known to precede `b` in the store order.
    #[inline]
    pub fn ordered(&self, a: OpId, b: OpId) -> bool {
        self.graphs[0].1.reaches(a as u32, b as u32)
    }

    /// Same-variable write pairs (initial writes included) that saturation
    /// left unordered, counted from the frontiers.
    pub fn unordered_pairs(&self) -> usize {
        let (total, ordered) = self.count_pairs(true);
        total - ordered
    }

    /// (all pairs, ordered pairs) of same-variable writes, with or without
    /// the initial writes.
    pub fn count_pairs(&self, with_init: bool) -> (usize, usize) {
        let h = self.h;
        let f = &self.graphs[0].1;
        let g = f.graph();
        let skip = usize::from(!with_init);
        let total = (0..h.vars.len())
            .map(|x| {
                let k = h.writes_of(x).len().saturating_sub(skip);
                k * k.saturating_sub(1) / 2
            })
            .sum();
        // only the slots of sequences holding writes of the variable count
        let slots = slots_per_var(g, h.vars.len(), |v| g.seqs_with_writes(v));
        let mut ordered = 0;
        for w in (0..h.n()).filter(|&w| h.is_write(w) && (with_init || !h.is_init(w))) {
            let v = h.var(w).expect("writes have a variable") as u32;
            for &slot in &slots[v as usize] {
                let p = f.frontier(w as u32, slot);
                if p != NONE {
                    ordered += g.writes_from(g.seq_of_slot(w as u32, slot), v, p);
                }
            }
            if g.on_sequence(w as u32) {
                ordered -= 1; // w itself
            }
        }
        // initial writes lie on no sequence; every write reached counts
        (total, ordered)
    }

    /// Adds the store-order pair `a ww b` (and its consequences) and saturates.
    pub fn decide(&mut self, a: OpId, b: OpId) -> Result<(), Conflict> {
        self.work.push((a as u32, b as u32, Rel::St));
        self.run()
    }

    /// Runs the worklist to the fixpoint.
    fn run(&mut self) -> Result<(), Conflict> {
        let mut head = 0;
        while head < self.work.len() {
            let (a, b, rel) = if self.breadth_first {
                head += 1;
                self.work[head - 1]
            } else {
                self.work.pop().expect("not empty")
            };
            if rel != Rel::Rw {
                self.consequences(a, b);
            }
            for i in 0..self.graphs.len() {
                let mut drops = std::mem::take(&mut self.drops);
                drops.clear();
                let (write_var, fires_at) = (&self.write_var, &self.fires_at[i]);
                let d = self.graphs[i].1.graph().slots();
                let inserted = self.graphs[i].1.insert(a, b, rel, |x, s, new, old| {
                    // the rules fire at writes only, in their variable's slots
                    let v = write_var[x as usize];
                    if v != NONE {
                        let at = v as usize * d + s;
                        if fires_at[at / 64] & 1 << (at % 64) != 0 {
                            drops.push((x, s, new, old))
                        }
                    }
                });
                if inserted.is_err() {
                    self.work.clear();
                    self.drops = drops;
                    return Err(Conflict {
                        graph: i,
                        a,
                        b,
                        rel,
                    });
                }
                self.fire_all(i, &drops);
                self.drops = drops;
            }
        }
        self.work.clear();
        Ok(())
    }

    /// The consequences of `a ww b` besides the edge itself: `r rw b` for
    /// every reader `r` of `a`, and RMW atomicity (an RMW `w` reading
    /// from `a` precedes `b`; `a` precedes the source of an RMW `b`).
    fn consequences(&mut self, a: u32, b: u32) {
        let h = self.h;
        if self.atomic {
            if let Some(ws) = self.rmw_by_source.get(&a) {
                for &w in ws {
                    if w != b && !self.graphs[0].1.reaches(w, b) {
                        self.work.push((w, b, Rel::Rmw));
                    }
                }
            }
            if let Some(&w0) = self.rmw_source.get(&b) {
                if a != w0 && !self.graphs[0].1.reaches(a, w0) {
                    self.work.push((a, w0, Rel::Rmw));
                }
            }
        }
        for &r in h.readers(a as usize) {
            let r = r as u32;
            if r != b && self.graphs.iter().any(|(_, g)| !g.reaches(r, b)) {
                self.work.push((r, b, Rel::Rw));
            }
        }
    }

    /// Fires the rules at graph `i`'s lowered frontiers `drops`; each pair
    /// `x ww y` they give is queued as an edge only when some graph lacks
    /// it, else only its consequences are — most fired pairs are already in
    /// every graph, and this keeps them off the worklist.
    fn fire_all(&mut self, i: usize, drops: &[Lowered]) {
        let mut fired = std::mem::take(&mut self.fired);
        fired.clear();
        for &d in drops {
            let v = self.write_var[d.0 as usize];
            fire(
                self.h,
                &self.graphs[i].1,
                &mut self.sites[i],
                v,
                d,
                &mut fired,
            );
        }
        for &(x, y) in &fired {
            if self.graphs.iter().any(|(_, g)| !g.reaches(x, y)) {
                self.work.push((x, y, Rel::St));
            } else {
                self.consequences(x, y);
            }
        }
        self.fired = fired;
    }

    /// The certificate of a conflict: the edge and a shortest path back.
    fn explain(&self, c: Conflict) -> Violation {
        let (pattern, f) = &self.graphs[c.graph];
        let cycle = f
            .cycle_through(c.a, c.b, c.rel)
            .expect("a conflict closes a cycle");
        Violation::from_edges(*pattern, cycle)
    }

    fn set_trail(&mut self, on: bool) {
        for (_, f) in &mut self.graphs {
            f.set_trail(on);
        }
    }

    fn mark(&self) -> Vec<Mark> {
        self.graphs.iter().map(|(_, f)| f.mark()).collect()
    }

    fn undo(&mut self, marks: &[Mark]) {
        for ((_, f), &m) in self.graphs.iter_mut().zip(marks) {
            f.undo(m);
        }
    }

    /// Per variable, its writes in a linear extension of the last graph
    /// (the model's own `G_mm`), ties broken by time (issue tick, else the
    /// position in the thread).
    fn hint(&self) -> (Vec<Vec<OpId>>, Vec<u32>) {
        let h = self.h;
        let key = |o: u32| -> u64 {
            let o = o as usize;
            match h.thread_of(o) {
                None => 0,
                Some(t) if h.threads[t].timed => h.interval(o).0,
                Some(t) => (o - h.threads[t].ops.start) as u64,
            }
        };
        let order = self.graphs.last().expect("a graph").1.linear_extension(key);
        let mut by_var: Vec<Vec<OpId>> = vec![Vec::new(); h.vars.len()];
        let mut rank = vec![0u32; h.n()];
        for (i, o) in order.into_iter().enumerate() {
            let o = o as usize;
            rank[o] = i as u32;
            if h.is_write(o) {
                by_var[h.var(o).expect("writes have a variable")].push(o);
            }
        }
        (by_var, rank)
    }

    /// Completes the saturated order: a depth-first search over the write
    /// pairs, each guessed first in the hint's orientation (so a valid
    /// history is usually settled in one pass, with local flips), undone
    /// from the trail on conflict.
    pub fn complete(&mut self, cancel: &Cancel) -> Completion {
        self.complete_within(cancel, u64::MAX)
    }

    /// [`Scaled::complete`], giving up (`TimedOut`) after `backtracks`
    /// returns to an earlier choice.
    pub fn complete_within(&mut self, cancel: &Cancel, backtracks: u64) -> Completion {
        self.set_trail(true);
        // the first pairs are those the hint leaves unordered, in its order
        let result = self
            .search(Vec::new(), cancel, backtracks, true)
            .expect("a search with the trail goes back");
        self.set_trail(false);
        result
    }

    /// [`Scaled::complete`] as long as no choice needs to be taken back,
    /// without the trail (whose pages were a tenth of PSO's time at 2·10⁵
    /// operations): `None` at the first conflict, and then this saturation
    /// holds half a choice and is of no further use (build it again and
    /// [`Scaled::complete_within`]). Where it answers, it answers as
    /// `complete_within` would: the same choices in the same order.
    pub fn complete_untrailed(&mut self, cancel: &Cancel) -> Option<Completion> {
        self.set_trail(false);
        self.search(Vec::new(), cancel, 0, false)
    }

    /// Depth-first search with chronological backtracking over `pairs`
    /// (each guessed in its given orientation first); when they are all
    /// decided, a fresh linear extension shows the pairs still unordered,
    /// which join the list, until none is left.
    /// Without `trail`, `None` at the first conflict instead of going back.
    fn search(
        &mut self,
        mut pairs: Vec<(OpId, OpId)>,
        cancel: &Cancel,
        mut backtracks: u64,
        trail: bool,
    ) -> Option<Completion> {
        struct Frame {
            marks: Vec<Mark>,
            a: OpId,
            b: OpId,
            flipped: bool,
            next: usize,
        }
        let mut stack: Vec<Frame> = Vec::new();
        // the per-variable order whose unordered pairs were last added
        let mut last: Option<Vec<Vec<OpId>>> = None;
        let mut next = 0usize;
        let mut steps = 0u64;
        loop {
            steps += 1;
            if steps.is_multiple_of(256) && cancel.spent() {
                return Some(Completion::TimedOut);
            }
            while next < pairs.len() && {
                let (a, b) = pairs[next];
                self.ordered(a, b) || self.ordered(b, a)
            } {
                next += 1;
            }
            if next == pairs.len() {
                match self.unordered_left(last.take()) {
                    Ok(order) => {
                        return Some(Completion::Found {
                            order,
                            interleaving: None,
                        })
                    }
                    Err((more, order)) => {
                        pairs.extend(more);
                        last = Some(order);
                        continue;
                    }
                }
            }
            let (a, b) = pairs[next];
            let marks = self.mark();
            let ok = self.decide(a, b).is_ok();
            stack.push(Frame {
                marks,
                a,
                b,
                flipped: false,
                next,
            });
            if ok {
                continue;
            }
            if !trail {
                return None;
            }
            // backtrack to the latest frame whose other orientation is untried
            loop {
                let Some(f) = stack.pop() else {
                    return Some(Completion::Exhausted);
                };
                self.undo(&f.marks);
                if f.flipped {
                    if backtracks == 0 {
                        return Some(Completion::TimedOut);
                    }
                    backtracks -= 1;
                    continue;
                }
                let marks = self.mark();
                let ok = self.decide(f.b, f.a).is_ok();
                stack.push(Frame {
                    marks,
                    a: f.b,
                    b: f.a,
                    flipped: true,
                    next: f.next,
                });
                next = f.next;
                if ok {
                    break;
                }
            }
        }
    }

    /// The total order if every variable's writes are totally ordered, else
    /// the pairs still unordered among those consecutive in a fresh linear
    /// extension (in its order), with that extension's order. When `last`
    /// (the order whose pairs were added) is now a chain of each variable's
    /// writes in the first graph and in the last (whose linear extension
    /// [`Scaled::hint`] takes), it is the total order: every linear
    /// extension gives it, so no fresh one is made.
    #[allow(clippy::type_complexity)]
    fn unordered_left(
        &self,
        last: Option<Vec<Vec<OpId>>>,
    ) -> Result<Vec<Vec<OpId>>, (Vec<(OpId, OpId)>, Vec<Vec<OpId>>)> {
        if let Some(order) = last {
            let extended = &self.graphs.last().expect("a graph").1;
            let chain = order.iter().all(|ws| {
                ws.windows(2).all(|p| {
                    let (a, b) = (p[0] as u32, p[1] as u32);
                    self.ordered(p[0], p[1]) && extended.reaches(a, b)
                })
            });
            if chain {
                return Ok(order);
            }
        }
        let (order, rank) = self.hint();
        let mut left: Vec<(OpId, OpId)> = order
            .iter()
            .flat_map(|ws| ws.windows(2).map(|p| (p[0], p[1])))
            .filter(|&(a, b)| !self.ordered(a, b))
            .collect();
        if left.is_empty() {
            return Ok(order);
        }
        left.sort_unstable_by_key(|&(a, _)| rank[a]);
        Err((left, order))
    }
}

/// Per variable `v < vars`, the slots of `g` of the sequences `seqs(v)`
/// (each once, ascending).
fn slots_per_var<S: AsRef<[u32]>>(
    g: &ChainGraph,
    vars: usize,
    seqs: impl Fn(u32) -> S,
) -> Vec<Vec<usize>> {
    (0..vars as u32)
        .map(|v| {
            let mut s: Vec<usize> = seqs(v).as_ref().iter().map(|&q| g.slot_of(q)).collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}

/// Per variable, the slots of `g` whose sequences hold it: the only ones
/// where its writes' rules can fire.
fn rule_slots(g: &ChainGraph, vars: usize) -> Vec<Vec<usize>> {
    slots_per_var(g, vars, |v| g.seqs_with(v))
}

/// The rules at a lowered frontier of write `x` of variable `v` in `slot`
/// (one of `v`'s [`rule_slots`]), from `old` to `new`: the first read of
/// `v` now reached, reading from `w′ ≠ x`, gives `x ww w′`; the first other
/// write of `v` now reached, `y`, gives `x ww y`.
fn fire(
    h: &History,
    f: &Frontier,
    memo: &mut Sites,
    v: u32,
    (x, slot, new, old): Lowered,
    fired: &mut Vec<(u32, u32)>,
) {
    let g = f.graph();
    let q = g.seq_of_slot(x, slot);
    debug_assert!(v != NONE && g.may_hold(q, v), "a write's rule slot");
    let (read, w1, w2) = memo.at(g, q, v, new);
    if read != NONE && g.pos(read) < old {
        if let Some(w2) = h.rf(read as usize) {
            if w2 != x as usize {
                fired.push((x, w2 as u32));
            }
        }
    }
    let y = if w1 == x { w2 } else { w1 };
    if y != NONE && g.pos(y) < old {
        fired.push((x, y));
    }
}

/// The rule sites of a sequence from a position on — its first read of a
/// variable, and its first two writes of it — remembered in a small
/// direct-mapped table: the writes that drop in one insertion mostly drop
/// to the same position of the same sequence.
/// Looked up from the index cursors of each `(sequence, variable)`
/// ([`ChainGraph::first_read_near`]): the first firing of every write steps
/// along each sequence in its thread's order.
struct Sites {
    keys: Vec<(u32, u32, u32)>,
    sites: Vec<(u32, u32, u32)>,
    cursors: Cursors,
}

impl Sites {
    const SIZE: usize = 1 << 12;

    fn new(g: &ChainGraph) -> Sites {
        Sites {
            keys: vec![(NONE, NONE, NONE); Self::SIZE],
            sites: vec![(NONE, NONE, NONE); Self::SIZE],
            cursors: g.cursors(),
        }
    }

    /// (first read of `v`, first and second write of `v`) at or after
    /// position `p` of sequence `q` ([`NONE`] where there is none).
    #[inline]
    fn at(&mut self, g: &ChainGraph, q: u32, v: u32, p: u32) -> (u32, u32, u32) {
        let k = (q, v, p);
        let hash = (q as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((v as u64) << 20 ^ p as u64)
            .wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let i = (hash >> 52) as usize & (Self::SIZE - 1);
        if self.keys[i] != k {
            let c = &mut self.cursors;
            let read = g.first_read_near(q, v, p, c).unwrap_or(NONE);
            let w1 = g.first_write_near(q, v, p, c).unwrap_or(NONE);
            let w2 = if w1 == NONE {
                NONE
            } else {
                g.first_write_near(q, v, g.pos(w1) + 1, c).unwrap_or(NONE)
            };
            self.keys[i] = k;
            self.sites[i] = (read, w1, w2);
        }
        self.sites[i]
    }
}
