//! gem5's `config.ini` (`[section]` and `key=value` lines) and `config.json`
//! (the same SimObject tree, nested), the protocol fingerprint of a Ruby
//! system, and the tester that drove a run (docs/design/gem5.md §6).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::{ParseError, Pos};

/// A gem5 configuration: each SimObject's path with its parameters, as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    pub sections: Vec<(String, Vec<(String, String)>)>,
}

impl Config {
    /// The value of `key` in `section`.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.section(section)?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The names of the sections whose `type` is `ty`, in file order.
    pub fn sections_of_type(&self, ty: &str) -> Vec<&str> {
        self.sections
            .iter()
            .filter(|(_, kv)| kv.iter().any(|(k, v)| k == "type" && v == ty))
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The keys and values of `section`.
    fn section(&self, section: &str) -> Option<&[(String, String)]> {
        self.sections
            .iter()
            .find(|(name, _)| name == section)
            .map(|(_, kv)| kv.as_slice())
    }

    /// Whether `section` has the key `key`.
    fn has(&self, section: &str, key: &str) -> bool {
        self.get(section, key).is_some()
    }
}

/// A 1-based position of byte `offset` in `src`.
fn pos_at(src: &[u8], offset: usize) -> Pos {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |nl| nl + 1);
    Pos {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        col: u32::try_from(offset - line_start + 1).unwrap_or(u32::MAX),
    }
}

