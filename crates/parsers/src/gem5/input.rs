//! Reading gem5 debug traces line by line: plain files (memory-mapped) or
//! gzip streams (decoded incrementally), including a `.gz` that gem5 left
//! without its trailer because it aborted (see docs/design/gem5.md §1).
//!
//! Also [`split_dprintf`], which splits a `DPRINTF` line into tick, object
//! name and message.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use flate2::bufread::MultiGzDecoder;
use nom::bytes::complete::{tag, take_till1};
use nom::character::complete::{space0, u64 as dec_u64};
use nom::sequence::{preceded, terminated, tuple};
use nom::IResult;

/// How reading a trace ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Every line was read (or the callback stopped early).
    Complete,
    /// The input stops early: a gzip stream cut short, or a plain file whose
    /// last line has no newline (gem5 killed, a full disk, a copy of a file
    /// still being written). `lines` whole lines were delivered; the cut
    /// line was dropped. What was delivered is a true prefix of the log.
    Truncated { lines: u64, msg: String },
    /// The compressed data is corrupt: a checksum mismatch, invalid deflate
    /// data, garbage after the stream. `lines` lines were delivered before
    /// the error was detected, and they may themselves be wrong (deflate has
    /// no per-block check; the checksum comes at the end).
    Corrupt { lines: u64, msg: String },
}

impl Ending {
    /// Whether the input was read whole and intact.
    pub fn is_complete(&self) -> bool {
        matches!(self, Ending::Complete)
    }
}

/// A trace line that is recognisably a tester's but whose body does not
/// parse, or parses to values out of range: damage, not a line to skip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineDamage {
    /// 1-based byte column where the damage starts.
    pub col: usize,
    pub msg: String,
}

impl std::fmt::Display for LineDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "col {}: {}", self.col, self.msg)
    }
}

/// The message of a tester's `DPRINTF` line: its tick, object name, message
/// and the message's 0-based byte offset in the line.
pub type TesterMessage<'a> = (u64, &'a str, &'a [u8], usize);

/// Splits a `DPRINTF` line into tick, object and message when the message is
/// a tester's (`is_tester(object, message)`): Ok(None) for other lines; a line
/// whose prefix is malformed (a negative tick, a tick past 64 bits, a missing
/// object) but which carries a tester's message after some `": "` is damage.
pub fn tester_message<'a>(
    line: &'a [u8],
    is_tester: impl Fn(&str, &[u8]) -> bool,
) -> Result<Option<TesterMessage<'a>>, LineDamage> {
    match split_dprintf(line) {
        Some((tick, object, msg)) => {
            let at = line.len() - msg.len();
            Ok(is_tester(object, msg).then_some((tick, object, msg, at)))
        }
        None => {
            // a tester's message after some ": ", with a prefix that does not parse
            let carries = (0..line.len().saturating_sub(1))
                .filter(|&i| line[i] == b':' && line[i + 1] == b' ')
                .any(|i| {
                    let object = line[..i]
                        .rsplit(|&c| c == b' ' || c == b':')
                        .next()
                        .and_then(|o| std::str::from_utf8(o).ok())
                        .unwrap_or("");
                    is_tester(object, &line[i + 2..])
                });
            if carries {
                Err(prefix_damage(line))
            } else {
                Ok(None)
            }
        }
    }
}

