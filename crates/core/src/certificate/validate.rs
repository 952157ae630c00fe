//! An independent validator of certificates. It shares nothing with the
//! engines but the History type: its own relations (adjacency lists), its own
//! acyclicity test (Kahn), its own memory simulation; a violation's derived
//! edges are re-derived and their justifications checked by
//! [`super::derive`], a violation with no cycle decided by [`super::brute`];
//! witnesses (store orders, interleavings) are checked by [`super::witness`].

use super::brute::{self, Brute};
use super::derive::{self, Family, Pi};
use super::witness::{armv8_aob, armv8_bob, po_loc_llh, preserved, rmo_po};
pub use super::witness::{interleaving, store_order, StoreModel};
use super::{Pattern, Rel, Violation};
use crate::history::{History, OpId, OpKind};

/// Checks a violation ([`violation_in`] with no model given). A cycle of
/// the uniprocessor graph, which TSO and PSO share, is read as PSO's and,
/// failing that, as TSO's: it then shows at least that TSO is violated
/// (the pipeline, which knows the model, checks it exactly).
pub fn violation(h: &History, v: &Violation) -> Result<(), String> {
    match v.pattern {
        Pattern::CyclicUniproc => violation_in(h, v, Some(StoreModel::Pso))
            .or_else(|_| violation_in(h, v, Some(StoreModel::Tso))),
        _ => violation_in(h, v, None),
    }
}

