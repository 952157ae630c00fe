//! `zones`: SC of a history whose only thread is timed (gem5's `--real-time`
//! view, program order = the real-time interval order of the ticks) is
//! linearizability (Herlihy & Wing 1990), which is local: the history is
//! linearizable iff each variable's sub-history is. With the write-read
//! relation given, a register's sub-history is decided by its *zones*
//! (Gibbons & Korach 1997; Anderson et al. 2010), here in O(n log n) for all
//! variables together and O(n) memory.
//!
//! For a variable `x`:
//!
//! * the *cluster* `C(w)` of a write `w` is `w` and the reads of `w`; a
//!   linearization runs each cluster contiguously, write first, so no read may
//!   complete before its write is issued (`r po w`; also an RMW reading its
//!   own write);
//! * the *zone* of a set of operations spans `f`, the earliest completion, and
//!   `s`, the latest issue: *forward* when `f < s`, else *backward*. `C` must
//!   precede `D` in every linearization iff some operation of `C` completes
//!   before some operation of `D` is issued: `f(C) < s(D)`. The initial write
//!   is issued and completes at −∞;
//! * RMW atomicity: an RMW's write directly follows, in the store order, the
//!   write its read half reads. A write read by two RMWs is a violation; the
//!   chains `w, U₁, U₂, …` (each `Uᵢ₊₁` reading `Uᵢ`) are *blocks*, placed
//!   contiguously in chain order (a chain must not run against its own zones,
//!   and RMWs reading each other in a ring are a `wr ∪ po` cycle);
//! * `@final x=v`: the block of the write of `v` goes last, and that write
//!   last in its block.
//!
//! The blocks' precedence `f(B) < s(B′)` has a cycle iff it has one of two
//! blocks (take the block of least `f` on a cycle: it precedes every block of
//! the cycle) — two forward zones that overlap, or a backward zone inside a
//! forward one. Sorting the blocks by the low end of their zone, backward
//! before forward on ties, gives an order that respects the precedence
//! whenever any does; one sweep checks it (no block's `f` below an earlier
//! block's `s`), and a failure names such a pair of blocks.
//!
//! Certificates: consistent — the per-variable store order (blocks in sorted
//! order, each chain in order), which [`crate::certificate::validate`]
//! re-checks against `po ∪ wr ∪ ww ∪ rw` (a total interleaving exists, by
//! linearization points, but the validator does not need one); violation —
//! a cycle built directly from the conflict, of `po`, `wr` and `rw` edges
//! (`rw` from a read whose write must precede another: the zone conflict's
//! other half), with `st`/`rmw`/`final` edges for the pairs RMW atomicity or
//! `@final` derive. Never a fallback to another engine.

use crate::certificate::{Pattern, Rel, Step, Violation};
use crate::history::{History, OpId};
use crate::models::common::no_thin_air;

/// A point on the real-time line: ticks shifted by one, 0 is −∞.
type Tick = u128;

/// Whether the zones decide SC for `h`: its one thread is timed, every
/// interval well formed (issue ≤ completion), so `po` is an interval order.
pub fn applies(h: &History) -> bool {
    h.threads.len() == 1
        && h.threads[0].timed
        && h.threads[0].ops.clone().all(|o| {
            let (i, c) = h.interval(o);
            i <= c
        })
}

/// `o`'s interval `(issue, completion)`; the initial writes at −∞.
#[inline]
fn span(h: &History, o: OpId) -> (Tick, Tick) {
    if h.is_init(o) {
        (0, 0)
    } else {
        let (i, c) = h.interval(o);
        (i as Tick + 1, c as Tick + 1)
    }
}

/// The write whose cluster holds `o` (itself, or the write it reads).
#[inline]
fn cluster_of(h: &History, o: OpId) -> OpId {
    if h.is_write(o) {
        o
    } else {
        h.rf(o).expect("thin-air reads are rejected first")
    }
}

/// A zone: `f` the earliest completion, `s` the latest issue, and operations
/// attaining them.
#[derive(Debug, Clone, Copy)]
struct Zone {
    f: Tick,
    s: Tick,
    first_done: OpId,
    last_issued: OpId,
}

impl Zone {
    /// The zone of the cluster `C(w)`.
    #[inline]
    fn of_cluster(h: &History, w: OpId) -> Zone {
        let (i, c) = span(h, w);
        let mut z = Zone {
            f: c,
            s: i,
            first_done: w,
            last_issued: w,
        };
        for &r in h.readers(w) {
            let (i, c) = span(h, r);
            if c < z.f {
                z.f = c;
                z.first_done = r;
            }
            if i > z.s {
                z.s = i;
                z.last_issued = r;
            }
        }
        z
    }

