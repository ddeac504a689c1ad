//! The two globs rules use: names (`*` any run of characters) and paths
//! (`**` any number of segments, `*` within one segment).

/// Whether `pattern` (where `*` stands for any run of characters) matches
/// `name` entirely.
pub fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return pattern == name;
    };
    if parts.len() == 1 {
        return pattern == name;
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
