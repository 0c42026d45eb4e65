//! The informer pipeline's tests, one test binary (one link) with a module per area: client-go's
//! own tests ported (`client_go_parity`), the release profiles, the Rules (`fifo_rules`,
//! `informer_rules`, `reflector_rules`, `contract`) and the parsers' fuzzing and property tests.
//! Most run the library against the in-memory ListerWatcher on tokio's paused clock.

mod client_go_parity;
mod client_go_profiles;
#[path = "../common/mod.rs"]
mod common;
mod contract;
mod fifo_rules;
mod fuzz_parsers;
mod informer_rules;
mod proptest_parsers;
mod reflector_rules;
