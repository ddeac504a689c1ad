//! `execute_sql`: a statement list is read-only only if the real SQL parser
//! understood all of it and every statement, with every query nested inside it,
//! only reads.
//!
//! Anything the parser refuses is not proven safe, so it is `confirm`: a
//! dialect trick that confuses the parser must never turn into an allow.

mod facts;
mod functions;
mod readings;
mod settings;
mod statements;
mod types;
mod unbounded;
mod walk;

use super::{combine, Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::context::Context;
use crate::decision::Finding;
use crate::text::preview;
pub use facts::sql_facts;
use functions::Class;
use serde_json::{Map, Value};
use sqlparser::ast::{
    AccessExpr, BinaryOperator, CopySource, CopyTarget, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, ObjectName, ObjectNamePart, Query, Select, SelectItem, ShowStatementFilter,
    Statement, TableFactor, UtilityOption, Value as SqlValue, Visitor,
};
use sqlparser::dialect::{dialect_from_str, Dialect, GenericDialect};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, TokenizerError, Whitespace};
use statements::Form;
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

/// The deepest chain of operators analysed. A chain `a || b || c …` parses
/// into a tree as deep as it is long, and walking it (display, visit, drop)
/// recurses once per operator: about 150 overflow a 2 MiB stack in a debug
/// build. Brackets do not reset the count: an operand in brackets sits under
/// every operator around it.
const MAX_OPERATOR_DEPTH: usize = 48;

/// Whether a token joins two operands (or follows one, as a cast does).
fn is_operator(token: &Token) -> bool {
    const WORDS: &[&str] = &[
        "and",
        "or",
        "xor",
        "not",
        "is",
        "like",
        "ilike",
        "rlike",
        "regexp",
        "similar",
        "in",
        "between",
        "collate",
        "at",
        "div",
        "mod",
        "glob",
        "match",
        "escape",
        "overlaps",
        // Set operations nest the same way: `SELECT … UNION SELECT … UNION …`.
        "union",
        "except",
        "intersect",
        "minus",
    ];
    match token {
        Token::Word(word) => {
            word.quote_style.is_none() && WORDS.iter().any(|w| w.eq_ignore_ascii_case(&word.value))
        }
        Token::EOF
        | Token::Number(..)
        | Token::Whitespace(_)
        | Token::Comma
        | Token::SemiColon
        | Token::LParen
        | Token::RParen
        | Token::LBracket
        | Token::RBracket
        | Token::LBrace
        | Token::RBrace
        | Token::Period
        | Token::Placeholder(_)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::NationalStringLiteral(_)
        | Token::EscapedStringLiteral(_)
        | Token::HexStringLiteral(_)
        | Token::DollarQuotedString(_) => false,
        _ => true,
    }
}

/// The deepest operator nesting the parse tree could reach: per bracketed
/// group, the operators of its longest comma-separated part plus the deepest
/// group inside that part. One pass over the tokens.
fn operator_depth(tokens: &[TokenWithSpan]) -> usize {
    // Per open bracket: (operators in the current part, deepest group in the
    // current part, deepest finished part).
    let mut frames: Vec<(usize, usize, usize)> = vec![(0, 0, 0)];
    let mut deepest = 0usize;
    for token in tokens {
        match token.token {
            Token::LParen | Token::LBracket => frames.push((0, 0, 0)),
            Token::RParen | Token::RBracket if frames.len() > 1 => {
                if let Some((ops, child, done)) = frames.pop() {
                    let depth = done.max(ops + child);
                    if let Some(parent) = frames.last_mut() {
                        parent.1 = parent.1.max(depth);
                    }
                }
            }
            Token::Comma | Token::SemiColon => {
                if let Some(frame) = frames.last_mut() {
                    frame.2 = frame.2.max(frame.0 + frame.1);
                    frame.0 = 0;
                    frame.1 = 0;
                }
            }
            ref other if is_operator(other) => {
                if let Some(frame) = frames.last_mut() {
                    frame.0 += 1;
                }
            }
            _ => {}
        }
        if let Some(&(ops, child, done)) = frames.last() {
            deepest = deepest.max(done.max(ops + child));
        }
    }
    // Unclosed brackets: their parts count too.
    let mut carried = 0usize;
    while let Some((ops, child, done)) = frames.pop() {
        carried = done.max(ops + child.max(carried));
        deepest = deepest.max(carried);
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
    /// The SQL, and bound parameters: values only, which cannot change what
    /// the statement does.
    fn fields(&self) -> Option<Vec<&str>> {
        Some(vec![self.field.as_str(), "params", "parameters"])
    }

    fn assess(&self, args: &Map<String, Value>, _context: &Context) -> Assessment {
        let sql = match string_field(args, &self.field) {
            Ok(sql) => sql,
            Err(finding) => return Assessment::single(Verdict::Unproven, "", finding),
        };
        let mut assessment = assess_sql_with(sql, &self.dialect, &self.allow_functions);
        super::sql_floor::add_findings(sql, &mut assessment, |text| {
            assess_sql_with(text, &self.dialect, &self.allow_functions)
        });
        assessment
    }

    fn facts(&self, args: &Map<String, Value>) -> super::facts::Facts {
        match args.get(&self.field) {
            Some(Value::String(sql)) => {
                super::facts::Facts::Sql(sql_facts(sql, &self.dialect, &self.allow_functions))
            }
            _ => super::facts::Facts::None,
        }
    }
}

/// Assesses SQL text in the generic dialect with the built-in function list.
#[cfg(test)]
pub fn assess_sql(sql: &str) -> Assessment {
    assess_sql_with(sql, "generic", &[])
}

/// How deep dynamic SQL (`EXECUTE IMMEDIATE '…'` of a string holding another)
/// is followed before it is only confirmed.
const MAX_DYNAMIC_DEPTH: usize = 3;

/// What every statement check needs to know.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    /// The configured dialect's name.
    dialect: &'a str,
    /// Functions the deployment accepts as pure.
    allow: &'a [String],
    /// How many dynamic-SQL strings deep this text is.
    depth: usize,
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
/// on the parse; and it looks at every reading of the text.
fn unparsed(operation: String, ctx: Ctx<'_>, finding: Finding) -> Assessment {
    let dialect = parser_dialect(ctx.dialect);
    let mut assessment = Assessment::single(Verdict::Unproven, operation, finding);
    // One scan per reading serves both the floor and the file-access finding.
    let mut file_word = None;
    let mut from_reading = None;
    let mut judged: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let text = assessment.operation.as_str();
    for (reading, scan) in scans(text, ctx.dialect) {
        let words = readings::code_words(text, &scan);
        if file_word.is_none() {
            file_word = words
                .iter()
                .find(|w| FILE_WORDS.iter().any(|f| f.eq_ignore_ascii_case(w)))
                .map(|w| (*w).to_owned());
        }
        if from_reading.is_none() {
            from_reading = floor_word(text, &scan, &words, &mut judged)
                .map(|word| format!("read as {}, the text runs `{word}`", reading.name));
        }
        if file_word.is_some() && from_reading.is_some() {
            break;
        }
    }
    let word = destroying_word(text, dialect.as_ref(), true)
        .map(|word| format!("the text holds `{word}`"))
        .or(from_reading);
    if let Some(file_word) = file_word {
        assessment.findings.push(Finding::new(
            codes::SQL_FILE_ACCESS,
            format!("the text holds `{file_word}`, which may reach server files, programs or extensions"),
        ));
    }
    if let Some(what) = word {
        assessment.verdict = Verdict::Destructive;
        assessment.findings.insert(
            0,
            Finding::new(
                codes::SQL_DESTRUCTIVE,
                format!("{what}, which may destroy data or have side effects"),
            ),
        );
    }
    assessment
}

/// The parser's dialect for a configured name (checked when the configuration
/// is read; an unknown name reads as generic).
fn parser_dialect(name: &str) -> Box<dyn Dialect> {
    dialect_from_str(name).unwrap_or_else(|| Box::new(GenericDialect))
}

/// The text as every reading of the dialect sees it, one reading at a time (so
/// only one per-byte mask is alive at once).
fn scans<'a>(
    sql: &'a str,
    dialect: &str,
) -> impl Iterator<Item = (&'static readings::Reading, readings::Scan)> + 'a {
    readings::for_dialect(dialect)
        .iter()
        .map(move |reading| (reading, readings::scan(sql, reading)))
}

/// Whether one word of unparsed text names destruction: a destroying keyword,
/// a change of users or privileges, or a side-effecting function.
fn destroys(word: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "drop",
        "delete",
        "truncate",
        "update",
        "merge",
        "overwrite",
        "kill",
        // Users, roles and privileges (`GRANT`, `CREATE USER … IDENTIFIED BY`,
        // `ALTER ROLE … SUPERUSER`, `SET PASSWORD`): they outlive the call.
        "grant",
        "revoke",
        "superuser",
        "createrole",
        "bypassrls",
        "identified",
        "password",
        // Acting as another role, giving objects away, stopping the server,
        // discarding logs or restoring over a database (MySQL `RESET MASTER`,
        // `PURGE BINARY LOGS`, T-SQL `RESTORE … WITH REPLACE`, `BACKUP … TO`).
        "role",
        "authorization",
        // A schema change that did not parse may drop or rewrite columns.
        "alter",
        "reassign",
        "owner",
        "shutdown",
        "reset",
        "purge",
        "restore",
        "backup",
        "replace",
        "blackhole",
    ];
    // No name on either list is longer than this: skip the allocation.
    if word.len() > 40 {
        return false;
    }
    let lower = word.to_ascii_lowercase();
    KEYWORDS.contains(&lower.as_str()) || functions::is_side_effect(&lower)
}

