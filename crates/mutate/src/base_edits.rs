//! Base edits (docs/design/campaigns.md §5, base edits): local changes of a
//! protocol's transitions that a campaign's base needs, written in
//! memconform's own form so that a fresh clone and stock gem5 reproduce the
//! base. A base-edit file holds `;`-terminated entries (`//` comments, as
//! in SLICC):
//!
//! ```text
//! in L1Cache, transition(S, Store): add h_hit after b_getM;
//! in L1Cache, transition({S, M}, {Evict, Inv}): remove i_drop;
//! in CorePair, with i1_invCluster without forward_eviction_to_cpu1:
//!     add forward_eviction_to_cpu1 after i1_invCluster;
//! in CorePair, function functionalRead: body { ... };
//! in CorePair, transition({S, S_C, S_F0, S_F1}, L1I_Repl): add state S_F;
//! ```
//!
//! A `transition(STATES, EVENTS)` entry edits the one header declaring
//! exactly those states and events; a `with A [without B]` entry edits every
//! transition of the machine whose actions include A (and lack B). `add X
//! after Y` (or `before Y`) inserts action X beside Y; `remove X` deletes it.
//! `add state S` (a `transition(...)` entry's) adds S to the header's
//! states, so that S takes the header's events with its actions (and its
//! next state, or stays S where the header names none): a state an event
//! was never declared for, such as a missing replacement. It is an error
//! when S already takes one of the events elsewhere (SLICC would reject
//! the pair twice).
//! A `function NAME` entry gives the one definition of NAME a new body.
//! Edits keep the file's line count (an added action joins Y's line; a
//! body is padded or its last lines joined), so
//! SLICC's line numbers stay those of the original file. An entry that
//! names a machine, action or transition the protocol lacks, or that would
//! change nothing, is an error naming it: nothing is skipped silently.

use std::fmt;
use std::path::Path;

use crate::ops::{self, Edit};
use crate::patch;
use crate::slicc::{self, line_col, IdentList, Protocol, SyntaxError, TokenKind, Transition};

/// Which transitions of a machine an entry edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// The header declaring exactly these states and events.
    Transition {
        states: Vec<String>,
        events: Vec<String>,
    },
    /// Every transition running `with` (and not `without`).
    Rule {
        with: String,
        without: Option<String>,
    },
    /// The one definition of a function (`void NAME(...) { ... }`) in the
    /// machine's files.
    Function { name: String },
}

/// What an entry does to each transition it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Inserts `action` right after (or before) `anchor`.
    Add {
        action: String,
        anchor: String,
        after: bool,
    },
    /// Deletes `action`.
    Remove { action: String },
    /// Replaces a function's body (what its braces hold) with `text`.
    Body { text: String },
    /// Adds `state` to a transition header's states.
    AddState { state: String },
}

/// One entry of a base-edit file, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The machine (`L1Cache`, `CorePair`: `X` of `MachineType:X`).
    pub machine: String,
    pub selector: Selector,
    pub op: Op,
    /// The edit file as messages show it.
    pub file: String,
    pub line: usize,
    pub col: usize,
}

/// A list as an entry writes it: `X` or `{A, B}`.
fn names_words(names: &[String]) -> String {
    if names.len() == 1 {
        names[0].clone()
    } else {
        format!("{{{}}}", names.join(", "))
    }
}

impl fmt::Display for Entry {
    /// The entry in its normal form, `in M, SELECTOR: OP;`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}, ", self.machine)?;
        match &self.selector {
            Selector::Transition { states, events } => write!(
                f,
                "transition({}, {})",
                names_words(states),
                names_words(events)
            )?,
            Selector::Rule { with, without } => {
                write!(f, "with {with}")?;
                if let Some(b) = without {
                    write!(f, " without {b}")?;
                }
            }
            Selector::Function { name } => write!(f, "function {name}")?,
        }
        match &self.op {
            Op::Add {
                action,
                anchor,
                after,
            } => write!(
                f,
                ": add {action} {} {anchor};",
                if *after { "after" } else { "before" }
            ),
            Op::Remove { action } => write!(f, ": remove {action};"),
            Op::AddState { state } => write!(f, ": add state {state};"),
            Op::Body { text } => {
                let words: Vec<&str> = text.split_whitespace().collect();
                match words.as_slice() {
                    [] => write!(f, ": body {{ }};"),
                    w => write!(f, ": body {{ {} }};", w.join(" ")),
                }
            }
        }
    }
}

impl Entry {
    /// An error about this entry, at its place in the edit file.
    fn error(&self, message: impl fmt::Display) -> SyntaxError {
        SyntaxError {
            file: self.file.clone(),
            line: self.line,
            col: self.col,
            message: format!("`{self}`: {message}"),
        }
    }
}

/// A base-edit file: its entries and its text (kept in a campaign).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edits {
    pub text: String,
    pub entries: Vec<Entry>,
}

/// The recursive-descent reader of one base-edit file's tokens.
struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    tokens: Vec<slicc::Token>,
    pos: usize,
}

