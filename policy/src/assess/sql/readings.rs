//! The readings a server may take of one SQL text.
//!
//! Servers disagree on what is code and what is a string or a comment: MySQL
//! needs a space after `--` and honours backslash escapes (unless
//! `NO_BACKSLASH_ESCAPES`), PostgreSQL quotes with `$tag$` and, with
//! `standard_conforming_strings=off`, honours backslashes too; PostgreSQL,
//! DuckDB and T-SQL nest block comments, MySQL and SQLite do not.
//!
//! The PostgreSQL, DuckDB and SQLite readings are claims about real lexers, and
//! the parse oracles (`oracles/tests/sqlparse.rs`) hold them to each engine's
//! own statement splitter on every text the policy proves read-only. The parser reads the
//! text one way; the server may read it another, and run a `DROP` the parser
//! saw as a comment.
//!
//! So each reading is a cheap linear scanner that marks every byte as code or
//! inert (string, comment). The parse stands only when no reading sees code
//! where the parser saw inert text and every reading splits the statements at
//! the same `;`s. The floor looks at the code of every reading.

use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

/// How `"…"` is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DoubleQuote {
    /// A quoted identifier or a string without escapes: `""` doubles.
    Plain,
    /// A string with backslash escapes (MySQL without `ANSI_QUOTES`).
    Escaped,
}

/// The lexical rules of one server configuration.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// For messages: which server and setting.
    pub name: &'static str,
    /// `'…'` honours backslash escapes.
    backslash: bool,
    double_quote: DoubleQuote,
    /// `` `…` `` quotes an identifier.
    backtick: bool,
    /// `[…]` quotes an identifier.
    brackets: bool,
    /// `--` starts a comment only before a space or control character.
    dash_needs_space: bool,
    /// `#` starts a comment.
    hash_comment: bool,
    /// `//` starts a comment.
    slash_comment: bool,
    /// `/* /* */ */` nests.
    nested_comments: bool,
    /// `$tag$…$tag$` quotes (`$$` only when `tagged` is false).
    dollar: Option<bool>,
    /// `E'…'` honours backslash escapes.
    escape_strings: bool,
    /// `'''…'''` and `"""…"""` quote.
    triple_quotes: bool,
    /// Oracle's `q'[…]'`.
    q_quotes: bool,
    /// A carriage return ends a line comment (PostgreSQL's lexer), not only a
    /// line feed.
    cr_ends_comment: bool,
    /// `/*! … */` and `/*M! … */` are code the server runs (MySQL, MariaDB).
    executable_comments: bool,
}

const BASE: Reading = Reading {
    name: "standard SQL",
    backslash: false,
    double_quote: DoubleQuote::Plain,
    backtick: false,
    brackets: false,
    dash_needs_space: false,
    hash_comment: false,
    slash_comment: false,
    nested_comments: false,
    dollar: None,
    escape_strings: false,
    triple_quotes: false,
    q_quotes: false,
    cr_ends_comment: false,
    executable_comments: false,
};

const POSTGRES: Reading = Reading {
    name: "PostgreSQL",
    cr_ends_comment: true,
    nested_comments: true,
    dollar: Some(true),
    escape_strings: true,
    ..BASE
};
const POSTGRES_NO_SCS: Reading = Reading {
    name: "PostgreSQL with standard_conforming_strings=off",
    backslash: true,
    ..POSTGRES
};
const MYSQL: Reading = Reading {
    name: "MySQL",
    executable_comments: true,
    backslash: true,
    double_quote: DoubleQuote::Escaped,
    backtick: true,
    dash_needs_space: true,
    hash_comment: true,
    ..BASE
};
const MYSQL_ANSI_QUOTES: Reading = Reading {
    name: "MySQL with ANSI_QUOTES",
    double_quote: DoubleQuote::Plain,
    ..MYSQL
};
const MYSQL_NO_BACKSLASH: Reading = Reading {
    name: "MySQL with NO_BACKSLASH_ESCAPES",
    backslash: false,
    double_quote: DoubleQuote::Plain,
    ..MYSQL
};
const SQLITE: Reading = Reading {
    name: "SQLite",
    backtick: true,
    brackets: true,
    ..BASE
};
const TSQL: Reading = Reading {
    name: "T-SQL",
    brackets: true,
    nested_comments: true,
    ..BASE
};
const TSQL_CR: Reading = Reading {
    name: "T-SQL (a carriage return ending a comment)",
    cr_ends_comment: true,
    ..TSQL
};
const SNOWFLAKE: Reading = Reading {
    name: "Snowflake",
    backslash: true,
    slash_comment: true,
    dollar: Some(false),
    ..BASE
};
const BIGQUERY: Reading = Reading {
    name: "BigQuery",
    backslash: true,
    double_quote: DoubleQuote::Escaped,
    backtick: true,
    hash_comment: true,
    triple_quotes: true,
    ..BASE
};
const HIVE: Reading = Reading {
    name: "Hive/Spark",
    backslash: true,
    double_quote: DoubleQuote::Escaped,
    backtick: true,
    nested_comments: true,
    ..BASE
};
const CLICKHOUSE: Reading = Reading {
    name: "ClickHouse",
    backslash: true,
    backtick: true,
    hash_comment: true,
    dash_needs_space: false,
    nested_comments: true,
    ..BASE
};
/// Checked against DuckDB 2.0's own statement splitter (`duckdb.extract_statements`
/// in the Python wheel the oracles run): block comments nest, backticks quote
/// identifiers, `--` needs no space, a carriage return ends a line comment,
/// backslashes escape only in `E'…'`, `#` and `//` are not comments.
const DUCKDB: Reading = Reading {
    name: "DuckDB",
    nested_comments: true,
    backtick: true,
    cr_ends_comment: true,
    dollar: Some(true),
    escape_strings: true,
    ..BASE
};
const ORACLE: Reading = Reading {
    name: "Oracle",
    q_quotes: true,
    ..BASE
};

