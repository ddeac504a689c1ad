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
        serde_json::json!({"line": 3, "error": "not valid JSON"})
    );
    assert_eq!(lines[2]["action"], "confirm");
    assert_eq!(lines[2]["findings"][1]["code"], "sql.destructive");
    assert_eq!(lines[3]["error"], "missing \"tool\"");
    assert_eq!(lines[4]["error"], "not a JSON object");
    assert_eq!(
        lines[5]["error"],
        "\"args\" must be an object or a JSON string"
    );
    assert_eq!(lines[6]["action"], "allow");
    assert!(
        stderr(&out).contains("3 calls: 2 allow, 1 confirm, 0 deny; 4 malformed lines"),
        "{}",
        stderr(&out)
    );
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
