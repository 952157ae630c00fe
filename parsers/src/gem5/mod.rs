//! gem5 output: debug-trace lines (RubyTest, MemTest, ProtocolTrace,
//! RubySequencer), `stats.txt`, `config.ini`, and reading traces that are
//! plain or gzipped (possibly cut short by a crash).

pub mod config;
pub mod input;
pub mod memtest;
pub mod protocol;
pub mod rubytest;
pub mod stats;
