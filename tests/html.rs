//! `check --html DIR` (docs/reference.md, *Seeing a violation*), in a real browser: Debian's
//! `chromium` headless loads each page (no console message, the cycle's
//! elements in the DOM it built), file and history names that are HTML are
//! shown as text, never markup, and a 10⁵-operation history's page stays
//! small; on every page of the bundled runs and histories no two labels
//! of a timeline overlap and no arrow crosses a label (docs/design/figures.md §1),
//! by the layout the SVG states and by the boxes chromium lays out. Tests
//! that need chromium say so and pass where it is absent.

mod common;

use common::{memconform, root};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("html", name)
}

/// The chromium binary, or `None` (with a message) where there is none.
fn chromium() -> Option<&'static str> {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(c);
        }
    }
    eprintln!("SKIPPED: no chromium on this machine (apt-get install chromium)");
    None
}

/// Loads `page` in headless chromium: the DOM it built and its console
/// messages (each a `CONSOLE` line of its log).
fn load(chromium: &str, page: &Path) -> (String, Vec<String>) {
    let profile = temp_dir(&format!(
        "profile-{}",
        page.file_name().unwrap().to_string_lossy().len()
    ));
    let o = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let _ = std::fs::remove_dir_all(&profile);
    let log = String::from_utf8_lossy(&o.stderr);
    let console = log
        .lines()
        .filter(|l| l.contains("CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8_lossy(&o.stdout).into_owned(), console)
}

/// What a page may never hold: a script, or anything fetched (from
/// elsewhere or at all: no image, style sheet, frame or font file).
fn assert_self_contained(html: &str) {
    let lower = html.to_lowercase();
    for tag in [
        "<script", "<img", "<link", "<iframe", "<object", "<embed", "@import",
    ] {
        assert!(!lower.contains(tag), "`{tag}` in the page");
    }
    let links: Vec<&str> = html
        .match_indices("http")
        .map(|(i, _)| &html[i..(i + 40).min(html.len())])
        .filter(|s| !s.starts_with("http://www.w3.org/2000/svg"))
        .collect();
    assert!(links.is_empty(), "network references: {links:?}");
    let urls: Vec<&str> = html
        .match_indices("url(")
        .map(|(i, _)| &html[i..(i + 12).min(html.len())])
        .filter(|s| !s.starts_with("url(#"))
        .collect();
    assert!(urls.is_empty(), "urls: {urls:?}");
}

#[test]
fn the_mi5_page_loads_cleanly_with_its_cycle_in_the_dom() {
    let out = temp_dir("mi5");
    let o = memconform(&[
        "check",
        "--real-time",
        root().join("traces/bug-mi5-n4-s1-rich").to_str().unwrap(),
        "--models",
        "sc",
        "--html",
        out.to_str().unwrap(),
    ]);
    // exit status and outputs as without --html
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let page = out.join("bug-mi5-n4-s1-rich-real-time-1.html");
    let html = std::fs::read_to_string(&page).expect("the page of the real-time view");
    assert_self_contained(&html);
    // the per-port view is consistent: no page, but counted in the index
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("href=\"bug-mi5-n4-s1-rich-real-time-1.html\""));
    assert!(
        index.contains("2 histories checked: 1 break their promise, 0 with a violation only"),
        "{index}"
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        2,
        "the page and the index, no temporary file left"
    );
    // the gem5 explanation and the commands that reproduce it
    assert!(html.contains("ProtocolTrace of line 0x6c0"));
    assert!(html.contains("seeded_random_test.py --seed 1 -n 4"));
    assert!(html.contains("--models sc --real-time"));
    assert!(html.contains("Shrunk counterexample</b>: 2 of 419 operations, 1-minimal"));

    let Some(chromium) = chromium() else { return };
    let (dom, console) = load(chromium, &page);
    assert!(console.is_empty(), "console messages: {console:#?}");
    for id in ["v0-op-a", "v0-op-b", "v0-edge-0", "v0-edge-1", "v0s-op-a"] {
        assert!(
            dom.contains(&format!("id=\"{id}\"")),
            "#{id} not in the DOM"
        );
    }
    assert!(dom.contains("class=\"op cycle-op read\""));
    assert!(dom.contains("class=\"op cycle-op write\""));
    assert!(
        dom.contains("class=\"op named-op write\""),
        "the initial write"
    );
    assert!(dom.contains("data-rel=\"rw\"") && dom.contains("data-rel=\"po\""));
    // two edges in the timeline, two in the shrunk one
    assert_eq!(dom.matches("class=\"cycle-edge\"").count(), 4);
    let (dom, console) = load(chromium, &out.join("index.html"));
    assert!(console.is_empty(), "console messages: {console:#?}");
    assert!(dom.contains("caught by cc"));
}

#[test]
fn the_console_check_sees_a_console_message() {
    // the check above is not vacuous: a page that logs is caught
    let Some(chromium) = chromium() else { return };
    let dir = temp_dir("control");
    let page = dir.join("logs.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let (_, console) = load(chromium, &page);
    assert!(
        console.iter().any(|l| l.contains("boom")),
        "chromium's log format changed: {console:?}"
    );
}

#[test]
fn html_in_file_and_history_names_is_text_not_markup() {
    let dir = temp_dir("evil");
    let name = "<img src=x onerror=alert(1)>&'\"";
    let input = dir.join(format!("{name}.hist"));
    std::fs::write(
        &input,
        "@name <script>alert('name')</script>\nt0: W(x,1) R(y,0)\nt1: W(y,1) R(x,0)\n",
    )
    .unwrap();
    let out = dir.join("report");
    let o = memconform(&[
        "check",
        input.to_str().unwrap(),
        "--models",
        "sc",
        "--html",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let pages: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "index.html")
        .collect();
    assert_eq!(pages.len(), 1, "{pages:?}");
    // the page's own name is plain
    let file = pages[0].file_name().unwrap().to_str().unwrap();
    assert!(
        file.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
        "{file}"
    );
    for page in [pages[0].clone(), out.join("index.html")] {
        let html = std::fs::read_to_string(&page).unwrap();
        assert_self_contained(&html);
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&amp;&#39;&quot;"));
        if page != out.join("index.html") {
            assert!(html.contains("&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;"));
        }
        if let Some(chromium) = chromium() {
            let (dom, console) = load(chromium, &page);
            assert!(console.is_empty(), "console messages: {console:#?}");
            assert!(!dom.contains("<img") && !dom.contains("<script"));
            assert!(dom.contains("&lt;img src=x onerror=alert(1)&gt;"));
        }
    }
}

#[test]
fn a_page_of_a_hundred_thousand_operations_is_small() {
    let dir = temp_dir("large");
    // gen --faults 1: one stale read in each history; seeds until one
    // violates (almost always the first)
    let hist = dir.join("large.hist");
    let mut found = false;
    for seed in 0..5 {
        let o = memconform(&[
            "gen",
            "--threads",
            "4",
            "--ops",
            "25000",
            "--faults",
            "1",
            "--seed",
            &seed.to_string(),
        ]);
        assert!(o.status.success());
        std::fs::write(&hist, &o.stdout).unwrap();
        let out = dir.join(format!("report-{seed}"));
        let o = memconform(&[
            "check",
            hist.to_str().unwrap(),
            "--models",
            "cc",
            "--shrink-timeout",
            "10",
            "--html",
            out.to_str().unwrap(),
        ]);
        if o.status.code() != Some(1) {
            continue;
        }
        found = true;
        let page = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap() != "index.html")
            .expect("a page");
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.len() < 400_000, "{} bytes", html.len());
        assert!(
            html.contains("of 100000 operations drawn"),
            "the window's size is said"
        );
        assert!(html.contains("elided"));
        assert!(html.contains("id=\"v0-op-a\"") && html.contains("class=\"cycle-edge\""));
        // every certificate event of the text report has its box
        let ops = html.matches("<g class=\"op").count();
        assert!(ops <= 2 * 400 + 10, "{ops} operations drawn");
        if let Some(chromium) = chromium() {
            let (dom, console) = load(chromium, &page);
            assert!(console.is_empty(), "console messages: {console:#?}");
            assert!(dom.contains("id=\"v0-edge-0\""));
        }
        break;
    }
    assert!(found, "no gen --faults 1 history violated cc");
}

/// The bundled inputs: every gem5 run of traces/ and tests/data/gem5, and
/// the papers' and litmus histories (timed and untimed, 1 to 8 lanes).
fn bundled_inputs() -> Vec<PathBuf> {
    let dirs = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        v.sort();
        v
    };
    let mut inputs = dirs(&root().join("traces"));
    for protocol in dirs(&root().join("tests/data/gem5")) {
        inputs.extend(dirs(&protocol));
    }
    inputs.push(root().join("examples/papers-and-litmus.hist"));
    inputs
}

