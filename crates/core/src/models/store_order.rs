//! A partial store order: per variable, a relation over its non-initial writes.

use crate::history::{History, OpId};
use crate::relation::BitMatrix;

/// Per variable, the ordered pairs of its (non-initial) writes: as a
/// relation (small histories), as sequences (a total order), or, at scale,
/// only counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreOrder {
    /// Per variable: its writes and the relation over their indices.
    Partial(Vec<(Vec<OpId>, BitMatrix)>),
    /// Per variable: its writes in order.
    Total(Vec<Vec<OpId>>),
    /// Only the number of ordered pairs and of all pairs (at scale).
    Counted { ordered: usize, total: usize },
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
        StoreOrder::Partial(vars)
    }

    /// A total store order given per variable (initial write first).
    pub fn total(h: &History, order: &[Vec<OpId>]) -> StoreOrder {
        StoreOrder::Total(
            order
                .iter()
                .map(|ws| ws.iter().copied().filter(|&w| !h.is_init(w)).collect())
                .collect(),
        )
    }

    /// Whether `(a, b)` is ordered (never, for a counted order).
    pub fn contains(&self, a: OpId, b: OpId) -> bool {
        match self {
            StoreOrder::Partial(vars) => vars.iter().any(|(w, m)| {
                match (
                    w.iter().position(|&x| x == a),
                    w.iter().position(|&x| x == b),
                ) {
                    (Some(i), Some(j)) => m.get(i, j),
                    _ => false,
                }
            }),
            StoreOrder::Total(vars) => vars.iter().any(|w| {
                match (
                    w.iter().position(|&x| x == a),
                    w.iter().position(|&x| x == b),
                ) {
                    (Some(i), Some(j)) => i < j,
                    _ => false,
                }
            }),
            StoreOrder::Counted { .. } => false,
        }
    }

    /// Every ordered pair `(a, b)` (none listed for a counted order).
    pub fn pairs(&self) -> Box<dyn Iterator<Item = (OpId, OpId)> + '_> {
        match self {
            StoreOrder::Partial(vars) => Box::new(
                vars.iter()
                    .flat_map(|(w, m)| m.pairs().map(move |(i, j)| (w[i], w[j]))),
            ),
            StoreOrder::Total(vars) => Box::new(vars.iter().flat_map(|w| {
                (0..w.len()).flat_map(move |i| (i + 1..w.len()).map(move |j| (w[i], w[j])))
            })),
            StoreOrder::Counted { .. } => Box::new(std::iter::empty()),
        }
    }

    /// Unordered pairs of writes that the order relates in one direction.
    pub fn ordered_pairs(&self) -> usize {
        let vars = match self {
            StoreOrder::Partial(vars) => vars,
            StoreOrder::Total(_) => return self.total_pairs(),
            StoreOrder::Counted { ordered, .. } => return *ordered,
        };
        vars.iter()
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
        let k = |n: usize| n * n.saturating_sub(1) / 2;
        match self {
            StoreOrder::Partial(vars) => vars.iter().map(|(w, _)| k(w.len())).sum(),
            StoreOrder::Total(vars) => vars.iter().map(|w| k(w.len())).sum(),
            StoreOrder::Counted { total, .. } => *total,
        }
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
