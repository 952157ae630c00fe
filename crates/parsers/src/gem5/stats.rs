//! gem5's `stats.txt`: dumps between `---------- Begin Simulation Statistics
//! ----------` and `---------- End Simulation Statistics   ----------`, one
//! statistic a line:
//!
//! ```text
//! simTicks                                        91441                       # Number of ticks simulated (Tick)
//! system.ruby.L1Cache_Controller.Load      |          21     23.86%     23.86% |          20     22.73%     46.59% (Unspecified)
//! system.ruby.m_outstandReqHistSeqr::stdev     2.021660                       (Unspecified)
//! ```
//!
//! The name, then numbers (`nan`, `inf`, percentages and `|` separators
//! allowed), then an optional `# description` and an optional `(unit)`.
//! gem5 writes the file only on a normal exit: a panicked run leaves it
//! empty, which parses as zero dumps.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{space0, space1};
use nom::combinator::all_consuming;
use nom::sequence::{delimited, tuple};
use nom::{IResult, Offset};

use crate::{ParseError, Pos};

/// One dump: every statistic in file order with its numbers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dump {
    pub entries: Vec<(String, Vec<f64>)>,
}

impl Dump {
    /// The first value of the statistic `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.first().copied())
    }

    /// The sum of the first values of the statistics whose name satisfies `pred`.
    pub fn sum_matching(&self, pred: impl Fn(&str) -> bool) -> f64 {
        self.entries
            .iter()
            .filter(|(n, _)| pred(n))
            .filter_map(|(_, v)| v.first())
            .sum()
    }
}

/// The dashes around `Begin`/`End` lines.
const DASHES: &str = "----------";

/// A `Begin`/`End` marker line: `Some(true)` for Begin, `Some(false)` for End.
pub fn marker(line: &str) -> Option<bool> {
    let parsed: IResult<&str, &str> = all_consuming(delimited(
        tuple((space0, tag(DASHES), space1)),
        alt((tag("Begin"), tag("End"))),
        tuple((tag(" Simulation Statistics"), space1, tag(DASHES), space0)),
    ))(line);
    parsed.ok().map(|(_, word)| word == "Begin")
}

/// A number as gem5 prints it: fixed notation, `nan`, `inf`, or a percentage.
fn number(token: &str) -> Option<f64> {
    let t = token.strip_suffix('%').unwrap_or(token);
    let unsigned = t.strip_prefix(['-', '+']).unwrap_or(t);
    if unsigned.eq_ignore_ascii_case("nan") {
        return Some(f64::NAN);
    }
    let first = unsigned.chars().next()?;
    if !(first.is_ascii_digit() || first == '.' || unsigned.eq_ignore_ascii_case("inf")) {
        return None;
    }
    t.parse().ok()
}

/// Parses `stats.txt` into its dumps (an empty file gives none).
pub fn parse_stats(src: &[u8]) -> Result<Vec<Dump>, ParseError> {
    let mut dumps = Vec::new();
    let mut current: Option<(Dump, u32)> = None;
    let mut line_no = 0u32;
    let err = |line: u32, col: usize, msg: String| ParseError {
        pos: Pos {
            line,
            col: u32::try_from(col + 1).unwrap_or(u32::MAX),
        },
        msg,
    };
    for raw in src.split(|&b| b == b'\n') {
        line_no = line_no.saturating_add(1);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = std::str::from_utf8(raw).map_err(|e| {
            err(
                line_no,
                e.valid_up_to(),
                "invalid utf-8 in stats.txt".to_owned(),
            )
        })?;
        if line.trim().is_empty() {
            continue;
        }
        match (marker(line), current.take()) {
            (Some(true), None) => current = Some((Dump::default(), line_no)),
            (Some(true), Some((_, begun))) => {
                return Err(err(
                    line_no,
                    0,
                    format!("a new dump begins before the dump begun at line {begun} has ended"),
                ))
            }
            (Some(false), Some((dump, _))) => dumps.push(dump),
            (Some(false), None) => {
                return Err(err(line_no, 0, "End line without a Begin line".to_owned()))
            }
            (None, None) => {
                return Err(err(
                    line_no,
                    line.len() - line.trim_start().len(),
                    "statistic outside a Begin/End dump".to_owned(),
                ))
            }
            (None, Some((mut dump, begun))) => {
                dump.entries
                    .push(entry(line).map_err(|(col, msg)| err(line_no, col, msg))?);
                current = Some((dump, begun));
            }
        }
    }
    if let Some((_, begun)) = current {
        return Err(err(
            line_no,
            0,
            format!("the dump begun at line {begun} has no End line (file cut short?)"),
        ));
    }
    Ok(dumps)
}

