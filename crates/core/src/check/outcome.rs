//! What checking one model on one history gives ([`Outcome`]: the verdict
//! with its witness, certificate or reason), and what every part of the
//! pipeline needs to carry an outcome of a sub-history back to the history
//! ([`mapped`], [`store_model`], [`DERIVE_MAX_OPS`]). Below the gradual
//! pipeline and the reduction of one-operation threads, which both use it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::budget::{human, Cancel, Stop};
use crate::certificate::validate::StoreModel;
use crate::certificate::Violation;
use crate::complete::{Engine, Kernel};
use crate::history::OpId;
use crate::models::{Model, Store, StoreOrder};

/// A model's answer for one history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Consistent,
    Violation,
    Unknown,
}

impl Verdict {
    /// The CSV/text name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Consistent => "consistent",
            Verdict::Violation => "violation",
            Verdict::Unknown => "unknown",
        }
    }
}

/// What a check decided, with its evidence: the verdict and what backs
/// it, typed (a consistent verdict never carries a certificate, a
/// violation always does, an unknown one always says why).
#[derive(Debug, Clone)]
pub enum Decision {
    /// The model holds. Its witness, when the model's own check decided
    /// (not when a stronger model that implies it did): the partial store
    /// order it computed (total for SC/TSO/PSO), and for SC found by the
    /// interleaving engine, the interleaving.
    Consistent {
        store_order: Option<StoreOrder>,
        interleaving: Option<Vec<OpId>>,
    },
    /// The model is violated: the certificate (of `decided_by`, the weakest
    /// violated model of its chain).
    Violation(Violation),
    /// Undecided (a time or memory budget, damaged or disagreeing input, an
    /// interrupted run): why.
    Unknown(UnknownReason),
}

/// Why a model is `unknown`, typed; its `Display` is the reason column's
/// words (docs/design/gradual.md §7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownReason {
    /// The caller cancelled the check before this model finished; `by`
    /// names who (the binary: the signal, e.g. `Ctrl-C`).
    Interrupted { by: String },
    /// The time budget ran out: where.
    Timeout(Timeout),
    /// The model would pass the memory limit: the estimate.
    MemoryLimit(MemoryLimit),
    /// The input is damaged (ingestion's description of the damage).
    Damaged(String),
    /// Another reason its caller gives about the input (a run whose files
    /// disagree, a trace cut or still being written, one over the reading
    /// budget), in its words.
    Input(String),
    /// A bug of memconform's: the model's `part` (check or validator)
    /// panicked.
    Internal { model: Model, part: &'static str },
}

/// Where a time budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timeout {
    /// Before the model started.
    Before,
    /// During the saturation of a store-order model.
    Saturation,
    /// During completion, with this many write pairs saturation left
    /// unordered.
    Completion { unordered: usize },
    /// Inside the model's own check.
    Check(Model),
}

/// What would pass the memory limit (`--max-memory`, `limit` bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryLimit {
    /// The model's structures, estimated before it runs: `bytes` for
    /// `ops` operations with the `engine` (`dense` or `sparse`)
    /// representation; `dense_only`: the engine asked has no sparse form.
    Estimate {
        model: Model,
        ops: usize,
        bytes: u64,
        engine: &'static str,
        limit: u64,
        dense_only: bool,
    },
    /// A search whose memory grows (`what` it would hold), stopped, with
    /// `unordered` write pairs left after saturation.
    Search {
        what: String,
        limit: u64,
        unordered: usize,
    },
    /// PSO at scale: its own graphs would need `bytes` for `ops`
    /// operations, and the history has no TSO witness.
    PsoWithoutTso { ops: usize, bytes: u64 },
}

impl UnknownReason {
    /// Why a check under `cancel` stopped at `stage`: the cancellation
    /// when its holder cancelled, else the time budget.
    pub fn stopped(cancel: &Cancel, stage: Timeout) -> UnknownReason {
        match cancel.stop() {
            Some(Stop::Cancelled { by }) => UnknownReason::Interrupted { by },
            _ => UnknownReason::Timeout(stage),
        }
    }
}

impl fmt::Display for UnknownReason {
    /// The reason column's words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::Interrupted { by } => {
                write!(f, "interrupted ({by}) before this model finished")
            }
            UnknownReason::Timeout(t) => t.fmt(f),
            UnknownReason::MemoryLimit(m) => m.fmt(f),
            UnknownReason::Damaged(damage) => write!(f, "damaged input: {damage}"),
            UnknownReason::Input(why) => f.write_str(why),
            UnknownReason::Internal { model, part } => {
                write!(f, "internal error: the {model} {part} panicked")
            }
        }
    }
}

impl fmt::Display for Timeout {
    /// The reason column's words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timeout::Before => f.write_str("time budget spent before this model"),
            Timeout::Saturation => f.write_str("timeout: saturation did not finish"),
            Timeout::Completion { unordered } => write!(
                f,
                "timeout: {unordered} unordered write pairs left after saturation"
            ),
            Timeout::Check(m) => write!(f, "timeout: {m} was stopped before it finished"),
        }
    }
}

impl fmt::Display for MemoryLimit {
    /// The reason column's words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryLimit::Estimate {
                model,
                ops,
                bytes,
                engine,
                limit,
                dense_only,
            } => {
                write!(
                    f,
                    "{model} on {ops} operations needs about {} with the {engine} engine, over the {} memory limit (--max-memory)",
                    human(*bytes),
                    human(*limit)
                )?;
                if *dense_only {
                    f.write_str("; at scale only --engine auto or enum run")?;
                }
                Ok(())
            }
            MemoryLimit::Search {
                what,
                limit,
                unordered,
            } => write!(
                f,
                "{what}: over the {} memory limit (--max-memory); {unordered} unordered write pairs left after saturation",
                human(*limit)
            ),
            MemoryLimit::PsoWithoutTso { ops, bytes } => write!(
                f,
                "pso on {ops} operations: its own graphs would need about {} (over --max-memory), so it is decided only through a TSO witness, and this history has none",
                human(*bytes)
            ),
        }
    }
}

