//! A deterministic generator of SQL the policy might prove read-only, for the
//! engine oracles: the conformance statements mutated with the pieces an
//! attacker splices in (effectful functions in every call syntax, clauses that
//! lock or write, session and transaction statements, unbounded generators),
//! plus each piece on its own. The policy keeps the ones it proves read-only;
//! the engines then judge them. The generator draws with the fuzz tests' own
//! xorshift (`tests/support/rng.rs`), from a fixed seed, so a finding is
//! reproducible.

use crate::root;
use crate::sql::{engine_for, proven, SqlCall, Target};
use serde_json::Value;

use crate::rng::Rng;

/// Expressions with an effect, or unbounded work, on some engine; spliced into
/// expression positions.
const EXPRESSIONS: &[&str] = &[
    "pg_sleep(5)",
    "(1).pg_sleep",
    "(3).pg_sleep",
    "(7).pg_advisory_lock",
    "(7::bigint).pg_try_advisory_lock",
    "('s1'::regclass).nextval",
    "('/etc/hostname'::text).pg_read_file",
    "('.'::text).pg_ls_dir",
    "('/etc/passwd'::text).lo_import",
    "(pg_backend_pid()).pg_terminate_backend",
    "(SELECT pid FROM pg_stat_activity WHERE application_name = 'oracle-sentinel').pg_cancel_backend",
    "pg_cancel_backend((SELECT pid FROM pg_stat_activity WHERE application_name = 'oracle-sentinel'))",
    "bump()",
    "s1.nextval",
    "nextval('s1')",
    "setval('s1', 100)",
    "currval('s1')",
    "set_config('work_mem', '1MB', false)",
    "set_config('search_path', 'x', true)",
    "pg_advisory_lock(7)",
    "pg_try_advisory_lock(7)",
    "pg_advisory_xact_lock(7)",
    "pg_notify('chan', 'x')",
    "pg_read_file('/etc/passwd')",
    "pg_read_binary_file('/etc/hostname')",
    "pg_stat_file('/etc/passwd')",
    "pg_ls_dir('.')",
    "lo_import('/etc/passwd')",
    "lo_export(1, '/tmp/x')",
    "lo_create(0)",
    "pg_terminate_backend(1)",
    "pg_cancel_backend(1)",
    "pg_reload_conf()",
    "pg_rotate_logfile()",
    "pg_stat_reset()",
    "txid_current()",
    "pg_current_xact_id()",
    "query_to_xml('DELETE FROM users', true, true, '')",
    "repeat('x', 2147483647)",
    "(SELECT count(*) FROM generate_series(1, 1000000000000))",
    "load_extension('x')",
    "randomblob(1000000000)",
    "zeroblob(1000000000)",
    "printf('%.*c', 1000000000, 'x')",
    "fts3_tokenizer('simple')",
    "readfile('/etc/passwd')",
    "writefile('/tmp/x', 'y')",
    "sqlite_compileoption_get(0)",
    "(SELECT content FROM read_text('/etc/hostname'))",
    "(SELECT count(*) FROM read_csv('/etc/hostname'))",
    "(SELECT count(*) FROM '/etc/hostname')",
    "(SELECT count(*) FROM glob('/etc/*'))",
    "getenv('HOME')",
    "random()",
    "now()",
    "version()",
];

/// Statements or clauses with an effect on some engine; spliced anywhere.
const PIECES: &[&str] = &[
    " FOR UPDATE",
    " FOR SHARE",
    " INTO TEMP x",
    " INTO x",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
    "SELECT count(*) FROM users a, users b, users c, users d, users e, users f",
    "PRAGMA user_version = 5",
    "PRAGMA journal_mode = OFF",
    "PRAGMA writable_schema = ON",
    "ATTACH 'x.db' AS y",
    "DETACH y",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "END",
    "SAVEPOINT a",
    "RELEASE a",
    "SET search_path = x",
    "SET LOCAL work_mem = '1MB'",
    "SET SESSION AUTHORIZATION DEFAULT",
    "SET ROLE NONE",
    "RESET ALL",
    "DISCARD ALL",
    "LISTEN chan",
    "NOTIFY chan",
    "UNLISTEN *",
    "LOCK TABLE users",
    "VACUUM",
    "ANALYZE",
    "REINDEX",
    "CHECKPOINT",
    "COPY users TO STDOUT",
    "TABLE users",
    "SELECT * FROM '/etc/hostname'",
    "SELECT * FROM read_csv('/etc/hostname')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM read_json('/etc/hostname')",
    "SELECT * FROM glob('/etc/*')",
    "ATTACH '/tmp/toolgate-oracle-attach.db' AS x",
    "INSTALL httpfs",
    "LOAD httpfs",
    "COPY (SELECT 1) TO '/tmp/toolgate-oracle-copy.csv'",
    "CREATE SECRET (TYPE s3)",
    "USE x",
    "SET threads = 1",
    "PREPARE p AS SELECT 1",
    "EXECUTE p",
    "DEALLOCATE ALL",
    "DECLARE c CURSOR FOR SELECT 1",
    "FETCH c",
    "CLOSE ALL",
    "DO $$BEGIN PERFORM 1; END$$",
    "CALL p()",
    "CREATE TEMP TABLE x(a int)",
    "SET TRANSACTION READ WRITE",
    "SHOW ALL",
    "EXPLAIN ANALYZE ",
    "EXPLAIN ",
    "/*",
    "*/",
    "--",
    "'",
    "$$",
    ";",
    "\n",
];

