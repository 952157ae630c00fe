//! `memconform plot` on a mutation campaign's `kill-matrix.csv`
//! ([`super::mutation::write_kill_matrix`]: a row per mutant and seed, one
//! row without a seed for a mutant that ran none):
//!
//! * `kill-by-operator`: per operator, its mutants (not runs) stacked by
//!   what killed them: memconform only (a violation, gem5 ended every
//!   killing run cleanly), gem5 and memconform, gem5 only (tester check,
//!   protocol panic, deadlock or crash, and no violation); then the
//!   survivors, the timeouts and the unknown. Unviable mutants are left
//!   out (the legend counts them). With `--by protocol`, a row of bars per
//!   protocol;
//! * `seeds-to-kill`: for k = 1..K, the percentage of the killed mutants
//!   killed within their first k seeds, a line per protocol (or per
//!   operator). A mutant's seeds are taken in ascending seed value (the
//!   kill matrix does not keep the campaign's order; a campaign whose
//!   seeds are listed ascending, the usual case, ran them in that order);
//!   K is the most seeds any mutant ran.
//!
//! The reader is as strict as the results reader: a row that cannot be a
//! campaign's (an unknown status, exit kind or outcome, an outcome that
//! contradicts the exit kind, a seed run twice, a mutant whose status
//! contradicts its runs) is an error naming its file and line.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use plotters::style::RGBColor;

use crate::campaign::{ExitKind, Status};
use memconform_core::models::Model;
use memconform_report::plot::{draw_bars, draw_lines, palette, render, Bar, Bars, By, Kind};
use memconform_report::plot::{Lines, Panel, PlotOptions, Series, YScale};
use memconform_report::summary::{open_input, read_table, CsvError, Table, KILL_MATRIX_COLUMNS};

const STATUSES: [Status; 7] = [
    Status::Killed,
    Status::Survived,
    Status::Timeout,
    Status::Unviable,
    Status::Unknown,
    Status::NoCoverage,
    Status::Unreached,
];

const EXIT_KINDS: [ExitKind; 8] = [
    ExitKind::Clean,
    ExitKind::TesterCheck,
    ExitKind::ProtocolPanic,
    ExitKind::Deadlock,
    ExitKind::Timeout,
    ExitKind::Crash,
    ExitKind::ProgramAbort,
    ExitKind::Stopped,
];

/// One run of a mutant: a row of the kill matrix with a seed.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedRun {
    pub seed: u64,
    /// `violation:<model>`, an exit kind other than clean, `unknown` or
    /// `survived`.
    pub outcome: String,
    pub exit_kind: ExitKind,
    /// A survivor's follow-up run (§11b): its `unknown` or timeout leaves
    /// the mutant survived (only a kill counts).
    pub follow_up: bool,
}

impl SeedRun {
    /// memconform found a violation.
    pub fn violation(&self) -> bool {
        self.outcome.starts_with("violation:")
    }

    /// gem5 itself failed (a timeout is not a detection; a run memconform
    /// stopped did not fail).
    pub fn gem5_failed(&self) -> bool {
        !matches!(
            self.exit_kind,
            ExitKind::Clean | ExitKind::Timeout | ExitKind::Stopped
        )
    }

    /// The run kills the mutant (as `Run::kills`).
    pub fn kills(&self) -> bool {
        !matches!(self.outcome.as_str(), "survived" | "unknown" | "timeout")
    }
}

/// A mutant and its runs, ascending by seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutant {
    pub protocol: String,
    pub id: String,
    pub op: String,
    pub status: Status,
    pub runs: Vec<SeedRun>,
}

/// What became of a mutant: the parts of a `kill-by-operator` bar, bottom
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    MemconformOnly,
    Both,
    Gem5Only,
    Survived,
    Timeout,
    Unknown,
}

impl Fate {
    pub const ALL: [Fate; 6] = [
        Fate::MemconformOnly,
        Fate::Both,
        Fate::Gem5Only,
        Fate::Survived,
        Fate::Timeout,
        Fate::Unknown,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Fate::MemconformOnly => "memconform only",
            Fate::Both => "gem5 and memconform",
            Fate::Gem5Only => "gem5 only",
            Fate::Survived => "survived",
            Fate::Timeout => "timeout",
            Fate::Unknown => "unknown",
        }
    }

    /// Its colour in the tab10 palette: memconform blue, gem5 orange,
    /// both purple, survivors red.
    fn color(self) -> RGBColor {
        palette(match self {
            Fate::MemconformOnly => 0,
            Fate::Both => 4,
            Fate::Gem5Only => 1,
            Fate::Survived => 3,
            Fate::Timeout => 8,
            Fate::Unknown => 7,
        })
    }
}

