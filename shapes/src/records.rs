//! The records of the approval flow: the pending approval a checkpoint
//! carries and the fields of an audit line. The policy seals and checks them;
//! hosts read them with these same types.

use serde::{Deserialize, Serialize};

/// The format tag of the checkpoints the policy writes and reads.
pub const CHECKPOINT_FORMAT: &str = "toolgate.checkpoint/2";

/// The shortest key that signs or checks a checkpoint, in bytes.
pub const MIN_KEY_LEN: usize = 16;

/// Why a checkpoint could not be written or read (the WIT's
/// `checkpoint-error`): one definition for the policy that refuses and the
/// hosts that report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointError {
    /// The pending approval or the checkpoint is not well-formed JSON of the
    /// expected shape; the message names the field.
    Invalid(String),
    /// The checkpoint was written in a format this version does not read.
    Format(String),
    /// The host has a key but the checkpoint carries no MAC.
    Unsigned,
    /// The MAC does not match: the checkpoint was forged or changed.
    Forged,
    /// The key is shorter than [`MIN_KEY_LEN`] bytes (its length, or empty):
    /// refused rather than used.
    WeakKey(u32),
}

impl CheckpointError {
    /// The refusal for a key of `len` bytes.
    pub fn weak_key(len: usize) -> CheckpointError {
        CheckpointError::WeakKey(u32::try_from(len).unwrap_or(u32::MAX))
    }
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::Invalid(m) => write!(f, "invalid checkpoint: {m}"),
            CheckpointError::Format(t) => write!(
                f,
                "unsupported checkpoint format `{t}` (this version reads {CHECKPOINT_FORMAT})"
            ),
            CheckpointError::Unsigned => f.write_str(
                "the checkpoint is not signed, and this gate requires signed checkpoints",
            ),
            CheckpointError::Forged => {
                f.write_str("the checkpoint's signature does not match: it was forged or changed")
            }
            CheckpointError::WeakKey(n) => write!(
                f,
                "the checkpoint key is {n} bytes long; a key has at least {MIN_KEY_LEN} (make one with `head -c 32 /dev/urandom > key`)"
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// A call waiting for a person's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    /// The approval's id, unique per gate (the host makes it).
    pub id: String,
    /// The conversation the call belongs to, if the host tracks one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The user on whose behalf the model acts, if known.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The tool's description, for the approval dialog.
    #[serde(default)]
    pub description: String,
    /// The arguments as the model sent them (JSON text, `risk_level` included).
    pub args: String,
    /// The call's id in its wire format, to answer the model with.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The policy's decision (a `confirm`).
    pub decision: crate::decision::Decision,
    /// When the approval was requested, in milliseconds since the Unix epoch.
    pub requested_at: u64,
    /// When it expires, in milliseconds since the Unix epoch.
    pub deadline: u64,
    /// The caller's context the decision was made in (JSON), so the call is
    /// decided again in the same context when it is answered.
    #[serde(default)]
    pub context: Option<String>,
    /// The hash of the configuration the decision was made under (see
    /// `resume::config_hash`).
    #[serde(default)]
    pub config_hash: String,
    /// The narrowest allow rules that cover this call: what an answer "for
    /// this session" or "always" grants unless the host passes narrower
    /// ones. Empty: no grant may cover it, and a dialog must not offer one.
    /// Left out of the text when empty, so a checkpoint sealed before grants
    /// existed reads back to the same canonical bytes and its MAC holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<crate::rules::Rule>,
    /// The identity of the gate that asked (a deployment's name, or the id
    /// prefix of one process).
    #[serde(default)]
    pub gate: String,
}

/// One changed value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    /// Where, as a JSON Pointer (`""` for the whole arguments).
    pub path: String,
    /// The value before the edit; `null` when the key was added.
    pub before: Option<serde_json::Value>,
    /// The value after the edit; `null` when the key was removed.
    pub after: Option<serde_json::Value>,
}

