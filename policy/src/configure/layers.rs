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
//! - **A managed layer locks what it denies or confirms**: a tool it denies
//!   or confirms as a whole (`denied_tools`, `always_confirm`, a deny or ask
//!   rule without a matcher) is dropped from lower layers'
//!   `auto_approved_tools`, and lower allow rules that could name it are
//!   dropped. With `locks` it locks more: `auto_approved_tools: true` drops
//!   every lower auto-approval, `allow_rules: true` every lower allow rule,
//!   `modes: true` ignores lower layers' `mode`, `strict`, `model_trust`,
//!   `medium_risk`, `egress`, `registry_level2` and `profile`. Only a managed layer may
//!   hold `locks`. Names are compared in one normal form
//!   ([`crate::toolname::fold`]).
//!
//! Each layer is first read on its own (JSON or TOML, seed 004's shape
//! included), so an error names the layer it is in.

use crate::config::{Config, ConfigError, Locks};
use crate::rules::{name_glob, name_of_literal, Effect, Rule};
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
    ("profile", "\"default\""),
];

/// Settings inside a section, taken like [`SCALARS`] from the highest layer
/// that sets them: (section, key, default).
const SECTION_SCALARS: &[(&str, &str, &str)] = &[("commands", "history_is_secret", "false")];

/// The settings `locks.modes` keeps lower layers from setting.
const MODES: &[&str] = &[
    "strict",
    "mode",
    "model_trust",
    "medium_risk",
    "egress",
    "registry_level2",
    "profile",
];

/// What the managed layers deny or confirm as a whole, and lock.
#[derive(Default)]
struct Held {
    locks: Locks,
    /// Tool names denied or always confirmed.
    names: Vec<String>,
    /// Tool patterns of deny and ask rules without a matcher.
    patterns: Vec<String>,
}

impl Held {
    /// Whether a lower layer's auto-approval of `name` is dropped.
    fn auto_approval(&self, name: &str) -> bool {
        self.locks.auto_approved_tools
            || self.names.iter().any(|n| crate::toolname::same(n, name))
            || self.patterns.iter().any(|p| name_glob(p, name))
    }

    /// Whether a lower layer's allow rule is dropped: every one under
    /// `allow_rules`, else one that could name a tool held whole (a
    /// pattern or a kind-wide rule against anything held).
    fn allow_rule(&self, rule: &Rule) -> bool {
        if rule.effect != Effect::Allow {
            return false;
        }
        if self.locks.allow_rules {
            return true;
        }
        if self.names.is_empty() && self.patterns.is_empty() {
            return false;
        }
        match rule.tool.as_deref().and_then(name_of_literal) {
            Some(name) => {
                self.names.iter().any(|n| crate::toolname::same(n, &name))
                    || self.patterns.iter().any(|p| name_glob(p, &name))
            }
            None => true,
        }
    }
}

