//! `sat`: one Boolean per unordered write pair (`a` before `b`), solved
//! incrementally by BatSat through rustsat; acyclicity is enforced lazily: on
//! each model, a cycle of the induced graphs yields a clause forbidding that
//! cycle's choices. Learnt clauses hold for every witness, so one solver
//! answers many queries under assumptions (the SC-kernel).

use std::collections::HashMap;

use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Clause, Lit, TernaryVal};

use super::{Completion, Saturation};
use crate::budget::Cancel;
use crate::history::OpId;
use crate::relation::{shortest_cycle, topological_order, BitMatrix};

/// At most this many same-variable triangle clauses are added up front
/// (about 100 MB in the solver); past it, cycles are forbidden lazily only.
/// Without the cap, 500 writes of one variable asked for 4·10⁷ clauses and
/// 7.7 GB before the first solve.
pub const TRIANGLE_CLAUSES: usize = 1 << 20;

/// BatSat's callbacks: it stops when the token is spent (the time budget,
/// or the caller cancelled), asked at every conflict.
#[derive(Default)]
pub struct Budget {
    cancel: Cancel,
}

impl batsat::Callbacks for Budget {
    fn stop(&self) -> bool {
        self.cancel.spent()
    }
}

/// The lazy SAT encoding of "a store order extends the saturated one".
pub struct Lazy<'a, 'h> {
    sat: &'a Saturation<'h>,
    /// `var[(a, b)]`, `a < b`: true iff `a` precedes `b`
    var: HashMap<(OpId, OpId), u32>,
    solver: rustsat_batsat::Solver<Budget>,
    /// the chosen store-order pairs of the last model
    ww: BitMatrix,
}

/// The answer to one query.
pub enum Answer {
    Sat,
    Unsat,
    TimedOut,
}

