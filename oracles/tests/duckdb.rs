//! The DuckDB oracle: every statement the policy proves read-only under the
//! `duckdb` dialect or the generic reading (the vectors, plus a deterministic
//! generated sample) runs on an in-memory DuckDB through its Python package
//! (`duckdb_oracle.py`; DuckDB has no Debian package, and the PyPI wheel
//! carries the engine with its core extensions, so nothing downloads at build
//! or run time). The process runs under a system-call tracer; any file a
//! statement touches outside what a benign workload touches (DuckDB reads host
//! files through replacement scans and table functions), any change to
//! settings, attached databases, catalog, sequences, extensions, secrets or
//! table contents, a transaction left open, the two-second interrupt or the
//! memory limit hit, is an effect and fails the test.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use toolgate_oracles::fixture::{schema, Flavor, TABLES};
use toolgate_oracles::report::Report;
use toolgate_oracles::sql::{vectors, SqlCall, Target};
use toolgate_oracles::sqlgen::sample;

/// Statements that touch only what any statement touches.
const BENIGN: &[&str] = &[
    "SELECT 1",
    "SELECT * FROM users u JOIN orders o USING (id)",
    "SELECT now(), strftime(now(), '%Y'), md5('x')",
    "SELECT * FROM no_such_table",
    "SELECT count(*) FROM duckdb_tables()",
    "SELECT data->>'name' FROM documents",
];

/// Statements with a known effect, each with a piece of the effect its
/// observer must report: run after the learning and before the calls, so a
/// blind observer fails the test instead of passing every statement.
const SELF_CHECK: &[(&str, &str)] = &[
    ("CREATE TABLE oracle_x (a INTEGER)", "tables"),
    ("DELETE FROM audit WHERE id = 3", "table contents"),
    ("SET threads = 2", "settings"),
    ("ATTACH ':memory:' AS oracle_other", "databases"),
    (
        "CREATE SEQUENCE oracle_s; SELECT nextval('oracle_s')",
        "sequences",
    ),
    ("CREATE MACRO oracle_m(a) AS a + 1", "functions"),
    ("BEGIN", "left a transaction open"),
    ("SELECT * FROM read_csv('/etc/hostname')", "host files: "),
    ("SELECT count(*) FROM range(100000000000)", "unbounded"),
];

/// The Python interpreter with DuckDB's package: `TOOLGATE_PYTHON` or `python3`.
fn python() -> String {
    std::env::var("TOOLGATE_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// `(syscall, path)` of each traced line whose path is absolute.
fn paths(lines: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in lines {
        let Some(start) = line.find('"') else {
            continue;
        };
        let rest = &line[start + 1..];
        let Some(end) = rest.find('"') else {
            continue;
        };
        let path = &rest[..end];
        if !path.starts_with('/') || path.starts_with("/toolgate-oracle-mark/") {
            continue;
        }
        let call = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.split('(').next())
            .unwrap_or("?");
        out.push((call.to_owned(), path.to_owned()));
    }
    out
}

/// Up to five entries, and how many more.
fn listed(items: &BTreeSet<String>) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    match items.len().saturating_sub(5) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The trace lines between the start and end markers of `tag`.
fn between<'t>(trace: &[&'t str], tag: &str) -> Vec<&'t str> {
    let start = format!("/toolgate-oracle-mark/{tag}\"");
    let end = format!("/toolgate-oracle-mark/end-{tag}\"");
    trace
        .iter()
        .skip_while(|l| !l.contains(&start))
        .skip(1)
        .take_while(|l| !l.contains(&end))
        .copied()
        .collect()
}

/// One run of the DuckDB side under the tracer: the fixture, the learning,
/// the self-check and `calls`, each statement between its trace markers.
struct Run {
    /// What the Python side printed, a JSON value a line.
    lines: Vec<Value>,
    /// The system-call trace.
    trace: String,
    /// Path prefixes never judged (the interpreter's and DuckDB's own files,
    /// the run's scratch directory).
    ignore: Vec<String>,
    /// Paths the benign workload touched.
    learnt: BTreeSet<String>,
}

/// A phase line's statement index.
fn index(v: &Value) -> usize {
    usize::try_from(v.get("i").and_then(Value::as_u64).unwrap()).unwrap()
}

