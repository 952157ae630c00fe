//! A campaign's state replayed from its logs (docs/design/campaigns.md §8).

use super::*;

/// The campaign's state from its logs: per mutant, its status (if done)
/// and its runs (the last per seed).
pub struct State<'c> {
    pub campaign: &'c Campaign,
    pub baseline: Vec<(u64, Run)>,
    pub status: HashMap<String, Status>,
    /// A done mutant's note, where its status has one (`unreached`).
    pub notes: HashMap<String, String>,
    /// Per mutant a search for a stimulus ran for (`reach_runs`): its runs
    /// and the stimulus it found.
    pub reached: HashMap<String, (usize, Option<crate::stimulus::Stimulus>)>,
    pub runs: HashMap<String, BTreeMap<u64, Run>>,
    /// Per mutant its follow-up runs (§11b) by seed: the stimulus each
    /// follows and its knobs.
    pub follow_ups: HashMap<String, BTreeMap<u64, FollowedUp>>,
    pub build_s: HashMap<String, f64>,
    /// Where each build's time went, where its output said.
    pub build_phases: HashMap<String, BuildPhases>,
    /// Each `mutate run` whose log lines carry their times.
    pub sessions: Vec<Session>,
    /// Runs that started another binary than their mutant's build before
    /// them (both digests logged): mutant, seed.
    pub foreign_binary: Vec<(String, u64)>,
    /// Runs whose binary was checked against their mutant's build.
    pub binary_checked: usize,
}

/// One follow-up run of a survivor: the stimulus it follows, the knobs it
/// ran with, and (when it killed) the clean protocol's outcome of them.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowedUp {
    pub from: String,
    pub knobs: BTreeMap<String, String>,
    pub clean: Option<String>,
}

impl<'c> State<'c> {
    /// Replays the logs.
    pub fn of(c: &'c Campaign) -> Result<State<'c>, Error> {
        let mut s = State {
            campaign: c,
            baseline: Vec::new(),
            status: HashMap::new(),
            notes: HashMap::new(),
            reached: HashMap::new(),
            runs: HashMap::new(),
            follow_ups: HashMap::new(),
            build_s: HashMap::new(),
            build_phases: HashMap::new(),
            sessions: Vec::new(),
            foreign_binary: Vec::new(),
            binary_checked: 0,
        };
        // each mutant's last build's binary, as the replay goes
        let mut built: HashMap<String, String> = HashMap::new();
        // the logs, read once: the events replayed, the sessions timed
        let logs = c.timed_events()?;
        s.sessions = sessions_of(&logs);
        for e in without_retried(logs).into_iter().flatten().map(|(_, e)| e) {
            match e {
                Event::Baseline { seed, run } => {
                    // shards running at once may each run it: the last counts
                    s.baseline.retain(|(b, _)| *b != seed);
                    s.baseline.push((seed, run));
                }
                Event::Built {
                    mutant,
                    wall_s,
                    phases,
                    binary_sha256,
                    ..
                } => {
                    match binary_sha256 {
                        Some(b) => built.insert(mutant.clone(), b),
                        None => built.remove(&mutant),
                    };
                    if let Some(p) = phases {
                        s.build_phases.insert(mutant.clone(), p);
                    }
                    // a build of a mutant not done starts its runs again
                    // (a run stopped part way resumes from its patch): the
                    // stopped attempt's runs are superseded (a survivor
                    // built again for its follow-up runs keeps its own)
                    if !s.status.contains_key(&mutant) {
                        s.runs.remove(&mutant);
                    }
                    s.build_s.insert(mutant, wall_s);
                }
                Event::Ran { mutant, seed, run } => {
                    if let (Some(ran), Some(b)) = (&run.binary_sha256, built.get(&mutant)) {
                        s.binary_checked += 1;
                        if ran != b {
                            s.foreign_binary.push((mutant.clone(), seed));
                        }
                    }
                    s.runs.entry(mutant).or_default().insert(seed, run);
                }
                Event::MutantDone {
                    mutant,
                    status,
                    note,
                } => {
                    match note {
                        Some(n) => s.notes.insert(mutant.clone(), n),
                        None => s.notes.remove(&mutant),
                    };
                    s.status.insert(mutant, status);
                }
                Event::Reached {
                    mutant,
                    runs,
                    stimulus,
                    ..
                } => {
                    s.reached.insert(mutant, (runs, stimulus));
                }
                Event::FollowUp {
                    mutant,
                    seed,
                    from,
                    knobs,
                    clean,
                } => {
                    s.follow_ups
                        .entry(mutant)
                        .or_default()
                        .insert(seed, FollowedUp { from, knobs, clean });
                }
                Event::Started { .. } | Event::ReachRun { .. } | Event::Retry { .. } => {}
            }
        }
        Ok(s)
    }
}