impl Reader<'_> {
    /// The current token's text (empty at the end).
    fn peek(&self) -> &str {
        self.tokens
            .get(self.pos)
            .map_or("", |t| &self.text[t.start..t.end])
    }

    /// An error at the current token.
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        let at = self
            .tokens
            .get(self.pos)
            .map_or(self.text.len(), |t| t.start);
        let (line, col) = line_col(self.text, at);
        SyntaxError {
            file: self.file.to_string(),
            line,
            col,
            message: message.into(),
        }
    }

    /// What the current token is, for messages.
    fn found(&self) -> String {
        if self.pos >= self.tokens.len() {
            "the end of the file".to_string()
        } else {
            format!("`{}`", self.peek())
        }
    }

    /// Consumes `want`, else an error saying what came instead.
    fn expect(&mut self, want: &str, why: &str) -> Result<(), SyntaxError> {
        if self.pos < self.tokens.len() && self.peek() == want {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(format!("expected `{want}` {why}, found {}", self.found())))
        }
    }

    /// Consumes a name (`what` says which, for messages).
    fn name(&mut self, what: &str) -> Result<String, SyntaxError> {
        match self.tokens.get(self.pos) {
            Some(t) if t.kind == TokenKind::Ident => {
                self.pos += 1;
                Ok(self.text[t.start..t.end].to_string())
            }
            _ => Err(self.error(format!("expected {what}, found {}", self.found()))),
        }
    }

    /// `NAME` or `{NAME, NAME ...}` (separated by `,`, `;` or blanks).
    fn names(&mut self, what: &str) -> Result<Vec<String>, SyntaxError> {
        if self.peek() != "{" {
            return Ok(vec![self.name(what)?]);
        }
        self.pos += 1;
        let mut out = Vec::new();
        while self.peek() != "}" {
            if matches!(self.peek(), "," | ";") && !out.is_empty() {
                self.pos += 1;
                continue;
            }
            out.push(self.name(what)?);
        }
        self.pos += 1;
        if out.is_empty() {
            return Err(self.error(format!("an empty list of {what}s")));
        }
        Ok(out)
    }

    /// `{ ... }`: the text between the braces (nested braces kept). It may
    /// hold no comment: its lines may be joined to keep a file's line count.
    fn braced(&mut self) -> Result<String, SyntaxError> {
        if self.peek() != "{" {
            return Err(self.error(format!(
                "expected `{{` and the body, found {}",
                self.found()
            )));
        }
        let open = self.tokens[self.pos].end;
        let at = self.pos;
        let mut depth = 0usize;
        while self.pos < self.tokens.len() {
            match self.peek() {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        let text = &self.text[open..self.tokens[self.pos].start];
                        self.pos += 1;
                        if text.contains("//") || text.contains("/*") {
                            self.pos = at;
                            return Err(self.error(
                                "a body holds no comments (its lines may be joined to keep the \
                                 file's line count)",
                            ));
                        }
                        return Ok(text.to_string());
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.pos = at;
        Err(self.error("a `{` without its `}`"))
    }

    /// One entry: `in M, SELECTOR: OP;`.
    fn entry(&mut self) -> Result<Entry, SyntaxError> {
        let start = self.tokens[self.pos].start;
        let (line, col) = line_col(self.text, start);
        if self.peek() != "in" {
            return Err(self.error(format!(
                "expected an entry `in MACHINE, ...;`, found {}",
                self.found()
            )));
        }
        self.pos += 1;
        let machine = self.name("a machine name")?;
        self.expect(",", "after the machine")?;
        let selector = match self.peek() {
            "transition" => {
                self.pos += 1;
                self.expect("(", "after `transition`")?;
                let states = self.names("a state")?;
                self.expect(",", "between the states and the events")?;
                let events = self.names("an event")?;
                self.expect(")", "after the events (a base edit names no next state)")?;
                Selector::Transition { states, events }
            }
            "with" => {
                self.pos += 1;
                let with = self.name("an action")?;
                let without = if self.peek() == "without" {
                    self.pos += 1;
                    Some(self.name("an action")?)
                } else {
                    None
                };
                Selector::Rule { with, without }
            }
            "function" => {
                self.pos += 1;
                Selector::Function {
                    name: self.name("a function name")?,
                }
            }
            _ => {
                return Err(self.error(format!(
                    "expected `transition(STATES, EVENTS)`, `with ACTION` or `function NAME`, \
                     found {}",
                    self.found()
                )))
            }
        };
        self.expect(":", "before the edit")?;
        let function = matches!(selector, Selector::Function { .. });
        if function && self.peek() != "body" {
            return Err(self.error(format!(
                "expected `body {{ ... }}` (a function's edit), found {}",
                self.found()
            )));
        }
        let op = match self.peek() {
            "body" if function => {
                self.pos += 1;
                Op::Body {
                    text: self.braced()?,
                }
            }
            "add" if self.tokens.get(self.pos + 1).is_some_and(|t| &self.text[t.start..t.end] == "state") => {
                if !matches!(selector, Selector::Transition { .. }) {
                    return Err(self.error(
                        "`add state` edits one header: its entry is `in M, transition(STATES, EVENTS): add state S;`",
                    ));
                }
                self.pos += 2;
                Op::AddState {
                    state: self.name("the state to add")?,
                }
            }
            "add" => {
                self.pos += 1;
                let action = self.name("the action to add")?;
                let after = match self.peek() {
                    "after" => true,
                    "before" => false,
                    _ => {
                        return Err(self.error(format!(
                            "expected `after` or `before`, found {}",
                            self.found()
                        )))
                    }
                };
                self.pos += 1;
                let anchor = self.name("an action")?;
                Op::Add {
                    action,
                    anchor,
                    after,
                }
            }
            "remove" => {
                self.pos += 1;
                Op::Remove {
                    action: self.name("the action to remove")?,
                }
            }
            _ => {
                return Err(self.error(format!(
                    "expected `add ACTION after ACTION`, `remove ACTION` or `add state STATE`, found {}",
                    self.found()
                )))
            }
        };
        self.expect(";", "at the end of the entry")?;
        Ok(Entry {
            machine,
            selector,
            op,
            file: self.file.to_string(),
            line,
            col,
        })
    }
}

/// Reads a base-edit file's text (`file` names it in errors, as
/// `file:line:col`).
pub fn parse(file: &str, text: &str) -> Result<Edits, SyntaxError> {
    let mut r = Reader {
        file,
        text,
        tokens: slicc::lex(file, text)?,
        pos: 0,
    };
    let mut entries = Vec::new();
    while r.pos < r.tokens.len() {
        entries.push(r.entry()?);
    }
    Ok(Edits {
        text: text.to_string(),
        entries,
    })
}

/// Why base edits could not be read or applied.
#[derive(Debug)]
pub enum Error {
    /// The edit file or a protocol file cannot be read, or does not parse.
    Load(slicc::LoadError),
    /// An entry that is malformed, or names what the protocol lacks
    /// (`file:line:col` of the entry).
    Entry(SyntaxError),
}

impl fmt::Display for Error {
    /// The located message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load(e) => e.fmt(f),
            Error::Entry(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<SyntaxError> for Error {
    /// A located error of an entry.
    fn from(e: SyntaxError) -> Self {
        Error::Entry(e)
    }
}

impl From<slicc::LoadError> for Error {
    /// A protocol that cannot be loaded.
    fn from(e: slicc::LoadError) -> Self {
        Error::Load(e)
    }
}

/// Reads and parses the base-edit file at `path`.
pub fn load(path: &Path) -> Result<Edits, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Load(slicc::LoadError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    })?;
    Ok(parse(&memconform_report::shown_path(path), &text)?)
}

/// What applying base edits did: per entry, the transitions it changed
/// (`file:line transition(...)`), and the unified diff of every changed file
/// against the root (`--- a/src/mem/ruby/protocol/...`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    pub changes: Vec<(String, Vec<String>)>,
    pub diff: String,
}

