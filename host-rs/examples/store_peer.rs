//! The Rust gate on an SQLite or PostgreSQL store and audit sink, driven from
//! the command line: the peer the JavaScript host's store tests
//! (`host-js/test/sql-stores.test.js`) run against, so a checkpoint, claim or
//! grant written by one host is read and honoured by the other and both
//! append to one audit chain.
//!
//! `store_peer sqlite STORE_DB AUDIT_DB KEY OP [ARG]` or
//! `store_peer postgres PARAMS PARAMS KEY OP [ARG]`, where OP is
//! `check` (decide a DELETE, leaving it pending), `settle ID` (approve it
//! "always, in this project" and run it), `reject ID`, `pending`, `grants`,
//! `run N` (N allowed calls, each appended to the chain) or `export` (the
//! chain as JSON Lines). Each prints one JSON value; a gate error is printed
//! as `{"error": …, "code": …}`, exit 0, for the test to assert on.

#![allow(clippy::print_stdout, reason = "the peer answers on standard output")]

use std::time::Duration;
use toolgate::gate::audit::AuditSink;
use toolgate::gate::store::CheckpointStore;
use toolgate::{Call, Checked, Gate, GateError, Policy, Response, Scope, ToolResult};

const DELETE: &str = r#"{"sql":"DELETE FROM users WHERE id = 7"}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, store, audit, key, op, rest @ ..] = args.as_slice() else {
        return Err("usage: store_peer sqlite|postgres STORE AUDIT KEY OP [ARG]".into());
    };
    let arg = rest.first().map(String::as_str).unwrap_or_default();
    let out = match kind.as_str() {
        "sqlite" => {
            use toolgate::gate::{audit::SqliteSink, store::SqliteStore};
            if op == "export" {
                print!("{}", SqliteSink::open(audit)?.export()?);
                return Ok(());
            }
            drive(
                SqliteStore::open(store)?,
                SqliteSink::open(audit)?,
                key,
                op,
                arg,
            )?
        }
        "postgres" => {
            use toolgate::gate::postgres::{PostgresSink, PostgresStore};
            if op == "export" {
                print!("{}", PostgresSink::connect(audit)?.export()?);
                return Ok(());
            }
            drive(
                PostgresStore::connect(store)?,
                PostgresSink::connect(audit)?,
                key,
                op,
                arg,
            )?
        }
        other => return Err(format!("no store kind `{other}`").into()),
    };
    println!("{out}");
    Ok(())
}

fn drive(
    store: impl CheckpointStore + 'static,
    sink: impl AuditSink + 'static,
    key: &str,
    op: &str,
    arg: &str,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let policy = Policy::embedded()?;
    let gate = Gate::builder(&policy)
        .store(store)
        .audit(sink)
        .key(key.as_bytes())
        .timeout(Duration::from_secs(3600))
        .build()?;
    Ok(match op {
        "check" => match gate.check(&Call::new("execute_sql", DELETE))? {
            Checked::Ask(pending) => serde_json::json!({"action": "confirm", "id": pending.id}),
            Checked::Run(ready) => {
                let result = gate.execute(ready, |_| Ok(String::from("rust ran it")))?;
                serde_json::json!({"action": "allow", "status": result.status, "output": result.output})
            }
            Checked::Done(result) => serde_json::json!({"action": "deny", "status": result.status}),
        },
        "settle" => answered(gate.settle(
            arg,
            Response::approve_remembered(Scope::Project).by("rust"),
            |_| Ok(String::from("rust ran it")),
        )),
        "reject" => answered(gate.settle(arg, Response::reject(Some("not today")), |_| {
            Err(String::from("a rejected call ran"))
        })),
        "pending" => serde_json::json!(gate
            .pending()?
            .into_iter()
            .map(|p| p.map_or_else(|e| format!("bad: {e}"), |r| r.id))
            .collect::<Vec<_>>()),
        "grants" => serde_json::json!(gate
            .grants()?
            .into_iter()
            .filter(|g| g.grant.is_some())
            .map(|g| g.id)
            .collect::<Vec<_>>()),
        "run" => {
            let times: usize = arg.parse()?;
            let select = Call::new("execute_sql", r#"{"sql":"SELECT 1"}"#);
            for _ in 0..times {
                let result = gate.run(&select, |_| Ok(String::from("1")))?;
                if let Some(error) = result.audit_error {
                    return Err(error.into());
                }
            }
            serde_json::json!(times)
        }
        other => return Err(format!("no operation `{other}`").into()),
    })
}

fn answered(result: Result<ToolResult, GateError>) -> serde_json::Value {
    match result {
        Ok(r) => serde_json::json!({"status": r.status, "output": r.output}),
        Err(e) => serde_json::json!({"error": e.to_string(), "code": format!("{e:?}")}),
    }
}