/// Words after which a string literal is SQL the server runs.
const DYNAMIC_WORDS: &[&str] = &[
    "exec",
    "execute",
    "immediate",
    "sp_executesql",
    "prepare",
    "do",
];

/// Words that name file or program access in text that did not parse.
const FILE_WORDS: &[&str] = &[
    "outfile",
    "dumpfile",
    "infile",
    "program",
    "load_file",
    "attach",
    "install",
    "load",
    // Another server's connection (`CREATE SUBSCRIPTION … CONNECTION`), a
    // database written to a file (`VACUUM INTO`, DuckDB's `EXPORT DATABASE`).
    "connection",
    "vacuum",
    "export",
];

/// The floor over every reading: the first destroying word a reading runs as
/// code (or as the body of a dollar-quoted block, or in a string literal when
/// the code holds dynamic SQL), with the reading's name.
fn destroying_word_in_readings(sql: &str, dialect: &str) -> Option<(String, &'static str)> {
    // Each distinct word is judged once, whichever readings hold it.
    let mut judged: std::collections::HashSet<&str> = std::collections::HashSet::new();
    scans(sql, dialect).find_map(|(reading, scan)| {
        let words = readings::code_words(sql, &scan);
        floor_word(sql, &scan, &words, &mut judged).map(|word| (word, reading.name))
    })
}

/// A destroying word in a string literal, when some reading's code runs SQL
/// from strings (`EXECUTE`, `EXEC`, `IMMEDIATE`, `PREPARE`, `DO`).
///
/// Text that defines routines (`CREATE FUNCTION … AS $$ DELETE … $$; SELECT
/// f()`) counts too: the body runs when the routine is called or fires, so
/// the body's words (and its strings) reach the floor.
fn dynamic_literal_word(sql: &str, dialect: &str) -> Option<String> {
    const ROUTINE_WORDS: &[&str] = &["function", "procedure", "trigger", "macro"];
    scans(sql, dialect).find_map(|(_, scan)| {
        let words = readings::code_words(sql, &scan);
        let is = |list: &[&str], w: &str| list.iter().any(|d| d.eq_ignore_ascii_case(w));
        let dynamic = words.iter().any(|w| is(DYNAMIC_WORDS, w));
        let routine = words.iter().any(|w| is(ROUTINE_WORDS, w));
        if !dynamic && !routine {
            return None;
        }
        let in_code = routine
            .then(|| words.iter().find(|w| destroys(w)).map(|w| (*w).to_owned()))
            .flatten();
        in_code.or_else(|| {
            readings::literal_words(sql, &scan)
                .into_iter()
                .find(|w| destroys(w))
                .map(str::to_owned)
        })
    })
}

/// The floor's word in one reading: a destroying word it runs as code, or one
/// in a string literal when its code holds dynamic SQL.
fn floor_word<'a>(
    sql: &'a str,
    scan: &readings::Scan,
    words: &[&'a str],
    judged: &mut std::collections::HashSet<&'a str>,
) -> Option<String> {
    if let Some(word) = words.iter().find(|w| judged.insert(w) && destroys(w)) {
        return Some((*word).to_owned());
    }
    let dynamic = words
        .iter()
        .any(|w| DYNAMIC_WORDS.iter().any(|d| d.eq_ignore_ascii_case(w)));
    if !dynamic {
        return None;
    }
    readings::literal_words(sql, scan)
        .into_iter()
        .find(|w| destroys(w))
        .map(str::to_owned)
}

/// The first destroying keyword (`DROP`, `DELETE`, `TRUNCATE`, `UPDATE`,
/// `MERGE`) or side-effecting function name among the words of `sql`: from the
/// tokenizer when it can read the text (so words inside string literals do not
/// count), else from a plain scan of the text.
fn destroying_word(sql: &str, dialect: &dyn Dialect, in_comments: bool) -> Option<String> {
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

/// Assesses SQL text in the dialect named `dialect` (as the configuration names
/// it), accepting `allow_functions` as pure too.
pub fn assess_sql_with(sql: &str, dialect: &str, allow_functions: &[String]) -> Assessment {
    assess_text(
        sql,
        Ctx {
            dialect,
            allow: allow_functions,
            depth: 0,
        },
    )
}

/// The longest SQL text the parser reads; longer text is only scanned (the
/// floor still sees every reading's words) and confirmed. The bound keeps the
/// heaviest accepted text well inside the hosts' default work limit
/// (`host-rs/tests/limits.rs`).
pub const MAX_SQL_BYTES: usize = 256 * 1024;

/// Assesses SQL text under `ctx`, the dynamic SQL inside it one level deeper.
fn assess_text(sql: &str, ctx: Ctx<'_>) -> Assessment {
    let operation = sql.to_owned();
    if sql.len() > MAX_SQL_BYTES {
        return unparsed(
            operation,
            ctx,
            Finding::new(
                codes::SQL_TOO_COMPLEX,
                format!(
                    "the SQL is {} bytes, more than the {MAX_SQL_BYTES} the policy parses",
                    sql.len()
                ),
            ),
        );
    }
    let dialect = parser_dialect(ctx.dialect);
    if let Some(comment) = executable_comment(sql) {
        return unparsed(
            operation,
            ctx,
            Finding::new(
                codes::SQL_EXECUTABLE_COMMENT,
                format!(
                    "`/*{}*/` is a comment the server executes; its text is not analysed",
                    preview(&comment, 40)
                ),
            ),
        );
    }
    // Tokenized once: for the nesting bound, the readings and the parser.
    let tokens = Tokenizer::new(dialect.as_ref(), sql).tokenize_with_location();
    if let Some(depth) = tokens
        .as_ref()
        .ok()
        .map(|t| nesting(t))
        .filter(|&d| d > MAX_NESTING)
    {
        return unparsed(
            operation,
            ctx,
            Finding::new(
                codes::SQL_TOO_COMPLEX,
                format!("brackets nested {depth} deep (more than {MAX_NESTING}) are not analysed"),
            ),
        );
    }
    if let Some(depth) = tokens
        .as_ref()
        .ok()
        .map(|t| operator_depth(t))
        .filter(|&d| d > MAX_OPERATOR_DEPTH)
    {
        return unparsed(
            operation,
            ctx,
            Finding::new(
                codes::SQL_TOO_COMPLEX,
                format!(
                    "operators chained {depth} deep (more than {MAX_OPERATOR_DEPTH}) are not analysed"
                ),
            ),
        );
    }
    // Every reading the server might take must agree with the parser's on
    // what is code and where statements end.
    let ambiguity = tokens.as_ref().ok().and_then(|tokens| {
        let mask = readings::parser_mask(sql, tokens);
        scans(sql, ctx.dialect)
            .into_iter()
            .find_map(|(reading, scan)| {
                readings::disagreement(sql, &mask, &scan).map(|at| (reading.name, at))
            })
    });
    let mut assessment = match parse_all(tokens, dialect.as_ref()) {
        Ok(statements) => {
            let mut assessment = assess_statements(&operation, &statements, ctx);
            // The parser reads whatever follows `COPY … FROM STDIN` as inline
            // data; a server sent the text as a query runs it as statements.
            let copy_in = statements.iter().any(|s| {
                matches!(
                    s,
                    Statement::Copy {
                        target: CopyTarget::Stdin,
                        ..
                    }
                )
            });
            if copy_in && assessment.verdict != Verdict::Destructive {
                if let Some(word) = destroying_word(sql, dialect.as_ref(), true) {
                    assessment.verdict = Verdict::Destructive;
                    assessment.findings.insert(
                        0,
                        Finding::new(
                            codes::SQL_DESTRUCTIVE,
                            format!("the text after COPY … FROM STDIN holds `{word}`, which a server may run as a statement"),
                        ),
                    );
                }
            }
            // Dynamic SQL may run a string held anywhere in the text
            // (`DECLARE q STRING DEFAULT 'DROP …'; EXECUTE IMMEDIATE q`).
            if assessment.verdict != Verdict::Destructive {
                if let Some(word) = dynamic_literal_word(sql, ctx.dialect) {
                    assessment.verdict = Verdict::Destructive;
                    assessment.findings.insert(
                        0,
                        Finding::new(
                            codes::SQL_DESTRUCTIVE,
                            format!("the text runs SQL from strings, and one holds `{word}`"),
                        ),
                    );
                }
            }
            assessment
        }
        Err(message) => {
            return unparsed(
                operation,
                ctx,
                Finding::new(
                    codes::SQL_PARSE_ERROR,
                    format!(
                        "the SQL could not be parsed, so it is not proven read-only: {message}"
                    ),
                ),
            )
        }
    };
    if let Some((reading, at)) = ambiguity {
        let near = sql
            .get(at..)
            .map(|rest| preview(rest, 30))
            .unwrap_or_default();
        assessment.verdict = combine(assessment.verdict, Verdict::Unproven);
        assessment
            .findings
            .retain(|f| f.code != codes::SQL_READ_ONLY);
        assessment.findings.push(Finding::new(
            codes::SQL_AMBIGUOUS,
            format!(
                "read as {reading}, the text splits or quotes differently from the parse, near `{near}`"
            ),
        ));
        if assessment.verdict != Verdict::Destructive {
            if let Some((word, reading)) = destroying_word_in_readings(sql, ctx.dialect) {
                assessment.verdict = Verdict::Destructive;
                assessment.findings.insert(
                    0,
                    Finding::new(
                        codes::SQL_DESTRUCTIVE,
                        format!("read as {reading}, the text runs `{word}`, which may destroy data or have side effects"),
                    ),
                );
            }
        }
        assessment.findings.sort_by_key(|f| severity_rank(&f.code));
    }
    assessment
}

/// Judges parsed statements one by one.
fn assess_statements(operation: &str, statements: &[Statement], ctx: Ctx<'_>) -> Assessment {
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
        let (part, mut part_findings) = classify(statement, &label, ctx);
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
        codes::SQL_SESSION_STATE
        | codes::SQL_FILE_ACCESS
        | codes::SQL_DYNAMIC
        | codes::SQL_AMBIGUOUS
        | codes::SQL_WRITE
        | codes::SQL_QUERY_WRITES
        | codes::SQL_EXPLAIN_ANALYZE => 1,
        codes::SQL_UNKNOWN_FUNCTION | codes::SQL_UNBOUNDED | codes::SQL_CALL_SYNTAX => 2,
        _ => 3,
    }
}

