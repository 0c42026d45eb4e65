//! The options of a write, read from the query (and, for a delete, from the DeleteOptions
//! body) and validated as kube-apiserver's handlers validate them
//! (`apimachinery/pkg/apis/meta/v1/validation`: `ValidateCreateOptions`,
//! `ValidateUpdateOptions`, `ValidatePatchOptions`, `ValidateDeleteOptions`): a violation is
//! `422 Invalid` naming the options kind (`PatchOptions.meta.k8s.io "" is invalid: …`).

use serde_json::Value;

use crate::app::ResourceRequest;
use crate::status::ApiError;

/// The only `dryRun` value kube-apiserver supports.
const DRY_RUN_ALL: &str = "All";

/// Which write the options belong to (kube-apiserver's options kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// POST: `CreateOptions`.
    Create,
    /// PUT: `UpdateOptions`.
    Update,
    /// PATCH with a patch other than apply: `PatchOptions`.
    Patch,
    /// PATCH with `application/apply-patch+yaml`: `PatchOptions`.
    Apply,
    /// DELETE: `DeleteOptions`.
    Delete,
}

impl WriteKind {
    fn options_kind(self) -> &'static str {
        match self {
            WriteKind::Create => "CreateOptions",
            WriteKind::Update => "UpdateOptions",
            WriteKind::Patch | WriteKind::Apply => "PatchOptions",
            WriteKind::Delete => "DeleteOptions",
        }
    }
}

/// A write's validated options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// `dryRun=All`: validate and answer what would be stored, store nothing.
    pub dry_run: bool,
}

impl WriteOptions {
    /// The options of `request` for a write of `kind`; `body_dry_run` is a DeleteOptions
    /// body's `dryRun` (kubectl sends it there).
    pub fn of(
        request: &ResourceRequest,
        kind: WriteKind,
        body_dry_run: &[String],
    ) -> Result<Self, ApiError> {
        if kind == WriteKind::Delete {
            // Decoded (an integer, else 400) though the server deletes at once whatever it says.
            request.integer("gracePeriodSeconds")?;
        }
        let mut dry_run: Vec<String> = body_dry_run.to_vec();
        dry_run.extend(request.param("dryRun").map(str::to_owned));
        let mut errors = Vec::new();
        if let Some(error) = unsupported_dry_run(&dry_run) {
            errors.push(error);
        }
        errors.extend(patch_errors(request, kind));
        if !errors.is_empty() {
            return Err(ApiError::invalid_options(kind.options_kind(), &errors));
        }
        Ok(WriteOptions {
            dry_run: !dry_run.is_empty(),
        })
    }
}

/// `ValidateDryRun`: every value must be `All`.
fn unsupported_dry_run(values: &[String]) -> Option<String> {
    if values.iter().all(|v| v == DRY_RUN_ALL) {
        return None;
    }
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    Some(format!(
        "dryRun: Unsupported value: []string{{{}}}: supported values: \"{DRY_RUN_ALL}\"",
        quoted.join(", ")
    ))
}

/// `ValidatePatchOptions`: `force` only on apply (set at all, even `false`), and apply only
/// with a `fieldManager`.
fn patch_errors(request: &ResourceRequest, kind: WriteKind) -> Option<String> {
    match kind {
        WriteKind::Patch if request.params.contains_key("force") => {
            Some("force: Forbidden: may not be specified for non-apply patch".to_owned())
        }
        WriteKind::Apply if request.param("fieldManager").is_none() => {
            Some("fieldManager: Required value: is required for apply patch".to_owned())
        }
        _ => None,
    }
}

/// The `dryRun` values of a DeleteOptions body (none when it has none).
pub fn body_dry_run(options: &Value) -> Result<Vec<String>, ApiError> {
    let Some(values) = options.get("dryRun").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    values
        .as_array()
        .and_then(|values| {
            values
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
        })
        .ok_or_else(|| ApiError::bad_request("DeleteOptions.dryRun must be a list of strings"))
}
