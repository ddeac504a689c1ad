//! Rules people write, and the grants an approval leaves behind.
//!
//! A rule names an effect (`allow`, `ask`, `deny`), the tools it applies to
//! and, optionally, what in a call it matches, per kind of tool. Matching is
//! the policy's (`toolgate_policy::rules`): it is judged on what the assessor
//! parsed, never on the raw text. The shape lives here because a grant, which
//! hosts store and list, carries rules.

use serde::{Deserialize, Serialize};

/// What a rule does to the calls it matches. Precedence: deny, then ask, then
/// allow.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// Run without asking (the user's word; it may waive the floor only for
    /// exactly what it names).
    Allow,
    /// A person confirms, whatever the model or the assessors say (the
    /// default of a rule built in code: the safe one).
    #[default]
    Ask,
    /// Never run.
    Deny,
}

impl Effect {
    /// The lowercase name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }
}

/// One rule. Without `tool` it applies to every tool its matcher's kind
/// fits; a rule with neither `tool` nor a matcher is refused by the
/// configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A name the decision's finding cites (else the rule's index, `rules[3]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What the rule does.
    pub effect: Effect,
    /// The tool names it applies to; `*` stands for any run of characters
    /// (`alert_*`, `mcp:github/*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// command: the argv of one simple command, word for word; a last word
    /// `*` stands for any further arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// sql: statement kinds and the tables they touch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<SqlMatch>,
    /// file: operations and path globs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<FileMatch>,
    /// http: methods, host globs and path globs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpMatch>,
}

/// What an SQL rule matches: every statement of one of these kinds whose
/// every table is one of these (schema-qualified as written in the rule).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlMatch {
    /// Statement kinds, upper case (`INSERT`, `UPDATE`, `DELETE`, …).
    pub statements: Vec<String>,
    /// Table names or globs (`audit.events`, `audit.*`).
    pub tables: Vec<String>,
}

/// What a file rule matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileMatch {
    /// Operations (`read`, `write`, `create`, `delete`, …).
    pub operations: Vec<String>,
    /// Path globs (`src/**`, `/srv/app/*.log`).
    pub paths: Vec<String>,
}

/// What an HTTP rule matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpMatch {
    /// Methods, upper case; empty means every method.
    #[serde(default)]
    pub methods: Vec<String>,
    /// Host globs (`api.example.com`, `*.example.com`).
    pub hosts: Vec<String>,
    /// Path globs (`/v1/items/*`); empty means every path.
    #[serde(default)]
    pub paths: Vec<String>,
}
