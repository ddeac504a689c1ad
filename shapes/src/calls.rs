//! A tool call as the policy reads it from any wire format, and tool
//! definitions with `risk_level` added.

use serde::{Deserialize, Serialize};

/// The wire format a call was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallFormat {
    /// `{"tool": …, "args": …}`: toolgate's own JSON Lines shape.
    Plain,
    /// An item of OpenAI Chat Completions `tool_calls`:
    /// `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`.
    OpenaiChat,
    /// An OpenAI Responses `function_call` output item:
    /// `{"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}`
    /// (the Agents SDK's items write `callId`).
    OpenaiResponses,
    /// An Anthropic `tool_use` content block: `{"type": "tool_use", "id", "name", "input"}`.
    Anthropic,
    /// MCP `tools/call`: the request's `params` `{"name", "arguments"}`, or the whole
    /// JSON-RPC request.
    Mcp,
    /// A Gemini `functionCall` part: `{"functionCall": {"name", "args"}}`, or the
    /// inner object.
    Gemini,
    /// An AI SDK tool call: `{"type": "tool-call", "toolCallId", "toolName",
    /// "input"}` (`args` in the SDK's versions before 5), the `type` optional.
    AiSdk,
}

impl CallFormat {
    /// Every case, in the WIT's order.
    pub const ALL: [CallFormat; 7] = [
        CallFormat::Plain,
        CallFormat::OpenaiChat,
        CallFormat::OpenaiResponses,
        CallFormat::Anthropic,
        CallFormat::Mcp,
        CallFormat::Gemini,
        CallFormat::AiSdk,
    ];

    /// The kebab-case name used in JSON and WIT.
    pub fn as_str(self) -> &'static str {
        match self {
            CallFormat::Plain => "plain",
            CallFormat::OpenaiChat => "openai-chat",
            CallFormat::OpenaiResponses => "openai-responses",
            CallFormat::Anthropic => "anthropic",
            CallFormat::Mcp => "mcp",
            CallFormat::Gemini => "gemini",
            CallFormat::AiSdk => "ai-sdk",
        }
    }
}

/// A normalised tool call. Its JSON form is what every runtime prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments as JSON text: verbatim when the format sends text, serialised
    /// when it sends an object, `{}` when absent.
    pub args: String,
    /// The call's id in its format (`id`, `call_id`/`callId`, `toolCallId`), if it has one.
    pub id: Option<String>,
    /// The format the call was recognised as.
    pub format: CallFormat,
}

impl ToolCall {
    /// The canonical JSON form (the same in every runtime).
    pub fn to_json(&self) -> String {
        // Strings and a unit enum: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// Augmented definitions, and what was left alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Augmented {
    /// The definitions (or the whole request body) as JSON text.
    pub tools: String,
    /// One line per tool left alone and why (its own `risk_level`, an unknown shape).
    pub notes: Vec<String>,
}

/// What `check` prints for one line that is not blank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedLine {
    /// The output line, without its newline: the decision's canonical JSON,
    /// or the error object of a malformed line.
    pub output: String,
    /// The decided action; `None` when the line is malformed.
    pub action: Option<crate::decision::Action>,
}
