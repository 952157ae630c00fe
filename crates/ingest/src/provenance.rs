//! Where a checked history comes from, in terms no input format owns:
//! the run that made it ([`RunMeta`], its `@key value` metadata read once
//! into typed fields) and each operation's origin ([`Origins`]: its lane,
//! what the input says it did, its interval on the input's clock, the
//! lines of the source file that hold it). Ingestion builds both (a gem5
//! tester run converts its accesses in `gem5::tester`); reports read only
//! these (docs/design/layers.md, "What crosses each boundary").

use std::fmt::Write as _;
use std::path::PathBuf;

use memconform_core::check::promise::Declared;
use memconform_core::history::History;
use memconform_core::models::Model;

/// What a history says of the run that made it: the metadata its input
/// gave (`@protocol`, `@seed`, ... in a `.hist`; a gem5 run's
/// configuration, set by ingestion), each key's first value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunMeta {
    /// The Ruby protocol (`@protocol`).
    pub protocol: Option<String>,
    /// The protocol variant, e.g. a mutant's id (`@variant`).
    pub variant: Option<String>,
    /// The run's seed, as written (`@seed`).
    pub seed: Option<String>,
    /// How many CPUs or tester ports (`@cpus`).
    pub cpus: Option<String>,
    /// The tester, `ruby-random` or `memtest` (`@tester`).
    pub tester: Option<String>,
    /// The cores' CPU model, `X86O3CPU` or `mixed` (`@cpu_type`).
    pub cpu_type: Option<String>,
    /// The model the run or file promises (`@promise`, `@expected_model`).
    pub promise: Option<Declared>,
    /// The SE client's program shape, `MP` (`@shape`).
    pub shape: Option<String>,
    /// Whether the history is the SE client's output (`@source client`):
    /// its values are the client's own words.
    pub client: bool,
    /// The SE client's round (`@round`), when it is a number.
    pub round: Option<u64>,
    /// When that round ended, in simulated nanoseconds (`@time_ns`), when
    /// it is a number.
    pub time_ns: Option<u64>,
}

impl RunMeta {
    /// Reads `h`'s metadata once: each key's first value; `expected_model`
    /// (which `@promise` becomes) parsed by [`Declared::parse`].
    pub fn of(h: &History) -> RunMeta {
        let first = |key: &str| {
            h.meta
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let text = |key: &str| first(key).map(str::to_string);
        let number = |key: &str| first(key).and_then(|v| v.parse().ok());
        RunMeta {
            protocol: text("protocol"),
            variant: text("variant"),
            seed: text("seed"),
            cpus: text("cpus"),
            tester: text("tester"),
            cpu_type: text("cpu_type"),
            promise: first("expected_model").and_then(Declared::parse),
            shape: text("shape"),
            client: h.meta.iter().any(|(k, v)| k == "source" && v == "client"),
            round: number("round"),
            time_ns: number("time_ns"),
        }
    }

    /// The promised model, when memconform decides it (the
    /// `expected_model` column).
    pub fn expected_model(&self) -> Option<Model> {
        self.promise.and_then(Declared::model)
    }
}

/// The words an input uses for what [`Origins`] records, so that a report
/// names an origin as the input does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terms {
    /// What made the input (`gem5`).
    pub input: &'static str,
    /// What a lane is (`port`).
    pub lane: &'static str,
    /// What the clock counts (`tick`), and a timeline's axis (`gem5 tick`).
    pub clock: &'static str,
    pub axis: &'static str,
    /// What an operation's location is (`byte`).
    pub location: &'static str,
    /// What the source file is (`trace`).
    pub file: &'static str,
}

/// One operation's origin in its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpOrigin {
    /// Its lane: an index into [`Origins::lanes`].
    pub lane: u32,
    /// What the input says it did: a write (else a read) of `value` at
    /// `location`, the value as the input wrote it (the history's values
    /// are identities).
    pub write: bool,
    pub location: u64,
    pub value: u64,
    /// Its interval on the input's clock: issued, completed.
    pub time: (u64, u64),
    /// The lines of the source file that issue and complete it.
    pub lines: (u64, u64),
    /// A remark the reports add in brackets (how a read was matched to a
    /// write when not to the latest: `stale`, `ambiguous`, `no write`).
    pub remark: Option<&'static str>,
}