impl Mutant {
    /// What became of it; `None` when it is unviable or not covered (never run). A killed mutant is
    /// killed by memconform when some run has a violation, by gem5 when
    /// some run failed in gem5 (tester check, protocol panic, deadlock,
    /// crash).
    pub fn fate(&self) -> Option<Fate> {
        Some(match self.status {
            Status::Unviable | Status::NoCoverage | Status::Unreached => return None,
            Status::Survived => Fate::Survived,
            Status::Timeout => Fate::Timeout,
            Status::Unknown => Fate::Unknown,
            Status::Killed => {
                let mc = self.runs.iter().any(SeedRun::violation);
                let gem5 = self.runs.iter().any(SeedRun::gem5_failed);
                match (mc, gem5) {
                    (true, false) => Fate::MemconformOnly,
                    (true, true) => Fate::Both,
                    _ => Fate::Gem5Only,
                }
            }
        })
    }

    /// For a killed mutant, how many of its seeds (ascending) it took to
    /// kill it: 1 + the position of the first killing run.
    pub fn seeds_to_kill(&self) -> Option<usize> {
        if self.status != Status::Killed {
            return None;
        }
        self.runs.iter().position(SeedRun::kills).map(|i| i + 1)
    }

    /// The status its runs give (as the campaign decides it); `None`
    /// without runs. A configuration mutant whose one run crashed is
    /// unviable when the campaign says so: gem5 stopped before simulating
    /// (its parameter names no object of the system), which is no kill.
    fn status_of_runs(&self) -> Option<Status> {
        // a follow-up run counts only when it kills
        let any = |o: &str| self.runs.iter().any(|r| !r.follow_up && r.outcome == o);
        if self.runs.is_empty() {
            None
        } else if self.status == Status::Unviable
            && self.op == "CFG"
            && self.runs.len() == 1
            && self.runs[0].outcome == "crash"
        {
            Some(Status::Unviable)
        } else if self.runs.iter().any(SeedRun::kills) {
            Some(Status::Killed)
        } else if any("timeout") {
            Some(Status::Timeout)
        } else if any("unknown") {
            Some(Status::Unknown)
        } else {
            Some(Status::Survived)
        }
    }
}

/// The mutants of one or more kill matrices, by protocol and id.
#[derive(Debug, Clone, Default)]
pub struct KillMatrix {
    /// The CSVs read (`-` for standard input), as given.
    pub files: Vec<String>,
    pub mutants: Vec<Mutant>,
}

/// Where a mutant's rows are while reading.
struct Rows {
    mutant: Mutant,
    /// file and line of its first row
    at: (usize, u64),
    /// line of its seedless row, if any
    seedless: Option<(usize, u64)>,
    /// per seed: file and line
    seeds: HashMap<u64, (usize, u64)>,
}

/// Reads kill matrices (`-` is standard input) into one set of mutants.
pub fn read_kill_matrix(paths: &[impl AsRef<Path>]) -> Result<KillMatrix, CsvError> {
    let mut reading = Reading::default();
    for p in paths {
        let (name, reader) = open_input(p.as_ref())?;
        reading.read_one(&name, reader)?;
    }
    reading.finish()
}

/// Reads a kill matrix from a string (tests, and callers that hold it).
pub fn read_kill_matrix_str(name: &str, text: &str) -> Result<KillMatrix, CsvError> {
    let mut reading = Reading::default();
    reading.read_one(name, text.as_bytes())?;
    reading.finish()
}

#[derive(Default)]
struct Reading {
    files: Vec<String>,
    mutants: BTreeMap<(String, String), Rows>,
}

/// The header of a kill matrix: refuses check results, needs the columns
/// the figures use.
fn check_header(t: &Table) -> Result<(), CsvError> {
    if !t.is_kill_matrix() && t.is_results() {
        return Err(t.error(format!(
            "results of `memconform check -f csv` (columns model, verdict), not a mutation \
             campaign's kill matrix (columns {}): --kind kill-by-operator and seeds-to-kill draw \
             a campaign's kill-matrix.csv; time-vs-ops, time-vs-threads, coverage and detection \
             draw check results",
            KILL_MATRIX_COLUMNS.join(", ")
        )));
    }
    for c in KILL_MATRIX_COLUMNS
        .iter()
        .chain(&["protocol", "op", "status", "seed"])
    {
        if !t.has(c) {
            return Err(t.error(format!(
                "no `{c}` column (is this a campaign's kill-matrix.csv?)"
            )));
        }
    }
    Ok(())
}