/// Parses `config.ini`: `[name]` headers, `key=value` lines, blank lines, and
/// `;`/`#` comment lines.
pub fn parse_config_ini(src: &[u8]) -> Result<Config, ParseError> {
    let mut config = Config::default();
    let mut offset = 0;
    for raw in src.split(|&b| b == b'\n') {
        let here = offset;
        offset += raw.len() + 1;
        let err = |col: usize, msg: &str| ParseError {
            pos: pos_at(src, here + col),
            msg: msg.to_owned(),
        };
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = std::str::from_utf8(raw)
            .map_err(|e| err(e.valid_up_to(), "invalid utf-8 in config.ini"))?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with([';', '#']) {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[') {
            let name = name
                .strip_suffix(']')
                .ok_or_else(|| err(line.len(), "a section header must end with `]`"))?;
            config.sections.push((name.trim().to_owned(), Vec::new()));
            continue;
        }
        let Some((key, val)) = line.split_once('=') else {
            return Err(err(
                line.len() - line.trim_start().len(),
                "expected `[section]` or `key=value`",
            ));
        };
        let Some((_, keys)) = config.sections.last_mut() else {
            return Err(err(0, "`key=value` before the first `[section]`"));
        };
        keys.push((key.trim().to_owned(), val.to_owned()));
    }
    Ok(config)
}

/// A JSON value of config.json; numbers and booleans keep their text
/// (gem5 writes floats like `0.23500000000000001` and `1.0`, which
/// config.ini repeats verbatim).
#[derive(Debug, Clone, PartialEq)]
enum Json<'a> {
    Null,
    /// A number, `true` or `false`, as written.
    Lit(&'a str),
    Str(String),
    Arr(Vec<Json<'a>>),
    Obj(Vec<(String, Json<'a>)>),
}

/// Nesting deeper than this is refused (config.json nests about ten levels).
const MAX_DEPTH: usize = 256;

/// An object's members in file order, each value still unparsed.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    /// The members of a JSON object, in file order.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Members<'a>;
            /// What serde_json names in its error when the value is no object.
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            /// The members, keys read and values kept as raw text.
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A serde_json error in `part` (a slice of `text`, which is `src` as
/// UTF-8) at its line and column in `src`.
fn json_error(src: &[u8], text: &str, part: &str, e: &serde_json::Error) -> ParseError {
    let base = part.as_ptr() as usize - text.as_ptr() as usize;
    let line_start: usize = part
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let msg = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    ParseError {
        pos: pos_at(src, base + line_start + e.column().saturating_sub(1)),
        msg: msg.strip_suffix(&suffix).unwrap_or(&msg).to_owned(),
    }
}

/// `part` (a slice of `text`) parsed by serde_json as a `T`, errors placed in `src`.
fn parse_part<'a, T: Deserialize<'a>>(
    src: &[u8],
    text: &str,
    part: &'a str,
) -> Result<T, ParseError> {
    serde_json::from_str(part).map_err(|e| json_error(src, text, part, &e))
}

/// The JSON value `part` (a slice of `text`), parsed level by level: each
/// object's or array's members are read as raw text first, so numbers keep
/// theirs.
fn json_value<'a>(
    src: &[u8],
    text: &str,
    part: &'a str,
    depth: usize,
) -> Result<Json<'a>, ParseError> {
    if depth > MAX_DEPTH {
        let base = part.as_ptr() as usize - text.as_ptr() as usize;
        return Err(ParseError {
            pos: pos_at(src, base),
            msg: "JSON nested too deeply".to_owned(),
        });
    }
    let part = part.trim_start_matches([' ', '\t', '\n', '\r']);
    Ok(match part.as_bytes().first() {
        Some(b'{') => {
            let Members(members) = parse_part(src, text, part)?;
            let mut obj = Vec::with_capacity(members.len());
            for (key, raw) in members {
                obj.push((key, json_value(src, text, raw.get(), depth + 1)?));
            }
            Json::Obj(obj)
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = parse_part(src, text, part)?;
            let items = items
                .into_iter()
                .map(|raw| json_value(src, text, raw.get(), depth + 1));
            Json::Arr(items.collect::<Result<_, _>>()?)
        }
        Some(b'"') => Json::Str(parse_part(src, text, part)?),
        // a scalar at the top level, no SimObject: only its syntax matters
        _ if depth == 0 => {
            let _: &RawValue = parse_part(src, text, part)?;
            Json::Null
        }
        // below it, a scalar the enclosing value's parse has checked
        _ if part.starts_with("null") => Json::Null,
        _ => Json::Lit(part.trim_end()),
    })
}

/// The member `key` of an object.
fn member<'j, 'a>(members: &'j [(String, Json<'a>)], key: &str) -> Option<&'j Json<'a>> {
    members.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The path of a SimObject's JSON object (one with a string `path`).
fn simobject_path<'j>(v: &'j Json<'_>) -> Option<&'j str> {
    match v {
        Json::Obj(m) => match member(m, "path") {
            Some(Json::Str(p)) if member(m, "type").is_some() => Some(p),
            _ => None,
        },
        _ => None,
    }
}

/// Flattens one SimObject (and, depth first, its children) into `out`.
fn flatten(members: &[(String, Json<'_>)], out: &mut Config) {
    let path = match member(members, "path") {
        Some(Json::Str(p)) => p.to_string(),
        _ => String::new(),
    };
    let index = out.sections.len();
    out.sections.push((path, Vec::new()));
    let mut keys = Vec::new();
    let mut children = Vec::new();
    for (key, v) in members {
        if matches!(key.as_str(), "path" | "name" | "cxx_class") {
            continue;
        }
        if let Some(text) = render(key, v, out, &mut children) {
            keys.push((key.clone(), text));
        }
    }
    if !children.is_empty() {
        children.sort();
        let at = usize::from(keys.first().is_some_and(|(k, _)| k == "type"));
        keys.insert(at, ("children".to_owned(), children.join(" ")));
    }
    out.sections[index].1 = keys;
}

/// A parameter's value as config.ini writes it; SimObjects met on the way
/// are flattened and their names added to `children`. None for an object
/// that is neither a SimObject nor a port.
fn render(key: &str, v: &Json<'_>, out: &mut Config, children: &mut Vec<String>) -> Option<String> {
    Some(match v {
        Json::Null => "Null".to_owned(),
        Json::Lit(text) => (*text).to_owned(),
        Json::Str(s) => s.clone(),
        Json::Arr(items) => {
            let parts: Vec<String> = items
                .iter()
                .filter_map(|item| render(key, item, out, children))
                .collect();
            parts.join(" ")
        }
        Json::Obj(m) => {
            if let Some(path) = simobject_path(v) {
                let name = match member(m, "name") {
                    Some(Json::Str(n)) => n.to_string(),
                    _ => key.to_owned(),
                };
                children.push(name);
                flatten(m, out);
                path.to_owned()
            } else if let Some(peer) = member(m, "peer") {
                render(key, peer, out, &mut Vec::new())?
            } else {
                return None;
            }
        }
    })
}

/// Flattens config.json into the same shape (section = dotted path of each SimObject, keys = its scalar params; `type` key = its "type").
///
/// Values are written as config.ini writes them: lists joined by spaces,
/// booleans `true`/`false`, a null SimObject `Null`, a port as its peers, a
/// `children` key with the sorted child names. Unlike config.ini, every child
/// SimObject also appears as a key (`cpu=system.cpu`), since the JSON does not
/// tell children from parameters that hold one.
pub fn parse_config_json(src: &[u8]) -> Result<Config, ParseError> {
    let text = std::str::from_utf8(src).map_err(|e| ParseError {
        pos: pos_at(src, e.valid_up_to()),
        msg: "invalid utf-8 in config.json".to_owned(),
    })?;
    let root = json_value(src, text, text, 0)?;
    match &root {
        Json::Obj(m) if simobject_path(&root).is_some() => {
            let mut config = Config::default();
            flatten(m, &mut config);
            Ok(config)
        }
        _ => Err(ParseError {
            pos: pos_at(src, 0),
            msg: "the top level is not a SimObject (an object with `type` and `path`)".to_owned(),
        }),
    }
}

/// A Ruby coherence protocol, as recognised from the controllers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protocol {
    MiExample,
    MesiTwoLevel,
    MoesiHammer,
    MoesiAmdBase,
    /// ARM's CHI (the protocol of gem5's `build_opts/ARM`).
    Chi,
    Unknown,
}

impl Protocol {
    /// gem5's name of the protocol (`PROTOCOL=` in build options).
    pub fn name(&self) -> &'static str {
        match self {
            Protocol::MiExample => "MI_example",
            Protocol::MesiTwoLevel => "MESI_Two_Level",
            Protocol::MoesiHammer => "MOESI_hammer",
            Protocol::MoesiAmdBase => "MOESI_AMD_Base",
            Protocol::Chi => "CHI",
            Protocol::Unknown => "unknown",
        }
    }
}

/// By the fingerprints of docs/design/gem5.md §6 (controller types and parameters).
///
/// * MOESI_AMD_Base: a `CorePair_Controller` with `sequencer1` (and no GPU `TCP_Controller`);
/// * MESI_Two_Level: an `L2Cache_Controller` and an L1 with `L1Dcache` and
///   `l2_select_num_bits` (and neither MOESI_CMP_token's `N_tokens` nor
///   MESI_Three_Level's `L0Cache_Controller`);
/// * MOESI_hammer: an L1 with `L2cache` and `no_mig_atomic`, a Directory with `probeFilter`;
/// * MI_example: an L1 with `cacheMemory` and no `L2Cache_Controller`;
/// * CHI: a `Cache_Controller` (CHI's one cache machine, `CHI-cache.sm`)
///   with `is_HN`, and a `Memory_Controller`.
pub fn protocol(c: &Config) -> Protocol {
    let l1s = c.sections_of_type("L1Cache_Controller");
    let l1_with = |keys: &[&str]| l1s.iter().any(|s| keys.iter().all(|k| c.has(s, k)));
    let any_of_type = |ty: &str| !c.sections_of_type(ty).is_empty();
    if c.sections_of_type("CorePair_Controller")
        .iter()
        .any(|s| c.has(s, "sequencer1"))
        && !any_of_type("TCP_Controller")
    {
        return Protocol::MoesiAmdBase;
    }
    if any_of_type("L2Cache_Controller")
        && !any_of_type("L0Cache_Controller")
        && l1_with(&["L1Dcache", "l2_select_num_bits"])
        && !l1_with(&["N_tokens"])
    {
        return Protocol::MesiTwoLevel;
    }
    if l1_with(&["L2cache", "no_mig_atomic"])
        && c.sections_of_type("Directory_Controller")
            .iter()
            .any(|s| c.has(s, "probeFilter"))
    {
        return Protocol::MoesiHammer;
    }
    if l1_with(&["cacheMemory"]) && !any_of_type("L2Cache_Controller") {
        return Protocol::MiExample;
    }
    if c.sections_of_type("Cache_Controller")
        .iter()
        .any(|s| c.has(s, "is_HN"))
        && any_of_type("Memory_Controller")
    {
        return Protocol::Chi;
    }
    Protocol::Unknown
}

/// The tester that drove the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tester {
    /// `type=RubyTester` (`ruby_random_test.py`).
    RubyRandom {
        cpus: u32,
        checks: u64,
        wakeup_frequency: u64,
        check_flush: bool,
    },
    /// One `type=MemTest` section per tester (`ruby_mem_test.py`); the
    /// parameters of the first.
    MemTest {
        cpus: u32,
        max_loads: u64,
        percent_reads: u32,
    },
    /// Anything else; `cpus` counts the sections whose type ends in `CPU`.
    Other { cpus: u32 },
}

impl std::fmt::Display for Tester {
    /// The tester as messages name it: `Ruby random tester, 8 CPUs, 100
    /// checks, wakeup every 10 cycles`, `MemTest, 4 CPUs, 1000 loads, 65%
    /// reads`, `2 CPUs` (no tester: the run's own programs).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cpus = |n: u32| format!("{n} CPU{}", if n == 1 { "" } else { "s" });
        match self {
            Tester::RubyRandom {
                cpus: n,
                checks,
                wakeup_frequency,
                check_flush,
            } => {
                write!(
                f,
                "Ruby random tester, {}, {checks} checks, wakeup every {wakeup_frequency} cycles{}",
                cpus(*n),
                if *check_flush { ", flushes checked" } else { "" }
            )
            }
            Tester::MemTest {
                cpus: n,
                max_loads,
                percent_reads,
            } => write!(
                f,
                "MemTest, {}, {max_loads} loads, {percent_reads}% reads",
                cpus(*n)
            ),
            Tester::Other { cpus: n } => f.write_str(&cpus(*n)),
        }
    }
}

