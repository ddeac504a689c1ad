//! A real shell judges the parser: every command line toolgate allows — each
//! command vector and each case the fuzzer's mutations produce from them —
//! must be one `bash -n` accepts. A line bash rejects must never be allowed
//! (`command.syntax` covers what the parser itself refuses).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use toolgate_policy::{Action, Engine};

#[path = "../../tests/support/rng.rs"]
mod rng;
use rng::Rng;

/// Shell metacharacters and shapes the mutations insert.
const TOKENS: &[&str] = &[
    ";",
    "&&",
    "||",
    "|",
    "|&",
    "&",
    "\n",
    "$(",
    ")",
    "`",
    "'",
    "\"",
    "\\",
    "(",
    "{",
    "}",
    "[",
    "]",
    "<<",
    "<<<",
    ">",
    ">>",
    "2>&1",
    "&>",
    "<(",
    ">(",
    "${",
    "$((",
    "#",
    "*",
    "?",
    "~",
    "=",
    " ",
    "\t",
    ";;",
    "fi",
    "done",
    "do",
    "then",
    "if ",
    "for x in a; do ",
    "case a in ",
    "esac",
    "{ ",
    " }",
    "$'",
    "!",
    "[[ ",
    " ]]",
    "((",
    "))",
    "\\\n",
    "<<'E'\nx\nE\n",
    "<<E\n",
];

fn command_lines() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/conformance");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["tool"] != "execute_command" {
                continue;
            }
            if let Some(text) = v["args"]["command"].as_str() {
                out.push(text.to_owned());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(4) {
            0 | 1 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                chars.splice(at..at, token.chars());
            }
            2 if !chars.is_empty() => {
                let end = (at + rng.below(6)).min(chars.len());
                chars.drain(at.min(end)..end);
            }
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

/// The lines bash rejects, out of `lines`, checked in one bash process: each
/// line is given to `bash -n` through a here-document-free wrapper (a quoted
/// argument to a function that runs `bash -n -c`).
fn rejected_by_bash(lines: &[String]) -> Vec<String> {
    let mut rejected = Vec::new();
    for chunk in lines.chunks(200) {
        let mut script = String::new();
        for (i, line) in chunk.iter().enumerate() {
            let quoted = line.replace('\'', "'\\''");
            script.push_str(&format!(
                "bash -n -c '{quoted}' 2>/dev/null </dev/null || echo {i}\n"
            ));
        }
        let mut child = Command::new("bash")
            .arg("-s")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("bash is installed");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        for index in String::from_utf8_lossy(&output.stdout).lines() {
            if let Some(line) = index
                .trim()
                .parse::<usize>()
                .ok()
                .and_then(|i| chunk.get(i))
            {
                rejected.push(line.clone());
            }
        }
    }
    rejected
}

#[test]
fn bash_accepts_every_allowed_line() {
    let engine = Engine::default();
    let seeds = command_lines();
    assert!(seeds.len() > 500, "only {} command lines", seeds.len());
    let mut rng = Rng(0x5b11_0000_0000_0001);
    let mut allowed = Vec::new();
    let mut cases = 0;
    for round in 0..12 {
        for seed in &seeds {
            let line = if round == 0 {
                seed.clone()
            } else {
                mutate(&mut rng, seed)
            };
            // NUL cannot reach bash through an argument.
            if line.contains('\0') {
                continue;
            }
            cases += 1;
            let args = json!({ "command": line });
            if engine.assess("execute_command", &args.to_string()).action == Action::Allow {
                allowed.push(line);
            }
        }
    }
    allowed.sort();
    allowed.dedup();
    let rejected = rejected_by_bash(&allowed);
    eprintln!(
        "shell syntax: {cases} lines, {} allowed, {} of them rejected by bash",
        allowed.len(),
        rejected.len()
    );
    assert!(
        rejected.is_empty(),
        "bash rejects lines toolgate allowed:\n{}",
        rejected
            .iter()
            .map(|l| format!("{l:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
