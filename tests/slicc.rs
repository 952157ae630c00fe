//! The SLICC reader: the hand-written Tiny protocol's machines expanded to
//! (state, event) -> (next, actions) tables, every transition form and
//! statement kind, located syntax errors; machine-level includes on the
//! hand-written Split protocol (a CHI-style machine split across files:
//! what belongs where, located include errors); with GEM5_ROOT, the tables
//! of gem5's own SLICC front end on five protocols, CHI included (and on
//! Tiny and Split).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{copy_split, split_dir, split_line};

use memconform::mutate::slicc::{self, Machine, StatementKind};

fn tiny_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/slicc/tiny")
}

/// `S E -> N: a b c` per row.
fn table(m: &Machine) -> Vec<String> {
    m.expanded()
        .into_iter()
        .map(|(s, e, n, a)| {
            format!("{s} {e} -> {n}: {}", a.join(" "))
                .trim_end()
                .to_string()
        })
        .collect()
}

fn lines(s: &str) -> Vec<String> {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn tiny_tables_are_as_written() {
    let p = slicc::load_protocol(&tiny_dir(), "Tiny").expect("Tiny parses");
    assert_eq!(p.name, "Tiny");
    let names: Vec<&str> = p.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["Tiny-msg.sm", "Tiny-cache.sm", "Tiny-dir.sm", "Tiny-dma.sm"]
    );
    assert!(p.files[0].machines.is_empty());
    assert_eq!(p.files[0].enumerations.len(), 2);
    let cache = &p.files[1].machines[0];
    assert_eq!(cache.ident, "L1Cache");
    let states: Vec<&str> = cache.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(states, ["I", "IM", "M", "MI"]);
    let events: Vec<&str> = cache.events.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        events,
        ["Load", "Store", "Data", "Fwd", "Replacement", "WbAck"]
    );
    let types: Vec<&str> = cache
        .request_types
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(types, ["TagRead", "DataWrite"]);
    let outs: Vec<(&str, &str)> = cache
        .out_ports
        .iter()
        .map(|p| (p.name.name.as_str(), p.msg_type.as_str()))
        .collect();
    assert_eq!(
        outs,
        [
            ("requestNetwork_out", "TinyRequestMsg"),
            ("retryNetwork_out", "TinyRequestMsg"),
            ("responseNetwork_out", "TinyResponseMsg")
        ]
    );
    assert_eq!(cache.in_ports.len(), 3);
    assert_eq!(cache.actions.len(), 21);
    let want = lines(
        "
        IM Load -> IM: z_stall
        IM Store -> IM: z_stall
        MI Load -> MI: z_stall
        MI Store -> MI: z_stall
        IM Replacement -> IM: zz_stallAndWait
        I Load -> IM: v_allocateTBE i_allocateBlock a_issueGet p_profileMiss m_popMandatoryQueue
        I Store -> IM: v_allocateTBE i_allocateBlock a_issueGet m_popMandatoryQueue
        IM Data -> M: u_writeData s_storeHit w_deallocateTBE n_popResponseQueue k_wakeUp
        IM Fwd -> IM: y_retryRequest o_popForwardQueue
        M Load -> M: r_loadHit m_popMandatoryQueue
        M Store -> M: s_storeHit m_popMandatoryQueue
        M Replacement -> MI: v_allocateTBE x_copyToTBE b_issuePut f_forwardEviction h_deallocateBlock
        M Fwd -> MI: v_allocateTBE x_copyToTBE b_issuePut f_forwardEviction h_deallocateBlock
        MI Fwd -> MI: e_sendData o_popForwardQueue
        MI WbAck -> I: w_deallocateTBE o_popForwardQueue
        I Replacement -> I:
        I Fwd -> I: o_popForwardQueue
        ",
    );
    assert_eq!(table(cache), want);
    let dir = &p.files[2].machines[0];
    assert_eq!(dir.ident, "Directory");
    let want = lines(
        "
        I Get -> M: d_sendData o_setOwner i_popRequestQueue
        M Get -> M: f_forwardToOwner o_setOwner i_popRequestQueue
        M Put -> I: w_writeData c_clearOwner a_ackWriteback i_popRequestQueue
        I PutStale -> I: a_ackWriteback i_popRequestQueue
        M PutStale -> M: a_ackWriteback i_popRequestQueue
        MI Get -> MI: z_recycle
        MI Put -> MI: z_recycle
        MI PutStale -> MI: z_recycle
        ",
    );
    assert_eq!(table(dir), want);
    let dma = &p.files[3].machines[0];
    assert_eq!(dma.ident, "DMA");
    assert_eq!(table(dma), ["READY Request -> READY: n_note p_popQueue"]);
}

