//! The server's side over MCP's Streamable HTTP transport (`mcp-proxy
//! --remote URL`): each message the gateway forwards is POSTed to the
//! server's endpoint, and what the server answers — a JSON body, or an
//! event stream carrying the answers and the server's own requests and
//! notifications — comes back as if read from a server's standard output.
//! After the client's `notifications/initialized`, a GET opens the stream
//! on which the server sends what belongs to no request (a server that has
//! none answers 405, which is allowed).
//!
//! Messages are POSTed one at a time, in order, each as soon as the one
//! before it was accepted (its response's headers came): a long-running
//! call's event stream is read on a thread of its own and holds nothing up.
//! The session id the server gives in its answer to `initialize`
//! (`Mcp-Session-Id`) and the protocol version it chose are sent with every
//! later request, and the session is ended with a DELETE when the client's
//! side closes. Redirects are not followed, so the bearer token goes to the
//! URL given and nowhere else.
//!
//! Specification: modelcontextprotocol.io, "Transports", revision
//! 2025-06-18, section "Streamable HTTP".

use super::{wire, Incoming, MAX_MESSAGE, QUEUE};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// A remote server: its endpoint's URL and the bearer token it wants.
#[derive(Debug, Clone)]
pub struct Remote {
    /// The endpoint (`https://host/mcp`).
    pub url: String,
    /// Sent as `Authorization: Bearer …` when given.
    pub token: Option<String>,
}

/// The default server name for a URL: its host.
pub fn host_name(url: &str) -> String {
    url.parse::<ureq::http::Uri>()
        .ok()
        .and_then(|uri| uri.host().map(str::to_owned))
        .unwrap_or_else(|| String::from("remote"))
}

/// How long connecting to the server may take.
const CONNECT: Duration = Duration::from_secs(10);

/// What every request and reading thread shares.
struct Link {
    remote: Remote,
    agent: ureq::Agent,
    /// The server's `Mcp-Session-Id`, once it gave one.
    session: Mutex<Option<String>>,
    /// The protocol version the server chose in its `initialize` answer.
    version: Mutex<Option<String>>,
    /// The `initialize` request's id, to read the version from its answer.
    initialize: Mutex<Option<String>>,
    /// What the gateway reads as the server's output.
    out: mpsc::Sender<Result<Value, std::io::Error>>,
}

fn hold<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Connects to `remote`: the messages put on `queue` are sent to it, and
/// its answers and requests come out of the stream returned. The handle
/// ends when the queue is closed and the session is ended.
pub fn connect(
    remote: Remote,
    queue: mpsc::Receiver<Value>,
) -> (Incoming, tokio::task::JoinHandle<()>) {
    let (out, incoming) = mpsc::channel::<Result<Value, std::io::Error>>(QUEUE);
    let agent = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .new_agent();
    let link = Arc::new(Link {
        remote,
        agent,
        session: Mutex::new(None),
        version: Mutex::new(None),
        initialize: Mutex::new(None),
        out,
    });
    let writer = tokio::task::spawn_blocking(move || post_all(&link, queue));
    let stream = futures::stream::unfold(incoming, |mut incoming| async move {
        incoming.recv().await.map(|item| (item.map(Ok), incoming))
    });
    (Box::pin(stream), writer)
}

/// Sends what comes down `queue`, in order; ends the session when it closes.
fn post_all(link: &Arc<Link>, mut queue: mpsc::Receiver<Value>) {
    let mut listening = false;
    while let Some(message) = queue.blocking_recv() {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if method.as_deref() == Some("initialize") {
            *hold(&link.initialize) = message.get("id").map(wire::key);
        }
        if let Err(why) = post(link, &message) {
            // A request is answered with the error; anything else has no
            // one to tell but the log.
            match message.get("id").filter(|_| method.is_some()) {
                Some(id) => give(link, Ok(wire::error(id, wire::code::INTERNAL, &why))),
                None => eprintln!("toolgate: mcp-proxy: {why}"),
            }
            if why.contains("HTTP 404") && hold(&link.session).is_some() {
                // The server ended the session: nothing more can be sent.
                give(
                    link,
                    Err(std::io::Error::other(
                        "the remote server ended the session (HTTP 404)",
                    )),
                );
                return;
            }
        }
        if method.as_deref() == Some("notifications/initialized") && !listening {
            listening = true;
            let link = Arc::clone(link);
            std::thread::spawn(move || listen(&link));
        }
    }
    let session = hold(&link.session).clone();
    if let Some(session) = session {
        let mut request = ureq::http::Request::builder()
            .method("DELETE")
            .uri(&link.remote.url)
            .header("Mcp-Session-Id", session);
        if let Some(token) = &link.remote.token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        if let Ok(request) = request.body(()) {
            let _ = link.agent.run(request);
        }
    }
}

