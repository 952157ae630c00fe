//! `memconform plot`: the papers' figures as SVG, from results CSVs.
//!
//! * `time-vs-ops`, `time-vs-threads`: median `time_ms` per model against
//!   the size of the history (wsc-saturation §6), log y axis;
//! * `coverage`: mean `coverage` (the share of same-variable write pairs
//!   that the model's partial store order orders) per model against
//!   threads or operations;
//! * `detection`: per model, the percentage of histories found violating,
//!   each bar split by the gradual stage that caught the violation
//!   (`decided_by`; gradual-consistency-checking §5);
//! * `kill-by-operator`, `seeds-to-kill`: a mutation campaign's kill
//!   matrix, drawn by [`super::plot_mutation`].
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
    /// Per operator, its mutants by what killed them (a kill matrix).
    KillByOperator,
    /// The share of killed mutants killed within k seeds (a kill matrix).
    SeedsToKill,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::TimeVsOps => "time-vs-ops",
            Kind::TimeVsThreads => "time-vs-threads",
            Kind::Coverage => "coverage",
            Kind::Detection => "detection",
            Kind::KillByOperator => "kill-by-operator",
            Kind::SeedsToKill => "seeds-to-kill",
        }
    }

    /// Whether the figure is drawn from a campaign's kill matrix (else
    /// from `check -f csv` results).
    pub fn of_kill_matrix(self) -> bool {
        matches!(self, Kind::KillByOperator | Kind::SeedsToKill)
    }
}

/// How a kill-matrix figure groups mutants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Protocol,
    Op,
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
            XAxis::Threads => Some(r.threads),
            XAxis::Ops => Some(r.ops),
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
    /// The grouping of a kill-matrix figure (default: `kill-by-operator`
    /// over every protocol, `seeds-to-kill` a line per protocol).
    pub by: Option<By>,
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
            by: None,
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

/// The rows of the model named `name`, in input order.
fn rows_of<'a>(res: &'a Results, name: &'a str) -> impl Iterator<Item = &'a Rec> + 'a {
    res.rows.iter().filter(move |r| r.model.name() == name)
}

