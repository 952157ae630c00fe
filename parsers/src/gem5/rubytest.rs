//! The Ruby random tester's `RubyTest` debug lines (gem5 `src/cpu/testers/rubytest/`).
//!
//! ```text
//!     541: global: [0x3e8, value: 57, status: Idle, initiating node: 1, store_count: 2]
//!     541: global: Seq write: index 1 data 0x3b check 0x3b
//!     550: global: Seq read: index 0
//!     551: global: failed to initiate check - cpu port not ready
//!     612: system.cpu: completed request for proc: 1 addr: 0x3ea, size: 1, data: 59
//! ```

use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1, hex_digit1, space0, space1};
use nom::combinator::{map_res, opt, rest};
use nom::multi::many0;
use nom::sequence::{preceded, terminated};
use nom::IResult;

/// One meaningful `RubyTest` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RubyTestLine<'a> {
    /// A check's state: its base address, value, status and how many of its
    /// four bytes were written (`Check::debugPrint`).
    DebugPrint {
        addr: u64,
        value: u64,
        status: &'a str,
        store_count: u32,
    },
    /// A 1-byte write issued on port `index`.
    SeqWrite { index: u32, data: u8 },
    /// A 4-byte read issued on port `index`.
    SeqRead { index: u32 },
    /// The request just issued was not accepted (the port was busy).
    InitiateFailed,
    /// A request completed on port `proc_`, with the bytes at `addr..`.
    Completed {
        proc_: u32,
        addr: u64,
        size: u32,
        data: Vec<u8>,
    },
}

fn dec_u64(i: &str) -> IResult<&str, u64> {
    map_res(digit1, str::parse)(i)
}

fn dec_u32(i: &str) -> IResult<&str, u32> {
    map_res(digit1, str::parse)(i)
}

fn hex_u64(i: &str) -> IResult<&str, u64> {
    preceded(
        tag("0x"),
        map_res(hex_digit1, |h| u64::from_str_radix(h, 16)),
    )(i)
}

/// `  <tick>: <object>: ` then the message.
fn prefix(i: &str) -> IResult<&str, (u64, &str)> {
    let (i, _) = space0(i)?;
    let (i, tick) = terminated(dec_u64, tag(": "))(i)?;
    let (i, object) = terminated(take_while1(|c: char| c != ':' && c != ' '), tag(": "))(i)?;
    Ok((i, (tick, object)))
}

fn debug_print(i: &str) -> IResult<&str, RubyTestLine<'_>> {
    let (i, addr) = preceded(char('['), hex_u64)(i)?;
    let (i, value) = preceded(tag(", value: "), dec_u64)(i)?;
    let (i, status) = preceded(
        tag(", status: "),
        take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    )(i)?;
    let (i, _) = preceded(tag(", initiating node: "), digit1)(i)?;
    let (i, store_count) = preceded(tag(", store_count: "), dec_u32)(i)?;
    let (i, _) = char(']')(i)?;
    Ok((
        i,
        RubyTestLine::DebugPrint {
            addr,
            value,
            status,
            store_count,
        },
    ))
}

fn seq_write(i: &str) -> IResult<&str, RubyTestLine<'_>> {
    let (i, index) = preceded(tag("Seq write: index "), dec_u32)(i)?;
    let (i, data) = preceded(tag(" data "), hex_u64)(i)?;
    let (i, _) = rest(i)?;
    Ok((
        i,
        RubyTestLine::SeqWrite {
            index,
            data: data as u8,
        },
    ))
}

fn seq_read(i: &str) -> IResult<&str, RubyTestLine<'_>> {
    let (i, index) = preceded(tag("Seq read: index "), dec_u32)(i)?;
    Ok((i, RubyTestLine::SeqRead { index }))
}

fn completed(i: &str) -> IResult<&str, RubyTestLine<'_>> {
    let (i, proc_) = preceded(tag("completed request for proc: "), dec_u32)(i)?;
    let (i, addr) = preceded(tag(" addr: "), hex_u64)(i)?;
    let (i, size) = preceded(tag(", size: "), dec_u32)(i)?;
    let (i, _) = tag(", data:")(i)?;
    let (i, data) = many0(preceded(space1, map_res(digit1, str::parse::<u8>)))(i)?;
    let (i, _) = opt(space0)(i)?;
    Ok((
        i,
        RubyTestLine::Completed {
            proc_,
            addr,
            size,
            data,
        },
    ))
}

