//! OpenAPI import (seed 002 §9.3): registry entries and tool definitions from an
//! OpenAPI 3 or Swagger 2 document, JSON or YAML.
//!
//! Each operation becomes a registry tool (`"kind": "api"`) named by its
//! `operationId`, with its method, path (path parameters kept as `{name}`) and a
//! risk level from the method — GET/HEAD/OPTIONS 1, POST/PUT/PATCH 2, DELETE 3 —
//! unless the operation says otherwise with `x-toolgate-risk-level` (a POST that
//! only queries, for instance). The matching tool definition for the model has
//! the path and query parameters as properties and the JSON request body under
//! `body`. Header and cookie parameters are left out: credentials and
//! transport details are the host's business, never the model's.

use serde_json::{json, Map, Value};

/// Why a document could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Neither JSON nor YAML.
    #[error("the document is neither JSON nor YAML: {0}")]
    Parse(String),
    /// Not an OpenAPI 3 or Swagger 2 document.
    #[error(
        "not an OpenAPI 3 or Swagger 2 document (no `openapi` or `swagger` version, or no `paths`)"
    )]
    NotOpenApi,
}

/// The import: registry entries by tool name, tool definitions (OpenAI Chat
/// Completions shape), and one line per operation for people.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// `tools` entries ready to paste into a configuration.
    pub tools: Map<String, Value>,
    /// Tool definitions for the model.
    pub definitions: Vec<Value>,
    /// `level method path name` for each operation, in order.
    pub summary: Vec<String>,
}

const METHODS: &[&str] = &["get", "head", "options", "post", "put", "patch", "delete"];
/// How deep `$ref`s are followed (cycles end here as a plain object).
const MAX_REF_DEPTH: usize = 8;

/// Parses JSON, or else YAML.
fn parse(text: &str) -> Result<Value, ImportError> {
    serde_json::from_str(text).or_else(|_| {
        serde_yaml::from_str::<Value>(text).map_err(|e| ImportError::Parse(e.to_string()))
    })
}

/// Resolves local `$ref`s (`#/components/schemas/X`, `#/definitions/X`, …).
fn resolve(doc: &Value, value: &Value, depth: usize) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                if depth >= MAX_REF_DEPTH {
                    return json!({"type": "object"});
                }
                let pointer = target.strip_prefix('#').unwrap_or("");
                return match doc.pointer(pointer) {
                    Some(found) => resolve(doc, found, depth + 1),
                    None => json!({"type": "object"}),
                };
            }
            Value::Object(
                map.iter()
                    .filter(|(k, _)| !k.starts_with("x-") && *k != "example" && *k != "xml")
                    .map(|(k, v)| (k.clone(), resolve(doc, v, depth)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| resolve(doc, v, depth)).collect()),
        other => other.clone(),
    }
}

/// A tool name from the operation id, or from the method and path: letters,
/// digits, `_` and `-`, at most 64 characters (the strictest model APIs' rule).
fn tool_name(operation: &Value, method: &str, path: &str) -> String {
    let raw = operation
        .get("operationId")
        .and_then(Value::as_str)
        .map_or_else(|| format!("{method}_{path}"), str::to_owned);
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    while name.contains("__") {
        name = name.replace("__", "_");
    }
    let name = name.trim_matches('_');
    name.chars().take(64).collect()
}

fn level(operation: &Value, method: &str) -> u8 {
    if let Some(level) = operation
        .get("x-toolgate-risk-level")
        .and_then(Value::as_u64)
        .filter(|l| (1..=3).contains(l))
    {
        return level as u8;
    }
    match method {
        "get" | "head" | "options" => 1,
        "delete" => 3,
        _ => 2,
    }
}

