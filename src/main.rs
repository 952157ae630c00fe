//! The `memconform` command: the command line ([`cli`]) and the batch
//! driver ([`batch`]) over the workspace's crates.

/// mimalloc: many small histories allocate and free many small vectors;
/// it halves the allocator's share of a 10,000-history batch (see README,
/// Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod batch;
mod cli;

fn main() {
    std::process::exit(cli::run());
}