    /// The zone of a union.
    #[inline]
    fn join(self, o: Zone) -> Zone {
        let (f, first_done) = if o.f < self.f {
            (o.f, o.first_done)
        } else {
            (self.f, self.first_done)
        };
        let (s, last_issued) = if o.s > self.s {
            (o.s, o.last_issued)
        } else {
            (self.s, self.last_issued)
        };
        Zone {
            f,
            s,
            first_done,
            last_issued,
        }
    }

    /// Forward zone: some operation completes before another is issued.
    #[inline]
    fn forward(&self) -> bool {
        self.f < self.s
    }

    /// The zone's low end.
    #[inline]
    fn low(&self) -> Tick {
        self.f.min(self.s)
    }
}

/// A block: an RMW chain of clusters from `start`, with its zone.
#[derive(Debug, Clone, Copy)]
struct Block {
    start: OpId,
    zone: Zone,
    /// holds the write a `@final` observes: goes last
    last: bool,
}

/// The RMW write half that reads from `w`: RMW atomicity puts it directly
/// after `w` in the store order. Two of them are a violation.
#[inline]
fn rmw_successor(h: &History, w: OpId) -> Result<Option<OpId>, Violation> {
    let mut found: Option<OpId> = None;
    for &r in h.readers(w) {
        if let Some(u) = h.ops[r].rmw {
            if let Some(u1) = found {
                let mut v = cycle(h, &[Link::Rmw(u1, u), Link::Rmw(u, u1)]);
                v.ops.push((w, "read by both RMWs"));
                return Err(v);
            }
            found = Some(u);
        }
    }
    Ok(found)
}

/// The write of `x` that every `@final` on `x` observes, if any (two
/// different ones are a violation).
fn final_write(h: &History, x: usize) -> Result<Option<OpId>, Violation> {
    let mut last: Option<OpId> = None;
    for &(_, v) in h.finals.iter().filter(|(y, _)| *y == x) {
        let w = *h
            .writes_of(x)
            .iter()
            .find(|&&w| h.ops[w].value == v)
            .expect("@final values are validated");
        match last {
            Some(l) if l != w => {
                return Err(cycle(h, &[Link::Final(l, w), Link::Final(w, l)]));
            }
            _ => last = Some(w),
        }
    }
    Ok(last)
}

/// Decides SC on a history [`applies`] accepts, by per-variable zones:
/// `Ok(store order)` (per variable its writes, initial write first) or the
/// violation with its cycle.
pub fn decide(h: &History) -> Result<Vec<Vec<OpId>>, Violation> {
    no_thin_air(h)?;
    let mut seen = vec![false; h.n()];
    let mut blocks: Vec<Block> = Vec::new();
    let mut order = Vec::with_capacity(h.vars.len());
    for x in 0..h.vars.len() {
        let ws = h.writes_of(x);
        // a read must not complete before its write is issued
        for &w in ws {
            if let Some(&r) = h.readers(w).iter().find(|&&r| h.po_before(r, w)) {
                return Err(Violation::cycle(
                    Pattern::CyclicSc,
                    vec![step(w, Rel::Wr, r), step(r, Rel::Po, w)],
                ));
            }
        }
        let last = final_write(h, x)?;
        blocks.clear();
        for &start in ws.iter().filter(|&&w| h.ops[w].rmw.is_none()) {
            blocks.push(block(h, start, last, &mut seen)?);
        }
        if let Some(&w) = ws.iter().find(|&&w| !seen[w]) {
            return Err(rmw_ring(h, w, ws.len()));
        }
        // the low end of each zone, backward zones first on ties
        blocks.sort_unstable_by_key(|b| (b.last, b.zone.low(), b.zone.forward(), b.start));
        let mut max_s: Option<usize> = None;
        for j in 0..blocks.len() {
            if let Some(i) = max_s {
                if blocks[j].zone.f < blocks[i].zone.s {
                    return Err(conflict(h, &blocks[i], &blocks[j]));
                }
            }
            if max_s.is_none_or(|i| blocks[j].zone.s > blocks[i].zone.s) {
                max_s = Some(j);
            }
        }
        let mut xs = Vec::with_capacity(ws.len());
        for b in &blocks {
            let mut k = Some(b.start);
            while let Some(w) = k {
                xs.push(w);
                k = rmw_successor(h, w).expect("checked in `block`");
            }
        }
        order.push(xs);
    }
    Ok(order)
}