/// The readings of a configured dialect (every variant of it), or of any server
/// when none is configured (`generic`).
pub fn for_dialect(dialect: &str) -> &'static [Reading] {
    match dialect.to_ascii_lowercase().as_str() {
        "postgres" | "postgresql" | "redshift" => &[POSTGRES, POSTGRES_NO_SCS],
        "mysql" => &[MYSQL, MYSQL_ANSI_QUOTES, MYSQL_NO_BACKSLASH],
        "sqlite" => &[SQLITE],
        "mssql" => &[TSQL, TSQL_CR],
        "snowflake" => &[SNOWFLAKE],
        "bigquery" => &[BIGQUERY],
        "hive" | "databricks" | "spark" | "sparksql" => &[HIVE],
        "clickhouse" => &[CLICKHOUSE],
        "duckdb" => &[DUCKDB],
        "oracle" => &[ORACLE],
        "ansi" => &[BASE],
        // generic, and anything else: every server the text might be sent to.
        _ => &[
            BASE,
            POSTGRES,
            POSTGRES_NO_SCS,
            MYSQL,
            MYSQL_ANSI_QUOTES,
            MYSQL_NO_BACKSLASH,
            SQLITE,
            TSQL,
            TSQL_CR,
            SNOWFLAKE,
            BIGQUERY,
            HIVE,
            CLICKHOUSE,
            DUCKDB,
            ORACLE,
        ],
    }
}

/// What one reading makes of the text.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// One flag per byte: code (true) or inert (string, comment).
    pub code: Vec<bool>,
    /// The bodies of dollar-quoted strings (byte ranges): code a server runs
    /// in `DO` blocks and function bodies.
    pub bodies: Vec<(usize, usize)>,
    /// The contents of string literals (byte ranges): dynamic SQL may run them.
    pub literals: Vec<(usize, usize)>,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Scans `sql` under `reading`, in one pass.