/// One finding and its verdict.
fn one(verdict: Verdict, code: &str, message: String) -> (Verdict, Vec<Finding>) {
    (verdict, vec![Finding::new(code, message)])
}

/// Classifies one top-level statement by its form (matched exhaustively in
/// [`statements::form`]). Only reports, queries that pass, plain `EXPLAIN`,
/// plain `SHOW`, reporting `PRAGMA`s and `COPY … TO STDOUT` of a passing query
/// answer read-only.
fn classify(statement: &Statement, label: &str, ctx: Ctx<'_>) -> (Verdict, Vec<Finding>) {
    match statements::form(statement) {
        // `DESCRIBE '/root/.aws/credentials'`: DuckDB describes a file by
        // reading it; the names a report shows are checked like a query's.
        Form::Report => match settings_report(statement) {
            Some(what) => one(
                Verdict::Unproven,
                codes::SQL_SECRETS,
                format!("{label} {what}"),
            ),
            None => check_plan(statement, label, ctx.allow),
        },
        Form::Query(query) => check_query(query, label, ctx.allow),
        Form::Explain => explain(statement, label, ctx),
        Form::ShowVariable => show_variable(statement, label),
        Form::Pragma => match statement {
            Statement::Pragma { name, value, is_eq }
                if pragma_reads(name, value.is_some(), *is_eq) =>
            {
                (Verdict::ReadOnly, Vec::new())
            }
            other => not_read(other, label),
        },
        Form::Session(what) => with_write(
            one(
                Verdict::Unproven,
                codes::SQL_SESSION_STATE,
                format!("{label} {what}, which changes what later statements do"),
            ),
            label,
        ),
        Form::Block(inner) => {
            let mut verdict = Verdict::Unproven;
            let mut findings = vec![Finding::new(
                codes::SQL_SESSION_STATE,
                format!("{label} is a block (or transaction) whose statements run together"),
            )];
            for statement in inner {
                let inner_label =
                    format!("`{}` inside the block", preview(&statement.to_string(), 60));
                let (part, mut part_findings) = classify(statement, &inner_label, ctx);
                verdict = combine(verdict, part);
                findings.append(&mut part_findings);
            }
            // Exception handlers hold statements too (`EXCEPTION WHEN ERROR
            // THEN DROP …`): the floor reads the whole block.
            if verdict != Verdict::Destructive {
                if let Some(word) = destroying_word(&statement.to_string(), &GenericDialect, false)
                {
                    verdict = Verdict::Destructive;
                    findings.insert(
                        0,
                        Finding::new(codes::SQL_DESTRUCTIVE, format!("{label} holds `{word}`")),
                    );
                }
            }
            (verdict, findings)
        }
        Form::Prepare(inner) => {
            let inner_label = format!("the prepared `{}`", preview(&inner.to_string(), 60));
            let (part, mut findings) = classify(inner, &inner_label, ctx);
            findings.push(Finding::new(
                codes::SQL_SESSION_STATE,
                format!("{label} prepares a statement for later execution"),
            ));
            with_write((combine(Verdict::Unproven, part), findings), label)
        }
        Form::Execute => with_write(execute(statement, label, ctx), label),
        Form::Copy => copy(statement, label, ctx),
        Form::Call => match statement {
            // `CALL pg_sleep(…)`, `CALL xp_cmdshell(…)`: the floor.
            Statement::Call(function)
                if function
                    .name
                    .0
                    .last()
                    .and_then(ObjectNamePart::as_ident)
                    .is_some_and(|i| functions::is_side_effect(&i.value.to_ascii_lowercase())) =>
            {
                with_write(
                    one(
                        Verdict::Destructive,
                        codes::SQL_SIDE_EFFECT_FUNCTION,
                        format!("{label} calls a procedure with side effects"),
                    ),
                    label,
                )
            }
            _ => not_read(statement, label),
        },
        Form::FileAccess(what) => with_write(
            one(
                Verdict::Unproven,
                codes::SQL_FILE_ACCESS,
                format!("{label} {what}"),
            ),
            label,
        ),
        Form::FileWrite(what) => (
            Verdict::Destructive,
            vec![
                Finding::new(codes::SQL_DESTRUCTIVE, format!("{label} {what}")),
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!("{label} writes outside the database"),
                ),
            ],
        ),
        Form::Script => match destroying_word(&statement.to_string(), &GenericDialect, false) {
            Some(word) => one(
                Verdict::Destructive,
                codes::SQL_DESTRUCTIVE,
                format!("{label} is a script that holds `{word}`"),
            ),
            None => one(
                Verdict::Unproven,
                codes::SQL_WRITE,
                format!("{label} is a script, not a read-only statement"),
            ),
        },
        Form::Write | Form::Destroys(_) => not_read(statement, label),
    }
}

/// Adds the general "not a read" finding to a statement's specific ones.
fn with_write(
    (verdict, mut findings): (Verdict, Vec<Finding>),
    label: &str,
) -> (Verdict, Vec<Finding>) {
    findings.push(Finding::new(
        codes::SQL_WRITE,
        format!("{label} is not a read-only statement"),
    ));
    (verdict, findings)
}

/// `EXPLAIN`: a plain one of a query plans it without running it. With
/// `ANALYZE` (or `ANALYSE`, or an option not known to only plan) it runs its
/// statement, and databases read the options differently (DuckDB runs
/// `EXPLAIN (ANALYZE false) DELETE …`, which PostgreSQL only plans, as the
/// SQL oracle showed), so any other explained statement must pass itself.
fn explain(statement: &Statement, label: &str, ctx: Ctx<'_>) -> (Verdict, Vec<Finding>) {
    let Statement::Explain {
        analyze,
        options,
        statement: inner,
        ..
    } = statement
    else {
        return not_read(statement, label);
    };
    // PostgreSQL only plans a statement without ANALYZE; under any other
    // reading only a query is sure to be planned and not run.
    let plans_a_query = matches!(inner.as_ref(), Statement::Query(_)) || ctx.dialect == "postgres";
    if plans_a_query && !*analyze && !options.as_deref().is_some_and(runs_statement) {
        return check_plan(inner, label, ctx.allow);
    }
    let (verdict, mut findings) = classify(inner, label, ctx);
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
}

