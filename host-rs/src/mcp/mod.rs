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
//! The messages are routed by the gateway itself (`route.rs`; a person is
//! asked by `ask.rs`), not by the MCP SDK's typed service: its
//! handlers answer the methods they model and cannot pass an unknown method
//! or field through unchanged. The SDK provides the wire instead: its line
//! codec frames both pipes ([`wire`]), and its model types read the
//! `tools/call` parameters, the client's elicitation answer, and write the
//! tool errors and the elicitation request.
//!
//! A server that exits or writes a line that is not JSON-RPC gets every
//! request still waiting for it answered with a JSON-RPC error, and the
//! gateway exits (code 1); when the client closes its side, the calls in
//! flight are finished first (their answers written, their outcomes
//! recorded; for at most [`DRAIN`]), then the server's input is closed, it
//! is given a moment to exit and then killed, and the gateway exits (code
//! 0). Nothing waits without a bound: a person's answer until the
//! approval's deadline.
//!
//! Memory is bounded whatever comes in: a client's line longer than
//! [`MAX_REQUEST`] is skipped without being kept (a parse error), the queues
//! to either side hold at most [`QUEUE`] messages each, and at most
//! [`IN_FLIGHT`] requests wait for the server at once; past any of these
//! bounds the gateway stops reading the client until there is room again
//! (backpressure down the pipe), so a flood waits instead of piling up.
//! Calls are decided and their outcomes recorded on threads of their own
//! ([`DECIDERS`] at a time), never on the router: one call's decision (the
//! component's run, the audit's synced write) does not hold up the messages
//! of the others.

pub mod answers;
mod ask;
pub mod declare;
pub mod listen;
pub mod pins;
pub mod remote;
mod route;
pub mod wire;

use crate::gate::audit::{AuditSink, JsonlSink, SinkError};
use crate::gate::{Gate, GateError, Ready};
use crate::runtime::{Error, Policy};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{FramedRead, FramedWrite};
use wire::{code, Lenient};

/// The prefix of the ids of the gateway's own elicitation requests.
const APPROVAL_ID: &str = "toolgate-approval-";

/// The largest `tools/call` arguments the gateway hands the policy, in bytes
/// (the policy refuses more than 1 MiB by default; `max_args_bytes` may
/// raise that up to this). Larger ones are refused here, as
/// [`ARGS_INVALID`], before the component would run out of memory.
pub const MAX_ARGS: usize = 16 * 1024 * 1024;

/// The largest message the gateway reads from the server, in bytes: a
/// longer line is skipped unread (a parse error), so no message's size grows
/// the gateway's memory without bound. A server's answers (a file, a
/// resource) may be larger than any call's arguments.
pub const MAX_MESSAGE: usize = 96 * 1024 * 1024;

/// The largest message the gateway reads from the client, in bytes: the
/// largest arguments it hands the policy ([`MAX_ARGS`]) and 1 MiB for the
/// rest of the request. A longer line is answered with a parse error and
/// skipped as it streams by (at most this much of it is ever held), before
/// any of it is parsed.
pub const MAX_REQUEST: usize = MAX_ARGS + 1024 * 1024;

/// How many messages wait in each direction's queue (to the client, to the
/// server) before the gateway stops reading the client.
pub const QUEUE: usize = 256;

/// How many of the client's requests may wait for the server at once
/// (forwarded and unanswered, or being decided); past it the gateway reads
/// nothing more from the client until an answer comes.
pub const IN_FLIGHT: usize = 1024;

/// How many confirmations may wait for a person at once; a call past it is
/// answered with a tool error (not run), since the person's answers come
/// down the same pipe as the calls.
pub const ASKING: usize = 64;

/// How many calls are decided (or their outcomes recorded) at once, each on
/// a blocking thread with a policy instance of its own.
pub const DECIDERS: usize = 4;

/// How long the calls in flight when the client closes are waited for.
pub const DRAIN: Duration = Duration::from_secs(60);

/// The finding code of arguments that cannot be read.
pub const ARGS_INVALID: &str = "args.invalid";

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
    /// `--audit-results full`: the audit records a call's result whole;
    /// by default by its SHA-256 and size only ([`wire::recorded`]).
    pub audit_results_full: bool,
    /// The directory where calls wait for a person's approval when the
    /// client cannot ask one (no elicitation): `toolgate approvals`
    /// settles them there, and the client's retry runs an approved call.
    pub approvals: PathBuf,
    /// The server's program (with `remote`, the server's URL).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// `--remote`: `command` is the URL of a server that speaks MCP's
    /// Streamable HTTP transport, reached with this bearer token if any.
    pub remote: Option<remote::Remote>,
    /// `--listen`: clients reach the gateway over Streamable HTTP, each
    /// session with its own connection to the server, instead of over the
    /// gateway's standard input and output.
    pub listen: Option<listen::Listen>,
}

