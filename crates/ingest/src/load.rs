//! Loading input files (`.hist`, axe traces, the SE client's output, recognised
//! by content): parse, then validate into histories.

use std::path::{Path, PathBuf};

use std::ops::ControlFlow;
use std::sync::Arc;

use memconform_parsers::axe::{
    axe_cuts, axe_trace_starts_between, looks_like_axe, parse_axe, AxeBuffers, AxeTraces,
    TraceStart,
};
use memconform_parsers::client::{
    check_client, looks_like_client, parse_client, parse_client_prefix, stream_client_unchecked,
    Unfinished,
};
use memconform_parsers::file::FileBytes;
use memconform_parsers::hist::{parse_hist, HistReader, RawHistory};
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
/// with a syntax error gives none, only the error. Memory holds a few
/// histories, not the file's (see [`stream_unbuilt`]).
pub fn stream_file(
    path: &Path,
    max_memory: u64,
    mut each: impl FnMut(Result<History, InputError>) -> ControlFlow<()>,
) -> Result<(), InputError> {
    stream_unbuilt(path, max_memory, false, |u| each(u.build(path)))
}

/// A history of a file read but not yet validated: [`Unbuilt::build`] makes
/// it a [`History`] (or says why not, as [`build`] does) on whichever thread
/// checks it. An axe trace is not even parsed yet: the file was checked
/// whole, and the trace is read from where it starts.
pub struct Unbuilt {
    /// Which history of the file it is.
    index: usize,
    source: Source,
}

enum Source {
    Raw(RawHistory),
    Axe {
        bytes: Arc<FileBytes>,
        start: TraceStart,
        /// The bytes up to the next trace's start.
        len: usize,
    },
}

impl Unbuilt {
    /// The history, validated ([`build`]; an axe trace by
    /// [`History::from_axe`]); `path` names the file in errors.
    pub fn build(&self, path: &Path) -> Result<History, InputError> {
        let located = |pos, msg| InputError {
            file: path.to_path_buf(),
            pos: Some(pos),
            msg,
        };
        match &self.source {
            Source::Raw(raw) => build(raw, self.index, path),
            Source::Axe { bytes, start, .. } => {
                thread_local! {
                    /// The room this thread reads traces into, kept.
                    static BUFFERS: std::cell::Cell<AxeBuffers> = Default::default();
                }
                let mut traces = AxeTraces::starting_at_with(bytes, *start, BUFFERS.take());
                let built = match traces.next_trace() {
                    Some(Ok(trace)) => {
                        History::from_axe(trace, self.index).map_err(|e| located(e.pos, e.msg))
                    }
                    Some(Err(e)) => Err(parse_error(path)(e)),
                    // (the bytes are those checked: a trace is there)
                    None => unreachable!("an axe trace starts at each checked start"),
                };
                BUFFERS.set(traces.into_buffers());
                built
            }
        }
    }

    /// About how many operations it holds (an axe trace: a line of text
    /// per operation, at least 8 bytes each): what a history waiting to be
    /// checked weighs.
    pub fn ops(&self) -> usize {
        match &self.source {
            Source::Raw(raw) => raw.threads.iter().map(|t| t.ops.len()).sum(),
            Source::Axe { len, .. } => len / 8,
        }
    }
}

