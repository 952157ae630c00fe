//! The local happens-before `hb_o` at scale (causal-consistency-datalog
//! Def. 4, and gradual-consistency-checking §4.1's `hb^π_o`): each
//! observer's rule-2 edges grown on the frontiers of its causality and undone
//! before the next observer.

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::relation::chains::{Cursors, NONE};

use super::{write_vars, Frontier};

/// One observer `o` of a local happens-before at scale.
pub(crate) struct Observer {
    pub o: usize,
    /// The sequences of `co`'s graph holding its rule sites (the reads `r`
    /// with `(r, o) ∈ π*`), each with its cut: positions below it are sites.
    pub sites: Vec<(u32, u32)>,
    /// Only writes of this variable can fire (`π = po-loc`); `None`: any.
    pub var: Option<usize>,
    /// `(rf(r), rf(r′))` for consecutive same-variable site reads `r π r′`
    /// of a sequence where `rf(r) co_π r` (rule 2 on `rf(r) hb_o r′`).
    pub seeds: Vec<(u32, u32)>,
}

/// How rule-2 edges are labelled, their cycles named, and where rule 2
/// must fire beyond the first site read a write reaches.
pub(crate) struct Rule2<'a> {
    pub rel: Rel,
    pub cyclic: Pattern,
    pub init_read: Pattern,
    /// Per read, the next read of its variable on its sequence whose
    /// predecessor's source may not reach its predecessor in `co_π` (so no
    /// seed pair chains to it): rule 2 fires there too. `None`: every
    /// source reaches its read (`π = po`, `wr ⊆ co`).
    pub next_break: Option<&'a [u32]>,
}

/// Adds `edges` (labelled `rel`) to `f` ([`Frontier::insert_all`]); a
/// cycle is `pattern`'s violation.
pub(crate) fn insert_all(
    f: Frontier,
    edges: &[(u32, u32)],
    rel: Rel,
    pattern: Pattern,
) -> Result<Frontier, Violation> {
    f.insert_all(edges, rel)
        .map_err(|cycle| Violation::from_edges(pattern, cycle))
}

/// Every observer's `hb_o` grown on `co` (undone after each), its rule-2
/// edges collected in `derived` when given. Rule 2 fires where a write's
/// frontier drops on a site sequence: at the first site read of its
/// variable it reaches there (and at the breaks after it); later reads
/// follow from the seeds by transitivity. Edges stay inside `past(o)`: a
/// node that reaches a site reaches `o`. `Ok(false)`: the deadline passed.
pub(crate) fn local_hbs(
    h: &History,
    co: &mut Frontier,
    observers: impl Iterator<Item = Observer>,
    rule: &Rule2,
    deadline: &crate::budget::Cancel,
    mut derived: Option<&mut Vec<(u32, u32)>>,
) -> Result<bool, Violation> {
    co.set_trail(true);
    let mut cut = vec![NONE; co.graph().sequences() as usize];
    let mut work: Vec<(u32, u32)> = Vec::new();
    let mut drops: Vec<(u32, usize, u32, u32)> = Vec::new();
    let mut cursors = co.graph().cursors();
    let write_var = write_vars(h);
    for ob in observers {
        if deadline.spent() {
            co.set_trail(false);
            return Ok(false);
        }
        for &(q, c) in &ob.sites {
            cut[q as usize] = c;
        }
        let mark = co.mark();
        let result = hb_o(
            h,
            &write_var,
            &ob,
            &cut,
            co,
            rule,
            &mut work,
            &mut drops,
            &mut cursors,
            derived.as_deref_mut(),
        );
        co.undo(mark);
        for &(q, _) in &ob.sites {
            cut[q as usize] = NONE;
        }
        result?;
    }
    co.set_trail(false);
    Ok(true)
}

/// One observer's `hb_o` grown on `co` as [`local_hbs`] grows it, and left
/// there (not undone): the violation it meets, if any.
pub(crate) fn grow_one(
    h: &History,
    co: &mut Frontier,
    ob: &Observer,
    rule: &Rule2,
) -> Result<(), Violation> {
    let mut cut = vec![NONE; co.graph().sequences() as usize];
    for &(q, c) in &ob.sites {
        cut[q as usize] = c;
    }
    let mut cursors = co.graph().cursors();
    hb_o(
        h,
        &write_vars(h),
        ob,
        &cut,
        co,
        rule,
        &mut Vec::new(),
        &mut Vec::new(),
        &mut cursors,
        None,
    )
}

/// Grows `hb_o` on `co`; a cycle is the rule's pattern (its init-read
/// pattern at an initial write).
#[allow(clippy::too_many_arguments)]
fn hb_o(
    h: &History,
    write_var: &[u32],
    ob: &Observer,
    cut: &[u32],
    co: &mut Frontier,
    rule: &Rule2,
    work: &mut Vec<(u32, u32)>,
    drops: &mut Vec<(u32, usize, u32, u32)>,
    cursors: &mut Cursors,
    mut derived: Option<&mut Vec<(u32, u32)>>,
) -> Result<(), Violation> {
    // rule 2 at the site reads of x's variable in [new, old) of its sequence
    let fire = |co: &Frontier,
                cur: &mut Cursors,
                x: u32,
                slot: usize,
                new: u32,
                old: u32,
                work: &mut Vec<(u32, u32)>| {
        // most drops are on no site sequence, or at a read: rejected from
        // two small arrays, without reading the operation
        let g = co.graph();
        let q = g.seq_of_slot(x, slot);
        let c = cut[q as usize];
        if c == NONE {
            return;
        }
        let v = write_var[x as usize];
        if v == NONE || ob.var.is_some_and(|ov| ov as u32 != v) {
            return;
        }
        let end = old.min(c);
        let mut r = g.first_read_near(q, v, new, cur);
        while let Some(rr) = r.filter(|&rr| g.pos(rr) < end) {
            let w2 = h.rf(rr as usize).expect("no thin air") as u32;
            if w2 != x {
                work.push((x, w2));
            }
            r = rule
                .next_break
                .map(|nb| nb[rr as usize])
                .filter(|&b| b != NONE);
        }
    };
    work.clear();
    work.extend_from_slice(&ob.seeds);
    let slots: Vec<usize> = ob
        .sites
        .iter()
        .map(|&(q, _)| co.graph().slot_of(q))
        .collect();
    let fire_all = |co: &Frontier, c: &mut Cursors, x: usize, work: &mut Vec<(u32, u32)>| {
        for &slot in &slots {
            let f = co.frontier(x as u32, slot);
            if f != NONE {
                fire(co, c, x as u32, slot, f, NONE, work);
            }
        }
    };
    match ob.var {
        Some(v) => h
            .writes_of(v)
            .iter()
            .for_each(|&x| fire_all(co, cursors, x, work)),
        None => (0..h.n())
            .filter(|&x| h.is_write(x))
            .for_each(|x| fire_all(co, cursors, x, work)),
    }
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
                let mut v = Violation::from_edges(pattern, cycle);
                v.ops.push((ob.o, "observer o of hb_o"));
                return Err(v);
            }
            Ok(new_edge) => {
                if let (true, Some(d)) = (new_edge, derived.as_deref_mut()) {
                    d.push((a, b));
                }
                for &(x, s, new, old) in drops.iter() {
                    fire(co, cursors, x, s, new, old, work);
                }
            }
        }
    }
    Ok(())
}
