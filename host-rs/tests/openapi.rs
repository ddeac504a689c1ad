//! Import an API and call every operation: the Petstore document imported by
//! the component, and each of its 19 operations called the way a model calls
//! it, through the gate (approved when confirmed), into the exact request a
//! loopback stand-in server must receive (`tests/openapi/petstore-calls.jsonl`).
//! `host-js/test/openapi.test.js` is the twin.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use toolgate::openapi::{import, ImportOptions};
use toolgate::registry::ApiClient;
use toolgate::{Call, Gate, Policy, Response, Status};

/// One request the stand-in received: method, target (path and query), body
/// (`None` when the request had none).
type Received = (String, String, Option<String>);

fn serve(listener: TcpListener, log: Arc<Mutex<Vec<Received>>>) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let target = parts.next().unwrap_or("").to_owned();
        let mut length = None;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                }
            }
        }
        // A zero-length body is no body, whichever way a client says so.
        let body = length.filter(|&n| n > 0).map(|n| {
            let mut bytes = vec![0_u8; n];
            reader.read_exact(&mut bytes).unwrap();
            String::from_utf8(bytes).unwrap()
        });
        log.lock().unwrap().push((method, target, body));
        let answer = r#"{"ok":true}"#;
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        );
    }
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn every_petstore_operation_becomes_the_request_the_server_expects() {
    let policy = Policy::embedded().unwrap();
    let spec = std::fs::read_to_string(repo("tests/openapi/petstore-openapi.yaml")).unwrap();
    let imported = import(&policy, &spec, &ImportOptions::default()).unwrap();
    assert_eq!(imported.summary.len(), 19);
    let config = serde_json::json!({ "tools": imported.tools }).to_string();

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let server_log = Arc::clone(&log);
    std::thread::spawn(move || serve(listener, server_log));

    let asked = Arc::new(Mutex::new(Vec::new()));
    let asked_by_approver = Arc::clone(&asked);
    let gate = Gate::builder(&policy)
        .config(config)
        .approver(move |request| {
            asked_by_approver.lock().unwrap().push(request.tool.clone());
            Response::approve().by("tester")
        })
        .build()
        .unwrap();
    let client = ApiClient::new(&policy, &address);

    let calls = std::fs::read_to_string(repo("tests/openapi/petstore-calls.jsonl")).unwrap();
    let mut tools_called = Vec::new();
    for line in calls.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let tool = case["tool"].as_str().unwrap();
        let args = case["args"].as_str().unwrap();
        let expect = &case["expect"];
        tools_called.push(tool.to_owned());
        let decision = gate.engine().assess(tool, args);
        assert_eq!(
            decision.action.as_str(),
            expect["action"].as_str().unwrap(),
            "{tool}: {}",
            decision.summary
        );
        let before = log.lock().unwrap().len();
        let result = gate
            .run(&Call::new(tool, args), client.executor(gate.engine(), tool))
            .unwrap();
        assert_eq!(
            result.status,
            Status::Executed,
            "{tool}: {}",
            result.for_model
        );
        let received = log.lock().unwrap();
        assert_eq!(received.len(), before + 1, "{tool}: one request");
        let (method, target, body) = received.last().unwrap().clone();
        assert_eq!(method, expect["method"].as_str().unwrap(), "{tool}");
        assert_eq!(target, expect["target"].as_str().unwrap(), "{tool}");
        assert_eq!(body.as_deref(), expect["body"].as_str(), "{tool}");
        assert!(
            body.as_deref().is_none_or(|b| !b.contains("risk_level")),
            "{tool}: risk_level is never sent"
        );
    }
    // Every operation was called, and exactly the confirmed ones were asked.
    let mut all: Vec<&str> = imported.tools.keys().map(String::as_str).collect();
    let mut called: Vec<&str> = tools_called.iter().map(String::as_str).collect();
    all.sort_unstable();
    called.sort_unstable();
    assert_eq!(called, all);
    let confirmed: Vec<String> = calls
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|c| c["expect"]["action"] == "confirm")
        .map(|c| c["tool"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(*asked.lock().unwrap(), confirmed);
    for delete in ["deletePet", "deleteOrder", "deleteUser"] {
        assert!(
            confirmed.iter().any(|t| t == delete),
            "{delete} is confirmed"
        );
    }
}

#[test]
fn a_malformed_argument_reaches_a_person_not_the_server() {
    let policy = Policy::embedded().unwrap();
    let spec = std::fs::read_to_string(repo("tests/openapi/petstore-openapi.yaml")).unwrap();
    let imported = import(&policy, &spec, &ImportOptions::default()).unwrap();
    let engine = policy
        .engine(&serde_json::json!({ "tools": imported.tools }).to_string())
        .unwrap();
    let d = engine.assess(
        "getPetById",
        r#"{"petId":"1; DROP TABLE pets","risk_level":"low"}"#,
    );
    assert_eq!(d.action.as_str(), "confirm");
    assert_eq!(d.findings[0].code, "args.schema");
    assert!(
        d.findings[0].message.contains("`petId`: an integer"),
        "{d:?}"
    );
    let d = engine.assess("findPetsByStatus", r#"{"status":"gone"}"#);
    assert_eq!(d.action.as_str(), "confirm");
    assert!(
        d.findings[0].message.contains("one of \"available\""),
        "{d:?}"
    );
}

#[test]
fn every_monitoring_operation_builds_a_request_of_its_shape() {
    let policy = Policy::embedded().unwrap();
    let spec = std::fs::read_to_string(repo("tests/openapi/monitoring.yaml")).unwrap();
    let imported = import(&policy, &spec, &ImportOptions::default()).unwrap();
    assert_eq!(imported.summary.len(), 51);
    let engine = policy
        .engine(&serde_json::json!({ "tools": imported.tools }).to_string())
        .unwrap();
    for definition in &imported.definitions {
        let function = &definition["function"];
        let name = function["name"].as_str().unwrap();
        let entry = &imported.tools[name];
        // A model-shaped call: every declared argument given a value of its type.
        let mut args = serde_json::Map::new();
        for (arg, schema) in function["parameters"]["properties"].as_object().unwrap() {
            let value = match schema["type"].as_str() {
                Some("integer" | "number") => serde_json::json!(7),
                Some("boolean") => serde_json::json!(true),
                Some("array") => serde_json::json!([7]),
                Some("object") => serde_json::json!({"note": "维护 window"}),
                _ => serde_json::json!("v 1"),
            };
            args.insert(arg.clone(), value);
        }
        args.insert(String::from("risk_level"), serde_json::json!("low"));
        let args = serde_json::Value::Object(args);
        let request = engine.build_request(name, &args.to_string()).unwrap();
        assert_eq!(request.method, entry["method"], "{name}");
        // The path: the entry's pattern with each parameter's value encoded.
        let mut path = entry["url"].as_str().unwrap().to_owned();
        for (param, _) in entry["path_params_schema"]["properties"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let value = match &args[param] {
                serde_json::Value::String(s) => s.replace(' ', "%20"),
                other => other.to_string(),
            };
            path = path.replace(&format!("{{{param}}}"), &value);
        }
        assert_eq!(request.path, path, "{name}");
        assert!(!request.url.contains("risk_level"), "{name}");
        let query_names: Vec<&str> = entry["query_params_schema"]["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let sent: Vec<&str> = request.query.iter().map(|(k, _)| k.as_str()).collect();
        for k in &sent {
            assert!(query_names.contains(k), "{name}: {k} is a query parameter");
        }
        match entry.get("body_field").and_then(|f| f.as_str()) {
            Some(field) => assert_eq!(
                request.body.as_deref(),
                Some(args[field].to_string().as_str()),
                "{name}: the body argument is the whole body"
            ),
            None if entry["method"] == "GET" || entry["method"] == "DELETE" => {
                assert_eq!(request.body, None, "{name}")
            }
            None => {}
        }
        if let Some(body) = &request.body {
            assert!(!body.contains("risk_level"), "{name}");
        }
    }
}
