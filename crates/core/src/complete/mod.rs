//! Deciding the models with a store order (SC, TSO, PSO): saturate a partial
//! store order, then complete it with one of several engines.
//!
//! A model is a list of acyclicity graphs ([`Spec`]): each graph's fixed
//! relations, to which every model adds the store order `ww` and
//! `rw = wr⁻¹ ; ww` (consistency-framework-2k §3: `G_loc`, `G_mm`). RMW
//! atomicity and `@final` observations hold in every model.

mod dp;
mod enumerate;
mod frontier;
pub mod interleave;
pub mod linearize;
mod sat;
mod saturate;

pub use frontier::Scaled;
pub use saturate::{Blocked, Conflict, Saturation};

use crate::budget::Cancel;
pub use crate::budget::Limits;
use crate::certificate::Violation;
use crate::history::{History, OpId};
use crate::models::Spec;

/// A completion engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// choose by the shape left after saturation
    Auto,
    /// backtracking over unordered write pairs, re-saturating after each choice
    Enum,
    /// SAT (rustsat + BatSat), acyclicity enforced lazily by cycle clauses
    Sat,
    /// dynamic programming over store-order ideals (consistency-framework-2k)
    Dp,
    /// memoised search over thread interleavings (SC, untimed threads)
    Interleave,
    /// the order of the writes' ticks, checked by the validator (timed runs; chosen by `auto`)
    Ticks,
    /// SC on one timed thread (gem5's real-time view) as per-variable
    /// linearizability, by zones (chosen by `auto`)
    Zones,
}

impl Engine {
    /// The engines a user may choose (`ticks` and `zones` are `auto`'s own).
    pub const CHOOSABLE: [Engine; 5] = [
        Engine::Auto,
        Engine::Enum,
        Engine::Sat,
        Engine::Dp,
        Engine::Interleave,
    ];

    /// A choosable engine by its name.
    pub fn from_name(s: &str) -> Option<Engine> {
        Engine::CHOOSABLE.into_iter().find(|e| e.name() == s)
    }

    /// The CLI/CSV name.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Enum => "enum",
            Engine::Sat => "sat",
            Engine::Dp => "dp",
            Engine::Interleave => "interleave",
            Engine::Ticks => "ticks",
            Engine::Zones => "zones",
        }
    }
}

/// What completion found.
#[derive(Debug, Clone)]
pub enum Completion {
    /// A total store order: per variable its writes, initial write first;
    /// for SC by interleaving, also the interleaving.
    Found {
        order: Vec<Vec<OpId>>,
        interleaving: Option<Vec<OpId>>,
    },
    /// No store order extends the saturated one.
    Exhausted,
    /// The deadline passed, or the caller cancelled.
    TimedOut,
    /// The search would pass the memory limit: what it would have held.
    OverMemory(String),
}

/// The result of deciding a store-order model.
#[derive(Debug, Clone)]
pub struct Decision {
    pub result: Result<Completion, Violation>,
    /// The engine that decided (`None` when saturation did).
    pub engine: Option<Engine>,
    /// Same-variable write pairs left unordered by saturation.
    pub unordered_after_saturation: usize,
    /// PSO at scale decided through TSO's graphs: only a witness counts.
    pub witness_only: bool,
}

impl Decision {
    /// The deadline passed (or the caller cancelled) before saturation
    /// finished.
    pub fn timed_out() -> Decision {
        Decision {
            result: Ok(Completion::TimedOut),
            engine: None,
            unordered_after_saturation: 0,
            witness_only: false,
        }
    }

    /// Saturation alone found a violation.
    pub fn violated(v: Violation, witness_only: bool) -> Decision {
        Decision {
            result: Err(v),
            engine: None,
            unordered_after_saturation: 0,
            witness_only,
        }
    }
}

/// The store-order pairs `@final` observations force: every other write of
/// the variable before the one observed last.
pub(crate) fn final_pairs(h: &History) -> impl Iterator<Item = (OpId, OpId)> + '_ {
    h.finals.iter().flat_map(move |&(x, v)| {
        let last = *h
            .writes_of(x)
            .iter()
            .find(|&&w| h.ops[w].value == v)
            .expect("@final values are validated");
        h.writes_of(x)
            .iter()
            .copied()
            .filter(move |&w| w != last)
            .map(move |w| (w, last))
    })
}

