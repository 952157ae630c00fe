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

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{hex_digit1, u64 as dec_u64};
use nom::combinator::{all_consuming, map, map_res, opt, value};
use nom::sequence::{delimited, preceded, tuple};
use nom::IResult;

use super::input::split_dprintf;

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

/// The message of an `Initiating …` line: (access, addr, value, mode).
fn initiate(input: &[u8]) -> Res<'_, (Access, u64, u8, &'static str)> {
    let atomic = map(
        tuple((
            tag("atomic at addr "),
            addr_blk,
            preceded(tag(" value "), hex_byte),
        )),
        |(_, addr, v)| (Access::Write, addr, v, "atomic"),
    );
    let plain = map(
        tuple((
            opt(tag("functional ")),
            alt((
                tuple((
                    value(Access::Read, tag("read at addr ")),
                    addr_blk,
                    preceded(tag(" expecting "), hex_byte),
                )),
                tuple((
                    value(Access::Write, tag("write at addr ")),
                    addr_blk,
                    preceded(tag(" value "), hex_byte),
                )),
            )),
        )),
        |(functional, (access, addr, v))| {
            let mode = if functional.is_some() {
                "functional"
            } else {
                "timing"
            };
            (access, addr, v, mode)
        },
    );
    preceded(tag("Initiating "), alt((atomic, plain)))(input)
}

/// The message of a `Completing … success|error` line: (access, addr, success).
fn complete(input: &[u8]) -> Res<'_, (Access, u64, bool)> {
    tuple((
        preceded(
            tag("Completing "),
            alt((
                value(Access::Read, tag("read")),
                value(Access::Write, tag("write")),
                value(Access::Write, tag("atomic")),
            )),
        ),
        preceded(tag(" at address "), addr_blk),
        preceded(
            tag(" "),
            alt((value(true, tag("success")), value(false, tag("error")))),
        ),
    ))(input)
}

/// The tester number of an object name: its trailing decimal digits, 0 if none.
fn tester_number(name: &str) -> Option<u32> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    match digits {
        0 => Some(0),
        _ => name[name.len() - digits..].parse().ok(),
    }
}

/// `(tick, line)` for a MemTest line; None for any other line.
pub fn parse_memtest_line(line: &[u8]) -> Option<(u64, MemTestLine)> {
    let (tick, name, msg) = split_dprintf(line)?;
    let tester = tester_number(name)?;
    if let Ok((_, (access, addr, value, mode))) = all_consuming(initiate)(msg) {
        return Some((
            tick,
            MemTestLine::Initiate {
                tester,
                access,
                addr,
                value,
                mode,
            },
        ));
    }
    let (_, (access, addr, success)) = all_consuming(complete)(msg).ok()?;
    Some((
        tick,
        MemTestLine::Complete {
            tester,
            access,
            addr,
            success,
        },
    ))
}

/// `(tick, tester, addr, old value)` for the second completion line of an
/// atomic swap, `Completing atomic at address A (blk B) value OLD`, which gives
/// the value the swap read; None for any other line.
pub fn parse_memtest_atomic_value(line: &[u8]) -> Option<(u64, u32, u64, u8)> {
    let (tick, name, msg) = split_dprintf(line)?;
    let tester = tester_number(name)?;
    let (_, (addr, old)) = all_consuming(preceded(
        tag("Completing atomic at address "),
        tuple((addr_blk, preceded(tag(" value "), hex_byte))),
    ))(msg)
    .ok()?;
    Some((tick, tester, addr, old))
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

    #[test]
    fn the_documented_lines() {
        assert_eq!(
            parse_memtest_line(
                b"    427: system.cpu2: Completing read at address 108582 (blk 108580) success"
            ),
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
            parse_memtest_line(
                b"      0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 0"
            ),
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
            parse_memtest_line(
                b"      0: system.cpu3: Initiating write at addr 406783 (blk 406780) value 40\r"
            ),
            None,
            "the caller strips \\r"
        );
        assert_eq!(
            parse_memtest_line(
                b"      0: system.cpu: Initiating write at addr 406783 (blk 406780) value 40"
            ),
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
        let init = |l: &[u8]| match parse_memtest_line(l) {
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
            parse_memtest_line(
                b"     20: system.cpu1: Completing atomic at address 100041 (blk 100040) success"
            ),
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
            parse_memtest_line(
                b"     20: system.cpu1: Completing write at address 100041 (blk 100040) error"
            ),
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
        assert_eq!(parse_memtest_line(value_line), None);
        assert_eq!(
            parse_memtest_atomic_value(value_line),
            Some((20, 1, 0x100041, 7))
        );
    }

    #[test]
    fn rejects_other_and_malformed_lines() {
        for l in [
            &b"     16: system.cpu3: Waiting for retry"[..],
            b"    426: system.cpu2: Proceeding after successful retry",
            b"      0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 100",
            b"      0: system.cpu2: Initiating read at addr 1085821234567890abc (blk 108580) expecting 1",
            b"      0: system.cpu2: Initiating read at addr 108582 (blk 108580) expecting 1 ",
            b"      0: system.cpu99999999999: Initiating read at addr 1 (blk 0) expecting 1",
            b"      0: system.cpu2: Initiating read at addr 108582 (blk",
            b"      0: system.cpu2: Completing read at address 108582 (blk 108580) maybe",
            b"      0: global: initiating",
            b"",
            b"\xff\xfe: \x80: Initiating",
        ] {
            assert_eq!(parse_memtest_line(l), None, "{}", String::from_utf8_lossy(l));
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
            let parsed = parse_memtest_line(line);
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
