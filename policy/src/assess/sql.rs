//! `execute_sql`: a statement list is read-only only if the real SQL parser
//! understood all of it and every statement, with every query nested inside it,
//! only reads.
//!
//! Anything the parser refuses is not proven safe, so it is `confirm`: a
//! dialect trick that confuses the parser must never turn into an allow.

mod functions;

use super::{combine, Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::context::Context;
use crate::decision::Finding;
use crate::text::preview;
use functions::Class;
use serde_json::{Map, Value};
use sqlparser::ast::{
    AlterTableOperation, Expr, ObjectName, ObjectNamePart, Query, Select, Statement, TableFactor,
    UtilityOption, Value as SqlValue, Visit, Visitor,
};
use sqlparser::dialect::{dialect_from_str, Dialect, GenericDialect};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, TokenizerError, Whitespace};
use std::ops::ControlFlow;

/// Nesting depth the parser may reach before it gives up (and the call is
/// confirmed). Deep enough for real queries, shallow enough that the deepest
/// accepted input fits a 2 MiB stack even in a debug build (30 chained `NOT`s
/// do not; see `the_deepest_accepted_input_fits_a_small_stack`).
const RECURSION_LIMIT: usize = 24;

/// The deepest bracket nesting (`(` and `[`) analysed. sqlparser spends several
/// recursion levels, and tens of kilobytes of stack, on each nested subquery or
/// derived table: 11 nested derived tables overflow a 2 MiB stack (a test
/// thread's) in a debug build, 24 a 1 MiB stack (the component's) in release.
/// Real queries rarely nest brackets more than a few deep; a deeper one is
/// confirmed without being parsed.
const MAX_NESTING: usize = 8;

