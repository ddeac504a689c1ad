//! Benign by evidence: the EXAMPLES sections of the installed manual pages of
//! the programs on the read-only list (`tests/examples/man-pages.jsonl`,
//! every example line each section gives, each with its source and a label:
//! `read-only` or what else it does). The report is the share of bounded
//! read-only examples the default policy allows without a model rating; the
//! test holds that no example labelled otherwise is allowed, and that the
//! share does not fall below the figure measured when the set was taken.
//!
//! The same examples are assessed confined (`{"confined": true}`) and that
//! share is reported beside the default one; no example labelled otherwise
//! may be allowed in either context.
//!
//! Run `cargo test --release --locked -p toolgate-policy --test examples --
//! --nocapture` to see the share and every read-only example still refused.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::{json, Value};
use toolgate_policy::{Action, Engine, Source};

/// The share of bounded read-only examples allowed (in per mille): 785 when
/// the set was taken, 925 once lsof, ps, unzip, od and shallow find grew their
/// documented forms; 908 of the completed set (the examples of cat, numfmt,
/// look, pgrep, lsof, locale, timedatectl, find and date the first take
/// missed: 120 bounded read-only of 149); 975 once df -B, $HOME as a path,
/// brace lists, pgrep's comma list and LOCPATH=~/.locale grew. 14 lsof
/// examples are labelled as looking up host names: without `-n` lsof asks
/// the resolver for the name of every network address it lists (lsof(8)),
/// so they are not read-only (105 of 106 then). The test fails if a change
/// lowers it.
const FLOOR_PER_MILLE: usize = 975;

#[test]
fn documented_examples() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("tests").join("examples").join("man-pages.jsonl"))
        .unwrap();
    let engine = Engine::default();
    let confined = r#"{"confined": true}"#;
    let (mut read_only, mut allowed, mut allowed_confined) = (0usize, 0usize, 0usize);
    let mut refused = Vec::new();
    let mut wrongly = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let command = v["command"].as_str().unwrap();
        let label = v["label"].as_str().unwrap();
        let args = json!({ "command": command }).to_string();
        let decision = engine.assess("execute_command", &args);
        let proven = decision.action == Action::Allow && decision.source == Source::Whitelist;
        // The same call run confined (`toolgate exec`: the working tree's
        // secrets masked): reported beside the default figure.
        let in_confinement = engine.assess_in("execute_command", &args, confined);
        let proven_confined =
            in_confinement.action == Action::Allow && in_confinement.source == Source::Whitelist;
        if label == "read-only" {
            read_only += 1;
            allowed_confined += usize::from(proven_confined);
            if proven {
                allowed += 1;
            } else {
                let codes: Vec<&str> = decision.findings.iter().map(|f| f.code.as_str()).collect();
                refused.push(format!("{command}  [{}] {codes:?}", v["source"]));
            }
        } else if proven || proven_confined {
            wrongly.push(format!("{command} ({label})"));
        }
    }
    let per_mille = allowed * 1000 / read_only.max(1);
    let confined_per_mille = allowed_confined * 1000 / read_only.max(1);
    eprintln!(
        "documented examples, confined: {allowed_confined} of {read_only} allowed ({}.{}%)",
        confined_per_mille / 10,
        confined_per_mille % 10
    );
    eprintln!(
        "documented examples: {allowed} of {read_only} bounded read-only examples allowed ({}.{}%); refused:\n  {}",
        per_mille / 10,
        per_mille % 10,
        refused.join("\n  ")
    );
    assert!(
        wrongly.is_empty(),
        "examples that write, run, change or never end were allowed:\n{}",
        wrongly.join("\n")
    );
    assert!(
        per_mille >= FLOOR_PER_MILLE,
        "the share fell to {per_mille} per mille (floor {FLOOR_PER_MILLE})"
    );
}
