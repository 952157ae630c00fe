//! memconform's ingestion: inputs become histories that keep their origins.
//!
//! An input is a history file ([`load`]: `.hist`, axe traces, the SE-mode
//! client's output) or a gem5 output directory ([`gem5`]: the Ruby random
//! tester's or MemTest's debug trace, or the client's output inside it).
//! [`checked`] checks one input with the core's gradual pipeline and keeps,
//! beside each history's outcomes, what ingestion knew of it — each
//! operation's origin, the damage of a trace, the run's command line, its
//! violations explained in gem5's terms — so that no report reads an input
//! again. [`provenance`] holds what a report reads of where a history comes
//! from, in no input's types: its run's metadata ([`RunMeta`], read once)
//! and its operations' origins ([`Origins`]). [`discover`] finds the inputs under the paths a user gives;
//! [`watch`] checks a gem5 run again as gem5 writes it, to stop at the
//! first violation. [`limits`] measures the memory the process may use
//! (the core is given its limits, it measures none).

pub mod checked;
pub mod discover;
pub mod gem5;
pub mod limits;
pub mod load;
pub mod provenance;
pub mod watch;

pub use checked::{
    check_file, check_history, pick_violation, Checked, Origins, Pick, Picked, Reading,
};
pub use discover::discover;
pub use load::{
    build, load_bytes, load_file, parse_bytes, parse_file, stream_file, stream_unbuilt, InputError,
    Unbuilt,
};
pub use provenance::{OpOrigin, RunMeta};
