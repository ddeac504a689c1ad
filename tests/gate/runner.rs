//! The gate vectors' runner shared by the Rust runtimes (the policy crate
//! natively, the host through wasmtime); `host-js/test/gate-lib.js` is its
//! twin. Each runtime implements [`GateRuntime`]; [`run_all`] runs every
//! script of `tests/gate/*.jsonl`, compares each step's output with the
//! expectation and writes all outputs to `target/conformance/gate-<name>.txt`
//! for the cross-runtime comparison.
//!
//! A line is a scripted approval flow: named flows (configuration, settings,
//! keys) and steps (`begin`, `open`, `settle`, `finish`, `gap`, `create`) with
//! the clock and ids given, and the exact output expected of each step. Every
//! runtime runs it the same way:
//!
//! - a flow is created at its first use (`create` makes it explicitly and
//!   outputs `{"ok":true}`, or `{"error":"create","detail":D}`);
//! - `settle` and `open` take the checkpoint of the last `ask` step unless
//!   they name one; `tamper: [from, to]` replaces the first `from` in it;
//!   `finish` takes the ticket of the last `run` step unless it names one;
//! - a `run` step's `grant` is held, as a host keeps it: a `begin` with
//!   `"granted": true` passes every held grant with its call (each tampered
//!   with as `grant_tamper: [from, to]` says); `revoke` takes the last held
//!   grant (or the step's `grant`), outputs `{"line":L}` and drops it;
//!   `open_grant` opens the last held grant;
//! - `previous` is the last audit line any step produced (or the step's own
//!   `previous`), so a script's lines form one chain;
//! - a step's output is the component's text (`gap`: `{"line":L}`), or for an
//!   error `{"error":"checkpoint","kind":K,"detail":D}` /
//!   `{"error":"invalid","detail":D}`.
//!
//! `TOOLGATE_BLESS=1` rewrites the expectations from the runtime's outputs
//! (then review the diff: every other runtime is compared against them).

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test runner: a malformed vector should fail loudly"
)]

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An error of a step, in the runner's words.
pub enum Refusal {
    /// A checkpoint refused: its kind (`invalid`, `format`, `unsigned`,
    /// `forged`, `weak-key`) and detail.
    Checkpoint(&'static str, Value),
    /// Input not of the expected shape.
    Invalid(String),
}

/// What a step returns: the component's text or a refusal.
pub type Output = Result<String, Refusal>;

/// One runtime's flows.
pub trait GateRuntime {
    /// A flow of this runtime.
    type Flow;
    /// `native`, `wasmtime`.
    const NAME: &'static str;
    /// Makes a flow, or says why not (the component's message).
    fn create(
        &self,
        config: &str,
        settings: &str,
        key: Option<&[u8]>,
        audit_key: Option<&[u8]>,
    ) -> Result<Self::Flow, String>;
    /// `begin`.
    fn begin(f: &Self::Flow, call: &str, id: &str, now: u64, previous: Option<&str>) -> Output;
    /// `open`, as the pending approval's JSON text.
    fn open(f: &Self::Flow, checkpoint: &str) -> Output;
    /// `settle`.
    fn settle(
        f: &Self::Flow,
        checkpoint: &str,
        answer: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Output;
    /// `finish`.
    fn finish(f: &Self::Flow, ticket: &str, ran: &str, now: u64, previous: Option<&str>) -> Output;
    /// `gap`: the sealed line.
    fn gap(f: &Self::Flow, what: &str, now: u64, previous: Option<&str>) -> Output;
    /// `open-grant`: the grant's JSON text.
    fn open_grant(f: &Self::Flow, grant: &str, now: u64) -> Output;
    /// `revoke`: the sealed line.
    fn revoke(f: &Self::Flow, grant: &str, now: u64, previous: Option<&str>) -> Output;
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/gate")
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

fn refusal_text(r: Refusal) -> String {
    match r {
        Refusal::Invalid(detail) => json!({"error": "invalid", "detail": detail}),
        Refusal::Checkpoint(kind, detail) => {
            json!({"error": "checkpoint", "kind": kind, "detail": detail})
        }
    }
    .to_string()
}

/// Runs one script; returns the outputs of its steps.
fn run<R: GateRuntime>(runtime: &R, case: &Value) -> Vec<String> {
    let flows_spec = case["flows"].as_object().cloned().unwrap_or_default();
    let mut flows: BTreeMap<String, Result<R::Flow, String>> = BTreeMap::new();
    let mut checkpoint: Option<String> = None;
    let mut ticket: Option<String> = None;
    let mut previous: Option<String> = None;
    let mut held: Vec<String> = Vec::new();
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
            runtime.create(
                &config,
                &settings,
                key.as_deref().map(str::as_bytes),
                audit_key.as_deref().map(str::as_bytes),
            )
        });
        let previous_now = match step.get("previous") {
            Some(p) => text(Some(p)),
            None => previous.clone(),
        };
        let previous_now = previous_now.as_deref();
        let now = step["now"].as_u64().unwrap_or(0);
        let out = match (step["do"].as_str().unwrap_or(""), &*flow) {
            ("create", Ok(_)) => Ok(String::from("{\"ok\":true}")),
            (_, Err(e)) => Ok(json!({"error": "create", "detail": e}).to_string()),
            ("begin", Ok(f)) => {
                let mut call = text(step.get("call")).unwrap_or_default();
                if step["granted"].as_bool() == Some(true) {
                    let grants: Vec<String> = held
                        .iter()
                        .map(|g| {
                            match (
                                step["grant_tamper"][0].as_str(),
                                step["grant_tamper"][1].as_str(),
                            ) {
                                (Some(from), Some(to)) => g.replacen(from, to, 1),
                                _ => g.clone(),
                            }
                        })
                        .collect();
                    let mut value: Value = serde_json::from_str(&call).expect("a call object");
                    value["grants"] = json!(grants);
                    call = value.to_string();
                }
                R::begin(
                    f,
                    &call,
                    step["id"].as_str().unwrap_or(""),
                    now,
                    previous_now,
                )
            }
            ("open", Ok(f)) => R::open(f, &taken(step, checkpoint.as_deref())),
            ("settle", Ok(f)) => {
                let cp = taken(step, checkpoint.as_deref());
                let answer = text(step.get("answer")).unwrap_or_default();
                R::settle(f, &cp, &answer, now, previous_now)
            }
            ("finish", Ok(f)) => {
                let t = text(step.get("ticket"))
                    .or_else(|| ticket.clone())
                    .unwrap_or_default();
                let ran = text(step.get("ran")).unwrap_or_default();
                R::finish(f, &t, &ran, now, previous_now)
            }
            ("gap", Ok(f)) => R::gap(f, step["what"].as_str().unwrap_or(""), now, previous_now)
                .map(|line| json!({"line": line}).to_string()),
            ("open_grant", Ok(f)) => {
                let g = text(step.get("grant"))
                    .or_else(|| held.last().cloned())
                    .unwrap_or_default();
                R::open_grant(f, &g, now)
            }
            ("revoke", Ok(f)) => {
                let g = text(step.get("grant"))
                    .or_else(|| held.pop())
                    .unwrap_or_default();
                R::revoke(f, &g, now, previous_now).map(|line| json!({"line": line}).to_string())
            }
            (other, Ok(_)) => panic!("unknown step `{other}`"),
        };
        let out = out.unwrap_or_else(refusal_text);
        // What the next steps take from this one.
        if let Ok(value) = serde_json::from_str::<Value>(&out) {
            match value["step"].as_str() {
                Some("ask") => checkpoint = text(value.get("checkpoint")),
                Some("run") => {
                    ticket = text(value.get("ticket"));
                    if let Some(sealed) = text(value.get("grant").and_then(|g| g.get("sealed"))) {
                        held.push(sealed);
                    }
                }
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

/// Runs every gate vector in `runtime`, asserts each step's output and the
/// number of cases, and writes the outputs for the cross-runtime check.
pub fn run_all<R: GateRuntime>(runtime: &R) {
    let bless = std::env::var_os("TOOLGATE_BLESS").is_some();
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
        let mut blessed = String::new();
        let mut names = std::collections::HashSet::new();
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            let mut case: Value = serde_json::from_str(line).expect("a gate vector is JSON");
            let name = case["name"].as_str().expect("a named case").to_owned();
            assert!(names.insert(name.clone()), "two cases named `{name}`");
            cases += 1;
            let outputs = run(runtime, &case);
            for out in &outputs {
                all_outputs.push_str(out);
                all_outputs.push('\n');
            }
            if bless {
                case["expect"] = Value::Array(
                    outputs
                        .iter()
                        .map(|o| serde_json::from_str(o).expect("JSON output"))
                        .collect(),
                );
                blessed.push_str(&case.to_string());
                blessed.push('\n');
                continue;
            }
            // Each expected value printed compactly against the output text.
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
        if bless {
            std::fs::write(&file, blessed).expect("writable");
        }
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/conformance");
    std::fs::create_dir_all(&out).expect("target/conformance");
    std::fs::write(out.join(format!("gate-{}.txt", R::NAME)), all_outputs).expect("writable");
    assert!(cases >= 50, "only {cases} gate vectors");
    assert!(
        failures.is_empty(),
        "{} of {cases} gate vectors differ in {}:\n{}",
        failures.len(),
        R::NAME,
        failures.join("\n")
    );
}
