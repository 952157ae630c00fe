//! A cursor over the message of a tester line that says where and why the
//! message stops matching gem5's format: the tester parsers' damage reports.

use nom::character::complete::{digit1, hex_digit1};
use nom::IResult;

/// Where a message stopped matching (the unmatched rest) and why.
pub(crate) type Fail<'a> = (&'a str, String);

/// The unread rest of a message.
pub(crate) struct Cursor<'a> {
    pub rest: &'a str,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { rest: text }
    }

    /// A failure at the current position.
    pub fn fail<T>(&self, msg: impl Into<String>) -> Result<T, Fail<'a>> {
        Err((self.rest, msg.into()))
    }

    /// Consumes `t`, or fails saying it was expected.
    pub fn tag(&mut self, t: &str) -> Result<(), Fail<'a>> {
        match self.rest.strip_prefix(t) {
            Some(r) => {
                self.rest = r;
                Ok(())
            }
            None if !self.rest.is_empty() && t.starts_with(self.rest) => self.fail(format!(
                "expected `{t}` but the line ends after `{}` (cut?)",
                self.rest
            )),
            None => self.fail(format!("expected `{t}`{}", found(self.rest))),
        }
    }

    /// Consumes `t` if it is next.
    pub fn eat(&mut self, t: &str) -> bool {
        match self.rest.strip_prefix(t) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    /// A decimal number no larger than `max`, named `what` in errors.
    pub fn dec(&mut self, what: &str, max: u64) -> Result<u64, Fail<'a>> {
        let r: IResult<&str, &str> = digit1(self.rest);
        let Ok((rest, digits)) = r else {
            return self.fail(format!("expected the decimal {what}{}", found(self.rest)));
        };
        match digits.parse::<u64>() {
            Ok(v) if v <= max => {
                self.rest = rest;
                Ok(v)
            }
            _ => self.fail(format!("{what} {digits} is out of range (at most {max})")),
        }
    }

    /// A hex number (digits only, no `0x`) no larger than `max`.
    pub fn hex(&mut self, what: &str, max: u64) -> Result<u64, Fail<'a>> {
        let r: IResult<&str, &str> = hex_digit1(self.rest);
        let Ok((rest, digits)) = r else {
            return self.fail(format!("expected the hex {what}{}", found(self.rest)));
        };
        match u64::from_str_radix(digits, 16) {
            Ok(v) if v <= max => {
                self.rest = rest;
                Ok(v)
            }
            Ok(_) => self.fail(format!("{what} {digits} is out of range (at most {max:x})")),
            Err(_) => self.fail(format!(
                "{what} {digits} ({} hex digits) does not fit in 64 bits",
                digits.len()
            )),
        }
    }

    /// `0x` then a hex number no larger than `max`.
    pub fn hex0x(&mut self, what: &str, max: u64) -> Result<u64, Fail<'a>> {
        self.tag("0x")?;
        self.hex(what, max)
    }

    /// Fails unless the message is fully read.
    pub fn end(&self) -> Result<(), Fail<'a>> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            self.fail(format!(
                "unexpected text after the message{}",
                found(self.rest)
            ))
        }
    }
}

/// `: found `…`` naming (the start of) what was there instead, or that the line ended.
fn found(rest: &str) -> String {
    if rest.is_empty() {
        return " but the line ends (cut?)".into();
    }
    let shown: String = rest.chars().take(12).collect();
    let more = if shown.len() < rest.len() { "…" } else { "" };
    format!(", found `{}{more}`", shown.escape_debug())
}
