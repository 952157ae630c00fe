//! A history as a timeline in inline SVG: a lane per lane of its origins
//! (a gem5 port; else per thread), each operation's issue..complete
//! interval on a tick axis (program-order positions for untimed
//! histories), and a certificate's cycle drawn over it as labelled arrows
//! (po, wr, rw, pww, ...).
//!
//! Only a window around the certificate's operations is drawn: the
//! operations nearest each of them in start order (a few per lane), in
//! segments separated by axis breaks that say how many operations are
//! elided, so a page of a 10⁵-operation history stays small. Within a
//! segment the axis keeps the order of every issue and completion tick
//! (and so the real-time order of the intervals) but not their spacing.
//!
//! Nothing is drawn over a label (docs/design/figures.md §1). Every text is in a
//! monospace font and drawn `textLength` wide, so its box is known here;
//! the events' labels go in lines above their rows, each where it meets no
//! other; each arrow is the cheapest of a few hundred cubic curves between
//! the sides of its two boxes that crosses no text and no pill of an arrow
//! before it, with its own pill where no arrow crosses it and it covers no
//! text ([`route`]); an operation's token is left out where an arrow must
//! cross it. Where an arrow fits nowhere, the timeline is laid out again
//! with more room.

use std::fmt::Write as _;

mod route;

use crate::markup::{escape, letter};
use memconform_core::certificate::{Rel, Violation};
use memconform_core::history::{History, OpId, OpKind};
use memconform_ingest::Origins;
use route::{Obstacles, Rect, Route};

/// Where each operation of a history is drawn: its lane and its interval.
pub struct Layout<'a> {
    /// Lane names, top to bottom (the origins' lanes, or threads).
    pub lanes: Vec<String>,
    /// Per operation: its lane (`None` for an initial write).
    pub lane: Vec<Option<usize>>,
    /// Per operation: its interval `(start, end)` on the axis.
    pub span: Vec<(u64, u64)>,
    /// What the axis counts.
    pub axis: &'static str,
    origins: Option<Traced<'a>>,
}

/// The origins behind a layout, for the operations' tooltips.
struct Traced<'a> {
    origins: &'a Origins,
    /// The source file's name, as the tooltips give it.
    source: Option<String>,
    /// Initial writes of the history the origins belong to.
    nv: usize,
    /// For a sub-history: each operation's id in that history.
    map: Option<Vec<OpId>>,
}

