//! Adds the optional `risk_level` parameter to tool definitions, so the model can
//! state its own risk assessment (option C of the origin design).
//!
//! Recognised shapes: OpenAI Chat Completions (`function.parameters`), OpenAI
//! Responses and Gemini (`parameters`), Anthropic (`input_schema`) and MCP
//! (`inputSchema`). Everything else in a definition is left as it was.

use crate::args::{json_type, RISK_LEVEL};
use serde_json::{json, Map, Value};

/// What the model reads about the parameter.
pub const RISK_LEVEL_DESCRIPTION: &str = "Optional: your risk assessment of this call. \
'low' = read-only and safe, runs automatically; 'medium' or 'high' = may change or \
destroy something, a person confirms first. If omitted, the system assesses the call \
conservatively.";

/// Why tool definitions could not be augmented.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AugmentError {
    /// Not JSON at all.
    #[error("tools are not valid JSON: {0}")]
    Json(String),
    /// JSON, but neither an array of tools nor an object with a `tools` array.
    #[error("expected an array of tool definitions or an object with a `tools` array, not {0}")]
    Shape(&'static str),
}

/// Augments a JSON array of tool definitions, or a request body with a `tools`
/// array. Idempotent: a schema that already has `risk_level` is left alone.
pub fn augment_tools(text: &str) -> Result<String, AugmentError> {
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
    for tool in tools.iter_mut() {
        if let Value::Object(tool) = tool {
            augment_tool(tool);
        }
    }
    serde_json::to_string(&root).map_err(|e| AugmentError::Json(e.to_string()))
}

fn augment_tool(tool: &mut Map<String, Value>) {
    let strict_outer = tool.get("strict") == Some(&Value::Bool(true));
    if let Some(Value::Object(function)) = tool.get_mut("function") {
        let strict = strict_outer || function.get("strict") == Some(&Value::Bool(true));
        let schema = function
            .entry("parameters")
            .or_insert_with(|| json!({"type": "object", "properties": {}}));
        add_risk_level(schema, strict);
        return;
    }
    for key in ["input_schema", "inputSchema", "parameters"] {
        if let Some(schema) = tool.get_mut(key) {
            add_risk_level(schema, strict_outer);
            return;
        }
    }
}

fn add_risk_level(schema: &mut Value, strict: bool) {
    let Value::Object(schema) = schema else {
        return;
    };
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(properties) = properties else {
        return;
    };
    if properties.contains_key(RISK_LEVEL) {
        return;
    }
    let property = if strict {
        // Strict mode requires every property and allows no optional ones: the
        // parameter becomes required and nullable, and null means "not provided".
        json!({
            "type": ["string", "null"],
            "enum": ["low", "medium", "high", null],
            "description": RISK_LEVEL_DESCRIPTION,
        })
    } else {
        json!({
            "type": "string",
            "enum": ["low", "medium", "high"],
            "description": RISK_LEVEL_DESCRIPTION,
        })
    };
    properties.insert(RISK_LEVEL.to_owned(), property);
    if strict {
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
        assert_eq!(out["model"], json!("x"));
    }

    #[test]
    fn anthropic_and_mcp() {
        let out = aug(
            json!([{"name":"a","input_schema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object","properties":{}}}]),
        );
        assert!(out[0]["input_schema"]["properties"]["risk_level"].is_object());
        assert!(out[1]["inputSchema"]["properties"]["risk_level"].is_object());
    }

    #[test]
    fn own_risk_level_is_left_alone() {
        let tools = json!([{"name":"a","input_schema":{"type":"object","properties":{"risk_level":{"type":"integer"}}}}]);
        assert_eq!(aug(tools.clone()), tools);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(augment_tools("nope"), Err(AugmentError::Json(_))));
        assert_eq!(augment_tools("3"), Err(AugmentError::Shape("a number")));
        assert!(augment_tools("{}").is_err());
    }
}
