//! Parsers for memconform's inputs.
//!
//! Each parser turns bytes (usually a memory-mapped file, see [`mapped`]) into
//! *raw* records that keep every source position, so that the checker can
//! name `file:line:col` in any error or certificate. Meaning (variables,
//! program order, write-read) is given to them by the `memconform` crate.

pub mod axe;
pub mod client;
pub mod file;
pub mod fx;
pub mod gem5;
pub mod hist;

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
