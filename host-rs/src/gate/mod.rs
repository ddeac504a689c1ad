//! The approval gate: a thin shell over the component's approval flow (see
//! [`crate::flow`]). The flow decides and formats everything (the decision,
//! the pending approval and its sealed checkpoint, what an answer allows, the
//! result for the model, every audit line); this shell keeps what the
//! component cannot: ids, the clock, waiting (threads and condition
//! variables), the checkpoint store (an approval is claimed before anything
//! runs, exactly once, and leaves a tombstone), the audit sinks (one writer
//! per chain), events and running the tool.
//!
//! A confirmed call crosses into the component three times: `begin` (the
//! decision, the pending approval and its checkpoint), `settle` (the answer:
//! the deadline, a decision again under the current configuration, an edit
//! decided afresh) and `finish` (the outcome). An allowed call crosses twice,
//! a denied one once.
//!
//! Two ways to drive it:
//!
//! - [`Gate::run`] blocks its thread while a person decides; answers come from
//!   any other thread through [`Gate::respond`] (or the configured approver).
//! - [`Gate::check`] and [`Gate::settle`], for agent frameworks that keep the
//!   pending state themselves (an approval part in a message, an interrupted
//!   run): check now, settle later, in this process or another sharing the
//!   store. [`Gate::run`] is built on the same steps.
//!
//! ```
//! use toolgate::{Call, Checked, Gate, Policy, Response, Status};
//!
//! let policy = Policy::embedded()?;
//! let gate = Gate::builder(&policy).build()?;
//! let call = Call::new("execute_sql", r#"{"sql": "DELETE FROM sessions WHERE expired"}"#);
//! let id = match gate.check(&call)? {
//!     // Allowed: run it now; the gate records the outcome.
//!     Checked::Run(ready) => {
//!         gate.execute(ready, |args| Ok(format!("ran {args}")))?;
//!         return Ok(());
//!     }
//!     // Denied: tell the model (`result.for_model`).
//!     Checked::Done(result) => {
//!         println!("{}", result.for_model);
//!         return Ok(());
//!     }
//!     // A person must answer; the framework keeps `pending.id` with its state.
//!     Checked::Ask(pending) => pending.id,
//! };
//! // ... later, when the person has answered:
//! let result = gate.settle(&id, Response::approve().by("alice"), |args| Ok(format!("ran {args}")))?;
//! assert_eq!(result.status, Status::Executed);
//! // A second answer never runs it again.
//! assert!(gate.settle(&id, Response::approve(), |_| Ok(String::new())).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod audit;
#[cfg(feature = "postgres")]
pub mod postgres;
mod steps;
pub mod store;

use crate::decision::Decision;
use crate::flow::{Flow, StepError};
use crate::records::CheckpointError;
use crate::runtime::{Engine, Error, Policy};
use audit::{AuditSink, SinkError};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use store::{CheckpointStore, MemoryStore, StoreError};
use toolgate_shapes::gate::{AnswerKind, GateCall, GateSettings};
pub use toolgate_shapes::gate::{Event, ToolResult};
pub use toolgate_shapes::grants::{Grant, Remember, Scope};
pub use toolgate_shapes::records::{Pending, Status};
pub use toolgate_shapes::rules::{Effect, Rule};

/// The default time a person has to answer (seed 004: 30 s).
pub const DEFAULT_TIMEOUT: Duration =
    Duration::from_millis(toolgate_shapes::gate::DEFAULT_TIMEOUT_MS);

/// The shortest key, in bytes.
pub const MIN_KEY_LEN: usize = 16;

/// A pending approval, as shown to a person (the component's record).
pub type ApprovalRequest = Pending;

/// [`ToolResult::for_model`] as a method, as callers of earlier versions
/// wrote it: the result as a tool-result message body for the model.
pub trait ForModel {
    /// The text for the model.
    fn for_model(&self) -> &str;
}

impl ForModel for ToolResult {
    fn for_model(&self) -> &str {
        &self.for_model
    }
}

/// A tool call to run through the gate: the component's [`GateCall`] with
/// builder methods (its fields read through `Deref`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Call(pub GateCall);

impl Call {
    /// A call of `tool` with `args`.
    pub fn new(tool: impl Into<String>, args: impl Into<String>) -> Call {
        Call(GateCall {
            tool: tool.into(),
            args: args.into(),
            ..GateCall::default()
        })
    }

    /// Sets the call id.
    pub fn call_id(mut self, id: impl Into<String>) -> Call {
        self.0.call_id = Some(id.into());
        self
    }