/// The block from `start`: walks its chain, checks that no cluster's
/// completion precedes an earlier cluster's issue and that the `@final`
/// write ends it, and joins the zones.
fn block(
    h: &History,
    start: OpId,
    last: Option<OpId>,
    seen: &mut [bool],
) -> Result<Block, Violation> {
    let mut zone = Zone::of_cluster(h, start);
    // the latest issue of the clusters so far, with its cluster's write
    let (mut max_s, mut max_w) = (zone.s, start);
    let mut k = start;
    seen[k] = true;
    let mut has_last = last == Some(k);
    while let Some(u) = rmw_successor(h, k)? {
        if last == Some(k) {
            return Err(cycle(h, &[Link::Chain(u), Link::Final(u, k)]));
        }
        seen[u] = true;
        let z = Zone::of_cluster(h, u);
        if z.f < max_s {
            // a later cluster completes before an earlier one's issue
            let b = Zone::of_cluster(h, max_w).last_issued;
            let mut links: Vec<Link> = chain(h, max_w, u).map(Link::Chain).collect();
            links.push(Link::Po(z.first_done, b));
            return Err(cycle(h, &links));
        }
        if z.s > max_s {
            (max_s, max_w) = (z.s, u);
        }
        zone = zone.join(z);
        has_last |= last == Some(u);
        k = u;
    }
    Ok(Block {
        start,
        zone,
        last: has_last,
    })
}

/// The RMW writes after `from` up to `to` in their chain.
fn chain(h: &History, from: OpId, to: OpId) -> impl Iterator<Item = OpId> + '_ {
    let mut k = from;
    std::iter::from_fn(move || {
        if k == to {
            return None;
        }
        k = rmw_successor(h, k).ok().flatten()?;
        Some(k)
    })
}

/// The position of `w` in the chain from `start`.
fn position(h: &History, start: OpId, w: OpId) -> usize {
    std::iter::once(start)
        .chain(chain(h, start, w))
        .position(|k| k == w)
        .expect("w is in the block")
}

/// RMWs reading each other in a ring (`w` is an RMW write on or after it):
/// a `wr ∪ po` cycle.
fn rmw_ring(h: &History, w: OpId, writes: usize) -> Violation {
    let src = |u: OpId| {
        h.rf(h.ops[u].rmw.expect("an RMW write"))
            .expect("no thin air")
    };
    let mut k = w;
    for _ in 0..writes {
        k = src(k); // now on the ring
    }
    let mut ring = vec![k];
    let mut j = src(k);
    while j != k {
        ring.push(j);
        j = src(j);
    }
    ring.reverse();
    cycle(h, &ring.into_iter().map(Link::Chain).collect::<Vec<_>>())
}

/// Two blocks in conflict: `j` sorted after `i` but `f(j) < s(i)`. Either
/// `j` holds the `@final` write (and so must follow `i`), or `f(i) < s(j)`
/// too (the sort's order): a cycle of two derived store-order pairs,
/// with the chains between them.
fn conflict(h: &History, bi: &Block, bj: &Block) -> Violation {
    let (aj, bi_op) = (bj.zone.first_done, bi.zone.last_issued);
    let (z, t) = (cluster_of(h, aj), cluster_of(h, bi_op));
    if bj.last {
        // the final write ends bj's chain: t precedes it, so z (atomicity)
        let f = std::iter::once(bj.start)
            .chain(chain(h, bj.start, OpId::MAX))
            .last()
            .expect("a chain");
        let back = if z == f {
            Link::Final(t, z)
        } else {
            Link::Rmw(t, z)
        };
        return cycle(h, &[Link::Po(aj, bi_op), back]);
    }
    let (ai, bj_op) = (bi.zone.first_done, bj.zone.last_issued);
    let (x, y) = (cluster_of(h, ai), cluster_of(h, bj_op));
    debug_assert!(h.po_before(ai, bj_op) && h.po_before(aj, bi_op));
    let mut links = Vec::new();
    if position(h, bj.start, y) <= position(h, bj.start, z) {
        links.push(Link::Po(ai, bj_op));
        links.extend(chain(h, y, z).map(Link::Chain));
    } else {
        links.push(Link::Rmw(x, z));
    }
    if position(h, bi.start, t) <= position(h, bi.start, x) {
        links.push(Link::Po(aj, bi_op));
        links.extend(chain(h, t, x).map(Link::Chain));
    } else {
        links.push(Link::Rmw(z, x));
    }
    cycle(h, &links)
}

