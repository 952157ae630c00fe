//! Mutation tests of the tester line parsers: real lines of the bundled runs,
//! damaged at random (fixed seeds), never panic, and whatever they accept
//! keeps gem5's invariants (a byte is a byte, `size` bytes of data, a check
//! has four bytes). A short run in every `cargo test`; the `#[ignore]`d one
//! runs a million mutated lines per parser:
//! `cargo test -p memconform-parsers --release line_fuzz -- --ignored --nocapture`.

use std::ops::ControlFlow;

use super::input::for_each_line;
use super::memtest::{parse_memtest_atomic_value, parse_memtest_line};
use super::rubytest::{parse_rubytest_line, RubyTestLine, CHECK_SIZE};
use crate::fuzz::{mutate, run, Parsed};

/// Up to `limit` lines of a bundled run's trace that `keep` selects.
fn real_lines(run: &str, limit: usize, keep: impl Fn(&[u8]) -> bool) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for_each_line(&super::runs::mi_example_trace(run), |_, line| {
        if keep(line) {
            lines.push(line.to_vec());
        }
        if lines.len() >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert!(!lines.is_empty(), "{run}");
    lines
}

/// Parses a RubyTest line and checks the invariants of what it accepts.
fn rubytest_invariants(line: &[u8]) -> Parsed {
    match parse_rubytest_line(line) {
        Ok(Some((_, l))) => {
            match l {
                RubyTestLine::Completed { size, data, .. } => {
                    assert_eq!(
                        data.len(),
                        size as usize,
                        "{}",
                        String::from_utf8_lossy(line)
                    )
                }
                RubyTestLine::DebugPrint {
                    value, store_count, ..
                } => assert!(value <= 255 && u64::from(store_count) <= CHECK_SIZE),
                _ => {}
            }
            Parsed::Accepted
        }
        Ok(None) => Parsed::Other,
        Err(d) => {
            assert!(d.col >= 1 && d.col <= line.len() + 1, "{d}");
            Parsed::Rejected
        }
    }
}

/// Parses a MemTest line (both entry points; the types carry the ranges).
fn memtest_invariants(line: &[u8]) -> Parsed {
    let _ = parse_memtest_atomic_value(line);
    match parse_memtest_line(line) {
        Ok(Some(_)) => Parsed::Accepted,
        Ok(None) => Parsed::Other,
        Err(d) => {
            assert!(d.col >= 1 && d.col <= line.len() + 1, "{d}");
            Parsed::Rejected
        }
    }
}

/// Lines of a bundled run: every tester line (by its message) and one in
/// eight of the others (ProtocolTrace, other flags).
fn mixed_lines(run: &str, heads: &'static [&'static [u8]]) -> Vec<Vec<u8>> {
    let n = std::cell::Cell::new(0u32);
    real_lines(run, 20_000, move |l| {
        n.set(n.get() + 1);
        heads.iter().any(|h| l.windows(h.len()).any(|w| w == *h)) || n.get().is_multiple_of(8)
    })
}

/// Mutated real lines: `n` per parser, 0 panics, invariants kept.
fn fuzz(n: usize) {
    let ruby = mixed_lines(
        "clean-n2-s1-rich",
        &[
            b": Seq ",
            b"completed request",
            b"global: [",
            b"failed to initiate",
        ],
    );
    let ruby = run(
        "line_fuzz rubytest",
        &ruby,
        n,
        0x9e37_79b9_7f4a_7c15,
        mutate,
        rubytest_invariants,
    );
    let mem = mixed_lines("memtest-n4", &[b"Initiating ", b"Completing "]);
    let mem = run(
        "line_fuzz memtest",
        &mem,
        n,
        0x2545_f491_4f6c_dd1d,
        mutate,
        memtest_invariants,
    );
    for (name, tally) in [("rubytest", ruby), ("memtest", mem)] {
        eprintln!("line_fuzz {name}: {tally}"); // other: lines of other kinds
    }
    assert_eq!((ruby.panics, mem.panics), (0, 0));
}

#[test]
fn mutated_real_lines_never_panic() {
    fuzz(20_000);
}

#[test]
#[ignore = "a million mutated lines per parser: run with --ignored (in release: seconds)"]
fn a_million_mutated_lines_never_panic() {
    fuzz(1_000_000);
}

/// Whether `cut` (a prefix of `line`) loses only the tail of a final number,
/// which no parser can tell from a smaller number (`Seq read: index 1` of
/// `index 12`, MemTest's `value 4` of `value 40`): only the missing newline
/// of a cut last line tells.
fn only_a_final_number_cut(line: &[u8], cut: &[u8]) -> bool {
    cut.last().is_some_and(u8::is_ascii_hexdigit)
        && line[cut.len()..].iter().all(u8::is_ascii_hexdigit)
}

/// Every cut of a real tester line that keeps the start of its message is
/// damage, unless it only shortens the final number.
/// (`read` says: Ok(true) a tester line, Ok(false) another line, Err damage.)
fn every_cut_is_damage(run: &str, read: fn(&[u8]) -> Result<bool, ()>) {
    let lines = real_lines(run, 3000, |l| read(l) == Ok(true));
    let heads = [
        &b"completed request"[..],
        b"Seq write",
        b"Seq read",
        b"global: [",
        b"failed to initiate",
        b"Initiating ",
        b"Completing ",
    ];
    let mut cuts = 0;
    for line in &lines {
        let start = heads
            .iter()
            .find_map(|h| {
                line.windows(h.len())
                    .position(|w| w == *h)
                    .map(|i| i + h.len())
            })
            .unwrap();
        for end in start..line.len() {
            let cut = &line[..end];
            match read(cut) {
                Err(()) => cuts += 1,
                Ok(true) if only_a_final_number_cut(line, cut) => {}
                _ => panic!("{:?} read as whole", String::from_utf8_lossy(cut)),
            }
        }
    }
    assert!(cuts > 10_000, "{run}: {cuts}");
}

#[test]
fn every_cut_of_a_rubytest_line_is_damage() {
    every_cut_is_damage("clean-n2-s1-rich", |l| {
        parse_rubytest_line(l).map(|o| o.is_some()).map_err(|_| ())
    });
}

#[test]
fn every_cut_of_a_memtest_line_is_damage() {
    every_cut_is_damage("memtest-n4", |l| {
        parse_memtest_line(l).map(|o| o.is_some()).map_err(|_| ())
    });
}
