//! A history as a timeline in inline SVG: a lane per gem5 port (else per
//! thread), each operation's issue..complete interval on a tick axis
//! (program-order positions for untimed histories), and a certificate's
//! cycle drawn over it as labelled arrows (po, wr, rw, pww, ...).
//!
//! Only a window around the certificate's operations is drawn: the
//! operations nearest each of them in start order (a few per lane), in
//! segments separated by axis breaks that say how many operations are
//! elided, so a page of a 10⁵-operation history stays small. Within a
//! segment the axis keeps the order of every issue and completion tick
//! (and so the real-time order of the intervals) but not their spacing.

use std::fmt::Write as _;

use crate::markup::{escape, letter};
use memconform_core::certificate::{Rel, Violation};
use memconform_core::history::{History, OpId, OpKind};
use memconform_ingest::gem5::tester::Origin;

/// Where each operation of a history is drawn: its lane and its interval.
pub struct Layout<'a> {
    /// Lane names, top to bottom (gem5 ports, or threads).
    pub lanes: Vec<String>,
    /// Per operation: its lane (`None` for an initial write).
    pub lane: Vec<Option<usize>>,
    /// Per operation: its interval `(start, end)` on the axis.
    pub span: Vec<(u64, u64)>,
    /// What the axis counts.
    pub axis: &'static str,
    gem5: Option<Gem5<'a>>,
}

/// The gem5 origins behind a layout, for the operations' tooltips.
struct Gem5<'a> {
    origins: &'a [Origin],
    trace: Option<&'a str>,
    /// Initial writes of the history the origins belong to.
    nv: usize,
    /// For a sub-history: each operation's id in that history.
    map: Option<Vec<OpId>>,
}

impl<'a> Layout<'a> {
    /// The layout of `h`: with gem5 origins (one per operation after the
    /// initial writes, and the trace's name) a lane per port and gem5
    /// ticks; else a lane per thread, on the ticks if every thread is
    /// timed, else on program-order positions.
    pub fn of(h: &History, gem5: Option<(&'a [Origin], Option<&'a str>)>) -> Layout<'a> {
        let nv = h.vars.len();
        let n = h.n();
        let mut lane = vec![None; n];
        let mut span = vec![(0, 0); n];
        if let Some((origins, trace)) = gem5.filter(|(o, _)| o.len() == n - nv) {
            let mut ports: Vec<u32> = origins.iter().map(|g| g.access.port).collect();
            ports.sort_unstable();
            ports.dedup();
            for (i, g) in origins.iter().enumerate() {
                let a = &g.access;
                lane[nv + i] = ports.binary_search(&a.port).ok();
                span[nv + i] = (a.issue_tick, a.complete_tick.max(a.issue_tick));
            }
            return Layout {
                lanes: ports.iter().map(|p| format!("port {p}")).collect(),
                lane,
                span,
                axis: "gem5 tick",
                gem5: Some(Gem5 {
                    origins,
                    trace,
                    nv,
                    map: None,
                }),
            };
        }
        let timed = !h.threads.is_empty()
            && h.threads
                .iter()
                .all(|t| t.timed && t.ops.clone().all(|o| h.ops[o].ticks.is_some()));
        for (t, th) in h.threads.iter().enumerate() {
            for (k, o) in th.ops.clone().enumerate() {
                lane[o] = Some(t);
                span[o] = match h.ops[o].ticks {
                    Some((a, b)) if timed => (a, b.max(a)),
                    _ => (k as u64, k as u64),
                };
            }
        }
        Layout {
            lanes: h.threads.iter().map(|t| t.name.clone()).collect(),
            lane,
            span,
            axis: if timed { "tick" } else { "po position" },
            gem5: None,
        }
    }

    /// The layout of a sub-history (a shrunk one) whose operation `o` is
    /// operation `origin[o]` here: the same lanes, intervals and origins.
    pub fn restricted(&self, origin: &[OpId], nv: usize) -> Layout<'a> {
        let lane = origin
            .iter()
            .enumerate()
            .map(|(o, &p)| if o < nv { None } else { self.lane[p] })
            .collect();
        let span = origin.iter().map(|&p| self.span[p]).collect();
        Layout {
            lanes: self.lanes.clone(),
            lane,
            span,
            axis: self.axis,
            gem5: self.gem5.as_ref().map(|g| Gem5 {
                origins: g.origins,
                trace: g.trace,
                nv: g.nv,
                map: Some(match &g.map {
                    Some(m) => origin.iter().map(|&p| m[p]).collect(),
                    None => origin.to_vec(),
                }),
            }),
        }
    }

    /// Operation `o`'s gem5 origin as text (port, byte, ticks, trace lines), if any.
    pub fn origin_text(&self, o: OpId) -> Option<String> {
        let g = self.gem5.as_ref()?;
        let p = g.map.as_ref().map_or(o, |m| m[o]);
        let origin = g.origins.get(p.checked_sub(g.nv)?)?;
        Some(memconform_ingest::gem5::origin_text(origin, g.trace))
    }
}

