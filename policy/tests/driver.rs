//! The gate's choreography as effects (`toolgate_policy::Driver`),
//! driven natively by a small interpreter over maps: what a host's gate is
//! (docs/gate-steps.md). Each test plays one path of an approval through
//! the effects and checks the store and the audit log it leaves. Every
//! operation is driven twice, one effect at a time (`next`) and in batches
//! (`step`), and the two must carry out the same effects in the same order
//! and leave the same state.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use toolgate_policy::{verify_audit_keyed, Driver, Flow};

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

/// A host over maps: the shared store, its claims, the session's memory, an
/// audit log, a clock, and switches that make effects fail.
#[derive(Default, Clone, PartialEq, Debug)]
struct Host {
    shared: BTreeMap<String, String>,
    claims: BTreeMap<String, u64>,
    session: BTreeMap<String, String>,
    log: Vec<String>,
    now: u64,
    fail_append: bool,
    fail_put: bool,
    events: Vec<String>,
    ran: Vec<String>,
    /// The effects carried out, in order.
    done: Vec<Value>,
    /// Calls into the component the last operation took (its start
    /// included).
    crossings: usize,
}

impl Host {
    fn store(&mut self, effect: &Value) -> &mut BTreeMap<String, String> {
        if effect["store"] == "session" {
            &mut self.session
        } else {
            &mut self.shared
        }
    }

    fn perform(&mut self, effect: &Value) -> Value {
        let mut record = effect.clone();
        record.as_object_mut().unwrap().remove("presumed");
        self.done.push(record);
        let key = effect["key"].as_str().unwrap_or_default().to_owned();
        match effect["effect"].as_str().unwrap() {
            "now" => json!({"now": self.now}),
            "list" => {
                json!({"entries": self.store(effect).clone().into_iter().collect::<Vec<_>>()})
            }
            "get" => json!({"value": self.store(effect).get(&key)}),
            "put" if self.fail_put => json!({"error": "read-only store"}),
            "put" => {
                let value = effect["value"].as_str().unwrap().to_owned();
                self.store(effect).insert(key, value);
                json!({})
            }
            "remove" => {
                self.store(effect).remove(&key);
                json!({})
            }
            "claim" => {
                let fresh = !self.claims.contains_key(&key);
                if fresh {
                    self.claims
                        .insert(key, effect["deadline"].as_u64().unwrap());
                }
                json!({"claimed": fresh})
            }
            "claimed" => json!({"claimed": self.claims.contains_key(&key)}),
            "release" => json!({"released": self.claims.remove(&key).is_some()}),
            "sweep-claims" => {
                let now = effect["now"].as_u64().unwrap();
                self.claims.retain(|_, deadline| *deadline >= now);
                json!({})
            }
            "lock" => json!({"previous": self.log.last(), "locked": true}),
            "unlock" => json!({}),
            "append" => {
                if self.fail_append {
                    json!({"error": "disk full"})
                } else {
                    self.log.push(effect["line"].as_str().unwrap().to_owned());
                    json!({})
                }
            }
            "recorded" => {
                let id = effect["id"].as_str().unwrap();
                let recorded = self.log.iter().any(|line| {
                    serde_json::from_str::<Value>(line).unwrap()["approval"]["id"] == id
                });
                json!({"recorded": recorded})
            }
            "notify" => {
                for event in effect["events"].as_array().unwrap() {
                    self.events.push(event["type"].as_str().unwrap().to_owned());
                }
                json!({})
            }
            "run" => {
                self.ran.push(effect["args"].as_str().unwrap().to_owned());
                json!({"output": "3 rows", "elapsed_ms": 1})
            }
            "wait" => json!({"answer": {"answer": "approve", "by": "alice"}}),
            other => panic!("no effect {other}"),
        }
    }

    /// Drives `op` to its end one effect at a time and, from the same
    /// state, in batches: both must carry out the same effects, end the
    /// same way and leave the same state; the batched run stays.
    fn drive(&mut self, flow: &Flow, op: Value) -> Result<Value, Value> {
        let mut single = self.clone();
        let by_one = single.drive_single(flow, &op);
        let batched = self.drive_batched(flow, &op);
        assert_eq!(by_one, batched, "{op}");
        let crossings = self.crossings;
        self.crossings = single.crossings;
        assert_eq!(&single, self, "{op}: the two runs left different states");
        self.crossings = crossings;
        batched
    }

