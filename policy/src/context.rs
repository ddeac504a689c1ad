//! What the caller knows about the call besides its arguments: who the user
//! behind the conversation is as seed 002 §6.1 checks it (the user's roles,
//! the permission points they hold, the resources they own), the defaults
//! of their account (§4.3: the default business group), and whether the
//! executor that will run the call confines it.

use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A role's grant of every permission (seed 002's deployments give their
/// administrators' role all of them).
pub const EVERY_PERMISSION: &str = "*";

/// The caller's context for one decision, read from JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Context {
    /// The permissions the user holds. `None` (absent) means "unknown": a tool
    /// that requires a permission is then confirmed, never allowed unchecked.
    pub permissions: Option<BTreeSet<String>>,
    /// The user's roles (§6.1 "检查用户角色"). A role grants the permissions
    /// `role_permissions` lists for it (`*`: every one); a role it does not
    /// list grants none. With roles given and `permissions` absent, the
    /// user holds exactly what the roles grant.
    pub roles: Option<BTreeSet<String>>,
    /// The permissions each role grants, as the deployment's role table says.
    pub role_permissions: BTreeMap<String, BTreeSet<String>>,
    /// The resources the user owns, by the argument that names one (§6.1
    /// "检查资源归属"): `{"group_id": [1, 2]}` lets a registry tool's call
    /// name business group 1 or 2 and denies it any other. An argument not
    /// listed is not checked.
    pub resources: BTreeMap<String, Vec<Value>>,
    /// Values for arguments the model leaves out, from the user's account
    /// (§4.3: "group_id 未指定 -> 使用用户默认业务组"): filled in by argument
    /// completion for a parameter the tool declares, never by a decision.
    pub defaults: BTreeMap<String, Value>,
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
    /// Reads a context; empty text is the empty context. A list of
    /// contexts is one context, merged in order (see `merge`): a CLI
    /// passes the `--context` file's text and its flags as `[file, flags]`
    /// without reading the file itself, so the file's numbers and strings
    /// reach this reader exactly as written, in every host.
    pub fn from_json(text: &str) -> Result<Context, ContextError> {
        if text.trim().is_empty() {
            return Ok(Context::default());
        }
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| ContextError {
            path: String::from("."),
            message: e.to_string(),
        })?;
        let value = match value {
            Value::Array(parts) => merge(parts)?,
            one => one,
        };
        serde_path_to_error::deserialize(value).map_err(|e| ContextError {
            path: e.path().to_string(),
            message: e.into_inner().to_string(),
        })
    }
}

/// The fields whose value is a table merged key by key when contexts are
/// merged: a later context adds a role, a resource or a default, or
/// replaces the one of the same name, and keeps the others.
const MERGED_BY_KEY: [&str; 3] = ["role_permissions", "resources", "defaults"];

/// Contexts given as a list, merged in order into one: a field a later
/// context sets replaces the earlier one's (`permissions`, `roles`,
/// `confined`), except the tables of [`MERGED_BY_KEY`], merged key by key.
/// Every item must be an object (a list within the list is refused: one
/// level says everything a caller layers).
fn merge(parts: Vec<Value>) -> Result<Value, ContextError> {
    let mut merged = serde_json::Map::new();
    for (index, part) in parts.into_iter().enumerate() {
        let Value::Object(fields) = part else {
            return Err(ContextError {
                path: format!("[{index}]"),
                message: String::from("each context of a list must be an object"),
            });
        };
        for (name, value) in fields {
            match (merged.get_mut(&name), value) {
                (Some(Value::Object(earlier)), Value::Object(later))
                    if MERGED_BY_KEY.contains(&name.as_str()) =>
                {
                    earlier.extend(later);
                }
                (_, value) => {
                    merged.insert(name, value);
                }
            }
        }
    }
    Ok(Value::Object(merged))
}

impl Context {
    /// Whether the user holds `permission`, in person or through a role:
    /// `None` when neither permissions nor roles are known.
    pub fn grants(&self, permission: &str) -> Option<bool> {
        if self.permissions.is_none() && self.roles.is_none() {
            return None;
        }
        let own = self
            .permissions
            .as_ref()
            .is_some_and(|p| p.contains(permission));
        let by_role = self.roles.iter().flatten().any(|role| {
            self.role_permissions
                .get(role)
                .is_some_and(|p| p.contains(permission) || p.contains(EVERY_PERMISSION))
        });
        Some(own || by_role)
    }

