//! Registry API tools (seed 002): a tool that calls one HTTP endpoint of the
//! deployment's own system, registered with its method, URL pattern, risk level
//! (1 = query, 2 = modify, 3 = delete), required permission and enabled flag.
//!
//! The registry decides: disabled → deny; a permission the user lacks → deny;
//! level 1 (or a safe method without a level) → allow; level 2 → confirm, or
//! allow with a finding that tells the user when the deployment says so; level 3
//! → confirm and floor. A path parameter that would change the path (`/`, `..`,
//! `?`, `#`, control characters) is never substituted: confirm.

use super::{Assessment, Assessor, Verdict};
use crate::codes;
use crate::context::Context;
use crate::decision::{Finding, Source};
use crate::text::preview;
use serde_json::{Map, Value};

/// A registry entry.
#[derive(Clone, Debug)]
pub struct ApiAssessor {
    /// The HTTP method, upper case.
    pub method: String,
    /// The URL pattern, with `:name` or `{name}` path parameters.
    pub url: String,
    /// 1, 2 or 3; `None` to derive it from the method.
    pub level: Option<u8>,
    /// The permission a user needs to call it.
    pub permission: Option<String>,
    /// Whether the tool may be called at all.
    pub enabled: bool,
    /// What level 2 gets: confirmed, or allowed and told (`notify`, or seed
    /// 002 §6.2's `inform`).
    pub level2: crate::config::Level2,
}

/// The path parameter names of a URL pattern (`:id`, `{id}`).
pub fn path_params(url: &str) -> Vec<String> {
    let mut names = Vec::new();
    for segment in url.split('/') {
        if let Some(name) = segment.strip_prefix(':') {
            names.push(name.to_owned());
        } else if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            names.push(name.to_owned());
        }
    }
    names
}

fn bad_path_value(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            return (n.to_string().contains(['/', '?', '#'])).then(|| n.to_string())
        }
        Value::Bool(_) => return None,
        other => return Some(other.to_string()),
    };
    let bad = text.is_empty()
        || text.contains(['/', '\\', '?', '#', '%'])
        || text == "."
        || text.contains("..")
        || text.chars().any(char::is_control);
    bad.then_some(text)
}

/// What every row of seed 002's registry table says about its tool, whatever
/// its type: whether it is enabled and the permission it needs (§2.1, §6.1),
/// and whether the resources the call names are the user's (§6.1).
fn check_row(
    enabled: bool,
    permission: Option<&str>,
    context: &Context,
    args: &Map<String, Value>,
    assessment: &mut Assessment,
) {
    if !enabled {
        assessment.deny = Some(Finding::new(
            codes::REGISTRY_DISABLED,
            "the tool is disabled in the registry",
        ));
    }
    if let Some(permission) = permission {
        match context.grants(permission) {
            Some(false) => {
                assessment.deny.get_or_insert_with(|| {
                    Finding::new(
                        codes::PERMISSION_MISSING,
                        format!(
                            "the user lacks the permission `{}`",
                            preview(permission, 60)
                        ),
                    )
                });
            }
            None => assessment.findings.push(Finding::new(
                codes::PERMISSION_UNCHECKED,
                format!(
                    "the tool requires `{}` and the caller gave no permissions to check",
                    preview(permission, 60)
                ),
            )),
            Some(true) => {}
        }
    }
    if let Some((name, value)) = context.unowned(args) {
        assessment.deny.get_or_insert_with(|| {
            Finding::new(
                codes::PERMISSION_NOT_OWNER,
                format!(
                    "`{}` = `{}` is not a resource the user owns",
                    preview(&name, 40),
                    preview(&value, 40)
                ),
            )
        });
    }
}

/// A `script` tool of seed 002's registry. Seed 002's executor refuses the
/// type (`unsupported tool type`) and seed 000 names custom scripts among the
/// operations whose risk is uncertain, so nothing proves a call read-only:
/// it is confirmed (`registry.script`), a level 3 makes it destructive (the
/// floor), and under guarded trust a model's `low` does not stand in for the
/// reading nobody could make. A disabled tool or a missing permission denies.
#[derive(Clone, Debug)]
pub struct ScriptAssessor {
    /// The tool's name, for the summary.
    pub name: String,
    /// The registry's level; only 3 changes the decision.
    pub level: Option<u8>,
    /// The permission a user needs to call it.
    pub permission: Option<String>,
    /// Whether the tool may be called at all.
    pub enabled: bool,
}

impl Assessor for ScriptAssessor {
    fn assess(&self, args: &Map<String, Value>, context: &Context) -> Assessment {
        let mut assessment = Assessment::new(Verdict::Unproven, format!("script {}", self.name));
        assessment.proof = Source::Registry;
        check_row(
            self.enabled,
            self.permission.as_deref(),
            context,
            args,
            &mut assessment,
        );
        assessment.findings.push(Finding::new(
            codes::REGISTRY_SCRIPT,
            "a script tool: seed 002's executor runs none, and what a script does is not read",
        ));
        if self.level == Some(3) {
            assessment.verdict = Verdict::Destructive;
            assessment.findings.insert(
                0,
                Finding::new(codes::REGISTRY_LEVEL, "registry level 3: deletes"),
            );
        }
        assessment
    }
}

