//! The approval gate: every path of a confirm, the executor never invoked when
//! a call must not run, restart and resume, forged checkpoints, double answers,
//! shadow mode, and an audit that verifies until a line is touched.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolgate::gate::audit::{CallbackSink, JsonlSink, SqliteSink};
use toolgate::gate::store::{DirStore, SqliteStore};
use toolgate::{
    Action, ApprovalRequest, Call, CheckpointError, Event, ForModel, Gate, GateError, Policy,
    Response, Status,
};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("gate")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn policy() -> Policy {
    Policy::embedded().unwrap()
}

const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired","risk_level":"medium"}"#;

/// An executor that counts its calls and echoes its arguments.
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

fn next_request(events: &Receiver<Event>) -> ApprovalRequest {
    loop {
        match events.recv_timeout(Duration::from_secs(10)).unwrap() {
            Event::Requested { request } => return *request,
            _ => continue,
        }
    }
}

/// Runs `call` on a thread, answers its request with `respond`, returns the result.
fn run_answered(
    gate: &Gate,
    call: Call,
    respond: impl FnOnce(&Gate, &ApprovalRequest),
) -> (toolgate::ToolResult, usize) {
    let events = gate.subscribe();
    let (count, exec) = counting();
    let runner = {
        let gate = gate.clone();
        std::thread::spawn(move || gate.run(&call, exec).unwrap())
    };
    let request = next_request(&events);
    respond(gate, &request);
    let result = runner.join().unwrap();
    (result, count.load(Ordering::SeqCst))
}

