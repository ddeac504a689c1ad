//! The gate's interpreter of the component's effects (docs/gate-steps.md):
//! the component drives each operation (check, settle, execute, sweep,
//! recover, pending, grants, revoke) and this loop carries out what it asks
//! on the checkpoint store, the session's memory, the clock, the audit sinks
//! (under the chain's lock and the first sink's writer lock) and the tool.

use super::audit::Claimed;
use super::store::{CheckpointStore, StoreError};
use super::{lock, now_ms, Event, Gate, GateError};
use crate::flow::{Driving, StepError};
use crate::records::CheckpointError;
use crate::runtime::Error;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::Instant;

/// The tool a `run` effect runs.
pub(super) type Execute<'e> = Option<Box<dyn FnOnce(&str) -> Result<String, String> + 'e>>;

/// One operation's effects, batch by batch (docs/gate-steps.md): the
/// driver's next batch is asked for once the last one is carried out, or
/// when an outcome carries an `error` or differs from the one the driver
/// presumed (the rest of that batch is then not carried out: the driver
/// decides again from the real outcome).
struct Batches<'d> {
    driving: Driving<'d>,
    queue: VecDeque<Value>,
    outcomes: Vec<String>,
    back: Option<Value>,
}

impl<'d> Batches<'d> {
    fn new(driving: Driving<'d>, first: Vec<String>) -> Result<Batches<'d>, GateError> {
        Ok(Batches {
            driving,
            queue: read(first)?,
            outcomes: Vec::new(),
            back: None,
        })
    }

    /// The next effect to carry out (crossing into the component when the
    /// batch is done).
    fn next(&mut self) -> Result<Value, GateError> {
        if let Some(effect) = self.back.take() {
            return Ok(effect);
        }
        if self.queue.is_empty() {
            let outcomes = std::mem::take(&mut self.outcomes);
            self.queue = read(self.driving.step(&outcomes).map_err(driver_error)?)?;
        }
        self.queue
            .pop_front()
            .ok_or_else(|| fault("the component returned an empty batch"))
    }

    /// Hands back an effect `next` returned, to be returned again.
    fn put_back(&mut self, effect: Value) {
        self.back = Some(effect);
    }

    /// The outcome of `effect`.
    fn answer(&mut self, effect: &Value, outcome: &Value) {
        self.outcomes.push(outcome.to_string());
        let error = outcome.get("error").is_some_and(|e| !e.is_null());
        let differs = effect.get("presumed").is_some_and(|p| p != outcome);
        if error || differs {
            self.queue.clear();
        }
    }
}

/// A batch's effects, read.
fn read(batch: Vec<String>) -> Result<VecDeque<Value>, GateError> {
    batch
        .iter()
        .map(|text| {
            serde_json::from_str(text)
                .map_err(|e| fault(format!("the component's effect does not read: {e}")))
        })
        .collect()
}

/// Whether an effect ends the stretch under the writer lock.
fn leaves(effect: &Value) -> bool {
    matches!(
        text(effect, "effect"),
        "append" | "unlock" | "done" | "fail"
    )
}

fn fault(message: impl Into<String>) -> GateError {
    GateError::Policy(Error::Fault(message.into()))
}

fn driver_error(e: StepError) -> GateError {
    match e {
        StepError::Policy(e) => GateError::Policy(e),
        other => fault(other.to_string()),
    }
}

fn text<'v>(v: &'v Value, name: &str) -> &'v str {
    v.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// A failure's checkpoint refusal, by its kind.
