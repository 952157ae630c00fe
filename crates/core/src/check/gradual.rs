//! The gradual pipeline: cheap models first, stop at the first violation;
//! store-order models completed by an engine under a time budget; every
//! certificate re-checked by the independent validator.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::budget::{Cancel, Limits};
use crate::cat::Definitions;
use crate::certificate::validate::{self, StoreModel};
use crate::certificate::{Pattern, Violation};
use crate::check::outcome::{mapped, MemoryLimit, Timeout, UnknownReason};
// (where they were defined before `outcome`)
pub use crate::check::outcome::{store_model, Decision, Outcome, Verdict, DERIVE_MAX_OPS};
use crate::check::scale::{self, Path, Scale};
use crate::check::shrink;
use crate::complete::{decide, kernel, linearize, tick_order, Completion, Engine, Kernel};
use crate::history::{History, OpId};
use crate::models::{Model, StoreOrder};
use crate::scale::lanes::{lanes, Lanes};

/// How to check.
#[derive(Debug, Clone)]
pub struct Options {
    /// The completion engine for SC/TSO/PSO.
    pub engine: Engine,
    /// Time budget per history (all its models together).
    pub timeout: Option<Duration>,
    /// Re-check every certificate with the independent validator.
    pub validate: bool,
    /// For consistent SC/TSO/PSO histories, compute the kernel.
    pub kernel: bool,
    /// Run each model's gradual chain of weaker models first (a violation
    /// then names the weakest model it breaks); off, each model is decided
    /// directly (SC/TSO/PSO still saturate before completing).
    pub gradual: bool,
    /// Dense or sparse representation (by size, by default).
    pub scale: Scale,
    /// Memory budget per history and model, in bytes: past the estimate,
    /// the verdict is `unknown` with the reason. The caller measures what
    /// the machine allows (the binary: `memconform_ingest::limits`).
    pub max_memory: u64,
    /// The caller's cancellation (the binary cancels it on a signal): the
    /// models not finished when it is cancelled are `unknown`
    /// ("interrupted"). Each history's time budget is a deadline added to
    /// it ([`Cancel::until`]).
    pub cancel: Cancel,
    /// Whether a small history's chain runs cc before the model itself,
    /// learnt from the histories checked so far with these options (their
    /// clones share it): [`ChainOrder`].
    pub chain_order: ChainOrder,
    /// The models' definitions, each parsed once for every history these
    /// options check (shared by their clones).
    pub definitions: Arc<Definitions>,
}

/// How often cc, the first model of most chains, was violated on the
/// histories checked so far (shared by the clones of one [`Options`]: a
/// batch learns it). On a small history cc runs before the model only while
/// it catches a violation in at least one history in [`CC_FIRST_SHARE`]:
/// a cc check costs about a fifth of a model's own (SC or TSO on valid
/// 4×50 histories), so below that share it costs more than the model
/// checks it saves (docs/design/gradual.md §2). The verdicts, certificates
/// and `decided_by` are the same either way: only the time differs.
#[derive(Debug, Clone, Default)]
pub struct ChainOrder(std::sync::Arc<ChainCounts>);

#[derive(Debug, Default)]
pub struct ChainCounts {
    /// Histories whose cc verdict is known (checked, or implied by the model).
    seen: std::sync::atomic::AtomicU64,
    /// Of those, the ones violating cc.
    violated: std::sync::atomic::AtomicU64,
}

/// cc runs first while at least one history in this many violated it.
pub const CC_FIRST_SHARE: u64 = 5;

/// The histories whose cc verdict is learnt before the rule applies (cc
/// first until then, as for a single history).
pub const CC_FIRST_WARM_UP: u64 = 32;

impl ChainOrder {
    /// Whether cc should run before the model on the next small history.
    pub fn cc_first(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let seen = self.0.seen.load(Relaxed);
        seen < CC_FIRST_WARM_UP || self.0.violated.load(Relaxed) * CC_FIRST_SHARE >= seen
    }

    /// Learns one history's cc verdict.
    fn learn(&self, cc_violated: bool) {
        use std::sync::atomic::Ordering::Relaxed;
        self.0.seen.fetch_add(1, Relaxed);
        if cc_violated {
            self.0.violated.fetch_add(1, Relaxed);
        }
    }
}

/// The memory budget per history and model when the caller measured none
/// ([`Options::default`]).
pub const DEFAULT_MAX_MEMORY: u64 = 4_000_000_000;

impl Default for Options {
    fn default() -> Options {
        Options {
            engine: Engine::Auto,
            timeout: Some(Duration::from_secs(10)),
            validate: true,
            kernel: false,
            gradual: true,
            scale: Scale::Auto,
            max_memory: DEFAULT_MAX_MEMORY,
            cancel: Cancel::new(),
            chain_order: ChainOrder::default(),
            definitions: Arc::default(),
        }
    }
}

#[derive(Clone)]
struct Run {
    verdict: Verdict,
    violation: Option<Violation>,
    store_order: Option<StoreOrder>,
    interleaving: Option<Vec<OpId>>,
    engine: Option<Engine>,
    unordered: Option<usize>,
    kernel: Option<Kernel>,
    reason: Option<UnknownReason>,
    invalid: Option<String>,
    uncertified: Option<String>,
    /// A violation the validator has yet to see: it is certified when an
    /// outcome reports it ([`settle`]), not when found, so a model's own
    /// violation that a weaker model's violation supersedes costs no
    /// certificate.
    pending: bool,
    seconds: f64,
}

impl Run {
    /// A consistent run by `engine` with nothing yet: the start of a model's
    /// run.
    fn consistent(engine: Option<Engine>) -> Run {
        Run {
            verdict: Verdict::Consistent,
            violation: None,
            store_order: None,
            interleaving: None,
            engine,
            unordered: None,
            kernel: None,
            reason: None,
            invalid: None,
            uncertified: None,
            pending: false,
            seconds: 0.0,
        }
    }
}

/// Checks each of `models` on `h` gradually with default options.
pub fn check_gradual(h: &History, models: &[Model]) -> Vec<Outcome> {
    check_gradual_with(h, models, &Options::default())
}

