//! The mutation operators (docs/design/campaigns.md §2) over parsed SLICC, each
//! a line-preserving edit of one file, with the validity and equivalence
//! rules of §4 and the stable descriptors of §5.
//!
//! | op | edit | class |
//! |---|---|---|
//! | TDA | delete one action from a transition | tier1 |
//! | TSW | swap two adjacent actions whose effects conflict | tier1 |
//! | TNS-stay | drop a transition's next state | tier1 |
//! | TNS-sibling | next state → one the machine enters elsewhere on the same events | tier2 |
//! | ADS | delete one action statement (whole blocks included) | tier1 |
//! | MTR | `out_msg.Type := E:V` (CHI: `type`) → another `E:V'` this machine sends | tier1 |
//! | BFL | flip `:= true`/`:= false` | tier1 |
//! | ERT | retarget an `enqueue` to an `out_port` of the same message type | tier1 |
//! | CNG | negate an `if` condition | tier2 |
//! | STD | drop a stall action (`z_stall`, stall-and-wait, recycle) | liveness |
//!
//! Classes override an operator's own: `equivalent` (edits in `z_stall`
//! transitions, observer-only code, unused actions, swaps without a
//! conflict), `liveness` (deleting pops, wakeups, stalls), `crash` (a pop
//! before a peek, a deallocation before a use, a use before an allocation,
//! deleting `check_allocate`). A `+needs:o3` tag marks edits of code guarded
//! by `send_evictions`, which the NULL-ISA testers never run.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::slicc::{
    self, Action, Block, Machine, Protocol, SliccFile, Span, Statement, StatementKind, TokenKind,
    Transition,
};
use super::{mutant_id, patch, sha256_hex, Error, Mutant};

/// The operators: short name, default class, what the edit does.
pub const OPERATORS: &[(&str, &str, &str)] = &[
    ("TDA", "tier1", "delete one action from a transition"),
    (
        "TSW",
        "tier1",
        "swap two adjacent actions of a transition whose effects conflict",
    ),
    (
        "TNS-stay",
        "tier1",
        "drop a transition's next state (the state stays)",
    ),
    (
        "TNS-sibling",
        "tier2",
        "change a next state to one the machine enters elsewhere on the same events",
    ),
    (
        "ADS",
        "tier1",
        "delete one statement of an action, whole enqueue/peek/if blocks included",
    ),
    (
        "MTR",
        "tier1",
        "replace `out_msg.Type := E:V` by another value of E this machine sends",
    ),
    (
        "BFL",
        "tier1",
        "flip a boolean assignment (`:= true` <-> `:= false`)",
    ),
    (
        "ERT",
        "tier1",
        "retarget an enqueue to another out_port with the same message type",
    ),
    (
        "CNG",
        "tier2",
        "negate the condition of an `if` in an action",
    ),
    (
        "STD",
        "liveness",
        "drop a stall action (z_stall, stall_and_wait, recycle) from a transition",
    ),
];

/// The classes: name and meaning.
pub const CLASSES: &[(&str, &str)] = &[
    ("tier1", "the default set"),
    (
        "tier2",
        "TNS-sibling and CNG: many more mutants, opt-in or sampled",
    ),
    (
        "liveness",
        "valid edits that kill by deadlock: deleted pops, wakeups or stalls",
    ),
    (
        "crash",
        "valid edits that kill by an assert: a pop before a peek, a use before an allocation or \
         after a deallocation, a deleted check_allocate",
    ),
    (
        "equivalent",
        "likely equivalent, skipped: edits in z_stall transitions, observer-only code (profile*, \
         setMRU, DPRINTF, APPEND_TRANSITION_COMMENT, assert), timing-only fields, unused actions, \
         swaps without a conflict",
    ),
];

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Classes to keep (`tier1`, `tier2`, `liveness`, `crash`,
    /// `equivalent`, or `all`), matched on the class before any `+tag`.
    pub classes: Vec<String>,
    /// Mutate DMA controllers too (the random tester never drives them).
    pub include_dma: bool,
}

impl Default for Options {
    /// Tier 1 only, no DMA controllers.
    fn default() -> Self {
        Options {
            classes: vec!["tier1".to_string()],
            include_dma: false,
        }
    }
}

impl Options {
    /// Whether a mutant of `class` (`tier1+needs:o3`, ...) is kept.
    pub fn selects(&self, class: &str) -> bool {
        let base = class.split('+').next().unwrap_or(class);
        self.classes.iter().any(|c| c == "all" || c == base)
    }
}

/// One splice of a file: bytes `start..end` become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A mutant before its patch is written: the edits of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Index into the protocol's files.
    pub file: usize,
    pub op: &'static str,
    pub class: String,
    /// The site in words (`transition(M, Fwd_GETX, I)`, `action(e_sendData)`).
    pub site: String,
    pub descriptor: String,
    /// The first line the edit touches (1-based).
    pub line: usize,
    pub edits: Vec<Edit>,
    /// The baseline counters whose firing runs the edited code (see
    /// [`Mutant::fires`]).
    pub fires: Option<Vec<String>>,
}

/// Loads `protocol` from a gem5 root or protocol directory and returns its
/// mutants of the selected classes, in file, line and operator order.
pub fn generate(path: &Path, protocol: &str, opts: &Options) -> Result<Vec<Mutant>, Error> {
    let p = slicc::load_protocol(path, protocol)?;
    generate_from(&p, opts)
}

