//! The results table's one row type: one history × one model, written by
//! `check` (CSV, JSON lines, text) and read back by `summarize`, `compare`,
//! `merge` and `plot`. Its fields are the columns, in order; the README's
//! "CSV / JSON columns" table says what each means.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use memconform_core::certificate::Pattern;
use memconform_core::check::Verdict;
use memconform_core::complete::Engine;
use memconform_core::models::Model;

/// One row of the results table. Its text borrows from the checked history
/// where it can (no allocation per row but the certificate's); read back,
/// it owns its text. Reading, every column but `model` and `verdict` may
/// be absent (older results, other tools): it then takes its empty value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row<'a> {
    /// The input file (or gem5 run directory).
    #[serde(default)]
    pub file: Cow<'a, str>,
    /// 0-based position of the history in its file.
    #[serde(default)]
    pub index: usize,
    /// Its `@name` (empty if none).
    #[serde(default)]
    pub name: Cow<'a, str>,
    /// From the history's metadata (`@protocol`, `@variant`, `@seed`,
    /// `@cpus`; set by gem5 ingestion and `gen`), empty if absent.
    #[serde(default)]
    pub protocol: Cow<'a, str>,
    #[serde(default)]
    pub variant: Cow<'a, str>,
    #[serde(default)]
    pub seed: Cow<'a, str>,
    #[serde(default)]
    pub cpus: Cow<'a, str>,
    /// A gem5 SE run's CPU model (`X86O3CPU`, `X86TimingSimpleCPU`), from
    /// its `config.ini`; empty for other inputs (`@cpu_type` may set it).
    #[serde(default)]
    pub cpu_type: Cow<'a, str>,
    /// The memory model the run's configuration promises (SC for blocking
    /// in-order cores, TSO for x86 out-of-order ones): a violation of it is
    /// a bug; empty when none is known (`@expected_model` may set it).
    #[serde(default, with = "named")]
    pub expected_model: Option<Model>,
    /// The litmus shape of an SE client's round (`MP`, `SB`, `IRIW`, ...;
    /// its `@shape`), empty for other histories.
    #[serde(default)]
    pub shape: Cow<'a, str>,
    pub model: Model,
    pub verdict: Verdict,
    /// The model whose check decided (itself, a weaker one of its gradual
    /// chain, or a stronger one that implies it); always written.
    #[serde(default, with = "named")]
    pub decided_by: Option<Model>,
    /// The bad pattern of a violation.
    #[serde(default, with = "named")]
    pub pattern: Option<Pattern>,
    /// Number of edges of the violation's cycle (0 if none).
    #[serde(default)]
    pub cycle_len: usize,
    /// The certificate, as text.
    #[serde(default)]
    pub certificate: Cow<'a, str>,
    /// How the validator confirmed the certificate (re-derived, on a
    /// shrunk sub-history, by brute force), with its justifications in
    /// brief: shown in the text report and as `checked` in JSON rows (not
    /// a CSV column).
    #[serde(skip)]
    pub checked: Cow<'a, str>,
    /// Operations in the input (an RMW counts twice), threads, writes.
    #[serde(default)]
    pub ops: usize,
    #[serde(default)]
    pub threads: usize,
    #[serde(default)]
    pub writes: usize,
    /// Milliseconds spent deciding this model (its gradual chain included).
    #[serde(default)]
    pub time_ms: f64,
    /// Same-variable write pairs, and how many the model's partial store
    /// order orders (empty when it has none; for sc/tso/pso: how many
    /// saturation ordered before completion).
    #[serde(default)]
    pub write_pairs: usize,
    #[serde(default)]
    pub ordered_pairs: Option<usize>,
    #[serde(default)]
    pub coverage: Option<f64>,
    /// SC/TSO/PSO: the completion engine that decided (empty when
    /// saturation decided), and the write pairs saturation left unordered.
    #[serde(default, with = "named")]
    pub engine: Option<Engine>,
    #[serde(default)]
    pub unordered_pairs: Option<usize>,
    /// With `--kernel`, for consistent SC/TSO/PSO: the kernel's size (write
    /// pairs every witness orders alike) and the fraction saturation found.
    #[serde(default)]
    pub kernel_pairs: Option<usize>,
    #[serde(default)]
    pub kernel_coverage: Option<f64>,
    /// Why the verdict is unknown (e.g. the timeout), empty otherwise.
    #[serde(default)]
    pub reason: Cow<'a, str>,
    /// Where the input is damaged (`file:line:col: what`), empty when it is
    /// whole: the history is then the prefix before the damage.
    #[serde(default)]
    pub damage: Cow<'a, str>,
    /// Whether the independent validator accepted the certificate (`yes`;
    /// `no` is an internal error, reported with exit status 3; empty when
    /// there is none).
    #[serde(default, with = "yes_no")]
    pub certified: Option<bool>,
    /// The `@expect` verdict for this model (`yes`/`no`), empty if none.
    #[serde(default, with = "yes_no")]
    pub expected: Option<bool>,
    /// A violation explained in the input's terms (gem5: ports, ticks,
    /// trace lines, protocol transitions), empty otherwise.
    #[serde(default)]
    pub explanation: Cow<'a, str>,
    /// The promise the history is held to: the model its run's
    /// configuration promises (`expected_model`), `--promise`'s, or the
    /// models its `@expect` says hold (`tso (@expect)`, `@expect`); empty
    /// when none.
    #[serde(default)]
    pub promise: Cow<'a, str>,
    /// Whether this row breaks the promise (`yes`: a violation on a history
    /// that breaks it, a bug of the run; `no`: consistent, or a violation
    /// the promise allows; empty: no promise, or not known). With no
    /// promise, read back from older results, it follows `expected_model`.
    #[serde(default, with = "yes_no")]
    pub breaks_promise: Option<bool>,
}

