//! The gate vectors (`tests/gate/*.jsonl`), run through the component in
//! wasmtime, with exactly the semantics of the native runner
//! (`policy/tests/gate.rs`, whose module doc is the specification):
//!
//! - a flow is created at its first use (`create` makes it explicitly and
//!   outputs `{"ok":true}` or the error);
//! - `settle` and `open` take the checkpoint of the last `ask` step unless
//!   they name one; `tamper: [from, to]` replaces the first `from` in it;
//!   `finish` the ticket of the last `run` step unless it names one;
//! - `previous` is the last audit line any step produced (or the step's own
//!   `previous`), so a script's lines form one chain;
//! - a step's output is the component's text, or for an error
//!   `{"error":"checkpoint","kind":K,"detail":D}` / `{"error":"invalid","detail":D}`.
//!
//! The outputs of every case, one per line, go to
//! `target/conformance/gate-wasmtime.txt`, to be the same bytes as the native
//! runner's `gate-native.txt`.

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test runner: a malformed vector should fail loudly"
)]

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolgate::flow::{Flow, StepError};
use toolgate::{CheckpointError, Policy};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/gate")
}

fn error_text(e: &StepError) -> String {
    let value = match e {
        StepError::Invalid(detail) => json!({"error": "invalid", "detail": detail}),
        StepError::Checkpoint(c) => {
            let (kind, detail) = match c {
                CheckpointError::Invalid(m) => ("invalid", json!(m)),
                CheckpointError::Format(f) => ("format", json!(f)),
                CheckpointError::Unsigned => ("unsigned", Value::Null),
                CheckpointError::Forged => ("forged", Value::Null),
                CheckpointError::WeakKey(n) => ("weak-key", json!(n)),
                CheckpointError::Policy(e) => panic!("the component faulted: {e}"),
            };
            json!({"error": "checkpoint", "kind": kind, "detail": detail})
        }
        StepError::Policy(e) => panic!("the component faulted: {e}"),
    };
    value.to_string()
}

fn text(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    }
}

/// The checkpoint a step takes: its own, or the last one asked, tampered with
/// as the step says.
fn taken(step: &Value, last: Option<&str>) -> String {
    let cp = text(step.get("checkpoint"))
        .or_else(|| last.map(str::to_owned))
        .unwrap_or_default();
    match (step["tamper"][0].as_str(), step["tamper"][1].as_str()) {
        (Some(from), Some(to)) => cp.replacen(from, to, 1),
        _ => cp,
    }
}

/// The error text of a flow that could not be made: the component's message.
fn create_error(e: &toolgate::Error) -> String {
    match e {
        toolgate::Error::Rejected(message) => message.clone(),
        other => panic!("the component faulted creating a flow: {other}"),
    }
}