/// Every page `check --real-time --html` writes for the bundled inputs
/// (written once, for the tests that read them).
fn bundled_pages() -> &'static [PathBuf] {
    static PAGES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    PAGES.get_or_init(|| {
        let out = temp_dir("bundled");
        let mut pages = Vec::new();
        for (i, input) in bundled_inputs().iter().enumerate() {
            let dir = out.join(i.to_string());
            let o = memconform(&[
                "check",
                "--real-time",
                input.to_str().unwrap(),
                "--html",
                dir.to_str().unwrap(),
            ]);
            assert!(
                matches!(o.status.code(), Some(0 | 1)),
                "{}: {}",
                input.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.file_name().unwrap() != "index.html")
                .collect();
            found.sort();
            pages.extend(found);
        }
        pages
    })
}

/// The timelines of a page: each `<svg class="timeline">` element.
fn timeline_svgs(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<svg ") {
        let end = i + rest[i..].find("</svg>").expect("an SVG ends") + "</svg>".len();
        let svg = &rest[i..end];
        if svg[..svg.find('>').unwrap()].contains("class=\"timeline\"") {
            out.push(svg);
        }
        rest = &rest[end..];
    }
    out
}

/// Attribute `name`'s value in the start tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Attribute `name` of `tag`, a number.
fn number(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number `{name}` in {tag}"))
}

