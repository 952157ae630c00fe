//! A relation algebra over dense bit matrices, after herd7's `.cat`
//! operators, so that a model reads as its paper states it: union `∪`,
//! intersection, difference `\`, sequence `;`, inverse `⁻¹`, restriction
//! to sets `[A] ; R ; [B]`, `∩ loc` (same variable), `⁺` — and the checks
//! `acyclic` and `irreflexive`, whose failure is a certificate: a shortest
//! cycle whose edges keep the label of the relation they come from (`L`,
//! the models' `certificate::Rel`).
//!
//! Sets are bit rows (`&[u64]`, bit `a` for element `a`); `loc` is given by
//! each element's class, as the bit row of the elements in it. Every
//! operation is word-parallel on rows; the in-place ones take the matrix by
//! value and allocate nothing.

use super::bits::iter_ones;
use super::cycle::{shortest_cycle, shortest_cycle_through, Edge};
use super::matrix::BitMatrix;
use super::reach::{
    closure_any, closure_any_until, into_transitive_closure, topological_order,
    transitive_closure_until, CycleFound, Reach,
};
use crate::budget::{Cancel, Spent};

/// A relation and the label its edges carry in a certificate.
pub type Labelled<'a, L> = (L, &'a BitMatrix);

/// A cycle of labelled edges (a certificate).
pub type Cycle<L> = Vec<Edge<L>>;

impl BitMatrix {
    /// `R ∪ S`.
    pub fn union(mut self, s: &BitMatrix) -> BitMatrix {
        self.union_with(s);
        self
    }

    /// `R \ S`.
    pub fn minus(mut self, s: &BitMatrix) -> BitMatrix {
        debug_assert_eq!(self.n(), s.n());
        for a in 0..self.n() {
            for (d, f) in self.row_mut(a).iter_mut().zip(s.row(a)) {
                *d &= !*f;
            }
        }
        self
    }

    /// `R \ S⁻¹`, pair by pair (no transpose): for a sparse `R` such as `wr`.
    pub fn minus_inv(mut self, s: &BitMatrix) -> BitMatrix {
        for a in 0..self.n() {
            for i in 0..self.stride() {
                let mut bits = self.row(a)[i];
                while bits != 0 {
                    let b = i * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if s.get(b, a) {
                        self.unset(a, b);
                    }
                }
            }
        }
        self
    }

    /// `R \ id`.
    pub fn minus_id(mut self) -> BitMatrix {
        for a in 0..self.n() {
            self.unset(a, a);
        }
        self
    }

    /// `[A] ; R ; [B]`: the pairs of `R` from `A` to `B` (only `A`'s rows
    /// are read).
    pub fn restrict(&self, a: &[u64], b: &[u64]) -> BitMatrix {
        let mut out = BitMatrix::new(self.n());
        for x in iter_ones(a) {
            for ((d, &r), &m) in out.row_mut(x).iter_mut().zip(self.row(x)).zip(b) {
                *d = r & m;
            }
        }
        out
    }

