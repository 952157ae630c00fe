//! A mutation campaign's reports (docs/design/campaigns.md §8): the summary and
//! score, operators, detectors (gem5's tester, the protocol's own panics,
//! deadlocks, memconform per model, and memconform-only kills: violations
//! in runs gem5 ended cleanly), seeds-to-kill, survivors; the kill matrix
//! (one CSV row per mutant and seed) and the history rows of every run
//! (`check`'s CSV with `variant` = the mutant, for `summarize`, `compare`,
//! `plot`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::campaign::{Class, ExitKind, Run, State, Status, Survivors};
use memconform_core::models::Model;

/// The kill-matrix columns before the per-model verdicts.
const MATRIX_HEAD: [&str; 17] = [
    "protocol",
    "variant",
    "mutant_id",
    "op",
    "class",
    "file",
    "line",
    "site",
    "status",
    "seed",
    "stimulus",
    "outcome",
    "exit_kind",
    "exit_code",
    "build_s",
    "run_s",
    "check_s",
];

/// Writes the kill matrix: a row per (mutant, seed) run, mutants by id,
/// then one row per finished mutant that ran no seed (unviable).
pub fn write_kill_matrix(out: impl Write, s: &State) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    // the default models, and any other a run has a verdict of (a promise
    // checked on its own: ARMv8 for ARM O3 cores), in Model::EVERY's order
    let models: Vec<Model> = Model::EVERY
        .iter()
        .copied()
        .filter(|m| {
            Model::DEFAULT.contains(m)
                || s.runs
                    .values()
                    .flat_map(|r| r.values())
                    .chain(s.baseline.iter().map(|(_, r)| r))
                    .any(|r| r.verdicts.contains_key(m.name()))
        })
        .collect();
    let mut head: Vec<&str> = MATRIX_HEAD.to_vec();
    head.extend(models.iter().map(|m| m.name()));
    head.extend(["decided_by", "pattern", "memconform_only"]);
    w.write_record(&head)?;
    let c = s.campaign;
    let mut mutants: Vec<_> = c.mutants.iter().collect();
    mutants.sort_by(|a, b| a.id.cmp(&b.id));
    for m in mutants {
        let Some(status) = s.status.get(&m.id) else {
            continue;
        };
        let build = s
            .build_s
            .get(&m.id)
            .map_or(String::new(), |b| format!("{b:.1}"));
        // the stimulus of a seed: the campaign's, else the one a search
        // found for this mutant (`name: knob=value ...`)
        let found = s.reached.get(&m.id).and_then(|(_, k)| k.as_ref());
        let followed = s.follow_ups.get(&m.id);
        let stimulus = |seed: &str| -> String {
            let Ok(seed) = seed.parse::<u64>() else {
                return String::new();
            };
            // a follow-up run: the stimulus it follows, with its own knobs
            if let Some(f) = followed.and_then(|f| f.get(&seed)) {
                return format!(
                    "{}+follow-up: {}",
                    f.from,
                    crate::stimulus::knobs_text(&f.knobs)
                );
            }
            c.settings
                .stimulus_of(seed)
                .or(found.filter(|k| k.seed == seed))
                .map_or_else(String::new, |k| {
                    format!("{}: {}", k.name, crate::stimulus::knobs_text(&k.knobs))
                })
        };
        let fixed = |seed: String, run: Option<&Run>| -> Vec<String> {
            let stim = stimulus(&seed);
            let mut row = vec![
                c.settings.protocol.clone(),
                m.id.clone(),
                m.id.clone(),
                m.op.clone(),
                m.class.clone(),
                m.file.clone(),
                m.line.to_string(),
                m.site.clone(),
                status.name().to_string(),
                seed,
                stim,
            ];
            match run {
                Some(r) => {
                    row.extend([
                        r.outcome.clone(),
                        r.exit_kind.name().to_string(),
                        r.exit_code.map_or(String::new(), |c| c.to_string()),
                        build.clone(),
                        format!("{:.2}", r.run_s),
                        format!("{:.2}", r.check_s),
                    ]);
                    row.extend(
                        models
                            .iter()
                            .map(|m| r.verdicts.get(m.name()).cloned().unwrap_or_default()),
                    );
                    row.extend([
                        r.decided_by.clone(),
                        r.pattern.clone(),
                        memconform_only(r).to_string(),
                    ]);
                }
                None => {
                    row.extend([
                        status.name().to_string(),
                        String::new(),
                        String::new(),
                        build.clone(),
                    ]);
                    row.extend(std::iter::repeat_n(String::new(), 2 + models.len() + 3));
                }
            }
            row
        };
        match s.runs.get(&m.id) {
            Some(runs) if !runs.is_empty() => {
                // in the order they ran: the runner takes a mutant's seeds
                // ascending (a follow-up run's seed is above every other)
                for (seed, r) in runs {
                    w.write_record(fixed(seed.to_string(), Some(r)))?;
                }
            }
            _ => w.write_record(fixed(String::new(), None))?,
        }
    }
    w.flush()
}