/// The separator an action list uses between its items (`;`, `,` or a
/// blank), `;` when it shows none.
fn separator(text: &str, list: &IdentList) -> &'static str {
    let inner = &text[list.span.start + 1..list.span.end - 1];
    let mut between = String::new();
    let mut at = list.span.start + 1;
    for item in &list.items {
        between.push_str(&text[at..item.span.start]);
        at = item.span.end;
    }
    between.push_str(&text[at..list.span.end - 1]);
    if between.contains(';') {
        ";"
    } else if between.contains(',') {
        ","
    } else if list.items.len() > 1 && !inner.trim().is_empty() {
        " "
    } else {
        ";"
    }
}

/// The splices making `t`'s actions run `op`; an error (about `entry`)
/// when `t` lacks the anchor or the removed action, or has the added one.
fn transition_edits(
    text: &str,
    t: &Transition,
    op: &Op,
    entry: &Entry,
    rel_path: &str,
) -> Result<Vec<Edit>, SyntaxError> {
    let list = &t.actions;
    let names = list.names();
    let site = || format!("{} ({rel_path}:{})", t.header_words(), t.line);
    match op {
        Op::Add {
            action,
            anchor,
            after,
        } => {
            if names.contains(&action.as_str()) {
                return Err(entry.error(format!("{} runs {action} already", site())));
            }
            let Some(k) = names.iter().position(|n| n == anchor) else {
                return Err(entry.error(format!("{} does not run {anchor}", site())));
            };
            let y = &list.items[k];
            if !list.braced {
                let (a, b) = if *after {
                    (anchor.as_str(), action.as_str())
                } else {
                    (action.as_str(), anchor.as_str())
                };
                return Ok(vec![Edit {
                    start: y.span.start,
                    end: y.span.end,
                    text: format!("{{{a}; {b};}}"),
                }]);
            }
            let sep = separator(text, list);
            if !*after {
                let text = if sep == " " {
                    format!("{action} ")
                } else {
                    format!("{action}{sep} ")
                };
                return Ok(vec![Edit {
                    start: y.span.start,
                    end: y.span.start,
                    text,
                }]);
            }
            let rest = &text[y.span.end..list.span.end];
            let trimmed = rest.trim_start();
            let edit = if trimmed.starts_with(';') || trimmed.starts_with(',') {
                let at = y.span.end + (rest.len() - trimmed.len()) + 1;
                Edit {
                    start: at,
                    end: at,
                    text: format!(" {action}{}", &trimmed[..1]),
                }
            } else {
                let text = match sep {
                    " " => format!(" {action}"),
                    ";" if k + 1 == list.items.len() => format!("; {action};"),
                    s => format!("{s} {action}"),
                };
                Edit {
                    start: y.span.end,
                    end: y.span.end,
                    text,
                }
            };
            Ok(vec![edit])
        }
        Op::Remove { action } => {
            let Some(k) = names.iter().position(|n| n == action) else {
                return Err(entry.error(format!("{} does not run {action}", site())));
            };
            let x = &list.items[k];
            if !list.braced {
                return Ok(vec![Edit {
                    start: x.span.start,
                    end: x.span.end,
                    text: "{}".into(),
                }]);
            }
            let rest = &text[x.span.end..list.span.end];
            let trimmed = rest.trim_start();
            let mut end = if trimmed.starts_with(';') || trimmed.starts_with(',') {
                x.span.end + (rest.len() - trimmed.len()) + 1
            } else {
                x.span.end
            };
            // and the blanks after it on its line
            while text[end..].starts_with([' ', '\t']) && end < list.span.end - 1 {
                end += 1;
            }
            Ok(vec![ops::remove(text, x.span.start, end)])
        }
        Op::AddState { state } => {
            let states = &t.states;
            if states.names().contains(&state.as_str()) {
                return Err(entry.error(format!("{} declares {state} already", site())));
            }
            let last = states
                .items
                .last()
                .map_or(states.span.start, |i| i.span.end);
            Ok(vec![if states.braced {
                Edit {
                    start: last,
                    end: last,
                    text: format!(", {state}"),
                }
            } else {
                Edit {
                    start: states.span.start,
                    end: states.span.end,
                    text: format!("{{{}, {state}}}", &text[states.span.start..states.span.end]),
                }
            }])
        }
        Op::Body { .. } => Err(entry.error("a body is a function's edit, not a transition's")),
    }
}

