//! The client's side over MCP's Streamable HTTP transport (`mcp-proxy
//! --listen ADDR`): one endpoint, `/mcp`, where a client POSTs its messages
//! and reads the answers as JSON-RPC messages in an event stream, and may
//! GET a stream for what belongs to no request. Each session (started by an
//! `initialize` without a session id, named by the `Mcp-Session-Id` the
//! gateway gives back) is a gateway of its own: its own connection to the
//! server (its own process for a server run by command), its own tool list
//! and gate, one audit log for all.
//!
//! What reaches the endpoint is checked before anything is read:
//!
//! - **Loopback by default.** The address to listen on is given; one that
//!   is not a loopback address is refused unless a token is required
//!   (`--token-file`).
//! - **The token.** With `--token-file`, every request must carry
//!   `Authorization: Bearer TOKEN` (compared in constant time), else 401.
//! - **`Origin`.** A request that carries an `Origin` header (a browser's)
//!   is refused (403) unless the origin is listed (`--allow-origin`) or,
//!   when none is listed, is a loopback origin. On a loopback address the
//!   `Host` header must name a loopback host too, so a page whose name was
//!   rebound to 127.0.0.1 (DNS rebinding) reaches nothing.
//!
//! Routing: a POST holding requests is answered with an event stream that
//! carries their answers, and whatever the gateway or the server sends
//! meanwhile (an approval dialog, progress), and ends after the last
//! answer; a POST of notifications or answers only is answered 202. What
//! belongs to no open request goes to the GET stream when there is one,
//! else to the newest open POST stream, else waits (at most [`QUEUE`]
//! messages) for the next stream. A session idle for [`IDLE`] with no stream
//! open is ended, as is one the client DELETEs. Resuming a broken stream
//! (`Last-Event-ID`) is not offered: the gateway gives its events no ids.
//!
//! Specification: modelcontextprotocol.io, "Transports", revision
//! 2025-06-18, section "Streamable HTTP" (and "Security Warning").

use super::{
    session as run_session, wire, ClientEnd, Incoming, Maker, McpError, MAX_REQUEST, QUEUE,
};
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming as Body};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// How long a session with no open stream may stay idle before it is ended.
pub const IDLE: Duration = Duration::from_secs(30 * 60);

/// Where and for whom the gateway listens.
#[derive(Debug, Clone)]
pub struct Listen {
    /// The address (`127.0.0.1:8931`; port 0 picks one, printed on start).
    pub addr: SocketAddr,
    /// The bearer token every request must carry; required off loopback.
    pub token: Option<String>,
    /// The browser origins allowed (`https://app.example`); when empty,
    /// only loopback origins.
    pub origins: Vec<String>,
}

type Reply = Response<BoxBody<Bytes, Infallible>>;

/// A refusal, answered as it is (boxed: a response is large).
type Refused = Box<Reply>;

/// One stream open to the client.
struct Stream {
    out: mpsc::Sender<Bytes>,
    /// The requests whose answers it still waits for.
    pending: usize,
}

/// Where each message for the client goes.
#[derive(Default)]
struct Routes {
    /// A request's id → the POST stream that carried it.
    by_id: HashMap<String, u64>,
    /// The open POST streams, oldest first.
    streams: BTreeMap<u64, Stream>,
    /// The GET stream.
    standalone: Option<mpsc::Sender<Bytes>>,
    next: u64,
    /// What had no stream to go to yet.
    backlog: VecDeque<Bytes>,
}

/// One client's session.
struct Session {
    /// The session's core reads the client's messages from here; taken
    /// (closed) when the session ends.
    inbound: Mutex<Option<mpsc::Sender<Value>>>,
    routes: Mutex<Routes>,
    last: Mutex<Instant>,
}

fn hold<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Session {
    fn touch(&self) {
        *hold(&self.last) = Instant::now();
    }

    fn close(&self) {
        hold(&self.inbound).take();
    }
}

struct Hub {
    maker: Arc<Maker>,
    listen: Listen,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

fn is_loopback_host(host: &str) -> bool {
    let host = host.trim();
    // `[::1]:8931`, `localhost:8931`, `127.0.0.1`
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether an `Origin` header's value names a loopback origin.
fn is_loopback_origin(origin: &str) -> bool {
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|rest| !rest.contains('/') && is_loopback_host(rest))
}

/// Equal in time independent of where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn plain(status: StatusCode, text: &str) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    reply
}

