//! The command line.

pub mod connect;
pub mod session;
pub mod stream;

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    0
}