/// The elements `<{name} ...>...</{name}>` in `s`: each its start tag and
/// its content.
fn elements<'a>(s: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    let (open, close) = (format!("<{name} "), format!("</{name}>"));
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(&open) {
        let tag_end = i + rest[i..].find('>').unwrap() + 1;
        let end = tag_end + rest[tag_end..].find(&close).expect("the element ends");
        out.push((&rest[i..tag_end], &rest[tag_end..end]));
        rest = &rest[end..];
    }
    out
}

/// The font size of each class of a timeline's texts, from a page's CSS
/// (`.timeline .op-label { font-size: 12px; ...`).
fn font_sizes(html: &str) -> Vec<(String, f64)> {
    html.lines()
        .filter_map(|l| {
            let (class, decl) = l.strip_prefix(".timeline .")?.split_once(" {")?;
            let size = decl.split_once("font-size: ")?.1.split_once("px")?.0;
            Some((class.to_string(), size.parse().ok()?))
        })
        .collect()
}

/// A text's box reaches this many font sizes above its baseline and
/// below, and past either end of its `textLength` (some glyphs' ink does):
/// the layout's metrics, generous for DejaVu Sans Mono, Liberation Mono,
/// Menlo and Consolas; the chromium test checks the browser's boxes lie
/// within.
const ASCENT: f64 = 0.95;
const DESCENT: f64 = 0.3;
const OVERHANG: f64 = 0.1;

/// A box: left, top, right, bottom.
type Box = [f64; 4];

/// A label read back from a timeline: what it says, its box and, for an
/// edge's pill, the edge's index.
struct Label {
    what: String,
    b: Box,
    edge: Option<usize>,
}

/// A timeline read back from its SVG: its id, labels (texts, edges'
/// pills), edges' curves, lanes of operations (threads or ports) and axis.
struct Timeline {
    id: String,
    labels: Vec<Label>,
    arrows: Vec<[(f64, f64); 4]>,
    lanes: usize,
    axis: String,
    /// Edge labels outside their pill.
    loose: Vec<String>,
}