/// Checks a violation on `h`: its cycle closes; each base edge is of its
/// relation (the pattern's own: `ppo` is wCCM's in a wCCM cycle, TSO's in
/// a TSO one); each derived edge has a justification whose rule applies to
/// its premises, recursively ([`derive::check`]); when the certificate
/// carries none, the validator derives them itself ([`derive::justify`]),
/// so an edge no rule forces is rejected by name. A violation with no
/// cycle (`NoStoreOrder`) is decided by brute force ([`brute`]), on
/// histories small enough. `store` is the store-order model checked (it
/// tells TSO from PSO for the uniprocessor graph, and is needed for
/// `NoStoreOrder`).
pub fn violation_in(h: &History, v: &Violation, store: Option<StoreModel>) -> Result<(), String> {
    match v.pattern {
        Pattern::ThinAirRead => {
            let Some(&(r, _)) = v.ops.first() else {
                return Err("thin-air certificate names no read".into());
            };
            return if h.ops[r].kind == OpKind::Read && h.rf(r).is_none() {
                Ok(())
            } else {
                Err(format!("{} is not a thin-air read", h.describe(r)))
            };
        }
        Pattern::ThinAirFinal => {
            let Some(&(w, _)) = v.ops.first() else {
                return Err("thin-air final certificate names no variable".into());
            };
            let x = h.ops[w].var;
            return if h.is_init(w) && h.thin_air_finals().any(|(y, _)| Some(y) == x) {
                Ok(())
            } else {
                Err(format!(
                    "no @final of {}'s variable observes a value never written",
                    h.describe(w)
                ))
            };
        }
        Pattern::NoStoreOrder => {
            let Some(model) = store else {
                return Err("NoStoreOrder names no store-order model to decide".into());
            };
            return match brute::decide(h, model) {
                Brute::Violated { .. } => Ok(()),
                Brute::Consistent(order) => Err(format!(
                    "NoStoreOrder, but a store order satisfies the model: {}",
                    describe_order(h, &order)
                )),
                Brute::TooLarge(why) => {
                    Err(format!("NoStoreOrder not decided by brute force: {why}"))
                }
            };
        }
        _ => {}
    }
    let family = Family::of(v.pattern, store).expect("a cycle pattern");
    let c = &v.cycle;
    if c.is_empty() {
        return Err("empty cycle".into());
    }
    // the causal patterns name one relation each: a CC cycle is `rw[co] ;
    // co` (one rw edge), CCv's is in `co ∪ cf`, CyclicCO's in `co`
    let count = |rel: Rel| c.iter().filter(|s| s.rel == rel).count();
    let shape = match v.pattern {
        Pattern::CyclicCO => count(Rel::Rw) + count(Rel::Cf) == 0,
        Pattern::WriteCORead | Pattern::WriteCOInitRead => {
            count(Rel::Rw) == 1 && count(Rel::Cf) == 0
        }
        Pattern::CyclicCF => count(Rel::Rw) == 0,
        _ => true,
    };
    if !shape {
        return Err(format!("a {} cycle of the wrong shape", v.pattern.name()));
    }
    let (pi, external) = family.base();
    for (i, s) in c.iter().enumerate() {
        let next = &c[(i + 1) % c.len()];
        if s.from >= h.n() || s.to >= h.n() {
            return Err(format!("edge {i} names an operation not in the history"));
        }
        if s.to != next.from {
            return Err(format!(
                "edge {i} ends at {} but edge {} starts at {}",
                s.to,
                i + 1,
                next.from
            ));
        }
        let (a, b) = (s.from, s.to);
        let derived = !family.rules(s.rel).is_empty();
        let ok = match s.rel {
            _ if derived => true, // checked below, by its justification
            Rel::Wr if !external => h.rf(b) == Some(a),
            Rel::Wre if external => h.rf(b) == Some(a) && !h.po_before(a, b) && !h.po_before(b, a),
            Rel::Po if pi == Pi::Po => h.po_before(a, b),
            Rel::PoLoc if pi == Pi::PoLoc => {
                h.po_before(a, b) && h.ops[a].var.is_some() && h.ops[a].var == h.ops[b].var
            }
            Rel::Ppo if pi == Pi::PpoTso => preserved(h, StoreModel::Tso, a, b),
            Rel::Ppo if pi == Pi::PpoW => derive::wccm_ppo(h, a, b),
            Rel::PoPso if pi == Pi::PoPso => preserved(h, StoreModel::Pso, a, b),
            Rel::PoLoc if pi == Pi::PoLocLlh => po_loc_llh_plus(h, a, b),
            Rel::PoRmo if pi == Pi::PoRmo => rmo_po(h, a, b),
            Rel::Bob if pi == Pi::Ob => armv8_bob(h, a, b),
            Rel::Aob if pi == Pi::Ob => armv8_aob(h, a, b),
            _ => false,
        };

        if !ok {
            return Err(format!(
                "{} -{}-> {} is not a {} edge of {}",
                h.describe(a),
                s.rel.name(),
                h.describe(b),
                s.rel.name(),
                v.pattern.name()
            ));
        }
    }
    if v.justifications.is_empty() && c.iter().any(|s| !family.rules(s.rel).is_empty()) {
        let mut justified = v.clone();
        justified.justifications = derive::justify(h, v, store)?;
        derive::check(h, &justified, store)
    } else {
        derive::check(h, v, store)
    }
}

