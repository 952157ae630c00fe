//! Follow-up runs of a survivor (docs/design/campaigns.md §11b). The
//! stimuli were chosen for coverage: the knob values that take the
//! protocol's corners (fences, locked RMWs, four cores, evictions) also
//! hide what a deleted `forward_eviction_to_cpu` lets through, a load the
//! core ran early and kept. A survivor whose transitions its runs took gets
//! `follow_up_runs` more: the stimuli that took its transitions, most often
//! first, in turn, with the knob space's `follow_up` values set over their
//! knobs and seeds of its own. The first that kills ends it — once the
//! clean protocol has run the same knobs and seed clean and consistent: a
//! follow-up's setting has no baseline run, and gem5 itself fails some
//! settings (small caches: `Ruby functional read failed`), which is no
//! kill of the mutant's.

use super::*;

/// The seed of a mutant's follow-up run `i`: 2^31 + the id's first six
/// hex digits × 64 + `i` mod 64, above every stimulus's and search's seed,
/// the same however many mutants the campaign has or runs per survivor, and
/// below 2^32: gem5 seeds its random number generator with 32 bits, and
/// gem5-configs/seeded_random_test.py refuses a larger `--seed` (2^40 and
/// up, as follow-up seeds were before, made every follow-up run of a
/// campaign through it a crash of the clean protocol too: no evidence).
pub fn follow_up_seed(mutant: &str, i: usize) -> u64 {
    let id = u64::from_str_radix(mutant.get(..6).unwrap_or(mutant), 16).unwrap_or(0);
    (1 << 31) + (id << 6) + (i as u64 % 64)
}

/// The stimuli whose clean baseline run took one of `m`'s transitions
/// (its `fires`), with that run's seed (read from the log: no file is
/// opened); for a configuration mutant, whose parameter every run sets,
/// every stimulus whose baseline run survived.
pub fn stimuli_that_took<'c>(
    c: &'c Campaign,
    m: &Mutant,
    baseline: &[(u64, Run)],
) -> Vec<(&'c crate::stimulus::Stimulus, u64)> {
    let fires = m.fires.as_deref().unwrap_or_default();
    baseline
        .iter()
        .filter(|(_, r)| r.outcome == "survived")
        .filter(|(_, r)| {
            m.is_config()
                || r.fired
                    .as_ref()
                    .is_some_and(|f| fires.iter().any(|t| f.contains(t)))
        })
        .filter_map(|(seed, _)| Some((c.settings.stimulus_of(*seed)?, *seed)))
        .collect()
}

/// The stimuli a survivor's follow-up runs follow, each with the count of
/// its transitions its baseline run took, most first: those whose baseline
/// run took one of `m`'s transitions ([`stimuli_that_took`]: every stimulus
/// for a configuration mutant, in seed order), and the one a search found
/// for it (first: no stimulus took them). Empty when the campaign has no
/// stimuli.
pub fn candidates(
    c: &Campaign,
    m: &Mutant,
    baseline: &[(u64, Run)],
    reached: Option<&crate::stimulus::Stimulus>,
) -> Vec<(crate::stimulus::Stimulus, u64)> {
    let fires = m.fires.as_deref().unwrap_or_default();
    let mut out: Vec<(crate::stimulus::Stimulus, u64)> = Vec::new();
    if let Some(k) = reached {
        out.push((k.clone(), 0));
    }
    for (k, seed) in stimuli_that_took(c, m, baseline) {
        // how often: the run's own counters (kept in runs/baseline)
        let stats = c
            .dir
            .join("runs/baseline")
            .join(format!("s{seed}"))
            .join("stats.txt");
        let n = coverage::read_counts(&stats).map_or(0, |counts| {
            counts
                .count
                .iter()
                .filter(|((m, s, e), _)| fires.iter().any(|t| *t == format!("{m}.{s}.{e}")))
                .map(|(_, n)| n)
                .sum()
        });
        out.push((k.clone(), n));
    }
    // most often first (a search's find first of all); ties by seed
    let found = reached.is_some() as usize;
    out[found..].sort_by(|(a, x), (b, y)| y.cmp(x).then(a.seed.cmp(&b.seed)));
    out
}