/// Where a history's operations come from.
#[derive(Debug, Clone)]
pub struct Origins {
    pub terms: Terms,
    /// The lanes' names, top to bottom (`port 0`, `port 1`, ...).
    pub lanes: Vec<String>,
    /// By operation, after the initial writes (the history's op ids less
    /// its initial writes).
    pub ops: Vec<OpOrigin>,
    /// The file the lines are in (a gem5 run's debug trace).
    pub source: Option<PathBuf>,
}

impl Origins {
    /// Operation `i`'s origin (`i` counted after the initial writes) as
    /// text, in the input's terms: lane, what it did, when it was issued
    /// and completed and at which lines (`source`: the file's name, before
    /// the issuing line), and its remark.
    pub fn text(&self, i: usize, source: Option<&str>) -> String {
        let o = &self.ops[i];
        let t = &self.terms;
        let mut out = String::with_capacity(128);
        let _ = write!(
            out,
            "{} {} of {} 0x{:x} = {} (0x{:02x}), issued {} {} (",
            self.lanes[o.lane as usize],
            if o.write { "write" } else { "read" },
            t.location,
            o.location,
            o.value,
            o.value,
            t.clock,
            o.time.0,
        );
        if let Some(s) = source {
            let _ = write!(out, "{s}:");
        }
        let _ = write!(
            out,
            "{}), completed {} {} (line {})",
            o.lines.0, t.clock, o.time.1, o.lines.1
        );
        if let Some(r) = o.remark {
            let _ = write!(out, " [{r}]");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(text: &str) -> History {
        let raw = memconform_parsers::hist::parse_hist(text.as_bytes()).expect("parses");
        History::from_raw(&raw[0], 0).expect("a valid history")
    }

    /// Each key's first value; `@promise` read as the declared model; a
    /// number that is none is no round.
    #[test]
    fn run_meta_reads_each_key_once_and_types_it() {
        let h = history(
            "@protocol MESI_Two_Level\n@seed 7\n@promise tso\n@shape MP\n@round x\n@time_ns 12\n@source client\nt0: W(x,1)\n",
        );
        let m = RunMeta::of(&h);
        assert_eq!(m.protocol.as_deref(), Some("MESI_Two_Level"));
        assert_eq!(m.seed.as_deref(), Some("7"));
        assert_eq!(m.promise, Some(Declared::Model(Model::Tso)));
        assert_eq!(m.expected_model(), Some(Model::Tso));
        assert_eq!(m.shape.as_deref(), Some("MP"));
        assert_eq!((m.round, m.time_ns), (None, Some(12)));
        assert!(m.client);
        assert_eq!(m.variant, None);
        let plain = RunMeta::of(&history("t0: W(x,1)\n"));
        assert_eq!(plain, RunMeta::default());
    }

    /// An origin reads as the input names it.
    #[test]
    fn an_origin_is_told_in_the_inputs_terms() {
        let o = Origins {
            terms: Terms {
                input: "gem5",
                lane: "port",
                clock: "tick",
                axis: "gem5 tick",
                location: "byte",
                file: "trace",
            },
            lanes: vec!["port 0".into(), "port 3".into()],
            ops: vec![OpOrigin {
                lane: 1,
                write: false,
                location: 0x3e9,
                value: 5,
                time: (100, 250),
                lines: (12, 15),
                remark: Some("stale"),
            }],
            source: None,
        };
        assert_eq!(
            o.text(0, Some("trace.txt")),
            "port 3 read of byte 0x3e9 = 5 (0x05), issued tick 100 (trace.txt:12), completed tick 250 (line 15) [stale]"
        );
        assert!(o.text(0, None).contains("issued tick 100 (12)"));
    }
}
