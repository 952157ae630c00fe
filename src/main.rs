/// mimalloc: many small histories allocate and free many small vectors;
/// it halves the allocator's share of a 10,000-history batch (see README,
/// Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(memconform::cli::run());
}