/// What is wrong with a `DPRINTF` prefix that does not parse.
fn prefix_damage(line: &[u8]) -> LineDamage {
    let start = line.iter().take_while(|&&c| c == b' ').count();
    let digits = line[start..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let col = start + 1;
    if digits == 0 {
        let what = if line.get(start) == Some(&b'-') {
            "a negative tick"
        } else {
            "no tick"
        };
        return LineDamage {
            col,
            msg: format!(
                "{what}: a gem5 debug line starts with its tick (`  1234: object: message`)"
            ),
        };
    }
    if std::str::from_utf8(&line[start..start + digits])
        .ok()
        .and_then(|d| d.parse::<u64>().ok())
        .is_none()
    {
        return LineDamage {
            col,
            msg: format!("tick of {digits} digits does not fit in 64 bits"),
        };
    }
    LineDamage {
        col: start + digits + 1,
        msg: "malformed prefix: expected `<tick>: <object>: ` before the message".into(),
    }
}

/// The two bytes every gzip member starts with.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Buffer size for reading the compressed file and the decoded text.
const BUF: usize = 1 << 16;

/// Calls `f(line_number /*1-based*/, line /*without \n or \r\n*/)` for every line of a trace: a plain file
/// (streamed through a buffer) or, when the name ends in `.gz` or the content starts with the gzip
/// magic, a gzip stream decoded incrementally (flate2 MultiGzDecoder over a BufReader; memory bounded by the longest
/// line, not the file). A gzip cut short (missing trailer, as gem5 leaves it when it aborts) or corrupt: every complete
/// line decoded before the damage is delivered, a trailing partial line is dropped, and the result is
/// Ok(Ending::Truncated{..}) (cut short) or Ok(Ending::Corrupt{..}) (checksum, bad data, garbage after the stream)
/// with a message saying what happened. `f` returns ControlFlow::Break(()) to stop early
/// (then Ok(Ending::Complete)). I/O errors opening the file → Err.
///
/// A plain file's last line without a final newline is a line cut while written: it is not delivered, and the
/// result is Ok(Ending::Truncated{..}) (gem5 ends every line with `\n`).
pub fn for_each_line(
    path: &Path,
    mut f: impl FnMut(u64, &[u8]) -> ControlFlow<()>,
) -> io::Result<Ending> {
    crate::file::regular(path)?;
    let mut file = File::open(path)?;
    let named_gz = path.extension().is_some_and(|e| e == "gz");
    let gzip = named_gz || {
        let mut magic = [0u8; 2];
        let n = read_up_to(&mut file, &mut magic)?;
        file.seek(SeekFrom::Start(0))?;
        n == 2 && magic == GZIP_MAGIC
    };
    if gzip {
        return gzip_lines(file, &mut f);
    }
    let (number, stop) = lines(BufReader::with_capacity(BUF, file), false, &mut f);
    match stop {
        Stop::End { partial: 0 } | Stop::Broke => Ok(Ending::Complete),
        Stop::End { partial } => Ok(Ending::Truncated {
            lines: number,
            msg: format!(
                "the file ends inside line {} ({partial} bytes without a newline: cut while written); that line was dropped",
                number + 1
            ),
        }),
        Stop::TooLong => Ok(too_long(number)),
        Stop::Failed { error, .. } => Err(error),
    }
}

/// The longest line read: a gem5 trace line is a few hundred bytes; a
/// longer one (binary data, a gzip bomb without newlines) is damage, and
/// memory stays bounded by this, not by the file.
pub const MAX_LINE: usize = 1 << 20;

/// How [`lines`] stopped.
enum Stop {
    /// The input ended; `partial` bytes after the last newline.
    End { partial: usize },
    /// The callback asked to stop.
    Broke,
    /// A line grew past [`MAX_LINE`].
    TooLong,
    /// A read failed; `partial` bytes of a line were read before.
    Failed { error: io::Error, partial: usize },
}

/// The damage of a line past [`MAX_LINE`] after `number` lines.
fn too_long(number: u64) -> Ending {
    Ending::Corrupt {
        lines: number,
        msg: format!(
            "line {} is longer than {} MiB without a newline: not a gem5 trace",
            number + 1,
            MAX_LINE >> 20
        ),
    }
}

/// Calls `f` on each `\n`-ended line of `r` (without `\n` or `\r\n`),
/// numbered from 1, straight from the reader's buffer when the line lies in
/// it — and on a last line without `\n` when `last_line` says it is whole;
/// returns the count of lines delivered and why it stopped.
fn lines(
    mut r: impl BufRead,
    last_line: bool,
    f: &mut impl FnMut(u64, &[u8]) -> ControlFlow<()>,
) -> (u64, Stop) {
    let mut line: Vec<u8> = Vec::new();
    let mut number = 0u64;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                let partial = line.len();
                return (number, Stop::Failed { error, partial });
            }
        };
        if buf.is_empty() {
            if last_line && !line.is_empty() {
                number += 1;
                let _ = f(number, strip_cr(&line));
                return (number, Stop::End { partial: 0 });
            }
            return (
                number,
                Stop::End {
                    partial: line.len(),
                },
            );
        }
        let Some(nl) = find_newline(buf) else {
            if line.len() + buf.len() > MAX_LINE {
                return (number, Stop::TooLong);
            }
            line.extend_from_slice(buf);
            let k = buf.len();
            r.consume(k);
            continue;
        };
        if line.len() + nl > MAX_LINE {
            return (number, Stop::TooLong);
        }
        number += 1;
        let flow = if line.is_empty() {
            f(number, strip_cr(&buf[..nl]))
        } else {
            line.extend_from_slice(&buf[..nl]);
            let flow = f(number, strip_cr(&line));
            line.clear();
            flow
        };
        r.consume(nl + 1);
        if flow.is_break() {
            return (number, Stop::Broke);
        }
    }
}

