//! Transitive closure of a DAG and incrementally maintained reachability.

use super::bits::iter_ones;
use super::matrix::BitMatrix;
use crate::budget::{Cancel, Spent};

/// Rows (or components) a closure fills between two asks of its token.
const ASK_EVERY: usize = 64;

/// The relation has a cycle (the caller knows which relations to search for
/// a certificate, see [`super::shortest_cycle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CycleFound;

/// A topological order of `rel` (Kahn), or `CycleFound`.
pub fn topological_order(rel: &BitMatrix) -> Result<Vec<usize>, CycleFound> {
    let n = rel.n();
    let mut indeg = vec![0u32; n];
    for a in 0..n {
        for b in rel.succ(a) {
            indeg[b] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&a| indeg[a] == 0).collect();
    let mut head = 0;
    while head < order.len() {
        let a = order[head];
        head += 1;
        for b in rel.succ(a) {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                order.push(b);
            }
        }
    }
    if order.len() == n {
        Ok(order)
    } else {
        Err(CycleFound)
    }
}

/// `rel⁺`, for an acyclic `rel`; `CycleFound` otherwise.
///
/// Rows are filled in reverse topological order; a successor already reached
/// is skipped (its row is included), so dense, nearly transitive inputs cost
/// little more than sparse ones.
pub fn transitive_closure(rel: &BitMatrix) -> Result<BitMatrix, CycleFound> {
    transitive_closure_until(rel, &Cancel::NEVER)
        .unwrap_or_else(|Spent| unreachable!("never spent"))
}

/// [`transitive_closure`] asking `cancel` every 64 rows:
/// `Err(Spent)` when it is spent first.
pub fn transitive_closure_until(
    rel: &BitMatrix,
    cancel: &Cancel,
) -> Result<Result<BitMatrix, CycleFound>, Spent> {
    if rel.stride() == 1 {
        return Ok(closure_in_one_word(rel.clone()));
    }
    let order = match topological_order(rel) {
        Ok(order) => order,
        Err(c) => return Ok(Err(c)),
    };
    let n = rel.n();
    let mut rank = vec![0usize; n];
    for (i, &a) in order.iter().enumerate() {
        rank[a] = i;
    }
    let mut out = BitMatrix::new(n);
    let mut succs: Vec<usize> = Vec::new();
    for (i, &a) in order.iter().rev().enumerate() {
        if i.is_multiple_of(ASK_EVERY) {
            cancel.ask()?;
        }
        succs.clear();
        succs.extend(rel.succ(a));
        // Nearest successors first: their rows cover the farther ones.
        succs.sort_unstable_by_key(|&b| rank[b]);
        for &b in &succs {
            if !out.get(a, b) {
                out.set(a, b);
                out.or_row_within(a, b);
            }
        }
    }
    Ok(Ok(out))
}

/// [`transitive_closure`] of a relation given up (closed in place when its
/// rows are one word).
pub fn into_transitive_closure(rel: BitMatrix) -> Result<BitMatrix, CycleFound> {
    if rel.stride() == 1 {
        closure_in_one_word(rel)
    } else {
        transitive_closure(&rel)
    }
}

/// `rel⁺` for at most 64 elements (a row is one word), in place: Warshall's
/// algorithm on words; `CycleFound` if an element reaches itself.
fn closure_in_one_word(mut out: BitMatrix) -> Result<BitMatrix, CycleFound> {
    let rows = out.words_mut();
    // only elements with a predecessor can be passed through
    let mut entered = rows.iter().fold(0, |acc, row| acc | row);
    while entered != 0 {
        let k = entered.trailing_zeros() as usize;
        entered &= entered - 1;
        let through = rows[k];
        if through == 0 {
            continue;
        }
        // branch-free: every row that reaches k gains k's successors
        for row in rows.iter_mut() {
            *row |= through & (*row >> k & 1).wrapping_neg();
        }
    }
    if rows.iter().enumerate().any(|(a, row)| row >> a & 1 == 1) {
        return Err(CycleFound);
    }
    Ok(out)
}

/// A strict partial order kept transitively closed under edge insertion:
/// `succ` is the relation, `pred` its inverse.
#[derive(Clone, Debug)]
pub struct Reach {
    succ: BitMatrix,
    pred: BitMatrix,
    src: Vec<u64>,
    from: Vec<u64>,
    /// Rows that gained successors in the current insertion, and the gains.
    gained_rows: Vec<usize>,
    gained: Vec<u64>,
}