#[test]
fn allow_runs_without_asking_and_deny_never_runs() {
    let gate = Gate::builder(&policy())
        .config(r#"{"denied_tools":["drop_database"]}"#)
        .build()
        .unwrap();
    let (count, exec) = counting();
    let r = gate
        .run(
            &Call::new("execute_sql", r#"{"sql":"SELECT 1","risk_level":"low"}"#),
            exec.clone(),
        )
        .unwrap();
    assert_eq!(r.status, Status::Executed);
    // risk_level is stripped before the tool sees the arguments.
    assert_eq!(r.output.as_deref(), Some(r#"ran {"sql":"SELECT 1"}"#));
    assert!(r
        .for_model()
        .starts_with(r#"{"status":"executed","output":"ran "#));

    let r = gate.run(&Call::new("drop_database", "{}"), exec).unwrap();
    assert_eq!(r.status, Status::Denied);
    assert!(
        r.for_model().contains(r#""status":"denied""#),
        "{}",
        r.for_model()
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn approve_runs_once_and_the_events_come_in_order() {
    let gate = Gate::builder(&policy()).build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = Arc::clone(&seen);
    gate.on_event(move |e| {
        s.lock().unwrap().push(match e {
            Event::Requested { .. } => "requested",
            Event::Responded { .. } => "responded",
            Event::Processed { .. } => "processed",
            Event::GrantRefused { .. } => "grant_refused",
            Event::Expiring { .. } => "expiring",
        })
    });
    let call = Call::new("execute_sql", DELETE)
        .description("runs SQL")
        .call_id("call_7");
    let (r, runs) = run_answered(&gate, call, |gate, request| {
        assert_eq!(request.tool, "execute_sql");
        assert_eq!(request.description, "runs SQL");
        assert_eq!(request.call_id.as_deref(), Some("call_7"));
        assert_eq!(request.decision.action, Action::Confirm);
        assert!(request.deadline >= request.requested_at + 29_000);
        gate.respond(&request.id, Response::approve().by("alice"))
            .unwrap();
        // A second answer is an error and never a second execution.
        let again = gate.respond(&request.id, Response::approve());
        assert!(
            matches!(again, Err(GateError::AlreadyAnswered(_))),
            "{again:?}"
        );
    });
    assert_eq!(r.status, Status::Executed);
    assert_eq!(runs, 1);
    assert_eq!(
        r.executed_args.as_deref(),
        Some(r#"{"sql":"DELETE FROM sessions WHERE expired"}"#)
    );
    assert_eq!(
        *seen.lock().unwrap(),
        ["requested", "responded", "processed"]
    );
    // After the call finished, answering is still refused.
    let id = r.approval_id.unwrap();
    assert!(matches!(
        gate.respond(&id, Response::approve()),
        Err(GateError::AlreadyAnswered(_))
    ));
    assert!(matches!(
        gate.respond("nope", Response::approve()),
        Err(GateError::Unknown(_))
    ));
}

#[test]
fn reject_never_runs_and_tells_the_model() {
    let gate = Gate::builder(&policy()).build().unwrap();
    let (r, runs) = run_answered(&gate, Call::new("execute_sql", DELETE), |gate, request| {
        gate.respond(
            &request.id,
            Response::reject(Some("only delete sessions older than a week"))
                .with_instruction("ask before deleting anything"),
        )
        .unwrap();
    });
    assert_eq!(runs, 0);
    assert_eq!(r.status, Status::Rejected);
    assert_eq!(
        r.instruction.as_deref(),
        Some("ask before deleting anything")
    );
    let model = r.for_model();
    assert!(model.contains(r#""status":"rejected""#), "{model}");
    assert!(
        model.contains("only delete sessions older than a week"),
        "{model}"
    );
}

#[test]
fn an_edit_that_stays_allowed_runs_the_edited_arguments() {
    let gate = Gate::builder(&policy()).build().unwrap();
    let (r, runs) = run_answered(&gate, Call::new("execute_sql", DELETE), |gate, request| {
        // Not an object: refused at once, and the request stays pending.
        let bad = gate.respond(&request.id, Response::edit("[1]"));
        assert!(matches!(bad, Err(GateError::InvalidEdit(_))), "{bad:?}");
        gate.respond(
            &request.id,
            Response::edit(r#"{"sql":"SELECT count(*) FROM sessions WHERE expired"}"#)
                .with_instruction("count first"),
        )
        .unwrap();
    });
    assert_eq!((r.status, runs), (Status::Executed, 1));
    assert_eq!(
        r.decision.action,
        Action::Allow,
        "the edit was decided afresh"
    );
    assert_eq!(
        r.output.as_deref(),
        Some(r#"ran {"sql":"SELECT count(*) FROM sessions WHERE expired"}"#)
    );
    assert_eq!(r.instruction.as_deref(), Some("count first"));
}

#[test]
fn an_edit_to_a_denied_operation_stays_denied_and_never_runs() {
    let config = r#"{"tools":{"http_request":{"deny_hosts":["evil.example"]}}}"#;
    let gate = Gate::builder(&policy()).config(config).build().unwrap();
    let call = Call::new(
        "http_request",
        r#"{"method":"POST","url":"https://api.example.com/items"}"#,
    );
    let (r, runs) = run_answered(&gate, call, |gate, request| {
        assert_eq!(request.decision.action, Action::Confirm);
        gate.respond(
            &request.id,
            Response::edit(r#"{"method":"POST","url":"https://evil.example/items"}"#),
        )
        .unwrap();
    });
    assert_eq!((r.status, runs), (Status::Denied, 0));
    assert_eq!(r.decision.action, Action::Deny);
    assert!(r
        .decision
        .findings
        .iter()
        .any(|f| f.code == "http.denied-host"));
}

#[test]
fn timeouts_expire_without_running_and_per_tool_timeouts_apply() {
    let gate = Gate::builder(&policy())
        .timeout(Duration::from_millis(150))
        .tool_timeout("execute_command", Duration::from_millis(50))
        .build()
        .unwrap();
    let (count, exec) = counting();
    let started = std::time::Instant::now();
    let r = gate
        .run(
            &Call::new("execute_command", r#"{"command":"rm -rf build"}"#),
            exec.clone(),
        )
        .unwrap();
    assert_eq!(r.status, Status::Expired);
    assert!(started.elapsed() < Duration::from_millis(1500));
    assert!(r.for_model().contains("in time"), "{}", r.for_model());
    let r = gate.run(&Call::new("execute_sql", DELETE), exec).unwrap();
    assert_eq!(r.status, Status::Expired);
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // A late answer is refused.
    let id = r.approval_id.unwrap();
    assert!(matches!(
        gate.respond(&id, Response::approve()),
        Err(GateError::AlreadyAnswered(_))
    ));
}

#[test]
fn cancel_and_the_approver_callback() {
    let gate = Gate::builder(&policy()).build().unwrap();
    let (r, runs) = run_answered(&gate, Call::new("execute_sql", DELETE), |gate, request| {
        gate.cancel(&request.id).unwrap();
    });
    assert_eq!((r.status, runs), (Status::Cancelled, 0));

    let asked = Arc::new(AtomicUsize::new(0));
    let a = Arc::clone(&asked);
    let gate = Gate::builder(&policy())
        .approver(move |request| {
            a.fetch_add(1, Ordering::SeqCst);
            if request.args.contains("DELETE") {
                Response::reject(Some("no deletes today"))
            } else {
                Response::approve()
            }
        })
        .build()
        .unwrap();
    let (count, exec) = counting();
    assert_eq!(
        gate.run(&Call::new("execute_sql", DELETE), exec.clone())
            .unwrap()
            .status,
        Status::Rejected
    );
    let update = r#"{"sql":"UPDATE t SET a = 1"}"#;
    assert_eq!(
        gate.run(&Call::new("execute_sql", update), exec)
            .unwrap()
            .status,
        Status::Executed
    );
    assert_eq!(
        (asked.load(Ordering::SeqCst), count.load(Ordering::SeqCst)),
        (2, 1)
    );
}

#[test]
fn a_restart_resumes_pending_approvals_from_the_store() {
    let dir = scratch("resume");
    let key = b"checkpoint key, 16+ bytes".to_vec();
    // The first process asks, then "dies" while the request is pending.
    {
        let gate = Gate::builder(&policy())
            .store(DirStore::new(&dir))
            .key(key.clone())
            .build()
            .unwrap();
        let events = gate.subscribe();
        let g = gate.clone();
        std::thread::spawn(move || {
            let _ = g.run(
                &Call::new("execute_sql", DELETE).on_behalf_of("s1", "u1"),
                |_| panic!("the first process must never run it"),
            );
        });
        let request = next_request(&events);
        assert!(dir.join(format!("{}.json", request.id)).exists());
    }
    // The second process finds it, verifies it, and resumes it.
    let gate = Gate::builder(&policy())
        .store(DirStore::new(&dir))
        .key(key.clone())
        .build()
        .unwrap();
    let pending: Vec<ApprovalRequest> = gate
        .pending()
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(pending.len(), 1);
    let request = pending[0].clone();
    assert_eq!(request.session_id.as_deref(), Some("s1"));
    assert_eq!(request.args, DELETE);
    let g = gate.clone();
    let id = request.id.clone();
    let answer = std::thread::spawn(move || {
        // Answer once the resumed wait is registered.
        for _ in 0..200 {
            if g.respond(&id, Response::approve()).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("never answered");
    });
    let (count, exec) = counting();
    let r = gate.resume(&request.id, exec).unwrap();
    answer.join().unwrap();
    assert_eq!(
        (r.status, count.load(Ordering::SeqCst)),
        (Status::Executed, 1)
    );
    assert!(
        gate.pending().unwrap().is_empty(),
        "the checkpoint is removed"
    );
    assert!(matches!(
        gate.resume(&request.id, |_| Ok(String::new())),
        Err(GateError::Unknown(_))
    ));
}

#[test]
fn forged_checkpoints_are_refused() {
    let dir = scratch("forged");
    let key = b"k1 is a key of 16+ bytes".to_vec();
    let gate = Gate::builder(&policy())
        .store(DirStore::new(&dir))
        .key(key.clone())
        .build()
        .unwrap();
    let events = gate.subscribe();
    let g = gate.clone();
    std::thread::spawn(move || {
        let _ = g.run(&Call::new("execute_sql", DELETE), |_| panic!("never"));
    });
    let request = next_request(&events);
    let file = dir.join(format!("{}.json", request.id));
    let text = std::fs::read_to_string(&file).unwrap();

    // Someone changes the arguments while the request waits.
    let forged = text.replace("DELETE FROM sessions WHERE expired", "DROP TABLE sessions");
    assert_ne!(forged, text);
    let other = scratch("forged-copy");
    std::fs::write(other.join(format!("{}.json", request.id)), &forged).unwrap();
    let reader = Gate::builder(&policy())
        .store(DirStore::new(&other))
        .key(key.clone())
        .build()
        .unwrap();
    let listed = reader.pending().unwrap();
    assert!(matches!(
        listed[0],
        Err(GateError::Checkpoint {
            source: CheckpointError::Forged,
            ..
        })
    ));
    let resumed = reader.resume(&request.id, |_| {
        panic!("a forged checkpoint must never run")
    });
    assert!(matches!(
        resumed,
        Err(GateError::Checkpoint {
            source: CheckpointError::Forged,
            ..
        })
    ));

    // A checkpoint written without a key is refused by a gate that has one.
    let unsigned = scratch("unsigned");
    let plain = Gate::builder(&policy())
        .store(DirStore::new(&unsigned))
        .unsigned()
        .build()
        .unwrap();
    let events = plain.subscribe();
    let g = plain.clone();
    std::thread::spawn(move || {
        let _ = g.run(&Call::new("execute_sql", DELETE), |_| panic!("never"));
    });
    next_request(&events);
    let keyed = Gate::builder(&policy())
        .store(DirStore::new(&unsigned))
        .key(key)
        .build()
        .unwrap();
    assert!(matches!(
        keyed.pending().unwrap()[0],
        Err(GateError::Checkpoint {
            source: CheckpointError::Unsigned,
            ..
        })
    ));
}

#[test]
fn the_sqlite_store_keeps_pending_approvals_across_gates() {
    let db = scratch("sqlite-store").join("gate.db");
    let gate = Gate::builder(&policy())
        .store(SqliteStore::open(&db).unwrap())
        .unsigned()
        .build()
        .unwrap();
    let events = gate.subscribe();
    let g = gate.clone();
    std::thread::spawn(move || {
        let _ = g.run(&Call::new("execute_sql", DELETE), |_| panic!("never"));
    });
    let request = next_request(&events);
    let reopened = Gate::builder(&policy())
        .store(SqliteStore::open(&db).unwrap())
        .unsigned()
        .build()
        .unwrap();
    let pending = reopened.pending().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].as_ref().unwrap().id, request.id);
}

#[test]
fn shadow_mode_never_blocks_and_records_what_it_would_have_done() {
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let l = Arc::clone(&lines);
    let gate = Gate::builder(&policy())
        .config(r#"{"denied_tools":["drop_database"]}"#)
        .shadow(true)
        .audit(CallbackSink(move |line: &str| {
            l.lock().unwrap().push(line.to_owned())
        }))
        .build()
        .unwrap();
    let (count, exec) = counting();
    let confirm = gate
        .run(&Call::new("execute_sql", DELETE), exec.clone())
        .unwrap();
    let deny = gate.run(&Call::new("drop_database", "{}"), exec).unwrap();
    assert_eq!(
        count.load(Ordering::SeqCst),
        2,
        "shadow mode runs everything"
    );
    assert_eq!(
        (confirm.status, confirm.decision.action),
        (Status::Executed, Action::Confirm)
    );
    assert_eq!(
        (deny.status, deny.decision.action),
        (Status::Executed, Action::Deny)
    );
    let all = lines.lock().unwrap();
    // Each execution has a write-ahead `executing` record before its outcome.
    assert_eq!(all.len(), 4);
    let lines: Vec<&String> = all
        .iter()
        .filter(|l| !l.contains(r#""status":"executing""#))
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[1].contains(r#""action":"deny""#) && lines[1].contains(r#""shadow":true"#),
        "{}",
        lines[1]
    );
}

#[test]
fn the_audit_of_a_session_verifies_and_breaks_when_touched() {
    let dir = scratch("audit");
    let log = dir.join("audit.jsonl");
    let db = dir.join("audit.db");
    let build = || {
        Gate::builder(&policy())
            .config(r#"{"denied_tools":["drop_database"]}"#)
            .timeout(Duration::from_millis(100))
            .audit(JsonlSink::open(&log).unwrap())
            .audit(SqliteSink::open(&db).unwrap())
            .build()
            .unwrap()
    };
    let gate = build();
    let (_, exec) = counting();
    gate.run(
        &Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#).on_behalf_of("s1", "42"),
        exec.clone(),
    )
    .unwrap();
    gate.run(&Call::new("drop_database", "{}"), exec.clone())
        .unwrap();
    gate.run(&Call::new("execute_sql", DELETE), exec.clone())
        .unwrap(); // expires
    run_answered(&gate, Call::new("execute_sql", DELETE), |gate, request| {
        gate.respond(
            &request.id,
            Response::edit(r#"{"sql":"DELETE FROM sessions WHERE id = 1"}"#).by("alice"),
        )
        .unwrap();
    });
    gate.run(
        &Call::new("execute_command", r#"{"command":"ls /nope"}"#),
        |_| Err(String::from("boom")),
    )
    .unwrap();
    // A new gate on the same log continues the chain.
    drop(gate);
    build()
        .run(&Call::new("execute_sql", r#"{"sql":"SELECT 2"}"#), exec)
        .unwrap();

    let policy = policy();
    let text = std::fs::read_to_string(&log).unwrap();
    let summary = policy.verify_audit(&text).unwrap();
    // Six calls; the four that ran have a write-ahead `executing` record too.
    assert_eq!(summary.records, 10);
    let all: Vec<&str> = text.lines().collect();
    assert!(all[0].contains(r#""status":"executing""#), "{}", all[0]);
    let lines: Vec<&str> = all
        .iter()
        .copied()
        .filter(|l| !l.contains(r#""status":"executing""#))
        .collect();
    assert!(
        lines[0].contains(r#""session_id":"s1","user_id":"42""#),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains(r#""status":"denied""#));
    assert!(lines[2].contains(r#""outcome":"expired""#));
    assert!(
        lines[3].contains(r#""outcome":"edited","by":"alice""#),
        "{}",
        lines[3]
    );
    assert!(lines[3].contains(r#""diff":[{"path":"/sql","before":"DELETE FROM sessions WHERE expired","after":"DELETE FROM sessions WHERE id = 1"},{"path":"/risk_level","before":"medium","after":null}]"#), "{}", lines[3]);
    assert!(
        lines[4].contains(r#""status":"failed","success":false,"result":null,"error":"boom""#),
        "{}",
        lines[4]
    );
    // The SQLite sink holds the same chain.
    let exported = SqliteSink::open(&db).unwrap().export().unwrap();
    assert_eq!(exported, text);

    // Any change breaks verification, at the changed line.
    let changed = text.replacen(r#""tool":"drop_database""#, r#""tool":"drop_databases""#, 1);
    let err = policy.verify_audit(&changed).unwrap_err();
    assert!(err.to_string().starts_with("line 3:"), "{err}");
    let mut removed = all.clone();
    removed.remove(2);
    let err = policy.verify_audit(&removed.join("\n")).unwrap_err();
    assert!(err.to_string().starts_with("line 3:"), "{err}");

    // And the CLI says the same.
    let cli = |file: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["audit", "verify"])
            .arg(file)
            .output()
            .unwrap()
    };
    let ok = cli(&log);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        format!("ok: 10 records, head {}\n", summary.head)
    );
    let broken_file = dir.join("broken.jsonl");
    std::fs::write(&broken_file, changed).unwrap();
    let broken = cli(&broken_file);
    assert_eq!(broken.status.code(), Some(4));
    assert!(String::from_utf8(broken.stdout)
        .unwrap()
        .starts_with("broken: line 3:"));
}

/// Leaves a pending approval, written by this host, where the JavaScript host's
/// tests resume it (`host-js/test/gate.test.js`, run after the Rust tests).
#[test]
fn leaves_a_pending_approval_for_the_javascript_host() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("cross-host")
        .join("from-rust");
    let _ = std::fs::remove_dir_all(&dir);
    let gate = Gate::builder(&policy())
        .store(DirStore::new(&dir))
        .key(b"cross-host key of 16+ bytes".to_vec())
        .timeout(Duration::from_secs(3600))
        .build()
        .unwrap();
    let events = gate.subscribe();
    let g = gate.clone();
    std::thread::spawn(move || {
        // This process ends with the test run, long before the deadline; the
        // checkpoint stays behind, as after a crash.
        let _ = g.run(
            &Call::new("execute_sql", DELETE)
                .on_behalf_of("cross-host", "7")
                .call_id("call_rs"),
            |_| panic!("the Rust host must never run it"),
        );
    });
    let request = next_request(&events);
    let listed = gate.pending().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].as_ref().unwrap().id, request.id);
}

/// The flow and its choreography are the component's (docs/gate-steps.md):
/// the gate drives one operation for each of a call's steps (`check`, then
/// `settle` when a person answers, then `execute` when it runs), each in
/// batches, and crosses into the component three times per operation: its
/// start, which returns the first batch (up to the chain's lock, whose
/// outcome decides the path), one step for the rest (what happens under the
/// lock and after it), and the driver's drop. So a confirmed call crosses 9 times whichever way it
/// is answered and runs, a rejected one 6, an allowed one 6 and a denied one
/// 3 (the gate's own copy of the choreography crossed 3, 2, 2 and 1; the
/// figures, measured by this test, are in docs/gate-steps.md).
#[test]
fn a_confirmed_call_crosses_into_the_component_nine_times() {
    // A policy of its own, so its count holds this test's calls only.
    let policy = policy();
    let log = scratch("crossings").join("audit.jsonl");
    let build = |approver: Option<Response>| {
        let builder = Gate::builder(&policy)
            .config(r#"{"denied_tools":["drop_database"]}"#)
            .audit(JsonlSink::open(&log).unwrap());
        match approver {
            Some(response) => builder.approver(move |_| response.clone()),
            None => builder,
        }
        .build()
        .unwrap()
    };
    let crossings = |f: &dyn Fn() -> Status| {
        let before = policy.stats().crossings;
        let status = f();
        (status, policy.stats().crossings - before)
    };
    let (_, exec) = counting();
    let approving = build(Some(Response::approve()));
    let rejecting = build(Some(Response::reject(Some("no"))));
    let editing = build(Some(Response::edit(r#"{"sql":"SELECT 1"}"#)));
    let plain = build(None);
    let delete = Call::new("execute_sql", DELETE);
    let run = |gate: &Gate, call: &Call| gate.run(call, exec.clone()).unwrap().status;
    let seen = [
        crossings(&|| run(&approving, &delete)),
        crossings(&|| run(&editing, &delete)),
        crossings(&|| run(&rejecting, &delete)),
        crossings(&|| run(&plain, &Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#))),
        crossings(&|| run(&plain, &Call::new("drop_database", "{}"))),
        // Check now, settle later.
        crossings(&|| {
            let Ok(toolgate::Checked::Ask(pending)) = plain.check(&delete) else {
                panic!("a confirm")
            };
            plain
                .settle(&pending.id, Response::approve(), exec.clone())
                .unwrap()
                .status
        }),
    ];
    println!("crossings per call: {seen:?}");
    assert_eq!(
        seen,
        [
            (Status::Executed, 9),
            (Status::Executed, 9),
            (Status::Rejected, 6),
            (Status::Executed, 6),
            (Status::Denied, 3),
            (Status::Executed, 9),
        ]
    );
    assert!(seen.iter().all(|(_, n)| *n <= 9));
    // Every step's line went to the one log, chained across the gates: 6
    // calls, 4 of them ran (a write-ahead record each).
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(policy.verify_audit(&text).unwrap().records, 10);
}

/// Check now, settle later: an invalid edit leaves the approval pending, a
/// rejection never runs, a settled approval is never settled again, and
/// another gate sharing the store and key settles what this one checked.
#[test]
fn check_now_and_settle_later() {
    let dir = scratch("check-settle");
    let key = b"check and settle key".to_vec();
    let build = || {
        Gate::builder(&policy())
            .store(DirStore::new(&dir))
            .key(key.clone())
            .build()
            .unwrap()
    };
    let gate = build();
    let (count, exec) = counting();
    let toolgate::Checked::Ask(pending) = gate.check(&Call::new("execute_sql", DELETE)).unwrap()
    else {
        panic!("a confirm")
    };
    assert!(dir.join(format!("{}.json", pending.id)).exists());
    let bad = gate.settle(&pending.id, Response::edit("[1]"), exec.clone());
    assert!(matches!(bad, Err(GateError::InvalidEdit(_))), "{bad:?}");
    assert!(dir.join(format!("{}.json", pending.id)).exists());
    let r = gate
        .settle(&pending.id, Response::reject(Some("not now")), exec.clone())
        .unwrap();
    assert_eq!(r.status, Status::Rejected);
    assert!(r.for_model.contains("not now"), "{}", r.for_model);
    let again = gate.settle(&pending.id, Response::approve(), exec.clone());
    assert!(
        matches!(again, Err(GateError::AlreadyAnswered(_))),
        "{again:?}"
    );
    // Checked here, settled by another gate (another process, after a restart).
    let toolgate::Checked::Ask(pending) = gate.check(&Call::new("execute_sql", DELETE)).unwrap()
    else {
        panic!("a confirm")
    };
    let r = build()
        .settle(&pending.id, Response::approve(), exec.clone())
        .unwrap();
    assert_eq!(r.status, Status::Executed);
    // Allowed and denied calls need no answer.
    let checked = gate
        .check(&Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#))
        .unwrap();
    assert_eq!(checked.decision().action, Action::Allow);
    let toolgate::Checked::Run(ready) = checked else {
        panic!("allowed")
    };
    assert_eq!(gate.execute(ready, exec).unwrap().status, Status::Executed);
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

/// Asked to warn, a waiting call reports that its deadline nears, once, and
/// an answer given then still counts.
#[test]
fn an_unanswered_approval_warns_before_it_expires() {
    let gate = Gate::builder(&policy())
        .timeout(Duration::from_millis(1_500))
        .warn_before(Duration::from_millis(1_000))
        .build()
        .unwrap();
    let events = gate.subscribe();
    let (count, exec) = counting();
    let runner = {
        let gate = gate.clone();
        let call = Call::new("execute_sql", DELETE);
        std::thread::spawn(move || gate.run(&call, exec).unwrap())
    };
    let request = next_request(&events);
    let warned = loop {
        match events.recv_timeout(Duration::from_secs(10)).unwrap() {
            Event::Expiring { id, deadline } => break (id, deadline),
            _ => continue,
        }
    };
    assert_eq!(warned, (request.id.clone(), request.deadline));
    gate.respond(&request.id, Response::approve()).unwrap();
    assert_eq!(runner.join().unwrap().status, Status::Executed);
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(events
        .try_iter()
        .all(|e| !matches!(e, Event::Expiring { .. })));
}