/// sqlparser reads any run of tokens after `SHOW` as a variable name
/// (`SHOW x -- …\nDROP TABLE t` is one statement to it); only a plain dotted
/// name is a SHOW the server reads the same way.
fn show_variable(statement: &Statement, label: &str) -> (Verdict, Vec<Finding>) {
    match statement {
        Statement::ShowVariable { variable } if plain_name(variable) => {
            if show_readable(variable) {
                (Verdict::ReadOnly, Vec::new())
            } else {
                one(
                    Verdict::Unproven,
                    codes::SQL_SECRETS,
                    format!(
                        "{label} shows a setting not listed as readable (settings may hold connection strings, passwords and commands)"
                    ),
                )
            }
        }
        _ => match destroying_word(&statement.to_string(), &GenericDialect, false) {
            Some(word) => one(
                Verdict::Destructive,
                codes::SQL_DESTRUCTIVE,
                format!("{label} holds `{word}`, which the server may run as a statement"),
            ),
            None => not_read(statement, label),
        },
    }
}

/// Whether `SHOW name` shows only a readable setting: one listed name, or a
/// phrase PostgreSQL spells in words (`SHOW TIME ZONE`, `SHOW TRANSACTION
/// ISOLATION LEVEL`). `SHOW ALL` shows every setting.
fn show_readable(variable: &[sqlparser::ast::Ident]) -> bool {
    let words: Vec<String> = variable
        .iter()
        .map(|i| i.value.to_ascii_lowercase())
        .collect();
    // Reports about the schema the parser reads as a name (`SHOW INDEX FROM
    // users`): they list objects, not settings.
    const REPORTS: &[&str] = &[
        "index",
        "indexes",
        "keys",
        "tables",
        "columns",
        "fields",
        "databases",
        "schemas",
        "triggers",
        "warnings",
        "errors",
        "engines",
        "plugins",
        "charset",
        "collation",
        "privileges",
        "grants",
    ];
    if words.first().is_some_and(|w| REPORTS.contains(&w.as_str())) {
        return true;
    }
    match words.as_slice() {
        [name] => settings::readable(name),
        [a, b] => a == "time" && b == "zone",
        [a, b, c] => a == "transaction" && b == "isolation" && c == "level",
        _ => false,
    }
}

/// Reports that list settings or other sessions' statements: `SHOW
/// PROCESSLIST` (the statement text of every session), `SHOW VARIABLES`
/// unless filtered to one readable name.
fn settings_report(statement: &Statement) -> Option<&'static str> {
    match statement {
        Statement::ShowProcessList { .. } => {
            Some("shows other sessions' statements, which may hold passwords")
        }
        Statement::ShowVariables { filter, .. } => {
            let one_name = match filter {
                Some(ShowStatementFilter::Like(name) | ShowStatementFilter::NoKeyword(name)) => {
                    // `%` matches any run; `_` one character, and a listed
                    // name's `_` is read as itself.
                    !name.contains('%') && settings::readable(name)
                }
                _ => false,
            };
            (!one_name).then_some(
                "shows settings not filtered to one readable name (settings may hold connection strings and passwords)",
            )
        }
        _ => None,
    }
}

/// `EXECUTE p`, `EXEC proc`, `EXECUTE IMMEDIATE '…'`, `EXEC('…')`,
/// `EXEC sp_executesql N'…'`: never a proven read; every string argument is
/// judged as SQL of its own, so destruction inside reaches the floor.
fn execute(statement: &Statement, label: &str, ctx: Ctx<'_>) -> (Verdict, Vec<Finding>) {
    let mut verdict = Verdict::Unproven;
    let mut findings = vec![Finding::new(
        codes::SQL_DYNAMIC,
        format!("{label} runs a prepared statement, a procedure or SQL built at run time"),
    )];
    let Statement::Execute {
        name, parameters, ..
    } = statement
    else {
        return (verdict, findings);
    };
    // `EXEC xp_cmdshell '…'`: a procedure with side effects feeds the floor.
    if let Some(procedure) = name
        .as_ref()
        .and_then(|n| n.0.last())
        .and_then(ObjectNamePart::as_ident)
    {
        if functions::is_side_effect(&procedure.value.to_ascii_lowercase()) {
            verdict = Verdict::Destructive;
            findings.push(Finding::new(
                codes::SQL_SIDE_EFFECT_FUNCTION,
                format!("{label} runs `{}`, which has side effects", procedure.value),
            ));
        }
    }
    // Text assembled from pieces (`'DR' || 'OP TABLE t'`) is not parsed, but
    // the floor sees its words.
    for parameter in parameters.iter().filter(|p| string_literal(p).is_none()) {
        let mut text = String::new();
        concatenated(parameter, &mut text);
        if let Some(word) = destroying_word(&text, &GenericDialect, true) {
            verdict = Verdict::Destructive;
            findings.push(Finding::new(
                codes::SQL_DESTRUCTIVE,
                format!("{label} assembles SQL that holds `{word}`"),
            ));
        }
    }
    for text in parameters.iter().filter_map(string_literal) {
        if ctx.depth >= MAX_DYNAMIC_DEPTH {
            if destroying_word(text, &GenericDialect, true).is_some() {
                verdict = Verdict::Destructive;
            }
            continue;
        }
        let inner = assess_text(
            text,
            Ctx {
                depth: ctx.depth + 1,
                ..ctx
            },
        );
        verdict = combine(verdict, inner.verdict);
        for finding in inner.findings {
            if finding.code != codes::SQL_READ_ONLY {
                findings.push(Finding::new(
                    &finding.code,
                    format!("in the dynamic SQL of {label}: {}", finding.message),
                ));
            }
        }
    }
    (verdict, findings)
}

