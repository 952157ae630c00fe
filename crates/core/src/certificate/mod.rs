//! Certificates: why a history violates a model, as a short labelled cycle
//! (or the thin-air read), mapped back to the operations' text positions;
//! each derived edge with its justification, re-checked by the validator
//! ([`validate`], [`derive`](mod@derive), [`brute`]).

pub mod brute;
pub mod derive;
pub mod validate;
pub mod witness;

use serde::Serialize;

use crate::history::{History, OpId};
use crate::relation::Edge;
pub use derive::{Justification, Rule};

/// The relation an edge of a cycle belongs to (the papers' names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rel {
    /// program order
    Po,
    /// write-read (reads-from)
    Wr,
    /// read-write: `wr⁻¹ ; R_WW` for the model's store order `R`
    Rw,
    /// conflict `cf[R] = R_WR ; wr⁻¹` (CCv)
    Cf,
    /// rule 2 of a local happens-before `hb_o` (CM)
    HbO,
    /// CCM's partial store order
    Pww,
    /// wCCM's weak partial store order
    Wpww,
    /// wSC's store order
    St,
    /// preserved program order `po \ (W×R)` (TSO)
    Ppo,
    /// program order on one variable
    PoLoc,
    /// external write-read: `wr` between operations not related by `po`
    Wre,
    /// PSO's preserved program order
    PoPso,
    /// a store-order pair forced by an RMW's atomicity
    Rmw,
    /// a store-order pair forced by a `@final` observation
    Final,
    /// RMO's preserved program order (the pairs fences order)
    PoRmo,
    /// ARMv8's barrier-ordered-before (aarch64.cat `bob`)
    Bob,
    /// ARMv8's atomic-ordered-before (aarch64.cat `aob`)
    Aob,
}

impl Rel {
    /// Whether the edge is a pair of a (partial) store order the engines
    /// derive: `pww`, `wpww`, `st`.
    pub fn is_store_order(self) -> bool {
        matches!(self, Rel::Pww | Rel::Wpww | Rel::St)
    }

    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Rel::Po => "po",
            Rel::Wr => "wr",
            Rel::Rw => "rw",
            Rel::Cf => "cf",
            Rel::HbO => "hb_o",
            Rel::Pww => "pww",
            Rel::Wpww => "wpww",
            Rel::St => "st",
            Rel::Ppo => "ppo",
            Rel::PoLoc => "po-loc",
            Rel::Wre => "wre",
            Rel::PoPso => "po-pso",
            Rel::Rmw => "rmw",
            Rel::Final => "final",
            Rel::PoRmo => "po-rmo",
            Rel::Bob => "bob",
            Rel::Aob => "aob",
        }
    }
}

/// The bad pattern or acyclicity condition a history breaks (written and
/// read by its [`Pattern::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// `co = (po ∪ wr)⁺` is cyclic.
    CyclicCO,
    /// a read of the initial value is causally preceded by a write of its variable.
    WriteCOInitRead,
    /// a read of a value that no write wrote.
    ThinAirRead,
    /// a `@final` observation of a value that no write wrote.
    ThinAirFinal,
    /// `w1 wr r1`, `w1 co w2 co r1` with `w2` another write of the variable.
    WriteCORead,
    /// `cf ∪ co` is cyclic.
    CyclicCF,
    /// a write is `hb_o`-before a read of the initial value (`r po* o`).
    WriteHBInitRead,
    /// some `hb_o` is cyclic.
    CyclicHB,
    /// `po ∪ wr ∪ pww ∪ rw[pww]` is cyclic.
    CyclicPww,
    /// `ppo ∪ wre ∪ wpww ∪ rw[wpww]` is cyclic.
    CyclicWpwwPpo,
    /// `po-loc ∪ wre ∪ wpww ∪ rw[wpww]` is cyclic.
    CyclicWpwwPoLoc,
    /// wSC's `hb = (po ∪ wr ∪ st ∪ rw[st])⁺` is cyclic.
    CyclicSt,
    /// SC: every store order closes a cycle in `po ∪ wr ∪ ww ∪ rw`.
    CyclicSc,
    /// TSO/PSO: every store order closes a cycle in `po-loc ∪ wr ∪ ww ∪ rw` (uniprocessor).
    CyclicUniproc,
    /// TSO: every store order closes a cycle in `ppo ∪ wre ∪ ww ∪ rw`.
    CyclicTso,
    /// PSO: every store order closes a cycle in `po-pso ∪ wre ∪ ww ∪ rw`.
    CyclicPso,
    /// RMO: every store order closes a cycle in `po-rmo ∪ wre ∪ ww ∪ rw`.
    CyclicRmo,
    /// ARMv8: `ob = bob ∪ aob ∪ rfe ∪ coe ∪ fre` is cyclic with the store
    /// order internal visibility forces.
    CyclicOb,
    /// The completion search found no store order (no single cycle explains
    /// it); the validator confirms it by brute force ([`brute`]).
    NoStoreOrder,
}

