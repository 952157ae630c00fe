//! The interpreter of [`super`]'s definitions on dense bit matrices
//! ([`crate::relation::algebra`]): one `n×n` matrix per relation, a bit row
//! per set, `let`s memoised (per parameter value for those that take one),
//! `let rec` by Kleene iteration. For small histories: the tests' oracle,
//! against which the engines are held.

use std::collections::HashMap;

use memconform_parsers::fx::FxMap;
use memconform_parsers::hist::Ann;

use super::{Axiom, BaseRel, BaseSet, Body, Check, Definition, Expr, Set, Stmt};
use crate::history::{History, OpId, OpKind};
use crate::relation::{
    iter_ones, shortest_cycle, topological_order, transitive_closure, BitMatrix,
};

/// A failed check: its axiom, the event its `forall` failed at, and what
/// shows it: a cycle (`acyclic`, as `(from, to, part)` with the name of the
/// union's part the edge is in), the event (`irreflexive`), a pair (`empty`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub axiom: Axiom,
    pub observer: Option<OpId>,
    pub witness: Vec<(OpId, OpId, String)>,
}

#[derive(Clone)]
enum Value {
    Rel(BitMatrix),
    Set(Vec<u64>),
}

/// A definition's `let`-bound names, numbered: the statement defining each
/// and how often it is used (a `let` used once is not kept).
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    id: FxMap<String, usize>,
    stmt: Vec<usize>,
    uses: Vec<usize>,
}

impl Names {
    /// The names `stmts` bind, and their uses there.
    pub(crate) fn of(stmts: &[Stmt]) -> Names {
        let mut names = Names::default();
        let mut bind = |name: &str, i: usize| {
            names.id.insert(name.to_string(), names.stmt.len());
            names.stmt.push(i);
        };
        for (i, s) in stmts.iter().enumerate() {
            match s {
                Stmt::Let { name, .. } => bind(name, i),
                Stmt::LetRec { group, .. } => group.iter().for_each(|(name, _)| bind(name, i)),
                Stmt::Check { .. } => {}
            }
        }
        let mut uses = HashMap::new();
        for s in stmts {
            match s {
                Stmt::Let { body, .. } => match body {
                    Body::Rel(e) => count_names(e, &mut uses),
                    Body::Set(s) => count_set(s, &mut uses),
                },
                Stmt::LetRec { group, .. } => {
                    group.iter().for_each(|(_, e)| count_names(e, &mut uses))
                }
                Stmt::Check { expr, .. } => count_names(expr, &mut uses),
            }
        }
        names.uses = vec![0; names.stmt.len()];
        for (name, n) in uses {
            if let Some(&id) = names.id.get(name) {
                names.uses[id] = n;
            }
        }
        names
    }

    /// The number of a declared name.
    fn id(&self, name: &str) -> usize {
        *self.id.get(name).expect("a declared name")
    }
}

/// A definition being interpreted on one history (and store order).
pub struct Interp<'d, 'h> {
    h: &'h History,
    def: &'d Definition,
    ww: Option<BitMatrix>,
    /// The values of names kept, by name number and parameter value.
    memo: FxMap<(usize, Option<OpId>), Value>,
    /// The base sets computed so far.
    bases: Vec<(BaseSet, Vec<u64>)>,
}

/// The store order given per variable (initial write first) as the
/// transitive relation `ww`.
pub fn ww_of_order(h: &History, order: &[Vec<OpId>]) -> BitMatrix {
    let mut ww = BitMatrix::new(h.n());
    for ws in order {
        for (i, &a) in ws.iter().enumerate() {
            for &b in &ws[i + 1..] {
                ww.set(a, b);
            }
        }
    }
    ww
}

