//! `memconform plot`: the papers' figures as SVG, from results CSVs.
//!
//! * `time-vs-ops`, `time-vs-threads`: median `time_ms` per model against
//!   the size of the history (wsc-saturation §6), log y axis;
//! * `coverage`: mean `coverage` (the share of same-variable write pairs
//!   that the model's partial store order orders) per model against
//!   threads or operations;
//! * `detection`: per model, the percentage of histories found violating,
//!   each bar split by the gradual stage that caught the violation
//!   (`decided_by`; gradual-consistency-checking §5).
//!
//! Only plotters' SVG backend is used: text is written as SVG `<text>`
//! elements and laid out by the viewer, so no font files are needed.

use std::collections::{BTreeMap, HashSet};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use plotters::coord::ranged1d::AsRangedCoord;

use super::summary::{mean, median, model_rank, sort_models, CsvError, Rec, Results};

/// The figure to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    TimeVsOps,
    TimeVsThreads,
    Coverage,
    Detection,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::TimeVsOps => "time-vs-ops",
            Kind::TimeVsThreads => "time-vs-threads",
            Kind::Coverage => "coverage",
            Kind::Detection => "detection",
        }
    }
}

/// The x axis of a line chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XAxis {
    /// The `threads` column.
    Threads,
    /// The `ops` column (operations of the whole history).
    Ops,
}

impl XAxis {
    fn column(self) -> &'static str {
        match self {
            XAxis::Threads => "threads",
            XAxis::Ops => "ops",
        }
    }

    fn label(self) -> &'static str {
        match self {
            XAxis::Threads => "threads",
            XAxis::Ops => "operations per history",
        }
    }

    fn of(self, r: &Rec) -> Option<usize> {
        match self {
            XAxis::Threads => r.threads,
            XAxis::Ops => r.ops,
        }
    }
}

/// What to draw.
#[derive(Debug, Clone)]
pub struct PlotOptions {
    pub kind: Kind,
    /// The x axis of `coverage` (the time kinds fix theirs).
    pub x: XAxis,
    /// The title (default: one naming the figure and the data).
    pub title: Option<String>,
    /// Only these models (default: every model of the data).
    pub models: Option<Vec<String>>,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

impl PlotOptions {
    pub fn new(kind: Kind) -> Self {
        PlotOptions {
            kind,
            x: XAxis::Threads,
            title: None,
            models: None,
            size: (800, 500),
        }
    }

    /// The x axis actually used.
    pub fn x_axis(&self) -> XAxis {
        match self.kind {
            Kind::TimeVsOps => XAxis::Ops,
            Kind::TimeVsThreads => XAxis::Threads,
            _ => self.x,
        }
    }
}

/// One line of a line chart: a model and its points (x, y, rows behind y).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, usize)>,
}

/// The bars of the detection chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// The models, one bar each.
    pub models: Vec<String>,
    /// The stages (values of `decided_by` for violations), weakest first.
    pub stages: Vec<String>,
    /// Per model: rows, and per stage the percentage of the rows that are
    /// violations caught by that stage.
    pub bars: Vec<(usize, Vec<f64>)>,
}

impl Detection {
    /// Per model: the percentage of rows that are violations.
    pub fn totals(&self) -> Vec<f64> {
        self.bars.iter().map(|(_, s)| s.iter().sum()).collect()
    }
}

fn all_files(res: &Results) -> String {
    res.files.join(", ")
}

fn need(res: &Results, column: &str, kind: Kind) -> Result<(), CsvError> {
    if res.has_column(column) {
        Ok(())
    } else {
        Err(CsvError::new(
            &all_files(res),
            None,
            format!("no `{column}` column (needed by --kind {})", kind.name()),
        ))
    }
}

fn selected(res: &Results, opts: &PlotOptions) -> Result<Vec<String>, CsvError> {
    let present = res.models();
    let models = match &opts.models {
        None => present,
        Some(want) => {
            for m in want {
                if !present.contains(m) {
                    return Err(CsvError::new(
                        &all_files(res),
                        None,
                        format!(
                            "no rows of model `{m}` (models present: {})",
                            present.join(", ")
                        ),
                    ));
                }
            }
            let mut w = want.clone();
            sort_models(&mut w);
            w
        }
    };
    if models.is_empty() {
        return Err(CsvError::new(&all_files(res), None, "no rows"));
    }
    Ok(models)
}

