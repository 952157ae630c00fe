//! Transition coverage (docs/design/campaigns.md §4): gem5 counts every
//! transition a controller takes in `stats.txt` as
//! `<prefix>.<Machine>_Controller.<State>.<Event>` (a `::total` line beside
//! it when there are several controllers), and a protocol's SLICC declares
//! the (state, event) pairs its machines can take ([`slicc`]). This module
//! reads the counts ([`read_counts`]), the declared pairs ([`declared`]),
//! and sets one against the other per controller type ([`Table`]: text,
//! CSV, an SVG heat map), for `memconform coverage` and for each baseline
//! seed of a campaign.
//!
//! gem5 is deterministic: a mutant run with a baseline seed executes exactly
//! as the baseline until it first runs the edited code, so a mutant none of
//! whose counters ([`Mutant::fires`](super::Mutant::fires)) fired in any
//! baseline seed cannot be killed by those seeds: it is `no_coverage`,
//! reported and not built.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use memconform_parsers::gem5::config;
use memconform_parsers::gem5::stats::parse_stats;
use serde::{Deserialize, Serialize};

use crate::{reach, slicc, Mutant};

/// A transition counter: (machine, state, event).
pub type Key = (String, String, String);

/// The transition counts of one run or of several summed, with the order
/// gem5 printed them in (a machine's states and events in declaration order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    pub count: BTreeMap<Key, u64>,
    /// Each counter once, in the order first seen.
    pub order: Vec<Key>,
}

impl Counts {
    /// Adds `n` to counter `k`.
    fn bump(&mut self, k: Key, n: u64) {
        match self.count.get_mut(&k) {
            Some(c) => *c += n,
            None => {
                self.order.push(k.clone());
                self.count.insert(k, n);
            }
        }
    }

    /// Adds `other`'s counts to these (several runs sum).
    pub fn add(&mut self, other: &Counts) {
        for k in &other.order {
            self.bump(k.clone(), other.count[k]);
        }
    }

    /// `Machine.State.Event` of each counter with a non-zero count (the
    /// names of [`Mutant::fires`]).
    pub fn fired(&self) -> BTreeSet<String> {
        self.count
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|((m, s, e), _)| format!("{m}.{s}.{e}"))
            .collect()
    }
}

/// Why a `stats.txt` gives no transition counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountsError {
    /// The file cannot be read.
    Io(String),
    /// A line that does not parse: `path:line:col: message`.
    Parse(String),
    /// The file has no transition counter: gem5 did not write them.
    NoCounters(String),
}

impl fmt::Display for CountsError {
    /// The message, which names the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CountsError::Io(m) | CountsError::Parse(m) | CountsError::NoCounters(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for CountsError {}

/// The count of one transition counter line: its `::total` line's value
/// when it has one (several controllers), else the sum of its per-controller
/// counts (a vector line's values come in threes: count, %, cumulative %),
/// else its one value.
fn line_count(values: &[f64]) -> f64 {
    let v = if values.len() >= 3 && values.len().is_multiple_of(3) {
        values.iter().step_by(3).sum()
    } else {
        values.first().copied().unwrap_or(0.0)
    };
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// gem5's transition counters in a `stats.txt` (see the module doc). Of
/// several dumps in one file each counter keeps its largest count: gem5's
/// dumps are cumulative unless the statistics were reset between them.
pub fn read_counts(stats_txt: &Path) -> Result<Counts, CountsError> {
    let shown = memconform_report::shown_path(stats_txt);
    // a bundled run keeps its stats.txt gzipped (stats.txt.gz)
    let bytes = memconform_parsers::file::FileBytes::open_gunzipped(stats_txt)
        .map_err(|e| CountsError::Io(format!("{shown}: cannot read: {e}")))?;
    let dumps = parse_stats(&bytes).map_err(|e| CountsError::Parse(format!("{shown}:{e}")))?;
    let mut out = Counts::default();
    for dump in &dumps {
        // per counter: its `::total` line's count, or its own line's
        let mut here: Vec<(Key, Option<f64>, Option<f64>)> = Vec::new();
        for (name, values) in &dump.entries {
            let Some(key) = transition_counter(name) else {
                continue;
            };
            let total = name.ends_with("::total");
            let n = if total {
                values
                    .first()
                    .copied()
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .unwrap_or(0.0)
            } else {
                line_count(values)
            };
            match here.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, t, p)) => *(if total { t } else { p }) = Some(n),
                None if total => here.push((key, Some(n), None)),
                None => here.push((key, None, Some(n))),
            }
        }
        for (key, total, plain) in here {
            let n = total.or(plain).unwrap_or(0.0).round() as u64;
            match out.count.get_mut(&key) {
                Some(c) => *c = (*c).max(n),
                None => out.bump(key, n),
            }
        }
    }
    if out.order.is_empty() {
        return Err(CountsError::NoCounters(if dumps.is_empty() {
            format!(
                "{shown}: no statistics: gem5 did not write its transition counters (it writes \
                 stats.txt only when a run exits normally; an empty one is a run that panicked, \
                 aborted or was killed)"
            )
        } else {
            format!(
                "{shown}: no transition counters (`<prefix>.<Machine>_Controller.<State>.<Event>`): \
                 gem5 did not write them (only Ruby controllers count transitions, and gem5 leaves \
                 out counters that stayed 0)"
            )
        }));
    }
    Ok(out)
}

/// The transition counters (`Machine.State.Event`) with a non-zero count in
/// a `stats.txt`; `None` when the file has none at all (no stats written,
/// e.g. a run that panicked, or a gem5 that does not count transitions),
/// or cannot be read or parsed: then nothing can be said.
pub fn fired(stats_txt: &Path) -> Option<BTreeSet<String>> {
    read_counts(stats_txt).ok().map(|c| c.fired())
}

