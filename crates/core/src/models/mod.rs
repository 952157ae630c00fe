//! The consistency models. Each is stated once in [`crate::cat::defs`]
//! (docs/design/definitions.md); the files here are their engines, one
//! file each, in the relation algebra of [`crate::relation::algebra`] and
//! tested equal to the definitions (SC, TSO, PSO and RMO's graphs are read
//! off them, [`Spec::of_definition`]): the polynomial
//! ones (CC … wSC) decide a history and compute a partial store order; SC,
//! TSO and PSO are given as acyclicity graphs ([`Spec`]) that the
//! completion engines ([`crate::complete`]) complete. Their facts (names,
//! gradual chains, implications, store orders, costs) are one table,
//! [`facts::FACTS`]. The pipeline that runs them in order is
//! [`crate::check`]; their forms for large histories are [`crate::scale`].
//!
//! Every polynomial model answers `Ok(store order)` (the partial store order
//! it computed, where it has one) or `Err(violation)` with a certificate.
//!
//! The model files cite their papers by short name and section:
//!
//! - `causal-consistency-datalog`: R. Zennou, R. Biswas, A. Bouajjani,
//!   C. Enea, M. Erradi, *Checking Causal Consistency of Distributed
//!   Databases* (NETYS 2019, extended version): CC, CCv, CM as bad patterns;
//!   `hb_o` and its Theorem 2.
//! - `gradual-consistency-checking`: R. Zennou, A. Bouajjani, C. Enea,
//!   M. Erradi, *Gradual Consistency Checking* (CAV 2019): CCM, wCCM, and
//!   the relational SC and TSO.
//! - `wsc-saturation`: R. Zennou, M. F. Atig, R. Biswas, A. Bouajjani,
//!   C. Enea, M. Erradi, *Boosting Sequential Consistency Checking using
//!   Saturation* (ATVA 2020): wSC and the kernel.
//! - `consistency-framework-2k`: P. Chini, P. Saivasan, *A Framework for
//!   Consistency Algorithms* (FSTTCS 2020): SC, TSO, PSO and RMO as two
//!   acyclicity graphs, decided in O*(2^k).
//! - herd7's `aarch64.cat` (the ARMv8 ARM B2.3 axiomatic model): ARMv8,
//!   without its dependency relation `dob`.

pub mod armv8;
pub mod cc;
pub mod ccm;
pub mod ccv;
pub mod cm;
pub mod common;
pub mod facts;
pub mod hbo;
pub mod pso;
pub mod rmo;
pub mod sc;
pub(crate) mod spec;
mod store_order;
pub mod tso;
pub mod wccm;
pub mod wsc;

pub use facts::{Definition, Facts, Store};
pub use spec::{Graph, Spec};
pub use store_order::StoreOrder;

use crate::certificate::Violation;
use crate::history::History;

/// What a model check returns: its partial store order, or a violation.
pub type Checked = Result<Option<StoreOrder>, Violation>;

/// Why a polynomial model's check ended early: a violation, or its
/// caller's token spent first (no verdict; [`crate::budget::Cancel`]).
#[derive(Debug)]
pub enum Halt {
    Violation(Violation),
    Spent,
}

impl From<Violation> for Halt {
    fn from(v: Violation) -> Halt {
        Halt::Violation(v)
    }
}

impl From<crate::budget::Spent> for Halt {
    fn from(_: crate::budget::Spent) -> Halt {
        Halt::Spent
    }
}

/// A check's answer from its steps' result: `None` when the token was
/// spent first.
pub fn answer<T>(r: Result<T, Halt>) -> Option<Result<T, Violation>> {
    match r {
        Ok(t) => Some(Ok(t)),
        Err(Halt::Violation(v)) => Some(Err(v)),
        Err(Halt::Spent) => None,
    }
}

/// The models, cheapest first (their facts: [`facts::FACTS`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// weak causal consistency
    Cc,
    /// causal convergence
    Ccv,
    /// causal memory
    Cm,
    /// convergent causal memory
    Ccm,
    /// weak convergent causal memory
    Wccm,
    /// weak sequential consistency
    Wsc,
    /// sequential consistency
    Sc,
    /// total store order
    Tso,
    /// partial store order
    Pso,
    /// relaxed memory order (SPARC RMO; fences by kind)
    Rmo,
    /// ARMv8 without dependencies (weaker than ARMv8: its violations are real)
    Armv8,
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
    pub const STORE: [Model; 5] = [Model::Sc, Model::Tso, Model::Pso, Model::Rmo, Model::Armv8];

    /// The models checked when none is named (`--models all`): every model
    /// but the weak ISAs' (RMO, ARMv8), which run when named.
    pub const DEFAULT: [Model; 9] = [
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

    /// The weak ISAs' models (`--models weak`).
    pub const WEAK: [Model; 2] = [Model::Rmo, Model::Armv8];

    /// Every model.
    pub const EVERY: [Model; 11] = [
        Model::Cc,
        Model::Ccv,
        Model::Cm,
        Model::Ccm,
        Model::Wccm,
        Model::Wsc,
        Model::Sc,
        Model::Tso,
        Model::Pso,
        Model::Rmo,
        Model::Armv8,
    ];

    /// This model's facts.
    pub fn facts(self) -> &'static Facts {
        &facts::FACTS[self as usize]
    }

    /// The command-line and CSV name.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// Parses a command-line name, in any case (`sc`, `SC`).
    pub fn from_name(s: &str) -> Option<Model> {
        Model::EVERY
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
    }

    /// The acyclicity graphs of a store-order model (SC, TSO, PSO, RMO,
    /// ARMv8), read off its definition in `defs`.
    pub fn spec(self, h: &History, defs: &crate::cat::Definitions) -> Option<Spec> {
        match self.facts().definition {
            Definition::Graphs(spec) => Some(spec(h, defs)),
            Definition::Check(_) => None,
        }
    }

    /// The weaker models this one implies, cheapest first: a violation of
    /// any of them is a violation of this one ([`Facts::chain`]).
    pub fn gradual_chain(self) -> &'static [Model] {
        self.facts().chain
    }

    /// Whether this model holding implies `weaker` holds: its gradual chain
    /// and the other implications of [`facts::FACTS`].
    pub fn implies(self, weaker: Model) -> bool {
        let f = self.facts();
        self == weaker || f.chain.contains(&weaker) || f.implies.contains(&weaker)
    }

    /// Estimated bytes of the dense form on `n` operations (its `n×n`
    /// matrices alive at once, [`Facts::dense_matrices`]).
    pub fn dense_bytes(self, n: usize) -> u64 {
        self.facts().dense_matrices * (n as u64) * (n as u64) / 8
    }
}

/// A model names its definition ([`crate::cat::Definitions::get`]).
impl AsRef<str> for Model {
    fn as_ref(&self) -> &str {
        self.name()
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
