//! memconform's core: what a history is, what each memory model requires of
//! it, and the evidence for a verdict.
//!
//! Data flows one way: a [`history::History`] (operations, `po`, `wr`) is
//! checked by the [`models`] (each stated as its paper defines it) in the
//! order of the gradual pipeline ([`check`]); the models with a store order
//! are saturated and completed by the engines of [`complete`]; every verdict
//! carries a [`certificate`] that an independent validator re-checks.
//! [`relation`] holds the dense and sparse relations the models are computed
//! on (and the relation algebra the models are stated in); [`scale`] the
//! models' forms for large histories, beside their definitions. Nothing here reads a file, parses a flag or draws a picture: the
//! ingestion, report and campaign crates and the `memconform` binary do.

pub mod budget;
pub mod cat;
pub mod certificate;
pub mod check;
pub mod complete;
pub mod gen;
pub mod history;
pub mod models;
pub mod parallel;
pub mod relation;
pub mod scale;
