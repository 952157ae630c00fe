//! Random small histories, in `.hist` text, on which the engines are held
//! to the definitions of [`super::defs`] (the core's unit tests and
//! tests/definitions.rs): writes, reads of written values (now and then of
//! none), RMWs, fences of every kind, ARMv8 annotations, timed threads and
//! `@final` observations, each when asked.

use crate::gen::Rng;
use crate::history::History;

/// What a random history may hold.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// At most this many threads and operations per thread.
    pub threads: usize,
    pub ops: usize,
    pub vars: usize,
    /// `R.acq`, `W.rel`, `U.acqrel`, `F.ld`, `F.st` and kin.
    pub annotations: bool,
    /// Interval-order threads (ticks).
    pub timed: bool,
    /// `@final` lines.
    pub finals: bool,
    /// Reads of values never written, now and then.
    pub thin_air: bool,
    /// The probability that a read returns any value written to its
    /// variable rather than what the machine holds.
    pub stale: f64,
}

/// A random history of shape `s` from `seed`, and its text.
pub fn history(s: Sample, seed: u64) -> (History, String) {
    let text = text(s, seed);
    let raw = memconform_parsers::hist::parse_hist(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e:?} in\n{text}"));
    let h = History::from_raw(&raw[0], 0).unwrap_or_else(|e| panic!("{e:?} in\n{text}"));
    (h, text)
}

/// The text of [`history`]: the threads run on a machine with a store
/// buffer per thread (per thread and variable, for some histories) that
/// drains at random, full fences and RMWs draining it; a read returns, with
/// probability `stale`, any value written to its variable instead.
pub fn text(s: Sample, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let vars = ["x", "y", "z"];
    let nv = 1 + rng.below(s.vars.min(3));
    let per_var = rng.chance(0.5);
    let threads = 1 + rng.below(s.threads);
    let mut left: Vec<usize> = (0..threads).map(|_| rng.below(s.ops + 1)).collect();
    let timed: Vec<bool> = (0..threads).map(|_| s.timed && rng.chance(0.4)).collect();
    let mut lines: Vec<String> = (0..threads).map(|t| format!("t{t}:")).collect();
    // values written per variable (0: the initial value), memory, buffers
    let mut written: Vec<Vec<u64>> = vec![vec![0]; nv];
    let mut mem = vec![0u64; nv];
    let mut buffers: Vec<Vec<(usize, u64)>> = vec![Vec::new(); threads];
    let mut used = vec![false; nv];
    let mut next = 0u64;
    let mut step = 0u64;
    let ann = |rng: &mut Rng, choices: &[&'static str]| -> &'static str {
        if s.annotations && rng.chance(0.3) {
            choices[rng.below(choices.len())]
        } else {
            ""
        }
    };
    loop {
        step += 1;
        let live: Vec<usize> = (0..threads).filter(|&t| left[t] > 0).collect();
        let buffered: Vec<usize> = (0..threads).filter(|&t| !buffers[t].is_empty()).collect();
        if live.is_empty() && buffered.is_empty() {
            break;
        }
        if !buffered.is_empty() && (live.is_empty() || rng.chance(0.35)) {
            let t = buffered[rng.below(buffered.len())];
            let (x, v) = crate::gen::drain(&mut buffers[t], per_var, &mut rng);
            mem[x] = v;
            continue;
        }
        let t = live[rng.below(live.len())];
        left[t] -= 1;
        let x = rng.below(nv);
        let read = |rng: &mut Rng, buffers: &[Vec<(usize, u64)>], mem: &[u64]| -> u64 {
            if s.thin_air && rng.chance(0.03) {
                999
            } else if rng.chance(s.stale) {
                written[x][rng.below(written[x].len())]
            } else {
                let own = buffers[t].iter().rev().find(|&&(y, _)| y == x);
                own.map_or(mem[x], |&(_, v)| v)
            }
        };
        let drain = |buffers: &mut Vec<Vec<(usize, u64)>>, mem: &mut Vec<u64>| {
            for (y, v) in buffers[t].drain(..) {
                mem[y] = v;
            }
        };
        let op = match rng.below(8) {
            0..=2 => {
                next += 1;
                buffers[t].push((x, next));
                written[x].push(next);
                format!("W{}({},{next})", ann(&mut rng, &[".rel"]), vars[x])
            }
            3..=5 => {
                let v = read(&mut rng, &buffers, &mem);
                let a = ann(&mut rng, &[".acq", ".acqpc"]);
                format!("R{a}({},{v})", vars[x])
            }
            6 => {
                drain(&mut buffers, &mut mem);
                let v = read(&mut rng, &buffers, &mem);
                next += 1;
                mem[x] = next;
                written[x].push(next);
                let a = ann(&mut rng, &[".acq", ".rel", ".acqrel"]);
                format!("U{a}({},{v},{next})", vars[x])
            }
            _ => {
                let a = ann(&mut rng, &[".ld", ".st"]);
                if a.is_empty() {
                    drain(&mut buffers, &mut mem);
                }
                format!("F{a}")
            }
        };
        used[x] |= !op.starts_with('F');
        let line = &mut lines[t];
        line.push(' ');
        line.push_str(&op);
        if timed[t] {
            let end = step + rng.below(4) as u64;
            line.push_str(&format!("@{step}-{end}"));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    let last = (0..nv).rfind(|&x| used[x]);
    if let Some(x) = last.filter(|_| s.finals && rng.chance(0.4)) {
        let v = if rng.chance(0.7) {
            mem[x]
        } else {
            written[x][rng.below(written[x].len())]
        };
        out.push_str(&format!("@final {}={v}\n", vars[x]));
    }
    out
}
