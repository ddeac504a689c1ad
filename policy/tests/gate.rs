//! The gate vectors (`tests/gate/*.jsonl`), run natively: the policy crate's
//! own flow. The runner and the vector format are in `tests/gate/runner.rs`.

#[path = "../../tests/gate/runner.rs"]
mod runner;

use runner::{GateRuntime, Output, Refusal};
use serde_json::{json, Value};
use toolgate_policy::{CheckpointError, Flow, StepError};

struct Native;

fn refusal(e: StepError) -> Refusal {
    match e {
        StepError::Invalid(detail) => Refusal::Invalid(detail),
        e @ StepError::Grant(_) => Refusal::Invalid(e.to_string()),
        StepError::Checkpoint(c) => match c {
            CheckpointError::Invalid(m) => Refusal::Checkpoint("invalid", json!(m)),
            CheckpointError::Format(f) => Refusal::Checkpoint("format", json!(f)),
            CheckpointError::Unsigned => Refusal::Checkpoint("unsigned", Value::Null),
            CheckpointError::Forged => Refusal::Checkpoint("forged", Value::Null),
            CheckpointError::WeakKey(n) => Refusal::Checkpoint("weak-key", json!(n)),
        },
    }
}

fn text<T: serde::Serialize>(step: Result<T, StepError>) -> Output {
    step.map(|s| serde_json::to_string(&s).unwrap_or_default())
        .map_err(refusal)
}

impl GateRuntime for Native {
    type Flow = Flow;
    const NAME: &'static str = "native";

    fn create(
        &self,
        config: &str,
        settings: &str,
        key: Option<&[u8]>,
        audit_key: Option<&[u8]>,
    ) -> Result<Flow, String> {
        Flow::new(config, settings, key, audit_key).map_err(|e| e.to_string())
    }

    fn begin(f: &Flow, call: &str, id: &str, now: u64, previous: Option<&str>) -> Output {
        text(f.begin(call, id, now, previous))
    }

    fn open(f: &Flow, checkpoint: &str) -> Output {
        text(f.open(checkpoint))
    }

    fn settle(
        f: &Flow,
        checkpoint: &str,
        answer: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Output {
        text(f.settle(checkpoint, answer, now, previous))
    }

    fn finish(f: &Flow, ticket: &str, ran: &str, now: u64, previous: Option<&str>) -> Output {
        text(f.finish(ticket, ran, now, previous))
    }

    fn gap(f: &Flow, what: &str, now: u64, previous: Option<&str>) -> Output {
        f.gap(what, now, previous).map_err(refusal)
    }

    fn open_grant(f: &Flow, grant: &str, now: u64) -> Output {
        f.open_grant(grant, now).map_err(refusal)
    }

    fn revoke(f: &Flow, grant: &str, now: u64, previous: Option<&str>) -> Output {
        f.revoke(grant, now, previous).map_err(refusal)
    }
}

#[test]
fn gate_vectors_native() {
    runner::run_all(&Native);
}
