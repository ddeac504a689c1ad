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
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use toolgate_oracles::fixture::{schema, Flavor, ROWS};
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
    /// Texts no schema makes valid (see [`learn_schema`]).
    unplaceable: BTreeSet<String>,
}

/// Whether a prepare error means the text is not for SQLite at all: another
/// dialect's syntax or functions, another engine's catalog. Such inputs do
/// not apply; the report counts and lists them.
fn not_for_sqlite(error: &str) -> bool {
    const OTHER_CATALOGS: &[&str] = &["pg_", "information_schema.", "duckdb_", "sys.", "mysql."];
    error.contains("syntax error")
        || error.contains("unrecognized token")
        || error.contains("no such function")
        // A table function SQLite lacks, another dialect's row constructor or
        // a function of the same name with another signature.
        || error.contains("is not a function")
        || error.contains("row value misused")
        || error.contains("wrong number of arguments")
        // Text no schema makes valid.
        || error.contains("misuse of aggregate")
        || error.contains("misuse of window function")
        // A table in a schema (another database) SQLite was not given.
        || error.split_once("no such table: ").is_some_and(|(_, name)| {
            name.split_once('.')
                .is_some_and(|(schema, _)| !matches!(schema, "main" | "temp"))
        })
        || error.contains("unknown database")
        || error.contains("no such table function")
        || error
            .split_once("no such table: ")
            .is_some_and(|(_, name)| OTHER_CATALOGS.iter().any(|c| name.starts_with(c)))
}

