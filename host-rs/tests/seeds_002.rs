//! Seed 002's plans (§4.2) and argument completion (§4.3, §7.2) in the Rust
//! host, played with the seed's own examples. The fixtures under
//! `tests/seeds/` are the JavaScript host's too
//! (`host-js/test/seeds-002.test.js`), so both give the same answers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::Value;
use std::sync::{Arc, Mutex};
use toolgate::gate::{Gate, Response};
use toolgate::Policy;

fn fixture(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/seeds")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes what this host answered, one JSON line a case, to
/// `target/seeds/NAME.rust.jsonl`: `host-js/test/seeds-002.test.js` writes
/// its own beside it and holds the two byte-identical.
fn record(name: &str, lines: &[Value]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/seeds");
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{name}.rust.jsonl")), text).unwrap();
}

/// `expected` with `"REASON"` standing for any text.
fn matches(got: &Value, expected: &Value) -> bool {
    match (got, expected) {
        (Value::String(_), Value::String(e)) if e == "REASON" => true,
        (Value::Object(g), Value::Object(e)) => {
            g.len() == e.len()
                && e.iter()
                    .all(|(k, v)| g.get(k).is_some_and(|gv| matches(gv, v)))
        }
        (Value::Array(g), Value::Array(e)) => {
            g.len() == e.len() && g.iter().zip(e).all(|(a, b)| matches(a, b))
        }
        _ => got == expected,
    }
}

#[test]
fn seed_002_plans_decided_and_run() {
    let policy = Policy::embedded().unwrap();
    let cases = fixture("seed-002-plan.jsonl");
    assert!(cases.len() >= 8);
    let mut answered = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let config = case["config"].to_string();
        let plan = case["plan"].to_string();
        if case["kind"] == "decide" {
            let engine = policy.engine(&config).unwrap();
            let decided = engine
                .assess_plan(&plan, &case["results"].to_string(), "")
                .unwrap();
            // `finding`: a code the step's decision carries (the one the case
            // is about; the order of findings is the decision's own).
            let expected_steps = case["expect"]["steps"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let got = serde_json::json!({
                "action": decided.action.as_str(),
                "steps": decided.steps.iter().enumerate().map(|(i, s)| {
                    let wanted = expected_steps.get(i).and_then(|e| e["finding"].as_str());
                    let codes: Vec<&str> = s.decision.findings.iter().map(|f| f.code.as_str()).collect();
                    let finding = match wanted {
                        Some(w) if codes.contains(&w) => Some(w.to_owned()),
                        _ => codes.first().map(|c| (*c).to_owned()),
                    };
                    serde_json::json!({
                        "step": s.step,
                        "action": s.decision.action.as_str(),
                        "unresolved": s.unresolved,
                        "finding": finding,
                        "args": s.args,
                    })
                }).collect::<Vec<_>>(),
            });
            assert_eq!(got, case["expect"], "{name}");
            answered.push(serde_json::json!({"name": name, "decided": got}));
            continue;
        }
        let asked = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = Arc::clone(&asked);
        let approve = case["answer"] == "approve";
        let gate = Gate::builder(&policy)
            .config(&config)
            .approver(move |request| {
                seen.lock().unwrap().push(request.args.clone());
                if approve {
                    Response::approve()
                } else {
                    Response::reject(Some("not now"))
                }
            })
            .build()
            .unwrap();
        let outputs = case["outputs"].clone();
        let runs = toolgate::plan::run_plan(&gate, &plan, None, |step, _args| {
            Ok(outputs[&step.tool].as_str().unwrap().to_owned())
        })
        .unwrap();
        let got: Vec<Value> = runs.iter().map(|r| r.summary()).collect();
        assert!(
            matches(&Value::Array(got.clone()), &case["expect"]),
            "{name}: {}",
            Value::Array(got)
        );
        let asked: Vec<Value> = asked
            .lock()
            .unwrap()
            .iter()
            .map(|a| Value::from(a.as_str()))
            .collect();
        assert_eq!(Value::Array(asked.clone()), case["asked"], "{name}");
        answered.push(serde_json::json!({"name": name, "runs": got, "asked": asked}));
    }
    record("seed-002-plan", &answered);
}

#[test]
fn seed_002_argument_completion_and_section_7_2_s_request() {
    let policy = Policy::embedded().unwrap();
    let cases = fixture("seed-002-completion.jsonl");
    assert!(cases.len() >= 5);
    let mut answered = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let engine = policy.engine(&case["config"].to_string()).unwrap();
        let tool = case["tool"].as_str().unwrap();
        let completed = engine.complete_args(
            tool,
            &case["args"].to_string(),
            &case["context"].to_string(),
            case["now_ms"].as_u64().unwrap(),
        );
        if let Some(codes) = case.get("expect_error") {
            let Err(toolgate::registry::RequestError::Refused(findings)) = completed else {
                panic!("{name}: {completed:?}");
            };
            let got: Vec<Value> = findings
                .iter()
                .map(|f| Value::from(f.code.as_str()))
                .collect();
            assert_eq!(&Value::Array(got.clone()), codes, "{name}");
            answered.push(serde_json::json!({"name": name, "error": got}));
            continue;
        }
        let completed = completed.unwrap();
        let args: Value = serde_json::from_str(&completed).unwrap();
        assert_eq!(args, case["expect_args"], "{name}");
        let request = engine.build_request(tool, &completed).ok();
        answered.push(serde_json::json!({
            "name": name,
            "args": completed,
            "request": request.as_ref().map(|r| serde_json::json!({
                "method": r.method, "path": r.path, "query": r.query, "url": r.url, "body": r.body,
            })),
        }));
        if let Some(expected) = case.get("expect_request") {
            let request = request.unwrap();
            let body: Value = serde_json::from_str(request.body.as_deref().unwrap()).unwrap();
            assert_eq!(request.method, expected["method"], "{name}");
            assert_eq!(request.path, expected["path"], "{name}");
            // JSON equal, key order aside (seed 002 §7.2's body).
            assert_eq!(body, expected["body"], "{name}");
        }
    }
    record("seed-002-completion", &answered);
}
