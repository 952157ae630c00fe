//! Relations and checks shared by the model files.

use crate::certificate::{compress, Pattern, Rel, Step, Violation};
use crate::history::History;
use crate::relation::{
    iter_ones, shortest_cycle, shortest_cycle_through, transitive_closure, BitMatrix, Edge,
};

/// ThinAirRead: `wr⁻¹` must be total (every model requires it).
/// ThinAirFinal likewise: a `@final` value must have been written.
pub fn no_thin_air(h: &History) -> Result<(), Violation> {
    if let Some(r) = h.thin_air_reads().next() {
        return Err(Violation {
            pattern: Pattern::ThinAirRead,
            cycle: Vec::new(),
            ops: vec![(r, "read of a value never written")],
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
        });
    }
    Ok(())
}

/// The causal relation `co = (po ∪ wr)⁺`, or CyclicCO.
pub fn causal(h: &History, wr: &BitMatrix) -> Result<BitMatrix, Violation> {
    let mut gen = h.po().clone();
    gen.union_with(wr);
    transitive_closure(&gen)
        .map_err(|_| cycle_in(Pattern::CyclicCO, &[(Rel::Po, h.po()), (Rel::Wr, wr)]))
}

/// `R_WW`: the pairs of `rel` between distinct writes of one variable.
pub fn ww(h: &History, rel: &BitMatrix) -> BitMatrix {
    let mut out = BitMatrix::new(h.n());
    for x in 0..h.vars.len() {
        for &w in h.writes_of(x) {
            out.or_row(w, rel.row(w));
            out.and_row(w, h.writes_mask(x));
            out.unset(w, w);
        }
    }
    out
}

/// `cf[R] = R_WR ; wr⁻¹` (distinct writes), taking `wr` from `rf`
/// restricted to the pairs `keep` accepts (all of `wr`, or `wre` for `cfe`).
pub fn cf(h: &History, rel: &BitMatrix, keep: impl Fn(usize, usize) -> bool) -> BitMatrix {
    let mut out = BitMatrix::new(h.n());
    let mut reads = vec![0u64; rel.stride()];
    for x in 0..h.vars.len() {
        for &w in h.writes_of(x) {
            for ((d, a), b) in reads.iter_mut().zip(rel.row(w)).zip(h.reads_mask(x)) {
                *d = a & b;
            }
            for r in iter_ones(&reads) {
                if let Some(w2) = h.rf(r) {
                    if w2 != w && keep(w2, r) {
                        out.set(w, w2);
                    }
                }
            }
        }
    }
    out
}

/// `rw[R] = wr⁻¹ ; R_WW`.
pub fn rw(h: &History, store: &BitMatrix) -> BitMatrix {
    let mut out = BitMatrix::new(h.n());
    for r in 0..h.n() {
        if let Some(w) = h.rf(r) {
            let x = h.var(r).expect("reads have a variable");
            out.or_row(r, store.row(w));
            out.and_row(r, h.writes_mask(x));
            out.unset(r, w);
        }
    }
    out
}

/// The union of several relations.
pub fn union(rels: &[&BitMatrix]) -> BitMatrix {
    let mut out = rels[0].clone();
    for r in &rels[1..] {
        out.union_with(r);
    }
    out
}

fn to_steps(cycle: Vec<Edge<Rel>>) -> Vec<Step> {
    let steps = cycle
        .into_iter()
        .map(|e| Step {
            from: e.from,
            rel: e.label,
            to: e.to,
        })
        .collect();
    compress(steps, &[Rel::Po, Rel::Ppo, Rel::PoLoc])
}

/// A violation whose certificate is a shortest cycle of the union of `rels`
/// (which the caller knows to be cyclic).
pub fn cycle_in(pattern: Pattern, rels: &[(Rel, &BitMatrix)]) -> Violation {
    let cycle = shortest_cycle(rels).expect("the relation was found cyclic");
    Violation::cycle(pattern, to_steps(cycle))
}

/// A violation whose certificate is the edge `a -rel-> b` closed by a shortest
/// path from `b` back to `a` in the union of `rels`.
pub fn cycle_through(
    pattern: Pattern,
    rels: &[(Rel, &BitMatrix)],
    a: usize,
    b: usize,
    rel: Rel,
) -> Violation {
    let cycle = shortest_cycle_through(rels, a, b, rel).expect("b reaches a");
    Violation::cycle(pattern, to_steps(cycle))
}

/// Acyclicity of the union of `rels`, with a certificate when it fails.
pub fn acyclic(pattern: Pattern, rels: &[(Rel, &BitMatrix)]) -> Result<(), Violation> {
    acyclic_explained(pattern, rels, rels)
}

/// Acyclicity of the union of `rels`; a failure is explained by a cycle of
/// `explain`, whose union has the same transitive closure (e.g. a store
/// order's generating pairs in place of the order itself, so that no edge
/// is a bare closure pair).
pub fn acyclic_explained(
    pattern: Pattern,
    rels: &[(Rel, &BitMatrix)],
    explain: &[(Rel, &BitMatrix)],
) -> Result<(), Violation> {
    let all = union(&rels.iter().map(|(_, m)| *m).collect::<Vec<_>>());
    crate::relation::topological_order(&all)
        .map(|_| ())
        .map_err(|_| cycle_in(pattern, explain))
}

/// `po-loc`: `po` between operations on the same variable.
pub fn po_loc(h: &History) -> BitMatrix {
    let mut out = BitMatrix::new(h.n());
    for o in 0..h.n() {
        if let Some(x) = h.var(o) {
            let (po, reads, writes) = (h.po().row(o), h.reads_mask(x), h.writes_mask(x));
            for (((d, &p), &r), &w) in out.row_mut(o).iter_mut().zip(po).zip(reads).zip(writes) {
                *d = p & (r | w);
            }
        }
    }
    out
}

/// `wre`: `wr` between operations not related by `po` either way; `wr` is
/// the history's ([`History::wr`]), whose pairs are read off `rf`.
pub fn wre(h: &History, wr: &BitMatrix) -> BitMatrix {
    debug_assert_eq!(wr, &h.wr());
    let mut out = wr.clone();
    for r in 0..h.n() {
        if let Some(w) = h.rf(r).filter(|&w| wr.get(w, r)) {
            if h.po().get(w, r) || h.po().get(r, w) {
                out.unset(w, r);
            }
        }
    }
    out
}

/// At scale: for each write `w` and each sequence `q` of `f`'s graph that
/// holds `w`'s variable `v`, the first position `p` of `q` that `w`
/// reaches: `each(w, v, q, p)`.
pub(crate) fn write_frontiers(
    h: &History,
    f: &crate::relation::chains::Frontier,
    mut each: impl FnMut(u32, u32, u32, u32),
) {
    let g = f.graph();
    for w in (0..h.n()).filter(|&w| h.is_write(w)) {
        let v = h.var(w).expect("writes have a variable") as u32;
        for q in g.seqs_with(v) {
            let p = f.frontier(w as u32, g.slot_of(q));
            if p != crate::relation::chains::NONE {
                each(w as u32, v, q, p);
            }
        }
    }
}

/// The first write of `v` at or after position `p` of sequence `q`, other
/// than `w` itself: `(w, y) ∈ R_WW` for the `R` whose frontier `p` is.
pub(crate) fn first_other_write(
    g: &crate::relation::chains::ChainGraph,
    w: u32,
    v: u32,
    q: u32,
    p: u32,
) -> Option<u32> {
    match g.first_write(q, v, p) {
        Some(y) if y == w => g.first_write(q, v, p + 1),
        y => y,
    }
}
