//! The campaign's append-only event logs (docs/design/campaigns.md §6,
//! resume): events, their lines, torn tails, and the sessions they time.

use super::*;

/// One event of a campaign's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A baseline seed: the unmutated protocol's run.
    Baseline { seed: u64, run: Run },
    /// A mutant's build (`ok` false: unviable).
    Built {
        mutant: String,
        ok: bool,
        wall_s: f64,
        /// the end of the build's output when it failed
        #[serde(default)]
        log_tail: String,
        /// where the build's time went, read off its output as it came
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phases: Option<BuildPhases>,
        /// The SHA-256 of the binary it built (each run of the mutant
        /// records the one it started: a report compares them).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        binary_sha256: Option<String>,
    },
    /// One seed of a mutant.
    Ran { mutant: String, seed: u64, run: Run },
    /// The mutant is finished: its status.
    MutantDone {
        mutant: String,
        status: Status,
        /// Why, where more than the status tells (an `unreached` mutant's
        /// closest attempt).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The search for a stimulus that reaches a mutant no stimulus reaches
    /// (`reach_runs`): how many clean runs it made and what it found.
    Reached {
        mutant: String,
        runs: usize,
        /// Their seconds running and being checked, in all.
        #[serde(default)]
        run_s: f64,
        #[serde(default)]
        check_s: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stimulus: Option<crate::stimulus::Stimulus>,
    },
    /// One clean run of a search for a stimulus ([`Event::Reached`]): its
    /// setting, seed, outcome and the transitions it took, so that a later
    /// mutant those transitions reach runs with it and needs no search.
    ReachRun {
        mutant: String,
        seed: u64,
        knobs: BTreeMap<String, String>,
        outcome: String,
        fired: Vec<String>,
    },
    /// A survivor's follow-up run (§11b): the stimulus it follows (`from`),
    /// the knobs it ran with (the follow-up values set over that
    /// stimulus's) and its seed; the run itself is the `Ran` after it.
    FollowUp {
        mutant: String,
        seed: u64,
        from: String,
        knobs: BTreeMap<String, String>,
        /// The outcome of the clean protocol's run of the same knobs and
        /// seed, made when the mutant's run killed: a kill counts only
        /// when it is `survived`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clean: Option<String>,
    },
    /// A `mutate run` of this shard began, with so many slots and cores
    /// (what [`Campaign::sessions`] measures its idle time against).
    Started { slots: usize, cores: usize },
    /// `mutate retry`: the mutant is to be built and run again. Its build,
    /// runs, follow-up runs and end logged before this line are set aside
    /// (its search for a stimulus, a clean protocol's, is kept).
    Retry { mutant: String },
}

/// One `mutate run` of a shard, from its log's times (each line carries
/// `at`, Unix seconds): how long it ran and what its slots did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    pub slots: usize,
    pub cores: usize,
    /// From its start to its last event.
    pub wall_s: f64,
    pub build_s: f64,
    pub run_s: f64,
    pub check_s: f64,
}

/// One shard's log: its events in order, each with its time (`at`, Unix
/// seconds; `None` in a log written before lines carried one).
pub(super) type TimedLog = Vec<(Option<f64>, Event)>;

/// The sessions of each log's timed events (see [`Campaign::sessions`]):
/// a `started` event opens one; events before any, or without a time,
/// belong to none.
pub(super) fn sessions_of(logs: &[TimedLog]) -> Vec<Session> {
    let mut out = Vec::new();
    for log in logs {
        let mut cur: Option<(f64, Session)> = None;
        for (at, e) in log {
            let Some(at) = *at else { continue };
            if let Event::Started { slots, cores } = *e {
                out.extend(cur.take().map(|(_, s)| s));
                let s = Session {
                    slots,
                    cores,
                    ..Session::default()
                };
                cur = Some((at, s));
                continue;
            }
            let Some((start, s)) = cur.as_mut() else {
                continue;
            };
            s.wall_s = (at - *start).max(s.wall_s);
            match e {
                Event::Baseline { run, .. } | Event::Ran { run, .. } => {
                    s.run_s += run.run_s;
                    s.check_s += run.check_s;
                }
                Event::Built { wall_s, .. } => s.build_s += wall_s,
                Event::Reached { run_s, check_s, .. } => {
                    s.run_s += run_s;
                    s.check_s += check_s;
                }
                // a search's runs are timed in its `Reached`, a follow-up's
                // in its `Ran`
                Event::MutantDone { .. }
                | Event::Started { .. }
                | Event::ReachRun { .. }
                | Event::FollowUp { .. }
                | Event::Retry { .. } => {}
            }
        }
        out.extend(cur.map(|(_, s)| s));
    }
    out
}

