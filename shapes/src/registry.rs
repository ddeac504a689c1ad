//! The registry API tools' shapes: a tool offered for a user's intent and the
//! HTTP request for calling one.

use serde::{Deserialize, Serialize};

/// A tool offered for an intent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The tool's name, as the model calls it.
    pub name: String,
    /// Its name for people (the tool name when none is configured).
    pub display_name: String,
    /// What it does.
    pub description: String,
    /// Its category, if configured.
    pub category: Option<String>,
    /// 1 = query, 2 = modify, 3 = delete.
    pub risk_level: u8,
    /// How well it matched; higher first.
    pub score: u32,
    /// The keywords found in the intent.
    pub matched: Vec<String>,
}

impl Candidate {
    /// The canonical JSON form (the same in every runtime).
    pub fn to_json(&self) -> String {
        // Strings and numbers only: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// An HTTP request for a registry tool, without base URL or credentials.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiRequest {
    /// The method, upper case.
    pub method: String,
    /// The path, parameters substituted and percent-encoded.
    pub path: String,
    /// The query parameters, in argument order (arrays repeat the name).
    pub query: Vec<(String, String)>,
    /// `path` and the encoded query string.
    pub url: String,
    /// The JSON body, for methods that send one.
    pub body: Option<String>,
}

impl ApiRequest {
    /// The canonical JSON form (the same in every runtime).
    pub fn to_json(&self) -> String {
        // Strings only: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// What an OpenAPI import takes: the operations to keep or leave out (by
/// tag or operation id) and a category for all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImportOptions {
    /// Keep only operations with one of these tags or operation ids (tool names).
    pub only: Vec<String>,
    /// Leave out operations with one of these tags or operation ids.
    pub exclude: Vec<String>,
    /// The category of every entry, instead of each operation's first tag.
    pub category: Option<String>,
}

/// An OpenAPI import's result: registry entries, tool definitions and what
/// people are told about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Imported {
    /// `tools` entries ready to paste into a configuration.
    pub tools: serde_json::Map<String, serde_json::Value>,
    /// Tool definitions for the model (OpenAI Chat Completions shape).
    pub definitions: Vec<serde_json::Value>,
    /// `level METHOD path name` for each operation, in document order.
    pub summary: Vec<String>,
    /// What was left to the host, and why.
    pub notes: Vec<String>,
    /// What a command line tells people (on standard error): the counts by
    /// level, a line per operation and the notes — worded once, here, for
    /// both CLIs.
    pub report: Vec<String>,
}
