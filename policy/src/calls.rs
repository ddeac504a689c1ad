//! Tool calls as models send them, in every wire format agent builders use,
//! normalised to a tool name, argument text and call id.
//!
//! The arguments are kept as text: OpenAI sends them as a JSON *string* that
//! may be malformed, and a malformed argument string is something the policy
//! must answer (confirm, `args.invalid`), not a reason to lose the call. Only a
//! call whose tool name cannot be found is an error.

use crate::args::{json_type, reject_duplicate_keys, ArgsError};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use toolgate_shapes::calls::{CallFormat, ToolCall};

/// Why a call could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// Not JSON.
    #[error("the call is not valid JSON")]
    Json,
    /// JSON, but not an object.
    #[error("the call must be a JSON object, not {0}")]
    NotObject(&'static str),
    /// No recognisable tool name.
    #[error(
        "no tool name found (expected `tool`, `name`, `toolName`, `function.name` or `functionCall.name`)"
    )]
    NoName,
    /// The tool name is not a string.
    #[error("the tool name must be a string, not {0}")]
    NameType(&'static str),
    /// The call's envelope holds a key twice: which tool or which arguments
    /// an executor takes depends on its parser.
    #[error("the call holds the key `{0}` more than once")]
    DuplicateKey(String),
    /// The call names its tool, or holds its arguments, under two keys of
    /// different formats: which one an executor takes depends on its reader.
    #[error("the call holds both `{0}` and `{1}`: which one is run depends on the reader")]
    Ambiguous(&'static str, &'static str),
    /// Some other part of a conversation that names a tool (a tool's result
    /// or error, a message part), not a call to decide.
    #[error("the object's `type` marks a tool's result or a message part, not a tool call")]
    NotCall,
}

/// Argument text from a format's argument value.
fn args_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::from("{}"),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

fn string_id(value: Option<&Value>) -> Option<String> {
    match value {
        Some(Value::String(id)) => Some(id.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// The id of an OpenAI Responses `function_call` item: its `call_id` (the id a
/// tool's output answers), as the Agents SDK writes it `callId`; else the
/// item's own `id`.
fn responses_id(call: &Map<String, Value>) -> Option<String> {
    string_id(call.get("call_id"))
        .or_else(|| string_id(call.get("callId")))
        .or_else(|| string_id(call.get("id")))
}

fn name_of(object: &Map<String, Value>, key: &str) -> Result<String, CallError> {
    match object.get(key) {
        Some(Value::String(name)) => Ok(name.clone()),
        Some(other) => Err(CallError::NameType(json_type(other))),
        None => Err(CallError::NoName),
    }
}

/// An object's members in order, duplicates kept, each value as its own text.
struct RawObject<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for RawObject<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = RawObject<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawObject<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value::<&RawValue>()?));
                }
                Ok(RawObject(members))
            }
        }
        d.deserialize_map(Members)
    }
}

/// The text of the value at `path` (object keys) inside `text`, as sent.
fn raw_at<'a>(text: &'a str, path: &[&str]) -> Option<&'a str> {
    let mut current = text;
    for key in path {
        let object: RawObject<'a> = serde_json::from_str(current).ok()?;
        current = object.0.iter().find(|(k, _)| k == key)?.1.get();
    }
    Some(current)
}

/// Where a format keeps its arguments, as object keys from the call's top.
type ArgsPath = &'static [&'static str];

/// Reads a call in any supported format.
///
/// Argument objects are read from the call's own text: `serde_json`'s map
/// keeps only the last of duplicate keys, while a first-wins executor runs
/// the first, so an object that holds a key twice is passed on verbatim and
/// the policy answers it `args.invalid`. A key repeated in the envelope
/// itself (two `name`s, two `function`s) makes the call unreadable.
pub fn parse_call(text: &str) -> Result<ToolCall, CallError> {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) if e.to_string().starts_with(RECURSION_LIMIT) => return parse_deep_call(text),
        Err(_) => return Err(CallError::Json),
    };
    let Value::Object(call) = value else {
        return Err(CallError::NotObject(json_type(&value)));
    };
    let (mut parsed, path) = parse_envelope(&call)?;
    if let Err(ArgsError::DuplicateKey(key)) = reject_duplicate_keys(text) {
        let raw = raw_at(text, path)
            .filter(|raw| raw.trim_start().starts_with('{') && reject_duplicate_keys(raw).is_err());
        match raw {
            Some(raw) => parsed.args = raw.trim().to_owned(),
            None => return Err(CallError::DuplicateKey(key)),
        }
    }
    Ok(parsed)
}

