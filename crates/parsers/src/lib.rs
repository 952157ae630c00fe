//! Parsers for memconform's inputs.
//!
//! Each parser turns bytes (a file read whole or streamed, see [`file`]) into
//! *raw* records that keep every source position, so that the checker can
//! name `file:line:col` in any error or certificate. Meaning (variables,
//! program order, write-read) is given to them by the `memconform` crate.

pub mod axe;
pub mod client;
pub mod file;
#[cfg(any(test, feature = "fuzz"))]
#[doc(hidden)]
pub mod fuzz;
pub mod fx;
pub mod gem5;
pub mod hist;
#[cfg(test)]
mod hist_fuzz;
pub mod rng;
pub mod text;

/// A 1-based position in a text file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A syntax error at a position; the caller adds the file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub pos: Pos,
    pub msg: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pos, self.msg)
    }
}

impl std::error::Error for ParseError {}

/// `n` in decimal ASCII digits, written at the end of `buf` (names, texts
/// and JSON numbers without the formatting machinery).
pub fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}
