//! Samples of mutants for a campaign (docs/design/campaigns.md §6,
//! sampling): a seed-keyed draw that is the same every time, plain or
//! stratified by operator, so that a few large operators (swaps, deletions)
//! do not crowd out the rest.

use std::collections::BTreeMap;

use crate::{sha256_hex, Mutant};

/// The key that orders a mutant in the draw of `seed`: the SHA-256 of
/// `seed:id` (the same draw every time, and independent of the order the
/// mutants were generated in).
fn key(seed: u64, id: &str) -> String {
    sha256_hex(format!("{seed}:{id}").as_bytes())
}

/// The first `n` mutants of the draw of `seed`, by id.
pub fn plain(mut mutants: Vec<Mutant>, n: usize, seed: u64) -> Vec<Mutant> {
    mutants.sort_by_cached_key(|m| key(seed, &m.id));
    mutants.truncate(n);
    mutants.sort_by(|a, b| a.id.cmp(&b.id));
    mutants
}

/// How many of each operator's `counts` a stratified sample of `n` takes:
/// one of each operator first (when `n` reaches the number of operators;
/// else the first `n` operators in the draw of `seed`), the rest shared in
/// proportion to what each operator has left, by largest remainder (ties
/// by the draw), never more than an operator has.
pub fn allocation(
    counts: &BTreeMap<String, usize>,
    n: usize,
    seed: u64,
) -> BTreeMap<String, usize> {
    let total: usize = counts.values().sum();
    if n >= total {
        return counts.clone();
    }
    let mut ops: Vec<&String> = counts.keys().filter(|o| counts[*o] > 0).collect();
    ops.sort_by_cached_key(|o| key(seed, o));
    let mut take: BTreeMap<String, usize> = counts.keys().map(|o| (o.clone(), 0)).collect();
    if n < ops.len() {
        for o in ops.into_iter().take(n) {
            take.insert(o.clone(), 1);
        }
        return take;
    }
    for o in &ops {
        take.insert((*o).clone(), 1);
    }
    let rest = n - ops.len();
    let left: usize = ops.iter().map(|o| counts[*o] - 1).sum();
    // quotas: floor of each share, then the largest remainders
    let mut given = 0;
    let mut rem: Vec<(usize, &String)> = Vec::new();
    for o in &ops {
        let have = counts[*o] - 1;
        let exact = rest * have; // share = exact / left
        let q = exact / left.max(1);
        *take.get_mut(*o).expect("listed") += q;
        given += q;
        rem.push((exact % left.max(1), o));
    }
    // largest remainder first; the draw's order breaks ties (stable sort).
    // Fewer than ops.len() are left, one each; none is at its count (a floor
    // reaches it only when rest = left, i.e. n = total, returned above).
    rem.sort_by_key(|r| std::cmp::Reverse(r.0));
    for (_, o) in rem.into_iter().take(rest - given) {
        *take.get_mut(o).expect("listed") += 1;
    }
    take
}

/// A sample of `n` mutants stratified by operator ([`allocation`]); each
/// operator's share is the first of its mutants in the draw of `seed`.
pub fn stratified(mutants: Vec<Mutant>, n: usize, seed: u64) -> Vec<Mutant> {
    let mut by_op: BTreeMap<String, Vec<Mutant>> = BTreeMap::new();
    for m in mutants {
        by_op.entry(m.op.clone()).or_default().push(m);
    }
    let counts = by_op.iter().map(|(o, ms)| (o.clone(), ms.len())).collect();
    let take = allocation(&counts, n, seed);
    let mut out = Vec::new();
    for (op, ms) in by_op {
        out.extend(plain(ms, take[&op], seed));
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(c: &[(&str, usize)]) -> BTreeMap<String, usize> {
        c.iter().map(|(o, n)| (o.to_string(), *n)).collect()
    }

    /// The allocation against its definition, brute force over small
    /// operator sets: it sums to min(n, total), never exceeds a count,
    /// gives every operator one when n reaches their number, and each
    /// share is within one of its proportional share of the rest.
    #[test]
    fn allocation_is_proportional_with_one_of_each() {
        let mut rng = 7u64;
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) as usize
        };
        for _ in 0..3000 {
            let k = 1 + next() % 6;
            let c: BTreeMap<String, usize> = (0..k)
                .map(|i| (format!("op{i}"), 1 + next() % 40))
                .collect();
            let total: usize = c.values().sum();
            let n = next() % (total + 5);
            let seed = next() as u64;
            let a = allocation(&c, n, seed);
            assert_eq!(a.values().sum::<usize>(), n.min(total), "{c:?} {n}");
            for (o, &t) in &a {
                assert!(t <= c[o], "{o}: {t} > {}", c[o]);
            }
            if n >= total {
                assert_eq!(a, c);
                continue;
            }
            if n >= k {
                let rest = (n - k) as f64;
                let left: usize = c.values().map(|v| v - 1).sum();
                for (o, &t) in &a {
                    assert!(t >= 1, "{o} left out: {a:?}");
                    let share = rest * (c[o] - 1) as f64 / left as f64;
                    let got = (t - 1) as f64;
                    assert!(
                        (got - share).abs() < 1.0 + 1e-9,
                        "{o}: {got} for share {share:.2} in {c:?}, n {n}: {a:?}"
                    );
                }
            } else {
                assert_eq!(a.values().filter(|&&t| t == 1).count(), n);
            }
            // the same draw every time
            assert_eq!(allocation(&c, n, seed), a);
        }
    }

    /// A skewed protocol: 300 swaps and a handful of each other operator.
    /// One of each, then the 15 left by shares of what is left (299, 39, 9,
    /// 5, 3 of 355): 12.63, 1.65, 0.38, 0.21, 0.13; floors 12 and 1, and
    /// the two largest remainders (.65, .63) one more each.
    #[test]
    fn a_stratified_sample_keeps_small_operators() {
        let c = counts(&[
            ("TSW", 300),
            ("ADS", 40),
            ("TNS", 10),
            ("TDA", 6),
            ("TAT", 4),
        ]);
        let a = allocation(&c, 20, 1);
        assert_eq!(
            a,
            counts(&[("TSW", 14), ("ADS", 3), ("TNS", 1), ("TDA", 1), ("TAT", 1)])
        );
    }
}
