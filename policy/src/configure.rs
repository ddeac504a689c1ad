//! Reading a configuration: JSON or TOML text (in the policy's own shape,
//! seed 004's `workflow` shape or seed 002's tool definitions) into the plain
//! data of [`crate::config`], checked against the rules and the assessors it
//! names, and the merge of layered configurations.
//!
//! The configuration's types know nothing of the rules or the assessors; this
//! module reads them all, so the dependency runs one way: the assessors and
//! the rules read the configuration, and reading a configuration uses them.

use crate::config::{
    Config, ConfigError, Level2, MediumRisk, ModelTrust, Profile, ToolConfig, ToolKind,
};
use std::collections::BTreeSet;

pub mod layers;
mod locate;
mod names;
mod seed002;
pub mod workflow;

impl Config {
    /// Reads a configuration from JSON. An empty or whitespace-only text is the
    /// default configuration.
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        // Deserialize from the text itself, so errors carry line and column.
        if !text.trim_start().starts_with('{') {
            let kind = serde_json::from_str::<serde_json::Value>(text)
                .map(|v| crate::args::json_type(&v))
                .unwrap_or("not JSON");
            return Err(ConfigError::Invalid {
                path: String::from("."),
                message: format!("expected an object, not {kind}"),
            });
        }
        let value: serde_json::Value =
            names::json_value(text).map_err(|e| ConfigError::Invalid {
                path: String::from("."),
                message: e.to_string(),
            })?;
        check_profile(&value)?;
        let config: Config = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            // The position of the member at fault, found in the text by its path.
            let at = locate::locate(text, &path)
                .map(|(line, column)| format!(" at line {line} column {column}"))
                .unwrap_or_default();
            ConfigError::Invalid {
                message: format!("{}{at}", e.into_inner()),
                path,
            }
        })?;
        let config = config.with_profile();
        config.validate()?;
        Ok(config)
    }

    /// Reads a configuration from JSON or TOML (text whose first non-blank
    /// character is not `{`, and that is not a JSON array, is read as TOML).
    /// Either may be written in seed 004's shape (`workflow.config.
    /// toolApproval`; see `configure::workflow`) or carry seed 002's tool definitions
    /// (one, a list, or a list under `tools`; see `config::seed002`).
    pub fn from_text(text: &str) -> Result<Config, ConfigError> {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Ok(Config::default());
        }
        // The policy's own JSON is read from its text, so errors carry line
        // and column; seed 004's and seed 002's shapes are lifted first.
        if trimmed.starts_with('{')
            && !workflow::mentions_workflow(text)
            && names::json_value(text).map_or(true, |v| !seed002::applies(&v))
        {
            return Config::from_json(text);
        }
        let value = Config::value_of_text(text)?;
        check_profile(&value)?;
        // Read from the value itself: positions in a JSON text made from TOML
        // would point nowhere the author wrote.
        let config: Config = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            ConfigError::Invalid {
                path,
                message: e.into_inner().to_string(),
            }
        })?;
        let config = config.with_profile();
        config.validate()?;
        Ok(config)
    }

    /// The JSON value of a configuration text (JSON or TOML, seed 004's shape
    /// lifted into the policy's own), not yet checked.
    pub(crate) fn value_of_text(text: &str) -> Result<serde_json::Value, ConfigError> {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Ok(serde_json::Value::Object(serde_json::Map::new()));
        }
        // A JSON array is seed 002's list of tool definitions; TOML may
        // also begin with `[` (a table header), so it is JSON only if it reads.
        let json_list = trimmed
            .starts_with('[')
            .then(|| names::json_value(text).ok())
            .flatten();
        let value: serde_json::Value = if let Some(list) = json_list {
            list
        } else if trimmed.starts_with('{') {
            names::json_value(text).map_err(|e| ConfigError::Invalid {
                path: String::from("."),
                message: e.to_string(),
            })?
        } else {
            toml::from_str(text).map_err(|e| {
                // Where: the line of the error's first byte, as JSON errors say.
                let line = e.span().map_or(0, |span| {
                    text.get(..span.start)
                        .map_or(0, |before| before.matches('\n').count())
                        + 1
                });
                let at = if line > 0 {
                    format!(" at line {line}")
                } else {
                    String::new()
                };
                ConfigError::Invalid {
                    path: String::from("."),
                    message: format!("not JSON, and not TOML: {}{at}", e.message().trim_end()),
                }
            })?
        };
        workflow::lift(seed002::lift(value)?)
    }

    /// The configuration with its profile's settings in force.
    fn with_profile(mut self) -> Config {
        if self.profile == Profile::Seeds {
            self.model_trust = ModelTrust::Trust;
            self.medium_risk = MediumRisk::Confirm;
            self.registry_level2 = Level2::Inform;
        }
        self
    }

    fn validate(&self) -> Result<(), ConfigError> {
        names::check_names(self)?;
        if let Some(tool) = self
            .denied_tools
            .intersection(&self.auto_approved_tools)
            .next()
        {
            return Err(ConfigError::Conflict { tool: tool.clone() });
        }
        if self.max_args_bytes == 0 {
            return Err(ConfigError::ZeroLimit);
        }
        for (tool, settings) in &self.tools {
            settings.validate(tool)?;
        }
        for (index, rule) in self.rules.iter().enumerate() {
            crate::rules::check_rule(self, rule)
                .map_err(|problem| ConfigError::Rule { index, problem })?;
        }
        Ok(())
    }

    /// What the configuration says that contradicts itself without making
    /// it unusable, one sentence each, by tool name: `config check` and
    /// `config explain` print them. Seed 002 §2.3's own example is one: its
    /// `example_params` use `targets` and `duration`, which none of its
    /// schemas declare, and leave out the `btime` and `etime` its body
    /// schema requires (§4.3 has the model compute them). A warning never
    /// refuses a configuration.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, tool) in &self.tools {
            let kind = self.kind_of(name);
            if kind == Some(ToolKind::Script) {
                out.push(format!(
                    "`tools.{name}` is a script tool: seed 002's executor runs none (`unsupported tool type`) and no check can prove one harmless, so every call of it is confirmed"
                ));
            }
            if kind == Some(ToolKind::Api) {
                out.extend(example_warnings(name, tool));
            }
        }
        out
    }
}