/// A violation found in a run that gem5 ended cleanly: a bug only the
/// memory-model check saw.
pub fn memconform_only(r: &Run) -> bool {
    r.exit_kind == ExitKind::Clean && r.outcome.starts_with("violation:")
}

/// Counts of one group of mutants.
#[derive(Default, Clone, Copy)]
struct Tally {
    n: usize,
    killed: usize,
    survived: usize,
    timeout: usize,
    unviable: usize,
    unknown: usize,
    no_coverage: usize,
    unreached: usize,
}

impl Tally {
    fn add(&mut self, s: Status) {
        self.n += 1;
        match s {
            Status::Killed => self.killed += 1,
            Status::Survived => self.survived += 1,
            Status::Timeout => self.timeout += 1,
            Status::Unviable => self.unviable += 1,
            Status::Unknown => self.unknown += 1,
            Status::NoCoverage => self.no_coverage += 1,
            Status::Unreached => self.unreached += 1,
        }
    }

    /// killed / (killed + survived + no_coverage + unreached): the score
    /// when a mutant the seeds never reach counts as surviving them
    /// (docs/design/campaigns.md §8).
    fn score_covering(&self) -> String {
        let d = self.killed + self.survived + self.no_coverage + self.unreached;
        if d == 0 {
            "-".into()
        } else {
            format!("{:.2}", self.killed as f64 / d as f64)
        }
    }

    /// killed / (killed + survived), the mutation score.
    fn score(&self) -> String {
        let d = self.killed + self.survived;
        if d == 0 {
            "-".into()
        } else {
            format!("{:.2}", self.killed as f64 / d as f64)
        }
    }
}

