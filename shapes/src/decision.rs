//! The decision model: what toolgate answers for one tool call.
//!
//! The JSON form of [`Decision`] (field order, snake_case names, `null` for an
//! absent model risk) is the form every runtime prints and the conformance runners
//! compare byte for byte; change it only together with every host.

use serde::{Deserialize, Serialize};

/// What the host must do with a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Safe: run it now.
    Allow,
    /// A person approves, rejects or edits it first.
    Confirm,
    /// Configured off: never run it.
    Deny,
}

impl Action {
    /// Every case, in the WIT's order (hosts read the bindings' enums by
    /// their position in it; `shapes/tests/wit.rs` holds the order).
    pub const ALL: [Action; 3] = [Action::Allow, Action::Confirm, Action::Deny];

    /// The lowercase name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Confirm => "confirm",
            Action::Deny => "deny",
        }
    }
}

/// How risky a call is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Proven read-only, or rated low by the model and trusted.
    Low,
    /// Not proven safe, or rated medium by the model.
    Medium,
    /// Proven destructive, or rated high by the model.
    High,
}

impl Risk {
    /// Every case, in the WIT's order.
    pub const ALL: [Risk; 3] = [Risk::Low, Risk::Medium, Risk::High];

    /// The lowercase name used in JSON and in `risk_level`.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }

    /// Reads a model's `risk_level` value. Case is ignored because models are
    /// inconsistent about it; nothing else is forgiven.
    pub fn parse(value: &str) -> Option<Risk> {
        if value.eq_ignore_ascii_case("low") {
            Some(Risk::Low)
        } else if value.eq_ignore_ascii_case("medium") {
            Some(Risk::Medium)
        } else if value.eq_ignore_ascii_case("high") {
            Some(Risk::High)
        } else {
            None
        }
    }
}

/// Which rule of the decision order decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `denied_tools` or `auto_approved_tools` in the configuration.
    Config,
    /// Strict mode.
    Strict,
    /// The model's own `risk_level`.
    Llm,
    /// The guarded floor: the model said low, the code layer proved it destructive.
    Floor,
    /// A built-in assessor proved the call read-only.
    Whitelist,
    /// A registry entry decided.
    Registry,
    /// Nothing proved the call safe.
    Default,
    /// A rule of the configuration or a grant an approval left behind.
    Rule,
}

impl Source {
    /// Every case, in the WIT's order.
    pub const ALL: [Source; 8] = [
        Source::Config,
        Source::Strict,
        Source::Llm,
        Source::Floor,
        Source::Whitelist,
        Source::Registry,
        Source::Default,
        Source::Rule,
    ];

    /// The lowercase name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Config => "config",
            Source::Strict => "strict",
            Source::Llm => "llm",
            Source::Floor => "floor",
            Source::Whitelist => "whitelist",
            Source::Registry => "registry",
            Source::Rule => "rule",
            Source::Default => "default",
        }
    }
}

/// One reason behind a decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// A stable dotted code (the policy's `codes` module lists them).
    pub code: String,
    /// A sentence for people.
    pub message: String,
}

impl Finding {
    /// A finding with one of the policy's codes.
    pub fn new(code: &str, message: impl Into<String>) -> Finding {
        Finding {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// The answer for one tool call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What to do.
    pub action: Action,
    /// How risky the call is judged.
    pub risk: Risk,
    /// Which rule decided.
    pub source: Source,
    /// The model's claimed `risk_level`, if it sent a valid one.
    pub llm_risk: Option<Risk>,
    /// Every reason, the deciding one first.
    pub findings: Vec<Finding>,
    /// One line a confirmation dialog can show.
    pub summary: String,
}

impl Decision {
    /// The canonical JSON form shared by every runtime.
    pub fn to_json(&self) -> String {
        // Serializing plain strings and enums cannot fail; the fallback keeps the
        // function total without a panic path.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// Whether any finding carries `code`.
    pub fn has_finding(&self, code: &str) -> bool {
        self.findings.iter().any(|f| f.code == code)
    }
}
