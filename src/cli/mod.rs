//! The command line.

pub mod args;
pub mod connect;
pub mod docs;
pub mod duration;
pub mod exit;
pub mod resolve;
pub mod session;
pub mod stream;

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    0
}