#[test]
fn every_transition_form_parses() {
    let text = r#"
machine(MachineType:L1Cache, "forms") : {
  state_declaration(State, desc="s") { A, AccessPermission:Invalid, desc="a"; B, AccessPermission:Invalid; }
  enumeration(Event, desc="e") { E1, desc="1"; E2; }
  enumeration(RequestType, desc="r") { R1; R2; }
  action(a, "a") { }
  action(b, "b") { }
  transition(A, E1, *) { a }
  transition({A,B}, {E1;E2}) {R1 R2} {a; b;}
  transition(B, E2, A) {} {}
  transition(A, E2) b
}
"#;
    let f = slicc::parse_sm("forms.sm", "forms.sm", text.to_string()).expect("parses");
    let m = &f.machines[0];
    let t = &m.transitions;
    assert_eq!(t.len(), 4);
    assert_eq!(t[0].next_state.as_ref().map(|n| n.name.as_str()), Some("*"));
    assert_eq!(t[0].normalized_header(), "transition(A,E1,*)");
    assert!(t[0].request_types.is_none());
    assert_eq!(t[1].states.names(), ["A", "B"]);
    assert_eq!(t[1].events.names(), ["E1", "E2"]);
    assert!(t[1].next_state.is_none());
    assert_eq!(
        t[1].request_types.as_ref().map(|r| r.names()),
        Some(vec!["R1", "R2"])
    );
    assert_eq!(t[1].actions.names(), ["a", "b"]);
    assert_eq!(t[1].normalized_header(), "transition({A,B},{E1,E2})");
    assert_eq!(t[1].header_words(), "transition({A, B}, {E1, E2})");
    assert_eq!(t[2].request_types.as_ref().map(|r| r.items.len()), Some(0));
    assert!(t[2].actions.items.is_empty() && t[2].actions.braced);
    assert!(!t[3].actions.braced);
    assert_eq!(t[3].actions.names(), ["b"]);
    assert_eq!(table(m).len(), 1 + 4 + 1 + 1);
}

#[test]
fn statements_have_their_kinds_and_ranges() {
    let p = slicc::load_protocol(&tiny_dir(), "Tiny").unwrap();
    let f = &p.files[1];
    let m = &f.machines[0];
    let kinds = |name: &str| -> Vec<&'static str> {
        m.action(name)
            .unwrap()
            .body
            .statements
            .iter()
            .map(|s| s.kind_name())
            .collect()
    };
    assert_eq!(kinds("e_sendData"), ["peek"]);
    assert_eq!(kinds("v_allocateTBE"), ["check_allocate", "call", "call"]);
    assert_eq!(
        kinds("x_copyToTBE"),
        ["call", "decl", "decl", "decl", "assign", "assign", "call"]
    );
    assert_eq!(kinds("y_retryRequest"), ["defer_enqueueing"]);
    assert_eq!(kinds("zz_stallAndWait"), ["stall_and_wait"]);
    assert!(kinds("z_stall").is_empty());
    // the if/else if/else chain inside e_sendData's enqueue
    let peek = &m.action("e_sendData").unwrap().body.statements[0];
    let StatementKind::Peek { port, body } = &peek.kind else {
        panic!("a peek")
    };
    assert_eq!(port, "forwardNetwork_in");
    let StatementKind::Enqueue {
        port,
        msg_type,
        body,
        ..
    } = &body.statements[0].kind
    else {
        panic!("an enqueue")
    };
    assert_eq!(
        (port.as_str(), msg_type.as_str()),
        ("responseNetwork_out", "TinyResponseMsg")
    );
    let chain = &body.statements[4];
    let StatementKind::If(branches) = &chain.kind else {
        panic!("an if")
    };
    assert_eq!(branches.len(), 3);
    assert!(branches[2].cond.is_none());
    let cond = branches[1].cond.unwrap();
    assert_eq!(&f.text[cond.start..cond.end], "is_valid(cache_entry)");
    // the chain's range: from `if` to the last `}`
    let text = &f.text[chain.span.start..chain.span.end];
    assert!(text.starts_with("if (is_valid(tbe))") && text.ends_with('}'));
    assert_eq!(text.lines().count(), 7);
    assert_eq!(f.compact(chain.head_tokens.clone()), "if(is_valid(tbe))");
    // local declarations know their names
    let decl = &m.action("x_copyToTBE").unwrap().body.statements[1];
    assert!(
        matches!(&decl.kind, StatementKind::LocalDecl { name, init: Some(_) } if name == "data")
    );
}

