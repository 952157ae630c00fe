//! Counting a partial store order at scale: the pairs of its closure,
//! counted on frontiers (the dense form lists them: [`StoreOrder::project`]).

use crate::certificate::Rel;
use crate::history::History;
use crate::models::StoreOrder;
use crate::relation::chains::NONE;

use super::lanes::{self, Lanes};
use super::Frontier;

/// At scale: the pairs of distinct non-initial same-variable writes in
/// the closure of `gen` (same-variable write pairs) together with each
/// lane's order of its writes of a variable, counted on frontiers of
/// one chain family per variable. `None` if that is cyclic.
pub fn count_closure(h: &History, lanes: &Lanes, gen: &[(u32, u32)]) -> Option<StoreOrder> {
    let mut g = lanes::per_var_graph(
        h,
        lanes,
        &|o| h.is_write(o).then(|| h.var(o).map(|v| v as u32)).flatten(),
        Rel::PoLoc,
        Rel::Wr,
        &|_, _| false,
    );
    let edges: Vec<(u32, u32, Rel)> = gen.iter().map(|&(a, b)| (a, b, Rel::Pww)).collect();
    g.add_edges(&edges);
    let f = Frontier::new(g).ok()?;
    let g = f.graph();
    let total = (0..h.vars.len())
        .map(|x| {
            let k = h.writes_of(x).len().saturating_sub(1);
            k * k.saturating_sub(1) / 2
        })
        .sum();
    let mut ordered = 0;
    for w in (0..h.n()).filter(|&w| h.is_write(w) && !h.is_init(w)) {
        let v = h.var(w).expect("writes have a variable") as u32;
        for slot in 0..g.slots() {
            let p = f.frontier(w as u32, slot);
            if p != NONE {
                ordered += g.writes_from(g.seq_of_slot(w as u32, slot), v, p);
            }
        }
        ordered -= 1; // w itself
    }
    Some(StoreOrder::Counted { ordered, total })
}
