//! Directed stimulus (docs/design/campaigns.md §11): a search over the knobs
//! of a run command — the client's options, gem5's configuration — for the
//! settings that take the protocol's transitions, measured by the
//! transition counters gem5 writes (`stats.txt`, see [`crate::coverage`]).
//!
//! A *knob space* (`knobs.toml`) names each knob and its values; the run
//! template holds `{KNOB}` for each. A run is one setting (a value per
//! knob) and one seed. Two strategies choose the settings:
//!
//! * `random`: each knob's value uniformly, each run anew;
//! * `bandit`: each knob a multi-armed bandit over its values (discounted
//!   UCB1, Garivier and Moulines 2011), rewarded by how *rare* the run's
//!   transitions were — each transition scores 1 / (1 + the runs that took
//!   it before), as coverage-guided fuzzers weight their edges — so that
//!   values that reach the protocol's less-visited corners are drawn again,
//!   while the discount lets the search move on from values whose corners
//!   are exhausted.
//!
//! With targets (transition counters, e.g. a mutant's), a run that takes a
//! target not yet taken scores 1 whatever else it did, and the search ends
//! once every target is taken.
//!
//! gem5 is deterministic: a setting and a seed take the same transitions
//! every time. So the search's result, the *stimuli*, are (setting, seed)
//! pairs: the fewest runs (greedily) whose union is every transition the
//! search took.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use memconform_parsers::rng::Rng;

pub mod search;
use serde::{Deserialize, Serialize};

/// Names a run template holds besides the knobs.
pub const RESERVED: [&str; 3] = ["outdir", "seed", "run"];

/// Characters a knob's value may not hold: it goes into the command as it
/// is (inside the client's `--options="..."` as well as outside).
const SPECIAL: &[char] = &[
    '\'', '"', '`', '$', '\\', ';', '&', '|', '<', '>', '(', ')', '{', '}', '\n', '\r', '\t',
];

/// One knob: its name (`{name}` in the run template) and its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knob {
    pub name: String,
    pub values: Vec<String>,
}

/// A knob space: every knob, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Space {
    pub knobs: Vec<Knob>,
    /// The knob file's `[follow-up]` table: values a campaign's follow-up
    /// runs set over a survivor's stimulus (docs/design/campaigns.md §11b),
    /// those that leave a bug visible rather than take transitions (no
    /// fences, no locked RMWs); each a knob and one of its values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub follow_up: BTreeMap<String, String>,
}

/// A setting: a value index per knob of a [`Space`], in its order.
pub type Setting = Vec<usize>;