/// Whether file `f` is `fi` or a file `fi` includes (at any depth).
fn belongs(p: &Protocol, mut f: usize, fi: usize) -> bool {
    loop {
        if f == fi {
            return true;
        }
        match p.files[f].included_from {
            Some((parent, _)) if parent != f => f = parent,
            _ => return false,
        }
    }
}

/// The edit replacing the body of function `name`, defined once in the
/// files of the machine of file `fi`, by `body` (in as many lines as the
/// old body: padded with line ends, or its last lines joined, so SLICC's
/// line numbers stay the original file's): (the file, the edit, the site).
fn body_edit(
    p: &Protocol,
    fi: usize,
    name: &str,
    body: &str,
    entry: &Entry,
) -> Result<(usize, Edit, String), SyntaxError> {
    let mut found = Vec::new();
    for (f, file) in p.files.iter().enumerate() {
        if !belongs(p, f, fi) {
            continue;
        }
        let toks = &file.tokens;
        for i in 0..toks.len().saturating_sub(2) {
            if toks[i].kind != TokenKind::Ident || file.tok(i) != name || file.tok(i + 1) != "(" {
                continue;
            }
            // `NAME(...)` followed by `{`: a definition, not a call
            let j = file.closing(i + 1);
            if j + 1 >= toks.len() || file.tok(j + 1) != "{" {
                continue;
            }
            let open = j + 1;
            let k = file.closing(open);
            if k < toks.len() {
                found.push((f, toks[open].end, toks[k].start, toks[i].line));
            }
        }
    }
    let (f, start, end, line) = match found.as_slice() {
        [one] => *one,
        [] => return Err(entry.error(format!("{} defines no function {name}", entry.machine))),
        more => {
            return Err(entry.error(format!(
                "{} defines {name} {} times",
                entry.machine,
                more.len()
            )))
        }
    };
    let file = &p.files[f];
    let old_lines = file.text[start..end].matches('\n').count();
    // as many lines as the old body: the last ones joined, or blank lines
    // put before the last (the closing brace's indentation; after a body
    // of one line)
    let mut lines: Vec<String> = body.split('\n').map(str::to_string).collect();
    while lines.len() > old_lines + 1 {
        let last = lines.pop().unwrap_or_default();
        if let Some(prev) = lines.last_mut() {
            prev.truncate(prev.trim_end().len());
            prev.push(' ');
            prev.push_str(last.trim_start());
        }
    }
    while lines.len() < old_lines + 1 {
        let at = if lines.len() == 1 { 1 } else { lines.len() - 1 };
        lines.insert(at, String::new());
    }
    let text = lines.join("\n");
    Ok((
        f,
        Edit { start, end, text },
        format!("{}:{line} function {name}", file.rel_path),
    ))
}