/// (machine, state, event) of a transition counter's name
/// (`system.ruby.L1Cache_Controller.I.Load`, or with `::total`).
fn transition_counter(name: &str) -> Option<Key> {
    let name = name.strip_suffix("::total").unwrap_or(name);
    let mut parts = name.rsplitn(4, '.');
    let event = parts.next()?;
    let state = parts.next()?;
    let controller = parts.next()?;
    let machine = controller.strip_suffix("_Controller")?;
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.contains("::")
    };
    (ident(machine) && ident(state) && ident(event))
        .then(|| (machine.to_string(), state.to_string(), event.to_string()))
}

/// Whether a mutant that fires `fires` can run differently from the
/// baseline whose seeds fired `covered`: `None` (nothing tells) counts as
/// covered.
pub fn covered(fires: Option<&[String]>, covered: &BTreeSet<String>) -> bool {
    match fires {
        None => true,
        Some(f) => f.iter().any(|k| covered.contains(k)),
    }
}

/// One machine's declared transitions: SLICC's expansion of every header
/// into its (state, event) pairs (`TransitionDeclAST.generate`; a header
/// over `{S,I}` and `{Load,Store}` is four pairs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineDecl {
    /// `X` of `MachineType:X`: the `X_Controller` of the counters.
    pub machine: String,
    /// The states and events in declaration order (the heat map's axes).
    pub states: Vec<String>,
    pub events: Vec<String>,
    /// Each declared pair, with whether its header stalls (`z_stall`: SLICC
    /// returns ProtocolStall before counting, so gem5 never counts it).
    pub transitions: BTreeMap<(String, String), bool>,
}

/// A protocol's declared transitions, machine by machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub protocol: String,
    /// The `.slicc` file they were read from.
    pub manifest: PathBuf,
    pub machines: Vec<MachineDecl>,
}

/// The declared transitions of every machine of `p` (its `.sm` files, the
/// DMA controllers included).
pub fn declared(p: &slicc::Protocol) -> Declared {
    let mut machines = Vec::new();
    for f in &p.files {
        for m in &f.machines {
            let mut transitions = BTreeMap::new();
            for t in &m.transitions {
                let stall = crate::ops::stalls(t);
                for s in &t.states.items {
                    for e in &t.events.items {
                        transitions.insert((s.name.clone(), e.name.clone()), stall);
                    }
                }
            }
            machines.push(MachineDecl {
                machine: m.ident.clone(),
                states: m.states.iter().map(|i| i.name.clone()).collect(),
                events: m.events.iter().map(|i| i.name.clone()).collect(),
                transitions,
            });
        }
    }
    Declared {
        protocol: p.name.clone(),
        manifest: p.root.join(&p.manifest),
        machines,
    }
}

/// One (state, event) of a machine: its count and what SLICC says of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cell {
    pub count: u64,
    pub declared: bool,
    /// Declared by a `z_stall` header: never counted.
    pub stall: bool,
}

/// One controller type's transitions taken against those declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineTable {
    pub machine: String,
    /// Whether the declared transitions are known (the protocol was read).
    pub known: bool,
    pub states: Vec<String>,
    pub events: Vec<String>,
    /// The pairs declared or counted.
    pub cells: BTreeMap<(String, String), Cell>,
    /// Whether the transitions the configuration can take are known (a
    /// reach analysis ran, [`reach`](crate::reach)).
    pub reach_known: bool,
    /// The declared pairs the configuration cannot take, with why.
    pub unreachable: BTreeMap<(String, String), reach::Reason>,
}

impl MachineTable {
    /// The cells in states × events order.
    fn ordered(&self) -> impl Iterator<Item = (&str, &str, &Cell)> + '_ {
        self.states.iter().flat_map(move |s| {
            self.events.iter().filter_map(move |e| {
                self.cells
                    .get(&(s.clone(), e.clone()))
                    .map(|c| (s.as_str(), e.as_str(), c))
            })
        })
    }

    /// Transitions taken: of the declared ones when they are known.
    pub fn taken(&self) -> usize {
        self.cells
            .values()
            .filter(|c| c.count > 0 && (c.declared || !self.known))
            .count()
    }

    /// Transitions gem5 can count (declared, not stalls); `None` when unknown.
    pub fn declared(&self) -> Option<usize> {
        self.known.then(|| {
            self.cells
                .values()
                .filter(|c| c.declared && !c.stall)
                .count()
        })
    }

    /// Declared transitions the configuration can take (not stalls, not
    /// unreachable); `None` when unknown.
    pub fn reachable(&self) -> Option<usize> {
        (self.known && self.reach_known).then(|| {
            self.cells
                .iter()
                .filter(|(k, c)| c.declared && !c.stall && !self.unreachable.contains_key(*k))
                .count()
        })
    }

    /// Declared `z_stall` transitions (never counted, left out of [`Self::declared`]).
    pub fn stalls(&self) -> usize {
        self.cells.values().filter(|c| c.stall).count()
    }

    /// Declared transitions no run took (reachable ones, when that is
    /// known), as `State.Event`.
    pub fn untaken(&self) -> Vec<String> {
        self.ordered()
            .filter(|(s, e, c)| {
                c.declared
                    && !c.stall
                    && c.count == 0
                    && !self
                        .unreachable
                        .contains_key(&(s.to_string(), e.to_string()))
            })
            .map(|(s, e, _)| format!("{s}.{e}"))
            .collect()
    }

    /// Transitions taken that the protocol does not declare (other `.sm`
    /// files than the run's), as `State.Event`.
    pub fn undeclared(&self) -> Vec<String> {
        if !self.known {
            return Vec::new();
        }
        self.ordered()
            .filter(|(_, _, c)| !c.declared && c.count > 0)
            .map(|(s, e, _)| format!("{s}.{e}"))
            .collect()
    }
}

/// A controller type's coverage in brief, as a campaign's baseline event
/// keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub machine: String,
    /// Transitions taken (of the declared ones when they are known).
    pub taken: usize,
    /// Transitions gem5 can count (declared, not stalls); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<usize>,
    /// Of those, the ones the configuration can take; absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reachable: Option<usize>,
}