/// Checks each of `models` on `h`, gradually: the weaker models a model
/// implies are checked in their order (cheapest first) and the first
/// violation among them decides; the model itself runs right after cc, and
/// when it holds the rest are implied and skipped. On a timed run the
/// strongest asked store-order model's ticks witness (SC on a real-time
/// view: its zones), when it holds, decides every asked model it implies.
/// Each model runs at most once per history.
pub fn check_gradual_with(h: &History, models: &[Model], opts: &Options) -> Vec<Outcome> {
    // many one-operation threads that cannot change a verdict: checked without them
    if let Some(r) = super::trivial::Reduction::of(h, super::trivial::MIN_DROPPED) {
        let outcomes = check_whole(&r.sub, models, opts);
        return r.carry_back(h, outcomes);
    }
    check_whole(h, models, opts)
}

/// [`check_gradual_with`] on `h` as it is.
fn check_whole(h: &History, models: &[Model], opts: &Options) -> Vec<Outcome> {
    // the history's time budget, on the caller's cancellation
    let cancel = &opts.cancel.until(opts.timeout.map(|t| Instant::now() + t));
    let lanes = std::cell::OnceCell::new();
    let lanes = || lanes.get_or_init(|| lanes_of(h));
    let mut memo: HashMap<Model, Run> = HashMap::new();
    let mut out = Vec::new();
    // A timed run (gem5): the store order by ticks of the strongest asked
    // store-order model whose order the validator takes decides every asked
    // model it implies (SC implies them all), so a valid run pays for that
    // linear check alone. (Untimed histories keep each model's own check:
    // its partial store order and time are what the coverage and time
    // figures report.)
    let mut tried = Vec::new(); // models whose ticks witness failed: not tried again
    let mut strong = None;
    if opts.gradual {
        for s in Model::STORE.into_iter().filter(|s| models.contains(s)) {
            if zones_apply(h, s, opts) {
                // the real-time view: SC decided exactly, in O(n log n)
                let r = zones(h, opts, cancel);
                memo.insert(s, r.clone());
                if r.verdict == Verdict::Consistent && r.invalid.is_none() {
                    strong = Some((s, r));
                    break;
                }
                tried.push(s);
                continue;
            }
            let witness = by_ticks(h, s, opts).or_else(|| {
                (s == Model::Sc)
                    .then(|| by_greedy(h, opts, cancel))
                    .flatten()
            });
            match witness {
                Some(r) => {
                    strong = Some((s, r));
                    break;
                }
                None => tried.push(s),
            }
        }
    }
    let run = |m: Model| guarded(m, || run(h, &lanes, m, opts, cancel, !tried.contains(&m)));
    if let Some((s, r)) = &strong {
        memo.insert(*s, r.clone());
    }
    for (i, &m) in models.iter().enumerate() {
        if let Some((s, r)) = strong.as_ref().filter(|(s, _)| s.implies(m) && *s != m) {
            out.push(Outcome::implied(m, *s, r.seconds));
            continue;
        }
        let mut secs = 0.0;
        let mut by = m;
        let holds = memo
            .get(&m)
            .is_some_and(|r| r.verdict == Verdict::Consistent);
        let chain = if opts.gradual && !holds {
            m.gradual_chain()
        } else {
            &[]
        };
        if h.n() <= CHAIN_WHOLE_MAX {
            // A small history: the chain in its order, with the model
            // itself right after cc (one linear sweep that catches most
            // violations). When the model holds, every weaker model holds
            // too (the chain is implied), so a valid history pays for cc
            // at most (SC on valid 16×50 histories: 1.38× the --no-gradual
            // time with cc and ccv first, see docs/reference.md); when it
            // fails, the first violated model of the chain decides.
            let cc_chain = chain.first() == Some(&Model::Cc);
            let cheap = usize::from(cc_chain && opts.chain_order.cc_first());
            for (i, &weaker) in chain.iter().enumerate() {
                if i == cheap {
                    let r = memo.entry(m).or_insert_with(|| run(m));
                    if r.verdict == Verdict::Consistent {
                        break;
                    }
                }
                let r = memo.entry(weaker).or_insert_with(|| run(weaker));
                settle(h, weaker, r, opts, cancel);
                secs += r.seconds;
                if r.verdict == Verdict::Violation {
                    by = weaker;
                    break;
                }
            }
            // cc's verdict: run, or implied by the model's
            let cc = match (memo.get(&Model::Cc), memo.get(&m)) {
                (Some(cc), _) => Some(cc.verdict),
                (None, Some(r)) if r.verdict == Verdict::Consistent => Some(Verdict::Consistent),
                _ => None,
            };
            match cc {
                Some(v) if cc_chain && v != Verdict::Unknown => {
                    opts.chain_order.learn(v == Verdict::Violation)
                }
                _ => {}
            }
        } else {
            // A large history: the model itself first; when it holds, its
            // chain is implied. When it is violated, the weakest violated
            // model of the chain decides: cc, run first (one linear sweep
            // that catches a stale read with a cycle of a few edges, where
            // the model's own certificate of it can be hundreds: TSO on a
            // 2·10⁵-operation history with one stale read, 64 to 384), or
            // one asked before it and decided on this history, else the
            // weakest the model's counterexample violates — the operations
            // its certificate names (with the writes they read), a
            // sub-history of a few operations where the chain costs next
            // to nothing; a violation there is one of the history (every
            // model is monotone).
            if chain.first() == Some(&Model::Cc) {
                let r = memo.entry(Model::Cc).or_insert_with(|| run(Model::Cc));
                settle(h, Model::Cc, r, opts, cancel);
                secs += r.seconds;
            }
            let decided = chain.iter().find(|w| {
                memo.get(w)
                    .is_some_and(|r| r.verdict == Verdict::Violation && r.invalid.is_none())
            });
            if let Some(&w) = decided {
                by = w;
            } else if !chain.is_empty() {
                let r = memo.entry(m).or_insert_with(|| run(m));
                if r.verdict == Verdict::Violation && r.invalid.is_none() {
                    let v = r
                        .violation
                        .clone()
                        .expect("a violation has its certificate");
                    let own = r.seconds;
                    if let Some(mut found) = weakest_on_core(h, m, &v, chain, opts, cancel) {
                        found.seconds += own;
                        out.push(found);
                        continue;
                    }
                }
            }
        }
        let r = memo.entry(by).or_insert_with(|| run(by));
        settle(h, by, r, opts, cancel);
        if by == m {
            secs += r.seconds;
        }
        // the last model's run is taken, not copied: nothing needs it after
        let r = if i + 1 == models.len() {
            memo.remove(&by).expect("just run")
        } else {
            r.clone()
        };
        let own = by == m;
        let decision = match r.verdict {
            Verdict::Consistent => Decision::Consistent {
                store_order: if own { r.store_order } else { None },
                interleaving: if own { r.interleaving } else { None },
            },
            Verdict::Violation => Decision::Violation(
                r.violation
                    .expect("a violation is found with its certificate"),
            ),
            Verdict::Unknown => Decision::Unknown(r.reason.expect("an unknown run says why")),
        };
        out.push(Outcome {
            model: m,
            decision,
            decided_by: by,
            engine: if own { r.engine } else { None },
            unordered_after_saturation: if own { r.unordered } else { None },
            kernel: if own { r.kernel } else { None },
            invalid: r.invalid,
            uncertified: r.uncertified,
            seconds: secs,
        });
    }
    out
}