impl Run {
    fn new(python: &str, tables: &[&str], calls: &[SqlCall]) -> Run {
        let job = json!({
            "fixture": schema(Flavor::Duckdb),
            "tables": tables,
            "learn": BENIGN,
            "check": SELF_CHECK.iter().map(|(sql, _)| *sql).collect::<Vec<_>>(),
            "call": calls.iter().map(|c| c.sql.clone()).collect::<Vec<_>>(),
        });
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("toolgate-duckdb-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("job.json");
        let trace_path = dir.join("trace.log");
        std::fs::write(&input, job.to_string()).unwrap();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/duckdb_oracle.py");
        let out = Command::new("strace")
            .args(["-f", "-qq", "--seccomp-bpf", "-e", "trace=%file", "-o"])
            .arg(&trace_path)
            .arg(python)
            .arg(script)
            .stdin(std::fs::File::open(&input).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .current_dir(&dir)
            .output()
            .unwrap();
        let trace = std::fs::read_to_string(&trace_path).unwrap_or_default();
        let _ = std::fs::remove_dir_all(&dir);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<Value> = stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        assert!(
            out.status.success(),
            "the DuckDB side failed: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let mut ignore: Vec<String> = lines
            .iter()
            .find_map(|v| v.get("ignore_prefixes").and_then(Value::as_array).cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect();
        ignore.push(dir.display().to_string());
        let mut run = Run {
            lines,
            trace,
            ignore,
            learnt: BTreeSet::new(),
        };
        let trace: Vec<&str> = run.trace.lines().collect();
        let mut learnt = BTreeSet::new();
        for i in 0..BENIGN.len() {
            for (_, path) in paths(&between(&trace, &format!("learn-{i}"))) {
                learnt.insert(path);
            }
        }
        run.learnt = learnt;
        run
    }

    /// The lines of one phase (`learn`, `check`, `call`).
    fn phase<'r>(&'r self, name: &'r str) -> impl Iterator<Item = &'r Value> + 'r {
        self.lines
            .iter()
            .filter(move |v| v.get("phase").and_then(Value::as_str) == Some(name))
    }

    /// What statement `v` (marked `tag` in the trace) did: changes to the
    /// state, an interrupt or the memory limit, host files touched.
    fn effects(&self, v: &Value, tag: &str) -> Vec<String> {
        let status = v.get("status").and_then(Value::as_str).unwrap_or("");
        let error = v.get("error").and_then(Value::as_str).unwrap_or("");
        let mut effects: Vec<String> = v
            .get("changes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|c| {
                        if c.starts_with("left ") {
                            c.to_owned()
                        } else {
                            format!("changed {c}")
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        match status {
            "timeout" => effects.push(format!("unbounded: interrupted after 2s: {error}")),
            "out of memory" => effects.push(format!("unbounded: {error}")),
            _ => {}
        }
        let trace: Vec<&str> = self.trace.lines().collect();
        let outside = |path: &str| !self.ignore.iter().any(|p| path.starts_with(p.as_str()));
        let touched: BTreeSet<String> = paths(&between(&trace, tag))
            .into_iter()
            .filter(|(_, p)| outside(p) && !self.learnt.contains(p))
            .map(|(c, p)| format!("{c} {p}"))
            .collect();
        if !touched.is_empty() {
            effects.push(format!("touched host files: {}", listed(&touched)));
        }
        effects
    }
}

#[test]
fn every_statement_proven_read_only_has_no_effect_on_duckdb() {
    let python = python();
    let probe = Command::new(&python)
        .args(["-c", "import duckdb; print(duckdb.__version__)"])
        .output();
    let version = match probe {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        _ => panic!(
            "the DuckDB oracle needs DuckDB's Python package for `{python}`: \
             `{python} -m pip install duckdb==2.0.0` (.ci/run does), or point TOOLGATE_PYTHON \
             at an interpreter that has it"
        ),
    };
    assert!(
        std::path::Path::new("/usr/bin/strace").exists(),
        "the DuckDB oracle needs strace: install Debian's strace (.ci/run does)"
    );
    let gathered = vectors(Target::Duckdb).unwrap();
    let generated = sample(Target::Duckdb, 0xd0c6_db00_0a7c_1e01, 6_000, 120).unwrap();
    let calls: Vec<SqlCall> = gathered.calls.iter().chain(&generated).cloned().collect();
    // DuckDB folds quoted names' case like unquoted ones (see the fixture).
    let tables: Vec<&str> = TABLES
        .iter()
        .copied()
        .filter(|t| !t.starts_with('"'))
        .collect();
    let first = Run::new(&python, &tables, &calls);
    let learnt = &first.learnt;

    let mut report = Report::default();
    report.notes.push(format!(
        "DuckDB {version} (Python package); dialects: duckdb and generic (none configured)"
    ));
    report.notes.push(format!(
        "inputs: {} vectors proven read-only, {} generated statements proven read-only; \
         {} allowed vectors not judged (allowed by the model's rating or by configuration, not proven)",
        gathered.calls.len(),
        generated.len(),
        gathered.not_proofs
    ));
    report.notes.push(format!(
        "paths a benign workload touches (learnt, not judged): {}",
        learnt.iter().cloned().collect::<Vec<_>>().join(" ")
    ));
    // A statement with an effect is run again, alone with the others that
    // had one, in a fresh process: an effect that a second run does not show
    // (a two-second interrupt on a loaded machine, a thread's stray access)
    // is noted, one it shows again is a violation. DuckDB's effects of a
    // statement (a file read, a setting changed) are not left to chance.
    let effected: Vec<usize> = first
        .phase("call")
        .filter(|v| !first.effects(v, &format!("call-{}", index(v))).is_empty())
        .map(index)
        .collect();
    let again: Vec<SqlCall> = effected.iter().map(|&i| calls[i].clone()).collect();
    let second = (!again.is_empty()).then(|| Run::new(&python, &tables, &again));
    let confirmed = |i: usize| -> Option<Vec<String>> {
        let second = second.as_ref()?;
        let j = effected.iter().position(|&e| e == i)?;
        let v = second.phase("call").find(|v| index(v) == j)?;
        Some(second.effects(v, &format!("call-{j}")))
    };
    let mut blind = Vec::new();
    for v in first.phase("check") {
        let i = index(v);
        let (sql, expected) = SELF_CHECK[i];
        let effects = first.effects(v, &format!("check-{i}"));
        if !effects.iter().any(|e| e.contains(expected)) {
            blind.push(format!("{sql} => expected `{expected}`, saw {effects:?}"));
        }
    }
    assert!(
        blind.is_empty() && first.phase("check").count() == SELF_CHECK.len(),
        "observers blind to known effects:\n{}",
        blind.join("\n")
    );
    report.notes.push(format!(
        "self-check: each of {} statements with a known effect was caught by its observer",
        SELF_CHECK.len()
    ));
    let mut seen = 0;
    let mut not_applicable = 0usize;
    for v in first.phase("call") {
        seen += 1;
        let i = index(v);
        let call = &calls[i];
        let status = v.get("status").and_then(Value::as_str).unwrap_or("");
        let error = v.get("error").and_then(Value::as_str).unwrap_or("");
        let mut effects = first.effects(v, &format!("call-{i}"));
        if !effects.is_empty() {
            match confirmed(i) {
                Some(again) if again.is_empty() => {
                    report.notes.push(format!(
                        "an effect a second run did not show (not counted): [{}] {} => {}",
                        call.name,
                        toolgate_oracles::report::one_line(&call.sql),
                        effects.join("; ")
                    ));
                    effects.clear();
                }
                Some(again) => {
                    effects = vec![format!(
                        "{} (and on a second run: {})",
                        effects.join("; "),
                        again.join("; ")
                    )];
                }
                None => effects.push(String::from("(a second run did not answer for it)")),
            }
        }
        if status == "prepare" && effects.is_empty() && not_for_duckdb(error) {
            not_applicable += 1;
            report.notes.push(format!(
                "does not apply (not DuckDB's syntax, functions or catalog): [{}] {}: {error}",
                call.name,
                toolgate_oracles::report::one_line(&call.sql)
            ));
        } else if status == "prepare" && effects.is_empty() {
            report.prepare_failed(&call.name, &call.sql, error);
        } else {
            if status == "prepare" {
                report.failed_to_prepare += 1;
            } else {
                report.executed += 1;
            }
            for e in effects {
                report.violation(&call.name, &call.sql, e);
            }
        }
    }
    assert_eq!(
        seen,
        calls.len(),
        "the DuckDB side answered {seen} of {} calls",
        calls.len()
    );
    let applicable = report.executed + report.failed_to_prepare;
    let share = report.executed as f64 / applicable.max(1) as f64;
    report.notes.push(format!(
        "applicable: {applicable} of {} inputs ({not_applicable} do not apply); prepared and run: {:.1} %",
        calls.len(),
        share * 100.0
    ));
    if let Err(e) = report.finish("duckdb") {
        panic!("{e}");
    }
    assert!(
        share >= 0.95,
        "only {:.1} % of the applicable inputs prepared on DuckDB (at least 95 % must): the fixture lacks their names",
        share * 100.0
    );
}

/// Whether a prepare error means the text is not for DuckDB: another
/// dialect's syntax, functions, types or catalogs. Such inputs do not apply;
/// the report counts and lists them.
fn not_for_duckdb(error: &str) -> bool {
    const OTHER_CATALOGS: &[&str] = &["pg_", "information_schema", "sys", "mysql", "sqlite_"];
    error.starts_with("Parser Error")
        || error.contains("Function with name")
        || error.contains("Type with name")
        || error.contains("No function matches")
        || error.contains("Not implemented Error")
        || error
            .split_once("Table with name ")
            .is_some_and(|(_, name)| OTHER_CATALOGS.iter().any(|c| name.starts_with(c)))
        || error.contains("because schema")
        // Text no schema makes valid: a column with no FROM to come from,
        // grouping errors, a window over a scalar, another engine's setting.
        || error.contains("because the FROM clause is missing")
        || error.contains("must appear in the GROUP BY clause")
        || error.contains("is not an aggregate")
        || error.contains("unrecognized configuration parameter")
        || error.contains("Catalog with name")
        || error.contains("Schema with name")
}
