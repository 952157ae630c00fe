//! The consistency models, one file each, as the papers define them, in
//! the relation algebra of [`crate::relation::algebra`]: the polynomial
//! ones (CC … wSC) decide a history and compute a partial store order; SC,
//! TSO and PSO are given as acyclicity graphs ([`Spec`]) that the
//! completion engines ([`crate::complete`]) complete. The pipeline that
//! runs them in order is [`crate::check`]; their forms for large histories
//! are [`crate::scale`].
//!
//! Every polynomial model answers `Ok(store order)` (the partial store order
//! it computed, where it has one) or `Err(violation)` with a certificate.

pub mod cc;
pub mod ccm;
pub mod ccv;
pub mod cm;
pub mod common;
pub mod hbo;
pub mod pso;
pub mod sc;
mod spec;
mod store_order;
pub mod tso;
pub mod wccm;
pub mod wsc;

pub use spec::{Graph, Spec};
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
    /// sequential consistency
    Sc,
    /// total store order
    Tso,
    /// partial store order
    Pso,
}

impl Model {
    /// The polynomial models, in pipeline order.
    pub const ALL: [Model; 6] = [
        Model::Cc,
        Model::Ccv,
        Model::Cm,
        Model::Ccm,
        Model::Wccm,
        Model::Wsc,
    ];

    /// The models with a store order, decided by saturation and completion.
    pub const STORE: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];

    /// Every model.
    pub const EVERY: [Model; 9] = [
        Model::Cc,
        Model::Ccv,
        Model::Cm,
        Model::Ccm,
        Model::Wccm,
        Model::Wsc,
        Model::Sc,
        Model::Tso,
        Model::Pso,
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
            Model::Sc => "sc",
            Model::Tso => "tso",
            Model::Pso => "pso",
        }
    }

    /// Parses a command-line name, in any case (`sc`, `SC`).
    pub fn from_name(s: &str) -> Option<Model> {
        Model::EVERY
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
    }

    /// The acyclicity graphs of a store-order model (SC, TSO, PSO).
    pub fn spec(self, h: &History) -> Option<Spec> {
        match self {
            Model::Sc => Some(sc::spec(h)),
            Model::Tso => Some(tso::spec(h)),
            Model::Pso => Some(pso::spec(h)),
            _ => None,
        }
    }

    /// The weaker models this one implies, cheapest first: a violation of
    /// any of them is a violation of this one (CCM ⇒ CC, CCv, CM:
    /// gradual-consistency-checking Lemma 1; wSC ⇒ CCM: wsc-saturation Lemma 1).
    /// wCCM implies none of the causal models (it accepts a read of a
    /// po-later own write), so it stands alone. SC ⇒ wSC (wsc-saturation
    /// Lemma 3); TSO ⇒ wCCM (gradual-consistency-checking Lemma 3); PSO
    /// implies none of them (message passing is PSO but neither CC nor wCCM).
    pub fn gradual_chain(self) -> &'static [Model] {
        match self {
            Model::Cc => &[],
            Model::Ccv | Model::Cm => &[Model::Cc],
            Model::Ccm => &[Model::Cc, Model::Ccv, Model::Cm],
            Model::Wccm => &[],
            Model::Wsc => &[Model::Cc, Model::Ccv, Model::Cm, Model::Ccm],
            Model::Sc => &[Model::Cc, Model::Ccv, Model::Cm, Model::Ccm, Model::Wsc],
            Model::Tso => &[Model::Wccm],
            Model::Pso => &[],
        }
    }
}

impl Model {
    /// Whether this model holding implies `weaker` holds: its gradual chain,
    /// and SC ⇒ TSO ⇒ PSO (a stronger model's witness is a weaker one's:
    /// 2k-framework), TSO ⇒ wCCM.
    pub fn implies(self, weaker: Model) -> bool {
        self == weaker
            || self.gradual_chain().contains(&weaker)
            || matches!(
                (self, weaker),
                (Model::Sc, Model::Tso | Model::Pso | Model::Wccm) | (Model::Tso, Model::Pso)
            )
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