/// Quotes an identifier for SQLite.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The tables and columns the inputs name that the fixture lacks, learnt from
/// SQLite's own prepare errors before anything runs: each missing table is
/// made with [`ROWS`] rows and no columns of its own, each missing column
/// added to the table the error names with the value 1 on every row, so joins
/// on it fan out (every row matches every row) and a walk over
/// `parent_id = id` meets a cycle. The statements to add them.
fn learn_schema(calls: &[&SqlCall]) -> (Vec<String>, BTreeSet<String>) {
    let conn = Connection::open_in_memory().unwrap();
    for statement in schema(Flavor::Sqlite) {
        conn.execute_batch(&statement).unwrap();
    }
    let tables = |conn: &Connection| -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let mut learnt = Vec::new();
    // Texts naming a column with no table to hold it (`SELECT point '(1,2)'`):
    // no schema makes them valid SQLite.
    let mut unplaceable = BTreeSet::new();
    for call in calls {
        for _ in 0..16 {
            let mut batch = Batch::new(&conn, &call.sql);
            let error = loop {
                match batch.next() {
                    Ok(Some(_)) => {}
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            let Some(error) = error.filter(|e| !not_for_sqlite(e)) else {
                break;
            };
            let known = tables(&conn);
            let words: Vec<&str> = call
                .sql
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .filter(|w| !w.is_empty())
                .collect();
            let is_table = |w: &str| known.iter().any(|t| t.eq_ignore_ascii_case(w));
            // The table an alias stands for: the word before it (`FROM t a`,
            // `JOIN t AS a`).
            let table_of = |alias: &str| -> Option<String> {
                if is_table(alias) {
                    return Some(alias.to_owned());
                }
                words.iter().enumerate().find_map(|(i, w)| {
                    if !w.eq_ignore_ascii_case(alias) || i == 0 {
                        return None;
                    }
                    let before = words[i - 1];
                    let before = if before.eq_ignore_ascii_case("as") && i >= 2 {
                        words[i - 2]
                    } else {
                        before
                    };
                    is_table(before).then(|| before.to_owned())
                })
            };
            // rusqlite adds ` in <statement> at offset <n>` to the message.
            let error = error
                .split_once(" in ")
                .map_or(error.as_str(), |(head, _)| head);
            let ddl = if let Some((_, name)) = error.split_once("no such table: ") {
                let name = name.trim().trim_start_matches("main.");
                (!name.contains('.')).then(|| {
                    let table = quoted(name);
                    let rows = format!("INSERT INTO {table} DEFAULT VALUES;").repeat(ROWS);
                    format!("CREATE TABLE {table} (fixture_row INTEGER); {rows}")
                })
            } else if let Some((_, column)) = error.split_once("no such column: ") {
                let column = column.trim();
                let tables: Vec<String> = match column.rsplit_once('.') {
                    Some((qualifier, _)) => table_of(qualifier).into_iter().collect(),
                    // Unqualified: each table the text names, in order, until
                    // one takes it; none named: a column no schema provides.
                    None => words
                        .iter()
                        .filter(|w| is_table(w))
                        .map(|w| (*w).to_owned())
                        .collect(),
                };
                if tables.is_empty() {
                    unplaceable.insert(call.sql.clone());
                }
                let column = column.rsplit_once('.').map_or(column, |(_, c)| c);
                tables
                    .iter()
                    .map(|t| {
                        format!(
                            "ALTER TABLE {} ADD COLUMN {} DEFAULT 1",
                            quoted(t),
                            quoted(column)
                        )
                    })
                    .find(|ddl| conn.execute_batch(ddl).is_ok())
                    .map(|ddl| format!("-- applied\n{ddl}"))
            } else {
                None
            };
            let Some(ddl) = ddl else { break };
            let ddl = match ddl.strip_prefix("-- applied\n") {
                Some(applied) => applied.to_owned(),
                None => {
                    if conn.execute_batch(&ddl).is_err() {
                        break;
                    }
                    ddl
                }
            };
            learnt.push(ddl);
        }
    }
    (learnt, unplaceable)
}

impl Oracle {
    fn new(learnt: &[String]) -> Oracle {
        let mut conn = Connection::open_in_memory().unwrap();
        for statement in schema(Flavor::Sqlite).iter().chain(learnt) {
            conn.execute_batch(statement)
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
        Oracle {
            conn,
            seen,
            steps,
            unplaceable: BTreeSet::new(),
        }
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
            Err(e)
                if e.starts_with("prepare")
                    && !prepared_any
                    && (not_for_sqlite(&e) || self.unplaceable.contains(&call.sql)) =>
            {
                report.notes.push(format!(
                    "does not apply (not SQLite's syntax, functions or catalog): [{}] {}: {e}",
                    call.name,
                    toolgate_oracles::report::one_line(&call.sql)
                ));
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
    // The inputs are fixed here, before anything runs; the schema is learnt
    // from their names.
    let calls: Vec<&SqlCall> = gathered.calls.iter().chain(&generated).collect();
    let (learnt, unplaceable) = learn_schema(&calls);
    report.notes.push(format!(
        "fixture: the shared schema and {} tables and columns learnt from the inputs' names",
        learnt.len()
    ));
    let mut oracle = Oracle::new(&learnt);
    oracle.unplaceable = unplaceable;
    let mut slowest = (std::time::Duration::ZERO, String::new());
    for call in &calls {
        let started = std::time::Instant::now();
        oracle.run(call, &mut report);
        let took = started.elapsed();
        if took > slowest.0 {
            slowest = (took, call.name.clone());
        }
    }
    let applicable = report.executed + report.failed_to_prepare;
    let share = report.executed as f64 / applicable.max(1) as f64;
    report.notes.push(format!(
        "applicable: {applicable} of {} inputs ({} do not apply); prepared and run: {:.1} %; slowest statement {:.1} ms ({}), each within {} VM instructions and {LENGTH_BOUND}-byte strings",
        calls.len(),
        calls.len() - applicable,
        share * 100.0,
        slowest.0.as_secs_f64() * 1e3,
        slowest.1,
        WORK_BOUND * OPS_PER_CALL as u64
    ));
    assert!(
        applicable > 0,
        "no statement to run: the vectors hold no allowed SQL"
    );
    if let Err(e) = report.finish("sqlite") {
        panic!("{e}");
    }
    assert!(
        share >= 0.95,
        "only {:.1} % of the applicable inputs prepared on SQLite (at least 95 % must): the fixture lacks their names",
        share * 100.0
    );
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
    let oracle = Oracle::new(&[]);
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