    /// `R_AB`: the projection of `R` on pairs from `A` to `B` within a class
    /// (`[A] ; R ; [B] ∩ loc`; `loc(x)` is the class of `x` as a bit row,
    /// `None`: in none). Only `A`'s rows are read.
    pub fn project<'a>(
        &self,
        a: &[u64],
        b: &[u64],
        loc: impl Fn(usize) -> Option<&'a [u64]>,
    ) -> BitMatrix {
        let mut out = BitMatrix::new(self.n());
        for x in iter_ones(a) {
            if let Some(l) = loc(x) {
                let row = out.row_mut(x).iter_mut().zip(self.row(x)).zip(b).zip(l);
                row.for_each(|(((d, &r), &m), &c)| *d = r & m & c);
            }
        }
        out
    }

    /// `R \ (A × B)`.
    pub fn minus_product(mut self, a: &[u64], b: &[u64]) -> BitMatrix {
        for x in iter_ones(a) {
            for (d, &m) in self.row_mut(x).iter_mut().zip(b) {
                *d &= !m;
            }
        }
        self
    }

    /// `R \ ((A × B) \ loc)`: the pairs of `A × B` across classes removed;
    /// `loc(x)` is the class of `x` as a bit row (`None`: in none).
    pub fn minus_product_across<'a>(
        mut self,
        a: &[u64],
        b: &[u64],
        loc: impl Fn(usize) -> Option<&'a [u64]>,
    ) -> BitMatrix {
        for x in iter_ones(a) {
            match loc(x) {
                Some(l) => {
                    for ((d, &m), &c) in self.row_mut(x).iter_mut().zip(b).zip(l) {
                        *d &= !(m & !c);
                    }
                }
                None => {
                    for (d, &m) in self.row_mut(x).iter_mut().zip(b) {
                        *d &= !m;
                    }
                }
            }
        }
        self
    }

    /// `R ∩ loc`: the pairs within a class; `loc(x)` is the class of `x` as
    /// a bit row (`None`: in none, so `x`'s row is emptied).
    pub fn same_loc<'a>(mut self, loc: impl Fn(usize) -> Option<&'a [u64]>) -> BitMatrix {
        for x in 0..self.n() {
            match loc(x) {
                Some(l) => self.and_row(x, l),
                None => self.row_mut(x).iter_mut().for_each(|d| *d = 0),
            }
        }
        self
    }

    /// `R ; S`: row `a` is the union of `S`'s rows `b` for `a R b`.
    pub fn seq(&self, s: &BitMatrix) -> BitMatrix {
        let mut out = BitMatrix::new(self.n());
        for a in 0..self.n() {
            for b in iter_ones(self.row(a)) {
                out.or_row_from(a, s, b);
            }
        }
        out
    }

    /// `R ; f` for a partial function `f` given pointwise (e.g. `wr⁻¹`,
    /// read ↦ its write): pair by pair.
    pub fn seq_fn(&self, f: impl Fn(usize) -> Option<usize>) -> BitMatrix {
        let mut out = BitMatrix::new(self.n());
        for a in 0..self.n() {
            for b in iter_ones(self.row(a)) {
                if let Some(c) = f(b) {
                    out.set(a, c);
                }
            }
        }
        out
    }

    /// `f ; R` for a partial function `f` given pointwise: row `a` is `R`'s
    /// row `f(a)`. In place when no image of `f` is in its domain (as for
    /// `wr⁻¹`, from reads to writes).
    pub fn fn_seq(f: impl Fn(usize) -> Option<usize>, mut r: BitMatrix) -> BitMatrix {
        let n = r.n();
        if (0..n).any(|a| f(a).is_some_and(|b| f(b).is_some())) {
            let mut out = BitMatrix::new(n);
            for a in 0..n {
                if let Some(b) = f(a) {
                    out.or_row_from(a, &r, b);
                }
            }
            return out;
        }
        // the rows of f's domain are read from rows outside it, then every
        // row outside it is cleared
        for a in 0..n {
            if let Some(b) = f(a) {
                r.copy_row_within(a, b);
            }
        }
        for a in (0..n).filter(|&a| f(a).is_none()) {
            r.row_mut(a).iter_mut().for_each(|d| *d = 0);
        }
        r
    }

    /// `R⁻¹`.
    pub fn inv(&self) -> BitMatrix {
        self.transpose()
    }

    /// `R⁺` of an acyclic `R`; `CycleFound` otherwise.
    pub fn plus(self) -> Result<BitMatrix, CycleFound> {
        into_transitive_closure(self)
    }

    /// `R⁺` of any `R`.
    pub fn plus_any(&self) -> BitMatrix {
        closure_any(self)
    }

    /// `R⁺` of any `R`, asking `cancel` as it goes: `Err(Spent)` when it is
    /// spent first.
    pub fn plus_any_until(&self, cancel: &Cancel) -> Result<BitMatrix, Spent> {
        closure_any_until(self, cancel)
    }
}

