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
use std::cell::RefCell;
use std::time::Instant;

/// The tool a `run` effect runs.
pub(super) type Execute<'e> = Option<Box<dyn FnOnce(&str) -> Result<String, String> + 'e>>;

/// How a stretch of effects under the writer lock ended.
enum Inside {
    /// With this line to append.
    Append(String),
    /// Without a line.
    Unlock,
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
        let driving = self
            .inner
            .flow
            .drive(&op.to_string())
            .map_err(driver_error)?;
        let mut execute = execute;
        let failed: RefCell<Option<GateError>> = RefCell::new(None);
        let mut outcome: Option<Value> = None;
        loop {
            let effect = next(&driving, outcome.take())?;
            outcome = Some(match text(&effect, "effect") {
                "done" => return Ok(effect.get("value").cloned().unwrap_or(Value::Null)),
                "fail" => {
                    // The failure of the effect just carried out is its own
                    // error, as the store or sink gave it.
                    return Err(failed
                        .take()
                        .filter(|_| matches!(text(&effect, "code"), "store" | "sink"))
                        .unwrap_or_else(|| failure(&effect, text(op, "id"))));
                }
                "lock" => self.locked(&driving, &effect, &failed)?,
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
            });
        }
    }

    /// Carries out `lock` and the effects up to its `append` or `unlock`,
    /// holding the chain's lock and, when the first sink has one, its writer
    /// lock: the outcome to give next.
    fn locked(
        &self,
        driving: &Driving<'_>,
        effect: &Value,
        failed: &RefCell<Option<GateError>>,
    ) -> Result<Value, GateError> {
        let mut chain = lock(&self.inner.chain);
        let Some(primary) = self.inner.sinks.first() else {
            let previous = chain.clone();
            return self
                .inside(
                    driving,
                    json!({"previous": previous, "locked": false}),
                    failed,
                )
                .map(|_| json!({}));
        };
        let faulted: RefCell<Option<GateError>> = RefCell::new(None);
        let ended: RefCell<Option<Inside>> = RefCell::new(None);
        let seal = |previous: Option<&str>| -> Result<String, String> {
            match self.inside(
                driving,
                json!({"previous": previous, "locked": true}),
                failed,
            ) {
                Ok(Inside::Append(line)) => {
                    *ended.borrow_mut() = Some(Inside::Append(line.clone()));
                    Ok(line)
                }
                Ok(Inside::Unlock) => {
                    *ended.borrow_mut() = Some(Inside::Unlock);
                    Err(String::new())
                }
                Err(e) => {
                    *faulted.borrow_mut() = Some(e);
                    Err(String::new())
                }
            }
        };
        let claim = effect.get("claim").filter(|c| !c.is_null());
        let result = match claim {
            Some(claim) => primary
                .append_claimed(
                    text(claim, "key"),
                    claim.get("deadline").and_then(Value::as_u64).unwrap_or(0),
                    &seal,
                )
                .map(|r| {
                    r.map(|claimed| match claimed {
                        Claimed::Recorded(line) => Some(line),
                        Claimed::Taken => None,
                    })
                })
                .or_else(|| {
                    Some(Err(String::from(
                        "audit sink: the sink cannot claim in its own database",
                    )))
                }),
            None => primary.append_sealed(&seal).map(|r| r.map(Some)),
        };
        if let Some(e) = faulted.into_inner() {
            return Err(e);
        }
        let (line, error) = match (result, ended.into_inner()) {
            // The sink does not lock: this gate's own chain, its own append.
            (None, _) => {
                let previous = chain.clone();
                match self.inside(
                    driving,
                    json!({"previous": previous, "locked": false}),
                    failed,
                )? {
                    Inside::Unlock => return Ok(json!({})),
                    Inside::Append(line) => match primary.append(&line) {
                        Ok(()) => (line, None),
                        Err(e) => (line, Some(e.to_string())),
                    },
                }
            }
            // Claimed by another gate: nothing was sealed.
            (Some(Ok(None)), None) => return Ok(json!({"taken": true})),
            // The sink failed before it sealed (its lock could not be taken).
            (Some(Err(why)), None) => {
                let previous = chain.clone();
                return Ok(json!({"previous": previous, "locked": false, "refused": why}));
            }
            (Some(Ok(Some(line))), Some(Inside::Append(_))) => (line, None),
            (Some(Err(why)), Some(Inside::Append(line))) => (line, Some(why)),
            (_, Some(Inside::Unlock)) => return Ok(json!({})),
            (Some(Ok(_)), _) => return Err(fault("the audit sink wrote no line")),
        };
        if let Some(why) = error {
            return Ok(json!({ "error": why }));
        }
        let mut secondary: Option<String> = None;
        for sink in self.inner.sinks.iter().skip(1) {
            if let Err(e) = sink.append(&line) {
                secondary.get_or_insert(e.to_string());
            }
        }
        *chain = Some(line);
        Ok(json!({ "secondary": secondary }))
    }

    /// Gives `first` (the `lock` outcome) and carries out the effects up to
    /// the `append` or `unlock` that ends the lock.
    fn inside(
        &self,
        driving: &Driving<'_>,
        first: Value,
        failed: &RefCell<Option<GateError>>,
    ) -> Result<Inside, GateError> {
        let mut outcome = Some(first);
        loop {
            let effect = next(driving, outcome.take())?;
            match text(&effect, "effect") {
                "append" => return Ok(Inside::Append(text(&effect, "line").to_owned())),
                "unlock" => return Ok(Inside::Unlock),
                "done" | "fail" | "lock" | "run" => {
                    return Err(fault(format!(
                        "the component asked for `{}` under the writer lock",
                        text(&effect, "effect")
                    )))
                }
                _ => outcome = Some(self.perform(&effect, failed)),
            }
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

/// The driver's next effect, read.
fn next(driving: &Driving<'_>, outcome: Option<Value>) -> Result<Value, GateError> {
    let outcome = outcome.map(|o| o.to_string());
    let text = driving.next(outcome.as_deref()).map_err(driver_error)?;
    serde_json::from_str(&text)
        .map_err(|e| fault(format!("the component's effect does not read: {e}")))
}
