//! CM at scale (causal-consistency-datalog Def. 4, Thm 2): each po-maximal
//! observer's `hb_o` grown on CC's frontiers and undone.

use crate::certificate::{Justification, Pattern, Rel, Rule, Step, Violation};
use crate::history::History;
use crate::relation::chains::NONE;

use super::hbo::{grow_one, local_hbs, Observer, Rule2};
use super::lanes::{consecutive_sources, Lanes};
use super::{cc, Frontier};

/// CM at scale: `co` as frontiers (CC's), then for each po-maximal `o` the
/// rule-2 closure of `hb_o` grown on them and undone afterwards. Rule 2 fires
/// only at reads `r po* o` (thread(o)'s lanes, up to `o`), at the first such
/// read a write reaches on each lane; later ones follow through
/// `rf(r) hb_o rf(r′)` for consecutive same-variable reads `r po r′ po* o`
/// (rule 2 on `rf(r) co r′`). Edges stay inside `past(o)`: a node that
/// reaches a rule site reaches `o`. `Ok(false)`: the deadline passed first.
pub fn check(
    h: &History,
    lanes: &Lanes,
    deadline: &crate::budget::Cancel,
) -> Result<bool, Violation> {
    let mut co = cc::check(h, lanes)?;
    let obs = observers(h, lanes, &co);
    local_hbs(h, &mut co, obs, &RULE, deadline, None)
}

/// CM's rule 2 on `co`: `hb_o` edges, their cycles `CyclicHB`, or
/// `WriteHBInitRead` at an initial write.
const RULE: Rule2 = Rule2 {
    rel: Rel::HbO,
    cyclic: Pattern::CyclicHB,
    init_read: Pattern::WriteHBInitRead,
    next_break: None,
};

