//! The registry tools (seed 002, the API registry: tools that are HTTP
//! endpoints of the deployment's own system, described in the configuration
//! with `kind: "api"`), beyond the risk decision: finding candidate
//! tools for a user's intent ([`discover()`]), the compact tool list a model is
//! shown ([`tool_prompt`]), turning a call's arguments into an HTTP request
//! ([`build_request`]) and a response into a result for the model
//! ([`read_response`]). All of it lives in the component, so every runtime
//! finds the same tools and builds the same request for the same call.

pub mod complete;
pub mod discover;
pub mod openapi;
pub mod request;
pub mod response;
pub mod schema;
pub mod template;

pub use complete::complete_args;
pub use discover::{discover, tool_prompt, Candidate};
pub use request::{build_request, ApiRequest};
pub use response::{read_response, read_tool_response};

use crate::config::{Config, ToolConfig, ToolKind};

/// A registry entry: an API tool, an MCP tool with registry metadata, or a
/// script tool (seed 002 §2.1's three types).
pub(crate) struct Entry<'a> {
    pub name: &'a str,
    pub tool: &'a ToolConfig,
    pub kind: ToolKind,
}

impl Entry<'_> {
    /// Whether it may be offered and called.
    pub fn enabled(&self) -> bool {
        self.tool.enabled.unwrap_or(true)
    }

    /// 1 = query, 2 = modify, 3 = delete: the configured level, else derived
    /// from the method (API) or the annotations (MCP: read-only 1, destructive
    /// or unannotated 3, otherwise 2); a script without one is 3.
    pub fn level(&self) -> u8 {
        if let Some(level) = self.tool.risk_level {
            return level;
        }
        match self.kind {
            ToolKind::Api => match self.method().as_str() {
                "GET" | "HEAD" | "OPTIONS" => 1,
                "DELETE" => 3,
                _ => 2,
            },
            // A script's effect is read by nobody: the highest level.
            ToolKind::Script => 3,
            _ => {
                let hints = self.tool.annotations.clone().unwrap_or_default();
                if hints.read_only_hint == Some(true) {
                    1
                } else if hints.destructive_hint == Some(false) {
                    2
                } else {
                    3
                }
            }
        }
    }

    /// The HTTP method, upper case (`GET` when unset).
    pub fn method(&self) -> String {
        self.tool
            .method
            .as_deref()
            .unwrap_or("GET")
            .to_ascii_uppercase()
    }
}

/// Every API, MCP and script tool of the configuration, in name order.
pub(crate) fn entries(config: &Config) -> impl Iterator<Item = Entry<'_>> {
    config.tools.iter().filter_map(|(name, tool)| {
        let kind = tool.kind?;
        matches!(kind, ToolKind::Api | ToolKind::Mcp | ToolKind::Script).then_some(Entry {
            name,
            tool,
            kind,
        })
    })
}

/// Whether a registry API tool's request carries a JSON body: when its entry
/// describes one (`request_body_schema`, `body_field`), or, for POST, PUT and
/// PATCH, when the entry describes no query parameters either (an entry with
/// a query schema and no body schema, as an import writes for an operation
/// without a request body, sends none).
pub(crate) fn sends_body(tool: &ToolConfig) -> bool {
    let method = tool.method.as_deref().unwrap_or("GET").to_ascii_uppercase();
    tool.request_body_schema.is_some()
        || tool.body_field.is_some()
        || matches!(method.as_str(), "POST" | "PUT" | "PATCH") && tool.query_params_schema.is_none()
}
