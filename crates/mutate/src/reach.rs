//! Which declared transitions a configuration can take
//! (docs/design/campaigns.md §4a). A coverage target is a share of the
//! transitions a run *could* take: a DMA controller's transitions in a
//! system without one, or the prefetch events of an L1 whose prefetcher is
//! off, are code no stimulus reaches. This module marks a declared
//! (machine, state, event) unreachable only with a reason, of four kinds:
//!
//! - **no controller**: no run's `config.ini` has a `{M}_Controller`;
//! - **never triggered**: no code of the machine names `Event:E` (SLICC
//!   triggers an event only by naming it; its declaration and transition
//!   headers use the bare name);
//! - **argued**: a rule of a reach file (`gem5-configs/reach/*.toml`, one
//!   per protocol, built in) whose condition every run's `config.ini`
//!   meets: `when` (each controller of the machine has these parameter
//!   values), `absent` (the configuration has no controller of these
//!   types) and `several` (it has two or more of these), with its reason
//!   in words;
//! - **never entered**: the state is not reached from the states the
//!   machine's code names (`State:X`, `"{M}_State_X"` defaults) over the
//!   transitions left: only unreachable transitions lead to it.
//!
//! Evidence wins: a transition a run took is reachable, whatever a rule
//! says; the rule is reported as contradicted (a note), never believed.

use std::collections::{BTreeMap, BTreeSet};

use memconform_parsers::gem5::config::Config;
use serde::Deserialize;

use crate::slicc::{self, Machine, SliccFile};

/// A reach file: rules that make declared transitions unreachable under a
/// configuration condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// The file as messages name it (`gem5-configs/reach/MI_example.toml`).
    pub source: String,
    pub rules: Vec<Rule>,
}

/// One `[[unreachable]]` table of a reach file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// `X` of `MachineType:X`.
    pub machine: String,
    /// The events it excludes (each declared by the machine).
    pub events: Vec<String>,
    /// The states it excludes them in; `None`: every state.
    pub states: Option<Vec<String>>,
    /// Parameters each controller of `machine` has with these values
    /// (`enable_prefetch = "false"`), as config.ini writes them.
    pub when: BTreeMap<String, String>,
    /// Controller types (`DMA`) the configuration must not have.
    pub absent: Vec<String>,
    /// Controller types the configuration must have two or more of.
    pub several: Vec<String>,
    /// Why, in words.
    pub reason: String,
    /// The `[[unreachable]]` line.
    pub line: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToml {
    #[serde(default)]
    unreachable: Vec<toml::Spanned<RuleToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleToml {
    machine: String,
    events: Vec<String>,
    #[serde(default)]
    states: Option<Vec<String>>,
    #[serde(default)]
    when: BTreeMap<String, String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    several: Vec<String>,
    reason: String,
}

/// `line:col` (1-based) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    slicc::line_col(text, offset.min(text.len()))
}

/// Reads a reach file; errors are `source:line:col: message`.
pub fn parse_rules(source: &str, text: &str) -> Result<Rules, String> {
    let file: FileToml = toml::from_str(text).map_err(|e| {
        let (l, c) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        format!("{source}:{l}:{c}: {}", e.message())
    })?;
    let mut rules = Vec::new();
    for r in file.unreachable {
        let (line, col) = line_col(text, r.span().start);
        let r = r.into_inner();
        if r.reason.trim().is_empty() {
            return Err(format!(
                "{source}:{line}:{col}: a rule needs a reason in words"
            ));
        }
        if r.events.is_empty() {
            return Err(format!("{source}:{line}:{col}: a rule names no event"));
        }
        if r.when.is_empty() && r.absent.is_empty() && r.several.is_empty() {
            return Err(format!(
                "{source}:{line}:{col}: a rule needs a condition (`when`, `absent` or `several`): \
                 a transition no configuration takes is not declared unreachable by hand"
            ));
        }
        rules.push(Rule {
            machine: r.machine,
            events: r.events,
            states: r.states,
            when: r.when,
            absent: r.absent,
            several: r.several,
            reason: r.reason.split_whitespace().collect::<Vec<_>>().join(" "),
            line,
        });
    }
    Ok(Rules {
        source: source.to_string(),
        rules,
    })
}

