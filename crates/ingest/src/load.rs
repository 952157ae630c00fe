//! Loading input files (`.hist`, axe traces, the SE client's output, recognised
//! by content): parse, then validate into histories.

use std::path::{Path, PathBuf};

use std::ops::ControlFlow;

use memconform_parsers::axe::{check_axe, looks_like_axe, parse_axe, AxeTraces};
use memconform_parsers::client::{looks_like_client, parse_client};
use memconform_parsers::file::FileBytes;
use memconform_parsers::hist::{parse_hist, RawHistory};
use memconform_parsers::Pos;

use memconform_core::history::History;

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
        // the path and the message as the text report shows them: a file
        // named with a line break or a terminal escape forges nothing
        use memconform_parsers::text::{printable_lines, shown_path};
        let (file, msg) = (shown_path(&self.file), printable_lines(&self.msg));
        match self.pos {
            Some(p) => write!(f, "{file}:{p}: {msg}"),
            None => write!(f, "{file}: {msg}"),
        }
    }
}

impl std::error::Error for InputError {}

/// Reads every history of a `.hist` file.
pub fn load_file(path: &Path) -> Result<Vec<History>, InputError> {
    load_bytes(&open(path)?, path)
}

/// Parses a file's histories without validating them (see [`build`]).
pub fn parse_file(path: &Path) -> Result<Vec<RawHistory>, InputError> {
    parse_bytes(&open(path)?, path)
}

/// Hands each history of a file, validated (or why not, as [`build`] says),
/// to `each` in order until `each` breaks: like [`load_file`], and a file
/// with a syntax error gives none, only the error. An axe file is checked
/// whole first, then read and validated a trace at a time (see
/// [`History::from_axe`]), so memory holds one of its traces, not the file.
pub fn stream_file(
    path: &Path,
    mut each: impl FnMut(Result<History, InputError>) -> ControlFlow<()>,
) -> Result<(), InputError> {
    let bytes = open(path)?;
    let located = |pos, msg| InputError {
        file: path.to_path_buf(),
        pos: Some(pos),
        msg,
    };
    if !looks_like_axe(&bytes) {
        for (i, raw) in parse_bytes(&bytes, path)?.iter().enumerate() {
            if each(build(raw, i, path)).is_break() {
                break;
            }
        }
        return Ok(());
    }
    check_axe(&bytes).map_err(|e| located(e.pos, e.msg))?;
    let mut traces = AxeTraces::new(&bytes);
    let mut i = 0;
    while let Some(trace) = traces.next_trace() {
        let trace = trace.map_err(|e| located(e.pos, e.msg))?;
        let h = History::from_axe(trace, i).map_err(|e| located(e.pos, e.msg));
        i += 1;
        if each(h).is_break() {
            break;
        }
    }
    Ok(())
}

fn open(path: &Path) -> Result<FileBytes, InputError> {
    FileBytes::open(path).map_err(|e| InputError {
        file: path.to_path_buf(),
        pos: None,
        msg: format!("cannot read: {e}"),
    })
}

/// Validates the `i`-th parsed history of `path`.
pub fn build(raw: &RawHistory, i: usize, path: &Path) -> Result<History, InputError> {
    History::from_raw(raw, i).map_err(|e| InputError {
        file: path.to_path_buf(),
        pos: Some(e.pos),
        msg: e.msg,
    })
}

/// Reads every history of a `.hist` file, an axe trace file (one history per
/// `check`) or the output of the SE-mode client (`gem5-configs/client`, even
/// inside gem5's own output), recognised by content; `path` names it in errors.
pub fn load_bytes(bytes: &[u8], path: &Path) -> Result<Vec<History>, InputError> {
    parse_bytes(bytes, path)?
        .iter()
        .enumerate()
        .map(|(i, raw)| build(raw, i, path))
        .collect()
}

/// Parses the histories of `bytes` (a `.hist` file, axe traces or the
/// client's output, recognised by content).
pub fn parse_bytes(bytes: &[u8], path: &Path) -> Result<Vec<RawHistory>, InputError> {
    let parsed = if looks_like_axe(bytes) {
        parse_axe(bytes)
    } else if looks_like_client(bytes) {
        parse_client(bytes)
    } else {
        parse_hist(bytes)
    };
    parsed.map_err(|e| InputError {
        file: path.to_path_buf(),
        pos: Some(e.pos),
        msg: e.msg,
    })
}
