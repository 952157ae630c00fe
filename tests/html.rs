//! `check --html DIR` (issue 12, part 2), in a real browser: Debian's
//! `chromium` headless loads each page (no console message, the cycle's
//! elements in the DOM it built), file and history names that are HTML are
//! shown as text, never markup, and a 10⁵-operation history's page stays
//! small. Tests that need chromium say so and pass where it is absent.

mod common;

use common::{memconform, root};
use std::path::{Path, PathBuf};
use std::process::Command;

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
            "--no-first-run",
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