    /// Drives `op` with `next`.
    fn drive_single(&mut self, flow: &Flow, op: &Value) -> Result<Value, Value> {
        let mut driver = Driver::new(&op.to_string()).unwrap();
        let mut outcome: Option<String> = None;
        self.crossings = 1;
        for _ in 0..10_000 {
            self.crossings += 1;
            let effect: Value =
                serde_json::from_str(&driver.next(flow, outcome.as_deref()).unwrap()).unwrap();
            assert!(effect.get("presumed").is_none(), "{effect}");
            match effect["effect"].as_str().unwrap() {
                "done" => return Ok(effect["value"].clone()),
                "fail" => return Err(effect),
                _ => outcome = Some(self.perform(&effect).to_string()),
            }
        }
        panic!("the operation did not end");
    }

    /// Drives `op` with `step`, as docs/gate-steps.md says a host does:
    /// each batch in order, stopping after an error or a presumed effect
    /// that did not answer `{}`.
    fn drive_batched(&mut self, flow: &Flow, op: &Value) -> Result<Value, Value> {
        let mut driver = Driver::new(&op.to_string()).unwrap();
        let mut outcomes: Vec<String> = Vec::new();
        self.crossings = 1;
        for _ in 0..10_000 {
            self.crossings += 1;
            let given: Vec<&str> = outcomes.iter().map(String::as_str).collect();
            let batch = driver.step(flow, &given).unwrap();
            assert!(!batch.is_empty());
            outcomes.clear();
            let mut stopped = false;
            for text in batch {
                if stopped {
                    break;
                }
                let effect: Value = serde_json::from_str(&text).unwrap();
                match effect["effect"].as_str().unwrap() {
                    "done" => return Ok(effect["value"].clone()),
                    "fail" => return Err(effect),
                    _ => {
                        let outcome = self.perform(&effect);
                        stopped = outcome.get("error").is_some()
                            || effect.get("presumed").is_some_and(|p| *p != outcome);
                        outcomes.push(outcome.to_string());
                    }
                }
            }
        }
        panic!("the operation did not end");
    }
}

fn flow(required: bool) -> Flow {
    let settings = json!({"identity": "test-gate", "timeout_ms": 1000, "audit": true,
                          "audit_required": required});
    Flow::new("{}", &settings.to_string(), Some(KEY), Some(KEY)).unwrap()
}