/// `taken of declared (percent)` of a sum, or `taken` alone.
fn fraction(taken: usize, declared: Option<usize>) -> String {
    match declared {
        Some(0) => format!("{taken}/0"),
        Some(d) => format!("{taken}/{d} ({:.0}%)", 100.0 * taken as f64 / d as f64),
        None => format!("{taken} taken"),
    }
}

/// One line of summaries: `35/68 (51%): L1Cache 25/48 (52%), Directory ...`;
/// of the reachable transitions when known (`35/60 reachable (58%), 68
/// declared: ...`).
pub fn summary_line(s: &[Summary]) -> String {
    let taken = s.iter().map(|m| m.taken).sum();
    let declared = s.iter().map(|m| m.declared).sum::<Option<usize>>();
    let reachable = s.iter().map(|m| m.reachable).sum::<Option<usize>>();
    let parts: Vec<String> = s
        .iter()
        .map(|m| {
            format!(
                "{} {}",
                m.machine,
                fraction(m.taken, m.reachable.or(m.declared))
            )
        })
        .collect();
    let all = match (reachable, declared) {
        (Some(r), Some(d)) => {
            let f = fraction(taken, Some(r));
            let (num, pct) = f.split_once(' ').unwrap_or((&f, ""));
            format!("{num} reachable transitions {pct}, {d} declared")
        }
        (None, Some(_)) => format!("{} transitions", fraction(taken, declared)),
        _ => format!("{taken} transitions taken (declared unknown)"),
    };
    format!("{all}: {}", parts.join(", "))
}

/// Transitions taken against transitions declared, per controller type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// How many runs were summed.
    pub runs: usize,
    /// The protocol, when known.
    pub protocol: Option<String>,
    /// The `.slicc` file the declared transitions come from (shown), if read.
    pub declared_in: Option<String>,
    pub machines: Vec<MachineTable>,
    /// The reach analysis the table was marked with ([`Table::with_reach`]).
    pub reach: Option<reach::Reach>,
}

/// A name as the SVG's text (`&`, `<`, `>`, `"` escaped).
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `v` added to `list` unless it is there.
fn push_new(list: &mut Vec<String>, v: &str) {
    if !list.iter().any(|x| x == v) {
        list.push(v.to_string());
    }
}

impl Table {
    /// The table of `counts` (summed over `runs` runs) against `declared`
    /// (`None`: taken transitions only). Machines in the protocol's order,
    /// then any other the runs counted.
    pub fn new(
        counts: &Counts,
        declared: Option<&Declared>,
        runs: usize,
        protocol: Option<String>,
    ) -> Table {
        let mut machines: Vec<MachineTable> = Vec::new();
        if let Some(d) = declared {
            for m in &d.machines {
                let mut t = MachineTable {
                    machine: m.machine.clone(),
                    known: true,
                    states: m.states.clone(),
                    events: m.events.clone(),
                    cells: BTreeMap::new(),
                    reach_known: false,
                    unreachable: BTreeMap::new(),
                };
                for ((s, e), &stall) in &m.transitions {
                    // a header may name a state or event no declaration has
                    push_new(&mut t.states, s);
                    push_new(&mut t.events, e);
                    t.cells.insert(
                        (s.clone(), e.clone()),
                        Cell {
                            count: 0,
                            declared: true,
                            stall,
                        },
                    );
                }
                machines.push(t);
            }
        }
        for key in &counts.order {
            let (m, s, e) = key;
            let i = match machines.iter().position(|t| t.machine == *m) {
                Some(i) => i,
                None => {
                    machines.push(MachineTable {
                        machine: m.clone(),
                        known: declared.is_some(),
                        states: Vec::new(),
                        events: Vec::new(),
                        cells: BTreeMap::new(),
                        reach_known: false,
                        unreachable: BTreeMap::new(),
                    });
                    machines.len() - 1
                }
            };
            let t = &mut machines[i];
            push_new(&mut t.states, s);
            push_new(&mut t.events, e);
            t.cells.entry((s.clone(), e.clone())).or_default().count += counts.count[key];
        }
        Table {
            runs,
            protocol: protocol.or_else(|| declared.map(|d| d.protocol.clone())),
            declared_in: declared.map(|d| memconform_report::shown_path(&d.manifest).into_owned()),
            machines,
            reach: None,
        }
    }

    /// The table with the transitions the configuration cannot take marked
    /// (`reach`, [`reach::analyse`] of the same runs).
    pub fn with_reach(mut self, reach: reach::Reach) -> Table {
        for m in &mut self.machines {
            if !m.known {
                continue;
            }
            m.reach_known = true;
            m.unreachable = reach
                .unreachable
                .iter()
                .filter(|((mm, s, e), _)| {
                    // the pairs gem5 counts: a stall is never a target
                    *mm == m.machine
                        && m.cells
                            .get(&(s.clone(), e.clone()))
                            .is_some_and(|c| c.declared && !c.stall)
                })
                .map(|((_, s, e), r)| ((s.clone(), e.clone()), r.clone()))
                .collect();
        }
        self.reach = Some(reach);
        self
    }

    /// Each machine's summary.
    pub fn summary(&self) -> Vec<Summary> {
        self.machines
            .iter()
            .map(|m| Summary {
                machine: m.machine.clone(),
                taken: m.taken(),
                declared: m.declared(),
                reachable: m.reachable(),
            })
            .collect()
    }

