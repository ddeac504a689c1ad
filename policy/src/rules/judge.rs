//! Which rules a call meets: the first deny or ask rule that touches any part
//! of it, and the allow rules that together cover every part.
//!
//! Deny and ask look for any part and fail closed: a deny or ask rule whose
//! matcher cannot be checked (the text did not parse, a statement holds more
//! than its kind says) makes the call confirmed. Allow needs every part.

use super::glob::{glob, name_glob, name_glob_exact, path_glob};
use super::{matcher_kind, Effect, Rule};
use crate::assess::facts::{CommandFacts, Facts, FileFacts, HttpFacts, SqlStatement, TableName};
use crate::config::ToolKind;

/// What the rules say about one call; each a rule's name (its `id`, else
/// `rules[i]` or `grants[i]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Judged {
    /// The first deny rule that touches the call.
    pub deny: Option<String>,
    /// The first ask rule that touches the call.
    pub ask: Option<String>,
    /// The first deny or ask rule that applies but could not be checked.
    pub unchecked: Option<String>,
    /// The allow rules (and grants) that together cover every part.
    pub allow: Option<String>,
}

/// Whether a deny or ask rule touches a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touch {
    Yes,
    No,
    Unchecked,
}

/// Judges a call of `tool` (of `kind`) by its facts.
pub(crate) fn judge(
    rules: &[Rule],
    grants: &[Rule],
    tool: &str,
    kind: Option<ToolKind>,
    facts: &Facts,
) -> Judged {
    // Grants only ever allow: one that carries another effect is ignored.
    let named: Vec<(String, &Rule, bool)> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let allows = r.effect == Effect::Allow;
            (
                r.id.clone().unwrap_or_else(|| format!("rules[{i}]")),
                r,
                allows,
            )
        })
        .chain(
            grants
                .iter()
                .enumerate()
                .filter(|(_, r)| r.effect == Effect::Allow)
                .map(|(i, r)| {
                    (
                        r.id.clone().unwrap_or_else(|| format!("grants[{i}]")),
                        r,
                        true,
                    )
                }),
        )
        .filter(|(_, r, _)| applies(r, tool, kind))
        .collect();
    let mut judged = Judged::default();
    for (name, rule, allows) in &named {
        if *allows {
            continue;
        }
        let slot = match rule.effect {
            Effect::Deny => &mut judged.deny,
            _ => &mut judged.ask,
        };
        match touch(rule, facts) {
            Touch::Yes if slot.is_none() => *slot = Some(name.clone()),
            Touch::Unchecked if judged.unchecked.is_none() => judged.unchecked = Some(name.clone()),
            _ => {}
        }
    }
    let allows: Vec<(&str, &Rule)> = named
        .iter()
        .filter(|(_, _, allows)| *allows)
        .map(|(n, r, _)| (n.as_str(), *r))
        .collect();
    judged.allow = cover(&allows, facts);
    judged
}

/// Whether a rule applies to the tool: its name glob matches, and a matcher
/// fits the tool's kind.
fn applies(rule: &Rule, tool: &str, kind: Option<ToolKind>) -> bool {
    // What takes power away meets every spelling of a name; what gives
    // it (an allow rule, a grant) only the name as written.
    let named = rule.tool.as_deref().is_none_or(|t| {
        if rule.effect == Effect::Allow {
            name_glob_exact(t, tool)
        } else {
            name_glob(t, tool)
        }
    });
    match matcher_kind(rule) {
        None => rule.tool.is_some() && named,
        Some(k) => named && kind == Some(k),
    }
}

