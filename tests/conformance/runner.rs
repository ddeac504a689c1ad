//! The conformance runner shared by the Rust runtimes (the policy crate natively
//! and the host through wasmtime). Each runtime implements [`Runtime`]; the
//! runner runs every case, checks every expectation, counts the cases, and
//! writes one line per case to `target/conformance/<runtime>.jsonl` for the
//! cross-runtime comparison. `host-js/test/conformance-lib.js` is its twin.
//!
//! Vector format, one JSON object a line in `tests/conformance/*.jsonl`:
//! - assess (the default): `{"name", "reason"?, "config"?, "context"?, "tool", "args" (object,
//!   or a string sent verbatim), "expect": {"action", "risk"?, "source"?,
//!   "findings"?: [codes, in order], "includes"?: [codes that must appear]}}`;
//! - `"kind": "call"`: `"call"` (object or verbatim string) in any wire format;
//!   `"expect"` may hold `"call"` (fields of the parsed call), `"error"` (text the
//!   parse error contains) and the decision keys above for `assess-call`;
//! - `"kind": "augment"`: `"tools"`, `"format"`?; `"expect"` holds `"output"` (the
//!   augmented JSON), `"notes"`, or `"error"`.
//! - `"kind": "discover"`: `"intent"`, `"category"`?, `"limit"`? (0: all),
//!   `"language"`? (also renders the tool prompt of the candidates); `"expect"`
//!   holds `"names"` (in order), `"matched"` (the first candidate's keywords),
//!   `"prompt"` (exact) or `"prompt_includes"`.
//! - `"kind": "request"`: `"tool"`, `"args"`; `"expect"` holds `"request"` (fields
//!   of the built request) or `"errors"` (finding codes, in order).
//! - `"kind": "response"`: `"status"`, `"body"`, `"tool"`? (then read with that
//!   registry tool's `response_template` under `"config"`); `"expect"` holds
//!   `"ok"` or `"error"` (the exact text).
//! - `"kind": "import"`: `"spec"` (an OpenAPI document, object or text) and
//!   `"options"`? (object); `"expect"` holds `"output"` (the whole import),
//!   `"summary"` (its summary lines) or `"error"` (text the error contains).
//!
//! An absent expectation is not checked; assess and call cases always check
//! their action.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// One conformance case.
pub struct Case {
    pub file: String,
    pub name: String,
    /// `assess` (the default), `call` or `augment`.
    pub kind: String,
    pub config: Option<String>,
    /// The caller's context (assess), as JSON text.
    pub context: Option<String>,
    pub tool: String,
    /// The arguments (assess), the call (call) or the definitions (augment) as text.
    pub text: String,
    /// The forced format (augment).
    pub format: Option<String>,
    pub expect: Value,
    /// The whole vector, for the fields of the newer kinds.
    pub raw: Value,
}

