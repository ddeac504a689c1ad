//! A gate whose SQLite checkpoint store and SQLite audit sink are two files
//! recovers a claim whose holder died between its claim and its record: the
//! sink says whether the approval was recorded. An unrecorded claim is taken
//! back and the approval answered once; a recorded one is never taken back,
//! and the checkpoint left behind goes without running the call again.

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
use toolgate::gate::audit::{AuditSink, SqliteSink};
use toolgate::gate::store::{CheckpointStore, SqliteStore};
use toolgate::{Call, Checked, Gate, GateError, Policy, Response, Status};

const KEY: &[u8] = b"sqlite-recovery-key-0123456789";
const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired"}"#;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("sqlite-recovery")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A gate on `dir`'s store file and its (other) audit file.
fn gate(dir: &Path) -> Gate {
    Gate::builder(&Policy::embedded().unwrap())
        .store(SqliteStore::open(dir.join("store.db")).unwrap())
        .audit(SqliteSink::open(dir.join("audit.db")).unwrap())
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
fn the_sink_reads_its_records_by_approval_and_time() {
    let dir = scratch("probe");
    let sink = SqliteSink::open(dir.join("audit.db")).unwrap();
    sink.append(r#"{"time":1000,"approval":{"id":"ap_1"}}"#)
        .unwrap();
    sink.append(r#"{"time":2000,"note":"apX1 is not an approval"}"#)
        .unwrap();
    assert_eq!(sink.recorded("ap_1", 500).unwrap(), Some(true));
    assert_eq!(sink.recorded("ap_1", 1000).unwrap(), Some(true));
    assert_eq!(sink.recorded("ap_1", 1001).unwrap(), Some(false), "too old");
    // `_` and `%` are not wildcards.
    assert_eq!(sink.recorded("apX1", 0).unwrap(), Some(false));
    assert_eq!(sink.recorded("ap%", 0).unwrap(), Some(false));
    assert_eq!(sink.recorded("", 0).unwrap(), Some(false));
}

#[test]
fn a_dead_holders_claim_without_its_record_is_recovered_and_answered_once() {
    let dir = scratch("dead");
    let g = gate(&dir);
    let id = ask(&g);
    // A holder killed between its claim and its record.
    let store = SqliteStore::open(dir.join("store.db")).unwrap();
    assert!(store.claim(&id, u64::MAX / 2).unwrap());
    let fresh = gate(&dir);
    assert_eq!(fresh.recover().unwrap(), 1);
    assert!(!store.claimed(&id).unwrap(), "the claim was taken back");
    let listed: Vec<String> = fresh
        .pending()
        .unwrap()
        .into_iter()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(listed, std::slice::from_ref(&id), "listed again, not lost");
    let (count, exec) = counting();
    let r = fresh
        .settle(&id, Response::approve(), exec.clone())
        .unwrap();
    assert_eq!(r.status, Status::Executed);
    let again = fresh.settle(&id, Response::approve(), exec);
    assert!(
        matches!(again, Err(GateError::AlreadyAnswered(_))),
        "{again:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn a_claim_with_its_record_is_never_run_again() {
    let dir = scratch("recorded");
    let g = gate(&dir);
    let id = ask(&g);
    let store = SqliteStore::open(dir.join("store.db")).unwrap();
    let saved = store.get(&id).unwrap().unwrap();
    let (count, exec) = counting();
    let r = g.settle(&id, Response::approve(), exec.clone()).unwrap();
    assert_eq!(r.status, Status::Executed);
    // A holder killed after its record, before the checkpoint's removal.
    store.put(&id, &saved).unwrap();
    let fresh = gate(&dir);
    assert_eq!(fresh.recover().unwrap(), 1);
    assert!(store.get(&id).unwrap().is_none(), "the checkpoint goes");
    assert!(store.claimed(&id).unwrap(), "the claim stays");
    store.put(&id, &saved).unwrap();
    let again = fresh.settle(&id, Response::approve(), exec);
    assert!(
        matches!(again, Err(GateError::AlreadyAnswered(_))),
        "{again:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
}
