//! The globs rules use: names (`*` any run of characters), tool names (the
//! same, in the normal form of [`crate::toolname::fold`], `\*` and `\\`
//! standing for themselves) and paths (`**` any number of segments, `*`
//! within one segment).
//!
//! A tool name the model chose is carried into a rule (a proposal, a grant)
//! as a literal: [`literal_name`] escapes its pattern characters, so a tool
//! named `*` or `execute_*` is granted as itself and never becomes a
//! wildcard. People's own rules keep their globs.

/// Whether `pattern` (where `*` stands for any run of characters) matches
/// `name` entirely.
pub fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    glob_parts(&parts, name)
}

/// Whether the literal `parts` with any run of characters between each two
/// match `name` entirely.
fn glob_parts(parts: &[&str], name: &str) -> bool {
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return name.is_empty();
    };
    if parts.len() == 1 {
        return *first == name;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let Some(mut rest) = name.get(first.len()..name.len() - last.len()) else {
        return false;
    };
    for part in parts.iter().skip(1).take(parts.len() - 2) {
        match rest.find(part) {
            Some(at) => rest = rest.get(at + part.len()..).unwrap_or(""),
            None => return false,
        }
    }
    true
}

/// Whether a deny or ask rule's tool pattern matches a tool name: `*` any
/// run of characters, `\*` a literal `*` and `\\` a literal `\`; both
/// compared in the normal form of [`crate::toolname::fold`]
/// (`Drop_Database` meets `drop_*`).
pub fn name_glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<String> = name_parts(pattern)
        .iter()
        .map(|p| crate::toolname::fold(p))
        .collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    glob_parts(&parts, &crate::toolname::fold(name))
}

/// [`name_glob`] on the names as they are spelt: what an allow rule or a
/// grant needs, since a look-alike of an allowed tool may be another tool.
pub fn name_glob_exact(pattern: &str, name: &str) -> bool {
    let parts = name_parts(pattern);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    glob_parts(&parts, name)
}

/// A tool pattern's literal runs, split at its unescaped `*`s.
fn name_parts(pattern: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => push_literal(&mut parts, next),
                None => push_literal(&mut parts, c),
            },
            '*' => parts.push(String::new()),
            other => push_literal(&mut parts, other),
        }
    }
    parts
}

fn push_literal(parts: &mut [String], c: char) {
    if let Some(last) = parts.last_mut() {
        last.push(c);
    }
}

/// A tool name as a pattern that matches only itself (see [`name_glob`]).
pub fn literal_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '*' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The name a literal pattern made by [`literal_name`] stands for, or
/// `None` when the pattern holds a wildcard.
pub fn name_of_literal(pattern: &str) -> Option<String> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next().unwrap_or(c)),
            '*' => return None,
            other => out.push(other),
        }
    }
    Some(out)
}

/// Whether a path glob matches a normalised path: segments compared one by
/// one, `**` standing for any number of segments (none included), `*`
/// within a segment for any run of characters but `/`.
pub fn path_glob(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    segments(&pattern, &path)
}

fn segments(pattern: &[&str], path: &[&str]) -> bool {
    // Iterative with one backtrack point for the last `**` seen: linear in
    // practice, never exponential.
    let (mut p, mut s) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while s < path.len() {
        match pattern.get(p) {
            Some(&"**") => {
                star = Some((p, s));
                p += 1;
            }
            Some(seg) if path.get(s).is_some_and(|name| glob(seg, name)) => {
                p += 1;
                s += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    p = sp + 1;
                    s = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    pattern.iter().skip(p).all(|seg| *seg == "**")
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn tool_names_meet_globs_in_their_normal_form_and_literals_stay_literal() {
        assert!(name_glob("drop_*", "Drop_Database"));
        assert!(name_glob("execute_sql", "EXECUTE\u{200b}_SQL"));
        assert!(name_glob("execute_sql", "ｅｘｅｃｕｔｅ_sql"));
        assert!(!name_glob("drop_*", "truncate_table"));
        assert!(!name_glob_exact("execute_sql", "Execute_SQL"));
        assert!(name_glob_exact(&literal_name("a*"), "a*"));
        assert!(!name_glob_exact(&literal_name("a*"), "ab"));
        for name in ["*", "execute_*", "a\\*", "\\", "plain", "ｅ＊"] {
            let literal = literal_name(name);
            assert!(name_glob(&literal, name), "{name}");
            assert_eq!(name_of_literal(&literal).as_deref(), Some(name));
        }
        assert!(!name_glob(&literal_name("*"), "execute_command"));
        assert!(!name_glob(&literal_name("execute_*"), "execute_command"));
        assert!(!name_glob(&literal_name("a\\*"), "a\\bc"));
        // A full-width star is a literal, even though it folds to `*`.
        assert!(!name_glob("＊", "execute_command"));
        assert!(name_glob("＊", "*"));
        assert_eq!(name_of_literal("execute_*"), None);
    }

    #[test]
    fn path_globs_count_segments() {
        assert!(path_glob("src/**", "src/a/b.rs"));
        assert!(path_glob("src/**", "src"));
        assert!(path_glob("src/*.rs", "src/main.rs"));
        assert!(!path_glob("src/*.rs", "src/a/main.rs"));
        assert!(path_glob("/srv/app/**/*.log", "/srv/app/x/y/z.log"));
        assert!(path_glob("/srv/app/**/*.log", "/srv/app/z.log"));
        assert!(!path_glob("/srv/app/**", "/srv/application/x"));
        assert!(!path_glob("src/**", "/src/x"));
        assert!(path_glob("**", "anything/at/all"));
        assert!(!path_glob("a/**/b", "a/x/c"));
    }
}