#[test]
fn syntax_errors_are_located() {
    let cases = [
        (
            "machine(MachineType:L1Cache, \"x\") : {\n  action(a, \"a\") {\n    x := 1\n  }\n}\n",
            "bad.sm:4:3:",
            "expected `;`",
        ),
        ("/* never closed\n", "bad.sm:1:1:", "unterminated comment"),
        (
            "machine(MachineType:L1Cache, \"x\") : {\n  transition(A E1) {}\n}\n",
            "bad.sm:2:16:",
            "expected `,`",
        ),
        ("  x := \"open\n", "bad.sm:1:8:", "unterminated string"),
        ("transition(A, B) {}\n", "bad.sm:1:1:", "outside a machine"),
        (
            "machine(MachineType:L1Cache, \"x\") : {\n  action(a) { @ }\n}\n",
            "bad.sm:2:15:",
            "`@`",
        ),
    ];
    for (text, at, what) in cases {
        let e = slicc::parse_sm("bad.sm", "bad.sm", text.to_string()).unwrap_err();
        let shown = e.to_string();
        assert!(shown.starts_with(at), "{shown} (wanted {at})");
        assert!(shown.contains(what), "{shown} (wanted {what})");
    }
}

/// A fresh temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("slicc", name)
}

/// A machine-level include (CHI style) puts the included file's actions,
/// transitions and ports in the enclosing machine, each recording the file
/// it is written in; nested includes resolve relative to the including
/// file's directory; every file stays its own, in SLICC's reading order.
#[test]
fn a_machine_gathers_the_files_it_includes() {
    let p = slicc::load_protocol(&split_dir(), "Split").expect("Split parses");
    let names: Vec<&str> = p.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Split-msg.sm",
            "Split-cache.sm",
            "cache/Split-cache-ports.sm",
            "cache/Split-cache-funcs.sm",
            "cache/Split-cache-actions.sm",
            "cache/Split-cache-transitions.sm",
            "Split-dir.sm"
        ]
    );
    let rel: Vec<&str> = p.files.iter().map(|f| f.rel_path.as_str()).collect();
    assert_eq!(rel[3], "cache/Split-cache-funcs.sm");
    let from: Vec<Option<(usize, usize)>> = p.files.iter().map(|f| f.included_from).collect();
    assert_eq!(
        from,
        [
            None,
            None,
            Some((1, 68)),
            Some((2, 9)),
            Some((1, 71)),
            Some((1, 72)),
            None
        ]
    );
    // the included files declare no machine of their own
    for f in &p.files[2..6] {
        assert!(
            f.machines.is_empty() && f.enumerations.is_empty(),
            "{}",
            f.name
        );
    }
    let cache = &p.files[1].machines[0];
    assert_eq!(cache.ident, "L1Cache");
    let inc: Vec<(&str, usize, usize, Option<usize>)> = cache
        .includes
        .iter()
        .map(|i| (i.name.as_str(), i.from, i.line, i.file))
        .collect();
    assert_eq!(
        inc,
        [
            ("cache/Split-cache-ports.sm", 1, 68, Some(2)),
            ("Split-cache-funcs.sm", 2, 9, Some(3)),
            ("cache/Split-cache-actions.sm", 1, 71, Some(4)),
            ("cache/Split-cache-transitions.sm", 1, 72, Some(5)),
        ]
    );
    // states and events from the machine's own file, the rest from its includes
    assert_eq!(cache.states.len(), 4);
    assert_eq!(cache.events.len(), 6);
    let outs: Vec<(&str, usize)> = cache
        .out_ports
        .iter()
        .map(|o| (o.name.name.as_str(), o.file))
        .collect();
    assert_eq!(
        outs,
        [
            ("requestNetwork_out", 2),
            ("retryNetwork_out", 2),
            ("responseNetwork_out", 2)
        ]
    );
    assert_eq!(cache.in_ports.len(), 3);
    assert!(cache.in_ports.iter().all(|i| i.file == 2));
    assert_eq!(cache.actions.len(), 17);
    assert!(cache.actions.iter().all(|a| a.file == 4));
    let u = cache.action("u_writeData").unwrap();
    assert_eq!(
        u.line,
        split_line("cache/Split-cache-actions.sm", "action(u_writeData")
    );
    // a statement's tokens are the actions file's
    let f = &p.files[u.file];
    assert_eq!(
        f.compact(u.body.statements[0].head_tokens.clone()),
        "peek(responseNetwork_in,SplitResponseMsg)"
    );
    assert_eq!(cache.transitions.len(), 11);
    assert!(cache.transitions.iter().all(|t| t.file == 5));
    let t = cache
        .transitions
        .iter()
        .find(|t| t.normalized_header() == "transition(IM,Data,M)")
        .unwrap();
    assert_eq!(t.line, 19);
    let text = &p.files[5].text;
    assert_eq!(&text[t.span.start..t.span.start + 10], "transition");
    assert_eq!(
        table(cache)[5..7],
        [
            "I Load -> IM: v_allocateTBE i_allocateBlock a_issueGet m_popMandatoryQueue",
            "I Store -> IM: v_allocateTBE i_allocateBlock a_issueGet m_popMandatoryQueue",
        ]
    );
    assert_eq!(cache.expanded().len(), 16);
    // the directory, written whole in one file, is as before
    let dir = &p.files[6].machines[0];
    assert_eq!(dir.ident, "Directory");
    assert!(dir.includes.is_empty());
    assert!(dir.actions.iter().all(|a| a.file == 6));
    assert!(dir.transitions.iter().all(|t| t.file == 6));
}

