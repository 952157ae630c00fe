//! One-operation threads that cannot change a verdict (docs/reference.md,
//! "How big").
//!
//! A history of many one-operation threads has as many lanes as threads, so
//! its large-history form needs memory quadratic in them and would be
//! `unknown`. Yet most of those threads cannot matter to any model here:
//!
//! - a thread that is **one plain read** `r` of `w` (not thin air): `r` has
//!   no `po` edge, its only incoming edge is `w -wr-> r` and its outgoing
//!   ones are `r -rw-> w'` with `w` store-ordered before `w'`; a cycle
//!   through `r` gives one through `w -ww-> w'`, so every graph of every
//!   model keeps or loses its cycles without it, and a derived relation
//!   gains through it only what `w`'s own edges give (`cf`, rule 2 of
//!   `hb_r`: `w1 co r` means `w1 co w`). In a witness, `r` goes right after
//!   `w` (before every write of its variable when `w` is initial);
//! - a thread that is **one plain write** that no kept operation reads, on a
//!   variable with no `@final`: it has no outgoing `po` or `wr` edge, so no
//!   rule derives an edge out of it and it lies on no cycle; in a witness it
//!   goes last among its variable's writes;
//! - a thread that is **one fence**: it orders nothing.
//!
//! Such threads are dropped, the rest is checked, and what the check gives
//! is carried back: a violation's cycle names the same operations; a total
//! store order gets the dropped writes at the end of their variables; an SC
//! interleaving gets them back where the list above puts them. Each carried
//! certificate is validated again on the whole history. The reduction only
//! applies past [`MIN_DROPPED`] droppable threads: below, the history is
//! checked as it is.

use crate::certificate::validate;
use crate::certificate::Violation;
use crate::check::outcome::{mapped, store_model, Decision, Outcome, DERIVE_MAX_OPS};
use crate::check::shrink::restrict;
use crate::history::{History, OpId, OpKind};
use crate::models::{Model, StoreOrder};

/// Fewer droppable threads than this: the history is checked as it is.
pub const MIN_DROPPED: usize = 1024;

/// A history without its droppable one-operation threads.
pub struct Reduction {
    /// The history that is checked.
    pub sub: History,
    /// Per operation of `sub`, the operation of the whole history it is.
    pub origin: Vec<OpId>,
    /// The dropped operations.
    pub dropped: Vec<OpId>,
}

impl Reduction {
    /// The reduction of `h`, when at least `min` threads can be dropped.
    pub fn of(h: &History, min: usize) -> Option<Reduction> {
        let single = |o: OpId| {
            let t = h.ops[o].thread?;
            (h.threads[t].ops.len() == 1).then_some(o)
        };
        let mut keep = vec![true; h.n()];
        let mut dropped = Vec::new();
        for o in (0..h.n()).filter_map(single) {
            let op = &h.ops[o];
            let plain_read = op.kind == OpKind::Read && op.rmw.is_none() && h.rf(o).is_some();
            if plain_read || op.kind == OpKind::Fence {
                keep[o] = false;
                dropped.push(o);
            }
        }
        for o in (0..h.n()).filter_map(single) {
            let op = &h.ops[o];
            let observed = h.finals.iter().any(|&(x, _)| Some(x) == op.var);
            if op.kind == OpKind::Write
                && op.rmw.is_none()
                && !observed
                && h.readers(o).iter().all(|&r| !keep[r])
            {
                keep[o] = false;
                dropped.push(o);
            }
        }
        // a `@final` whose variable keeps no operation stays with its history
        let kept_var = |x| (h.vars.len()..h.n()).any(|o| keep[o] && h.ops[o].var == Some(x));
        if dropped.len() < min.max(1) || !h.finals.iter().all(|&(x, _)| kept_var(x)) {
            return None;
        }
        let (sub, origin) = restrict(h, &keep, &vec![true; h.finals.len()]);
        dropped.sort_unstable();
        Some(Reduction {
            sub,
            origin,
            dropped,
        })
    }

    /// `outcomes` of the reduced history, carried back to `h` and validated
    /// there.
    pub fn carry_back(&self, h: &History, outcomes: Vec<Outcome>) -> Vec<Outcome> {
        outcomes.into_iter().map(|o| self.outcome(h, o)).collect()
    }