fn selected(res: &Results, opts: &PlotOptions) -> Result<Vec<String>, CsvError> {
    let present: Vec<String> = res.models().iter().map(|m| m.name().to_string()).collect();
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
        for r in rows_of(res, &m) {
            let y = if coverage {
                r.coverage
            } else {
                Some(r.time_ms)
            };
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
        .filter(|r| r.is_violation() && models.iter().any(|m| m == r.model.name()))
        .map(|r| r.decided_by.unwrap_or(r.model).name().to_string())
        .collect();
    sort_models(&mut stages);
    let bars = models
        .iter()
        .map(|m| {
            let rows: Vec<&Rec> = rows_of(res, m).collect();
            let n = rows.len();
            let pcts = stages
                .iter()
                .map(|s| {
                    let k = rows
                        .iter()
                        .filter(|r| r.is_violation() && r.decided_by.unwrap_or(r.model).name() == s)
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

/// The tab10 palette: colour `i` (the last one past the end).
pub fn palette(i: usize) -> RGBColor {
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
    let (r, g, b) = TAB10[i.min(TAB10.len() - 1)];
    RGBColor(r, g, b)
}

/// A fixed colour per model (tab10), so a model looks the same in every figure.
pub fn model_color(name: &str) -> RGBColor {
    palette(model_rank(name))
}

/// Histories behind the data (distinct file × index per CSV).
fn histories(res: &Results, models: &[String]) -> usize {
    res.rows
        .iter()
        .filter(|r| models.iter().any(|m| m == r.model.name()))
        .map(|r| (r.source, r.file.as_ref(), r.index))
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
    let drawn = match opts.kind {
        Kind::Detection => {
            let d = detection(res, opts)?;
            let n = histories(res, &d.models);
            let title = opts
                .title
                .clone()
                .unwrap_or_else(|| format!("Violations found per model ({n} histories)"));
            let totals = d.totals();
            let bars = Bars {
                title,
                x_desc: "model",
                y_desc: "violations (% of histories)",
                parts: d
                    .stages
                    .iter()
                    .map(|s| (s.clone(), model_color(s)))
                    .collect(),
                panels: vec![Panel {
                    caption: None,
                    bars: d
                        .models
                        .iter()
                        .zip(&d.bars)
                        .zip(totals)
                        .map(|((m, (_, pcts)), t)| Bar {
                            label: m.clone(),
                            parts: pcts.clone(),
                            top: format!("{t:.1}%"),
                        })
                        .collect(),
                }],
                cap: 100.0,
                whole: false,
                legend: "caught by",
                notes: Vec::new(),
            };
            render(opts.size, |svg, size| draw_bars(svg, &bars, size))
        }
        Kind::KillByOperator | Kind::SeedsToKill => {
            return Err(CsvError::new(
                &all_files(res),
                None,
                format!("--kind {} draws a campaign's kill matrix", opts.kind.name()),
            ))
        }
        _ => {
            let s = line_series(res, opts)?;
            let models: Vec<String> = s.iter().map(|s| s.name.clone()).collect();
            let n = histories(res, &models);
            let x = opts.x_axis();
            let coverage = opts.kind == Kind::Coverage;
            let title = opts.title.clone().unwrap_or_else(|| {
                if coverage {
                    format!("Store-order coverage vs {} ({n} histories)", x.column())
                } else {
                    format!("Checking time vs {} ({n} histories)", x.column())
                }
            });
            let y = if coverage {
                // zoom on the data: coverage is usually high
                let low = s
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.1))
                    .fold(f64::INFINITY, f64::min);
                let lo = (((low - 0.05) * 10.0).floor() / 10.0).clamp(0.0, 0.9);
                YScale::Linear {
                    lo,
                    hi: 1.0 + (1.0 - lo) * 0.04,
                    ticks: linear_ticks(&[], lo, 1.0),
                }
            } else {
                YScale::Log
            };
            let lines = Lines {
                title,
                x_desc: x.label(),
                y_desc: if coverage {
                    "mean coverage (ordered / same-variable write pairs)"
                } else {
                    "median time_ms (log scale)"
                },
                y,
                legend: "model",
                styles: s
                    .iter()
                    .map(|s| (model_color(&s.name), model_rank(&s.name)))
                    .collect(),
                series: &s,
                notes: Vec::new(),
            };
            render(opts.size, |svg, size| draw_lines(svg, &lines, size))
        }
    };
    drawn.map_err(|e| CsvError::new(&all_files(res), None, format!("cannot draw: {e}")))
}

/// An SVG document of `size` drawn by `draw`.
pub fn render(
    size: (u32, u32),
    draw: impl FnOnce(&mut String, (u32, u32)) -> Result<(), Error>,
) -> Result<String, Error> {
    let mut svg = String::new();
    draw(&mut svg, size)?;
    Ok(svg)
}

const LEGEND_WIDTH: u32 = 150;

/// The legend's margin: wide enough for its longest label (14 px text)
/// and note (12 px), at least [`LEGEND_WIDTH`].
fn legend_width<'a>(labels: impl Iterator<Item = &'a str>, notes: &[String]) -> u32 {
    let chars = |s: &str| s.chars().count() as u32;
    let label = labels.map(|l| 50 + 8 * chars(l)).max().unwrap_or(0);
    let note = notes.iter().map(|n| 18 + 7 * chars(n)).max().unwrap_or(0);
    LEGEND_WIDTH.max(label).max(note)
}

/// How a legend entry shows its colour.
#[derive(Clone, Copy)]
enum Swatch {
    /// A filled box (a part of a bar).
    Box,
    /// A line with the marker of this number.
    Line(usize),
}

/// Draws a legend (colour swatch and label per entry, then lines of
/// notes) in the right margin.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    entries: &[(String, RGBColor, Swatch)],
    notes: &[String],
) -> Result<(), Error>
where
    DB::ErrorType: 'static,
{
    let style =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let top = 60;
    area.draw(&Text::new(title.to_string(), (10, top), style.clone()))
        .map_err(draw_err)?;
    for (i, (label, color, swatch)) in entries.iter().enumerate() {
        let y = top + 24 * (i as i32 + 1);
        match *swatch {
            Swatch::Line(marker) => {
                area.draw(&PathElement::new(
                    vec![(10, y), (34, y)],
                    color.stroke_width(2),
                ))
                .map_err(draw_err)?;
                draw_marker(area, *color, marker, (22, y))?;
            }
            Swatch::Box => {
                area.draw(&Rectangle::new([(12, y - 6), (32, y + 6)], color.filled()))
                    .map_err(draw_err)?;
            }
        }
        area.draw(&Text::new(label.clone(), (42, y), style.clone()))
            .map_err(draw_err)?;
    }
    let small =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let below = top + 24 * (entries.len() as i32 + 1) + 6;
    for (i, note) in notes.iter().enumerate() {
        area.draw(&Text::new(
            note.clone(),
            (10, below + 18 * i as i32),
            small.clone(),
        ))
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

/// Draws one line and its markers (one of five marker shapes, so lines
/// that coincide stay distinguishable).
fn draw_series_of<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    s: &Series,
    (c, marker): (RGBColor, usize),
) -> Result<(), Error>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (p.0, p.1)).collect();
    chart
        .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
        .map_err(draw_err)?;
    match marker % 5 {
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
    c: RGBColor,
    marker: usize,
    at: (i32, i32),
) -> Result<(), Error>
where
    DB::ErrorType: 'static,
{
    match marker % 5 {
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

/// The y axis of a line chart.
pub enum YScale {
    /// Logarithmic, around the data.
    Log,
    /// Linear from `lo` to `hi`, with these ticks.
    Linear { lo: f64, hi: f64, ticks: Vec<f64> },
}

/// A line chart: a line per series, a legend entry each.
pub struct Lines<'a> {
    pub title: String,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub y: YScale,
    /// The legend's title.
    pub legend: &'a str,
    pub series: &'a [Series],
    /// Per series: its colour and marker number.
    pub styles: Vec<(RGBColor, usize)>,
    /// Lines of text under the legend.
    pub notes: Vec<String>,
}

/// The title, the plotting area and the legend's margin of a figure.
type Areas<'s> = (
    DrawingArea<SVGBackend<'s>, plotters::coord::Shift>,
    DrawingArea<SVGBackend<'s>, plotters::coord::Shift>,
    DrawingArea<SVGBackend<'s>, plotters::coord::Shift>,
);

/// A white figure with its title; the plotting area and the legend's
/// margin (`legend` pixels wide).
fn figure<'s>(
    svg: &'s mut String,
    size: (u32, u32),
    title: &str,
    legend: u32,
) -> Result<Areas<'s>, Error> {
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let titled = root.titled(title, ("sans-serif", 20)).map_err(draw_err)?;
    let (w, _) = titled.dim_in_pixel();
    let (left, right) = titled.split_horizontally(w.saturating_sub(legend.min(w / 2)));
    Ok((root, left, right))
}

