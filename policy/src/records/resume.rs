//! Deciding again when an approval is answered.
//!
//! A person approves what the dialog showed them: the decision sealed in the
//! checkpoint, with its findings. By the time the answer comes (possibly in
//! another process, after a restart, under a changed configuration) the policy
//! may decide the same call differently: a tool turned off during an incident,
//! a new rule that finds something the person never saw. The gate therefore
//! decides the call again under its current configuration and asks
//! [`recheck`] whether the old answer still covers it. Anything but
//! [`Recheck::Stands`] means the call does not run: the approval is void and
//! the model is told to ask again (a new call gets a new, current dialog).

use crate::decision::{Action, Decision};

pub use toolgate_shapes::records::Recheck;

/// Compares the decision a person answered (`sealed`) with the policy's
/// decision now (`current`).
pub fn recheck(sealed: &Decision, current: &Decision) -> Recheck {
    match current.action {
        Action::Deny => Recheck::Denied,
        Action::Allow => Recheck::Stands,
        Action::Confirm => {
            let mut seen: Vec<&str> = sealed.findings.iter().map(|f| f.code.as_str()).collect();
            let mut now: Vec<&str> = current.findings.iter().map(|f| f.code.as_str()).collect();
            seen.sort_unstable();
            seen.dedup();
            now.sort_unstable();
            now.dedup();
            if seen == now && current.risk <= sealed.risk {
                Recheck::Stands
            } else {
                Recheck::Changed
            }
        }
    }
}

/// [`recheck`] over the decisions' canonical JSON, as hosts hold them.
pub fn recheck_json(sealed: &str, current: &str) -> Result<Recheck, String> {
    let read = |which: &str, text: &str| {
        serde_json::from_str::<Decision>(text).map_err(|e| format!("the {which} decision: {e}"))
    };
    Ok(recheck(
        &read("sealed", sealed)?,
        &read("current", current)?,
    ))
}

/// The hash a checkpoint binds of the configuration its decision was made
/// under: SHA-256 (hex) of `toolgate.config/1\n` + the configuration's
/// canonical JSON (keys sorted, no whitespace), or of its text as given when it
/// is not JSON. Two gates with the same settings agree on it whatever the
/// formatting; any changed setting changes it.
pub fn config_hash(config: &str) -> String {
    let canonical = serde_json::from_str::<serde_json::Value>(config)
        .ok()
        .and_then(|v| serde_json::to_string(&sorted(v)).ok())
        .unwrap_or_else(|| config.to_owned());
    let mut data = Vec::with_capacity(canonical.len() + 20);
    data.extend_from_slice(b"toolgate.config/1\n");
    data.extend_from_slice(canonical.as_bytes());
    super::mac::sha256_hex(&data)
}

/// `value` with every object's keys in sorted order.
fn sorted(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(action: &str, risk: &str, codes: &[&str]) -> String {
        let findings: Vec<String> = codes
            .iter()
            .map(|c| format!(r#"{{"code":"{c}","message":"m"}}"#))
            .collect();
        format!(
            r#"{{"action":"{action}","risk":"{risk}","source":"default","llm_risk":null,"findings":[{}],"summary":"s"}}"#,
            findings.join(",")
        )
    }

    #[test]
    fn an_answer_covers_only_what_was_shown() {
        let sealed = decision("confirm", "high", &["sql.destructive"]);
        let same = decision("confirm", "high", &["sql.destructive"]);
        assert_eq!(recheck_json(&sealed, &same), Ok(Recheck::Stands));
        let off = decision("deny", "high", &["config.denied"]);
        assert_eq!(recheck_json(&sealed, &off), Ok(Recheck::Denied));
        let more = decision("confirm", "high", &["sql.destructive", "sql.no-where"]);
        assert_eq!(recheck_json(&sealed, &more), Ok(Recheck::Changed));
        let other = decision("confirm", "high", &["sql.ddl"]);
        assert_eq!(recheck_json(&sealed, &other), Ok(Recheck::Changed));
        let low = decision("confirm", "medium", &["sql.destructive"]);
        let higher = decision("confirm", "high", &["sql.destructive"]);
        assert_eq!(recheck_json(&low, &higher), Ok(Recheck::Changed));
        let allowed = decision("allow", "low", &[]);
        assert_eq!(recheck_json(&sealed, &allowed), Ok(Recheck::Stands));
        assert!(recheck_json("{}", &same).is_err());
    }

    #[test]
    fn config_hash_ignores_formatting_only() {
        assert_eq!(
            config_hash(r#"{"a": 1, "b": [2]}"#),
            config_hash(r#"{"b":[2],"a":1}"#)
        );
        assert_ne!(config_hash("{}"), config_hash(r#"{"denied_tools":["x"]}"#));
        assert_eq!(config_hash("{}").len(), 64);
    }
}
