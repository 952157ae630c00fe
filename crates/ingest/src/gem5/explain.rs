//! Explaining a violation found in a gem5 run in gem5's terms.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use memconform_parsers::gem5::input::for_each_line;
use memconform_parsers::gem5::protocol::parse_transition;

use super::{Ingested, Run};
use crate::provenance::Origins;
use memconform_core::certificate::Violation;

/// Each operation of the certificate with its origin (port, ticks and
/// trace lines: [`crate::provenance::Origins::text`]); then the
/// ProtocolTrace transitions of the cache lines involved between the first
/// and the last of them (when the trace has ProtocolTrace lines), at most
/// `transitions` of them (the last ones; 0: none).
pub fn explain(
    run: &Run,
    ing: &Ingested,
    origins: &Origins,
    v: &Violation,
    transitions: usize,
) -> String {
    let h = &ing.history;
    let nv = h.vars.len();
    let mut ops: Vec<usize> = v
        .cycle
        .iter()
        .map(|s| s.from)
        .chain(v.ops.iter().map(|(o, _)| *o))
        .collect();
    ops.sort_unstable();
    ops.dedup();
    let trace = run
        .trace
        .as_ref()
        .map(|p| memconform_parsers::text::shown_path(p).to_string())
        .unwrap_or_default();
    let mut out = String::new();
    let (mut first, mut last) = (u64::MAX, 0u64);
    let mut lines_of_interest = BTreeSet::new();
    for &o in &ops {
        if o < nv {
            out.push_str(&format!("    {}: the initial value 0\n", h.describe(o)));
            continue;
        }
        let a = &origins.ops[o - nv];
        first = first.min(a.lines.0);
        last = last.max(a.lines.1);
        lines_of_interest.insert(a.location & !63);
        out.push_str(&format!(
            "    {}: {}\n",
            h.describe(o),
            origins.text(o - nv, Some(&trace))
        ));
    }
    if let Some(f) = &run.failure {
        out.push_str(&format!(
            "    gem5: Action/check failure on port {} at 0x{:x} byte {}: expected {}, got {} (tick {})\n",
            f.proc_, f.address, f.byte_number, f.expected, f.got, f.tick
        ));
    }
    if let (Some(path), true, true, true) = (
        &run.trace,
        first <= last,
        !lines_of_interest.is_empty(),
        transitions > 0,
    ) {
        let mut found = std::collections::VecDeque::new();
        let (mut total, mut stalls) = (0usize, 0usize);
        let _ = for_each_line(path, |n, line| {
            if n < first {
                return ControlFlow::Continue(());
            }
            if n > last {
                return ControlFlow::Break(());
            }
            if let Some(t) = parse_transition(line) {
                if lines_of_interest.contains(&t.line_addr) {
                    if t.comment.contains("Stall") {
                        stalls += 1;
                    } else {
                        total += 1;
                        if found.len() == transitions {
                            found.pop_front();
                        }
                        found.push_back(format!(
                            "    {trace}:{n}: {}",
                            String::from_utf8_lossy(line).trim()
                        ));
                    }
                }
            }
            ControlFlow::Continue(())
        });
        if !found.is_empty() {
            let lines: Vec<String> = lines_of_interest
                .iter()
                .map(|l| format!("0x{l:x}"))
                .collect();
            out.push_str(&format!(
                "    ProtocolTrace of line {} between trace lines {first} and {last}: {total} transitions ({stalls} stalls left out){}:\n",
                lines.join(", "),
                if total > found.len() { format!(", the last {}", found.len()) } else { String::new() }
            ));
            for f in found {
                out.push_str(&f);
                out.push('\n');
            }
        }
    }
    if !ing.protocol_trace && transitions > 0 && run.trace.is_some() {
        let flags = match run.tester {
            memconform_parsers::gem5::config::Tester::RubyRandom { .. } => super::DEBUG_FLAGS,
            _ => "MemTest,ProtocolTrace,RubySequencer",
        };
        out.push_str(&format!(
            "    (no ProtocolTrace lines in {trace}: run gem5 with --debug-flags={flags} to see the protocol's transitions here)\n"
        ));
    }
    out
}
