//! `dp`: the dynamic programming of consistency-framework-2k §3.2 over sets
//! of writes, restricted to the up-sets of the saturated store order — its
//! cost is the number of such sets, not `2^k`.
//!
//! `T[V]` holds when the writes `V` can be ordered last (after all others)
//! such that the coherence graphs stay acyclic: `T[V] = ∃ v ∈ V minimal:
//! G[V∖{v}, v] acyclic ∧ T[V∖{v}]` (Lemma 5), with `v` placed first within `V`.

use std::collections::HashMap;

use super::{Completion, Limits, Saturation};
use crate::history::OpId;
use crate::relation::{topological_order, BitMatrix};

struct Dp<'a, 'h, 'c> {
    sat: &'a Saturation<'h>,
    /// the non-initial writes, by index
    writes: Vec<OpId>,
    /// `above[i]`: indices of writes the saturated order puts after write `i`
    above: Vec<Vec<usize>>,
    memo: HashMap<Vec<u64>, bool>,
    limits: Limits<'c>,
    timed_out: bool,
    /// the memory limit stopped the search
    over_memory: bool,
}

/// Completes the saturated order by dynamic programming over up-sets; the
/// memo table is bounded by `limits.memory`.
pub fn complete(sat: &Saturation, limits: Limits) -> Completion {
    let h = sat.history();
    let writes: Vec<OpId> = (0..h.n())
        .filter(|&w| h.is_write(w) && !h.is_init(w))
        .collect();
    let k = writes.len();
    let above = (0..k)
        .map(|i| {
            (0..k)
                .filter(|&j| sat.ordered(writes[i], writes[j]))
                .collect()
        })
        .collect();
    let mut dp = Dp {
        sat,
        writes,
        above,
        memo: HashMap::new(),
        limits,
        timed_out: false,
        over_memory: false,
    };
    let mut all = vec![0u64; k.div_ceil(64)];
    for i in 0..k {
        all[i / 64] |= 1 << (i % 64);
    }
    let mut order = Vec::new();
    if dp.holds(&all, &mut order) {
        // `order` lists writes from the first placed (the top) down.
        order.reverse();
        let order = (0..h.vars.len())
            .map(|x| {
                let mut ws = vec![h.writes_of(x)[0]];
                ws.extend(order.iter().copied().filter(|&w| h.var(w) == Some(x)));
                ws
            })
            .collect();
        Completion::Found {
            order,
            interleaving: None,
        }
    } else if dp.over_memory {
        Completion::OverMemory(format!(
            "the dp search remembered {} sets of writes",
            dp.memo.len()
        ))
    } else if dp.timed_out {
        Completion::TimedOut
    } else {
        Completion::Exhausted
    }
}

impl Dp<'_, '_, '_> {
    fn contains(set: &[u64], i: usize) -> bool {
        set[i / 64] >> (i % 64) & 1 == 1
    }

    /// `T[V]`; on success pushes the witness order of `V`, top first... last placed first.
    fn holds(&mut self, v: &[u64], order: &mut Vec<OpId>) -> bool {
        if v.iter().all(|&w| w == 0) {
            return true;
        }
        if let Some(&known) = self.memo.get(v) {
            if !known {
                return false;
            }
        }
        if self.timed_out || self.limits.spent() {
            self.timed_out = true;
            return false;
        }
        // a memo entry: the set's words, the map's own share
        let entry = 8 * v.len() as u64 + 64;
        if self.over_memory || self.limits.over(self.memo.len() as u64 * entry) {
            self.over_memory = true;
            return false;
        }
        let members: Vec<usize> = crate::relation::iter_ones(v).collect();
        for &m in &members {
            if self.limits.spent() {
                self.timed_out = true;
                return false;
            }
            // m must be minimal in V: no other member is ordered before it
            if members
                .iter()
                .any(|&o| o != m && self.above[o].contains(&m))
            {
                continue;
            }
            let mut rest = v.to_vec();
            rest[m / 64] &= !(1 << (m % 64));
            if !self.atomic(&rest, m) || !self.coherent(&rest, m) {
                continue;
            }
            let before = order.len();
            if self.holds(&rest, order) {
                order.push(self.writes[m]);
                self.memo.insert(v.to_vec(), true);
                return true;
            }
            order.truncate(before);
        }
        self.memo.insert(v.to_vec(), false);
        false
    }

    /// RMW atomicity with `v` placed first within `V ∪ {v}`: no RMW write of
    /// `v`'s variable placed above it (in `V`) reads from a write still to
    /// be placed below it (or from the initial write): `v` would lie between
    /// the two.
    fn atomic(&self, v_set: &[u64], v: usize) -> bool {
        let h = self.sat.history();
        let wv = self.writes[v];
        self.writes.iter().enumerate().all(|(i, &u)| {
            if !Self::contains(v_set, i) || h.var(u) != h.var(wv) {
                return true;
            }
            let Some(source) = h.ops[u].rmw.and_then(|r| h.rf(r)) else {
                return true;
            };
            source == wv
                || self
                    .writes
                    .iter()
                    .position(|&w| w == source)
                    .is_some_and(|j| Self::contains(v_set, j))
        })
    }

    /// The coherence graphs `G[V, v]` (Definition 4) are acyclic: every write
    /// outside `V ∪ {v}` precedes those in it, `v` precedes `V` — across
    /// variables, as the framework's total order `tw` does — and each read of
    /// an earlier write precedes the later writes of its variable (`cf`).
    fn coherent(&self, v_set: &[u64], v: usize) -> bool {
        let h = self.sat.history();
        let n = h.n();
        let stride = n.div_ceil(64);
        let mut upper = vec![0u64; stride]; // V ∪ {v}, as op ids
        let mut rest = vec![0u64; stride]; // V
        for (i, &w) in self.writes.iter().enumerate() {
            if Self::contains(v_set, i) {
                rest[w / 64] |= 1 << (w % 64);
                upper[w / 64] |= 1 << (w % 64);
            }
        }
        let wv = self.writes[v];
        upper[wv / 64] |= 1 << (wv % 64);
        let mut extra = BitMatrix::new(n);
        let same_var = |dst: &mut [u64], from: &[u64], x: usize| {
            for ((d, f), m) in dst.iter_mut().zip(from).zip(h.writes_mask(x)) {
                *d |= f & m;
            }
        };
        for w in (0..n).filter(|&w| h.is_write(w)) {
            let later: &[u64] = if w == wv {
                &rest
            } else if upper[w / 64] >> (w % 64) & 1 == 1 {
                continue; // within V: its order is T[V]'s business
            } else {
                &upper
            };
            extra.or_row(w, later);
            let x = h.var(w).expect("writes have a variable");
            for &r in h.readers(w) {
                same_var(extra.row_mut(r), later, x);
            }
        }
        self.sat.graphs().all(|g| {
            let mut all = g.clone();
            all.union_with(&extra);
            topological_order(&all).is_ok()
        })
    }
}
