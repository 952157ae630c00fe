//! The Ruby random tester's `RubyTest` debug lines (gem5 `src/cpu/testers/rubytest/`).
//!
//! ```text
//!     541: global: [0x3e8, value: 57, status: Idle, initiating node: 1, store_count: 2]
//!     541: global: Seq write: index 1 data 0x3b check 0x3b
//!     550: global: Seq read: index 0
//!     551: global: failed to initiate check - cpu port not ready
//!     612: system.cpu: completed request for proc: 1 addr: 0x3ea, size: 1, data: 59
//! ```

use super::cursor::{Cursor, Fail};
use super::input::{tester_message, LineDamage};

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
    /// A request completed on port `proc_`, with the bytes at `addr..`
    /// (as many as `size`: a line with another count is damage).
    Completed {
        proc_: u32,
        addr: u64,
        size: u32,
        data: Vec<u8>,
    },
}

/// The bytes of a check (`CHECK_SIZE` in gem5's `Check.hh`): a check writes
/// its bytes one at a time, so `store_count` runs from 0 to 4.
pub const CHECK_SIZE: u64 = 4;

/// The two messages of a request the sequencer did not accept (`Check.cc`).
const INITIATE_FAILED: [&str; 2] = [
    "failed to initiate action - sequencer not ready",
    "failed to initiate check - cpu port not ready",
];

/// Whether a `DPRINTF` message (of `object`) is one of the lines this parser
/// reads: a check's state (`global: [`), an issued write or read, a refused
/// request, a completion.
fn is_rubytest_message(object: &str, msg: &[u8]) -> bool {
    msg.starts_with(b"Seq write")
        || msg.starts_with(b"Seq read")
        || msg.starts_with(b"failed to initiate")
        || msg.starts_with(b"completed request")
        || (object == "global" && msg.starts_with(b"["))
}

/// `[0x3e8, value: 57, status: Idle, initiating node: 1, store_count: 2]`
/// (`%#x` prints a zero address as `0`).
fn debug_print<'a>(c: &mut Cursor<'a>) -> Result<RubyTestLine<'a>, Fail<'a>> {
    c.tag("[")?;
    let addr = if c.rest.starts_with("0x") {
        c.hex0x("check address", u64::MAX)?
    } else {
        c.tag("0")?;
        0
    };
    c.tag(", value: ")?;
    let value = c.dec("value", 255)?;
    c.tag(", status: ")?;
    let len = c
        .rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(c.rest.len());
    if len == 0 {
        return c.fail("expected the check's status");
    }
    let status = &c.rest[..len];
    c.rest = &c.rest[len..];
    c.tag(", initiating node: ")?;
    c.dec("initiating node", u32::MAX as u64)?;
    c.tag(", store_count: ")?;
    let store_count = c.dec("store_count", CHECK_SIZE)? as u32;
    c.tag("]")?;
    c.end()?;
    Ok(RubyTestLine::DebugPrint {
        addr,
        value,
        status,
        store_count,
    })
}

/// `Seq write: index 1 data 0x3b check 0x3b` (the same byte twice, so a
/// value cut short shows; what follows ` check 0x..`, if anything, is ignored).
fn seq_write<'a>(c: &mut Cursor<'a>) -> Result<RubyTestLine<'a>, Fail<'a>> {
    c.tag("Seq write: index ")?;
    let index = c.dec("port index", u32::MAX as u64)? as u32;
    c.tag(" data ")?;
    let data = c.hex0x("data byte", 255)?;
    c.tag(" check ")?;
    let at = c.rest;
    let check = c.hex0x("check byte", 255)?;
    if check != data {
        return Err((
            at,
            format!("check 0x{check:x} differs from data 0x{data:x} (gem5 prints the same byte)"),
        ));
    }
    if !c.rest.is_empty() {
        c.tag(" ")?;
    }
    Ok(RubyTestLine::SeqWrite {
        index,
        data: data as u8,
    })
}

/// `Seq read: index 3`
fn seq_read<'a>(c: &mut Cursor<'a>) -> Result<RubyTestLine<'a>, Fail<'a>> {
    c.tag("Seq read: index ")?;
    let index = c.dec("port index", u32::MAX as u64)? as u32;
    c.end()?;
    Ok(RubyTestLine::SeqRead { index })
}