/// The series of a line chart (`time-vs-*`: median time, `coverage`: mean
/// coverage of the non-empty cells), one per model that has points.
pub fn line_series(res: &Results, opts: &PlotOptions) -> Result<Vec<Series>, CsvError> {
    let x = opts.x_axis();
    need(res, x.column(), opts.kind)?;
    let coverage = opts.kind == Kind::Coverage;
    need(
        res,
        if coverage { "coverage" } else { "time_ms" },
        opts.kind,
    )?;
    let mut out = Vec::new();
    for m in selected(res, opts)? {
        let mut at: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        for r in res.of_model(&m) {
            let y = if coverage { r.coverage } else { r.time_ms };
            if let (Some(xv), Some(yv)) = (x.of(r), y) {
                at.entry(xv).or_default().push(yv);
            }
        }
        let points: Vec<(f64, f64, usize)> = at
            .into_iter()
            .filter_map(|(xv, ys)| {
                let y = if coverage { mean(&ys) } else { median(&ys) };
                y.map(|y| (xv as f64, y, ys.len()))
            })
            .collect();
        if !points.is_empty() {
            out.push(Series { name: m, points });
        }
    }
    if out.is_empty() {
        return Err(CsvError::new(
            &all_files(res),
            None,
            if coverage {
                "no row has both a coverage and a size (coverage is given for consistent \
                 ccm, wccm, wsc, sc, tso, pso rows)"
                    .to_string()
            } else {
                format!("no row has both time_ms and {}", x.column())
            },
        ));
    }
    Ok(out)
}

/// The bars of the detection chart.
pub fn detection(res: &Results, opts: &PlotOptions) -> Result<Detection, CsvError> {
    let models = selected(res, opts)?;
    let mut stages: Vec<String> = res
        .rows
        .iter()
        .filter(|r| r.is_violation() && models.contains(&r.model))
        .map(|r| {
            if r.decided_by.is_empty() {
                r.model.clone()
            } else {
                r.decided_by.clone()
            }
        })
        .collect();
    sort_models(&mut stages);
    let bars = models
        .iter()
        .map(|m| {
            let rows: Vec<&Rec> = res.of_model(m).collect();
            let n = rows.len();
            let pcts = stages
                .iter()
                .map(|s| {
                    let k = rows
                        .iter()
                        .filter(|r| {
                            r.is_violation()
                                && (&r.decided_by == s
                                    || (r.decided_by.is_empty() && &r.model == s))
                        })
                        .count();
                    if n == 0 {
                        0.0
                    } else {
                        100.0 * k as f64 / n as f64
                    }
                })
                .collect();
            (n, pcts)
        })
        .collect();
    Ok(Detection {
        models,
        stages,
        bars,
    })
}

/// A fixed colour per model (tab10), so a model looks the same in every figure.
pub fn model_color(name: &str) -> RGBColor {
    const TAB10: [(u8, u8, u8); 10] = [
        (0x1f, 0x77, 0xb4),
        (0xff, 0x7f, 0x0e),
        (0x2c, 0xa0, 0x2c),
        (0xd6, 0x27, 0x28),
        (0x94, 0x67, 0xbd),
        (0x8c, 0x56, 0x4b),
        (0xe3, 0x77, 0xc2),
        (0x7f, 0x7f, 0x7f),
        (0xbc, 0xbd, 0x22),
        (0x17, 0xbe, 0xcf),
    ];
    let (r, g, b) = TAB10[model_rank(name).min(TAB10.len() - 1)];
    RGBColor(r, g, b)
}

/// Histories behind the data (distinct file × index per CSV).
fn histories(res: &Results, models: &[String]) -> usize {
    res.rows
        .iter()
        .filter(|r| models.contains(&r.model))
        .map(|r| (r.source, r.file.as_str(), r.index.as_str()))
        .collect::<HashSet<_>>()
        .len()
}

/// A tick label: at most 3 significant digits, no trailing zeros.
fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    super::summary::fmt_num(Some(v), digits)
}

type Error = Box<dyn std::error::Error>;

fn draw_err<E: std::error::Error + Send + Sync + 'static>(e: E) -> Error {
    Box::new(e)
}

/// Draws the figure as an SVG document.
pub fn render_svg(res: &Results, opts: &PlotOptions) -> Result<String, CsvError> {
    let mut svg = String::new();
    match opts.kind {
        Kind::Detection => {
            let d = detection(res, opts)?;
            let n = histories(res, &d.models);
            draw_detection(&mut svg, &d, n, opts)
        }
        _ => {
            let s = line_series(res, opts)?;
            let models: Vec<String> = s.iter().map(|s| s.name.clone()).collect();
            let n = histories(res, &models);
            draw_lines(&mut svg, &s, n, opts)
        }
    }
    .map_err(|e| CsvError::new(&all_files(res), None, format!("cannot draw: {e}")))?;
    Ok(svg)
}