impl Session {
    /// Slot-seconds nothing was built, run or checked: `slots × wall`
    /// less the rest (0 when runs beside builds, with a spare core or
    /// `--all-seeds`, filled more than the slots).
    pub fn idle_s(&self) -> f64 {
        (self.slots as f64 * self.wall_s - self.build_s - self.run_s - self.check_s).max(0.0)
    }
}

impl Campaign {
    /// Every event of every shard's log, in file order per shard. A last
    /// line cut by a crash is left out (it was never acknowledged).
    /// A mutant's events before its `retry` are left out.
    pub fn events(&self) -> Result<Vec<Event>, Error> {
        Ok(without_retried(self.timed_events()?)
            .into_iter()
            .flatten()
            .map(|(_, e)| e)
            .collect())
    }

    /// Every `mutate run` of every shard whose log lines carry their times
    /// (a log written before they did has none), in log order.
    pub fn sessions(&self) -> Result<Vec<Session>, Error> {
        Ok(sessions_of(&self.timed_events()?))
    }

    /// The shards' logs, `events-K.jsonl`, by name.
    pub(super) fn log_paths(&self) -> Result<Vec<PathBuf>, Error> {
        let mut logs: Vec<PathBuf> = fs::read_dir(&self.dir)
            .map_err(|e| io_err(&self.dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("events-") && n.ends_with(".jsonl"))
            })
            .collect();
        logs.sort();
        Ok(logs)
    }

    /// Each shard's log (`events-K.jsonl`, by name): its events in file
    /// order, each with its time `at` (`None` in a log written before lines
    /// carried one). A last line cut by a crash is left out.
    pub(super) fn timed_events(&self) -> Result<Vec<TimedLog>, Error> {
        /// The time of a log line, beside its event.
        #[derive(Deserialize)]
        struct At {
            at: Option<f64>,
        }
        let mut out = Vec::new();
        for log in self.log_paths()? {
            let bytes = fs::read(&log).map_err(|e| io_err(&log, e))?;
            let lines = whole_lines(&bytes);
            let n = lines.len();
            let mut events = Vec::with_capacity(n);
            for (i, line) in lines.into_iter().enumerate() {
                match serde_json::from_slice(line) {
                    Ok(e) => {
                        let at = serde_json::from_slice::<At>(line).ok().and_then(|a| a.at);
                        events.push((at, e));
                    }
                    // a crash mid-write that left a newline (a file system
                    // that grew the file before its bytes): not done
                    Err(_) if i + 1 == n => {}
                    Err(e) => return Err(err(format!("{}:{}: {e}", shown(&log), i + 1))),
                }
            }
            out.push(events);
        }
        Ok(out)
    }
}

/// The logs without each retried mutant's build, runs, follow-up runs and
/// end from before its last [`Event::Retry`]: in the retry's own log, the
/// lines above it; in another shard's log (a campaign run again with
/// another shard count), the lines of an earlier time or none.
pub(super) fn without_retried(mut logs: Vec<TimedLog>) -> Vec<TimedLog> {
    // per mutant its last retry: (log, line, time)
    let mut last: HashMap<String, (usize, usize, Option<f64>)> = HashMap::new();
    for (k, log) in logs.iter().enumerate() {
        for (i, (at, e)) in log.iter().enumerate() {
            if let Event::Retry { mutant } = e {
                last.insert(mutant.clone(), (k, i, *at));
            }
        }
    }
    if last.is_empty() {
        return logs;
    }
    for (k, log) in logs.iter_mut().enumerate() {
        let mut i = 0;
        log.retain(|(at, e)| {
            let line = i;
            i += 1;
            let mutant = match e {
                Event::Built { mutant, .. }
                | Event::Ran { mutant, .. }
                | Event::MutantDone { mutant, .. }
                | Event::FollowUp { mutant, .. } => mutant,
                _ => return true,
            };
            let Some(&(rk, ri, rat)) = last.get(mutant) else {
                return true;
            };
            let before = if rk == k {
                line < ri
            } else {
                match (at, rat) {
                    (Some(a), Some(r)) => *a < r,
                    _ => true,
                }
            };
            !before
        });
    }
    logs
}

