//! `toolgate hook FORMAT`: one coding agent's before-tool hook event in, the
//! agent's documented answer out. The event's tool is mapped onto toolgate's
//! assessors by a table per format (`table`), decided by the engine, and
//! written in the agent's output shape (`answer`). Both CLIs only read
//! standard input, print and exit, so they answer with the same bytes.
//!
//! Fail closed: an event that cannot be read, a tool the table does not know,
//! a relative path without an absolute `cwd` all answer "ask", never "allow".

mod answer;
mod table;

use crate::codes;
use crate::decision::{Action, Decision, Finding, Risk, Source};
use crate::Engine;
use answer::Shape;
use serde_json::{Map, Value};
use std::fmt;
use table::Target;

pub use toolgate_shapes::hooks::HookAnswer;

/// The largest event read, in bytes. A before-tool event is a tool call with
/// a few fields; anything larger is not one, and is answered "ask" unread.
pub const MAX_EVENT_BYTES: usize = 1 << 20;

/// A hook format: an agent's event and answer shapes and its tools.
struct Format {
    /// The name `toolgate hook` takes.
    name: &'static str,
    /// The `hook_event_name` of the agent's before-tool event.
    event: &'static str,
    /// The agent's tools.
    tools: &'static [(&'static str, Target)],
    /// The answer's shape.
    shape: Shape,
}

/// The formats, by name.
const FORMATS: &[Format] = &[
    Format {
        name: "claude-code",
        event: "PreToolUse",
        tools: table::CLAUDE_CODE,
        shape: Shape::ClaudeCode,
    },
    Format {
        name: "gemini-cli",
        event: "BeforeTool",
        tools: table::GEMINI_CLI,
        shape: Shape::GeminiCli,
    },
];

/// The names of the formats, for help and errors.
pub fn formats() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name).collect()
}

/// A format name `toolgate hook` does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown hook format '{}' (known: {})",
            crate::text::preview(&self.0, 40),
            formats().join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

/// Why an event could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// Longer than [`MAX_EVENT_BYTES`] (its length).
    TooLarge(usize),
    /// Not UTF-8.
    NotUtf8,
    /// Not JSON (the parser's message).
    NotJson(String),
    /// JSON, but not an object.
    NotObject,
    /// Another event than the format's before-tool event (what it named).
    WrongEvent {
        /// The event the format answers.
        expected: &'static str,
        /// What `hook_event_name` held, if a string.
        found: Option<String>,
    },
    /// No `tool_name` string, or an empty one.
    NoToolName,
    /// `tool_input` present but not an object.
    InputNotObject,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::TooLarge(n) => write!(f, "the event is {n} bytes, over {MAX_EVENT_BYTES}"),
            Malformed::NotUtf8 => f.write_str("the event is not UTF-8"),
            Malformed::NotJson(e) => write!(f, "the event is not JSON: {e}"),
            Malformed::NotObject => f.write_str("the event is not a JSON object"),
            Malformed::WrongEvent {
                expected,
                found: Some(found),
            } => write!(
                f,
                "hook_event_name is '{}', not {expected}",
                crate::text::preview(found, 40)
            ),
            Malformed::WrongEvent {
                expected,
                found: None,
            } => write!(
                f,
                "hook_event_name is missing or not a string, not {expected}"
            ),
            Malformed::NoToolName => f.write_str("tool_name is missing, empty or not a string"),
            Malformed::InputNotObject => f.write_str("tool_input is not a JSON object"),
        }
    }
}

impl std::error::Error for Malformed {}

/// A readable before-tool event.
#[derive(Debug)]
struct Event {
    tool: String,
    input: Map<String, Value>,
    cwd: Option<String>,
}

fn read_event(format: &Format, bytes: &[u8]) -> Result<Event, Malformed> {
    if bytes.len() > MAX_EVENT_BYTES {
        return Err(Malformed::TooLarge(bytes.len()));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| Malformed::NotUtf8)?;
    let value: Value = serde_json::from_str(text).map_err(|e| Malformed::NotJson(e.to_string()))?;
    let Value::Object(mut event) = value else {
        return Err(Malformed::NotObject);
    };
    match event.get("hook_event_name") {
        Some(Value::String(name)) if name == format.event => {}
        other => {
            return Err(Malformed::WrongEvent {
                expected: format.event,
                found: other.and_then(Value::as_str).map(str::to_owned),
            })
        }
    }
    let tool = match event.get("tool_name") {
        Some(Value::String(tool)) if !tool.is_empty() => tool.clone(),
        _ => return Err(Malformed::NoToolName),
    };
    let input = match event.remove("tool_input") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(input)) => input,
        Some(_) => return Err(Malformed::InputNotObject),
    };
    let cwd = event.get("cwd").and_then(Value::as_str).map(str::to_owned);
    Ok(Event { tool, input, cwd })
}

/// A confirm decision made here, without the engine.
fn confirm(code: &str, message: String) -> Decision {
    Decision {
        action: Action::Confirm,
        risk: Risk::Medium,
        source: Source::Default,
        llm_risk: None,
        summary: format!("{message}; needs confirmation"),
        findings: vec![Finding::new(code, message)],
    }
}

impl Engine {
    /// Answers one hook event of `format` (its bytes as read from standard
    /// input). Errors only for a format name it does not know; an event it
    /// cannot read is answered "ask", with the reason for standard error.
    pub fn hook(&self, format: &str, event: &[u8]) -> Result<HookAnswer, UnknownFormat> {
        let format = FORMATS
            .iter()
            .find(|f| f.name == format)
            .ok_or_else(|| UnknownFormat(format.to_owned()))?;
        Ok(match read_event(format, event) {
            Ok(event) => {
                let decision = self.hook_decision(format, &event);
                answer::answer(format.shape, decision.action, &decision.summary, None)
            }
            Err(malformed) => {
                let reason = format!(
                    "toolgate could not read the hook event ({}): {malformed}; a person decides",
                    codes::HOOK_MALFORMED
                );
                let error = format!("toolgate: hook: {malformed}; answered ask");
                answer::answer(format.shape, Action::Confirm, &reason, Some(error))
            }
        })
    }

    /// The decision on a readable event: its tool mapped by the format's
    /// table, an unknown tool's allow capped at confirm.
    fn hook_decision(&self, format: &Format, event: &Event) -> Decision {
        let call = match table::resolve(
            format.tools,
            self.config(),
            &event.tool,
            &event.input,
            event.cwd.as_deref(),
        ) {
            Ok(call) => call,
            Err(table::Unresolved(why)) => {
                return confirm(
                    table::UNRESOLVED_CODE,
                    format!("{}: {why}", crate::text::preview(&event.tool, 80)),
                )
            }
        };
        let decision = self.assess(&call.tool, &call.args.to_string());
        if call.known || decision.action != Action::Allow {
            return decision;
        }
        confirm(
            codes::HOOK_UNKNOWN_TOOL,
            format!(
                "{}: a tool toolgate has no mapping for",
                crate::text::preview(&event.tool, 80)
            ),
        )
    }
}

#[cfg(test)]
mod tests;