/// Up to this many operations (initial writes included) a violated
/// model's gradual chain runs on the history itself, as a chain is
/// defined; above, on its certificate's sub-history ([`weakest_on_core`]):
/// at 10⁶ operations the chain's models there took 2–3 times the model's
/// own check (docs/design/gradual.md §2). The validator's own limit
/// ([`DERIVE_MAX_OPS`]) is the same size for the same reason.
pub const CHAIN_WHOLE_MAX: usize = DERIVE_MAX_OPS;

/// The weakest model of `chain` (then `m` itself) that the sub-history of
/// `v`'s certificate violates ([`shrink::certificate_core`]), as `m`'s
/// outcome: decided by that model, its certificate there in `h`'s
/// operations, validated there (the validator checks first that the
/// sub-history is a projection of `h`). `None` when the sub-history is not
/// smaller or does not keep `m` violated: then `m`'s own violation
/// decides.
fn weakest_on_core(
    h: &History,
    m: Model,
    v: &Violation,
    chain: &[Model],
    opts: &Options,
    cancel: &Cancel,
) -> Option<Outcome> {
    let t = Instant::now();
    let (core, origin) = shrink::certificate_core(h, v)?;
    if core.n() >= h.n() || (opts.validate && validate::projection(h, &core, &origin).is_err()) {
        return None;
    }
    let left = cancel
        .deadline()
        .map(|d| d.saturating_duration_since(Instant::now()));
    let sub = Options {
        gradual: false,
        timeout: left.or(opts.timeout),
        ..opts.clone()
    };
    let check = |w: Model, validate: bool| {
        let opts = Options {
            validate,
            ..sub.clone()
        };
        check_gradual_with(&core, &[w], &opts)
            .pop()
            .expect("one outcome per model asked")
    };
    let own = check(m, opts.validate);
    if own.verdict() != Verdict::Violation {
        return None;
    }
    let (k, n) = (core.n_thread_ops(), h.n_thread_ops());
    // the weakest violated model of the chain there, else the model itself
    let o = chain
        .iter()
        .map(|&w| check(w, opts.validate))
        .find(|o| o.verdict() == Verdict::Violation)
        .unwrap_or(own);
    let Decision::Violation(found) = &o.decision else {
        unreachable!("a violation");
    };
    let mut mapped = mapped(found, &origin);
    mapped.certified_by = found.certified_by.as_deref().map(|how| {
        let sub =
            format!("the sub-history of the operations {m}'s certificate names ({k} of its {n})");
        match how.strip_suffix(" on the history") {
            Some(how) => format!("{how} on {sub}"),
            None => format!("{how}, within {sub}"),
        }
    });
    let seconds = t.elapsed().as_secs_f64();
    let mut out = Outcome::bare(m, Decision::Violation(mapped), o.model, seconds);
    out.invalid = o.invalid;
    out.uncertified = o.uncertified;
    Some(out)
}

fn lanes_of(h: &History) -> Lanes {
    lanes(h)
}

/// Whether SC on `h` is decided by per-variable zones
/// ([`crate::complete::linearize`]): one timed thread (gem5's real-time
/// view), the `auto` engine, the representation left to `auto` (a forced
/// dense or sparse one keeps the saturation engines, for cross-checks), no
/// kernel asked.
fn zones_apply(h: &History, m: Model, opts: &Options) -> bool {
    m == Model::Sc
        && opts.engine == Engine::Auto
        && opts.scale == Scale::Auto
        && !opts.kernel
        && linearize::applies(h)
}

/// SC by per-variable zones (linearizability), its certificate validated.
fn zones(h: &History, opts: &Options, cancel: &Cancel) -> Run {
    let t = Instant::now();
    let mut r = Run::consistent(Some(Engine::Zones));
    if cancel.spent() {
        r.verdict = Verdict::Unknown;
        r.engine = None;
        r.reason = Some(UnknownReason::stopped(cancel, Timeout::Before));
    } else {
        match linearize::decide(h) {
            Ok(order) => {
                if opts.validate {
                    r.invalid = validate::store_order(h, StoreModel::Sc, &order)
                        .err()
                        .map(rejected);
                }
                r.store_order = Some(StoreOrder::total(h, &order));
            }
            Err(v) => {
                r.verdict = Verdict::Violation;
                r.violation = Some(v);
                r.pending = opts.validate;
            }
        }
    }
    r.seconds = t.elapsed().as_secs_f64();
    r
}

/// A timed run's (gem5's) store order by ticks for SC, TSO or PSO, when
/// the validator takes it (`auto` engine, no kernel asked): the model holds.
fn by_ticks(h: &History, m: Model, opts: &Options) -> Option<Run> {
    let t = Instant::now();
    let sm = store_model(m)?;
    if opts.engine != Engine::Auto || opts.kernel {
        return None;
    }
    let order = tick_order(h)?;
    validate::store_order(h, sm, &order).ok()?;
    Some(Run {
        store_order: Some(StoreOrder::total(h, &order)),
        seconds: t.elapsed().as_secs_f64(),
        ..Run::consistent(Some(Engine::Ticks))
    })
}