/// What a runtime must do for each kind of case.
pub trait Runtime {
    /// The decision's canonical JSON, in the caller's context if one is given.
    fn assess(&self, config: Option<&str>, context: Option<&str>, tool: &str, args: &str)
        -> String;
    /// The parsed call's canonical JSON, or the error message.
    fn parse_call(&self, call: &str) -> Result<String, String>;
    /// The decision's canonical JSON for a call in any format.
    fn assess_call(&self, config: Option<&str>, call: &str) -> String;
    /// The augmented text and notes, or the error message.
    fn augment(
        &self,
        config: Option<&str>,
        tools: &str,
        format: Option<&str>,
    ) -> Result<(String, Vec<String>), String>;
    /// The candidates for an intent, as a canonical JSON array.
    fn discover(
        &self,
        config: Option<&str>,
        intent: &str,
        category: Option<&str>,
        limit: u32,
    ) -> String;
    /// The tool prompt for the named tools.
    fn tool_prompt(&self, config: Option<&str>, tools: &[String], language: &str) -> String;
    /// The built request's canonical JSON, or the findings' JSON array.
    fn build_request(&self, config: Option<&str>, tool: &str, args: &str)
        -> Result<String, String>;
    /// The result for the model, or the error for it; with `tool`, read with
    /// that registry tool's `response_template`.
    fn read_response(
        &self,
        config: Option<&str>,
        tool: Option<&str>,
        status: u16,
        body: &str,
    ) -> Result<String, String>;
    /// The import of an OpenAPI document (JSON text) as the component's JSON
    /// text, or the error message.
    fn import_openapi(&self, spec: &str, options: &str) -> Result<String, String>;
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("tests").join("conformance").is_dir() && dir.join("wit").is_dir())
        .expect("the workspace root")
        .to_path_buf()
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every case of every vector file, files in name order, lines in file order.
pub fn cases() -> Vec<Case> {
    let dir = root().join("tests").join("conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/conformance")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("vector file");
        let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{file_name}:{}: {e}", i + 1));
            let kind = v["kind"].as_str().unwrap_or("assess").to_owned();
            let text = match kind.as_str() {
                "call" => text_of(&v["call"]),
                "augment" => text_of(&v["tools"]),
                "import" => text_of(&v["spec"]),
                _ => text_of(&v["args"]),
            };
            cases.push(Case {
                file: file_name.clone(),
                name: v["name"].as_str().expect("name").to_owned(),
                kind,
                config: v.get("config").map(|c| c.to_string()),
                context: v.get("context").map(text_of),
                tool: v["tool"].as_str().unwrap_or("").to_owned(),
                text,
                format: v["format"].as_str().map(str::to_owned),
                expect: v["expect"].clone(),
                raw: v.clone(),
            });
        }
    }
    // A name is how a failure, a recorded line and a reviewer find a case:
    // two cases under one name (a merge keeping both sides of an edited line)
    // would hide one of them.
    let mut seen = std::collections::BTreeSet::new();
    let repeated: Vec<&str> = cases
        .iter()
        .filter(|c| !seen.insert(c.name.as_str()))
        .map(|c| c.name.as_str())
        .collect();
    assert!(repeated.is_empty(), "vector names used twice: {repeated:?}");
    cases
}

/// The recorded line of one case, in the canonical form every runtime writes:
/// assess → the decision; call → `{"call": …|null, "error": …|null, "decision": …}`;
/// augment → `{"tools": "…", "notes": […]}` or `{"error": "…"}`.
fn line_for(runtime: &dyn Runtime, case: &Case) -> String {
    let config = case.config.as_deref();
    let quote = |text: &str| serde_json::to_string(text).unwrap();
    match case.kind.as_str() {
        "call" => {
            let (call, error) = match runtime.parse_call(&case.text) {
                Ok(call) => (call, String::from("null")),
                Err(e) => (String::from("null"), quote(&e)),
            };
            let decision = runtime.assess_call(config, &case.text);
            format!("{{\"call\":{call},\"error\":{error},\"decision\":{decision}}}")
        }
        "augment" => match runtime.augment(config, &case.text, case.format.as_deref()) {
            Ok((tools, notes)) => format!(
                "{{\"tools\":{},\"notes\":{}}}",
                quote(&tools),
                serde_json::to_string(&notes).unwrap()
            ),
            Err(e) => format!("{{\"error\":{}}}", quote(&e)),
        },
        "discover" => {
            let raw = &case.raw;
            let limit = raw["limit"].as_u64().unwrap_or(0) as u32;
            let candidates = runtime.discover(
                config,
                raw["intent"].as_str().unwrap_or(""),
                raw["category"].as_str(),
                limit,
            );
            let prompt = match raw["language"].as_str() {
                Some(language) => {
                    let parsed: Value = serde_json::from_str(&candidates).expect("candidates JSON");
                    let names: Vec<String> = parsed
                        .as_array()
                        .expect("candidates")
                        .iter()
                        .map(|c| c["name"].as_str().expect("name").to_owned())
                        .collect();
                    quote(&runtime.tool_prompt(config, &names, language))
                }
                None => String::from("null"),
            };
            format!("{{\"candidates\":{candidates},\"prompt\":{prompt}}}")
        }
        "request" => match runtime.build_request(config, &case.tool, &case.text) {
            Ok(request) => format!("{{\"request\":{request}}}"),
            Err(findings) => format!("{{\"error\":{findings}}}"),
        },
        "import" => {
            let options = case
                .raw
                .get("options")
                .map_or_else(|| String::from("{}"), |o| o.to_string());
            match runtime.import_openapi(&case.text, &options) {
                Ok(output) => format!("{{\"output\":{output}}}"),
                Err(text) => format!("{{\"error\":{}}}", quote(&text)),
            }
        }
        "response" => match runtime.read_response(
            config,
            Some(case.tool.as_str()).filter(|t| !t.is_empty()),
            case.raw["status"].as_u64().expect("status") as u16,
            case.raw["body"].as_str().expect("body"),
        ) {
            Ok(text) => format!("{{\"ok\":{}}}", quote(&text)),
            Err(text) => format!("{{\"error\":{}}}", quote(&text)),
        },
        _ => runtime.assess(config, case.context.as_deref(), &case.tool, &case.text),
    }
}

