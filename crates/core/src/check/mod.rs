//! Checking a history: the gradual pipeline (gradual-consistency-checking)
//! that runs the polynomial models of [`crate::models`] cheapest first,
//! then completes the partial store order they computed with an engine of
//! [`crate::complete`] to decide SC, TSO and PSO; [`scale`] picks dense or
//! sparse relations by the history's size.
//!
//! Data flows one way: a model defines, an engine completes, this layer
//! orders the work; models never call an engine.

pub mod gradual;
pub mod outcome;
pub mod promise;
pub mod scale;
pub mod shrink;
pub mod trivial;

pub use gradual::{check_gradual, check_gradual_with, Options, DEFAULT_MAX_MEMORY};
pub use outcome::{Decision, MemoryLimit, Outcome, Timeout, UnknownReason, Verdict};

use crate::budget::{Cancel, Limits};
use crate::cat::Definitions;
use crate::certificate::{Pattern, Violation};
use crate::complete;
use crate::history::History;
use crate::models::{Checked, Definition, Model, StoreOrder};

impl Model {
    /// Checks this model alone (no gradual shortcut; SC/TSO/PSO with the
    /// `auto` engine and no time limit), parsing its definition for this
    /// one check: a caller checking many histories holds a [`Definitions`]
    /// and calls [`Model::check_until`].
    pub fn check(self, h: &History) -> Checked {
        self.check_until(h, &Definitions::new(), &Cancel::NEVER)
            .expect("a check that is never cancelled finishes")
    }

    /// [`Model::check`] under `cancel`: `None` when it is spent first. The
    /// store-order models ask it inside saturation and completion; the
    /// polynomial ones (stated in the relation algebra of their papers)
    /// between their steps, in their closures and in their fixpoints
    /// (`hb_o`, wSC's saturation), so that one forced far past the dense
    /// path's sizes still stops near its deadline (docs/design/gradual.md §7).
    pub fn check_until(self, h: &History, defs: &Definitions, cancel: &Cancel) -> Option<Checked> {
        let spec = match self.facts().definition {
            Definition::Check(check) => return (!cancel.spent()).then(|| check(h, cancel))?,
            Definition::Graphs(spec) => spec(h, defs),
        };
        let limits = Limits {
            cancel,
            memory: u64::MAX,
        };
        Some(
            match complete::decide(h, &spec, complete::Engine::Auto, limits).result {
                Ok(complete::Completion::Found { order, .. }) => {
                    Ok(Some(StoreOrder::total(h, &order)))
                }
                Ok(complete::Completion::TimedOut) => return None,
                Ok(_) => Err(Violation::cycle(Pattern::NoStoreOrder, Vec::new())),
                Err(v) => Err(v),
            },
        )
    }
}
