//! The gate's choreography as effects, defined once for every host: when an
//! approval is claimed, where its checkpoint and its grants are kept and
//! removed, which audit line is appended under which lock, what a sweep
//! closes and what a claim a dead holder left means. A host starts an
//! operation ([`Driver::new`]) and carries out each effect [`Driver::next`]
//! returns on its stores, clock and audit sinks, feeding the outcome back,
//! until the effect is `done` or `fail` (docs/gate-steps.md is the protocol).
//!
//! Operations are written in direct style against `Cx`; a driver replays
//! its operation from the start with the outcomes it has been given, and
//! stops at the first effect without one. The flow's own steps (sealing,
//! deciding) are memoised, so a replay redoes only the choreography's
//! control flow.
//!
//! Batched ([`Driver::step`]), a replay goes on past an effect without an
//! outcome when nothing that follows depends on it: an effect whose success
//! is all that matters (`put`, `remove`, `notify`, `unlock`, `append`, and
//! `claim`, presumed claimed) is *presumed* to answer so, and one whose value
//! is used only later (`now`, `list`, `run`, `wait`) is issued and read when
//! needed. The batch ends at the first effect whose outcome decides what
//! follows (`get`, `lock`, `claimed`, `recorded`, …), or with the operation's
//! end. A host carries the batch out in order and stops early only when an
//! outcome differs from what was presumed (or carries an `error`); the
//! replay then takes the path that outcome decides. Every
//! flow step computed past the first presumed outcome is forgotten, so a
//! diverging replay never reads a step another path took.

