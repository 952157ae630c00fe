//! MemTest debug lines (`--debug-flags=MemTest`, `src/cpu/testers/memtest/memtest.cc`
//! of gem5 v24.0.0.1) and its read-check panic. Hex is printed without `0x`.
//!
//! ```text
//!       0: system.cpu3: Initiating write at addr 406783 (blk 406780) value 40
//!       0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 0
//!     427: system.cpu2: Completing read at address 108582 (blk 108580) success
//! ```
//!
//! Variants: `Initiating functional read|write …` (a functional access,
//! completed at once in the same tick), `Initiating atomic at addr A (blk B)
//! value V` (an atomic swap writing V), completions `Completing
//! read|write|atomic at address A (blk B) success|error`, and after an atomic's
//! completion `Completing atomic at address A (blk B) value OLD` (see
//! [`parse_memtest_atomic_value`]).

use nom::bytes::complete::tag;
use nom::character::complete::{hex_digit1, u64 as dec_u64};
use nom::combinator::{all_consuming, map_res};
use nom::sequence::{delimited, preceded, tuple};
use nom::IResult;

use super::cursor::{Cursor, Fail};
use super::input::{tester_message, LineDamage};

/// The direction of a MemTest access (an atomic swap counts as a write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// One MemTest line: an access issued or completed by tester `tester`
/// (the number in `system.cpuN`; `system.cpu` alone is tester 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemTestLine {
    /// A read expecting `value`, or a write (or atomic swap) of `value`;
    /// `mode` is `"timing"`, `"functional"` or `"atomic"` (an atomic swap).
    Initiate {
        tester: u32,
        access: Access,
        addr: u64,
        value: u8,
        mode: &'static str,
    },
    /// A response; `success` is false for an error response. A read's data
    /// is not printed: gem5 panics when it differs from the expected value.
    Complete {
        tester: u32,
        access: Access,
        addr: u64,
        success: bool,
    },
}

type Res<'a, T> = IResult<&'a [u8], T>;

/// A hex number without `0x`.
fn hex(input: &[u8]) -> Res<'_, u64> {
    map_res(map_res(hex_digit1, std::str::from_utf8), |d| {
        u64::from_str_radix(d, 16)
    })(input)
}

/// A hex byte without `0x`.
fn hex_byte(input: &[u8]) -> Res<'_, u8> {
    map_res(hex, u8::try_from)(input)
}

/// `A (blk B)` after `at addr ` / `at address `; the block is not kept.
fn addr_blk(input: &[u8]) -> Res<'_, u64> {
    let (rest, (addr, _)) = tuple((hex, delimited(tag(" (blk "), hex, tag(")"))))(input)?;
    Ok((rest, addr))
}

/// Whether a `DPRINTF` message is one of MemTest's request lines.
fn is_memtest_message(_object: &str, msg: &[u8]) -> bool {
    msg.starts_with(b"Initiating ") || msg.starts_with(b"Completing ")
}

/// `A (blk B)`: the address and its block (B is A with low bits cleared).
fn address_and_block<'a>(c: &mut Cursor<'a>) -> Result<u64, Fail<'a>> {
    let addr = c.hex("address", u64::MAX)?;
    c.tag(" (blk ")?;
    let at = c.rest;
    let blk = c.hex("block", u64::MAX)?;
    let low = addr ^ blk;
    if low >= 1 << 12 || blk & low != 0 {
        return Err((
            at,
            format!("block {blk:x} is not the block of address {addr:x}"),
        ));
    }
    c.tag(")")?;
    Ok(addr)
}