/// The timelines of a page, read back.
fn timelines(html: &str) -> Vec<Timeline> {
    let sizes = font_sizes(html);
    let size = |class: &str| {
        sizes
            .iter()
            .find(|(c, _)| c == class)
            .unwrap_or_else(|| panic!("no font size for .{class} in the page's CSS"))
            .1
    };
    let text_box = |tag: &str| -> Box {
        assert!(attr(tag, "text-anchor").is_none(), "{tag}");
        let class = attr(tag, "class").unwrap().split(' ').next().unwrap();
        let (x, y, s) = (number(tag, "x"), number(tag, "y"), size(class));
        [
            x - OVERHANG * s,
            y - ASCENT * s,
            x + number(tag, "textLength") + OVERHANG * s,
            y + DESCENT * s,
        ]
    };
    let mut out = Vec::new();
    for svg in timeline_svgs(html) {
        let mut t = Timeline {
            id: attr(svg, "id").unwrap().to_string(),
            labels: Vec::new(),
            arrows: Vec::new(),
            lanes: 0,
            axis: String::new(),
            loose: Vec::new(),
        };
        for (tag, text) in elements(svg, "text") {
            match attr(tag, "class").unwrap() {
                "edge-label" => continue,
                "lane-name" if text != "initial values" => t.lanes += 1,
                "axis-title" => t.axis = text.to_string(),
                _ => {}
            }
            t.labels.push(Label {
                what: text.to_string(),
                b: text_box(tag),
                edge: None,
            });
        }
        for (tag, group) in elements(svg, "g") {
            if !matches!(attr(tag, "class"), Some("cycle-edge" | "context-edge")) {
                continue;
            }
            let i = t.arrows.len();
            let d = attr(group, "d").expect("an edge's path");
            let v: Vec<f64> = d
                .replace(['M', 'C', ','], " ")
                .split_whitespace()
                .map(|n| n.parse().unwrap())
                .collect();
            assert_eq!(v.len(), 8, "a cubic curve: {d}");
            t.arrows
                .push([(v[0], v[1]), (v[2], v[3]), (v[4], v[5]), (v[6], v[7])]);
            let pill = &group[group.find("<rect class=\"pill\"").expect("a pill")..];
            let (x, y) = (number(pill, "x"), number(pill, "y"));
            let b = [x, y, x + number(pill, "width"), y + number(pill, "height")];
            let (label_tag, label) = elements(group, "text")[0];
            let lb = text_box(label_tag);
            if !(b[0] <= lb[0] && lb[2] <= b[2] && b[1] <= lb[1] && lb[3] <= b[3]) {
                t.loose
                    .push(format!("edge label {label} {lb:?} out of its pill {b:?}"));
            }
            t.labels.push(Label {
                what: format!("the pill of edge {i} ({label})"),
                b,
                edge: Some(i),
            });
        }
        out.push(t);
    }
    out
}

/// Whether the insides of two boxes meet.
fn overlap(a: &Box, b: &Box) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// Whether the segment `p`-`q` meets the inside of `r` (Liang-Barsky).
fn segment_meets(p: (f64, f64), q: (f64, f64), r: &Box) -> bool {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (num, den) in [
        (p.0 - r[0], -dx),
        (r[2] - p.0, dx),
        (p.1 - r[1], -dy),
        (r[3] - p.1, dy),
    ] {
        if den == 0.0 {
            if num <= 0.0 {
                return false;
            }
        } else if den < 0.0 {
            t0 = t0.max(num / den);
        } else {
            t1 = t1.min(num / den);
        }
    }
    t0 < t1
}

/// The point of a cubic Bézier curve at `t`.
fn cubic(c: &[(f64, f64); 4], t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
    (
        (0..4).map(|i| w[i] * c[i].0).sum(),
        (0..4).map(|i| w[i] * c[i].1).sum(),
    )
}

/// What is wrong with a timeline's layout: labels that overlap, arrows
/// through labels (but their own pills), edge labels out of their pills.
fn collisions(t: &Timeline) -> Vec<String> {
    let mut out = t.loose.clone();
    for (i, a) in t.labels.iter().enumerate() {
        for b in &t.labels[i + 1..] {
            if overlap(&a.b, &b.b) {
                out.push(format!(
                    "{:?} {:?} overlaps {:?} {:?}",
                    a.what, a.b, b.what, b.b
                ));
            }
        }
    }
    for (i, c) in t.arrows.iter().enumerate() {
        let line: Vec<(f64, f64)> = (0..=600).map(|k| cubic(c, k as f64 / 600.0)).collect();
        for l in t.labels.iter().filter(|l| l.edge != Some(i)) {
            if line.windows(2).any(|w| segment_meets(w[0], w[1], &l.b)) {
                out.push(format!("edge {i} crosses {:?} {:?}", l.what, l.b));
            }
        }
    }
    out
}

