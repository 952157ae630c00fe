//! The promise: the models a history's run says it keeps, and whether it
//! does. A run's configuration promises one model (in-order blocking cores
//! and Ruby's testers: SC; x86 out-of-order cores: TSO), a `.hist` names
//! one (`@promise`) or expects verdicts (`@expect m=yes`), or the user names
//! one (`--promise`). The promise decides the run's answer: a violation of
//! any model counts exactly when the history also breaks the promise; a
//! violation of a model the promise does not imply, on a history that keeps
//! it, is *allowed* (an O3 core's store buffering breaks SC, not TSO).
//!
//! Deciding the promise costs nothing when it is among the asked models or
//! implied broken by an asked model's violation ([`Model::implies`]); it is
//! checked on its own only when an asked model it does not imply is
//! violated, so that the violation can be told a bug or allowed.

use crate::check::gradual::{check_gradual_with, Options};
use crate::check::outcome::{Outcome, Verdict};
use crate::history::History;
use crate::models::Model;

/// Where a promise comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `--promise` on the command line: it overrides every other source.
    Flag,
    /// The history's `expected_model` (`@promise`, `@expected_model`, or
    /// set by gem5 ingestion from the run's configuration).
    Declared,
    /// The history's `@expect m=yes` lines: every model expected to hold.
    Expect,
}

/// Models a configuration may promise that memconform cannot decide (yet),
/// each with the reason its promise stays `unknown` (none today: ARMv8,
/// which ARM's out-of-order and pipelined cores promise, is a model).
pub const UNAVAILABLE: [(&str, &str); 0] = [];

/// The model a history declares it keeps (`@promise`, `@expected_model`,
/// or gem5 ingestion's from the run's configuration), parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    /// A model memconform decides.
    Model(Model),
    /// A model of [`UNAVAILABLE`], by its name.
    Unavailable(&'static str),
}

impl Declared {
    /// Parses a declared model's name: a model (in any case, as
    /// [`Model::from_name`]), else one of [`UNAVAILABLE`]; `None` for any
    /// other name (no promise).
    pub fn parse(name: &str) -> Option<Declared> {
        if let Some(m) = Model::from_name(name) {
            return Some(Declared::Model(m));
        }
        UNAVAILABLE
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(n, _)| Declared::Unavailable(n))
    }

    /// The model, when memconform decides it.
    pub fn model(self) -> Option<Model> {
        match self {
            Declared::Model(m) => Some(m),
            Declared::Unavailable(_) => None,
        }
    }
}

/// The models a history promises to keep, and where that comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promise {
    /// Each must hold (one, but for `@expect`: none or several).
    pub models: Vec<Model>,
    pub source: Source,
    /// A declared model of [`UNAVAILABLE`] (then `models` is empty): the
    /// promise is `unknown`, for its reason.
    pub unavailable: Option<&'static str>,
}

impl Promise {
    /// `m`, named by `--promise`.
    pub fn flag(m: Model) -> Promise {
        Promise {
            models: vec![m],
            source: Source::Flag,
            unavailable: None,
        }
    }

    /// Why the promise cannot be decided: its model is not available.
    pub fn unavailable_reason(&self) -> Option<&'static str> {
        let name = self.unavailable?;
        UNAVAILABLE
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, why)| *why)
    }

    /// The promise of `h`: `flag` (`--promise`), else the model it
    /// `declared` (its `expected_model`, read once by ingestion with
    /// [`Declared::parse`]), else the models its `@expect` says hold; none
    /// otherwise.
    pub fn of(h: &History, declared: Option<Declared>, flag: Option<Model>) -> Option<Promise> {
        if let Some(m) = flag {
            return Some(Promise::flag(m));
        }
        match declared {
            Some(Declared::Model(m)) => {
                return Some(Promise {
                    models: vec![m],
                    source: Source::Declared,
                    unavailable: None,
                })
            }
            Some(Declared::Unavailable(name)) => {
                return Some(Promise {
                    models: Vec::new(),
                    source: Source::Declared,
                    unavailable: Some(name),
                })
            }
            None => {}
        }
        let mut models: Vec<Model> = h
            .expect
            .iter()
            .filter(|(_, holds)| *holds)
            .filter_map(|(m, _)| Model::from_name(m))
            .collect();
        // only the strongest: a model another promised one implies adds nothing
        let all = models.clone();
        models.retain(|&m| !all.iter().any(|&s| s != m && s.implies(m)));
        models.sort();
        models.dedup();
        // (expecting only violations promises nothing to hold: they are allowed)
        (!h.expect.is_empty()).then_some(Promise {
            models,
            source: Source::Expect,
            unavailable: None,
        })
    }

    /// How a report names it: `tso`, or `@expect` for a file's expectations.
    pub fn name(&self) -> String {
        if let Some(name) = self.unavailable {
            return name.into();
        }
        match (self.source, &self.models) {
            (Source::Expect, _) => "@expect".into(),
            _ => self
                .models
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join("+"),
        }
    }
}

