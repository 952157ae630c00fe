//! Mutant patches (docs/design/campaigns.md §5): unified diffs against the gem5
//! root (`--- a/src/mem/ruby/protocol/X.sm`), with three context lines and a
//! preamble that `git apply` and `patch -p1` skip as commentary:
//!
//! ```text
//! memconform-mutant: 2c440e45b307
//! site: MESI_Two_Level-L1cache.sm::transition(SM,Inv,IM)::forward_eviction_to_cpu::TDA
//! base-sha256: 9f1c...
//! --- a/src/mem/ruby/protocol/MESI_Two_Level-L1cache.sm
//! +++ b/src/mem/ruby/protocol/MESI_Two_Level-L1cache.sm
//! @@ -1399,7 +1399,7 @@
//! ```
//!
//! Applying refuses a base file whose SHA-256 differs from the preamble's.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{sha256_hex, Mutant};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// Why a patch was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchError {
    /// The file cannot be read or written.
    Io { path: PathBuf, message: String },
    /// The base file is not the one the mutant was made from.
    BaseMismatch {
        file: String,
        expected: String,
        found: String,
    },
    /// The patch text is not a unified diff this module wrote.
    Malformed(String),
    /// A context or removed line differs from the file.
    Context { file: String, line: usize },
}

impl fmt::Display for PatchError {
    /// What went wrong, naming the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatchError::Io { path, message } => write!(f, "{}: {message}", memconform_report::shown_path(path)),
            PatchError::BaseMismatch {
                file,
                expected,
                found,
            } => write!(
                f,
                "{file}: base file differs from the mutant's (sha256 {found}, expected {expected}); \
                 regenerate the mutants for this tree"
            ),
            PatchError::Malformed(m) => write!(f, "malformed patch: {m}"),
            PatchError::Context { file, line } => {
                write!(f, "{file}:{line}: the patch's context does not match")
            }
        }
    }
}

impl std::error::Error for PatchError {}

/// Prepends the preamble (`memconform-mutant:`, `site:`, `base-sha256:`).
pub fn with_preamble(id: &str, descriptor: &str, base_sha256: &str, diff: &str) -> String {
    format!("memconform-mutant: {id}\nsite: {descriptor}\nbase-sha256: {base_sha256}\n{diff}")
}

/// Writes one diff line: its marker, the line, and git's no-newline note
/// when the line ends the file without a newline.
fn push_line(out: &mut String, marker: char, line: &str) {
    out.push(marker);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

/// A unified diff of `old` → `new` for the file at `rel_path` (relative to
/// the root, `/`-separated), with `a/` and `b/` prefixes; empty if equal.
pub fn unified_diff(rel_path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    // changed regions as (old range, new range)
    let mut regions: Vec<(usize, usize, usize, usize)> = Vec::new();
    if a.len() == b.len() {
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                let start = i;
                while i < a.len() && a[i] != b[i] {
                    i += 1;
                }
                regions.push((start, i, start, i));
            } else {
                i += 1;
            }
        }
    } else {
        let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let suffix = a[prefix..]
            .iter()
            .rev()
            .zip(b[prefix..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        regions.push((prefix, a.len() - suffix, prefix, b.len() - suffix));
    }
    if regions.is_empty() {
        return String::new();
    }
    let mut out = format!("--- a/{rel_path}\n+++ b/{rel_path}\n");
    let mut k = 0;
    while k < regions.len() {
        // merge regions whose contexts touch
        let mut last = k;
        while last + 1 < regions.len() && regions[last + 1].0 <= regions[last].1 + 2 * CONTEXT {
            last += 1;
        }
        let old_start = regions[k].0.saturating_sub(CONTEXT);
        let new_start = regions[k].2.saturating_sub(CONTEXT);
        let old_end = (regions[last].1 + CONTEXT).min(a.len());
        let new_end = (regions[last].3 + CONTEXT).min(b.len());
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            old_start + 1,
            old_end - old_start,
            new_start + 1,
            new_end - new_start
        ));
        let mut i = old_start;
        for r in &regions[k..=last] {
            for line in &a[i..r.0] {
                push_line(&mut out, ' ', line);
            }
            for line in &a[r.0..r.1] {
                push_line(&mut out, '-', line);
            }
            for line in &b[r.2..r.3] {
                push_line(&mut out, '+', line);
            }
            i = r.1;
        }
        for line in &a[i..old_end] {
            push_line(&mut out, ' ', line);
        }
        k = last + 1;
    }
    out
}

/// One hunk: where it starts in the old and the new file (1-based) and
/// its lines.
struct Hunk {
    old_start: usize,
    new_start: usize,
    lines: Vec<(char, String)>,
}

/// The start line after `marker` (`-` or `+`) in a hunk header
/// (`@@ -12,7 +12,7 @@`).
fn hunk_start(header: &str, marker: char) -> Option<usize> {
    let rest = header
        .split_whitespace()
        .find_map(|w| w.strip_prefix(marker))?;
    let num: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    num.parse().ok()
}

