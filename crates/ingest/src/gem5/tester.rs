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
    /// What the trace says of the run beyond its operations (its ticks,
    /// machines, objects and ports, how far the tester got), for the run's
    /// cross-checks (`consistency`).
    pub extent: Extent,
    /// Set when the trace holds more operations than the memory budget
    /// allows (reading stopped there): why.
    pub over_budget: Option<String>,
}

/// What a trace says of the run that made it, gathered in the one read of
/// the trace: what the run's other files must agree with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extent {
    /// The first and last tick of the lines that carry one (debug lines,
    /// ProtocolTrace lines), and the line of the last.
    pub first_tick: Option<u64>,
    pub last_tick: Option<(u64, u64)>,
    /// The ProtocolTrace machines (`L1Cache`, `Directory`; not the
    /// sequencers' `Seq`), each with the highest controller version seen.
    pub machines: Vec<(String, u32)>,
    /// The SimObjects debug lines name, as the object that owns them: a
    /// tester (`system.cpu`, `system.cpu3`) or a Ruby controller
    /// (`system.ruby.l1_cntrl0`); each once, with the first line naming it.
    pub objects: Vec<(String, u64)>,
    /// The highest tester port the trace uses (a request's index, a
    /// completion's proc; a MemTest tester's number), with its line.
    pub max_port: Option<(u32, u64)>,
    /// Checks the tester completed (Ruby random tester: reads that
    /// returned, the failing one aside; MemTest: the most successful reads
    /// of one tester).
    pub completed: u64,
    /// The failing read of gem5's panic, as the trace holds it (`None`
    /// without a tester panic).
    pub failure: Option<FailureSeen>,
}

/// Whether the trace holds the read that gem5's tester panicked on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailureSeen {
    /// A read of its check (its address) was issued.
    pub issued: bool,
    /// Its completion is in the trace, at the panic's tick, on the panic's
    /// port (MemTest: the read is pending at the end, as the panic leaves it).
    pub completed: bool,
}