/// An included file that is missing, an include cycle, a file included a
/// second time and a stray `}` in an included file are errors at
/// `file:line:col` of the `include` (or of the `}`).
#[test]
fn include_errors_are_located() {
    let shown = |dir: &Path, file: &str, line: usize, col: usize| {
        format!("{}:{line}:{col}: ", dir.join(file).display())
    };
    let error = |dir: &Path| slicc::load_protocol(dir, "Split").unwrap_err().to_string();
    // missing: the nested include, looked for beside the including file
    let dir = temp_dir("missing");
    copy_split(&dir);
    std::fs::remove_file(dir.join("cache/Split-cache-funcs.sm")).unwrap();
    let e = error(&dir);
    assert!(
        e.starts_with(&shown(&dir, "cache/Split-cache-ports.sm", 9, 1)),
        "{e}"
    );
    assert!(
        e.contains("cannot read the included file `Split-cache-funcs.sm`"),
        "{e}"
    );
    assert!(e.contains("cache/Split-cache-funcs.sm"), "{e}");
    // a cycle: the functions include the ports that include them
    let dir = temp_dir("cycle");
    copy_split(&dir);
    let funcs = dir.join("cache/Split-cache-funcs.sm");
    let mut text = std::fs::read_to_string(&funcs).unwrap();
    let line = text.lines().count() + 2;
    text.push_str("\n  include \"Split-cache-ports.sm\";\n");
    std::fs::write(&funcs, text).unwrap();
    let e = error(&dir);
    assert!(
        e.starts_with(&shown(&dir, "cache/Split-cache-funcs.sm", line, 3)),
        "{e}"
    );
    assert!(
        e.contains(
            "include cycle: Split-cache-ports.sm -> Split-cache-funcs.sm -> Split-cache-ports.sm"
        ),
        "{e}"
    );
    // a file included twice (its actions would belong to the machine twice)
    let dir = temp_dir("twice");
    copy_split(&dir);
    let trans = dir.join("cache/Split-cache-transitions.sm");
    let text = std::fs::read_to_string(&trans).unwrap();
    std::fs::write(
        &trans,
        text.replacen(
            "// body.\n",
            "// body.\ninclude \"Split-cache-actions.sm\";\n",
            1,
        ),
    )
    .unwrap();
    let e = error(&dir);
    assert!(
        e.starts_with(&shown(&dir, "cache/Split-cache-transitions.sm", 3, 1)),
        "{e}"
    );
    assert!(
        e.contains("`Split-cache-actions.sm` is included a second time"),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "first included at {}:71",
            dir.join("Split-cache.sm").display()
        )),
        "{e}"
    );
    // a `}` closing nothing in an included file
    let dir = temp_dir("brace");
    copy_split(&dir);
    let actions = dir.join("cache/Split-cache-actions.sm");
    let text = std::fs::read_to_string(&actions).unwrap();
    std::fs::write(&actions, format!("{text}}}\n")).unwrap();
    let e = error(&dir);
    let last = text.lines().count() + 1;
    assert!(
        e.starts_with(&shown(&dir, "cache/Split-cache-actions.sm", last, 1)),
        "{e}"
    );
    // a syntax error in an included file names that file
    let dir = temp_dir("syntax");
    copy_split(&dir);
    let trans = dir.join("cache/Split-cache-transitions.sm");
    let text = std::fs::read_to_string(&trans).unwrap();
    std::fs::write(
        &trans,
        text.replacen("transition(IM, Data, M)", "transition(IM Data, M)", 1),
    )
    .unwrap();
    let e = error(&dir);
    assert!(
        e.starts_with(&shown(&dir, "cache/Split-cache-transitions.sm", 19, 15)),
        "{e}"
    );
    for name in ["missing", "cycle", "twice", "brace", "syntax"] {
        let _ = std::fs::remove_dir_all(
            dir.with_file_name(format!("memconform-slicc-{}-{name}", std::process::id())),
        );
    }
}

