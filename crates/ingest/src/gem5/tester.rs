//! Histories from a Ruby random tester run: each port is a thread whose
//! program order is the interval order of its requests' log positions.
//!
//! Per check (four bytes at a 4-aligned address) the tester writes each byte
//! once, then reads all four; ops on one check never overlap. Values are
//! 8-bit and repeat, so every write gets a unique identity (its ordinal on
//! its byte) and every read is resolved to the write it returned: the last
//! write of its byte completed before the read was issued when the value
//! matches (the normal case), else the latest earlier write of that value —
//! flagged when several match — or the initial 0, or no write (thin air).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use memconform_parsers::gem5::input::{for_each_line, Ending, LineDamage};
use memconform_parsers::gem5::rubytest::{parse_rubytest_line, RubyTestLine, CHECK_SIZE};
use memconform_parsers::hist::{RawHistory, RawOp, RawOpKind, RawThread};
use memconform_parsers::Pos;

/// One 1-byte access as the trace shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub port: u32,
    pub write: bool,
    /// byte address
    pub byte: u64,
    /// the 8-bit value written or read
    pub raw: u8,
    pub issue_tick: u64,
    pub issue_line: u64,
    pub complete_tick: u64,
    pub complete_line: u64,
}

/// What the trace held.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Completed accesses, in completion order (a read of 4 bytes is 4 accesses).
    pub accesses: Vec<Access>,
    /// Requests issued but never completed (in flight at the end).
    pub in_flight: usize,
    /// Completions whose port differs from the issuing port.
    pub port_mismatches: usize,
    /// Whether the failing read of a panicked run was added from the panic.
    pub failed_read_added: bool,
    /// Whether the failing read of a panicked run was left out: the trace
    /// is damaged before the read was issued, and what it read cannot be
    /// told from the prefix.
    pub failed_read_left_out: bool,
    /// Whether ProtocolTrace lines were seen.
    pub has_protocol_trace: bool,
    pub ending: Option<Ending>,
    /// Where the trace is damaged, if it is: the accesses are those of the
    /// lines before the damage.
    pub damage: Option<Damage>,
}

/// Where and how a trace is damaged: a tester line that does not parse or
/// holds values out of range, ticks out of log order, a request and its
/// completion that do not pair up, a cut, corrupt compressed data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    pub path: PathBuf,
    /// 1-based line of the damage (for a cut: the first line not read whole).
    pub line: u64,
    /// 1-based byte column, where known.
    pub col: Option<usize>,
    pub what: String,
    /// Only a cut at the end (a plain file whose last line lacks its newline,
    /// a gzip stream cut short): every line before `line` is whole and true,
    /// the rest of the run is missing. Otherwise the trace is corrupt.
    pub cut: bool,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}",
            memconform_parsers::text::shown_path(&self.path),
            self.line
        )?;
        if let Some(col) = self.col {
            write!(f, ":{col}")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// What every tester reader checks besides its lines: ticks in log order,
/// and the first damage found (reading stops there).
struct Guard<'p> {
    path: &'p Path,
    /// (tick, line) of the last tester line.
    last: Option<(u64, u64)>,
    damage: Option<Damage>,
}

