//! wCCM at scale (gradual-consistency-checking §4.1): `hb^ppo` and
//! `hb^po-loc` grown on frontiers of `ppo ∪ wre` and `po-loc ∪ wre`, `cfe` and
//! `whb_WW` generated at frontiers, and the two acyclicity checks on sparse
//! graphs.

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::{History, OpId};
use crate::models::common::{no_thin_air, relaxes};
use crate::models::{wccm, StoreOrder};
use crate::parallel::join;
use crate::relation::chains::NONE;

use super::hbo::{insert_all, local_hbs, Observer, Rule2};
use super::lanes::{self, Lanes, Shape};
use super::{first_other_write, store_order, write_frontiers, ChainGraph, Frontier};

/// Whether `r` reads externally: `wre = wr` minus pairs related by `po`
/// (an initial write is `po`-before every operation).
fn external(h: &History, r: OpId) -> bool {
    h.rf(r)
        .is_some_and(|w| !h.po_before(w, r) && !h.po_before(r, w))
}

/// wCCM's `ppo ∪ wre` on lanes: each lane cut into writes and the rest;
/// `po` keeps every pair but (write, read).
fn ppo_graph(h: &History, lanes: &Lanes) -> ChainGraph {
    lanes::graph(
        h,
        lanes,
        &Shape {
            // a partial fence is no node: it orders nothing wCCM relaxes
            class: &|o| (!h.is_partial_fence(o)).then(|| u32::from(h.is_write(o))),
            classes: 2,
            per_var: false,
            kept: &|a, b| !relaxes(h, &wccm::RELAXED, a, b),
            init_var_matters: false,
            po_rel: Rel::Ppo,
            wr_rel: Rel::Wre,
            wr_keep: &|w, r| !h.po_before(w, r) && !h.po_before(r, w),
        },
    )
}

/// `po-loc ∪ wre`: one family of sequences per variable.
fn loc_graph(h: &History, lanes: &Lanes) -> ChainGraph {
    lanes::per_var_graph(
        h,
        lanes,
        &|o| h.var(o).map(|v| v as u32),
        Rel::PoLoc,
        Rel::Wre,
        &|w, r| !h.po_before(w, r) && !h.po_before(r, w),
    )
}

/// Every lane's reads of each variable, in lane order: one run per
/// (lane, variable).
fn read_runs(h: &History, lanes: &Lanes) -> Vec<Vec<u32>> {
    let mut runs = Vec::new();
    for lane in &lanes.lanes {
        let mut by: std::collections::BTreeMap<usize, Vec<u32>> = Default::default();
        for &r in lane.iter().filter(|&&r| h.is_read(r as usize)) {
            let v = h.var(r as usize).expect("reads have a variable");
            by.entry(v).or_default().push(r);
        }
        runs.extend(by.into_values());
    }
    runs
}

/// Per read `r′`, whether the source of the read `r` before it in its run
/// reaches `r′` in `co_π` already (so `rf(r) hb_o r′` in every `hb_o` where
/// `r′` is a site).
fn chained(h: &History, runs: &[Vec<u32>], co: &Frontier) -> Vec<bool> {
    let mut out = vec![false; h.n()];
    for p in runs.iter().flat_map(|reads| reads.windows(2)) {
        let w = h.rf(p[0] as usize).expect("no thin air") as u32;
        out[p[1] as usize] = co.reaches(w, p[1]);
    }
    out
}

/// The next read after each read (same run) that is not [`chained`]: rule 2
/// fires there as well.
fn next_breaks(h: &History, runs: &[Vec<u32>], chained: &[bool]) -> Vec<u32> {
    let mut next = vec![NONE; h.n()];
    for reads in runs {
        let mut after = NONE;
        for i in (0..reads.len()).rev() {
            next[reads[i] as usize] = after;
            if i > 0 && !chained[reads[i] as usize] {
                after = reads[i];
            }
        }
    }
    next
}

