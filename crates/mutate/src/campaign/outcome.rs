//! How a gem5 run ended and what it is worth (docs/design/campaigns.md §7):
//! its exit kind read from its status and output, memconform's verdicts on
//! it, the outcome and a mutant's final status.

use super::*;

/// What ended a gem5 run, read from its exit status and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitKind {
    /// Exit 0 (the tester completed).
    Clean,
    /// The tester's own check failed (`Action/check failure`; MemTest's
    /// `read of … returns …, expected …`).
    TesterCheck,
    /// The protocol stopped itself: `Invalid transition`, a SLICC assert
    /// (`Runtime Error at X.sm:N`).
    ProtocolPanic,
    /// `Deadlock detected` (the tester) or `Possible Deadlock detected`.
    Deadlock,
    /// The run passed its time limit and was killed.
    Timeout,
    /// Any other non-zero exit or signal.
    Crash,
    /// gem5 ended cleanly but the simulated program aborted first: its C
    /// library's heap or stack checks or an `assert` said so on its
    /// standard error (`malloc(): corrupted top size`): data it read was
    /// wrong. Its clean run (the same seed) ended with its output.
    ProgramAbort,
    /// memconform stopped the run at a violation it found while gem5 ran
    /// (`stop_at_violation`): how gem5 would have ended is not known.
    Stopped,
}

impl ExitKind {
    /// The CSV name.
    pub fn name(self) -> &'static str {
        match self {
            ExitKind::Clean => "clean",
            ExitKind::TesterCheck => "tester_check",
            ExitKind::ProtocolPanic => "protocol_panic",
            ExitKind::Deadlock => "deadlock",
            ExitKind::Timeout => "timeout",
            ExitKind::Crash => "crash",
            ExitKind::ProgramAbort => "program_abort",
            ExitKind::Stopped => "stopped",
        }
    }

    /// How a run ended, from its exit code (`None`: killed by a signal) and
    /// its output (docs/design/campaigns.md §7, the evidence column).
    pub fn classify(code: Option<i32>, output: &str) -> ExitKind {
        if output.contains(STOP_MARK) {
            ExitKind::Stopped
        } else if code == Some(124) || code == Some(137) && output.contains(TIMEOUT_MARK) {
            ExitKind::Timeout
        } else if output.contains("Action/check failure")
            || (output.contains("read of")
                && output.contains("returns")
                && output.contains("expected"))
        {
            ExitKind::TesterCheck
        } else if output.contains("Invalid transition") || output.contains("Runtime Error at") {
            ExitKind::ProtocolPanic
        } else if output.contains("Deadlock detected") {
            ExitKind::Deadlock
        } else if code == Some(0) && PROGRAM_ABORTS.iter().any(|m| output.contains(m)) {
            ExitKind::ProgramAbort
        } else if code == Some(0) {
            ExitKind::Clean
        } else {
            ExitKind::Crash
        }
    }
}

/// What a simulated program's C library or `assert` writes to its standard
/// error (gem5's, in SE mode) as it aborts: glibc's heap checks
/// (`malloc(): corrupted top size`, `free(): invalid pointer`, `double free
/// or corruption`), its stack protector, a failed `assert`.
const PROGRAM_ABORTS: [&str; 5] = [
    "malloc(): ",
    "free(): ",
    "double free or corruption",
    "*** stack smashing detected ***",
    "Assertion `",
];

/// Written to a run's log by the runner when it kills the run.
pub(super) const TIMEOUT_MARK: &str = "memconform: timed out";

/// Written to a run's log by the runner when it stops the run at a
/// violation (`stop_at_violation`).
pub(super) const STOP_MARK: &str = "memconform: stopped at a violation";

/// One gem5 run and memconform's verdicts on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The first matching outcome (§7): `violation:<model>`, an exit kind
    /// other than clean, `unknown`, or `survived`.
    pub outcome: String,
    pub exit_kind: ExitKind,
    pub exit_code: Option<i32>,
    /// Seconds gem5 ran, and memconform checked.
    pub run_s: f64,
    pub check_s: f64,
    /// Per model: consistent, violation or unknown (empty when nothing
    /// could be checked: `check_error` says why).
    pub verdicts: BTreeMap<String, String>,
    /// The weakest model violated and its pattern, when one is.
    #[serde(default)]
    pub decided_by: String,
    #[serde(default)]
    pub pattern: String,
    #[serde(default)]
    pub check_error: String,
    /// A baseline run's transition counters that fired (`Machine.State.Event`),
    /// `None` when its `stats.txt` had none (or for a mutant's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fired: Option<Vec<String>>,
    /// A baseline run's transition coverage per controller type: taken of
    /// those the protocol declares (§4, coverage); `None` when its
    /// `stats.txt` had no counters (or for a mutant's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Vec<coverage::Summary>>,
    /// A baseline run's declared transitions its configuration cannot take
    /// (`Machine.State.Event` -> why, [`crate::reach`]); `None` when not
    /// analysed (or for a mutant's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<std::collections::BTreeMap<String, String>>,
    /// The SHA-256 of the gem5 binary the run started (a campaign's run: a
    /// report checks it is its mutant's last build's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_sha256: Option<String>,
}

