//! A structural reader for SLICC, gem5's protocol language: a lexer that
//! keeps byte offsets and lines, and a parser for what mutation needs —
//! `machine` headers, `state_declaration` and `enumeration` (states, events,
//! request types), `in_port`/`out_port`, `action`s with their statements,
//! and all four `transition` forms — following `src/mem/slicc/parser.py`.
//! Everything else (structures, functions, object declarations) is skipped
//! as a balanced unit. Edits splice the original text, so nothing here
//! rebuilds source: every node keeps its byte range.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A syntax error at `file:line:col` (1-based; the column counts characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    /// `file:line:col: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for SyntaxError {}

/// What a protocol could not be read for: a file, or its syntax.
#[derive(Debug)]
pub enum LoadError {
    /// A file that cannot be read (or a protocol whose `.slicc` is missing).
    Io { path: PathBuf, message: String },
    /// A file that does not parse.
    Syntax(SyntaxError),
}

impl fmt::Display for LoadError {
    /// The path and the reason, or the located syntax error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io { path, message } => {
                write!(f, "{}: {message}", memconform_report::shown_path(path))
            }
            LoadError::Syntax(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<SyntaxError> for LoadError {
    /// A syntax error as a load error.
    fn from(e: SyntaxError) -> Self {
        LoadError::Syntax(e)
    }
}

/// A token's class, as SLICC's lexer (`parser.py`, `t_*`) sorts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Identifiers and reserved words (`transition`, `true`, ...).
    Ident,
    /// Decimal integers.
    Number,
    /// `[0-9]+.[0-9]+`.
    Float,
    /// `"..."` or `'...'` on one line, no escapes (SLICC's `t_STRING1/2`).
    Str,
    /// Operators and literals: `:= :: == != <= >= << >> && || ++ --` and
    /// single characters.
    Punct,
}

/// One token: its class, byte range and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
    pub line: usize,
}

/// A byte range of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// The line (1-based) and column (1-based, in characters) of byte `offset`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Builds a syntax error at byte `offset` of `text`.
fn error_at(file: &str, text: &str, offset: usize, message: impl Into<String>) -> SyntaxError {
    let (line, col) = line_col(text, offset);
    SyntaxError {
        file: file.to_string(),
        line,
        col,
        message: message.into(),
    }
}

const TWO_CHAR_PUNCT: [&str; 12] = [
    ":=", "::", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "++", "--",
];
const ONE_CHAR_PUNCT: &str = ":[]{}(),=;<>!+-*/%&.";

/// SLICC's lexer: skips blanks, `//` and `/* */` comments; keeps every
/// token's byte range and line.
pub fn lex(file: &str, text: &str) -> Result<Vec<Token>, SyntaxError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if bytes[i..].starts_with(b"/*") {
            let Some(close) = text[i + 2..].find("*/") else {
                return Err(error_at(file, text, i, "unterminated comment"));
            };
            let end = i + 2 + close + 2;
            line += text[i..end].matches('\n').count();
            i = end;
        } else if c == b'"' || c == b'\'' {
            let rest = &bytes[i + 1..];
            let Some(close) = rest.iter().position(|&b| b == c || b == b'\n') else {
                return Err(error_at(file, text, i, "unterminated string"));
            };
            if rest[close] == b'\n' {
                return Err(error_at(file, text, i, "unterminated string"));
            }
            tokens.push(Token {
                kind: TokenKind::Str,
                start: i,
                end: i + 1 + close + 1,
                line,
            });
            i += close + 2;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            tokens.push(Token {
                kind: TokenKind::Ident,
                start,
                end: i,
                line,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let mut kind = TokenKind::Number;
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                kind = TokenKind::Float;
            }
            tokens.push(Token {
                kind,
                start,
                end: i,
                line,
            });
        } else {
            let len = if TWO_CHAR_PUNCT
                .iter()
                .any(|p| bytes[i..].starts_with(p.as_bytes()))
            {
                2
            } else if ONE_CHAR_PUNCT.as_bytes().contains(&c) {
                1
            } else {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(error_at(
                    file,
                    text,
                    i,
                    format!("unexpected character `{ch}`"),
                ));
            };
            tokens.push(Token {
                kind: TokenKind::Punct,
                start: i,
                end: i + len,
                line,
            });
            i += len;
        }
    }
    Ok(tokens)
}

/// A name as written, with its range and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
    pub line: usize,
}

/// SLICC's `idents`: a bare identifier or a braced list whose items are
/// separated by `,`, `;` or only blanks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentList {
    pub items: Vec<Ident>,
    pub braced: bool,
    pub span: Span,
}

impl IdentList {
    /// The names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.items.iter().map(|i| i.name.as_str()).collect()
    }

    /// The normalised form: `X` for one bare name, `{A,B}` for a braced list.
    pub fn normalized(&self) -> String {
        if self.braced {
            format!("{{{}}}", self.names().join(","))
        } else {
            self.names().join(",")
        }
    }

    /// The form in words: `X`, or `{A, B}`.
    pub fn words(&self) -> String {
        if self.braced {
            format!("{{{}}}", self.names().join(", "))
        } else {
            self.names().join(", ")
        }
    }
}

/// `transition(states, events[, next]) [request_types] actions`: the four
/// forms of `p_decl__trans0..3`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub states: IdentList,
    pub events: IdentList,
    /// `None` when omitted (each state stays); `*` is kept as a name.
    pub next_state: Option<Ident>,
    /// The resource group form's first list (`{L1TagArrayRead} {...}`).
    pub request_types: Option<IdentList>,
    pub actions: IdentList,
    /// From `transition` to the end of the action list.
    pub span: Span,
    /// The byte just after the events list (where a next state is inserted).
    pub events_end: usize,
    /// The `)` closing the header.
    pub close_paren: usize,
    pub line: usize,
    /// The file it is written in: an index into [`Protocol::files`] (a
    /// machine's included files hold its transitions; 0 for a file parsed
    /// on its own by [`parse_sm`]).
    pub file: usize,
}

impl Transition {
    /// The header without blanks: `transition(M,{Replacement,Inv},MI)`.
    pub fn normalized_header(&self) -> String {
        match &self.next_state {
            Some(n) => format!(
                "transition({},{},{})",
                self.states.normalized(),
                self.events.normalized(),
                n.name
            ),
            None => format!(
                "transition({},{})",
                self.states.normalized(),
                self.events.normalized()
            ),
        }
    }