/// A store order in words: `x: W(x,1) W(x,2); y: …`.
fn describe_order(h: &History, order: &[Vec<OpId>]) -> String {
    order
        .iter()
        .enumerate()
        .map(|(x, ws)| {
            let ws: Vec<String> = ws.iter().skip(1).map(|&w| h.describe(w)).collect();
            format!("{}: {}", h.vars[x], ws.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Up to this many operations a projection's program order is compared
/// pair by pair; above it, thread by thread in linear time (a shrink that
/// ran out of time may leave a sub-history of 10⁵ operations).
const PROJECTION_PAIRS_MAX: usize = 4096;

/// Checks that `sub` is a projection of `h` by `origin` (`origin[o]`: the
/// operation of `h` that `sub`'s `o` is): the same operations (kind,
/// variable, value, thread, input position), program order restricted,
/// every kept read reading from (the image of) its writer, every kept
/// `@final` one of `h`'s whose observed write is kept. Every model here is
/// monotone in the history (adding operations only adds to each relation
/// its rules read), so a violation of `sub` is one of `h`.
pub fn projection(h: &History, sub: &History, origin: &[OpId]) -> Result<(), String> {
    if origin.len() != sub.n() {
        return Err("the projection map does not cover the sub-history".into());
    }
    fn var_name(g: &History, o: OpId) -> Option<&str> {
        g.ops[o].var.map(|x| g.vars[x].as_str())
    }
    let mut used = vec![false; h.n()];
    for (o, &p) in origin.iter().enumerate() {
        if p >= h.n() || used[p] {
            return Err(format!("operation {o} maps outside or twice"));
        }
        used[p] = true;
        let (a, b) = (&sub.ops[o], &h.ops[p]);
        let thread = |g: &History, t: Option<usize>| t.map(|t| g.threads[t].name.clone());
        let same = a.kind == b.kind
            && a.ann == b.ann
            && var_name(sub, o) == var_name(h, p)
            && a.value == b.value
            && sub.is_init(o) == h.is_init(p)
            && a.rmw.map(|r| origin[r]) == b.rmw
            && (sub.is_init(o) || (a.pos == b.pos && a.ticks == b.ticks))
            && thread(sub, a.thread) == thread(h, b.thread);
        if !same {
            return Err(format!(
                "{} is not {} of the history",
                sub.describe(o),
                h.describe(p)
            ));
        }
        if sub.rf(o).map(|w| origin[w]) != h.rf(p) {
            return Err(format!(
                "{} reads from another write than in the history",
                sub.describe(o)
            ));
        }
    }
    let po_differs = |a: OpId, b: OpId| {
        format!(
            "program order between {} and {} differs from the history's",
            sub.describe(a),
            sub.describe(b)
        )
    };
    if sub.n() <= PROJECTION_PAIRS_MAX {
        for a in 0..sub.n() {
            for b in 0..sub.n() {
                if sub.po_before(a, b) != h.po_before(origin[a], origin[b]) {
                    return Err(po_differs(a, b));
                }
            }
        }
    } else {
        // In O(k): across threads and from initial writes program order is
        // the same in both (threads and initial writes correspond, above).
        // Within a thread it is an interval order of the ticks when the
        // thread is timed (equal above, so equal intervals), else the
        // thread's total order: the same exactly when the images of
        // consecutive operations come in the history's order too.
        for t in &sub.threads {
            let Some(first) = t.ops.clone().next() else {
                continue;
            };
            let ht = h.ops[origin[first]].thread.expect("a thread operation");
            if t.timed != h.threads[ht].timed {
                return Err(format!(
                    "thread {} is timed in one history and not in the other",
                    t.name
                ));
            }
            for (a, b) in t.ops.clone().zip(t.ops.clone().skip(1)) {
                let same = if t.timed {
                    sub.po_before(a, b) == h.po_before(origin[a], origin[b])
                } else {
                    origin[a] < origin[b]
                };
                if !same {
                    return Err(po_differs(a, b));
                }
            }
        }
    }
    for &(x, v) in &sub.finals {
        let name = &sub.vars[x];
        if !h.finals.iter().any(|&(y, u)| &h.vars[y] == name && u == v) {
            return Err(format!("@final {name}={v} is not the history's"));
        }
        let observed: Vec<OpId> = sub
            .writes_of(x)
            .iter()
            .copied()
            .filter(|&w| sub.ops[w].value == v)
            .collect();
        if observed.is_empty()
            && h.writes_of(h.vars.iter().position(|y| y == name).expect("named"))
                .iter()
                .any(|&w| h.ops[w].value == v)
        {
            return Err(format!("@final {name}={v} lost the write it observes"));
        }
    }
    Ok(())
}

/// `(po-loc_llh)⁺` (consistency-framework-2k §4.2): a certificate's `po-loc`
/// step stands for a path of them ([`Violation::from_cycle`] compresses
/// consecutive ones), so under RMO a read before a read of its variable is
/// one when a write of that variable lies between them in `po`.
fn po_loc_llh_plus(h: &History, a: OpId, b: OpId) -> bool {
    po_loc_llh(h, a, b)
        || (a..b).any(|w| h.is_write(w) && po_loc_llh(h, a, w) && po_loc_llh(h, w, b))
}