    /// The first argument naming a resource the user does not own: its name
    /// and value as text. An argument holding a list must name owned
    /// resources only; a value compares with an owned one as JSON, or as
    /// the same text (`"1"` and `1`: hosts and models write ids both ways).
    pub fn unowned(&self, args: &serde_json::Map<String, Value>) -> Option<(String, String)> {
        fn text(value: &Value) -> String {
            match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }
        }
        for (name, owned) in &self.resources {
            let Some(given) = args.get(name).filter(|v| !v.is_null()) else {
                continue;
            };
            let items: Vec<&Value> = match given {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            for item in items {
                let mine = !matches!(item, Value::Object(_) | Value::Array(_))
                    && owned.iter().any(|o| o == item || text(o) == text(item));
                if !mine {
                    return Some((name.clone(), text(item)));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(text: &str) -> Context {
        Context::from_json(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn roles_grant_what_the_role_table_lists() {
        let c = context(
            r#"{"roles": ["Standard"], "role_permissions": {"Standard": ["/alert-mutes/add"], "Admin": ["*"]}}"#,
        );
        assert_eq!(c.grants("/alert-mutes/add"), Some(true));
        assert_eq!(c.grants("/users/add"), Some(false));
        let admin = context(r#"{"roles": ["Admin"], "role_permissions": {"Admin": ["*"]}}"#);
        assert_eq!(admin.grants("/users/add"), Some(true));
        // A role the table does not list grants nothing; nothing known is unknown.
        assert_eq!(context(r#"{"roles": ["Guest"]}"#).grants("x"), Some(false));
        assert_eq!(context("{}").grants("x"), None);
        assert_eq!(
            context(r#"{"permissions": ["x"], "roles": []}"#).grants("x"),
            Some(true)
        );
    }

    #[test]
    fn resources_are_owned_by_value_or_text() {
        let c = context(r#"{"resources": {"group_id": [1, "2"]}}"#);
        let args = |v: serde_json::Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(c.unowned(&args(serde_json::json!({"group_id": 1}))), None);
        assert_eq!(c.unowned(&args(serde_json::json!({"group_id": "1"}))), None);
        assert_eq!(
            c.unowned(&args(serde_json::json!({"group_id": [2, 1]}))),
            None
        );
        assert_eq!(c.unowned(&args(serde_json::json!({"other": 9}))), None);
        assert_eq!(
            c.unowned(&args(serde_json::json!({"group_id": [1, 3]}))),
            Some((String::from("group_id"), String::from("3")))
        );
        assert!(c
            .unowned(&args(serde_json::json!({"group_id": {"id": 1}})))
            .is_some());
        assert!(Context::from_json(r#"{"resource": {}}"#).is_err());
    }

    #[test]
    fn a_list_of_contexts_is_merged_in_order() {
        let c = context(
            r#"[{"permissions": ["a"], "roles": ["Guest"], "role_permissions": {"Admin": ["*"], "Standard": ["b"]},
                 "resources": {"group_id": [1]}, "defaults": {"group_id": 1, "prod": "host"}},
                {"roles": ["Standard"], "role_permissions": {"Standard": ["c"]},
                 "resources": {"instance_id": [3]}, "defaults": {"group_id": 2}}]"#,
        );
        // Replaced whole: roles; kept: permissions.
        assert_eq!(c.permissions, Some(BTreeSet::from([String::from("a")])));
        assert_eq!(c.roles, Some(BTreeSet::from([String::from("Standard")])));
        // Merged by key: the later role row replaces its own, keeps Admin.
        assert_eq!(c.grants("c"), Some(true));
        assert_eq!(c.grants("b"), Some(false));
        assert_eq!(c.role_permissions.len(), 2);
        assert_eq!(c.resources.len(), 2);
        assert_eq!(c.defaults.get("group_id"), Some(&serde_json::json!(2)));
        assert_eq!(c.defaults.get("prod"), Some(&serde_json::json!("host")));
        assert_eq!(context("[]"), Context::default());
        // Errors name the item, or the merged field.
        let nested = Context::from_json(r#"[{}, [{}]]"#).err();
        assert_eq!(nested.map(|e| e.path), Some(String::from("[1]")));
        let bad = Context::from_json(r#"[{}, {"roles": "Admin"}]"#).err();
        assert_eq!(bad.map(|e| e.path), Some(String::from("roles")));
    }
}
