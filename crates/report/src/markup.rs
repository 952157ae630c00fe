//! Text inside the pictures: HTML/SVG escaping and the letters that name
//! a certificate's events (shared by the pages, timelines and DOT files).

use std::borrow::Cow;

/// `s` as HTML text or attribute value: `& < > " '` escaped.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A name for the `i`-th event of a certificate: a, b, ..., z, a1, b1, ...
pub fn letter(i: usize) -> String {
    let c = (b'a' + (i % 26) as u8) as char;
    match i / 26 {
        0 => c.to_string(),
        k => format!("{c}{k}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_go_on_past_z() {
        assert_eq!(letter(0), "a");
        assert_eq!(letter(25), "z");
        assert_eq!(letter(26), "a1");
    }
}
