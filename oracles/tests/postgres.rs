//! The PostgreSQL 15 oracle: every statement the policy proves read-only under
//! the `postgres` dialect or the generic reading (the vectors, plus a
//! deterministic generated sample) runs on a throwaway cluster (see
//! [`toolgate_oracles::pgcluster`]) inside
//! `BEGIN READ ONLY; SET LOCAL statement_timeout = '2s'; … ROLLBACK`, sent as
//! one simple-protocol query exactly as a tool would send it. Observers catch
//! what a read-only transaction still permits, and what it refuses:
//!
//! - a write the read-only transaction refused (SQLSTATE 25006) — the statement
//!   tried to change data;
//! - the statement timeout, or a resource limit (classes 53, 54) — unbounded work;
//! - transaction control: the session left our read-only transaction, or a
//!   transaction-state warning (class 25);
//! - session state the next call would inherit: settings, role, advisory
//!   locks, `LISTEN`s, prepared statements, cursors, temporary tables (read
//!   inside the transaction and again after the `ROLLBACK`);
//! - from another session: table contents, the catalog, roles, sequences;
//! - a sentinel backend (running `pg_sleep`) cancelled or terminated;
//! - a notification delivered to a listener on every name the statements use;
//! - a file outside the data directory touched by any server process (every
//!   file system call of the server is traced; the paths a benign workload
//!   touches are learnt first).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use toolgate_oracles::fixture::{schema, Flavor, TABLES};
use toolgate_oracles::pgcluster::{Cluster, DATABASE};
use toolgate_oracles::report::Report;
use toolgate_oracles::sql::{vectors, SqlCall, Target};
use toolgate_oracles::sqlgen::sample;

/// A client process that takes longer than this is killed: the statement
/// escaped the statement timeout.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(15);

/// Output of one client run.
struct Output {
    stdout: String,
    stderr: String,
    timed_out: bool,
}

/// Runs `command` with a time limit, capturing both streams.
fn run(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("psql");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let start = Instant::now();
    let mut timed_out = false;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        if start.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Output {
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
        timed_out,
    }
}

/// The session state a later call would inherit; `{tag}` marks the line.
fn state_query(tag: &str) -> String {
    format!(
        "SELECT '@@state:{tag}', current_setting('transaction_read_only'), current_user, session_user, \
         coalesce((SELECT string_agg(name || '=' || setting, ',' ORDER BY name) FROM pg_settings \
           WHERE source = 'session' AND name <> 'statement_timeout'), ''), \
         (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'), \
         (SELECT count(*) FROM pg_listening_channels()), \
         (SELECT count(*) FROM pg_prepared_statements), \
         (SELECT count(*) FROM pg_cursors), \
         (SELECT count(*) FROM pg_class WHERE relpersistence = 't')"
    )
}

/// Names of the fields [`state_query`] returns, after the tag.
const STATE_FIELDS: &[&str] = &[
    "transaction_read_only",
    "current_user",
    "session_user",
    "settings set in the session",
    "advisory locks held",
    "channels listened to",
    "prepared statements",
    "open cursors",
    "temporary relations",
];

/// What another session sees: data, catalog, roles, sequences, the sentinel.
fn observer_query() -> String {
    let tables: Vec<String> = TABLES
        .iter()
        .map(|t| {
            format!(
                "SELECT '{}:' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') AS f FROM {t} x",
                t.replace('\'', "''")
            )
        })
        .collect();
    format!(
        "SELECT '@@obs', \
         (SELECT md5(string_agg(f, '|' ORDER BY f)) FROM ({}) s), \
         (SELECT md5(string_agg(oid::text || ':' || relname || ':' || relkind::text, ',' ORDER BY oid)) FROM pg_class WHERE relpersistence <> 't'), \
         (SELECT md5(string_agg(oid::text || ':' || proname, ',' ORDER BY oid)) FROM pg_proc), \
         (SELECT md5(string_agg(rolname || rolsuper::text || coalesce(rolpassword, ''), ',' ORDER BY rolname)) FROM pg_authid), \
         (SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database), \
         (SELECT string_agg(sequencename || '=' || coalesce(last_value::text, '-'), ',' ORDER BY sequencename) FROM pg_sequences), \
         (SELECT count(*) FROM pg_stat_activity WHERE application_name = 'oracle-sentinel' AND state = 'active'), \
         (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'), \
         (SELECT count(*) FROM pg_largeobject_metadata)",
        tables.join(" UNION ALL ")
    )
}