/// [`stream_file`] without validating: each history of a file, read, or why
/// it could not be, to `each` in order until `each` breaks. A file with a
/// syntax error gives none, only the error. The client's output is checked
/// whole ([`check_client`]), then handed out a round at a time; a `.hist`
/// file past [`HELD_WHOLE`] bytes (smaller ones are parsed once, whole) is
/// read twice from disk, through [`HistReader`] — first checked whole, a
/// history at a time, then read a history at a time; an axe file is checked
/// whole first, and each trace is then parsed by [`Unbuilt::build`], from
/// where it starts. One history's text may take at most
/// [`history_text_limit`]`(max_memory)` bytes: past that the file is an
/// input error, not an allocation that may abort the batch.
///
/// With `ahead`, a large `.hist` file and the client's output are checked
/// whole on another thread *while* their histories are handed out, so that
/// checking them need not wait for a whole pass over the file: what `each`
/// was given counts only if this returns `Ok` (`Err`: the file's first
/// error, as without `ahead`, and the caller reports none of the file's
/// histories). Histories before an error may have been handed out; a
/// caller holds what it made of them until this returns.
pub fn stream_unbuilt(
    path: &Path,
    max_memory: u64,
    ahead: bool,
    mut each: impl FnMut(Unbuilt) -> ControlFlow<()>,
) -> Result<(), InputError> {
    let raw = |index, raw| Unbuilt {
        index,
        source: Source::Raw(raw),
    };
    let kind = sniff(path)?;
    if kind == Kind::Hist && !held_whole(path, max_memory) {
        let limit = history_text_limit(max_memory);
        let histories = || -> Result<_, InputError> {
            let file = std::fs::File::open(path).map_err(|e| cannot_read(path, e))?;
            Ok(HistReader::new(std::io::BufReader::with_capacity(1 << 16, file)).limit(limit))
        };
        // checked whole first (or beside): a file with a syntax error gives none
        let check = || -> Result<(), InputError> {
            for h in histories()? {
                h.map_err(parse_error(path))?;
            }
            Ok(())
        };
        let mut hand_out = || -> Result<(), InputError> {
            for (i, h) in histories()?.enumerate() {
                // (an error now: the file changed since it was checked, or
                // it is the error the check finds)
                let h = h.map_err(parse_error(path))?;
                if each(raw(i, h)).is_break() {
                    break;
                }
            }
            Ok(())
        };
        return checked_first_or_beside(ahead, check, &mut hand_out);
    }
    let bytes = open(path)?;
    if kind == Kind::Client {
        // a round at a time: a client run of 10^4 rounds is 10^4 histories
        let check = || check_client(&bytes).map_err(parse_error(path));
        let mut hand_out = || {
            let mut i = 0;
            stream_client_unchecked(&bytes, |h| {
                i += 1;
                each(raw(i - 1, h))
            })
            .map_err(parse_error(path))
        };
        return checked_first_or_beside(ahead, check, &mut hand_out);
    }
    if !looks_like_axe(&bytes) {
        for (i, h) in parse_bytes(&bytes, path)?.into_iter().enumerate() {
            if each(raw(i, h)).is_break() {
                break;
            }
        }
        return Ok(());
    }
    let starts = axe_starts(&bytes).map_err(parse_error(path))?;
    let bytes = Arc::new(bytes);
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(bytes.len(), |s| s.offset);
        let source = Source::Axe {
            bytes: bytes.clone(),
            start,
            len: end - start.offset,
        };
        if each(Unbuilt { index: i, source }).is_break() {
            break;
        }
    }
    Ok(())
}