impl Reach {
    /// Wraps a transitively closed, irreflexive relation.
    pub fn from_closed(succ: BitMatrix) -> Reach {
        let pred = succ.transpose();
        let s = succ.stride();
        Reach {
            succ,
            pred,
            src: vec![0; s],
            from: vec![0; s],
            gained_rows: Vec::new(),
            gained: Vec::new(),
        }
    }

    /// Wraps a transitively closed, irreflexive relation and its inverse.
    pub fn from_parts(succ: BitMatrix, pred: BitMatrix) -> Reach {
        debug_assert_eq!(succ.transpose(), pred);
        let s = succ.stride();
        Reach {
            succ,
            pred,
            src: vec![0; s],
            from: vec![0; s],
            gained_rows: Vec::new(),
            gained: Vec::new(),
        }
    }

    /// Whether `a` reaches `b` (strictly).
    #[inline]
    pub fn reaches(&self, a: usize, b: usize) -> bool {
        self.succ.get(a, b)
    }

    /// The relation itself.
    pub fn succ(&self) -> &BitMatrix {
        &self.succ
    }

    /// Its inverse.
    pub fn pred(&self) -> &BitMatrix {
        &self.pred
    }

    /// Gives the relation back.
    pub fn into_succ(self) -> BitMatrix {
        self.succ
    }

    /// Adds `(a, b)` and every pair transitivity then implies. Then, for
    /// each `x` that gained successors, calls `on_new(relation, x, gained)`
    /// with exactly the gained ones (so a caller sees every new pair once) and
    /// the updated relation. Returns whether the pair was new; `CycleFound`
    /// (and no change) if `b` already reaches `a`.
    pub fn insert(
        &mut self,
        a: usize,
        b: usize,
        mut on_new: impl FnMut(&BitMatrix, usize, &[u64]),
    ) -> Result<bool, CycleFound> {
        if a == b || self.succ.get(b, a) {
            return Err(CycleFound);
        }
        if self.succ.get(a, b) {
            return Ok(false);
        }
        let s = self.succ.stride();
        let mut src = std::mem::take(&mut self.src);
        let mut from = std::mem::take(&mut self.from);
        src.copy_from_slice(self.succ.row(b));
        src[b / 64] |= 1 << (b % 64);
        from.copy_from_slice(self.pred.row(a));
        from[a / 64] |= 1 << (a % 64);
        for y in iter_ones(&src) {
            // If a already reached y, y's predecessors include a's.
            if y == b || !self.succ.get(a, y) {
                self.pred.or_row(y, &from);
            }
        }
        self.gained_rows.clear();
        self.gained.clear();
        for x in iter_ones(&from) {
            if self.succ.get(x, b) {
                continue; // x already reached b, hence all of b's successors
            }
            let row = self.succ.row_mut(x);
            self.gained_rows.push(x);
            self.gained.extend(row.iter_mut().zip(&src).map(|(r, s)| {
                let fresh = *s & !*r;
                *r |= *s;
                fresh
            }));
        }
        for (i, &x) in self.gained_rows.iter().enumerate() {
            on_new(&self.succ, x, &self.gained[i * s..(i + 1) * s]);
        }
        self.src = src;
        self.from = from;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Rng;

    fn naive_closure(m: &BitMatrix) -> BitMatrix {
        let n = m.n();
        let mut c = m.clone();
        for k in 0..n {
            for i in 0..n {
                if c.get(i, k) {
                    let row_k: Vec<usize> = c.succ(k).collect();
                    for j in row_k {
                        c.set(i, j);
                    }
                }
            }
        }
        c
    }

    #[test]
    fn closure_matches_warshall_on_random_dags() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            let n = 1 + (rng.next_u64() % 150) as usize;
            let mut m = BitMatrix::new(n);
            // a random DAG over a random permutation
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            let edges = (rng.next_u64() % (3 * n as u64 + 1)) as usize;
            for _ in 0..edges {
                let i = (rng.next_u64() % n as u64) as usize;
                let j = (rng.next_u64() % n as u64) as usize;
                if i < j {
                    m.set(perm[i], perm[j]);
                }
            }
            let c = transitive_closure(&m).expect("acyclic");
            assert_eq!(c, naive_closure(&m), "round {round}");
            if n > 1 && round % 3 == 0 {
                // close a cycle
                let (i, j) = (perm[0], perm[n - 1]);
                m.set(i, j);
                m.set(j, i);
                assert_eq!(transitive_closure(&m), Err(CycleFound));
            }
        }
    }

    #[test]
    fn incremental_insertion_matches_recomputation() {
        let mut rng = Rng::new(12345);
        for _ in 0..100 {
            let n = 2 + (rng.next_u64() % 90) as usize;
            let mut edges = BitMatrix::new(n);
            let mut reach = Reach::from_closed(BitMatrix::new(n));
            let mut seen_pairs = 0usize;
            for _ in 0..(2 * n) {
                let a = (rng.next_u64() % n as u64) as usize;
                let b = (rng.next_u64() % n as u64) as usize;
                let mut probe = edges.clone();
                probe.set(a, b);
                match transitive_closure(&probe) {
                    Ok(expected) => {
                        let mut gained = 0;
                        reach
                            .insert(a, b, |_, _, g| {
                                gained += g.iter().map(|w| w.count_ones() as usize).sum::<usize>()
                            })
                            .unwrap();
                        seen_pairs += gained;
                        edges = probe;
                        assert_eq!(reach.succ(), &expected);
                        assert_eq!(reach.pred(), &expected.transpose());
                        assert_eq!(seen_pairs, expected.count(), "each new pair reported once");
                    }
                    Err(CycleFound) => {
                        assert_eq!(reach.insert(a, b, |_, _, _| {}), Err(CycleFound));
                    }
                }
            }
        }
    }
}

