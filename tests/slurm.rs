//! A campaign as a real Slurm job array (issue 11): runs where
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