/// SC of a wide history by a greedy interleaving ([`greedy_sc`]), validated
/// here: a witness decides SC and every model SC implies, so a valid wide
/// history pays for that search alone.
fn by_greedy(h: &History, opts: &Options, cancel: &Cancel) -> Option<Run> {
    let t = Instant::now();
    if opts.kernel {
        return None;
    }
    let sm = store_model(Model::Sc)?;
    let d = greedy_sc(h, Model::Sc, opts, cancel)?;
    let Ok(Completion::Found {
        order,
        interleaving,
    }) = d.result
    else {
        return None;
    };
    validate::store_order(h, sm, &order).ok()?;
    if let Some(i) = &interleaving {
        validate::interleaving(h, i).ok()?;
    }
    Some(Run {
        store_order: Some(StoreOrder::total(h, &order)),
        interleaving,
        seconds: t.elapsed().as_secs_f64(),
        ..Run::consistent(Some(Engine::Interleave))
    })
}

/// The validator's reason for rejecting a certificate, as an internal error.
fn rejected(why: String) -> String {
    format!("certificate rejected: {why}")
}

/// Runs one model's check; a panic in it (a bug of memconform's) is this
/// model's `unknown`, reported as an internal error, and the batch goes on.
fn guarded(m: Model, f: impl FnOnce() -> Run) -> Run {
    let t = Instant::now();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let mut r = panicked(m, "check", payload);
        r.seconds = t.elapsed().as_secs_f64();
        r
    })
}

/// The run of `m` whose `part` (its check, or the validator on its
/// violation) panicked: `unknown`, an internal error.
fn panicked(m: Model, part: &'static str, payload: Box<dyn std::any::Any + Send>) -> Run {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    let mut r = Run::consistent(None);
    r.verdict = Verdict::Unknown;
    r.reason = Some(UnknownReason::Internal { model: m, part });
    r.invalid = Some(format!("the {m} {part} panicked: {what}"));
    r
}

/// From how many threads SC tries a greedy interleaving before saturation:
/// saturation's work grows with the threads (frontiers, unordered pairs),
/// the greedy search's with the operations times the threads.
const GREEDY_THREADS: usize = 256;

/// How often the greedy search may go back to an earlier choice before it
/// gives up (each return costs a scan of the thread heads).
const GREEDY_BACKTRACKS: u64 = 256;

/// SC on a wide history of untimed threads with `--engine auto`: a greedy
/// interleaving over po and rf first ([`crate::complete::interleave::greedy`]);
/// only a witness is an answer, validated as any other.
fn greedy_sc(
    h: &History,
    m: Model,
    opts: &Options,
    cancel: &Cancel,
) -> Option<crate::complete::Decision> {
    if m != Model::Sc || opts.engine != Engine::Auto || h.threads.len() < GREEDY_THREADS {
        return None;
    }
    let limits = Limits {
        cancel,
        memory: u64::MAX,
    };
    let found = crate::complete::interleave::greedy(h, limits, GREEDY_BACKTRACKS)?;
    Some(crate::complete::Decision {
        result: Ok(found),
        engine: Some(Engine::Interleave),
        unordered_after_saturation: 0,
        witness_only: false,
    })
}

/// PSO's violation of the sub-history of TSO's violation `v` of `h`
/// ([`shrink::certificate_core`]: the operations its certificate names,
/// with the writes they read), in `h`'s operations: PSO violated on a
/// sub-history is PSO violated on `h`, so PSO's own graphs (a store
/// sub-chain per lane and variable) need not be built for a stale read
/// both models forbid. With `opts.validate`, certified there
/// ([`certified_on`], as [`certify_on_core`] does); when it is not, the caller's
/// validator certifies it on `h` as any other violation. `None` when the
/// sub-history is not smaller, is over [`DERIVE_MAX_OPS`] or keeps PSO:
/// then PSO's own graphs decide.
fn pso_on_core(h: &History, v: &Violation, opts: &Options, cancel: &Cancel) -> Option<Violation> {
    let (core, origin) =
        shrink::certificate_core(h, v).filter(|(c, _)| c.n() < h.n() && c.n() <= DERIVE_MAX_OPS)?;
    let sub = Options {
        gradual: false,
        validate: false,
        timeout: cancel
            .deadline()
            .map(|d| d.saturating_duration_since(Instant::now())),
        ..opts.clone()
    };
    let o = check_gradual_with(&core, &[Model::Pso], &sub).pop()?;
    // a cycle: NoStoreOrder names no operation to certify it by in `h`
    let mut found = o.violation().filter(|f| !f.cycle.is_empty())?.clone();
    let how = opts.validate.then(|| {
        let sm = Some(StoreModel::Pso);
        certified_on(h, &core, &origin, &mut found, sm, "TSO's certificate")
    });
    let mut lifted = mapped(&found, &origin);
    lifted.certified_by = how.flatten();
    Some(lifted)
}

