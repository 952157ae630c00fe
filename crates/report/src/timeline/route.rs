//! Where a timeline's arrows go: boxes, cubic curves, and a search for each
//! arrow of a curve and a place for its label (a pill on the curve) that
//! cross no label, go round the operations' boxes where they can, and keep
//! clear of the arrows already drawn.

/// A point.
pub type Pt = (f64, f64);

/// An axis-aligned box: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect { x0, y0, x1, y1 }
    }

    /// This box with `d` more on every side (less if `d` < 0).
    pub fn grow(self, d: f64) -> Rect {
        Rect::new(self.x0 - d, self.y0 - d, self.x1 + d, self.y1 + d)
    }

    /// Whether the insides of the two boxes meet.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether `p` is inside (not on the border).
    pub fn contains(&self, p: Pt) -> bool {
        self.x0 < p.0 && p.0 < self.x1 && self.y0 < p.1 && p.1 < self.y1
    }

    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }

    /// The box around a polyline.
    fn around(pts: &[Pt]) -> Rect {
        pts.iter().fold(
            Rect::new(f64::MAX, f64::MAX, f64::MIN, f64::MIN),
            |r, &(x, y)| Rect::new(r.x0.min(x), r.y0.min(y), r.x1.max(x), r.y1.max(y)),
        )
    }
}

