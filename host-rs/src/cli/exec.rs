//! `toolgate exec`: decides a command line as `execute_command` and runs what
//! is allowed with bash inside the confinement (`toolgate::confine`); with
//! `--confine-only`, runs it confined without deciding.

use super::{args::Globals, exit, exit_for, load_policy, read_text, render};
use anyhow::Context;
use std::io::Write;
use toolgate::confine::{self, Output, Rights, Settings};
use toolgate::Action;

/// The options and operands of `exec`.
pub struct Exec<'a> {
    pub config: Option<&'a str>,
    pub json: bool,
    pub confine_only: bool,
    pub writable: bool,
    pub line: &'a str,
}

/// Runs `exec`: the line's exit code, or the decision's when it does not run.
pub fn exec(globals: &Globals, options: &Exec<'_>) -> anyhow::Result<u8> {
    let text = match options.config {
        Some(path) => read_text(Some(path))?,
        None => String::from("{}"),
    };
    let mut decided = None;
    let rights = if options.confine_only {
        if options.writable {
            Rights::Write
        } else {
            Rights::Read
        }
    } else {
        let policy = load_policy(globals)?;
        let engine = policy.engine(&text).with_context(|| match options.config {
            Some(path) => format!("configuration {path}"),
            None => String::from("default configuration"),
        })?;
        let args = serde_json::json!({ "command": options.line }).to_string();
        // This executor confines: the policy is told so (never by the model).
        let decision = engine.assess_in("execute_command", &args, confine::CONTEXT);
        if decision.action != Action::Allow {
            let mut out = std::io::stdout().lock();
            if options.json {
                writeln!(out, "{}", decision.to_json())?;
            } else {
                write!(out, "{}", render(&decision))?;
            }
            out.flush()?;
            return Ok(exit_for(&[decision.action]));
        }
        let rights = Rights::for_decision(&decision, false);
        decided = Some(decision);
        rights
    };
    let settings = Settings::from_config(&text, rights)?;
    let output = if options.json {
        Output::Capture
    } else {
        Output::Pass
    };
    let ran = confine::run(options.line, &settings, output)?;
    if options.json {
        let decision = match &decided {
            Some(d) => serde_json::from_str::<serde_json::Value>(&d.to_json())?,
            None => serde_json::Value::Null,
        };
        let result = serde_json::json!({
            "decision": decision,
            "exit_code": ran.status.code(),
            "status": ran.status,
            "stdout": String::from_utf8_lossy(&ran.stdout),
            "stderr": String::from_utf8_lossy(&ran.stderr),
            "confinement": ran.report,
        });
        let mut out = std::io::stdout().lock();
        writeln!(out, "{result}")?;
        out.flush()?;
    } else if !ran.report.stopped.is_empty() {
        eprintln!(
            "toolgate: exec: the confinement stopped: {}",
            ran.report.stopped.join("; ")
        );
    }
    Ok(match ran.status.code() {
        0 => exit::OK,
        code => code,
    })
}
