//! The configuration of one deployment, read from JSON.
//!
//! Every field is optional; `{}` is the default policy. Unknown fields are an error
//! rather than ignored, because a misspelt `denied_tools` silently allowing a tool
//! is exactly the failure a policy must not have.

use serde::Deserialize;
use std::collections::BTreeSet;

/// How far a model's own `risk_level: "low"` is trusted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelTrust {
    /// `low` allows the call unless the code layer proves it destructive: a
    /// prompt-injected model cannot wave `DROP TABLE` through.
    #[default]
    Guarded,
    /// `low` always allows: the literal behaviour of the origin design.
    Trust,
}

/// What a model's `risk_level: "medium"` means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MediumRisk {
    /// Medium is treated as high: a person confirms.
    #[default]
    Confirm,
    /// Medium is treated as low (and so still subject to the guarded floor).
    Allow,
}

/// The policy's configuration. See the README for each field.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Confirm every call that is not denied, whatever the model or the assessors say.
    pub strict: bool,
    /// How far the model's `low` is trusted.
    pub model_trust: ModelTrust,
    /// What the model's `medium` means.
    pub medium_risk: MediumRisk,
    /// Tools that are never run.
    pub denied_tools: BTreeSet<String>,
    /// Tools that always run without confirmation (the approval flow's whitelist).
    pub auto_approved_tools: BTreeSet<String>,
    /// Arguments longer than this many bytes are not analysed: confirm.
    pub max_args_bytes: usize,
}

/// The default bound on argument size: far above any real tool call, far below
/// what would make a check slow.
pub const DEFAULT_MAX_ARGS_BYTES: usize = 1024 * 1024;

impl Default for Config {
    fn default() -> Self {
        Config {
            strict: false,
            model_trust: ModelTrust::default(),
            medium_risk: MediumRisk::default(),
            denied_tools: BTreeSet::new(),
            auto_approved_tools: BTreeSet::new(),
            max_args_bytes: DEFAULT_MAX_ARGS_BYTES,
        }
    }
}

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not JSON, or a field has the wrong name, type or value.
    #[error("invalid configuration at `{path}`: {message}")]
    Invalid {
        /// The path of the offending field (`.` for the top level).
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A tool is both denied and auto-approved.
    #[error("tool `{tool}` is in both `denied_tools` and `auto_approved_tools`")]
    Conflict {
        /// The tool's name.
        tool: String,
    },
    /// `max_args_bytes` is zero.
    #[error("`max_args_bytes` must be at least 1")]
    ZeroLimit,
}

impl Config {
    /// Reads a configuration from JSON. An empty or whitespace-only text is the
    /// default configuration.
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ConfigError::Invalid {
                path: String::from("."),
                message: e.to_string(),
            })?;
        if !value.is_object() {
            return Err(ConfigError::Invalid {
                path: String::from("."),
                message: format!("expected an object, not {}", crate::args::json_type(&value)),
            });
        }
        let config: Config = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            ConfigError::Invalid {
                path,
                message: e.into_inner().to_string(),
            }
        })?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn conflicting_lists_are_refused() {
        let err = Config::from_json(r#"{"denied_tools": ["x"], "auto_approved_tools": ["x"]}"#)
            .unwrap_err();
        assert_eq!(err, ConfigError::Conflict { tool: "x".into() });
    }

    #[test]
    fn trailing_garbage_is_refused() {
        assert!(Config::from_json("{} {}").is_err());
        assert!(Config::from_json("[]").is_err());
    }
}
