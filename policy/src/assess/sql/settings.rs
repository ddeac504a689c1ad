//! Which server settings a statement may read, and which activity columns.
//!
//! An allowlist generated from the engines' own catalogs
//! (`oracles/catalog/generate.py`, engine versions in each file's header): a
//! setting is readable when its type cannot hold a credential, command, path or
//! connection string (bool, integer, real, enum) or when a string setting was
//! reviewed as holding none. `primary_conninfo` (a replication password),
//! `ssl_passphrase_command`, DuckDB's `http_proxy_password` and every setting no
//! list names are not: a name is read only when some engine lists it readable
//! and no engine lists it secret. Servers with no engine here share a small
//! standard list.

/// PostgreSQL 15's settings, `name<TAB>read|secret`.
const POSTGRES: &str = include_str!("catalog/postgres-settings.tsv");
/// DuckDB 2.0's settings, `name<TAB>read|secret`.
const DUCKDB: &str = include_str!("catalog/duckdb-settings.tsv");
/// The standard list for other servers.
const STANDARD: &str = include_str!("catalog/standard-settings.tsv");
/// PostgreSQL 15's `pg_stat_activity` columns, `name<TAB>read|secret`.
const ACTIVITY: &str = include_str!("catalog/postgres-activity-columns.tsv");

/// What a list says of `name`: `Some(true)` readable, `Some(false)` secret.
fn listed(list: &str, name: &str) -> Option<bool> {
    list.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (n, class) = line.split_once('\t')?;
            n.eq_ignore_ascii_case(name).then_some(class == "read")
        })
}

/// Whether the setting `name` may be read (`SHOW name`, `current_setting('name')`,
/// `@@name`, a settings view filtered to it).
pub fn readable(name: &str) -> bool {
    let answers = [
        listed(POSTGRES, name),
        listed(DUCKDB, name),
        listed(STANDARD, name),
    ];
    answers.contains(&Some(true)) && !answers.contains(&Some(false))
}

/// Views that list every setting with its value: read only when filtered to
/// readable names.
pub const SETTINGS_VIEWS: &[&str] = &[
    "pg_settings",
    "duckdb_settings",
    "global_variables",
    "session_variables",
    "variables_by_thread",
    "persisted_variables",
    // Per-role and per-database settings (PostgreSQL): `ALTER ROLE … SET`
    // values, with no `name` column to filter by.
    "pg_db_role_setting",
];

/// Views of other sessions' activity. Their statement text is a secret (it
/// holds `ALTER ROLE … PASSWORD '…'` while it runs): only the listed columns
/// of `pg_stat_activity`-like views may be read.
pub const ACTIVITY_VIEWS: &[&str] = &["pg_stat_activity", "pg_stat_get_activity", "processlist"];

/// Views and functions that exist to show statement text (query statistics,
/// statement histories, a request's SQL text): secrets whatever is selected.
pub const STATEMENT_TEXT_VIEWS: &[&str] = &[
    "pg_stat_statements",
    "events_statements_current",
    "events_statements_history",
    "events_statements_history_long",
    "events_statements_summary_by_digest",
    "dm_exec_sql_text",
    "dm_exec_query_stats",
    "dm_exec_input_buffer",
    "query_history",
    "duckdb_logs",
];

/// Whether a column of an activity view may be read.
pub fn activity_column(name: &str) -> bool {
    // MySQL's processlist columns other than INFO (the statement).
    const PROCESSLIST: &[&str] = &["id", "user", "host", "db", "command", "time", "state"];
    listed(ACTIVITY, name) == Some(true) || PROCESSLIST.iter().any(|c| c.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_hold_what_the_catalogs_say() {
        assert!(readable("search_path"));
        assert!(readable("work_mem"));
        assert!(readable("WORK_MEM"));
        assert!(readable("max_connections"));
        assert!(!readable("primary_conninfo"));
        assert!(!readable("ssl_passphrase_command"));
        assert!(!readable("http_proxy_password"));
        assert!(!readable("all"));
        assert!(!readable("s3_secret_access_key"));
        assert!(!readable("app.settings.jwt_secret"));
        assert!(activity_column("pid"));
        assert!(!activity_column("query"));
        assert!(!activity_column("info"));
    }
}