impl<'p> Guard<'p> {
    /// A guard for the trace at `path`.
    fn new(path: &'p Path) -> Guard<'p> {
        Guard {
            path,
            last: None,
            damage: None,
        }
    }

    /// Records damage at `line` (the first one found wins); stops reading.
    fn damage(&mut self, line: u64, col: Option<usize>, what: String) -> ControlFlow<()> {
        self.damage.get_or_insert(Damage {
            path: self.path.to_path_buf(),
            line,
            col,
            what,
            cut: false,
        });
        ControlFlow::Break(())
    }

    /// Damage from a tester line that does not parse.
    fn bad_line(&mut self, line: u64, d: LineDamage) -> ControlFlow<()> {
        self.damage(line, Some(d.col), d.msg)
    }

    /// Checks that `tick` (of tester line `line`, text `text`) does not go
    /// back: gem5 prints its events in tick order.
    fn tick(&mut self, line: u64, text: &[u8], tick: u64) -> ControlFlow<()> {
        if let Some((last, at)) = self.last {
            if tick < last {
                let col = text.iter().take_while(|&&c| c == b' ').count() + 1;
                return self.damage(
                    line,
                    Some(col),
                    format!(
                        "not in log order: tick {tick} at line {line} after tick {last} at line {at} \
                         (lines reordered, or not a gem5 debug log)"
                    ),
                );
            }
        }
        self.last = Some((tick, line));
        ControlFlow::Continue(())
    }

    /// The damage found, or the reader's own (a cut, corrupt compressed data).
    fn finish(self, ending: &Ending) -> Option<Damage> {
        if self.damage.is_some() {
            return self.damage;
        }
        let (lines, msg, cut) = match ending {
            Ending::Complete => return None,
            Ending::Truncated { lines, msg } => (lines, msg, true),
            Ending::Corrupt { lines, msg } => (lines, msg, false),
        };
        Some(Damage {
            path: self.path.to_path_buf(),
            line: lines + 1,
            col: None,
            what: msg.clone(),
            cut,
        })
    }
}

struct Pending {
    write: bool,
    port: u32,
    byte: u64,
    raw: u8,
    tick: u64,
    line: u64,
}

/// Reads the `MemTest` lines of a trace (plain or gzip): each tester is a
/// port; a failed read (the panic in `failure`: tester, address, tick,
/// returned value) completes at the end of the trace.
pub fn read_memtest_trace(
    path: &Path,
    failure: Option<(u32, u64, u64, u8, u8)>,
) -> std::io::Result<Trace> {
    use memconform_parsers::gem5::memtest::{parse_memtest_line, Access as Kind, MemTestLine};
    let mut t = Trace::default();
    let mut pending: HashMap<(u32, u64), Pending> = HashMap::new();
    let mut last_line = 0;
    let mut guard = Guard::new(path);
    let ending = for_each_line(path, |line_no, line| {
        last_line = line_no;
        let parsed = match parse_memtest_line(line) {
            Ok(Some(p)) => p,
            Ok(None) => return ControlFlow::Continue(()),
            Err(d) => return guard.bad_line(line_no, d),
        };
        guard.tick(line_no, line, parsed.0)?;
        match parsed {
            (
                tick,
                MemTestLine::Initiate {
                    tester,
                    access,
                    addr,
                    value,
                    ..
                },
            ) => {
                let issued = Pending {
                    write: access == Kind::Write,
                    port: tester,
                    byte: addr,
                    raw: value,
                    tick,
                    line: line_no,
                };
                // MemTest keeps one request per address outstanding
                if let Some(old) = pending.insert((tester, addr), issued) {
                    return guard.damage(
                        line_no,
                        None,
                        format!(
                            "tester {tester} issues a request for {addr:x} while its request of line {} \
                             is still pending (a completion line lost?)",
                            old.line
                        ),
                    );
                }
            }
            (
                tick,
                MemTestLine::Complete {
                    tester,
                    addr,
                    success,
                    ..
                },
            ) => {
                let Some(p) = pending.remove(&(tester, addr)) else {
                    return guard.damage(
                        line_no,
                        None,
                        format!(
                            "tester {tester} completes a request for {addr:x} that it never issued \
                             (a request line lost?)"
                        ),
                    );
                };
                if success {
                    // a successful read returned the value it expected
                    t.accesses.push(Access {
                        port: p.port,
                        write: p.write,
                        byte: p.byte,
                        raw: p.raw,
                        issue_tick: p.tick,
                        issue_line: p.line,
                        complete_tick: tick,
                        complete_line: line_no,
                    });
                }
            }
        }
        ControlFlow::Continue(())
    })?;
    t.damage = guard.finish(&ending);
    if let Some((tester, addr, tick, got, _expected)) = failure {
        // (issued before any damage: its request line was read)
        if let Some(p) = pending.remove(&(tester, addr)) {
            t.accesses.push(Access {
                port: p.port,
                write: false,
                byte: p.byte,
                raw: got,
                issue_tick: p.tick,
                issue_line: p.line,
                complete_tick: tick,
                complete_line: last_line + 1,
            });
        }
    }
    t.in_flight = pending.len();
    t.ending = Some(ending);
    Ok(t)
}

/// Reads the `RubyTest` lines of a trace (plain or gzip).
///
/// The failing read of a panicked run (`failure`) is added when its
/// completion line is missing (a trace cut short): it was issued at its
/// issue line if the trace has it, else after the trace's last line.
pub fn read_trace(
    path: &Path,
    failure: Option<&memconform_parsers::gem5::rubytest::CheckFailure>,
) -> std::io::Result<Trace> {
    let mut t = Trace::default();
    let mut last_line = 0;
    let mut last_debug: Option<(u64, u32)> = None; // (check base, store_count)
    let mut rounds: HashMap<u64, (u64, u32)> = HashMap::new(); // check base -> (value, store_count)
    let mut last_issued: Option<u64> = None; // base of the request just issued
    let mut pending: HashMap<u64, Pending> = HashMap::new();
    let mut guard = Guard::new(path);
    let ending = for_each_line(path, |line_no, line| {
        last_line = line_no;
        if !t.has_protocol_trace && line.windows(7).any(|w| w == b", line ") {
            t.has_protocol_trace = true;
        }
        let (tick, l) = match parse_rubytest_line(line) {
            Ok(Some(p)) => p,
            Ok(None) => return ControlFlow::Continue(()),
            Err(d) => return guard.bad_line(line_no, d),
        };
        guard.tick(line_no, line, tick)?;
        // a check has one request outstanding at a time (Check.cc)
        let mut issue = |base: u64, p: Pending| match pending.insert(base, p) {
            Some(old) => Err(format!(
                "a request on check 0x{base:x} while its request of line {} is still pending \
                 (a completion line lost?)",
                old.line
            )),
            None => Ok(()),
        };
        match l {
            RubyTestLine::DebugPrint {
                addr,
                value,
                store_count,
                ..
            } => {
                last_debug = Some((addr, store_count));
                rounds.insert(addr, (value, store_count));
            }
            RubyTestLine::SeqWrite { index, data } => {
                if let Some((base, k)) = last_debug {
                    let issued = Pending {
                        write: true,
                        port: index,
                        byte: base + k as u64,
                        raw: data,
                        tick,
                        line: line_no,
                    };
                    if let Err(what) = issue(base, issued) {
                        return guard.damage(line_no, None, what);
                    }
                    last_issued = Some(base);
                }
            }
            RubyTestLine::SeqRead { index } => {
                if let Some((base, _)) = last_debug {
                    let issued = Pending {
                        write: false,
                        port: index,
                        byte: base,
                        raw: 0,
                        tick,
                        line: line_no,
                    };
                    if let Err(what) = issue(base, issued) {
                        return guard.damage(line_no, None, what);
                    }
                    last_issued = Some(base);
                }
            }
            RubyTestLine::InitiateFailed => {
                if let Some(base) = last_issued.take() {
                    pending.remove(&base);
                }
            }
            RubyTestLine::Completed {
                proc_, addr, data, ..
            } => {
                let base = addr & !3;
                let Some(p) = pending.remove(&base) else {
                    return guard.damage(
                        line_no,
                        None,
                        format!(
                            "a completion on check 0x{base:x} with no request pending \
                             (a request line lost?)"
                        ),
                    );
                };
                if p.port != proc_ {
                    t.port_mismatches += 1;
                }
                let mut push = |byte: u64, raw: u8, write: bool| {
                    t.accesses.push(Access {
                        port: p.port,
                        write,
                        byte,
                        raw,
                        issue_tick: p.tick,
                        issue_line: p.line,
                        complete_tick: tick,
                        complete_line: line_no,
                    })
                };
                if p.write {
                    push(p.byte, p.raw, true);
                } else {
                    for (k, &b) in data.iter().enumerate() {
                        push(addr + k as u64, b, false);
                    }
                }
            }
        }
        ControlFlow::Continue(())
    })?;
    t.damage = guard.finish(&ending);
    if let Some(f) = failure {
        let completed = t.accesses.iter().any(|a| {
            !a.write && a.byte == f.address + f.byte_number as u64 && a.complete_tick == f.tick
        });
        let issued = pending.remove(&f.address).filter(|p| !p.write);
        // Past damage, a read issued in the lost part may follow writes the
        // prefix lacks; not when the prefix ends with its check Ready (all four
        // bytes of the panic's round written): a Ready check issues only its read.
        let ready = rounds.get(&f.address).is_some_and(|&(value, count)| {
            u64::from(count) == CHECK_SIZE && value + u64::from(f.byte_number) == f.expected
        });
        let knowable = issued.is_some() || t.damage.is_none() || ready;
        if !completed && !knowable {
            t.failed_read_left_out = true;
        }
        if !completed && knowable {
            let (issue_tick, issue_line) =
                issued.map_or((f.tick, last_line + 1), |p| (p.tick, p.line));
            t.accesses.push(Access {
                port: f.proc_,
                write: false,
                byte: f.address + f.byte_number as u64,
                raw: f.got as u8,
                issue_tick,
                issue_line,
                complete_tick: f.tick,
                complete_line: last_line + 2,
            });
            t.failed_read_added = true;
        }
    }
    t.in_flight = pending.len();
    t.ending = Some(ending);
    Ok(t)
}

/// How a read was resolved to a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// the latest write of its byte (or the initial value, none yet)
    Latest,
    /// an older write of the same value (a stale read)
    Stale,
    /// several earlier writes (or the initial value) match; the latest is taken
    Ambiguous,
    /// no write of that value: thin air
    NoWrite,
}

