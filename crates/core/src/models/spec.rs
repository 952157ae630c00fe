//! A model with a store order as acyclicity graphs (consistency-framework-2k
//! §3.1, §4.1): each graph's fixed relations, to which completion adds the
//! store order `ww` and `rw = wr⁻¹ ; ww`.

use crate::certificate::{Pattern, Rel};
use crate::history::History;
use crate::models::common;
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
    /// The framework's two graphs (consistency-framework-2k §4.1, validity):
    /// `G_loc = po-loc ∪ wr` (uniprocessor) and `G_mm = po-mm ∪ wre`, where
    /// `po-mm` is the model's preserved program order.
    pub fn loc_mm(h: &History, po_mm: (Rel, BitMatrix), pattern: Pattern) -> Spec {
        let wr = h.wr();
        let wre = common::wre(h, &wr);
        Spec {
            graphs: vec![
                Graph {
                    pattern: Pattern::CyclicUniproc,
                    fixed: vec![(Rel::PoLoc, common::po_loc(h)), (Rel::Wr, wr)],
                },
                Graph {
                    pattern,
                    fixed: vec![po_mm, (Rel::Wre, wre)],
                },
            ],
        }
    }
}
