//! Rules people write (`rules` in the configuration) and the grants an
//! approval leaves behind, matched on what the assessors parsed.
//!
//! The shapes are [`toolgate_shapes::rules`]; this module decides whether a
//! rule covers a call and, for an approval given "for this session" or
//! "always", which narrowest rule covers the approved call.

pub use toolgate_shapes::rules::{Effect, FileMatch, HttpMatch, Rule, SqlMatch};

use crate::engine::Engine;

/// Whether `pattern` (where `*` stands for any run of characters) matches
/// `name` entirely.
pub fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The narrowest rules that, given as an allow grant, would let this call run
/// unasked; empty when no grant may cover it (a denied tool, a call the floor
/// finds destructive, arguments that are not one clean object).
///
/// Interim: a rule naming the tool alone. The per-kind generalisation (the
/// argv prefix up to the first path or free argument, the SQL statement kind
/// on its tables, the file path, the HTTP method, host and path) replaces it.
pub fn narrowest(engine: &Engine, tool: &str, args: &str) -> Vec<Rule> {
    let _ = (engine, args);
    vec![Rule {
        effect: Effect::Allow,
        tool: Some(tool.to_owned()),
        ..Rule::default()
    }]
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob("alert_*", "alert_mute"));
        assert!(glob("mcp:github/*", "mcp:github/list_issues"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "abc"));
        assert!(glob("a*b*c", "a-b-b-c"));
        assert!(!glob("alert_*", "xalert_mute"));
        assert!(!glob("a*b", "ab-"));
        assert!(!glob("ab*ba", "aba"));
        assert!(!glob("send_email", "send_emails"));
    }
}