/// `R₁ ∪ … ∪ Rₖ` (at least one relation).
pub fn union_of<L>(parts: &[Labelled<L>]) -> BitMatrix {
    let mut out = parts[0].1.clone();
    for (_, m) in &parts[1..] {
        out.union_with(m);
    }
    out
}

/// `(R₁ ∪ … ∪ Rₖ)⁺` of an acyclic union; otherwise a shortest cycle of it.
pub fn plus_of<L: Copy>(parts: &[Labelled<L>]) -> Result<BitMatrix, Cycle<L>> {
    union_of(parts)
        .plus()
        .map_err(|_| shortest_cycle(parts).expect("the union is cyclic"))
}

/// [`plus_of`] asking `cancel` as the closure goes: `Err(Spent)` when it is
/// spent first.
pub fn plus_of_until<L: Copy>(
    parts: &[Labelled<L>],
    cancel: &Cancel,
) -> Result<Result<BitMatrix, Cycle<L>>, Spent> {
    let closed = transitive_closure_until(&union_of(parts), cancel)?;
    Ok(closed.map_err(|_| shortest_cycle(parts).expect("the union is cyclic")))
}

/// `acyclic(R₁ ∪ … ∪ Rₖ)`; a failure is a shortest cycle of the union.
pub fn acyclic<L: Copy>(parts: &[Labelled<L>]) -> Result<(), Cycle<L>> {
    acyclic_explained(parts, parts)
}

/// `acyclic(R₁ ∪ … ∪ Rₖ)`; a failure is a shortest cycle of `explain`,
/// whose union has the same transitive closure (a relation's generating
/// pairs in place of its closure, so that no edge is a bare closure pair).
pub fn acyclic_explained<L: Copy>(
    parts: &[Labelled<L>],
    explain: &[Labelled<L>],
) -> Result<(), Cycle<L>> {
    topological_order(&union_of(parts))
        .map(|_| ())
        .map_err(|_| shortest_cycle(explain).expect("the relation was found cyclic"))
}

/// `irreflexive(R ; S)` for a transitive `S` generated by `gens`: a failure
/// is the first `a R b` (by `a`, then `b`) with `b S a`, as the cycle of
/// that edge and a shortest path `b ⇝ a` in `gens`.
pub fn irreflexive_seq<L: Copy>(
    r: Labelled<L>,
    s: &BitMatrix,
    gens: &[Labelled<L>],
) -> Result<(), Cycle<L>> {
    let n = s.n();
    let first = if r.1.count() * 32 < n * n {
        // a sparse `R`: its pairs one by one
        (0..n).find_map(|a| r.1.succ(a).find(|&b| s.get(b, a)).map(|b| (a, b)))
    } else {
        // a dense one: `R`'s rows against `S⁻¹`'s, a word at a time
        let s_inv = s.inv();
        (0..n).find_map(|a| {
            let row = r.1.row(a).iter().zip(s_inv.row(a));
            let i = row.clone().position(|(x, y)| x & y != 0)?;
            let (x, y) = row.clone().nth(i)?;
            Some((a, i * 64 + (x & y).trailing_zeros() as usize))
        })
    };
    match first {
        Some((a, b)) => Err(cycle_through(gens, a, b, r.0)),
        None => Ok(()),
    }
}

/// The cycle of the edge `a -label-> b` and a shortest path `b ⇝ a` in the
/// union of `parts` (which the caller knows to exist).
pub fn cycle_through<L: Copy>(parts: &[Labelled<L>], a: usize, b: usize, label: L) -> Cycle<L> {
    shortest_cycle_through(parts, a, b, label).expect("b reaches a")
}

