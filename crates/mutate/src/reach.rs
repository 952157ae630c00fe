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
//!   meets: `when` (each controller of the machine, or of the machine
//!   `when_of` names, has these parameter values; `sequencer.type` is its
//!   sequencer's type), `absent` (the
//!   configuration has no controller of these types), `several` (it
//!   has two or more of these) and `without` (it has no SimObject of these
//!   types), with its reason in words; or `dead = true`, no condition: code
//!   no configuration runs, argued from the protocol's code;
//! - **no sender**: every trigger of the event sits under an `if` that asks
//!   for a message value (`in_msg.Type == CoherenceRequestType:INV`) which
//!   only actions of unreachable transitions name (MI_example's L1 gets INV
//!   only from the directory's DMA transitions);
//! - **never entered**: the state is not reached from the states the
//!   machine's code names (`State:X`, `"{M}_State_X"` defaults) over the
//!   transitions left: only unreachable transitions lead to it.
//!
//! The last two are one least fixpoint over all machines at once
//! (reachable transitions send values, sent values enable events, enabled
//! events in entered states are reachable transitions). C++ makes only the
//! values of gem5's own enumerations (the sequencer's requests, memory
//! responses: `MADE_BY_CPP`), which count as sent; so does a value named
//! outside actions (or outside every machine, or as a `"E_V"` default). A
//! value of the protocol's own message types that SLICC names only to
//! compare with is never sent.
//! The fixpoint runs twice: from the code alone, and with the runs'
//! evidence; a transition a run took that the code alone does not reach is
//! reported (the analysis was wrong, or the SLICC is not the run's).
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
    /// Parameters each controller of `machine` (or of `when_of`) has with
    /// these values (`enable_prefetch = "false"`), as config.ini writes
    /// them.
    pub when: BTreeMap<String, String>,
    /// The machine whose controllers `when` asks, when not `machine` (a
    /// cache's event the directory's configuration decides).
    pub when_of: Option<String>,
    /// Controller types (`DMA`) the configuration must not have.
    pub absent: Vec<String>,
    /// Controller types the configuration must have two or more of.
    pub several: Vec<String>,
    /// SimObject types (config.ini's `type=`) the configuration has none of
    /// (`RubyTester`: the only requestor of some request types).
    pub without: Vec<String>,
    /// Dead code: no configuration takes these (the reason argues it from
    /// the protocol's own code); no condition.
    pub dead: bool,
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
    when_of: Option<String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    several: Vec<String>,
    #[serde(default)]
    without: Vec<String>,
    #[serde(default)]
    dead: bool,
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
        let conditioned = !(r.when.is_empty()
            && r.absent.is_empty()
            && r.several.is_empty()
            && r.without.is_empty());
        if !conditioned && !r.dead {
            return Err(format!(
                "{source}:{line}:{col}: a rule needs a condition (`when`, `absent`, `several` or `without`), \
                 or `dead = true` with the argument that no configuration takes its transitions"
            ));
        }
        if r.when_of.is_some() && r.when.is_empty() {
            return Err(format!(
                "{source}:{line}:{col}: `when_of` names the machine whose parameters `when` \
                 asks: a rule with `when_of` needs `when`"
            ));
        }
        if conditioned && r.dead {
            return Err(format!(
                "{source}:{line}:{col}: a `dead` rule has no condition: no configuration takes \
                 dead code"
            ));
        }
        rules.push(Rule {
            machine: r.machine,
            events: r.events,
            states: r.states,
            when: r.when,
            when_of: r.when_of,
            absent: r.absent,
            several: r.several,
            without: r.without,
            dead: r.dead,
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
        /// A `dead` rule's: no configuration takes it.
        dead: bool,
    },
    /// The state is reached from no state the code names, over the
    /// transitions left.
    NeverEntered,
    /// Every trigger of the event needs a message value (`Type:V`) that only
    /// actions of unreachable transitions send: these values.
    NoSender(Vec<String>),
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
                dead,
            } => format!(
                "{}{reason} ({source}:{line})",
                if *dead { "dead code: " } else { "" }
            ),
            Reason::NeverEntered => {
                format!("{m} never enters {s}: only unreachable transitions lead there")
            }
            Reason::NoSender(v) => format!(
                "{m} gets {e} only on {}, which only unreachable transitions send",
                v.join(" or ")
            ),
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
                dead,
            } => format!(
                "{m}: {}{reason} ({source}:{line})",
                if *dead { "dead code: " } else { "" }
            ),
            Reason::NeverEntered => {
                format!("{m}: states only unreachable transitions lead to")
            }
            Reason::NoSender(_) => {
                format!("{m}: events triggered only by messages no reachable transition sends")
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

/// Enumerations whose values C++ code makes (the sequencer's requests,
/// memory responses, machine types): a trigger's condition on them needs
/// nothing SLICC sends.
const MADE_BY_CPP: &[&str] = &[
    "RubyRequestType",
    "MemoryRequestType",
    "SequencerRequestType",
    "MachineType",
    "AccessPermission",
];

/// `E:V` when `toks` is a message value of a type SLICC sends: `E` ends
/// in `Type` and is not one C++ makes.
fn message_value(toks: &[&str]) -> Option<String> {
    match toks {
        [e, ":", v] if e.ends_with("Type") && !MADE_BY_CPP.contains(e) => Some(format!("{e}:{v}")),
        _ => None,
    }
}

/// `toks` without parentheses around the whole.
fn unwrap_parens<'a, 'b>(mut toks: &'b [&'a str]) -> &'b [&'a str] {
    while toks.len() >= 2 && toks[0] == "(" && toks[toks.len() - 1] == ")" {
        // only when the first `(` closes at the end
        let mut depth = 0usize;
        let mut closes_at = 0;
        for (i, t) in toks.iter().enumerate() {
            match *t {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        closes_at = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        if closes_at != toks.len() - 1 {
            break;
        }
        toks = &toks[1..toks.len() - 1];
    }
    toks
}

/// `toks` split at the top-level (outside parentheses) `op`.
fn split_top<'a, 'b>(toks: &'b [&'a str], op: &str) -> Vec<&'b [&'a str]> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (i, t) in toks.iter().enumerate() {
        match *t {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            x if x == op && depth == 0 => {
                parts.push(&toks[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[from..]);
    parts
}

/// The message value an equality `X == E:V` (or `E:V == X`) asks for; none
/// for anything else (a negation, another operator).
fn atom(toks: &[&str]) -> Option<String> {
    let toks = unwrap_parens(toks);
    if toks.iter().any(|t| matches!(*t, "!" | "!=" | "&&" | "||")) {
        return None;
    }
    let eq: Vec<usize> = (0..toks.len()).filter(|&i| toks[i] == "==").collect();
    let [k] = eq[..] else {
        return None;
    };
    message_value(&toks[k + 1..]).or_else(|| message_value(&toks[..k]))
}

/// The message values one of which a disjunction of equalities asks for;
/// none when a disjunct is anything else.
fn alternatives(toks: &[&str]) -> Option<BTreeSet<String>> {
    let toks = unwrap_parens(toks);
    let parts = split_top(toks, "||");
    if parts.len() == 1 {
        return atom(toks).map(|v| BTreeSet::from([v]));
    }
    let mut out = BTreeSet::new();
    for p in parts {
        if split_top(p, "&&").len() > 1 {
            return None;
        }
        out.extend(alternatives(p)?);
    }
    Some(out)
}

/// What an `if` condition asks of the message: each entry a set of values
/// one of which must hold (a conjunction of disjunctions of equalities);
/// nothing it cannot read.
fn requirements(toks: &[&str]) -> Vec<BTreeSet<String>> {
    let toks = unwrap_parens(toks);
    let conj = split_top(toks, "&&");
    if conj.len() > 1 {
        return conj.into_iter().flat_map(requirements).collect();
    }
    alternatives(toks).into_iter().collect()
}

/// The condition of the `if` whose body the `{` at token `open` starts
/// (`if (c) {` or `else if (c) {`), as [`requirements`]; empty for any
/// other block.
fn if_requirements(f: &SliccFile, open: usize, start: usize) -> Vec<BTreeSet<String>> {
    if open == start || f.tok(open - 1) != ")" {
        return Vec::new();
    }
    let mut depth = 0usize;
    let mut k = open - 1;
    loop {
        match f.tok(k) {
            ")" => depth += 1,
            "(" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        if k == start {
            return Vec::new();
        }
        k -= 1;
    }
    if k == start || f.tok(k - 1) != "if" {
        return Vec::new();
    }
    let toks: Vec<&str> = (k + 1..open - 1).map(|i| f.tok(i)).collect();
    requirements(&toks)
}

/// Each place the code of a machine names `Event:E`, by event: what the
/// `if`s around it ask of the message (each requirement a set of values
/// one of which must hold).
type Sites = BTreeMap<String, Vec<Vec<BTreeSet<String>>>>;

/// The [`Sites`] of `m`.
fn trigger_sites(files: &[SliccFile], own: usize, m: &Machine) -> Sites {
    let mut sites = Sites::new();
    for (f, r) in machine_tokens(files, own, m) {
        let mut open: Vec<Vec<BTreeSet<String>>> = Vec::new();
        for i in r.clone() {
            match f.tok(i) {
                "{" => open.push(if_requirements(f, i, r.start)),
                "}" => {
                    open.pop();
                }
                "Event" if i + 2 < r.end && f.tok(i + 1) == ":" => {
                    let needs = open.iter().flatten().cloned().collect();
                    sites
                        .entry(f.tok(i + 2).to_string())
                        .or_default()
                        .push(needs);
                }
                _ => {}
            }
        }
    }
    sites
}

/// Who sends each message value: the actions whose code names it (other
/// than to compare with), and the values named outside any action
/// (functions, ports), which count as always sent.
#[derive(Default)]
struct Senders {
    /// (machine, action) -> the values it names.
    actions: BTreeMap<(String, String), BTreeSet<String>>,
    /// Values named outside actions (in a machine's code or outside every
    /// machine), or as a `"E_V"` default: sent whatever is reachable.
    free: BTreeSet<String>,
}

/// The message value `E:V` at token `i` of `r` in `file`, when the code
/// names it other than to compare with (`==`, `!=` beside it).
fn sent_value(file: &SliccFile, i: usize, r: &std::ops::Range<usize>) -> Option<String> {
    let compare = |t: &str| t == "==" || t == "!=";
    if i + 2 >= r.end || file.tok(i + 1) != ":" {
        return None;
    }
    let v = message_value(&[file.tok(i), ":", file.tok(i + 2)])?;
    let before = i > r.start && compare(file.tok(i - 1));
    let after = i + 3 < r.end && compare(file.tok(i + 3));
    (!before && !after).then_some(v)
}

/// The [`Senders`] of every machine of `p`.
fn senders(p: &slicc::Protocol) -> Senders {
    let mut out = Senders::default();
    // each file's token ranges some machine's code covers
    let mut inside: Vec<Vec<std::ops::Range<usize>>> = vec![Vec::new(); p.files.len()];
    for (own, f) in p.files.iter().enumerate() {
        for m in &f.machines {
            let files = std::iter::once(own).chain(m.includes.iter().filter_map(|i| i.file));
            for (index, (file, r)) in files.zip(machine_tokens(&p.files, own, m)) {
                inside[index].push(r.clone());
                let in_action = |byte: usize| {
                    m.actions
                        .iter()
                        .find(|a| a.file == index && a.span.start <= byte && byte < a.span.end)
                        .map(|a| a.name.name.clone())
                };
                for i in r.clone() {
                    let Some(v) = sent_value(file, i, &r) else {
                        continue;
                    };
                    match in_action(file.tokens[i].start) {
                        Some(a) => {
                            out.actions
                                .entry((m.ident.clone(), a))
                                .or_default()
                                .insert(v);
                        }
                        None => {
                            out.free.insert(v);
                        }
                    }
                }
            }
        }
    }
    // code outside every machine (a message file's functions), and
    // `default="E_V"` strings anywhere (a field left unset holds it)
    for (k, file) in p.files.iter().enumerate() {
        let whole = 0..file.tokens.len();
        for i in whole.clone() {
            let default = file
                .tok(i)
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .and_then(|t| t.split_once('_'));
            let v = match default {
                Some((e, v)) => message_value(&[e, ":", v]),
                None if inside[k].iter().any(|r| r.contains(&i)) => None,
                None => sent_value(file, i, &whole),
            };
            out.free.extend(v);
        }
    }
    out
}

/// Whether `rule`'s condition holds in `config`; an error when the
/// configuration cannot tell (a controller without the parameter).
fn holds(rule: &Rule, config: &Config) -> Result<bool, String> {
    if rule.dead {
        return Ok(true);
    }
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
    for t in &rule.without {
        if !config.sections_of_type(t).is_empty() {
            return Ok(false);
        }
    }
    if rule.when.is_empty() {
        return Ok(true);
    }
    let of = rule.when_of.as_deref().unwrap_or(&rule.machine);
    let sections = config.sections_of_type(&format!("{of}_Controller"));
    if sections.is_empty() {
        // no controller of the rule's machine: nothing of it is reachable;
        // of another machine: no parameter says the rule holds
        return Ok(rule.when_of.is_none());
    }
    for s in sections {
        for (k, want) in &rule.when {
            match parameter(config, s, k)? {
                v if v == want => {}
                _ => return Ok(false),
            }
        }
    }
    Ok(true)
}

/// Parameter `key` of `section`; `ref.key` follows the section parameter
/// `ref` names (`sequencer.type`: the type of the controller's sequencer).
fn parameter<'c>(config: &'c Config, section: &str, key: &str) -> Result<&'c str, String> {
    match key.split_once('.') {
        None => config
            .get(section, key)
            .ok_or_else(|| format!("[{section}] has no parameter `{key}`")),
        Some((r, rest)) => {
            let to = config
                .get(section, r)
                .ok_or_else(|| format!("[{section}] has no parameter `{r}`"))?;
            parameter(config, to, rest)
        }
    }
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
            "a run has no config.ini: neither absent controllers nor reach rules (but dead code's) are used"
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
            if let Some(of) = &r.when_of {
                if !machines.iter().any(|(_, m)| m.ident == *of) {
                    return Err(format!(
                        "{at}: protocol {} has no machine {of} (when_of)",
                        p.name
                    ));
                }
            }
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
            // dead code needs no configuration to argue from
            if !all_known && !r.dead {
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
    // per machine: what the configuration and the rules rule out
    struct Part {
        name: String,
        rows: Vec<(String, String, String, Vec<String>)>,
        mark: BTreeMap<(String, String), Reason>,
        absent: bool,
        /// The message analysis applies (a machine with in_ports).
        flows: bool,
        sites: Sites,
        /// The states the machine's code starts it in.
        roots: BTreeSet<String>,
        /// The states entered, after the fixpoint.
        entered: BTreeSet<String>,
        /// A `*` next state was reached: every state counts as entered.
        all: bool,
    }
    let mut parts: Vec<Part> = Vec::new();
    for &(own, m) in &machines {
        let name = &m.ident;
        let rows = m.expanded();
        let absent = all_known
            && known
                .iter()
                .all(|c| c.sections_of_type(&format!("{name}_Controller")).is_empty());
        let was_taken = |s: &str, e: &str| taken.contains(&format!("{name}.{s}.{e}"));
        // where the code names each event (SLICC triggers one only so)
        let sites = trigger_sites(&p.files, own, m);
        let mut mark: BTreeMap<(String, String), Reason> = BTreeMap::new();
        if absent {
            for (s, e, _, _) in &rows {
                mark.insert((s.clone(), e.clone()), Reason::NoController);
            }
        } else {
            // a machine without in_ports is a fragment (a test's toy): its
            // triggers are not all there to read
            for (s, e, _, _) in &rows {
                if !m.in_ports.is_empty() && !sites.contains_key(e) {
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
                                dead: r.dead,
                            });
                    }
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
        parts.push(Part {
            name: name.clone(),
            rows,
            mark,
            absent,
            flows: !m.in_ports.is_empty(),
            sites,
            roots: root_states(&p.files, own, m),
            entered: BTreeSet::new(),
            all: false,
        });
    }
    // all machines at once, a least fixpoint: the transitions reachable
    // from the states entered, over the events whose triggers ask only for
    // message values sent (by an action of a reachable transition, or by
    // code outside actions; C++ makes only MADE_BY_CPP's); a transition
    // a run took is reachable, and so are the values its actions send
    let send = senders(p);
    let sendable = |v: &str, sent: &BTreeSet<String>| send.free.contains(v) || sent.contains(v);
    // an event is enabled when one of its triggers asks only for values sent
    let enabled = |part: &Part, e: &str, sent: &BTreeSet<String>| {
        if !part.flows {
            return true;
        }
        match part.sites.get(e) {
            None => true,
            Some(sites) => sites.iter().any(|needs| {
                needs
                    .iter()
                    .all(|alts| alts.iter().any(|v| sendable(v, sent)))
            }),
        }
    };
    // the fixpoint, with the runs' evidence or from the code alone: the
    // reachable (part, row)s, the values sent, each part's states entered
    // and whether it reached a `*`
    type Fix = (
        BTreeSet<(usize, usize)>,
        BTreeSet<String>,
        Vec<(BTreeSet<String>, bool)>,
    );
    let fixpoint = |evidence: bool| -> Fix {
        let mut reachable: BTreeSet<(usize, usize)> = BTreeSet::new();
        // a machine whose code names no state has no known start: every
        // state counts as entered
        let mut states: Vec<(BTreeSet<String>, bool)> = parts
            .iter()
            .map(|part| (part.roots.clone(), part.roots.is_empty()))
            .collect();
        if evidence {
            for (k, part) in parts.iter().enumerate() {
                for (j, (s, e, _, _)) in part.rows.iter().enumerate() {
                    if taken.contains(&format!("{}.{s}.{e}", part.name)) {
                        reachable.insert((k, j));
                        states[k].0.insert(s.clone());
                    }
                }
            }
        }
        let mut sent: BTreeSet<String> = BTreeSet::new();
        loop {
            let before = (reachable.len(), sent.len());
            for &(k, j) in &reachable {
                let part = &parts[k];
                for a in &part.rows[j].3 {
                    if let Some(vs) = send.actions.get(&(part.name.clone(), a.clone())) {
                        sent.extend(vs.iter().cloned());
                    }
                }
            }
            for (k, part) in parts.iter().enumerate() {
                if part.absent {
                    continue;
                }
                for (j, (s, e, next, _)) in part.rows.iter().enumerate() {
                    let (entered, all) = &states[k];
                    let live = (*all || entered.contains(s))
                        && !part.mark.contains_key(&(s.clone(), e.clone()))
                        && enabled(part, e, &sent);
                    if live || reachable.contains(&(k, j)) {
                        reachable.insert((k, j));
                        if next == "*" {
                            states[k].1 = true;
                        } else {
                            states[k].0.insert(next.clone());
                        }
                    }
                }
            }
            if (reachable.len(), sent.len()) == before {
                return (reachable, sent, states);
            }
        }
    };
    // the code alone must not rule out what a run took: said if it does
    let (alone, _, _) = fixpoint(false);
    for (k, part) in parts.iter().enumerate() {
        for (j, (s, e, _, _)) in part.rows.iter().enumerate() {
            let key = (s.clone(), e.clone());
            if !alone.contains(&(k, j))
                && !part.mark.contains_key(&key)
                && !part.absent
                && taken.contains(&format!("{}.{s}.{e}", part.name))
            {
                reach.notes.push(format!(
                    "{}.{s}.{e} was taken by a run, though the code alone does not reach it \
                     (its state or the messages of its event): counted reachable",
                    part.name
                ));
            }
        }
    }
    let (reachable, sent, states) = fixpoint(true);
    for (k, part) in parts.iter_mut().enumerate() {
        part.entered = states[k].0.clone();
        part.all = states[k].1;
    }
    for (k, part) in parts.iter_mut().enumerate() {
        if !part.absent {
            for (j, (s, e, _, _)) in part.rows.iter().enumerate() {
                if reachable.contains(&(k, j)) {
                    continue;
                }
                let key = (s.clone(), e.clone());
                if part.mark.contains_key(&key) {
                    continue;
                }
                let why = if !(part.all || part.entered.contains(s)) {
                    Reason::NeverEntered
                } else {
                    // the values its triggers ask for that nothing sends
                    let mut unsent: BTreeSet<String> = BTreeSet::new();
                    for needs in part.sites.get(e).into_iter().flatten() {
                        for alts in needs {
                            if !alts.iter().any(|v| sendable(v, &sent)) {
                                unsent.extend(alts.iter().cloned());
                            }
                        }
                    }
                    Reason::NoSender(unsent.into_iter().collect())
                };
                part.mark.insert(key, why);
            }
        }
        for ((s, e), why) in std::mem::take(&mut part.mark) {
            reach.unreachable.insert((part.name.clone(), s, e), why);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Protocol `name` whose one file `X.sm` is `sm`, in a temporary
    /// directory named after `tag` (removed by the caller), loaded.
    fn toy(tag: &str, name: &str, sm: &str) -> (std::path::PathBuf, slicc::Protocol) {
        let dir = std::env::temp_dir().join(format!("memconform-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let slicc = format!("protocol \"{name}\";\ninclude \"X.sm\";\n");
        std::fs::write(dir.join(format!("{name}.slicc")), slicc).unwrap();
        std::fs::write(dir.join("X.sm"), sm).unwrap();
        let p = slicc::load_protocol(&dir, name).unwrap();
        (dir, p)
    }

    /// A protocol named like one memconform has a reach file for, whose
    /// machines lack what the file names: the file is left out with a
    /// note, the analysis still runs (here: a machine whose code names no
    /// state, so every state counts as entered, and nothing is unreachable).
    #[test]
    fn a_builtin_reach_file_that_does_not_fit_is_left_out() {
        let (dir, p) = toy(
            "reach",
            "MOESI_hammer",
            "machine(MachineType:L1Cache, \"x\") {\n\
             state_declaration(State, desc=\"s\") { I, desc=\"i\"; M, desc=\"m\"; }\n\
             enumeration(Event, desc=\"e\") { Load, desc=\"l\"; }\n\
             transition(I, Load, M) { }\n\
             transition(M, Load) { }\n\
             }\n",
        );
        let r = analyse_builtin(&p, &[None], &BTreeSet::new());
        assert!(r.unreachable.is_empty(), "{:?}", r.unreachable);
        assert!(
            r.notes.iter().any(|n| n.starts_with(
                "memconform's reach file does not fit this MOESI_hammer (gem5-configs/reach/\
                 MOESI_hammer.toml:"
            )),
            "{:?}",
            r.notes
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Who sends a protocol's own message value: an action of a reachable
    /// transition (A, sent by I.ED), code outside every machine (C), a
    /// `default="ToyType_D"` (D); a value only compared with (B) is never
    /// sent, so I.EB alone is unreachable.
    #[test]
    fn a_value_only_compared_with_is_never_sent() {
        let (dir, p) = toy(
            "sent",
            "Toysent",
            "enumeration(ToyType, desc=\"t\") { A, desc=\"a\"; B, desc=\"b\"; C, desc=\"c\"; D, desc=\"d\"; }\n\
             structure(ToyMsg, desc=\"m\") { ToyType Type, default=\"ToyType_D\"; }\n\
             ToyType pick() { return ToyType:C; }\n\
             machine(MachineType:L1Cache, \"x\") {\n\
             state_declaration(State, desc=\"s\", default=\"L1Cache_State_I\") { I, desc=\"i\"; }\n\
             enumeration(Event, desc=\"e\") { EA, desc=\"a\"; EB, desc=\"b\"; EC, desc=\"c\"; ED, desc=\"d\"; }\n\
             in_port(q_in, ToyMsg, q) {\n\
               peek(q_in, ToyMsg) {\n\
                 if (in_msg.Type == ToyType:A) { trigger(Event:EA, address); }\n\
                 else if (in_msg.Type == ToyType:B) { trigger(Event:EB, address); }\n\
                 else if (in_msg.Type == ToyType:C) { trigger(Event:EC, address); }\n\
                 else if (in_msg.Type == ToyType:D) { trigger(Event:ED, address); }\n\
               }\n\
             }\n\
             action(s_sendA, \"s\", desc=\"a\") { enqueue(o, ToyMsg, 1) { out_msg.Type := ToyType:A; } }\n\
             transition(I, EA) { }\n\
             transition(I, EB) { }\n\
             transition(I, EC) { }\n\
             transition(I, ED) { s_sendA; }\n\
             }\n",
        );
        let r = analyse(&p, &[None], None, &BTreeSet::new()).unwrap();
        let got: Vec<String> = r
            .unreachable
            .keys()
            .map(|(m, s, e)| format!("{m}.{s}.{e}"))
            .collect();
        assert_eq!(got, ["L1Cache.I.EB"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
