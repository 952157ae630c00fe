//! `check --html DIR`: a self-contained page per violating history (inline
//! SVG and CSS; no script, no network) and an `index.html` for the batch.
//!
//! A history's page shows, per distinct violation, the timeline around the
//! certificate's events with its cycle as labelled arrows
//! ([`super::timeline`]), the shrunk counterexample beside it, the
//! certificate's events, the explanation in gem5's terms, the certificate
//! as DOT, and the commands that reproduce the run and the check. Every
//! piece of text from the input (file names, history names, trace lines)
//! is escaped.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use super::{path_text, write_atomic};
use crate::markup::{escape, letter};
use crate::timeline::{colour, meaning, timeline_svg, Layout};
use memconform_core::certificate::Rel;
use memconform_core::check::shrink::Shrunk;
use memconform_core::check::Verdict;
use memconform_core::models::Model;
use memconform_ingest::Checked;

/// At most this many rows of a certificate's events are listed (and a
/// certificate with a longer cycle is not given as DOT on the page).
const MAX_ROWS: usize = 64;

/// At most this many characters of a certificate's text are shown.
const MAX_TEXT: usize = 4000;

/// `s` cut to at most `max` characters, saying how much was left out.
fn clipped(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((i, _)) => Cow::Owned(format!(
            "{} … ({} more characters: the text and CSV reports hold the whole certificate)",
            &s[..i],
            s.len() - i
        )),
    }
}

