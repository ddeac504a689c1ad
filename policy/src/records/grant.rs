//! The sealed form of a grant (see [`toolgate_shapes::grants`]).
//!
//! The text is `{"format":"toolgate.grant/1","grant":{…},"mac":…}`: `grant`
//! in the fixed field order of [`Grant`], `mac` the HMAC-SHA-256 (hex) of
//! `toolgate.grant/1\n` + the canonical `grant` under the checkpoint key, or
//! `null` for a session grant of a gate without a key. The same machinery as
//! checkpoints: nobody without the key can forge a grant, widen its rules,
//! move it to another tool or lift its expiry. A stored grant (project, user)
//! is never unsigned: a gate without a key neither makes nor accepts one.

use super::checkpoint::check_key;
use super::mac;
use crate::codes;
use serde::{Deserialize, Serialize};
pub use toolgate_shapes::grants::{Grant, Granted, Remember, Scope};
use toolgate_shapes::rules::Effect;

/// The format tag of grants this version writes and reads.
pub const FORMAT: &str = "toolgate.grant/1";

/// Why a grant was refused. Each has a stable finding code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    /// Not a sealed grant of the expected shape (or a rule that is not an
    /// allow rule naming the grant's tool exactly).
    #[error("invalid grant: {0}")]
    Invalid(String),
    /// A stored grant without a MAC, or any unsigned grant where the gate
    /// has a key.
    #[error("the grant is not signed, and this gate accepts only signed grants here")]
    Unsigned,
    /// The MAC does not match: the grant was forged or changed.
    #[error("the grant's signature does not match: it was forged or changed")]
    Forged,
    /// Past its expiry.
    #[error("the grant expired at {0}")]
    Expired(u64),
}