/// One statistic line: its name and numbers, or (0-based column, message).
fn entry(line: &str) -> Result<(String, Vec<f64>), (usize, String)> {
    let body = match line.find('#') {
        Some(hash) => &line[..hash],
        None => line,
    };
    let mut tokens = body
        .split([' ', '\t'])
        .filter(|t| !t.is_empty())
        .map(|t| (line.offset(t), t));
    let Some((_, name)) = tokens.next() else {
        return Err((0, "a statistic without a name".to_owned()));
    };
    let mut values = Vec::new();
    for (col, token) in tokens {
        if token == "|" {
            continue;
        }
        if token.starts_with('(') {
            break; // the unit of a statistic without a description
        }
        match number(token) {
            Some(v) => values.push(v),
            None => {
                return Err((
                    col,
                    format!(
                        "expected a number for statistic {name}, found `{}`",
                        crate::text::printable(token)
                    ),
                ))
            }
        }
    }
    Ok((name.to_owned(), values))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(run: &str) -> Vec<u8> {
        std::fs::read(crate::gem5::runs::mi_example(run).join("stats.txt")).unwrap()
    }

    #[test]
    fn real_clean_run() {
        let dumps = parse_stats(&read("clean-n4-s2")).unwrap();
        assert_eq!(dumps.len(), 1);
        let d = &dumps[0];
        assert_eq!(d.get("simTicks"), Some(91441.0));
        assert_eq!(d.get("hostSeconds"), Some(0.21));
        assert_eq!(d.get("simFreq"), Some(1e9));
        assert_eq!(d.get("no.such.stat"), None);
        let load = &d
            .entries
            .iter()
            .find(|(n, _)| n == "system.ruby.L1Cache_Controller.Load")
            .unwrap()
            .1;
        assert_eq!(
            load,
            &[21.0, 23.86, 23.86, 20.0, 22.73, 46.59, 21.0, 23.86, 70.45, 26.0, 29.55, 100.0]
        );
        assert_eq!(
            d.get("system.ruby.L1Cache_Controller.Load::total"),
            Some(88.0)
        );
        assert_eq!(
            d.get("system.ruby.L1Cache_Controller.I.Load::total"),
            Some(88.0)
        );
        let stores = d.sum_matching(|n| {
            n.starts_with("system.ruby.L1Cache_Controller.") && n.ends_with(".Store::total")
        });
        assert!(stores > 0.0);
        assert_eq!(
            d.sum_matching(|n| n == "system.ruby.L1Cache_Controller.Store::total"),
            1116.0
        );
    }

    #[test]
    fn every_run() {
        for run in [
            "bug-mi3-n4-s2-rich",
            "bug-mi5-n2-s3-gztrunc",
            "bug-mi5-n4-s1-rich",
            "clean-n2-s1-rich",
            "clean-n4-s2",
            "clean-n8-s3-gz",
            "memtest-n4",
        ] {
            let dumps = parse_stats(&read(run)).unwrap_or_else(|e| panic!("{run}: {e}"));
            assert_eq!(dumps.len(), usize::from(!run.starts_with("bug")), "{run}");
            if let Some(d) = dumps.first() {
                assert!(d.get("simTicks").unwrap() > 0.0);
                assert!(d.entries.len() > 500);
            }
        }
        let memtest = &parse_stats(&read("memtest-n4")).unwrap()[0];
        assert_eq!(memtest.get("system.cpu0.numReads"), Some(293.0));
        let nan = &parse_stats(&read("clean-n2-s1-rich")).unwrap()[0];
        let v = nan.get("system.ruby.RequestTypeMachineType.IFETCH.L1Cache.miss_type_mach_latency_hist_seqr::stdev");
        assert!(v.unwrap().is_nan());
    }

    #[test]
    fn numbers_dumps_and_errors() {
        let two = "\n---------- Begin Simulation Statistics ----------\n\
                   a 1 # x (Count)\r\n\
                   b -inf inf nan -nan 1.5e3 # y 5 (Count)\n\
                   c\n\
                   ---------- End Simulation Statistics   ----------\n\
                   \n---------- Begin Simulation Statistics ----------\n\
                   a 2 (Count)\n\
                   ---------- End Simulation Statistics   ----------\n";
        let dumps = parse_stats(two.as_bytes()).unwrap();
        assert_eq!(dumps.len(), 2);
        assert_eq!(dumps[0].get("a"), Some(1.0));
        assert_eq!(dumps[1].get("a"), Some(2.0));
        assert_eq!(dumps[0].get("c"), None);
        let b = &dumps[0].entries[1].1;
        assert_eq!(b[0], f64::NEG_INFINITY);
        assert_eq!(b[1], f64::INFINITY);
        assert!(b[2].is_nan() && b[3].is_nan());
        assert_eq!(b[4], 1500.0);
        assert_eq!(parse_stats(b"").unwrap(), vec![]);
        assert_eq!(parse_stats(b"\n\n").unwrap(), vec![]);

        let e =
            parse_stats(b"---------- Begin Simulation Statistics ----------\na 1\n").unwrap_err();
        assert!(e.msg.contains("no End"), "{e}");
        let e =
            parse_stats(b"---------- Begin Simulation Statistics ----------\na 1 x\n").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 5), "{e}");
        let e = parse_stats(b"a 1\n").unwrap_err();
        assert_eq!(e.pos.line, 1);
        let e = parse_stats(b"---------- End Simulation Statistics   ----------\n").unwrap_err();
        assert!(e.msg.contains("without a Begin"));
        let e =
            parse_stats(b"---------- Begin Simulation Statistics ----------\n\xff\n").unwrap_err();
        assert_eq!(e.pos.line, 2);
    }
}
