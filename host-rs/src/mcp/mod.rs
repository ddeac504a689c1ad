//! The MCP gateway (`toolgate mcp-proxy`): an MCP server's stdio, with the
//! policy in the middle. The gateway starts the real server as a child
//! process and speaks MCP over stdio to the client on one side and to the
//! server on the other:
//!
//! - `tools/list` answers pass through, and each tool is declared to the
//!   policy as an MCP tool of the server ([`declare`]), pinned ([`pins`]),
//!   and with `--augment` given the optional `risk_level` parameter (the
//!   component's augment, in the MCP format).
//! - `tools/call`: decided by the gate ([`crate::Gate::check`]). Allowed:
//!   forwarded (with `risk_level` stripped) and its outcome recorded when the
//!   server answers. Denied: a tool result with `isError` and the reason,
//!   never forwarded. Confirmed: when the client declared the elicitation
//!   capability, an `elicitation/create` request asks the person (the
//!   summary and the arguments shown), and the call is forwarded only on
//!   accept ([`crate::Gate::settle`]); otherwise a tool error says that a
//!   person must approve and how.
//! - Everything else (resources, prompts, notifications, cancellation,
//!   progress, pings, the server's own requests and the client's answers to
//!   them) passes through unchanged, in the order it came.
//!
//! The messages are routed here, not by the MCP SDK's typed service: its
//! handlers answer the methods they model and cannot pass an unknown method
//! or field through unchanged. The SDK provides the wire instead: its line
//! codec frames both pipes ([`wire`]), and its model types read the
//! `tools/call` parameters, the client's elicitation answer, and write the
//! tool errors and the elicitation request.
//!
//! A server that exits or writes a line that is not JSON-RPC gets every
//! request still waiting for it answered with a JSON-RPC error, and the
//! gateway exits (code 1); when the client closes its side, the server's
//! input is closed, it is given a moment to exit and then killed, and the
//! gateway exits (code 0). Nothing waits without a bound: a person's answer
//! until the approval's deadline.

pub mod declare;
pub mod pins;
pub mod wire;

use crate::gate::audit::{AuditSink, JsonlSink, SinkError};
use crate::gate::{Call, Checked, Gate, GateError, Ready, Response, Status};
use crate::runtime::{Error, Policy};
use futures::{SinkExt, StreamExt};
use rmcp::model::{
    BooleanSchema, CallToolRequestParams, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema,
};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{FramedRead, FramedWrite};
use wire::{code, key, Lenient};

/// The prefix of the ids of the gateway's own elicitation requests.
const APPROVAL_ID: &str = "toolgate-approval-";

/// How long a server has to exit after its input is closed before it is killed.
const GRACE: Duration = Duration::from_secs(2);