/// What a MemTest request line is: an access, or (Ok(None)) the second
/// completion line of an atomic (`… value OLD`).
enum Message {
    Initiate(Access, u64, u8, &'static str),
    Complete(Access, u64, bool),
    AtomicValue(u64, u8),
}

/// The message of an `Initiating …` or `Completing …` line.
fn message<'a>(c: &mut Cursor<'a>) -> Result<Message, Fail<'a>> {
    if c.eat("Initiating ") {
        let (access, mode, value_tag) = if c.eat("atomic at addr ") {
            (Access::Write, "atomic", " value ")
        } else {
            let mode = if c.eat("functional ") {
                "functional"
            } else {
                "timing"
            };
            if c.eat("read at addr ") {
                (Access::Read, mode, " expecting ")
            } else {
                c.tag("write at addr ")?;
                (Access::Write, mode, " value ")
            }
        };
        let addr = address_and_block(c)?;
        c.tag(value_tag)?;
        let value = c.hex("value", 255)? as u8;
        c.end()?;
        return Ok(Message::Initiate(access, addr, value, mode));
    }
    c.tag("Completing ")?;
    let (access, atomic) = if c.eat("read") {
        (Access::Read, false)
    } else if c.eat("write") {
        (Access::Write, false)
    } else {
        c.tag("atomic")?;
        (Access::Write, true)
    };
    c.tag(" at address ")?;
    let addr = address_and_block(c)?;
    c.tag(" ")?;
    let m = if c.eat("success") {
        Message::Complete(access, addr, true)
    } else if c.eat("error") {
        Message::Complete(access, addr, false)
    } else if atomic && c.eat("value ") {
        Message::AtomicValue(addr, c.hex("value", 255)? as u8)
    } else {
        return c.fail("expected `success` or `error`");
    };
    c.end()?;
    Ok(m)
}

/// The tester number of an object name: its trailing decimal digits, 0 if none.
fn tester_number(name: &str) -> Option<u32> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    match digits {
        0 => Some(0),
        _ => name[name.len() - digits..].parse().ok(),
    }
}

/// A MemTest request line: (tick, tester, message); Ok(None) for other lines.
fn parse_message(line: &[u8]) -> Result<Option<(u64, u32, Message)>, LineDamage> {
    let Some((tick, object, msg, at)) = tester_message(line, is_memtest_message)? else {
        return Ok(None);
    };
    let Some(tester) = tester_number(object) else {
        return Err(LineDamage {
            col: at - object.len() - 1,
            msg: format!("tester number of `{object}` does not fit in 32 bits"),
        });
    };
    let text = std::str::from_utf8(msg).map_err(|e| LineDamage {
        col: at + e.valid_up_to() + 1,
        msg: "not UTF-8 text".into(),
    })?;
    let mut c = Cursor::new(text);
    match message(&mut c) {
        Ok(m) => Ok(Some((tick, tester, m))),
        Err((rest, msg)) => Err(LineDamage {
            col: line.len() - rest.len() + 1,
            msg,
        }),
    }
}

/// `(tick, line)` for a MemTest request line; Ok(None) for any other line
/// (the second completion line of an atomic is read by
/// [`parse_memtest_atomic_value`]); Err for a line that is recognisably a
/// request line (`DPRINTF` prefix, `Initiating `/`Completing `) whose body does
/// not parse or has a field out of range (a value past a byte, an address
/// past 64 bits, a block that is not the address's): damage, never skipped.
pub fn parse_memtest_line(line: &[u8]) -> Result<Option<(u64, MemTestLine)>, LineDamage> {
    Ok(match parse_message(line)? {
        Some((tick, tester, Message::Initiate(access, addr, value, mode))) => Some((
            tick,
            MemTestLine::Initiate {
                tester,
                access,
                addr,
                value,
                mode,
            },
        )),
        Some((tick, tester, Message::Complete(access, addr, success))) => Some((
            tick,
            MemTestLine::Complete {
                tester,
                access,
                addr,
                success,
            },
        )),
        Some((_, _, Message::AtomicValue(..))) | None => None,
    })
}

/// `(tick, tester, addr, old value)` for the second completion line of an
/// atomic swap, `Completing atomic at address A (blk B) value OLD`, which gives
/// the value the swap read; None for any other line (damaged ones included:
/// [`parse_memtest_line`] reports those).
pub fn parse_memtest_atomic_value(line: &[u8]) -> Option<(u64, u32, u64, u8)> {
    match parse_message(line).ok()?? {
        (tick, tester, Message::AtomicValue(addr, old)) => Some((tick, tester, addr, old)),
        _ => None,
    }
}