impl Space {
    /// Parses a knob file: a `[knobs]` table, each entry `name = [values]`
    /// (strings, integers or booleans), and an optional `[follow-up]`
    /// table, each entry `name = value` (a knob and one of its values).
    /// Errors are `path:line:col: what`.
    pub fn parse(text: &str, path: &Path) -> Result<Space, String> {
        let shown = memconform_report::shown_path(path);
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            knobs: BTreeMap<String, toml::Spanned<Vec<toml::Spanned<toml::Value>>>>,
            #[serde(default, rename = "follow-up")]
            follow_up: BTreeMap<String, toml::Spanned<toml::Value>>,
        }
        let at = |span: std::ops::Range<usize>| {
            let (line, col) = line_col(text, span.start);
            format!("{shown}:{line}:{col}")
        };
        let file: File = toml::from_str(text).map_err(|e| match e.span() {
            Some(span) => format!("{}: {}", at(span), e.message()),
            None => format!("{shown}: {}", e.message()),
        })?;
        let mut knobs = Vec::new();
        for (name, values) in file.knobs {
            let where_ = at(values.span());
            check_name(&name).map_err(|e| format!("{where_}: {e}"))?;
            let values = values.into_inner();
            if values.is_empty() {
                return Err(format!("{where_}: knob `{name}` has no values"));
            }
            let mut seen = BTreeSet::new();
            let mut out = Vec::new();
            for v in values {
                let here = at(v.span());
                let s = value_text(v.into_inner()).map_err(|t| {
                    format!(
                        "{here}: knob `{name}`: a value is a string, an integer or a boolean, \
                         not a {t}"
                    )
                })?;
                check_value(&name, &s).map_err(|e| format!("{here}: {e}"))?;
                if !seen.insert(s.clone()) {
                    return Err(format!("{here}: knob `{name}`: the value {s:?} twice"));
                }
                out.push(s);
            }
            knobs.push(Knob { name, values: out });
        }
        if knobs.is_empty() {
            return Err(format!(
                "{shown}: no knobs (a `[knobs]` table of `name = [values]`)"
            ));
        }
        let mut space = Space {
            knobs,
            follow_up: BTreeMap::new(),
        };
        for (name, value) in file.follow_up {
            let here = at(value.span());
            let v = value_text(value.into_inner()).map_err(|t| {
                format!(
                    "{here}: follow-up `{name}`: a value is a string, an integer or a boolean, \
                     not a {t}"
                )
            })?;
            space
                .check_follow_up(&name, &v)
                .map_err(|e| format!("{here}: {e}"))?;
            space.follow_up.insert(name, v);
        }
        Ok(space)
    }

    /// Checks a follow-up value (§11b): `name` is a knob and `value` one
    /// of its values.
    pub fn check_follow_up(&self, name: &str, value: &str) -> Result<(), String> {
        let Some(knob) = self.knobs.iter().find(|k| k.name == name) else {
            return Err(format!(
                "follow-up `{name}` is no knob (knobs: {})",
                self.knobs
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        if !knob.values.iter().any(|v| v == value) {
            return Err(format!(
                "follow-up `{name}` = {value:?} is not one of the knob's values ({})",
                knob.values.join(", ")
            ));
        }
        Ok(())
    }

    /// How many settings there are.
    pub fn size(&self) -> u128 {
        self.knobs
            .iter()
            .map(|k| k.values.len() as u128)
            .fold(1, u128::saturating_mul)
    }

    /// `setting` as knob = value pairs.
    pub fn values(&self, setting: &[usize]) -> BTreeMap<String, String> {
        self.knobs
            .iter()
            .zip(setting)
            .map(|(k, &v)| (k.name.clone(), k.values[v].clone()))
            .collect()
    }

    /// The setting of `values` (knob = value), if every knob has one of its values.
    pub fn setting(&self, values: &BTreeMap<String, String>) -> Option<Setting> {
        if values.len() != self.knobs.len() {
            return None;
        }
        self.knobs
            .iter()
            .map(|k| k.values.iter().position(|v| Some(v) == values.get(&k.name)))
            .collect()
    }

    /// Checks a run template against the knobs: `{outdir}` is there, each
    /// `{name}` is a knob or one of [`RESERVED`], and each knob is used.
    pub fn check_template(&self, template: &str) -> Result<(), String> {
        let used = placeholders(template);
        let knob = |n: &str| self.knobs.iter().any(|k| k.name == n);
        if let Some(u) = used
            .iter()
            .find(|u| !knob(u) && !RESERVED.contains(&u.as_str()))
        {
            return Err(format!(
                "the run template holds {{{u}}}, which is no knob (knobs: {}; the run's own: {})",
                self.knobs
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                RESERVED.join(", ")
            ));
        }
        if !used.iter().any(|u| u == "outdir") {
            return Err(
                "the run template has no {outdir}: gem5's output directory (-d {outdir}) is \
                 where its stats.txt is read"
                    .into(),
            );
        }
        if let Some(k) = self.knobs.iter().find(|k| !used.contains(&k.name)) {
            return Err(format!(
                "the knob `{}` is not in the run template (write {{{}}} where its value goes)",
                k.name, k.name
            ));
        }
        Ok(())
    }

    /// The run command: `template` with the knobs' values (as they are),
    /// the seed, the run number and the output directory (one shell word).
    pub fn fill(
        &self,
        template: &str,
        setting: &[usize],
        seed: u64,
        run: usize,
        outdir: &Path,
    ) -> String {
        let mut out = template
            .replace(
                "{outdir}",
                &memconform_report::commands::shell_word(&outdir.to_string_lossy()),
            )
            .replace("{seed}", &seed.to_string())
            .replace("{run}", &run.to_string());
        for (k, &v) in self.knobs.iter().zip(setting) {
            out = out.replace(&format!("{{{}}}", k.name), &k.values[v]);
        }
        out
    }
}

/// A knob's name: lower-case letters, digits and `_`, not reserved.
fn check_name(name: &str) -> Result<(), String> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(format!(
            "knob `{name}`: a knob's name is lower-case letters, digits and `_` (it is \
             `{{{name}}}` in the run template)"
        ));
    }
    if RESERVED.contains(&name) {
        return Err(format!(
            "knob `{name}`: `{{{name}}}` is the run's own (reserved: {})",
            RESERVED.join(", ")
        ));
    }
    Ok(())
}