/// Whether some total store order satisfies the store-order definition
/// `def` ("exists ww such that …", consistency-framework-2k §3.1), trying
/// every one; `None` when there are more than `max_orders`.
pub fn holds_for_some_store_order(
    h: &History,
    def: &Definition,
    max_orders: u64,
) -> Option<Option<Vec<Vec<OpId>>>> {
    let nv = h.vars.len();
    let mut count: u64 = 1;
    for x in 0..nv {
        for k in 1..h.writes_of(x).len() as u64 {
            count = count.saturating_mul(k);
        }
    }
    if count > max_orders {
        return None;
    }
    // per variable, the permutation of its non-initial writes, an odometer
    let mut perms: Vec<Vec<OpId>> = (0..nv).map(|x| h.writes_of(x)[1..].to_vec()).collect();
    perms.iter_mut().for_each(|p| p.sort_unstable());
    loop {
        let order: Vec<Vec<OpId>> = (0..nv)
            .map(|x| std::iter::once(x).chain(perms[x].iter().copied()).collect())
            .collect();
        if Interp::new(h, def, Some(ww_of_order(h, &order)))
            .first_failure()
            .is_none()
        {
            return Some(Some(order));
        }
        let mut x = 0;
        loop {
            if x == nv {
                return Some(None);
            }
            if next_permutation(&mut perms[x]) {
                break;
            }
            x += 1;
        }
    }
}

/// The next permutation in lexicographic order; `false` (and the sorted
/// one) after the last.
pub(crate) fn next_permutation(p: &mut [OpId]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        p.reverse();
        return false;
    };
    let j = (i..p.len())
        .rev()
        .find(|&j| p[j] > p[i - 1])
        .expect("p[i] is");
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

fn bit(set: &mut [u64], o: usize) {
    set[o / 64] |= 1 << (o % 64);
}

impl<'d, 'h> Interp<'d, 'h> {
    /// `def` on `h`; `ww` is the store order a store-order model is checked
    /// against (transitive, per variable; [`ww_of_order`]).
    pub fn new(h: &'h History, def: &'d Definition, ww: Option<BitMatrix>) -> Interp<'d, 'h> {
        Interp {
            h,
            def,
            ww,
            memo: FxMap::default(),
            bases: Vec::new(),
        }
    }

    /// Every check that fails, in the definition's order (a `forall` check
    /// at its first failing event).
    pub fn failures(&mut self) -> Vec<Failure> {
        let mut out = Vec::new();
        for i in 0..self.def.stmts.len() {
            if let Some(f) = self.check(i) {
                out.push(f);
            }
        }
        out
    }

    /// The first check that fails.
    pub fn first_failure(&mut self) -> Option<Failure> {
        (0..self.def.stmts.len()).find_map(|i| self.check(i))
    }

    /// The relation a `let` without a parameter defines.
    pub fn rel(&mut self, name: &str) -> BitMatrix {
        self.expr(&Expr::Named(name.to_string(), false), None)
    }

    fn check(&mut self, i: usize) -> Option<Failure> {
        let def = self.def;
        let Stmt::Check {
            forall,
            check,
            expr,
            axiom,
        } = &def.stmts[i]
        else {
            return None;
        };
        let observers: Vec<Option<OpId>> = match forall {
            true => (0..self.h.n()).map(Some).collect(),
            false => vec![None],
        };
        for o in observers {
            let m = self.expr(expr, o);
            let witness = match check {
                Check::Acyclic => match topological_order(&m) {
                    Ok(_) => continue,
                    Err(_) => self.cycle(expr, o, &m),
                },
                Check::Irreflexive => match (0..m.n()).find(|&a| m.get(a, a)) {
                    None => continue,
                    Some(a) => vec![(a, a, String::new())],
                },
                Check::Empty => match m.pairs().next() {
                    None => continue,
                    Some((a, b)) => vec![(a, b, String::new())],
                },
            };
            return Some(Failure {
                axiom: *axiom,
                observer: o,
                witness,
            });
        }
        None
    }

    /// A shortest cycle of a cyclic union, each edge named by its part.
    fn cycle(&mut self, e: &Expr, o: Option<OpId>, whole: &BitMatrix) -> Vec<(OpId, OpId, String)> {
        let parts: Vec<(String, BitMatrix)> = match e {
            Expr::Union(es) => es.iter().map(|p| (label(p), self.expr(p, o))).collect(),
            _ => vec![(label(e), whole.clone())],
        };
        let labelled: Vec<(usize, &BitMatrix)> = parts.iter().map(|p| &p.1).enumerate().collect();
        let c = shortest_cycle(&labelled).expect("the relation is cyclic");
        c.into_iter()
            .map(|e| (e.from, e.to, parts[e.label].0.clone()))
            .collect()
    }