/// Whether the segment `p`-`q` meets the inside of `r` (Liang-Barsky).
pub fn segment_hits(p: Pt, q: Pt, r: &Rect) -> bool {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (num, den) in [
        (p.0 - r.x0, -dx),
        (r.x1 - p.0, dx),
        (p.1 - r.y0, -dy),
        (r.y1 - p.1, dy),
    ] {
        if den == 0.0 {
            if num <= 0.0 {
                return false;
            }
        } else {
            let t = num / den;
            if den < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 < t1
}

/// Whether a polyline meets the inside of `r`.
pub fn polyline_hits(pts: &[Pt], r: &Rect) -> bool {
    pts.windows(2).any(|w| segment_hits(w[0], w[1], r))
}

/// The point of a cubic Bézier curve at `t`.
fn cubic(c: &[Pt; 4], t: f64) -> Pt {
    let u = 1.0 - t;
    let (a, b, d, e) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    (
        a * c[0].0 + b * c[1].0 + d * c[2].0 + e * c[3].0,
        a * c[0].1 + b * c[1].1 + d * c[2].1 + e * c[3].1,
    )
}

fn dist(p: Pt, q: Pt) -> f64 {
    ((q.0 - p.0).powi(2) + (q.1 - p.1).powi(2)).sqrt()
}

/// A cubic Bézier curve as a polyline of steps of at most 4 px.
pub fn polyline(c: &[Pt; 4]) -> Vec<Pt> {
    let net = dist(c[0], c[1]) + dist(c[1], c[2]) + dist(c[2], c[3]);
    let n = ((net / 4.0).ceil() as usize).clamp(8, 300);
    (0..=n).map(|i| cubic(c, i as f64 / n as f64)).collect()
}

/// Whether segments `p`-`q` and `r`-`s` cross.
fn segments_cross(p: Pt, q: Pt, r: Pt, s: Pt) -> bool {
    let side = |a: Pt, b: Pt, c: Pt| (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
    let (d1, d2) = (side(r, s, p), side(r, s, q));
    let (d3, d4) = (side(p, q, r), side(p, q, s));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// The distance from `p` to the segment `a`-`b`.
fn distance_to_segment(p: Pt, a: Pt, b: Pt) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let l2 = dx * dx + dy * dy;
    let t = if l2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dist(p, (a.0 + t * dx, a.1 + t * dy))
}

/// Clearance between an arrow and a label (its white halo is 3 px wide
/// either side, its arrowhead 6 px).
const LINE_PAD: f64 = 3.5;
const HEAD_PAD: f64 = 7.0;
/// The arrowhead's length along the curve.
const HEAD: f64 = 13.0;
/// Clearance around a pill.
const PILL_PAD: f64 = 1.5;
/// An arrow this close to another runs along it.
const NEAR: f64 = 6.0;

/// What arrows are laid out among.
pub struct Obstacles {
    /// Labels (texts and arrows' pills): never crossed, never covered.
    pub labels: Vec<Rect>,
    /// The operations' boxes: crossed or covered only at a cost.
    pub boxes: Vec<Rect>,
    /// Per box: whether its token (the operation written in it, a label
    /// that may be left out) is still drawn.
    pub tokens: Vec<bool>,
    /// The arrows drawn so far, as polylines.
    pub arrows: Vec<Vec<Pt>>,
    /// Where arrows and pills may go.
    pub region: Rect,
}

/// An arrow laid out.
#[derive(Debug, Clone)]
pub struct Route {
    /// Its cubic Bézier curve and that curve as a polyline.
    pub curve: [Pt; 4],
    pub line: Vec<Pt>,
    /// Its label's pill.
    pub pill: Rect,
    /// The boxes whose tokens it crosses or covers (to be left out).
    pub covered: Vec<usize>,
    /// Whether it crosses no label and stays in the region.
    pub clear: bool,
}

/// Rectangles filed by the cells of a square grid (over the region;
/// what lies outside goes to the cells at its border) they meet, to find
/// those near a place without looking at all.
struct Grid {
    origin: Pt,
    nx: usize,
    ny: usize,
    cells: Vec<Vec<u32>>,
}

/// A grid cell's side.
const CELL: f64 = 24.0;

impl Grid {
    fn new(region: &Rect) -> Grid {
        let nx = (region.width() / CELL).ceil().clamp(1.0, 4096.0) as usize;
        let ny = (region.height() / CELL).ceil().clamp(1.0, 4096.0) as usize;
        Grid {
            origin: (region.x0, region.y0),
            nx,
            ny,
            cells: vec![Vec::new(); nx * ny],
        }
    }

    /// The columns and rows of the cells `r` meets.
    fn span(&self, r: &Rect) -> (usize, usize, usize, usize) {
        let k = |v: f64, o: f64, n: usize| (((v - o) / CELL).max(0.0) as usize).min(n - 1);
        (
            k(r.x0, self.origin.0, self.nx),
            k(r.x1, self.origin.0, self.nx),
            k(r.y0, self.origin.1, self.ny),
            k(r.y1, self.origin.1, self.ny),
        )
    }

    fn insert(&mut self, r: &Rect, i: usize) {
        let (x0, x1, y0, y1) = self.span(r);
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.cells[y * self.nx + x].push(i as u32);
            }
        }
    }

    /// The entries in the cells `r` meets (some more than once).
    fn near(&self, r: &Rect, out: &mut Vec<u32>) {
        let (x0, x1, y0, y1) = self.span(r);
        for y in y0..=y1 {
            for x in x0..=x1 {
                out.extend_from_slice(&self.cells[y * self.nx + x]);
            }
        }
    }
}

/// The obstacles filed for quick look-ups: labels, boxes and the arrows'
/// segments.
struct Index<'o> {
    obs: &'o Obstacles,
    labels: Grid,
    boxes: Grid,
    segments: Vec<(Pt, Pt)>,
    segs: Grid,
}