/// The stimuli whose follow-up setting timed out in most of this
/// campaign's follow-up runs so far (3 or more, and at least three
/// quarters of its runs but the `unknown` ones), with (timeouts, runs): a timeout is no kill, so
/// such a setting (a slow stimulus made slower by the follow-up values,
/// `delay_misses` on 8 cores) only spends `run_timeout_s` a survivor.
/// Read from the event logs as they are now, other slots' runs included.
pub fn slow_stimuli(events: &[Event]) -> BTreeMap<String, (usize, usize)> {
    let mut from: HashMap<(&str, u64), &str> = HashMap::new();
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for e in events {
        match e {
            Event::FollowUp {
                mutant,
                seed,
                from: name,
                ..
            } => {
                from.insert((mutant.as_str(), *seed), name.as_str());
            }
            Event::Ran { mutant, seed, run } => {
                if let Some(name) = from.remove(&(mutant.as_str(), *seed)) {
                    // an `unknown` run (the clean protocol failed the
                    // setting too) tells nothing of its time
                    if run.outcome == "unknown" {
                        continue;
                    }
                    let c = counts.entry(name.to_string()).or_default();
                    c.0 += usize::from(run.outcome == "timeout");
                    c.1 += 1;
                }
            }
            _ => {}
        }
    }
    counts.retain(|_, (t, n)| *t >= 3 && *t * 4 >= *n * 3);
    counts
}

/// The knobs of follow-up run `i`: its stimulus's (candidates in turn) with
/// the space's follow-up values set over them.
pub fn knobs_of(
    space: &crate::stimulus::Space,
    candidates: &[(crate::stimulus::Stimulus, u64)],
    i: usize,
) -> Option<(String, BTreeMap<String, String>)> {
    let (k, _) = candidates.get(i % candidates.len().max(1))?;
    let mut knobs = k.knobs.clone();
    for (name, value) in &space.follow_up {
        knobs.insert(name.clone(), value.clone());
    }
    Some((k.name.clone(), knobs))
}

/// Runs a survivor's follow-up runs from run `from` (those logged before
/// count: a resumed follow-up goes on) and logs each (`FollowUp`, then
/// `Ran`). A run that kills is run again on the clean protocol (the
/// baseline's binary, same knobs and seed): unless that run survives, the
/// kill is no evidence and the run is `unknown`. Returns `Killed` at the
/// first kill, else `Survived` (a follow-up's timeout or `unknown` leaves
/// a survivor of its stimuli one), or `None` when stopped.
#[allow(clippy::too_many_arguments)]
pub(super) fn follow_up(
    c: &Campaign,
    slot: &Slot,
    bin: Option<&Path>,
    m: &Mutant,
    candidates: &[(crate::stimulus::Stimulus, u64)],
    from: usize,
    models: &[Model],
    limit: u64,
    log: &Log,
    o: &RunOptions<'_>,
) -> Result<Option<Status>, Error> {
    let s = &c.settings;
    let mut status = Status::Survived;
    let Some(space) = s.knobs.as_ref() else {
        return Ok(Some(status));
    };
    let dir = c.dir.join("runs").join(&m.id);
    for i in from..s.follow_up_runs {
        let Some((name, knobs)) = knobs_of(space, candidates, i) else {
            break;
        };
        let seed = follow_up_seed(&m.id, i);
        let Some(mut run) = run_seed(
            c,
            slot,
            bin,
            &m.id,
            &m.params,
            seed,
            &dir,
            models,
            limit,
            o,
            Some(&knobs),
        )?
        else {
            return Ok(None);
        };
        // a kill: does the clean protocol run this setting clean?
        let mut clean = None;
        if run.kills() {
            let base = base_binary(c);
            let Some(reference) = run_seed(
                c,
                slot,
                Some(&base),
                "baseline",
                &[],
                seed,
                &dir.join("follow-up-clean"),
                models,
                limit,
                o,
                Some(&knobs),
            )?
            else {
                return Ok(None);
            };
            if reference.outcome != "survived" {
                run.check_error = format!(
                    "{} is no kill: the clean protocol's run of the same knobs and seed ends {} \
                     too ({})",
                    run.outcome,
                    reference.outcome,
                    shown(&dir.join("follow-up-clean").join(format!("s{seed}")))
                );
                run.outcome = "unknown".to_string();
            } else {
                let _ = fs::remove_dir_all(dir.join("follow-up-clean").join(format!("s{seed}")));
            }
            clean = Some(reference.outcome);
        }
        (o.progress)(&format!(
            "{} {} follow-up {}/{} (seed {seed}; {name} with {}): {}",
            m.id,
            m.op,
            i + 1,
            s.follow_up_runs,
            crate::stimulus::knobs_text(&space.follow_up),
            run.outcome
        ));
        let kills = run.kills();
        if kills {
            status = Status::Killed;
        }
        let survived = run.outcome == "survived";
        log.push(&Event::FollowUp {
            mutant: m.id.clone(),
            seed,
            from: name,
            knobs,
            clean,
        })?;
        log.push(&Event::Ran {
            mutant: m.id.clone(),
            seed,
            run,
        })?;
        if survived {
            let _ = fs::remove_dir_all(dir.join(format!("s{seed}")));
        }
        if kills {
            break;
        }
    }
    Ok(Some(status))
}

