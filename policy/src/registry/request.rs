//! Request building (seed 002 §3.1, made safe): from a registry entry and a
//! call's arguments, the method, the path with its parameters substituted and
//! percent-encoded, the query string and the JSON body. A path parameter that
//! would change the path (`/`, `\`, `..`, `?`, `#`, `%`, control characters,
//! an empty value, an object) is refused, never sent; missing required
//! parameters are all reported before anything is sent; `risk_level` is never
//! sent. The host adds the base URL and the caller's credentials.

use super::entries;
use crate::args::parse_object;
use crate::codes;
use crate::config::{Config, ToolKind};
use crate::decision::Finding;
use crate::text::preview;
use serde_json::{Map, Value};

pub use toolgate_shapes::registry::ApiRequest;

/// Characters a path segment or a query component keeps as they are (RFC 3986
/// unreserved); everything else is percent-encoded from its UTF-8 bytes.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A scalar as text (strings bare, numbers and booleans as JSON); `None` for
/// null, arrays and objects.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Why a path parameter's value may not be put into a path, if it may not.
fn path_problem(value: &Value) -> Option<&'static str> {
    let Some(text) = scalar(value) else {
        return Some("is not a string, number or boolean");
    };
    if text.is_empty() {
        Some("is empty")
    } else if text == "." || text.contains("..") {
        Some("would move up the path")
    } else if text.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if text.contains(['?', '#']) {
        Some("would start a query or fragment")
    } else if text.contains('%') {
        Some("contains `%` (an encoded character could change the path)")
    } else if text.chars().any(char::is_control) {
        Some("contains control characters")
    } else {
        None
    }
}

/// The `properties` names and `required` names of a JSON Schema object.
fn schema_names(schema: Option<&Value>) -> (Vec<String>, Vec<String>) {
    let names = |key: &str| -> Vec<String> {
        match schema.and_then(|s| s.get(key)) {
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    };
    (names("properties"), names("required"))
}

/// Fills in the `default` of every parameter the call leaves out (top-level
/// path, query and body fields; with `body_field`, the body's own top-level
/// fields), so the request a person approves and the one sent agree with what
/// the API documents.
pub fn fill_defaults(tool: &crate::config::ToolConfig, args: &mut Map<String, Value>) {
    let flat = [
        tool.path_params_schema.as_ref(),
        tool.query_params_schema.as_ref(),
        if tool.body_field.is_some() {
            None
        } else {
            tool.request_body_schema.as_ref()
        },
    ];
    let defaults = |schema: &Value| -> Vec<(String, Value)> {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.iter()
                    .filter_map(|(k, v)| v.get("default").map(|d| (k.clone(), d.clone())))
                    .collect()
            })
            .unwrap_or_default()
    };
    for schema in flat.into_iter().flatten() {
        for (name, value) in defaults(schema) {
            args.entry(name).or_insert(value);
        }
    }
    if let (Some(field), Some(schema)) = (
        tool.body_field.as_deref(),
        tool.request_body_schema.as_ref(),
    ) {
        if let Some(Value::Object(body)) = args.get_mut(field) {
            for (name, value) in defaults(schema) {
                body.entry(name).or_insert(value);
            }
        }
    }
}