/// `(rf(r), rf(r′))` for consecutive reads `r`, `r′` of a variable on a
/// lane (up to `upto`) with different sources, where `r′` is [`chained`].
fn seeds(
    h: &History,
    lane: &[u32],
    upto: impl Fn(OpId) -> bool,
    chained: &[bool],
    var: Option<usize>,
    out: &mut Vec<(u32, u32)>,
) {
    let mut last: std::collections::HashMap<usize, OpId> = Default::default();
    for &r in lane {
        let r = r as usize;
        if !upto(r) {
            break;
        }
        let Some(x) = h
            .var(r)
            .filter(|&x| h.is_read(r) && var.is_none_or(|v| v == x))
        else {
            continue;
        };
        if let Some(prev) = last.insert(x, r) {
            let (a, b) = (
                h.rf(prev).expect("no thin air"),
                h.rf(r).expect("no thin air"),
            );
            if a != b && chained[r] {
                out.push((a as u32, b as u32));
            }
        }
    }
}

/// Whether no operation of `later` (the latest-issued candidates `π` keeps
/// after `o`, and RMW partners) follows `o` in `po`: `o` is `π`-maximal.
fn maximal(h: &History, o: OpId, later: &[OpId]) -> bool {
    !later.iter().any(|&p| h.po_before(o, p))
}

/// The `ppo`-maximal observers: a read or fence is maximal when nothing
/// follows it, a write when only reads follow.
/// Sites: every lane's reads up to `o`.
fn ppo_observers<'a>(
    h: &'a History,
    lanes: &'a Lanes,
    g: &ChainGraph,
    chained: &'a [bool],
) -> impl Iterator<Item = Observer> + 'a {
    // per lane, the sequence of its non-writes (reads among them)
    let lane_seq: Vec<u32> = lanes
        .lanes
        .iter()
        .map(|ops| {
            ops.iter()
                .find(|&&o| !h.is_write(o as usize))
                .map_or(NONE, |&o| g.seq_of_op(o))
        })
        .collect();
    h.threads.iter().enumerate().flat_map(move |(t, th)| {
        let ops: Vec<OpId> = th.ops.clone().collect();
        // the latest-issued operation, and the latest-issued non-read, with RMW partners
        let last = |f: &dyn Fn(OpId) -> bool| -> Vec<OpId> {
            let mut c: Vec<OpId> = ops.iter().copied().filter(|&p| f(p)).collect();
            c.sort_by_key(|&p| std::cmp::Reverse(h.interval(p).0));
            c.truncate(1);
            c.extend(ops.iter().filter_map(|&p| h.ops[p].rmw).filter(|&p| f(p)));
            c
        };
        let any = last(&|_| true);
        let non_read = last(&|p| !h.is_read(p));
        let mut obs: Vec<OpId> = ops
            .iter()
            .copied()
            .filter(|&o| maximal(h, o, if h.is_write(o) { &non_read } else { &any }))
            .collect();
        // A maximal write is followed only by reads: an observer issued no
        // earlier (a read after it) has every site of the write among its
        // own, and each reaches it by ppo, so its hb_o contains the write's.
        let dominated = |w: OpId| {
            h.is_write(w)
                && obs
                    .iter()
                    .any(|&o| o != w && !h.is_write(o) && h.interval(o).0 >= h.interval(w).0)
        };
        let keep: Vec<bool> = obs.iter().map(|&o| !dominated(o)).collect();
        let mut k = keep.iter();
        obs.retain(|_| *k.next().expect("one flag per observer"));
        let lane_seq = lane_seq.clone();
        obs.into_iter().map(move |o| {
            let upto = |r: usize| r == o || h.po_before(r, o);
            let mut sd = Vec::new();
            let sites = lanes.of_thread[t]
                .clone()
                .filter(|&l| lane_seq[l as usize] != NONE)
                .map(|l| {
                    let ops = &lanes.lanes[l as usize];
                    seeds(h, ops, upto, chained, None, &mut sd);
                    let cut = ops
                        .iter()
                        .filter(|&&r| !h.is_write(r as usize) && upto(r as usize))
                        .count();
                    (lane_seq[l as usize], cut as u32)
                })
                .collect();
            Observer {
                o,
                sites,
                var: None,
                seeds: sd,
            }
        })
    })
}