/// A least fixpoint (herd's `let rec`): the smallest transitive relation
/// that contains a closed base and every pair its rule derives. Evaluated
/// semi-naively: the rule sees each new pair `(x, y)` once, as
/// `rule(relation, x, fresh, derived)` with `y ∈ fresh`, and pushes what it
/// derives; the last derived pair is added first. The derived pairs are
/// kept by label for certificates.
pub struct Fixpoint<L> {
    reach: Reach,
    derived: Vec<(L, BitMatrix)>,
    work: Vec<(usize, usize, L)>,
    /// Keep a derived pair that the relation already holds (it may shorten
    /// a certificate), or drop it unseen.
    keep_implied: bool,
}

/// What a rule pushes: `(a, b, label)`.
pub type Derived<L> = Vec<(usize, usize, L)>;

impl<L: Copy + PartialEq> Fixpoint<L> {
    /// The fixpoint over a closed `base`, whose rule derives pairs labelled
    /// `labels`.
    pub fn new(base: Reach, labels: &[L], keep_implied: bool) -> Fixpoint<L> {
        let n = base.succ().n();
        Fixpoint {
            reach: base,
            derived: labels.iter().map(|&l| (l, BitMatrix::new(n))).collect(),
            work: Vec::new(),
            keep_implied,
        }
    }

    /// Queues the pair `(a, b)` derived by the rule labelled `label`.
    pub fn derive(&mut self, a: usize, b: usize, label: L) {
        self.work.push((a, b, label));
    }

    /// Shows every pair of the relation to `rule`, row by row (the seeds of
    /// a rule stated on pairs).
    pub fn apply(&mut self, mut rule: impl FnMut(&BitMatrix, usize, &[u64], &mut Derived<L>)) {
        let m = self.reach.succ();
        for x in 0..m.n() {
            rule(m, x, m.row(x), &mut self.work);
        }
    }

    /// Lets `seed` derive pairs from the relation's inverse (seeds of a rule
    /// stated from the right end of its pairs).
    pub fn seed_from_inverse(&mut self, seed: impl FnOnce(&BitMatrix, &mut Derived<L>)) {
        seed(self.reach.pred(), &mut self.work);
    }

    /// Adds the derived pairs and what follows from them until nothing is
    /// new, asking `cancel` every 16 pairs (`Err(Spent)` when it is spent
    /// first). `Ok(Err((a, b, label)))`: adding `a -label-> b` closes a cycle.
    pub fn run(
        &mut self,
        cancel: &Cancel,
        mut rule: impl FnMut(&BitMatrix, usize, &[u64], &mut Derived<L>),
    ) -> Result<Result<(), (usize, usize, L)>, Spent> {
        let mut popped = 0usize;
        while let Some((a, b, label)) = self.work.pop() {
            if popped.is_multiple_of(16) {
                cancel.ask()?;
            }
            popped += 1;
            if !self.keep_implied && self.reach.reaches(a, b) {
                continue;
            }
            let log = self.derived.iter_mut().find(|(l, _)| *l == label);
            log.expect("a label of the rule").1.set(a, b);
            let work = &mut self.work;
            if self
                .reach
                .insert(a, b, |m, x, fresh| rule(m, x, fresh, work))
                .is_err()
            {
                return Ok(Err((a, b, label)));
            }
        }
        Ok(Ok(()))
    }

    /// The cycle closed by `a -label-> b`: a shortest path `b ⇝ a` in the
    /// base's generators `gens` and the derived pairs.
    pub fn cycle_through(&self, gens: &[Labelled<L>], a: usize, b: usize, label: L) -> Cycle<L> {
        let mut parts: Vec<Labelled<L>> = gens.to_vec();
        parts.extend(self.derived.iter().map(|(l, m)| (*l, m)));
        cycle_through(&parts, a, b, label)
    }

    /// The relation so far.
    pub fn relation(&self) -> &BitMatrix {
        self.reach.succ()
    }

    /// Its inverse.
    pub fn inverse(&self) -> &BitMatrix {
        self.reach.pred()
    }

