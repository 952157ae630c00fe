//! Ruby's ProtocolTrace transition lines and RubySequencer/RubyHitMiss lines
//! (docs/design/gem5.md §4–§5).
//!
//! ```text
//!             541   1        Seq               Begin       >       [0x3ea, line 0x3c0] ST
//!             543   1    L1Cache               Store      I>IM     [0x3ea, line 0x3c0]
//!           88213   0    L2CacheL2_Replacement_clean     SS>I_I    [0x640, line 0x640]
//!    95: system.ruby.l1_cntrl1.sequencer: set data [ 0x0 0x5 … 0xff ]
//!    95: system.ruby.l1_cntrl1.sequencer: hitCallback WriteReq 0x6e8 using RubyTester
//! ```
//!
//! A transition is printed raw with `"%15d %3s %10s%20s %6s>%-6s %#x %s\n"`;
//! an event of 20 characters or more runs into the machine name, which is
//! therefore taken from a fixed list ([`MACHINES`]).

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_till1, take_while_m_n};
use nom::character::complete::{space0, space1, u32 as dec_u32, u64 as dec_u64};
use nom::combinator::{all_consuming, eof, map, map_res, peek, rest};
use nom::multi::many1;
use nom::sequence::{delimited, preceded, terminated, tuple};
use nom::IResult;

use super::input::split_dprintf;

/// Machine names that ProtocolTrace prints, longest first where one could
/// start another (none does today).
pub const MACHINES: [&str; 12] = [
    "RegionBuffer",
    "ProbeFilter",
    "Directory",
    "CorePair",
    "L1Cache",
    "L2Cache",
    "L3Cache",
    "DMA",
    "Seq",
    "TCP",
    "TCC",
    "SQC",
];

/// One ProtocolTrace line: a controller's transition (or stall), or a
/// sequencer's `Begin`/`Done` (machine `Seq`, empty states).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition<'a> {
    pub tick: u64,
    pub version: u32,
    pub machine: &'a str,
    pub event: &'a str,
    pub from: &'a str,
    pub to: &'a str,
    pub addr: u64,
    pub line_addr: u64,
    /// The transition comment, e.g. `Protocol Stall`, `ST`, `71 cycles`, or
    /// empty; trailing spaces removed.
    pub comment: &'a str,
}

type Res<'a, T> = IResult<&'a [u8], T>;

/// `&[u8]` → `&str` (None if not UTF-8).
fn text(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    std::str::from_utf8(bytes)
}

/// The value of 1 to 16 hex digits (checked by the caller).
fn hex_value(digits: &[u8]) -> u64 {
    digits.iter().fold(0, |v, &d| {
        // Only ASCII hex digits reach here: `| 0x20` lowercases letters.
        let n = match d {
            b'0'..=b'9' => d - b'0',
            _ => (d | 0x20) - b'a' + 10,
        };
        (v << 4) | u64::from(n)
    })
}

/// `0x` and 1 to `max` hex digits.
fn hex0x_max(max: usize) -> impl FnMut(&[u8]) -> Res<'_, u64> {
    move |input| {
        map(
            preceded(
                tag("0x"),
                take_while_m_n(1, max, |c: u8| c.is_ascii_hexdigit()),
            ),
            hex_value,
        )(input)
    }
}

/// `0x` and a 64-bit hex number.
fn hex0x(input: &[u8]) -> Res<'_, u64> {
    hex0x_max(16)(input)
}

/// `[0x3ea, line 0x3c0]` (gem5's `printAddress`).
fn address(input: &[u8]) -> Res<'_, (u64, u64)> {
    delimited(
        tag("["),
        tuple((hex0x, preceded(tag(", line "), hex0x))),
        tag("]"),
    )(input)
}

/// A machine name from [`MACHINES`] (the event may follow without a space).
fn listed_machine(input: &[u8]) -> Res<'_, &[u8]> {
    for m in MACHINES {
        if let Some(rest) = input.strip_prefix(m.as_bytes()) {
            return Ok((rest, &input[..m.len()]));
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        input,
        nom::error::ErrorKind::Tag,
    )))
}

/// Any machine name, when the event stands apart from it.
fn word_machine(input: &[u8]) -> Res<'_, &[u8]> {
    terminated(take_till1(|c| c == b' '), peek(tag(" ")))(input)
}