/// A knob's value: none of the shell's special characters (it goes into
/// the run command as it is).
fn check_value(name: &str, value: &str) -> Result<(), String> {
    match value
        .chars()
        .find(|c| SPECIAL.contains(c) || c.is_control())
    {
        Some(c) => Err(format!(
            "knob `{name}`: the value {value:?} holds {c:?}; values go into the run command as \
             they are, so they hold none of the shell's special characters"
        )),
        None => Ok(()),
    }
}

/// A knob file's value as the run command gets it: a string, an integer or
/// a boolean as written; another TOML type is an error naming it.
fn value_text(v: toml::Value) -> Result<String, &'static str> {
    match v {
        toml::Value::String(s) => Ok(s),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(other.type_str()),
    }
}

/// The `{name}` placeholders of a template (names of letters, digits and `_`).
fn placeholders(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        rest = &rest[i + 1..];
        if let Some(j) = rest.find('}') {
            let name = &rest[..j];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                out.push(name.to_string());
                rest = &rest[j + 1..];
            }
        }
    }
    out
}

/// 1-based line and column (in characters) of byte `at` of `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

/// `a=1 b=x`.
pub fn knobs_text(k: &std::collections::BTreeMap<String, String>) -> String {
    k.iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How the settings are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Each knob's value uniformly at random.
    Random,
    /// Per knob, discounted UCB1 over its values on the rarity reward.
    Bandit,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Bandit => "bandit",
        }
    }
}

/// The discount of the bandit's statistics per run (D-UCB's γ): a value's
/// reward from 50 runs ago weighs 0.95^50 ≈ 8% of a new one.
const DISCOUNT: f64 = 0.95;
/// The share of a knob's picks the bandit makes uniformly at random.
const EPSILON: f64 = 0.25;
/// UCB1's exploration weight (rewards lie in [0, 1]).
const EXPLORE: f64 = std::f64::consts::SQRT_2;

/// Chooses settings and learns from their rewards. Deterministic: the same
/// seed, choices and rewards give the same next choice (a search resumes
/// by replaying its log).
pub struct Chooser {
    strategy: Strategy,
    rng: Rng,
    /// Per knob and value: discounted pulls and reward sums.
    pulls: Vec<Vec<f64>>,
    reward: Vec<Vec<f64>>,
}

impl Chooser {
    pub fn new(space: &Space, strategy: Strategy, seed: u64) -> Chooser {
        let zero = |_: &Knob| Vec::new();
        let mut c = Chooser {
            strategy,
            rng: Rng::new(seed),
            pulls: space.knobs.iter().map(zero).collect(),
            reward: space.knobs.iter().map(zero).collect(),
        };
        for (k, knob) in space.knobs.iter().enumerate() {
            c.pulls[k] = vec![0.0; knob.values.len()];
            c.reward[k] = vec![0.0; knob.values.len()];
        }
        c
    }