/// Imports every operation of an OpenAPI 3 or Swagger 2 document.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    let doc = parse(text)?;
    let swagger2 = doc.get("swagger").is_some();
    if doc.get("openapi").is_none() && !swagger2 {
        return Err(ImportError::NotOpenApi);
    }
    let Some(Value::Object(paths)) = doc.get("paths") else {
        return Err(ImportError::NotOpenApi);
    };
    let mut imported = Imported {
        tools: Map::new(),
        definitions: Vec::new(),
        summary: Vec::new(),
    };
    for (path, item) in paths {
        let shared: Vec<Value> = item
            .get("parameters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for method in METHODS {
            let Some(operation) = item.get(*method) else {
                continue;
            };
            let name = tool_name(operation, method, path);
            let level = level(operation, method);
            let mut properties = Map::new();
            let mut required = Vec::new();
            let mut body_properties = Map::new();
            let parameters = shared.iter().chain(
                operation
                    .get("parameters")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            );
            for parameter in parameters {
                let parameter = resolve(&doc, parameter, 0);
                let Some(pname) = parameter.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let location = parameter.get("in").and_then(Value::as_str).unwrap_or("");
                let mut schema = match (location, parameter.get("schema")) {
                    ("body", Some(schema)) => {
                        properties.insert(String::from("body"), resolve(&doc, schema, 0));
                        if parameter.get("required") == Some(&Value::Bool(true)) {
                            required.push(json!("body"));
                        }
                        continue;
                    }
                    (_, Some(schema)) => resolve(&doc, schema, 0),
                    // Swagger 2 puts the type on the parameter itself.
                    (_, None) => {
                        let mut s = Map::new();
                        for key in [
                            "type", "format", "enum", "items", "minimum", "maximum", "default",
                        ] {
                            if let Some(v) = parameter.get(key) {
                                s.insert(key.to_owned(), v.clone());
                            }
                        }
                        Value::Object(s)
                    }
                };
                if let (Some(description), Value::Object(s)) =
                    (parameter.get("description"), &mut schema)
                {
                    s.entry("description")
                        .or_insert_with(|| description.clone());
                }
                match location {
                    "path" | "query" => {
                        if location == "path"
                            || parameter.get("required") == Some(&Value::Bool(true))
                        {
                            required.push(json!(pname));
                        }
                        properties.insert(pname.to_owned(), schema);
                    }
                    "formData" => {
                        body_properties.insert(pname.to_owned(), schema);
                    }
                    _ => {}
                }
            }
            if let Some(body) = operation.get("requestBody") {
                let body = resolve(&doc, body, 0);
                let schema = body
                    .pointer("/content/application~1json/schema")
                    .or_else(|| {
                        body.get("content")
                            .and_then(Value::as_object)
                            .and_then(|c| c.values().next())
                            .and_then(|m| m.get("schema"))
                    })
                    .cloned();
                if let Some(schema) = schema {
                    properties.insert(String::from("body"), schema);
                    if body.get("required") == Some(&Value::Bool(true)) {
                        required.push(json!("body"));
                    }
                }
            }
            if !body_properties.is_empty() {
                properties.insert(
                    String::from("body"),
                    json!({"type": "object", "properties": body_properties}),
                );
            }
            let description = operation
                .get("summary")
                .or_else(|| operation.get("description"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let upper = method.to_ascii_uppercase();
            let entry = json!({"kind": "api", "method": upper, "url": path, "risk_level": level});
            imported.tools.insert(name.clone(), entry);
            let mut parameters = Map::new();
            parameters.insert(String::from("type"), json!("object"));
            parameters.insert(String::from("properties"), Value::Object(properties));
            if !required.is_empty() {
                parameters.insert(String::from("required"), Value::Array(required));
            }
            imported.definitions.push(json!({
                "type": "function",
                "function": {"name": name, "description": description, "parameters": parameters}
            }));
            imported
                .summary
                .push(format!("{level} {upper} {path} {name}"));
        }
    }
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_names_and_errors() {
        let spec = r##"{"openapi":"3.0.0","paths":{"/pets/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
            "get":{"operationId":"getPet"},"delete":{"operationId":"deletePet"},
            "post":{"summary":"query","x-toolgate-risk-level":1,"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Q"}}}}}}},
            "components":{"schemas":{"Q":{"type":"object","properties":{"q":{"type":"string"}}}}}}"##;
        let out = import(spec).unwrap();
        assert_eq!(
            out.summary,
            vec![
                "1 GET /pets/{id} getPet",
                "1 POST /pets/{id} post_pets_id",
                "3 DELETE /pets/{id} deletePet"
            ]
        );
        let post = &out.definitions[1]["function"]["parameters"];
        assert_eq!(
            post["properties"]["body"]["properties"]["q"]["type"],
            "string"
        );
        assert_eq!(post["required"], json!(["id"]));
        assert!(matches!(
            import("openapi: [unclosed"),
            Err(ImportError::Parse(_))
        ));
        assert!(matches!(
            import("{\"info\": {}}"),
            Err(ImportError::NotOpenApi)
        ));
    }

    #[test]
    fn reference_cycles_end() {
        let spec = r##"{"swagger":"2.0","paths":{"/a":{"post":{"operationId":"a","parameters":[{"name":"b","in":"body","schema":{"$ref":"#/definitions/N"}}]}}},
            "definitions":{"N":{"type":"object","properties":{"next":{"$ref":"#/definitions/N"}}}}}"##;
        let out = import(spec).unwrap();
        assert_eq!(out.summary, vec!["2 POST /a a"]);
    }
}