    /// The header in words: `transition(M, {Replacement, Inv}, MI)`.
    pub fn header_words(&self) -> String {
        match &self.next_state {
            Some(n) => format!(
                "transition({}, {}, {})",
                self.states.words(),
                self.events.words(),
                n.name
            ),
            None => format!(
                "transition({}, {})",
                self.states.words(),
                self.events.words()
            ),
        }
    }
}

/// `{ statements }`: its braces and statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The byte offset of `{`.
    pub open: usize,
    /// The byte offset of `}`.
    pub close: usize,
    pub statements: Vec<Statement>,
}

/// One branch of an `if`/`else if`/`else` chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    /// The condition's range inside the parentheses (`None` for `else`).
    pub cond: Option<Span>,
    /// The condition's tokens (indices into the file's tokens).
    pub cond_tokens: std::ops::Range<usize>,
    /// From `if` (or `else`) to the `{` of the body, exclusive.
    pub head: Span,
    pub body: Block,
}

/// What a statement is, as `p_statement__*` sorts them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementKind {
    /// `if (c) {..} else if (c) {..} else {..}`: the whole chain.
    If(Vec<Branch>),
    /// `peek(port, Type[, pairs]) {..}`.
    Peek { port: String, body: Block },
    /// `enqueue(port, Type[, latency[, bypass]]) {..}`.
    Enqueue {
        port: String,
        msg_type: String,
        port_span: Span,
        body: Block,
    },
    /// `defer_enqueueing(port, Type) {..}`.
    DeferEnqueueing { port: String, body: Block },
    /// `lhs := rhs;`.
    Assign { lhs: Span, rhs: Span },
    /// `Type name [:= expr];`: a local declaration.
    LocalDecl { name: String, init: Option<Span> },
    /// `expr;` (calls, mostly).
    Expr,
    /// `stall_and_wait(port, addr);`.
    StallAndWait,
    /// `wakeup_port(port, addr);`.
    WakeupPort,
    /// `check_allocate(var);`.
    CheckAllocate,
    /// `check_next_cycle();`.
    CheckNextCycle,
    /// `check_stop_slots(var, "..", "..");`.
    CheckStopSlots,
    /// `check_on_cache_probe(port, addr);`.
    CheckOnCacheProbe,
    /// `return expr;`.
    Return,
}

/// A statement with its byte range, first line and tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub kind: StatementKind,
    /// From the first token to the `;` or the last `}`, inclusive.
    pub span: Span,
    pub line: usize,
    /// Token indices of the whole statement.
    pub tokens: std::ops::Range<usize>,
    /// Token indices of the head: the statement up to its first block's `{`
    /// (the whole statement when it has no block).
    pub head_tokens: std::ops::Range<usize>,
}

impl Statement {
    /// The kind's short name used in descriptors (`assign`, `enqueue`, ...).
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            StatementKind::If(_) => "if",
            StatementKind::Peek { .. } => "peek",
            StatementKind::Enqueue { .. } => "enqueue",
            StatementKind::DeferEnqueueing { .. } => "defer_enqueueing",
            StatementKind::Assign { .. } => "assign",
            StatementKind::LocalDecl { .. } => "decl",
            StatementKind::Expr => "call",
            StatementKind::StallAndWait => "stall_and_wait",
            StatementKind::WakeupPort => "wakeup_port",
            StatementKind::CheckAllocate => "check_allocate",
            StatementKind::CheckNextCycle => "check_next_cycle",
            StatementKind::CheckStopSlots => "check_stop_slots",
            StatementKind::CheckOnCacheProbe => "check_on_cache_probe",
            StatementKind::Return => "return",
        }
    }

    /// The blocks directly inside this statement (branch bodies, a peek's or
    /// an enqueue's body).
    pub fn blocks(&self) -> Vec<&Block> {
        match &self.kind {
            StatementKind::If(branches) => branches.iter().map(|b| &b.body).collect(),
            StatementKind::Peek { body, .. }
            | StatementKind::Enqueue { body, .. }
            | StatementKind::DeferEnqueueing { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }
}

/// `action(name, "short", desc="...") { statements }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub name: Ident,
    pub body: Block,
    pub span: Span,
    pub line: usize,
    /// The file it is written in (see [`Transition::file`]).
    pub file: usize,
}

/// `in_port(name, Type, buffer, ...) {..}` or `out_port(name, Type, buffer, ...);`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: Ident,
    pub msg_type: String,
    pub buffer: String,
    pub line: usize,
    /// The file it is written in (see [`Transition::file`]).
    pub file: usize,
}

/// `enumeration(Name, ...) { A, desc=".."; ... }` (or `state_declaration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumeration {
    pub name: String,
    pub values: Vec<Ident>,
    pub line: usize,
}

/// `machine(MachineType:X, "...") : parameters { declarations }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// `X` of `MachineType:X` (`L1Cache`, `Directory`, `DMA`, ...).
    pub ident: String,
    pub line: usize,
    /// The `state_declaration`'s states, in order.
    pub states: Vec<Ident>,
    /// The `Event` enumeration's values, in order.
    pub events: Vec<Ident>,
    /// The `RequestType` enumeration's values (resource groups), in order.
    pub request_types: Vec<Ident>,
    /// Every enumeration declared inside the machine (Event and RequestType
    /// included).
    pub enumerations: Vec<Enumeration>,
    pub in_ports: Vec<Port>,
    pub out_ports: Vec<Port>,
    pub actions: Vec<Action>,
    pub transitions: Vec<Transition>,
    /// `include "..."` lines inside the machine (CHI style), in order; at
    /// any depth of included files when [`load_protocol`] followed them.
    pub includes: Vec<Include>,
    /// The body's tokens in the machine's own file, braces excluded (its
    /// included files belong to it whole).
    pub body: std::ops::Range<usize>,
}

/// `include "FILE";` inside a machine body (or inside a file a machine
/// includes): FILE's declarations belong to the machine
/// (docs/design/campaigns.md §3, machine-level includes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// FILE as written, relative to the including file's directory.
    pub name: String,
    /// The file the `include` is written in (an index into
    /// [`Protocol::files`]) and its line.
    pub from: usize,
    pub line: usize,
    /// The included file's index into [`Protocol::files`]; `None` when not
    /// followed ([`parse_sm`] reads one file).
    pub file: Option<usize>,
}