/// The failure panic (`panic: system.cpu1: read of 100041 (blk 100040) @ cycle 12345 returns 0, expected 3f`, found in simerr.txt/simout.txt): (tester, addr, tick, returned, expected).
pub fn parse_memtest_panic(text: &str) -> Option<(u32, u64, u64, u8, u8)> {
    fn body(input: &[u8]) -> Res<'_, (u64, u64, u8, u8)> {
        tuple((
            preceded(tag("read of "), addr_blk),
            preceded(tag(" @ cycle "), dec_u64),
            preceded(tag(" returns "), hex_byte),
            preceded(tag(", expected "), hex_byte),
        ))(input)
    }
    text.lines().find_map(|line| {
        let (_, rest) = line.split_once("panic: ")?;
        let (name, msg) = rest.trim_end().split_once(": ")?;
        if name.contains(' ') {
            return None;
        }
        let tester = tester_number(name)?;
        let (_, (addr, tick, returned, expected)) = all_consuming(body)(msg.as_bytes()).ok()?;
        Some((tester, addr, tick, returned, expected))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gem5::input::{for_each_line, Ending};
    use std::ops::ControlFlow;

    /// A line that must not be damaged, parsed.
    fn ok(l: &[u8]) -> Option<(u64, MemTestLine)> {
        parse_memtest_line(l).unwrap_or_else(|d| panic!("{}: {d}", String::from_utf8_lossy(l)))
    }

    #[test]
    fn the_documented_lines() {
        assert_eq!(
            ok(b"    427: system.cpu2: Completing read at address 108582 (blk 108580) success"),
            Some((
                427,
                MemTestLine::Complete {
                    tester: 2,
                    access: Access::Read,
                    addr: 0x108582,
                    success: true
                }
            ))
        );
        assert_eq!(
            ok(b"      0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 0"),
            Some((
                0,
                MemTestLine::Initiate {
                    tester: 2,
                    access: Access::Read,
                    addr: 0x108582,
                    value: 0,
                    mode: "timing"
                }
            ))
        );
        assert_eq!(
            ok(b"      0: system.cpu: Initiating write at addr 406783 (blk 406780) value 40"),
            Some((
                0,
                MemTestLine::Initiate {
                    tester: 0,
                    access: Access::Write,
                    addr: 0x406783,
                    value: 0x40,
                    mode: "timing"
                }
            ))
        );
    }

    #[test]
    fn functional_atomic_error_and_padding() {
        let init = |l: &[u8]| match ok(l) {
            Some((
                _,
                MemTestLine::Initiate {
                    tester,
                    access,
                    addr,
                    value,
                    mode,
                },
            )) => (tester, access, addr, value, mode),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            init(b"     12: system.cpu07: Initiating functional read at addr 100047 (blk 100040) expecting ff"),
            (7, Access::Read, 0x100047, 0xff, "functional")
        );
        assert_eq!(
            init(b"     12: system.cpu11: Initiating functional write at addr 10004b (blk 100040) value 3"),
            (11, Access::Write, 0x10004b, 3, "functional")
        );
        assert_eq!(
            init(b"     13: system.cpu1: Initiating atomic at addr 100041 (blk 100040) value 3f"),
            (1, Access::Write, 0x100041, 0x3f, "atomic")
        );
        assert_eq!(
            ok(b"     20: system.cpu1: Completing atomic at address 100041 (blk 100040) success"),
            Some((
                20,
                MemTestLine::Complete {
                    tester: 1,
                    access: Access::Write,
                    addr: 0x100041,
                    success: true
                }
            ))
        );
        assert_eq!(
            ok(b"     20: system.cpu1: Completing write at address 100041 (blk 100040) error"),
            Some((
                20,
                MemTestLine::Complete {
                    tester: 1,
                    access: Access::Write,
                    addr: 0x100041,
                    success: false
                }
            ))
        );
        let value_line =
            b"     20: system.cpu1: Completing atomic at address 100041 (blk 100040) value 7";
        assert_eq!(parse_memtest_line(value_line), Ok(None));
        assert_eq!(
            parse_memtest_atomic_value(value_line),
            Some((20, 1, 0x100041, 7))
        );
    }

    #[test]
    fn other_lines_are_skipped_and_malformed_ones_are_damage() {
        for l in [
            &b"     16: system.cpu3: Waiting for retry"[..],
            b"    426: system.cpu2: Proceeding after successful retry",
            b"      0: global: initiating",
            b"",
            b"\xff\xfe: \x80: Initiating",
        ] {
            assert_eq!(
                parse_memtest_line(l),
                Ok(None),
                "{}",
                String::from_utf8_lossy(l)
            );
        }
        for (l, col, what) in [
            (&b"      0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 100"[..], 77, "value 100 is out of range"),
            (b"      0: system.cpu2: Initiating read at addr 1085821234567890abc (blk 108580) expecting 1", 47, "does not fit in 64 bits"),
            (b"      0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 1 ", 78, "unexpected text"),
            (b"      0: system.cpu3: Initiating write at addr 406783 (blk 406780) value 40\r", 76, "unexpected text"),
            (b"      0: system.cpu99999999999: Initiating read at addr 1 (blk 0) expecting 1", 10, "does not fit in 32 bits"),
            (b"      0: system.cpu2: Initiating read at addr 108582 (blk", 53, "cut"),
            (b"      0: system.cpu2: Initiating read at addr 108582 (blk 208580) expecting 1", 59, "not the block"),
            (b"      0: system.cpu2: Completing read at address 108582 (blk 108580) maybe", 70, "success"),
            (b"      0: system.cpu2: Completing read at address 108582 (blk 108580) value 7", 70, "success"),
            (b"     -3: system.cpu2: Completing read at address 108582 (blk 108580) success", 6, "negative tick"),
        ] {
            let d = parse_memtest_line(l).expect_err(&String::from_utf8_lossy(l));
            assert!(d.msg.contains(what), "{}: {d}", String::from_utf8_lossy(l));
            assert_eq!(d.col, col, "{}: {d}", String::from_utf8_lossy(l));
            assert_eq!(parse_memtest_atomic_value(l), None);
        }
    }

    #[test]
    fn panic_line() {
        let text = "src/sim/simulate.cc:199: info: Entering event queue @ 0.  Starting simulation...\n\
                    src/cpu/testers/memtest/memtest.cc:161: panic: system.cpu1: read of 100041 (blk 100040) @ cycle 12345 returns 0, expected 3f\n\
                    Memory Usage: 700000 KBytes\n";
        assert_eq!(
            parse_memtest_panic(text),
            Some((1, 0x100041, 12345, 0, 0x3f))
        );
        assert_eq!(
            parse_memtest_panic(
                "panic: system.cpu: read of 400000 (blk 400000) @ cycle 7 returns ff, expected 0"
            ),
            Some((0, 0x400000, 7, 0xff, 0))
        );
        assert_eq!(
            parse_memtest_panic("panic: Possible Deadlock detected. Aborting!\n"),
            None
        );
        assert_eq!(
            parse_memtest_panic("panic: system.cpu1: read of 100041"),
            None
        );
        assert_eq!(parse_memtest_panic(""), None);
        let sim_err =
            std::fs::read_to_string(crate::gem5::runs::mi_example("memtest-n4").join("simerr.txt"))
                .unwrap();
        assert_eq!(parse_memtest_panic(&sim_err), None);
    }

    #[test]
    fn real_memtest_run() {
        let path = &crate::gem5::runs::mi_example_trace("memtest-n4");
        // [tester][initiated read, initiated write, completed read, completed write]
        let mut counts = [[0u32; 4]; 4];
        let mut last_tick = 0;
        let ending = for_each_line(path, |n, line| {
            let text = String::from_utf8_lossy(line);
            let parsed = ok(line);
            let ours = text.contains("Initiating") || text.contains("Completing");
            assert_eq!(parsed.is_some(), ours, "line {n}: {text}");
            if let Some((tick, l)) = parsed {
                assert!(tick >= last_tick, "line {n}");
                last_tick = tick;
                let (tester, slot, addr) = match l {
                    MemTestLine::Initiate {
                        tester,
                        access,
                        addr,
                        mode,
                        ..
                    } => {
                        assert_eq!(mode, "timing");
                        (tester, access as usize, addr)
                    }
                    MemTestLine::Complete {
                        tester,
                        access,
                        addr,
                        success,
                    } => {
                        assert!(success);
                        (tester, 2 + access as usize, addr)
                    }
                };
                // Each tester touches only byte `id` of each line.
                assert_eq!(addr & 63, u64::from(tester), "line {n}");
                counts[tester as usize][slot] += 1;
            }
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(ending, Ending::Complete);
        assert_eq!(
            counts,
            [
                [306, 177, 293, 173],
                [305, 174, 294, 168],
                [312, 163, 300, 158],
                [310, 173, 299, 167],
            ]
        );
    }
}