/// Saturates, then completes with `engine` within `limits`.
pub fn decide(h: &History, spec: &Spec, engine: Engine, limits: Limits) -> Decision {
    if limits.spent() {
        return Decision::timed_out();
    }
    let sat = match Saturation::until(h, spec, limits.cancel) {
        Ok(Some(s)) => s,
        Ok(None) => return Decision::timed_out(),
        Err(v) => return Decision::violated(v, false),
    };
    let unordered = sat.unordered_pairs();
    let k = unordered.len();
    if k == 0 {
        return Decision {
            result: Ok(Completion::Found {
                order: sat.store_order(),
                interleaving: None,
            }),
            engine: None,
            unordered_after_saturation: 0,
            witness_only: false,
        };
    }
    let engine = match engine {
        Engine::Auto => choose(h, spec, k),
        e => e,
    };
    let result = match engine {
        Engine::Auto | Engine::Ticks | Engine::Zones => unreachable!("chosen above"),
        Engine::Enum => enumerate::complete(&sat, &unordered, limits),
        Engine::Sat => sat::complete(&sat, &unordered, limits.cancel),
        Engine::Dp => dp::complete(&sat, limits),
        Engine::Interleave => {
            if interleave::applies(h, spec) {
                interleave::complete(&sat, limits)
            } else {
                enumerate::complete(&sat, &unordered, limits)
            }
        }
    };
    // a search whose saturation was stopped (its token spent) sees
    // conflicts that are none: it exhausted nothing
    let result = match result {
        Completion::Exhausted if limits.spent() => Completion::TimedOut,
        r => r,
    };
    Decision {
        result: Ok(result),
        engine: Some(engine),
        unordered_after_saturation: k,
        witness_only: false,
    }
}

/// For a history whose threads all carry ticks (a gem5 run): per variable,
/// its writes in the order of the tick by which each must have taken effect
/// — the earliest completion among the write and its readers — a candidate
/// witness for the validator (it holds for linearizable runs).
pub fn tick_order(h: &History) -> Option<Vec<Vec<OpId>>> {
    if h.threads.is_empty() || !h.threads.iter().all(|t| t.timed) {
        return None;
    }
    let key = |w: OpId| -> (u64, u64, OpId) {
        if h.is_init(w) {
            return (0, 0, w);
        }
        let (issue, done) = h.interval(w);
        let by = h
            .readers(w)
            .iter()
            .map(|&r| h.interval(r).1)
            .fold(done, u64::min);
        (by.saturating_add(1), issue, w)
    };
    Some(
        (0..h.vars.len())
            .map(|x| {
                let mut ws = h.writes_of(x).to_vec();
                ws.sort_by_key(|&w| key(w));
                ws
            })
            .collect(),
    )
}

/// `auto`: the enumeration with propagation, whose first guesses follow a
/// linear extension of the saturated order, settles valid histories with few
/// or no backtracks; SAT takes over when many pairs are left.
fn choose(_h: &History, _spec: &Spec, unordered: usize) -> Engine {
    if unordered <= 4096 {
        Engine::Enum
    } else {
        Engine::Sat
    }
}

/// The kernel of a consistent history: the same-variable write pairs (initial
/// writes aside) that every witness orders the same way, and how many of them
/// saturation alone ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
    pub pairs: usize,
    pub by_saturation: usize,
}

/// Computes the kernel with the SAT engine (each unordered pair's reverse
/// under an assumption); `None` if inconsistent or out of time.
pub fn kernel(h: &History, spec: &Spec, cancel: &Cancel) -> Option<Kernel> {
    let sat = Saturation::until(h, spec, cancel).ok()??;
    let unordered = sat.unordered_pairs();
    let non_init = unordered
        .iter()
        .filter(|&&(a, b)| !h.is_init(a) && !h.is_init(b))
        .count();
    let by_saturation = h.same_var_write_pairs() - non_init;
    let forced = if unordered.is_empty() {
        0
    } else {
        sat::kernel(&sat, &unordered, cancel)?
    };
    Some(Kernel {
        pairs: by_saturation + forced,
        by_saturation,
    })
}
