//! The models stated once, in a small relation language after herd7's
//! `.cat` (docs/design/definitions.md): each model is
//! a text in [`defs`], parsed here into [`Stmt`]s and interpreted on dense
//! bit matrices by [`eval`]. The engines (the dense models of
//! [`crate::models`], their sparse forms in [`crate::scale`], the
//! completion search, the certificate validator) are tested equal to these
//! texts on random small histories.
//!
//! The language:
//!
//! ```text
//! stmt  = "let" name ["(" param ")"] "=" body          (a set if name is capitalised)
//!       | "let" "rec" name ["(" param ")"] "=" expr {"and" name ["(" param ")"] "=" expr}
//!       | ["forall" param ":"] ("acyclic" | "irreflexive" | "empty") expr "as" axiom
//!       | "include" name
//! expr  = union;  union = diff {"|" diff};  diff = inter {"\" inter};
//! inter = seq {"&" seq};  seq = post {";" post};  post = atom {"+" | "*" | "?" | "^-1"}
//! atom  = relation name | name "(" param ")" | "[" set "]" | "(" expr ")"
//!       | "(" "union" param "." expr ")"                (⋃ over every event)
//! set   = set-union of set-differences of set-intersections of:
//!         set name | param | "dom" "(" expr ")" | "ran" "(" expr ")" | "(" set ")"
//! ```
//!
//! Base relations: `po`, `wr` (reads-from), `ww` (the store order a
//! store-order model is checked against: given, never searched here),
//! `rmw` (an RMW's read half to its write half), `fin` (a variable's
//! initial write to the write its `@final` observes), `id`, `loc` (same
//! variable), `int` (same thread), `ext` (not the same thread; initial
//! writes are on none), `0`. Base sets: `_` (every event), `M` (accesses),
//! `W` (writes, initial ones and RMW write halves included), `R` (reads),
//! `F` (fences), `IW` (initial writes), `U` (both halves of every RMW), `A`
//! (acquire reads), `Q` (RCpc acquire reads), `L` (release writes),
//! `Ffull`, `Fld`, `Fst` (fences by kind), `Fin` (the initial writes of the
//! variables with an `@final`). A parameter (`o`) ranges over every event;
//! as a set it is `{o}`. `let rec` is a least fixpoint (Kleene iteration
//! from the empty relation; every body is monotone in its names). Each
//! check is named by its [`Axiom`]: a certificate pattern, or a store
//! order's `atomicity` or `final`.

pub mod defs;
pub mod eval;
pub mod sample;

#[cfg(test)]
mod tests;

use crate::certificate::{Pattern, Rel};

pub use eval::{holds_for_some_store_order, ww_of_order, Failure, Interp};
pub use sample::Sample;

/// A base set of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseSet {
    All,
    M,
    W,
    R,
    F,
    Iw,
    U,
    A,
    Q,
    L,
    Ffull,
    Fld,
    Fst,
    Fin,
}

impl BaseSet {
    const NAMES: [(&'static str, BaseSet); 14] = [
        ("_", BaseSet::All),
        ("M", BaseSet::M),
        ("W", BaseSet::W),
        ("R", BaseSet::R),
        ("F", BaseSet::F),
        ("IW", BaseSet::Iw),
        ("U", BaseSet::U),
        ("A", BaseSet::A),
        ("Q", BaseSet::Q),
        ("L", BaseSet::L),
        ("Ffull", BaseSet::Ffull),
        ("Fld", BaseSet::Fld),
        ("Fst", BaseSet::Fst),
        ("Fin", BaseSet::Fin),
    ];
}

/// A base relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseRel {
    Po,
    Wr,
    Ww,
    Rmw,
    Fin,
    Id,
    Loc,
    Int,
    Ext,
    Empty,
}