    /// Sets the tool description.
    pub fn description(mut self, text: impl Into<String>) -> Call {
        self.0.description = text.into();
        self
    }

    /// Sets the session and user, for the audit.
    pub fn on_behalf_of(mut self, session: impl Into<String>, user: impl Into<String>) -> Call {
        self.0.session_id = Some(session.into());
        self.0.user_id = Some(user.into());
        self
    }

    /// Sets the caller's context (JSON).
    pub fn context(mut self, context: impl Into<String>) -> Call {
        self.0.context = Some(context.into());
        self
    }
}

impl std::ops::Deref for Call {
    type Target = GateCall;
    fn deref(&self) -> &GateCall {
        &self.0
    }
}

impl std::ops::DerefMut for Call {
    fn deref_mut(&mut self) -> &mut GateCall {
        &mut self.0
    }
}

impl From<GateCall> for Call {
    fn from(call: GateCall) -> Call {
        Call(call)
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
    /// With an approval: remember it for the session or always.
    pub remember: Option<Remember>,
}

/// A grant as [`Gate::grants`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantListing {
    /// The grant's id, as the store or the session keeps it.
    pub id: String,
    /// The grant, when it opens (signed with this gate's key, not expired).
    pub grant: Option<Grant>,
    /// Why it does not apply (its finding code first), when it does not open.
    pub refused: Option<String>,
}

impl Response {
    /// Approve as proposed.
    pub fn approve() -> Response {
        Response {
            answer: Answer::Approve,
            message: None,
            instruction: None,
            by: None,
            remember: None,
        }
    }

    /// Approve, and remember it in `scope` (session, project or user) with
    /// the rules the request proposed.
    pub fn approve_remembered(scope: Scope) -> Response {
        Response {
            remember: Some(Remember {
                scope,
                rules: None,
                expires_at: None,
            }),
            ..Response::approve()
        }
    }

    /// Grants these (narrower) rules instead of the proposed ones; the gate
    /// refuses the answer unless they name the call's tool exactly and still
    /// cover the approved call.
    pub fn with_rules(mut self, rules: Vec<Rule>) -> Response {
        if let Some(remember) = &mut self.remember {
            remember.rules = Some(rules);
        }
        self
    }

    /// Lets the grant expire at `at` (ms since the Unix epoch).
    pub fn expiring_at(mut self, at: u64) -> Response {
        if let Some(remember) = &mut self.remember {
            remember.expires_at = Some(at);
        }
        self
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

    /// The answer as the flow takes it.
    fn to_answer(&self) -> toolgate_shapes::gate::Answer {
        let (answer, args) = match &self.answer {
            Answer::Approve => (AnswerKind::Approve, None),
            Answer::Edit(args) => (AnswerKind::Edit, Some(args.clone())),
            Answer::Reject => (AnswerKind::Reject, None),
        };
        toolgate_shapes::gate::Answer {
            answer,
            args,
            message: self.message.clone(),
            instruction: self.instruction.clone(),
            by: self.by.clone(),
            remember: self.remember.clone(),
        }
    }
}

/// An answer that is no person's: the wait was cancelled or ended.
fn no_answer(kind: AnswerKind) -> toolgate_shapes::gate::Answer {
    toolgate_shapes::gate::Answer {
        answer: kind,
        args: None,
        message: None,
        instruction: None,
        by: None,
        remember: None,
    }
}

/// Why the gate could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// No pending request has this id.
    #[error("no pending approval `{0}`")]
    Unknown(String),
    /// The request was already answered (or cancelled, or claimed by another
    /// gate): a second answer never causes a second execution.
    #[error("approval `{0}` was already answered")]
    AlreadyAnswered(String),
    /// The answer (or cancel) came at or after the approval's deadline: the
    /// wait ended there as expired and nothing runs. The other hosts give
    /// this as their `already-answered` error with the same message; an
    /// answer counts by the time it is given, not by when the waiting call
    /// wakes.
    #[error("approval `{0}` expired at its deadline before the answer came")]
    Expired(String),
    /// A call of this gate is waiting for this approval ([`Gate::run`] or
    /// [`Gate::resume`]): answer it with [`Gate::respond`].
    #[error("approval `{0}` is waited for by a running call; answer it with `respond`")]
    Waiting(String),
    /// The answer was refused (edited arguments that are not one clean JSON
    /// object, an answer of the wrong shape); the request stays pending.
    #[error("{0}")]
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

impl GateError {
    /// Whether the approval is over (claimed elsewhere, or the store failed
    /// around the claim): nothing runs and the wait ends. Other errors leave
    /// it pending.
    fn ends_wait(&self) -> bool {
        matches!(
            self,
            GateError::AlreadyAnswered(_) | GateError::Expired(_) | GateError::Store(_)
        )
    }