/// What `toolgate mcp-proxy` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The configuration's text (JSON or TOML), `{}` when none was given.
    pub config: String,
    /// The server's name for the policy (`--name`); by default the
    /// program's file name. Never the name the server gives itself: a
    /// server could then claim a trusted server's name, slip out of rules
    /// that name it, or reset its pins by renaming itself.
    pub name: Option<String>,
    /// Add `risk_level` to the listed tools' input schemas.
    pub augment: bool,
    /// The audit log (JSON Lines).
    pub audit: PathBuf,
    /// The pins file.
    pub pins: PathBuf,
    /// The server's program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Why the gateway could not run.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The server could not be started.
    #[error("cannot start the MCP server `{command}`: {source}")]
    Spawn {
        /// The program.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The configuration was refused.
    #[error("configuration: {0}")]
    Config(#[from] Error),
    /// The gate could not be made.
    #[error(transparent)]
    Gate(#[from] GateError),
    /// The audit log could not be opened.
    #[error("audit log {path}: {source}")]
    Audit {
        /// The file.
        path: String,
        /// Why.
        source: SinkError,
    },
    /// The pins file could not be used.
    #[error(transparent)]
    Pins(#[from] pins::PinsError),
    /// The runtime or a pipe failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// One audit log shared by the gates the gateway makes as the tool list
/// changes: the sink keeps one writer per chain.
struct SharedSink(Arc<JsonlSink>);

impl AuditSink for SharedSink {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        self.0.append(line)
    }
    fn last(&self) -> Result<Option<String>, SinkError> {
        self.0.last()
    }
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        self.0.append_sealed(seal)
    }
    fn gap(&self) -> Option<String> {
        self.0.gap()
    }
}

/// A request the gateway forwarded and waits for the answer to.
enum Waiting {
    /// Any request: the answer passes through (a `tools/list` answer is
    /// read on its way).
    Plain(String),
    /// An allowed `tools/call`: its outcome is recorded when it comes.
    Allowed(Box<Ready>, Gate),
    /// An approved `tools/call`: the answer goes to the settling thread.
    Settling(std::sync::mpsc::Sender<Value>),
}

/// What the router and the approval tasks share.
struct State {
    /// Requests forwarded to the server, by id.
    waiting: HashMap<String, Waiting>,
    /// Elicitation requests sent to the client, by id.
    asked: HashMap<String, oneshot::Sender<Value>>,
    /// The gate for the current tool list.
    gate: Gate,
    /// The server's name for the policy.
    server: String,
    /// The tools the server listed, by name.
    tools: BTreeMap<String, Value>,
    /// The tools whose pinned definition changed.
    changed: Vec<String>,
    /// Whether the client declared the elicitation capability.
    elicitation: bool,
    /// The server is gone: nothing more is forwarded.
    closed: bool,
    /// The gate could not be rebuilt for the new tool list: every call is
    /// refused until it can.
    broken: Option<String>,
    /// The next elicitation request's number.
    next: u64,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the gateway needs to build gates.
struct Maker {
    policy: Policy,
    user: Value,
    sink: Arc<JsonlSink>,
    options: Options,
}

impl Maker {
    fn gate(&self, server: &str, tools: &[Value], changed: &[String]) -> Result<Gate, GateError> {
        let config = declare::declared(&self.user, server, tools, changed);
        Gate::builder(&self.policy)
            .config(config.to_string())
            .identity(format!("toolgate-mcp-proxy/{server}"))
            .audit(SharedSink(Arc::clone(&self.sink)))
            .build()
    }
}

/// The router's handles.
struct Proxy {
    state: Arc<Mutex<State>>,
    maker: Arc<Maker>,
    to_client: mpsc::UnboundedSender<Value>,
    to_server: mpsc::UnboundedSender<Value>,
}

/// Runs the gateway until either side closes; returns the exit code.
pub fn run(policy: &Policy, options: Options) -> Result<u8, McpError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let code = runtime.block_on(serve(policy, options));
    // The read of the gateway's standard input may still be blocked on a
    // thread of its own (the server ended first): it is not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

/// Where the audit log and the pins file are kept when no option names
/// them: `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`.
pub fn state_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    set("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".local").join("state")))
        .map(|dir| dir.join("toolgate"))
}

/// The default audit log's file name.
pub const DEFAULT_AUDIT: &str = "mcp-audit.jsonl";

/// The default pins file's file name.
pub const DEFAULT_PINS: &str = "mcp-pins.json";

/// The default server name: the program's file name.
fn program_name(command: &str) -> String {
    std::path::Path::new(command)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| command.to_owned())
}

async fn serve(policy: &Policy, options: Options) -> Result<u8, McpError> {
    let user = declare::user_config(policy, &options.config)?;
    let sink = Arc::new(
        JsonlSink::open(&options.audit).map_err(|source| McpError::Audit {
            path: options.audit.display().to_string(),
            source,
        })?,
    );
    // The pins file is read now, so a broken one stops the gateway before
    // any server runs.
    pins::Pins::load(&options.pins)?;
    let server = options
        .name
        .clone()
        .unwrap_or_else(|| program_name(&options.command));
    let maker = Arc::new(Maker {
        policy: policy.clone(),
        user,
        sink,
        options: options.clone(),
    });
    let gate = maker.gate(&server, &[], &[])?;

    let mut child = tokio::process::Command::new(&options.command)
        .args(&options.args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| McpError::Spawn {
            command: options.command.clone(),
            source,
        })?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(McpError::Io(std::io::Error::other(
            "the server's pipes were not opened",
        )));
    };

    let (to_client, mut client_queue) = mpsc::unbounded_channel::<Value>();
    let (to_server, mut server_queue) = mpsc::unbounded_channel::<Value>();
    let client_writer = tokio::spawn(async move {
        let mut out = FramedWrite::new(tokio::io::stdout(), Lenient::default());
        while let Some(message) = client_queue.recv().await {
            if out.send(message).await.is_err() {
                break;
            }
        }
    });
    let server_writer = tokio::spawn(async move {
        let mut out = FramedWrite::new(child_in, Lenient::default());
        while let Some(message) = server_queue.recv().await {
            if out.send(message).await.is_err() {
                break;
            }
        }
    });

    let proxy = Proxy {
        state: Arc::new(Mutex::new(State {
            waiting: HashMap::new(),
            asked: HashMap::new(),
            gate,
            server,
            tools: BTreeMap::new(),
            changed: Vec::new(),
            elicitation: false,
            closed: false,
            broken: None,
            next: 0,
        })),
        maker,
        to_client,
        to_server,
    };

    let mut from_client = FramedRead::new(tokio::io::stdin(), Lenient::default());
    let mut from_server = FramedRead::new(child_out, Lenient::default());
    let ending = loop {
        tokio::select! {
            message = from_client.next() => match message {
                None | Some(Err(_)) => break None,
                Some(Ok(Err(garbage))) => proxy.answer(wire::error(
                    &Value::Null,
                    code::PARSE,
                    &format!("toolgate mcp-proxy: the line is not JSON: {}", garbage.0),
                )),
                Some(Ok(Ok(message))) => proxy.on_client(message),
            },
            message = from_server.next() => match message {
                None => break Some(String::from("the MCP server exited")),
                Some(Err(e)) => break Some(format!("the MCP server's output failed: {e}")),
                Some(Ok(Err(garbage))) => {
                    break Some(format!("the MCP server wrote a line that is not JSON: {}", garbage.0))
                }
                Some(Ok(Ok(message))) => {
                    if let Err(why) = proxy.on_server(message) {
                        break Some(why);
                    }
                }
            },
        }
    };

    let Proxy {
        state,
        to_client,
        to_server,
        ..
    } = proxy;
    let code = match ending {
        None => {
            // The client closed: close the server's input, give it a moment,
            // then stop it.
            drop(to_server);
            let _ = tokio::time::timeout(GRACE, server_writer).await;
            if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
            0
        }
        Some(why) => {
            eprintln!("toolgate: mcp-proxy: {why}");
            fail_waiting(&state, &to_client, &why);
            drop(to_server);
            server_writer.abort();
            let _ = child.start_kill();
            let _ = tokio::time::timeout(GRACE, child.wait()).await;
            1
        }
    };
    drop(to_client);
    {
        // Approval tasks hold senders too; what they have not written by
        // now is not waited for.
        let mut state = lock(&state);
        state.asked.clear();
    }
    let _ = tokio::time::timeout(GRACE, client_writer).await;
    Ok(code)
}

/// Answers every request still waiting for the server with an error, and
/// records the allowed calls that never got an answer as failed.
fn fail_waiting(state: &Mutex<State>, to_client: &mpsc::UnboundedSender<Value>, why: &str) {
    let waiting: Vec<(String, Waiting)> = {
        let mut state = lock(state);
        state.closed = true;
        state.waiting.drain().collect()
    };
    let message = format!("toolgate mcp-proxy: {why} before answering");
    for (id, waiting) in waiting {
        let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
        if let Waiting::Allowed(ready, gate) = waiting {
            report(gate.execute(*ready, |_| Err(message.clone())));
        }
        let _ = to_client.send(wire::error(&id, code::INTERNAL, &message));
    }
}

/// Says on standard error what the gate could not record.
fn report(result: Result<crate::ToolResult, GateError>) {
    match result {
        Ok(result) => {
            if let Some(why) = result.audit_error {
                eprintln!("toolgate: mcp-proxy: the audit record was not written: {why}");
            }
        }
        Err(e) => eprintln!("toolgate: mcp-proxy: {e}"),
    }
}

impl Proxy {
    fn answer(&self, message: Value) {
        let _ = self.to_client.send(message);
    }

    fn forward(&self, message: Value) {
        let _ = self.to_server.send(message);
    }

    fn on_client(&self, message: Value) {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned();
        match (method, id) {
            (Some("tools/call"), Some(id)) => self.call(id, message),
            (Some(method), Some(id)) => {
                if method == "initialize" {
                    let declared = message
                        .pointer("/params/capabilities/elicitation")
                        .is_some_and(Value::is_object);
                    lock(&self.state).elicitation = declared;
                }
                lock(&self.state)
                    .waiting
                    .insert(key(&id), Waiting::Plain(method.to_owned()));
                self.forward(message);
            }
            (Some("notifications/cancelled"), None) => {
                self.cancelled(&message);
                self.forward(message);
            }
            (Some(_), None) => self.forward(message),
            (None, Some(id)) => {
                let asked = lock(&self.state).asked.remove(&key(&id));
                match asked {
                    Some(answer) => {
                        let _ = answer.send(message);
                    }
                    // A late answer to an approval that timed out is the
                    // gateway's own: the server never asked.
                    None if id.as_str().is_some_and(|id| id.starts_with(APPROVAL_ID)) => {}
                    None => self.forward(message),
                }
            }
            (None, None) => self.answer(wire::error(
                &Value::Null,
                code::INVALID_REQUEST,
                "toolgate mcp-proxy: the message is not a JSON-RPC request, notification or response",
            )),
        }
    }

    /// The client cancelled a request: the server will not answer it, so it
    /// is no longer waited for, and an allowed call's outcome is recorded as
    /// cancelled (the server may have run it).
    fn cancelled(&self, message: &Value) {
        let Some(id) = message.pointer("/params/requestId") else {
            return;
        };
        let waiting = lock(&self.state).waiting.remove(&key(id));
        if let Some(Waiting::Allowed(ready, gate)) = waiting {
            report(gate.execute(*ready, |_| {
                Err(String::from(
                    "cancelled by the client after it was forwarded",
                ))
            }));
        }
    }

    /// A message from the server; `Err` when it is not JSON-RPC.
    fn on_server(&self, mut message: Value) -> Result<(), String> {
        if message.get("method").is_some() {
            self.answer(message);
            return Ok(());
        }
        let Some(id) = message.get("id").cloned() else {
            return Err(String::from(
                "the MCP server wrote a message that is not JSON-RPC",
            ));
        };
        let waiting = lock(&self.state).waiting.remove(&key(&id));
        match waiting {
            Some(Waiting::Plain(method)) if method == "tools/list" => {
                if let Some(result) = message.get_mut("result") {
                    if let Err(why) = self.listed(result) {
                        eprintln!("toolgate: mcp-proxy: {why}");
                        message =
                            wire::error(&id, code::INTERNAL, &format!("toolgate mcp-proxy: {why}"));
                    }
                }
                self.answer(message);
            }
            Some(Waiting::Allowed(ready, gate)) => {
                let outcome = wire::outcome(&message);
                report(gate.execute(*ready, |_| outcome));
                self.answer(message);
            }
            Some(Waiting::Settling(settle)) => {
                let _ = settle.send(message);
            }
            Some(Waiting::Plain(_)) | None => self.answer(message),
        }
        Ok(())
    }

    /// Reads a `tools/list` answer: pins the tools, reports changed ones,
    /// declares them to a new gate, and with `--augment` adds `risk_level`.
    fn listed(&self, result: &mut Value) -> Result<(), String> {
        let Some(tools) = result.get("tools").and_then(Value::as_array).cloned() else {
            return Ok(());
        };
        let path = &self.maker.options.pins;
        let server = lock(&self.state).server.clone();
        let gate = (|| -> Result<Gate, String> {
            let mut pins = pins::Pins::load(path).map_err(|e| e.to_string())?;
            let compared = pins.compare(&server, &tools);
            if compared.dirty {
                pins.save(path).map_err(|e| e.to_string())?;
            }
            for name in &compared.changed {
                eprintln!(
                    "toolgate: mcp-proxy: {}: the definition of tool `{name}` of server \
                     `{server}` changed since it was pinned; every call of it is confirmed \
                     until a person approves the change (`toolgate mcp pins approve --pins {} \
                     {server} {name}`)",
                    pins::PIN_CHANGED,
                    path.display()
                );
            }
            let mut state = lock(&self.state);
            for tool in &tools {
                if let Some(name) = tool.get("name").and_then(Value::as_str) {
                    state.tools.insert(name.to_owned(), tool.clone());
                }
            }
            state.changed = compared.changed;
            let all: Vec<Value> = state.tools.values().cloned().collect();
            let changed = state.changed.clone();
            drop(state);
            self.maker
                .gate(&server, &all, &changed)
                .map_err(|e| e.to_string())
        })();
        let mut state = lock(&self.state);
        match gate {
            Ok(gate) => {
                state.gate = gate.clone();
                state.broken = None;
                drop(state);
                if self.maker.options.augment {
                    let text = Value::Array(tools).to_string();
                    match gate.engine().augment_tools(&text, Some("mcp")) {
                        Ok(augmented) => {
                            for note in &augmented.notes {
                                eprintln!("toolgate: mcp-proxy: note: {note}");
                            }
                            if let (Ok(tools), Some(slot)) = (
                                serde_json::from_str::<Value>(&augmented.tools),
                                result.get_mut("tools"),
                            ) {
                                *slot = tools;
                            }
                        }
                        Err(e) => eprintln!("toolgate: mcp-proxy: --augment: {e}"),
                    }
                }
                Ok(())
            }
            Err(why) => {
                state.broken = Some(why.clone());
                Err(why)
            }
        }
    }

    /// A call of a tool whose pin changed: the pins file is read again, and
    /// when a person has approved the new definition since, the tool is
    /// declared without its forced confirmation and the new gate decides.
    /// Anything that fails keeps the confirmation.
    fn recheck_pin(&self, server: &str, name: &str, gate: Gate) -> (Gate, bool) {
        let approved = pins::Pins::load(&self.maker.options.pins)
            .map(|pins| !pins.is_changed(server, name))
            .unwrap_or(false);
        if !approved {
            return (gate, true);
        }
        let mut state = lock(&self.state);
        state.changed.retain(|c| c != name);
        let all: Vec<Value> = state.tools.values().cloned().collect();
        match self.maker.gate(server, &all, &state.changed) {
            Ok(rebuilt) => {
                state.gate = rebuilt.clone();
                (rebuilt, false)
            }
            Err(e) => {
                eprintln!("toolgate: mcp-proxy: {e}");
                state.changed.push(name.to_owned());
                (gate, true)
            }
        }
    }

    /// A `tools/call`: decided now, so what is allowed or denied keeps its
    /// place in the stream; a confirmation is asked for on a task of its own.
    fn call(&self, id: Value, message: Value) {
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let parsed: CallToolRequestParams = match serde_json::from_value(params) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.answer(wire::error(
                    &id,
                    code::INVALID_PARAMS,
                    &format!("toolgate mcp-proxy: tools/call parameters: {e}"),
                ));
                return;
            }
        };
        let name = parsed.name.to_string();
        let args = message
            .pointer("/params/arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let (gate, server, description, broken, elicitation, changed) = {
            let state = lock(&self.state);
            (
                state.gate.clone(),
                state.server.clone(),
                state
                    .tools
                    .get(&name)
                    .and_then(|t| t.get("description"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                state.broken.clone(),
                state.elicitation,
                state.changed.contains(&name),
            )
        };
        let (gate, changed) = if changed {
            self.recheck_pin(&server, &name, gate)
        } else {
            (gate, false)
        };
        if let Some(why) = broken {
            self.answer(wire::tool_error(
                &id,
                &format!("toolgate could not decide this call, so it was not run: {why}"),
            ));
            return;
        }
        let tool = declare::qualified(&server, &name);
        let call = Call::new(tool.clone(), args.to_string())
            .call_id(key(&id))
            .description(description);
        match gate.check(&call) {
            Err(e) => self.answer(wire::tool_error(
                &id,
                &format!("toolgate could not decide this call, so it was not run: {e}"),
            )),
            Ok(Checked::Done(result)) => self.answer(wire::tool_error(&id, &result.for_model)),
            Ok(Checked::Run(ready)) => {
                let forwarded = with_args(message, &ready.args);
                lock(&self.state)
                    .waiting
                    .insert(key(&id), Waiting::Allowed(Box::new(ready), gate));
                self.forward(forwarded);
            }
            Ok(Checked::Ask(pending)) if elicitation => {
                let asking = Asking {
                    state: Arc::clone(&self.state),
                    to_client: self.to_client.clone(),
                    to_server: self.to_server.clone(),
                    gate,
                    id,
                    message,
                    changed,
                };
                tokio::spawn(asking.ask(*pending));
            }
            Ok(Checked::Ask(pending)) => {
                let why = "no person could be asked: the client did not declare the \
                           elicitation capability";
                report(gate.settle(
                    &pending.id,
                    Response::reject(Some(why)).by("toolgate mcp-proxy"),
                    |_| Err(String::from("not run")),
                ));
                self.answer(wire::tool_error(
                    &id,
                    &format!(
                        "This call was not run: a person must approve it ({}), and this MCP \
                         client cannot ask one (it did not declare the elicitation capability). \
                         To run it, use a client that supports elicitation, or let it run \
                         without asking: an allow rule in the gateway's configuration \
                         ({{\"effect\": \"allow\", \"tool\": \"{tool}\"}}) or a grant.{}",
                        pending.decision.summary,
                        if changed {
                            " Its definition changed since it was pinned: approve the change \
                             with `toolgate mcp pins approve`."
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
    }
}

/// The request with its arguments replaced by the ones the gate cleared
/// (`risk_level` stripped, edits applied); everything else as it came.
fn with_args(mut message: Value, args: &str) -> Value {
    if let (Ok(cleared), Some(params)) = (
        serde_json::from_str::<Value>(args),
        message.get_mut("params").and_then(Value::as_object_mut),
    ) {
        let empty = cleared.as_object().is_some_and(serde_json::Map::is_empty);
        if params.contains_key("arguments") || !empty {
            params.insert(String::from("arguments"), cleared);
        }
    }
    message
}

/// A confirmation asked of the person at the client.
struct Asking {
    state: Arc<Mutex<State>>,
    to_client: mpsc::UnboundedSender<Value>,
    to_server: mpsc::UnboundedSender<Value>,
    gate: Gate,
    id: Value,
    message: Value,
    changed: bool,
}

/// The schema of the elicitation's form: one required yes/no.
fn approval_schema() -> Option<ElicitationSchema> {
    ElicitationSchema::builder()
        .required_bool_property("approve", |_: BooleanSchema| {
            BooleanSchema::new()
                .title("Run this tool call")
                .with_default(false)
        })
        .build()
        .ok()
}

impl Asking {
    async fn ask(self, pending: crate::Pending) {
        let (answer_tx, answer_rx) = oneshot::channel();
        let asked_id = {
            let mut state = lock(&self.state);
            state.next += 1;
            let asked = json!(format!("{APPROVAL_ID}{}", state.next));
            state.asked.insert(key(&asked), answer_tx);
            asked
        };
        let findings: Vec<String> = pending
            .decision
            .findings
            .iter()
            .map(|f| format!("- {} ({})", f.message, f.code))
            .collect();
        let args = serde_json::from_str::<Value>(&pending.args)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| pending.args.clone());
        let text = format!(
            "toolgate: approve this call of `{}`?\n{}\n{}Arguments:\n{}{}",
            pending.tool,
            pending.decision.summary,
            if findings.is_empty() {
                String::new()
            } else {
                format!("{}\n", findings.join("\n"))
            },
            args,
            if self.changed {
                format!(
                    "\nWarning ({}): this tool's definition changed since it was pinned.",
                    pins::PIN_CHANGED
                )
            } else {
                String::new()
            }
        );
        let Some(schema) = approval_schema() else {
            self.finish_unasked(&pending, "the approval form could not be made");
            return;
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: text,
            requested_schema: schema,
        };
        let request = json!({
            "jsonrpc": "2.0",
            "id": asked_id,
            "method": "elicitation/create",
            "params": serde_json::to_value(params).unwrap_or(Value::Null),
        });
        let _ = self.to_client.send(request);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let left = Duration::from_millis(pending.deadline.saturating_sub(now));
        let answer = tokio::time::timeout(left, answer_rx).await;
        let response = match answer {
            Ok(Ok(answer)) => {
                let elicited = answer
                    .get("result")
                    .cloned()
                    .and_then(|r| serde_json::from_value::<ElicitResult>(r).ok());
                match elicited {
                    Some(ElicitResult {
                        action: ElicitationAction::Accept,
                        content: Some(content),
                        ..
                    }) if content.get("approve") == Some(&Value::Bool(true)) => {
                        Response::approve().by("mcp client (elicitation)")
                    }
                    Some(ElicitResult { action, .. }) => Response::reject(Some(&format!(
                        "the person at the MCP client did not approve it ({})",
                        match action {
                            ElicitationAction::Accept => "accepted without approving",
                            ElicitationAction::Decline => "declined",
                            ElicitationAction::Cancel => "cancelled",
                            _ => "answered otherwise",
                        }
                    )))
                    .by("mcp client (elicitation)"),
                    None => Response::reject(Some(
                        "the MCP client's answer to the approval request was an error",
                    ))
                    .by("mcp client (elicitation)"),
                }
            }
            Ok(Err(_)) => return,
            Err(_) => {
                lock(&self.state).asked.remove(&key(&asked_id));
                let _ = self.to_client.send(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": asked_id, "reason": "the approval's deadline passed"},
                }));
                let _ = self.gate.sweep();
                let _ = self.to_client.send(wire::tool_error(
                    &self.id,
                    "This call was not run: nobody answered the approval request before its deadline.",
                ));
                return;
            }
        };
        self.settle(pending, response).await;
    }

    /// Answers the call without asking, closing its approval.
    fn finish_unasked(&self, pending: &crate::Pending, why: &str) {
        report(self.gate.settle(
            &pending.id,
            Response::reject(Some(why)).by("toolgate mcp-proxy"),
            |_| Err(String::from("not run")),
        ));
        let _ = self.to_client.send(wire::tool_error(
            &self.id,
            &format!("This call was not run: {why}."),
        ));
    }

    /// Settles the approval on a blocking thread (the gate runs the tool
    /// synchronously: here, forwarding the call and waiting for the answer).
    async fn settle(self, pending: crate::Pending, response: Response) {
        let Asking {
            state,
            to_client,
            to_server,
            gate,
            id,
            message,
            ..
        } = self;
        let call_id = id.clone();
        let settled = tokio::task::spawn_blocking(move || {
            let mut answer: Option<Value> = None;
            let result = gate.settle(&pending.id, response, |args| {
                let (tx, rx) = std::sync::mpsc::channel();
                {
                    let mut state = lock(&state);
                    if state.closed {
                        return Err(String::from("the MCP server exited"));
                    }
                    state.waiting.insert(key(&call_id), Waiting::Settling(tx));
                }
                if to_server.send(with_args(message, args)).is_err() {
                    return Err(String::from("the MCP server exited"));
                }
                // The router answers or drops the sender when the server
                // answers or exits: this wait ends either way.
                match rx.recv() {
                    Ok(got) => {
                        let outcome = wire::outcome(&got);
                        answer = Some(got);
                        outcome
                    }
                    Err(_) => Err(String::from("the MCP server exited before answering")),
                }
            });
            (result, answer)
        })
        .await;
        match settled {
            Ok((_, Some(answer))) => {
                let _ = to_client.send(answer);
            }
            Ok((Ok(result), None)) => {
                // Run but unanswered: the router has told the client.
                if !matches!(result.status, Status::Executed | Status::Failed) {
                    let _ = to_client.send(wire::tool_error(&id, &result.for_model));
                }
            }
            Ok((Err(e), None)) => {
                let _ = to_client.send(wire::tool_error(
                    &id,
                    &format!("This call was not run: {e}"),
                ));
            }
            Err(e) => {
                let _ = to_client.send(wire::tool_error(
                    &id,
                    &format!("This call was not run: {e}"),
                ));
            }
        }
    }
}
