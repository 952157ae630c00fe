//! memconform as a library: the crates of the workspace under one name, as
//! the layers stack (each uses only those listed before it):
//!
//! - [`parsers`]: the input formats, syntax only, every record located;
//! - the core ([`history`], [`relation`], [`cat`], [`models`], [`scale`],
//!   [`complete`], [`certificate`], [`check`], [`gen`], [`budget`]):
//!   histories, the models as the papers define them and their forms at
//!   scale, the gradual pipeline, certificates;
//! - [`ingest`]: inputs and gem5 runs into histories that keep their
//!   origins, checked and explained ([`gem5`]);
//! - [`report`]: tables, figures, pages, shrunk counterexamples;
//! - [`mutate`]: mutation campaigns over gem5 protocols.
//!
//! The `memconform` binary adds the command line and the batch driver.

pub use memconform_core::{
    budget, cat, certificate, check, complete, gen, history, models, parallel, relation, scale,
};
pub use memconform_ingest as ingest;
pub use memconform_ingest::gem5;
pub use memconform_mutate as mutate;
pub use memconform_parsers as parsers;
pub use memconform_report as report;
