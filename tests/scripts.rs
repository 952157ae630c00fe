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
