//! Adds the optional `risk_level` parameter to tool definitions, so the model can
//! state its own risk assessment (option C of the origin design).
//!
//! Recognised shapes, per tool or forced by the caller:
//! - OpenAI Chat Completions: `{"type": "function", "function": {"name", "parameters", "strict"?}}`
//! - OpenAI Responses: `{"type": "function", "name", "parameters", "strict"?}`
//! - Anthropic: `{"name", "input_schema"}`
//! - MCP `tools/list` entries: `{"name", "inputSchema", "annotations"?}`
//! - Gemini: `{"functionDeclarations": [{"name", "parameters"}]}` (or
//!   `function_declarations`), or a bare declaration `{"name", "parameters"}`.
//!
//! Everything else in a definition is left as it was. The parameter is never
//! required, except in OpenAI strict mode, which demands every property in
//! `required`: there it is required and nullable, and `null` means "not
//! provided". A schema that already has its own `risk_level` is left alone and
//! reported; one that has toolgate's is left alone silently, so augmenting twice
//! changes nothing.

use crate::args::{json_type, RISK_LEVEL};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// What the model reads about the parameter.
pub const RISK_LEVEL_DESCRIPTION: &str = "Optional: your risk assessment of this call. \
'low' = read-only and safe, runs automatically; 'medium' or 'high' = may change or \
destroy something, a person confirms first. If omitted, the system assesses the call \
conservatively.";

/// A tool-definition format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolFormat {
    /// OpenAI Chat Completions.
    OpenaiChat,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// MCP `tools/list`.
    Mcp,
    /// Gemini function declarations.
    Gemini,
}

impl ToolFormat {
    /// Reads a format name (`openai-chat`, `openai-responses`, `anthropic`, `mcp`,
    /// `gemini`).
    pub fn parse(name: &str) -> Option<ToolFormat> {
        match name {
            "openai-chat" | "openai" => Some(ToolFormat::OpenaiChat),
            "openai-responses" => Some(ToolFormat::OpenaiResponses),
            "anthropic" => Some(ToolFormat::Anthropic),
            "mcp" => Some(ToolFormat::Mcp),
            "gemini" => Some(ToolFormat::Gemini),
            _ => None,
        }
    }

    /// Recognises the format of one tool definition.
    pub fn detect(tool: &Map<String, Value>) -> Option<ToolFormat> {
        if tool.get("function").is_some_and(Value::is_object) {
            Some(ToolFormat::OpenaiChat)
        } else if tool.contains_key("functionDeclarations")
            || tool.contains_key("function_declarations")
        {
            Some(ToolFormat::Gemini)
        } else if tool.contains_key("input_schema") {
            Some(ToolFormat::Anthropic)
        } else if tool.contains_key("inputSchema") {
            Some(ToolFormat::Mcp)
        } else if tool.get("type").and_then(Value::as_str) == Some("function") {
            Some(ToolFormat::OpenaiResponses)
        } else if tool.contains_key("name") && tool.contains_key("parameters") {
            Some(ToolFormat::Gemini)
        } else {
            None
        }
    }
}

/// Why tool definitions could not be augmented.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AugmentError {
    /// Not JSON at all.
    #[error("tools are not valid JSON: {0}")]
    Json(String),
    /// JSON, but neither an array of tools nor an object with a `tools` array.
    #[error("expected an array of tool definitions or an object with a `tools` array, not {0}")]
    Shape(&'static str),
    /// An unknown format name.
    #[error("unknown tool format `{0}`: expected openai-chat, openai-responses, anthropic, mcp or gemini")]
    Format(String),
}

pub use toolgate_shapes::calls::Augmented;

/// Augments a JSON array of tool definitions, or a request body with a `tools`
/// array, detecting each tool's format.
pub fn augment_tools(text: &str) -> Result<String, AugmentError> {
    augment_tools_as(text, None).map(|a| a.tools)
}

