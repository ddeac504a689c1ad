//! A deterministic mutation fuzzer over the whole `assess` path: every
//! conformance input, mutated with shell and SQL metacharacters, truncated,
//! spliced and nested, through every assessor. It checks what must hold for any
//! input: no panic (a panic is a trap in the component), a one-line summary, and
//! that appending a destructive command or statement to anything never yields
//! an allow. Fixed seeds make every failure reproducible.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::{json, Value};
use toolgate_policy::{Action, Engine};

#[path = "../../tests/support/rng.rs"]
mod rng;
use rng::Rng;

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
    "${!",
    "@P}",
    "$((",
    "#",
    "*",
    "?",
    "~",
    "=",
    "FOO=1 ",
    " -delete",
    " -exec rm {} ;",
    " -o out",
    "--output=x",
    "/*!",
    "*/",
    "--",
    "/*",
    "$$",
    "'';",
    "E'",
    "::",
    " UNION SELECT ",
    " INTO ",
    " FOR UPDATE",
    "pg_sleep(1)",
    "(SELECT ",
    "WITH x AS (",
    "DELETE FROM t",
    "\u{0}",
    "\u{7f}",
    "\u{202e}",
    "é",
    "屏蔽",
    "\u{feff}",
    "%00",
    "..",
    "/",
    "//",
    "http://",
    "[::ffff:",
    "0x7f.1",
    "@",
    "#frag",
    "?q=",
    " ",
    "\t",
    "rm",
    "sudo ",
];

fn seeds() -> Vec<(String, String)> {
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
            let tool = v["tool"].as_str().unwrap_or("").to_owned();
            if let Some(args) = v["args"].as_object() {
                for value in args.values() {
                    if let Some(text) = value.as_str() {
                        out.push((tool.clone(), text.to_owned()));
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(6) {
            0 | 1 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                chars.splice(at..at, token.chars());
            }
            2 if !chars.is_empty() => {
                let end = (at + rng.below(8)).min(chars.len());
                chars.drain(at.min(end)..end);
            }
            3 => chars.truncate(at),
            4 if !chars.is_empty() => {
                let from = rng.below(chars.len());
                let piece: Vec<char> =
                    chars[from..(from + rng.below(12)).min(chars.len())].to_vec();
                chars.splice(at..at, piece);
            }
            _ => {
                let depth = rng.below(40);
                let open: String = "(".repeat(depth);
                let close: String = ")".repeat(depth);
                chars.splice(at..at, format!("{open}1{close}").chars());
            }
        }
    }
    chars.into_iter().collect()
}

fn field(tool: &str) -> &'static str {
    match tool {
        "execute_sql" => "sql",
        "execute_command" => "command",
        "http_request" => "url",
        _ => "path",
    }
}

#[test]
fn no_input_panics_and_destructive_suffixes_never_allow() {
    let engine = Engine::default();
    let seeds = seeds();
    assert!(seeds.len() > 500, "only {} seeds", seeds.len());
    let mut rng = Rng(std::env::var("TOOLGATE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x7001_6a7e_5eed_0001));
    let mut runs = 0;
    for round in 0..40 {
        for (tool, text) in &seeds {
            let mutated = if round == 0 {
                text.clone()
            } else {
                mutate(&mut rng, text)
            };
            for tool in [tool.as_str(), "execute_sql", "execute_command"] {
                let mut args = json!({ field(tool): mutated });
                if tool == "http_request" {
                    args["method"] = json!("GET");
                }
                if tool == "file_operations" {
                    args["operation"] = json!("read");
                }
                if rng.below(4) == 0 {
                    args["risk_level"] = [
                        json!("low"),
                        json!("medium"),
                        json!("high"),
                        json!("LOW"),
                        json!(5),
                    ][rng.below(5)]
                    .clone();
                }
                let decision = engine.assess(tool, &args.to_string());
                assert!(
                    !decision.summary.contains('\n'),
                    "{tool} {mutated:?}: {}",
                    decision.summary
                );
                assert!(!decision.findings.is_empty(), "{tool} {mutated:?}");
                runs += 1;
            }
            // Whatever comes first, a destructive command or statement after it
            // must never run unconfirmed, not even when the model says low. The
            // suffixes start a new line, so a trailing line comment cannot hide
            // them (as it hides them from the server too); two newlines because a
            // trailing backslash joins one line to the next.
            for (tool, suffix) in [
                ("execute_command", "\n\nrm -rf /"),
                ("execute_sql", "\n;\nDROP TABLE users"),
            ] {
                let args =
                    json!({ field(tool): format!("{mutated}{suffix}"), "risk_level": "low" });
                let mut decision = engine.assess(tool, &args.to_string());
                if decision.action == Action::Allow && mutated.contains("<<") {
                    // A here-document whose delimiter is the suffix's line
                    // swallows it (`eval<< 'rm -rf /'""` then `rm -rf /` ends
                    // the document: bash, dash and zsh run nothing). A second
                    // destructive line after it must still be caught.
                    let args = json!({
                        field(tool): format!("{mutated}{suffix}{}", if tool == "execute_command" { "\nrm -rf ~" } else { "\n;\nDROP TABLE orders" }),
                        "risk_level": "low"
                    });
                    decision = engine.assess(tool, &args.to_string());
                }
                assert_ne!(
                    decision.action,
                    Action::Allow,
                    "{tool} {mutated:?}{suffix:?} was allowed"
                );
                runs += 1;
            }
        }
    }
    eprintln!("fuzz: {runs} decisions");
    assert!(runs > 20_000);
}

#[test]
fn raw_argument_texts_never_panic() {
    let engine = Engine::default();
    let mut rng = Rng(0x5eed_0000_0000_0002);
    let alphabet: Vec<char> = "{}[]\":,0123456789.eE+-tfnul\\ sqlcommand_risklevel"
        .chars()
        .collect();
    for _ in 0..20_000 {
        let len = rng.below(64);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for tool in [
            "execute_sql",
            "execute_command",
            "file_operations",
            "http_request",
            "other",
        ] {
            let decision = engine.assess(tool, &text);
            assert!(!decision.summary.contains('\n'));
        }
    }
}