/// The whole lines of an event log (each ends with `\n`, which is left
/// out): the bytes after the last `\n` are an event a crash cut (its line
/// was never acknowledged), whatever they hold, and are not a line.
pub(crate) fn whole_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes[..whole]
        .split_inclusive(|&b| b == b'\n')
        .map(|l| &l[..l.len() - 1])
        .collect()
}

/// The append-only log of one shard: a line per event, synced.
pub(super) struct Log {
    pub(super) file: Mutex<File>,
}

impl Log {
    /// Opens the log for appending, first cut back to its last whole line:
    /// an event a crash tore (no `\n` at its end) is removed, never glued
    /// to the next one (see [`whole_lines`]). The shard's lock is held.
    pub(super) fn open(path: &Path) -> Result<Log, Error> {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| io_err(path, e))?;
        cut_torn_tail(&file).map_err(|e| io_err(path, e))?;
        Ok(Log {
            file: Mutex::new(file),
        })
    }

    pub(super) fn push(&self, e: &Event) -> Result<(), Error> {
        // each line carries its time, `at` (Unix seconds): see `sessions`
        let mut v = serde_json::to_value(e).expect("an event serialises");
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        if let Some(o) = v.as_object_mut() {
            o.insert(
                "at".into(),
                serde_json::json!((at * 1000.0).round() / 1000.0),
            );
        }
        let mut line = v.to_string();
        line.push('\n');
        let mut f = self.file.lock().expect("the log lock");
        f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| err(format!("cannot write the event log: {e}")))
    }
}

/// Truncates `file` after its last `\n` (to nothing without one), synced:
/// what follows is a torn event.
pub(crate) fn cut_torn_tail(file: &File) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let mut f = file;
    // back from the end in blocks to the last newline
    let mut end = len;
    let mut buf = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            end = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    if end < len {
        file.set_len(end)?;
        file.sync_data()?;
    }
    Ok(())
}

#[cfg(test)]
mod log_tests {
    use super::{whole_lines, Event, Log, Status};

    fn parsed(bytes: &[u8]) -> Vec<Event> {
        whole_lines(bytes)
            .into_iter()
            .map(|l| serde_json::from_slice(l).expect("a whole line parses"))
            .collect()
    }

    /// A log cut at every byte of its last event is opened, cut back to its
    /// whole lines, appended to, and read: the torn event is gone, the
    /// earlier ones and the new one are there, every line parses.
    #[test]
    fn a_crash_at_any_byte_of_the_last_event_leaves_a_log_that_appends_and_reads() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("events-0.jsonl");
        let log = Log::open(&path).unwrap();
        log.push(&Event::Started { slots: 1, cores: 2 }).unwrap();
        log.push(&Event::MutantDone {
            mutant: "ADS-0001-é".into(),
            status: Status::Survived,
            note: None,
        })
        .unwrap();
        drop(log);
        let whole = std::fs::read(&path).unwrap();
        let last = whole[..whole.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        for cut in last..=whole.len() {
            std::fs::write(&path, &whole[..cut]).unwrap();
            // read as it lies: the torn event is not there
            let before = parsed(&std::fs::read(&path).unwrap());
            assert_eq!(before.len(), if cut == whole.len() { 2 } else { 1 });
            let log = Log::open(&path).unwrap();
            log.push(&Event::Started { slots: 3, cores: 3 }).unwrap();
            drop(log);
            let bytes = std::fs::read(&path).unwrap();
            assert!(bytes.ends_with(b"\n"), "cut at {cut}");
            let after = parsed(&bytes);
            assert_eq!(after.len(), before.len() + 1, "cut at {cut}");
            assert!(
                matches!(after.last(), Some(Event::Started { slots: 3, .. })),
                "cut at {cut}"
            );
            // every line whole: nothing glued to the torn bytes
            assert_eq!(
                whole_lines(&bytes).len(),
                bytes.iter().filter(|&&b| b == b'\n').count()
            );
        }
    }

    #[test]
    fn the_bytes_after_the_last_newline_are_no_line() {
        assert!(whole_lines(b"").is_empty());
        assert!(whole_lines(b"{\"a\"").is_empty());
        assert_eq!(whole_lines(b"x\ny"), [b"x"]);
        assert_eq!(whole_lines(b"x\ny\n"), [&b"x"[..], b"y"]);
        assert_eq!(whole_lines(b"\n\xc3"), [b""]);
    }
}