/// How `serde_json` begins the message of an error raised for nesting deeper
/// than its recursion limit (128 levels).
const RECURSION_LIMIT: &str = "recursion limit exceeded";

/// The envelope members that hold a format's tool name beside its arguments.
const ENVELOPE_OBJECTS: [&str; 4] = ["params", "function", "functionCall", "function_call"];

/// Reads a call that is valid JSON but nests deeper than `serde_json` builds
/// a `Value`. The depth is almost always in the arguments, and the tool name
/// is still readable: the call is decided, and its arguments, passed on as
/// sent, are answered `args.invalid` as `assess` answers them. Each member is
/// read as raw text (skipping a value does not recurse, so any depth reads and
/// the whole text is still checked to be JSON); a member too deep to build is
/// null in the envelope, except the objects that hold the tool name, which
/// are opened one more level.
fn parse_deep_call(text: &str) -> Result<ToolCall, CallError> {
    let call = shallow_object(text, true)?;
    let (mut parsed, path) = parse_envelope(&call)?;
    if let Some(raw) = raw_at(text, path) {
        let raw = raw.trim();
        if raw.starts_with('{') || raw.starts_with('[') {
            raw.clone_into(&mut parsed.args);
        }
    }
    Ok(parsed)
}

/// An object whose members are built where `serde_json` can, null where they
/// nest too deep; `open` also opens [`ENVELOPE_OBJECTS`] one level. A key held
/// twice (loosely compared, as [`reject_duplicate_keys`] does) makes the
/// envelope unreadable.
fn shallow_object(text: &str, open: bool) -> Result<Map<String, Value>, CallError> {
    let members: RawObject = match serde_json::from_str(text) {
        Ok(members) => members,
        Err(_) => {
            return match serde_json::from_str::<&RawValue>(text) {
                Ok(_) => Err(CallError::NotObject(json_type(&Value::Array(Vec::new())))),
                Err(_) => Err(CallError::Json),
            }
        }
    };
    let mut seen = std::collections::HashSet::new();
    let mut object = Map::new();
    for (key, raw) in members.0 {
        if !seen.insert(crate::toolname::loose_key(&key)) {
            return Err(CallError::DuplicateKey(key));
        }
        let value = match serde_json::from_str::<Value>(raw.get()) {
            Ok(value) => value,
            Err(_) if open && ENVELOPE_OBJECTS.contains(&key.as_str()) => {
                match shallow_object(raw.get(), false) {
                    Ok(inner) => Value::Object(inner),
                    Err(CallError::DuplicateKey(key)) => return Err(CallError::DuplicateKey(key)),
                    Err(_) => Value::Null,
                }
            }
            Err(_) => Value::Null,
        };
        object.insert(key, value);
    }
    Ok(object)
}

/// The `type` tags of tool results in the formats read here. A result item
/// can carry the tool's `name` (the Agents SDK's `function_call_result` does)
/// and would otherwise read as a call without arguments.
const RESULT_TYPES: [&str; 5] = [
    "function_call_output",
    "function_call_result",
    "tool_result",
    "tool-result",
    "tool-error",
];