/// One history operation's origin in the trace.
#[derive(Debug, Clone)]
pub struct Origin {
    pub access: Access,
    pub resolution: Option<Resolution>,
}

/// A history from the accesses, with the origin of each operation (by op id
/// order: thread by thread, as [`memconform_core::history::History`] numbers them after
/// the initial writes). With `real_time`, all ports form one thread ordered by
/// the real-time interval order (linearizability of the bytes).
pub fn to_history(accesses: &[Access], real_time: bool) -> (RawHistory, Vec<Origin>) {
    // unique write identities: ordinal per byte, in completion order
    let mut ordinal: HashMap<u64, u64> = HashMap::new();
    let mut id = vec![0u64; accesses.len()];
    let mut writes_of: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, a) in accesses.iter().enumerate().filter(|(_, a)| a.write) {
        let n = ordinal.entry(a.byte).or_insert(0);
        *n += 1;
        id[i] = *n;
        writes_of.entry(a.byte).or_default().push(i);
    }
    let mut value = vec![0u64; accesses.len()];
    let mut resolution = vec![None; accesses.len()];
    let mut fresh: HashMap<u64, u64> = HashMap::new();
    // each byte's writes by completion, so the writes completed before a
    // read was issued are a prefix
    for ws in writes_of.values_mut() {
        ws.sort_by_key(|&w| (accesses[w].complete_line, w));
    }
    for (i, a) in accesses.iter().enumerate().filter(|(_, a)| !a.write) {
        let earlier: &[usize] = writes_of.get(&a.byte).map_or(&[], |ws| {
            &ws[..ws.partition_point(|&w| accesses[w].complete_line < a.issue_line)]
        });
        let latest = earlier.last().copied();
        let latest_raw = latest.map_or(0, |w| accesses[w].raw);
        let (v, r) = if latest_raw == a.raw {
            (latest.map_or(0, |w| id[w]), Resolution::Latest)
        } else {
            let same: Vec<usize> = earlier
                .iter()
                .copied()
                .filter(|&w| accesses[w].raw == a.raw)
                .collect();
            let init_matches = a.raw == 0;
            match (same.last(), same.len() + init_matches as usize) {
                (_, 0) => {
                    // a value never written: an identity no write has
                    let n = ordinal.get(&a.byte).copied().unwrap_or(0);
                    let f = fresh.entry(a.byte).or_insert(n);
                    *f += 1;
                    (*f, Resolution::NoWrite)
                }
                (Some(&w), 1) => (id[w], Resolution::Stale),
                (None, 1) => (0, Resolution::Stale),
                (Some(&w), _) => (id[w], Resolution::Ambiguous),
                (None, _) => (0, Resolution::Ambiguous),
            }
        };
        value[i] = v;
        resolution[i] = Some(r);
    }
    let mut threads: Vec<(String, Vec<usize>)> = Vec::new();
    if real_time {
        threads.push(("rt".to_string(), (0..accesses.len()).collect()));
    } else {
        let mut ports: Vec<u32> = accesses.iter().map(|a| a.port).collect();
        ports.sort_unstable();
        ports.dedup();
        for p in ports {
            threads.push((
                format!("port{p}"),
                (0..accesses.len())
                    .filter(|&i| accesses[i].port == p)
                    .collect(),
            ));
        }
    }
    let mut origins = Vec::with_capacity(accesses.len());
    let raw_threads = threads
        .into_iter()
        .map(|(name, mut idx)| {
            idx.sort_by_key(|&i| (accesses[i].issue_line, accesses[i].byte));
            RawThread {
                name,
                pos: Pos::default(),
                ops: idx
                    .into_iter()
                    .map(|i| {
                        let a = &accesses[i];
                        origins.push(Origin {
                            access: a.clone(),
                            resolution: resolution[i],
                        });
                        let var = format!("0x{:x}", a.byte);
                        RawOp {
                            kind: if a.write {
                                RawOpKind::Write { var, value: id[i] }
                            } else {
                                RawOpKind::Read {
                                    var,
                                    value: value[i],
                                }
                            },
                            // log positions order the events exactly (gem5 is single-threaded)
                            ticks: Some((a.issue_line, a.complete_line)),
                            pos: Pos {
                                line: a.issue_line.min(u32::MAX as u64) as u32,
                                col: 1,
                            },
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    (
        RawHistory {
            threads: raw_threads,
            ..RawHistory::default()
        },
        origins,
    )
}