/// The string literals of an expression, joined in order: what `'a' || 'b'`,
/// `CONCAT('a', 'b')` or `'a' + 'b'` builds.
fn concatenated(expr: &Expr, out: &mut String) {
    if let Some(text) = string_literal(expr) {
        out.push_str(text);
        return;
    }
    match expr {
        Expr::BinaryOp { left, right, .. } => {
            concatenated(left, out);
            concatenated(right, out);
        }
        Expr::Nested(e) | Expr::Cast { expr: e, .. } => concatenated(e, out),
        Expr::Function(f) => {
            if let FunctionArguments::List(list) = &f.args {
                for arg in &list.args {
                    if let FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e)) = arg {
                        concatenated(e, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The text of a string literal argument.
fn string_literal(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Value(v) => match &v.value {
            SqlValue::SingleQuotedString(s)
            | SqlValue::DoubleQuotedString(s)
            | SqlValue::NationalStringLiteral(s)
            | SqlValue::EscapedStringLiteral(s)
            | SqlValue::TripleSingleQuotedString(s)
            | SqlValue::TripleDoubleQuotedString(s) => Some(s),
            SqlValue::DollarQuotedString(d) => Some(&d.value),
            _ => None,
        },
        Expr::Nested(e) => string_literal(e),
        _ => None,
    }
}

/// `COPY`: to the client (`TO STDOUT`) it is a read of its table or query;
/// to a server file or a program it writes outside the database (the floor);
/// from anywhere it writes into a table.
fn copy(statement: &Statement, label: &str, ctx: Ctx<'_>) -> (Verdict, Vec<Finding>) {
    let Statement::Copy {
        source, to, target, ..
    } = statement
    else {
        return not_read(statement, label);
    };
    let outside = match (to, target) {
        // DuckDB (and so the generic reading) writes `TO STDOUT` to the host
        // process's `/dev/stdout` file, which the SQL oracle saw it open.
        (true, CopyTarget::Stdout) if !matches!(ctx.dialect, "postgres" | "redshift") => one(
            Verdict::Unproven,
            codes::SQL_FILE_ACCESS,
            format!("{label} writes to the server's standard output file under engines other than PostgreSQL"),
        ),
        (true, CopyTarget::Stdout) => {
            return match source {
                CopySource::Query(query) => check_query(query, label, ctx.allow),
                CopySource::Table { .. } => (Verdict::ReadOnly, Vec::new()),
            }
        }
        (_, CopyTarget::Program { .. }) => (
            Verdict::Destructive,
            vec![
                Finding::new(
                    codes::SQL_DESTRUCTIVE,
                    format!("{label} runs a program on the server"),
                ),
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!("{label} reaches outside the database"),
                ),
            ],
        ),
        (true, CopyTarget::File { .. }) => (
            Verdict::Destructive,
            vec![
                Finding::new(
                    codes::SQL_DESTRUCTIVE,
                    format!("{label} writes (over) a server file"),
                ),
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!("{label} reaches outside the database"),
                ),
            ],
        ),
        (false, CopyTarget::File { .. }) => one(
            Verdict::Unproven,
            codes::SQL_FILE_ACCESS,
            format!("{label} reads a server file into a table"),
        ),
        _ => (Verdict::Unproven, Vec::new()),
    };
    with_write(outside, label)
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
/// objects (or writes files), otherwise a write.
fn not_read(statement: &Statement, label: &str) -> (Verdict, Vec<Finding>) {
    match statements::form(statement) {
        Form::Destroys(what) | Form::FileWrite(what) => one(
            Verdict::Destructive,
            codes::SQL_DESTRUCTIVE,
            format!("{label} {what}"),
        ),
        _ => one(
            Verdict::Unproven,
            codes::SQL_WRITE,
            format!("{label} is not a read-only statement"),
        ),
    }
}

/// Whether EXPLAIN's parenthesised options make it run its statement: `ANALYZE`
/// or `ANALYSE` (PostgreSQL takes both) unless explicitly false (`false`,
/// `off`, `0`), or any option not known to only shape the plan's output.
fn runs_statement(options: &[UtilityOption]) -> bool {
    const PLAN_ONLY: &[&str] = &[
        "verbose",
        "costs",
        "settings",
        "generic_plan",
        "buffers",
        "wal",
        "timing",
        "summary",
        "memory",
        "format",
        "serialize",
    ];
    options.iter().any(|option| {
        let name = option.name.value.to_ascii_lowercase();
        if name == "analyze" || name == "analyse" {
            !option.arg.as_ref().is_some_and(is_false)
        } else {
            !PLAN_ONLY.contains(&name.as_str())
        }
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
        plan_only: false,
        skip_top: false,
        ctes: Vec::new(),
        verdict: Verdict::ReadOnly,
        findings: Vec::new(),
    };
    // The visitor never breaks; every nested node is seen.
    let _ = walk::walk(query, &mut check);
    (check.verdict, check.findings)
}

/// What planning a statement (plain `EXPLAIN`, DuckDB's `DESCRIBE SELECT`) may
/// do without running it: bind its functions and table functions (DuckDB's
/// `read_csv` reads the file to learn its columns, PostgreSQL folds immutable
/// functions; MySQL before 5.7 even materialised derived tables, running their
/// functions). A side-effect function still reaches the floor.
fn check_plan(statement: &Statement, label: &str, allow: &[String]) -> (Verdict, Vec<Finding>) {
    let mut check = QueryCheck {
        label,
        allow,
        plan_only: true,
        skip_top: false,
        ctes: Vec::new(),
        verdict: Verdict::ReadOnly,
        findings: Vec::new(),
    };
    let _ = walk::walk(statement, &mut check);
    (check.verdict, check.findings)
}

/// Walks a query (its CTEs, subqueries, derived tables and set operations) and
/// records everything that makes it more than a read.
struct QueryCheck<'a> {
    label: &'a str,
    allow: &'a [String],
    /// Only what planning does (function binding, file access) counts.
    plan_only: bool,
    /// The first statement visited is the one a rule names (its own write is
    /// not a finding); everything nested in it still is.
    skip_top: bool,
    /// CTEs seen so far, with the unlinked groups their bodies multiply.
    ctes: Vec<unbounded::CteWeight>,
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

    /// Checks one called function by its name and arguments.
    fn function(&mut self, name: &ObjectName, args: &[FunctionArg]) {
        let parts: Option<Vec<String>> = name
            .0
            .iter()
            .map(|part| part.as_ident().map(|ident| ident.value.clone()))
            .collect();
        let shown = preview(&name.to_string(), 60);
        let last = parts
            .as_ref()
            .and_then(|p| p.last())
            .map(|n| n.to_ascii_lowercase())
            .unwrap_or_default();
        if functions::touches_files(&last)
            || parts.as_deref().is_some_and(functions::in_file_package)
        {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!(
                        "{}: `{shown}` reads or writes files, URLs or other servers",
                        self.label
                    ),
                ),
            );
        }
        // Settings hold connection strings, passwords and commands
        // (`primary_conninfo`, DuckDB's S3 keys): `current_setting` reads only
        // a setting the generated allowlist names; variables a script set
        // (`getvariable`) are not listed at all.
        let secret_setting = match last.as_str() {
            "current_setting" => !matches!(
                args.first(),
                Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)))
                    if string_literal(expr).is_some_and(settings::readable)
            ),
            "getvariable" | "pg_show_all_settings" | "pg_show_all_file_settings" => true,
            _ => false,
        };
        // The server's environment (DuckDB's `getenv`, in its CLI) holds
        // cloud keys and tokens, as a shell's does.
        let environment = matches!(last.as_str(), "getenv" | "environ");
        if secret_setting || environment || last == "duckdb_secrets" {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_SECRETS,
                    format!("{}: `{shown}` may return credentials", self.label),
                ),
            );
        }
        // `LAST_INSERT_ID(n)` sets the value later calls return (MySQL).
        if last == "last_insert_id" && !args.is_empty() {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_SESSION_STATE,
                    format!(
                        "{}: `{shown}` with an argument sets session state",
                        self.label
                    ),
                ),
            );
        }
        if let Some(message) = unbounded::function(&last, args).filter(|_| !self.plan_only) {
            self.record(
                Verdict::Unproven,
                Finding::new(codes::SQL_UNBOUNDED, format!("{}: {message}", self.label)),
            );
        }
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

    /// A function called in another syntax: the name may be any function's.
    fn call_syntax(&mut self, form: &str, name: &str) {
        let lower = name.to_ascii_lowercase();
        let side_effect =
            functions::classify(std::slice::from_ref(&lower), &[]) == Class::SideEffect;
        self.record(
            if side_effect {
                Verdict::Destructive
            } else {
                Verdict::Unproven
            },
            Finding::new(
                if side_effect {
                    codes::SQL_SIDE_EFFECT_FUNCTION
                } else {
                    codes::SQL_CALL_SYNTAX
                },
                format!("{}: {form} `{name}` may call a function", self.label),
            ),
        );
        if side_effect {
            self.record(
                Verdict::Destructive,
                Finding::new(
                    codes::SQL_CALL_SYNTAX,
                    format!("{}: {form} `{name}` calls a function", self.label),
                ),
            );
        }
    }

    /// Checks a column reference or field access for PostgreSQL attribute
    /// notation (`t.f` is `f(t)` when `t` has no column `f`) and sequence
    /// pseudo-columns (`seq.nextval`).
    fn attribute(&mut self, expr: &Expr) {
        const SEQUENCE_COLUMNS: &[&str] = &["nextval", "currval", "lastval"];
        match expr {
            Expr::CompoundIdentifier(parts)
                if parts.first().is_some_and(|p| p.value.starts_with("@@")) =>
            {
                self.system_variable(parts);
            }
            Expr::CompoundIdentifier(parts) => {
                let Some(last) = parts.last() else { return };
                let lower = last.value.to_ascii_lowercase();
                if SEQUENCE_COLUMNS.contains(&lower.as_str()) {
                    self.call_syntax("the sequence pseudo-column", &last.value);
                } else if parts.len() >= 3
                    || functions::classify(std::slice::from_ref(&lower), &[]) == Class::SideEffect
                {
                    self.call_syntax("attribute notation", &last.value);
                }
            }
            Expr::CompoundFieldAccess { access_chain, .. } => {
                for access in access_chain {
                    match access {
                        AccessExpr::Dot(Expr::Identifier(ident)) => {
                            self.call_syntax("attribute notation", &ident.value);
                        }
                        // `(x).method()`: a method of the value's type, whatever
                        // the name says.
                        AccessExpr::Dot(Expr::Function(function)) => {
                            self.call_syntax("the method-style call", &function.name.to_string());
                        }
                        _ => {}
                    }
                }
            }
            // `@@name`, `@@global.name`: a server setting (MySQL, SQL Server).
            Expr::Identifier(ident) if ident.value.starts_with("@@") => {
                self.system_variable(std::slice::from_ref(ident));
            }
            // `SELECT @x := 5` sets a session variable (MySQL).
            Expr::BinaryOp {
                op: BinaryOperator::Assignment,
                left,
                ..
            } => self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_SESSION_STATE,
                    format!(
                        "{}: `{}` := assigns a session variable",
                        self.label,
                        preview(&left.to_string(), 40)
                    ),
                ),
            ),
            // A cast runs the target type's input function: the server's own
            // for a built-in type, the owner's for a user-defined one.
            Expr::Cast { data_type, .. }
            | Expr::TypedString(sqlparser::ast::TypedString { data_type, .. }) => {
                if let Some(name) = types::user_defined(data_type) {
                    self.record(
                        Verdict::Unproven,
                        Finding::new(
                            codes::SQL_CALL_SYNTAX,
                            format!(
                                "{}: the cast to `{}` runs that type's input function, which may be user-defined and is not checked",
                                self.label,
                                preview(&name.to_string(), 40)
                            ),
                        ),
                    );
                }
            }
            Expr::BinaryOp {
                op: BinaryOperator::PGCustomBinaryOperator(_) | BinaryOperator::Custom(_),
                ..
            } => {
                let op = match expr {
                    Expr::BinaryOp { op, .. } => op.to_string(),
                    _ => String::new(),
                };
                self.record(
                    Verdict::Unproven,
                    Finding::new(
                        codes::SQL_CALL_SYNTAX,
                        format!(
                            "{}: the operator `{}` calls a function that is not checked",
                            self.label,
                            preview(&op, 40)
                        ),
                    ),
                );
            }
            _ => {}
        }
    }

    /// `@@name` reads a server setting: only a readable one.
    fn system_variable(&mut self, parts: &[sqlparser::ast::Ident]) {
        let name = parts
            .last()
            .map(|p| p.value.trim_start_matches('@'))
            .unwrap_or_default();
        if !settings::readable(name) {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_SECRETS,
                    format!(
                        "{}: `@@{}` is a setting not listed as readable",
                        self.label,
                        preview(name, 40)
                    ),
                ),
            );
        }
    }

    /// `TABLE name`: a read of the named table, checked like one in `FROM`.
    fn table_statement(&mut self, table: &sqlparser::ast::Table) {
        let parts: Vec<sqlparser::ast::Ident> = table
            .schema_name
            .iter()
            .chain(table.table_name.iter())
            .map(|part| sqlparser::ast::Ident::new(part.as_str()))
            .collect();
        let name = ObjectName::from(parts);
        self.secret_table(&name);
        self.server_file_view(&name);
    }

    /// Catalog views that read server files (`pg_hba.conf`, `postgresql.conf`,
    /// extension control files, the time zone database).
    fn server_file_view(&mut self, name: &ObjectName) {
        const VIEWS: &[&str] = &[
            "pg_hba_file_rules",
            "pg_ident_file_mappings",
            "pg_file_settings",
            "pg_available_extensions",
            "pg_available_extension_versions",
            "pg_timezone_names",
            "pg_config",
        ];
        let last = name
            .0
            .last()
            .and_then(ObjectNamePart::as_ident)
            .map(|i| i.value.to_ascii_lowercase())
            .unwrap_or_default();
        if VIEWS.contains(&last.as_str()) {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!(
                        "{}: `{}` reads files on the server",
                        self.label,
                        preview(&name.to_string(), 60)
                    ),
                ),
            );
        }
    }

    /// A name of four parts or more is a table on another server (SQL
    /// Server's linked servers, `[10.0.0.1].master.dbo.t`): the query reaches
    /// that server with the link's stored credentials.
    fn remote_table(&mut self, name: &ObjectName) {
        if name.0.len() >= 4 {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!(
                        "{}: `{}` names a table on another server (a linked server)",
                        self.label,
                        preview(&name.to_string(), 60)
                    ),
                ),
            );
        }
    }

    /// A catalog table that holds password hashes or credentials.
    fn secret_table(&mut self, name: &ObjectName) {
        const TABLES: &[&str] = &[
            "pg_authid",
            "pg_shadow",
            "pg_user_mapping",
            "pg_user_mappings",
            "pg_largeobject",
            "sql_logins",
            "syslogins",
            "database_scoped_credentials",
            "credentials",
            "global_priv",
            // Foreign servers' and subscriptions' connection strings and
            // passwords (PostgreSQL).
            "user_mapping_options",
            "pg_subscription",
            "pg_stat_subscription",
            // Replication and federation passwords, password history (MySQL).
            "slave_master_info",
            "replica_master_info",
            "slave_relay_log_info",
            "password_history",
            // Password hashes and database-link passwords (Oracle).
            "user$",
            "link$",
            "dba_users",
            "user_history$",
            // Logins and linked-server logins (SQL Server).
            "sysxlogins",
            "syslnklgns",
            "linked_logins",
            "server_principal_credentials",
            "master_key_passwords",
            // Planner statistics keep sample values of every analyzed column,
            // the password verifiers of `pg_authid` included (PostgreSQL);
            // column histograms likewise (MySQL).
            "pg_stats",
            "pg_statistic",
            "pg_stats_ext",
            "pg_stats_ext_exprs",
            "pg_statistic_ext_data",
            "column_statistics",
        ];
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|p| p.as_ident().map(|i| i.value.to_ascii_lowercase()))
            .collect();
        let secret = match parts.as_slice() {
            [.., schema, table] if schema == "mysql" && (table == "user" || table == "servers") => {
                true
            }
            [.., table] => {
                TABLES.contains(&table.as_str())
                    || settings::STATEMENT_TEXT_VIEWS.contains(&table.as_str())
            }
            [] => false,
        };
        if secret {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_SECRETS,
                    format!(
                        "{}: `{}` holds password hashes or credentials",
                        self.label,
                        preview(&name.to_string(), 60)
                    ),
                ),
            );
        }
    }

    /// A table named by a string or a path (DuckDB's replacement scans read
    /// `FROM '/root/.aws/credentials'` or `FROM "data.csv"` as a file).
    fn file_table(&mut self, name: &ObjectName) {
        // Snowflake reads staged files by `@stage/path` (and `@~` for the user's stage).
        let stage = name
            .0
            .first()
            .and_then(ObjectNamePart::as_ident)
            .is_some_and(|ident| ident.quote_style.is_none() && ident.value.starts_with('@'));
        let path_like = stage
            || match name.0.as_slice() {
                [ObjectNamePart::Identifier(ident)] => {
                    ident.quote_style == Some('\'')
                        || (ident.quote_style.is_some()
                            && ident.value.contains(['/', '\\', '.', ':', '~', '*', '?']))
                }
                // DuckDB joins a name's parts with `.` and, when no table
                // has that name, reads the joined text as a file or URL:
                // `FROM data.csv`, `FROM "/root/.aws/creds".json`,
                // `FROM "https://host/x".parquet` (checked against DuckDB).
                parts => parts.len() >= 2 && joined_name_is_file(parts),
            };
        if path_like {
            self.record(
                Verdict::Unproven,
                Finding::new(
                    codes::SQL_FILE_ACCESS,
                    format!(
                        "{}: the table `{}` is a path some engines read as a file",
                        self.label,
                        preview(&name.to_string(), 60)
                    ),
                ),
            );
        }
    }
}