/// A sequence of a lane and its operations.
type LaneOps = (u32, Vec<u32>);

/// The `po-loc`-maximal observers: per thread and variable, the operations
/// no operation of that variable follows. Sites: the variable's reads on
/// every lane of the thread, up to `o`.
fn loc_observers<'a>(
    h: &'a History,
    lanes: &'a Lanes,
    g: &ChainGraph,
    chained: &'a [bool],
) -> impl Iterator<Item = Observer> + 'a {
    // per (thread, var): per lane of the thread, (sequence, the lane's ops of var)
    let mut by: std::collections::BTreeMap<(usize, usize), Vec<LaneOps>> = Default::default();
    for (t, range) in lanes.of_thread.iter().enumerate() {
        for l in range.clone() {
            let mut of_var: std::collections::BTreeMap<usize, Vec<u32>> = Default::default();
            for &o in &lanes.lanes[l as usize] {
                if let Some(v) = h.var(o as usize) {
                    of_var.entry(v).or_default().push(o);
                }
            }
            for (v, ops) in of_var {
                let q = g.seq_of_op(ops[0]);
                by.entry((t, v)).or_default().push((q, ops));
            }
        }
    }
    by.into_iter().flat_map(move |((_, v), per_lane)| {
        let all: Vec<OpId> = per_lane
            .iter()
            .flat_map(|(_, ops)| ops.iter().map(|&o| o as usize))
            .collect();
        let mut later: Vec<OpId> = all.clone();
        later.sort_by_key(|&p| std::cmp::Reverse(h.interval(p).0));
        later.truncate(1);
        later.extend(all.iter().filter_map(|&p| h.ops[p].rmw));
        let obs: Vec<OpId> = all
            .iter()
            .copied()
            .filter(|&o| maximal(h, o, &later))
            .collect();
        obs.into_iter()
            .map(|o| {
                let upto = |r: usize| r == o || h.po_before(r, o);
                let mut sd = Vec::new();
                let sites = per_lane
                    .iter()
                    .map(|(q, ops)| {
                        seeds(h, ops, upto, chained, Some(v), &mut sd);
                        let cut = ops.partition_point(|&r| upto(r as usize));
                        (*q, cut as u32)
                    })
                    .collect();
                Observer {
                    o,
                    sites,
                    var: Some(v),
                    seeds: sd,
                }
            })
            .collect::<Vec<_>>()
    })
}

/// Per read, the first external read at or after it in its run; and
/// `(rf(r), rf(r′))` for consecutive external reads of a run (part of
/// `cfe[hb^π]` for either `π`: `rf(r) wre r π r′`).
fn external_reads(h: &History, runs: &[Vec<u32>], pairs: &mut Vec<(u32, u32)>) -> Vec<u32> {
    let mut next_ext = vec![NONE; h.n()];
    for reads in runs {
        let mut after = NONE;
        for &r in reads.iter().rev() {
            if external(h, r as usize) {
                after = r;
            }
            next_ext[r as usize] = after;
        }
        let ext: Vec<u32> = reads
            .iter()
            .copied()
            .filter(|&r| external(h, r as usize))
            .collect();
        for p in ext.windows(2) {
            let (a, b) = (h.rf(p[0] as usize), h.rf(p[1] as usize));
            if a != b {
                pairs.push((a.expect("read") as u32, b.expect("read") as u32));
            }
        }
    }
    next_ext
}

