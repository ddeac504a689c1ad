//! The approval gate: wraps a tool's execution in the policy's decision and, for
//! `confirm`, in a person's answer.
//!
//! [`Gate::run`] assesses a call; `deny` never runs it, `allow` runs it with
//! `risk_level` stripped, `confirm` checkpoints a pending approval, emits an
//! [`Event::Requested`], waits for [`Gate::respond`] (or the configured approver)
//! until the deadline, and then runs it, runs an edited version (re-assessed: an
//! edit the policy denies stays denied), or does not run it at all. Whatever
//! happens, the caller gets a [`ToolResult`] it can hand back to the model, and
//! one hash-chained audit record is written. The gate is synchronous and
//! thread-safe: `run` blocks its thread while a person decides; answers come from
//! any other thread.
//!
//! States: pending → approved / edited / rejected / expired / cancelled →
//! executed / failed (the last two only after an approval).

pub mod audit;
pub mod store;

use crate::decision::{Action, Decision};
use crate::records::{CheckpointError, Recheck};
use crate::runtime::{Engine, Error, Policy};
use audit::{AuditSink, SinkError};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use store::{CheckpointStore, MemoryStore, StoreError};

/// The default time a person has to answer (seed 004: 30 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A tool call to run through the gate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Call {
    /// The tool's name.
    pub tool: String,
    /// The arguments as the model sent them (JSON text, `risk_level` included).
    pub args: String,
    /// The call's id in its wire format, to answer the model with.
    pub call_id: Option<String>,
    /// The tool's description, for the approval dialog.
    pub description: String,
    /// The conversation, for the audit.
    pub session_id: Option<String>,
    /// The user the model acts for, for the audit.
    pub user_id: Option<String>,
    /// The caller's context (JSON, e.g. `{"permissions": [...]}`).
    pub context: Option<String>,
}

impl Call {
    /// A call of `tool` with `args`.
    pub fn new(tool: impl Into<String>, args: impl Into<String>) -> Call {
        Call {
            tool: tool.into(),
            args: args.into(),
            ..Call::default()
        }
    }

    /// Sets the call id.
    pub fn call_id(mut self, id: impl Into<String>) -> Call {
        self.call_id = Some(id.into());
        self
    }

    /// Sets the tool description.
    pub fn description(mut self, text: impl Into<String>) -> Call {
        self.description = text.into();
        self
    }

    /// Sets the session and user, for the audit.
    pub fn on_behalf_of(mut self, session: impl Into<String>, user: impl Into<String>) -> Call {
        self.session_id = Some(session.into());
        self.user_id = Some(user.into());
        self
    }

    /// Sets the caller's context (JSON).
    pub fn context(mut self, context: impl Into<String>) -> Call {
        self.context = Some(context.into());
        self
    }
}

/// What a person decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run the call as proposed.
    Approve,
    /// Run it with these arguments instead (a JSON object).
    Edit(String),
    /// Do not run it.
    Reject,
}

/// A person's response to an approval request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The decision.
    pub answer: Answer,
    /// For a rejection: a message for the model.
    pub message: Option<String>,
    /// An instruction to add to the conversation, returned to the caller.
    pub instruction: Option<String>,
    /// Who answered, for the audit.
    pub by: Option<String>,
}

impl Response {
    /// Approve as proposed.
    pub fn approve() -> Response {
        Response {
            answer: Answer::Approve,
            message: None,
            instruction: None,
            by: None,
        }
    }

    /// Approve with edited arguments.
    pub fn edit(args: impl Into<String>) -> Response {
        Response {
            answer: Answer::Edit(args.into()),
            ..Response::approve()
        }
    }

    /// Reject, optionally telling the model why.
    pub fn reject(message: Option<&str>) -> Response {
        Response {
            answer: Answer::Reject,
            message: message.map(str::to_owned),
            ..Response::approve()
        }
    }

    /// Adds an instruction for the conversation.
    pub fn with_instruction(mut self, text: impl Into<String>) -> Response {
        self.instruction = Some(text.into());
        self
    }

    /// Names who answered.
    pub fn by(mut self, who: impl Into<String>) -> Response {
        self.by = Some(who.into());
        self
    }
}

/// A pending approval, as shown to a person.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApprovalRequest {
    /// The request's id, for [`Gate::respond`].
    pub id: String,
    /// The conversation.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The user.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// The tool's description.
    #[serde(default)]
    pub description: String,
    /// The arguments as the model sent them.
    pub args: String,
    /// The call's id in its wire format.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The policy's decision, with its findings and summary.
    pub decision: Decision,
    /// When it was requested (ms since the Unix epoch).
    pub requested_at: u64,
    /// When it expires (ms since the Unix epoch).
    pub deadline: u64,
    /// The caller's context the decision was made in (JSON).
    #[serde(default)]
    pub context: Option<String>,
    /// The hash of the configuration the decision was made under.
    #[serde(default)]
    pub config_hash: String,
    /// The identity of the gate that asked.
    #[serde(default)]
    pub gate: String,
}

