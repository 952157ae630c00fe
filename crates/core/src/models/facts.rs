//! The models' facts in one table: name, definition, gradual chain, what
//! each implies, its store order, and what its dense and sparse forms cost.
//! Everything that needs a fact of a model reads it here.

use crate::budget::Cancel;
use crate::cat::Definitions;
use crate::certificate::validate::StoreModel;
use crate::history::History;
use crate::models::{armv8, cc, ccm, ccv, cm, pso, rmo, sc, tso, wccm, wsc, Checked, Model, Spec};

/// How a model is defined.
#[derive(Clone, Copy)]
pub enum Definition {
    /// A polynomial check (with the partial store order it computes),
    /// asking its token as it goes: `None` when it is spent first.
    Check(fn(&History, &Cancel) -> Option<Checked>),
    /// Acyclicity graphs that a store order must complete.
    Graphs(fn(&History, &Definitions) -> Spec),
}

/// The store order a model computes or guesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// CCM's partial store order `pww`.
    Pww,
    /// wCCM's weak partial store order `wpww`.
    Wpww,
    /// wSC's saturated store order `st`.
    St,
    /// A total store order `ww` (completed), checked by the validator as this model.
    Ww(StoreModel),
}

/// One model's facts.
pub struct Facts {
    pub model: Model,
    /// The command-line and CSV name.
    pub name: &'static str,
    /// Where the definition is: paper short name and section.
    pub source: &'static str,
    pub definition: Definition,
    /// The weaker models this one implies, checked first by the gradual
    /// pipeline, cheapest first: a violation of any is a violation of this one.
    pub chain: &'static [Model],
    /// The other weaker models it implies (not on its chain).
    pub implies: &'static [Model],
    /// Its store order, if it has one.
    pub store: Option<Store>,
    /// `n×n` bit matrices its dense form holds at once (memory estimate).
    pub dense_matrices: u64,
    /// Frontier slots per lane of its sparse form (memory estimate); 0:
    /// it has no sparse form (dense only).
    pub sparse_slots: u64,
}

use Model::*;