/// File name endings DuckDB's replacement scans read as a file, checked
/// against DuckDB 2.0 (`SELECT * FROM nofile.<ext>` answers "No files found"
/// for these, "Table does not exist" otherwise), with the formats its
/// installable extensions add (Excel, Avro, Arrow, SQLite, Delta, Iceberg) and
/// compressions after any of them.
const FILE_ENDINGS: &[&str] = &[
    "csv", "tsv", "json", "jsonl", "ndjson", "geojson", "parquet", "db", "duckdb", "sqlite",
    "sqlite3", "xlsx", "xls", "avro", "arrow", "ipc", "feather", "orc", "delta", "iceberg", "gz",
    "zst", "bz2", "lz4", "xz", "zip", "tar",
];

/// Whether a name of two or more parts reads as a file in DuckDB: its last
/// part is a file ending, or a part holds a path or URL character.
fn joined_name_is_file(parts: &[ObjectNamePart]) -> bool {
    let mut names = Vec::with_capacity(parts.len());
    for part in parts {
        match part.as_ident() {
            Some(ident) => names.push(ident.value.as_str()),
            // A part that is not a plain name: not proven a table.
            None => return true,
        }
    }
    // `main."data.csv"` joins to `main.data.csv`: the ending is the joined
    // text's, not the last part's.
    let ending = names
        .last()
        .and_then(|last| last.rsplit('.').next())
        .map(str::to_ascii_lowercase)
        .is_some_and(|last| FILE_ENDINGS.contains(&last.as_str()));
    ending
        || names
            .iter()
            .any(|n| n.contains(['/', '\\', ':', '~', '*', '?', '%']) || n.is_empty())
}