/// What became of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It ran and succeeded.
    Executed,
    /// It ran and failed.
    Failed,
    /// The policy (or the configuration) denied it; it never ran.
    Denied,
    /// A person rejected it; it never ran.
    Rejected,
    /// Nobody answered in time; it never ran.
    Expired,
    /// The wait was cancelled; it never ran.
    Cancelled,
}

impl Status {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Executed => "executed",
            Status::Failed => "failed",
            Status::Denied => "denied",
            Status::Rejected => "rejected",
            Status::Expired => "expired",
            Status::Cancelled => "cancelled",
        }
    }
}

/// What the gate tells the caller, and through [`ToolResult::for_model`] the
/// model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// What became of the call.
    pub status: Status,
    /// The tool's output, when it ran and succeeded.
    pub output: Option<String>,
    /// The tool's error, when it ran and failed.
    pub error: Option<String>,
    /// Why it did not run (denied, rejected, expired, cancelled).
    pub reason: Option<String>,
    /// The person's message for the model, with a rejection.
    pub message: Option<String>,
    /// An instruction the person added: append it to the conversation as a user
    /// message.
    pub instruction: Option<String>,
    /// The policy's decision on the arguments that ran (or would have).
    pub decision: Decision,
    /// The arguments the tool received (`risk_level` stripped, edits applied).
    pub executed_args: Option<String>,
    /// The approval request's id, when a person was asked.
    pub approval_id: Option<String>,
    /// Set when the audit record could not be written; the result stands.
    pub audit_error: Option<String>,
}

impl ToolResult {
    /// The result as a tool-result message body for the model: JSON with
    /// `status` and the output, error or reason (and the person's message).
    pub fn for_model(&self) -> String {
        let mut out = serde_json::Map::new();
        out.insert("status".into(), self.status.as_str().into());
        for (key, value) in [
            ("output", &self.output),
            ("error", &self.error),
            ("reason", &self.reason),
            ("message", &self.message),
        ] {
            if let Some(value) = value {
                out.insert(key.into(), value.clone().into());
            }
        }
        serde_json::Value::Object(out).to_string()
    }
}

/// What the gate reports while it works.
#[derive(Debug, Clone, PartialEq, Eq)]
#[expect(
    clippy::large_enum_variant,
    reason = "events are rare (one per approval step); boxing would change the public API"
)]
pub enum Event {
    /// A person must answer this request.
    Requested(ApprovalRequest),
    /// The request was answered.
    Responded {
        /// The request.
        id: String,
        /// `approve`, `edit` or `reject`.
        answer: &'static str,
        /// Who answered.
        by: Option<String>,
    },
    /// The call is finished.
    Processed {
        /// The request (or none, for a call that needed no approval).
        id: Option<String>,
        /// The tool.
        tool: String,
        /// What became of it.
        status: Status,
    },
}

/// Why the gate could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// No pending request has this id.
    #[error("no pending approval `{0}`")]
    Unknown(String),
    /// The request was already answered (or cancelled): a second answer never
    /// causes a second execution.
    #[error("approval `{0}` was already answered")]
    AlreadyAnswered(String),
    /// The request expired before the answer came.
    #[error("approval `{0}` has expired")]
    Expired(String),
    /// Edited arguments that are not a JSON object.
    #[error("edited arguments refused: {0}")]
    InvalidEdit(String),
    /// A checkpoint could not be read: forged, changed, or not a checkpoint.
    #[error("checkpoint `{id}`: {source}")]
    Checkpoint {
        /// The approval id.
        id: String,
        /// Why.
        source: CheckpointError,
    },
    /// The checkpoint store failed, so the call was not run.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The gate has no usable key: none for a checkpoint store (without
    /// [`GateBuilder::unsigned`]), or one shorter than 16 bytes.
    #[error("{0}")]
    Key(String),
    /// The audit sink failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The policy refused an input or faulted.
    #[error(transparent)]
    Policy(#[from] Error),
}

type Listener = Arc<dyn Fn(&Event) + Send + Sync>;
type Approver = Arc<dyn Fn(ApprovalRequest) -> Response + Send + Sync>;

/// Settings for a [`Gate`].
pub struct GateBuilder {
    policy: Policy,
    config: String,
    timeout: Duration,
    tool_timeouts: HashMap<String, Duration>,
    shadow: bool,
    key: Option<Vec<u8>>,
    unsigned: bool,
    store: Arc<dyn CheckpointStore>,
    store_set: bool,
    identity: Option<String>,
    audit_required: bool,
    audit_key: Option<Vec<u8>>,
    sinks: Vec<Arc<dyn AuditSink>>,
    approver: Option<Approver>,
}

