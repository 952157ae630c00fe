//! A campaign as a Slurm job array (docs/design/campaigns.md §9): task k runs
//! `mutate run --shard k/N` with its slot on the node's scratch and its own
//! event log (no shared writes; each task locks its own shard, `lock-K`);
//! a merge job, after all tasks (`afterany`), writes the reports. Shards
//! are a pure function of the sorted mutant ids, so tasks need no
//! coordination; `--resume` submits
//! only the shards with mutants not done. Arrays past the cluster's
//! `MaxArraySize` are split: each part's task ids start at 0 and an offset
//! in the environment names the shard.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use memconform_report::commands::shell_quote;

use super::campaign::{write_atomic, Campaign, Error, Event};

/// How the campaign is submitted.
#[derive(Debug, Clone)]
pub struct SlurmOptions {
    /// Shards: array tasks.
    pub shards: usize,
    /// At most this many tasks at once (`%M`).
    pub throttle: Option<usize>,
    pub partition: Option<String>,
    /// `--time` of a task (Slurm's format, e.g. `4:00:00`).
    pub time: Option<String>,
    pub cpus_per_task: usize,
    /// Submit only the shards with mutants not done.
    pub resume: bool,
    /// The cluster's `MaxArraySize` (task ids must stay below it).
    pub max_array_size: usize,
    /// The memconform binary the tasks run.
    pub memconform: PathBuf,
    /// The `sbatch` command.
    pub sbatch: String,
}

/// One submission, recorded in `slurm/jobs.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    /// The array jobs (one per part of at most `MaxArraySize` ids).
    pub arrays: Vec<String>,
    /// The shards submitted.
    pub shards: Vec<usize>,
    pub of: usize,
    /// The merge job.
    pub merge: String,
}

/// Whether `s` can stand in an `#SBATCH` line as it is: sbatch splits
/// those lines on blanks and reads quotes, `#` and `%` its own way.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@".contains(c))
}

