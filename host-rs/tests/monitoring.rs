//! Seed 002's monitoring flow end to end, in CI: the example's scripted
//! conversation against its stand-in server (`host-rs/examples/monitoring.rs`),
//! checked call by call. `--nocapture` prints the transcript.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

#[path = "../examples/monitoring.rs"]
mod example;

use toolgate::Status;

#[test]
fn mute_list_and_a_denied_delete() {
    let outcome = example::run().unwrap();
    for line in &outcome.transcript {
        println!("{line}");
    }
    // The confirmed create ran after approval, the list ran unasked, the
    // delete the user lacks the permission for was denied.
    assert_eq!(
        outcome.statuses,
        [Status::Executed, Status::Executed, Status::Denied]
    );
    let t = outcome.transcript.join("\n");
    assert!(t.contains("[discover] alert_mute_create (level 2"), "{t}");
    assert!(
        t.contains("[gate] executed (confirm · risk medium · source default)"),
        "{t}"
    );
    assert!(t.contains("the operator approves"), "{t}");
    assert!(
        t.contains(r#"tool result → model: {"status":"executed","output":"{\"id\":123}"}"#),
        "{t}"
    );
    assert!(
        t.contains("[gate] executed (allow · risk low · source registry)"),
        "{t}"
    );
    assert!(t.contains("lacks the permission `/alert-rules/del`"), "{t}");
    // Two executions (each with its write-ahead record) and one denial.
    assert!(t.contains("audit: 5 records, chain verified"), "{t}");

    // Exactly two requests reached the server, with the user's token, the
    // path parameter substituted, the body split off and no risk_level; the
    // denied delete never left the process.
    let received = &outcome.received;
    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(received[0].method, "POST");
    assert_eq!(received[0].target, "/api/n9e/busi-group/1/alert-mutes");
    assert_eq!(
        received[0].body,
        r#"{"targets":["host-01"],"cause":"CPU 告警维护","duration":3600}"#
    );
    assert_eq!(received[1].method, "GET");
    assert_eq!(
        received[1].target,
        "/api/n9e/busi-group/1/alert-rules?query=cpu"
    );
    assert!(received
        .iter()
        .all(|r| r.authorization.as_deref() == Some("Bearer demo-user-token")));
    assert!(received.iter().all(|r| r.method != "DELETE"));
    assert!(outcome
        .audit
        .lines()
        .nth(4)
        .unwrap()
        .contains(r#""status":"denied""#));
}