/// Applies `edits` to the loaded protocol, entry after entry (each sees the
/// ones before it), re-reading every changed file; returns what changed.
pub fn apply(p: &mut Protocol, edits: &Edits) -> Result<Applied, Error> {
    let mut originals: Vec<Option<String>> = vec![None; p.files.len()];
    let mut changes = Vec::new();
    for entry in &edits.entries {
        let Some((fi, mi)) = p.files.iter().enumerate().find_map(|(fi, f)| {
            f.machines
                .iter()
                .position(|m| m.ident == entry.machine)
                .map(|mi| (fi, mi))
        }) else {
            let known: Vec<&str> = p
                .files
                .iter()
                .flat_map(|f| f.machines.iter().map(|m| m.ident.as_str()))
                .collect();
            return Err(entry
                .error(format!(
                    "no machine {} in {} (its machines: {})",
                    entry.machine,
                    p.name,
                    known.join(", ")
                ))
                .into());
        };
        if let (Selector::Function { name }, Op::Body { text }) = (&entry.selector, &entry.op) {
            let (f, edit, site) = body_edit(p, fi, name, text, entry)?;
            let old = &p.files[f].text;
            let new_text = ops::apply_edits(old, std::slice::from_ref(&edit));
            if new_text.matches('\n').count() != old.matches('\n').count() {
                return Err(Error::Entry(
                    entry.error("changes the file's line count (a bug of memconform)"),
                ));
            }
            if originals[f].is_none() {
                originals[f] = Some(old.clone());
            }
            p.reparse(vec![(f, new_text)])
                .map_err(|e| entry.error(format!("the edited file does not parse: {e}")))?;
            changes.push((entry.to_string(), vec![site]));
            continue;
        }
        let file = &p.files[fi];
        let machine = &file.machines[mi];
        // every action the entry names is one the machine declares
        let mut named: Vec<&str> = Vec::new();
        if let Selector::Rule { with, without } = &entry.selector {
            named.push(with);
            named.extend(without.as_deref());
        }
        match &entry.op {
            Op::Add { action, anchor, .. } => named.extend([action.as_str(), anchor.as_str()]),
            Op::Remove { action } => named.push(action),
            Op::Body { .. } | Op::AddState { .. } => {}
        }
        if let Some(a) = named.iter().find(|a| machine.action(a).is_none()) {
            return Err(entry
                .error(format!("{} declares no action {a}", entry.machine))
                .into());
        }
        let selected: Vec<&Transition> = match &entry.selector {
            Selector::Function { .. } => {
                return Err(entry.error("a function's edit is `body { ... }`").into())
            }
            Selector::Rule { with, without } => machine
                .transitions
                .iter()
                .filter(|t| {
                    let names = t.actions.names();
                    names.contains(&with.as_str())
                        && without
                            .as_ref()
                            .is_none_or(|b| !names.contains(&b.as_str()))
                })
                .collect(),
            Selector::Transition { states, events } => {
                for (what, names, declared) in [
                    ("state", states, &machine.states),
                    ("event", events, &machine.events),
                ] {
                    if let Some(n) = names
                        .iter()
                        .find(|n| !declared.iter().any(|d| &&d.name == n))
                    {
                        return Err(entry
                            .error(format!("{} declares no {what} {n}", entry.machine))
                            .into());
                    }
                }
                let covers = |t: &&Transition| {
                    let (ts, te) = (t.states.names(), t.events.names());
                    states.iter().all(|s| ts.contains(&s.as_str()))
                        && events.iter().all(|e| te.contains(&e.as_str()))
                };
                let found: Vec<&Transition> = machine.transitions.iter().filter(covers).collect();
                if let [t] = found.as_slice() {
                    if t.states.items.len() != states.len() || t.events.items.len() != events.len()
                    {
                        return Err(entry
                            .error(format!(
                                "{} ({}:{}) declares other pairs too, which the edit would \
                                 change as well: name its states and events in full",
                                t.header_words(),
                                p.files[t.file].rel_path,
                                t.line
                            ))
                            .into());
                    }
                }
                found
            }
        };
        if selected.is_empty() {
            return Err(entry
                .error(format!(
                    "no transition of {} ({}) matches",
                    entry.machine, file.rel_path
                ))
                .into());
        }
        if selected.len() > 1 && matches!(entry.selector, Selector::Transition { .. }) {
            return Err(entry
                .error("more than one transition header declares these pairs")
                .into());
        }
        if let Op::AddState { state } = &entry.op {
            if !machine.states.iter().any(|d| &d.name == state) {
                return Err(entry
                    .error(format!("{} declares no state {state}", entry.machine))
                    .into());
            }
            // the new pairs are declared nowhere else
            let t = selected[0];
            for e in t.events.names() {
                if let Some(o) = machine.transitions.iter().find(|o| {
                    !std::ptr::eq(*o, t)
                        && o.states.names().contains(&state.as_str())
                        && o.events.names().contains(&e)
                }) {
                    return Err(entry
                        .error(format!(
                            "{} ({}:{}) declares ({state}, {e}) already",
                            o.header_words(),
                            p.files[o.file].rel_path,
                            o.line
                        ))
                        .into());
                }
            }
        }
        // each transition is edited in its own file (a machine's
        // transitions may sit in files it includes)
        let mut by_file: Vec<(usize, Vec<Edit>)> = Vec::new();
        let mut sites = Vec::new();
        for t in &selected {
            let tf = &p.files[t.file];
            let edits = transition_edits(&tf.text, t, &entry.op, entry, &tf.rel_path)?;
            match by_file.iter_mut().find(|(f, _)| *f == t.file) {
                Some((_, all)) => all.extend(edits),
                None => by_file.push((t.file, edits)),
            }
            sites.push(format!("{}:{} {}", tf.rel_path, t.line, t.header_words()));
        }
        let mut edited = Vec::new();
        for (f, all) in &by_file {
            let old = &p.files[*f].text;
            let new_text = ops::apply_edits(old, all);
            if new_text.matches('\n').count() != old.matches('\n').count() {
                return Err(Error::Entry(
                    entry.error("changes the file's line count (a bug of memconform)"),
                ));
            }
            edited.push((*f, new_text));
        }
        for (f, _) in &edited {
            if originals[*f].is_none() {
                originals[*f] = Some(p.files[*f].text.clone());
            }
        }
        p.reparse(edited)
            .map_err(|e| entry.error(format!("the edited file does not parse: {e}")))?;
        changes.push((entry.to_string(), sites));
    }
    let mut diff = String::new();
    for (fi, old) in originals.iter().enumerate() {
        if let Some(old) = old {
            let f = &p.files[fi];
            diff.push_str(&patch::unified_diff(&f.rel_path, old, &f.text));
        }
    }
    Ok(Applied { changes, diff })
}

/// Loads `protocol` (gem5 root or protocol directory) with `edits` applied
/// in memory (nothing is written); what they changed, when given.
pub fn load_protocol(
    path: &Path,
    protocol: &str,
    edits: Option<&Edits>,
) -> Result<(Protocol, Option<Applied>), Error> {
    let mut p = slicc::load_protocol(path, protocol)?;
    let applied = match edits {
        Some(e) => Some(apply(&mut p, e)?),
        None => None,
    };
    Ok((p, applied))
}

/// Writes the edited files of `applied` into the tree at `p.root`
/// (`revert`: the diff taken back, from the edited files to the originals).
pub fn write(
    root: &Path,
    applied: &Applied,
    revert: bool,
) -> Result<Vec<String>, patch::PatchError> {
    let mut written = Vec::new();
    for one in split_diff(&applied.diff) {
        let rel = one
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("--- a/"))
            .unwrap_or_default()
            .to_string();
        let path = root.join(&rel);
        let io = |e: std::io::Error| patch::PatchError::Io {
            path: path.clone(),
            message: e.to_string(),
        };
        let text = std::fs::read_to_string(&path).map_err(io)?;
        let new = if revert {
            patch::unapply_diff(&rel, &text, &one)?
        } else {
            patch::apply_diff(&rel, &text, &one)?
        };
        std::fs::write(&path, new).map_err(io)?;
        written.push(rel);
    }
    Ok(written)
}