const LEGEND_WIDTH: u32 = 150;

/// Draws a legend (colour swatch and label per entry) in the right margin.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    entries: &[(String, RGBColor, bool)],
) -> Result<(), Error>
where
    DB::ErrorType: 'static,
{
    let style =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let top = 60;
    area.draw(&Text::new(title.to_string(), (10, top), style.clone()))
        .map_err(draw_err)?;
    for (i, (label, color, line)) in entries.iter().enumerate() {
        let y = top + 24 * (i as i32 + 1);
        if *line {
            area.draw(&PathElement::new(
                vec![(10, y), (34, y)],
                color.stroke_width(2),
            ))
            .map_err(draw_err)?;
            draw_marker(area, label, (22, y))?;
        } else {
            area.draw(&Rectangle::new([(12, y - 6), (32, y + 6)], color.filled()))
                .map_err(draw_err)?;
        }
        area.draw(&Text::new(label.clone(), (42, y), style.clone()))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// An axis with chosen tick values (plotters' `WithKeyPoints` lacks the
/// label formatting `configure_mesh` needs); no light mesh lines.
struct Ticked<R: Ranged<ValueType = f64>> {
    inner: R,
    ticks: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> std::ops::Range<i32> {
        self.inner.axis_pixel_range(limit)
    }
}

fn ticked<R: AsRangedCoord<Value = f64>>(range: R, ticks: Vec<f64>) -> Ticked<R::CoordDescType>
where
    R::CoordDescType: Ranged<ValueType = f64>,
{
    Ticked {
        inner: range.into(),
        ticks,
    }
}

/// Tick values for a linear axis: the data's own x values when there are
/// few (threads 4, 8, 12, 16), else round steps of 1, 2 or 5 × 10^k.
fn linear_ticks(values: &[f64], lo: f64, hi: f64) -> Vec<f64> {
    let mut distinct: Vec<f64> = values.to_vec();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if !distinct.is_empty() && distinct.len() <= 12 {
        return distinct;
    }
    let raw = (hi - lo) / 8.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

/// Tick values for a log axis: 1, 2, 5 × 10^k within the range (only
/// powers of ten when that would be too many).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let pick = |ms: &[f64]| -> Vec<f64> {
        (d0..=d1)
            .flat_map(|d| ms.iter().map(move |m| m * 10f64.powi(d)))
            .filter(|v| *v >= lo && *v <= hi)
            .collect()
    };
    let t = pick(&[1.0, 2.0, 5.0]);
    if t.len() > 12 {
        pick(&[1.0])
    } else {
        t
    }
}

/// Draws one model's line and markers (a marker shape per model, so lines
/// that coincide stay distinguishable).
fn draw_series_of<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    s: &Series,
) -> Result<(), Error>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let c = model_color(&s.name);
    let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0, p.1)).collect();
    chart
        .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
        .map_err(draw_err)?;
    match model_rank(&s.name) % 5 {
        0 => chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
            .map(|_| ()),
        1 => chart
            .draw_series(pts.iter().map(|&p| TriangleMarker::new(p, 6, c.filled())))
            .map(|_| ()),
        2 => chart
            .draw_series(pts.iter().map(|&p| Cross::new(p, 5, c.stroke_width(2))))
            .map(|_| ()),
        3 => chart
            .draw_series(pts.iter().map(|&p| {
                EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], c.stroke_width(2))
            }))
            .map(|_| ()),
        _ => chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 5, c.stroke_width(2))))
            .map(|_| ()),
    }
    .map_err(draw_err)
}

/// The same marker, in pixels, for the legend.
fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    name: &str,
    at: (i32, i32),
) -> Result<(), Error>
where
    DB::ErrorType: 'static,
{
    let c = model_color(name);
    match model_rank(name) % 5 {
        0 => area.draw(&Circle::new(at, 4, c.filled())),
        1 => area.draw(&TriangleMarker::new(at, 6, c.filled())),
        2 => area.draw(&Cross::new(at, 5, c.stroke_width(2))),
        3 => area.draw(&Rectangle::new(
            [(at.0 - 4, at.1 - 4), (at.0 + 4, at.1 + 4)],
            c.stroke_width(2),
        )),
        _ => area.draw(&Circle::new(at, 5, c.stroke_width(2))),
    }
    .map_err(draw_err)
}