    fn named(&mut self, name: &str, applied: bool, o: Option<OpId>) -> Value {
        let names = &self.def.names;
        let id = names.id(name);
        let key = (id, if applied { o } else { None });
        if let Some(v) = self.memo.get(&key) {
            return v.clone();
        }
        let def = self.def;
        match &def.stmts[names.stmt[id]] {
            Stmt::Let { body, param, .. } => {
                let v = match body {
                    Body::Rel(e) => Value::Rel(self.expr(e, key.1)),
                    Body::Set(s) => Value::Set(self.set(s, key.1)),
                };
                if *param || names.uses[id] > 1 {
                    self.memo.insert(key, v.clone());
                }
                v
            }
            Stmt::LetRec { group, .. } => {
                // Kleene iteration from the empty relations
                for (n, _) in group {
                    let empty = Value::Rel(BitMatrix::new(self.h.n()));
                    self.memo.insert((names.id(n), key.1), empty);
                }
                loop {
                    let mut changed = false;
                    for (n, e) in group {
                        let new = self.expr(e, key.1);
                        let k = (names.id(n), key.1);
                        let same =
                            matches!(self.memo.get(&k), Some(Value::Rel(old)) if *old == new);
                        if !same {
                            changed = true;
                            self.memo.insert(k, Value::Rel(new));
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                self.memo[&key].clone()
            }
            Stmt::Check { .. } => unreachable!("lets only"),
        }
    }

    /// `f` of a relation expression's value, borrowing `po` rather than
    /// copying it.
    fn with<R>(&mut self, e: &Expr, o: Option<OpId>, f: impl FnOnce(&BitMatrix) -> R) -> R {
        match e {
            Expr::Base(BaseRel::Po) => f(self.h.po()),
            e => f(&self.expr(e, o)),
        }
    }

    /// A relation expression's value, `o` the parameter's.
    pub(crate) fn expr(&mut self, e: &Expr, o: Option<OpId>) -> BitMatrix {
        let h = self.h;
        let n = h.n();
        match e {
            Expr::Base(b) => self.base(*b),
            Expr::Named(name, applied) => match self.named(name, *applied, o) {
                Value::Rel(m) => m,
                Value::Set(_) => unreachable!("a relation"),
            },
            Expr::Set(s) => {
                let set = self.set(s, o);
                let mut m = BitMatrix::new(n);
                for a in iter_ones(&set) {
                    m.set(a, a);
                }
                m
            }
            Expr::Union(es) => {
                let mut m = BitMatrix::new(n);
                for p in es {
                    self.with(p, o, |p| m.union_with(p));
                }
                m
            }
            Expr::Diff(a, b) => {
                let mut m = self.expr(a, o);
                // `R \ (S | T)` as `(R \ S) \ T`; `R \ S^-1` pair by pair
                let parts = match &**b {
                    Expr::Union(ps) => ps.iter().collect(),
                    b => vec![b],
                };
                for p in parts {
                    m = match p {
                        Expr::Inv(s) => self.with(s, o, |s| m.minus_inv(s)),
                        p => self.with(p, o, |p| m.minus(p)),
                    };
                }
                m
            }
            // `R & loc`, row by row
            Expr::Inter(a, b) if **b == Expr::Base(BaseRel::Loc) => self
                .expr(a, o)
                .same_loc(|x| h.var(x).map(|v| h.loc_mask(v))),
            Expr::Inter(a, b) => {
                let mut a = self.expr(a, o);
                self.with(b, o, |b| {
                    for x in 0..n {
                        a.and_row(x, b.row(x));
                    }
                });
                a
            }
            Expr::Seq(es) => {
                let mut acc: Option<BitMatrix> = None;
                let mut es = &es[..];
                // `[S] ; R`: R's rows in S
                if let [Expr::Set(s), r, rest @ ..] = es {
                    let set = self.set(s, o);
                    let mut m = self.expr(r, o);
                    for x in (0..n).filter(|&x| set[x / 64] >> (x % 64) & 1 == 0) {
                        m.row_mut(x).fill(0);
                    }
                    acc = Some(m);
                    es = rest;
                }
                for p in es {
                    acc = Some(match (acc, p) {
                        // `R ; [S]`: R's columns in S (none: the sequence is empty)
                        (Some(mut m), Expr::Set(s)) => {
                            let set = self.set(s, o);
                            if set.iter().all(|&w| w == 0) {
                                return BitMatrix::new(n);
                            }
                            for x in 0..n {
                                m.and_row(x, &set);
                            }
                            m
                        }
                        (Some(m), p) => self.with(p, o, |p| m.seq(p)),
                        (None, p) => self.expr(p, o),
                    });
                }
                acc.expect("a sequence has parts")
            }
            Expr::Inv(a) => self.expr(a, o).inv(),
            Expr::Plus(a) => {
                let m = self.expr(a, o);
                transitive_closure(&m).unwrap_or_else(|_| m.plus_any())
            }
            Expr::Star(a) | Expr::Opt(a) => {
                let mut m = self.expr(a, o);
                if matches!(e, Expr::Star(_)) {
                    m = m.plus_any();
                }
                for x in 0..n {
                    m.set(x, x);
                }
                m
            }
            Expr::Big(a) => {
                let mut m = BitMatrix::new(n);
                for x in 0..n {
                    m.union_with(&self.expr(a, Some(x)));
                }
                m
            }
        }
    }

    /// A set expression's value as a bit row.
    fn set(&mut self, s: &Set, o: Option<OpId>) -> Vec<u64> {
        let h = self.h;
        let n = h.n();
        let mut out = vec![0u64; n.div_ceil(64)];
        match s {
            Set::Base(b) => match self.bases.iter().find(|(c, _)| c == b) {
                Some((_, set)) => out.copy_from_slice(set),
                None => {
                    for x in (0..n).filter(|&x| in_base(h, *b, x)) {
                        bit(&mut out, x);
                    }
                    self.bases.push((*b, out.clone()));
                }
            },
            Set::Param => bit(&mut out, o.expect("the parameter is bound")),
            Set::Named(name, applied) => match self.named(name, *applied, o) {
                Value::Set(s) => out = s,
                Value::Rel(_) => unreachable!("a set"),
            },
            Set::Union(a, b) | Set::Inter(a, b) | Set::Diff(a, b) => {
                let (a, b) = (self.set(a, o), self.set(b, o));
                for ((d, x), y) in out.iter_mut().zip(a).zip(b) {
                    *d = match s {
                        Set::Union(..) => x | y,
                        Set::Inter(..) => x & y,
                        _ => x & !y,
                    };
                }
            }
            Set::Dom(e) => {
                let m = self.expr(e, o);
                for x in (0..n).filter(|&x| m.row(x).iter().any(|&w| w != 0)) {
                    bit(&mut out, x);
                }
            }
            Set::Ran(e) => {
                let m = self.expr(e, o);
                for x in 0..n {
                    for (d, w) in out.iter_mut().zip(m.row(x)) {
                        *d |= w;
                    }
                }
            }
        }
        out
    }

    fn base(&mut self, b: BaseRel) -> BitMatrix {
        let h = self.h;
        let n = h.n();
        let pairs = |keep: &dyn Fn(OpId, OpId) -> bool| {
            let mut m = BitMatrix::new(n);
            for a in 0..n {
                for c in (0..n).filter(|&c| keep(a, c)) {
                    m.set(a, c);
                }
            }
            m
        };
        match b {
            BaseRel::Po => h.po().clone(),
            BaseRel::Wr => h.wr(),
            BaseRel::Ww => self
                .ww
                .clone()
                .expect("a store-order model is checked against a given ww"),
            BaseRel::Rmw => pairs(&|a, c| h.is_read(a) && h.ops[a].rmw == Some(c)),
            BaseRel::Fin => pairs(&|a, c| {
                h.is_init(a)
                    && h.is_write(c)
                    && h.var(c) == Some(a)
                    && h.finals.iter().any(|&(x, v)| x == a && h.ops[c].value == v)
            }),
            BaseRel::Id => pairs(&|a, c| a == c),
            BaseRel::Loc => {
                let mut m = BitMatrix::new(n);
                for a in 0..n {
                    if let Some(x) = h.var(a) {
                        m.or_row(a, h.loc_mask(x));
                    }
                }
                m
            }
            BaseRel::Int | BaseRel::Ext => {
                // per thread, its operations as a bit row (initial writes: none)
                let mut of: Vec<Vec<u64>> = vec![vec![0u64; n.div_ceil(64)]; h.threads.len() + 1];
                for a in 0..n {
                    bit(&mut of[h.thread_of(a).unwrap_or(h.threads.len())], a);
                }
                let mut m = BitMatrix::new(n);
                for a in 0..n {
                    let t = h.thread_of(a);
                    match b {
                        BaseRel::Int if t.is_some() => m.or_row(a, &of[t.expect("some")]),
                        BaseRel::Ext => {
                            let own = &of[t.unwrap_or(h.threads.len())];
                            let row: Vec<u64> = own.iter().map(|w| !w).collect();
                            m.or_row(a, &row);
                            for x in n..m.stride() * 64 {
                                m.unset(a, x);
                            }
                        }
                        _ => {}
                    }
                }
                m
            }
            BaseRel::Empty => BitMatrix::new(n),
        }
    }
}

/// Counts the uses of each name in `e`.
fn count_names<'d>(e: &'d Expr, uses: &mut HashMap<&'d str, usize>) {
    match e {
        Expr::Named(n, _) => *uses.entry(n.as_str()).or_default() += 1,
        Expr::Base(_) => {}
        Expr::Set(s) => count_set(s, uses),
        Expr::Union(es) | Expr::Seq(es) => es.iter().for_each(|e| count_names(e, uses)),
        Expr::Diff(a, b) | Expr::Inter(a, b) => {
            count_names(a, uses);
            count_names(b, uses);
        }
        Expr::Inv(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) | Expr::Big(a) => {
            count_names(a, uses)
        }
    }
}

fn count_set<'d>(s: &'d Set, uses: &mut HashMap<&'d str, usize>) {
    match s {
        Set::Named(n, _) => *uses.entry(n.as_str()).or_default() += 1,
        Set::Dom(e) | Set::Ran(e) => count_names(e, uses),
        Set::Union(a, b) | Set::Inter(a, b) | Set::Diff(a, b) => {
            count_set(a, uses);
            count_set(b, uses);
        }
        Set::Base(_) | Set::Param => {}
    }
}

/// Whether event `x` is in the base set `b`.
fn in_base(h: &History, b: BaseSet, x: OpId) -> bool {
    let op = &h.ops[x];
    let fence = op.kind == OpKind::Fence;
    match b {
        BaseSet::All => true,
        BaseSet::M => !fence,
        BaseSet::W => h.is_write(x),
        BaseSet::R => h.is_read(x),
        BaseSet::F => fence,
        BaseSet::Iw => h.is_init(x),
        BaseSet::U => op.rmw.is_some(),
        BaseSet::A => h.is_acquire(x),
        BaseSet::Q => h.is_acquire_pc(x),
        BaseSet::L => h.is_release(x),
        BaseSet::Ffull => fence && !matches!(op.ann, Ann::Ld | Ann::St),
        BaseSet::Fld => fence && op.ann == Ann::Ld,
        BaseSet::Fst => fence && op.ann == Ann::St,
        BaseSet::Fin => h.is_init(x) && h.finals.iter().any(|&(v, _)| v == x),
    }
}

/// The name an acyclicity part's edges carry: the `let` or base relation
/// it names, else its kind.
pub(crate) fn label(e: &Expr) -> String {
    match e {
        Expr::Named(n, _) => n.clone(),
        Expr::Base(b) => BaseRel::NAMES
            .iter()
            .find(|(_, x)| x == b)
            .map_or("?", |(s, _)| s)
            .to_string(),
        _ => "ob".to_string(),
    }
}