/// Runs one script; returns the outputs of its steps.
fn run(policy: &Policy, case: &Value) -> Vec<String> {
    let flows_spec = case["flows"].as_object().cloned().unwrap_or_default();
    let mut flows: BTreeMap<String, Result<Flow, String>> = BTreeMap::new();
    let mut checkpoint: Option<String> = None;
    let mut ticket: Option<String> = None;
    let mut previous: Option<String> = None;
    let mut outputs = Vec::new();
    let steps = case["steps"].as_array().cloned().unwrap_or_default();
    for step in &steps {
        let name = step["flow"].as_str().unwrap_or("a").to_owned();
        let flow = flows.entry(name.clone()).or_insert_with(|| {
            let spec = &flows_spec[&name];
            let config = text(spec.get("config")).unwrap_or_else(|| String::from("{}"));
            let settings = text(spec.get("settings")).unwrap_or_else(|| String::from("{}"));
            let key = text(spec.get("checkpoint_key"));
            let audit_key = text(spec.get("audit_key"));
            policy
                .flow(
                    &config,
                    &settings,
                    key.as_deref().map(str::as_bytes),
                    audit_key.as_deref().map(str::as_bytes),
                )
                .map_err(|e| create_error(&e))
        });
        let previous_now = match step.get("previous") {
            Some(p) => text(Some(p)),
            None => previous.clone(),
        };
        let now = step["now"].as_u64().unwrap_or(0);
        let out = match (step["do"].as_str().unwrap_or(""), &*flow) {
            ("create", Ok(_)) => Ok(String::from("{\"ok\":true}")),
            (_, Err(e)) => Ok(json!({"error": "create", "detail": e}).to_string()),
            ("begin", Ok(f)) => {
                let call = text(step.get("call")).unwrap_or_default();
                f.begin(
                    &call,
                    step["id"].as_str().unwrap_or(""),
                    now,
                    previous_now.as_deref(),
                )
            }
            ("open", Ok(f)) => f.open(&taken(step, checkpoint.as_deref())),
            ("settle", Ok(f)) => {
                let cp = taken(step, checkpoint.as_deref());
                let answer = text(step.get("answer")).unwrap_or_default();
                f.settle(&cp, &answer, now, previous_now.as_deref())
            }
            ("finish", Ok(f)) => {
                let t = text(step.get("ticket"))
                    .or_else(|| ticket.clone())
                    .unwrap_or_default();
                let ran = text(step.get("ran")).unwrap_or_default();
                f.finish(&t, &ran, now, previous_now.as_deref())
            }
            ("gap", Ok(f)) => f
                .gap(
                    step["what"].as_str().unwrap_or(""),
                    now,
                    previous_now.as_deref(),
                )
                .map(|line| json!({"line": line}).to_string()),
            (other, Ok(_)) => panic!("unknown step `{other}`"),
        };
        let out = out.unwrap_or_else(|e| error_text(&e));
        // What the next steps take from this one.
        if let Ok(value) = serde_json::from_str::<Value>(&out) {
            match value["step"].as_str() {
                Some("ask") => checkpoint = text(value.get("checkpoint")),
                Some("run") => ticket = text(value.get("ticket")),
                _ => {}
            }
            if let Some(line) = text(value.get("audit")).or_else(|| text(value.get("line"))) {
                previous = Some(line);
            }
        }
        outputs.push(out);
    }
    outputs
}

#[test]
fn gate_vectors_wasmtime() {
    let policy = Policy::embedded().expect("the embedded component loads");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/gate exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no gate vectors");
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut all_outputs = String::new();
    for file in files {
        let source = std::fs::read_to_string(&file).expect("readable");
        let mut names = std::collections::HashSet::new();
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            let case: Value = serde_json::from_str(line).expect("a gate vector is JSON");
            let name = case["name"].as_str().expect("a named case").to_owned();
            assert!(names.insert(name.clone()), "two cases named `{name}`");
            cases += 1;
            let outputs = run(&policy, &case);
            for out in &outputs {
                all_outputs.push_str(out);
                all_outputs.push('\n');
            }
            // The expectations are compared as the native runner does: each
            // expected value printed compactly against the output text.
            let expected: Vec<String> = case["expect"]
                .as_array()
                .map(|a| a.iter().map(Value::to_string).collect())
                .unwrap_or_default();
            if expected != outputs {
                failures.push(format!(
                    "{}: {name}\n  expected {expected:#?}\n  got      {outputs:#?}",
                    file.display()
                ));
            }
        }
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/conformance");
    std::fs::create_dir_all(&out).expect("target/conformance");
    std::fs::write(out.join("gate-wasmtime.txt"), &all_outputs).expect("writable");
    assert!(cases >= 20, "only {cases} gate vectors");
    assert!(
        failures.is_empty(),
        "{} of {cases} gate vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // When the native runner has written its outputs, they are the same bytes.
    if let Ok(native) = std::fs::read_to_string(out.join("gate-native.txt")) {
        assert!(
            native == all_outputs,
            "gate-wasmtime.txt differs from gate-native.txt"
        );
    }
}
