//! The gradual pipeline: cheap models first, stop at the first violation.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

use crate::certificate::Violation;
use crate::history::History;
use crate::models::{Checked, Model, StoreOrder};

/// A model's answer for one history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// The outcome of checking one model on one history.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub model: Model,
    pub verdict: Verdict,
    /// The model whose check decided: `model` itself, or a weaker model of its
    /// gradual chain that was already violated.
    pub decided_by: Model,
    pub violation: Option<Violation>,
    /// The partial store order of `model`, when it holds and has one.
    pub store_order: Option<StoreOrder>,
    /// Seconds spent on the checks this outcome needed (shared checks count
    /// for every outcome that needed them).
    pub seconds: f64,
}

/// Checks each of `models` on `h`, gradually: before a model, the weaker
/// models it implies run first (cheapest first), and the first violation
/// among them decides. Each model runs at most once per history.
pub fn check_gradual(h: &History, models: &[Model]) -> Vec<Outcome> {
    let mut memo: HashMap<Model, (Checked, f64)> = HashMap::new();
    let mut run = |m: Model| -> (bool, f64) {
        let (res, secs) = memo.entry(m).or_insert_with(|| {
            let t = Instant::now();
            let r = m.check(h);
            (r, t.elapsed().as_secs_f64())
        });
        (res.is_ok(), *secs)
    };
    let mut decided: Vec<(Model, Model, f64)> = Vec::new();
    for &m in models {
        let mut secs = 0.0;
        let mut by = m;
        for &weaker in m.gradual_chain() {
            let (ok, s) = run(weaker);
            secs += s;
            if !ok {
                by = weaker;
                break;
            }
        }
        if by == m {
            secs += run(m).1;
        }
        decided.push((m, by, secs));
    }
    decided
        .into_iter()
        .map(|(model, by, seconds)| {
            let (res, _) = &memo[&by];
            match res {
                Ok(order) => Outcome {
                    model,
                    verdict: Verdict::Consistent,
                    decided_by: by,
                    violation: None,
                    store_order: order.clone(),
                    seconds,
                },
                Err(v) => Outcome {
                    model,
                    verdict: Verdict::Violation,
                    decided_by: by,
                    violation: Some(v.clone()),
                    store_order: None,
                    seconds,
                },
            }
        })
        .collect()
}