/// The outcome of checking one model on one history.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub model: Model,
    /// The verdict with its witness, certificate or reason.
    pub decision: Decision,
    /// The model whose check decided: `model` itself, a weaker model of its
    /// gradual chain that was already violated, or (consistent) a stronger
    /// model that holds and implies it ([`Model::implies`]).
    pub decided_by: Model,
    /// The completion engine that decided (SC/TSO/PSO past saturation).
    pub engine: Option<Engine>,
    /// Same-variable write pairs saturation left unordered (SC/TSO/PSO).
    pub unordered_after_saturation: Option<usize>,
    /// The kernel (pairs every witness orders alike; those saturation found).
    pub kernel: Option<Kernel>,
    /// An internal error: the validator rejected the certificate, or the
    /// check panicked.
    pub invalid: Option<String>,
    /// A violation the validator could not confirm (too large to re-derive
    /// or decide by brute force even after shrinking): why. Its
    /// `certified` column is empty, not `yes`.
    pub uncertified: Option<String>,
    /// Seconds spent on the checks this outcome needed (shared checks count
    /// for every outcome that needed them).
    pub seconds: f64,
}

impl Outcome {
    /// An undecided outcome of `model`, with the reason (nothing was checked).
    pub fn unknown(model: Model, reason: UnknownReason) -> Outcome {
        Outcome::bare(model, Decision::Unknown(reason), model, 0.0)
    }

    /// `model` holds because `by`, which implies it, holds (no certificate
    /// of its own).
    pub(crate) fn implied(model: Model, by: Model, seconds: f64) -> Outcome {
        let decision = Decision::Consistent {
            store_order: None,
            interleaving: None,
        };
        Outcome::bare(model, decision, by, seconds)
    }

    /// An outcome with a decision and nothing else.
    pub fn bare(model: Model, decision: Decision, decided_by: Model, seconds: f64) -> Outcome {
        Outcome {
            model,
            decision,
            decided_by,
            engine: None,
            unordered_after_saturation: None,
            kernel: None,
            invalid: None,
            uncertified: None,
            seconds,
        }
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        match self.decision {
            Decision::Consistent { .. } => Verdict::Consistent,
            Decision::Violation(_) => Verdict::Violation,
            Decision::Unknown(_) => Verdict::Unknown,
        }
    }

    /// The certificate of a violation.
    pub fn violation(&self) -> Option<&Violation> {
        match &self.decision {
            Decision::Violation(v) => Some(v),
            _ => None,
        }
    }

    /// The store order of a consistent outcome, when its own check gave one.
    pub fn store_order(&self) -> Option<&StoreOrder> {
        match &self.decision {
            Decision::Consistent { store_order, .. } => store_order.as_ref(),
            _ => None,
        }
    }

    /// The SC interleaving of a consistent outcome, when the interleaving
    /// engine found it.
    pub fn interleaving(&self) -> Option<&[OpId]> {
        match &self.decision {
            Decision::Consistent { interleaving, .. } => interleaving.as_deref(),
            _ => None,
        }
    }

    /// Why an outcome is unknown.
    pub fn reason(&self) -> Option<&UnknownReason> {
        match &self.decision {
            Decision::Unknown(r) => Some(r),
            _ => None,
        }
    }
}

/// Above this many operations (initial writes included) the validator
/// does not re-derive a certificate's relations on the history itself but
/// on a shrunk sub-history: its fixpoints hold a few `n×n` bit matrices
/// per relation and cost about `n³/64` word operations each. Measured
/// (release build): wCCM, the costliest, re-derived on 1,616 operations
/// (`memconform gen --memory tso --threads 4 --ops 400 --faults 1 --seed
/// 3`, a cycle of about 40 edges) in 0.9 s of the check's 0.9 s; shrinking
/// 20,000 operations to a short cycle takes about 0.4 s.
pub const DERIVE_MAX_OPS: usize = 2000;

/// The model the validator checks a total store order of `m` against, if
/// `m` has one.
pub fn store_model(m: Model) -> Option<StoreModel> {
    match m.facts().store {
        Some(Store::Ww(sm)) => Some(sm),
        _ => None,
    }
}

/// A sub-history's violation in the operations of the history it is a
/// projection of (`origin[o]`: the history's operation `o` is).
pub(crate) fn mapped(v: &Violation, origin: &[OpId]) -> Violation {
    let step = |s: &crate::certificate::Step| crate::certificate::Step {
        from: origin[s.from],
        rel: s.rel,
        to: origin[s.to],
    };
    Violation {
        pattern: v.pattern,
        cycle: v.cycle.iter().map(step).collect(),
        ops: v.ops.iter().map(|&(o, role)| (origin[o], role)).collect(),
        justifications: v
            .justifications
            .iter()
            .map(|j| crate::certificate::Justification {
                from: origin[j.from],
                to: origin[j.to],
                pivot: j.pivot.map(|p| origin[p]),
                observer: j.observer.map(|o| origin[o]),
                path: j.path.iter().map(step).collect(),
                ..j.clone()
            })
            .collect(),
        certified_by: None,
    }
}