/// The mutants of an already loaded protocol (see [`generate`]).
pub fn generate_from(p: &Protocol, opts: &Options) -> Result<Vec<Mutant>, Error> {
    let all = candidates(p, opts.include_dma);
    let mut out = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for c in all.iter().filter(|c| opts.selects(&c.class)) {
        let m = materialize(p, c)?;
        if let Some(other) = seen.insert(m.id.clone(), m.descriptor.clone()) {
            return Err(Error::Internal(format!(
                "two mutants share id {}: {} and {}",
                m.id, other, m.descriptor
            )));
        }
        out.push(m);
    }
    Ok(out)
}

/// Every candidate of every class (DMA controllers only if asked), sorted
/// by file, line, operator and descriptor.
pub fn candidates(p: &Protocol, include_dma: bool) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (fi, file) in p.files.iter().enumerate() {
        for machine in &file.machines {
            if machine.ident == "DMA" && !include_dma {
                continue;
            }
            let info = MachineInfo::new(&p.files, fi, machine);
            info.transition_ops(&mut out);
            info.action_ops(&mut out);
        }
    }
    let rank = |op: &str| {
        OPERATORS
            .iter()
            .position(|o| o.0 == op)
            .unwrap_or(usize::MAX)
    };
    out.sort_by(|a, b| {
        (a.file, a.line, rank(a.op), &a.descriptor).cmp(&(
            b.file,
            b.line,
            rank(b.op),
            &b.descriptor,
        ))
    });
    out
}

/// Applies a candidate's edits, checks that the line count is kept, and
/// writes the mutant with its id and patch.
pub fn materialize(p: &Protocol, c: &Candidate) -> Result<Mutant, Error> {
    let file = &p.files[c.file];
    let mutated = apply_edits(&file.text, &c.edits);
    if mutated.matches('\n').count() != file.text.matches('\n').count() {
        return Err(Error::Internal(format!(
            "{} changes the number of lines of {}",
            c.descriptor, file.rel_path
        )));
    }
    let id = mutant_id(&c.descriptor);
    let base = sha256_hex(file.text.as_bytes());
    let diff = patch::unified_diff(&file.rel_path, &file.text, &mutated);
    Ok(Mutant {
        patch: patch::with_preamble(&id, &c.descriptor, &base, &diff),
        id,
        descriptor: c.descriptor.clone(),
        op: c.op.to_string(),
        class: c.class.clone(),
        file: file.rel_path.clone(),
        line: c.line,
        site: c.site.clone(),
        base_sha256: base,
        fires: c.fires.clone(),
        params: Vec::new(),
    })
}