/// `completed request for proc: 1 addr: 0x6e8, size: 4, data: 0 0 0 255 `:
/// every byte is followed by a space (`RubyTester::hitCallback`), and there
/// are exactly `size` of them.
fn completed<'a>(c: &mut Cursor<'a>) -> Result<RubyTestLine<'a>, Fail<'a>> {
    c.tag("completed request for proc: ")?;
    let proc_ = c.dec("port", u32::MAX as u64)? as u32;
    c.tag(" addr: ")?;
    let addr = c.hex0x("address", u64::MAX)?;
    c.tag(", size: ")?;
    let size_at = c.rest;
    let size = c.dec("size", u32::MAX as u64)? as u32;
    c.tag(", data: ")?;
    let mut data = Vec::new();
    while !c.rest.is_empty() {
        let at = c.rest;
        data.push(c.dec("data byte", 255)? as u8);
        if !c.eat(" ") {
            return Err((
                at,
                if c.rest.is_empty() {
                    "the line ends inside the data bytes (gem5 ends each byte with a space): cut"
                        .to_string()
                } else {
                    format!("expected a space after data byte {}", data[data.len() - 1])
                },
            ));
        }
    }
    if data.len() != size as usize {
        return Err((
            size_at,
            format!("size: {size} but {} data bytes", data.len()),
        ));
    }
    Ok(RubyTestLine::Completed {
        proc_,
        addr,
        size,
        data,
    })
}

