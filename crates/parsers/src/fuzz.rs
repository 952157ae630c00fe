//! Test support: mutation of real inputs and a panic-counting loop, shared
//! by the parser mutation tests (here and in the `memconform` crate, which
//! turns on the `fuzz` feature for its tests). Deterministic: every run is a
//! fixed seed of [`Rng`].

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;
use std::time::Instant;

pub use crate::rng::Rng;

/// Bytes a damaged input may gain: separators, digits, hex, signs, non-UTF-8.
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

/// One random mutation of `input`: a byte changed, removed or inserted, a
/// cut, a digit run replaced by an out-of-range number, a piece repeated.
pub fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    mutate_with(rng, input, b"")
}

/// [`mutate`], the new bytes drawn half of the time from `extra` (the
/// syntax of the format at hand) when it is not empty.
pub fn mutate_with(rng: &mut Rng, input: &[u8], extra: &[u8]) -> Vec<u8> {
    let byte = |rng: &mut Rng| {
        if extra.is_empty() || rng.below(2) == 0 {
            ALPHABET[rng.below(ALPHABET.len())]
        } else {
            extra[rng.below(extra.len())]
        }
    };
    let mut m = input.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(m.len() + 1);
        match rng.below(6) {
            0 if at < m.len() => m[at] = byte(rng),
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
            _ => {
                let b = byte(rng);
                m.insert(at, b);
            }
        }
    }
    m
}

/// One to three random mutations of a whole file: a line dropped,
/// repeated, swapped with another or moved, or bytes damaged by
/// [`mutate_with`] (`extra`: bytes of the format's syntax).
pub fn mutate_file(rng: &mut Rng, input: &[u8], extra: &[u8]) -> Vec<u8> {
    let mut m = input.to_vec();
    for _ in 0..1 + rng.below(3) {
        let op = rng.below(6);
        if op >= 4 {
            m = mutate_with(rng, &m, extra);
            continue;
        }
        let mut lines: Vec<&[u8]> = m.split_inclusive(|&b| b == b'\n').collect();
        if lines.is_empty() {
            continue;
        }
        let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
        match op {
            0 => {
                lines.remove(i);
            }
            1 => lines.insert(j, lines[i]),
            2 => lines.swap(i, j),
            _ => {
                let line = lines.remove(i);
                lines.insert(j.min(lines.len()), line);
            }
        }
        // a line moved to the end may lack its newline: it joins the next
        m = lines.concat();
    }
    m
}

/// Calls `f` on mutations of `input`: at each byte, `per` insertions or
/// replacements by a byte of `replacements` (drawn from `rng`), then the
/// byte's deletion.
pub fn mutate_each_byte(
    input: &[u8],
    per: usize,
    replacements: &[u8],
    rng: &mut Rng,
    mut f: impl FnMut(&[u8]),
) {
    for i in 0..input.len() {
        for _ in 0..per {
            let b = replacements[rng.below(replacements.len())];
            let mut bad = input.to_vec();
            if rng.below(4) == 0 {
                bad.insert(i, b);
            } else {
                bad[i] = b;
            }
            f(&bad);
        }
        let mut bad = input.to_vec();
        bad.remove(i);
        f(&bad);
    }
}

/// What a parser made of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// Not for this parser (another kind of line).
    Other,
    Accepted,
    /// Rejected with an error (damage).
    Rejected,
}

/// The counts of a mutation run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    pub inputs: usize,
    /// Panics and broken invariants (a failed assertion is a panic).
    pub panics: usize,
    pub other: usize,
    pub accepted: usize,
    pub rejected: usize,
    pub seconds: f64,
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} mutated inputs: {} panics, {} accepted, {} rejected",
            self.inputs, self.panics, self.accepted, self.rejected
        )?;
        if self.other > 0 {
            write!(f, ", {} other", self.other)?;
        }
        write!(f, " ({:.1} s)", self.seconds)
    }
}

thread_local! {
    /// Whether this thread's panics are caught and counted, not reported.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that keeps quiet on threads running
/// [`run`] and reports as before elsewhere: tests running in parallel keep
/// their messages.
fn quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.get() {
                previous(info);
            }
        }));
    });
}

/// The message of a caught panic.
fn message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Mutates `count` inputs drawn from `seeds` (`mutate`, generator seeded
/// with `seed`) and reads each with `check`, which asserts the parser's
/// invariants; counts panics (each caught; the first few printed with
/// their input), and what was accepted or rejected.
pub fn run(
    name: &str,
    seeds: &[Vec<u8>],
    count: usize,
    seed: u64,
    mutate: impl Fn(&mut Rng, &[u8]) -> Vec<u8>,
    check: impl Fn(&[u8]) -> Parsed,
) -> Tally {
    assert!(!seeds.is_empty(), "{name}: no seed inputs");
    quiet_hook();
    let start = Instant::now();
    let mut rng = Rng::new(seed);
    let mut tally = Tally {
        inputs: count,
        ..Tally::default()
    };
    let was_quiet = QUIET.replace(true);
    for _ in 0..count {
        let input = &seeds[rng.below(seeds.len())];
        let m = mutate(&mut rng, input);
        match catch_unwind(AssertUnwindSafe(|| check(&m))) {
            Err(payload) => {
                tally.panics += 1;
                if tally.panics <= 5 {
                    let text = String::from_utf8_lossy(&m);
                    let cut: String = text.chars().take(3000).collect();
                    eprintln!("{name}: panic `{}` on {cut:?}", message(&*payload));
                }
            }
            Ok(Parsed::Other) => tally.other += 1,
            Ok(Parsed::Accepted) => tally.accepted += 1,
            Ok(Parsed::Rejected) => tally.rejected += 1,
        }
    }
    QUIET.set(was_quiet);
    tally.seconds = start.elapsed().as_secs_f64();
    tally
}

/// The lines of a file as a reader splitting at `\n` sees them (a last
/// empty line after a final newline included), each without its `\n`: to
/// check the positions a parser reports.
pub struct Lines<'a>(pub Vec<&'a [u8]>);

impl<'a> Lines<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        Lines(src.split(|&b| b == b'\n').collect())
    }

    /// Whether `line:col` (1-based, col a byte) lies in the file: on one of
    /// its lines, at most one past the line's last byte.
    pub fn contains(&self, line: u64, col: u64) -> bool {
        line >= 1
            && col >= 1
            && usize::try_from(line - 1)
                .ok()
                .and_then(|l| self.0.get(l))
                .is_some_and(|l| col <= l.len() as u64 + 1)
    }

    /// The bytes from `line:col` to the end of that line (empty when the
    /// position is not in the file).
    pub fn at(&self, line: u32, col: u32) -> &'a [u8] {
        if !self.contains(line.into(), col.into()) {
            return b"";
        }
        &self.0[line as usize - 1][col as usize - 1..]
    }
}