/// What the managed layers hold.
fn held(ranked: &[(Layer, Map<String, Value>, Config)]) -> Held {
    let mut out = Held::default();
    for (_, _, config) in ranked.iter().filter(|(l, _, _)| *l == Layer::Managed) {
        out.locks.auto_approved_tools |= config.locks.auto_approved_tools;
        out.locks.allow_rules |= config.locks.allow_rules;
        out.locks.modes |= config.locks.modes;
        out.names.extend(config.denied_tools.iter().cloned());
        out.names.extend(
            config
                .tools
                .iter()
                .filter(|(_, t)| t.always_confirm)
                .map(|(n, _)| n.clone()),
        );
        out.patterns.extend(
            config
                .rules
                .iter()
                .filter(|r| r.effect != Effect::Allow && crate::rules::matcher_kind(r).is_none())
                .filter_map(|r| r.tool.clone()),
        );
    }
    out
}

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
    let mut ranked: Vec<(Layer, Map<String, Value>, Config)> = Vec::new();
    for layer in layers {
        // Each layer must be a valid configuration on its own. Checked on the
        // text (not the value read next) so a JSON error keeps its line and
        // column in the author's file; layers are read once per engine.
        let config = Config::from_text(&layer.config).map_err(|e| invalid(layer.layer, &e))?;
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
        if layer.layer != Layer::Managed && map.contains_key("locks") {
            return Err(invalid(
                layer.layer,
                &ConfigError::Invalid {
                    path: String::from("locks"),
                    message: String::from("only the managed layer locks settings"),
                },
            ));
        }
        ranked.push((layer.layer, map, config));
    }
    ranked.sort_by_key(|(layer, _, _)| *layer);
    let held = held(&ranked);
    // Lower layers under `locks.modes` set none of the modes.
    let sets = |layer: Layer, key: &str| {
        layer == Layer::Managed || !held.locks.modes || !MODES.contains(&key)
    };

    let mut merged = Map::new();
    let mut explain = Vec::new();
    for (key, default) in SCALARS {
        match ranked
            .iter()
            .filter(|(l, _, _)| sets(*l, key))
            .find_map(|(l, m, _)| m.get(*key).map(|v| (l, v)))
        {
            Some((layer, value)) => {
                merged.insert((*key).to_owned(), value.clone());
                explain.push(format!("{key} = {value}  ({})", layer.as_str()));
            }
            None => explain.push(format!("{key} = {default}  (default)")),
        }
    }
    for (section, key, default) in SECTION_SCALARS {
        match ranked
            .iter()
            .find_map(|(l, m, _)| m.get(*section)?.get(*key).map(|v| (l, v)))
        {
            Some((layer, value)) => {
                if let Value::Object(entries) = merged
                    .entry((*section).to_owned())
                    .or_insert_with(|| Value::Object(Map::new()))
                {
                    entries.insert((*key).to_owned(), value.clone());
                }
                explain.push(format!("{section}.{key} = {value}  ({})", layer.as_str()));
            }
            None => explain.push(format!("{section}.{key} = {default}  (default)")),
        }
    }
    let names = |key: &str| -> Vec<(Layer, String)> {
        ranked
            .iter()
            .flat_map(|(l, m, _)| {
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
        if !denied.iter().any(|(_, n)| crate::toolname::same(n, &name)) {
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
        if let Some((by, _)) = denied.iter().find(|(_, n)| crate::toolname::same(n, &name)) {
            explain.push(format!(
                "auto_approved_tools -= {}  ({}; denied by {})",
                Value::String(name.clone()),
                layer.as_str(),
                by.as_str()
            ));
        } else if layer != Layer::Managed && held.auto_approval(&name) {
            explain.push(format!(
                "auto_approved_tools -= {}  ({}; locked by managed)",
                Value::String(name.clone()),
                layer.as_str(),
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
    for (layer, map, config) in &ranked {
        for (rule, read) in map
            .get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .zip(&config.rules)
        {
            if *layer != Layer::Managed && held.allow_rule(read) {
                explain.push(format!(
                    "rules -= {rule}  ({}; locked by managed)",
                    layer.as_str()
                ));
                continue;
            }
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
        for (layer, map, _) in &ranked {
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
    // What the merged configuration says against itself is told, never
    // refused (seed 002's own example is one such text).
    let read = Config::from_json(&config)?;
    explain.extend(read.warnings().into_iter().map(|w| format!("warning: {w}")));
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
    fn a_managed_layer_locks_what_it_denies_or_confirms_and_what_it_locks() {
        use crate::engine::Engine;
        let managed = layer(
            Layer::Managed,
            r#"{"tools": {"execute_sql": {"always_confirm": true}}, "denied_tools": ["drop_database"],
                "rules": [{"effect": "ask", "tool": "send_*"}]}"#,
        );
        let user = layer(
            Layer::User,
            r#"{"auto_approved_tools": ["Execute_SQL", "send_email", "search_docs"],
                "rules": [{"effect": "allow", "tool": "DROP_DATABASE"}, {"effect": "allow", "tool": "*"},
                          {"effect": "allow", "tool": "execute_command", "command": ["npm", "test"]}]}"#,
        );
        let out = layered(&[managed.clone(), user.clone()]).unwrap();
        let config = Config::from_json(&out.config).unwrap();
        assert!(config.auto_approved_tools.contains("search_docs"));
        assert!(!config.auto_approved_tools.contains("Execute_SQL"));
        assert!(!config.auto_approved_tools.contains("send_email"));
        assert_eq!(config.rules.len(), 2, "{:?}", config.rules);
        let text = out.explain.join("\n");
        assert!(
            text.contains("auto_approved_tools -= \"Execute_SQL\"  (user; locked by managed)"),
            "{text}"
        );
        let engine = Engine::new(config);
        let low = r#"{"sql": "SELECT 1", "risk_level": "low"}"#;
        assert_eq!(
            engine.assess("Execute_SQL", low).action,
            crate::Action::Confirm
        );
        assert_eq!(
            engine.assess("Drop_Database", "{}").action,
            crate::Action::Deny
        );
        assert_eq!(
            engine
                .assess("execute_command", r#"{"command": "npm test"}"#)
                .action,
            crate::Action::Allow
        );

        // Without a lock, a lower layer loosens what the managed one left open.
        let open = layer(Layer::Managed, r#"{"strict": false}"#);
        let loose = layer(
            Layer::User,
            r#"{"mode": "accept-edits", "auto_approved_tools": ["execute_command"], "rules": [{"effect": "allow", "tool": "*"}]}"#,
        );
        let config = Config::from_json(&layered(&[open, loose.clone()]).unwrap().config).unwrap();
        assert!(config.auto_approved_tools.contains("execute_command"));
        // With one, it does not.
        let locked = layer(
            Layer::Managed,
            "[locks]\nauto_approved_tools = true\nallow_rules = true\nmodes = true\n",
        );
        let out = layered(&[locked, loose]).unwrap();
        let config = Config::from_json(&out.config).unwrap();
        assert!(config.auto_approved_tools.is_empty());
        assert!(config.rules.is_empty());
        assert_eq!(config.mode, crate::config::Mode::Default);
        let engine = Engine::new(config);
        assert_ne!(
            engine
                .assess(
                    "execute_command",
                    r#"{"command": "rm -rf /", "risk_level": "low"}"#
                )
                .action,
            crate::Action::Allow
        );
        // Only the managed layer locks.
        let err = layered(&[layer(Layer::Project, r#"{"locks": {"modes": true}}"#)]).unwrap_err();
        assert!(err.to_string().contains("only the managed layer"), "{err}");
        // Two spellings of one name across layers are refused.
        let err = layered(&[
            managed,
            layer(
                Layer::Project,
                r#"{"tools": {"Execute_SQL": {"kind": "sql"}}}"#,
            ),
        ])
        .unwrap_err();
        assert!(err.to_string().contains("one tool name"), "{err}");
        let _ = user;
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
        assert_eq!(out.explain.len(), SCALARS.len() + SECTION_SCALARS.len());
        // Every default the explanation prints is the configuration's own.
        for (key, default) in SCALARS {
            let alone = Config::from_json(&format!("{{\"{key}\": {default}}}")).unwrap();
            assert_eq!(alone, Config::default(), "{key}");
        }
        for (section, key, default) in SECTION_SCALARS {
            let alone =
                Config::from_json(&format!("{{\"{section}\": {{\"{key}\": {default}}}}}")).unwrap();
            assert_eq!(alone, Config::default(), "{section}.{key}");
        }
    }

    #[test]
    fn a_section_setting_comes_from_the_highest_layer_that_sets_it() {
        let out = layered(&[
            layer(
                Layer::Project,
                r#"{"commands": {"history_is_secret": false}}"#,
            ),
            layer(
                Layer::Managed,
                r#"{"commands": {"history_is_secret": true}}"#,
            ),
        ])
        .unwrap();
        assert!(
            Config::from_json(&out.config)
                .unwrap()
                .commands
                .history_is_secret
        );
        assert!(out
            .explain
            .iter()
            .any(|l| l == "commands.history_is_secret = true  (managed)"));
    }
}