#[test]
fn no_label_of_a_bundled_page_overlaps_another_or_is_crossed_by_an_arrow() {
    let pages = bundled_pages();
    let mut problems = Vec::new();
    let (mut drawn, mut timed, mut untimed) = (0, 0, 0);
    let mut lanes = Vec::new();
    for page in pages {
        let html = std::fs::read_to_string(page).unwrap();
        for t in timelines(&html) {
            drawn += 1;
            if t.axis.starts_with("po position") {
                untimed += 1;
            } else {
                timed += 1;
            }
            lanes.push(t.lanes);
            for p in collisions(&t) {
                problems.push(format!("{} #{}: {p}", page.display(), t.id));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} collisions, the first:\n{}",
        problems.len(),
        problems[..problems.len().min(30)].join("\n")
    );
    // the set covers what it should
    assert!(pages.len() >= 100, "{} pages", pages.len());
    assert!(
        timed >= 20 && untimed >= 20,
        "{timed} timed, {untimed} untimed"
    );
    for n in [1, 2, 3, 4, 8] {
        assert!(lanes.contains(&n), "no timeline of {n} lanes");
    }
    assert!(drawn >= 2 * pages.len());
}

/// A timeline drawn by hand with two labels that overlap and an arrow
/// through a label, and the style of the bundled pages.
fn collided() -> String {
    let first = std::fs::read_to_string(&bundled_pages()[0]).unwrap();
    let style = &first[first.find("<style>").unwrap()..first.find("</style>").unwrap() + 8];
    let path = r##"<path d="M120.0,60.0 C160.0,60.0 200.0,60.0 260.0,60.0" fill="none" stroke="#475569"/>"##;
    format!(
        r##"<!DOCTYPE html><html><head><meta charset="utf-8">{style}</head><body><div data-page="collided"><svg xmlns="http://www.w3.org/2000/svg" class="timeline" id="c" width="300" height="100" viewBox="0 0 300 100"><text class="op-label" x="10.0" y="30.0" textLength="64.8">a: W(x,1)</text><text class="op-label" x="50.0" y="34.0" textLength="64.8">b: W(y,1)</text><text class="op-token" x="160.0" y="64.0" textLength="36.0">W(z,1)</text><g class="cycle-edge" id="c-edge-0" data-rel="po">{path}{path}<rect class="pill" x="125.0" y="70.0" width="25.2" height="17.0" rx="8.5" fill="#fff"/><text class="edge-label" x="131.0" y="82.5" textLength="13.2">po</text></g></svg></div></body></html>"##
    )
}

#[test]
fn the_collision_checks_see_collisions() {
    // the checks above are not vacuous: a timeline with collisions is caught
    let html = collided();
    let found = collisions(&timelines(&html).remove(0));
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].contains("\"a: W(x,1)\"") && found[0].contains("overlaps \"b: W(y,1)\""));
    assert!(found[1].starts_with("edge 0 crosses \"W(z,1)\""));
    let Some(chromium) = chromium() else { return };
    let file = temp_dir("collided").join("collided.html");
    std::fs::write(&file, html.replace("</body>", &format!("{MEASURE}</body>"))).unwrap();
    let (dom, _) = load(chromium, &file);
    let (_, found) = elements(&dom, "pre")
        .into_iter()
        .find(|(tag, _)| attr(tag, "id") == Some("collisions"))
        .expect("the script ran");
    let lines: Vec<&str> = found.lines().collect();
    assert_eq!(lines.len(), 2, "{found}");
    assert!(lines[0].contains("overlaps") && lines[1].contains("edge 0 crosses"));
}