/// The number in a key, 0 when absent or malformed.
fn num<T: std::str::FromStr + Default>(c: &Config, section: &str, key: &str) -> T {
    c.get(section, key)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_default()
}

/// The tester of a run, from its `type=RubyTester` or `type=MemTest` sections.
pub fn tester(c: &Config) -> Tester {
    if let Some(s) = c.sections_of_type("RubyTester").first() {
        let cpus = c
            .get(s, "num_cpus")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| u32::try_from(ports(c).len()).unwrap_or(u32::MAX));
        return Tester::RubyRandom {
            cpus,
            checks: num(c, s, "checks_to_complete"),
            wakeup_frequency: num(c, s, "wakeup_frequency"),
            check_flush: c.get(s, "check_flush") == Some("true"),
        };
    }
    let memtests = memtests(c);
    if let Some((_, first)) = memtests.first() {
        return Tester::MemTest {
            cpus: u32::try_from(memtests.len()).unwrap_or(u32::MAX),
            max_loads: num(c, first, "max_loads"),
            percent_reads: num(c, first, "percent_reads"),
        };
    }
    let cpus = c
        .sections
        .iter()
        .filter(|(_, kv)| kv.iter().any(|(k, v)| k == "type" && v.ends_with("CPU")))
        .count();
    Tester::Other {
        cpus: u32::try_from(cpus).unwrap_or(u32::MAX),
    }
}

