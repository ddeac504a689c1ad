//! The SQL statements the policy proves read-only, gathered for the engine
//! oracles: every `execute_sql` vector whose call is allowed by the policy's
//! own proof (source `whitelist`), under a dialect the engine can be asked to
//! honour, plus a deterministic sample of generated statements (see
//! [`crate::sqlgen`]).
//!
//! Allows the model earned (`risk_level: low`) or the configuration granted
//! (`model_trust`, `auto_approved_tools`) are not claims that a statement is
//! read-only, so they are not judged here; their count is reported instead.

use crate::root;
use serde_json::Value;
use toolgate_policy::{Action, Engine, Source};

/// An engine an oracle runs: which configured dialects it must honour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// SQLite: the `sqlite` dialect and the unconfigured (generic) reading.
    Sqlite,
    /// PostgreSQL: the `postgres` dialect and the unconfigured (generic) reading.
    Postgres,
    /// DuckDB: the `duckdb` dialect and the unconfigured (generic) reading.
    Duckdb,
}

impl Target {
    /// The dialect names (as `tools.execute_sql.dialect` spells them) whose
    /// allows this engine must survive. `None` is a deployment that never set a
    /// dialect: the generic reading, which must be safe on every engine.
    fn accepts(self, dialect: Option<&str>) -> bool {
        let Some(dialect) = dialect else {
            return true;
        };
        let dialect = dialect.to_ascii_lowercase();
        match self {
            Target::Sqlite => matches!(dialect.as_str(), "generic" | "sqlite"),
            Target::Postgres => matches!(dialect.as_str(), "generic" | "postgres" | "postgresql"),
            Target::Duckdb => matches!(dialect.as_str(), "generic" | "duckdb"),
        }
    }

    /// The dialects the generator proposes statements under.
    pub fn dialects(self) -> [Option<&'static str>; 2] {
        match self {
            Target::Sqlite => [None, Some("sqlite")],
            Target::Postgres => [None, Some("postgres")],
            Target::Duckdb => [None, Some("duckdb")],
        }
    }
}

/// One statement the policy proved read-only.
#[derive(Clone, Debug)]
pub struct SqlCall {
    /// Where it came from: the vector's name, or the generator's label.
    pub name: String,
    /// The SQL text, exactly as the tool would send it to the server.
    pub sql: String,
    /// The configured dialect, `None` for the generic reading.
    pub dialect: Option<String>,
}

/// What [`vectors`] found.
#[derive(Debug, Default)]
pub struct Gathered {
    /// The statements the policy proved read-only.
    pub calls: Vec<SqlCall>,
    /// Allowed `execute_sql` calls not judged: allowed by the model's rating or
    /// by configuration, not by a proof.
    pub not_proofs: usize,
}

/// The configured dialect of `execute_sql` in a vector's configuration.
fn dialect_of(config: Option<&Value>) -> Option<String> {
    config?
        .get("tools")?
        .get("execute_sql")?
        .get("dialect")?
        .as_str()
        .map(str::to_owned)
}

/// The policy engine for a dialect (`None`: no configuration).
///
/// # Errors
/// A message when the configuration is refused.
pub fn engine_for(dialect: Option<&str>) -> Result<Engine, String> {
    match dialect {
        None => Ok(Engine::default()),
        Some(d) => {
            let config = serde_json::json!({"tools": {"execute_sql": {"dialect": d}}});
            Engine::from_text(&config.to_string()).map_err(|e| e.to_string())
        }
    }
}

/// Whether `engine` proves `sql` read-only (allow from its own proof).
pub fn proven(engine: &Engine, sql: &str) -> bool {
    let args = serde_json::json!({ "sql": sql }).to_string();
    let decision = engine.assess("execute_sql", &args);
    decision.action == Action::Allow && decision.source == Source::Whitelist
}

/// Every `execute_sql` vector in `tests/conformance/*.jsonl` that the policy
/// proves read-only under a dialect `target` honours.
///
/// # Errors
/// A message when a vector file cannot be read or holds a line that is not JSON.
pub fn vectors(target: Target) -> Result<Gathered, String> {
    let dir = root().join("tests").join("conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut out = Gathered::default();
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line)
                .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
            if v.get("kind").and_then(Value::as_str).unwrap_or("assess") != "assess"
                || v.get("tool").and_then(Value::as_str) != Some("execute_sql")
            {
                continue;
            }
            let config = v.get("config");
            let dialect = dialect_of(config);
            if !target.accepts(dialect.as_deref()) {
                continue;
            }
            let engine = match config {
                Some(c) => Engine::from_text(&c.to_string())
                    .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?,
                None => Engine::default(),
            };
            let args = v.get("args").cloned().unwrap_or(Value::Null);
            let args_text = match &args {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let decision = engine.assess("execute_sql", &args_text);
            if decision.action != Action::Allow {
                continue;
            }
            let sql = args.get("sql").and_then(Value::as_str);
            match (decision.source, sql) {
                (Source::Whitelist, Some(sql)) => out.calls.push(SqlCall {
                    name: v
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    sql: sql.to_owned(),
                    dialect,
                }),
                _ => out.not_proofs += 1,
            }
        }
    }
    Ok(out)
}
