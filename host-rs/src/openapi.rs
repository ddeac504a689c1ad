//! OpenAPI import (seed 002 §9.3): registry entries and tool definitions from
//! an OpenAPI 3 or Swagger 2 document, JSON or YAML.
//!
//! The import itself is the component's (`import-openapi`), so both CLIs and
//! every runtime import a document byte for byte alike; this host only reads
//! YAML into the JSON the component takes.

pub use toolgate_shapes::registry::{ImportOptions, Imported};

use crate::{Error, Policy};

/// Why a document could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Neither JSON nor YAML. (The parser's own detail is kept for callers
    /// but not printed: the JavaScript CLI, whose YAML parser words it
    /// differently, prints the same line.)
    #[error("the document is neither JSON nor YAML")]
    Parse(String),
    /// The component refused the document or the options (its reason).
    #[error("{0}")]
    Refused(String),
    /// The component faulted or its answer could not be read.
    #[error(transparent)]
    Policy(#[from] Error),
}

/// A document's JSON text: JSON as it is, YAML converted.
pub fn json_text(text: &str) -> Result<String, ImportError> {
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        return Ok(text.to_owned());
    }
    let value: serde_json::Value =
        yaml_serde::from_str(text).map_err(|e| ImportError::Parse(e.to_string()))?;
    serde_json::to_string(&value).map_err(|e| ImportError::Parse(e.to_string()))
}

/// Imports the operations of an OpenAPI 3 or Swagger 2 document (JSON or
/// YAML) that `options` selects.
pub fn import(
    policy: &Policy,
    text: &str,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let spec = json_text(text)?;
    let options = serde_json::to_string(options).map_err(|e| ImportError::Parse(e.to_string()))?;
    let answer = policy.import_openapi(&spec, &options)?;
    let json = answer.map_err(ImportError::Refused)?;
    serde_json::from_str(&json).map_err(|e| {
        ImportError::Policy(Error::Fault(format!("the import could not be read: {e}")))
    })
}