/// One simulated CPU of a run (an SE-mode run's cores).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    /// Its SimObject path (`system.cpu0`).
    pub path: String,
    /// Its model as a user names it: the ISA's prefix and the C++ type
    /// without `Base` (`BaseO3CPU` with an `X86ISA` is `X86O3CPU`); the
    /// type as it is when the ISA is not named.
    pub model: String,
    /// The ISA (`X86`, `Arm`, `RiscV`, ...), when a child `isa` says.
    pub isa: Option<String>,
    /// An O3 CPU's `needsTSO` (whether its load queue squashes a load
    /// whose line another core takes: x86's TSO).
    pub needs_tso: Option<bool>,
    /// The command line of the process it runs (`workload.cmd`), if any.
    pub workload: Option<String>,
}

/// The CPUs of a run, in path order: every section whose type ends in
/// `CPU` (checkers and KVM CPUs included).
pub fn cpus(c: &Config) -> Vec<Cpu> {
    let mut out: Vec<Cpu> = c
        .sections
        .iter()
        .filter_map(|(path, kv)| {
            let ty = kv.iter().find(|(k, _)| k == "type")?.1.as_str();
            if !ty.ends_with("CPU") {
                return None;
            }
            let child = |suffix: &str| format!("{path}.{suffix}");
            let isa = c
                .sections
                .iter()
                .find(|(p, kv)| {
                    p.strip_prefix(&child("isa"))
                        .is_some_and(|rest| rest.chars().all(|ch| ch.is_ascii_digit()))
                        && kv.iter().any(|(k, v)| k == "type" && v.ends_with("ISA"))
                })
                .and_then(|(p, _)| c.get(p, "type"))
                .map(|t| t.trim_end_matches("ISA").to_owned());
            let bare = ty.strip_prefix("Base").unwrap_or(ty);
            let model = match &isa {
                Some(isa) if !bare.starts_with(isa.as_str()) => format!("{isa}{bare}"),
                _ => bare.to_owned(),
            };
            let workload = c
                .get(path, "workload")
                .and_then(|w| w.split_whitespace().next())
                .and_then(|w| c.get(w, "cmd"))
                .or_else(|| c.get(&child("workload"), "cmd"))
                .map(str::to_owned);
            Some(Cpu {
                path: path.clone(),
                model,
                isa,
                needs_tso: c.get(path, "needsTSO").map(|v| v == "true"),
                workload,
            })
        })
        .collect();
    out.sort_by(|a, b| natural(&a.path).cmp(&natural(&b.path)));
    out
}