fn touch(rule: &Rule, facts: &Facts) -> Touch {
    let yes = |b: bool| if b { Touch::Yes } else { Touch::No };
    match (rule, facts) {
        (r, _) if matcher_kind(r).is_none() => Touch::Yes,
        (
            Rule {
                command: Some(words),
                ..
            },
            Facts::Command(f),
        ) => {
            if f.everywhere.is_empty() {
                return Touch::Unchecked;
            }
            let touches: Vec<Touch> = f
                .everywhere
                .iter()
                .map(|c| starts_anywhere(words, c))
                .collect();
            if touches.contains(&Touch::Yes) {
                Touch::Yes
            } else if touches.contains(&Touch::Unchecked) {
                Touch::Unchecked
            } else {
                Touch::No
            }
        }
        (Rule { sql: Some(m), .. }, Facts::Sql(f)) => {
            if f.statements.is_empty() {
                return Touch::Unchecked;
            }
            let mut out = Touch::No;
            for s in &f.statements {
                let on_table = s
                    .tables
                    .iter()
                    .any(|t| m.tables.iter().any(|p| table_glob(p, t, false)));
                if on_table && kind_named(&m.statements, s) {
                    return Touch::Yes;
                }
                if on_table && !s.read_only && (!s.clean || s.kind.is_none()) {
                    out = Touch::Unchecked;
                }
            }
            out
        }
        (Rule { file: Some(m), .. }, Facts::File(f)) => {
            if f.readings.is_empty() {
                return Touch::Unchecked;
            }
            yes(operation_named(&m.operations, &f.operation)
                && f.readings
                    .iter()
                    .any(|p| m.paths.iter().any(|g| path_glob(g, p))))
        }
        (Rule { http: Some(m), .. }, Facts::Http(f)) => {
            if f.hosts.is_empty() {
                return Touch::Unchecked;
            }
            let method = m.methods.is_empty()
                || f.methods
                    .iter()
                    .any(|x| x == "?" || m.methods.iter().any(|y| y.eq_ignore_ascii_case(x)));
            let host = f
                .hosts
                .iter()
                .chain(f.host.iter())
                .any(|h| m.hosts.iter().any(|g| host_glob(g, h)));
            let path = m.paths.is_empty()
                || f.path
                    .as_deref()
                    .is_none_or(|p| m.paths.iter().any(|g| path_glob(g, p)));
            yes(method && host && path)
        }
        _ => Touch::Unchecked,
    }
}

/// The allow rules that cover every part of the call, by name; `None` when
/// some part is neither covered nor proven read-only, or no rule covers any.
fn cover(allows: &[(&str, &Rule)], facts: &Facts) -> Option<String> {
    if let Some((name, _)) = allows.iter().find(|(_, r)| matcher_kind(r).is_none()) {
        return Some((*name).to_owned());
    }
    let mut used: Vec<&str> = Vec::new();
    match facts {
        Facts::Command(f) => command_cover(allows, f, &mut used)?,
        Facts::Sql(f) => {
            if f.statements.is_empty() {
                return None;
            }
            for s in &f.statements {
                match allows.iter().find(|(_, r)| covers_statement(r, s)) {
                    Some((name, _)) => push(&mut used, name),
                    None if s.read_only => {}
                    None => return None,
                }
            }
        }
        Facts::File(f) => {
            let (name, _) = allows.iter().find(|(_, r)| covers_file(r, f))?;
            push(&mut used, name);
        }
        Facts::Http(f) => {
            let (name, _) = allows.iter().find(|(_, r)| covers_http(r, f))?;
            push(&mut used, name);
        }
        Facts::None => return None,
    }
    (!used.is_empty()).then(|| used.join(", "))
}

fn push<'a>(used: &mut Vec<&'a str>, name: &'a str) {
    if !used.contains(&name) {
        used.push(name);
    }
}