    /// The next setting. A chosen setting counts as pulled at once (with no
    /// reward until [`Chooser::learn`]), so that a batch of runs side by
    /// side spreads over the values.
    pub fn choose(&mut self) -> Setting {
        let mut out = Vec::with_capacity(self.pulls.len());
        for k in 0..self.pulls.len() {
            let n = self.pulls[k].len();
            let v = match self.strategy {
                Strategy::Random => self.rng.below(n),
                // one pick in EPSILON^-1 uniform: knobs whose statistics are
                // alike (chosen together so far) must not move in lockstep
                Strategy::Bandit if self.rng.chance(EPSILON) => self.rng.below(n),
                Strategy::Bandit => {
                    let untried: Vec<usize> = (0..n).filter(|&v| self.pulls[k][v] == 0.0).collect();
                    if !untried.is_empty() {
                        untried[self.rng.below(untried.len())]
                    } else {
                        let total: f64 = self.pulls[k].iter().sum();
                        let score = |v: usize| {
                            let p = self.pulls[k][v];
                            self.reward[k][v] / p + EXPLORE * (total.max(1.0).ln() / p).sqrt()
                        };
                        // ties (equal statistics) drawn at random: two knobs
                        // with equal histories must not move in lockstep
                        let best = (0..n).map(score).fold(f64::NEG_INFINITY, f64::max);
                        let top: Vec<usize> =
                            (0..n).filter(|&v| score(v) >= best - 1e-12).collect();
                        top[self.rng.below(top.len())]
                    }
                }
            };
            self.pulls[k][v] += 1.0;
            out.push(v);
        }
        out
    }

    /// Takes what a chosen setting's run gained: the bandit its reward (in
    /// [0, 1]), every older statistic discounted first.
    pub fn learn(&mut self, setting: &[usize], gain: &Gain) {
        if self.strategy == Strategy::Random {
            return;
        }
        let reward = gain.reward;
        for (k, &v) in setting.iter().enumerate() {
            for x in self.pulls[k].iter_mut().chain(self.reward[k].iter_mut()) {
                *x *= DISCOUNT;
            }
            // the pull `choose` counted, discounted with the rest, restored
            self.pulls[k][v] += 1.0 - DISCOUNT;
            self.reward[k][v] += reward.clamp(0.0, 1.0);
        }
    }
}

/// What a run contributed, given the transitions earlier runs took.
#[derive(Debug, Clone, PartialEq)]
pub struct Gain {
    /// Transitions no earlier run took.
    pub new: Vec<String>,
    /// Targets no earlier run took.
    pub new_targets: Vec<String>,
    /// The reward in [0, 1] (see the module doc).
    pub reward: f64,
}

/// Every run so far: how often each transition was taken (by how many runs).
#[derive(Debug, Clone, Default)]
pub struct Taken {
    pub runs_taking: BTreeMap<String, u64>,
}

impl Taken {
    /// Scores a run that took `fired` (see the module doc), then counts it.
    pub fn add(&mut self, fired: &BTreeSet<String>, targets: &BTreeSet<String>) -> Gain {
        let mut rarity = 0.0;
        let mut new = Vec::new();
        let mut new_targets = Vec::new();
        for t in fired {
            let before = self.runs_taking.get(t).copied().unwrap_or(0);
            rarity += 1.0 / (1.0 + before as f64);
            if before == 0 {
                new.push(t.clone());
                if targets.contains(t) {
                    new_targets.push(t.clone());
                }
            }
            *self.runs_taking.entry(t.clone()).or_insert(0) += 1;
        }
        // rarity mapped into [0, 1): a run of nothing rare scores near 0;
        // with targets, rarity is the lesser half, a new target the whole
        let rare = 1.0 - (-rarity / 2.0).exp();
        let reward = if !new_targets.is_empty() {
            1.0
        } else if targets.is_empty() {
            rare
        } else {
            rare / 2.0
        };
        Gain {
            new,
            new_targets,
            reward,
        }
    }

    /// Every transition taken.
    pub fn all(&self) -> BTreeSet<String> {
        self.runs_taking.keys().cloned().collect()
    }
}

/// One logged run of a search (a line of `search.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// 1-based run number.
    pub run: usize,
    pub seed: u64,
    /// Knob = value.
    pub knobs: BTreeMap<String, String>,
    /// gem5's exit code (`None`: killed by a signal or its time limit).
    pub exit: Option<i32>,
    pub timed_out: bool,
    pub secs: f64,
    /// The transitions (`Machine.State.Event`) the run took; `None` when it
    /// wrote no counters (a run that panicked, or did not finish).
    pub fired: Option<Vec<String>>,
}

