//! The gate vectors (`tests/gate/*.jsonl`), run through the component in
//! wasmtime. The runner and the vector format are in `tests/gate/runner.rs`;
//! the outputs go to `target/conformance/gate-wasmtime.txt`, to be the same
//! bytes as every other runtime's.

#![allow(clippy::panic, reason = "a test runner: a fault should fail loudly")]

#[path = "../../tests/gate/runner.rs"]
mod runner;

use runner::{GateRuntime, Output, Refusal};
use serde_json::{json, Value};
use toolgate::flow::{Flow, StepError};
use toolgate::{CheckpointError, Policy};

fn refusal(e: StepError) -> Refusal {
    match e {
        StepError::Invalid(detail) => Refusal::Invalid(detail),
        StepError::Checkpoint(c) => match c {
            CheckpointError::Invalid(m) => Refusal::Checkpoint("invalid", json!(m)),
            CheckpointError::Format(f) => Refusal::Checkpoint("format", json!(f)),
            CheckpointError::Unsigned => Refusal::Checkpoint("unsigned", Value::Null),
            CheckpointError::Forged => Refusal::Checkpoint("forged", Value::Null),
            CheckpointError::WeakKey(n) => Refusal::Checkpoint("weak-key", json!(n)),
        },
        StepError::Policy(e) => panic!("the component faulted: {e}"),
    }
}

struct Wasmtime(Policy);

impl GateRuntime for Wasmtime {
    type Flow = Flow;
    const NAME: &'static str = "wasmtime";

    fn create(
        &self,
        config: &str,
        settings: &str,
        key: Option<&[u8]>,
        audit_key: Option<&[u8]>,
    ) -> Result<Flow, String> {
        self.0
            .flow(config, settings, key, audit_key)
            .map_err(|e| match e {
                toolgate::Error::Rejected(message) => message,
                other => panic!("the component faulted creating a flow: {other}"),
            })
    }

    fn begin(f: &Flow, call: &str, id: &str, now: u64, previous: Option<&str>) -> Output {
        f.begin(call, id, now, previous).map_err(refusal)
    }

    fn open(f: &Flow, checkpoint: &str) -> Output {
        f.open(checkpoint).map_err(refusal)
    }

    fn settle(
        f: &Flow,
        checkpoint: &str,
        answer: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Output {
        f.settle(checkpoint, answer, now, previous).map_err(refusal)
    }

    fn finish(f: &Flow, ticket: &str, ran: &str, now: u64, previous: Option<&str>) -> Output {
        f.finish(ticket, ran, now, previous).map_err(refusal)
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
fn gate_vectors_wasmtime() {
    runner::run_all(&Wasmtime(
        Policy::embedded().expect("the embedded component loads"),
    ));
}