/// A store-order pair between two writes of a variable, as a cycle's link.
#[derive(Debug, Clone, Copy)]
enum Link {
    /// `a po b`: the write of `a`'s cluster precedes the write of `b`'s
    Po(OpId, OpId),
    /// the RMW write `u` directly follows the write it reads
    Chain(OpId),
    /// derived by RMW atomicity
    Rmw(OpId, OpId),
    /// derived from a `@final` observation
    Final(OpId, OpId),
}

impl Link {
    /// The later write of the pair.
    fn to(self, h: &History) -> OpId {
        match self {
            Link::Po(_, b) => cluster_of(h, b),
            Link::Chain(u) => u,
            Link::Rmw(_, b) | Link::Final(_, b) => b,
        }
    }

    /// The earlier write of the pair.
    fn from(self, h: &History) -> OpId {
        match self {
            Link::Po(a, _) => cluster_of(h, a),
            Link::Chain(u) => h
                .rf(h.ops[u].rmw.expect("an RMW write"))
                .expect("no thin air"),
            Link::Rmw(a, _) | Link::Final(a, _) => a,
        }
    }

    /// A `po` link that ends at a read, not at its write.
    fn ends_at_read(self, h: &History) -> bool {
        matches!(self, Link::Po(_, b) if !h.is_write(b))
    }
}

/// The edge `from -rel-> to`.
fn step(from: OpId, rel: Rel, to: OpId) -> Step {
    Step { from, rel, to }
}