/// The text with the (non-overlapping) edits spliced in.
pub fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in sorted {
        out.push_str(&text[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Deleting `span`: whole lines become `// [mutant] ...` comments; a
/// partial line loses the text in place (its line breaks kept).
pub fn delete_edits(text: &str, span: Span) -> Vec<Edit> {
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    let before = &text[line_start..span.start];
    let after = text[span.end..line_end].trim_start();
    if before.trim().is_empty() && (after.is_empty() || after.starts_with("//")) {
        let mut edits = Vec::new();
        let mut at = line_start;
        while at < line_end {
            let end = text[at..line_end].find('\n').map_or(line_end, |i| at + i);
            let line = &text[at..end];
            let indent = line.len() - line.trim_start().len();
            if !line.trim().is_empty() {
                edits.push(Edit {
                    start: at + indent,
                    end: at + indent,
                    text: "// [mutant] ".to_string(),
                });
            }
            at = end + 1;
        }
        edits
    } else {
        vec![remove(text, span.start, span.end)]
    }
}

/// Removes bytes `start..end` in place, keeping their line breaks.
pub fn remove(text: &str, start: usize, end: usize) -> Edit {
    Edit {
        start,
        end,
        text: text[start..end].chars().filter(|&c| c == '\n').collect(),
    }
}

/// How an action touches a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    /// `peek(queue, ...)`.
    Peek,
    /// `queue.dequeue()`, `recycle`, `stall_and_wait`.
    Pop,
    /// `TBEs.allocate`, `set_tbe`, `cache.allocate`, `set_cache_entry`.
    Alloc,
    /// `TBEs.deallocate`, `unset_tbe`, `cache.deallocate`, `unset_cache_entry`.
    Dealloc,
}

/// One effect: a resource (`tbe.DataBlk`, `cache_entry`, `queue:X`,
/// `out:X`, `memory`, `sequencer`, `wakeup`, ...) and the access.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Effect {
    res: String,
    access: Access,
}

/// Whether resource paths overlap: equal, or one a field of the other
/// (`queue:*`, what a wakeup touches, overlaps every queue).
fn related(a: &str, b: &str) -> bool {
    if (a == "queue:*" && b.starts_with("queue:")) || (b == "queue:*" && a.starts_with("queue:")) {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.starts_with(short)
        && (long.len() == short.len() || matches!(long.as_bytes()[short.len()], b'.' | b'['))
}

/// Whether the access changes the resource.
fn writes(a: Access) -> bool {
    !matches!(a, Access::Read | Access::Peek)
}

/// Whether `e` and `f` conflict: one changes what the other touches. A
/// bare read of `tbe` or `cache_entry` is a validity check: only
/// (de)allocations change it, not writes of its fields.
fn conflict(e: &Effect, f: &Effect) -> bool {
    let pointer_check = |x: &Effect, y: &Effect| {
        x.access == Access::Read
            && matches!(x.res.as_str(), "tbe" | "cache_entry")
            && y.res != x.res
    };
    related(&e.res, &f.res)
        && (writes(e.access) || writes(f.access))
        && !pointer_check(e, f)
        && !pointer_check(f, e)
}

/// Whether running `x` and `y` in the other order can differ: some shared
/// resource that one of them changes.
fn conflicts(x: &[Effect], y: &[Effect]) -> bool {
    x.iter().any(|e| y.iter().any(|f| conflict(e, f)))
}

/// Whether running `b` before `a` (they ran `a`, `b`) pops a queue `a`
/// peeks, deallocates what `a` uses, or uses what `a` allocates.
fn crashes_after_swap(a: &[Effect], b: &[Effect]) -> bool {
    let uses = |effects: &[Effect], res: &str| {
        effects
            .iter()
            .any(|e| related(&e.res, res) && !matches!(e.access, Access::Alloc | Access::Dealloc))
    };
    b.iter().any(|e| match e.access {
        Access::Pop => a.iter().any(|f| f.access == Access::Peek && f.res == e.res),
        Access::Dealloc => uses(a, &e.res),
        _ => false,
    }) || a
        .iter()
        .any(|e| e.access == Access::Alloc && uses(b, &e.res))
}

/// Calls that only observe (statistics, tracing, checks; `error` marks a
/// path a correct protocol never takes).
fn observer_call(name: &str) -> bool {
    matches!(
        name,
        "DPRINTF"
            | "DPRINTFN"
            | "DPRINTFR"
            | "APPEND_TRANSITION_COMMENT"
            | "assert"
            | "error"
            | "setMRU"
    ) || name.starts_with("profile")
        || name.starts_with("observe")
}

/// Method names that only read their object.
fn reader_method(name: &str) -> bool {
    [
        "is",
        "get",
        "count",
        "has",
        "lookup",
        "size",
        "cacheAvail",
        "cacheProbe",
        "areNSlots",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || name == "isReady"
}

/// Roots whose fields are message-local or constant: not shared state.
fn local_root(name: &str) -> bool {
    matches!(
        name,
        "in_msg" | "out_msg" | "address" | "machineID" | "true" | "false" | "new" | "static_cast"
    )
}

/// Collects the effects of statements (§4's effect analysis).
struct Scan<'a> {
    file: &'a SliccFile,
    locals: HashSet<String>,
    effects: Vec<Effect>,
}

impl<'a> Scan<'a> {
    /// A scan of `file` with no effects yet.
    fn new(file: &'a SliccFile) -> Self {
        Scan {
            file,
            locals: HashSet::new(),
            effects: Vec::new(),
        }
    }

    /// Records an effect.
    fn push(&mut self, res: impl Into<String>, access: Access) {
        self.effects.push(Effect {
            res: res.into(),
            access,
        });
    }

    /// The text of token `i` (empty past the end).
    fn tok(&self, i: usize) -> &'a str {
        if i < self.file.tokens.len() {
            let t = &self.file.tokens[i];
            &self.file.text[t.start..t.end]
        } else {
            ""
        }
    }

    /// The index of the token closing the group opened at `open`.
    fn closing(&self, open: usize) -> usize {
        self.file.closing(open)
    }

    /// The effects of a block's statements.
    fn block(&mut self, b: &Block) {
        for s in &b.statements {
            self.statement(s);
        }
    }

    /// The effects of one statement.
    fn statement(&mut self, s: &Statement) {
        match &s.kind {
            StatementKind::If(branches) => {
                for b in branches {
                    self.expr(b.cond_tokens.clone(), Access::Read, false);
                    self.block(&b.body);
                }
            }
            StatementKind::Peek { port, body } => {
                self.push(format!("queue:{port}"), Access::Peek);
                self.block(body);
            }
            StatementKind::Enqueue { port, body, .. }
            | StatementKind::DeferEnqueueing { port, body } => {
                self.push(format!("out:{port}"), Access::Write);
                self.block(body);
            }
            StatementKind::Assign { .. } => {
                let at = (s.tokens.start..s.tokens.end)
                    .find(|&i| self.tok(i) == ":=")
                    .unwrap_or(s.tokens.start);
                self.expr(s.tokens.start..at, Access::Write, false);
                self.expr(at + 1..s.tokens.end - 1, Access::Read, false);
            }
            StatementKind::LocalDecl { name, .. } => {
                self.locals.insert(name.clone());
                if let Some(at) = (s.tokens.start..s.tokens.end).find(|&i| self.tok(i) == ":=") {
                    self.expr(at + 1..s.tokens.end - 1, Access::Read, false);
                }
            }
            StatementKind::Expr => self.expr(s.tokens.start..s.tokens.end - 1, Access::Read, true),
            StatementKind::Return => {
                self.expr(s.tokens.start + 1..s.tokens.end - 1, Access::Read, false)
            }
            StatementKind::StallAndWait => {
                let port = self.tok(s.tokens.start + 2).to_string();
                self.push(format!("queue:{port}"), Access::Pop);
                self.push("wakeup", Access::Write);
            }
            StatementKind::WakeupPort => {
                self.push("queue:*", Access::Write);
                self.push("wakeup", Access::Write);
            }
            StatementKind::CheckAllocate
            | StatementKind::CheckNextCycle
            | StatementKind::CheckStopSlots
            | StatementKind::CheckOnCacheProbe => {}
        }
    }

    /// The effects of an expression's tokens; paths not inside a call get
    /// `access` (Write for an assignment's left side). `top`: a statement
    /// whose outermost call is a command, not a value.
    fn expr(&mut self, range: std::ops::Range<usize>, access: Access, top: bool) {
        let mut i = range.start;
        let mut first = top;
        while i < range.end {
            let t = self.file.tokens[i];
            if t.kind != TokenKind::Ident {
                i += 1;
                continue;
            }
            if self.tok(i + 1) == ":" {
                i += 3; // an enumeration value `E:V`
                continue;
            }
            i = self.path(i, access, first).min(range.end.max(i + 1));
            first = false;
        }
    }

    /// One path starting at identifier `i` (`tbe.DataBlk`,
    /// `getDirectoryEntry(address).Owner.clear()`, `TBEs[address]`, a call);
    /// returns the index after it.
    fn path(&mut self, i: usize, access: Access, top: bool) -> usize {
        let root = self.tok(i);
        let mut segs: Vec<String> = Vec::new();
        let mut j = i + 1;
        let mut ignored = local_root(root) || self.locals.contains(root);
        if self.tok(j) == "(" {
            let close = self.closing(j);
            if self.tok(close + 1) != "." {
                self.free_call(root, j + 1..close, top);
                return close + 1;
            }
            self.expr(j + 1..close, Access::Read, false);
            let is_entry = root.starts_with("get") && root.ends_with("CacheEntry");
            segs.push(if is_entry {
                "cache_entry".to_string()
            } else {
                format!("{root}()")
            });
            ignored = false;
            j = close + 1;
        } else if self.tok(j) == "[" {
            let close = self.closing(j);
            self.expr(j + 1..close, Access::Read, false);
            segs.push(if root.contains("TBE") {
                "tbe".to_string()
            } else {
                format!("{root}[]")
            });
            j = close + 1;
        } else {
            segs.push(root.to_string());
        }
        loop {
            if self.tok(j) == "."
                && self.file.tokens.get(j + 1).map(|t| t.kind) == Some(TokenKind::Ident)
            {
                let name = self.tok(j + 1);
                if self.tok(j + 2) == "(" {
                    let close = self.closing(j + 2);
                    let object = segs.join(".");
                    self.method(&object, name, j + 3..close, ignored);
                    if self.tok(close + 1) == "." {
                        segs.push(format!("{name}()"));
                        j = close + 1;
                        continue;
                    }
                    return close + 1;
                }
                segs.push(name.to_string());
                j += 2;
            } else if self.tok(j) == "[" {
                let close = self.closing(j);
                self.expr(j + 1..close, Access::Read, false);
                if let Some(last) = segs.last_mut() {
                    last.push_str("[]");
                }
                j = close + 1;
            } else {
                break;
            }
        }
        if !ignored {
            self.push(segs.join("."), access);
        }
        j
    }

    /// The effects of `object.name(args)`.
    fn method(&mut self, object: &str, name: &str, args: std::ops::Range<usize>, ignored: bool) {
        if observer_call(name) {
            return;
        }
        let callback = name.ends_with("Callback");
        self.expr(
            args,
            if callback {
                Access::Write
            } else {
                Access::Read
            },
            false,
        );
        if ignored {
            return;
        }
        let table = if object.contains("TBE") || object == "tbe" {
            "tbe"
        } else {
            "cache_entry"
        };
        match name {
            "dequeue" | "recycle" => self.push(format!("queue:{object}"), Access::Pop),
            "allocate" | "allocateVoid" => self.push(table, Access::Alloc),
            "deallocate" => self.push(table, Access::Dealloc),
            _ if callback => self.push(object, Access::Write),
            _ if reader_method(name) => self.push(object, Access::Read),
            _ => self.push(object, Access::Write),
        }
    }

    /// The effects of a free call `name(args)`.
    fn free_call(&mut self, name: &str, args: std::ops::Range<usize>, top: bool) {
        if observer_call(name) && name != "assert" && name != "error" {
            return;
        }
        self.expr(args, Access::Read, false);
        match name {
            "set_tbe" => self.push("tbe", Access::Alloc),
            "unset_tbe" => self.push("tbe", Access::Dealloc),
            "set_cache_entry" => self.push("cache_entry", Access::Alloc),
            "unset_cache_entry" => self.push("cache_entry", Access::Dealloc),
            _ if name.contains("dequeue") || name.contains("Dequeue") => {
                self.push(format!("queue:{name}()"), Access::Pop)
            }
            _ if name.starts_with("wakeUp") => {
                self.push("queue:*", Access::Write);
                self.push("wakeup", Access::Write);
            }
            _ if name.starts_with("queueMemory") => self.push("memory", Access::Write),
            _ if top && name != "assert" && name != "error" => {
                self.push(format!("call:{name}"), Access::Write)
            }
            _ => {}
        }
    }
}

/// The name of the first call in a statement: the identifier before its
/// first `(` (`DPRINTF`, `profileDemandHit`, `setMRU`).
fn callee<'f>(file: &'f SliccFile, s: &Statement) -> Option<&'f str> {
    (s.tokens.start + 1..s.tokens.end)
        .find(|&i| file.tok(i) == "(")
        .map(|i| file.tok(i - 1))
}