/// What became of the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The tool ran and succeeded.
    Executed,
    /// The tool ran and failed.
    Failed,
    /// The policy denied it; it never ran.
    Denied,
    /// A person rejected it; it never ran.
    Rejected,
    /// Nobody answered in time; it never ran.
    Expired,
    /// The caller cancelled the wait; it never ran.
    Cancelled,
    /// Written before the tool runs, so a crash during execution leaves
    /// evidence; the outcome follows in a later record.
    Executing,
    /// Not a call: the log was found torn (a partial last line) and repaired;
    /// `parameters` says what was set aside.
    Gap,
    /// Not a call: a grant was revoked; `parameters` is the grant, and the
    /// approval names the one that granted it.
    Revoked,
}

impl Status {
    /// The lowercase name, as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Executed => "executed",
            Status::Failed => "failed",
            Status::Denied => "denied",
            Status::Rejected => "rejected",
            Status::Expired => "expired",
            Status::Cancelled => "cancelled",
            Status::Executing => "executing",
            Status::Gap => "gap",
            Status::Revoked => "revoked",
        }
    }
}

/// How the person answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Approved as proposed.
    Approved,
    /// Approved with edited arguments.
    Edited,
    /// Rejected.
    Rejected,
    /// Not answered before the deadline.
    Expired,
    /// The wait was cancelled.
    Cancelled,
    /// Approved, and remembered as a grant (the approval's `grant`).
    Granted,
    /// A grant this approval left was revoked.
    Revoked,
}

/// The decision, as the audit keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditDecision {
    /// `allow`, `confirm` or `deny`.
    pub action: crate::decision::Action,
    /// The risk.
    pub risk: crate::decision::Risk,
    /// The deciding rule.
    pub source: crate::decision::Source,
    /// The finding codes, in order.
    pub findings: Vec<String>,
    /// The policy version that decided.
    pub policy_version: String,
}

/// The person's part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditApproval {
    /// The approval request's id.
    pub id: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Who answered, as the host names them.
    #[serde(default)]
    pub by: Option<String>,
    /// The message for the model that came with a rejection.
    #[serde(default)]
    pub message: Option<String>,
    /// The instruction the person added to the conversation.
    #[serde(default)]
    pub instruction: Option<String>,
    /// The changes an edit made to the arguments.
    #[serde(default)]
    pub diff: Vec<DiffEntry>,
    /// When the answer came, in milliseconds since the Unix epoch.
    #[serde(default)]
    pub answered_at: Option<u64>,
    /// The grant the answer left (outcome `granted`) or that was revoked
    /// (outcome `revoked`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<crate::grants::Grant>,
}

/// A [`Change`] as the audit stores it (read back as well as written).
pub type DiffEntry = Change;

/// What a host gives to the policy's `seal_audit`: every field of a line but
/// `seq`, `prev` and `hash`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditEntry {
    /// When the call finished (or was refused), ms since the Unix epoch.
    pub time: u64,
    /// The conversation.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The user.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// The call's id in its wire format.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The arguments the tool received (`risk_level` stripped, edits applied),
    /// or, for a call that never ran, the arguments as proposed.
    pub parameters: String,
    /// The decision for those arguments.
    pub decision: AuditDecision,
    /// The approval, when a person was asked.
    #[serde(default)]
    pub approval: Option<AuditApproval>,
    /// Whether the gate ran in shadow mode (decided, recorded, never blocked).
    #[serde(default)]
    pub shadow: bool,
    /// What became of the call.
    pub status: Status,
    /// Whether the tool ran and succeeded.
    pub success: bool,
    /// The tool's result, as the host chose to record it.
    #[serde(default)]
    pub result: Option<String>,
    /// The error, for a failed call.
    #[serde(default)]
    pub error: Option<String>,
    /// How long the tool ran, in milliseconds (0 when it never ran).
    #[serde(default)]
    pub execution_time_ms: u64,
}

/// The result of verifying a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSummary {
    /// How many records the log holds.
    pub records: u64,
    /// The hash of the last record (64 zeros for an empty log).
    pub head: String,
}

/// Whether an answer given to a sealed decision still covers the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recheck {
    /// The current decision is what the person saw (the same findings, no
    /// higher risk) or needs no person at all: the answer stands.
    Stands,
    /// The policy now denies the call: it never runs, whatever was answered.
    Denied,
    /// The policy now confirms it for reasons the person never saw (other
    /// findings, or a higher risk): the approval is void.
    Changed,
}

impl Recheck {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Recheck::Stands => "stands",
            Recheck::Denied => "denied",
            Recheck::Changed => "changed",
        }
    }
}
