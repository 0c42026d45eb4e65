//! The committed shell completions (`completions/`) and man pages (`man/`) match what the
//! current command-line definition generates. `KINFORMER_REGENERATE=1` rewrites them instead.

use std::path::Path;

use kinformer::cli::docs;

#[test]
fn committed_completions_and_man_pages_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("KINFORMER_REGENERATE").is_some() {
        docs::regenerate(root).expect("regenerate docs");
    }
    let stale = docs::stale_files(root).expect("generate docs");
    assert!(
        stale.is_empty(),
        "completions/ or man/ are stale: run `cargo run -- man --out-dir man` and \
         `cargo run -- completions SHELL > completions/FILE` for each shell, or simply \
         `KINFORMER_REGENERATE=1 cargo test --test binary cli_generated_docs`, then commit. \
         Stale: {stale:?}"
    );
}