/// Whether deleting the statement changes nothing but statistics, traces,
/// checks or timing (§4's observer-only code and timing-only fields).
fn observer_only(file: &SliccFile, s: &Statement) -> bool {
    match &s.kind {
        StatementKind::Expr => callee(file, s).is_some_and(observer_call),
        StatementKind::Assign { lhs, .. } => {
            let lhs = &file.text[lhs.start..lhs.end];
            let field = lhs.rsplit('.').next().unwrap_or(lhs).trim();
            field == "MessageSize" || field.ends_with("Time")
        }
        StatementKind::If(branches) => branches
            .iter()
            .all(|b| b.body.statements.iter().all(|s| observer_only(file, s))),
        StatementKind::Peek { body, .. } => body.statements.iter().all(|s| observer_only(file, s)),
        _ => false,
    }
}

/// Whether an `if` branch's condition reads `send_evictions`.
fn guards_evictions(file: &SliccFile, cond: &std::ops::Range<usize>) -> bool {
    cond.clone().any(|i| file.tok(i) == "send_evictions")
}

/// What the operators need to know about one action.
struct ActionInfo {
    effects: Vec<Effect>,
    /// Every statement observes only (or there are none).
    observer: bool,
    /// `z_stall`, or a body with `stall_and_wait` or `.recycle(`.
    stall: bool,
    /// It pops a queue or wakes up waiters (deleting it is a liveness bug).
    liveness: bool,
    /// All it does is guarded by `send_evictions`.
    needs_o3: bool,
}