/// The rest of `cfe[hb^π] = hb^π_WR ; wre⁻¹`, at `hb^π`'s frontiers: from
/// each write, the first external read of its variable it reaches on each
/// sequence.
fn cfe(h: &History, hb: &Frontier, next_ext: &[u32], out: &mut Vec<(u32, u32)>) {
    let g = hb.graph();
    write_frontiers(h, hb, |w, v, q, p, c| {
        if let Some(r) = g.first_read_near(q, v, p, c).map(|r| next_ext[r as usize]) {
            if r != NONE {
                let w2 = h.rf(r as usize).expect("no thin air") as u32;
                if w2 != w {
                    out.push((w, w2));
                }
            }
        }
    });
}

/// `hb^π`'s rule-2 edges: on `co_π = (π ∪ wre)⁺` (as frontiers), every
/// `π`-maximal observer's, each observer's undone before the next.
fn hb_pi_scaled(
    h: &History,
    hb: &mut Frontier,
    obs: impl Iterator<Item = Observer>,
    pattern: Pattern,
    next_break: &[u32],
    deadline: &crate::budget::Cancel,
) -> Result<Option<Vec<(u32, u32)>>, Violation> {
    let rule = Rule2 {
        rel: Rel::Wpww,
        cyclic: pattern,
        init_read: pattern,
        next_break: Some(next_break),
    };
    let mut derived = Vec::new();
    if !local_hbs(h, hb, obs, &rule, deadline, Some(&mut derived))? {
        return Ok(None);
    }
    Ok(Some(derived))
}

/// What [`hb_pi_and_cfe`] derives for one `π`.
struct HbPi {
    /// The rule-2 edges of `hb^π`'s observers.
    derived: Vec<(u32, u32)>,
    /// `cfe[hb^π]`'s pairs, sorted, without repeats.
    cfe: Vec<(u32, u32)>,
    /// `π ∪ wre`, the static graph `hb^π` grew on.
    graph: ChainGraph,
}

/// `hb^π` for `π = ppo` or `po-loc` (by its pattern), as frontiers with
/// its observers' rule-2 edges; those edges, `cfe[hb^π]`'s pairs and the
/// graph of `π ∪ wre`. `Ok(None)`: the deadline passed first.
fn hb_pi_and_cfe(
    h: &History,
    lanes: &Lanes,
    runs: &[Vec<u32>],
    next_ext: &[u32],
    pattern: Pattern,
    deadline: &crate::budget::Cancel,
) -> Result<Option<HbPi>, Violation> {
    let ppo = pattern == Pattern::CyclicWpwwPpo;
    let g = if ppo {
        ppo_graph(h, lanes)
    } else {
        loc_graph(h, lanes)
    };
    let mut hb = Frontier::new(g).map_err(|c| Violation::from_edges(pattern, c))?;
    let chained = chained(h, runs, &hb);
    let breaks = next_breaks(h, runs, &chained);
    let d = if ppo {
        let obs = ppo_observers(h, lanes, hb.graph(), &chained);
        hb_pi_scaled(h, &mut hb, obs, pattern, &breaks, deadline)?
    } else {
        let obs = loc_observers(h, lanes, hb.graph(), &chained);
        hb_pi_scaled(h, &mut hb, obs, pattern, &breaks, deadline)?
    };
    let Some(derived) = d else {
        return Ok(None);
    };
    let graph = hb.graph().clone();
    let hb = insert_all(hb, &derived, Rel::Wpww, pattern)?;
    let mut pairs = Vec::new();
    cfe(h, &hb, next_ext, &mut pairs);
    pairs.sort_unstable();
    pairs.dedup();
    Ok(Some(HbPi {
        derived,
        cfe: pairs,
        graph,
    }))
}

/// The union of sorted lists of pairs, sorted, without repeats.
fn merge_sorted(lists: Vec<Vec<(u32, u32)>>) -> Vec<(u32, u32)> {
    lists
        .into_iter()
        .reduce(|a, b| {
            let mut out = Vec::with_capacity(a.len() + b.len());
            let (mut i, mut j) = (0, 0);
            while i < a.len() || j < b.len() {
                let next = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
                    i += 1;
                    a[i - 1]
                } else {
                    j += 1;
                    b[j - 1]
                };
                if out.last() != Some(&next) {
                    out.push(next);
                }
            }
            out
        })
        .unwrap_or_default()
}

