//! The SQLite oracle: every statement the policy proves read-only under the
//! `sqlite` dialect or the generic reading (the vectors, plus a deterministic
//! generated sample) is prepared and run against an in-memory fixture database
//! with an authorizer that sees every action SQLite is asked to take. Anything
//! but a read (a write, DDL, `ATTACH`, a pragma that sets, transaction control,
//! a function off the pure allowlist such as `load_extension`) is an effect and
//! fails the test; so is running past the work bound or building a string past
//! the length bound (unbounded work).
//!
//! The authorizer records every effect while a statement compiles; a
//! statement with one is then never stepped, so the engine never performs it
//! and the run stays reproducible; the test then fails. `EXPLAIN` statements
//! (which never run their program) and statements that fail to prepare (which
//! never run at all) are counted, not judged; the latter are listed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Batch, Connection};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use toolgate_oracles::fixture::{schema, Flavor};
use toolgate_oracles::report::Report;
use toolgate_oracles::sql::{vectors, SqlCall, Target};
use toolgate_oracles::sqlgen::sample;

/// Progress-handler calls (each every [`OPS_PER_CALL`] VM instructions) one
/// call may take: about ten million instructions, far beyond any fixture read.
const WORK_BOUND: u64 = 10_000;
const OPS_PER_CALL: i32 = 1_000;
/// The longest string or blob a statement may build (SQLite's own limit is a
/// billion bytes; a bounded read of the fixture needs a few kilobytes).
const LENGTH_BOUND: i32 = 1_000_000;

/// Functions without an effect (SQLite's built-in scalar, aggregate, window,
/// date, JSON and math functions). Anything else the authorizer reports —
/// `load_extension`, `fts3_tokenizer`, an application function — is an effect
/// until someone proves otherwise and adds it here.
const PURE_FUNCTIONS: &[&str] = &[
    "abs",
    "avg",
    "ceil",
    "ceiling",
    "char",
    "coalesce",
    "concat",
    "concat_ws",
    "count",
    "cume_dist",
    "date",
    "datetime",
    "dense_rank",
    "exp",
    "first_value",
    "floor",
    "format",
    "glob",
    "group_concat",
    "hex",
    "ifnull",
    "iif",
    "instr",
    "json",
    "json_array",
    "json_array_length",
    "json_each",
    "json_extract",
    "json_group_array",
    "json_group_object",
    "json_insert",
    "json_object",
    "json_patch",
    "json_quote",
    "json_remove",
    "json_replace",
    "json_set",
    "json_tree",
    "json_type",
    "json_valid",
    "jsonb",
    "julianday",
    "lag",
    "last_value",
    "lead",
    "length",
    "like",
    "likelihood",
    "likely",
    "ln",
    "log",
    "log10",
    "log2",
    "lower",
    "ltrim",
    "max",
    "min",
    "mod",
    "nth_value",
    "ntile",
    "nullif",
    "octet_length",
    "percent_rank",
    "pi",
    "pow",
    "power",
    "printf",
    "quote",
    "random",
    "rank",
    "replace",
    "round",
    "row_number",
    "rtrim",
    "sign",
    "sin",
    "cos",
    "tan",
    "sqrt",
    "strftime",
    "string_agg",
    "substr",
    "substring",
    "sum",
    "time",
    "timediff",
    "total",
    "trim",
    "trunc",
    "typeof",
    "unhex",
    "unicode",
    "unixepoch",
    "unlikely",
    "upper",
    "zeroblob",
    "randomblob",
    "changes",
    "total_changes",
    "last_insert_rowid",
    "sqlite_version",
    "sqlite_source_id",
    "soundex",
    "median",
    "percentile",
    "->",
    "->>",
];

/// Pragmas that only read whatever their argument (the argument names a table
/// or an index), and pragmas that read when given no value.
const READ_PRAGMAS_WITH_ARGUMENT: &[&str] = &[
    "table_info",
    "table_xinfo",
    "index_info",
    "index_xinfo",
    "index_list",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
    "table_list",
];

fn pragma_is_read(name: &str, value: Option<&str>) -> bool {
    let name = name.to_ascii_lowercase();
    value.is_none() || READ_PRAGMAS_WITH_ARGUMENT.contains(&name.as_str())
}

/// The effect an authorizer action stands for, or `None` for a read.
fn effect(ctx: &AuthContext<'_>) -> Option<String> {
    match ctx.action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => None,
        AuthAction::Function { function_name }
            if PURE_FUNCTIONS.contains(&function_name.to_ascii_lowercase().as_str()) =>
        {
            None
        }
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } if pragma_is_read(pragma_name, pragma_value) => None,
        other => Some(format!("authorizer: {other:?}")),
    }
}

/// The in-memory fixture with the authorizer and the bounds installed.
struct Oracle {
    conn: Connection,
    seen: Arc<Mutex<Vec<String>>>,
    steps: Arc<AtomicU64>,
}