/// A stream of messages from one side: a message, a line that is not JSON,
/// or the side's failure.
pub type Incoming = std::pin::Pin<
    Box<dyn futures::Stream<Item = Result<Result<Value, wire::Garbage>, std::io::Error>> + Send>,
>;

/// The client's side of one session.
pub enum ClientEnd {
    /// The gateway's standard input and output.
    Stdio,
    /// A Streamable HTTP session: messages come down `incoming`, and what
    /// goes to the client is written by `writer` from the queue it is given.
    Http {
        /// The client's messages.
        incoming: Incoming,
        /// Writes the client's queue (routes each message to its stream).
        writer: Box<dyn FnOnce(mpsc::Receiver<Value>) -> tokio::task::JoinHandle<()> + Send>,
    },
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
    fn append_sealed_deferred(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<(String, u64), String>> {
        self.0.append_sealed_deferred(seal)
    }
    fn wait_durable(&self, ticket: u64) -> Result<(), String> {
        self.0.wait_durable(ticket)
    }
    fn gap(&self) -> Option<String> {
        self.0.gap()
    }
    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        self.0.recorded(approval, since)
    }
}

/// A request the gateway forwarded and waits for the answer to.
enum Waiting {
    /// Any other request: the answer passes through.
    Plain,
    /// A `tools/list` request: the answer is read on its way (pins,
    /// declarations); `first` when it asked for the first page (no cursor),
    /// which starts a new listing.
    List {
        /// Whether the request had no cursor.
        first: bool,
    },
    /// An allowed `tools/call`: its outcome is recorded when it comes.
    Allowed(Box<Ready>, Gate),
    /// An approved `tools/call`: the answer goes to the settling thread.
    Settling(std::sync::mpsc::Sender<Value>),
    /// The gateway's own `tools/list` (after `notifications/initialized`),
    /// so calls are decided on the server's listing even when the client
    /// never lists: read, never passed on.
    Own {
        /// Whether it asked for the first page.
        first: bool,
    },
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
    /// The tool names seen in the current listing (its pages so far), so a
    /// name listed twice, on one page or across pages, is found.
    listing: std::collections::BTreeSet<String>,
    /// The calls being decided, by id: a cancellation that comes meanwhile
    /// is noted here (`true`), and the call is then neither forwarded nor
    /// answered.
    deciding: HashMap<String, bool>,
    /// Decisions and outcome records in progress on their threads.
    busy: usize,
    /// The gateway's own listing is under way: a call of a tool not yet
    /// known waits for it (in `deferred`) instead of being confirmed as
    /// unknown.
    listing_own: bool,
    /// Calls waiting for the gateway's own listing: (id, message).
    deferred: Vec<(Value, Value)>,
}

