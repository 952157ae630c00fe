//! Which representation checks a history: dense bit matrices for small
//! histories (n² bits per relation), sparse frontiers at scale (4·n·D bytes
//! for D lanes), or neither when the estimate passes the memory budget —
//! then the verdict is `unknown` with the reason, never an abort.

use crate::budget::Cancel;
use crate::certificate::{Pattern, Rel, Violation};
use crate::check::outcome::MemoryLimit;
use crate::complete::{Completion, Decision, Engine, Scaled};
use crate::history::History;
use crate::models::{Model, StoreOrder};
use crate::scale::lanes::Lanes;
use crate::scale::{self as sparse, ChainGraph};

/// Above this many operations every model runs sparse (dense matrices
/// would not fit); below it, see [`Model::path`].
pub const DENSE_MAX_OPS: usize = 4096;

/// Below this many operations the dense engines are faster.
pub const SPARSE_MIN_OPS: usize = 64;

/// Between [`SPARSE_MIN_OPS`] and [`DENSE_MAX_OPS`] the sparse form runs
/// when it has at most one lane per this many operations: its work is
/// `n·D` against the dense `n²/64`. Measured (all models, 500 SC-generated
/// histories each, `-j 1`): 4×25 ops 0.90 → 0.78 s, 8×25 2.61 → 2.36 s,
/// 16×50 33.6 → 16.6 s, 4×500 162 → 17 s; a timed gem5 run of 2,934
/// operations on ~320 lanes is 2× faster dense.
pub const OPS_PER_LANE: usize = 16;

/// Which representation to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// dense up to [`DENSE_MAX_OPS`] operations, sparse above where a model has it
    #[default]
    Auto,
    /// always dense (the test oracle)
    Dense,
    /// sparse wherever a model has it (tests)
    Sparse,
}

/// How one model is computed for one history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Path {
    Dense,
    Sparse,
    /// Over the memory budget: the estimate.
    TooLarge(MemoryLimit),
}

impl Model {
    /// Estimated bytes of the sparse form: frontiers (2 or 4 bytes per
    /// operation and slot, [`crate::scale::lanes::entry_bytes`];
    /// [`crate::models::Facts::sparse_slots`] slots per lane), edges and
    /// indexes.
    pub fn sparse_bytes(self, h: &History, lanes: &Lanes) -> u64 {
        let slots = self.facts().sparse_slots * lanes.lanes.len() as u64;
        let entry = crate::scale::lanes::entry_bytes(lanes);
        h.n() as u64 * (entry * slots + 64)
    }

    /// Chooses the representation within `max_memory` bytes.
    /// `lanes` is called only for the sparse form.
    pub fn path<'a>(
        self,
        h: &History,
        lanes: &dyn Fn() -> &'a Lanes,
        scale: Scale,
        max_memory: u64,
    ) -> Path {
        let n = h.n();
        // RMO and ARMv8 have no sparse form (`sparse_slots` 0): dense only
        let has_sparse = self.facts().sparse_slots > 0;
        let sparse = has_sparse
            && match scale {
                Scale::Auto => {
                    n > DENSE_MAX_OPS
                        || (n >= SPARSE_MIN_OPS && OPS_PER_LANE * lanes().lanes.len() <= n)
                }
                Scale::Dense => false,
                Scale::Sparse => true,
            };
        let (bytes, what) = if sparse {
            (self.sparse_bytes(h, lanes()), "sparse")
        } else {
            (self.dense_bytes(n), "dense")
        };
        if bytes > max_memory {
            return Path::TooLarge(MemoryLimit::Estimate {
                model: self,
                ops: n,
                bytes,
                engine: what,
                limit: max_memory,
                dense_only: false,
            });
        }
        if sparse {
            Path::Sparse
        } else {
            Path::Dense
        }
    }
}

/// A polynomial model at scale: its partial store order, or a violation.
/// `None` when `cancel` is spent first (CM checks it between observers).
pub fn check(
    h: &History,
    lanes: &Lanes,
    m: Model,
    cancel: &Cancel,
) -> Option<crate::models::Checked> {
    Some(match m {
        Model::Cc => sparse::cc::check(h, lanes).map(|_| None),
        Model::Ccv => sparse::ccv::check(h, lanes).map(|()| None),
        Model::Cm => match sparse::cm::check(h, lanes, cancel) {
            Ok(true) => Ok(None),
            Ok(false) => return None,
            Err(v) => Err(v),
        },
        Model::Ccm => match sparse::ccm::check(h, lanes, cancel) {
            Ok(Some(order)) => Ok(Some(order)),
            Ok(None) => return None,
            Err(v) => Err(v),
        },
        Model::Wccm => match sparse::wccm::check(h, lanes, cancel) {
            Ok(Some(order)) => Ok(Some(order)),
            Ok(None) => return None,
            Err(v) => Err(v),
        },
        Model::Wsc => {
            let graphs = vec![(Pattern::CyclicSt, sparse::sc::graph(h, lanes))];
            Scaled::new(h, lanes, graphs, false, &[]).map(|s| {
                let (total, ordered) = s.count_pairs(false);
                Some(StoreOrder::Counted { ordered, total })
            })
        }
        _ => unreachable!("{m} is decided by `decide`"),
    })
}