impl Machine {
    /// The action called `name`.
    pub fn action(&self, name: &str) -> Option<&Action> {
        self.actions.iter().find(|a| a.name.name == name)
    }

    /// SLICC's expansion (`TransitionDeclAST.generate`): one
    /// (state, event, next state, actions) row per state × event of every
    /// header, in declaration order; an omitted next state is the state.
    pub fn expanded(&self) -> Vec<(String, String, String, Vec<String>)> {
        let mut rows = Vec::new();
        for t in &self.transitions {
            let actions: Vec<String> = t.actions.items.iter().map(|a| a.name.clone()).collect();
            for s in &t.states.items {
                let next = t.next_state.as_ref().unwrap_or(s);
                for e in &t.events.items {
                    rows.push((
                        s.name.clone(),
                        e.name.clone(),
                        next.name.clone(),
                        actions.clone(),
                    ));
                }
            }
        }
        rows
    }
}

/// One `.sm` file: its text, tokens and machines.
#[derive(Debug, Clone)]
pub struct SliccFile {
    /// The file name as SLICC descriptors use it (`MI_example-cache.sm`).
    pub name: String,
    /// The path relative to the root patches are written against.
    pub rel_path: String,
    pub text: String,
    pub tokens: Vec<Token>,
    pub machines: Vec<Machine>,
    /// Enumerations declared outside any machine (message types, ...).
    pub enumerations: Vec<Enumeration>,
    /// For a file a machine includes: the including file (an index into
    /// [`Protocol::files`]) and the `include`'s line. Its declarations
    /// belong to that machine; its own `machines` and `enumerations` are
    /// empty.
    pub included_from: Option<(usize, usize)>,
}

impl SliccFile {
    /// The text of token `i`.
    pub fn tok(&self, i: usize) -> &str {
        let t = &self.tokens[i];
        &self.text[t.start..t.end]
    }

    /// The index of the token closing the group (`(`, `[` or `{`) opened
    /// at token `open`; the token count when it is never closed.
    pub fn closing(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for i in open..self.tokens.len() {
            match self.tok(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i;
                    }
                }
                _ => {}
            }
        }
        self.tokens.len()
    }

    /// The tokens of `range` without blanks or comments: `out_msg.Type:=X:Y;`.
    pub fn compact(&self, range: std::ops::Range<usize>) -> String {
        range.map(|i| self.tok(i)).collect()
    }
}

/// A `.slicc` file: its `protocol` name and `include`s, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliccManifest {
    pub protocol: Option<String>,
    /// Included file names with the line of their `include`.
    pub includes: Vec<(String, usize)>,
}

/// Reads a `.slicc` file: `protocol "NAME";` and `include "FILE";` lines.
pub fn parse_manifest(file: &str, text: &str) -> Result<SliccManifest, SyntaxError> {
    let tokens = lex(file, text)?;
    let tok = |i: usize| &text[tokens[i].start..tokens[i].end];
    let mut manifest = SliccManifest {
        protocol: None,
        includes: Vec::new(),
    };
    let mut i = 0;
    while i < tokens.len() {
        let keyword = tok(i);
        if (keyword == "protocol" || keyword == "include")
            && i + 2 < tokens.len()
            && tokens[i + 1].kind == TokenKind::Str
            && tok(i + 2) == ";"
        {
            let value = tok(i + 1);
            let value = value[1..value.len() - 1].to_string();
            if keyword == "protocol" {
                manifest.protocol = Some(value);
            } else {
                manifest.includes.push((value, tokens[i].line));
            }
            i += 3;
        } else {
            return Err(error_at(
                file,
                text,
                tokens[i].start,
                "expected `protocol \"NAME\";` or `include \"FILE\";`",
            ));
        }
    }
    Ok(manifest)
}

/// The recursive-descent parser over one file's tokens.
struct Parser<'a> {
    /// The file as errors name it.
    file: &'a str,
    text: &'a str,
    tokens: &'a [Token],
    pos: usize,
    /// This file's index into the protocol's files (what actions,
    /// transitions and ports record).
    index: usize,
    /// Follows machine-level includes; `None`: they are recorded only.
    loader: Option<&'a mut Loader>,
}