/// The text report: summary, operators, detectors, seeds-to-kill,
/// survivors (with their classes from `survivors`), times.
pub fn text(s: &State, survivors: &Survivors) -> String {
    let c = s.campaign;
    let mut out = String::new();
    let mut all = Tally::default();
    let mut by_op: BTreeMap<&str, Tally> = BTreeMap::new();
    for m in &c.mutants {
        if let Some(&st) = s.status.get(&m.id) {
            all.add(st);
            by_op.entry(&m.op).or_default().add(st);
        }
    }
    let pending = c.mutants.len() - all.n;
    let _ = writeln!(
        out,
        "campaign {} ({}): {} mutants, {} done, {} pending",
        memconform_report::shown_path(&c.dir),
        c.settings.protocol,
        c.mutants.len(),
        all.n,
        pending
    );
    if let Ok(Some(edits)) = c.base_edits() {
        let _ = writeln!(
            out,
            "base edits: {} entries ({}; their diff: {})",
            edits.entries.len(),
            crate::campaign::BASE_EDITS,
            crate::campaign::BASE_EDITS_PATCH
        );
        for e in &edits.entries {
            let _ = writeln!(out, "  {e}");
        }
    }
    let clean = s
        .baseline
        .iter()
        .filter(|(_, r)| r.outcome == "survived")
        .count();
    let _ = writeln!(
        out,
        "baseline: {clean} of {} seeds clean and consistent{}",
        s.baseline.len(),
        if clean < s.baseline.len() {
            " (the others are not used)"
        } else {
            ""
        }
    );
    for (seed, r) in &s.baseline {
        let stimulus = c.settings.stimulus_of(*seed).map_or_else(String::new, |k| {
            format!(" ({}: {})", k.name, crate::stimulus::knobs_text(&k.knobs))
        });
        let _ = writeln!(out, "coverage, seed {seed}{stimulus}: {}", coverage_of(r));
    }
    let unreached = if all.unreached > 0 {
        (format!(", unreached {}", all.unreached), " and unreached")
    } else {
        (String::new(), "")
    };
    let _ = writeln!(
        out,
        "\nsummary: killed {}, survived {}, timeout {}, unviable {}, unknown {}, no coverage {}{}; \
         score {} (killed / (killed + survived)), {} counting no coverage{} as survived",
        all.killed,
        all.survived,
        all.timeout,
        all.unviable,
        all.unknown,
        all.no_coverage,
        unreached.0,
        all.score(),
        all.score_covering(),
        unreached.1
    );
    // no coverage because the configuration cannot take what they edit
    let cannot: Vec<&crate::Mutant> = c
        .mutants
        .iter()
        .filter(|m| s.status.get(&m.id) == Some(&Status::NoCoverage))
        .filter(|m| {
            s.notes
                .get(&m.id)
                .is_some_and(|n| n.starts_with(crate::campaign::CANNOT_TAKE))
        })
        .collect();
    if !cannot.is_empty() {
        let d = all.killed + all.survived + all.no_coverage - cannot.len() + all.unreached;
        let _ = writeln!(
            out,
            "no coverage: {} of {} edit only transitions this configuration cannot take (listed \
             below with why); {} counting the other no coverage{} as survived",
            cannot.len(),
            all.no_coverage,
            if d == 0 {
                "-".to_string()
            } else {
                format!("{:.2}", all.killed as f64 / d as f64)
            },
            unreached.1
        );
    }
    if all.survived > 0 {
        let class_of = |class: Class| {
            c.mutants
                .iter()
                .filter(|m| s.status.get(&m.id) == Some(&Status::Survived))
                .filter(|m| survivors.get(&m.id).is_some_and(|k| k.class == class))
                .count()
        };
        let (equivalent, gap) = (class_of(Class::Equivalent), class_of(Class::Gap));
        let open = all.survived - equivalent - gap;
        let d = all.killed + all.survived - equivalent;
        let _ = writeln!(
            out,
            "survivors: {} equivalent, {} stimulus gap, {} not classified{}; \
             score without the equivalent ones {}",
            equivalent,
            gap,
            open,
            if open > 0 {
                " (memconform mutate classify)"
            } else {
                ""
            },
            if d == 0 {
                "-".to_string()
            } else {
                format!("{:.2}", all.killed as f64 / d as f64)
            }
        );
    }
    // an `unreach` column in a campaign with stimuli that left some
    let wide = all.unreached > 0;
    let _ = writeln!(
        out,
        "\noperator       n  killed  survived  timeout  unviable  no-cov{}  score",
        if wide { "  unreach" } else { "" }
    );
    for (op, t) in &by_op {
        let _ = writeln!(
            out,
            "{op:<12} {:>3}  {:>6}  {:>8}  {:>7}  {:>8}  {:>6}{}  {:>5}",
            t.n,
            t.killed,
            t.survived,
            t.timeout,
            t.unviable,
            t.no_coverage,
            if wide {
                format!("  {:>7}", t.unreached)
            } else {
                String::new()
            },
            t.score()
        );
    }
    if !s.reached.is_empty() {
        let mut found: Vec<(&str, &str, usize, &crate::stimulus::Stimulus)> = c
            .mutants
            .iter()
            .filter_map(|m| match s.reached.get(&m.id) {
                Some((runs, Some(k))) => Some((m.id.as_str(), m.op.as_str(), *runs, k)),
                _ => None,
            })
            .collect();
        found.sort_by_key(|f| f.0);
        let _ = writeln!(
            out,
            "\nreached by a search ({} of {} searched): no stimulus took their transitions, a \
             clean run of these knobs did",
            found.len(),
            s.reached.len()
        );
        for (id, op, runs, k) in found {
            let _ = writeln!(
                out,
                "  {id} {op}: run {runs}, seed {} ({}), takes {}; {}",
                k.seed,
                crate::stimulus::knobs_text(&k.knobs),
                k.adds.join(", "),
                s.status.get(id).map_or("pending", |st| st.name())
            );
        }
    }
    if !s.follow_ups.is_empty() {
        let killed = |id: &str| s.status.get(id) == Some(&Status::Killed);
        let mut ids: Vec<&String> = s.follow_ups.keys().collect();
        ids.sort();
        let _ = writeln!(
            out,
            "\nfollow-up runs ({} survivors of their stimuli, {} then killed): their stimuli \
             with {}",
            ids.len(),
            ids.iter().filter(|id| killed(id)).count(),
            c.settings
                .knobs
                .as_ref()
                .map(|k| crate::stimulus::knobs_text(&k.follow_up))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "their own knobs".to_string())
        );
        for id in ids {
            let runs = &s.follow_ups[id];
            let op = c
                .mutants
                .iter()
                .find(|m| &m.id == id)
                .map_or("", |m| m.op.as_str());
            let outcome = |seed: &u64| {
                s.runs
                    .get(id)
                    .and_then(|r| r.get(seed))
                    .map_or("-", |r| r.outcome.as_str())
            };
            let _ = writeln!(
                out,
                "  {id} {op}: {} ({})",
                runs.iter()
                    .map(|(seed, f)| format!("{} {}", f.from, outcome(seed)))
                    .collect::<Vec<_>>()
                    .join(", "),
                s.status.get(id).map_or("pending", |st| st.name())
            );
        }
    }
    if wide {
        let _ = writeln!(
            out,
            "\nunreached ({}): no stimulus's baseline run took their transitions",
            all.unreached
        );
        for m in &c.mutants {
            if s.status.get(&m.id) == Some(&Status::Unreached) {
                let note = s.notes.get(&m.id).map_or("", String::as_str);
                let _ = writeln!(out, "  {} {}: {note}", m.id, m.op);
            }
        }
    }
    if !cannot.is_empty() {
        let _ = writeln!(
            out,
            "\n{} ({}): mutants of code no run of this configuration executes",
            crate::campaign::CANNOT_TAKE,
            cannot.len()
        );
        // each reason in full once: a later mutant with the same reason
        // names the first mutant that gave it
        let mut given: Vec<(String, String)> = Vec::new();
        for m in &cannot {
            let note = s.notes.get(&m.id).map_or("", String::as_str);
            let why = note
                .strip_prefix(crate::campaign::CANNOT_TAKE)
                .map_or(note, |w| w.trim_start_matches(": "));
            // an older campaign's note gives each transition its reason
            let pairs = m
                .fires
                .as_deref()
                .and_then(|f| crate::campaign::cannot_take_pairs(why, f));
            let Some(pairs) = pairs else {
                let _ = writeln!(out, "  {} {}: {why}", m.id, m.op);
                continue;
            };
            let text: Vec<String> = crate::campaign::reason_groups(&pairs)
                .into_iter()
                .map(|(reason, ts)| {
                    let ts = ts.join(", ");
                    match given.iter().find(|(r, _)| r == reason) {
                        Some((_, first)) if reason.len() > 80 => {
                            format!("{ts}: the reason given for {first} above")
                        }
                        _ => {
                            given.push((reason.to_string(), m.id.clone()));
                            format!("{ts}: {reason}")
                        }
                    }
                })
                .collect();
            let _ = writeln!(out, "  {} {}: {}", m.id, m.op, text.join("; "));
        }
    }
    // detectors: a mutant counts for each detector that saw any of its runs
    let mut detectors: BTreeMap<String, usize> = BTreeMap::new();
    let (mut only, mut stopped) = (0, 0);
    for (id, runs) in &s.runs {
        if s.status.get(id) != Some(&Status::Killed) {
            continue;
        }
        let mut seen: Vec<String> = Vec::new();
        for r in runs.values() {
            if !matches!(
                r.exit_kind,
                ExitKind::Clean | ExitKind::Timeout | ExitKind::Stopped
            ) {
                seen.push(format!("gem5: {}", r.exit_kind.name()));
            }
            for (m, v) in &r.verdicts {
                if v == "violation" {
                    seen.push(format!("memconform: {m}"));
                }
            }
        }
        if runs.values().any(memconform_only) {
            only += 1;
        } else if runs.values().any(|r| r.exit_kind == ExitKind::Stopped) {
            stopped += 1;
        }
        seen.sort();
        seen.dedup();
        for d in seen {
            *detectors.entry(d).or_default() += 1;
        }
    }
    let _ = writeln!(out, "\ndetector (killed mutants each detector saw)");
    for (d, n) in &detectors {
        let _ = writeln!(out, "  {d:<24} {n}");
    }
    let _ = writeln!(
        out,
        "  memconform only         {only}   (a violation in a run gem5 ended cleanly)"
    );
    if stopped > 0 {
        let _ = writeln!(
            out,
            "  stopped at a violation  {stopped}   (memconform stopped gem5 first: whether gem5 would have caught it is not known)"
        );
    }
    // seeds to kill: the killing run's place among the mutant's runs, which
    // the runner makes in seed order (follow-up runs last): with stimuli a
    // mutant runs only the seeds whose stimuli take its transitions
    let seeds = &c.settings.seeds;
    let firsts: Vec<usize> = s
        .runs
        .iter()
        .filter(|(id, _)| s.status.get(*id) == Some(&Status::Killed))
        .filter_map(|(_, runs)| runs.values().position(Run::kills))
        .collect();
    if !firsts.is_empty() {
        let _ = write!(out, "\nseeds to kill:");
        let most = firsts.iter().max().map_or(0, |m| m + 1);
        for k in 0..seeds.len().max(most) {
            let within = firsts.iter().filter(|&&f| f <= k).count();
            let _ = write!(
                out,
                "  ≤{}: {:.0}%",
                k + 1,
                100.0 * within as f64 / firsts.len() as f64
            );
        }
        out.push('\n');
    }
    // each run's binary against its mutant's build (both digests logged)
    if s.binary_checked > 0 {
        if s.foreign_binary.is_empty() {
            let _ = writeln!(
                out,
                "binaries: each of {} runs started its mutant's build (SHA-256 at the build and at the run)",
                s.binary_checked
            );
        } else {
            let which: Vec<String> = s
                .foreign_binary
                .iter()
                .map(|(m, seed)| format!("{m} seed {seed}"))
                .collect();
            let _ = writeln!(
                out,
                "binaries: {} of {} runs started another binary than their mutant's build, \
                 so their outcomes say nothing of it: {}",
                s.foreign_binary.len(),
                s.binary_checked,
                which.join(", ")
            );
        }
    }
    // times
    let builds: Vec<f64> = s.build_s.values().copied().collect();
    let runs: Vec<&Run> = s.runs.values().flat_map(|r| r.values()).collect();
    if !builds.is_empty() && !runs.is_empty() {
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let _ = writeln!(
            out,
            "\nmean seconds: build {:.1}, run {:.1}, check {:.2} (over {} builds, {} runs)",
            mean(&builds),
            mean(&runs.iter().map(|r| r.run_s).collect::<Vec<_>>()),
            mean(&runs.iter().map(|r| r.check_s).collect::<Vec<_>>()),
            builds.len(),
            runs.len()
        );
    }
    let phases: Vec<_> = s.build_phases.values().collect();
    if !phases.is_empty() {
        let n = phases.len() as f64;
        let mean = |f: fn(&crate::campaign::BuildPhases) -> f64| {
            phases.iter().map(|p| f(p)).sum::<f64>() / n
        };
        let _ = writeln!(
            out,
            "mean build phases: SCons start-up and scan {:.1} s, regenerate {:.1} s, compile {:.1} s, link {:.1} s (over {} builds whose output showed SCons's steps)",
            mean(|p| p.scan_s),
            mean(|p| p.regenerate_s),
            mean(|p| p.compile_s),
            mean(|p| p.link_s),
            phases.len()
        );
    }
    // wall time and idle slots, from the logs' times
    match &s.sessions {
        sessions if !sessions.is_empty() => {
            let sum = |f: fn(&crate::campaign::Session) -> f64| sessions.iter().map(f).sum::<f64>();
            let capacity = sessions
                .iter()
                .map(|x| x.slots as f64 * x.wall_s)
                .sum::<f64>();
            let idle = sum(|x| x.idle_s());
            let _ = writeln!(
                out,
                "time: {} run{} of `mutate run`, {:.0} s of wall time; slots {:.0} slot-s: build {:.0}, run {:.0}, check {:.0}, idle {:.0} ({:.0}%)",
                sessions.len(),
                if sessions.len() == 1 { "" } else { "s" },
                sum(|x| x.wall_s),
                capacity,
                sum(|x| x.build_s),
                sum(|x| x.run_s),
                sum(|x| x.check_s),
                idle,
                if capacity > 0.0 { 100.0 * idle / capacity } else { 0.0 }
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "time: not recorded (its logs were written before events carried their times)"
            );
        }
    }
    per_mutant(&mut out, s);
    let classes = survivors;
    let survivors: Vec<_> = c
        .mutants
        .iter()
        .filter(|m| s.status.get(&m.id) == Some(&Status::Survived))
        .collect();
    if !survivors.is_empty() {
        let _ = writeln!(out, "\nsurvivors (patches in patches/ID.diff):");
        for m in survivors {
            let _ = writeln!(
                out,
                "  {} {:<10} {}:{} {}",
                m.id, m.op, m.file, m.line, m.site
            );
            match classes.get(&m.id) {
                Some(k) => {
                    let _ = writeln!(out, "      {}: {}", k.class, k.reason);
                }
                None => {
                    let _ = writeln!(out, "      not classified");
                }
            }
        }
    }
    // a class kept for a mutant that no longer survives (a seed added
    // since killed it) is shown, not counted
    let stale: Vec<&String> = classes
        .keys()
        .filter(|id| s.status.get(*id) != Some(&Status::Survived))
        .collect();
    if !stale.is_empty() {
        let _ = writeln!(
            out,
            "\nclassified in {} but no longer survivors (not counted): {}",
            crate::campaign::SURVIVORS,
            stale
                .iter()
                .map(|id| format!(
                    "{id} ({})",
                    s.status.get(*id).map_or("pending", |st| st.name())
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(
            out,
            "  (`memconform mutate classify DIR ID --clear` takes a class back)"
        );
    }
    out
}

/// A baseline run's transition coverage in words (§4, coverage): taken of
/// declared per controller type, or the transitions taken alone when the
/// protocol's files could not be read (or the log predates the summary).
fn coverage_of(r: &Run) -> String {
    match (&r.coverage, &r.fired) {
        (Some(c), _) => crate::coverage::summary_line(c),
        (None, Some(f)) => format!("{} transitions taken (declared unknown)", f.len()),
        (None, None) => "no transition counters (gem5 did not write them)".to_string(),
    }
}

/// The per-mutant table: status, what killed it (the first killing
/// seed's outcome), seeds run, and wall seconds for build, runs and checks.
fn per_mutant(out: &mut String, s: &State) {
    let c = s.campaign;
    let mut mutants: Vec<_> = c
        .mutants
        .iter()
        .filter(|m| s.status.contains_key(&m.id))
        .collect();
    if mutants.is_empty() {
        return;
    }
    mutants.sort_by(|a, b| (&a.op, &a.id).cmp(&(&b.op, &b.id)));
    let _ = writeln!(
        out,
        "\nmutant        op        catalogue  status       by                   seeds  build_s  run_s  check_s"
    );
    for m in mutants {
        let status = s.status[&m.id];
        let runs = s.runs.get(&m.id);
        let by = runs
            .and_then(|r| r.values().find(|r| r.kills()))
            .map_or("-", |r| r.outcome.as_str());
        let sum = |f: fn(&Run) -> f64| runs.map_or(0.0, |r| r.values().map(f).sum::<f64>());
        let catalogue = m.catalogue_name().unwrap_or("-");
        let _ = writeln!(
            out,
            "{:<13} {:<9} {:<10} {:<12} {:<20} {:>5}  {:>7}  {:>5.1}  {:>7.2}",
            m.id,
            m.op,
            catalogue,
            status.name(),
            by,
            runs.map_or(0, BTreeMap::len),
            s.build_s
                .get(&m.id)
                .map_or("-".to_string(), |b| format!("{b:.0}")),
            sum(|r| r.run_s),
            sum(|r| r.check_s),
        );
    }
}

/// The ids of the mutants with `status`, a line each (`killed.txt`, ...).
pub fn ids_with(s: &State, status: Status) -> String {
    let mut ids: Vec<&str> = s
        .status
        .iter()
        .filter(|(_, &st)| st == status)
        .map(|(id, _)| id.as_str())
        .collect();
    ids.sort_unstable();
    ids.iter().map(|id| format!("{id}\n")).collect()
}

/// Writes every report into the campaign directory (each file whole:
/// `report.txt`, `kill-matrix.csv`, `histories.csv`, `killed.txt`,
/// `survived.txt`, `timeout.txt`, `unviable.txt`, `no-coverage.txt`,
/// with stimuli `unreached.txt` (each id with its note),
/// `mutant-coverage.csv`);
/// returns the text report.
pub fn write_all(s: &State) -> Result<String, crate::campaign::Error> {
    use crate::campaign::write_atomic;
    let dir = &s.campaign.dir;
    let text = text(s, &s.campaign.survivors()?);
    write_atomic(&dir.join("report.txt"), text.as_bytes())?;
    let mut matrix = Vec::new();
    write_kill_matrix(&mut matrix, s).map_err(|e| crate::campaign::Error(e.to_string()))?;
    write_atomic(&dir.join("kill-matrix.csv"), &matrix)?;
    // the runs' history rows, one header
    let mut histories = Vec::new();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for id in std::iter::once("baseline".to_string())
        .chain(s.campaign.mutants.iter().map(|m| m.id.clone()))
    {
        let csvs = |d: &std::path::Path| -> Vec<std::path::PathBuf> {
            let Ok(rd) = std::fs::read_dir(d) else {
                return Vec::new();
            };
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                .collect()
        };
        let run_dir = dir.join("runs").join(&id);
        let mut found = csvs(&run_dir);
        if found.is_empty() && id == "baseline" {
            // a sharded campaign: each shard ran the baseline in its own
            // directory; one shard's rows stand for it (the first)
            let mut shards: Vec<std::path::PathBuf> = std::fs::read_dir(&run_dir)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            shards.retain(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("shard-"))
            });
            shards.sort();
            found = shards
                .iter()
                .map(|d| csvs(d))
                .find(|f| !f.is_empty())
                .unwrap_or_default();
        }
        files.extend(found);
    }
    files.sort();
    for f in files {
        let Ok(t) = std::fs::read_to_string(&f) else {
            continue;
        };
        let mut lines = t.lines();
        let head = lines.next();
        if histories.is_empty() {
            if let Some(h) = head {
                histories.extend_from_slice(h.as_bytes());
                histories.push(b'\n');
            }
        }
        for l in lines {
            histories.extend_from_slice(l.as_bytes());
            histories.push(b'\n');
        }
    }
    write_atomic(&dir.join("histories.csv"), &histories)?;
    write_atomic(
        &dir.join(crate::campaign::MUTANT_COVERAGE),
        crate::campaign::mutant_coverage_csv(s.campaign, &s.baseline).as_bytes(),
    )?;
    for (name, st) in [
        ("killed.txt", Status::Killed),
        ("survived.txt", Status::Survived),
        ("timeout.txt", Status::Timeout),
        ("unviable.txt", Status::Unviable),
        ("no-coverage.txt", Status::NoCoverage),
    ] {
        write_atomic(&dir.join(name), ids_with(s, st).as_bytes())?;
    }
    if !s.campaign.settings.stimuli.is_empty() {
        // each with its closest attempt
        let mut unreached = String::new();
        for line in ids_with(s, Status::Unreached).lines() {
            let note = s.notes.get(line).map_or("", String::as_str);
            let _ = writeln!(unreached, "{line}\t{note}");
        }
        write_atomic(&dir.join("unreached.txt"), unreached.as_bytes())?;
    }
    Ok(text)
}
