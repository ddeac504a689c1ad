//! MCP tools, judged by their annotations (`readOnlyHint`, `destructiveHint`,
//! `idempotentHint`, `openWorldHint`). Annotations are hints from a server that
//! may be untrusted: a read-only hint allows only when the configuration trusts
//! the server; a destructive hint always raises. Defaults follow the MCP
//! specification: `readOnlyHint` false, `destructiveHint` true (meaningful only
//! when the tool is not read-only), so an unannotated tool is treated as one that
//! may destroy.
//!
//! A tool that reads files (`read_text_file` on a filesystem server) can be
//! declared so with `path_field` (and `roots`): its path then passes the same
//! secret-file table and roots as `file_operations` before a read-only hint
//! can allow. Without the declaration, the common path arguments are still
//! checked against the secret-file table, and URL arguments (`url`, `uri`, …)
//! against the internal-host rules of `http_request`.

use super::{Assessment, Assessor, Verdict};
use crate::codes;
use crate::config::Annotations;
use crate::context::Context;
use crate::decision::{Finding, Source};
use serde_json::{Map, Value};

/// An MCP tool.
#[derive(Clone, Debug)]
pub struct McpAssessor {
    /// The server's name, for messages.
    pub server: String,
    /// Whether the configuration trusts the server's read-only hints.
    pub trusted: bool,
    /// The tool's annotations.
    pub annotations: Annotations,
    /// The argument that holds the path of a tool declared to read files.
    pub path_field: Option<String>,
    /// Directories a declared file tool may read without confirmation.
    pub roots: Vec<String>,
}

/// Arguments that name files on tools not declared as file tools: the
/// secret-file table applies to them all the same.
const PATH_ARGUMENTS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "file_path",
    "filepath",
    "filename",
    "source",
    "destination",
];

/// Arguments that name URLs a tool would fetch.
const URL_ARGUMENTS: &[&str] = &["url", "uri", "urls", "endpoint", "href", "link"];

/// The first problem of a URL argument: an http(s) URL must be public in
/// every client's reading, a `file:` URL must pass the path checks. A
/// trusted read-only fetch tool must not read a metadata service.
fn url_finding(args: &Map<String, Value>) -> Option<Finding> {
    URL_ARGUMENTS
        .iter()
        .filter_map(|field| args.get(*field))
        .flat_map(|value| match value {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        })
        .filter_map(Value::as_str)
        .find_map(|text| {
            let lower = text.trim().to_ascii_lowercase();
            if lower.starts_with("file:") {
                super::file::path_problem(text, &[])
                    .map(|(code, message)| Finding::new(code, message))
            } else if lower.starts_with("http:") || lower.starts_with("https:") {
                super::urls::url_problem(text, &[], &[])
            } else {
                None
            }
        })
}

impl McpAssessor {
    /// The first path problem in the tool's path arguments, if any.
    fn path_finding(&self, args: &Map<String, Value>) -> Option<Finding> {
        let declared: Vec<&str> = match &self.path_field {
            Some(field) => vec![field.as_str()],
            None => PATH_ARGUMENTS.to_vec(),
        };
        let roots: &[String] = if self.path_field.is_some() {
            &self.roots
        } else {
            &[]
        };
        if let Some(field) = &self.path_field {
            if !args.contains_key(field) {
                return Some(Finding::new(
                    codes::ARGS_MISSING_FIELD,
                    format!("the `{field}` argument is missing"),
                ));
            }
        }
        for field in declared {
            let values: Vec<&Value> = match args.get(field) {
                Some(Value::Array(items)) => items.iter().collect(),
                Some(other) => vec![other],
                None => continue,
            };
            for value in values {
                let Value::String(path) = value else {
                    if self.path_field.is_some() {
                        return Some(Finding::new(
                            codes::ARGS_WRONG_TYPE,
                            format!("the `{field}` argument is not a path string"),
                        ));
                    }
                    continue;
                };
                if let Some((code, message)) = super::file::path_problem(path, roots) {
                    return Some(Finding::new(code, message));
                }
            }
        }
        None
    }
}

impl Assessor for McpAssessor {
    fn assess(&self, args: &Map<String, Value>, _context: &Context) -> Assessment {
        let read_only = self.annotations.read_only_hint.unwrap_or(false);
        let destructive = !read_only && self.annotations.destructive_hint.unwrap_or(true);
        let server = crate::text::preview(&self.server, 60);
        let mut assessment = Assessment::new(Verdict::Unproven, format!("MCP tool on `{server}`"));
        assessment.proof = Source::Registry;
        let (verdict, finding) = if destructive {
            (
                Verdict::Destructive,
                Finding::new(
                    codes::MCP_DESTRUCTIVE_HINT,
                    if self.annotations.destructive_hint.is_some() {
                        "the server marks the tool destructive"
                    } else {
                        "the tool is not annotated read-only, and MCP tools may destroy unless they say otherwise"
                    },
                ),
            )
        } else if read_only && self.trusted {
            (
                Verdict::ReadOnly,
                Finding::new(
                    codes::MCP_READ_ONLY_HINT,
                    format!("the trusted server `{server}` marks the tool read-only"),
                ),
            )
        } else if read_only {
            (
                Verdict::Unproven,
                Finding::new(
                    codes::MCP_UNTRUSTED_HINT,
                    format!("`{server}` marks the tool read-only, but the server is not trusted"),
                ),
            )
        } else {
            (
                Verdict::Unproven,
                Finding::new(
                    codes::MCP_NOT_READ_ONLY,
                    "the server marks the tool as not read-only",
                ),
            )
        };
        assessment.verdict = verdict;
        // A file the tool would read or write: secrets and roots apply before
        // any hint can allow.
        if let Some(path) = self.path_finding(args).or_else(|| url_finding(args)) {
            if verdict == Verdict::ReadOnly {
                assessment.verdict = Verdict::Unproven;
            }
            assessment.findings.push(path);
        }
        assessment.findings.push(finding);
        assessment
    }
}
