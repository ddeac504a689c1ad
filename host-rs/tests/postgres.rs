//! One gate state for several replicas, against a real PostgreSQL 15 server
//! the test starts (Unix socket only, removed when done): an approval left
//! pending by one gate is answered by another; replicas racing to approve
//! run it exactly once; a settled checkpoint put back never runs again; and
//! replicas appending to one audit chain at once keep it linear (it
//! verifies, every record in it).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use toolgate::gate::postgres::{PostgresSink, PostgresStore};
use toolgate::gate::store::CheckpointStore;
use toolgate::{Call, Event, Gate, Policy, Response};
use toolgate_oracles::pgcluster::{Cluster, PORT};

const KEY: &[u8] = b"replica-shared-key-0123456789";
const DELETE: &str = r#"{"sql":"DELETE FROM users WHERE id = 7"}"#;

fn params(cluster: &Cluster) -> String {
    format!(
        "host={} port={PORT} user=postgres dbname=postgres",
        cluster.socket.display()
    )
}

fn replica(policy: &Policy, params: &str, approve: bool) -> Gate {
    let mut builder = Gate::builder(policy)
        .store(PostgresStore::connect(params).unwrap())
        .audit(PostgresSink::connect(params).unwrap())
        .key(KEY)
        .timeout(Duration::from_secs(3600));
    if approve {
        builder = builder.approver(|_| Response::approve().by("replica"));
    }
    builder.build().unwrap()
}

#[test]
fn replicas_share_approvals_claims_and_one_audit_chain() {
    let cluster = Cluster::start().unwrap();
    let params = params(&cluster);
    let policy = Policy::embedded().unwrap();

    // Replica A leaves the DELETE pending (its thread waits an hour, as a
    // replica that died mid-wait would leave it).
    let a = replica(&policy, &params, false);
    let events = a.subscribe();
    std::thread::spawn(move || {
        let _ = a.run(&Call::new("execute_sql", DELETE), |_| {
            panic!("replica A never runs it")
        });
    });
    let request = loop {
        if let Event::Requested { request } = events.recv_timeout(Duration::from_secs(20)).unwrap()
        {
            break *request;
        }
    };
    let store = PostgresStore::connect(&params).unwrap();
    assert!(
        store.get(&request.id).unwrap().is_some(),
        "the checkpoint is in the database"
    );
    let saved = store.get(&request.id).unwrap().unwrap();

    // Three replicas race to approve it: it runs exactly once.
    let ran = Arc::new(AtomicUsize::new(0));
    let racers: Vec<_> = (0..3)
        .map(|_| {
            let (policy, params, id, ran) = (
                policy.clone(),
                params.clone(),
                request.id.clone(),
                Arc::clone(&ran),
            );
            std::thread::spawn(move || {
                replica(&policy, &params, true).resume(&id, move |_| {
                    ran.fetch_add(1, Ordering::SeqCst);
                    Ok(String::from("1 row deleted"))
                })
            })
        })
        .collect();
    let outcomes: Vec<_> = racers.into_iter().map(|r| r.join().unwrap()).collect();
    assert_eq!(ran.load(Ordering::SeqCst), 1, "{outcomes:?}");
    assert_eq!(
        outcomes.iter().filter(|o| o.is_ok()).count(),
        1,
        "{outcomes:?}"
    );

    // The settled checkpoint put back into the table never runs again.
    store.put(&request.id, &saved).unwrap();
    let again = replica(&policy, &params, true).resume(&request.id, |_| {
        panic!("a settled approval ran a second time")
    });
    assert!(again.is_err(), "{again:?}");

    // Replicas appending at once keep one linear chain.
    let select = Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#);
    let writers: Vec<_> = (0..4)
        .map(|_| {
            let (policy, params, call) = (policy.clone(), params.clone(), select.clone());
            std::thread::spawn(move || {
                let gate = replica(&policy, &params, false);
                for _ in 0..5 {
                    let result = gate.run(&call, |_| Ok(String::from("1"))).unwrap();
                    assert_eq!(result.audit_error, None);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let log = PostgresSink::connect(&params).unwrap().export().unwrap();
    let summary = policy.verify_audit_keyed(&log, KEY).unwrap();
    // Keyed by the replicas' checkpoint key, as a gate keys its chain by
    // default. 20 runs × (write-ahead + outcome), the approved DELETE's two
    // lines, and the rest of the race (refusals recorded by the losing
    // replicas) — all in one chain.
    assert_eq!(summary.records, log.lines().count() as u64);
    assert!(summary.records >= 42, "{}", summary.records);
}
