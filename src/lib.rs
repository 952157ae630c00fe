//! memconform: checks histories of shared-memory runs against memory models.
//!
//! Data flows one way: [`history`] (parse and validate) → [`models`] (the
//! polynomial models, gradually) → [`certificate`] (why) → the CLI's report.

pub mod certificate;
pub mod history;
pub mod models;
pub mod relation;