/// One machine with the facts the operators share.
struct MachineInfo<'a> {
    /// The protocol's files: an action or transition is read in its own
    /// (`Action::file`, `Transition::file`), which for a machine that
    /// includes files is not always the machine's.
    files: &'a [SliccFile],
    /// The file declaring the machine.
    home: &'a SliccFile,
    machine: &'a Machine,
    actions: HashMap<&'a str, ActionInfo>,
    /// Actions named by some transition that does not stall.
    live: HashSet<&'a str>,
    /// Per enumeration, the values this machine assigns to `out_msg.Type`.
    sent: Vec<(String, Vec<String>)>,
}

/// Whether a transition is a `z_stall` one (SLICC returns ProtocolStall
/// before running any of its actions).
pub(crate) fn stalls(t: &Transition) -> bool {
    t.actions.items.iter().any(|a| a.name == "z_stall")
}

/// `E:V` of a right-hand side made of exactly those three tokens.
fn enum_value<'f>(file: &'f SliccFile, s: &Statement) -> Option<(&'f str, &'f str, usize)> {
    let StatementKind::Assign { .. } = s.kind else {
        return None;
    };
    let at = (s.tokens.start..s.tokens.end).find(|&i| file.tok(i) == ":=")?;
    // (CHI names the field `type`, the other protocols `Type`)
    let field = file.compact(s.tokens.start..at);
    if !matches!(field.as_str(), "out_msg.Type" | "out_msg.type") || s.tokens.end - at != 5 {
        return None;
    }
    (file.tok(at + 2) == ":").then(|| (file.tok(at + 1), file.tok(at + 3), at + 3))
}

/// Every statement of a block at any depth, in document order, with the
/// innermost enclosing block and whether a `send_evictions` guard encloses it.
fn walk<'s>(
    file: &SliccFile,
    block: &'s Block,
    guarded: bool,
    out: &mut Vec<(&'s Statement, &'s Block, bool)>,
) {
    for s in &block.statements {
        out.push((s, block, guarded));
        match &s.kind {
            StatementKind::If(branches) => {
                let g = guarded
                    || branches
                        .iter()
                        .any(|b| guards_evictions(file, &b.cond_tokens));
                for b in branches {
                    walk(file, &b.body, g, out);
                }
            }
            _ => {
                for b in s.blocks() {
                    walk(file, b, guarded, out);
                }
            }
        }
    }
}

impl<'a> MachineInfo<'a> {
    /// Analyses the actions and transitions of `machine`, declared in file
    /// `home` of `files`.
    fn new(files: &'a [SliccFile], home: usize, machine: &'a Machine) -> Self {
        let mut actions = HashMap::new();
        let mut sent: Vec<(String, Vec<String>)> = Vec::new();
        for a in &machine.actions {
            let file = &files[a.file];
            let mut scan = Scan::new(file);
            scan.block(&a.body);
            let mut all = Vec::new();
            walk(file, &a.body, false, &mut all);
            let recycles = |s: &Statement| {
                s.tokens
                    .clone()
                    .any(|i| file.tok(i) == "recycle" && file.tok(i - 1) == ".")
            };
            let stall = a.name.name == "z_stall"
                || all
                    .iter()
                    .any(|(s, _, _)| matches!(s.kind, StatementKind::StallAndWait) || recycles(s));
            let liveness = scan
                .effects
                .iter()
                .any(|e| e.access == Access::Pop || e.res == "wakeup");
            let top = &a.body.statements;
            let observer = top.iter().all(|s| observer_only(file, s));
            let needs_o3 = !observer
                && top
                    .iter()
                    .all(|s| observer_only(file, s) || is_evictions_if(file, s));
            for (s, _, _) in &all {
                if let Some((e, v, _)) = enum_value(file, s) {
                    match sent.iter_mut().find(|(name, _)| name == e) {
                        Some((_, values)) => {
                            if !values.iter().any(|x| x == v) {
                                values.push(v.to_string());
                            }
                        }
                        None => sent.push((e.to_string(), vec![v.to_string()])),
                    }
                }
            }
            actions.insert(
                a.name.name.as_str(),
                ActionInfo {
                    effects: scan.effects,
                    observer,
                    stall,
                    liveness,
                    needs_o3,
                },
            );
        }
        let live = machine
            .transitions
            .iter()
            .filter(|t| !stalls(t))
            .flat_map(|t| t.actions.items.iter().map(|a| a.name.as_str()))
            .collect();
        MachineInfo {
            files,
            home: &files[home],
            machine,
            actions,
            live,
            sent,
        }
    }

