//! Shared test glue: the brute-force oracle's histories as memconform histories.

use memconform::history::History;
use memconform_parsers::hist::RawOpKind;

use crate::brute::{BHistory, Kind};

/// The same threads, variables named `v0, v1, ...`, threads `t0, t1, ...`.
pub fn to_history(b: &BHistory) -> History {
    let threads: Vec<Vec<RawOpKind>> = b
        .threads
        .iter()
        .map(|t| {
            t.iter()
                .map(|&(k, v, value)| {
                    let var = format!("v{v}");
                    match k {
                        Kind::R => RawOpKind::Read { var, value },
                        Kind::W => RawOpKind::Write { var, value },
                    }
                })
                .collect()
        })
        .collect();
    History::from_threads(&threads).expect("random histories are valid")
}