fn checkpoint_error(effect: &Value) -> CheckpointError {
    let detail = effect.get("detail");
    let detail_text = || {
        detail
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match text(effect, "kind") {
        "format" => CheckpointError::Format(detail_text()),
        "unsigned" => CheckpointError::Unsigned,
        "forged" => CheckpointError::Forged,
        "weak-key" => CheckpointError::WeakKey(
            detail
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
        ),
        _ => CheckpointError::Invalid(detail_text()),
    }
}

/// The error of a failed operation on approval `id`.
pub(super) fn failure(effect: &Value, id: &str) -> GateError {
    let message = text(effect, "message").to_owned();
    let named = effect
        .get("id")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .unwrap_or(id)
        .to_owned();
    match text(effect, "code") {
        "unknown" => GateError::Unknown(named),
        "already-answered" => GateError::AlreadyAnswered(named),
        "invalid-edit" => GateError::InvalidEdit(message),
        "checkpoint" => GateError::Checkpoint {
            id: named,
            source: checkpoint_error(effect),
        },
        "store" => GateError::Store(StoreError::Io(std::io::Error::other(message))),
        "sink" => GateError::Sink(super::audit::SinkError::Io(std::io::Error::other(message))),
        _ => fault(message),
    }
}

impl Gate {
    /// Drives operation `op` to its end: its `done` value, or its failure
    /// (the store's or sink's own error when an effect failed).
    pub(super) fn drive(&self, op: &Value, execute: Execute<'_>) -> Result<Value, GateError> {
        let (driving, first) = self
            .inner
            .flow
            .start(&op.to_string())
            .map_err(driver_error)?;
        let batches = RefCell::new(Batches::new(driving, first)?);
        let mut execute = execute;
        let failed: RefCell<Option<GateError>> = RefCell::new(None);
        loop {
            let effect = batches.borrow_mut().next()?;
            let outcome = match text(&effect, "effect") {
                "done" => return Ok(effect.get("value").cloned().unwrap_or(Value::Null)),
                "fail" => {
                    // The failure of the effect just carried out is its own
                    // error, as the store or sink gave it.
                    return Err(failed
                        .take()
                        .filter(|_| matches!(text(&effect, "code"), "store" | "sink"))
                        .unwrap_or_else(|| failure(&effect, text(op, "id"))));
                }
                "lock" => {
                    self.locked(&batches, &effect, &failed)?;
                    continue;
                }
                "run" => {
                    let tool = execute
                        .take()
                        .ok_or_else(|| fault("the component asked to run a tool twice"))?;
                    let started = Instant::now();
                    let ran = tool(text(&effect, "args"));
                    let elapsed_ms =
                        u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    match ran {
                        Ok(output) => json!({"output": output, "elapsed_ms": elapsed_ms}),
                        Err(error) => json!({"error": error, "elapsed_ms": elapsed_ms}),
                    }
                }
                _ => self.perform(&effect, &failed),
            };
            batches.borrow_mut().answer(&effect, &outcome);
        }
    }

    /// Carries out `lock` and the effects up to its `append` or `unlock`,
    /// holding the chain's lock and, when the first sink has one, its writer
    /// lock (or its transaction, for a `lock` with `claim`). The first sink's
    /// line is written under the lock and waited for outside it, so
    /// concurrent calls share the sink's syncs (group commit); nothing that
    /// depends on the record is carried out before the wait ends.
    fn locked(
        &self,
        batches: &RefCell<Batches<'_>>,
        effect: &Value,
        failed: &RefCell<Option<GateError>>,
    ) -> Result<(), GateError> {
        let mut chain = lock(&self.inner.chain);
        let Some(primary) = self.inner.sinks.first() else {
            let previous = chain.clone();
            let opened = json!({"previous": previous, "locked": false});
            batches.borrow_mut().answer(effect, &opened);
            let end = self.inside(batches, failed)?;
            leave(batches, end, &json!({"error": "no audit sink"}));
            return Ok(());
        };
        let entered = Cell::new(false);
        let ended: RefCell<Option<Value>> = RefCell::new(None);
        let faulted: RefCell<Option<GateError>> = RefCell::new(None);
        let seal = |previous: Option<&str>| -> Result<String, String> {
            entered.set(true);
            let opened = json!({"previous": previous, "locked": true});
            batches.borrow_mut().answer(effect, &opened);
            match self.inside(batches, failed) {
                Ok(end) => {
                    let line = (text(&end, "effect") == "append").then(|| text(&end, "line"));
                    let line = line.map(str::to_owned);
                    *ended.borrow_mut() = Some(end);
                    line.ok_or_else(String::new)
                }
                Err(e) => {
                    *faulted.borrow_mut() = Some(e);
                    Err(String::new())
                }
            }
        };
        // The line written and its ticket for the sink's sync, or nothing
        // (claimed by another gate), or why the sink wrote nothing.
        type Sealed = Option<Result<Option<(String, Option<u64>)>, String>>;
        let result: Sealed = match effect.get("claim").filter(|c| !c.is_null()) {
            Some(claim) => {
                let deadline = claim.get("deadline").and_then(Value::as_u64).unwrap_or(0);
                let claimed = primary
                    .append_claimed(text(claim, "key"), deadline, &seal)
                    .unwrap_or_else(|| {
                        Err(String::from(
                            "audit sink: the sink cannot claim in its own database",
                        ))
                    });
                Some(claimed.map(|c| match c {
                    Claimed::Recorded(line) => Some((line, None)),
                    Claimed::Taken => None,
                }))
            }
            None => primary
                .append_sealed_deferred(&seal)
                .map(|r| r.map(|(line, ticket)| Some((line, Some(ticket))))),
        };
        if let Some(e) = faulted.into_inner() {
            return Err(e);
        }
        let end = ended.into_inner();
        let (line, end, ticket) = match (result, end) {
            // The sink does not lock: this gate's own chain, its own append.
            (None, _) => {
                let previous = chain.clone();
                let opened = json!({"previous": previous, "locked": false});
                batches.borrow_mut().answer(effect, &opened);
                let end = self.inside(batches, failed)?;
                if text(&end, "effect") != "append" {
                    leave(batches, end, &json!({}));
                    return Ok(());
                }
                let line = text(&end, "line").to_owned();
                if let Err(e) = primary.append(&line) {
                    leave(batches, end, &json!({"error": e.to_string()}));
                    return Ok(());
                }
                (line, end, None)
            }
            // Claimed by another gate: nothing was sealed.
            (Some(Ok(None)), _) => {
                batches.borrow_mut().answer(effect, &json!({"taken": true}));
                return Ok(());
            }
            // The sink could not take its lock: nothing is claimed under it.
            (Some(Err(why)), _) if !entered.get() => {
                let previous = chain.clone();
                let refused = json!({"previous": previous, "locked": false, "refused": why});
                batches.borrow_mut().answer(effect, &refused);
                let end = self.inside(batches, failed)?;
                leave(batches, end, &json!({ "error": why }));
                return Ok(());
            }
            (Some(Err(why)), Some(end)) => {
                leave(batches, end, &json!({ "error": why }));
                return Ok(());
            }
            (Some(Ok(Some((line, ticket)))), Some(end)) if text(&end, "effect") == "append" => {
                (line, end, ticket)
            }
            _ => return Err(fault("the audit sink wrote no line")),
        };
        if let Some(ticket) = ticket {
            // With no other sink to keep in the chain's order, the wait is
            // outside the chain's lock.
            let durable = if self.inner.sinks.len() == 1 {
                drop(chain);
                let durable = primary.wait_durable(ticket);
                chain = lock(&self.inner.chain);
                durable
            } else {
                primary.wait_durable(ticket)
            };
            if let Err(why) = durable {
                leave(batches, end, &json!({ "error": why }));
                return Ok(());
            }
        }
        let mut secondary: Option<String> = None;
        for sink in self.inner.sinks.iter().skip(1) {
            if let Err(e) = sink.append(&line) {
                secondary.get_or_insert(e.to_string());
            }
        }
        *chain = Some(line);
        drop(chain);
        let outcome = match secondary {
            Some(why) => json!({ "secondary": why }),
            None => json!({}),
        };
        leave(batches, end, &outcome);
        Ok(())
    }

    /// Carries out the effects under the writer lock up to the `append` or
    /// `unlock` that leaves it, and returns that effect (or an end the
    /// driver reached without leaving it).
    fn inside(
        &self,
        batches: &RefCell<Batches<'_>>,
        failed: &RefCell<Option<GateError>>,
    ) -> Result<Value, GateError> {
        loop {
            let effect = batches.borrow_mut().next()?;
            if leaves(&effect) {
                return Ok(effect);
            }
            if matches!(text(&effect, "effect"), "lock" | "run" | "wait") {
                return Err(fault(format!(
                    "the component asked for `{}` under the writer lock",
                    text(&effect, "effect")
                )));
            }
            let outcome = self.perform(&effect, failed);
            batches.borrow_mut().answer(&effect, &outcome);
        }
    }

    /// Carries out one store, clock, sink or event effect; an error is
    /// answered to the component and kept in `failed`.
    fn perform(&self, effect: &Value, failed: &RefCell<Option<GateError>>) -> Value {
        *failed.borrow_mut() = None;
        match self.performed(effect) {
            Ok(outcome) => outcome,
            Err(e) => {
                let error = json!({ "error": e.to_string() });
                *failed.borrow_mut() = Some(e);
                error
            }
        }
    }

    fn performed(&self, effect: &Value) -> Result<Value, GateError> {
        let store: &dyn CheckpointStore = match text(effect, "store") {
            "session" => &self.inner.session,
            _ => &*self.inner.store,
        };
        let key = text(effect, "key");
        let number = |name: &str| effect.get(name).and_then(Value::as_u64).unwrap_or(0);
        Ok(match text(effect, "effect") {
            "now" => {
                let now = match text(effect, "clock") {
                    "store" => self.inner.store.now()?.unwrap_or_else(now_ms),
                    _ => now_ms(),
                };
                json!({ "now": now })
            }
            "list" => json!({ "entries": store.list()? }),
            "get" => json!({ "value": store.get(key)? }),
            "put" => {
                store.put(key, text(effect, "value"))?;
                json!({})
            }
            "remove" => {
                store.remove(key)?;
                json!({})
            }
            "claim" => json!({ "claimed": self.inner.store.claim(key, number("deadline"))? }),
            "claimed" => json!({ "claimed": self.inner.store.claimed(key)? }),
            "release" => json!({ "released": self.inner.store.release(key)? }),
            "sweep-claims" => {
                self.inner.store.sweep(number("now"))?;
                json!({})
            }
            "recorded" => {
                let recorded = match self.inner.sinks.first() {
                    Some(primary) => primary.recorded(text(effect, "id"), number("since"))?,
                    None => None,
                };
                json!({ "recorded": recorded })
            }
            "notify" => {
                let events: Vec<Event> =
                    serde_json::from_value(effect.get("events").cloned().unwrap_or(Value::Null))
                        .map_err(|e| fault(format!("the component's events do not read: {e}")))?;
                self.emit(&events);
                json!({})
            }
            "unlock" => json!({}),
            other => return Err(fault(format!("no effect `{other}` in this host"))),
        })
    }
}

/// Answers the effect that left the lock (an end goes back to the loop).
fn leave(batches: &RefCell<Batches<'_>>, end: Value, outcome: &Value) {
    let mut batches = batches.borrow_mut();
    match text(&end, "effect") {
        "done" | "fail" => batches.put_back(end),
        "append" => batches.answer(&end, outcome),
        _ => batches.answer(&end, &json!({})),
    }
}
