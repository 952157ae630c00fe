//! A model with a store order as acyclicity graphs (consistency-framework-2k
//! §3.1, §4.1): each graph's fixed relations, to which completion adds the
//! store order `ww` and `rw = wr⁻¹ ; ww`; read off the model's definition
//! (crate::cat::defs) by [`Spec::of_definition`] (ARMv8's are the
//! framework's graphs, stated in models::armv8).

use crate::cat::{self, Axiom, Check, Expr, Interp, Stmt};
use crate::certificate::{Pattern, Rel};
use crate::history::History;
use crate::relation::BitMatrix;

/// One acyclicity condition: `fixed ∪ ww ∪ rw` must be acyclic.
pub struct Graph {
    pub pattern: Pattern,
    pub fixed: Vec<(Rel, BitMatrix)>,
}

/// A model with a store order: its acyclicity graphs.
pub struct Spec {
    pub graphs: Vec<Graph>,
}

impl Spec {
    /// The acyclicity graphs a store-order model's definition states
    /// ([`crate::cat::defs`]): each `acyclic` check of a union with `ww`
    /// and `rw = wr⁻¹ ; ww`, the other parts interpreted as its fixed
    /// relations, in order, labelled by their names.
    pub fn of_definition(h: &History, def: &cat::Definition) -> Spec {
        let mut interp = Interp::new(h, def, None);
        let mut graphs = Vec::new();
        for s in &def.stmts {
            let Stmt::Check {
                forall: false,
                check: Check::Acyclic,
                expr: Expr::Union(parts),
                axiom: Axiom::Pattern(pattern),
            } = s
            else {
                continue;
            };
            let ww = Expr::Base(cat::BaseRel::Ww);
            let rw = Expr::Named("rw".into(), false);
            if !parts.contains(&ww) || !parts.contains(&rw) {
                continue;
            }
            let fixed = parts
                .iter()
                .filter(|&e| *e != ww && *e != rw)
                .map(|e| {
                    let name = cat::eval::label(e);
                    let rel =
                        cat::rel_named(&name).unwrap_or_else(|| panic!("`{name}` labels no edge"));
                    let m = match by_hand(def.name, &name) {
                        Some(form) => form(h),
                        None => interp.expr(e, None),
                    };
                    (rel, m)
                })
                .collect();
            graphs.push(Graph {
                pattern: *pattern,
                fixed,
            });
        }
        Spec { graphs }
    }
}

/// A relation a model's definition names, computed by hand.
pub type ByHand = fn(&History) -> BitMatrix;

/// The relations of the store-order models' definitions that are also
/// written by hand, in one pass over program order (`(definition, name,
/// form)`, the definition named as [`crate::cat::defs`] names it):
/// [`Spec::of_definition`] takes these instead of interpreting the
/// definition's lines (on histories of a few operations, interpreting them
/// was a fifth of a PSO check), and `cat::tests` holds each equal to its
/// definition on every sampled history.
pub const BY_HAND: [(&str, &str, ByHand); 9] = {
    use crate::models::{common, pso, rmo, tso};
    fn wre(h: &History) -> BitMatrix {
        common::wre(h, &h.wr())
    }
    [
        ("tso", "ppo", tso::ppo),
        ("tso", "po-loc", common::po_loc),
        ("tso", "wre", wre),
        ("pso", "po-pso", pso::po_pso),
        ("pso", "po-loc", common::po_loc),
        ("pso", "wre", wre),
        ("rmo", "po-rmo", rmo::po_rmo),
        ("rmo", "po-loc", rmo::po_loc_llh),
        ("rmo", "wre", wre),
    ]
};

/// The form by hand of the relation `name` of the definition `def`, if
/// there is one ([`BY_HAND`]).
pub fn by_hand(def: &str, name: &str) -> Option<ByHand> {
    BY_HAND
        .iter()
        .find(|(d, n, _)| *d == def && *n == name)
        .map(|&(_, _, form)| form)
}
