//! Claim and record as one step, in the Rust host: an approval whose record
//! cannot be written is refused without being used up; a claim a holder that
//! died left without its record is taken back and the approval answered
//! again, once; a claim with its record is never taken back; the MCP gateway
//! requires its audit. (`crash.rs` kills real writers; these are the cases
//! one at a time.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use toolgate::gate::audit::{AuditSink, JsonlSink, SinkError};
use toolgate::gate::store::{CheckpointStore, DirStore};
use toolgate::{Call, Checked, Gate, GateError, Policy, Response, Status};

const KEY: &[u8] = b"claims-test-key-0123456789";
const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired"}"#;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-claims-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A JSON Lines log whose disk fills up while `full` is set.
struct Filling {
    log: JsonlSink,
    full: Arc<AtomicBool>,
}

impl AuditSink for Filling {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        if self.full.load(Ordering::SeqCst) {
            return Err(SinkError::Io(std::io::Error::other(
                "No space left on device",
            )));
        }
        self.log.append(line)
    }
    fn last(&self) -> Result<Option<String>, SinkError> {
        self.log.last()
    }
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        let full = Arc::clone(&self.full);
        self.log.append_sealed(&|previous| {
            let line = seal(previous)?;
            if full.load(Ordering::SeqCst) {
                return Err(String::from("audit sink: No space left on device"));
            }
            Ok(line)
        })
    }
    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        self.log.recorded(approval, since)
    }
}

fn gate(dir: &Path, sink: impl AuditSink + 'static) -> Gate {
    Gate::builder(&Policy::embedded().unwrap())
        .store(DirStore::new(dir.join("approvals")))
        .audit(sink)
        .key(KEY)
        .audit_required(true)
        .timeout(Duration::from_secs(3600))
        .build()
        .unwrap()
}

fn ask(gate: &Gate) -> String {
    match gate.check(&Call::new("execute_sql", DELETE)).unwrap() {
        Checked::Ask(pending) => pending.id,
        other => panic!("a DELETE asks: {other:?}"),
    }
}

fn counting() -> (
    Arc<AtomicUsize>,
    impl Fn(&str) -> Result<String, String> + Clone,
) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    (count, move |_: &str| {
        c.fetch_add(1, Ordering::SeqCst);
        Ok(String::from("ran"))
    })
}

