//! The approval flow, as policy: what a call's decision means for its run,
//! what a person's answer allows, and every text the model and the audit get.
//!
//! A host drives a [`Flow`] in at most three steps per call, each a pure
//! function of its inputs (the host supplies ids, the clock and the audit
//! log's last line):
//!
//! 1. [`Flow::begin`] decides the call: `deny` is [`Step::Done`], `allow` (and
//!    everything in shadow mode) is [`Step::Run`], `confirm` is [`Step::Ask`]
//!    with the pending approval and its sealed checkpoint.
//! 2. [`Flow::settle`] takes the checkpoint back with an answer: the deadline
//!    is checked at that moment, an approval is decided again under the
//!    current configuration (void when the decision is stricter or shows
//!    findings the person never saw), an edit is decided afresh (a person may
//!    approve what needs confirmation, never what is configured off), and
//!    only one clean JSON object ever reaches a tool.
//! 3. [`Flow::finish`] takes the run's outcome and returns the result.
//!
//! Steps that change the audit log carry the sealed line (write-ahead before a
//! tool runs, the outcome after), chained to the `previous` line the host
//! passes, so a host appends them as they are.

pub mod driver;

use crate::args::strip_risk_level;
use crate::config::ConfigError;
use crate::decision::{Action, Decision};
use crate::engine::Engine;
use crate::records::{
    args_diff, checkpoint, config_hash, open_checkpoint, open_grant, read_grant, recheck,
    seal_audit, seal_audit_keyed, seal_checkpoint, seal_grant, CheckpointError, Grant, GrantError,
    Granted, Recheck, Remember, Scope,
};
use crate::rules::Rule;
use toolgate_shapes::gate::{
    Answer, AnswerKind, Event, GateCall, GateSettings, Ran, Step, ToolResult,
};
use toolgate_shapes::records::{
    AuditApproval, AuditDecision, AuditEntry, Outcome, Pending, Status,
};

/// Why a gate could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// The policy configuration was refused.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The gate settings are not of the expected shape.
    #[error("invalid gate settings: {0}")]
    Settings(String),
    /// A key shorter than 16 bytes: refused, never used.
    #[error("the {which} key is {len} bytes long; a key has at least 16 (make one with `head -c 32 /dev/urandom > key`)")]
    WeakKey {
        /// `checkpoint` or `audit`.
        which: &'static str,
        /// Its length.
        len: usize,
    },
}

/// Why a step could not be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The checkpoint was refused: forged, changed, unsigned or not one.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The call, answer, outcome or ticket is not of the expected shape (a
    /// host's mistake, or an edit that is not one clean JSON object).
    #[error("{0}")]
    Invalid(String),
    /// A grant passed to be opened or revoked was refused.
    #[error("{code}: {0}", code = .0.code())]
    Grant(GrantError),
}

/// The state a run carries from [`Step::Run`] to [`Flow::finish`].
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Ticket {
    call: GateCall,
    decision: Decision,
    approval: Option<AuditApproval>,
    args: String,
    instruction: Option<String>,
}

/// A gate's flow: the policy, its configuration's hash, the gate's settings
/// and keys.
#[derive(Debug)]
pub struct Flow {
    engine: Engine,
    settings: GateSettings,
    config_hash: String,
    checkpoint_key: Option<Vec<u8>>,
    audit_key: Option<Vec<u8>>,
}

fn read<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, StepError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| StepError::Invalid(format!("the {what} is not JSON: {e}")))?;
    serde_path_to_error::deserialize(value)
        .map_err(|e| StepError::Invalid(format!("the {what}: `{}`: {}", e.path(), e.inner())))
}

/// The result as a tool-result message body for the model: JSON with `status`
/// and the output, error or reason (and the person's message).
fn for_model(result: &ToolResult) -> String {
    let mut out = serde_json::Map::new();
    out.insert("status".into(), result.status.as_str().into());
    for (key, value) in [
        ("output", &result.output),
        ("error", &result.error),
        ("reason", &result.reason),
        ("message", &result.message),
    ] {
        if let Some(value) = value {
            out.insert(key.into(), value.clone().into());
        }
    }
    serde_json::Value::Object(out).to_string()
}