/// Builds the request for calling registry tool `tool` with `args` (the model's
/// JSON arguments). Errors are findings, all of them at once.
pub fn build_request(config: &Config, tool: &str, args: &str) -> Result<ApiRequest, Vec<Finding>> {
    let Some(entry) = entries(config).find(|e| e.name == tool && e.kind == ToolKind::Api) else {
        return Err(vec![Finding::new(
            codes::REQUEST_NOT_API,
            format!("`{}` is not a registry API tool", preview(tool, 60)),
        )]);
    };
    if !entry.enabled() {
        return Err(vec![Finding::new(
            codes::REGISTRY_DISABLED,
            "the tool is disabled in the registry",
        )]);
    }
    let Some(pattern) = entry.tool.url.as_deref() else {
        return Err(vec![Finding::new(
            codes::REQUEST_NOT_API,
            "the registry entry has no `url`",
        )]);
    };
    let mut args = parse_object(args, config.max_args_bytes)
        .map_err(|e| vec![Finding::new(codes::ARGS_INVALID, e.to_string())])?;
    args.remove("risk_level");
    fill_defaults(entry.tool, &mut args);
    let method = entry.method();
    let mut problems = Vec::new();
    let mut missing = Vec::new();

    // The path, segment by segment.
    let mut path_names = Vec::new();
    let mut path = String::new();
    for (i, segment) in pattern.split('/').enumerate() {
        if i > 0 {
            path.push('/');
        }
        let name = segment
            .strip_prefix(':')
            .or_else(|| segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')));
        let Some(name) = name else {
            path.push_str(segment);
            continue;
        };
        path_names.push(name.to_owned());
        match args.get(name) {
            None | Some(Value::Null) => missing.push(name.to_owned()),
            Some(value) => match path_problem(value) {
                Some(why) => problems.push(Finding::new(
                    codes::REGISTRY_BAD_PATH_PARAM,
                    format!(
                        "the path parameter `{name}` = `{}` {why}; it is not sent",
                        preview(&scalar(value).unwrap_or_else(|| value.to_string()), 40)
                    ),
                )),
                None => path.push_str(&encode(&scalar(value).unwrap_or_default())),
            },
        }
    }

    let (query_names, query_required) = schema_names(entry.tool.query_params_schema.as_ref());
    // With `body_field` the body's names are the body's own, not arguments.
    let (body_names, body_required) = match entry.tool.body_field {
        Some(_) => (Vec::new(), Vec::new()),
        None => schema_names(entry.tool.request_body_schema.as_ref()),
    };
    let (_, path_required) = schema_names(entry.tool.path_params_schema.as_ref());
    for name in path_required
        .iter()
        .chain(&query_required)
        .chain(&body_required)
    {
        let absent = matches!(args.get(name), None | Some(Value::Null));
        if absent && !missing.contains(name) {
            missing.push(name.clone());
        }
    }
    if !missing.is_empty() {
        let list: Vec<String> = missing
            .iter()
            .map(|m| format!("`{}`", preview(m, 40)))
            .collect();
        problems.insert(
            0,
            Finding::new(
                codes::REQUEST_MISSING_PARAM,
                format!("missing required parameters: {}", list.join(", ")),
            ),
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    // Query versus body: the schemas decide; without them the method does.
    let sends_body = super::sends_body(entry.tool);
    let mut query = Vec::new();
    let mut body = Map::new();
    // With `body_field`, that argument is the whole body, sent as it is.
    let whole_body = entry
        .tool
        .body_field
        .as_deref()
        .and_then(|field| args.remove(field));
    for (name, value) in args {
        if path_names.contains(&name) || value.is_null() {
            continue;
        }
        let to_query = if query_names.contains(&name) {
            true
        } else if body_names.contains(&name) {
            false
        } else {
            !sends_body
        };
        if !to_query {
            body.insert(name, value);
            continue;
        }
        match value {
            Value::Array(items) => {
                for item in items {
                    let text = scalar(&item).unwrap_or_else(|| item.to_string());
                    query.push((name.clone(), text));
                }
            }
            other => {
                let text = scalar(&other).unwrap_or_else(|| other.to_string());
                query.push((name, text));
            }
        }
    }
    let mut url = path.clone();
    if !query.is_empty() {
        let encoded: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        url.push('?');
        url.push_str(&encoded.join("&"));
    }
    let body = match whole_body {
        Some(value) => Some(value.to_string()),
        None => sends_body.then(|| Value::Object(body).to_string()),
    };
    Ok(ApiRequest {
        method,
        path,
        query,
        url,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::from_json(
            r#"{"tools":{
                "mute":{"kind":"api","method":"POST","url":"/api/n9e/busi-group/:id/alert-mutes",
                        "request_body_schema":{"type":"object","properties":{"btime":{},"etime":{}},"required":["btime"]}},
                "rules":{"kind":"api","method":"GET","url":"/api/n9e/busi-group/{id}/alert-rules",
                         "query_params_schema":{"properties":{"query":{}}}},
                "off":{"kind":"api","method":"GET","url":"/x","enabled":false}
            }}"#,
        )
        .unwrap_or_default()
    }

    #[test]
    fn path_query_and_body() {
        let r = build_request(
            &config(),
            "rules",
            r#"{"id":7,"query":"cpu high","tags":["a","b"],"risk_level":"low"}"#,
        );
        let r = r.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(r.method, "GET");
        assert_eq!(
            r.url,
            "/api/n9e/busi-group/7/alert-rules?query=cpu%20high&tags=a&tags=b"
        );
        assert_eq!(r.body, None);
        let r = build_request(
            &config(),
            "mute",
            r#"{"id":"g 1","btime":1,"targets":["host-01"]}"#,
        );
        let r = r.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(r.path, "/api/n9e/busi-group/g%201/alert-mutes");
        assert_eq!(
            r.body.as_deref(),
            Some(r#"{"btime":1,"targets":["host-01"]}"#)
        );
    }

    #[test]
    fn refusals() {
        let codes = |tool: &str, args: &str| -> Vec<String> {
            build_request(&config(), tool, args)
                .err()
                .unwrap_or_default()
                .into_iter()
                .map(|f| f.code)
                .collect()
        };
        assert_eq!(codes("mute", "{}"), ["request.missing-param"]);
        for bad in [
            r#""1/../admin""#,
            r#"".." "#,
            r#""a?b""#,
            r#""%2e%2e""#,
            r#""x\u0000""#,
            "[1]",
            r#""""#,
        ] {
            assert_eq!(
                codes("rules", &format!(r#"{{"id":{bad}}}"#)),
                ["registry.bad-path-param"],
                "{bad}"
            );
        }
        assert_eq!(codes("off", "{}"), ["registry.disabled"]);
        assert_eq!(codes("execute_sql", "{}"), ["request.not-api"]);
        assert_eq!(codes("rules", "[]"), ["args.invalid"]);
    }
}
