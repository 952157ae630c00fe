//! Mutation operators and patches on the hand-written Tiny protocol: counts,
//! line preservation, stable and unique ids, patches that `git apply` and
//! `patch -p1` accept, refusals of a different base, the catalogue, the
//! command line (one mutant shown, applied and reverted too); with
//! GEM5_ROOT, the four gem5 protocols (counts, the catalogue) and SLICC's
//! own verdict on mutants.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{copy_split, split_dir, split_line};

/// A fresh temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("mutate", name)
}

use memconform::mutate::patch::{self, PatchError};
use memconform::mutate::{catalogue, generate, ops, slicc, Mutant, Options};

fn tiny_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/slicc/tiny")
}

fn all_classes() -> Options {
    Options {
        classes: vec!["all".into()],
        include_dma: true,
    }
}

/// Copies the Tiny protocol's files into `dir`.
fn copy_tiny(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(tiny_dir()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
}

/// Counts per (operator, class before any tag).
fn counts(ms: &[Mutant]) -> BTreeMap<(String, String), usize> {
    let mut c = BTreeMap::new();
    for m in ms {
        let class = m.class.split('+').next().unwrap().to_string();
        *c.entry((m.op.clone(), class)).or_insert(0) += 1;
    }
    c
}

#[test]
fn tiny_counts_per_operator_and_class() {
    let ms = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let c = counts(&ms);
    let got = |op: &str, class: &str| c.get(&(op.into(), class.into())).copied().unwrap_or(0);
    // TDA: one per action of every transition; pops are liveness, profiling
    // is equivalent, the stall actions belong to STD
    let tda: usize = ["tier1", "liveness", "equivalent"]
        .iter()
        .map(|k| got("TDA", k))
        .sum();
    assert_eq!(tda, 44, "{c:?}");
    assert_eq!(
        (
            got("TDA", "tier1"),
            got("TDA", "liveness"),
            got("TDA", "equivalent")
        ),
        (27, 15, 2)
    );
    assert_eq!(got("STD", "liveness"), 3); // z_stall, stall_and_wait, recycle
                                           // TSW: adjacent pairs; a conflict makes it tier1, a pop before a peek or
                                           // a use before an allocation makes it crash
    assert_eq!(
        (
            got("TSW", "tier1"),
            got("TSW", "crash"),
            got("TSW", "equivalent")
        ),
        (3, 6, 20)
    );
    assert_eq!(got("TNS-stay", "tier1"), 7);
    assert_eq!(got("TNS-sibling", "tier2"), 8);
    assert_eq!(
        (
            got("ADS", "tier1"),
            got("ADS", "liveness"),
            got("ADS", "crash"),
            got("ADS", "equivalent")
        ),
        (71, 7, 1, 22)
    );
    assert_eq!(got("MTR", "tier1"), 5); // GET<->PUT in the cache, FWD<->WB_ACK in the directory
    assert_eq!((got("BFL", "tier1"), got("BFL", "equivalent")), (4, 1));
    assert_eq!(got("ERT", "tier1"), 2);
    assert_eq!(got("CNG", "tier2"), 5);
    // the default: tier 1 without the DMA controller
    let default = generate(&tiny_dir(), "Tiny", &Options::default()).unwrap();
    assert!(default.iter().all(|m| m.class.starts_with("tier1")));
    assert!(default.iter().all(|m| !m.file.contains("dma")));
    let tier1_all = ms.iter().filter(|m| m.class.starts_with("tier1")).count();
    assert_eq!(default.len(), tier1_all);
    // the O3-only code is tagged
    let o3: Vec<&str> = default
        .iter()
        .filter(|m| m.class == "tier1+needs:o3")
        .map(|m| m.descriptor.as_str())
        .collect();
    assert_eq!(o3.len(), 3, "{o3:?}");
    assert!(
        o3.contains(&"Tiny-cache.sm::transition({M},{Replacement,Fwd},MI)::f_forwardEviction::TDA")
    );
}

#[test]
fn specific_sites_get_the_classes_of_the_design() {
    let ms = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let class = |d: &str| {
        ms.iter()
            .find(|m| m.descriptor == d)
            .unwrap_or_else(|| panic!("no {d}"))
            .class
            .clone()
    };
    let cache = "Tiny-cache.sm::";
    // the fill and the store hit both write the block: a real swap
    assert_eq!(
        class(&format!(
            "{cache}transition(IM,Data,M)::u_writeData<->s_storeHit::TSW"
        )),
        "tier1"
    );
    // popping before the peek
    assert_eq!(
        class(&format!(
            "{cache}transition(MI,Fwd)::e_sendData<->o_popForwardQueue::TSW"
        )),
        "crash"
    );
    // using the TBE before allocating it
    assert_eq!(
        class(&format!(
            "{cache}transition({{M}},{{Replacement,Fwd}},MI)::v_allocateTBE<->x_copyToTBE::TSW"
        )),
        "crash"
    );
    // a wakeup may put an older message at the head of a queue
    assert_eq!(
        class(&format!(
            "{cache}transition(IM,Data,M)::n_popResponseQueue<->k_wakeUp::TSW"
        )),
        "tier1"
    );
    // independent actions
    assert_eq!(
        class(&format!(
            "{cache}transition(I,Load,IM)::v_allocateTBE<->i_allocateBlock::TSW"
        )),
        "equivalent"
    );
    // profiling only
    assert_eq!(
        class(&format!("{cache}transition(I,Load,IM)::p_profileMiss::TDA")),
        "equivalent"
    );
    // deleting a pop deadlocks
    assert_eq!(
        class(&format!(
            "{cache}transition(I,Load,IM)::m_popMandatoryQueue::TDA"
        )),
        "liveness"
    );
    // the second of two identical assignments, an unused action
    let key = |text: &str, occ| ops::statement_key("assign", text, occ);
    assert_eq!(
        class(&format!(
            "{cache}action(s_storeHit)::{}::ADS",
            key("cache_entry.Dirty:=true;", 1)
        )),
        "equivalent"
    );
    assert_eq!(
        class(&format!(
            "{cache}action(s_storeHit)::{}::ADS",
            key("cache_entry.Dirty:=true;", 0)
        )),
        "tier1"
    );
    assert_eq!(
        class(&format!(
            "{cache}action(q_unused)::{}::ADS",
            key("tbe.Dirty:=false;", 0)
        )),
        "equivalent"
    );
    // deleting check_allocate
    assert_eq!(
        class(&format!(
            "{cache}action(v_allocateTBE)::{}::ADS",
            ops::statement_key("check_allocate", "check_allocate(TBEs);", 0)
        )),
        "crash"
    );
    // no declaration that a later statement uses is ever deleted
    let decl = |text: &str| {
        format!(
            "{cache}action(x_copyToTBE)::{}::ADS",
            ops::statement_key("decl", text, 0)
        )
    };
    assert!(!ms
        .iter()
        .any(|m| m.descriptor == decl("DataBlockdata:=cache_entry.DataBlk;")));
    assert!(!ms
        .iter()
        .any(|m| m.descriptor == decl("booldirty:=cache_entry.Dirty;")));
    assert_eq!(class(&decl("intspare:=0;")), "tier1");
    // z_stall transitions: only STD
    assert!(!ms
        .iter()
        .any(|m| m.descriptor.contains("transition({IM,MI},{Load,Store})") && m.op != "STD"));
}

#[test]
fn mutants_keep_every_line_and_still_parse() {
    let p = slicc::load_protocol(&tiny_dir(), "Tiny").unwrap();
    let ms = ops::generate_from(&p, &all_classes()).unwrap();
    assert!(ms.len() > 150);
    for m in &ms {
        let f = p.files.iter().find(|f| f.rel_path == m.file).unwrap();
        let mutated =
            patch::mutated_text(&f.text, m).unwrap_or_else(|e| panic!("{}: {e}", m.descriptor));
        assert_ne!(mutated, f.text, "{}", m.descriptor);
        assert_eq!(
            mutated.lines().count(),
            f.text.lines().count(),
            "{}",
            m.descriptor
        );
        // the edit starts on the mutant's line, and nothing before it moved
        let first_diff = f
            .text
            .lines()
            .zip(mutated.lines())
            .position(|(a, b)| a != b)
            .unwrap();
        assert_eq!(first_diff + 1, m.line, "{}", m.descriptor);
        slicc::parse_sm(&f.name, &f.rel_path, mutated.clone())
            .unwrap_or_else(|e| panic!("{} does not parse: {e}\n{}", m.descriptor, m.patch));
        assert!(m.patch.starts_with(&format!(
            "memconform-mutant: {}\nsite: {}\nbase-sha256: {}\n--- a/{}\n+++ b/{}\n@@ -",
            m.id, m.descriptor, m.base_sha256, m.file, m.file
        )));
    }
}

#[test]
fn deletions_comment_whole_lines_and_edit_partial_lines_in_place() {
    let ms = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let patch_of = |d: &str| ms.iter().find(|m| m.descriptor == d).unwrap().patch.clone();
    let p = patch_of("Tiny-cache.sm::transition({M},{Replacement,Fwd},MI)::x_copyToTBE::TDA");
    assert!(
        p.contains("\n-    x_copyToTBE;\n+    // [mutant] x_copyToTBE;\n"),
        "{p}"
    );
    let p = patch_of("Tiny-cache.sm::transition(I,Store,IM)::i_allocateBlock::TDA");
    assert!(
        p.contains("\n-    v_allocateTBE; i_allocateBlock; a_issueGet; m_popMandatoryQueue;\n+    v_allocateTBE;  a_issueGet; m_popMandatoryQueue;\n"),
        "{p}"
    );
    let p = patch_of("Tiny-cache.sm::transition(I,Fwd)::o_popForwardQueue::TDA");
    assert!(p.contains("\n+  transition(I, Fwd) {}\n"), "{p}");
    let p = patch_of("Tiny-cache.sm::transition({M},{Replacement,Fwd},MI)::MI->stay::TNS-stay");
    assert!(p.contains("\n-  transition({M}, {Replacement, Fwd},\n-             MI) {\n+  transition({M}, {Replacement, Fwd}\n+) {\n"), "{p}");
    let p = patch_of("Tiny-cache.sm::transition(IM,Data,M)::u_writeData<->s_storeHit::TSW");
    assert!(
        p.contains("\n-    u_writeData;\n-    s_storeHit;\n+    s_storeHit;\n+    u_writeData;\n"),
        "{p}"
    );
    // a whole enqueue block, every line commented
    let d = format!(
        "Tiny-cache.sm::action(a_issueGet)::{}::ADS",
        ops::statement_key(
            "enqueue",
            "enqueue(requestNetwork_out,TinyRequestMsg,latency)",
            0
        )
    );
    let p = patch_of(&d);
    assert!(
        p.contains("+    // [mutant] enqueue(requestNetwork_out, TinyRequestMsg, latency) {\n"),
        "{p}"
    );
    assert!(
        p.contains("+      // [mutant] out_msg.Destination.add(mapAddressToMachine(address,\n"),
        "{p}"
    );
    assert!(p.contains(" // [mutant] MachineType:Directory));\n"), "{p}");
    assert!(p.contains("+    // [mutant] }\n"), "{p}");
    // a statement followed by a block comment on its line: removed in place
    let d = format!(
        "Tiny-cache.sm::action(e_sendData)::{}::ADS",
        ops::statement_key("assign", "out_msg.DataBlk:=cache_entry.DataBlk;", 0)
    );
    let p = patch_of(&d);
    assert!(p.contains("\n+            /* from the cache */\n"), "{p}");
    // negation, retargeting, a new message type, a flipped boolean
    let cng = ms
        .iter()
        .find(|m| m.op == "CNG" && m.site == "action(i_allocateBlock)")
        .unwrap();
    assert!(
        cng.patch
            .contains("\n+    if (!(is_invalid(cache_entry))) {\n"),
        "{}",
        cng.patch
    );
    let ert = ms
        .iter()
        .find(|m| m.op == "ERT" && m.site == "action(a_issueGet)")
        .unwrap();
    assert!(ert
        .patch
        .contains("\n+    enqueue(retryNetwork_out, TinyRequestMsg, latency) {\n"));
    let mtr = ms
        .iter()
        .find(|m| m.op == "MTR" && m.site == "action(b_issuePut)")
        .unwrap();
    assert!(mtr
        .patch
        .contains("\n+      out_msg.Type := TinyRequestType:GET;\n"));
    let bfl = ms
        .iter()
        .find(|m| m.op == "BFL" && m.site == "action(e_sendData)")
        .unwrap();
    assert!(bfl.patch.contains("\n+        out_msg.Dirty := false;\n"));
}

#[test]
fn ids_are_unique_and_stable_under_reformatting_and_edits_elsewhere() {
    let base = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let ids: HashSet<&str> = base.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), base.len(), "duplicate ids");
    let descriptors: HashSet<&str> = base.iter().map(|m| m.descriptor.as_str()).collect();
    assert_eq!(descriptors.len(), base.len());
    for m in &base {
        assert_eq!(m.id, memconform::mutate::mutant_id(&m.descriptor));
        assert_eq!(m.id.len(), 12);
    }
    // reformatted: a header comment, tabs for indentation, blank lines,
    // a header joined onto one line
    let dir = temp_dir("reformat");
    copy_tiny(&dir);
    let cache = dir.join("Tiny-cache.sm");
    let text = std::fs::read_to_string(&cache).unwrap();
    let reformatted = format!(
        "// a new header comment\n// over two lines\n\n{}",
        text.replace(
            "{Replacement, Fwd},\n             MI)",
            "{Replacement,Fwd},MI)"
        )
        .replace("\n    ", "\n\t")
        .replace("\n  action(", "\n\n  action(")
    );
    assert_ne!(reformatted, text);
    std::fs::write(&cache, &reformatted).unwrap();
    let after = generate(&dir, "Tiny", &all_classes()).unwrap();
    let ids_after: HashSet<&str> = after.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ids_after, "ids changed under reformatting");
    // an edit of one statement changes only that statement's mutants
    let edited = reformatted.replacen(
        "out_msg.MessageSize := MessageSizeType:Control;",
        "out_msg.MessageSize := MessageSizeType:Data;",
        1,
    );
    std::fs::write(&cache, &edited).unwrap();
    let after = generate(&dir, "Tiny", &all_classes()).unwrap();
    let ids_after: HashSet<&str> = after.iter().map(|m| m.id.as_str()).collect();
    let old_key = ops::statement_key("assign", "out_msg.MessageSize:=MessageSizeType:Control;", 0);
    for m in &base {
        if !ids_after.contains(m.id.as_str()) {
            assert!(
                m.descriptor
                    .starts_with("Tiny-cache.sm::action(a_issueGet)::")
                    && m.descriptor.contains(&old_key),
                "{} vanished",
                m.descriptor
            );
        }
    }
    assert_eq!(base.len(), after.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether `tool` runs (`tool --version`).
fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Runs git with `args` in `dir` (a throwaway identity and branch name).
fn git_in(dir: &Path, args: &[&str]) -> Output {
    run(Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir))
}

