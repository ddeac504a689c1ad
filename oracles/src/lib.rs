//! The oracles: every call the policy allows is run against the real thing (a
//! shell under a system-call tracer, a real database engine) and the effects it
//! had are the judge. This library only gathers the calls; each oracle is a test
//! in `tests/` that knows how to run one kind.
//!
//! The calls come from the conformance vectors (`tests/conformance/*.jsonl`),
//! decided natively: the cross-runtime tests prove the component decides the
//! same bytes in every runtime, so an allow found here is an allow everywhere.

pub mod hostile;
pub mod judge;
pub mod sandbox;
pub mod trace;

use serde_json::Value;
use std::path::{Path, PathBuf};
use toolgate_policy::{Action, Engine, Source};

/// One call the policy allowed.
#[derive(Clone, Debug)]
pub struct Allowed {
    /// The vector's name, for failure messages.
    pub name: String,
    /// The tool's arguments, as the vector holds them.
    pub args: Value,
    /// The configuration the vector ran under, if any.
    pub config: Option<Value>,
    /// Why it was allowed: a proof (`Whitelist`, `Registry`), the model's
    /// rating (`Llm`) or the configuration.
    pub source: Source,
}

/// The workspace root: the directory holding `tests/conformance` and `wit`.
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|dir| dir.join("tests").join("conformance").is_dir() && dir.join("wit").is_dir())
        .map_or_else(|| here.to_path_buf(), Path::to_path_buf)
}

/// Every `assess` vector of `file` for `tool` that the policy allows today.
///
/// # Errors
/// A message when the vector file cannot be read or a line is not JSON.
pub fn allowed(file: &str, tool: &str) -> Result<Vec<Allowed>, String> {
    let path = root().join("tests").join("conformance").join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{file}:{}: {e}", i + 1))?;
        if v.get("kind").and_then(Value::as_str).unwrap_or("assess") != "assess"
            || v.get("tool").and_then(Value::as_str) != Some(tool)
        {
            continue;
        }
        let config = v.get("config").cloned();
        let engine = match &config {
            Some(c) => {
                Engine::from_text(&c.to_string()).map_err(|e| format!("{file}:{}: {e}", i + 1))?
            }
            None => Engine::default(),
        };
        let args = v.get("args").cloned().unwrap_or(Value::Null);
        let args_text = match &args {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let decision = engine.assess(tool, &args_text);
        if decision.action == Action::Allow {
            out.push(Allowed {
                source: decision.source,
                name: v
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                // Arguments written as JSON text are judged as the value
                // they hold, like those written as an object.
                args: match &args {
                    Value::String(s) => serde_json::from_str(s).unwrap_or(args),
                    _ => args,
                },
                config,
            });
        }
    }
    Ok(out)
}

pub mod fixture;
pub mod forms;
pub mod pgcluster;
pub mod report;
/// The deterministic generator the fuzz tests share (xorshift64*), for the
/// SQL and command generators.
#[path = "../../tests/support/rng.rs"]
mod rng;
pub mod sql;
pub mod sqlgen;
