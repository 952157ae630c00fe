//! The sets and relations the models are built from, as the papers define
//! them (gradual-consistency-checking §2–4, consistency-framework-2k §2 and
//! §4.2), in the algebra of [`crate::relation::algebra`].

use std::borrow::Cow;

use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::history::{History, OpId};
use crate::models::Halt;
use crate::relation::{plus_of_until, BitMatrix};

/// ThinAirRead and ThinAirFinal: `wr⁻¹` is total (gradual-consistency-checking Def. 1).
pub fn no_thin_air(h: &History) -> Result<(), Violation> {
    if let Some(r) = h.thin_air_reads().next() {
        return Err(Violation {
            pattern: Pattern::ThinAirRead,
            cycle: Vec::new(),
            ops: vec![(r, "read of a value never written")],
            justifications: Vec::new(),
            certified_by: None,
        });
    }
    if let Some((x, _)) = h.thin_air_finals().next() {
        return Err(Violation {
            pattern: Pattern::ThinAirFinal,
            cycle: Vec::new(),
            ops: vec![(
                h.writes_of(x)[0],
                "@final observes a value no write of this variable wrote",
            )],
            justifications: Vec::new(),
            certified_by: None,
        });
    }
    Ok(())
}

/// The sets of operations the definitions restrict relations to: `W` and
/// `R` (gradual-consistency-checking §2), and the plain writes, plain reads
/// and stores of the store-buffer models (consistency-framework-2k §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `W`: the writes, initial writes and RMW write halves included.
    W,
    /// `R`: the reads, RMW read halves included.
    R,
    /// The writes that are not an RMW's.
    PlainW,
    /// The reads that are not an RMW's.
    PlainR,
    /// The stores: the writes and both halves of every RMW.
    Store,
    /// Every read and write (not a fence).
    Any,
}

impl Kind {
    /// Whether `o` is in the set (its pairwise form).
    pub fn contains(self, h: &History, o: OpId) -> bool {
        let rmw = h.ops[o].rmw.is_some();
        match self {
            Kind::W => h.is_write(o),
            Kind::R => h.is_read(o),
            Kind::PlainW => h.is_write(o) && !rmw,
            Kind::PlainR => h.is_read(o) && !rmw,
            Kind::Store => h.is_write(o) || rmw,
            Kind::Any => h.is_write(o) || h.is_read(o),
        }
    }

    /// The set as a bit row over op ids (`W` and `R` as the history keeps them).
    pub fn set(self, h: &History) -> Cow<'_, [u64]> {
        match self {
            Kind::W => Cow::Borrowed(h.writes_set()),
            Kind::R => Cow::Borrowed(h.reads_set()),
            _ => {
                let mut out = vec![0u64; h.n().div_ceil(64)];
                for o in (0..h.n()).filter(|&o| self.contains(h, o)) {
                    out[o / 64] |= 1 << (o % 64);
                }
                Cow::Owned(out)
            }
        }
    }
}

/// `loc` (consistency-framework-2k §2): an operation's class is the
/// operations on its variable; a fence is in none.
pub fn loc<'h>(h: &'h History) -> impl Fn(OpId) -> Option<&'h [u64]> + 'h {
    move |o| h.var(o).map(|x| h.loc_mask(x))
}

/// `co = (po ∪ wr)⁺` (causal-consistency-datalog §3.2), or CyclicCO;
/// the closure asks `cancel` as it goes.
pub fn causal(h: &History, wr: &BitMatrix, cancel: &Cancel) -> Result<BitMatrix, Halt> {
    let co = plus_of_until(&[(Rel::Po, h.po()), (Rel::Wr, wr)], cancel)?;
    Ok(co.map_err(|c| Violation::from_cycle(Pattern::CyclicCO, c))?)
}

/// `R_WW \ id` (gradual-consistency-checking §3.1): `R` between distinct writes of a variable.
pub fn ww(h: &History, r: &BitMatrix) -> BitMatrix {
    let w = Kind::W.set(h);
    r.project(&w, &w, loc(h)).minus_id()
}

/// `rw[R] = wr⁻¹ ; R_WW` (gradual-consistency-checking Def. 2).
pub fn rw(h: &History, r: &BitMatrix) -> BitMatrix {
    BitMatrix::fn_seq(|o| h.rf(o), ww(h, r))
}

