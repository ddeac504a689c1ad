//! Approvals that hold (issue 20): a resumed approval is decided again under
//! the current configuration; keys that are not keys fail loudly; an answer
//! after the deadline never runs; an approval is claimed once across gates and
//! processes, a settled checkpoint put back never runs again, and a failing
//! store runs nothing; a torn audit log is repaired and recorded, and a
//! write-ahead record precedes every execution; arguments that are not one
//! clean object never reach a tool.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use toolgate::gate::audit::JsonlSink;
use toolgate::gate::store::{CheckpointStore, DirStore, MemoryStore, StoreError};
use toolgate::{ApprovalRequest, Call, Event, Gate, GateError, Policy, Response, Status};

const KEY: &[u8] = b"a key of at least sixteen bytes";
const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired","risk_level":"medium"}"#;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("approvals")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn policy() -> Policy {
    Policy::embedded().unwrap()
}

fn counting() -> (
    Arc<AtomicUsize>,
    impl Fn(&str) -> Result<String, String> + Clone,
) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    (count, move |args: &str| {
        c.fetch_add(1, Ordering::SeqCst);
        Ok(format!("ran {args}"))
    })
}

fn next_request(events: &std::sync::mpsc::Receiver<Event>) -> ApprovalRequest {
    loop {
        if let Event::Requested { request } = events.recv_timeout(Duration::from_secs(10)).unwrap()
        {
            return *request;
        }
    }
}

/// Leaves `call` pending in a DirStore at `dir` (a gate whose thread waits
/// for an hour, as a crashed process would leave it) and returns the request.
fn leave_pending(dir: &Path, config: &str, call: Call) -> ApprovalRequest {
    let gate = Gate::builder(&policy())
        .config(config)
        .store(DirStore::new(dir))
        .key(KEY)
        .timeout(Duration::from_secs(3600))
        .build()
        .unwrap();
    let events = gate.subscribe();
    std::thread::spawn(move || {
        let _ = gate.run(&call, |_| panic!("the first gate never runs it"));
    });
    next_request(&events)
}

/// Leaves the DELETE pending in a DirStore at `dir` under a gate with
/// `timeout`, copies its checkpoint into `aside` while it waits, and returns
/// the request once that gate has expired it: a checkpoint saved before its
/// approval was settled.
fn expired_aside(dir: &Path, aside: &Path, timeout: Duration) -> ApprovalRequest {
    let gate = Gate::builder(&policy())
        .store(DirStore::new(dir))
        .key(KEY)
        .timeout(timeout)
        .build()
        .unwrap();
    let events = gate.subscribe();
    let waiter = std::thread::spawn(move || {
        let _ = gate.run(&Call::new("execute_sql", DELETE), |_| panic!("never"));
    });
    let request = next_request(&events);
    let name = format!("{}.json", request.id);
    std::fs::copy(dir.join(&name), aside.join(&name)).unwrap();
    waiter.join().unwrap();
    request
}

/// A gate over `dir` that approves every request at once.
fn approving(dir: &Path, config: &str) -> Gate {
    Gate::builder(&policy())
        .config(config)
        .store(DirStore::new(dir))
        .key(KEY)
        .approver(|_| Response::approve())
        .build()
        .unwrap()
}