    fn outcome(&self, h: &History, mut o: Outcome) -> Outcome {
        o.kernel = None;
        let placeholder = Decision::Consistent {
            store_order: None,
            interleaving: None,
        };
        let decision = std::mem::replace(&mut o.decision, placeholder);
        o.decision = match decision {
            Decision::Violation(v) => {
                let mut v = mapped(&v, &self.origin);
                if o.invalid.is_none() {
                    o.invalid = self.revalidate(h, o.model, &mut v).err();
                }
                Decision::Violation(v)
            }
            Decision::Consistent {
                store_order,
                interleaving,
            } => {
                let store_order = store_order.map(|so| self.store_order(h, o.model, so, &mut o));
                let interleaving = interleaving.map(|run| {
                    let run = self.interleaving(h, &run);
                    if o.invalid.is_none() {
                        o.invalid = validate::interleaving(h, &run).err();
                    }
                    run
                });
                Decision::Consistent {
                    store_order,
                    interleaving,
                }
            }
            unknown => unknown,
        };
        o
    }

    /// A violation of the reduced history, in `h`'s operations, validated on
    /// `h`: the reduced history must be a projection of `h` (so a violation
    /// of it is one of `h`: every model is monotone), and the cycle with its
    /// justifications is re-checked on `h` where the validator re-derives
    /// relations ([`DERIVE_MAX_OPS`]).
    fn revalidate(&self, h: &History, m: Model, v: &mut Violation) -> Result<(), String> {
        validate::projection(h, &self.sub, &self.origin)?;
        if h.n() <= DERIVE_MAX_OPS {
            validate::violation_in(h, v, store_model(m))?;
        }
        if let Some(how) = &mut v.certified_by {
            how.push_str(&format!(
                "; the history checked without its {} one-operation threads that cannot change a verdict",
                self.dropped.len()
            ));
        }
        Ok(())
    }

    /// A store order of the reduced history as one of `h`: a total one
    /// with the dropped writes last on their variables (validated on `h`),
    /// a partial one as its counts over `h`'s write pairs.
    fn store_order(&self, h: &History, m: Model, so: StoreOrder, o: &mut Outcome) -> StoreOrder {
        let StoreOrder::Total(vars) = so else {
            return StoreOrder::Counted {
                ordered: so.ordered_pairs(),
                total: h.same_var_write_pairs(),
            };
        };
        let mut order: Vec<Vec<OpId>> = (0..h.vars.len()).map(|x| vec![x]).collect();
        for ws in vars {
            for w in ws {
                let w = self.origin[w];
                order[h.var(w).expect("writes have a variable")].push(w);
            }
        }
        for &w in self.dropped.iter().filter(|&&w| h.is_write(w)) {
            order[h.var(w).expect("writes have a variable")].push(w);
        }
        let sm = store_model(m);
        if let (Some(sm), None) = (sm, &o.invalid) {
            o.invalid = validate::store_order(h, sm, &order).err();
        }
        StoreOrder::total(h, &order)
    }