fn command_cover<'a>(
    allows: &[(&'a str, &Rule)],
    f: &CommandFacts,
    used: &mut Vec<&'a str>,
) -> Option<()> {
    if !f.flat || f.segments.is_empty() {
        return None;
    }
    for s in &f.segments {
        let coverable = !s.redirected && !s.assigns;
        let rule = s.argv.as_ref().filter(|_| coverable).and_then(|argv| {
            allows.iter().find(|(_, r)| {
                r.command
                    .as_ref()
                    .is_some_and(|words| argv_matches(words, argv, s.destructive))
            })
        });
        match rule {
            Some((name, _)) => push(used, name),
            None if s.read_only => {}
            None => return None,
        }
    }
    Some(())
}

/// A command rule's word as the literal it stands for: a run of `\\`
/// before a lone `*` is one `\\` fewer (`\\*` is a literal `*`, so an
/// exact rule for `docker '*'` is not the prefix rule `docker *`); every
/// other word is itself. The wildcard, a last word `*`, is not a literal.
pub(crate) fn literal_word(word: &str) -> &str {
    match word.strip_prefix('\\') {
        Some(rest) if rest.trim_start_matches('\\') == "*" => rest,
        _ => word,
    }
}

/// A word of an argv as a command rule's word that stands for it (the
/// inverse of `literal_word`).
pub fn escape_word(word: &str) -> String {
    if word.trim_start_matches('\\') == "*" {
        format!("\\{word}")
    } else {
        word.to_owned()
    }
}

/// An allow rule's argv against a segment's: word for word, a last `*`
/// standing for any further words; a destructive segment only exactly.
pub(crate) fn argv_matches(rule: &[String], argv: &[String], destructive: bool) -> bool {
    let same = |r: &String, a: &String| literal_word(r) == a;
    match rule.split_last() {
        Some((last, head)) if last == "*" => {
            !destructive
                && argv.len() >= head.len()
                && argv.iter().zip(head).all(|(a, r)| same(r, a))
        }
        Some(_) => rule.len() == argv.len() && rule.iter().zip(argv).all(|(r, a)| same(r, a)),
        None => false,
    }
}

/// A deny or ask rule's words against any simple command: its first word is
/// the program anywhere in the command (after wrappers, `sudo rm` meets
/// `rm`; compared with the word's last path component too), and its other
/// words follow in order, not necessarily next to each other (`git push
/// origin --force` meets `["git", "push", "--force"]`). A word that is not a
/// plain literal may be any rule word but the first: a match that needs one
/// cannot be checked (confirm), not a match (deny). Linear: the earliest
/// program leaves the longest rest to find the words in.
fn starts_anywhere(rule: &[String], words: &[Option<String>]) -> Touch {
    let head: Vec<&str> = rule
        .iter()
        .take_while(|w| *w != "*")
        .map(|w| literal_word(w))
        .collect();
    let Some((first, rest)) = head.split_first() else {
        return Touch::No;
    };
    let Some(at) = words.iter().position(|w| {
        w.as_deref()
            .is_some_and(|p| p == *first || p.rsplit('/').next() == Some(*first))
    }) else {
        return Touch::No;
    };
    let found = |unknown_matches: bool| {
        let mut wanted = rest.iter().peekable();
        for word in words.iter().skip(at + 1) {
            let Some(want) = wanted.peek() else { break };
            let meets = match word.as_deref() {
                Some(w) => w == **want,
                None => unknown_matches,
            };
            if meets {
                wanted.next();
            }
        }
        wanted.peek().is_none()
    };
    if found(false) {
        Touch::Yes
    } else if found(true) {
        Touch::Unchecked
    } else {
        Touch::No
    }
}

fn kind_named(kinds: &[String], s: &SqlStatement) -> bool {
    s.kind
        .is_some_and(|k| kinds.iter().any(|x| x.eq_ignore_ascii_case(k)))
}

fn covers_statement(rule: &Rule, s: &SqlStatement) -> bool {
    let Some(m) = &rule.sql else { return false };
    // Row writes name their kind, which is the user's word for them; a
    // statement that destroys whole tables (DROP, TRUNCATE, a destructive
    // ALTER) is covered only by its tables named without a glob.
    let exact = s.destructive && !matches!(s.kind, Some("INSERT" | "UPDATE" | "DELETE" | "MERGE"));
    kind_named(&m.statements, s)
        && s.clean
        && !s.tables.is_empty()
        && s.tables
            .iter()
            .all(|t| m.tables.iter().any(|p| table_glob(p, t, exact)))
}

/// A rule's table (`schema.name`, globs in either part) against a table:
/// qualified only against qualified. `exact`: no glob may stand in.
pub(crate) fn table_glob(pattern: &str, table: &TableName, exact: bool) -> bool {
    if exact && pattern.contains('*') {
        return false;
    }
    let pattern = pattern.to_lowercase();
    match (pattern.rsplit_once('.'), &table.schema) {
        (Some((schema, name)), Some(s)) => glob(schema, s) && glob(name, &table.name),
        (None, None) => glob(&pattern, &table.name),
        _ => false,
    }
}

fn operation_named(operations: &[String], operation: &str) -> bool {
    operations
        .iter()
        .any(|o| crate::assess::file::rule_operation(o).as_deref() == Some(operation))
}

fn covers_file(rule: &Rule, f: &FileFacts) -> bool {
    let Some(m) = &rule.file else { return false };
    f.clean
        && operation_named(&m.operations, &f.operation)
        && m.paths.iter().any(|g| {
            if f.destructive {
                g == &f.path
            } else {
                path_glob(g, &f.path)
            }
        })
}

/// A host glob against a host (case does not matter for names).
fn host_glob(pattern: &str, host: &str) -> bool {
    glob(&pattern.to_ascii_lowercase(), &host.to_ascii_lowercase())
}

fn covers_http(rule: &Rule, f: &HttpFacts) -> bool {
    let Some(m) = &rule.http else { return false };
    let Some(host) = &f.host else { return false };
    let methods = f.methods.iter().all(|x| {
        if m.methods.is_empty() {
            x != "DELETE" && x != "?"
        } else {
            m.methods.iter().any(|y| y.eq_ignore_ascii_case(x))
        }
    });
    let path = m.paths.is_empty()
        || f.path
            .as_deref()
            .is_some_and(|p| m.paths.iter().any(|g| path_glob(g, p)));
    methods && path && m.hosts.iter().any(|g| host_glob(g, host))
}