fn json_error(status: StatusCode, code: i64, text: &str) -> Reply {
    let body = wire::error(&Value::Null, code, text).to_string();
    let mut reply = Response::new(Full::new(Bytes::from(body)).boxed());
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    reply
}

fn event(message: &Value) -> Bytes {
    Bytes::from(format!("event: message\ndata: {message}\n\n"))
}

fn sse(rx: mpsc::Receiver<Bytes>, session: Option<&str>) -> Reply {
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|bytes| (Ok::<_, Infallible>(Frame::data(bytes)), rx))
    });
    let mut reply = Response::new(StreamBody::new(stream).boxed());
    let headers = reply.headers_mut();
    headers.insert(
        "content-type",
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        "cache-control",
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    if let Some(id) = session.and_then(|s| hyper::header::HeaderValue::from_str(s).ok()) {
        headers.insert("mcp-session-id", id);
    }
    reply
}

fn header<'a>(request: &'a Request<Body>, name: &str) -> Option<&'a str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}

/// A session id: 128 bits from the kernel's CSPRNG, in hex.
fn new_id() -> Result<String, std::io::Error> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Listens until the process is stopped.
pub(super) async fn listen(maker: Arc<Maker>, listen: Listen) -> Result<u8, McpError> {
    if !listen.addr.ip().is_loopback() && listen.token.is_none() {
        return Err(McpError::Io(std::io::Error::other(format!(
            "--listen {} is not a loopback address: give --token-file, so that only \
             clients holding the token reach the gateway",
            listen.addr
        ))));
    }
    let listener = tokio::net::TcpListener::bind(listen.addr).await?;
    let local = listener.local_addr()?;
    eprintln!("toolgate: mcp-proxy: listening on http://{local}{PATH}");
    let hub = Arc::new(Hub {
        maker,
        listen,
        sessions: Mutex::new(HashMap::new()),
    });
    let reaper = Arc::clone(&hub);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(60)).await;
            let idle: Vec<Arc<Session>> = {
                let mut sessions = hold(&reaper.sessions);
                let ended: Vec<String> = sessions
                    .iter()
                    .filter(|(_, s)| {
                        let routes = hold(&s.routes);
                        routes.streams.is_empty()
                            && routes
                                .standalone
                                .as_ref()
                                .is_none_or(mpsc::Sender::is_closed)
                            && hold(&s.last).elapsed() > IDLE
                    })
                    .map(|(id, _)| id.clone())
                    .collect();
                ended.iter().filter_map(|id| sessions.remove(id)).collect()
            };
            idle.iter().for_each(|s| s.close());
        }
    });
    loop {
        let (stream, _) = listener.accept().await?;
        let hub = Arc::clone(&hub);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let hub = Arc::clone(&hub);
                async move { Ok::<_, Infallible>(hub.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

impl Hub {
    /// The checks every request passes before anything else is read.
    fn admit(&self, request: &Request<Body>) -> Result<(), Refused> {
        if request.uri().path() != PATH {
            return Err(Box::new(plain(
                StatusCode::NOT_FOUND,
                "the MCP endpoint is /mcp",
            )));
        }
        if self.listen.addr.ip().is_loopback()
            && !header(request, "host").is_some_and(is_loopback_host)
        {
            return Err(Box::new(plain(
                StatusCode::FORBIDDEN,
                "the Host header must name a loopback host",
            )));
        }
        if let Some(origin) = request.headers().get("origin") {
            let origin = origin.to_str().unwrap_or_default();
            let allowed = if self.listen.origins.is_empty() {
                is_loopback_origin(origin)
            } else {
                self.listen.origins.iter().any(|o| o == origin)
            };
            if !allowed {
                return Err(Box::new(plain(
                    StatusCode::FORBIDDEN,
                    "this Origin is not allowed (see --allow-origin)",
                )));
            }
        }
        if let Some(token) = &self.listen.token {
            let given = header(request, "authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or_default();
            if !same(given.as_bytes(), token.as_bytes()) {
                let mut reply = plain(StatusCode::UNAUTHORIZED, "a bearer token is required");
                reply.headers_mut().insert(
                    "www-authenticate",
                    hyper::header::HeaderValue::from_static("Bearer"),
                );
                return Err(Box::new(reply));
            }
        }
        Ok(())
    }

    fn session(&self, request: &Request<Body>) -> Result<Option<(String, Arc<Session>)>, Refused> {
        let Some(id) = header(request, "mcp-session-id") else {
            return Ok(None);
        };
        match hold(&self.sessions).get(id) {
            Some(session) => {
                session.touch();
                Ok(Some((id.to_owned(), Arc::clone(session))))
            }
            None => Err(Box::new(plain(
                StatusCode::NOT_FOUND,
                "no such session (it ended): initialize a new one",
            ))),
        }
    }

    async fn handle(self: Arc<Self>, request: Request<Body>) -> Reply {
        if let Err(reply) = self.admit(&request) {
            return *reply;
        }
        let accept = header(&request, "accept")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let accepts_events = accept.contains("text/event-stream") || accept.contains("*/*");
        let found = match self.session(&request) {
            Ok(found) => found,
            Err(reply) => return *reply,
        };
        match *request.method() {
            hyper::Method::POST => {
                if !accepts_events
                    || !(accept.contains("application/json") || accept.contains("*/*"))
                {
                    return plain(
                        StatusCode::NOT_ACCEPTABLE,
                        "Accept must list application/json and text/event-stream",
                    );
                }
                self.post(request, found).await
            }
            hyper::Method::GET => {
                if !accepts_events {
                    return plain(
                        StatusCode::NOT_ACCEPTABLE,
                        "Accept must list text/event-stream",
                    );
                }
                let Some((_, session)) = found else {
                    return plain(StatusCode::BAD_REQUEST, "Mcp-Session-Id is required");
                };
                let (out, rx) = mpsc::channel(QUEUE);
                {
                    let mut routes = hold(&session.routes);
                    if routes.standalone.as_ref().is_some_and(|s| !s.is_closed()) {
                        return plain(
                            StatusCode::CONFLICT,
                            "this session's stream is already open",
                        );
                    }
                    while let Some(bytes) = routes.backlog.pop_front() {
                        if out.try_send(bytes).is_err() {
                            break;
                        }
                    }
                    routes.standalone = Some(out);
                }
                sse(rx, None)
            }
            hyper::Method::DELETE => {
                let Some((id, session)) = found else {
                    return plain(StatusCode::BAD_REQUEST, "Mcp-Session-Id is required");
                };
                hold(&self.sessions).remove(&id);
                session.close();
                plain(StatusCode::OK, "")
            }
            _ => {
                let mut reply = plain(StatusCode::METHOD_NOT_ALLOWED, "");
                reply.headers_mut().insert(
                    "allow",
                    hyper::header::HeaderValue::from_static("GET, POST, DELETE"),
                );
                reply
            }
        }
    }

    async fn post(
        self: Arc<Self>,
        request: Request<Body>,
        found: Option<(String, Arc<Session>)>,
    ) -> Reply {
        let body = match Limited::new(request.into_body(), MAX_REQUEST)
            .collect()
            .await
        {
            Ok(body) => body.to_bytes(),
            Err(e) => {
                return json_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    wire::code::PARSE,
                    &format!("toolgate mcp-proxy: the body could not be read: {e}"),
                )
            }
        };
        let messages = match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Array(batch)) => batch,
            Ok(message) => vec![message],
            Err(e) => {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    wire::code::PARSE,
                    &format!("toolgate mcp-proxy: the body is not JSON: {e}"),
                )
            }
        };
        let is_request =
            |m: &Value| m.get("method").is_some_and(Value::is_string) && m.get("id").is_some();
        let initialize = messages.iter().any(|m| {
            is_request(m) && m.get("method").and_then(Value::as_str) == Some("initialize")
        });
        let (id, session, new) = match (found, initialize) {
            (Some((id, session)), false) => (id, session, false),
            (Some(_), true) => {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    wire::code::INVALID_REQUEST,
                    "toolgate mcp-proxy: initialize starts a session; this one is started",
                )
            }
            (None, false) => {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    wire::code::INVALID_REQUEST,
                    "toolgate mcp-proxy: Mcp-Session-Id is required (initialize first)",
                )
            }
            (None, true) => match self.start() {
                Ok((id, session)) => (id, session, true),
                Err(e) => {
                    return json_error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        wire::code::INTERNAL,
                        &format!("toolgate mcp-proxy: the session could not start: {e}"),
                    )
                }
            },
        };
        let requests: Vec<String> = messages
            .iter()
            .filter(|m| is_request(m))
            .filter_map(|m| m.get("id").map(wire::key))
            .collect();
        let reply = if requests.is_empty() {
            let mut reply = plain(StatusCode::ACCEPTED, "");
            *reply.body_mut() = Full::new(Bytes::new()).boxed();
            reply
        } else {
            let (out, rx) = mpsc::channel(QUEUE);
            {
                let mut routes = hold(&session.routes);
                let n = routes.next;
                routes.next += 1;
                for id in &requests {
                    routes.by_id.insert(id.clone(), n);
                }
                while let Some(bytes) = routes.backlog.pop_front() {
                    if out.try_send(bytes).is_err() {
                        break;
                    }
                }
                routes.streams.insert(
                    n,
                    Stream {
                        out,
                        pending: requests.len(),
                    },
                );
            }
            sse(rx, new.then_some(id.as_str()))
        };
        let inbound = hold(&session.inbound).clone();
        let Some(inbound) = inbound else {
            return plain(StatusCode::NOT_FOUND, "the session ended");
        };
        for message in messages {
            if inbound.send(message).await.is_err() {
                return plain(StatusCode::NOT_FOUND, "the session ended");
            }
        }
        reply
    }

    /// Starts a session: its own gateway core, on a task of its own.
    fn start(self: &Arc<Self>) -> Result<(String, Arc<Session>), std::io::Error> {
        let id = new_id()?;
        let (inbound, rx) = mpsc::channel::<Value>(QUEUE);
        let session = Arc::new(Session {
            inbound: Mutex::new(Some(inbound)),
            routes: Mutex::new(Routes::default()),
            last: Mutex::new(Instant::now()),
        });
        hold(&self.sessions).insert(id.clone(), Arc::clone(&session));
        let incoming: Incoming = Box::pin(futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|m| (Ok(Ok(m)), rx))
        }));
        let writing = Arc::clone(&session);
        let writer = Box::new(move |queue: mpsc::Receiver<Value>| {
            tokio::spawn(write_session(queue, writing))
        });
        let hub = Arc::clone(self);
        let ended = id.clone();
        tokio::spawn(async move {
            let client = ClientEnd::Http { incoming, writer };
            if let Err(e) = run_session(Arc::clone(&hub.maker), client).await {
                eprintln!("toolgate: mcp-proxy: session {ended}: {e}");
            }
            if let Some(session) = hold(&hub.sessions).remove(&ended) {
                session.close();
            }
        });
        Ok((id, session))
    }
}