/// The deepest bracket nesting of the tokens (the tokenizer does not recurse).
fn nesting(tokens: &[TokenWithSpan]) -> usize {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for token in tokens {
        match token.token {
            Token::LParen | Token::LBracket => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The SQL assessor: reads the statement text from one string argument.
#[derive(Clone, Debug)]
pub struct SqlAssessor {
    /// The argument that holds the SQL text.
    pub field: String,
    /// The dialect name, as sqlparser's `dialect_from_str` knows it (checked
    /// when the configuration is read).
    pub dialect: String,
    /// Functions the deployment accepts as read-only besides the built-in list.
    pub allow_functions: Vec<String>,
}

impl Default for SqlAssessor {
    fn default() -> Self {
        SqlAssessor {
            field: String::from("sql"),
            dialect: String::from("generic"),
            allow_functions: Vec::new(),
        }
    }
}

impl Assessor for SqlAssessor {
    fn assess(&self, args: &Map<String, Value>, _context: &Context) -> Assessment {
        let sql = match string_field(args, &self.field) {
            Ok(sql) => sql,
            Err(finding) => return Assessment::single(Verdict::Unproven, "", finding),
        };
        let dialect = dialect_from_str(&self.dialect).unwrap_or_else(|| Box::new(GenericDialect));
        assess_sql_with(sql, dialect.as_ref(), &self.allow_functions)
    }
}

/// Assesses SQL text in the generic dialect with the built-in function list.
pub fn assess_sql(sql: &str) -> Assessment {
    assess_sql_with(sql, &GenericDialect, &[])
}

/// A comment the server executes: MySQL and MariaDB run the text of `/*! … */`
/// and `/*M! … */` comments, which a parser of another dialect skips (and even
/// the MySQL dialect's tokenizer may read differently from the server). Found
/// by a scan of the raw text that skips string literals, quoted identifiers and
/// ordinary comments.
fn executable_comment(sql: &str) -> Option<String> {
    let bytes = sql.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\'' | b'"' | b'`' => {
                // Skip to the closing quote; a doubled quote or a backslash escapes.
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    if c == b'\\' {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    if c == b {
                        if bytes.get(i) == Some(&b) {
                            i += 1;
                            continue;
                        }
                        break;
                    }
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'#' => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let rest = sql.get(i + 2..).unwrap_or("");
                if rest.starts_with('!') || rest.starts_with("M!") {
                    let end = rest.find("*/").unwrap_or(rest.len());
                    return Some(rest.get(..end).unwrap_or(rest).to_owned());
                }
                i += 2 + rest.find("*/").map_or(rest.len(), |end| end + 2);
            }
            _ => i += 1,
        }
    }
    None
}

/// Parses every statement of `sql`, and insists that nothing is left over:
/// sqlparser stops quietly at a stray `END` (which closes blocks in some
/// dialects), so `SELECT 1 END; DROP TABLE t` would otherwise look like one
/// harmless statement.
fn parse_all(
    tokens: Result<Vec<TokenWithSpan>, TokenizerError>,
    dialect: &dyn Dialect,
) -> Result<Vec<Statement>, String> {
    // The same error text the parser gives when it tokenizes by itself.
    let tokens = tokens.map_err(|e| ParserError::from(e).to_string())?;
    let mut parser = Parser::new(dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let statements = parser.parse_statements().map_err(|e| e.to_string())?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(format!(
            "text left over after the last statement, from `{}`",
            next.token
        ));
    }
    Ok(statements)
}

/// SQL that could not be analysed: never proven read-only, and destructive for
/// the floor if any word in it is a destroying keyword or a side-effecting
/// function. A statement the parser rejects may still be one the server runs
/// (`x; DROP TABLE t` fails to parse as a whole), so the floor must not depend
/// on the parse.
fn unparsed(operation: String, dialect: &dyn Dialect, finding: Finding) -> Assessment {
    let mut assessment = Assessment::single(Verdict::Unproven, operation, finding);
    if let Some(word) = destroying_word(&assessment.operation, dialect, true) {
        assessment.verdict = Verdict::Destructive;
        assessment.findings.insert(
            0,
            Finding::new(
                codes::SQL_DESTRUCTIVE,
                format!("the text holds `{word}`, which may destroy data or have side effects"),
            ),
        );
    }
    assessment
}

/// The first destroying keyword (`DROP`, `DELETE`, `TRUNCATE`, `UPDATE`,
/// `MERGE`) or side-effecting function name among the words of `sql`: from the
/// tokenizer when it can read the text (so words inside string literals do not
/// count), else from a plain scan of the text.
fn destroying_word(sql: &str, dialect: &dyn Dialect, in_comments: bool) -> Option<String> {
    const KEYWORDS: &[&str] = &["drop", "delete", "truncate", "update", "merge"];
    let destroys = |word: &str| {
        let lower = word.to_ascii_lowercase();
        KEYWORDS.contains(&lower.as_str())
            || functions::classify(std::slice::from_ref(&lower), &[]) == Class::SideEffect
    };
    match Tokenizer::new(dialect, sql).tokenize() {
        Ok(tokens) => tokens.into_iter().find_map(|token| match token {
            Token::Word(word) if word.quote_style.is_none() && destroys(&word.value) => {
                Some(word.value)
            }
            // Text the server may execute: look inside.
            Token::Whitespace(Whitespace::MultiLineComment(text)) if in_comments => {
                destroying_word(text.trim_start_matches(['!', 'M']), dialect, true)
            }
            _ => None,
        }),
        Err(_) => sql
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|word| destroys(word))
            .map(str::to_owned),
    }
}

/// Assesses SQL text in `dialect`, accepting `allow_functions` as pure too.
pub fn assess_sql_with(sql: &str, dialect: &dyn Dialect, allow_functions: &[String]) -> Assessment {
    let operation = sql.to_owned();
    if let Some(comment) = executable_comment(sql) {
        return unparsed(
            operation,
            dialect,
            Finding::new(
                codes::SQL_EXECUTABLE_COMMENT,
                format!(
                    "`/*{}*/` is a comment the server executes; its text is not analysed",
                    preview(&comment, 40)
                ),
            ),
        );
    }
    // Tokenized once: for the nesting bound here and for the parser below.
    let tokens = Tokenizer::new(dialect, sql).tokenize_with_location();
    if let Some(depth) = tokens
        .as_ref()
        .ok()
        .map(|t| nesting(t))
        .filter(|&d| d > MAX_NESTING)
    {
        return unparsed(
            operation,
            dialect,
            Finding::new(
                codes::SQL_TOO_COMPLEX,
                format!("brackets nested {depth} deep (more than {MAX_NESTING}) are not analysed"),
            ),
        );
    }
    let statements = match parse_all(tokens, dialect) {
        Ok(statements) => statements,
        Err(message) => {
            return unparsed(
                operation,
                dialect,
                Finding::new(
                    codes::SQL_PARSE_ERROR,
                    format!(
                        "the SQL could not be parsed, so it is not proven read-only: {message}"
                    ),
                ),
            )
        }
    };
    if statements.is_empty() {
        return Assessment::single(
            Verdict::Unproven,
            operation,
            Finding::new(codes::SQL_EMPTY, "the SQL holds no statement"),
        );
    }

    let many = statements.len() > 1;
    let mut verdict = Verdict::ReadOnly;
    let mut findings = Vec::new();
    for (index, statement) in statements.iter().enumerate() {
        let label = if many {
            format!(
                "statement {} (`{}`)",
                index + 1,
                preview(&statement.to_string(), 60)
            )
        } else {
            format!("`{}`", preview(&statement.to_string(), 60))
        };
        let (part, mut part_findings) = classify(statement, &label, allow_functions);
        verdict = combine(verdict, part);
        findings.append(&mut part_findings);
    }
    if verdict == Verdict::ReadOnly {
        findings.push(Finding::new(
            codes::SQL_READ_ONLY,
            if many {
                format!("all {} statements only read", statements.len())
            } else {
                String::from("the statement only reads")
            },
        ));
    } else if many {
        findings.push(Finding::new(
            codes::SQL_MULTI_STATEMENT,
            format!("{} statements, each judged on its own", statements.len()),
        ));
    }
    // The most severe finding first, so the summary names it.
    findings.sort_by_key(|f| severity_rank(&f.code));
    let mut assessment = Assessment::new(verdict, operation);
    assessment.findings = findings;
    assessment
}

fn severity_rank(code: &str) -> u8 {
    match code {
        codes::SQL_DESTRUCTIVE | codes::SQL_SIDE_EFFECT_FUNCTION => 0,
        codes::SQL_WRITE | codes::SQL_QUERY_WRITES | codes::SQL_EXPLAIN_ANALYZE => 1,
        codes::SQL_UNKNOWN_FUNCTION => 2,
        _ => 3,
    }
}

/// Classifies one top-level statement. Every arm that answers read-only names its
/// statement kind; everything else falls to `not_read`, which never allows.
fn classify(statement: &Statement, label: &str, allow: &[String]) -> (Verdict, Vec<Finding>) {
    match statement {
        Statement::Query(query) => check_query(query, label, allow),
        Statement::Explain {
            analyze,
            options,
            statement: inner,
            ..
        } => {
            if *analyze || options.as_deref().is_some_and(has_analyze_option) {
                let (verdict, mut findings) = classify(inner, label, allow);
                if verdict != Verdict::ReadOnly {
                    findings.insert(
                        0,
                        Finding::new(
                            codes::SQL_EXPLAIN_ANALYZE,
                            format!("{label}: EXPLAIN ANALYZE runs the statement it explains"),
                        ),
                    );
                }
                (verdict, findings)
            } else {
                // A plain EXPLAIN plans its statement without running it.
                (Verdict::ReadOnly, Vec::new())
            }
        }
        // sqlparser reads any run of tokens after `SHOW` as a variable name
        // (`SHOW x -- …\nDROP TABLE t` is one statement to it); only a plain
        // dotted name is a SHOW the server reads the same way.
        Statement::ShowVariable { variable } if !plain_name(variable) => {
            match destroying_word(&statement.to_string(), &GenericDialect, false) {
                Some(word) => (
                    Verdict::Destructive,
                    vec![Finding::new(
                        codes::SQL_DESTRUCTIVE,
                        format!("{label} holds `{word}`, which the server may run as a statement"),
                    )],
                ),
                None => not_read(statement, label),
            }
        }
        Statement::ExplainTable { .. }
        | Statement::ShowFunctions { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowProcessList { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCharset(_)
        | Statement::ShowObjects(_)
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. }
        | Statement::ShowCollation { .. }
        // Choosing the default database, opening a transaction or rolling one back
        // changes no data; the statements that follow are judged on their own.
        | Statement::Use(_)
        | Statement::StartTransaction { .. }
        | Statement::Rollback {
            savepoint: None, ..
        } => (Verdict::ReadOnly, Vec::new()),
        Statement::Pragma { name, value, is_eq } if pragma_reads(name, value.is_some(), *is_eq) => {
            (Verdict::ReadOnly, Vec::new())
        }
        other => not_read(other, label),
    }
}

/// One to three identifiers of letters, digits and underscores, none of them a
/// keyword that starts a statement of its own.
fn plain_name(parts: &[sqlparser::ast::Ident]) -> bool {
    const STATEMENT_WORDS: &[&str] = &[
        "drop", "delete", "truncate", "update", "merge", "insert", "alter", "create", "grant",
        "revoke", "set", "call", "copy", "select", "with",
    ];
    (1..=3).contains(&parts.len())
        && parts.iter().all(|ident| {
            !ident.value.is_empty()
                && ident
                    .value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !STATEMENT_WORDS.contains(&ident.value.to_ascii_lowercase().as_str())
        })
}

/// SQLite pragmas that only report. A pragma given a value with `=` sets it.
fn pragma_reads(name: &ObjectName, has_value: bool, is_eq: bool) -> bool {
    const REPORTING: &[&str] = &[
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "database_list",
        "collation_list",
        "function_list",
        "module_list",
        "pragma_list",
        "compile_options",
        "integrity_check",
        "quick_check",
        "foreign_key_check",
    ];
    const SETTINGS: &[&str] = &[
        "user_version",
        "schema_version",
        "application_id",
        "page_count",
        "page_size",
        "freelist_count",
        "encoding",
        "journal_mode",
        "foreign_keys",
        "cache_size",
        "auto_vacuum",
        "data_version",
        "max_page_count",
        "synchronous",
        "busy_timeout",
    ];
    let Some(last) = name.0.last().and_then(ObjectNamePart::as_ident) else {
        return false;
    };
    let pragma = last.value.to_ascii_lowercase();
    if is_eq {
        return false;
    }
    REPORTING.contains(&pragma.as_str()) || (!has_value && SETTINGS.contains(&pragma.as_str()))
}

/// A statement that is not a read: destructive if it positively destroys data or
/// objects, otherwise a write.
fn not_read(statement: &Statement, label: &str) -> (Verdict, Vec<Finding>) {
    match destruction(statement) {
        Some(what) => (
            Verdict::Destructive,
            vec![Finding::new(
                codes::SQL_DESTRUCTIVE,
                format!("{label} {what}"),
            )],
        ),
        None => (
            Verdict::Unproven,
            vec![Finding::new(
                codes::SQL_WRITE,
                format!("{label} is not a read-only statement"),
            )],
        ),
    }
}

/// What a statement destroys, if it is one of the statements that positively do.
/// This list feeds only the guarded floor and the explanations; it never allows.
fn destruction(statement: &Statement) -> Option<&'static str> {
    match statement {
        Statement::Drop { .. }
        | Statement::DropFunction(_)
        | Statement::DropDomain(_)
        | Statement::DropProcedure { .. }
        | Statement::DropSecret { .. }
        | Statement::DropPolicy(_)
        | Statement::DropConnector { .. }
        | Statement::DropExtension(_)
        | Statement::DropOperator(_)
        | Statement::DropOperatorFamily(_)
        | Statement::DropOperatorClass(_)
        | Statement::DropTrigger(_) => Some("drops database objects"),
        Statement::Truncate(_) => Some("deletes every row of a table"),
        Statement::Delete(_) => Some("deletes rows"),
        Statement::Update(_) => Some("overwrites rows"),
        Statement::Merge(_) => Some("may update or delete rows"),
        Statement::AlterTable(alter) if alter.operations.iter().any(drops_data) => {
            Some("drops part of a table")
        }
        _ => None,
    }
}

fn drops_data(operation: &AlterTableOperation) -> bool {
    matches!(
        operation,
        AlterTableOperation::DropColumn { .. }
            | AlterTableOperation::DropPartitions { .. }
            | AlterTableOperation::DropConstraint { .. }
            | AlterTableOperation::DropPrimaryKey { .. }
            | AlterTableOperation::DropForeignKey { .. }
            | AlterTableOperation::DropIndex { .. }
            | AlterTableOperation::DropProjection { .. }
    )
}

/// Whether EXPLAIN's parenthesised options turn ANALYZE on. Only an explicit
/// false value (`false`, `off`, `0`) turns it off; anything else counts as on.
fn has_analyze_option(options: &[UtilityOption]) -> bool {
    options.iter().any(|option| {
        option.name.value.eq_ignore_ascii_case("analyze")
            && !option.arg.as_ref().is_some_and(is_false)
    })
}

fn is_false(expr: &Expr) -> bool {
    match expr {
        Expr::Value(v) => match &v.value {
            SqlValue::Boolean(b) => !b,
            SqlValue::Number(n, _) => n == "0",
            SqlValue::SingleQuotedString(s) => {
                s.eq_ignore_ascii_case("off") || s.eq_ignore_ascii_case("false") || s == "0"
            }
            _ => false,
        },
        Expr::Identifier(ident) => {
            ident.value.eq_ignore_ascii_case("off") || ident.value.eq_ignore_ascii_case("false")
        }
        _ => false,
    }
}

/// A query is read-only when nothing nested in it writes, locks or calls a
/// function that is not known to be pure.
fn check_query(query: &Query, label: &str, allow: &[String]) -> (Verdict, Vec<Finding>) {
    let mut check = QueryCheck {
        label,
        allow,
        verdict: Verdict::ReadOnly,
        findings: Vec::new(),
    };
    // The visitor never breaks; every nested node is seen.
    let _ = query.visit(&mut check);
    (check.verdict, check.findings)
}

/// Walks a query (its CTEs, subqueries, derived tables and set operations) and
/// records everything that makes it more than a read.
struct QueryCheck<'a> {
    label: &'a str,
    allow: &'a [String],
    verdict: Verdict,
    findings: Vec<Finding>,
}