/// Every `args.sql` text in the conformance vectors, whatever their verdict:
/// the seeds the mutations start from.
fn seeds() -> Result<Vec<String>, String> {
    let dir = root().join("tests").join("conformance");
    let mut out = Vec::new();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if let Some(sql) = v
                .get("args")
                .and_then(|a| a.get("sql"))
                .and_then(Value::as_str)
            {
                out.push(sql.to_owned());
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// One pick from a non-empty table.
fn pick<'a>(rng: &mut Rng, table: &[&'a str]) -> &'a str {
    table.get(rng.below(table.len())).copied().unwrap_or("")
}

/// A char boundary of `text` at random.
fn boundary(rng: &mut Rng, text: &str) -> usize {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    bounds.get(rng.below(bounds.len())).copied().unwrap_or(0)
}

/// One mutation of `seed`.
fn mutate(rng: &mut Rng, seed: &str) -> String {
    let mut text = seed.to_owned();
    for _ in 0..=rng.below(2) {
        let at = boundary(rng, &text);
        let (head, tail) = text.split_at(at);
        text = match rng.below(7) {
            0 => format!("{head}{}{tail}", pick(rng, EXPRESSIONS)),
            1 => format!("{head}, {}{tail}", pick(rng, EXPRESSIONS)),
            2 => format!("{head}{}{tail}", pick(rng, PIECES)),
            3 => format!("{text}; {}", pick(rng, PIECES)),
            4 => format!("{}; {text}", pick(rng, PIECES)),
            5 => format!("SELECT * FROM ({text}) AS s"),
            _ => match text.find('(') {
                // Swap the first called function's name for an effectful one.
                Some(open) => {
                    let start = text
                        .get(..open)
                        .and_then(|h| h.rfind(|c: char| !c.is_alphanumeric() && c != '_'))
                        .map_or(0, |i| i + 1);
                    let expr = pick(rng, EXPRESSIONS);
                    let name = expr.split('(').next().unwrap_or(expr);
                    format!(
                        "{}{name}{}",
                        text.get(..start).unwrap_or(""),
                        text.get(open..).unwrap_or("")
                    )
                }
                None => format!("SELECT {}", pick(rng, EXPRESSIONS)),
            },
        };
    }
    text
}

/// The fixed probes: each effectful expression and piece on its own and in a
/// plain read, so every one is asked of the policy whatever the draw.
fn probes() -> Vec<String> {
    let mut out = Vec::new();
    for e in EXPRESSIONS {
        out.push(format!("SELECT {e}"));
        out.push(format!("SELECT {e} FROM users"));
        out.push(format!("SELECT id FROM users WHERE {e} IS NOT NULL"));
    }
    for p in PIECES {
        out.push((*p).to_owned());
        out.push(format!("SELECT 1; {p}"));
        out.push(format!("SELECT id FROM users {p}"));
    }
    out
}

/// Up to `keep` distinct generated statements per dialect `target` honours
/// that the policy proves read-only, from `draws` mutations per dialect.
///
/// # Errors
/// A message when the vectors cannot be read or a dialect is refused.
pub fn sample(
    target: Target,
    seed: u64,
    draws: usize,
    keep: usize,
) -> Result<Vec<SqlCall>, String> {
    let seeds = seeds()?;
    let mut rng = Rng(seed);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for dialect in target.dialects() {
        let engine = engine_for(dialect)?;
        let label = dialect.unwrap_or("generic");
        let generated = (0..draws).map(|_| {
            let seed = pick_string(&mut rng, &seeds);
            mutate(&mut rng, &seed)
        });
        let mut kept = 0;
        for (i, sql) in probes().into_iter().chain(generated).enumerate() {
            if kept >= keep {
                break;
            }
            if seen.contains(&sql) || !proven(&engine, &sql) {
                continue;
            }
            seen.insert(sql.clone());
            kept += 1;
            out.push(SqlCall {
                name: format!("generated {label} #{i}"),
                sql,
                dialect: dialect.map(str::to_owned),
            });
        }
    }
    Ok(out)
}

/// One seed at random.
fn pick_string(rng: &mut Rng, seeds: &[String]) -> String {
    seeds
        .get(rng.below(seeds.len()))
        .cloned()
        .unwrap_or_default()
}
