#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]
//! Bounded work: the most expensive inputs the policy accepts finish well
//! inside the default work budget, a budget that is too small is answered
//! `confirm` with `policy.limit`, and the pool recovers.

use std::time::{Duration, Instant};
use toolgate::{Action, Policy, WorkLimit, DEFAULT_FUEL, POLICY_LIMIT};

/// Raw text this long stays under the 1 MiB argument limit once JSON-encoded.
const NEAR_LIMIT: usize = 920_000;

/// SQL and command text this long is the most the assessors read (256 KiB);
/// longer text is confirmed unread.
const TEXT_LIMIT: usize = 256 * 1024;

fn repeat_to(unit: &str, prefix: &str, suffix: &str) -> String {
    repeat_within(NEAR_LIMIT, unit, prefix, suffix)
}

fn text_to(unit: &str, prefix: &str, suffix: &str) -> String {
    repeat_within(TEXT_LIMIT, unit, prefix, suffix)
}

fn repeat_within(limit: usize, unit: &str, prefix: &str, suffix: &str) -> String {
    let mut s = String::from(prefix);
    while s.len() + unit.len() + suffix.len() <= limit {
        s.push_str(unit);
    }
    s.push_str(suffix);
    s
}

/// Expensive, legitimate-looking inputs of every assessor, each close to 1 MiB
/// of JSON arguments or to the most text its assessor reads.
fn heavy_calls() -> Vec<(&'static str, String)> {
    let json = |key: &str, value: &str| serde_json::json!({ key: value }).to_string();
    vec![
        (
            "execute_sql",
            json("sql", &text_to(", 1", "SELECT 1 WHERE 1 IN (1", ")")),
        ),
        (
            "execute_sql",
            json(
                "sql",
                &text_to(" UNION ALL SELECT a, lower(b) FROM t WHERE c = 'x'", "SELECT 1", ""),
            ),
        ),
        (
            "execute_sql",
            json("sql", &text_to("SELECT 1; ", "", "")),
        ),
        (
            "execute_command",
            json("command", &text_to(" | grep -v x", "cat a.txt", "")),
        ),
        (
            "execute_command",
            json("command", &text_to(" 'a b' \"c $HOME\"", "echo", "")),
        ),
        ("execute_command", json("command", &text_to("ls; ", "", "ls"))),
        (
            "file_operations",
            serde_json::json!({"operation": "read", "path": repeat_to("a/", "/srv/", "f")})
                .to_string(),
        ),
        (
            "http_request",
            serde_json::json!({"method": "GET", "url": repeat_to("a/", "https://example.com/", "")})
                .to_string(),
        ),
        (
            "some_tool",
            serde_json::Value::Object(
                (0..40_000)
                    .map(|i| (format!("k{i}"), serde_json::json!([i, "v"])))
                    .collect(),
            )
            .to_string(),
        ),
        ("execute_sql", format!("{{\"sql\": {}}}", "[".repeat(200_000))),
    ]
}

