//! `toolgate mcp-proxy` against a hostile MCP server
//! (`tests/mcp/hostile-server.mjs`), the test speaking JSON-RPC as the
//! client line by line: a server request under an id imitating the
//! gateway's approval dialogs is refused and never reaches the client; the
//! client's "accept" under such an id approves nothing; the server's own
//! answer to a call still awaiting approval never reaches the client; only
//! the dialog that asked settles a call; dialog ids are unguessable; a
//! 16.5 MiB argument is refused as `args.invalid`, a 64 MiB line is answered
//! with a parse error unread, and the gateway goes on. The
//! honest siblings pass: a server's own elicitation and its answer, an
//! approved call, a small argument.
//!
//! Skipped, saying so, when Node is not installed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

struct Session {
    child: Child,
    input: ChildStdin,
    output: Receiver<Value>,
}

impl Session {
    fn start(work: &Path) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["mcp-proxy", "--name", "hostile", "--audit"])
            .arg(work.join("audit.jsonl"))
            .arg("--pins")
            .arg(work.join("pins.json"))
            .arg("--")
            .arg("node")
            .arg(root().join("tests/mcp/hostile-server.mjs"))
            .arg(work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(value) = serde_json::from_str::<Value>(&line) {
                    if tx.send(value).is_err() {
                        break;
                    }
                }
            }
        });
        Session {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// The next message, within 20 s.
    fn next(&self) -> Value {
        self.output
            .recv_timeout(Duration::from_secs(20))
            .expect("the gateway answered")
    }

    /// The next message with this id (others are returned too, in order).
    fn until(&self, id: &Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next();
            if message.get("id") == Some(id) {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Every message that arrives within `window`.
    fn drain(&self, window: Duration) -> Vec<Value> {
        let until = Instant::now() + window;
        let mut out = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(message) => out.push(message),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return out,
            }
        }
    }

    /// Calls `tool`: the gateway's approval dialog (its request) comes back.
    fn call_asked(&mut self, id: u64, tool: &str, args: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
        let dialog = self.next();
        assert_eq!(dialog["method"], "elicitation/create", "{dialog}");
        dialog
    }
}

fn accept(id: &Value, approve: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id,
        "result": {"action": "accept", "content": {"approve": approve}}})
}

const FAKES: [&str; 3] = [
    "toolgate-approval-1",
    "TOOLGATE-APPROVAL-2",
    "toolgate_approval_3",
];

#[test]
fn a_hostile_server_cannot_answer_for_the_person() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipped: node is not installed");
        return;
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-hostile");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let mut s = Session::start(&work);
    s.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    s.until(&json!(1));
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    s.until(&json!(2));

    // A call of `wipe` waits for the person; the server strikes meanwhile.
    let dialog = s.call_asked(3, "wipe", json!({"path": "/srv"}));
    let real = dialog["id"].clone();
    let real_text = real.as_str().unwrap().to_owned();
    assert!(real_text.starts_with("toolgate-approval-"), "{real}");
    assert!(
        real_text.len() > "toolgate-approval-".len() + 32,
        "unguessable: {real}"
    );
    s.send(&json!({"jsonrpc": "2.0", "method": "test/strike", "params": {"waiting": 3}}));
    let seen = s.drain(Duration::from_secs(2));
    for message in &seen {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        assert!(
            !FAKES.iter().any(|f| id == json!(f)),
            "an imitating request reached the client: {message}"
        );
        assert_ne!(
            id,
            json!(3),
            "the server's answer to a waiting call reached the client"
        );
    }
    // The server's honest request passes, both ways.
    let honest = seen
        .iter()
        .find(|m| m["id"] == json!("server-ask-1"))
        .unwrap_or_else(|| panic!("the server's own elicitation was forwarded: {seen:?}"));
    assert_eq!(honest["method"], "elicitation/create");
    s.send(&json!({"jsonrpc": "2.0", "id": "server-ask-1",
        "result": {"action": "accept", "content": {"colour": "blue"}}}));
    // "Accept" under the imitated ids approves nothing.
    for fake in FAKES {
        s.send(&accept(&json!(fake), true));
    }
    assert!(s.drain(Duration::from_millis(500)).is_empty());
    // The person declines the real dialog: not run, whatever was accepted.
    s.send(&json!({"jsonrpc": "2.0", "id": real,
        "result": {"action": "decline"}}));
    let (answer, _) = s.until(&json!(3));
    assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(!answer.to_string().contains("FAKE"), "{answer}");

    // Two calls wait; each dialog settles only its own call.
    let first = s.call_asked(4, "wipe", json!({"path": "/srv/a"}))["id"].clone();
    let second = s.call_asked(5, "wipe", json!({"path": "/srv/b"}))["id"].clone();
    assert_ne!(first, second);
    assert_ne!(first, real);
    s.send(&accept(&second, true));
    let (ran, _) = s.until(&json!(5));
    assert!(ran.to_string().contains("ran wipe"), "{ran}");
    assert!(ran.to_string().contains("/srv/b"), "{ran}");
    s.send(&accept(&first, false));
    let (refused, _) = s.until(&json!(4));
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");

    // A 16.5 MiB argument: refused as args.invalid, and the gateway goes on.
    let huge = "x".repeat(16 * 1024 * 1024 + 512 * 1024);
    s.send(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "read", "arguments": {"note": huge}}}));
    let (big, _) = s.until(&json!(6));
    assert_eq!(big["result"]["isError"], json!(true), "{big}");
    assert!(big.to_string().contains("args.invalid"), "{big}");
    // A 64 MiB line is longer than the gateway reads from a client: a parse
    // error (under no id, the line unread), and the gateway goes on.
    let huge = "x".repeat(64 * 1024 * 1024);
    s.send(&json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "read", "arguments": {"note": huge}}}));
    let (unread, _) = s.until(&Value::Null);
    assert_eq!(unread["error"]["code"], json!(-32700), "{unread}");
    s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
    assert_eq!(s.until(&json!(7)).0["result"], json!({}));

    drop(s.input);
    let started = Instant::now();
    while s.child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the gateway did not exit"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // What the server saw: no call of /srv or /srv/a, the error answers to its
    // imitating requests, and the person's honest answer.
    let seen: Vec<Value> = std::fs::read_to_string(work.join("seen"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let calls: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0]["params"]["arguments"]["path"], "/srv/b");
    for fake in FAKES {
        assert!(
            seen.iter()
                .any(|m| m["id"] == json!(fake) && m.get("error").is_some()),
            "{fake} refused to the server"
        );
    }
    assert!(seen
        .iter()
        .any(|m| m["id"] == "server-ask-1" && m["result"]["content"]["colour"] == "blue"));
}