impl<'a> Parser<'a> {
    /// The text of token `i` (empty past the end).
    fn text_of(&self, i: usize) -> &'a str {
        self.tokens
            .get(i)
            .map_or("", |t| &self.text[t.start..t.end])
    }

    /// The current token's text.
    fn peek(&self) -> &'a str {
        self.text_of(self.pos)
    }

    /// A syntax error at the current token (or the end of the file).
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        let offset = self
            .tokens
            .get(self.pos)
            .map_or(self.text.len(), |t| t.start);
        error_at(self.file, self.text, offset, message)
    }

    /// Consumes `want` or fails saying what was found.
    fn expect(&mut self, want: &str) -> Result<Token, SyntaxError> {
        if self.pos < self.tokens.len() && self.peek() == want {
            self.pos += 1;
            Ok(self.tokens[self.pos - 1])
        } else if self.pos >= self.tokens.len() {
            Err(self.error(format!("expected `{want}`, found the end of the file")))
        } else {
            Err(self.error(format!("expected `{want}`, found `{}`", self.peek())))
        }
    }

    /// Consumes an identifier (`ident`).
    fn ident(&mut self) -> Result<Ident, SyntaxError> {
        match self.tokens.get(self.pos) {
            Some(t) if t.kind == TokenKind::Ident => {
                self.pos += 1;
                Ok(Ident {
                    name: self.text[t.start..t.end].to_string(),
                    span: Span {
                        start: t.start,
                        end: t.end,
                    },
                    line: t.line,
                })
            }
            Some(_) => Err(self.error(format!("expected a name, found `{}`", self.peek()))),
            None => Err(self.error("expected a name, found the end of the file")),
        }
    }

    /// Skips a balanced group starting at the current `(`, `[` or `{`;
    /// returns the index of its closing token.
    fn skip_balanced(&mut self) -> Result<usize, SyntaxError> {
        let start = self.pos;
        let mut stack: Vec<&str> = Vec::new();
        while self.pos < self.tokens.len() {
            let t = self.peek();
            match t {
                "(" | "[" | "{" => stack.push(t),
                ")" | "]" | "}" => {
                    let open = stack.pop();
                    let matches = matches!(
                        (open, t),
                        (Some("("), ")") | (Some("["), "]") | (Some("{"), "}")
                    );
                    if !matches {
                        return Err(self.error(format!("unbalanced `{t}`")));
                    }
                    if stack.is_empty() {
                        self.pos += 1;
                        return Ok(self.pos - 1);
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.pos = start;
        Err(self.error(format!("`{}` is never closed", self.peek())))
    }

    /// `idents`: a bare name or `{ ident [,|;] ... }`.
    fn idents(&mut self) -> Result<IdentList, SyntaxError> {
        if self.peek() == "{" {
            let open = self.expect("{")?;
            let mut items = Vec::new();
            loop {
                match self.peek() {
                    "}" => break,
                    "," | ";" if !items.is_empty() => self.pos += 1,
                    _ => items.push(self.ident()?),
                }
            }
            let close = self.expect("}")?;
            Ok(IdentList {
                items,
                braced: true,
                span: Span {
                    start: open.start,
                    end: close.end,
                },
            })
        } else {
            let id = self.ident()?;
            Ok(IdentList {
                span: id.span,
                items: vec![id],
                braced: false,
            })
        }
    }

    /// Skips one declaration this reader does not model: up to a `;` outside
    /// parentheses, or through a `{..}` block opened outside parentheses.
    fn skip_decl(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        while self.pos < self.tokens.len() {
            match self.peek() {
                ";" => {
                    self.pos += 1;
                    return Ok(());
                }
                "(" | "[" => {
                    self.skip_balanced()?;
                }
                "{" => {
                    self.skip_balanced()?;
                    return Ok(());
                }
                "}" | ")" | "]" => {
                    return Err(self.error(format!("unexpected `{}`", self.peek())));
                }
                _ => self.pos += 1,
            }
        }
        self.pos = start;
        Err(self.error("declaration never ends (no `;` or `{...}`)"))
    }

    /// `decls` at file level: machines are parsed, the rest skipped
    /// (enumerations are kept).
    fn file_decls(
        &mut self,
        machines: &mut Vec<Machine>,
        enums: &mut Vec<Enumeration>,
    ) -> Result<(), SyntaxError> {
        while self.pos < self.tokens.len() {
            match self.peek() {
                "machine" => machines.push(self.machine()?),
                "enumeration" | "state_declaration" => enums.push(self.enumeration()?),
                "transition" | "action" | "in_port" | "out_port" => {
                    return Err(self.error(format!("`{}` outside a machine", self.peek())))
                }
                _ => self.skip_decl()?,
            }
        }
        Ok(())
    }

    /// `machine(MachineType:X[, pairs]) : obj_decls { decls }`.
    fn machine(&mut self) -> Result<Machine, SyntaxError> {
        let kw = self.expect("machine")?;
        self.expect("(")?;
        let mut ident = self.ident()?;
        if self.peek() == ":" {
            self.pos += 1;
            ident = self.ident()?;
        }
        // the rest of the header: `, "description", pairs`
        while self.peek() != ")" {
            if self.pos >= self.tokens.len() {
                return Err(self.error("machine header never ends"));
            }
            if matches!(self.peek(), "(" | "[" | "{") {
                self.skip_balanced()?;
            } else {
                self.pos += 1;
            }
        }
        self.expect(")")?;
        // the parameters: object declarations up to the body's `{`
        while self.peek() != "{" {
            if self.pos >= self.tokens.len() {
                return Err(self.error("machine has no body `{`"));
            }
            if matches!(self.peek(), "(" | "[") {
                self.skip_balanced()?;
            } else {
                self.pos += 1;
            }
        }
        self.expect("{")?;
        let mut m = Machine {
            ident: ident.name,
            line: kw.line,
            states: Vec::new(),
            events: Vec::new(),
            request_types: Vec::new(),
            enumerations: Vec::new(),
            in_ports: Vec::new(),
            out_ports: Vec::new(),
            actions: Vec::new(),
            transitions: Vec::new(),
            includes: Vec::new(),
            body: self.pos..self.pos,
        };
        self.machine_decls(&mut m, false)?;
        m.body.end = self.pos;
        self.expect("}")?;
        Ok(m)
    }

    /// The declarations of a machine body, into `m`: up to its closing `}`
    /// (left unconsumed), or, in a file the machine includes (`included`),
    /// up to the end of the file.
    fn machine_decls(&mut self, m: &mut Machine, included: bool) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                "}" if !included => return Ok(()),
                "}" => return Err(self.error("unexpected `}` in a file a machine includes")),
                "" if included => return Ok(()),
                "" => return Err(self.error("machine body never closed")),
                "state_declaration" => {
                    let e = self.enumeration()?;
                    m.states.extend(e.values.iter().cloned());
                    m.enumerations.push(e);
                }
                "enumeration" => {
                    let e = self.enumeration()?;
                    match e.name.as_str() {
                        "Event" => m.events.extend(e.values.iter().cloned()),
                        "RequestType" => m.request_types.extend(e.values.iter().cloned()),
                        _ => {}
                    }
                    m.enumerations.push(e);
                }
                "in_port" | "out_port" => {
                    let inbound = self.peek() == "in_port";
                    let port = self.port()?;
                    if inbound {
                        m.in_ports.push(port);
                    } else {
                        m.out_ports.push(port);
                    }
                }
                "action" => m.actions.push(self.action()?),
                "transition" => m.transitions.push(self.transition()?),
                "include" => self.include(m)?,
                "machine" => return Err(self.error("a machine inside a machine")),
                _ => self.skip_decl()?,
            }
        }
    }

    /// `include "FILE";` in a machine body: recorded in `m`, and FILE's
    /// declarations read into `m` when a loader follows includes.
    fn include(&mut self, m: &mut Machine) -> Result<(), SyntaxError> {
        let kw = self.tokens[self.pos];
        self.pos += 1;
        let name = match self.tokens.get(self.pos).copied() {
            Some(t) if t.kind == TokenKind::Str => {
                self.pos += 1;
                self.text[t.start + 1..t.end - 1].to_string()
            }
            _ => return Err(self.error("expected a file name after `include`")),
        };
        self.expect(";")?;
        let (file, text, from) = (self.file, self.text, self.index);
        let k = m.includes.len();
        m.includes.push(Include {
            name: name.clone(),
            from,
            line: kw.line,
            file: None,
        });
        if let Some(loader) = self.loader.as_deref_mut() {
            let index = loader.include(from, &name, (file, text, kw), m)?;
            m.includes[k].file = Some(index);
        }
        Ok(())
    }

    /// `enumeration(Name, pairs) { A pairs; ... }` or
    /// `state_declaration(Name, pairs) { A, Perm:X, pairs; ... }`.
    fn enumeration(&mut self) -> Result<Enumeration, SyntaxError> {
        let kw = self.tokens[self.pos];
        self.pos += 1;
        self.expect("(")?;
        let name = self.ident()?.name;
        while self.peek() != ")" {
            if self.pos >= self.tokens.len() {
                return Err(self.error("enumeration header never ends"));
            }
            if matches!(self.peek(), "(" | "[" | "{") {
                self.skip_balanced()?;
            } else {
                self.pos += 1;
            }
        }
        self.expect(")")?;
        self.expect("{")?;
        let mut values = Vec::new();
        while self.peek() != "}" {
            values.push(self.ident()?);
            // the rest of the entry: `, Perm:X, pairs` up to `;`
            while self.peek() != ";" {
                if self.pos >= self.tokens.len() || self.peek() == "}" {
                    return Err(self.error("expected `;` after an enumeration entry"));
                }
                self.pos += 1;
            }
            self.expect(";")?;
        }
        self.expect("}")?;
        Ok(Enumeration {
            name,
            values,
            line: kw.line,
        })
    }

    /// `in_port(name, Type, var, pairs) statements` or
    /// `out_port(name, Type, var, pairs);`.
    fn port(&mut self) -> Result<Port, SyntaxError> {
        let kw = self.tokens[self.pos];
        let inbound = self.peek() == "in_port";
        self.pos += 1;
        self.expect("(")?;
        let name = self.ident()?;
        self.expect(",")?;
        let mut msg_type = self.ident()?.name;
        while self.peek() == "::" {
            self.pos += 1;
            msg_type = format!("{msg_type}::{}", self.ident()?.name);
        }
        self.expect(",")?;
        let buffer = self.ident()?.name;
        while self.peek() != ")" {
            if self.pos >= self.tokens.len() {
                return Err(self.error("port header never ends"));
            }
            if matches!(self.peek(), "(" | "[" | "{") {
                self.skip_balanced()?;
            } else {
                self.pos += 1;
            }
        }
        self.expect(")")?;
        if inbound {
            if self.peek() != "{" {
                return Err(self.error("expected the in_port's body `{`"));
            }
            self.skip_balanced()?;
        } else {
            self.expect(";")?;
        }
        Ok(Port {
            name,
            msg_type,
            buffer,
            line: kw.line,
            file: self.index,
        })
    }

    /// `action(name, pairs) statements`.
    fn action(&mut self) -> Result<Action, SyntaxError> {
        let kw = self.expect("action")?;
        self.expect("(")?;
        let name = self.ident()?;
        while self.peek() != ")" {
            if self.pos >= self.tokens.len() {
                return Err(self.error("action header never ends"));
            }
            if matches!(self.peek(), "(" | "[" | "{") {
                self.skip_balanced()?;
            } else {
                self.pos += 1;
            }
        }
        self.expect(")")?;
        let body = self.block()?;
        Ok(Action {
            name,
            span: Span {
                start: kw.start,
                end: body.close + 1,
            },
            body,
            line: kw.line,
            file: self.index,
        })
    }

    /// The four `transition` forms: `(states, events[, next]) [types] actions`.
    fn transition(&mut self) -> Result<Transition, SyntaxError> {
        let kw = self.expect("transition")?;
        self.expect("(")?;
        let states = self.idents()?;
        self.expect(",")?;
        let events = self.idents()?;
        let events_end = self.tokens[self.pos - 1].end;
        let next_state = if self.peek() == "," {
            self.pos += 1;
            if self.peek() == "*" {
                let t = self.tokens[self.pos];
                self.pos += 1;
                Some(Ident {
                    name: "*".into(),
                    span: Span {
                        start: t.start,
                        end: t.end,
                    },
                    line: t.line,
                })
            } else {
                Some(self.ident()?)
            }
        } else {
            None
        };
        let close = self.expect(")")?;
        let first = self.idents()?;
        let (request_types, actions) = if self.peek() == "{" {
            (Some(first), self.idents()?)
        } else {
            (None, first)
        };
        Ok(Transition {
            states,
            events,
            next_state,
            request_types,
            span: Span {
                start: kw.start,
                end: actions.span.end,
            },
            actions,
            events_end,
            close_paren: close.start,
            line: kw.line,
            file: self.index,
        })
    }

    /// `statements`: `{ statement* }`.
    fn block(&mut self) -> Result<Block, SyntaxError> {
        let open = self.expect("{")?;
        let mut statements = Vec::new();
        while self.peek() != "}" {
            if self.pos >= self.tokens.len() {
                return Err(error_at(
                    self.file,
                    self.text,
                    open.start,
                    "`{` is never closed",
                ));
            }
            statements.push(self.statement()?);
        }
        let close = self.expect("}")?;
        Ok(Block {
            open: open.start,
            close: close.start,
            statements,
        })
    }

    /// One statement: an `if` chain, a `peek`/`enqueue`/`defer_enqueueing`
    /// block, or a `;`-terminated statement.
    fn statement(&mut self) -> Result<Statement, SyntaxError> {
        let first = self.pos;
        let start_tok = self.tokens[first];
        match self.peek() {
            "if" => {
                let mut branches = Vec::new();
                let mut head_end = None;
                loop {
                    let head_start = self.tokens[self.pos].start;
                    let (cond, cond_tokens) = if self.peek() == "if" {
                        self.pos += 1;
                        if self.peek() != "(" {
                            return Err(self.error("expected `(` after `if`"));
                        }
                        let open = self.pos;
                        let close = self.skip_balanced()?;
                        if close == open + 1 {
                            return Err(self.error("an `if` without a condition"));
                        }
                        let cond = Span {
                            start: self.tokens[open + 1].start,
                            end: self.tokens[close - 1].end,
                        };
                        (Some(cond), open + 1..close)
                    } else {
                        (None, self.pos..self.pos)
                    };
                    if self.peek() != "{" {
                        return Err(self.error(format!(
                            "expected `{{` after the condition, found `{}`",
                            self.peek()
                        )));
                    }
                    head_end.get_or_insert(self.pos);
                    let head = Span {
                        start: head_start,
                        end: self.tokens[self.pos].start,
                    };
                    let body = self.block()?;
                    branches.push(Branch {
                        cond,
                        cond_tokens,
                        head,
                        body,
                    });
                    if cond.is_none() || self.peek() != "else" {
                        break;
                    }
                    self.pos += 1; // else
                    if self.peek() != "if" && self.peek() != "{" {
                        return Err(self.error("expected `if` or `{` after `else`"));
                    }
                }
                Ok(self.finish(first, head_end, StatementKind::If(branches)))
            }
            kw @ ("peek" | "enqueue" | "defer_enqueueing") => {
                self.pos += 1;
                if self.peek() != "(" {
                    return Err(self.error(format!("expected `(` after `{kw}`")));
                }
                let open = self.pos;
                let close = self.skip_balanced()?;
                let port_tok = self.tokens[open + 1];
                let port = self.text_of(open + 1).to_string();
                // the message type: the tokens after the first top-level comma
                let mut msg_type = String::new();
                let mut i = open + 2;
                if self.text_of(i) == "," {
                    i += 1;
                    while i < close && self.text_of(i) != "," && self.text_of(i) != ")" {
                        msg_type.push_str(self.text_of(i));
                        i += 1;
                    }
                }
                if self.peek() != "{" {
                    return Err(self.error(format!("expected the body `{{` of `{kw}`")));
                }
                let head_end = Some(self.pos);
                let body = self.block()?;
                let kind = match kw {
                    "peek" => StatementKind::Peek { port, body },
                    "enqueue" => StatementKind::Enqueue {
                        port,
                        msg_type,
                        port_span: Span {
                            start: port_tok.start,
                            end: port_tok.end,
                        },
                        body,
                    },
                    _ => StatementKind::DeferEnqueueing { port, body },
                };
                Ok(self.finish(first, head_end, kind))
            }
            _ => {
                // a `;` statement
                let mut assign_at = None;
                while self.peek() != ";" {
                    match self.peek() {
                        "" => return Err(self.error("expected `;`, found the end of the file")),
                        "(" | "[" => {
                            self.skip_balanced()?;
                        }
                        "{" | "}" => {
                            return Err(self.error(format!(
                                "expected `;` before `{}` (statement from line {})",
                                self.peek(),
                                start_tok.line
                            )))
                        }
                        ":=" => {
                            assign_at.get_or_insert(self.pos);
                            self.pos += 1;
                        }
                        _ => self.pos += 1,
                    }
                }
                let semi = self.pos;
                self.pos += 1;
                let kind = self.classify(first, semi, assign_at);
                Ok(self.finish(first, None, kind))
            }
        }
    }

    /// Sorts a `;` statement spanning tokens `first..semi` into its kind.
    fn classify(&self, first: usize, semi: usize, assign_at: Option<usize>) -> StatementKind {
        let kw = self.text_of(first);
        match kw {
            "stall_and_wait" => return StatementKind::StallAndWait,
            "wakeup_port" => return StatementKind::WakeupPort,
            "check_allocate" => return StatementKind::CheckAllocate,
            "check_next_cycle" => return StatementKind::CheckNextCycle,
            "check_stop_slots" => return StatementKind::CheckStopSlots,
            "check_on_cache_probe" => return StatementKind::CheckOnCacheProbe,
            "return" => return StatementKind::Return,
            _ => {}
        }
        let lhs_end = assign_at.unwrap_or(semi);
        // `Type[::Sub] name` (or `Type * name`): a local declaration
        let is_ident = |i: usize| self.tokens[i].kind == TokenKind::Ident;
        let mut i = first;
        let mut decl = false;
        if i < lhs_end && is_ident(i) {
            i += 1;
            while i + 1 < lhs_end && self.text_of(i) == "::" && is_ident(i + 1) {
                i += 2;
            }
            if i < lhs_end && self.text_of(i) == "*" {
                i += 1;
            }
            decl = i + 1 == lhs_end && is_ident(i);
        }
        let span_of = |a: usize, b: usize| Span {
            start: self.tokens[a].start,
            end: self.tokens[b - 1].end,
        };
        if decl {
            return StatementKind::LocalDecl {
                name: self.text_of(lhs_end - 1).to_string(),
                init: assign_at.map(|a| span_of(a + 1, semi)),
            };
        }
        match assign_at {
            Some(a) if a > first && a + 1 < semi => StatementKind::Assign {
                lhs: span_of(first, a),
                rhs: span_of(a + 1, semi),
            },
            _ => StatementKind::Expr,
        }
    }

    /// Builds the statement from `first` to the last consumed token.
    fn finish(&self, first: usize, head_end: Option<usize>, kind: StatementKind) -> Statement {
        let last = self.pos - 1;
        Statement {
            kind,
            span: Span {
                start: self.tokens[first].start,
                end: self.tokens[last].end,
            },
            line: self.tokens[first].line,
            tokens: first..self.pos,
            head_tokens: first..head_end.unwrap_or(self.pos),
        }
    }
}