impl GateBuilder {
    /// The policy configuration (JSON; `{}` by default).
    pub fn config(mut self, config: impl Into<String>) -> Self {
        self.config = config.into();
        self
    }

    /// How long a person has to answer ([`DEFAULT_TIMEOUT`] by default).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// A different answer time for one tool.
    pub fn tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.tool_timeouts.insert(tool.into(), timeout);
        self
    }

    /// Shadow mode: never block, run every call, record what would have been
    /// decided. How a team rolls toolgate out without breaking its agents.
    pub fn shadow(mut self, on: bool) -> Self {
        self.shadow = on;
        self
    }

    /// Signs checkpoints with this key (HMAC-SHA-256, at least 16 bytes; make
    /// one with `head -c 32 /dev/urandom > key`) and refuses unsigned or
    /// forged ones. A shorter or empty key makes [`GateBuilder::build`] fail.
    pub fn key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Writes and reads checkpoints without a signature, on purpose: anyone
    /// who can write the store can then forge a pending approval. Without a
    /// key and without this, a gate given a [`GateBuilder::store`] is refused.
    pub fn unsigned(mut self) -> Self {
        self.unsigned = true;
        self
    }

    /// Where pending approvals are checkpointed ([`MemoryStore`] by default,
    /// which nobody outside the process can write, so it needs no key). A
    /// store given here needs a [`GateBuilder::key`] or
    /// [`GateBuilder::unsigned`].
    pub fn store(mut self, store: impl CheckpointStore + 'static) -> Self {
        self.store = Arc::new(store);
        self.store_set = true;
        self
    }

    /// Keys the audit chain: every record's `hash` is an HMAC under this key
    /// (at least 16 bytes), so nobody without it can rewrite the log and
    /// recompute the chain; `toolgate audit verify --key-file` checks it.
    pub fn audit_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.audit_key = Some(key.into());
        self
    }

    /// Fail closed: a call whose write-ahead audit record cannot be written
    /// is not run (it is `denied`, the reason says why). Off by default, when
    /// an audit failure is reported on the result and the call still runs.
    pub fn audit_required(mut self, on: bool) -> Self {
        self.audit_required = on;
        self
    }

    /// The gate's identity, bound into its checkpoints (a deployment's name;
    /// by default one made for this process).
    pub fn identity(mut self, name: impl Into<String>) -> Self {
        self.identity = Some(name.into());
        self
    }

    /// Adds an audit sink. The first sink's last line continues the chain.
    pub fn audit(mut self, sink: impl AuditSink + 'static) -> Self {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Answers every approval request with this function, called on a thread of
    /// its own (a dialog, a chat message, a test). Without it, answers come
    /// through [`Gate::respond`].
    pub fn approver(
        mut self,
        f: impl Fn(ApprovalRequest) -> Response + Send + Sync + 'static,
    ) -> Self {
        self.approver = Some(Arc::new(f));
        self
    }

    /// Makes the gate.
    pub fn build(self) -> Result<Gate, GateError> {
        match &self.key {
            Some(key) if key.len() < MIN_KEY_LEN => {
                return Err(GateError::Key(format!(
                    "the checkpoint key is {} bytes long; a key has at least {MIN_KEY_LEN} \
                     (make one with `head -c 32 /dev/urandom > key`)",
                    key.len()
                )));
            }
            _ if self
                .audit_key
                .as_ref()
                .is_some_and(|k| k.len() < MIN_KEY_LEN) =>
            {
                return Err(GateError::Key(String::from(
                    "the audit key has fewer than 16 bytes \
                     (make one with `head -c 32 /dev/urandom > key`)",
                )));
            }
            None if self.store_set && !self.unsigned => {
                return Err(GateError::Key(String::from(
                    "a gate with a checkpoint store needs a key (at least 16 bytes), \
                     or `unsigned` said explicitly",
                )));
            }
            _ => {}
        }
        let engine = self.policy.engine(&self.config)?;
        let version = self.policy.version()?;
        let config_hash = self.policy.config_hash(&self.config)?;
        let last = match self.sinks.first() {
            Some(sink) => sink.last()?,
            None => None,
        };
        let gap = self.sinks.first().and_then(|sink| sink.gap());
        let prefix = id_prefix();
        let gate = Gate {
            inner: Arc::new(Inner {
                policy: self.policy,
                engine,
                version,
                config_hash,
                identity: self.identity.unwrap_or_else(|| format!("tg-{prefix}")),
                audit_required: self.audit_required,
                audit_key: self.audit_key,
                timeout: self.timeout,
                tool_timeouts: self.tool_timeouts,
                shadow: self.shadow,
                key: self.key,
                store: self.store,
                sinks: self.sinks,
                approver: self.approver,
                listeners: Mutex::new(Vec::new()),
                chain: Mutex::new(last),
                waiting: Mutex::new(HashMap::new()),
                finished: Mutex::new(HashSet::new()),
                next_id: AtomicU64::new(0),
                id_prefix: prefix,
            }),
        };
        if let Some(gap) = gap {
            gate.record_gap(&gap)?;
        }
        Ok(gate)
    }
}

