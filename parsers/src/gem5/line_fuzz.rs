//! Mutation tests of the tester line parsers: real lines of the bundled runs,
//! damaged at random (fixed seeds), never panic, and whatever they accept
//! keeps gem5's invariants (a byte is a byte, `size` bytes of data, a check
//! has four bytes). A short run in every `cargo test`; the `#[ignore]`d one
//! runs a million mutated lines per parser:
//! `cargo test -p memconform-parsers --release line_fuzz -- --ignored --nocapture`.

use std::ops::ControlFlow;
use std::panic::catch_unwind;

use super::input::for_each_line;
use super::memtest::{parse_memtest_atomic_value, parse_memtest_line};
use super::rubytest::{parse_rubytest_line, RubyTestLine, CHECK_SIZE};

/// A small deterministic generator (xorshift64), for mangling inputs.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (0 when n is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes a damaged line may gain: separators, digits, hex, signs, non-UTF-8.
const ALPHABET: &[u8] = b" 0123456789abcdefx:,.-[]()\t\r\xff\xc3\x80";

/// Numbers that break ranges: past a byte, past 32 and 64 bits, negative.
const NUMBERS: [&str; 7] = [
    "256",
    "1c3",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999",
    "-5",
    "0",
];

/// One random mutation of `line`: a byte changed, removed or inserted, a cut,
/// a digit run replaced by an out-of-range number, a piece repeated.
fn mutate(rng: &mut XorShift, line: &[u8]) -> Vec<u8> {
    let mut m = line.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(m.len() + 1);
        match rng.below(6) {
            0 if at < m.len() => m[at] = ALPHABET[rng.below(ALPHABET.len())],
            1 if at < m.len() => {
                m.remove(at);
            }
            2 => m.truncate(at),
            3 => {
                // a run of digits (or hex digits) replaced by a bad number
                let start = (0..at.min(m.len()))
                    .rev()
                    .take_while(|&i| m[i].is_ascii_hexdigit())
                    .last()
                    .unwrap_or(at);
                let end = (at..m.len())
                    .take_while(|&i| m[i].is_ascii_hexdigit())
                    .last()
                    .map_or(at, |i| i + 1);
                let n = NUMBERS[rng.below(NUMBERS.len())].as_bytes();
                m.splice(start..end, n.iter().copied());
            }
            4 if !m.is_empty() => {
                let from = rng.below(m.len());
                let len = rng.below(m.len() - from + 1).min(16);
                let piece = m[from..from + len].to_vec();
                m.splice(at..at, piece);
            }
            _ => m.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
        }
    }
    m
}

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

/// What a parser made of a line.
#[derive(Clone, Copy)]
enum Read {
    Other,
    Accepted,
    Damage,
}

/// Parses a RubyTest line and checks the invariants of what it accepts.
fn rubytest_invariants(line: &[u8]) -> Read {
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
            Read::Accepted
        }
        Ok(None) => Read::Other,
        Err(d) => {
            assert!(d.col >= 1 && d.col <= line.len() + 1, "{d}");
            Read::Damage
        }
    }
}

/// Parses a MemTest line (both entry points; the types carry the ranges).
fn memtest_invariants(line: &[u8]) -> Read {
    let _ = parse_memtest_atomic_value(line);
    match parse_memtest_line(line) {
        Ok(Some(_)) => Read::Accepted,
        Ok(None) => Read::Other,
        Err(d) => {
            assert!(d.col >= 1 && d.col <= line.len() + 1, "{d}");
            Read::Damage
        }
    }
}

/// Mutates `count` lines drawn from `lines` and parses each with `check`;
/// returns [panics, other lines, accepted, damage] (each panic caught).
fn run(lines: &[Vec<u8>], count: usize, seed: u64, check: fn(&[u8]) -> Read) -> [usize; 4] {
    let mut rng = XorShift(seed);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut tally = [0; 4];
    for _ in 0..count {
        let line = &lines[rng.below(lines.len())];
        let m = mutate(&mut rng, line);
        match catch_unwind(|| check(&m)) {
            Err(_) => {
                tally[0] += 1;
                eprintln!("panic on {:?}", String::from_utf8_lossy(&m));
            }
            Ok(read) => tally[1 + read as usize] += 1,
        }
    }
    std::panic::set_hook(hook);
    tally
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
    let ruby = run(&ruby, n, 0x9e37_79b9_7f4a_7c15, rubytest_invariants);
    let mem = mixed_lines("memtest-n4", &[b"Initiating ", b"Completing "]);
    let mem = run(&mem, n, 0x2545_f491_4f6c_dd1d, memtest_invariants);
    for (name, [panics, other, accepted, damage]) in [("rubytest", ruby), ("memtest", mem)] {
        eprintln!(
            "line_fuzz {name}: {n} mutated lines: {panics} panics, {accepted} accepted, {damage} damage, {other} other lines"
        );
    }
    assert_eq!((ruby[0], mem[0]), (0, 0));
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
