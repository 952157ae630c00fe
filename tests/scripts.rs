//! The paper-table scripts under scripts/, on the campaigns bundled under
//! docs/ (real gem5 runs): what they print is what the campaigns' own
//! reports say. They need python3 and bash; a machine without python3
//! skips, saying so.

mod common;

use std::process::Command;

use common::{root, temp_dir};

fn have_python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The MI_example campaign's 6 violating histories (its report: 6 kills by
/// memconform, each `WriteCOInitRead`, which breaks CC and every stronger
/// model) are all caught by CC; the O3 campaign's count only its TSO
/// violations (SC violations of O3 runs are legal store buffering).
#[test]
fn violation_shares_follow_the_campaigns() {
    if !have_python() {
        println!("skipped: python3 is missing");
        return;
    }
    let out = temp_dir("scripts", "shares");
    let status = Command::new("bash")
        .arg(root().join("scripts/violation-shares.sh"))
        .arg(&out)
        .arg(root().join("docs/campaign-mi-example"))
        .arg(root().join("docs/campaign-mesi-o3"))
        .status()
        .unwrap();
    assert!(status.success());
    let md = std::fs::read_to_string(out.join("shares.md")).unwrap();
    let mi = md
        .lines()
        .find(|l| l.starts_with("| campaign-mi-example |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        mi.starts_with("| campaign-mi-example | 6 of 34 | 6 (100%) |"),
        "{mi}"
    );
    let o3 = md
        .lines()
        .find(|l| l.starts_with("| campaign-mesi-o3 |"))
        .unwrap_or_else(|| panic!("{md}"));
    // every counted history violates TSO, the model the runs promise
    let cells: Vec<&str> = o3.split('|').map(str::trim).collect();
    let counted: usize = cells[2].split(' ').next().unwrap().parse().unwrap();
    assert!(counted > 0, "{o3}");
    assert_eq!(cells[10], format!("{counted} (100%)"), "TSO column: {o3}");
    let csv = std::fs::read_to_string(out.join("shares.csv")).unwrap();
    assert!(csv.starts_with("campaign,model,violating_histories,caught\n"));
    assert_eq!(csv.lines().count(), 1 + 2 * 9);
    let _ = std::fs::remove_dir_all(&out);
}

/// The cross-protocol table agrees with each campaign's own report (the
/// Rust `mutate report`, written when the campaign ran): killed, survived,
/// timeout, no coverage and memconform-only kills per campaign; a rerun of
/// the same mutants adds nothing to the per-operator rows.
#[test]
fn cross_protocol_table_follows_the_campaign_reports() {
    if !have_python() {
        println!("skipped: python3 is missing");
        return;
    }
    let out = temp_dir("scripts", "cross");
    let status = Command::new("bash")
        .arg(root().join("scripts/cross-protocol.sh"))
        .arg(&out)
        .arg(root().join("docs/campaign-mi-example"))
        .arg(root().join("docs/campaign-mesi-o3"))
        .arg(root().join("docs/campaign-mesi-o3/kill-matrix-strip.csv"))
        .arg(root().join("docs/campaign-x86-mesi"))
        .arg(root().join("docs/campaign-moesi-hammer-o3"))
        .arg(root().join("docs/campaign-moesi-hammer-tester"))
        .arg(root().join("docs/campaign-x86-moesi-hammer"))
        .arg(root().join("docs/campaign-moesi-amd-base-tester"))
        .arg(root().join("docs/campaign-moesi-amd-base-o3"))
        .arg(root().join("docs/campaign-x86-moesi-amd-base"))
        .arg(root().join("docs/campaign-chi-o3"))
        .status()
        .unwrap();
    assert!(status.success());
    let md = std::fs::read_to_string(out.join("cross-protocol.md")).unwrap();
    for (campaign, report) in [
        ("campaign-mi-example", "docs/campaign-mi-example/report.txt"),
        ("campaign-mesi-o3", "docs/campaign-mesi-o3/report.txt"),
        ("campaign-x86-mesi", "docs/campaign-x86-mesi/report.txt"),
        (
            "campaign-mesi-o3-strip",
            "docs/campaign-mesi-o3/report-strip.txt",
        ),
        (
            "campaign-moesi-hammer-o3",
            "docs/campaign-moesi-hammer-o3/report.txt",
        ),
        (
            "campaign-moesi-hammer-tester",
            "docs/campaign-moesi-hammer-tester/report.txt",
        ),
        (
            "campaign-x86-moesi-hammer",
            "docs/campaign-x86-moesi-hammer/report.txt",
        ),
        (
            "campaign-moesi-amd-base-tester",
            "docs/campaign-moesi-amd-base-tester/report.txt",
        ),
        (
            "campaign-moesi-amd-base-o3",
            "docs/campaign-moesi-amd-base-o3/report.txt",
        ),
        (
            "campaign-x86-moesi-amd-base",
            "docs/campaign-x86-moesi-amd-base/report.txt",
        ),
        ("campaign-chi-o3", "docs/campaign-chi-o3/report.txt"),
    ] {
        let report = std::fs::read_to_string(root().join(report)).unwrap();
        // "summary: killed 23, survived 7, timeout 1, unviable 0, unknown 0, no coverage 9; ..."
        let summary = report.lines().find(|l| l.starts_with("summary:")).unwrap();
        let count = |what: &str| -> String {
            let at = summary
                .find(what)
                .unwrap_or_else(|| panic!("{what}: {summary}"))
                + what.len();
            summary[at..]
                .trim_start()
                .split([',', ';'])
                .next()
                .unwrap()
                .to_string()
        };
        let only = report
            .lines()
            .find(|l| l.trim_start().starts_with("memconform only"))
            .and_then(|l| l.split_whitespace().nth(2))
            .unwrap()
            .to_string();
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {campaign} |")))
            .unwrap_or_else(|| panic!("{campaign}: {md}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(
            (cells[4], cells[5], cells[6], cells[7], cells[10]),
            (
                count("killed").as_str(),
                count("survived").as_str(),
                count("timeout").as_str(),
                count("no coverage").as_str(),
                only.as_str()
            ),
            "{row}\n{summary}"
        );
        // a campaign with stimuli says how many no stimulus reached
        let unreached = if summary.contains("unreached") {
            count("unreached")
        } else {
            "0".to_string()
        };
        assert_eq!(cells[8], unreached, "{row}\n{summary}");
        // "seeds to kill:  ≤1: 92%  ..." against "11 of 12" killed by the first run
        let first = report
            .lines()
            .find_map(|l| l.strip_prefix("seeds to kill:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap()
            .trim_end_matches('%')
            .parse::<f64>()
            .unwrap();
        let (k, n) = cells[11].split_once(" of ").unwrap();
        let share = 100.0 * k.parse::<f64>().unwrap() / n.parse::<f64>().unwrap();
        assert_eq!(share.round(), first, "{row}");
    }
    // each MOESI protocol's campaigns (O3 client, Ruby tester, directed
    // stimulus) share mutants: a mutant is killed for the protocol when any
    // killed it, once
    let protocols: [(&str, &[&str]); 2] = [
        (
            "MOESI_hammer",
            &[
                "campaign-moesi-hammer-o3",
                "campaign-moesi-hammer-tester",
                "campaign-x86-moesi-hammer",
            ],
        ),
        (
            "MOESI_AMD_Base",
            &[
                "campaign-moesi-amd-base-o3",
                "campaign-moesi-amd-base-tester",
                "campaign-x86-moesi-amd-base",
            ],
        ),
    ];
    for (protocol, campaigns) in protocols {
        let mut killed = std::collections::BTreeSet::new();
        let mut all = std::collections::BTreeSet::new();
        for c in campaigns {
            let path = root().join("docs").join(c).join("kill-matrix.csv");
            let mut r = csv::Reader::from_path(&path).unwrap();
            for row in r.deserialize::<std::collections::HashMap<String, String>>() {
                let row = row.unwrap();
                all.insert(row["mutant_id"].clone());
                if row["status"] == "killed" {
                    killed.insert(row["mutant_id"].clone());
                }
            }
        }
        let rows: Vec<Vec<&str>> = md
            .lines()
            .filter(|l| l.starts_with(&format!("| {protocol} | ")) && l.split('|').count() == 11)
            .map(|l| l.split('|').map(str::trim).collect())
            .collect();
        let sum =
            |col: usize| -> usize { rows.iter().map(|c| c[col].parse::<usize>().unwrap()).sum() };
        assert_eq!((sum(3), sum(4)), (all.len(), killed.len()), "{rows:?}");
        let detectors: usize = md
            .lines()
            .filter(|l| {
                l.starts_with(&format!("| {protocol} | gem5: "))
                    || l.starts_with(&format!("| {protocol} | memconform only"))
            })
            .map(|l| {
                l.split('|')
                    .nth(3)
                    .unwrap()
                    .trim()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        assert_eq!(detectors, killed.len(), "{protocol}");
    }
    // the rerun's 40 mutants are the first run's: each counted once per
    // operator, with the directed-stimulus campaign's (mutants both share
    // once, killed if either killed it)
    let (mut all, mut killed) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for c in ["campaign-mesi-o3", "campaign-x86-mesi"] {
        let path = root().join("docs").join(c).join("kill-matrix.csv");
        let mut r = csv::Reader::from_path(&path).unwrap();
        for row in r.deserialize::<std::collections::HashMap<String, String>>() {
            let row = row.unwrap();
            if row["op"] == "TDA" {
                all.insert(row["mutant_id"].clone());
                if row["status"] == "killed" {
                    killed.insert(row["mutant_id"].clone());
                }
            }
        }
    }
    let tda = md
        .lines()
        .find(|l| l.starts_with("| MESI_Two_Level | TDA |"))
        .unwrap();
    assert!(
        tda.starts_with(&format!(
            "| MESI_Two_Level | TDA | {} | {} |",
            all.len(),
            killed.len()
        )),
        "{tda}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The rows of a results CSV, each as its fields but `time_ms` (the only
/// column that depends on the machine and the moment).
fn rows_but_time(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let time = header
        .iter()
        .position(|h| h == "time_ms")
        .expect("a time_ms column");
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            rec.iter()
                .enumerate()
                .filter(|&(i, _)| i != time)
                .map(|(_, v)| v.to_string())
                .collect()
        })
        .collect();
    (header, rows)
}

/// The figures of docs/ are their committed data's (scripts/figures.sh):
/// `plot` of each CSV in docs/figures/ draws the committed SVG byte for
/// byte, and the data that can be derived again cheaply and
/// deterministically — the detection CSV from traces/ and examples/, the
/// time-vs-threads CSV from `gen` — is, but for its times, what
/// `memconform check` says today.
#[test]
fn the_figures_are_drawn_from_their_committed_data() {
    let out = temp_dir("scripts", "figures");
    let script = root().join("scripts/figures.sh");
    let bin = env!("CARGO_BIN_EXE_memconform");
    let status = Command::new("sh")
        .arg(&script)
        .arg("plot")
        .arg(out.join("svg"))
        .env("BIN", bin)
        .status()
        .unwrap();
    assert!(status.success(), "figures.sh plot failed");
    for svg in [
        "fig-detection.svg",
        "fig-time-vs-threads.svg",
        "how-big.svg",
    ] {
        let drawn = std::fs::read(out.join("svg").join(svg)).unwrap();
        let committed = std::fs::read(root().join("docs").join(svg)).unwrap();
        assert!(
            drawn == committed,
            "docs/{svg} is not what `sh scripts/figures.sh plot` draws from docs/figures/ \
             (run it, with a release build, and commit the figure)"
        );
    }
    for (figure, csv) in [
        ("detection", "detection.csv"),
        ("time-vs-threads", "time-vs-threads.csv"),
    ] {
        let status = Command::new("sh")
            .arg(&script)
            .arg("data")
            .arg(figure)
            .arg(out.join("data"))
            .env("BIN", bin)
            .status()
            .unwrap();
        assert!(status.success(), "figures.sh data {figure} failed");
        let (header, now) = rows_but_time(&out.join("data").join(csv));
        let (committed_header, committed) = rows_but_time(&root().join("docs/figures").join(csv));
        assert_eq!(header, committed_header, "docs/figures/{csv}: the columns");
        assert_eq!(now.len(), committed.len(), "docs/figures/{csv}: the rows");
        for (k, (a, b)) in now.iter().zip(&committed).enumerate() {
            assert_eq!(
                a,
                b,
                "docs/figures/{csv}, row {}: derived again it differs (run `sh \
                 scripts/figures.sh all` and commit the data and figures)",
                k + 1
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// gem5-configs/arm-litmus.sh over a stand-in gem5 (a script that writes the
/// run directory: the bundled synthetic ARM O3 run's config.ini, a
/// stats.txt and a client output): seed 1's round is #1242's outcome (both
/// acquire loads read 0 after the releases: ARMv8 broken), seed 2's is
/// allowed by ARMv8 and SC alike, each also with the DMB control's
/// `--fence dmb` (the aarch64 client's full fence, which config.ini's
/// workload names); the table counts them, and the broken row is shrunk to
/// its four operations.
#[test]
fn arm_litmus_counts_broken_rounds_per_seed() {
    if !have_python() {
        println!("skipped: python3 is missing");
        return;
    }
    let dir = temp_dir("scripts", "arm-litmus");
    let gem5 = dir.join("gem5");
    std::fs::create_dir_all(gem5.join("build/ARM")).unwrap();
    let header = "# memconform-client v2 threads=2 rounds=1 seed=S shape=sb-rel-acq \
                  place=random sharing=own-line fence=F rmw=none warm-up=on \
                  delay-chain=12 spin=32 ops=4 writes=50 isa=aarch64";
    // one round: each thread's instructions and its `.hist` view
    let round = |seed: u32, fence: &str, arm: &str, t0: &str, t1: &str| {
        format!(
            "{}\n@name client-s{seed}-r0\n@round 0\n@shape SB+REL+ACQ\n@place t0 t1\n\
             @sharing own-line\n@final x=1 y=2\n@arm t0 {arm}\n@arm t1 {arm}\n\
             t0: {t0}\nt1: {t1}\n# memconform-client end histories=1\n",
            header
                .replace("seed=S", &format!("seed={seed}"))
                .replace("fence=F", &format!("fence={fence}"))
        )
    };
    for (file, text) in [
        (
            "s1-none.out",
            round(1, "none", "STLR LDAR", "W(x,1) R(y,0)", "W(y,2) R(x,0)"),
        ),
        (
            "s2-none.out",
            round(2, "none", "STLR LDAR", "W(x,1) R(y,2)", "W(y,2) R(x,1)"),
        ),
        (
            "s1-dmb.out",
            round(
                1,
                "dmb",
                "STLR DMB.ISH LDAR",
                "W(x,1) F R(y,0)",
                "W(y,2) F R(x,0)",
            ),
        ),
        (
            "s2-dmb.out",
            round(
                2,
                "dmb",
                "STLR DMB.ISH LDAR",
                "W(x,1) F R(y,0)",
                "W(y,2) F R(x,1)",
            ),
        ),
    ] {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let config = root().join("tests/data/gem5/arm/synthetic-o3-n2/config.ini");
    // the stand-in: `gem5.opt -d RUN se.py ... --options="... --seed S ..."`
    // writes RUN as gem5 would: config.ini's workload is the client's
    // command line, so memconform takes client.out as this run's
    let script = format!(
        "#!/bin/sh\nrun=$2\nfor a in \"$@\"; do case $a in --options=*) opts=${{a#--options=}};; esac; done\n\
         seed=$(echo \"$opts\" | sed 's/.*--seed \\([0-9]*\\).*/\\1/')\n\
         fence=$(echo \"$opts\" | sed 's/.*--fence \\([a-z]*\\).*/\\1/')\n\
         mkdir -p \"$run\"\nsed \"s|^cmd=.*|cmd=client-aarch64 $opts|\" {config} > \"$run/config.ini\"\n\
         printf 'simSeconds 0.001234 # simulated\\n' > \"$run/stats.txt\"\n\
         cp {dir}/s$seed-$fence.out \"$run/client.out\"\n",
        config = config.display(),
        dir = dir.display()
    );
    let opt = gem5.join("build/ARM/gem5.opt");
    std::fs::write(&opt, script).unwrap();
    let exe = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    exe(&opt);
    let client = dir.join("client-aarch64");
    std::fs::write(&client, "#!/bin/sh\n").unwrap();
    exe(&client);
    let out = dir.join("out");
    let o = Command::new("bash")
        .arg(root().join("gem5-configs/arm-litmus.sh"))
        .arg(&out)
        .arg("1 2")
        .arg("1")
        .env("GEM5_ROOT", &gem5)
        .env("MEMCONFORM", env!("CARGO_BIN_EXE_memconform"))
        .env("CLIENT", &client)
        .env("ROWS", "relacq relacq-dmb")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let csv = std::fs::read_to_string(out.join("rates.csv")).unwrap();
    // every column but the last (wall seconds, which vary)
    let rows: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.rsplit_once(',').unwrap().0)
        .collect();
    assert_eq!(
        rows,
        [
            "relacq,ArmO3CPU,1,1,1,1,0,0,0,0.001234",
            "relacq,ArmO3CPU,2,1,1,0,0,0,1,0.001234",
            "relacq-dmb,ArmO3CPU,1,1,1,1,0,0,0,0.001234",
            "relacq-dmb,ArmO3CPU,2,1,1,0,0,0,1,0.001234"
        ],
        "{csv}"
    );
    let md = std::fs::read_to_string(out.join("rates.md")).unwrap();
    assert!(
        md.contains("| relacq | ArmO3CPU | 1 2 | 2 | 1 (50.00%) | 1/1, 0/1 | 0 | 0 | 0.0025 |"),
        "{md}"
    );
    let shrunk = std::fs::read_to_string(out.join("relacq.shrunk.hist")).unwrap();
    assert!(
        shrunk.contains("R.acq(y,0)") && shrunk.contains("W.rel(x,1)"),
        "{shrunk}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
