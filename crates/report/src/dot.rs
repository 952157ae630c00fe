//! A certificate as a Graphviz digraph, herd7-style: events labelled like
//! `a: W(x,1)`, grouped by thread in clusters, edges labelled with their
//! relation (po, wr, rw, pww, ...), the cycle's edges bold and red.

use std::fmt::Write as _;

use crate::markup::letter;
use memconform_core::certificate::{Rel, Violation};
use memconform_core::history::{History, OpId};

/// `s` inside a DOT double-quoted string: `\` and `"` escaped, line
/// breaks as `\n`, other control characters dropped.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The certificate `v` of `h` as a DOT digraph titled `title`. With
/// `whole`, every operation of `h` is an event (for a small, shrunk
/// history), with its program order and write-read edges; else only the
/// events the certificate names, with the program order and write-read
/// edges between them (or, when it names none, the whole history up to
/// 1000 operations). The cycle's edges are bold and red.
pub fn certificate_dot(h: &History, v: &Violation, title: &str, whole: bool) -> String {
    let events = v.events();
    let mut nodes: Vec<OpId> = events.iter().map(|&(o, _)| o).collect();
    // no cycle to show (NoStoreOrder): the history itself, when small
    if whole || (events.is_empty() && h.n() <= 1000) {
        let rest: Vec<OpId> = (0..h.n()).filter(|o| !nodes.contains(o)).collect();
        nodes.extend(rest);
        // initial writes nobody reads and no certificate names add nothing
        nodes.retain(|&o| {
            !h.is_init(o) || events.iter().any(|e| e.0 == o) || !h.readers(o).is_empty()
        });
    }
    let name = |o: OpId| {
        let i = nodes.iter().position(|&p| p == o).expect("a node");
        letter(i)
    };
    let mut s = String::new();
    let _ = writeln!(s, "digraph certificate {{");
    let _ = writeln!(
        s,
        "  label={}; labelloc=t; fontname=\"Helvetica\"; fontsize=14; rankdir=TB; newrank=true;",
        quote(title)
    );
    let _ = writeln!(
        s,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f8fafc\", color=\"#64748b\", fontname=\"Courier\", fontsize=12];"
    );
    let _ = writeln!(
        s,
        "  edge [fontname=\"Helvetica\", fontsize=11, color=\"#94a3b8\", fontcolor=\"#64748b\"];"
    );
    let node_line = |s: &mut String, o: OpId| {
        let d = h.describe(o);
        let token = d.split_once(':').map_or(d.as_str(), |(_, t)| t);
        let mut label = format!("{}: {token}", name(o));
        let in_cycle = v.cycle.iter().any(|st| st.from == o);
        if let Some(&(_, Some(role))) = events.iter().find(|e| e.0 == o) {
            label.push_str(&format!("\n({role})"));
        }
        let style = if in_cycle {
            ", color=\"#dc2626\", penwidth=2, fillcolor=\"#fef2f2\""
        } else {
            ""
        };
        let _ = writeln!(s, "    {} [label={}{style}];", name(o), quote(&label));
    };
    // initial writes outside the clusters
    for &o in nodes.iter().filter(|&&o| h.is_init(o)) {
        node_line(&mut s, o);
    }
    for (t, th) in h.threads.iter().enumerate() {
        let mine: Vec<OpId> = th.ops.clone().filter(|o| nodes.contains(o)).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(s, "  subgraph cluster_{t} {{");
        let _ = writeln!(
            s,
            "    label={}; style=\"rounded,dashed\"; color=\"#cbd5e1\"; fontname=\"Helvetica\";",
            quote(&format!("thread {}", th.name))
        );
        for &o in &mine {
            node_line(&mut s, o);
        }
        let _ = writeln!(s, "  }}");
    }
    // context: po between successive events of a thread, wr between events
    let cycle_has = |a: OpId, rel: Rel, b: OpId| {
        v.cycle
            .iter()
            .any(|st| st.from == a && st.to == b && st.rel == rel)
    };
    for th in &h.threads {
        let mine: Vec<OpId> = th.ops.clone().filter(|o| nodes.contains(o)).collect();
        for w in mine.windows(2) {
            if !cycle_has(w[0], Rel::Po, w[1]) {
                let _ = writeln!(s, "  {} -> {} [label=\"po\"];", name(w[0]), name(w[1]));
            }
        }
    }
    for &r in &nodes {
        if let Some(w) = h.rf(r).filter(|w| nodes.contains(w)) {
            if !cycle_has(w, Rel::Wr, r) && !cycle_has(w, Rel::Wre, r) {
                let _ = writeln!(
                    s,
                    "  {} -> {} [label=\"wr\", color=\"#86efac\", fontcolor=\"#15803d\"];",
                    name(w),
                    name(r)
                );
            }
        }
    }
    for step in &v.cycle {
        let _ = writeln!(
            s,
            "  {} -> {} [label={}, color=\"#dc2626\", fontcolor=\"#dc2626\", penwidth=2.5, class=\"cycle\"];",
            name(step.from),
            name(step.to),
            quote(step.rel.name())
        );
    }
    let _ = writeln!(s, "}}");
    s
}