impl Pattern {
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::CyclicCO => "CyclicCO",
            Pattern::WriteCOInitRead => "WriteCOInitRead",
            Pattern::ThinAirRead => "ThinAirRead",
            Pattern::ThinAirFinal => "ThinAirFinal",
            Pattern::WriteCORead => "WriteCORead",
            Pattern::CyclicCF => "CyclicCF",
            Pattern::WriteHBInitRead => "WriteHBInitRead",
            Pattern::CyclicHB => "CyclicHB",
            Pattern::CyclicPww => "CyclicPww",
            Pattern::CyclicWpwwPpo => "CyclicWpww(ppo)",
            Pattern::CyclicWpwwPoLoc => "CyclicWpww(po-loc)",
            Pattern::CyclicSt => "CyclicSt",
            Pattern::CyclicSc => "CyclicSc",
            Pattern::CyclicUniproc => "CyclicUniproc",
            Pattern::CyclicTso => "CyclicTso",
            Pattern::CyclicPso => "CyclicPso",
            Pattern::CyclicRmo => "CyclicRmo",
            Pattern::CyclicOb => "CyclicOb",
            Pattern::NoStoreOrder => "NoStoreOrder",
        }
    }

    /// Every pattern.
    pub const ALL: [Pattern; 19] = [
        Pattern::CyclicCO,
        Pattern::WriteCOInitRead,
        Pattern::ThinAirRead,
        Pattern::ThinAirFinal,
        Pattern::WriteCORead,
        Pattern::CyclicCF,
        Pattern::WriteHBInitRead,
        Pattern::CyclicHB,
        Pattern::CyclicPww,
        Pattern::CyclicWpwwPpo,
        Pattern::CyclicWpwwPoLoc,
        Pattern::CyclicSt,
        Pattern::CyclicSc,
        Pattern::CyclicUniproc,
        Pattern::CyclicTso,
        Pattern::CyclicPso,
        Pattern::CyclicRmo,
        Pattern::CyclicOb,
        Pattern::NoStoreOrder,
    ];

    /// The pattern of a name [`Pattern::name`] gives.
    pub fn from_name(s: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.name() == s)
    }
}

impl Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Pattern, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Pattern::from_name(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("`{s}` is not a pattern")))
    }
}

/// One edge `from -rel-> to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Step {
    pub from: OpId,
    pub rel: Rel,
    pub to: OpId,
}

/// A violation with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub pattern: Pattern,
    /// A cycle (`cycle[i].to == cycle[i+1].from`, last back to first);
    /// empty for a thin-air read.
    pub cycle: Vec<Step>,
    /// Operations the pattern names beyond the cycle, with their role (the
    /// thin-air read; the write an `rw` edge's read reads from; the observer
    /// `o` of an `hb_o`).
    pub ops: Vec<(OpId, &'static str)>,
    /// Why each derived edge of the cycle holds (and, recursively, each
    /// derived premise), premises first: filled in by the validator's own
    /// re-derivation ([`derive::justify`]) and checked rule by rule.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub justifications: Vec<Justification>,
    /// How the validator confirmed the violation: on the history itself,
    /// on a shrunk sub-history of it, or by brute force (a violation with
    /// no cycle); `None` when it was not (or not yet) confirmed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certified_by: Option<String>,
}