/// Augments tool definitions in `format`, or in each tool's detected format.
pub fn augment_tools_as(text: &str, format: Option<&str>) -> Result<Augmented, AugmentError> {
    let forced = match format {
        None | Some("") | Some("auto") => None,
        Some(name) => {
            Some(ToolFormat::parse(name).ok_or_else(|| AugmentError::Format(name.to_owned()))?)
        }
    };
    let mut root: Value =
        serde_json::from_str(text).map_err(|e| AugmentError::Json(e.to_string()))?;
    let tools = match &mut root {
        Value::Array(tools) => tools,
        Value::Object(body) => match body.get_mut("tools") {
            Some(Value::Array(tools)) => tools,
            Some(other) => return Err(AugmentError::Shape(json_type(other))),
            None => return Err(AugmentError::Shape("an object without `tools`")),
        },
        other => return Err(AugmentError::Shape(json_type(other))),
    };
    let mut notes = Vec::new();
    for (index, tool) in tools.iter_mut().enumerate() {
        let Value::Object(tool) = tool else {
            notes.push(format!("tool {index}: not an object; left alone"));
            continue;
        };
        let name = display_name(tool, index);
        match forced.or_else(|| ToolFormat::detect(tool)) {
            Some(format) => augment_tool(tool, format, &name, &mut notes),
            None => notes.push(format!(
                "{name}: not a recognised tool definition; left alone"
            )),
        }
    }
    let tools = serde_json::to_string(&root).map_err(|e| AugmentError::Json(e.to_string()))?;
    Ok(Augmented { tools, notes })
}

fn display_name(tool: &Map<String, Value>, index: usize) -> String {
    tool.get("name")
        .or_else(|| tool.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
        .map_or_else(
            || format!("tool {index}"),
            |n| format!("`{}`", crate::text::preview(n, 60)),
        )
}

fn augment_tool(
    tool: &mut Map<String, Value>,
    format: ToolFormat,
    name: &str,
    notes: &mut Vec<String>,
) {
    let strict_outer = tool.get("strict") == Some(&Value::Bool(true));
    match format {
        ToolFormat::OpenaiChat => {
            let Some(Value::Object(function)) = tool.get_mut("function") else {
                notes.push(format!("{name}: no `function` object; left alone"));
                return;
            };
            let strict = strict_outer || function.get("strict") == Some(&Value::Bool(true));
            let schema = function.entry("parameters").or_insert_with(empty_schema);
            add_risk_level(schema, Style::Json { strict }, name, notes);
        }
        ToolFormat::OpenaiResponses => {
            let schema = tool.entry("parameters").or_insert_with(empty_schema);
            add_risk_level(
                schema,
                Style::Json {
                    strict: strict_outer,
                },
                name,
                notes,
            );
        }
        ToolFormat::Anthropic => {
            let schema = tool.entry("input_schema").or_insert_with(empty_schema);
            add_risk_level(schema, Style::Json { strict: false }, name, notes);
        }
        ToolFormat::Mcp => {
            let schema = tool.entry("inputSchema").or_insert_with(empty_schema);
            add_risk_level(schema, Style::Json { strict: false }, name, notes);
        }
        ToolFormat::Gemini => {
            let key = if tool.contains_key("function_declarations") {
                "function_declarations"
            } else {
                "functionDeclarations"
            };
            if let Some(Value::Array(declarations)) = tool.get_mut(key) {
                // A declaration without parameters gets a schema written in the
                // type case its siblings use (`OBJECT` or `object`).
                let upper = declarations.iter().any(|d| {
                    d.get("parameters")
                        .and_then(|p| p.get("type"))
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.chars().all(|c| c.is_ascii_uppercase()))
                });
                for (index, declaration) in declarations.iter_mut().enumerate() {
                    if let Value::Object(declaration) = declaration {
                        let name = display_name(declaration, index);
                        let schema = declaration.entry("parameters").or_insert_with(|| {
                            json!({"type": if upper { "OBJECT" } else { "object" }, "properties": {}})
                        });
                        add_risk_level(schema, Style::Gemini, &name, notes);
                    }
                }
            } else {
                let schema = tool.entry("parameters").or_insert_with(empty_schema);
                add_risk_level(schema, Style::Gemini, name, notes);
            }
        }
    }
}

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// How the property is written.
#[derive(Clone, Copy)]
enum Style {
    /// JSON Schema; OpenAI strict mode makes it required and nullable.
    Json { strict: bool },
    /// Gemini's OpenAPI subset: enums are strings with `"format": "enum"`, and
    /// the type is written in the case the schema already uses (`STRING` in the
    /// REST API's own examples, `string` in most SDKs).
    Gemini,
}

