//! The answer's bytes in each agent's documented output shape. Every answer
//! exits 0 so that the agent parses it: in every format exit code 2 blocks
//! the tool and any other code lets it run on the agent's own permissions
//! (Claude Code, Codex) or only warns (Gemini CLI), so only a parsed answer
//! makes the agent ask a person.

use super::HookAnswer;
use crate::decision::Action;
use serde::Serialize;

/// An agent's output shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    /// "permissionDecision", "permissionDecisionReason"}}`.
    ClaudeCode,
    /// `{"decision": "allow"}`; `{"decision": "deny", "reason"}`;
    /// `{"decision": "ask", "reason", "systemMessage"}`.
    GeminiCli,
    /// Claude Code's shape, of which Codex acts on `deny` only.
    Codex,
}

/// What the hook says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reply {
    /// A decision.
    Decide(Action),
    /// No opinion: the agent's own permission flow goes on as without the
    /// hook (a person's decision such as approving a plan).
    Abstain,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
}

/// The agents' word for an action: confirm is "ask".
fn word(action: Action) -> &'static str {
    match action {
        Action::Allow => "allow",
        Action::Confirm => "ask",
        Action::Deny => "deny",
    }
}

fn claude_code(decision: &str, reason: &str) -> Result<String, serde_json::Error> {
    serde_json::to_string(&ClaudeCode {
        specific: ClaudeCodeSpecific {
            hook_event_name: "PreToolUse",
            permission_decision: decision,
            permission_decision_reason: reason,
        },
    })
}

/// The answer for a reply with its reason (the decision's summary, or why
/// no decision could be made, then also written to standard error).
pub(super) fn answer(
    shape: Shape,
    reply: Reply,
    reason: &str,
    error: Option<String>,
) -> HookAnswer {
    let output = match (shape, reply) {
        // An empty object: exit 0 with no decision, which every format
        // reads as "carry on as without the hook".
        (_, Reply::Abstain) => Ok(String::from("{}")),
        (Shape::ClaudeCode, Reply::Decide(action)) => claude_code(word(action), reason),
        // The reference documents `allow` (no reason: it is shown only for
        // a denial) and `deny` with its reason; `ask` is a value of its
        // `HookDecision` type, and its reason goes where the person sees it,
        // `systemMessage`, as well as to the model in `reason`.
        (Shape::GeminiCli, Reply::Decide(Action::Allow)) => serde_json::to_string(&GeminiCli {
            decision: "allow",
            reason: None,
            system_message: None,
        }),
        (Shape::GeminiCli, Reply::Decide(Action::Deny)) => serde_json::to_string(&GeminiCli {
            decision: "deny",
            reason: Some(reason),
            system_message: None,
        }),
        (Shape::GeminiCli, Reply::Decide(Action::Confirm)) => {
            let shown = format!("toolgate asks: {reason}");
            serde_json::to_string(&GeminiCli {
                decision: "ask",
                reason: Some(reason),
                system_message: Some(&shown),
            })
        }
        // Codex acts on a PreToolUse `deny` only (an `allow` or `ask` is not
        // supported and runs the tool on its own approval policy), so an
        // allow says nothing and an ask is a denial that tells the model a
        // person has to decide: never a silent pass.
        (Shape::Codex, Reply::Decide(Action::Allow)) => Ok(String::from("{}")),
        (Shape::Codex, Reply::Decide(Action::Deny)) => claude_code("deny", reason),
        (Shape::Codex, Reply::Decide(Action::Confirm)) => claude_code(
            "deny",
            &format!(
                "{reason}. toolgate needs a person to confirm this call and Codex hooks cannot ask one: ask the user to run it or to allow it in toolgate's configuration"
            ),
        ),
    };
    // Serializing plain strings cannot fail; the fallback still asks.
    let output = output.unwrap_or_else(|_| match shape {
        Shape::GeminiCli => String::from(r#"{"decision":"ask"}"#),
        Shape::ClaudeCode => String::from(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#,
        ),
        Shape::Codex => String::from(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
        ),
    });
    HookAnswer {
        output,
        error,
        exit: 0,
    }
}