impl Violation {
    /// A violation whose evidence is a cycle.
    pub fn cycle(pattern: Pattern, cycle: Vec<Step>) -> Violation {
        Violation {
            pattern,
            cycle,
            ops: Vec::new(),
            justifications: Vec::new(),
            certified_by: None,
        }
    }

    /// A cycle of labelled edges `(from, to, rel)` as a violation, with
    /// consecutive program-order steps merged.
    pub fn from_edges(pattern: Pattern, edges: Vec<(u32, u32, Rel)>) -> Violation {
        let steps = edges
            .into_iter()
            .map(|(a, b, rel)| Step {
                from: a as usize,
                rel,
                to: b as usize,
            })
            .collect();
        Violation::cycle(pattern, compress(steps, &[Rel::Po, Rel::Ppo, Rel::PoLoc]))
    }

    /// A cycle of labelled edges (the relation algebra's certificate) as a
    /// violation, with consecutive program-order steps merged.
    pub fn from_cycle(pattern: Pattern, cycle: Vec<Edge<Rel>>) -> Violation {
        let steps = cycle
            .into_iter()
            .map(|e| Step {
                from: e.from,
                rel: e.label,
                to: e.to,
            })
            .collect();
        Violation::cycle(pattern, compress(steps, &[Rel::Po, Rel::Ppo, Rel::PoLoc]))
    }

    /// The cycle started at its least operation that is not an initial
    /// write (as `h` numbers them: the first thread's first), so that one
    /// cycle prints one way whichever of its edges an engine closed it by.
    pub fn starting_at_first_op(mut self, h: &History) -> Violation {
        let first = (0..self.cycle.len())
            .filter(|&i| !h.is_init(self.cycle[i].from))
            .min_by_key(|&i| self.cycle[i].from);
        if let Some(i) = first {
            self.cycle.rotate_left(i);
        }
        self
    }

    /// The operations the evidence names, each once: the cycle's in cycle
    /// order, then the other named operations with their role.
    pub fn events(&self) -> Vec<(OpId, Option<&'static str>)> {
        let mut out: Vec<(OpId, Option<&'static str>)> = Vec::new();
        for s in &self.cycle {
            if !out.iter().any(|&(o, _)| o == s.from) {
                out.push((s.from, None));
            }
        }
        for &(o, role) in &self.ops {
            if !out.iter().any(|&(p, _)| p == o) {
                out.push((o, Some(role)));
            }
        }
        out
    }

    /// Human-readable evidence, e.g.
    /// `t0:W(x,1)@3:5 -po-> t0:R(y,0)@3:12 -rw-> ...`.
    pub fn explain(&self, h: &History) -> String {
        use crate::history::push_decimal;
        let at = |s: &mut String, o: OpId| {
            h.describe_into(s, o);
            if !h.is_init(o) {
                let pos = h.ops[o].pos;
                s.push('@');
                push_decimal(s, pos.line.into());
                s.push(':');
                push_decimal(s, pos.col.into());
            }
        };
        let mut s = String::new();
        if let Some(first) = self.cycle.first() {
            at(&mut s, first.from);
            for step in &self.cycle {
                s.push_str(" -");
                s.push_str(step.rel.name());
                s.push_str("-> ");
                at(&mut s, step.to);
            }
        }
        for &(o, role) in &self.ops {
            if !s.is_empty() {
                s.push_str("; ");
            }
            s.push_str(role);
            s.push_str(": ");
            at(&mut s, o);
        }
        s
    }
}

/// Merges consecutive steps of a transitive relation (`po`) into one.
pub(crate) fn compress(cycle: Vec<Step>, transitive: &[Rel]) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(cycle.len());
    for step in cycle {
        match out.last_mut() {
            Some(last) if last.rel == step.rel && transitive.contains(&step.rel) => {
                last.to = step.to;
            }
            _ => out.push(step),
        }
    }
    if out.len() > 1 {
        let (first, last) = (out[0], out[out.len() - 1]);
        if first.rel == last.rel && transitive.contains(&first.rel) {
            out[0].from = last.from;
            out.pop();
        }
    }
    out
}
