//! Whether one allow rule is implied by another: every call the first
//! covers, the second covers too. A host may hand back narrower rules than
//! those proposed with an approval (`remember.rules`); each must be implied
//! by one proposed rule, so no host (nor whoever answers through it) can
//! widen what the person was shown. Checked in the policy, so every host
//! gets the same answer.
//!
//! The test is by the rules' words, never by what they might match: lists
//! are subsets of the proposed lists (compared as the matchers compare
//! them), a command rule is the proposed one or, under a proposed prefix
//! (`npm run *`), a longer prefix. An exact command under a proposed prefix
//! is refused: an exact rule covers a segment the floor finds destructive,
//! which a prefix never does.

use super::{Effect, FileMatch, HttpMatch, Rule, SqlMatch};

/// Whether `rule` is implied by `by` (see the module documentation).
pub fn implied(rule: &Rule, by: &Rule) -> bool {
    if rule.effect != Effect::Allow || by.effect != Effect::Allow || rule.tool != by.tool {
        return false;
    }
    match (rule, by) {
        (
            Rule {
                command: None,
                sql: None,
                file: None,
                http: None,
                ..
            },
            Rule {
                command: None,
                sql: None,
                file: None,
                http: None,
                ..
            },
        ) => true,
        (
            Rule {
                command: Some(r),
                sql: None,
                file: None,
                http: None,
                ..
            },
            Rule {
                command: Some(b), ..
            },
        ) => command(r, b),
        (
            Rule {
                sql: Some(r),
                command: None,
                file: None,
                http: None,
                ..
            },
            Rule { sql: Some(b), .. },
        ) => sql(r, b),
        (
            Rule {
                file: Some(r),
                command: None,
                sql: None,
                http: None,
                ..
            },
            Rule { file: Some(b), .. },
        ) => file(r, b),
        (
            Rule {
                http: Some(r),
                command: None,
                sql: None,
                file: None,
                ..
            },
            Rule { http: Some(b), .. },
        ) => http(r, b),
        _ => false,
    }
}

fn command(rule: &[String], by: &[String]) -> bool {
    if rule == by {
        return true;
    }
    match (rule.split_last(), by.split_last()) {
        (Some((r, rule_head)), Some((b, by_head))) if r == "*" && b == "*" => {
            rule_head.starts_with(by_head)
        }
        _ => false,
    }
}

/// Every item of `items` is in `within`, as `same` compares them; an empty
/// `items` only when `within` is empty too (an empty list is a wildcard in
/// some matchers).
fn subset(items: &[String], within: &[String], same: impl Fn(&str, &str) -> bool) -> bool {
    (!items.is_empty() || within.is_empty())
        && items.iter().all(|i| within.iter().any(|w| same(i, w)))
}

fn sql(rule: &SqlMatch, by: &SqlMatch) -> bool {
    subset(&rule.statements, &by.statements, |a, b| {
        a.eq_ignore_ascii_case(b)
    }) && subset(&rule.tables, &by.tables, |a, b| {
        a.to_lowercase() == b.to_lowercase()
    })
}

fn file(rule: &FileMatch, by: &FileMatch) -> bool {
    let op = crate::assess::file::rule_operation;
    subset(&rule.operations, &by.operations, |a, b| {
        op(a).is_some() && op(a) == op(b)
    }) && subset(&rule.paths, &by.paths, |a, b| a == b)
}

fn http(rule: &HttpMatch, by: &HttpMatch) -> bool {
    let methods = if by.methods.is_empty() {
        // Any method but DELETE, which a rule must name.
        rule.methods
            .iter()
            .all(|m| !m.eq_ignore_ascii_case("DELETE"))
    } else {
        subset(&rule.methods, &by.methods, |a, b| a.eq_ignore_ascii_case(b))
    };
    // An empty path list is any path: only under a proposal that has none.
    let paths = by.paths.is_empty() || subset(&rule.paths, &by.paths, |a, b| a == b);
    methods && paths && subset(&rule.hosts, &by.hosts, |a, b| a.eq_ignore_ascii_case(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(json: &str) -> Rule {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn narrower_rules_are_implied_and_wider_ones_are_not() {
        let npm =
            rule(r#"{"effect":"allow","tool":"execute_command","command":["npm","run","*"]}"#);
        for (json, ok) in [
            (
                r#"{"effect":"allow","tool":"execute_command","command":["npm","run","*"]}"#,
                true,
            ),
            (
                r#"{"effect":"allow","tool":"execute_command","command":["npm","run","build","*"]}"#,
                true,
            ),
            (
                r#"{"effect":"allow","tool":"execute_command","command":["npm","run","build"]}"#,
                false,
            ),
            (
                r#"{"effect":"allow","tool":"execute_command","command":["npm","*"]}"#,
                false,
            ),
            (r#"{"effect":"allow","tool":"execute_command"}"#, false),
            (
                r#"{"effect":"allow","tool":"execute_*","command":["npm","run","*"]}"#,
                false,
            ),
            (
                r#"{"effect":"allow","tool":"execute_command","command":["rm","-rf","/"]}"#,
                false,
            ),
        ] {
            assert_eq!(implied(&rule(json), &npm), ok, "{json}");
        }
        let sql = rule(
            r#"{"effect":"allow","tool":"execute_sql","sql":{"statements":["UPDATE","INSERT"],"tables":["users"]}}"#,
        );
        assert!(implied(
            &rule(
                r#"{"effect":"allow","tool":"execute_sql","sql":{"statements":["update"],"tables":["USERS"]}}"#
            ),
            &sql
        ));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"execute_sql","sql":{"statements":["DELETE"],"tables":["users"]}}"#
            ),
            &sql
        ));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"execute_sql","sql":{"statements":["UPDATE"],"tables":["*"]}}"#
            ),
            &sql
        ));
        let http = rule(
            r#"{"effect":"allow","tool":"http_request","http":{"methods":[],"hosts":["api.example.com"],"paths":["/v1/items"]}}"#,
        );
        assert!(implied(
            &rule(
                r#"{"effect":"allow","tool":"http_request","http":{"methods":["GET"],"hosts":["API.example.com"],"paths":["/v1/items"]}}"#
            ),
            &http
        ));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"http_request","http":{"methods":["DELETE"],"hosts":["api.example.com"],"paths":["/v1/items"]}}"#
            ),
            &http
        ));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"http_request","http":{"methods":[],"hosts":["api.example.com"],"paths":[]}}"#
            ),
            &http
        ));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"http_request","http":{"methods":[],"hosts":["*.example.com"],"paths":["/v1/items"]}}"#
            ),
            &http
        ));
        let file = rule(
            r#"{"effect":"allow","tool":"file_operations","file":{"operations":["write"],"paths":["src/a.rs"]}}"#,
        );
        assert!(implied(&file.clone(), &file));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"file_operations","file":{"operations":["write"],"paths":["src/**"]}}"#
            ),
            &file
        ));
        assert!(!implied(
            &rule(
                r#"{"effect":"allow","tool":"file_operations","file":{"operations":["delete"],"paths":["src/a.rs"]}}"#
            ),
            &file
        ));
    }
}