/// `(tick, line)` for a `RubyTest` line that matters for histories: Ok(None)
/// for any other line (other debug flags, other tester messages, ProtocolTrace),
/// Err for a line that is recognisably one of these (its `DPRINTF` prefix and
/// message start match) but whose body does not parse or has a field out of
/// range: a value past a byte, an address past 64 bits, `size` other than the
/// number of data bytes, a line cut short. Damage, never a line to skip.
pub fn parse_rubytest_line(line: &[u8]) -> Result<Option<(u64, RubyTestLine<'_>)>, LineDamage> {
    let Some((tick, _object, msg, at)) = tester_message(line, is_rubytest_message)? else {
        return Ok(None);
    };
    let text = std::str::from_utf8(msg).map_err(|e| LineDamage {
        col: at + e.valid_up_to() + 1,
        msg: "not UTF-8 text".into(),
    })?;
    let mut c = Cursor::new(text);
    let parsed = match msg[0] {
        b'[' => debug_print(&mut c),
        b'S' if msg.starts_with(b"Seq write") => seq_write(&mut c),
        b'S' => seq_read(&mut c),
        b'f' => match INITIATE_FAILED.contains(&text) {
            true => Ok(RubyTestLine::InitiateFailed),
            false => c.fail(format!(
                "expected `{}` or `{}`",
                INITIATE_FAILED[0], INITIATE_FAILED[1]
            )),
        },
        _ => completed(&mut c),
    };
    match parsed {
        Ok(l) => Ok(Some((tick, l))),
        Err((rest, msg)) => Err(LineDamage {
            col: line.len() - rest.len() + 1,
            msg,
        }),
    }
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

    /// The line, parsed: Ok(None) for lines that are not the tester's.
    fn p(s: &str) -> Result<Option<(u64, RubyTestLine<'_>)>, LineDamage> {
        parse_rubytest_line(s.as_bytes())
    }

    /// The damage of a line: (column, message).
    fn damage(s: &str) -> (usize, String) {
        match p(s) {
            Err(d) => (d.col, d.msg),
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn the_lines_of_a_check() {
        assert_eq!(
            p("    541: global: [0x3e8, value: 57, status: Idle, initiating node: 1, store_count: 2]"),
            Ok(Some((541, RubyTestLine::DebugPrint { addr: 0x3e8, value: 57, status: "Idle", store_count: 2 })))
        );
        assert_eq!(
            p("      1: global: Seq write: index 1 data 0xc3 check 0xc3"),
            Ok(Some((
                1,
                RubyTestLine::SeqWrite {
                    index: 1,
                    data: 0xc3
                }
            )))
        );
        assert_eq!(
            p("  24000: global: Seq read: index 3"),
            Ok(Some((24000, RubyTestLine::SeqRead { index: 3 })))
        );
        assert_eq!(
            p("  24974: system.cpu: completed request for proc: 1 addr: 0x6e8, size: 4, data: 0 0 0 255 "),
            Ok(Some((24974, RubyTestLine::Completed { proc_: 1, addr: 0x6e8, size: 4, data: vec![0, 0, 0, 255] })))
        );
        assert_eq!(
            p("     12: global: failed to initiate action - sequencer not ready"),
            Ok(Some((12, RubyTestLine::InitiateFailed)))
        );
        assert_eq!(
            p("     12: global: failed to initiate check - cpu port not ready"),
            Ok(Some((12, RubyTestLine::InitiateFailed)))
        );
        // a zero address as %#x prints it
        assert!(matches!(
            p("      0: global: [0, value: 0, status: Idle, initiating node: 0, store_count: 0]"),
            Ok(Some((0, RubyTestLine::DebugPrint { addr: 0, .. })))
        ));
        // other lines: not the tester's (a check already pending issues nothing)
        for other in [
            "     12: global: initiating action/check - failed: action/check is pending",
            "     12: global: initiating",
            "            541   1        Seq               Begin       >       [0x3ea, line 0x3c0] ST",
            "    541: system.ruby.l1_cntrl0.sequencer: set data [ 0x0 0x1 ]",
            "    541: system.cpu: [not a check]",
            "garbage",
            "",
        ] {
            assert_eq!(p(other), Ok(None), "{other}");
        }
    }

    #[test]
    fn damaged_lines_say_where_and_what() {
        // a completion cut inside its data is not a read of 23
        let (col, msg) = damage("  24974: system.cpu: completed request for proc: 1 addr: 0x6e8, size: 4, data: 229 230 23");
        assert_eq!(col, 88, "{msg}");
        assert!(msg.contains("cut"), "{msg}");
        let (col, msg) = damage("  24974: system.cpu: completed request for proc: 1 addr: 0x6e8, size: 4, data: 229 230 231 ");
        assert_eq!(col, 71, "{msg}");
        assert_eq!(msg, "size: 4 but 3 data bytes");
        // values past a byte, a negative tick, an address past 64 bits
        let (col, msg) = damage("      1: global: Seq write: index 1 data 0x1c3 check 0x1c3");
        assert_eq!(col, 44, "{msg}");
        assert!(msg.contains("1c3 is out of range"), "{msg}");
        let (_, msg) = damage(
            "  24974: system.cpu: completed request for proc: 1 addr: 0x6e8, size: 1, data: 256 ",
        );
        assert!(msg.contains("data byte 256 is out of range"), "{msg}");
        let (_, msg) = damage("    541: global: [0x3e8, value: 300, status: Idle, initiating node: 1, store_count: 2]");
        assert!(msg.contains("value 300"), "{msg}");
        let (_, msg) = damage(
            "    541: global: [0x3e8, value: 3, status: Idle, initiating node: 1, store_count: 5]",
        );
        assert!(msg.contains("store_count 5"), "{msg}");
        let (col, msg) = damage("     -5: global: Seq read: index 3");
        assert_eq!(col, 6, "{msg}");
        assert!(msg.contains("negative tick"), "{msg}");
        let (_, msg) = damage("99999999999999999999999: global: Seq read: index 3");
        assert!(msg.contains("64 bits"), "{msg}");
        let (col, msg) = damage("  24974: system.cpu: completed request for proc: 1 addr: 0x12345678901234567890, size: 1, data: 3 ");
        assert_eq!(col, 60, "{msg}");
        assert!(msg.contains("does not fit in 64 bits"), "{msg}");
        // a hex value cut, a write whose two copies differ, text after the message
        assert!(damage("      1: global: Seq write: index 1 data 0x")
            .1
            .contains("hex"));
        assert!(
            damage("      1: global: Seq write: index 1 data 0xc3 check 0xc")
                .1
                .contains("differs")
        );
        assert!(damage("  24000: global: Seq read: index 3 and more")
            .1
            .contains("unexpected text"));
        assert!(damage("     12: global: failed to initiate act")
            .1
            .contains("expected"));
        assert!(
            damage("    541: global: [0x3e8, value: 57, status: Idle, initiating no")
                .1
                .contains("cut")
        );
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
}