/// The index of the first `\n` in `bytes`, eight bytes at a time.
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    let mut chunks = bytes.chunks_exact(8);
    let mut start = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_ne_bytes(word) ^ NEWLINES;
        // Nonzero exactly when some byte of `x` is zero, i.e. a `\n`.
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            break;
        }
        start += 8;
    }
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| start + i)
}

/// Reads into `buf` until it is full or the reader ends; returns the count.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// `line` without a final `\r`.
fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The lines of a gzip stream (one or more members) read from `file`.
fn gzip_lines(file: File, f: &mut impl FnMut(u64, &[u8]) -> ControlFlow<()>) -> io::Result<Ending> {
    let decoder = MultiGzDecoder::new(BufReader::with_capacity(BUF, file));
    let text = BufReader::with_capacity(BUF, decoder);
    // the stream ended whole (its checksum held): a last line without a
    // newline is a line
    let (number, stop) = lines(text, true, f);
    match stop {
        Stop::Broke | Stop::End { .. } => Ok(Ending::Complete),
        Stop::TooLong => Ok(too_long(number)),
        Stop::Failed { error: e, partial } if is_damage(&e) => {
            let partial = if partial == 0 {
                String::new()
            } else {
                format!("; a partial last line of {partial} bytes was dropped")
            };
            let cut = e.kind() == io::ErrorKind::UnexpectedEof;
            let what = if cut {
                "gzip stream cut short"
            } else {
                "gzip stream corrupt"
            };
            let place = if number == 0 {
                "before the first line".to_owned()
            } else {
                format!("after line {number}")
            };
            let msg = format!("{what} {place} ({e}){partial}");
            Ok(if cut {
                Ending::Truncated { lines: number, msg }
            } else {
                Ending::Corrupt { lines: number, msg }
            })
        }
        Stop::Failed { error, .. } => Err(error),
    }
}

/// Whether a read error means damaged compressed data rather than a failing device.
fn is_damage(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData
    )
}

