//! `enum`: backtracking over unordered write pairs with propagation
//! (re-saturate after each choice) — X+ENUM of gradual-consistency-checking.

use std::time::Instant;

use super::{expired, Completion, Saturation};
use crate::history::OpId;
use crate::relation::topological_order;

/// Extends the saturated order pair by pair; each guess follows a linear
/// extension of the saturated first graph, its reverse is tried on conflict.
pub fn complete(sat: &Saturation, pairs: &[(OpId, OpId)], deadline: Option<Instant>) -> Completion {
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
    let mut steps = 0usize;
    match search(sat.fork(), &guesses, 0, deadline, &mut steps) {
        Some(Ok(done)) => Completion::Found {
            order: done.store_order(),
            interleaving: None,
        },
        Some(Err(())) => Completion::Exhausted,
        None => Completion::TimedOut,
    }
}

/// `None` on timeout; `Some(Err)` when no extension exists.
fn search<'h>(
    mut s: Saturation<'h>,
    guesses: &[(OpId, OpId)],
    mut next: usize,
    deadline: Option<Instant>,
    steps: &mut usize,
) -> Option<Result<Saturation<'h>, ()>> {
    loop {
        while next < guesses.len() && {
            let (a, b) = guesses[next];
            s.ordered(a, b) || s.ordered(b, a)
        } {
            next += 1;
        }
        let Some(&(a, b)) = guesses.get(next) else {
            return Some(Ok(s));
        };
        *steps += 1;
        if steps.is_multiple_of(64) && expired(deadline) {
            return None;
        }
        let mut guess = s.fork();
        if guess.decide(a, b).is_ok() {
            if let Ok(done) = search(guess, guesses, next + 1, deadline, steps)? {
                return Some(Ok(done));
            }
        }
        if s.decide(b, a).is_err() {
            return Some(Err(()));
        }
        next += 1;
    }
}