/// `check`, then `hand_out` if it passed; with `ahead`, both at once
/// (`check` on a thread of its own) and `check`'s error first: the file's
/// first error is what `check` finds, whatever was handed out.
fn checked_first_or_beside(
    ahead: bool,
    check: impl FnOnce() -> Result<(), InputError> + Send,
    hand_out: &mut dyn FnMut() -> Result<(), InputError>,
) -> Result<(), InputError> {
    if !ahead {
        check()?;
        return hand_out();
    }
    std::thread::scope(|scope| {
        let checking = scope.spawn(check);
        let handed = hand_out();
        let checked = match checking.join() {
            Ok(checked) => checked,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        checked.and(handed)
    })
}

/// [`memconform_parsers::axe::axe_trace_starts`] of a whole axe file, its
/// pieces ([`axe_cuts`]) checked in parallel: the first error of the first
/// piece that has one is the file's first error.
fn axe_starts(src: &[u8]) -> Result<Vec<TraceStart>, memconform_parsers::ParseError> {
    use rayon::prelude::*;
    // (pieces of at least 64 KiB: a piece is checked at about 300 MB/s)
    let pieces = (src.len() >> 16).clamp(1, 4 * rayon::current_num_threads());
    let froms: Vec<TraceStart> = std::iter::once(TraceStart {
        offset: 0,
        lines: 0,
    })
    .chain(axe_cuts(src, pieces))
    .collect();
    let checked: Vec<_> = (0..froms.len())
        .into_par_iter()
        .map(|i| {
            let end = froms.get(i + 1).map_or(src.len(), |c| c.offset);
            axe_trace_starts_between(src, froms[i], end)
        })
        .collect();
    let mut starts = Vec::new();
    for piece in checked {
        starts.extend(piece?);
    }
    Ok(starts)
}

/// Whether a `.hist` file is small enough to be parsed once, whole, in
/// memory (at most [`HELD_WHOLE`] bytes and a sixteenth of the budget):
/// streaming reads it twice, which costs about a fifth more than its check
/// for a 100,000-operation history (cachegrind, CC alone); a larger file is
/// streamed, a history at a time.
fn held_whole(path: &Path, max_memory: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() <= HELD_WHOLE.min(max_memory / 16))
}

/// The largest `.hist` file parsed whole (its parsed form takes about ten
/// times its text).
const HELD_WHOLE: u64 = 16 << 20;

/// The most bytes of text one `.hist` history may hold when each history
/// may use `max_memory` bytes: its parsed form takes about ten times its
/// text (a 56-byte record and a name per 8-byte `R(x,1)`), and the history
/// built from it more, so a sixteenth keeps them near the budget (at least
/// 1 MiB: what any process can hold); the checker refuses (`unknown`) what
/// would pass the budget after that.
pub fn history_text_limit(max_memory: u64) -> u64 {
    (max_memory / 16).max(1 << 20)
}

/// What a file holds, by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Hist,
    Axe,
    Client,
}

/// What `path` holds (see [`parse_bytes`]), read line by line: axe traces
/// by their first line, the client's output by a header line anywhere,
/// else `.hist`.
fn sniff(path: &Path) -> Result<Kind, InputError> {
    use std::io::BufRead;
    memconform_parsers::file::regular(path).map_err(|e| cannot_read(path, e))?;
    let file = std::fs::File::open(path).map_err(|e| cannot_read(path, e))?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        // (a line past the limit is no client header: stop there)
        let n = std::io::Read::take(&mut r, 1 << 20)
            .read_until(b'\n', &mut line)
            .map_err(|e| cannot_read(path, e))?;
        if n == 0 {
            return Ok(Kind::Hist);
        }
        if first && looks_like_axe(&line) {
            return Ok(Kind::Axe);
        }
        let blank = line
            .iter()
            .position(|&b| b == b'#')
            .map_or(&line[..], |h| &line[..h])
            .iter()
            .all(|b| b.is_ascii_whitespace());
        first &= blank;
        if line.starts_with(b"# memconform-client ") && looks_like_client(&line) {
            return Ok(Kind::Client);
        }
        if n == 1 << 20 && line.last() != Some(&b'\n') {
            // the rest of a long line
            r.skip_until(b'\n').map_err(|e| cannot_read(path, e))?;
        }
    }
}

fn cannot_read(path: &Path, e: std::io::Error) -> InputError {
    InputError {
        file: path.to_path_buf(),
        pos: None,
        msg: format!("cannot read: {e}"),
    }
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
    build_all(&parse_bytes(bytes, path)?, path)
}

/// Every parsed history of `path`, validated (see [`build`]).
fn build_all(raws: &[RawHistory], path: &Path) -> Result<Vec<History>, InputError> {
    raws.iter()
        .enumerate()
        .map(|(i, raw)| build(raw, i, path))
        .collect()
}

/// A parse error of `path` as an input error at its position.
fn parse_error(path: &Path) -> impl Fn(memconform_parsers::ParseError) -> InputError + '_ {
    move |e| InputError {
        file: path.to_path_buf(),
        pos: Some(e.pos),
        msg: e.msg,
    }
}

