//! The `toolgate` command line: output, exit codes, malformed input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn toolgate(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(args)
        .env(
            "TOOLGATE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shared-cache"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

#[test]
fn assess_exit_codes_follow_the_action() {
    let allow = toolgate(&["assess", "execute_sql", r#"{"sql":"SELECT 1"}"#], "");
    assert_eq!(code(&allow), 0, "{}", stderr(&allow));
    assert!(stdout(&allow).starts_with("allow · risk low · source whitelist\n"));

    let confirm = toolgate(
        &[
            "assess",
            "execute_sql",
            r#"{"sql":"SELECT 1; DROP TABLE t"}"#,
        ],
        "",
    );
    assert_eq!(code(&confirm), 10);
    let text = stdout(&confirm);
    assert!(text.contains("sql.destructive"), "{text}");
    assert!(text.contains("DROP TABLE t"), "{text}");

    let escalated = toolgate(
        &[
            "assess",
            "execute_command",
            r#"{"command":"ls -la","risk_level":"high"}"#,
        ],
        "",
    );
    assert_eq!(code(&escalated), 10);
    assert!(stdout(&escalated).contains("model said high"));
}

#[test]
fn assess_deny_with_a_config_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let config = dir.join("cli-deny.json");
    std::fs::write(&config, r#"{"denied_tools":["execute_command"]}"#).unwrap();
    let out = toolgate(
        &[
            "assess",
            "--config",
            config.to_str().unwrap(),
            "--json",
            "execute_command",
            r#"{"command":"ls"}"#,
        ],
        "",
    );
    assert_eq!(code(&out), 11);
    let decision: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(decision["action"], "deny");
    assert_eq!(decision["findings"][0]["code"], "config.denied-tool");
}

#[test]
fn assess_malformed_json_is_a_clear_confirm() {
    let out = toolgate(&["assess", "execute_sql", r#"{"sql": "#], "");
    assert_eq!(code(&out), 10);
    assert!(stdout(&out).contains("args.invalid"));
    assert!(stdout(&out).contains("not valid JSON"));
    assert!(
        stderr(&out).contains("ARGS_JSON is not a JSON object"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn assess_reads_arguments_from_stdin() {
    let out = toolgate(
        &["assess", "--json", "execute_sql", "-"],
        r#"{"sql":"SHOW TABLES"}"#,
    );
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains(r#""action":"allow""#));
}

#[test]
fn check_keeps_order_reports_malformed_lines_and_goes_on() {
    let input = concat!(
        "{\"tool\":\"execute_sql\",\"args\":{\"sql\":\"SELECT 1\"}}\n",
        "\n",
        "not json\n",
        "{\"tool\":\"execute_sql\",\"args\":\"{\\\"sql\\\":\\\"DROP TABLE t\\\"}\"}\n",
        "{\"args\":{}}\n",
        "[1]\n",
        "{\"tool\":\"http_request\",\"args\":[1]}\n",
        "{\"tool\":\"execute_command\",\"args\":{\"command\":\"pwd\"}}\n",
    );
    let out = toolgate(&["check", "-"], input);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 7, "one output line per non-blank input line");
    assert_eq!(lines[0]["action"], "allow");
    assert_eq!(
        lines[1],
        serde_json::json!({"line": 3, "error": "the call is not valid JSON"})
    );
    assert_eq!(lines[2]["action"], "confirm");
    assert_eq!(lines[2]["findings"][1]["code"], "sql.destructive");
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .starts_with("no tool name found"));
    assert_eq!(
        lines[4]["error"],
        "the call must be a JSON object, not an array"
    );
    // Arguments that are not an object are the model's mistake: decided, not lost.
    assert_eq!(lines[5]["findings"][0]["code"], "args.invalid");
    assert_eq!(lines[6]["action"], "allow");
    assert!(
        stderr(&out).contains("4 calls: 2 allow, 2 confirm, 0 deny; 3 malformed lines"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_reads_every_call_format() {
    let input = concat!(
        r#"{"id":"call_1","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}"#,
        "\n",
        r#"{"type":"function_call","call_id":"c2","name":"execute_command","arguments":"{\"command\":\"ls\"}"}"#,
        "\n",
        r#"{"type":"tool_use","id":"toolu_1","name":"file_operations","input":{"operation":"read","path":"a.md"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"http_request","arguments":{"url":"https://example.com"}}}"#,
        "\n",
        r#"{"functionCall":{"name":"execute_sql","args":{"sql":"SHOW TABLES"}}}"#,
        "\n",
    );
    let out = toolgate(&["check"], input);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 5);
}

#[test]
fn check_exit_code_without_malformed_lines() {
    let all_allowed = "{\"tool\":\"execute_sql\",\"args\":{\"sql\":\"SELECT 1\"}}\n";
    assert_eq!(code(&toolgate(&["check"], all_allowed)), 0);
    let with_confirm = format!("{all_allowed}{{\"tool\":\"x\"}}\n");
    assert_eq!(code(&toolgate(&["check"], &with_confirm)), 10);
}

#[test]
fn check_example_file() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/tool-calls.jsonl");
    let out = toolgate(&["check", file.to_str().unwrap()], "");
    let input_lines = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(stdout(&out).lines().count(), input_lines);
    assert_eq!(code(&out), 10, "{}", stderr(&out));
}

/// Every format's real request body, augmented, is exactly the committed
/// `*.augmented.json` beside it (reviewed by hand when it changes).
#[test]
fn augment_examples_for_every_format() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/formats");
    for format in [
        "openai-chat",
        "openai-responses",
        "anthropic",
        "mcp",
        "gemini",
    ] {
        let input = dir.join(format!("{format}.json"));
        let out = toolgate(&["augment", input.to_str().unwrap()], "");
        assert_eq!(code(&out), 0, "{format}: {}", stderr(&out));
        let got: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        let want: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{format}.augmented.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(got, want, "{format}");
        // Forcing the format it has gives the same result.
        let forced = toolgate(
            &["augment", "--format", format, input.to_str().unwrap()],
            "",
        );
        let forced: serde_json::Value = serde_json::from_str(stdout(&forced).trim()).unwrap();
        if format != "openai-responses" {
            assert_eq!(forced, want, "{format} forced");
        }
    }
}

#[test]
fn augment_and_guidance() {
    let out = toolgate(
        &["augment"],
        r#"{"tools":[{"name":"a","input_schema":{"type":"object"}}]}"#,
    );
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("risk_level"));

    let bad = toolgate(&["augment"], "3");
    assert_eq!(code(&bad), 1);
    assert!(
        stderr(&bad).contains("expected an array"),
        "{}",
        stderr(&bad)
    );

    let zh = toolgate(&["guidance", "--lang", "zh"], "");
    assert_eq!(code(&zh), 0);
    assert!(stdout(&zh).contains("风险"));
}

#[test]
fn errors_and_usage() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let config = dir.join("cli-bad.json");
    std::fs::write(&config, r#"{"strict": "yes"}"#).unwrap();
    let out = toolgate(
        &[
            "assess",
            "--config",
            config.to_str().unwrap(),
            "execute_sql",
        ],
        "",
    );
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("strict"), "{}", stderr(&out));

    let missing = toolgate(&["check", "/nonexistent/calls.jsonl"], "");
    assert_eq!(code(&missing), 1);

    let usage = toolgate(&["assess"], "");
    assert_eq!(code(&usage), 2);

    let help = toolgate(&["--help"], "");
    assert_eq!(code(&help), 0);
    assert!(stdout(&help).contains("Exit codes"));
}