/// A job name from the protocol's: what sbatch takes as one word.
fn job_name(protocol: &str) -> String {
    protocol
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The campaign directory, absolute, as the scripts name it.
fn campaign_dir(c: &Campaign) -> String {
    let dir = c.dir.canonicalize().unwrap_or_else(|_| c.dir.clone());
    dir.to_string_lossy().into_owned()
}

/// `--output` of the array's tasks: a file pattern (`%A`, `%a`; a `%` of
/// the directory's own name doubled, as Slurm reads it).
pub fn array_output(c: &Campaign) -> String {
    format!("{}/slurm/%A_%a.out", campaign_dir(c).replace('%', "%%"))
}

/// `--output` of the merge job.
pub fn merge_output(c: &Campaign) -> String {
    format!("{}/slurm/merge-%j.out", campaign_dir(c).replace('%', "%%"))
}

/// The `#SBATCH --output` line when the path can stand in one; else a
/// comment saying that `mutate slurm` gives it on sbatch's command line
/// (which it always does).
fn output_line(c: &Campaign, pattern: &str) -> String {
    if plain(&campaign_dir(c)) {
        format!("#SBATCH --output={pattern}")
    } else {
        format!(
            "# output: `mutate slurm` gives it on sbatch's command line (a path with blanks or \
             quotes cannot be an #SBATCH line): sbatch --output={}",
            shell_quote(pattern).replace('\n', "\\n")
        )
    }
}

/// The array task script: shard `SLURM_ARRAY_TASK_ID + offset` of `n`.
/// Every path reaches the shell quoted; sbatch gets `--output` on its
/// command line from [`submit`] (see [`array_output`]).
pub fn array_script(c: &Campaign, o: &SlurmOptions) -> String {
    let dir_s = campaign_dir(c);
    let tag = &crate::sha256_hex(dir_s.as_bytes())[..8];
    let mut s = String::from("#!/bin/sh\n");
    let _ = writeln!(
        s,
        "#SBATCH --job-name=memconform-{}",
        job_name(&c.settings.protocol)
    );
    let _ = writeln!(s, "{}", output_line(c, &array_output(c)));
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", o.cpus_per_task);
    if let Some(t) = &o.time {
        let _ = writeln!(s, "#SBATCH --time={t}");
    }
    if let Some(p) = &o.partition {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    let _ = writeln!(
        s,
        "# written by `memconform mutate slurm`: task k runs shard k + MEMCONFORM_SHARD_OFFSET of {n}\n\
         # with its slot (a gem5 copy) on the node's scratch and its own event log",
        n = o.shards
    );
    let _ = writeln!(
        s,
        "k=$(( ${{SLURM_ARRAY_TASK_ID:?not a Slurm array task}} + ${{MEMCONFORM_SHARD_OFFSET:-0}} ))"
    );
    let _ = writeln!(
        s,
        "exec {} mutate run {} --shard \"$k/{}\" --slot-dir \"${{TMPDIR:-/tmp}}/memconform-{tag}-$k\"",
        shell_quote(&o.memconform.to_string_lossy()),
        shell_quote(&dir_s),
        o.shards
    );
    s
}

/// The merge script: the reports, after every task.
pub fn merge_script(c: &Campaign, o: &SlurmOptions) -> String {
    format!(
        "#!/bin/sh\n#SBATCH --job-name=memconform-{}-report\n{}\n\
         # written by `memconform mutate slurm`: the reports of every shard's log\n\
         exec {} mutate report {}\n",
        job_name(&c.settings.protocol),
        output_line(c, &merge_output(c)),
        shell_quote(&o.memconform.to_string_lossy()),
        shell_quote(&campaign_dir(c))
    )
}

/// The shards with a mutant not done (all of them without `resume`).
pub fn pending_shards(c: &Campaign, n: usize, resume: bool) -> Result<Vec<usize>, Error> {
    if !resume {
        return Ok((0..n).collect());
    }
    let done: HashSet<String> = c
        .events()?
        .into_iter()
        .filter_map(|e| match e {
            Event::MutantDone { mutant, .. } => Some(mutant),
            _ => None,
        })
        .collect();
    Ok((0..n)
        .filter(|&k| c.shard(k, n).iter().any(|m| !done.contains(&m.id)))
        .collect())
}

/// Splits `shards` into array parts whose task ids stay below `max`: per
/// part, its offset and its `--array` spec (ranges, `%throttle`).
pub fn array_parts(shards: &[usize], max: usize, throttle: Option<usize>) -> Vec<(usize, String)> {
    let max = max.max(1);
    let mut parts: Vec<(usize, Vec<usize>)> = Vec::new();
    for &k in shards {
        let offset = k / max * max;
        match parts.last_mut() {
            Some((o, ids)) if *o == offset => ids.push(k - offset),
            _ => parts.push((offset, vec![k - offset])),
        }
    }
    parts
        .into_iter()
        .map(|(offset, ids)| {
            let mut spec = String::new();
            let mut i = 0;
            while i < ids.len() {
                let mut j = i;
                while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
                    j += 1;
                }
                if !spec.is_empty() {
                    spec.push(',');
                }
                if j > i {
                    let _ = write!(spec, "{}-{}", ids[i], ids[j]);
                } else {
                    let _ = write!(spec, "{}", ids[i]);
                }
                i = j + 1;
            }
            if let Some(t) = throttle {
                let _ = write!(spec, "%{t}");
            }
            (offset, spec)
        })
        .collect()
}

/// Runs `sbatch --parsable ARGS SCRIPT`; the job id.
fn sbatch(o: &SlurmOptions, args: &[String], script: &Path) -> Result<String, Error> {
    let out = Command::new(&o.sbatch)
        .arg("--parsable")
        .args(args)
        .arg(script)
        .output()
        .map_err(|e| Error(format!("cannot run {}: {e}", o.sbatch)))?;
    if !out.status.success() {
        return Err(Error(format!(
            "sbatch {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() {
        return Err(Error("sbatch printed no job id".into()));
    }
    Ok(id)
}

/// Writes the scripts and submits the arrays and the merge job.
pub fn submit(c: &Campaign, o: &SlurmOptions) -> Result<Submission, Error> {
    if o.shards == 0 {
        return Err(Error("--shards must be at least 1".into()));
    }
    let dir = c.dir.join("slurm");
    fs::create_dir_all(&dir)
        .map_err(|e| Error(format!("{}: {e}", memconform_report::shown_path(&dir))))?;
    let array = dir.join("array.sh");
    let merge = dir.join("merge.sh");
    write_atomic(&array, array_script(c, o).as_bytes())?;
    write_atomic(&merge, merge_script(c, o).as_bytes())?;
    let shards = pending_shards(c, o.shards, o.resume)?;
    let mut arrays = Vec::new();
    for (offset, spec) in array_parts(&shards, o.max_array_size, o.throttle) {
        arrays.push(sbatch(
            o,
            &[
                format!("--array={spec}"),
                format!("--export=ALL,MEMCONFORM_SHARD_OFFSET={offset}"),
                format!("--output={}", array_output(c)),
            ],
            &array,
        )?);
    }
    let mut merge_args = vec![format!("--output={}", merge_output(c))];
    if !arrays.is_empty() {
        merge_args.push(format!("--dependency=afterany:{}", arrays.join(":")));
    }
    let merge = sbatch(o, &merge_args, &merge)?;
    let s = Submission {
        arrays,
        shards,
        of: o.shards,
        merge,
    };
    let log = dir.join("jobs.jsonl");
    let mut text = fs::read_to_string(&log).unwrap_or_default();
    text.push_str(&serde_json::to_string(&s).expect("a submission serialises"));
    text.push('\n');
    write_atomic(&log, text.as_bytes())?;
    Ok(s)
}

/// The submissions made so far.
pub fn submissions(c: &Campaign) -> Vec<Submission> {
    fs::read_to_string(c.dir.join("slurm").join("jobs.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The scheduler's view of the last submission's tasks (`squeue`, then
/// `sacct` for finished ones), as `(task, state)` lines; `None` when
/// neither command is here.
pub fn task_states(c: &Campaign) -> Option<Vec<(String, String)>> {
    let s = submissions(c).pop()?;
    let ids: Vec<String> = s.arrays.iter().chain([&s.merge]).cloned().collect();
    let mut out = Vec::new();
    let mut any = false;
    if let Ok(o) = Command::new("squeue")
        .args(["-h", "-r", "-o", "%i %T", "-j", &ids.join(",")])
        .output()
    {
        any = true;
        for l in String::from_utf8_lossy(&o.stdout).lines() {
            if let Some((id, st)) = l.trim().split_once(' ') {
                out.push((id.to_string(), st.to_string()));
            }
        }
    }
    if let Ok(o) = Command::new("sacct")
        .args(["-n", "-P", "-X", "-o", "JobID,State", "-j", &ids.join(",")])
        .output()
    {
        any = true;
        for l in String::from_utf8_lossy(&o.stdout).lines() {
            if let Some((id, st)) = l.trim().split_once('|') {
                if !out.iter().any(|(i, _)| i == id) {
                    out.push((id.to_string(), st.to_string()));
                }
            }
        }
    }
    any.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_parts_stay_below_max_array_size_and_compress_ranges() {
        assert_eq!(
            array_parts(&[0, 1, 2, 3], 1001, Some(2)),
            vec![(0, "0-3%2".into())]
        );
        assert_eq!(
            array_parts(&[3, 7, 8, 9, 12], 1001, None),
            vec![(0, "3,7-9,12".into())]
        );
        // 2,500 shards with MaxArraySize 1,000: three parts, ids below 1,000
        let all: Vec<usize> = (0..2500).collect();
        assert_eq!(
            array_parts(&all, 1000, None),
            vec![
                (0, "0-999".into()),
                (1000, "0-999".into()),
                (2000, "0-499".into())
            ]
        );
        assert_eq!(
            array_parts(&[5, 1005], 1000, None),
            vec![(0, "5".into()), (1000, "5".into())]
        );
    }

    #[test]
    fn scripts_are_quoted() {
        assert_eq!(shell_quote("a b'c"), r"'a b'\''c'");
        assert!(plain("/scratch/camp-1/slurm/x.out"));
        for odd in [
            "/a b", "/a'b", "/a\"b", "/a#b", "/a%b", "/a\\b", "/a\nb", "",
        ] {
            assert!(!plain(odd), "{odd}");
        }
        assert_eq!(job_name("MESI_Two_Level"), "MESI_Two_Level");
        assert_eq!(job_name("a b#c"), "a_b_c");
    }
}
