//! The kubectl golden corpus against the real kube-apiserver (the reference server,
//! `scripts/refserver`): every scenario of
//! `crates/kinformer-apiserver/tests/server/golden/scenarios.rs`, in order, in the `default`
//! namespace of a server of this test's own, each stored object read back and masked as the
//! server crate's golden test masks the embedded server's, and compared with its golden file;
//! a `kubectl diff` step's exit code and output (the server's dry run) likewise.
//! The golden files are kube-apiserver's answers: `KINFORMER_GOLDEN_BLESS=1 cargo test
//! --test binary golden_real` (re)writes them from this server.
//!
//! The server runs with the ServiceAccount admission plugin (the fixture's other servers run
//! without it, as no controller-manager makes the `default` ServiceAccounts): this test makes
//! `default/default` first, as the ServiceAccount controller would, so a created pod gets its
//! account, token volume and mounts as on a cluster.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::refserver_fixture::RefServer;

#[path = "../../crates/kinformer-apiserver/tests/server/golden/scenarios.rs"]
mod scenarios;

use scenarios::{Kubectl, Observed};

/// kube-apiserver's flag for a server with the ServiceAccount admission plugin on:
/// `scripts/refserver` leaves its own `--disable-admission-plugins=ServiceAccount` out when the
/// extra flags name that flag.
const SERVICE_ACCOUNT_ADMISSION: &str = "--disable-admission-plugins=";

/// The golden files' directory.
fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crates/kinformer-apiserver/tests/server/golden")
}

/// The golden files (`*.json`) in the directory, by name without `.json`.
fn golden_files() -> BTreeSet<String> {
    std::fs::read_dir(golden_dir())
        .expect("the golden directory")
        .filter_map(|entry| {
            let name = entry.expect("a directory entry").file_name();
            name.to_str()?.strip_suffix(".json").map(str::to_owned)
        })
        .collect()
}

/// What differs between `observed` and its golden file, one line per difference; empty when
/// they are equal.
fn mismatch(observed: &Observed) -> String {
    let expected = match scenarios::read_golden(&golden_dir(), observed.file) {
        Ok(expected) => expected,
        Err(e) => return format!("{}: {e}\n", observed.file),
    };
    scenarios::differences(&expected, &observed.object)
        .iter()
        .map(|d| {
            format!(
                "{} {}: golden {}, kube-apiserver {}\n",
                observed.file,
                d.pointer,
                shown(d.expected.as_ref()),
                shown(d.actual.as_ref())
            )
        })
        .collect()
}

fn shown(value: Option<&serde_json::Value>) -> String {
    value.map_or_else(|| "(absent)".to_owned(), serde_json::Value::to_string)
}

/// Writes `observed` as its golden file.
fn bless(observed: &Observed) {
    let text = serde_json::to_string_pretty(&observed.object).expect("JSON") + "\n";
    std::fs::write(scenarios::golden_path(&golden_dir(), observed.file), text)
        .expect("the golden file is written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_golden_files_are_what_kube_apiserver_stores() {
    let server = RefServer::with_args(SERVICE_ACCOUNT_ADMISSION);
    server.kubectl(&["create", "serviceaccount", "default", "-n", "default"]);
    let kubectl = Kubectl::new(&server.kubeconfig()).expect("a working directory");
    let mut observed = Vec::new();
    for scenario in scenarios::all() {
        let read = scenarios::run(&kubectl, &scenario)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        observed.extend(read);
        scenarios::clean_up(&kubectl, &scenario)
            .await
            .unwrap_or_else(|e| panic!("{} (cleaning up): {e}", scenario.name));
    }
    if std::env::var_os("KINFORMER_GOLDEN_BLESS").is_some() {
        observed.iter().for_each(bless);
    }
    let mismatches: String = observed.iter().map(mismatch).collect();
    assert!(
        mismatches.is_empty(),
        "kube-apiserver stores other objects than the golden files (re-make them with \
         KINFORMER_GOLDEN_BLESS=1 cargo test --test binary golden_real):\n{mismatches}"
    );
    let read: BTreeSet<String> = observed.iter().map(|o| o.file.to_owned()).collect();
    assert_eq!(
        golden_files(),
        read,
        "every golden file is read by a scenario, and every scenario's file exists"
    );
}