/// The operations drawn: segments of the axis, each with its operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub segments: Vec<Segment>,
    /// Operations drawn, and in the history (initial writes excluded).
    pub shown: usize,
    pub total: usize,
    /// Operations elided after the last segment.
    pub elided_after: usize,
}

/// A stretch of the axis with the operations drawn in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Its operations, in start order.
    pub ops: Vec<OpId>,
    /// Operations elided between the previous segment (or the start) and this one.
    pub elided_before: usize,
    /// Operations elided that start within this segment's stretch.
    pub elided_within: usize,
}

/// At most this many operations are drawn in one timeline.
pub const MAX_SHOWN: usize = 400;

/// The window of `h`'s operations around `keys`: for each key, the
/// `radius` operations before and after it in start order (fewer when
/// there are many keys: at most [`MAX_SHOWN`] in all), merged into
/// segments whose stretches of the axis do not overlap. Without keys, the
/// first operations.
pub fn window(h: &History, layout: &Layout, keys: &[OpId], radius: usize) -> Window {
    let nv = h.vars.len();
    let mut order: Vec<OpId> = (nv..h.n()).collect();
    order.sort_by_key(|&o| (layout.span[o].0, layout.lane[o], o));
    let total = order.len();
    let mut rank = vec![usize::MAX; h.n()];
    for (r, &o) in order.iter().enumerate() {
        rank[o] = r;
    }
    let mut key_ranks: Vec<usize> = keys
        .iter()
        .filter(|&&o| o >= nv && o < h.n())
        .map(|&o| rank[o])
        .collect();
    key_ranks.sort_unstable();
    key_ranks.dedup();
    if key_ranks.is_empty() && total > 0 {
        key_ranks.push(0);
    }
    let radius = radius.min((MAX_SHOWN / (2 * key_ranks.len().max(1))).max(1));
    // rank intervals around the keys, merged when they touch
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &r in &key_ranks {
        let (lo, hi) = (r.saturating_sub(radius), (r + radius).min(total - 1));
        match ranges.last_mut() {
            Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
            _ => ranges.push((lo, hi)),
        }
    }
    // each range's stretch of the axis; ranges whose stretches overlap merge
    let stretch = |&(lo, hi): &(usize, usize)| {
        let ops = &order[lo..=hi];
        (
            ops.iter().map(|&o| layout.span[o].0).min().unwrap_or(0),
            ops.iter().map(|&o| layout.span[o].1).max().unwrap_or(0),
        )
    };
    type Group = (Vec<(usize, usize)>, (u64, u64));
    let mut groups: Vec<Group> = Vec::new();
    for range in ranges {
        let s = stretch(&range);
        match groups.last_mut() {
            Some((rs, g)) if s.0 <= g.1 => {
                rs.push(range);
                g.1 = g.1.max(s.1);
            }
            _ => groups.push((vec![range], s)),
        }
    }
    let mut segments = Vec::new();
    let mut shown = 0;
    let mut next = 0; // first rank after the previous segment
    for (rs, _) in &groups {
        let (first, last) = (rs[0].0, rs[rs.len() - 1].1);
        let ops: Vec<OpId> = rs
            .iter()
            .flat_map(|&(lo, hi)| order[lo..=hi].to_vec())
            .collect();
        shown += ops.len();
        segments.push(Segment {
            elided_before: first - next,
            elided_within: (last + 1 - first) - ops.len(),
            ops,
        });
        next = last + 1;
    }
    Window {
        segments,
        shown,
        total,
        elided_after: total - next.min(total),
    }
}

