//! Base edits in a campaign (docs/design/campaigns.md §5, base edits), on
//! the STAND-IN for gem5 with the invented protocol Toyco
//! (tests/data/slicc/toyco) in its tree: `mutate init --base-edits` makes
//! the mutants from the edited files, keeps the edit file and its diff, and
//! every slot holds the user's changes and the edits, once, also after a
//! resume and a `mutate add`.

mod common;
#[allow(dead_code)] // the campaign tests use the rest
mod stand_in;

use std::process::Command;

use memconform::mutate::campaign::{Campaign, State, Status};
use memconform::mutate::{mutant_id, sha256_hex};
use stand_in::{fresh, run_all};

const PROTO: &str = "src/mem/ruby/protocol";
const EDITS: &str = "// every hit drops the line after it\n\
                     in L1Cache, with h_hit without i_drop:\n    add i_drop after h_hit;\n";

/// `memconform ARGS`: exit code, standard output, standard error.
fn memconform(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The TDA mutant deleting `action` from the Toyco cache's `header`.
fn tda(header: &str, action: &str) -> String {
    mutant_id(&format!("Toyco-cache.sm::{header}::{action}::TDA"))
}

#[test]
fn a_campaign_base_carries_its_edits_once_in_every_slot() {
    let (base, root) = fresh("base-edits");
    let data = stand_in::repo().join("tests/data/slicc/toyco");
    for f in ["Toyco.slicc", "Toyco-cache.sm", "Toyco-dir.sm"] {
        std::fs::copy(data.join(f), root.join(PROTO).join(f)).unwrap();
    }
    stand_in::sh(
        &root,
        "git add -A && git -c user.name=t -c user.email=t@t commit -qm toyco",
    );
    // an uncommitted change of the user's, in the file the edits change too
    let cache = root.join(PROTO).join("Toyco-cache.sm");
    let committed = std::fs::read_to_string(&cache).unwrap();
    let local = committed.replacen("// Toyco's cache", "// Toyco's cache, locally changed,", 1);
    assert_ne!(local, committed);
    std::fs::write(&cache, &local).unwrap();
    let edits = base.join("toyco.edits");
    std::fs::write(&edits, EDITS).unwrap();
    // the mutant deleting an action the edits added
    let added = tda("transition(IS,Data,S)", "i_drop");
    let camp = base.join("campaign");
    let camp_s = camp.to_string_lossy().into_owned();
    let root_s = root.to_string_lossy().into_owned();
    let init = |edits: &str, dir: &str, only: &str| {
        memconform(&[
            "mutate",
            "init",
            dir,
            "--gem5-root",
            &root_s,
            "--protocol",
            "Toyco",
            "--build",
            "sh build.sh",
            "--gem5",
            "build/TOY/gem5.opt",
            "--run",
            "{gem5} -d {outdir} --seed {seed}",
            "--seeds",
            "1,2",
            "--models",
            "cc,sc",
            "--run-timeout",
            "5",
            "--no-coverage",
            "--only",
            only,
            "--base-edits",
            edits,
            // the slot must hold the user's change and the edits, or no build
            "--precheck",
            "grep -q 'locally changed' src/mem/ruby/protocol/Toyco-cache.sm && \
             grep -q 'h_hit; i_drop;' src/mem/ruby/protocol/Toyco-cache.sm",
        ])
    };
    // a bad entry: its file:line:col, and no campaign
    let bad = base.join("bad.edits");
    std::fs::write(
        &bad,
        "in L1Cache, with h_hit without i_drop:\n  add i_drop after z_stall;\n",
    )
    .unwrap();
    let (code, _, err) = init(&bad.to_string_lossy(), &camp_s, &added);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.edits:1:1: `in L1Cache, with h_hit without i_drop: add i_drop after z_stall;`: transition(IS, Data, S) (src/mem/ruby/protocol/Toyco-cache.sm:57) does not run z_stall"), "{err}");
    assert!(!camp.exists());
    // without the edits, the mutant does not exist
    let (code, _, err) = memconform(&[
        "mutate",
        "init",
        &camp_s,
        "--gem5-root",
        &root_s,
        "--protocol",
        "Toyco",
        "--build",
        "true",
        "--gem5",
        "g",
        "--run",
        "true",
        "--only",
        &added,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("no mutant with id {added}")), "{err}");

    let (code, _, err) = init(&edits.to_string_lossy(), &camp_s, &added);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("changed 4 transitions"), "{err}");
    // the user's tree is not written
    assert_eq!(std::fs::read_to_string(&cache).unwrap(), local);
    // the campaign keeps the edit file and the diff the edits made of the
    // user's file (with the user's change in it)
    assert_eq!(
        std::fs::read_to_string(camp.join("base.edits")).unwrap(),
        EDITS
    );
    let diff = std::fs::read_to_string(camp.join("base-edits.patch")).unwrap();
    assert!(
        diff.starts_with(&format!("--- a/{PROTO}/Toyco-cache.sm\n")),
        "{diff}"
    );
    assert_eq!(diff.matches("\n+  transition").count(), 4, "{diff}");
    assert!(
        diff.contains("+  transition(IS, Data, S) { h_hit; i_drop; }\n"),
        "{diff}"
    );
    let edited = memconform::mutate::patch::apply_diff("f", &local, &diff).unwrap();
    let c = Campaign::open(&camp).unwrap();
    assert_eq!(c.mutants.len(), 1);
    assert_eq!(c.mutants[0].base_sha256, sha256_hex(edited.as_bytes()));
    // status and report show the edits
    let (code, out, err) = memconform(&["mutate", "status", &camp_s]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("base edits (base.edits):\n  in L1Cache, with h_hit without i_drop: add i_drop after h_hit;\n"),
        "{out}"
    );
    // the slot: checkout, the user's change, the edits; the precheck passes
    assert_eq!(run_all(&c), 1);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&added], Status::Survived, "{:?}", s.status);
    let text = memconform::mutate::report::write_all(&s).unwrap();
    assert!(text.contains("base edits: 1 entries (base.edits; their diff: base-edits.patch)\n  in L1Cache, with h_hit without i_drop: add i_drop after h_hit;\n"), "{text}");
    // a mutant added later is made from the edited files too; the slot is
    // reset to the base again, the edits applied once more (not twice)
    let later = tda("transition({S,M},Load)", "i_drop");
    let (code, _, err) = memconform(&["mutate", "add", &camp_s, "--only", &later]);
    assert_eq!(code, 0, "{err}");
    let c = Campaign::open(&camp).unwrap();
    assert_eq!(run_all(&c), 1);
    let s = State::of(&c).unwrap();
    assert_eq!(s.status[&later], Status::Survived, "{:?}", s.status);
    let _ = std::fs::remove_dir_all(&base);
}

