//! `ob`: ARMv8's external visibility (models::armv8), which is no
//! acyclicity graph over a guessed store order: saturate `G_loc` (internal
//! visibility, RMW atomicity, `@final`), then guess the store-order pairs
//! left, depth first, each guess re-saturated and pruned as soon as `ob`
//! over the pairs known so far is cyclic (`ob` only grows with the store
//! order). Worst case every store order `G_loc` leaves (up to `∏ₓ kₓ!`),
//! each with an `O(n²)` acyclicity test: no `2^k` dynamic programming.

use super::{Completion, Decision, Engine, Limits, Saturation};
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::{History, OpId};
use crate::models::armv8::{self, Fixed};
use crate::relation::{shortest_cycle, BitMatrix};

/// Decides ARMv8 (without `dob`) on `h`: internal visibility by saturation
/// (a cycle is a `CyclicUniproc` certificate), then `ob` over the store
/// order saturation forces (a cycle is a `CyclicOb` certificate), then the
/// search over the remaining pairs (a store order, or none: `NoStoreOrder`).
pub fn decide(h: &History, limits: Limits) -> Decision {
    let sat = match Saturation::new(h, &armv8::spec(h)) {
        Ok(s) => s,
        Err(v) => return Decision::violated(v, false),
    };
    let fixed = Fixed::of(h);
    let unordered = sat.unordered_pairs().len();
    if !armv8::ob_acyclic(h, &fixed, |a, b| sat.ordered(a, b)) {
        let parts = armv8::ob_parts(h, &fixed, |a, b| sat.ordered(a, b));
        let rels: Vec<(Rel, &BitMatrix)> = parts.iter().map(|(r, m)| (*r, m)).collect();
        let cycle = shortest_cycle(&rels).expect("ob is cyclic");
        return Decision::violated(Violation::from_cycle(Pattern::CyclicOb, cycle), false);
    }
    let result = search(h, &fixed, &sat, limits);
    Decision {
        result: Ok(result),
        engine: (unordered > 0).then_some(Engine::Enum),
        unordered_after_saturation: unordered,
        witness_only: false,
    }
}

/// Whether `ob` is acyclic with the store-order pairs `s` knows.
fn ob_ok(h: &History, fixed: &Fixed, s: &Saturation) -> bool {
    armv8::ob_acyclic(h, fixed, |a, b| s.ordered(a, b))
}

/// Depth first over the unordered store-order pairs, each guess
/// re-saturated and pruned when `ob` is cyclic; an explicit stack of forks
/// (bounded by `limits.memory`).
fn search(h: &History, fixed: &Fixed, sat: &Saturation, limits: Limits) -> Completion {
    let fork_bytes = sat.fork_bytes();
    let next = |s: &Saturation| s.unordered_pairs().first().copied();
    // the states with an alternative left: (state before the guess, the other guess)
    let mut open: Vec<(Saturation, (OpId, OpId))> = Vec::new();
    let mut cur = sat.fork();
    loop {
        if limits.spent() {
            return Completion::TimedOut;
        }
        if limits.over(open.len() as u64 * fork_bytes) {
            return Completion::OverMemory(format!(
                "the ARMv8 search held {} saturations",
                open.len()
            ));
        }
        let Some((a, b)) = next(&cur) else {
            return Completion::Found {
                order: cur.store_order(),
                interleaving: None,
            };
        };
        let mut first = cur.fork();
        if first.decide(a, b).is_ok() && ob_ok(h, fixed, &first) {
            open.push((cur, (b, a)));
            cur = first;
            continue;
        }
        let mut second = cur;
        if second.decide(b, a).is_ok() && ob_ok(h, fixed, &second) {
            cur = second;
            continue;
        }
        // back to the latest open alternative that holds
        loop {
            let Some((mut s, (x, y))) = open.pop() else {
                return Completion::Exhausted;
            };
            if s.decide(x, y).is_ok() && ob_ok(h, fixed, &s) {
                cur = s;
                break;
            }
        }
    }
}