/// The colour of a relation's arrows.
pub fn colour(rel: Rel) -> &'static str {
    match rel {
        Rel::Po | Rel::Ppo | Rel::PoLoc | Rel::PoPso => "#475569",
        Rel::Wr | Rel::Wre => "#15803d",
        Rel::Rw => "#dc2626",
        Rel::Cf => "#ea580c",
        Rel::HbO => "#9333ea",
        Rel::Pww | Rel::Wpww | Rel::St => "#2563eb",
        Rel::Rmw => "#a16207",
        Rel::Final => "#0d9488",
    }
}

/// What a relation is, for legends.
pub fn meaning(rel: Rel) -> &'static str {
    match rel {
        Rel::Po => "program order (in a real-time view: completed before issued)",
        Rel::Wr => "write-read: the read reads from the write",
        Rel::Rw => "read-write: the read's write is ordered before this write",
        Rel::Cf => "conflict (CCv)",
        Rel::HbO => "local happens-before of an observer (CM)",
        Rel::Pww => "CCM's partial store order",
        Rel::Wpww => "wCCM's weak partial store order",
        Rel::St => "wSC's store order",
        Rel::Ppo => "preserved program order (TSO)",
        Rel::PoLoc => "program order on one variable",
        Rel::Wre => "external write-read (other thread)",
        Rel::PoPso => "PSO's preserved program order",
        Rel::Rmw => "store order forced by an RMW's atomicity",
        Rel::Final => "store order forced by a @final observation",
    }
}

/// A drawn timeline and how much of the history it shows.
pub struct Drawing {
    pub svg: String,
    pub window: Window,
    /// The certificate's events drawn, of how many (a long cycle is drawn
    /// from its start, up to [`MAX_EVENTS`] events).
    pub events: (usize, usize),
}

/// At most this many of a certificate's events are drawn.
pub const MAX_EVENTS: usize = 32;

const LABEL_W: f64 = 104.0;
const ROW_H: f64 = 22.0;
const BOX_H: f64 = 16.0;
/// Above the boxes of a lane with a certificate event: its label.
const BAND: f64 = 17.0;
const TOP: f64 = 40.0;
const GAP_W: f64 = 66.0;
const INIT_W: f64 = 124.0;

