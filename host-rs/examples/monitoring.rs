//! Seed 002 end to end: an assistant reaches a monitoring system's HTTP API
//! through registry tools, under the approval gate.
//!
//! A small stand-in for the monitoring system (alert rules, alert mutes,
//! targets) runs on loopback; a scripted conversation then plays the seed's
//! "mute host-01's CPU alerts for 1 hour": discovery finds the tool from the
//! Chinese request, the model's call is confirmed (a level-2 create) and
//! approved, the component builds the request, the client sends it with the
//! user's token, and the result goes back to the model. A level-1 list runs
//! without asking; a delete the user lacks the permission for is denied and
//! never sent. Every call is audited.
//!
//! `cargo run --example monitoring` prints the transcript;
//! `host-rs/tests/monitoring.rs` runs it in CI and checks it.

#![allow(clippy::print_stdout, reason = "an example prints its transcript")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use toolgate::gate::audit::JsonlSink;
use toolgate::registry::ApiClient;
use toolgate::{Call, Gate, Policy, Response, Status};

/// The user's API token: given to the client by the application, never seen
/// by the model.
const TOKEN: &str = "Bearer demo-user-token";

/// One request the stand-in server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The method.
    pub method: String,
    /// The path and query.
    pub target: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The body.
    pub body: String,
}

/// What the example produced.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The conversation, line by line.
    pub transcript: Vec<String>,
    /// What reached the server, in order.
    pub received: Vec<Received>,
    /// The statuses of the three tool calls.
    pub statuses: Vec<Status>,
    /// The audit log.
    pub audit: String,
}

