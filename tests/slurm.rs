//! A campaign as a real Slurm job array (docs/design/campaigns.md §9): runs where
//! `MEMCONFORM_SLURM=1` (`.ci/slurm-up` starts a single-node Slurm and
//! `.ci/run` sets it); elsewhere it says it was skipped. The campaign is
//! the stand-in one of tests/campaign.rs (a stand-in for gem5 replaying
//! bundled real runs): its kill matrix from an array of 4 tasks and a merge
//! job equals the one of the same campaign run on this machine, and a lost
//! shard is resubmitted alone by `--resume`.

mod stand_in;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use memconform::mutate::campaign::{Campaign, State};
use memconform::mutate::slurm::{self, SlurmOptions};
use stand_in::{four_mutants, fresh, run_all, settings};

/// The kill matrix without its timing columns.
fn matrix(dir: &Path) -> Vec<Vec<String>> {
    let c = Campaign::open(dir).unwrap();
    let s = State::of(&c).unwrap();
    let mut bytes = Vec::new();
    memconform::mutate::report::write_kill_matrix(&mut bytes, &s).unwrap();
    let mut r = csv::Reader::from_reader(&bytes[..]);
    let head = r.headers().unwrap().clone();
    let keep: Vec<usize> = (0..head.len())
        .filter(|&i| !head[i].ends_with("_s"))
        .collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            keep.iter().map(|&i| rec[i].to_string()).collect()
        })
        .collect()
}

/// Waits until Slurm no longer knows job `id` (done), at most 10 minutes.
fn wait_for(id: &str) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(600) {
        let o = Command::new("squeue")
            .args(["-h", "-j", id])
            .output()
            .unwrap();
        if String::from_utf8_lossy(&o.stdout).trim().is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("job {id} still queued after 10 minutes");
}

#[test]
fn a_campaign_as_a_slurm_array_equals_the_local_run_and_resumes_a_lost_shard() {
    if std::env::var("MEMCONFORM_SLURM").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set MEMCONFORM_SLURM=1 with a Slurm running (.ci/slurm-up starts a single-node one; .ci/run does)"
        );
        return;
    }
    let (base, root) = fresh("slurm");
    let mutants = four_mutants(&root);
    // on this machine
    let local = base.join("local");
    let c = Campaign::init(&local, settings(&root), mutants.clone()).unwrap();
    run_all(&c);

    // as an array of 4 tasks, 2 at a time, and the merge job
    let array = base.join("array");
    let c = Campaign::init(&array, settings(&root), mutants.clone()).unwrap();
    let mut so = SlurmOptions {
        shards: 4,
        throttle: Some(2),
        partition: None,
        time: None,
        cpus_per_task: 1,
        resume: false,
        max_array_size: 1001,
        memconform: env!("CARGO_BIN_EXE_memconform").into(),
        sbatch: "sbatch".into(),
    };
    let s = slurm::submit(&c, &so).unwrap();
    assert_eq!(s.shards, vec![0, 1, 2, 3]);
    wait_for(&s.merge);
    assert!(
        array.join("kill-matrix.csv").is_file(),
        "the merge job wrote the reports"
    );
    for k in 0..4 {
        assert!(
            array.join(format!("events-{k}.jsonl")).is_file(),
            "shard {k} ran"
        );
    }
    assert_eq!(matrix(&array), matrix(&local));

    // a shard's log lost (a failed node): --resume submits that shard alone
    let lost = (0..4)
        .find(|k| !c.shard(*k, 4).is_empty())
        .expect("a shard with a mutant");
    std::fs::remove_file(array.join(format!("events-{lost}.jsonl"))).unwrap();
    so.resume = true;
    let s = slurm::submit(&c, &so).unwrap();
    assert_eq!(s.shards, vec![lost]);
    wait_for(&s.merge);
    assert_eq!(matrix(&array), matrix(&local));
    let _ = std::fs::remove_dir_all(&base);
}

/// The generated scripts quote every path (docs/design/campaigns.md §9). A campaign
/// directory with a space, quotes and a `%` in its name: both scripts pass
/// `sh -n`; a stand-in `sbatch` runs them under `sh` as Slurm would (task
/// 0), and a stand-in `memconform` (itself at a path with a space) records
/// the arguments it gets, which must be the directory exactly; `--output`
/// reaches sbatch on its command line (a `%` of the name doubled, as
/// Slurm's file patterns read it), and no `#SBATCH` line holds the name.
/// Runs without Slurm.
#[test]
fn the_slurm_scripts_quote_every_path_and_run_under_sh() {
    let (base, root) = fresh("slurm-quote");
    let dir = base.join("camp 'a' \"b\" 50%");
    let c = Campaign::init(&dir, settings(&root), four_mutants(&root)).unwrap();
    let canonical = dir.canonicalize().unwrap();
    let dir_s = canonical.to_str().unwrap();
    let tools = base.join("my tools");
    std::fs::create_dir_all(&tools).unwrap();
    let record = base.join("memconform-args.txt");
    let fake = tools.join("memconform");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '{}'\necho --- >> '{}'\n",
            record.display(),
            record.display()
        ),
    )
    .unwrap();
    let sbatch_record = base.join("sbatch-args.txt");
    let sbatch = tools.join("sbatch");
    std::fs::write(
        &sbatch,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; last=\"$a\"; done >> '{rec}'\n\
             echo --- >> '{rec}'\n\
             sh -n \"$last\" || exit 3\n\
             SLURM_ARRAY_TASK_ID=0 sh \"$last\" || exit 4\n\
             echo 42\n",
            rec = sbatch_record.display()
        ),
    )
    .unwrap();
    for f in [&fake, &sbatch] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let so = SlurmOptions {
        shards: 2,
        throttle: None,
        partition: None,
        time: None,
        cpus_per_task: 1,
        resume: false,
        max_array_size: 1001,
        memconform: fake.clone(),
        sbatch: sbatch.to_str().unwrap().into(),
    };
    let s = slurm::submit(&c, &so).unwrap();
    assert_eq!(s.merge, "42");
    for script in ["array.sh", "merge.sh"] {
        let path = dir.join("slurm").join(script);
        let ok = Command::new("sh").arg("-n").arg(&path).status().unwrap();
        assert!(ok.success(), "{script}");
        let text = std::fs::read_to_string(&path).unwrap();
        for l in text.lines().filter(|l| l.starts_with("#SBATCH")) {
            assert!(!l.contains("camp"), "{script}: {l}");
        }
    }
    // what memconform got from the scripts, word for word
    let got = std::fs::read_to_string(&record).unwrap();
    let calls: Vec<Vec<&str>> = got
        .split("---\n")
        .filter(|c| !c.is_empty())
        .map(|c| c.lines().collect())
        .collect();
    assert_eq!(calls.len(), 2, "{got}");
    assert_eq!(
        calls[0][..5],
        ["mutate", "run", dir_s, "--shard", "0/2"],
        "{got}"
    );
    assert_eq!(calls[0][5], "--slot-dir", "{got}");
    assert_eq!(calls[1], ["mutate", "report", dir_s], "{got}");
    // what sbatch got: the output files in the campaign, exactly
    let args = std::fs::read_to_string(&sbatch_record).unwrap();
    let escaped = dir_s.replace('%', "%%");
    assert!(
        args.lines()
            .any(|l| l == format!("--output={escaped}/slurm/%A_%a.out")),
        "{args}"
    );
    assert!(
        args.lines()
            .any(|l| l == format!("--output={escaped}/slurm/merge-%j.out")),
        "{args}"
    );
    let _ = std::fs::remove_dir_all(&base);
}