/// The shortest checkpoint key, in bytes.
pub const MIN_KEY_LEN: usize = 16;

/// A slot a waiting call sleeps on.
struct Slot {
    state: Mutex<SlotState>,
    ready: Condvar,
}

#[derive(Clone)]
enum SlotState {
    Waiting,
    Answered(Response),
    Cancelled,
}

struct Inner {
    policy: Policy,
    engine: Engine,
    version: String,
    config_hash: String,
    identity: String,
    audit_required: bool,
    audit_key: Option<Vec<u8>>,
    timeout: Duration,
    tool_timeouts: HashMap<String, Duration>,
    shadow: bool,
    key: Option<Vec<u8>>,
    store: Arc<dyn CheckpointStore>,
    sinks: Vec<Arc<dyn AuditSink>>,
    approver: Option<Approver>,
    listeners: Mutex<Vec<Listener>>,
    /// The last sealed audit line.
    chain: Mutex<Option<String>>,
    waiting: Mutex<HashMap<String, Arc<Slot>>>,
    /// Ids answered, expired or cancelled, so a late answer is told so.
    finished: Mutex<HashSet<String>>,
    next_id: AtomicU64,
    id_prefix: String,
}

/// The approval gate. Cheap to clone; clones share their pending approvals.
#[derive(Clone)]
pub struct Gate {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("shadow", &self.inner.shadow)
            .field("timeout", &self.inner.timeout)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A prefix that makes ids unique across processes and restarts.
fn id_prefix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:x}", nanos & 0xffff_ffff_ffff, std::process::id())
}

fn answer_name(answer: &Answer) -> &'static str {
    match answer {
        Answer::Approve => "approve",
        Answer::Edit(_) => "edit",
        Answer::Reject => "reject",
    }
}

/// How a confirmed call ended, before execution.
struct Approval {
    id: String,
    outcome: &'static str,
    response: Option<Response>,
    diff: Option<String>,
    answered_at: Option<u64>,
}

impl Approval {
    fn new(
        id: String,
        outcome: &'static str,
        response: Option<Response>,
        answered_at: Option<u64>,
    ) -> Approval {
        Approval {
            id,
            outcome,
            response,
            diff: None,
            answered_at,
        }
    }
}

impl Gate {
    /// Settings for a gate over `policy`.
    pub fn builder(policy: &Policy) -> GateBuilder {
        GateBuilder {
            policy: policy.clone(),
            config: String::from("{}"),
            timeout: DEFAULT_TIMEOUT,
            tool_timeouts: HashMap::new(),
            shadow: false,
            key: None,
            unsigned: false,
            store: Arc::new(MemoryStore::new()),
            store_set: false,
            identity: None,
            audit_required: false,
            audit_key: None,
            sinks: Vec::new(),
            approver: None,
        }
    }

    /// The policy engine the gate decides with (for building registry requests
    /// with the same configuration, see [`crate::api::ApiClient::executor`]).
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// Calls `f` with every event from now on.
    pub fn on_event(&self, f: impl Fn(&Event) + Send + Sync + 'static) {
        lock(&self.inner.listeners).push(Arc::new(f));
    }

    /// Every event from now on, on a channel.
    pub fn subscribe(&self) -> std::sync::mpsc::Receiver<Event> {
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        self.on_event(move |event| {
            let _ = lock(&tx).send(event.clone());
        });
        rx
    }

    fn emit(&self, event: &Event) {
        let listeners: Vec<Listener> = lock(&self.inner.listeners).clone();
        for listener in listeners {
            listener(event);
        }
    }

