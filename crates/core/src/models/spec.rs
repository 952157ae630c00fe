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
                    (rel, interp.expr(e, None))
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