impl QueryCheck<'_> {
    fn record(&mut self, verdict: Verdict, finding: Finding) {
        self.verdict = combine(self.verdict, verdict);
        if !self.findings.contains(&finding) {
            self.findings.push(finding);
        }
    }

    /// Checks one called function by its name.
    fn function(&mut self, name: &ObjectName) {
        let parts: Option<Vec<String>> = name
            .0
            .iter()
            .map(|part| part.as_ident().map(|ident| ident.value.clone()))
            .collect();
        let shown = preview(&name.to_string(), 60);
        let class = parts.map_or(Class::Unknown, |parts| {
            functions::classify(&parts, self.allow)
        });
        match class {
            Class::Pure => {}
            Class::SideEffect => self.record(
                Verdict::Destructive,
                Finding::new(
                    codes::SQL_SIDE_EFFECT_FUNCTION,
                    format!("{}: `{shown}` has side effects beyond reading", self.label),
                ),
            ),
            Class::Unknown => self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_UNKNOWN_FUNCTION,
                    format!(
                        "{}: `{shown}` is not a known read-only function",
                        self.label
                    ),
                ),
            ),
        }
    }
}

/// Table hints that only relax locking; any other hint (`UPDLOCK`, `XLOCK`,
/// `TABLOCKX`, `HOLDLOCK`…) takes locks.
fn harmless_hint(hint: &Expr) -> bool {
    let text = hint.to_string().to_ascii_uppercase();
    matches!(
        text.as_str(),
        "NOLOCK" | "READUNCOMMITTED" | "NOWAIT" | "READPAST"
    )
}

