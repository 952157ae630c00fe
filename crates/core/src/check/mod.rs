//! Checking a history: the gradual pipeline (gradual-consistency-checking)
//! that runs the polynomial models of [`crate::models`] cheapest first,
//! then completes the partial store order they computed with an engine of
//! [`crate::complete`] to decide SC, TSO and PSO; [`scale`] picks dense or
//! sparse relations by the history's size.
//!
//! Data flows one way: a model defines, an engine completes, this layer
//! orders the work; models never call an engine.

pub mod gradual;
pub mod promise;
pub mod scale;
pub mod shrink;
pub mod trivial;

pub use gradual::{check_gradual, check_gradual_with, Decision, Options, Outcome, Verdict};

use crate::budget::Limits;
use crate::certificate::{Pattern, Violation};
use crate::complete;
use crate::history::History;
use crate::models::{Checked, Definition, Model, StoreOrder};

impl Model {
    /// Checks this model alone (no gradual shortcut; SC/TSO/PSO with the
    /// `auto` engine and no time limit).
    pub fn check(self, h: &History) -> Checked {
        let spec = match self.facts().definition {
            Definition::Check(check) => return check(h),
            Definition::Graphs(spec) => spec(h),
        };
        match complete::decide(h, &spec, complete::Engine::Auto, Limits::NONE).result {
            Ok(complete::Completion::Found { order, .. }) => Ok(Some(StoreOrder::total(h, &order))),
            Ok(_) => Err(Violation::cycle(Pattern::NoStoreOrder, Vec::new())),
            Err(v) => Err(v),
        }
    }
}