/// Run in chromium over timelines, it appends `<pre id="collisions">` to
/// the body (its `data-timelines` the number of timelines measured): a
/// line per text whose box (`getBBox`) is not within the layout's, per
/// two labels whose boxes overlap, per arrow through a label (points of
/// its path every half pixel); the timelines are removed.
const MEASURE: &str = r#"<script>
(function () {
  var out = [], n = 0;
  var meet = function (a, b) {
    return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  };
  var inside = function (p, b) {
    return b.x < p.x && p.x < b.x + b.width && b.y < p.y && p.y < b.y + b.height;
  };
  document.querySelectorAll('div[data-page]').forEach(function (div) {
    div.querySelectorAll('svg.timeline').forEach(function (svg) {
      n++;
      var name = div.getAttribute('data-page') + ' #' + svg.id + ': ';
      var labels = [];
      svg.querySelectorAll('text').forEach(function (t) {
        var b = t.getBBox(), s = parseFloat(getComputedStyle(t).fontSize);
        var x = +t.getAttribute('x'), y = +t.getAttribute('y'), w = +t.getAttribute('textLength');
        if (b.x < x - 0.1 * s || b.x + b.width > x + w + 0.1 * s || b.y < y - 0.95 * s || b.y + b.height > y + 0.3 * s) {
          out.push(name + JSON.stringify(t.textContent) + ' is drawn at ' + [b.x, b.y, b.width, b.height] + ', outside its box in the layout');
        }
        if (!t.classList.contains('edge-label')) labels.push({ what: t.textContent, b: b, edge: -1 });
      });
      var edges = svg.querySelectorAll('g.cycle-edge, g.context-edge');
      edges.forEach(function (g, i) {
        labels.push({ what: 'the pill of edge ' + i, b: g.querySelector('rect.pill').getBBox(), edge: i });
      });
      for (var i = 0; i < labels.length; i++) {
        for (var j = i + 1; j < labels.length; j++) {
          if (meet(labels[i].b, labels[j].b)) out.push(name + JSON.stringify(labels[i].what) + ' overlaps ' + JSON.stringify(labels[j].what));
        }
      }
      edges.forEach(function (g, i) {
        var path = g.querySelectorAll('path')[1], pb = path.getBBox();
        var near = labels.filter(function (l) {
          return l.edge !== i && meet(l.b, { x: pb.x - 1, y: pb.y - 1, width: pb.width + 2, height: pb.height + 2 });
        });
        var len = path.getTotalLength(), hit = [];
        for (var s = 0; s <= len; s += 0.5) {
          var p = path.getPointAtLength(s);
          near.forEach(function (l) {
            if (hit.indexOf(l) < 0 && inside(p, l.b)) {
              hit.push(l);
              out.push(name + 'edge ' + i + ' crosses ' + JSON.stringify(l.what));
            }
          });
        }
      });
    });
    div.remove();
  });
  var pre = document.createElement('pre');
  pre.id = 'collisions';
  pre.setAttribute('data-timelines', n);
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
})();
</script>"#;

#[test]
fn in_chromium_no_label_of_a_bundled_page_overlaps_another_or_is_crossed_by_an_arrow() {
    let Some(chromium) = chromium() else { return };
    let pages = bundled_pages();
    // every timeline in one document with the pages' style, and the
    // measuring script (the pages themselves have none)
    let first = std::fs::read_to_string(&pages[0]).unwrap();
    let style = &first[first.find("<style>").unwrap()..first.find("</style>").unwrap() + 8];
    let mut doc =
        format!("<!DOCTYPE html><html><head><meta charset=\"utf-8\">{style}</head><body>");
    let mut drawn = 0;
    for page in pages {
        let html = std::fs::read_to_string(page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy();
        for svg in timeline_svgs(&html) {
            doc.push_str(&format!("<div data-page=\"{name}\">{svg}</div>"));
            drawn += 1;
        }
    }
    doc.push_str(MEASURE);
    doc.push_str("</body></html>");
    let file = temp_dir("measure").join("timelines.html");
    std::fs::write(&file, doc).unwrap();
    let (dom, console) = load(chromium, &file);
    assert!(console.is_empty(), "console messages: {console:#?}");
    let (tag, found) = elements(&dom, "pre")
        .into_iter()
        .find(|(tag, _)| attr(tag, "id") == Some("collisions"))
        .expect("the script ran");
    assert_eq!(number(tag, "data-timelines") as usize, drawn);
    assert!(found.trim().is_empty(), "in chromium:\n{found}");
}

/// Regenerates docs/mi5-violation.png (the README's screenshot):
/// `cargo test --test html -- --ignored screenshot`.
#[test]
#[ignore]
fn screenshot() {
    let Some(chromium) = chromium() else { return };
    let out = temp_dir("screenshot");
    let o = memconform(&[
        "check",
        "--real-time",
        "traces/bug-mi5-n4-s1-rich",
        "--html",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let page = out.join("bug-mi5-n4-s1-rich-real-time-1.html");
    let png = root().join("docs/mi5-violation.png");
    let o = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1700,1000",
        ])
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(o.status.success() && png.is_file());
}
