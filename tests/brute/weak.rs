//! Annotated histories (ARMv8's acquire, RCpc acquire and release accesses,
//! fences by kind) decided for RMO and ARMv8 by enumerating every store order
//! `co` (per variable a permutation of its writes, init first) and checking
//! the axioms directly, each relation built whole from its definition:
//!
//! * RMO (consistency-framework-2k §4.2 with `dp = ∅`, plus fences): RMW
//!   atomicity, the finals, `acyclic(po-loc \ (R×R) ∪ rf ∪ co ∪ fr)` and
//!   `acyclic(po-rmo ∪ rfe ∪ co ∪ fr)`, `po-rmo` the pairs `a po f po b`
//!   with a fence `f` that orders `a`'s kind before `b`'s.
//! * ARMv8 (herd7's aarch64.cat without `dob`): atomicity as `rmw & (fre;
//!   coe)` empty, the finals, `acyclic(po-loc ∪ rf ∪ co ∪ fr)` and
//!   `acyclic(obs ∪ aob ∪ bob)` with `obs = rfe ∪ coe ∪ fre`, `aob = rmw ∪
//!   rmw;rfi`, and `bob` with every line of the cat file, `po; [L]; coi`
//!   included as written (the crate uses an equivalent shortcut).
//!
//! std-only; shares nothing with the crate under test.

use super::SplitMix64;

/// An access's annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WAnn {
    Plain,
    /// LDAR (on U: LDAXR)
    Acq,
    /// LDAPR
    AcqPc,
    /// STLR (on U: STLXR)
    Rel,
    /// U only: LDAXR .. STLXR
    AcqRel,
}

/// A fence's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WFence {
    Full,
    Ld,
    St,
}

/// One operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WOp {
    R(usize, u64, WAnn),
    W(usize, u64, WAnn),
    U(usize, u64, u64, WAnn),
    F(WFence),
}