fn delete_call() -> Value {
    json!({"tool": "execute_sql", "args": r#"{"sql": "DELETE FROM t"}"#})
}

fn check(host: &mut Host, flow: &Flow, id: &str) -> Value {
    host.drive(
        flow,
        json!({"op": "check", "id": id, "call": delete_call()}),
    )
    .unwrap()
}

#[test]
fn an_approval_is_asked_claimed_recorded_and_run_once() {
    let flow = flow(false);
    let mut host = Host {
        now: 1_000,
        ..Host::default()
    };
    let asked = check(&mut host, &flow, "a1");
    assert_eq!(asked["outcome"], "ask");
    assert!(host.shared.contains_key("a1"), "the checkpoint is stored");
    host.now = 1_500;
    let settle =
        json!({"op": "settle", "id": "a1", "answer": r#"{"answer":"approve","by":"alice"}"#});
    let settled = host.drive(&flow, settle.clone()).unwrap();
    assert_eq!(settled["outcome"], "run");
    assert!(
        !host.shared.contains_key("a1"),
        "the checkpoint goes once recorded"
    );
    assert!(
        host.claims.contains_key("a1"),
        "the claim stays as a tombstone"
    );
    let done = host
        .drive(&flow, json!({"op": "execute", "ready": settled["ready"]}))
        .unwrap();
    assert_eq!(done["result"]["status"], "executed");
    // The arguments as the tool receives them (`risk_level` stripped).
    assert_eq!(host.ran, vec![String::from(r#"{"sql":"DELETE FROM t"}"#)]);
    assert_eq!(host.events, vec!["responded", "processed"]);
    // The write-ahead record and the outcome, chained.
    assert_eq!(host.log.len(), 2);
    assert_eq!(
        verify_audit_keyed(&host.log.join("\n"), KEY)
            .unwrap()
            .records,
        2
    );
    // A second answer never runs it again.
    let again = host.drive(&flow, settle).unwrap_err();
    assert_eq!(again["code"], "unknown");
}

#[test]
fn a_claim_taken_elsewhere_is_already_answered() {
    let flow = flow(false);
    let mut host = Host::default();
    check(&mut host, &flow, "a2");
    // Another gate claimed and recorded it; its checkpoint was left behind.
    host.claims.insert(String::from("a2"), u64::MAX);
    host.log.push(String::from(r#"{"approval":{"id":"a2"}}"#));
    let settle = json!({"op": "settle", "id": "a2", "answer": r#"{"answer":"approve"}"#});
    let refused = host.drive(&flow, settle).unwrap_err();
    assert_eq!(refused["code"], "already-answered");
    assert!(host.ran.is_empty());
}

#[test]
fn a_dead_holders_claim_without_its_record_is_taken_back() {
    let flow = flow(false);
    let mut host = Host::default();
    check(&mut host, &flow, "a3");
    // Claimed, then killed before its record: no line names it.
    host.claims.insert(String::from("a3"), u64::MAX);
    let listed = host
        .drive(&flow, json!({"op": "pending", "waiting": []}))
        .unwrap();
    assert_eq!(listed["pending"][0]["id"], "a3", "pending again: {listed}");
    assert!(!host.claims.contains_key("a3"));
    // And a claim left by a dead holder is taken over by the next answer.
    host.claims.insert(String::from("a3"), u64::MAX);
    let settle = json!({"op": "settle", "id": "a3", "answer": r#"{"answer":"reject"}"#});
    let settled = host.drive(&flow, settle).unwrap();
    assert_eq!(settled["result"]["status"], "rejected");
}

#[test]
fn an_unwritable_record_leaves_the_approval_pending_when_the_audit_is_required() {
    let flow = flow(true);
    let mut host = Host::default();
    check(&mut host, &flow, "a4");
    host.fail_append = true;
    let settle = json!({"op": "settle", "id": "a4", "answer": r#"{"answer":"approve"}"#});
    let refused = host.drive(&flow, settle.clone()).unwrap_err();
    assert_eq!(refused["code"], "sink", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("it stays pending"),
        "{refused}"
    );
    assert!(host.shared.contains_key("a4"));
    assert!(!host.claims.contains_key("a4"), "the claim was taken back");
    host.fail_append = false;
    assert_eq!(host.drive(&flow, settle).unwrap()["outcome"], "run");
}

#[test]
fn a_sweep_closes_what_expired_with_a_record_and_keeps_what_did_not() {
    let flow = flow(false);
    let mut host = Host {
        now: 10_000,
        ..Host::default()
    };
    check(&mut host, &flow, "old");
    host.now = 10_900;
    check(&mut host, &flow, "new");
    host.shared
        .insert(String::from("revoked-g-x"), String::from("5000"));
    host.shared
        .insert(String::from("revoked-g-y"), String::from("never"));
    host.now = 11_500;
    let swept = host
        .drive(&flow, json!({"op": "sweep", "waiting": []}))
        .unwrap();
    assert_eq!(swept["closed"], 1);
    let keys: BTreeSet<&str> = host.shared.keys().map(String::as_str).collect();
    assert_eq!(keys, BTreeSet::from(["new", "revoked-g-y"]));
    let last: Value = serde_json::from_str(host.log.last().unwrap()).unwrap();
    assert_eq!(last["status"], "expired");
    assert_eq!(last["approval"]["id"], "old");
}

#[test]
fn a_remembered_approval_keeps_a_grant_that_a_revocation_removes() {
    let flow = flow(false);
    let mut host = Host::default();
    check(&mut host, &flow, "a5");
    let answer = json!({"answer": "approve", "remember": {"scope": "project"}}).to_string();
    let settle = json!({"op": "settle", "id": "a5", "answer": answer});
    assert_eq!(host.drive(&flow, settle).unwrap()["outcome"], "run");
    let listed = host.drive(&flow, json!({"op": "grants"})).unwrap();
    let id = listed["grants"][0]["id"].as_str().unwrap().to_owned();
    assert!(host.shared.contains_key(&format!("grant-{id}")));
    // The grant decides the same call without asking.
    let checked = check(&mut host, &flow, "a6");
    assert_eq!(checked["outcome"], "run", "{checked}");
    let revoked = host
        .drive(&flow, json!({"op": "revoke", "id": id}))
        .unwrap();
    assert_eq!(revoked["revoked"], true);
    assert!(!host.shared.contains_key(&format!("grant-{id}")));
    assert_eq!(host.shared[&format!("revoked-{id}")], "never");
    assert_eq!(check(&mut host, &flow, "a7")["outcome"], "ask");
    // The approval's write-ahead record, the granted call's and the
    // revocation (neither call was run to an outcome here).
    assert_eq!(
        verify_audit_keyed(&host.log.join("\n"), KEY)
            .unwrap()
            .records,
        3
    );
}

#[test]
fn a_call_waits_for_its_answer_and_runs() {
    let flow = flow(false);
    let mut host = Host::default();
    let done = host
        .drive(
            &flow,
            json!({"op": "call", "id": "a8", "call": delete_call()}),
        )
        .unwrap();
    assert_eq!(done["result"]["status"], "executed", "{done}");
    assert_eq!(host.events, vec!["requested", "responded", "processed"]);
}

#[test]
fn an_operation_that_is_not_one_is_refused() {
    assert!(Driver::new(r#"{"op": "format-disk"}"#).is_err());
    assert!(Driver::new("not json").is_err());
}

#[test]
fn a_confirmed_call_crosses_a_bounded_number_of_times_in_batches() {
    let flow = flow(false);
    let mut host = Host::default();
    let done = host
        .drive(
            &flow,
            json!({"op": "call", "id": "b1", "call": delete_call()}),
        )
        .unwrap();
    assert_eq!(done["result"]["status"], "executed", "{done}");
    // Start; the grants' listings, the clock and the lock; the write-ahead
    // line, the checkpoint, the request's events, the wait, the clock and
    // the lock; the claim (presumed), the grant (none here), the record,
    // the checkpoint's removal, the run, the clock and the lock; the
    // outcome's line and events, and the end.
    assert_eq!(host.crossings, 5, "{:#?}", host.done);
    // The same call as three operations, as a host's public API takes it.
    let mut host = Host::default();
    check(&mut host, &flow, "b2");
    let mut crossings = host.crossings;
    let settle = json!({"op": "settle", "id": "b2", "answer": r#"{"answer":"approve"}"#});
    let settled = host.drive(&flow, settle).unwrap();
    crossings += host.crossings;
    host.drive(&flow, json!({"op": "execute", "ready": settled["ready"]}))
        .unwrap();
    crossings += host.crossings;
    assert_eq!(crossings, 3 + 4 + 3, "check, settle and execute");
}

#[test]
fn a_store_that_refuses_a_presumed_put_fails_the_operation_where_it_failed() {
    let flow = flow(false);
    let mut host = Host {
        fail_put: true,
        ..Host::default()
    };
    let refused = host
        .drive(
            &flow,
            json!({"op": "check", "id": "b3", "call": delete_call()}),
        )
        .unwrap_err();
    assert_eq!(refused["code"], "store", "{refused}");
    assert!(host.shared.is_empty());
}

#[test]
fn an_outcome_for_no_effect_is_refused() {
    let flow = flow(false);
    let mut driver = Driver::new(r#"{"op": "grants"}"#).unwrap();
    let first = driver.step(&flow, &[]).unwrap();
    assert!(!first.is_empty());
    let too_many = vec!["{}"; first.len() + 3];
    assert!(driver.step(&flow, &too_many).is_err());
}

#[test]
fn a_sweep_whose_records_cannot_be_written_ends_alike_in_both_forms() {
    // Two expired approvals: the batch presumes the first record written
    // and opens the second checkpoint; the failed append sends the replay
    // down another path, where the flow's steps are taken again.
    for required in [false, true] {
        let flow = flow(required);
        let mut host = Host {
            now: 10_000,
            ..Host::default()
        };
        check(&mut host, &flow, "old1");
        check(&mut host, &flow, "old2");
        host.now = 20_000;
        host.fail_append = true;
        let swept = host.drive(&flow, json!({"op": "sweep", "waiting": []}));
        if required {
            assert_eq!(swept.unwrap_err()["code"], "sink");
            assert!(host.shared.contains_key("old1"), "it stays pending");
        } else {
            assert_eq!(swept.unwrap()["closed"], 2);
        }
    }
}