#[test]
fn a_resumed_approval_is_decided_again_under_the_current_configuration() {
    let dir = scratch("stricter");
    let request = leave_pending(&dir, "{}", Call::new("drop_database", r#"{"name":"prod"}"#));
    assert!(!request.config_hash.is_empty());
    assert!(!request.gate.is_empty());
    // The tool is turned off during an incident: approving the pending call
    // must not run it.
    let gate = approving(&dir, r#"{"denied_tools":["drop_database"]}"#);
    let (count, exec) = counting();
    let result = gate.resume(&request.id, exec).unwrap();
    assert_eq!(result.status, Status::Denied, "{result:?}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert_eq!(result.decision.action, toolgate::Action::Deny);

    // Under the same configuration, the approval stands.
    let dir = scratch("same");
    let request = leave_pending(&dir, r#"{ }"#, Call::new("execute_sql", DELETE));
    let (count, exec) = counting();
    let result = approving(&dir, "{}").resume(&request.id, exec).unwrap();
    assert_eq!(
        (result.status, count.load(Ordering::SeqCst)),
        (Status::Executed, 1)
    );
}

#[test]
fn keys_that_are_not_keys_fail_loudly() {
    let p = policy();
    for key in [b"".as_slice(), b"short".as_slice(), &[1_u8; 15]] {
        let built = Gate::builder(&p).key(key).build();
        assert!(matches!(built, Err(GateError::Key(_))), "{key:?}");
    }
    // A store that others can write needs a key, or `unsigned` said aloud.
    let dir = scratch("keys");
    assert!(matches!(
        Gate::builder(&p).store(DirStore::new(&dir)).build(),
        Err(GateError::Key(_))
    ));
    assert!(Gate::builder(&p)
        .store(DirStore::new(&dir))
        .unsigned()
        .build()
        .is_ok());
    assert!(Gate::builder(&p).key(KEY).build().is_ok());
    // The component itself never signs with a short key.
    let sealed = p.seal_checkpoint(
        r#"{"id":"a","tool":"t","args":"{}","decision":{"action":"confirm","risk":"high","source":"default","llm_risk":null,"findings":[],"summary":"s"},"requested_at":1,"deadline":2}"#,
        Some(b""),
    );
    assert!(matches!(
        sealed,
        Err(toolgate::CheckpointFailure::Refused(
            toolgate::CheckpointError::WeakKey(0)
        ))
    ));

    // The CLI refuses an empty key file, and a listing without any key.
    let empty = dir.join("empty.key");
    std::fs::write(&empty, "").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["approvals", "list"])
        .arg(&dir)
        .arg("--key-file")
        .arg(&empty)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("0 bytes"), "{stderr}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["approvals", "list"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["approvals", "list", "--unsigned"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn an_answer_after_the_deadline_never_runs() {
    // A zero timeout with an approver that answers at once.
    let gate = Gate::builder(&policy())
        .timeout(Duration::ZERO)
        .approver(|_| Response::approve())
        .build()
        .unwrap();
    let (count, exec) = counting();
    let result = gate.run(&Call::new("execute_sql", DELETE), exec).unwrap();
    assert_eq!(
        (result.status, count.load(Ordering::SeqCst)),
        (Status::Expired, 0)
    );

    // A resume after the deadline, with an approver that answers at once.
    let copy = scratch("late-copy");
    let request = expired_aside(&scratch("late"), &copy, Duration::from_millis(300));
    let (count, exec) = counting();
    let result = approving(&copy, "{}").resume(&request.id, exec).unwrap();
    assert_eq!(
        (result.status, count.load(Ordering::SeqCst)),
        (Status::Expired, 0)
    );
}

/// One racer: resumes `TOOLGATE_RACE_ID` from the store at `TOOLGATE_RACE_DIR`
/// with an approver that answers at once, and prints what happened. Does
/// nothing unless run by [`two_processes_racing_on_one_store_run_it_once`].
#[test]
fn race_child() {
    let (Ok(dir), Ok(id), Ok(marks)) = (
        std::env::var("TOOLGATE_RACE_DIR"),
        std::env::var("TOOLGATE_RACE_ID"),
        std::env::var("TOOLGATE_RACE_MARKS"),
    ) else {
        return;
    };
    let gate = approving(Path::new(&dir), "{}");
    let marks = PathBuf::from(marks);
    let outcome = gate.resume(&id, move |_| {
        let mark = marks.join(format!("ran-{}", std::process::id()));
        std::fs::write(mark, "").unwrap();
        Ok(String::from("ran"))
    });
    println!("RACE {outcome:?}");
}

#[test]
fn two_processes_racing_on_one_store_run_it_once() {
    let dir = scratch("race");
    let marks = scratch("race-marks");
    let request = leave_pending(&dir, "{}", Call::new("execute_sql", DELETE));
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..3)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "race_child", "--nocapture", "--test-threads=1"])
                .env("TOOLGATE_RACE_DIR", &dir)
                .env("TOOLGATE_RACE_ID", &request.id)
                .env("TOOLGATE_RACE_MARKS", &marks)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut executed = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("status: Executed") {
            executed += 1;
        }
    }
    let ran = std::fs::read_dir(&marks).unwrap().count();
    assert_eq!((executed, ran), (1, 1));

    // Two gates in one process, on threads: the same.
    let dir = scratch("race-threads");
    let request = leave_pending(&dir, "{}", Call::new("execute_sql", DELETE));
    let (count, exec) = counting();
    let racers: Vec<_> = (0..2)
        .map(|_| {
            let dir = dir.clone();
            let id = request.id.clone();
            let exec = exec.clone();
            std::thread::spawn(move || approving(&dir, "{}").resume(&id, exec))
        })
        .collect();
    let outcomes: Vec<_> = racers.into_iter().map(|r| r.join().unwrap()).collect();
    assert_eq!(count.load(Ordering::SeqCst), 1, "{outcomes:?}");
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1);
}

