//! Reading an API's response for the model: seed 002's `{"dat": …, "error": ""}`
//! envelope (a non-empty `error` is a failure, `dat` the result) and plain JSON
//! or text alike; a status outside 2xx is a failure that says what came back.

use crate::text::preview;
use serde_json::Value;

/// The result text for the model, or the error for it. `body` is the response
/// body as text (the host bounds its size).
pub fn read_response(status: u16, body: &str) -> Result<String, String> {
    let json: Option<Value> = serde_json::from_str(body.trim()).ok();
    let envelope = json.as_ref().and_then(Value::as_object).filter(|o| {
        o.contains_key("dat") && o.len() <= 3 || o.contains_key("error") && o.len() <= 2
    });
    let error = envelope
        .and_then(|o| o.get("error"))
        .and_then(Value::as_str)
        .filter(|e| !e.is_empty());
    if !(200..300).contains(&status) {
        let detail = match error {
            Some(e) => e.to_owned(),
            None if body.trim().is_empty() => String::from("no body"),
            None => preview(body, 300),
        };
        return Err(format!("HTTP {status}: {detail}"));
    }
    if let Some(e) = error {
        return Err(e.to_owned());
    }
    Ok(match envelope.and_then(|o| o.get("dat")) {
        Some(dat) => dat.to_string(),
        None => match &json {
            Some(value) => value.to_string(),
            None => body.to_owned(),
        },
    })
}

/// [`read_response`] for registry tool `tool` of `config`: with the tool's
/// `response_template`, the result (the envelope's `dat`, or the JSON) is
/// rendered through it; errors pass unchanged, so the model still learns
/// what went wrong.
pub fn read_tool_response(
    config: &crate::config::Config,
    tool: &str,
    status: u16,
    body: &str,
) -> Result<String, String> {
    let result = read_response(status, body)?;
    let template = config
        .tools
        .get(tool)
        .and_then(|t| t.response_template.as_deref())
        .and_then(|t| super::template::Template::parse(t).ok());
    Ok(match template {
        Some(template) => {
            let value = serde_json::from_str(&result).unwrap_or(Value::String(result));
            template.render(&value)
        }
        None => result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_plain_json_text_and_errors() {
        assert_eq!(
            read_response(200, r#"{"dat":{"id":123},"error":""}"#),
            Ok(String::from(r#"{"id":123}"#))
        );
        assert_eq!(
            read_response(200, r#"{"dat":null,"error":"no such group"}"#),
            Err(String::from("no such group"))
        );
        assert_eq!(read_response(200, r#"[1, 2]"#), Ok(String::from("[1,2]")));
        assert_eq!(
            read_response(200, "plain text"),
            Ok(String::from("plain text"))
        );
        assert_eq!(
            read_response(201, r#"{"id":1,"name":"x","dat":2,"more":3}"#),
            Ok(String::from(r#"{"id":1,"name":"x","dat":2,"more":3}"#))
        );
        assert_eq!(
            read_response(403, r#"{"dat":null,"error":"forbidden"}"#),
            Err(String::from("HTTP 403: forbidden"))
        );
        assert_eq!(
            read_response(500, ""),
            Err(String::from("HTTP 500: no body"))
        );
        assert_eq!(
            read_response(404, "not\nfound"),
            Err(String::from("HTTP 404: not found"))
        );
    }
}
