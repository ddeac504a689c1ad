//! Layered configuration: an organisation's managed settings, a project's and
//! a user's, merged into the one configuration a policy runs with, and an
//! explanation of where each effective setting came from.
//!
//! The layers rank managed > project > user (session grants rank below all
//! three: they only ever allow, and every deny and ask outranks an allow).
//! Merged by these rules:
//! - **Denials and rules accumulate.** `denied_tools` is the union of every
//!   layer's; `rules` are every layer's, managed first. Since a deny rule or
//!   a denied tool outranks every allow in the decision order, no layer can
//!   lift a denial another made — least of all a managed one.
//! - **Auto-approval accumulates but never beats a denial**: a tool one layer
//!   denies is dropped from another's `auto_approved_tools` (and the
//!   explanation says so) instead of making the merge fail.
//! - **Everything else is taken whole from the highest layer that sets it**:
//!   each top-level setting (`strict`, `mode`, `egress`, …), each tool's
//!   settings under `tools` and each server's under `mcp_servers`.
//!
//! Each layer is first read on its own (JSON or TOML, seed 004's shape
//! included), so an error names the layer it is in.

use super::{Config, ConfigError};
use serde_json::{Map, Value};

pub use toolgate_shapes::config::{Layer, LayerText, Layered};

/// The settings taken from the highest layer that sets them, with their
/// defaults for the explanation (every scalar field of [`Config`]).
const SCALARS: &[(&str, &str)] = &[
    ("strict", "false"),
    ("mode", "\"default\""),
    ("model_trust", "\"guarded\""),
    ("medium_risk", "\"confirm\""),
    ("registry_level2", "\"confirm\""),
    ("egress", "\"public\""),
    ("max_args_bytes", "1048576"),
    ("approval_timeout_ms", "null"),
];

/// Settings merged by name: the highest layer's entry for each name wins.
const MAPS: &[&str] = &["tools", "mcp_servers"];

fn invalid(layer: Layer, e: &ConfigError) -> ConfigError {
    ConfigError::InLayer {
        layer: layer.as_str(),
        source: Box::new(e.clone()),
    }
}

