//! Synthetic histories from simulated memories, for benchmarks and tests when
//! no gem5 run is at hand: random programs executed by an SC memory (random
//! interleaving) with unique written values.

use memconform_parsers::hist::RawOpKind;

use crate::history::History;

pub use memconform_parsers::rng::Rng;

/// The shape of a random program.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub threads: usize,
    pub ops_per_thread: usize,
    pub vars: usize,
    /// Probability that an operation writes.
    pub write_ratio: f64,
}

/// The threads of a random program run on a sequentially consistent memory:
/// at each step a random thread with work left performs its next operation
/// atomically; writes write fresh values `1, 2, ...` per variable.
pub fn sc_threads(shape: Shape, seed: u64) -> Vec<Vec<RawOpKind>> {
    let mut rng = Rng::new(seed);
    let mut memory = vec![0u64; shape.vars];
    let mut next_value = vec![1u64; shape.vars];
    let mut threads: Vec<Vec<RawOpKind>> =
        vec![Vec::with_capacity(shape.ops_per_thread); shape.threads];
    let mut live: Vec<usize> = (0..shape.threads)
        .filter(|_| shape.ops_per_thread > 0)
        .collect();
    while !live.is_empty() {
        let i = rng.below(live.len());
        let t = live[i];
        let x = rng.below(shape.vars);
        let var = format!("x{x}");
        if rng.chance(shape.write_ratio) {
            let value = next_value[x];
            next_value[x] += 1;
            memory[x] = value;
            threads[t].push(RawOpKind::Write { var, value });
        } else {
            threads[t].push(RawOpKind::Read {
                var,
                value: memory[x],
            });
        }
        if threads[t].len() == shape.ops_per_thread {
            live.swap_remove(i);
        }
    }
    threads
}

/// The memory a random program runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memory {
    /// one atomic memory (sequential consistency)
    Sc,
    /// a FIFO store buffer per thread, reads served from the own buffer first
    Tso,
    /// a FIFO store buffer per thread and variable
    Pso,
}

/// The threads of a random program run on `memory`: at each step either a
/// random thread issues its next operation, or (TSO/PSO) a random buffered
/// write drains to memory; writes write fresh values `1, 2, ...` per variable.
pub fn threads(memory: Memory, shape: Shape, seed: u64) -> Vec<Vec<RawOpKind>> {
    if memory == Memory::Sc {
        return sc_threads(shape, seed);
    }
    let mut rng = Rng::new(seed);
    let mut mem = vec![0u64; shape.vars];
    let mut next_value = vec![1u64; shape.vars];
    let mut buffers: Vec<Vec<(usize, u64)>> = vec![Vec::new(); shape.threads];
    let mut out: Vec<Vec<RawOpKind>> =
        vec![Vec::with_capacity(shape.ops_per_thread); shape.threads];
    loop {
        let live: Vec<usize> = (0..shape.threads)
            .filter(|&t| out[t].len() < shape.ops_per_thread)
            .collect();
        let buffered: Vec<usize> = (0..shape.threads)
            .filter(|&t| !buffers[t].is_empty())
            .collect();
        if live.is_empty() && buffered.is_empty() {
            return out;
        }
        if !buffered.is_empty() && (live.is_empty() || rng.chance(0.4)) {
            let t = buffered[rng.below(buffered.len())];
            let (x, v) = drain(&mut buffers[t], memory != Memory::Tso, &mut rng);
            mem[x] = v;
            continue;
        }
        let t = live[rng.below(live.len())];
        let x = rng.below(shape.vars);
        let var = format!("x{x}");
        if rng.chance(shape.write_ratio) {
            let value = next_value[x];
            next_value[x] += 1;
            buffers[t].push((x, value));
            out[t].push(RawOpKind::Write { var, value });
        } else {
            let value = buffers[t]
                .iter()
                .rev()
                .find(|&&(y, _)| y == x)
                .map_or(mem[x], |&(_, v)| v);
            out[t].push(RawOpKind::Read { var, value });
        }
    }
}

/// Makes one read return a stale value: another value written to its
/// variable, or 0. Returns whether a read was changed.
pub fn inject_stale_read(program: &mut [Vec<RawOpKind>], rng: &mut Rng) -> bool {
    let mut written: std::collections::HashMap<String, Vec<u64>> = std::collections::HashMap::new();
    for op in program.iter().flatten() {
        if let RawOpKind::Write { var, value } = op {
            written.entry(var.clone()).or_default().push(*value);
        }
    }
    let reads: Vec<(usize, usize)> = program
        .iter()
        .enumerate()
        .flat_map(|(t, ops)| {
            ops.iter()
                .enumerate()
                .filter(|(_, o)| matches!(o, RawOpKind::Read { .. }))
                .map(move |(i, _)| (t, i))
        })
        .collect();
    if reads.is_empty() {
        return false;
    }
    let (t, i) = reads[rng.below(reads.len())];
    let RawOpKind::Read { var, value } = &mut program[t][i] else {
        unreachable!("a read")
    };
    let mut choices: Vec<u64> = written.get(var.as_str()).cloned().unwrap_or_default();
    choices.push(0);
    choices.retain(|v| v != value);
    if choices.is_empty() {
        return false;
    }
    *value = choices[rng.below(choices.len())];
    true
}