pub fn scan(sql: &str, reading: &Reading) -> Scan {
    let bytes = sql.as_bytes();
    let n = bytes.len();
    let mut scan = Scan {
        code: vec![true; n],
        ..Scan::default()
    };
    let at = |i: usize| bytes.get(i).copied();
    let mut i = 0;
    while let Some(b) = at(i) {
        let prev_word = i > 0 && at(i - 1).is_some_and(is_word_byte);
        // A string's prefix (`E'…'`, `N'…'`, `U&'…'`, `x'…'`) belongs to it,
        // as it does for the parser.
        let start = if matches!(b, b'\'' | b'"') {
            string_prefix(bytes, i)
        } else {
            i
        };
        let inert_end: Option<usize> = match b {
            b'\''
                if reading.triple_quotes && sql.get(i..).is_some_and(|r| r.starts_with("'''")) =>
            {
                Some(closing(sql, i + 3, "'''"))
            }
            b'"' if reading.triple_quotes
                && sql.get(i..).is_some_and(|r| r.starts_with("\"\"\"")) =>
            {
                Some(closing(sql, i + 3, "\"\"\""))
            }
            b'\'' => {
                let escaped = reading.backslash
                    || (reading.escape_strings
                        && i > 0
                        && matches!(at(i - 1), Some(b'e' | b'E'))
                        && !(i > 1 && at(i - 2).is_some_and(is_word_byte)));
                let end = quoted(bytes, i + 1, b'\'', escaped);
                scan.literals
                    .push((i + 1, end.saturating_sub(1).max(i + 1)));
                Some(end)
            }
            b'"' => {
                let escaped = reading.double_quote == DoubleQuote::Escaped;
                let end = quoted(bytes, i + 1, b'"', escaped);
                if escaped {
                    scan.literals
                        .push((i + 1, end.saturating_sub(1).max(i + 1)));
                }
                Some(end)
            }
            b'`' if reading.backtick => Some(quoted(bytes, i + 1, b'`', false)),
            b'[' if reading.brackets => Some(quoted(bytes, i + 1, b']', false)),
            b'-' if at(i + 1) == Some(b'-')
                && (!reading.dash_needs_space
                    || at(i + 2)
                        .is_none_or(|c| c.is_ascii_whitespace() || c.is_ascii_control())) =>
            {
                Some(line_end(bytes, i, reading.cr_ends_comment))
            }
            b'#' if reading.hash_comment => Some(line_end(bytes, i, reading.cr_ends_comment)),
            b'/' if reading.slash_comment && at(i + 1) == Some(b'/') => {
                Some(line_end(bytes, i, reading.cr_ends_comment))
            }
            // An executable comment's markers are inert, its text is code.
            b'/' if reading.executable_comments
                && at(i + 1) == Some(b'*')
                && (at(i + 2) == Some(b'!')
                    || (at(i + 2) == Some(b'M') && at(i + 3) == Some(b'!'))) =>
            {
                let marker = if at(i + 2) == Some(b'!') { 3 } else { 4 };
                Some(i + marker)
            }
            b'*' if reading.executable_comments && at(i + 1) == Some(b'/') => Some(i + 2),
            b'/' if at(i + 1) == Some(b'*') => Some(block_end(bytes, i, reading.nested_comments)),
            b'$' if !prev_word => match (reading.dollar, dollar_tag(bytes, i)) {
                (Some(tagged), Some(tag_end)) if tagged || tag_end == i + 2 => {
                    let tag = sql.get(i..tag_end).unwrap_or("$$");
                    let end = closing(sql, tag_end, tag);
                    scan.bodies
                        .push((tag_end, end.saturating_sub(tag.len()).max(tag_end)));
                    Some(end)
                }
                _ => None,
            },
            b'q' | b'Q' if reading.q_quotes && !prev_word && at(i + 1) == Some(b'\'') => {
                match at(i + 2) {
                    Some(open) if open.is_ascii_graphic() => {
                        let close = match open {
                            b'[' => b']',
                            b'{' => b'}',
                            b'(' => b')',
                            b'<' => b'>',
                            other => other,
                        };
                        let pattern = [close, b'\''];
                        let pattern = std::str::from_utf8(&pattern).unwrap_or("'");
                        Some(closing(sql, i + 3, pattern))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let end = match inert_end {
            Some(end) => {
                // Everything consumed as a quote or comment is inert.
                for flag in scan.code.iter_mut().take(end.min(n)).skip(start) {
                    *flag = false;
                }
                end
            }
            None => i + 1,
        };
        i = end.max(i + 1);
    }
    scan
}

/// Where a string literal's prefix of up to three letters (or `&`) starts.
fn string_prefix(bytes: &[u8], quote: usize) -> usize {
    let mut start = quote;
    while start > 0
        && quote - start < 3
        && bytes
            .get(start - 1)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'&')
    {
        start -= 1;
    }
    let glued = start > 0 && bytes.get(start - 1).is_some_and(|&c| is_word_byte(c));
    if glued {
        quote
    } else {
        start
    }
}

/// The end (exclusive) of a quoted run that started before `from`: a doubled
/// quote continues it, and so does a backslash when `escaped`. Unterminated:
/// the end of the text.
fn quoted(bytes: &[u8], from: usize, quote: u8, escaped: bool) -> usize {
    let mut i = from;
    while let Some(&c) = bytes.get(i) {
        if escaped && c == b'\\' {
            i += 2;
            continue;
        }
        i += 1;
        if c == quote {
            if bytes.get(i) == Some(&quote) {
                i += 1;
                continue;
            }
            return i;
        }
    }
    bytes.len()
}

/// The end (exclusive) of the first `pattern` at or after `from`, or the end of
/// the text.
fn closing(sql: &str, from: usize, pattern: &str) -> usize {
    sql.get(from..)
        .and_then(|rest| rest.find(pattern))
        .map_or(sql.len(), |at| from + at + pattern.len())
}

fn line_end(bytes: &[u8], from: usize, cr: bool) -> usize {
    let mut i = from;
    while bytes
        .get(i)
        .is_some_and(|&c| c != b'\n' && !(cr && c == b'\r'))
    {
        i += 1;
    }
    i
}

fn block_end(bytes: &[u8], from: usize, nested: bool) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while let Some(&c) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        if c == b'/' && next == Some(b'*') && (nested || depth == 0) {
            depth += 1;
            i += 2;
        } else if c == b'*' && next == Some(b'/') {
            depth = depth.saturating_sub(1);
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The end of a dollar-quote tag starting at `from` (`$$`, `$tag$`), if it is one.
fn dollar_tag(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from + 1;
    if bytes.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    while let Some(&c) = bytes.get(i) {
        if c == b'$' {
            return Some(i + 1);
        }
        if !(c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80) {
            return None;
        }
        i += 1;
    }
    None
}

/// How the parser read the text: the same per-byte mask, from its tokens.
/// Quoted identifiers are names in code; strings and comments are inert.
pub fn parser_mask(sql: &str, tokens: &[TokenWithSpan]) -> Vec<bool> {
    let mut code = vec![true; sql.len()];
    // A cursor over (line, column) → byte offset; tokens come in order, so the
    // walk is linear.
    let mut cursor = Cursor::new(sql);
    for token in tokens {
        if !inert(&token.token) {
            continue;
        }
        let start = cursor.offset(token.span.start.line, token.span.start.column);
        let end = cursor.offset(token.span.end.line, token.span.end.column);
        // `0x1F` is a number written in hex, not a quoted literal.
        if matches!(token.token, Token::HexStringLiteral(_))
            && sql.as_bytes().get(start) == Some(&b'0')
        {
            continue;
        }
        for flag in code.iter_mut().take(end).skip(start) {
            *flag = false;
        }
    }
    code
}

fn inert(token: &Token) -> bool {
    matches!(
        token,
        Token::Whitespace(Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_))
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::TripleSingleQuotedString(_)
            | Token::TripleDoubleQuotedString(_)
            | Token::DollarQuotedString(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::TripleSingleQuotedByteStringLiteral(_)
            | Token::TripleDoubleQuotedByteStringLiteral(_)
            | Token::SingleQuotedRawStringLiteral(_)
            | Token::DoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedRawStringLiteral(_)
            | Token::TripleDoubleQuotedRawStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::QuoteDelimitedStringLiteral(_)
            | Token::NationalQuoteDelimitedStringLiteral(_)
            | Token::EscapedStringLiteral(_)
            | Token::UnicodeStringLiteral(_)
            | Token::HexStringLiteral(_)
    )
}

/// Converts the tokenizer's 1-based (line, column in characters) to byte offsets,
/// moving only forward.
struct Cursor<'a> {
    sql: &'a str,
    byte: usize,
    line: u64,
    column: u64,
}

impl<'a> Cursor<'a> {
    fn new(sql: &'a str) -> Self {
        Cursor {
            sql,
            byte: 0,
            line: 1,
            column: 1,
        }
    }

    fn offset(&mut self, line: u64, column: u64) -> usize {
        while (self.line, self.column) < (line, column) {
            let Some(c) = self.sql.get(self.byte..).and_then(|r| r.chars().next()) else {
                break;
            };
            self.byte += c.len_utf8();
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
        self.byte
    }
}

/// Where a reading disagrees with the parser: the first byte it runs as code
/// that the parser took for a string or comment, or a statement boundary (`;`)
/// one of them has and the other does not.
pub fn disagreement(sql: &str, parser: &[bool], scan: &Scan) -> Option<usize> {
    let bytes = sql.as_bytes();
    parser
        .iter()
        .zip(&scan.code)
        .enumerate()
        .find(|&(i, (&p, &r))| (r && !p) || (p != r && bytes.get(i) == Some(&b';')))
        .map(|(i, _)| i)
}

/// The words of `sql` that a reading runs as code, and, for the floor, the words
/// of dollar-quoted bodies (`DO $$ … $$`, function bodies).
pub fn code_words<'a>(sql: &'a str, scan: &Scan) -> Vec<&'a str> {
    // Code, and dollar-quoted bodies (disjoint ranges), as one mask.
    let mut mask = scan.code.clone();
    for &(s, e) in &scan.bodies {
        for flag in mask.iter_mut().take(e).skip(s) {
            *flag = true;
        }
    }
    let bytes = sql.as_bytes();
    let mut words = Vec::new();
    let mut i = 0;
    let word_at = |i: usize| {
        mask.get(i).copied().unwrap_or(false) && bytes.get(i).is_some_and(|&b| is_word_byte(b))
    };
    while i < bytes.len() {
        if word_at(i) {
            let start = i;
            while word_at(i) {
                i += 1;
            }
            if let Some(word) = sql.get(start..i) {
                words.push(word);
            }
        } else {
            i += 1;
        }
    }
    words
}

/// The words inside string literals: what dynamic SQL (`EXECUTE IMMEDIATE '…'`,
/// `EXEC('…')`) would run.
pub fn literal_words<'a>(sql: &'a str, scan: &Scan) -> Vec<&'a str> {
    scan.literals
        .iter()
        .filter_map(|&(s, e)| sql.get(s..e))
        .flat_map(|text| text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')))
        .filter(|w| !w.is_empty())
        .collect()
}