/// `rel⁺` for any relation, cyclic or not: strongly connected components
/// (Tarjan, iterative) are closed as units in reverse topological order.
pub fn closure_any(rel: &BitMatrix) -> BitMatrix {
    closure_any_until(rel, &Cancel::NEVER).unwrap_or_else(|Spent| unreachable!("never spent"))
}

/// [`closure_any`] asking `cancel` every 64 rows listed and
/// components closed (and every 2¹⁶ steps of the search): `Err(Spent)` when
/// it is spent first.
pub fn closure_any_until(rel: &BitMatrix, cancel: &Cancel) -> Result<BitMatrix, Spent> {
    let n = rel.n();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut comp = vec![UNSEEN; n];
    let mut comps: Vec<Vec<usize>> = Vec::new(); // in reverse topological order
    let mut next = 0usize;
    let mut succs: Vec<Vec<usize>> = Vec::with_capacity(n);
    for a in 0..n {
        if a.is_multiple_of(ASK_EVERY) {
            cancel.ask()?;
        }
        succs.push(rel.succ(a).collect());
    }
    let mut call: Vec<(usize, usize)> = Vec::new();
    let mut steps = 0usize;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }

        call.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            steps += 1;
            if steps.is_multiple_of(1 << 16) {
                cancel.ask()?;
            }
            if *i < succs[v].len() {
                let w = succs[v][*i];
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut members = Vec::new();
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        comp[w] = comps.len();
                        members.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comps.push(members);
                }
            }
        }
    }
    let mut out = BitMatrix::new(n);
    let mut row = vec![0u64; n.div_ceil(64)];
    let mut outside: Vec<usize> = Vec::new();
    for (c, members) in comps.iter().enumerate() {
        if c.is_multiple_of(ASK_EVERY) {
            cancel.ask()?;
        }
        row.iter_mut().for_each(|w| *w = 0);
        outside.clear();
        for &m in members {
            outside.extend(succs[m].iter().copied().filter(|&s| comp[s] != c));
        }
        // A successor already in the row has its closure there too (its
        // component is closed: Tarjan emits components in reverse
        // topological order). Index order is po order within a thread, so
        // near successors tend to come first and cover the far ones.
        for &s in &outside {
            if row[s / 64] >> (s % 64) & 1 == 0 {
                row[s / 64] |= 1 << (s % 64);
                for (d, f) in row.iter_mut().zip(out.row(s)) {
                    *d |= *f;
                }
            }
        }
        if members.len() > 1 || rel.get(members[0], members[0]) {
            for &m in members {
                row[m / 64] |= 1 << (m % 64);
            }
        }
        for &m in members {
            out.or_row(m, &row);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod closure_any_tests {
    use super::*;
    use crate::gen::Rng;

    #[test]
    fn matches_warshall_on_random_cyclic_relations() {
        let mut rng = Rng::new(77);
        let mut next = || rng.next_u64();
        for _ in 0..200 {
            let n = 1 + (next() % 70) as usize;
            let mut m = BitMatrix::new(n);
            for _ in 0..(next() % (2 * n as u64 + 1)) {
                let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
                m.set(a, b);
            }
            let mut w = m.clone();
            for k in 0..n {
                for i in 0..n {
                    if w.get(i, k) {
                        let r: Vec<usize> = w.succ(k).collect();
                        for j in r {
                            w.set(i, j);
                        }
                    }
                }
            }
            assert_eq!(closure_any(&m), w);
        }
    }
}