impl Oracle {
    fn new() -> Oracle {
        let mut conn = Connection::open_in_memory().unwrap();
        for statement in schema(Flavor::Sqlite) {
            conn.execute_batch(&statement)
                .unwrap_or_else(|e| panic!("fixture: {statement}: {e}"));
        }
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, LENGTH_BOUND)
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        conn.authorizer(Some(move |ctx: AuthContext<'_>| match effect(&ctx) {
            None => Authorization::Allow,
            Some(e) => {
                // Allowed while compiling, so the prepare result is the
                // engine's own; a statement with an effect is then never run.
                log.lock().unwrap().push(e);
                Authorization::Allow
            }
        }))
        .unwrap();
        let steps = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&steps);
        conn.progress_handler(
            OPS_PER_CALL,
            Some(move || counter.fetch_add(1, Ordering::Relaxed) + 1 > WORK_BOUND),
        )
        .unwrap();
        Oracle { conn, seen, steps }
    }

    /// Prepares and runs every statement of `call`, as `sqlite3_exec` would.
    fn run(&self, call: &SqlCall, report: &mut Report) {
        self.seen.lock().unwrap().clear();
        self.steps.store(0, Ordering::Relaxed);
        let mut batch = Batch::new(&self.conn, &call.sql);
        let mut outcome: Result<(), String> = Ok(());
        let mut prepared_any = false;
        let mut effects = Vec::new();
        let mut unprepared_effects = Vec::new();
        loop {
            match batch.next() {
                Ok(Some(mut stmt)) => {
                    prepared_any = true;
                    let seen = std::mem::take(&mut *self.seen.lock().unwrap());
                    // EXPLAIN only describes the program; it never runs it.
                    if stmt.is_explain() > 0 {
                        continue;
                    }
                    if !seen.is_empty() {
                        // Recorded, and not run: the effect stays undone.
                        effects.extend(seen);
                        continue;
                    }
                    if !stmt.readonly() {
                        effects.push("sqlite3_stmt_readonly: the statement writes".to_owned());
                        continue;
                    }
                    let mut rows = stmt.raw_query();
                    loop {
                        match rows.next() {
                            Ok(Some(_)) => {}
                            Ok(None) => break,
                            Err(e) => {
                                outcome = Err(format!("step: {e}"));
                                break;
                            }
                        }
                    }
                    if outcome.is_err() {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    // A statement that does not prepare never runs: what the
                    // authorizer saw while compiling it cannot happen.
                    unprepared_effects = std::mem::take(&mut *self.seen.lock().unwrap());
                    outcome = Err(format!("prepare: {e}"));
                    break;
                }
            }
        }
        for e in &effects {
            report.violation(&call.name, &call.sql, e.clone());
        }
        if !unprepared_effects.is_empty() {
            report.notes.push(format!(
                "did not prepare, so never ran, though compiling it asked for {}: [{}] {}",
                unprepared_effects.join(", "),
                call.name,
                toolgate_oracles::report::one_line(&call.sql)
            ));
        }
        let steps = self.steps.load(Ordering::Relaxed);
        if steps > WORK_BOUND {
            report.violation(
                &call.name,
                &call.sql,
                format!(
                    "work bound exceeded: over {} VM instructions",
                    WORK_BOUND * OPS_PER_CALL as u64
                ),
            );
        }
        match outcome {
            Ok(()) => report.executed += 1,
            Err(e) if e.contains("too big") => {
                report.violation(&call.name, &call.sql, format!("length bound exceeded: {e}"));
                report.executed += 1;
            }
            Err(e) if e.starts_with("prepare") && !prepared_any => {
                if effects.is_empty() {
                    report.prepare_failed(&call.name, &call.sql, &e);
                } else {
                    report.failed_to_prepare += 1;
                }
            }
            Err(_) => report.executed += 1,
        }
        // A statement that left a transaction open would change what the next
        // one does: that is session state, an effect too.
        if !self.conn.is_autocommit() {
            report.violation(&call.name, &call.sql, "left a transaction open");
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

#[test]
fn every_statement_proven_read_only_only_reads_on_sqlite() {
    let gathered = vectors(Target::Sqlite).unwrap();
    let generated = sample(Target::Sqlite, 0x5e1f_0a7c_1e00_0001, 6_000, 300).unwrap();
    let mut report = Report::default();
    report.notes.push(format!(
        "SQLite {}; dialects: sqlite and generic (none configured)",
        rusqlite::version()
    ));
    report.notes.push(format!(
        "inputs: {} vectors proven read-only, {} generated statements proven read-only; \
         {} allowed vectors not judged (allowed by the model's rating or by configuration, not proven)",
        gathered.calls.len(),
        generated.len(),
        gathered.not_proofs
    ));
    let oracle = Oracle::new();
    for call in gathered.calls.iter().chain(&generated) {
        oracle.run(call, &mut report);
    }
    assert!(
        report.executed + report.failed_to_prepare > 0,
        "no statement to run: the vectors hold no allowed SQL"
    );
    if let Err(e) = report.finish("sqlite") {
        panic!("{e}");
    }
}

/// Statements with a known effect, each with a piece of the effect the oracle
/// must report: a blind authorizer or bound fails here instead of passing
/// every statement.
#[test]
fn the_oracle_sees_known_effects() {
    let checks = [
        ("DELETE FROM users", "Delete"),
        ("INSERT INTO users (id) VALUES (9)", "Insert"),
        ("UPDATE users SET name = 'x'", "Update"),
        ("CREATE TABLE x (a)", "sqlite_master"),
        ("DROP VIEW v_users", "sqlite_master"),
        ("ATTACH ':memory:' AS other", "Attach"),
        ("PRAGMA user_version = 5", "Pragma"),
        ("BEGIN", "Transaction"),
        ("SAVEPOINT a", "Savepoint"),
        ("SELECT load_extension('x')", "load_extension"),
        (
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
            "work bound",
        ),
        ("SELECT printf('%.*c', 1000000000, 'x')", "length bound"),
    ];
    let oracle = Oracle::new();
    for (sql, expected) in checks {
        let mut report = Report::default();
        let call = SqlCall {
            name: "self-check".to_owned(),
            sql: sql.to_owned(),
            dialect: None,
        };
        oracle.run(&call, &mut report);
        assert!(
            report
                .violations
                .iter()
                .any(|v| v.effect.contains(expected)),
            "{sql}: expected `{expected}`, saw {:?}",
            report.violations
        );
    }
}
