//! Baseline coverage (docs/design/campaigns.md §4): gem5 counts every transition a controller
//! takes in `stats.txt` as `<prefix>.<Machine>_Controller.<State>.<Event>`
//! (a `::total` line beside it when there are several controllers). gem5
//! is deterministic: a mutant run with a baseline seed executes exactly as
//! the baseline until it first runs the edited code, so a mutant none of
//! whose counters ([`Mutant::fires`](super::Mutant::fires)) fired in any
//! baseline seed cannot be killed by those seeds: it is `no_coverage`,
//! reported and not built.

use std::collections::BTreeSet;
use std::path::Path;

use memconform_parsers::gem5::stats::parse_stats;

/// The transition counters (`Machine.State.Event`) with a non-zero count in
/// a `stats.txt`; `None` when the file has none at all (no stats written,
/// e.g. a run that panicked, or a gem5 that does not count transitions),
/// or cannot be read or parsed: then nothing can be said.
pub fn fired(stats_txt: &Path) -> Option<BTreeSet<String>> {
    let bytes = std::fs::read(stats_txt).ok()?;
    let dumps = parse_stats(&bytes).ok()?;
    let mut seen = false;
    let mut out = BTreeSet::new();
    for dump in &dumps {
        for (name, values) in &dump.entries {
            let Some(key) = transition_counter(name) else {
                continue;
            };
            seen = true;
            // a scalar line's count, or one controller's of a vector line
            // (`::total` gives their sum): any non-zero one fired
            if values.first().is_some_and(|v| *v > 0.0) {
                out.insert(key);
            }
        }
    }
    seen.then_some(out)
}

/// `Machine.State.Event` of a transition counter's name
/// (`system.ruby.L1Cache_Controller.I.Load`, or with `::total`).
fn transition_counter(name: &str) -> Option<String> {
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
    (ident(machine) && ident(state) && ident(event)).then(|| format!("{machine}.{state}.{event}"))
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
    fn a_panicked_run_says_nothing() {
        // the MI-5 run panicked: gem5 wrote an empty stats.txt
        assert_eq!(fired(&bundled("traces/bug-mi5-n4-s1-rich/stats.txt")), None);
        assert_eq!(fired(&bundled("no/such/stats.txt")), None);
    }

    #[test]
    fn names_that_are_not_transition_counters() {
        assert_eq!(
            transition_counter("system.ruby.L1Cache_Controller.I.Load::total").as_deref(),
            Some("L1Cache.I.Load")
        );
        assert_eq!(
            transition_counter("board.cache_hierarchy.ruby_system.Directory_Controller.M.PUTX")
                .as_deref(),
            Some("Directory.M.PUTX")
        );
        assert_eq!(
            transition_counter("system.ruby.L1Cache_Controller.Load"),
            None
        );
        assert_eq!(
            transition_counter("system.ruby.l1_cntrl0.cacheMemory.m_demand_hits"),
            None
        );
        assert_eq!(transition_counter("simTicks"), None);
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
}