/// Runs one model and validates its witness; a violation waits for the
/// validator until an outcome reports it ([`settle`]). `lanes` gives the history's lanes (computed on first use: only the
/// sparse forms need them); `ticks`: try a witness shortcut first — a timed
/// run's store order by ticks, a wide history's greedy SC interleaving —
/// (off when the gradual pipeline tried it already).
fn run<'a>(
    h: &History,
    lanes: &dyn Fn() -> &'a Lanes,
    m: Model,
    opts: &Options,
    cancel: &Cancel,
    ticks: bool,
) -> Run {
    let t = Instant::now();
    let mut r = Run::consistent(None);
    let store_model = store_model(m);
    // the real-time view: SC is linearizability, decided per variable
    if zones_apply(h, m, opts) {
        return zones(h, opts, cancel);
    }
    // a timed run (gem5): the ticks' store order first, if the validator takes it
    if let Some(r) = ticks.then(|| by_ticks(h, m, opts)).flatten() {
        return r;
    }
    let path = match (m.path(h, lanes, opts.scale, opts.max_memory), store_model) {
        // the dense completion engines other than enum have no sparse form
        (Path::Sparse, Some(_)) if !matches!(opts.engine, Engine::Auto | Engine::Enum) => {
            match m.path(h, lanes, Scale::Dense, opts.max_memory) {
                Path::TooLarge(mut why) => {
                    if let MemoryLimit::Estimate { dense_only, .. } = &mut why {
                        *dense_only = true;
                    }
                    Path::TooLarge(why)
                }
                p => p,
            }
        }
        (p, _) => p,
    };
    if let Path::TooLarge(why) = path {
        r.verdict = Verdict::Unknown;
        r.reason = Some(UnknownReason::MemoryLimit(why));
    } else if let Some(sm) = store_model {
        if cancel.spent() {
            r.verdict = Verdict::Unknown;
            r.reason = Some(UnknownReason::stopped(cancel, Timeout::Before));
        } else {
            // (the gradual pipeline tried it already when `ticks` is off)
            let greedy = ticks.then(|| greedy_sc(h, m, opts, cancel)).flatten();
            let saturated = greedy.is_none();
            let d = if let Some(d) = greedy {
                d
            } else if path == Path::Sparse {
                let lift = |v: &Violation| pso_on_core(h, v, opts, cancel);
                scale::decide(h, lanes(), m, cancel, opts.max_memory, &lift)
            } else {
                let spec = m.spec(h, &opts.definitions).expect("a store-order model");
                let limits = Limits {
                    cancel,
                    memory: opts.max_memory,
                };
                decide(h, &spec, opts.engine, limits)
            };
            if m == Model::Pso && path == Path::Sparse && scale::pso_undecided(&d) {
                r.verdict = Verdict::Unknown;
                r.reason = Some(UnknownReason::MemoryLimit(MemoryLimit::PsoWithoutTso {
                    ops: h.n(),
                    bytes: crate::scale::pso::sparse_bytes(h, lanes()),
                }));
                r.seconds = t.elapsed().as_secs_f64();
                return r;
            }
            r.engine = d.engine;
            // (no saturation ran before a greedy witness)
            r.unordered = saturated.then_some(d.unordered_after_saturation);
            match d.result {
                Ok(Completion::Found {
                    order,
                    interleaving,
                }) => {
                    if opts.validate {
                        r.invalid = validate::store_order(h, sm, &order)
                            .and_then(|()| {
                                interleaving
                                    .as_ref()
                                    .map_or(Ok(()), |i| validate::interleaving(h, i))
                            })
                            .err()
                            .map(rejected);
                    }
                    r.store_order = Some(StoreOrder::total(h, &order));
                    if opts.kernel && path == Path::Dense {
                        let spec = m.spec(h, &opts.definitions).expect("a store-order model");
                        r.kernel = kernel(h, &spec, cancel);
                    }
                    r.interleaving = interleaving;
                }
                Ok(Completion::Exhausted) => {
                    r.verdict = Verdict::Violation;
                    r.violation = Some(Violation::cycle(Pattern::NoStoreOrder, Vec::new()));
                }
                Ok(Completion::OverMemory(what)) => {
                    r.verdict = Verdict::Unknown;
                    r.reason = Some(UnknownReason::MemoryLimit(MemoryLimit::Search {
                        what,
                        limit: opts.max_memory,
                        unordered: d.unordered_after_saturation,
                    }));
                }
                Ok(Completion::TimedOut) => {
                    r.verdict = Verdict::Unknown;
                    let stage = match d.engine {
                        Some(_) => Timeout::Completion {
                            unordered: d.unordered_after_saturation,
                        },
                        None => Timeout::Saturation,
                    };
                    r.reason = Some(UnknownReason::stopped(cancel, stage));
                }
                Err(v) => {
                    r.verdict = Verdict::Violation;
                    r.violation = Some(v);
                }
            }
        }
    } else {
        let checked = if path == Path::Sparse {
            scale::check(h, lanes(), m, cancel)
        } else {
            m.check_until(h, &opts.definitions, cancel)
        };
        match checked {
            Some(Ok(order)) => r.store_order = order,
            Some(Err(v)) => {
                r.verdict = Verdict::Violation;
                r.violation = Some(v);
            }
            None => {
                r.verdict = Verdict::Unknown;
                r.reason = Some(UnknownReason::stopped(cancel, Timeout::Check(m)));
            }
        }
    }
    // (a violation lifted from a sub-history may come certified there)
    r.pending = opts.validate
        && r.violation
            .as_ref()
            .is_some_and(|v| v.certified_by.is_none());
    r.seconds = t.elapsed().as_secs_f64();
    r
}

/// Certifies `r`'s violation of `m` if it waits for the validator
/// ([`Run::pending`]); the time counts in the run's. A panic in the
/// validator is this model's `unknown`, an internal error, as in
/// [`guarded`].
fn settle(h: &History, m: Model, r: &mut Run, opts: &Options, cancel: &Cancel) {
    if !std::mem::take(&mut r.pending) {
        return;
    }
    let t = Instant::now();
    let seconds = r.seconds;
    let Some(mut v) = r.violation.take() else {
        return;
    };
    let certified = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        certify(h, m, &mut v, r, opts, cancel);
        v
    }));
    match certified {
        Ok(v) => r.violation = Some(v),
        Err(payload) => *r = panicked(m, "validator", payload),
    }
    r.seconds = seconds + t.elapsed().as_secs_f64();
}