/// The whole rounds of the SE client's output while the client is still
/// writing it (see [`parse_client_prefix`]), validated, and where it stops.
pub fn load_client_prefix(path: &Path) -> Result<(Vec<History>, Option<Unfinished>), InputError> {
    let bytes = open(path)?;
    let (raws, unfinished) = parse_client_prefix(&bytes).map_err(parse_error(path))?;
    Ok((build_all(&raws, path)?, unfinished))
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
    parsed.map_err(parse_error(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("memconform-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn streamed(p: &Path) -> Result<Vec<Result<History, InputError>>, InputError> {
        let mut got = Vec::new();
        stream_file(p, u64::MAX, |h| {
            got.push(h);
            ControlFlow::Continue(())
        })?;
        Ok(got)
    }

    /// `p` streams the `n` histories [`load_file`] reads, in order, each
    /// with the same index, name, size and metadata.
    fn assert_streams_as_loaded(p: &Path, n: usize) {
        let whole = load_file(p).unwrap();
        let got: Vec<History> = streamed(p)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!((whole.len(), got.len()), (n, n));
        for (a, b) in whole.iter().zip(&got) {
            assert_eq!((a.index, &a.name, a.n()), (b.index, &b.name, b.n()));
            assert_eq!(a.meta, b.meta);
        }
    }

    /// A `.hist` file streams the histories `load_file` reads; one with a
    /// syntax error anywhere gives none, only the error; an invalid history
    /// is handed out as its error, in its place.
    #[test]
    fn hist_files_stream_like_they_load() {
        let p = file(
            "three.hist",
            "t0: W(x,1)\n---\nt0: R(x,0)\nt1: W(x,1)\n---\n@name c\nt0: F\n",
        );
        assert_streams_as_loaded(&p, 3);
        let p = file("late-error.hist", "t0: W(x,1)\n---\nt0: W(x,1\n");
        let e = streamed(&p).unwrap_err();
        assert_eq!((e.pos.unwrap().line, e.pos.unwrap().col), (3, 10));
        let p = file("invalid.hist", "t0: W(x,1)\n---\nt0: W(x,0)\n---\nt0: F\n");
        let got = streamed(&p).unwrap();
        assert_eq!(got.len(), 3);
        assert!(got[0].is_ok() && got[1].is_err() && got[2].is_ok());
        // the client's output and axe traces are still told by content
        let p = file("a.axe", "0: M[0] := 1\ncheck\n");
        assert_eq!(streamed(&p).unwrap().len(), 1);
        assert_eq!(sniff(&p).unwrap(), Kind::Axe);
        let p = file("client.out", "gem5\n# memconform-client v1 threads=1 ops=1 words=1 seed=1 rounds=1 stride=1 writes=50\n");
        assert_eq!(sniff(&p).unwrap(), Kind::Client);
    }

    /// The client's output streams the histories `load_file` reads, in
    /// order, with their metadata; a block with an error anywhere gives
    /// none, only the error.
    #[test]
    fn client_output_streams_like_it_loads() {
        let out = "gem5 says hello\n\
# memconform-client v1 threads=2 ops=1 words=1 seed=1 rounds=2 stride=1 writes=50
@name client-s1-r0
@round 0
t0: W(w0,0x1000000000001)
t1: R(w0,0)
---
@name client-s1-r1
@round 1
t0: R(w0,0)
t1: W(w0,0x2000000000001)
# memconform-client end histories=2
";
        let p = file("two-rounds.out", out);
        assert_streams_as_loaded(&p, 2);
        // the end line disagrees: an error, no history handed out
        let p = file("bad-end.out", &out.replace("histories=2", "histories=3"));
        let e = streamed(&p).unwrap_err();
        assert_eq!(e.pos.unwrap().line, 12);
        // the second round breaks its header: the first is not handed out
        let p = file("bad-round.out", &out.replace("@round 1", "@round 7"));
        assert!(streamed(&p).is_err());
    }
}
