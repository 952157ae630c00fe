//! Synthetic histories from simulated memories, for benchmarks and tests when
//! no gem5 run is at hand: random programs executed by an SC memory (random
//! interleaving) with unique written values.

use memconform_parsers::hist::RawOpKind;

use crate::history::History;

/// SplitMix64: small, fast, deterministic.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

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
            let i = match memory {
                Memory::Tso => 0,
                // PSO: the oldest write of some buffered variable
                _ => {
                    let (x, _) = buffers[t][rng.below(buffers[t].len())];
                    buffers[t]
                        .iter()
                        .position(|&(y, _)| y == x)
                        .expect("buffered")
                }
            };
            let (x, v) = buffers[t].remove(i);
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

/// A history of [`threads`].
pub fn history(memory: Memory, shape: Shape, seed: u64) -> History {
    History::from_threads(&threads(memory, shape, seed)).expect("generated values are unique")
}

/// A history of [`sc_threads`].
pub fn sc_history(shape: Shape, seed: u64) -> History {
    History::from_threads(&sc_threads(shape, seed)).expect("generated values are unique")
}
