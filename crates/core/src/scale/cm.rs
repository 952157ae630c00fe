//! CM at scale (causal-consistency-datalog Def. 4, Thm 2): each po-maximal
//! observer's `hb_o` grown on CC's frontiers and undone.

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;

use super::hbo::{local_hbs, Observer, Rule2};
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
    let rule = Rule2 {
        rel: Rel::HbO,
        cyclic: Pattern::CyclicHB,
        init_read: Pattern::WriteHBInitRead,
        next_break: None,
    };
    let obs = observers(h, lanes, &co);
    local_hbs(h, &mut co, obs, &rule, deadline, None)
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