fn parse_envelope(call: &Map<String, Value>) -> Result<(ToolCall, ArgsPath), CallError> {
    let kind = call.get("type").and_then(Value::as_str);
    if kind.is_some_and(|kind| RESULT_TYPES.contains(&kind)) {
        return Err(CallError::NotCall);
    }

    // MCP: a whole JSON-RPC request.
    if call.get("method").and_then(Value::as_str) == Some("tools/call") {
        let Some(Value::Object(params)) = call.get("params") else {
            return Err(CallError::NoName);
        };
        return Ok((
            ToolCall {
                tool: name_of(params, "name")?,
                args: args_text(params.get("arguments")),
                id: string_id(call.get("id")),
                format: CallFormat::Mcp,
            },
            &["params", "arguments"],
        ));
    }
    if let Some(Value::Object(function)) = call.get("function") {
        return Ok((
            ToolCall {
                tool: name_of(function, "name")?,
                args: args_text(function.get("arguments")),
                id: string_id(call.get("id")),
                format: CallFormat::OpenaiChat,
            },
            &["function", "arguments"],
        ));
    }
    for key in ["functionCall", "function_call"] {
        if let Some(Value::Object(function_call)) = call.get(key) {
            let path: ArgsPath = if key == "functionCall" {
                &["functionCall", "args"]
            } else {
                &["function_call", "args"]
            };
            return Ok((
                ToolCall {
                    tool: name_of(function_call, "name")?,
                    args: args_text(function_call.get("args")),
                    id: string_id(function_call.get("id")),
                    format: CallFormat::Gemini,
                },
                path,
            ));
        }
    }
    match kind {
        Some("function_call") => {
            return Ok((
                ToolCall {
                    tool: name_of(call, "name")?,
                    args: args_text(call.get("arguments")),
                    id: responses_id(call),
                    format: CallFormat::OpenaiResponses,
                },
                &["arguments"],
            ))
        }
        Some("tool_use") => {
            return Ok((
                ToolCall {
                    tool: name_of(call, "name")?,
                    args: args_text(call.get("input")),
                    id: string_id(call.get("id")),
                    format: CallFormat::Anthropic,
                },
                &["input"],
            ))
        }
        _ => {}
    }
    if call.contains_key("toolName") {
        return ai_sdk(call);
    }
    if call.contains_key("tool") {
        return Ok((
            ToolCall {
                tool: name_of(call, "tool")?,
                args: args_text(call.get("args")),
                id: string_id(call.get("id")),
                format: CallFormat::Plain,
            },
            &["args"],
        ));
    }
    // Shapes without a type tag, by their argument field.
    let (key, format): (ArgsPath, CallFormat) = if call.contains_key("input") {
        (&["input"], CallFormat::Anthropic)
    } else if call.contains_key("args") {
        (&["args"], CallFormat::Gemini)
    } else if matches!(call.get("arguments"), Some(Value::String(_))) {
        (&["arguments"], CallFormat::OpenaiResponses)
    } else {
        (&["arguments"], CallFormat::Mcp)
    };
    let args = key.first().and_then(|k| call.get(*k));
    Ok((
        ToolCall {
            tool: name_of(call, "name")?,
            args: args_text(args),
            id: responses_id(call),
            format,
        },
        key,
    ))
}

