//! The parse oracles: every statement the policy proves read-only — the
//! vectors, the generator's sample and a lexer fuzzer's texts — is split and
//! classified by each engine's own parser, without running it, and must
//! match the policy's reading: as many statements, each of a kind the engine
//! itself counts as a read. A difference is a violation even where executing
//! the text would do nothing (the target may not exist in the fixture).
//!
//! - DuckDB: `duckdb.extract_statements` (the Python wheel the DuckDB oracle
//!   runs) gives each statement's type;
//! - PostgreSQL: pglast, a maintained binding of libpg_query (PostgreSQL's own
//!   grammar and lexer; its grammar version is newer than the executing
//!   oracle's server, see `oracles/catalog/parser-versions.txt`), gives each
//!   statement's node;
//! - SQLite: a prepare loop over statement tails (`rusqlite::Batch`) against
//!   the fixture schema, with SQLite's own read-only flag per statement.
//!
//! The inputs of each engine are fixed before anything runs: the texts an
//! engine refuses to parse or prepare (another dialect's syntax, a table the
//! fixture lacks) do not apply to it; the report counts and lists them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

#[path = "sqlparse/fuzz.rs"]
mod fuzz;

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::{Batch, Connection};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toolgate_oracles::fixture::{schema, Flavor};
use toolgate_oracles::report::Report;
use toolgate_oracles::sql::{engine_for, proven, vectors, SqlCall, Target};
use toolgate_oracles::sqlgen::sample;
use toolgate_policy::readings::sql_facts;

/// Fuzzed texts proposed to the policy per dialect.
const FUZZ_TEXTS: usize = 4_000;
/// The whole oracle's time cap.
const TIME_CAP: Duration = Duration::from_secs(300);

/// Statement kinds each engine's parser gives a read.
const DUCKDB_READS: &[&str] = &["SELECT", "EXPLAIN", "PRAGMA"];
const POSTGRES_READS: &[&str] = &[
    "SelectStmt",
    "VariableShowStmt",
    "ExplainStmt",
    "CopyToClient",
];

fn python() -> String {
    std::env::var("TOOLGATE_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// The inputs of one engine: vectors, generator and fuzzer, proven read-only
/// under a dialect the engine honours.
fn inputs(target: Target, seed: u64) -> Vec<SqlCall> {
    let mut calls = vectors(target).unwrap().calls;
    calls.extend(sample(target, seed, 3_000, 150).unwrap());
    let texts = fuzz::texts(seed, FUZZ_TEXTS);
    for dialect in target.dialects() {
        let engine = engine_for(dialect).unwrap();
        let label = dialect.unwrap_or("generic");
        for (i, sql) in texts.iter().enumerate() {
            if proven(&engine, sql) {
                calls.push(SqlCall {
                    name: format!("fuzzed {label} #{i}"),
                    sql: sql.clone(),
                    dialect: dialect.map(str::to_owned),
                });
            }
        }
    }
    calls
}

/// The policy's reading of a proven text: how many statements it read (each
/// proven read-only under the call's own configuration before it got here).
fn policy_reading(call: &SqlCall) -> Result<usize, String> {
    let facts = sql_facts(&call.sql, call.dialect.as_deref().unwrap_or("generic"), &[]);
    if facts.statements.is_empty() {
        return Err("the policy proved it but has no statement list for it".to_owned());
    }
    Ok(facts.statements.len())
}

/// Judges one engine's answer for one call.
fn judge(report: &mut Report, call: &SqlCall, answer: &Value, reads: &[&str]) {
    if let Some(error) = answer.get("error").and_then(Value::as_str) {
        report.prepare_failed(&call.name, &call.sql, error);
        return;
    }
    let kinds: Vec<&str> = answer
        .get("kinds")
        .and_then(Value::as_array)
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    report.executed += 1;
    match policy_reading(call) {
        Err(e) => report.violation(&call.name, &call.sql, e),
        Ok(count) if count != kinds.len() => report.violation(
            &call.name,
            &call.sql,
            format!(
                "the engine splits it into {} statement(s) ({}), the policy into {count}",
                kinds.len(),
                kinds.join(", ")
            ),
        ),
        Ok(_) => {
            if let Some(kind) = kinds.iter().find(|k| !reads.contains(k)) {
                report.violation(
                    &call.name,
                    &call.sql,
                    format!("the engine reads a {kind} statement, not a read"),
                );
            }
        }
    }
}

/// Asks the Python parsers about every text; answers by text.
fn python_answers(texts: &[&str]) -> BTreeMap<String, Value> {
    let script = toolgate_oracles::root().join("oracles/tests/sql_parse_oracle.py");
    let mut child = Command::new(python())
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "the parse oracle needs Python with duckdb and pglast ({e}): tests/run-all installs them into target/oracle-python"
            )
        });
    let mut stdin = child.stdin.take().unwrap();
    let owned: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
    let writer = std::thread::spawn(move || {
        for sql in owned {
            writeln!(stdin, "{}", json!({ "sql": sql })).unwrap();
        }
    });
    let mut answers = BTreeMap::new();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    for (line, sql) in stdout.lines().zip(texts) {
        let value: Value = serde_json::from_str(&line.unwrap()).unwrap();
        answers.insert((*sql).to_owned(), value);
    }
    writer.join().unwrap();
    assert!(
        child.wait().unwrap().success(),
        "the parse oracle script failed"
    );
    assert_eq!(
        answers.len(),
        texts
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    answers
}