/// A diff of several files as one diff per file.
fn split_diff(diff: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in diff.split_inclusive('\n') {
        if line.starts_with("--- a/") || out.is_empty() {
            out.push(String::new());
        }
        out.last_mut().expect("pushed").push_str(line);
    }
    out
}

/// Where `apply-edits` records, at the root of the tree it wrote, the diff
/// it made (what `--revert` takes back).
pub const TREE_RECORD: &str = ".memconform-base-edits.diff";

/// Applies `edits` to the files of the user's tree at `path` (gem5 root or
/// protocol directory) and records their diff at the root ([`TREE_RECORD`]);
/// refused while a record of earlier edits is there.
pub fn apply_in_tree(path: &Path, protocol: &str, edits: &Edits) -> Result<Applied, Error> {
    let (root, _) = slicc::protocol_root(path, protocol)?;
    let record = root.join(TREE_RECORD);
    if record.exists() {
        return Err(Error::Load(slicc::LoadError::Io {
            path: record,
            message: "base edits are applied here already (`--revert` takes them back)".into(),
        }));
    }
    let (_, applied) = load_protocol(path, protocol, Some(edits))?;
    let applied = applied.expect("edits given");
    write(&root, &applied, false).map_err(|e| io_error(&root, e))?;
    std::fs::write(&record, &applied.diff).map_err(|e| {
        Error::Load(slicc::LoadError::Io {
            path: record.clone(),
            message: e.to_string(),
        })
    })?;
    Ok(applied)
}

/// Takes back the base edits recorded at the root of the tree at `path`
/// (context checked, so a file edited since is refused); returns the files
/// restored.
pub fn revert_in_tree(path: &Path, protocol: &str) -> Result<Vec<String>, Error> {
    let (root, _) = slicc::protocol_root(path, protocol)?;
    let record = root.join(TREE_RECORD);
    let diff = std::fs::read_to_string(&record).map_err(|e| {
        Error::Load(slicc::LoadError::Io {
            path: record.clone(),
            message: format!("{e}: no base edits applied by `apply-edits` here"),
        })
    })?;
    let applied = Applied {
        changes: Vec::new(),
        diff,
    };
    let files = write(&root, &applied, true).map_err(|e| io_error(&root, e))?;
    std::fs::remove_file(&record).map_err(|e| {
        Error::Load(slicc::LoadError::Io {
            path: record.clone(),
            message: e.to_string(),
        })
    })?;
    Ok(files)
}