/// An MCP tool with a row in seed 002's registry: the row's `enabled`,
/// `required_permission` and a level 3 apply on top of the annotations'
/// judgement. Levels 1 and 2 lift nothing (the table's default level is 1,
/// whoever wrote the row).
pub struct RegisteredMcp {
    /// The annotations' judgement.
    pub inner: super::mcp::McpAssessor,
    /// The registry's level.
    pub level: Option<u8>,
    /// The permission a user needs to call it.
    pub permission: Option<String>,
    /// Whether the tool may be called at all.
    pub enabled: bool,
}

impl Assessor for RegisteredMcp {
    fn assess(&self, args: &Map<String, Value>, context: &Context) -> Assessment {
        let mut assessment = self.inner.assess(args, context);
        check_row(
            self.enabled,
            self.permission.as_deref(),
            context,
            args,
            &mut assessment,
        );
        // A permission nobody could check is no proof of anything.
        if self
            .permission
            .as_deref()
            .is_some_and(|p| context.grants(p).is_none())
        {
            assessment.verdict = super::combine(assessment.verdict, Verdict::Unproven);
        }
        if self.level == Some(3) {
            assessment.verdict = Verdict::Destructive;
            assessment.findings.insert(
                0,
                Finding::new(codes::REGISTRY_LEVEL, "registry level 3: deletes"),
            );
        }
        assessment
    }

    fn facts(&self, args: &Map<String, Value>) -> super::facts::Facts {
        self.inner.facts(args)
    }

    fn fields(&self) -> Option<Vec<&str>> {
        self.inner.fields()
    }
}

impl Assessor for ApiAssessor {
    fn assess(&self, args: &Map<String, Value>, context: &Context) -> Assessment {
        let operation = format!("{} {}", self.method, self.url);
        let mut assessment = Assessment::new(Verdict::Unproven, operation);
        assessment.proof = Source::Registry;
        check_row(
            self.enabled,
            self.permission.as_deref(),
            context,
            args,
            &mut assessment,
        );
        for name in path_params(&self.url) {
            match args.get(&name) {
                None | Some(Value::Null) => assessment.findings.push(Finding::new(
                    codes::ARGS_MISSING_FIELD,
                    format!("the path parameter `{name}` is missing"),
                )),
                Some(value) => {
                    if let Some(bad) = bad_path_value(value) {
                        assessment.findings.push(Finding::new(
                            codes::REGISTRY_BAD_PATH_PARAM,
                            format!(
                                "the path parameter `{name}` = `{}` would change the path",
                                preview(&bad, 40)
                            ),
                        ));
                    }
                }
            }
        }
        let level = self.level.unwrap_or(match self.method.as_str() {
            "GET" | "HEAD" | "OPTIONS" => 1,
            "DELETE" => 3,
            _ => 2,
        });
        use crate::config::Level2;
        let (verdict, message) = match (level, self.level2) {
            (1, _) => (Verdict::ReadOnly, "registry level 1: a query"),
            (3, _) => (Verdict::Destructive, "registry level 3: deletes"),
            (_, Level2::Notify) => (
                Verdict::ReadOnly,
                "registry level 2: modifies; allowed, and the user is told",
            ),
            (_, Level2::Inform) => (
                Verdict::ReadOnly,
                "registry level 2: modifies; runs, and the user is informed of the operation (seed 002 §6.2)",
            ),
            (_, Level2::Confirm) => (Verdict::Unproven, "registry level 2: modifies"),
        };
        let problems = !assessment.findings.is_empty();
        assessment.verdict = match (verdict, problems) {
            (Verdict::Destructive, _) => Verdict::Destructive,
            (_, true) => Verdict::Unproven,
            (v, false) => v,
        };
        let code = match (level, self.level2) {
            (2, Level2::Notify) => codes::REGISTRY_NOTIFY,
            (2, Level2::Inform) => codes::REGISTRY_INFORM,
            _ => codes::REGISTRY_LEVEL,
        };
        assessment.findings.push(Finding::new(code, message));
        assessment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters() {
        assert_eq!(
            path_params("/api/n9e/busi-group/:id/alert-mutes"),
            vec!["id"]
        );
        assert_eq!(path_params("/pet/{petId}/uploadImage"), vec!["petId"]);
        for bad in ["1/../../admin", "..", "a?b", "x#y", "a/b", "", "%2e%2e"] {
            assert!(
                bad_path_value(&Value::String(bad.into())).is_some(),
                "{bad}"
            );
        }
        assert!(bad_path_value(&Value::String("host-01".into())).is_none());
        assert!(bad_path_value(&serde_json::json!(42)).is_none());
    }
}
