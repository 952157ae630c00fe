//! CM, causal memory: CC and no WriteHBInitRead or CyclicHB
//! (causal-consistency-datalog Table 3, Def. 4).

use crate::certificate::{Pattern, Rel, Violation};
use crate::complete::violation;
use crate::history::History;
use crate::models::cc;
use crate::models::common::causal;
use crate::models::hbo::{local_hb, Causality};
use crate::relation::chains::{Frontier, NONE};
use crate::relation::program::{consecutive_sources, Lanes};

/// CM: CC, and every `hb_o` acyclic with no write `hb_o`-before a read of
/// the initial value `r po* o`. `hb_o` only grows along `po`
/// (causal-consistency-datalog Thm 2), so the po-maximal `o` suffice.
pub fn check(h: &History) -> Result<(), Violation> {
    cc::check(h)?;
    let wr = h.wr();
    let co = causal(h, &wr)?;
    let causality = Causality {
        co: &co,
        co_inv: &co.transpose(),
        pi_inv: &h.po().transpose(),
        gens: [(Rel::Po, h.po()), (Rel::Wr, &wr)],
        rule2: Rel::HbO,
        cyclic: Pattern::CyclicHB,
        init_read: Pattern::WriteHBInitRead,
    };
    for o in h.po_maximal() {
        local_hb(h, &causality, o)?;
    }
    Ok(())
}

/// CM at scale: `co` as frontiers (CC's), then for each po-maximal `o` the
/// rule-2 closure of `hb_o` grown on them and undone afterwards. Rule 2 fires
/// only at reads `r po* o` (thread(o)'s lanes, up to `o`), at the first such
/// read a write reaches on each lane; later ones follow through
/// `rf(r) hb_o rf(r′)` for consecutive same-variable reads `r po r′ po* o`
/// (rule 2 on `rf(r) co r′`). Edges stay inside `past(o)`: a node that
/// reaches a rule site reaches `o`. `Ok(false)`: the deadline passed first.
pub fn check_scaled(
    h: &History,
    lanes: &Lanes,
    deadline: Option<std::time::Instant>,
) -> Result<bool, Violation> {
    let mut co = cc::check_scaled(h, lanes)?;
    let rule = Rule2 {
        rel: Rel::HbO,
        cyclic: Pattern::CyclicHB,
        init_read: Pattern::WriteHBInitRead,
    };
    local_hbs(h, lanes, &mut co, &rule, deadline, None)
}

/// How rule-2 edges are labelled and their cycles named.
pub(crate) struct Rule2 {
    pub rel: Rel,
    pub cyclic: Pattern,
    pub init_read: Pattern,
}

/// Every po-maximal observer's `hb_o` on `co` (undone after each), its
/// rule-2 edges collected in `derived` when given. `Ok(false)`: the
/// deadline passed first.
pub(crate) fn local_hbs(
    h: &History,
    lanes: &Lanes,
    co: &mut Frontier,
    rule: &Rule2,
    deadline: Option<std::time::Instant>,
    mut derived: Option<&mut Vec<(u32, u32)>>,
) -> Result<bool, Violation> {
    co.set_trail(true);
    for o in h.po_maximal() {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            co.set_trail(false);
            return Ok(false);
        }
        let t = h.thread_of(o).expect("a thread operation");
        // rule sites: per lane of t (its sequence in po ∪ wr), the reads up to o
        let sites: Vec<(u32, u32)> = lanes.of_thread[t]
            .clone()
            .map(|l| {
                let ops = &lanes.lanes[l as usize];
                let cut = ops.partition_point(|&r| r as usize == o || h.po_before(r as usize, o));
                (co.graph().seq_of_op(ops[0]), cut as u32)
            })
            .collect();
        let mark = co.mark();
        let result = hb_o(h, lanes, t, o, &sites, co, rule, derived.as_deref_mut());
        co.undo(mark);
        result?;
    }
    co.set_trail(false);
    Ok(true)
}

/// Grows `hb_o` on `co`; a cycle is the rule's pattern (its init-read
/// pattern at an initial write).
#[allow(clippy::too_many_arguments)]
fn hb_o(
    h: &History,
    lanes: &Lanes,
    t: usize,
    o: usize,
    sites: &[(u32, u32)],
    co: &mut Frontier,
    rule: &Rule2,
    mut derived: Option<&mut Vec<(u32, u32)>>,
) -> Result<(), Violation> {
    let cut = |q: u32| sites.iter().find(|s| s.0 == q).map(|s| s.1);
    let fire =
        |co: &Frontier, x: u32, slot: usize, new: u32, old: u32, work: &mut Vec<(u32, u32)>| {
            if !h.is_write(x as usize) {
                return;
            }
            let g = co.graph();
            let q = g.seq_of_slot(x, slot);
            let Some(c) = cut(q) else { return };
            let v = h.var(x as usize).expect("writes have a variable") as u32;
            if let Some(r) = g.first_read(q, v, new) {
                if g.pos(r) < old.min(c) {
                    let w2 = h.rf(r as usize).expect("no thin air") as u32;
                    if w2 != x {
                        work.push((x, w2));
                    }
                }
            }
        };
    let mut work: Vec<(u32, u32)> = Vec::new();
    // consecutive same-variable reads of t's lanes, up to o
    for l in lanes.of_thread[t].clone() {
        let upto = |r: usize| r == o || h.po_before(r, o);
        consecutive_sources(h, &lanes.lanes[l as usize], upto, |a, b| {
            work.push((a as u32, b as u32))
        });
    }
    let slots: Vec<usize> = sites.iter().map(|&(q, _)| co.graph().slot_of(q)).collect();
    for x in (0..h.n()).filter(|&x| h.is_write(x)) {
        for &slot in &slots {
            let f = co.frontier(x as u32, slot);
            if f != NONE {
                fire(co, x as u32, slot, f, NONE, &mut work);
            }
        }
    }
    let mut drops = Vec::new();
    while let Some((a, b)) = work.pop() {
        drops.clear();
        match co.insert(a, b, rule.rel, |x, s, new, old| {
            drops.push((x, s, new, old))
        }) {
            Err(_) => {
                let pattern = if h.is_init(b as usize) {
                    rule.init_read
                } else {
                    rule.cyclic
                };
                let cycle = co.cycle_through(a, b, rule.rel).expect("b reaches a");
                let mut v = violation(pattern, cycle);
                v.ops.push((o, "observer o of hb_o"));
                return Err(v);
            }
            Ok(new_edge) => {
                if let (true, Some(d)) = (new_edge, derived.as_deref_mut()) {
                    d.push((a, b));
                }
                for &(x, s, new, old) in &drops {
                    fire(co, x, s, new, old, &mut work);
                }
            }
        }
    }
    Ok(())
}