    /// The text table: per controller type taken, declared, percent and
    /// stalls; with `list` each declared transition not taken.
    pub fn text(&self, list: bool) -> String {
        let mut out = String::new();
        let known = self.declared_in.is_some();
        let _ = writeln!(
            out,
            "transition coverage of {} run{}{}: {}",
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            self.protocol
                .as_ref()
                .map_or(String::new(), |p| format!(", protocol {p}")),
            match &self.declared_in {
                Some(f) => format!("declared transitions from {f}"),
                None => "declared transitions unknown (the protocol's .slicc and .sm files were not read)"
                    .to_string(),
            }
        );
        let width = self
            .machines
            .iter()
            .map(|m| m.machine.len())
            .max()
            .unwrap_or(0)
            .max(7);
        let reach = known && self.reach.is_some();
        let row = |out: &mut String, cols: [&str; 6]| {
            let _ = write!(out, "{:<width$}  {:>6}", cols[0], cols[1]);
            if reach {
                let _ = write!(out, "  {:>9}", cols[2]);
            }
            let _ = writeln!(out, "  {:>8}  {:>7}  {:>6}", cols[3], cols[4], cols[5]);
        };
        row(
            &mut out,
            [
                "machine",
                "taken",
                "reachable",
                "declared",
                "percent",
                "stalls",
            ],
        );
        let pct = |t: usize, d: Option<usize>| match d {
            Some(d) if d > 0 => format!("{:.1}%", 100.0 * t as f64 / d as f64),
            _ => "-".to_string(),
        };
        let opt = |d: Option<usize>| d.map_or("?".to_string(), |d| d.to_string());
        let (mut taken, mut declared, mut reachable, mut stalls) = (0, Some(0), Some(0), 0);
        for m in &self.machines {
            let (d, r) = (m.declared(), m.reachable());
            let of = if reach { r } else { d };
            row(
                &mut out,
                [
                    &m.machine,
                    &m.taken().to_string(),
                    &opt(r),
                    &opt(d),
                    &pct(m.taken(), of),
                    &if known {
                        m.stalls().to_string()
                    } else {
                        "?".into()
                    },
                ],
            );
            taken += m.taken();
            declared = declared.zip(d).map(|(a, b)| a + b);
            reachable = reachable.zip(r).map(|(a, b)| a + b);
            stalls += m.stalls();
        }
        let declared = declared.filter(|_| known);
        let of = if reach { reachable } else { declared };
        row(
            &mut out,
            [
                "all",
                &taken.to_string(),
                &opt(reachable),
                &opt(declared),
                &pct(taken, of),
                &if known {
                    stalls.to_string()
                } else {
                    "?".into()
                },
            ],
        );
        if reach {
            let _ = writeln!(
                out,
                "(percent: of the reachable transitions, the declared ones this configuration \
                 can take; --list says why the others cannot)"
            );
        }
        if known && stalls > 0 {
            let _ = writeln!(
                out,
                "(stalls: declared z_stall transitions, which gem5 never counts: not in `declared`)"
            );
        }
        for n in self.reach.iter().flat_map(|r| &r.notes) {
            let _ = writeln!(out, "note: {n}");
        }
        for m in &self.machines {
            let u = m.undeclared();
            if !u.is_empty() {
                let _ = writeln!(
                    out,
                    "note: {} took {} transition{} its SLICC does not declare ({}): are these the run's .sm files?",
                    m.machine,
                    u.len(),
                    if u.len() == 1 { "" } else { "s" },
                    u.join(", ")
                );
            }
        }
        if list && known {
            let untaken: Vec<String> = self
                .machines
                .iter()
                .flat_map(|m| {
                    m.untaken()
                        .into_iter()
                        .map(move |t| format!("{}.{t}", m.machine))
                })
                .collect();
            let _ = writeln!(out, "\nnot taken ({}):", untaken.len());
            for t in untaken {
                let _ = writeln!(out, "  {t}");
            }
            let unreachable: usize = self.machines.iter().map(|m| m.unreachable.len()).sum();
            if unreachable > 0 {
                let _ = writeln!(
                    out,
                    "\nunreachable in this configuration ({unreachable}), by reason:"
                );
                for m in &self.machines {
                    // the machine's reasons in the order their first transition comes
                    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
                    for (s, e, _) in m.ordered() {
                        let Some(why) = m.unreachable.get(&(s.to_string(), e.to_string())) else {
                            continue;
                        };
                        let g = why.group(&m.machine);
                        let t = format!("{}.{s}.{e}", m.machine);
                        match groups.iter_mut().find(|(x, _)| *x == g) {
                            Some((_, ts)) => ts.push(t),
                            None => groups.push((g, vec![t])),
                        }
                    }
                    for (g, ts) in groups {
                        let _ = writeln!(out, "  {g} ({}):", ts.len());
                        for t in ts {
                            let _ = writeln!(out, "    {t}");
                        }
                    }
                }
            }
        } else if list {
            let _ = writeln!(
                out,
                "\n(the transitions not taken need the declared ones: the protocol's .slicc and .sm files)"
            );
        }
        out
    }

    /// `machine,state,event,count,declared,stall,reachable,reason`: every
    /// pair declared or counted (`declared` empty when unknown; `reachable`
    /// empty when no reach analysis ran or the pair is not declared).
    pub fn csv(&self) -> String {
        let mut out = String::from("machine,state,event,count,declared,stall,reachable,reason\n");
        for m in &self.machines {
            for (s, e, c) in m.ordered() {
                let declared = if m.known {
                    c.declared.to_string()
                } else {
                    String::new()
                };
                let why = m.unreachable.get(&(s.to_string(), e.to_string()));
                let (reachable, reason) = match why {
                    _ if !m.reach_known || !c.declared => (String::new(), String::new()),
                    None => ("true".to_string(), String::new()),
                    Some(r) => {
                        let w = r.words(&m.machine, s, e);
                        (
                            "false".to_string(),
                            format!("\"{}\"", w.replace('"', "\"\"")),
                        )
                    }
                };
                let _ = writeln!(
                    out,
                    "{},{s},{e},{},{declared},{},{reachable},{reason}",
                    m.machine, c.count, c.stall
                );
            }
        }
        out
    }

