//! A definition-level decision of SC, TSO and PSO for small histories, for
//! the validator: every total store order (per variable, a permutation of
//! its writes after the initial one) is tried against the model's
//! axiomatic definition ([`super::witness::store_order`]: the acyclicity
//! graphs with `ww` and `rw`, RMW atomicity, `@final`). It shares no code
//! with the engines (no saturation, no search): a violation with no cycle
//! (`NoStoreOrder`) is confirmed only when no store order at all works.

use super::witness::{self, StoreModel};
use crate::history::{History, OpId};

/// The largest history brute force decides, in operations the input gave
/// (an RMW counts twice).
pub const MAX_OPS: usize = 24;

/// The most store orders brute force tries: what bounds its time (each is
/// one linear check; 200,000 of them take well under a second at 24
/// operations).
pub const MAX_ORDERS: u64 = 200_000;

/// What brute force found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Brute {
    /// A store order the model accepts (per variable, initial write first).
    Consistent(Vec<Vec<OpId>>),
    /// No store order works: the model is violated; how many were tried.
    Violated { orders: u64 },
    /// Too large to decide by brute force: why.
    TooLarge(String),
}

/// Decides `model` on `h` by trying every store order.
pub fn decide(h: &History, model: StoreModel) -> Brute {
    let ops = h.n_thread_ops();
    if ops > MAX_OPS {
        return Brute::TooLarge(format!(
            "{ops} operations, over the {MAX_OPS} brute force decides"
        ));
    }
    let nv = h.vars.len();
    let mut orders: u64 = 1;
    for x in 0..nv {
        for k in 1..h.writes_of(x).len() as u64 {
            orders = orders.saturating_mul(k);
        }
    }
    if orders > MAX_ORDERS {
        return Brute::TooLarge(format!(
            "{orders} store orders, over the {MAX_ORDERS} brute force tries"
        ));
    }
    // per variable, the non-initial writes in lexicographic permutation order
    let mut perms: Vec<Vec<OpId>> = (0..nv).map(|x| h.writes_of(x)[1..].to_vec()).collect();
    for p in &mut perms {
        p.sort_unstable();
    }
    let mut tried = 0u64;
    loop {
        tried += 1;
        let order: Vec<Vec<OpId>> = (0..nv)
            .map(|x| std::iter::once(x).chain(perms[x].iter().copied()).collect())
            .collect();
        if witness::store_order(h, model, &order).is_ok() {
            return Brute::Consistent(order);
        }
        // the next combination: an odometer of per-variable permutations
        let mut x = 0;
        loop {
            if x == nv {
                return Brute::Violated { orders: tried };
            }
            if next_permutation(&mut perms[x]) {
                break;
            }
            // wrapped around to the first (sorted) permutation: carry
            x += 1;
        }
    }
}

/// The next permutation in lexicographic order; `false` (and the first,
/// sorted, permutation) after the last.
fn next_permutation(p: &mut [OpId]) -> bool {
    if p.len() < 2 {
        return false;
    }
    let mut i = p.len() - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        p.reverse();
        return false;
    }
    let mut j = p.len() - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_visited_once() {
        let mut p = vec![1, 2, 3, 4];
        let mut seen = std::collections::HashSet::new();
        seen.insert(p.clone());
        while next_permutation(&mut p) {
            assert!(seen.insert(p.clone()));
        }
        assert_eq!(seen.len(), 24);
        assert_eq!(p, vec![1, 2, 3, 4]);
    }

    fn hist(text: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).expect("parses");
        History::from_raw(&raw[0], 0).expect("valid")
    }

    #[test]
    fn store_buffering_is_decided_by_brute_force() {
        let sb = hist("t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
        assert!(matches!(
            decide(&sb, StoreModel::Sc),
            Brute::Violated { .. }
        ));
        assert!(matches!(decide(&sb, StoreModel::Tso), Brute::Consistent(_)));
    }
}