/// Writes what the session's core sends the client to the stream it
/// belongs on: an answer to the stream of its request (which ends after
/// its last answer), anything else to the GET stream, else the newest open
/// POST stream, else the backlog.
async fn write_session(mut queue: mpsc::Receiver<Value>, session: Arc<Session>) {
    while let Some(message) = queue.recv().await {
        let bytes = event(&message);
        let answer = message.get("method").is_none();
        let target = {
            let mut routes = hold(&session.routes);
            let stream = answer
                .then(|| message.get("id").map(wire::key))
                .flatten()
                .and_then(|id| routes.by_id.remove(&id));
            match stream {
                Some(n) => {
                    let last = routes.streams.get_mut(&n).is_some_and(|s| {
                        s.pending = s.pending.saturating_sub(1);
                        s.pending == 0
                    });
                    if last {
                        routes.streams.remove(&n).map(|s| s.out)
                    } else {
                        routes.streams.get(&n).map(|s| s.out.clone())
                    }
                }
                None => {
                    routes.streams.retain(|_, s| !s.out.is_closed());
                    let open = routes
                        .standalone
                        .clone()
                        .filter(|s| !s.is_closed())
                        .or_else(|| routes.streams.values().next_back().map(|s| s.out.clone()));
                    if open.is_none() {
                        if routes.backlog.len() >= QUEUE {
                            routes.backlog.pop_front();
                        }
                        routes.backlog.push_back(bytes.clone());
                    }
                    open
                }
            }
        };
        if let Some(out) = target {
            // A client that went away is not waited for.
            let _ = out.send(bytes).await;
        }
    }
}