    /// A heat map per controller type: states × events, a taken transition
    /// shaded by its count (log scale, darkest at the machine's largest),
    /// a declared one not taken crossed in red, a stall grey, a pair SLICC
    /// does not declare blank (outlined dashed if a run took it anyway).
    pub fn svg(&self) -> String {
        const CELL: usize = 16;
        const CHAR: usize = 7;
        const THIN: &str = r##"stroke="#888" stroke-width="0.5""##;
        let known = self.declared_in.is_some();
        let left = 16
            + CHAR
                * self
                    .machines
                    .iter()
                    .flat_map(|m| m.states.iter().map(String::len))
                    .max()
                    .unwrap_or(1);
        let mut body = String::new();
        let mut y = 30;
        let mut width = 560;
        for m in &self.machines {
            let events_h = 12 + 6 * m.events.iter().map(String::len).max().unwrap_or(1);
            let _ = writeln!(
                body,
                r#"<text x="8" y="{}" font-size="13" font-weight="bold">{} — {}</text>"#,
                y + 14,
                xml(&m.machine),
                xml(&fraction(m.taken(), m.declared()))
            );
            let top = y + 24 + events_h;
            for (j, e) in m.events.iter().enumerate() {
                let x = left + j * CELL + CELL / 2 + 4;
                let _ = writeln!(
                    body,
                    r#"<text x="{x}" y="{}" font-size="11" transform="rotate(-60 {x} {})">{}</text>"#,
                    top - 4,
                    top - 4,
                    xml(e)
                );
            }
            let max = m.cells.values().map(|c| c.count).max().unwrap_or(0);
            for (i, s) in m.states.iter().enumerate() {
                let cy = top + i * CELL;
                let _ = writeln!(
                    body,
                    r#"<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>"#,
                    left - 4,
                    cy + CELL - 4,
                    xml(s)
                );
                for (j, e) in m.events.iter().enumerate() {
                    let Some(c) = m.cells.get(&(s.clone(), e.clone())) else {
                        continue;
                    };
                    let cx = left + j * CELL;
                    let what = if c.stall {
                        "stall, never counted".to_string()
                    } else if c.count > 0 {
                        format!(
                            "taken {} time{}{}",
                            c.count,
                            if c.count == 1 { "" } else { "s" },
                            if known && !c.declared {
                                ", not declared"
                            } else {
                                ""
                            }
                        )
                    } else {
                        "declared, not taken".to_string()
                    };
                    let title = format!(
                        "<title>{}.{}.{}: {}</title>",
                        xml(&m.machine),
                        xml(s),
                        xml(e),
                        what
                    );
                    let rect = |fill: &str, extra: &str| {
                        format!(
                            r##"<rect x="{cx}" y="{cy}" width="{CELL}" height="{CELL}" fill="{fill}" {extra}>{title}</rect>"##
                        )
                    };
                    if c.stall {
                        let _ = writeln!(body, "{}", rect("#d9d9d9", THIN));
                    } else if c.count > 0 {
                        let dashed = if known && !c.declared {
                            r#"stroke="black" stroke-dasharray="3 2""#
                        } else {
                            THIN
                        };
                        let _ = writeln!(body, "{}", rect(&shade(c.count, max), dashed));
                    } else {
                        let _ = writeln!(body, "{}", rect("white", THIN));
                        let (x0, y0, x1, y1) = (cx + 3, cy + 3, cx + CELL - 3, cy + CELL - 3);
                        let _ = writeln!(
                            body,
                            r##"<path d="M{x0} {y0}L{x1} {y1}M{x1} {y0}L{x0} {y1}" stroke="#d62728" stroke-width="1.5"/>"##
                        );
                    }
                }
            }
            // room for the last event's slanted label
            let slant = 3 * m.events.last().map_or(0, String::len);
            width = width.max(left + m.events.len() * CELL + slant + 24);
            y = top + m.states.len() * CELL + 24;
        }
        // the legend
        let swatch = |x: usize, y: usize, fill: &str| {
            format!(
                r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#888" stroke-width="0.5"/>"##
            )
        };
        let text = |x: usize, y: usize, t: &str| {
            format!(r#"<text x="{x}" y="{}" font-size="11">{t}</text>"#, y + 12)
        };
        let _ = writeln!(body, "{}", swatch(8, y, &shade(1, 100)));
        let _ = writeln!(body, "{}", swatch(8 + CELL, y, &shade(100, 100)));
        let _ = writeln!(
            body,
            "{}",
            text(
                12 + 2 * CELL,
                y,
                "taken (log scale, darkest: the machine's most taken)"
            )
        );
        if known {
            let _ = writeln!(body, "{}", swatch(8, y + 20, "white"));
            let _ = writeln!(
                body,
                r##"<path d="M11 {}L21 {}M21 {}L11 {}" stroke="#d62728" stroke-width="1.5"/>"##,
                y + 23,
                y + 33,
                y + 23,
                y + 33
            );
            let _ = writeln!(
                body,
                "{}",
                text(12 + 2 * CELL, y + 20, "declared, not taken")
            );
            let _ = writeln!(body, "{}", swatch(8, y + 40, "#d9d9d9"));
            let _ = writeln!(
                body,
                "{}",
                text(
                    12 + 2 * CELL,
                    y + 40,
                    "declared stall (z_stall): gem5 never counts it"
                )
            );
            let _ = writeln!(
                body,
                "{}",
                text(8, y + 60, "blank: not declared by the protocol's SLICC")
            );
        } else {
            let _ = writeln!(
                body,
                "{}",
                text(
                    8,
                    y + 20,
                    "declared transitions unknown: only those taken are drawn"
                )
            );
        }
        let height = y + 84;
        let title = format!(
            "transition coverage of {} run{}{}",
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            self.protocol
                .as_ref()
                .map_or(String::new(), |p| format!(", {p}"))
        );
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"8\" y=\"18\" font-size=\"14\">{}</text>\n{body}</svg>\n",
            xml(&title)
        )
    }
}

/// A count's blue, from light (1) to dark (`max`) on a log scale.
fn shade(count: u64, max: u64) -> String {
    let t = if max <= 1 {
        1.0
    } else {
        ((1 + count) as f64).ln() / ((1 + max) as f64).ln()
    };
    let mix = |a: f64, b: f64| (a + (b - a) * t.clamp(0.0, 1.0)).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(198.0, 8.0),
        mix(219.0, 48.0),
        mix(239.0, 107.0)
    )
}

