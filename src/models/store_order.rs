//! A partial store order: per variable, a relation over its non-initial writes.

use crate::history::{History, OpId};
use crate::relation::BitMatrix;

/// Per variable, the ordered pairs of its (non-initial) writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOrder {
    vars: Vec<(Vec<OpId>, BitMatrix)>,
}

impl StoreOrder {
    /// The projection of `rel` on pairs of distinct non-initial writes of one variable.
    pub fn project(h: &History, rel: &BitMatrix) -> StoreOrder {
        let vars = (0..h.vars.len())
            .map(|x| {
                let writes: Vec<OpId> = h
                    .writes_of(x)
                    .iter()
                    .copied()
                    .filter(|&w| !h.is_init(w))
                    .collect();
                let mut m = BitMatrix::new(writes.len());
                for (i, &a) in writes.iter().enumerate() {
                    for (j, &b) in writes.iter().enumerate() {
                        if i != j && rel.get(a, b) {
                            m.set(i, j);
                        }
                    }
                }
                (writes, m)
            })
            .collect();
        StoreOrder { vars }
    }

    /// A total store order given per variable (initial write first).
    pub fn total(h: &History, order: &[Vec<OpId>]) -> StoreOrder {
        let mut rel = BitMatrix::new(h.n());
        for ws in order {
            for (i, &a) in ws.iter().enumerate() {
                for &b in &ws[i + 1..] {
                    rel.set(a, b);
                }
            }
        }
        StoreOrder::project(h, &rel)
    }

    /// Whether `(a, b)` is ordered.
    pub fn contains(&self, a: OpId, b: OpId) -> bool {
        self.vars.iter().any(|(w, m)| {
            match (
                w.iter().position(|&x| x == a),
                w.iter().position(|&x| x == b),
            ) {
                (Some(i), Some(j)) => m.get(i, j),
                _ => false,
            }
        })
    }

    /// Every ordered pair `(a, b)`.
    pub fn pairs(&self) -> impl Iterator<Item = (OpId, OpId)> + '_ {
        self.vars
            .iter()
            .flat_map(|(w, m)| m.pairs().map(move |(i, j)| (w[i], w[j])))
    }

    /// Unordered pairs of writes that the order relates in one direction.
    pub fn ordered_pairs(&self) -> usize {
        self.vars
            .iter()
            .map(|(w, m)| {
                let mut k = 0;
                for i in 0..w.len() {
                    for j in i + 1..w.len() {
                        if m.get(i, j) || m.get(j, i) {
                            k += 1;
                        }
                    }
                }
                k
            })
            .sum()
    }

    /// Unordered pairs of distinct same-variable writes.
    pub fn total_pairs(&self) -> usize {
        self.vars
            .iter()
            .map(|(w, _)| w.len() * w.len().saturating_sub(1) / 2)
            .sum()
    }

    /// Fraction of same-variable write pairs ordered (1 when there are none).
    pub fn coverage(&self) -> f64 {
        let t = self.total_pairs();
        if t == 0 {
            1.0
        } else {
            self.ordered_pairs() as f64 / t as f64
        }
    }
}