impl<'a> Layout<'a> {
    /// The layout of `h`: with origins (one per operation after the
    /// initial writes) a lane per lane of theirs, on their clock; else a
    /// lane per thread, on the ticks if every thread is timed, else on
    /// program-order positions.
    pub fn of(h: &History, origins: Option<&'a Origins>) -> Layout<'a> {
        let nv = h.vars.len();
        let n = h.n();
        let mut lane = vec![None; n];
        let mut span = vec![(0, 0); n];
        if let Some(origins) = origins.filter(|o| o.ops.len() == n - nv) {
            for (i, g) in origins.ops.iter().enumerate() {
                lane[nv + i] = Some(g.lane as usize);
                span[nv + i] = (g.time.0, g.time.1.max(g.time.0));
            }
            return Layout {
                lanes: origins.lanes.clone(),
                lane,
                span,
                axis: origins.terms.axis,
                origins: Some(Traced {
                    origins,
                    source: origins
                        .source
                        .as_deref()
                        .map(|t| crate::path_text(t).into_owned()),
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
            origins: None,
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
            origins: self.origins.as_ref().map(|g| Traced {
                origins: g.origins,
                source: g.source.clone(),
                nv: g.nv,
                map: Some(match &g.map {
                    Some(m) => origin.iter().map(|&p| m[p]).collect(),
                    None => origin.to_vec(),
                }),
            }),
        }
    }

    /// Operation `o`'s origin as text (a gem5 port, byte, ticks, trace
    /// lines), if any.
    pub fn origin_text(&self, o: OpId) -> Option<String> {
        let g = self.origins.as_ref()?;
        let p = g.map.as_ref().map_or(o, |m| m[o]);
        let i = p.checked_sub(g.nv).filter(|&i| i < g.origins.ops.len())?;
        Some(g.origins.text(i, g.source.as_deref()))
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
        Rel::Po | Rel::Ppo | Rel::PoLoc | Rel::PoPso | Rel::PoRmo | Rel::Bob | Rel::Aob => {
            "#475569"
        }
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
        Rel::PoRmo => "RMO's preserved program order: the pairs a fence orders",
        Rel::Bob => "ARMv8's barrier-ordered-before (fences, acquire, release)",
        Rel::Aob => "ARMv8's atomic-ordered-before (an RMW's read before its write)",
    }
}

/// A drawn timeline and how much of the history it shows.
pub struct Drawing {
    pub svg: String,
    pub window: Window,
    /// The certificate's events drawn, of how many (a long cycle is drawn
    /// from its start, up to [`MAX_EVENTS`] events).
    pub events: (usize, usize),
    /// Whether it was laid out clear: no two texts overlap and no arrow
    /// crosses a text (pills included).
    pub clear: bool,
}

/// At most this many of a certificate's events are drawn.
pub const MAX_EVENTS: usize = 32;

const LABEL_W: f64 = 104.0;
const ROW_H: f64 = 22.0;
const BOX_H: f64 = 16.0;
/// A line of operation labels above a row of boxes.
const LINE: f64 = 16.0;
const TOP: f64 = 40.0;
const GAP_W: f64 = 76.0;
/// Layouts tried, with more room each time, until the arrows fit.
const ATTEMPTS: usize = 4;

/// Every text of a timeline is in a monospace font and drawn `ADVANCE`
/// font sizes wide per character (its `textLength`), so its box is known
/// here; html.rs's CSS gives each class its font size, these.
const OP_LABEL: f64 = 12.0;
const OP_TOKEN: f64 = 10.0;
const LANE_NAME: f64 = 11.0;
const TICK: f64 = 10.0;
const AXIS_TITLE: f64 = 11.0;
const EDGE_LABEL: f64 = 11.0;
const GAP_N: f64 = 12.0;
const GAP_T: f64 = 10.0;
/// A character's width, in font sizes.
const ADVANCE: f64 = 0.6;
/// How far a text's box reaches above its baseline and below, and past
/// either end (some glyphs' ink, a `w`'s or an italic's, does), in font
/// sizes.
const ASCENT: f64 = 0.95;
const DESCENT: f64 = 0.3;
const OVERHANG: f64 = 0.1;

/// How wide `text` is drawn at `size` px.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * ADVANCE * size
}

/// A text of a timeline: its class, left end, baseline and font size.
#[derive(Debug, Clone)]
struct Text {
    class: &'static str,
    x: f64,
    y: f64,
    size: f64,
    text: String,
}

impl Text {
    fn new(class: &'static str, size: f64, x: f64, y: f64, text: impl Into<String>) -> Text {
        Text {
            class,
            x,
            y,
            size,
            text: text.into(),
        }
    }

    fn width(&self) -> f64 {
        text_width(&self.text, self.size)
    }

    fn rect(&self) -> Rect {
        Rect::new(
            self.x - OVERHANG * self.size,
            self.y - ASCENT * self.size,
            self.x + self.width() + OVERHANG * self.size,
            self.y + DESCENT * self.size,
        )
    }

    /// The text as SVG (`attrs` added to its element).
    fn write(&self, s: &mut String, attrs: &str) {
        let _ = write!(
            s,
            r#"<text class="{}" x="{:.1}" y="{:.1}" textLength="{:.1}"{attrs}>{}</text>"#,
            self.class,
            self.x,
            self.y,
            self.width(),
            escape(&self.text)
        );
    }
}

/// Room to lay a timeline out in: a factor on the step between axis
/// values, the space under each lane, the margin above the lanes.
#[derive(Debug, Clone, Copy)]
struct Room {
    scale: f64,
    spacing: f64,
    top: f64,
}

impl Room {
    fn more(self) -> Room {
        Room {
            scale: self.scale * 1.3,
            spacing: self.spacing + 18.0,
            top: self.top + 12.0,
        }
    }
}

/// What a timeline draws: a history laid out, a certificate, its events
/// (those drawn) and the window of operations around them.
struct Plan<'p, 'a> {
    h: &'p History,
    layout: &'p Layout<'a>,
    v: &'p Violation,
    events: Vec<(OpId, Option<&'static str>)>,
    keys: Vec<OpId>,
    inits: Vec<OpId>,
    win: Window,
}

/// Where the axis values go: per segment its left end, values and width;
/// the axis breaks (left end, operations elided); the initial writes'
/// boxes (left and right ends); the timeline's width.
struct Columns {
    dx: f64,
    segments: Vec<(f64, Vec<u64>, f64)>,
    gaps: Vec<(f64, usize)>,
    inits: Vec<(f64, f64)>,
    width: f64,
}

impl Columns {
    /// The x of `value` in segment `k`.
    fn pos(&self, k: usize, value: u64) -> f64 {
        let (left, values, _) = &self.segments[k];
        let i = values.partition_point(|&w| w < value);
        left + self.dx * (i as f64 + 0.75)
    }
}

/// An operation's box: the operation, its place, its lane (in drawing
/// order) and row in the lane, and its token (the operation written in
/// the box, where it fits and no arrow crosses it).
struct OpBox {
    op: OpId,
    rect: Rect,
    lane: usize,
    row: usize,
    token: Option<Text>,
}

/// An arrow laid out: the certificate's step it draws (`None`: a context
/// edge), its ends, relation name, colour, route and label.
struct Arrow {
    step: Option<usize>,
    from: OpId,
    to: OpId,
    rel: &'static str,
    colour: &'static str,
    route: Route,
    label: Text,
}

/// A timeline laid out.
struct Scene {
    width: f64,
    height: f64,
    /// Lane stripes in drawing order: name, top, height.
    lanes: Vec<(String, f64, f64)>,
    lanes_bottom: f64,
    axis_y: f64,
    columns: Columns,
    /// The axis' marks (x).
    marks: Vec<f64>,
    boxes: Vec<OpBox>,
    /// Lane names, axis labels, breaks' counts, operation labels.
    texts: Vec<Text>,
    arrows: Vec<Arrow>,
    /// Arrows laid out with a collision (0 when clear).
    clashes: usize,
}

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
    let inits = keys.iter().copied().filter(|&o| h.is_init(o)).collect();
    let plan = Plan {
        h,
        layout,
        v,
        events,
        keys,
        inits,
        win,
    };
    let mut room = Room {
        scale: 1.0,
        spacing: if plan.win.shown <= 12 { 44.0 } else { 8.0 },
        top: TOP,
    };
    let mut best = plan.scene(room);
    for _ in 1..ATTEMPTS {
        if best.clashes == 0 {
            break;
        }
        room = room.more();
        let next = plan.scene(room);
        if next.clashes < best.clashes {
            best = next;
        }
    }
    let svg = plan.render(&best, id);
    Drawing {
        svg,
        clear: best.clashes == 0,
        events: (plan.events.len(), all_events),
        window: plan.win,
    }
}

impl Plan<'_, '_> {
    /// The certificate's name (letter) and role of `o`, if it is an event.
    fn name_of(&self, o: OpId) -> Option<(String, Option<&'static str>)> {
        self.events
            .iter()
            .position(|&(e, _)| e == o)
            .map(|i| (letter(i), self.events[i].1))
    }

    /// What `o` is: `W(x,1)`.
    fn token(&self, o: OpId) -> String {
        let d = self.h.describe(o);
        match d.split_once(':') {
            Some((_, t)) => t.to_string(),
            None => d,
        }
    }

    /// The label of event `o`: `b: W(x,1)`.
    fn label(&self, o: OpId) -> Option<String> {
        self.name_of(o)
            .map(|(name, _)| format!("{name}: {}", self.token(o)))
    }

    /// The width of the widest token of the operations drawn.
    fn widest_token(&self) -> f64 {
        self.win
            .segments
            .iter()
            .flat_map(|s| s.ops.iter())
            .map(|&o| text_width(&self.token(o), OP_TOKEN))
            .fold(0.0, f64::max)
    }

    /// The distinct axis values of segment `seg`'s operations, in order.
    fn values(&self, seg: &Segment) -> Vec<u64> {
        let mut v: Vec<u64> = seg
            .ops
            .iter()
            .flat_map(|&o| [self.layout.span[o].0, self.layout.span[o].1])
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Where the axis values go: equal steps (wide enough for the events'
    /// labels where there are few values), order kept.
    fn columns(&self, room: Room) -> Columns {
        let n_values: usize = self.win.segments.iter().map(|s| self.values(s).len()).sum();
        let mut dx = (640.0 / n_values.max(1) as f64).clamp(13.0, 64.0);
        let untimed = self.layout.axis == "po position";
        if self.win.shown <= 12 || untimed {
            let mut widest = self
                .keys
                .iter()
                .filter_map(|&o| self.label(o))
                .map(|l| text_width(&l, OP_LABEL) + 16.0)
                .fold(0.0, f64::max);
            if untimed && self.win.shown <= 12 {
                // room between two boxes for an arrow and its label
                widest = widest.max(self.widest_token() + 16.0 + 64.0);
            }
            // neighbours in a lane: one value apart untimed, about two timed
            let share = if untimed { 1.0 } else { 0.5 };
            dx = dx.max((widest * share).min(1600.0 / n_values.max(1) as f64));
        }
        dx *= room.scale;
        let mut x = LABEL_W + 12.0;
        let mut inits = Vec::new();
        for &o in &self.inits {
            let w = self
                .label(o)
                .map_or(40.0, |l| text_width(&l, OP_LABEL))
                .max(44.0);
            inits.push((x, x + w));
            x += w + 16.0;
        }
        let mut segments = Vec::new();
        let mut gaps = Vec::new();
        for (k, seg) in self.win.segments.iter().enumerate() {
            if seg.elided_before > 0 || k > 0 {
                gaps.push((x, seg.elided_before));
                x += GAP_W;
            }
            let values = self.values(seg);
            let width = values.len() as f64 * dx + dx * 0.5;
            segments.push((x, values, width));
            x += width;
        }
        if self.win.elided_after > 0 {
            gaps.push((x, self.win.elided_after));
            x += GAP_W;
        }
        Columns {
            dx,
            segments,
            gaps,
            inits,
            width: x + 48.0,
        }
    }

    /// The operations' boxes, placed in x, with lanes (in drawing order:
    /// the initial values first, if any) and rows within them so that no
    /// boxes of a lane overlap; and the lanes drawn.
    fn boxes(&self, cols: &Columns) -> (Vec<OpBox>, Vec<String>) {
        let layout = self.layout;
        let mut lanes: Vec<String> = Vec::new();
        let mut boxes: Vec<OpBox> = Vec::new();
        let new_box = |op, x0, x1, lane| OpBox {
            op,
            rect: Rect::new(x0, 0.0, x1, BOX_H),
            lane,
            row: 0,
            token: None,
        };
        if !self.inits.is_empty() {
            lanes.push("initial values".into());
            for (&o, &(x0, x1)) in self.inits.iter().zip(&cols.inits) {
                boxes.push(new_box(o, x0, x1, 0));
            }
        }
        let mut used: Vec<usize> = self
            .win
            .segments
            .iter()
            .flat_map(|s| s.ops.iter().map(|&o| layout.lane[o].unwrap_or(0)))
            .collect();
        used.sort_unstable();
        used.dedup();
        let first = lanes.len();
        lanes.extend(
            used.iter()
                .map(|&l| layout.lanes.get(l).cloned().unwrap_or_default()),
        );
        // untimed, a box need be no wider than the widest token
        let half = if layout.axis == "po position" {
            (cols.dx * 0.4).min(self.widest_token() / 2.0 + 8.0)
        } else {
            cols.dx * 0.4
        };
        for (k, seg) in self.win.segments.iter().enumerate() {
            for &o in &seg.ops {
                let (s, e) = layout.span[o];
                let lane = first + used.binary_search(&layout.lane[o].unwrap_or(0)).unwrap();
                boxes.push(new_box(
                    o,
                    cols.pos(k, s) - half,
                    cols.pos(k, e) + half,
                    lane,
                ));
            }
        }
        // rows: the certificate's events first, so they take the top rows
        let mut idx: Vec<usize> = (0..boxes.len()).collect();
        idx.sort_by(|&a, &b| {
            let ka = !self.keys.contains(&boxes[a].op);
            let kb = !self.keys.contains(&boxes[b].op);
            ka.cmp(&kb)
                .then(boxes[a].rect.x0.total_cmp(&boxes[b].rect.x0))
        });
        let mut taken: Vec<Vec<Vec<(f64, f64)>>> = vec![Vec::new(); lanes.len()];
        for i in idx {
            let (x0, x1) = (boxes[i].rect.x0, boxes[i].rect.x1);
            let rows = &mut taken[boxes[i].lane];
            let free =
                |row: &Vec<(f64, f64)>| row.iter().all(|&(a, b)| x1 + 1.0 <= a || b + 1.0 <= x0);
            let r = rows.iter().position(free).unwrap_or(rows.len());
            if r == rows.len() {
                rows.push(Vec::new());
            }
            rows[r].push((x0, x1));
            boxes[i].row = r;
        }
        (boxes, lanes)
    }

    /// The events' labels over their boxes: per (lane, row), the labels of
    /// its events in lines above it, each where it overlaps no other label
    /// (over its box, else flush with its left or right end), in the
    /// lowest line it fits. Each label's line and left end, by box.
    fn label_lines(&self, boxes: &[OpBox], width: f64) -> Vec<Option<(usize, f64, String)>> {
        let mut out: Vec<Option<(usize, f64, String)>> = vec![None; boxes.len()];
        let mut order: Vec<usize> = (0..boxes.len())
            .filter(|&i| self.keys.contains(&boxes[i].op))
            .collect();
        order.sort_by(|&a, &b| {
            (boxes[a].lane, boxes[a].row)
                .cmp(&(boxes[b].lane, boxes[b].row))
                .then(boxes[a].rect.x0.total_cmp(&boxes[b].rect.x0))
        });
        // labels placed so far in the current (lane, row): line, x0, x1
        let mut placed: Vec<(usize, f64, f64)> = Vec::new();
        let mut at = (usize::MAX, usize::MAX);
        for i in order {
            let b = &boxes[i];
            if (b.lane, b.row) != at {
                at = (b.lane, b.row);
                placed.clear();
            }
            let text = self.label(b.op).unwrap_or_default();
            let w = text_width(&text, OP_LABEL);
            let fit = |x: f64| x.clamp(LABEL_W + 4.0, (width - 4.0 - w).max(LABEL_W + 4.0));
            let xs = [
                fit((b.rect.x0 + b.rect.x1 - w) / 2.0),
                fit(b.rect.x0),
                fit(b.rect.x1 - w),
            ];
            let (line, x) = (0..)
                .find_map(|line| {
                    xs.iter()
                        .find(|&&x| {
                            placed
                                .iter()
                                .all(|&(l, a, z)| l != line || x + w + 4.0 <= a || z + 4.0 <= x)
                        })
                        .map(|&x| (line, x))
                })
                .expect("a line above all others is free");
            placed.push((line, x, x + w));
            out[i] = Some((line, x, text));
        }
        out
    }

    /// The timeline laid out with `room`.
    fn scene(&self, room: Room) -> Scene {
        let cols = self.columns(room);
        let width = cols.width;
        let (mut boxes, lane_names) = self.boxes(&cols);
        let labels = self.label_lines(&boxes, width);
        // lines of labels above each row of each lane
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); lane_names.len()];
        for (b, l) in boxes.iter().zip(&labels) {
            let lines = &mut rows[b.lane];
            if lines.len() <= b.row {
                lines.resize(b.row + 1, 0);
            }
            if let Some((line, _, _)) = l {
                lines[b.row] = lines[b.row].max(line + 1);
            }
        }
        // the rows' tops, lane by lane
        let mut row_y: Vec<Vec<f64>> = Vec::new();
        let mut lanes = Vec::new();
        let mut y = room.top;
        for (name, lines) in lane_names.iter().zip(&rows) {
            let top = y;
            let mut ys = Vec::new();
            for &n in lines {
                y += n as f64 * LINE;
                ys.push(y + 3.0);
                y += ROW_H;
            }
            y += room.spacing;
            row_y.push(ys);
            let name: String = if name.chars().count() > 14 {
                name.chars().take(13).chain(['…']).collect()
            } else {
                name.clone()
            };
            lanes.push((name, top, y - top));
        }
        let lanes_bottom = y;
        let axis_y = lanes_bottom + 18.0;
        let height = axis_y + 38.0;

        let mut texts = Vec::new();
        for (name, top, h) in &lanes {
            texts.push(Text::new(
                "lane-name",
                LANE_NAME,
                10.0,
                top + h / 2.0 + 4.0,
                name.clone(),
            ));
        }
        for (b, l) in boxes.iter_mut().zip(labels) {
            let y0 = row_y[b.lane][b.row];
            b.rect = Rect::new(b.rect.x0, y0, b.rect.x1, y0 + BOX_H);
            if let Some((line, x, text)) = l {
                texts.push(Text::new(
                    "op-label",
                    OP_LABEL,
                    x,
                    y0 - 6.0 - line as f64 * LINE,
                    text,
                ));
            } else if !self.keys.contains(&b.op) {
                let token = self.token(b.op);
                let w = text_width(&token, OP_TOKEN);
                if b.rect.width() >= w + 6.0 {
                    let cx = (b.rect.x0 + b.rect.x1) / 2.0;
                    b.token = Some(Text::new(
                        "op-token",
                        OP_TOKEN,
                        cx - w / 2.0,
                        y0 + 12.0,
                        token,
                    ));
                }
            }
        }
        let marks = self.axis_texts(&cols, axis_y, &mut texts);

        let mut scene = Scene {
            width,
            height,
            lanes,
            lanes_bottom,
            axis_y,
            columns: cols,
            marks,
            boxes,
            texts,
            arrows: Vec::new(),
            clashes: 0,
        };
        self.route_arrows(&mut scene);
        scene
    }

    /// The axis' texts (the breaks' counts, the values where they fit: the
    /// events' first, on a second line if need be; its title) added to
    /// `texts`; its marks.
    fn axis_texts(&self, cols: &Columns, axis_y: f64, texts: &mut Vec<Text>) -> Vec<f64> {
        let (h, layout) = (self.h, self.layout);
        let mut placed: Vec<Rect> = Vec::new();
        for &(gx, n) in &cols.gaps {
            let mid = gx + GAP_W / 2.0;
            let count = if n == 0 {
                "⋯".to_string()
            } else {
                group(n as u64)
            };
            let what = match n {
                0 => "axis break",
                1 => "op elided",
                _ => "ops elided",
            };
            for (class, size, y, t) in [
                ("gap-n", GAP_N, axis_y + 17.0, count),
                ("gap-t", GAP_T, axis_y + 31.5, what.to_string()),
            ] {
                let w = text_width(&t, size);
                let text = Text::new(class, size, mid - w / 2.0, y, t);
                placed.push(text.rect());
                texts.push(text);
            }
        }
        let key_values: Vec<u64> = self
            .keys
            .iter()
            .filter(|&&o| !h.is_init(o))
            .flat_map(|&o| [layout.span[o].0, layout.span[o].1])
            .collect();
        let mut marks: Vec<(f64, u64, bool)> = Vec::new();
        for (k, (_, values, _)) in cols.segments.iter().enumerate() {
            for &value in values {
                marks.push((cols.pos(k, value), value, key_values.contains(&value)));
            }
        }
        let mut by_priority = marks.clone();
        by_priority.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.total_cmp(&b.0)));
        for (px, value, key) in by_priority {
            let t = value.to_string();
            let w = text_width(&t, TICK);
            let lines: &[f64] = if key { &[17.0, 30.0] } else { &[17.0] };
            for &dy in lines {
                let text = Text::new(
                    if key { "tick key" } else { "tick" },
                    TICK,
                    px - w / 2.0,
                    axis_y + dy,
                    t.clone(),
                );
                let r = text.rect().grow(2.0);
                if placed.iter().all(|p| !p.overlaps(&r)) {
                    placed.push(text.rect());
                    texts.push(text);
                    break;
                }
            }
        }
        texts.push(Text::new(
            "axis-title",
            AXIS_TITLE,
            10.0,
            axis_y + 17.0,
            format!("{} →", layout.axis),
        ));
        marks.into_iter().map(|m| m.0).collect()
    }

    /// The cycle's edges and then the context edges (the write a named
    /// read of the cycle reads from), each routed clear of every text and
    /// of the pills and arrows routed before it.
    fn route_arrows(&self, scene: &mut Scene) {
        let (h, v) = (self.h, self.v);
        let mut wanted: Vec<(Option<usize>, OpId, OpId, &'static str, &'static str)> = Vec::new();
        for (i, step) in v.cycle.iter().enumerate() {
            if step.from != step.to {
                wanted.push((
                    Some(i),
                    step.from,
                    step.to,
                    step.rel.name(),
                    colour(step.rel),
                ));
            }
        }
        for &(w, role) in &self.events {
            if role.is_none() {
                continue;
            }
            for &(r, _) in &self.events {
                if h.is_read(r)
                    && h.rf(r) == Some(w)
                    && !v.cycle.iter().any(|st| st.from == w && st.to == r)
                {
                    wanted.push((None, w, r, "wr", "#64748b"));
                }
            }
        }
        let mut obs = Obstacles {
            labels: scene.texts.iter().map(Text::rect).collect(),
            boxes: scene.boxes.iter().map(|b| b.rect).collect(),
            tokens: scene.boxes.iter().map(|b| b.token.is_some()).collect(),
            arrows: Vec::new(),
            region: Rect::new(LABEL_W + 2.0, 2.0, scene.width - 2.0, scene.axis_y - 3.0),
        };
        // the cycle's edges before the context edges, the shortest first
        // (they have the fewest ways round)
        let at = |o: OpId| scene.boxes.iter().position(|b| b.op == o);
        let centre = |k: usize| {
            let r = scene.boxes[k].rect;
            ((r.x0 + r.x1) / 2.0, (r.y0 + r.y1) / 2.0)
        };
        let mut ends: Vec<(usize, usize, f64)> = Vec::new();
        for &(step, from, to, _, _) in &wanted {
            if let (Some(a), Some(b)) = (at(from), at(to)) {
                let (p, q) = (centre(a), centre(b));
                let d = (q.0 - p.0).hypot(q.1 - p.1);
                ends.push((a, b, if step.is_some() { d } else { 1e9 + d }));
            } else {
                ends.push((0, 0, f64::NAN));
            }
        }
        let mut order: Vec<usize> = (0..wanted.len()).filter(|&i| !ends[i].2.is_nan()).collect();
        order.sort_by(|&i, &j| ends[i].2.total_cmp(&ends[j].2));
        for i in order {
            let (step, from, to, rel, colour) = wanted[i];
            let (a, b, _) = ends[i];
            let w = text_width(rel, EDGE_LABEL);
            let route = route::route(&obs, a, b, (w + 12.0, 17.0));
            if !route.clear {
                scene.clashes += 1;
            }
            for &k in &route.covered {
                obs.tokens[k] = false;
                scene.boxes[k].token = None;
            }
            obs.labels.push(route.pill);
            obs.arrows.push(route.line.clone());
            let p = route.pill;
            let label = Text::new(
                "edge-label",
                EDGE_LABEL,
                (p.x0 + p.x1 - w) / 2.0,
                (p.y0 + p.y1) / 2.0 + 4.0,
                rel,
            );
            scene.arrows.push(Arrow {
                step,
                from,
                to,
                rel,
                colour,
                route,
                label,
            });
        }
    }

    /// The scene as SVG.
    fn render(&self, sc: &Scene, id: &str) -> String {
        let (width, height) = (sc.width, sc.height);
        let mut s = String::with_capacity(16 * 1024 + sc.boxes.len() * 300);
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="timeline" id="{id}" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="timeline of the violation">"#
        );
        // arrowheads, one per relation drawn
        s.push_str("<defs>");
        let mut seen: Vec<Rel> = Vec::new();
        for st in &self.v.cycle {
            if seen.contains(&st.rel) {
                continue;
            }
            seen.push(st.rel);
            let _ = write!(
                s,
                r#"<marker id="{id}-ah-{}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{}"/></marker>"#,
                st.rel.name(),
                colour(st.rel)
            );
        }
        let _ = write!(
            s,
            r##"<marker id="{id}-ah-ctx" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#64748b"/></marker><pattern id="{id}-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#f1f5f9"/><line x1="0" y1="0" x2="0" y2="8" stroke="#e2e8f0" stroke-width="3"/></pattern></defs>"##
        );
        // lanes
        for (i, (_, ly, lh)) in sc.lanes.iter().enumerate() {
            let _ = write!(
                s,
                r#"<rect class="lane" x="0" y="{ly:.1}" width="{width:.0}" height="{lh:.1}" fill="{}"/>"#,
                if i % 2 == 0 { "#f8fafc" } else { "#eef2f7" },
            );
        }
        let top = sc.lanes.first().map_or(TOP, |l| l.1);
        let _ = write!(
            s,
            r##"<line x1="{LABEL_W}" y1="{:.1}" x2="{LABEL_W}" y2="{:.1}" stroke="#cbd5e1"/>"##,
            top - 4.0,
            sc.lanes_bottom
        );
        // axis breaks
        let axis_y = sc.axis_y;
        for &(gx, _) in &sc.columns.gaps {
            let (l, r) = (gx + 6.0, gx + GAP_W - 6.0);
            let _ = write!(
                s,
                r##"<g class="elided"><rect x="{l:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="url(#{id}-hatch)" opacity="0.9"/><line x1="{l:.1}" y1="{:.1}" x2="{l:.1}" y2="{:.1}" stroke="#94a3b8" stroke-dasharray="4 3"/><line x1="{r:.1}" y1="{:.1}" x2="{r:.1}" y2="{:.1}" stroke="#94a3b8" stroke-dasharray="4 3"/></g>"##,
                top - 4.0,
                r - l,
                sc.lanes_bottom - top + 4.0,
                top - 4.0,
                axis_y + 6.0,
                top - 4.0,
                axis_y + 6.0,
            );
        }
        // the axis
        for (left, _, w) in &sc.columns.segments {
            let _ = write!(
                s,
                r##"<line x1="{left:.1}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="#334155" stroke-width="1.2"/>"##,
                left + w
            );
        }
        for &px in &sc.marks {
            let _ = write!(
                s,
                r##"<line x1="{px:.1}" y1="{axis_y:.1}" x2="{px:.1}" y2="{:.1}" stroke="#334155"/>"##,
                axis_y + 4.0
            );
        }
        for t in sc.texts.iter().filter(|t| t.class != "op-label") {
            t.write(&mut s, "");
        }
        // operations
        for b in &sc.boxes {
            self.write_op(&mut s, b, id);
        }
        // the context edges, then the cycle's, over them; then the labels
        for a in sc.arrows.iter().filter(|a| a.step.is_none()) {
            self.write_arrow(&mut s, a, id);
        }
        for a in sc.arrows.iter().filter(|a| a.step.is_some()) {
            self.write_arrow(&mut s, a, id);
        }
        for t in sc.texts.iter().filter(|t| t.class == "op-label") {
            t.write(&mut s, "");
        }
        s.push_str("</svg>");
        s
    }