/// The reason a call whose arguments are not one clean JSON object does not run.
fn unclean(e: &crate::args::ArgsError) -> String {
    format!("the arguments are not one clean JSON object ({e}); the call was not run")
}

/// The reason a refused call did not run.
fn reason_for(status: Status, decision: &Decision) -> String {
    match status {
        Status::Denied => format!("the call was denied: {}", decision.summary),
        Status::Rejected => String::from("the user rejected this call; it was not run"),
        Status::Expired => String::from("no one approved this call in time; it was not run"),
        _ => String::from("the approval was cancelled; the call was not run"),
    }
}

fn approval(
    pending: &Pending,
    outcome: Outcome,
    answer: Option<&Answer>,
    answered_at: Option<u64>,
) -> AuditApproval {
    AuditApproval {
        id: pending.id.clone(),
        outcome,
        by: answer.and_then(|a| a.by.clone()),
        message: answer.and_then(|a| a.message.clone()),
        instruction: answer.and_then(|a| a.instruction.clone()),
        diff: Vec::new(),
        answered_at,
        grant: None,
    }
}

/// Whether a grant (already opened) applies to `call`: a session grant to
/// its own session's calls, a user grant to its own user's, a project grant
/// to every call.
fn applies(grant: &Grant, call: &GateCall) -> bool {
    match grant.scope {
        Scope::Session => grant.session_id == call.session_id,
        Scope::User => grant.user_id == call.user_id,
        Scope::Project => true,
    }
}

impl Flow {
    /// A gate's flow over `config` (the policy configuration, JSON) with
    /// `settings` (JSON, the fields of [`GateSettings`]). Checkpoints are
    /// signed with `checkpoint_key` and the audit chain keyed with
    /// `audit_key`, each at least 16 bytes when given.
    pub fn new(
        config: &str,
        settings: &str,
        checkpoint_key: Option<&[u8]>,
        audit_key: Option<&[u8]>,
    ) -> Result<Flow, FlowError> {
        let engine = Engine::from_text(config)?;
        let settings: GateSettings =
            read("settings", settings).map_err(|e| FlowError::Settings(e.to_string()))?;
        for (which, key) in [("checkpoint", checkpoint_key), ("audit", audit_key)] {
            if let Some(key) = key.filter(|k| k.len() < checkpoint::MIN_KEY_LEN) {
                return Err(FlowError::WeakKey {
                    which,
                    len: key.len(),
                });
            }
        }
        Ok(Flow {
            engine,
            config_hash: config_hash(config),
            settings,
            checkpoint_key: checkpoint_key.map(<[u8]>::to_vec),
            audit_key: audit_key.map(<[u8]>::to_vec),
        })
    }

    /// The policy engine the flow decides with.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The gate's settings.
    pub fn settings(&self) -> &GateSettings {
        &self.settings
    }

    /// Whether the flow signs with a key: a gate without one trusts no
    /// grant from its store (anyone who can write the store could have
    /// written it).
    pub fn keyed(&self) -> bool {
        self.checkpoint_key.is_some()
    }