/// Whether a history keeps its promise, as far as it had to be decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A promised model is violated: a bug of the run.
    Broken,
    /// Every promised model holds.
    Kept,
    /// A promised model is undecided (a time or memory budget, damaged
    /// input) and none is violated.
    Unknown,
    /// Not decided, and not needed: no asked model is violated (so no
    /// verdict could count against the promise).
    Unneeded,
}

impl Status {
    /// The CSV/JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Broken => "broken",
            Status::Kept => "kept",
            Status::Unknown => "unknown",
            Status::Unneeded => "unneeded",
        }
    }

    /// Parses [`Status::name`].
    pub fn from_name(s: &str) -> Option<Status> {
        [
            Status::Broken,
            Status::Kept,
            Status::Unknown,
            Status::Unneeded,
        ]
        .into_iter()
        .find(|x| x.name() == s)
    }
}

/// A promise and whether the history keeps it.
#[derive(Debug, Clone)]
pub struct Kept {
    pub promise: Promise,
    pub status: Status,
    /// The promised models checked beyond the asked ones (to tell a
    /// violation of an asked model a bug or allowed).
    pub extra: Vec<Outcome>,
}

impl Kept {
    /// Why the promise is undecided when no check could decide it (its
    /// model is not available), if so.
    pub fn reason(&self) -> Option<&'static str> {
        self.promise.unavailable_reason()
    }

    /// Whether the row of `outcome` breaks the promise: `Some(true)` for a
    /// violation on a history that breaks it, `Some(false)` for a
    /// consistent verdict or an allowed violation (the promise kept),
    /// `None` when that is not known (an unknown verdict, or a violation
    /// whose promise is undecided).
    pub fn breaks(&self, outcome: &Outcome) -> Option<bool> {
        match (outcome.verdict(), self.status) {
            (Verdict::Consistent, _) => Some(false),
            (Verdict::Unknown, _) => None,
            (Verdict::Violation, Status::Broken) => Some(true),
            (Verdict::Violation, Status::Kept) => Some(false),
            (Verdict::Violation, _) => None,
        }
    }

    /// The outcome that shows the promise broken: the violation of the
    /// weakest asked model the promise implies (its bad pattern is the
    /// plainest to read), else the extra check's.
    pub fn evidence<'a>(&'a self, asked: &'a [Outcome]) -> Option<&'a Outcome> {
        if self.status != Status::Broken {
            return None;
        }
        let implied_broken = |o: &&Outcome| {
            o.verdict() == Verdict::Violation
                && self.promise.models.iter().any(|p| p.implies(o.model))
        };
        asked
            .iter()
            .filter(implied_broken)
            .min_by_key(|o| (o.decided_by, o.model))
            .or_else(|| {
                self.extra
                    .iter()
                    .find(|o| o.verdict() == Verdict::Violation)
            })
    }
}

/// Decides whether `h` keeps `promise`, given the outcomes of the asked
/// models: a promised model is broken when its own outcome or a violation
/// it implies says so; it is checked on its own (with `opts`) only when an
/// asked model it does not imply is violated and nothing settles it.
pub fn decide(h: &History, promise: Promise, asked: &[Outcome], opts: &Options) -> Kept {
    decide_with(promise, asked, |p| {
        check_gradual_with(h, &[p], opts)
            .pop()
            .expect("one outcome per model asked")
    })
}