/// The reach files built into memconform, by protocol.
const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "MI_example",
        "gem5-configs/reach/MI_example.toml",
        include_str!("../../../gem5-configs/reach/MI_example.toml"),
    ),
    (
        "MESI_Two_Level",
        "gem5-configs/reach/MESI_Two_Level.toml",
        include_str!("../../../gem5-configs/reach/MESI_Two_Level.toml"),
    ),
    (
        "MOESI_hammer",
        "gem5-configs/reach/MOESI_hammer.toml",
        include_str!("../../../gem5-configs/reach/MOESI_hammer.toml"),
    ),
    (
        "MOESI_AMD_Base",
        "gem5-configs/reach/MOESI_AMD_Base.toml",
        include_str!("../../../gem5-configs/reach/MOESI_AMD_Base.toml"),
    ),
];

/// The built-in reach file of `protocol`, if memconform has one.
pub fn builtin(protocol: &str) -> Option<Rules> {
    BUILTIN
        .iter()
        .find(|(p, _, _)| *p == protocol)
        .map(|(_, src, text)| {
            parse_rules(src, text).unwrap_or_else(|e| panic!("a built-in reach file: {e}"))
        })
}

/// Why a declared transition is unreachable in the runs' configuration.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// No run has a controller of the machine's type.
    NoController,
    /// No code of the machine names `Event:E`.
    NeverTriggered,
    /// A reach file's rule: its source, line and reason.
    Argued {
        source: String,
        line: usize,
        reason: String,
    },
    /// The state is reached from no state the code names, over the
    /// transitions left.
    NeverEntered,
}

impl Reason {
    /// The reason in words, for the machine `m`, state `s` and event `e`.
    pub fn words(&self, m: &str, s: &str, e: &str) -> String {
        match self {
            Reason::NoController => format!("the configuration has no {m}_Controller"),
            Reason::NeverTriggered => {
                format!("no code of {m} triggers {e} (`Event:{e}` appears nowhere)")
            }
            Reason::Argued {
                source,
                line,
                reason,
            } => format!("{reason} ({source}:{line})"),
            Reason::NeverEntered => {
                format!("{m} never enters {s}: only unreachable transitions lead there")
            }
        }
    }

    /// The reason's group in a listing: one line per rule, per kind otherwise.
    pub fn group(&self, m: &str) -> String {
        match self {
            Reason::NoController => format!("{m}: the configuration has no {m}_Controller"),
            Reason::NeverTriggered => format!("{m}: events no code triggers"),
            Reason::Argued {
                source,
                line,
                reason,
            } => format!("{m}: {reason} ({source}:{line})"),
            Reason::NeverEntered => {
                format!("{m}: states only unreachable transitions lead to")
            }
        }
    }
}

/// The unreachable transitions of a protocol in the runs' configurations,
/// and what the analysis could not use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// (machine, state, event) -> why.
    pub unreachable: BTreeMap<(String, String, String), Reason>,
    /// Rules not applied (a condition a run does not meet or cannot tell)
    /// and rules contradicted by a transition a run took.
    pub notes: Vec<String>,
}