    /// The same error again, for the second party to an ending (the one who
    /// answered and the call that waited each get one).
    fn twin(&self) -> GateError {
        match self {
            GateError::AlreadyAnswered(id) => GateError::AlreadyAnswered(id.clone()),
            GateError::Expired(id) => GateError::Expired(id.clone()),
            other => GateError::Store(StoreError::Io(std::io::Error::other(other.to_string()))),
        }
    }
}

type Listener = Arc<dyn Fn(&Event) + Send + Sync>;
type Approver = Arc<dyn Fn(ApprovalRequest) -> Response + Send + Sync>;

/// Settings for a [`Gate`].
pub struct GateBuilder {
    policy: Policy,
    config: String,
    timeout: Option<Duration>,
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
    warn_before: Option<Duration>,
}

impl GateBuilder {
    /// Reports [`Event::Expiring`] this long before an unanswered approval's
    /// deadline (once per wait), so a dialog can say time is running out.
    pub fn warn_before(mut self, before: Duration) -> Self {
        self.warn_before = Some(before);
        self
    }

    /// The policy configuration (JSON; `{}` by default).
    pub fn config(mut self, config: impl Into<String>) -> Self {
        self.config = config.into();
        self
    }

    /// How long a person has to answer (by default the configuration's
    /// `approval_timeout_ms`, seed 004's `approvalTimeout`, else
    /// [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
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
    /// Without it, a gate with a [`GateBuilder::key`] keys its chain with
    /// that key; only a gate with neither writes an unkeyed chain.
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
        if self.key.is_none() && self.store_set && !self.unsigned {
            return Err(GateError::Key(String::from(
                "a gate with a checkpoint store needs a key (at least 16 bytes), \
                 or `unsigned` said explicitly",
            )));
        }
        // The engine (for registry requests with the same configuration)
        // refuses a bad configuration first, naming the field.
        let engine = self.policy.engine(&self.config)?;
        let prefix = id_prefix();
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let settings = GateSettings {
            identity: self.identity.unwrap_or_else(|| format!("tg-{prefix}")),
            timeout_ms: self.timeout.map(ms),
            tool_timeouts: self
                .tool_timeouts
                .iter()
                .map(|(tool, t)| (tool.clone(), ms(*t)))
                .collect::<BTreeMap<_, _>>(),
            shadow: self.shadow,
            audit: !self.sinks.is_empty(),
            audit_required: self.audit_required,
        };
        let text = serde_json::to_string(&settings)
            .map_err(|e| GateError::Policy(Error::Rejected(e.to_string())))?;
        // The configuration was accepted above and the settings are ours, so
        // what the flow refuses is a key.
        let flow = self
            .policy
            .flow(
                &self.config,
                &text,
                self.key.as_deref(),
                // The checkpoint key keys the chain too when no audit key is
                // given: an unkeyed chain can be recomputed by anyone who
                // erases a record.
                self.audit_key.as_deref().or(self.key.as_deref()),
            )
            .map_err(|e| match e {
                Error::Rejected(message) => GateError::Key(message),
                other => GateError::Policy(other),
            })?;
        let last = match self.sinks.first() {
            Some(sink) => sink.last()?,
            None => None,
        };
        let gap = self.sinks.first().and_then(|sink| sink.gap());
        let gate = Gate {
            inner: Arc::new(Inner {
                flow,
                engine,
                settings,
                store: self.store,
                sinks: self.sinks,
                approver: self.approver,
                listeners: Mutex::new(Vec::new()),
                chain: Mutex::new(last),
                waiting: Mutex::new(HashMap::new()),
                finished: Mutex::new(HashSet::new()),
                checked: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(0),
                id_prefix: prefix,
                session: MemoryStore::new(),
                warn_before_ms: self.warn_before.map(ms),
            }),
        };
        if let Some(gap) = gap {
            gate.drive(&serde_json::json!({"op": "gap", "what": gap}), None)?;
        }
        Ok(gate)
    }
}

/// A call cleared to run: the arguments the tool receives and the ticket
/// that records its outcome (its write-ahead audit record is written). Run it
/// with [`Gate::execute`].
#[derive(Debug)]
pub struct Ready {
    /// The decision it runs under.
    pub decision: Decision,
    /// The arguments the tool receives (`risk_level` stripped, edits applied).
    pub args: String,
    /// The approval's id, when a person was asked.
    pub approval_id: Option<String>,
    /// The component's record of the call cleared to run, handed back
    /// whole to `execute`.
    ready: serde_json::Value,
}

