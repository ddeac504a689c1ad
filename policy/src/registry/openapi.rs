//! OpenAPI import (seed 002 §9.3): registry entries and tool definitions from
//! an OpenAPI 3 or Swagger 2 document, given as JSON (a host reads YAML and
//! passes its JSON form, so both CLIs import byte for byte alike).
//!
//! Each operation becomes a registry tool (`"kind": "api"`) named by its
//! `operationId` and kept whole: method, path (path parameters as `{name}`),
//! risk level (GET/HEAD/OPTIONS 1, POST/PUT/PATCH 2, DELETE 3, unless
//! `x-toolgate-risk-level` says otherwise), display name (the summary),
//! description, category (the first tag, or the one the import is given),
//! keywords (tags, the words of the operation id and of the summary; CJK text
//! kept), and the path, query and body schemas with local `$ref`s resolved,
//! `required`, enums and defaults — what discovery, prompts, argument checks
//! and request building read.
//!
//! **One shape for the model and the builder.** The function definition's
//! parameters are exactly what [`super::build_request`] reads back: path and
//! query parameters, and the fields of an object body, side by side at the top
//! level (`addPet(name, photoUrls, status)`, never `addPet(body: {…})`). A
//! body that is not an object of named fields (an array, a scalar, or fields
//! whose names clash with a parameter) is the one argument `body`, and the
//! entry says so with `body_field`, which the builder sends as the whole body.
//!
//! Header and cookie parameters are left out and said so in the notes:
//! credentials and transport details are the host's business, never the
//! model's.

use serde_json::{json, Map, Value};

/// Why a document could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Not JSON (a host turns YAML into JSON first).
    #[error("the document is not JSON: {0}")]
    Parse(String),
    /// Not an OpenAPI 3 or Swagger 2 document.
    #[error(
        "not an OpenAPI 3 or Swagger 2 document (no `openapi` or `swagger` version, or no `paths`)"
    )]
    NotOpenApi,
    /// The options are not the expected JSON object.
    #[error("invalid import options: {0}")]
    Options(String),
    /// `only` or `exclude` left nothing to import.
    #[error("no operation is left to import after `only` and `exclude`")]
    Nothing,
}

pub use toolgate_shapes::registry::{ImportOptions, Imported};

const METHODS: &[&str] = &["get", "head", "options", "post", "put", "patch", "delete"];
/// How deep `$ref`s are followed (cycles end here as a plain object).
const MAX_REF_DEPTH: usize = 8;
/// Schema keys the import drops: documentation for people, not constraints.
const DROPPED_KEYS: &[&str] = &["example", "examples", "xml", "externalDocs"];
/// Words too common to point to a tool.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "with",
    "new", "existing", "get", "set",
];

/// Resolves local `$ref`s (`#/components/schemas/X`, `#/definitions/X`, …) and
/// drops vendor extensions and examples.
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
                    .filter(|(k, _)| !k.starts_with("x-") && !DROPPED_KEYS.contains(&k.as_str()))
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
    name.trim_matches('_').chars().take(64).collect()
}

fn level(operation: &Value, method: &str) -> u8 {
    if let Some(level) = operation
        .get("x-toolgate-risk-level")
        .and_then(Value::as_u64)
        .and_then(|l| u8::try_from(l).ok())
        .filter(|l| (1..=3).contains(l))
    {
        return level;
    }
    match method {
        "get" | "head" | "options" => 1,
        "delete" => 3,
        _ => 2,
    }
}