/// `cf[R] = R_WR ; wr⁻¹ \ id` (gradual-consistency-checking Def. 3; the two
/// writes distinct), for the `wr⁻¹` given (`cfe[R]` with `wre⁻¹`, §4.1).
pub fn cf(h: &History, r: &BitMatrix, wr_inv: impl Fn(OpId) -> Option<OpId>) -> BitMatrix {
    let (w, rd) = (Kind::W.set(h), Kind::R.set(h));
    r.project(&w, &rd, loc(h)).seq_fn(wr_inv).minus_id()
}

/// `po-loc = po ∩ loc` (gradual-consistency-checking §2).
pub fn po_loc(h: &History) -> BitMatrix {
    h.po().clone().same_loc(loc(h))
}

/// `wre = wr \ (po ∪ po⁻¹)` (gradual-consistency-checking §2; consistency-framework-2k's `rf_e`).
pub fn wre(h: &History, wr: &BitMatrix) -> BitMatrix {
    wr.clone().minus(h.po()).minus_inv(h.po())
}

/// Program-order pairs a model relaxes: `from × to`, or with `across` only
/// those between different variables.
#[derive(Debug, Clone, Copy)]
pub struct Relaxed {
    pub from: Kind,
    pub to: Kind,
    pub across: bool,
}

/// `(po \ relaxed)⁺` (consistency-framework-2k §4.2's `po-mm`): the closure
/// orders a relaxed pair again through a full fence or an RMW between them.
/// A partial fence (`F.ld`, `F.st`) is absent here: it orders none of the
/// pairs SC, TSO and wCCM relax (only `W→R`), so for them that is exact;
/// for PSO it drops `F.st`'s `W→W` (weaker: every violation is real).
pub fn preserved(h: &History, relaxed: &[Relaxed]) -> BitMatrix {
    let mut kept = h.po().clone();
    if h.ops.iter().any(|op| op.ann.partial_fence()) {
        let partial = partial_fences(h);
        let mut all = vec![0u64; h.n().div_ceil(64)];
        for o in 0..h.n() {
            all[o / 64] |= 1 << (o % 64);
        }
        kept = kept.minus_product(&all, &partial);
        kept = kept.minus_product(&partial, &all);
    }
    for r in relaxed {
        let (from, to) = (r.from.set(h), r.to.set(h));
        kept = match r.across {
            false => kept.minus_product(&from, &to),
            true => kept.minus_product_across(&from, &to, loc(h)),
        };
    }
    kept.plus().expect("po is acyclic")
}

/// A fence's kind: which earlier accesses it orders before which later
/// ones (herd7's `dmb.full`, `dmb.ld`, `dmb.st`; SPARC's `MEMBAR` masks).
/// `None` for an operation that is no fence.
pub fn fence_orders(h: &History, f: OpId) -> Option<(Kind, Option<Kind>)> {
    use memconform_parsers::hist::Ann;
    if h.ops[f].kind != crate::history::OpKind::Fence {
        return None;
    }
    Some(match h.ops[f].ann {
        // DMB ISHLD: earlier reads before every later access
        Ann::Ld => (Kind::R, None),
        // DMB ISHST: earlier writes before later writes
        Ann::St => (Kind::W, Some(Kind::W)),
        // DMB ISH (`F`): everything before everything (`None`: any access)
        _ => (Kind::Any, None),
    })
}

/// `fenced`: the pairs `(a, b)` of accesses of one thread with a fence `f`,
/// `a po f po b`, that orders `a`'s kind before `b`'s ([`fence_orders`]);
/// for the models that know fence kinds (RMO's `po-rmo`, ARMv8's `bob`).
pub fn fenced(h: &History) -> BitMatrix {
    let mut out = BitMatrix::new(h.n());
    let access = |o: OpId| h.var(o).is_some();
    for t in &h.threads {
        let ops: Vec<OpId> = t.ops.clone().collect();
        let fences: Vec<(OpId, (Kind, Option<Kind>))> = ops
            .iter()
            .filter_map(|&f| fence_orders(h, f).map(|k| (f, k)))
            .collect();
        if fences.is_empty() {
            continue;
        }
        for &a in ops.iter().filter(|&&a| access(a)) {
            for &(f, (before, after)) in &fences {
                if !before.contains(h, a) || !h.po_before(a, f) {
                    continue;
                }
                for &b in ops.iter().filter(|&&b| access(b) && h.po_before(f, b)) {
                    if after.is_none_or(|k| k.contains(h, b)) {
                        out.set(a, b);
                    }
                }
            }
        }
    }
    out
}