impl Config {
    /// The MCP entry a gateway's call name `mcp:SERVER/TOOL` stands for
    /// when no entry has that name: the one whose `server` is SERVER and
    /// whose `mcp_tool_name` is TOOL (or, without one, whose own name is).
    /// Names compare folded (case, width, invisible characters), as every list
    /// does. Two entries claiming one tool name none: which one a call is
    /// would be a guess, so it is decided as an MCP tool no entry
    /// describes (confirmed by default).
    pub fn mcp_entry(&self, call: &str) -> Option<&str> {
        let (server, tool) = call.strip_prefix("mcp:")?.split_once('/')?;
        if self.tools.contains_key(call) {
            return None;
        }
        let same = |a: &str, b: &str| crate::toolname::fold(a) == crate::toolname::fold(b);
        let mut found = self.tools.iter().filter(|(name, entry)| {
            entry.kind == Some(ToolKind::Mcp)
                && entry.server.as_deref().is_some_and(|s| same(s, server))
                && same(entry.mcp_tool_name.as_deref().unwrap_or(name), tool)
        });
        match (found.next(), found.next()) {
            (Some((name, _)), None) => Some(name.as_str()),
            _ => None,
        }
    }
}

/// A setting written beside `profile: "seeds"` with another value than the
/// profile's: refused, so a configuration never says two things at once.
fn check_profile(value: &serde_json::Value) -> Result<(), ConfigError> {
    if value.get("profile").and_then(|p| p.as_str()) != Some("seeds") {
        return Ok(());
    }
    for (key, fixed) in Profile::SEEDS {
        if let Some(written) = value.get(key) {
            if written.as_str() != Some(fixed) {
                return Err(ConfigError::Invalid {
                    path: key.to_owned(),
                    message: format!(
                        "`profile: \"seeds\"` sets `{key}` to \"{fixed}\"; another value beside it contradicts the profile"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// How an API tool's `example_params` disagree with its schemas: names no
/// schema declares, and names a schema requires that the example leaves out.
/// Nothing is said of a tool without schemas (every name is then a body or
/// query field).
fn example_warnings(name: &str, tool: &ToolConfig) -> Vec<String> {
    let Some(serde_json::Value::Object(example)) = &tool.example_params else {
        return Vec::new();
    };
    let schemas = [
        ("path_params_schema", &tool.path_params_schema),
        ("query_params_schema", &tool.query_params_schema),
        ("request_body_schema", &tool.request_body_schema),
    ];
    if schemas.iter().all(|(_, s)| s.is_none()) {
        return Vec::new();
    }
    let declared = tool.declared_params();
    let mut out = Vec::new();
    for (field, schema) in schemas {
        let Some(schema) = schema else { continue };
        let missing: Vec<String> = schema
            .get("required")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str())
            .filter(|r| !example.contains_key(*r))
            .map(|r| format!("`{r}`"))
            .collect();
        if !missing.is_empty() {
            out.push(format!(
                "`tools.{name}.example_params` leaves out {}, which `{field}` requires: a call written like the example does not fit the tool",
                missing.join(", ")
            ));
        }
    }
    for key in example.keys() {
        if key != "risk_level" && !declared.contains(key) {
            out.push(format!(
                "`tools.{name}.example_params.{key}` is declared by none of the tool's schemas: the example teaches the model an argument the request has no place for"
            ));
        }
    }
    out
}

impl ToolConfig {
    /// Every parameter name the tool declares: its URL pattern's path
    /// parameters, its schemas' properties, its `body_field`.
    pub(crate) fn declared_params(&self) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = self
            .url
            .as_deref()
            .map(crate::assess::registry::path_params)
            .unwrap_or_default()
            .into_iter()
            .collect();
        names.extend(self.body_field.iter().cloned());
        for schema in [
            &self.path_params_schema,
            &self.query_params_schema,
            &self.request_body_schema,
        ]
        .into_iter()
        .flatten()
        {
            if let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) {
                names.extend(properties.keys().cloned());
            }
        }
        names
    }

    fn validate(&self, tool: &str) -> Result<(), ConfigError> {
        // A tool without an assessor may still be pinned to confirmation.
        let pinned_only = ToolConfig {
            always_confirm: self.always_confirm,
            ..ToolConfig::default()
        };
        if self.always_confirm
            && self.kind.is_none()
            && ToolKind::builtin(tool).is_none()
            && *self == pinned_only
        {
            return Ok(());
        }
        let kind = self
            .kind
            .or_else(|| ToolKind::builtin(tool))
            .ok_or_else(|| ConfigError::MissingKind {
                tool: tool.to_owned(),
            })?;
        let wrong = |field: &'static str| ConfigError::WrongKind {
            tool: tool.to_owned(),
            field,
            kind: kind.name(),
        };
        let present: [(&'static str, bool, ToolKind); 12] = [
            ("body_field", self.body_field.is_some(), ToolKind::Api),
            (
                "response_template",
                self.response_template.is_some(),
                ToolKind::Api,
            ),
            ("method", self.method.is_some(), ToolKind::Api),
            ("url", self.url.is_some(), ToolKind::Api),
            ("server", self.server.is_some(), ToolKind::Mcp),
            ("mcp_tool_name", self.mcp_tool_name.is_some(), ToolKind::Mcp),
            ("annotations", self.annotations.is_some(), ToolKind::Mcp),
            ("dialect", self.dialect.is_some(), ToolKind::Sql),
            (
                "allow_functions",
                !self.allow_functions.is_empty(),
                ToolKind::Sql,
            ),
            ("operation", self.operation.is_some(), ToolKind::File),
            ("method_field", self.method_field.is_some(), ToolKind::Http),
            (
                "default_method",
                self.default_method.is_some(),
                ToolKind::Http,
            ),
        ];
        for (field, set, owner) in present {
            if set && owner != kind {
                return Err(wrong(field));
            }
        }
        if let Some(Err(e)) = self
            .response_template
            .as_deref()
            .map(crate::registry::template::Template::parse)
        {
            return Err(ConfigError::BadValue {
                tool: tool.to_owned(),
                field: "response_template",
                message: e.to_string(),
            });
        }
        // Host lists: the tools that reach the network.
        for (field, set) in [
            ("allow_hosts", !self.allow_hosts.is_empty()),
            ("deny_hosts", !self.deny_hosts.is_empty()),
        ] {
            if set && kind != ToolKind::Http && kind != ToolKind::Command {
                return Err(wrong(field));
            }
        }
        // Path settings: file tools, and MCP tools that read files.
        for (field, set) in [
            ("path_field", self.path_field.is_some()),
            ("roots", !self.roots.is_empty()),
        ] {
            if set && kind != ToolKind::File && kind != ToolKind::Mcp {
                return Err(wrong(field));
            }
        }
        // The registry's columns (seed 002 §2.1), for every row of its
        // table: API, MCP and script tools.
        let metadata: [(&'static str, bool); 10] = [
            ("argument_names", !self.argument_names.is_empty()),
            ("display_name", self.display_name.is_some()),
            ("description", self.description.is_some()),
            ("category", self.category.is_some()),
            ("keywords", !self.keywords.is_empty()),
            ("example_prompt", self.example_prompt.is_some()),
            ("example_params", self.example_params.is_some()),
            ("risk_level", self.risk_level.is_some()),
            ("required_permission", self.required_permission.is_some()),
            ("enabled", self.enabled.is_some()),
        ];
        let registry = matches!(kind, ToolKind::Api | ToolKind::Mcp | ToolKind::Script);
        for (field, set) in metadata {
            if set && !registry {
                return Err(wrong(field));
            }
        }
        if self.example_params.as_ref().is_some_and(|v| !v.is_object()) {
            return Err(ConfigError::BadValue {
                tool: tool.to_owned(),
                field: "example_params",
                message: String::from("must be a JSON object"),
            });
        }
        let schemas: [(&'static str, &Option<serde_json::Value>); 3] = [
            ("path_params_schema", &self.path_params_schema),
            ("query_params_schema", &self.query_params_schema),
            ("request_body_schema", &self.request_body_schema),
        ];
        for (field, value) in schemas {
            match value {
                Some(v) if kind != ToolKind::Api => {
                    let _ = v;
                    return Err(wrong(field));
                }
                Some(v) if !v.is_object() => {
                    return Err(ConfigError::BadValue {
                        tool: tool.to_owned(),
                        field,
                        message: String::from("must be a JSON object"),
                    })
                }
                _ => {}
            }
        }
        if let Some(dialect) = &self.dialect {
            if sqlparser::dialect::dialect_from_str(dialect).is_none() {
                return Err(ConfigError::UnknownDialect {
                    tool: tool.to_owned(),
                    dialect: dialect.clone(),
                });
            }
        }
        let bad = |field: &'static str, message: &str| ConfigError::BadValue {
            tool: tool.to_owned(),
            field,
            message: message.to_owned(),
        };
        for (field, value) in [
            ("field", &self.field),
            ("path_field", &self.path_field),
            ("operation", &self.operation),
            ("method_field", &self.method_field),
            ("default_method", &self.default_method),
        ] {
            if value.as_deref().is_some_and(str::is_empty) {
                return Err(bad(field, "must not be empty"));
            }
        }
        if self.roots.iter().any(|r| !r.starts_with('/')) {
            return Err(bad("roots", "each root must be an absolute path"));
        }
        if kind == ToolKind::Api {
            match &self.method {
                None => return Err(bad("method", "an api tool needs its HTTP method")),
                Some(m) if m.is_empty() || !m.chars().all(|c| c.is_ascii_alphabetic()) => {
                    return Err(bad("method", "must be an HTTP method such as GET"))
                }
                Some(_) => {}
            }
            if self.url.as_deref().is_none_or(str::is_empty) {
                return Err(bad("url", "an api tool needs its URL pattern"));
            }
        }
        if self
            .risk_level
            .is_some_and(|level| !(1..=3).contains(&level))
        {
            return Err(bad(
                "risk_level",
                "must be 1 (query), 2 (modify) or 3 (delete)",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::*;

    #[test]
    fn empty_text_is_the_default() {
        assert_eq!(Config::from_json("  "), Ok(Config::default()));
        assert_eq!(Config::from_json("{}"), Ok(Config::default()));
    }

    #[test]
    fn unknown_field_is_named() {
        let err = Config::from_json(r#"{"denied_tool": ["x"]}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("denied_tool"), "{text}");
    }

    #[test]
    fn bad_value_names_its_path() {
        let err = Config::from_json(r#"{"model_trust": "blind"}"#).unwrap_err();
        match err {
            ConfigError::Invalid { path, message } => {
                assert_eq!(path, "model_trust");
                assert!(message.contains("blind"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// A text that is not JSON is named by line and column; a value of the
    /// wrong shape by its path and the position of the member at fault (the
    /// configuration is read as a JSON value first — one deserializer for every
    /// configuration, about 130 KB less component than deserializing the text
    /// directly as well — and the position is found along the path).
    #[test]
    fn errors_carry_the_line_and_the_path() {
        let err =
            Config::from_json("{\n  \"strict\": true,\n  \"denied_tools\": [5,]\n}").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("line 3"), "{text}");
        let err =
            Config::from_json("{\n  \"strict\": true,\n  \"denied_tools\": 5\n}").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("`denied_tools`") && text.contains("line 3"),
            "{text}"
        );
        let err = Config::from_json(
            "{\"rules\": [{\"action\": \"allow\", \"match\": {\"sql\": {\"statements\": [1]}}}]}",
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("rules[0]"), "{text}");
    }

    #[test]
    fn conflicting_lists_are_refused() {
        let err = Config::from_json(r#"{"denied_tools": ["x"], "auto_approved_tools": ["x"]}"#)
            .unwrap_err();
        assert_eq!(err, ConfigError::Conflict { tool: "x".into() });
    }

    #[test]
    fn tool_settings_are_checked() {
        let ok = Config::from_json(
            r#"{"tools": {"execute_sql": {"dialect": "postgres"},
                          "run_query": {"kind": "sql", "field": "q", "dialect": "mysql"}}}"#,
        )
        .unwrap();
        assert_eq!(ok.kind_of("run_query"), Some(ToolKind::Sql));
        assert_eq!(ok.kind_of("execute_command"), Some(ToolKind::Command));
        assert_eq!(ok.kind_of("other"), None);
        let err = |json: &str| Config::from_json(json).unwrap_err().to_string();
        assert!(err(r#"{"tools": {"x": {}}}"#).contains("tools.x.kind"));
        assert!(err(r#"{"tools": {"execute_sql": {"dialect": "cobol"}}}"#).contains("cobol"));
        assert!(err(r#"{"tools": {"execute_sql": {"roots": ["/srv"]}}}"#)
            .contains("tools.execute_sql.roots"));
        assert!(
            err(r#"{"tools": {"x": {"kind": "file", "roots": ["srv"]}}}"#).contains("absolute")
        );
        assert!(err(r#"{"tools": {"x": {"kind": "teapot"}}}"#).contains("teapot"));
        assert!(err(r#"{"tools": {"x": {"kind": "sql", "feild": "q"}}}"#).contains("feild"));
    }

    #[test]
    fn registry_and_mcp_settings_are_checked() {
        let err = |json: &str| Config::from_json(json).unwrap_err().to_string();
        assert!(err(r#"{"tools": {"x": {"kind": "api", "url": "/a"}}}"#).contains("tools.x.method"));
        assert!(
            err(r#"{"tools": {"x": {"kind": "api", "method": "GET"}}}"#).contains("tools.x.url")
        );
        assert!(err(
            r#"{"tools": {"x": {"kind": "api", "method": "GET", "url": "/a", "risk_level": 4}}}"#
        )
        .contains("risk_level"));
        assert!(err(r#"{"tools": {"x": {"kind": "sql", "risk_level": 1}}}"#)
            .contains("tools.x.risk_level"));
        // Annotations are pasted from servers and the MCP specification adds
        // hints over time: unknown ones are ignored, which can only make the
        // policy stricter (a misspelt `readOnlyHint` leaves the default, false).
        assert!(Config::from_json(
            r#"{"tools": {"x": {"kind": "mcp", "annotations": {"readOnly": true}}}}"#
        )
        .is_ok());
        assert!(err(r#"{"mcp_servers": {"gh": {"trust": true}}}"#).contains("trust"));
        assert!(err(r#"{"registry_level2": "maybe"}"#).contains("registry_level2"));
        let ok = Config::from_json(
            r#"{"tools": {"m": {"kind": "api", "method": "post", "url": "/a/:id", "risk_level": 2,
                               "required_permission": "p", "enabled": true},
                         "t": {"kind": "mcp", "server": "gh", "annotations": {"readOnlyHint": true}}},
                "mcp_servers": {"gh": {"trusted": true}}, "registry_level2": "notify"}"#,
        );
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn egress_is_one_of_three() {
        assert_eq!(Config::default().egress, Egress::Public);
        for (text, egress) in [
            ("public", Egress::Public),
            ("allow_hosts", Egress::AllowHosts),
            ("confirm", Egress::Confirm),
        ] {
            let config = Config::from_json(&format!(r#"{{"egress": "{text}"}}"#));
            assert_eq!(config.map(|c| c.egress), Ok(egress), "{text}");
        }
        let err = Config::from_json(r#"{"egress": "private"}"#).unwrap_err();
        match err {
            ConfigError::Invalid { path, message } => {
                assert_eq!(path, "egress");
                assert!(message.contains("allow_hosts"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(Config::from_json(
            r#"{"tools": {"execute_command": {"allow_hosts": ["example.com"], "deny_hosts": ["x.test"]}}}"#
        )
        .is_ok());
        let err = Config::from_json(r#"{"tools": {"execute_sql": {"allow_hosts": ["a"]}}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("tools.execute_sql.allow_hosts"), "{err}");
    }

    /// Seed 002 §2.3's definition, byte for byte, is a configuration; its
    /// self-contradictions are warnings, and the §2.1 row shape reads too.
    #[test]
    fn seed_002_as_written_is_read_and_its_contradictions_warned() {
        let text = include_str!("../../tests/config/seed-002-definition.json");
        let config = Config::from_text(text).unwrap();
        let tool = &config.tools["alert_mute_create"];
        assert_eq!(tool.kind, Some(ToolKind::Api));
        assert_eq!(
            tool.url.as_deref(),
            Some("/api/n9e/busi-group/{group_id}/alert-mutes")
        );
        assert_eq!(tool.risk_level, Some(2));
        let warnings = config.warnings();
        assert_eq!(warnings.len(), 3, "{warnings:#?}");
        assert!(
            warnings[0].contains("leaves out `btime`, `etime`"),
            "{warnings:#?}"
        );
        // In the order the seed writes them.
        assert!(
            warnings[1].contains("example_params.targets"),
            "{warnings:#?}"
        );
        assert!(
            warnings[2].contains("example_params.duration"),
            "{warnings:#?}"
        );
        let rows =
            Config::from_text(include_str!("../../tests/config/seed-002-rows.json")).unwrap();
        assert_eq!(rows.kind_of("restart_agent"), Some(ToolKind::Script));
        assert_eq!(rows.tools["wiki_search"].server.as_deref(), Some("12"));
        assert_eq!(rows.tools["legacy_export"].enabled, Some(false));
        assert!(rows
            .warnings()
            .iter()
            .any(|w| w.contains("`tools.restart_agent` is a script tool")));
        // The policy's own shape keeps its errors' positions.
        let err =
            Config::from_text("{\n  \"tools\": {\"x\": {\"kind\": \"api\", \"metod\": 1}}\n}")
                .unwrap_err()
                .to_string();
        assert!(err.contains("line 2"), "{err}");
        // A TOML table header is still TOML.
        assert!(Config::from_text("[tools.run]\nkind = \"command\"\n").is_ok());
    }

    /// The seed-faithful profile fixes three settings; a contradicting one
    /// beside it is refused, and a managed layer's locked modes keep a lower
    /// layer from choosing it.
    #[test]
    fn the_seeds_profile_and_what_it_never_lifts() {
        let config = Config::from_text(r#"{"profile": "seeds"}"#).unwrap();
        assert_eq!(config.model_trust, ModelTrust::Trust);
        assert_eq!(config.medium_risk, MediumRisk::Confirm);
        assert_eq!(config.registry_level2, Level2::Inform);
        assert!(Config::from_text("profile = \"seeds\"\nmodel_trust = \"trust\"\n").is_ok());
        let err = Config::from_text(r#"{"profile": "seeds", "model_trust": "guarded"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("model_trust") && err.contains("profile"),
            "{err}"
        );
        assert!(
            Config::from_text(r#"{"profile": "seeds", "registry_level2": "confirm"}"#).is_err()
        );
        use layers::{layered, Layer, LayerText};
        let merged = layered(&[
            LayerText {
                layer: Layer::Managed,
                config: String::from(r#"{"locks": {"modes": true}}"#),
            },
            LayerText {
                layer: Layer::User,
                config: String::from(r#"{"profile": "seeds"}"#),
            },
        ])
        .unwrap();
        let config = Config::from_json(&merged.config).unwrap();
        assert_eq!(config.model_trust, ModelTrust::Guarded);
        assert_eq!(config.profile, Profile::Default);
    }

    #[test]
    fn trailing_garbage_is_refused() {
        assert!(Config::from_json("{} {}").is_err());
        assert!(Config::from_json("[]").is_err());
    }
}