/// The index of the sentinel's field in [`OBSERVED_FIELDS`].
const SENTINEL_FIELD: usize = 6;

/// Names of the fields [`observer_query`] returns, after the tag.
const OBSERVED_FIELDS: &[&str] = &[
    "table contents",
    "relations in the catalog",
    "functions in the catalog",
    "roles",
    "databases",
    "sequences",
    "sentinel backend running",
    "advisory locks held (any session)",
    "large objects",
];

/// The fields of the line tagged `tag`.
fn tagged(stdout: &str, tag: &str) -> Option<Vec<String>> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{tag}|")))
        .map(|rest| rest.split('|').map(str::to_owned).collect())
}

/// The first `ERROR`/`WARNING` SQLSTATE and message between the markers.
fn errors_between(stderr: &str) -> Vec<(String, String, String)> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in stderr.lines() {
        if line.contains("@@begin") {
            inside = true;
            continue;
        }
        if line.contains("@@end") {
            break;
        }
        if !inside {
            continue;
        }
        for level in ["ERROR", "WARNING", "FATAL"] {
            if let Some(rest) = line.strip_prefix(&format!("{level}:")) {
                let rest = rest.trim_start();
                let (code, message) = rest.split_once(": ").unwrap_or(("", rest));
                out.push((level.to_owned(), code.to_owned(), message.to_owned()));
            }
        }
    }
    out
}

/// A listener session: `LISTEN`s on every name, reports notifications.
struct Listener {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    poll: u64,
}

impl Listener {
    fn start(cluster: &Cluster, channels: &BTreeSet<String>) -> Listener {
        let mut command = cluster.psql(DATABASE);
        command.env("PGAPPNAME", "oracle-listener");
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("listener psql");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        for channel in channels {
            writeln!(stdin, "LISTEN \"{}\";", channel.replace('"', "\"\"")).unwrap();
        }
        let mut listener = Listener {
            child,
            stdin,
            lines: rx,
            poll: 0,
        };
        let _ = listener.poll();
        listener
    }

    /// The notifications received since the last poll and what this other
    /// session observes now (`None`: the session died).
    fn poll(&mut self) -> Option<(Vec<String>, Vec<String>)> {
        self.poll += 1;
        let marker = format!("@@poll{}", self.poll);
        writeln!(self.stdin, "{};", observer_query()).ok()?;
        writeln!(self.stdin, "SELECT '{marker}';").ok()?;
        self.stdin.flush().ok()?;
        let mut notes = Vec::new();
        let mut observed = Vec::new();
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(20)).ok()?;
            if line == marker {
                return Some((notes, observed));
            }
            if line.contains("Asynchronous notification") {
                notes.push(line);
            } else if let Some(rest) = line.strip_prefix("@@obs|") {
                observed = rest.split('|').map(str::to_owned).collect();
            }
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A backend busy in `pg_sleep`: if a statement signals it, it stops.
struct Sentinel(Child);

impl Sentinel {
    fn start(cluster: &Cluster) -> Sentinel {
        let mut command = cluster.psql(DATABASE);
        command
            .env("PGAPPNAME", "oracle-sentinel")
            .args(["-c", "SELECT pg_sleep(86400)"]);
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sentinel psql");
        let sentinel = Sentinel(child);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            let mut probe = cluster.psql(DATABASE);
            probe.args([
                "-c",
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'oracle-sentinel' AND state = 'active'",
            ]);
            if run(probe, CLIENT_TIMEOUT).stdout.trim() == "1" {
                return sentinel;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the sentinel backend did not start");
    }
}

impl Drop for Sentinel {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The paths in a stretch of the trace log that lie outside the cluster's
/// directory and the server's own installation, and were not learnt.
fn foreign_paths(trace: &str, cluster: &Cluster, learnt: &BTreeSet<String>) -> BTreeSet<String> {
    let base = cluster.base.display().to_string();
    let mut out = BTreeSet::new();
    for line in trace.lines() {
        let Some(start) = line.find('"') else {
            continue;
        };
        let rest = &line[start + 1..];
        let Some(end) = rest.find('"') else {
            continue;
        };
        let path = &rest[..end];
        if !path.starts_with('/')
            || path.starts_with(&base)
            || path.starts_with("/usr/lib/postgresql/15/")
            || path.starts_with("/usr/share/postgresql/15/")
            || path.starts_with("/usr/share/zoneinfo")
            || learnt.contains(path)
        {
            continue;
        }
        let call = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.split('(').next())
            .unwrap_or("?");
        out.insert(format!("{call} {path}"));
    }
    out
}

/// Every name a statement might `NOTIFY` on: identifiers and short literals.
fn channels(calls: &[SqlCall]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for call in calls {
        let mut word = String::new();
        for c in call.sql.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else if !word.is_empty() {
                if word.len() <= 63 && !word.chars().next().unwrap().is_ascii_digit() {
                    out.insert(word.to_lowercase());
                    out.insert(word.clone());
                }
                word.clear();
            }
        }
    }
    out
}

struct Oracle<'c> {
    cluster: &'c Cluster,
    sentinel: Sentinel,
    listener: Listener,
    baseline_tx: Vec<String>,
    baseline_after: Vec<String>,
    observed: Vec<String>,
    learnt: BTreeSet<String>,
    /// Inputs that are not PostgreSQL's (listed in the report).
    not_applicable: usize,
}

