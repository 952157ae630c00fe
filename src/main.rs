fn main() {
    std::process::exit(memconform::cli::run());
}