/// The validator's confirmation of `m`'s violation `v` of `h`, into `r`:
/// `v.certified_by` when confirmed (with `v.justifications` on the history
/// itself), `r.invalid` when rejected, `r.uncertified` when it could not
/// be decided. A violation with no cycle (`NoStoreOrder`), or one on a
/// history over [`DERIVE_MAX_OPS`], is shrunk first (the engines'
/// shrinker, untrusted: the validator checks that the result is a
/// projection of `h`, and every model is monotone, so a violation of the
/// sub-history is one of `h`), then re-derived or decided by brute force
/// there.
fn certify(h: &History, m: Model, v: &mut Violation, r: &mut Run, opts: &Options, cancel: &Cancel) {
    let sm = store_model(m);
    // CM's and CCM's cycles met in one observer's hb_o, at scale: the
    // engine's proof of each derived edge, which the validator checks in
    // proportion to it (§8)
    if h.n() > DERIVE_MAX_OPS && proof_searched(v.pattern) && v.justifications.is_empty() {
        // the proof search's own time, as a shrink's at scale: the check's
        let until = Instant::now().checked_add(shrink_budget(h, r.seconds));
        let proof_cancel = opts.cancel.until(until);
        if let Some(js) = crate::scale::cm::justify(h, &lanes_of(h), v, &proof_cancel) {
            v.justifications = js;
        }
    }
    let first = match certify_here(h, v, sm) {
        Cert::Certified(how) => {
            v.certified_by = Some(format!("{how} on the history"));
            return;
        }
        Cert::Rejected(why) => Err(why),
        Cert::TooLarge(why) => Ok(why),
    };
    // the certificate's own operations first: certified there, no shrink
    if first.is_ok() {
        if let Some(how) = certify_on_core(h, v, sm) {
            v.certified_by = Some(how);
            return;
        }
    }
    // windows of program order around the cycle, each checked (and
    // certified) as a history of its own: its violation is one of `h`
    if first.is_ok() {
        if let Some(w) = certify_on_window(h, m, v, opts, cancel) {
            *v = w;
            return;
        }
    }
    // shrink with the engines (no validation inside, no gradual chain: the
    // model itself stays violated), check the projection, certify there
    let sub_opts = Options {
        validate: false,
        gradual: false,
        ..opts.clone()
    };
    let left = cancel
        .deadline()
        .map(|d| d.saturating_duration_since(Instant::now()))
        .unwrap_or(Duration::from_secs(30));
    let budget = left.min(shrink_budget(h, r.seconds));
    let target = shrink::Target {
        model: m,
        weakest: m,
    };
    let why = match &first {
        Ok(why) | Err(why) => why.clone(),
    };
    let shrink_started = Instant::now();
    let (outcome, mapped) = match shrink::shrink_known(h, target, &sub_opts, Some(budget), v) {
        Err(e) => (
            Cert::TooLarge(format!("{why}; shrinking lost the violation ({e})")),
            None,
        ),
        Ok(mut s) => match validate::projection(h, &s.history, &s.origin) {
            Err(e) => (
                Cert::Rejected(format!("the shrunk sub-history is not a projection: {e}")),
                None,
            ),
            Ok(()) => {
                let k = s.history.n_thread_ops();
                let c = match certify_here(&s.history, &mut s.violation, sm) {
                    Cert::Certified(how) => Cert::Certified(format!(
                        "{how} on a shrunk sub-history of {k} of its {} operations ({})",
                        h.n_thread_ops(),
                        s.violation.pattern.name(),
                    )),
                    Cert::Rejected(e) => {
                        Cert::Rejected(format!("on a shrunk sub-history of {k} operations: {e}"))
                    }
                    // (over the size limit, `e` repeats `why` in the shrunk size)
                    Cert::TooLarge(e) => {
                        let secs = shrink_started.elapsed().as_secs_f64();
                        Cert::TooLarge(match s.history.n() > DERIVE_MAX_OPS {
                            true => format!(
                                "{why}; a shrink of {secs:.1} s got it to {k} operations, still over it"
                            ),
                            false => format!("{why}; shrunk to {k} operations, still: {e}"),
                        })
                    }
                };
                (c, Some(mapped(&s.violation, &s.origin)))
            }
        },
    };
    match (first, outcome) {
        (Ok(_), Cert::Certified(how)) => v.certified_by = Some(how),
        // the engine's certificate is wrong but the violation holds: the
        // shrunk one, in the history's operations, replaces it (valid in
        // the whole history too: every rule is monotone), and says so
        (Err(rejection), Cert::Certified(how)) => {
            let mut w = mapped.expect("certified on a shrunk sub-history");
            let again = match h.n() <= DERIVE_MAX_OPS {
                true => validate::violation_in(h, &w, sm),
                false => Ok(()),
            };
            match again {
                Ok(()) => {
                    w.certified_by = Some(format!(
                        "{how}; it replaces the engine's certificate, which the validator rejected: {rejection}"
                    ));
                    *v = w;
                }
                Err(e) => r.invalid = Some(rejected(format!("{rejection}; and {e}"))),
            }
        }
        (Err(rejection), _) => r.invalid = Some(rejected(rejection)),
        (Ok(_), Cert::Rejected(e)) => r.invalid = Some(rejected(e)),
        (Ok(_), Cert::TooLarge(e)) => {
            r.uncertified = Some(format!("certificate not re-checked: {e}"));
        }
    }
}

/// Above this many operations (initial writes included) the shrink that
/// certifies a violation when neither its own operations nor a window
/// around its cycle do ([`certify`]) gets the time of the model's own
/// check, at least [`SHRINK_MIN_SECONDS`], not the whole time budget: its
/// each step is a check of hundreds of thousands of operations, and a
/// violation whose derived edges span the history (CM's `hb_o` at 10⁶
/// operations of a TSO history) shrank for 11 s to 375,481 operations,
/// still over [`DERIVE_MAX_OPS`], after a 2.3 s check
/// (docs/design/gradual.md §2). Below it the shrink reaches a
/// certificate in well under a second and keeps the whole budget.
pub const SHRINK_BOUNDED_OVER: usize = 16 * DERIVE_MAX_OPS;

/// The least time the bounded shrink of [`SHRINK_BOUNDED_OVER`] gets.
const SHRINK_MIN_SECONDS: f64 = 1.0;

/// The time the certifying shrink of `h`'s violation may take, its model's
/// own check having taken `own` seconds ([`SHRINK_BOUNDED_OVER`]).
fn shrink_budget(h: &History, own: f64) -> Duration {
    if h.n() <= SHRINK_BOUNDED_OVER {
        return Duration::MAX;
    }
    Duration::from_secs_f64(own.max(SHRINK_MIN_SECONDS))
}

/// `v` certified on the sub-history of the operations it names (with the
/// writes they read, a few hundred at most: [`shrink::certificate_core`]),
/// the validator first checking that it is a projection of `h`: how, with
/// `v`'s justifications filled in `h`'s operations; `None` when a derived
/// edge of the cycle needs more of the history (a sub-history's violation
/// is one of the history, not the other way round).
fn certify_on_core(h: &History, v: &mut Violation, sm: Option<StoreModel>) -> Option<String> {
    let (core, origin) = shrink::certificate_core(h, v).filter(|(c, _)| c.n() < h.n())?;
    let mut w = core_violation(v, &origin)?;
    let how = certified_on(h, &core, &origin, &mut w, sm, "the operations it names")?;
    v.justifications = mapped(&w, &origin).justifications;
    Some(how)
}