fn check_discover(case: &Case, got: &Value, failures: &mut Vec<String>) {
    let label = format!("{} / {}", case.file, case.name);
    let names: Vec<&str> = got["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    if let Some(want) = case.expect.get("names") {
        let want: Vec<&str> = want
            .as_array()
            .expect("names")
            .iter()
            .map(|n| n.as_str().expect("name"))
            .collect();
        if names != want {
            failures.push(format!("{label}: candidates {names:?}, expected {want:?}"));
        }
    }
    if let Some(want) = case.expect.get("matched") {
        if got["candidates"][0]["matched"] != *want {
            failures.push(format!(
                "{label}: matched {}, expected {want}",
                got["candidates"][0]["matched"]
            ));
        }
    }
    if let Some(want) = case.expect.get("prompt") {
        if got["prompt"] != *want {
            failures.push(format!(
                "{label}: prompt {}, expected {want}",
                got["prompt"]
            ));
        }
    }
    for part in case.expect["prompt_includes"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let part = part.as_str().expect("text");
        if !got["prompt"].as_str().unwrap_or("").contains(part) {
            failures.push(format!("{label}: prompt {} lacks {part:?}", got["prompt"]));
        }
    }
}

fn check_request(case: &Case, got: &Value, failures: &mut Vec<String>) {
    let label = format!("{} / {}", case.file, case.name);
    if let Some(want) = case.expect.get("errors") {
        let codes: Vec<&str> = got["error"]
            .as_array()
            .map(|f| {
                f.iter()
                    .map(|f| f["code"].as_str().expect("code"))
                    .collect()
            })
            .unwrap_or_default();
        let want: Vec<&str> = want
            .as_array()
            .expect("errors")
            .iter()
            .map(|c| c.as_str().expect("code"))
            .collect();
        if codes != want {
            failures.push(format!(
                "{label}: errors {codes:?}, expected {want:?} (got {got})"
            ));
        }
    }
    for (key, value) in case.expect["request"].as_object().into_iter().flatten() {
        if got["request"][key] != *value {
            failures.push(format!(
                "{label}: request.{key} is {}, expected {value}",
                got["request"][key]
            ));
        }
    }
}

fn check_response(case: &Case, got: &Value, failures: &mut Vec<String>) {
    let label = format!("{} / {}", case.file, case.name);
    for key in ["ok", "error"] {
        if let Some(want) = case.expect.get(key) {
            if got[key] != *want {
                failures.push(format!(
                    "{label}: {key} is {}, expected {want} (got {got})",
                    got[key]
                ));
            }
        }
    }
}

fn check_import(case: &Case, got: &Value, failures: &mut Vec<String>) {
    let label = format!("{} / {}", case.file, case.name);
    if let Some(want) = case.expect.get("output") {
        if got["output"] != *want {
            failures.push(format!(
                "{label}: output is {}, expected {want}",
                got["output"]
            ));
        }
    }
    if let Some(want) = case.expect.get("summary") {
        if got["output"]["summary"] != *want {
            failures.push(format!(
                "{label}: summary is {}, expected {want}",
                got["output"]["summary"]
            ));
        }
    }
    if let Some(want) = case.expect.get("error").and_then(Value::as_str) {
        if !got["error"].as_str().is_some_and(|e| e.contains(want)) {
            failures.push(format!(
                "{label}: error is {}, expected one containing {want:?}",
                got["error"]
            ));
        }
    }
}

