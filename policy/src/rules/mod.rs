//! Rules people write (`rules` in the configuration) and the grants an
//! approval leaves behind, matched on what the assessors parsed
//! ([`crate::assess::facts`]), never on the raw text.
//!
//! The shapes are [`toolgate_shapes::rules`]. A rule names an effect, the
//! tools it applies to (a glob on the tool's name; without one, every tool
//! of its matcher's kind) and at most one matcher:
//!
//! - `command: ["npm", "test"]`: an allow rule covers a simple command whose
//!   argv is exactly these words, or starts with them when the last word is
//!   `*`. A line is covered only when it is flat (lists of simple commands
//!   joined by `;`, `&&`, `||`, `|`) and **every** segment is covered by an
//!   allow rule or proven read-only on its own; a segment with a
//!   substitution, an expansion, a glob, an assignment or a redirection to a
//!   file is never covered, and a wrapper (`sudo`, `timeout`, `bash -c`) is
//!   covered only by a rule that names it. A segment the floor finds
//!   destructive is covered only by a rule naming its argv exactly. Deny and
//!   ask rules match any simple command anywhere in the line (in
//!   substitutions, groups, `sh -c` scripts, after wrappers) that runs the
//!   rule's program with the rule's other words in order.
//! - `sql: {statements, tables}`: statement kinds ([`SQL_KINDS`]) and table
//!   globs, schema-qualified (`audit.events`, `audit.*`; an unqualified
//!   table matches only an unqualified rule table). An allow rule covers a
//!   statement of one of its kinds when every table it names matches and
//!   nothing else in it is unsafe; a statement that destroys whole tables
//!   (`DROP`, `TRUNCATE`, a destructive `ALTER`) only when the rule names
//!   its tables without a glob.
//! - `file: {operations, paths}`: operations (`read`, `write`, `create`,
//!   `delete`, …) and path globs (`**` any depth, `*` within one segment) on
//!   the normalised path. Traversal, secrets, `~`, drive, stream and escape
//!   spellings, `/proc` and `/dev`, and paths outside the tool's roots are
//!   never covered; a delete or replace only by the exact path.
//! - `http: {methods, hosts, paths}`: methods (empty: any but `DELETE`, which
//!   a rule must name), host globs (with `:port` when the URL names one) and
//!   path globs, on the host every client reads and the path as written.
//!
//! Precedence is the engine's (see `crate::engine`): deny, then ask, then
//! allow. Grants only ever allow.

mod glob;
mod implied;
mod judge;
mod narrow;
mod validate;

pub use glob::{literal_name, name_glob, name_of_literal};
pub use implied::implied;
pub use judge::escape_word;
pub(crate) use judge::{judge, Judged};
pub use narrow::narrowest;
pub use toolgate_shapes::rules::{Effect, FileMatch, HttpMatch, Rule, SqlMatch};
pub use validate::check_rule;

use crate::config::ToolKind;

/// The SQL statement kinds a rule may name.
pub const SQL_KINDS: &[&str] = &[
    "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "CREATE", "ALTER", "DROP",
];

/// The kind of tool a rule's matcher is for, if it has one.
pub fn matcher_kind(rule: &Rule) -> Option<ToolKind> {
    if rule.command.is_some() {
        Some(ToolKind::Command)
    } else if rule.sql.is_some() {
        Some(ToolKind::Sql)
    } else if rule.file.is_some() {
        Some(ToolKind::File)
    } else if rule.http.is_some() {
        Some(ToolKind::Http)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