/// The psql command for one call: our transaction around the statement.
fn harness(cluster: &Cluster, sql: &str) -> Command {
    let mut command = cluster.psql(DATABASE);
    // psql runs a `-c` text starting with a backslash as its own command;
    // a leading newline makes the server (which ignores it) get the text.
    let sql = if sql.starts_with('\\') {
        format!("\n{sql}")
    } else {
        sql.to_owned()
    };
    command
        .args(["-c", "BEGIN READ ONLY"])
        .args(["-c", "SET LOCAL statement_timeout = '2s'"])
        .args(["-c", "\\warn @@begin"])
        .args(["-c", &sql])
        .args(["-c", "\\warn @@end"])
        .args(["-c", &state_query("tx")])
        .args(["-c", "ROLLBACK"])
        .args(["-c", &state_query("after")]);
    command
}

impl<'c> Oracle<'c> {
    /// What the observer session sees now, and the notifications it got.
    fn observe(&mut self) -> (Vec<String>, Option<Vec<String>>) {
        match self.listener.poll() {
            Some((notes, observed)) if !observed.is_empty() => (observed, Some(notes)),
            _ => {
                self.listener = Listener::start(self.cluster, &BTreeSet::new());
                let (_, observed) = self.listener.poll().expect("observer session");
                (observed, None)
            }
        }
    }

    /// Runs the benign workload a few times and learns which outside paths a
    /// server touches when nothing is wrong (libraries, locale, time zone).
    fn learn(&mut self) {
        let benign = [
            "SELECT 1",
            "SELECT * FROM users u JOIN orders o USING (id)",
            "SELECT now(), to_char(now(), 'YYYY-MM'), md5('x')",
            "SELECT * FROM no_such_table",
            "SELECT count(*) FROM pg_stat_activity",
        ];
        for _ in 0..3 {
            for sql in benign {
                let mark = self.cluster.trace_mark();
                let _ = run(harness(self.cluster, sql), CLIENT_TIMEOUT);
                let _ = self.observe();
                std::thread::sleep(Duration::from_millis(50));
                let trace = self.cluster.trace_since(mark);
                for p in foreign_paths(&trace, self.cluster, &BTreeSet::new()) {
                    if let Some((_, path)) = p.split_once(' ') {
                        self.learnt.insert(path.to_owned());
                    }
                }
            }
        }
    }

