//! Checking a call's arguments against the JSON Schemas of a registry entry.
//!
//! A model's malformed call (`petId: "1; DROP"` for an integer, an enum value
//! that does not exist, a field the API does not take) must reach a person,
//! not the server: every problem found is an `args.schema` finding naming the
//! field's path and what was expected, and the decision is `confirm`.
//!
//! The subset is the one OpenAPI documents use: `type` (one or a list, and
//! OpenAPI 3.0's `nullable`), `enum`, `const`, `properties`, `required`,
//! `additionalProperties`, `items`, `minItems`/`maxItems`,
//! `minLength`/`maxLength`, `pattern`, `minimum`/`maximum` and their exclusive
//! forms (boolean or number), `multipleOf`, the formats that bound a value
//! (`int32`, `int64`, `uuid`, `date`, `date-time`), and `allOf`/`anyOf`/`oneOf`/
//! `not`. Annotations (`description`, `example`, `title`, …) are ignored. A
//! validation keyword outside the subset cannot be checked, so it is a problem
//! too (fail closed): the schema's author sees it in `config check`, and the
//! call reaches a person.

use crate::config::ToolConfig;
use serde_json::{Map, Value};

/// How deep schemas and values are followed; deeper is a problem, not a stack
/// overflow.
const MAX_DEPTH: usize = 32;
/// The most problems reported for one call.
const MAX_PROBLEMS: usize = 8;
/// Patterns longer than this are not compiled (a problem instead).
const MAX_PATTERN_BYTES: usize = 512;

/// Keywords that describe and never constrain.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "example",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "externalDocs",
    "xml",
    "discriminator",
    "nullable",
    "format",
    "contentMediaType",
    "contentEncoding",
];

/// Keywords this module checks.
const CHECKED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minProperties",
    "maxProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
];

/// One way a value does not fit its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where, as a path from the arguments (`body.tags[0]`, `petId`).
    pub path: String,
    /// What was expected there, for people.
    pub expected: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.path, self.expected)
    }
}

/// The problems of a registry API call's arguments against the entry's path,
/// query and body schemas (`risk_level` aside). With `body_field`, that
/// argument is the whole body; otherwise the body's fields are arguments of
/// their own, beside the path and query parameters. An argument none of the
/// schemas names is an unknown field when the schema it would go to (the
/// body's for a method that sends one, else the query's) says
/// `additionalProperties: false`.
pub fn call_problems(tool: &ToolConfig, args: &Map<String, Value>) -> Vec<Problem> {
    let mut out = Vec::new();
    let body_schema = tool.request_body_schema.as_ref();
    let flat_body = if tool.body_field.is_some() {
        None
    } else {
        body_schema
    };
    let parts = [
        tool.path_params_schema.as_ref(),
        tool.query_params_schema.as_ref(),
        flat_body,
    ];
    let sends_body = super::sends_body(tool);
    for schema in parts.into_iter().flatten() {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !args.contains_key(name) && Some(name) != tool.body_field.as_deref() {
                    push(&mut out, name, "a value (the field is required)");
                }
            }
        }
    }
    for (name, value) in args {
        if name == "risk_level" {
            continue;
        }
        if Some(name.as_str()) == tool.body_field.as_deref() {
            if let Some(schema) = body_schema {
                check(schema, value, name, 0, &mut out);
            }
            continue;
        }
        let property = parts
            .iter()
            .flatten()
            .find_map(|s| s.get("properties").and_then(|p| p.get(name)));
        match property {
            Some(schema) => check(schema, value, name, 0, &mut out),
            None => {
                let home = if sends_body {
                    flat_body
                } else {
                    tool.query_params_schema.as_ref()
                };
                match home.and_then(|s| s.get("additionalProperties")) {
                    Some(Value::Bool(false)) => push(
                        &mut out,
                        name,
                        "no such parameter (the API takes no others)",
                    ),
                    Some(extra @ Value::Object(_)) => check(extra, value, name, 0, &mut out),
                    _ => {}
                }
            }
        }
    }
    out.truncate(MAX_PROBLEMS);
    out
}

/// The problems of `value` against `schema`, at most `MAX_PROBLEMS`; `path`
/// names the value.
#[cfg(test)]
pub fn problems(schema: &Value, value: &Value, path: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    check(schema, value, path, 0, &mut out);
    out.truncate(MAX_PROBLEMS);
    out
}