fn versions() -> String {
    let script = toolgate_oracles::root().join("oracles/tests/sql_parse_oracle.py");
    let out = Command::new(python())
        .arg(&script)
        .arg("--versions")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// SQLite's prepare loop: the kinds (`read`/`write` by SQLite's own read-only
/// flag) of every statement of the text, or the error that stopped it.
fn sqlite_answer(conn: &Connection, sql: &str) -> Value {
    let mut batch = Batch::new(conn, sql);
    let mut kinds = Vec::new();
    loop {
        match batch.next() {
            Ok(Some(statement)) => kinds.push(if statement.readonly() {
                "read"
            } else {
                "write"
            }),
            Ok(None) => return json!({ "kinds": kinds }),
            Err(e) => return json!({ "error": e.to_string() }),
        }
    }
}

#[test]
fn engines_parse_what_the_policy_proves_as_the_policy_does() {
    let started = Instant::now();
    let duck = inputs(Target::Duckdb, 0xd0c6_db00_9a75_0001);
    let pg = inputs(Target::Postgres, 0x9057_6e55_9a75_0001);
    let lite = inputs(Target::Sqlite, 0x5e1f_0a7c_9a75_0001);
    let mut texts: Vec<&str> = duck.iter().chain(&pg).map(|c| c.sql.as_str()).collect();
    texts.sort_unstable();
    texts.dedup();
    let answers = python_answers(&texts);
    let versions = versions();

    let mut failures = Vec::new();
    for (engine, calls, field, reads) in [
        ("parse-duckdb", &duck, "duckdb", DUCKDB_READS),
        ("parse-postgres", &pg, "postgres", POSTGRES_READS),
    ] {
        let mut report = Report::default();
        report.notes.push(format!("parsers: {versions}"));
        report.notes.push(format!(
            "inputs: {} (vectors, generated, fuzzed), fixed before the run",
            calls.len()
        ));
        for call in calls.iter() {
            judge(&mut report, call, &answers[&call.sql][field], reads);
        }
        report
            .notes
            .push("`executed` counts texts the engine's parser read; `failed to prepare` those it refused (they do not apply)".to_owned());
        if let Err(e) = report.finish(engine) {
            failures.push(e);
        }
    }

    let conn = Connection::open_in_memory().unwrap();
    for statement in schema(Flavor::Sqlite) {
        conn.execute_batch(&statement).unwrap();
    }
    let mut report = Report::default();
    report.notes.push(format!(
        "SQLite {} prepare loop over statement tails, fixture schema; inputs: {}",
        rusqlite::version(),
        lite.len()
    ));
    for call in &lite {
        judge(
            &mut report,
            call,
            &sqlite_answer(&conn, &call.sql),
            &["read"],
        );
    }
    if let Err(e) = report.finish("parse-sqlite") {
        failures.push(e);
    }
    let elapsed = started.elapsed();
    eprintln!("parse oracles took {:.1} s", elapsed.as_secs_f64());
    assert!(
        elapsed < TIME_CAP,
        "the parse oracles took {elapsed:?}, past their cap of {TIME_CAP:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