/// `check --dot DIR`: writes each violation of a checked history
/// (`input`'s) into `dir` as `NAME-INDEX-MODEL.dot` and, when `shrinks`
/// holds its shrunk counterexample, that one's relations as
/// `NAME-INDEX-MODEL.shrunk.dot` (names made unique among `used`).
/// Returns a note per file written, or why not.
pub fn write_dots(
    input: &std::path::Path,
    c: &memconform_ingest::Checked,
    shrinks: &[Option<Result<memconform_core::check::shrink::Shrunk, String>>],
    dir: &std::path::Path,
    used: &mut std::collections::HashSet<String>,
) -> Vec<String> {
    let h = &c.history;
    let stem = super::shrunk::stem(input, h);
    let title = format!(
        "{}#{}{}",
        super::path_text(input),
        h.index,
        h.name
            .as_deref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default()
    );
    let mut notes = Vec::new();
    for (i, o) in c.outcomes.iter().enumerate() {
        let Some(v) = o.violation().filter(|_| o.invalid.is_none()) else {
            continue;
        };
        let mut files = vec![(
            format!("{stem}-{}-{}", h.index, o.model),
            certificate_dot(
                h,
                v,
                &format!("{title}: {} {}", o.model, v.pattern.name()),
                false,
            ),
        )];
        if let Some(Some(Ok(s))) = shrinks.get(i) {
            files.push((
                format!("{stem}-{}-{}.shrunk", h.index, o.model),
                certificate_dot(
                    &s.history,
                    &s.violation,
                    &format!(
                        "{title}, shrunk: {} {}",
                        o.model,
                        s.violation.pattern.name()
                    ),
                    true,
                ),
            ));
        }
        for (base, text) in files {
            let mut name = format!("{base}.dot");
            let mut k = 1;
            while !used.insert(name.clone()) {
                k += 1;
                name = format!("{base}-{k}.dot");
            }
            let path = dir.join(&name);
            notes.push(match super::write_atomic(&path, text.as_bytes()) {
                Ok(()) => format!("dot: {}", path.display()),
                Err(e) => format!("cannot write {}: {e}", path.display()),
            });
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use memconform_core::check::{check_gradual_with, Options};
    use memconform_core::models::Model;

    fn sb() -> (History, Violation) {
        let h = memconform_ingest::load_bytes(
            b"@name evil\"\\ name\nt0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n",
            std::path::Path::new("sb.hist"),
        )
        .unwrap()
        .remove(0);
        let v = check_gradual_with(&h, &[Model::Sc], &Options::default())
            .pop()
            .unwrap()
            .violation()
            .expect("SB violates SC")
            .clone();
        (h, v)
    }

    #[test]
    fn quoting_escapes_quotes_backslashes_and_lines() {
        assert_eq!(quote("a\"b\\c\nd\x07"), "\"a\\\"b\\\\c\\nd\"");
    }

    #[test]
    fn every_cycle_edge_is_red_and_threads_are_clusters() {
        let (h, v) = sb();
        let d = certificate_dot(&h, &v, "a \"title\" }", false);
        assert_eq!(d.matches("class=\"cycle\"").count(), v.cycle.len());
        assert_eq!(d.matches("subgraph cluster_").count(), 2);
        assert!(d.contains("a: "), "{d}");
        assert!(d.contains("label=\"a \\\"title\\\" }\""), "{d}");
        // balanced braces outside strings
        let mut depth = 0i32;
        let mut in_str = false;
        let mut esc = false;
        for c in d.chars() {
            match (in_str, esc, c) {
                (true, true, _) => esc = false,
                (true, false, '\\') => esc = true,
                (true, false, '"') => in_str = false,
                (false, _, '"') => in_str = true,
                (false, _, '{') => depth += 1,
                (false, _, '}') => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0);
        }
        assert_eq!(depth, 0);
        let whole = certificate_dot(&h, &v, "t", true);
        assert!(whole.matches(" -> ").count() >= v.cycle.len());
    }
}