    fn run(&mut self, call: &SqlCall, report: &mut Report) {
        let mark = self.cluster.trace_mark();
        let out = run(harness(self.cluster, &call.sql), CLIENT_TIMEOUT);
        let mut effects: Vec<String> = Vec::new();
        if out.timed_out {
            effects.push(format!(
                "unbounded: still running after {}s despite the 2s statement timeout (client killed)",
                CLIENT_TIMEOUT.as_secs()
            ));
        }
        let errors = errors_between(&out.stderr);
        let mut failed_to_prepare = false;
        for (i, (level, code, message)) in errors.iter().enumerate() {
            let class = code.get(..2).unwrap_or("");
            match (level.as_str(), code.as_str(), class) {
                (_, "25006", _) => effects.push(format!(
                    "tried to write; the read-only transaction refused it ({code}: {message})"
                )),
                (_, "57014", _) => effects.push(format!("unbounded: {code}: {message}")),
                (_, _, "53" | "54") => effects.push(format!("unbounded: {code}: {message}")),
                (_, _, "25") => {
                    effects.push(format!("transaction control: {level} {code}: {message}"))
                }
                ("ERROR", _, "42" | "0A" | "3F" | "3D" | "26" | "34") if i == 0 => {
                    failed_to_prepare = true;
                }
                _ => {}
            }
        }
        let tx = tagged(&out.stdout, "@@state:tx");
        let after = tagged(&out.stdout, "@@state:after");
        if let Some(tx) = &tx {
            for ((field, was), now) in STATE_FIELDS.iter().zip(&self.baseline_tx).zip(tx) {
                if was != now {
                    effects.push(format!(
                        "inside the transaction, {field}: `{was}` became `{now}`"
                    ));
                }
            }
        }
        match &after {
            Some(after) => {
                for ((field, was), now) in STATE_FIELDS.iter().zip(&self.baseline_after).zip(after)
                {
                    if was != now {
                        effects.push(format!("after ROLLBACK, {field}: `{was}` became `{now}`"));
                    }
                }
            }
            None if !out.timed_out => effects.push(format!(
                "the session did not survive the statement: {}",
                out.stderr.lines().last().unwrap_or("")
            )),
            None => {}
        }
        let (observed, notes) = self.observe();
        for (i, ((field, was), now)) in OBSERVED_FIELDS
            .iter()
            .zip(&self.observed)
            .zip(&observed)
            .enumerate()
        {
            // The sentinel is judged on its own below.
            if i != SENTINEL_FIELD && was != now {
                effects.push(format!(
                    "another session sees {field} change: `{was}` became `{now}`"
                ));
            }
        }
        let mut observed = observed;
        if observed.get(SENTINEL_FIELD).map(String::as_str) != Some("1") {
            effects.push("another backend (the sentinel in pg_sleep) was signalled".to_owned());
            self.sentinel = Sentinel::start(self.cluster);
            observed = self.observe().0;
        }
        match notes {
            Some(n) if n.is_empty() => {}
            Some(n) => effects.push(format!("notification delivered: {}", n.join("; "))),
            None => effects.push("the observer session (another backend) was ended".to_owned()),
        }
        let paths = foreign_paths(&self.cluster.trace_since(mark), self.cluster, &self.learnt);
        if !paths.is_empty() {
            let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
            let more = paths.len().saturating_sub(5);
            effects.push(format!(
                "server touched files outside its data directory: {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        self.observed = observed;
        let first = errors.first();
        if failed_to_prepare
            && effects.is_empty()
            && first.is_some_and(|(_, c, m)| not_for_postgres(c, m))
        {
            self.not_applicable += 1;
            report.notes.push(format!(
                "does not apply (not PostgreSQL's syntax, functions or catalog): [{}] {}: {}",
                call.name,
                toolgate_oracles::report::one_line(&call.sql),
                first
                    .map(|(_, c, m)| format!("{c}: {m}"))
                    .unwrap_or_default()
            ));
        } else if failed_to_prepare && effects.is_empty() {
            let first = first
                .map(|(_, c, m)| format!("{c}: {m}"))
                .unwrap_or_default();
            report.prepare_failed(&call.name, &call.sql, &first);
        } else {
            if failed_to_prepare {
                report.failed_to_prepare += 1;
            } else {
                report.executed += 1;
            }
            for e in effects {
                report.violation(&call.name, &call.sql, e);
            }
        }
    }
}

fn load_fixture(cluster: &Cluster) {
    let mut create = cluster.psql("postgres");
    create.args([
        "-v",
        "ON_ERROR_STOP=1",
        "-c",
        &format!("CREATE DATABASE {DATABASE}"),
    ]);
    let out = run(create, Duration::from_secs(60));
    assert!(
        out.stderr.trim().is_empty(),
        "create database: {}",
        out.stderr
    );
    let mut script = String::new();
    for statement in schema(Flavor::Postgres) {
        script.push_str(&statement);
        script.push_str(";\n");
    }
    script.push_str(
        "CREATE SEQUENCE s1;\n\
         CREATE SEQUENCE orders_id_seq;\n\
         SELECT nextval('orders_id_seq');\n\
         CREATE FUNCTION add_one(integer) RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';\n\
         CREATE FUNCTION bump() RETURNS bigint LANGUAGE sql VOLATILE AS $$ SELECT nextval('s1') $$;\n\
         CREATE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$;\n\
         CREATE VIEW v_orders AS SELECT id, total FROM orders;\n\
         ANALYZE;\n",
    );
    let path = cluster.base.join("fixture.sql");
    std::fs::write(&path, script).unwrap();
    let mut load = cluster.psql(DATABASE);
    load.args(["-v", "ON_ERROR_STOP=1", "-f"]).arg(&path);
    let out = run(load, Duration::from_secs(120));
    assert!(!out.stderr.contains("ERROR"), "fixture: {}", out.stderr);
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The tables and columns the inputs name that the fixture lacks, learnt from
/// PostgreSQL's own errors on `PREPARE` (which parses and binds without
/// running) in a copy of the fixture database inside a read-only transaction,
/// before anything is judged, then added to the judged database: a missing
/// table gets three rows, a missing column the value 1 on every row, so joins
/// on it fan out and `parent_id = id` walks meet a cycle.
fn learn_schema(cluster: &Cluster, calls: &[SqlCall]) -> usize {
    const LEARN: &str = "oracle_learn";
    let mut create = cluster.psql("postgres");
    create.args([
        "-c",
        &format!("CREATE DATABASE {LEARN} TEMPLATE {DATABASE}"),
    ]);
    let out = run(create, Duration::from_secs(60));
    assert!(
        out.stderr.trim().is_empty(),
        "learn database: {}",
        out.stderr
    );
    let ddl_in = |database: &str, ddl: &str| {
        let mut command = cluster.psql(database);
        command.args(["-c", ddl]);
        run(command, CLIENT_TIMEOUT).stderr.trim().is_empty()
    };
    let tables = || -> Vec<String> {
        let mut command = cluster.psql(LEARN);
        command.args([
            "-c",
            "SELECT relname FROM pg_class WHERE relkind IN ('r', 'v') AND relnamespace = 'public'::regnamespace",
        ]);
        run(command, CLIENT_TIMEOUT)
            .stdout
            .lines()
            .map(|l| l.trim().to_owned())
            .collect()
    };
    let mut learnt = Vec::new();
    for call in calls {
        if call.sql.starts_with('\\') {
            continue;
        }
        for _ in 0..12 {
            let mut command = cluster.psql(LEARN);
            command
                .args(["-c", "BEGIN READ ONLY"])
                .args(["-c", "SET LOCAL statement_timeout = '1s'"])
                .args(["-c", &format!("PREPARE oracle_learn AS {}", call.sql)])
                .args(["-c", "ROLLBACK"]);
            let stderr = run(command, CLIENT_TIMEOUT).stderr;
            let Some(error) = stderr.lines().find(|l| l.starts_with("ERROR:")) else {
                break;
            };
            let known = tables();
            let words: Vec<&str> = call
                .sql
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let is_table = |w: &str| known.iter().any(|t| t.eq_ignore_ascii_case(w));
            let table_of = |alias: &str| -> Option<String> {
                if is_table(alias) {
                    return Some(alias.to_ascii_lowercase());
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
                    is_table(before).then(|| before.to_ascii_lowercase())
                })
            };
            let quoted_part = |text: &str| -> Option<String> {
                let start = text.find('"')? + 1;
                let end = start + text[start..].find('"')?;
                Some(text[start..end].to_owned())
            };
            let ddl = if error.contains("relation \"") && error.contains("does not exist") {
                quoted_part(error)
                    .filter(|name| {
                        !name.contains('.')
                            && !name.starts_with("pg_")
                            && !name.contains(['\'', '"'])
                    })
                    .map(|name| {
                        format!(
                            "CREATE TABLE {} AS SELECT g AS fixture_row FROM generate_series(1, 3) g",
                            quoted(&name)
                        )
                    })
            } else if let Some(rest) = error
                .split_once("column ")
                .map(|(_, r)| r)
                .filter(|_| error.contains("does not exist"))
            {
                let column = rest.split(" does not exist").next().unwrap_or("");
                let (table, column) = match column.rsplit_once('.') {
                    Some((qualifier, column)) => (table_of(qualifier), column),
                    None => (
                        words
                            .iter()
                            .find(|w| is_table(w))
                            .map(|w| w.to_ascii_lowercase()),
                        column,
                    ),
                };
                let column = column.trim_matches('"');
                table.filter(|_| !column.is_empty()).map(|t| {
                    format!(
                        "ALTER TABLE {} ADD COLUMN {} integer DEFAULT 1",
                        quoted(&t),
                        quoted(column)
                    )
                })
            } else {
                None
            };
            let Some(ddl) = ddl else { break };
            if !ddl_in(LEARN, &ddl) {
                break;
            }
            learnt.push(ddl);
        }
    }
    for ddl in &learnt {
        assert!(ddl_in(DATABASE, ddl), "learnt fixture: {ddl}");
    }
    let mut drop = cluster.psql("postgres");
    drop.args(["-c", &format!("DROP DATABASE {LEARN}")]);
    let _ = run(drop, Duration::from_secs(60));
    learnt.len()
}

/// Whether a prepare error's SQLSTATE means the text is not for PostgreSQL:
/// another dialect's syntax (42601), functions (42883), types or objects
/// (42704), schemas (3F000) or databases, or text no schema makes valid.
/// Such inputs do not apply.
fn not_for_postgres(code: &str, message: &str) -> bool {
    // 42803 (grouping), 42809 (wrong object type) and 42P10 (invalid column
    // reference) are text no schema makes valid.
    matches!(
        code,
        "42601" | "42883" | "42704" | "3F000" | "3D000" | "0A000" | "42803" | "42809" | "42P10"
    ) || (code == "42P01" && message.contains('.'))
}

/// Statements with a known effect, each with a piece of the effect its
/// observer must report: run first, so a blind observer fails the test
/// instead of passing every statement.
const SELF_CHECK: &[(&str, &str)] = &[
    ("SELECT nextval('s1')", "tried to write"),
    ("SELECT pg_sleep(3)", "unbounded"),
    ("SELECT repeat('x', 2147483647)", "unbounded"),
    ("ROLLBACK; SELECT 1", "transaction_read_only"),
    ("BEGIN", "transaction control"),
    ("SELECT set_config('work_mem', '1MB', false)", "settings"),
    ("SELECT pg_advisory_lock(7)", "advisory locks"),
    // LISTEN takes effect at commit: inside our transaction it is invisible
    // and our ROLLBACK undoes it, so only an escaped one can be seen.
    ("COMMIT; LISTEN oracle_self_check", "channels listened to"),
    ("PREPARE oracle_p AS SELECT 1", "prepared statements"),
    ("DECLARE oracle_c CURSOR WITH HOLD FOR SELECT 1", "open cursors"),
    ("CREATE TEMP TABLE oracle_tmp (a int)", "tried to write"),
    ("COMMIT; CREATE TEMP TABLE oracle_tmp (a int)", "temporary relations"),
    ("COMMIT; DELETE FROM audit WHERE id = 3", "table contents"),
    ("COMMIT; SELECT nextval('orders_id_seq')", "sequences"),
    ("COMMIT; SELECT pg_notify('oracle_self_check', 'x')", "notification delivered"),
    (
        "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'oracle-sentinel'",
        "sentinel",
    ),
    ("SELECT pg_terminate_backend(pg_backend_pid())", "did not survive"),
    ("SELECT pg_read_file('/etc/hostname')", "outside its data directory"),
    ("COPY (SELECT 1) TO '/tmp/toolgate-oracle-self-check'", "outside its data directory"),
];

#[test]
fn every_statement_proven_read_only_has_no_effect_on_postgres() {
    let gathered = vectors(Target::Postgres).unwrap();
    let generated = sample(Target::Postgres, 0x9057_6e55_0a7c_1e01, 6_000, 200).unwrap();
    let calls: Vec<SqlCall> = gathered.calls.iter().chain(&generated).cloned().collect();
    assert!(
        !calls.is_empty(),
        "no statement to run: the vectors hold no allowed SQL"
    );

    let cluster = Cluster::start().unwrap_or_else(|e| panic!("{e}"));
    load_fixture(&cluster);
    // The inputs are fixed above; the schema is learnt from their names.
    let learnt = learn_schema(&cluster, &calls);
    let mut report = Report::default();
    report.notes.push(format!(
        "fixture: the shared schema and {learnt} tables and columns learnt from the inputs' names"
    ));
    let mut version = cluster.psql(DATABASE);
    version.args(["-c", "SELECT version()"]);
    report.notes.push(format!(
        "{}; dialects: postgres and generic (none configured)",
        run(version, CLIENT_TIMEOUT).stdout.trim()
    ));
    report.notes.push(format!(
        "inputs: {} vectors proven read-only, {} generated statements proven read-only; \
         {} allowed vectors not judged (allowed by the model's rating or by configuration, not proven)",
        gathered.calls.len(),
        generated.len(),
        gathered.not_proofs
    ));

    let sentinel = Sentinel::start(&cluster);
    let mut names = channels(&calls);
    names.insert("oracle_self_check".to_owned());
    let listener = Listener::start(&cluster, &names);
    let mut oracle = Oracle {
        cluster: &cluster,
        sentinel,
        listener,
        baseline_tx: Vec::new(),
        baseline_after: Vec::new(),
        observed: Vec::new(),
        learnt: BTreeSet::new(),
        not_applicable: 0,
    };
    oracle.learn();
    let base = run(harness(&cluster, "SELECT 1"), CLIENT_TIMEOUT);
    oracle.baseline_tx = tagged(&base.stdout, "@@state:tx").expect("baseline");
    oracle.baseline_after = tagged(&base.stdout, "@@state:after").expect("baseline");
    oracle.observed = oracle.observe().0;
    report.notes.push(format!(
        "server paths outside the data directory a benign workload touches (learnt, not judged): {}",
        oracle.learnt.iter().cloned().collect::<Vec<_>>().join(" ")
    ));

    let mut blind = Vec::new();
    for (i, (sql, expected)) in SELF_CHECK.iter().enumerate() {
        let mut check = Report::default();
        let call = SqlCall {
            name: format!("self-check {i}"),
            sql: (*sql).to_owned(),
            dialect: None,
        };
        oracle.run(&call, &mut check);
        if !check.violations.iter().any(|v| v.effect.contains(expected)) {
            blind.push(format!(
                "{sql} => expected `{expected}`, saw {:?}",
                check
                    .violations
                    .iter()
                    .map(|v| &v.effect)
                    .collect::<Vec<_>>()
            ));
        }
    }
    let _ = std::fs::remove_file("/tmp/toolgate-oracle-self-check");
    assert!(
        blind.is_empty(),
        "observers blind to known effects:\n{}",
        blind.join("\n")
    );
    report.notes.push(format!(
        "self-check: each of {} statements with a known effect was caught by its observer",
        SELF_CHECK.len()
    ));

    let started = Instant::now();
    for call in &calls {
        oracle.run(call, &mut report);
    }
    report
        .notes
        .push(format!("ran in {:.1}s", started.elapsed().as_secs_f64()));
    let applicable = report.executed + report.failed_to_prepare;
    let share = report.executed as f64 / applicable.max(1) as f64;
    report.notes.push(format!(
        "applicable: {applicable} of {} inputs ({} do not apply); prepared and run: {:.1} %",
        calls.len(),
        oracle.not_applicable,
        share * 100.0
    ));
    drop(oracle);
    drop(cluster);
    if let Err(e) = report.finish("postgres") {
        panic!("{e}");
    }
    assert!(
        share >= 0.95,
        "only {:.1} % of the applicable inputs prepared on PostgreSQL (at least 95 % must): the fixture lacks their names",
        share * 100.0
    );
}