fn push(out: &mut Vec<Problem>, path: &str, expected: impl Into<String>) {
    if out.len() < MAX_PROBLEMS {
        out.push(Problem {
            path: path.to_owned(),
            expected: expected.into(),
        });
    }
}

/// The JSON type names of a value, as a schema's `type` names them (an
/// integer is also a number).
fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number() && value.as_f64().is_some_and(f64::is_finite),
        "integer" => is_integer(value),
        _ => false,
    }
}

fn is_integer(value: &Value) -> bool {
    if value.as_i64().is_some() || value.as_u64().is_some() {
        return true;
    }
    value
        .as_f64()
        .is_some_and(|f| f.is_finite() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) if is_integer(value) => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn shown(value: &Value) -> String {
    crate::text::preview(&value.to_string(), 40)
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn check(schema: &Value, value: &Value, path: &str, depth: usize, out: &mut Vec<Problem>) {
    if out.len() >= MAX_PROBLEMS {
        return;
    }
    let schema = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => return push(out, path, "nothing (the schema accepts no value)"),
        Value::Object(map) => map,
        _ => return push(out, path, "a value, but its schema is not a schema"),
    };
    if depth > MAX_DEPTH {
        return push(out, path, "a value nested less deeply");
    }
    for key in schema.keys() {
        let known = ANNOTATIONS.contains(&key.as_str())
            || CHECKED.contains(&key.as_str())
            || key.starts_with("x-");
        if !known {
            push(
                out,
                path,
                format!("a value its schema can check (`{key}` is a keyword this policy does not check)"),
            );
            return;
        }
    }
    if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
        return;
    }
    if !types(schema, value, path, out) {
        return;
    }
    if let Some(options) = schema.get("enum") {
        match options {
            Value::Array(items) if items.iter().any(|o| same(o, value)) => {}
            Value::Array(items) => {
                let list: Vec<String> = items.iter().take(8).map(shown).collect();
                push(
                    out,
                    path,
                    format!("one of {}, not {}", list.join(", "), shown(value)),
                );
            }
            _ => push(out, path, "a value, but `enum` is not a list"),
        }
    }
    if let Some(constant) = schema.get("const") {
        if !same(constant, value) {
            push(
                out,
                path,
                format!("{}, not {}", shown(constant), shown(value)),
            );
        }
    }
    match value {
        Value::String(text) => string(schema, text, path, out),
        Value::Number(_) => number(schema, value, path, out),
        Value::Array(items) => array(schema, items, path, depth, out),
        Value::Object(map) => object(schema, map, path, depth, out),
        _ => {}
    }
    combinations(schema, value, path, depth, out);
}

/// Whether two JSON values are equal as JSON Schema compares them (numbers by
/// value: `1` and `1.0` are equal).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Checks `type` (and `format`'s integer ranges); false when the type is wrong,
/// so the keywords of the type are not checked on a value of another.
fn types(schema: &Map<String, Value>, value: &Value, path: &str, out: &mut Vec<Problem>) -> bool {
    let names: Vec<&str> = match schema.get("type") {
        None => return true,
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        Some(_) => {
            push(
                out,
                path,
                "a value, but `type` is neither a name nor a list",
            );
            return false;
        }
    };
    let nullable = schema.get("nullable") == Some(&Value::Bool(true));
    if names.iter().any(|n| is_type(value, n)) || nullable && value.is_null() {
        let format = schema.get("format").and_then(Value::as_str);
        return format.is_none_or(|f| formatted(f, value, path, out));
    }
    let wanted: Vec<String> = names
        .iter()
        .map(|n| match *n {
            "integer" | "array" | "object" => format!("an {n}"),
            "null" => String::from("null"),
            other => format!("a {other}"),
        })
        .collect();
    push(
        out,
        path,
        format!(
            "{}, not {} ({})",
            wanted.join(" or "),
            type_name(value),
            shown(value)
        ),
    );
    false
}

/// The formats that bound a value; other formats are annotations.
fn formatted(format: &str, value: &Value, path: &str, out: &mut Vec<Problem>) -> bool {
    let fits = match (format, value) {
        ("int32", Value::Number(_)) => value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        ("int64", Value::Number(_)) => value.as_i64().is_some(),
        ("uuid", Value::String(s)) => uuid(s),
        ("date", Value::String(s)) => date(s),
        ("date-time", Value::String(s)) => date_time(s),
        _ => return true,
    };
    if !fits {
        push(
            out,
            path,
            format!("a value of format `{format}`, not {}", shown(value)),
        );
    }
    fits
}