/// An AI SDK tool call. Its other parts carry a `toolName` too (results,
/// errors, message parts), so the `type`, when present, must say `tool-call`;
/// and a call that also holds another format's name or arguments key is
/// refused rather than read one way here and another way by the executor.
fn ai_sdk(call: &Map<String, Value>) -> Result<(ToolCall, ArgsPath), CallError> {
    match call.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "tool-call" => {}
        Some(_) => return Err(CallError::NotCall),
    }
    for other in ["tool", "name"] {
        if call.contains_key(other) {
            return Err(CallError::Ambiguous("toolName", other));
        }
    }
    let path: ArgsPath = match (call.contains_key("input"), call.contains_key("args")) {
        (true, true) => return Err(CallError::Ambiguous("input", "args")),
        (false, true) => &["args"],
        _ => &["input"],
    };
    let args = path.first().and_then(|key| call.get(*key));
    Ok((
        ToolCall {
            tool: name_of(call, "toolName")?,
            args: args_text(args),
            id: string_id(call.get("toolCallId")),
            format: CallFormat::AiSdk,
        },
        path,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ToolCall {
        parse_call(text).unwrap()
    }

    #[test]
    fn every_format() {
        let c = parse(
            r#"{"id":"call_1","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}"#,
        );
        assert_eq!(
            (c.tool.as_str(), c.args.as_str(), c.id.as_deref(), c.format),
            (
                "execute_sql",
                r#"{"sql":"SELECT 1"}"#,
                Some("call_1"),
                CallFormat::OpenaiChat
            )
        );
        let c = parse(
            r#"{"type":"function_call","id":"fc_1","call_id":"call_2","name":"x","arguments":"{}"}"#,
        );
        assert_eq!(
            (c.id.as_deref(), c.format),
            (Some("call_2"), CallFormat::OpenaiResponses)
        );
        let c = parse(
            r#"{"type":"function_call","id":"fc_3","callId":"call_3","name":"x","arguments":"{}"}"#,
        );
        assert_eq!(
            (c.id.as_deref(), c.format),
            (Some("call_3"), CallFormat::OpenaiResponses)
        );
        let c = parse(r#"{"type":"tool_use","id":"toolu_1","name":"x","input":{"a":1.50}}"#);
        assert_eq!(
            (c.args.as_str(), c.format),
            (r#"{"a":1.50}"#, CallFormat::Anthropic)
        );
        let c = parse(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"b":2}}}"#,
        );
        assert_eq!(
            (c.args.as_str(), c.id.as_deref(), c.format),
            (r#"{"b":2}"#, Some("7"), CallFormat::Mcp)
        );
        let c = parse(r#"{"name":"x","arguments":{"b":2}}"#);
        assert_eq!(c.format, CallFormat::Mcp);
        let c = parse(r#"{"functionCall":{"name":"x","args":{"c":3}}}"#);
        assert_eq!(
            (c.args.as_str(), c.format),
            (r#"{"c":3}"#, CallFormat::Gemini)
        );
        let c = parse(r#"{"tool":"x","args":"{\"d\":4}"}"#);
        assert_eq!(
            (c.args.as_str(), c.format),
            (r#"{"d":4}"#, CallFormat::Plain)
        );
        assert_eq!(parse(r#"{"tool":"x"}"#).args, "{}");
        let c =
            parse(r#"{"type":"tool-call","toolCallId":"call_5","toolName":"x","input":{"e":5}}"#);
        assert_eq!(
            (c.tool.as_str(), c.args.as_str(), c.id.as_deref(), c.format),
            ("x", r#"{"e":5}"#, Some("call_5"), CallFormat::AiSdk)
        );
        let c = parse(r#"{"toolCallId":"c","toolName":"x","args":{"f":6}}"#);
        assert_eq!(
            (c.args.as_str(), c.format),
            (r#"{"f":6}"#, CallFormat::AiSdk)
        );
    }

    #[test]
    fn results_are_not_calls() {
        for text in [
            r#"{"type":"function_call_result","callId":"c","name":"x","status":"completed","output":"ok"}"#,
            r#"{"type":"function_call_output","call_id":"c","output":"ok"}"#,
            r#"{"type":"tool_result","tool_use_id":"t","name":"x","content":"ok"}"#,
        ] {
            assert_eq!(parse_call(text), Err(CallError::NotCall), "{text}");
        }
    }

    #[test]
    fn ai_sdk_look_alikes_are_not_calls() {
        assert_eq!(
            parse_call(r#"{"type":"tool-result","toolCallId":"c","toolName":"x","output":{}}"#),
            Err(CallError::NotCall)
        );
        assert_eq!(
            parse_call(r#"{"toolName":"x","name":"y","input":{}}"#),
            Err(CallError::Ambiguous("toolName", "name"))
        );
        assert_eq!(
            parse_call(r#"{"toolName":"x","input":{},"args":{}}"#),
            Err(CallError::Ambiguous("input", "args"))
        );
        assert_eq!(
            parse_call(r#"{"toolName":["x"],"input":{}}"#),
            Err(CallError::NameType("an array"))
        );
    }

    #[test]
    fn malformed_arguments_are_kept_for_the_policy() {
        let c = parse(r#"{"type":"function","function":{"name":"x","arguments":"{\"sql\": "}}"#);
        assert_eq!(c.args, r#"{"sql": "#);
        assert_eq!(parse(r#"{"tool":"x","args":[1]}"#).args, "[1]");
    }

    #[test]
    fn duplicate_keys_survive_in_every_format() {
        for text in [
            r#"{"tool":"execute_sql","args":{"sql":"DROP TABLE t","sql":"SELECT 1"}}"#,
            r#"{"type":"tool_use","id":"t","name":"execute_sql","input":{"sql":"DROP TABLE t","sql":"SELECT 1"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}"#,
            r#"{"functionCall":{"name":"x","args":{"a":{"b":1,"b":2}}}}"#,
            r#"{"name":"x","input":{"risk_level":"high","risk_level":"low"}}"#,
        ] {
            let call = parse(text);
            assert!(
                reject_duplicate_keys(&call.args).is_err(),
                "{text} -> {}",
                call.args
            );
        }
        assert_eq!(
            parse_call(r#"{"tool":"a","tool":"b","args":{}}"#),
            Err(CallError::DuplicateKey("tool".into()))
        );
        assert_eq!(
            parse(r#"{"tool":"x","args":{"a": 1.50}}"#).args,
            r#"{"a":1.50}"#
        );
    }

    #[test]
    fn unreadable_calls() {
        assert_eq!(parse_call("nope"), Err(CallError::Json));
        assert_eq!(parse_call("[1]"), Err(CallError::NotObject("an array")));
        assert_eq!(parse_call("{}"), Err(CallError::NoName));
        assert_eq!(
            parse_call(r#"{"tool":5}"#),
            Err(CallError::NameType("a number"))
        );
        assert_eq!(
            parse_call(r#"{"type":"function","function":{}}"#),
            Err(CallError::NoName)
        );
    }
}