/// As gem5's SLICC does, an include not found beside the including file is
/// looked for under the protocols' base directory: the protocol directory
/// given directly, or a gem5 root's `src/mem/ruby/protocol`; a file found
/// in neither is an error that names the first place looked.
#[test]
fn an_include_falls_back_to_the_protocols_directory() {
    // the nested include written from the protocol directory, not beside
    let ports = |dir: &Path, name: &str| {
        let file = dir.join("cache/Split-cache-ports.sm");
        let text: Vec<String> = std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|l| match l.starts_with("include \"") {
                true => format!("include \"{name}\";"),
                false => l.to_string(),
            })
            .collect();
        std::fs::write(&file, text.join("\n") + "\n").unwrap();
    };
    let dir = temp_dir("fallback");
    copy_split(&dir);
    ports(&dir, "cache/Split-cache-funcs.sm");
    let p = slicc::load_protocol(&dir, "Split").expect("found under the protocol directory");
    assert_eq!(p.files[3].rel_path, "cache/Split-cache-funcs.sm");
    assert_eq!(p.files[3].included_from, Some((2, 9)));
    // a gem5 root: the base is src/mem/ruby/protocol, above the protocol's own directory
    let root = temp_dir("fallback-gem5");
    let proto = root.join("src/mem/ruby/protocol/split");
    copy_split(&proto);
    ports(&proto, "split/cache/Split-cache-funcs.sm");
    let p = slicc::load_protocol(&root, "Split").expect("found under src/mem/ruby/protocol");
    assert_eq!(p.manifest, "src/mem/ruby/protocol/split/Split.slicc");
    assert_eq!(
        p.files[3].rel_path,
        "src/mem/ruby/protocol/split/cache/Split-cache-funcs.sm"
    );
    // in neither place: the error names the file beside the include
    ports(&proto, "elsewhere/Split-cache-funcs.sm");
    let e = slicc::load_protocol(&root, "Split")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot read the included file `elsewhere/Split-cache-funcs.sm`"),
        "{e}"
    );
    assert!(
        e.contains("split/cache/elsewhere/Split-cache-funcs.sm"),
        "{e}"
    );
    for d in [dir, root] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// `parse_sm` reads one file: a machine's includes are recorded, not