/// The words of an identifier (`findPetsByStatus` → find, pets, by, status).
fn identifier_words(id: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in id.chars() {
        if !c.is_alphanumeric() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// The words of a sentence: split at whitespace and punctuation, lower case;
/// a run of CJK characters is kept as it is (those languages write no spaces).
fn sentence_words(text: &str) -> Vec<String> {
    text.split(|c: char| {
        c.is_whitespace()
            || (c.is_ascii_punctuation() && c != '-')
            || "，。、；：？！（）".contains(c)
    })
    .map(|w| w.trim_matches('-').to_lowercase())
    .filter(|w| !w.is_empty())
    .collect()
}

fn keywords(tags: &[String], name: &str, summary: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let words = tags
        .iter()
        .map(|t| t.to_lowercase())
        .chain(identifier_words(name))
        .chain(sentence_words(summary));
    for word in words {
        let ascii_short = word.is_ascii() && word.chars().count() < 2;
        if ascii_short || STOP_WORDS.contains(&word.as_str()) || out.contains(&word) {
            continue;
        }
        out.push(word);
    }
    out
}

/// The properties and required names of an object schema that can be spread
/// into top-level arguments, if it is one.
fn object_fields(schema: &Value) -> Option<(&Map<String, Value>, Vec<Value>)> {
    let is_object = schema.get("type").is_none_or(|t| t == "object");
    let properties = schema.get("properties")?.as_object()?;
    let extra_keys = schema.as_object().is_some_and(|m| {
        m.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type"
                    | "properties"
                    | "required"
                    | "description"
                    | "title"
                    | "additionalProperties"
            )
        })
    });
    if !is_object || extra_keys || properties.is_empty() {
        return None;
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Some((properties, required))
}

/// A parameter's schema (OpenAPI 3 `schema`; Swagger 2 keeps the type on the
/// parameter itself), with its description.
fn parameter_schema(doc: &Value, parameter: &Value) -> Value {
    let mut schema = match parameter.get("schema") {
        Some(schema) => resolve(doc, schema, 0),
        None => {
            let mut s = Map::new();
            for key in [
                "type",
                "format",
                "enum",
                "items",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "minLength",
                "maxLength",
                "pattern",
                "default",
                "minItems",
                "maxItems",
                "multipleOf",
            ] {
                if let Some(v) = parameter.get(key) {
                    s.insert(key.to_owned(), resolve(doc, v, 0));
                }
            }
            Value::Object(s)
        }
    };
    if let (Some(description), Value::Object(s)) = (parameter.get("description"), &mut schema) {
        s.entry("description")
            .or_insert_with(|| description.clone());
    }
    schema
}

fn object_schema(properties: Map<String, Value>, required: Vec<Value>) -> Value {
    let mut schema = Map::new();
    schema.insert(String::from("type"), json!("object"));
    schema.insert(String::from("properties"), Value::Object(properties));
    if !required.is_empty() {
        schema.insert(String::from("required"), Value::Array(required));
    }
    Value::Object(schema)
}

/// The lines a command line prints about an import: the counts by level,
/// each operation, and what was left to the host.
fn report(summary: &[String], levels: &[u8], notes: &[String]) -> Vec<String> {
    let count = |level: u8| levels.iter().filter(|&&l| l == level).count();
    let mut lines = vec![format!(
        "toolgate: imported {} operations: {} level 1 (query), {} level 2 (modify), {} level 3 (delete)",
        summary.len(),
        count(1),
        count(2),
        count(3)
    )];
    lines.extend(summary.iter().map(|line| format!("  {line}")));
    lines.extend(notes.iter().map(|note| format!("toolgate: note: {note}")));
    lines
}

/// Whether an operation is selected by `only` and `exclude`.
fn selected(options: &ImportOptions, name: &str, id: Option<&str>, tags: &[String]) -> bool {
    let names = |list: &[String]| {
        list.iter()
            .any(|x| x == name || Some(x.as_str()) == id || tags.contains(x))
    };
    (options.only.is_empty() || names(&options.only)) && !names(&options.exclude)
}

