//! Differential fuzzing across the host boundary: arbitrary tool names and
//! argument bytes, deep nesting, oversized input and every conformance input
//! mutated, decided by the policy crate natively and by the component through
//! wasmtime. The two must agree byte for byte on every decision, call reading
//! and argument stripping, and the host must never fail. Invalid UTF-8 cannot
//! cross this API (it takes `&str`); random bytes are decoded lossily here, and
//! the CLI tests cover bytes that are not UTF-8. Fixed seeds make failures
//! reproducible: `TOOLGATE_FUZZ_SEED=n cargo test --release -p toolgate --test boundary`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::path::PathBuf;
use toolgate::Policy;

#[path = "../../tests/support/rng.rs"]
mod rng;
use rng::Rng;

const SPLICES: &[&str] = &[
    "\"",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\udfff",
    "\u{0}",
    "\u{feff}",
    "\u{202e}",
    "\u{fffd}",
    "😀",
    "\n",
    "\r",
    "\t",
    "$(",
    "`",
    ";",
    "&&",
    "|",
    "'",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "null",
    "1e999",
    "-0",
    "\"risk_level\":\"low\"",
    "\"risk_level\":\"high\"",
    "; rm -rf /",
    "; DROP TABLE t",
    "/*!",
    "*/",
    "--",
    "..",
    "%2e%2e",
    "http://[::1]/",
    "\u{2028}",
];

const TOOLS: &[&str] = &[
    "execute_sql",
    "execute_command",
    "file_operations",
    "http_request",
    "alert_rules_list",
    "alert_mute_create",
    "gh_search",
    "drop_database",
    "",
    " ",
    "EXECUTE_SQL",
    "execute_sql\u{0}",
    "工具",
];

/// Every input of the conformance vectors and the benchmark mix.
fn corpus() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/conformance"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let text = |v: &serde_json::Value| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let args = v
                .get("args")
                .or_else(|| v.get("call"))
                .map(text)
                .unwrap_or_default();
            let tool = v
                .get("tool")
                .and_then(|t| t.as_str())
                .unwrap_or("")
                .to_owned();
            out.push((tool, args));
        }
    }
    assert!(out.len() > 1000, "{} inputs", out.len());
    out
}

fn mutate(rng: &mut Rng, input: &str) -> String {
    let mut bytes = input.as_bytes().to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 => bytes.truncate(at),
            1 => {
                let splice = SPLICES[rng.below(SPLICES.len())];
                bytes.splice(at..at, splice.bytes());
            }
            2 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] = (rng.next() & 0xff) as u8; // may break UTF-8
            }
            3 => {
                let end = (at + rng.below(16)).min(bytes.len());
                let chunk = bytes[at..end].to_vec();
                bytes.splice(at..at, chunk);
            }
            4 => {
                let depth = 1 + rng.below(64);
                let open = if rng.below(2) == 0 { "[" } else { "{\"a\":" };
                bytes.splice(at..at, open.repeat(depth).bytes());
            }
            _ => {
                let noise: Vec<u8> = (0..rng.below(24))
                    .map(|_| (rng.next() & 0xff) as u8)
                    .collect();
                bytes.splice(at..at, noise);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn config() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mix: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/bench/mix.json")).unwrap())
            .unwrap();
    let mut config = mix["config"].clone();
    config["denied_tools"] = serde_json::json!(["drop_database"]);
    config.to_string()
}

#[test]
fn native_and_wasm_agree_on_arbitrary_input() {
    let seed = std::env::var("TOOLGATE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x7001_6a7e_u64);
    let mut rng = Rng(seed | 1);
    let config = config();
    let policy = Policy::embedded().unwrap();
    let wasm = policy.engine(&config).unwrap();
    let native = toolgate_policy::Engine::from_json(&config).unwrap();
    let corpus = corpus();

    let mut inputs: Vec<(String, String)> = Vec::new();
    // Mutated corpus inputs under random and known tool names.
    for _ in 0..2500 {
        let (tool, args) = &corpus[rng.below(corpus.len())];
        let tool = match rng.below(3) {
            0 => TOOLS[rng.below(TOOLS.len())].to_owned(),
            1 => mutate(&mut rng, tool),
            _ => tool.clone(),
        };
        // A quarter keep their arguments intact, so the decided outcomes (and
        // not just parse errors) are compared too.
        let args = if rng.below(4) == 0 {
            args.clone()
        } else {
            mutate(&mut rng, args)
        };
        inputs.push((tool, args));
    }
    // Pure noise, deep nesting, long names, the size limit from both sides.
    for _ in 0..200 {
        let noise: Vec<u8> = (0..rng.below(300))
            .map(|_| (rng.next() & 0xff) as u8)
            .collect();
        inputs.push((
            TOOLS[rng.below(TOOLS.len())].to_owned(),
            String::from_utf8_lossy(&noise).into_owned(),
        ));
    }
    inputs.push(("execute_sql".into(), "[".repeat(100_000)));
    inputs.push((
        "execute_sql".into(),
        format!("{}1{}", "{\"a\":".repeat(50_000), "}".repeat(50_000)),
    ));
    inputs.push(("x".repeat(100_000), "{}".into()));
    let filler = |n: usize| format!(r#"{{"sql":"SELECT '{}'"}}"#, "y".repeat(n));
    inputs.push(("execute_sql".into(), filler(1024 * 1024 - 20)));
    inputs.push(("execute_sql".into(), filler(1024 * 1024)));
    inputs.push(("execute_sql".into(), filler(3 * 1024 * 1024)));

    let mut differences = Vec::new();
    let mut actions = [0_usize; 3];
    for (tool, args) in &inputs {
        let w = wasm.assess(tool, args);
        actions[w.action as usize] += 1;
        assert!(
            !w.has_finding(toolgate::POLICY_FAULT),
            "fault on {tool:?} {args:.200?}: {w:?}"
        );
        let n = serde_json::to_string(&native.assess(tool, args)).unwrap();
        if w.to_json() != n {
            differences.push(format!(
                "{tool:.60?} {args:.200?}\n  wasm   {}\n  native {n}",
                w.to_json()
            ));
        }
        // The same text read as a wire-format tool call and as arguments to strip.
        let w_call = policy
            .parse_call(args)
            .map(|c| c.to_json())
            .map_err(|e| e.to_string());
        let n_call = toolgate_policy::parse_call(args)
            .map(|c| {
                toolgate::ToolCall {
                    tool: c.tool,
                    args: c.args,
                    id: c.id,
                    format: serde_json::from_value(serde_json::to_value(c.format).unwrap())
                        .unwrap(),
                }
                .to_json()
            })
            .map_err(|e| e.to_string());
        assert_eq!(w_call, n_call, "parse_call {args:.200?}");
        let w_strip = policy.strip_risk_level(args).map_err(|e| e.to_string());
        let n_strip = toolgate_policy::strip_risk_level(args).map_err(|e| e.to_string());
        assert_eq!(w_strip, n_strip, "strip_risk_level {args:.200?}");
    }
    // The inputs reach every outcome, not just the parse errors.
    println!("allow, confirm, deny: {actions:?} of {}", inputs.len());
    assert!(
        actions[0] >= 100 && actions[1] >= 100 && actions[2] >= 10,
        "{actions:?}"
    );
    assert!(
        differences.is_empty(),
        "{} of {} differ:\n{}",
        differences.len(),
        inputs.len(),
        differences.join("\n")
    );
}
