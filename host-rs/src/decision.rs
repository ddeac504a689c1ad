//! The decision as the host hands it to Rust callers, and its JSON form.
//!
//! The JSON form (field order, snake_case, `null` for an absent model risk) is the
//! one every runtime prints; the conformance suite compares it byte for byte.

use crate::bindings::exports::toolgate::policy::types as wit;
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
    /// The lowercase name.
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
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

/// Which rule of the decision order decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `denied_tools` or `auto_approved_tools`.
    Config,
    /// Strict mode.
    Strict,
    /// The model's own `risk_level`.
    Llm,
    /// The guarded floor overrode the model's `low`.
    Floor,
    /// An assessor proved the call read-only.
    Whitelist,
    /// A registry entry decided.
    Registry,
    /// Nothing proved the call safe (or the policy faulted).
    Default,
}

impl Source {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Config => "config",
            Source::Strict => "strict",
            Source::Llm => "llm",
            Source::Floor => "floor",
            Source::Whitelist => "whitelist",
            Source::Registry => "registry",
            Source::Default => "default",
        }
    }
}

/// One reason behind a decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// A stable dotted code.
    pub code: String,
    /// A sentence for people.
    pub message: String,
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

/// The finding code of a decision the host made because the policy faulted.
pub const POLICY_FAULT: &str = "policy.fault";

impl Decision {
    /// The canonical JSON form shared by every runtime.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// Whether any finding carries `code`.
    pub fn has_finding(&self, code: &str) -> bool {
        self.findings.iter().any(|f| f.code == code)
    }

    /// The fail-closed answer when the component trapped or failed: confirm, so a
    /// person decides, and say that the policy itself faulted.
    pub(crate) fn fault(tool: &str, cause: &str) -> Decision {
        Decision::host_confirm(
            tool,
            POLICY_FAULT,
            format!("the policy faulted ({cause}); a person must decide"),
            "the policy faulted",
        )
    }

    /// The answer when a call used up its work budget: confirm, and say so.
    pub(crate) fn over_limit(tool: &str) -> Decision {
        Decision::host_confirm(
            tool,
            crate::POLICY_LIMIT,
            String::from(
                "the call was too expensive to assess within the policy's work limit; \
                 a person must decide",
            ),
            "too expensive to assess",
        )
    }

    /// A `confirm` the host makes itself, when the policy gave no answer.
    fn host_confirm(tool: &str, code: &str, message: String, why: &str) -> Decision {
        Decision {
            action: Action::Confirm,
            risk: Risk::Medium,
            source: Source::Default,
            llm_risk: None,
            findings: vec![Finding {
                code: code.to_owned(),
                message,
            }],
            summary: format!("{} — {why}; needs confirmation", one_line(tool, 60)),
        }
    }
}

/// `text` on one line (control characters and whitespace runs become one
/// space), at most `max` characters, `…` marking a cut: a summary stays one line
/// whatever the model named its tool.
fn one_line(text: &str, max: usize) -> String {
    let flat = text
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", flat.get(..cut).unwrap_or(&flat)),
        None => flat,
    }
}

fn risk_from(risk: wit::Risk) -> Risk {
    match risk {
        wit::Risk::Low => Risk::Low,
        wit::Risk::Medium => Risk::Medium,
        wit::Risk::High => Risk::High,
    }
}

impl From<wit::Decision> for Decision {
    fn from(d: wit::Decision) -> Decision {
        Decision {
            action: match d.action {
                wit::Action::Allow => Action::Allow,
                wit::Action::Confirm => Action::Confirm,
                wit::Action::Deny => Action::Deny,
            },
            risk: risk_from(d.risk),
            source: match d.source {
                wit::Source::Config => Source::Config,
                wit::Source::Strict => Source::Strict,
                wit::Source::Llm => Source::Llm,
                wit::Source::Floor => Source::Floor,
                wit::Source::Whitelist => Source::Whitelist,
                wit::Source::Registry => Source::Registry,
                wit::Source::Default => Source::Default,
            },
            llm_risk: d.llm_risk.map(risk_from),
            findings: d
                .findings
                .into_iter()
                .map(|f| Finding {
                    code: f.code,
                    message: f.message,
                })
                .collect(),
            summary: d.summary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_summaries_stay_one_line() {
        let d = Decision::fault("evil\ntool\u{7}name", "trap");
        assert_eq!(
            d.summary,
            "evil tool name — the policy faulted; needs confirmation"
        );
        assert_eq!(
            one_line(&"x".repeat(70), 60),
            format!("{}…", "x".repeat(60))
        );
        assert_eq!(
            (d.action, d.findings[0].code.as_str()),
            (Action::Confirm, POLICY_FAULT)
        );
    }
}

/// The wire format a tool call was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallFormat {
    /// `{"tool": …, "args": …}`.
    Plain,
    /// An OpenAI Chat Completions `tool_calls` item.
    OpenaiChat,
    /// An OpenAI Responses `function_call` item.
    OpenaiResponses,
    /// An Anthropic `tool_use` block.
    Anthropic,
    /// MCP `tools/call` params or request.
    Mcp,
    /// A Gemini `functionCall` part.
    Gemini,
    /// An AI SDK tool call.
    AiSdk,
}

/// A tool call as the model sent it, normalised. Its JSON form is the one every
/// runtime prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments as JSON text (verbatim when the format sends text).
    pub args: String,
    /// The call's id in its format, if any.
    pub id: Option<String>,
    /// The format it was recognised as.
    pub format: CallFormat,
}

impl ToolCall {
    /// The canonical JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

impl From<wit::ToolCall> for ToolCall {
    fn from(c: wit::ToolCall) -> ToolCall {
        ToolCall {
            tool: c.tool,
            args: c.args,
            id: c.id,
            format: match c.format {
                wit::CallFormat::Plain => CallFormat::Plain,
                wit::CallFormat::OpenaiChat => CallFormat::OpenaiChat,
                wit::CallFormat::OpenaiResponses => CallFormat::OpenaiResponses,
                wit::CallFormat::Anthropic => CallFormat::Anthropic,
                wit::CallFormat::Mcp => CallFormat::Mcp,
                wit::CallFormat::Gemini => CallFormat::Gemini,
                wit::CallFormat::AiSdk => CallFormat::AiSdk,
            },
        }
    }
}

/// Tool definitions with `risk_level` added, and what was left alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Augmented {
    /// The definitions, or the whole request body, as JSON text.
    pub tools: String,
    /// One line per tool left alone, and why.
    pub notes: Vec<String>,
}