/// Imports every selected operation of an OpenAPI 3 or Swagger 2 document
/// (JSON text), with `options` as JSON (`{}` for all).
pub fn import_openapi(spec: &str, options: &str) -> Result<Imported, ImportError> {
    let options: ImportOptions = if options.trim().is_empty() {
        ImportOptions::default()
    } else {
        serde_json::from_str(options).map_err(|e| ImportError::Options(e.to_string()))?
    };
    let doc: Value = serde_json::from_str(spec).map_err(|e| ImportError::Parse(e.to_string()))?;
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
        notes: Vec::new(),
        report: Vec::new(),
    };
    // The level of each operation, beside its summary line.
    let mut levels: Vec<u8> = Vec::new();
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
            let tags: Vec<String> = operation
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| {
                    t.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let id = operation.get("operationId").and_then(Value::as_str);
            if !selected(&options, &name, id, &tags) {
                continue;
            }
            let operation = Operation::read(&doc, path, method, operation, &shared, &name);
            imported.notes.extend(operation.notes.iter().cloned());
            let level = level(operation.raw, method);
            let upper = method.to_ascii_uppercase();
            let category = options.category.clone().or_else(|| tags.first().cloned());
            let summary = operation
                .raw
                .get("summary")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_owned();
            let description = operation
                .raw
                .get("description")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .unwrap_or(&summary)
                .to_owned();
            let mut entry = Map::new();
            entry.insert(String::from("kind"), json!("api"));
            entry.insert(String::from("method"), json!(upper));
            entry.insert(String::from("url"), json!(path));
            entry.insert(String::from("risk_level"), json!(level));
            if !summary.is_empty() {
                entry.insert(String::from("display_name"), json!(summary));
            }
            if !description.is_empty() {
                entry.insert(String::from("description"), json!(description));
            }
            if let Some(category) = category {
                entry.insert(String::from("category"), json!(category));
            }
            entry.insert(
                String::from("keywords"),
                json!(keywords(&tags, &name, &summary)),
            );
            let (definition_properties, definition_required) = operation.arguments();
            for (key, schema) in [
                ("path_params_schema", operation.path_schema()),
                ("query_params_schema", operation.query_schema()),
                ("request_body_schema", operation.body.clone()),
            ] {
                if let Some(schema) = schema {
                    entry.insert(key.to_owned(), schema);
                }
            }
            if let Some(field) = &operation.body_field {
                entry.insert(String::from("body_field"), json!(field));
            }
            imported.tools.insert(name.clone(), Value::Object(entry));
            let parameters = object_schema(definition_properties, definition_required);
            imported.definitions.push(json!({
                "type": "function",
                "function": {"name": name, "description": description, "parameters": parameters}
            }));
            imported
                .summary
                .push(format!("{level} {upper} {path} {name}"));
            levels.push(level);
        }
    }
    if imported.summary.is_empty() && !(options.only.is_empty() && options.exclude.is_empty()) {
        return Err(ImportError::Nothing);
    }
    imported.report = report(&imported.summary, &levels, &imported.notes);
    Ok(imported)
}

/// One operation's parameters, read.
struct Operation<'a> {
    raw: &'a Value,
    path: Map<String, Value>,
    path_required: Vec<Value>,
    query: Map<String, Value>,
    query_required: Vec<Value>,
    /// The body schema as the entry keeps it.
    body: Option<Value>,
    /// Whether the request body is required.
    body_required: bool,
    /// Set when the body is one argument rather than fields of its own.
    body_field: Option<String>,
    notes: Vec<String>,
}

