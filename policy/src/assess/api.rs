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
    /// Level 2: allow and tell the user, instead of confirming.
    pub notify_level2: bool,
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

impl Assessor for ApiAssessor {
    fn assess(&self, args: &Map<String, Value>, context: &Context) -> Assessment {
        let operation = format!("{} {}", self.method, self.url);
        let mut assessment = Assessment::new(Verdict::Unproven, operation);
        assessment.proof = Source::Registry;
        if !self.enabled {
            assessment.deny = Some(Finding::new(
                codes::REGISTRY_DISABLED,
                "the tool is disabled in the registry",
            ));
        }
        if let Some(permission) = &self.permission {
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
        let (verdict, message) = match level {
            1 => (Verdict::ReadOnly, "registry level 1: a query"),
            3 => (Verdict::Destructive, "registry level 3: deletes"),
            _ if self.notify_level2 => (
                Verdict::ReadOnly,
                "registry level 2: modifies; allowed, and the user is told",
            ),
            _ => (Verdict::Unproven, "registry level 2: modifies"),
        };
        let problems = !assessment.findings.is_empty();
        assessment.verdict = match (verdict, problems) {
            (Verdict::Destructive, _) => Verdict::Destructive,
            (_, true) => Verdict::Unproven,
            (v, false) => v,
        };
        let code = if level == 2 && self.notify_level2 {
            codes::REGISTRY_NOTIFY
        } else {
            codes::REGISTRY_LEVEL
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