/// Hands a message (or the end) to the gateway.
fn give(link: &Link, item: Result<Value, std::io::Error>) {
    if let Ok(Some(id)) = item.as_ref().map(|m| {
        m.get("result")
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
            .and(m.get("id"))
    }) {
        let mut initialize = hold(&link.initialize);
        if initialize.as_deref() == Some(wire::key(id).as_str()) {
            *initialize = None;
            if let Ok(message) = &item {
                *hold(&link.version) = message
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
        }
    }
    let _ = link.out.blocking_send(item);
}

/// The headers every request carries.
fn headers(link: &Link, accept: &str, method: &str) -> ureq::http::request::Builder {
    let mut request = ureq::http::Request::builder()
        .method(method)
        .uri(&link.remote.url)
        .header("Accept", accept);
    if let Some(token) = &link.remote.token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    if let Some(session) = hold(&link.session).as_deref() {
        request = request.header("Mcp-Session-Id", session);
    }
    if let Some(version) = hold(&link.version).as_deref() {
        request = request.header("MCP-Protocol-Version", version);
    }
    request
}

/// POSTs one message; the answer's body is read on a thread of its own
/// when it is an event stream.
fn post(link: &Arc<Link>, message: &Value) -> Result<(), String> {
    let request = headers(link, "application/json, text/event-stream", "POST")
        .header("Content-Type", "application/json")
        .body(message.to_string())
        .map_err(|e| format!("the request to the remote MCP server could not be made: {e}"))?;
    let response = link
        .agent
        .run(request)
        .map_err(|e| format!("the remote MCP server could not be reached: {e}"))?;
    let status = response.status().as_u16();
    if let Some(session) = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        let mut held = hold(&link.session);
        if held.is_none() {
            *held = Some(session.to_owned());
        }
    }
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if !(200..300).contains(&status) {
        let mut text = String::new();
        let _ = response
            .into_body()
            .into_reader()
            .take(1024)
            .read_to_string(&mut text);
        let hint = if status == 401 || status == 403 {
            " (give the server's token with --remote-token-file)"
        } else {
            ""
        };
        return Err(format!(
            "the remote MCP server answered HTTP {status}{hint}: {}",
            text.trim()
        ));
    }
    let reader = response.into_body().into_reader();
    if kind.starts_with("text/event-stream") {
        let link = Arc::clone(link);
        std::thread::spawn(move || events(&link, reader));
    } else if kind.starts_with("application/json") {
        let mut body = Vec::new();
        reader
            .take(MAX_MESSAGE as u64)
            .read_to_end(&mut body)
            .map_err(|e| format!("the remote MCP server's answer could not be read: {e}"))?;
        deliver(link, &body);
    }
    Ok(())
}

/// One JSON body (a message or a batch of them) to the gateway.
fn deliver(link: &Link, body: &[u8]) {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(batch)) => batch.into_iter().for_each(|m| give(link, Ok(m))),
        Ok(message) => give(link, Ok(message)),
        Err(e) => give(
            link,
            Err(std::io::Error::other(format!(
                "the remote MCP server sent a message that is not JSON: {e}"
            ))),
        ),
    }
}

/// Reads an event stream (server-sent events): each `message` event's data
/// is a JSON-RPC message. An event over [`MAX_MESSAGE`] bytes is skipped.
fn events(link: &Link, reader: impl Read) {
    let mut lines = BufReader::new(reader);
    let mut data = Vec::new();
    let mut kind = String::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines
            .by_ref()
            .take(MAX_MESSAGE as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.is_empty() {
            if !data.is_empty() && (kind.is_empty() || kind == "message") {
                deliver(link, &data);
            }
            data.clear();
            kind.clear();
        } else if let Some(value) = text.strip_prefix(b"data:") {
            if data.len() + value.len() > MAX_MESSAGE {
                data.clear();
                continue;
            }
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
        } else if let Some(value) = text.strip_prefix(b"event:") {
            kind = String::from_utf8_lossy(value).trim().to_owned();
        }
    }
}

/// The stream of what the server sends outside any request (a GET); a
/// server without one answers 405.
fn listen(link: &Link) {
    let Ok(request) = headers(link, "text/event-stream", "GET").body(()) else {
        return;
    };
    let Ok(response) = link.agent.run(request) else {
        return;
    };
    if response.status().is_success() {
        events(link, response.into_body().into_reader());
    }
}