/// Reads the hunks of a unified diff (after its `---`/`+++` lines).
fn parse_hunks(diff: &str) -> Result<Vec<Hunk>, PatchError> {
    let mut lines = diff.split_inclusive('\n').peekable();
    // skip the preamble up to `--- `
    loop {
        match lines.next() {
            Some(l) if l.starts_with("--- ") => break,
            Some(_) => {}
            None => return Err(PatchError::Malformed("no `--- a/...` line".into())),
        }
    }
    if !lines.next().is_some_and(|l| l.starts_with("+++ ")) {
        return Err(PatchError::Malformed("no `+++ b/...` line".into()));
    }
    let mut hunks: Vec<Hunk> = Vec::new();
    for line in lines {
        if let Some(rest) = line.strip_prefix("@@ ") {
            let bad = || PatchError::Malformed(format!("bad hunk header `{}`", line.trim_end()));
            let ranges = rest.split("@@").next().unwrap_or("");
            hunks.push(Hunk {
                old_start: hunk_start(ranges, '-').ok_or_else(bad)?,
                new_start: hunk_start(ranges, '+').ok_or_else(bad)?,
                lines: Vec::new(),
            });
            continue;
        }
        let Some(h) = hunks.last_mut() else {
            return Err(PatchError::Malformed("a line before the first hunk".into()));
        };
        if line.starts_with('\\') {
            if let Some((_, prev)) = h.lines.last_mut() {
                if prev.ends_with('\n') {
                    prev.pop();
                }
            }
            continue;
        }
        let mut chars = line.chars();
        let marker = chars.next().unwrap_or(' ');
        if !matches!(marker, ' ' | '-' | '+') {
            return Err(PatchError::Malformed(format!(
                "unexpected diff line `{}`",
                line.trim_end()
            )));
        }
        h.lines.push((marker, chars.as_str().to_string()));
    }
    Ok(hunks)
}

/// Applies a unified diff (exact positions, context checked) to `original`.
pub fn apply_diff(file: &str, original: &str, diff: &str) -> Result<String, PatchError> {
    apply_hunks(file, original, diff, false)
}

/// Applies a unified diff backwards (`git apply -R`, `patch -R`): from the
/// new text `mutated` back to the old one, exact positions, context and
/// added lines checked.
pub fn unapply_diff(file: &str, mutated: &str, diff: &str) -> Result<String, PatchError> {
    apply_hunks(file, mutated, diff, true)
}

/// Applies a unified diff to `text`, forwards or (`reverse`) backwards.
fn apply_hunks(file: &str, text: &str, diff: &str, reverse: bool) -> Result<String, PatchError> {
    let old: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    // the marker of the lines `text` holds and the patch takes away
    let (gone, added) = if reverse { ('+', '-') } else { ('-', '+') };
    for h in parse_hunks(diff)? {
        let first = if reverse { h.new_start } else { h.old_start };
        let start = first.saturating_sub(1);
        if start < at || start > old.len() {
            return Err(PatchError::Context {
                file: file.into(),
                line: first,
            });
        }
        for l in &old[at..start] {
            out.push_str(l);
        }
        at = start;
        for (marker, line) in &h.lines {
            if *marker == added {
                out.push_str(line);
                continue;
            }
            debug_assert!(*marker == ' ' || *marker == gone);
            if old.get(at) != Some(&line.as_str()) {
                return Err(PatchError::Context {
                    file: file.into(),
                    line: at + 1,
                });
            }
            if *marker == ' ' {
                out.push_str(line);
            }
            at += 1;
        }
    }
    for l in &old[at..] {
        out.push_str(l);
    }
    Ok(out)
}

/// The mutated file: `original` (which must be the mutant's base, by
/// SHA-256) with the mutant's patch applied.
pub fn mutated_text(original: &str, m: &Mutant) -> Result<String, PatchError> {
    let found = sha256_hex(original.as_bytes());
    if found != m.base_sha256 {
        return Err(PatchError::BaseMismatch {
            file: m.file.clone(),
            expected: m.base_sha256.clone(),
            found,
        });
    }
    apply_diff(&m.file, original, &m.patch)
}

/// Writes the mutant into the tree at `root` (a private copy of gem5):
/// refuses when `root/<file>` is not the mutant's base file.
pub fn apply(root: &Path, m: &Mutant) -> Result<(), PatchError> {
    let path = root.join(&m.file);
    let io = |e: std::io::Error| PatchError::Io {
        path: path.clone(),
        message: e.to_string(),
    };
    let original = std::fs::read_to_string(&path).map_err(io)?;
    let mutated = mutated_text(&original, m)?;
    std::fs::write(&path, mutated).map_err(io)
}