impl Row<'_> {
    /// Whether this row is a violation on a history that breaks its
    /// promise — a bug in the simulator, not a behaviour its cores may
    /// show (an O3 run that breaks SC but keeps TSO is legal store
    /// buffering). Results without the `breaks_promise` column: a violation
    /// of the promised `expected_model` or of a model it implies.
    pub fn breaks_promise(&self) -> bool {
        match self.breaks_promise {
            Some(b) => b,
            // no promise (older results: none recorded): every violation
            // counts, but one of a model stronger than the recorded
            // `expected_model`
            None if self.promise.is_empty() => {
                self.verdict == Verdict::Violation
                    && self.expected_model.is_none_or(|e| e.implies(self.model))
            }
            None => false,
        }
    }

    /// Whether this row is a violation the history's promise allows (the
    /// history keeps it).
    pub fn allowed(&self) -> bool {
        self.verdict == Verdict::Violation && self.breaks_promise == Some(false)
    }

    /// Whether the verdict contradicts the history's `@expect`.
    pub fn contradicts_expectation(&self) -> bool {
        crate::contradicts(self.verdict, self.expected)
    }

    /// The row owning its text.
    pub fn into_owned(self) -> Row<'static> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        Row {
            file: own(self.file),
            name: own(self.name),
            protocol: own(self.protocol),
            variant: own(self.variant),
            seed: own(self.seed),
            cpus: own(self.cpus),
            cpu_type: own(self.cpu_type),
            shape: own(self.shape),
            certificate: own(self.certificate),
            checked: own(self.checked),
            reason: own(self.reason),
            damage: own(self.damage),
            explanation: own(self.explanation),
            promise: own(self.promise),
            ..self
        }
    }
}

/// The columns, in order: the header of a results CSV.
pub const COLUMNS: [&str; 34] = [
    "file",
    "index",
    "name",
    "protocol",
    "variant",
    "seed",
    "cpus",
    "cpu_type",
    "expected_model",
    "shape",
    "model",
    "verdict",
    "decided_by",
    "pattern",
    "cycle_len",
    "certificate",
    "ops",
    "threads",
    "writes",
    "time_ms",
    "write_pairs",
    "ordered_pairs",
    "coverage",
    "engine",
    "unordered_pairs",
    "kernel_pairs",
    "kernel_coverage",
    "reason",
    "damage",
    "certified",
    "expected",
    "explanation",
    "promise",
    "breaks_promise",
];

