//! What makes a rule unusable, found when the configuration is read (and
//! when a host hands in an edited grant): a rule that would silently match
//! nothing, or more than its author meant, is refused with the reason.

use super::{matcher_kind, Rule, SQL_KINDS};
use crate::config::{Config, RuleProblem, ToolKind};

/// Checks one rule against the configuration it belongs to.
pub fn check_rule(config: &Config, rule: &Rule) -> Result<(), RuleProblem> {
    let set: Vec<&'static str> = [
        ("command", rule.command.is_some()),
        ("sql", rule.sql.is_some()),
        ("file", rule.file.is_some()),
        ("http", rule.http.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if let [first, second, ..] = set.as_slice() {
        return Err(RuleProblem::TwoMatchers(first, second));
    }
    let Some(kind) = matcher_kind(rule) else {
        return match &rule.tool {
            None => Err(RuleProblem::NoTarget),
            Some(t) if t.is_empty() => Err(RuleProblem::EmptyPattern("tool")),
            Some(_) => Ok(()),
        };
    };
    if let Some(tool) = rule.tool.as_deref().and_then(super::name_of_literal) {
        // A coding agent's own name for a tool (`Bash`, `Write`) has the
        // kind of the call its hook maps it onto.
        let named = config
            .kind_of(&tool)
            .or_else(|| crate::hooks::agent_tool_kind(&tool));
        if named != Some(kind) {
            return Err(RuleProblem::WrongKind {
                matcher: set.first().copied().unwrap_or("matcher"),
                tool,
                kind: named.map_or("unknown", ToolKind::name),
            });
        }
    }
    if let Some(words) = &rule.command {
        let Some((_, head)) = words.split_last() else {
            return Err(RuleProblem::EmptyArgv);
        };
        if head.iter().any(|w| w == "*") {
            return Err(RuleProblem::WildcardNotLast);
        }
        if words.first().is_some_and(|w| w == "*" || w.is_empty()) {
            return Err(RuleProblem::EmptyArgv);
        }
    }
    if let Some(m) = &rule.sql {
        nonempty("sql.statements", &m.statements)?;
        nonempty("sql.tables", &m.tables)?;
        if let Some(bad) = m
            .statements
            .iter()
            .find(|s| !SQL_KINDS.iter().any(|k| k.eq_ignore_ascii_case(s)))
        {
            return Err(RuleProblem::UnknownStatement(bad.clone()));
        }
    }
    if let Some(m) = &rule.file {
        nonempty("file.operations", &m.operations)?;
        nonempty("file.paths", &m.paths)?;
        if let Some(bad) = m
            .operations
            .iter()
            .find(|o| crate::assess::file::rule_operation(o).is_none())
        {
            return Err(RuleProblem::UnknownOperation(bad.clone()));
        }
    }
    if let Some(m) = &rule.http {
        nonempty("http.hosts", &m.hosts)?;
        if m.paths.iter().any(String::is_empty) {
            return Err(RuleProblem::EmptyPattern("http.paths"));
        }
        if let Some(bad) = m
            .methods
            .iter()
            .find(|x| x.is_empty() || !x.chars().all(|c| c.is_ascii_alphabetic()))
        {
            return Err(RuleProblem::BadMethod(bad.clone()));
        }
    }
    Ok(())
}

fn nonempty(field: &'static str, list: &[String]) -> Result<(), RuleProblem> {
    if list.is_empty() {
        return Err(RuleProblem::Empty(field));
    }
    if list.iter().any(String::is_empty) {
        return Err(RuleProblem::EmptyPattern(field));
    }
    Ok(())
}