    /// The descriptor `<file>::<site>::<operand>::<op>`, `<file>` the one
    /// the site is written in (file `fi`: a file the machine includes, for
    /// its sites there). (A machine whose file declares several machines
    /// is named too: `<file>::machine(X)::<site>::...`.)
    fn descriptor(&self, fi: usize, site: &str, operand: &str, op: &str) -> String {
        let name = &self.files[fi].name;
        if self.home.machines.len() > 1 {
            let m = &self.machine.ident;
            format!("{name}::machine({m})::{site}::{operand}::{op}")
        } else {
            format!("{name}::{site}::{operand}::{op}")
        }
    }

    /// A candidate from its parts (the line is the first edit's).
    fn candidate(
        &self,
        fi: usize,
        op: &'static str,
        class: String,
        site: String,
        descriptor: String,
        edits: Vec<Edit>,
    ) -> Candidate {
        let first = edits.iter().map(|e| e.start).min().unwrap_or(0);
        Candidate {
            file: fi,
            op,
            class,
            site,
            descriptor,
            line: slicc::line_col(&self.files[fi].text, first).0,
            edits,
            fires: None,
        }
    }

    /// TDA, TSW, TNS-stay, TNS-sibling and STD on every transition header
    /// (each in its own file); each candidate fires when its header does.
    fn transition_ops(&self, out: &mut Vec<Candidate>) {
        for (ti, t) in self.machine.transitions.iter().enumerate() {
            let first = out.len();
            self.header_ops(t.file, ti, t, out);
            let fires = self.transition_fires(t);
            for c in &mut out[first..] {
                c.fires = fires.clone();
            }
        }
    }

    /// The `(machine, state, event)` counters of gem5's `stats.txt` that a
    /// run of header `t` increments (`Machine.State.Event`); `None` for a
    /// `z_stall` header, which SLICC never counts (docs/design/campaigns.md §4, coverage).
    fn transition_fires(&self, t: &Transition) -> Option<Vec<String>> {
        if stalls(t) {
            return None;
        }
        let m = &self.machine.ident;
        let mut out = Vec::new();
        for s in &t.states.items {
            for e in &t.events.items {
                out.push(format!("{m}.{}.{}", s.name, e.name));
            }
        }
        Some(out)
    }

    /// The counters of every header that runs action `name` (a `z_stall`
    /// header runs none of its actions): the action's code runs only then.
    fn action_fires(&self, name: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for t in &self.machine.transitions {
            if !stalls(t) && t.actions.items.iter().any(|a| a.name == name) {
                out.extend(self.transition_fires(t).unwrap_or_default());
            }
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// The candidates of header `ti` (see [`Self::transition_ops`]).
    fn header_ops(&self, fi: usize, ti: usize, t: &Transition, out: &mut Vec<Candidate>) {
        let text = &self.files[fi].text;
        {
            let header = t.normalized_header();
            let words = t.header_words();
            let stall = stalls(t);
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for (k, a) in t.actions.items.iter().enumerate() {
                let occ = seen.entry(a.name.as_str()).or_insert(0);
                let operand = if *occ == 0 {
                    a.name.clone()
                } else {
                    format!("{}#{}", a.name, occ)
                };
                *occ += 1;
                let info = self.actions.get(a.name.as_str());
                let edits = self.delete_action(t, k);
                if info.is_some_and(|i| i.stall) {
                    let d = self.descriptor(fi, &header, &operand, "STD");
                    out.push(self.candidate(fi, "STD", "liveness".into(), words.clone(), d, edits));
                    continue;
                }
                let class = match info {
                    _ if stall => "equivalent".to_string(),
                    Some(i) if i.observer => "equivalent".to_string(),
                    Some(i) if i.liveness => "liveness".to_string(),
                    Some(i) if i.needs_o3 => "tier1+needs:o3".to_string(),
                    _ => "tier1".to_string(),
                };
                let d = self.descriptor(fi, &header, &operand, "TDA");
                out.push(self.candidate(fi, "TDA", class, words.clone(), d, edits));
            }
            let mut seen_pairs: HashMap<(&str, &str), usize> = HashMap::new();
            for pair in t.actions.items.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                if a.name == b.name {
                    continue;
                }
                let occ = seen_pairs.entry((&a.name, &b.name)).or_insert(0);
                let operand = if *occ == 0 {
                    format!("{}<->{}", a.name, b.name)
                } else {
                    format!("{}<->{}#{occ}", a.name, b.name)
                };
                *occ += 1;
                let (ia, ib) = (
                    self.actions.get(a.name.as_str()),
                    self.actions.get(b.name.as_str()),
                );
                let class = match (ia, ib) {
                    _ if stall => "equivalent",
                    (Some(x), Some(y)) if x.observer || y.observer => "equivalent",
                    (Some(x), Some(y)) if !conflicts(&x.effects, &y.effects) => "equivalent",
                    (Some(x), Some(y)) if crashes_after_swap(&x.effects, &y.effects) => "crash",
                    _ => "tier1",
                };
                let edits = vec![
                    Edit {
                        start: a.span.start,
                        end: a.span.end,
                        text: b.name.clone(),
                    },
                    Edit {
                        start: b.span.start,
                        end: b.span.end,
                        text: a.name.clone(),
                    },
                ];
                let d = self.descriptor(fi, &header, &operand, "TSW");
                out.push(self.candidate(fi, "TSW", class.into(), words.clone(), d, edits));
            }
            // next states
            let class_of = |base: &str| {
                if stall {
                    "equivalent".to_string()
                } else {
                    base.to_string()
                }
            };
            if let Some(n) = &t.next_state {
                let same = t.states.items.iter().all(|s| s.name == n.name);
                if n.name != "*" && !same {
                    let edits = vec![remove(text, t.events_end, n.span.end)];
                    let d = self.descriptor(fi, &header, &format!("{}->stay", n.name), "TNS-stay");
                    out.push(self.candidate(
                        fi,
                        "TNS-stay",
                        class_of("tier1"),
                        words.clone(),
                        d,
                        edits,
                    ));
                }
            }
            // only headers that name a next state (a `*` is computed at run time)
            if t.next_state.as_ref().is_none_or(|n| n.name == "*") {
                return;
            }
            for target in self.siblings(ti) {
                let (edits, from) = match &t.next_state {
                    Some(n) => (
                        vec![Edit {
                            start: n.span.start,
                            end: n.span.end,
                            text: target.to_string(),
                        }],
                        n.name.clone(),
                    ),
                    None => (
                        vec![Edit {
                            start: t.events_end,
                            end: t.events_end,
                            text: format!(", {target}"),
                        }],
                        "stay".to_string(),
                    ),
                };
                let d = self.descriptor(fi, &header, &format!("{from}->{target}"), "TNS-sibling");
                out.push(self.candidate(
                    fi,
                    "TNS-sibling",
                    class_of("tier2"),
                    words.clone(),
                    d,
                    edits,
                ));
            }
        }
    }

    /// The states other headers enter (explicitly, or by staying) on one of
    /// header `ti`'s events, in declaration order, less its own next state.
    fn siblings(&self, ti: usize) -> Vec<&'a str> {
        let t = &self.machine.transitions[ti];
        let events: HashSet<&str> = t.events.items.iter().map(|e| e.name.as_str()).collect();
        let mut entered: HashSet<&str> = HashSet::new();
        for (k, other) in self.machine.transitions.iter().enumerate() {
            if k == ti
                || !other
                    .events
                    .items
                    .iter()
                    .any(|e| events.contains(e.name.as_str()))
            {
                continue;
            }
            match &other.next_state {
                Some(n) if n.name != "*" => {
                    entered.insert(n.name.as_str());
                }
                Some(_) => {}
                None => entered.extend(other.states.items.iter().map(|s| s.name.as_str())),
            }
        }
        let own = t.next_state.as_ref().map(|n| n.name.as_str());
        self.machine
            .states
            .iter()
            .map(|s| s.name.as_str())
            .filter(|s| entered.contains(s) && own != Some(*s))
            .collect()
    }