impl State {
    /// What the client waits for: requests forwarded and unanswered, calls
    /// being decided or recorded.
    fn in_flight(&self) -> usize {
        self.waiting.len() + self.busy
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// How long an approval left pending for a client without elicitation
/// waits for a person and the client's retry, unless the configuration sets
/// `approval_timeout_ms`: a person has to notice, read and answer it with
/// `toolgate approvals`, which takes longer than a dialog.
pub const PENDING_WINDOW: Duration = Duration::from_secs(15 * 60);

/// What the gateway needs to build gates.
pub(crate) struct Maker {
    policy: Policy,
    user: Value,
    sink: Arc<JsonlSink>,
    options: Options,
    /// The key of the approvals directory's answers ([`answers`]).
    answer_key: Vec<u8>,
}

impl Maker {
    /// A gate for the tools listed; `elicitation` when the client can ask a
    /// person (otherwise a confirmed call is left pending in the approvals
    /// directory, for [`PENDING_WINDOW`] unless configured).
    fn gate(
        &self,
        server: &str,
        tools: &[Value],
        changed: &[String],
        elicitation: bool,
    ) -> Result<Gate, GateError> {
        let config = declare::declared(&self.user, server, tools, changed);
        let mut builder = Gate::builder(&self.policy)
            .config(config.to_string())
            .identity(format!("toolgate-mcp-proxy/{server}"))
            // Checkpoints unsigned: the person's answer is what is signed
            // ([`answers`]), and it binds the tool and arguments they saw.
            .store(crate::gate::store::DirStore::new(&self.options.approvals))
            .unsigned()
            .audit(SharedSink(Arc::clone(&self.sink)))
            // A call the gateway cannot record (a full disk, an unwritable
            // log) is refused with the reason, never run unrecorded.
            .audit_required(true);
        if !elicitation && self.user.get("approval_timeout_ms").is_none() {
            builder = builder.timeout(PENDING_WINDOW);
        }
        builder.build()
    }
}

/// The router's handles (cloned into the tasks that decide and record).
#[derive(Clone)]
struct Proxy {
    state: Arc<Mutex<State>>,
    maker: Arc<Maker>,
    to_client: mpsc::Sender<Value>,
    to_server: mpsc::Sender<Value>,
    /// Permits to decide or record ([`DECIDERS`]).
    deciders: Arc<tokio::sync::Semaphore>,
    /// Told when a decision or a record finishes, so the router looks at
    /// what is in flight again.
    settled: Arc<tokio::sync::Notify>,
}

/// Runs the gateway until either side closes (over HTTP: until it is
/// stopped); returns the exit code.
pub fn run(policy: &Policy, options: Options) -> Result<u8, McpError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let code = runtime.block_on(async {
        let maker = prepare(policy, options)?;
        match maker.options.listen.clone() {
            Some(listen) => listen::listen(maker, listen).await,
            None => session(maker, ClientEnd::Stdio).await,
        }
    });
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

/// The default approvals directory's name.
pub const DEFAULT_APPROVALS: &str = "mcp-approvals";

/// The default pins file's file name.
pub const DEFAULT_PINS: &str = "mcp-pins.json";

/// The default server name: the program's file name.
fn program_name(command: &str) -> String {
    std::path::Path::new(command)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| command.to_owned())
}

/// Reads the configuration, opens the audit log and checks the pins file:
/// what every session shares.
fn prepare(policy: &Policy, options: Options) -> Result<Arc<Maker>, McpError> {
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
    let answer_key = answers::key(&options.approvals)
        .map_err(|e| McpError::Io(std::io::Error::other(format!("--approvals: {e}"))))?;
    Ok(Arc::new(Maker {
        policy: policy.clone(),
        user,
        sink,
        options,
        answer_key,
    }))
}

/// One client's session with the server, until either side closes.
async fn session(maker: Arc<Maker>, client: ClientEnd) -> Result<u8, McpError> {
    let options = &maker.options;
    let server = options
        .name
        .clone()
        .unwrap_or_else(|| match &options.remote {
            Some(_) => remote::host_name(&options.command),
            None => program_name(&options.command),
        });
    let gate = maker.gate(&server, &[], &[], false)?;

    let (to_client, client_queue) = mpsc::channel::<Value>(QUEUE);
    let (to_server, server_queue) = mpsc::channel::<Value>(QUEUE);
    let (mut child, mut from_server, server_writer): (Option<tokio::process::Child>, Incoming, _) =
        match &options.remote {
            Some(remote) => {
                let (incoming, writer) = remote::connect(remote.clone(), server_queue);
                (None, incoming, writer)
            }
            None => {
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
                let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take())
                else {
                    return Err(McpError::Io(std::io::Error::other(
                        "the server's pipes were not opened",
                    )));
                };
                let writer = tokio::spawn(write_all(
                    FramedWrite::new(child_in, Lenient::default()),
                    server_queue,
                ));
                let incoming: Incoming =
                    Box::pin(FramedRead::new(child_out, Lenient::bounded(MAX_MESSAGE)));
                (Some(child), incoming, writer)
            }
        };
    let (mut from_client, client_writer): (Incoming, _) = match client {
        ClientEnd::Stdio => (
            Box::pin(FramedRead::new(
                tokio::io::stdin(),
                Lenient::bounded(MAX_REQUEST),
            )),
            tokio::spawn(write_all(
                FramedWrite::new(tokio::io::stdout(), Lenient::default()),
                client_queue,
            )),
        ),
        ClientEnd::Http { incoming, writer } => (incoming, writer(client_queue)),
    };

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
            listing: std::collections::BTreeSet::new(),
            deciding: HashMap::new(),
            busy: 0,
            listing_own: false,
            deferred: Vec::new(),
        })),
        maker: Arc::clone(&maker),
        to_client,
        to_server,
        deciders: Arc::new(tokio::sync::Semaphore::new(DECIDERS)),
        settled: Arc::new(tokio::sync::Notify::new()),
    };

    // Set when the client closed its side: from then on only what is in
    // flight is finished, until this deadline.
    let mut draining: Option<tokio::time::Instant> = None;
    let ending = loop {
        let (in_flight, asking) = {
            let state = lock(&proxy.state);
            (state.in_flight(), state.asked.len())
        };
        if let Some(deadline) = draining {
            if in_flight == 0 && asking == 0 {
                break None;
            }
            if tokio::time::Instant::now() >= deadline {
                break Some(format!(
                    "the client closed, and {in_flight} request(s) were still unanswered after {} s",
                    DRAIN.as_secs()
                ));
            }
        }
        // A writer that stopped (its pipe closed) has no room to wait for.
        if proxy.to_client.is_closed() {
            break None;
        }
        if proxy.to_server.is_closed() {
            break Some(String::from("the MCP server's input closed"));
        }
        // Room for what one message makes the router send, both ways.
        let client_room = proxy.to_client.capacity() >= 2;
        let server_room = proxy.to_server.capacity() >= 2;
        let read_client = draining.is_none() && client_room && server_room && in_flight < IN_FLIGHT;
        tokio::select! {
            biased;
            message = from_server.next(), if client_room => match message {
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
            message = from_client.next(), if read_client => match message {
                None | Some(Err(_)) => {
                    draining = Some(tokio::time::Instant::now() + DRAIN);
                    // Nobody is left to answer an approval: the dialogs are
                    // closed, and their calls refused and recorded so.
                    lock(&proxy.state).asked.clear();
                }
                Some(Ok(Err(garbage))) => proxy.answer(wire::error(
                    &Value::Null,
                    code::PARSE,
                    &format!("toolgate mcp-proxy: the line is not JSON: {}", garbage.0),
                )),
                Some(Ok(Ok(message))) => proxy.on_client(message),
            },
            // A queue was full: wait for room, then look again.
            permit = proxy.to_client.reserve_many(2), if !client_room => drop(permit),
            permit = proxy.to_server.reserve_many(2), if !server_room => drop(permit),
            () = proxy.settled.notified() => {}
            () = tokio::time::sleep(Duration::from_millis(100)), if draining.is_some() => {}
        }
    };

    let code = match ending {
        None => 0,
        Some(why) => {
            eprintln!("toolgate: mcp-proxy: {why}");
            fail_waiting(&proxy.state, &proxy.to_client, &why).await;
            1
        }
    };
    let Proxy {
        state,
        to_client,
        to_server,
        ..
    } = proxy;
    if code == 0 {
        // The client closed and what was in flight is answered: close the
        // server's input, give it a moment, then stop it.
        drop(to_server);
        let _ = tokio::time::timeout(GRACE, server_writer).await;
        if let Some(child) = child.as_mut() {
            if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
    } else {
        drop(to_server);
        server_writer.abort();
        if let Some(child) = child.as_mut() {
            let _ = child.start_kill();
            let _ = tokio::time::timeout(GRACE, child.wait()).await;
        }
    }
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

/// Writes what comes down `queue` to `out`, flushing whenever the queue is
/// empty (one write for a burst of messages, not one per message).
async fn write_all<W: tokio::io::AsyncWrite + Unpin>(
    mut out: FramedWrite<W, Lenient>,
    mut queue: mpsc::Receiver<Value>,
) {
    while let Some(message) = queue.recv().await {
        if out.feed(message).await.is_err() {
            return;
        }
        while let Ok(message) = queue.try_recv() {
            if out.feed(message).await.is_err() {
                return;
            }
        }
        if out.flush().await.is_err() {
            return;
        }
    }
}

/// Answers every request still waiting for the server with an error, and
/// records the allowed calls that never got an answer as failed.
async fn fail_waiting(state: &Mutex<State>, to_client: &mpsc::Sender<Value>, why: &str) {
    type Left = (Vec<(String, Waiting)>, Vec<(Value, Value)>);
    let (waiting, deferred): Left = {
        let mut state = lock(state);
        state.closed = true;
        (
            state.waiting.drain().collect(),
            std::mem::take(&mut state.deferred),
        )
    };
    let message = format!("toolgate mcp-proxy: {why} before answering");
    let mut answers = Vec::with_capacity(waiting.len() + deferred.len());
    for (id, _) in deferred {
        answers.push(wire::error(&id, code::INTERNAL, &message));
    }
    for (id, waiting) in waiting {
        if matches!(waiting, Waiting::Own { .. }) {
            // The gateway's own request: the client never sent it.
            continue;
        }
        let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
        if let Waiting::Allowed(ready, gate) = waiting {
            report(gate.execute(*ready, |_| Err(message.clone())));
        }
        answers.push(wire::error(&id, code::INTERNAL, &message));
    }
    for answer in answers {
        // A client that reads nothing more is not waited for beyond GRACE.
        let sent = tokio::time::timeout(GRACE, to_client.send(answer)).await;
        if !matches!(sent, Ok(Ok(()))) {
            break;
        }
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
