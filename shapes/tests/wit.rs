//! The WIT and this crate describe the same shapes: a renamed field or a new
//! enum case on one side fails here until the other side agrees.
//!
//! The decision crosses the component boundary as a WIT record and is read by
//! hosts into these types; the gate's steps cross as JSON of these types. So
//! the names must match exactly (WIT's kebab-case is serde's snake_case).

#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::Value;
use std::collections::BTreeSet;
use toolgate_shapes::calls::CallFormat;
use toolgate_shapes::{Action, Decision, Finding, Risk, Source};

fn wit() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../wit/toolgate.wit"))
        .expect("wit/toolgate.wit")
}

/// The names declared in the WIT block `kind name { … }`: enum cases or
/// record fields, snake_cased, comments skipped.
fn members(kind: &str, name: &str) -> Vec<String> {
    let text = wit();
    let start = text
        .find(&format!("{kind} {name} {{"))
        .unwrap_or_else(|| panic!("no `{kind} {name}` in the WIT"));
    text[start..]
        .lines()
        .skip(1)
        .map(str::trim)
        .take_while(|l| *l != "}")
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(|l| {
            l.split([':', ','])
                .next()
                .expect("a member")
                .trim()
                .replace('-', "_")
        })
        .collect()
}

/// Each enum's every Rust variant, by an exhaustive match: adding a variant
/// fails to compile here until it is listed (and then checked against the WIT).
fn risks() -> Vec<Risk> {
    let all = [Risk::Low, Risk::Medium, Risk::High];
    for r in all {
        match r {
            Risk::Low | Risk::Medium | Risk::High => {}
        }
    }
    all.to_vec()
}

fn actions() -> Vec<Action> {
    let all = [Action::Allow, Action::Confirm, Action::Deny];
    for a in all {
        match a {
            Action::Allow | Action::Confirm | Action::Deny => {}
        }
    }
    all.to_vec()
}

fn sources() -> Vec<Source> {
    let all = [
        Source::Config,
        Source::Strict,
        Source::Llm,
        Source::Floor,
        Source::Whitelist,
        Source::Registry,
        Source::Default,
        Source::Rule,
    ];
    for s in all {
        match s {
            Source::Config
            | Source::Strict
            | Source::Llm
            | Source::Floor
            | Source::Whitelist
            | Source::Registry
            | Source::Default
            | Source::Rule => {}
        }
    }
    all.to_vec()
}

fn formats() -> Vec<CallFormat> {
    let all = [
        CallFormat::Plain,
        CallFormat::OpenaiChat,
        CallFormat::OpenaiResponses,
        CallFormat::Anthropic,
        CallFormat::Mcp,
        CallFormat::Gemini,
        CallFormat::AiSdk,
    ];
    for f in all {
        match f {
            CallFormat::Plain
            | CallFormat::OpenaiChat
            | CallFormat::OpenaiResponses
            | CallFormat::Anthropic
            | CallFormat::Mcp
            | CallFormat::Gemini
            | CallFormat::AiSdk => {}
        }
    }
    all.to_vec()
}

fn names<T: serde::Serialize>(values: &[T]) -> Vec<String> {
    values
        .iter()
        .map(|v| match serde_json::to_value(v).expect("serialisable") {
            Value::String(s) => s.replace('-', "_"),
            other => panic!("an enum serialises as a string, not {other}"),
        })
        .collect()
}

fn fields<T: serde::Serialize>(value: &T) -> Vec<String> {
    match serde_json::to_value(value).expect("serialisable") {
        Value::Object(map) => map.keys().cloned().collect(),
        other => panic!("a record serialises as an object, not {other}"),
    }
}

#[test]
fn enums_have_the_same_cases_in_the_same_order() {
    assert_eq!(names(&risks()), members("enum", "risk"));
    assert_eq!(names(&actions()), members("enum", "action"));
    assert_eq!(names(&sources()), members("enum", "source"));
    assert_eq!(names(&formats()), members("enum", "call-format"));
    // Hosts read the bindings' enums by position in these lists.
    assert_eq!(names(&Risk::ALL), members("enum", "risk"));
    assert_eq!(names(&Action::ALL), members("enum", "action"));
    assert_eq!(names(&Source::ALL), members("enum", "source"));
    assert_eq!(names(&CallFormat::ALL), members("enum", "call-format"));
}

#[test]
fn records_have_the_same_fields_in_the_same_order() {
    let decision = Decision {
        action: Action::Allow,
        risk: Risk::Low,
        source: Source::Default,
        llm_risk: None,
        findings: vec![],
        summary: String::new(),
    };
    assert_eq!(fields(&decision), members("record", "decision"));
    assert_eq!(
        fields(&Finding::new("x", "y")),
        members("record", "finding")
    );
    let answer = toolgate_shapes::hooks::HookAnswer {
        output: String::new(),
        error: None,
        exit: 0,
    };
    assert_eq!(fields(&answer), members("record", "hook-answer"));
}

#[test]
fn the_reader_finds_what_it_reads() {
    // The checks above would pass vacuously if the reader found nothing.
    let cases: BTreeSet<String> = members("enum", "source").into_iter().collect();
    assert!(cases.contains("whitelist") && cases.len() >= 7, "{cases:?}");
    assert!(members("record", "decision").contains(&String::from("llm_risk")));
}