    /// Decides `call` and runs `execute` (given the arguments the tool must
    /// receive) if and when it may run. Blocks while a person decides.
    /// Errors only when the checkpoint of a pending approval cannot be written
    /// (the call is then not run).
    pub fn run(
        &self,
        call: &Call,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        let decision = self.decide(call);
        if self.inner.shadow {
            let args = self.stripped(&call.args);
            return Ok(self.execute(call, decision, None, &args, execute));
        }
        match decision.action {
            Action::Deny => Ok(self.refuse(call, decision, None, Status::Denied)),
            Action::Allow => {
                let args = self.stripped(&call.args);
                Ok(self.execute(call, decision, None, &args, execute))
            }
            Action::Confirm => {
                let now = now_ms();
                let timeout = self
                    .inner
                    .tool_timeouts
                    .get(&call.tool)
                    .copied()
                    .unwrap_or(self.inner.timeout);
                let id = format!(
                    "tg-{}-{}",
                    self.inner.id_prefix,
                    self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1
                );
                let request = ApprovalRequest {
                    id,
                    session_id: call.session_id.clone(),
                    user_id: call.user_id.clone(),
                    tool: call.tool.clone(),
                    description: call.description.clone(),
                    args: call.args.clone(),
                    call_id: call.call_id.clone(),
                    decision,
                    requested_at: now,
                    deadline: now
                        .saturating_add(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)),
                    context: call.context.clone(),
                    config_hash: self.inner.config_hash.clone(),
                    gate: self.inner.identity.clone(),
                };
                let pending = serde_json::to_string(&request)
                    .map_err(|e| GateError::InvalidEdit(e.to_string()))?;
                let checkpoint = self
                    .inner
                    .policy
                    .seal_checkpoint(&pending, self.inner.key.as_deref())
                    .map_err(|source| GateError::Checkpoint {
                        id: request.id.clone(),
                        source,
                    })?;
                self.inner.store.put(&request.id, &checkpoint)?;
                self.wait_and_finish(call.clone(), request, execute)
            }
        }
    }

    /// The pending approvals in the store (after a restart: the ones an earlier
    /// process left), each opened and checked; a forged or unreadable checkpoint
    /// is an error in the list, never a request.
    pub fn pending(&self) -> Result<Vec<Result<ApprovalRequest, GateError>>, GateError> {
        Ok(self
            .inner
            .store
            .list()?
            .into_iter()
            .map(|(id, text)| self.open(&id, &text))
            .collect())
    }

    fn open(&self, id: &str, text: &str) -> Result<ApprovalRequest, GateError> {
        let pending = self
            .inner
            .policy
            .open_checkpoint(text, self.inner.key.as_deref())
            .map_err(|source| GateError::Checkpoint {
                id: id.to_owned(),
                source,
            })?;
        let request: ApprovalRequest =
            serde_json::from_str(&pending).map_err(|e| GateError::Checkpoint {
                id: id.to_owned(),
                source: CheckpointError::Invalid(e.to_string()),
            })?;
        if request.id != id {
            return Err(GateError::Checkpoint {
                id: id.to_owned(),
                source: CheckpointError::Invalid(format!(
                    "it is stored as `{id}` but names `{}`",
                    request.id
                )),
            });
        }
        Ok(request)
    }

    /// Resumes a pending approval from the store (written by this or an earlier
    /// process, in either host): emits [`Event::Requested`] again, waits for the
    /// answer until the original deadline, and finishes the call as
    /// [`Gate::run`] would. An expired one is closed without running.
    pub fn resume(
        &self,
        id: &str,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        if lock(&self.inner.waiting).contains_key(id) {
            return Err(GateError::AlreadyAnswered(id.to_owned()));
        }
        let text = self
            .inner
            .store
            .get(id)?
            .ok_or_else(|| GateError::Unknown(id.to_owned()))?;
        let request = self.open(id, &text)?;
        let call = Call {
            tool: request.tool.clone(),
            args: request.args.clone(),
            call_id: request.call_id.clone(),
            description: request.description.clone(),
            session_id: request.session_id.clone(),
            user_id: request.user_id.clone(),
            context: request.context.clone(),
        };
        self.wait_and_finish(call, request, execute)
    }

    /// Cleans the store: every pending approval past its deadline that no
    /// call of this gate waits for is closed as `expired` (claimed, removed,
    /// audited; never run), and tombstones past their deadline are removed.
    /// Checkpoints that cannot be opened (forged, unreadable) are left for a
    /// person to look at. Returns how many approvals were closed.
    pub fn sweep(&self) -> Result<usize, GateError> {
        let now = now_ms();
        let mut closed = 0;
        for (id, text) in self.inner.store.list()? {
            let Ok(request) = self.open(&id, &text) else {
                continue;
            };
            if request.deadline > now || lock(&self.inner.waiting).contains_key(&id) {
                continue;
            }
            let claimed = self.inner.store.claim(&id, request.deadline)?;
            self.inner.store.remove(&id)?;
            if claimed {
                closed += 1;
                let call = Call {
                    tool: request.tool.clone(),
                    args: request.args.clone(),
                    call_id: request.call_id.clone(),
                    description: request.description.clone(),
                    session_id: request.session_id.clone(),
                    user_id: request.user_id.clone(),
                    context: request.context.clone(),
                };
                let approval = Approval::new(id, "expired", None, None);
                self.refuse(&call, request.decision, Some(approval), Status::Expired);
            }
        }
        self.inner.store.sweep(now)?;
        Ok(closed)
    }

    /// Answers a pending approval. Edited arguments must be a JSON object. An
    /// unknown, expired or already answered request is an error, and never a
    /// second execution.
    pub fn respond(&self, id: &str, response: Response) -> Result<(), GateError> {
        if let Answer::Edit(args) = &response.answer {
            self.inner
                .policy
                .strip_risk_level(args)
                .map_err(|e| GateError::InvalidEdit(e.to_string()))?;
        }
        self.settle(id, SlotState::Answered(response))
    }

    /// Cancels a pending approval: the call is not run and the model is told.
    pub fn cancel(&self, id: &str) -> Result<(), GateError> {
        self.settle(id, SlotState::Cancelled)
    }

    fn settle(&self, id: &str, to: SlotState) -> Result<(), GateError> {
        let slot = lock(&self.inner.waiting).get(id).cloned();
        let Some(slot) = slot else {
            return Err(if lock(&self.inner.finished).contains(id) {
                GateError::AlreadyAnswered(id.to_owned())
            } else {
                GateError::Unknown(id.to_owned())
            });
        };
        let mut state = lock(&slot.state);
        if !matches!(*state, SlotState::Waiting) {
            return Err(GateError::AlreadyAnswered(id.to_owned()));
        }
        *state = to;
        slot.ready.notify_all();
        Ok(())
    }

    fn wait_and_finish(
        &self,
        call: Call,
        request: ApprovalRequest,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        let id = request.id.clone();
        let slot = Arc::new(Slot {
            state: Mutex::new(SlotState::Waiting),
            ready: Condvar::new(),
        });
        lock(&self.inner.waiting).insert(id.clone(), Arc::clone(&slot));
        self.emit(&Event::Requested(request.clone()));
        if let Some(approver) = self.inner.approver.clone() {
            let gate = self.clone();
            let request = request.clone();
            let spawned = std::thread::Builder::new()
                .name(String::from("toolgate-approver"))
                .spawn(move || {
                    let id = request.id.clone();
                    let response = approver(request);
                    // Late or refused answers change nothing: the wait has ended.
                    let _ = gate.respond(&id, response);
                });
            drop(spawned);
        }
        // Wait until answered, cancelled or past the deadline.
        let state = {
            let mut state = lock(&slot.state);
            loop {
                if !matches!(*state, SlotState::Waiting) {
                    break state.clone();
                }
                let now = now_ms();
                if now >= request.deadline {
                    break SlotState::Waiting;
                }
                let left = Duration::from_millis(request.deadline - now);
                state = slot
                    .ready
                    .wait_timeout(state, left)
                    .map(|(guard, _)| guard)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
        };
        // Close the slot first, so no answer can land after this point.
        lock(&self.inner.waiting).remove(&id);
        lock(&self.inner.finished).insert(id.clone());
        // The deadline is checked when the answer is taken, not only while
        // waiting: an answer that comes at once after the deadline (a resume
        // of an expired approval, a zero timeout) is too late all the same.
        let now = now_ms();
        let state = match state {
            SlotState::Answered(_) if now >= request.deadline => SlotState::Waiting,
            other => other,
        };
        // Claim the approval in the store before anything runs: of every gate
        // and process answering it, exactly one wins; the claim stays as a
        // tombstone, so a checkpoint put back later cannot run again. A claim
        // or removal that fails runs nothing.
        if !self.inner.store.claim(&id, request.deadline)? {
            return Err(GateError::AlreadyAnswered(id));
        }
        self.inner.store.remove(&id)?;
        let answered_at = Some(now);
        let decision = request.decision.clone();
        Ok(match state {
            SlotState::Waiting => {
                let approval = Approval::new(id, "expired", None, None);
                self.refuse(&call, decision, Some(approval), Status::Expired)
            }
            SlotState::Cancelled => {
                let approval = Approval::new(id, "cancelled", None, answered_at);
                self.refuse(&call, decision, Some(approval), Status::Cancelled)
            }
            SlotState::Answered(response) => {
                self.emit(&Event::Responded {
                    id: id.clone(),
                    answer: answer_name(&response.answer),
                    by: response.by.clone(),
                });
                match response.answer.clone() {
                    Answer::Reject => {
                        let approval = Approval::new(id, "rejected", Some(response), answered_at);
                        self.refuse(&call, decision, Some(approval), Status::Rejected)
                    }
                    Answer::Approve => {
                        let approval = Approval::new(id, "approved", Some(response), answered_at);
                        // Decided again under the current configuration: the
                        // answer covers only what the person was shown.
                        let current = self.decide(&call);
                        match self.recheck(&decision, &current) {
                            Recheck::Denied => {
                                self.refuse(&call, current, Some(approval), Status::Denied)
                            }
                            Recheck::Changed => self.refuse_because(
                                &call,
                                current,
                                Some(approval),
                                Status::Denied,
                                String::from(
                                    "the policy's decision on this call changed after it was \
                                     approved; the approval is void, ask again",
                                ),
                            ),
                            Recheck::Stands => {
                                match self.inner.policy.strip_risk_level(&call.args) {
                                    Ok(args) => self.execute(
                                        &call,
                                        decision,
                                        Some(approval),
                                        &args,
                                        execute,
                                    ),
                                    // Only one clean object reaches a tool: what
                                    // the dialog showed is what runs.
                                    Err(e) => self.refuse_because(
                                        &call,
                                        decision,
                                        Some(approval),
                                        Status::Denied,
                                        format!(
                                            "the arguments are not one clean JSON object ({e}); \
                                             the call was not run"
                                        ),
                                    ),
                                }
                            }
                        }
                    }
                    Answer::Edit(edited) => {
                        let mut approval = Approval::new(id, "edited", Some(response), answered_at);
                        approval.diff = self.inner.policy.args_diff(&call.args, &edited).ok();
                        // The edit is decided afresh: a person may approve what
                        // needs confirmation, never what is configured off.
                        let edited_call = Call {
                            args: edited,
                            ..call
                        };
                        let redecided = self.decide(&edited_call);
                        if redecided.action == Action::Deny {
                            self.refuse(&edited_call, redecided, Some(approval), Status::Denied)
                        } else {
                            let args = self.stripped(&edited_call.args);
                            self.execute(&edited_call, redecided, Some(approval), &args, execute)
                        }
                    }
                }
            }
        })
    }

    /// Whether the answer to `sealed` covers `current`; a recheck the
    /// component cannot make voids the approval.
    fn recheck(&self, sealed: &Decision, current: &Decision) -> Recheck {
        let sealed = serde_json::to_string(sealed);
        let current = serde_json::to_string(current);
        match (sealed, current) {
            (Ok(sealed), Ok(current)) => self
                .inner
                .policy
                .recheck(&sealed, &current)
                .unwrap_or(Recheck::Changed),
            _ => Recheck::Changed,
        }
    }

    /// Records that the first audit sink was found torn and repaired.
    fn record_gap(&self, gap: &str) -> Result<(), GateError> {
        let entry = serde_json::json!({
            "time": now_ms(),
            "tool": "toolgate.audit",
            "parameters": gap,
            "decision": {
                "action": "allow",
                "risk": "low",
                "source": "default",
                "findings": ["audit.gap"],
                "policy_version": self.inner.version,
            },
            "shadow": self.inner.shadow,
            "status": "gap",
            "success": false,
        });
        self.append(&entry)
            .map_err(|e| GateError::Sink(SinkError::Io(std::io::Error::other(e))))
    }

    /// The policy's decision on a call, in its context if it has one.
    fn decide(&self, call: &Call) -> Decision {
        match &call.context {
            Some(context) => self.inner.engine.assess_in(&call.tool, &call.args, context),
            None => self.inner.engine.assess(&call.tool, &call.args),
        }
    }

    /// The arguments a tool receives. Arguments that are not an object are
    /// passed through as they are (the policy confirmed them; the person saw them).
    fn stripped(&self, args: &str) -> String {
        self.inner
            .policy
            .strip_risk_level(args)
            .unwrap_or_else(|_| args.to_owned())
    }

    fn execute(
        &self,
        call: &Call,
        decision: Decision,
        approval: Option<Approval>,
        args: &str,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> ToolResult {
        // Write-ahead: a crash while the tool runs still leaves a record.
        let ahead = ToolResult {
            status: Status::Executed,
            output: None,
            error: None,
            reason: None,
            message: None,
            instruction: None,
            decision: decision.clone(),
            executed_args: Some(args.to_owned()),
            approval_id: approval.as_ref().map(|a| a.id.clone()),
            audit_error: None,
        };
        let ahead_error = self
            .record(call, &ahead, approval.as_ref(), args, 0, Some("executing"))
            .err();
        if let Some(error) = ahead_error.as_ref().filter(|_| self.inner.audit_required) {
            let reason = format!(
                "the audit record could not be written ({error}), and this gate runs nothing \
                 it cannot record; the call was not run"
            );
            let mut result = self.refuse_because(call, decision, approval, Status::Denied, reason);
            result.audit_error = Some(error.clone());
            return result;
        }
        let started = std::time::Instant::now();
        let outcome = execute(args);
        let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (status, output, error) = match outcome {
            Ok(output) => (Status::Executed, Some(output), None),
            Err(error) => (Status::Failed, None, Some(error)),
        };
        let mut result = ToolResult {
            status,
            output,
            error,
            reason: None,
            message: None,
            instruction: approval
                .as_ref()
                .and_then(|a| a.response.as_ref())
                .and_then(|r| r.instruction.clone()),
            decision,
            executed_args: Some(args.to_owned()),
            approval_id: approval.as_ref().map(|a| a.id.clone()),
            audit_error: None,
        };
        result.audit_error = self
            .record(call, &result, approval.as_ref(), args, elapsed, None)
            .err()
            .or(ahead_error);
        self.emit(&Event::Processed {
            id: result.approval_id.clone(),
            tool: call.tool.clone(),
            status: result.status,
        });
        result
    }

    fn refuse(
        &self,
        call: &Call,
        decision: Decision,
        approval: Option<Approval>,
        status: Status,
    ) -> ToolResult {
        let reason = match status {
            Status::Denied => format!("the call was denied: {}", decision.summary),
            Status::Rejected => String::from("the user rejected this call; it was not run"),
            Status::Expired => String::from("no one approved this call in time; it was not run"),
            _ => String::from("the approval was cancelled; the call was not run"),
        };
        self.refuse_because(call, decision, approval, status, reason)
    }

    fn refuse_because(
        &self,
        call: &Call,
        decision: Decision,
        approval: Option<Approval>,
        status: Status,
        reason: String,
    ) -> ToolResult {
        let response = approval.as_ref().and_then(|a| a.response.as_ref());
        let mut result = ToolResult {
            status,
            output: None,
            error: None,
            reason: Some(reason),
            message: response.and_then(|r| r.message.clone()),
            instruction: response.and_then(|r| r.instruction.clone()),
            decision,
            executed_args: None,
            approval_id: approval.as_ref().map(|a| a.id.clone()),
            audit_error: None,
        };
        result.audit_error = self
            .record(call, &result, approval.as_ref(), &call.args, 0, None)
            .err();
        self.emit(&Event::Processed {
            id: result.approval_id.clone(),
            tool: call.tool.clone(),
            status,
        });
        result
    }

    /// Writes the audit record of a finished call to every sink.
    fn record(
        &self,
        call: &Call,
        result: &ToolResult,
        approval: Option<&Approval>,
        parameters: &str,
        elapsed_ms: u64,
        status: Option<&str>,
    ) -> Result<(), String> {
        if self.inner.sinks.is_empty() {
            return Ok(());
        }
        let approval = approval.map(|a| {
            let response = a.response.as_ref();
            let diff: serde_json::Value = a
                .diff
                .as_deref()
                .and_then(|d| serde_json::from_str(d).ok())
                .unwrap_or_else(|| serde_json::json!([]));
            serde_json::json!({
                "id": a.id,
                "outcome": a.outcome,
                "by": response.and_then(|r| r.by.clone()),
                "message": response.and_then(|r| r.message.clone()),
                "instruction": response.and_then(|r| r.instruction.clone()),
                "diff": diff,
                "answered_at": a.answered_at,
            })
        });
        let entry = serde_json::json!({
            "time": now_ms(),
            "session_id": call.session_id,
            "user_id": call.user_id,
            "tool": call.tool,
            "call_id": call.call_id,
            "parameters": parameters,
            "decision": {
                "action": result.decision.action,
                "risk": result.decision.risk,
                "source": result.decision.source,
                "findings": result.decision.findings.iter().map(|f| f.code.clone()).collect::<Vec<_>>(),
                "policy_version": self.inner.version,
            },
            "approval": approval,
            "shadow": self.inner.shadow,
            "status": status.unwrap_or(result.status.as_str()),
            "success": status.is_none() && result.status == Status::Executed,
            "result": result.output,
            "error": result.error,
            "execution_time_ms": elapsed_ms,
        });
        self.append(&entry)
    }

    /// Seals `entry` after the chain's last line and writes it to every sink.
    fn append(&self, entry: &serde_json::Value) -> Result<(), String> {
        let mut chain = lock(&self.inner.chain);
        let text = entry.to_string();
        let seal = |previous: Option<&str>| {
            match &self.inner.audit_key {
                Some(key) => self.inner.policy.seal_audit_keyed(&text, previous, key),
                None => self.inner.policy.seal_audit(&text, previous),
            }
            .map_err(|e| e.to_string())
        };
        // The first sink, when it can, seals under its own lock from its own
        // last line: one writer per chain, whatever else writes the log.
        if let Some(primary) = self.inner.sinks.first() {
            if let Some(sealed) = primary.append_sealed(&seal) {
                let line = sealed?;
                for sink in self.inner.sinks.iter().skip(1) {
                    sink.append(&line).map_err(|e| e.to_string())?;
                }
                *chain = Some(line);
                return Ok(());
            }
        }
        let line = seal(chain.as_deref())?;
        for sink in &self.inner.sinks {
            sink.append(&line).map_err(|e| e.to_string())?;
        }
        *chain = Some(line);
        Ok(())
    }
}
