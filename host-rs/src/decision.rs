//! The decision as the host hands it to Rust callers: the shapes crate's
//! types (one definition for the policy and every Rust host), read from the
//! component's typed record by one conversion, plus the `confirm` the host
//! makes itself when the component gives no answer.
//!
//! The JSON form (field order, snake_case, `null` for an absent model risk) is the
//! one every runtime prints; the conformance suite compares it byte for byte.

use crate::bindings::exports::toolgate::policy::types as wit;
use serde::{Deserialize, Serialize};
pub use toolgate_shapes::{Action, Decision, Finding, Risk, Source};

/// The finding code of a decision the host made because the policy faulted.
pub const POLICY_FAULT: &str = "policy.fault";

/// The decisions the host makes itself, when the component gave no answer
/// (a trait, because the type is the shapes crate's; `Decision::fault(..)`
/// reads as before wherever it is in scope).
pub(crate) trait HostDecision {
    /// The fail-closed answer when the component trapped or failed: confirm,
    /// so a person decides, and say that the policy itself faulted.
    fn fault(tool: &str, cause: &str) -> Decision;
    /// The answer when a call used up its work budget: confirm, and say so.
    fn over_limit(tool: &str) -> Decision;
}

impl HostDecision for Decision {
    fn fault(tool: &str, cause: &str) -> Decision {
        host_confirm(
            tool,
            POLICY_FAULT,
            format!("the policy faulted ({cause}); a person must decide"),
            "the policy faulted",
        )
    }

    fn over_limit(tool: &str) -> Decision {
        host_confirm(
            tool,
            crate::POLICY_LIMIT,
            String::from(
                "the call was too expensive to assess within the policy's work limit; \
                 a person must decide",
            ),
            "too expensive to assess",
        )
    }
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
