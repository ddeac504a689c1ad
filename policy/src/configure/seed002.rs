//! Seed 002's tool definitions, read as written (§2.1–2.3): the `ai_tool`
//! table's row as JSON, or the §2.3 definition, in any of three places:
//!
//! - the whole configuration is one definition (an object with `name`);
//! - the whole configuration is a list of them (a JSON array);
//! - `tools` holds a list of them, or maps names to entries written in the
//!   seed's spelling.
//!
//! Each definition becomes the policy's own entry under `tools`, by its
//! name: `type` is the policy's `kind` (`api`, `mcp`, `script`; the table's
//! default `api` when a definition names neither), `url_pattern` its `url`,
//! `mcp_server_id` its `server`, `enabled` as the table stores it (`0`/`1`)
//! or as a boolean. What the database keeps for itself (`id`, `created_at`,
//! `updated_at`) is dropped, and so is a column left `NULL`. The table
//! stores `keywords`, the schemas and `example_params` as text holding
//! JSON; that text is read as the JSON it holds. Everything else is read by
//! the policy's own rules, unknown fields included: a misspelt column is an
//! error, as everywhere in the configuration.

use crate::config::ConfigError;
use serde_json::{Map, Value};

/// Columns of the table that are the database's own bookkeeping.
const BOOKKEEPING: [&str; 3] = ["id", "created_at", "updated_at"];

/// Columns the table stores as text holding JSON (§2.1: `text COMMENT
/// 'JSON Schema: …'`, `'JSON 数组: …'`, `'示例参数 JSON'`).
const JSON_TEXT: [&str; 5] = [
    "keywords",
    "path_params_schema",
    "query_params_schema",
    "request_body_schema",
    "example_params",
];