impl BaseRel {
    const NAMES: [(&'static str, BaseRel); 10] = [
        ("po", BaseRel::Po),
        ("wr", BaseRel::Wr),
        ("ww", BaseRel::Ww),
        ("rmw", BaseRel::Rmw),
        ("fin", BaseRel::Fin),
        ("id", BaseRel::Id),
        ("loc", BaseRel::Loc),
        ("int", BaseRel::Int),
        ("ext", BaseRel::Ext),
        ("0", BaseRel::Empty),
    ];
}

/// A set expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Set {
    Base(BaseSet),
    /// The parameter in scope, as `{o}`.
    Param,
    /// A set `let`, applied to the parameter when it takes one.
    Named(String, bool),
    Union(Box<Set>, Box<Set>),
    Inter(Box<Set>, Box<Set>),
    Diff(Box<Set>, Box<Set>),
    Dom(Box<Expr>),
    Ran(Box<Expr>),
}

/// A relation expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Base(BaseRel),
    /// A relation `let`, applied to the parameter when it takes one.
    Named(String, bool),
    /// `[S]`: the identity on `S`.
    Set(Set),
    Union(Vec<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Inter(Box<Expr>, Box<Expr>),
    Seq(Vec<Expr>),
    Inv(Box<Expr>),
    Plus(Box<Expr>),
    Star(Box<Expr>),
    Opt(Box<Expr>),
    /// `(union o. e)`: the union over every event `o`.
    Big(Box<Expr>),
}

/// What a `let` defines.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Rel(Expr),
    Set(Set),
}

/// The kind of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Acyclic,
    Irreflexive,
    Empty,
}

/// The name of a check: what a failure of it is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axiom {
    /// A certificate pattern ([`Pattern::name`]).
    Pattern(Pattern),
    /// RMW atomicity of a store order.
    Atomicity,
    /// An `@final` observation of a store order.
    Final,
}

impl Axiom {
    /// The name as written after `as`.
    pub fn name(self) -> &'static str {
        match self {
            Axiom::Pattern(p) => p.name(),
            Axiom::Atomicity => "atomicity",
            Axiom::Final => "final",
        }
    }

    fn from_name(s: &str) -> Option<Axiom> {
        match s {
            "atomicity" => Some(Axiom::Atomicity),
            "final" => Some(Axiom::Final),
            // a pattern by its variant's name (`CyclicWpwwPpo` for `CyclicWpww(ppo)`)
            _ => Pattern::ALL
                .into_iter()
                .find(|p| format!("{p:?}") == s)
                .map(Axiom::Pattern),
        }
    }
}

/// One statement of a definition.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `let name(param)? = body`.
    Let {
        name: String,
        param: bool,
        body: Body,
    },
    /// `let rec … and …`: a least fixpoint of the group, all with the same
    /// parameter (or none).
    LetRec {
        group: Vec<(String, Expr)>,
        param: bool,
    },
    /// A named check, for every event when `forall`.
    Check {
        forall: bool,
        check: Check,
        expr: Expr,
        axiom: Axiom,
    },
}

/// A parsed definition: its statements, includes spliced in.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: &'static str,
    pub stmts: Vec<Stmt>,
    /// Its `let`-bound names, resolved once for every history it is
    /// interpreted on.
    pub(crate) names: eval::Names,
}

impl Definition {
    /// Parses the definition `name` of [`defs`] (its includes spliced in).
    pub fn parse(name: &'static str) -> Result<Definition, String> {
        let mut p = Parser {
            stmts: Vec::new(),
            lets: Vec::new(),
            toks: Vec::new(),
            at: 0,
            param: None,
        };
        p.definition(name)?;
        let names = eval::Names::of(&p.stmts);
        Ok(Definition {
            name,
            stmts: p.stmts,
            names,
        })
    }

    /// Whether it reads a store order `ww` (SC, TSO, PSO, RMO, ARMv8).
    pub fn uses_ww(&self) -> bool {
        fn expr(e: &Expr) -> bool {
            match e {
                Expr::Base(b) => *b == BaseRel::Ww,
                Expr::Named(..) => false,
                Expr::Set(s) => set(s),
                Expr::Union(es) | Expr::Seq(es) => es.iter().any(expr),
                Expr::Diff(a, b) | Expr::Inter(a, b) => expr(a) || expr(b),
                Expr::Inv(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) | Expr::Big(a) => {
                    expr(a)
                }
            }
        }
        fn set(s: &Set) -> bool {
            match s {
                Set::Dom(e) | Set::Ran(e) => expr(e),
                Set::Union(a, b) | Set::Inter(a, b) | Set::Diff(a, b) => set(a) || set(b),
                _ => false,
            }
        }
        self.stmts.iter().any(|s| match s {
            Stmt::Let { body, .. } => match body {
                Body::Rel(e) => expr(e),
                Body::Set(s) => set(s),
            },
            Stmt::LetRec { group, .. } => group.iter().any(|(_, e)| expr(e)),
            Stmt::Check { expr: e, .. } => expr(e),
        })
    }

