//! The polynomial consistency models, one file each, and the gradual
//! pipeline that runs the cheap ones first.
//!
//! Every model answers `Ok(store order)` (the partial store order it
//! computed, where it has one) or `Err(violation)` with a certificate.

mod cc;
mod ccm;
mod ccv;
mod cm;
mod common;
mod gradual;
mod hbo;
mod store_order;
mod wccm;
mod wsc;

pub use gradual::{check_gradual, Outcome, Verdict};
pub use store_order::StoreOrder;

use crate::certificate::Violation;
use crate::history::History;

/// What a model check returns: its partial store order, or a violation.
pub type Checked = Result<Option<StoreOrder>, Violation>;

/// The models, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// weak causal consistency (causal-consistency-datalog, bad patterns)
    Cc,
    /// causal convergence
    Ccv,
    /// causal memory
    Cm,
    /// convergent causal memory (gradual-consistency-checking §3.2)
    Ccm,
    /// weak convergent causal memory (gradual-consistency-checking §4.1)
    Wccm,
    /// weak sequential consistency (wsc-saturation §3)
    Wsc,
}

impl Model {
    /// Every model, in pipeline order.
    pub const ALL: [Model; 6] = [
        Model::Cc,
        Model::Ccv,
        Model::Cm,
        Model::Ccm,
        Model::Wccm,
        Model::Wsc,
    ];

    /// The command-line and CSV name.
    pub fn name(self) -> &'static str {
        match self {
            Model::Cc => "cc",
            Model::Ccv => "ccv",
            Model::Cm => "cm",
            Model::Ccm => "ccm",
            Model::Wccm => "wccm",
            Model::Wsc => "wsc",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Checks this model alone (no gradual shortcut).
    pub fn check(self, h: &History) -> Checked {
        match self {
            Model::Cc => cc::check(h).map(|()| None),
            Model::Ccv => ccv::check(h).map(|()| None),
            Model::Cm => cm::check(h).map(|()| None),
            Model::Ccm => ccm::check(h).map(Some),
            Model::Wccm => wccm::check(h).map(Some),
            Model::Wsc => wsc::check(h).map(Some),
        }
    }

    /// The weaker models this one implies, cheapest first: a violation of
    /// any of them is a violation of this one (CCM ⇒ CC, CCv, CM:
    /// gradual-consistency-checking Lemma 1; wSC ⇒ CCM: wsc-saturation Lemma 1).
    /// wCCM implies none of the causal models (it accepts a read of a
    /// po-later own write), so it stands alone.
    pub fn gradual_chain(self) -> &'static [Model] {
        match self {
            Model::Cc => &[],
            Model::Ccv | Model::Cm => &[Model::Cc],
            Model::Ccm => &[Model::Cc, Model::Ccv, Model::Cm],
            Model::Wccm => &[],
            Model::Wsc => &[Model::Cc, Model::Ccv, Model::Cm, Model::Ccm],
        }
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