/// Splits a `DPRINTF` line `"    427: system.cpu2: message"` into
/// `(tick, object name, message)`; None for raw (`DPRINTFR`) or other lines.
pub fn split_dprintf(line: &[u8]) -> Option<(u64, &str, &[u8])> {
    fn prefix(input: &[u8]) -> IResult<&[u8], (u64, &[u8])> {
        tuple((
            preceded(space0, terminated(dec_u64, tag(": "))),
            terminated(take_till1(|c| c == b':' || c == b' '), tag(": ")),
        ))(input)
    }
    let (msg, (tick, name)) = prefix(line).ok()?;
    Some((tick, std::str::from_utf8(name).ok()?, msg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;
    use std::path::PathBuf;

    /// The debug trace of one of the repository's gem5 runs.
    fn run(name: &str) -> PathBuf {
        crate::gem5::runs::mi_example_trace(name)
    }

    /// All lines of a file with the ending.
    fn collect(path: &Path) -> (Vec<Vec<u8>>, Ending) {
        let mut lines = Vec::new();
        let ending = for_each_line(path, |n, l| {
            assert_eq!(n, lines.len() as u64 + 1);
            lines.push(l.to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
        (lines, ending)
    }

    /// A scratch file that removes itself.
    struct Temp(PathBuf);
    impl Temp {
        fn new(name: &str, bytes: &[u8]) -> Temp {
            let dir = std::env::temp_dir().join(format!(
                "memconform-input-{}-{}",
                std::process::id(),
                name
            ));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            Temp(path)
        }
    }
    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn real_truncated_gzip_gives_many_lines() {
        let (lines, ending) = collect(&run("bug-mi5-n2-s3-gztrunc"));
        match ending {
            Ending::Truncated { lines: n, msg } => {
                assert_eq!(n, lines.len() as u64);
                // As many as `zcat` recovers; its partial last line `  337` is dropped.
                assert_eq!(n, 23450, "{msg}");
                assert!(msg.contains("5 bytes"), "{msg}");
                assert!(msg.contains("cut short"), "{msg}");
            }
            other => panic!("expected a truncated stream: {other:?}"),
        }
        // Every delivered line is a whole DPRINTF line.
        assert!(lines.iter().all(|l| split_dprintf(l).is_some()));
    }

    #[test]
    fn real_complete_gzip() {
        let (lines, ending) = collect(&run("clean-n8-s3-gz"));
        assert_eq!(ending, Ending::Complete);
        assert_eq!(lines.len(), 64033);
        assert!(lines.last().unwrap().starts_with(b"  "));
    }

    #[test]
    fn real_plain_file() {
        let (lines, ending) = collect(&run("memtest-n4"));
        assert_eq!(ending, Ending::Complete);
        assert_eq!(lines.len(), 7472);
    }

    #[test]
    fn cut_gzip_delivers_a_prefix_of_whole_lines() {
        let mut text = String::new();
        for i in 0..3000u32 {
            text.push_str(&format!(
                "{:7}: system.cpu{}: Initiating read at addr {:x} (blk {:x}) expecting 0\n",
                i,
                i % 4,
                0x100000 + i * 64 * 7 % 65536,
                0x100000 + i * 64 * 7 % 65536
            ));
        }
        let original: Vec<&[u8]> = text.as_bytes().split(|&b| b == b'\n').collect();
        let original = &original[..original.len() - 1];
        let gz = gzip(text.as_bytes());
        let temp = Temp::new("cut.txt.gz", &gz);
        let (all, ending) = collect(&temp.0);
        assert_eq!(ending, Ending::Complete);
        assert_eq!(all.len(), original.len());
        let mut seen_some = false;
        for cut in [
            11,
            100,
            1000,
            gz.len() / 3,
            gz.len() / 2,
            gz.len() - 20,
            gz.len() - 8,
            gz.len() - 1,
        ] {
            std::fs::write(&temp.0, &gz[..cut]).unwrap();
            let (lines, ending) = collect(&temp.0);
            let Ending::Truncated { lines: n, msg } = ending else {
                panic!("cut at {cut}: expected Truncated");
            };
            assert_eq!(n, lines.len() as u64, "{msg}");
            assert!(lines.len() <= original.len());
            for (got, want) in lines.iter().zip(original) {
                assert_eq!(got.as_slice(), *want, "cut at {cut}");
            }
            seen_some |= !lines.is_empty();
        }
        assert!(seen_some);
        // Corrupt bytes in the middle: Truncated.
        let mut bad = gz.clone();
        let mid = bad.len() / 2;
        for b in &mut bad[mid..mid + 64] {
            *b ^= 0x5a;
        }
        std::fs::write(&temp.0, &bad).unwrap();
        let mut lines = Vec::new();
        let ending = for_each_line(&temp.0, |_, l| {
            lines.push(l.to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
        // Deflate has no per-block check: damaged data may decode to wrong
        // text before the CRC in the trailer (or a bad code) reveals it.
        assert!(matches!(ending, Ending::Corrupt { .. }), "{ending:?}");
        assert_eq!(lines[0].as_slice(), original[0]);
        // A bad checksum: every line delivered, then Corrupt.
        let mut bad = gz.clone();
        let crc = bad.len() - 8;
        bad[crc] ^= 1;
        std::fs::write(&temp.0, &bad).unwrap();
        let (lines, ending) = collect(&temp.0);
        assert_eq!(lines.len(), original.len());
        match ending {
            Ending::Corrupt { lines: n, msg } => {
                assert_eq!(n, original.len() as u64);
                assert!(msg.contains("checksum"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        // Garbage after the stream: Corrupt.
        let mut bad = gz.clone();
        bad.extend_from_slice(b"garbage after the stream\n");
        std::fs::write(&temp.0, &bad).unwrap();
        let (lines, ending) = collect(&temp.0);
        assert_eq!(lines.len(), original.len());
        assert!(matches!(ending, Ending::Corrupt { .. }), "{ending:?}");
    }

    #[test]
    fn gzip_detected_by_magic_and_multi_member() {
        let mut gz = gzip(b"a\nb\r\n");
        gz.extend(gzip(b"c\nd"));
        let temp = Temp::new("trace.bin", &gz);
        let (lines, ending) = collect(&temp.0);
        assert_eq!(ending, Ending::Complete);
        assert_eq!(lines, [&b"a"[..], b"b", b"c", b"d"]);
    }

    #[test]
    fn crlf_and_last_line_in_plain_files() {
        let temp = Temp::new("crlf.txt", b"one\r\ntwo\n\r\nthree\r\n");
        let (lines, ending) = collect(&temp.0);
        assert_eq!(ending, Ending::Complete);
        assert_eq!(lines, [&b"one"[..], b"two", b"", b"three"]);
        // a last line without its newline was cut while written: dropped
        let temp = Temp::new("cut.txt", b"one\ntwo\nthr");
        let (lines, ending) = collect(&temp.0);
        assert_eq!(lines, [&b"one"[..], b"two"]);
        match ending {
            Ending::Truncated { lines: 2, msg } => {
                assert!(msg.contains("inside line 3 (3 bytes"), "{msg}")
            }
            other => panic!("{other:?}"),
        }
        let temp = Temp::new("empty.txt", b"");
        assert_eq!(collect(&temp.0).0.len(), 0);
    }

    #[test]
    fn crlf_in_gzip() {
        let temp = Temp::new("crlf.txt.gz", &gzip(b"x\r\ny\r\n"));
        let (lines, ending) = collect(&temp.0);
        assert_eq!(ending, Ending::Complete);
        assert_eq!(lines, [&b"x"[..], b"y"]);
    }

    #[test]
    fn break_stops_early() {
        let mut seen = 0;
        let ending = for_each_line(&run("bug-mi5-n2-s3-gztrunc"), |n, _| {
            seen = n;
            if n == 10 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert_eq!((seen, ending), (10, Ending::Complete));
    }

    #[test]
    fn not_gzip_named_gz_and_missing_file() {
        let temp = Temp::new("plain.gz", b"hello\nworld\n");
        let (lines, ending) = collect(&temp.0);
        assert!(lines.is_empty());
        assert!(
            matches!(ending, Ending::Corrupt { lines: 0, .. }),
            "{ending:?}"
        );
        let temp = Temp::new("empty.gz", b"");
        let (lines, ending) = collect(&temp.0);
        assert!(
            matches!(ending, Ending::Truncated { lines: 0, .. }),
            "{ending:?}"
        );
        assert!(lines.is_empty());
        assert!(for_each_line(Path::new("/nonexistent/trace.txt"), |_, _| {
            ControlFlow::Continue(())
        })
        .is_err());
    }

    #[test]
    fn dprintf_prefix() {
        let (tick, name, msg) = split_dprintf(b"    427: system.cpu2: Completing read").unwrap();
        assert_eq!(
            (tick, name, msg),
            (427, "system.cpu2", &b"Completing read"[..])
        );
        assert!(split_dprintf(b"            541   1        Seq  Begin").is_none());
        assert!(split_dprintf(b"").is_none());
        assert!(split_dprintf(b"99999999999999999999999: x: y").is_none());
    }
}
