//! The checkpoint of a pending approval.
//!
//! A gate that asks a person writes one before it waits, so a restarted
//! process (in either host) can list what is pending and resume it. The text
//! is `{"format":"toolgate.checkpoint/1","pending":{…},"mac":…}`: `pending` in
//! the fixed field order of [`Pending`], `mac` the HMAC-SHA-256 (hex) of
//! `toolgate.checkpoint/1\n` + the canonical `pending`, or `null` when the
//! host has no key. A host with a key refuses an unsigned checkpoint and one
//! whose MAC does not match: nobody without the key can forge a pending
//! approval or change its arguments while it waits.

use super::mac;
use crate::decision::Decision;
use serde::{Deserialize, Serialize};

/// The format tag of checkpoints this version writes and reads.
pub const FORMAT: &str = "toolgate.checkpoint/1";

/// A call waiting for a person's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    /// The approval's id, unique per gate (the host makes it).
    pub id: String,
    /// The conversation the call belongs to, if the host tracks one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The user on whose behalf the model acts, if known.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The tool's description, for the approval dialog.
    #[serde(default)]
    pub description: String,
    /// The arguments as the model sent them (JSON text, `risk_level` included).
    pub args: String,
    /// The call's id in its wire format, to answer the model with.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The policy's decision (a `confirm`).
    pub decision: Decision,
    /// When the approval was requested, in milliseconds since the Unix epoch.
    pub requested_at: u64,
    /// When it expires, in milliseconds since the Unix epoch.
    pub deadline: u64,
}

/// Why a checkpoint could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// The pending approval or the checkpoint is not well-formed JSON of the
    /// expected shape; the message names the field.
    #[error("invalid checkpoint: {0}")]
    Invalid(String),
    /// The checkpoint was written in a format this version does not read.
    #[error("unsupported checkpoint format `{0}` (this version reads {FORMAT})")]
    Format(String),
    /// The host has a key but the checkpoint carries no MAC.
    #[error("the checkpoint is not signed, and this gate requires signed checkpoints")]
    Unsigned,
    /// The MAC does not match: the checkpoint was forged or changed.
    #[error("the checkpoint's signature does not match: it was forged or changed")]
    Forged,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    format: String,
    pending: serde_json::Value,
    #[serde(default)]
    mac: Option<String>,
}

fn read_pending(value: serde_json::Value) -> Result<Pending, CheckpointError> {
    let pending: Pending = serde_path_to_error::deserialize(value)
        .map_err(|e| CheckpointError::Invalid(format!("`{}`: {}", e.path(), e.inner())))?;
    if pending.id.is_empty() {
        return Err(CheckpointError::Invalid(String::from("`id` is empty")));
    }
    if pending.deadline < pending.requested_at {
        return Err(CheckpointError::Invalid(String::from(
            "`deadline` is before `requested_at`",
        )));
    }
    Ok(pending)
}

fn mac_of(key: &[u8], canonical: &str) -> String {
    let mut data = Vec::with_capacity(FORMAT.len() + 1 + canonical.len());
    data.extend_from_slice(FORMAT.as_bytes());
    data.push(b'\n');
    data.extend_from_slice(canonical.as_bytes());
    mac::hex(&mac::hmac_sha256(key, &data))
}

fn canonical(pending: &Pending) -> Result<String, CheckpointError> {
    serde_json::to_string(pending).map_err(|e| CheckpointError::Invalid(e.to_string()))
}

/// Writes the checkpoint of a pending approval given as JSON (the fields of
/// [`Pending`]), signed when `key` is given.
pub fn seal_checkpoint(pending: &str, key: Option<&[u8]>) -> Result<String, CheckpointError> {
    let value: serde_json::Value = serde_json::from_str(pending)
        .map_err(|e| CheckpointError::Invalid(format!("not JSON: {e}")))?;
    let pending = read_pending(value)?;
    let body = canonical(&pending)?;
    let mac = match key {
        Some(key) => format!("\"{}\"", mac_of(key, &body)),
        None => String::from("null"),
    };
    Ok(format!(
        "{{\"format\":\"{FORMAT}\",\"pending\":{body},\"mac\":{mac}}}"
    ))
}

/// Reads a checkpoint and returns its pending approval as canonical JSON. With
/// a `key`, the checkpoint must be signed with it; without one, a MAC cannot be
/// checked and is ignored.
pub fn open_checkpoint(checkpoint: &str, key: Option<&[u8]>) -> Result<String, CheckpointError> {
    let envelope: Envelope =
        serde_json::from_str(checkpoint).map_err(|e| CheckpointError::Invalid(e.to_string()))?;
    if envelope.format != FORMAT {
        return Err(CheckpointError::Format(envelope.format));
    }
    let pending = read_pending(envelope.pending)?;
    let body = canonical(&pending)?;
    if let Some(key) = key {
        let mac = envelope.mac.ok_or(CheckpointError::Unsigned)?;
        if !mac::same(&mac, &mac_of(key, &body)) {
            return Err(CheckpointError::Forged);
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PENDING: &str = r#"{"id":"a1","tool":"execute_sql","args":"{\"sql\":\"DELETE FROM t\"}","decision":{"action":"confirm","risk":"high","source":"default","llm_risk":null,"findings":[{"code":"sql.destructive","message":"deletes rows"}],"summary":"execute_sql: DELETE FROM t"},"requested_at":1000,"deadline":31000}"#;

    #[test]
    fn sealed_checkpoints_open_with_the_key_and_refuse_any_change() {
        let key = b"secret".as_slice();
        let sealed = seal_checkpoint(PENDING, Some(key)).unwrap_or_default();
        let pending = open_checkpoint(&sealed, Some(key)).unwrap_or_default();
        assert!(pending.contains(r#""session_id":null"#), "{pending}");
        // Resealing the opened record gives the same bytes: the form is canonical.
        assert_eq!(seal_checkpoint(&pending, Some(key)), Ok(sealed.clone()));

        let edited = sealed.replace("DELETE FROM t", "DROP TABLE t");
        assert_eq!(
            open_checkpoint(&edited, Some(key)),
            Err(CheckpointError::Forged)
        );
        assert_eq!(
            open_checkpoint(&sealed, Some(b"other".as_slice())),
            Err(CheckpointError::Forged)
        );
        let unsigned = seal_checkpoint(PENDING, None).unwrap_or_default();
        assert!(unsigned.ends_with(r#""mac":null}"#));
        assert_eq!(
            open_checkpoint(&unsigned, Some(key)),
            Err(CheckpointError::Unsigned)
        );
        assert!(open_checkpoint(&unsigned, None).is_ok());
    }

    #[test]
    fn bad_input_is_named() {
        let err = seal_checkpoint(r#"{"id":"a"}"#, None).unwrap_err();
        assert!(
            err.to_string().contains("tool") || err.to_string().contains("missing"),
            "{err}"
        );
        let extra = PENDING.replace(r#""id":"a1""#, r#""id":"a1","extra":1"#);
        assert!(matches!(
            seal_checkpoint(&extra, None),
            Err(CheckpointError::Invalid(_))
        ));
        let late = PENDING.replace("31000", "999");
        assert!(matches!(
            seal_checkpoint(&late, None),
            Err(CheckpointError::Invalid(_))
        ));
        let other = r#"{"format":"toolgate.checkpoint/9","pending":{},"mac":null}"#;
        assert!(matches!(
            open_checkpoint(other, None),
            Err(CheckpointError::Format(_))
        ));
        assert!(matches!(
            open_checkpoint("[]", None),
            Err(CheckpointError::Invalid(_))
        ));
    }
}
