//! What the SQL floor reads in text the parser does not read as a relation:
//! PostgreSQL's `TABLE name` (short for `SELECT * FROM name`, which some
//! dialects of the parser refuse), and functions that take a relation's name
//! as text and return its rows (`table_to_xml('pg_authid', …)`, DuckDB's
//! `query_table('x')`). Each such name is judged as `SELECT * FROM name`
//! would be, so the secret catalogs are met whatever the spelling; and a
//! function the policy does not know, applied to a system catalog, is a
//! call whose result the code layer cannot read (`sql.catalog-function`).
//! Findings only: the floor may over-match, never allow.

use super::{Assessment, Verdict};
use crate::codes;
use crate::decision::Finding;
use crate::text::preview;

/// Functions whose first argument names a relation as text and which return
/// its rows (PostgreSQL 9.26 XML functions; DuckDB `query_table`).
const RELATION_TEXT_FUNCTIONS: &[&str] = &[
    "table_to_xml",
    "table_to_xmlschema",
    "table_to_xml_and_xmlschema",
    "query_table",
];

/// Prefixes of system catalog names: PostgreSQL's `pg_` and
/// `information_schema`, MySQL's `mysql.`, SQL Server's `sys.`, SQLite's
/// `sqlite_` tables, Oracle's `dba_`/`all_`/`user_` dictionary views.
const CATALOG_PREFIXES: &[&str] = &[
    "pg_",
    "information_schema",
    "mysql.",
    "sys.",
    "sqlite_",
    "dba_",
    "all_users",
    "performance_schema",
];

/// The longest relation name read out of text.
const MAX_NAME: usize = 128;

/// Adds the floor's findings for relations named as text. `judge` assesses
/// SQL in the call's own dialect and function list.
pub fn add_findings(sql: &str, assessment: &mut Assessment, judge: impl Fn(&str) -> Assessment) {
    // A text that is one `TABLE name` and nothing else is that `SELECT`:
    // judged as it, whether the parser's dialect knows the short form or not.
    if let Some(name) = only_table(sql) {
        let operation = std::mem::take(&mut assessment.operation);
        *assessment = judge(&format!("SELECT * FROM {name}"));
        assessment.operation = operation;
        return;
    }
    let mut found = Vec::new();
    for (name, how) in relations_named(sql).into_iter().take(16) {
        let read = judge(&format!("SELECT * FROM {name}"));
        if let Some(secret) = read.findings.iter().find(|f| f.code == codes::SQL_SECRETS) {
            found.push(Finding::new(
                codes::SQL_SECRETS,
                format!(
                    "{how} reads `{name}` as `SELECT * FROM {name}` would: {}",
                    secret.message
                ),
            ));
        }
    }
    let unknown = assessment
        .findings
        .iter()
        .any(|f| f.code == codes::SQL_UNKNOWN_FUNCTION);
    if unknown {
        if let Some(catalog) = catalog_word(sql) {
            found.push(Finding::new(
                codes::SQL_CATALOG_FUNCTION,
                format!(
                    "a function the policy does not know is applied where a system catalog (`{}`) is named: what it returns cannot be read",
                    preview(&catalog, 40)
                ),
            ));
        }
    }
    if found.is_empty() {
        return;
    }
    if assessment.verdict == Verdict::ReadOnly {
        assessment.verdict = Verdict::Unproven;
        assessment
            .findings
            .retain(|f| f.code != codes::SQL_READ_ONLY);
    }
    assessment.findings.extend(found);
}

/// Every relation the text names outside the parser's reach, with how.
fn relations_named(sql: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for statement in sql.split(';') {
        let trimmed = statement.trim_start();
        let Some(rest) = strip_word(trimmed, "table") else {
            continue;
        };
        let rest = strip_word(rest.trim_start(), "only")
            .unwrap_or(rest)
            .trim_start();
        if let Some(name) = name_at(rest) {
            out.push((name, "`TABLE name`"));
        }
    }
    let lower = sql.to_ascii_lowercase();
    for function in RELATION_TEXT_FUNCTIONS {
        let mut from = 0;
        while let Some(at) = lower.get(from..).and_then(|l| l.find(function)) {
            let start = from + at;
            from = start + function.len();
            let before = lower.get(..start).and_then(|b| b.chars().last());
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let after = sql.get(from..).unwrap_or("").trim_start();
            let Some(args) = after.strip_prefix('(') else {
                continue;
            };
            let args = args.trim_start();
            let args = args
                .strip_prefix(['E', 'e'])
                .filter(|a| a.starts_with('\''))
                .unwrap_or(args);
            let literal = args.strip_prefix('\'').and_then(|a| a.split('\'').next());
            if let Some(name) = literal.and_then(|l| name_at(l).filter(|n| n == l)) {
                out.push((name, "a function that reads a relation named as text"));
            }
            if out.len() >= 16 {
                return out;
            }
        }
    }
    out
}

/// The relation of a text that is a single `TABLE [ONLY] name [*]` (a
/// trailing `;` and white space allowed), if it is one.
pub(crate) fn only_table(sql: &str) -> Option<String> {
    let text = sql.trim();
    let text = text.strip_suffix(';').unwrap_or(text).trim_end();
    let rest = strip_word(text, "table")?.trim_start();
    let rest = strip_word(rest, "only").unwrap_or(rest).trim_start();
    let name = name_at(rest)?;
    let tail = rest.get(name.len()..)?.trim();
    (tail.is_empty() || tail == "*").then_some(name)
}

/// `text` without a leading keyword (any case) followed by a space.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = text.get(word.len()..)?;
    (head.eq_ignore_ascii_case(word) && rest.starts_with(char::is_whitespace)).then_some(rest)
}

/// A relation name at the start of `text` (identifier characters, dots and
/// quotes), rewritable into a `FROM` clause as written.
fn name_at(text: &str) -> Option<String> {
    let end = text
        .find(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '"' | '`' | '$' | '[' | ']'))
        })
        .unwrap_or(text.len());
    let name = text.get(..end)?;
    let balanced = name.matches('"').count() % 2 == 0 && name.matches('`').count() % 2 == 0;
    (!name.is_empty()
        && name.len() <= MAX_NAME
        && balanced
        && name.chars().any(|c| c.is_ascii_alphabetic()))
    .then(|| name.to_owned())
}

/// A word of the text that names a system catalog, if any.
fn catalog_word(sql: &str) -> Option<String> {
    let lower = sql.to_ascii_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')))
        .find(|w| CATALOG_PREFIXES.iter().any(|p| w.starts_with(p)))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_text() {
        let names = |sql: &str| {
            relations_named(sql)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("TABLE pg_authid"), ["pg_authid"]);
        assert_eq!(names("  table only public.users;"), ["public.users"]);
        assert_eq!(
            names("SELECT table_to_xml('pg_authid', true, false, '')"),
            ["pg_authid"]
        );
        assert_eq!(names("select * from query_table('secrets')"), ["secrets"]);
        assert!(names("SELECT my_table_to_xml('x')").is_empty());
        assert!(names("SELECT * FROM tablets").is_empty());
        assert!(names("SELECT table_to_xml('x; drop table t', true)").is_empty());
    }
}