/// The protocol a run's `config.ini` (else `config.json`) describes, by
/// gem5.md §6's fingerprints; `None` when neither file is there or the
/// controllers match no protocol memconform knows.
pub fn run_protocol(dir: &Path) -> Result<Option<String>, String> {
    Ok(run_config(dir)?.as_ref().and_then(protocol_of))
}

/// The protocol a configuration describes ([`run_protocol`]).
fn protocol_of(c: &config::Config) -> Option<String> {
    match config::protocol(c) {
        config::Protocol::Unknown => None,
        p => Some(p.name().to_string()),
    }
}

/// The one protocol (`NAME` of `NAME.slicc`) in `dir` or in its
/// `src/mem/ruby/protocol`, when there is exactly one.
pub fn only_protocol(dir: &Path) -> Option<String> {
    let mut names = BTreeSet::new();
    for d in [dir.to_path_buf(), dir.join("src/mem/ruby/protocol")] {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(p) = name.strip_suffix(".slicc") {
                names.insert(p.to_string());
            }
        }
    }
    let mut it = names.into_iter();
    match (it.next(), it.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// A run's `stats.txt` and directory: `run` is the directory gem5 wrote
/// (`-d`, m5out) or its `stats.txt`; a directory with `stats.txt.gz` and no
/// `stats.txt` (a bundled run) gives the gzipped file.
pub fn run_files(run: &Path) -> (PathBuf, PathBuf) {
    if run.is_dir() {
        let plain = run.join("stats.txt");
        let gz = run.join("stats.txt.gz");
        let stats = if !plain.exists() && gz.is_file() {
            gz
        } else {
            plain
        };
        (stats, run.to_path_buf())
    } else {
        let dir = run.parent().unwrap_or(Path::new(".")).to_path_buf();
        (run.to_path_buf(), dir)
    }
}

/// The coverage table of gem5 runs (their counts summed) against the
/// declared transitions of `protocol_dir`'s protocol when given: named by
/// `protocol`, else by the runs' `config.ini`, else the one `.slicc` the
/// directory holds. Errors name the file (`path:line:col` for a bad line).
pub fn of_runs(
    runs: &[PathBuf],
    protocol_dir: Option<&Path>,
    protocol: Option<&str>,
) -> Result<Table, String> {
    of_runs_reach(runs, protocol_dir, protocol, ReachRules::Builtin)
}

/// Where a reach analysis takes its rules from ([`reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReachRules<'a> {
    /// memconform's reach file for the protocol, if it has one.
    Builtin,
    /// A reach file.
    File(&'a Path),
    /// No reach analysis: every declared transition counts.
    Off,
}

/// A run's configuration file: `config.ini`, else `config.json`, each
/// plain or gzipped (a kept run's, [`keep_run`]); with whether it is the
/// ini form.
fn run_config_file(dir: &Path) -> Option<(PathBuf, bool)> {
    [
        ("config.ini", true),
        ("config.ini.gz", true),
        ("config.json", false),
        ("config.json.gz", false),
    ]
    .into_iter()
    .map(|(name, ini)| (dir.join(name), ini))
    .find(|(path, _)| path.is_file())
}

/// A run's configuration ([`run_config_file`]); `None` when it has none.
pub fn run_config(dir: &Path) -> Result<Option<config::Config>, String> {
    let Some((path, ini)) = run_config_file(dir) else {
        return Ok(None);
    };
    let shown = memconform_report::shown_path(&path);
    let bytes = memconform_parsers::file::FileBytes::open_gunzipped(&path)
        .map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let parsed = if ini {
        config::parse_config_ini(&bytes)
    } else {
        config::parse_config_json(&bytes)
    };
    parsed.map(Some).map_err(|e| format!("{shown}:{e}"))
}

/// The lines of a `stats.txt` a coverage table reads, verbatim and in
/// order: the dumps' `Begin`/`End` markers and the transition counters.
pub fn counter_lines(stats: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for raw in stats.split_inclusive(|&b| b == b'\n') {
        let Ok(line) = std::str::from_utf8(raw) else {
            continue;
        };
        let name = line.split_whitespace().next().unwrap_or("");
        if memconform_parsers::gem5::stats::marker(line.trim_end()).is_some()
            || transition_counter(name).is_some()
        {
            out.extend_from_slice(raw);
            if !raw.ends_with(b"\n") {
                out.push(b'\n');
            }
        }
    }
    out
}

/// Keeps a run small (`coverage --keep`): its transition counters
/// ([`counter_lines`]) as `stats.txt.gz` and its configuration (`config.ini`,
/// else `config.json`) whole, gzipped, under `into/NAME`, NAME the run's
/// directory name. A coverage table of the kept directory equals the run's.
/// Returns the directory written.
pub fn keep_run(run: &Path, into: &Path) -> Result<PathBuf, String> {
    use std::io::Write as _;
    let (stats, dir) = run_files(run);
    let shown = memconform_report::shown_path;
    let canon = std::fs::canonicalize(&dir).ok();
    let name = canon
        .as_deref()
        .and_then(Path::file_name)
        .ok_or_else(|| format!("{}: no directory name to keep the run under", shown(&dir)))?;
    let to = into.join(name);
    if std::fs::canonicalize(&to).ok() == canon {
        return Err(format!(
            "{}: the run itself: keep it under another directory",
            shown(&to)
        ));
    }
    let gz = |bytes: &[u8]| -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        // writes to a Vec cannot fail
        e.write_all(bytes).expect("gzip into memory");
        e.finish().expect("gzip into memory")
    };
    let counters = memconform_parsers::file::FileBytes::open_gunzipped(&stats)
        .map_err(|e| format!("{}: cannot read: {e}", shown(&stats)))?;
    let mut files = vec![("stats.txt.gz", gz(&counter_lines(&counters)))];
    if let Some((p, ini)) = run_config_file(&dir) {
        let bytes = memconform_parsers::file::FileBytes::open_gunzipped(&p)
            .map_err(|e| format!("{}: cannot read: {e}", shown(&p)))?;
        let kept = if ini {
            "config.ini.gz"
        } else {
            "config.json.gz"
        };
        files.push((kept, gz(&bytes)));
    }
    std::fs::create_dir_all(&to).map_err(|e| format!("cannot create {}: {e}", shown(&to)))?;
    for (n, bytes) in files {
        let p = to.join(n);
        memconform_report::refuse_input(&p)
            .and_then(|()| memconform_report::write_atomic(&p, &bytes))
            .map_err(|e| format!("cannot write {}: {e}", shown(&p)))?;
    }
    Ok(to)
}