impl<'a> Operation<'a> {
    fn read(
        doc: &Value,
        path: &str,
        method: &str,
        raw: &'a Value,
        shared: &[Value],
        name: &str,
    ) -> Operation<'a> {
        let mut op = Operation {
            raw,
            path: Map::new(),
            path_required: Vec::new(),
            query: Map::new(),
            query_required: Vec::new(),
            body: None,
            body_required: false,
            body_field: None,
            notes: Vec::new(),
        };
        let mut form = Map::new();
        let mut form_required = Vec::new();
        let own = raw.get("parameters").and_then(Value::as_array);
        // An operation's parameter overrides a path item's of the same name
        // and location.
        let mut parameters: Vec<Value> = Vec::new();
        for parameter in own.into_iter().flatten().chain(shared) {
            let parameter = resolve(doc, parameter, 0);
            let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
            if !parameters.iter().any(|p| key(p) == key(&parameter)) {
                parameters.push(parameter);
            }
        }
        for parameter in &parameters {
            let Some(pname) = parameter.get("name").and_then(Value::as_str) else {
                continue;
            };
            let required = parameter.get("required") == Some(&Value::Bool(true));
            match parameter.get("in").and_then(Value::as_str).unwrap_or("") {
                "path" => {
                    op.path
                        .insert(pname.to_owned(), parameter_schema(doc, parameter));
                    op.path_required.push(json!(pname));
                }
                "query" => {
                    op.query
                        .insert(pname.to_owned(), parameter_schema(doc, parameter));
                    if required {
                        op.query_required.push(json!(pname));
                    }
                }
                "body" => {
                    op.body = parameter.get("schema").map(|s| resolve(doc, s, 0));
                    op.body_required = required;
                }
                "formData" => {
                    form.insert(pname.to_owned(), parameter_schema(doc, parameter));
                    if required {
                        form_required.push(json!(pname));
                    }
                }
                location @ ("header" | "cookie") => op.notes.push(format!(
                    "{name} ({} {path}): the {location} parameter `{pname}` is left to the host",
                    method.to_ascii_uppercase()
                )),
                _ => {}
            }
        }
        if let Some(body) = raw.get("requestBody") {
            let body = resolve(doc, body, 0);
            let schema = body
                .pointer("/content/application~1json/schema")
                .or_else(|| {
                    body.get("content")
                        .and_then(Value::as_object)
                        .and_then(|c| c.values().next())
                        .and_then(|m| m.get("schema"))
                })
                .cloned();
            if schema.is_some() {
                op.body = schema;
                op.body_required = body.get("required") == Some(&Value::Bool(true));
            }
        }
        if op.body.is_none() && !form.is_empty() {
            op.body = Some(object_schema(form, form_required));
        }
        // The body's fields become arguments unless the body is not an object
        // of named fields or a name is taken by a parameter.
        let spreads = op
            .body
            .as_ref()
            .and_then(object_fields)
            .is_some_and(|(fields, _)| {
                fields.keys().all(|k| {
                    !op.path.contains_key(k) && !op.query.contains_key(k) && k != "risk_level"
                })
            });
        if op.body.is_some() && !spreads {
            let mut field = String::from("body");
            while op.path.contains_key(&field) || op.query.contains_key(&field) {
                field.push('_');
            }
            op.body_field = Some(field);
        }
        // An optional body's own required fields apply only when it is sent:
        // spread into arguments, they cannot be told apart, so they are not
        // required of the call.
        if spreads && !op.body_required {
            if let Some(Value::Object(schema)) = &mut op.body {
                schema.remove("required");
            }
        }
        op
    }

    fn path_schema(&self) -> Option<Value> {
        (!self.path.is_empty())
            .then(|| object_schema(self.path.clone(), self.path_required.clone()))
    }

    fn query_schema(&self) -> Option<Value> {
        (!self.query.is_empty())
            .then(|| object_schema(self.query.clone(), self.query_required.clone()))
    }

    /// The function definition's properties and required names: exactly what
    /// the request builder reads back.
    fn arguments(&self) -> (Map<String, Value>, Vec<Value>) {
        let mut properties = self.path.clone();
        properties.extend(self.query.clone());
        let mut required = self.path_required.clone();
        required.extend(self.query_required.iter().cloned());
        match (&self.body, &self.body_field) {
            (Some(body), Some(field)) => {
                properties.insert(field.clone(), body.clone());
                if self.body_required {
                    required.push(json!(field));
                }
            }
            (Some(body), None) => {
                if let Some((fields, body_required)) = object_fields(body) {
                    properties.extend(fields.clone());
                    required.extend(body_required);
                }
            }
            _ => {}
        }
        (properties, required)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_names_shapes_and_errors() {
        let spec = r##"{"openapi":"3.0.0","paths":{"/pets/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
            "get":{"operationId":"getPet","tags":["pet"],"summary":"Find pet by ID","parameters":[{"name":"api_key","in":"header"}]},
            "delete":{"operationId":"deletePet"},
            "post":{"summary":"query","x-toolgate-risk-level":1,"requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Q"}}}}}}},
            "components":{"schemas":{"Q":{"type":"object","required":["q"],"properties":{"q":{"type":"string","default":"all"}}}}}}"##;
        let out = import_openapi(spec, "{}").unwrap();
        assert_eq!(
            out.summary,
            vec![
                "1 GET /pets/{id} getPet",
                "1 POST /pets/{id} post_pets_id",
                "3 DELETE /pets/{id} deletePet"
            ]
        );
        let post = &out.definitions[1]["function"]["parameters"];
        assert_eq!(post["properties"]["q"]["type"], "string");
        assert_eq!(post["required"], json!(["id", "q"]));
        let get = &out.tools["getPet"];
        assert_eq!(get["category"], "pet");
        assert_eq!(get["display_name"], "Find pet by ID");
        assert_eq!(get["keywords"], json!(["pet", "find", "id"]));
        assert_eq!(
            out.notes,
            ["getPet (GET /pets/{id}): the header parameter `api_key` is left to the host"]
        );
        assert!(matches!(
            import_openapi("openapi: [", "{}"),
            Err(ImportError::Parse(_))
        ));
        assert!(matches!(
            import_openapi("{\"info\": {}}", "{}"),
            Err(ImportError::NotOpenApi)
        ));
        assert!(matches!(
            import_openapi(spec, "{\"onl\": []}"),
            Err(ImportError::Options(_))
        ));
        assert!(matches!(
            import_openapi(spec, r#"{"only": ["nope"]}"#),
            Err(ImportError::Nothing)
        ));
        let only = import_openapi(spec, r#"{"only": ["pet"], "category": "animals"}"#).unwrap();
        assert_eq!(only.summary, ["1 GET /pets/{id} getPet"]);
        assert_eq!(only.tools["getPet"]["category"], "animals");
        let without = import_openapi(spec, r#"{"exclude": ["deletePet"]}"#).unwrap();
        assert_eq!(without.summary.len(), 2);
    }

    #[test]
    fn bodies_that_are_not_objects_are_one_argument() {
        let spec = r##"{"openapi":"3.0.0","paths":{"/pets":{"post":{"operationId":"addPets",
            "parameters":[{"name":"name","in":"query","schema":{"type":"string"}}],
            "requestBody":{"content":{"application/json":{"schema":{"type":"array","items":{"type":"string"}}}}}},
            "put":{"operationId":"rename","parameters":[{"name":"name","in":"query","schema":{"type":"string"}}],
            "requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}}}}"##;
        let out = import_openapi(spec, "").unwrap();
        assert_eq!(out.tools["addPets"]["body_field"], "body");
        assert_eq!(
            out.definitions[0]["function"]["parameters"]["properties"]["body"]["type"],
            "array"
        );
        assert_eq!(out.tools["rename"]["body_field"], "body");
    }

    #[test]
    fn words_and_cycles() {
        assert_eq!(
            identifier_words("findPetsByStatus"),
            ["find", "pets", "by", "status"]
        );
        assert_eq!(
            identifier_words("get_alert-rules2"),
            ["get", "alert", "rules2"]
        );
        assert_eq!(
            sentence_words("屏蔽告警，Mute alerts"),
            ["屏蔽告警", "mute", "alerts"]
        );
        let spec = r##"{"swagger":"2.0","paths":{"/a":{"post":{"operationId":"a","parameters":[{"name":"b","in":"body","schema":{"$ref":"#/definitions/N"}}]}}},
            "definitions":{"N":{"type":"object","properties":{"next":{"$ref":"#/definitions/N"}}}}}"##;
        let out = import_openapi(spec, "{}").unwrap();
        assert_eq!(out.summary, vec!["2 POST /a a"]);
    }
}