/// `w`, a violation of `core` (a sub-history of `h`, `origin` its
/// operations there), certified on `core` after the validator checks that
/// it is a projection of `h`: how, naming the sub-history as `what`.
fn certified_on(
    h: &History,
    core: &History,
    origin: &[OpId],
    w: &mut Violation,
    sm: Option<StoreModel>,
    what: &str,
) -> Option<String> {
    validate::projection(h, core, origin).ok()?;
    let Cert::Certified(how) = certify_here(core, w, sm) else {
        return None;
    };
    Some(format!(
        "{how} on the sub-history of {what} ({} of its {} operations)",
        core.n_thread_ops(),
        h.n_thread_ops()
    ))
}

/// The half-widths of the program-order windows [`certify_on_window`] tries.
const WINDOWS: [usize; 4] = [16, 64, 256, 1024];

/// `m`'s violation of a window of `h` around `v`'s cycle
/// ([`shrink::window_core`], widened until one keeps `m` violated or
/// passes [`DERIVE_MAX_OPS`]), checked there with its own certificate
/// validated (the validator first checks the window is a projection of
/// `h`; every model is monotone, so it is a violation of `h`), in `h`'s
/// operations: it replaces `v`, whose derived edges the validator could
/// not re-derive on its own operations. `None` when no window does.
fn certify_on_window(
    h: &History,
    m: Model,
    v: &Violation,
    opts: &Options,
    cancel: &Cancel,
) -> Option<Violation> {
    let mut last = 0;
    for w in WINDOWS {
        let (sub, origin) = shrink::window_core(h, v, w)?;
        if sub.n() > DERIVE_MAX_OPS || sub.n() >= h.n() {
            return None;
        }
        if sub.n() == last {
            continue; // the threads end within the smaller window
        }
        last = sub.n();
        if cancel.spent() {
            return None;
        }
        validate::projection(h, &sub, &origin).ok()?;
        let o = check_gradual_with(
            &sub,
            &[m],
            &Options {
                gradual: false,
                validate: true,
                timeout: cancel
                    .deadline()
                    .map(|d| d.saturating_duration_since(Instant::now())),
                ..opts.clone()
            },
        )
        .pop()?;
        if o.invalid.is_some() {
            return None;
        }
        let Some(found) = o.violation() else { continue };
        let Some(how) = found.certified_by.as_deref() else {
            continue;
        };
        let mut w_v = mapped(found, &origin);
        w_v.certified_by = Some(format!(
            "{how}, a window of {} of its {} operations around the engines' cycle ({}), whose own certificate replaces it",
            sub.n_thread_ops(),
            h.n_thread_ops(),
            found.pattern.name()
        ));
        return Some(w_v);
    }
    None
}

/// `v`, a violation of a history, in the operations of its sub-history
/// whose `origin` maps them back (`None` when an operation `v` names is
/// not kept).
fn core_violation(v: &Violation, origin: &[OpId]) -> Option<Violation> {
    let back: std::collections::HashMap<OpId, OpId> =
        origin.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let at = |o: OpId| back.get(&o).copied();
    let step = |s: &crate::certificate::Step| {
        Some(crate::certificate::Step {
            from: at(s.from)?,
            rel: s.rel,
            to: at(s.to)?,
        })
    };
    Some(Violation {
        pattern: v.pattern,
        cycle: v.cycle.iter().map(step).collect::<Option<_>>()?,
        ops: v
            .ops
            .iter()
            .map(|&(o, role)| Some((at(o)?, role)))
            .collect::<Option<_>>()?,
        justifications: Vec::new(),
        certified_by: None,
    })
}

/// What the validator makes of a certificate on one history.
enum Cert {
    Certified(String),
    Rejected(String),
    TooLarge(String),
}

/// [`certify`] on `h` itself, without shrinking.
/// The patterns whose certificates at scale come with the engine's proof
/// ([`crate::scale::cm::justify`]): CM's `hb_o` cycles and CCM's `pww`
/// cycles met in one observer's `hb_o`.
fn proof_searched(p: Pattern) -> bool {
    matches!(
        p,
        Pattern::CyclicHB | Pattern::WriteHBInitRead | Pattern::CyclicPww
    )
}