pub fn draw_lines(svg: &mut String, c: &Lines, size: (u32, u32)) -> Result<(), Error> {
    let width = legend_width(c.series.iter().map(|s| s.name.as_str()), &c.notes);
    let (root, left, right) = figure(svg, size, &c.title, width)?;
    let xs: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = c
        .series
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
    match &c.y {
        YScale::Linear { lo, hi, ticks } => {
            plot_lines(&left, x_range, ticked(*lo..*hi, ticks.clone()), c)?
        }
        YScale::Log => {
            let lo = min(&ys).max(1e-6) / 1.5;
            let hi = max(&ys).max(lo * 2.0) * 1.5;
            plot_lines(
                &left,
                x_range,
                ticked((lo..hi).log_scale(), log_ticks(lo, hi)),
                c,
            )?
        }
    }
    let entries: Vec<(String, RGBColor, Swatch)> = c
        .series
        .iter()
        .zip(&c.styles)
        .map(|(s, &(color, marker))| (s.name.clone(), color, Swatch::Line(marker)))
        .collect();
    legend(&right, c.legend, &entries, &c.notes)?;
    root.present().map_err(draw_err)?;
    Ok(())
}

fn plot_lines<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    x: Ticked<X>,
    y: Ticked<Y>,
    c: &Lines,
) -> Result<(), Error>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let mut chart = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc(c.x_desc)
        .y_desc(c.y_desc)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(draw_err)?;
    for (s, &style) in c.series.iter().zip(&c.styles) {
        draw_series_of(&mut chart, s, style)?;
    }
    Ok(())
}