fn respond(stream: &mut TcpStream, status: u16, body: &str) {
    let reason = match status {
        200 => "OK",
        401 => "Unauthorized",
        _ => "Not Found",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The stand-in monitoring API: a handful of seed 002's endpoints.
fn serve(listener: TcpListener, log: Arc<Mutex<Vec<Received>>>) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut reader = BufReader::new(match stream.try_clone() {
            Ok(s) => s,
            Err(_) => continue,
        });
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let target = parts.next().unwrap_or("").to_owned();
        let (mut length, mut authorization) = (0_usize, None);
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                match name.trim().to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    "authorization" => authorization = Some(value.trim().to_owned()),
                    _ => {}
                }
            }
        }
        let mut body = vec![0_u8; length];
        let _ = reader.read_exact(&mut body);
        let body = String::from_utf8_lossy(&body).into_owned();
        if let Ok(mut log) = log.lock() {
            log.push(Received {
                method: method.clone(),
                target: target.clone(),
                authorization: authorization.clone(),
                body: body.clone(),
            });
        }
        if authorization.as_deref() != Some(TOKEN) {
            respond(&mut stream, 401, r#"{"dat":null,"error":"unauthorized"}"#);
            continue;
        }
        let path = target.split('?').next().unwrap_or("");
        let answer = match (method.as_str(), path) {
            ("GET", "/api/n9e/targets") => {
                r#"{"dat":{"list":[{"ident":"host-01","status":"up"},{"ident":"host-02","status":"down"}],"total":2},"error":""}"#
            }
            ("GET", p) if p.ends_with("/alert-rules") => {
                r#"{"dat":[{"id":11,"name":"cpu usage > 90%","severity":2},{"id":12,"name":"disk full","severity":1}],"error":""}"#
            }
            ("POST", p) if p.ends_with("/alert-mutes") => r#"{"dat":{"id":123},"error":""}"#,
            ("DELETE", p) if p.ends_with("/alert-rules") => r#"{"dat":"deleted","error":""}"#,
            _ => {
                respond(
                    &mut stream,
                    404,
                    r#"{"dat":null,"error":"no such endpoint"}"#,
                );
                continue;
            }
        };
        respond(&mut stream, 200, answer);
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the scripted conversation against a fresh stand-in server.
pub fn run() -> Result<Outcome, Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let log = Arc::new(Mutex::new(Vec::new()));
    {
        let log = Arc::clone(&log);
        std::thread::spawn(move || serve(listener, log));
    }

    let registry = std::fs::read_to_string(root().join("examples/monitoring/registry.json"))?;
    let audit_path =
        std::env::temp_dir().join(format!("toolgate-monitoring-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&audit_path);
    let policy = Policy::embedded()?;
    let mut out = Outcome::default();
    let transcript = Arc::new(Mutex::new(Vec::<String>::new()));
    let say = {
        let transcript = Arc::clone(&transcript);
        move |line: String| {
            if let Ok(mut t) = transcript.lock() {
                t.push(line);
            }
        }
    };
    // The person who approves: shown the request, approves it.
    let approver_say = say.clone();
    let gate = Gate::builder(&policy)
        .config(registry)
        .audit(JsonlSink::open(&audit_path)?)
        .approver(move |request| {
            approver_say(format!(
                "  [approval] {} — risk {}; findings {}",
                request.decision.summary,
                request.decision.risk.as_str(),
                request
                    .decision
                    .findings
                    .iter()
                    .map(|f| f.code.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            approver_say(String::from("  [approval] the operator approves"));
            Response::approve().by("operator")
        })
        .build()?;
    let client =
        ApiClient::new(&policy, format!("http://{address}")).header("Authorization", TOKEN);
    // The user may mute alerts but not delete rules.
    let context = r#"{"permissions":["/alert-mutes/add"]}"#;

    let turns: [(&str, &str, &str); 3] = [
        (
            "帮我屏蔽 host-01 的 CPU 告警 1 小时",
            "alert_mute_create",
            r#"{"id":1,"targets":["host-01"],"cause":"CPU 告警维护","duration":3600}"#,
        ),
        (
            "看看业务组 1 的告警规则",
            "alert_rules_list",
            r#"{"id":1,"query":"cpu"}"#,
        ),
        (
            "删除告警规则 11（CPU 那条）",
            "alert_rule_delete",
            r#"{"id":1,"ids":[11]}"#,
        ),
    ];
    for (intent, tool, args) in turns {
        say(format!("user: {intent}"));
        let candidates = gate.engine().discover(intent, None, 3)?;
        say(format!(
            "  [discover] {}",
            candidates
                .iter()
                .map(|c| format!("{} (level {}, score {})", c.name, c.risk_level, c.score))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let names: Vec<String> = candidates.iter().map(|c| c.name.clone()).collect();
        let prompt = gate.engine().tool_prompt(&names, "zh")?;
        say(format!(
            "  [prompt] {} lines for the model",
            prompt.lines().count()
        ));
        say(format!("model: call {tool} {args}"));
        let call = Call::new(tool, args)
            .context(context)
            .on_behalf_of("session-1", "user-7")
            .call_id(format!("call_{tool}"));
        let result = gate.run(&call, client.executor(gate.engine(), tool))?;
        say(format!(
            "  [gate] {} ({} · risk {} · source {})",
            result.status.as_str(),
            result.decision.action.as_str(),
            result.decision.risk.as_str(),
            result.decision.source.as_str()
        ));
        say(format!("tool result → model: {}", result.for_model));
        out.statuses.push(result.status);
    }
    out.transcript = transcript.lock().map(|t| t.clone()).unwrap_or_default();
    out.received = log.lock().map(|l| l.clone()).unwrap_or_default();
    out.audit = std::fs::read_to_string(&audit_path)?;
    let _ = std::fs::remove_file(&audit_path);
    let summary = policy.verify_audit(&out.audit)?;
    out.transcript.push(format!(
        "audit: {} records, chain verified (head {})",
        summary.records,
        summary.head.get(..16).unwrap_or("")
    ));
    for r in &out.received {
        out.transcript.push(format!(
            "server received: {} {} {}",
            r.method, r.target, r.body
        ));
    }
    Ok(out)
}

#[allow(
    dead_code,
    reason = "the test includes this file and calls run() itself"
)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let outcome = run()?;
    for line in &outcome.transcript {
        println!("{line}");
    }
    Ok(())
}
