//! One [`Policy`] kept for a long time, as the MCP gateway or a server
//! embedding the library keeps it: engines and gates made and dropped, many
//! calls, and long idle spells between them. Every operation must still work
//! at the end, and the instances' memory must not grow with the calls.
//!
//! The fault these tests pin: dropping an engine runs the component's
//! destructor for its resource in every idle instance, and it ran under the
//! work budget the instance's last call had left. Under the default
//! [`WorkLimit::Time`] that is a deadline already past once the instance sat
//! idle longer than the limit (2 s), so the destructor was interrupted, the
//! instance left poisoned in the pool, and the next `engine` or gate on the
//! same policy answered `Fault("trap")` — first seen after a gate's few
//! hundred checks took longer than the limit.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::time::Duration;
use toolgate::gate::audit::JsonlSink;
use toolgate::gate::store::DirStore;
use toolgate::{Action, Call, Checked, Gate, Policy, WorkLimit};

const KEY: &[u8] = b"long-lived-suite-key-0123456789ab";
const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired"}"#;
const SELECT: &str = r#"{"sql":"SELECT 1"}"#;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-long-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gate(policy: &Policy, dir: &std::path::Path) -> Gate {
    Gate::builder(policy)
        .key(KEY)
        .audit_required(true)
        .timeout(Duration::from_secs(3600))
        .store(DirStore::new(dir.join("store")))
        .audit(JsonlSink::open(dir.join("audit.jsonl")).unwrap())
        .build()
        .unwrap()
}

/// An engine dropped after its instances idled past the time limit: the
/// policy still makes engines and decides, cycle after cycle.
#[test]
fn engine_dropped_after_an_idle_spell() {
    let policy = Policy::builder()
        .work_limit(WorkLimit::Time(Duration::from_millis(250)))
        .build()
        .unwrap();
    for cycle in 0..3 {
        let engine = policy.engine("{}").unwrap();
        assert_eq!(engine.assess("execute_sql", SELECT).action, Action::Allow);
        std::thread::sleep(Duration::from_millis(300));
        drop(engine);
        let next = policy.engine("{}");
        assert!(next.is_ok(), "cycle {cycle}: {next:?}");
        assert_eq!(policy.assess("execute_sql", SELECT).action, Action::Allow);
    }
}

/// The reported shape: a keyed gate with a directory store and a JSON Lines
/// audit log makes 300 checks, idles past the default limit and is dropped;
/// the same policy then makes an engine and another gate that checks.
#[test]
fn gate_dropped_after_many_checks() {
    let dir = scratch("gate");
    let policy = Policy::embedded().unwrap();
    {
        let gate = gate(&policy, &dir.join("first"));
        for i in 0..300 {
            let call = Call::new("execute_sql", DELETE).call_id(format!("call-{i}"));
            match gate.check(&call).unwrap() {
                Checked::Ask(_) => {}
                other => panic!("a DELETE asks a person: {other:?}"),
            }
        }
        std::thread::sleep(Duration::from_millis(2100));
    }
    policy.engine("{}").unwrap();
    let again = gate(&policy, &dir.join("second"));
    match again.check(&Call::new("execute_sql", DELETE)).unwrap() {
        Checked::Ask(_) => {}
        other => panic!("a DELETE asks a person: {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tens of thousands of calls on one policy, engines made and dropped all
/// along: every call answers, and the idle instances' memory after them is
/// what it was after the first hundred.
#[test]
fn many_calls_do_not_grow_the_instances() {
    let policy = Policy::embedded().unwrap();
    let mut settled = None;
    for round in 0..200 {
        let engine = policy.engine("{}").unwrap();
        for _ in 0..100 {
            assert_eq!(engine.assess("execute_sql", SELECT).action, Action::Allow);
            assert_eq!(policy.assess("execute_sql", DELETE).action, Action::Confirm);
        }
        drop(engine);
        let memory = policy.stats().idle_memory;
        match settled {
            None => settled = Some(memory),
            Some(first) => assert_eq!(memory, first, "round {round}: idle memory grew"),
        }
    }
    let stats = policy.stats();
    eprintln!(
        "long_lived: {} calls, idle memory {} bytes in {} instances",
        stats.crossings, stats.idle_memory, stats.idle_instances
    );
    assert!(stats.crossings >= 40_000);
    assert_eq!(stats.engines, 0);
}