/// Toyco (tests/data/slicc/toyco) in a scratch directory, its cache given
/// a function of three body lines and one calling it (memconform's reader
/// skips function bodies; nothing here compiles them).
fn toyco_with_function(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("memconform-body-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let data = stand_in::repo().join("tests/data/slicc/toyco");
    for f in ["Toyco.slicc", "Toyco-dir.sm"] {
        std::fs::copy(data.join(f), d.join(f)).unwrap();
    }
    let cache = std::fs::read_to_string(data.join("Toyco-cache.sm")).unwrap();
    let at = cache.find("  action(a_getS").unwrap();
    // and a function that calls it (a call is no definition)
    let function = "  int countIt(Addr addr, int n) {\n    n := n + 1;\n    return n;\n  }\n\n  \
                    int twice(Addr addr, int n) { return countIt(addr, countIt(addr, n)); }\n\n";
    let cache = format!("{}{function}{}", &cache[..at], &cache[at..]);
    std::fs::write(d.join("Toyco-cache.sm"), cache).unwrap();
    d
}

/// `function NAME: body { ... }` replaces the one definition's body, in as
/// many lines as before (padded, or its last lines joined), so the file's
/// line numbers stay; calls are not definitions; errors name the entry.
#[test]
fn a_function_body_is_replaced_in_its_lines() {
    use memconform::mutate::base_edits;
    let d = toyco_with_function("replace");
    let original = std::fs::read_to_string(d.join("Toyco-cache.sm")).unwrap();
    let lines = original.lines().count();
    for (body, shows) in [
        // fewer lines: padded
        (
            "{ return n; }",
            "  int countIt(Addr addr, int n) { return n; \n\n\n}",
        ),
        // more lines: the last ones joined
        (
            "{\n    n := n + 1;\n    n := n + 2;\n    n := n + 3;\n    return n;\n  }",
            "    n := n + 1;\n    n := n + 2;\n    n := n + 3; return n; }",
        ),
    ] {
        let text = format!("in L1Cache, function countIt: body {body};\n");
        let edits = base_edits::parse("f.edits", &text).unwrap();
        let (p, applied) = base_edits::load_protocol(&d, "Toyco", Some(&edits)).unwrap();
        let applied = applied.unwrap();
        let cache = p.files.iter().find(|f| f.name == "Toyco-cache.sm").unwrap();
        assert_eq!(cache.text.lines().count(), lines);
        assert!(cache.text.contains(shows), "{}", cache.text);
        assert!(
            applied.changes[0].1[0].ends_with("Toyco-cache.sm:27 function countIt"),
            "{:?}",
            applied.changes
        );
        assert!(
            applied.diff.contains("-    n := n + 1;\n")
                || applied.diff.contains("+    n := n + 2;")
        );
    }
    let err = |text: &str| match base_edits::parse("f.edits", text) {
        Err(e) => e.to_string(),
        Ok(edits) => base_edits::load_protocol(&d, "Toyco", Some(&edits))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
    };
    assert!(err("in L1Cache, function nosuch: body { };\n").contains(
        "f.edits:1:1: `in L1Cache, function nosuch: body { };`: L1Cache defines no function nosuch"
    ));
    assert!(
        err("in L1Cache, function countIt: body {\n  // why\n  return 0; };\n")
            .starts_with("f.edits:1:36: a body holds no comments"),
        "{}",
        err("in L1Cache, function countIt: body {\n  // why\n  return 0; };\n")
    );
    assert!(
        err("in L1Cache, function countIt: add h_hit after i_drop;\n")
            .contains("expected `body { ... }`")
    );
    assert!(err("in L1Cache, with h_hit: body { };\n")
        .contains("expected `add ACTION after ACTION`, `remove ACTION` or `add state STATE`"));
    assert!(
        err("in L1Cache, function countIt: body { return n;\n").contains("a `{` without its `}`")
    );
}

/// `mutate apply-edits` of the repository's edit file `edits` on a copy of
/// gem5's SLICC tree (under a scratch directory named `name`): the copy's
/// root and what the command printed.
fn apply_to_amd_copy(
    gem5: &std::path::Path,
    name: &str,
    edits: &str,
) -> (std::path::PathBuf, String) {
    let (base, _) = fresh(name);
    let root = common::slicc_tree(gem5, &base);
    let edits = stand_in::repo().join(edits);
    let (code, out, err) = memconform(&[
        "mutate",
        "apply-edits",
        &edits.to_string_lossy(),
        "--gem5-root",
        &root.to_string_lossy(),
        "--protocol",
        "MOESI_AMD_Base",
    ]);
    assert_eq!(code, 0, "{err}");
    (root, format!("{out}{err}"))
}

/// With GEM5_ROOT: the committed base of docs/campaign-moesi-amd-base-o3
/// (the eviction forwards and the functional accesses) applies to gem5's
/// MOESI_AMD_Base, and gem5's own SLICC accepts the result.
#[test]
fn gem5_the_amd_o3_base_edits_apply_and_slicc_accepts_them() {
    let Some(gem5) = std::env::var_os("GEM5_ROOT").map(std::path::PathBuf::from) else {
        println!("skipped: GEM5_ROOT is not set");
        return;
    };
    let (root, text) = apply_to_amd_copy(
        &gem5,
        "amd-base-edits",
        "docs/campaign-moesi-amd-base-o3/base.edits",
    );
    assert!(
        text.contains("MOESI_AMD_Base-CorePair.sm:320 function functionalRead"),
        "{text}"
    );
    assert!(text.contains("function functionalWrite"), "{text}");
    assert_eq!(
        common::slicc_check(&root, "MOESI_AMD_Base"),
        Some(0),
        "gem5's SLICC rejects the edited MOESI_AMD_Base"
    );
}

/// With GEM5_ROOT: the fix of docs/findings/moesi-amd-base-sf-l1i-repl
/// (`add state S_F`) applies to gem5's MOESI_AMD_Base through the CLI, says
/// which header it edited, and gem5's own SLICC accepts the result.
#[test]
fn gem5_the_s_f_fix_applies_and_slicc_accepts_it() {
    let Some(gem5) = std::env::var_os("GEM5_ROOT").map(std::path::PathBuf::from) else {
        println!("skipped: GEM5_ROOT is not set");
        return;
    };
    let (root, text) = apply_to_amd_copy(
        &gem5,
        "amd-sf-fix",
        "docs/findings/moesi-amd-base-sf-l1i-repl/fix.edits",
    );
    assert!(
        text.contains("transition({S, S_C, S_F0, S_F1}, L1I_Repl)"),
        "{text}"
    );
    let sm = std::fs::read_to_string(root.join("src/mem/ruby/protocol/MOESI_AMD_Base-CorePair.sm"))
        .unwrap();
    assert!(sm.contains("transition({S, S_C, S_F0, S_F1, S_F}, L1I_Repl)"));
    assert_eq!(
        common::slicc_check(&root, "MOESI_AMD_Base"),
        Some(0),
        "gem5's SLICC rejects the fixed MOESI_AMD_Base"
    );
}