/// Parses one `.sm` file on its own: its machines (states, events, ports,
/// actions with statements, transitions) and top-level enumerations; a
/// machine's `include`s are recorded, not followed (see [`load_protocol`]).
pub fn parse_sm(name: &str, rel_path: &str, text: String) -> Result<SliccFile, SyntaxError> {
    let tokens = lex(rel_path, &text)?;
    let mut machines = Vec::new();
    let mut enumerations = Vec::new();
    {
        let mut p = Parser {
            file: rel_path,
            text: &text,
            tokens: &tokens,
            pos: 0,
            index: 0,
            loader: None,
        };
        p.file_decls(&mut machines, &mut enumerations)?;
    }
    Ok(SliccFile {
        name: name.to_string(),
        rel_path: rel_path.to_string(),
        text,
        tokens,
        machines,
        enumerations,
        included_from: None,
    })
}

/// `dir/name` as a relative path with `/` separators, `.` and `..` resolved.
fn join_rel(dir: &str, name: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
    for c in name.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

/// Reads a protocol's `.sm` files in SLICC's order, following the includes
/// of machine bodies (docs/design/campaigns.md §3, machine-level includes):
/// each file read once, as its own [`SliccFile`], its declarations put in
/// the machine that includes it.
struct Loader {
    root: PathBuf,
    /// The `.slicc`'s directory relative to `root`: an included file's name
    /// (in descriptors) is its path relative to it.
    base: String,
    /// The texts by relative path when reading again from memory
    /// ([`Protocol::reparse`]); `None`: from the disk.
    memory: Option<HashMap<String, String>>,
    /// The files in reading order; a slot is filled once its file is parsed.
    files: Vec<Option<SliccFile>>,
    /// Each slot's path relative to `root`.
    rels: Vec<String>,
    /// Each slot's `include` (file index and line), `None` for the `.slicc`'s.
    from: Vec<Option<(usize, usize)>>,
    /// The slots being parsed, outermost first: an include of one is a cycle.
    stack: Vec<usize>,
}

impl Loader {
    /// A loader of files under `root` whose `.slicc` is in directory `base`
    /// (from `memory` when given).
    fn new(root: PathBuf, base: String, memory: Option<HashMap<String, String>>) -> Self {
        Loader {
            root,
            base,
            memory,
            files: Vec::new(),
            rels: Vec::new(),
            from: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// A file as messages name it.
    fn shown(&self, rel: &str) -> String {
        memconform_report::shown_path(&self.root.join(rel)).into_owned()
    }

    /// The text of `rel`, or why it cannot be read.
    fn read(&self, rel: &str) -> Result<String, String> {
        match &self.memory {
            Some(texts) => texts
                .get(rel)
                .cloned()
                .ok_or_else(|| "not one of the protocol's files".to_string()),
            None => std::fs::read_to_string(self.root.join(rel)).map_err(|e| e.to_string()),
        }
    }

    /// Whether `rel` can be read.
    fn exists(&self, rel: &str) -> bool {
        match &self.memory {
            Some(texts) => texts.contains_key(rel),
            None => self.root.join(rel).is_file(),
        }
    }

    /// Where SLICC finds `include "name";` written in a file of directory
    /// `dir` (gem5's slicc parser, `p_decl__include`): beside that file, else
    /// under the protocols' base directory (`src/mem/ruby/protocol` of a
    /// gem5 root; the root itself for a protocol directory given directly).
    /// When neither exists, the first, for the error to name.
    fn resolve(&self, dir: &str, name: &str) -> String {
        let beside = join_rel(dir, name);
        if self.exists(&beside) {
            return beside;
        }
        let gem5 = "src/mem/ruby/protocol";
        let protocols = if self.base == gem5 || self.base.starts_with("src/mem/ruby/protocol/") {
            gem5
        } else {
            ""
        };
        let fallback = join_rel(protocols, name);
        if fallback != beside && self.exists(&fallback) {
            fallback
        } else {
            beside
        }
    }

    /// A new slot for `rel`, included from `from`.
    fn slot(&mut self, rel: String, from: Option<(usize, usize)>) -> usize {
        self.files.push(None);
        self.rels.push(rel);
        self.from.push(from);
        self.files.len() - 1
    }

    /// Reads a file the `.slicc` includes (`name` as written there, `rel`
    /// relative to the root): its machines, with their includes followed.
    fn top(&mut self, name: &str, rel: String) -> Result<(), LoadError> {
        let text = self.read(&rel).map_err(|message| LoadError::Io {
            path: self.root.join(&rel),
            message,
        })?;
        let shown = self.shown(&rel);
        let slot = self.slot(rel.clone(), None);
        self.stack.push(slot);
        let tokens = lex(&shown, &text)?;
        let mut machines = Vec::new();
        let mut enumerations = Vec::new();
        {
            let mut p = Parser {
                file: &shown,
                text: &text,
                tokens: &tokens,
                pos: 0,
                index: slot,
                loader: Some(self),
            };
            p.file_decls(&mut machines, &mut enumerations)?;
        }
        self.stack.pop();
        self.files[slot] = Some(SliccFile {
            name: name.to_string(),
            rel_path: rel,
            text,
            tokens,
            machines,
            enumerations,
            included_from: None,
        });
        Ok(())
    }

    /// Follows `include "name";` written in file `from` (shown as `at.0`,
    /// its text `at.1`, the keyword `at.2`) inside machine `m`: reads the
    /// file where SLICC finds it ([`Loader::resolve`]) and its
    /// declarations into `m`; returns its index. The file's name is its
    /// path relative to the `.slicc`'s directory. A file that cannot be
    /// read, one already read, and a cycle are errors at the `include`.
    fn include(
        &mut self,
        from: usize,
        name: &str,
        at: (&str, &str, Token),
        m: &mut Machine,
    ) -> Result<usize, SyntaxError> {
        let (shown_from, text_from, kw) = at;
        let here = |message: String| error_at(shown_from, text_from, kw.start, message);
        let shown_name = memconform_report::shown_path(Path::new(name)).into_owned();
        let dir = self.rels[from]
            .rsplit_once('/')
            .map_or("", |(dir, _)| dir)
            .to_string();
        let rel = self.resolve(&dir, name);
        if let Some(k) = self.rels.iter().position(|r| *r == rel) {
            let base = |r: &str| {
                let b = r.rsplit('/').next().unwrap_or(r);
                memconform_report::shown_path(Path::new(b)).into_owned()
            };
            if let Some(depth) = self.stack.iter().position(|&s| s == k) {
                let mut chain: Vec<String> = self.stack[depth..]
                    .iter()
                    .map(|&s| base(&self.rels[s]))
                    .collect();
                chain.push(base(&rel));
                return Err(here(format!("include cycle: {}", chain.join(" -> "))));
            }
            let first = match self.from[k] {
                Some((f, line)) => {
                    format!("first included at {}:{line}", self.shown(&self.rels[f]))
                }
                None => "the .slicc includes it".to_string(),
            };
            return Err(here(format!(
                "`{shown_name}` is included a second time ({first}); a file's declarations \
                 belong to one machine"
            )));
        }
        let text = self.read(&rel).map_err(|e| {
            here(format!(
                "cannot read the included file `{shown_name}` ({}): {e}",
                self.shown(&rel)
            ))
        })?;
        let shown = self.shown(&rel);
        let slot = self.slot(rel.clone(), Some((from, kw.line)));
        self.stack.push(slot);
        let tokens = lex(&shown, &text)?;
        {
            let mut p = Parser {
                file: &shown,
                text: &text,
                tokens: &tokens,
                pos: 0,
                index: slot,
                loader: Some(self),
            };
            p.machine_decls(m, true)?;
        }
        self.stack.pop();
        let name = match rel.strip_prefix(&self.base) {
            Some(r) if self.base.is_empty() => r.to_string(),
            Some(r) if r.starts_with('/') => r[1..].to_string(),
            _ => rel.clone(),
        };
        self.files[slot] = Some(SliccFile {
            name,
            rel_path: rel,
            text,
            tokens,
            machines: Vec::new(),
            enumerations: Vec::new(),
            included_from: Some((from, kw.line)),
        });
        Ok(slot)
    }

    /// The files read, in reading order.
    fn finish(self) -> Vec<SliccFile> {
        self.files
            .into_iter()
            .map(|f| f.expect("every slot is filled once its file is parsed"))
            .collect()
    }
}

/// A protocol as its `.slicc` file names it: the `.sm` files it includes
/// (shared `.slicc` includes such as `RubySlicc_interfaces.slicc` are not
/// followed) and the files their machines include, at any depth, parsed.
#[derive(Debug, Clone)]
pub struct Protocol {
    pub name: String,
    /// The directory patches are relative to (a gem5 root, or the protocol
    /// directory itself).
    pub root: PathBuf,
    /// The `.slicc` file, relative to `root`.
    pub manifest: String,
    /// In SLICC's reading order: each file the `.slicc` includes, followed
    /// by the files its machines include (depth first).
    pub files: Vec<SliccFile>,
}

impl Protocol {
    /// Replaces the texts of the files `edited` names (index, new text) and
    /// reads the protocol again from the texts in memory, so that machines
    /// gather their included files' declarations anew (nothing is read from
    /// the disk).
    pub fn reparse(&mut self, edited: Vec<(usize, String)>) -> Result<(), LoadError> {
        let mut memory: HashMap<String, String> = self
            .files
            .iter()
            .map(|f| (f.rel_path.clone(), f.text.clone()))
            .collect();
        for (fi, text) in edited {
            memory.insert(self.files[fi].rel_path.clone(), text);
        }
        let base = self.manifest.rsplit_once('/').map_or("", |(d, _)| d);
        let mut loader = Loader::new(self.root.clone(), base.to_string(), Some(memory));
        for f in self.files.iter().filter(|f| f.included_from.is_none()) {
            loader.top(&f.name, f.rel_path.clone())?;
        }
        self.files = loader.finish();
        Ok(())
    }
}

/// Finds `<protocol>.slicc`: under `path/src/mem/ruby/protocol` (a gem5
/// root), in `path` itself, or one directory below either; returns the
/// root patches are relative to and the `.slicc` path relative to it.
fn find_manifest(path: &Path, protocol: &str) -> Option<(PathBuf, PathBuf)> {
    let file = format!("{protocol}.slicc");
    let gem5_dir = Path::new("src/mem/ruby/protocol");
    let mut bases: Vec<(PathBuf, PathBuf)> = vec![
        (path.to_path_buf(), gem5_dir.to_path_buf()),
        (path.to_path_buf(), PathBuf::new()),
    ];
    // a gem5 protocol directory given directly: patches stay gem5-relative
    let comps: Vec<_> = path.components().collect();
    if comps.len() >= 4 && path.ends_with(gem5_dir) {
        let root: PathBuf = comps[..comps.len() - 4].iter().collect();
        bases.insert(0, (root, gem5_dir.to_path_buf()));
    }
    for (root, dir) in &bases {
        let direct = dir.join(&file);
        if root.join(&direct).is_file() {
            return Some((root.clone(), direct));
        }
    }
    for (root, dir) in &bases {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().into())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            let candidate = dir.join(sub).join(&file);
            if root.join(&candidate).is_file() {
                return Some((root.clone(), candidate));
            }
        }
    }
    None
}

/// Reads `path` as text, as a load error naming it when it cannot be read.
fn read_text(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path).map_err(|e| LoadError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Finds `protocol`'s `.slicc` under `path` (see [`load_protocol`]) without
/// reading it: the root patches are relative to, and the `.slicc` path
/// relative to that root.
pub fn protocol_root(path: &Path, protocol: &str) -> Result<(PathBuf, PathBuf), LoadError> {
    find_manifest(path, protocol).ok_or_else(|| LoadError::Io {
        path: path.to_path_buf(),
        message: format!(
            "no {protocol}.slicc here or under src/mem/ruby/protocol (give a gem5 root or \
             the directory holding the protocol's .slicc and .sm files)"
        ),
    })
}

/// Loads a protocol from a gem5 root (files under `src/mem/ruby/protocol`)
/// or from a directory holding its `.slicc` and `.sm` files.
pub fn load_protocol(path: &Path, protocol: &str) -> Result<Protocol, LoadError> {
    let (root, manifest_rel) = protocol_root(path, protocol)?;
    let manifest_path = root.join(&manifest_rel);
    let manifest_text = read_text(&manifest_path)?;
    let manifest_name = rel_string(&manifest_rel);
    let manifest = parse_manifest(
        &memconform_report::shown_path(&manifest_path),
        &manifest_text,
    )?;
    let dir_rel = manifest_rel.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut loader = Loader::new(root.clone(), rel_string(&dir_rel), None);
    for (include, line) in &manifest.includes {
        if !include.ends_with(".sm") {
            continue;
        }
        let rel = rel_string(&dir_rel.join(include));
        if loader.rels.contains(&rel) {
            return Err(LoadError::Syntax(SyntaxError {
                file: memconform_report::shown_path(&manifest_path).into_owned(),
                line: *line,
                col: 1,
                message: format!(
                    "`{}` is included a second time",
                    memconform_report::shown_path(Path::new(include))
                ),
            }));
        }
        loader.top(include, rel)?;
    }
    Ok(Protocol {
        name: manifest.protocol.unwrap_or_else(|| protocol.to_string()),
        root,
        manifest: manifest_name,
        files: loader.finish(),
    })
}

/// A relative path with `/` separators.
fn rel_string(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
