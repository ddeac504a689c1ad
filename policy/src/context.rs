//! What the caller knows about the call besides its arguments: the
//! permissions the user behind the conversation holds (seed 002 §6.1), and
//! whether the executor that will run the call confines it.

use serde::Deserialize;
use std::collections::BTreeSet;

/// The caller's context for one decision, read from JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Context {
    /// The permissions the user holds. `None` (absent) means "unknown": a tool
    /// that requires a permission is then confirmed, never allowed unchecked.
    pub permissions: Option<BTreeSet<String>>,
    /// The executor runs the call confined (`toolgate exec`: secrets of the
    /// working tree masked, no writes, no capabilities; see
    /// docs/confinement.md). Set by executors, never by the model (a context
    /// is the host's, not part of the call's arguments). It lets the command
    /// assessor prove a recursive search of the working tree (`rg foo`,
    /// `grep -rn foo .`) read-only: the secret files it would print are not
    /// there to read.
    pub confined: bool,
}

/// Why a context was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid context at `{path}`: {message}")]
pub struct ContextError {
    /// The offending field (`.` for the top level).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl Context {
    /// Reads a context; empty text is the empty context.
    pub fn from_json(text: &str) -> Result<Context, ContextError> {
        if text.trim().is_empty() {
            return Ok(Context::default());
        }
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| ContextError {
            path: String::from("."),
            message: e.to_string(),
        })?;
        serde_path_to_error::deserialize(value).map_err(|e| ContextError {
            path: e.path().to_string(),
            message: e.into_inner().to_string(),
        })
    }

    /// Whether the user holds `permission`: `None` when the permissions are unknown.
    pub fn grants(&self, permission: &str) -> Option<bool> {
        self.permissions.as_ref().map(|p| p.contains(permission))
    }
}
