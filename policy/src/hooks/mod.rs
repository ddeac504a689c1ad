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
use crate::config::{Config, Mode};
use crate::context::Context;
use crate::decision::{Action, Decision, Finding, Risk, Source};
use crate::Engine;
use answer::{Reply, Shape};
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
    /// Whether its event carries the agent's `permission_mode`.
    modes: bool,
}

/// The formats, by name.
const FORMATS: &[Format] = &[
    Format {
        name: "claude-code",
        event: "PreToolUse",
        tools: table::CLAUDE_CODE,
        shape: Shape::ClaudeCode,
        modes: true,
    },
    Format {
        name: "gemini-cli",
        event: "BeforeTool",
        tools: table::GEMINI_CLI,
        shape: Shape::GeminiCli,
        modes: false,
    },
    Format {
        name: "codex",
        event: "PreToolUse",
        tools: table::CODEX,
        shape: Shape::Codex,
        modes: true,
    },
];

fn format_named(name: &str) -> Result<&'static Format, UnknownFormat> {
    FORMATS
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| UnknownFormat(name.to_owned()))
}

/// The kind of the call an agent's tool is judged as in any format
/// (`Bash` is a command, `Write` a file operation, `apply_patch` file
/// operations): rules may name the agent's tools with the matcher of that
/// kind. `None` for a tool no format maps onto an assessor.
pub fn agent_tool_kind(tool: &str) -> Option<crate::config::ToolKind> {
    use crate::config::ToolKind;
    FORMATS
        .iter()
        .find_map(|f| table::target(f.tools, tool))
        .and_then(|target| match target {
            Target::Command { .. } | Target::Search { .. } => Some(ToolKind::Command),
            Target::File { .. } | Target::Patch { .. } => Some(ToolKind::File),
            Target::Get { .. } => Some(ToolKind::Http),
            Target::Own | Target::Agent | Target::NoOpinion => None,
        })
}

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
    /// Longer than `MAX_EVENT_BYTES` (1 MiB; its length).
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
    /// The agent's permission mode, where its format carries one.
    mode: Option<String>,
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
    let mode = event
        .get("permission_mode")
        .and_then(Value::as_str)
        .filter(|_| format.modes)
        .map(str::to_owned);
    Ok(Event {
        tool,
        input,
        cwd,
        mode,
    })
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

/// The answer when no policy could be made for a hook (the configuration
/// is missing, unreadable or refused): the agent's "ask" with the error as
/// the reason, exit 0, never an allow and never exit 2, which would block
/// every tool. Codex has no ask: its answer is a denial that says so. Errors
/// only for a format name it does not know.
pub fn unconfigured(format: &str, error: &str) -> Result<HookAnswer, UnknownFormat> {
    let format = format_named(format)?;
    let error = crate::text::preview(error, 400);
    let reason = format!(
        "toolgate has no policy to decide with ({}): {error}; a person decides",
        codes::HOOK_CONFIG
    );
    let answered = if format.shape == Shape::Codex {
        "deny"
    } else {
        "ask"
    };
    Ok(answer::answer(
        format.shape,
        Reply::Decide(Action::Confirm),
        &reason,
        Some(format!("toolgate: hook: {error}; answered {answered}")),
    ))
}

/// The configuration for an event in the agent's permission mode, when the
/// mode tightens it: `plan` is read-only (over `default` and
/// `accept-edits`); `acceptEdits` is accept-edits over `default` when no
/// managed layer locks the modes, with the event's `cwd` as the file tool's
/// roots when it has none (the agent's project, where its mode accepts
/// edits). Any other mode (`bypassPermissions`, `dontAsk`, `default`) changes
/// nothing: an agent's mode never loosens what the configuration decides.
fn tightened(config: &Config, mode: Option<&str>, cwd: Option<&str>) -> Option<Config> {
    let wanted = match mode? {
        "plan" => Mode::ReadOnly,
        "acceptEdits" => Mode::AcceptEdits,
        _ => return None,
    };
    let mode = match (config.mode, wanted) {
        (Mode::Default | Mode::AcceptEdits, Mode::ReadOnly) => Mode::ReadOnly,
        (Mode::Default, Mode::AcceptEdits) if !config.locks.modes => Mode::AcceptEdits,
        _ => return None,
    };
    let mut config = config.clone();
    config.mode = mode;
    if mode == Mode::AcceptEdits {
        let file = config
            .tools
            .entry(String::from("file_operations"))
            .or_default();
        if file.roots.is_empty() {
            // Without an absolute POSIX cwd there is no project to accept
            // edits in: the mode is not applied.
            let cwd = cwd.filter(|c| c.starts_with('/') && !c.split('/').any(|s| s == ".."))?;
            file.roots = vec![cwd.to_owned()];
        }
    }
    Some(config)
}

/// Findings by which the configuration (or a floor) holds back one of the
/// agent's own tools: a denial, an ask or deny rule, `always_confirm`,
/// strict mode, the approval channel.
const HOLDS_AGENT_TOOLS: &[&str] = &[
    codes::CONFIG_DENIED_TOOL,
    codes::RULE_DENY,
    codes::RULE_ASK,
    codes::RULE_UNCHECKED,
    codes::RULE_ALWAYS_CONFIRM,
    codes::CONFIG_STRICT,
    codes::FLOOR_APPROVAL_CHANNEL,
];