/// `(tick, line)` for a `RubyTest` line that matters for histories; `None`
/// for any other line (other debug flags, other tester messages, garbage).
pub fn parse_rubytest_line(line: &[u8]) -> Option<(u64, RubyTestLine<'_>)> {
    let text = std::str::from_utf8(line).ok()?;
    let (body, (tick, _object)) = prefix(text).ok()?;
    let parsed = match body.as_bytes().first()? {
        b'[' => debug_print(body).ok()?.1,
        b'S' if body.starts_with("Seq write") => seq_write(body).ok()?.1,
        b'S' if body.starts_with("Seq read") => seq_read(body).ok()?.1,
        b'f' if body.starts_with("failed to initiate") => RubyTestLine::InitiateFailed,
        b'c' if body.starts_with("completed request") => completed(body).ok()?.1,
        _ => return None,
    };
    Some((tick, parsed))
}

/// The tester's failure panic (in `simerr.txt`), e.g.
/// `panic: Action/check failure: proc: 0 address: 0x3e8 data: 0x55d1c0a3f2b0
/// byte_number: 2 m_value+byte_number: 59 byte: 0 [1000, ...]Time: 1590`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckFailure {
    pub proc_: u32,
    pub address: u64,
    pub byte_number: u32,
    pub expected: u64,
    pub got: u64,
    pub tick: u64,
}

/// Finds the tester's `Action/check failure` panic in a text.
pub fn parse_check_failure(text: &str) -> Option<CheckFailure> {
    let at = text.find("Action/check failure: ")?;
    let s = &text[at + "Action/check failure: ".len()..];
    let field = |name: &str| -> Option<&str> {
        let i = s.find(name)? + name.len();
        let t = &s[i..];
        let end = t
            .find(|c: char| c.is_whitespace() || c == '[')
            .unwrap_or(t.len());
        Some(&t[..end])
    };
    let num = |name: &str| -> Option<u64> {
        let v = field(name)?;
        match v.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => v.parse().ok(),
        }
    };
    Some(CheckFailure {
        proc_: num("proc: ")? as u32,
        address: num("address: ")?,
        byte_number: num("byte_number: ")? as u32,
        expected: num("m_value+byte_number: ")?,
        got: num(" byte: ")?,
        tick: num("Time: ")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_of_a_check() {
        let p = |s: &str| parse_rubytest_line(s.as_bytes()).map(|(t, l)| (t, format!("{l:?}")));
        assert_eq!(
            parse_rubytest_line(b"    541: global: [0x3e8, value: 57, status: Idle, initiating node: 1, store_count: 2]"),
            Some((541, RubyTestLine::DebugPrint { addr: 0x3e8, value: 57, status: "Idle", store_count: 2 }))
        );
        assert_eq!(
            parse_rubytest_line(b"      1: global: Seq write: index 1 data 0xc3 check 0xc3"),
            Some((
                1,
                RubyTestLine::SeqWrite {
                    index: 1,
                    data: 0xc3
                }
            ))
        );
        assert_eq!(
            parse_rubytest_line(b"  24000: global: Seq read: index 3"),
            Some((24000, RubyTestLine::SeqRead { index: 3 }))
        );
        assert_eq!(
            parse_rubytest_line(b"  24974: system.cpu: completed request for proc: 1 addr: 0x6e8, size: 4, data: 0 0 0 255 "),
            Some((24974, RubyTestLine::Completed { proc_: 1, addr: 0x6e8, size: 4, data: vec![0, 0, 0, 255] }))
        );
        assert!(p("     12: global: failed to initiate action - sequencer not ready").is_some());
        // (a check already pending issues nothing: not a failed request)
        assert!(
            p("     12: global: initiating action/check - failed: action/check is pending")
                .is_none()
        );
        assert_eq!(p("     12: global: initiating"), None);
        assert_eq!(p("            541   1        Seq               Begin       >       [0x3ea, line 0x3c0] ST"), None);
        assert_eq!(p("garbage"), None);
        assert_eq!(p(""), None);
    }

    #[test]
    fn the_failure_panic() {
        let text = "src/cpu/testers/rubytest/Check.cc:321: panic: Action/check failure: proc: 1 address: 0x6e8 data: 0x55f8c8cff4b0 byte_number: 0 m_value+byte_number: 195 byte: 0 [1768, value: 195, status: Check_Pending, initiating node: 0, store_count: 4]Time: 24974\nMemory Usage: 1 KBytes";
        assert_eq!(
            parse_check_failure(text),
            Some(CheckFailure {
                proc_: 1,
                address: 0x6e8,
                byte_number: 0,
                expected: 195,
                got: 0,
                tick: 24974
            })
        );
        assert_eq!(parse_check_failure("no panic here"), None);
    }

    #[test]
    fn never_panics_on_corrupted_lines() {
        let good = b"  24974: system.cpu: completed request for proc: 1 addr: 0x6e8, size: 4, data: 0 0 0 255 ";
        for i in 0..good.len() {
            for b in [b'x', b' ', b':', 0xff, b'0'] {
                let mut l = good.to_vec();
                l[i] = b;
                let _ = parse_rubytest_line(&l);
                let _ = parse_rubytest_line(&l[..i]);
            }
        }
    }
}