/// The least budget under which `args` still gets a real decision.
fn fuel_needed(tool: &str, args: &str) -> u64 {
    let decides = |fuel: u64| {
        let policy = Policy::builder()
            .work_limit(WorkLimit::Fuel(fuel))
            .build()
            .unwrap();
        !policy.assess(tool, args).has_finding(POLICY_LIMIT)
    };
    let (mut low, mut high) = (1_u64, DEFAULT_FUEL);
    assert!(decides(high), "{tool} needs more than the default budget");
    while high - low > high / 50 {
        let mid = low + (high - low) / 2;
        if decides(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    high
}

#[test]
fn the_heaviest_accepted_inputs_fit_the_default_budget() {
    let mut most = 0;
    for (tool, args) in heavy_calls() {
        assert!(args.len() < 1024 * 1024, "{tool}: {}", args.len());
        let needed = fuel_needed(tool, &args);
        println!("{tool:16} {:>8} bytes  {needed:>14} fuel", args.len());
        most = most.max(needed);
    }
    // The default leaves at least twice the measured maximum.
    assert!(most * 2 <= DEFAULT_FUEL, "most expensive input took {most}");
}

#[test]
fn the_default_time_limit_decides_the_heaviest_inputs() {
    let policy = Policy::embedded().unwrap();
    for (tool, args) in heavy_calls() {
        let start = Instant::now();
        let d = policy.assess(tool, &args);
        println!(
            "{tool:16} {:>8} bytes  {:>6} ms",
            args.len(),
            start.elapsed().as_millis()
        );
        assert!(!d.has_finding(POLICY_LIMIT), "{tool}: {d:?}");
    }
}

#[test]
fn a_call_over_its_time_is_confirmed_and_the_pool_recovers() {
    let policy = Policy::builder()
        .work_limit(WorkLimit::Time(Duration::from_millis(20)))
        .build()
        .unwrap();
    let (tool, args) = &heavy_calls()[1];
    let start = Instant::now();
    let d = policy.assess(tool, args);
    let took = start.elapsed();
    assert_eq!(d.action, Action::Confirm, "{d:?}");
    assert_eq!(d.findings.len(), 1);
    assert_eq!(d.findings[0].code, POLICY_LIMIT);
    // Stopped near the limit, not after the whole input (which takes far longer).
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(
        policy.assess("execute_sql", r#"{"sql":"SELECT 1"}"#).action,
        Action::Allow
    );
}

#[test]
fn a_call_over_budget_is_confirmed_and_the_pool_recovers() {
    let policy = Policy::builder()
        .work_limit(WorkLimit::Fuel(2_000_000))
        .build()
        .unwrap();
    let (tool, args) = &heavy_calls()[0];
    let d = policy.assess(tool, args);
    assert_eq!(d.action, Action::Confirm, "{d:?}");
    assert_eq!(d.findings.len(), 1);
    assert_eq!(d.findings[0].code, POLICY_LIMIT);
    // The same policy, same budget, still answers small calls correctly.
    let d = policy.assess("execute_sql", r#"{"sql":"SELECT 1"}"#);
    assert_eq!(d.action, Action::Allow, "{d:?}");

    // A batch over budget is confirmed call by call; engines survive.
    let engine = policy.engine("{}").unwrap();
    let big: Vec<(&str, &str)> = vec![
        (tool, args.as_str()),
        ("execute_sql", r#"{"sql":"SELECT 1"}"#),
    ];
    let decisions = engine.assess_many(&big);
    assert_eq!(decisions.len(), 2);
    assert!(
        decisions.iter().all(|d| d.has_finding(POLICY_LIMIT)),
        "{decisions:?}"
    );
    assert_eq!(
        engine
            .assess("execute_command", r#"{"command":"ls"}"#)
            .action,
        Action::Allow
    );
}

#[test]
fn without_a_budget_the_same_input_is_decided() {
    let policy = Policy::builder()
        .work_limit(WorkLimit::None)
        .build()
        .unwrap();
    let (tool, args) = &heavy_calls()[0];
    assert!(!policy.assess(tool, args).has_finding(POLICY_LIMIT));
}

#[test]
fn text_past_what_the_assessors_read_is_confirmed_at_once_even_when_rated_low() {
    let policy = Policy::embedded().unwrap();
    let over = TEXT_LIMIT + 1;
    let command = format!("{}ls", "ls; ".repeat(over / 4));
    let d = policy.assess(
        "execute_command",
        &serde_json::json!({"command": command, "risk_level": "low"}).to_string(),
    );
    assert_eq!(d.action, Action::Confirm, "{d:?}");
    assert!(d.has_finding("command.too-long"), "{d:?}");
    let sql = format!("SELECT 1{}", " UNION ALL SELECT 1".repeat(over / 17));
    let d = policy.assess(
        "execute_sql",
        &serde_json::json!({"sql": format!("{sql}; DROP TABLE users"), "risk_level": "low"})
            .to_string(),
    );
    assert_eq!(d.action, Action::Confirm, "{d:?}");
    assert!(d.has_finding("sql.too-complex"), "{d:?}");
}