impl Reading {
    fn read_one(&mut self, name: &str, reader: impl std::io::Read) -> Result<(), CsvError> {
        let source = self.files.len();
        self.files.push(name.to_string());
        read_table(name, reader, check_header, |(), r| {
            let line = r.line;
            let text = |c: &str| -> Result<String, CsvError> {
                match r.get(c) {
                    "" => Err(r.error(format!("empty `{c}`"))),
                    v => Ok(v.to_string()),
                }
            };
            let (protocol, id, op) = (text("protocol")?, text("mutant_id")?, text("op")?);
            let status = STATUSES
                .into_iter()
                .find(|s| s.name() == r.get("status"))
                .ok_or_else(|| r.bad("status", "killed, survived, timeout, unviable or unknown"))?;
            let outcome = r.get("outcome");
            let run = match r.get("seed") {
                "" => {
                    // a mutant that ran no seed: its status as outcome
                    if !(outcome.is_empty() || outcome == status.name()) {
                        return Err(r.error(format!(
                            "column `outcome`: `{outcome}` in a row without a seed (its \
                             status `{}` or nothing)",
                            status.name()
                        )));
                    }
                    for c in ["exit_kind", "memconform_only"] {
                        if !r.get(c).is_empty() {
                            return Err(r.bad(c, "empty in a row without a seed"));
                        }
                    }
                    None
                }
                s => {
                    let seed: u64 = s.parse().map_err(|_| r.bad("seed", "a seed"))?;
                    let exit_kind = EXIT_KINDS
                        .into_iter()
                        .find(|k| k.name() == r.get("exit_kind"))
                        .ok_or_else(|| {
                            r.bad(
                                "exit_kind",
                                "clean, tester_check, protocol_panic, deadlock, timeout or crash",
                            )
                        })?;
                    let follow_up = r.has("stimulus") && r.get("stimulus").contains("+follow-up:");
                    let run = SeedRun {
                        seed,
                        outcome: outcome.to_string(),
                        exit_kind,
                        follow_up,
                    };
                    check_outcome(&run).map_err(|m| r.error(m))?;
                    let only = match r.get("memconform_only") {
                        "true" => Some(true),
                        "false" => Some(false),
                        "" if !r.has("memconform_only") => None,
                        _ => return Err(r.bad("memconform_only", "true or false")),
                    };
                    let expected = run.violation() && exit_kind == ExitKind::Clean;
                    if only.is_some_and(|o| o != expected) {
                        return Err(r.error(format!(
                            "column `memconform_only`: `{}` where outcome `{outcome}` and exit \
                             kind `{}` make it {expected}",
                            r.get("memconform_only"),
                            exit_kind.name()
                        )));
                    }
                    Some(run)
                }
            };
            let at = (source, line);
            let rows = self
                .mutants
                .entry((protocol.clone(), id.clone()))
                .or_insert_with(|| Rows {
                    mutant: Mutant {
                        protocol,
                        id: id.clone(),
                        op: op.clone(),
                        status,
                        runs: Vec::new(),
                    },
                    at,
                    seedless: None,
                    seeds: HashMap::new(),
                });
            let files = &self.files;
            let place = |p: (usize, u64)| {
                if p.0 == source {
                    format!("line {}", p.1)
                } else {
                    format!("{}:{}", files[p.0], p.1)
                }
            };
            let m = &rows.mutant;
            if m.op != op {
                return Err(r.error(format!(
                    "mutant `{id}`: operator `{op}` here, `{}` at {}",
                    m.op,
                    place(rows.at)
                )));
            }
            if m.status != status {
                return Err(r.error(format!(
                    "mutant `{id}`: status `{}` here, `{}` at {}",
                    status.name(),
                    m.status.name(),
                    place(rows.at)
                )));
            }
            match run {
                None => {
                    if let Some(&prev) = rows.seeds.values().min().or(rows.seedless.as_ref()) {
                        return Err(r.error(format!(
                            "mutant `{id}`: a row without a seed, and another row of it at {}",
                            place(prev)
                        )));
                    }
                    rows.seedless = Some(at);
                }
                Some(run) => {
                    if let Some(&prev) = rows.seeds.get(&run.seed) {
                        return Err(r.error(format!(
                            "mutant `{id}`: seed {} again (as at {})",
                            run.seed,
                            place(prev)
                        )));
                    }
                    if let Some(prev) = rows.seedless {
                        return Err(r.error(format!(
                            "mutant `{id}`: a seed, and a row without a seed at {}",
                            place(prev)
                        )));
                    }
                    rows.seeds.insert(run.seed, at);
                    rows.mutant.runs.push(run);
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    /// The mutants, each checked against its status.
    fn finish(self) -> Result<KillMatrix, CsvError> {
        let mut mutants = Vec::with_capacity(self.mutants.len());
        for (_, mut rows) in self.mutants {
            rows.mutant.runs.sort_by_key(|r| r.seed);
            let m = &rows.mutant;
            let ok = match m.status_of_runs() {
                Some(s) => s == m.status,
                None => !matches!(m.status, Status::Killed | Status::Timeout),
            };
            if !ok {
                let outcomes: Vec<String> = m
                    .runs
                    .iter()
                    .map(|r| format!("seed {}: {}", r.seed, r.outcome))
                    .collect();
                return Err(CsvError::new(
                    &self.files[rows.at.0],
                    Some(rows.at.1),
                    format!(
                        "mutant `{}` is {} but its runs say otherwise ({})",
                        m.id,
                        m.status.name(),
                        if outcomes.is_empty() {
                            "it ran no seed".to_string()
                        } else {
                            outcomes.join(", ")
                        }
                    ),
                ));
            }
            mutants.push(rows.mutant);
        }
        Ok(KillMatrix {
            files: self.files,
            mutants,
        })
    }
}

/// An outcome the campaign can give this exit kind: a violation whatever
/// the exit, else the exit kind itself, or `survived` / `unknown` after a
/// clean exit; a follow-up run (§11b) whose clean protocol's run of the same
/// knobs and seed ended as badly is `unknown` after any exit.
fn check_outcome(r: &SeedRun) -> Result<(), String> {
    if r.follow_up && r.outcome == "unknown" {
        return Ok(());
    }
    let o = r.outcome.as_str();
    if let Some(model) = o.strip_prefix("violation:") {
        if Model::from_name(model).is_some() {
            return Ok(());
        }
        return Err(format!(
            "column `outcome`: `{model}` in `{o}` is not a model"
        ));
    }
    let fits = match r.exit_kind {
        ExitKind::Clean => matches!(o, "survived" | "unknown"),
        k => o == k.name(),
    };
    if fits {
        return Ok(());
    }
    let known = o == "survived" || o == "unknown" || EXIT_KINDS.iter().any(|k| k.name() == o);
    Err(if known && o != "clean" {
        format!(
            "column `outcome`: `{o}` after exit kind `{}` (a run that ends {} is {})",
            r.exit_kind.name(),
            r.exit_kind.name(),
            match r.exit_kind {
                ExitKind::Clean => "survived, unknown or a violation".to_string(),
                k => format!("{} or a violation", k.name()),
            }
        )
    } else {
        format!(
            "column `outcome`: `{o}` is not violation:<model>, tester_check, protocol_panic, \
             deadlock, crash, timeout, survived or unknown"
        )
    })
}

/// A row of `kill-by-operator` bars: per operator, its mutants by [`Fate`]
/// (in the order of [`Fate::ALL`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorRow {
    /// The protocol (`None`: every protocol of the input).
    pub protocol: Option<String>,
    pub ops: Vec<(String, [usize; 6])>,
}

/// The data of `kill-by-operator`.
#[derive(Debug, Clone, PartialEq)]
pub struct KillByOperator {
    pub rows: Vec<OperatorRow>,
    /// Mutants drawn, and unviable ones left out.
    pub drawn: usize,
    pub unviable: usize,
}

/// Counts mutants per operator (and protocol when `by_protocol`) and
/// fate. Every row has every operator of the input, in name order (an
/// operator whose mutants are all unviable has an empty bar).
pub fn kill_by_operator(km: &KillMatrix, by_protocol: bool) -> KillByOperator {
    let ops: BTreeSet<&str> = km.mutants.iter().map(|m| m.op.as_str()).collect();
    let protocols: Vec<Option<&str>> = if by_protocol {
        let p: BTreeSet<&str> = km.mutants.iter().map(|m| m.protocol.as_str()).collect();
        p.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    let mut out = KillByOperator {
        rows: Vec::new(),
        drawn: 0,
        unviable: 0,
    };
    for p in protocols {
        let mut counts: BTreeMap<&str, [usize; 6]> = ops.iter().map(|&o| (o, [0; 6])).collect();
        for m in km
            .mutants
            .iter()
            .filter(|m| p.is_none_or(|p| m.protocol == p))
        {
            match m.fate() {
                Some(f) => {
                    let i = Fate::ALL.iter().position(|&g| g == f).unwrap_or(0);
                    counts.entry(&m.op).or_default()[i] += 1;
                    out.drawn += 1;
                }
                None => out.unviable += 1,
            }
        }
        out.rows.push(OperatorRow {
            protocol: p.map(str::to_string),
            ops: counts
                .into_iter()
                .map(|(o, c)| (o.to_string(), c))
                .collect(),
        });
    }
    out
}

/// The lines of `seeds-to-kill`: per protocol (or operator, `By::Op`)
/// with a killed mutant, for k = 1..K the percentage of its killed
/// mutants killed within k seeds, and how many killed mutants there are.
pub fn seeds_to_kill(km: &KillMatrix, by: By) -> Result<Vec<Series>, CsvError> {
    let k_max = km.mutants.iter().map(|m| m.runs.len()).max().unwrap_or(0);
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for m in &km.mutants {
        if let Some(k) = m.seeds_to_kill() {
            let g = match by {
                By::Protocol => &m.protocol,
                By::Op => &m.op,
            };
            groups.entry(g).or_default().push(k);
        }
    }
    if groups.is_empty() {
        return Err(CsvError::new(
            &km.files.join(", "),
            None,
            "no killed mutant: seeds-to-kill draws the seeds killed mutants took",
        ));
    }
    Ok(groups
        .into_iter()
        .map(|(g, ks)| Series {
            name: g.to_string(),
            points: (1..=k_max)
                .map(|k| {
                    let within = ks.iter().filter(|&&f| f <= k).count();
                    (k as f64, 100.0 * within as f64 / ks.len() as f64, ks.len())
                })
                .collect(),
        })
        .collect())
}

/// Draws a kill-matrix figure as an SVG document.
pub fn render_svg(km: &KillMatrix, opts: &PlotOptions) -> Result<String, CsvError> {
    let files = km.files.join(", ");
    let drawn = match opts.kind {
        Kind::KillByOperator => {
            if opts.by == Some(By::Op) {
                return Err(CsvError::new(
                    &files,
                    None,
                    "--by op: kill-by-operator already has a bar per operator (--by protocol \
                     groups the bars by protocol)",
                ));
            }
            let d = kill_by_operator(km, opts.by == Some(By::Protocol));
            let title = opts.title.clone().unwrap_or_else(|| {
                format!(
                    "Mutants per operator by what killed them ({} mutants)",
                    d.drawn
                )
            });
            let bars = Bars {
                title,
                x_desc: "operator",
                y_desc: "mutants",
                parts: Fate::ALL
                    .iter()
                    .map(|f| (f.label().to_string(), f.color()))
                    .collect(),
                panels: d
                    .rows
                    .iter()
                    .map(|row| Panel {
                        caption: row.protocol.clone(),
                        bars: row
                            .ops
                            .iter()
                            .map(|(op, c)| Bar {
                                label: op.clone(),
                                parts: c.iter().map(|&n| n as f64).collect(),
                                top: format!(
                                    "{}/{}",
                                    c[..3].iter().sum::<usize>(),
                                    c.iter().sum::<usize>()
                                ),
                            })
                            .collect(),
                    })
                    .collect(),
                cap: f64::INFINITY,
                whole: true,
                legend: "mutants",
                notes: vec![
                    "above a bar: killed/all".to_string(),
                    format!("unviable: {} (not drawn)", d.unviable),
                ],
            };
            render(opts.size, |svg, size| draw_bars(svg, &bars, size))
        }
        Kind::SeedsToKill => {
            let by = opts.by.unwrap_or(By::Protocol);
            let s = seeds_to_kill(km, by)?;
            let killed: usize = s.iter().map(|s| s.points.first().map_or(0, |p| p.2)).sum();
            let title = opts.title.clone().unwrap_or_else(|| {
                format!("Killed mutants killed within k seeds ({killed} killed mutants)")
            });
            let lines = Lines {
                title,
                x_desc: "k: a mutant's first k seeds (ascending seed value)",
                y_desc: "killed within k seeds (% of killed mutants)",
                y: YScale::Linear {
                    lo: 0.0,
                    hi: 104.0,
                    ticks: (0..=5).map(|i| 20.0 * i as f64).collect(),
                },
                legend: match by {
                    By::Protocol => "protocol",
                    By::Op => "operator",
                },
                styles: (0..s.len()).map(|i| (palette(i), i)).collect(),
                series: &s,
                notes: s
                    .iter()
                    .map(|s| format!("{}: {} killed", s.name, s.points.first().map_or(0, |p| p.2)))
                    .collect(),
            };
            render(opts.size, |svg, size| draw_lines(svg, &lines, size))
        }
        k => {
            return Err(CsvError::new(
                &files,
                None,
                format!("--kind {} draws check results, not a kill matrix", k.name()),
            ))
        }
    };
    drawn.map_err(|e| CsvError::new(&files, None, format!("cannot draw: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use memconform_report::summary::read_results_str;

    const HEAD: &str = "protocol,mutant_id,op,status,seed,outcome,exit_kind,memconform_only\n";

    /// Two protocols, three operators; every fate, an unviable mutant
    /// each, seeds listed out of order (m7), several seeds run after a
    /// kill (n1, as with `all_seeds`).
    const MATRIX: &str = "\
MI_example,m1,TDA,killed,1,survived,clean,false
MI_example,m1,TDA,killed,2,violation:cc,clean,true
MI_example,m2,TDA,killed,1,violation:sc,tester_check,false
MI_example,m3,TDA,survived,1,survived,clean,false
MI_example,m3,TDA,survived,2,survived,clean,false
MI_example,m4,TSW,killed,1,deadlock,deadlock,false
MI_example,m5,TSW,unviable,,unviable,,
MI_example,m6,TSW,timeout,1,timeout,timeout,false
MI_example,m6,TSW,timeout,2,survived,clean,false
MI_example,m7,ADS,killed,3,protocol_panic,protocol_panic,false
MI_example,m7,ADS,killed,1,survived,clean,false
MI_example,m7,ADS,killed,2,survived,clean,false
MI_example,m8,ADS,unknown,1,unknown,clean,false
MESI_Two_Level,n1,TDA,killed,1,crash,crash,false
MESI_Two_Level,n1,TDA,killed,2,violation:tso,clean,true
MESI_Two_Level,n2,TDA,killed,5,survived,clean,false
MESI_Two_Level,n2,TDA,killed,7,violation:wsc,clean,true
MESI_Two_Level,n3,ADS,unviable,,unviable,,
";

    fn matrix() -> KillMatrix {
        read_kill_matrix_str("k.csv", &format!("{HEAD}{MATRIX}")).unwrap()
    }

    fn err(body: &str) -> String {
        read_kill_matrix_str("k.csv", &format!("{HEAD}{body}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn kill_by_operator_counts_mutants_by_fate() {
        let km = matrix();
        assert_eq!(km.mutants.len(), 11);
        // order of Fate::ALL: memconform only, both, gem5 only, survived,
        // timeout, unknown
        let all = kill_by_operator(&km, false);
        assert_eq!(all.unviable, 2); // m5, n3
        assert_eq!(all.drawn, 9);
        assert_eq!(
            all.rows,
            [OperatorRow {
                protocol: None,
                ops: vec![
                    // m7 gem5 only (a panic), m8 unknown, n3 unviable
                    ("ADS".to_string(), [0, 0, 1, 0, 0, 1]),
                    // m1, n2 memconform only; m2 both in one run, n1 both
                    // in two (a crash, then a violation); m3 survived
                    ("TDA".to_string(), [2, 2, 0, 1, 0, 0]),
                    // m4 gem5 only (a deadlock), m6 timeout, m5 unviable
                    ("TSW".to_string(), [0, 0, 1, 0, 1, 0]),
                ],
            }]
        );
        let by = kill_by_operator(&km, true);
        assert_eq!((by.drawn, by.unviable), (9, 2));
        let rows: Vec<(Option<&str>, Vec<[usize; 6]>)> = by
            .rows
            .iter()
            .map(|r| (r.protocol.as_deref(), r.ops.iter().map(|o| o.1).collect()))
            .collect();
        assert_eq!(
            rows,
            [
                (
                    Some("MESI_Two_Level"),
                    vec![[0; 6], [1, 1, 0, 0, 0, 0], [0; 6]]
                ),
                (
                    Some("MI_example"),
                    vec![[0, 0, 1, 0, 0, 1], [1, 1, 0, 1, 0, 0], [0, 0, 1, 0, 1, 0]]
                ),
            ]
        );
        // every row has every operator, in name order
        assert!(by.rows.iter().all(|r| r
            .ops
            .iter()
            .map(|o| o.0.as_str())
            .eq(["ADS", "TDA", "TSW"])));
    }

    #[test]
    fn seeds_to_kill_in_ascending_seed_order() {
        let km = matrix();
        let points = |s: &Series| -> Vec<(f64, f64, usize)> { s.points.clone() };
        // K = 3 (m7 ran three seeds). MESI: n1 at its 1st seed, n2 at its
        // 2nd (seed 7 after 5); MI: m2, m4 at the 1st, m1 at the 2nd, m7
        // at the 3rd (seed 3, listed first in the file)
        let by_protocol = seeds_to_kill(&km, By::Protocol).unwrap();
        assert_eq!(by_protocol.len(), 2);
        assert_eq!(by_protocol[0].name, "MESI_Two_Level");
        assert_eq!(
            points(&by_protocol[0]),
            [(1.0, 50.0, 2), (2.0, 100.0, 2), (3.0, 100.0, 2)]
        );
        assert_eq!(by_protocol[1].name, "MI_example");
        assert_eq!(
            points(&by_protocol[1]),
            [(1.0, 50.0, 4), (2.0, 75.0, 4), (3.0, 100.0, 4)]
        );
        let by_op = seeds_to_kill(&km, By::Op).unwrap();
        let names: Vec<&str> = by_op.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ADS", "TDA", "TSW"]);
        assert_eq!(
            points(&by_op[0]),
            [(1.0, 0.0, 1), (2.0, 0.0, 1), (3.0, 100.0, 1)]
        );
        // m1 2, m2 1, n1 1, n2 2
        assert_eq!(
            points(&by_op[1]),
            [(1.0, 50.0, 4), (2.0, 100.0, 4), (3.0, 100.0, 4)]
        );
        assert_eq!(
            points(&by_op[2]),
            [(1.0, 100.0, 1), (2.0, 100.0, 1), (3.0, 100.0, 1)]
        );
        // nothing killed: nothing to draw
        let none = read_kill_matrix_str(
            "k.csv",
            &format!("{HEAD}P,m3,TDA,survived,1,survived,clean,false\n"),
        )
        .unwrap();
        assert!(seeds_to_kill(&none, By::Protocol)
            .unwrap_err()
            .to_string()
            .contains("no killed mutant"));
    }

    #[test]
    fn a_kill_matrix_as_the_campaign_writes_it() {
        // the writer's 28 columns; the per-model verdicts are not read
        let models: Vec<&str> = Model::DEFAULT.iter().map(|m| m.name()).collect();
        let head = format!(
            "protocol,variant,mutant_id,op,class,file,line,site,status,seed,outcome,exit_kind,\
             exit_code,build_s,run_s,check_s,{},decided_by,pattern,memconform_only\n",
            models.join(",")
        );
        let verdicts = |v: &str| vec![v; models.len()].join(",");
        let text = format!(
            "{head}\
             MI_example,a1,a1,TDA,tier1,src/MI-cache.sm,10,\"transition(M, Fwd_GETX, I)\",killed,1,violation:cc,tester_check,1,30.5,2.00,0.10,{},cc,WriteCORead,false\n\
             MI_example,a2,a2,TSW,tier1,src/MI-cache.sm,12,action(e),survived,1,survived,clean,0,31.0,2.00,0.10,{},,,false\n\
             MI_example,a3,a3,ADS,crash,src/MI-cache.sm,14,action(f),unviable,,unviable,,,12.0,,,{},,,\n",
            verdicts("violation"),
            verdicts("consistent"),
            vec![""; models.len()].join(","),
        );
        let km = read_kill_matrix_str("k.csv", &text).unwrap();
        let d = kill_by_operator(&km, false);
        assert_eq!((d.drawn, d.unviable), (2, 1));
        assert_eq!(d.rows[0].ops[1], ("TDA".to_string(), [0, 1, 0, 0, 0, 0]));
        assert_eq!(d.rows[0].ops[2], ("TSW".to_string(), [0, 0, 0, 1, 0, 0]));
    }

    #[test]
    fn check_results_and_kill_matrices_refuse_each_other() {
        let check = "file,index,model,verdict\na.hist,0,cc,consistent\n";
        let e = read_kill_matrix_str("r.csv", check)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("r.csv:1: results of `memconform check -f csv`"),
            "{e}"
        );
        assert!(e.contains("not a mutation campaign's kill matrix"), "{e}");
        let e = read_results_str("k.csv", &format!("{HEAD}{MATRIX}"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("k.csv:1: a mutation campaign's kill matrix"),
            "{e}"
        );
        let e = read_kill_matrix_str("x.csv", "mutant_id,outcome,exit_kind,op\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "x.csv:1: no `protocol` column (is this a campaign's kill-matrix.csv?)"
        );
    }

    #[test]
    fn impossible_rows_are_errors_with_their_line() {
        let cases = [
            (
                "P,m,TDA,killed,1,deadlock,clean,false\n",
                "k.csv:2: column `outcome`: `deadlock` after exit kind `clean`",
            ),
            (
                "P,m,TDA,killed,1,violation:zz,clean,true\n",
                "k.csv:2: column `outcome`: `zz` in `violation:zz` is not a model",
            ),
            (
                "P,m,TDA,killed,1,boom,crash,false\n",
                "k.csv:2: column `outcome`: `boom` is not violation:<model>",
            ),
            (
                "P,m,TDA,dead,1,crash,crash,false\n",
                "k.csv:2: column `status`: `dead` is not killed, survived",
            ),
            (
                "P,m,TDA,killed,x1,crash,crash,false\n",
                "k.csv:2: column `seed`: `x1` is not a seed",
            ),
            (
                "P,m,TDA,killed,1,violation:cc,clean,false\n",
                "k.csv:2: column `memconform_only`: `false` where outcome",
            ),
            (
                "P,m,TDA,killed,1,crash,crash,false\nP,m,TDA,killed,1,crash,crash,false\n",
                "k.csv:3: mutant `m`: seed 1 again (as at line 2)",
            ),
            (
                "P,m,TDA,killed,1,crash,crash,false\nP,m,TSW,killed,2,crash,crash,false\n",
                "k.csv:3: mutant `m`: operator `TSW` here, `TDA` at line 2",
            ),
            (
                "P,m,TDA,unviable,,unviable,,\nP,m,TDA,unviable,,unviable,,\n",
                "k.csv:3: mutant `m`: a row without a seed, and another row of it at line 2",
            ),
            (
                "P,m,TDA,survived,1,survived,clean,false\nP,m,TDA,survived,2,violation:cc,clean,true\n",
                "k.csv:2: mutant `m` is survived but its runs say otherwise (seed 1: survived, seed 2: violation:cc)",
            ),
            (
                "P,m,TDA,killed,,killed,,\n",
                "k.csv:2: mutant `m` is killed but its runs say otherwise (it ran no seed)",
            ),
            (",m,TDA,killed,1,crash,crash,false\n", "k.csv:2: empty `protocol`"),
            (
                "P,m,TDA,killed,1,crash,crash\n",
                "k.csv:2: 7 fields where the header has 8",
            ),
        ];
        for (body, expected) in cases {
            let e = err(body);
            assert!(e.starts_with(expected), "{body}: {e}");
        }
        // two files: the first row's file and line
        let mut r = Reading::default();
        r.read_one(
            "a.csv",
            format!("{HEAD}P,m,TDA,killed,1,crash,crash,false\n").as_bytes(),
        )
        .unwrap();
        let e = r
            .read_one(
                "b.csv",
                format!("{HEAD}P,m,TDA,killed,1,crash,crash,false\n").as_bytes(),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.csv:2: mutant `m`: seed 1 again (as at a.csv:2)"
        );
    }

    /// The texts of an SVG document.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .map(|t| {
                t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()]
                    .trim()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn figures_name_operators_and_protocols() {
        let km = matrix();
        let has = |svg: &str, want: &[&str]| {
            let t = texts(svg);
            for w in want {
                assert!(t.iter().any(|t| t == w), "{w} in {t:?}");
            }
        };
        let mut opts = PlotOptions::new(Kind::KillByOperator);
        let svg = render_svg(&km, &opts).unwrap();
        std::fs::write("/tmp/kbo.svg", &svg).unwrap();
        has(
            &svg,
            &[
                "ADS",
                "TDA",
                "TSW",
                "memconform only",
                "gem5 only",
                "unviable: 2 (not drawn)",
                // killed/all above each bar
                "4/5",
            ],
        );
        opts.by = Some(By::Protocol);
        let svg = render_svg(&km, &opts).unwrap();
        std::fs::write("/tmp/kbo-p.svg", &svg).unwrap();
        has(&svg, &["MESI_Two_Level", "MI_example", "2/2"]);
        opts.by = Some(By::Op);
        assert!(render_svg(&km, &opts).is_err());
        let mut opts = PlotOptions::new(Kind::SeedsToKill);
        let svg = render_svg(&km, &opts).unwrap();
        std::fs::write("/tmp/stk.svg", &svg).unwrap();
        has(
            &svg,
            &[
                "Killed mutants killed within k seeds (6 killed mutants)",
                "MI_example",
                "MI_example: 4 killed",
            ],
        );
        opts.by = Some(By::Op);
        let svg = render_svg(&km, &opts).unwrap();
        has(&svg, &["operator", "TSW"]);
    }

    /// A configuration mutant whose one run stopped before simulating is
    /// unviable, as the campaign writes it; any other unviable mutant with
    /// a crash row, or a CFG one with two runs, is refused.
    #[test]
    fn an_unviable_configuration_mutant_may_have_its_crashed_run() {
        let head = "protocol,mutant_id,op,status,seed,outcome,exit_kind,memconform_only\n";
        let read = |rows: &str| read_kill_matrix_str("k.csv", &format!("{head}{rows}"));
        let ok = read("P,m,CFG,unviable,1,crash,crash,false\n").unwrap();
        assert_eq!(ok.mutants[0].status, Status::Unviable);
        assert_eq!(ok.mutants[0].fate(), None);
        for bad in [
            "P,m,TDA,unviable,1,crash,crash,false\n",
            "P,m,CFG,unviable,1,crash,crash,false\nP,m,CFG,unviable,2,crash,crash,false\n",
        ] {
            let e = read(bad).unwrap_err().to_string();
            assert!(e.contains("runs say otherwise"), "{e}");
        }
    }
}