    /// The axioms it checks, in order, each once.
    pub fn axioms(&self) -> Vec<Axiom> {
        let mut out = Vec::new();
        for s in &self.stmts {
            if let Stmt::Check { axiom, .. } = s {
                if !out.contains(axiom) {
                    out.push(*axiom);
                }
            }
        }
        out
    }
}

/// The certificate label of the edges of a relation named `name` (the
/// papers' names, [`Rel::name`]).
pub fn rel_named(name: &str) -> Option<Rel> {
    use Rel::*;
    [
        Po, Wr, Rw, Cf, HbO, Pww, Wpww, St, Ppo, PoLoc, Wre, PoPso, Rmw, Final, PoRmo, Bob, Aob,
    ]
    .into_iter()
    .find(|r| r.name() == name)
}

/// Every model's definition ([`defs`]), each parsed the first time it is
/// asked for and kept by this value: whoever checks many histories builds
/// one (the checker's `Options` hold it) and passes it in; the core keeps no
/// process-wide copy.
#[derive(Debug, Default)]
pub struct Definitions {
    parsed: [std::sync::OnceLock<Definition>; defs::NAMES.len()],
}

impl Definitions {
    /// None parsed yet.
    pub fn new() -> Definitions {
        Definitions::default()
    }

    /// The definition named `name` ([`defs::NAMES`]: a model's name),
    /// parsed on its first use.
    pub fn get(&self, name: impl AsRef<str>) -> &Definition {
        let name = name.as_ref();
        let i = defs::NAMES
            .iter()
            .position(|&n| n == name)
            .unwrap_or_else(|| panic!("no definition is named `{name}`"));
        self.parsed[i].get_or_init(|| {
            Definition::parse(defs::NAMES[i]).unwrap_or_else(|e| panic!("{name}: {e}"))
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Sym(&'static str),
}

/// A name's meaning while parsing: a relation or set `let`, and whether it
/// takes the parameter.
#[derive(Clone)]
struct Declared {
    name: String,
    set: bool,
    param: bool,
}

struct Parser {
    stmts: Vec<Stmt>,
    lets: Vec<Declared>,
    toks: Vec<(Tok, usize)>,
    at: usize,
    /// The parameter's name while one is in scope.
    param: Option<String>,
}

const SYMS: [&str; 15] = [
    "^-1", "(", ")", "[", "]", "|", "&", "\\", ";", "+", "*", "?", "=", ":", ".",
];

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    // the line of `i`, counted as the scan passes each newline
    let mut line = 1;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            line += usize::from(c == b'\n');
            i += 1;
        } else if text[i..].starts_with("(*") {
            let end = text[i..]
                .find("*)")
                .ok_or_else(|| format!("line {line}: unclosed comment"))?;
            line += text[i..i + end].matches('\n').count();
            i += end + 2;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'-' | b'\''))
            {
                i += 1;
            }
            out.push((Tok::Name(text[start..i].to_string()), line));
        } else if let Some(s) = SYMS.iter().find(|s| text[i..].starts_with(**s)) {
            out.push((Tok::Sym(s), line));
            i += s.len();
        } else {
            return Err(format!("line {line}: unexpected `{}`", c as char));
        }
    }
    Ok(out)
}

fn is_set_name(s: &str) -> bool {
    s == "_" || s.starts_with(|c: char| c.is_ascii_uppercase())
}