#[test]
fn a_full_log_refuses_an_approval_without_using_it_up() {
    let dir = scratch("full");
    let full = Arc::new(AtomicBool::new(false));
    let log = dir.join("audit.jsonl");
    let g = gate(
        &dir,
        Filling {
            log: JsonlSink::open(&log).unwrap(),
            full: Arc::clone(&full),
        },
    );
    let id = ask(&g);
    full.store(true, Ordering::SeqCst);
    let (count, exec) = counting();
    let refused = g.settle(&id, Response::approve(), exec.clone());
    assert!(
        matches!(&refused, Err(GateError::Sink(e)) if e.to_string().contains("stays pending")),
        "{refused:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 0);
    let store = DirStore::new(dir.join("approvals"));
    assert!(store.get(&id).unwrap().is_some(), "the checkpoint stays");
    assert!(!store.claimed(&id).unwrap(), "the claim was taken back");
    let listed: Vec<String> = g
        .pending()
        .unwrap()
        .into_iter()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(listed, std::slice::from_ref(&id));
    // Room again: it runs, once.
    full.store(false, Ordering::SeqCst);
    let again = gate(&dir, JsonlSink::open(&log).unwrap());
    let r = again.settle(&id, Response::approve(), exec).unwrap();
    assert_eq!(r.status, Status::Executed);
    assert_eq!(count.load(Ordering::SeqCst), 1);
    let text = std::fs::read_to_string(&log).unwrap();
    Policy::embedded()
        .unwrap()
        .verify_audit_keyed(&text, KEY)
        .unwrap();
}

#[test]
fn a_dead_holders_claim_without_its_record_is_taken_back_and_answered_once() {
    let dir = scratch("dead");
    let log = dir.join("audit.jsonl");
    let g = gate(&dir, JsonlSink::open(&log).unwrap());
    let id = ask(&g);
    let claim = dir.join("approvals").join(format!("{id}.claim"));
    // A holder killed between its claim and its record.
    std::fs::write(&claim, "99999999999999").unwrap();
    let fresh = gate(&dir, JsonlSink::open(&log).unwrap());
    let listed: Vec<String> = fresh
        .pending()
        .unwrap()
        .into_iter()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(listed, std::slice::from_ref(&id), "listed again, not lost");
    assert!(!claim.exists());
    // Claimed again without recovery: the next answer takes the dead claim over.
    std::fs::write(&claim, "99999999999999").unwrap();
    let (count, exec) = counting();
    let r = fresh.settle(&id, Response::approve(), exec).unwrap();
    assert_eq!(r.status, Status::Executed);
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn a_claim_with_its_record_is_never_taken_back() {
    let dir = scratch("recorded");
    let log = dir.join("audit.jsonl");
    let g = gate(&dir, JsonlSink::open(&log).unwrap());
    let id = ask(&g);
    let file = dir.join("approvals").join(format!("{id}.json"));
    let saved = std::fs::read_to_string(&file).unwrap();
    let (count, exec) = counting();
    assert_eq!(
        g.settle(&id, Response::approve(), exec.clone())
            .unwrap()
            .status,
        Status::Executed
    );
    // A holder killed after its record, before the checkpoint's removal.
    std::fs::write(&file, &saved).unwrap();
    let fresh = gate(&dir, JsonlSink::open(&log).unwrap());
    assert_eq!(fresh.recover().unwrap(), 1);
    assert!(!file.exists());
    assert!(dir.join("approvals").join(format!("{id}.claim")).exists());
    std::fs::write(&file, &saved).unwrap();
    let again = fresh.settle(&id, Response::approve(), exec);
    assert!(
        matches!(again, Err(GateError::AlreadyAnswered(_))),
        "{again:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

/// The MCP gateway with its audit log on a full disk (`/dev/full` behind
/// the log's name): an allowed call is refused with the reason and never
/// reaches the server.
#[test]
fn the_gateway_refuses_a_call_it_cannot_record() {
    use std::io::{BufRead, BufReader, Write};
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED the_gateway_refuses_a_call_it_cannot_record: node is not runnable");
        return;
    }
    let work = scratch("gateway");
    let log = work.join("audit.jsonl");
    std::os::unix::fs::symlink("/dev/full", &log).unwrap();
    let config = work.join("config.json");
    std::fs::write(
        &config,
        r#"{"mcp_servers": {"hostile": {"trusted": true}}}"#,
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["mcp-proxy", "--name", "hostile", "--config"])
        .arg(&config)
        .arg("--audit")
        .arg(&log)
        .arg("--pins")
        .arg(work.join("pins.json"))
        .arg("--")
        .arg("node")
        .arg(root.join("tests/mcp/hostile-server.mjs"))
        .arg(&work)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |message: serde_json::Value| -> serde_json::Value {
        writeln!(input, "{message}").unwrap();
        input.flush().unwrap();
        let id = message["id"].clone();
        loop {
            let line = output.next().expect("the gateway answered").unwrap();
            let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
    };
    ask(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}),
    );
    ask(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let answer = ask(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "read", "arguments": {"note": "a"}}}),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("could not be written") && text.contains("not run"),
        "{answer}"
    );
    let seen = std::fs::read_to_string(work.join("seen")).unwrap_or_default();
    assert!(
        !seen.contains("tools/call"),
        "the call reached the server: {seen}"
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// A JSON Lines log whose writer lock cannot be taken while `held` is set
/// (another writer holds it past every wait).
struct Held {
    log: JsonlSink,
    held: Arc<AtomicBool>,
}

impl AuditSink for Held {
    fn append(&self, line: &str) -> Result<(), SinkError> {
        self.log.append(line)
    }
    fn last(&self) -> Result<Option<String>, SinkError> {
        self.log.last()
    }
    fn append_sealed(
        &self,
        seal: &dyn Fn(Option<&str>) -> Result<String, String>,
    ) -> Option<Result<String, String>> {
        if self.held.load(Ordering::SeqCst) {
            return Some(Err(String::from(
                "audit sink: cannot lock the log: audit.jsonl.lock is held",
            )));
        }
        self.log.append_sealed(seal)
    }
    fn recorded(&self, approval: &str, since: u64) -> Result<Option<bool>, SinkError> {
        self.log.recorded(approval, since)
    }
}

#[test]
fn no_claim_is_made_without_the_writer_lock() {
    // A claim made outside the lock has no record yet, so another gate that
    // holds the lock would read it as a dead holder's and take it over: the
    // approval could run twice. Even with the audit not required, the
    // answer fails and the approval stays pending, unclaimed.
    let dir = scratch("held");
    let held = Arc::new(AtomicBool::new(false));
    let log = dir.join("audit.jsonl");
    let g = Gate::builder(&Policy::embedded().unwrap())
        .store(DirStore::new(dir.join("approvals")))
        .audit(Held {
            log: JsonlSink::open(&log).unwrap(),
            held: Arc::clone(&held),
        })
        .key(KEY)
        .audit_required(false)
        .timeout(Duration::from_secs(3600))
        .build()
        .unwrap();
    let id = ask(&g);
    held.store(true, Ordering::SeqCst);
    let (count, exec) = counting();
    let refused = g.settle(&id, Response::approve(), exec.clone());
    assert!(
        matches!(&refused, Err(GateError::Sink(e)) if e.to_string().contains("writer lock")),
        "{refused:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 0);
    let store = DirStore::new(dir.join("approvals"));
    assert!(store.get(&id).unwrap().is_some(), "the checkpoint stays");
    assert!(!store.claimed(&id).unwrap(), "nothing was claimed");
    held.store(false, Ordering::SeqCst);
    let r = g.settle(&id, Response::approve(), exec).unwrap();
    assert_eq!(r.status, Status::Executed);
    assert_eq!(count.load(Ordering::SeqCst), 1);
}