/// One stacked bar: its label under it, its parts (bottom first, in the
/// order of [`Bars::parts`]) and the text above it.
pub struct Bar {
    pub label: String,
    pub parts: Vec<f64>,
    pub top: String,
}

/// A row of bars, with a caption when there are several rows.
pub struct Panel {
    pub caption: Option<String>,
    pub bars: Vec<Bar>,
}

/// A stacked bar chart: panels one above the other, with one y scale and
/// one legend.
pub struct Bars<'a> {
    pub title: String,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// The parts of every bar, bottom first: legend label and colour.
    pub parts: Vec<(String, RGBColor)>,
    pub panels: Vec<Panel>,
    /// The y axis ends at most here (100 for percentages).
    pub cap: f64,
    /// The values are counts: whole ticks only.
    pub whole: bool,
    /// The legend's title.
    pub legend: &'a str,
    /// Lines of text under the legend.
    pub notes: Vec<String>,
}

pub fn draw_bars(svg: &mut String, b: &Bars, size: (u32, u32)) -> Result<(), Error> {
    let width = legend_width(b.parts.iter().map(|p| p.0.as_str()), &b.notes);
    let (root, left, right) = figure(svg, size, &b.title, width)?;
    let top = b
        .panels
        .iter()
        .flat_map(|p| p.bars.iter().map(|bar| bar.parts.iter().sum::<f64>()))
        .fold(0.0, f64::max);
    let y_max = (top * 1.15).max(1.0).min(b.cap).max(top + 1.0);
    let rows = left.split_evenly((b.panels.len().max(1), 1));
    for (panel, area) in b.panels.iter().zip(&rows) {
        let area = match &panel.caption {
            Some(c) => area.titled(c, ("sans-serif", 15)).map_err(draw_err)?,
            None => area.clone(),
        };
        draw_panel(&area, panel, b, y_max)?;
    }
    let entries: Vec<(String, RGBColor, Swatch)> = b
        .parts
        .iter()
        .map(|(label, color)| (label.clone(), *color, Swatch::Box))
        .collect();
    legend(&right, b.legend, &entries, &b.notes)?;
    root.present().map_err(draw_err)?;
    Ok(())
}

fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    panel: &Panel,
    b: &Bars,
    y_max: f64,
) -> Result<(), Error> {
    let k = panel.bars.len() as i32;
    // plotters' own ten labels; whole numbers for counts
    let mut ticks = plotters::coord::types::RangedCoordf64::from(0f64..y_max).key_points(10usize);
    if b.whole {
        ticks.retain(|t| t.fract() == 0.0);
    }
    let mut chart = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((0..k - 1).into_segmented(), ticked(0f64..y_max, ticks))
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(b.x_desc)
        .y_desc(b.y_desc)
        .x_labels(panel.bars.len())
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => panel
                .bars
                .get(*i as usize)
                .map(|bar| bar.label.clone())
                .unwrap_or_default(),
            SegmentValue::Last => String::new(),
        })
        .y_label_formatter(&|v| tick(*v))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(draw_err)?;
    let bar_margin = {
        let (pw, _) = area.dim_in_pixel();
        (pw / (panel.bars.len() as u32 + 1) / 5).max(2)
    };
    for (i, bar) in panel.bars.iter().enumerate() {
        let i = i as i32;
        let mut y = 0.0;
        for ((_, color), p) in b.parts.iter().zip(&bar.parts) {
            if *p <= 0.0 {
                continue;
            }
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i), y),
                    (SegmentValue::Exact(i + 1), y + p),
                ],
                color.filled(),
            );
            r.set_margin(0, 0, bar_margin, bar_margin);
            chart.draw_series(std::iter::once(r)).map_err(draw_err)?;
            y += p;
        }
        let style = TextStyle::from(("sans-serif", 13).into_font())
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(std::iter::once(Text::new(
                bar.top.clone(),
                (SegmentValue::CenterOf(i), y + y_max * 0.01),
                style,
            )))
            .map_err(draw_err)?;
    }
    Ok(())
}
