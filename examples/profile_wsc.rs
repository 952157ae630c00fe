//! Runs one model many times on generated SC histories (for profilers):
//! `cargo run --release --example profile_wsc -- wsc 16 50 200`.
use memconform::gen::{sc_history, Shape};
use memconform::models::Model;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let model = Model::from_name(args.get(1).map_or("wsc", |s| s)).expect("model name");
    let threads = args.get(2).map_or(16, |s| s.parse().unwrap());
    let ops = args.get(3).map_or(50, |s| s.parse().unwrap());
    let reps: usize = args.get(4).map_or(100, |s| s.parse().unwrap());
    let shape = Shape {
        threads,
        ops_per_thread: ops,
        vars: 8,
        write_ratio: 0.5,
    };
    let hs: Vec<_> = (0..8).map(|s| sc_history(shape, s)).collect();
    let t = std::time::Instant::now();
    let mut ok = 0;
    for i in 0..reps {
        ok += model.check(&hs[i % hs.len()]).is_ok() as usize;
    }
    let per = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{model} {threads}x{ops}: {:.3} ms/history ({ok}/{reps} consistent)",
        per * 1e3
    );
}