fn certify_here(h: &History, v: &mut Violation, sm: Option<StoreModel>) -> Cert {
    use crate::certificate::brute::{self, Brute};
    use crate::certificate::derive;
    if v.pattern == Pattern::NoStoreOrder {
        let Some(sm) = sm else {
            return Cert::Rejected("NoStoreOrder for a model without a store order".into());
        };
        return match brute::decide(h, sm) {
            Brute::Violated { orders } => Cert::Certified(format!(
                "confirmed by brute force ({orders} store orders, none valid)"
            )),
            Brute::Consistent(_) => Cert::Rejected(
                validate::violation_in(h, v, Some(sm))
                    .err()
                    .unwrap_or_else(|| "NoStoreOrder, but a store order exists".into()),
            ),
            Brute::TooLarge(why) => Cert::TooLarge(format!("NoStoreOrder: {why}")),
        };
    }
    let derived = derive::Family::of(v.pattern, sm)
        .is_some_and(|f| v.cycle.iter().any(|s| !f.rules(s.rel).is_empty()));
    let proof = proof_searched(v.pattern) && !v.justifications.is_empty();
    if derived && h.n() > DERIVE_MAX_OPS {
        let over = format!(
            "{} operations, over the {DERIVE_MAX_OPS} the validator re-derives relations on",
            h.n()
        );
        if !proof {
            return Cert::TooLarge(over);
        }
        // the engine's proof, checked edge by edge (a rejected proof leaves
        // the violation to be certified as before, on a smaller history)
        return match validate::violation_in(h, v, sm) {
            Ok(()) => Cert::Certified("proof-checked (the engine's justifications)".into()),
            Err(e) => {
                v.justifications.clear();
                Cert::TooLarge(format!("{over}; the engine's proof was rejected: {e}"))
            }
        };
    }
    if derived && v.justifications.is_empty() {
        match derive::justify(h, v, sm) {
            Ok(js) => v.justifications = js,
            Err(e) => return Cert::Rejected(e),
        }
    }
    match validate::violation_in(h, v, sm) {
        Ok(()) if derived => Cert::Certified("re-derived".into()),
        Ok(()) => Cert::Certified("checked".into()),
        Err(e) => Cert::Rejected(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{history, Memory, Shape};

    /// A batch that rarely violates cc stops running it before the model on
    /// small histories, and the answers stay those of cc first: verdict,
    /// deciding model and certificate, for every model with a chain.
    #[test]
    fn the_chain_order_learnt_changes_no_answer() {
        use crate::cat::sample::{history, Sample};
        // options that learnt cc to be rarely violated: the model first
        let learnt = || {
            let o = Options::default();
            assert!(o.chain_order.cc_first());
            for _ in 0..CC_FIRST_WARM_UP {
                o.chain_order.learn(false);
            }
            assert!(!o.chain_order.cc_first());
            o
        };
        let mut decided_by_weaker = 0;
        for seed in 0..400u64 {
            let s = Sample {
                threads: 3,
                ops: 5,
                vars: 2,
                annotations: false,
                timed: false,
                finals: false,
                thin_air: false,
                stale: [0.0, 0.1, 0.3, 1.0][(seed % 4) as usize],
            };
            let (h, text) = history(s, seed);
            for m in [Model::Sc, Model::Tso, Model::Ccv, Model::Wsc] {
                // a fresh options each time: cc first
                let first = check_gradual_with(&h, &[m], &Options::default());
                let then = check_gradual_with(&h, &[m], &learnt());
                let key = |o: &Outcome| {
                    (
                        o.verdict(),
                        o.decided_by,
                        format!("{:?}", o.decision),
                        o.uncertified.clone(),
                    )
                };
                assert_eq!(key(&first[0]), key(&then[0]), "{m} seed {seed}\n{text}");
                decided_by_weaker += usize::from(first[0].decided_by != m);
            }
        }
        // (the histories break the chain's weaker models too)
        assert!(decided_by_weaker > 50, "{decided_by_weaker}");
    }

    /// A panic in a model's check is that model's `unknown` and an internal
    /// error (exit 3), not the end of the batch.
    #[test]
    fn a_panicking_check_is_an_internal_error_of_its_model() {
        let r = guarded(Model::Tso, || panic!("a bug"));
        assert_eq!(r.verdict, Verdict::Unknown);
        assert!(r.reason.unwrap().to_string().contains("internal error"));
        assert!(r.invalid.as_deref().unwrap().contains("a bug"));
    }

    /// Every dense model asks its token: under a spent one it stops
    /// (docs/design/gradual.md §7) — the store-order models inside
    /// saturation, the others before they start and inside; under none its
    /// result is unchanged.
    #[test]
    fn dense_checks_stop_when_the_budget_is_spent() {
        let shape = Shape {
            threads: 8,
            ops_per_thread: 25,
            vars: 3,
            write_ratio: 0.5,
        };
        let h = history(Memory::Tso, shape, 7);
        let spent = Cancel::NEVER.until(Some(Instant::now()));
        for m in Model::EVERY {
            assert!(
                m.check_until(&h, &Definitions::new(), &spent).is_none(),
                "{m}"
            );
            let free = m
                .check_until(&h, &Definitions::new(), &Cancel::NEVER)
                .expect("no deadline");
            assert_eq!(free.is_ok(), m.check(&h).is_ok(), "{m}");
        }
    }

    /// The dense polynomial models ask their token after they start (in
    /// their closures, `hb_o` and wSC's fixpoint, between their steps), so
    /// one forced far past the dense sizes stops near its deadline
    /// (docs/design/gradual.md §7): a deadline at the token's second poll,
    /// the first after the one before the model starts, stops each. In the
    /// pipeline, a deadline at any poll until the model finishes is
    /// `unknown` with the timeout inside that model; one past its last poll
    /// is its verdict.
    #[test]
    fn dense_polynomial_models_stop_inside_at_their_deadline() {
        let shape = Shape {
            threads: 4,
            ops_per_thread: 40,
            vars: 4,
            write_ratio: 0.5,
        };
        let h = history(Memory::Sc, shape, 11);
        assert!(h.n() > 64, "rows of more than one word");
        let defs = Definitions::new();
        for m in Model::ALL {
            let stopped = m.check_until(&h, &defs, &Cancel::after_polls(2));
            assert!(
                stopped.is_none(),
                "{m} asks its token only before it starts"
            );
            let opts = |polls| Options {
                gradual: false,
                scale: Scale::Dense,
                timeout: None,
                cancel: Cancel::after_polls(polls),
                ..Options::default()
            };
            let mut polls = 1;
            let last = loop {
                let out = check_gradual_with(&h, &[m], &opts(polls));
                if out[0].verdict() != Verdict::Unknown {
                    break out;
                }
                let why = out[0].reason().expect("an unknown has a reason");
                assert_eq!(
                    why,
                    &UnknownReason::Timeout(Timeout::Check(m)),
                    "{m} at poll {polls}"
                );
                polls += 1;
                assert!(polls < 100_000, "{m} never finishes");
            };
            assert!(polls > 2, "{m}: stopped at only {polls} polls");
            assert_eq!(last[0].verdict(), Verdict::Consistent, "{m}: an SC history");
        }
    }

    /// A check whose token its caller cancelled: the models not decided are
    /// `unknown`, interrupted by the name the caller gave; a token apart
    /// from it checks as before. (Dense: every dense model asks the token;
    /// sparse CC, CCv and wSC, one sweep each, do not.)
    #[test]
    fn a_cancelled_check_says_who_interrupted_it() {
        let shape = Shape {
            threads: 4,
            ops_per_thread: 20,
            vars: 2,
            write_ratio: 0.5,
        };
        let h = history(Memory::Sc, shape, 3);
        let opts = Options {
            scale: Scale::Dense,
            ..Options::default()
        };
        opts.cancel.cancel("SIGTERM");
        for o in check_gradual_with(&h, &Model::EVERY, &opts) {
            let why = o.reason().map(|r| r.to_string());
            assert_eq!(
                why.as_deref(),
                Some("interrupted (SIGTERM) before this model finished"),
                "{}",
                o.model
            );
        }
        let fresh = Options {
            cancel: Cancel::new(),
            ..opts
        };
        let fresh = check_gradual_with(&h, &Model::EVERY, &fresh);
        assert!(fresh.iter().all(|o| o.verdict() == Verdict::Consistent));
    }
}