fn draw_lines(
    svg: &mut String,
    series: &[Series],
    n: usize,
    opts: &PlotOptions,
) -> Result<(), Error> {
    let x = opts.x_axis();
    let coverage = opts.kind == Kind::Coverage;
    let title = opts.title.clone().unwrap_or_else(|| {
        if coverage {
            format!("Store-order coverage vs {} ({n} histories)", x.column())
        } else {
            format!("Checking time vs {} ({n} histories)", x.column())
        }
    });
    let root = SVGBackend::with_string(svg, opts.size).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let root = root.titled(&title, ("sans-serif", 20)).map_err(draw_err)?;
    let (w, _) = root.dim_in_pixel();
    let (left, right) = root.split_horizontally(w.saturating_sub(LEGEND_WIDTH));

    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = (min(&xs), max(&xs));
    let pad = if x1 > x0 { (x1 - x0) * 0.06 } else { 1.0 };
    let x_range = ticked(
        (x0 - pad)..(x1 + pad),
        linear_ticks(&xs, x0 - pad, x1 + pad),
    );
    let mut builder = ChartBuilder::on(&left);
    builder
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70);

    if coverage {
        // zoom on the data: coverage is usually high
        let lo = ((min(&ys) - 0.05) * 10.0).floor() / 10.0;
        let lo = lo.clamp(0.0, 0.9);
        let y_range = ticked(lo..1.0 + (1.0 - lo) * 0.04, linear_ticks(&[], lo, 1.0));
        let mut chart = builder
            .build_cartesian_2d(x_range, y_range)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc(x.label())
            .y_desc("mean coverage (ordered / same-variable write pairs)")
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(draw_err)?;
        for s in series {
            draw_series_of(&mut chart, s)?;
        }
    } else {
        let lo = min(&ys).max(1e-6) / 1.5;
        let hi = max(&ys).max(lo * 2.0) * 1.5;
        let y_range = ticked((lo..hi).log_scale(), log_ticks(lo, hi));
        let mut chart = builder
            .build_cartesian_2d(x_range, y_range)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc(x.label())
            .y_desc("median time_ms (log scale)")
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(draw_err)?;
        for s in series {
            draw_series_of(&mut chart, s)?;
        }
    }
    let entries: Vec<(String, RGBColor, bool)> = series
        .iter()
        .map(|s| (s.name.clone(), model_color(&s.name), true))
        .collect();
    legend(&right, "model", &entries)?;
    root.present().map_err(draw_err)?;
    Ok(())
}

fn draw_detection(
    svg: &mut String,
    d: &Detection,
    n: usize,
    opts: &PlotOptions,
) -> Result<(), Error> {
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| format!("Violations found per model ({n} histories)"));
    let root = SVGBackend::with_string(svg, opts.size).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let root = root.titled(&title, ("sans-serif", 20)).map_err(draw_err)?;
    let (w, _) = root.dim_in_pixel();
    let (left, right) = root.split_horizontally(w.saturating_sub(LEGEND_WIDTH));

    let totals = d.totals();
    let top = totals.iter().copied().fold(0.0, f64::max);
    let y_max = (top * 1.15).clamp(1.0, 100.0).max(top + 1.0);
    let k = d.models.len() as i32;
    let mut chart = ChartBuilder::on(&left)
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((0..k - 1).into_segmented(), 0f64..y_max)
        .map_err(draw_err)?;
    let names = d.models.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_desc("model")
        .y_desc("violations (% of histories)")
        .x_labels(d.models.len())
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                names.get(*i as usize).cloned().unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        })
        .y_label_formatter(&|v| tick(*v))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(draw_err)?;
    let bar_margin = {
        let (pw, _) = left.dim_in_pixel();
        (pw / (d.models.len() as u32 + 1) / 5).max(2)
    };
    for (i, (_, pcts)) in d.bars.iter().enumerate() {
        let i = i as i32;
        let mut y = 0.0;
        for (s, p) in d.stages.iter().zip(pcts) {
            if *p <= 0.0 {
                continue;
            }
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), y),
                    (SegmentValue::Exact(i + 1), y + p),
                ],
                model_color(s).filled(),
            );
            r.set_margin(0, 0, bar_margin, bar_margin);
            chart.draw_series(std::iter::once(r)).map_err(draw_err)?;
            y += p;
        }
        let style = TextStyle::from(("sans-serif", 13).into_font())
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{y:.1}%"),
                (SegmentValue::CenterOf(i), y + y_max * 0.01),
                style,
            )))
            .map_err(draw_err)?;
    }
    let entries: Vec<(String, RGBColor, bool)> = d
        .stages
        .iter()
        .map(|s| (s.clone(), model_color(s), false))
        .collect();
    legend(&right, "caught by", &entries)?;
    root.present().map_err(draw_err)?;
    Ok(())
}