fn run(cmd: &mut Command) -> Output {
    let o = cmd.output().expect("runs");
    assert!(
        o.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Applies patch file `pf` at `root` with `git apply`, then with `patch -p1`,
/// checking each time that `file` becomes `want`, and restores `original`.
fn applies_with_git_and_patch(
    root: &Path,
    file: &Path,
    pf: &Path,
    original: &str,
    want: &str,
    what: &str,
) {
    run(Command::new("git").arg("apply").arg(pf).current_dir(root));
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        want,
        "git apply {what}"
    );
    std::fs::write(file, original).unwrap();
    run(Command::new("patch")
        .args(["-p1", "-s", "--fuzz=0", "--no-backup-if-mismatch", "-i"])
        .arg(pf)
        .current_dir(root));
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        want,
        "patch -p1 {what}"
    );
    std::fs::write(file, original).unwrap();
}

#[test]
fn patches_apply_with_git_apply_and_patch_p1() {
    if !have("git") || !have("patch") {
        println!("skipped: git or patch is missing");
        return;
    }
    // a gem5-shaped tree in a git repository; one file without a final newline
    let root = temp_dir("apply");
    let proto = root.join("src/mem/ruby/protocol");
    copy_tiny(&proto);
    let dir_sm = proto.join("Tiny-dir.sm");
    let t = std::fs::read_to_string(&dir_sm).unwrap();
    std::fs::write(&dir_sm, t.trim_end_matches('\n')).unwrap();
    let git = |args: &[&str]| git_in(&root, args);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    let ms = generate(&root, "Tiny", &all_classes()).unwrap();
    assert!(ms
        .iter()
        .all(|m| m.file.starts_with("src/mem/ruby/protocol/Tiny-")));
    let patches = root.join("patches");
    std::fs::create_dir_all(&patches).unwrap();
    let mut near_end = 0;
    for m in &ms {
        let file = root.join(&m.file);
        let original = std::fs::read_to_string(&file).unwrap();
        let want = patch::mutated_text(&original, m).unwrap();
        let pf = patches.join(format!("{}.diff", m.id));
        std::fs::write(&pf, &m.patch).unwrap();
        if m.patch.contains("\\ No newline at end of file") {
            near_end += 1;
        }
        applies_with_git_and_patch(&root, &file, &pf, &original, &want, &m.descriptor);
        // and our own apply
        patch::apply(&root, m).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
        std::fs::write(&file, &original).unwrap();
    }
    assert!(
        near_end > 0,
        "no patch reached the file without a final newline"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_different_base_is_refused() {
    let root = temp_dir("refuse");
    copy_tiny(&root);
    let ms = generate(&root, "Tiny", &Options::default()).unwrap();
    let m = &ms[0];
    let file = root.join(&m.file);
    let original = std::fs::read_to_string(&file).unwrap();
    // one byte more, anywhere: refused, the file untouched
    let other = format!("{original}// edited\n");
    std::fs::write(&file, &other).unwrap();
    match patch::apply(&root, m) {
        Err(PatchError::BaseMismatch {
            file: f, expected, ..
        }) => {
            assert_eq!(f, m.file);
            assert_eq!(expected, m.base_sha256);
        }
        r => panic!("expected a base mismatch, got {r:?}"),
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), other);
    assert!(matches!(
        patch::mutated_text(&other, m),
        Err(PatchError::BaseMismatch { .. })
    ));
    let e = patch::mutated_text(&other, m).unwrap_err().to_string();
    assert!(e.contains("base file differs"), "{e}");
    // a missing file
    std::fs::remove_file(&file).unwrap();
    assert!(matches!(patch::apply(&root, m), Err(PatchError::Io { .. })));
    // the right base applies
    std::fs::write(&file, &original).unwrap();
    patch::apply(&root, m).unwrap();
    assert_ne!(std::fs::read_to_string(&file).unwrap(), original);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_unresolvable_catalogue_entry_is_named() {
    // Tiny's files under MI_example's name: MI-1's site does not exist
    let dir = temp_dir("catalogue");
    copy_tiny(&dir);
    let slicc_text = std::fs::read_to_string(dir.join("Tiny.slicc"))
        .unwrap()
        .replace("protocol \"Tiny\"", "protocol \"MI_example\"");
    std::fs::write(dir.join("MI_example.slicc"), slicc_text).unwrap();
    let e = catalogue::catalogue(&dir, "MI_example")
        .unwrap_err()
        .to_string();
    assert!(e.contains("catalogue entry MI-1"), "{e}");
    // a protocol without entries has an empty catalogue
    assert!(catalogue::catalogue(&tiny_dir(), "Tiny")
        .unwrap()
        .is_empty());
    // the descriptors name their sites as the generator does
    let mi5 = catalogue::ENTRIES
        .iter()
        .find(|e| e.name == "MI-5")
        .unwrap();
    assert_eq!(
        catalogue::descriptor(mi5),
        format!(
            "MI_example-dir.sm::action(l_queueMemoryWBRequest)::{}::ADS",
            ops::statement_key("assign", "out_msg.DataBlk:=in_msg.DataBlk;", 0)
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn memconform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn cli_lists_text_and_csv() {
    let dir = tiny_dir();
    let d = dir.to_str().unwrap();
    let o = memconform(&["mutate", "list", d, "--protocol", "Tiny"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    let default = generate(&dir, "Tiny", &Options::default()).unwrap();
    assert!(
        text.starts_with(&format!(
            "Tiny: {} mutants in 2 files (classes: tier1)",
            default.len()
        )),
        "{text}"
    );
    assert!(text.contains("\nTDA "), "{text}");
    assert!(text.contains(&default[0].descriptor));
    let o = memconform(&[
        "mutate",
        "list",
        d,
        "--protocol",
        "Tiny",
        "--format",
        "csv",
        "--classes",
        "tier1,tier2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let csv = String::from_utf8_lossy(&o.stdout);
    let mut rows = csv.lines();
    assert_eq!(
        rows.next(),
        Some("id,operator,class,file,line,site,descriptor")
    );
    let tier12 = generate(
        &dir,
        "Tiny",
        &Options {
            classes: vec!["tier1".into(), "tier2".into()],
            include_dma: false,
        },
    )
    .unwrap();
    assert_eq!(rows.count(), tier12.len());
    assert!(csv.contains(",TNS-sibling,tier2,"));
    // the help teaches the operators
    let o = memconform(&["mutate", "list", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for op in [
        "TDA",
        "TSW",
        "TNS-stay",
        "TNS-sibling",
        "ADS",
        "MTR",
        "BFL",
        "ERT",
        "CNG",
        "STD",
    ] {
        assert!(help.contains(op), "{op} missing from --help");
    }
    assert!(help.contains("z_stall"));
}

#[test]
fn cli_reports_a_syntax_error_with_its_place_and_exits_2() {
    let dir = temp_dir("cli-bad");
    copy_tiny(&dir);
    let f = dir.join("Tiny-dir.sm");
    let t = std::fs::read_to_string(&f).unwrap();
    // c_clearOwner's statement loses its `;`: the error is at the `}` after it
    let needle = "getDirectoryEntry(address).Owner.clear();";
    let at = t.match_indices(needle).nth(1).unwrap().0;
    let line = t[..at].matches('\n').count() + 1;
    let broken = format!(
        "{}{}{}",
        &t[..at],
        &needle[..needle.len() - 1],
        &t[at + needle.len()..]
    );
    std::fs::write(&f, broken).unwrap();
    let o = memconform(&[
        "mutate",
        "list",
        dir.to_str().unwrap(),
        "--protocol",
        "Tiny",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!("{}:{}:3: expected `;`", f.display(), line + 1)),
        "{e}"
    );
    let o = memconform(&[
        "mutate",
        "list",
        dir.to_str().unwrap(),
        "--protocol",
        "Nope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = memconform(&[
        "mutate",
        "list",
        dir.to_str().unwrap(),
        "--protocol",
        "Tiny",
        "--classes",
        "tier9",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// GEM5_ROOT, or None after printing why the test is skipped.
fn gem5_root() -> Option<PathBuf> {
    match std::env::var_os("GEM5_ROOT") {
        Some(r) if Path::new(&r).join("src/mem/ruby/protocol").is_dir() => Some(PathBuf::from(r)),
        Some(_) => {
            println!("skipped: GEM5_ROOT has no src/mem/ruby/protocol");
            None
        }
        None => {
            println!("skipped: GEM5_ROOT not set");
            None
        }
    }
}

#[test]
fn gem5_protocols_counts_and_catalogue() {
    let Some(gem5) = gem5_root() else { return };
    let protocols = [
        "MI_example",
        "MESI_Two_Level",
        "MOESI_hammer",
        "MOESI_AMD_Base",
    ];
    let mut raw: Vec<BTreeMap<String, usize>> = Vec::new();
    let mut default: Vec<BTreeMap<String, usize>> = Vec::new();
    for protocol in protocols {
        let p = slicc::load_protocol(&gem5, protocol).unwrap();
        let all = ops::generate_from(&p, &all_classes()).unwrap();
        let ids: HashSet<&str> = all.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids.len(), all.len(), "{protocol}: duplicate ids");
        let mut r = BTreeMap::new();
        for m in &all {
            *r.entry(m.op.clone()).or_insert(0) += 1;
        }
        raw.push(r);
        let d = ops::generate_from(&p, &Options::default()).unwrap();
        let mut c = BTreeMap::new();
        for m in &d {
            *c.entry(m.op.clone()).or_insert(0) += 1;
        }
        let tier2 = ops::generate_from(
            &p,
            &Options {
                classes: vec!["tier2".into()],
                include_dma: false,
            },
        )
        .unwrap();
        for m in &tier2 {
            *c.entry(m.op.clone()).or_insert(0) += 1;
        }
        c.insert("Tier 1".into(), d.len());
        default.push(c);
        // a sample of patches against the real files
        for m in all.iter().step_by(97) {
            let f = p.files.iter().find(|f| f.rel_path == m.file).unwrap();
            let t = patch::mutated_text(&f.text, m).unwrap();
            assert_eq!(t.lines().count(), f.text.lines().count());
        }
    }
    println!(
        "raw (all classes, DMA included) / default (tier1, tier2 for TNS-sibling and CNG; no DMA):"
    );
    println!(
        "{:<12} {:>15} {:>15} {:>15} {:>15}",
        "op", protocols[0], protocols[1], protocols[2], protocols[3]
    );
    for (op, _, _) in ops::OPERATORS.iter().chain([("Tier 1", "", "")].iter()) {
        let cells: Vec<String> = (0..4)
            .map(|i| {
                format!(
                    "{}/{}",
                    raw[i].get(*op).map_or("-".to_string(), |n| n.to_string()),
                    default[i].get(*op).copied().unwrap_or(0)
                )
            })
            .collect();
        println!(
            "{op:<12} {:>15} {:>15} {:>15} {:>15}",
            cells[0], cells[1], cells[2], cells[3]
        );
    }
    // the operators docs/design/campaigns.md §2 measured the same way
    let mi = &raw[0];
    assert_eq!(
        (
            mi["TDA"],
            mi["TSW"],
            mi["TNS-stay"],
            mi["MTR"],
            mi["ERT"],
            mi["CNG"],
            mi["STD"]
        ),
        (115, 77, 29, 20, 1, 3, 6)
    );
    // the catalogue resolves, with the id docs/design/campaigns.md §5 gives ME-4
    let mut names = Vec::new();
    for protocol in [
        "MI_example",
        "MESI_Two_Level",
        "MOESI_hammer",
        "MOESI_AMD_Base",
    ] {
        for (name, m) in catalogue::catalogue(&gem5, protocol).unwrap() {
            println!("{name}: {} {} {}", m.id, m.class, m.descriptor);
            names.push((name, m));
        }
    }
    let got: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        got,
        [
            "MI-1", "MI-2", "MI-3", "MI-4", "MI-5", "MI-6", "ME-1", "ME-2", "ME-3", "ME-4", "ME-5",
            "ME-6", "ME-7", "ME-8", "ME-9", "MH-1", "MH-2", "MH-3", "MH-4", "MH-5", "MH-6", "MH-7",
            "MH-8", "MA-1", "MA-2", "MA-3", "MA-4", "MA-5", "MA-6"
        ]
    );
    let me4 = &names.iter().find(|(n, _)| n == "ME-4").unwrap().1;
    assert_eq!(me4.id, "2c440e45b307");
    assert_eq!(me4.class, "tier1+needs:o3");
    let mi6 = &names.iter().find(|(n, _)| n == "MI-6").unwrap().1;
    assert_eq!(mi6.class, "equivalent");
    // 6599dd87c8's missing eviction forward is seen only by an O3 core
    let me8 = &names.iter().find(|(n, _)| n == "ME-8").unwrap().1;
    assert_eq!(me8.class, "tier1+needs:o3");
    assert_eq!(me8.op, "TDA");
    let me9 = &names.iter().find(|(n, _)| n == "ME-9").unwrap().1;
    assert_eq!(
        (me9.op.as_str(), me9.class.as_str()),
        ("TNS-sibling", "tier2")
    );
    for (name, m) in &names {
        if ["MH-1", "MH-2", "MH-8", "MA-1", "MA-6"].contains(&name.as_str()) {
            // the MOESI protocols' missing eviction forwards, like ME-8
            assert_eq!(m.class, "tier1+needs:o3", "{name}");
        } else if !["MI-6", "ME-4", "ME-8", "ME-9"].contains(&name.as_str()) {
            assert_eq!(m.class, "tier1", "{name}");
        }
    }
}

/// Writes each mutant's protocol directory (the protocol's files with the
/// one mutated) under `root`; returns the directories. A mutant's file is
/// its path under `src` when there is one (a file a machine includes from
/// a subdirectory), else its name.
fn mutant_dirs(src: &Path, files: &[String], ms: &[&Mutant], root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let d = root.join(format!("m{i:04}"));
        std::fs::create_dir_all(&d).unwrap();
        for f in files {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::copy(src.join(f), d.join(f)).unwrap();
        }
        let name = if src.join(&m.file).is_file() {
            Path::new(&m.file)
        } else {
            Path::new(Path::new(&m.file).file_name().unwrap())
        };
        let original = std::fs::read_to_string(src.join(name)).unwrap();
        std::fs::write(d.join(name), patch::mutated_text(&original, m).unwrap()).unwrap();
        dirs.push(d);
    }
    dirs
}

/// The files SLICC reads for `protocol` from `dir`: its `.slicc` and the
/// files that one includes (the shared `RubySlicc_*` come from the tree).
fn protocol_files(dir: &Path, protocol: &str) -> Vec<String> {
    let manifest = format!("{protocol}.slicc");
    let text = std::fs::read_to_string(dir.join(&manifest)).unwrap();
    let mut files = vec![manifest];
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("include \"") {
            let name = rest.split('"').next().unwrap();
            if !name.starts_with("RubySlicc_") {
                files.push(name.to_string());
            }
        }
    }
    files
}

/// Every `.slicc` and `.sm` file under `dir` (subdirectories too), relative
/// to it: a protocol whose machines include further files.
fn all_protocol_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(sub) = todo.pop() {
        for e in std::fs::read_dir(dir.join(&sub)).unwrap() {
            let e = e.unwrap();
            let rel = sub.join(e.file_name());
            if e.path().is_dir() {
                todo.push(rel);
            } else if rel.extension().is_some_and(|x| x == "sm" || x == "slicc") {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// Runs gem5's own SLICC (with code generation) on each directory; returns
/// the rejections, `descriptor: SLICC's message`.
fn slicc_rejections(
    gem5: &Path,
    protocol: &str,
    dirs: &[PathBuf],
    ms: &[&Mutant],
    out: &Path,
) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/slicc_transitions.py");
    run(Command::new("python3")
        .arg(&script)
        .arg(gem5)
        .arg(protocol)
        .arg(out)
        .arg("--code")
        .args(dirs)
        .env("PYTHONDONTWRITEBYTECODE", "1"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    let mut rejected = Vec::new();
    for (d, m) in dirs.iter().zip(ms) {
        let r = &v[d.to_str().unwrap()];
        assert!(
            r.is_object(),
            "{}: SLICC gave no answer for {}",
            m.descriptor,
            d.display()
        );
        if !r["error"].is_null() {
            rejected.push(format!("{} [{}]: {}", m.descriptor, m.class, r["error"]));
        }
    }
    rejected
}

#[test]
fn gem5_slicc_accepts_the_mutants() {
    let Some(gem5) = gem5_root() else { return };
    if !have("python3") || !have("git") || !have("patch") {
        println!("skipped: python3, git or patch is missing");
        return;
    }
    let root = temp_dir("slicc-check");
    // every other Tiny mutant
    let tiny = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let refs: Vec<&Mutant> = tiny.iter().step_by(2).collect();
    let files = protocol_files(&tiny_dir(), "Tiny");
    let dirs = mutant_dirs(&tiny_dir(), &files, &refs, &root.join("tiny"));
    let rejected = slicc_rejections(&gem5, "Tiny", &dirs, &refs, &root.join("Tiny.json"));
    assert!(
        rejected.is_empty(),
        "SLICC rejected:\n{}",
        rejected.join("\n")
    );
    println!(
        "Tiny: SLICC accepted {} of {} mutants",
        refs.len(),
        refs.len()
    );
    // every other Split mutant (in the files its cache machine includes)
    let split = generate(&split_dir(), "Split", &all_classes()).unwrap();
    let refs: Vec<&Mutant> = split.iter().step_by(2).collect();
    let files = all_protocol_files(&split_dir());
    let dirs = mutant_dirs(&split_dir(), &files, &refs, &root.join("split"));
    let rejected = slicc_rejections(&gem5, "Split", &dirs, &refs, &root.join("Split.json"));
    assert!(
        rejected.is_empty(),
        "SLICC rejected:\n{}",
        rejected.join("\n")
    );
    println!(
        "Split: SLICC accepted {} of {} mutants",
        refs.len(),
        refs.len()
    );

    // a sample of 200 gem5 mutants, 50 per protocol spread over all classes:
    // each patch applies with `git apply` and `patch -p1` to a copy of the
    // tree's protocol directory and gives our own mutated text; SLICC then
    // accepts it, or it is a mutant the campaign's pre-check classes unviable
    let proto = gem5.join("src/mem/ruby/protocol");
    let tree = root.join("tree");
    let tree_proto = tree.join("src/mem/ruby/protocol");
    std::fs::create_dir_all(&tree_proto).unwrap();
    let git = |args: &[&str]| git_in(&tree, args);
    git(&["init", "-q"]);
    let mut total = 0;
    let mut all_rejected = Vec::new();
    for protocol in [
        "MI_example",
        "MESI_Two_Level",
        "MOESI_hammer",
        "MOESI_AMD_Base",
    ] {
        let files = protocol_files(&proto, protocol);
        for f in &files {
            std::fs::copy(proto.join(f), tree_proto.join(f)).unwrap();
        }
        git(&["add", "."]);
        git(&["commit", "-qm", protocol]);
        let all = generate(&gem5, protocol, &all_classes()).unwrap();
        let step = all.len().div_ceil(50);
        let sample: Vec<&Mutant> = all.iter().step_by(step).collect();
        assert!(sample.len() >= 49, "{protocol}: {} mutants", all.len());
        let pf = root.join("m.diff");
        for m in &sample {
            let file = tree.join(&m.file);
            let original = std::fs::read_to_string(&file).unwrap();
            let want = patch::mutated_text(&original, m).unwrap();
            std::fs::write(&pf, &m.patch).unwrap();
            applies_with_git_and_patch(&tree, &file, &pf, &original, &want, &m.descriptor);
        }
        let dirs = mutant_dirs(&proto, &files, &sample, &root.join(protocol));
        let rejected = slicc_rejections(
            &gem5,
            protocol,
            &dirs,
            &sample,
            &root.join(format!("{protocol}.json")),
        );
        println!(
            "{protocol}: {} of {} mutants sampled; all apply with git apply and patch -p1; SLICC accepted {}",
            sample.len(),
            all.len(),
            sample.len() - rejected.len()
        );
        for r in &rejected {
            println!("  rejected (unviable in a campaign): {r}");
        }
        total += sample.len();
        all_rejected.extend(rejected);
    }
    assert!(total >= 200, "{total} sampled");
    // SLICC's rejections are what the pre-check is for; the operators are
    // built to keep a protocol well-formed, so they stay rare
    assert!(
        all_rejected.len() * 20 <= total,
        "SLICC rejected {} of {total}",
        all_rejected.len()
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn repeated_actions_and_two_machines_in_a_file_keep_ids_unique() {
    let dir = temp_dir("repeats");
    let machine = |ty: &str| {
        format!(
            r#"
machine(MachineType:{ty}, "x") : {{
  state_declaration(State, desc="s") {{ A, AccessPermission:Invalid; B, AccessPermission:Invalid; }}
  enumeration(Event, desc="e") {{ E; }}
  action(a, "a") {{ tbe.X := 1; }}
  action(b, "b") {{ tbe.X := 2; }}
  transition(A, E, B) {{ a; b; a; b; }}
}}
"#
        )
    };
    std::fs::write(
        dir.join("R.slicc"),
        "protocol \"R\";\ninclude \"R-both.sm\";\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("R-both.sm"),
        machine("L1Cache") + &machine("L2Cache"),
    )
    .unwrap();
    let ms = generate(&dir, "R", &all_classes()).unwrap();
    let ds: Vec<&str> = ms.iter().map(|m| m.descriptor.as_str()).collect();
    for d in [
        "R-both.sm::machine(L1Cache)::transition(A,E,B)::a::TDA",
        "R-both.sm::machine(L1Cache)::transition(A,E,B)::a#1::TDA",
        "R-both.sm::machine(L2Cache)::transition(A,E,B)::a#1::TDA",
        "R-both.sm::machine(L1Cache)::transition(A,E,B)::a<->b::TSW",
        "R-both.sm::machine(L1Cache)::transition(A,E,B)::b<->a::TSW",
        "R-both.sm::machine(L1Cache)::transition(A,E,B)::a<->b#1::TSW",
    ] {
        assert!(ds.contains(&d), "{d} not in {ds:#?}");
    }
    let ids: HashSet<&str> = ms.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), ms.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_gem5_protocol_directory_keeps_paths_relative_to_the_root() {
    let root = temp_dir("layout");
    let proto = root.join("src/mem/ruby/protocol");
    copy_tiny(&proto);
    let from_root = generate(&root, "Tiny", &Options::default()).unwrap();
    let from_dir = generate(&proto, "Tiny", &Options::default()).unwrap();
    assert_eq!(from_root, from_dir);
    assert_eq!(from_root[0].file, "src/mem/ruby/protocol/Tiny-cache.sm");
    let p = slicc::load_protocol(&proto, "Tiny").unwrap();
    assert_eq!(p.root, root);
    assert_eq!(p.manifest, "src/mem/ruby/protocol/Tiny.slicc");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn each_mutant_names_the_transitions_that_run_its_edit() {
    let ms = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let fires = |descriptor: &str| -> Option<Vec<String>> {
        ms.iter()
            .find(|m| m.descriptor == descriptor)
            .unwrap_or_else(|| panic!("no mutant {descriptor}"))
            .fires
            .clone()
    };
    let v = |xs: &[&str]| Some(xs.iter().map(|x| x.to_string()).collect::<Vec<_>>());
    // a header's own (state, event) pairs, every combination of its lists
    assert_eq!(
        fires("Tiny-cache.sm::transition({M},{Replacement,Fwd},MI)::b_issuePut::TDA"),
        v(&["L1Cache.M.Replacement", "L1Cache.M.Fwd"])
    );
    assert_eq!(
        fires("Tiny-cache.sm::transition(I,Load,IM)::IM->stay::TNS-stay"),
        v(&["L1Cache.I.Load"])
    );
    // a z_stall header is never counted (SLICC returns before counting)
    let stall: Vec<&Mutant> = ms
        .iter()
        .filter(|m| {
            m.descriptor
                .starts_with("Tiny-cache.sm::transition({IM,MI},{Load,Store})")
        })
        .collect();
    assert!(!stall.is_empty());
    assert!(stall.iter().all(|m| m.fires.is_none()));
    // an action's statements: every non-stalling header that runs it
    let alloc: Vec<&Mutant> = ms
        .iter()
        .filter(|m| m.site == "action(v_allocateTBE)")
        .collect();
    assert!(!alloc.is_empty());
    for m in alloc {
        assert_eq!(
            m.fires,
            v(&[
                "L1Cache.I.Load",
                "L1Cache.I.Store",
                "L1Cache.M.Fwd",
                "L1Cache.M.Replacement"
            ]),
            "{}",
            m.descriptor
        );
    }
    // every mutant outside a z_stall header names at least its header, and
    // only counters of its own machine
    for m in &ms {
        let machine = if m.file.ends_with("Tiny-dir.sm") {
            "Directory."
        } else if m.file.ends_with("Tiny-dma.sm") {
            "DMA."
        } else {
            "L1Cache."
        };
        if let Some(f) = &m.fires {
            assert!(
                f.iter().all(|k| k.starts_with(machine)),
                "{}: {f:?}",
                m.descriptor
            );
            if m.site.starts_with("transition") {
                assert!(!f.is_empty(), "{}", m.descriptor);
            }
        }
    }
}

#[test]
fn gem5_mi_example_coverage_of_the_bundled_clean_run() {
    let Some(gem5) = gem5_root() else { return };
    use memconform::mutate::coverage;
    // the real stats.txt of the bundled clean run (8 cores, seed 3)
    let stats = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/clean-n8-s3-gz/stats.txt");
    let fired = coverage::fired(&stats).unwrap();
    let tier1 = generate(&gem5, "MI_example", &Options::default()).unwrap();
    let reached = tier1
        .iter()
        .filter(|m| coverage::covered(m.fires.as_deref(), &fired))
        .count();
    println!(
        "MI_example: the bundled clean run took {} transitions; {reached} of {} Tier-1 mutants reached, {} no_coverage",
        fired.len(),
        tier1.len(),
        tier1.len() - reached
    );
    // every counter a mutant names is a transition the protocol declares
    let p = slicc::load_protocol(&gem5, "MI_example").unwrap();
    let mut declared = HashSet::new();
    for f in &p.files {
        for m in &f.machines {
            for (s, e, _, _) in m.expanded() {
                declared.insert(format!("{}.{s}.{e}", m.ident));
            }
        }
    }
    for k in &fired {
        assert!(
            declared.contains(k),
            "gem5 counted {k}, which no header declares"
        );
    }
    for m in &tier1 {
        for k in m.fires.iter().flatten() {
            assert!(declared.contains(k), "{}: {k}", m.descriptor);
        }
    }
    // the catalogue's MI-3 and MI-5 kill in real runs: the clean run reaches them
    for (name, m) in catalogue::catalogue(&gem5, "MI_example").unwrap() {
        if name == "MI-3" || name == "MI-5" {
            assert!(coverage::covered(m.fires.as_deref(), &fired), "{name}");
        }
    }
    assert!(reached < tier1.len() && reached > tier1.len() / 2);
}

/// `mutate init DIR` of `protocol` in the gem5 tree `gem5` (build and run
/// commands that do nothing), with `extra` options: its output and the
/// mutants it wrote (none when it failed).
fn init_campaign(
    dir: &Path,
    gem5: &str,
    protocol: &str,
    binary: &str,
    extra: &[&str],
) -> (Output, Vec<serde_json::Value>) {
    let mut args = vec![
        "mutate",
        "init",
        dir.to_str().unwrap(),
        "--gem5-root",
        gem5,
        "--protocol",
        protocol,
        "--build",
        "true",
        "--gem5",
        binary,
        "--run",
        "true",
    ];
    args.extend_from_slice(extra);
    let o = memconform(&args);
    let rows = std::fs::read_to_string(dir.join("mutants.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (o, rows)
}

/// `mutate init --with-catalogue` adds the catalogue's bugs to a sample,
/// each named; a generated mutant that is a catalogue bug is named without
/// it; `--catalogue` and `--with-catalogue` exclude each other.
#[test]
fn gem5_init_names_the_catalogue_bugs() {
    let Some(gem5) = gem5_root() else { return };
    let g = gem5.to_str().unwrap();
    let base = temp_dir("init-catalogue");
    let init = |name: &str, extra: &[&str]| {
        init_campaign(
            &base.join(name),
            g,
            "MI_example",
            "build/NULL/gem5.opt",
            extra,
        )
    };
    let named: Vec<(String, Mutant)> = catalogue::catalogue(&gem5, "MI_example").unwrap();
    let class_of = |rows: &[serde_json::Value], id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .map(|r| r["class"].as_str().unwrap().to_string())
    };

    let (o, sample) = init("sample", &["--sample", "4", "--sample-seed", "7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(sample.len(), 4);
    let (o, with) = init(
        "with",
        &["--sample", "4", "--sample-seed", "7", "--with-catalogue"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the same sample, plus every catalogue bug, each named once
    for r in &sample {
        assert!(with.iter().any(|w| w["id"] == r["id"]), "{r}");
    }
    for (name, m) in &named {
        let class = class_of(&with, &m.id).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(class.matches("+catalogue:").count(), 1, "{class}");
        assert!(class.ends_with(&format!("+catalogue:{name}")), "{class}");
    }
    let extra = with.len() - sample.len();
    assert!(extra <= named.len() && extra > 0, "{extra}");
    let ids: Vec<&str> = with.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "sorted by id, no repeat"
    );

    // a generated mutant that is MI-5 is named without --with-catalogue
    let mi5 = &named.iter().find(|(n, _)| n == "MI-5").unwrap().1;
    let (o, only) = init("only", &["--only", &mi5.id]);
    assert!(o.status.success());
    assert_eq!(class_of(&only, &mi5.id).unwrap(), "tier1+catalogue:MI-5");

    let (o, _) = init("both", &["--catalogue", "--with-catalogue"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&base);
}

/// `mutate init --sample N --stratify` draws every operator of
/// MESI_Two_Level at least once and the rest by share
/// (memconform_mutate::sample::allocation), the same draw every time;
/// `--stratify` without `--sample` is refused.
#[test]
fn gem5_init_stratifies_a_sample_by_operator() {
    let Some(gem5) = gem5_root() else { return };
    let g = gem5.to_str().unwrap();
    let base = temp_dir("init-stratify");
    let ops_of = |rows: &[serde_json::Value]| {
        let mut c: std::collections::BTreeMap<String, usize> = Default::default();
        for r in rows {
            *c.entry(r["op"].as_str().unwrap().to_string()).or_default() += 1;
        }
        c
    };
    let all = generate(&gem5, "MESI_Two_Level", &Options::default()).unwrap();
    let mut want: std::collections::BTreeMap<String, usize> = Default::default();
    for m in &all {
        *want.entry(m.op.clone()).or_default() += 1;
    }
    let want = memconform::mutate::sample::allocation(&want, 40, 5);
    let want: std::collections::BTreeMap<String, usize> =
        want.into_iter().filter(|(_, n)| *n > 0).collect();
    let init = |name: &str, extra: &[&str]| {
        init_campaign(
            &base.join(name),
            g,
            "MESI_Two_Level",
            "build/X86_MESI_Two_Level/gem5.opt",
            extra,
        )
    };
    let args = ["--sample", "40", "--sample-seed", "5", "--stratify"];
    let (o, rows) = init("a", &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(ops_of(&rows), want);
    let total: usize = want.values().sum();
    assert_eq!(rows.len(), total);
    let (_, again) = init("b", &args);
    assert_eq!(again, rows, "the same draw every time");
    let (o, _) = init("c", &["--stratify"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&base);
}

/// `mutate init --with-o3` adds every `needs:o3` mutant (send_evictions
/// code) to a sample, once each; the sample's own mutants stay.
#[test]
fn gem5_init_adds_the_o3_mutants() {
    let Some(gem5) = gem5_root() else { return };
    let g = gem5.to_str().unwrap();
    let base = temp_dir("init-o3");
    let init = |name: &str, extra: &[&str]| {
        let (o, rows) = init_campaign(
            &base.join(name),
            g,
            "MESI_Two_Level",
            "build/X86_MESI_Two_Level/gem5.opt",
            extra,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        rows.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect::<Vec<String>>()
    };
    let o3: Vec<String> = generate(&gem5, "MESI_Two_Level", &Options::default())
        .unwrap()
        .into_iter()
        .filter(|m| m.class.split('+').any(|t| t == "needs:o3"))
        .map(|m| m.id)
        .collect();
    assert!(o3.len() >= 5, "{o3:?}");
    let sample = init("sample", &["--sample", "6", "--sample-seed", "3"]);
    let with = init(
        "with",
        &["--sample", "6", "--sample-seed", "3", "--with-o3"],
    );
    for id in sample.iter().chain(&o3) {
        assert_eq!(with.iter().filter(|w| *w == id).count(), 1, "{id}");
    }
    let expected: HashSet<&String> = sample.iter().chain(&o3).collect();
    assert_eq!(with.len(), expected.len());
    let _ = std::fs::remove_dir_all(&base);
}

// One mutant at a time: `mutate show` and `mutate apply`.

/// A gem5-shaped tree (`src/mem/ruby/protocol/Tiny*`) in a fresh directory,
/// committed to git when git runs.
fn tiny_gem5_tree(name: &str) -> PathBuf {
    let root = temp_dir(name);
    copy_tiny(&root.join("src/mem/ruby/protocol"));
    if have("git") {
        git_in(&root, &["init", "-q"]);
        git_in(&root, &["add", "."]);
        git_in(&root, &["commit", "-qm", "base"]);
    }
    root
}

/// `mutate show|apply ID --gem5-root ROOT --protocol Tiny` with `extra`.
fn one_mutant(cmd: &str, id: &str, root: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["mutate", cmd];
    if !id.is_empty() {
        args.push(id);
    }
    args.extend(["--gem5-root", root.to_str().unwrap(), "--protocol", "Tiny"]);
    args.extend_from_slice(extra);
    memconform(&args)
}

/// Standard error as text.
fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir` with its bytes, the `.git` directory aside.
fn tree_bytes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if e.file_name() != ".git" {
                    stack.push(p);
                }
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// `mutate show` prints `#` lines (id, operator, class, file:line,
/// descriptor) and then the mutant's patch exactly; git apply, patch -p1
/// (a dry run, then for real) and the project's apply_diff all take the
/// whole output and make the same file. A unique prefix of the id (any
/// case) shows the same.
#[test]
fn show_prints_a_patch_that_git_apply_and_patch_take() {
    let root = tiny_gem5_tree("show");
    let tools = have("git") && have("patch");
    if !tools {
        println!("git or patch is missing: only the project's apply_diff is checked");
    }
    let outside = temp_dir("show-patches");
    let ms = generate(&root, "Tiny", &all_classes()).unwrap();
    // one mutant of each operator, and one of the DMA controller
    let mut picked: Vec<&Mutant> = Vec::new();
    for m in &ms {
        if !picked.iter().any(|p| p.op == m.op) {
            picked.push(m);
        }
    }
    picked.push(ms.iter().find(|m| m.file.ends_with("Tiny-dma.sm")).unwrap());
    assert!(picked.len() >= 10, "{}", picked.len());
    for m in &picked {
        let o = one_mutant("show", &m.id, &root, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        let (head, rest) = text.split_at(text.find("memconform-mutant: ").unwrap());
        assert_eq!(rest, m.patch, "{}", m.descriptor);
        assert!(head.lines().all(|l| l.starts_with("# ")), "{head}");
        for line in [
            format!("# mutant:     {}\n", m.id),
            format!("# operator:   {}\n", m.op),
            format!("# class:      {}\n", m.class),
            format!("# at:         {}:{}  {}\n", m.file, m.line, m.site),
            format!("# descriptor: {}\n", m.descriptor),
        ] {
            assert!(head.contains(&line), "{line} not in {head}");
        }
        let file = root.join(&m.file);
        let original = std::fs::read_to_string(&file).unwrap();
        let want = patch::mutated_text(&original, m).unwrap();
        assert_eq!(patch::apply_diff(&m.file, &original, &text).unwrap(), want);
        if tools {
            let pf = outside.join(format!("{}.diff", m.id));
            std::fs::write(&pf, &text).unwrap();
            run(Command::new("git")
                .args(["apply", "--check"])
                .arg(&pf)
                .current_dir(&root));
            run(Command::new("patch")
                .args(["-p1", "--dry-run", "-s", "--fuzz=0", "-i"])
                .arg(&pf)
                .current_dir(&root));
            applies_with_git_and_patch(&root, &file, &pf, &original, &want, &m.descriptor);
        }
    }
    // the shortest unique prefix (at least 4 digits), uppercase, shows the same
    let mut ids: Vec<String> = ms.iter().map(|m| m.id.clone()).collect();
    ids.extend(
        catalogue::config_catalogue("Tiny")
            .into_iter()
            .map(|(_, m)| m.id),
    );
    let m = picked[0];
    let prefix = (4..=12)
        .map(|n| &m.id[..n])
        .find(|p| ids.iter().filter(|id| id.starts_with(p)).count() == 1)
        .unwrap();
    let full = one_mutant("show", &m.id, &root, &[]);
    let short = one_mutant("show", &prefix.to_uppercase(), &root, &[]);
    assert_eq!(short.status.code(), Some(0), "{}", stderr_of(&short));
    assert_eq!(short.stdout, full.stdout);
    // the protocol directory itself names the same tree
    let proto = root.join("src/mem/ruby/protocol");
    let o = one_mutant("show", &m.id, &proto, &[]);
    assert_eq!(o.stdout, full.stdout);
    // a reader gone: 141, as every command
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_memconform"))
        .args(["mutate", "show", &m.id, "--gem5-root"])
        .arg(&root)
        .args(["--protocol", "Tiny"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr_of(&o));
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&outside);
}

/// `mutate apply` writes the mutant (permissions kept, a record at the
/// root that `git apply -R` takes) and prints the next steps; applying it
/// again, or another mutant, is refused with the command that reverts;
/// `--revert` restores the bytes exactly and refuses a file edited since;
/// a record whose file was restored by hand is dropped by the next apply.
#[test]
fn apply_then_revert_restores_the_bytes_exactly() {
    use std::os::unix::fs::PermissionsExt;
    let root = tiny_gem5_tree("apply-cli");
    let proto = root.join("src/mem/ruby/protocol");
    // a file without a final newline, with its own permissions
    let dir_sm = proto.join("Tiny-dir.sm");
    let t = std::fs::read_to_string(&dir_sm).unwrap();
    std::fs::write(&dir_sm, t.trim_end_matches('\n')).unwrap();
    std::fs::set_permissions(&dir_sm, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let before = tree_bytes(&root);
    let ms = generate(&root, "Tiny", &Options::default()).unwrap();
    // the dir mutant nearest the end (its patch reaches the missing newline)
    let m = ms
        .iter()
        .filter(|m| m.file.ends_with("Tiny-dir.sm"))
        .max_by_key(|m| m.line)
        .unwrap();
    let other = ms
        .iter()
        .find(|m| m.file.ends_with("Tiny-cache.sm"))
        .unwrap();
    let record = root.join(".memconform-mutant.diff");
    let original = std::fs::read_to_string(&dir_sm).unwrap();
    let mutated = patch::mutated_text(&original, m).unwrap();

    let o = one_mutant("apply", &m.id[..6], &root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for needle in [
        format!("applied mutant {}", m.id),
        format!("{}:{}", m.file, m.line),
        "memconform does not build".to_string(),
        "scons build/".to_string(),
        format!("mutate apply {} --revert --gem5-root", m.id),
    ] {
        assert!(out.contains(&needle), "{needle} not in {out}");
    }
    assert_eq!(std::fs::read_to_string(&dir_sm).unwrap(), mutated);
    assert_eq!(mode(&dir_sm), 0o640);
    assert!(record.is_file());
    if have("git") && have("patch") {
        // git and patch take the record as the mutant's reverse patch
        run(Command::new("git")
            .args(["apply", "-R", "--check"])
            .arg(&record)
            .current_dir(&root));
        run(Command::new("patch")
            .args(["-R", "-p1", "--dry-run", "-s", "--fuzz=0", "-i"])
            .arg(&record)
            .current_dir(&root));
        // and git sees only the mutated file changed
        let st = git_in(&root, &["status", "--porcelain"]);
        assert_eq!(
            String::from_utf8_lossy(&st.stdout),
            format!(" M {}\n?? .memconform-mutant.diff\n", m.file)
        );
    }

    // twice: refused, nothing written, the revert command given
    let o = one_mutant("apply", &m.id, &root, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr_of(&o);
    assert!(e.starts_with("memconform mutate apply: "), "{e}");
    assert!(e.contains("is already applied"), "{e}");
    assert!(
        e.contains(&format!("mutate apply {} --revert", m.id)),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&dir_sm).unwrap(), mutated);
    // another mutant while one is applied: refused
    let o = one_mutant("apply", &other.id, &root, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr_of(&o);
    assert!(e.contains("already carries mutant"), "{e}");
    assert!(e.contains("revert it first"), "{e}");
    // reverting another mutant: refused
    let o = one_mutant("apply", &other.id, &root, &["--revert"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains(&format!("not {}", other.id)),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(std::fs::read_to_string(&dir_sm).unwrap(), mutated);

    // the revert: every byte back, the permissions kept, the record gone
    let o = one_mutant("apply", "", &root, &["--revert"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("reverted mutant {}", m.id)));
    assert_eq!(tree_bytes(&root), before);
    assert_eq!(mode(&dir_sm), 0o640);
    // nothing left to revert
    let o = one_mutant("apply", &m.id, &root, &["--revert"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("no mutant applied"),
        "{}",
        stderr_of(&o)
    );

    // edited since it was applied: the revert is refused, the file kept
    let o = one_mutant("apply", &m.id, &root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let edited = format!("{mutated}\n// my edit\n");
    std::fs::write(&dir_sm, &edited).unwrap();
    let o = one_mutant("apply", &m.id, &root, &["--revert"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr_of(&o);
    assert!(e.contains("edited since"), "{e}");
    assert!(e.contains("git checkout -- "), "{e}");
    assert_eq!(std::fs::read_to_string(&dir_sm).unwrap(), edited);
    // and applying another is refused too
    let o = one_mutant("apply", &other.id, &root, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr_of(&o).contains("edited since"), "{}", stderr_of(&o));

    // restored by hand: the next apply drops the stale record
    std::fs::write(&dir_sm, &original).unwrap();
    let o = one_mutant("apply", &other.id, &root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("stale record"), "{}", stderr_of(&o));
    let o = one_mutant("apply", &other.id[..8], &root, &["--revert"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert_eq!(tree_bytes(&root), before, "no temporary file left");
    let _ = std::fs::remove_dir_all(&root);
}

/// A protocol two of whose mutants share their first 4 id digits (found by
/// trying action names), written under `dir`: the shared prefix.
fn ambiguous_protocol(dir: &Path) -> String {
    let id =
        |a: &str| memconform::mutate::mutant_id(&format!("Amb-x.sm::transition(A,E,B)::{a}::TDA"));
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let (a, b) = (0..100_000)
        .map(|i| format!("a{i}"))
        .find_map(|a| {
            let p = id(&a)[..4].to_string();
            match seen.get(&p) {
                Some(b) => Some((b.clone(), a)),
                None => {
                    seen.insert(p, a);
                    None
                }
            }
        })
        .unwrap();
    std::fs::write(
        dir.join("Amb.slicc"),
        "protocol \"Amb\";\ninclude \"Amb-x.sm\";\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Amb-x.sm"),
        format!(
            r#"machine(MachineType:L1Cache, "x") : {{
  state_declaration(State, desc="s") {{ A, AccessPermission:Invalid; B, AccessPermission:Invalid; }}
  enumeration(Event, desc="e") {{ E; }}
  action({a}, "a") {{ tbe.X := 1; }}
  action({b}, "b") {{ tbe.Y := 2; }}
  transition(A, E, B) {{ {a}; {b}; }}
}}
"#
        ),
    )
    .unwrap();
    let ids: Vec<String> = generate(dir, "Amb", &all_classes())
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert!(ids.contains(&id(&a)) && ids.contains(&id(&b)), "{ids:?}");
    id(&a)[..4].to_string()
}

/// Unknown, malformed, ambiguous and foreign ids are errors (exit 2) that
/// say what to do, and write nothing; a configuration bug shows its gem5
/// option and is not applied; a tree that carries a mutant applied by
/// hand says so when its ids are asked for.
#[test]
fn unknown_and_ambiguous_ids_are_refused() {
    let root = tiny_gem5_tree("ids");
    let before = tree_bytes(&root);
    let ms = generate(&root, "Tiny", &all_classes()).unwrap();
    let unknown = (0..)
        .map(|i| format!("{i:012x}"))
        .find(|p| !ms.iter().any(|m| m.id == *p))
        .unwrap();
    for cmd in ["show", "apply"] {
        let o = one_mutant(cmd, &unknown, &root, &[]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let e = stderr_of(&o);
        assert!(
            e.starts_with(&format!(
                "memconform mutate {cmd}: no mutant of Tiny has an id starting with {unknown}"
            )),
            "{e}"
        );
        assert!(e.contains("`mutate list"), "{e}");
        for (bad, why) in [
            ("2c4", "at least 4 hex digits"),
            ("0123456789abc", "ids have 12 hex digits"),
            ("nope", "neither a mutant id"),
        ] {
            let o = one_mutant(cmd, bad, &root, &[]);
            assert_eq!(o.status.code(), Some(2), "{cmd} {bad}");
            assert!(stderr_of(&o).contains(why), "{}", stderr_of(&o));
        }
        let o = one_mutant(cmd, "me-8", &root, &[]);
        assert_eq!(o.status.code(), Some(2));
        let e = stderr_of(&o);
        assert!(
            e.contains("ME-8 is a bug of MESI_Two_Level's catalogue, not of Tiny's"),
            "{e}"
        );
        assert!(e.contains("CF-1, CF-2"), "{e}");
    }
    // a configuration bug: its option shown, nothing to apply
    let o = one_mutant("show", "CF-1", &root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("# catalogue:  CF-1\n"), "{text}");
    assert!(
        text.contains("--param 'system.cpu[:].needsTSO=False'"),
        "{text}"
    );
    assert!(!text.contains("--- a/"), "{text}");
    let o = one_mutant("apply", "CF-1", &root, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("configuration mutant"),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(tree_bytes(&root), before);

    // a prefix two ids share: both listed, nothing written
    let amb = temp_dir("ids-ambiguous");
    let prefix = ambiguous_protocol(&amb);
    let amb_before = tree_bytes(&amb);
    for cmd in ["show", "apply"] {
        let o = memconform(&[
            "mutate",
            cmd,
            &prefix,
            "--gem5-root",
            amb.to_str().unwrap(),
            "--protocol",
            "Amb",
        ]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let e = stderr_of(&o);
        assert!(
            e.contains(&format!(
                "{prefix} is the start of 2 ids; give more digits:"
            )),
            "{e}"
        );
        assert_eq!(
            e.lines()
                .filter(|l| l.starts_with(&format!("  {prefix}")))
                .count(),
            2,
            "{e}"
        );
        assert!(e.contains("Amb-x.sm:6"), "{e}");
    }
    assert_eq!(tree_bytes(&amb), amb_before);

    // a mutant applied by hand: its id is gone, and the error says why
    let m = ms
        .iter()
        .find(|m| m.op == "TDA" && m.file.ends_with("Tiny-cache.sm"))
        .unwrap();
    patch::apply(&root, m).unwrap();
    let o = one_mutant("show", &m.id, &root, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr_of(&o);
    assert!(e.contains(&format!("{}:{}", m.file, m.line)), "{e}");
    assert!(e.contains("already carries a mutant"), "{e}");
    let o = one_mutant("apply", "", &root, &["--revert"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr_of(&o).contains("git apply -R"), "{}", stderr_of(&o));

    // the help teaches, with examples
    for (cmd, words) in [
        (
            "show",
            &["git", "patch -p1", "ME-8", "Examples:", "unique prefix"][..],
        ),
        (
            "apply",
            &[
                "--revert",
                "scons",
                "does not build",
                "Examples:",
                ".memconform-mutant.diff",
            ][..],
        ),
    ] {
        let o = memconform(&["mutate", cmd, "--help"]);
        let help = String::from_utf8_lossy(&o.stdout);
        for w in words {
            assert!(help.contains(w), "{w} missing from mutate {cmd} --help");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&amb);
}

/// With GEM5_ROOT: ME-8 (one edit with ME-4) shown by name and by prefix,
/// applied to a copy of MESI_Two_Level's files (the build_opts that select
/// it suggested), reverted to the exact bytes.
#[test]
fn gem5_show_and_apply_a_catalogue_bug() {
    let Some(gem5) = gem5_root() else { return };
    let root = temp_dir("gem5-one");
    let src = gem5.join("src/mem/ruby/protocol");
    let proto = root.join("src/mem/ruby/protocol");
    std::fs::create_dir_all(&proto).unwrap();
    for f in protocol_files(&src, "MESI_Two_Level") {
        std::fs::copy(src.join(&f), proto.join(&f)).unwrap();
    }
    std::fs::create_dir_all(root.join("build_opts")).unwrap();
    for f in ["NULL", "NULL_MESI_Two_Level", "X86_MESI_Two_Level"] {
        let _ = std::fs::copy(
            gem5.join("build_opts").join(f),
            root.join("build_opts").join(f),
        );
    }
    let before = tree_bytes(&root);
    let args = |cmd: &'static str, id: &'static str| {
        let mut a = vec!["mutate", cmd];
        if !id.is_empty() {
            a.push(id);
        }
        a.extend([
            "--gem5-root",
            root.to_str().unwrap(),
            "--protocol",
            "MESI_Two_Level",
        ]);
        a
    };
    let o = memconform(&args("show", "ME-8"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.starts_with("# mutant:     2c440e45b307\n# catalogue:  ME-4=ME-8\n"),
        "{text}"
    );
    assert!(text.contains("-    forward_eviction_to_cpu;"), "{text}");
    let o = memconform(&args("show", "2c440e"));
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
    let o = memconform(&args("apply", "ME-8"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("scons build/NULL_MESI_Two_Level/gem5.opt"),
        "{out}"
    );
    assert!(out.contains("mutate apply 2c440e45b307 --revert"), "{out}");
    let o = memconform(&args("apply", "ME-4"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("2c440e45b307 (ME-4=ME-8) is already applied"),
        "{}",
        stderr_of(&o)
    );
    let o = memconform(&args("apply", "ME-8"));
    let o2 = memconform(&[&args("apply", "ME-4")[..], &["--revert"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(o2.status.code(), Some(0), "{}", stderr_of(&o2));
    assert_eq!(tree_bytes(&root), before);
    let _ = std::fs::remove_dir_all(&root);
}

/// Every patch, applied backwards to its mutated text, gives the base file
/// back exactly (what `mutate apply --revert` relies on), near a missing
/// final newline too; a text that is not the mutated one is refused.
#[test]
fn every_patch_unapplies_to_its_base() {
    let dir = temp_dir("unapply");
    copy_tiny(&dir);
    let dir_sm = dir.join("Tiny-dir.sm");
    let t = std::fs::read_to_string(&dir_sm).unwrap();
    std::fs::write(&dir_sm, t.trim_end_matches('\n')).unwrap();
    let ms = generate(&dir, "Tiny", &all_classes()).unwrap();
    for m in &ms {
        let original = std::fs::read_to_string(dir.join(&m.file)).unwrap();
        let mutated = patch::mutated_text(&original, m).unwrap();
        assert_eq!(
            patch::unapply_diff(&m.file, &mutated, &m.patch).unwrap(),
            original,
            "{}",
            m.descriptor
        );
        assert!(
            matches!(
                patch::unapply_diff(&m.file, &original, &m.patch),
                Err(PatchError::Context { .. })
            ),
            "{}",
            m.descriptor
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CHI-style machine (docs/design/campaigns.md §3, machine-level
/// includes): the operators read its actions and transitions in the files
/// it includes, each mutant names and edits the file its site is written
/// in, at the right line, with the machine's out_ports and the values it
/// sends gathered from every file; the edited protocol reads again.
#[test]
fn mutants_of_a_machine_live_in_the_files_it_includes() {
    let mut p = slicc::load_protocol(&split_dir(), "Split").unwrap();
    let ms = ops::generate_from(&p, &all_classes()).unwrap();
    let files: std::collections::BTreeSet<&str> = ms.iter().map(|m| m.file.as_str()).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        [
            "Split-dir.sm",
            "cache/Split-cache-actions.sm",
            "cache/Split-cache-transitions.sm"
        ]
    );
    let find = |descriptor: &str| {
        ms.iter()
            .find(|m| m.descriptor == descriptor)
            .unwrap_or_else(|| panic!("no mutant {descriptor}"))
    };
    let trans = "cache/Split-cache-transitions.sm";
    let acts = "cache/Split-cache-actions.sm";
    // a transition's action deleted in the transitions file
    let m = find("cache/Split-cache-transitions.sm::transition(IM,Data,M)::u_writeData::TDA");
    assert_eq!(
        (m.file.as_str(), m.line, m.class.as_str()),
        (trans, split_line(trans, "u_writeData;"), "tier1")
    );
    assert_eq!(m.site, "transition(IM, Data, M)");
    assert_eq!(m.fires, Some(vec!["L1Cache.IM.Data".to_string()]));
    assert!(m.patch.contains(&format!("--- a/{trans}\n+++ b/{trans}\n")));
    assert!(m
        .patch
        .contains("\n-  u_writeData;\n+  // [mutant] u_writeData;\n"));
    let m =
        find("cache/Split-cache-transitions.sm::transition(I,{Load,Store},IM)::IM->stay::TNS-stay");
    assert_eq!(
        m.line,
        split_line(trans, "transition(I, {Load, Store}, IM)")
    );
    // an action's statements in the actions file: MTR from the values the
    // machine sends, ERT to an out_port the ports file declares
    let of = |op: &str, site: &str| -> Vec<&Mutant> {
        ms.iter().filter(|m| m.op == op && m.site == site).collect()
    };
    let mtr = of("MTR", "action(a_issueGet)");
    assert_eq!(mtr.len(), 1);
    assert!(mtr[0]
        .descriptor
        .starts_with("cache/Split-cache-actions.sm::action(a_issueGet)::assign:"));
    assert!(mtr[0].descriptor.ends_with("::GET->PUT::MTR"));
    assert_eq!(
        (mtr[0].file.as_str(), mtr[0].line),
        (acts, split_line(acts, "SplitRequestType:GET;"))
    );
    let ert = of("ERT", "action(a_issueGet)");
    assert_eq!(ert.len(), 1);
    assert!(ert[0]
        .descriptor
        .ends_with("::requestNetwork_out->retryNetwork_out::ERT"));
    assert_eq!(ert[0].line, split_line(acts, "enqueue(requestNetwork_out"));
    let ads = of("ADS", "action(u_writeData)");
    assert_eq!(ads.len(), 4, "the peek and its three statements");
    assert!(ads.iter().all(|m| m.file == acts));
    assert_eq!(
        ads.iter().map(|m| m.line).min(),
        Some(split_line(acts, "peek(responseNetwork_in"))
    );
    // the actions a machine's transitions name (in another file) are live,
    // and fire with them
    let w = of("ADS", "action(w_deallocateTBE)");
    assert!(!w.is_empty());
    for m in &w {
        assert_eq!(m.class, "tier1", "{}", m.descriptor);
        assert_eq!(
            m.fires,
            Some(vec![
                "L1Cache.IM.Data".to_string(),
                "L1Cache.MI.WbAck".to_string()
            ])
        );
    }
    // every mutant: its line is its first changed line, the edit keeps the
    // line count, and the protocol with the edit reads again with the same
    // actions and headers
    for m in &ms {
        let fi = p.files.iter().position(|f| f.rel_path == m.file).unwrap();
        let before = p.files[fi].text.clone();
        let mutated = patch::mutated_text(&before, m).unwrap();
        assert_eq!(mutated.lines().count(), before.lines().count());
        let first = before
            .lines()
            .zip(mutated.lines())
            .position(|(a, b)| a != b)
            .unwrap();
        assert_eq!(first + 1, m.line, "{}", m.descriptor);
        let mut q = p.clone();
        q.reparse(vec![(fi, mutated)])
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", m.descriptor));
        let cache = &q.files[1].machines[0];
        assert_eq!(
            (cache.actions.len(), cache.transitions.len()),
            (17, 11),
            "{}",
            m.descriptor
        );
    }
    // reading the protocol again from memory changes nothing
    let again = generate(&split_dir(), "Split", &all_classes()).unwrap();
    p.reparse(Vec::new()).unwrap();
    assert_eq!(ops::generate_from(&p, &all_classes()).unwrap(), again);
    assert_eq!(again, ms);
    // the command line lists them per file
    let d = split_dir();
    let o = memconform(&[
        "mutate",
        "list",
        d.to_str().unwrap(),
        "--protocol",
        "Split",
        "--classes",
        "all",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with(&format!("Split: {} mutants in 3 files", ms.len())),
        "{text}"
    );
    let m = find("cache/Split-cache-transitions.sm::transition(IM,Data,M)::u_writeData::TDA");
    assert!(text.contains(&format!(
        "{}  TDA         tier1           Split-cache-transitions.sm:{}  {}",
        m.id, m.line, m.descriptor
    )));
}

/// The patches of an included file's mutants apply with `git apply` and
/// `patch -p1` in a gem5-shaped tree whose protocol sits in a directory of
/// its own (as CHI's `chi/`), and with memconform's own apply.
#[test]
fn patches_of_included_files_apply_with_git_apply_and_patch_p1() {
    if !have("git") || !have("patch") {
        println!("skipped: git or patch is missing");
        return;
    }
    let root = temp_dir("apply-split");
    let proto = root.join("src/mem/ruby/protocol/split");
    copy_split(&proto);
    let git = |args: &[&str]| git_in(&root, args);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    let ms = generate(&root, "Split", &all_classes()).unwrap();
    let patches = root.join("patches");
    std::fs::create_dir_all(&patches).unwrap();
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for m in ms.iter().filter(|m| m.file.contains("/cache/")) {
        *per_file.entry(m.file.as_str()).or_insert(0) += 1;
        let file = root.join(&m.file);
        let original = std::fs::read_to_string(&file).unwrap();
        let want = patch::mutated_text(&original, m).unwrap();
        let pf = patches.join(format!("{}.diff", m.id));
        std::fs::write(&pf, &m.patch).unwrap();
        applies_with_git_and_patch(&root, &file, &pf, &original, &want, &m.descriptor);
        patch::apply(&root, m).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
        std::fs::write(&file, &original).unwrap();
    }
    let files: Vec<&str> = per_file.keys().copied().collect();
    assert_eq!(
        files,
        [
            "src/mem/ruby/protocol/split/cache/Split-cache-actions.sm",
            "src/mem/ruby/protocol/split/cache/Split-cache-transitions.sm"
        ]
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Base edits and declared coverage see a machine's transitions in the
/// files it includes: an entry edits the transitions file (its diff names
/// it), a rule reaches every header running an action, and the declared
/// (state, event) pairs are the included file's.
#[test]
fn base_edits_and_coverage_reach_included_transitions() {
    use memconform::mutate::{base_edits, coverage};
    let mut p = slicc::load_protocol(&split_dir(), "Split").unwrap();
    let declared = coverage::declared(&p);
    let cache = declared
        .machines
        .iter()
        .find(|m| m.machine == "L1Cache")
        .unwrap();
    assert_eq!(cache.transitions.len(), 16);
    assert_eq!(cache.transitions.values().filter(|&&s| s).count(), 4);
    assert_eq!(
        cache
            .transitions
            .get(&("IM".to_string(), "Data".to_string())),
        Some(&false)
    );
    let edits = base_edits::parse(
        "split.edits",
        "in L1Cache, transition(IM, Data): remove k_wakeUp;\n\
         in L1Cache, with w_deallocateTBE: add k_wakeUp after w_deallocateTBE;\n",
    )
    .unwrap();
    let before = p.files[5].text.clone();
    let applied = base_edits::apply(&mut p, &edits).unwrap();
    let trans = "cache/Split-cache-transitions.sm";
    assert!(
        applied
            .diff
            .starts_with(&format!("--- a/{trans}\n+++ b/{trans}\n")),
        "{}",
        applied.diff
    );
    assert_eq!(applied.diff.matches("--- a/").count(), 1);
    assert_eq!(applied.changes.len(), 2);
    assert_eq!(
        applied.changes[0].1,
        [format!("{trans}:19 transition(IM, Data, M)")]
    );
    assert_eq!(
        applied.changes[1].1,
        [
            format!("{trans}:19 transition(IM, Data, M)"),
            format!("{trans}:49 transition(MI, WbAck, I)")
        ]
    );
    assert_eq!(p.files[5].text.lines().count(), before.lines().count());
    assert_eq!(
        patch::apply_diff(trans, &before, &applied.diff).unwrap(),
        p.files[5].text
    );
    let cache = &p.files[1].machines[0];
    let row = |s: &str, e: &str| {
        cache
            .expanded()
            .into_iter()
            .find(|(a, b, _, _)| a == s && b == e)
            .unwrap()
            .3
    };
    assert_eq!(
        row("IM", "Data"),
        [
            "u_writeData",
            "s_storeHit",
            "w_deallocateTBE",
            "k_wakeUp",
            "n_popResponseQueue"
        ]
    );
    assert_eq!(
        row("MI", "WbAck"),
        ["w_deallocateTBE", "k_wakeUp", "o_popForwardQueue"]
    );
    // the mutants are made from the edited files
    let ms = ops::generate_from(&p, &all_classes()).unwrap();
    assert!(ms.iter().any(|m| m.descriptor
        == "cache/Split-cache-transitions.sm::transition(MI,WbAck,I)::k_wakeUp::TDA"));
}

/// With GEM5_ROOT: the pre-check (gem5-configs/slicc_check.py) finds CHI's
/// `.slicc` in its own directory (`chi/CHI.slicc`) and runs gem5's SLICC on
/// it: the stock protocol is accepted, one with an action that names an
/// undeclared variable is rejected.
#[test]
fn gem5_the_precheck_reads_chi_in_its_directory() {
    let Some(gem5) = gem5_root() else { return };
    let dir = common::temp_dir("mutate", "chi-precheck");
    let root = common::slicc_tree(&gem5, &dir);
    assert_eq!(common::slicc_check(&root, "CHI"), Some(0));
    assert_eq!(common::slicc_check(&root, "NoSuchProtocol"), Some(2));
    let actions = root.join("src/mem/ruby/protocol/chi/CHI-cache-actions.sm");
    let text = std::fs::read_to_string(&actions).unwrap();
    let at = text.find("action(").unwrap();
    let body = at + text[at..].find('{').unwrap() + 1;
    let broken = format!(
        "{}\n  no_such_variable := 1;{}",
        &text[..body],
        &text[body..]
    );
    std::fs::write(&actions, broken).unwrap();
    assert_eq!(common::slicc_check(&root, "CHI"), Some(1));
}

/// With GEM5_ROOT: CHI's cache and DVM misc node are mutated in the files
/// their machines include (actions, transitions), each patch applies to
/// its file's text; the declared (state, event) pairs include the cache's.
#[test]
fn gem5_chi_mutants_reach_the_included_files() {
    let Some(gem5) = gem5_root() else { return };
    let p = slicc::load_protocol(&gem5, "CHI").unwrap();
    let all = ops::generate_from(&p, &all_classes()).unwrap();
    let default = ops::generate_from(&p, &Options::default()).unwrap();
    let mut per: BTreeMap<(String, String), usize> = BTreeMap::new();
    for m in &default {
        let file = m.file.rsplit('/').next().unwrap().to_string();
        *per.entry((file, m.op.clone())).or_insert(0) += 1;
    }
    for ((file, op), n) in &per {
        println!("{file} {op} {n}");
    }
    let files: std::collections::BTreeSet<&str> = default
        .iter()
        .map(|m| m.file.rsplit('/').next().unwrap())
        .collect();
    for f in [
        "CHI-cache-actions.sm",
        "CHI-cache-transitions.sm",
        "CHI-mem.sm",
        "CHI-dvm-misc-node-actions.sm",
        "CHI-dvm-misc-node-transitions.sm",
    ] {
        assert!(files.contains(f), "no mutant in {f}: {files:?}");
    }
    // the catalogue resolves: CH-1 and CH-2 (an eviction forward gone from
    // a transition), CH-3 (from the action itself, under send_evictions)
    let named = catalogue::resolve(&p).unwrap();
    let got: Vec<(&str, &str, &str)> = named
        .iter()
        .map(|(n, m)| (n.as_str(), m.op.as_str(), m.class.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("CH-1", "TDA", "tier1"),
            ("CH-2", "TDA", "tier1"),
            ("CH-3", "ADS", "tier1+needs:o3")
        ]
    );
    for m in all.iter().step_by(53) {
        let f = p.files.iter().find(|f| f.rel_path == m.file).unwrap();
        let t = patch::mutated_text(&f.text, m).unwrap();
        assert_eq!(t.lines().count(), f.text.lines().count());
        assert!(m.descriptor.starts_with(&format!("{}::", f.name)));
    }
    // a sample of the default mutants: SLICC accepts them, or it is a
    // mutant the campaign's pre-check classes unviable
    if have("python3") {
        let root = temp_dir("slicc-chi");
        let (proto_root, manifest) = slicc::protocol_root(&gem5, "CHI").unwrap();
        let chi = proto_root.join(manifest.parent().unwrap());
        let sample: Vec<&Mutant> = default.iter().step_by(default.len().div_ceil(24)).collect();
        let files = all_protocol_files(&chi);
        let dirs = mutant_dirs(&chi, &files, &sample, &root.join("chi"));
        let rejected = slicc_rejections(&gem5, "CHI", &dirs, &sample, &root.join("CHI.json"));
        println!(
            "CHI: SLICC accepted {} of {} sampled mutants",
            sample.len() - rejected.len(),
            sample.len()
        );
        for r in &rejected {
            println!("  rejected (unviable in a campaign): {r}");
        }
        assert!(rejected.len() * 10 <= sample.len());
        let _ = std::fs::remove_dir_all(&root);
    }
    let declared = memconform::mutate::coverage::declared(&p);
    let cache = declared
        .machines
        .iter()
        .find(|m| m.machine == "Cache")
        .unwrap();
    println!(
        "CHI Cache: {} declared (state, event) pairs, {} of them stalls",
        cache.transitions.len(),
        cache.transitions.values().filter(|&&s| s).count()
    );
    assert!(cache.transitions.len() > 1000);
}

/// MTR reads the message type field by either of its spellings: `Type`
/// (the classic protocols) and `type` (CHI): the same mutants, one per
/// other value this machine sends.
#[test]
fn message_type_replacement_reads_chis_lower_case_field() {
    let base = generate(&tiny_dir(), "Tiny", &all_classes()).unwrap();
    let mtr = |ms: &[Mutant]| -> Vec<String> {
        let mut v: Vec<String> = ms
            .iter()
            .filter(|m| m.op == "MTR")
            .map(|m| format!("{}:{} {}", m.file, m.line, m.site))
            .collect();
        v.sort();
        v
    };
    assert_eq!(mtr(&base).len(), 5);
    let dir = temp_dir("lower-type");
    copy_tiny(&dir);
    let cache = dir.join("Tiny-cache.sm");
    let text = std::fs::read_to_string(&cache).unwrap();
    let lower = text.replace("out_msg.Type :=", "out_msg.type :=");
    assert_ne!(lower, text);
    std::fs::write(&cache, lower).unwrap();
    let after = generate(&dir, "Tiny", &all_classes()).unwrap();
    assert_eq!(mtr(&after), mtr(&base));
    let _ = std::fs::remove_dir_all(&dir);
}