impl Extent {
    /// Notes one line's tick, object and ProtocolTrace machine.
    fn line(&mut self, n: u64, line: &[u8]) {
        let start = line.iter().take_while(|&&c| c == b' ').count();
        let digits = line[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 || digits > 19 {
            return;
        }
        let tick: u64 = line[start..start + digits]
            .iter()
            .fold(0, |t, &d| t * 10 + u64::from(d - b'0'));
        let rest = &line[start + digits..];
        if let Some(rest) = rest.strip_prefix(b": ") {
            // `  1234: object: message`
            let end = rest.iter().position(|&c| c == b':' || c == b' ');
            let Some(end) = end.filter(|&e| rest[e..].starts_with(b": ")) else {
                return;
            };
            self.tick(n, tick);
            self.object(n, &rest[..end]);
        } else if rest.first() == Some(&b' ') {
            // `   1234   1    L1Cache   Store   I>IM   [0x3ea, line 0x3c0]`
            let rest = &rest[rest.iter().take_while(|&&c| c == b' ').count()..];
            let vdigits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            if vdigits == 0 || vdigits > 9 || rest.get(vdigits) != Some(&b' ') {
                return;
            }
            let version = rest[..vdigits]
                .iter()
                .fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'));
            let rest = &rest[vdigits..];
            let rest = &rest[rest.iter().take_while(|&&c| c == b' ').count()..];
            if !line.windows(9).any(|w| w == b", line 0x") {
                return;
            }
            // a long event runs into a listed machine's name
            let machine = match memconform_parsers::gem5::protocol::MACHINES
                .iter()
                .find(|m| rest.starts_with(m.as_bytes()))
            {
                Some(m) => m.as_bytes(),
                None => &rest[..rest.iter().position(|&c| c == b' ').unwrap_or(rest.len())],
            };
            self.tick(n, tick);
            if machine != b"Seq" {
                self.machine(machine, version);
            }
        }
    }

    fn tick(&mut self, n: u64, tick: u64) {
        self.first_tick.get_or_insert(tick);
        if self.last_tick.is_none_or(|(t, _)| tick >= t) {
            self.last_tick = Some((tick, n));
        }
    }

    fn machine(&mut self, machine: &[u8], version: u32) {
        let machine = String::from_utf8_lossy(machine);
        match self.machines.iter_mut().find(|(m, _)| *m == machine) {
            Some((_, v)) => *v = (*v).max(version),
            None => self.machines.push((machine.into_owned(), version)),
        }
    }

    /// Notes the tester or Ruby controller that owns `object`.
    fn object(&mut self, n: u64, object: &[u8]) {
        let Ok(object) = std::str::from_utf8(object) else {
            return;
        };
        let owner = if let Some(rest) = object.strip_prefix("system.ruby.") {
            let first = rest.split('.').next().unwrap_or("");
            if !first.contains("_cntrl") {
                return;
            }
            &object[.."system.ruby.".len() + first.len()]
        } else if let Some(rest) = object.strip_prefix("system.") {
            let first = rest.split('.').next().unwrap_or("");
            if !first.starts_with("cpu") {
                return;
            }
            &object[.."system.".len() + first.len()]
        } else {
            return;
        };
        if self.objects.last().is_some_and(|(o, _)| o == owner)
            || self.objects.iter().any(|(o, _)| o == owner)
        {
            return;
        }
        self.objects.push((owner.to_owned(), n));
    }

    /// Notes a tester port used at line `n`.
    fn port(&mut self, n: u64, port: u32) {
        if self.max_port.is_none_or(|(p, _)| port > p) {
            self.max_port = Some((port, n));
        }
    }
}

/// The most accesses a trace may give when each history may use
/// `max_memory` bytes: an access takes about 56 bytes as read and about
/// 400 more in each view built from it (its operation, its origin, the
/// history), so a 512th keeps a view near the budget.
pub fn max_accesses(max_memory: u64) -> usize {
    usize::try_from(max_memory / 512)
        .unwrap_or(usize::MAX)
        .max(1024)
}

/// Why reading stopped at `limit` accesses.
fn over_budget(limit: usize) -> String {
    format!(
        "the trace holds more than {limit} operations: its histories would pass the memory budget \
         (--max-memory); reading stopped there"
    )
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
/// returned value) completes at the end of the trace. Reading stops after
/// `limit` accesses (see [`max_accesses`]).
pub fn read_memtest_trace(
    path: &Path,
    failure: Option<(u32, u64, u64, u8, u8)>,
    limit: usize,
) -> std::io::Result<Trace> {
    use memconform_parsers::gem5::memtest::{parse_memtest_line, Access as Kind, MemTestLine};
    let mut t = Trace::default();
    let mut pending: HashMap<(u32, u64), Pending> = HashMap::new();
    let mut reads: HashMap<u32, u64> = HashMap::new();
    let mut last_line = 0;
    let mut guard = Guard::new(path);
    let ending = for_each_line(path, |line_no, line| {
        last_line = line_no;
        t.extent.line(line_no, line);
        if t.accesses.len() >= limit {
            t.over_budget = Some(over_budget(limit));
            return ControlFlow::Break(());
        }
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
                t.extent.port(line_no, tester);
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
                if success && !p.write {
                    *reads.entry(tester).or_default() += 1;
                }
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
    t.extent.completed = reads.values().copied().max().unwrap_or(0);
    if let Some((tester, addr, tick, got, _expected)) = failure {
        // the panic leaves its read pending
        let pending_read = pending.get(&(tester, addr)).is_some_and(|p| !p.write);
        t.extent.failure = Some(FailureSeen {
            issued: pending_read,
            completed: pending_read,
        });
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
/// Reading stops after `limit` accesses (see [`max_accesses`]).
pub fn read_trace(
    path: &Path,
    failure: Option<&memconform_parsers::gem5::rubytest::CheckFailure>,
    limit: usize,
) -> std::io::Result<Trace> {
    let mut t = Trace::default();
    let mut last_line = 0;
    let mut last_debug: Option<(u64, u32)> = None; // (check base, store_count)
    let mut rounds: HashMap<u64, (u64, u32)> = HashMap::new(); // check base -> (value, store_count)
    let mut last_issued: Option<u64> = None; // base of the request just issued
    let mut pending: HashMap<u64, Pending> = HashMap::new();
    let mut guard = Guard::new(path);
    let mut failure_seen = FailureSeen::default();
    let ending = for_each_line(path, |line_no, line| {
        last_line = line_no;
        if !t.has_protocol_trace && line.windows(7).any(|w| w == b", line ") {
            t.has_protocol_trace = true;
        }
        t.extent.line(line_no, line);
        if t.accesses.len() >= limit {
            t.over_budget = Some(over_budget(limit));
            return ControlFlow::Break(());
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
                t.extent.port(line_no, index);
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
                t.extent.port(line_no, index);
                if let Some((base, _)) = last_debug {
                    if failure.is_some_and(|f| f.address == base) {
                        failure_seen.issued = true;
                    }
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
                t.extent.port(line_no, proc_);
                if p.port != proc_ {
                    t.port_mismatches += 1;
                }
                if !p.write {
                    if failure
                        .is_some_and(|f| f.address == base && f.tick == tick && f.proc_ == proc_)
                    {
                        failure_seen.completed = true;
                    } else {
                        t.extent.completed += 1;
                    }
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
    if failure.is_some() {
        t.extent.failure = Some(failure_seen);
    }
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

impl Resolution {
    /// How messages name it: `latest`, `stale`, `ambiguous`, `no write`.
    pub fn name(self) -> &'static str {
        match self {
            Resolution::Latest => "latest",
            Resolution::Stale => "stale",
            Resolution::Ambiguous => "ambiguous",
            Resolution::NoWrite => "no write",
        }
    }
}

impl std::fmt::Display for Resolution {
    /// [`Resolution::name`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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
                            ann: Default::default(),
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

/// The words a tester run's origins are told in.
pub const TERMS: crate::provenance::Terms = crate::provenance::Terms {
    input: "gem5",
    lane: "port",
    clock: "tick",
    axis: "gem5 tick",
    location: "byte",
    file: "trace",
};

/// The tester's origins as the reports read them: a lane per port (in
/// port order), each access's byte, value, ticks and trace lines, and how
/// a read was resolved when not to the latest write; `trace`: the run's
/// debug trace the lines are in.
pub fn provenance(origins: &[Origin], trace: Option<PathBuf>) -> crate::provenance::Origins {
    let mut ports: Vec<u32> = origins.iter().map(|g| g.access.port).collect();
    ports.sort_unstable();
    ports.dedup();
    let ops = origins
        .iter()
        .map(|g| {
            let a = &g.access;
            crate::provenance::OpOrigin {
                lane: ports.binary_search(&a.port).unwrap_or_default() as u32,
                write: a.write,
                location: a.byte,
                value: u64::from(a.raw),
                time: (a.issue_tick, a.complete_tick),
                lines: (a.issue_line, a.complete_line),
                remark: g
                    .resolution
                    .filter(|&r| r != Resolution::Latest)
                    .map(Resolution::name),
            }
        })
        .collect();
    crate::provenance::Origins {
        terms: TERMS,
        lanes: ports.iter().map(|p| format!("port {p}")).collect(),
        ops,
        source: trace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(port: u32, write: bool, raw: u8, lines: (u64, u64)) -> Access {
        Access {
            port,
            write,
            byte: 0x6e8,
            raw,
            issue_tick: lines.0 * 10,
            issue_line: lines.0,
            complete_tick: lines.1 * 10,
            complete_line: lines.1,
        }
    }

    /// Lanes follow the ports' numbers (port 2 before port 10), each
    /// operation keeps its port's lane, the value as the tester wrote it,
    /// and a read resolved to an older write says so.
    #[test]
    fn a_tester_run_gives_neutral_origins_in_port_order() {
        let accesses = [
            access(10, true, 7, (1, 2)),
            access(2, true, 9, (3, 4)),
            access(10, false, 7, (5, 6)),
        ];
        let (_, origins) = to_history(&accesses, false);
        let p = provenance(&origins, Some(PathBuf::from("trace.txt")));
        assert_eq!(p.lanes, ["port 2", "port 10"]);
        // by op id: port 2's thread first, then port 10's
        assert_eq!(
            p.ops
                .iter()
                .map(|o| (o.lane, o.write, o.value))
                .collect::<Vec<_>>(),
            [(0, true, 9), (1, true, 7), (1, false, 7)]
        );
        assert_eq!(p.ops[2].remark, Some("stale"));
        assert_eq!(p.ops[2].lines, (5, 6));
        assert_eq!(
            p.text(2, Some("trace.txt")),
            "port 10 read of byte 0x6e8 = 7 (0x07), issued tick 50 (trace.txt:5), completed tick 60 (line 6) [stale]"
        );
    }
}