impl QueryCheck<'_> {
    fn hints(&mut self, hints: &[Expr]) {
        if let Some(hint) = hints.iter().find(|h| !harmless_hint(h)) {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_QUERY_WRITES,
                    format!("{}: the table hint `{hint}` takes locks", self.label),
                ),
            );
        }
    }
}

impl Visitor for QueryCheck<'_> {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        // Statements nested in a query: data-modifying CTEs and the like.
        if !matches!(statement, Statement::Query(_)) {
            let (verdict, findings) = not_read(statement, self.label);
            for finding in findings {
                let message = format!("{} (nested inside a query)", finding.message);
                let code = if verdict == Verdict::Destructive {
                    codes::SQL_DESTRUCTIVE
                } else {
                    codes::SQL_QUERY_WRITES
                };
                self.record(verdict, Finding::new(code, message));
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if !query.locks.is_empty() {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_QUERY_WRITES,
                    format!(
                        "{}: a locking clause (FOR UPDATE/SHARE) takes row locks",
                        self.label
                    ),
                ),
            );
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if let Expr::Function(function) = expr {
            self.function(&function.name);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            // `FROM f(…)`: a table-valued function is a function call.
            TableFactor::Table {
                name,
                args: Some(_),
                with_hints,
                ..
            } => {
                self.function(name);
                self.hints(with_hints);
            }
            TableFactor::Table { with_hints, .. } => self.hints(with_hints),
            TableFactor::Function { name, .. } => self.function(name),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        if select.into.is_some() {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_QUERY_WRITES,
                    format!("{}: SELECT … INTO creates a table", self.label),
                ),
            );
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(sql: &str) -> Verdict {
        assess_sql(sql).verdict
    }

    fn codes_of(sql: &str) -> Vec<String> {
        assess_sql(sql)
            .findings
            .into_iter()
            .map(|f| f.code)
            .collect()
    }

    #[test]
    fn seed_whitelist_reads() {
        for sql in [
            "SELECT * FROM users WHERE id = 1",
            "SHOW TABLES",
            "DESCRIBE users",
            "EXPLAIN SELECT * FROM t",
            "SELECT a, count(*) FROM t JOIN u ON t.id = u.id GROUP BY a HAVING count(*) > 1",
            "WITH x AS (SELECT 1 AS a) SELECT a FROM x UNION SELECT 2",
        ] {
            assert_eq!(verdict(sql), Verdict::ReadOnly, "{sql}");
        }
    }

    #[test]
    fn writes_and_destruction() {
        assert_eq!(verdict("INSERT INTO t VALUES (1)"), Verdict::Unproven);
        assert_eq!(verdict("CREATE TABLE t (a INT)"), Verdict::Unproven);
        assert_eq!(verdict("DROP TABLE t"), Verdict::Destructive);
        assert_eq!(verdict("DELETE FROM t"), Verdict::Destructive);
        assert_eq!(verdict("TRUNCATE TABLE t"), Verdict::Destructive);
        assert_eq!(verdict("ALTER TABLE t DROP COLUMN a"), Verdict::Destructive);
        assert_eq!(verdict("ALTER TABLE t ADD COLUMN a INT"), Verdict::Unproven);
    }

    #[test]
    fn every_statement_counts() {
        assert_eq!(verdict("SELECT 1; DROP TABLE t"), Verdict::Destructive);
        let codes = codes_of("SELECT 1; DROP TABLE t");
        assert_eq!(
            codes.first().map(String::as_str),
            Some(codes::SQL_DESTRUCTIVE)
        );
        assert!(codes.iter().any(|c| c == codes::SQL_MULTI_STATEMENT));
    }

    #[test]
    fn nested_writes_are_seen() {
        assert_eq!(
            verdict("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"),
            Verdict::Destructive
        );
        assert_eq!(verdict("SELECT * INTO copy FROM t"), Verdict::Unproven);
        assert_eq!(verdict("SELECT * FROM t FOR UPDATE"), Verdict::Unproven);
        assert_eq!(
            verdict("SELECT * FROM (SELECT * FROM t FOR UPDATE) AS x"),
            Verdict::Unproven
        );
    }

    #[test]
    fn explain_analyze_runs_its_statement() {
        assert_eq!(verdict("EXPLAIN ANALYZE SELECT 1"), Verdict::ReadOnly);
        assert_eq!(
            verdict("EXPLAIN ANALYZE DELETE FROM t"),
            Verdict::Destructive
        );
        assert_eq!(verdict("EXPLAIN DELETE FROM t"), Verdict::ReadOnly);
        assert!(codes_of("EXPLAIN ANALYZE INSERT INTO t VALUES (1)")
            .contains(&codes::SQL_EXPLAIN_ANALYZE.to_owned()));
    }

    #[test]
    fn text_after_a_stray_end_is_not_ignored() {
        assert_eq!(
            verdict("SELECT 1 END; DROP TABLE users"),
            Verdict::Destructive
        );
        assert_eq!(
            codes_of("SELECT 1 end; SELECT 2")[0],
            codes::SQL_PARSE_ERROR
        );
    }

    #[test]
    fn words_the_parser_swallowed_still_count() {
        assert_eq!(
            verdict("SHOW x -- ;\nDROP TABLE users"),
            Verdict::Destructive
        );
        assert_eq!(
            verdict("SELECT 1 -- we may drop this later"),
            Verdict::ReadOnly
        );
        assert_eq!(verdict("SELECT 1 /* delete me */"), Verdict::ReadOnly);
        assert_eq!(verdict("SELECT \"delete\" FROM t"), Verdict::ReadOnly);
    }

    #[test]
    fn destruction_in_unparsed_text_still_floors() {
        assert_eq!(verdict("low;\nDROP TABLE users"), Verdict::Destructive);
        assert_eq!(verdict("SELEC 1; DELETE FROM t"), Verdict::Destructive);
        assert_eq!(
            verdict("SELECT 1 /*! ; DROP TABLE t */"),
            Verdict::Destructive
        );
        assert_eq!(verdict("SELECT 'x; DROP TABLE t"), Verdict::Destructive);
        assert_eq!(verdict("SELEC 'DROP TABLE t'"), Verdict::Unproven);
        assert_eq!(verdict("SELEC pg_sleep(1)"), Verdict::Destructive);
    }

    #[test]
    fn unparseable_and_empty_are_unproven() {
        assert_eq!(codes_of("SELEC 1"), vec![codes::SQL_PARSE_ERROR]);
        assert_eq!(codes_of(";"), vec![codes::SQL_EMPTY]);
        assert_eq!(codes_of("-- only a comment"), vec![codes::SQL_EMPTY]);
        assert_eq!(
            codes_of("SELECT 'unterminated"),
            vec![codes::SQL_PARSE_ERROR]
        );
    }

    #[test]
    fn functions_from_every_position() {
        assert_eq!(
            verdict("SELECT lower(name), count(*) FROM t GROUP BY 1"),
            Verdict::ReadOnly
        );
        assert_eq!(
            verdict("SELECT * FROM generate_series(1, 10)"),
            Verdict::ReadOnly
        );
        assert_eq!(verdict("SELECT pg_sleep(10)"), Verdict::Destructive);
        assert_eq!(verdict("SELECT * FROM pg_sleep(10)"), Verdict::Destructive);
        assert_eq!(
            verdict("SELECT * FROM t WHERE id IN (SELECT pg_catalog.pg_sleep(1))"),
            Verdict::Destructive
        );
        assert_eq!(
            verdict("SELECT pg_read_file('/etc/passwd')"),
            Verdict::Destructive
        );
        assert_eq!(verdict("SELECT nextval('seq')"), Verdict::Destructive);
        assert_eq!(verdict("SELECT my_udf(x) FROM t"), Verdict::Unproven);
        assert_eq!(verdict("SELECT evil.lower(x) FROM t"), Verdict::Unproven);
        assert_eq!(verdict("SELECT pg_catalog.lower('X')"), Verdict::ReadOnly);
        assert_eq!(
            verdict("SELECT a FROM t ORDER BY (SELECT set_config('x', 'y', false))"),
            Verdict::Destructive
        );
        assert!(codes_of("SELECT my_udf(1)").contains(&codes::SQL_UNKNOWN_FUNCTION.to_owned()));
        let allowed = assess_sql_with("SELECT my_udf(1)", &GenericDialect, &["my_udf".into()]);
        assert_eq!(allowed.verdict, Verdict::ReadOnly);
        let still_refused =
            assess_sql_with("SELECT pg_sleep(1)", &GenericDialect, &["pg_sleep".into()]);
        assert_eq!(still_refused.verdict, Verdict::Destructive);
    }

    #[test]
    fn executable_comments_and_hints() {
        assert_eq!(
            codes_of("SELECT 1 /*! ; DROP TABLE t */"),
            vec![codes::SQL_DESTRUCTIVE, codes::SQL_EXECUTABLE_COMMENT]
        );
        assert_eq!(
            codes_of("SELECT 1 /*M! , sleep(5) */"),
            vec![codes::SQL_DESTRUCTIVE, codes::SQL_EXECUTABLE_COMMENT]
        );
        assert_eq!(verdict("SELECT '/*! not a comment */'"), Verdict::ReadOnly);
        assert_eq!(
            verdict("SELECT 'it''s' /*! , sleep(5) */"),
            Verdict::Destructive
        );
        assert_eq!(
            verdict("SELECT 1 -- /*! not executed */"),
            Verdict::ReadOnly
        );
        assert_eq!(verdict("SELECT 1 /* plain comment */"), Verdict::ReadOnly);
        let mssql = sqlparser::dialect::MsSqlDialect {};
        assert_eq!(
            assess_sql_with("SELECT * FROM t WITH (NOLOCK)", &mssql, &[]).verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            assess_sql_with("SELECT * FROM t WITH (UPDLOCK)", &mssql, &[]).verdict,
            Verdict::Unproven
        );
    }

    #[test]
    fn session_statements_and_pragmas() {
        assert_eq!(verdict("BEGIN; SELECT 1; ROLLBACK"), Verdict::ReadOnly);
        assert_eq!(verdict("COMMIT"), Verdict::Unproven);
        let sqlite = sqlparser::dialect::SQLiteDialect {};
        assert_eq!(
            assess_sql_with("PRAGMA table_info('users')", &sqlite, &[]).verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            assess_sql_with("PRAGMA user_version", &sqlite, &[]).verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            assess_sql_with("PRAGMA user_version = 3", &sqlite, &[]).verdict,
            Verdict::Unproven
        );
        assert_eq!(
            assess_sql_with("PRAGMA writable_schema = 1", &sqlite, &[]).verdict,
            Verdict::Unproven
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("SELECT {}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(codes_of(&deep), vec![codes::SQL_TOO_COMPLEX]);
        let nested = |n: usize| {
            format!(
                "SELECT * FROM {}t{}",
                "(SELECT * FROM ".repeat(n),
                ") x".repeat(n)
            )
        };
        assert_eq!(verdict(&nested(MAX_NESTING)), Verdict::ReadOnly);
        assert_eq!(
            codes_of(&nested(MAX_NESTING + 1)),
            vec![codes::SQL_TOO_COMPLEX]
        );
        let unary = format!("SELECT {}1", "NOT ".repeat(10_000));
        assert_eq!(codes_of(&unary), vec![codes::SQL_PARSE_ERROR]);
    }

    /// Every nesting shape, as deep as the guards let through, parses on a
    /// 2 MiB stack (a test thread's) even in a debug build: no input can
    /// overflow the stack.
    #[test]
    fn the_deepest_accepted_input_fits_a_small_stack() {
        let shapes: Vec<fn(usize) -> String> = vec![
            |n| format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n)),
            |n| {
                format!(
                    "SELECT * FROM t WHERE x IN {}(1){}",
                    "(SELECT x FROM t WHERE x IN ".repeat(n),
                    ")".repeat(n)
                )
            },
            |n| format!("SELECT {}1{}", "lower(".repeat(n), ")".repeat(n)),
            |n| {
                format!(
                    "SELECT * FROM {}t{}",
                    "(SELECT * FROM ".repeat(n),
                    ") x".repeat(n)
                )
            },
            |n| {
                format!(
                    "{}SELECT 1{}",
                    "WITH a AS (".repeat(n),
                    ") SELECT 1".repeat(n)
                )
            },
            |n| {
                format!(
                    "SELECT {}1{}",
                    "CASE WHEN a THEN ".repeat(n),
                    " END".repeat(n)
                )
            },
            |n| format!("SELECT {}1", "NOT ".repeat(n)),
            |n| format!("SELECT {}1", "- ".repeat(n)),
            |n| format!("SELECT {}1{}", "ARRAY[".repeat(n), "]".repeat(n)),
        ];
        let handle = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || {
                for shape in shapes {
                    for n in (1..=RECURSION_LIMIT + 2).step_by(3) {
                        let _ = assess_sql(&shape(n));
                    }
                }
            })
            .unwrap();
        handle.join().unwrap();
    }
}