/// [`of_runs`], with the transitions the runs' configurations cannot take
/// marked by a reach analysis whose rules come from `rules` (when the
/// declared transitions are known).
pub fn of_runs_reach(
    runs: &[PathBuf],
    protocol_dir: Option<&Path>,
    protocol: Option<&str>,
    rules: ReachRules<'_>,
) -> Result<Table, String> {
    let mut named: Vec<(String, String)> = Vec::new();
    let mut counts = Counts::default();
    let mut configs = Vec::new();
    for run in runs {
        let (stats, dir) = run_files(run);
        if run.is_dir() && !stats.exists() {
            return Err(format!(
                "{}: no stats.txt: not a gem5 output directory, or gem5 did not write its \
                 statistics (it does when a run exits normally)",
                memconform_report::shown_path(run)
            ));
        }
        counts.add(&read_counts(&stats).map_err(|e| e.to_string())?);
        // config.ini read once: the protocol it names, the reach analysis
        let config = run_config(&dir)?;
        if let Some(p) = config.as_ref().and_then(protocol_of) {
            named.push((p, memconform_report::shown_path(run).into_owned()));
        }
        configs.push(config);
    }
    let protocol = match protocol {
        Some(given) => {
            if let Some((p, run)) = named.iter().find(|(p, _)| p != given) {
                return Err(format!(
                    "{run}: config.ini describes a {p} system, not --protocol {given}"
                ));
            }
            Some(given.to_string())
        }
        None => {
            if let Some((p, run)) = named.iter().find(|(p, _)| *p != named[0].0) {
                return Err(format!(
                    "the runs are of different protocols ({} in {}, {p} in {run}): their counts \
                     do not add up",
                    named[0].0, named[0].1
                ));
            }
            named.first().map(|(p, _)| p.clone())
        }
    };
    let declared = match protocol_dir {
        None => None,
        Some(dir) => {
            let name = protocol
                .clone()
                .or_else(|| only_protocol(dir))
                .ok_or_else(|| {
                    format!(
                    "the runs' config.ini names no protocol memconform recognises, and {} holds \
                     several .slicc files (or none): give --protocol NAME (NAME.slicc)",
                    memconform_report::shown_path(dir)
                )
                })?;
            let p = slicc::load_protocol(dir, &name).map_err(|e| e.to_string())?;
            Some((declared(&p), p))
        }
    };
    let table = Table::new(
        &counts,
        declared.as_ref().map(|(d, _)| d),
        runs.len(),
        protocol,
    );
    let Some((_, p)) = declared else {
        return Ok(table);
    };
    let r = match rules {
        ReachRules::Off => return Ok(table),
        ReachRules::Builtin => reach::analyse_builtin(&p, &configs, &counts.fired()),
        ReachRules::File(f) => {
            let shown = memconform_report::shown_path(f).into_owned();
            let text =
                std::fs::read_to_string(f).map_err(|e| format!("{shown}: cannot read: {e}"))?;
            let rules = reach::parse_rules(&shown, &text)?;
            reach::analyse(&p, &configs, Some(&rules), &counts.fired())?
        }
    };
    Ok(table.with_reach(r))
}