impl QueryCheck<'_> {
    /// A settings view (`pg_settings`, `duckdb_settings()`) read without a
    /// filter to readable names, or an activity view read beyond its listed
    /// columns (`pg_stat_activity.query` is another session's statement).
    fn settings_and_activity(&mut self, select: &Select) {
        let mut settings_view = None;
        let mut activity_view = None;
        for table in &select.from {
            for factor in
                std::iter::once(&table.relation).chain(table.joins.iter().map(|j| &j.relation))
            {
                let name = match factor {
                    TableFactor::Table { name, .. } | TableFactor::Function { name, .. } => name,
                    _ => continue,
                };
                let last = name
                    .0
                    .last()
                    .and_then(ObjectNamePart::as_ident)
                    .map(|i| i.value.to_ascii_lowercase())
                    .unwrap_or_default();
                if settings::SETTINGS_VIEWS.contains(&last.as_str()) {
                    settings_view = Some(name.to_string());
                }
                if settings::ACTIVITY_VIEWS.contains(&last.as_str()) {
                    activity_view = Some(name.to_string());
                }
            }
        }
        if let Some(view) = settings_view {
            if !select.selection.as_ref().is_some_and(filtered_to_readable) {
                self.record(
                    Verdict::Unproven,
                    Finding::new(
                        codes::SQL_SECRETS,
                        format!(
                            "{}: `{}` lists settings, which may hold connection strings and passwords, not filtered to readable names",
                            self.label,
                            preview(&view, 40)
                        ),
                    ),
                );
            }
        }
        if let Some(view) = activity_view {
            let wildcard = select.projection.iter().any(|item| {
                matches!(
                    item,
                    SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
                )
            });
            let mut columns = Columns::default();
            let _ = walk::walk(select, &mut columns);
            if wildcard || columns.names.iter().any(|c| !settings::activity_column(c)) {
                self.record(
                    Verdict::Unproven,
                    Finding::new(
                        codes::SQL_SECRETS,
                        format!(
                            "{}: `{}` is read beyond its listed columns; its statement text holds other sessions' statements and passwords",
                            self.label,
                            preview(&view, 40)
                        ),
                    ),
                );
            }
        }
    }
}

/// The column names an expression tree names (the last part of each).
#[derive(Default)]
struct Columns {
    names: Vec<String>,
}

