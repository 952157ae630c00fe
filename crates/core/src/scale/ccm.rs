//! CCM at scale (gradual-consistency-checking §3.2): `hb` as CC's frontiers
//! plus every observer's rule-2 edges, `pww` generated at `hb`'s frontiers,
//! and `po ∪ wr ∪ pww ∪ rw[pww]` acyclic on a sparse graph.

use crate::certificate::{Pattern, Rel, Violation};
use crate::history::History;
use crate::models::StoreOrder;

use super::hbo::{insert_all, local_hbs, Rule2};
use super::lanes::{consecutive_sources, Lanes};
use super::{cc, cm, first_other_write, sc, store_order, write_frontiers};

/// CCM at scale: `hb` = `co` plus every observer's rule-2 edges (each
/// `hb_o` grown on CC's frontiers and undone, its edges kept); `pww`
/// generated at `hb`'s frontiers — the first write and the first read of
/// the variable a write reaches on each lane, plus `rf(r) pww rf(r′)` for
/// consecutive same-variable reads of a lane — and `po ∪ wr ∪ pww ∪ rw[pww]`
/// checked acyclic; `pww`'s pairs are counted. `Ok(None)`: the deadline
/// passed first.
pub fn check(
    h: &History,
    lanes: &Lanes,
    deadline: &crate::budget::Cancel,
) -> Result<Option<StoreOrder>, Violation> {
    let mut hb = cc::check(h, lanes)?;
    let rule = Rule2 {
        rel: Rel::Pww,
        cyclic: Pattern::CyclicPww,
        init_read: Pattern::CyclicPww,
        next_break: None,
    };
    let mut derived = Vec::new();
    let obs = cm::observers(h, lanes, &hb);
    if !local_hbs(h, &mut hb, obs, &rule, deadline, Some(&mut derived))? {
        return Ok(None);
    }
    let hb = insert_all(hb, &derived, Rel::Pww, Pattern::CyclicPww)?;
    // pww's generating pairs
    let g = hb.graph();
    let mut pww: Vec<(u32, u32)> = Vec::new();
    write_frontiers(h, &hb, |w, v, q, p, c| {
        if let Some(r) = g.first_read_near(q, v, p, c) {
            let w2 = h.rf(r as usize).expect("no thin air") as u32;
            if w2 != w {
                pww.push((w, w2));
            }
        }
        if let Some(y) = first_other_write(g, w, v, q, p, c) {
            pww.push((w, y));
        }
    });
    for lane in &lanes.lanes {
        consecutive_sources(h, lane, |_| true, |a, b| pww.push((a as u32, b as u32)));
    }
    drop(hb);
    let mut edges: Vec<(u32, u32, Rel)> = pww.iter().map(|&(a, b)| (a, b, Rel::Pww)).collect();
    for &(w, w2) in &pww {
        for &r in h.readers(w as usize) {
            if r as u32 != w2 {
                edges.push((r as u32, w2, Rel::Rw));
            }
        }
    }
    let mut g = sc::graph(h, lanes);
    g.add_edges(&edges);
    g.acyclic()
        .map_err(|c| Violation::from_edges(Pattern::CyclicPww, c))?;
    drop(g);
    Ok(Some(
        store_order::count_closure(h, lanes, &pww).expect("pww is acyclic"),
    ))
}