/// A patch error as a load error of the tree at `root`.
fn io_error(root: &Path, e: patch::PatchError) -> Error {
    Error::Load(slicc::LoadError::Io {
        path: root.to_path_buf(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The invented protocol Toyco (tests/data/slicc/toyco).
    fn toyco_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/slicc/toyco")
    }

    fn toyco() -> Protocol {
        slicc::load_protocol(&toyco_dir(), "Toyco").unwrap()
    }

    /// Toyco's L1Cache rows (state, event, next state, actions).
    fn l1_rows(p: &Protocol) -> Vec<(String, String, String, Vec<String>)> {
        p.files[0]
            .machines
            .iter()
            .find(|m| m.ident == "L1Cache")
            .unwrap()
            .expanded()
    }

    /// The actions of the L1Cache row (state, event) after the edits.
    fn actions_of(p: &Protocol, state: &str, event: &str) -> Vec<String> {
        l1_rows(p)
            .into_iter()
            .find(|(s, e, _, _)| s == state && e == event)
            .map(|(_, _, _, a)| a)
            .unwrap()
    }

    /// Applies `text` to Toyco; the protocol or the error's text.
    fn run(text: &str) -> Result<(Protocol, Applied), String> {
        let edits = parse("edits", text).map_err(|e| e.to_string())?;
        let mut p = toyco();
        let applied = apply(&mut p, &edits).map_err(|e| e.to_string())?;
        Ok((p, applied))
    }

    /// A rule edits every transition running one action and not another,
    /// in place (the line count kept), and only those.
    #[test]
    fn a_rule_edits_every_matching_transition() {
        let (p, applied) = run("// every hit drops the line after it\n\
             in L1Cache, with h_hit without i_drop:\n    add i_drop after h_hit;\n")
        .unwrap();
        for (s, e) in [
            ("IS", "Data"),
            ("IM", "Data"),
            ("S", "Load"),
            ("M", "Load"),
            ("M", "Store"),
        ] {
            assert_eq!(actions_of(&p, s, e), ["h_hit", "i_drop"], "({s}, {e})");
        }
        assert_eq!(actions_of(&p, "I", "Load"), ["a_getS"]);
        assert_eq!(actions_of(&p, "S", "Evict"), ["i_drop"]);
        assert_eq!(applied.changes.len(), 1);
        assert_eq!(applied.changes[0].1.len(), 4, "{:?}", applied.changes);
        assert!(applied
            .diff
            .contains("+  transition(IS, Data, S) { h_hit; i_drop; }\n"));
        assert!(applied
            .diff
            .contains("+  transition({S, M}, Load) { h_hit; i_drop; }\n"));
        assert_eq!(applied.diff.matches("\n+  transition").count(), 4);
        let old = toyco();
        assert_eq!(
            old.files[0].text.lines().count(),
            p.files[0].text.lines().count()
        );
        // the same rule again finds nothing left to do: an error, not a skip
        let again = parse(
            "edits",
            "in L1Cache, with h_hit without i_drop: add i_drop after h_hit;",
        )
        .unwrap();
        let mut p2 = p.clone();
        let e = apply(&mut p2, &again).unwrap_err().to_string();
        assert!(e.contains("no transition of L1Cache"), "{e}");
    }

    /// One transition: an action added before another; an action removed
    /// from a header named with all its states and events; a bare-list
    /// header of the directory gains braces.
    #[test]
    fn single_transition_edits_and_removals() {
        let (p, applied) = run(
            "in L1Cache, transition(S, Store): add h_hit before b_getM;\n\
             in L1Cache, transition({S, M}, {Evict, Inv}): remove i_drop;\n\
             in L1Cache, transition(I, Load): add h_hit after a_getS;\n",
        )
        .unwrap();
        assert_eq!(actions_of(&p, "S", "Store"), ["h_hit", "b_getM"]);
        assert_eq!(actions_of(&p, "M", "Store"), ["h_hit"]);
        assert!(actions_of(&p, "M", "Inv").is_empty());
        assert_eq!(actions_of(&p, "I", "Load"), ["a_getS", "h_hit"]);
        assert!(applied
            .diff
            .contains("+  transition(S, Store, IM) { h_hit; b_getM; }\n"));
        assert!(applied
            .diff
            .contains("+  transition({S, M}, {Evict, Inv}, I) { }\n"));
        assert!(applied.diff.starts_with("--- a/Toyco-cache.sm\n"));
        assert_eq!(applied.changes.len(), 3);
        // the directory's lists are braced too; a bare list would be braced
        let mut t = toyco();
        let e = parse(
            "e",
            "in Directory, transition(I, Get): add s_send after s_send;",
        )
        .unwrap();
        let err = apply(&mut t, &e).unwrap_err().to_string();
        assert!(err.contains("runs s_send already"), "{err}");
    }

    /// Comma-separated and bare lists keep their style.
    #[test]
    fn lists_keep_their_separators() {
        let text = "machine(MachineType:X, \"x\") {\n\
            state_declaration(State) { A, desc=\"a\"; }\n\
            enumeration(Event) { E, desc=\"e\"; }\n\
            action(p, \"p\") { }\n action(q, \"q\") { }\n action(r, \"r\") { }\n\
            transition(A, E) {p, q}\n}\n";
        let file = slicc::parse_sm("x.sm", "x.sm", text.to_string()).unwrap();
        let mut p = Protocol {
            name: "X".into(),
            root: PathBuf::new(),
            manifest: String::new(),
            files: vec![file],
        };
        let e = parse(
            "e",
            "in X, transition(A, E): add r after q; in X, transition(A, E): remove p;",
        )
        .unwrap();
        let applied = apply(&mut p, &e).unwrap();
        assert!(
            p.files[0].text.contains("transition(A, E) {q, r}"),
            "{}",
            applied.diff
        );
        let text = text.replace("{p, q}", "p");
        let file = slicc::parse_sm("x.sm", "x.sm", text).unwrap();
        p.files = vec![file];
        let e = parse("e", "in X, transition(A, E): add q after p;").unwrap();
        apply(&mut p, &e).unwrap();
        assert!(p.files[0].text.contains("transition(A, E) {p; q;}"));
    }

    /// `add state`: a bare state list gains braces, a braced one a name;
    /// the new state takes the header's events with its actions (staying
    /// itself: the header names no next state), in place; a pair declared
    /// elsewhere, a state declared already or not at all, and a rule's
    /// entry are errors naming the entry.
    #[test]
    fn add_state_gives_a_state_a_header_s_events() {
        let before = l1_rows(&toyco());
        assert!(!before.iter().any(|(s, e, _, _)| s == "IS" && e == "Inv"));
        let (p, applied) = run("in L1Cache, transition(I, Inv): add state IS;
             in L1Cache, transition({I, IS}, Inv): add state IM;
")
        .unwrap();
        assert!(
            applied
                .diff
                .contains("+  transition({I, IS, IM}, Inv) { }\n"),
            "{}",
            applied.diff
        );
        assert_eq!(
            applied.changes[0].0,
            "in L1Cache, transition(I, Inv): add state IS;"
        );
        let after = l1_rows(&p);
        assert_eq!(after.len(), before.len() + 2);
        for s in ["IS", "IM"] {
            let row = after
                .iter()
                .find(|(a, e, _, _)| a == s && e == "Inv")
                .unwrap();
            assert_eq!(row.2, s, "{s} stays {s}");
            assert!(row.3.is_empty());
        }
        assert_eq!(
            toyco().files[0].text.lines().count(),
            p.files[0].text.lines().count()
        );
        // with a next state the added state goes there, with the actions
        let (p, _) = run(
            "in L1Cache, transition({S, M}, {Evict, Inv}): remove i_drop;
             in L1Cache, transition(IS, Data): add state I;
",
        )
        .unwrap();
        let rows = l1_rows(&p);
        let row = rows
            .iter()
            .find(|(a, e, _, _)| a == "I" && e == "Data")
            .unwrap();
        assert_eq!(
            (row.2.as_str(), row.3.clone()),
            ("S", vec!["h_hit".to_string()])
        );
        for (text, want) in [
            (
                "in L1Cache, transition({S, M}, Load): add state IS;",
                "edits:1:1: `in L1Cache, transition({S, M}, Load): add state IS;`: \
                 transition({IS, IM}, {Load, Store, Evict}) (Toyco-cache.sm:56) declares (IS, Load) already",
            ),
            (
                "in L1Cache, transition(I, Inv): add state S;",
                "declares (S, Inv) already",
            ),
            ("in L1Cache, transition({S, M}, Load): add state M;", "declares M already"),
            ("in L1Cache, transition(I, Inv): add state X;", "L1Cache declares no state X"),
            (
                "in L1Cache, with h_hit: add state IS;",
                "edits:1:25: `add state` edits one header",
            ),
        ] {
            let e = run(text).err().unwrap_or_else(|| panic!("{text}: no error"));
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    /// Every error names the entry at its file:line:col.
    #[test]
    fn errors_name_the_entry_and_its_place() {
        let cases = [
            ("in L1Cache transition(S, Store): remove b_getM;", "edits:1:12: expected `,` after the machine"),
            ("\n  in L1Cache, transition(S, Store): remove b_getM", "edits:2:50: expected `;` at the end"),
            ("in L1Cache, transition(S, Store, IM): remove b_getM;", "edits:1:32: expected `)`"),
            ("in L1Cache, when h_hit: remove h_hit;", "edits:1:13: expected `transition(STATES, EVENTS)`"),
            ("in L1Cache, with h_hit: add i_drop beside h_hit;", "edits:1:36: expected `after` or `before`"),
            ("in L1Cache, with h_hit: move h_hit;", "edits:1:25: expected `add ACTION"),
            ("# a comment\n", "edits:1:1: unexpected character `#`"),
            ("in L2Cache, with h_hit: remove h_hit;", "edits:1:1: `in L2Cache, with h_hit: remove h_hit;`: no machine L2Cache in Toyco (its machines: L1Cache, Directory)"),
            ("x;\n  in L1Cache, with h_hit: remove h_hitt;", "edits:1:1: expected an entry"),
            ("\n  in L1Cache, with h_hit: remove h_hitt;", "edits:2:3: `in L1Cache, with h_hit: remove h_hitt;`: L1Cache declares no action h_hitt"),
            ("in L1Cache, transition(S, Stor): remove b_getM;", "L1Cache declares no event Stor"),
            ("in L1Cache, transition(SS, Store): remove b_getM;", "L1Cache declares no state SS"),
            ("in L1Cache, transition(I, Data): remove h_hit;", "`in L1Cache, transition(I, Data): remove h_hit;`: no transition of L1Cache (Toyco-cache.sm) matches"),
            ("in L1Cache, transition(S, Evict): remove i_drop;", "transition({S, M}, {Evict, Inv}, I) (Toyco-cache.sm:64) declares other pairs too"),
            ("in L1Cache, transition(I, Load): add h_hit after b_getM;", "transition(I, Load, IS) (Toyco-cache.sm:51) does not run b_getM"),
            ("in L1Cache, transition(I, Load): remove h_hit;", "transition(I, Load, IS) (Toyco-cache.sm:51) does not run h_hit"),
            ("in L1Cache, with a_getS without a_getS: remove a_getS;", "no transition of L1Cache"),
            ("in L1Cache, with h_hit: add a_getS after i_drop;", "transition(IS, Data, S) (Toyco-cache.sm:57) does not run i_drop"),
        ];
        for (text, want) in cases {
            let Err(e) = run(text) else {
                panic!("`{text}` applied");
            };
            assert!(e.contains(want), "`{text}`: {e}\n  wanted: {want}");
        }
    }

    /// Written into a copy of the tree and taken back, byte for byte.
    #[test]
    fn write_and_revert_in_a_tree() {
        let tmp = tempfile::tempdir().unwrap();
        for f in ["Toyco.slicc", "Toyco-cache.sm", "Toyco-dir.sm"] {
            std::fs::copy(toyco_dir().join(f), tmp.path().join(f)).unwrap();
        }
        let edits = parse(
            "e",
            "in L1Cache, with h_hit without i_drop: add i_drop after h_hit;\n\
                                in Directory, transition(M, Get): remove s_send;",
        )
        .unwrap();
        let (p, applied) = load_protocol(tmp.path(), "Toyco", Some(&edits)).unwrap();
        let applied = applied.unwrap();
        let before = std::fs::read_to_string(tmp.path().join("Toyco-cache.sm")).unwrap();
        let written = write(tmp.path(), &applied, false).unwrap();
        assert_eq!(written, ["Toyco-cache.sm", "Toyco-dir.sm"]);
        let after = std::fs::read_to_string(tmp.path().join("Toyco-cache.sm")).unwrap();
        assert_eq!(after, p.files[0].text);
        assert_ne!(after, before);
        write(tmp.path(), &applied, true).unwrap();
        let back = std::fs::read_to_string(tmp.path().join("Toyco-cache.sm")).unwrap();
        assert_eq!(back, before);
        // as `apply-edits` does it: recorded, refused twice, reverted
        apply_in_tree(tmp.path(), "Toyco", &edits).unwrap();
        assert!(tmp.path().join(TREE_RECORD).exists());
        let after_tree = std::fs::read_to_string(tmp.path().join("Toyco-cache.sm")).unwrap();
        assert_eq!(after_tree, after);
        let twice = apply_in_tree(tmp.path(), "Toyco", &edits)
            .unwrap_err()
            .to_string();
        assert!(twice.contains("applied here already"), "{twice}");
        let restored = revert_in_tree(tmp.path(), "Toyco").unwrap();
        assert_eq!(restored, ["Toyco-cache.sm", "Toyco-dir.sm"]);
        assert!(!tmp.path().join(TREE_RECORD).exists());
        let back = std::fs::read_to_string(tmp.path().join("Toyco-cache.sm")).unwrap();
        assert_eq!(back, before);
        let none = revert_in_tree(tmp.path(), "Toyco").unwrap_err().to_string();
        assert!(none.contains("no base edits applied"), "{none}");
    }
}