/// [`decide`] with `check` deciding a promised model on its own (a damaged
/// trace's prefix turns its `consistent` into `unknown`, say).
pub fn decide_with(
    promise: Promise,
    asked: &[Outcome],
    mut check: impl FnMut(Model) -> Outcome,
) -> Kept {
    if promise.unavailable.is_some() {
        // no model to hold the history to: no verdict, whatever it violates
        return Kept {
            promise,
            status: Status::Unknown,
            extra: Vec::new(),
        };
    }
    let any_violation = asked.iter().any(|o| o.verdict() == Verdict::Violation);
    let mut verdicts = Vec::with_capacity(promise.models.len());
    let mut extra = Vec::new();
    for &p in &promise.models {
        let own = asked.iter().find(|o| o.model == p).map(Outcome::verdict);
        let implied = asked
            .iter()
            .any(|o| o.verdict() == Verdict::Violation && p.implies(o.model));
        let v = match own {
            Some(v) => Some(v),
            None if implied => Some(Verdict::Violation),
            None if any_violation => {
                let o = check(p);
                let v = o.verdict();
                extra.push(o);
                Some(v)
            }
            None => None,
        };
        verdicts.push(v);
    }
    let status = if verdicts.contains(&Some(Verdict::Violation)) {
        Status::Broken
    } else if verdicts.contains(&Some(Verdict::Unknown)) {
        Status::Unknown
    } else if verdicts.iter().all(|v| *v == Some(Verdict::Consistent)) {
        Status::Kept
    } else {
        Status::Unneeded
    };
    Kept {
        promise,
        status,
        extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::gradual::check_gradual;

    fn history(text: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).expect("parses");
        History::from_raw(&raw[0], 0).expect("a valid history")
    }

    /// Store buffering breaks SC, not TSO: on a TSO promise the SC
    /// violation is allowed; on an SC promise it breaks it.
    #[test]
    fn store_buffering_is_allowed_by_tso_and_breaks_sc() {
        let h = history("t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
        let asked = check_gradual(&h, &[Model::Sc]);
        assert_eq!(asked[0].verdict(), Verdict::Violation);
        let tso = Promise::flag(Model::Tso);
        let k = decide(&h, tso, &asked, &Options::default());
        assert_eq!(k.status, Status::Kept);
        assert_eq!(k.extra.len(), 1, "TSO was checked on its own");
        assert_eq!(k.breaks(&asked[0]), Some(false));
        let sc = Promise::flag(Model::Sc);
        let k = decide(&h, sc, &asked, &Options::default());
        assert_eq!(k.status, Status::Broken);
        assert!(k.extra.is_empty());
        assert_eq!(k.breaks(&asked[0]), Some(true));
    }

    /// A read of the initial value right after the thread's own write
    /// breaks every model: asked for CC alone, the TSO promise is broken.
    #[test]
    fn a_stale_own_read_breaks_a_tso_promise_asked_for_cc_alone() {
        let h = history("t0: W(x,1) R(x,0)\n");
        let asked = check_gradual(&h, &[Model::Cc]);
        assert_eq!(asked[0].verdict(), Verdict::Violation);
        let tso = Promise::flag(Model::Tso);
        let k = decide(&h, tso, &asked, &Options::default());
        assert_eq!(k.status, Status::Broken);
        assert_eq!(k.breaks(&asked[0]), Some(true));
        assert!(k.evidence(&asked).is_some());
    }

    /// Nothing violated: the promise is not decided.
    #[test]
    fn a_consistent_history_leaves_an_unasked_promise_undecided() {
        let h = history("t0: W(x,1) R(x,1)\n");
        let asked = check_gradual(&h, &[Model::Cc]);
        let k = decide(&h, Promise::flag(Model::Tso), &asked, &Options::default());
        assert_eq!(k.status, Status::Unneeded);
        assert!(k.extra.is_empty());
    }

    /// A run that promises ARMv8 (ARM O3 cores) is held to ARMv8: an SC
    /// violation ARMv8 allows (store buffering) does not break it, and
    /// ARMv8 is checked on its own to say it is kept.
    #[test]
    fn an_armv8_promise_is_held_to_armv8_not_sc() {
        let h = history("t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n");
        let armv8 = Declared::parse("armv8");
        let p = Promise::of(&h, armv8, None).expect("armv8 is a promise");
        assert_eq!(p.name(), "armv8");
        assert_eq!(p.models, vec![Model::Armv8]);
        let asked = check_gradual(&h, &[Model::Sc, Model::Cc]);
        assert_eq!(asked[0].verdict(), Verdict::Violation);
        let k = decide(&h, p, &asked, &Options::default());
        assert_eq!(k.status, Status::Kept);
        assert_eq!(k.reason(), None);
        // the SC violation is allowed: ARMv8 keeps it
        assert_eq!(k.breaks(&asked[0]), Some(false));
        // --promise still wins; an unknown name is no promise
        assert_eq!(
            Promise::of(&h, armv8, Some(Model::Tso)).unwrap().models,
            vec![Model::Tso]
        );
        assert_eq!(Declared::parse("armv9"), None);
        assert_eq!(Promise::of(&h, Declared::parse("armv9"), None), None);
    }

    /// `@expect` promises its strongest expected-to-hold models; the
    /// declared model wins over it, the flag over both.
    #[test]
    fn the_promise_comes_from_the_flag_then_the_declaration_then_expect() {
        let h = history("@expect sc=no tso=yes pso=yes cc=yes cm=yes\nt0: W(x,1)\n");
        let p = Promise::of(&h, None, None).expect("@expect promises");
        assert_eq!(p.source, Source::Expect);
        // tso implies pso and cc (if the facts say so); cm stays unless implied
        assert!(p.models.contains(&Model::Tso));
        assert!(!p.models.contains(&Model::Pso));
        let sc = Declared::parse("sc");
        assert_eq!(Promise::of(&h, sc, None).unwrap().models, vec![Model::Sc]);
        assert_eq!(
            Promise::of(&h, sc, Some(Model::Pso)).unwrap().models,
            vec![Model::Pso]
        );
    }
}