/// The search's result: the fewest (greedily) runs whose transitions
/// together are every transition the runs took, in the order chosen (the
/// run adding most first; ties to the earlier run), each with what it
/// added.
pub fn cover(records: &[RunRecord]) -> Vec<(&RunRecord, Vec<String>)> {
    let mut left: BTreeSet<&str> = records
        .iter()
        .flat_map(|r| r.fired.iter().flatten())
        .map(String::as_str)
        .collect();
    let mut out = Vec::new();
    while !left.is_empty() {
        let best = records
            .iter()
            .map(|r| {
                let adds: Vec<String> = r
                    .fired
                    .iter()
                    .flatten()
                    .filter(|t| left.contains(t.as_str()))
                    .cloned()
                    .collect();
                (r, adds)
            })
            .max_by(|(a, x), (b, y)| x.len().cmp(&y.len()).then(b.run.cmp(&a.run)));
        let Some((r, adds)) = best else { break };
        if adds.is_empty() {
            break;
        }
        for t in &adds {
            left.remove(t.as_str());
        }
        out.push((r, adds));
    }
    out
}

/// One stimulus of a `stimuli.toml`: a setting and the seed it ran with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stimulus {
    pub name: String,
    pub seed: u64,
    pub knobs: BTreeMap<String, String>,
    /// The transitions it took that the stimuli before it did not.
    #[serde(default)]
    pub adds: Vec<String>,
}

/// A `stimuli.toml`: the stimuli and the knob space they are settings of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stimuli {
    pub space: Space,
    #[serde(rename = "stimulus")]
    pub stimuli: Vec<Stimulus>,
}

impl Stimuli {
    /// The stimuli of a search's cover, named `k1`, `k2`, ...
    pub fn of_cover(space: &Space, cover: &[(&RunRecord, Vec<String>)]) -> Stimuli {
        Stimuli {
            space: space.clone(),
            stimuli: cover
                .iter()
                .enumerate()
                .map(|(i, (r, adds))| Stimulus {
                    name: format!("k{}", i + 1),
                    seed: r.seed,
                    knobs: r.knobs.clone(),
                    adds: adds.clone(),
                })
                .collect(),
        }
    }

    /// The file's text, with a header comment saying what it is.
    pub fn to_toml(&self) -> String {
        let mut out = String::from(
            "# memconform stimuli: knob settings and the seeds they ran with (gem5 is\n\
             # deterministic: each setting with its seed takes its transitions again;\n\
             # `adds`: those no stimulus before it took).\n",
        );
        let _ = write!(out, "{}", toml::to_string(self).unwrap_or_default());
        out
    }

