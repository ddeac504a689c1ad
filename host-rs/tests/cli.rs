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
    toolgate_bytes(args, stdin.as_bytes())
}

fn toolgate_bytes(args: &[&str], stdin: &[u8]) -> Output {
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
    child.stdin.take().unwrap().write_all(stdin).unwrap();
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

fn repo(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The Swagger Petstore (a real public spec): 19 operations, levels from the
/// methods, and the registry entries work as a configuration.
#[test]
fn import_openapi_petstore() {
    let out = toolgate(
        &[
            "import-openapi",
            &repo("tests/openapi/petstore-openapi.yaml"),
        ],
        "",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let imported: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let tools = imported["tools"].as_object().unwrap();
    assert_eq!(tools.len(), 19);
    assert_eq!(imported["definitions"].as_array().unwrap().len(), 19);
    assert!(stderr(&out)
        .contains("19 operations: 8 level 1 (query), 8 level 2 (modify), 3 level 3 (delete)"));
    // The operation kept whole: what discovery, prompts, argument checks and
    // request building read.
    assert_eq!(
        tools["getPetById"],
        serde_json::json!({
            "kind": "api", "method": "GET", "url": "/pet/{petId}", "risk_level": 1,
            "display_name": "Find pet by ID", "description": "Returns a single pet",
            "category": "pet", "keywords": ["pet", "id", "find"],
            "path_params_schema": {"type": "object", "properties": {"petId": {
                "type": "integer", "format": "int64", "description": "ID of pet to return"}},
                "required": ["petId"]}
        })
    );
    assert!(stderr(&out).contains("the header parameter `api_key` is left to the host"));
    assert_eq!(tools["deletePet"]["risk_level"], 3);
    let definition = imported["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["function"]["name"] == "getPetById")
        .unwrap();
    assert_eq!(
        definition["function"]["parameters"]["required"],
        serde_json::json!(["petId"])
    );

    // The entries, pasted into a configuration, decide calls.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let config = dir.join("petstore-config.json");
    std::fs::write(
        &config,
        serde_json::json!({"tools": imported["tools"]}).to_string(),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let read = toolgate(
        &[
            "assess",
            "--json",
            "--config",
            config,
            "getPetById",
            r#"{"petId": 1}"#,
        ],
        "",
    );
    assert_eq!(code(&read), 0, "{}", stdout(&read));
    let sneaky = toolgate(
        &[
            "assess",
            "--json",
            "--config",
            config,
            "getPetById",
            r#"{"petId": "1/../../admin"}"#,
        ],
        "",
    );
    assert!(stdout(&sneaky).contains("registry.bad-path-param"));
    assert!(stdout(&sneaky).contains("args.schema"));
    let delete = toolgate(
        &[
            "assess",
            "--json",
            "--config",
            config,
            "deletePet",
            r#"{"petId": 1, "risk_level": "low"}"#,
        ],
        "",
    );
    assert_eq!(code(&delete), 10);
    assert!(stdout(&delete).contains(r#""source":"floor""#));
}

/// The monitoring system of seed 002: the import's level for every operation is
/// the one the seed's own API tables give (低 1, 中 2, 高 3).
#[test]
fn import_openapi_monitoring_matches_the_seed_tables() {
    let out = toolgate(
        &["import-openapi", &repo("tests/openapi/monitoring.yaml")],
        "",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines: Vec<String> = stderr(&out)
        .lines()
        .skip(1)
        .map(|l| l.trim().to_owned())
        .collect();
    let expected: Vec<String> = std::fs::read_to_string(repo("tests/openapi/monitoring.expected"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 51);
    assert_eq!(lines, expected);
}

#[test]
fn import_openapi_errors() {
    let bad = toolgate(&["import-openapi", "-"], "openapi: [unclosed");
    assert_eq!(code(&bad), 1);
    let not_openapi = toolgate(&["import-openapi", "-"], r#"{"info": {}}"#);
    assert_eq!(code(&not_openapi), 1);
    assert!(stderr(&not_openapi).contains("not an OpenAPI"));
}

#[test]
fn config_check_json_and_toml() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let ok = toolgate(&["config", "check", &repo("examples/config.json")], "");
    assert_eq!(
        (code(&ok), stdout(&ok).trim()),
        (0, "ok"),
        "{}",
        stderr(&ok)
    );

    let toml = dir.join("config.toml");
    std::fs::write(&toml, "strict = false\ndenied_tools = [\"drop_database\"]\n\n[tools.run_shell]\nkind = \"command\"\nfield = \"cmd\"\n").unwrap();
    let ok = toolgate(&["config", "check", toml.to_str().unwrap()], "");
    assert_eq!(code(&ok), 0, "{}", stderr(&ok));
    let decided = toolgate(
        &[
            "assess",
            "--config",
            toml.to_str().unwrap(),
            "run_shell",
            r#"{"cmd": "ls"}"#,
        ],
        "",
    );
    assert_eq!(code(&decided), 0, "{}", stdout(&decided));

    let bad = dir.join("bad-config.json");
    std::fs::write(&bad, "{\n  \"strict\": true,\n  \"denied_tool\": []\n}\n").unwrap();
    let out = toolgate(&["config", "check", bad.to_str().unwrap()], "");
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("denied_tool") && stderr(&out).contains("line 3"),
        "{}",
        stderr(&out)
    );

    let bad_toml = dir.join("bad-config.toml");
    std::fs::write(&bad_toml, "strict = [\n").unwrap();
    let out = toolgate(&["config", "check", bad_toml.to_str().unwrap()], "");
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("not JSON, and not TOML") && stderr(&out).contains("at line 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn input_that_is_not_utf8_is_a_malformed_line_in_check_and_an_error_elsewhere() {
    let mut input = br#"{"tool":"execute_command","args":{"command":"ls"}}
{"tool":"execute_sql","args":{"sql":"SEL"#
        .to_vec();
    input.extend_from_slice(b"\xff\xfe 1\"}}\r\n\n");
    input.extend_from_slice(br#"{"tool":"execute_command","args":{"command":"rm -rf /"}}"#);
    let o = toolgate_bytes(&["check"], &input);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].contains(r#""action":"allow""#));
    assert_eq!(
        lines[1],
        r#"{"line":2,"error":"the line is not valid UTF-8"}"#
    );
    assert!(lines[2].contains(r#""action":"confirm""#));

    let o = toolgate_bytes(&["assess", "execute_sql", "-"], b"{\"sql\":\"\xff\"}");
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("not valid UTF-8"), "{}", stderr(&o));
}
