//! What an assessor parsed, for the rules people write.
//!
//! A rule is judged on these facts, never on the raw text: `npm test` in a
//! rule names one simple command's argv as the shell would pass it, an SQL
//! rule names statement kinds and the tables the dialect's parser found.
//! Each fact says, besides what the part is, whether the assessor could read
//! it cleanly; a part that is not clean is never covered by an allow rule.
//! Facts are built only when a rule or a mode needs them
//! ([`super::Assessor::facts`]), so a deployment without rules pays nothing.

/// The facts of one call, by the kind of its tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Facts {
    /// Nothing was parsed (an unknown tool, arguments of the wrong shape, a
    /// text the parser refused): no matcher covers any part of it.
    #[default]
    None,
    /// A command line or argv.
    Command(CommandFacts),
    /// SQL text.
    Sql(SqlFacts),
    /// A file operation.
    File(FileFacts),
    /// An HTTP request.
    Http(HttpFacts),
}

/// A command line, as the shell would run it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandFacts {
    /// The line is only `;`, `&&`, `||` and `|` lists of simple commands
    /// (no subshell, group, loop, function, here-document, background job or
    /// shell-state builtin): only then may allow rules cover it.
    pub flat: bool,
    /// The top-level simple commands, in order (meaningful when `flat`).
    pub segments: Vec<Segment>,
    /// Every simple command anywhere in the line (inside substitutions,
    /// groups, loops, `sh -c` scripts…), each word `None` when it is not a
    /// plain literal: what deny and ask rules look for.
    pub everywhere: Vec<Vec<Option<String>>>,
}

/// One top-level simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// The words as the program receives them; `None` when any word is not
    /// a plain literal (a substitution, an expansion, a glob, a brace).
    pub argv: Option<Vec<String>>,
    /// Redirections other than to `/dev/null` (and the standard streams) or
    /// a descriptor duplication (`2>&1`).
    pub redirected: bool,
    /// Leading `NAME=value` assignments.
    pub assigns: bool,
    /// The segment, judged alone (after the directory changes before it),
    /// is proven read-only.
    pub read_only: bool,
    /// The floor finds the segment destructive.
    pub destructive: bool,
}

/// SQL text, statement by statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SqlFacts {
    /// The top-level statements; empty when the text as a whole could not be
    /// read as one unambiguous parse (no rule covers it then).
    pub statements: Vec<SqlStatement>,
}

/// One SQL statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SqlStatement {
    /// Its kind (`INSERT`, `UPDATE`, … from [`crate::rules::SQL_KINDS`]);
    /// `None` for any other statement, which no rule names.
    pub kind: Option<&'static str>,
    /// Every table it names, after the dialect's identifier rules.
    pub tables: Vec<TableName>,
    /// Proven read-only.
    pub read_only: bool,
    /// The floor finds it destructive.
    pub destructive: bool,
    /// Nothing in it but its own write: no side-effect or unknown function,
    /// no file access, no nested write, no secret table.
    pub clean: bool,
}

/// A table's name: unquoted identifiers folded to lower case, quoted ones
/// kept as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableName {
    /// The qualifier (`audit`, or `db.audit` for three parts); `None` when
    /// the statement does not qualify the name.
    pub schema: Option<String>,
    /// The table itself.
    pub name: String,
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.schema {
            Some(schema) => write!(f, "{schema}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A file operation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// The operation's comparison key (lower case, separators removed).
    pub operation: String,
    /// The normalised path (POSIX reading, `.` and `..` resolved).
    pub path: String,
    /// Every reading of the path (POSIX, Windows, percent-decoded, file
    /// URL), normalised: what deny and ask rules look at.
    pub readings: Vec<String>,
    /// No traversal, not a secret, not a symlink-shaped or ambiguous
    /// spelling, inside the tool's roots (or relative when it has none).
    pub clean: bool,
    /// The operation deletes or replaces what was there.
    pub destructive: bool,
    /// The operation only reads.
    pub read_only: bool,
}

/// An HTTP request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpFacts {
    /// The declared method and every override, upper case.
    pub methods: Vec<String>,
    /// The host every client reads (with `:port` when one is given); `None`
    /// when clients disagree, credentials are sent or the URL is not plain
    /// http(s).
    pub host: Option<String>,
    /// The path, when every client reads it the same (no dot segments,
    /// escapes or backslashes); `None` otherwise.
    pub path: Option<String>,
    /// Every host any client reads: what deny and ask rules look at.
    pub hosts: Vec<String>,
}
