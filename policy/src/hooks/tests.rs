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
    let unknown = claude("SlashCommand", json!({"command": "/x"}), None).unwrap();
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
        .unwrap()
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
fn unknown_tools_are_never_allowed_unless_configured() {
    let approving = Engine::from_json(
        r#"{"auto_approved_tools": ["SlashCommand", "mcp__gh__list_issues", "WebSearch"]}"#,
    )
    .unwrap();
    // An unknown tool is asked; the configuration naming it is the
    // deployment's own decision, which holds.
    for tool in ["SlashCommand", "mcp__gh__list_issues"] {
        assert_eq!(
            permission(&Engine::default(), &event(tool, json!({}))),
            "ask"
        );
        assert_eq!(permission(&approving, &event(tool, json!({}))), "allow");
    }
    let ruled =
        Engine::from_json(r#"{"rules": [{"effect": "allow", "tool": "SlashCommand"}]}"#).unwrap();
    assert_eq!(
        permission(&ruled, &event("SlashCommand", json!({}))),
        "allow"
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
fn agent_tools_are_allowed_and_a_persons_decisions_get_no_opinion() {
    let engine = Engine::default();
    for (tool, input) in [
        ("TodoWrite", json!({"todos": []})),
        (
            "Task",
            json!({"description": "d", "prompt": "p", "subagent_type": "general-purpose"}),
        ),
        ("BashOutput", json!({"bash_id": "1"})),
        ("KillShell", json!({"shell_id": "1"})),
    ] {
        assert_eq!(
            permission(&engine, &event(tool, input.clone())),
            "allow",
            "{tool}"
        );
        // Planning (read-only) still keeps a to-do list.
        let mut planning: Value = serde_json::from_slice(&event(tool, input)).unwrap();
        planning["permission_mode"] = json!("plan");
        assert_eq!(
            permission(&engine, planning.to_string().as_bytes()),
            "allow"
        );
    }
    for tool in ["ExitPlanMode", "AskUserQuestion"] {
        let answer = engine
            .hook("claude-code", &event(tool, json!({"plan": "p"})))
            .unwrap();
        assert_eq!((answer.output.as_str(), answer.exit), ("{}", 0), "{tool}");
        let approving =
            Engine::from_json(&format!(r#"{{"auto_approved_tools": ["{tool}"]}}"#)).unwrap();
        let answer = approving
            .hook("claude-code", &event(tool, json!({})))
            .unwrap();
        assert_eq!(answer.output, "{}", "never an allow for {tool}");
    }
    // The configuration naming an agent tool holds.
    let held = Engine::from_json(
        r#"{"denied_tools": ["Task", "ExitPlanMode"], "rules": [{"effect": "ask", "tool": "TodoWrite"}]}"#,
    )
    .unwrap();
    assert_eq!(permission(&held, &event("Task", json!({}))), "deny");
    assert_eq!(permission(&held, &event("ExitPlanMode", json!({}))), "deny");
    assert_eq!(permission(&held, &event("TodoWrite", json!({}))), "ask");
    let strict = Engine::from_json(r#"{"strict": true}"#).unwrap();
    assert_eq!(permission(&strict, &event("TodoWrite", json!({}))), "ask");
}

#[test]
fn the_configuration_applies_under_the_agents_names() {
    let bash = |command: &str| event("Bash", json!({"command": command}));
    let approving = Engine::from_json(r#"{"auto_approved_tools": ["Bash"]}"#).unwrap();
    assert_eq!(permission(&approving, &bash("npm install")), "allow");
    // A managed deny still holds over the agent's name's approval.
    let denying = Engine::from_json(
        r#"{"auto_approved_tools": ["Bash"], "rules": [{"effect": "deny", "command": ["rm", "*"]}]}"#,
    )
    .unwrap();
    assert_eq!(permission(&denying, &bash("rm -rf build")), "deny");
    let ruled = Engine::from_json(
        r#"{"rules": [{"effect": "allow", "tool": "Bash", "command": ["npm", "install"]},
                      {"effect": "ask", "tool": "Read"}]}"#,
    )
    .unwrap();
    assert_eq!(permission(&ruled, &bash("npm install")), "allow");
    assert_eq!(permission(&ruled, &bash("npm publish")), "ask");
    assert_eq!(
        permission(
            &ruled,
            &event("Read", json!({"file_path": "/home/u/project/a.txt"}))
        ),
        "ask"
    );
    let confirming = Engine::from_json(r#"{"tools": {"Read": {"always_confirm": true}}}"#).unwrap();
    assert_eq!(
        permission(
            &confirming,
            &event("Read", json!({"file_path": "/home/u/project/a.txt"}))
        ),
        "ask"
    );
    let read_only = Engine::from_json(r#"{"mode": "read-only"}"#).unwrap();
    assert_eq!(permission(&read_only, &bash("npm install")), "deny");
}

#[test]
fn the_agents_mode_only_tightens() {
    let with_mode = |tool: &str, input: Value, mode: &str| {
        let mut e: Value = serde_json::from_slice(&event(tool, input)).unwrap();
        e["permission_mode"] = json!(mode);
        e.to_string().into_bytes()
    };
    let write = json!({"file_path": "/home/u/project/src/a.rs", "content": "x"});
    let outside = json!({"file_path": "/home/u/other/a.rs", "content": "x"});
    let engine = Engine::default();
    assert_eq!(
        permission(&engine, &with_mode("Write", write.clone(), "default")),
        "ask"
    );
    assert_eq!(
        permission(&engine, &with_mode("Write", write.clone(), "plan")),
        "deny"
    );
    assert_eq!(
        permission(
            &engine,
            &with_mode("Bash", json!({"command": "git status"}), "plan")
        ),
        "allow"
    );
    assert_eq!(
        permission(&engine, &with_mode("Write", write.clone(), "acceptEdits")),
        "allow"
    );
    assert_eq!(
        permission(&engine, &with_mode("Write", outside, "acceptEdits")),
        "ask"
    );
    assert_eq!(
        permission(
            &engine,
            &with_mode(
                "Write",
                json!({"file_path": "/home/u/project/.env", "content": "x"}),
                "acceptEdits"
            )
        ),
        "ask"
    );
    for mode in ["bypassPermissions", "dontAsk", "auto", "unknown"] {
        assert_eq!(
            permission(&engine, &with_mode("Write", write.clone(), mode)),
            "ask",
            "{mode}"
        );
    }
    // A managed layer that locks the modes, or a stricter mode, holds.
    let locked = Engine::from_json(r#"{"locks": {"modes": true}}"#).unwrap();
    assert_eq!(
        permission(&locked, &with_mode("Write", write.clone(), "acceptEdits")),
        "ask"
    );
    let allowlist = Engine::from_json(r#"{"mode": "allowlist"}"#).unwrap();
    assert_eq!(
        permission(
            &allowlist,
            &with_mode("Write", write.clone(), "acceptEdits")
        ),
        "ask"
    );
    let read_only = Engine::from_json(r#"{"mode": "read-only"}"#).unwrap();
    assert_eq!(
        permission(
            &read_only,
            &with_mode("Write", write.clone(), "acceptEdits")
        ),
        "deny"
    );
    // Self-protection holds in accept-edits too.
    assert_eq!(
        permission(
            &engine,
            &with_mode(
                "Write",
                json!({"file_path": "/home/u/project/.github/workflows/ci.yml", "content": "x"}),
                "acceptEdits"
            )
        ),
        "ask"
    );
}

#[test]
fn a_missing_configuration_asks_with_the_error() {
    let claude = unconfigured("claude-code", "cannot read .toolgate.toml: no such file").unwrap();
    assert_eq!(claude.exit, 0);
    let out: Value = serde_json::from_str(&claude.output).unwrap();
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
    assert!(out["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .contains("cannot read .toolgate.toml"));
    assert!(claude.error.unwrap().starts_with("toolgate: hook: "));
    let gemini: Value =
        serde_json::from_str(&unconfigured("gemini-cli", "bad").unwrap().output).unwrap();
    assert_eq!(gemini["decision"], "ask");
    assert!(gemini["systemMessage"].as_str().unwrap().contains("bad"));
    let codex: Value = serde_json::from_str(&unconfigured("codex", "bad").unwrap().output).unwrap();
    assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(unconfigured("cursor", "bad").is_err());
}

#[test]
fn codex_denies_what_it_cannot_ask_and_reads_patches() {
    let engine = Engine::default();
    let codex = |tool: &str, input: Value| {
        let bytes = event(tool, input);
        engine.hook("codex", &bytes).unwrap().output
    };
    assert_eq!(codex("Bash", json!({"command": "git status"})), "{}");
    let asked: Value =
        serde_json::from_str(&codex("Bash", json!({"command": "npm install"}))).unwrap();
    assert_eq!(asked["hookSpecificOutput"]["permissionDecision"], "deny");
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** End Patch\n";
    let edit: Value =
        serde_json::from_str(&codex("apply_patch", json!({"command": patch}))).unwrap();
    assert_eq!(edit["hookSpecificOutput"]["permissionDecision"], "deny");
    let rules = Engine::from_json(
        r#"{"rules": [{"effect": "allow", "tool": "apply_patch", "file": {"operations": ["edit", "create"], "paths": ["/home/u/project/src/**"]}}]}"#,
    )
    .unwrap();
    let answer = |patch: &str| {
        rules
            .hook("codex", &event("apply_patch", json!({"command": patch})))
            .unwrap()
            .output
    };
    assert_eq!(answer(patch), "{}");
    let two = "*** Begin Patch\n*** Add File: src/b.rs\n+x\n*** Update File: .git/hooks/pre-commit\n+x\n*** End Patch";
    assert_ne!(answer(two), "{}", "the strictest file decides");
    assert_ne!(answer("no patch here"), "{}");
}

#[test]
fn gemini_asks_in_its_system_message_and_allows_in_its_shape() {
    let engine = Engine::default();
    let gemini = |tool: &str, input: Value| {
        let mut e: Value = serde_json::from_slice(&event(tool, input)).unwrap();
        e["hook_event_name"] = json!("BeforeTool");
        engine
            .hook("gemini-cli", e.to_string().as_bytes())
            .unwrap()
            .output
    };
    assert_eq!(
        gemini("run_shell_command", json!({"command": "git status"})),
        r#"{"decision":"allow"}"#
    );
    let asked: Value = serde_json::from_str(&gemini(
        "run_shell_command",
        json!({"command": "npm install"}),
    ))
    .unwrap();
    assert_eq!(asked["decision"], "ask");
    assert!(asked["systemMessage"]
        .as_str()
        .unwrap()
        .contains("npm install"));
    assert_eq!(
        gemini("write_todos", json!({"todos": []})),
        r#"{"decision":"allow"}"#
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
        "unknown hook format 'cursor' (known: claude-code, gemini-cli, codex)"
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

#[test]
fn mcp_tools_are_judged_under_the_gateways_names() {
    // What a rule, denial or auto-approval names for the gateway's tool
    // (`mcp:SERVER/TOOL`) holds for the agent's `mcp__SERVER__TOOL` event.
    let config = r#"{"denied_tools": ["mcp:fs/move_file"],
        "auto_approved_tools": ["mcp:fs/list_allowed_directories"],
        "rules": [{"effect": "allow", "tool": "mcp:fs/create_directory"}],
        "tools": {"mcp:fs/read_text_file": {"kind": "mcp", "server": "fs",
            "annotations": {"readOnlyHint": true}}},
        "mcp_servers": {"fs": {"trusted": true}}}"#;
    let engine = Engine::from_json(config).unwrap();
    let decide =
        |tool: &str| permission(&engine, &event(tool, json!({"path": "/home/u/project/a"})));
    assert_eq!(decide("mcp__fs__move_file"), "deny");
    assert_eq!(decide("mcp__fs__list_allowed_directories"), "allow");
    assert_eq!(decide("mcp__fs__create_directory"), "allow");
    assert_eq!(
        decide("mcp__fs__read_text_file"),
        "allow",
        "declared under the gateway's name"
    );
    // Another server's tool of the same name is not that tool, and a tool
    // nothing names is asked.
    assert_eq!(decide("mcp__other__move_file"), "ask");
    assert_eq!(decide("mcp__other__list_allowed_directories"), "ask");
    assert_eq!(decide("mcp__fs__write_file"), "ask");
    assert_eq!(decide("mcp____write_file"), "ask");
}