/// followed.
#[test]
fn one_file_records_its_includes() {
    let text = std::fs::read_to_string(split_dir().join("Split-cache.sm")).unwrap();
    let f = slicc::parse_sm("Split-cache.sm", "Split-cache.sm", text).unwrap();
    let m = &f.machines[0];
    assert!(m.actions.is_empty() && m.transitions.is_empty());
    let inc: Vec<(&str, usize, Option<usize>)> = m
        .includes
        .iter()
        .map(|i| (i.name.as_str(), i.line, i.file))
        .collect();
    assert_eq!(
        inc,
        [
            ("cache/Split-cache-ports.sm", 68, None),
            ("cache/Split-cache-actions.sm", 71, None),
            ("cache/Split-cache-transitions.sm", 72, None),
        ]
    );
}

#[test]
fn manifests_list_protocol_and_includes() {
    let m = slicc::parse_manifest(
        "X.slicc",
        "// c\nprotocol \"X\";\ninclude \"RubySlicc_interfaces.slicc\";\ninclude 'X-cache.sm';\n",
    )
    .unwrap();
    assert_eq!(m.protocol.as_deref(), Some("X"));
    let inc: Vec<(&str, usize)> = m.includes.iter().map(|(f, l)| (f.as_str(), *l)).collect();
    assert_eq!(inc, [("RubySlicc_interfaces.slicc", 3), ("X-cache.sm", 4)]);
    let e = slicc::parse_manifest("X.slicc", "protocol X;\n").unwrap_err();
    assert!(e.to_string().starts_with("X.slicc:1:1:"), "{e}");
}

#[test]
fn a_missing_protocol_is_named() {
    let e = slicc::load_protocol(&tiny_dir(), "Nope").unwrap_err();
    assert!(e.to_string().contains("no Nope.slicc"), "{e}");
}

/// GEM5_ROOT, or None after printing why the test is skipped.
pub fn gem5_root() -> Option<PathBuf> {
    match std::env::var_os("GEM5_ROOT") {
        Some(r) if Path::new(&r).join("src/mem/slicc").is_dir() => Some(PathBuf::from(r)),
        Some(r) => {
            println!(
                "skipped: GEM5_ROOT={} has no src/mem/slicc",
                Path::new(&r).display()
            );
            None
        }
        None => {
            println!("skipped: GEM5_ROOT not set");
            None
        }
    }
}

/// Runs tests/support/slicc_transitions.py; returns its JSON.
fn slicc_dump(gem5: &Path, protocol: &str, dirs: &[PathBuf]) -> serde_json::Value {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "memconform-slicc-{}-{protocol}.json",
        std::process::id()
    ));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/slicc_transitions.py");
    let status = Command::new("python3")
        .arg(&script)
        .arg(gem5)
        .arg(protocol)
        .arg(&out)
        .args(dirs)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
        .expect("python3 runs");
    assert!(status.success(), "{} failed", script.display());
    let v = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    v
}