fn bad(path: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Whether a configuration value is written (in part) in seed 002's shape,
/// so that [`lift`] has something to do.
pub(super) fn applies(value: &Value) -> bool {
    match value {
        Value::Array(_) => true,
        Value::Object(top) => {
            top.contains_key("name")
                || match top.get("tools") {
                    Some(Value::Array(_)) => true,
                    Some(Value::Object(tools)) => tools.values().any(|entry| {
                        entry.as_object().is_some_and(|e| {
                            e.contains_key("type")
                                || e.contains_key("name")
                                || e.contains_key("mcp_server_id")
                                || BOOKKEEPING.iter().any(|k| e.contains_key(*k))
                                || e.get("enabled").is_some_and(Value::is_number)
                                || JSON_TEXT
                                    .iter()
                                    .any(|k| e.get(*k).is_some_and(Value::is_string))
                        })
                    }),
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The configuration with seed 002's definitions turned into the policy's
/// own `tools` entries.
pub(super) fn lift(value: Value) -> Result<Value, ConfigError> {
    let mut top = match value {
        Value::Array(items) => {
            let mut top = Map::new();
            top.insert(String::from("tools"), Value::Array(items));
            top
        }
        Value::Object(top) if top.contains_key("name") => {
            let mut wrapped = Map::new();
            wrapped.insert(
                String::from("tools"),
                Value::Array(vec![Value::Object(top)]),
            );
            wrapped
        }
        Value::Object(top) => top,
        _ => {
            return Err(bad(
                ".",
                "expected an object, or a list of tool definitions",
            ))
        }
    };
    let tools = match top.remove("tools") {
        None => return Ok(Value::Object(top)),
        Some(Value::Array(items)) => {
            let mut tools = Map::new();
            for (i, item) in items.into_iter().enumerate() {
                let path = format!("tools[{i}]");
                let Value::Object(entry) = item else {
                    return Err(bad(&path, "expected a tool definition (an object)"));
                };
                let name = match entry.get("name") {
                    Some(Value::String(name)) if !name.is_empty() => name.clone(),
                    _ => return Err(bad(&path, "a tool definition needs its `name`")),
                };
                if tools.contains_key(&name) {
                    return Err(bad(
                        &path,
                        format!("`{name}` is defined twice: a tool's name is unique (§2.1)"),
                    ));
                }
                let entry = lift_entry(&format!("tools.{name}"), &name, entry, true)?;
                tools.insert(name, Value::Object(entry));
            }
            tools
        }
        Some(Value::Object(map)) => {
            let mut tools = Map::new();
            for (name, entry) in map {
                let lifted = match entry {
                    Value::Object(entry) => {
                        Value::Object(lift_entry(&format!("tools.{name}"), &name, entry, false)?)
                    }
                    other => other,
                };
                tools.insert(name, lifted);
            }
            tools
        }
        Some(other) => {
            // Left for the policy's own reader, which names what it expected.
            top.insert(String::from("tools"), other);
            return Ok(Value::Object(top));
        }
    };
    top.insert(String::from("tools"), Value::Object(tools));
    Ok(Value::Object(top))
}

/// One definition in the policy's spelling. `row`: written as seed 002
/// writes a definition (in a list, or as the whole configuration), so the
/// table's default type `api` applies when none is named.
fn lift_entry(
    path: &str,
    name: &str,
    mut entry: Map<String, Value>,
    row: bool,
) -> Result<Map<String, Value>, ConfigError> {
    if let Some(written) = entry.remove("name") {
        if written.as_str() != Some(name) {
            return Err(bad(
                &format!("{path}.name"),
                format!("names another tool than the entry's key `{name}`"),
            ));
        }
    }
    for key in BOOKKEEPING {
        entry.remove(key);
    }
    // A NULL column is an unset one.
    entry.retain(|_, value| !value.is_null());
    match (entry.remove("type"), entry.get("kind")) {
        (Some(kind), None) => {
            entry.insert(String::from("kind"), kind);
        }
        (Some(kind), Some(other)) if kind == *other => {}
        (Some(_), Some(_)) => {
            return Err(bad(
                &format!("{path}.type"),
                "`type` and `kind` are one setting and disagree",
            ))
        }
        (None, None) if row => {
            entry.insert(String::from("kind"), Value::from("api"));
        }
        (None, _) => {}
    }
    if let Some(server) = entry.remove("mcp_server_id") {
        let id = match &server {
            Value::Number(n) => n.to_string(),
            Value::String(s) if !s.is_empty() => s.clone(),
            _ => {
                return Err(bad(
                    &format!("{path}.mcp_server_id"),
                    "expected the MCP server's id (a number or a name)",
                ))
            }
        };
        if entry
            .get("server")
            .is_some_and(|s| s.as_str() != Some(id.as_str()))
        {
            return Err(bad(
                &format!("{path}.mcp_server_id"),
                "`mcp_server_id` and `server` are one setting and disagree",
            ));
        }
        entry.insert(String::from("server"), Value::from(id));
    }
    if let Some(enabled) = entry.get_mut("enabled") {
        if let Value::Number(n) = enabled {
            *enabled = match n.as_u64() {
                Some(0) => Value::Bool(false),
                Some(1) => Value::Bool(true),
                _ => {
                    return Err(bad(
                        &format!("{path}.enabled"),
                        "expected 0 or 1 (or false or true)",
                    ))
                }
            };
        }
    }
    for key in JSON_TEXT {
        if let Some(value) = entry.get_mut(key) {
            if let Value::String(text) = value {
                *value = serde_json::from_str(text).map_err(|e| {
                    bad(
                        &format!("{path}.{key}"),
                        format!("the text is not the JSON it should hold: {e}"),
                    )
                })?;
            }
        }
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_becomes_an_entry() {
        let row = json!({
            "id": 7, "name": "m", "type": "mcp", "mcp_server_id": 3, "mcp_tool_name": "search",
            "method": null, "enabled": 1, "keywords": "[\"搜索\"]", "created_at": 1, "updated_at": 2
        });
        let lifted = lift(row).unwrap();
        assert_eq!(
            lifted,
            json!({"tools": {"m": {"kind": "mcp", "server": "3", "mcp_tool_name": "search",
                                   "enabled": true, "keywords": ["搜索"]}}})
        );
    }

    #[test]
    fn lists_and_maps_are_lifted_and_own_configs_are_not() {
        let list = lift(json!([{"name": "a", "method": "GET", "url_pattern": "/a"}])).unwrap();
        assert_eq!(list["tools"]["a"]["kind"], "api");
        let under =
            lift(json!({"strict": true, "tools": [{"name": "a", "type": "script"}]})).unwrap();
        assert_eq!(under["tools"]["a"]["kind"], "script");
        assert_eq!(under["strict"], true);
        let map = lift(json!({"tools": {"a": {"type": "api", "name": "a"}}})).unwrap();
        assert_eq!(map["tools"]["a"], json!({"kind": "api"}));
        assert!(!applies(
            &json!({"tools": {"a": {"kind": "api", "method": "GET"}}})
        ));
        assert!(applies(&json!({"tools": {"a": {"type": "api"}}})));
        // A null alone is the policy's own spelling of an unset field, not a
        // table row: the policy's reader (with line and column) reads it.
        assert!(!applies(
            &json!({"tools": {"a": {"kind": "sql", "field": null}}})
        ));
    }

    #[test]
    fn contradictions_in_the_shape_are_errors() {
        let err = |v: Value| lift(v).unwrap_err().to_string();
        assert!(err(json!([{"name": "a"}, {"name": "a"}])).contains("twice"));
        assert!(err(json!([{"type": "api"}])).contains("`name`"));
        assert!(err(json!({"tools": {"a": {"name": "b"}}})).contains("tools.a.name"));
        assert!(err(json!({"tools": {"a": {"type": "api", "kind": "mcp"}}})).contains("disagree"));
        assert!(err(json!([{"name": "a", "enabled": 2}])).contains("0 or 1"));
        assert!(err(json!([{"name": "a", "keywords": "[x"}])).contains("tools.a.keywords"));
        assert!(err(json!(5)).contains("expected an object"));
    }
}