/// The cycle of a ring of links, as edges: `Po(a, b)` is `[w -wr->] a -po->
/// b`; when `b` is a read of `w′`, the next link's pair `w′ ww v` makes
/// `b -rw-> v` (or `b -po-> v` for `b` the read half of the RMW `v`), which
/// stands for that link (its operations are listed beside the cycle);
/// `Chain(u)` is `w -wr-> u.r -po-> u`; derived pairs are one edge.
fn cycle(h: &History, links: &[Link]) -> Violation {
    let k = links.len();
    debug_assert!((0..k).all(|i| links[i].to(h) == links[(i + 1) % k].from(h)));
    // start after a link that ends at a write; else stand in for a link
    // from an initial write (it holds trivially), so that the drawn `po`
    // is the telling one (a stale read after a newer write)
    let start = (0..k)
        .find(|&s| !links[(s + k - 1) % k].ends_at_read(h))
        .or_else(|| (0..k).find(|&s| matches!(links[(s + 1) % k], Link::Po(a, _) if h.is_init(a))))
        .unwrap_or(0);
    let mut steps = Vec::new();
    let mut ops: Vec<(OpId, &'static str)> = Vec::new();
    let mut i = 0;
    while i < k {
        let l = links[(start + i) % k];
        i += 1;
        match l {
            Link::Po(a, b) => {
                if !h.is_write(b) && i == k {
                    // the next link is the first one, already drawn
                    steps.push(step(l.from(h), Rel::St, l.to(h)));
                    continue;
                }
                let w = cluster_of(h, a);
                if w != a {
                    steps.push(step(w, Rel::Wr, a));
                }
                steps.push(step(a, Rel::Po, b));
                if !h.is_write(b) {
                    let next = links[(start + i) % k];
                    let v = next.to(h);
                    if h.ops[b].rmw == Some(v) {
                        steps.push(step(b, Rel::Po, v));
                    } else {
                        steps.push(step(b, Rel::Rw, v));
                        ops.push((cluster_of(h, b), "the write an rw edge's read reads from"));
                        match next {
                            Link::Po(a2, b2) if !h.is_init(a2) => {
                                ops.push((a2, "orders the rw edge: completes before"));
                                ops.push((b2, "orders the rw edge: is issued after"));
                            }
                            _ => {}
                        }
                    }
                    i += 1;
                }
            }
            Link::Chain(u) => {
                let r = h.ops[u].rmw.expect("an RMW write");
                steps.push(step(l.from(h), Rel::Wr, r));
                steps.push(step(r, Rel::Po, u));
            }
            Link::Rmw(a, b) => steps.push(step(a, Rel::Rmw, b)),
            Link::Final(a, b) => steps.push(step(a, Rel::Final, b)),
        }
    }
    let mut v = Violation::cycle(Pattern::CyclicSc, steps);
    for (o, role) in ops {
        let shown = v.cycle.iter().any(|s| s.from == o) || v.ops.iter().any(|p| p.0 == o);
        if !shown {
            v.ops.push((o, role));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::validate;

    fn hist(text: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).unwrap();
        History::from_raw(&raw[0], 0).unwrap()
    }

    fn verdict(text: &str) -> Result<Vec<Vec<OpId>>, Violation> {
        let h = hist(text);
        assert!(applies(&h));
        let d = decide(&h);
        match &d {
            Ok(order) => validate::store_order(&h, validate::StoreModel::Sc, order).unwrap(),
            Err(v) => {
                validate::violation(&h, v).unwrap_or_else(|e| panic!("{e}: {}", v.explain(&h)))
            }
        }
        d
    }

    #[test]
    fn a_stale_read_after_a_newer_write_completed() {
        let v = verdict("rt: W(x,1)@0-1 W(x,2)@2-3 R(x,1)@4-5").unwrap_err();
        let h = hist("rt: W(x,1)@0-1 W(x,2)@2-3 R(x,1)@4-5");
        assert_eq!(
            v.explain(&h),
            "rt:W(x,2)@1:16 -po-> rt:R(x,1)@1:27 -rw-> rt:W(x,2)@1:16; \
             the write an rw edge's read reads from: rt:W(x,1)@1:5"
        );
    }

    #[test]
    fn overlapping_operations_linearize_either_way() {
        verdict("rt: W(x,1)@0-10 W(x,2)@2-3 R(x,1)@4-5 R(x,1)@6-12").unwrap();
        verdict("rt: W(x,1)@0-10 W(x,2)@2-3 R(x,1)@4-5 R(x,2)@6-12").unwrap_err();
        verdict("rt: W(x,1)@0-10 R(x,1)@2-3 R(x,0)@1-1").unwrap();
    }

    #[test]
    fn a_backward_zone_inside_a_forward_one() {
        // C(1) is forward [1, 8]; C(2) backward inside it
        verdict("rt: W(x,1)@0-1 W(x,2)@2-6 R(x,2)@3-4 R(x,1)@8-9").unwrap_err();
    }

    #[test]
    fn initial_reads_rmws_and_finals() {
        verdict("rt: R(x,0)@0-1 W(x,1)@2-3").unwrap();
        verdict("rt: W(x,1)@0-1 R(x,0)@2-3").unwrap_err();
        verdict("rt: U(x,0,1)@0-5 U(x,1,2)@1-6 R(x,2)@7-8").unwrap();
        // two RMWs read one write
        verdict("rt: U(x,0,1)@0-5 U(x,0,2)@1-6").unwrap_err();
        // an RMW reading its own write, two reading each other
        verdict("rt: U(x,1,1)@0-5").unwrap_err();
        verdict("rt: U(x,2,1)@0-5 U(x,1,2)@0-5").unwrap_err();
        // an RMW chain against its own zones
        verdict("rt: U(x,0,1)@5-6 U(x,1,2)@0-1").unwrap_err();
        // @final
        verdict("@final x=1\nrt: W(x,1)@0-5 W(x,2)@1-3").unwrap();
        verdict("@final x=1\nrt: W(x,1)@0-1 W(x,2)@2-3").unwrap_err();
        verdict("@final x=0\nrt: R(x,0)@0-1").unwrap();
        verdict("@final x=0\nrt: W(x,1)@0-1").unwrap_err();
        verdict("@final x=1\nrt: W(x,1)@0-1 U(x,1,2)@2-3").unwrap_err();
        // (two `@final` entries for one variable are an input error: parsers/hist.rs)
        verdict("@final x=2\nrt: U(x,0,1)@0-1 U(x,1,2)@2-3 W(x,3)@0-2").unwrap_err();
        verdict("@final x=2\nrt: W(x,3)@0-1 U(x,3,2)@2-3 W(x,4)@1-4").unwrap();
        verdict("@final x=2\nrt: W(x,3)@0-1 U(x,3,2)@2-3 W(x,4)@2-4").unwrap_err();
    }

    #[test]
    fn fences_and_other_variables_are_independent() {
        verdict("rt: W(x,1)@0-1 F@1-2 W(y,1)@0-9 R(y,0)@3-4 R(x,1)@5-6").unwrap();
    }
}