/// The table, in [`Model`] order. Every implication is proved in
/// docs/design/implications.md (cited by section below), and every pair
/// left out has a counterexample in tests/data/histories/implications.hist
/// (tests/implications.rs checks both ways). Chains: CCv, CM ⇒ CC (by
/// definition); CCM ⇒ CC, CCv, CM (gradual-consistency-checking Lemma 1);
/// wSC ⇒ CCM (wsc-saturation Lemma 1); SC ⇒ wSC (wsc-saturation Lemma 3);
/// TSO ⇒ wCCM (gradual-consistency-checking Lemma 3). Beyond the chains:
/// CCM ⇒ wCCM (its graphs are subgraphs of CCM's); TSO ⇒ CC, CCv (a store
/// buffer shows a thread's own writes early, never a stale value it depends
/// on); a stronger store-order model's witness is a weaker one's: SC ⇒ TSO
/// ⇒ PSO (consistency-framework-2k §4.2). wCCM implies none of the others
/// (it accepts a read of a po-later own write), PSO none (message passing
/// is PSO only), and no polynomial model implies SC, TSO or PSO (they
/// ignore RMW atomicity and `@final`). The weak ISAs (implications §12):
/// SC ⇒ ARMv8 ⇒ RMO and TSO ⇒ RMO; nothing else implies them (PSO leaves
/// `F.st` out, TSO ignores release-acquire), and they imply nothing else
/// (RMO allows CoRR, ARMv8 allows LB).
/// Sparse slots: CC's frontiers and, while CC is checked, its past frontiers;
/// three graphs' worth for TSO, PSO and wCCM.
pub const FACTS: [Facts; 11] = [
    Facts {
        model: Cc,
        name: "cc",
        source: "causal-consistency-datalog Table 3",
        definition: Definition::Check(|h, c| cc::check(h, c).map(|r| r.map(|()| None))),
        chain: &[],
        implies: &[],
        store: None,
        dense_matrices: 5,
        sparse_slots: 2,
    },
    Facts {
        model: Ccv,
        name: "ccv",
        source: "causal-consistency-datalog Table 3",
        definition: Definition::Check(|h, c| ccv::check(h, c).map(|r| r.map(|()| None))),
        // by definition: CC and no CyclicCF (implications §1)
        chain: &[Cc],
        implies: &[],
        store: None,
        dense_matrices: 7,
        sparse_slots: 2,
    },
    Facts {
        model: Cm,
        name: "cm",
        source: "causal-consistency-datalog Def. 4",
        definition: Definition::Check(|h, c| cm::check(h, c).map(|r| r.map(|()| None))),
        // by definition: CC and no WriteHBInitRead, CyclicHB (implications §1)
        chain: &[Cc],
        implies: &[],
        store: None,
        dense_matrices: 9,
        sparse_slots: 2,
    },
    Facts {
        model: Ccm,
        name: "ccm",
        source: "gradual-consistency-checking §3.2",
        definition: Definition::Check(|h, c| ccm::check(h, c).map(|r| r.map(Some))),
        // gradual-consistency-checking Lemma 1 (implications §2)
        chain: &[Cc, Ccv, Cm],
        // wpww ⊆ pww: wCCM's graphs are subgraphs of CCM's (implications §3)
        implies: &[Wccm],
        store: Some(Store::Pww),
        dense_matrices: 14,
        sparse_slots: 2,
    },
    Facts {
        model: Wccm,
        name: "wccm",
        source: "gradual-consistency-checking §4.1",
        definition: Definition::Check(|h, c| wccm::check(h, c).map(|r| r.map(Some))),
        chain: &[],
        implies: &[],
        store: Some(Store::Wpww),
        dense_matrices: 20,
        sparse_slots: 3,
    },
    Facts {
        model: Wsc,
        name: "wsc",
        source: "wsc-saturation §3",
        definition: Definition::Check(|h, c| wsc::check(h, c).map(|r| r.map(Some))),
        // wsc-saturation Lemma 1, then CCM's chain (implications §4)
        chain: &[Cc, Ccv, Cm, Ccm],
        // through CCM (implications §3, §4)
        implies: &[Wccm],
        store: Some(Store::St),
        dense_matrices: 7,
        sparse_slots: 1,
    },
    Facts {
        model: Sc,
        name: "sc",
        source: "gradual-consistency-checking §2",
        definition: Definition::Graphs(sc::spec),
        // wsc-saturation Lemma 3, then wSC's (implications §5)
        chain: &[Cc, Ccv, Cm, Ccm, Wsc],
        // an SC witness is a TSO and a PSO witness; wCCM through CCM or TSO
        // (implications §5); an SC witness is an RMO and an ARMv8 one
        // (implications §12)
        implies: &[Tso, Pso, Wccm, Rmo, Armv8],
        store: Some(Store::Ww(StoreModel::Sc)),
        dense_matrices: 8,
        sparse_slots: 1,
    },
    Facts {
        model: Tso,
        name: "tso",
        source: "consistency-framework-2k §4.2",
        definition: Definition::Graphs(tso::spec),
        // TSO ⇒ CC: implications §6 (cc first: one linear sweep that
        // catches stale reads with a cycle of a few edges; on axe's suite
        // 1.31x -> 0.60x axe's wall); TSO ⇒ wCCM: gradual-consistency-
        // checking Lemma 3 (implications §7)
        chain: &[Cc, Wccm],
        // CCv: implications §6; a TSO witness is a PSO witness:
        // implications §8; and an RMO witness: implications §12
        implies: &[Ccv, Pso, Rmo],
        store: Some(Store::Ww(StoreModel::Tso)),
        dense_matrices: 14,
        sparse_slots: 3,
    },
    Facts {
        model: Pso,
        name: "pso",
        source: "consistency-framework-2k §4.2",
        definition: Definition::Graphs(pso::spec),
        chain: &[],
        implies: &[],
        store: Some(Store::Ww(StoreModel::Pso)),
        dense_matrices: 14,
        sparse_slots: 3,
    },
    Facts {
        model: Rmo,
        name: "rmo",
        source: "consistency-framework-2k §4.2",
        definition: Definition::Graphs(rmo::spec),
        // none proved: RMO allows load-load hazards (CoRR), which every
        // causal model forbids (implications §12)
        chain: &[],
        implies: &[],
        store: Some(Store::Ww(StoreModel::Rmo)),
        dense_matrices: 14,
        sparse_slots: 0,
    },
    Facts {
        model: Armv8,
        name: "armv8",
        source: "herd7 aarch64.cat (ARMv8 ARM B2.3), without dob",
        definition: Definition::Graphs(armv8::spec),
        chain: &[],
        // an ARMv8 witness is an RMO witness (implications §12)
        implies: &[Rmo],
        store: Some(Store::Ww(StoreModel::Armv8)),
        dense_matrices: 14,
        sparse_slots: 0,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is in model order, and the model lists agree with it.
    #[test]
    fn the_table_is_in_model_order_and_the_lists_agree() {
        for (i, f) in FACTS.iter().enumerate() {
            assert_eq!(f.model as usize, i);
            assert_eq!(Model::EVERY[i], f.model);
        }
        let graphs = |m: &Model| matches!(m.facts().definition, Definition::Graphs(_));
        assert!(Model::ALL.iter().all(|m| !graphs(m)));
        assert!(Model::STORE.iter().all(graphs));
        assert_eq!(Model::ALL.len() + Model::STORE.len(), FACTS.len());
        for m in Model::EVERY {
            // a chain is of weaker models, cheapest (earliest) first
            assert!(m.facts().chain.windows(2).all(|w| w[0] < w[1]), "{m}");
            assert!(m.facts().chain.iter().all(|&w| w < m), "{m}");
        }
    }
}