    /// An SC interleaving of the reduced history as one of `h`: a dropped
    /// read right after its write (first, when it reads an initial value),
    /// dropped writes and fences last.
    fn interleaving(&self, h: &History, run: &[OpId]) -> Vec<OpId> {
        let mut after: Vec<Vec<OpId>> = vec![Vec::new(); h.n()];
        let mut first = Vec::new();
        let mut last = Vec::new();
        for &d in &self.dropped {
            match h.rf(d).filter(|_| h.is_read(d)) {
                Some(w) if h.is_init(w) => first.push(d),
                Some(w) => after[w].push(d),
                None => last.push(d),
            }
        }
        // each operation, then the dropped reads of its write (a dropped
        // write, among the last, is followed by its own dropped readers)
        let mut out = first;
        for o in run.iter().map(|&s| self.origin[s]).chain(last) {
            out.push(o);
            out.append(&mut after[o]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_gradual_with, Options, Verdict};
    use crate::gen::Rng;

    fn hist(src: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(src.as_bytes()).unwrap();
        History::from_raw(&raw[0], 0).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
    }

    /// A random history: two or three threads of a few operations over
    /// three variables (some reads stale, some RMWs, fences, sometimes a
    /// `@final`), then one-operation threads: reads of values written,
    /// writes, fences.
    fn random(rng: &mut Rng) -> String {
        let mut written: Vec<Vec<u64>> = vec![vec![0]; 3];
        let mut next = 1;
        let mut out = String::new();
        let final_x2 = rng.chance(0.2);
        let mut lines = Vec::new();
        for t in 0..2 + rng.below(2) {
            let mut line = format!("t{t}:");
            for _ in 0..1 + rng.below(4) {
                let x = rng.below(3);
                let w = &written[x];
                match rng.below(10) {
                    0..=3 => {
                        written[x].push(next);
                        line.push_str(&format!(" W(x{x},{next})"));
                        next += 1;
                    }
                    4 => line.push_str(" F"),
                    5 => {
                        let old = w[rng.below(w.len())];
                        written[x].push(next);
                        line.push_str(&format!(" U(x{x},{old},{next})"));
                        next += 1;
                    }
                    _ => line.push_str(&format!(" R(x{x},{})", w[rng.below(w.len())])),
                }
            }
            lines.push(line);
        }
        for i in 0..1 + rng.below(5) {
            let x = rng.below(3);
            let w = &written[x];
            let op = match rng.below(5) {
                0 | 1 => format!("R(x{x},{})", w[rng.below(w.len())]),
                2 | 3 => {
                    next += 1;
                    format!("W(x{x},{})", next - 1)
                }
                _ => "F".to_string(),
            };
            lines.push(format!("s{i}: {op}"));
        }
        // one-operation reads of any write (the second one of thin air: kept)
        let late: Vec<(usize, u64)> = (0..3)
            .flat_map(|x| written[x].iter().map(move |&v| (x, v)))
            .collect();
        for i in 0..rng.below(3) {
            let (x, v) = late[rng.below(late.len())];
            lines.push(format!("q{i}: R(x{x},{})", v + 1000 * u64::from(i == 1)));
        }
        // shuffle the threads: the reduction must not depend on their order
        for i in (1..lines.len()).rev() {
            lines.swap(i, rng.below(i + 1));
        }
        if final_x2 && lines.iter().any(|l| l.contains("x2")) {
            let v = written[2][rng.below(written[2].len())];
            out.push_str(&format!("@final x2={v}\n"));
        }
        out.push_str(&lines.join("\n"));
        out.push('\n');
        out
    }

    /// Checked whole and checked without its droppable threads, every model
    /// gives the same verdict, decided by the same model, and every carried
    /// certificate validates on the whole history (5,000 random histories).
    #[test]
    fn the_reduction_keeps_every_verdict() {
        let mut rng = Rng::new(23);
        let mut reduced = 0;
        let mut violations = 0;
        let opts = Options::default();
        for _ in 0..5000 {
            let text = random(&mut rng);
            let h = hist(&text);
            let Some(r) = Reduction::of(&h, 1) else {
                continue;
            };
            reduced += 1;
            let whole = check_gradual_with(&h, &Model::EVERY, &opts);
            let carried = r.carry_back(&h, check_gradual_with(&r.sub, &Model::EVERY, &opts));
            for (a, b) in whole.iter().zip(&carried) {
                assert_eq!(
                    (a.model, a.verdict(), a.decided_by),
                    (b.model, b.verdict(), b.decided_by),
                    "{text}"
                );
                assert_eq!(b.invalid, None, "{text}");
                violations += usize::from(a.verdict() == Verdict::Violation);
            }
        }
        assert!(reduced > 2000 && violations > 500, "{reduced} {violations}");
    }

    /// 100,000 one-operation threads beside a store-buffering pair: decided
    /// (SB violates SC, TSO allows it), not `unknown` for memory.
    #[test]
    fn many_one_operation_threads_are_decided() {
        let mut text = String::from("a: W(y,1) R(z,0)\nb: W(z,1) R(y,0)\n");
        for t in 0..50_000u64 {
            text.push_str(&format!(
                "w{t}: W(x{},{})\nr{t}: R(x{},{})\n",
                t % 50,
                t + 1,
                t % 50,
                t + 1
            ));
        }
        let h = hist(&text);
        let out = check_gradual_with(&h, &[Model::Sc, Model::Tso], &Options::default());
        assert_eq!(
            out[0].verdict(),
            Verdict::Violation,
            "{:?}",
            out[0].reason()
        );
        assert_eq!(
            out[1].verdict(),
            Verdict::Consistent,
            "{:?}",
            out[1].reason()
        );
        assert!(out.iter().all(|o| o.invalid.is_none()));
        // the carried witness names the whole history's writes: 1,000 per
        // x variable (y and z have one each: no pair)
        let so = out[1].store_order().expect("TSO's witness");
        assert_eq!(so.total_pairs(), 50 * (1000 * 999 / 2));
    }
}