impl Run {
    /// Whether the run kills the mutant (a timeout is reported apart).
    pub fn kills(&self) -> bool {
        !matches!(self.outcome.as_str(), "survived" | "unknown" | "timeout")
    }
}

/// A mutant's final status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Killed,
    Survived,
    Timeout,
    /// It did not build (or its patch did not apply).
    Unviable,
    /// No baseline seed took one of its transitions: it would run exactly
    /// as the baseline (not built, not run).
    NoCoverage,
    /// Some run's verdict stayed unknown and nothing killed it.
    Unknown,
    /// With stimuli: no stimulus's baseline run took one of its
    /// transitions (not built, not run); the closest attempt is noted.
    Unreached,
}

impl Status {
    /// Every status, in the reports' order.
    pub const ALL: [Status; 7] = [
        Status::Killed,
        Status::Survived,
        Status::Timeout,
        Status::Unviable,
        Status::NoCoverage,
        Status::Unknown,
        Status::Unreached,
    ];

    /// The status of a CSV name.
    pub fn from_name(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The CSV name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Killed => "killed",
            Status::Survived => "survived",
            Status::Timeout => "timeout",
            Status::Unviable => "unviable",
            Status::NoCoverage => "no_coverage",
            Status::Unknown => "unknown",
            Status::Unreached => "unreached",
        }
    }
}

/// A command's end as people read it: `exit 3`, or `ended by a signal`
/// (no exit status).
pub(super) fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("exit {c}"),
        None => "ended by a signal".to_string(),
    }
}

/// Adds outcome `o` to a run's verdict per model: a violation in any
/// history or view beats the rest, then unknown, then consistent.
fn merge_verdict(verdicts: &mut BTreeMap<String, String>, o: &memconform_core::check::Outcome) {
    let v = o.verdict().name();
    let e = verdicts
        .entry(o.model.name().to_string())
        .or_insert_with(|| v.to_string());
    if v == "violation" || (v == "unknown" && e == "consistent") {
        *e = v.to_string();
    }
}

/// Whether a violation of `m` is the plainer label than one of `than`: `m`
/// strictly weaker (`than` implies it, not back: [`Model::implies`], the
/// proven facts), else, for models neither implies, the earlier in
/// [`Model::EVERY`] (the causal models first).
fn weaker(m: Model, than: Option<Model>) -> bool {
    let Some(w) = than else { return true };
    match (w.implies(m), m.implies(w)) {
        (true, false) => true,
        (false, true) => false,
        _ => Model::EVERY.iter().position(|&x| x == m) < Model::EVERY.iter().position(|&x| x == w),
    }
}

/// Checks a run's output directory with memconform (real-time view as
/// well) and classifies the run (§7: a violation first, then how gem5
/// ended, then unknown, else survived). Where the run's configuration
/// promises a model (an SE run: SC for blocking in-order cores, TSO for
/// x86 O3), only violations of it and of the models it implies count. The history rows (`check`'s CSV,
/// `variant` = the mutant) go to `rows_csv`, for `summarize`, `compare`
/// and `plot`.
pub fn judge(
    outdir: &Path,
    code: Option<i32>,
    output: &str,
    models: &[Model],
    run_s: f64,
    variant: &str,
    rows_csv: &Path,
) -> Run {
    let exit_kind = ExitKind::classify(code, output);
    let t = Instant::now();
    // the checks' memory budget: a share of what this machine has (as `check`)
    let opts = Options {
        max_memory: memconform_ingest::limits::default_max_memory(),
        ..Options::default()
    };
    let mut verdicts: BTreeMap<String, String> = BTreeMap::new();
    let (mut decided_by, mut pattern, mut check_error) =
        (String::new(), String::new(), String::new());
    let mut violated: Option<Model> = None;
    match memconform_ingest::check_file(
        outdir,
        models,
        &opts,
        &memconform_ingest::Reading {
            real_time: true,
            // a run stopped at a violation is read as what it is: cut
            in_progress: exit_kind == ExitKind::Stopped,
            ..Default::default()
        },
    ) {
        Ok(checked) => {
            let mut csv = Vec::new();
            for c in &checked {
                let mut rows = memconform_report::rows(outdir, c);
                rows.iter_mut().for_each(|r| r.variant = variant.into());
                let header = csv.is_empty();
                let _ = memconform_report::write_csv(&mut csv, &rows, header);
            }
            if let Err(e) = write_atomic(rows_csv, &csv) {
                check_error = e.0;
            }
            for c in &checked {
                // a run's configuration promises a model: violating a
                // model on a history that keeps the promise is what its
                // cores may do (store buffering), not a kill
                let counted = |i: usize| {
                    c.breaks(i) != Some(false) || c.outcomes[i].verdict() == Verdict::Consistent
                };
                for (_, o) in c.outcomes.iter().enumerate().filter(|&(i, _)| counted(i)) {
                    merge_verdict(&mut verdicts, o);
                }
                // a promise checked on its own (ARMv8's, when not asked):
                // its verdict is kept beside the asked ones
                for o in c.promise.iter().flat_map(|k| &k.extra) {
                    merge_verdict(&mut verdicts, o);
                }
                // the kill's label: where the promise is broken, its
                // evidence (the weakest violated model it implies, else its
                // own check); else the weakest violated model counted
                let evidence = c.promise.as_ref().and_then(|k| k.evidence(&c.outcomes));
                let labels: Vec<&memconform_core::check::Outcome> = match evidence {
                    Some(o) => vec![o],
                    None => c
                        .outcomes
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| counted(i))
                        .map(|(_, o)| o)
                        .collect(),
                };
                for o in labels {
                    if o.verdict() == Verdict::Violation && weaker(o.decided_by, violated) {
                        violated = Some(o.decided_by);
                        pattern = o
                            .violation()
                            .map_or(String::new(), |v| v.pattern.name().to_string());
                    }
                }
            }
        }
        Err(e) => check_error = e.to_string(),
    }
    if let Some(w) = violated {
        decided_by = w.name().to_string();
    }
    let outcome = if let Some(w) = violated {
        format!("violation:{}", w.name())
    } else if exit_kind != ExitKind::Clean {
        exit_kind.name().to_string()
    } else if !check_error.is_empty() || verdicts.values().any(|v| v == "unknown") {
        "unknown".to_string()
    } else {
        "survived".to_string()
    };
    Run {
        outcome,
        exit_kind,
        exit_code: code,
        run_s,
        check_s: t.elapsed().as_secs_f64(),
        verdicts,
        decided_by,
        pattern,
        check_error,
        fired: None,
        coverage: None,
        unreachable: None,
        binary_sha256: None,
    }
}