impl Ready {
    fn read(ready: serde_json::Value) -> Result<Ready, GateError> {
        Ok(Ready {
            decision: read_value(ready.get("decision"))?,
            args: read_value(ready.get("args"))?,
            approval_id: read_value(ready.get("approval_id"))?,
            ready,
        })
    }
}

/// What [`Gate::check`] found.
#[derive(Debug)]
pub enum Checked {
    /// The call may run now: run it with [`Gate::execute`].
    Run(Ready),
    /// A person must answer: the approval is checkpointed in the store;
    /// answer it with [`Gate::settle`] (here, or in any gate sharing the
    /// store and key).
    Ask(Box<Pending>),
    /// The call never runs: hand the result (`for_model`) to the model.
    Done(Box<ToolResult>),
}

impl Checked {
    /// The policy's decision on the call.
    pub fn decision(&self) -> &Decision {
        match self {
            Checked::Run(ready) => &ready.decision,
            Checked::Ask(pending) => &pending.decision,
            Checked::Done(result) => &result.decision,
        }
    }
}

/// Where a step leaves a call.
enum Outcome {
    /// Run the tool, then finish.
    Run(Ready),
    /// Finished; report the events.
    Done(Box<ToolResult>, Vec<Event>),
}

/// A slot a waiting call sleeps on.
struct Slot {
    state: Mutex<SlotState>,
    ready: Condvar,
    deadline: u64,
    checkpoint: String,
}

enum SlotState {
    Waiting,
    /// Settled by whoever answered (or by the waiter at the deadline); the
    /// waiter takes it.
    Settled(Result<Outcome, GateError>),
    Taken,
}

struct Inner {
    flow: Flow,
    engine: Engine,
    settings: GateSettings,
    store: Arc<dyn CheckpointStore>,
    sinks: Vec<Arc<dyn AuditSink>>,
    approver: Option<Approver>,
    listeners: Mutex<Vec<Listener>>,
    /// The last audit line written (the chain's lock: every step that may
    /// write one is taken under it).
    chain: Mutex<Option<String>>,
    waiting: Mutex<HashMap<String, Arc<Slot>>>,
    /// Ids answered, expired or cancelled, so a late answer is told so.
    finished: Mutex<HashSet<String>>,
    /// The deadlines of approvals [`Gate::check`] left for [`Gate::settle`].
    checked: Mutex<HashMap<String, u64>>,
    next_id: AtomicU64,
    id_prefix: String,
    /// The gate's own memory, in the store's key layout: the grants given
    /// "for this session" and the ids of the grants this gate revoked.
    session: MemoryStore,
    /// How long before a deadline a waiting call reports [`Event::Expiring`], in ms.
    warn_before_ms: Option<u64>,
}