/// A transition line's fields: (tick, version, machine, event, from, to,
/// (addr, line), comment).
type Fields<'a> = (
    u64,
    u32,
    &'a [u8],
    &'a [u8],
    &'a [u8],
    &'a [u8],
    (u64, u64),
    &'a [u8],
);

/// The fields of a transition line, with `machine` recognising the machine.
fn transition_fields(line: &[u8], machine: fn(&[u8]) -> Res<'_, &[u8]>) -> Option<Fields<'_>> {
    let not_space = |c: u8| c == b' ';
    let parsed: Res<'_, _> = all_consuming(tuple((
        preceded(space0, dec_u64),
        preceded(space1, dec_u32),
        preceded(space1, machine),
        preceded(space0, take_till1(not_space)),
        preceded(space1, take_till(|c| c == b' ' || c == b'>')),
        preceded(tag(">"), take_till(not_space)),
        preceded(space1, address),
        alt((preceded(tag(" "), rest), eof)),
    )))(line);
    parsed.ok().map(|(_, fields)| fields)
}

/// Parses a ProtocolTrace transition line; None for any other line.
///
/// The machine is one of [`MACHINES`]; failing that, any word followed by
/// spaces (an unlisted machine whose event is shorter than 20 characters).
pub fn parse_transition(line: &[u8]) -> Option<Transition<'_>> {
    let (tick, version, machine, event, from, to, (addr, line_addr), comment) =
        transition_fields(line, listed_machine)
            .or_else(|| transition_fields(line, word_machine))?;
    // One UTF-8 check for the whole line; fields are then sliced out of it.
    let whole = std::str::from_utf8(line).ok()?;
    let field = |f: &[u8]| {
        let start = (f.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
        whole.get(start..start.checked_add(f.len())?)
    };
    Some(Transition {
        tick,
        version,
        machine: field(machine)?,
        event: field(event)?,
        from: field(from)?,
        to: field(to)?,
        addr,
        line_addr,
        comment: field(comment)?.trim_end_matches(' '),
    })
}

/// What a sequencer reports about one request, in `hitCallback` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SequencerEvent {
    /// `Cache hit at [0x…, line 0x…]` (RubyHitMiss)
    Hit { addr: u64, line_addr: u64 },
    /// `Cache miss at […]` (RubyHitMiss)
    Miss { addr: u64, line_addr: u64 },
    /// `read data [ 0x0 … ]`: the line's bytes a load or ifetch sees.
    ReadData(Vec<u8>),
    /// `set data [ … ]`: the line's bytes just after a store.
    SetData(Vec<u8>),
    /// `hitCallback WriteReq 0x6e8 using RubyTester`
    HitCallback { request: String, addr: u64 },
}

/// A DataBlock: `[ 0x0 0x5 0xab … ]`, one `0x` + 1–2 hex digits + space per byte.
fn data_block(input: &[u8]) -> Res<'_, Vec<u8>> {
    delimited(
        tag("[ "),
        many1(terminated(map(hex0x_max(2), |v| v as u8), tag(" "))),
        tag("]"),
    )(input)
}

/// The message of a RubySequencer/RubyHitMiss line.
fn sequencer_event(input: &[u8]) -> Res<'_, SequencerEvent> {
    alt((
        map(
            preceded(tag("Cache hit at "), address),
            |(addr, line_addr)| SequencerEvent::Hit { addr, line_addr },
        ),
        map(
            preceded(tag("Cache miss at "), address),
            |(addr, line_addr)| SequencerEvent::Miss { addr, line_addr },
        ),
        map(
            preceded(tag("read data "), data_block),
            SequencerEvent::ReadData,
        ),
        map(
            preceded(tag("set data "), data_block),
            SequencerEvent::SetData,
        ),
        map(
            tuple((
                preceded(
                    tag("hitCallback "),
                    map_res(take_till1(|c| c == b' '), text),
                ),
                delimited(tag(" "), hex0x, tag(" using RubyTester")),
            )),
            |(request, addr)| SequencerEvent::HitCallback {
                request: request.to_owned(),
                addr,
            },
        ),
    ))(input)
}