/// What a column's value must be, for reading errors (`column `x`: `v` is
/// not WHAT`).
pub fn column_kind(column: &str) -> &'static str {
    match column {
        "model" | "decided_by" | "expected_model" => {
            "a model (cc, ccv, cm, ccm, wccm, wsc, sc, tso, pso, rmo, armv8)"
        }
        "verdict" => "consistent, violation or unknown",
        "pattern" => "a pattern",
        "engine" => "an engine (auto, enum, sat, dp, interleave, ticks, zones)",
        "certified" | "expected" | "breaks_promise" => "yes, no or empty",
        "time_ms" => "a time in ms (0 or more)",
        "coverage" | "kernel_coverage" => "a coverage from 0 to 1",
        _ => "a count",
    }
}

/// Whether `value` is one a column of this name can hold (for locating a
/// reading error; a column the row does not have holds anything).
pub fn column_accepts(column: &str, value: &str) -> bool {
    let v = value.trim();
    match column {
        "model" => <Model as Named>::from_name(v).is_some(),
        "decided_by" | "expected_model" => v.is_empty() || <Model as Named>::from_name(v).is_some(),
        "verdict" => matches!(v, "consistent" | "violation" | "unknown"),
        "pattern" => v.is_empty() || Pattern::from_name(v).is_some(),
        "engine" => v.is_empty() || <Engine as Named>::from_name(v).is_some(),
        "certified" | "expected" | "breaks_promise" => matches!(v, "" | "yes" | "no"),
        "index" | "cycle_len" | "ops" | "threads" | "writes" | "write_pairs" => {
            v.parse::<usize>().is_ok()
        }
        "ordered_pairs" | "unordered_pairs" | "kernel_pairs" => {
            v.is_empty() || v.parse::<usize>().is_ok()
        }
        "time_ms" => v.parse::<f64>().is_ok(),
        "coverage" | "kernel_coverage" => v.is_empty() || v.parse::<f64>().is_ok(),
        _ => true,
    }
}

/// A name a model, pattern or engine is written by.
pub trait Named: Sized + Copy {
    fn name(self) -> &'static str;
    fn from_name(s: &str) -> Option<Self>;
}

impl Named for Model {
    fn name(self) -> &'static str {
        Model::name(self)
    }
    fn from_name(s: &str) -> Option<Model> {
        Model::EVERY.into_iter().find(|m| m.name() == s)
    }
}

impl Named for Pattern {
    fn name(self) -> &'static str {
        Pattern::name(self)
    }
    fn from_name(s: &str) -> Option<Pattern> {
        Pattern::from_name(s)
    }
}

impl Named for Engine {
    fn name(self) -> &'static str {
        Engine::name(self)
    }
    fn from_name(s: &str) -> Option<Engine> {
        [
            Engine::Auto,
            Engine::Enum,
            Engine::Sat,
            Engine::Dp,
            Engine::Interleave,
            Engine::Ticks,
            Engine::Zones,
        ]
        .into_iter()
        .find(|e| e.name() == s)
    }
}

/// An optional model, pattern or engine as its name, or empty.
mod named {
    use super::Named;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Named, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.map_or("", |v| v.name()))
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        match s.trim() {
            "" => Ok(None),
            s => T::from_name(s)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown name `{s}`"))),
        }
    }
}

/// An optional yes/no as `yes`, `no` or empty.
mod yes_no {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<bool>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match v {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        match s.trim() {
            "" => Ok(None),
            "yes" => Ok(Some(true)),
            "no" => Ok(Some(false)),
            s => Err(serde::de::Error::custom(format!("`{s}` is not yes or no"))),
        }
    }
}
