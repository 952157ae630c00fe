//! gem5 output: debug-trace lines (RubyTest, MemTest, ProtocolTrace,
//! RubySequencer), `stats.txt`, `config.ini`, and reading traces that are
//! plain or gzipped (possibly cut short by a crash).

pub mod config;
mod cursor;
pub mod input;
pub mod memtest;
pub mod protocol;
pub mod rubytest;
pub mod stats;

#[cfg(test)]
mod file_fuzz;
#[cfg(test)]
mod line_fuzz;

/// The repository's real gem5 runs, for tests: the two bundled in `traces/`
/// and the rest of the MI_example set in `tests/data/gem5/mi_example/`.
#[cfg(test)]
pub(crate) mod runs {
    use std::path::PathBuf;

    /// Every MI_example run the repository carries.
    pub const MI_EXAMPLE: [&str; 7] = [
        "clean-n2-s1-rich",
        "clean-n4-s2",
        "clean-n8-s3-gz",
        "memtest-n4",
        "bug-mi5-n4-s1-rich",
        "bug-mi3-n4-s2-rich",
        "bug-mi5-n2-s3-gztrunc",
    ];

    /// The folder of the MI_example run `name`.
    pub fn mi_example(name: &str) -> PathBuf {
        assert!(MI_EXAMPLE.contains(&name), "no run {name}");
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        match name {
            "clean-n8-s3-gz" | "bug-mi5-n4-s1-rich" => root.join("traces").join(name),
            _ => root.join("tests/data/gem5/mi_example").join(name),
        }
    }

    /// The debug trace of the MI_example run `name` (`trace.txt.gz`, or
    /// `trace.txt` for `memtest-n4`, the one kept plain).
    pub fn mi_example_trace(name: &str) -> PathBuf {
        mi_example(name).join(if name == "memtest-n4" {
            "trace.txt"
        } else {
            "trace.txt.gz"
        })
    }
}