/// The partial fences (`F.ld`, `F.st`) as a bit row over op ids.
pub fn partial_fences(h: &History) -> Vec<u64> {
    let mut out = vec![0u64; h.n().div_ceil(64)];
    for o in (0..h.n()).filter(|&o| h.is_partial_fence(o)) {
        out[o / 64] |= 1 << (o % 64);
    }
    out
}

/// Whether `relaxed` holds the pair `(a, b)` (its pairwise form, for the
/// graphs at scale); a pair with a partial fence is relaxed (see [`preserved`]).
pub fn relaxes(h: &History, relaxed: &[Relaxed], a: OpId, b: OpId) -> bool {
    if h.is_partial_fence(a) || h.is_partial_fence(b) {
        return true;
    }
    relaxed.iter().any(|r| {
        r.from.contains(h, a) && r.to.contains(h, b) && !(r.across && h.var(a) == h.var(b))
    })
}

/// A random program of `threads` threads of `ops` operations on three
/// variables (writes, reads of 0, RMWs, fences; written values from
/// `first + 1` up), drawn from `rng`: the models' unit tests' inputs.
#[cfg(test)]
pub(crate) fn random_program(
    rng: &mut crate::gen::Rng,
    threads: usize,
    ops: usize,
    first: u64,
) -> Vec<Vec<memconform_parsers::hist::RawOpKind>> {
    use memconform_parsers::hist::RawOpKind;
    let mut next = first;
    (0..threads)
        .map(|_| {
            (0..ops)
                .map(|_| {
                    let var = format!("x{}", rng.below(3));
                    next += 1;
                    match rng.below(5) {
                        0 | 1 => RawOpKind::Write { var, value: next },
                        2 => RawOpKind::Read { var, value: 0 },
                        3 => RawOpKind::Rmw {
                            var,
                            old: 0,
                            new: next,
                        },
                        _ => RawOpKind::Fence,
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{pso, tso};
    use crate::relation::transitive_closure;

    /// `true` for (plain write, plain read).
    fn plain(h: &History, a: OpId, b: OpId) -> bool {
        h.is_write(a) && h.ops[a].rmw.is_none() && h.is_read(b) && h.ops[b].rmw.is_none()
    }

    /// `(po \ {(a, b) | relaxed(a, b)})⁺` pair by pair.
    fn relax_pairwise(h: &History, relaxed: impl Fn(OpId, OpId) -> bool) -> BitMatrix {
        let mut kept = h.po().clone();
        for (a, b) in h.po().pairs() {
            if relaxed(a, b) {
                kept.unset(a, b);
            }
        }
        transitive_closure(&kept).expect("po is acyclic")
    }

    #[test]
    fn ppo_and_po_pso_by_rows_are_the_pairwise_relaxations() {
        let mut rng = crate::gen::Rng::new(0x2545_f491_4f6c_dd1d);
        for round in 0..60 {
            let threads = 1 + round % 4;
            let ops = 2 + round % 30;
            let program = super::random_program(&mut rng, threads, ops, 1);
            let h = History::from_threads(&program).unwrap();
            assert_eq!(tso::ppo(&h), relax_pairwise(&h, |a, b| plain(&h, a, b)));
            let pso_relaxed = |a: OpId, b: OpId| {
                let plain_write = h.is_write(a) && h.ops[a].rmw.is_none();
                let plain_read = h.is_read(b) && h.ops[b].rmw.is_none();
                let other_store = (h.is_write(b) || h.ops[b].rmw.is_some()) && h.var(b) != h.var(a);
                plain_write && (plain_read || other_store)
            };
            assert_eq!(pso::po_pso(&h), relax_pairwise(&h, pso_relaxed));
            // the pairwise forms the graphs at scale use
            for (a, b) in h.po().pairs() {
                assert_eq!(tso::relaxed(&h, a, b), plain(&h, a, b), "{a} {b}");
                assert_eq!(pso::relaxed(&h, a, b), pso_relaxed(a, b), "{a} {b}");
                let w_r = h.is_write(a) && h.is_read(b);
                assert_eq!(relaxes(&h, &crate::models::wccm::RELAXED, a, b), w_r);
            }
        }
    }
}