    /// Reads a `stimuli.toml`: every stimulus a setting of the space, the
    /// seeds distinct, the names distinct.
    pub fn parse(text: &str, path: &Path) -> Result<Stimuli, String> {
        let shown = memconform_report::shown_path(path);
        let s: Stimuli = toml::from_str(text).map_err(|e| match e.span() {
            Some(span) => {
                let (l, c) = line_col(text, span.start);
                format!("{shown}:{l}:{c}: {}", e.message())
            }
            None => format!("{shown}: {}", e.message()),
        })?;
        if s.stimuli.is_empty() {
            return Err(format!("{shown}: no [[stimulus]]"));
        }
        // an edited file is held to what a knob file is
        for k in &s.space.knobs {
            check_name(&k.name).map_err(|e| format!("{shown}: [space]: {e}"))?;
            for v in &k.values {
                check_value(&k.name, v).map_err(|e| format!("{shown}: [space]: {e}"))?;
            }
        }
        for (name, v) in &s.space.follow_up {
            s.space
                .check_follow_up(name, v)
                .map_err(|e| format!("{shown}: [space.follow_up]: {e}"))?;
        }
        let mut seeds = BTreeMap::new();
        let mut names = BTreeSet::new();
        for k in &s.stimuli {
            if s.space.setting(&k.knobs).is_none() {
                return Err(format!(
                    "{shown}: stimulus {}: its knobs are not a setting of [space] (each knob \
                     once, with one of its values)",
                    k.name
                ));
            }
            if let Some(other) = seeds.insert(k.seed, &k.name) {
                return Err(format!(
                    "{shown}: stimuli {other} and {} both run seed {}: a campaign names a run by \
                     its seed",
                    k.name, k.seed
                ));
            }
            if !names.insert(&k.name) {
                return Err(format!("{shown}: two stimuli named {}", k.name));
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> Space {
        Space::parse(
            "[knobs]\nshape = [\"mix\", \"sb\", \"mp+sm\"]\nevict = [0, 1024]\nthreads = [2, 4]\n",
            Path::new("k.toml"),
        )
        .unwrap()
    }

    #[test]
    fn a_knob_file_is_read_with_its_positions() {
        let s = space();
        assert_eq!(s.size(), 12);
        assert_eq!(s.knobs[0].name, "evict");
        assert_eq!(s.knobs[0].values, ["0", "1024"]);
        let bad = |t: &str| Space::parse(t, Path::new("k.toml")).unwrap_err();
        assert!(
            bad("[knobs]\nx = [\"a;b\"]\n").starts_with("k.toml:2:6: "),
            "{}",
            bad("[knobs]\nx = [\"a;b\"]\n")
        );
        assert!(bad("[knobs]\nx = []\n").contains("no values"));
        assert!(bad("[knobs]\nseed = [1]\n").contains("reserved"));
        assert!(bad("[knobs]\nX = [1]\n").contains("lower-case"));
        assert!(bad("[knobs]\nx = [1, 1]\n").starts_with("k.toml:2:9: "));
        assert!(bad("[knobs]\nx = [1.5]\n").contains("not a float"));
        assert!(bad("[knobs]\n").contains("no knobs"));
        assert!(bad("[knob]\nx = [1]\n").starts_with("k.toml:1:"));
    }

    #[test]
    fn a_follow_up_table_sets_knobs_to_their_own_values() {
        let text = "[knobs]\nfence = [\"none\", \"random\"]\nevict = [0, 1024]\n\n\
                    [follow-up]\nfence = \"none\"\n";
        let s = Space::parse(text, Path::new("k.toml")).unwrap();
        assert_eq!(s.follow_up.len(), 1);
        assert_eq!(s.follow_up["fence"], "none");
        // it goes into stimuli.toml with the space and comes back
        let back: Space = toml::from_str(&toml::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let bad = |t: &str| Space::parse(t, Path::new("k.toml")).unwrap_err();
        let e = bad(&text.replace("fence = \"none\"\n", "rmw = \"none\"\n"));
        assert!(
            e.starts_with("k.toml:6:7: ") && e.contains("no knob"),
            "{e}"
        );
        let e = bad(&text.replace("fence = \"none\"\n", "evict = 256\n"));
        assert!(e.contains("not one of the knob's values (0, 1024)"), "{e}");
        // without the table: no follow-up values
        assert!(space().follow_up.is_empty());
    }

    #[test]
    fn the_template_names_every_knob_and_no_other() {
        let s = space();
        let t = "gem5 -d {outdir} se.py -n {threads} --options=\"--shape {shape} --evict {evict} --seed {seed}\"";
        s.check_template(t).unwrap();
        assert!(s
            .check_template(&t.replace("{evict}", "0"))
            .unwrap_err()
            .contains("`evict`"));
        assert!(s
            .check_template(&format!("{t} {{cpu}}"))
            .unwrap_err()
            .contains("{cpu}"));
        assert!(s
            .check_template(&t.replace("{outdir}", "m5out"))
            .unwrap_err()
            .contains("{outdir}"));
        let cmd = s.fill(t, &[1, 2, 0], 7, 3, Path::new("/tmp/a b"));
        assert_eq!(
            cmd,
            "gem5 -d '/tmp/a b' se.py -n 2 --options=\"--shape mp+sm --evict 1024 --seed 7\""
        );
        let v = s.values(&[1, 2, 0]);
        assert_eq!(s.setting(&v), Some(vec![1, 2, 0]));
    }

    fn gain(reward: f64) -> Gain {
        Gain {
            new: Vec::new(),
            new_targets: Vec::new(),
            reward,
        }
    }

    #[test]
    fn the_bandit_tries_every_value_then_favours_the_rewarded_one() {
        let s = space();
        let mut c = Chooser::new(&s, Strategy::Bandit, 1);
        let mut seen = vec![BTreeSet::new(); 3];
        for _ in 0..3 {
            let k = c.choose();
            for (i, &v) in k.iter().enumerate() {
                seen[i].insert(v);
            }
            c.learn(&k, &gain(0.0));
        }
        // the shape's three values each tried once in the first three
        assert_eq!(seen[1].len(), 3);
        // from now on `sb` (shape 1) pays, nothing else does
        let mut sb = 0;
        for _ in 0..60 {
            let k = c.choose();
            let r = if k[1] == 1 { 1.0 } else { 0.0 };
            sb += usize::from(k[1] == 1);
            c.learn(&k, &gain(r));
        }
        assert!(sb > 40, "sb drawn {sb} of 60 times");
        // the random strategy ignores rewards
        let mut c = Chooser::new(&s, Strategy::Random, 1);
        let mut sb = 0;
        for _ in 0..60 {
            let k = c.choose();
            sb += usize::from(k[1] == 1);
            c.learn(&k, &gain(if k[1] == 1 { 1.0 } else { 0.0 }));
        }
        assert!((10..35).contains(&sb), "sb drawn {sb} of 60 times");
    }

    #[test]
    fn rare_transitions_score_more_and_a_new_target_scores_one() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let mut t = Taken::default();
        let none = BTreeSet::new();
        let first = t.add(&set(&["a", "b"]), &none);
        assert_eq!(first.new, ["a", "b"]);
        let again = t.add(&set(&["a", "b"]), &none);
        assert!(again.new.is_empty() && again.reward < first.reward);
        let targets = set(&["z"]);
        let miss = t.add(&set(&["a", "c"]), &targets);
        assert!(miss.reward < 0.5 && miss.new == ["c"]);
        let hit = t.add(&set(&["z"]), &targets);
        assert_eq!((hit.reward, hit.new_targets.len()), (1.0, 1));
    }

    #[test]
    fn the_cover_is_the_fewest_runs_for_every_transition() {
        let rec = |run: usize, fired: &[&str]| RunRecord {
            run,
            seed: run as u64,
            knobs: BTreeMap::new(),
            exit: Some(0),
            timed_out: false,
            secs: 1.0,
            fired: Some(fired.iter().map(|s| s.to_string()).collect()),
        };
        let rs = [
            rec(1, &["a", "b"]),
            rec(2, &["c"]),
            rec(3, &["a", "b", "c"]),
            rec(4, &["d"]),
            rec(5, &["a"]),
        ];
        let c = cover(&rs);
        let runs: Vec<usize> = c.iter().map(|(r, _)| r.run).collect();
        assert_eq!(runs, [3, 4]);
        let s = Stimuli::of_cover(&space(), &[]);
        assert!(s.stimuli.is_empty());
    }

    #[test]
    fn stimuli_round_trip_and_are_checked() {
        let sp = space();
        let rec = RunRecord {
            run: 1,
            seed: 9,
            knobs: sp.values(&[0, 1, 1]),
            exit: Some(0),
            timed_out: false,
            secs: 1.0,
            fired: Some(vec!["L1.I.Load".into()]),
        };
        let s = Stimuli::of_cover(&sp, &cover(std::slice::from_ref(&rec)));
        let text = s.to_toml();
        let back = Stimuli::parse(&text, Path::new("s.toml")).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.stimuli[0].name, "k1");
        let bad = text.replace("shape = \"sb\"", "shape = \"lb\"");
        assert_ne!(bad, text);
        assert!(Stimuli::parse(&bad, Path::new("s.toml"))
            .unwrap_err()
            .contains("not a setting"));
        let bad = text.replace("\"mp+sm\"", "\"mp;rm\"");
        assert!(Stimuli::parse(&bad, Path::new("s.toml"))
            .unwrap_err()
            .starts_with("s.toml: [space]: knob `shape`: the value \"mp;rm\" holds ';'"));
    }
}
