//! The `kinformer` binary: parse arguments, run, map errors to exit codes.

fn main() {
    std::process::exit(kinformer::cli::main());
}
