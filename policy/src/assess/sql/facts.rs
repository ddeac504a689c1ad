//! The facts an SQL rule is judged on: per top-level statement its kind,
//! every table it names (after the dialect's identifier rules), whether it is
//! proven read-only or destructive, and whether anything in it besides its
//! own write is unsafe (the query checks of the read-only proof, run on the
//! whole statement but its top: `INSERT INTO t SELECT pg_read_file(…)` is
//! not clean, so no rule for `INSERT` into `t` covers it).
//!
//! Text the proof could not read as one unambiguous parse (a parse error, a
//! reading that splits differently, an executable comment, dynamic SQL,
//! nesting past the bounds) has no statements: no rule covers any of it.

use super::{classify, parse_all, parser_dialect, Ctx, QueryCheck};
use crate::assess::facts::{SqlFacts, SqlStatement, TableName};
use crate::assess::Verdict;
use crate::codes;
use sqlparser::ast::{ObjectName, ObjectNamePart, ObjectType, Statement};
use sqlparser::tokenizer::Tokenizer;
use std::ops::ControlFlow;

/// Findings of the proof that mean the text was not read as one clean parse.
const UNREAD: &[&str] = &[
    codes::SQL_PARSE_ERROR,
    codes::SQL_AMBIGUOUS,
    codes::SQL_EXECUTABLE_COMMENT,
    codes::SQL_TOO_COMPLEX,
    codes::SQL_DYNAMIC,
    codes::SQL_EMPTY,
];

/// The facts of SQL text in `dialect`, with `allow` as pure functions too.
pub fn sql_facts(sql: &str, dialect: &str, allow: &[String]) -> SqlFacts {
    // `TABLE name` is judged as the `SELECT * FROM name` it is short for
    // (see `sql_floor`), so its facts are that statement's: a rule on the
    // table meets it, and the parse oracles compare the same reading.
    if let Some(name) = crate::assess::sql_floor::only_table(sql) {
        return sql_facts(&format!("SELECT * FROM {name}"), dialect, allow);
    }
    // The proof first: it holds the bounds (size, nesting, readings) that
    // make the parse below safe, and says whether the text was read cleanly.
    let proof = super::assess_sql_with(sql, dialect, allow);
    if proof
        .findings
        .iter()
        .any(|f| UNREAD.contains(&f.code.as_str()))
    {
        return SqlFacts::default();
    }
    let parser = parser_dialect(dialect);
    let tokens = Tokenizer::new(parser.as_ref(), sql).tokenize_with_location();
    let Ok(statements) = parse_all(tokens, parser.as_ref()) else {
        return SqlFacts::default();
    };
    let ctx = Ctx {
        dialect,
        allow,
        depth: 0,
    };
    SqlFacts {
        statements: statements.iter().map(|s| statement(s, ctx)).collect(),
    }
}

fn statement(statement: &Statement, ctx: Ctx<'_>) -> SqlStatement {
    let (verdict, _) = classify(statement, "the statement", ctx);
    let mut check = QueryCheck {
        label: "the statement",
        allow: ctx.allow,
        plan_only: false,
        skip_top: true,
        ctes: Vec::new(),
        verdict: Verdict::ReadOnly,
        findings: Vec::new(),
    };
    let _ = super::walk::walk(statement, &mut check);
    let (tables, readable) = tables(statement);
    SqlStatement {
        kind: kind(statement),
        tables,
        read_only: verdict == Verdict::ReadOnly,
        destructive: verdict == Verdict::Destructive,
        clean: readable && check.verdict == Verdict::ReadOnly,
    }
}

/// The kind a rule may name, for the statements rules cover; every other
/// statement (a view, a schema, a procedure, a session setting) has none.
fn kind(statement: &Statement) -> Option<&'static str> {
    Some(match statement {
        Statement::Query(_) => "SELECT",
        Statement::Insert(_) => "INSERT",
        Statement::Update(_) => "UPDATE",
        Statement::Delete(_) => "DELETE",
        Statement::Merge(_) => "MERGE",
        Statement::Truncate(_) => "TRUNCATE",
        Statement::CreateTable(_) => "CREATE",
        Statement::AlterTable(_) => "ALTER",
        Statement::Drop {
            object_type: ObjectType::Table,
            ..
        } => "DROP",
        _ => return None,
    })
}

/// Every table the statement names, and whether every name could be read.
fn tables(statement: &Statement) -> (Vec<TableName>, bool) {
    let mut names: Vec<&ObjectName> = Vec::new();
    match statement {
        Statement::Drop { names: dropped, .. } => names.extend(dropped),
        Statement::Delete(delete) => names.extend(&delete.tables),
        _ => {}
    }
    let mut collected = Vec::new();
    let _ = super::walk::relations(statement, |relation| {
        collected.push(relation.clone());
        ControlFlow::Continue(())
    });
    let mut out: Vec<TableName> = Vec::new();
    let mut readable = true;
    for name in names.into_iter().chain(collected.iter()) {
        match table_name(name) {
            Some(table) => {
                if !out.contains(&table) {
                    out.push(table);
                }
            }
            None => readable = false,
        }
    }
    (out, readable)
}

/// A name as the database resolves it: unquoted identifiers fold to lower
/// case; quoted ones are kept. A name with a part that is not an identifier
/// (a function) cannot be read.
fn table_name(name: &ObjectName) -> Option<TableName> {
    let parts: Option<Vec<String>> = name
        .0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => Some(match ident.quote_style {
                None => ident.value.to_lowercase(),
                Some(_) => ident.value.clone(),
            }),
            _ => None,
        })
        .collect();
    let mut parts = parts?;
    let name = parts.pop()?;
    if name.is_empty() {
        return None;
    }
    Some(TableName {
        schema: (!parts.is_empty()).then(|| parts.join(".")),
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(sql: &str) -> Vec<SqlStatement> {
        sql_facts(sql, "postgres", &[]).statements
    }

    #[test]
    fn kinds_tables_and_cleanliness() {
        let f = facts("INSERT INTO audit.Events (a) VALUES (1)");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, Some("INSERT"));
        assert_eq!(
            f[0].tables,
            vec![TableName {
                schema: Some("audit".into()),
                name: "events".into()
            }]
        );
        assert!(f[0].clean && !f[0].read_only && !f[0].destructive);
        let f = facts("INSERT INTO t SELECT pg_read_file('/etc/passwd')");
        assert!(!f[0].clean);
        let f = facts("UPDATE \"T\" SET a = 1 WHERE id = 2; SELECT 1");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].tables[0].name, "T");
        assert!(f[1].read_only);
        let f = facts("DROP TABLE a.b, c");
        assert_eq!(f[0].kind, Some("DROP"));
        assert!(f[0].destructive);
        assert_eq!(f[0].tables.len(), 2);
        assert_eq!(facts("DROP SCHEMA audit")[0].kind, None);
        let f = facts("WITH x AS (DELETE FROM t RETURNING *) INSERT INTO u SELECT * FROM x");
        assert!(!f[0].clean);
        assert!(facts("SELECT 1; DROP TABLE t /* ").is_empty());
        assert!(facts("SELEC 1").is_empty());
    }
}