/// Merges `layers` (in any order; two of one rank are read in the order
/// given, the first ranking higher).
pub fn layered(layers: &[LayerText]) -> Result<Layered, ConfigError> {
    let mut ranked: Vec<(Layer, Map<String, Value>)> = Vec::new();
    for layer in layers {
        // Each layer must be a valid configuration on its own. Checked on the
        // text (not the value read next) so a JSON error keeps its line and
        // column in the author's file; layers are read once per engine.
        Config::from_text(&layer.config).map_err(|e| invalid(layer.layer, &e))?;
        let value = Config::value_of_text(&layer.config).map_err(|e| invalid(layer.layer, &e))?;
        let Value::Object(map) = value else {
            return Err(invalid(
                layer.layer,
                &ConfigError::Invalid {
                    path: String::from("."),
                    message: String::from("expected an object"),
                },
            ));
        };
        ranked.push((layer.layer, map));
    }
    ranked.sort_by_key(|(layer, _)| *layer);

    let mut merged = Map::new();
    let mut explain = Vec::new();
    for (key, default) in SCALARS {
        match ranked.iter().find_map(|(l, m)| m.get(*key).map(|v| (l, v))) {
            Some((layer, value)) => {
                merged.insert((*key).to_owned(), value.clone());
                explain.push(format!("{key} = {value}  ({})", layer.as_str()));
            }
            None => explain.push(format!("{key} = {default}  (default)")),
        }
    }
    let names = |key: &str| -> Vec<(Layer, String)> {
        ranked
            .iter()
            .flat_map(|(l, m)| {
                m.get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(move |n| (*l, n.to_owned()))
            })
            .collect()
    };
    let mut denied: Vec<(Layer, String)> = Vec::new();
    for (layer, name) in names("denied_tools") {
        if !denied.iter().any(|(_, n)| *n == name) {
            explain.push(format!(
                "denied_tools += {}  ({})",
                Value::String(name.clone()),
                layer.as_str()
            ));
            denied.push((layer, name));
        }
    }
    let mut approved: Vec<String> = Vec::new();
    for (layer, name) in names("auto_approved_tools") {
        if let Some((by, _)) = denied.iter().find(|(_, n)| *n == name) {
            explain.push(format!(
                "auto_approved_tools -= {}  ({}; denied by {})",
                Value::String(name.clone()),
                layer.as_str(),
                by.as_str()
            ));
        } else if !approved.contains(&name) {
            explain.push(format!(
                "auto_approved_tools += {}  ({})",
                Value::String(name.clone()),
                layer.as_str()
            ));
            approved.push(name);
        }
    }
    let list = |items: Vec<String>| Value::Array(items.into_iter().map(Value::String).collect());
    if !denied.is_empty() {
        merged.insert(
            String::from("denied_tools"),
            list(denied.into_iter().map(|(_, n)| n).collect()),
        );
    }
    if !approved.is_empty() {
        merged.insert(String::from("auto_approved_tools"), list(approved));
    }
    let mut rules = Vec::new();
    for (layer, map) in &ranked {
        for rule in map
            .get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            explain.push(format!(
                "rules[{}] = {rule}  ({})",
                rules.len(),
                layer.as_str()
            ));
            rules.push(rule.clone());
        }
    }
    if !rules.is_empty() {
        merged.insert(String::from("rules"), Value::Array(rules));
    }
    for key in MAPS {
        let mut entries = Map::new();
        for (layer, map) in &ranked {
            for (name, entry) in map
                .get(*key)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if !entries.contains_key(name) {
                    explain.push(format!("{key}.{name}  ({})", layer.as_str()));
                    entries.insert(name.clone(), entry.clone());
                }
            }
        }
        if !entries.is_empty() {
            merged.insert((*key).to_owned(), Value::Object(entries));
        }
    }
    let config = Value::Object(merged).to_string();
    // The merge of valid layers is checked as a whole too (a tool's settings
    // from one layer against a kind from another, for instance).
    Config::from_json(&config)?;
    Ok(Layered { config, explain })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(layer: Layer, config: &str) -> LayerText {
        LayerText {
            layer,
            config: config.to_owned(),
        }
    }

    #[test]
    fn managed_denials_hold_and_the_highest_layer_sets_the_rest() {
        let out = layered(&[
            layer(
                Layer::User,
                r#"{"strict": false, "mode": "accept-edits", "auto_approved_tools": ["drop_database", "send_email"],
                    "rules": [{"effect": "allow", "tool": "execute_command", "command": ["npm", "test"]}],
                    "tools": {"execute_sql": {"dialect": "mysql"}}}"#,
            ),
            layer(
                Layer::Managed,
                "strict = true\ndenied_tools = [\"drop_database\"]\n[[rules]]\neffect = \"deny\"\ntool = \"execute_command\"\ncommand = [\"git\", \"push\", \"--force\"]\n",
            ),
            layer(Layer::Project, r#"{"mode": "allowlist", "tools": {"execute_sql": {"dialect": "postgres"}}}"#),
        ])
        .unwrap();
        let config = Config::from_json(&out.config).unwrap();
        assert!(config.strict, "managed wins");
        assert_eq!(config.mode.as_str(), "allowlist", "project over user");
        assert!(config.denied_tools.contains("drop_database"));
        assert!(
            !config.auto_approved_tools.contains("drop_database"),
            "a denial beats an approval"
        );
        assert!(config.auto_approved_tools.contains("send_email"));
        assert_eq!(
            config.tools["execute_sql"].dialect.as_deref(),
            Some("postgres")
        );
        assert_eq!(config.rules.len(), 2);
        assert_eq!(
            config.rules[0].effect,
            crate::rules::Effect::Deny,
            "managed rules first"
        );
        let text = out.explain.join("\n");
        for line in [
            "strict = true  (managed)",
            "mode = \"allowlist\"  (project)",
            "egress = \"public\"  (default)",
            "denied_tools += \"drop_database\"  (managed)",
            "auto_approved_tools -= \"drop_database\"  (user; denied by managed)",
            "auto_approved_tools += \"send_email\"  (user)",
            "tools.execute_sql  (project)",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        assert!(
            text.contains(
                "rules[0] = {\"command\":[\"git\",\"push\",\"--force\"],\"effect\":\"deny\""
            ),
            "{text}"
        );
        assert!(text.contains("rules[1] = {\"effect\":\"allow\""), "{text}");
    }

    #[test]
    fn an_error_names_its_layer_and_an_empty_stack_is_the_default() {
        let e = layered(&[layer(Layer::Project, r#"{"strcit": true}"#)]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the project layer: invalid configuration at `strcit`"),
            "{e}"
        );
        let out = layered(&[]).unwrap();
        assert_eq!(Config::from_json(&out.config).unwrap(), Config::default());
        assert_eq!(out.explain.len(), SCALARS.len());
        // Every default the explanation prints is the configuration's own.
        for (key, default) in SCALARS {
            let alone = Config::from_json(&format!("{{\"{key}\": {default}}}")).unwrap();
            assert_eq!(alone, Config::default(), "{key}");
        }
    }
}
