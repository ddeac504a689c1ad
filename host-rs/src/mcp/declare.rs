//! The configuration the gateway decides with: the user's (JSON or TOML,
//! read by the component) plus a declaration of every tool the server
//! listed, as an MCP tool of that server with its annotations, so the MCP
//! assessor judges it (and the server's `trusted` setting decides whether
//! its read-only hint counts).
//!
//! A tool is known to the policy as `mcp:SERVER/TOOL`, so rules and
//! `denied_tools` can name one server's tools (`mcp:github/*`) and two
//! servers' `search` never meet. What the user declares under that name
//! (`path_field`, `roots`, `always_confirm`, even annotations) is kept; the
//! gateway only fills in `kind`, `server` and the annotations the user left
//! out. A tool whose pinned definition changed is declared
//! `always_confirm` until a person approves the change.

use crate::config::{Layer, LayerText};
use crate::runtime::{Error, Policy};
use serde_json::{json, Map, Value};

/// The name a tool of `server` is known by to the policy.
pub fn qualified(server: &str, tool: &str) -> String {
    format!("mcp:{server}/{tool}")
}

/// The user's configuration as JSON (the component reads JSON and TOML by
/// content and checks it).
pub fn user_config(policy: &Policy, text: &str) -> Result<Value, Error> {
    let merged = policy.layer_config(&[LayerText {
        layer: Layer::Project,
        config: text.to_owned(),
    }])?;
    serde_json::from_str(&merged.config).map_err(|e| Error::Rejected(e.to_string()))
}

/// The configuration for `server` with `tools` (its `tools/list` entries)
/// declared; `changed` names the tools whose pin changed.
pub fn declared(user: &Value, server: &str, tools: &[Value], changed: &[String]) -> Value {
    let mut config = match user {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let servers = config
        .entry("mcp_servers")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(servers) = servers {
        servers
            .entry(server.to_owned())
            .or_insert_with(|| json!({}));
    }
    let declared = config
        .entry("tools")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(declared) = declared {
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let entry = declared
                .entry(qualified(server, name))
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(entry) = entry else {
                continue;
            };
            // A user who declared the name as another kind meant it: keep it.
            if entry.get("kind").is_some_and(|k| k != "mcp") {
                continue;
            }
            entry.insert(String::from("kind"), json!("mcp"));
            entry
                .entry("server")
                .or_insert_with(|| json!(server.to_owned()));
            if let Some(annotations) = tool.get("annotations").filter(|a| a.is_object()) {
                entry
                    .entry("annotations")
                    .or_insert_with(|| annotations.clone());
            }
            if changed.iter().any(|c| c == name) {
                entry.insert(String::from("always_confirm"), json!(true));
            }
        }
    }
    Value::Object(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_fill_in_what_the_user_left_out() {
        let user = json!({
            "mcp_servers": {"fs": {"trusted": true}},
            "tools": {"mcp:fs/read": {"path_field": "path", "roots": ["/srv"]}}
        });
        let tools = [
            json!({"name": "read", "annotations": {"readOnlyHint": true}}),
            json!({"name": "write", "annotations": {"destructiveHint": true}}),
        ];
        let config = declared(&user, "fs", &tools, &[String::from("write")]);
        assert_eq!(config["mcp_servers"]["fs"]["trusted"], json!(true));
        assert_eq!(config["tools"]["mcp:fs/read"]["roots"], json!(["/srv"]));
        assert_eq!(
            config["tools"]["mcp:fs/read"]["annotations"],
            json!({"readOnlyHint": true})
        );
        assert_eq!(config["tools"]["mcp:fs/write"]["kind"], json!("mcp"));
        assert_eq!(
            config["tools"]["mcp:fs/write"]["always_confirm"],
            json!(true)
        );
        assert_eq!(config["tools"]["mcp:fs/read"].get("always_confirm"), None);
    }
}
