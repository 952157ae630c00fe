//! The hasher of the small maps built per history (variable names, written
//! values): rustc's FxHash (`rustc-hash`). Inputs are the user's own files,
//! so hash flooding is not a concern; SipHash cost a tenth of loading a
//! batch of tiny histories (docs/reference.md, Performance).

/// A `HashMap` with FxHash.
pub type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// A `HashSet` with FxHash.
pub type FxSet<K> = rustc_hash::FxHashSet<K>;