/// `program` as one axe trace (CTSRD-CHERI/axe's format): `comments` first as
/// `#` lines, then every operation of thread `t` as a line `t: ...`, thread
/// by thread in program order, then `check`. Variable `xN` is location
/// `M[N]`; any other variable name gets the next free location, in order of
/// first appearance. Reads are `M[a] == v`, writes `M[a] := v`, RMWs
/// `{ M[a] == old; M[a] := new }` and fences `sync`.
pub fn axe_trace(comments: &[String], program: &[Vec<RawOpKind>]) -> String {
    use std::collections::HashMap;
    use std::fmt::Write as _;

    fn var_of(op: &RawOpKind) -> Option<&str> {
        match op {
            RawOpKind::Read { var, .. }
            | RawOpKind::Write { var, .. }
            | RawOpKind::Rmw { var, .. } => Some(var),
            RawOpKind::Fence => None,
        }
    }
    /// `N` of `xN`, written canonically (`x01` is another variable than `x1`).
    fn numbered(var: &str) -> Option<u64> {
        let digits = var.strip_prefix('x')?;
        let n: u64 = digits.parse().ok()?;
        (n.to_string() == digits).then_some(n)
    }
    let vars = || program.iter().flatten().filter_map(var_of);
    let mut next = vars().filter_map(numbered).max().map_or(0, |n| n + 1);
    let mut others: HashMap<&str, u64> = HashMap::new();
    for var in vars().filter(|v| numbered(v).is_none()) {
        others.entry(var).or_insert_with(|| {
            next += 1;
            next - 1
        });
    }
    let location = |var: &str| numbered(var).unwrap_or_else(|| others[var]);

    let mut out = String::new();
    for c in comments {
        for line in c.lines() {
            let _ = writeln!(out, "# {line}");
        }
    }
    for (t, ops) in program.iter().enumerate() {
        for op in ops {
            let _ = match op {
                RawOpKind::Read { var, value } => {
                    writeln!(out, "{t}: M[{}] == {value}", location(var))
                }
                RawOpKind::Write { var, value } => {
                    writeln!(out, "{t}: M[{}] := {value}", location(var))
                }
                RawOpKind::Rmw { var, old, new } => {
                    let a = location(var);
                    writeln!(out, "{t}: {{ M[{a}] == {old}; M[{a}] := {new} }}")
                }
                RawOpKind::Fence => writeln!(out, "{t}: sync"),
            };
        }
    }
    out.push_str("check\n");
    out
}

/// A history of [`threads`].
pub fn history(memory: Memory, shape: Shape, seed: u64) -> History {
    History::from_threads(&threads(memory, shape, seed)).expect("generated values are unique")
}

/// A history of [`sc_threads`].
pub fn sc_history(shape: Shape, seed: u64) -> History {
    History::from_threads(&sc_threads(shape, seed)).expect("generated values are unique")
}

/// The write a store buffer (`(variable, value)` pairs, oldest first)
/// drains next, taken out of it: its oldest (TSO: one FIFO), or with
/// `per_var` the oldest write of a variable drawn among those buffered
/// (PSO: one FIFO per variable).
pub(crate) fn drain(buffer: &mut Vec<(usize, u64)>, per_var: bool, rng: &mut Rng) -> (usize, u64) {
    let i = match per_var {
        false => 0,
        true => {
            let (x, _) = buffer[rng.below(buffer.len())];
            buffer.iter().position(|&(y, _)| y == x).expect("buffered")
        }
    };
    buffer.remove(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use memconform_parsers::axe::parse_axe;

    #[test]
    fn axe_trace_reads_back() {
        let w = |var: &str, value| RawOpKind::Write {
            var: var.into(),
            value,
        };
        let r = |var: &str, value| RawOpKind::Read {
            var: var.into(),
            value,
        };
        let program = vec![
            vec![w("x3", 1), RawOpKind::Fence, r("flag", 0), w("x01", 2)],
            vec![
                RawOpKind::Rmw {
                    var: "flag".into(),
                    old: 0,
                    new: 1,
                },
                r("x3", 1),
            ],
        ];
        let text = axe_trace(&["gen-sc-0\nseed 0".into()], &program);
        assert_eq!(
            text,
            "# gen-sc-0\n# seed 0\n0: M[3] := 1\n0: sync\n0: M[4] == 0\n0: M[5] := 2\n\
             1: { M[4] == 0; M[4] := 1 }\n1: M[3] == 1\ncheck\n"
        );
        let back = parse_axe(text.as_bytes()).unwrap();
        assert_eq!(back.len(), 1);
        let kinds: Vec<Vec<RawOpKind>> = back[0]
            .threads
            .iter()
            .map(|t| t.ops.iter().map(|o| o.kind.clone()).collect())
            .collect();
        let rename = |v: &str| match v {
            "flag" => "m4",
            "x01" => "m5",
            "x3" => "m3",
            _ => unreachable!(),
        };
        let renamed: Vec<Vec<RawOpKind>> = program
            .iter()
            .map(|ops| {
                ops.iter()
                    .map(|op| match op {
                        RawOpKind::Read { var, value } => r(rename(var), *value),
                        RawOpKind::Write { var, value } => w(rename(var), *value),
                        RawOpKind::Rmw { var, old, new } => RawOpKind::Rmw {
                            var: rename(var).into(),
                            old: *old,
                            new: *new,
                        },
                        RawOpKind::Fence => RawOpKind::Fence,
                    })
                    .collect()
            })
            .collect();
        assert_eq!(kinds, renamed);
    }
}