/// The strictest of two decisions (deny, then confirm, then allow); the
/// first among equals.
fn stricter(a: Decision, b: Decision) -> Decision {
    let rank = |d: &Decision| match d.action {
        Action::Allow => 0,
        Action::Confirm => 1,
        Action::Deny => 2,
    };
    if rank(&b) > rank(&a) {
        b
    } else {
        a
    }
}

impl Engine {
    /// Answers one hook event of `format` (its bytes as read from standard
    /// input). Errors only for a format name it does not know; an event it
    /// cannot read is answered "ask", with the reason for standard error.
    pub fn hook(&self, format: &str, event: &[u8]) -> Result<HookAnswer, UnknownFormat> {
        let format = format_named(format)?;
        Ok(match read_event(format, event) {
            Ok(event) => {
                let tightened =
                    tightened(self.config(), event.mode.as_deref(), event.cwd.as_deref())
                        .map(Engine::new);
                let engine = tightened.as_ref().unwrap_or(self);
                match engine.hook_decision(format, &event) {
                    Some(decision) => answer::answer(
                        format.shape,
                        Reply::Decide(decision.action),
                        &decision.summary,
                        None,
                    ),
                    None => answer::answer(format.shape, Reply::Abstain, "", None),
                }
            }
            Err(malformed) => {
                let reason = format!(
                    "toolgate could not read the hook event ({}): {malformed}; a person decides",
                    codes::HOOK_MALFORMED
                );
                let error = format!("toolgate: hook: {malformed}; answered ask");
                answer::answer(
                    format.shape,
                    Reply::Decide(Action::Confirm),
                    &reason,
                    Some(error),
                )
            }
        })
    }

    /// The decision on a readable event, `None` for no opinion.
    fn hook_decision(&self, format: &Format, event: &Event) -> Option<Decision> {
        match table::target(format.tools, &event.tool) {
            Some(Target::Agent) => Some(self.agent_tool(event)),
            Some(Target::NoOpinion) => {
                let decision = self.own_name(event);
                let denied = decision.action == Action::Deny
                    && decision.findings.first().is_some_and(|f| {
                        f.code == codes::CONFIG_DENIED_TOOL || f.code == codes::RULE_DENY
                    });
                denied.then_some(decision)
            }
            Some(Target::Patch { fields }) => Some(self.patch(event, fields)),
            _ => Some(self.mapped(format, event)),
        }
    }

    /// The event's tool judged under its own name.
    fn own_name(&self, event: &Event) -> Decision {
        let mut args = event.input.clone();
        args.remove(crate::args::RISK_LEVEL);
        self.assess_named(
            &event.tool,
            None,
            &Value::Object(args).to_string(),
            &Context::default(),
            &[],
        )
    }

    /// One of the agent's own tools: allowed unless the configuration holds
    /// it back by name (see [`Target::Agent`]).
    fn agent_tool(&self, event: &Event) -> Decision {
        let decision = self.own_name(event);
        let held = decision.action != Action::Allow
            && decision
                .findings
                .first()
                .is_some_and(|f| HOLDS_AGENT_TOOLS.contains(&f.code.as_str()));
        if held || decision.action == Action::Allow {
            return decision;
        }
        let tool = crate::text::preview(&event.tool, 80);
        let message = "one of the agent's own tools, which acts only on the agent's state";
        Decision {
            action: Action::Allow,
            risk: Risk::Low,
            source: Source::Config,
            llm_risk: None,
            summary: format!("{tool} — {message}"),
            findings: vec![Finding::new(codes::HOOK_AGENT_TOOL, message)],
        }
    }

    /// A Codex patch: each file it touches judged as a file operation (the
    /// configuration's names for `apply_patch` applying too), the
    /// strictest answer kept.
    fn patch(&self, event: &Event, fields: &[&str]) -> Decision {
        let text = fields
            .iter()
            .find_map(|f| event.input.get(*f))
            .and_then(Value::as_str);
        let files = text.map(table::patch_files).unwrap_or_default();
        if files.is_empty() {
            return confirm(
                codes::HOOK_MALFORMED,
                format!(
                    "{}: no file found in the patch",
                    crate::text::preview(&event.tool, 80)
                ),
            );
        }
        let calls = match table::patch_calls(&files, event.cwd.as_deref()) {
            Ok(calls) => calls,
            Err(table::Unresolved(why)) => {
                return confirm(
                    table::UNRESOLVED_CODE,
                    format!("{}: {why}", crate::text::preview(&event.tool, 80)),
                )
            }
        };
        calls
            .iter()
            .map(|call| {
                self.assess_named(
                    &call.tool,
                    Some(&event.tool),
                    &call.args.to_string(),
                    &Context::default(),
                    &[],
                )
            })
            .reduce(stricter)
            .unwrap_or_else(|| confirm(codes::HOOK_MALFORMED, String::from("an empty patch")))
    }

    /// A tool mapped by the format's table (or an MCP tool, or one judged
    /// under its own name): decided with the agent's name as an alias, an
    /// unknown tool's allow capped at confirm unless the configuration
    /// itself allowed it (an auto-approval, an allow rule).
    fn mapped(&self, format: &Format, event: &Event) -> Decision {
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
        let decision = self.assess_named(
            &call.tool,
            Some(&event.tool),
            &call.args.to_string(),
            &Context::default(),
            &[],
        );
        let configured = matches!(decision.source, Source::Rule | Source::Config);
        if call.known || decision.action != Action::Allow || configured {
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