    /// The edits deleting the `k`-th action of a transition: the name and
    /// its separator; a bare action list becomes `{}`.
    fn delete_action(&self, t: &Transition, k: usize) -> Vec<Edit> {
        let a = &t.actions.items[k];
        if !t.actions.braced {
            return vec![Edit {
                start: a.span.start,
                end: a.span.end,
                text: "{}".into(),
            }];
        }
        let text = &self.files[t.file].text;
        let rest = &text[a.span.end..t.actions.span.end];
        let trimmed = rest.trim_start();
        let end = if trimmed.starts_with(';') || trimmed.starts_with(',') {
            a.span.end + (rest.len() - trimmed.len()) + 1
        } else {
            a.span.end
        };
        delete_edits(
            text,
            Span {
                start: a.span.start,
                end,
            },
        )
    }

    /// ADS, MTR, BFL, ERT and CNG on every statement of every action (each
    /// in its own file).
    fn action_ops(&self, out: &mut Vec<Candidate>) {
        for a in &self.machine.actions {
            let first = out.len();
            self.statement_ops(a.file, a, out);
            let fires = self.action_fires(&a.name.name);
            for c in &mut out[first..] {
                c.fires = fires.clone();
            }
        }
    }

    /// The candidates of action `a`'s statements (see [`Self::action_ops`]).
    fn statement_ops(&self, fi: usize, a: &'a Action, out: &mut Vec<Candidate>) {
        let file = &self.files[fi];
        {
            let site = format!("action({})", a.name.name);
            let live = self.live.contains(a.name.name.as_str());
            let mut all = Vec::new();
            walk(file, &a.body, false, &mut all);
            let mut occ_stmt: HashMap<String, usize> = HashMap::new();
            let mut occ_branch: HashMap<String, usize> = HashMap::new();
            for (s, block, guarded) in all {
                let key_base = format!(
                    "{}:{}",
                    s.kind_name(),
                    short_hash(&file.compact(s.head_tokens.clone()))
                );
                let occ = occ_stmt.entry(key_base.clone()).or_insert(0);
                let key = format!("{key_base}#{occ}");
                *occ += 1;
                let tag = if guarded || is_evictions_if(file, s) {
                    "+needs:o3"
                } else {
                    ""
                };
                let equivalent = !live;
                // ADS
                if !self.declaration_used_later(a, s) {
                    let scan_class = {
                        let mut scan = Scan::new(file);
                        scan.statement(s);
                        if scan
                            .effects
                            .iter()
                            .any(|e| e.access == Access::Pop || e.res == "wakeup")
                        {
                            Some("liveness")
                        } else {
                            None
                        }
                    };
                    let contains_check = s.tokens.clone().any(|i| file.tok(i) == "check_allocate");
                    let class = if equivalent || observer_only(file, s) || repeated(file, block, s)
                    {
                        "equivalent".to_string()
                    } else if let Some(c) = scan_class {
                        c.to_string()
                    } else if contains_check {
                        "crash".to_string()
                    } else {
                        format!("tier1{tag}")
                    };
                    let d = self.descriptor(fi, &site, &key, "ADS");
                    out.push(self.candidate(
                        fi,
                        "ADS",
                        class,
                        site.clone(),
                        d,
                        delete_edits(&file.text, s.span),
                    ));
                }
                let base_class = |base: &str| {
                    if equivalent {
                        "equivalent".to_string()
                    } else {
                        format!("{base}{tag}")
                    }
                };
                // MTR
                if let Some((e, v, tok)) = enum_value(file, s) {
                    if let Some((_, values)) = self.sent.iter().find(|(name, _)| name == e) {
                        for w in values.iter().filter(|w| *w != v) {
                            let t = file.tokens[tok];
                            let edits = vec![Edit {
                                start: t.start,
                                end: t.end,
                                text: w.clone(),
                            }];
                            let d = self.descriptor(fi, &site, &format!("{key}::{v}->{w}"), "MTR");
                            out.push(self.candidate(
                                fi,
                                "MTR",
                                base_class("tier1"),
                                site.clone(),
                                d,
                                edits,
                            ));
                        }
                    }
                }
                // BFL
                if matches!(
                    s.kind,
                    StatementKind::Assign { .. } | StatementKind::LocalDecl { .. }
                ) && s.tokens.end - s.tokens.start >= 3
                {
                    let b = s.tokens.end - 2;
                    let value = file.tok(b);
                    if file.tok(b - 1) == ":=" && (value == "true" || value == "false") {
                        let flipped = if value == "true" { "false" } else { "true" };
                        let t = file.tokens[b];
                        let edits = vec![Edit {
                            start: t.start,
                            end: t.end,
                            text: flipped.into(),
                        }];
                        let d = self.descriptor(
                            fi,
                            &site,
                            &format!("{key}::{value}->{flipped}"),
                            "BFL",
                        );
                        let class = if observer_only(file, s) {
                            "equivalent".to_string()
                        } else {
                            base_class("tier1")
                        };
                        out.push(self.candidate(fi, "BFL", class, site.clone(), d, edits));
                    }
                }
                // ERT
                if let StatementKind::Enqueue {
                    port,
                    msg_type,
                    port_span,
                    ..
                } = &s.kind
                {
                    for other in self
                        .machine
                        .out_ports
                        .iter()
                        .filter(|p| &p.msg_type == msg_type && &p.name.name != port)
                    {
                        let edits = vec![Edit {
                            start: port_span.start,
                            end: port_span.end,
                            text: other.name.name.clone(),
                        }];
                        let d = self.descriptor(
                            fi,
                            &site,
                            &format!("{key}::{port}->{}", other.name.name),
                            "ERT",
                        );
                        out.push(self.candidate(
                            fi,
                            "ERT",
                            base_class("tier1"),
                            site.clone(),
                            d,
                            edits,
                        ));
                    }
                }
                // CNG
                if let StatementKind::If(branches) = &s.kind {
                    for b in branches {
                        let Some(cond) = b.cond else { continue };
                        let bkey_base = format!(
                            "if:{}",
                            short_hash(&format!("if({})", file.compact(b.cond_tokens.clone())))
                        );
                        let occ = occ_branch.entry(bkey_base.clone()).or_insert(0);
                        let bkey = format!("{bkey_base}#{occ}");
                        *occ += 1;
                        let edits = vec![
                            Edit {
                                start: cond.start,
                                end: cond.start,
                                text: "!(".into(),
                            },
                            Edit {
                                start: cond.end,
                                end: cond.end,
                                text: ")".into(),
                            },
                        ];
                        let observer = branches
                            .iter()
                            .all(|x| x.body.statements.iter().all(|s| observer_only(file, s)));
                        let btag = if tag.is_empty() && guards_evictions(file, &b.cond_tokens) {
                            "+needs:o3"
                        } else {
                            tag
                        };
                        let class = if equivalent || observer {
                            "equivalent".to_string()
                        } else {
                            format!("tier2{btag}")
                        };
                        let d = self.descriptor(fi, &site, &bkey, "CNG");
                        out.push(self.candidate(fi, "CNG", class, site.clone(), d, edits));
                    }
                }
            }
        }
    }