impl<'o> Index<'o> {
    fn new(obs: &'o Obstacles) -> Index<'o> {
        let mut labels = Grid::new(&obs.region);
        for (i, r) in obs.labels.iter().enumerate() {
            labels.insert(r, i);
        }
        let mut boxes = Grid::new(&obs.region);
        for (i, r) in obs.boxes.iter().enumerate() {
            boxes.insert(r, i);
        }
        let segments: Vec<(Pt, Pt)> = obs
            .arrows
            .iter()
            .flat_map(|l| l.windows(2).map(|w| (w[0], w[1])))
            .collect();
        let mut segs = Grid::new(&obs.region);
        for (i, &(p, q)) in segments.iter().enumerate() {
            segs.insert(&Rect::around(&[p, q]), i);
        }
        Index {
            obs,
            labels,
            boxes,
            segments,
            segs,
        }
    }

    /// The faults and cost of the curve `line` (of length `length`) from
    /// box `a` to box `b`: labels crossed (the arrowhead held further
    /// from them), leaving the region, crossing its own boxes; its length,
    /// other boxes crossed, other arrows crossed or run along. `None` as
    /// soon as it is no better than `beat` (faults, then cost).
    fn score(
        &self,
        a: usize,
        b: usize,
        line: &[Pt],
        length: f64,
        beat: Option<(usize, f64)>,
    ) -> Option<Score> {
        let obs = self.obs;
        let region = obs.region.grow(0.01);
        let mut faults = usize::from(line.iter().any(|&p| !region.contains(p)));
        for r in [obs.boxes[a], obs.boxes[b]] {
            if polyline_hits(line, &r.grow(-0.5)) {
                faults += 1;
            }
        }
        let mut cost = length;
        let lost = |faults: usize, cost: f64| beat.is_some_and(|b| (faults, cost) >= b);
        if lost(faults, cost) {
            return None;
        }
        // where the arrowhead's stretch starts
        let mut head_from = line.len() - 1;
        let mut back = 0.0;
        while head_from > 0 && back < HEAD {
            back += dist(line[head_from - 1], line[head_from]);
            head_from -= 1;
        }
        let mut near = Vec::new();
        let mut hit_labels: Vec<u32> = Vec::new();
        let mut hit_boxes: Vec<usize> = Vec::new();
        let mut covered = Vec::new();
        for (i, w) in line.windows(2).enumerate() {
            let pad = if i >= head_from { HEAD_PAD } else { LINE_PAD };
            let bound = Rect::around(w);
            near.clear();
            self.labels.near(&bound.grow(pad), &mut near);
            for &l in &near {
                if !hit_labels.contains(&l)
                    && segment_hits(w[0], w[1], &obs.labels[l as usize].grow(pad))
                {
                    hit_labels.push(l);
                    faults += 1;
                }
            }
            near.clear();
            self.boxes.near(&bound.grow(1.0), &mut near);
            for &k in &near {
                let k = k as usize;
                if k != a
                    && k != b
                    && !hit_boxes.contains(&k)
                    && segment_hits(w[0], w[1], &obs.boxes[k].grow(1.0))
                {
                    hit_boxes.push(k);
                    cost += 150.0;
                    if obs.tokens[k] {
                        cost += 100.0;
                        covered.push(k);
                    }
                }
            }
            // (a crossing in two cells counts twice: segments are short)
            near.clear();
            self.segs.near(&bound, &mut near);
            let crossings = near
                .iter()
                .filter(|&&s| {
                    let (p, q) = self.segments[s as usize];
                    segments_cross(w[0], w[1], p, q)
                })
                .count();
            cost += 30.0 * crossings as f64;
            if lost(faults, cost) {
                return None;
            }
        }
        // running along another arrow
        for &p in line.iter().step_by(2) {
            near.clear();
            self.segs
                .near(&Rect::new(p.0, p.1, p.0, p.1).grow(NEAR), &mut near);
            if near.iter().any(|&s| {
                let (u, v) = self.segments[s as usize];
                distance_to_segment(p, u, v) < NEAR
            }) {
                cost += 8.0;
            }
        }
        // two arrows' ends at one place
        let ends = [line[0], line[line.len() - 1]];
        for other in &obs.arrows {
            for q in [other[0], other[other.len() - 1]] {
                if ends.iter().any(|&p| dist(p, q) < 10.0) {
                    cost += 40.0;
                }
            }
        }
        if lost(faults, cost) {
            return None;
        }
        Some(Score {
            faults,
            cost,
            covered,
        })
    }

    /// Where on the curve `line` from box `a` to box `b` its pill of
    /// `size` goes: the place with the fewest faults (crossed by an arrow,
    /// over a label or the arrow's own boxes, over its ends) and the
    /// lowest cost (over other boxes, away from the middle): its box,
    /// faults, cost and the tokens it covers. `None` when the curve is too
    /// short to hold it.
    fn pill(
        &self,
        a: usize,
        b: usize,
        line: &[Pt],
        size: (f64, f64),
    ) -> Option<(Rect, usize, f64, Vec<usize>)> {
        let obs = self.obs;
        let mut at = vec![0.0];
        for w in line.windows(2) {
            at.push(at[at.len() - 1] + dist(w[0], w[1]));
        }
        let length = at[at.len() - 1];
        let (hw, hh) = (size.0 / 2.0, size.1 / 2.0);
        let mut best: Option<(Rect, usize, f64, Vec<usize>)> = None;
        let mut near = Vec::new();
        for f in [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82] {
            let s = f * length;
            // the pill along the curve: clear of the start and the arrowhead
            if s < hw.min(hh) + 2.0 || s > length - (hw.min(hh) + HEAD + 2.0) {
                continue;
            }
            let i = at.partition_point(|&v| v < s).min(line.len() - 1);
            let (cx, cy) = line[i];
            let rect = Rect::new(cx - hw, cy - hh, cx + hw, cy + hh);
            let r = obs.region;
            let mut faults = usize::from(
                !(r.x0 <= rect.x0 && rect.x1 <= r.x1 && r.y0 <= rect.y0 && rect.y1 <= r.y1),
            );
            let padded = rect.grow(PILL_PAD);
            near.clear();
            self.labels.near(&padded, &mut near);
            near.sort_unstable();
            near.dedup();
            faults += near
                .iter()
                .filter(|&&l| obs.labels[l as usize].overlaps(&padded))
                .count();
            let lined = rect.grow(LINE_PAD);
            near.clear();
            self.segs.near(&lined, &mut near);
            faults += usize::from(near.iter().any(|&s| {
                let (p, q) = self.segments[s as usize];
                segment_hits(p, q, &lined)
            }));
            // the arrowhead and the start of the curve stay visible
            if rect.grow(HEAD).contains(line[line.len() - 1]) || rect.grow(2.0).contains(line[0]) {
                faults += 1;
            }
            faults += [a, b]
                .iter()
                .filter(|&&k| obs.boxes[k].overlaps(&padded))
                .count();
            let mut cost = 40.0 * (f - 0.5f64).abs();
            let mut covered = Vec::new();
            near.clear();
            self.boxes.near(&padded, &mut near);
            near.sort_unstable();
            near.dedup();
            for &k in &near {
                let k = k as usize;
                if k != a && k != b && obs.boxes[k].overlaps(&padded) {
                    cost += 150.0;
                    if obs.tokens[k] {
                        cost += 100.0;
                        covered.push(k);
                    }
                }
            }
            if best
                .as_ref()
                .is_none_or(|(_, bf, bc, _)| (faults, cost) < (*bf, *bc))
            {
                best = Some((rect, faults, cost, covered));
            }
        }
        best
    }
}

/// Where an arrow may leave or enter box `r`: points on its sides, each
/// with the side's outward normal.
fn ports(r: &Rect) -> Vec<(Pt, Pt)> {
    let cy = (r.y0 + r.y1) / 2.0;
    let mut v = vec![((r.x0, cy), (-1.0, 0.0)), ((r.x1, cy), (1.0, 0.0))];
    let fractions: &[f64] = if r.width() >= 30.0 {
        &[0.5, 0.2, 0.8]
    } else {
        &[0.5]
    };
    for &f in fractions {
        let x = r.x0 + f * r.width();
        v.push(((x, r.y0), (0.0, -1.0)));
        v.push(((x, r.y1), (0.0, 1.0)));
    }
    v
}

/// A candidate curve's faults (labels crossed, leaving the region, ...)
/// and cost (length, boxes and arrows crossed).
struct Score {
    faults: usize,
    cost: f64,
    covered: Vec<usize>,
}

/// Lengths of the curves' handles tried, as pairs (leaving, entering).
const HANDLES: [(f64, f64); 22] = [
    (12.0, 12.0),
    (24.0, 24.0),
    (40.0, 40.0),
    (64.0, 64.0),
    (100.0, 100.0),
    (150.0, 150.0),
    (12.0, 24.0),
    (24.0, 12.0),
    (24.0, 40.0),
    (40.0, 24.0),
    (40.0, 64.0),
    (64.0, 40.0),
    (64.0, 100.0),
    (100.0, 64.0),
    (100.0, 150.0),
    (150.0, 100.0),
    (24.0, 64.0),
    (64.0, 24.0),
    (40.0, 100.0),
    (100.0, 40.0),
    (64.0, 150.0),
    (150.0, 64.0),
];

/// The arrow from box `a` to box `b` (indices into `obs.boxes`) with a
/// pill of `pill` (width, height) on it: of the candidate curves (from a
/// side of `a` to a side of `b`, leaving and entering square to the
/// sides), the one with the fewest faults, then the lowest cost.
pub fn route(obs: &Obstacles, a: usize, b: usize, pill: (f64, f64)) -> Route {
    let index = Index::new(obs);
    let (ra, rb) = (obs.boxes[a], obs.boxes[b]);
    // the candidates, shortest first (a curve costs at least its length)
    let mut curves: Vec<([Pt; 4], f64)> = Vec::new();
    for &(pa, na) in &ports(&ra) {
        for &(pb, nb) in &ports(&rb) {
            let s = (pa.0 + na.0 * 1.5, pa.1 + na.1 * 1.5);
            let e = (pb.0 + nb.0 * 3.0, pb.1 + nb.1 * 3.0);
            let third = dist(s, e) / 3.0;
            for (ka, kb) in HANDLES.into_iter().chain([(third, third)]) {
                let c = [
                    s,
                    (s.0 + na.0 * ka, s.1 + na.1 * ka),
                    (e.0 + nb.0 * kb, e.1 + nb.1 * kb),
                    e,
                ];
                // a coarse polyline's length: at most the curve's
                let coarse: f64 = (0..16)
                    .map(|i| dist(cubic(&c, i as f64 / 16.0), cubic(&c, (i + 1) as f64 / 16.0)))
                    .sum();
                curves.push((c, coarse));
            }
        }
    }
    curves.sort_by(|x, y| x.1.total_cmp(&y.1));
    let mut best: Option<(usize, f64, Route)> = None;
    for (c, coarse) in curves {
        if let Some((0, cost, _)) = &best {
            if coarse >= *cost {
                break;
            }
        }
        let line = polyline(&c);
        let length = line.windows(2).map(|w| dist(w[0], w[1])).sum();
        let beat = best.as_ref().map(|(f, cost, _)| (*f, *cost));
        let Some(score) = index.score(a, b, &line, length, beat) else {
            continue;
        };
        let Some((rect, pf, pc, covered)) = index.pill(a, b, &line, pill) else {
            continue;
        };
        let (faults, cost) = (score.faults + pf, score.cost + pc);
        if best
            .as_ref()
            .is_none_or(|(f, bc, _)| (faults, cost) < (*f, *bc))
        {
            let mut all = score.covered;
            all.extend(covered);
            all.sort_unstable();
            all.dedup();
            best = Some((
                faults,
                cost,
                Route {
                    curve: c,
                    line,
                    pill: rect,
                    covered: all,
                    clear: faults == 0,
                },
            ));
        }
    }
    best.expect("some candidate has room for its pill").2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_meet_boxes_they_cross_and_not_those_they_pass() {
        let r = Rect::new(10.0, 10.0, 20.0, 20.0);
        assert!(segment_hits((0.0, 15.0), (30.0, 15.0), &r));
        assert!(segment_hits((12.0, 12.0), (13.0, 13.0), &r));
        assert!(!segment_hits((0.0, 0.0), (30.0, 0.0), &r));
        assert!(!segment_hits((0.0, 10.0), (30.0, 10.0), &r), "along a side");
        assert!(!segment_hits((0.0, 20.0), (20.0, 0.0), &r), "by a corner");
        assert!(segment_hits((0.0, 21.0), (21.0, 0.0), &r), "over a corner");
    }

    #[test]
    fn an_arrow_goes_round_a_label_in_its_way() {
        // two boxes side by side, a label between them
        let obs = Obstacles {
            labels: vec![Rect::new(45.0, 40.0, 75.0, 80.0)],
            boxes: vec![
                Rect::new(0.0, 50.0, 40.0, 66.0),
                Rect::new(80.0, 50.0, 120.0, 66.0),
            ],
            tokens: vec![false, false],
            arrows: Vec::new(),
            region: Rect::new(-50.0, -50.0, 200.0, 200.0),
        };
        let r = route(&obs, 0, 1, (24.0, 17.0));
        assert!(r.clear);
        assert!(!polyline_hits(&r.line, &obs.labels[0]));
        assert!(!r.pill.overlaps(&obs.labels[0]));
    }
}
