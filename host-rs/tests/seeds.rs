//! The seeds' own vocabulary in the Rust host, played with the seeds' own
//! examples: seed 004's events, prompt and operation type, and seed 000
//! §F's text-confirmation loop. The fixtures under `tests/seeds/` are the
//! JavaScript host's too (`host-js/test/seeds.test.js`), so both give the
//! same answers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::Value;
use toolgate::seeds::{
    interaction, is_affirmative, is_risk_confirmation_question, Reply, TextConfirmation,
};
use toolgate::{Event, Policy};

fn fixture(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/seeds")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn seed_004_events_in_the_seed_s_shape() {
    let cases = fixture("seed-004-events.jsonl");
    assert!(cases.len() >= 10);
    for case in cases {
        let event: Event = serde_json::from_value(case["event"].clone()).unwrap();
        let got = interaction(&event, case["language"].as_str().unwrap());
        assert_eq!(
            got.unwrap_or(Value::Null),
            case["expect"],
            "{}",
            case["name"]
        );
    }
}

#[test]
fn seed_000_questions_and_replies() {
    let cases = fixture("seed-000-confirmation.jsonl");
    assert!(cases.len() >= 15);
    for case in cases {
        if let Some(text) = case["text"].as_str() {
            assert_eq!(
                is_risk_confirmation_question(text),
                case["question"].as_bool().unwrap(),
                "{}",
                case["name"]
            );
        } else {
            let reply = case["reply"].as_str().unwrap();
            assert_eq!(
                is_affirmative(reply),
                case["affirmative"].as_bool().unwrap(),
                "{}",
                case["name"]
            );
        }
    }
}

/// Seed 002 §7.4 as a loop: the model asks in text, the user answers
/// "确认", the model calls; the call is still decided by the policy.
#[test]
fn seed_002_s_kill_session_dialogue_through_the_loop() {
    let mut dialogue = TextConfirmation::new();
    let question = "这是一个高风险操作，我检测到有以下长时间运行的会话：\n- 会话 ID: 12345\n\n确认要终止这个会话吗？请回复\"确认\"继续。";
    assert_eq!(dialogue.on_model(question, false), Some(question));
    assert_eq!(dialogue.open(), Some(question));
    assert_eq!(
        dialogue.on_user("确认"),
        Reply::Confirmed {
            question: question.to_owned()
        }
    );
    assert_eq!(dialogue.on_user("确认"), Reply::NotAsked);
    // A message with tool calls is no question, whatever its text says.
    assert_eq!(
        dialogue.on_model("Should I proceed? It is risky.", true),
        None
    );
    assert_eq!(
        dialogue.on_model("Risky. Proceed?", false),
        Some("Risky. Proceed?")
    );
    assert_eq!(
        dialogue.on_user("no"),
        Reply::Declined {
            question: String::from("Risky. Proceed?")
        }
    );
    // The confirmed call goes through the policy as any other: a level-3
    // registry tool (seed 002 §5.8) is still confirmed by the gate.
    let policy = Policy::embedded().unwrap();
    let engine = policy
        .engine(
            r#"[{"name": "dbm_kill_sessions", "type": "api", "method": "POST",
                 "url_pattern": "/api/n9e/dbm/sessions/kill", "risk_level": 3}]"#,
        )
        .unwrap();
    let decision = engine.assess(
        "dbm_kill_sessions",
        r#"{"instance_id": 3, "session_ids": [12345]}"#,
    );
    assert_eq!(decision.action, toolgate::Action::Confirm);
}

/// The guidance carries seed 000 §F's example question, and it reads as one.
#[test]
fn the_guidance_gives_the_seed_s_example_question() {
    let policy = Policy::embedded().unwrap();
    for (language, example) in [
        (
            "en",
            "This operation (init system) may be risky. Should I proceed?",
        ),
        ("zh", "这个操作（init system）可能有风险，是否继续？"),
    ] {
        let text = policy.guidance(language).unwrap();
        assert!(
            text.contains(&format!("\"{example}\"")),
            "{language}: {text}"
        );
        assert!(is_risk_confirmation_question(example), "{example}");
    }
}

/// Seed 004's request names the tool's description (`toolDescription`):
/// a registry tool's, from seed 002 §2.3's definition, when the call gives
/// none; the events a listener gets read as seed 004's.
#[test]
fn a_registry_tool_s_description_reaches_the_approval_request() {
    let definition = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/config/seed-002-definition.json"),
    )
    .unwrap();
    let described: Value = serde_json::from_str(&definition).unwrap();
    let policy = Policy::embedded().unwrap();
    let gate = toolgate::Gate::builder(&policy)
        .config(&definition)
        .build()
        .unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = std::sync::Arc::clone(&seen);
    gate.on_event(move |e| {
        if let Some(v) = interaction(e, "zh") {
            s.lock().unwrap().push(v);
        }
    });
    let call = toolgate::Call::new(
        "alert_mute_create",
        r#"{"group_id": 1, "tags": [{"key": "ident", "func": "==", "value": "db-master-01"}], "cause": "数据库维护", "btime": 1704153600, "etime": 1704164400}"#,
    );
    let toolgate::Checked::Ask(pending) = gate.check(&call).unwrap() else {
        panic!("a level-2 registry call is asked about");
    };
    assert_eq!(
        pending.description,
        described["description"].as_str().unwrap()
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["type"], "USER_INTERACTION_REQUESTED");
    assert_eq!(seen[0]["operationType"], "TOOL_APPROVAL");
    assert_eq!(seen[0]["prompt"], "是否批准调用工具 \"alert_mute_create\"?");
    assert_eq!(
        seen[0]["metadata"]["toolApproval"]["toolDescription"],
        described["description"]
    );
}