/// The text of a run's log and gem5's own output files in `outdir`.
pub(super) fn run_output(log: &Path, outdir: &Path) -> String {
    let mut text = fs::read_to_string(log).unwrap_or_default();
    for f in ["simout.txt", "simerr.txt", "simout", "simerr"] {
        if let Ok(t) = fs::read_to_string(outdir.join(f)) {
            text.push_str(&t);
        }
    }
    text
}

/// The last `n` lines of a file.
pub(super) fn tail(path: &Path, n: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kill is labelled by the weakest model violated, by the proven
    /// implications: ARMv8 and RMO before the models known to imply them
    /// (whatever their place in `Model::EVERY`), the causal models' order
    /// kept; models no proven implication orders keep EVERY's order (PSO
    /// before ARMv8: PSO => ARMv8 is not among the facts).
    #[test]
    fn the_weakest_violated_model_labels_a_kill() {
        use Model::*;
        assert!(weaker(Armv8, Some(Sc)));
        assert!(!weaker(Sc, Some(Armv8)));
        assert!(weaker(Rmo, Some(Tso)));
        assert!(weaker(Rmo, Some(Armv8)));
        assert!(weaker(Pso, Some(Armv8)));
        assert!(weaker(Cc, Some(Wccm)));
        assert!(!weaker(Wccm, Some(Cc)));
        assert!(weaker(Cc, Some(Ccm)));
        assert!(weaker(Sc, None));
        // incomparable: the earlier in EVERY
        assert!(weaker(Ccv, Some(Cm)) || weaker(Cm, Some(Ccv)));
        assert!(!(weaker(Ccv, Some(Cm)) && weaker(Cm, Some(Ccv))));
    }

    /// A run gem5 ended cleanly whose program aborted (a real run's log:
    /// MESI_Two_Level's L2 sending exclusive data without its block) is a
    /// program abort; a plain clean run is clean; gem5's own panics come
    /// first.
    #[test]
    fn a_program_that_aborts_under_a_clean_gem5_is_no_clean_run() {
        let tail = "src/sim/mem_state.cc:448: info: Increasing stack size by one page.\n\
                    malloc(): corrupted top size\n\
                    src/sim/syscall_emul.cc:85: warn: ignoring syscall rt_sigprocmask(...)\n\
                    Exiting @ tick 30131500 because exiting with last active thread context\n";
        assert_eq!(ExitKind::classify(Some(0), tail), ExitKind::ProgramAbort);
        let clean = tail.replace("malloc(): corrupted top size\n", "");
        assert_eq!(ExitKind::classify(Some(0), &clean), ExitKind::Clean);
        assert_eq!(
            ExitKind::classify(
                Some(0),
                "client: client.c:80: main: Assertion `x' failed.\n"
            ),
            ExitKind::ProgramAbort
        );
        assert_eq!(
            ExitKind::classify(Some(1), &format!("{tail}Invalid transition\n")),
            ExitKind::ProtocolPanic
        );
        assert_eq!(ExitKind::classify(Some(1), tail), ExitKind::Crash);
    }
}
