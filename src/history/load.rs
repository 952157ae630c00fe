//! Loading `.hist` files: parse (over a memory map), then validate.

use std::path::{Path, PathBuf};

use memconform_parsers::axe::{looks_like_axe, parse_axe};
use memconform_parsers::client::{looks_like_client, parse_client};
use memconform_parsers::hist::parse_hist;
use memconform_parsers::mapped::Mapped;
use memconform_parsers::Pos;

use super::History;

/// Why an input file could not be turned into histories: `file:line:col: msg`.
#[derive(Debug)]
pub struct InputError {
    pub file: PathBuf,
    /// `None` for I/O errors.
    pub pos: Option<Pos>,
    pub msg: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{}:{}: {}", self.file.display(), p, self.msg),
            None => write!(f, "{}: {}", self.file.display(), self.msg),
        }
    }
}

impl std::error::Error for InputError {}

/// Reads every history of a `.hist` file.
pub fn load_file(path: &Path) -> Result<Vec<History>, InputError> {
    let bytes = Mapped::open(path).map_err(|e| InputError {
        file: path.to_path_buf(),
        pos: None,
        msg: format!("cannot read: {e}"),
    })?;
    load_bytes(&bytes, path)
}

/// Reads every history of a `.hist` file, an axe trace file (one history per
/// `check`) or the output of the SE-mode client (`gem5-configs/client`, even
/// inside gem5's own output), recognised by content; `path` names it in errors.
pub fn load_bytes(bytes: &[u8], path: &Path) -> Result<Vec<History>, InputError> {
    let parsed = if looks_like_axe(bytes) {
        parse_axe(bytes)
    } else if looks_like_client(bytes) {
        parse_client(bytes)
    } else {
        parse_hist(bytes)
    };
    let raws = parsed.map_err(|e| InputError {
        file: path.to_path_buf(),
        pos: Some(e.pos),
        msg: e.msg,
    })?;
    raws.iter()
        .enumerate()
        .map(|(i, raw)| {
            History::from_raw(raw, i).map_err(|e| InputError {
                file: path.to_path_buf(),
                pos: Some(e.pos),
                msg: e.msg,
            })
        })
        .collect()
}