impl Parser {
    fn definition(&mut self, name: &str) -> Result<(), String> {
        let text = defs::text(name).ok_or_else(|| format!("no definition `{name}`"))?;
        let saved = (std::mem::take(&mut self.toks), self.at);
        self.toks = lex(text).map_err(|e| format!("{name}: {e}"))?;
        self.at = 0;
        while self.at < self.toks.len() {
            self.stmt().map_err(|e| {
                let line = self
                    .toks
                    .get(self.at)
                    .or(self.toks.last())
                    .map_or(0, |t| t.1);
                format!("{name}:{line}: {e}")
            })?;
        }
        (self.toks, self.at) = saved;
        Ok(())
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn is(&self, s: &str) -> bool {
        match self.peek() {
            Some(Tok::Sym(t)) => *t == s,
            Some(Tok::Name(t)) => t == s,
            None => false,
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        let yes = self.is(s);
        if yes {
            self.at += 1;
        }
        yes
    }

    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(format!("expected `{s}`, found {:?}", self.peek()))
        }
    }

    fn name(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Tok::Name(n)) => {
                let n = n.clone();
                self.at += 1;
                Ok(n)
            }
            t => Err(format!("expected a name, found {t:?}")),
        }
    }

    /// `(param)` after a name being defined: opens the parameter's scope.
    fn formal(&mut self) -> Result<bool, String> {
        if !self.eat("(") {
            return Ok(false);
        }
        let p = self.name()?;
        self.expect(")")?;
        self.param = Some(p);
        Ok(true)
    }

    fn declared(&self, name: &str) -> Option<&Declared> {
        self.lets.iter().rev().find(|d| d.name == name)
    }

    fn stmt(&mut self) -> Result<(), String> {
        self.param = None;
        if self.eat("include") {
            let n = self.name()?;
            let n: &'static str = defs::NAMES
                .iter()
                .find(|m| **m == n)
                .ok_or_else(|| format!("no definition `{n}` to include"))?;
            return self.definition(n);
        }
        if self.eat("let") {
            if self.eat("rec") {
                let mut group = Vec::new();
                let mut bodies = Vec::new();
                let mut param;
                // declare every name of the group first, then parse the bodies
                loop {
                    let name = self.name()?;
                    param = self.formal()?;
                    self.expect("=")?;
                    self.lets.push(Declared {
                        name: name.clone(),
                        set: false,
                        param,
                    });
                    bodies.push((name, self.at));
                    self.skip_body();
                    if !self.eat("and") {
                        break;
                    }
                }
                let end = self.at;
                for (name, at) in bodies {
                    self.at = at;
                    group.push((name, self.expr()?));
                }
                self.at = end;
                self.stmts.push(Stmt::LetRec { group, param });
                return Ok(());
            }
            let name = self.name()?;
            let param = self.formal()?;
            self.expect("=")?;
            let set = is_set_name(&name);
            let body = match set {
                true => Body::Set(self.set()?),
                false => Body::Rel(self.expr()?),
            };
            self.lets.push(Declared {
                name: name.clone(),
                set,
                param,
            });
            self.stmts.push(Stmt::Let { name, param, body });
            return Ok(());
        }
        let forall = self.eat("forall");
        if forall {
            self.param = Some(self.name()?);
            self.expect(":")?;
        }
        let check = match self.name()?.as_str() {
            "acyclic" => Check::Acyclic,
            "irreflexive" => Check::Irreflexive,
            "empty" => Check::Empty,
            s => return Err(format!("expected a statement, found `{s}`")),
        };
        let expr = self.expr()?;
        self.expect("as")?;
        let a = self.name()?;
        let axiom = Axiom::from_name(&a).ok_or_else(|| format!("`{a}` names no axiom"))?;
        self.stmts.push(Stmt::Check {
            forall,
            check,
            expr,
            axiom,
        });
        Ok(())
    }

    /// Skips a `let rec` body: up to the next `and`, `let`, check or
    /// `include` outside brackets.
    fn skip_body(&mut self) {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            match t {
                Tok::Sym("(" | "[") => depth += 1,
                Tok::Sym(")" | "]") => depth -= 1,
                Tok::Name(n)
                    if depth == 0
                        && matches!(
                            n.as_str(),
                            "and"
                                | "let"
                                | "include"
                                | "forall"
                                | "acyclic"
                                | "irreflexive"
                                | "empty"
                        ) =>
                {
                    return
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    fn expr(&mut self) -> Result<Expr, String> {
        let mut parts = vec![self.diff()?];
        while self.eat("|") {
            parts.push(self.diff()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one")
        } else {
            Expr::Union(parts)
        })
    }

    fn diff(&mut self) -> Result<Expr, String> {
        let mut e = self.inter()?;
        while self.eat("\\") {
            e = Expr::Diff(Box::new(e), Box::new(self.inter()?));
        }
        Ok(e)
    }

    fn inter(&mut self) -> Result<Expr, String> {
        let mut e = self.seq()?;
        while self.eat("&") {
            e = Expr::Inter(Box::new(e), Box::new(self.seq()?));
        }
        Ok(e)
    }

    fn seq(&mut self) -> Result<Expr, String> {
        let mut parts = vec![self.post()?];
        while self.eat(";") {
            parts.push(self.post()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one")
        } else {
            Expr::Seq(parts)
        })
    }

    fn post(&mut self) -> Result<Expr, String> {
        let mut e = self.atom()?;
        loop {
            e = if self.eat("+") {
                Expr::Plus(Box::new(e))
            } else if self.eat("*") {
                Expr::Star(Box::new(e))
            } else if self.eat("?") {
                Expr::Opt(Box::new(e))
            } else if self.eat("^-1") {
                Expr::Inv(Box::new(e))
            } else {
                return Ok(e);
            };
        }
    }

    fn atom(&mut self) -> Result<Expr, String> {
        if self.eat("[") {
            let s = self.set()?;
            self.expect("]")?;
            return Ok(Expr::Set(s));
        }
        if self.eat("(") {
            if self.eat("union") {
                let p = self.name()?;
                let outer = self.param.replace(p);
                self.expect(".")?;
                let e = self.expr()?;
                self.param = outer;
                self.expect(")")?;
                return Ok(Expr::Big(Box::new(e)));
            }
            let e = self.expr()?;
            self.expect(")")?;
            return Ok(e);
        }
        let n = self.name()?;
        if let Some(d) = self.declared(&n).filter(|d| !d.set).cloned() {
            return Ok(Expr::Named(n, self.actual(d.param)?));
        }
        BaseRel::NAMES
            .iter()
            .find(|(s, _)| *s == n)
            .map(|&(_, b)| Expr::Base(b))
            .ok_or_else(|| format!("`{n}` is no relation"))
    }

    /// `(param)` after a use of a name that takes it.
    fn actual(&mut self, takes: bool) -> Result<bool, String> {
        if !takes {
            return Ok(false);
        }
        self.expect("(")?;
        let p = self.name()?;
        if self.param.as_deref() != Some(&p) {
            return Err(format!("`{p}` is not the parameter in scope"));
        }
        self.expect(")")?;
        Ok(true)
    }

    fn set(&mut self) -> Result<Set, String> {
        let mut s = self.set_diff()?;
        while self.eat("|") {
            s = Set::Union(Box::new(s), Box::new(self.set_diff()?));
        }
        Ok(s)
    }

    fn set_diff(&mut self) -> Result<Set, String> {
        let mut s = self.set_inter()?;
        while self.eat("\\") {
            s = Set::Diff(Box::new(s), Box::new(self.set_inter()?));
        }
        Ok(s)
    }

    fn set_inter(&mut self) -> Result<Set, String> {
        let mut s = self.set_atom()?;
        while self.eat("&") {
            s = Set::Inter(Box::new(s), Box::new(self.set_atom()?));
        }
        Ok(s)
    }

    fn set_atom(&mut self) -> Result<Set, String> {
        if self.eat("(") {
            let s = self.set()?;
            self.expect(")")?;
            return Ok(s);
        }
        let n = self.name()?;
        if n == "dom" || n == "ran" {
            self.expect("(")?;
            let e = Box::new(self.expr()?);
            self.expect(")")?;
            return Ok(if n == "dom" { Set::Dom(e) } else { Set::Ran(e) });
        }
        if self.param.as_deref() == Some(&n) {
            return Ok(Set::Param);
        }
        if let Some(d) = self.declared(&n).filter(|d| d.set).cloned() {
            return Ok(Set::Named(n, self.actual(d.param)?));
        }
        BaseSet::NAMES
            .iter()
            .find(|(s, _)| *s == n)
            .map(|&(_, b)| Set::Base(b))
            .ok_or_else(|| format!("`{n}` is no set"))
    }
}