fn ours(property: &Value) -> bool {
    property.get("description").and_then(Value::as_str) == Some(RISK_LEVEL_DESCRIPTION)
}

fn add_risk_level(schema: &mut Value, style: Style, name: &str, notes: &mut Vec<String>) {
    let Value::Object(schema) = schema else {
        notes.push(format!(
            "{name}: the parameter schema is not an object; left alone"
        ));
        return;
    };
    let upper = schema
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.chars().all(|c| c.is_ascii_uppercase()));
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(properties) = properties else {
        notes.push(format!("{name}: `properties` is not an object; left alone"));
        return;
    };
    if let Some(existing) = properties.get(RISK_LEVEL) {
        if !ours(existing) {
            notes.push(format!(
                "{name}: already has its own `risk_level` parameter; left alone"
            ));
        }
        return;
    }
    let property = match style {
        // Strict mode requires every property and allows no optional ones: the
        // parameter becomes required and nullable, and null means "not provided".
        Style::Json { strict: true } => json!({
            "type": ["string", "null"],
            "enum": ["low", "medium", "high", null],
            "description": RISK_LEVEL_DESCRIPTION,
        }),
        Style::Json { strict: false } => json!({
            "type": "string",
            "enum": ["low", "medium", "high"],
            "description": RISK_LEVEL_DESCRIPTION,
        }),
        Style::Gemini => json!({
            "type": if upper { "STRING" } else { "string" },
            "format": "enum",
            "enum": ["low", "medium", "high"],
            "description": RISK_LEVEL_DESCRIPTION,
        }),
    };
    properties.insert(RISK_LEVEL.to_owned(), property);
    if matches!(style, Style::Json { strict: true }) {
        let required = schema
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(required) = required {
            required.push(Value::String(RISK_LEVEL.to_owned()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aug(v: Value) -> Value {
        serde_json::from_str(&augment_tools(&v.to_string()).unwrap()).unwrap()
    }

    #[test]
    fn openai_chat_and_idempotence() {
        let tools = json!([{"type":"function","function":{"name":"execute_sql","parameters":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}}]);
        let once = aug(tools);
        let p = &once[0]["function"]["parameters"];
        assert_eq!(
            p["properties"]["risk_level"]["enum"],
            json!(["low", "medium", "high"])
        );
        assert_eq!(p["required"], json!(["sql"]));
        assert_eq!(aug(once.clone()), once);
    }

    #[test]
    fn strict_makes_it_required_and_nullable() {
        let tools = json!({"model":"x","tools":[{"type":"function","name":"f","strict":true,"parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false}}]});
        let out = aug(tools);
        let p = &out["tools"][0]["parameters"];
        assert_eq!(p["required"], json!(["risk_level"]));
        assert_eq!(
            p["properties"]["risk_level"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(p["additionalProperties"], json!(false));
        assert_eq!(out["model"], json!("x"));
        assert_eq!(aug(out.clone()), out);
    }

    #[test]
    fn anthropic_mcp_and_gemini() {
        let out = aug(json!([
            {"name":"a","input_schema":{"type":"object"}},
            {"name":"b","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true}},
            {"functionDeclarations":[{"name":"c","parameters":{"type":"OBJECT","properties":{}}}]},
            {"name":"d","parameters":{"type":"object","properties":{}}}
        ]));
        assert!(out[0]["input_schema"]["properties"]["risk_level"].is_object());
        assert!(out[1]["inputSchema"]["properties"]["risk_level"].is_object());
        assert_eq!(out[1]["annotations"], json!({"readOnlyHint": true}));
        let gemini = &out[2]["functionDeclarations"][0]["parameters"]["properties"]["risk_level"];
        assert_eq!(gemini["type"], json!("STRING"));
        assert_eq!(gemini["format"], json!("enum"));
        assert_eq!(
            out[3]["parameters"]["properties"]["risk_level"]["type"],
            json!("string")
        );
    }

    #[test]
    fn own_risk_level_is_left_alone_and_reported() {
        let tools = json!([{"name":"a","input_schema":{"type":"object","properties":{"risk_level":{"type":"integer"}}}}]);
        let out = augment_tools_as(&tools.to_string(), None).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out.tools).unwrap(), tools);
        assert_eq!(
            out.notes,
            vec!["`a`: already has its own `risk_level` parameter; left alone"]
        );
        let again = augment_tools_as(
            &augment_tools(r#"[{"name":"b","input_schema":{"type":"object"}}]"#).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!(again.notes, Vec::<String>::new());
    }

    /// OpenAI strict mode: every object schema lists all its properties in
    /// `required` and has `additionalProperties: false`; an optional value must be
    /// nullable instead.
    fn strict_rules_hold(schema: &Value, path: &str) -> Result<(), String> {
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .ok_or(format!("{path}: no required"))?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            for key in properties.keys() {
                if !required.contains(&key.as_str()) {
                    return Err(format!("{path}: `{key}` is not required"));
                }
            }
            if schema["additionalProperties"] != json!(false) {
                return Err(format!("{path}: additionalProperties is not false"));
            }
            for (key, property) in properties {
                strict_rules_hold(property, &format!("{path}.{key}"))?;
            }
        }
        Ok(())
    }

    #[test]
    fn strict_schemas_satisfy_the_strict_rules() {
        let body = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/formats/openai-chat.json"
        ))
        .unwrap();
        let out: Value = serde_json::from_str(&augment_tools(&body).unwrap()).unwrap();
        let strict = &out["tools"][1]["function"];
        assert_eq!(strict["strict"], json!(true));
        strict_rules_hold(&strict["parameters"], "execute_command").unwrap();
        let risk = &strict["parameters"]["properties"]["risk_level"];
        assert_eq!(risk["type"], json!(["string", "null"]));
        assert!(risk["enum"].as_array().unwrap().contains(&Value::Null));

        let body = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/formats/openai-responses.json"
        ))
        .unwrap();
        let out: Value = serde_json::from_str(&augment_tools(&body).unwrap()).unwrap();
        strict_rules_hold(&out["tools"][0]["parameters"], "execute_command").unwrap();
        // The validator does reject a strict schema with an optional property.
        let broken = json!({"type":"object","properties":{"a":{},"b":{}},"required":["a"],"additionalProperties":false});
        assert!(strict_rules_hold(&broken, "x").is_err());
    }

    #[test]
    fn forced_format_and_errors() {
        let out = augment_tools_as(
            r#"[{"name":"x","parameters":{"type":"object"}}]"#,
            Some("openai-responses"),
        )
        .unwrap();
        assert!(
            out.tools.contains(r#""risk_level":{"type":"string""#),
            "{}",
            out.tools
        );
        assert!(matches!(
            augment_tools_as("[]", Some("cobol")),
            Err(AugmentError::Format(_))
        ));
        assert!(matches!(augment_tools("nope"), Err(AugmentError::Json(_))));
        assert_eq!(augment_tools("3"), Err(AugmentError::Shape("a number")));
        assert!(augment_tools("{}").is_err());
        let unknown = augment_tools_as(r#"[{"foo":1}, 5]"#, None).unwrap();
        assert_eq!(unknown.notes.len(), 2);
    }
}
