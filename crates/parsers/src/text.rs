//! Text from inputs as it may be shown: paths without loss, and control
//! characters (terminal escapes among them) made harmless. One place, so
//! that the reports, the notes and every message on standard error show a
//! path alike.

use std::borrow::Cow;
use std::path::Path;

/// A path as text without loss: UTF-8 as it is, each byte that is not
/// UTF-8 as `\xNN`, and a backslash as `\\` (so the two cannot meet).
pub fn path_text(p: &Path) -> Cow<'_, str> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = p.as_os_str().as_bytes();
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.contains('\\') {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    Cow::Owned(out)
}

/// Text from the input on one line, printable: control characters
/// (terminal escapes, line breaks) as `�`.
pub fn printable(s: &str) -> Cow<'_, str> {
    if no_control(s, false) {
        return Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Text from the input for a terminal: line breaks kept, other control
/// characters (terminal escapes among them) as `�`.
pub fn printable_lines(s: &str) -> Cow<'_, str> {
    if no_control(s, true) {
        return Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

/// Whether `s` has no control character (but `\n` with `lines`), told
/// from its bytes without decoding characters: the control characters are
/// U+0000–U+001F, U+007F and U+0080–U+009F, the last encoded as `0xC2`
/// then `0x80`–`0x9F` (`0xC2` is never a continuation byte).
fn no_control(s: &str, lines: bool) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, &c)| match c {
        0x20..=0x7e | 0x80..=0xc1 | 0xc3..=0xff => true,
        b'\n' => lines,
        0xc2 => !matches!(b.get(i + 1), Some(0x80..=0x9f)),
        _ => false,
    })
}

/// A path as a report or a message shows it: [`path_text`], then
/// [`printable`] (a file named with a line break or a terminal escape
/// cannot forge a line or drive the terminal).
pub fn shown_path(p: &Path) -> Cow<'_, str> {
    match path_text(p) {
        Cow::Borrowed(s) => printable(s),
        Cow::Owned(s) => Cow::Owned(printable(&s).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_path_has_no_control_character_and_keeps_its_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let p = |b: &[u8]| Path::new(std::ffi::OsStr::from_bytes(b)).to_path_buf();
        assert_eq!(shown_path(&p(b"runs/a b.hist")), "runs/a b.hist");
        assert_eq!(
            shown_path(&p(b"d/x\n\x1b[31mred\x07.hist")),
            "d/x\u{fffd}\u{fffd}[31mred\u{fffd}.hist"
        );
        assert_eq!(shown_path(&p(b"d/\xff\\.hist")), r"d/\xff\\.hist");
        assert_eq!(printable_lines("a\nb\rc\x1b"), "a\nb\u{fffd}c\u{fffd}");
    }

    #[test]
    fn printable_text_replaces_exactly_the_control_characters() {
        let by_chars = |s: &str, keep_lf: bool| -> String {
            s.chars()
                .map(|c| {
                    if c.is_control() && !(keep_lf && c == '\n') {
                        '\u{fffd}'
                    } else {
                        c
                    }
                })
                .collect()
        };
        // every character up to U+0200 (C0, DEL, C1 among them), alone and
        // beside ASCII text
        for c in (0..0x200u32).filter_map(char::from_u32) {
            for s in [c.to_string(), format!("t0:W(x,1) {c} ok"), format!("{c}\n")] {
                assert_eq!(printable(&s), by_chars(&s, false), "{s:?}");
                assert_eq!(printable_lines(&s), by_chars(&s, true), "{s:?}");
            }
        }
    }
}
