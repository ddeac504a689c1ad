//! The approval flow's steps, as the policy's gate hands them to a host.
//!
//! The flow is policy: what a call's decision means, what a person's answer
//! allows, the texts the model and the audit get. A host only carries it out:
//! it makes ids, reads the clock, waits, stores checkpoints, writes audit
//! lines and runs tools. Each crossing returns one [`Step`] saying what to do
//! next, so the hosts stay thin and every runtime writes the same bytes.

use crate::decision::Decision;
use crate::records::{Pending, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The default time a person has to answer, in milliseconds (seed 004: 30 s).
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// How a gate behaves, besides the policy configuration and the keys (which
/// cross separately, so they never sit in a settings text).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSettings {
    /// The gate's identity, bound into its checkpoints.
    pub identity: String,
    /// How long a person has to answer, in milliseconds; `None` for the
    /// configuration's `approval_timeout_ms` (seed 004's `approvalTimeout`),
    /// else [`DEFAULT_TIMEOUT_MS`].
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Other answer times for some tools, in milliseconds.
    #[serde(default)]
    pub tool_timeouts: BTreeMap<String, u64>,
    /// Shadow mode: never block, run every call, record what would have been
    /// decided.
    #[serde(default)]
    pub shadow: bool,
    /// Whether the host keeps an audit log (steps then carry sealed lines).
    #[serde(default)]
    pub audit: bool,
    /// Fail closed: a call whose write-ahead audit record cannot be written is
    /// not run.
    #[serde(default)]
    pub audit_required: bool,
}

/// A tool call brought to the gate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments as the model sent them (JSON text, `risk_level` included).
    pub args: String,
    /// The call's id in its wire format, to answer the model with.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The tool's description, for the approval dialog.
    #[serde(default)]
    pub description: String,
    /// The conversation, for the audit.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The user the model acts for, for the audit.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The caller's context (JSON, e.g. `{"permissions": [...]}`).
    #[serde(default)]
    pub context: Option<String>,
    /// The sealed grants in force (the host's session grants and its store's
    /// project and user grants): passed with the call so one crossing decides
    /// it, and gates sharing a store see each other's grants at once. A
    /// forged, unsigned, expired or malformed one is refused (a
    /// `grant_refused` event) and does not apply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<String>,
}

/// What a person (or the host's waiting) decided about a pending approval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerKind {
    /// Run the call as proposed.
    Approve,
    /// Run it with the answer's `args` instead.
    Edit,
    /// Do not run it.
    Reject,
    /// The wait was cancelled.
    Cancel,
    /// The wait ended without an answer.
    None,
}

impl AnswerKind {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerKind::Approve => "approve",
            AnswerKind::Edit => "edit",
            AnswerKind::Reject => "reject",
            AnswerKind::Cancel => "cancel",
            AnswerKind::None => "none",
        }
    }
}

/// A person's answer to an approval request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// The answer.
    pub answer: AnswerKind,
    /// For an edit: the arguments to run instead (a JSON object's text).
    #[serde(default)]
    pub args: Option<String>,
    /// For a rejection: a message for the model.
    #[serde(default)]
    pub message: Option<String>,
    /// An instruction to add to the conversation, returned to the caller.
    #[serde(default)]
    pub instruction: Option<String>,
    /// Who answered, for the audit.
    #[serde(default)]
    pub by: Option<String>,
    /// With an approval: remember it ("for this session", "always").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remember: Option<crate::grants::Remember>,
}

/// How a tool's run ended, as the host reports it to [`Step::Run`]'s ticket.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ran {
    /// The tool's output, when it succeeded.
    #[serde(default)]
    pub output: Option<String>,
    /// The tool's error, when it failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Why the write-ahead audit record could not be written, when the gate
    /// requires an audit: the tool was not run.
    #[serde(default)]
    pub unrecorded: Option<String>,
    /// How long the tool ran, in milliseconds.
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// What the gate reports while it works.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Event {
    /// A person must answer this request.
    Requested {
        /// The pending approval.
        request: Box<Pending>,
    },
    /// The request was answered.
    Responded {
        /// The request.
        id: String,
        /// `approve`, `edit` or `reject`.
        answer: AnswerKind,
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
    /// An approval still unanswered nears its deadline (reported by the
    /// host, when it was asked to warn): the last chance to answer it.
    Expiring {
        /// The request.
        id: String,
        /// When it expires, in ms since the Unix epoch.
        deadline: u64,
    },
    /// A grant passed with the call was refused and did not apply.
    #[serde(rename = "grant_refused")]
    GrantRefused {
        /// The grant's id, when it could be read.
        id: Option<String>,
        /// The finding code: `grant.forged`, `grant.unsigned`,
        /// `grant.expired` or `grant.invalid`.
        code: String,
        /// Why, in words.
        reason: String,
    },
}

/// What the gate tells the caller, and through `for_model` the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// An instruction the person added: append it to the conversation as a
    /// user message.
    pub instruction: Option<String>,
    /// The policy's decision on the arguments that ran (or would have).
    pub decision: Decision,
    /// The arguments the tool received (`risk_level` stripped, edits applied).
    pub executed_args: Option<String>,
    /// The approval request's id, when a person was asked.
    pub approval_id: Option<String>,
    /// Set when the audit record could not be written; the result stands.
    pub audit_error: Option<String>,
    /// The result as a tool-result message body for the model.
    pub for_model: String,
}

/// What the host does next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "lowercase", deny_unknown_fields)]
pub enum Step {
    /// Run the tool with `args`, then report how it went with `ticket`.
    Run {
        /// The decision the call runs under.
        decision: Decision,
        /// The arguments the tool receives.
        args: String,
        /// The approval's id, when a person was asked.
        approval_id: Option<String>,
        /// Hand this back, unchanged, with the outcome.
        ticket: String,
        /// The write-ahead audit line to append before the tool runs.
        audit: Option<String>,
        /// Why no write-ahead line could be sealed (the call still runs
        /// unless the gate requires an audit, when this step is never given).
        audit_error: Option<String>,
        /// Events to report, in order.
        events: Vec<Event>,
        /// The grant the answer left, for the host to keep (session: in
        /// memory; project, user: in its store) once the write-ahead line is
        /// written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant: Option<Box<crate::grants::Granted>>,
    },
    /// Store `checkpoint` under the pending approval's id and wait for an
    /// answer until its deadline.
    Ask {
        /// The pending approval.
        pending: Box<Pending>,
        /// Its sealed checkpoint.
        checkpoint: String,
        /// Events to report, in order.
        events: Vec<Event>,
    },
    /// The call is finished (or never runs): hand `result` to the caller.
    Done {
        /// The result.
        result: Box<ToolResult>,
        /// The audit line to append.
        audit: Option<String>,
        /// Events to report, in order.
        events: Vec<Event>,
    },
}