impl Visitor for Columns {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Identifier(ident) => self.names.push(ident.value.clone()),
            Expr::CompoundIdentifier(parts) => {
                if let Some(last) = parts.last() {
                    self.names.push(last.value.clone());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// Whether a `WHERE` holds a conjunct `name = '…'` or `name IN ('…', …)` whose
/// names are all readable settings.
fn filtered_to_readable(expr: &Expr) -> bool {
    let is_name = |e: &Expr| match e {
        Expr::Identifier(i) => i.value.eq_ignore_ascii_case("name"),
        Expr::CompoundIdentifier(parts) => parts
            .last()
            .is_some_and(|i| i.value.eq_ignore_ascii_case("name")),
        _ => false,
    };
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => filtered_to_readable(left) || filtered_to_readable(right),
        Expr::Nested(inner) => filtered_to_readable(inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => {
            (is_name(left) && string_literal(right).is_some_and(settings::readable))
                || (is_name(right) && string_literal(left).is_some_and(settings::readable))
        }
        Expr::InList {
            expr,
            list,
            negated: false,
        } => {
            is_name(expr)
                && !list.is_empty()
                && list
                    .iter()
                    .all(|e| string_literal(e).is_some_and(settings::readable))
        }
        _ => false,
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
        if self.plan_only {
            return;
        }
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
        if std::mem::take(&mut self.skip_top) {
            return ControlFlow::Continue(());
        }
        // Statements nested in a query: data-modifying CTEs and the like.
        if !self.plan_only && !matches!(statement, Statement::Query(_)) {
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

    /// Every table name, wherever it appears (`FROM`, `DESCRIBE`, `SHOW
    /// COLUMNS FROM`, a table function's name): paths, secrets, file views.
    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        self.file_table(relation);
        self.secret_table(relation);
        self.server_file_view(relation);
        self.remote_table(relation);
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.plan_only {
            return ControlFlow::Continue(());
        }
        // `TABLE name` names its table outside any FROM.
        if let sqlparser::ast::SetExpr::Table(table) = query.body.as_ref() {
            self.table_statement(table);
        }
        if let Some(with) = &query.with {
            // Bounded, so the lookups stay linear in the text.
            for cte in with
                .cte_tables
                .iter()
                .take(256usize.saturating_sub(self.ctes.len()))
            {
                let (groups, rows) = unbounded::query_weight(&cte.query, &self.ctes);
                self.ctes.push((cte.alias.name.value.clone(), groups, rows));
            }
        }
        if let Some(message) = unbounded::recursion(query) {
            self.record(
                Verdict::Unproven,
                Finding::new(codes::SQL_UNBOUNDED, format!("{}: {message}", self.label)),
            );
        }
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
            let args = match &function.args {
                FunctionArguments::List(list) => list.args.as_slice(),
                _ => &[],
            };
            self.function(&function.name, args);
        }
        self.attribute(expr);
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            // `FROM f(…)`: a table-valued function is a function call.
            TableFactor::Table {
                name,
                args: Some(args),
                with_hints,
                ..
            } => {
                self.function(name, &args.args);
                self.hints(with_hints);
            }
            // The name itself is checked as a relation (`pre_visit_relation`).
            TableFactor::Table { with_hints, .. } => self.hints(with_hints),
            TableFactor::Function { name, args, .. } => self.function(name, args),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        // Constants are cast while the statement is planned, so this holds
        // under EXPLAIN too.
        for item in &select.projection {
            if let Some(name) = types::typed_literal(item) {
                self.record(
                    Verdict::Unproven,
                    Finding::new(
                        codes::SQL_CALL_SYNTAX,
                        format!(
                            "{}: `{} '…'` is a typed literal in PostgreSQL, which runs the input function of `{}`, not checked",
                            self.label,
                            preview(&name.value, 40),
                            preview(&name.value, 40)
                        ),
                    ),
                );
            }
        }
        if self.plan_only {
            return ControlFlow::Continue(());
        }
        self.settings_and_activity(select);
        if let Some(message) = unbounded::cartesian(select, &self.ctes) {
            self.record(
                Verdict::Unproven,
                Finding::new(codes::SQL_UNBOUNDED, format!("{}: {message}", self.label)),
            );
        }
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
        // Databases read EXPLAIN's options differently, so under the generic
        // reading an explained statement that is not a query must pass itself.
        assert_eq!(verdict("EXPLAIN DELETE FROM t"), Verdict::Destructive);
        assert_eq!(
            verdict("EXPLAIN (ANALYZE false) DELETE FROM t"),
            Verdict::Destructive
        );
        assert_eq!(verdict("EXPLAIN SELECT * FROM t"), Verdict::ReadOnly);
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
        let allowed = assess_sql_with("SELECT my_udf(1)", "generic", &["my_udf".into()]);
        assert_eq!(allowed.verdict, Verdict::ReadOnly);
        let still_refused = assess_sql_with("SELECT pg_sleep(1)", "generic", &["pg_sleep".into()]);
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
        let mssql = "mssql";
        assert_eq!(
            assess_sql_with("SELECT * FROM t WITH (NOLOCK)", mssql, &[]).verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            assess_sql_with("SELECT * FROM t WITH (UPDLOCK)", mssql, &[]).verdict,
            Verdict::Unproven
        );
    }

    #[test]
    fn session_statements_and_pragmas() {
        // Transaction control changes what later approved statements do.
        assert_eq!(verdict("BEGIN; SELECT 1; ROLLBACK"), Verdict::Unproven);
        assert!(codes_of("COMMIT").contains(&codes::SQL_SESSION_STATE.to_owned()));
        let sqlite = "sqlite";
        assert_eq!(
            assess_sql_with("PRAGMA table_info('users')", sqlite, &[]).verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            assess_sql_with("PRAGMA user_version", sqlite, &[]).verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            assess_sql_with("PRAGMA user_version = 3", sqlite, &[]).verdict,
            Verdict::Unproven
        );
        assert_eq!(
            assess_sql_with("PRAGMA writable_schema = 1", sqlite, &[]).verdict,
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
        assert_eq!(codes_of(&unary), vec![codes::SQL_TOO_COMPLEX]);
        // A long operator chain nests as deep as it is long.
        let chain = |n: usize| format!("SELECT {}1", "'a' || ".repeat(n));
        assert_eq!(codes_of(&chain(10_000)), vec![codes::SQL_TOO_COMPLEX]);
        assert_eq!(verdict(&chain(MAX_OPERATOR_DEPTH)), Verdict::ReadOnly);
        assert_eq!(
            codes_of(&chain(MAX_OPERATOR_DEPTH + 1)),
            vec![codes::SQL_TOO_COMPLEX]
        );
        let grouped = format!("SELECT {}", "(1 + 1 + 1 + 1 + 1 + 1 + 1) * ".repeat(8)) + "1";
        assert_eq!(verdict(&grouped), Verdict::ReadOnly);
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
            |n| format!("SELECT {}1", "'a' || ".repeat(n * 2)),
            |n| format!("SELECT 1 WHERE {}1 = 1", "a = 1 AND ".repeat(n * 2)),
            |n| format!("SELECT {}1{}", "(1 + ".repeat(n), ")".repeat(n)),
            |n| format!("SELECT {}1", "x::text::".repeat(n)),
            |n| format!("SELECT 1{}", " UNION ALL SELECT a FROM t".repeat(n * 2)),
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

    fn in_dialect(sql: &str, dialect: &str) -> Assessment {
        assess_sql_with(sql, dialect, &[])
    }

    fn has(assessment: &Assessment, code: &str) -> bool {
        assessment.findings.iter().any(|f| f.code == code)
    }

    #[test]
    fn every_reading_must_agree_with_the_parse() {
        for sql in [
            "SELECT 1 --1; DROP TABLE users",
            "SELECT '\\'' ; DROP TABLE users; -- '",
            "SELECT $$ ; DROP TABLE t; $$",
            "SELECT 1 /* /* */ ; DROP TABLE t; */",
            "SELECT 1 --x\r; DROP TABLE t",
        ] {
            let a = in_dialect(sql, "generic");
            assert!(has(&a, codes::SQL_AMBIGUOUS), "{sql}: {:?}", a.findings);
            assert_eq!(a.verdict, Verdict::Destructive, "{sql}");
        }
        // One dialect configured: only its variants count.
        assert_eq!(
            in_dialect("SELECT $$ ; DROP TABLE t; $$", "postgres").verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            in_dialect("SELECT 1 /* /* */ ; DROP TABLE t; */", "mssql").verdict,
            Verdict::ReadOnly
        );
        assert_eq!(
            in_dialect("SELECT '\\'' ; DROP TABLE users; -- '", "postgres").verdict,
            Verdict::Destructive
        );
        for sql in ["SELECT 'it''s', \"col\" FROM t -- note", "SELECT /* c */ 1"] {
            assert_eq!(
                in_dialect(sql, "generic").verdict,
                Verdict::ReadOnly,
                "{sql}"
            );
        }
    }

    #[test]
    fn blocks_and_dynamic_sql_are_judged_by_what_they_run() {
        for (sql, dialect) in [
            ("BEGIN DROP TABLE users; END", "bigquery"),
            ("BEGIN DROP TABLE users; END", "snowflake"),
            ("BEGIN DROP TABLE users; END", "mssql"),
            ("DO $$ BEGIN DELETE FROM t; END $$", "postgres"),
            ("PREPARE p AS DELETE FROM t; EXECUTE p", "postgres"),
            ("COPY (DELETE FROM t RETURNING *) TO STDOUT", "postgres"),
            ("COPY t TO PROGRAM 'id'", "postgres"),
            ("EXECUTE IMMEDIATE 'DROP TABLE t'", "bigquery"),
            ("EXEC('DROP TABLE t')", "mssql"),
            ("INSERT OVERWRITE TABLE t SELECT 1", "hive"),
            ("CREATE OR REPLACE TABLE t AS SELECT 1", "snowflake"),
            ("EXPLAIN (ANALYSE) DELETE FROM t", "postgres"),
        ] {
            assert_eq!(
                in_dialect(sql, dialect).verdict,
                Verdict::Destructive,
                "{dialect}: {sql}"
            );
        }
        assert_eq!(
            in_dialect("COPY (SELECT 1) TO STDOUT", "postgres").verdict,
            Verdict::ReadOnly
        );
        assert!(has(
            &in_dialect("USE ROLE ACCOUNTADMIN", "snowflake"),
            codes::SQL_SESSION_STATE
        ));
    }

    #[test]
    fn calls_in_other_syntax_and_file_access() {
        let pg = |sql| in_dialect(sql, "postgres");
        assert_eq!(
            pg("SELECT (amount).pg_sleep FROM t").verdict,
            Verdict::Destructive
        );
        assert!(has(&pg("SELECT t.col.func FROM t"), codes::SQL_CALL_SYNTAX));
        assert!(has(
            &pg("SELECT 1 OPERATOR(pg_catalog.+) 2"),
            codes::SQL_CALL_SYNTAX
        ));
        assert_eq!(
            in_dialect("SELECT seq.nextval", "snowflake").verdict,
            Verdict::Destructive
        );
        let duck = |sql| in_dialect(sql, "duckdb");
        assert!(has(
            &duck("SELECT * FROM '/root/.aws/credentials'"),
            codes::SQL_FILE_ACCESS
        ));
        assert!(has(
            &duck("SELECT * FROM read_csv('x.csv')"),
            codes::SQL_FILE_ACCESS
        ));
        assert!(has(&duck("ATTACH 'x.db'"), codes::SQL_FILE_ACCESS));
        assert_eq!(duck("SELECT * FROM users").verdict, Verdict::ReadOnly);
    }

    #[test]
    fn unbounded_work_is_a_finding() {
        let pg = |sql| in_dialect(sql, "postgres");
        for sql in [
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r",
            "SELECT * FROM a, b, c",
            "SELECT count(*) FROM generate_series(1, 10^12)",
            "SELECT repeat('x', 2147483647)",
            "SELECT repeat(repeat('x', 1000), 1000)",
        ] {
            assert!(has(&pg(sql), codes::SQL_UNBOUNDED), "{sql}");
        }
        for sql in [
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT * FROM r",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r LIMIT 5",
            "SELECT * FROM a, b, c WHERE a.id = b.id AND b.id = c.id",
            "SELECT * FROM generate_series(1, 1000)",
            "SELECT lpad('7', 3, '0')",
        ] {
            assert_eq!(pg(sql).verdict, Verdict::ReadOnly, "{sql}");
        }
    }

    /// The checks stay linear: sixteen times the input costs far less than
    /// sixteen squared times the time, for the shapes that could go quadratic
    /// (unclosed comments, quotes and dollar tags, many relations, many calls).
    #[test]
    fn work_grows_linearly_with_the_input() {
        let shapes: Vec<fn(usize) -> String> = vec![
            |n| format!("SELECT 1 {}", "/* ".repeat(n)),
            |n| format!("SELECT 1 {}", "$a ".repeat(n)),
            |n| format!("SELECT 1 {}", "$a$ $b$ ".repeat(n)),
            |n| format!("SELECT {}", "'\\' ".repeat(n)),
            |n| format!("SELECT {}", "q'[ ".repeat(n)),
            |n| format!("SELECT 1 {}", "-- x\r".repeat(n)),
            |n| {
                format!(
                    "SELECT * FROM t0{}",
                    (1..n).map(|i| format!(", t{i}")).collect::<String>()
                )
            },
            |n| format!("SELECT {}1", "repeat('x', 10) || ".repeat(n)),
            |n| format!("SELECT 1 FROM t WHERE {}1 = 1", "a.x = b.y AND ".repeat(n)),
        ];
        let time = |sql: &str| {
            (0..5)
                .map(|_| {
                    let start = std::time::Instant::now();
                    let _ = in_dialect(sql, "generic");
                    start.elapsed()
                })
                .min()
                .unwrap_or_default()
        };
        for shape in shapes {
            let small = time(&shape(100));
            let large = time(&shape(1600));
            assert!(
                large.as_nanos() < small.as_nanos().max(1_000_000) * 16 * 8,
                "{small:?} for 100, {large:?} for 1600: {}",
                preview(&shape(3), 60)
            );
        }
    }
    /// Self-attack: texts built from every quoting and comment fragment the
    /// readings know. Whenever some reading of the configured dialect runs a
    /// DROP as code, the assessment must be destructive (so the floor holds).
    #[test]
    fn no_reading_runs_a_drop_the_assessment_missed() {
        const FRAGMENTS: &[&str] = &[
            "'",
            "\\",
            "$$",
            "$a$",
            "--",
            "-- ",
            "--1",
            "#",
            "/*",
            "*/",
            "/*!",
            "\"",
            "`",
            "[",
            "]",
            "\n",
            "\r",
            ";",
            " DROP TABLE t ",
            "SELECT 1 ",
            "E'",
            "q'[",
            "]'",
            " ",
            "//",
            "'''",
            "N'",
            "x",
        ];
        const DIALECTS: &[&str] = &[
            "generic",
            "postgres",
            "mysql",
            "sqlite",
            "mssql",
            "snowflake",
            "bigquery",
            "duckdb",
            "redshift",
            "clickhouse",
            "hive",
            "databricks",
            "ansi",
            "oracle",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for _ in 0..1500 {
            let len = 3 + (next() % 8) as usize;
            let mut sql = String::from("SELECT 1 ");
            for _ in 0..len {
                let pick = (next() % FRAGMENTS.len() as u64) as usize;
                sql.push_str(FRAGMENTS.get(pick).copied().unwrap_or(" "));
            }
            for dialect in DIALECTS {
                let assessment = in_dialect(&sql, dialect);
                let runs_drop = scans(&sql, dialect).any(|(_, scan)| {
                    readings::code_words(&sql, &scan)
                        .iter()
                        .any(|w| w.eq_ignore_ascii_case("drop"))
                });
                if runs_drop {
                    assert_eq!(
                        assessment.verdict,
                        Verdict::Destructive,
                        "{dialect}: {sql:?}: {:?}",
                        assessment.findings
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "only {checked} texts ran a DROP");
    }
}
