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
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Text from the input for a terminal: line breaks kept, other control
/// characters (terminal escapes among them) as `�`.
pub fn printable_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\n') {
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
}
