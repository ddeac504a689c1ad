//! The conformance runner shared by the Rust runtimes (the policy crate natively
//! and the host through wasmtime). Each runtime passes a function that decides
//! one case and returns the decision's canonical JSON; the runner checks every
//! expectation, counts the cases, and writes the decisions to
//! `target/conformance/<runtime>.jsonl` for the cross-runtime comparison.
//!
//! Vector format, one JSON object a line in `tests/conformance/*.jsonl`:
//! `{"name", "reason"?, "config"?, "tool", "args" (object, or a string sent
//!   verbatim), "expect": {"action"?, "risk"?, "source"?, "findings"?: [codes, in
//!   order], "includes"?: [codes that must appear]}}`; an absent key is not checked,
//!   but every case checks at least its action.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// One conformance case.
pub struct Case {
    pub file: String,
    pub name: String,
    pub config: Option<String>,
    pub tool: String,
    pub args: String,
    pub expect: Value,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("tests").join("conformance").is_dir() && dir.join("wit").is_dir())
        .expect("the workspace root")
        .to_path_buf()
}

/// Every case of every vector file, files in name order, lines in file order.
pub fn cases() -> Vec<Case> {
    let dir = root().join("tests").join("conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/conformance")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("vector file");
        let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{file_name}:{}: {e}", i + 1));
            let args = match &v["args"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            cases.push(Case {
                file: file_name.clone(),
                name: v["name"].as_str().expect("name").to_owned(),
                config: v.get("config").map(|c| c.to_string()),
                tool: v["tool"].as_str().expect("tool").to_owned(),
                args,
                expect: v["expect"].clone(),
            });
        }
    }
    cases
}

/// Runs every case through `decide` and checks it. Panics with every failure
/// listed, so one run shows them all.
pub fn run(runtime: &str, decide: impl Fn(&Case) -> String) {
    let cases = cases();
    assert!(
        cases.len() >= 80,
        "only {} conformance cases found",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut lines = String::new();
    for case in &cases {
        let json = decide(case);
        lines.push_str(&json);
        lines.push('\n');
        let got: Value = serde_json::from_str(&json).expect("decision JSON");
        assert!(
            case.expect.get("action").is_some(),
            "{} / {}: no expected action",
            case.file,
            case.name
        );
        let codes: Vec<&str> = got["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["code"].as_str().expect("code"))
            .collect();
        for key in ["action", "risk", "source"] {
            if case.expect.get(key).is_some_and(|want| got[key] != *want) {
                failures.push(format!(
                    "{} / {}: {key} is {}, expected {}",
                    case.file, case.name, got[key], case.expect[key]
                ));
            }
        }
        if let Some(want) = case.expect.get("findings") {
            let want_codes: Vec<&str> = want
                .as_array()
                .expect("expected findings")
                .iter()
                .map(|c| c.as_str().expect("code"))
                .collect();
            if codes != want_codes {
                failures.push(format!(
                    "{} / {}: findings {codes:?}, expected {want_codes:?}",
                    case.file, case.name
                ));
            }
        }
        if let Some(want) = case.expect.get("includes") {
            for code in want
                .as_array()
                .expect("includes")
                .iter()
                .map(|c| c.as_str().expect("code"))
            {
                if !codes.contains(&code) {
                    failures.push(format!(
                        "{} / {}: findings {codes:?} lack {code}",
                        case.file, case.name
                    ));
                }
            }
        }
        let summary = got["summary"].as_str().expect("summary");
        if summary.is_empty() || summary.contains('\n') {
            failures.push(format!(
                "{} / {}: summary {summary:?} is not one line",
                case.file, case.name
            ));
        }
    }
    let out_dir = root().join("target").join("conformance");
    std::fs::create_dir_all(&out_dir).expect("target/conformance");
    std::fs::write(out_dir.join(format!("{runtime}.jsonl")), lines).expect("write decisions");
    eprintln!("{runtime}: {} conformance cases run", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
