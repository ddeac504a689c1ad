//! The audit record: one JSON line per call that reached a gate, hash-chained.
//!
//! The fields are seed 002's execution log (session, user, tool, parameters,
//! success, result or error, execution time, time) plus the decision (action,
//! risk, source, finding codes, policy version), who answered and how, and the
//! argument diff after an edit. Each line carries `seq` (1, 2, …), `prev` (the
//! previous line's `hash`; 64 zeros for the first) and `hash`: the SHA-256 of
//! `toolgate.audit/1\n` + the line's canonical JSON without `hash`. Changing any
//! line breaks its hash; removing or reordering lines breaks `seq` and `prev`.
//! Cutting lines off the end leaves a valid shorter chain: keep the head hash
//! that [`verify_audit`] reports somewhere else to detect that.

use super::mac;
use serde::{Deserialize, Serialize};
pub use toolgate_shapes::records::AuditEntry;

/// The format tag mixed into every hash.
pub const FORMAT: &str = "toolgate.audit/1";

/// The `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    seq: u64,
    #[serde(flatten)]
    entry: AuditEntry,
    prev: String,
}

/// Why a record could not be sealed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuditError {
    /// The entry or the previous line is not of the expected shape.
    #[error("invalid audit entry: {0}")]
    Invalid(String),
    /// A line of a log failed verification.
    #[error("line {line}: {reason}")]
    Broken {
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

pub use toolgate_shapes::records::AuditSummary;

/// The format tag of keyed chains: each `hash` is an HMAC-SHA-256 under the
/// audit key, so nobody without the key can recompute a rewritten chain.
pub const KEYED_FORMAT: &str = "toolgate.audit-keyed/1";

fn keyed_hash_of(body: &str, key: Option<&[u8]>) -> String {
    let tag = if key.is_some() { KEYED_FORMAT } else { FORMAT };
    let mut data = Vec::with_capacity(tag.len() + 1 + body.len());
    data.extend_from_slice(tag.as_bytes());
    data.push(b'\n');
    data.extend_from_slice(body.as_bytes());
    match key {
        Some(key) => mac::hex(&mac::hmac_sha256(key, &data)),
        None => mac::sha256_hex(&data),
    }
}

fn check_audit_key(key: &[u8]) -> Result<(), AuditError> {
    if key.len() < super::checkpoint::MIN_KEY_LEN {
        Err(AuditError::Invalid(format!(
            "the audit key is {} bytes long; a key has at least {}",
            key.len(),
            super::checkpoint::MIN_KEY_LEN
        )))
    } else {
        Ok(())
    }
}

/// `body` (a JSON object's text) with `"hash": hash` as its last field.
fn with_hash(body: &str, hash: &str) -> String {
    let open = body.strip_suffix('}').unwrap_or(body);
    format!("{open},\"hash\":\"{hash}\"}}")
}

/// Reads one sealed line, checking its own hash; returns its seq and hash.
fn read_keyed_line(line: &str, key: Option<&[u8]>) -> Result<(u64, String, String), String> {
    let mut value: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let hash = match value.remove("hash") {
        Some(serde_json::Value::String(hash)) => hash,
        _ => return Err(String::from("no `hash`")),
    };
    let body: Body = serde_path_to_error::deserialize(serde_json::Value::Object(value))
        .map_err(|e| format!("`{}`: {}", e.path(), e.inner()))?;
    let raw = serde_json::to_string(&body).map_err(|e| e.to_string())?;
    let canonical = toolgate_shapes::jsonl::escape_controls(&raw);
    // A line sealed before controls were escaped was hashed as it was
    // written then: raw.
    if !mac::same(&hash, &keyed_hash_of(&canonical, key))
        && (canonical == raw || !mac::same(&hash, &keyed_hash_of(&raw, key)))
    {
        return Err(String::from(
            "the hash does not match the record: it was changed",
        ));
    }
    Ok((body.seq, body.prev, hash))
}

/// Seals an audit entry (JSON, the fields of [`AuditEntry`]) as the line after
/// `previous` (the last line of the log, or `None` to start one).
pub fn seal_audit(entry: &str, previous: Option<&str>) -> Result<String, AuditError> {
    seal(entry, previous, None)
}

/// [`seal_audit`] for a keyed chain: the line's `hash` is an HMAC under `key`
/// (at least 16 bytes), and `previous` must verify under the same key.
pub fn seal_audit_keyed(
    entry: &str,
    previous: Option<&str>,
    key: &[u8],
) -> Result<String, AuditError> {
    check_audit_key(key)?;
    seal(entry, previous, Some(key))
}

fn seal(entry: &str, previous: Option<&str>, key: Option<&[u8]>) -> Result<String, AuditError> {
    let entry: AuditEntry = serde_json::from_str::<serde_json::Value>(entry)
        .map_err(|e| AuditError::Invalid(format!("not JSON: {e}")))
        .and_then(|v| {
            serde_path_to_error::deserialize(v)
                .map_err(|e| AuditError::Invalid(format!("`{}`: {}", e.path(), e.inner())))
        })?;
    let (seq, prev) = match previous {
        None => (1, GENESIS.to_owned()),
        Some(line) => {
            let (seq, _, hash) = read_keyed_line(line.trim_end(), key)
                .map_err(|reason| AuditError::Invalid(format!("the previous line: {reason}")))?;
            (seq.saturating_add(1), hash)
        }
    };
    // Controls and line separators are written as escapes: a line of the
    // log is one record for every reader and prints as it is.
    let body = serde_json::to_string(&Body { seq, entry, prev })
        .map(|text| toolgate_shapes::jsonl::escape_controls(&text))
        .map_err(|e| AuditError::Invalid(e.to_string()))?;
    Ok(with_hash(&body, &keyed_hash_of(&body, key)))
}

/// Verifies a whole log (JSON Lines): every line's hash, `seq` counting from 1
/// and `prev` naming the line before. Reports the first broken line.
pub fn verify_audit(log: &str) -> Result<AuditSummary, AuditError> {
    verify(log, None)
}

/// [`verify_audit`] for a keyed chain: every `hash` must be the HMAC under
/// `key`, so a chain rewritten and recomputed without the key fails.
pub fn verify_audit_keyed(log: &str, key: &[u8]) -> Result<AuditSummary, AuditError> {
    check_audit_key(key)?;
    verify(log, Some(key))
}

fn verify(log: &str, key: Option<&[u8]>) -> Result<AuditSummary, AuditError> {
    let mut head = GENESIS.to_owned();
    let mut records = 0_u64;
    for (index, line) in log.split('\n').enumerate() {
        let line_no = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let broken = |reason: String| AuditError::Broken {
            line: line_no,
            reason: printable(&reason),
        };
        let (seq, prev, hash) = read_keyed_line(line, key).map_err(broken)?;
        if seq != records + 1 {
            return Err(broken(format!(
                "record {seq} where record {} was expected: records were removed or reordered",
                records + 1
            )));
        }
        if prev != head {
            return Err(broken(String::from(
                "`prev` does not name the record before it: the chain is broken",
            )));
        }
        records = seq;
        head = hash;
    }
    Ok(AuditSummary { records, head })
}

/// `text` with control characters (C0, DEL, C1, and the bidirectional and
/// line-separator marks) written as `\u{…}`, so a reason that quotes a tampered
/// line cannot move a terminal's cursor or print a fake verdict.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let hidden = c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c);
        if hidden {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_in_the_sealed_line_and_it_verifies() {
        let text = entry("x").replace("\"tool\":\"x\"", "\"tool\":\"a\u{9b}b\u{85}c\u{2028}d\"");
        assert!(text.contains('\u{9b}'), "{text}");
        let line = seal_audit(&text, None).unwrap_or_default();
        assert!(line.contains(r"a\u009bb\u0085c\u2028d"), "{line}");
        assert!(!line.chars().any(toolgate_shapes::jsonl::hidden), "{line}");
        assert_eq!(verify_audit(&line).map(|s| s.records), Ok(1));
    }

    #[test]
    fn a_keyed_chain_cannot_be_recomputed_without_the_key() {
        let key = [3_u8; 32];
        let first = seal_audit_keyed(&entry("a"), None, &key).unwrap_or_default();
        let second = seal_audit_keyed(&entry("b"), Some(&first), &key).unwrap_or_default();
        let log = format!("{first}\n{second}\n");
        assert_eq!(verify_audit_keyed(&log, &key).map(|s| s.records), Ok(2));
        // The unkeyed verifier and a wrong key both refuse it.
        assert!(verify_audit(&log).is_err());
        assert!(verify_audit_keyed(&log, &[4_u8; 32]).is_err());
        // A rewrite recomputed with the public, unkeyed seal is caught.
        let one = seal_audit(&entry("a"), None).unwrap_or_default();
        let two = seal_audit(&entry("rewritten"), Some(&one)).unwrap_or_default();
        assert!(verify_audit_keyed(&format!("{one}\n{two}\n"), &key).is_err());
        assert!(seal_audit_keyed(&entry("a"), None, b"short").is_err());
        assert!(verify_audit_keyed(&log, b"").is_err());
    }

    #[test]
    fn reasons_never_carry_control_characters() {
        let log = "{\"seq\u{1b}[2K\r ok\": 1\n";
        let err = verify_audit(log).unwrap_err().to_string();
        assert!(!err.chars().any(char::is_control), "{err:?}");
        assert_eq!(printable("a\u{7}b\u{202e}"), "a\\u{7}b\\u{202e}");
    }

    fn entry(tool: &str) -> String {
        format!(
            r#"{{"time":1,"tool":"{tool}","parameters":"{{}}","decision":{{"action":"allow","risk":"low","source":"whitelist","findings":["sql.read-only"],"policy_version":"0.1.0"}},"status":"executed","success":true}}"#
        )
    }

    fn log(n: usize) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for i in 0..n {
            let line = seal_audit(&entry(&format!("t{i}")), lines.last().map(String::as_str));
            lines.push(line.unwrap_or_default());
        }
        lines
    }

    #[test]
    fn a_chain_verifies_and_any_change_breaks_it() {
        let lines = log(4);
        assert!(lines[0].contains(&format!(r#""prev":"{GENESIS}","hash":""#)));
        let text = lines.join("\n") + "\n";
        let summary = verify_audit(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(summary.records, 4);
        assert!(lines[3].ends_with(&format!("\"hash\":\"{}\"}}", summary.head)));

        let changed = text.replace(r#""tool":"t2""#, r#""tool":"t9""#);
        assert!(matches!(
            verify_audit(&changed),
            Err(AuditError::Broken { line: 3, .. })
        ));
        let mut removed = lines.clone();
        removed.remove(1);
        assert!(matches!(
            verify_audit(&removed.join("\n")),
            Err(AuditError::Broken { line: 2, .. })
        ));
        let mut swapped = lines.clone();
        swapped.swap(1, 2);
        assert!(matches!(
            verify_audit(&swapped.join("\n")),
            Err(AuditError::Broken { line: 2, .. })
        ));
        let first_removed = lines[1..].join("\n");
        assert!(matches!(
            verify_audit(&first_removed),
            Err(AuditError::Broken { line: 1, .. })
        ));
        assert!(matches!(
            verify_audit("{}\n"),
            Err(AuditError::Broken { line: 1, .. })
        ));
        assert_eq!(verify_audit("").map(|s| s.records), Ok(0));
    }

    #[test]
    fn entries_are_checked() {
        assert!(matches!(
            seal_audit("{}", None),
            Err(AuditError::Invalid(_))
        ));
        let extra = entry("t").replace(r#""time":1"#, r#""time":1,"hash":"x""#);
        assert!(matches!(
            seal_audit(&extra, None),
            Err(AuditError::Invalid(_))
        ));
        assert!(matches!(
            seal_audit(&entry("t"), Some("garbage")),
            Err(AuditError::Invalid(_))
        ));
    }
}