#[derive(Clone, Debug)]
pub struct WHistory {
    pub threads: Vec<Vec<WOp>>,
    pub finals: Vec<(usize, u64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WVerdicts {
    pub rmo: bool,
    pub armv8: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum N {
    Init,
    R,
    W,
    Ur,
    Uw,
    F(WFence),
}

/// The nodes of a history: kind, variable, value, thread (None: init), annotation.
struct Nodes {
    kind: Vec<N>,
    var: Vec<Option<usize>>,
    value: Vec<u64>,
    thread: Vec<Option<usize>>,
    ann: Vec<WAnn>,
}

fn nodes(h: &WHistory) -> Nodes {
    let mut vars: Vec<usize> = h
        .threads
        .iter()
        .flatten()
        .filter_map(|o| match *o {
            WOp::R(x, ..) | WOp::W(x, ..) | WOp::U(x, ..) => Some(x),
            WOp::F(_) => None,
        })
        .collect();
    vars.sort_unstable();
    vars.dedup();
    let mut g = Nodes {
        kind: Vec::new(),
        var: Vec::new(),
        value: Vec::new(),
        thread: Vec::new(),
        ann: Vec::new(),
    };
    for &x in &vars {
        g.kind.push(N::Init);
        g.var.push(Some(x));
        g.value.push(0);
        g.thread.push(None);
        g.ann.push(WAnn::Plain);
    }
    for (t, th) in h.threads.iter().enumerate() {
        for &op in th {
            let mut push = |k: N, x: Option<usize>, v: u64, a: WAnn| {
                g.kind.push(k);
                g.var.push(x);
                g.value.push(v);
                g.thread.push(Some(t));
                g.ann.push(a);
            };
            match op {
                WOp::R(x, v, a) => push(N::R, Some(x), v, a),
                WOp::W(x, v, a) => push(N::W, Some(x), v, a),
                WOp::U(x, o, v, a) => {
                    push(N::Ur, Some(x), o, a);
                    push(N::Uw, Some(x), v, a);
                }
                WOp::F(k) => push(N::F(k), None, 0, WAnn::Plain),
            }
        }
    }
    g
}

type Rel = Vec<Vec<bool>>;

fn acyclic(r: &Rel) -> bool {
    let n = r.len();
    let mut indeg = vec![0usize; n];
    for a in 0..n {
        for b in 0..n {
            if r[a][b] {
                indeg[b] += 1;
            }
        }
    }
    let mut stack: Vec<usize> = (0..n).filter(|&a| indeg[a] == 0).collect();
    let mut seen = 0;
    while let Some(a) = stack.pop() {
        seen += 1;
        for b in 0..n {
            if r[a][b] {
                indeg[b] -= 1;
                if indeg[b] == 0 {
                    stack.push(b);
                }
            }
        }
    }
    seen == n
}

fn next_permutation(p: &mut [usize]) -> bool {
    if p.len() < 2 {
        return false;
    }
    let mut i = p.len() - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        p.reverse();
        return false;
    }
    let mut j = p.len() - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// RMO and ARMv8 by enumerating every store order.
pub fn w_verdicts(h: &WHistory) -> WVerdicts {
    let g = nodes(h);
    let n = g.kind.len();
    let write = |a: usize| matches!(g.kind[a], N::Init | N::W | N::Uw);
    let read = |a: usize| matches!(g.kind[a], N::R | N::Ur);
    let access = |a: usize| g.var[a].is_some();
    let no = WVerdicts {
        rmo: false,
        armv8: false,
    };
    // rf from values
    let mut rf = vec![None; n];
    for r in (0..n).filter(|&r| read(r)) {
        match (0..n).find(|&w| write(w) && g.var[w] == g.var[r] && g.value[w] == g.value[r]) {
            Some(w) => rf[r] = Some(w),
            None => return no,
        }
    }
    for &(x, v) in &h.finals {
        if !(0..n).any(|w| write(w) && g.var[w] == Some(x) && g.value[w] == v) {
            return no;
        }
    }
    let po = |a: usize, b: usize| match (g.thread[a], g.thread[b]) {
        (None, Some(_)) => true,
        (Some(s), Some(t)) => s == t && a < b,
        _ => false,
    };
    let same_thread = |a: usize, b: usize| g.thread[a].is_some() && g.thread[a] == g.thread[b];
    let ext = |a: usize, b: usize| g.thread[a] != g.thread[b];
    let po_loc = |a: usize, b: usize| po(a, b) && access(a) && g.var[a] == g.var[b];
    // a fence between a and b of the given kind
    let fence_between = |a: usize, b: usize, k: WFence| {
        g.thread[a].is_some() && (a + 1..b).any(|f| g.kind[f] == N::F(k) && po(a, f) && po(f, b))
    };
    let acq = |a: usize| read(a) && matches!(g.ann[a], WAnn::Acq | WAnn::AcqRel);
    let acq_pc = |a: usize| read(a) && g.ann[a] == WAnn::AcqPc;
    let rel = |a: usize| write(a) && matches!(g.ann[a], WAnn::Rel | WAnn::AcqRel);
    let rmw = |a: usize, b: usize| g.kind[a] == N::Ur && b == a + 1;
    // RMO's po-rmo: a fence orders the pair
    let po_rmo = |a: usize, b: usize| {
        g.thread[a].is_some()
            && access(a)
            && access(b)
            && po(a, b)
            && (fence_between(a, b, WFence::Full)
                || (read(a) && fence_between(a, b, WFence::Ld))
                || (write(a) && write(b) && fence_between(a, b, WFence::St)))
    };
    // ARMv8's bob without the coi line (added per store order below)
    let bob = |a: usize, b: usize| {
        g.thread[a].is_some()
            && access(a)
            && access(b)
            && po(a, b)
            && (fence_between(a, b, WFence::Full)
                || (rel(a) && acq(b))
                || (read(a) && fence_between(a, b, WFence::Ld))
                || acq(a)
                || acq_pc(a)
                || (write(a) && write(b) && fence_between(a, b, WFence::St))
                || rel(b))
    };
    let aob = |a: usize, b: usize| {
        rmw(a, b) || (g.kind[a] == N::Ur && rf[b] == Some(a + 1) && same_thread(a + 1, b))
    };
    // per variable: init and the other writes
    let mut vars: Vec<usize> = (0..n).filter_map(|a| g.var[a]).collect();
    vars.sort_unstable();
    vars.dedup();
    let init_of = |x: usize| (0..n).find(|&a| g.kind[a] == N::Init && g.var[a] == Some(x));
    let mut perms: Vec<Vec<usize>> = vars
        .iter()
        .map(|&x| {
            (0..n)
                .filter(|&a| matches!(g.kind[a], N::W | N::Uw) && g.var[a] == Some(x))
                .collect()
        })
        .collect();
    let mut out = no;
    loop {
        // co as a whole relation: position in its variable's order
        let mut pos = vec![0usize; n];
        let mut last = vec![None; vars.last().map_or(0, |&x| x + 1)];
        for (i, &x) in vars.iter().enumerate() {
            let init = init_of(x).expect("an init per variable");
            pos[init] = 0;
            let mut prev = init;
            for (k, &w) in perms[i].iter().enumerate() {
                pos[w] = k + 1;
                prev = w;
            }
            last[x] = Some(prev);
        }
        let co =
            |a: usize, b: usize| write(a) && write(b) && g.var[a] == g.var[b] && pos[a] < pos[b];
        let fr = |r: usize, w: usize| read(r) && rf[r].is_some_and(|s| co(s, w));
        let rf_rel = |w: usize, r: usize| rf[r] == Some(w);
        let finals_ok = h.finals.iter().all(|&(x, v)| {
            last.get(x)
                .copied()
                .flatten()
                .is_some_and(|w| g.value[w] == v)
        });
        // RMO atomicity: nothing between an RMW's source and its write
        let atomic_rmo = (0..n).filter(|&a| g.kind[a] == N::Ur).all(|r| {
            let (s, w) = (rf[r].expect("rf"), r + 1);
            !(0..n).any(|c| co(s, c) && co(c, w))
        });
        // ARMv8 atomicity: rmw & (fre; coe) empty
        let atomic_arm = (0..n).filter(|&a| g.kind[a] == N::Ur).all(|r| {
            let w = r + 1;
            !(0..n).any(|c| fr(r, c) && ext(r, c) && co(c, w) && ext(c, w))
        });
        let rel_of = |f: &dyn Fn(usize, usize) -> bool| -> Rel {
            (0..n).map(|a| (0..n).map(|b| f(a, b)).collect()).collect()
        };
        if !out.rmo && atomic_rmo && finals_ok {
            let loc = rel_of(&|a, b| {
                (po_loc(a, b) && !(read(a) && read(b))) || rf_rel(a, b) || co(a, b) || fr(a, b)
            });
            let mm =
                rel_of(&|a, b| po_rmo(a, b) || (rf_rel(a, b) && ext(a, b)) || co(a, b) || fr(a, b));
            if acyclic(&loc) && acyclic(&mm) {
                out.rmo = true;
            }
        }
        if !out.armv8 && atomic_arm && finals_ok {
            let internal = rel_of(&|a, b| po_loc(a, b) || rf_rel(a, b) || co(a, b) || fr(a, b));
            // po; [L]; coi
            let l_coi = |a: usize, b: usize| {
                (0..n).any(|l| {
                    rel(l)
                        && po(a, l)
                        && g.thread[a].is_some()
                        && access(a)
                        && co(l, b)
                        && same_thread(l, b)
                })
            };
            let ob = rel_of(&|a, b| {
                (rf_rel(a, b) && ext(a, b))
                    || (co(a, b) && ext(a, b))
                    || (fr(a, b) && ext(a, b))
                    || aob(a, b)
                    || bob(a, b)
                    || l_coi(a, b)
            });
            if acyclic(&internal) && acyclic(&ob) {
                out.armv8 = true;
            }
        }
        if out.rmo && out.armv8 {
            return out;
        }
        // next combination of per-variable permutations
        let mut i = 0;
        loop {
            if i == perms.len() {
                return out;
            }
            if next_permutation(&mut perms[i]) {
                break;
            }
            i += 1;
        }
    }
}

/// A deterministic random annotated history: up to `max_ops` ops over 1..=4
/// threads and 1..=3 variables; ~15% fences (full, ld, st alike), ~12% RMWs,
/// reads and RMWs return 0 or a written value (rarely a never-written one),
/// about a third of the accesses annotated, and sometimes a final.
pub fn w_random_history(seed: u64, max_ops: usize) -> WHistory {
    let mut rng = SplitMix64::new(seed ^ 0xA4C8_0000_0000_0008);
    let n_threads = 1 + rng.below(4) as usize;
    let n_vars = 1 + rng.below(3) as usize;
    let n_ops = {
        let a = 1 + rng.below(max_ops as u64) as usize;
        let b = 1 + rng.below(max_ops as u64) as usize;
        a.max(b)
    };
    w_shape(&mut rng, n_threads, n_vars, n_ops, 15, 3)
}

/// Random operations: `fences` percent fences, an access annotated with
/// probability `1/annotate`; read values random.
fn w_shape(
    rng: &mut SplitMix64,
    n_threads: usize,
    n_vars: usize,
    n_ops: usize,
    fences: u64,
    annotate: u64,
) -> WHistory {
    const TBD: u64 = u64::MAX;
    let mut threads: Vec<Vec<WOp>> = vec![Vec::new(); n_threads];
    let mut written = vec![0u64; n_vars];
    for _ in 0..n_ops {
        let t = rng.below(n_threads as u64) as usize;
        let x = rng.below(n_vars as u64) as usize;
        let roll = rng.below(100);
        let annotate = rng.below(annotate) == 0;
        let op = if roll < fences {
            WOp::F([WFence::Full, WFence::Ld, WFence::St][rng.below(3) as usize])
        } else if roll < fences + 12 {
            written[x] += 1;
            let a = if annotate {
                [WAnn::Acq, WAnn::Rel, WAnn::AcqRel][rng.below(3) as usize]
            } else {
                WAnn::Plain
            };
            WOp::U(x, TBD, written[x], a)
        } else if roll < fences + 47 {
            written[x] += 1;
            WOp::W(
                x,
                written[x],
                if annotate { WAnn::Rel } else { WAnn::Plain },
            )
        } else {
            let a = if annotate {
                [WAnn::Acq, WAnn::AcqPc][rng.below(2) as usize]
            } else {
                WAnn::Plain
            };
            WOp::R(x, TBD, a)
        };
        threads[t].push(op);
    }
    let pick = |rng: &mut SplitMix64, x: usize| -> u64 {
        if rng.below(60) == 0 {
            written[x] + 1
        } else {
            rng.below(written[x] + 1)
        }
    };
    for th in threads.iter_mut() {
        for op in th.iter_mut() {
            match op {
                WOp::R(x, v, _) | WOp::U(x, v, _, _) => *v = pick(rng, *x),
                _ => {}
            }
        }
    }
    threads.retain(|t| !t.is_empty());
    let mut finals = Vec::new();
    if rng.below(10) < 2 {
        let mut used: Vec<usize> = threads
            .iter()
            .flatten()
            .filter_map(|o| match *o {
                WOp::W(x, ..) | WOp::U(x, ..) => Some(x),
                _ => None,
            })
            .collect();
        used.sort_unstable();
        used.dedup();
        if let Some(&x) = used.first() {
            finals.push((x, rng.below(written[x] + 1)));
        }
    }
    WHistory { threads, finals }
}

fn ann_text(a: WAnn) -> &'static str {
    match a {
        WAnn::Plain => "",
        WAnn::Acq => ".acq",
        WAnn::AcqPc => ".acqpc",
        WAnn::Rel => ".rel",
        WAnn::AcqRel => ".acqrel",
    }
}

/// As `.hist` text (variables v0, v1, …; threads t0, t1, …). With
/// `partial_fences` false, `F.ld` and `F.st` are left out.
pub fn w_to_hist(h: &WHistory, partial_fences: bool) -> String {
    let mut out = String::new();
    for &(x, v) in &h.finals {
        out.push_str(&format!("@final v{x}={v}\n"));
    }
    for (t, th) in h.threads.iter().enumerate() {
        out.push_str(&format!("t{t}:"));
        for op in th {
            let tok = match *op {
                WOp::R(x, v, a) => format!("R{}(v{x},{v})", ann_text(a)),
                WOp::W(x, v, a) => format!("W{}(v{x},{v})", ann_text(a)),
                WOp::U(x, o, v, a) => format!("U{}(v{x},{o},{v})", ann_text(a)),
                WOp::F(WFence::Full) => "F".into(),
                WOp::F(WFence::Ld) if partial_fences => "F.ld".into(),
                WOp::F(WFence::St) if partial_fences => "F.st".into(),
                WOp::F(_) => continue,
            };
            out.push(' ');
            out.push_str(&tok);
        }
        out.push('\n');
    }
    out
}

/// A parsed history: its name, its `@expect` verdicts, its operations.
pub type WFixture = (String, Vec<(String, bool)>, WHistory);

/// Reads the thread lines and `@final`/`@expect` of `.hist` text in the
/// annotated syntax (histories separated by `---`): name, expectations, history.
pub fn w_parse(text: &str) -> Vec<WFixture> {
    let mut out = Vec::new();
    for chunk in text.split("\n---") {
        let mut vars: Vec<String> = Vec::new();
        let mut var = |s: &str| -> usize {
            match vars.iter().position(|v| v == s) {
                Some(i) => i,
                None => {
                    vars.push(s.to_string());
                    vars.len() - 1
                }
            }
        };
        let (mut name, mut expect, mut threads, mut finals) =
            (String::new(), Vec::new(), Vec::new(), Vec::new());
        for line in chunk.lines() {
            let line = line.split('#').next().unwrap().trim();
            if let Some(rest) = line.strip_prefix("@name") {
                name = rest.trim().to_string();
            } else if let Some(rest) = line.strip_prefix("@expect") {
                for e in rest.split_whitespace() {
                    let (m, v) = e.split_once('=').unwrap();
                    expect.push((m.to_string(), v == "yes"));
                }
            } else if let Some(rest) = line.strip_prefix("@final") {
                for e in rest.split_whitespace() {
                    let (x, v) = e.split_once('=').unwrap();
                    finals.push((x.to_string(), v.parse::<u64>().unwrap()));
                }
            } else if let Some((_, ops)) = line.split_once(':') {
                let mut th = Vec::new();
                for tok in ops.split_whitespace() {
                    let (head, args) = tok.split_once('(').unwrap_or((tok, ""));
                    let (letter, suffix) = head.split_at(1);
                    let args: Vec<&str> = args.trim_end_matches(')').split(',').collect();
                    let ann = match suffix {
                        "" => WAnn::Plain,
                        ".acq" => WAnn::Acq,
                        ".acqpc" => WAnn::AcqPc,
                        ".rel" => WAnn::Rel,
                        ".acqrel" => WAnn::AcqRel,
                        ".ld" | ".st" => WAnn::Plain,
                        s => panic!("annotation {s}"),
                    };
                    let num = |i: usize| args[i].parse::<u64>().unwrap();
                    th.push(match letter {
                        "R" => WOp::R(var(args[0]), num(1), ann),
                        "W" => WOp::W(var(args[0]), num(1), ann),
                        "U" => WOp::U(var(args[0]), num(1), num(2), ann),
                        _ => WOp::F(match suffix {
                            ".ld" => WFence::Ld,
                            ".st" => WFence::St,
                            _ => WFence::Full,
                        }),
                    });
                }
                threads.push(th);
            }
        }
        if threads.is_empty() {
            continue;
        }
        let finals = finals.into_iter().map(|(x, v)| (var(&x), v)).collect();
        out.push((name, expect, WHistory { threads, finals }));
    }
    out
}

/// A random annotated history whose reads come from running it: the
/// shape of [`w_random_history`], then its operations executed one at a
/// time on one memory in a random order that keeps each thread's order on
/// each variable (an RMW in one step) — per location coherent, so mostly
/// internally visible, and reordered across fences and annotations about
/// two times in three (otherwise in program order: SC). Sometimes one read
/// value is changed afterwards, and the final memory is observed.
pub fn w_random_run(seed: u64, max_ops: usize) -> WHistory {
    let mut rng = SplitMix64::new(seed ^ 0x00E1_EC07_ED00_0001);
    let mut h = if rng.below(2) == 0 {
        let n_threads = 2 + rng.below(2) as usize;
        let n_ops = (max_ops / 2 + rng.below(max_ops as u64 / 2 + 1) as usize).max(2);
        w_shape(&mut rng, n_threads, 2, n_ops, 25, 2)
    } else {
        w_litmus_shape(&mut rng, max_ops)
    };
    let in_order = rng.below(3) == 0;
    let n_vars = 1 + h
        .threads
        .iter()
        .flatten()
        .filter_map(|o| match *o {
            WOp::R(x, ..) | WOp::W(x, ..) | WOp::U(x, ..) => Some(x),
            WOp::F(_) => None,
        })
        .max()
        .unwrap_or(0);
    let mut memory = vec![0u64; n_vars];
    let mut done: Vec<Vec<bool>> = h.threads.iter().map(|t| vec![false; t.len()]).collect();
    let var_of = |op: &WOp| match *op {
        WOp::R(x, ..) | WOp::W(x, ..) | WOp::U(x, ..) => Some(x),
        WOp::F(_) => None,
    };
    loop {
        // the operations that may run now
        let mut ready = Vec::new();
        for (t, th) in h.threads.iter().enumerate() {
            for (i, op) in th.iter().enumerate() {
                if done[t][i] {
                    continue;
                }
                let blocked = (0..i).any(|j| {
                    !done[t][j]
                        && (in_order || (var_of(op).is_some() && var_of(&th[j]) == var_of(op)))
                });
                if !blocked {
                    ready.push((t, i));
                }
            }
        }
        if ready.is_empty() {
            break;
        }
        // half the time the latest ready operation: the most reordering
        let (t, i) = if !in_order && rng.below(2) == 0 {
            *ready.iter().max_by_key(|&&(t, i)| (i, t)).expect("ready")
        } else {
            ready[rng.below(ready.len() as u64) as usize]
        };
        done[t][i] = true;
        match &mut h.threads[t][i] {
            WOp::R(x, v, _) => *v = memory[*x],
            WOp::W(x, v, _) => memory[*x] = *v,
            WOp::U(x, old, new, _) => {
                *old = memory[*x];
                memory[*x] = *new;
            }
            WOp::F(_) => {}
        }
    }
    if rng.below(8) == 0 {
        // one read value changed: mostly a violation of every model
        let reads: Vec<(usize, usize)> = h
            .threads
            .iter()
            .enumerate()
            .flat_map(|(t, th)| {
                th.iter()
                    .enumerate()
                    .filter(|(_, o)| matches!(o, WOp::R(..)))
                    .map(move |(i, _)| (t, i))
            })
            .collect();
        if let Some(&(t, i)) = reads.get(rng.below(reads.len().max(1) as u64) as usize) {
            if let WOp::R(x, _, a) = h.threads[t][i] {
                let written = h_written(&h.threads, x);
                h.threads[t][i] = WOp::R(x, rng.below(written + 1), a);
            }
        }
    }
    h.finals.clear();
    for x in 0..n_vars {
        if memory[x] != 0 && rng.below(2) == 0 {
            h.finals.push((x, memory[x]));
        }
    }
    h
}

/// The largest value written to `x` (values are 1, 2, … per variable).
fn h_written(threads: &[Vec<WOp>], x: usize) -> u64 {
    threads
        .iter()
        .flatten()
        .filter_map(|o| match *o {
            WOp::W(y, v, _) | WOp::U(y, _, v, _) if y == x => Some(v),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A litmus-like shape: 2 to 4 threads, each two or three accesses that
/// alternate between two variables, with a random fence (or none) between
/// consecutive ones and random annotations: the shapes of MP, SB, LB, 2+2W,
/// WRC, IRIW and their fenced variants. Read values random.
fn w_litmus_shape(rng: &mut SplitMix64, max_ops: usize) -> WHistory {
    let n_threads = 2 + rng.below(3) as usize;
    let mut written = [0u64; 2];
    let mut threads = Vec::new();
    let mut ops = 0;
    for t in 0..n_threads {
        let mut th = Vec::new();
        let accesses = 1 + rng.below(if ops + 3 <= max_ops { 3 } else { 2 }) as usize;
        let first = (t + rng.below(2) as usize) % 2;
        for k in 0..accesses {
            if k > 0 {
                match rng.below(6) {
                    0 => th.push(WOp::F(WFence::Full)),
                    1 => th.push(WOp::F(WFence::Ld)),
                    2 => th.push(WOp::F(WFence::St)),
                    _ => {}
                }
            }
            let x = (first + k) % 2;
            let ann = rng.below(3) == 0;
            th.push(match rng.below(9) {
                0 => {
                    written[x] += 1;
                    let a =
                        [WAnn::Plain, WAnn::Acq, WAnn::Rel, WAnn::AcqRel][rng.below(4) as usize];
                    WOp::U(x, 0, written[x], a)
                }
                1..=4 => {
                    written[x] += 1;
                    WOp::W(x, written[x], if ann { WAnn::Rel } else { WAnn::Plain })
                }
                _ => {
                    let a = match (ann, rng.below(2)) {
                        (false, _) => WAnn::Plain,
                        (true, 0) => WAnn::Acq,
                        (true, _) => WAnn::AcqPc,
                    };
                    WOp::R(x, 0, a)
                }
            });
            ops += 1;
        }
        threads.push(th);
    }
    WHistory {
        threads,
        finals: Vec::new(),
    }
}