#[test]
fn a_settled_checkpoint_put_back_never_runs_again() {
    let dir = scratch("replay");
    let request = leave_pending(&dir, "{}", Call::new("execute_sql", DELETE));
    let file = dir.join(format!("{}.json", request.id));
    let saved = std::fs::read_to_string(&file).unwrap();
    let (count, exec) = counting();
    let first = approving(&dir, "{}").resume(&request.id, exec.clone());
    assert_eq!(first.unwrap().status, Status::Executed);
    assert!(!file.exists());
    std::fs::write(&file, saved).unwrap();
    let again = approving(&dir, "{}").resume(&request.id, exec);
    assert!(
        matches!(again, Err(GateError::AlreadyAnswered(_))),
        "{again:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

/// A store whose removal fails.
struct Sticky(MemoryStore);

impl CheckpointStore for Sticky {
    fn put(&self, id: &str, checkpoint: &str) -> Result<(), StoreError> {
        self.0.put(id, checkpoint)
    }
    fn remove(&self, _: &str) -> Result<(), StoreError> {
        Err(StoreError::Io(std::io::Error::other("disk gone")))
    }
    fn claim(&self, id: &str, deadline: u64) -> Result<bool, StoreError> {
        self.0.claim(id, deadline)
    }
    fn list(&self) -> Result<Vec<(String, String)>, StoreError> {
        self.0.list()
    }
}

#[test]
fn a_failing_store_runs_nothing() {
    let gate = Gate::builder(&policy())
        .store(Sticky(MemoryStore::new()))
        .key(KEY)
        .approver(|_| Response::approve())
        .build()
        .unwrap();
    let (count, exec) = counting();
    let result = gate.run(&Call::new("execute_sql", DELETE), exec);
    assert!(matches!(result, Err(GateError::Store(_))), "{result:?}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
}

#[test]
fn a_torn_audit_log_is_repaired_and_the_gap_recorded() {
    let dir = scratch("torn");
    let log = dir.join("audit.jsonl");
    let build = || {
        Gate::builder(&policy())
            .audit(JsonlSink::open(&log).unwrap())
            .build()
            .unwrap()
    };
    let select = Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#);
    build().run(&select, |_| Ok(String::from("1"))).unwrap();
    // A crash mid-write: half a record, no newline.
    let text = std::fs::read_to_string(&log).unwrap();
    let half = &text.lines().last().unwrap()[..40];
    std::fs::write(&log, format!("{text}{half}")).unwrap();
    let gate = build();
    let log_path = log.clone();
    let result = gate
        .run(&select, move |_| {
            // Write-ahead: the record is there before the tool runs.
            let now = std::fs::read_to_string(&log_path).unwrap();
            assert!(
                now.lines()
                    .last()
                    .unwrap()
                    .contains(r#""status":"executing""#),
                "{now}"
            );
            Ok(String::from("1"))
        })
        .unwrap();
    assert_eq!(result.audit_error, None);
    let repaired = std::fs::read_to_string(&log).unwrap();
    let summary = policy().verify_audit(&repaired).unwrap();
    // executing + executed, the gap, executing + executed.
    assert_eq!(summary.records, 5, "{repaired}");
    assert!(repaired.contains(r#""status":"gap""#));
    let aside: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".torn-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(std::fs::read_to_string(aside[0].path()).unwrap(), half);
}

#[test]
fn arguments_that_are_not_one_clean_object_never_reach_a_tool() {
    let gate = Gate::builder(&policy())
        .approver(|_| Response::approve())
        .build()
        .unwrap();
    for args in [
        r#"{"sql":"SELECT count(*) FROM users","sql":"DROP TABLE users"}"#,
        r#"{"sql":"SELECT 1""#,
    ] {
        let (count, exec) = counting();
        let result = gate.run(&Call::new("execute_sql", args), exec).unwrap();
        assert_ne!(result.status, Status::Executed, "{args}");
        assert_eq!(count.load(Ordering::SeqCst), 0, "{args}");
    }
}

#[test]
fn stale_checkpoints_and_tombstones_are_swept() {
    let dir = scratch("sweep-origin");
    let stale = scratch("sweep");
    let request = expired_aside(&dir, &stale, Duration::from_millis(200));
    let name = format!("{}.json", request.id);
    let saved = std::fs::read_to_string(stale.join(&name)).unwrap();
    // The origin's own claim is a tombstone until the deadline, then swept.
    assert!(dir.join(format!("{}.claim", request.id)).exists());
    let sweeper = approving(&stale, "{}");
    assert_eq!(sweeper.sweep().unwrap(), 1);
    assert_eq!(std::fs::read_dir(&stale).unwrap().count(), 0);
    assert_eq!(approving(&dir, "{}").sweep().unwrap(), 0);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // A swept checkpoint put back expires unrun.
    std::fs::write(stale.join(&name), saved).unwrap();
    let (count, exec) = counting();
    let r = approving(&stale, "{}").resume(&request.id, exec).unwrap();
    assert_eq!(
        (r.status, count.load(Ordering::SeqCst)),
        (Status::Expired, 0)
    );
}

/// A sink whose disk is full.
struct Full;

impl toolgate::gate::audit::AuditSink for Full {
    fn append(&self, _: &str) -> Result<(), toolgate::gate::audit::SinkError> {
        Err(toolgate::gate::audit::SinkError::Io(std::io::Error::other(
            "disk full",
        )))
    }
}

#[test]
fn a_gate_that_requires_its_audit_runs_nothing_it_cannot_record() {
    let select = Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#);
    let (count, exec) = counting();
    let strict = Gate::builder(&policy())
        .audit(Full)
        .audit_required(true)
        .build()
        .unwrap();
    let r = strict.run(&select, exec.clone()).unwrap();
    assert_eq!(r.status, Status::Denied);
    assert!(r.audit_error.unwrap().contains("disk full"));
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // By default the failure is reported and the call runs.
    let lenient = Gate::builder(&policy()).audit(Full).build().unwrap();
    let r = lenient.run(&select, exec).unwrap();
    assert_eq!(r.status, Status::Executed);
    assert!(r.audit_error.is_some());
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn a_keyed_chain_and_an_anchored_head_catch_rewrites_and_cuts() {
    let dir = scratch("keyed");
    let log = dir.join("audit.jsonl");
    let key_file = dir.join("audit.key");
    std::fs::write(&key_file, KEY).unwrap();
    let gate = Gate::builder(&policy())
        .audit(JsonlSink::open(&log).unwrap())
        .audit_key(KEY)
        .build()
        .unwrap();
    for sql in ["SELECT 1", "SELECT 2"] {
        let call = Call::new("execute_sql", format!(r#"{{"sql":"{sql}"}}"#));
        gate.run(&call, |_| Ok(String::from("1"))).unwrap();
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let p = policy();
    let head = p.verify_audit_keyed(&text, KEY).unwrap().head;
    assert!(
        p.verify_audit(&text).is_err(),
        "the public seal cannot vouch for it"
    );

    // Rewritten with the public seal function: the keyed verifier refuses it.
    let mut forged: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let o = v.as_object_mut().unwrap();
        for field in ["seq", "prev", "hash"] {
            o.remove(field);
        }
        o.insert("result".into(), "rewritten".into());
        forged.push(
            p.seal_audit(&v.to_string(), forged.last().map(String::as_str))
                .unwrap(),
        );
    }
    let forged = format!("{}\n", forged.join("\n"));
    assert!(p.verify_audit(&forged).is_ok());
    assert!(p.verify_audit_keyed(&forged, KEY).is_err());

    let cli = |file: &Path, extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["audit", "verify"])
            .arg(file)
            .args(extra)
            .output()
            .unwrap()
    };
    let key_arg = key_file.to_str().unwrap();
    let ok = cli(&log, &["--key-file", key_arg, "--head", &head]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let forged_file = dir.join("forged.jsonl");
    std::fs::write(&forged_file, &forged).unwrap();
    assert_eq!(
        cli(&forged_file, &["--key-file", key_arg]).status.code(),
        Some(4)
    );
    // Cut the last record off: still a valid chain, but the anchored head is gone.
    let cut_file = dir.join("cut.jsonl");
    let first = text.lines().next().unwrap();
    std::fs::write(&cut_file, format!("{first}\n")).unwrap();
    assert_eq!(
        cli(&cut_file, &["--key-file", key_arg]).status.code(),
        Some(0)
    );
    let cut = cli(&cut_file, &["--key-file", key_arg, "--head", &head]);
    assert_eq!(cut.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&cut.stdout).contains("cut or rewritten"));
    // A short audit key is refused.
    assert!(matches!(
        Gate::builder(&p).audit_key(b"short".as_slice()).build(),
        Err(GateError::Key(_))
    ));
}

#[test]
fn two_gates_writing_one_log_never_fork_the_chain() {
    let dir = scratch("writers");
    let log = dir.join("audit.jsonl");
    let gate = || {
        Gate::builder(&policy())
            .audit(JsonlSink::open(&log).unwrap())
            .build()
            .unwrap()
    };
    let (a, b) = (gate(), gate());
    let select = Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#);
    for _ in 0..2 {
        a.run(&select, |_| Ok(String::from("1"))).unwrap();
        b.run(&select, |_| Ok(String::from("1"))).unwrap();
    }
    // And concurrently, from threads.
    let runners: Vec<_> = (0..4)
        .map(|i| {
            let g = if i % 2 == 0 { a.clone() } else { b.clone() };
            let call = select.clone();
            std::thread::spawn(move || g.run(&call, |_| Ok(String::from("1"))).unwrap())
        })
        .collect();
    for r in runners {
        assert_eq!(r.join().unwrap().audit_error, None);
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(policy().verify_audit(&text).unwrap().records, 16);
}