/// SC, TSO or PSO at scale: saturation at frontiers, then the hint pass and
/// the trail search (reported as `enum`). PSO runs on its own graphs when
/// their frontiers (a store sub-chain per lane and variable) fit in
/// `max_memory`; past that, by a TSO witness (every TSO witness is a PSO
/// witness: `po-pso ⊆ ppo`), and without one the caller reports `unknown`.
/// Between the two, `lift` may turn TSO's violation into PSO's (the
/// caller checks PSO on the violation's own sub-history: a sub-history's
/// violation is the history's), before PSO's own graphs are built.
pub fn decide(
    h: &History,
    lanes: &Lanes,
    m: Model,
    cancel: &Cancel,
    max_memory: u64,
    lift: &dyn Fn(&Violation) -> Option<Violation>,
) -> Decision {
    // without G_loc where its consequences can be seeded
    let seeds = sparse::lanes::loc_seeds(h, lanes);
    let (loc, seeds) = (seeds.is_none(), seeds.as_deref().unwrap_or(&[]));
    if m == Model::Pso {
        let mut contradicted = Vec::new();
        // a TSO witness is a PSO witness: try TSO's smaller graphs first,
        // without backtracking
        let d = run(
            h,
            lanes,
            &|| sparse::tso::graphs(h, lanes, loc),
            seeds,
            cancel,
            0,
            true,
            Some(&mut contradicted),
        );
        if matches!(d.result, Ok(Completion::Found { .. })) {
            return d;
        }
        // TSO's violation may be PSO's: on its own operations, or through
        // a pair known up front in PSO's static graph (PSO's graphs, built
        // for that, serve the search after it)
        let mut built = None;
        if let Err(v) = &d.result {
            if let Some(v) = lift(v) {
                return Decision::violated(v, false);
            }
            if !contradicted.is_empty() {
                let gs = sparse::pso::graphs(h, lanes, loc);
                if let Some(v) = gs.last().and_then(|(_, mm)| pso_upfront(mm, &contradicted)) {
                    return Decision::violated(v, false);
                }
                built = Some(gs);
            }
        }
        if sparse::pso::sparse_bytes(h, lanes) > max_memory {
            return d;
        }
        let built = std::cell::RefCell::new(built);
        return run(
            h,
            lanes,
            &|| {
                built
                    .borrow_mut()
                    .take()
                    .unwrap_or_else(|| sparse::pso::graphs(h, lanes, loc))
            },
            seeds,
            cancel,
            u64::MAX,
            false,
            None,
        );
    }
    let graphs = || match m {
        Model::Sc => vec![(Pattern::CyclicSc, sparse::sc::graph(h, lanes))],
        Model::Tso => sparse::tso::graphs(h, lanes, loc),
        _ => unreachable!("not a store-order model"),
    };
    run(h, lanes, &graphs, seeds, cancel, u64::MAX, false, None)
}

/// At most this many pairs [`pso_upfront`] tries.
const UPFRONT_PAIRS: usize = 512;

/// PSO's cycle through a store-order pair known up front (`po-loc`'s
/// consequences, [`sparse::lanes::loc_seeds`], and the consecutive-source
/// pairs) that TSO's model graph already contradicted, `contradicted`:
/// each pair holds in every PSO witness, so `a ww b` with `b ⇝ a` in
/// PSO's static graph `po-pso ∪ wre` is PSO's violation. PSO's static
/// graph is a subgraph of TSO's (`po-pso ⊆ ppo`), so only those pairs can
/// close one. Found without PSO's frontier table (a store sub-chain per
/// lane and variable): reachability from 64 sources at a time
/// ([`ChainGraph::first_reaching`]), then a shortest path. `None` when no
/// pair closes a cycle there. `mm`: PSO's model graph, before saturation;
/// `contradicted` is not empty (the caller builds `mm` only then).
fn pso_upfront(mm: &ChainGraph, contradicted: &[(u32, u32)]) -> Option<Violation> {
    let pairs = &contradicted[..contradicted.len().min(UPFRONT_PAIRS)];
    let (a, b) = pairs[mm.first_reaching(pairs)?];
    let mut cycle = vec![(a, b, Rel::St)];
    cycle.extend(mm.static_path(b, a)?);
    Some(Violation::from_edges(Pattern::CyclicPso, cycle))
}

/// Saturates `graphs()` and completes the store order: first without the
/// trail, and only if a choice must be taken back, saturated again and
/// completed with it (the same answer either way; see
/// [`Scaled::complete_untrailed`]). A violation found before saturation
/// (a pair known up front that the last graph contradicts) leaves every
/// such pair in `contradicted`, if given.
#[allow(clippy::too_many_arguments)]
fn run(
    h: &History,
    lanes: &Lanes,
    graphs: &dyn Fn() -> Vec<(Pattern, ChainGraph)>,
    seeds: &[(u32, u32)],
    cancel: &Cancel,
    backtracks: u64,
    witness_only: bool,
    contradicted: Option<&mut Vec<(u32, u32)>>,
) -> Decision {
    let mut s = match Scaled::noting(h, lanes, graphs(), true, seeds, contradicted) {
        Ok(s) => s,
        Err(v) => return Decision::violated(v, witness_only),
    };
    let k = s.unordered_pairs();
    let result = match s.complete_untrailed(cancel) {
        Some(result) => result,
        None => {
            drop(s);
            match Scaled::new(h, lanes, graphs(), true, seeds) {
                Ok(mut s) => s.complete_within(cancel, backtracks),
                Err(v) => return Decision::violated(v, witness_only),
            }
        }
    };
    Decision {
        result: Ok(result),
        engine: (k > 0).then_some(Engine::Enum),
        unordered_after_saturation: k,
        witness_only,
    }
}

/// Whether a PSO decision at scale is only a TSO one that failed.
pub fn pso_undecided(d: &Decision) -> bool {
    d.witness_only && !matches!(d.result, Ok(Completion::Found { .. }))
}
