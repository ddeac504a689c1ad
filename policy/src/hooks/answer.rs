//! The answer's bytes in each agent's documented output shape. Every answer
//! exits 0 so that the agent parses it: in both formats exit code 2 blocks
//! the tool and any other code lets it run on the agent's own permissions, so
//! only a parsed "ask" makes the agent ask a person.

use super::HookAnswer;
use crate::decision::Action;
use serde::Serialize;

/// An agent's output shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    /// "permissionDecision", "permissionDecisionReason"}}`.
    ClaudeCode,
    /// `{"decision", "reason"}` (`decision`: `allow`, `deny`, `ask`).
    GeminiCli,
}

#[derive(Serialize)]
struct ClaudeCode<'a> {
    #[serde(rename = "hookSpecificOutput")]
    specific: ClaudeCodeSpecific<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClaudeCodeSpecific<'a> {
    hook_event_name: &'a str,
    permission_decision: &'a str,
    permission_decision_reason: &'a str,
}

#[derive(Serialize)]
struct GeminiCli<'a> {
    decision: &'a str,
    reason: &'a str,
}

/// The agents' word for an action: confirm is "ask".
fn word(action: Action) -> &'static str {
    match action {
        Action::Allow => "allow",
        Action::Confirm => "ask",
        Action::Deny => "deny",
    }
}

/// The answer for an action with its reason (the decision's summary, or why
/// the event could not be read, then also written to standard error).
pub(super) fn answer(
    shape: Shape,
    action: Action,
    reason: &str,
    error: Option<String>,
) -> HookAnswer {
    let decision = word(action);
    let output = match shape {
        Shape::ClaudeCode => serde_json::to_string(&ClaudeCode {
            specific: ClaudeCodeSpecific {
                hook_event_name: "PreToolUse",
                permission_decision: decision,
                permission_decision_reason: reason,
            },
        }),
        Shape::GeminiCli => serde_json::to_string(&GeminiCli { decision, reason }),
    };
    // Serializing plain strings cannot fail; the fallback still asks.
    let output = output.unwrap_or_else(|_| String::from(r#"{"decision":"ask"}"#));
    HookAnswer {
        output,
        error,
        exit: 0,
    }
}
