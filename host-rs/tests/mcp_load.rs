//! `toolgate mcp-proxy` under load, against a small echo server
//! (`tests/mcp/echo-server.mjs`), the test speaking JSON-RPC line by line:
//!
//! - a flood (100,000 lines that are not JSON, then 100,000 pings) leaves
//!   the gateway's peak memory under a fixed bound, every line answered;
//! - a line longer than the gateway reads is answered with a parse error
//!   and skipped, and the gateway goes on;
//! - calls of concurrent clients are answered as the server answers them,
//!   interleaved, not one after the other;
//! - when the client closes its side, the calls in flight are answered
//!   before the gateway exits.
//!
//! The benchmark beside it is `tests/bench/mcp-gateway.mjs`. Skipped, saying
//! so, when Node is not installed.

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
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn node() -> bool {
    let there = Command::new("node").arg("--version").output().is_ok();
    if !there {
        eprintln!("skipped: node is not installed");
    }
    there
}

struct Session {
    child: Child,
    input: Option<ChildStdin>,
    output: Receiver<Value>,
}

impl Session {
    fn start(name: &str) -> Session {
        let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mcp-load-{name}"));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        let config = work.join("config.json");
        std::fs::write(&config, r#"{"mcp_servers": {"echo": {"trusted": true}}}"#).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["mcp-proxy", "--name", "echo", "--config"])
            .arg(&config)
            .arg("--audit")
            .arg(work.join("audit.jsonl"))
            .arg("--pins")
            .arg(work.join("pins.json"))
            .arg("--")
            .arg("node")
            .arg(root().join("tests/mcp/echo-server.mjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str::<Value>(&line)
                    .unwrap_or_else(|_| json!({"unreadable": line}));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            input,
            output,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().unwrap();
        input.write_all(bytes).unwrap();
        input.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.write(format!("{message}\n").as_bytes());
    }

    fn next(&self) -> Value {
        self.output
            .recv_timeout(Duration::from_secs(30))
            .expect("the gateway answered")
    }

    /// Initializes and lists the tools, as a client does first.
    fn open(&mut self) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "load", "version": "1"}}}),
        );
        assert_eq!(self.next()["id"], "init");
        self.send(&json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}));
        assert_eq!(self.next()["id"], "list");
    }

    fn call(&mut self, id: &str, message: &str, delay_ms: u64) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": message, "delay_ms": delay_ms}}}));
    }

    /// Sets the gateway's peak resident memory back to what it holds now
    /// (Linux's `clear_refs` 5), so that a peak read later is the flood's,
    /// not the start's (compiling the component when its cache is cold).
    /// Returns the resident memory at that point, in KiB.
    fn reset_peak(&self) -> u64 {
        std::fs::write(format!("/proc/{}/clear_refs", self.child.id()), "5").unwrap();
        self.status("VmRSS:")
    }

    /// The gateway's peak resident memory since the reset, in KiB.
    fn peak_kib(&self) -> u64 {
        self.status("VmHWM:")
    }

    fn status(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `count` lines made by `line` from a thread of its own (the pipe
/// fills while the gateway answers), while the answers are counted here.
fn flood(session: &mut Session, count: usize, line: impl Fn(usize) -> String + Send + 'static) {
    let mut input = session.input.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut chunk = String::new();
        for i in 0..count {
            chunk.push_str(&line(i));
            if chunk.len() > 65536 {
                input.write_all(chunk.as_bytes()).unwrap();
                chunk.clear();
            }
        }
        input.write_all(chunk.as_bytes()).unwrap();
        input.flush().unwrap();
        input
    });
    for _ in 0..count {
        session.next();
    }
    session.input = Some(writer.join().unwrap());
}

/// The gateway's memory does not grow with a flood: 100,000 junk lines and
/// 100,000 pings are all answered, and its peak grows by less than 32 MiB
/// (before the queues were bounded, the same flood grew it by over 100 MiB,
/// and a million lines by over 1 GiB).
#[test]
fn a_flood_is_answered_in_bounded_memory() {
    if !node() {
        return;
    }
    let mut session = Session::start("flood");
    session.open();
    let base = session.reset_peak();
    let start = Instant::now();
    flood(&mut session, 100_000, |_| String::from("x\n"));
    flood(&mut session, 100_000, |i| {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n")
    });
    session.send(&json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}));
    assert_eq!(session.next()["id"], "last");
    let grown = session.peak_kib().saturating_sub(base);
    eprintln!(
        "flood: peak {} MiB over the {} MiB at its start, {:.1} s",
        grown / 1024,
        base / 1024,
        start.elapsed().as_secs_f64()
    );
    assert!(
        grown < 32 * 1024,
        "the flood grew the gateway by {grown} KiB"
    );
}

/// A line longer than the gateway reads from a client (16 MiB of arguments
/// and 1 MiB besides) is answered with a parse error without being kept,
/// and the next message is answered as usual.
#[test]
fn an_oversized_line_is_refused_and_skipped() {
    if !node() {
        return;
    }
    let mut session = Session::start("oversized");
    session.open();
    let base = session.reset_peak();
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"{}\"}}}}}}\n",
        "x".repeat(40 * 1024 * 1024)
    );
    session.write(big.as_bytes());
    let refused = session.next();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert!(refused["id"].is_null(), "{refused}");
    session.call("after", "still here", 0);
    let answer = session.next();
    assert_eq!(answer["id"], "after", "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "still here");
    // The 40 MiB line was never held whole.
    let grown = session.peak_kib().saturating_sub(base);
    assert!(
        grown < 40 * 1024,
        "the line grew the gateway by {grown} KiB"
    );
}

/// Eight clients' calls, the first taking longest: answered as the server
/// finishes them (the last sent first), all within about the longest call,
/// not one after the other (which would take the sum, 3.6 s).
#[test]
fn concurrent_calls_are_answered_interleaved() {
    if !node() {
        return;
    }
    let mut session = Session::start("concurrent");
    session.open();
    let start = Instant::now();
    for i in 0..8u64 {
        session.call(&format!("c{i}"), &format!("m{i}"), 800 - i * 100);
    }
    let order: Vec<String> = (0..8)
        .map(|_| {
            let answer = session.next();
            let id = answer["id"].as_str().unwrap().to_owned();
            assert_eq!(
                answer["result"]["content"][0]["text"],
                format!("m{}", &id[1..]),
                "{answer}"
            );
            id
        })
        .collect();
    let took = start.elapsed();
    assert_eq!(order, ["c7", "c6", "c5", "c4", "c3", "c2", "c1", "c0"]);
    assert!(took < Duration::from_millis(2500), "took {took:?}");
}

/// The client closes its side with calls in flight: each is answered (the
/// server's answers still reach the client), and then the gateway exits 0.
#[test]
fn calls_in_flight_are_answered_before_exit() {
    if !node() {
        return;
    }
    let mut session = Session::start("eof");
    session.open();
    for i in 0..5u64 {
        session.call(&format!("e{i}"), &format!("late {i}"), 300 + i * 50);
    }
    drop(session.input.take());
    let mut answered: Vec<String> = (0..5)
        .map(|_| {
            let answer = session.next();
            assert!(answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("late"));
            answer["id"].as_str().unwrap().to_owned()
        })
        .collect();
    answered.sort();
    assert_eq!(answered, ["e0", "e1", "e2", "e3", "e4"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = session.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the gateway did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}