    /// Gives the relation back.
    pub fn into_relation(self) -> BitMatrix {
        self.reach.into_succ()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Rng;

    fn random(n: usize, density: u64, rng: &mut Rng) -> BitMatrix {
        let mut m = BitMatrix::new(n);
        for a in 0..n {
            for b in 0..n {
                if rng.next_u64().is_multiple_of(density) {
                    m.set(a, b);
                }
            }
        }
        m
    }

    fn random_set(n: usize, rng: &mut Rng) -> Vec<u64> {
        let mut s = vec![0u64; n.div_ceil(64)];
        for a in (0..n).filter(|_| rng.next_u64().is_multiple_of(2)) {
            s[a / 64] |= 1 << (a % 64);
        }
        s
    }

    fn has(s: &[u64], a: usize) -> bool {
        s[a / 64] >> (a % 64) & 1 == 1
    }

    /// Every operator against its pair-by-pair definition.
    #[test]
    fn operators_match_their_pairwise_definitions() {
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for n in [1, 5, 63, 64, 65, 130] {
            let (r, s) = (random(n, 7, &mut rng), random(n, 5, &mut rng));
            let (a, b) = (random_set(n, &mut rng), random_set(n, &mut rng));
            let class = |x: usize| x % 3;
            let masks: Vec<Vec<u64>> = (0..3)
                .map(|c| {
                    let mut m = vec![0u64; n.div_ceil(64)];
                    for x in (0..n).filter(|&x| class(x) == c) {
                        m[x / 64] |= 1 << (x % 64);
                    }
                    m
                })
                .collect();
            // the elements of class 2 are in no class
            let loc = |x: usize| (class(x) < 2).then(|| masks[class(x)].as_slice());
            let same = |x: usize, y: usize| class(x) < 2 && class(x) == class(y);
            let f = |x: usize| (!x.is_multiple_of(4)).then_some((x * 7) % n);
            let pairwise = |keep: &dyn Fn(usize, usize) -> bool| {
                let mut m = BitMatrix::new(n);
                for x in 0..n {
                    for y in 0..n {
                        if keep(x, y) {
                            m.set(x, y);
                        }
                    }
                }
                m
            };
            let (rr, ss) = (&r, &s);
            assert_eq!(
                r.clone().union(&s),
                pairwise(&|x, y| rr.get(x, y) || ss.get(x, y))
            );
            assert_eq!(
                r.clone().minus(&s),
                pairwise(&|x, y| rr.get(x, y) && !ss.get(x, y))
            );
            assert_eq!(
                r.clone().minus_inv(&s),
                pairwise(&|x, y| rr.get(x, y) && !ss.get(y, x))
            );
            assert_eq!(
                r.clone().minus_id(),
                pairwise(&|x, y| rr.get(x, y) && x != y)
            );
            assert_eq!(
                r.restrict(&a, &b),
                pairwise(&|x, y| rr.get(x, y) && has(&a, x) && has(&b, y))
            );
            assert_eq!(
                r.project(&a, &b, loc),
                pairwise(&|x, y| rr.get(x, y) && has(&a, x) && has(&b, y) && same(x, y))
            );
            assert_eq!(
                r.clone().minus_product(&a, &b),
                pairwise(&|x, y| rr.get(x, y) && !(has(&a, x) && has(&b, y)))
            );
            assert_eq!(
                r.clone().minus_product_across(&a, &b, loc),
                pairwise(&|x, y| rr.get(x, y) && !(has(&a, x) && has(&b, y) && !same(x, y)))
            );
            assert_eq!(
                r.clone().same_loc(loc),
                pairwise(&|x, y| rr.get(x, y) && same(x, y))
            );
            assert_eq!(
                r.seq(&s),
                pairwise(&|x, z| (0..n).any(|y| rr.get(x, y) && ss.get(y, z)))
            );
            assert_eq!(
                r.seq_fn(f),
                pairwise(&|x, z| (0..n).any(|y| rr.get(x, y) && f(y) == Some(z)))
            );
            assert_eq!(
                BitMatrix::fn_seq(f, r.clone()),
                pairwise(&|x, z| f(x).is_some_and(|y| rr.get(y, z)))
            );
            // in place: from the odd elements to the even ones
            let g = |x: usize| (x % 2 == 1).then_some(((x * 5 + 1) % n) & !1);
            assert_eq!(
                BitMatrix::fn_seq(g, r.clone()),
                pairwise(&|x, z| g(x).is_some_and(|y| rr.get(y, z)))
            );
            assert_eq!(r.inv(), pairwise(&|x, y| rr.get(y, x)));
        }
    }

    /// `acyclic` and `irreflexive_seq` fail exactly when the relation does,
    /// with a cycle of the given relations.
    #[test]
    fn checks_fail_with_a_labelled_cycle() {
        let mut rng = Rng::new(77);
        for round in 0..200 {
            let n = 2 + rng.below(40);
            let (p, q) = (
                random(n, 3 * n as u64, &mut rng),
                random(n, 4 * n as u64, &mut rng),
            );
            let parts = [('p', &p), ('q', &q)];
            let union = union_of(&parts);
            let cyclic = (0..n).any(|a| union.plus_any().get(a, a));
            match acyclic(&parts) {
                Ok(()) => assert!(!cyclic, "round {round}"),
                Err(c) => {
                    assert!(cyclic, "round {round}");
                    for (i, e) in c.iter().enumerate() {
                        assert_eq!(e.to, c[(i + 1) % c.len()].from);
                        let m = if e.label == 'p' { &p } else { &q };
                        assert!(m.get(e.from, e.to));
                    }
                }
            }
            assert_eq!(plus_of(&parts).is_ok(), !cyclic);
            if let Ok(s) = plus_of(&[('p', &p)]) {
                // a sparse and a dense R: the first witness by (a, b) either way
                for r in [q.clone(), q.clone().union(&random(n, 2, &mut rng))] {
                    let got = irreflexive_seq(('q', &r), &s, &[('p', &p)]);
                    let first = (0..n)
                        .flat_map(|a| (0..n).map(move |b| (a, b)))
                        .find(|&(a, b)| r.get(a, b) && s.get(b, a));
                    match (got, first) {
                        (Ok(()), None) => {}
                        (Err(c), Some((a, b))) => {
                            assert_eq!((c[0].from, c[0].to, c[0].label), (a, b, 'q'));
                            assert_eq!(c.last().unwrap().to, a);
                        }
                        (got, first) => panic!("{got:?} / {first:?}"),
                    }
                }
            }
        }
    }

    /// A fixpoint that derives `(a, c)` from `(a, b)` when `b + 1 == c`
    /// closes `0 → 1` into the chain's order.
    #[test]
    fn fixpoint_reaches_the_least_closed_relation() {
        let n = 70;
        let mut base = BitMatrix::new(n);
        base.set(0, 1);
        let mut fp = Fixpoint::new(Reach::from_closed(base), &['d'], false);
        let rule = |_: &BitMatrix, x: usize, fresh: &[u64], out: &mut Derived<char>| {
            for y in iter_ones(fresh).filter(|&y| y + 1 < n) {
                out.push((x, y + 1, 'd'));
            }
        };
        fp.apply(rule);
        fp.run(&Cancel::NEVER, rule).unwrap().unwrap();
        for b in 1..n {
            assert!(fp.relation().get(0, b));
        }
        fp.derive(n - 1, 0, 'd');
        let (a, b, l) = fp.run(&Cancel::NEVER, rule).unwrap().unwrap_err();
        assert_eq!((a, b, l), (n - 1, 0, 'd'));
        assert_eq!(fp.cycle_through(&[], a, b, l).len(), 2);
    }
}