fn check_decision(case: &Case, got: &Value, failures: &mut Vec<String>) {
    let label = format!("{} / {}", case.file, case.name);
    if case.expect.get("action").is_none() {
        failures.push(format!("{label}: no expected action"));
    }
    for key in ["action", "risk", "source"] {
        if case.expect.get(key).is_some_and(|want| got[key] != *want) {
            failures.push(format!(
                "{label}: {key} is {}, expected {}",
                got[key], case.expect[key]
            ));
        }
    }
    let codes: Vec<&str> = got["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code"))
        .collect();
    if let Some(want) = case.expect.get("findings") {
        let want: Vec<&str> = want
            .as_array()
            .expect("expected findings")
            .iter()
            .map(|c| c.as_str().expect("code"))
            .collect();
        if codes != want {
            failures.push(format!("{label}: findings {codes:?}, expected {want:?}"));
        }
    }
    for code in case.expect["includes"].as_array().into_iter().flatten() {
        let code = code.as_str().expect("code");
        if !codes.contains(&code) {
            failures.push(format!("{label}: findings {codes:?} lack {code}"));
        }
    }
    let summary = got["summary"].as_str().expect("summary");
    if summary.is_empty() || summary.contains('\n') {
        failures.push(format!("{label}: summary {summary:?} is not one line"));
    }
}

fn check_error(case: &Case, got: &Value, failures: &mut Vec<String>) {
    if let Some(want) = case.expect.get("error") {
        let message = got["error"].as_str().unwrap_or("");
        if !message.contains(want.as_str().expect("error text")) {
            failures.push(format!(
                "{} / {}: error {:?}, expected one containing {want}",
                case.file, case.name, got["error"]
            ));
        }
    }
}

fn check_call(case: &Case, got: &Value, failures: &mut Vec<String>) {
    check_error(case, got, failures);
    for (key, value) in case.expect["call"].as_object().into_iter().flatten() {
        if got["call"][key] != *value {
            failures.push(format!(
                "{} / {}: call.{key} is {}, expected {value}",
                case.file, case.name, got["call"][key]
            ));
        }
    }
    check_decision(case, &got["decision"], failures);
}

fn check_augment(case: &Case, got: &Value, failures: &mut Vec<String>) {
    let label = format!("{} / {}", case.file, case.name);
    if case.expect.get("error").is_some() {
        return check_error(case, got, failures);
    }
    let Some(tools) = got["tools"].as_str() else {
        failures.push(format!("{label}: failed with {}", got["error"]));
        return;
    };
    let output: Value = serde_json::from_str(tools).expect("augmented JSON");
    if let Some(want) = case.expect.get("output") {
        if output != *want {
            failures.push(format!("{label}: output {output}, expected {want}"));
        }
    }
    if let Some(want) = case.expect.get("notes") {
        if got["notes"] != *want {
            failures.push(format!("{label}: notes {}, expected {want}", got["notes"]));
        }
    }
}

/// Runs every case on `runtime` and checks it. Panics with every failure listed,
/// so one run shows them all.
pub fn run(name: &str, runtime: &dyn Runtime) {
    let cases = cases();
    assert!(
        cases.len() >= 80,
        "only {} conformance cases found",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut lines = String::new();
    for case in &cases {
        let line = line_for(runtime, case);
        lines.push_str(&line);
        lines.push('\n');
        let got: Value = serde_json::from_str(&line).expect("line JSON");
        match case.kind.as_str() {
            "call" => check_call(case, &got, &mut failures),
            "augment" => check_augment(case, &got, &mut failures),
            "discover" => check_discover(case, &got, &mut failures),
            "request" => check_request(case, &got, &mut failures),
            "response" => check_response(case, &got, &mut failures),
            "import" => check_import(case, &got, &mut failures),
            _ => check_decision(case, &got, &mut failures),
        }
    }
    let out_dir = root().join("target").join("conformance");
    std::fs::create_dir_all(&out_dir).expect("target/conformance");
    std::fs::write(out_dir.join(format!("{name}.jsonl")), lines).expect("write decisions");
    eprintln!("{name}: {} conformance cases run", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
