//! memconform: checks histories of shared-memory runs against memory models.
//!
//! Data flows one way: [`history`] (parse and validate) → [`models`] (the
//! polynomial models, gradually) → [`certificate`] (why) → [`report`].

pub mod batch;
pub mod budget;
pub mod certificate;
pub mod check;
pub mod cli;
pub mod complete;
pub mod gem5;
pub mod gen;
pub mod history;
pub mod models;
pub mod mutate;
pub mod relation;
pub mod report;
