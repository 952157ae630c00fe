//! SC, sequential consistency: some store order `ww` makes
//! `po ∪ wr ∪ ww ∪ rw` acyclic (gradual-consistency-checking §2), with RMW
//! atomicity and `@final` observations.

use crate::cat::Definitions;
use crate::history::History;
use crate::models::{Model, Spec};

/// SC's one acyclicity graph, `po ∪ wr ∪ ww ∪ rw`, as its definition
/// states it (crate::cat::defs, gradual-consistency-checking §2;
/// consistency-framework-2k §4.2: `po-sc = po`, `rf-sc = rf`, so `G_loc` is implied).
pub fn spec(h: &History, defs: &Definitions) -> Spec {
    Spec::of_definition(h, defs.get(Model::Sc))
}
