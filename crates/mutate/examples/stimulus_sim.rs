//! The search strategies of `memconform stimulus` on synthetic protocols
//! (no gem5): each of T transitions needs a conjunction of 0–3 knob values
//! and, given them, is taken by a run with a probability drawn per
//! transition (seeded per run, as gem5's seed decides a run's races). Prints,
//! per strategy, the mean share of reachable transitions taken after B/4,
//! B/2 and B runs over many synthetic protocols.
//!
//!   cargo run --release -p memconform-mutate --example stimulus_sim [PROTOCOLS] [BUDGET]

use std::collections::BTreeSet;

use memconform_mutate::stimulus::{Chooser, Knob, Space, Strategy, Taken};
use memconform_parsers::rng::Rng;

struct Transition {
    needs: Vec<(usize, usize)>,
    p: f64,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let protocols: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let budget: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(40);
    let sizes = [5usize, 4, 3, 2, 2, 3];
    let space = Space {
        knobs: sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| Knob {
                name: format!("k{i}"),
                values: (0..n).map(|v| v.to_string()).collect(),
            })
            .collect(),
        follow_up: Default::default(),
    };
    let marks = [budget / 4, budget / 2, budget];
    for strategy in [Strategy::Random, Strategy::Bandit] {
        let mut share = vec![0.0; marks.len()];
        for proto in 0..protocols {
            let mut rng = Rng::new(1000 + proto);
            // 150 transitions: a third need nothing, the rest 1-3 knob values
            let ts: Vec<Transition> = (0..150)
                .map(|i| {
                    let k = if i < 50 { 0 } else { 1 + rng.below(3) };
                    let mut needs = Vec::new();
                    for _ in 0..k {
                        let knob = rng.below(sizes.len());
                        if needs.iter().all(|&(a, _)| a != knob) {
                            needs.push((knob, rng.below(sizes[knob])));
                        }
                    }
                    Transition {
                        needs,
                        p: 0.05 + 0.95 * rng.below(1000) as f64 / 1000.0,
                    }
                })
                .collect();
            let reachable = ts.len() as f64;
            let mut c = Chooser::new(&space, strategy, proto + 1);
            let mut taken = Taken::default();
            let none = BTreeSet::new();
            let mut run = 0;
            let mut m = 0;
            while run < budget {
                let batch: Vec<_> = (0..2).map(|_| c.choose()).collect();
                for s in batch {
                    run += 1;
                    let mut seed_rng = Rng::new(proto * 1_000_003 + run as u64);
                    let fired: BTreeSet<String> = ts
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| t.needs.iter().all(|&(k, v)| s[k] == v))
                        .filter(|(_, t)| seed_rng.chance(t.p))
                        .map(|(i, _)| format!("M.S.E{i}"))
                        .collect();
                    let g = taken.add(&fired, &none);
                    c.learn(&s, &g);
                    while m < marks.len() && run == marks[m] {
                        share[m] += taken.runs_taking.len() as f64 / reachable;
                        m += 1;
                    }
                }
            }
        }
        let cells: Vec<String> = marks
            .iter()
            .zip(&share)
            .map(|(b, s)| format!("{b} runs {:.1}%", 100.0 * s / protocols as f64))
            .collect();
        println!("{:7} {}", strategy.name(), cells.join("  "));
    }
}