fn uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    digits(y, 4).is_some()
        && digits(m, 2).is_some_and(|m| (1..=12).contains(&m))
        && digits(d, 2).is_some_and(|d| (1..=31).contains(&d))
}

fn date_time(s: &str) -> bool {
    let Some((day, time)) = s.split_once(['T', 't']) else {
        return false;
    };
    let (clock, zone_ok) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, true)
    } else if let Some(at) = time.rfind(['+', '-']) {
        let (clock, zone) = time.split_at(at);
        let zone = zone.get(1..).unwrap_or("");
        let ok = zone.split_once(':').is_some_and(|(h, m)| {
            digits(h, 2).is_some_and(|h| h < 24) && digits(m, 2).is_some_and(|m| m < 60)
        });
        (clock, ok)
    } else {
        return false;
    };
    let clock = clock.split('.').next().unwrap_or("");
    let hms: Vec<&str> = clock.split(':').collect();
    let [h, m, sec] = hms.as_slice() else {
        return false;
    };
    date(day)
        && zone_ok
        && digits(h, 2).is_some_and(|h| h < 24)
        && digits(m, 2).is_some_and(|m| m < 60)
        && digits(sec, 2).is_some_and(|s| s <= 60)
}

fn bound(schema: &Map<String, Value>, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn count(schema: &Map<String, Value>, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

fn string(schema: &Map<String, Value>, text: &str, path: &str, out: &mut Vec<Problem>) {
    let length = text.chars().count() as u64;
    if let Some(min) = count(schema, "minLength").filter(|&m| length < m) {
        push(
            out,
            path,
            format!("a string of at least {min} characters, not {length}"),
        );
    }
    if let Some(max) = count(schema, "maxLength").filter(|&m| length > m) {
        push(
            out,
            path,
            format!("a string of at most {max} characters, not {length}"),
        );
    }
    if let Some(pattern) = schema.get("pattern") {
        let Some(pattern) = pattern.as_str().filter(|p| p.len() <= MAX_PATTERN_BYTES) else {
            return push(out, path, "a string, but its `pattern` cannot be checked");
        };
        match regex_lite::Regex::new(pattern) {
            Ok(re) if re.is_match(text) => {}
            Ok(_) => push(
                out,
                path,
                format!(
                    "a string matching `{}`, not {}",
                    crate::text::preview(pattern, 60),
                    crate::text::preview(&Value::String(text.to_owned()).to_string(), 40)
                ),
            ),
            Err(_) => push(
                out,
                path,
                format!(
                    "a string, but its `pattern` `{}` cannot be checked",
                    crate::text::preview(pattern, 60)
                ),
            ),
        }
    }
}

fn number(schema: &Map<String, Value>, value: &Value, path: &str, out: &mut Vec<Problem>) {
    let Some(n) = value.as_f64() else {
        return push(out, path, "a number this policy can compare");
    };
    let shown = shown(value);
    // OpenAPI 3.0 writes exclusive bounds as booleans beside the bound; JSON
    // Schema 2020 as numbers of their own.
    let exclusive = |key: &str| schema.get(key) == Some(&Value::Bool(true));
    if let Some(min) = bound(schema, "minimum") {
        if n < min || exclusive("exclusiveMinimum") && n <= min {
            let word = if exclusive("exclusiveMinimum") {
                "above"
            } else {
                "at least"
            };
            push(out, path, format!("a number {word} {min}, not {shown}"));
        }
    }
    if let Some(max) = bound(schema, "maximum") {
        if n > max || exclusive("exclusiveMaximum") && n >= max {
            let word = if exclusive("exclusiveMaximum") {
                "below"
            } else {
                "at most"
            };
            push(out, path, format!("a number {word} {max}, not {shown}"));
        }
    }
    if let Some(min) = bound(schema, "exclusiveMinimum").filter(|&m| n <= m) {
        push(out, path, format!("a number above {min}, not {shown}"));
    }
    if let Some(max) = bound(schema, "exclusiveMaximum").filter(|&m| n >= m) {
        push(out, path, format!("a number below {max}, not {shown}"));
    }
    if let Some(step) = bound(schema, "multipleOf").filter(|&s| s > 0.0) {
        let ratio = n / step;
        if !ratio.is_finite() || (ratio - ratio.round()).abs() > 1e-9 {
            push(out, path, format!("a multiple of {step}, not {shown}"));
        }
    }
}

fn array(
    schema: &Map<String, Value>,
    items: &[Value],
    path: &str,
    depth: usize,
    out: &mut Vec<Problem>,
) {
    let n = items.len() as u64;
    if let Some(min) = count(schema, "minItems").filter(|&m| n < m) {
        push(out, path, format!("at least {min} items, not {n}"));
    }
    if let Some(max) = count(schema, "maxItems").filter(|&m| n > m) {
        push(out, path, format!("at most {max} items, not {n}"));
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        let repeated = items
            .iter()
            .enumerate()
            .any(|(i, a)| items.iter().skip(i + 1).any(|b| same(a, b)));
        if repeated {
            push(out, path, "items that are all different");
        }
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{path}[{i}]"), depth + 1, out);
        }
    }
}

fn object(
    schema: &Map<String, Value>,
    map: &Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Vec<Problem>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(name) {
                push(out, &child(path, name), "a value (the field is required)");
            }
        }
    }
    let n = map.len() as u64;
    if let Some(min) = count(schema, "minProperties").filter(|&m| n < m) {
        push(out, path, format!("at least {min} fields, not {n}"));
    }
    if let Some(max) = count(schema, "maxProperties").filter(|&m| n > m) {
        push(out, path, format!("at most {max} fields, not {n}"));
    }
    for (name, value) in map {
        let at = child(path, name);
        match properties.and_then(|p| p.get(name)) {
            Some(property) => check(property, value, &at, depth + 1, out),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    push(out, &at, "no such field (the schema takes no others)")
                }
                Some(extra @ Value::Object(_)) => check(extra, value, &at, depth + 1, out),
                _ => {}
            },
        }
    }
}