/// A timeline of `h` (laid out by `layout`) around the events of `v`, with
/// its cycle as arrows; `id` prefixes every element id (unique per page).
/// Cycle operations are `<g class="op cycle-op" id="{id}-op-{letter}">`,
/// cycle edges `<g class="cycle-edge" id="{id}-edge-{i}" data-rel="rw">`.
pub fn timeline_svg(
    h: &History,
    layout: &Layout,
    v: &Violation,
    id: &str,
    radius: usize,
) -> Drawing {
    let mut events = v.events();
    let all_events = events.len();
    events.truncate(MAX_EVENTS);
    let keys: Vec<OpId> = events.iter().map(|&(o, _)| o).collect();
    let win = window(h, layout, &keys, radius);
    let name_of = |o: OpId| {
        events
            .iter()
            .position(|&(e, _)| e == o)
            .map(|i| (letter(i), events[i].1))
    };
    let inits: Vec<OpId> = keys.iter().copied().filter(|&o| h.is_init(o)).collect();

    // x of each value of each segment: equal steps (wider when there are
    // few), order kept
    let n_values: usize = win
        .segments
        .iter()
        .map(|seg| {
            let mut v: Vec<u64> = seg
                .ops
                .iter()
                .flat_map(|&o| [layout.span[o].0, layout.span[o].1])
                .collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        })
        .sum();
    let mut dx = (640.0 / n_values.max(1) as f64).clamp(13.0, 64.0);
    if win.shown <= 12 {
        // a few operations: room for every label of an event
        let widest = events
            .iter()
            .map(|&(o, _)| h.describe(o).len() as f64 * 7.3 + 12.0)
            .fold(0.0, f64::max);
        // neighbours in a lane: one value apart untimed, about two timed
        let share = if layout.axis == "po position" {
            0.9
        } else {
            0.5
        };
        dx = dx.max(widest * share);
    }
    let mut x = LABEL_W + 12.0 + if inits.is_empty() { 0.0 } else { INIT_W };
    let mut seg_x: Vec<(f64, Vec<u64>, f64)> = Vec::new(); // (left, values, width)
    let mut gaps: Vec<(f64, usize)> = Vec::new();
    for (k, seg) in win.segments.iter().enumerate() {
        if seg.elided_before > 0 || k > 0 {
            gaps.push((x, seg.elided_before));
            x += GAP_W;
        }
        let mut values: Vec<u64> = seg
            .ops
            .iter()
            .flat_map(|&o| [layout.span[o].0, layout.span[o].1])
            .collect();
        values.sort_unstable();
        values.dedup();
        let width = values.len() as f64 * dx + dx * 0.5;
        seg_x.push((x, values, width));
        x += width;
    }
    if win.elided_after > 0 {
        gaps.push((x, win.elided_after));
        x += GAP_W;
    }
    let width = x + 48.0;
    let pos = |k: usize, value: u64| -> f64 {
        let (left, values, _) = &seg_x[k];
        let i = values.partition_point(|&w| w < value);
        left + dx * (i as f64 + 0.75)
    };

    // lanes with something drawn; rows within a lane so that no boxes overlap
    let mut boxes: Vec<(OpId, f64, f64, usize)> = Vec::new(); // op, x0, x1, lane
    for (k, seg) in win.segments.iter().enumerate() {
        for &o in &seg.ops {
            let (s, e) = layout.span[o];
            let lane = layout.lane[o].unwrap_or(0);
            boxes.push((o, pos(k, s) - dx * 0.4, pos(k, e) + dx * 0.4, lane));
        }
    }
    let mut used_lanes: Vec<usize> = boxes.iter().map(|b| b.3).collect();
    used_lanes.sort_unstable();
    used_lanes.dedup();
    let mut row_of: Vec<usize> = vec![0; boxes.len()];
    let mut rows_in: Vec<usize> = vec![1; layout.lanes.len().max(1)];
    {
        // the certificate's events first: they take the top rows, under
        // their labels
        let mut idx: Vec<usize> = (0..boxes.len()).collect();
        idx.sort_by(|&a, &b| {
            let ka = !keys.contains(&boxes[a].0);
            let kb = !keys.contains(&boxes[b].0);
            ka.cmp(&kb).then(boxes[a].1.total_cmp(&boxes[b].1))
        });
        let mut taken: Vec<Vec<Vec<(f64, f64)>>> = vec![Vec::new(); layout.lanes.len().max(1)];
        for i in idx {
            let (_, x0, x1, lane) = boxes[i];
            let rows = &mut taken[lane];
            let free =
                |row: &Vec<(f64, f64)>| row.iter().all(|&(a, b)| x1 + 1.0 <= a || b + 1.0 <= x0);
            let r = rows.iter().position(free).unwrap_or(rows.len());
            if r == rows.len() {
                rows.push(Vec::new());
            }
            rows[r].push((x0, x1));
            row_of[i] = r;
            rows_in[lane] = rows_in[lane].max(rows.len());
        }
    }
    // lanes: a band for labels where there are events, then the rows
    let mut band: Vec<f64> = vec![3.0; layout.lanes.len().max(1)];
    for b in &boxes {
        if keys.contains(&b.0) {
            band[b.3] = BAND;
        }
    }
    // a few operations: room between the lanes for the arrows
    let spacing = if win.shown <= 12 { 22.0 } else { 4.0 };
    let mut lane_y: Vec<f64> = vec![0.0; layout.lanes.len().max(1)];
    let mut y = TOP;
    let init_y = y;
    if !inits.is_empty() {
        y += BAND + ROW_H + spacing;
    }
    for &l in &used_lanes {
        lane_y[l] = y;
        y += band[l] + rows_in[l] as f64 * ROW_H + spacing;
    }
    let lanes_bottom = y;
    let axis_y = lanes_bottom + 18.0;
    let height = axis_y + 28.0;

    let mut s = String::with_capacity(16 * 1024 + boxes.len() * 300);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="timeline" id="{id}" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="timeline of the violation">"#
    );
    // arrowheads, one per relation drawn
    let mut rels: Vec<Rel> = v.cycle.iter().map(|st| st.rel).collect();
    rels.dedup();
    s.push_str("<defs>");
    let mut seen_rels: Vec<Rel> = Vec::new();
    for &r in &rels {
        if seen_rels.contains(&r) {
            continue;
        }
        seen_rels.push(r);
        let _ = write!(
            s,
            r#"<marker id="{id}-ah-{}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{}"/></marker>"#,
            r.name(),
            colour(r)
        );
    }
    let _ = write!(
        s,
        r##"<marker id="{id}-ah-ctx" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#64748b"/></marker>"##
    );
    s.push_str("</defs>");

    // lanes: stripes and names
    let mut lane_rows: Vec<(String, f64, f64)> = Vec::new();
    if !inits.is_empty() {
        lane_rows.push(("initial values".into(), init_y, BAND + ROW_H + spacing));
    }
    for &l in &used_lanes {
        lane_rows.push((
            layout.lanes.get(l).cloned().unwrap_or_default(),
            lane_y[l],
            band[l] + rows_in[l] as f64 * ROW_H + spacing,
        ));
    }
    for (i, (name, ly, lh)) in lane_rows.iter().enumerate() {
        let name: String = if name.chars().count() > 14 {
            name.chars().take(13).chain(['…']).collect()
        } else {
            name.clone()
        };
        let _ = write!(
            s,
            r#"<rect class="lane" x="0" y="{:.1}" width="{width:.0}" height="{:.1}" fill="{}"/><text class="lane-name" x="10" y="{:.1}">{}</text>"#,
            ly,
            lh,
            if i % 2 == 0 { "#f8fafc" } else { "#eef2f7" },
            ly + lh / 2.0 + 4.0,
            escape(&name)
        );
    }
    let _ = write!(
        s,
        r##"<line x1="{LABEL_W}" y1="{:.1}" x2="{LABEL_W}" y2="{lanes_bottom:.1}" stroke="#cbd5e1"/>"##,
        TOP - 4.0
    );

    // axis breaks
    for &(gx, n) in &gaps {
        let mid = gx + GAP_W / 2.0;
        let _ = write!(
            s,
            r##"<g class="elided"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="url(#{id}-hatch)" opacity="0.9"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#94a3b8" stroke-dasharray="4 3"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#94a3b8" stroke-dasharray="4 3"/><text x="{mid:.1}" y="{:.1}" text-anchor="middle" class="gap-n">{}</text><text x="{mid:.1}" y="{:.1}" text-anchor="middle" class="gap-t">{}</text></g>"##,
            gx + 6.0,
            TOP - 4.0,
            GAP_W - 12.0,
            lanes_bottom - TOP + 4.0,
            gx + 6.0,
            TOP - 4.0,
            gx + 6.0,
            axis_y + 6.0,
            gx + GAP_W - 6.0,
            TOP - 4.0,
            gx + GAP_W - 6.0,
            axis_y + 6.0,
            TOP + 12.0,
            if n == 0 {
                "⋯".to_string()
            } else {
                group(n as u64)
            },
            TOP + 25.0,
            if n == 0 {
                "axis break"
            } else if n == 1 {
                "op elided"
            } else {
                "ops elided"
            },
        );
    }
    // the hatch pattern of the breaks (after use is fine in SVG)
    let _ = write!(
        s,
        r##"<defs><pattern id="{id}-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#f1f5f9"/><line x1="0" y1="0" x2="0" y2="8" stroke="#e2e8f0" stroke-width="3"/></pattern></defs>"##
    );

    // the axis
    let mut marks: Vec<(f64, u64, bool)> = Vec::new();
    let key_values: Vec<u64> = keys
        .iter()
        .filter(|&&o| !h.is_init(o))
        .flat_map(|&o| [layout.span[o].0, layout.span[o].1])
        .collect();
    for (k, (left, values, w)) in seg_x.iter().enumerate() {
        let _ = write!(
            s,
            r##"<line x1="{:.1}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="#334155" stroke-width="1.2"/>"##,
            left,
            left + w
        );
        for &value in values {
            let px = pos(k, value);
            marks.push((px, value, key_values.contains(&value)));
            let _ = write!(
                s,
                r##"<line x1="{px:.1}" y1="{axis_y:.1}" x2="{px:.1}" y2="{:.1}" stroke="#334155"/>"##,
                axis_y + 4.0
            );
        }
    }
    // labels: the key operations' ticks first, then others where they fit
    let mut placed: Vec<(f64, f64)> = Vec::new();
    let mut by_priority = marks.clone();
    by_priority.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.total_cmp(&b.0)));
    for (px, value, key) in by_priority {
        let text = value.to_string();
        let half = text.len() as f64 * 3.4 + 4.0;
        if placed.iter().any(|&(a, b)| px - half < b && px + half > a) {
            continue;
        }
        placed.push((px - half, px + half));
        let _ = write!(
            s,
            r#"<text class="{}" x="{px:.1}" y="{:.1}" text-anchor="middle">{text}</text>"#,
            if key { "tick key" } else { "tick" },
            axis_y + 17.0
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis-title" x="10" y="{:.1}">{} →</text>"#,
        axis_y + 17.0,
        escape(layout.axis)
    );

    // operation boxes
    let mut centre: Vec<(OpId, f64, f64, f64, f64)> = Vec::new(); // op, cx, cy, half w, half h
    let mut labels = String::new();
    let mut draw_op = |s: &mut String, o: OpId, x0: f64, x1: f64, y0: f64| {
        let kind = match h.ops[o].kind {
            OpKind::Write => "write",
            OpKind::Read => "read",
            OpKind::Fence => "fence",
        };
        let d = h.describe(o);
        let token = d.split_once(':').map_or(d.as_str(), |(_, t)| t);
        let (s0, e0) = layout.span[o];
        let mut tip = if h.is_init(o) {
            format!("{d}: the initial value")
        } else {
            format!("{d}: {} {s0}..{e0}", layout.axis)
        };
        if let Some(t) = layout.origin_text(o) {
            tip.push('\n');
            tip.push_str(&t);
        }
        let w = x1 - x0;
        match name_of(o) {
            Some((name, role)) => {
                let class = if role.is_some() {
                    "op named-op"
                } else {
                    "op cycle-op"
                };
                if let Some(r) = role {
                    tip.push_str("\nrole: ");
                    tip.push_str(r);
                }
                let _ = write!(
                    s,
                    r#"<g class="{class} {kind}" id="{id}-op-{name}"><title>{}</title><rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{BOX_H}" rx="3"/></g>"#,
                    escape(&tip),
                );
                // drawn after the edges, over them
                let _ = write!(
                    labels,
                    r#"<text class="op-label" x="{:.1}" y="{:.1}" text-anchor="middle">{name}: {}</text>"#,
                    (x0 + x1) / 2.0,
                    y0 - 5.0,
                    escape(token)
                );
            }
            None => {
                let _ = write!(
                    s,
                    r#"<g class="op {kind}"><title>{}</title><rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{BOX_H}" rx="3"/>"#,
                    escape(&tip)
                );
                if w >= token.chars().count() as f64 * 6.2 + 6.0 {
                    let _ = write!(
                        s,
                        r#"<text class="op-token" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                        (x0 + x1) / 2.0,
                        y0 + 13.0,
                        escape(token)
                    );
                }
                s.push_str("</g>");
            }
        }
        centre.push((o, (x0 + x1) / 2.0, y0 + BOX_H / 2.0, w / 2.0, BOX_H / 2.0));
    };
    for (i, &o) in inits.iter().enumerate() {
        let x0 = LABEL_W + 12.0 + i as f64 * (INIT_W / inits.len() as f64);
        let x1 = x0 + (INIT_W / inits.len() as f64) - 24.0;
        draw_op(&mut s, o, x0, x1.max(x0 + 20.0), init_y + BAND + 3.0);
    }
    for (i, &(o, x0, x1, lane)) in boxes.iter().enumerate() {
        let y0 = lane_y[lane] + band[lane] + row_of[i] as f64 * ROW_H + 3.0;
        draw_op(&mut s, o, x0, x1, y0);
    }

    // the relations behind the named operations (the write a read of the
    // cycle reads from), dashed; then the cycle's edges, over the boxes
    let at = |o: OpId| centre.iter().find(|c| c.0 == o).copied();
    for &(w, role) in &events {
        if role.is_none() {
            continue;
        }
        for &(r, _) in &events {
            if h.is_read(r)
                && h.rf(r) == Some(w)
                && !v.cycle.iter().any(|st| st.from == w && st.to == r)
            {
                if let (Some(a), Some(b)) = (at(w), at(r)) {
                    let tip = format!(
                        "{} -wr-> {}: {}",
                        name_of(w).map(|n| n.0).unwrap_or_default(),
                        name_of(r).map(|n| n.0).unwrap_or_default(),
                        meaning(Rel::Wr)
                    );
                    let attrs = r#"class="context-edge" data-rel="wr""#;
                    edge(
                        &mut s,
                        a,
                        b,
                        "wr",
                        "#64748b",
                        &format!("{id}-ah-ctx"),
                        attrs,
                        &tip,
                        true,
                    );
                }
            }
        }
    }
    for (i, step) in v.cycle.iter().enumerate() {
        let (Some(a), Some(b)) = (at(step.from), at(step.to)) else {
            continue;
        };
        if step.from == step.to {
            continue;
        }
        let rel = step.rel.name();
        let tip = format!(
            "{} -{rel}-> {}: {}",
            name_of(step.from).map(|n| n.0).unwrap_or_default(),
            name_of(step.to).map(|n| n.0).unwrap_or_default(),
            meaning(step.rel)
        );
        let attrs = format!(r#"class="cycle-edge" id="{id}-edge-{i}" data-rel="{rel}""#);
        edge(
            &mut s,
            a,
            b,
            rel,
            colour(step.rel),
            &format!("{id}-ah-{rel}"),
            &attrs,
            &tip,
            false,
        );
    }
    s.push_str(&labels);
    s.push_str("</svg>");
    Drawing {
        svg: s,
        window: win,
        events: (events.len(), all_events),
    }
}

/// A box to draw an edge between: its centre and half sizes.
type Anchor = (OpId, f64, f64, f64, f64);

/// Draws an arrow from box `a` to box `b`, bowed to the left of its
/// direction (so two edges between the same boxes, one each way, part),
/// labelled `label` at its middle; `attrs` go on its `<g>`, `tip` in its
/// tooltip (escaped here).
#[allow(clippy::too_many_arguments)]
fn edge(
    s: &mut String,
    a: Anchor,
    b: Anchor,
    label: &str,
    c: &str,
    marker: &str,
    attrs: &str,
    tip: &str,
    dashed: bool,
) {
    let (dx, dy) = (b.1 - a.1, b.2 - a.2);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let bow = (len * 0.22).clamp(28.0, 90.0);
    // to the left of the direction of travel: forward edges bow up, an
    // edge back between the same two operations bows down
    let (nx, ny) = (dy / len, -dx / len);
    let (cx, cy) = ((a.1 + b.1) / 2.0 + nx * bow, (a.2 + b.2) / 2.0 + ny * bow);
    let exit = |p: Anchor, gap: f64| {
        let (ux, uy) = (cx - p.1, cy - p.2);
        let l = (ux * ux + uy * uy).sqrt().max(1e-9);
        let (ux, uy) = (ux / l, uy / l);
        let tx = if ux.abs() > 1e-9 {
            p.3 / ux.abs()
        } else {
            f64::MAX
        };
        let ty = if uy.abs() > 1e-9 {
            p.4 / uy.abs()
        } else {
            f64::MAX
        };
        let t = tx.min(ty) + gap;
        (p.1 + ux * t, p.2 + uy * t)
    };
    let (sx, sy) = exit(a, 1.0);
    let (ex, ey) = exit(b, 2.0);
    let (mx, my) = (
        0.25 * sx + 0.5 * cx + 0.25 * ex,
        0.25 * sy + 0.5 * cy + 0.25 * ey,
    );
    let lw = label.len() as f64 * 7.4 + 10.0;
    let (width, dash) = if dashed {
        ("1.6", r#" stroke-dasharray="5 3""#)
    } else {
        ("2.4", "")
    };
    let _ = write!(
        s,
        r##"<g {attrs}><title>{}</title><path d="M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round" opacity="0.85"/><path d="M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}" fill="none" stroke="{c}" stroke-width="{width}"{dash} marker-end="url(#{marker})"/><rect x="{:.1}" y="{:.1}" width="{lw:.1}" height="17" rx="8.5" fill="#fff" stroke="{c}" stroke-width="1.4"/><text class="edge-label" x="{mx:.1}" y="{:.1}" text-anchor="middle" fill="{c}">{}</text></g>"##,
        escape(tip),
        mx - lw / 2.0,
        my - 8.5,
        my + 4.5,
        escape(label)
    );
}

/// `n` with thin spaces between groups of three digits.
fn group(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use memconform_core::check::{check_gradual_with, Options};
    use memconform_core::gen::{history, Memory, Shape};
    use memconform_core::models::Model;

    #[test]
    fn the_window_of_a_large_history_is_small_and_holds_the_keys() {
        let h = history(
            Memory::Sc,
            Shape {
                threads: 4,
                ops_per_thread: 25_000,
                vars: 8,
                write_ratio: 0.5,
            },
            7,
        );
        let layout = Layout::of(&h, None);
        let nv = h.vars.len();
        let keys = [nv + 10, nv + 60_000, nv + 99_990];
        let w = window(&h, &layout, &keys, 12);
        assert_eq!(w.total, 100_000);
        assert!(w.shown <= 3 * 25, "{} shown", w.shown);
        let drawn: Vec<OpId> = w.segments.iter().flat_map(|s| s.ops.clone()).collect();
        for k in keys {
            assert!(drawn.contains(&k), "key {k} not drawn");
        }
        let elided: usize = w
            .segments
            .iter()
            .map(|s| s.elided_before + s.elided_within)
            .sum::<usize>()
            + w.elided_after;
        assert_eq!(elided + w.shown, w.total);
        // the far-apart keys are in separate segments, with breaks between
        assert!(w.segments.len() >= 2);
        assert!(w.segments[1].elided_before > 1000);
    }

    #[test]
    fn a_small_history_is_drawn_whole() {
        let h = memconform_ingest::load_bytes(
            b"t0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n",
            std::path::Path::new("sb.hist"),
        )
        .unwrap()
        .remove(0);
        let o = check_gradual_with(&h, &[Model::Sc], &Options::default())
            .pop()
            .unwrap();
        let v = o.violation().expect("store buffering violates SC");
        let layout = Layout::of(&h, None);
        let d = timeline_svg(&h, &layout, v, "t", 50);
        assert_eq!(d.window.shown, 4);
        assert_eq!(d.window.segments.len(), 1);
        assert_eq!(d.svg.matches("class=\"cycle-edge\"").count(), v.cycle.len());
        assert!(d.svg.contains("id=\"t-op-a\""));
        assert!(d.svg.starts_with("<svg") && d.svg.ends_with("</svg>"));
    }
}