/// `po-loc`'s (write, read) pairs, which `ppo` drops: into each read, from
/// the last write of its variable before it on each lane of its thread, and
/// from its variable's initial write.
fn po_loc_write_read(h: &History, lanes: &Lanes) -> Vec<(u32, u32, Rel)> {
    let mut extra: Vec<(u32, u32, Rel)> = Vec::new();
    for range in &lanes.of_thread {
        // per lane of the thread and variable, its writes in lane order
        let mut writes: std::collections::HashMap<(u32, usize), Vec<u32>> = Default::default();
        for l in range.clone() {
            for &w in &lanes.lanes[l as usize] {
                if h.is_write(w as usize) {
                    let v = h.var(w as usize).expect("writes have a variable");
                    writes.entry((l, v)).or_default().push(w);
                }
            }
        }
        for l in range.clone() {
            for &r in lanes.lanes[l as usize]
                .iter()
                .filter(|&&r| h.is_read(r as usize))
            {
                let v = h.var(r as usize).expect("reads have a variable");
                for l2 in range.clone() {
                    if let Some(ws) = writes.get(&(l2, v)) {
                        let i = ws.partition_point(|&w| h.po_before(w as usize, r as usize));
                        if i > 0 {
                            extra.push((ws[i - 1], r, Rel::PoLoc));
                        }
                    }
                }
            }
        }
    }
    // the initial write of a read's variable is po-loc-before it
    for r in (0..h.n()).filter(|&r| h.is_read(r) && h.thread_of(r).is_some()) {
        let v = h.var(r).expect("reads have a variable");
        extra.push((v as u32, r as u32, Rel::PoLoc));
    }
    extra
}

/// wCCM at scale: `hb^ppo` and `hb^po-loc` each as frontiers with their
/// observers' rule-2 edges (one observer at a time, undone), `cfe` of each
/// at its frontiers; `whb` as frontiers of `ppo ∪ po-loc ∪ wre` plus both
/// rule-2 edge sets, `whb_WW` at its frontiers (the first write of the
/// variable on each lane); then `π ∪ wre ∪ wpww ∪ rw[wpww]` acyclic for
/// `π = ppo` and `po-loc`, with `wpww` by its generating pairs.
/// `wpww`'s pairs are counted. `Ok(None)`: the deadline passed first.
pub fn check(
    h: &History,
    lanes: &Lanes,
    deadline: &crate::budget::Cancel,
) -> Result<Option<StoreOrder>, Violation> {
    check_on(h, lanes, deadline, crate::parallel::two_cores(h.n()))
}