/// The approval gate. Cheap to clone; clones share their pending approvals.
#[derive(Clone)]
pub struct Gate {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("identity", &self.inner.settings.identity)
            .field("shadow", &self.inner.settings.shadow)
            .field("timeout_ms", &self.inner.settings.timeout_ms)
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

/// `n` random bytes, hex: from the kernel's CSPRNG (`/dev/urandom`); where
/// there is none, from the standard library's randomly keyed hasher (seeded
/// by the operating system's random source).
pub(crate) fn random_hex(n: usize) -> String {
    use std::io::Read;
    let mut bytes = vec![0u8; n];
    let drawn = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if drawn.is_err() {
        use std::hash::{BuildHasher, Hasher};
        for chunk in bytes.chunks_mut(8) {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u128(
                std::time::SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0),
            );
            for (b, r) in chunk.iter_mut().zip(hasher.finish().to_le_bytes()) {
                *b = r;
            }
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A prefix that makes ids unique across processes and restarts.
fn id_prefix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:x}", nanos & 0xffff_ffff_ffff, std::process::id())
}

/// A field of a component's value, read as `T`.
fn read_value<T: serde::de::DeserializeOwned>(
    value: Option<&serde_json::Value>,
) -> Result<T, GateError> {
    serde_json::from_value(value.cloned().unwrap_or_default()).map_err(|e| {
        GateError::Policy(Error::Fault(format!(
            "the component's value does not read: {e}"
        )))
    })
}

/// A count in an operation's value.
fn count(value: &serde_json::Value, name: &str) -> usize {
    value
        .get(name)
        .and_then(serde_json::Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0)
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, GateError> {
    serde_json::to_string(value).map_err(|e| GateError::Policy(Error::Rejected(e.to_string())))
}

impl Gate {
    /// Settings for a gate over `policy`.
    pub fn builder(policy: &Policy) -> GateBuilder {
        GateBuilder {
            policy: policy.clone(),
            config: String::from("{}"),
            timeout: None,
            warn_before: None,
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
    /// with the same configuration, see [`crate::registry::ApiClient::executor`]).
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

    fn emit(&self, events: &[Event]) {
        let listeners: Vec<Listener> = lock(&self.inner.listeners).clone();
        for event in events {
            for listener in &listeners {
                listener(event);
            }
        }
    }

    /// Whether the first sink keeps the store's claims in its own database
    /// (then claims and records are one transaction).
    fn joint(&self) -> bool {
        let Some(primary) = self.inner.sinks.first() else {
            return false;
        };
        let Some(store) = self.inner.store.database() else {
            return false;
        };
        primary.database().as_deref() == Some(store.as_str())
    }

    /// The ids of the approvals calls of this gate wait for.
    fn waiting_ids(&self) -> Vec<String> {
        lock(&self.inner.waiting).keys().cloned().collect()
    }

    /// Where a `check` or `settle` operation leaves the call.
    fn outcome_of(&self, value: serde_json::Value) -> Result<Outcome, GateError> {
        match value.get("outcome").and_then(serde_json::Value::as_str) {
            Some("run") => {
                let ready = value.get("ready").cloned().unwrap_or_default();
                Ok(Outcome::Run(Ready::read(ready)?))
            }
            Some("done") => Ok(Outcome::Done(
                Box::new(read_value(value.get("result"))?),
                read_value(value.get("events"))?,
            )),
            _ => Err(GateError::Policy(Error::Fault(String::from(
                "the component's operation ended out of order",
            )))),
        }
    }

    /// Recovers the claims whose holder died between its claim and its
    /// record (a `kill -9`, a crash): each checkpoint still in the store
    /// with a claim is looked up in the audit log under its writer lock. A
    /// recorded one was settled (its write-ahead record says it may have
    /// run): its checkpoint goes. An unrecorded one never ran: its claim is
    /// taken back and the approval is pending again, listed and answerable,
    /// and expired with a record at its deadline. Returns how many were
    /// recovered. Nothing to do without an audit sink (the claim alone
    /// settles), or with one that claims and records in one transaction.
    pub fn recover(&self) -> Result<usize, GateError> {
        let op = serde_json::json!({"op": "recover", "waiting": self.waiting_ids(), "joint": self.joint()});
        Ok(count(&self.drive(&op, None)?, "recovered"))
    }

    /// Step 2: settles approval `id` (its checkpoint, its deadline) with
    /// `answer`. The flow is pure, so it is asked first; then the approval is
    /// claimed and recorded as one step, so no claimed approval is ever left
    /// without its record and nothing runs without its write-ahead record:
    ///
    /// - a first sink that keeps the store's claims in its own database
    ///   (PostgreSQL) claims, removes the checkpoint and appends the record
    ///   in one transaction;
    /// - otherwise the claim is made under the audit log's writer lock and
    ///   the record appended under the same lock, and only then is the
    ///   checkpoint removed. A record that cannot be written (a full disk)
    ///   takes the claim back when the gate requires its audit: the approval
    ///   stays pending, not used up. A holder that dies between claim and
    ///   record leaves a claim with its checkpoint and no record, which the
    ///   next answer, [`Gate::recover`], [`Gate::pending`] or
    ///   [`Gate::sweep`] finds under the lock and takes back;
    /// - without a sink the claim alone settles, and the checkpoint is
    ///   removed before anything runs.
    fn settle_step(
        &self,
        id: &str,
        checkpoint: &str,
        deadline: u64,
        answer: &toolgate_shapes::gate::Answer,
    ) -> Result<Outcome, GateError> {
        let op = serde_json::json!({
            "op": "settle", "id": id, "answer": json(answer)?, "checkpoint": checkpoint,
            "deadline": deadline, "joint": self.joint(),
        });
        let value = self.drive(&op, None)?;
        self.outcome_of(value)
    }

    /// Every grant this gate holds (session) or its store keeps (project,
    /// user), each opened by the component: a forged, unsigned or expired one
    /// is listed with why it does not apply.
    pub fn grants(&self) -> Result<Vec<GrantListing>, GateError> {
        let value = self.drive(&serde_json::json!({"op": "grants"}), None)?;
        let listed = value.get("grants").and_then(serde_json::Value::as_array);
        Ok(listed
            .into_iter()
            .flatten()
            .map(|item| {
                let text = |name: &str| {
                    item.get(name)
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_owned)
                };
                let grant = item
                    .get("grant")
                    .map(|g| serde_json::from_value::<Grant>(g.clone()).map_err(|e| e.to_string()));
                match grant {
                    Some(Ok(grant)) => GrantListing {
                        id: text("id").unwrap_or_default(),
                        grant: Some(grant),
                        refused: None,
                    },
                    Some(Err(e)) => GrantListing {
                        id: text("id").unwrap_or_default(),
                        grant: None,
                        refused: Some(e),
                    },
                    None => GrantListing {
                        id: text("id").unwrap_or_default(),
                        grant: None,
                        refused: text("refused"),
                    },
                }
            })
            .collect())
    }

    /// Revokes grant `id` (session or stored): the revocation is audited and
    /// the grant removed, so no later call is decided with it. Returns
    /// whether there was such a grant.
    pub fn revoke(&self, id: &str) -> Result<bool, GateError> {
        let value = self.drive(&serde_json::json!({"op": "revoke", "id": id}), None)?;
        Ok(value
            .get("revoked")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false))
    }

    /// A new approval id: the gate's prefix, a counter, and 64 bits from
    /// the kernel's CSPRNG, so knowing one id tells nobody the next.
    fn next_id(&self) -> String {
        format!(
            "tg-{}-{}-{}",
            self.inner.id_prefix,
            self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1,
            random_hex(8)
        )
    }

    /// Step 1: decides `call`; for a confirm, checkpoints the approval.
    fn begin(&self, call: &Call) -> Result<serde_json::Value, GateError> {
        let call = serde_json::to_value(&call.0)
            .map_err(|e| GateError::Policy(Error::Rejected(e.to_string())))?;
        let op = serde_json::json!({"op": "check", "id": self.next_id(), "call": call});
        self.drive(&op, None)
    }

    /// An `ask` outcome's pending approval, checkpoint and events.
    fn asked(
        value: &serde_json::Value,
    ) -> Result<Option<(Pending, String, Vec<Event>)>, GateError> {
        if value.get("outcome").and_then(serde_json::Value::as_str) != Some("ask") {
            return Ok(None);
        }
        Ok(Some((
            read_value(value.get("pending"))?,
            read_value(value.get("checkpoint"))?,
            read_value(value.get("events"))?,
        )))
    }

    /// Decides `call` now, for hosts whose agent framework keeps the pending
    /// state: an allowed call comes back [`Checked::Run`] (run it with
    /// [`Gate::execute`]), a denied one [`Checked::Done`], and one a person
    /// must answer [`Checked::Ask`], checkpointed in the store until
    /// [`Gate::settle`] (an [`Event::Requested`] is reported too).
    pub fn check(&self, call: &Call) -> Result<Checked, GateError> {
        let value = self.begin(call)?;
        if let Some((pending, _, events)) = Gate::asked(&value)? {
            lock(&self.inner.checked).insert(pending.id.clone(), pending.deadline);
            self.emit(&events);
            return Ok(Checked::Ask(Box::new(pending)));
        }
        Ok(match self.outcome_of(value)? {
            Outcome::Run(ready) => Checked::Run(ready),
            Outcome::Done(result, events) => {
                self.emit(&events);
                Checked::Done(result)
            }
        })
    }

    /// Runs a call cleared to run: `execute` gets the arguments the tool
    /// receives, and its outcome is recorded. Errors only when the component
    /// faults while recording (the tool has run).
    pub fn execute(
        &self,
        ready: Ready,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        let op = serde_json::json!({"op": "execute", "ready": ready.ready});
        let value = self.drive(&op, Some(Box::new(execute)))?;
        read_value(value.get("result"))
    }

    /// Settles approval `id`, left by [`Gate::check`] (in this process or in
    /// any gate sharing the store and key), with a person's `response`, and
    /// runs `execute` if and when the call may run. An invalid edit is an
    /// error and the approval stays pending; an unknown, expired or already
    /// settled one is never run.
    pub fn settle(
        &self,
        id: &str,
        response: Response,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        if lock(&self.inner.waiting).contains_key(id) {
            return Err(GateError::Waiting(id.to_owned()));
        }
        let Some(checkpoint) = self.inner.store.get(id)? else {
            return Err(if lock(&self.inner.finished).contains(id) {
                GateError::AlreadyAnswered(id.to_owned())
            } else {
                GateError::Unknown(id.to_owned())
            });
        };
        // The deadline this process saw at check time; from another process,
        // read from the checkpoint (that call then crossed `begin` there).
        let known = lock(&self.inner.checked).get(id).copied();
        let deadline = match known {
            Some(deadline) => deadline,
            None => self.open(id, &checkpoint)?.deadline,
        };
        let settled = self.settle_step(id, &checkpoint, deadline, &response.to_answer());
        let ended = match &settled {
            Ok(_) => true,
            Err(e) => e.ends_wait(),
        };
        if ended {
            lock(&self.inner.checked).remove(id);
            lock(&self.inner.finished).insert(id.to_owned());
        }
        match settled? {
            Outcome::Run(ready) => self.execute(ready, execute),
            Outcome::Done(result, events) => {
                self.emit(&events);
                Ok(*result)
            }
        }
    }

    /// Decides `call` and runs `execute` (given the arguments the tool must
    /// receive) if and when it may run. Blocks while a person decides.
    /// Errors when the checkpoint of a pending approval cannot be written or
    /// claimed (the call is then not run), or when the component faults.
    pub fn run(
        &self,
        call: &Call,
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        let value = self.begin(call)?;
        if let Some((pending, checkpoint, events)) = Gate::asked(&value)? {
            return self.wait(pending, checkpoint, &events, execute);
        }
        match self.outcome_of(value)? {
            Outcome::Run(ready) => self.execute(ready, execute),
            Outcome::Done(result, events) => {
                self.emit(&events);
                Ok(*result)
            }
        }
    }

    /// The pending approvals in the store (after a restart: the ones an earlier
    /// process left), each opened and checked; a forged or unreadable checkpoint
    /// is an error in the list, never a request. A checkpoint whose approval
    /// was claimed (settled, and put back or left behind) is not listed: it
    /// is no live dialog, and never runs.
    pub fn pending(&self) -> Result<Vec<Result<ApprovalRequest, GateError>>, GateError> {
        let op = serde_json::json!({"op": "pending", "waiting": self.waiting_ids(), "joint": self.joint()});
        let value = self.drive(&op, None)?;
        let listed = value.get("pending").and_then(serde_json::Value::as_array);
        Ok(listed
            .into_iter()
            .flatten()
            .map(|item| {
                let id = item
                    .get("id")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default();
                match item.get("pending") {
                    Some(pending) => read_value(Some(pending)),
                    None => Err(steps::failure(
                        item.get("error").unwrap_or(&serde_json::Value::Null),
                        id,
                    )),
                }
            })
            .collect())
    }

    fn open(&self, id: &str, text: &str) -> Result<Pending, GateError> {
        let pending = self.inner.flow.open(text).map_err(|e| match e {
            StepError::Checkpoint(source) => GateError::Checkpoint {
                id: id.to_owned(),
                source,
            },
            StepError::Invalid(m) => GateError::Checkpoint {
                id: id.to_owned(),
                source: CheckpointError::Invalid(m),
            },
            StepError::Policy(e) => GateError::Policy(e),
        })?;
        let request: Pending =
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
        let events = [Event::Requested {
            request: Box::new(request.clone()),
        }];
        self.wait(request, text, &events, execute)
    }

    /// Cleans the store: every pending approval past its deadline that no
    /// call of this gate waits for is closed as `expired` (claimed, removed,
    /// audited; never run); tombstones past their deadline, grants past their
    /// expiry and the tombstones of revoked grants that have expired are
    /// removed.
    /// Checkpoints that cannot be opened (forged, unreadable) are left for a
    /// person to look at; claims a dead holder left without their record
    /// are recovered first ([`Gate::recover`]). Returns how many approvals
    /// were closed.
    pub fn sweep(&self) -> Result<usize, GateError> {
        let op = serde_json::json!({"op": "sweep", "waiting": self.waiting_ids(), "joint": self.joint()});
        let value = self.drive(&op, None)?;
        let now = value
            .get("now")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or_else(now_ms);
        lock(&self.inner.checked).retain(|_, deadline| *deadline >= now);
        Ok(count(&value, "closed"))
    }

    /// Answers a pending approval a call of this gate waits for. Edited
    /// arguments must be one clean JSON object (else an error, and the
    /// request stays pending). An unknown, expired or already answered
    /// request is an error, and never a second execution. The answer counts
    /// by the time it is given: one given before the deadline is settled then,
    /// however late the waiting call wakes; one given at or after it ends the
    /// wait as expired and is [`GateError::Expired`], even before the waiting
    /// call has woken to its deadline.
    pub fn respond(&self, id: &str, response: Response) -> Result<(), GateError> {
        self.answer(id, &response.to_answer())
    }

    /// Cancels a pending approval: the call is not run and the model is told.
    /// At or after its deadline the wait ends as expired and this is
    /// [`GateError::Expired`], as [`Gate::respond`] is.
    pub fn cancel(&self, id: &str) -> Result<(), GateError> {
        self.answer(id, &no_answer(AnswerKind::Cancel))
    }

    /// Settles a waited-for approval on the answering thread (so a refused
    /// answer is this caller's error) and hands the outcome to the waiter.
    fn answer(&self, id: &str, answer: &toolgate_shapes::gate::Answer) -> Result<(), GateError> {
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
        if now_ms() >= slot.deadline {
            // Too late, whether or not the waiting call has woken: the wait
            // ends here as it would at the deadline (expired), and whoever
            // answered is told.
            let settled = self.settle_step(
                id,
                &slot.checkpoint,
                slot.deadline,
                &no_answer(AnswerKind::None),
            );
            self.close(id);
            *state = SlotState::Settled(settled);
            slot.ready.notify_all();
            return Err(GateError::Expired(id.to_owned()));
        }
        let settled = self.settle_step(id, &slot.checkpoint, slot.deadline, answer);
        let mine = match &settled {
            Ok(_) => Ok(()),
            Err(e) if e.ends_wait() => Err(e.twin()),
            Err(_) => return settled.map(drop),
        };
        self.close(id);
        *state = SlotState::Settled(settled);
        slot.ready.notify_all();
        mine
    }

    /// No answer can land after this.
    fn close(&self, id: &str) {
        lock(&self.inner.waiting).remove(id);
        lock(&self.inner.finished).insert(id.to_owned());
    }

    /// Waits for the answer to `pending` (or its deadline), then finishes
    /// the call.
    fn wait(
        &self,
        pending: Pending,
        checkpoint: String,
        events: &[Event],
        execute: impl FnOnce(&str) -> Result<String, String>,
    ) -> Result<ToolResult, GateError> {
        let id = pending.id.clone();
        let slot = Arc::new(Slot {
            state: Mutex::new(SlotState::Waiting),
            ready: Condvar::new(),
            deadline: pending.deadline,
            checkpoint,
        });
        lock(&self.inner.waiting).insert(id.clone(), Arc::clone(&slot));
        self.emit(events);
        if let Some(approver) = self.inner.approver.clone() {
            let gate = self.clone();
            let spawned = std::thread::Builder::new()
                .name(String::from("toolgate-approver"))
                .spawn(move || {
                    let id = pending.id.clone();
                    let response = approver(pending);
                    // Late or refused answers change nothing: the wait has ended.
                    let _ = gate.respond(&id, response);
                });
            drop(spawned);
        }
        // When to warn that the deadline nears (never, once warned).
        let mut warn_at = self
            .inner
            .warn_before_ms
            .map(|before| slot.deadline.saturating_sub(before));
        let settled = {
            let mut state = lock(&slot.state);
            loop {
                if matches!(*state, SlotState::Settled(_)) {
                    break match std::mem::replace(&mut *state, SlotState::Taken) {
                        SlotState::Settled(settled) => settled,
                        _ => Err(GateError::AlreadyAnswered(id)),
                    };
                }
                let now = now_ms();
                if now >= slot.deadline {
                    // The wait ended without an answer: the flow says what
                    // that means (expired).
                    let settled = self.settle_step(
                        &id,
                        &slot.checkpoint,
                        slot.deadline,
                        &no_answer(AnswerKind::None),
                    );
                    self.close(&id);
                    *state = SlotState::Taken;
                    break settled;
                }
                if warn_at.is_some_and(|at| now >= at) {
                    warn_at = None;
                    // Listeners may answer at once: they run without the lock.
                    drop(state);
                    self.emit(&[Event::Expiring {
                        id: id.clone(),
                        deadline: slot.deadline,
                    }]);
                    state = lock(&slot.state);
                    continue;
                }
                let until = warn_at.map_or(slot.deadline, |at| at.min(slot.deadline));
                let left = Duration::from_millis(until.saturating_sub(now));
                state = slot
                    .ready
                    .wait_timeout(state, left)
                    .map(|(guard, _)| guard)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
        };
        match settled? {
            Outcome::Run(ready) => self.execute(ready, execute),
            Outcome::Done(result, events) => {
                self.emit(&events);
                Ok(*result)
            }
        }
    }
}