    /// Step 1: decides `call` (JSON, the fields of [`GateCall`]) at `now` (ms
    /// since the Unix epoch); `id` names the approval if one is needed.
    pub fn begin(
        &self,
        call: &str,
        id: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<Step, StepError> {
        let mut call: GateCall = read("call", call)?;
        let (rules, refused) = self.in_force(&mut call, now);
        let decision = self.decide_granted(&call, &rules);
        let mut step = self.begin_decided(call, decision, id, now, previous)?;
        let (Step::Run { events, .. } | Step::Done { events, .. } | Step::Ask { events, .. }) =
            &mut step;
        events.splice(0..0, refused);
        Ok(step)
    }

    /// The rules of the grants passed with `call` (taken out of it) that are
    /// in force at `now` and apply to it, and an event for each one refused.
    fn in_force(&self, call: &mut GateCall, now: u64) -> (Vec<Rule>, Vec<Event>) {
        let mut rules = Vec::new();
        let mut refused = Vec::new();
        for sealed in std::mem::take(&mut call.grants) {
            match open_grant(&sealed, self.checkpoint_key.as_deref(), now) {
                Ok(grant) if applies(&grant, call) => rules.extend(grant.rules),
                Ok(_) => {}
                Err(e) => refused.push(Event::GrantRefused {
                    id: read_grant(&sealed).ok().map(|g| g.id),
                    code: String::from(e.code()),
                    reason: e.to_string(),
                }),
            }
        }
        (rules, refused)
    }

    fn begin_decided(
        &self,
        call: GateCall,
        decision: Decision,
        id: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<Step, StepError> {
        if self.settings.shadow {
            // Shadow mode never blocks: the tool gets what the model sent,
            // `risk_level` stripped where there is one object to strip it from.
            let args = strip_risk_level(&call.args).unwrap_or_else(|_| call.args.clone());
            return Ok(self.run(call, decision, None, args, None, now, previous));
        }
        if decision.action == Action::Allow {
            return Ok(match strip_risk_level(&call.args) {
                Ok(args) => self.run(call, decision, None, args, None, now, previous),
                // An allow by configuration alone (`auto_approved_tools`) says
                // nothing about the arguments: only one clean object reaches a
                // tool.
                Err(e) => {
                    let reason = unclean(&e);
                    self.refuse(
                        &call,
                        decision,
                        None,
                        Status::Denied,
                        Some(reason),
                        now,
                        previous,
                    )
                }
            });
        }
        if decision.action == Action::Deny {
            return Ok(self.refuse(&call, decision, None, Status::Denied, None, now, previous));
        }
        if id.is_empty() {
            return Err(StepError::Invalid(String::from("the approval id is empty")));
        }
        let timeout = self
            .settings
            .tool_timeouts
            .get(&call.tool)
            .copied()
            .or(self.settings.timeout_ms)
            .or(self.engine.config().approval_timeout_ms)
            .unwrap_or(toolgate_shapes::gate::DEFAULT_TIMEOUT_MS);
        let proposed = crate::rules::narrowest(&self.engine, &call.tool, &call.args);
        // Seed 004's request carries the tool's description: the call's own,
        // else the registry's for the tool.
        let description = if call.description.is_empty() {
            self.engine
                .config()
                .tools
                .get(&call.tool)
                .and_then(|t| t.description.clone())
                .unwrap_or_default()
        } else {
            call.description
        };
        let pending = Pending {
            id: id.to_owned(),
            session_id: call.session_id,
            user_id: call.user_id,
            tool: call.tool,
            description,
            args: call.args,
            call_id: call.call_id,
            decision,
            requested_at: now,
            deadline: now.saturating_add(timeout),
            context: call.context,
            config_hash: self.config_hash.clone(),
            gate: self.settings.identity.clone(),
            proposed,
        };
        let text =
            serde_json::to_string(&pending).map_err(|e| StepError::Invalid(e.to_string()))?;
        let checkpoint = seal_checkpoint(&text, self.checkpoint_key.as_deref())?;
        Ok(Step::Ask {
            events: vec![Event::Requested {
                request: Box::new(pending.clone()),
            }],
            pending: Box::new(pending),
            checkpoint,
        })
    }

    /// Reads a checkpoint (one this gate's key signed) as its pending approval.
    pub fn open(&self, checkpoint: &str) -> Result<Pending, StepError> {
        let text = open_checkpoint(checkpoint, self.checkpoint_key.as_deref())?;
        read("checkpoint", &text)
    }

    /// Step 2: the answer (JSON, the fields of [`Answer`]) to the approval in
    /// `checkpoint`, taken at `now`. An edit that is not one clean JSON object
    /// is an error, so the host can tell whoever answered and keep waiting.
    pub fn settle(
        &self,
        checkpoint: &str,
        answer: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<Step, StepError> {
        let pending = self.open(checkpoint)?;
        let answer: Answer = read("answer", answer)?;
        let edited = match (answer.answer, &answer.args) {
            (AnswerKind::Edit, Some(args)) => Some(
                strip_risk_level(args)
                    .map(|_| args.clone())
                    .map_err(|e| StepError::Invalid(format!("edited arguments refused: {e}")))?,
            ),
            (AnswerKind::Edit, None) => {
                return Err(StepError::Invalid(String::from(
                    "edited arguments refused: an edit carries `args`",
                )))
            }
            (_, Some(_)) => {
                return Err(StepError::Invalid(String::from(
                    "only an edit carries `args`",
                )))
            }
            (_, None) => None,
        };
        let call = GateCall {
            tool: pending.tool.clone(),
            args: pending.args.clone(),
            call_id: pending.call_id.clone(),
            description: pending.description.clone(),
            session_id: pending.session_id.clone(),
            user_id: pending.user_id.clone(),
            context: pending.context.clone(),
            grants: Vec::new(),
        };
        let sealed = pending.decision.clone();
        // The deadline holds when the answer is taken, not only while waiting:
        // an answer that comes at once after it (a resume of an expired
        // approval, a zero timeout) is too late all the same.
        if now >= pending.deadline || answer.answer == AnswerKind::None {
            let approval = approval(&pending, Outcome::Expired, None, None);
            return Ok(self.refuse(
                &call,
                sealed,
                Some(approval),
                Status::Expired,
                None,
                now,
                previous,
            ));
        }
        if answer.answer == AnswerKind::Cancel {
            let approval = approval(&pending, Outcome::Cancelled, None, Some(now));
            return Ok(self.refuse(
                &call,
                sealed,
                Some(approval),
                Status::Cancelled,
                None,
                now,
                previous,
            ));
        }
        // After the deadline and a cancel, which hold whatever the answer
        // asks to remember.
        let grant = match (&answer.remember, answer.answer) {
            (Some(remember), AnswerKind::Approve) => {
                Some(self.grant_for(&pending, &call, remember, answer.by.clone(), now)?)
            }
            (Some(_), _) => {
                return Err(StepError::Invalid(String::from(
                    "only an approval can be remembered",
                )))
            }
            (None, _) => None,
        };
        let responded = Event::Responded {
            id: pending.id.clone(),
            answer: answer.answer,
            by: answer.by.clone(),
        };
        let mut step = match (answer.answer, edited) {
            (AnswerKind::Edit, Some(edited)) => {
                let mut approval = approval(&pending, Outcome::Edited, Some(&answer), Some(now));
                approval.diff = args_diff(&call.args, &edited).unwrap_or_default();
                let call = GateCall {
                    args: edited,
                    ..call
                };
                let redecided = self.decide(&call);
                if redecided.action == Action::Deny {
                    self.refuse(
                        &call,
                        redecided,
                        Some(approval),
                        Status::Denied,
                        None,
                        now,
                        previous,
                    )
                } else {
                    let args = strip_risk_level(&call.args).unwrap_or_else(|_| call.args.clone());
                    let instruction = answer.instruction.clone();
                    self.run(
                        call,
                        redecided,
                        Some(approval),
                        args,
                        instruction,
                        now,
                        previous,
                    )
                }
            }
            (AnswerKind::Approve, _) => {
                let mut approval = approval(&pending, Outcome::Approved, Some(&answer), Some(now));
                // Decided again under the current configuration: the answer
                // covers only what the person was shown.
                let current = self.decide(&call);
                match recheck(&sealed, &current) {
                    Recheck::Denied => self.refuse(
                        &call,
                        current,
                        Some(approval),
                        Status::Denied,
                        None,
                        now,
                        previous,
                    ),
                    Recheck::Changed => self.refuse(
                        &call,
                        current,
                        Some(approval),
                        Status::Denied,
                        Some(String::from(
                            "the policy's decision on this call changed after it was approved; \
                             the approval is void, ask again",
                        )),
                        now,
                        previous,
                    ),
                    Recheck::Stands => match strip_risk_level(&call.args) {
                        Ok(args) => {
                            let instruction = answer.instruction.clone();
                            if let Some(made) = &grant {
                                approval.outcome = Outcome::Granted;
                                approval.grant = Some(made.grant.clone());
                            }
                            let mut step = self.run(
                                call,
                                sealed,
                                Some(approval),
                                args,
                                instruction,
                                now,
                                previous,
                            );
                            // The grant is the host's to keep only with a run
                            // whose write-ahead record carries it.
                            if let Step::Run { grant: slot, .. } = &mut step {
                                *slot = grant.map(Box::new);
                            }
                            step
                        }
                        // Only one clean object reaches a tool: what the
                        // dialog showed is what runs.
                        Err(e) => self.refuse(
                            &call,
                            sealed,
                            Some(approval),
                            Status::Denied,
                            Some(unclean(&e)),
                            now,
                            previous,
                        ),
                    },
                }
            }
            _ => {
                let approval = approval(&pending, Outcome::Rejected, Some(&answer), Some(now));
                self.refuse(
                    &call,
                    sealed,
                    Some(approval),
                    Status::Rejected,
                    None,
                    now,
                    previous,
                )
            }
        };
        if let Step::Run { events, .. } | Step::Done { events, .. } = &mut step {
            events.insert(0, responded);
        }
        Ok(step)
    }

    /// The grant an approval "for this session" or "always" leaves: the
    /// rules proposed with the request (or the host's narrower list, checked
    /// here), sealed with the checkpoint key. Refused, so the call is not run
    /// and the host can tell whoever answered, when no rule may cover the
    /// call, when the host's rules name another tool or do not cover the
    /// approved call, when the expiry is already past, or when a stored
    /// grant would be unsigned.
    fn grant_for(
        &self,
        pending: &Pending,
        call: &GateCall,
        remember: &Remember,
        by: Option<String>,
        now: u64,
    ) -> Result<Granted, StepError> {
        let refuse = |why: String| Err(StepError::Invalid(format!("not remembered: {why}")));
        if remember.scope.persisted() && self.checkpoint_key.is_none() {
            return refuse(format!(
                "a {} grant is stored, and a gate without a key never stores an unsigned grant",
                remember.scope.as_str()
            ));
        }
        if remember.expires_at.is_some_and(|at| at <= now) {
            return refuse(String::from("its expiry is already past"));
        }
        if remember.scope == Scope::User && pending.user_id.is_none() {
            // Its user would be "no user": every anonymous call.
            return refuse(String::from(
                "a user grant needs the call's user id, and this call has none",
            ));
        }
        if pending.proposed.is_empty() {
            return refuse(String::from(
                "no rule may cover this call; approve it once instead",
            ));
        }
        let mut rules = remember
            .rules
            .clone()
            .unwrap_or_else(|| pending.proposed.clone());
        if rules.is_empty() {
            return refuse(String::from(
                "no rule may cover this call; approve it once instead",
            ));
        }
        // The tool's name as a literal pattern: a tool named `*` is granted
        // as itself (a proposal sealed before names were written so is
        // refused here, not widened).
        let literal = crate::rules::literal_name(&pending.tool);
        if let Some(rule) = rules
            .iter()
            .find(|r| r.tool.as_deref() != Some(literal.as_str()))
        {
            return refuse(format!(
                "every rule names the tool `{}` exactly, and one names {}",
                pending.tool,
                rule.tool
                    .as_deref()
                    .map_or_else(|| String::from("none"), |t| format!("`{t}`")),
            ));
        }
        // A host's own list may only narrow what the person was shown: each
        // rule implied by a proposed one.
        if let Some(wider) = rules
            .iter()
            .find(|r| !pending.proposed.iter().any(|p| crate::rules::implied(r, p)))
        {
            return refuse(format!(
                "the rule {} is not implied by any rule proposed with the request",
                serde_json::to_string(wider).unwrap_or_default()
            ));
        }
        let id = format!("g-{}", pending.id);
        for rule in &mut rules {
            if rule.effect != crate::rules::Effect::Allow {
                return refuse(String::from("a grant holds allow rules only"));
            }
            rule.id = Some(id.clone());
        }
        // The rules must still cover what was approved, judged as the grant
        // will be: the call alone with only these rules, no model risk.
        let args = strip_risk_level(&call.args).map_err(|e| StepError::Invalid(unclean(&e)))?;
        let context = match &call.context {
            Some(text) => crate::context::Context::from_json(text)
                .map_err(|e| StepError::Invalid(format!("not remembered: {e}")))?,
            None => crate::context::Context::default(),
        };
        let covered = self
            .engine
            .assess_granted(&call.tool, &args, &context, &rules);
        if covered.action != Action::Allow || covered.source != crate::Source::Rule {
            return refuse(format!(
                "the rules do not cover the approved call ({})",
                covered.summary
            ));
        }
        let grant = Grant {
            id,
            scope: remember.scope,
            tool: pending.tool.clone(),
            rules,
            created_at: now,
            expires_at: remember.expires_at,
            approval_id: pending.id.clone(),
            by,
            session_id: (remember.scope == Scope::Session)
                .then(|| pending.session_id.clone())
                .flatten(),
            user_id: (remember.scope == Scope::User)
                .then(|| pending.user_id.clone())
                .flatten(),
            gate: self.settings.identity.clone(),
        };
        let sealed =
            seal_grant(&grant, self.checkpoint_key.as_deref()).map_err(StepError::Grant)?;
        Ok(Granted { grant, sealed })
    }

    /// A sealed grant opened at `now` (JSON, the fields of [`Grant`]), if
    /// this gate's key signed it and it has not expired: what a host lists.
    pub fn open_grant(&self, sealed: &str, now: u64) -> Result<String, StepError> {
        let grant =
            open_grant(sealed, self.checkpoint_key.as_deref(), now).map_err(StepError::Grant)?;
        serde_json::to_string(&grant).map_err(|e| StepError::Invalid(e.to_string()))
    }

    /// The audit line recording that the sealed grant was revoked at `now`,
    /// after `previous`. A revocation only takes power away, so a grant that
    /// no longer opens (forged, expired) is recorded all the same, its
    /// refusal's code among the findings; only text that is no grant at all
    /// is refused.
    pub fn revoke(
        &self,
        sealed: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<String, StepError> {
        let grant = read_grant(sealed).map_err(StepError::Grant)?;
        let mut findings = vec![String::from(crate::codes::GRANT_REVOKED)];
        if let Err(e) = open_grant(sealed, self.checkpoint_key.as_deref(), now) {
            findings.push(String::from(e.code()));
        }
        let parameters =
            serde_json::to_string(&grant.rules).map_err(|e| StepError::Invalid(e.to_string()))?;
        let entry = AuditEntry {
            time: now,
            session_id: grant.session_id.clone(),
            user_id: grant.user_id.clone(),
            tool: grant.tool.clone(),
            call_id: None,
            parameters,
            decision: AuditDecision {
                action: Action::Allow,
                risk: crate::Risk::Low,
                source: crate::Source::Rule,
                findings,
                policy_version: String::from(crate::VERSION),
            },
            approval: Some(AuditApproval {
                id: grant.approval_id.clone(),
                outcome: Outcome::Revoked,
                by: None,
                message: None,
                instruction: None,
                diff: Vec::new(),
                answered_at: Some(now),
                grant: Some(grant),
            }),
            shadow: self.settings.shadow,
            status: Status::Revoked,
            success: false,
            result: None,
            error: None,
            execution_time_ms: 0,
        };
        self.seal_entry(&entry, previous)
            .map_err(StepError::Invalid)
    }

    /// Step 3: how the run of a [`Step::Run`] ended (`ran`, JSON, the fields
    /// of [`Ran`]), at `now`.
    pub fn finish(
        &self,
        ticket: &str,
        ran: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<Step, StepError> {
        let ticket: Ticket = read("ticket", ticket)?;
        let ran: Ran = read("outcome", ran)?;
        let (status, output, error) = match ran {
            Ran {
                unrecorded: Some(why),
                ..
            } => return Ok(self.unrecorded(ticket, why, now, previous)),
            Ran {
                output: Some(output),
                error: None,
                ..
            } => (Status::Executed, Some(output), None),
            Ran {
                output: None,
                error: Some(error),
                ..
            } => (Status::Failed, None, Some(error)),
            _ => {
                return Err(StepError::Invalid(String::from(
                    "an outcome carries exactly one of `output`, `error` and `unrecorded`",
                )))
            }
        };
        let mut result = ToolResult {
            status,
            output,
            error,
            reason: None,
            message: None,
            instruction: ticket.instruction,
            decision: ticket.decision,
            executed_args: Some(ticket.args.clone()),
            approval_id: ticket.approval.as_ref().map(|a| a.id.clone()),
            audit_error: None,
            for_model: String::new(),
        };
        result.for_model = for_model(&result);
        let (audit, audit_error) = self.seal(
            &ticket.call,
            &result,
            ticket.approval,
            &ticket.args,
            ran.elapsed_ms,
            None,
            now,
            previous,
        );
        result.audit_error = audit_error;
        Ok(Step::Done {
            events: vec![Event::Processed {
                id: result.approval_id.clone(),
                tool: ticket.call.tool,
                status,
            }],
            result: Box::new(result),
            audit,
        })
    }

    /// The refusal of a run whose write-ahead audit line could not be written
    /// (`why`), when the gate runs nothing it cannot record.
    fn unrecorded(&self, ticket: Ticket, why: String, now: u64, previous: Option<&str>) -> Step {
        let reason = format!(
            "the audit record could not be written ({why}), and this gate runs nothing \
             it cannot record; the call was not run"
        );
        let mut step = self.refuse(
            &ticket.call,
            ticket.decision,
            ticket.approval,
            Status::Denied,
            Some(reason),
            now,
            previous,
        );
        if let Step::Done { result, .. } = &mut step {
            result.audit_error = Some(why);
        }
        step
    }

    /// The audit line recording that the log was found torn and repaired
    /// (`what` says what was set aside), after `previous`.
    pub fn gap(&self, what: &str, now: u64, previous: Option<&str>) -> Result<String, StepError> {
        let entry = AuditEntry {
            time: now,
            session_id: None,
            user_id: None,
            tool: String::from("toolgate.audit"),
            call_id: None,
            parameters: what.to_owned(),
            decision: AuditDecision {
                action: Action::Allow,
                risk: crate::Risk::Low,
                source: crate::Source::Default,
                findings: vec![String::from("audit.gap")],
                policy_version: String::from(crate::VERSION),
            },
            approval: None,
            shadow: self.settings.shadow,
            status: Status::Gap,
            success: false,
            result: None,
            error: None,
            execution_time_ms: 0,
        };
        self.seal_entry(&entry, previous)
            .map_err(StepError::Invalid)
    }

    fn decide(&self, call: &GateCall) -> Decision {
        self.decide_granted(call, &[])
    }

    /// Decides `call` with the rules of the grants in force.
    fn decide_granted(&self, call: &GateCall, grants: &[Rule]) -> Decision {
        if grants.is_empty() {
            return match &call.context {
                Some(context) => self.engine.assess_in(&call.tool, &call.args, context),
                None => self.engine.assess(&call.tool, &call.args),
            };
        }
        match &call.context {
            Some(text) => match crate::context::Context::from_json(text) {
                Ok(context) => self
                    .engine
                    .assess_granted(&call.tool, &call.args, &context, grants),
                // Unreadable context: decided as without grants (which
                // reports it and fails closed).
                Err(_) => self.engine.assess_in(&call.tool, &call.args, text),
            },
            None => self.engine.assess_granted(
                &call.tool,
                &call.args,
                &crate::context::Context::default(),
                grants,
            ),
        }
    }

    #[expect(clippy::too_many_arguments, reason = "one private step builder")]
    fn run(
        &self,
        call: GateCall,
        decision: Decision,
        approval: Option<AuditApproval>,
        args: String,
        instruction: Option<String>,
        now: u64,
        previous: Option<&str>,
    ) -> Step {
        let ahead = ToolResult {
            status: Status::Executing,
            output: None,
            error: None,
            reason: None,
            message: None,
            instruction: None,
            decision: decision.clone(),
            executed_args: Some(args.clone()),
            approval_id: approval.as_ref().map(|a| a.id.clone()),
            audit_error: None,
            for_model: String::new(),
        };
        let (audit, audit_error) = self.seal(
            &call,
            &ahead,
            approval.clone(),
            &args,
            0,
            Some(Status::Executing),
            now,
            previous,
        );
        let approval_id = approval.as_ref().map(|a| a.id.clone());
        let ticket = Ticket {
            call,
            decision: decision.clone(),
            approval,
            args: args.clone(),
            instruction,
        };
        if let (Some(why), true) = (&audit_error, self.settings.audit_required) {
            return self.unrecorded(ticket, why.clone(), now, previous);
        }
        // The ticket is this module's own serialisation of plain strings and
        // enums: it cannot fail, and it reads back.
        let ticket = serde_json::to_string(&ticket).unwrap_or_default();
        Step::Run {
            decision,
            args,
            approval_id,
            ticket,
            audit,
            audit_error,
            events: Vec::new(),
            grant: None,
        }
    }

    #[expect(clippy::too_many_arguments, reason = "one private step builder")]
    fn refuse(
        &self,
        call: &GateCall,
        decision: Decision,
        approval: Option<AuditApproval>,
        status: Status,
        reason: Option<String>,
        now: u64,
        previous: Option<&str>,
    ) -> Step {
        let mut result = ToolResult {
            status,
            output: None,
            error: None,
            reason: Some(reason.unwrap_or_else(|| reason_for(status, &decision))),
            message: approval.as_ref().and_then(|a| a.message.clone()),
            instruction: approval.as_ref().and_then(|a| a.instruction.clone()),
            decision,
            executed_args: None,
            approval_id: approval.as_ref().map(|a| a.id.clone()),
            audit_error: None,
            for_model: String::new(),
        };
        result.for_model = for_model(&result);
        let (audit, audit_error) =
            self.seal(call, &result, approval, &call.args, 0, None, now, previous);
        result.audit_error = audit_error;
        Step::Done {
            events: vec![Event::Processed {
                id: result.approval_id.clone(),
                tool: call.tool.clone(),
                status,
            }],
            result: Box::new(result),
            audit,
        }
    }

    /// The sealed audit line of `result`, or why it could not be sealed
    /// (`(None, None)` when the host keeps no audit).
    #[expect(clippy::too_many_arguments, reason = "one private record builder")]
    fn seal(
        &self,
        call: &GateCall,
        result: &ToolResult,
        approval: Option<AuditApproval>,
        parameters: &str,
        elapsed_ms: u64,
        status: Option<Status>,
        now: u64,
        previous: Option<&str>,
    ) -> (Option<String>, Option<String>) {
        if !self.settings.audit {
            return (None, None);
        }
        let entry = AuditEntry {
            time: now,
            session_id: call.session_id.clone(),
            user_id: call.user_id.clone(),
            tool: call.tool.clone(),
            call_id: call.call_id.clone(),
            parameters: parameters.to_owned(),
            decision: AuditDecision {
                action: result.decision.action,
                risk: result.decision.risk,
                source: result.decision.source,
                findings: result
                    .decision
                    .findings
                    .iter()
                    .map(|f| f.code.clone())
                    .collect(),
                policy_version: String::from(crate::VERSION),
            },
            approval,
            shadow: self.settings.shadow,
            status: status.unwrap_or(result.status),
            success: status.is_none() && result.status == Status::Executed,
            result: result.output.clone(),
            error: result.error.clone(),
            execution_time_ms: elapsed_ms,
        };
        match self.seal_entry(&entry, previous) {
            Ok(line) => (Some(line), None),
            Err(e) => (None, Some(e)),
        }
    }

    fn seal_entry(&self, entry: &AuditEntry, previous: Option<&str>) -> Result<String, String> {
        let text = serde_json::to_string(entry).map_err(|e| e.to_string())?;
        match &self.audit_key {
            Some(key) => seal_audit_keyed(&text, previous, key),
            None => seal_audit(&text, previous),
        }
        .map_err(|e| e.to_string())
    }
}