/// The tokens of `m`: its body in `files[own]` and its included files whole.
fn machine_tokens<'a>(
    files: &'a [SliccFile],
    own: usize,
    m: &'a Machine,
) -> impl Iterator<Item = (&'a SliccFile, std::ops::Range<usize>)> + 'a {
    std::iter::once((&files[own], m.body.clone())).chain(
        m.includes
            .iter()
            .filter_map(|i| i.file)
            .map(move |k| (&files[k], 0..files[k].tokens.len())),
    )
}

/// `X` of every `Kind : X` in the tokens of `m` (`Event`, `State`).
fn named(files: &[SliccFile], own: usize, m: &Machine, kind: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (f, r) in machine_tokens(files, own, m) {
        for i in r.clone() {
            if i + 2 < r.end && f.tok(i) == kind && f.tok(i + 1) == ":" {
                out.insert(f.tok(i + 2).to_string());
            }
        }
    }
    out
}

/// The states the code of `m` names other than to compare with: `State:X`
/// not beside `==` or `!=` (assigned, returned, passed), and
/// `"{M}_State_X"` strings (a `default=` of an entry or of the state
/// declaration). A state changes only by a transition's next state or by
/// code that names one, so these are where the machine can start.
fn root_states(files: &[SliccFile], own: usize, m: &Machine) -> BTreeSet<String> {
    let mut roots = BTreeSet::new();
    let prefix = format!("\"{}_State_", m.ident);
    let compare = |t: &str| t == "==" || t == "!=";
    for (f, r) in machine_tokens(files, own, m) {
        for i in r.clone() {
            if let Some(x) = f.tok(i).strip_prefix(&prefix) {
                roots.insert(x.trim_end_matches('"').to_string());
            }
            if i + 2 < r.end && f.tok(i) == "State" && f.tok(i + 1) == ":" {
                let before = i > r.start && compare(f.tok(i - 1));
                let after = i + 3 < r.end && compare(f.tok(i + 3));
                if !before && !after {
                    roots.insert(f.tok(i + 2).to_string());
                }
            }
        }
    }
    roots
}

/// Whether `rule`'s condition holds in `config`; an error when the
/// configuration cannot tell (a controller without the parameter).
fn holds(rule: &Rule, config: &Config) -> Result<bool, String> {
    for a in &rule.absent {
        let n = config.sections_of_type(&format!("{a}_Controller")).len();
        if n > 0 {
            return Ok(false);
        }
    }
    for m in &rule.several {
        if config.sections_of_type(&format!("{m}_Controller")).len() < 2 {
            return Ok(false);
        }
    }
    if rule.when.is_empty() {
        return Ok(true);
    }
    let sections = config.sections_of_type(&format!("{}_Controller", rule.machine));
    if sections.is_empty() {
        return Ok(true); // no controller: nothing of the machine is reachable
    }
    for s in sections {
        for (k, want) in &rule.when {
            match config.get(s, k) {
                Some(v) if v == want => {}
                Some(_) => return Ok(false),
                None => return Err(format!("[{s}] has no parameter `{k}`")),
            }
        }
    }
    Ok(true)
}

/// The unreachable declared transitions of `p` in the configurations
/// `configs` (one per run; `None`: the run has no config.ini, and no
/// configuration argument is used), given the transitions the runs took
/// (`taken`, `Machine.State.Event`) and the rules of a reach file.
pub fn analyse(
    p: &slicc::Protocol,
    configs: &[Option<Config>],
    rules: Option<&Rules>,
    taken: &BTreeSet<String>,
) -> Result<Reach, String> {
    let mut reach = Reach::default();
    let all_known = !configs.is_empty() && configs.iter().all(Option::is_some);
    let known: Vec<&Config> = configs.iter().flatten().collect();
    if !all_known {
        reach.notes.push(
            "a run has no config.ini: neither absent controllers nor reach rules are used"
                .to_string(),
        );
    }
    // the rules, checked against the protocol and applied where they hold
    let machines: Vec<(usize, &Machine)> = p
        .files
        .iter()
        .enumerate()
        .flat_map(|(k, f)| f.machines.iter().map(move |m| (k, m)))
        .collect();
    let mut applied: Vec<&Rule> = Vec::new();
    if let Some(rules) = rules {
        for r in &rules.rules {
            let at = format!("{}:{}", rules.source, r.line);
            let Some((_, m)) = machines.iter().find(|(_, m)| m.ident == r.machine) else {
                return Err(format!(
                    "{at}: protocol {} has no machine {}",
                    p.name, r.machine
                ));
            };
            for e in &r.events {
                if !m.events.iter().any(|x| x.name == *e) {
                    return Err(format!("{at}: {} declares no event {e}", r.machine));
                }
            }
            for s in r.states.iter().flatten() {
                if !m.states.iter().any(|x| x.name == *s) {
                    return Err(format!("{at}: {} declares no state {s}", r.machine));
                }
            }
            if !all_known {
                continue;
            }
            let mut ok = true;
            for c in &known {
                match holds(r, c) {
                    Ok(true) => {}
                    Ok(false) => {
                        ok = false;
                        break;
                    }
                    Err(e) => {
                        reach
                            .notes
                            .push(format!("{at}: not applied: {e} in a run's config.ini"));
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                applied.push(r);
            }
        }
    }
    for &(own, m) in &machines {
        let name = &m.ident;
        let rows = m.expanded();
        let absent = all_known
            && known
                .iter()
                .all(|c| c.sections_of_type(&format!("{name}_Controller")).is_empty());
        let was_taken = |s: &str, e: &str| taken.contains(&format!("{name}.{s}.{e}"));
        let mut mark: BTreeMap<(String, String), Reason> = BTreeMap::new();
        if absent {
            for (s, e, _, _) in &rows {
                mark.insert((s.clone(), e.clone()), Reason::NoController);
            }
        } else {
            // a machine without in_ports is a fragment (a test's toy): its
            // triggers are not all there to read
            let triggered = named(&p.files, own, m, "Event");
            for (s, e, _, _) in &rows {
                if !m.in_ports.is_empty() && !triggered.contains(e) {
                    mark.insert((s.clone(), e.clone()), Reason::NeverTriggered);
                }
            }
            for r in applied.iter().filter(|r| r.machine == *name) {
                for (s, e, _, _) in &rows {
                    let in_state = r.states.as_ref().is_none_or(|ss| ss.contains(s));
                    if in_state && r.events.contains(e) {
                        mark.entry((s.clone(), e.clone()))
                            .or_insert(Reason::Argued {
                                source: rules.map_or(String::new(), |x| x.source.clone()),
                                line: r.line,
                                reason: r.reason.clone(),
                            });
                    }
                }
            }
            // evidence wins over every argument
            let contradicted: Vec<(String, String)> = mark
                .keys()
                .filter(|(s, e)| was_taken(s, e))
                .cloned()
                .collect();
            for (s, e) in contradicted {
                let why = mark.remove(&(s.clone(), e.clone())).expect("marked");
                reach.notes.push(format!(
                    "{name}.{s}.{e} was taken by a run, though {}: counted reachable",
                    why.words(name, &s, &e)
                ));
            }
            // the states entered from the roots over the transitions left
            let mut entered = root_states(&p.files, own, m);
            for (s, e, _, _) in &rows {
                if was_taken(s, e) {
                    entered.insert(s.clone());
                }
            }
            let mut all = false;
            loop {
                let before = entered.len();
                for (s, e, next, _) in &rows {
                    if entered.contains(s) && !mark.contains_key(&(s.clone(), e.clone())) {
                        if next == "*" {
                            all = true;
                        } else {
                            entered.insert(next.clone());
                        }
                    }
                }
                if all || entered.len() == before {
                    break;
                }
            }
            if !all {
                for (s, e, _, _) in &rows {
                    if !entered.contains(s) {
                        mark.entry((s.clone(), e.clone()))
                            .or_insert(Reason::NeverEntered);
                    }
                }
            }
        }
        for ((s, e), why) in mark {
            reach.unreachable.insert((name.clone(), s, e), why);
        }
    }
    Ok(reach)
}

/// [`analyse`] with memconform's reach file for `p`'s protocol; a file
/// that does not fit `p` (an edited protocol: a campaign's base, a user's
/// own) is left out with a note, the rest of the analysis stands.
pub fn analyse_builtin(
    p: &slicc::Protocol,
    configs: &[Option<Config>],
    taken: &BTreeSet<String>,
) -> Reach {
    let rules = builtin(&p.name);
    match analyse(p, configs, rules.as_ref(), taken) {
        Ok(r) => r,
        Err(e) => {
            let mut r =
                analyse(p, configs, None, taken).expect("without rules the analysis cannot fail");
            r.notes.push(format!(
                "memconform's reach file does not fit this {} ({e}): its rules are left out",
                p.name
            ));
            r
        }
    }
}