/// [`check`], with `hb^ppo` and `hb^po-loc` on two threads at once when
/// `parallel`: the same answer either way.
pub fn check_on(
    h: &History,
    lanes: &Lanes,
    deadline: &crate::budget::Cancel,
    parallel: bool,
) -> Result<Option<StoreOrder>, Violation> {
    no_thin_air(h)?;
    let runs = read_runs(h, lanes);
    let mut wpww: Vec<(u32, u32)> = Vec::new();
    let next_ext = external_reads(h, &runs, &mut wpww);
    wpww.sort_unstable();
    wpww.dedup();
    // hb^ppo and hb^po-loc are independent: on two cores at once when the
    // history is large (the answer is the one of ppo first, then po-loc)
    let hb_pi = |pattern: Pattern| hb_pi_and_cfe(h, lanes, &runs, &next_ext, pattern, deadline);
    let (ppo, loc) = if parallel {
        join(
            || hb_pi(Pattern::CyclicWpwwPpo),
            || hb_pi(Pattern::CyclicWpwwPoLoc),
        )
    } else {
        let ppo = hb_pi(Pattern::CyclicWpwwPpo);
        let loc = match ppo {
            Ok(Some(_)) => hb_pi(Pattern::CyclicWpwwPoLoc),
            _ => Ok(None),
        };
        (ppo, loc)
    };
    let Some(ppo) = ppo? else {
        return Ok(None);
    };
    let Some(loc) = loc? else {
        return Ok(None);
    };
    // whb = (hb^ppo ∪ hb^po-loc)⁺: ppo ∪ wre, po-loc's (write, read) pairs
    // and both rule-2 edge sets, all static (one sweep builds the frontiers)
    let mut g = ppo.graph.clone();
    let mut extra = po_loc_write_read(h, lanes);
    extra.extend(
        ppo.derived
            .iter()
            .chain(&loc.derived)
            .map(|&(a, b)| (a, b, Rel::Wpww)),
    );
    g.add_edges(&extra);
    drop(extra);
    let whb = Frontier::new(g).map_err(|c| Violation::from_edges(Pattern::CyclicWpwwPpo, c))?;
    let gw = whb.graph();
    let mut whb_ww = Vec::new();
    write_frontiers(h, &whb, |w, v, q, p, c| {
        if let Some(y) = first_other_write(gw, w, v, q, p, c) {
            whb_ww.push((w, y));
        }
    });
    drop(whb);
    whb_ww.sort_unstable();
    let wpww = merge_sorted(vec![wpww, ppo.cfe, loc.cfe, whb_ww]);
    // π ∪ wre ∪ wpww ∪ rw[wpww] acyclic, for π = ppo and po-loc
    let acyclic = |ppo_g: ChainGraph, loc_g: ChainGraph| {
        acyclic_with_wpww(h, ppo_g, &wpww, Pattern::CyclicWpwwPpo)?;
        acyclic_with_wpww(h, loc_g, &wpww, Pattern::CyclicWpwwPoLoc)
    };
    let counted = if parallel {
        // on two cores: both acyclicity checks on one, the count on the other
        let (counted, acyclic) = join(
            || store_order::count_closure(h, lanes, &wpww),
            || acyclic(ppo.graph, loc.graph),
        );
        acyclic?;
        counted
    } else {
        acyclic(ppo.graph, loc.graph)?;
        store_order::count_closure(h, lanes, &wpww)
    };
    Ok(Some(counted.expect("wpww is acyclic")))
}

/// `π ∪ wre ∪ wpww ∪ rw[wpww]` acyclic, for `g` = `π ∪ wre` and `wpww`
/// sorted: decided with the pairs streamed (`rw[wpww]`: from each reader of
/// `w` to each `w′` with `w wpww w′`), and only on a cycle are the edges
/// built, to give it.
fn acyclic_with_wpww(
    h: &History,
    mut g: ChainGraph,
    wpww: &[(u32, u32)],
    pattern: Pattern,
) -> Result<(), Violation> {
    // wpww's pairs by source: start[w]..start[w + 1]
    let mut start = vec![0u32; h.n() + 1];
    for &(w, _) in wpww {
        start[w as usize + 1] += 1;
    }
    for i in 0..h.n() {
        start[i + 1] += start[i];
    }
    let after = |w: usize| &wpww[start[w] as usize..start[w + 1] as usize];
    let acyclic = g.acyclic_with(&|x, f| {
        let x = x as usize;
        let from = if h.is_write(x) {
            after(x)
        } else if let Some(w) = h.rf(x).filter(|_| h.is_read(x)) {
            after(w)
        } else {
            &[]
        };
        for &(_, y) in from {
            f(y);
        }
    });
    if acyclic {
        return Ok(());
    }
    let mut edges: Vec<(u32, u32, Rel)> = wpww.iter().map(|&(a, b)| (a, b, Rel::Wpww)).collect();
    for &(w, w2) in wpww {
        for &r in h.readers(w as usize) {
            edges.push((r as u32, w2, Rel::Rw));
        }
    }
    g.add_edges(&edges);
    g.acyclic().map_err(|c| Violation::from_edges(pattern, c))?;
    unreachable!("the streamed check and the built graph agree on a cycle")
}
