//! `file_operations`: the operation name decides; only read, list and exists are
//! read-only.

use super::{Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::decision::Finding;
use serde_json::{Map, Value};

/// The file assessor: reads the operation name and, for summaries, the path.
#[derive(Clone, Debug)]
pub struct FileAssessor {
    /// The argument that names the operation.
    pub operation_field: String,
    /// The argument that holds the path.
    pub path_field: String,
}

impl Default for FileAssessor {
    fn default() -> Self {
        FileAssessor {
            operation_field: String::from("operation"),
            path_field: String::from("path"),
        }
    }
}

/// Operations that only read.
const READ_ONLY: &[&str] = &["read", "list", "exists"];
/// Operations that delete (for the guarded floor).
const DELETING: &[&str] = &["delete", "remove", "rm", "unlink", "rmdir"];
/// Operations known to change files without deleting them.
const WRITING: &[&str] = &[
    "write", "create", "append", "mkdir", "move", "rename", "copy", "chmod", "touch", "edit",
];

impl Assessor for FileAssessor {
    fn assess(&self, args: &Map<String, Value>) -> Assessment {
        let operation = match string_field(args, &self.operation_field) {
            Ok(op) => op,
            Err(finding) => return Assessment::single(Verdict::Unproven, "", finding),
        };
        let path = string_field(args, &self.path_field).unwrap_or("");
        let described = if path.is_empty() {
            operation.to_owned()
        } else {
            format!("{operation} {path}")
        };
        let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(operation));
        let (verdict, finding) = if is(READ_ONLY) {
            (
                Verdict::ReadOnly,
                Finding::new(codes::FILE_READ_ONLY, format!("`{operation}` only reads")),
            )
        } else if is(DELETING) {
            (
                Verdict::Destructive,
                Finding::new(codes::FILE_DELETE, format!("`{operation}` deletes files")),
            )
        } else if is(WRITING) {
            (
                Verdict::Unproven,
                Finding::new(codes::FILE_WRITE, format!("`{operation}` changes files")),
            )
        } else {
            (
                Verdict::Unproven,
                Finding::new(
                    codes::FILE_UNKNOWN_OPERATION,
                    format!("`{operation}` is not a known read-only operation"),
                ),
            )
        };
        Assessment::single(verdict, described, finding)
    }
}
