//! Shortest cycles in a union of labelled relations, for certificates.
//!
//! Cold path: only run once a model has found a violation.

use super::bits::{iter_ones, BitSet};
use super::matrix::BitMatrix;

/// One labelled edge of a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge<L> {
    pub from: usize,
    pub to: usize,
    pub label: L,
}

/// A shortest path from `s` to `t` (at least one edge) in the union of
/// `rels`, breadth first; labels are taken in the order of `rels`.
fn shortest_path<L: Copy>(rels: &[(L, &BitMatrix)], s: usize, t: usize) -> Option<Vec<Edge<L>>> {
    let n = rels.first()?.1.n();
    let mut visited = BitSet::new(n);
    let mut parent: Vec<Option<(usize, L)>> = vec![None; n];
    let mut queue = vec![s];
    let mut head = 0;
    let mut cand = vec![0u64; n.div_ceil(64)];
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        for &(label, m) in rels {
            for ((c, r), v) in cand.iter_mut().zip(m.row(u)).zip(visited.words()) {
                *c = *r & !*v;
            }
            for v in iter_ones(&cand) {
                if visited.contains(v) {
                    continue;
                }
                visited.insert(v);
                parent[v] = Some((u, label));
                if v == t {
                    let mut path = Vec::new();
                    let mut cur = t;
                    loop {
                        let (p, l) = parent[cur].expect("on the BFS tree");
                        path.push(Edge {
                            from: p,
                            to: cur,
                            label: l,
                        });
                        cur = p;
                        if cur == s {
                            break;
                        }
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push(v);
            }
        }
    }
    None
}

/// A shortest cycle that uses the edge `(a, b)` labelled `label`: the edge,
/// then a shortest path from `b` back to `a` in the union of `rels`.
pub fn shortest_cycle_through<L: Copy>(
    rels: &[(L, &BitMatrix)],
    a: usize,
    b: usize,
    label: L,
) -> Option<Vec<Edge<L>>> {
    let first = Edge {
        from: a,
        to: b,
        label,
    };
    if a == b {
        return Some(vec![first]);
    }
    let back = shortest_path(rels, b, a)?;
    let mut cycle = vec![first];
    cycle.extend(back);
    Some(cycle)
}

/// A short cycle in the union of `rels`, if it has one: nodes that cannot lie
/// on a cycle are peeled off (no in-edge or no out-edge left), then a shortest
/// cycle is searched from up to a few of the remaining nodes.
pub fn shortest_cycle<L: Copy>(rels: &[(L, &BitMatrix)]) -> Option<Vec<Edge<L>>> {
    let n = rels.first()?.1.n();
    let mut indeg = vec![0u32; n];
    let mut outdeg = vec![0u32; n];
    for &(_, m) in rels {
        for (a, out) in outdeg.iter_mut().enumerate() {
            for b in m.succ(a) {
                *out += 1;
                indeg[b] += 1;
            }
        }
    }
    let mut gone = BitSet::new(n);
    let mut stack: Vec<usize> = (0..n)
        .filter(|&a| indeg[a] == 0 || outdeg[a] == 0)
        .collect();
    for &a in &stack {
        gone.insert(a);
    }
    // In-edges are found through a transpose of each relation.
    let transposed: Vec<BitMatrix> = rels.iter().map(|(_, m)| m.transpose()).collect();
    while let Some(a) = stack.pop() {
        for (i, &(_, m)) in rels.iter().enumerate() {
            for b in m.succ(a) {
                indeg[b] -= 1;
                if indeg[b] == 0 && !gone.contains(b) {
                    gone.insert(b);
                    stack.push(b);
                }
            }
            for b in transposed[i].succ(a) {
                outdeg[b] -= 1;
                if outdeg[b] == 0 && !gone.contains(b) {
                    gone.insert(b);
                    stack.push(b);
                }
            }
        }
    }
    let budget = if n <= 2048 { 64 } else { 8 };
    let mut best: Option<Vec<Edge<L>>> = None;
    let alive: Vec<usize> = (0..n).filter(|&a| !gone.contains(a)).collect();
    for &s in alive.iter().take(budget) {
        if let Some(c) = shortest_path(rels, s, s) {
            if best.as_ref().is_none_or(|b| c.len() < b.len()) {
                best = Some(c);
            }
            if best.as_ref().is_some_and(|b| b.len() <= 2) {
                break;
            }
        }
    }
    if best.is_none() {
        // Every node left has an edge to another node left: walking those
        // edges must repeat a node, which lies on a cycle.
        let mut on_path = vec![usize::MAX; n];
        let mut cur = *alive.first()?;
        let mut step = 0;
        while on_path[cur] == usize::MAX {
            on_path[cur] = step;
            step += 1;
            cur = rels
                .iter()
                .flat_map(|(_, m)| m.succ(cur))
                .find(|&b| !gone.contains(b))
                .expect("a node left has a successor left");
        }
        best = shortest_path(rels, cur, cur);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_two_cycle_among_longer_ones() {
        let mut a = BitMatrix::new(6);
        let mut b = BitMatrix::new(6);
        // 0→1→2→3→0 (long) and 4→5→4 (short), labels 'a' and 'b'
        a.set(0, 1);
        a.set(1, 2);
        a.set(2, 3);
        b.set(3, 0);
        a.set(4, 5);
        b.set(5, 4);
        let c = shortest_cycle(&[('a', &a), ('b', &b)]).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].to, c[1].from);
        assert_eq!(c[1].to, c[0].from);
        let through = shortest_cycle_through(&[('a', &a), ('b', &b)], 3, 0, 'b').unwrap();
        assert_eq!(through.len(), 4);
        assert_eq!(through[0].label, 'b');
    }

    #[test]
    fn acyclic_has_no_cycle() {
        let mut a = BitMatrix::new(5);
        for i in 0..4 {
            a.set(i, i + 1);
        }
        assert!(shortest_cycle(&[((), &a)]).is_none());
    }
}
