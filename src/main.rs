//! The `kinformer` binary: parse arguments, run, map errors to exit codes.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(kinformer::cli::main())
}