impl GrantError {
    /// The stable finding code.
    pub fn code(&self) -> &'static str {
        match self {
            GrantError::Invalid(_) => codes::GRANT_INVALID,
            GrantError::Unsigned => codes::GRANT_UNSIGNED,
            GrantError::Forged => codes::GRANT_FORGED,
            GrantError::Expired(_) => codes::GRANT_EXPIRED,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    format: String,
    grant: serde_json::Value,
    #[serde(default)]
    mac: Option<String>,
}

fn mac_of(key: &[u8], canonical: &str) -> String {
    let mut data = Vec::with_capacity(FORMAT.len() + 1 + canonical.len());
    data.extend_from_slice(FORMAT.as_bytes());
    data.push(b'\n');
    data.extend_from_slice(canonical.as_bytes());
    mac::hex(&mac::hmac_sha256(key, &data))
}

/// Checks what a grant says of itself: an id, at least one rule, every rule
/// an allow rule naming exactly the grant's tool (as a literal pattern, see
/// [`crate::rules::literal_name`]), and a user grant its user.
pub fn check_shape(grant: &Grant) -> Result<(), GrantError> {
    if grant.id.is_empty() || grant.tool.is_empty() {
        return Err(GrantError::Invalid(String::from(
            "`id` and `tool` are required",
        )));
    }
    if grant.rules.is_empty() {
        return Err(GrantError::Invalid(String::from("`rules` is empty")));
    }
    if grant.scope == Scope::User && grant.user_id.is_none() {
        // Its user would be "no user": every anonymous call.
        return Err(GrantError::Invalid(String::from(
            "a user grant names its user (`user_id`)",
        )));
    }
    // The tool's name as a literal pattern (`\*` for a tool named `*`): a
    // grant never names its tool as a glob.
    let literal = crate::rules::literal_name(&grant.tool);
    for rule in &grant.rules {
        if rule.effect != Effect::Allow {
            return Err(GrantError::Invalid(String::from(
                "a grant holds allow rules only",
            )));
        }
        if rule.tool.as_deref() != Some(literal.as_str()) {
            return Err(GrantError::Invalid(format!(
                "every rule names the tool `{}` exactly",
                grant.tool
            )));
        }
    }
    Ok(())
}

/// Seals `grant`: signed with `key`; unsigned only for a session grant of a
/// gate without a key.
pub fn seal_grant(grant: &Grant, key: Option<&[u8]>) -> Result<String, GrantError> {
    check_shape(grant)?;
    let body = serde_json::to_string(grant).map_err(|e| GrantError::Invalid(e.to_string()))?;
    let mac = match key {
        Some(key) => {
            check_key(key).map_err(|e| GrantError::Invalid(e.to_string()))?;
            format!("\"{}\"", mac_of(key, &body))
        }
        None if grant.scope.persisted() => return Err(GrantError::Unsigned),
        None => String::from("null"),
    };
    Ok(format!(
        "{{\"format\":\"{FORMAT}\",\"grant\":{body},\"mac\":{mac}}}"
    ))
}

/// Reads a sealed grant without checking its MAC or expiry: for a
/// revocation, which only ever takes power away, and for listing what a
/// store holds.
pub fn read_grant(sealed: &str) -> Result<Grant, GrantError> {
    let envelope: Envelope = serde_json::from_str(sealed)
        .map_err(|e| GrantError::Invalid(format!("not a sealed grant: {e}")))?;
    if envelope.format != FORMAT {
        return Err(GrantError::Invalid(format!(
            "unsupported grant format `{}` (this version reads {FORMAT})",
            envelope.format
        )));
    }
    serde_path_to_error::deserialize(envelope.grant)
        .map_err(|e| GrantError::Invalid(format!("`{}`: {}", e.path(), e.inner())))
}

/// Opens a sealed grant at `now`: signed with `key` (a gate with a key
/// accepts no unsigned grant; one without accepts only unsigned session
/// grants), well-formed, and not expired.
pub fn open_grant(sealed: &str, key: Option<&[u8]>, now: u64) -> Result<Grant, GrantError> {
    let envelope: Envelope = serde_json::from_str(sealed)
        .map_err(|e| GrantError::Invalid(format!("not a sealed grant: {e}")))?;
    if envelope.format != FORMAT {
        return Err(GrantError::Invalid(format!(
            "unsupported grant format `{}` (this version reads {FORMAT})",
            envelope.format
        )));
    }
    let grant: Grant = serde_path_to_error::deserialize(envelope.grant)
        .map_err(|e| GrantError::Invalid(format!("`{}`: {}", e.path(), e.inner())))?;
    let body = serde_json::to_string(&grant).map_err(|e| GrantError::Invalid(e.to_string()))?;
    match (key, envelope.mac) {
        (Some(key), Some(mac)) => {
            check_key(key).map_err(|e| GrantError::Invalid(e.to_string()))?;
            if !mac::same(&mac, &mac_of(key, &body)) {
                return Err(GrantError::Forged);
            }
        }
        (Some(_), None) => return Err(GrantError::Unsigned),
        (None, _) if grant.scope.persisted() => return Err(GrantError::Unsigned),
        // A gate without a key cannot check a MAC: a session grant lives in
        // the host's memory, which it trusts anyway.
        (None, _) => {}
    }
    check_shape(&grant)?;
    if let Some(at) = grant.expires_at.filter(|at| now >= *at) {
        return Err(GrantError::Expired(at));
    }
    Ok(grant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_shapes::rules::Rule;

    fn grant(scope: Scope) -> Grant {
        Grant {
            id: String::from("g-ap-1"),
            scope,
            tool: String::from("execute_command"),
            rules: vec![Rule {
                id: Some(String::from("g-ap-1")),
                effect: Effect::Allow,
                tool: Some(String::from("execute_command")),
                ..Rule::default()
            }],
            created_at: 1000,
            expires_at: Some(5000),
            approval_id: String::from("ap-1"),
            by: None,
            session_id: None,
            user_id: None,
            gate: String::from("gate-a"),
        }
    }

    const KEY: &[u8] = b"grant-key-0123456789";

    #[test]
    fn sealed_grants_open_with_the_key_and_refuse_any_change() {
        let sealed = seal_grant(&grant(Scope::Project), Some(KEY)).unwrap_or_default();
        assert_eq!(
            open_grant(&sealed, Some(KEY), 1000),
            Ok(grant(Scope::Project))
        );
        let widened = sealed.replace("\"tool\":\"execute_command\"}", "\"tool\":\"*\"}");
        assert_ne!(widened, sealed);
        assert_eq!(
            open_grant(&widened, Some(KEY), 1000),
            Err(GrantError::Forged)
        );
        let lifted = sealed.replace("\"expires_at\":5000", "\"expires_at\":null");
        assert_eq!(
            open_grant(&lifted, Some(KEY), 1000),
            Err(GrantError::Forged)
        );
        assert_eq!(
            open_grant(&sealed, Some(b"another-key-0123456"), 1000),
            Err(GrantError::Forged)
        );
        assert_eq!(
            open_grant(&sealed, Some(KEY), 5000),
            Err(GrantError::Expired(5000))
        );
    }

    #[test]
    fn a_user_grant_names_its_user_and_a_grant_names_its_tool_literally() {
        // A user grant without a user would apply to every anonymous call.
        assert!(matches!(
            seal_grant(&grant(Scope::User), Some(KEY)),
            Err(GrantError::Invalid(_))
        ));
        // A grant for a tool named `*` names it as `\*`, never as a glob.
        let mut star = grant(Scope::Project);
        star.tool = String::from("*");
        assert!(matches!(
            seal_grant(&star, Some(KEY)),
            Err(GrantError::Invalid(_))
        ));
        star.rules[0].tool = Some(String::from("\\*"));
        assert!(seal_grant(&star, Some(KEY)).is_ok());
    }

    #[test]
    fn stored_grants_are_never_unsigned() {
        let mut user = grant(Scope::User);
        user.user_id = Some(String::from("u-1"));
        assert_eq!(seal_grant(&user, None), Err(GrantError::Unsigned));
        let session = seal_grant(&grant(Scope::Session), None).unwrap_or_default();
        assert!(session.ends_with("\"mac\":null}"), "{session}");
        assert!(open_grant(&session, None, 1000).is_ok());
        assert_eq!(
            open_grant(&session, Some(KEY), 1000),
            Err(GrantError::Unsigned)
        );
        let stored = session.replace("\"scope\":\"session\"", "\"scope\":\"project\"");
        assert_eq!(open_grant(&stored, None, 1000), Err(GrantError::Unsigned));
    }

    #[test]
    fn a_grant_holds_allow_rules_for_its_own_tool_only() {
        let mut other = grant(Scope::Session);
        other.rules[0].tool = Some(String::from("execute_*"));
        assert!(matches!(
            seal_grant(&other, None),
            Err(GrantError::Invalid(_))
        ));
        let mut deny = grant(Scope::Session);
        deny.rules[0].effect = Effect::Deny;
        assert!(matches!(
            seal_grant(&deny, None),
            Err(GrantError::Invalid(_))
        ));
    }
}
