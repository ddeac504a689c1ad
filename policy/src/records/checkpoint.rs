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
//!
//! Format 2 adds what the decision was made under, inside the MAC: the
//! caller's context, the hash of the configuration and the identity of the
//! gate that asked. A key shorter than [`MIN_KEY_LEN`] bytes is refused (an
//! empty key never signs): a key that is not a key must fail loudly, not sign
//! with a guessable secret.

use super::mac;
use serde::{Deserialize, Serialize};
pub use toolgate_shapes::records::Pending;

/// The format tag of checkpoints this version writes and reads.
pub use toolgate_shapes::records::CHECKPOINT_FORMAT as FORMAT;
pub use toolgate_shapes::records::{CheckpointError, MIN_KEY_LEN};

/// Refuses a key that is too short to be a secret.
pub fn check_key(key: &[u8]) -> Result<(), CheckpointError> {
    if key.len() < MIN_KEY_LEN {
        Err(CheckpointError::weak_key(key.len()))
    } else {
        Ok(())
    }
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
        Some(key) => {
            check_key(key)?;
            format!("\"{}\"", mac_of(key, &body))
        }
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
        check_key(key)?;
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
        let key = b"secret-key-of-16+".as_slice();
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
            open_checkpoint(&sealed, Some(b"other-key-of-16+b".as_slice())),
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

    /// A checkpoint sealed before approvals carried proposed rules (a
    /// pending approval left across an upgrade) still opens: an empty
    /// `proposed` is left out of the canonical text.
    #[test]
    fn checkpoints_sealed_before_grants_still_open() {
        const BEFORE: &str = r#"{"format":"toolgate.checkpoint/2","pending":{"id":"ap-1","session_id":"s-1","user_id":"u-1","tool":"execute_sql","description":"Runs SQL","args":"{\"sql\": \"DELETE FROM users WHERE id = 7\"}","call_id":"call-1","decision":{"action":"confirm","risk":"high","source":"default","llm_risk":null,"findings":[{"code":"default.unproven","message":"not proven read-only, so a person confirms"},{"code":"sql.destructive","message":"`DELETE FROM users WHERE id = 7` deletes rows"}],"summary":"execute_sql: DELETE FROM users WHERE id = 7 — `DELETE FROM users WHERE id = 7` deletes rows; needs confirmation"},"requested_at":1767225600000,"deadline":1767225630000,"context":null,"config_hash":"54cd616831019200fa54129f969fb9878ad007b22ca4291c2b7a6ebeed55a5db","gate":"gate-a"},"mac":"57a9a768fd1bcac61a1475b509d684ee5b81b556ccb196b192d933decc53f931"}"#;
        let opened = open_checkpoint(BEFORE, Some(b"checkpoint-key-0123456789".as_slice()));
        assert!(opened.is_ok(), "{opened:?}");
    }

    #[test]
    fn short_and_empty_keys_never_sign_or_check() {
        for key in [b"".as_slice(), b"short".as_slice(), &[7_u8; 15]] {
            assert_eq!(
                seal_checkpoint(PENDING, Some(key)),
                Err(CheckpointError::weak_key(key.len()))
            );
        }
        let sealed = seal_checkpoint(PENDING, Some(&[7_u8; 16])).unwrap_or_default();
        assert_eq!(
            open_checkpoint(&sealed, Some(b"")),
            Err(CheckpointError::WeakKey(0))
        );
        assert!(open_checkpoint(&sealed, Some(&[7_u8; 16])).is_ok());
    }

    #[test]
    fn the_mac_covers_configuration_gate_and_context() {
        let key = [9_u8; 32];
        let bound = PENDING.replace(
            r#""deadline":31000"#,
            r#""deadline":31000,"config_hash":"abc","gate":"gate-a","context":"{}""#,
        );
        let sealed = seal_checkpoint(&bound, Some(&key)).unwrap_or_default();
        assert!(sealed.contains(r#""config_hash":"abc""#), "{sealed}");
        for (from, to) in [
            (r#""config_hash":"abc""#, r#""config_hash":"abd""#),
            (r#""gate":"gate-a""#, r#""gate":"gate-b""#),
            (r#""context":"{}""#, r#""context":null"#),
        ] {
            assert_eq!(
                open_checkpoint(&sealed.replace(from, to), Some(&key)),
                Err(CheckpointError::Forged),
                "{to}"
            );
        }
        let old = sealed.replace("toolgate.checkpoint/2", "toolgate.checkpoint/1");
        assert!(matches!(
            open_checkpoint(&old, Some(&key)),
            Err(CheckpointError::Format(_))
        ));
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
