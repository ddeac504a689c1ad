//! Methods named under another name: the `X-HTTP-Method-Override`,
//! `X-HTTP-Method`, `X-Method-Override` headers (and the `X-Original-Method`
//! and `X-Forwarded-Method` some proxies pass on) and the `_method`
//! parameter make many frameworks (Rails, Laravel, Express middleware,
//! ASP.NET, Google APIs) run a POST as the method they name, so a POST that
//! says `DELETE` is a DELETE.
//!
//! They are looked for everywhere in the arguments, in any case and with `-`
//! or `_`: as object keys (a headers or body object), as `[name, value]`
//! pairs, as `{name|key, value}` objects, and inside strings (`Name: value`
//! header lines, `_method=DELETE` in a query or form body, `"_method":
//! "DELETE"` in a JSON body sent as text), percent-decoded first.

use serde_json::Value;

/// Header names that override the method (lower case, `_` read as `-`).
const HEADERS: &[&str] = &[
    "x-http-method-override",
    "x-http-method",
    "x-method-override",
    "x-original-method",
    "x-forwarded-method",
];
/// The form and query parameter that overrides the method.
const PARAMETER: &str = "_method";

/// The override names, as they are compared.
fn is_override_name(name: &str) -> bool {
    let key = name.trim().to_ascii_lowercase().replace('_', "-");
    HEADERS.contains(&key.as_str()) || name.trim().eq_ignore_ascii_case(PARAMETER)
}

/// A method named by an override: the text, or `None` when it could not be
/// read (then the caller cannot prove what runs).
pub type Named = Option<String>;

fn push_value(value: &Value, out: &mut Vec<Named>) {
    match value {
        Value::String(s) => out.push(Some(s.trim().to_owned())),
        Value::Array(items) => items.iter().for_each(|v| push_value(v, out)),
        _ => out.push(None),
    }
}

/// Every method an override in `value` names.
pub fn overrides(value: &Value) -> Vec<Named> {
    let mut out = Vec::new();
    walk(value, &mut out);
    out
}

fn walk(value: &Value, out: &mut Vec<Named>) {
    match value {
        Value::Object(map) => {
            let named = ["name", "key", "header"]
                .iter()
                .filter_map(|k| map.get(*k).and_then(Value::as_str))
                .any(is_override_name);
            if named {
                match map.get("value") {
                    Some(v) => push_value(v, out),
                    None => out.push(None),
                }
            }
            for (key, item) in map {
                if is_override_name(key) {
                    push_value(item, out);
                }
                walk(item, out);
            }
        }
        Value::Array(items) => {
            if let [Value::String(name), rest @ ..] = items.as_slice() {
                if is_override_name(name) {
                    match rest.first() {
                        Some(v) => push_value(v, out),
                        None => out.push(None),
                    }
                }
            }
            items.iter().for_each(|v| walk(v, out));
        }
        Value::String(text) => scan_text(text, out),
        _ => {}
    }
}

/// Finds override names inside free text at a token boundary, followed by
/// `:` or `=`, and reads the method after them.
fn scan_text(text: &str, out: &mut Vec<Named>) {
    let decoded = super::urls::host::percent_decode(&text.replace('+', " "));
    // `_` and `-` are one character here (`X_HTTP_Method_Override` is the
    // CGI spelling); `_method` keeps its leading `_` as a boundary.
    let lower = decoded.to_ascii_lowercase().replace('_', "-");
    for name in HEADERS.iter().copied().chain(["-method"]) {
        let mut from = 0;
        while let Some(found) = lower.get(from..).and_then(|rest| rest.find(name)) {
            let start = from + found;
            let end = start + name.len();
            from = end;
            let before = lower.get(..start).and_then(|b| b.chars().next_back());
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                continue;
            }
            let after = lower.get(end..).unwrap_or("");
            // `x-http-method` is a prefix of `x-http-method-override`.
            if after.starts_with('-') || after.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                continue;
            }
            let after = after.trim_start_matches(['"', '\'', ' ', '\t']);
            let Some(value) = after.strip_prefix([':', '=']) else {
                continue;
            };
            let value = value.trim_start_matches(['"', '\'', ' ', '\t']);
            let method: String = value
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            out.push((!method.is_empty()).then_some(method));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn methods(value: Value) -> Vec<Named> {
        overrides(&value)
    }

    #[test]
    fn every_place() {
        let delete = vec![Some(String::from("DELETE"))];
        assert_eq!(
            methods(json!({"headers": {"X-HTTP-Method-Override": "DELETE"}})),
            delete
        );
        assert_eq!(
            methods(json!({"headers": {"x-http-method": "DELETE"}})),
            delete
        );
        assert_eq!(
            methods(json!({"headers": [["X-Method-Override", "DELETE"]]})),
            delete
        );
        assert_eq!(
            methods(json!({"headers": [{"name": "X-HTTP-Method-Override", "value": "DELETE"}]})),
            delete
        );
        assert_eq!(methods(json!({"body": {"_method": "DELETE"}})), delete);
        assert_eq!(
            methods(json!({"url": "https://x.example/a?_method=DELETE"})),
            vec![Some(String::from("delete"))]
        );
        assert_eq!(
            methods(json!({"url": "https://x.example/a?%5Fmethod=DELETE"})),
            vec![Some(String::from("delete"))]
        );
        assert_eq!(
            methods(json!({"headers": "X-HTTP-Method-Override: DELETE"})),
            vec![Some(String::from("delete"))]
        );
        assert_eq!(
            methods(json!({"body": "{\"_method\": \"PUT\"}"})),
            vec![Some(String::from("put"))]
        );
        assert!(methods(json!({"url": "https://x.example/a?x_method=DELETE&q=method"})).is_empty());
    }
}
