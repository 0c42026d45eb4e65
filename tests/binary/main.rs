//! The tests that drive the `kinformer` binary, one test binary (one link) with a module per
//! area: the commands and their flags (`cli`, `multi_resource`, `bad_input`), fidelity through
//! real sockets (`cli_fidelity`), record and replay, scenarios, the proxy with real clients,
//! `serve`, `top` in tmux, the seeded chaos run, the generated docs, the README and docs/
//! themselves, and the differential test against client-go's own informer (`oracle_diff`, needs
//! `scripts/oracle`).
//! Servers are started in-process on 127.0.0.1:0 or by the binary (`serve`).

#[path = "../../crates/kinformer-apiserver/tests/server/support.rs"]
mod apiserver_http;
mod apiserver_serve;
mod bad_input;
#[path = "../common/binary.rs"]
mod binary;
mod chaos;
mod cli;
mod cli_fidelity;
mod cli_generated_docs;
#[path = "../common/mod.rs"]
mod common;
mod conformance;
mod errors_ux;
mod fuzz_protobuf;
mod go_tap;
mod golden_real;
mod multi_resource;
mod oracle_diff;
mod oracle_history;
mod oracle_live;
mod oracle_side_by_side;
mod oracle_sides;
mod proxy;
mod proxy_recording;
mod readme;
mod record_replay;
mod refserver;
#[path = "../common/refserver.rs"]
mod refserver_fixture;
mod refserver_protobuf;
mod report;
mod scenarios;
mod story;
mod top_tmux;
mod typed_protobuf;
mod watch_diff;
