//! Where in a JSON text a configuration error is.
//!
//! A configuration is deserialized from a JSON value (one deserializer for
//! every configuration keeps the component small), so serde's errors carry a
//! path (`rules[2].match`) but no position. This walks the text along that
//! path to name the line and column of the member or element at fault, without
//! building anything. Text it cannot follow gives no position.

/// The 1-based line and column where `path` (as `serde_path_to_error` prints
/// it: `a.b[0].c`, `.` for the root) starts in `text`, if it can be found.
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    let segments = segments(path)?;
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    let mut found = at;
    for segment in &segments {
        match (bytes.get(at)?, segment) {
            (b'{', Segment::Key(key)) => {
                at = skip_space(bytes, at + 1);
                loop {
                    if *bytes.get(at)? != b'"' {
                        return None;
                    }
                    let start = at;
                    let (name, next) = string(bytes, at)?;
                    at = skip_space(bytes, next);
                    if *bytes.get(at)? != b':' {
                        return None;
                    }
                    at = skip_space(bytes, at + 1);
                    if name == *key {
                        found = start;
                        break;
                    }
                    at = skip_space(bytes, skip_value(bytes, at)?);
                    match bytes.get(at)? {
                        b',' => at = skip_space(bytes, at + 1),
                        _ => return None,
                    }
                }
            }
            (b'[', Segment::Index(index)) => {
                at = skip_space(bytes, at + 1);
                for _ in 0..*index {
                    at = skip_space(bytes, skip_value(bytes, at)?);
                    match bytes.get(at)? {
                        b',' => at = skip_space(bytes, at + 1),
                        _ => return None,
                    }
                }
                found = at;
            }
            _ => return None,
        }
    }
    let before = text.get(..found)?;
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// `a.b[0].c` as segments; `None` for a path this reader does not follow.
fn segments(path: &str) -> Option<Vec<Segment>> {
    if path == "." || path.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, indices) = part
            .split_once('[')
            .map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            out.push(Segment::Key(key.to_owned()));
        }
        if !indices.is_empty() {
            for index in format!("[{indices}").split('[').filter(|s| !s.is_empty()) {
                out.push(Segment::Index(index.strip_suffix(']')?.parse().ok()?));
            }
        }
    }
    Some(out)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// The string starting at `at` (a `"`), its escapes kept as written but for
/// `\"` and `\\`, and the index after it.
fn string(bytes: &[u8], at: usize) -> Option<(String, usize)> {
    let mut out = Vec::new();
    let mut i = at + 1;
    loop {
        match *bytes.get(i)? {
            b'"' => return Some((String::from_utf8(out).ok()?, i + 1)),
            b'\\' => {
                let next = *bytes.get(i + 1)?;
                out.push(if matches!(next, b'"' | b'\\' | b'/') {
                    next
                } else {
                    b'\\'
                });
                if !matches!(next, b'"' | b'\\' | b'/') {
                    out.push(next);
                }
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// The index after the value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string(bytes, at).map(|(_, next)| next),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match *bytes.get(i)? {
                    b'"' => {
                        i = string(bytes, i)?.1;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_members_and_elements_along_the_path() {
        let text = "{\n  \"strict\": true,\n  \"denied_tool\": [],\n  \"rules\": [\n    {\"a\": 1},\n    {\"match\": {\"sql\": 5}}\n  ]\n}";
        assert_eq!(locate(text, "denied_tool"), Some((3, 3)));
        assert_eq!(locate(text, "rules[1]"), Some((6, 5)));
        assert_eq!(locate(text, "rules[1].match.sql"), Some((6, 16)));
        assert_eq!(locate(text, "."), Some((1, 1)));
        assert_eq!(locate(text, "missing"), None);
        assert_eq!(locate("{\"a\": \"x\\\"}\", \"b\": 1}", "b"), Some((1, 15)));
        assert_eq!(locate("not json", "a"), None);
    }
}
