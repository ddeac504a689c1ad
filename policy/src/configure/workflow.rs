//! Seed 004's configuration shape, read as written: a workflow file whose
//! `workflow.config` (a table, or an array of tables as `[[workflow.config]]`
//! writes it) holds a `toolApproval` table:
//!
//! ```toml
//! [[workflow.config]]
//! timeout = 60000
//! maxSteps = 100
//!
//! [workflow.config.toolApproval]
//! autoApprovedTools = ["get_weather", "search_web"]
//! approvalTimeout = 60000
//! ```
//!
//! It maps onto the policy's own settings: `toolApproval` present means
//! `mode: "allowlist"` (only the listed tools, and allow rules, run
//! unasked; every other call waits for a person), `autoApprovedTools` joins
//! `auto_approved_tools`, and `approvalTimeout` (milliseconds) becomes
//! `approval_timeout_ms`. The workflow's other settings (`timeout`,
//! `maxSteps`, …) are the workflow engine's and are left to it. Unknown keys
//! inside `toolApproval` are refused, as everywhere in the configuration.

use crate::config::ConfigError;
use serde_json::{Map, Value};

/// Whether JSON text may hold the `workflow` key (a cheap test that spares
/// the usual configuration a second parse, which would lose line numbers).
pub(super) fn mentions_workflow(text: &str) -> bool {
    text.contains("\"workflow\"")
}

fn bad(path: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Workflow {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The configuration with seed 004's `workflow` key replaced by the
/// settings it means.
pub(super) fn lift(value: Value) -> Result<Value, ConfigError> {
    let Value::Object(mut top) = value else {
        return Err(ConfigError::Invalid {
            path: String::from("."),
            message: String::from("expected an object"),
        });
    };
    let Some(workflow) = top.remove("workflow") else {
        return Ok(Value::Object(top));
    };
    let Value::Object(workflow) = workflow else {
        return Err(bad("workflow", "expected a table"));
    };
    let tables: Vec<Map<String, Value>> = match workflow.get("config") {
        None => Vec::new(),
        Some(Value::Object(table)) => vec![table.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Object(table) => Ok(table.clone()),
                _ => Err(bad("workflow.config", "expected tables")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(bad(
                "workflow.config",
                "expected a table or an array of tables",
            ))
        }
    };
    let mut approval_found = false;
    let mut tools: Vec<Value> = Vec::new();
    let mut timeout: Option<u64> = None;
    for table in &tables {
        let Some(approval) = table.get("toolApproval") else {
            continue;
        };
        let path = "workflow.config.toolApproval";
        let Value::Object(approval) = approval else {
            return Err(bad(path, "expected a table"));
        };
        approval_found = true;
        for (key, value) in approval {
            match key.as_str() {
                "autoApprovedTools" => {
                    let Value::Array(items) = value else {
                        return Err(bad(
                            &format!("{path}.autoApprovedTools"),
                            "expected an array of tool names",
                        ));
                    };
                    for item in items {
                        if item.as_str().is_none_or(str::is_empty) {
                            return Err(bad(
                                &format!("{path}.autoApprovedTools"),
                                "each tool name must be a non-empty string",
                            ));
                        }
                        tools.push(item.clone());
                    }
                }
                "approvalTimeout" => {
                    let Some(ms) = value.as_u64() else {
                        return Err(bad(
                            &format!("{path}.approvalTimeout"),
                            "expected a whole number of milliseconds",
                        ));
                    };
                    if timeout.is_some_and(|t| t != ms) {
                        return Err(bad(
                            &format!("{path}.approvalTimeout"),
                            "two tables set different timeouts",
                        ));
                    }
                    timeout = Some(ms);
                }
                other => {
                    return Err(bad(
                        &format!("{path}.{other}"),
                        "unknown field, expected `autoApprovedTools` or `approvalTimeout`",
                    ))
                }
            }
        }
    }
    if !approval_found {
        return Ok(Value::Object(top));
    }
    match top.get("mode") {
        None => {
            top.insert(String::from("mode"), Value::from("allowlist"));
        }
        Some(Value::String(mode)) if mode == "allowlist" => {}
        Some(_) => {
            return Err(bad(
                "mode",
                "`workflow.config.toolApproval` means the allowlist mode; another `mode` contradicts it",
            ))
        }
    }
    if let Some(ms) = timeout {
        if top
            .get("approval_timeout_ms")
            .is_some_and(|v| v.as_u64() != Some(ms))
        {
            return Err(bad(
                "approval_timeout_ms",
                "contradicts `workflow.config.toolApproval.approvalTimeout`",
            ));
        }
        top.insert(String::from("approval_timeout_ms"), Value::from(ms));
    }
    let listed = top
        .entry(String::from("auto_approved_tools"))
        .or_insert_with(|| Value::Array(Vec::new()));
    match listed {
        Value::Array(items) => items.extend(tools),
        _ => return Err(bad("auto_approved_tools", "expected an array")),
    }
    Ok(Value::Object(top))
}