/// The justification of every `hb_o` edge of CM's violation `v` and,
/// recursively, of the `hb_o` edges their premises use
/// (causal-consistency-datalog Def. 4, rule 2: `w1 hb_o w2` when a read
/// `r po* o` reads `w2` and `w1 hb_o r`); for CCM's `CyclicPww` met in one
/// observer's `hb_o` (gradual-consistency-checking §3.2), each `pww` edge of
/// the cycle is `w1 hb w2` for writes of one variable, through that
/// `hb_o` edge. Proof search, not trusted: the validator checks the proof
/// edge by edge ([`crate::certificate::derive::check`], docs/design/gradual.md
/// §8), in time proportional to it, where re-deriving `hb_o` would take
/// `n³/64`. The observer's `hb_o` is grown again on CC's frontiers as the
/// check grew it, up to the same conflict; an edge added `k`-th is
/// justified by a reader of its target reached from its source over the
/// static edges and the edges added before it (its derivation number is
/// `k`; the conflict's is the number of edges added). `None` if the growth
/// meets another violation, no premise is found, the proof passes
/// [`PROOF_MAX`] justifications or `cancel` is spent.
pub fn justify(
    h: &History,
    lanes: &Lanes,
    v: &Violation,
    cancel: &crate::budget::Cancel,
) -> Option<Vec<Justification>> {
    // CCM grows each hb_o with its rule-2 edges labelled pww
    let rule = match v.pattern {
        Pattern::CyclicHB | Pattern::WriteHBInitRead => RULE,
        Pattern::CyclicPww => Rule2 {
            rel: Rel::Pww,
            cyclic: Pattern::CyclicPww,
            init_read: Pattern::CyclicPww,
            next_break: None,
        },
        _ => return None,
    };
    let o = v
        .ops
        .iter()
        .find(|(_, role)| role.contains("observer"))
        .map(|&(o, _)| o)?;
    // (CC held where the violation was found: its reads need no check)
    let mut co = cc::co(h, lanes).ok()?;
    let ob = observers(h, lanes, &co).find(|ob| ob.o == o)?;
    let met = grow_one(h, &mut co, &ob, &rule).err()?;
    if met.cycle != v.cycle || met.pattern != v.pattern {
        return None;
    }
    let first = v.cycle.first()?;
    // the cycle's rule-2 edges: (from, to, derivation number)
    let mut cycle = vec![(first.from as u32, first.to as u32, co.added_len())];
    for s in v.cycle.iter().skip(1).filter(|s| s.rel == rule.rel) {
        let k = co.added_index(s.from as u32, s.to as u32)?;
        cycle.push((s.from as u32, s.to as u32, k));
    }
    let mut todo = cycle.clone();
    let mut done = std::collections::HashSet::new();
    let mut js = Vec::new();
    while let Some((a, b, k)) = todo.pop() {
        if !done.insert(k) {
            continue;
        }
        if js.len() >= PROOF_MAX || cancel.spent() {
            return None;
        }
        let site = |r: usize| r == o || h.po_before(r, o);
        let (r, path) = h
            .readers(b as usize)
            .iter()
            .filter(|&&r| site(r))
            .find_map(|&r| co.path_within(a, r as u32, k).map(|p| (r, p)))?;
        for &(x, y, _, e) in path.iter().filter(|p| p.3 != NONE) {
            todo.push((x, y, e));
        }
        js.push(Justification {
            from: a as usize,
            rel: Rel::HbO,
            to: b as usize,
            rule: Rule::HbRule2,
            seq: k,
            pivot: Some(r),
            observer: Some(o),
            graph: None,
            path: po_merged(path.into_iter().map(|(x, y, rel, _)| Step {
                from: x as usize,
                // an added edge is a rule-2 edge of hb_o
                rel: if rel == rule.rel { Rel::HbO } else { rel },
                to: y as usize,
            })),
        });
    }
    if rule.rel == Rel::Pww {
        // pww ⊇ hb's write pairs of one variable: each through its hb_o edge
        let after = co.added_len() + 1;
        for (i, &(a, b, _)) in cycle.iter().enumerate() {
            js.push(Justification {
                from: a as usize,
                rel: Rel::Pww,
                to: b as usize,
                rule: Rule::PwwHbWw,
                seq: after + i as u32,
                pivot: None,
                observer: None,
                graph: None,
                path: vec![Step {
                    from: a as usize,
                    rel: Rel::HbO,
                    to: b as usize,
                }],
            });
        }
    }
    js.sort_by_key(|j| j.seq);
    Some(js)
}

/// The po-maximal observers of `hb_o` on `co` (the graph of `po ∪ wr` on
/// lanes, one sequence per lane): sites are the reads of thread(o)'s lanes
/// up to `o`, seeds their consecutive same-variable sources.
pub(crate) fn observers<'a>(
    h: &'a History,
    lanes: &'a Lanes,
    co: &Frontier,
) -> impl Iterator<Item = Observer> + 'a {
    let lane_seq: Vec<u32> = lanes
        .lanes
        .iter()
        .map(|ops| co.graph().seq_of_op(ops[0]))
        .collect();
    h.po_maximal().into_iter().map(move |o| {
        let t = h.thread_of(o).expect("a thread operation");
        let upto = |r: usize| r == o || h.po_before(r, o);
        let mut seeds = Vec::new();
        let sites = lanes.of_thread[t]
            .clone()
            .map(|l| {
                let ops = &lanes.lanes[l as usize];
                consecutive_sources(h, ops, upto, |a, b| seeds.push((a as u32, b as u32)));
                let cut = ops.partition_point(|&r| upto(r as usize));
                (lane_seq[l as usize], cut as u32)
            })
            .collect();
        Observer {
            o,
            sites,
            var: None,
            seeds,
        }
    })
}

/// The most justifications [`justify`] gives: each premise path is a
/// breadth-first search of the history.
pub const PROOF_MAX: usize = 4096;

/// A path with each run of `po` steps as one step (`po` is transitive).
fn po_merged(path: impl Iterator<Item = Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for s in path {
        match out.last_mut() {
            Some(last) if last.rel == Rel::Po && s.rel == Rel::Po => last.to = s.to,
            _ => out.push(s),
        }
    }
    out
}
