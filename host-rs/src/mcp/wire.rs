//! The two stdio pipes, framed by the MCP SDK's line codec
//! ([`JsonRpcMessageCodec`]) over raw JSON values, and the few messages the
//! gateway writes itself, built from the SDK's model types.
//!
//! The codec is used with `serde_json::Value` items rather than the SDK's
//! typed message enums: a typed decode would drop what the SDK's version of
//! the types does not know (a newer field, a method it does not model),
//! and the gateway must pass every message through unchanged. The SDK's
//! stream also ends at the first line that is not JSON; [`Lenient`] keeps
//! reading, so a client's garbage line gets a parse error and the session
//! goes on, and a server's is seen for what it is.

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde_json::{json, Value};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, Encoder};

/// JSON-RPC's error codes the gateway answers with.
pub mod code {
    /// The line is not JSON.
    pub const PARSE: i64 = -32700;
    /// The message is not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The request's parameters are wrong.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The gateway could not get an answer (the server died, wrote garbage).
    pub const INTERNAL: i64 = -32603;
}

/// A line that could not be read as JSON: what the codec said.
#[derive(Debug)]
pub struct Garbage(pub String);

/// The SDK's codec, read line by line: a line that is not JSON is an item of
/// its own ([`Garbage`]) instead of the end of the stream.
#[derive(Debug, Default)]
pub struct Lenient(JsonRpcMessageCodec<Value>);

impl Lenient {
    /// A reader that skips (as [`Garbage`]) any line longer than `max`
    /// bytes without keeping it: a message's size is bounded before it is
    /// parsed.
    pub fn bounded(max: usize) -> Lenient {
        Lenient(JsonRpcMessageCodec::new_with_max_length(max))
    }
}

impl Decoder for Lenient {
    type Item = Result<Value, Garbage>;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, std::io::Error> {
        lenient(self.0.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, std::io::Error> {
        lenient(self.0.decode_eof(buf))
    }
}

fn lenient(
    decoded: Result<Option<Value>, JsonRpcMessageCodecError>,
) -> Result<Option<Result<Value, Garbage>>, std::io::Error> {
    match decoded {
        Ok(item) => Ok(item.map(Ok)),
        Err(JsonRpcMessageCodecError::Io(e)) => Err(e),
        Err(other) => Ok(Some(Err(Garbage(other.to_string())))),
    }
}

impl Encoder<Value> for Lenient {
    type Error = std::io::Error;

    fn encode(&mut self, item: Value, buf: &mut BytesMut) -> Result<(), std::io::Error> {
        self.0.encode(item, buf).map_err(std::io::Error::from)
    }
}

/// A request's or response's id as a map key (`1` and `"1"` differ).
pub fn key(id: &Value) -> String {
    id.to_string()
}

/// A JSON-RPC error answer to `id`.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A JSON-RPC result answer to `id`.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A `tools/call` answer that is a tool error with `text`, for the model:
/// the call was not run (denied, rejected, unanswered).
pub fn tool_error(id: &Value, text: &str) -> Value {
    let mut answer = CallToolResult::error(vec![ContentBlock::text(text)]);
    // The result type is for the newest protocol revision; an older client
    // reads an answer without it.
    answer.result_type = None;
    result(
        id,
        serde_json::to_value(answer).unwrap_or_else(
            |_| json!({"content": [{"type": "text", "text": text}], "isError": true}),
        ),
    )
}

/// The outcome of a `tools/call` answer, for the audit: the text of an
/// answer, or the error's text for a tool error or a JSON-RPC error.
pub fn outcome(answer: &Value) -> Result<String, String> {
    if let Some(error) = answer.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("error");
        return Err(message.to_owned());
    }
    let result = answer.get("result").cloned().unwrap_or(Value::Null);
    let text = match result.get("content").and_then(Value::as_array) {
        Some(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        None => result.to_string(),
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        Err(text)
    } else {
        Ok(text)
    }
}

/// An outcome as the audit records it by default: the SHA-256 and the
/// size of the result's text, never the text (a tool's result may carry
/// what the audit log's readers must not see: file contents, records,
/// secrets). A JSON-RPC error's message (the protocol's, not the tool's) is
/// kept. `full` keeps the text (`mcp-proxy --audit-results full`).
pub fn recorded(
    outcome: Result<String, String>,
    answer: &Value,
    full: bool,
) -> Result<String, String> {
    use sha2::{Digest, Sha256};
    if full || answer.get("error").is_some() {
        return outcome;
    }
    let digest = |text: String| {
        let hash: String = Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256:{hash} ({} bytes)", text.len())
    };
    outcome.map(digest).map_err(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_recorded_by_hash_and_size() {
        let ok = json!({"result": {"content": [{"type": "text", "text": "secret"}]}});
        assert_eq!(
            recorded(outcome(&ok), &ok, false),
            Ok(String::from(
                "sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b (6 bytes)"
            ))
        );
        assert_eq!(
            recorded(outcome(&ok), &ok, true),
            Ok(String::from("secret"))
        );
        let failed =
            json!({"result": {"content": [{"type": "text", "text": "secret"}], "isError": true}});
        assert!(recorded(outcome(&failed), &failed, false).is_err_and(|e| e.starts_with("sha256:")));
        let protocol = json!({"error": {"code": -32603, "message": "gone"}});
        assert_eq!(
            recorded(outcome(&protocol), &protocol, false),
            Err(String::from("gone"))
        );
    }

    #[test]
    fn a_garbage_line_does_not_end_the_stream() {
        let mut codec = Lenient::default();
        let mut buf = BytesMut::from(&b"not json\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"[..]);
        assert!(matches!(codec.decode(&mut buf), Ok(Some(Err(_)))));
        assert!(matches!(codec.decode(&mut buf), Ok(Some(Ok(v))) if v["method"] == "x"));
        assert!(matches!(codec.decode(&mut buf), Ok(None)));
    }

    #[test]
    fn outcomes_of_answers() {
        let ok = json!({"result": {"content": [{"type": "text", "text": "hi"}]}});
        assert_eq!(outcome(&ok), Ok(String::from("hi")));
        let failed =
            json!({"result": {"content": [{"type": "text", "text": "no"}], "isError": true}});
        assert_eq!(outcome(&failed), Err(String::from("no")));
        let error = tool_error(&json!(3), "denied");
        assert_eq!(error["result"]["isError"], json!(true));
        assert_eq!(error["id"], json!(3));
    }
}
