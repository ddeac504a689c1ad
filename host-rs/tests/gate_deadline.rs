//! An answer meets its approval's deadline by the time it is given, not by
//! when the waiting call wakes: one given before the deadline counts however
//! late the call wakes; one given (or a cancel) at or after it ends the wait
//! as expired and is refused to whoever gave it. The waiting call is held
//! past the deadline in its own `Expiring` listener, so the order is fixed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use toolgate::{Event, Gate, GateError, Policy, Response, Status, ToolResult};

const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired","risk_level":"medium"}"#;

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Sleeps until the clock is past `deadline` (ms since the epoch).
fn sleep_past(deadline: u64) {
    while now_ms() <= deadline {
        std::thread::sleep(Duration::from_millis(
            deadline + 20 - now_ms().min(deadline),
        ));
    }
}

/// What the answer did, and what the call that waited for it returned.
struct Ran {
    answered: Result<(), GateError>,
    result: ToolResult,
    runs: usize,
    id: String,
    gate: Gate,
}

/// The id a held call was warned about and what answering it gave.
type Answered = (String, Result<(), GateError>);

/// Runs a confirm whose waiting call is held in its `Expiring` listener
/// (warned at once): there `answer` is given, before the deadline when
/// `late` is false (then the call is held past the deadline anyway), after it
/// when `late` is true; the call wakes only after both.
fn held(
    late: bool,
    answer: impl Fn(&Gate, &str) -> Result<(), GateError> + Send + Sync + 'static,
) -> Ran {
    let gate = Gate::builder(&Policy::embedded().unwrap())
        .timeout(Duration::from_millis(400))
        .warn_before(Duration::from_millis(400))
        .build()
        .unwrap();
    let answered: Arc<Mutex<Option<Answered>>> = Arc::default();
    {
        let listening = gate.clone();
        let answered = Arc::clone(&answered);
        gate.on_event(move |event| {
            if let Event::Expiring { id, deadline } = event {
                if late {
                    sleep_past(*deadline);
                }
                let given = answer(&listening, id);
                *answered.lock().unwrap() = Some((id.clone(), given));
                sleep_past(*deadline);
            }
        });
    }
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let result = gate
        .run(&toolgate::Call::new("execute_sql", DELETE), move |args| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(format!("ran {args}"))
        })
        .unwrap();
    let (id, answered) = answered
        .lock()
        .unwrap()
        .take()
        .expect("the call was warned");
    Ran {
        answered,
        result,
        runs: runs.load(Ordering::SeqCst),
        id,
        gate,
    }
}

#[test]
fn an_answer_before_the_deadline_counts_however_late_the_call_wakes() {
    let ran = held(false, |gate, id| gate.respond(id, Response::approve()));
    ran.answered.unwrap();
    assert_eq!(ran.result.status, Status::Executed);
    assert_eq!(ran.runs, 1);
}

#[test]
fn a_cancel_before_the_deadline_counts_however_late_the_call_wakes() {
    let ran = held(false, |gate, id| gate.cancel(id));
    ran.answered.unwrap();
    assert_eq!(ran.result.status, Status::Cancelled);
    assert_eq!(ran.runs, 0);
}

#[test]
fn an_answer_after_the_deadline_is_refused_before_the_call_wakes() {
    let ran = held(true, |gate, id| gate.respond(id, Response::approve()));
    let refused = ran.answered.expect_err("a late answer is refused");
    assert!(
        matches!(&refused, GateError::Expired(id) if *id == ran.id),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "approval `{}` expired at its deadline before the answer came",
            ran.id
        )
    );
    assert_eq!(ran.result.status, Status::Expired);
    assert_eq!(ran.runs, 0);
    // The wait is over: a second answer is told so.
    assert!(matches!(
        ran.gate.respond(&ran.id, Response::approve()),
        Err(GateError::AlreadyAnswered(_))
    ));
}

#[test]
fn a_cancel_after_the_deadline_is_refused_before_the_call_wakes() {
    let ran = held(true, |gate, id| gate.cancel(id));
    let refused = ran.answered.expect_err("a late cancel is refused");
    assert!(
        matches!(&refused, GateError::Expired(id) if *id == ran.id),
        "{refused:?}"
    );
    assert_eq!(ran.result.status, Status::Expired);
    assert_eq!(ran.runs, 0);
}