/// `(tick, controller name e.g. "system.ruby.l1_cntrl1.sequencer", event)` for a RubySequencer/RubyHitMiss line; None otherwise.
///
/// Other RubySequencer lines (`ATOMIC RETURN data`, `swap data`, `AMO … data`,
/// `Issuing …`) give None.
pub fn parse_sequencer_line(line: &[u8]) -> Option<(u64, &str, SequencerEvent)> {
    let (tick, name, msg) = split_dprintf(line)?;
    let (_, event) = all_consuming(sequencer_event)(msg).ok()?;
    Some((tick, name, event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gem5::input::{for_each_line, Ending};
    use std::ops::ControlFlow;

    fn tr(line: &str) -> Transition<'_> {
        parse_transition(line.as_bytes()).unwrap_or_else(|| panic!("{line:?}"))
    }

    #[test]
    fn documented_transitions() {
        let t = tr("            541   1        Seq               Begin       >       [0x3ea, line 0x3c0] ST");
        assert_eq!(
            t,
            Transition {
                tick: 541,
                version: 1,
                machine: "Seq",
                event: "Begin",
                from: "",
                to: "",
                addr: 0x3ea,
                line_addr: 0x3c0,
                comment: "ST"
            }
        );
        let t = tr(
            "            543   1    L1Cache               Store      I>IM     [0x3ea, line 0x3c0] ",
        );
        assert_eq!(
            (t.machine, t.event, t.from, t.to, t.comment),
            ("L1Cache", "Store", "I", "IM", "")
        );
        let t = tr("            612   1        Seq                Done       >       [0x3ea, line 0x3c0] 71 cycles");
        assert_eq!((t.event, t.comment), ("Done", "71 cycles"));
        let t = tr(
            "          88213   0    L2CacheL2_Replacement_clean     SS>I_I    [0x640, line 0x640] ",
        );
        assert_eq!(
            (
                t.tick,
                t.version,
                t.machine,
                t.event,
                t.from,
                t.to,
                t.addr,
                t.line_addr
            ),
            (
                88213,
                0,
                "L2Cache",
                "L2_Replacement_clean",
                "SS",
                "I_I",
                0x640,
                0x640
            )
        );
        let t = tr("             53   1    L1Cache         Replacement     IM>IM     [0x6c0, line 0x6c0] Protocol Stall");
        assert_eq!((t.from, t.to, t.comment), ("IM", "IM", "Protocol Stall"));
        // Long states and versions and machines without padding.
        let t = tr("123456789012345 1234 RegionBufferSomeVeryLongEventNameHere M_O_ABCDE>S_XYZ_LONG [0x1, line 0x0]");
        assert_eq!(
            (t.version, t.machine, t.event, t.from, t.to),
            (
                1234,
                "RegionBuffer",
                "SomeVeryLongEventNameHere",
                "M_O_ABCDE",
                "S_XYZ_LONG"
            )
        );
        // A machine outside the list, when the event stands apart.
        let t = tr(
            "              5   0    L0Cache               Load      I>IS     [0x40, line 0x40] ",
        );
        assert_eq!((t.machine, t.event), ("L0Cache", "Load"));
        let t = tr(
            "              5   0     TCCdir               Load      I>IS     [0x40, line 0x40] ",
        );
        assert_eq!((t.machine, t.event), ("TCCdir", "Load"));
    }

    #[test]
    fn rejects_non_transitions() {
        for l in [
            "    95: system.ruby.l1_cntrl1.sequencer: hitCallback WriteReq 0x6e8 using RubyTester",
            "              5   0    L0CacheL0_Replacement_long_name      I>IS     [0x40, line 0x40] ",
            "              5   0    L1Cache               Load      I>IS     [0x40, line 0x40",
            "              5   0    L1Cache               Load      I>IS     [0x40]",
            "              5   0    L1Cache               Load      I IS     [0x40, line 0x40] ",
            "              5   0    L1Cache                         I>IS     [0x40, line 0x40] ",
            "              5   0    L1Cache               Load      I>IS     [0x11111111111111111, line 0x40] ",
            "              5   0        Seq               Begin       >       TLBI_EXT_SYNC",
            "",
            "   ",
        ] {
            assert_eq!(parse_transition(l.as_bytes()), None, "{l:?}");
        }
        assert_eq!(
            parse_transition(b"  5 0 L1Cache Load I>IS [0x40, line 0x40] \xff"),
            None
        );
    }

    #[test]
    fn sequencer_lines() {
        let mut block = String::from("    34224: system.ruby.l1_cntrl1.sequencer: read data [ ");
        for i in 0..64u32 {
            block.push_str(&format!("0x{:x} ", (i * 37) % 256));
        }
        block.push(']');
        let (tick, name, ev) = parse_sequencer_line(block.as_bytes()).unwrap();
        assert_eq!((tick, name), (34224, "system.ruby.l1_cntrl1.sequencer"));
        let want: Vec<u8> = (0..64u32).map(|i| ((i * 37) % 256) as u8).collect();
        assert_eq!(ev, SequencerEvent::ReadData(want));
        assert_eq!(
            parse_sequencer_line(b"    95: system.ruby.l1_cntrl1.sequencer: hitCallback WriteReq 0x6e8 using RubyTester"),
            Some((
                95,
                "system.ruby.l1_cntrl1.sequencer",
                SequencerEvent::HitCallback { request: "WriteReq".into(), addr: 0x6e8 }
            ))
        );
        assert_eq!(
            parse_sequencer_line(
                b"  7: system.cp_cntrl0.sequencer1: Cache miss at [0x3e8, line 0x3c0]"
            ),
            Some((
                7,
                "system.cp_cntrl0.sequencer1",
                SequencerEvent::Miss {
                    addr: 0x3e8,
                    line_addr: 0x3c0
                }
            ))
        );
        assert_eq!(
            parse_sequencer_line(
                b"  7: system.ruby.l1_cntrl0.sequencer: Cache hit at [0x3e8, line 0x3c0]"
            ),
            Some((
                7,
                "system.ruby.l1_cntrl0.sequencer",
                SequencerEvent::Hit {
                    addr: 0x3e8,
                    line_addr: 0x3c0
                }
            ))
        );
        for l in [
            &b"  7: system.ruby.l1_cntrl0.sequencer: set data [ 0x0 0x100 ]"[..],
            b"  7: system.ruby.l1_cntrl0.sequencer: set data [ ]",
            b"  7: system.ruby.l1_cntrl0.sequencer: set data [ 0x0 0x1",
            b"  7: system.ruby.l1_cntrl0.sequencer: swap data [ 0x0 ]",
            b"  7: system.ruby.l1_cntrl0.sequencer: hitCallback WriteReq 0x6e8 using",
            b"  7: global: failed to initiate action - sequencer not ready",
            b"",
        ] {
            assert_eq!(
                parse_sequencer_line(l),
                None,
                "{}",
                String::from_utf8_lossy(l)
            );
        }
    }

    /// The rich runs: every line with `line 0x` is a transition, every
    /// sequencer line parses, and DataBlocks have 64 bytes.
    #[test]
    fn real_rich_runs() {
        for run in [
            "clean-n2-s1-rich",
            "bug-mi5-n4-s1-rich",
            "bug-mi3-n4-s2-rich",
        ] {
            let path = crate::gem5::runs::mi_example_trace(run);
            let (mut transitions, mut seq, mut blocks) = (0u64, 0u64, 0u64);
            let mut machines = std::collections::BTreeSet::new();
            let ending = for_each_line(&path, |n, line| {
                let has_line = line.windows(7).any(|w| w == b"line 0x");
                match parse_transition(line) {
                    Some(t) => {
                        transitions += 1;
                        assert_eq!(t.line_addr, t.addr & !63, "{run}:{n}");
                        machines.insert(t.machine.to_owned());
                    }
                    None => assert!(!has_line, "{run}:{n}: {}", String::from_utf8_lossy(line)),
                }
                let sequencer = line.windows(11).any(|w| w == b".sequencer:");
                match parse_sequencer_line(line) {
                    Some((_, name, ev)) => {
                        seq += 1;
                        assert!(name.ends_with(".sequencer"));
                        if let SequencerEvent::ReadData(d) | SequencerEvent::SetData(d) = ev {
                            assert_eq!(d.len(), 64, "{run}:{n}");
                            blocks += 1;
                        }
                    }
                    None => assert!(!sequencer, "{run}:{n}"),
                }
                ControlFlow::Continue(())
            })
            .unwrap();
            assert_eq!(ending, Ending::Complete);
            assert!(transitions > 50_000, "{run}: {transitions}");
            assert!(seq > 400 && blocks * 2 == seq, "{run}: {seq} {blocks}");
            let machines: Vec<_> = machines.iter().map(String::as_str).collect();
            assert_eq!(machines, ["Directory", "L1Cache", "Seq"], "{run}");
        }
    }

    use crate::fuzz::Rng;

    /// Every line parser survives every prefix and random damage of real lines.
    #[test]
    fn line_parsers_never_panic() {
        use crate::gem5::input::split_dprintf;
        use crate::gem5::memtest::{
            parse_memtest_atomic_value, parse_memtest_line, parse_memtest_panic,
        };
        let mut lines = Vec::new();
        for run in ["clean-n2-s1-rich", "memtest-n4"] {
            let path = crate::gem5::runs::mi_example_trace(run);
            for_each_line(&path, |n, line| {
                if n % 97 == 0 || n < 800 {
                    lines.push(line.to_vec());
                }
                ControlFlow::Continue(())
            })
            .unwrap();
        }
        let all = |l: &[u8]| {
            let _ = parse_transition(l);
            let _ = parse_sequencer_line(l);
            let _ = parse_memtest_line(l);
            let _ = parse_memtest_atomic_value(l);
            let _ = split_dprintf(l);
            let _ = parse_memtest_panic(&String::from_utf8_lossy(l));
        };
        let mut rng = Rng::new(0x9e3779b97f4a7c15);
        const BYTES: &[u8] = b" 0x9af>[],:.-\n\r\xff\x80";
        for line in &lines {
            for end in 0..=line.len() {
                all(&line[..end]);
            }
            for _ in 0..20 {
                let mut m = line.clone();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(m.len() + 1);
                    let b = BYTES[rng.below(BYTES.len())];
                    match rng.below(3) {
                        0 if at < m.len() => m[at] = b,
                        1 if at < m.len() => {
                            m.remove(at);
                        }
                        _ => m.insert(at, b),
                    }
                }
                all(&m);
            }
        }
    }

    /// The file parsers survive random damage of real files.
    #[test]
    fn file_parsers_never_panic() {
        use crate::gem5::config::{parse_config_ini, parse_config_json};
        use crate::gem5::stats::parse_stats;
        let dir = crate::gem5::runs::mi_example("clean-n2-s1-rich");
        let mut rng = Rng::new(0x2545f4914f6cdd1d);
        for file in ["stats.txt", "config.ini", "config.json"] {
            let original = std::fs::read(dir.join(file)).unwrap();
            for round in 0..60 {
                let mut m = original.clone();
                if round % 3 == 0 {
                    m.truncate(rng.below(m.len()));
                } else {
                    for _ in 0..1 + rng.below(4) {
                        let at = rng.below(m.len());
                        const DAMAGE: &[u8] = b"{}[]\",:#\n\r |x0\xc3\xff";
                        m[at] = DAMAGE[rng.below(DAMAGE.len())];
                    }
                }
                let _ = parse_stats(&m);
                let _ = parse_config_ini(&m);
                let _ = parse_config_json(&m);
            }
        }
    }

    /// Throughput of `for_each_line` + `parse_transition` over the largest
    /// trace, gzipped as bundled and as a plain (memory-mapped) copy.
    /// `cargo test --release -p memconform-parsers -- --ignored --nocapture speed`
    #[test]
    #[ignore]
    fn speed() {
        use crate::gem5::runs::{mi_example_trace, MI_EXAMPLE};
        let gz = MI_EXAMPLE
            .iter()
            .map(|run| mi_example_trace(run))
            .filter(|p| p.extension().is_some_and(|e| e == "gz"))
            .max_by_key(|p| std::fs::metadata(p).unwrap().len())
            .unwrap();
        let mut text = Vec::new();
        for_each_line(&gz, |_, line| {
            text.extend_from_slice(line);
            text.push(b'\n');
            ControlFlow::Continue(())
        })
        .unwrap();
        let plain =
            std::env::temp_dir().join(format!("memconform-speed-{}.txt", std::process::id()));
        std::fs::write(&plain, &text).unwrap();
        let mb = text.len() as f64 / 1e6;
        for path in [&plain, &gz] {
            for parse in [false, true] {
                let start = std::time::Instant::now();
                let mut count = 0u64;
                for _ in 0..5 {
                    for_each_line(path, |_, line| {
                        count += u64::from(!parse || parse_transition(line).is_some());
                        ControlFlow::Continue(())
                    })
                    .unwrap();
                }
                let secs = start.elapsed().as_secs_f64() / 5.0;
                eprintln!(
                    "{} ({mb:.1} MB of text, {} lines){}: {:.0} MB/s",
                    path.display(),
                    count / 5,
                    if parse { " + parse_transition" } else { "" },
                    mb / secs
                );
            }
        }
        let _ = std::fs::remove_file(&plain);
    }
}