#[cfg(test)]
mod tests {
    use super::follow_up_seed;

    /// Follow-up seeds fit gem5's 32-bit seed, lie above a search's and
    /// a stimulus's (which count up from small numbers), and differ per run
    /// of a mutant and per mutant prefix.
    #[test]
    fn follow_up_seeds_fit_gem5_and_stay_apart() {
        for id in [
            "000000000000",
            "ffffffffffff",
            "178b84eda2c8",
            "60ed876b1298",
        ] {
            let seeds: Vec<u64> = (0..64).map(|i| follow_up_seed(id, i)).collect();
            for &s in &seeds {
                assert!(s < 1 << 32, "{id}: {s}");
                assert!(s >= 1 << 31, "{id}: {s}");
            }
            let mut unique = seeds.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), 64, "{id}");
        }
        assert_ne!(
            follow_up_seed("178b84eda2c8", 0),
            follow_up_seed("178b85eda2c8", 0)
        );
    }
}

#[cfg(test)]
mod slow_tests {
    use super::*;

    fn ran(mutant: &str, seed: u64, outcome: &str) -> Event {
        Event::Ran {
            mutant: mutant.into(),
            seed,
            run: serde_json::from_str(&format!(
                r#"{{"outcome":"{outcome}","exit_kind":"clean","exit_code":0,"run_s":1.0,"check_s":0.0,"verdicts":{{}}}}"#
            ))
            .unwrap(),
        }
    }

    fn follow(mutant: &str, seed: u64, from: &str) -> Event {
        Event::FollowUp {
            mutant: mutant.into(),
            seed,
            from: from.into(),
            knobs: BTreeMap::new(),
            clean: None,
        }
    }

    /// A stimulus is slow once 3 or more of its follow-up runs, and three
    /// quarters of them, timed out; a mutant's own (non-follow-up) runs of
    /// the same seed do not count.
    #[test]
    fn a_stimulus_whose_follow_ups_time_out_is_slow() {
        let mut events = Vec::new();
        for (i, m) in ["a", "b", "c", "d"].iter().enumerate() {
            events.push(follow(m, 10 + i as u64, "k1"));
            events.push(ran(
                m,
                10 + i as u64,
                if i == 3 { "survived" } else { "timeout" },
            ));
            events.push(follow(m, 20 + i as u64, "k2"));
            events.push(ran(
                m,
                20 + i as u64,
                if i < 2 { "timeout" } else { "survived" },
            ));
            // a stimulus run of seed 1 timing out is no follow-up's
            events.push(ran(m, 1, "timeout"));
        }
        let slow = slow_stimuli(&events);
        assert_eq!(
            slow.into_iter().collect::<Vec<_>>(),
            [("k1".to_string(), (3, 4))]
        );
        events.push(follow("e", 30, "k1"));
        events.push(ran("e", 30, "survived"));
        assert!(
            slow_stimuli(&events).is_empty(),
            "3 of 5 is not three quarters"
        );
        // three timeouts and two runs the clean protocol failed too
        let mut events = Vec::new();
        for (seed, outcome) in [
            (1, "timeout"),
            (2, "unknown"),
            (3, "timeout"),
            (4, "unknown"),
            (5, "timeout"),
        ] {
            events.push(follow("m", seed, "k3"));
            events.push(ran("m", seed, outcome));
        }
        assert_eq!(
            slow_stimuli(&events)["k3"],
            (3, 3),
            "unknown runs do not count"
        );
    }
}