/// `mutant-coverage.csv`: per mutant, each transition counter its edit
/// needs ([`Mutant::fires`]) and the clean baseline seeds that took it
/// (`baseline`: each seed with the counters that fired, `None` when its
/// `stats.txt` had none). `taken` is `yes`, `no`, or `unknown` when no
/// counter tells (a `z_stall` header, a configuration mutant) or a seed
/// without counters could have taken it.
pub fn mutants_csv(mutants: &[Mutant], baseline: &[(u64, Option<&BTreeSet<String>>)]) -> String {
    let mut out = String::from("mutant_id,op,class,transition,taken_by,taken\n");
    let blind = baseline.iter().any(|(_, f)| f.is_none());
    let field = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    for m in mutants {
        let head = format!("{},{},{}", m.id, field(&m.op), field(&m.class));
        match m.fires.as_deref() {
            None => {
                let _ = writeln!(out, "{head},,,unknown");
            }
            Some([]) => {
                // an action no counted header runs
                let _ = writeln!(out, "{head},,,no");
            }
            Some(fires) => {
                for t in fires {
                    let by: Vec<String> = baseline
                        .iter()
                        .filter(|(_, f)| f.is_some_and(|f| f.contains(t)))
                        .map(|(s, _)| s.to_string())
                        .collect();
                    let taken = if !by.is_empty() {
                        "yes"
                    } else if blind {
                        "unknown"
                    } else {
                        "no"
                    };
                    let _ = writeln!(out, "{head},{},{},{taken}", field(t), by.join(" "));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn bundled(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel)
    }

    #[test]
    fn counters_of_a_real_mi_example_run() {
        // gem5 v24's own stats of the bundled clean run (8 L1 controllers:
        // vector lines with `::total`; one directory: scalar lines)
        let f = fired(&bundled("traces/clean-n8-s3-gz/stats.txt")).unwrap();
        for k in [
            "Directory.I.GETX",
            "Directory.M.PUTX",
            "Directory.MI.Memory_Ack",
            "L1Cache.I.Load",
            "L1Cache.M.Fwd_GETX",
        ] {
            assert!(f.contains(k), "{k} not in {f:?}");
        }
        // the event-only counters (`L1Cache_Controller.Load`) and per-
        // controller stats are not transitions
        assert!(f.iter().all(|k| k.split('.').count() == 3), "{f:?}");
        assert!(
            !f.contains("L1Cache.I.Fwd_GETX"),
            "an I cache is never forwarded to"
        );
        let dumped = std::fs::read_to_string(bundled("traces/clean-n8-s3-gz/stats.txt")).unwrap();
        let lines = dumped
            .lines()
            .filter(|l| l.contains("_Controller.") && l.contains("::total"))
            .count();
        assert!(
            f.len() >= lines,
            "{} counters, {lines} ::total lines",
            f.len()
        );
    }

    #[test]
    fn counts_are_the_totals_of_every_controller() {
        // clean-n4-s2: `L1Cache_Controller.I.Load | 21 .. | 20 .. | 21 .. | 26 ..`
        // and `::total 88`; the directory's scalar `I.GETX 1184 0.00% 0.00%`
        let c = read_counts(&bundled("tests/data/gem5/mi_example/clean-n4-s2/stats.txt")).unwrap();
        let k = |m: &str, s: &str, e: &str| (m.to_string(), s.to_string(), e.to_string());
        assert_eq!(c.count[&k("L1Cache", "I", "Load")], 88);
        assert_eq!(c.count[&k("L1Cache", "I", "Store")], 1116);
        assert_eq!(c.count[&k("Directory", "I", "GETX")], 1184);
        assert_eq!(c.count[&k("Directory", "M", "PUTX_NotOwner")], 35);
        // gem5's order: the directory first, as the file has it
        assert_eq!(c.order[0], k("Directory", "I", "GETX"));
        // a vector line without its total: the per-controller counts summed
        assert_eq!(line_count(&[21.0, 23.86, 23.86, 20.0, 22.73, 46.59]), 41.0);
        assert_eq!(line_count(&[7.0]), 7.0);
        assert_eq!(line_count(&[f64::NAN]), 0.0);
    }

    #[test]
    fn a_panicked_run_says_nothing() {
        // the MI-5 run panicked: gem5 wrote an empty stats.txt
        assert_eq!(fired(&bundled("traces/bug-mi5-n4-s1-rich/stats.txt")), None);
        assert_eq!(fired(&bundled("no/such/stats.txt")), None);
        let e = read_counts(&bundled("traces/bug-mi5-n4-s1-rich/stats.txt")).unwrap_err();
        assert!(
            matches!(&e, CountsError::NoCounters(m) if m.contains("gem5 did not write")),
            "{e}"
        );
        assert!(matches!(
            read_counts(&bundled("no/such/stats.txt")),
            Err(CountsError::Io(_))
        ));
    }

    #[test]
    fn names_that_are_not_transition_counters() {
        let key = |n: &str| transition_counter(n).map(|(m, s, e)| format!("{m}.{s}.{e}"));
        assert_eq!(
            key("system.ruby.L1Cache_Controller.I.Load::total").as_deref(),
            Some("L1Cache.I.Load")
        );
        assert_eq!(
            key("board.cache_hierarchy.ruby_system.Directory_Controller.M.PUTX").as_deref(),
            Some("Directory.M.PUTX")
        );
        assert_eq!(key("system.ruby.L1Cache_Controller.Load"), None);
        assert_eq!(key("system.ruby.l1_cntrl0.cacheMemory.m_demand_hits"), None);
        assert_eq!(key("simTicks"), None);
    }

    #[test]
    fn coverage_of_a_mutant() {
        let c: BTreeSet<String> = ["L1Cache.I.Load".to_string()].into();
        assert!(covered(None, &c));
        assert!(covered(
            Some(&["L1Cache.M.Store".into(), "L1Cache.I.Load".into()]),
            &c
        ));
        assert!(!covered(Some(&["L1Cache.M.Store".into()]), &c));
        assert!(!covered(Some(&[]), &c), "an action no header runs");
    }

    #[test]
    fn several_dumps_keep_each_counters_largest_count() {
        let dir = std::env::temp_dir().join(format!("memconform-cov-dumps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("stats.txt");
        let b = "---------- Begin Simulation Statistics ----------\n";
        let e = "---------- End Simulation Statistics   ----------\n";
        std::fs::write(
            &p,
            format!(
                "{b}system.ruby.L1Cache_Controller.I.Load 3 (Unspecified)\n{e}\
                 {b}system.ruby.L1Cache_Controller.I.Load 5 (Unspecified)\n\
                 system.ruby.L1Cache_Controller.S.Load 0 (Unspecified)\n{e}"
            ),
        )
        .unwrap();
        let c = read_counts(&p).unwrap();
        assert_eq!(c.count.values().copied().collect::<Vec<_>>(), [5, 0]);
        assert_eq!(
            c.fired().into_iter().collect::<Vec<_>>(),
            ["L1Cache.I.Load"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_mutants_transitions_against_the_baselines() {
        let mut a = Mutant::config("x=1").unwrap();
        a.id = "aaaaaaaaaaaa".into();
        let mut b = a.clone();
        b.id = "bbbbbbbbbbbb".into();
        b.op = "TDA".into();
        b.class = "tier1".into();
        b.fires = Some(vec!["L1Cache.I.Load".into(), "L1Cache.M.Store".into()]);
        let mut c = b.clone();
        c.id = "cccccccccccc".into();
        c.fires = Some(Vec::new());
        let s1: BTreeSet<String> = ["L1Cache.I.Load".to_string()].into();
        let s2: BTreeSet<String> = BTreeSet::new();
        let csv = mutants_csv(&[a, b.clone(), c], &[(1, Some(&s1)), (2, Some(&s2))]);
        assert_eq!(
            csv,
            "mutant_id,op,class,transition,taken_by,taken\n\
             aaaaaaaaaaaa,CFG,config,,,unknown\n\
             bbbbbbbbbbbb,TDA,tier1,L1Cache.I.Load,1,yes\n\
             bbbbbbbbbbbb,TDA,tier1,L1Cache.M.Store,,no\n\
             cccccccccccc,TDA,tier1,,,no\n"
        );
        // a seed without counters could have taken it
        let blind = mutants_csv(&[b], &[(1, Some(&s1)), (2, None)]);
        assert!(blind.contains("L1Cache.M.Store,,unknown\n"), "{blind}");
    }
}