impl<'a, 'h> Lazy<'a, 'h> {
    /// The encoding over the given unordered pairs, with RMW atomicity;
    /// `None` when `cancel` is spent while it is built.
    pub fn new(
        sat: &'a Saturation<'h>,
        pairs: &[(OpId, OpId)],
        cancel: &Cancel,
    ) -> Option<Lazy<'a, 'h>> {
        let h = sat.history();
        let mut lazy = Lazy {
            sat,
            var: pairs
                .iter()
                .enumerate()
                .map(|(i, &p)| (p, i as u32))
                .collect(),
            solver: rustsat_batsat::Solver::default(),
            ww: BitMatrix::new(h.n()),
        };
        lazy.solver.batsat_mut().cb_mut().cancel = cancel.clone();
        // No triangle within a variable: most cycles of a tournament are
        // such triangles, so these clauses save most lazy rounds (up to
        // TRIANGLE_CLAUSES of them).
        let mut triangles = 0;
        'vars: for x in 0..h.vars.len() {
            let ws = h.writes_of(x);
            for (i, &a) in ws.iter().enumerate() {
                if cancel.spent() {
                    return None;
                }
                for (j, &b) in ws.iter().enumerate().skip(i + 1) {
                    for &c in &ws[j + 1..] {
                        for cycle in [[(a, b), (b, c), (c, a)], [(a, c), (c, b), (b, a)]] {
                            if triangles == TRIANGLE_CLAUSES {
                                break 'vars;
                            }
                            if let Some(clause) = lazy.forbid(&cycle) {
                                lazy.solver
                                    .add_clause(clause)
                                    .expect("batsat accepts clauses");
                                triangles += 1;
                            }
                        }
                    }
                }
            }
        }
        // RMW atomicity: for an RMW write w reading from w0 and any other
        // write w' of the variable: w' before w0, or w before w'.
        for w in (0..h.n()).filter(|&w| h.is_write(w) && h.ops[w].rmw.is_some()) {
            let Some(w0) = h.ops[w].rmw.and_then(|r| h.rf(r)) else {
                continue;
            };
            let x = h.var(w).expect("writes have a variable");
            for &w2 in h.writes_of(x) {
                if w2 == w || w2 == w0 || sat.ordered(w2, w0) || sat.ordered(w, w2) {
                    continue;
                }
                let clause: Clause = [(w2, w0), (w, w2)]
                    .iter()
                    .filter_map(|&(p, q)| lazy.before(p, q))
                    .collect();
                lazy.solver
                    .add_clause(clause)
                    .expect("batsat accepts clauses");
            }
        }
        Some(lazy)
    }

    /// The clause forbidding all of `pairs` ("x before y") together, or
    /// `None` when saturation already rules one out or none is undecided.
    fn forbid(&self, pairs: &[(OpId, OpId)]) -> Option<Clause> {
        let mut clause = Clause::new();
        for &(x, y) in pairs {
            if self.sat.ordered(y, x) {
                return None;
            }
            if let Some(l) = self.before(x, y) {
                clause.add(!l);
            }
        }
        (!clause.is_empty()).then_some(clause)
    }

    /// The literal "x before y", or `None` when saturation fixed the pair.
    pub fn before(&self, x: OpId, y: OpId) -> Option<Lit> {
        if x < y {
            self.var.get(&(x, y)).map(|&v| Lit::positive(v))
        } else {
            self.var.get(&(y, x)).map(|&v| Lit::negative(v))
        }
    }

    /// Searches a store order under `assumptions`, adding cycle clauses until
    /// a model is acyclic in every graph (then `self.ww` holds its choices).
    pub fn solve(&mut self, assumptions: &[Lit], cancel: &Cancel) -> Answer {
        let h = self.sat.history();
        let n = h.n();
        loop {
            if cancel.spent() {
                return Answer::TimedOut;
            }
            match self
                .solver
                .solve_assumps(assumptions)
                .expect("batsat solves")
            {
                SolverResult::Sat => {}
                SolverResult::Unsat => return Answer::Unsat,
                SolverResult::Interrupted => return Answer::TimedOut,
            }
            let mut ww = BitMatrix::new(n);
            for (&(a, b), &v) in &self.var {
                match self.solver.lit_val(Lit::positive(v)).expect("a model") {
                    TernaryVal::False => ww.set(b, a),
                    _ => ww.set(a, b),
                };
            }
            let mut rw = BitMatrix::new(n);
            for r in (0..n).filter(|&r| h.is_read(r)) {
                let w = h.rf(r).expect("no thin-air read after saturation");
                let later: Vec<OpId> = ww.succ(w).collect();
                for w2 in later {
                    rw.set(r, w2);
                }
            }
            let mut clause: Option<Clause> = None;
            for g in self.sat.graphs() {
                let mut all = g.clone();
                all.union_with(&ww);
                all.union_with(&rw);
                if topological_order(&all).is_ok() {
                    continue;
                }
                let cycle = shortest_cycle(&[(0u8, g), (1u8, &ww), (2u8, &rw)]).expect("cyclic");
                // The cycle's chosen edges cannot all hold together.
                clause = Some(
                    cycle
                        .iter()
                        .filter_map(|e| match e.label {
                            1 => self.before(e.from, e.to).map(|l| !l),
                            2 => self.before(h.rf(e.from).expect("a read"), e.to).map(|l| !l),
                            _ => None,
                        })
                        .collect(),
                );
                break;
            }
            match clause {
                Some(c) => self.solver.add_clause(c).expect("batsat accepts clauses"),
                None => {
                    self.ww = ww;
                    return Answer::Sat;
                }
            }
        }
    }

    /// The total store order of the last model.
    pub fn order(&self) -> Vec<Vec<OpId>> {
        let h = self.sat.history();
        (0..h.vars.len())
            .map(|x| {
                let mut ws = h.writes_of(x).to_vec();
                ws.sort_by_key(|&w| {
                    h.writes_of(x)
                        .iter()
                        .filter(|&&v| self.sat.ordered(v, w) || self.ww.get(v, w))
                        .count()
                });
                ws
            })
            .collect()
    }
}

/// Completes the saturated order with a SAT solver.
pub fn complete(sat: &Saturation, pairs: &[(OpId, OpId)], cancel: &Cancel) -> Completion {
    let Some(mut lazy) = Lazy::new(sat, pairs, cancel) else {
        return Completion::TimedOut;
    };
    match lazy.solve(&[], cancel) {
        Answer::Sat => Completion::Found {
            order: lazy.order(),
            interleaving: None,
        },
        Answer::Unsat => Completion::Exhausted,
        Answer::TimedOut => Completion::TimedOut,
    }
}

/// The kernel: how many of `pairs` (unordered by saturation) are ordered the
/// same way in every witness (wsc-saturation §4), each reverse tested under
/// an assumption. `None` if the history has no witness or time runs out.
pub fn kernel(sat: &Saturation, pairs: &[(OpId, OpId)], cancel: &Cancel) -> Option<usize> {
    let mut lazy = Lazy::new(sat, pairs, cancel)?;
    if !matches!(lazy.solve(&[], cancel), Answer::Sat) {
        return None;
    }
    let mut forced = 0;
    for &(a, b) in pairs {
        let holds = lazy.ww.get(a, b);
        // the witness orders (a, b) one way; can the other way hold?
        let reverse = if holds {
            lazy.before(b, a)
        } else {
            lazy.before(a, b)
        }
        .expect("an unordered pair");
        match lazy.solve(&[reverse], cancel) {
            Answer::Unsat => forced += 1,
            Answer::Sat => {}
            Answer::TimedOut => return None,
        }
    }
    Some(forced)
}