fn combinations(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
    depth: usize,
    out: &mut Vec<Problem>,
) {
    let fits = |s: &Value| {
        let mut found = Vec::new();
        check(s, value, path, depth + 1, &mut found);
        found
    };
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for s in all {
            for p in fits(s) {
                push(out, &p.path, p.expected);
            }
        }
    }
    if let Some(Value::Array(any)) = schema.get("anyOf") {
        if !any.iter().any(|s| fits(s).is_empty()) {
            push(
                out,
                path,
                format!("a value that fits one of {} schemas", any.len()),
            );
        }
    }
    if let Some(Value::Array(one)) = schema.get("oneOf") {
        let fitting = one.iter().filter(|s| fits(s).is_empty()).count();
        if fitting != 1 {
            push(
                out,
                path,
                format!(
                    "a value that fits exactly one of {} schemas, not {fitting}",
                    one.len()
                ),
            );
        }
    }
    if let Some(not) = schema.get("not") {
        if fits(not).is_empty() {
            push(out, path, "a value its `not` schema rejects");
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if schema.get(key).is_some_and(|v| !v.is_array()) {
            push(out, path, format!("a value, but `{key}` is not a list"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check_one(schema: Value, value: Value) -> Vec<String> {
        problems(&schema, &value, "x")
            .into_iter()
            .map(|p| p.to_string())
            .collect()
    }

    #[test]
    fn types_enums_and_formats() {
        assert!(check_one(json!({"type": "integer"}), json!(3)).is_empty());
        assert!(check_one(json!({"type": "integer"}), json!(3.0)).is_empty());
        assert_eq!(
            check_one(json!({"type": "integer"}), json!("1; DROP")),
            ["`x`: an integer, not a string (\"1; DROP\")"]
        );
        assert!(!check_one(json!({"type": "integer"}), json!(1.5)).is_empty());
        assert!(check_one(json!({"type": ["string", "null"]}), json!(null)).is_empty());
        assert!(check_one(json!({"type": "string", "nullable": true}), json!(null)).is_empty());
        assert!(!check_one(json!({"type": "string"}), json!(null)).is_empty());
        assert!(check_one(json!({"enum": ["a", "b"]}), json!("a")).is_empty());
        assert_eq!(
            check_one(json!({"enum": ["available", "sold"]}), json!("gone")),
            ["`x`: one of \"available\", \"sold\", not \"gone\""]
        );
        assert!(!check_one(
            json!({"type": "integer", "format": "int32"}),
            json!(4_294_967_296_u64)
        )
        .is_empty());
        assert!(check_one(
            json!({"type": "integer", "format": "int64"}),
            json!(4_294_967_296_u64)
        )
        .is_empty());
        assert!(check_one(
            json!({"type": "string", "format": "uuid"}),
            json!("123e4567-e89b-12d3-a456-426614174000")
        )
        .is_empty());
        assert!(!check_one(
            json!({"type": "string", "format": "uuid"}),
            json!("123e4567")
        )
        .is_empty());
        assert!(check_one(
            json!({"type": "string", "format": "date-time"}),
            json!("2026-11-23T18:00:00Z")
        )
        .is_empty());
        assert!(check_one(
            json!({"type": "string", "format": "date-time"}),
            json!("2026-11-23T18:00:00.5+01:00")
        )
        .is_empty());
        assert!(!check_one(
            json!({"type": "string", "format": "date-time"}),
            json!("tomorrow")
        )
        .is_empty());
        assert!(check_one(
            json!({"type": "string", "format": "email"}),
            json!("anything")
        )
        .is_empty());
    }

    #[test]
    fn strings_numbers_arrays() {
        let s = json!({"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"});
        assert!(check_one(s.clone(), json!("ab")).is_empty());
        assert_eq!(check_one(s.clone(), json!("a")).len(), 1);
        assert_eq!(check_one(s.clone(), json!("abcd")).len(), 1);
        assert_eq!(check_one(s, json!("A1")).len(), 1);
        let n = json!({"type": "number", "minimum": 0, "maximum": 10, "multipleOf": 0.5});
        assert!(check_one(n.clone(), json!(9.5)).is_empty());
        assert_eq!(check_one(n.clone(), json!(-1)).len(), 1);
        assert_eq!(check_one(n, json!(0.3)).len(), 1);
        assert_eq!(
            check_one(json!({"minimum": 0, "exclusiveMinimum": true}), json!(0)).len(),
            1
        );
        assert_eq!(check_one(json!({"exclusiveMaximum": 5}), json!(5)).len(), 1);
        let a = json!({"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": true});
        assert!(check_one(a.clone(), json!(["a", "b"])).is_empty());
        assert_eq!(
            check_one(a.clone(), json!(["a", 1])),
            ["`x[1]`: a string, not an integer (1)"]
        );
        assert_eq!(check_one(a, json!(["a", "a", "a"])).len(), 2);
        assert_eq!(
            check_one(json!({"type": "string", "pattern": "(?<=a)b"}), json!("ab")).len(),
            1,
            "a pattern the policy cannot compile is a problem, not a pass"
        );
    }

    #[test]
    fn objects_and_combinations() {
        let o = json!({"type": "object", "required": ["name"], "additionalProperties": false,
            "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}}});
        assert!(check_one(o.clone(), json!({"name": "rex"})).is_empty());
        assert_eq!(
            check_one(o.clone(), json!({"tags": [{"id": "x"}], "colour": 1})),
            [
                "`x.name`: a value (the field is required)",
                "`x.tags[0].id`: an integer, not a string (\"x\")",
                "`x.colour`: no such field (the schema takes no others)"
            ]
        );
        assert!(check_one(
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!(1)
        )
        .is_empty());
        assert_eq!(
            check_one(
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                json!(true)
            )
            .len(),
            1
        );
        assert_eq!(
            check_one(
                json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
                json!(1)
            )
            .len(),
            1
        );
        assert_eq!(
            check_one(json!({"not": {"type": "null"}}), json!(null)).len(),
            1
        );
        assert_eq!(
            check_one(json!({"allOf": [{"minimum": 1}, {"maximum": 2}]}), json!(3)).len(),
            1
        );
        assert_eq!(
            check_one(json!({"if": {"type": "string"}}), json!("a")),
            ["`x`: a value its schema can check (`if` is a keyword this policy does not check)"]
        );
        assert!(check_one(json!({"x-internal": true, "description": "d"}), json!(1)).is_empty());
    }

    #[test]
    fn depth_is_bounded() {
        let mut schema = json!({"type": "array"});
        let mut value = json!(1);
        for _ in 0..100 {
            schema = json!({"type": "array", "items": schema});
            value = json!([value]);
        }
        assert!(!check_one(schema, value).is_empty());
    }
}