    /// Operation box `b` as SVG, its details in its tooltip.
    fn write_op(&self, s: &mut String, b: &OpBox, id: &str) {
        let (h, layout, o) = (self.h, self.layout, b.op);
        let kind = match h.ops[o].kind {
            OpKind::Write => "write",
            OpKind::Read => "read",
            OpKind::Fence => "fence",
        };
        let d = h.describe(o);
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
        let r = b.rect;
        let (class, el_id) = match self.name_of(o) {
            Some((name, role)) => {
                if let Some(role) = role {
                    tip.push_str("\nrole: ");
                    tip.push_str(role);
                }
                (
                    if role.is_some() {
                        "op named-op"
                    } else {
                        "op cycle-op"
                    },
                    format!(r#" id="{id}-op-{name}""#),
                )
            }
            None => ("op", String::new()),
        };
        let _ = write!(
            s,
            r#"<g class="{class} {kind}"{el_id}><title>{}</title><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{BOX_H}" rx="3"/>"#,
            escape(&tip),
            r.x0,
            r.y0,
            r.width(),
        );
        if let Some(t) = &b.token {
            t.write(s, "");
        }
        s.push_str("</g>");
    }

    /// Arrow `a` as SVG: its curve (over a white halo), arrowhead, pill
    /// and label; what it means in its tooltip.
    fn write_arrow(&self, s: &mut String, a: &Arrow, id: &str) {
        let name = |o: OpId| self.name_of(o).map(|n| n.0).unwrap_or_default();
        let (tip, attrs, marker, width, dash) = match a.step {
            Some(i) => {
                let rel = self.v.cycle[i].rel;
                (
                    format!(
                        "{} -{}-> {}: {}",
                        name(a.from),
                        a.rel,
                        name(a.to),
                        meaning(rel)
                    ),
                    format!(
                        r#"class="cycle-edge" id="{id}-edge-{i}" data-rel="{}""#,
                        a.rel
                    ),
                    format!("{id}-ah-{}", a.rel),
                    "2.4",
                    "",
                )
            }
            None => (
                format!(
                    "{} -wr-> {}: {}",
                    name(a.from),
                    name(a.to),
                    meaning(Rel::Wr)
                ),
                r#"class="context-edge" data-rel="wr""#.to_string(),
                format!("{id}-ah-ctx"),
                "1.6",
                r#" stroke-dasharray="5 3""#,
            ),
        };
        let [p0, p1, p2, p3] = a.route.curve;
        let d = format!(
            "M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
            p0.0, p0.1, p1.0, p1.1, p2.0, p2.1, p3.0, p3.1
        );
        let c = a.colour;
        let p = a.route.pill;
        let _ = write!(
            s,
            r##"<g {attrs}><title>{}</title><path d="{d}" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round" opacity="0.85"/><path d="{d}" fill="none" stroke="{c}" stroke-width="{width}"{dash} marker-end="url(#{marker})"/><rect class="pill" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8.5" fill="#fff" stroke="{c}" stroke-width="1.4"/>"##,
            escape(&tip),
            p.x0,
            p.y0,
            p.width(),
            p.height(),
        );
        a.label.write(s, &format!(r#" fill="{c}""#));
        s.push_str("</g>");
    }
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
        assert!(d.clear);
    }

    #[test]
    fn every_violation_of_the_papers_and_litmus_histories_is_laid_out_clear() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/papers-and-litmus.hist");
        let histories =
            memconform_ingest::load_bytes(&std::fs::read(&path).unwrap(), &path).unwrap();
        let mut drawn = 0;
        for h in &histories {
            let layout = Layout::of(h, None);
            for o in check_gradual_with(h, &Model::EVERY, &Options::default()) {
                let Some(v) = o.violation() else { continue };
                let d = timeline_svg(h, &layout, v, "t", 12);
                assert!(d.clear, "history {}: {}", h.index, o.model);
                drawn += 1;
            }
        }
        assert!(drawn > 50, "{drawn} timelines");
    }
}