    /// Whether `s` declares a local that a later statement of the action uses.
    fn declaration_used_later(&self, a: &Action, s: &Statement) -> bool {
        let StatementKind::LocalDecl { name, .. } = &s.kind else {
            return false;
        };
        let end = a.body.close;
        let file = &self.files[a.file];
        (s.tokens.end..file.tokens.len())
            .take_while(|&i| file.tokens[i].start < end)
            .any(|i| file.tok(i) == name)
    }
}

/// Whether `s` is an `if` whose first condition reads `send_evictions`.
fn is_evictions_if(file: &SliccFile, s: &Statement) -> bool {
    matches!(&s.kind, StatementKind::If(bs) if guards_evictions(file, &bs[0].cond_tokens))
}

/// Whether an assignment repeats an earlier identical one of its block.
fn repeated(file: &SliccFile, block: &Block, s: &Statement) -> bool {
    if !matches!(s.kind, StatementKind::Assign { .. }) {
        return false;
    }
    let text = file.compact(s.tokens.clone());
    block
        .statements
        .iter()
        .take_while(|x| x.span.start < s.span.start)
        .any(|x| {
            matches!(x.kind, StatementKind::Assign { .. }) && file.compact(x.tokens.clone()) == text
        })
}

/// The first 8 hex digits of the SHA-256 of whitespace-free statement text.
pub fn short_hash(compact: &str) -> String {
    sha256_hex(compact.as_bytes())[..8].to_string()
}

/// A statement's site key (`assign:1a2b3c4d#0`) from its kind, its
/// whitespace-free head and its occurrence among equal keys of its action.
pub fn statement_key(kind: &str, compact_head: &str, occurrence: usize) -> String {
    format!("{kind}:{}#{occurrence}", short_hash(compact_head))
}
