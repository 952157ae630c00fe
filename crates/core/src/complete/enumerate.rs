//! `enum`: backtracking over unordered write pairs with propagation
//! (re-saturate after each choice) — X+ENUM of gradual-consistency-checking.

use super::{Completion, Limits, Saturation};
use crate::history::OpId;
use crate::relation::topological_order;

/// Extends the saturated order pair by pair; each guess follows a linear
/// extension of the saturated first graph, its reverse is tried on conflict.
/// Each level of the search holds a fork of the saturation: the depth is
/// bounded by `limits.memory`.
pub fn complete(sat: &Saturation, pairs: &[(OpId, OpId)], limits: Limits) -> Completion {
    let rank = {
        let order = topological_order(sat.graphs().next().expect("a graph"))
            .expect("saturated graphs are acyclic");
        let mut rank = vec![0usize; order.len()];
        for (i, &o) in order.iter().enumerate() {
            rank[o] = i;
        }
        rank
    };
    let guesses: Vec<(OpId, OpId)> = pairs
        .iter()
        .map(|&(a, b)| if rank[a] < rank[b] { (a, b) } else { (b, a) })
        .collect();
    // Optimistically, the linear extension's orientation of every pair at
    // once: valid histories are usually settled by this single pass.
    let mut optimistic = sat.fork();
    if guesses
        .iter()
        .all(|&(a, b)| optimistic.ordered(b, a) || optimistic.decide(a, b).is_ok())
    {
        return Completion::Found {
            order: optimistic.store_order(),
            interleaving: None,
        };
    }
    drop(optimistic);
    search(sat, &guesses, limits)
}

/// Depth-first over the guesses, an explicit stack of forks (one per
/// open guess, so the depth is bounded by `limits.memory`, not the
/// thread's stack): a guess whose propagation fails, or whose subtree
/// does, is replaced by its reverse.
fn search(sat: &Saturation, guesses: &[(OpId, OpId)], limits: Limits) -> Completion {
    let fork_bytes = sat.fork_bytes();
    // the saturations with a guess open, each with the guess's index
    let mut open: Vec<(Saturation, usize)> = Vec::new();
    let (mut s, mut next) = (sat.fork(), 0);
    let mut steps = 0usize;
    loop {
        while next < guesses.len() && {
            let (a, b) = guesses[next];
            s.ordered(a, b) || s.ordered(b, a)
        } {
            next += 1;
        }
        let Some(&(a, b)) = guesses.get(next) else {
            return Completion::Found {
                order: s.store_order(),
                interleaving: None,
            };
        };
        steps += 1;
        if steps.is_multiple_of(64) && limits.spent() {
            return Completion::TimedOut;
        }
        let depth = open.len() as u64 + 2;
        if limits.over(depth.saturating_mul(fork_bytes)) {
            return Completion::OverMemory(format!(
                "the enum search reached depth {depth}, each level a copy of {}",
                crate::budget::human(fork_bytes)
            ));
        }
        let mut guess = s.fork();
        if guess.decide(a, b).is_ok() {
            open.push((std::mem::replace(&mut s, guess), next));
            next += 1;
            continue;
        }
        // the guess failed here or below: its reverse, else back up
        let (mut a, mut b) = (a, b);
        loop {
            if s.decide(b, a).is_ok() {
                next += 1;
                break;
            }
            let Some((parent, at)) = open.pop() else {
                return Completion::Exhausted;
            };
            (s, next) = (parent, at);
            (a, b) = guesses[next];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::validate::{self, StoreModel};
    use crate::complete::{dp, Saturation};
    use crate::gen::{threads, Memory, Rng, Shape};
    use crate::history::History;
    use crate::models::Model;
    use memconform_parsers::hist::RawOpKind;

    /// A simulated memory's history with every third read's value replaced by
    /// another value of its variable (0, the initial one, included): reads
    /// from anywhere, so saturation leaves violations to the search.
    fn scrambled(memory: Memory, shape: Shape, seed: u64) -> History {
        let mut t = threads(memory, shape, seed);
        let mut rng = Rng::new(seed);
        for op in t.iter_mut().flatten() {
            if let RawOpKind::Read { value, .. } = op {
                if rng.below(3) == 0 {
                    *value = rng.below(4) as u64;
                }
            }
        }
        // a read of a value never written is a thin-air read: keep it, the
        // saturation rejects such histories before any search
        History::from_threads(&t).expect("values stay unique per variable")
    }

    /// The search alone (no optimistic pass), on histories of every
    /// simulated memory checked for SC and TSO, agrees with the `dp` engine
    /// (an independent algorithm), its witnesses validated; under a memory
    /// limit of one byte it stops at its first guess, never answers wrong.
    #[test]
    fn the_search_agrees_with_dp_and_stops_at_the_memory_limit() {
        let defs = crate::cat::Definitions::new();
        let shape = Shape {
            threads: 3,
            ops_per_thread: 6,
            vars: 2,
            write_ratio: 0.5,
        };
        let tight = Limits {
            memory: 1,
            ..Limits::NONE
        };
        let (mut searched, mut found, mut exhausted) = (0, 0, 0);
        for seed in 0..400 {
            for memory in [Memory::Sc, Memory::Tso, Memory::Pso] {
                let h = scrambled(memory, shape, seed);
                for (m, sm) in [(Model::Sc, StoreModel::Sc), (Model::Tso, StoreModel::Tso)] {
                    let Ok(sat) = Saturation::new(&h, &m.spec(&h, &defs).unwrap()) else {
                        continue;
                    };
                    let pairs = sat.unordered_pairs();
                    if pairs.is_empty() {
                        continue;
                    }
                    searched += 1;
                    let by_dp =
                        matches!(dp::complete(&sat, Limits::NONE), Completion::Found { .. });
                    match search(&sat, &pairs, Limits::NONE) {
                        Completion::Found { order, .. } => {
                            validate::store_order(&h, sm, &order)
                                .unwrap_or_else(|e| panic!("seed {seed} {m}: {e}"));
                            assert!(by_dp, "seed {seed} {m}: dp finds none");
                            found += 1;
                        }
                        Completion::Exhausted => {
                            assert!(!by_dp, "seed {seed} {m}: dp finds one");
                            exhausted += 1;
                        }
                        other => panic!("no limit was set: {other:?}"),
                    }
                    assert!(matches!(
                        search(&sat, &pairs, tight),
                        Completion::OverMemory(_)
                    ));
                }
            }
        }
        // (saturation catches these small histories' violations first: an
        // exhausted search is rare, and dp checks each one)
        assert!(
            found > 200,
            "{searched}: {found} found, {exhausted} exhausted"
        );
    }
}