use super::{Flow, StepError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use toolgate_shapes::gate::Step;
use toolgate_shapes::grants::Grant;

/// Where a grant kept for a project or a user is stored: `grant-<id>`.
pub const GRANT_PREFIX: &str = "grant-";

/// Where a revoked grant's tombstone is stored: `revoked-<id>`, holding the
/// time the grant would have expired (ms) or `never`.
pub const REVOKED_PREFIX: &str = "revoked-";

/// How far before an approval's request its settling record is looked for
/// (clocks of machines sharing a log may disagree this much).
pub const CLOCK_SLACK_MS: u64 = 10 * 60 * 1000;

/// What a store key holds, by the layout above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key<'a> {
    /// An approval's checkpoint, under its id.
    Approval(&'a str),
    /// A kept grant, by its id.
    Grant(&'a str),
    /// A revoked grant's tombstone, by the grant's id.
    Revoked(&'a str),
}

impl<'a> Key<'a> {
    /// Reads a store key.
    pub fn of(key: &'a str) -> Key<'a> {
        if let Some(id) = key.strip_prefix(GRANT_PREFIX) {
            Key::Grant(id)
        } else if let Some(id) = key.strip_prefix(REVOKED_PREFIX) {
            Key::Revoked(id)
        } else {
            Key::Approval(key)
        }
    }
}

/// The id sealed inside a grant's text, if it reads.
pub fn sealed_id(sealed: &str) -> Option<String> {
    sealed_field(sealed, "/grant/id")
}

/// The scope sealed inside a grant's text, if it reads.
pub fn sealed_scope(sealed: &str) -> Option<String> {
    sealed_field(sealed, "/grant/scope")
}

fn sealed_field(sealed: &str, pointer: &str) -> Option<String> {
    serde_json::from_str::<Value>(sealed)
        .ok()?
        .pointer(pointer)?
        .as_str()
        .map(str::to_owned)
}

/// Why an operation stopped before it was done.
enum Halt {
    /// An effect has no outcome yet: the host is to carry out the effects
    /// issued past the last outcome (`Cx::batch`).
    Suspend,
    /// The operation failed: `code` is stable (`unknown`, `already-answered`,
    /// `invalid-edit`, `checkpoint`, `store`, `sink`, `policy`, `invalid`).
    Fail(Value),
}

fn fail(code: &str, message: impl Into<String>) -> Halt {
    Halt::Fail(json!({"effect": "fail", "code": code, "message": message.into()}))
}

/// A step error as a failure: a checkpoint's refusal keeps its kind.
fn step_fail(id: Option<&str>, e: &StepError, invalid: &str) -> Halt {
    match e {
        StepError::Checkpoint(c) => {
            let kind = match c {
                crate::records::CheckpointError::Invalid(_) => "invalid",
                crate::records::CheckpointError::Format(_) => "format",
                crate::records::CheckpointError::Unsigned => "unsigned",
                crate::records::CheckpointError::Forged => "forged",
                crate::records::CheckpointError::WeakKey(_) => "weak-key",
            };
            Halt::Fail(json!({
                "effect": "fail", "code": "checkpoint", "id": id, "kind": kind,
                "detail": match c {
                    crate::records::CheckpointError::Invalid(m)
                    | crate::records::CheckpointError::Format(m) => Value::from(m.clone()),
                    crate::records::CheckpointError::WeakKey(n) => Value::from(*n),
                    _ => Value::Null,
                },
                "message": c.to_string(),
            }))
        }
        other => fail(invalid, other.to_string()),
    }
}

type Out<T> = Result<T, Halt>;

/// One replay of an operation.
struct Cx<'a> {
    flow: &'a Flow,
    outcomes: &'a [Value],
    at: usize,
    memo: &'a mut Vec<String>,
    memo_at: usize,
    /// Whether the replay goes on past effects without outcomes (`step`).
    batched: bool,
    /// The effects issued past the last outcome: the host's next batch.
    batch: Vec<Value>,
    /// How many memoised steps were computed before the first effect
    /// without an outcome (the others rest on presumed outcomes).
    firm: Option<usize>,
}

/// An effect's outcome that is read later than the effect is issued.
enum Later {
    /// The host has answered.
    Ready(Value),
    /// Issued in this batch, not yet answered.
    Pending,
}

impl Cx<'_> {
    /// The next outcome, if the host has given it.
    fn answered(&mut self) -> Option<Value> {
        let outcome = self.outcomes.get(self.at)?.clone();
        self.at += 1;
        Some(outcome)
    }

    /// Adds `effect` to the host's next batch, with the outcome presumed
    /// for it.
    fn issue(&mut self, mut effect: Value, presumed: Option<Value>) {
        if self.firm.is_none() {
            self.firm = Some(self.memo_at);
        }
        if let (Some(presumed), true) = (presumed, self.batched) {
            if let Some(o) = effect.as_object_mut() {
                o.insert(String::from("presumed"), presumed);
            }
        }
        self.batch.push(effect);
    }

    /// The outcome of `effect`, or a suspension when the host has not yet
    /// carried it out: what follows depends on it.
    fn effect(&mut self, effect: Value) -> Out<Value> {
        match self.answered() {
            Some(outcome) => Ok(outcome),
            None => {
                self.issue(effect, None);
                Err(Halt::Suspend)
            }
        }
    }

    /// The outcome of `effect`, presumed `{}` (success, nothing to report)
    /// while the host has not carried it out, when batched.
    fn presume(&mut self, effect: Value) -> Out<Value> {
        self.presume_as(effect, json!({}))
    }

    /// The outcome of `effect`, presumed to be `presumed` while the host has
    /// not carried it out, when batched.
    fn presume_as(&mut self, effect: Value, presumed: Value) -> Out<Value> {
        match self.answered() {
            Some(outcome) => Ok(outcome),
            None if self.batched => {
                self.issue(effect, Some(presumed.clone()));
                Ok(presumed)
            }
            None => {
                self.issue(effect, None);
                Err(Halt::Suspend)
            }
        }
    }

    /// Issues `effect` whose outcome is read later ([`Cx::force`]); with
    /// `code`, an error in its outcome fails the operation here.
    fn later(&mut self, code: Option<&str>, effect: Value) -> Out<Later> {
        match self.answered() {
            Some(outcome) => match (code, outcome.get("error")) {
                (Some(code), Some(e)) if !e.is_null() => {
                    Err(fail(code, e.as_str().unwrap_or_default()))
                }
                _ => Ok(Later::Ready(outcome)),
            },
            None if self.batched => {
                self.issue(effect, None);
                Ok(Later::Pending)
            }
            None => {
                self.issue(effect, None);
                Err(Halt::Suspend)
            }
        }
    }

    /// The outcome of an effect issued earlier.
    fn force(later: Later) -> Out<Value> {
        match later {
            Later::Ready(outcome) => Ok(outcome),
            Later::Pending => Err(Halt::Suspend),
        }
    }

    /// `outcome`, failing with `code` when the host reports an error.
    fn checked(code: &str, outcome: Value) -> Out<Value> {
        match outcome.get("error") {
            Some(e) if !e.is_null() => Err(fail(code, e.as_str().unwrap_or_default())),
            _ => Ok(outcome),
        }
    }

    /// `effect`, failing with `code` when the host reports an error.
    fn io(&mut self, code: &str, effect: Value) -> Out<Value> {
        let outcome = self.effect(effect)?;
        Self::checked(code, outcome)
    }

    /// `effect`, presumed to succeed, failing with `code` when the host
    /// reports an error.
    fn io_presumed(&mut self, code: &str, effect: Value) -> Out<Value> {
        let outcome = self.presume(effect)?;
        Self::checked(code, outcome)
    }

    /// A pure step of the flow, computed once per driver.
    fn pure<T: Serialize + DeserializeOwned>(&mut self, f: impl FnOnce(&Flow) -> T) -> Out<T> {
        if let Some(text) = self.memo.get(self.memo_at) {
            self.memo_at += 1;
            return serde_json::from_str(text).map_err(|e| fail("policy", e.to_string()));
        }
        let value = f(self.flow);
        let text = serde_json::to_string(&value).map_err(|e| fail("policy", e.to_string()))?;
        self.memo.push(text);
        self.memo_at += 1;
        Ok(value)
    }

    fn now(&mut self, clock: &str) -> Out<u64> {
        let later = self.now_later(clock)?;
        Self::force(later).map(|o| now_of(&o))
    }

    /// The clock, read later.
    fn now_later(&mut self, clock: &str) -> Out<Later> {
        self.later(Some("store"), json!({"effect": "now", "clock": clock}))
    }

    fn list(&mut self, store: &str) -> Out<Vec<(String, String)>> {
        let later = self.list_later(store)?;
        Self::force(later).map(|o| entries_of(&o))
    }

    /// A store's entries, read later.
    fn list_later(&mut self, store: &str) -> Out<Later> {
        self.later(Some("store"), json!({"effect": "list", "store": store}))
    }

    fn get(&mut self, store: &str, key: &str) -> Out<Option<String>> {
        let outcome = self.io(
            "store",
            json!({"effect": "get", "store": store, "key": key}),
        )?;
        Ok(outcome
            .get("value")
            .and_then(Value::as_str)
            .map(str::to_owned))
    }

    fn put(&mut self, store: &str, key: &str, value: &str) -> Out<()> {
        self.io_presumed(
            "store",
            json!({"effect": "put", "store": store, "key": key, "value": value}),
        )
        .map(drop)
    }

    fn remove(&mut self, store: &str, key: &str) -> Out<()> {
        self.io_presumed(
            "store",
            json!({"effect": "remove", "store": store, "key": key}),
        )
        .map(drop)
    }

    /// A removal whose failure changes nothing (the checkpoint is left for
    /// the claim to refuse and recovery to remove).
    fn remove_quietly(&mut self, key: &str) -> Out<()> {
        self.presume(json!({"effect": "remove", "store": "shared", "key": key}))
            .map(drop)
    }

    fn flag(&mut self, effect: Value, field: &str) -> Out<bool> {
        let outcome = self.io("store", effect)?;
        Ok(outcome.get(field).and_then(Value::as_bool).unwrap_or(false))
    }

    fn claimed(&mut self, key: &str) -> Out<bool> {
        self.flag(json!({"effect": "claimed", "key": key}), "claimed")
    }

    fn recorded(&mut self, id: &str, since: u64) -> Out<Option<bool>> {
        let outcome = self.io(
            "sink",
            json!({"effect": "recorded", "id": id, "since": since}),
        )?;
        Ok(outcome.get("recorded").and_then(Value::as_bool))
    }

    fn lock(&mut self, claim: Option<(&str, u64)>) -> Out<Lock> {
        let effect = match claim {
            Some((key, deadline)) => {
                json!({"effect": "lock", "claim": {"key": key, "deadline": deadline}})
            }
            None => json!({"effect": "lock"}),
        };
        let outcome = self.effect(effect)?;
        let text = |field: &str| {
            outcome
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok(Lock {
            previous: text("previous"),
            locked: outcome
                .get("locked")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            refused: text("refused").or_else(|| text("error")),
            taken: outcome
                .get("taken")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    fn unlock(&mut self) -> Out<()> {
        self.presume(json!({"effect": "unlock"})).map(drop)
    }

    /// Appends `line` (ending the lock): why the first sink did not take
    /// it, and why another did not.
    fn append(&mut self, line: &str) -> Out<(Option<String>, Option<String>)> {
        let outcome = self.presume(json!({"effect": "append", "line": line}))?;
        let text = |field: &str| {
            outcome
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok((text("error"), text("secondary")))
    }

    fn notify(&mut self, events: &Value) -> Out<()> {
        if events.as_array().is_some_and(Vec::is_empty) {
            return Ok(());
        }
        self.presume(json!({"effect": "notify", "events": events}))
            .map(drop)
    }
}

/// The time a `now` outcome gives.
fn now_of(outcome: &Value) -> u64 {
    outcome.get("now").and_then(Value::as_u64).unwrap_or(0)
}

/// The entries a `list` outcome gives.
fn entries_of(outcome: &Value) -> Vec<(String, String)> {
    outcome
        .get("entries")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|e| {
                    Some((
                        e.get(0)?.as_str()?.to_owned(),
                        e.get(1)?.as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What `lock` answered.
struct Lock {
    previous: Option<String>,
    locked: bool,
    refused: Option<String>,
    taken: bool,
}

/// A flow step's result, as the memo keeps it: the step, or the step
/// error's code-bearing failure.
type Stepped = Result<Step, (Option<String>, String, String)>;

fn stepped(r: Result<Step, StepError>) -> Stepped {
    r.map_err(|e| match &e {
        StepError::Checkpoint(_) => {
            let text = match step_fail(None, &e, "invalid-edit") {
                Halt::Fail(v) => v.to_string(),
                Halt::Suspend => String::new(),
            };
            (Some(text), String::new(), String::new())
        }
        StepError::Invalid(m) => (None, String::from("invalid-edit"), m.clone()),
        StepError::Grant(_) => (None, String::from("invalid-edit"), e.to_string()),
    })
}

/// The failure a memoised step error stands for, for approval `id`.
fn stepped_fail(id: &str, e: (Option<String>, String, String), code: &str) -> Halt {
    match e {
        (Some(text), _, _) => {
            let mut v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert(String::from("id"), Value::from(id));
            }
            Halt::Fail(v)
        }
        (None, c, m) => fail(if code.is_empty() { &c } else { code }, m),
    }
}

fn audit_of(step: &Step) -> Option<String> {
    match step {
        Step::Run { audit, .. } | Step::Done { audit, .. } => audit.clone(),
        Step::Ask { .. } => None,
    }
}

fn approval_of(step: &Step) -> Option<&str> {
    match step {
        Step::Run { approval_id, .. } => approval_id.as_deref(),
        Step::Done { result, .. } => result.approval_id.as_deref(),
        Step::Ask { pending, .. } => Some(&pending.id),
    }
}

fn to_value<T: Serialize>(value: &T) -> Out<Value> {
    serde_json::to_value(value).map_err(|e| fail("policy", e.to_string()))
}

fn field<'v>(op: &'v Value, name: &str) -> Option<&'v Value> {
    op.get(name).filter(|v| !v.is_null())
}

fn text_field(op: &Value, name: &str) -> Out<String> {
    match field(op, name) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Ok(other.to_string()),
        None => Err(fail("invalid", format!("the operation has no `{name}`"))),
    }
}

fn waiting(op: &Value) -> Vec<String> {
    field(op, "waiting")
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// One operation of a gate, driven by effects.
#[derive(Debug)]
pub struct Driver {
    op: Value,
    outcomes: Vec<Value>,
    memo: Vec<String>,
    over: bool,
}

impl Driver {
    /// Starts the operation `op` (JSON, `{"op": …, …}`; see
    /// docs/gate-steps.md).
    pub fn new(op: &str) -> Result<Driver, StepError> {
        let op: Value = serde_json::from_str(op)
            .map_err(|e| StepError::Invalid(format!("the operation is not JSON: {e}")))?;
        match op.get("op").and_then(Value::as_str) {
            Some(
                "check" | "settle" | "execute" | "call" | "sweep" | "recover" | "grants" | "revoke"
                | "pending" | "gap",
            ) => Ok(Driver {
                op,
                outcomes: Vec::new(),
                memo: Vec::new(),
                over: false,
            }),
            Some(other) => Err(StepError::Invalid(format!("no operation `{other}`"))),
            None => Err(StepError::Invalid(String::from(
                "the operation names no `op`",
            ))),
        }
    }

    /// The next effect (JSON) given the outcome of the last one (none on the
    /// first call): `{"effect": "done", "value"}` and `{"effect": "fail",
    /// "code", "message"}` end the operation.
    pub fn next(&mut self, flow: &Flow, outcome: Option<&str>) -> Result<String, StepError> {
        let outcomes: Vec<&str> = outcome.into_iter().collect();
        let mut batch = self.advance(flow, &outcomes, false)?;
        match (batch.pop(), batch.is_empty()) {
            (Some(effect), true) => Ok(effect.to_string()),
            _ => Err(StepError::Invalid(String::from(
                "the operation asked for no single effect",
            ))),
        }
    }

    /// The next batch of effects (JSON texts, in order), given the outcomes
    /// of the effects of the last batch the host carried out (none on the
    /// first call; fewer than the batch held when the host stopped early).
    /// An effect with a `presumed` outcome is presumed to answer it: the
    /// host carries the batch out in order and stops after an outcome that
    /// carries `error`, or after a presumed effect whose outcome is not the
    /// one presumed (compared as JSON values). A batch that ends with `done` or `fail` ends the operation when
    /// the host did not stop early; else the host calls again with the
    /// outcomes.
    pub fn step(&mut self, flow: &Flow, outcomes: &[&str]) -> Result<Vec<String>, StepError> {
        let batch = self.advance(flow, outcomes, true)?;
        Ok(batch.iter().map(Value::to_string).collect())
    }

    /// Replays the operation with `outcomes` added: the effects issued past
    /// the last outcome, ending with `done` or `fail` when it ended.
    fn advance(
        &mut self,
        flow: &Flow,
        outcomes: &[&str],
        batched: bool,
    ) -> Result<Vec<Value>, StepError> {
        if self.over {
            return Err(StepError::Invalid(String::from("the operation is over")));
        }
        for text in outcomes {
            let value: Value = serde_json::from_str(text)
                .map_err(|e| StepError::Invalid(format!("the outcome is not JSON: {e}")))?;
            self.outcomes.push(value);
        }
        let mut cx = Cx {
            flow,
            outcomes: &self.outcomes,
            at: 0,
            memo: &mut self.memo,
            memo_at: 0,
            batched,
            batch: Vec::new(),
            firm: None,
        };
        let ended = run(&mut cx, &self.op);
        let consumed = cx.at;
        let mut batch = std::mem::take(&mut cx.batch);
        // Steps taken on presumed outcomes are taken again on the real ones.
        if let Some(firm) = cx.firm {
            self.memo.truncate(firm);
        }
        if consumed < self.outcomes.len() {
            self.over = true;
            return Err(StepError::Invalid(String::from(
                "an outcome came for no effect",
            )));
        }
        let end = match ended {
            Ok(value) => Some(json!({"effect": "done", "value": value})),
            Err(Halt::Fail(v)) => Some(v),
            Err(Halt::Suspend) => None,
        };
        if let Some(end) = end {
            // Over once nothing before its end rests on a presumed outcome.
            self.over = batch.is_empty();
            batch.push(end);
        }
        Ok(batch)
    }
}

fn run(cx: &mut Cx<'_>, op: &Value) -> Out<Value> {
    let waiting = waiting(op);
    let joint = field(op, "joint").and_then(Value::as_bool).unwrap_or(false);
    match op.get("op").and_then(Value::as_str).unwrap_or_default() {
        "check" => check(cx, op),
        "settle" => {
            let id = text_field(op, "id")?;
            let answer = text_field(op, "answer")?;
            let checkpoint = field(op, "checkpoint")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let deadline = field(op, "deadline").and_then(Value::as_u64);
            let now = cx.now_later("host")?;
            settle(cx, &id, &answer, checkpoint, deadline, now, joint)
        }
        "execute" => {
            let ready = field(op, "ready")
                .cloned()
                .ok_or_else(|| fail("invalid", "the operation has no `ready`"))?;
            execute(cx, &ready)
        }
        "call" => call(cx, op, joint),
        "sweep" => sweep(cx, &waiting, joint),
        "recover" => recover(cx, &waiting, joint).map(|n| json!({"recovered": n})),
        "grants" => {
            let now = cx.now("host")?;
            let listed = grants(cx, now)?;
            Ok(json!({"grants": listed}))
        }
        "revoke" => revoke(cx, &text_field(op, "id")?),
        "pending" => pending(cx, &waiting, joint),
        "gap" => gap(cx, &text_field(op, "what")?),
        other => Err(fail("invalid", format!("no operation `{other}`"))),
    }
}

/// The pending approval a stored checkpoint carries, checked to name `id`.
fn open(cx: &mut Cx<'_>, id: &str, checkpoint: &str) -> Out<Result<Value, Value>> {
    let opened = cx.pure(|flow| {
        flow.open(checkpoint)
            .map_err(|e| match step_fail(Some(id), &e, "checkpoint") {
                Halt::Fail(v) => v,
                Halt::Suspend => Value::Null,
            })
            .and_then(|p| serde_json::to_value(p).map_err(|e| Value::from(e.to_string())))
    })?;
    Ok(opened.and_then(|pending| {
        let named = pending
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if named == id {
            Ok(pending)
        } else {
            Err(misnamed(id, named))
        }
    }))
}

fn misnamed(id: &str, named: &str) -> Value {
    let detail = format!("it is stored as `{id}` but names `{named}`");
    json!({"effect": "fail", "code": "checkpoint", "id": id, "kind": "invalid",
           "detail": detail, "message": format!("checkpoint is invalid: {detail}")})
}

fn u64_of(v: &Value, name: &str) -> u64 {
    v.get(name).and_then(Value::as_u64).unwrap_or(0)
}

/// Where a step leaves a call, as a `done` value's fields.
fn outcome(cx: &mut Cx<'_>, step: Step, unwritten: Option<String>) -> Out<Value> {
    match step {
        Step::Run {
            decision,
            args,
            approval_id,
            ticket,
            audit_error,
            events,
            ..
        } => {
            let ready = json!({
                "decision": to_value(&decision)?,
                "args": args,
                "approval_id": approval_id,
                "ticket": ticket,
                "audit_error": audit_error.or_else(|| unwritten.clone()),
                "events": to_value(&events)?,
            });
            match unwritten {
                Some(why) if cx.flow.settings().audit_required => {
                    let ran = json!({"unrecorded": why, "elapsed_ms": 0});
                    let (result, more) = finish(cx, &ready, Later::Ready(ran))?;
                    let mut all = events.iter().map(to_value).collect::<Out<Vec<_>>>()?;
                    all.extend(more);
                    Ok(json!({"outcome": "done", "result": result, "events": all}))
                }
                _ => Ok(json!({"outcome": "run", "ready": ready})),
            }
        }
        Step::Done {
            mut result, events, ..
        } => {
            result.audit_error = result.audit_error.or(unwritten);
            Ok(
                json!({"outcome": "done", "result": to_value(&result)?, "events": to_value(&events)?}),
            )
        }
        Step::Ask { .. } => Err(fail(
            "policy",
            "the flow returned an `ask` step out of order",
        )),
    }
}

/// Takes one flow step under the writer lock and appends its line: the
/// step, and why its line could not be written (the first sink's failure,
/// else another's).
fn stepped_locked(
    cx: &mut Cx<'_>,
    lock: Lock,
    take: impl FnOnce(&Flow, Option<&str>) -> Result<Step, StepError>,
) -> Out<(Step, Option<String>)> {
    let previous = lock.previous.clone();
    let step = cx.pure(|flow| stepped(take(flow, previous.as_deref())))?;
    let step = match step {
        Ok(step) => step,
        Err(e) => {
            cx.unlock()?;
            return Err(stepped_fail("", e, "policy"));
        }
    };
    let failed = match (audit_of(&step), lock.refused) {
        (_, Some(why)) => {
            cx.unlock()?;
            Some(why)
        }
        (Some(line), None) => {
            let (error, secondary) = cx.append(&line)?;
            error.or(secondary)
        }
        (None, None) => {
            cx.unlock()?;
            None
        }
    };
    Ok((step, failed))
}

/// Records how a ready call's run went (`ran`, read after the clock and the
/// lock are asked for): the result and the events to report.
fn finish(cx: &mut Cx<'_>, ready: &Value, ran: Later) -> Out<(Value, Vec<Value>)> {
    let ticket = ready
        .get("ticket")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let now = cx.now_later("host")?;
    let lock = cx.lock(None)?;
    let ran = Cx::force(ran)?.to_string();
    let now = now_of(&Cx::force(now)?);
    let (step, unwritten) = stepped_locked(cx, lock, |flow, previous| {
        flow.finish(&ticket, &ran, now, previous)
    })?;
    match step {
        Step::Done {
            mut result, events, ..
        } => {
            result.audit_error = result.audit_error.or(unwritten).or_else(|| {
                ready
                    .get("audit_error")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            let events = events.iter().map(to_value).collect::<Out<Vec<_>>>()?;
            Ok((to_value(&result)?, events))
        }
        _ => Err(fail("policy", "the flow returned a step out of order")),
    }
}

/// `execute`: runs a ready call's tool and records how it went.
fn execute(cx: &mut Cx<'_>, ready: &Value) -> Out<Value> {
    cx.notify(ready.get("events").unwrap_or(&Value::Null))?;
    let args = ready.get("args").cloned().unwrap_or(Value::Null);
    let ran = cx.later(None, json!({"effect": "run", "args": args}))?;
    let (result, events) = finish(cx, ready, ran)?;
    cx.notify(&Value::Array(events))?;
    Ok(json!({"result": result}))
}

/// The sealed grants a call is decided with, by the key they are held
/// under: the session's and (with a key) the store's, less the revoked.
fn sealed_grants(cx: &mut Cx<'_>) -> Out<Vec<(String, String)>> {
    let lists = grant_lists(cx)?;
    sealed_of(lists)
}

/// The listings [`sealed_grants`] reads, asked for now and read later.
fn grant_lists(cx: &mut Cx<'_>) -> Out<(Later, Option<Later>)> {
    let session = cx.list_later("session")?;
    let shared = if cx.flow.keyed() {
        Some(cx.list_later("shared")?)
    } else {
        None
    };
    Ok((session, shared))
}

/// The sealed grants the listings hold.
fn sealed_of(lists: (Later, Option<Later>)) -> Out<Vec<(String, String)>> {
    let session = entries_of(&Cx::force(lists.0)?);
    let shared = match lists.1 {
        Some(later) => Some(entries_of(&Cx::force(later)?)),
        None => None,
    };
    let mut revoked: std::collections::BTreeSet<String> = session
        .iter()
        .filter_map(|(key, _)| match Key::of(key) {
            Key::Revoked(id) => Some(id.to_owned()),
            _ => None,
        })
        .collect();
    let mut all: Vec<(String, String)> = session
        .iter()
        .filter_map(|(key, text)| match Key::of(key) {
            Key::Grant(id) => Some((id.to_owned(), text.clone())),
            _ => None,
        })
        .collect();
    if let Some(shared) = shared {
        revoked.extend(shared.iter().filter_map(|(key, _)| match Key::of(key) {
            Key::Revoked(id) => Some(id.to_owned()),
            _ => None,
        }));
        // A grant that says it is a session grant lives in memory only.
        all.extend(shared.iter().filter_map(|(key, text)| match Key::of(key) {
            Key::Grant(id) if sealed_scope(text).as_deref() != Some("session") => {
                Some((id.to_owned(), text.clone()))
            }
            _ => None,
        }));
    }
    all.retain(|(key, text)| {
        !revoked.contains(key) && sealed_id(text).is_none_or(|id| !revoked.contains(&id))
    });
    Ok(all)
}

/// Every grant in force or refused, opened at `now`.
fn grants(cx: &mut Cx<'_>, now: u64) -> Out<Vec<Value>> {
    let mut out = Vec::new();
    for (id, sealed) in sealed_grants(cx)? {
        let opened = cx.pure(|flow| {
            flow.open_grant(&sealed, now)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_json::from_str::<Grant>(&text).map_err(|e| e.to_string()))
        })?;
        out.push(match opened {
            Ok(grant) => json!({"id": id, "grant": to_value(&grant)?}),
            Err(why) => json!({"id": id, "refused": why}),
        });
    }
    Ok(out)
}

/// Keeps a grant just made: a session grant in the session store, the
/// others in the shared one.
fn keep(cx: &mut Cx<'_>, step: &Step) -> Out<Option<(String, bool)>> {
    let Step::Run {
        grant: Some(made), ..
    } = step
    else {
        return Ok(None);
    };
    let session = made.grant.scope == toolgate_shapes::grants::Scope::Session;
    let store = if session { "session" } else { "shared" };
    cx.put(
        store,
        &format!("{GRANT_PREFIX}{}", made.grant.id),
        &made.sealed,
    )?;
    Ok(Some((made.grant.id.clone(), session)))
}

fn forget(cx: &mut Cx<'_>, kept: Option<&(String, bool)>) -> Out<()> {
    if let Some((id, session)) = kept {
        let store = if *session { "session" } else { "shared" };
        let _ = cx.presume(json!({"effect": "remove", "store": store,
                                  "key": format!("{GRANT_PREFIX}{id}")}))?;
    }
    Ok(())
}

/// `check`: decides a call; a confirm's checkpoint is stored.
fn check(cx: &mut Cx<'_>, op: &Value) -> Out<Value> {
    let id = text_field(op, "id")?;
    let mut call = field(op, "call")
        .cloned()
        .ok_or_else(|| fail("invalid", "the operation has no `call`"))?;
    // The listings, the clock and the lock in one batch.
    let lists = grant_lists(cx)?;
    let now = cx.now_later("host")?;
    let lock = cx.lock(None)?;
    let grants: Vec<Value> = sealed_of(lists)?
        .into_iter()
        .map(|(_, sealed)| Value::from(sealed))
        .collect();
    if let Some(o) = call.as_object_mut() {
        o.insert(String::from("grants"), Value::Array(grants));
    }
    let text = call.to_string();
    let now = now_of(&Cx::force(now)?);
    let (step, unwritten) = stepped_locked(cx, lock, |flow, previous| {
        flow.begin(&text, &id, now, previous)
    })?;
    if let Step::Ask {
        pending,
        checkpoint,
        events,
    } = step
    {
        cx.put("shared", &pending.id, &checkpoint)?;
        return Ok(json!({
            "outcome": "ask", "pending": to_value(&pending)?,
            "checkpoint": checkpoint, "events": to_value(&events)?,
        }));
    }
    outcome(cx, step, unwritten)
}

/// Takes back the claim on approval `id` when its record is missing, under
/// the writer lock: `Some(true)` recorded, `Some(false)` taken back, `None`
/// when no claim is there or nothing can say.
fn release_unrecorded(cx: &mut Cx<'_>, id: &str, since: u64) -> Out<Option<bool>> {
    let lock = cx.lock(None)?;
    if !lock.locked || lock.refused.is_some() {
        cx.unlock()?;
        return Ok(None);
    }
    let answer = (|| {
        if !cx.claimed(id)? {
            return Ok(None);
        }
        match cx.recorded(id, since)? {
            Some(true) => Ok(Some(true)),
            Some(false) => Ok(cx
                .flag(json!({"effect": "release", "key": id}), "released")?
                .then_some(false)),
            None => Ok(None),
        }
    })();
    match answer {
        Err(Halt::Suspend) => Err(Halt::Suspend),
        other => {
            cx.unlock()?;
            other
        }
    }
}

/// `settle`: claims and records an answer to approval `id` as one step.
fn settle(
    cx: &mut Cx<'_>,
    id: &str,
    answer: &str,
    checkpoint: Option<String>,
    deadline: Option<u64>,
    now: Later,
    joint: bool,
) -> Out<Value> {
    let checkpoint = match checkpoint {
        Some(text) => text,
        None => cx
            .get("shared", id)?
            .ok_or_else(|| fail("unknown", format!("no pending approval `{id}`")))?,
    };
    let requested = open(cx, id, &checkpoint)?;
    let deadline = match (deadline, &requested) {
        (Some(deadline), _) => deadline,
        (None, Ok(pending)) => u64_of(pending, "deadline"),
        (None, Err(refused)) => return Err(Halt::Fail(refused.clone())),
    };
    let since = requested
        .as_ref()
        .map(|p| u64_of(p, "requested_at").saturating_sub(CLOCK_SLACK_MS))
        .unwrap_or(0);
    let audit = cx.flow.settings().audit;
    let lock = cx.lock(joint.then_some((id, deadline)))?;
    let now = now_of(&Cx::force(now)?);
    if lock.taken {
        return Err(fail(
            "already-answered",
            format!("approval `{id}` was already answered"),
        ));
    }
    if joint {
        if let Some(why) = &lock.refused {
            return Err(fail(
                "sink",
                format!("approval `{id}` stays pending: its record could not be written: {why}"),
            ));
        }
    }
    let previous = lock.previous.clone();
    let made =
        cx.pure(|flow| stepped(flow.settle(&checkpoint, answer, now, previous.as_deref())))?;
    let step = match made {
        Ok(step) => step,
        Err(e) => {
            cx.unlock()?;
            return Err(stepped_fail(id, e, ""));
        }
    };
    if approval_of(&step) != Some(id) {
        cx.unlock()?;
        return Err(Halt::Fail(misnamed(
            id,
            approval_of(&step).unwrap_or_default(),
        )));
    }
    // Inside the lock: claim, remove (without a log), keep the grant. A
    // failure leaves the lock without a line.
    let inside = (|| -> Out<Option<(String, bool)>> {
        if !joint {
            if lock.refused.is_some() {
                return Err(fail(
                    "sink",
                    format!(
                        "approval `{id}` was not settled (it stays pending): the audit log's writer lock could not be taken, and a claim made without it could be taken over"
                    ),
                ));
            }
            // Presumed claimed: the record and what follows come in the
            // same batch, and a claim taken elsewhere stops it there.
            let claimed = cx.presume_as(
                json!({"effect": "claim", "key": id, "deadline": deadline}),
                json!({"claimed": true}),
            )?;
            let claimed = Cx::checked("store", claimed)?
                .get("claimed")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            if !claimed {
                let taken_over = audit && lock.locked && cx.recorded(id, since)? == Some(false);
                if !taken_over {
                    return Err(fail(
                        "already-answered",
                        format!("approval `{id}` was already answered"),
                    ));
                }
            }
            if !audit {
                cx.remove("shared", id)?;
            }
        }
        // The grant is kept before its record is written: a grant that
        // cannot be kept fails the step, and nothing runs.
        keep(cx, &step)
    })();
    let kept = match inside {
        Ok(kept) => kept,
        Err(Halt::Suspend) => return Err(Halt::Suspend),
        Err(halt) => {
            cx.unlock()?;
            return Err(halt);
        }
    };
    let line = audit_of(&step);
    let (error, secondary) = match &line {
        Some(line) => cx.append(line)?,
        None => {
            cx.unlock()?;
            (None, None)
        }
    };
    let unwritten = if joint {
        if let Some(why) = error {
            forget(cx, kept.as_ref())?;
            return Err(fail(
                "sink",
                format!("approval `{id}` stays pending: its record could not be written: {why}"),
            ));
        }
        secondary
    } else if audit {
        match &error {
            // Recorded: the checkpoint goes (a removal that fails leaves one
            // the claim refuses and recovery removes).
            None => cx.remove_quietly(id)?,
            // Not recorded, and the gate runs nothing it cannot record: the
            // claim is taken back, the approval stays pending, unused.
            Some(why) if cx.flow.settings().audit_required => {
                forget(cx, kept.as_ref())?;
                let state = match release_unrecorded(cx, id, since) {
                    Ok(Some(false)) => "it stays pending",
                    Err(Halt::Suspend) => return Err(Halt::Suspend),
                    _ => "its claim could not be taken back",
                };
                return Err(fail(
                    "sink",
                    format!("approval `{id}` was not settled ({state}): its record could not be written: {why}"),
                ));
            }
            Some(_) => cx.remove_quietly(id)?,
        }
        error.or(secondary)
    } else {
        None
    };
    let out = outcome(cx, step, unwritten)?;
    if out.get("outcome").and_then(Value::as_str) == Some("done") {
        // The call was not run: neither is the grant its record would have
        // carried kept.
        forget(cx, kept.as_ref())?;
    }
    Ok(out)
}

/// `call`: decides, waits for a person when one must answer, runs.
fn call(cx: &mut Cx<'_>, op: &Value, joint: bool) -> Out<Value> {
    let mut checked = check(cx, op)?;
    if checked.get("outcome").and_then(Value::as_str) == Some("ask") {
        let events = checked.get("events").cloned().unwrap_or(Value::Null);
        cx.notify(&events)?;
        let id = checked
            .pointer("/pending/id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let deadline = checked
            .pointer("/pending/deadline")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let checkpoint = checked
            .get("checkpoint")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // The answer is read once the clock and the lock were asked for.
        let waited = cx.later(
            None,
            json!({"effect": "wait", "id": id, "deadline": deadline, "checkpoint": checkpoint}),
        )?;
        let now = cx.now_later("host")?;
        let waited = match waited {
            Later::Ready(waited) => waited,
            Later::Pending => {
                // The lock is asked for in the same batch; the answer is
                // needed once it is held.
                let _ = cx.lock(joint.then_some((id.as_str(), deadline)))?;
                return Err(Halt::Suspend);
            }
        };
        let answer = match waited.get("answer").cloned() {
            Some(Value::String(kind)) => json!({ "answer": kind }),
            Some(answer) => answer,
            None => json!({"answer": "none"}),
        }
        .to_string();
        checked = settle(
            cx,
            &id,
            &answer,
            Some(checkpoint),
            Some(deadline),
            now,
            joint,
        )?;
    }
    match checked.get("outcome").and_then(Value::as_str) {
        Some("run") => {
            let ready = checked.get("ready").cloned().unwrap_or(Value::Null);
            execute(cx, &ready)
        }
        _ => {
            cx.notify(checked.get("events").unwrap_or(&Value::Null))?;
            Ok(json!({"result": checked.get("result")}))
        }
    }
}

/// `recover`: claims whose holder died between claim and record.
fn recover(cx: &mut Cx<'_>, waiting: &[String], joint: bool) -> Out<u64> {
    if !cx.flow.settings().audit || joint {
        return Ok(0);
    }
    let mut recovered = 0;
    for (key, text) in cx.list("shared")? {
        let Key::Approval(id) = Key::of(&key) else {
            continue;
        };
        if waiting.iter().any(|w| w == id) || !cx.claimed(id)? {
            continue;
        }
        let since = match open(cx, id, &text)? {
            Ok(p) => u64_of(&p, "requested_at").saturating_sub(CLOCK_SLACK_MS),
            Err(_) => 0,
        };
        match release_unrecorded(cx, id, since)? {
            Some(true) => {
                cx.remove("shared", id)?;
                recovered += 1;
            }
            Some(false) => recovered += 1,
            None => {}
        }
    }
    Ok(recovered)
}

/// `pending`: the approvals in the store, each opened and checked.
fn pending(cx: &mut Cx<'_>, waiting: &[String], joint: bool) -> Out<Value> {
    recover(cx, waiting, joint)?;
    let mut out = Vec::new();
    for (key, text) in cx.list("shared")? {
        let Key::Approval(id) = Key::of(&key) else {
            continue;
        };
        if cx.claimed(id)? {
            continue;
        }
        out.push(match open(cx, id, &text)? {
            Ok(p) => json!({"id": id, "pending": p}),
            Err(e) => json!({"id": id, "error": e}),
        });
    }
    Ok(json!({ "pending": out }))
}

/// `sweep`: closes approvals past their deadline (claimed, recorded,
/// never run), drops the store's stale tombstones, expired grants and the
/// tombstones of revoked grants that have expired.
fn sweep(cx: &mut Cx<'_>, waiting: &[String], joint: bool) -> Out<Value> {
    // By the store's clock when it has one (replicas sharing a database
    // judge by one clock).
    let now = cx.now("store")?;
    // Claims dead holders left without their records are taken back first,
    // so those past their deadline expire below with a record.
    recover(cx, waiting, joint)?;
    let mut closed = 0u64;
    for (key, text) in cx.list("shared")? {
        let Key::Approval(id) = Key::of(&key) else {
            continue;
        };
        let Ok(request) = open(cx, id, &text)? else {
            continue;
        };
        let deadline = u64_of(&request, "deadline");
        if deadline > now || waiting.iter().any(|w| w == id) {
            continue;
        }
        match settle(
            cx,
            id,
            r#"{"answer":"none"}"#,
            Some(text.clone()),
            Some(deadline),
            Later::Ready(json!({ "now": now })),
            joint,
        ) {
            Ok(out) => {
                if out.get("outcome").and_then(Value::as_str) == Some("done") {
                    closed += 1;
                    cx.notify(out.get("events").unwrap_or(&Value::Null))?;
                }
            }
            Err(Halt::Fail(v))
                if v.get("code").and_then(Value::as_str) == Some("already-answered") =>
            {
                // Claimed elsewhere: only the checkpoint was left behind.
                cx.remove("shared", id)?;
            }
            Err(halt) => return Err(halt),
        }
    }
    cx.io_presumed("store", json!({"effect": "sweep-claims", "now": now}))?;
    // A stored grant past its expiry (its MAC good: checked first) is
    // removed; a forged or unreadable one is left for a person to see.
    let session: Vec<String> = cx
        .list("session")?
        .into_iter()
        .map(|(key, _)| key)
        .collect();
    for listed in grants(cx, now)? {
        let id = listed.get("id").and_then(Value::as_str).unwrap_or_default();
        let expired = listed
            .get("refused")
            .and_then(Value::as_str)
            .is_some_and(|why| why.starts_with("grant.expired"));
        if expired && !session.contains(&format!("{GRANT_PREFIX}{id}")) {
            cx.remove("shared", &format!("{GRANT_PREFIX}{id}"))?;
        }
    }
    // A revoked grant's tombstone goes once the grant has expired: put back
    // after that, the component refuses it as expired anyway.
    for (key, until) in cx.list("shared")? {
        if let Key::Revoked(_) = Key::of(&key) {
            if until.trim().parse::<u64>().is_ok_and(|t| t < now) {
                cx.remove("shared", &key)?;
            }
        }
    }
    Ok(json!({ "closed": closed, "now": now }))
}

/// `revoke`: audits a grant's revocation and removes it, leaving
/// tombstones so no copy applies again.
fn revoke(cx: &mut Cx<'_>, id: &str) -> Out<Value> {
    let session = cx.get("session", &format!("{GRANT_PREFIX}{id}"))?;
    let sealed = match &session {
        Some(sealed) => Some(sealed.clone()),
        None => sealed_grants(cx)?
            .into_iter()
            .find_map(|(key, text)| (key == id).then_some(text)),
    };
    let Some(sealed) = sealed else {
        return Ok(json!({"revoked": false}));
    };
    let now = cx.now("host")?;
    if cx.flow.settings().audit {
        let lock = cx.lock(None)?;
        let previous = lock.previous.clone();
        let line = cx.pure(|flow| {
            flow.revoke(&sealed, now, previous.as_deref())
                .map_err(|e| e.to_string())
        })?;
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                cx.unlock()?;
                return Err(fail("policy", e));
            }
        };
        let failed = match lock.refused {
            Some(why) => {
                cx.unlock()?;
                Some(why)
            }
            None => {
                let (error, secondary) = cx.append(&line)?;
                error.or(secondary)
            }
        };
        if let Some(why) = failed {
            return Err(fail("sink", why));
        }
    }
    // Revoked by the id sealed inside it, and by the key it was held
    // under: a copy under any key never applies again.
    let sealed_as = sealed_id(&sealed).unwrap_or_else(|| id.to_owned());
    cx.put("session", &format!("{REVOKED_PREFIX}{id}"), "never")?;
    cx.put("session", &format!("{REVOKED_PREFIX}{sealed_as}"), "never")?;
    if session.is_some() {
        cx.remove("session", &format!("{GRANT_PREFIX}{id}"))?;
    } else {
        // Until the grant would have expired; for good when it never does,
        // or when it cannot be opened (then nothing says when).
        let until = cx.pure(|flow| {
            flow.open_grant(&sealed, now)
                .ok()
                .and_then(|text| serde_json::from_str::<Grant>(&text).ok())
                .and_then(|grant| grant.expires_at)
        })?;
        let until = until.map_or_else(|| String::from("never"), |t| t.to_string());
        for key in [sealed_as.as_str(), id] {
            cx.put("shared", &format!("{REVOKED_PREFIX}{key}"), &until)?;
            cx.remove("shared", &format!("{GRANT_PREFIX}{key}"))?;
            if sealed_as == id {
                break;
            }
        }
    }
    Ok(json!({"revoked": true}))
}

/// `gap`: records that the audit log was found torn and repaired (`what`
/// says what was set aside).
fn gap(cx: &mut Cx<'_>, what: &str) -> Out<Value> {
    let now = cx.now_later("host")?;
    let lock = cx.lock(None)?;
    let now = now_of(&Cx::force(now)?);
    let previous = lock.previous.clone();
    let line = cx.pure(|flow| {
        flow.gap(what, now, previous.as_deref())
            .map_err(|e| e.to_string())
    })?;
    let failed = match (line, lock.refused) {
        (Err(e), _) => {
            cx.unlock()?;
            return Err(fail("policy", e));
        }
        (Ok(_), Some(why)) => {
            cx.unlock()?;
            Some(why)
        }
        (Ok(line), None) => {
            let (error, secondary) = cx.append(&line)?;
            error.or(secondary)
        }
    };
    match failed {
        Some(why) => Err(fail("sink", why)),
        None => Ok(json!({})),
    }
}