/// A path's sort key with its trailing number as a number (`cpu10` after `cpu9`).
fn natural(path: &str) -> (&str, u64) {
    let digits = path.len() - path.trim_end_matches(|ch: char| ch.is_ascii_digit()).len();
    let (stem, n) = path.split_at(path.len() - digits);
    (stem, n.parse().unwrap_or(0))
}

/// The MemTest sections with their tester number (the trailing digits of the
/// name, 0 for none), sorted by it.
fn memtests(c: &Config) -> Vec<(u32, &str)> {
    let mut v: Vec<(u32, &str)> = c
        .sections_of_type("MemTest")
        .into_iter()
        .map(|s| {
            let digits = s.len() - s.trim_end_matches(|ch: char| ch.is_ascii_digit()).len();
            (s[s.len() - digits..].parse().unwrap_or(0), s)
        })
        .collect();
    v.sort();
    v
}

/// The object owning a port: `system.ruby.l1_cntrl0.sequencer.in_ports[0]` → `system.ruby.l1_cntrl0.sequencer`.
fn port_owner(peer: &str) -> String {
    peer.rsplit_once('.')
        .map_or(peer, |(owner, _)| owner)
        .to_owned()
}

/// For a Ruby tester: the sequencer name of each port index (from `cpuInstDataPort`), e.g. ["system.ruby.l1_cntrl0.sequencer", ...].
///
/// For MemTest: the object each tester's `port` connects to, by tester
/// number. Empty for other runs.
pub fn ports(c: &Config) -> Vec<String> {
    if let Some(s) = c.sections_of_type("RubyTester").first() {
        return c
            .get(s, "cpuInstDataPort")
            .unwrap_or("")
            .split_whitespace()
            .map(port_owner)
            .collect();
    }
    memtests(c)
        .into_iter()
        .filter_map(|(_, s)| c.get(s, "port").map(port_owner))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tester_is_named_in_words() {
        let t = Tester::RubyRandom {
            cpus: 8,
            checks: 100,
            wakeup_frequency: 10,
            check_flush: false,
        };
        assert_eq!(
            t.to_string(),
            "Ruby random tester, 8 CPUs, 100 checks, wakeup every 10 cycles"
        );
        let m = Tester::MemTest {
            cpus: 1,
            max_loads: 1000,
            percent_reads: 65,
        };
        assert_eq!(m.to_string(), "MemTest, 1 CPU, 1000 loads, 65% reads");
        assert_eq!(Tester::Other { cpus: 2 }.to_string(), "2 CPUs");
    }

    fn read(run: &str, file: &str) -> Vec<u8> {
        std::fs::read(crate::gem5::runs::mi_example(run).join(file)).unwrap()
    }

    /// (run, tester kind, cpus, checks) as in tests/data/README.md and traces/README.md.
    const RUNS: [(&str, &str, u32, u64); 7] = [
        ("clean-n2-s1-rich", "ruby", 2, 20),
        ("clean-n4-s2", "ruby", 4, 200),
        ("clean-n8-s3-gz", "ruby", 8, 300),
        ("memtest-n4", "memtest", 4, 300),
        ("bug-mi5-n4-s1-rich", "ruby", 4, 200),
        ("bug-mi3-n4-s2-rich", "ruby", 4, 200),
        ("bug-mi5-n2-s3-gztrunc", "ruby", 2, 200),
    ];

    #[test]
    fn se_cpus_are_named_as_users_name_them() {
        let ini =
            b"[system.cpu1]\ntype=BaseO3CPU\nneedsTSO=false\nworkload=system.cpu1.workload\n\n\
[system.cpu1.isa]\ntype=X86ISA\n\n[system.cpu1.workload]\ntype=Process\ncmd=client 2 10 2 1\n\n\
[system.cpu0]\ntype=BaseO3CPU\nneedsTSO=true\nworkload=system.cpu0.workload\n\n\
[system.cpu0.isa]\ntype=X86ISA\n\n[system.cpu0.workload]\ntype=Process\ncmd=client 2 10 2 1\n\n\
[system.cpu10]\ntype=BaseTimingSimpleCPU\n";
        let c = parse_config_ini(ini).unwrap();
        let cpus = cpus(&c);
        let got: Vec<(&str, &str, Option<bool>, Option<&str>)> = cpus
            .iter()
            .map(|c| {
                (
                    c.path.as_str(),
                    c.model.as_str(),
                    c.needs_tso,
                    c.workload.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "system.cpu0",
                    "X86O3CPU",
                    Some(true),
                    Some("client 2 10 2 1")
                ),
                (
                    "system.cpu1",
                    "X86O3CPU",
                    Some(false),
                    Some("client 2 10 2 1")
                ),
                ("system.cpu10", "TimingSimpleCPU", None, None),
            ]
        );
    }

    #[test]
    fn real_runs_ini_and_json_agree() {
        for (run, kind, cpus, checks) in RUNS {
            let ini = parse_config_ini(&read(run, "config.ini")).unwrap();
            let json = parse_config_json(&read(run, "config.json")).unwrap();
            for c in [&ini, &json] {
                assert_eq!(protocol(c), Protocol::MiExample, "{run}");
                assert_eq!(protocol(c).name(), "MI_example");
                let t = tester(c);
                match (kind, &t) {
                    (
                        "ruby",
                        Tester::RubyRandom {
                            cpus: n,
                            checks: k,
                            wakeup_frequency,
                            check_flush,
                        },
                    ) => {
                        assert_eq!(
                            (*n, *k, *wakeup_frequency, *check_flush),
                            (cpus, checks, 10, false),
                            "{run}"
                        );
                    }
                    (
                        "memtest",
                        Tester::MemTest {
                            cpus: n,
                            max_loads,
                            percent_reads,
                        },
                    ) => {
                        assert_eq!(
                            (*n, *max_loads, *percent_reads),
                            (cpus, checks, 65),
                            "{run}"
                        );
                    }
                    _ => panic!("{run}: {t:?}"),
                }
                let p = ports(c);
                let want: Vec<String> = (0..cpus)
                    .map(|i| format!("system.ruby.l1_cntrl{i}.sequencer"))
                    .collect();
                assert_eq!(p, want, "{run}");
                assert_eq!(c.get("system.ruby", "randomization"), Some("true"), "{run}");
            }
            // Same sections; every ini value equal in the json; the json's
            // extra keys are child references.
            let names = |c: &Config| {
                let mut v: Vec<String> = c.sections.iter().map(|(n, _)| n.clone()).collect();
                v.sort();
                v
            };
            assert_eq!(names(&ini), names(&json), "{run}");
            for (section, keys) in &ini.sections {
                for (k, v) in keys {
                    assert_eq!(
                        json.get(section, k),
                        Some(v.as_str()),
                        "{run} [{section}] {k}"
                    );
                }
            }
            for (section, keys) in &json.sections {
                for (k, v) in keys {
                    if ini.get(section, k).is_none() {
                        let children = ini.get(section, "children").unwrap_or("");
                        assert!(
                            v.split(' ').all(|path| {
                                let name = path.rsplit('.').next().unwrap_or(path);
                                ini.section(path).is_some()
                                    && children.split(' ').any(|c| c == name)
                            }),
                            "{run} [{section}] {k}={v}"
                        );
                    }
                }
            }
            assert_eq!(
                json.get("system.ruby.l1_cntrl0", "type"),
                Some("L1Cache_Controller")
            );
        }
    }

    /// The real MESI_Two_Level runs (tests/data/gem5/mesi_two_level).
    #[test]
    fn real_mesi_two_level_runs() {
        for (run, checks) in [("clean-n4-s2-rich", 300), ("bug-me7-n4-s1-rich", 1000)] {
            let dir = std::path::Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/gem5/mesi_two_level"
            ))
            .join(run);
            for file in ["config.ini", "config.json"] {
                let bytes = std::fs::read(dir.join(file)).unwrap();
                let c = if file.ends_with("ini") {
                    parse_config_ini(&bytes)
                } else {
                    parse_config_json(&bytes)
                }
                .unwrap();
                assert_eq!(protocol(&c), Protocol::MesiTwoLevel, "{run} {file}");
                assert_eq!(
                    tester(&c),
                    Tester::RubyRandom {
                        cpus: 4,
                        checks,
                        wakeup_frequency: 10,
                        check_flush: false
                    },
                    "{run} {file}"
                );
                let want: Vec<String> = (0..4)
                    .map(|i| format!("system.ruby.l1_cntrl{i}.sequencer"))
                    .collect();
                assert_eq!(ports(&c), want, "{run} {file}");
            }
        }
    }

    #[test]
    fn ini_details() {
        let c = parse_config_ini(b"; comment\n[a]\ntype=X\r\nk = v=w\n\n[b]\ntype=X\nempty=\n")
            .unwrap();
        assert_eq!(c.get("a", "k"), Some(" v=w"));
        assert_eq!(c.get("b", "empty"), Some(""));
        assert_eq!(c.get("b", "none"), None);
        assert_eq!(c.get("c", "type"), None);
        assert_eq!(c.sections_of_type("X"), ["a", "b"]);
        let e = parse_config_ini(b"k=v\n").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (1, 1));
        let e = parse_config_ini(b"[a]\nnonsense\n").unwrap_err();
        assert_eq!(e.pos.line, 2);
        let e = parse_config_ini(b"[a\n").unwrap_err();
        assert_eq!(e.pos.line, 1);
        assert_eq!(parse_config_ini(b"").unwrap(), Config::default());
    }

    #[test]
    fn json_details() {
        let src = br#"{"type": "Root", "path": "root", "name": null, "f": 0.23500000000000001,
            "s": "a\"b\u00e9\ud83d\ude00", "l": [1, 2.5e3, true], "n": null, "e": [],
            "kid": {"type": "K", "name": "kid", "path": "kid", "x": -1,
                    "port": {"role": "GEM5 REQUESTOR", "peer": "other.in_ports[0]", "is_source": "True"}},
            "list": [{"type": "K", "name": "list0", "path": "list0"}, {"type": "K", "name": "list1", "path": "list1"}],
            "weird": {"a": 1}}"#;
        let c = parse_config_json(src).unwrap();
        assert_eq!(c.get("root", "type"), Some("Root"));
        assert_eq!(c.get("root", "children"), Some("kid list0 list1"));
        assert_eq!(c.sections[0].1[1].0, "children");
        assert_eq!(c.get("root", "f"), Some("0.23500000000000001"));
        assert_eq!(c.get("root", "s"), Some("a\"b\u{e9}\u{1f600}"));
        assert_eq!(c.get("root", "l"), Some("1 2.5e3 true"));
        assert_eq!(c.get("root", "n"), Some("Null"));
        assert_eq!(c.get("root", "e"), Some(""));
        assert_eq!(c.get("root", "kid"), Some("kid"));
        assert_eq!(c.get("root", "list"), Some("list0 list1"));
        assert_eq!(c.get("root", "weird"), None);
        assert_eq!(c.get("root", "name"), None);
        assert_eq!(c.get("kid", "x"), Some("-1"));
        assert_eq!(c.get("kid", "port"), Some("other.in_ports[0]"));
        assert_eq!(c.sections_of_type("K"), ["kid", "list0", "list1"]);

        for (bad, line) in [
            (&b"{\"type\": \"R\", \"path\": \"r\",\n \"x\": }"[..], 2),
            (b"[1, 2]", 1),
            (b"{\"a\": 1} x", 1),
            (b"{\"a\": \"\\q\"}", 1),
            (b"{\"a\": \"abc", 1),
            (b"{\"a\" 1}", 1),
            (b"", 1),
            (b"\xff", 1),
        ] {
            let e = parse_config_json(bad).unwrap_err();
            assert_eq!(e.pos.line, line, "{e}");
        }
        let deep = "[".repeat(100_000);
        assert!(parse_config_json(deep.as_bytes()).is_err());
    }

    /// Errors point at the offending byte (line and column in the file),
    /// at the top level and inside nested values.
    #[test]
    fn json_errors_point_at_line_and_column() {
        let deep = format!("{{\n \"a\":\n  {}{}}}", "[".repeat(300), "]".repeat(300));
        for (bad, line, col) in [
            ("{\"type\": \"R\", \"path\": \"r\",\n \"x\": }", 2, 7),
            ("{\"a\": \"\\q\"}", 1, 9),
            ("{\"a\": 1} x", 1, 10),
            ("{\"a\" 1}", 1, 6),
            ("{\"type\": \"R\", \"path\": \"r\",\n \"k\": {\"type\": \"K\",\n  \"s\": [1, \"\\ud800x\"]}}", 3, 19),
            (&deep, 3, 259),
        ] {
            let e = parse_config_json(bad.as_bytes()).unwrap_err();
            assert_eq!((e.pos.line, e.pos.col), (line, col), "{bad}: {e}");
        }
    }

    /// A config with one L1 (keys given), plus extra sections.
    fn synthetic(l1_keys: &str, extra: &str) -> Config {
        let src = format!(
            "[system.ruby.l1_cntrl0]\ntype=L1Cache_Controller\n{l1_keys}\nsequencer=system.ruby.l1_cntrl0.sequencer\n\n{extra}"
        );
        parse_config_ini(src.as_bytes()).unwrap()
    }

    #[test]
    fn protocol_fingerprints() {
        let mi = synthetic(
            "cacheMemory=system.ruby.l1_cntrl0.cacheMemory",
            "[system.ruby.dir_cntrl0]\ntype=Directory_Controller\n",
        );
        assert_eq!(protocol(&mi), Protocol::MiExample);
        let mesi = synthetic(
            "L1Icache=system.ruby.l1_cntrl0.L1Icache\nL1Dcache=system.ruby.l1_cntrl0.L1Dcache\nl2_select_num_bits=0\nto_l2_latency=1",
            "[system.ruby.l2_cntrl0]\ntype=L2Cache_Controller\nL2cache=system.ruby.l2_cntrl0.L2cache\n",
        );
        assert_eq!(protocol(&mesi), Protocol::MesiTwoLevel);
        assert_eq!(protocol(&mesi).name(), "MESI_Two_Level");
        let token = synthetic(
            "L1Dcache=x\nl2_select_num_bits=0\nN_tokens=8\nno_mig_atomic=true",
            "[system.ruby.l2_cntrl0]\ntype=L2Cache_Controller\n",
        );
        assert_eq!(protocol(&token), Protocol::Unknown);
        let hammer = synthetic(
            "L1Icache=a\nL1Dcache=b\nL2cache=c\nno_mig_atomic=true",
            "[system.ruby.dir_cntrl0]\ntype=Directory_Controller\nprobeFilter=system.ruby.dir_cntrl0.probeFilter\nprobe_filter_enabled=false\n",
        );
        assert_eq!(protocol(&hammer), Protocol::MoesiHammer);
        assert_eq!(protocol(&hammer).name(), "MOESI_hammer");
        let amd = parse_config_ini(
            b"[system.cp_cntrl0]\ntype=CorePair_Controller\nsequencer=system.cp_cntrl0.sequencer\nsequencer1=system.cp_cntrl0.sequencer1\nL2cache=x\n\n[system.dir_cntrl0]\ntype=Directory_Controller\n",
        )
        .unwrap();
        assert_eq!(protocol(&amd), Protocol::MoesiAmdBase);
        assert_eq!(protocol(&amd).name(), "MOESI_AMD_Base");
        assert_eq!(protocol(&Config::default()), Protocol::Unknown);
        assert_eq!(Protocol::Unknown.name(), "unknown");
        assert_eq!(tester(&Config::default()), Tester::Other { cpus: 0 });
        let se = parse_config_ini(b"[system.cpu0]\ntype=X86TimingSimpleCPU\n[system.cpu1]\ntype=X86TimingSimpleCPU\n[system.cpu0.isa]\ntype=X86ISA\n").unwrap();
        assert_eq!(tester(&se), Tester::Other { cpus: 2 });
        assert!(ports(&se).is_empty());
        let models: Vec<String> = cpus(&se).into_iter().map(|c| c.model).collect();
        assert_eq!(models, ["X86TimingSimpleCPU", "X86TimingSimpleCPU"]);
    }
}
