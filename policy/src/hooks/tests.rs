#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use super::table::{resolve, Call, Unresolved, CLAUDE_CODE, GEMINI_CLI};
use super::*;
use crate::Config;
use serde_json::json;

fn input(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

fn claude(tool: &str, tool_input: Value, cwd: Option<&str>) -> Result<Call, Unresolved> {
    resolve(
        CLAUDE_CODE,
        &Config::default(),
        tool,
        &input(tool_input),
        cwd,
    )
}

fn event(tool: &str, tool_input: Value) -> Vec<u8> {
    json!({"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/home/u/project",
           "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input})
    .to_string()
    .into_bytes()
}

fn decided(engine: &Engine, bytes: &[u8]) -> Value {
    let answer = engine.hook("claude-code", bytes).expect("known format");
    assert_eq!(answer.exit, 0);
    serde_json::from_str(&answer.output).expect("JSON")
}

fn permission(engine: &Engine, bytes: &[u8]) -> String {
    decided(engine, bytes)["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .expect("a decision")
        .to_owned()
}

#[test]
fn tools_map_onto_the_assessors() {
    let bash = claude(
        "Bash",
        json!({"command": "ls -la", "description": "list", "timeout": 5, "run_in_background": true}),
        Some("/p"),
    )
    .unwrap();
    assert_eq!(bash.tool, "execute_command");
    assert_eq!(bash.args, json!({"command": "ls -la"}));
    let read = claude("Read", json!({"file_path": "src/a.rs"}), Some("/p")).unwrap();
    assert_eq!(read.tool, "file_operations");
    assert_eq!(
        read.args,
        json!({"operation": "read", "path": "/p/src/a.rs"})
    );
    let notebook = claude("NotebookEdit", json!({"notebook_path": "/n.ipynb"}), None).unwrap();
    assert_eq!(
        notebook.args,
        json!({"operation": "edit", "path": "/n.ipynb"})
    );
    let glob = claude("Glob", json!({"pattern": "**/*.rs"}), Some("/p/")).unwrap();
    assert_eq!(glob.tool, "execute_command");
    assert_eq!(
        glob.args,
        json!({"command": "rg --files --glob='**/*.rs' -- '/p/'"})
    );
    let grep = claude(
        "Grep",
        json!({"pattern": "it's", "path": "~/src", "glob": "*.rs", "type": "rust", "-i": true}),
        None,
    )
    .unwrap();
    assert_eq!(
        grep.args,
        json!({"command": r"rg --glob='*.rs' --type='rust' -e 'it'\''s' -- ~'/src'"})
    );
    let odd = claude("Grep", json!({"pattern": "x", "path": "~$(id)/x"}), None).unwrap();
    assert_eq!(odd.args, json!({"command": null}));
    let fetch = claude(
        "WebFetch",
        json!({"url": "https://example.com/", "prompt": "x"}),
        None,
    )
    .unwrap();
    assert_eq!(fetch.tool, "http_request");
    assert_eq!(
        fetch.args,
        json!({"method": "GET", "url": "https://example.com/"})
    );
    let search = claude(
        "WebSearch",
        json!({"query": "q", "risk_level": "low"}),
        None,
    )
    .unwrap();
    assert_eq!((search.tool.as_str(), search.known), ("WebSearch", true));
    assert_eq!(
        search.args,
        json!({"query": "q"}),
        "a risk_level of the agent's input is dropped"
    );
    let unknown = claude("Task", json!({"prompt": "p"}), None).unwrap();
    assert!(!unknown.known);
    let shell = resolve(
        GEMINI_CLI,
        &Config::default(),
        "run_shell_command",
        &input(json!({"command": "rm -rf /", "dir_path": "x"})),
        None,
    )
    .unwrap();
    assert_eq!(shell.args, json!({"command": "rm -rf /"}));
}

#[test]
fn relative_paths_need_an_absolute_cwd() {
    for cwd in [None, Some("relative/dir"), Some("~/p")] {
        assert!(
            claude("Read", json!({"file_path": "a.txt"}), cwd).is_err(),
            "{cwd:?}"
        );
        assert!(
            claude("Grep", json!({"pattern": "x"}), cwd).is_err(),
            "{cwd:?}"
        );
    }
    assert!(claude("Read", json!({"file_path": "/abs/a.txt"}), None).is_ok());
    let engine = Engine::default();
    let mut bytes: Value =
        serde_json::from_slice(&event("Read", json!({"file_path": "a.txt"}))).unwrap();
    bytes.as_object_mut().unwrap().remove("cwd");
    let answer = decided(&engine, bytes.to_string().as_bytes());
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
    assert!(engine
        .hook_decision(
            &FORMATS[0],
            &read_event(&FORMATS[0], bytes.to_string().as_bytes()).unwrap()
        )
        .findings
        .iter()
        .any(|f| f.code == codes::HOOK_CWD));
}

#[test]
fn decisions_come_out_in_the_agents_words() {
    let engine = Engine::default();
    assert_eq!(
        permission(&engine, &event("Read", json!({"file_path": "README.md"}))),
        "allow"
    );
    assert_eq!(
        permission(&engine, &event("Bash", json!({"command": "git status"}))),
        "allow"
    );
    assert_eq!(
        permission(&engine, &event("Bash", json!({"command": "rm -rf ~/"}))),
        "ask"
    );
    assert_eq!(
        permission(
            &engine,
            &event("Read", json!({"file_path": "/home/u/.ssh/id_rsa"}))
        ),
        "ask"
    );
    let denying = Engine::from_json(r#"{"denied_tools": ["execute_command"]}"#).unwrap();
    let denied = decided(&denying, &event("Bash", json!({"command": "ls"})));
    assert_eq!(denied["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = denied["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(
        reason,
        denying
            .assess("execute_command", r#"{"command":"ls"}"#)
            .summary
    );
    let by_agent_name = Engine::from_json(r#"{"denied_tools": ["Bash"]}"#).unwrap();
    assert_eq!(
        permission(&by_agent_name, &event("Bash", json!({"command": "ls"}))),
        "deny"
    );
}

#[test]
fn unknown_tools_are_never_allowed() {
    let approving = Engine::from_json(
        r#"{"auto_approved_tools": ["Task", "mcp__gh__list_issues", "WebSearch"]}"#,
    )
    .unwrap();
    assert_eq!(permission(&approving, &event("Task", json!({}))), "ask");
    assert_eq!(
        permission(&approving, &event("mcp__gh__list_issues", json!({}))),
        "ask"
    );
    assert_eq!(
        permission(
            &Engine::default(),
            &event("TodoWrite", json!({"todos": []}))
        ),
        "ask"
    );
    // WebSearch is mapped onto its own name: the configuration may allow it.
    assert_eq!(
        permission(&approving, &event("WebSearch", json!({"query": "q"}))),
        "allow"
    );
    assert_eq!(
        permission(
            &Engine::default(),
            &event("WebSearch", json!({"query": "q"}))
        ),
        "ask"
    );
}

#[test]
fn mcp_tools_resolve_to_the_configured_tool_of_that_server() {
    let config = r#"{"tools": {"list_issues": {"kind": "mcp", "server": "gh",
        "annotations": {"readOnlyHint": true}},
        "delete_repo": {"kind": "mcp", "server": "other", "annotations": {"readOnlyHint": true}}},
        "mcp_servers": {"gh": {"trusted": true}, "other": {"trusted": true}}}"#;
    let engine = Engine::from_json(config).unwrap();
    assert_eq!(
        permission(
            &engine,
            &event("mcp__gh__list_issues", json!({"repo": "a/b"}))
        ),
        "allow"
    );
    // The same tool name under another server is not that tool.
    assert_eq!(
        permission(&engine, &event("mcp__gh__delete_repo", json!({}))),
        "ask"
    );
    assert_eq!(
        permission(&engine, &event("mcp__ghx__list_issues", json!({}))),
        "ask"
    );
}

#[test]
fn malformed_events_ask_with_an_error() {
    let engine = Engine::default();
    let oversize = vec![b' '; MAX_EVENT_BYTES + 1];
    let cases: Vec<(Vec<u8>, Malformed)> = vec![
        (b"not json".to_vec(), Malformed::NotJson(String::new())),
        (vec![0xff, 0xfe], Malformed::NotUtf8),
        (b"[1]".to_vec(), Malformed::NotObject),
        (
            br#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}"#.to_vec(),
            Malformed::WrongEvent {
                expected: "PreToolUse",
                found: Some(String::from("PostToolUse")),
            },
        ),
        (
            br#"{"hook_event_name":"PreToolUse","tool_input":{}}"#.to_vec(),
            Malformed::NoToolName,
        ),
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}"#.to_vec(),
            Malformed::InputNotObject,
        ),
        (oversize, Malformed::TooLarge(MAX_EVENT_BYTES + 1)),
    ];
    for (bytes, expected) in cases {
        let read = read_event(&FORMATS[0], &bytes).expect_err("malformed");
        match (&read, &expected) {
            (Malformed::NotJson(_), Malformed::NotJson(_)) => {}
            _ => assert_eq!(read, expected),
        }
        let answer = engine.hook("claude-code", &bytes).unwrap();
        assert_eq!(answer.exit, 0);
        assert!(answer
            .error
            .as_deref()
            .unwrap()
            .starts_with("toolgate: hook: "));
        let out: Value = serde_json::from_str(&answer.output).unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        let gemini: Value =
            serde_json::from_str(&engine.hook("gemini-cli", &bytes).unwrap().output).unwrap();
        assert_eq!(gemini["decision"], "ask");
    }
    assert_eq!(
        engine.hook("cursor", b"{}").unwrap_err().to_string(),
        "unknown hook format 'cursor' (known: claude-code, gemini-cli)"
    );
}

#[test]
fn gemini_answers_carry_decision_and_reason() {
    let engine = Engine::from_json(r#"{"denied_tools": ["execute_command"]}"#).unwrap();
    let bytes = json!({"session_id": "s", "transcript_path": "/t", "cwd": "/w", "timestamp": "2026-01-01T00:00:00Z",
        "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}).to_string();
    let answer = engine.hook("gemini-cli", bytes.as_bytes()).unwrap();
    let out: Value = serde_json::from_str(&answer.output).unwrap();
    assert_eq!(out["decision"], "deny");
    assert_eq!(
        out["reason"],
        engine
            .assess("execute_command", r#"{"command":"ls"}"#)
            .summary
    );
    assert_eq!(
        answer.output.find("decision"),
        Some(2),
        "documented field order: decision, reason"
    );
}

/// The agents' search tools meet the proofs `rg` and `grep -r` meet: over a
/// parent of secret locations or with a glob that picks secret files they
/// are asked, as reading those files is; narrowed to ordinary files in the
/// project, allowed.
#[test]
fn search_tools_meet_the_proofs_of_rg() {
    let engine = Engine::default();
    for (tool, input) in [
        ("Grep", json!({"pattern": "password", "path": "/home/u"})),
        ("Grep", json!({"pattern": "root", "path": "/etc"})),
        ("Grep", json!({"pattern": "KEY", "glob": ".env"})),
        (
            "Grep",
            json!({"pattern": "KEY", "glob": "*.rs", "path": "/etc"}),
        ),
        ("Grep", json!({"pattern": "x", "path": "~"})),
        ("Glob", json!({"pattern": ".env", "path": "/home/u"})),
        ("Glob", json!({"pattern": "**/id_rsa", "path": "/home/u"})),
    ] {
        assert_eq!(
            permission(&engine, &event(tool, input.clone())),
            "ask",
            "{tool} {input}"
        );
    }
    for (tool, input) in [
        ("Grep", json!({"pattern": "TODO", "glob": "*.rs"})),
        (
            "Grep",
            json!({"pattern": "TODO", "type": "rust", "path": "src"}),
        ),
        ("Grep", json!({"pattern": "TODO", "path": "src/main.rs"})),
        ("Glob", json!({"pattern": "*.ts"})),
    ] {
        assert_eq!(
            permission(&engine, &event(tool, input.clone())),
            "allow",
            "{tool} {input}"
        );
    }
    let gemini = |tool: &str, input: Value| {
        let bytes =
            json!({"session_id": "s", "transcript_path": "/t.json", "cwd": "/home/u/project",
            "hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": input})
            .to_string();
        let answer = engine
            .hook("gemini-cli", bytes.as_bytes())
            .expect("known format");
        let out: Value = serde_json::from_str(&answer.output).expect("JSON");
        out["decision"].as_str().unwrap_or_default().to_owned()
    };
    assert_eq!(
        gemini(
            "search_file_content",
            json!({"pattern": "x", "dir_path": "/home/u"})
        ),
        "ask"
    );
    assert_eq!(
        gemini(
            "search_file_content",
            json!({"pattern": "x", "include": ".env"})
        ),
        "ask"
    );
    assert_eq!(
        gemini("glob", json!({"pattern": ".env", "dir_path": "/etc"})),
        "ask"
    );
    assert_eq!(
        gemini(
            "search_file_content",
            json!({"pattern": "x", "include": "*.ts"})
        ),
        "allow"
    );
}
