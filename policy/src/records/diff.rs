//! What a person changed in a call's arguments before approving it, for the
//! audit: one [`Change`] per JSON Pointer (RFC 6901) whose value differs.
//! Objects are compared key by key, recursively; arrays and scalars as whole
//! values. Arguments the model sent that are not JSON are compared as text.

use serde_json::Value;
pub use toolgate_shapes::records::Change;

/// Why a diff could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    /// The edited arguments are not a JSON object.
    #[error("the edited arguments are not a JSON object: {0}")]
    NotAnObject(String),
}

fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn walk(path: &str, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<Change>) {
    match (before, after) {
        (Some(Value::Object(b)), Some(Value::Object(a))) => {
            for (key, value) in b {
                walk(
                    &format!("{path}/{}", pointer_token(key)),
                    Some(value),
                    a.get(key),
                    out,
                );
            }
            for (key, value) in a {
                if !b.contains_key(key) {
                    walk(
                        &format!("{path}/{}", pointer_token(key)),
                        None,
                        Some(value),
                        out,
                    );
                }
            }
        }
        (b, a) if b == a => {}
        (b, a) => out.push(Change {
            path: path.to_owned(),
            before: b.cloned(),
            after: a.cloned(),
        }),
    }
}

/// The changes from `before` (the model's arguments, any text) to `after` (a
/// person's edit, which must be a JSON object).
pub fn args_diff(before: &str, after: &str) -> Result<Vec<Change>, DiffError> {
    let after: Value =
        serde_json::from_str(after).map_err(|e| DiffError::NotAnObject(e.to_string()))?;
    if !after.is_object() {
        return Err(DiffError::NotAnObject(String::from("another JSON type")));
    }
    let before = serde_json::from_str::<Value>(before)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::String(before.to_owned()));
    let mut out = Vec::new();
    walk("", Some(&before), Some(&after), &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(before: &str, after: &str) -> String {
        serde_json::to_string(&args_diff(before, after).unwrap_or_default()).unwrap_or_default()
    }

    #[test]
    fn changes_by_pointer() {
        assert_eq!(diff(r#"{"a":1}"#, r#"{"a":1}"#), "[]");
        assert_eq!(
            diff(
                r#"{"sql":"DELETE FROM t","risk_level":"low"}"#,
                r#"{"sql":"DELETE FROM t WHERE id = 1"}"#
            ),
            r#"[{"path":"/sql","before":"DELETE FROM t","after":"DELETE FROM t WHERE id = 1"},{"path":"/risk_level","before":"low","after":null}]"#
        );
        assert_eq!(
            diff(
                r#"{"o":{"a/b":1,"k":[1]}}"#,
                r#"{"o":{"a/b":2,"k":[1]},"n":true}"#
            ),
            r#"[{"path":"/o/a~1b","before":1,"after":2},{"path":"/n","before":null,"after":true}]"#
        );
        // Malformed model arguments, fixed by the person.
        assert_eq!(
            diff(r#"{"sql": "#, r#"{"sql":"SELECT 1"}"#),
            r#"[{"path":"","before":"{\"sql\": ","after":{"sql":"SELECT 1"}}]"#
        );
        assert!(args_diff("{}", "[1]").is_err());
        assert!(args_diff("{}", "{").is_err());
    }
}
