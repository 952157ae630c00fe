//! Relations over `0..n`: dense bit matrices, their algebra (herd7's `.cat`
//! operators, [`algebra`]), closure, incremental reachability, shortest
//! labelled cycles, and the sparse frontiers of [`chains`]. This is the hot
//! path: rows are `u64` words, every set operation is word-parallel, and
//! nothing here allocates per edge. It knows nothing of histories or models:
//! elements are indices, sets are bit rows, and labels (of certificate
//! edges) are the caller's type.

pub mod algebra;
mod bits;
pub mod chains;
mod cycle;
mod matrix;
mod reach;

pub use algebra::{
    acyclic, acyclic_explained, cycle_through, irreflexive_seq, plus_of, plus_of_until, union_of,
    Cycle, Derived, Fixpoint, Labelled,
};
pub use bits::{iter_ones, word_ones, BitSet};
pub use cycle::{shortest_cycle, shortest_cycle_through, Edge};
pub use matrix::BitMatrix;
pub use reach::{
    closure_any, closure_any_until, into_transitive_closure, topological_order, transitive_closure,
    transitive_closure_until, CycleFound, Reach,
};