/// The pages' style sheet.
const CSS: &str = r#"
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #0f172a; background: #f1f5f9; margin: 0; }
header { background: #0f172a; color: #f8fafc; padding: 14px 24px; }
header h1 { font-size: 20px; margin: 0 0 4px; font-weight: 650; }
header p { margin: 0; color: #cbd5e1; }
header a { color: #93c5fd; }
main { padding: 16px 24px 40px; }
section { background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; padding: 14px 18px; margin: 0 0 16px; }
h2 { font-size: 17px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; color: #334155; }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
pre { background: #f8fafc; border: 1px solid #e2e8f0; border-radius: 6px; padding: 8px 10px; overflow-x: auto; white-space: pre; margin: 4px 0; }
table { border-collapse: collapse; margin: 4px 0; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #e2e8f0; vertical-align: top; }
th { color: #475569; font-weight: 600; }
td.num, th.num { text-align: right; padding-right: 14px; }
.badge { display: inline-block; border-radius: 9px; padding: 0 8px; font-size: 12px; font-weight: 600; }
.violation-b { background: #fee2e2; color: #991b1b; }
.consistent-b { background: #dcfce7; color: #166534; }
.unknown-b { background: #fef9c3; color: #854d0e; }
.cert { background: #fff7ed; border-left: 4px solid #dc2626; padding: 6px 10px; margin: 6px 0 10px; overflow-x: auto; }
.pair { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
figure { margin: 0; min-width: 0; }
figure.main { flex: 0 1 auto; max-width: 100%; }
figure.shrunk { flex: 1 1 360px; }
figcaption { font-size: 13px; color: #334155; margin: 0 0 6px; }
figure.main figcaption { contain: inline-size; }
.scroll { overflow-x: auto; border: 1px solid #e2e8f0; border-radius: 8px; background: #fff; width: fit-content; max-width: 100%; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12px; color: #334155; margin: 4px 0 10px; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.sw { display: inline-block; width: 22px; height: 12px; border-radius: 3px; border: 1px solid; }
.sw.w { background: #dbeafe; border-color: #60a5fa; }
.sw.r { background: #fef3c7; border-color: #f59e0b; }
.sw.c { background: #fcd34d; border: 2px solid #0f172a; }
.sw.n { background: #fff; border: 2px dashed #0f172a; }
.ar { display: inline-block; width: 26px; height: 0; border-top: 3px solid; position: relative; }
.note { color: #475569; font-size: 13px; }
.timeline .op rect { stroke-width: 1; }
.timeline .op.write rect { fill: #dbeafe; stroke: #60a5fa; }
.timeline .op.read rect { fill: #fef3c7; stroke: #f59e0b; }
.timeline .op.fence rect { fill: #e5e7eb; stroke: #9ca3af; }
.timeline .cycle-op rect, .timeline .named-op rect { stroke: #0f172a; stroke-width: 2.2; }
.timeline .cycle-op.write rect { fill: #93c5fd; }
.timeline .cycle-op.read rect { fill: #fcd34d; }
.timeline .named-op rect { stroke-dasharray: 4 2; }
.timeline text { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.timeline .op-label { font-size: 12px; font-weight: 700; fill: #0f172a; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.timeline .op-token { font-size: 10px; fill: #334155; }
.timeline .lane-name { font-size: 11px; font-weight: 600; fill: #334155; }
.timeline .tick { font-size: 10px; fill: #64748b; }
.timeline .tick.key { font-weight: 700; fill: #0f172a; }
.timeline .axis-title { font-size: 11px; font-style: italic; fill: #475569; }
.timeline .edge-label { font-size: 11px; font-weight: 700; }
.timeline .gap-n { font-size: 12px; font-weight: 700; fill: #475569; }
.timeline .gap-t { font-size: 10px; fill: #64748b; }
"#;

/// The start of a page: doctype, title, style, header.
fn head(out: &mut String, title: &str, subtitle: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><header><h1>{}</h1><p>{subtitle}</p></header><main>",
        escape(title),
        escape(title)
    );
}

/// What a history's page is made of.
pub struct Page<'a> {
    /// The input file or gem5 run directory.
    pub input: &'a Path,
    /// The history, its outcomes and provenance (its operations' origins,
    /// a gem5 run's command line): the page's only source of them.
    pub checked: &'a Checked,
    /// Per outcome: its shrunk violation, or why not (empty: not shrunk).
    pub shrinks: &'a [Option<Result<Shrunk, String>>],
}

/// The page of a checked history with at least one violation.
pub fn history_page(p: &Page<'_>) -> String {
    let c = p.checked;
    let h = &c.history;
    let input = path_text(p.input);
    let name = h.name.as_deref().unwrap_or("");
    let title = if name.is_empty() {
        format!("{input}#{}", h.index)
    } else {
        format!("{name} — {input}#{}", h.index)
    };
    let mut subtitle = format!(
        "{} operations, {} thread{}",
        h.n_thread_ops(),
        h.threads.len(),
        if h.threads.len() == 1 { "" } else { "s" }
    );
    if let Some(pr) = &c.run.protocol {
        let _ = write!(subtitle, ", protocol {}", escape(pr));
    }
    let _ = write!(subtitle, " · <b>{}</b>", escape(&promise_status(c)));
    subtitle.push_str(" · <a href=\"index.html\">all violations</a>");
    let mut out = String::with_capacity(64 * 1024);
    head(&mut out, &title, &subtitle);

    let layout = Layout::of(h, c.origins.as_ref());
    // one section per distinct violation (the models sharing it)
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, o) in c.outcomes.iter().enumerate() {
        let Some(v) = o.violation() else { continue };
        if o.verdict() != Verdict::Violation {
            continue;
        }
        match groups
            .iter_mut()
            .find(|g| c.outcomes[g[0]].violation() == Some(v))
        {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    let radius = (2 * layout.lanes.len()).clamp(6, 12);
    for (k, g) in groups.iter().enumerate() {
        let o = &c.outcomes[g[0]];
        let v = o.violation().expect("grouped by violation");
        let models: Vec<&str> = g.iter().map(|&i| c.outcomes[i].model.name()).collect();
        let caught = if o.decided_by != o.model || g.len() > 1 {
            format!(" <span class=\"note\">caught by {}</span>", o.decided_by)
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<section class=\"violation\" id=\"v{k}\"><h2>{} violated: {}{caught}</h2><div class=\"cert\"><code>{}</code></div>",
            models.join(", "),
            v.pattern.name(),
            escape(&clipped(&v.explain(h), MAX_TEXT))
        );
        legend(&mut out, v.cycle.iter().map(|s| s.rel).collect());
        let drawing = timeline_svg(h, &layout, v, &format!("v{k}"), radius);
        let w = &drawing.window;
        let elided = w.total - w.shown;
        let (drawn, events) = drawing.events;
        let long = if drawn < events {
            format!(
                " The cycle has {} edges: its first {drawn} events are drawn.",
                v.cycle.len()
            )
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<div class=\"pair\"><figure class=\"main\"><figcaption><b>Timeline</b>, a lane per {}: {} of {} operations drawn{}.{long} The axis ({}) marks every issue and completion in order, not to scale. Hover an operation for its details.</figcaption><div class=\"scroll\">{}</div></figure>",
            c.origins.as_ref().map_or("thread", |g| g.terms.lane),
            w.shown,
            w.total,
            if elided > 0 {
                format!(
                    ", {elided} elided (only the operations nearest the certificate's events)"
                )
            } else {
                String::new()
            },
            escape(layout.axis),
            drawing.svg
        );
        // the shrunk counterexample
        out.push_str("<figure class=\"shrunk\">");
        let mut after = String::new();
        match p.shrinks.get(g[0]).and_then(Option::as_ref) {
            Some(Ok(s)) => {
                let sl = layout.restricted(&s.origin, s.history.vars.len());
                let sd = timeline_svg(&s.history, &sl, &s.violation, &format!("v{k}s"), 64);
                let _ = write!(
                    out,
                    "<figcaption><b>Shrunk counterexample</b>: {} of {} operations{}, the same violation ({} by {}).</figcaption><div class=\"scroll\">{}</div>",
                    s.history.n_thread_ops(),
                    h.n_thread_ops(),
                    if s.one_minimal {
                        ", 1-minimal".to_string()
                    } else {
                        format!(
                            ", not shown 1-minimal{}",
                            s.note
                                .as_deref()
                                .map(|n| format!(" ({})", escape(n)))
                                .unwrap_or_default()
                        )
                    },
                    s.target.model,
                    s.target.weakest,
                    sd.svg
                );
                let text = super::shrunk::shrunk_hist(
                    h,
                    s,
                    &super::shrunk::Provenance {
                        input: p.input,
                        command: Some(crate::commands::shrink_command(p.input, h.index, o.model)),
                        origins: c.origins.as_ref(),
                    },
                );
                let _ = write!(
                    after,
                    "<details open><summary>The shrunk counterexample as a .hist file</summary><pre>{}</pre></details>",
                    escape(&clipped(&text, 20 * MAX_TEXT))
                );
                if s.history.n() <= MAX_ROWS {
                    let dot = super::dot::certificate_dot(
                        &s.history,
                        &s.violation,
                        &format!("{title}, shrunk for {}", s.target.model),
                        true,
                    );
                    let _ = write!(
                        after,
                        "<details><summary>The shrunk counterexample as Graphviz (DOT)</summary><pre>{}</pre></details>",
                        escape(&dot)
                    );
                }
            }
            Some(Err(e)) => {
                let _ = write!(
                    out,
                    "<figcaption><b>Not shrunk</b>: the violation did not recur ({}).</figcaption>",
                    escape(e)
                );
            }
            None => out.push_str(
                "<figcaption><b>Not shrunk</b> (no shrink was run for this violation).</figcaption>",
            ),
        }
        out.push_str("</figure></div>");
        out.push_str(&after);

        // the events
        out.push_str("<h3>The certificate's events</h3><table class=\"events\"><tr><th></th><th>operation</th><th>input position</th><th>role / origin</th></tr>");
        let events = v.events();
        for (i, &(op, role)) in events.iter().enumerate().take(MAX_ROWS) {
            let pos = if h.is_init(op) {
                "initial write".to_string()
            } else {
                format!("{}:{}", h.ops[op].pos.line, h.ops[op].pos.col)
            };
            let mut what = role.map(|r| r.to_string()).unwrap_or_default();
            if let Some(t) = layout.origin_text(op) {
                if !what.is_empty() {
                    what.push_str("; ");
                }
                what.push_str(&t);
            }
            let _ = write!(
                out,
                "<tr><td><b>{}</b></td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                letter(i),
                escape(&h.describe(op)),
                pos,
                escape(&what)
            );
        }
        out.push_str("</table>");
        if events.len() > MAX_ROWS {
            let _ = write!(
                out,
                "<p class=\"note\">… and {} more events (the text and CSV reports hold the whole certificate).</p>",
                events.len() - MAX_ROWS
            );
        }
        if let Some(e) = c.explanations.get(g[0]).and_then(Option::as_deref) {
            let _ = write!(
                out,
                "<h3>In gem5's terms</h3><pre class=\"explanation\">{}</pre>",
                escape(e)
            );
        }
        if v.cycle.len() <= MAX_ROWS {
            let dot = super::dot::certificate_dot(h, v, &title, false);
            let _ = write!(
                out,
                "<details><summary>The certificate as Graphviz (DOT)</summary><pre>{}</pre></details>",
                escape(&dot)
            );
        }
        out.push_str("</section>");
    }

    // verdicts
    out.push_str("<section><h2>Verdicts</h2><table><tr><th>model</th><th>verdict</th><th>decided by</th><th>pattern</th><th>why unknown</th></tr>");
    for o in &c.outcomes {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><span class=\"badge {}-b\">{}</span></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            o.model,
            o.verdict().name(),
            o.verdict().name(),
            o.decided_by,
            o.violation().map_or("", |v| v.pattern.name()),
            escape(&o.reason().map(|r| r.to_string()).unwrap_or_default())
        );
    }
    out.push_str("</table></section>");
    // notes and commands
    if !c.notes.is_empty() || c.damage.is_some() {
        out.push_str("<section><h2>Notes</h2><ul>");
        for n in &c.notes {
            let _ = write!(out, "<li>{}</li>", escape(n));
        }
        if let Some(d) = &c.damage {
            let _ = write!(out, "<li>damaged input: {}</li>", escape(d));
        }
        out.push_str("</ul></section>");
    }
    let violated: Vec<Model> = c
        .outcomes
        .iter()
        .filter(|o| o.verdict() == Verdict::Violation)
        .map(|o| o.model)
        .collect();
    let mut cmds = String::new();
    if let Some(g) = &c.command {
        let _ = writeln!(
            cmds,
            "# the gem5 run (its command line, from {}/simout.txt)\n{g}",
            input
        );
    }
    let _ = writeln!(
        cmds,
        "# the check\n{}",
        crate::commands::check_command(p.input, h.index, &violated)
    );
    if let Some(&m) = violated.first() {
        let _ = writeln!(
            cmds,
            "# the shrink\n{}",
            crate::commands::shrink_command(p.input, h.index, m)
        );
    }
    let _ = write!(
        out,
        "<section><h2>Reproduce</h2><pre class=\"commands\">{}</pre></section>",
        escape(cmds.trim_end())
    );
    out.push_str("</main></body></html>\n");
    out
}

/// The legend of a timeline: operation kinds and the relations drawn.
fn legend(out: &mut String, mut rels: Vec<Rel>) {
    rels.sort_by_key(|r| r.name());
    rels.dedup();
    out.push_str("<div class=\"legend\"><span><i class=\"sw w\"></i>write</span><span><i class=\"sw r\"></i>read</span><span><i class=\"sw c\"></i>an operation of the cycle (a, b, ...)</span><span><i class=\"sw n\"></i>an operation the pattern names</span>");
    for r in rels {
        let _ = write!(
            out,
            "<span><i class=\"ar\" style=\"border-color:{}\"></i><b style=\"color:{}\">{}</b> {}</span>",
            colour(r),
            colour(r),
            r.name(),
            meaning(r)
        );
    }
    out.push_str("</div>");
}

/// A violating history in the index.
struct Entry {
    page: String,
    input: String,
    index: usize,
    name: String,
    ops: usize,
    /// (model, decided by, pattern) per violated model.
    violated: Vec<(Model, Model, &'static str)>,
    /// Whether it breaks its promise, and the promise in words.
    broken: bool,
    status: String,
}

/// Whether a checked history keeps its promise, in a few words:
/// `breaks the promised tso`, `keeps the promised tso (the violations are
/// allowed)`, `the promised tso is undecided`, or `no promise`.
pub fn promise_status(c: &Checked) -> String {
    use memconform_core::check::promise::Status;
    let Some(k) = &c.promise else {
        return "no promise: every violation counts".into();
    };
    let p = k.promise.name();
    match k.status {
        Status::Broken => format!("breaks the promised {p}"),
        Status::Kept => format!("keeps the promised {p}: its violations are allowed"),
        Status::Unknown => match k.reason() {
            Some(why) => format!("the promised {p} is undecided: {why}"),
            None => format!("the promised {p} is undecided"),
        },
        Status::Unneeded if c.undecided() => format!("the promised {p} is undecided"),
        Status::Unneeded => format!("keeps the promised {p}"),
    }
}

/// Verdict counts of one model over the batch.
#[derive(Default)]
struct Counts {
    consistent: usize,
    unknown: usize,
    /// Violations by the model of the gradual chain that caught them.
    by_stage: BTreeMap<Model, usize>,
}

/// `check --html DIR`: writes a page per violating history as the batch
/// goes, then the index.
pub struct HtmlReport {
    dir: PathBuf,
    used: HashSet<String>,
    entries: Vec<Entry>,
    counts: BTreeMap<Model, Counts>,
    histories: usize,
}

impl HtmlReport {
    /// A report into `dir` (created if missing); refused in a protected input directory ([`crate::protect`]).
    pub fn create(dir: &Path) -> io::Result<HtmlReport> {
        crate::refuse_input(dir)?;
        std::fs::create_dir_all(dir)?;
        Ok(HtmlReport {
            dir: dir.to_path_buf(),
            used: HashSet::new(),
            entries: Vec::new(),
            counts: BTreeMap::new(),
            histories: 0,
        })
    }

    /// Counts a checked history (`input`'s) and, if it violates some
    /// model, writes its page; returns a note naming the page, or why it
    /// could not be written.
    pub fn add(
        &mut self,
        input: &Path,
        c: &Checked,
        shrinks: &[Option<Result<Shrunk, String>>],
    ) -> Option<String> {
        self.histories += 1;
        let mut violated = Vec::new();
        for o in &c.outcomes {
            let n = self.counts.entry(o.model).or_default();
            match o.verdict() {
                Verdict::Consistent => n.consistent += 1,
                Verdict::Unknown => n.unknown += 1,
                Verdict::Violation => {
                    *n.by_stage.entry(o.decided_by).or_default() += 1;
                    violated.push((
                        o.model,
                        o.decided_by,
                        o.violation().map_or("", |v| v.pattern.name()),
                    ));
                }
            }
        }
        if violated.is_empty() {
            return None;
        }
        let h = &c.history;
        let text = history_page(&Page {
            input,
            checked: c,
            shrinks,
        });
        let stem = super::shrunk::stem(input, h);
        let mut page = format!("{stem}-{}.html", h.index);
        let mut k = 1;
        while page == "index.html" || !self.used.insert(page.clone()) {
            k += 1;
            page = format!("{stem}-{}-{k}.html", h.index);
        }
        let path = self.dir.join(&page);
        if let Err(e) = write_atomic(&path, text.as_bytes()) {
            return Some(format!("cannot write {}: {e}", path.display()));
        }
        self.entries.push(Entry {
            page,
            input: path_text(input).into_owned(),
            index: h.index,
            name: h.name.clone().unwrap_or_default(),
            ops: h.n_thread_ops(),
            violated,
            broken: c.broken(),
            status: promise_status(c),
        });
        Some(format!("page: {}", path.display()))
    }

    /// Writes `index.html`: counts per model and stage, and a link per
    /// violating history; returns its path.
    pub fn finish(&self) -> io::Result<PathBuf> {
        let mut out = String::with_capacity(16 * 1024);
        head(
            &mut out,
            "memconform: violations",
            &format!(
                "{} histories checked: {} break their promise, {} with a violation only",
                self.histories,
                self.entries.iter().filter(|e| e.broken).count(),
                self.entries.iter().filter(|e| !e.broken).count()
            ),
        );
        let stages: Vec<Model> = {
            let mut s: Vec<Model> = self
                .counts
                .values()
                .flat_map(|n| n.by_stage.keys().copied())
                .collect();
            s.sort();
            s.dedup();
            s
        };
        out.push_str("<section><h2>Verdicts per model</h2><p class=\"note\">Violations are counted by the stage of the gradual check that caught them (the weakest violated model of the model's chain).</p><table><tr><th>model</th><th class=\"num\">consistent</th><th class=\"num\">unknown</th><th class=\"num\">violations</th>");
        for s in &stages {
            let _ = write!(out, "<th class=\"num\">caught by {s}</th>");
        }
        out.push_str("</tr>");
        for (m, n) in &self.counts {
            let total: usize = n.by_stage.values().sum();
            let _ = write!(
                out,
                "<tr><td>{m}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\"><b>{total}</b></td>",
                n.consistent, n.unknown
            );
            for s in &stages {
                let _ = write!(
                    out,
                    "<td class=\"num\">{}</td>",
                    n.by_stage.get(s).copied().unwrap_or(0)
                );
            }
            out.push_str("</tr>");
        }
        out.push_str("</table></section><section><h2>Violating histories</h2><p class=\"note\">Those that break the model their run promises (a bug) first; then those whose violations the promise allows (an O3 core's store buffering breaks SC, not TSO), or that promise nothing.</p>");
        if self.entries.is_empty() {
            out.push_str("<p>None.</p>");
        } else {
            out.push_str("<table><tr><th>history</th><th>name</th><th class=\"num\">operations</th><th>promise</th><th>violated (caught by: pattern)</th></tr>");
            let mut entries: Vec<&Entry> = self.entries.iter().collect();
            entries.sort_by_key(|e| !e.broken);
            for e in entries {
                let violated: Vec<String> = e
                    .violated
                    .iter()
                    .map(|(m, by, p)| {
                        if m == by {
                            format!("{m}: {p}")
                        } else {
                            format!("{m} ({by}: {p})")
                        }
                    })
                    .collect();
                let _ = write!(
                    out,
                    "<tr><td><a href=\"{}\">{}#{}</a></td><td>{}</td><td class=\"num\">{}</td><td>{}{}{}</td><td>{}</td></tr>",
                    escape(&e.page),
                    escape(&e.input),
                    e.index,
                    escape(&e.name),
                    e.ops,
                    if e.broken { "<b>" } else { "" },
                    escape(&e.status),
                    if e.broken { "</b>" } else { "" },
                    escape(&violated.join(", "))
                );
            }
            out.push_str("</table>");
        }
        out.push_str("</section></main></body></html>\n");
        let path = self.dir.join("index.html");
        write_atomic(&path, out.as_bytes())?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
    }
}