/// Compares our expansion of every machine with SLICC's; returns
/// (machines, transition rows).
fn compare(p: &slicc::Protocol, slicc_machines: &serde_json::Value) -> (usize, usize) {
    let mut rows = 0;
    let obj = slicc_machines.as_object().expect("machines");
    for (ident, sm) in obj {
        let file = sm["file"].as_str().unwrap();
        let f = p
            .files
            .iter()
            .find(|f| f.name == file)
            .unwrap_or_else(|| panic!("{file} not read"));
        let m = f
            .machines
            .iter()
            .find(|m| &m.ident == ident)
            .unwrap_or_else(|| panic!("{ident} not in {file}"));
        let names = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect()
        };
        let ours =
            |v: &[slicc::Ident]| -> Vec<String> { v.iter().map(|i| i.name.clone()).collect() };
        assert_eq!(ours(&m.states), names(&sm["states"]), "{file} states");
        assert_eq!(ours(&m.events), names(&sm["events"]), "{file} events");
        let actions: Vec<String> = m.actions.iter().map(|a| a.name.name.clone()).collect();
        assert_eq!(actions, names(&sm["actions"]), "{file} actions");
        let theirs: Vec<String> = sm["transitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                format!(
                    "{} {} -> {}: {} [{}]",
                    t[0].as_str().unwrap(),
                    t[1].as_str().unwrap(),
                    t[2].as_str().unwrap(),
                    names(&t[3]).join(" "),
                    names(&t[4]).join(" ")
                )
            })
            .collect();
        let mut mine = Vec::new();
        for t in &m.transitions {
            let types = t
                .request_types
                .as_ref()
                .map(|r| r.names().join(" "))
                .unwrap_or_default();
            let actions = t.actions.names().join(" ");
            for s in &t.states.items {
                let next = t.next_state.as_ref().unwrap_or(s);
                for e in &t.events.items {
                    mine.push(format!(
                        "{} {} -> {}: {actions} [{types}]",
                        s.name, e.name, next.name
                    ));
                }
            }
        }
        assert_eq!(mine, theirs, "{file}: {ident}");
        rows += mine.len();
    }
    let ours: usize = p.files.iter().map(|f| f.machines.len()).sum();
    assert_eq!(ours, obj.len(), "machine count of {}", p.name);
    (obj.len(), rows)
}

#[test]
fn gem5_tables_match_sliccs_own() {
    let Some(gem5) = gem5_root() else { return };
    let mut total = (0, 0);
    // SLICC_PROTOCOLS=A,B,... compares others too (CHI's machines include
    // their ports, functions, actions and transitions from further files)
    let list = std::env::var("SLICC_PROTOCOLS")
        .unwrap_or_else(|_| "MI_example,MESI_Two_Level,MOESI_hammer,MOESI_AMD_Base,CHI".into());
    for protocol in list.split(',') {
        let p = slicc::load_protocol(&gem5, protocol).expect("parses");
        // the .slicc's own directory (CHI's is chi/)
        let (root, manifest) = slicc::protocol_root(&gem5, protocol).unwrap();
        let dir = root.join(manifest.parent().unwrap());
        let dump = slicc_dump(&gem5, protocol, &[dir]);
        let (_, v) = dump.as_object().unwrap().iter().next().unwrap();
        assert!(v["error"].is_null(), "{protocol}: {}", v["error"]);
        let (machines, rows) = compare(&p, &v["machines"]);
        let headers: usize = p
            .files
            .iter()
            .flat_map(|f| &f.machines)
            .map(|m| m.transitions.len())
            .sum();
        println!("{protocol}: {machines} machines, {headers} transition headers, {rows} (state, event) pairs equal SLICC's");
        total.0 += machines;
        total.1 += rows;
    }
    println!("all: {} machines, {} pairs", total.0, total.1);
    // and the hand-written Tiny protocol is SLICC too, with the same tables
    let p = slicc::load_protocol(&tiny_dir(), "Tiny").unwrap();
    let dump = slicc_dump(&gem5, "Tiny", &[tiny_dir()]);
    let (_, v) = dump.as_object().unwrap().iter().next().unwrap();
    assert!(v["error"].is_null(), "Tiny: {}", v["error"]);
    let (machines, rows) = compare(&p, &v["machines"]);
    println!("Tiny: {machines} machines, {rows} pairs equal SLICC's");
    // and Split, whose cache machine includes its parts (one include nested)
    let p = slicc::load_protocol(&split_dir(), "Split").unwrap();
    let dump = slicc_dump(&gem5, "Split", &[split_dir()]);
    let (_, v) = dump.as_object().unwrap().iter().next().unwrap();
    assert!(v["error"].is_null(), "Split: {}", v["error"]);
    let (machines, rows) = compare(&p, &v["machines"]);
    assert_eq!((machines, rows), (2, 16 + 8));
    println!("Split: {machines} machines, {rows} pairs equal SLICC's");
}
