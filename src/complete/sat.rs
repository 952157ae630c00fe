//! `sat`: one Boolean per unordered write pair (`a` before `b`), solved
//! incrementally by BatSat through rustsat; acyclicity is enforced lazily: on
//! each model, a cycle of the induced graphs yields a clause forbidding that
//! cycle's choices.

use std::collections::HashMap;
use std::time::Instant;

use rustsat::solvers::{Solve, SolverResult};
use rustsat::types::{Clause, Lit, TernaryVal};

use super::{expired, Completion, Saturation};
use crate::history::OpId;
use crate::relation::{shortest_cycle, topological_order, BitMatrix};

/// Pair choices: `var[(a, b)]` true iff `a` precedes `b` (`a < b`).
struct Choices {
    var: HashMap<(OpId, OpId), u32>,
}

impl Choices {
    /// The literal "x before y", or `None` when saturation fixed the pair.
    fn before(&self, x: OpId, y: OpId) -> Option<Lit> {
        if x < y {
            self.var.get(&(x, y)).map(|&v| Lit::positive(v))
        } else {
            self.var.get(&(y, x)).map(|&v| Lit::negative(v))
        }
    }
}

/// Completes the saturated order with a SAT solver.
pub fn complete(sat: &Saturation, pairs: &[(OpId, OpId)], deadline: Option<Instant>) -> Completion {
    let h = sat.history();
    let n = h.n();
    let choices = Choices {
        var: pairs
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, i as u32))
            .collect(),
    };
    let mut solver = rustsat_batsat::BasicSolver::default();
    // RMW atomicity: for an RMW write w reading from w0 and any other write
    // w' of the variable: w' before w0, or w before w'.
    for w in (0..n).filter(|&w| h.is_write(w) && h.ops[w].rmw.is_some()) {
        let Some(w0) = h.ops[w].rmw.and_then(|r| h.rf(r)) else {
            continue;
        };
        let x = h.var(w).expect("writes have a variable");
        for &w2 in h.writes_of(x) {
            if w2 == w || w2 == w0 {
                continue;
            }
            let a = known_or(sat, &choices, w2, w0);
            let b = known_or(sat, &choices, w, w2);
            if a == Some(true) || b == Some(true) {
                continue;
            }
            let clause: Clause = [(w2, w0), (w, w2)]
                .iter()
                .filter_map(|&(p, q)| choices.before(p, q))
                .collect();
            if clause.is_empty() {
                return Completion::Exhausted; // saturation would have caught it
            }
            solver.add_clause(clause).expect("batsat accepts clauses");
        }
    }
    loop {
        if expired(deadline) {
            return Completion::TimedOut;
        }
        match solver.solve().expect("batsat solves") {
            SolverResult::Sat => {}
            SolverResult::Unsat => return Completion::Exhausted,
            SolverResult::Interrupted => return Completion::TimedOut,
        }
        let mut ww = BitMatrix::new(n);
        for (&(a, b), &v) in &choices.var {
            match solver.lit_val(Lit::positive(v)).expect("a model") {
                TernaryVal::False => ww.set(b, a),
                _ => ww.set(a, b),
            };
        }
        let mut rw = BitMatrix::new(n);
        for r in (0..n).filter(|&r| h.is_read(r)) {
            let w = h.rf(r).expect("no thin-air read after saturation");
            for w2 in ww.succ(w).collect::<Vec<_>>() {
                rw.set(r, w2);
            }
        }
        let mut blocked = false;
        for g in sat.graphs() {
            let mut all = g.clone();
            all.union_with(&ww);
            all.union_with(&rw);
            if topological_order(&all).is_ok() {
                continue;
            }
            let cycle = shortest_cycle(&[(0u8, g), (1u8, &ww), (2u8, &rw)]).expect("cyclic");
            // The cycle's chosen edges cannot all hold together.
            let clause: Clause = cycle
                .iter()
                .filter_map(|e| match e.label {
                    1 => choices.before(e.from, e.to).map(|l| !l),
                    2 => choices
                        .before(h.rf(e.from).expect("a read"), e.to)
                        .map(|l| !l),
                    _ => None,
                })
                .collect();
            solver.add_clause(clause).expect("batsat accepts clauses");
            blocked = true;
            break;
        }
        if !blocked {
            let order = (0..h.vars.len())
                .map(|x| {
                    let mut ws = h.writes_of(x).to_vec();
                    ws.sort_by_key(|&w| {
                        h.writes_of(x)
                            .iter()
                            .filter(|&&v| sat.ordered(v, w) || ww.get(v, w))
                            .count()
                    });
                    ws
                })
                .collect();
            return Completion::Found {
                order,
                interleaving: None,
            };
        }
    }
}

/// Whether saturation already decided "x before y" (Some(true)), its reverse
/// (Some(false)), or neither (None).
fn known_or(sat: &Saturation, choices: &Choices, x: OpId, y: OpId) -> Option<bool> {
    if sat.ordered(x, y) {
        Some(true)
    } else if sat.ordered(y, x) {
        Some(false)
    } else {
        let _ = choices;
        None
    }
}
